/*
 * pack.c - opening a Core-Token Pack and finding its tokens.
 *
 * Open = bounded inflate (gzip.c) + one validating scan (pack_scan.c, on
 * the generic scanner of json.c) that lists each token's byte range and
 * id and each root member's range + a hash index over the ids.  Tokens are
 * parsed only when asked for.
 *
 * The index is open addressing with linear probing over a power-of-two table
 * at most half full, under the keyed hash of hash.c (ids come from outside:
 * with a public hash, crafted ids could pile into one run of cells).  Each table cell packs the upper 32 bits of the id's
 * hash with the slot number + 1 (0 marks an empty cell), so most probes that
 * do not match are rejected without touching the id bytes.  The table is
 * built once at open and never changes, so lookups need no lock.
 *
 * Each slot caches its parsed token in an atomic pointer: the first caller
 * to parse publishes it with a compare-and-swap; a caller that loses the race
 * drops its own copy and takes the winner's, so every caller sees one token.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffer.h"
#include "internal.h"
#include "pack_scan.h"
#include "scan.h"
#include "token_make.h"

typedef struct pack_slot {
    const char *id; /* into the JSON, or into id_arena when it had escapes */
    size_t id_len;
    size_t start, end;
    uint64_t hash;
    _Atomic(sdui_token *) token;
} pack_slot;

struct sdui_pack {
    /* The inflated JSON, shared with the tokens that borrow from it. */
    sdui_buffer *data;
    const char *json; /* its bytes, for short */
    size_t json_len;
    sdui_limits limits;
    sdui_pack_info info;
    pack_slot *slots;
    uint64_t *table;
    size_t mask;
    char *id_arena;
    sdui_scan_member *members; /* the root's members, in document order */
    size_t nmembers;
};

/* Finds the slot of id, or NULL. */
static pack_slot *find(const sdui_pack *pack, const char *id, size_t len,
                       uint64_t h)
{
    size_t i;
    uint64_t tag = h >> 32;
    if (!pack->table)
        return NULL;
    for (i = (size_t)h & pack->mask;; i = (i + 1) & pack->mask) {
        uint64_t cell = pack->table[i];
        pack_slot *s;
        if (cell == 0)
            return NULL;
        if ((cell >> 32) != tag)
            continue;
        s = &pack->slots[(uint32_t)cell - 1];
        if (s->id_len == len && memcmp(s->id, id, len) == 0)
            return s;
    }
}

/* Builds the slots and the id index from the scan; rejects duplicate ids. */
static sdui_status build_index(sdui_pack *pack, const sdui_scan_result *r,
                               sdui_error *err)
{
    const char *json = pack->json;
    size_t n = r->count, i, cap = 16, arena_len = 0, arena_used = 0;

    if (n >= UINT32_MAX / 4)
        return sdui__fail(err, SDUI_LIMIT, -1, "too many tokens: %zu", n);
    while (cap < n * 2)
        cap *= 2;
    /* At most half full, so every probe meets an empty cell soon. */
    assert(n <= cap / 2 && (cap & (cap - 1)) == 0);
    for (i = 0; i < n; i++)
        if (r->entries[i].id_escaped)
            arena_len += r->entries[i].id_len;
    pack->slots = sdui_malloc((n ? n : 1) * sizeof *pack->slots);
    pack->table = sdui_malloc(cap * sizeof *pack->table);
    if (arena_len)
        pack->id_arena = sdui_malloc(arena_len);
    if (!pack->slots || !pack->table || (arena_len && !pack->id_arena))
        return sdui__oom(err);
    memset(pack->table, 0, cap * sizeof *pack->table);
    pack->mask = cap - 1;

    for (i = 0; i < n; i++) {
        const sdui_scan_entry *e = &r->entries[i];
        pack_slot *s = &pack->slots[i], *dup;
        size_t j;
        s->start = e->start;
        s->end = e->end;
        assert(e->start < e->end && e->end <= pack->json_len);
        assert(e->id_start + e->id_len <= e->end);
        if (e->id_escaped) {
            char *d = pack->id_arena + arena_used;
            /* Decoding never lengthens: the arena holds every raw id. */
            assert(arena_used + e->id_len <= arena_len);
            s->id_len = sdui__unescape(json + e->id_start, e->id_len, d);
            assert(s->id_len <= e->id_len);
            s->id = d;
            arena_used += s->id_len;
        } else {
            s->id = json + e->id_start;
            s->id_len = e->id_len;
        }
        atomic_init(&s->token, NULL);
        s->hash = sdui__hash(s->id, s->id_len);
        dup = find(pack, s->id, s->id_len, s->hash);
        if (dup)
            return sdui__fail_at(err, SDUI_SCHEMA, json, pack->json_len,
                                 e->start,
                                 "duplicate token id \"%.*s\" (first at "
                                 "byte %zu)",
                                 (int)(s->id_len > 64 ? 64 : s->id_len), s->id,
                                 dup->start);
        for (j = (size_t)s->hash & pack->mask; pack->table[j];
             j = (j + 1) & pack->mask)
            ; /* ends: the table is at most half full (asserted above) */
        pack->table[j] = (s->hash >> 32) << 32 | (uint64_t)(i + 1);
        pack->info.tokens = i + 1;
    }
    return SDUI_OK;
}

