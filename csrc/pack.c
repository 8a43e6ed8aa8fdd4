/*
 * pack.c - opening a Core-Token Pack and finding its tokens.
 *
 * Open = bounded inflate (gzip.c) + one validating scan (pack_scan.c, on
 * the generic scanner of scan.c) that lists each token's byte range and
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
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffer.h"
#include "gzip_member.h"
#include "internal.h"
#include "pack_scan.h"
#include "pack_seek.h"
#include "scan.h"
#include "token_make.h"

typedef struct pack_slot {
    const char *id; /* into the JSON, or into id_arena when it had escapes,
                     * or (seekable) into the tables' arena             */
    size_t id_len;
    size_t start, end; /* seekable: set when its member is inflated     */
    uint64_t hash;
    unsigned member;   /* seekable: the gzip member that holds it       */
    atomic_uint dup_of; /* seekable: 1 + another member whose table also
                         * lists the id, or 0                           */
    _Atomic(sdui_token *) token;
} pack_slot;

/* A seekable pack's member: inflated once, on first use. */
typedef struct member_state {
    pthread_mutex_t lock;   /* held while the member is inflated         */
    atomic_int state;       /* MEMBER_NEW, MEMBER_READY or MEMBER_BAD    */
    sdui_error error;       /* why it is bad                             */
    atomic_int table;       /* its ids indexed: MEMBER_NEW, _READY, _BAD
                             * (set under the pack's index_lock)         */
    sdui_error table_error;
    char *arena;            /* its ids' bytes                            */
} member_state;

enum { MEMBER_NEW, MEMBER_READY, MEMBER_BAD };

