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
 * String lengths, array lengths and the arena's bytes are bounded.
 *
 * Work.  An evaluation may do at most SDUI_EXPR_MAX_STEPS steps of work,
 * and every operation counts the work it actually does, before or while
 * doing it, so the bound holds its time (bench/c/expr_worst.c measures
 * the slowest evaluations hostile data can force).  A node is a step; so
 * is each item or member visited (two for a pair compared), and each
 * SDUI_EXPR_STEP_BYTES bytes of string work: compared, copied, scanned or
 * hashed.  The caller's data may hold strings and arrays far longer than
 * any the evaluator makes, so long comparisons and scans count a chunk at
 * a time and stop at the bound, not after it.  A member lookup counts its
 * key's bytes and a step per bit of the object's size (a large table
 * misses the cache); in a token's tree, whose lookup is a scan, a step per
 * member.  keys() sorts with a merge sort whose comparisons count;
 * contains() searches with the two-way algorithm, counting its byte
 * comparisons and windows; matches() counts each instruction its
 * simulation reaches, ε-moves included, and each probe of a class.
 *
 * Numbers.  An integer and a decimal compare by their exact values, never
 * through a conversion that rounds (num_cmp), so equality is transitive
 * and min/max pick the right one; sum() and avg() add integers exactly.
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
 * matches().  The pattern is compiled per call into the arena, through a
 * small tree, to an instruction list (char, any, class, split, jump, ^, $,
 * match), counted repetition expanded within SDUI_EXPR_MAX_PROGRAM
 * instructions, and run as a Thompson state-set simulation over the
 * Unicode scalar values of the subject: each input character advances the
 * set of live instructions once, so the time is O(program x subject) and
 * nothing backtracks (the essay before rx_match).
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
#include "token_tree.h"

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

/* Counts the work of n bytes compared, copied, scanned or hashed: one
 * step, and one more per SDUI_EXPR_STEP_BYTES of them. */
static int step_bytes(ev *e, const node *nd, size_t n)
{
    return step(e, nd, 1 + n / SDUI_EXPR_STEP_BYTES);
}

/* Bytes a long comparison or scan handles between two checks of the
 * bound: a string of the caller's data may be far longer than any the
 * evaluator makes, so its work is counted as it goes, not after. */
#define CHUNK 4096

/* Compares a and b over n bytes into *cmp (memcmp's sign), a chunk at a
 * time with each chunk counted, so that strings that differ early cost
 * little and long ones stop at the bound; 0 past the bound. */
static int cmp_bytes(ev *e, const node *nd, const char *a, const char *b,
                     size_t n, int *cmp)
{
    size_t i = 0;
    *cmp = 0;
    if (a == b)
        return step(e, nd, 1);
    do {
        size_t k = n - i < CHUNK ? n - i : CHUNK;
        if (!step_bytes(e, nd, k))
            return 0;
        *cmp = memcmp(a + i, b + i, k);
        i += k;
    } while (*cmp == 0 && i < n);
    return 1;
}

/* The member named k (n bytes) of the object o into *out, NULL when it
 * has none or k holds a NUL (no key does; a C lookup would stop there).
 * Counts the lookup: a step, the key's bytes three times (the NUL check,
 * the lookup's length and its hash or comparisons), a step per bit of the
 * member count (a hash table's probes miss the cache more often the
 * larger it is), and in a token's tree, whose lookup scans the members, a
 * step per member.  0 past the bound. */
