/*
 * buffer.h - a reference-counted byte buffer (buffer.c), not public.
 *
 * Bytes that several holders share and that are freed when the last one
 * lets go: a pack's inflated JSON is one, and each token taken from the
 * pack borrows its text from it without knowing what a pack is.  A buffer
 * never changes after it is made, so its bytes may be read from many
 * threads; the reference count is atomic.
 */
#ifndef SDUI_BUFFER_H
#define SDUI_BUFFER_H

#include <stddef.h>

typedef struct sdui_buffer sdui_buffer;

/*
 * Wraps bytes[0, len) in a new buffer holding one reference.  The bytes
 * must come from sdui_malloc and are taken over: the last release frees
 * them with sdui_free.  Returns NULL when memory runs out; the bytes are
 * then still the caller's.  bytes may be NULL only when len is 0.
 */
sdui_buffer *sdui__buffer_adopt(char *bytes, size_t len);

/* Adds a reference and returns b.  b must not be NULL.  Thread-safe. */
sdui_buffer *sdui__buffer_retain(sdui_buffer *b);

/* Drops a reference; the last one frees the bytes and the buffer.  NULL is
 * a no-op.  Thread-safe. */
void sdui__buffer_release(sdui_buffer *b);

/* The bytes (borrowed, valid while a reference is held) and, when len is
 * not NULL, their count.  b must not be NULL.  Thread-safe. */
const char *sdui__buffer_data(const sdui_buffer *b, size_t *len);

#endif
