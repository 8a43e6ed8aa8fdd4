/*
 * pack_seek.c - the tables of a seekable pack: hopping from header to
 * header at open, and encoding one table for the writer.
 *
 * Why a table per header.  A first paint needs a few dozen tokens out of
 * thousands.  Cutting the pack's JSON between tokens into gzip members and
 * writing in each member's header which ids it holds and how long the
 * member is lets a reader find any token's member by reading headers only:
 * the compressed size in header k says where header k+1 starts, so opening
 * touches one header per member and inflates nothing.  The file stays one
 * standard gzip stream: a reader that knows nothing of the tables inflates
 * the members one after another and gets the whole document.
 *
 * The subfield 'S' 'K' of a member's FEXTRA field holds, little-endian:
 *
 *   u8  version     1
 *   u8  flags       bit 0: the first member (the totals follow)
 *   u32 size        the whole member in bytes: header, data and trailer
 *   u32 total       (first only) the inflated size of the document
 *   u32 members     (first only) how many members the file has
 *   u32 total_ids   (first only) how many ids the tables list in all
 *   u32 nids        how many ids this member's JSON holds
 *   u32 block_len   the inflated size of the id block
 *   ... the id block, raw deflate
 *
 * The id block lists the ids in byte order, each as a varint count of
 * bytes shared with the previous id, a varint count of bytes that follow,
 * and those bytes: sorted ids share long prefixes, and deflate then takes
 * the block to two or three bytes an id.  The table is what a member
 * claims; the member's JSON is checked against it when it is inflated
 * (pack.c).  Here every claim that can be checked without inflating is:
 * sizes land on headers and on the end of the file, counts add up, ids
 * are non-empty, strictly increasing within a table and under the limits.
 * Other subfields of FEXTRA are ignored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gzip_member.h"
#include "internal.h"
#include "pack_seek.h"

/* Fixed bytes of a table: version, flags, size, nids, block_len. */
#define SEEK_FIXED 14
/* The first member's totals. */
#define SEEK_TOTALS 12
/* A subfield's own header: SI1, SI2, LEN. */
#define SUBFIELD_HEAD 4

/* A little-endian 32-bit field at p. */
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Stores v little-endian at p. */
static void wr32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* Reads a varint (7 bits a byte, low first, at most 4 bytes) at
 * b[*i, n); -1 when it is malformed or runs past n. */
static long get_varint(const unsigned char *b, size_t n, size_t *i)
{
    unsigned long v = 0;
    unsigned shift;
    for (shift = 0; shift < 28; shift += 7) {
        unsigned c;
        if (*i >= n)
            return -1;
        c = b[(*i)++];
        v |= (unsigned long)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return (long)v;
    }
    return -1;
}