struct sdui_pack {
    /* The inflated JSON, shared with the tokens that borrow from it. */
    sdui_buffer *data;
    const char *json; /* its bytes, for short */
    size_t json_len;
    sdui_limits limits;
    sdui_pack_info info;
    pack_slot *slots;
    _Atomic uint64_t *table; /* atomic: a seekable pack adds ids later */
    size_t mask;
    char *id_arena;
    sdui_scan_member *members; /* the root's members, in document order */
    size_t nmembers;
    /* A seekable pack: its gzip bytes, its tables, each member's state. */
    int seekable;
    unsigned char *gz;     /* the gzip bytes, when opened from memory    */
    int fd;                /* the file, when opened from one (else -1)   */
    char *path;
    sdui_seek_src src;     /* where the members are read from            */
    sdui_seek_index seek;
    member_state *mstate;
    atomic_uint inflated;
    pthread_mutex_t index_lock; /* serialises adding a member's ids     */
    atomic_uint tables_left;    /* members whose ids are not indexed yet */
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
        /* Acquire: a cell is published after its slot is written. */
        uint64_t cell = atomic_load_explicit(&pack->table[i],
                                             memory_order_acquire);
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

/* Allocates n slots and an empty index table at most half full. */
static sdui_status alloc_index(sdui_pack *pack, size_t n, sdui_error *err)
{
    size_t cap = 16;
    if (n >= UINT32_MAX / 4)
        return sdui__fail(err, SDUI_LIMIT, -1, "too many tokens: %zu", n);
    while (cap < n * 2)
        cap *= 2;
    /* At most half full, so every probe meets an empty cell soon. */
    assert(n <= cap / 2 && (cap & (cap - 1)) == 0);
    pack->slots = sdui_malloc((n ? n : 1) * sizeof *pack->slots);
    pack->table = sdui__calloc(cap * sizeof *pack->table);
    if (!pack->slots || !pack->table)
        return sdui__oom(err);
    pack->mask = cap - 1;
    return SDUI_OK;
}

/* Enters slot i (its id set, hash its sdui__hash) in the index; returns
 * the slot that already holds the same id, or NULL. */
static pack_slot *insert_slot(sdui_pack *pack, size_t i, uint64_t hash)
{
    pack_slot *s = &pack->slots[i], *dup;
    size_t j;
    atomic_init(&s->token, NULL);
    atomic_init(&s->dup_of, 0);
    s->hash = hash;
    dup = find(pack, s->id, s->id_len, s->hash);
    if (dup)
        return dup;
    for (j = (size_t)s->hash & pack->mask;
         atomic_load_explicit(&pack->table[j], memory_order_relaxed);
         j = (j + 1) & pack->mask)
        ; /* ends: the table is at most half full (alloc_index) */
    atomic_store_explicit(&pack->table[j],
                          (s->hash >> 32) << 32 | (uint64_t)(i + 1),
                          memory_order_release);
    return NULL;
}

/* How many tokens ahead build_index asks for the index cell an id
 * hashes to (the scan hashed the ids while it had them, id_hash), or for
 * an escaped id's bytes: in a large pack neither is in the cache, and
 * going one token after another would wait for memory at every token. */
#define INDEX_AHEAD 16
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

/* Builds the slots and the id index from the scan; rejects duplicate ids. */
static sdui_status build_index(sdui_pack *pack, const sdui_scan_result *r,
                               sdui_error *err)
{
    const char *json = pack->json;
    size_t n = r->count, i, arena_len = 0, arena_used = 0;
    sdui_status st = alloc_index(pack, n, err);

    if (st != SDUI_OK)
        return st;
    for (i = 0; i < n; i++)
        if (r->entries[i].id_escaped)
            arena_len += r->entries[i].id_len;
    if (arena_len) {
        pack->id_arena = sdui_malloc(arena_len);
        if (!pack->id_arena)
            return sdui__oom(err);
    }
    for (i = 0; i < n; i++) {
        const sdui_scan_entry *e = &r->entries[i];
        pack_slot *s = &pack->slots[i], *dup;
        if (i + INDEX_AHEAD < n) {
            const sdui_scan_entry *a = &r->entries[i + INDEX_AHEAD];
            if (a->id_escaped)
                PREFETCH(json + a->id_start);
            else
                PREFETCH(&pack->table[a->id_hash & pack->mask]);
        }
        s->start = e->start;
        s->end = e->end;
        s->member = 0;
        assert(e->start < e->end && e->end <= pack->json_len);
        assert(e->id_start + e->id_len <= e->end);
        /* Decoding never lengthens: the arena holds every raw id. */
        assert(!e->id_escaped || arena_used + e->id_len <= arena_len);
        s->id = sdui__scan_entry_id(
            json, e, pack->id_arena ? pack->id_arena + arena_used : NULL,
            &s->id_len);
        if (e->id_escaped)
            arena_used += s->id_len;
        dup = insert_slot(pack, i,
                          e->id_escaped ? sdui__hash(s->id, s->id_len)
                                        : e->id_hash);
        pack->info.tokens = i + 1;
        if (dup)
            return sdui__fail_at(err, SDUI_SCHEMA, json, pack->json_len,
                                 e->start,
                                 "duplicate token id \"%.*s\" (first at "
                                 "byte %zu)",
                                 (int)(s->id_len > 64 ? 64 : s->id_len), s->id,
                                 dup->start);
    }
    return SDUI_OK;
}

/*
 * Seekable packs (pack_seek.c has the format).  Nothing at open may cost
 * in proportion to the pack, or a pack five times larger would open five
 * times slower: so the open hops the headers and decodes the ids of only
 * the first and the last member.  The other members' ids join the index
 * when first needed: when a member is wanted (its slots' ids come from its
 * table), or when an id is asked for that the index lacks while some
 * tables are not read yet, in member order, until it is found (a first
 * screen's ids are in the first members).  The index's slots and cells
 * are sized for every id at open, so adding ids never moves them; one lock
 * serialises the adding, and a cell is published (release) after its slot
 * is written, so a lookup that finds the cell (acquire) sees the slot.  An
 * id that two tables list is ambiguous: once both are read, asking for it
 * is an error naming both members.
 *
 * The whole document's buffer is allocated once at its total size and
 * never zeroed; each member inflates into its own place in it, on first
 * use, under its own lock, so the pages of members never asked for are
 * never touched.  A slot's byte range is set when its member is inflated
 * and scanned, and the member's state is published with a release store
 * after that, so a reader that sees it ready (acquire) sees the ranges.
 * Member 0 and the last member are inflated at open: they hold the root's
 * other members, "formatVersion" and the document's end.
 */

/* Rewrites err from a member's scan: the offset into the document, the
 * member named (line:column stay counted from the member's first byte). */
static void member_error(sdui_error *err, unsigned k, size_t json_start)
{
    char msg[SDUI_ERROR_MESSAGE_SIZE];
    if (!err)
        return;
    if (err->offset >= 0)
        err->offset += (long long)json_start;
    if (strncmp(err->message, "gzip member", 11) == 0)
        return;
    snprintf(msg, sizeof msg, "gzip member %u: %.*s", k + 1,
             (int)sizeof msg - 32, err->message);
    memcpy(err->message, msg, sizeof msg);
}

/* Adds member k's ids to the index.  Under index_lock, or before the
 * pack is shared. */
static sdui_status decode_table(sdui_pack *pack, unsigned k, sdui_error *err)
{
    member_state *ms = &pack->mstate[k];
    const sdui_seek_member *m = &pack->seek.members[k];
    sdui_seek_id *ids = NULL;
    sdui_status st = SDUI_OK;
    size_t n;
    int state = atomic_load_explicit(&ms->table, memory_order_relaxed);
    if (state != MEMBER_NEW) {
        if (state == MEMBER_READY)
            return SDUI_OK;
        if (err)
            *err = ms->table_error;
        return ms->table_error.status;
    }
    sdui_error_clear(&ms->table_error);
    if (m->nids) {
        ids = sdui_malloc(m->nids * sizeof *ids);
        st = ids ? sdui__seek_ids(&pack->src, &pack->seek, k, &pack->limits,
                                  ids, &ms->arena, &ms->table_error)
                 : sdui__oom(&ms->table_error);
    }
    for (n = 0; st == SDUI_OK && n < m->nids; n++) {
        size_t i = m->first_id + n;
        pack_slot *sl = &pack->slots[i], *dup;
        sl->id = ids[n].bytes;
        sl->id_len = ids[n].len;
        sl->start = sl->end = 0;
        sl->member = k;
        dup = insert_slot(pack, i, sdui__hash(sl->id, sl->id_len));
        if (dup) {
            /* Both claims are now known: the id is ambiguous. */
            atomic_store(&dup->dup_of, k + 1);
            atomic_store(&sl->dup_of, dup->member + 1);
        }
    }
    sdui_free(ids);
    /* The table's state before the count: a reader that sees the count
     * reach 0 sees every state. */
    atomic_store_explicit(&ms->table, st == SDUI_OK ? MEMBER_READY : MEMBER_BAD,
                          memory_order_release);
    atomic_fetch_sub(&pack->tables_left, 1);
    if (st != SDUI_OK && err)
        *err = ms->table_error;
    return st;
}

/* Makes sure member k's ids are in the index. */
static sdui_status ensure_table(const sdui_pack *cpack, unsigned k,
                                sdui_error *err)
{
    sdui_pack *pack = (sdui_pack *)cpack; /* the index is its cache */
    member_state *ms = &pack->mstate[k];
    sdui_status st;
    if (atomic_load_explicit(&ms->table, memory_order_acquire) ==
        MEMBER_READY)
        return SDUI_OK;
    pthread_mutex_lock(&pack->index_lock);
    st = decode_table(pack, k, err);
    pthread_mutex_unlock(&pack->index_lock);
    return st;
}

/*
 * Finds the slot of an id in a seekable pack, reading the tables not yet
 * read, in member order, until it is there.  SDUI_OK with *out (NULL when
 * no table lists the id), or the error of a table that could not be read
 * when the id was in none of the others.
 */
static sdui_status seek_lookup(const sdui_pack *cpack, const char *id,
                               size_t len, pack_slot **out, sdui_error *err)
{
    sdui_pack *pack = (sdui_pack *)cpack;
    uint64_t h = sdui__hash(id, len);
    sdui_status bad = SDUI_OK;
    sdui_error e;
    unsigned k;
    /* tables_left before the probe: a table another thread finishes
     * between the two is then never mistaken for read before the miss. */
    unsigned left = atomic_load(&pack->tables_left);
    *out = find(pack, id, len, h);
    if (*out || left == 0) {
        if (!*out)
            for (k = 0; k < pack->seek.nmembers; k++)
                if (atomic_load(&pack->mstate[k].table) == MEMBER_BAD) {
                    if (err)
                        *err = pack->mstate[k].table_error;
                    return pack->mstate[k].table_error.status;
                }
        return SDUI_OK;
    }
    pthread_mutex_lock(&pack->index_lock);
    *out = find(pack, id, len, h);
    for (k = 0; !*out && k < pack->seek.nmembers; k++) {
        sdui_status st = decode_table(pack, k, &e);
        if (st != SDUI_OK && bad == SDUI_OK) {
            bad = st;
            if (err)
                *err = e;
        }
        if (st == SDUI_OK)
            *out = find(pack, id, len, h);
    }
    pthread_mutex_unlock(&pack->index_lock);
    return *out ? SDUI_OK : bad;
}

/*
 * Inflates member k into its place, scans it and checks it against its
 * table, then sets its slots' byte ranges.  When keep is not NULL the
 * member's root members are handed over in it (offsets in the document).
 * Called once per member, under its lock or before the pack is shared.
 */
static sdui_status load_member(sdui_pack *pack, unsigned k,
                               sdui_scan_result *keep, sdui_scan_part *info,
                               sdui_error *err)
{
    const sdui_seek_member *m = &pack->seek.members[k];
    char *text = (char *)pack->json + m->json_start;
    sdui_scan_result scan;
    sdui_scan_part part;
    char small[256], *idbuf = small;
    size_t i, idcap = sizeof small;
    sdui_status st;

    memset(&scan, 0, sizeof scan);
    st = ensure_table(pack, k, err);
    if (st != SDUI_OK)
        return st;
    {
        const unsigned char *body;
        sdui_seek_buf buf = {NULL, 0};
        st = sdui__seek_bytes(&pack->src, m->data_pos, m->end - m->data_pos,
                              &buf, &body, err);
        if (st == SDUI_OK)
            st = sdui__gzip_inflate_member(body, m->end - m->data_pos,
                                           m->data_pos, k, text, m->json_len,
                                           err);
        sdui_free(buf.bytes);
        if (st != SDUI_OK)
            return st;
    }
    atomic_fetch_add(&pack->inflated, 1);
    st = sdui__scan_pack_part(text, m->json_len, k,
                              k + 1 == pack->seek.nmembers, &pack->limits,
                              &scan, info ? info : &part, err);
    if (st != SDUI_OK) {
        member_error(err, k, m->json_start);
        goto done;
    }
    if (scan.count != m->nids) {
        st = sdui__fail(err, SDUI_SCHEMA, (long long)m->json_start,
                        "gzip member %u holds %zu tokens, but its seekable "
                        "table lists %zu ids",
                        k + 1, scan.count, m->nids);
        goto done;
    }
    for (i = 0; i < scan.count; i++) {
        const sdui_scan_entry *e = &scan.entries[i];
        const char *id;
        size_t len;
        pack_slot *s;
        if (e->id_escaped && e->id_len > idcap) {
            char *nb = sdui_realloc(idbuf == small ? NULL : idbuf, e->id_len);
            if (!nb) {
                st = sdui__oom(err);
                goto done;
            }
            idbuf = nb;
            idcap = e->id_len;
        }
        id = sdui__scan_entry_id(text, e, idbuf, &len);
        s = find(pack, id, len, sdui__hash(id, len));
        if (!s || s->member != k || s->end != 0) {
            st = sdui__fail(err, SDUI_SCHEMA,
                            (long long)(m->json_start + e->start),
                            !s ? "gzip member %u holds token \"%.*s\", which "
                                 "no seekable table lists"
                            : s->member != k
                                ? "gzip member %u holds token \"%.*s\", which "
                                  "another member's table lists"
                                : "gzip member %u holds token \"%.*s\" twice",
                            k + 1, (int)(len > 64 ? 64 : len), id);
            goto done;
        }
        s->start = m->json_start + e->start;
        s->end = m->json_start + e->end;
    }
    if (keep) {
        for (i = 0; i < scan.nmembers; i++) {
            sdui_scan_member *r = &scan.members[i];
            if (r->key_start != SIZE_MAX)
                r->key_start += m->json_start;
            if (r->start != SIZE_MAX)
                r->start += m->json_start;
            if (r->end != SIZE_MAX)
                r->end += m->json_start;
        }
        *keep = scan;
        memset(&scan, 0, sizeof scan);
    }
done:
    if (idbuf != small)
        sdui_free(idbuf);
    sdui__scan_result_free(&scan);
    return st;
}

/* Makes sure member k is inflated: once, whichever thread asks first; a
 * member that failed keeps failing with the same error. */
static sdui_status ensure_member(const sdui_pack *cpack, unsigned k,
                                 sdui_error *err)
{
    sdui_pack *pack = (sdui_pack *)cpack; /* the members are its cache */
    member_state *ms = &pack->mstate[k];
    int state = atomic_load_explicit(&ms->state, memory_order_acquire);
    if (state == MEMBER_NEW) {
        pthread_mutex_lock(&ms->lock);
        state = atomic_load_explicit(&ms->state, memory_order_relaxed);
        if (state == MEMBER_NEW) {
            sdui_error e;
            sdui_error_clear(&e);
            state = load_member(pack, k, NULL, NULL, &e) == SDUI_OK
                        ? MEMBER_READY
                        : MEMBER_BAD;
            ms->error = e;
            atomic_store_explicit(&ms->state, state, memory_order_release);
        }
        pthread_mutex_unlock(&ms->lock);
    }
    if (state == MEMBER_READY)
        return SDUI_OK;
    if (err)
        *err = ms->error;
    return ms->error.status;
}

/*
 * The root's members of a seekable pack: member 0's (the last of which is
 * "tokens", still open when more members follow) joined to the last
 * member's (the first of which closes "tokens").
 */
static sdui_status join_members(sdui_pack *pack, sdui_scan_result *first,
                                sdui_scan_result *last, sdui_error *err)
{
    size_t n = first->nmembers + last->nmembers, i = 0, j = 0;
    sdui_scan_member *all = sdui_malloc((n ? n : 1) * sizeof *all);
    if (!all)
        return sdui__oom(err);
    for (; i < first->nmembers; i++)
        all[i] = first->members[i];
    if (i > 0 && all[i - 1].end == SIZE_MAX && last->nmembers &&
        last->members[0].start == SIZE_MAX)
        all[i - 1].end = last->members[j++].end;
    for (; j < last->nmembers; j++)
        all[i++] = last->members[j];
    for (j = 0; j < i; j++)
        if (all[j].start == SIZE_MAX || all[j].end == SIZE_MAX) {
            sdui_free(all);
            return sdui__fail(err, SDUI_SCHEMA, -1,
                              "seekable pack: the \"tokens\" array does not "
                              "run from the first member to the last");
        }
    pack->members = all;
    pack->nmembers = i;
    return SDUI_OK;
}

/* Opens a seekable pack from pack->src (memory or file). */
static sdui_status open_seekable(sdui_pack *pack, sdui_error *err)
{
    sdui_seek_index *x = &pack->seek;
    sdui_scan_result first, last;
    sdui_scan_part pf, pl;
    unsigned k;
    char *json;
    sdui_status st;

    memset(&first, 0, sizeof first);
    memset(&last, 0, sizeof last);
    pack->seekable = 1;
    st = sdui__seek_read(&pack->src, &pack->limits, x, err);
    if (st != SDUI_OK)
        return st;
    json = sdui_malloc(x->total + 1); /* not zeroed: see above */
    if (!json)
        return sdui__oom(err);
    json[x->total] = '\0';
    pack->data = sdui__buffer_adopt(json, x->total);
    if (!pack->data) {
        sdui_free(json);
        return sdui__oom(err);
    }
    pack->json = json;
    pack->json_len = x->total;
    pack->info.raw_bytes = x->total;
    pack->info.members = (unsigned)x->nmembers;
    pack->info.seekable = 1;
    pack->mstate = sdui_malloc(x->nmembers * sizeof *pack->mstate);
    if (!pack->mstate)
        return sdui__oom(err);
    for (k = 0; k < x->nmembers; k++) {
        member_state *ms = &pack->mstate[k];
        pthread_mutex_init(&ms->lock, NULL);
        atomic_init(&ms->state, MEMBER_NEW);
        atomic_init(&ms->table, MEMBER_NEW);
        ms->arena = NULL;
    }
    pthread_mutex_init(&pack->index_lock, NULL);
    atomic_init(&pack->tables_left, (unsigned)x->nmembers);
    st = alloc_index(pack, x->nids, err);
    if (st != SDUI_OK)
        return st;
    pack->info.tokens = x->nids;
    /* The first and the last member: the root's shape. */
    st = load_member(pack, 0, &first, &pf, err);
    if (st == SDUI_OK) {
        atomic_store(&pack->mstate[0].state, MEMBER_READY);
        k = (unsigned)x->nmembers - 1;
        if (k > 0) {
            st = load_member(pack, k, &last, &pl, err);
            if (st == SDUI_OK)
                atomic_store(&pack->mstate[k].state, MEMBER_READY);
        }
    }
    if (st == SDUI_OK && k > 0) {
        size_t at = x->members[k].json_start;
        if (pf.seen_format && pl.has_format_key)
            st = sdui__fail(err, SDUI_SCHEMA, (long long)(at + pl.format_key_at),
                            "duplicate \"formatVersion\" key (gzip member %u)",
                            k + 1);
        else if (!pf.seen_format && !pl.seen_format)
            st = sdui__fail(err, SDUI_SCHEMA,
                            (long long)(at + (pl.has_root_close ? pl.root_close
                                                                : 0)),
                            "a pack needs \"formatVersion\": 1");
    }
    if (st == SDUI_OK)
        st = join_members(pack, &first, &last, err);
    sdui__scan_result_free(&first);
    sdui__scan_result_free(&last);
    return st;
}

/* The feed of a pipelined open: a hinted gzip file, a member a call. */
typedef struct member_feed {
    sdui_gz_stream s;
    char *buf;             /* total + 1 bytes                          */
    size_t total, used;
    unsigned members;      /* the hint's count                         */
    sdui_error err;        /* the feed's own: the scanner has the other */
} member_feed;

/* Inflates the next member into place (an sdui_scan_feed). */
static int feed_member(void *ctx, size_t *ready, sdui_status *st)
{
    member_feed *f = ctx;
    int k = sdui__gz_next_hinted(&f->s, f->buf, f->total, f->members,
                                 &f->used, st, &f->err);
    if (k == SDUI_GZ_FAIL)
        return -1;
    if (k == SDUI_GZ_MEMBER && f->s.pos < f->s.len) {
        *ready = f->used;
        return 1;
    }
    if (k == SDUI_GZ_MEMBER) {
        /* That was the last: check the totals. */
        k = sdui__gz_next_hinted(&f->s, f->buf, f->total, f->members,
                                 &f->used, st, &f->err);
        if (k == SDUI_GZ_FAIL)
            return -1;
    }
    assert(k == SDUI_GZ_END);
    f->buf[f->used] = '\0';
    *ready = f->used;
    return 0;
}

/*
 * Inflates a plain pack and scans its JSON into scan (zeroed).  A file
 * written by sdui_gzip_encode_members says its size and member count in
 * its first header: when it has several members and is large enough to
 * scan on two threads, the JSON is scanned member by member while the
 * next inflates (sdui__scan_pack_fed), into one buffer of that size.
 * Any other file is inflated whole, then scanned.  Either way the outcome
 * is the same, a gzip error first.  *json is new (sdui_free) on SDUI_OK.
 */
static sdui_status inflate_and_scan(const unsigned char *data, size_t len,
                                    const sdui_limits *limits, char **json,
                                    size_t *json_len, unsigned *members,
                                    sdui_scan_result *scan, sdui_error *err)
{
    member_feed f;
    int failed = 0;
    sdui_status st;

    memset(&f, 0, sizeof f);
    if (!sdui__gz_size_hint(data, len, &f.total, &f.members) ||
        f.members < 2 || f.total < limits->parallel_scan_bytes) {
        st = sdui_gzip_decode(data, len, limits->max_inflated_bytes, json,
                              json_len, members, err);
        if (st != SDUI_OK)
            return st;
        st = sdui__scan_pack(*json, *json_len, limits, scan, err);
        if (st != SDUI_OK) {
            sdui_free(*json);
            *json = NULL;
        }
        return st;
    }
    st = sdui__gz_hint_check(len, f.total, f.members,
                             limits->max_inflated_bytes, err);
    if (st != SDUI_OK)
        return st;
    f.buf = sdui_malloc(f.total + 1);
    if (!f.buf)
        return sdui__oom(err);
    st = sdui__gz_stream_open(&f.s, data, len, err);
    if (st == SDUI_OK) {
        sdui_error_clear(&f.err);
        st = sdui__scan_pack_fed(f.buf, limits, feed_member, &f, json_len,
                                 &failed, scan, err);
        if (failed && err)
            *err = f.err;
    }
    sdui__gz_stream_close(&f.s);
    if (st != SDUI_OK) {
        sdui_free(f.buf);
        return st;
    }
    *json = f.buf;
    *members = f.s.n;
    return SDUI_OK;
}

/* Opens from gzip bytes; shared by the file and memory entry points. */
static sdui_status open_bytes(const void *data, size_t len,
                              unsigned char *owned,
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
    if (len > limits->max_compressed_bytes) {
        sdui_free(owned);
        return sdui__fail(err, SDUI_LIMIT, -1,
                          "pack is %zu bytes, over the compressed limit of %zu",
                          len, limits->max_compressed_bytes);
    }
    if (sdui__seek_detect(data, len)) {
        /* A seekable pack keeps its gzip bytes: the caller's, or a copy. */
        unsigned char *gz = owned;
        if (!gz) {
            gz = sdui_malloc(len);
            if (!gz)
                return sdui__oom(err);
            memcpy(gz, data, len);
        }
        pack = sdui_malloc(sizeof *pack);
        if (!pack) {
            sdui_free(gz);
            return sdui__oom(err);
        }
        memset(pack, 0, sizeof *pack);
        pack->limits = *limits;
        pack->info.compressed_bytes = len;
        pack->gz = gz;
        pack->fd = -1;
        pack->src.mem = gz;
        pack->src.len = len;
        pack->src.fd = -1;
        st = open_seekable(pack, err);
        if (st != SDUI_OK) {
            sdui_pack_free(pack);
            return st;
        }
        *out = pack;
        return SDUI_OK;
    }
    st = inflate_and_scan(data, len, limits, &json, &json_len, &members,
                          &scan, err);
    sdui_free(owned);
    if (st != SDUI_OK) {
        sdui__scan_result_free(&scan);
        return st;
    }

    pack = sdui_malloc(sizeof *pack);
    if (!pack) {
        sdui__scan_result_free(&scan);
        sdui_free(json);
        return sdui__oom(err);
    }
    memset(pack, 0, sizeof *pack);
    pack->limits = *limits;
    pack->data = sdui__buffer_adopt(json, json_len);
    if (!pack->data) {
        sdui__scan_result_free(&scan);
        sdui_free(json);
        sdui_free(pack);
        return sdui__oom(err);
    }
    pack->json = json;
    pack->json_len = json_len;
    pack->info.compressed_bytes = len;
    pack->info.raw_bytes = json_len;
    pack->info.members = members;
    pack->info.members_inflated = members;

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
    return open_bytes(data, len, NULL, limits, out, err);
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
 * 1 when the regular file fd of size bytes starts with a seekable pack's
 * first header: reads that header only (pread: the file offset stays 0).
 */
static int probe_seekable(int fd, size_t size)
{
    unsigned char head[SDUI_GZ_HEADER_FIXED], *buf;
    size_t n;
    int yes;
    if (size < 18 || pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
        head[0] != 0x1f || head[1] != 0x8b || !(head[3] & 4))
        return 0;
    n = SDUI_GZ_HEADER_FIXED + ((size_t)head[10] | (size_t)head[11] << 8);
    if (n > size)
        return 0;
    buf = sdui_malloc(n);
    if (!buf)
        return 0;
    yes = pread(fd, buf, n, 0) == (ssize_t)n && sdui__seek_detect(buf, n);
    sdui_free(buf);
    return yes;
}

/*
 * Opens a seekable pack from its file, which the pack keeps open and
 * reads members from on first use (fd is taken over).
 */
static sdui_status open_seekable_file(int fd, const char *path, size_t size,
                                      const sdui_limits *limits,
                                      sdui_pack **out, sdui_error *err)
{
    sdui_pack *pack = sdui_malloc(sizeof *pack);
    size_t plen = strlen(path);
    sdui_status st;
    if (!pack) {
        close(fd);
        return sdui__oom(err);
    }
    memset(pack, 0, sizeof *pack);
    pack->limits = *limits;
    pack->info.compressed_bytes = size;
    pack->fd = fd;
    pack->path = sdui_malloc(plen + 1);
    if (!pack->path) {
        pack->seekable = 1; /* so the fd is closed */
        sdui_pack_free(pack);
        return sdui__oom(err);
    }
    memcpy(pack->path, path, plen + 1);
    pack->src.mem = NULL;
    pack->src.len = size;
    pack->src.fd = fd;
    pack->src.path = pack->path;
    st = open_seekable(pack, err);
    if (st != SDUI_OK) {
        pack->seekable = 1;
        sdui_pack_free(pack);
        return st;
    }
    *out = pack;
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
    if (S_ISREG(sb.st_mode) && probe_seekable(fd, (size_t)sb.st_size))
        return open_seekable_file(fd, path, (size_t)sb.st_size, lim, out,
                                  err); /* takes fd */
    /* A regular file is read the same way: it may grow or shrink meanwhile,
     * and the bound holds whatever its size said. */
    st = read_stream(fd, path, lim->max_compressed_bytes,
                     S_ISREG(sb.st_mode) ? (size_t)sb.st_size : 0, &buf,
                     &size, err);
    close(fd);
    if (st != SDUI_OK)
        return st;
    return open_bytes(buf, size, buf, lim, out, err); /* takes buf */
}

/* Releases the pack and its cached tokens' slot references. */
void sdui_pack_free(sdui_pack *pack)
{
    size_t i;
    if (!pack)
        return;
    if (pack->slots && !pack->seekable)
        for (i = 0; i < pack->info.tokens; i++)
            sdui_token_release(atomic_load(&pack->slots[i].token));
    if (pack->slots && pack->mstate) {
        /* Only the slots of members whose ids were read are set. */
        size_t k;
        for (k = 0; k < pack->seek.nmembers; k++) {
            const sdui_seek_member *m = &pack->seek.members[k];
            if (atomic_load(&pack->mstate[k].table) != MEMBER_READY)
                continue;
            for (i = m->first_id; i < m->first_id + m->nids; i++)
                sdui_token_release(atomic_load(&pack->slots[i].token));
        }
    }
    sdui_free(pack->slots);
    sdui_free(pack->table);
    sdui_free(pack->id_arena);
    sdui_free(pack->members);
    if (pack->mstate) {
        for (i = 0; i < pack->seek.nmembers; i++) {
            pthread_mutex_destroy(&pack->mstate[i].lock);
            sdui_free(pack->mstate[i].arena);
        }
        sdui_free(pack->mstate);
        pthread_mutex_destroy(&pack->index_lock);
    }
    sdui__seek_index_free(&pack->seek);
    sdui_free(pack->gz);
    if (pack->seekable && pack->fd >= 0)
        close(pack->fd);
    sdui_free(pack->path);
    sdui__buffer_release(pack->data);
    sdui_free(pack);
}

/* Counts and sizes (pack.h); an accessor: pack and out must not be NULL. */
void sdui_pack_get_info(const sdui_pack *pack, sdui_pack_info *out)
{
    assert(pack && out);
    *out = pack->info;
    if (pack->seekable)
        out->members_inflated = atomic_load(
            &((sdui_pack *)pack)->inflated);
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
    if (pack->seekable) {
        /* The member whose ids include i: its table first. */
        size_t lo = 0, hi = pack->seek.nmembers - 1;
        while (lo < hi) {
            size_t mid = (lo + hi + 1) / 2;
            if (pack->seek.members[mid].first_id <= i)
                lo = mid;
            else
                hi = mid - 1;
        }
        if (ensure_table(pack, (unsigned)lo, NULL) != SDUI_OK) {
            if (len)
                *len = 0;
            return NULL;
        }
    }
    if (len)
        *len = pack->slots[i].id_len;
    return pack->slots[i].id;
}

/* Whether the index holds id, without parsing the token (pack.h). */
int sdui_pack_contains(const sdui_pack *pack, const char *id, size_t len)
{
    pack_slot *s = NULL;
    assert(pack);
    if (!id)
        return 0;
    if (pack->seekable)
        return seek_lookup(pack, id, len, &s, NULL) == SDUI_OK && s;
    return find(pack, id, len, sdui__hash(id, len)) != NULL;
}

/* The whole inflated JSON (pack.h). */
const char *sdui_pack_json(const sdui_pack *pack, size_t *len)
{
    unsigned k;
    assert(pack);
    if (len)
        *len = 0;
    if (pack->seekable)
        for (k = 0; k < pack->seek.nmembers; k++)
            if (ensure_member(pack, k, NULL) != SDUI_OK)
                return NULL;
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
        uint64_t cell = atomic_load(&pack->table[j]);
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
    if (pack->seekable) {
        st = seek_lookup(pack, id ? id : "", len, &s, err);
        if (st != SDUI_OK)
            return st;
        if (s && atomic_load(&s->dup_of))
            return sdui__fail(err, SDUI_SCHEMA,
                              (long long)pack->seek.members[s->member].start,
                              "duplicate token id \"%.*s\": the seekable "
                              "tables of gzip members %u and %u both list it",
                              (int)(len > 64 ? 64 : len), id,
                              s->member + 1, atomic_load(&s->dup_of));
    } else
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
    span.owner = pack->data;
    if (pack->seekable) {
        /* Its member first (the slot's range is set when the member is
         * inflated); errors point into the member's JSON. */
        const sdui_seek_member *m = &pack->seek.members[s->member];
        st = ensure_member(pack, s->member, err);
        if (st != SDUI_OK)
            return st;
        span.bytes = pack->json + s->start;
        span.len = s->end - s->start;
        span.base_offset = s->start - m->json_start;
        span.doc = pack->json + m->json_start;
        span.doc_len = m->json_len;
        st = sdui__token_make(&span, &pack->limits, &tok, err);
        if (st != SDUI_OK) {
            member_error(err, s->member, m->json_start);
            return st;
        }
    } else {
        span.bytes = pack->json + s->start;
        span.len = s->end - s->start;
        span.base_offset = s->start;
        span.doc = pack->json;
        span.doc_len = pack->json_len;
        st = sdui__token_make(&span, &pack->limits, &tok, err);
        if (st != SDUI_OK)
            return st;
    }
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
        if (found && pack->seekable)
            return sdui__fail(err, SDUI_SCHEMA, (long long)m->key_start - 1,
                              "the pack's root has \"%.*s\" twice (first "
                              "at byte %zu)",
                              (int)(n > 64 ? 64 : n), name,
                              found->key_start - 1);
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
    if (pack->seekable) {
        /* A member's value may span gzip members ("tokens" spans them
         * all): its bytes are there once those are inflated. */
        unsigned k;
        for (k = 0; k < pack->seek.nmembers; k++) {
            const sdui_seek_member *g = &pack->seek.members[k];
            sdui_status st;
            if (g->json_start >= found->end ||
                g->json_start + g->json_len <= found->start)
                continue;
            st = ensure_member(pack, k, err);
            if (st != SDUI_OK)
                return st;
        }
    }
    *out = pack->json + found->start;
    *len = found->end - found->start;
    return SDUI_OK;
}
