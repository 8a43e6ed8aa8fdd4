/*
 * cache.c - a thread-safe LRU cache of tokens, bounded by count and bytes.
 *
 * Algorithm: every entry sits in two structures at once.
 *   - A hash table with separate chaining maps an id to its entry.  The
 *     bucket count is a power of two and doubles when entries outnumber
 *     buckets, so chains stay short; the hash is keyed per process
 *     (hash.c), so crafted ids cannot choose their bucket.
 *   - A circular doubly linked list orders entries by recency: the sentinel's
 *     next is the most recently used, its prev the least.
 * get: find, unlink, relink at the front.  put: replace or insert at the
 * front, then while either bound is exceeded, unlink the entry at the back,
 * drop it from its chain and count an eviction.  Every operation is O(1)
 * expected.  The cost of an entry is its token's JSON length, so the byte
 * bound tracks what a token weighs on the wire and on disk.
 *
 * One mutex guards the whole cache; the critical sections are a few pointer
 * moves, which is cheaper than sharding for the sizes apps use (thousands).
 */
#include <pthread.h>
#include <string.h>

#include "internal.h"

typedef struct centry {
    struct centry *prev, *next; /* recency list                   */
    struct centry *chain;       /* next in the same hash bucket   */
    uint64_t hash;
    const char *id;             /* borrowed from tok              */
    size_t id_len;
    size_t bytes;
    sdui_token *tok;            /* one reference held by the cache */
} centry;

struct sdui_cache {
    pthread_mutex_t mu;
    centry **buckets;
    size_t nbuckets;
    centry lru; /* sentinel */
    size_t count, bytes;
    size_t max_entries, max_bytes;
    uint64_t hits, misses, evictions;
};

/* Creates a cache (cache.h). */
sdui_status sdui_cache_new(size_t max_entries, size_t max_bytes,
                           sdui_cache **out, sdui_error *err)
{
    sdui_cache *c;
    sdui_error_clear(err);
    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out is NULL");
    *out = NULL;
    c = sdui_malloc(sizeof *c);
    if (!c)
        return sdui__oom(err);
    memset(c, 0, sizeof *c);
    c->nbuckets = 64;
    c->buckets = sdui_malloc(c->nbuckets * sizeof *c->buckets);
    if (!c->buckets) {
        sdui_free(c);
        return sdui__oom(err);
    }
    memset(c->buckets, 0, c->nbuckets * sizeof *c->buckets);
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        sdui_free(c->buckets);
        sdui_free(c);
        return sdui__fail(err, SDUI_OOM, -1, "cannot create a mutex");
    }
    c->lru.next = c->lru.prev = &c->lru;
    c->max_entries = max_entries ? max_entries : SDUI_CACHE_DEFAULT_MAX_ENTRIES;
    c->max_bytes = max_bytes ? max_bytes : SDUI_CACHE_DEFAULT_MAX_BYTES;
    *out = c;
    return SDUI_OK;
}

/* Unlinks e from the recency list. */
static void list_unlink(centry *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
}

/* Links e at the front (most recently used). */
static void list_push_front(sdui_cache *c, centry *e)
{
    e->next = c->lru.next;
    e->prev = &c->lru;
    c->lru.next->prev = e;
    c->lru.next = e;
}

/* The bucket slot that points at the entry for id, or at the chain's end. */
static centry **chain_slot(sdui_cache *c, const char *id, size_t len,
                           uint64_t h)
{
    centry **pp = &c->buckets[h & (c->nbuckets - 1)];
    while (*pp && !((*pp)->hash == h && (*pp)->id_len == len &&
                    memcmp((*pp)->id, id, len) == 0))
        pp = &(*pp)->chain;
    return pp;
}

/* Removes e from table and list, adjusts totals, returns its token. */
static sdui_token *drop(sdui_cache *c, centry *e)
{
    centry **pp = chain_slot(c, e->id, e->id_len, e->hash);
    sdui_token *tok = e->tok;
    assert(*pp == e);
    *pp = e->chain;
    list_unlink(e);
    c->count--;
    c->bytes -= e->bytes;
    sdui_free(e);
    return tok;
}

/* Doubles the bucket array; on allocation failure keeps the old one. */
static void maybe_grow(sdui_cache *c)
{
    size_t n = c->nbuckets * 2, i;
    centry **nb;
    if (c->count < c->nbuckets || n > ((size_t)1 << 40))
        return;
    nb = sdui_malloc(n * sizeof *nb);
    if (!nb)
        return;
    memset(nb, 0, n * sizeof *nb);
    for (i = 0; i < c->nbuckets; i++) {
        centry *e = c->buckets[i];
        while (e) {
            centry *next = e->chain;
            centry **slot = &nb[e->hash & (n - 1)];
            e->chain = *slot;
            *slot = e;
            e = next;
        }
    }
    sdui_free(c->buckets);
    c->buckets = nb;
    c->nbuckets = n;
}