/* Appends a varint of v (< 2^28) to b at *i. */
static void put_varint(unsigned char *b, size_t *i, size_t v)
{
    assert(v < ((size_t)1 << 28));
    while (v >= 0x80) {
        b[(*i)++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    b[(*i)++] = (unsigned char)v;
}

/* Reads bytes of a seekable pack from memory or its file (pack_seek.h). */
sdui_status sdui__seek_bytes(const sdui_seek_src *src, size_t off, size_t n,
                             sdui_seek_buf *buf, const unsigned char **out,
                             sdui_error *err)
{
    size_t got = 0;
    assert(off <= src->len && n <= src->len - off);
    if (src->mem) {
        *out = src->mem + off;
        return SDUI_OK;
    }
    if (buf->cap < n) {
        unsigned char *nb = sdui_realloc(buf->bytes, n ? n : 1);
        if (!nb)
            return sdui__oom(err);
        buf->bytes = nb;
        buf->cap = n;
    }
    while (got < n) {
        ssize_t r = pread(src->fd, buf->bytes + got, n - got,
                          (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            return sdui__fail_code(err, SDUI_IO, e, (long long)(off + got),
                                   "cannot read \"%s\" at byte %zu: %s",
                                   src->path ? src->path : "pack",
                                   off + got,
                                   r < 0 ? strerror(e)
                                         : "the file is shorter than when it "
                                           "was opened");
        }
        got += (size_t)r;
    }
    *out = buf->bytes;
    return SDUI_OK;
}

/* Finds a member's table in its header: 1 found, 0 none, -1 malformed
 * FEXTRA. */
static int find_table(const sdui_gz_header *h, const unsigned char **t,
                      size_t *tlen)
{
    if (!h->extra)
        return 0;
    return sdui__gzip_subfield(h->extra, h->extra_len, SDUI_SEEK_SI1,
                               SDUI_SEEK_SI2, t, tlen);
}

/* A seekable pack starts with a table that has the totals (pack_seek.h). */
int sdui__seek_detect(const unsigned char *in, size_t len)
{
    sdui_gz_header h;
    const unsigned char *t;
    size_t tlen;
    if (!in || len < 18 || sdui__gzip_header(in, len, 0, 0, &h, NULL) != SDUI_OK)
        return 0;
    if (find_table(&h, &t, &tlen) != 1)
        return 0;
    return tlen >= SEEK_FIXED + SEEK_TOTALS && (t[1] & 1);
}

/* Fails with a gzip error about member k's table at offset at. */
#define table_fail(err, at, k, ...) \
    sdui__fail((err), SDUI_GZIP, (long long)(at), __VA_ARGS__)

/*
 * Walks member k's id block (block[0, blen), inflated) once: with d NULL
 * it only checks the ids and adds their lengths to *total; with d it also
 * writes them there and fills ids.  at is the table's offset, for
 * messages.
 */
static sdui_status walk_ids(const unsigned char *block, size_t blen,
                            size_t nids, unsigned k, size_t at,
                            const sdui_limits *limits, char *d,
                            sdui_seek_id *ids, size_t *total,
                            sdui_error *err)
{
    size_t i = 0, n, prev_len = 0, used = 0, prev_at = 0;
    for (n = 0; n < nids; n++) {
        long shared = get_varint(block, blen, &i), rest;
        size_t idlen;
        if (shared < 0 || (rest = get_varint(block, blen, &i)) < 0)
            return table_fail(err, at, k,
                              "member %u: seekable table: id %zu is cut off",
                              k + 1, n + 1);
        if ((size_t)shared > prev_len || (size_t)rest > blen - i)
            return table_fail(err, at, k,
                              "member %u: seekable table: id %zu runs past "
                              "its block",
                              k + 1, n + 1);
        idlen = (size_t)shared + (size_t)rest;
        if (idlen == 0 || idlen > limits->max_token_bytes)
            return table_fail(err, at, k,
                              "member %u: seekable table: id %zu has %zu "
                              "bytes",
                              k + 1, n + 1, idlen);
        if (d) {
            char *id = d + used;
            if (shared)
                memcpy(id, d + prev_at, (size_t)shared);
            memcpy(id + shared, block + i, (size_t)rest);
            if (n > 0) {
                size_t m = prev_len < idlen ? prev_len : idlen;
                int c = memcmp(d + prev_at, id, m);
                if (c > 0 || (c == 0 && prev_len >= idlen))
                    return table_fail(err, at, k,
                                      "member %u: seekable table: ids are "
                                      "not in strictly increasing order at "
                                      "id %zu",
                                      k + 1, n + 1);
            }
            ids[n].bytes = id;
            ids[n].len = idlen;
        } else if (n > 0 && (size_t)shared == prev_len && rest == 0)
            return table_fail(err, at, k,
                              "member %u: seekable table: id %zu repeats "
                              "the one before",
                              k + 1, n + 1);
        prev_at = used;
        prev_len = idlen;
        used += idlen;
        i += (size_t)rest;
    }
    if (i != blen)
        return table_fail(err, at, k,
                          "member %u: seekable table: %zu bytes after the "
                          "last id",
                          k + 1, blen - i);
    if (total)
        *total = used;
    return SDUI_OK;
}

/* Decodes one member's ids (pack_seek.h). */
sdui_status sdui__seek_ids(const sdui_seek_src *src, const sdui_seek_index *x,
                           unsigned k, const sdui_limits *limits,
                           sdui_seek_id *ids, char **arena, sdui_error *err)
{
    const sdui_seek_member *m = &x->members[k];
    unsigned char *block;
    const unsigned char *z;
    sdui_seek_buf zb = {NULL, 0};
    size_t total = 0;
    sdui_status st;
    *arena = NULL;
    limits = sdui__limits_or_default(limits);
    if (m->nids == 0)
        return SDUI_OK;
    st = sdui__seek_bytes(src, m->table_at, m->table_len, &zb, &z, err);
    if (st != SDUI_OK)
        return st;
    block = sdui_malloc(m->block_len);
    if (!block) {
        sdui_free(zb.bytes);
        return sdui__oom(err);
    }
    if (sdui__inflate_raw(z, m->table_len, block, m->block_len) != 0) {
        sdui_free(zb.bytes);
        sdui_free(block);
        return table_fail(err, m->table_at, k,
                          "member %u: seekable table: the id block does not "
                          "inflate to its %zu bytes",
                          k + 1, m->block_len);
    }
    sdui_free(zb.bytes);
    st = walk_ids(block, m->block_len, m->nids, k, m->table_at, limits, NULL,
                  NULL, &total, err);
    if (st == SDUI_OK) {
        *arena = sdui_malloc(total ? total : 1);
        if (!*arena)
            st = sdui__oom(err);
    }
    if (st == SDUI_OK)
        st = walk_ids(block, m->block_len, m->nids, k, m->table_at, limits,
                      *arena, ids, NULL, err);
    sdui_free(block);
    if (st != SDUI_OK) {
        sdui_free(*arena);
        *arena = NULL;
    }
    return st;
}

/* Reads every header (pack_seek.h). */
sdui_status sdui__seek_read(const sdui_seek_src *src,
                            const sdui_limits *limits, sdui_seek_index *x,
                            sdui_error *err)
{
    size_t pos = 0, json = 0, ids = 0, len = src->len;
    uint32_t total = 0, nmembers = 0, total_ids = 0;
    unsigned k;
    sdui_status st = SDUI_OK;
    sdui_seek_buf hb = {NULL, 0}, tb = {NULL, 0};

    memset(x, 0, sizeof *x);
    limits = sdui__limits_or_default(limits);
    for (k = 0;; k++) {
        sdui_gz_header h;
        const unsigned char *t;
        size_t tlen, at, fixed, nids, blen, size;
        sdui_seek_member *m;
        const unsigned char *in;
        size_t inlen;
        int found;
        if (k > 0 && k == nmembers) {
            if (pos != len) {
                st = table_fail(err, pos, k,
                                "seekable pack: %zu bytes after the %u "
                                "members its first table counts",
                                len - pos, nmembers);
                goto fail;
            }
            break;
        }
        if (pos >= len) {
            st = table_fail(err, pos, k,
                            "seekable pack ends after %u members; its first "
                            "table counts %u",
                            k, nmembers);
            goto fail;
        }
        {
            /* The header: its fixed part and XLEN, then the extra field
             * and a little room for names (a writer of seekable packs
             * writes none). */
            const unsigned char *p;
            size_t want = len - pos < 4096 ? len - pos : 4096;
            st = sdui__seek_bytes(src, pos, want, &hb, &p, err);
            if (st != SDUI_OK)
                goto fail;
            if (want >= SDUI_GZ_HEADER_FIXED && (p[3] & 4)) {
                size_t need = SDUI_GZ_HEADER_FIXED + 1024 +
                              ((size_t)p[10] | (size_t)p[11] << 8);
                if (need > len - pos)
                    need = len - pos;
                if (need > want) {
                    want = need;
                    st = sdui__seek_bytes(src, pos, want, &hb, &p, err);
                    if (st != SDUI_OK)
                        goto fail;
                }
            }
            in = p;
            inlen = want;
        }
        st = sdui__gzip_header(in, inlen, 0, k, &h, err);
        if (st == SDUI_OK)
            h.data_pos += pos;
        else if (err && err->offset >= 0)
            err->offset += (long long)pos;
        if (st != SDUI_OK) {
            if (k > 0)
                /* Where the previous size pointed is not a header. */
                sdui__fail(err, SDUI_GZIP, (long long)pos,
                           "member %u: no gzip header where member %u's "
                           "seekable table says it starts (the table's size "
                           "points into another member)",
                           k + 1, k);
            goto fail;
        }
        found = find_table(&h, &t, &tlen);
        if (found != 1) {
            st = table_fail(err, pos, k,
                            found < 0 ? "member %u: malformed FEXTRA field"
                                      : "member %u: no seekable table in its "
                                        "header",
                            k + 1);
            goto fail;
        }
        at = pos + (size_t)(t - in);
        fixed = SEEK_FIXED + ((k == 0) ? SEEK_TOTALS : 0);
        if (tlen < fixed || t[0] != 1 || (t[1] & 1) != (k == 0) ||
            (t[1] & ~1u)) {
            st = table_fail(err, at, k,
                            tlen >= 2 && t[0] != 1
                                ? "member %u: seekable table version %u is "
                                  "not supported"
                                : "member %u: malformed seekable table",
                            k + 1, tlen >= 1 ? (unsigned)t[0] : 0u);
            goto fail;
        }
        size = rd32(t + 2);
        if (k == 0) {
            total = rd32(t + 6);
            nmembers = rd32(t + 10);
            total_ids = rd32(t + 14);
            if (nmembers == 0 || nmembers > len / 20 + 1) {
                st = table_fail(err, at, k,
                                "seekable pack: a member count of %u cannot "
                                "fit in %zu bytes",
                                nmembers, len);
                goto fail;
            }
            if (total > limits->max_inflated_bytes) {
                st = sdui__fail(err, SDUI_LIMIT, (long long)at,
                                "seekable pack inflates to %u bytes, over the "
                                "limit of %zu",
                                total, limits->max_inflated_bytes);
                goto fail;
            }
            if (total_ids > limits->max_tokens) {
                st = sdui__fail(err, SDUI_LIMIT, (long long)at,
                                "pack holds more than %zu tokens",
                                limits->max_tokens);
                goto fail;
            }
            x->members = sdui_malloc(nmembers * sizeof *x->members);
            if (!x->members) {
                st = sdui__oom(err);
                goto fail;
            }
            x->total = total;
        }
        nids = rd32(t + fixed - 8);
        blen = rd32(t + fixed - 4);
        if (size < h.data_pos - pos + SDUI_GZ_TRAILER + 2 ||
            size > len - pos) {
            st = table_fail(err, at, k,
                            "member %u: its seekable table's size of %zu "
                            "bytes %s",
                            k + 1, size,
                            size > len - pos ? "points past the end of the file"
                                             : "is shorter than its header "
                                               "and trailer");
            goto fail;
        }
        m = &x->members[k];
        m->start = pos;
        m->end = pos + size;
        m->data_pos = h.data_pos;
        m->json_start = json;
        {
            const unsigned char *isize;
            st = sdui__seek_bytes(src, m->end - 4, 4, &tb, &isize, err);
            if (st != SDUI_OK)
                goto fail;
            m->json_len = rd32(isize);
        }
        m->first_id = ids;
        m->nids = nids;
        m->table_at = at + fixed;
        m->table_len = tlen - fixed;
        m->block_len = blen;
        /* Deflate cannot expand the data past 1032:1. */
        if (m->json_len / 1032 > size || m->json_len > total - json) {
            st = table_fail(err, m->end - 4, k,
                            "member %u: its ISIZE of %zu bytes does not fit "
                            "the total of %u the first table gives",
                            k + 1, m->json_len, total);
            goto fail;
        }
        json += m->json_len;
        if (nids > total_ids - ids) {
            st = table_fail(err, at, k,
                            "member %u: its seekable table lists more ids "
                            "than the first table counts (%u)",
                            k + 1, total_ids);
            goto fail;
        }
        ids += nids;
        /* An id takes at least two bytes in the block, and the block
         * comes from at most 64 KiB of header (deflate: 1032:1). */
        if (blen < 2 * nids || blen > (size_t)66000 * 1032 ||
            (nids == 0) != (blen == 0) || (nids == 0 && tlen != fixed)) {
            st = table_fail(err, at, k,
                            "member %u: seekable table: an id block of %zu "
                            "bytes for %zu ids",
                            k + 1, blen, nids);
            goto fail;
        }
        x->nmembers = k + 1;
        pos = m->end;
    }
    if (json != total || ids != total_ids) {
        st = table_fail(err, 0, 0,
                        json != total
                            ? "seekable pack: its members inflate to %zu "
                              "bytes, the first table says %u"
                            : "seekable pack: its tables list %zu ids, the "
                              "first table says %u",
                        json != total ? json : ids,
                        json != total ? total : total_ids);
        goto fail;
    }
    x->nids = ids;
    sdui_free(hb.bytes);
    sdui_free(tb.bytes);
    return SDUI_OK;

fail:
    sdui_free(hb.bytes);
    sdui_free(tb.bytes);
    sdui__seek_index_free(x);
    return st;
}

/* Releases an index (pack_seek.h). */
void sdui__seek_index_free(sdui_seek_index *x)
{
    if (!x)
        return;
    sdui_free(x->members);
    memset(x, 0, sizeof *x);
}

/* Orders ids by their bytes, for qsort. */
static int id_order(const void *a, const void *b)
{
    const sdui_seek_id *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->bytes, y->bytes, m);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* Encodes a member's table (pack_seek.h). */
sdui_status sdui__seek_encode(const sdui_seek_id *ids, size_t n, int first,
                              uint32_t member_size, uint32_t total,
                              uint32_t members, uint32_t total_ids, int level,
                              unsigned char **out, size_t *out_len,
                              sdui_error *err)
{
    sdui_seek_id *sorted = NULL;
    unsigned char *block = NULL, *z = NULL, *buf = NULL, *t;
    size_t blen = 0, zlen = 0, cap = 0, i, fixed, tlen;
    sdui_status st = SDUI_OK;

    *out = NULL;
    *out_len = 0;
    if (n) {
        sorted = sdui_malloc(n * sizeof *sorted);
        if (!sorted)
            return sdui__oom(err);
        memcpy(sorted, ids, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, id_order);
        for (i = 0; i < n; i++)
            cap += 8 + sorted[i].len;
        block = sdui_malloc(cap);
        if (!block) {
            st = sdui__oom(err);
            goto done;
        }
        for (i = 0; i < n; i++) {
            size_t shared = 0;
            if (i) {
                const sdui_seek_id *p = &sorted[i - 1];
                while (shared < p->len && shared < sorted[i].len &&
                       p->bytes[shared] == sorted[i].bytes[shared])
                    shared++;
                if (shared == sorted[i].len && shared == p->len) {
                    st = sdui__fail(err, SDUI_SCHEMA, -1,
                                    "duplicate token id \"%.*s\"",
                                    (int)(p->len > 64 ? 64 : p->len),
                                    p->bytes);
                    goto done;
                }
            }
            if (sorted[i].len >= ((size_t)1 << 28)) {
                st = sdui__fail(err, SDUI_LIMIT, -1, "token id too long");
                goto done;
            }
            put_varint(block, &blen, shared);
            put_varint(block, &blen, sorted[i].len - shared);
            memcpy(block + blen, sorted[i].bytes + shared,
                   sorted[i].len - shared);
            blen += sorted[i].len - shared;
        }
        st = sdui__deflate_raw(block, blen, level, &z, &zlen, err);
        if (st != SDUI_OK)
            goto done;
    }
    fixed = SEEK_FIXED + (first ? SEEK_TOTALS : 0);
    tlen = fixed + zlen;
    if (tlen > 65535 - SUBFIELD_HEAD) {
        st = sdui__fail(err, SDUI_LIMIT, -1,
                        "a member's seekable table of %zu ids takes %zu "
                        "bytes, over the 65531 a gzip header holds",
                        n, tlen);
        goto done;
    }
    buf = sdui_malloc(SUBFIELD_HEAD + tlen);
    if (!buf) {
        st = sdui__oom(err);
        goto done;
    }
    buf[0] = SDUI_SEEK_SI1;
    buf[1] = SDUI_SEEK_SI2;
    buf[2] = (unsigned char)(tlen & 0xff);
    buf[3] = (unsigned char)(tlen >> 8);
    t = buf + SUBFIELD_HEAD;
    t[0] = 1;
    t[1] = first ? 1 : 0;
    wr32(t + 2, member_size);
    if (first) {
        wr32(t + 6, total);
        wr32(t + 10, members);
        wr32(t + 14, total_ids);
    }
    wr32(t + fixed - 8, (uint32_t)n);
    wr32(t + fixed - 4, (uint32_t)blen);
    if (zlen)
        memcpy(t + fixed, z, zlen);
    *out = buf;
    *out_len = SUBFIELD_HEAD + tlen;
done:
    sdui_free(sorted);
    sdui_free(block);
    sdui_free(z);
    return st;
}
