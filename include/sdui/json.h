/*
 * json.h - a validating JSON scan that builds no DOM.
 *
 * Checks a whole document against the RFC 8259 grammar, UTF-8 validity
 * (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF), escape
 * validity (a \u escape of a surrogate must form a pair) and a nesting limit.
 */
#ifndef SDUI_JSON_H
#define SDUI_JSON_H

#include <stddef.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Validates text[0, len).  Any JSON value is accepted at the top level.
 * Returns SDUI_OK, SDUI_JSON (with offset and line:column of the first
 * error) or SDUI_LIMIT (nesting deeper than max_depth, counted from the
 * root: a scalar is level 0, the root container level 1; see limits.h).
 * Allocates nothing unless the text nests more than 4095 levels, which
 * needs max_depth and len over that too (then one bit per level read, so
 * SDUI_OOM is possible).  Thread-safe.
 */
sdui_status sdui_json_validate(const char *text, size_t len,
                               unsigned max_depth, sdui_error *err);

/* sdui_json_position (line:column of a byte offset) is declared in
 * error.h, which this header includes: error records carry positions. */

/*
 * Copies valid JSON text[0, len) to out without the white space between
 * tokens (string contents are kept byte for byte).  out must hold len bytes;
 * *out_len receives the new length.  Validates first: returns the error of
 * sdui_json_validate for bad input (out is then unspecified).  Thread-safe.
 */
sdui_status sdui_json_minify(const char *text, size_t len, unsigned max_depth,
                             char *out, size_t *out_len, sdui_error *err);

/*
 * Validates text[0, len) (as sdui_json_validate) and, when it is an array,
 * stores the byte range [starts[i], ends[i]) of each element, up to cap of
 * them; *count receives the element count, which may exceed cap.  Depth is
 * counted from each element (the array itself is an envelope and does not
 * count, limits.h), so an element that validates alone at max_depth is
 * accepted; one nested deeper fails the whole text with SDUI_LIMIT.  A
 * document that is not an array is SDUI_SCHEMA (after grammar errors).
 * Allocates nothing unless the text nests more than 4095 levels (then one
 * bit per level).  Thread-safe.  Used to keep
 * the exact bytes of each token in a registry's answer, so their ETags can
 * be computed.  sdui_json_array_elements below fails only the bad element.
 */
sdui_status sdui_json_array_split(const char *text, size_t len,
                                  unsigned max_depth, size_t *starts,
                                  size_t *ends, size_t cap, size_t *count,
                                  sdui_error *err);

/* One element of an array, as sdui_json_array_elements reports it. */
typedef struct sdui_json_element {
    size_t start, end;  /* the element's exact bytes, text[start, end)     */
    sdui_status status; /* SDUI_OK, or SDUI_LIMIT: nested deeper than
                         * max_depth counted from the element itself, or
                         * longer than max_element_bytes                  */
    size_t fault;       /* SDUI_LIMIT: byte offset in text of the bracket
                         * that opened one level too many, or start when
                         * only the size is over; SDUI_OK: start           */
} sdui_json_element;

/*
 * Splits a batch answer (a JSON array whose elements are checked one by
 * one, as tokens are) so that a bad element fails alone.  Validates the
 * whole of text[0, len) and stores elements[i] for each element of the
 * root array, up to cap of them; *count receives the element count, which
 * may exceed cap.  An element nested deeper than max_depth (counted from
 * the element: an object element is level 1) or longer than
 * max_element_bytes (SIZE_MAX: no size limit) gets status SDUI_LIMIT and
 * its neighbours are kept.  The whole call fails only when the elements
 * cannot be found reliably: SDUI_JSON for a grammar, UTF-8 or escape error
 * anywhere (offset and line:column of the first), SDUI_SCHEMA when the
 * document is not an array, SDUI_OOM, SDUI_ARGUMENT.  On failure *count is
 * 0.  Bounded for hostile input: one pass, no recursion, memory one bit
 * per level of nesting beyond 4096 (so at most len / 8 bytes).
 * Thread-safe; elements are the caller's.
 */
sdui_status sdui_json_array_elements(const char *text, size_t len,
                                     unsigned max_depth,
                                     size_t max_element_bytes,
                                     sdui_json_element *elements, size_t cap,
                                     size_t *count, sdui_error *err);

#ifdef __cplusplus
}
#endif
#endif
