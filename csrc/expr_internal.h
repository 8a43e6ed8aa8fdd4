/*
 * expr_internal.h - what the four files of the expression language share,
 * not public (the API is include/sdui/expr.h, the language
 * docs/expressions.md).  The language is split by job:
 *
 *   expr_parse.c  source text -> program: the lexer, the precedence-climbing
 *                 parser to a flat node array, the paths a program reads,
 *                 and the program's life (compile, free, paths, source);
 *   expr_eval.c   program -> value: the walk of the nodes, the operators,
 *                 the arena, the step count that bounds the work, the
 *                 value helpers below and the result as text or tree;
 *   expr_fn.c     the function table (one row per function: name, argument
 *                 counts, one C function) and every function's body;
 *   expr_regex.c  the engine of matches(): a pattern compiled to a Thompson
 *                 NFA and run as a state-set simulation, every unit counted.
 *
 * Who calls whom (no circle; Tests/C/graph.sh checks it): the parser looks
 * names up in the table (expr_fn.c); a function uses the evaluator's value
 * helpers and, for matches(), the regex engine; the regex engine uses the
 * evaluator's arena and step count.  The evaluator calls a function only
 * through the row pointer the parser stored in the call's node, so it
 * names nothing of expr_fn.c.
 *
 * Names: functions shared between these files are sdui__expr_*; the small
 * hot ones (the step count, value tests) are static inline here so that
 * every file inlines them as the one file did; the others are hidden
 * (not interposable), so a compiler building position-independent code
 * may still inline them inside their own file.  The node, value and binary
 * operator kinds (N_*, V_*, B_*) are the private vocabulary of these four
 * files and used nowhere else.
 *
 * Threads: nothing here has state of its own; a program (sdui_expr) is
 * never written after compile, and an evaluation's state (sdui_xeval)
 * belongs to the one thread running it.
 */
#ifndef SDUI_EXPR_INTERNAL_H
#define SDUI_EXPR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "sdui/expr.h"

#if defined(__GNUC__) || defined(__clang__)
#define SDUI_EXPR_HIDDEN __attribute__((visibility("hidden")))
#else
#define SDUI_EXPR_HIDDEN
#endif

/* ---------- program (expr_parse.c builds it; the others read it) ---------- */

enum node_kind {
    N_NULL, N_BOOL, N_INT, N_REAL, N_STR, N_ARRAY, N_ROOT, N_MEMBER,
    N_INDEX, N_WILD, N_NOT, N_NEG, N_BIN, N_AND, N_OR, N_COALESCE, N_COND,
    N_CALL
};

enum bin_op { B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_IN, B_ADD, B_SUB, B_MUL,
              B_DIV, B_MOD };

struct sdui_xfn;

/* One node of a program. */
typedef struct sdui_xnode {
    uint8_t kind;
    uint8_t op;          /* N_BIN: a bin_op */
    uint32_t off, len;   /* the sub-expression's bytes in the source */
    int32_t a, b, c;     /* children; for N_STR/N_ROOT/N_MEMBER a string
                            (b: pool offset, c: length); N_ROOT: a = its
                            root slot; N_ARRAY/N_CALL: a = first kid
                            index, b = count */
    union {
        int64_t i;
        double d;
        uint64_t h;                /* N_MEMBER: sdui__hash of the name */
        const struct sdui_xfn *fn; /* N_CALL: the function's table row */
    } v;
} sdui_xnode;

struct sdui_expr {
    sdui_xnode *nodes;
    size_t n_nodes;
    int32_t *kids;
    size_t n_kids;
    char *pool;
    size_t pool_len;
    char *src;
    size_t src_len;
    char **paths;
    size_t n_paths;
    int32_t *roots;      /* the distinct root names, in source order: the
                            first N_ROOT node of each (slot k is roots[k]) */
    size_t n_roots;
    int32_t root;
};

/* ---------- values and an evaluation's state (expr_eval.c) ---------- */

enum vtype { V_NULL, V_BOOL, V_INT, V_REAL, V_STR, V_ARR, V_JARR, V_JOBJ };

/* A value: a scalar, a string (pointer, length), an array built by the
 * evaluator (items in the arena), or a borrowed array/object of the
 * caller's tree. */
typedef struct sdui_xval {
    uint8_t t;
    uint8_t spread;      /* V_ARR made by a wildcard */
    union {
        int b;
        int64_t i;
        double d;
        struct { const char *s; size_t n; } s;
        struct { struct sdui_xval *items; size_t n; } a;
        const sdui_value *j;
    } u;
} sdui_xval;

/* One block of an evaluation's arena. */
typedef struct sdui_xblock {
    struct sdui_xblock *next;
    size_t used, cap;
    max_align_t data[];
} sdui_xblock;

