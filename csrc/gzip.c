/*
 * gzip.c - bounded gzip decoding and encoding (RFC 1952) over libdeflate.
 *
 * Headers and trailers are parsed here, so every flag and every failure gets
 * its own message and offset; the deflate data itself is inflated by
 * libdeflate, which works on whole buffers.  The output buffer starts at the
 * total a first header's "SZ" subfield gives (sdui_gzip_encode_members
 * writes one; the sizes must then add up), else at the size the last
 * member's ISIZE announces (exact for a single-member pack, so memory stays
 * at the JSON size; never more than deflate can expand the input to).  When a later member needs more, it grows once to what the
 * rest of the input should inflate to at the ratio seen so far (for the
 * first member: four times the input), up to the limit, and the member is
 * inflated again;
 * a member that does not fit under the limit is a limit error,
 * so a gzip bomb costs at most the limit in memory and about twice the limit
 * in inflate work.
 */
#include <string.h>

#include <libdeflate.h>

#include "gzip_member.h"
#include "internal.h"

/* Deflate's largest expansion: 258-byte matches coded in about 2 bits. */
#define MAX_DEFLATE_RATIO ((size_t)1032)

enum {
    GZ_FTEXT = 1,
    GZ_FHCRC = 2,
    GZ_FEXTRA = 4,
    GZ_FNAME = 8,
    GZ_FCOMMENT = 16,
    GZ_FRESERVED = 0xE0
};

/* A little-endian 32-bit field at p. */
static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* A little-endian 16-bit field at p. */
static unsigned le16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* CRC-32 as gzip defines it. */
uint32_t sdui_crc32(uint32_t crc, const void *data, size_t len)
{
    return libdeflate_crc32(crc, data, len);
}

/* Fails with a gzip error at a compressed-byte offset. */
#define gz_fail(err, at, ...) \
    sdui__fail((err), SDUI_GZIP, (long long)(at), __VA_ARGS__)

/* Parses a member header (gzip_member.h). */
sdui_status sdui__gzip_header(const unsigned char *in, size_t len, size_t pos,
                              unsigned member, sdui_gz_header *h,
                              sdui_error *err)
{
    size_t start = pos;
    unsigned flg;
    h->extra = NULL;
    h->extra_len = 0;
    if (len - pos < 2 || in[pos] != 0x1f || in[pos + 1] != 0x8b) {
        if (member == 0)
            return gz_fail(err, pos, "not a gzip file (bad magic bytes)");
        return gz_fail(err, pos,
                       "trailing garbage after gzip member %u (%zu bytes)",
                       member, len - pos);
    }
    if (len - pos < 10)
        return gz_fail(err, len, "truncated header of gzip member %u",
                           member + 1);
    if (in[pos + 2] != 8)
        return gz_fail(err, pos + 2,
                       "member %u: unsupported compression method %zu",
                       member + 1, (size_t)in[pos + 2]);
    flg = in[pos + 3];
    if (flg & GZ_FRESERVED)
        return gz_fail(err, pos + 3,
                       "member %u: reserved header flags set (0x%zx)",
                       member + 1, (size_t)flg);
    pos += 10;
    if (flg & GZ_FEXTRA) {
        size_t xlen;
        if (len - pos < 2)
            return gz_fail(err, len, "member %u: truncated FEXTRA field",
                           member + 1);
        xlen = le16(in + pos);
        if (len - pos - 2 < xlen)
            return gz_fail(err, len,
                           "member %u: truncated FEXTRA field of %zu bytes",
                           member + 1, xlen);
        h->extra = in + pos + 2;
        h->extra_len = xlen;
        pos += 2 + xlen;
    }
    if (flg & GZ_FNAME) {
        const unsigned char *z = memchr(in + pos, 0, len - pos);
        if (!z)
            return gz_fail(err, len, "member %u: unterminated FNAME field",
                           member + 1);
        pos = (size_t)(z - in) + 1;
    }
    if (flg & GZ_FCOMMENT) {
        const unsigned char *z = memchr(in + pos, 0, len - pos);
        if (!z)
            return gz_fail(err, len,
                           "member %u: unterminated FCOMMENT field",
                           member + 1);
        pos = (size_t)(z - in) + 1;
    }
    if (flg & GZ_FHCRC) {
        unsigned want;
        if (len - pos < 2)
            return gz_fail(err, len, "member %u: truncated header CRC",
                           member + 1);
        want = (unsigned)(sdui_crc32(0, in + start, pos - start) & 0xffffu);
        if (le16(in + pos) != want)
            return gz_fail(err, pos, "member %u: header CRC mismatch",
                           member + 1);
        pos += 2;
    }
    h->data_pos = pos;
    return SDUI_OK;
}