/* Opens from gzip bytes; shared by the file and memory entry points. */
static sdui_status open_bytes(const void *data, size_t len,
                              const sdui_limits *limits, sdui_pack **out,
                              sdui_error *err)
{
    sdui_pack *pack;
    sdui_scan_result scan;
    sdui_status st;
    char *json = NULL;
    size_t json_len = 0;
    unsigned members = 0;

    memset(&scan, 0, sizeof scan);
    limits = sdui__limits_or_default(limits);
    if (len > limits->max_compressed_bytes)
        return sdui__fail(err, SDUI_LIMIT, -1,
                          "pack is %zu bytes, over the compressed limit of %zu",
                          len, limits->max_compressed_bytes);
    st = sdui_gzip_decode(data, len, limits->max_inflated_bytes, &json,
                          &json_len, &members, err);
    if (st != SDUI_OK)
        return st;

    pack = sdui_malloc(sizeof *pack);
    if (!pack) {
        sdui_free(json);
        return sdui__oom(err);
    }
    memset(pack, 0, sizeof *pack);
    pack->limits = *limits;
    pack->data = sdui__buffer_adopt(json, json_len);
    if (!pack->data) {
        sdui_free(json);
        sdui_free(pack);
        return sdui__oom(err);
    }
    pack->json = json;
    pack->json_len = json_len;
    pack->info.compressed_bytes = len;
    pack->info.raw_bytes = json_len;
    pack->info.members = members;

    st = sdui__scan_pack(json, json_len, limits, &scan, err);
    if (st == SDUI_OK)
        st = build_index(pack, &scan, err);
    if (st == SDUI_OK) {
        /* The root's members, for sdui_pack_member: taken over. */
        pack->members = scan.members;
        pack->nmembers = scan.nmembers;
        scan.members = NULL;
    }
    sdui__scan_result_free(&scan);
    if (st != SDUI_OK) {
        sdui_pack_free(pack);
        return st;
    }
    *out = pack;
    return SDUI_OK;
}

/* Opens a pack from memory (pack.h). */
sdui_status sdui_pack_open_memory(const void *data, size_t len,
                                  const sdui_limits *limits, sdui_pack **out,
                                  sdui_error *err)
{
    sdui_error_clear(err);
    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out is NULL");
    *out = NULL;
    return open_bytes(data, len, limits, out, err);
}

/*
 * Reads all of fd into a new buffer, refusing more than limit bytes.  hint
 * is the expected size (a regular file's), 0 when unknown (a FIFO): with it
 * the buffer is sized once and one more read sees the end.  *out is
 * sdui_free'd by the caller on SDUI_OK.
 */
static sdui_status read_stream(int fd, const char *path, size_t limit,
                               size_t hint, unsigned char **out, size_t *len,
                               sdui_error *err)
{
    unsigned char *buf = NULL;
    size_t used = 0, cap = 0;
    assert(hint <= limit);
    for (;;) {
        ssize_t n;
        if (used == cap) {
            size_t c = cap ? cap * 2 : hint ? hint + 1 : 65536;
            unsigned char *nb;
            if (c > limit + 1)
                c = limit + 1;
            if (c <= used) {
                sdui_free(buf);
                return sdui__fail(err, SDUI_LIMIT, -1,
                                  "\"%s\" is over the compressed limit of "
                                  "%zu bytes",
                                  path, limit);
            }
            nb = sdui_realloc(buf, c);
            if (!nb) {
                sdui_free(buf);
                return sdui__oom(err);
            }
            buf = nb;
            cap = c;
        }
        n = read(fd, buf + used, cap - used);
        if (n == 0)
            break;
        if (n < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            sdui_free(buf);
            return sdui__fail_code(err, SDUI_IO, e, -1,
                                   "cannot read \"%s\": %s", path,
                                   strerror(e));
        }
        used += (size_t)n;
    }
    if (used > limit) {
        sdui_free(buf);
        return sdui__fail(err, SDUI_LIMIT, -1,
                          "\"%s\" is over the compressed limit of %zu bytes",
                          path, limit);
    }
    *out = buf;
    *len = used;
    return SDUI_OK;
}

