/*
 * pack.h - the Core-Token Pack: a gzipped JSON document of design tokens.
 *
 *   { "formatVersion": 1, "tokens": [ { "id": "...", ... }, ... ] }
 *
 * Opening inflates the pack once (bounded by the limits), validates the whole
 * document without building a DOM, and records every token's byte range and
 * id in a hash index.  It is rejected if it is not valid JSON, not an object
 * with a "tokens" array, has a "formatVersion" other than 1, or holds a token
 * that is not an object with a non-empty string "id", a duplicate id, or a
 * token over the size or depth limit.  Depth is counted from each token
 * (limits.h): the root object and the "tokens" array do not count, so a
 * token that sdui_token_parse accepts alone is accepted here under the same
 * limits.  Unknown top-level keys are ignored (their values count depth
 * from themselves), but their byte ranges are kept (sdui_pack_member).
 *
 * A token is parsed and schema-checked when first asked for, then kept.  A
 * pack is immutable after open: every function here is thread-safe.  NULL
 * handles follow the rule of sdui.h.
 */
#ifndef SDUI_PACK_H
#define SDUI_PACK_H

#include <stddef.h>
#include "error.h"
#include "limits.h"
#include "token.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_pack sdui_pack;

typedef struct sdui_pack_info {
    size_t tokens;           /* number of tokens                       */
    size_t compressed_bytes; /* size of the gzip input                 */
    size_t raw_bytes;        /* size of the inflated JSON              */
    unsigned members;        /* gzip members                           */
} sdui_pack_info;

/*
 * Opens a pack from a file.  limits may be NULL for the defaults.  On SDUI_OK
 * *out is new (release with sdui_pack_free).  Errors: SDUI_IO (message names
 * the path), SDUI_GZIP, SDUI_JSON, SDUI_SCHEMA, SDUI_LIMIT, SDUI_OOM.
 */
sdui_status sdui_pack_open_file(const char *path, const sdui_limits *limits,
                                sdui_pack **out, sdui_error *err);

/* Opens a pack from gzip bytes in memory (not retained after the call). */
sdui_status sdui_pack_open_memory(const void *data, size_t len,
                                  const sdui_limits *limits,
                                  sdui_pack **out, sdui_error *err);

/*
 * Releases the caller's reference.  Tokens taken from the pack stay valid:
 * each holds the pack's data alive until it is released.  NULL is a no-op.
 */
void sdui_pack_free(sdui_pack *pack);

/* Counts and sizes.  Thread-safe. */
void sdui_pack_get_info(const sdui_pack *pack, sdui_pack_info *out);

/* Number of tokens. */
size_t sdui_pack_count(const sdui_pack *pack);

/* Id of the i-th token in pack order (borrowed, valid while the pack is
 * alive; not NUL-terminated in general: use *len).  NULL when i >= count. */
const char *sdui_pack_id_at(const sdui_pack *pack, size_t i, size_t *len);

/* 1 if the pack holds id, else 0.  Does not parse the token. */
int sdui_pack_contains(const sdui_pack *pack, const char *id, size_t len);

/*
 * Looks up a token by id, parsing and schema-checking it on first use.
 * On SDUI_OK *out is a new reference (release with sdui_token_release).
 * SDUI_NOT_FOUND when the pack has no such id; SDUI_SCHEMA / SDUI_LIMIT /
 * SDUI_OOM when the token is bad, exactly as sdui_token_parse reports it
 * alone (duplicate keys and NUL in keys are SDUI_SCHEMA, numbers out of
 * range SDUI_LIMIT), with offsets and line:column in the pack's JSON.
 */
sdui_status sdui_pack_get(const sdui_pack *pack, const char *id, size_t len,
                          sdui_token **out, sdui_error *err);

/* The whole inflated JSON (borrowed, valid while the pack is alive). */
const char *sdui_pack_json(const sdui_pack *pack, size_t *len);

/*
 * The exact JSON bytes of the root member called name, without parsing
 * them or any token: e.g. a pack's "screens".  name is NUL-terminated and
 * matched against the key as decoded (a key written with escapes matches
 * its text).  On SDUI_OK *out points into the pack's JSON at the member's
 * value, from its first byte to its last (*len bytes, not NUL-terminated);
 * it is borrowed: valid while the pack is alive, like sdui_pack_json.
 * The value passed the pack's validation (grammar, UTF-8, nesting counted
 * from itself) but no schema of its own.  "formatVersion" and "tokens" are
 * members too.  Errors: SDUI_NOT_FOUND when the root has no such member,
 * SDUI_SCHEMA when it has two (at the second key), SDUI_ARGUMENT for a
 * NULL argument, SDUI_OOM.  The byte ranges are recorded while the pack
 * is opened, so this costs no scan.  Thread-safe.
 */
sdui_status sdui_pack_member(const sdui_pack *pack, const char *name,
                             const char **out, size_t *len, sdui_error *err);

#ifdef __cplusplus
}
#endif
#endif
