/*
 * expr.h - the expression language of the SDUIKit core (docs/expressions.md):
 * a small, strictly typed language over scenario data, parsed once into an
 * immutable program and evaluated many times against a lookup callback.
 *
 * Data is the core's one value tree (value.h's sdui_value, e.g. the root of
 * an sdui_json_doc); the lookup callback maps a root name (`cart` in
 * `cart.total`) to such a tree, owned by the caller, and the evaluator walks
 * members, indices, quoted keys and wildcards itself.  A path to nothing is
 * null.
 *
 * Memory.  Compiling allocates the program (its nodes, string constants,
 * a copy of the source, the list of paths); nothing in it changes after
 * sdui_expr_compile returns, until sdui_expr_free releases it.  An
 * evaluation only reads the program, and allocates at most two things:
 *   - its working memory: an arena of its own, whose first block (2 KiB)
 *     is on the evaluating call's stack and which gains a block from the
 *     allocator (twice the size of the last) only when a value needs more
 *     room, at most SDUI_EXPR_MAX_ARENA bytes in all (past that:
 *     SDUI_LIMIT).  Every
 *     intermediate value (joined strings, array literals, wildcard
 *     results, a matches() pattern, string()'s text) lives there; an
 *     operation calls the allocator for nothing else.  The arena is freed
 *     before the call returns, whatever it returns.
 *   - the result: a new sdui_json_doc (sdui_expr_eval; built directly as
 *     a tree by a builder that is freed before the call returns) or a new
 *     text (sdui_expr_eval_json).  It belongs to the caller, who frees it
 *     (sdui_json_doc_free, sdui_free).  It is a copy: it borrows nothing
 *     from the program, the lookup's trees or ctx, which may all be freed
 *     as soon as the call returns.  On an error nothing is handed over and
 *     nothing stays allocated.  sdui_expr_eval_bool has no result to
 *     allocate: a condition that stays in the first block allocates
 *     nothing at all.
 * Everything goes through the allocator hook (alloc.h).
 *
 * Threads.  Compiling is thread-safe.  One program may be evaluated from
 * many threads at once: the program is only read, each evaluation has its
 * own arena and result, and the evaluator keeps no state between calls.
 * The lookup callback runs on the evaluating thread, so a callback and ctx
 * shared by evaluations on several threads must bear being called from
 * them at once; the trees it returns are only read (never changed, never
 * kept past the call).  Free a program only when no thread evaluates it.
 * All of this assumes the installed allocator is thread-safe (alloc.h).
 *
 * Errors: SDUI_EXPR_PARSE (with the byte offset in the source),
 * SDUI_EXPR_TYPE, SDUI_EXPR_OVERFLOW (64-bit integer overflow, a decimal
 * that is not finite), SDUI_EXPR_DIVISION (by zero), SDUI_EXPR_VALUE (a
 * text number() or int() cannot read, a bad regex or digit count),
 * SDUI_LIMIT (a limit below), SDUI_OOM, SDUI_ARGUMENT (NULL arguments).
 * Evaluation messages name the failing sub-expression and its byte offset
 * (also in sdui_error.offset, line:column in line/column).
 *
 * NULL handles follow the rule of sdui.h: compile and the evaluations
 * answer SDUI_ARGUMENT (the message names the argument) for a NULL
 * program, source of some bytes or out-pointer, and leave the out-pointer
 * as it was; sdui_expr_path_count, sdui_expr_path and sdui_expr_source
 * assert prog; sdui_expr_free(NULL) is a no-op.
 */