static int obj_get(ev *e, const node *nd, const sdui_value *o, const char *k,
                   size_t n, const sdui_value **out)
{
    size_t members = sdui_value_count(o);
    unsigned long work = 1 + 3 * (n / SDUI_EXPR_STEP_BYTES);
    *out = NULL;
    for (size_t c = members; c; c >>= 1)
        work++;
    if (sdui__tree_holds(o))
        work += members;
    if (!step(e, nd, work))
        return 0;
    if (!memchr(k, 0, n))
        *out = sdui_value_get(o, k);
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

/* The order of integer i and decimal d by their exact values: -1, 0, 1.
 * Converting i to a double would round it (past 2^53 a double skips
 * integers), so d is split instead: outside [-2^63, 2^63) it is beyond
 * every integer; inside, its integral part t is an exact int64 that i is
 * compared with, and when they are equal d's fraction decides. */
static int cmp_int_real(int64_t i, double d)
{
    double t;
    int64_t ti;
    if (d >= 9223372036854775808.0)
        return -1;
    if (d < -9223372036854775808.0)
        return 1;
    assert(d == d); /* decimals are always finite, never NaN */
    t = trunc(d);
    ti = (int64_t)t;
    if (i != ti)
        return i < ti ? -1 : 1;
    return d > t ? -1 : d < t ? 1 : 0;
}

/* The order of two numbers by their exact values, as SQLite and Python
 * compare an integer with a decimal: -1, 0, 1. */
static int num_cmp(const val *a, const val *b)
{
    if (a->t == V_INT && b->t == V_INT)
        return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
    if (a->t == V_REAL && b->t == V_REAL)
        return a->u.d < b->u.d ? -1 : a->u.d > b->u.d;
    if (a->t == V_INT)
        return cmp_int_real(a->u.i, b->u.d);
    return -cmp_int_real(b->u.i, a->u.d);
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

/* Deep equality of a and b into *eq: numbers by their exact values (1 ==
 * 1.0, 9007199254740993 != 9007199254740992.0), strings by their bytes,
 * arrays item by item, objects member by member.  A value compared with
 * itself (the same string or tree of the data) is equal at once.  Counts
 * two steps a pair of values, the bytes of strings compared, and for
 * objects the keys compared and looked up; 0 past the bound (e->st set),
 * checked as it goes, so a huge array stops at the bound, not after it. */
static int equal(ev *e, const node *nd, const val *a, const val *b, int *eq)
{
    *eq = 0;
    if (!step(e, nd, 2))
        return 0;
    if (is_num(a) && is_num(b)) {
        *eq = num_cmp(a, b) == 0;
        return 1;
    }
    if (is_arr(a) && is_arr(b)) {
        size_t n = arr_len(a);
        if (n != arr_len(b))
            return 1;
        if (a->t == b->t && (a->t == V_JARR ? a->u.j == b->u.j : a->u.a.items == b->u.a.items)) {
            *eq = 1;
            return 1;
        }
        for (size_t i = 0; i < n; i++) {
            val x = arr_at(a, i), y = arr_at(b, i);
            if (!equal(e, nd, &x, &y, eq))
                return 0;
            if (!*eq)
                return 1;
        }
        *eq = 1;
        return 1;
    }
    if (a->t != b->t)
        return 1;
    switch (a->t) {
    case V_NULL:
        *eq = 1;
        return 1;
    case V_BOOL:
        *eq = !a->u.b == !b->u.b;
        return 1;
    case V_STR: {
        int c;
        if (a->u.s.n != b->u.s.n)
            return 1;
        if (!cmp_bytes(e, nd, a->u.s.s, b->u.s.s, a->u.s.n, &c))
            return 0;
        *eq = c == 0;
        return 1;
    }
    case V_JOBJ: {
        /* Walked side by side: where the members come in the same order
         * (a copy, the same document) each key is compared with the one
         * beside it; elsewhere it is looked up. */
        const void *ia, *ib;
        if (sdui_value_count(a->u.j) != sdui_value_count(b->u.j))
            return 1;
        if (a->u.j == b->u.j) {
            *eq = 1;
            return 1;
        }
        ib = sdui_value_next(b->u.j, NULL);
        for (ia = sdui_value_next(a->u.j, NULL); ia; ia = sdui_value_next(a->u.j, ia)) {
            size_t kn, ln;
            const char *k = sdui_value_iter_key(ia, &kn);
            const sdui_value *o = NULL;
            if (ib) {
                const char *l = sdui_value_iter_key(ib, &ln);
                int c = 1;
                if (ln == kn && !cmp_bytes(e, nd, k, l, kn, &c))
                    return 0;
                if (c == 0)
                    o = sdui_value_iter_value(ib);
                ib = sdui_value_next(b->u.j, ib);
            }
            if (!o && !obj_get(e, nd, b->u.j, k, kn, &o))
                return 0;
            if (!o) {
                *eq = 0; /* (the members before it left it 1) */
                return 1;
            }
            val x = from_tree(sdui_value_iter_value(ia)), y = from_tree(o);
            if (!equal(e, nd, &x, &y, eq))
                return 0;
            if (!*eq)
                return 1;
        }
        *eq = 1;
        return 1;
    }
    default:
        return 1;
    }
}

/* The byte order of two strings into *cmp (UTF-8 byte order is the
 * order of scalar values), counting the bytes compared; 0 past the
 * bound. */
static int str_cmp(ev *e, const node *nd, const val *a, const val *b, int *cmp)
{
    size_t n = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;
    if (!cmp_bytes(e, nd, a->u.s.s, b->u.s.s, n, cmp))
        return 0;
    if (*cmp == 0)
        *cmp = a->u.s.n < b->u.s.n ? -1 : a->u.s.n > b->u.s.n;
    return 1;
}

/* Orders two numbers (by their exact values) or two strings into *cmp:
 * 1; 0 when they are neither (a type error for the caller); -1 past the
 * bound (e->st set). */
static int order(ev *e, const node *nd, const val *a, const val *b, int *cmp)
{
    if (is_num(a) && is_num(b)) {
        *cmp = num_cmp(a, b);
        return 1;
    }
    if (a->t == V_STR && b->t == V_STR)
        return str_cmp(e, nd, a, b, cmp) ? 1 : -1;
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
    unsigned long values; /* values written (string() counts them) */
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

/* Appends s[0,n) as a JSON string.  A string that cannot fit (its text
 * is at least n + 2 bytes) fails the text before it is read. */
static void tx_json_str(text *t, const char *s, size_t n)
{
    char esc[8];
    size_t run = 0;
    if (n > SDUI_EXPR_MAX_STRING || t->n + n + 2 > SDUI_EXPR_MAX_STRING) {
        if (!t->bad)
            t->bad = 1;
        return;
    }
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

/* The length of s[0,n) written as a JSON string by tx_json_str; a string
 * too long to fit is not read (its text is at least n + 2 bytes). */
static size_t json_str_len(const char *s, size_t n)
{
    char esc[8];
    size_t len = 2;
    if (n > SDUI_EXPR_MAX_STRING)
        return n + 2;
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
    t->values++;
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

/* Member key or index k applied to one (non-spread) value into *out,
 * null if absent; a member lookup is counted (obj_get).  0 past the
 * bound. */
static int step_into(ev *e, const node *nd, const val *base, const val *k, val *out)
{
    *out = mkv(V_NULL);
    if (k->t == V_STR && base->t == V_JOBJ) {
        const sdui_value *m;
        if (!obj_get(e, nd, base->u.j, k->u.s.s, k->u.s.n, &m))
            return 0;
        *out = from_tree(m);
        return 1;
    }
    if (k->t == V_INT && is_arr(base)) {
        if (k->u.i >= 0 && (uint64_t)k->u.i < arr_len(base))
            *out = arr_at(base, (size_t)k->u.i);
    }
    return 1;
}

/* Applies a step to a base, mapping over a spread array (dropping nulls). */
static int apply_step(ev *e, const node *nd, const val *base, const val *k,
                      int wild, val *out)
{
    if (base->spread && wild) {
        size_t n = base->u.a.n, m = 0, total = 0;
        /* First count, then fill: the arena holds only the result. */
        for (size_t i = 0; i < n; i++) {
            val it = base->u.a.items[i];
            total += is_arr(&it) ? arr_len(&it) : 0;
        }
        if (!step(e, nd, n + total))
            return 0;
        val *items = new_arr(e, nd, total, out);
        if (!items)
            return 0;
        for (size_t i = 0; i < n; i++) {
            val it = base->u.a.items[i];
            if (!is_arr(&it))
                continue;
            for (size_t j = 0; j < arr_len(&it); j++) {
                val y = arr_at(&it, j);
                if (y.t != V_NULL)
                    items[m++] = y;
            }
        }
        out->u.a.n = m;
        out->spread = 1;
        return 1;
    }
    if (base->spread) {
        /* At most one result per item: room for n, then the count. */
        size_t n = base->u.a.n, m = 0;
        if (!step(e, nd, n))
            return 0;
        val *items = new_arr(e, nd, n, out);
        if (!items)
            return 0;
        for (size_t i = 0; i < n; i++) {
            val y;
            if (!step_into(e, nd, &base->u.a.items[i], k, &y))
                return 0;
            if (y.t != V_NULL)
                items[m++] = y;
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
    return step_into(e, nd, base, k, out);
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
    case B_NE: {
        int eq;
        if (!equal(e, nd, a, b, &eq))
            return 0;
        *out = mkv(V_BOOL);
        out->u.b = eq == (nd->op == B_EQ);
        return 1;
    }
    case B_LT: case B_LE: case B_GT: case B_GE: {
        int r = order(e, nd, a, b, &cmp);
        if (r < 0)
            return 0;
        if (r == 0)
            return fail(e, SDUI_EXPR_TYPE, nd, "ordering needs two numbers or two strings");
        *out = mkv(V_BOOL);
        out->u.b = nd->op == B_LT ? cmp < 0 : nd->op == B_LE ? cmp <= 0
                 : nd->op == B_GT ? cmp > 0 : cmp >= 0;
        return 1;
    }
    case B_IN:
        *out = mkv(V_BOOL);
        if (is_arr(b)) {
            size_t n = arr_len(b);
            if (!step(e, nd, n))
                return 0;
            for (size_t i = 0; i < n; i++) {
                val y = arr_at(b, i);
                int eq;
                if (!equal(e, nd, a, &y, &eq))
                    return 0;
                if (eq) {
                    out->u.b = 1;
                    break;
                }
            }
            return 1;
        }
        if (b->t == V_JOBJ && a->t == V_STR) {
            const sdui_value *m;
            if (!obj_get(e, nd, b->u.j, a->u.s.s, a->u.s.n, &m))
                return 0;
            out->u.b = m != NULL;
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
            return step_bytes(e, nd, out->u.s.n);
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

/*
 * A pattern is compiled per call, into the evaluation's arena, in two
 * passes, then run over the subject as a state-set simulation.
 *
 * Parse.  Recursive descent (alternation, concatenation, piece, atom)
 * builds a small tree: characters, `.`, classes, ^ and $, concatenations
 * and alternations (children in a list), and repetitions {min, max} (`*`
 * is {0,inf}, `+` {1,inf}, `?` {0,1}, and {m}, {m,}, {m,n} as written).
 * A class's ranges are sorted and merged into a table, so a character is
 * tested against it by binary search.  Each tree node knows how many
 * instructions it compiles to, computed as it is built and saturating just
 * past SDUI_EXPR_MAX_PROGRAM: a counted repetition multiplies its body, so
 * a pattern whose program would pass the bound is refused at the byte
 * where it does (the quantifier, or the piece that tips a sum over),
 * before anything is emitted.  Group nesting is bounded
 * (SDUI_EXPR_MAX_NESTING), so the recursion is.
 *
 * Emit.  The tree is walked once into a flat list of instructions (char,
 * any, class, split, jump, ^, $, match).  A repetition emits its body min
 * times, then either one loop (an unbounded max) or max - min optional
 * copies, each behind a split that jumps to the end: x{2,4} is x x (x
 * (x)?)? flattened.  Copies are emitted again from the tree, so nothing
 * is relocated.  A subtree that compiles to nothing (an empty group) is not
 * walked, so the walk does work in proportion to the program.
 *
 * Run.  Thompson's simulation over the subject's Unicode scalar values:
 * the set of live instructions advances once per character, each
 * instruction at most once per set (a generation mark), and a new thread
 * starts at every position (the match may be anywhere).  The time is
 * O(program x subject) whatever the pattern: nothing backtracks.  When no
 * thread is live and a new one could not get past the pattern's start
 * (a pattern that begins with ^), the rest of the subject is skipped but
 * for its end, where $ may still match.
 *
 * Work.  Everything is counted: the pattern's bytes, tree nodes, class
 * sorting and the emitted instructions at compile; at run, every
 * instruction reached, ε-moves (splits, jumps, ^, $) included, every
 * thread stepped and every probe of a class's binary search.  A step pays
 * for RX_UNITS of these, and each character costs a step of its own.
 */

/* Units of regex work (above) in one step. */
#define RX_UNITS 2

enum rx_op { RX_CHAR, RX_ANY, RX_CLASS, RX_SPLIT, RX_JMP, RX_BOL, RX_EOL,
             RX_MATCH };

/* One instruction. */
typedef struct rx_ins {
    uint8_t op;
    uint8_t neg;         /* RX_CLASS: negated */
    int32_t x, y;        /* RX_SPLIT: both targets; RX_JMP: x the target;
                            RX_CLASS: x the first range, y the count;
                            RX_CHAR: x the scalar value */
} rx_ins;

enum rx_kind { RK_EMPTY, RK_CHAR, RK_ANY, RK_CLASS, RK_BOL, RK_EOL, RK_CAT,
               RK_ALT, RK_REP };

/* One node of a pattern's tree. */
typedef struct rx_node {
    uint8_t kind;
    uint8_t neg;         /* RK_CLASS: negated */
    int32_t x, y;        /* RK_CHAR: x the scalar; RK_CLASS: x the first
                            range, y the count; RK_REP: x min, y max (-1:
                            none) */
    int32_t first;       /* RK_CAT, RK_ALT: the first child; RK_REP: the
                            body; else -1 */
    int32_t next;        /* the next sibling in a list, or -1 */
    uint32_t at;         /* the pattern byte it starts at (RK_REP: its
                            quantifier) */
    uint32_t size;       /* instructions it compiles to, at most
                            SDUI_EXPR_MAX_PROGRAM + 1 */
} rx_node;

/* One range of a class, lo <= hi. */
typedef struct rx_range {
    int32_t lo, hi;
} rx_range;

/* A pattern being compiled and run. */
typedef struct rx {
    ev *e;
    const node *nd;
    const char *p;
    size_t n, pos;
    rx_node *tree;
    size_t nt, tcap;
    rx_range *ranges;
    size_t nr, rcap;
    rx_ins *code;
    size_t nc, cap;
    unsigned depth;
    const char *bad;     /* what is wrong with the pattern, or NULL */
    size_t bad_at;       /* and the byte it is at */
    unsigned long work;  /* units of compile work */
} rx;

/* Records a fault of the pattern at byte at (the first one wins);
 * returns -1. */
static int32_t rx_bad(rx *r, const char *what, size_t at)
{
    if (!r->bad) {
        r->bad = what;
        r->bad_at = at;
    }
    return -1;
}

/* A new tree node; its index, or -1. */
static int32_t rx_node_new(rx *r, int kind, size_t at, uint32_t size)
{
    rx_node *t;
    if (r->nt >= r->tcap)
        return rx_bad(r, "pattern too complex", at); /* not reached: 4 per byte */
    r->work++;
    t = &r->tree[r->nt];
    memset(t, 0, sizeof *t);
    t->kind = (uint8_t)kind;
    t->first = t->next = -1;
    t->at = (uint32_t)at;
    t->size = size;
    return (int32_t)r->nt++;
}

/* a + b, or one past the program bound when that is more. */
static uint32_t rx_sum(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s > SDUI_EXPR_MAX_PROGRAM ? SDUI_EXPR_MAX_PROGRAM + 1 : (uint32_t)s;
}

/* Adds a range lo..hi to the class table. */
static int rx_range_add(rx *r, long lo, long hi)
{
    if (r->nr >= r->rcap) {
        rx_bad(r, "pattern too complex", r->pos); /* not reached: 4 per 2 bytes */
        return 0;
    }
    r->ranges[r->nr].lo = (int32_t)lo;
    r->ranges[r->nr].hi = (int32_t)hi;
    r->nr++;
    return 1;
}

/* Adds the ranges of \d \w \s (c) to the class table. */
static int rx_shorthand(rx *r, char c)
{
    if (c == 'd') return rx_range_add(r, '0', '9');
    if (c == 's') return rx_range_add(r, ' ', ' ') && rx_range_add(r, '\t', '\r');
    return rx_range_add(r, '0', '9') && rx_range_add(r, 'A', 'Z') &&
           rx_range_add(r, 'a', 'z') && rx_range_add(r, '_', '_');
}

/* One literal character of the pattern (UTF-8) at the cursor; -1 when it
 * is not valid UTF-8. */
static long rx_char(rx *r)
{
    size_t at = r->pos;
    long cp = sdui__utf8_get(r->p, r->n, &r->pos);
    if (cp < 0)
        rx_bad(r, "invalid UTF-8 in pattern", at);
    return cp;
}

/* The order of two ranges by their low ends, for qsort. */
static int rx_range_cmp(const void *a, const void *b)
{
    const rx_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A class node over the ranges added from first on: they are sorted by
 * their low ends, and those that overlap or touch merged, so that a
 * character is tested by binary search.  Its index, or -1. */
static int32_t rx_class_node(rx *r, size_t start, size_t first, int neg)
{
    size_t m = r->nr - first, k = 0;
    int32_t t;
    if (m > 1) {
        unsigned long logm = 1;
        while ((1ul << logm) < m)
            logm++;
        r->work += m * logm;
        qsort(r->ranges + first, m, sizeof *r->ranges, rx_range_cmp);
    }
    for (size_t i = 0; i < m; i++) {
        rx_range g = r->ranges[first + i];
        if (k && g.lo <= r->ranges[first + k - 1].hi + 1) {
            if (g.hi > r->ranges[first + k - 1].hi)
                r->ranges[first + k - 1].hi = g.hi;
        } else {
            r->ranges[first + k++] = g;
        }
    }
    r->nr = first + k;
    t = rx_node_new(r, RK_CLASS, start, 1);
    if (t >= 0) {
        r->tree[t].x = (int32_t)first;
        r->tree[t].y = (int32_t)k;
        r->tree[t].neg = (uint8_t)neg;
    }
    return t;
}

/* One member of a class after '[' (a character, an escape, or the end of
 * a range): its scalar value; -2 for a shorthand \d \w \s, whose ranges
 * it adds; -1 on a fault. */
static long rx_class_char(rx *r)
{
    if (r->p[r->pos] != '\\')
        return rx_char(r);
    r->pos++;
    if (r->pos >= r->n)
        return rx_bad(r, "pattern ends in '\\'", r->pos - 1);
    char c = r->p[r->pos];
    if (c == 'd' || c == 'w' || c == 's') {
        r->pos++;
        return rx_shorthand(r, c) ? -2 : -1;
    }
    if (c == 'n' || c == 't' || c == 'r') {
        r->pos++;
        return c == 'n' ? '\n' : c == 't' ? '\t' : '\r';
    }
    return rx_char(r);
}

/* A class [...] or [^...]: its ranges sorted and merged. */
static int32_t rx_class(rx *r)
{
    size_t start = r->pos, first = r->nr;
    int neg = 0, any = 0;
    r->pos++;
    if (r->pos < r->n && r->p[r->pos] == '^') {
        neg = 1;
        r->pos++;
    }
    while (1) {
        if (r->pos >= r->n)
            return rx_bad(r, "unterminated class", start);
        if (r->p[r->pos] == ']' && any) {
            r->pos++;
            break;
        }
        any = 1;
        size_t at = r->pos;
        long lo = rx_class_char(r), hi;
        if (lo == -1)
            return -1;
        if (lo == -2)
            continue;
        hi = lo;
        if (r->pos + 1 < r->n && r->p[r->pos] == '-' && r->p[r->pos + 1] != ']') {
            r->pos++;
            hi = rx_class_char(r);
            if (hi == -1)
                return -1;
            if (hi == -2)
                return rx_bad(r, "class range ends in \\d, \\w or \\s", at);
            if (hi < lo)
                return rx_bad(r, "class range out of order", at);
        }
        if (!rx_range_add(r, lo, hi))
            return -1;
    }
    return rx_class_node(r, start, first, neg);
}

static int32_t rx_alt(rx *r);

/* A decimal count of a counted repetition (at most SDUI_EXPR_MAX_REPEAT)
 * at the cursor; -1 on a fault. */
static long rx_count(rx *r, size_t brace)
{
    long v = 0;
    size_t start = r->pos;
    while (r->pos < r->n && r->p[r->pos] >= '0' && r->p[r->pos] <= '9') {
        v = v * 10 + (r->p[r->pos] - '0');
        if (v > SDUI_EXPR_MAX_REPEAT)
            return rx_bad(r, "count above 1000", start);
        r->pos++;
    }
    if (r->pos == start)
        return rx_bad(r, "'{' without a count (\\{ is the character)", brace);
    return v;
}

/* The number of instructions x{min,max} compiles to (max -1: no max) for
 * a body of s, saturating past the bound. */
static uint32_t rx_rep_size(uint32_t s, long min, long max)
{
    uint64_t total;
    if (s == 0)
        return 0;
    if (max < 0)
        total = min == 0 ? (uint64_t)s + 2 : (uint64_t)min * s + 1;
    else
        total = (uint64_t)min * s + (uint64_t)(max - min) * ((uint64_t)s + 1);
    return rx_sum(total, 0);
}

/* An atom with an optional quantifier: * + ? {m} {m,} {m,n}. */
static int32_t rx_piece(rx *r)
{
    size_t start = r->pos;
    char c = r->p[r->pos];
    int32_t t;
    if (c == '(') {
        r->pos++;
        if (++r->depth > SDUI_EXPR_MAX_NESTING)
            return rx_bad(r, "groups nested deeper than 64", start);
        t = rx_alt(r);
        if (t < 0)
            return -1;
        r->depth--;
        if (r->pos >= r->n || r->p[r->pos] != ')')
            return rx_bad(r, "')' expected", r->pos);
        r->pos++;
    } else if (c == '[') {
        t = rx_class(r);
    } else if (c == '.') {
        r->pos++;
        t = rx_node_new(r, RK_ANY, start, 1);
    } else if (c == '^' || c == '$') {
        /* An anchor takes no quantifier: one after it is an error below. */
        r->pos++;
        return rx_node_new(r, c == '^' ? RK_BOL : RK_EOL, start, 1);
    } else if (c == '*' || c == '+' || c == '?' || c == '{') {
        return rx_bad(r, "quantifier without an atom", start);
    } else if (c == '\\') {
        r->pos++;
        if (r->pos >= r->n)
            return rx_bad(r, "pattern ends in '\\'", start);
        char d = r->p[r->pos];
        if (d == 'd' || d == 'w' || d == 's') {
            size_t first = r->nr;
            r->pos++;
            if (!rx_shorthand(r, d))
                return -1;
            t = rx_class_node(r, start, first, 0);
        } else {
            long cp;
            if (d == 'n' || d == 't' || d == 'r') {
                cp = d == 'n' ? '\n' : d == 't' ? '\t' : '\r';
                r->pos++;
            } else if (ident_char(d, 0)) {
                return rx_bad(r, "unknown escape", start);
            } else {
                cp = rx_char(r);
                if (cp < 0)
                    return -1;
            }
            t = rx_node_new(r, RK_CHAR, start, 1);
            if (t >= 0)
                r->tree[t].x = (int32_t)cp;
        }
    } else {
        long cp = rx_char(r);
        if (cp < 0)
            return -1;
        t = rx_node_new(r, RK_CHAR, start, 1);
        if (t >= 0)
            r->tree[t].x = (int32_t)cp;
    }
    if (t < 0 || r->pos >= r->n)
        return t;
    /* The quantifier, if any. */
    size_t q = r->pos;
    long min, max;
    c = r->p[q];
    if (c == '*' || c == '+' || c == '?') {
        r->pos++;
        min = c == '+';
        max = c == '?' ? 1 : -1;
    } else if (c == '{') {
        r->pos++;
        min = rx_count(r, q);
        if (min < 0)
            return -1;
        max = min;
        if (r->pos < r->n && r->p[r->pos] == ',') {
            r->pos++;
            if (r->pos < r->n && r->p[r->pos] == '}')
                max = -1;
            else if ((max = rx_count(r, q)) < 0)
                return -1;
        }
        if (r->pos >= r->n || r->p[r->pos] != '}')
            return rx_bad(r, "'}' expected", r->pos);
        r->pos++;
        if (max >= 0 && max < min)
            return rx_bad(r, "count out of order", q);
    } else {
        return t;
    }
    if (r->pos < r->n) {
        c = r->p[r->pos];
        if (c == '*' || c == '+' || c == '?' || c == '{')
            return rx_bad(r, "repeated quantifier", r->pos);
    }
    int32_t rep = rx_node_new(r, RK_REP, q, rx_rep_size(r->tree[t].size, min, max));
    if (rep < 0)
        return -1;
    if (r->tree[rep].size > SDUI_EXPR_MAX_PROGRAM)
        return rx_bad(r, "program longer than 4096 instructions", q);
    r->tree[rep].x = (int32_t)min;
    r->tree[rep].y = (int32_t)max;
    r->tree[rep].first = t;
    return rep;
}

/* A concatenation of pieces up to | or ) or the end: one node (a piece,
 * a concatenation, or the empty pattern). */
static int32_t rx_cat(rx *r)
{
    size_t start = r->pos;
    int32_t first = -1, last = -1, count = 0;
    uint32_t size = 0;
    while (r->pos < r->n && r->p[r->pos] != '|' && r->p[r->pos] != ')') {
        int32_t t = rx_piece(r);
        if (t < 0)
            return -1;
        size = rx_sum(size, r->tree[t].size);
        if (size > SDUI_EXPR_MAX_PROGRAM)
            return rx_bad(r, "program longer than 4096 instructions", r->tree[t].at);
        if (last >= 0)
            r->tree[last].next = t;
        else
            first = t;
        last = t;
        count++;
    }
    if (count == 1)
        return first;
    int32_t cat = rx_node_new(r, count ? RK_CAT : RK_EMPTY, start, size);
    if (cat >= 0)
        r->tree[cat].first = first;
    return cat;
}

/* Alternatives a|b|c: one node (the only alternative, or an
 * alternation). */
static int32_t rx_alt(rx *r)
{
    size_t start = r->pos;
    int32_t first = rx_cat(r), last = first;
    uint32_t size;
    if (first < 0 || r->pos >= r->n || r->p[r->pos] != '|')
        return first;
    size = r->tree[first].size;
    while (r->pos < r->n && r->p[r->pos] == '|') {
        r->pos++;
        int32_t t = rx_cat(r);
        if (t < 0)
            return -1;
        /* A split and a jump for each alternative past the first. */
        size = rx_sum(size, (uint64_t)r->tree[t].size + 2);
        if (size > SDUI_EXPR_MAX_PROGRAM)
            return rx_bad(r, "program longer than 4096 instructions", r->tree[t].at);
        r->tree[last].next = t;
        last = t;
    }
    int32_t alt = rx_node_new(r, RK_ALT, start, size);
    if (alt >= 0)
        r->tree[alt].first = first;
    return alt;
}

/* Emits one instruction; its index (the room was counted in advance). */
static int32_t rx_ins_new(rx *r, int op, int32_t x, int32_t y)
{
    assert(r->nc < r->cap);
    r->work++;
    r->code[r->nc].op = (uint8_t)op;
    r->code[r->nc].neg = 0;
    r->code[r->nc].x = x;
    r->code[r->nc].y = y;
    return (int32_t)r->nc++;
}

/* Emits tree node i (the essay above: Emit). */
static void rx_emit(rx *r, int32_t i)
{
    const rx_node *t = &r->tree[i];
    int32_t c, chain = -1, at;
    r->work++;
    if (t->size == 0)
        return;
    switch (t->kind) {
    case RK_CHAR: rx_ins_new(r, RX_CHAR, t->x, 0); break;
    case RK_ANY: rx_ins_new(r, RX_ANY, 0, 0); break;
    case RK_BOL: rx_ins_new(r, RX_BOL, 0, 0); break;
    case RK_EOL: rx_ins_new(r, RX_EOL, 0, 0); break;
    case RK_CLASS:
        at = rx_ins_new(r, RX_CLASS, t->x, t->y);
        r->code[at].neg = t->neg;
        break;
    case RK_CAT:
        for (c = t->first; c >= 0; c = r->tree[c].next)
            rx_emit(r, c);
        break;
    case RK_ALT:
        /* split L1, L2; L1: a; jmp end; L2: split ...; last: z; end:
         * the jumps chained through their targets until the end is known. */
        for (c = t->first; r->tree[c].next >= 0; c = r->tree[c].next) {
            at = rx_ins_new(r, RX_SPLIT, (int32_t)r->nc + 1, 0);
            rx_emit(r, c);
            chain = rx_ins_new(r, RX_JMP, chain, 0);
            r->code[at].y = (int32_t)r->nc;
        }
        rx_emit(r, c);
        while (chain >= 0) {
            int32_t prev = r->code[chain].x;
            r->code[chain].x = (int32_t)r->nc;
            chain = prev;
        }
        break;
    case RK_REP: {
        int32_t min = t->x, max = t->y, k;
        for (k = 0; k < min - (max < 0 && min > 0); k++)
            rx_emit(r, t->first);
        if (max < 0 && min == 0) {
            /* L: split body, end; body; jmp L; end: */
            at = rx_ins_new(r, RX_SPLIT, (int32_t)r->nc + 1, 0);
            rx_emit(r, t->first);
            rx_ins_new(r, RX_JMP, at, 0);
            r->code[at].y = (int32_t)r->nc;
        } else if (max < 0) {
            /* L: body; split L, next */
            at = (int32_t)r->nc;
            rx_emit(r, t->first);
            rx_ins_new(r, RX_SPLIT, at, (int32_t)r->nc + 1);
        } else {
            /* Optional copies: split body, end; body; ... end: */
            for (k = min; k < max; k++) {
                chain = rx_ins_new(r, RX_SPLIT, (int32_t)r->nc + 1, chain);
                rx_emit(r, t->first);
            }
            while (chain >= 0) {
                int32_t prev = r->code[chain].y;
                r->code[chain].y = (int32_t)r->nc;
                chain = prev;
            }
        }
        break;
    }
    default:
        break;
    }
}

/* 1 if scalar c is in class instruction in: a binary search of its sorted,
 * disjoint ranges for the first that ends at or past c, each probe added
 * to *units. */
static int rx_in_class(const rx *r, const rx_ins *in, long c, unsigned long *units)
{
    const rx_range *g = r->ranges + in->x;
    size_t lo = 0, hi = (size_t)in->y;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        (*units)++;
        if (g[mid].hi < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < (size_t)in->y && g[lo].lo <= c) != in->neg;
}

/* Adds instruction pc and what it reaches without input to list, each
 * instruction reached added to *units; returns 1 if RX_MATCH was reached.
 * stack has room for twice the program. */
static int rx_add(const rx *r, int32_t *list, size_t *n, unsigned *mark, unsigned gen,
                  int32_t *stack, int32_t pc, int at_start, int at_end,
                  unsigned long *units)
{
    size_t sp = 0;
    int matched = 0;
    stack[sp++] = pc;
    while (sp) {
        int32_t k = stack[--sp];
        (*units)++;
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
    unsigned long units = 0;
    int32_t root;
    memset(&r, 0, sizeof r);
    r.e = e;
    r.nd = nd;
    r.p = pat->u.s.s;
    r.n = pat->u.s.n;
    *hit = 0;
    /* At most four tree nodes per pattern byte (an atom, its repetition,
     * its concatenation and alternation) and four ranges per two bytes
     * (\w in a class). */
    r.tcap = 4 * r.n + 4;
    r.rcap = 2 * r.n + 4;
    r.tree = arena_get(e, nd, r.tcap * sizeof *r.tree);
    r.ranges = r.tree ? arena_get(e, nd, r.rcap * sizeof *r.ranges) : NULL;
    if (!r.ranges)
        return 0;
    r.work = r.n;
    root = rx_alt(&r);
    if (root >= 0 && r.pos < r.n)
        root = rx_bad(&r, "unbalanced ')'", r.pos);
    if (root < 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "bad pattern (%s at pattern byte %zu)", r.bad, r.bad_at);
        return fail(e, SDUI_EXPR_VALUE, nd, msg);
    }
    r.cap = r.tree[root].size + 1;
    assert(r.cap <= SDUI_EXPR_MAX_PROGRAM + 1);
    r.code = arena_get(e, nd, r.cap * sizeof *r.code);
    if (!r.code)
        return 0;
    rx_emit(&r, root);
    rx_ins_new(&r, RX_MATCH, 0, 0);
    assert(r.nc == r.cap);

    size_t nc = r.nc;
    int32_t *cl = arena_get(e, nd, nc * sizeof *cl);
    int32_t *nl = cl ? arena_get(e, nd, nc * sizeof *nl) : NULL;
    int32_t *stack = nl ? arena_get(e, nd, (2 * nc + 2) * sizeof *stack) : NULL;
    unsigned *mark = stack ? arena_get(e, nd, nc * sizeof *mark) : NULL;
    if (!mark)
        return 0;
    memset(mark, 0, nc * sizeof *mark);
    if (!step(e, nd, 1 + (r.work + nc) / RX_UNITS))
        return 0;

    size_t ncl = 0, nnl, i = 0, n = s->u.s.n;
    unsigned gen = 1;
    const char *t = s->u.s.s;
    int dead;
    if (rx_add(&r, cl, &ncl, mark, gen, stack, 0, 1, n == 0, &units)) {
        *hit = 1;
        return step(e, nd, 1 + units / RX_UNITS);
    }
    /* Whether a thread started past the subject's start (and before its
     * end) can get anywhere: not when the pattern must begin at ^. */
    {
        size_t probe = 0;
        gen++;
        dead = !rx_add(&r, nl, &probe, mark, gen, stack, 0, 0, 0, &units) && probe == 0;
    }
    while (i < n) {
        if (ncl == 0 && dead) {
            /* Nothing live, and nothing can start before the end. */
            i = n;
            gen++;
            nnl = 0;
            if (rx_add(&r, nl, &nnl, mark, gen, stack, 0, 0, 1, &units))
                *hit = 1;
            break;
        }
        long c = sdui__utf8_get(t, n, &i);
        if (c < 0) {
            c = 0xFFFD;
            i++;
        }
        gen++;
        nnl = 0;
        int at_end = i >= n;
        for (size_t k = 0; k < ncl; k++) {
            const rx_ins *in = &r.code[cl[k]];
            int ok;
            units++;
            ok = in->op == RX_ANY ? (c != '\n')
               : in->op == RX_CHAR ? c == in->x
               : rx_in_class(&r, in, c, &units);
            if (ok && rx_add(&r, nl, &nnl, mark, gen, stack, cl[k] + 1, 0, at_end, &units)) {
                *hit = 1;
                break;
            }
        }
        /* Unanchored search: a new thread at every position. */
        if (!*hit && rx_add(&r, nl, &nnl, mark, gen, stack, 0, 0, at_end, &units))
            *hit = 1;
        if (!step(e, nd, 1 + units / RX_UNITS))
            return 0;
        units %= RX_UNITS;
        if (*hit)
            return 1;
        int32_t *tmp = cl;
        cl = nl;
        nl = tmp;
        ncl = nnl;
    }
    return step(e, nd, 1 + units / RX_UNITS);
}

/* ---------- functions ---------- */

/* The number of Unicode scalar values in a string (bytes that are not
 * UTF-8 continuation bytes) into *count, counting the bytes read a chunk
 * at a time; 0 past the bound. */
static int scalars(ev *e, const node *nd, const val *s, size_t *count)
{
    size_t n = 0;
    for (size_t i = 0; i < s->u.s.n;) {
        size_t end = s->u.s.n - i < CHUNK ? s->u.s.n : i + CHUNK;
        if (!step_bytes(e, nd, end - i))
            return 0;
        for (; i < end; i++)
            n += ((unsigned char)s->u.s.s[i] & 0xC0) != 0x80;
    }
    *count = n;
    return 1;
}

/* 1 for a space, tab, CR or LF. */
static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The length of the run of spaces, tabs, CR and LF at the start of s[0,n)
 * (or at its end: from_end) into *run, counting the bytes read a chunk
 * at a time; 0 past the bound. */
static int space_run(ev *e, const node *nd, const char *s, size_t n, int from_end,
                     size_t *run)
{
    size_t k = 0;
    *run = 0;
    while (k < n) {
        size_t end = n - k < CHUNK ? n : k + CHUNK;
        if (!step_bytes(e, nd, end - k))
            return 0;
        if (from_end) {
            for (; k < end && is_space(s[n - 1 - k]); k++)
                ;
        } else {
            for (; k < end && is_space(s[k]); k++)
                ;
        }
        if (k < end) {
            *run = k;
            return 1;
        }
    }
    *run = n;
    return 1;
}

/*
 * Substring search: the two-way algorithm of Crochemore and Perrin
 * (1991), linear in the text whatever the needle, in constant space.
 *
 * The needle x[0,m) is cut into a left part x[0,l) and a right part
 * x[l,m) at a critical position: one where the shortest square centred on
 * it is as long as the needle's whole period allows.  The later of the two
 * maximal suffixes of x, one under the byte order and one under its
 * reverse, starts at such a position (max_suffix finds each in linear
 * time, with the period of the suffix).  A window of the text is checked
 * right part first, left to right; a mismatch at x[i] lets the window move
 * by i - l + 1, since at a critical position no occurrence can start in
 * between.  When the right part matches, the left part is checked right
 * to left, and the window then moves by the period p when x is periodic
 * (x[0,l) equals x[p,p+l)), else by max(l, m - l) + 1.  In the periodic
 * case the bytes the last window proved (the needle's first m - p, which
 * the shifted window still covers) are remembered and not read again.
 * Each text byte is then compared at most twice, so a search costs at
 * most 2n + m comparisons (plus 2m for the cut), all counted, with three
 * more for each window (its shift and loop).
 */

/* Counts the byte comparisons gathered in *work once they make a chunk
 * (a step per SDUI_EXPR_STEP_BYTES), keeping the rest; 0 past the
 * bound. */
static int count_work(ev *e, const node *nd, unsigned long *work)
{
    if (*work < (unsigned long)CHUNK)
        return 1;
    if (!step(e, nd, *work / SDUI_EXPR_STEP_BYTES))
        return 0;
    *work %= SDUI_EXPR_STEP_BYTES;
    return 1;
}

/* The start of the maximal suffix of x[0,m) (m >= 1) under the byte
 * order, or under its reverse when rev, into *start, and that suffix's
 * period into *per; the bytes compared are added to *work and counted as
 * it goes (count_work).  0 past the bound. */
static int max_suffix(ev *e, const node *nd, const unsigned char *x, size_t m,
                      int rev, size_t *start, size_t *per, unsigned long *work)
{
    size_t best = 0;     /* the maximal suffix so far starts here */
    size_t rival = 1;    /* the suffix compared with it */
    size_t k = 0;        /* how far the two agree */
    size_t p = 1;        /* the period of the best suffix so far */
    while (rival + k < m) {
        unsigned char a = x[rival + k], b = x[best + k];
        (*work)++;
        if (a == b) {
            /* One period more agrees: the rival is the best one shifted. */
            if (k + 1 == p) {
                rival += p;
                k = 0;
            } else {
                k++;
            }
        } else if ((a < b) != rev) {
            /* The rival is smaller: every suffix up to its mismatch is. */
            rival += k + 1;
            k = 0;
            p = rival - best;
        } else {
            /* The rival is larger: it becomes the best. */
            best = rival;
            rival = best + 1;
            k = 0;
            p = 1;
        }
        if (!count_work(e, nd, work))
            return 0;
    }
    *start = best;
    *per = p;
    return 1;
}

/* Whether needle[0,m) occurs in hay[0,n) into *found (two-way, above), counting
 * the comparisons (a step per SDUI_EXPR_STEP_BYTES of them) as it goes;
 * 0 past the bound. */
static int search(ev *e, const node *nd, const char *hay, size_t n,
                  const char *needle, size_t m, int *found)
{
    const unsigned char *y = (const unsigned char *)hay;
    const unsigned char *x = (const unsigned char *)needle;
    unsigned long work = 0;
    size_t l, p, p2, l2, j = 0, memo = 0;
    int periodic;

    *found = 0;
    if (m == 0) {
        *found = 1;
        return step(e, nd, 1);
    }
    if (m > n)
        return step(e, nd, 1);
    if (!max_suffix(e, nd, x, m, 0, &l, &p, &work) ||
        !max_suffix(e, nd, x, m, 1, &l2, &p2, &work))
        return 0;
    if (l2 > l) {
        l = l2;
        p = p2;
    }
    /* The periodicity test, and one window's comparisons paid ahead: a
     * window checks up to m bytes before the next count. */
    work += l + m;
    if (!count_work(e, nd, &work))
        return 0;
    periodic = l + p <= m && memcmp(x, x + p, l) == 0;
    if (!periodic)
        p = (l > m - l ? l : m - l) + 1;
    while (j <= n - m) {
        size_t start = periodic && memo > l ? memo : l, i = start;
        while (i < m && x[i] == y[j + i])
            i++;
        /* The bytes compared, and the window's own work. */
        work += i - start + 4;
        if (i < m) {
            /* A mismatch in the right part. */
            j += i - l + 1;
            memo = 0;
        } else {
            /* The right part matches: the left part, right to left, down
             * to what the last window proved. */
            size_t k = l, floor = periodic ? memo : 0;
            while (k > floor && x[k - 1] == y[j + k - 1])
                k--;
            work += l - k + 1;
            if (k <= floor) {
                *found = 1;
                break;
            }
            j += p;
            memo = periodic ? m - p : 0;
        }
        if (!count_work(e, nd, &work))
            return 0;
    }
    return step(e, nd, 1 + work / SDUI_EXPR_STEP_BYTES);
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

/*
 * Exact sums.  sum() and avg() add the integers of an array exactly, in
 * two 64-bit words (hi·2^64 + lo, two's complement: at most 2^20 items of
 * at most 2^63 each stay far inside), so the order of the items never
 * changes an integer result and no sum overflows on its way to a result
 * that fits.  wide_div_round turns such a sum, divided by a count, into
 * the double nearest to the exact quotient (ties to even): the quotient's
 * integer part and remainder by long division in 32-bit pieces, then as
 * many more quotient bits as a double's 53 need plus one to round on, the
 * remainder deciding a tie.  So avg() of integers is their exact mean,
 * rounded once.
 */

/* A wide integer: hi·2^64 + lo. */
typedef struct wide {
    uint64_t lo;
    int64_t hi;
} wide;

/* Adds x to w exactly. */
static void wide_add(wide *w, int64_t x)
{
    uint64_t lo = w->lo + (uint64_t)x;
    /* (uint64_t)x is x + 2^64 for a negative x: take the 2^64 back. */
    w->hi += (int64_t)(lo < w->lo) - (x < 0);
    w->lo = lo;
}

/* The nearest double to (hi·2^64 + lo) / n for the unsigned 128-bit value
 * hi·2^64 + lo and 1 <= n < 2^32, ties to even (the essay above). */
static double wide_div_round(uint64_t hi, uint64_t lo, uint64_t n)
{
    uint64_t part[4] = {hi >> 32, hi & 0xFFFFFFFFu, lo >> 32, lo & 0xFFFFFFFFu};
    uint64_t r = 0, mant;
    int exp = 0, bits, sticky;

    assert(n >= 1 && n <= 0xFFFFFFFFu);
    /* Long division by n, 32 bits at a time: r < n keeps r·2^32 + part
     * inside 64 bits. */
    for (int k = 0; k < 4; k++) {
        uint64_t cur = r << 32 | part[k];
        part[k] = cur / n;
        r = cur % n;
    }
    hi = part[0] << 32 | part[1];
    lo = part[2] << 32 | part[3];
    if (!hi && !lo && !r)
        return 0.0;
    bits = hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
    if (bits > 54) {
        /* The integer part alone has more bits than 53 and a round bit:
         * the ones below are sticky, with the remainder. */
        int shift = bits - 54;
        if (shift >= 64) {
            mant = hi >> (shift - 64);
            sticky = lo != 0 || (hi & ((UINT64_C(1) << (shift - 64)) - 1)) != 0;
        } else {
            mant = lo >> shift | hi << (64 - shift);
            sticky = (lo & ((UINT64_C(1) << shift) - 1)) != 0;
        }
        sticky |= r != 0;
        exp = shift;
    } else {
        /* Fraction bits from the remainder until there are 54. */
        mant = lo;
        while (mant < UINT64_C(1) << 53) {
            r *= 2;
            mant = mant * 2 + (r >= n);
            if (r >= n)
                r -= n;
            exp--;
        }
        sticky = r != 0;
    }
    assert(mant >= UINT64_C(1) << 53 && mant < UINT64_C(1) << 54);
    {
        uint64_t m = mant >> 1;
        if ((mant & 1) && (sticky || (m & 1)))
            m++;
        return ldexp((double)m, exp + 1);
    }
}

/* The nearest double to w / n (1 <= n < 2^32), ties to even. */
static double wide_to_double(wide w, uint64_t n)
{
    if (w.hi < 0) {
        /* The magnitude: two's complement negation of both words. */
        uint64_t lo = ~w.lo + 1, hi = ~(uint64_t)w.hi + (lo == 0);
        return -wide_div_round(hi, lo, n);
    }
    return wide_div_round((uint64_t)w.hi, w.lo, n);
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
            int cmp, r = order(e, nd, &y, &best, &cmp);
            if (r < 0)
                return 0;
            if (r == 0)
                return fail(e, SDUI_EXPR_TYPE, nd, "min/max need all numbers or all strings");
            if (fn == F_MIN ? cmp < 0 : cmp > 0)
                best = y;
        }
        *out = best;
        out->spread = 0;
        return 1;
    }
    /* sum / avg: the integers exactly, the decimals in order. */
    wide si = {0, 0};
    double sd = 0;
    int real = 0;
    for (size_t i = 0; i < n; i++) {
        val y = arr_at(arr, i);
        if (!is_num(&y))
            return fail(e, SDUI_EXPR_TYPE, nd, "sum/avg need an array of numbers");
        if (y.t == V_INT) {
            wide_add(&si, y.u.i);
        } else {
            real = 1;
            sd += y.u.d;
        }
    }
    if (fn == F_AVG) {
        if (n == 0) {
            *out = mkv(V_NULL);
            return 1;
        }
        if (!real)
            return real_out(e, nd, wide_to_double(si, n), out);
        return real_out(e, nd, (wide_to_double(si, 1) + sd) / (double)n, out);
    }
    if (real)
        return real_out(e, nd, wide_to_double(si, 1) + sd, out);
    if (!(si.hi == 0 && si.lo <= (uint64_t)INT64_MAX) &&
        !(si.hi == -1 && si.lo > (uint64_t)INT64_MAX))
        return fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
    *out = mkv(V_INT);
    out->u.i = (int64_t)si.lo;
    return 1;
}

/* Sorts the key strings k[0,n) by byte order: a bottom-up merge sort
 * through tmp (room for n), at most n·log2(n) comparisons, each counted
 * as two steps and its bytes, and a step per 8 keys moved in each pass;
 * 0 past the bound. */
static int sort_keys(ev *e, const node *nd, val *k, val *tmp, size_t n)
{
    val *from = k, *to = tmp, *swap;
    for (size_t w = 1; w < n; w *= 2) {
        if (!step(e, nd, 1 + n / 8))
            return 0;
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = n - lo > w ? lo + w : n;
            size_t hi = n - mid > w ? mid + w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                int c;
                if (!step(e, nd, 1) || !str_cmp(e, nd, &from[j], &from[i], &c))
                    return 0;
                to[o++] = c < 0 ? from[j++] : from[i++];
            }
            while (i < mid)
                to[o++] = from[i++];
            while (j < hi)
                to[o++] = from[j++];
        }
        swap = from;
        from = to;
        to = swap;
    }
    if (from != k)
        memcpy(k, from, n * sizeof *k);
    return 1;
}

/* Renders v as text into a new arena string (string()). */
static int to_string(ev *e, const node *nd, const val *v, val *out)
{
    char buf[40];
    text t = {NULL, 0, 0, 0, NULL, NULL, 0};
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
    /* The values visited and the bytes written. */
    if (!step(e, nd, t.values + t.n / SDUI_EXPR_STEP_BYTES))
        return 0;
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
        if (a[0].t == V_STR) {
            size_t n;
            if (!scalars(e, nd, &a[0], &n)) return 0;
            out->u.i = (int64_t)n;
        } else if (is_arr(&a[0])) out->u.i = (int64_t)arr_len(&a[0]);
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
        if (a[0].t == V_STR && a[1].t == V_STR)
            return search(e, nd, a[0].u.s.s, a[0].u.s.n, a[1].u.s.s, a[1].u.s.n, &out->u.b);
        if (is_arr(&a[0])) {
            size_t n = arr_len(&a[0]);
            if (!step(e, nd, n)) return 0;
            for (size_t i = 0; i < n; i++) {
                val y = arr_at(&a[0], i);
                int eq;
                if (!equal(e, nd, &y, &a[1], &eq)) return 0;
                if (eq) { out->u.b = 1; break; }
            }
            return 1;
        }
        return fail(e, SDUI_EXPR_TYPE, nd, "contains needs two strings, or an array and a value");
    case F_STARTS: case F_ENDS:
        if (a[0].t != V_STR || a[1].t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "starts_with/ends_with need two strings");
        *out = mkv(V_BOOL);
        if (a[1].u.s.n <= a[0].u.s.n) {
            int c;
            if (!cmp_bytes(e, nd, a[0].u.s.s + (fn == F_ENDS ? a[0].u.s.n - a[1].u.s.n : 0),
                           a[1].u.s.s, a[1].u.s.n, &c))
                return 0;
            out->u.b = c == 0;
        }
        return 1;
    case F_LOWER: case F_UPPER: {
        if (a[0].t != V_STR)
            return fail(e, SDUI_EXPR_TYPE, nd, "lower/upper need a string");
        char *s = new_str(e, nd, a[0].u.s.n, out);
        if (!s || !step_bytes(e, nd, a[0].u.s.n)) return 0;
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
        size_t b, tail, n = a[0].u.s.n;
        if (!space_run(e, nd, s, n, 0, &b)) return 0;
        if (b < n && !space_run(e, nd, s + b, n - b, 1, &tail)) return 0;
        if (b < n) n -= tail;
        /* Borrowed strings must stay NUL-terminated for key lookups: copy. */
        char *c = new_str(e, nd, n - b, out);
        if (!c || !step_bytes(e, nd, n - b)) return 0;
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
        if (!s || !step_bytes(e, nd, total)) return 0;
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
        val *items = new_arr(e, nd, n, out), tmp;
        val *spare = items ? new_arr(e, nd, n, &tmp) : NULL;
        if (!spare) return 0;
        for (const void *it = sdui_value_next(a[0].u.j, NULL); it && m < n;
             it = sdui_value_next(a[0].u.j, it)) {
            items[m] = mkv(V_STR);
            items[m].u.s.s = sdui_value_iter_key(it, &items[m].u.s.n);
            m++;
        }
        out->u.a.n = m;
        return sort_keys(e, nd, items, spare, m);
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
        if (a[1].u.s.n > SDUI_EXPR_MAX_PATTERN)
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
    text t = {NULL, 0, 0, 0, NULL, NULL, 0};
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
