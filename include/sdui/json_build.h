/*
 * json_build.h - builds the core's value tree (an sdui_json_doc, read with
 * value.h's sdui_value_* accessors) one value at a time, so a host that
 * already holds a JSON value (a Swift dictionary, a decoded answer) hands
 * it to the core without writing it as text for the core to parse again.
 *
 * A build is a sequence of calls, as a JSON text is a sequence of tokens:
 *
 *     sdui_json_builder_begin_object(b);
 *     sdui_json_builder_key(b, "items", 5);
 *     sdui_json_builder_begin_array(b);
 *     sdui_json_builder_int(b, 4);
 *     sdui_json_builder_real(b, 3.5);
 *     sdui_json_builder_end_array(b);
 *     sdui_json_builder_end_object(b);
 *     sdui_json_builder_finish(b, &doc, &err);   // {"items":[4,3.5]}
 *
 * Each value call (null, bool, int, real, string, begin_array,
 * begin_object) appends one value: to the innermost open array, or to the
 * innermost open object as the member named by the sdui_json_builder_key
 * call just before it, or, when nothing is open, as the document's one
 * top-level value.  The tree follows the rules of sdui_json_doc_parse:
 * strings and member names are UTF-8 (RFC 3629), a string may hold NUL
 * bytes but a member name may not, integers and decimals stay apart (4 is
 * not 4.0), and a repeated member name keeps its last value in the place
 * of its first.  Depth is counted as limits.h counts it: a scalar is level
 * 0, the top-level container level 1; SDUI_JSON_BUILD_MAX_DEPTH is the
 * deepest level a builder allows.
 *
 * Errors are sticky.  The value and key calls take no sdui_error: the
 * first one that fails (misuse, a string that is not UTF-8, a decimal that
 * is not finite, nesting too deep, memory) keeps its status and details in
 * the builder, that call and every later one return its status and do
 * nothing, and sdui_json_builder_finish reports it in full; the message
 * names the call, its number in the build (1 for the first call after the
 * builder was opened or last finished) and the depth it was made at.
 *
 * Statuses: SDUI_ARGUMENT for misuse (a key outside an object or after
 * another key, a value in an object without its key, a second top-level
 * value, an end that does not match what is open, invalid UTF-8, NUL in a
 * member name, a decimal that is not finite, and at finish: containers
 * still open, a key without its value, nothing built) and for a NULL
 * builder; SDUI_LIMIT for nesting past SDUI_JSON_BUILD_MAX_DEPTH; SDUI_OOM.
 *
 * Ownership: the builder belongs to its caller, who frees it with
 * sdui_json_builder_free; what finish hands over belongs to the caller
 * too and outlives the builder.  The builder copies every string and name
 * it is given, so the caller's buffers may change as soon as a call
 * returns.  All memory comes from the allocator hook (alloc.h).
 *
 * Threads: a builder is used by one thread at a time (calls on one
 * builder are not synchronised); different builders may be used on
 * different threads at once.
 *
 * NULL handles follow the rule of sdui.h: open and finish answer
 * SDUI_ARGUMENT with a message naming the NULL argument; the value and key
 * calls, which take no sdui_error, answer SDUI_ARGUMENT for a NULL
 * builder and do nothing else; sdui_json_builder_free(NULL) is a no-op.
 */
#ifndef SDUI_JSON_BUILD_H
#define SDUI_JSON_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "json_doc.h"
#include "limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest nesting a builder allows: the core's default JSON depth. */
#define SDUI_JSON_BUILD_MAX_DEPTH SDUI_DEFAULT_MAX_DEPTH

typedef struct sdui_json_builder sdui_json_builder;

/*
 * A new, empty builder.  On SDUI_OK *out is new (free it with
 * sdui_json_builder_free).  Errors: SDUI_OOM, SDUI_ARGUMENT (out NULL).
 * Thread-safe.
 */
sdui_status sdui_json_builder_open(sdui_json_builder **out, sdui_error *err);

/* Frees the builder and whatever it holds unfinished.  NULL is a no-op. */
void sdui_json_builder_free(sdui_json_builder *b);

/* Append null, a boolean (v non-zero: true), a 64-bit integer, a decimal
 * (SDUI_ARGUMENT if v is not finite).  See the top of this file for where
 * the value goes and for errors. */
sdui_status sdui_json_builder_null(sdui_json_builder *b);
sdui_status sdui_json_builder_bool(sdui_json_builder *b, int v);
sdui_status sdui_json_builder_int(sdui_json_builder *b, int64_t v);
sdui_status sdui_json_builder_real(sdui_json_builder *b, double v);

/* Appends the string s[0, len) (copied): valid UTF-8, NUL bytes allowed.
 * s may be NULL when len is 0. */
sdui_status sdui_json_builder_string(sdui_json_builder *b, const char *s,
                                     size_t len);

/* Opens an array (it is the value appended) or closes the innermost open
 * container, which must be an array. */
sdui_status sdui_json_builder_begin_array(sdui_json_builder *b);
sdui_status sdui_json_builder_end_array(sdui_json_builder *b);

/* Opens an object (it is the value appended) or closes the innermost open
 * container, which must be an object whose last key has its value. */
sdui_status sdui_json_builder_begin_object(sdui_json_builder *b);
sdui_status sdui_json_builder_end_object(sdui_json_builder *b);

/*
 * Names the next value of the innermost open object: k[0, len) (copied),
 * valid UTF-8 without NUL bytes; k may be NULL when len is 0.  A name the
 * object already has keeps its place and takes the new value, as
 * sdui_json_doc_parse keeps the last of repeated names.
 */
sdui_status sdui_json_builder_key(sdui_json_builder *b, const char *k,
                                  size_t len);

/*
 * Hands over the finished document: on SDUI_OK *out is new (release with
 * sdui_json_doc_free) and holds the one top-level value built.  Whatever
 * it answers, the builder is empty afterwards and may build the next
 * document (a sticky error is cleared once reported).  Errors: the sticky
 * error of an earlier call, or SDUI_ARGUMENT when containers are still
 * open, a key has no value or nothing was built, or SDUI_OOM; *out is
 * NULL then.  b or out NULL: SDUI_ARGUMENT, the builder is unchanged (the
 * build goes on) and *out, if out is not NULL, is left as it was.
 */
sdui_status sdui_json_builder_finish(sdui_json_builder *b, sdui_json_doc **out,
                                     sdui_error *err);

#ifdef __cplusplus
}
#endif
#endif