/*
 * Opens a pack from a file (pack.h).  The size of a regular file is checked
 * before a byte is read; a FIFO is read with the same bound; anything else
 * (a directory, a device such as /dev/zero, a socket) is refused by name.
 */
sdui_status sdui_pack_open_file(const char *path, const sdui_limits *limits,
                                sdui_pack **out, sdui_error *err)
{
    int fd;
    struct stat sb;
    unsigned char *buf = NULL;
    size_t size = 0;
    sdui_status st;
    const sdui_limits *lim = sdui__limits_or_default(limits);

    sdui_error_clear(err);
    if (!out || !path)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "path or out is NULL");
    *out = NULL;
    /* The kind of file first, without opening it: a device is never
     * opened (opening some has effects), a FIFO is opened to wait for its
     * writer as `cat` would, and the type is checked again once open. */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode))
        return sdui__fail_code(err, SDUI_IO,
                               S_ISDIR(sb.st_mode) ? EISDIR : ENODEV, -1,
                               "cannot read \"%s\": %s", path,
                               S_ISDIR(sb.st_mode) ? strerror(EISDIR)
                                                   : "not a regular file");
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return sdui__fail_code(err, SDUI_IO, e, -1, "cannot open \"%s\": %s",
                               path, strerror(e));
    }
    if (fstat(fd, &sb) != 0 || (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode))) {
        int e = errno;
        int regular = S_ISREG(sb.st_mode) || S_ISFIFO(sb.st_mode);
        close(fd);
        return sdui__fail_code(err, SDUI_IO, regular ? e : ENODEV, -1,
                               "cannot read \"%s\": %s", path,
                               regular ? strerror(e) : "not a regular file");
    }
    if (S_ISREG(sb.st_mode)) {
        if ((unsigned long long)sb.st_size > lim->max_compressed_bytes) {
            close(fd);
            return sdui__fail(err, SDUI_LIMIT, -1,
                              "\"%s\" is %lld bytes, over the compressed "
                              "limit of %zu",
                              path, (long long)sb.st_size,
                              lim->max_compressed_bytes);
        }
    }
    /* A regular file is read the same way: it may grow or shrink meanwhile,
     * and the bound holds whatever its size said. */
    st = read_stream(fd, path, lim->max_compressed_bytes,
                     S_ISREG(sb.st_mode) ? (size_t)sb.st_size : 0, &buf,
                     &size, err);
    close(fd);
    if (st != SDUI_OK)
        return st;
    st = open_bytes(buf, size, lim, out, err);
    sdui_free(buf);
    return st;
}

/* Releases the pack and its cached tokens' slot references. */
void sdui_pack_free(sdui_pack *pack)
{
    size_t i;
    if (!pack)
        return;
    if (pack->slots)
        for (i = 0; i < pack->info.tokens; i++)
            sdui_token_release(atomic_load(&pack->slots[i].token));
    sdui_free(pack->slots);
    sdui_free(pack->table);
    sdui_free(pack->id_arena);
    sdui_free(pack->members);
    sdui__buffer_release(pack->data);
    sdui_free(pack);
}

/* Counts and sizes (pack.h); an accessor: pack and out must not be NULL. */
void sdui_pack_get_info(const sdui_pack *pack, sdui_pack_info *out)
{
    assert(pack && out);
    *out = pack->info;
}

/* Number of tokens (pack.h). */
size_t sdui_pack_count(const sdui_pack *pack)
{
    assert(pack);
    return pack->info.tokens;
}

/* Id of the i-th token in pack order (pack.h). */
const char *sdui_pack_id_at(const sdui_pack *pack, size_t i, size_t *len)
{
    assert(pack);
    if (i >= pack->info.tokens) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = pack->slots[i].id_len;
    return pack->slots[i].id;
}

/* Whether the index holds id, without parsing the token (pack.h). */
int sdui_pack_contains(const sdui_pack *pack, const char *id, size_t len)
{
    assert(pack);
    return id && find(pack, id, len, sdui__hash(id, len)) != NULL;
}

/* The whole inflated JSON (pack.h). */
const char *sdui_pack_json(const sdui_pack *pack, size_t *len)
{
    assert(pack);
    if (len)
        *len = pack->json_len;
    return pack->json;
}

