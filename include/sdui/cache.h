/*
 * cache.h - a thread-safe LRU cache of tokens keyed by id.
 *
 * Bounded by entry count and by bytes (each token's JSON length), whichever
 * is reached first; the least recently used entries are evicted to make room.
 * Counts hits, misses and evictions.  Every function is thread-safe.  NULL
 * handles follow the rule of sdui.h.
 */
#ifndef SDUI_CACHE_H
#define SDUI_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "token.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_cache sdui_cache;

#define SDUI_CACHE_DEFAULT_MAX_ENTRIES ((size_t)5000)
#define SDUI_CACHE_DEFAULT_MAX_BYTES   ((size_t)32 << 20)

typedef struct sdui_cache_stats {
    size_t entries, bytes;         /* now                 */
    size_t max_entries, max_bytes; /* bounds              */
    uint64_t hits, misses, evictions;
} sdui_cache_stats;

/* A new cache; a bound of 0 means the default.  Release with sdui_cache_free. */
sdui_status sdui_cache_new(size_t max_entries, size_t max_bytes,
                           sdui_cache **out, sdui_error *err);

/* Releases every cached token and the cache.  NULL is a no-op. */
void sdui_cache_free(sdui_cache *cache);

/*
 * Looks up id; a hit marks it most recently used.  Returns a new reference
 * (release with sdui_token_release) or NULL on a miss.  Counts the outcome.
 */
sdui_token *sdui_cache_get(sdui_cache *cache, const char *id, size_t len);

/*
 * Inserts tok under its id (the cache takes its own reference), replacing any
 * entry with that id, then evicts least recently used entries until both
 * bounds hold.  SDUI_LIMIT when tok alone is larger than max_bytes (nothing
 * is stored); SDUI_OOM when memory runs out (the cache is unchanged).
 */
sdui_status sdui_cache_put(sdui_cache *cache, sdui_token *tok, sdui_error *err);

/* Removes id; returns 1 if it was present.  Not counted as an eviction. */
int sdui_cache_remove(sdui_cache *cache, const char *id, size_t len);

/* Removes every entry (counters are kept). */
void sdui_cache_clear(sdui_cache *cache);

/* A consistent snapshot of sizes, bounds and counters. */
void sdui_cache_get_stats(sdui_cache *cache, sdui_cache_stats *out);

/*
 * Stores up to cap cached tokens in out, most recently used first, as new
 * references (release each with sdui_token_release).  Does not count as use.
 * Returns the number of entries, which may exceed cap.  For tests and
 * inspection.
 */
size_t sdui_cache_snapshot(sdui_cache *cache, sdui_token **out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
