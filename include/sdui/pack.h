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
 *
 * Seekable packs (sdui_pack_write_seekable) are opened the same way and
 * recognised by their first gzip header.  Opening one hops from header to
 * header, reads the ids of the first and the last member, and inflates and
 * validates those two members (the document's start and end); any other
 * member is inflated, validated and checked against its header's table the
 * first time one of its tokens (or sdui_pack_json) needs it, once, whichever
 * thread asks.  So the cost of an open does not grow with the pack, and
 * errors inside a member (bad JSON, a table that lies, a corrupt member)
 * are reported by the call that needs the member, naming it ("gzip member
 * N"), with offsets in the document and line:column counted from the
 * member's first byte; a member that failed keeps failing the same way,
 * the others keep working.  Opened from a file, a seekable pack keeps the
 * file open (one descriptor) and reads members from it when needed:
 * replacing the file by rename is safe; cutting it short or rewriting it in
 * place makes the members not yet read fail (SDUI_IO, SDUI_GZIP).  Opened
 * from memory, it keeps a copy of the gzip bytes.
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
    int seekable;            /* 1: a seekable pack (members on demand) */
    unsigned members_inflated; /* members inflated so far (all of them
                              * for a plain pack)                      */
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
 * alive; not NUL-terminated in general: use *len).  NULL when i >= count,
 * or when the table of a seekable pack's member that lists it cannot be
 * read.  A seekable pack's order is its members' order, and within a
 * member its table's (by bytes). */
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

/* The whole inflated JSON (borrowed, valid while the pack is alive).  A
 * seekable pack inflates every member first; NULL (and *len 0) when one
 * of them cannot be read. */
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
 * is opened, so this costs no scan.  In a seekable pack, a value that
 * spans gzip members ("tokens" spans them all) inflates those members
 * first, and fails with the error of one that cannot be read.
 * Thread-safe.
 */
sdui_status sdui_pack_member(const sdui_pack *pack, const char *name,
                             const char **out, size_t *len, sdui_error *err);

/* Options of sdui_pack_write_seekable; zero-initialise for the defaults. */
typedef struct sdui_seekable_options {
    size_t member_bytes;     /* JSON bytes the first member aims at (0:
                              * 32 KiB); a member ends at the first token
                              * end past its aim                         */
    size_t max_member_bytes; /* each member aims at four times the one before,
                              * up to this (0: 4 MiB): the first screens'
                              * members stay small, cold tokens compress
                              * in long members (a pack of 600 KB keeps
                              * 97 % of the tokens a plain one holds)    */
    int level;               /* libdeflate level 1-12 (0: 12)            */
} sdui_seekable_options;

/*
 * Writes a plain pack's JSON (json[0, len): a whole pack document, tokens
 * in the order the first screens need them) as a seekable pack: several
 * gzip members cut between tokens, each header carrying an FEXTRA table of
 * its compressed size and ids, the first also the total size and member
 * count.  The last member holds only the last token and what follows the
 * tokens, so an open that reads it stays cheap.  `zcat` of the result
 * prints json byte for byte.  The JSON is
 * validated as sdui_pack_open would (limits may be NULL for the
 * defaults).  On SDUI_OK *out is new (release with sdui_free).  Errors:
 * SDUI_JSON, SDUI_SCHEMA, SDUI_LIMIT (e.g. a token too large for a
 * member's table), SDUI_ARGUMENT, SDUI_OOM.  Thread-safe.
 */
sdui_status sdui_pack_write_seekable(const char *json, size_t len,
                                     const sdui_seekable_options *options,
                                     const sdui_limits *limits,
                                     unsigned char **out, size_t *out_len,
                                     sdui_error *err);

#ifdef __cplusplus
}
#endif
#endif