/* Longest probe of the id index (internal.h): over every id, the number
 * of cells a lookup examines to reach it (1 when it sits in its home
 * cell).  For tests of the hash's spread; never on a hot path. */
size_t sdui__pack_longest_probe(const sdui_pack *pack)
{
    size_t j, longest = 0;
    assert(pack);
    if (!pack->table)
        return 0;
    for (j = 0; j <= pack->mask; j++) {
        uint64_t cell = pack->table[j];
        size_t home, probe;
        if (cell == 0)
            continue;
        home = (size_t)pack->slots[(uint32_t)cell - 1].hash & pack->mask;
        probe = ((j - home) & pack->mask) + 1;
        if (probe > longest)
            longest = probe;
    }
    return longest;
}

/* Looks up and, on first use, parses a token (pack.h). */
sdui_status sdui_pack_get(const sdui_pack *pack, const char *id, size_t len,
                          sdui_token **out, sdui_error *err)
{
    pack_slot *s;
    sdui_token *tok, *expected = NULL;
    sdui_span span;
    sdui_status st;

    sdui_error_clear(err);
    if (!pack || !out || (!id && len))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "pack, id or out is NULL");
    *out = NULL;
    s = find(pack, id ? id : "", len, sdui__hash(id ? id : "", len));
    if (!s)
        return sdui__fail(err, SDUI_NOT_FOUND, -1,
                          "no token \"%.*s\" in the pack",
                          (int)(len > 64 ? 64 : len), id ? id : "");
    tok = atomic_load_explicit(&s->token, memory_order_acquire);
    if (tok) {
        *out = sdui_token_retain(tok);
        return SDUI_OK;
    }
    span.bytes = pack->json + s->start;
    span.len = s->end - s->start;
    span.owner = pack->data;
    span.base_offset = s->start;
    span.doc = pack->json;
    span.doc_len = pack->json_len;
    st = sdui__token_make(&span, &pack->limits, &tok, err);
    if (st != SDUI_OK)
        return st;
    if (!atomic_compare_exchange_strong_explicit(&s->token, &expected, tok,
                                                 memory_order_acq_rel,
                                                 memory_order_acquire)) {
        sdui_token_release(tok);
        tok = expected;
    }
    *out = sdui_token_retain(tok);
    return SDUI_OK;
}

/* 1 if the member's key decodes to name (len bytes); -1 when memory runs
 * out decoding an escaped key. */
static int member_is(const sdui_pack *pack, const sdui_scan_member *m,
                     const char *name, size_t len)
{
    const char *key = pack->json + m->key_start;
    char *buf;
    int same;
    if (!m->key_escaped)
        return m->key_len == len && memcmp(key, name, len) == 0;
    if (len > m->key_len) /* decoding never makes a key longer */
        return 0;
    buf = sdui_malloc(m->key_len ? m->key_len : 1);
    if (!buf)
        return -1;
    same = sdui__unescape(key, m->key_len, buf) == len &&
           memcmp(buf, name, len) == 0;
    sdui_free(buf);
    return same;
}

/* The raw bytes of a root member (pack.h). */
sdui_status sdui_pack_member(const sdui_pack *pack, const char *name,
                             const char **out, size_t *len, sdui_error *err)
{
    const sdui_scan_member *found = NULL;
    size_t i, n;
    sdui_error_clear(err);
    if (!pack || !name || !out || !len)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "pack, name, out or len is NULL");
    *out = NULL;
    *len = 0;
    n = strlen(name);
    for (i = 0; i < pack->nmembers; i++) {
        const sdui_scan_member *m = &pack->members[i];
        int same = member_is(pack, m, name, n);
        assert(m->start < m->end && m->end <= pack->json_len);
        if (same < 0)
            return sdui__oom(err);
        if (!same)
            continue;
        if (found)
            return sdui__fail_at(err, SDUI_SCHEMA, pack->json, pack->json_len,
                                 m->key_start - 1,
                                 "the pack's root has \"%.*s\" twice (first "
                                 "at byte %zu)",
                                 (int)(n > 64 ? 64 : n), name,
                                 found->key_start - 1);
        found = m;
    }
    if (!found)
        return sdui__fail(err, SDUI_NOT_FOUND, -1,
                          "the pack's root has no \"%.*s\"",
                          (int)(n > 64 ? 64 : n), name);
    *out = pack->json + found->start;
    *len = found->end - found->start;
    return SDUI_OK;
}
