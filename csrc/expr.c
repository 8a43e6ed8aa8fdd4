/*
 * expr.c - the expression language (expr.h, docs/expressions.md).
 *
 * Program.  Compiling turns the source into a flat array of nodes (one
 * per operator, literal, path step, call) that refer to their children by
 * index, plus a list of child indices for calls and array literals, a pool
 * of decoded string constants (each NUL-terminated) and the list of paths
 * the program reads.  The parser is precedence climbing over a table of
 * binary operators (loosest first: ?:, ??, ||, &&, == !=, < <= > >=, in,
 * + -, * / %), with unary ! and - and postfix member/index steps; it
 * counts nesting (parentheses, brackets, calls, unary operators) and the
 * depth of the tree, so evaluation recursion is bounded.  Nothing in a
 * program changes after compile, so many threads may evaluate it at once.
 *
 * Evaluation.  A recursive walk of the node array.  A value is a small
 * tagged struct: null, bool, int64, double, a string (pointer, length),
 * an array built by the evaluator (items in the arena), or a borrowed
 * array/object of the caller's tree.  Every intermediate (joined strings,
 * array literals, wildcard results) lives in one arena per evaluation:
 * its first block is sized from the program and more blocks are added only
 * when a value needs them, so an operation never calls the allocator.
 * Work is counted in steps (a node, an item visited) and bounded, as are
 * string lengths, array lengths and the arena's bytes.
 *
 * Wildcards.  `a[*]` yields a "spread" array of the items of a that are
 * not null; a member or index step applied to a spread array maps over its
 * items and drops the ones that come out null, so `items[*].price` is the
 * array of the prices that exist.  Any other operator sees a plain array.
 *
 * Results.  sdui_expr_eval_json writes the value as JSON text;
 * sdui_expr_eval appends it to a tree builder (json_build.h) instead, so
 * a document result is never text parsed back.  Both walk the value the
 * same way, and the tree walk counts the bytes the text would take (one
 * escape rule, json_esc, serves both), so the bound on a result's text
 * answers the same for either call.
 *
 * matches().  The pattern is compiled per call into the arena as a small
 * instruction list (char, any, class, split, jump, ^, $, match) and run as
 * a Thompson state-set simulation over the Unicode scalar values of the
 * subject: each input character advances the set of live instructions
 * once, so the time is O(pattern x subject) and nothing backtracks.
 */
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sdui/expr.h"
#include "sdui/number.h"

/* ---------- program ---------- */

enum node_kind {
    N_NULL, N_BOOL, N_INT, N_REAL, N_STR, N_ARRAY, N_ROOT, N_MEMBER,
    N_INDEX, N_WILD, N_NOT, N_NEG, N_BIN, N_AND, N_OR, N_COALESCE, N_COND,
    N_CALL
};

enum bin_op { B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_IN, B_ADD, B_SUB, B_MUL,
              B_DIV, B_MOD };

enum fn_id { F_LEN, F_SUM, F_MIN, F_MAX, F_AVG, F_COUNT, F_CONTAINS,
             F_STARTS, F_ENDS, F_LOWER, F_UPPER, F_TRIM, F_ROUND, F_FLOOR,
             F_CEIL, F_ABS, F_STRING, F_NUMBER, F_INT, F_FIXED, F_JOIN,
             F_KEYS, F_ALL, F_ANY, F_COALESCE, F_MATCHES };

/* Name, least and most argument count (-1: any) of each function. */
static const struct { const char *name; int min, max; } fns[] = {
    {"len", 1, 1}, {"sum", 1, 1}, {"min", 1, -1}, {"max", 1, -1},
    {"avg", 1, 1}, {"count", 1, 1}, {"contains", 2, 2},
    {"starts_with", 2, 2}, {"ends_with", 2, 2}, {"lower", 1, 1},
    {"upper", 1, 1}, {"trim", 1, 1}, {"round", 1, 2}, {"floor", 1, 1},
    {"ceil", 1, 1}, {"abs", 1, 1}, {"string", 1, 1}, {"number", 1, 1},
    {"int", 1, 1}, {"fixed", 2, 2}, {"join", 2, 2}, {"keys", 1, 1},
    {"all", 1, 1}, {"any", 1, 1}, {"coalesce", 1, -1}, {"matches", 2, 2},
};

typedef struct node {
    uint8_t kind;
    uint8_t op;          /* bin_op or fn_id */
    uint32_t off, len;   /* the sub-expression's bytes in the source */
    int32_t a, b, c;     /* children; for N_STR/N_ROOT/N_MEMBER a string
                            (b: pool offset, c: length); N_ARRAY/N_CALL:
                            a = first kid index, b = count */
    union { int64_t i; double d; } v;
} node;

struct sdui_expr {
    node *nodes;
    size_t n_nodes;
    int32_t *kids;
    size_t n_kids;
    char *pool;
    size_t pool_len;
    char *src;
    size_t src_len;
    char **paths;
    size_t n_paths;
    int32_t root;
};

/* ---------- parser ---------- */

typedef struct parser {
    const char *s;
    size_t n, pos;
    unsigned nest;
    sdui_error *err;
    sdui_status st;
    node *nodes;
    size_t n_nodes, cap_nodes;
    int32_t *kids;
    size_t n_kids, cap_kids;
    char *pool;
    size_t pool_len, cap_pool;
    unsigned *depth;     /* tree depth per node */
} parser;

/* Records a parse error at offset (first one wins); returns -1. */
static int32_t perr(parser *p, sdui_status st, size_t off, const char *what)
{
    if (p->st == SDUI_OK) {
        p->st = st;
        sdui__fail_at(p->err, st, p->s, p->n, off,
                      "expr: %s at offset %zu", what, off);
    }
    return -1;
}

/* Grows a parser array to hold one more element; 0 on failure. */
static int grow(parser *p, void **arr, size_t *cap, size_t need, size_t size)
{
    void *np;
    size_t nc;
    if (need <= *cap)
        return 1;
    nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    np = sdui_realloc(*arr, nc * size);
    if (!np) {
        if (p->st == SDUI_OK) {
            p->st = SDUI_OOM;
            sdui__oom(p->err);
        }
        return 0;
    }
    *arr = np;
    *cap = nc;
    return 1;
}

/* Appends a node; its tree depth is one more than its deepest child. */
static int32_t new_node(parser *p, int kind, size_t off, size_t end,
                        int32_t a, int32_t b, int32_t c)
{
    node *nd;
    unsigned d = 0;
    if (p->st != SDUI_OK)
        return -1;
    if (!grow(p, (void **)&p->nodes, &p->cap_nodes, p->n_nodes + 1, sizeof *p->nodes))
        return -1;
    if (p->n_nodes + 1 > p->cap_nodes)
        return -1;
    {
        unsigned *nd2 = sdui_realloc(p->depth, p->cap_nodes * sizeof *nd2);
        if (!nd2) {
            p->st = SDUI_OOM;
            sdui__oom(p->err);
            return -1;
        }
        p->depth = nd2;
    }
    if (kind != N_STR && kind != N_ROOT && kind != N_ARRAY && kind != N_CALL) {
        if (a >= 0 && p->depth[a] > d) d = p->depth[a];
        if (b >= 0 && kind != N_MEMBER && p->depth[b] > d) d = p->depth[b];
        if (c >= 0 && kind != N_MEMBER && p->depth[c] > d) d = p->depth[c];
    } else if (kind == N_ARRAY || kind == N_CALL) {
        for (int32_t k = 0; k < b; k++)
            if (p->depth[p->kids[a + k]] > d)
                d = p->depth[p->kids[a + k]];
    }
    if (d + 1 > SDUI_EXPR_MAX_DEPTH)
        return perr(p, SDUI_LIMIT, off, "expression tree deeper than 256");
    nd = &p->nodes[p->n_nodes];
    memset(nd, 0, sizeof *nd);
    nd->kind = (uint8_t)kind;
    nd->off = (uint32_t)off;
    nd->len = (uint32_t)(end > off ? end - off : 0);
    nd->a = a;
    nd->b = b;
    nd->c = c;
    p->depth[p->n_nodes] = d + 1;
    return (int32_t)p->n_nodes++;
}

/* Adds bytes to the string pool (NUL-terminated); the offset or -1. */
static int32_t pool_add(parser *p, const char *s, size_t n)
{
    size_t at = p->pool_len;
    if (!grow(p, (void **)&p->pool, &p->cap_pool, at + n + 1, 1))
        return -1;
    if (n)
        memcpy(p->pool + at, s, n);
    p->pool[at + n] = 0;
    p->pool_len += n + 1;
    return (int32_t)at;
}

