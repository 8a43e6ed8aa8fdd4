/*
 * gzip.c - bounded gzip decoding and encoding (RFC 1952) over libdeflate.
 *
 * Headers and trailers are parsed here, so every flag and every failure gets
 * its own message and offset; the deflate data itself is inflated by
 * libdeflate, which works on whole buffers.  The output buffer starts at the
 * size the last member's ISIZE announces (exact for a single-member pack, so
 * memory stays at the JSON size; never more than deflate can expand the
 * input to).  When a later member needs more, it grows once to what the
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

/* Inflates every member into one buffer (gzip.h). */
sdui_status sdui_gzip_decode(const void *data, size_t len, size_t max_out,
                             char **out, size_t *out_len, unsigned *members,
                             sdui_error *err)
{
    const unsigned char *in = data;
    struct libdeflate_decompressor *d = NULL;
    char *buf = NULL;
    size_t cap, used = 0, pos = 0;
    unsigned n = 0;
    sdui_status st = SDUI_OK;

    sdui_error_clear(err);
    if (!out || !out_len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out or out_len is NULL");
    *out = NULL;
    *out_len = 0;
    if (len == 0)
        return sdui__fail(err, SDUI_GZIP, 0, "empty input: not a gzip file");
    if (!data)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "data is NULL");

    /* First guess: the last member's ISIZE, but never more than deflate
     * can produce from this input (1032:1), so a tiny file that claims a
     * huge size does not get a huge buffer before inflating a byte. */
    cap = len >= 18 ? le32(in + len - 4) : 0;
    if (cap / MAX_DEFLATE_RATIO > len)
        cap = len * MAX_DEFLATE_RATIO;
    if (cap < 4096)
        cap = 4096;
    if (cap > max_out)
        cap = max_out;
    buf = sdui_malloc(cap + 1);
    d = libdeflate_alloc_decompressor();
    if (!buf || !d) {
        st = sdui__oom(err);
        goto fail;
    }

    while (pos < len) {
        size_t dpos = 0, in_n = 0, out_n = 0;
        enum libdeflate_result r;
        uint32_t crc;
        sdui_gz_header h;
        st = sdui__gzip_header(in, len, pos, n, &h, err);
        if (st != SDUI_OK)
            goto fail;
        dpos = h.data_pos;
        for (;;) {
            r = libdeflate_deflate_decompress_ex(d, in + dpos, len - dpos,
                                                 buf + used, cap - used,
                                                 &in_n, &out_n);
            if (r != LIBDEFLATE_INSUFFICIENT_SPACE)
                break;
            if (cap >= max_out) {
                st = sdui__fail(err, SDUI_LIMIT, (long long)pos,
                                "gzip member %u inflates past the limit of "
                                "%zu bytes",
                                n + 1, max_out);
                goto fail;
            }
            {
                /* A later member of a multi-member file: grow once to
                 * what the rest of the input should inflate to at the
                 * ratio seen so far (rather than doubling and inflating
                 * the member again at each step). */
                size_t want = cap + 1;
                if (used == 0 && len <= max_out / 4 && len * 4 > want)
                    /* The first member of several (a single member's
                     * ISIZE is exact): JSON packs inflate about 4-10:1. */
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
        if (r != LIBDEFLATE_SUCCESS) {
            st = gz_fail(err, dpos,
                         "member %u: corrupt or truncated deflate data",
                         n + 1);
            goto fail;
        }
        dpos += in_n;
        if (len - dpos < 8) {
            st = gz_fail(err, len,
                         "member %u: truncated (missing CRC-32/ISIZE "
                         "trailer, %zu bytes left)",
                         n + 1, len - dpos);
            goto fail;
        }
        crc = sdui_crc32(0, buf + used, out_n);
        if (le32(in + dpos) != crc) {
            st = gz_fail(err, dpos, "member %u: CRC-32 mismatch", n + 1);
            goto fail;
        }
        if (le32(in + dpos + 4) != (uint32_t)out_n) {
            st = gz_fail(err, dpos + 4,
                         "member %u: ISIZE mismatch (inflated %zu bytes)",
                         n + 1, out_n);
            goto fail;
        }
        used += out_n;
        pos = dpos + 8;
        n++;
    }

    libdeflate_free_decompressor(d);
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
        *members = n;
    return SDUI_OK;

fail:
    libdeflate_free_decompressor(d);
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
