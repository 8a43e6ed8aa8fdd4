/*
 * alloc.h - the single allocator hook of the SDUIKit core.
 *
 * Every allocation the core makes, including those of jansson and libdeflate
 * on its behalf, goes through this hook, so a test can fail allocation n and
 * check that the core answers SDUI_OOM without leaking or crashing.
 */
#ifndef SDUI_ALLOC_H
#define SDUI_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_allocator {
    void *(*malloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t size);
    void (*free_fn)(void *ctx, void *ptr);
    void *ctx;
} sdui_allocator;

/*
 * Installs an allocator (copied), or restores malloc/realloc/free when a is
 * NULL.  Also routes jansson's and libdeflate's process-wide allocators here.
 * NOT thread-safe: call it before any other sdui call, or when no sdui object
 * is alive, since memory must be freed by the allocator that made it.
 */
void sdui_set_allocator(const sdui_allocator *a);

/* Allocation through the hook (for code that extends the core).  Thread-safe
 * if the installed allocator is.  sdui_free(NULL) is a no-op. */
void *sdui_malloc(size_t size);
void *sdui_realloc(void *ptr, size_t size);
void sdui_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif
