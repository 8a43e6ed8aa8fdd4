/*
 * alloc.c - the allocator hook, and the routing of libdeflate's allocations
 * through it.
 */
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "internal.h"

/* The default allocator: malloc, never asked for 0 bytes. */
static void *default_malloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size ? size : 1);
}

/* The default reallocator: realloc, never asked for 0 bytes. */
static void *default_realloc(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    return realloc(ptr, size ? size : 1);
}

/* The default release: free. */
static void default_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static sdui_allocator current = {
    default_malloc, default_realloc, default_free, NULL,
};

/* Allocation for a library whose hook takes no context (libdeflate):
 * through the hook. */
static void *lib_malloc(size_t size) { return sdui_malloc(size); }

/* Release for a library whose hook takes no context. */
static void lib_free(void *ptr) { sdui_free(ptr); }

/* Installs an allocator or restores the default (see alloc.h). */
void sdui_set_allocator(const sdui_allocator *a)
{
    if (a) {
        assert(a->malloc_fn && a->realloc_fn && a->free_fn);
        current = *a;
        libdeflate_set_memory_allocator(lib_malloc, lib_free);
    } else {
        current.malloc_fn = default_malloc;
        current.realloc_fn = default_realloc;
        current.free_fn = default_free;
        current.ctx = NULL;
        libdeflate_set_memory_allocator(malloc, free);
    }
}

/* Allocates size bytes through the hook. */
void *sdui_malloc(size_t size)
{
    return current.malloc_fn(current.ctx, size);
}

/* Resizes through the hook. */
void *sdui_realloc(void *ptr, size_t size)
{
    return current.realloc_fn(current.ctx, ptr, size);
}

/* Allocates n zeroed bytes through the hook.  With the default allocator
 * this is calloc, which takes fresh pages from the system already zero
 * instead of writing them: a large index that is mostly never probed then
 * costs no page it does not touch. */
void *sdui__calloc(size_t n)
{
    void *p;
    if (current.malloc_fn == default_malloc)
        return calloc(n ? n : 1, 1);
    p = sdui_malloc(n);
    if (p)
        memset(p, 0, n);
    return p;
}

/* Frees through the hook; NULL is a no-op. */
void sdui_free(void *ptr)
{
    if (ptr)
        current.free_fn(current.ctx, ptr);
}
