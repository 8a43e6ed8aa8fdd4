/*
 * buffer.c - a reference-counted byte buffer (see buffer.h): the pack's
 * inflated JSON, shared by the pack and the tokens that borrow from it.
 */
#include <stdatomic.h>

#include "buffer.h"
#include "internal.h"

struct sdui_buffer {
    atomic_long refs;
    char *bytes;
    size_t len;
};

/* Wraps sdui_malloc'd bytes in a buffer with one reference (buffer.h). */
sdui_buffer *sdui__buffer_adopt(char *bytes, size_t len)
{
    sdui_buffer *b;
    assert(bytes || len == 0);
    b = sdui_malloc(sizeof *b);
    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    b->bytes = bytes;
    b->len = len;
    return b;
}

/* Adds a reference (buffer.h).  Relaxed: a new reference is made from one
 * the caller holds, so the buffer cannot be freed meanwhile. */
sdui_buffer *sdui__buffer_retain(sdui_buffer *b)
{
    long before;
    assert(b);
    before = atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    assert(before > 0);
    (void)before;
    return b;
}

/* Drops a reference; the last one frees (buffer.h).  Acquire-release, so
 * every holder's reads happen before the free. */
void sdui__buffer_release(sdui_buffer *b)
{
    long before;
    if (!b)
        return;
    before = atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel);
    assert(before > 0);
    if (before != 1)
        return;
    sdui_free(b->bytes);
    sdui_free(b);
}

/* The bytes and their count (buffer.h). */
const char *sdui__buffer_data(const sdui_buffer *b, size_t *len)
{
    assert(b);
    if (len)
        *len = b->len;
    return b->bytes;
}