/* Skips spaces, tabs and line breaks. */
static void skip_ws(parser *p)
{
    while (p->pos < p->n && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                             p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

/* 1 (and consumes it) if the next token is the text t. */
static int accept(parser *p, const char *t)
{
    size_t n = strlen(t);
    skip_ws(p);
    if (p->n - p->pos >= n && memcmp(p->s + p->pos, t, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

/* Peeks the next non-space byte (0 at the end). */
static char peek(parser *p)
{
    skip_ws(p);
    return p->pos < p->n ? p->s[p->pos] : 0;
}

/* 1 if c may start an identifier; 2 if it may continue one. */
static int ident_char(char c, int first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
        return 1;
    return !first && c >= '0' && c <= '9';
}

/* Reads 4 hex digits at s[i]; -1 if not. */
static long hex4(const char *s, size_t n, size_t i)
{
    long v = 0;
    if (n - i < 4)
        return -1;
    for (int k = 0; k < 4; k++) {
        char c = s[i + k];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return -1;
    }
    return v;
}

/* A string literal in ' or " with JSON escapes; adds it to the pool.  The
 * pool offset or -1; *outlen its length. */
static int32_t parse_string(parser *p, size_t *outlen)
{
    char q = p->s[p->pos];
    size_t start = p->pos, i = p->pos + 1;
    size_t at = p->pool_len;
    char buf[4];
    while (1) {
        if (i >= p->n)
            return perr(p, SDUI_EXPR_PARSE, start, "unterminated string");
        char c = p->s[i];
        if (c == q)
            break;
        if ((unsigned char)c < 0x20)
            return perr(p, SDUI_EXPR_PARSE, i, "control character in string");
        if (c == '\\') {
            char e = i + 1 < p->n ? p->s[i + 1] : 0;
            char one = 0;
            switch (e) {
            case '"': one = '"'; break;
            case '\'': one = '\''; break;
            case '\\': one = '\\'; break;
            case '/': one = '/'; break;
            case 'b': one = '\b'; break;
            case 'f': one = '\f'; break;
            case 'n': one = '\n'; break;
            case 'r': one = '\r'; break;
            case 't': one = '\t'; break;
            case 'u': {
                long cp = hex4(p->s, p->n, i + 2);
                size_t used = 6;
                if (cp < 0)
                    return perr(p, SDUI_EXPR_PARSE, i, "bad \\u escape");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    long lo = (p->n - i >= 12 && p->s[i + 6] == '\\' && p->s[i + 7] == 'u')
                                  ? hex4(p->s, p->n, i + 8) : -1;
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return perr(p, SDUI_EXPR_PARSE, i, "lone surrogate in \\u escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    used = 12;
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    return perr(p, SDUI_EXPR_PARSE, i, "lone surrogate in \\u escape");
                }
                size_t k = sdui__utf8_put(buf, (unsigned long)cp);
                if (!grow(p, (void **)&p->pool, &p->cap_pool, p->pool_len + k + 1, 1))
                    return -1;
                memcpy(p->pool + p->pool_len, buf, k);
                p->pool_len += k;
                i += used;
                continue;
            }
            default:
                return perr(p, SDUI_EXPR_PARSE, i, "bad escape in string");
            }
            if (!grow(p, (void **)&p->pool, &p->cap_pool, p->pool_len + 2, 1))
                return -1;
            p->pool[p->pool_len++] = one;
            i += 2;
            continue;
        }
        {
            size_t j = i;
            if (sdui__utf8_get(p->s, p->n, &j) < 0)
                return perr(p, SDUI_EXPR_PARSE, i, "invalid UTF-8 in string");
            if (!grow(p, (void **)&p->pool, &p->cap_pool, p->pool_len + (j - i) + 1, 1))
                return -1;
            memcpy(p->pool + p->pool_len, p->s + i, j - i);
            p->pool_len += j - i;
            i = j;
        }
    }
    if (!grow(p, (void **)&p->pool, &p->cap_pool, p->pool_len + 1, 1))
        return -1;
    *outlen = p->pool_len - at;
    p->pool[p->pool_len++] = 0;
    p->pos = i + 1;
    return (int32_t)at;
}

static int32_t parse_expr(parser *p);

/* A number literal: integer (64-bit) or decimal with optional exponent. */
static int32_t parse_number(parser *p)
{
    size_t start = p->pos, i = p->pos;
    int real = 0;
    char buf[400];
    while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') i++;
    if (i - start > 1 && p->s[start] == '0')
        return perr(p, SDUI_EXPR_PARSE, start, "number with a leading zero");
    if (i < p->n && p->s[i] == '.') {
        real = 1;
        i++;
        if (i >= p->n || p->s[i] < '0' || p->s[i] > '9')
            return perr(p, SDUI_EXPR_PARSE, start, "digit expected after '.'");
        while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    if (i < p->n && (p->s[i] == 'e' || p->s[i] == 'E')) {
        real = 1;
        i++;
        if (i < p->n && (p->s[i] == '+' || p->s[i] == '-')) i++;
        if (i >= p->n || p->s[i] < '0' || p->s[i] > '9')
            return perr(p, SDUI_EXPR_PARSE, start, "digit expected in exponent");
        while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    if (i < p->n && ident_char(p->s[i], 0))
        return perr(p, SDUI_EXPR_PARSE, i, "bad character after number");
    if (i - start >= sizeof buf)
        return perr(p, SDUI_EXPR_PARSE, start, "number too long");
    memcpy(buf, p->s + start, i - start);
    buf[i - start] = 0;
    p->pos = i;
    if (!real) {
        int64_t v = 0;
        for (size_t k = 0; buf[k]; k++) {
            int dgt = buf[k] - '0';
            if (v > (INT64_MAX - dgt) / 10)
                return perr(p, SDUI_EXPR_PARSE, start, "integer out of the 64-bit range");
            v = v * 10 + dgt;
        }
        int32_t n = new_node(p, N_INT, start, i, -1, -1, -1);
        if (n >= 0) p->nodes[n].v.i = v;
        return n;
    }
    double d = sdui__strtod(buf, NULL);
    if (!isfinite(d))
        return perr(p, SDUI_EXPR_PARSE, start, "decimal out of range");
    int32_t n = new_node(p, N_REAL, start, i, -1, -1, -1);
    if (n >= 0) p->nodes[n].v.d = d;
    return n;
}

/* A comma-separated list up to the closing byte; kids appended; count. */
static int parse_list(parser *p, char close, int32_t *first, int32_t *count)
{
    int32_t tmp[256];
    int32_t n = 0;
    if (peek(p) == close) {
        p->pos++;
    } else {
        while (1) {
            int32_t e = parse_expr(p);
            if (e < 0)
                return 0;
            if (n >= 256) {
                perr(p, SDUI_LIMIT, p->pos, "more than 256 items in a list");
                return 0;
            }
            tmp[n++] = e;
            if (accept(p, ","))
                continue;
            if (peek(p) == close) {
                p->pos++;
                break;
            }
            perr(p, SDUI_EXPR_PARSE, p->pos, close == ']' ? "',' or ']' expected" : "',' or ')' expected");
            return 0;
        }
    }
    if (!grow(p, (void **)&p->kids, &p->cap_kids, p->n_kids + (size_t)n + 1, sizeof *p->kids))
        return 0;
    *first = (int32_t)p->n_kids;
    *count = n;
    memcpy(p->kids + p->n_kids, tmp, (size_t)n * sizeof *tmp);
    p->n_kids += (size_t)n;
    return 1;
}

/* Enters one nesting level; 0 past the limit. */
static int enter(parser *p)
{
    if (++p->nest > SDUI_EXPR_MAX_NESTING) {
        perr(p, SDUI_LIMIT, p->pos, "nesting deeper than 64");
        return 0;
    }
    return 1;
}

/* A primary: literal, path root, call, ( expr ), [ list ]. */
static int32_t parse_primary(parser *p)
{
    char c = peek(p);
    size_t start = p->pos;
    int32_t r;
    if (c == 0)
        return perr(p, SDUI_EXPR_PARSE, start, "expression expected, found the end");
    if (c >= '0' && c <= '9')
        return parse_number(p);
    if (c == '\'' || c == '"') {
        size_t n = 0;
        int32_t at = parse_string(p, &n);
        if (at < 0)
            return -1;
        return new_node(p, N_STR, start, p->pos, -1, at, (int32_t)n);
    }
    if (c == '(') {
        p->pos++;
        if (!enter(p))
            return -1;
        r = parse_expr(p);
        p->nest--;
        if (r < 0)
            return -1;
        if (!accept(p, ")"))
            return perr(p, SDUI_EXPR_PARSE, p->pos, "')' expected");
        p->nodes[r].off = (uint32_t)start;
        p->nodes[r].len = (uint32_t)(p->pos - start);
        return r;
    }
    if (c == '[') {
        int32_t first, count;
        p->pos++;
        if (!enter(p))
            return -1;
        if (!parse_list(p, ']', &first, &count))
            return -1;
        p->nest--;
        return new_node(p, N_ARRAY, start, p->pos, first, count, -1);
    }
    if (ident_char(c, 1)) {
        size_t i = p->pos;
        while (i < p->n && ident_char(p->s[i], 0)) i++;
        size_t len = i - p->pos;
        const char *w = p->s + p->pos;
        p->pos = i;
        if (len == 4 && !memcmp(w, "true", 4)) {
            r = new_node(p, N_BOOL, start, i, -1, -1, -1);
            if (r >= 0) p->nodes[r].v.i = 1;
            return r;
        }
        if (len == 5 && !memcmp(w, "false", 5))
            return new_node(p, N_BOOL, start, i, -1, -1, -1);
        if (len == 4 && !memcmp(w, "null", 4))
            return new_node(p, N_NULL, start, i, -1, -1, -1);
        if (len == 2 && !memcmp(w, "in", 2))
            return perr(p, SDUI_EXPR_PARSE, start, "'in' is an operator, not a name");
        if (peek(p) == '(') {
            int32_t first, count;
            size_t f;
            for (f = 0; f < sizeof fns / sizeof fns[0]; f++)
                if (strlen(fns[f].name) == len && !memcmp(fns[f].name, w, len))
                    break;
            if (f == sizeof fns / sizeof fns[0]) {
                /* Name it (a name is letters, digits and '_'; 40 bytes at most). */
                char what[64];
                snprintf(what, sizeof what, "unknown function '%.*s%s'", (int)(len > 40 ? 40 : len), w,
                         len > 40 ? "..." : "");
                return perr(p, SDUI_EXPR_PARSE, start, what);
            }
            p->pos++;
            if (!enter(p))
                return -1;
            if (!parse_list(p, ')', &first, &count))
                return -1;
            p->nest--;
            if (count < fns[f].min || (fns[f].max >= 0 && count > fns[f].max))
                return perr(p, SDUI_EXPR_PARSE, start, "wrong number of arguments");
            r = new_node(p, N_CALL, start, p->pos, first, count, -1);
            if (r >= 0) p->nodes[r].op = (uint8_t)f;
            return r;
        }
        int32_t at = pool_add(p, w, len);
        if (at < 0)
            return -1;
        return new_node(p, N_ROOT, start, i, -1, at, (int32_t)len);
    }
    return perr(p, SDUI_EXPR_PARSE, start, "unexpected character");
}

/* Postfix steps: .name, [expr], ['key'], [*]. */
static int32_t parse_postfix(parser *p)
{
    size_t start = p->pos;
    int32_t e = parse_primary(p);
    skip_ws(p);
    start = e >= 0 ? p->nodes[e].off : start;
    while (e >= 0) {
        if (accept(p, ".")) {
            skip_ws(p);
            size_t i = p->pos;
            if (i >= p->n || !ident_char(p->s[i], 1))
                return perr(p, SDUI_EXPR_PARSE, i, "member name expected after '.'");
            while (i < p->n && ident_char(p->s[i], 0)) i++;
            int32_t at = pool_add(p, p->s + p->pos, i - p->pos);
            if (at < 0)
                return -1;
            size_t len = i - p->pos;
            p->pos = i;
            e = new_node(p, N_MEMBER, start, i, e, at, (int32_t)len);
        } else if (accept(p, "[")) {
            if (accept(p, "*")) {
                if (!accept(p, "]"))
                    return perr(p, SDUI_EXPR_PARSE, p->pos, "']' expected after '*'");
                e = new_node(p, N_WILD, start, p->pos, e, -1, -1);
                continue;
            }
            if (!enter(p))
                return -1;
            int32_t ix = parse_expr(p);
            p->nest--;
            if (ix < 0)
                return -1;
            if (!accept(p, "]"))
                return perr(p, SDUI_EXPR_PARSE, p->pos, "']' expected");
            e = new_node(p, N_INDEX, start, p->pos, e, ix, -1);
        } else {
            break;
        }
    }
    return e;
}

/* Unary ! and - (right to left), then postfix. */
static int32_t parse_unary(parser *p)
{
    char c = peek(p);
    size_t start = p->pos;
    if ((c == '!' && !(p->pos + 1 < p->n && p->s[p->pos + 1] == '=')) || c == '-') {
        int32_t e;
        p->pos++;
        if (!enter(p))
            return -1;
        e = parse_unary(p);
        p->nest--;
        if (e < 0)
            return -1;
        /* A negative literal folds into the literal (so -9223372036854775808
         * is not reachable, but -1 is a constant). */
        return new_node(p, c == '!' ? N_NOT : N_NEG, start, p->pos, e, -1, -1);
    }
    return parse_postfix(p);
}

/* The binary operator at the cursor with its level (1 loosest ... 8), or 0.
 * Does not consume it. */
static int peek_binop(parser *p, int *op, size_t *oplen)
{
    static const struct { const char *t; int level, op; } ops[] = {
        {"??", 1, -1}, {"||", 2, -1}, {"&&", 3, -1}, {"==", 4, B_EQ},
        {"!=", 4, B_NE}, {"<=", 5, B_LE}, {">=", 5, B_GE}, {"<", 5, B_LT},
        {">", 5, B_GT}, {"in", 6, B_IN}, {"+", 7, B_ADD}, {"-", 7, B_SUB},
        {"*", 8, B_MUL}, {"/", 8, B_DIV}, {"%", 8, B_MOD},
    };
    skip_ws(p);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = strlen(ops[k].t);
        if (p->n - p->pos >= n && !memcmp(p->s + p->pos, ops[k].t, n)) {
            if (ops[k].level == 6 && p->pos + 2 < p->n && ident_char(p->s[p->pos + 2], 0))
                continue;
            *op = ops[k].op;
            *oplen = n;
            return ops[k].level;
        }
    }
    return 0;
}

/* Precedence climbing from level min upward; ?? is right-associative. */
static int32_t parse_binary(parser *p, int min)
{
    int32_t left = parse_unary(p);
    while (left >= 0) {
        int op;
        size_t oplen;
        int level = peek_binop(p, &op, &oplen);
        if (level == 0 || level < min)
            break;
        p->pos += oplen;
        /* ?? is right-associative: its chain recurses, so it nests. */
        if (level == 1 && !enter(p))
            return -1;
        int32_t right = parse_binary(p, level == 1 ? level : level + 1);
        if (level == 1)
            p->nest--;
        if (right < 0)
            return -1;
        size_t off = p->nodes[left].off;
        int kind = level == 1 ? N_COALESCE : level == 2 ? N_OR : level == 3 ? N_AND : N_BIN;
        left = new_node(p, kind, off, p->pos, left, right, -1);
        if (left >= 0 && kind == N_BIN)
            p->nodes[left].op = (uint8_t)op;
    }
    return left;
}

/* A full expression: c ? a : b (right-associative) over the binaries. */
static int32_t parse_expr(parser *p)
{
    int32_t c = parse_binary(p, 1);
    if (c < 0)
        return -1;
    if (accept(p, "?")) {
        if (!enter(p))
            return -1;
        int32_t a = parse_expr(p);
        if (a < 0)
            return -1;
        if (!accept(p, ":"))
            return perr(p, SDUI_EXPR_PARSE, p->pos, "':' expected");
        int32_t b = parse_expr(p);
        p->nest--;
        if (b < 0)
            return -1;
        return new_node(p, N_COND, p->nodes[c].off, p->pos, c, a, b);
    }
    return c;
}

/* ---------- paths ---------- */

typedef struct pathbuf {
    char *s;
    size_t n, cap;
    int ok;
} pathbuf;

/* Appends bytes to a path under construction. */
static void pb_add(pathbuf *b, const char *s, size_t n)
{
    if (!b->ok)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t nc = (b->n + n + 1) * 2;
        char *ns = sdui_realloc(b->s, nc);
        if (!ns) { b->ok = 0; return; }
        b->s = ns;
        b->cap = nc;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

/* 1 if s[0,n) is an identifier that is not a keyword. */
static int plain_name(const char *s, size_t n)
{
    if (n == 0 || !ident_char(s[0], 1))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!ident_char(s[i], 0))
            return 0;
    return 1;
}

/* Writes the path of node i into b if it is a path chain; 1 if it is. */
static int path_of(const sdui_expr *x, int32_t i, pathbuf *b)
{
    const node *nd = &x->nodes[i];
    char num[32];
    switch (nd->kind) {
    case N_ROOT:
        pb_add(b, x->pool + nd->b, (size_t)nd->c);
        return 1;
    case N_MEMBER:
        if (!path_of(x, nd->a, b))
            return 0;
        pb_add(b, ".", 1);
        pb_add(b, x->pool + nd->b, (size_t)nd->c);
        return 1;
    case N_WILD:
        if (!path_of(x, nd->a, b))
            return 0;
        pb_add(b, "[*]", 3);
        return 1;
    case N_INDEX: {
        const node *ix = &x->nodes[nd->b];
        if (!path_of(x, nd->a, b))
            return 0;
        if (ix->kind == N_INT) {
            snprintf(num, sizeof num, "[%lld]", (long long)ix->v.i);
            pb_add(b, num, strlen(num));
            return 1;
        }
        if (ix->kind == N_STR) {
            const char *k = x->pool + ix->b;
            size_t kn = (size_t)ix->c;
            if (plain_name(k, kn)) {
                pb_add(b, ".", 1);
                pb_add(b, k, kn);
            } else {
                pb_add(b, "['", 2);
                /* Escaped as a string literal of the language reads it. */
                for (size_t j = 0; j < kn; j++) {
                    unsigned char c = (unsigned char)k[j];
                    if (c < 0x20) {
                        snprintf(num, sizeof num, "\\u%04x", c);
                        pb_add(b, num, 6);
                        continue;
                    }
                    if (c == '\'' || c == '\\')
                        pb_add(b, "\\", 1);
                    pb_add(b, k + j, 1);
                }
                pb_add(b, "']", 2);
            }
            return 1;
        }
        return 2; /* computed index: the path stops here */
    }
    default:
        return 0;
    }
}

/* Adds a path to the program's list unless it is there already. */
static int add_path(sdui_expr *x, const char *s, size_t n)
{
    char **np;
    char *c;
    for (size_t k = 0; k < x->n_paths; k++)
        if (strlen(x->paths[k]) == n && !memcmp(x->paths[k], s, n))
            return 1;
    np = sdui_realloc(x->paths, (x->n_paths + 1) * sizeof *np);
    if (!np)
        return 0;
    x->paths = np;
    c = sdui_malloc(n + 1);
    if (!c)
        return 0;
    memcpy(c, s, n);
    c[n] = 0;
    x->paths[x->n_paths++] = c;
    return 1;
}

/* Collects the paths read below node i, outermost chains only. */
static int collect_paths(sdui_expr *x, int32_t i)
{
    const node *nd = &x->nodes[i];
    if (nd->kind == N_ROOT || nd->kind == N_MEMBER || nd->kind == N_WILD ||
        nd->kind == N_INDEX) {
        pathbuf b = {NULL, 0, 0, 1};
        int r = path_of(x, i, &b);
        if (r) {
            /* For a stopped chain keep the prefix; the computed indices
             * below are collected too. */
            int ok = b.ok && add_path(x, b.s ? b.s : "", b.n);
            sdui_free(b.s);
            if (!ok)
                return 0;
            if (r == 1)
                return 1;
            /* Walk down the chain for computed indices. */
            int32_t j = i;
            while (x->nodes[j].kind != N_ROOT) {
                if (x->nodes[j].kind == N_INDEX && !collect_paths(x, x->nodes[j].b))
                    return 0;
                j = x->nodes[j].a;
            }
            return 1;
        }
        sdui_free(b.s);
        /* A chain over a non-path base: paths of the base and indices. */
        if (!collect_paths(x, nd->a))
            return 0;
        if (nd->kind == N_INDEX)
            return collect_paths(x, nd->b);
        return 1;
    }
    switch (nd->kind) {
    case N_ARRAY:
    case N_CALL:
        for (int32_t k = 0; k < nd->b; k++)
            if (!collect_paths(x, x->kids[nd->a + k]))
                return 0;
        return 1;
    case N_NOT:
    case N_NEG:
        return collect_paths(x, nd->a);
    case N_BIN:
    case N_AND:
    case N_OR:
    case N_COALESCE:
        return collect_paths(x, nd->a) && collect_paths(x, nd->b);
    case N_COND:
        return collect_paths(x, nd->a) && collect_paths(x, nd->b) &&
               collect_paths(x, nd->c);
    default:
        return 1;
    }
}

/* Parses src into a program (expr.h). */
sdui_status sdui_expr_compile(const char *src, size_t len, sdui_expr **out,
                              sdui_error *err)
{
    parser p;
    sdui_expr *x;
    int32_t root;

    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "expr: compile: out is NULL");
    if (!src && len > 0)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "expr: compile: src is NULL with len %zu", len);
    *out = NULL;
    if (len > SDUI_EXPR_MAX_SOURCE)
        return sdui__fail(err, SDUI_LIMIT, SDUI_EXPR_MAX_SOURCE,
                          "expr: source of %zu bytes is longer than 4096", len);
    memset(&p, 0, sizeof p);
    p.s = src ? src : "";
    p.n = len;
    p.err = err;
    p.st = SDUI_OK;
    for (size_t i = 0; i < len; i++)
        if (p.s[i] == 0) {
            perr(&p, SDUI_EXPR_PARSE, i, "NUL byte in source");
            break;
        }
    root = p.st == SDUI_OK ? parse_expr(&p) : -1;
    if (root >= 0 && peek(&p) != 0)
        root = perr(&p, SDUI_EXPR_PARSE, p.pos, "unexpected text after the expression");
    sdui_free(p.depth);
    if (root < 0 || p.st != SDUI_OK) {
        sdui_free(p.nodes);
        sdui_free(p.kids);
        sdui_free(p.pool);
        return p.st != SDUI_OK ? p.st : sdui__oom(err);
    }
    x = sdui_malloc(sizeof *x);
    if (x)
        memset(x, 0, sizeof *x);
    if (x)
        x->src = sdui_malloc(len + 1);
    if (!x || !x->src) {
        if (x) sdui_free(x);
        sdui_free(p.nodes);
        sdui_free(p.kids);
        sdui_free(p.pool);
        return sdui__oom(err);
    }
    if (len)
        memcpy(x->src, src, len);
    x->src[len] = 0;
    x->src_len = len;
    x->nodes = p.nodes;
    x->n_nodes = p.n_nodes;
    x->kids = p.kids;
    x->n_kids = p.n_kids;
    x->pool = p.pool;
    x->pool_len = p.pool_len;
    x->root = root;
    if (!collect_paths(x, root)) {
        sdui_expr_free(x);
        return sdui__oom(err);
    }
    *out = x;
    return SDUI_OK;
}

/* Frees a program (expr.h). */
void sdui_expr_free(sdui_expr *prog)
{
    if (!prog)
        return;
    for (size_t k = 0; k < prog->n_paths; k++)
        sdui_free(prog->paths[k]);
    sdui_free(prog->paths);
    sdui_free(prog->nodes);
    sdui_free(prog->kids);
    sdui_free(prog->pool);
    sdui_free(prog->src);
    sdui_free(prog);
}

/* The number of paths the program reads (expr.h). */
size_t sdui_expr_path_count(const sdui_expr *prog)
{
    assert(prog);
    return prog->n_paths;
}

/* Path i (expr.h). */
const char *sdui_expr_path(const sdui_expr *prog, size_t i, size_t *len)
{
    assert(prog);
    if (i >= prog->n_paths)
        return NULL;
    if (len)
        *len = strlen(prog->paths[i]);
    return prog->paths[i];
}

/* The source text (expr.h). */
const char *sdui_expr_source(const sdui_expr *prog, size_t *len)
{
    assert(prog);
    if (len)
        *len = prog->src_len;
    return prog->src;
}

/* ---------- evaluation ---------- */

enum vtype { V_NULL, V_BOOL, V_INT, V_REAL, V_STR, V_ARR, V_JARR, V_JOBJ };

typedef struct val {
    uint8_t t;
    uint8_t spread;      /* V_ARR made by a wildcard */
    union {
        int b;
        int64_t i;
        double d;
        struct { const char *s; size_t n; } s;
        struct { struct val *items; size_t n; } a;
        const sdui_value *j;
    } u;
} val;

typedef struct block {
    struct block *next;
    size_t used, cap;
    max_align_t data[];
} block;

typedef struct ev {
    const sdui_expr *x;
    sdui_expr_lookup lookup;
    void *ctx;
    sdui_error *err;
    sdui_status st;
    unsigned long steps;
    block *arena;
    size_t arena_bytes;
} ev;

/* Records an evaluation error naming node nd; returns 0. */
static int fail(ev *e, sdui_status st, const node *nd, const char *what)
{
    if (e->st == SDUI_OK) {
        int show = nd->len > 48 ? 48 : (int)nd->len;
        e->st = st;
        sdui__fail_at(e->err, st, e->x->src, e->x->src_len, nd->off,
                      "expr: %s in `%.*s%s` at offset %u", what, show,
                      e->x->src + nd->off, nd->len > 48 ? "..." : "", nd->off);
    }
    return 0;
}

/* Bump allocation from the evaluation's arena; NULL (and the error set)
 * when the arena's cap is reached or memory runs out. */
static void *arena_get(ev *e, const node *nd, size_t size)
{
    block *b = e->arena;
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!b || b->cap - b->used < size) {
        size_t cap = b ? b->cap * 2 : 4096;
        while (cap < size)
            cap *= 2;
        if (e->arena_bytes + cap > SDUI_EXPR_MAX_ARENA) {
            fail(e, SDUI_LIMIT, nd, "working memory past its limit");
            return NULL;
        }
        block *nb = sdui_malloc(sizeof *nb + cap);
        if (!nb) {
            if (e->st == SDUI_OK) {
                e->st = SDUI_OOM;
                sdui__oom(e->err);
            }
            return NULL;
        }
        nb->next = b;
        nb->used = 0;
        nb->cap = cap;
        e->arena = nb;
        e->arena_bytes += cap;
        b = nb;
    }
    void *r = (char *)b->data + b->used;
    b->used += size;
    return r;
}

/* Counts n units of work; 0 past the bound. */
static int step(ev *e, const node *nd, unsigned long n)
{
    e->steps += n;
    if (e->steps > SDUI_EXPR_MAX_STEPS)
        return fail(e, SDUI_LIMIT, nd, "evaluation took more than 1000000 steps");
    return 1;
}

/* A value of the caller's tree as an evaluator value (scalars copied). */
static val from_tree(const sdui_value *v)
{
    val r;
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
static size_t arr_len(const val *v)
{
    return v->t == V_ARR ? v->u.a.n : sdui_value_count(v->u.j);
}

/* Item i of an array value. */
static val arr_at(const val *v, size_t i)
{
    return v->t == V_ARR ? v->u.a.items[i] : from_tree(sdui_value_at(v->u.j, i));
}

/* 1 if v is an array (built or borrowed). */
static int is_arr(const val *v)
{
    return v->t == V_ARR || v->t == V_JARR;
}

/* 1 if v is a number. */
static int is_num(const val *v)
{
    return v->t == V_INT || v->t == V_REAL;
}

/* A number as a double. */
static double num_d(const val *v)
{
    return v->t == V_INT ? (double)v->u.i : v->u.d;
}

static val mkv(int t);

/* A new value of type t, zeroed. */
static val mkv(int t)
{
    val r;
    memset(&r, 0, sizeof r);
    r.t = (uint8_t)t;
    return r;
}

/* A decimal result, or an overflow error when it is not finite. */
static int real_out(ev *e, const node *nd, double d, val *out)
{
    if (!isfinite(d))
        return fail(e, SDUI_EXPR_OVERFLOW, nd, "decimal result is not finite");
    *out = mkv(V_REAL);
    out->u.d = d;
    return 1;
}

/* Deep equality (1 == 1.0; arrays by items, objects by members).  Counts
 * one step per value compared in e->steps; the caller checks the bound. */
static int equal(ev *e, const val *a, const val *b)
{
    e->steps++;
    if (is_num(a) && is_num(b)) {
        if (a->t == V_INT && b->t == V_INT)
            return a->u.i == b->u.i;
        return num_d(a) == num_d(b);
    }
    if (is_arr(a) && is_arr(b)) {
        size_t n = arr_len(a);
        if (n != arr_len(b))
            return 0;
        for (size_t i = 0; i < n; i++) {
            val x = arr_at(a, i), y = arr_at(b, i);
            if (!equal(e, &x, &y))
                return 0;
        }
        return 1;
    }
    if (a->t != b->t)
        return 0;
    switch (a->t) {
    case V_NULL: return 1;
    case V_BOOL: return !a->u.b == !b->u.b;
    case V_STR: return a->u.s.n == b->u.s.n && !memcmp(a->u.s.s, b->u.s.s, a->u.s.n);
    case V_JOBJ: {
        if (sdui_value_count(a->u.j) != sdui_value_count(b->u.j))
            return 0;
        for (const void *it = sdui_value_next(a->u.j, NULL); it; it = sdui_value_next(a->u.j, it)) {
            size_t kn;
            const char *k = sdui_value_iter_key(it, &kn);
            const sdui_value *o = sdui_value_get(b->u.j, k);
            if (!o)
                return 0;
            val x = from_tree(sdui_value_iter_value(it)), y = from_tree(o);
            if (!equal(e, &x, &y))
                return 0;
        }
        return 1;
    }
    default: return 0;
    }
}

/* Byte order of two strings (UTF-8 byte order is scalar-value order). */
static int str_cmp(const val *a, const val *b)
{
    size_t n = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;
    int c = memcmp(a->u.s.s, b->u.s.s, n);
    if (c)
        return c;
    return a->u.s.n < b->u.s.n ? -1 : a->u.s.n > b->u.s.n;
}

/* Orders two numbers or two strings into *cmp; 0 (type error) otherwise. */
static int order(const val *a, const val *b, int *cmp)
{
    if (is_num(a) && is_num(b)) {
        if (a->t == V_INT && b->t == V_INT)
            *cmp = a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
        else {
            double x = num_d(a), y = num_d(b);
            *cmp = x < y ? -1 : x > y;
        }
        return 1;
    }
    if (a->t == V_STR && b->t == V_STR) {
        *cmp = str_cmp(a, b);
        return 1;
    }
    return 0;
}

/* A new string of n bytes (plus NUL) in the arena; NULL on failure. */
static char *new_str(ev *e, const node *nd, size_t n, val *out)
{
    char *s;
    if (n > SDUI_EXPR_MAX_STRING) {
        fail(e, SDUI_LIMIT, nd, "string longer than 65536 bytes");
        return NULL;
    }
    s = arena_get(e, nd, n + 1);
    if (!s)
        return NULL;
    s[n] = 0;
    *out = mkv(V_STR);
    out->u.s.s = s;
    out->u.s.n = n;
    return s;
}

/* A new array of n items in the arena; NULL on failure. */
static val *new_arr(ev *e, const node *nd, size_t n, val *out)
{
    val *items;
    if (n > SDUI_EXPR_MAX_ITEMS) {
        fail(e, SDUI_LIMIT, nd, "array longer than 65536 items");
        return NULL;
    }
    items = arena_get(e, nd, (n ? n : 1) * sizeof *items);
    if (!items)
        return NULL;
    *out = mkv(V_ARR);
    out->u.a.items = items;
    out->u.a.n = n;
    return items;
}

/* Growing text for JSON rendering and string(); bounded. */
typedef struct text {
    char *s;
    size_t n, cap;
    int bad;             /* 1 over the bound, 2 out of memory, 3 the
                            arena failed (its error is set) */
    struct ev *e;        /* non-NULL: grow in this evaluation's arena */
    const struct node *nd;
} text;

static void *arena_get(struct ev *e, const node *nd, size_t size);

/* Appends bytes to a text. */
static void tx_add(text *t, const char *s, size_t n)
{
    if (t->bad)
        return;
    if (t->n + n > SDUI_EXPR_MAX_STRING) {
        t->bad = 1;
        return;
    }
    if (t->n + n + 1 > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        while (nc < t->n + n + 1) nc *= 2;
        char *ns;
        if (t->e) {
            /* In the arena: the old copy stays there until the end of the
             * evaluation (doubling keeps the waste below the final size). */
            ns = arena_get(t->e, t->nd, nc);
            if (!ns) {
                t->bad = 3;
                return;
            }
            if (t->n)
                memcpy(ns, t->s, t->n);
        } else {
            ns = sdui_realloc(t->s, nc);
        }
        if (!ns) {
            t->bad = 2;
            return;
        }
        t->s = ns;
        t->cap = nc;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = 0;
}

/* The JSON escape of byte c written to esc (room for 7 bytes) and its
 * length, or 0 when c stands for itself in a JSON string.  The one escape
 * rule of the results: tx_json_str writes it, json_str_len counts it. */
static size_t json_esc(unsigned char c, char *esc)
{
    if (c >= 0x20 && c != '"' && c != '\\')
        return 0;
    esc[0] = '\\';
    switch (c) {
    case '"': esc[1] = '"'; return 2;
    case '\\': esc[1] = '\\'; return 2;
    case '\n': esc[1] = 'n'; return 2;
    case '\r': esc[1] = 'r'; return 2;
    case '\t': esc[1] = 't'; return 2;
    case '\b': esc[1] = 'b'; return 2;
    case '\f': esc[1] = 'f'; return 2;
    default:
        snprintf(esc, 8, "\\u%04x", c);
        return 6;
    }
}

/* Appends s[0,n) as a JSON string. */
static void tx_json_str(text *t, const char *s, size_t n)
{
    char esc[8];
    size_t run = 0;
    tx_add(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        size_t k = json_esc((unsigned char)s[i], esc);
        if (!k)
            continue;
        tx_add(t, s + run, i - run);
        run = i + 1;
        tx_add(t, esc, k);
    }
    tx_add(t, s + run, n - run);
    tx_add(t, "\"", 1);
}

/* The length of s[0,n) written as a JSON string by tx_json_str. */
static size_t json_str_len(const char *s, size_t n)
{
    char esc[8];
    size_t len = 2;
    for (size_t i = 0; i < n; i++) {
        size_t k = json_esc((unsigned char)s[i], esc);
        len += k ? k : 1;
    }
    return len;
}

/* Appends a value as JSON text. */
static void tx_json(text *t, const val *v)
{
    char buf[40];
    switch (v->t) {
    case V_NULL: tx_add(t, "null", 4); break;
    case V_BOOL: v->u.b ? tx_add(t, "true", 4) : tx_add(t, "false", 5); break;
    case V_INT:
        snprintf(buf, sizeof buf, "%lld", (long long)v->u.i);
        tx_add(t, buf, strlen(buf));
        break;
    case V_REAL: tx_add(t, buf, sdui_number_text(v->u.d, buf)); break;
    case V_STR: tx_json_str(t, v->u.s.s, v->u.s.n); break;
    case V_ARR:
    case V_JARR: {
        size_t n = arr_len(v);
        tx_add(t, "[", 1);
        for (size_t i = 0; i < n && !t->bad; i++) {
            val x = arr_at(v, i);
            if (i) tx_add(t, ",", 1);
            tx_json(t, &x);
        }
        tx_add(t, "]", 1);
        break;
    }
    case V_JOBJ: {
        int first = 1;
        tx_add(t, "{", 1);
        for (const void *it = sdui_value_next(v->u.j, NULL); it && !t->bad;
             it = sdui_value_next(v->u.j, it)) {
            size_t kn;
            const char *k = sdui_value_iter_key(it, &kn);
            val x = from_tree(sdui_value_iter_value(it));
            if (!first) tx_add(t, ",", 1);
            first = 0;
            tx_json_str(t, k, kn);
            tx_add(t, ":", 1);
            tx_json(t, &x);
        }
        tx_add(t, "}", 1);
        break;
    }
    }
}

/*
 * The result as a tree: v appended to a builder (json_build.h), walked as
 * tx_json walks it, while *len adds up the bytes tx_json would write, so
 * the bound on a result's text holds for the tree to the byte without
 * the text being written.  Containers count their brackets and commas
 * before their items, so a huge one stops at once.  Returns 0 once the
 * count passes SDUI_EXPR_MAX_STRING or the builder has failed (it keeps
 * its error for sdui_json_builder_finish).
 */
static int tree_put(sdui_json_builder *b, const val *v, size_t *len)
{
    char buf[40];
    sdui_status st = SDUI_OK;
    switch (v->t) {
    case V_NULL:
        *len += 4;
        st = sdui_json_builder_null(b);
        break;
    case V_BOOL:
        *len += v->u.b ? 4 : 5;
        st = sdui_json_builder_bool(b, v->u.b);
        break;
    case V_INT:
        *len += (size_t)snprintf(buf, sizeof buf, "%lld", (long long)v->u.i);
        st = sdui_json_builder_int(b, v->u.i);
        break;
    case V_REAL:
        *len += sdui_number_text(v->u.d, buf);
        st = sdui_json_builder_real(b, v->u.d);
        break;
    case V_STR:
        *len += json_str_len(v->u.s.s, v->u.s.n);
        st = sdui_json_builder_string(b, v->u.s.s, v->u.s.n);
        break;
    case V_ARR:
    case V_JARR: {
        size_t n = arr_len(v);
        *len += n ? n + 1 : 2; /* brackets, commas */
        if (*len > SDUI_EXPR_MAX_STRING || sdui_json_builder_begin_array(b) != SDUI_OK)
            return 0;
        for (size_t i = 0; i < n; i++) {
            val x = arr_at(v, i);
            if (!tree_put(b, &x, len))
                return 0;
        }
        st = sdui_json_builder_end_array(b);
        break;
    }
    case V_JOBJ: {
        size_t n = sdui_value_count(v->u.j);
        *len += n ? 2 * n + 1 : 2; /* braces, colons, commas */
        if (*len > SDUI_EXPR_MAX_STRING || sdui_json_builder_begin_object(b) != SDUI_OK)
            return 0;
        for (const void *it = sdui_value_next(v->u.j, NULL); it;
             it = sdui_value_next(v->u.j, it)) {
            size_t kn;
            const char *k = sdui_value_iter_key(it, &kn);
            val x = from_tree(sdui_value_iter_value(it));
            *len += json_str_len(k, kn);
            if (*len > SDUI_EXPR_MAX_STRING || sdui_json_builder_key(b, k, kn) != SDUI_OK ||
                !tree_put(b, &x, len))
                return 0;
        }
        st = sdui_json_builder_end_object(b);
        break;
    }
    }
    return st == SDUI_OK && *len <= SDUI_EXPR_MAX_STRING;
}

static int eval(ev *e, int32_t i, val *out);

/* Member key or index k applied to one (non-spread) value; null if absent. */
static val step_into(const val *base, const val *k)
{
    if (k->t == V_STR && base->t == V_JOBJ) {
        if (memchr(k->u.s.s, 0, k->u.s.n))
            return mkv(V_NULL);
        return from_tree(sdui_value_get(base->u.j, k->u.s.s));
    }
    if (k->t == V_INT && is_arr(base)) {
        if (k->u.i < 0 || (uint64_t)k->u.i >= arr_len(base))
            return mkv(V_NULL);
        return arr_at(base, (size_t)k->u.i);
    }
    return mkv(V_NULL);
}

/* Applies a step to a base, mapping over a spread array (dropping nulls). */
static int apply_step(ev *e, const node *nd, const val *base, const val *k,
                      int wild, val *out)
{
    if (base->spread) {
        size_t n = base->u.a.n, m = 0, total = 0;
        /* First count, then fill: the arena holds only the result. */
        for (size_t i = 0; i < n; i++) {
            val it = base->u.a.items[i];
            if (wild)
                total += is_arr(&it) ? arr_len(&it) : 0;
            else
                total += step_into(&it, k).t != V_NULL;
        }
        if (!step(e, nd, n + total))
            return 0;
        val *items = new_arr(e, nd, total, out);
        if (!items)
            return 0;
        for (size_t i = 0; i < n; i++) {
            val it = base->u.a.items[i];
            if (wild) {
                if (!is_arr(&it))
                    continue;
                for (size_t j = 0; j < arr_len(&it); j++) {
                    val y = arr_at(&it, j);
                    if (y.t != V_NULL)
                        items[m++] = y;
                }
            } else {
                val y = step_into(&it, k);
                if (y.t != V_NULL)
                    items[m++] = y;
            }
        }
        out->u.a.n = m;
        out->spread = 1;
        return 1;
    }
    if (wild) {
        size_t n = is_arr(base) ? arr_len(base) : 0, m = 0;
        if (base->t == V_JOBJ)
            n = sdui_value_count(base->u.j);
        if (!step(e, nd, n))
            return 0;
        val *items = new_arr(e, nd, n, out);
        if (!items)
            return 0;
        if (is_arr(base)) {
            for (size_t j = 0; j < n; j++) {
                val y = arr_at(base, j);
                if (y.t != V_NULL)
                    items[m++] = y;
            }
        } else if (base->t == V_JOBJ) {
            for (const void *it = sdui_value_next(base->u.j, NULL); it;
                 it = sdui_value_next(base->u.j, it)) {
                val y = from_tree(sdui_value_iter_value(it));
                if (y.t != V_NULL)
                    items[m++] = y;
            }
        }
        out->u.a.n = m;
        out->spread = 1;
        return 1;
    }
    *out = step_into(base, k);
    return 1;
}

/* Checked 64-bit arithmetic; 0 on overflow. */
static int add_i(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_add_overflow(a, b, r);
}

/* Checked 64-bit subtraction; 0 on overflow. */
static int sub_i(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_sub_overflow(a, b, r);
}

/* Checked 64-bit multiplication; 0 on overflow. */
static int mul_i(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

/* A binary operator (not && || ??). */
static int binary(ev *e, const node *nd, const val *a, const val *b, val *out)
{
    int cmp;
    switch (nd->op) {
    case B_EQ:
    case B_NE:
        *out = mkv(V_BOOL);
        out->u.b = equal(e, a, b) == (nd->op == B_EQ);
        return step(e, nd, 0);
    case B_LT: case B_LE: case B_GT: case B_GE:
        if (!order(a, b, &cmp))
            return fail(e, SDUI_EXPR_TYPE, nd, "ordering needs two numbers or two strings");
        *out = mkv(V_BOOL);
        out->u.b = nd->op == B_LT ? cmp < 0 : nd->op == B_LE ? cmp <= 0
                 : nd->op == B_GT ? cmp > 0 : cmp >= 0;
        return 1;
    case B_IN:
        *out = mkv(V_BOOL);
        if (is_arr(b)) {
            size_t n = arr_len(b);
            if (!step(e, nd, n))
                return 0;
            for (size_t i = 0; i < n; i++) {
                val y = arr_at(b, i);
                if (equal(e, a, &y)) {
                    out->u.b = 1;
                    break;
                }
            }
            return step(e, nd, 0);
        }
        if (b->t == V_JOBJ && a->t == V_STR) {
            out->u.b = !memchr(a->u.s.s, 0, a->u.s.n) &&
                       sdui_value_get(b->u.j, a->u.s.s) != NULL;
            return 1;
        }
        return fail(e, SDUI_EXPR_TYPE, nd, "'in' needs an array, or a string and an object");
    case B_ADD:
        if (a->t == V_STR && b->t == V_STR) {
            char *s = new_str(e, nd, a->u.s.n + b->u.s.n, out);
            if (!s)
                return 0;
            memcpy(s, a->u.s.s, a->u.s.n);
            memcpy(s + a->u.s.n, b->u.s.s, b->u.s.n);
            return step(e, nd, out->u.s.n / 64);
        }
        if (is_arr(a) && is_arr(b)) {
            size_t na = arr_len(a), nb = arr_len(b);
            if (!step(e, nd, na + nb))
                return 0;
            val *items = new_arr(e, nd, na + nb, out);
            if (!items)
                return 0;
            for (size_t i = 0; i < na; i++) items[i] = arr_at(a, i);
            for (size_t i = 0; i < nb; i++) items[na + i] = arr_at(b, i);
            return 1;
        }
        /* fall through */
    case B_SUB: case B_MUL: case B_DIV: case B_MOD:
        if (!is_num(a) || !is_num(b))
            return fail(e, SDUI_EXPR_TYPE, nd, nd->op == B_ADD
                        ? "'+' needs two numbers, two strings or two arrays"
                        : "arithmetic needs two numbers");
        if (nd->op == B_DIV) {
            if (num_d(b) == 0)
                return fail(e, SDUI_EXPR_DIVISION, nd, "division by zero");
            return real_out(e, nd, num_d(a) / num_d(b), out);
        }
        if (nd->op == B_MOD && num_d(b) == 0)
            return fail(e, SDUI_EXPR_DIVISION, nd, "remainder by zero");
        if (a->t == V_INT && b->t == V_INT) {
            int64_t r;
            int ok;
            if (nd->op == B_ADD) ok = add_i(a->u.i, b->u.i, &r);
            else if (nd->op == B_SUB) ok = sub_i(a->u.i, b->u.i, &r);
            else if (nd->op == B_MUL) ok = mul_i(a->u.i, b->u.i, &r);
            else if (b->u.i == -1) { r = 0; ok = 1; }
            else { r = a->u.i % b->u.i; ok = 1; }
            if (!ok)
                return fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
            *out = mkv(V_INT);
            out->u.i = r;
            return 1;
        }
        {
            double x = num_d(a), y = num_d(b);
            double r = nd->op == B_ADD ? x + y : nd->op == B_SUB ? x - y
                     : nd->op == B_MUL ? x * y : fmod(x, y);
            return real_out(e, nd, r, out);
        }
    }
    return fail(e, SDUI_EXPR_TYPE, nd, "unknown operator");
}

/* ---------- matches(): Thompson NFA ---------- */

enum rx_op { RX_CHAR, RX_ANY, RX_CLASS, RX_SPLIT, RX_JMP, RX_BOL, RX_EOL,
             RX_MATCH };

typedef struct rx_ins {
    uint8_t op;
    uint8_t neg;         /* RX_CLASS: negated */
    int32_t x, y;        /* RX_SPLIT/RX_JMP targets; RX_CLASS: first range,
                            count; RX_CHAR: x = scalar value */
} rx_ins;

typedef struct rx {
    ev *e;
    const node *nd;
    const char *p;
    size_t n, pos;
    rx_ins *code;
    size_t nc, cap;
    long *ranges;        /* pairs lo, hi */
    size_t nr, rcap;
    unsigned depth;
    const char *bad;
} rx;

/* Emits one instruction; its index or -1. */
static int32_t rx_emit(rx *r, int op, int32_t x, int32_t y)
{
    if (r->nc >= r->cap) {
        r->bad = "pattern too long";
        return -1;
    }
    r->code[r->nc].op = (uint8_t)op;
    r->code[r->nc].neg = 0;
    r->code[r->nc].x = x;
    r->code[r->nc].y = y;
    return (int32_t)r->nc++;
}

/* Inserts one instruction at index at, shifting the code after it and the
 * jump targets into it. */
static int rx_insert(rx *r, size_t at, int op, int32_t x, int32_t y)
{
    if (r->nc >= r->cap) {
        r->bad = "pattern too long";
        return 0;
    }
    memmove(r->code + at + 1, r->code + at, (r->nc - at) * sizeof *r->code);
    r->nc++;
    for (size_t k = at + 1; k < r->nc; k++)
        if (r->code[k].op == RX_SPLIT || r->code[k].op == RX_JMP) {
            if (r->code[k].x >= (int32_t)at) r->code[k].x++;
            if (r->code[k].op == RX_SPLIT && r->code[k].y >= (int32_t)at) r->code[k].y++;
        }
    r->code[at].op = (uint8_t)op;
    r->code[at].neg = 0;
    r->code[at].x = x;
    r->code[at].y = y;
    return 1;
}

/* Adds a range lo..hi to the class table. */
static int rx_range(rx *r, long lo, long hi)
{
    if (r->nr + 2 > r->rcap) {
        r->bad = "pattern too long";
        return 0;
    }
    r->ranges[r->nr++] = lo;
    r->ranges[r->nr++] = hi;
    return 1;
}

/* Adds the ranges of \d \w \s (c) to the class table. */
static int rx_shorthand(rx *r, char c)
{
    if (c == 'd') return rx_range(r, '0', '9');
    if (c == 's') return rx_range(r, ' ', ' ') && rx_range(r, '\t', '\r');
    return rx_range(r, '0', '9') && rx_range(r, 'A', 'Z') &&
           rx_range(r, 'a', 'z') && rx_range(r, '_', '_');
}

/* One literal character of the pattern (after a backslash or plain). */
static long rx_char(rx *r)
{
    long cp = sdui__utf8_get(r->p, r->n, &r->pos);
    if (cp < 0)
        r->bad = "invalid UTF-8 in pattern";
    return cp;
}

/* A class [...] or [^...]. */
static int rx_class(rx *r)
{
    size_t first = r->nr;
    int neg = 0;
    r->pos++;
    if (r->pos < r->n && r->p[r->pos] == '^') { neg = 1; r->pos++; }
    int any = 0;
    while (1) {
        if (r->pos >= r->n) { r->bad = "unterminated class"; return 0; }
        if (r->p[r->pos] == ']' && any) { r->pos++; break; }
        any = 1;
        long lo;
        if (r->p[r->pos] == '\\') {
            r->pos++;
            if (r->pos >= r->n) { r->bad = "pattern ends in '\\'"; return 0; }
            char c = r->p[r->pos];
            if (c == 'd' || c == 'w' || c == 's') {
                r->pos++;
                if (!rx_shorthand(r, c)) return 0;
                continue;
            }
            lo = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : rx_char(r);
            if (c == 'n' || c == 't' || c == 'r') r->pos++;
        } else {
            lo = rx_char(r);
        }
        if (lo < 0) return 0;
        long hi = lo;
        if (r->pos + 1 < r->n && r->p[r->pos] == '-' && r->p[r->pos + 1] != ']') {
            r->pos++;
            if (r->p[r->pos] == '\\') {
                r->pos++;
                if (r->pos >= r->n) { r->bad = "pattern ends in '\\'"; return 0; }
            }
            hi = rx_char(r);
            if (hi < 0) return 0;
            if (hi < lo) { r->bad = "class range out of order"; return 0; }
        }
        if (!rx_range(r, lo, hi)) return 0;
    }
    /* x: the first range's index in the table, y: the number of ranges. */
    int32_t at = rx_emit(r, RX_CLASS, (int32_t)first, (int32_t)((r->nr - first) / 2));
    if (at < 0) return 0;
    r->code[at].neg = (uint8_t)neg;
    return 1;
}

static int rx_alt(rx *r);

/* An atom with an optional quantifier * + ?. */
static int rx_piece(rx *r)
{
    size_t start = r->nc;
    char c = r->p[r->pos];
    if (c == '(') {
        r->pos++;
        if (++r->depth > SDUI_EXPR_MAX_NESTING) { r->bad = "groups nested deeper than 64"; return 0; }
        if (!rx_alt(r)) return 0;
        r->depth--;
        if (r->pos >= r->n || r->p[r->pos] != ')') { r->bad = "')' expected"; return 0; }
        r->pos++;
    } else if (c == '[') {
        if (!rx_class(r)) return 0;
    } else if (c == '.') {
        r->pos++;
        if (rx_emit(r, RX_ANY, 0, 0) < 0) return 0;
    } else if (c == '^') {
        r->pos++;
        return rx_emit(r, RX_BOL, 0, 0) >= 0;
    } else if (c == '$') {
        r->pos++;
        return rx_emit(r, RX_EOL, 0, 0) >= 0;
    } else if (c == '*' || c == '+' || c == '?') {
        r->bad = "quantifier without an atom";
        return 0;
    } else if (c == '\\') {
        r->pos++;
        if (r->pos >= r->n) { r->bad = "pattern ends in '\\'"; return 0; }
        char d = r->p[r->pos];
        if (d == 'd' || d == 'w' || d == 's') {
            size_t first = r->nr;
            r->pos++;
            if (!rx_shorthand(r, d)) return 0;
            if (rx_emit(r, RX_CLASS, (int32_t)first, (int32_t)((r->nr - first) / 2)) < 0) return 0;
        } else {
            long cp = d == 'n' ? '\n' : d == 't' ? '\t' : d == 'r' ? '\r' : -2;
            if (cp == -2) {
                if (ident_char(d, 0)) { r->bad = "unknown escape"; return 0; }
                cp = rx_char(r);
            } else {
                r->pos++;
            }
            if (cp < 0 || rx_emit(r, RX_CHAR, (int32_t)cp, 0) < 0) return 0;
        }
    } else {
        long cp = rx_char(r);
        if (cp < 0 || rx_emit(r, RX_CHAR, (int32_t)cp, 0) < 0) return 0;
    }
    if (r->pos < r->n) {
        char q = r->p[r->pos];
        if (q == '*') {
            r->pos++;
            if (!rx_insert(r, start, RX_SPLIT, (int32_t)start + 1, 0)) return 0;
            if (rx_emit(r, RX_JMP, (int32_t)start, 0) < 0) return 0;
            r->code[start].y = (int32_t)r->nc;
        } else if (q == '+') {
            r->pos++;
            if (rx_emit(r, RX_SPLIT, (int32_t)start, (int32_t)r->nc + 1) < 0) return 0;
        } else if (q == '?') {
            r->pos++;
            if (!rx_insert(r, start, RX_SPLIT, (int32_t)start + 1, 0)) return 0;
            r->code[start].y = (int32_t)r->nc;
        }
        if (r->pos < r->n && (r->p[r->pos] == '*' || r->p[r->pos] == '+' || r->p[r->pos] == '?')) {
            r->bad = "repeated quantifier";
            return 0;
        }
    }
    return 1;
}

/* A concatenation of pieces up to | or ) or the end. */
static int rx_cat(rx *r)
{
    while (r->pos < r->n && r->p[r->pos] != '|' && r->p[r->pos] != ')')
        if (!rx_piece(r))
            return 0;
    return 1;
}

/* Alternatives a|b|c. */
static int rx_alt(rx *r)
{
    size_t start = r->nc;
    if (!rx_cat(r))
        return 0;
    while (r->pos < r->n && r->p[r->pos] == '|') {
        r->pos++;
        if (!rx_insert(r, start, RX_SPLIT, (int32_t)start + 1, 0))
            return 0;
        int32_t j = rx_emit(r, RX_JMP, 0, 0);
        if (j < 0)
            return 0;
        r->code[start].y = (int32_t)r->nc;
        if (!rx_cat(r))
            return 0;
        r->code[j].x = (int32_t)r->nc;
    }
    return 1;
}

/* 1 if scalar c is in class instruction in. */
static int rx_in_class(const rx *r, const rx_ins *in, long c)
{
    int hit = 0;
    for (int32_t k = 0; k < in->y; k++)
        if (c >= r->ranges[in->x + 2 * k] && c <= r->ranges[in->x + 2 * k + 1]) {
            hit = 1;
            break;
        }
    return hit != in->neg;
}

/* Adds instruction pc and what it reaches without input to list; returns
 * 1 if RX_MATCH was reached.  stack has room for every instruction. */
static int rx_add(rx *r, int32_t *list, size_t *n, unsigned *mark, unsigned gen,
                  int32_t *stack, int32_t pc, int at_start, int at_end)
{
    size_t sp = 0;
    int matched = 0;
    stack[sp++] = pc;
    while (sp) {
        int32_t k = stack[--sp];
        if (mark[k] == gen)
            continue;
        mark[k] = gen;
        const rx_ins *in = &r->code[k];
        switch (in->op) {
        case RX_SPLIT:
            stack[sp++] = in->y;
            stack[sp++] = in->x;
            break;
        case RX_JMP:
            stack[sp++] = in->x;
            break;
        case RX_BOL:
            if (at_start) stack[sp++] = k + 1;
            break;
        case RX_EOL:
            if (at_end) stack[sp++] = k + 1;
            break;
        case RX_MATCH:
            matched = 1;
            break;
        default:
            list[(*n)++] = k;
        }
    }
    return matched;
}

/* matches(s, pattern): 1/0 into *hit; 0 with the error set on failure. */
static int rx_match(ev *e, const node *nd, const val *s, const val *pat, int *hit)
{
    rx r;
    memset(&r, 0, sizeof r);
    r.e = e;
    r.nd = nd;
    r.p = pat->u.s.s;
    r.n = pat->u.s.n;
    r.cap = 3 * r.n + 2;
    r.rcap = 16 * r.n + 16;
    r.code = arena_get(e, nd, r.cap * sizeof *r.code);
    r.ranges = r.code ? arena_get(e, nd, r.rcap * sizeof *r.ranges) : NULL;
    if (!r.ranges)
        return 0;
    if (!rx_alt(&r) || r.pos < r.n) {
        if (!r.bad)
            r.bad = "unbalanced ')'";
        char msg[96];
        snprintf(msg, sizeof msg, "bad pattern (%s at pattern byte %zu)", r.bad, r.pos);
        return fail(e, SDUI_EXPR_VALUE, nd, msg);
    }
    if (rx_emit(&r, RX_MATCH, 0, 0) < 0)
        return fail(e, SDUI_EXPR_VALUE, nd, "bad pattern (too long)");
    size_t nc = r.nc;
    int32_t *cl = arena_get(e, nd, nc * sizeof *cl);
    int32_t *nl = cl ? arena_get(e, nd, nc * sizeof *nl) : NULL;
    int32_t *stack = nl ? arena_get(e, nd, (2 * nc + 2) * sizeof *stack) : NULL;
    unsigned *mark = stack ? arena_get(e, nd, nc * sizeof *mark) : NULL;
    if (!mark)
        return 0;
    memset(mark, 0, nc * sizeof *mark);
    size_t ncl = 0, nnl;
    unsigned gen = 1;
    size_t i = 0, n = s->u.s.n;
    const char *t = s->u.s.s;
    *hit = 0;
    if (rx_add(&r, cl, &ncl, mark, gen, stack, 0, 1, n == 0)) {
        *hit = 1;
        return 1;
    }
    while (i < n) {
        long c = sdui__utf8_get(t, n, &i);
        if (c < 0) {
            c = 0xFFFD;
            i++;
        }
        if (!step(e, nd, 1 + ncl / 8))
            return 0;
        gen++;
        nnl = 0;
        int at_end = i >= n;
        for (size_t k = 0; k < ncl; k++) {
            const rx_ins *in = &r.code[cl[k]];
            int ok = in->op == RX_ANY ? (c != '\n')
                   : in->op == RX_CHAR ? c == in->x
                   : rx_in_class(&r, in, c);
            if (ok && rx_add(&r, nl, &nnl, mark, gen, stack, cl[k] + 1, 0, at_end)) {
                *hit = 1;
                return 1;
            }
        }
        /* Unanchored search: a new thread at every position. */
        if (rx_add(&r, nl, &nnl, mark, gen, stack, 0, 0, at_end)) {
            *hit = 1;
            return 1;
        }
        int32_t *tmp = cl; cl = nl; nl = tmp;
        ncl = nnl;
    }
    return 1;
}

/* ---------- functions ---------- */

/* Number of Unicode scalar values in a string (bytes that are not UTF-8
 * continuation bytes). */
static size_t scalars(const val *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->u.s.n; i++)
        n += ((unsigned char)s->u.s.s[i] & 0xC0) != 0x80;
    return n;
}

/* Rounds half away from zero to digits places. */
static double round_to(double x, int64_t digits)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    double p = p10[digits];
    if (fabs(x) * p >= 4503599627370496.0)
        return x;
    return round(x * p) / p;
}

/* A double that is integral into an int64; 0 (overflow) out of range. */
static int to_i(ev *e, const node *nd, double d, val *out)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return fail(e, SDUI_EXPR_OVERFLOW, nd, "result outside the 64-bit integer range");
    *out = mkv(V_INT);
    out->u.i = (int64_t)d;
    return 1;
}

/* Parses a whole string as a number (int when it is an integer literal);
 * 0 if it is not one.  int_only: integer literals only. */
static int parse_num_text(const val *s, int int_only, val *out)
{
    char buf[400];
    size_t n = s->u.s.n, i = 0;
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s->u.s.s, n);
    buf[n] = 0;
    if (buf[i] == '-') i++;
    if (buf[i] < '0' || buf[i] > '9')
        return 0;
    size_t digits_start = i;
    while (buf[i] >= '0' && buf[i] <= '9') i++;
    if (i - digits_start > 1 && buf[digits_start] == '0')
        return 0;
    int real = 0;
    if (buf[i] == '.') {
        real = 1;
        i++;
        if (buf[i] < '0' || buf[i] > '9') return 0;
        while (buf[i] >= '0' && buf[i] <= '9') i++;
    }
    if (buf[i] == 'e' || buf[i] == 'E') {
        real = 1;
        i++;
        if (buf[i] == '+' || buf[i] == '-') i++;
        if (buf[i] < '0' || buf[i] > '9') return 0;
        while (buf[i] >= '0' && buf[i] <= '9') i++;
    }
    if (i != n)
        return 0;
    if (!real) {
        char *end;
        long long v;
        v = strtoll(buf, &end, 10);
        if (v == LLONG_MAX || v == LLONG_MIN) {
            /* Distinguish the edges from out-of-range text. */
            char chk[32];
            snprintf(chk, sizeof chk, "%lld", v);
            if (strcmp(chk, buf) != 0)
                return 0;
        }
        *out = mkv(V_INT);
        out->u.i = v;
        return 1;
    }
    if (int_only)
        return 0;
    double d = sdui__strtod(buf, NULL);
    if (!isfinite(d))
        return 0;
    *out = mkv(V_REAL);
    out->u.d = d;
    return 1;
}

/* Aggregates sum/avg/min/max over an array value. */
static int aggregate(ev *e, const node *nd, int fn, const val *arr, val *out)
{
    size_t n = arr_len(arr);
    if (!step(e, nd, n))
        return 0;
    if (fn == F_MIN || fn == F_MAX) {
        if (n == 0) {
            *out = mkv(V_NULL);
            return 1;
        }
        val best = arr_at(arr, 0);
        if (!is_num(&best) && best.t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "min/max need numbers or strings");
        for (size_t i = 1; i < n; i++) {
            val y = arr_at(arr, i);
            int cmp;
            if (!order(&y, &best, &cmp))
                return fail(e, SDUI_EXPR_TYPE, nd, "min/max need all numbers or all strings");
            if (fn == F_MIN ? cmp < 0 : cmp > 0)
                best = y;
        }
        *out = best;
        out->spread = 0;
        return 1;
    }
    /* sum / avg */
    int64_t si = 0;
    double sd = 0;
    int real = 0;
    for (size_t i = 0; i < n; i++) {
        val y = arr_at(arr, i);
        if (!is_num(&y))
            return fail(e, SDUI_EXPR_TYPE, nd, "sum/avg need an array of numbers");
        if (!real && y.t == V_INT) {
            if (!add_i(si, y.u.i, &si))
                return fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
        } else {
            if (!real) {
                real = 1;
                sd = (double)si;
            }
            sd += num_d(&y);
        }
    }
    if (fn == F_AVG) {
        if (n == 0) {
            *out = mkv(V_NULL);
            return 1;
        }
        return real_out(e, nd, (real ? sd : (double)si) / (double)n, out);
    }
    if (real)
        return real_out(e, nd, sd, out);
    *out = mkv(V_INT);
    out->u.i = si;
    return 1;
}

/* Sorts key strings (insertion sort; keys of one object). */
static void sort_keys(val *k, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        val x = k[i];
        size_t j = i;
        while (j > 0 && str_cmp(&k[j - 1], &x) > 0) {
            k[j] = k[j - 1];
            j--;
        }
        k[j] = x;
    }
}

/* Renders v as text into a new arena string (string()). */
static int to_string(ev *e, const node *nd, const val *v, val *out)
{
    char buf[40];
    text t = {NULL, 0, 0, 0, NULL, NULL};
    if (v->t == V_STR) {
        *out = *v;
        return 1;
    }
    if (v->t == V_REAL) {
        size_t n = sdui_number_text(v->u.d, buf);
        char *s = new_str(e, nd, n, out);
        if (!s) return 0;
        memcpy(s, buf, n);
        return 1;
    }
    t.e = e;
    t.nd = nd;
    tx_json(&t, v);
    if (t.bad == 3)
        return 0;
    if (t.bad)
        return fail(e, SDUI_LIMIT, nd, "string longer than 65536 bytes");
    if (!t.s) /* nothing written cannot happen: JSON text is never empty */
        return fail(e, SDUI_EXPR_TYPE, nd, "empty rendering");
    *out = mkv(V_STR);
    out->u.s.s = t.s; /* NUL-terminated by tx_add */
    out->u.s.n = t.n;
    return 1;
}

/* Calls function fn on the evaluated arguments. */
static int call(ev *e, const node *nd, val *a, int32_t argc, val *out)
{
    int fn = nd->op;
    switch (fn) {
    case F_LEN:
        *out = mkv(V_INT);
        if (a[0].t == V_STR) out->u.i = (int64_t)scalars(&a[0]);
        else if (is_arr(&a[0])) out->u.i = (int64_t)arr_len(&a[0]);
        else if (a[0].t == V_JOBJ) out->u.i = (int64_t)sdui_value_count(a[0].u.j);
        else return fail(e, SDUI_EXPR_TYPE, nd, "len needs a string, an array or an object");
        return 1;
    case F_SUM: case F_AVG:
        if (!is_arr(&a[0]))
            return fail(e, SDUI_EXPR_TYPE, nd, "sum/avg need an array");
        return aggregate(e, nd, fn, &a[0], out);
    case F_MIN: case F_MAX:
        if (argc == 1) {
            if (!is_arr(&a[0]))
                return fail(e, SDUI_EXPR_TYPE, nd, "min/max need an array or several values");
            return aggregate(e, nd, fn, &a[0], out);
        } else {
            val list = mkv(V_ARR);
            list.u.a.items = a;
            list.u.a.n = (size_t)argc;
            return aggregate(e, nd, fn, &list, out);
        }
    case F_COUNT: {
        if (!is_arr(&a[0]))
            return fail(e, SDUI_EXPR_TYPE, nd, "count needs an array");
        size_t n = arr_len(&a[0]), c = 0;
        if (!step(e, nd, n)) return 0;
        for (size_t i = 0; i < n; i++)
            c += arr_at(&a[0], i).t != V_NULL;
        *out = mkv(V_INT);
        out->u.i = (int64_t)c;
        return 1;
    }
    case F_CONTAINS:
        *out = mkv(V_BOOL);
        if (a[0].t == V_STR && a[1].t == V_STR) {
            const char *h = a[0].u.s.s, *nn = a[1].u.s.s;
            size_t hn = a[0].u.s.n, nl = a[1].u.s.n;
            if (!step(e, nd, hn / 16 + 1)) return 0;
            for (size_t i = 0; nl <= hn && i <= hn - nl; i++)
                if (!memcmp(h + i, nn, nl)) { out->u.b = 1; break; }
            return 1;
        }
        if (is_arr(&a[0])) {
            size_t n = arr_len(&a[0]);
            if (!step(e, nd, n)) return 0;
            for (size_t i = 0; i < n; i++) {
                val y = arr_at(&a[0], i);
                if (equal(e, &y, &a[1])) { out->u.b = 1; break; }
            }
            return step(e, nd, 0);
        }
        return fail(e, SDUI_EXPR_TYPE, nd, "contains needs two strings, or an array and a value");
    case F_STARTS: case F_ENDS:
        if (a[0].t != V_STR || a[1].t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "starts_with/ends_with need two strings");
        *out = mkv(V_BOOL);
        if (a[1].u.s.n <= a[0].u.s.n)
            out->u.b = !memcmp(a[0].u.s.s + (fn == F_ENDS ? a[0].u.s.n - a[1].u.s.n : 0),
                               a[1].u.s.s, a[1].u.s.n);
        return 1;
    case F_LOWER: case F_UPPER: {
        if (a[0].t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "lower/upper need a string");
        char *s = new_str(e, nd, a[0].u.s.n, out);
        if (!s) return 0;
        for (size_t i = 0; i < a[0].u.s.n; i++) {
            char c = a[0].u.s.s[i];
            if (fn == F_LOWER && c >= 'A' && c <= 'Z') c = (char)(c + 32);
            if (fn == F_UPPER && c >= 'a' && c <= 'z') c = (char)(c - 32);
            s[i] = c;
        }
        return 1;
    }
    case F_TRIM: {
        if (a[0].t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "trim needs a string");
        const char *s = a[0].u.s.s;
        size_t b = 0, n = a[0].u.s.n;
        while (b < n && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n' || s[b] == '\r')) b++;
        while (n > b && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
        *out = mkv(V_STR);
        out->u.s.s = s + b;
        out->u.s.n = n - b;
        /* Borrowed strings must stay NUL-terminated for key lookups: copy. */
        char *c = new_str(e, nd, n - b, out);
        if (!c) return 0;
        memcpy(c, s + b, n - b);
        return 1;
    }
    case F_ROUND: case F_FLOOR: case F_CEIL: case F_ABS:
        if (!is_num(&a[0]))
            return fail(e, SDUI_EXPR_TYPE, nd, "round/floor/ceil/abs need a number");
        if (fn == F_ROUND && argc == 2) {
            if (a[1].t != V_INT)
                return fail(e, SDUI_EXPR_TYPE, nd, "round's digits must be an integer");
            if (a[1].u.i < 0 || a[1].u.i > 15)
                return fail(e, SDUI_EXPR_VALUE, nd, "round's digits must be 0 to 15");
            if (a[0].t == V_INT) { *out = a[0]; return 1; }
            return real_out(e, nd, round_to(a[0].u.d, a[1].u.i), out);
        }
        if (a[0].t == V_INT) {
            *out = a[0];
            if (fn == F_ABS && a[0].u.i < 0) {
                if (a[0].u.i == INT64_MIN)
                    return fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
                out->u.i = -a[0].u.i;
            }
            return 1;
        }
        if (fn == F_ABS)
            return real_out(e, nd, fabs(a[0].u.d), out);
        return to_i(e, nd, fn == F_ROUND ? round(a[0].u.d) : fn == F_FLOOR
                    ? floor(a[0].u.d) : ceil(a[0].u.d), out);
    case F_STRING:
        return to_string(e, nd, &a[0], out);
    case F_NUMBER: case F_INT:
        if (is_num(&a[0])) {
            if (fn == F_NUMBER || a[0].t == V_INT) { *out = a[0]; return 1; }
            return to_i(e, nd, trunc(a[0].u.d), out);
        }
        if (a[0].t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "number/int need a string or a number");
        if (!parse_num_text(&a[0], fn == F_INT, out))
            return fail(e, SDUI_EXPR_VALUE, nd, fn == F_INT ? "not an integer" : "not a number");
        return 1;
    case F_FIXED: {
        char buf[400];
        if (!is_num(&a[0]) || a[1].t != V_INT)
            return fail(e, SDUI_EXPR_TYPE, nd, "fixed needs a number and an integer");
        if (a[1].u.i < 0 || a[1].u.i > 15)
            return fail(e, SDUI_EXPR_VALUE, nd, "fixed's digits must be 0 to 15");
        double d = a[0].t == V_INT ? (double)a[0].u.i : round_to(a[0].u.d, a[1].u.i);
        if (!isfinite(d))
            return fail(e, SDUI_EXPR_OVERFLOW, nd, "decimal result is not finite");
        int n = sdui__number_fixed(d, (int)a[1].u.i, buf, sizeof buf);
        if (n < 0 || (size_t)n >= sizeof buf)
            return fail(e, SDUI_LIMIT, nd, "number too long to format");
        if (!strncmp(buf, "-0", 2) && !strpbrk(buf, "123456789"))
            memmove(buf, buf + 1, (size_t)n--);
        char *s = new_str(e, nd, (size_t)n, out);
        if (!s) return 0;
        memcpy(s, buf, (size_t)n);
        return 1;
    }
    case F_JOIN: {
        if (!is_arr(&a[0]) || a[1].t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "join needs an array of strings and a string");
        size_t n = arr_len(&a[0]), total = 0;
        if (!step(e, nd, n)) return 0;
        for (size_t i = 0; i < n; i++) {
            val y = arr_at(&a[0], i);
            if (y.t != V_STR)
                return fail(e, SDUI_EXPR_TYPE, nd, "join needs an array of strings");
            total += y.u.s.n + (i ? a[1].u.s.n : 0);
            if (total > SDUI_EXPR_MAX_STRING)
                return fail(e, SDUI_LIMIT, nd, "string longer than 65536 bytes");
        }
        char *s = new_str(e, nd, total, out);
        if (!s) return 0;
        for (size_t i = 0; i < n; i++) {
            val y = arr_at(&a[0], i);
            if (i) { memcpy(s, a[1].u.s.s, a[1].u.s.n); s += a[1].u.s.n; }
            memcpy(s, y.u.s.s, y.u.s.n);
            s += y.u.s.n;
        }
        return 1;
    }
    case F_KEYS: {
        if (a[0].t != V_JOBJ)
            return fail(e, SDUI_EXPR_TYPE, nd, "keys needs an object");
        size_t n = sdui_value_count(a[0].u.j), m = 0;
        if (!step(e, nd, n)) return 0;
        val *items = new_arr(e, nd, n, out);
        if (!items) return 0;
        for (const void *it = sdui_value_next(a[0].u.j, NULL); it && m < n;
             it = sdui_value_next(a[0].u.j, it)) {
            items[m] = mkv(V_STR);
            items[m].u.s.s = sdui_value_iter_key(it, &items[m].u.s.n);
            m++;
        }
        out->u.a.n = m;
        sort_keys(items, m);
        return 1;
    }
    case F_ALL: case F_ANY: {
        if (!is_arr(&a[0]))
            return fail(e, SDUI_EXPR_TYPE, nd, "all/any need an array of booleans");
        size_t n = arr_len(&a[0]);
        int r = fn == F_ALL;
        if (!step(e, nd, n)) return 0;
        for (size_t i = 0; i < n; i++) {
            val y = arr_at(&a[0], i);
            if (y.t != V_BOOL)
                return fail(e, SDUI_EXPR_TYPE, nd, "all/any need an array of booleans");
            if (fn == F_ALL) r = r && y.u.b;
            else r = r || y.u.b;
        }
        *out = mkv(V_BOOL);
        out->u.b = r;
        return 1;
    }
    case F_COALESCE:
        *out = mkv(V_NULL);
        for (int32_t i = 0; i < argc; i++)
            if (a[i].t != V_NULL) { *out = a[i]; break; }
        out->spread = 0;
        return 1;
    case F_MATCHES: {
        int hit = 0;   /* set by rx_match when it succeeds */
        if (a[0].t != V_STR || a[1].t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "matches needs two strings");
        if (a[1].u.s.n > 1024)
            return fail(e, SDUI_LIMIT, nd, "pattern longer than 1024 bytes");
        if (!rx_match(e, nd, &a[0], &a[1], &hit)) return 0;
        *out = mkv(V_BOOL);
        out->u.b = hit;
        return 1;
    }
    }
    return fail(e, SDUI_EXPR_TYPE, nd, "unknown function");
}

/* Evaluates node i into *out; 0 with e->st set on failure. */
static int eval(ev *e, int32_t i, val *out)
{
    const node *nd = &e->x->nodes[i];
    val a, b;
    if (!step(e, nd, 1))
        return 0;
    switch (nd->kind) {
    case N_NULL: *out = mkv(V_NULL); return 1;
    case N_BOOL: *out = mkv(V_BOOL); out->u.b = (int)nd->v.i; return 1;
    case N_INT: *out = mkv(V_INT); out->u.i = nd->v.i; return 1;
    case N_REAL: *out = mkv(V_REAL); out->u.d = nd->v.d; return 1;
    case N_STR:
        *out = mkv(V_STR);
        out->u.s.s = e->x->pool + nd->b;
        out->u.s.n = (size_t)nd->c;
        return 1;
    case N_ARRAY: {
        val *items = new_arr(e, nd, (size_t)nd->b, out);
        if (!items) return 0;
        for (int32_t k = 0; k < nd->b; k++) {
            if (!eval(e, e->x->kids[nd->a + k], &items[k])) return 0;
            items[k].spread = 0;
        }
        return 1;
    }
    case N_ROOT: {
        const sdui_value *v = e->lookup ? e->lookup(e->ctx, e->x->pool + nd->b, (size_t)nd->c) : NULL;
        *out = from_tree(v);
        return 1;
    }
    case N_MEMBER:
        if (!eval(e, nd->a, &a)) return 0;
        b = mkv(V_STR);
        b.u.s.s = e->x->pool + nd->b;
        b.u.s.n = (size_t)nd->c;
        return apply_step(e, nd, &a, &b, 0, out);
    case N_INDEX:
        if (!eval(e, nd->a, &a) || !eval(e, nd->b, &b)) return 0;
        if (b.t != V_INT && b.t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "an index must be an integer or a string");
        return apply_step(e, nd, &a, &b, 0, out);
    case N_WILD:
        if (!eval(e, nd->a, &a)) return 0;
        return apply_step(e, nd, &a, NULL, 1, out);
    case N_NOT:
        if (!eval(e, nd->a, &a)) return 0;
        if (a.t != V_BOOL)
            return fail(e, SDUI_EXPR_TYPE, nd, "'!' needs a boolean");
        *out = mkv(V_BOOL);
        out->u.b = !a.u.b;
        return 1;
    case N_NEG:
        if (!eval(e, nd->a, &a)) return 0;
        if (a.t == V_INT) {
            if (a.u.i == INT64_MIN)
                return fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
            *out = mkv(V_INT);
            out->u.i = -a.u.i;
            return 1;
        }
        if (a.t == V_REAL) {
            *out = mkv(V_REAL);
            out->u.d = -a.u.d;
            return 1;
        }
        return fail(e, SDUI_EXPR_TYPE, nd, "unary '-' needs a number");
    case N_AND: case N_OR:
        if (!eval(e, nd->a, &a)) return 0;
        if (a.t != V_BOOL)
            return fail(e, SDUI_EXPR_TYPE, nd, nd->kind == N_AND ? "'&&' needs booleans" : "'||' needs booleans");
        if ((nd->kind == N_AND) != !!a.u.b) {
            *out = a;
            return 1;
        }
        if (!eval(e, nd->b, &b)) return 0;
        if (b.t != V_BOOL)
            return fail(e, SDUI_EXPR_TYPE, nd, nd->kind == N_AND ? "'&&' needs booleans" : "'||' needs booleans");
        *out = b;
        return 1;
    case N_COALESCE:
        if (!eval(e, nd->a, &a)) return 0;
        if (a.t != V_NULL) {
            *out = a;
            return 1;
        }
        return eval(e, nd->b, out);
    case N_COND:
        if (!eval(e, nd->a, &a)) return 0;
        if (a.t != V_BOOL)
            return fail(e, SDUI_EXPR_TYPE, nd, "the condition of '?:' must be a boolean");
        return eval(e, a.u.b ? nd->b : nd->c, out);
    case N_BIN:
        if (!eval(e, nd->a, &a) || !eval(e, nd->b, &b)) return 0;
        a.spread = b.spread = 0;
        return binary(e, nd, &a, &b, out);
    case N_CALL: {
        val *args = arena_get(e, nd, (size_t)(nd->b ? nd->b : 1) * sizeof *args);
        if (!args) return 0;
        for (int32_t k = 0; k < nd->b; k++) {
            if (!eval(e, e->x->kids[nd->a + k], &args[k])) return 0;
            args[k].spread = 0;
        }
        return call(e, nd, args, nd->b, out);
    }
    }
    return fail(e, SDUI_EXPR_TYPE, nd, "bad node");
}

/* Frees an evaluation's arena. */
static void arena_free(ev *e)
{
    while (e->arena) {
        block *nb = e->arena->next;
        sdui_free(e->arena);
        e->arena = nb;
    }
}

/* Runs the program into *r (the public entry points share it): 1 with
 * the arena alive (what *r points into; the caller frees it with
 * arena_free), 0 with it freed and e->st set. */
static int run(ev *e, const sdui_expr *prog, sdui_expr_lookup lookup, void *ctx,
               sdui_error *err, val *r)
{
    memset(e, 0, sizeof *e);
    e->x = prog;
    e->lookup = lookup;
    e->ctx = ctx;
    e->err = err;
    e->st = SDUI_OK;
    /* The first block, sized from the program. */
    arena_get(e, &prog->nodes[prog->root], prog->n_nodes * sizeof(val) * 2 + 1024);
    if (e->st == SDUI_OK && eval(e, prog->root, r)) {
        r->spread = 0;
        return 1;
    }
    arena_free(e);
    return 0;
}

/* Evaluates into JSON text (expr.h). */
sdui_status sdui_expr_eval_json(const sdui_expr *prog, sdui_expr_lookup lookup,
                                void *ctx, char **json, size_t *len,
                                sdui_error *err)
{
    text t = {NULL, 0, 0, 0, NULL, NULL};
    ev e;
    val r;
    if (!prog || !json)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "expr: eval_json: %s is NULL",
                          prog ? "json" : "prog");
    *json = NULL;
    if (!run(&e, prog, lookup, ctx, err, &r))
        return e.st;
    tx_json(&t, &r);
    if (t.bad == 1)
        fail(&e, SDUI_LIMIT, &prog->nodes[prog->root], "result longer than 65536 bytes");
    else if (t.bad == 2) {
        e.st = SDUI_OOM;
        sdui__oom(err);
    }
    arena_free(&e);
    if (e.st != SDUI_OK) {
        sdui_free(t.s);
        return e.st;
    }
    *json = t.s;
    if (len)
        *len = t.n;
    return SDUI_OK;
}

/* Evaluates into a value tree (expr.h): the result is built as a tree
 * directly, never written as text and parsed back. */
sdui_status sdui_expr_eval(const sdui_expr *prog, sdui_expr_lookup lookup,
                           void *ctx, sdui_json_doc **result, sdui_error *err)
{
    sdui_json_builder *b = NULL;
    sdui_status st;
    size_t len = 0;
    ev e;
    val r;
    if (!prog || !result)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "expr: eval: %s is NULL",
                          prog ? "result" : "prog");
    *result = NULL;
    if (!run(&e, prog, lookup, ctx, err, &r))
        return e.st;
    /* No depth bound of the builder's own: the result's depth is the
     * data's (bounded where the data was read) plus the program's
     * nesting (SDUI_EXPR_MAX_NESTING). */
    st = sdui__json_builder_open_depth(&b, UINT_MAX, err);
    if (st == SDUI_OK) {
        tree_put(b, &r, &len);
        if (len > SDUI_EXPR_MAX_STRING) {
            fail(&e, SDUI_LIMIT, &prog->nodes[prog->root], "result longer than 65536 bytes");
            st = SDUI_LIMIT;
        } else {
            sdui_error berr;
            st = sdui_json_builder_finish(b, result, &berr);
            if (st == SDUI_OOM)
                sdui__oom(err);
            else if (st != SDUI_OK && err)
                *err = berr; /* not expected: the values are the language's */
        }
        sdui_json_builder_free(b);
    }
    arena_free(&e);
    return st;
}