/* One evaluation. */
typedef struct sdui_xeval {
    const sdui_expr *x;
    sdui_expr_lookup lookup;
    void *ctx;
    const sdui_value *const *slots; /* non-NULL: the roots by slot, and */
    size_t n_slots;                 /* lookup is not called             */
    sdui_xblock *stack;  /* the arena's first block, on the entry point's
                            stack: never freed */
    sdui_error *err;
    sdui_status st;
    unsigned long steps;
    sdui_xblock *arena;
    size_t arena_bytes;
} sdui_xeval;

/* Growing text for JSON rendering and string(); bounded. */
typedef struct sdui_xtext {
    char *s;
    size_t n, cap;
    int bad;             /* 1 over the bound, 2 out of memory, 3 the
                            arena failed (its error is set) */
    sdui_xeval *e;       /* non-NULL: grow in this evaluation's arena */
    const sdui_xnode *nd;
    unsigned long values; /* values written (string() counts them) */
} sdui_xtext;

/* Bytes a long comparison or scan handles between two checks of the
 * bound: a string of the caller's data may be far longer than any the
 * evaluator makes, so its work is counted as it goes, not after. */
#define SDUI__EXPR_CHUNK 4096

/* Records an evaluation error naming node nd (its source text and byte
 * offset); the first one wins.  Returns 0. */
SDUI_EXPR_HIDDEN int sdui__expr_fail(sdui_xeval *e, sdui_status st, const sdui_xnode *nd,
                                     const char *what);

/* Bump allocation of size bytes from the evaluation's arena; NULL (and the
 * error set) when the arena's cap is reached or memory runs out.  The
 * memory lives until the evaluation ends. */
SDUI_EXPR_HIDDEN void *sdui__expr_alloc(sdui_xeval *e, const sdui_xnode *nd, size_t size);

/* Counts n units of work; 0 past the bound (the error set). */
static inline int sdui__expr_step(sdui_xeval *e, const sdui_xnode *nd, unsigned long n)
{
    e->steps += n;
    if (e->steps > SDUI_EXPR_MAX_STEPS)
        return sdui__expr_fail(e, SDUI_LIMIT, nd, "evaluation took more than 1000000 steps");
    return 1;
}

/* Counts the work of n bytes compared, copied, scanned or hashed: one
 * step, and one more per SDUI_EXPR_STEP_BYTES of them. */
static inline int sdui__expr_step_bytes(sdui_xeval *e, const sdui_xnode *nd, size_t n)
{
    return sdui__expr_step(e, nd, 1 + n / SDUI_EXPR_STEP_BYTES);
}

/* A new value of type t, zeroed. */
static inline sdui_xval sdui__expr_mkv(int t)
{
    sdui_xval r;
    memset(&r, 0, sizeof r);
    r.t = (uint8_t)t;
    return r;
}

/* A value of the caller's tree as an evaluator value (scalars copied). */
static inline sdui_xval sdui__expr_from_tree(const sdui_value *v)
{
    sdui_xval r;
    memset(&r, 0, sizeof r);
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_BOOL: r.t = V_BOOL; r.u.b = sdui_value_bool(v); break;
    case SDUI_VALUE_INT: r.t = V_INT; r.u.i = sdui_value_int(v); break;
    case SDUI_VALUE_REAL: r.t = V_REAL; r.u.d = sdui_value_real(v); break;
    case SDUI_VALUE_STRING: r.t = V_STR; r.u.s.s = sdui_value_string(v, &r.u.s.n); break;
    case SDUI_VALUE_ARRAY: r.t = V_JARR; r.u.j = v; break;
    case SDUI_VALUE_OBJECT: r.t = V_JOBJ; r.u.j = v; break;
    default: r.t = V_NULL; break;
    }
    return r;
}

/* The item count of an array value. */
static inline size_t sdui__expr_arr_len(const sdui_xval *v)
{
    return v->t == V_ARR ? v->u.a.n : sdui_value_count(v->u.j);
}

/* Item i of an array value. */
static inline sdui_xval sdui__expr_arr_at(const sdui_xval *v, size_t i)
{
    return v->t == V_ARR ? v->u.a.items[i] : sdui__expr_from_tree(sdui_value_at(v->u.j, i));
}

/* 1 if v is an array (built or borrowed). */
static inline int sdui__expr_is_arr(const sdui_xval *v)
{
    return v->t == V_ARR || v->t == V_JARR;
}

/* 1 if v is a number. */
static inline int sdui__expr_is_num(const sdui_xval *v)
{
    return v->t == V_INT || v->t == V_REAL;
}

/* A number as a double. */
static inline double sdui__expr_num_d(const sdui_xval *v)
{
    return v->t == V_INT ? (double)v->u.i : v->u.d;
}

/* The order of two numbers by their exact values (an integer and a
 * decimal never through a conversion that rounds): -1, 0, 1. */
