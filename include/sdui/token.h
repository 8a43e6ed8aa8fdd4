/*
 * token.h - design tokens: parsing, the schema check, the fields.
 *
 * A token is immutable and reference-counted; every function here may be
 * called from many threads at once on the same token.  Its content is a
 * value tree (value.h), reached through sdui_value handles, which are
 * borrowed: valid as long as the token they came from is alive.
 *
 * NULL handles follow the rule of sdui.h; a NULL sdui_value is "absent".
 *
 * Schema (schemas/design-token.json): an object with a non-empty string
 * "id", an integer "version" >= 1, a non-empty string "primitive", an integer
 * "primitiveVersion" >= 1 and a "props" object.  props.children, when present,
 * is an array of nodes: objects with a non-empty string "primitive", an
 * optional integer "primitiveVersion" >= 1 (default 1) and a "props" object,
 * checked the same way at every depth.  Any primitive name is accepted here;
 * unknown primitives are the renderer's business.
 */
#ifndef SDUI_TOKEN_H
#define SDUI_TOKEN_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "limits.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_token sdui_token;

/*
 * Parses and schema-checks one token from json[0, len) (copied).  limits may
 * be NULL for the defaults; JSON over limits->max_token_bytes is refused
 * before it is parsed, and JSON nested deeper than limits->max_depth
 * (counted from the token object, level 1: the same count a pack and a
 * batch answer use, limits.h) is SDUI_LIMIT.  Valid JSON a token cannot
 * take is reported for what it is, with the offset and line:column of the
 * place: a duplicate object key or a key holding \u0000 is SDUI_SCHEMA
 * (refused on purpose), a number out of range (an integer beyond 64 bits,
 * a decimal that overflows to infinity) is SDUI_LIMIT; invalid JSON is
 * SDUI_JSON.  On SDUI_OK *out is a new reference (release with
 * sdui_token_release).  Thread-safe.
 */
sdui_status sdui_token_parse(const char *json, size_t len,
                             const sdui_limits *limits,
                             sdui_token **out, sdui_error *err);

/* Adds a reference and returns tok.  NULL-safe.  Thread-safe. */
sdui_token *sdui_token_retain(sdui_token *tok);

/* Drops a reference; the last one frees the token.  NULL is a no-op. */
void sdui_token_release(sdui_token *tok);

/*
 * Attaches host data to a token, once: a language binding keeps what it
 * derives from an immutable token (converted props, a compiled plan) with
 * the token itself, so every handle to it shares the work.  If nothing was
 * attached, data is attached and returned, and free_fn(data) runs when the
 * token's last reference is released.  If something already was, that is
 * returned and data is not taken (the caller frees it).  data must not be
 * NULL.  Thread-safe: concurrent callers agree on one winner.
 */
void *sdui_token_attach(sdui_token *tok, void *data, void (*free_fn)(void *));

/* The data attached to tok (borrowed, valid while tok is alive), or NULL.
 * Thread-safe. */
void *sdui_token_attached(const sdui_token *tok);

/* Borrowed strings, valid while tok is alive; *len may be NULL. */
const char *sdui_token_id(const sdui_token *tok, size_t *len);
const char *sdui_token_primitive(const sdui_token *tok, size_t *len);
int64_t sdui_token_version(const sdui_token *tok);
int64_t sdui_token_primitive_version(const sdui_token *tok);

/* The token's exact JSON text (borrowed, valid while tok is alive). */
const char *sdui_token_json(const sdui_token *tok, size_t *len);

/* The props object (borrowed, valid while tok is alive).  Never NULL. */
const sdui_value *sdui_token_props(const sdui_token *tok);

/* The whole token object (borrowed, valid while tok is alive). */
const sdui_value *sdui_token_root(const sdui_token *tok);

#ifdef __cplusplus
}
#endif
#endif