/* Finds one FEXTRA subfield (gzip_member.h). */
int sdui__gzip_subfield(const unsigned char *extra, size_t len, int si1,
                        int si2, const unsigned char **data, size_t *dlen)
{
    size_t pos = 0;
    int found = 0;
    while (pos < len) {
        size_t n;
        if (len - pos < 4)
            return -1;
        n = le16(extra + pos + 2);
        if (len - pos - 4 < n)
            return -1;
        if (!found && extra[pos] == si1 && extra[pos + 1] == si2) {
            *data = extra + pos + 4;
            *dlen = n;
            found = 1;
        }
        pos += 4 + n;
    }
    return found;
}

/* Grows *buf to at least need + 1 bytes (never past max + 1). */
static sdui_status grow(char **buf, size_t *cap, size_t need, size_t max,
                        sdui_error *err)
{
    size_t c = *cap;
    char *nb;
    while (c < need)
        c = c > max / 2 ? max : c * 2;
    if (c > max)
        c = max;
    nb = sdui_realloc(*buf, c + 1);
    if (!nb)
        return sdui__oom(err);
    *buf = nb;
    *cap = c;
    return SDUI_OK;
}

/* Starts a member-at-a-time read (gzip_member.h). */
sdui_status sdui__gz_stream_open(sdui_gz_stream *s, const void *in,
                                 size_t len, sdui_error *err)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->len = len;
    s->d = libdeflate_alloc_decompressor();
    return s->d ? SDUI_OK : sdui__oom(err);
}

/* Frees a stream's decompressor (gzip_member.h). */
void sdui__gz_stream_close(sdui_gz_stream *s)
{
    if (s->d)
        libdeflate_free_decompressor(s->d);
    s->d = NULL;
}

/* Inflates and checks the next member (gzip_member.h). */
int sdui__gz_next(sdui_gz_stream *s, char *out, size_t room,
                  size_t *produced, sdui_status *st, sdui_error *err)
{
    const unsigned char *in = s->in;
    size_t len = s->len, dpos, in_n = 0, out_n = 0;
    enum libdeflate_result r;
    sdui_gz_header h;
    *produced = 0;
    if (s->pos >= len)
        return SDUI_GZ_END;
    *st = sdui__gzip_header(in, len, s->pos, s->n, &h, err);
    if (*st != SDUI_OK)
        return SDUI_GZ_FAIL;
    dpos = h.data_pos;
    r = libdeflate_deflate_decompress_ex(s->d, in + dpos, len - dpos, out,
                                         room, &in_n, &out_n);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
        return SDUI_GZ_ROOM;
    if (r != LIBDEFLATE_SUCCESS) {
        *st = gz_fail(err, dpos,
                      "member %u: corrupt or truncated deflate data",
                      s->n + 1);
        return SDUI_GZ_FAIL;
    }
    dpos += in_n;
    if (len - dpos < SDUI_GZ_TRAILER) {
        *st = gz_fail(err, len,
                      "member %u: truncated (missing CRC-32/ISIZE trailer, "
                      "%zu bytes left)",
                      s->n + 1, len - dpos);
        return SDUI_GZ_FAIL;
    }
    if (le32(in + dpos) != sdui_crc32(0, out, out_n)) {
        *st = gz_fail(err, dpos, "member %u: CRC-32 mismatch", s->n + 1);
        return SDUI_GZ_FAIL;
    }
    if (le32(in + dpos + 4) != (uint32_t)out_n) {
        *st = gz_fail(err, dpos + 4,
                      "member %u: ISIZE mismatch (inflated %zu bytes)",
                      s->n + 1, out_n);
        return SDUI_GZ_FAIL;
    }
    s->pos = dpos + SDUI_GZ_TRAILER;
    s->n++;
    *produced = out_n;
    return SDUI_GZ_MEMBER;
}

/* The "SZ" subfield: version, total (8 bytes), members (4 bytes). */
#define SZ_LEN 13

