/*
 * json_doc.h - any JSON document read into a value tree, for the host's
 * JSON that is not a design token: a key set, a signed token's header, an
 * error answer, scenario data.  The tree is the core's one value tree,
 * read with the sdui_value_* accessors of value.h.
 *
 * Unlike a token, a document may hold any value at its top level, and an
 * object that repeats a member name keeps the last one (RFC 8259 leaves it
 * open; RFC 7515 asks this of JWS headers).  NULL handles follow the rule
 * of sdui.h.
 *
 * A document can also be built value by value, without text
 * (json_build.h): the same tree under the same rules.
 */
#ifndef SDUI_JSON_DOC_H
#define SDUI_JSON_DOC_H

#include <stddef.h>
#include "error.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_json_doc sdui_json_doc;

/*
 * Validates text[0, len) (as sdui_json_validate, with max_depth) and reads
 * it into a tree.  On SDUI_OK *out is new (release with sdui_json_doc_free).
 * Errors: SDUI_JSON (offset and line:column of the first fault; also for
 * valid JSON the tree cannot hold: an integer outside the 64-bit range, a
 * number past a double's range such as 1e400, a NUL in a member name,
 * nesting past the tree's own bound of 2048 levels whatever max_depth),
 * SDUI_LIMIT (nesting past max_depth), SDUI_OOM,
 * SDUI_ARGUMENT (text NULL with len > 0, or out NULL).  Thread-safe.
 */
sdui_status sdui_json_doc_parse(const char *text, size_t len,
                                unsigned max_depth, sdui_json_doc **out,
                                sdui_error *err);

/* The top-level value (borrowed, valid until the document is freed). */
const sdui_value *sdui_json_doc_root(const sdui_json_doc *doc);

/* Frees the document and every value borrowed from it.  NULL is a no-op. */
void sdui_json_doc_free(sdui_json_doc *doc);

#ifdef __cplusplus
}
#endif
#endif