SDUI_EXPR_HIDDEN int sdui__expr_num_cmp(const sdui_xval *a, const sdui_xval *b);

/* Compares a and b over n bytes into *cmp (memcmp's sign), a chunk at a
 * time with each chunk counted; 0 past the bound. */
SDUI_EXPR_HIDDEN int sdui__expr_cmp_bytes(sdui_xeval *e, const sdui_xnode *nd, const char *a,
                                          const char *b, size_t n, int *cmp);

/* A decimal result into *out, or an overflow error when it is not
 * finite. */
SDUI_EXPR_HIDDEN int sdui__expr_real_out(sdui_xeval *e, const sdui_xnode *nd, double d,
                                         sdui_xval *out);

/* Deep equality of a and b into *eq (docs/expressions.md), counted as it
 * goes; 0 past the bound. */
SDUI_EXPR_HIDDEN int sdui__expr_equal(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a,
                                      const sdui_xval *b, int *eq);

/* The byte order of two strings into *cmp (UTF-8 byte order is the
 * order of scalar values), counting the bytes compared; 0 past the
 * bound.  Inline: keys() sorts with it, ordering operators use it. */
static inline int sdui__expr_str_cmp(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a,
                                     const sdui_xval *b, int *cmp)
{
    size_t n = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;
    if (!sdui__expr_cmp_bytes(e, nd, a->u.s.s, b->u.s.s, n, cmp))
        return 0;
    if (*cmp == 0)
        *cmp = a->u.s.n < b->u.s.n ? -1 : a->u.s.n > b->u.s.n;
    return 1;
}

/* Orders two numbers or two strings into *cmp: 1; 0 when they are
 * neither (a type error for the caller); -1 past the bound. */
SDUI_EXPR_HIDDEN int sdui__expr_order(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a,
                                      const sdui_xval *b, int *cmp);

/* A new string of n bytes (plus a NUL) in the arena, *out set to it; NULL
 * (the error set) past SDUI_EXPR_MAX_STRING or on failure. */
SDUI_EXPR_HIDDEN char *sdui__expr_new_str(sdui_xeval *e, const sdui_xnode *nd, size_t n,
                                          sdui_xval *out);

/* A new array of n items in the arena, *out set to it; NULL (the error
 * set) past SDUI_EXPR_MAX_ITEMS or on failure. */
SDUI_EXPR_HIDDEN sdui_xval *sdui__expr_new_arr(sdui_xeval *e, const sdui_xnode *nd, size_t n,
                                               sdui_xval *out);

/* Appends a value to a text as JSON (the one rendering of a result). */
SDUI_EXPR_HIDDEN void sdui__expr_tx_json(sdui_xtext *t, const sdui_xval *v);

/* ---------- the parser's lexical rule, shared with the regex engine ---------- */

/* 1 if c may start an identifier (first) or continue one. */
static inline int sdui__expr_ident_char(char c, int first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
        return 1;
    return !first && c >= '0' && c <= '9';
}

/* ---------- functions (expr_fn.c) ---------- */

/*
 * A function's body: the arguments a[0, argc) are evaluated (left to
 * right, each with its spread flag cleared) and argc is within the row's
 * counts (the parser checked it).  Sets *out and returns 1, or returns 0
 * with the error set (sdui__expr_fail names nd, the call).  It counts the
 * work it does beyond the call's own step (sdui__expr_step), allocates
 * only in the arena, and may reuse a[] as scratch.
 */
typedef int (*sdui_xfn_call)(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a,
                             int32_t argc, sdui_xval *out);

/* One row of the function table: the name the parser matches, the least
 * and most argument count (max -1: any number, up to the parser's 256),
 * and the body. */
typedef struct sdui_xfn {
    const char *name;
    int min, max;
    sdui_xfn_call call;
} sdui_xfn;

/* The table, in the order docs/expressions.md lists the functions, and
 * its row count.  Read-only. */
SDUI_EXPR_HIDDEN extern const sdui_xfn sdui__expr_fns[];
SDUI_EXPR_HIDDEN extern const size_t sdui__expr_fn_count;

/* The row named name[0, len), or NULL. */
SDUI_EXPR_HIDDEN const sdui_xfn *sdui__expr_fn_find(const char *name, size_t len);

/* ---------- the regex engine of matches() (expr_regex.c) ---------- */

/* Whether the pattern pat (a string of at most SDUI_EXPR_MAX_PATTERN
 * bytes) matches somewhere in the string s, into *hit; 0 with the error
 * set (a bad pattern: SDUI_EXPR_VALUE naming the pattern byte; the step
 * bound; the arena).  Compiles into the arena and counts every unit of
 * work (the essay in expr_regex.c). */
SDUI_EXPR_HIDDEN int sdui__expr_match(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *s,
                                      const sdui_xval *pat, int *hit);

#endif