/* Reads the first header's size hint (gzip_member.h). */
int sdui__gz_size_hint(const unsigned char *in, size_t len, size_t *total,
                       unsigned *members)
{
    sdui_gz_header h;
    const unsigned char *d;
    size_t dlen, i;
    uint64_t t = 0;
    if (len == 0 || sdui__gzip_header(in, len, 0, 0, &h, NULL) != SDUI_OK ||
        !h.extra ||
        sdui__gzip_subfield(h.extra, h.extra_len, 'S', 'Z', &d, &dlen) != 1 ||
        dlen != SZ_LEN || d[0] != 1)
        return 0;
    for (i = 0; i < 8; i++)
        t |= (uint64_t)d[1 + i] << (8 * i);
    if (t > SIZE_MAX - 1)
        return 0;
    *total = (size_t)t;
    *members = (unsigned)le32(d + 9);
    return 1;
}

/* Checks a size hint before allocating (gzip_member.h). */
sdui_status sdui__gz_hint_check(size_t len, size_t total, unsigned members,
                                size_t max_out, sdui_error *err)
{
    if (total > max_out)
        return sdui__fail(err, SDUI_LIMIT, 0,
                          "the gzip file says it inflates to %zu bytes, past "
                          "the limit of %zu bytes",
                          total, max_out);
    if (total / MAX_DEFLATE_RATIO > len)
        return gz_fail(err, 0,
                       "the first member's size field says %zu bytes, more "
                       "than %zu bytes of gzip can inflate to",
                       total, len);
    /* A member is at least 18 bytes (header, empty block, trailer). */
    if (members == 0 || members > len / 18)
        return gz_fail(err, 0,
                       "the first member's size field says %u members, "
                       "which %zu bytes cannot hold",
                       members, len);
    return SDUI_OK;
}

/* Reads the next member of a hinted file into its buffer
 * (gzip_member.h). */
int sdui__gz_next_hinted(sdui_gz_stream *s, char *buf, size_t total,
                         unsigned members, size_t *used, sdui_status *st,
                         sdui_error *err)
{
    size_t n = 0;
    int k = sdui__gz_next(s, buf + *used, total - *used, &n, st, err);
    if (k == SDUI_GZ_MEMBER) {
        *used += n;
        return k;
    }
    if (k == SDUI_GZ_ROOM) {
        *st = gz_fail(err, s->pos,
                      "member %u inflates past the %zu bytes the first "
                      "member's size field says",
                      s->n + 1, total);
        return SDUI_GZ_FAIL;
    }
    if (k == SDUI_GZ_END) {
        if (*used != total) {
            *st = gz_fail(err, s->len,
                          "the members inflate to %zu bytes, not the %zu "
                          "the first member's size field says",
                          *used, total);
            return SDUI_GZ_FAIL;
        }
        if (s->n != members) {
            *st = gz_fail(err, s->len,
                          "the file has %u members, not the %u the first "
                          "member's size field says",
                          s->n, members);
            return SDUI_GZ_FAIL;
        }
    }
    return k;
}

