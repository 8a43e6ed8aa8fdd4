/*
 * expr.h - the expression language of the SDUIKit core (docs/expressions.md):
 * a small, strictly typed language over scenario data, parsed once into an
 * immutable program and evaluated many times against a lookup callback.
 *
 * Data is the core's one value tree (token.h's sdui_value, e.g. the root of
 * an sdui_json_doc); the lookup callback maps a root name (`cart` in
 * `cart.total`) to such a tree, owned by the caller, and the evaluator walks
 * members, indices, quoted keys and wildcards itself.  A path to nothing is
 * null.
 *
 * Memory: compiling allocates the program; one evaluation allocates one
 * arena (sized from the program, grown only when a value needs more) for
 * every intermediate value, freed before the call returns, plus the result
 * the caller receives.  No allocation per operation.  Everything goes
 * through the allocator hook (alloc.h).
 *
 * Errors: SDUI_EXPR_PARSE (with the byte offset in the source),
 * SDUI_EXPR_TYPE, SDUI_EXPR_OVERFLOW (64-bit integer overflow, a decimal
 * that is not finite), SDUI_EXPR_DIVISION (by zero), SDUI_EXPR_VALUE (a
 * text number() or int() cannot read, a bad regex or digit count),
 * SDUI_LIMIT (a limit below), SDUI_OOM, SDUI_ARGUMENT (NULL arguments).
 * Evaluation messages name the failing sub-expression and its byte offset
 * (also in sdui_error.offset, line:column in line/column).
 */
#ifndef SDUI_EXPR_H
#define SDUI_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "json_doc.h"
#include "token.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits (docs/expressions.md, "Limits"). */
#define SDUI_EXPR_MAX_SOURCE 4096      /* bytes of source text */
#define SDUI_EXPR_MAX_NESTING 64       /* nested ( [ calls, unary ops, ?: ?? */
#define SDUI_EXPR_MAX_DEPTH 256        /* depth of the expression tree */
#define SDUI_EXPR_MAX_STEPS 1000000    /* work units per evaluation */
#define SDUI_EXPR_MAX_STRING 65536     /* bytes of any string or result text */
#define SDUI_EXPR_MAX_ITEMS 65536      /* items of any array value */
#define SDUI_EXPR_MAX_ARENA (32u << 20) /* bytes of one evaluation's arena */

typedef struct sdui_expr sdui_expr;

/*
 * Resolves a root name (NUL-terminated, len bytes) to a value tree the
 * caller owns and keeps alive during the evaluation, or NULL for "absent"
 * (the path is then null).  Called from the evaluating thread, possibly
 * several times per evaluation.
 */
typedef const sdui_value *(*sdui_expr_lookup)(void *ctx, const char *name,
                                              size_t len);

/*
 * Parses src[0, len) into a program.  On SDUI_OK *out is new (release with
 * sdui_expr_free).  Errors: SDUI_EXPR_PARSE (offset of the fault; unknown
 * function names and wrong argument counts are parse errors), SDUI_LIMIT
 * (source length, nesting, tree depth), SDUI_OOM, SDUI_ARGUMENT.
 * Thread-safe.
 */
sdui_status sdui_expr_compile(const char *src, size_t len, sdui_expr **out,
                              sdui_error *err);

/* Frees a program.  NULL is a no-op.  Not while another thread evaluates
 * it. */
void sdui_expr_free(sdui_expr *prog);

/*
 * Evaluates prog against lookup(ctx, ...) (lookup may be NULL: every root
 * is absent).  On SDUI_OK *result is a new document holding the value
 * (read it with sdui_json_doc_root and the sdui_value_* accessors; release
 * with sdui_json_doc_free); the caller owns it.  Errors as the top of this
 * file says; *result is NULL then.  Thread-safe: one program may be
 * evaluated from many threads at once (it is read-only here).
 */
sdui_status sdui_expr_eval(const sdui_expr *prog, sdui_expr_lookup lookup,
                           void *ctx, sdui_json_doc **result,
                           sdui_error *err);

/*
 * Evaluates as sdui_expr_eval and renders the value as JSON text: integers
 * as digits without a decimal point, decimals in the shortest form that
 * reads back to the same double (always with a '.' or an exponent),
 * strings with JSON escapes, object members in their document order.
 * On SDUI_OK *json is a new NUL-terminated text of *len bytes (len may be
 * NULL), released with sdui_free.  Thread-safe as sdui_expr_eval.
 */
sdui_status sdui_expr_eval_json(const sdui_expr *prog, sdui_expr_lookup lookup,
                                void *ctx, char **json, size_t *len,
                                sdui_error *err);

/*
 * The paths the program reads, for dependency tracking: each in the
 * canonical form `a.b`, `a[0]`, `a['first name']`, `a[*].b`; a path whose
 * index is computed stops before that index (and the index's own paths are
 * listed too).  Deduplicated, in source order.  sdui_expr_path returns a
 * NUL-terminated string borrowed from the program (NULL when i is out of
 * range); *len may be NULL.  Thread-safe.
 */
size_t sdui_expr_path_count(const sdui_expr *prog);
const char *sdui_expr_path(const sdui_expr *prog, size_t i, size_t *len);

/* The program's source text (borrowed, NUL-terminated) and its length. */
const char *sdui_expr_source(const sdui_expr *prog, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
