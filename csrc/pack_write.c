/*
 * pack_write.c - writing a seekable pack (pack.h, sdui_pack_write_seekable).
 *
 * The plain pack's JSON is validated by the same scan a pack opens with,
 * then cut between tokens: member k runs from the end of the last token of
 * member k-1 (so it starts with the comma) to the end of its own last
 * token; member 0 starts at the document's first byte, and the last member
 * holds the last token and everything after it.  Each member aims at four times
 * the JSON of the one before, from options->member_bytes up to
 * options->max_member_bytes: a restarted deflate stream has no history to
 * copy from, so each cut costs about a kilobyte of output, and long cold
 * members keep the pack nearly as dense as one member while the first
 * screens' tokens sit in small ones.  A member also ends early when its
 * table would outgrow a gzip header.  Each member is compressed on its own
 * with its table (pack_seek.c) in its header.
 */
#include <string.h>

#include "gzip_member.h"
#include "internal.h"
#include "pack_scan.h"
#include "pack_seek.h"
#include "scan.h"

/* The raw id bytes a member's table may list: its compressed form then
 * fits the 65531 bytes of a gzip header whatever the ids are. */
#define TABLE_RAW_MAX ((size_t)48 * 1024)

/* A growing output buffer. */
typedef struct out_buf {
    unsigned char *bytes;
    size_t len, cap;
} out_buf;

/* Appends n bytes to b. */
static sdui_status append(out_buf *b, const unsigned char *p, size_t n,
                          sdui_error *err)
{
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 65536;
        unsigned char *nb;
        while (cap - b->len < n)
            cap *= 2;
        nb = sdui_realloc(b->bytes, cap);
        if (!nb)
            return sdui__oom(err);
        b->bytes = nb;
        b->cap = cap;
    }
    memcpy(b->bytes + b->len, p, n);
    b->len += n;
    return SDUI_OK;
}

/*
 * Chooses the cuts: cuts[0] = 0 < cuts[1] < ... < cuts[m] = len, each an
 * offset just after a token; *m is the member count.  cuts has room for
 * n + 1 entries (a member holds at least one token).
 */
static void choose_cuts(const sdui_scan_result *r, const sdui_seek_id *ids,
                        size_t len, size_t aim, size_t max_aim, size_t *cuts,
                        size_t *m)
{
    size_t n = r->count, k = 0, i, start = 0, raw = 0;
    cuts[k++] = 0;
    if (n >= 2) {
        for (i = 0; i + 1 < n; i++) {
            raw += ids[i].len + 2;
            if (r->entries[i].end - start >= aim || i + 2 == n ||
                (i + 2 < n && raw + ids[i + 1].len + 2 > TABLE_RAW_MAX)) {
                start = r->entries[i].end;
                cuts[k++] = start;
                raw = 0;
                aim = aim > max_aim / 4 ? max_aim : aim * 4;
            }
        }
    }
    cuts[k] = len;
    *m = k;
    assert(*m >= 1 && *m <= (n ? n : 1));
}

/* Writes a seekable pack (pack.h). */
sdui_status sdui_pack_write_seekable(const char *json, size_t len,
                                     const sdui_seekable_options *options,
                                     const sdui_limits *limits,
                                     unsigned char **out, size_t *out_len,
                                     sdui_error *err)
{
    sdui_scan_result scan;
    sdui_seek_id *ids = NULL;
    char *arena = NULL;
    size_t *cuts = NULL, m = 0, i, k, used = 0;
    size_t aim = 32 * 1024, max_aim = 4 * 1024 * 1024;
    int level = 12;
    out_buf o = {NULL, 0, 0};
    sdui_status st;

    sdui_error_clear(err);
    memset(&scan, 0, sizeof scan);
    if (!out || !out_len || (!json && len))
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "json, out or out_len is NULL");
    *out = NULL;
    *out_len = 0;
    if (options) {
        if (options->member_bytes)
            aim = options->member_bytes;
        if (options->max_member_bytes)
            max_aim = options->max_member_bytes;
        if (options->level)
            level = options->level;
    }
    if (level < 1 || level > 12)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "compression level %d is out of range 1-12", level);
    if (max_aim < aim)
        max_aim = aim;
    limits = sdui__limits_or_default(limits);
    if (len > limits->max_inflated_bytes || len > UINT32_MAX)
        return sdui__fail(err, SDUI_LIMIT, -1,
                          "pack JSON is %zu bytes, over the limit of %zu", len,
                          limits->max_inflated_bytes);
    st = sdui__scan_pack(json, len, limits, &scan, err);
    if (st != SDUI_OK)
        goto done;

    /* The ids, decoded: escaped ones into the arena (decoding never
     * lengthens). */
    for (i = 0; i < scan.count; i++)
        if (scan.entries[i].id_escaped)
            used += scan.entries[i].id_len;
    ids = sdui_malloc((scan.count ? scan.count : 1) * sizeof *ids);
    arena = sdui_malloc(used ? used : 1);
    cuts = sdui_malloc((scan.count + 2) * sizeof *cuts);
    if (!ids || !arena || !cuts) {
        st = sdui__oom(err);
        goto done;
    }
    used = 0;
    for (i = 0; i < scan.count; i++) {
        const sdui_scan_entry *e = &scan.entries[i];
        ids[i].bytes = sdui__scan_entry_id(json, e, arena + used, &ids[i].len);
        if (e->id_escaped)
            used += ids[i].len;
    }
    choose_cuts(&scan, ids, len, aim, max_aim, cuts, &m);

    for (k = 0, i = 0; k < m; k++) {
        size_t first = i;
        unsigned char *extra = NULL, *member = NULL;
        size_t extra_len = 0, member_len = 0;
        while (i < scan.count && scan.entries[i].end <= cuts[k + 1])
            i++;
        st = sdui__seek_encode(ids + first, i - first, k == 0, 0,
                               (uint32_t)len, (uint32_t)m,
                               (uint32_t)scan.count, level, &extra,
                               &extra_len, err);
        if (st == SDUI_OK)
            st = sdui__gzip_write_member(json + cuts[k], cuts[k + 1] - cuts[k],
                                         level, extra, extra_len, &member,
                                         &member_len, err);
        sdui_free(extra);
        if (st != SDUI_OK)
            goto done;
        /* The member's own size, now known, at the table's size field:
         * after the header (10), XLEN (2), the subfield's head (4),
         * version and flags (2). */
        if (member_len > UINT32_MAX) {
            sdui_free(member);
            st = sdui__fail(err, SDUI_LIMIT, -1, "a member is too large");
            goto done;
        }
        for (int b = 0; b < 4; b++)
            member[18 + b] = (unsigned char)((uint32_t)member_len >> (8 * b));
        st = append(&o, member, member_len, err);
        sdui_free(member);
        if (st != SDUI_OK)
            goto done;
    }
    assert(i == scan.count);
    *out = o.bytes;
    *out_len = o.len;
    o.bytes = NULL;

done:
    sdui_free(o.bytes);
    sdui_free(ids);
    sdui_free(arena);
    sdui_free(cuts);
    sdui__scan_result_free(&scan);
    return st;
}