/* Inflates every member into one buffer (gzip.h). */
sdui_status sdui_gzip_decode(const void *data, size_t len, size_t max_out,
                             char **out, size_t *out_len, unsigned *members,
                             sdui_error *err)
{
    const unsigned char *in = data;
    sdui_gz_stream s;
    char *buf = NULL;
    size_t cap, used = 0, total = 0;
    unsigned hint_members = 0;
    int hinted, k;
    sdui_status st = SDUI_OK;

    sdui_error_clear(err);
    memset(&s, 0, sizeof s);
    if (!out || !out_len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out or out_len is NULL");
    *out = NULL;
    *out_len = 0;
    if (len == 0)
        return sdui__fail(err, SDUI_GZIP, 0, "empty input: not a gzip file");
    if (!data)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "data is NULL");

    hinted = sdui__gz_size_hint(in, len, &total, &hint_members);
    if (hinted) {
        /* Written by sdui_gzip_encode_members: the size is known. */
        st = sdui__gz_hint_check(len, total, hint_members, max_out, err);
        if (st != SDUI_OK)
            return st;
        cap = total;
    } else {
        /* First guess: the last member's ISIZE, but never more than
         * deflate can produce from this input (1032:1), so a tiny file
         * that claims a huge size does not get a huge buffer before
         * inflating a byte. */
        cap = len >= 18 ? le32(in + len - 4) : 0;
        if (cap / MAX_DEFLATE_RATIO > len)
            cap = len * MAX_DEFLATE_RATIO;
        if (cap < 4096)
            cap = 4096;
        if (cap > max_out)
            cap = max_out;
    }
    buf = sdui_malloc(cap + 1);
    if (!buf)
        return sdui__oom(err);
    st = sdui__gz_stream_open(&s, in, len, err);
    if (st != SDUI_OK)
        goto fail;

    while (hinted) {
        k = sdui__gz_next_hinted(&s, buf, total, hint_members, &used, &st,
                                 err);
        if (k == SDUI_GZ_FAIL)
            goto fail;
        if (k == SDUI_GZ_END)
            break;
    }
    while (!hinted) {
        size_t out_n = 0;
        k = sdui__gz_next(&s, buf + used, cap - used, &out_n, &st, err);
        if (k == SDUI_GZ_END)
            break;
        if (k == SDUI_GZ_FAIL)
            goto fail;
        if (k == SDUI_GZ_MEMBER) {
            used += out_n;
            continue;
        }
        assert(k == SDUI_GZ_ROOM);
        if (cap >= max_out) {
            st = sdui__fail(err, SDUI_LIMIT, (long long)s.pos,
                            "gzip member %u inflates past the limit of "
                            "%zu bytes",
                            s.n + 1, max_out);
            goto fail;
        }
        {
            /* A later member of a multi-member file: grow once to what the
             * rest of the input should inflate to at the ratio seen so far
             * (rather than doubling and inflating the member again at each
             * step). */
            size_t want = cap + 1, pos = s.pos;
            if (used == 0 && len <= max_out / 4 && len * 4 > want)
                /* The first member of several (a single member's ISIZE is
                 * exact): JSON packs inflate about 4-10:1. */
                want = len * 4;
            if (used > 0 && pos > 0) {
                double ratio = (double)used / (double)pos;
                double est = (double)used + ratio * 1.125 *
                             (double)(len - pos) + 4096.0;
                if (est > (double)max_out)
                    est = (double)max_out;
                if ((size_t)est > want)
                    want = (size_t)est;
            }
            st = grow(&buf, &cap, want, max_out, err);
        }
        if (st != SDUI_OK)
            goto fail;
    }

    sdui__gz_stream_close(&s);
    if (cap - used > 4096) {
        /* Return unused room, e.g. after a multi-member guess. */
        char *nb = sdui_realloc(buf, used + 1);
        if (nb)
            buf = nb;
    }
    buf[used] = '\0';
    *out = buf;
    *out_len = used;
    if (members)
        *members = s.n;
    return SDUI_OK;

fail:
    sdui__gz_stream_close(&s);
    sdui_free(buf);
    return st;
}

/*
 * Compresses data at level with libdeflate into a new buffer: one gzip
 * member (gzip != 0) or raw deflate.  The one place a compressor is made.
 */
static sdui_status compress(const void *data, size_t len, int level,
                            int gzip, unsigned char **out, size_t *out_len,
                            sdui_error *err)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    unsigned char *buf;
    size_t bound, n;
    *out = NULL;
    *out_len = 0;
    if (!c)
        return sdui__oom(err);
    bound = gzip ? libdeflate_gzip_compress_bound(c, len)
                 : libdeflate_deflate_compress_bound(c, len);
    buf = sdui_malloc(bound ? bound : 1);
    if (!buf) {
        libdeflate_free_compressor(c);
        return sdui__oom(err);
    }
    n = gzip ? libdeflate_gzip_compress(c, data ? data : "", len, buf, bound)
             : libdeflate_deflate_compress(c, data ? data : "", len, buf,
                                           bound);
    libdeflate_free_compressor(c);
    if (n == 0) {
        sdui_free(buf);
        return sdui__fail(err, SDUI_GZIP, -1, "compression failed");
    }
    *out = buf;
    *out_len = n;
    return SDUI_OK;
}

/* Compresses one gzip member with libdeflate (gzip.h). */
sdui_status sdui_gzip_encode(const void *data, size_t len, int level,
                             unsigned char **out, size_t *out_len,
                             sdui_error *err)
{
    sdui_error_clear(err);
    if (!out || !out_len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out or out_len is NULL");
    *out = NULL;
    *out_len = 0;
    if (level < 0)
        level = 9;
    if (level > 12)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "compression level %d is out of range 0-12", level);
    if (!data && len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "data is NULL");
    return compress(data, len, level, 1, out, out_len, err);
}

