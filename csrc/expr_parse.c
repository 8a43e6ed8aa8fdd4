/*
 * expr_parse.c - the expression language's parser (expr.h,
 * docs/expressions.md): source text to an immutable program, and the
 * program's life (compile, free, the paths it reads, its source).
 *
 * Program.  Compiling turns the source into a flat array of nodes (one
 * per operator, literal, path step, call) that refer to their children by
 * index, plus a list of child indices for calls and array literals, a pool
 * of decoded string constants (each NUL-terminated) and the list of paths
 * the program reads (expr_internal.h has the types).  Nothing in a program
 * changes after compile, so many threads may evaluate it at once.
 *
 * Parser.  The lexer reads a token at a time from the cursor (spaces,
 * tabs and line breaks between them): numbers, strings with JSON escapes
 * (and \'), names, punctuation.  The parser is precedence climbing over a
 * table of binary operators (loosest first: ?:, ??, ||, &&, == !=, < <= >
 * >=, in, + -, * / %), with unary ! and - and postfix member/index steps;
 * it counts nesting (parentheses, brackets, calls, unary operators) and
 * the depth of the tree, so the evaluator's recursion is bounded.  A call
 * is a name before '(': the name is looked up in the function table
 * (expr_fn.c), an unknown name or an argument count outside the row's is
 * a parse error, and the call's node keeps a pointer to its row, which the
 * evaluator calls.
 *
 * Slots.  Each distinct root name gets a slot, numbered in source order,
 * and each member step keeps its name's hash: an evaluation given the
 * roots by slot (sdui_expr_eval_bool) reads them by index and hashes
 * nothing.
 *
 * Paths.  After parsing, the chains of root, member, index and wildcard
 * steps are written in their canonical form (`a.b`, `a[0]`,
 * `a['first name']`, `a[*].b`) and listed once each; a chain whose index
 * is computed stops before it, and the index's own paths are listed too.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"

typedef struct parser {
    const char *s;
    size_t n, pos;
    unsigned nest;
    sdui_error *err;
    sdui_status st;
    sdui_xnode *nodes;
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
    sdui_xnode *nd;
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
    if (i < p->n && sdui__expr_ident_char(p->s[i], 0))
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
    if (sdui__expr_ident_char(c, 1)) {
        size_t i = p->pos;
        while (i < p->n && sdui__expr_ident_char(p->s[i], 0)) i++;
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
            const sdui_xfn *f = sdui__expr_fn_find(w, len);
            if (!f) {
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
            if (count < f->min || (f->max >= 0 && count > f->max))
                return perr(p, SDUI_EXPR_PARSE, start, "wrong number of arguments");
            r = new_node(p, N_CALL, start, p->pos, first, count, -1);
            if (r >= 0) p->nodes[r].v.fn = f;
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
            if (i >= p->n || !sdui__expr_ident_char(p->s[i], 1))
                return perr(p, SDUI_EXPR_PARSE, i, "member name expected after '.'");
            while (i < p->n && sdui__expr_ident_char(p->s[i], 0)) i++;
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
            if (ops[k].level == 6 && p->pos + 2 < p->n && sdui__expr_ident_char(p->s[p->pos + 2], 0))
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
    if (n == 0 || !sdui__expr_ident_char(s[0], 1))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!sdui__expr_ident_char(s[i], 0))
            return 0;
    return 1;
}

/* Writes the path of node i into b if it is a path chain; 1 if it is. */
static int path_of(const sdui_expr *x, int32_t i, pathbuf *b)
{
    const sdui_xnode *nd = &x->nodes[i];
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
        const sdui_xnode *ix = &x->nodes[nd->b];
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
    const sdui_xnode *nd = &x->nodes[i];
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

/*
 * Gives every root name its slot and every member step its name's hash,
 * once, so an evaluation neither looks a root up by name nor hashes a
 * member's name (expr.h, sdui_expr_eval_bool).  Slots follow the first
 * appearance of each name in the source; nodes are made in source order,
 * so that is node order.  A source of 4096 bytes holds at most 2048
 * names, so the search for an equal earlier name is bounded.  0 when
 * memory runs out.
 */
static int assign_slots(sdui_expr *x)
{
    for (size_t i = 0; i < x->n_nodes; i++) {
        sdui_xnode *nd = &x->nodes[i];
        if (nd->kind == N_MEMBER) {
            assert(!memchr(x->pool + nd->b, 0, (size_t)nd->c)); /* a name, not a quoted key */
            nd->v.h = sdui__hash(x->pool + nd->b, (size_t)nd->c);
            continue;
        }
        if (nd->kind != N_ROOT)
            continue;
        size_t k = 0;
        for (; k < x->n_roots; k++) {
            const sdui_xnode *r = &x->nodes[x->roots[k]];
            if (r->c == nd->c && !memcmp(x->pool + r->b, x->pool + nd->b, (size_t)nd->c))
                break;
        }
        if (k == x->n_roots) {
            int32_t *nr = sdui_realloc(x->roots, (x->n_roots + 1) * sizeof *nr);
            if (!nr)
                return 0;
            x->roots = nr;
            x->roots[x->n_roots++] = (int32_t)i;
        }
        nd->a = (int32_t)k;
    }
    return 1;
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
    if (!collect_paths(x, root) || !assign_slots(x)) {
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
    sdui_free(prog->roots);
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

/* The number of distinct root names (expr.h). */
size_t sdui_expr_root_count(const sdui_expr *prog)
{
    assert(prog);
    return prog->n_roots;
}

/* The root name of slot i (expr.h). */
const char *sdui_expr_root(const sdui_expr *prog, size_t i, size_t *len)
{
    assert(prog);
    if (i >= prog->n_roots)
        return NULL;
    const sdui_xnode *nd = &prog->nodes[prog->roots[i]];
    if (len)
        *len = (size_t)nd->c;
    return prog->pool + nd->b;
}

/* The source text (expr.h). */
const char *sdui_expr_source(const sdui_expr *prog, size_t *len)
{
    assert(prog);
    if (len)
        *len = prog->src_len;
    return prog->src;
}