#ifndef SDUI_EXPR_H
#define SDUI_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "json_doc.h"
#include "value.h"

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
#define SDUI_EXPR_STEP_BYTES 8         /* bytes of string work in one step */
#define SDUI_EXPR_MAX_PATTERN 1024     /* bytes of a matches() pattern */
#define SDUI_EXPR_MAX_REPEAT 1000      /* m and n of a counted repetition */
#define SDUI_EXPR_MAX_PROGRAM 4096     /* instructions of a compiled pattern */

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
 * sdui_expr_free).  Errors (*out NULL): SDUI_EXPR_PARSE (offset of the
 * fault; unknown function names and wrong argument counts are parse
 * errors; also the empty source), SDUI_LIMIT (source length, nesting,
 * tree depth), SDUI_OOM; SDUI_ARGUMENT (out NULL, or src NULL with len >
 * 0; src may be NULL when len is 0).  Thread-safe.
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
 * with sdui_json_doc_free); the caller owns it, and it outlives the
 * program and the lookup's trees.  Errors as the top of this file says;
 * *result is NULL then, except for SDUI_ARGUMENT (prog or result NULL),
 * which leaves it as it was.  Memory and threads: the top of this file
 * (one program may be evaluated from many threads at once).
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
 * NULL), owned by the caller and released with sdui_free.  On an error
 * *json is NULL and *len unchanged, except for SDUI_ARGUMENT (prog or json
 * NULL), which leaves *json as it was.  Memory and threads as
 * sdui_expr_eval.
 */
sdui_status sdui_expr_eval_json(const sdui_expr *prog, sdui_expr_lookup lookup,
                                void *ctx, char **json, size_t *len,
                                sdui_error *err);

/*
 * Evaluates prog with its roots given by slot: roots[k] is the value of
 * the root name sdui_expr_root(prog, k) (NULL, or k >= n_roots: absent,
 * so null).  The compiler numbered the names, so a root costs an array
 * read instead of a lookup call per appearance; roots may be NULL when
 * n_roots is 0 (every root absent).  The trees are the caller's, only
 * read, and kept alive during the call.  Otherwise as sdui_expr_eval: on
 * SDUI_OK *result is a new document the caller owns (sdui_json_doc_free).
 * SDUI_ARGUMENT for a NULL prog or result, or NULL roots with n_roots > 0
 * (the out-pointer left as it was).  Thread-safe as sdui_expr_eval.
 */
sdui_status sdui_expr_eval_roots(const sdui_expr *prog, const sdui_value *const *roots,
                                 size_t n_roots, sdui_json_doc **result,
                                 sdui_error *err);

/*
 * Evaluates a condition: prog with its roots by slot (as
 * sdui_expr_eval_roots), to a boolean in *truth (1 true, 0 false).  No
 * result is built and, unless a value outgrows the stack block, nothing
 * is allocated: the entry point for `visible`, a transition's `when` and
 * every other test run again and again.  A value that is not a boolean
 * is SDUI_EXPR_TYPE ("a condition gave a string, not a boolean"), naming
 * the whole expression; *truth is written only on SDUI_OK.  Other errors
 * as sdui_expr_eval_roots.  Thread-safe as sdui_expr_eval.
 */
sdui_status sdui_expr_eval_bool(const sdui_expr *prog, const sdui_value *const *roots,
                                size_t n_roots, int *truth, sdui_error *err);

/*
 * The distinct root names the program reads (`cart` of `cart.total`), in
 * the order they first appear in the source: slot k of
 * sdui_expr_eval_roots and sdui_expr_eval_bool is name k.
 * sdui_expr_root returns a NUL-terminated name borrowed from the program
 * (NULL when i is out of range); *len may be NULL.  prog must not be NULL
 * (asserted).  Thread-safe.
 */
size_t sdui_expr_root_count(const sdui_expr *prog);
const char *sdui_expr_root(const sdui_expr *prog, size_t i, size_t *len);

/*
 * The paths the program reads, for dependency tracking: each in the
 * canonical form `a.b`, `a[0]`, `a['first name']`, `a[*].b`; a path whose
 * index is computed stops before that index (and the index's own paths are
 * listed too).  Deduplicated, in source order.  sdui_expr_path returns a
 * NUL-terminated string borrowed from the program (NULL when i is out of
 * range); *len may be NULL.  prog must not be NULL (asserted).
 * Thread-safe.
 */
size_t sdui_expr_path_count(const sdui_expr *prog);
const char *sdui_expr_path(const sdui_expr *prog, size_t i, size_t *len);

/* The program's source text (borrowed from the program, NUL-terminated)
 * and its length (*len may be NULL).  prog must not be NULL (asserted).
 * Thread-safe. */
const char *sdui_expr_source(const sdui_expr *prog, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