/* Where a member that starts at from and aims at aim bytes ends: just
 * after the first newline at or past the aim, else at the aim. */
static size_t member_cut(const char *data, size_t len, size_t from,
                         size_t aim)
{
    const char *nl;
    size_t at = len - from <= aim ? len : from + aim;
    if (at == len)
        return len;
    nl = memchr(data + at, '\n', len - at);
    return nl ? (size_t)(nl - data) + 1 : at;
}

/* The aim of the member after one that aimed at aim: half as much again,
 * up to max.  A scan is about 1.5 times slower than an inflate here, so
 * members growing by that factor keep the scan of one about as long as
 * the inflate of the next: a reader that scans while it inflates starts
 * early and seldom waits (measured against doubling: 0.15 ms less on a
 * 600 KB pack, for 1.1 KB more of it). */
static size_t next_aim(size_t aim, size_t max)
{
    return aim >= max / 3 * 2 ? max : aim + aim / 2;
}

/* Compresses as several members with a size hint (gzip.h). */
sdui_status sdui_gzip_encode_members(const void *data, size_t len, int level,
                                     size_t member_bytes, unsigned char **out,
                                     size_t *out_len, sdui_error *err)
{
    const char *text = data;
    unsigned char *buf = NULL, *m = NULL, sz[4 + SZ_LEN];
    size_t used = 0, cap = 0, from, to, m_len = 0, cuts = 0, aim;
    unsigned count = 0;
    sdui_status st;
    int i;

    sdui_error_clear(err);
    if (member_bytes == 0)
        member_bytes = (size_t)2 << 20;
    if (level < 0)
        level = 9;
    if (len <= member_bytes || level > 12)
        return sdui_gzip_encode(data, len, level, out, out_len, err);
    if (!out || !out_len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out or out_len is NULL");
    *out = NULL;
    *out_len = 0;
    if (!data)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "data is NULL");
    /* Count the members first: the first header says how many. */
    aim = member_bytes / 4 + 1;
    for (from = 0; from < len; from = to, cuts++) {
        to = member_cut(text, len, from, aim);
        aim = next_aim(aim, member_bytes);
    }
    if (cuts > UINT32_MAX)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "%zu members is too many for the size field",
                          cuts);
    sz[0] = 'S';
    sz[1] = 'Z';
    sz[2] = SZ_LEN;
    sz[3] = 0;
    sz[4] = 1;
    for (i = 0; i < 8; i++)
        sz[5 + i] = (unsigned char)((uint64_t)len >> (8 * i));
    for (i = 0; i < 4; i++)
        sz[13 + i] = (unsigned char)(cuts >> (8 * i));

    aim = member_bytes / 4 + 1;
    for (from = 0; from < len; from = to, count++) {
        to = member_cut(text, len, from, aim);
        aim = next_aim(aim, member_bytes);
        if (to - from > UINT32_MAX) {
            st = sdui__fail(err, SDUI_ARGUMENT, -1,
                            "member_bytes %zu makes members over 4 GiB",
                            member_bytes);
            goto fail;
        }
        st = sdui__gzip_write_member(text + from, to - from, level,
                                     count ? NULL : sz,
                                     count ? 0 : sizeof sz, &m, &m_len, err);
        if (st != SDUI_OK)
            goto fail;
        if (cap - used < m_len) {
            size_t c = cap ? cap : m_len * (cuts + 1);
            unsigned char *nb;
            while (c - used < m_len)
                c *= 2;
            nb = sdui_realloc(buf, c);
            if (!nb) {
                st = sdui__oom(err);
                goto fail;
            }
            buf = nb;
            cap = c;
        }
        memcpy(buf + used, m, m_len);
        used += m_len;
        sdui_free(m);
        m = NULL;
    }
    assert(count == cuts);
    *out = buf;
    *out_len = used;
    return SDUI_OK;

fail:
    sdui_free(m);
    sdui_free(buf);
    return st;
}