/* Frees every entry and the cache. */
void sdui_cache_free(sdui_cache *cache)
{
    if (!cache)
        return;
    sdui_cache_clear(cache);
    pthread_mutex_destroy(&cache->mu);
    sdui_free(cache->buckets);
    sdui_free(cache);
}

/* Looks up id and marks it most recently used (cache.h). */
sdui_token *sdui_cache_get(sdui_cache *c, const char *id, size_t len)
{
    uint64_t h = sdui__hash(id ? id : "", len);
    centry *e;
    sdui_token *tok = NULL;
    assert(c && (id || len == 0));
    pthread_mutex_lock(&c->mu);
    e = *chain_slot(c, id, len, h);
    if (e) {
        list_unlink(e);
        list_push_front(c, e);
        tok = sdui_token_retain(e->tok);
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->mu);
    return tok;
}

/* Inserts or replaces, then evicts to the bounds (cache.h). */
sdui_status sdui_cache_put(sdui_cache *c, sdui_token *tok, sdui_error *err)
{
    size_t len, bytes;
    const char *id;
    uint64_t h;
    centry *e, **pp;
    sdui_token *old = NULL;

    sdui_error_clear(err);
    if (!c || !tok)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "cache or token is NULL");
    id = sdui_token_id(tok, &len);
    sdui_token_json(tok, &bytes);
    if (bytes > c->max_bytes)
        return sdui__fail(err, SDUI_LIMIT, -1,
                          "token \"%.*s\" (%zu bytes) is larger than the "
                          "cache's byte bound of %zu",
                          (int)(len > 64 ? 64 : len), id, bytes, c->max_bytes);
    h = sdui__hash(id, len);

    pthread_mutex_lock(&c->mu);
    pp = chain_slot(c, id, len, h);
    e = *pp;
    if (e) {
        old = e->tok;
        c->bytes -= e->bytes;
        list_unlink(e);
    } else {
        e = sdui_malloc(sizeof *e);
        if (!e) {
            pthread_mutex_unlock(&c->mu);
            return sdui__oom(err);
        }
        e->chain = NULL;
        *pp = e;
        c->count++;
    }
    e->hash = h;
    e->tok = sdui_token_retain(tok);
    e->id = id;
    e->id_len = len;
    e->bytes = bytes;
    c->bytes += bytes;
    list_push_front(c, e);
    while (c->count > c->max_entries || c->bytes > c->max_bytes) {
        centry *victim = c->lru.prev;
        assert(victim != e);
        sdui_token_release(drop(c, victim));
        c->evictions++;
    }
    maybe_grow(c);
    pthread_mutex_unlock(&c->mu);
    sdui_token_release(old);
    return SDUI_OK;
}

/* Removes id (cache.h). */
int sdui_cache_remove(sdui_cache *c, const char *id, size_t len)
{
    uint64_t h = sdui__hash(id ? id : "", len);
    centry *e;
    sdui_token *tok = NULL;
    assert(c && (id || len == 0));
    pthread_mutex_lock(&c->mu);
    e = *chain_slot(c, id, len, h);
    if (e)
        tok = drop(c, e);
    pthread_mutex_unlock(&c->mu);
    sdui_token_release(tok);
    return tok != NULL;
}

/* Removes every entry (cache.h). */
void sdui_cache_clear(sdui_cache *c)
{
    assert(c);
    pthread_mutex_lock(&c->mu);
    while (c->lru.next != &c->lru)
        sdui_token_release(drop(c, c->lru.next));
    pthread_mutex_unlock(&c->mu);
}

/* A snapshot of sizes and counters (cache.h). */
void sdui_cache_get_stats(sdui_cache *c, sdui_cache_stats *out)
{
    assert(c && out);
    pthread_mutex_lock(&c->mu);
    out->entries = c->count;
    out->bytes = c->bytes;
    out->max_entries = c->max_entries;
    out->max_bytes = c->max_bytes;
    out->hits = c->hits;
    out->misses = c->misses;
    out->evictions = c->evictions;
    pthread_mutex_unlock(&c->mu);
}

/* Longest bucket chain (internal.h): for tests of the hash's spread. */
size_t sdui__cache_longest_chain(sdui_cache *c)
{
    size_t i, longest = 0;
    assert(c);
    pthread_mutex_lock(&c->mu);
    for (i = 0; i < c->nbuckets; i++) {
        size_t n = 0;
        const centry *e;
        for (e = c->buckets[i]; e; e = e->chain)
            n++;
        if (n > longest)
            longest = n;
    }
    pthread_mutex_unlock(&c->mu);
    return longest;
}

/* Tokens in recency order, most recent first (cache.h). */
size_t sdui_cache_snapshot(sdui_cache *c, sdui_token **out, size_t cap)
{
    size_t n = 0;
    centry *e;
    assert(c && (out || cap == 0));
    pthread_mutex_lock(&c->mu);
    for (e = c->lru.next; e != &c->lru; e = e->next, n++)
        if (n < cap)
            out[n] = sdui_token_retain(e->tok);
    pthread_mutex_unlock(&c->mu);
    return n;
}
