/*
 * token_make.h - making a token from a span of JSON text (token.c), not
 * public.  Used by sdui_token_parse and by a pack's lookup: the pack hands
 * a span of its buffer; the token borrows the bytes and holds the buffer,
 * knowing nothing of the pack.
 */
#ifndef SDUI_TOKEN_MAKE_H
#define SDUI_TOKEN_MAKE_H

#include <stddef.h>

#include "buffer.h"
#include "sdui/error.h"
#include "sdui/limits.h"
#include "sdui/token.h"

/* Where a token's JSON text is, who keeps it alive, and where errors point. */
typedef struct sdui_span {
    const char *bytes;   /* the token's JSON text, bytes[0, len)            */
    size_t len;
    sdui_buffer *owner;  /* NULL: the token copies the bytes; else they lie
                          * in owner, the token borrows them and holds a
                          * reference to owner                            */
    size_t base_offset;  /* offset of bytes in doc                          */
    const char *doc;     /* the enclosing document error offsets and
                          * line:column refer to (a pack's JSON), or NULL
                          * when that is bytes itself                      */
    size_t doc_len;
} sdui_span;

/*
 * Builds span's value tree (value.c) and checks it against the token schema
 * (token.h).  The text must already have passed the JSON scan (grammar,
 * UTF-8, depth); text over limits->max_token_bytes is refused.  limits may
 * be NULL for the defaults.  On SDUI_OK *out is a new reference; on error
 * *out is NULL and err (may be NULL) says why, at offsets in doc.
 * Thread-safe.
 */
sdui_status sdui__token_make(const sdui_span *span, const sdui_limits *limits,
                             sdui_token **out, sdui_error *err);

#endif