/* Inflates one member into a place the caller chose (gzip_member.h). */
sdui_status sdui__gzip_inflate_member(const unsigned char *body, size_t len,
                                      size_t at, unsigned member, char *out,
                                      size_t out_len, sdui_error *err)
{
    struct libdeflate_decompressor *d;
    enum libdeflate_result r;
    size_t in_n = 0, out_n = 0, data = len - SDUI_GZ_TRAILER;
    assert(len >= SDUI_GZ_TRAILER);
    d = libdeflate_alloc_decompressor();
    if (!d)
        return sdui__oom(err);
    r = libdeflate_deflate_decompress_ex(d, body, data, out, out_len, &in_n,
                                         &out_n);
    libdeflate_free_decompressor(d);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
        return gz_fail(err, at,
                       "member %u inflates past its ISIZE of %zu bytes",
                       member + 1, out_len);
    if (r != LIBDEFLATE_SUCCESS)
        return gz_fail(err, at, "member %u: corrupt or truncated deflate data",
                       member + 1);
    if (in_n != data)
        return gz_fail(err, at + in_n,
                       "member %u: its deflate data ends %zu bytes before "
                       "the member's recorded end",
                       member + 1, data - in_n);
    if (out_n != out_len)
        return gz_fail(err, at + len - 4,
                       "member %u: ISIZE mismatch (inflated %zu bytes, "
                       "ISIZE says %zu)",
                       member + 1, out_n, out_len);
    if (le32(body + data) != sdui_crc32(0, out, out_n))
        return gz_fail(err, at + data, "member %u: CRC-32 mismatch",
                       member + 1);
    return SDUI_OK;
}

/* Raw deflate into a new buffer (gzip_member.h). */
sdui_status sdui__deflate_raw(const void *data, size_t len, int level,
                              unsigned char **out, size_t *out_len,
                              sdui_error *err)
{
    return compress(data, len, level, 0, out, out_len, err);
}

/* Raw inflate of a whole stream to a known size (gzip_member.h). */
int sdui__inflate_raw(const void *in, size_t len, void *out, size_t out_len)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t in_n = 0, out_n = 0;
    enum libdeflate_result r;
    if (!d)
        return -1;
    r = libdeflate_deflate_decompress_ex(d, in, len, out, out_len, &in_n,
                                         &out_n);
    libdeflate_free_decompressor(d);
    return r == LIBDEFLATE_SUCCESS && in_n == len && out_n == out_len ? 0
                                                                      : -1;
}

/* Writes one gzip member with a caller's FEXTRA field (gzip_member.h). */
sdui_status sdui__gzip_write_member(const void *data, size_t len, int level,
                                    const unsigned char *extra,
                                    size_t extra_len, unsigned char **out,
                                    size_t *out_len, sdui_error *err)
{
    unsigned char *body = NULL, *buf;
    size_t body_len = 0, head = 10 + (extra_len ? 2 + extra_len : 0), n;
    uint32_t crc;
    sdui_status st;
    *out = NULL;
    *out_len = 0;
    if (extra_len > 65535 || len > UINT32_MAX)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "gzip member too large (%zu bytes, FEXTRA %zu)",
                          len, extra_len);
    st = sdui__deflate_raw(data, len, level, &body, &body_len, err);
    if (st != SDUI_OK)
        return st;
    n = head + body_len + SDUI_GZ_TRAILER;
    buf = sdui_malloc(n);
    if (!buf) {
        sdui_free(body);
        return sdui__oom(err);
    }
    buf[0] = 0x1f;
    buf[1] = 0x8b;
    buf[2] = 8;                          /* deflate */
    buf[3] = extra_len ? GZ_FEXTRA : 0;
    memset(buf + 4, 0, 4);               /* no MTIME: reproducible */
    buf[8] = level >= 10 ? 2 : 0;        /* XFL: slowest, densest */
    buf[9] = 255;                        /* OS: unknown */
    if (extra_len) {
        buf[10] = (unsigned char)(extra_len & 0xff);
        buf[11] = (unsigned char)(extra_len >> 8);
        memcpy(buf + 12, extra, extra_len);
    }
    memcpy(buf + head, body, body_len);
    sdui_free(body);
    crc = sdui_crc32(0, data ? data : "", len);
    for (int i = 0; i < 4; i++) {
        buf[head + body_len + i] = (unsigned char)(crc >> (8 * i));
        buf[head + body_len + 4 + i] = (unsigned char)((uint32_t)len >> (8 * i));
    }
    *out = buf;
    *out_len = n;
    return SDUI_OK;
}
