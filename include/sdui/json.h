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
 * error) or SDUI_LIMIT (nesting deeper than max_depth).  Allocates nothing
 * unless max_depth >= 4096 (then one bit per level, so SDUI_OOM is
 * possible).  Thread-safe.
 */
sdui_status sdui_json_validate(const char *text, size_t len,
                               unsigned max_depth, sdui_error *err);

/*
 * Computes the 1-based line and column (in Unicode scalar values) of byte
 * offset in text.  Used to turn offsets into positions only when an error is
 * reported.  Thread-safe.
 */
void sdui_json_position(const char *text, size_t len, size_t offset,
                        int *line, int *column);

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
 * them; *count receives the element count, which may exceed cap.  A
 * document that is not an array is SDUI_SCHEMA.  Allocates nothing beyond
 * sdui_json_validate.  Thread-safe.  Used to keep the exact bytes of each
 * token in a registry's answer, so their ETags can be computed.
 */
sdui_status sdui_json_array_split(const char *text, size_t len,
                                  unsigned max_depth, size_t *starts,
                                  size_t *ends, size_t cap, size_t *count,
                                  sdui_error *err);

#ifdef __cplusplus
}
#endif
#endif
