/*
 * expr_eval.c - the expression language's evaluator (expr.h,
 * docs/expressions.md): a program against the caller's data, to a value
 * handed back as a tree or as JSON text.
 *
 * Evaluation.  A recursive walk of the node array (the parser bounded its
 * depth).  A value is a small tagged struct (sdui_xval): null, bool,
 * int64, double, a string (pointer, length), an array built by the
 * evaluator (items in the arena), or a borrowed array/object of the
 * caller's tree.  Every intermediate (joined strings, array literals,
 * wildcard results) lives in one arena per evaluation: its first block
 * (2 KiB) is on the entry point's stack and more blocks are added only
 * when a value needs them, so an operation never calls the allocator and
 * a typical evaluation allocates nothing but its result.
 *
 * Roots.  A root name reads the caller's data one of two ways: through
 * the lookup callback (sdui_expr_eval, _json), called at each appearance,
 * or from an array indexed by the slot the compiler gave the name
 * (sdui_expr_eval_roots, _bool), which costs a load.  A member step's
 * name was hashed at compile, so a lookup in a large object hashes
 * nothing either.  String lengths, array
 * lengths and the arena's bytes are bounded.  A call evaluates its
 * arguments left to right and calls the body its node's table row names
 * (expr_fn.c); this file knows no function by name.
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
 * misses the cache); in an object small enough to be scanned (value.c:
 * at most 16 members), a step per member.  The functions count their own work the same way (expr_fn.c,
 * expr_regex.c).
 *
 * Numbers.  An integer and a decimal compare by their exact values, never
 * through a conversion that rounds (sdui__expr_num_cmp), so equality is
 * transitive and min/max pick the right one.
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
 * answers the same for either call.  sdui_expr_eval_bool builds no result
 * at all: a condition's boolean is read off the value.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"
#include "sdui/number.h"
#include "value_tree.h"

/* Records an evaluation error naming node nd; returns 0 (expr_internal.h). */
int sdui__expr_fail(sdui_xeval *e, sdui_status st, const sdui_xnode *nd, const char *what)
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
void *sdui__expr_alloc(sdui_xeval *e, const sdui_xnode *nd, size_t size)
{
    sdui_xblock *b = e->arena;
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!b || b->cap - b->used < size) {
        size_t cap = b ? b->cap * 2 : 4096;
        while (cap < size)
            cap *= 2;
        if (e->arena_bytes + cap > SDUI_EXPR_MAX_ARENA) {
            sdui__expr_fail(e, SDUI_LIMIT, nd, "working memory past its limit");
            return NULL;
        }
        sdui_xblock *nb = sdui_malloc(sizeof *nb + cap);
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

/* Compares a and b over n bytes into *cmp (memcmp's sign), a chunk at a
 * time with each chunk counted, so that strings that differ early cost
 * little and long ones stop at the bound; 0 past the bound. */
int sdui__expr_cmp_bytes(sdui_xeval *e, const sdui_xnode *nd, const char *a, const char *b,
                     size_t n, int *cmp)
{
    size_t i = 0;
    *cmp = 0;
    if (a == b)
        return sdui__expr_step(e, nd, 1);
    do {
        size_t k = n - i < SDUI__EXPR_CHUNK ? n - i : SDUI__EXPR_CHUNK;
        if (!sdui__expr_step_bytes(e, nd, k))
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
 * larger it is), and in an object whose lookup scans the members (value.c:
 * at most 16), a step per member.  0 past the bound. */
static int obj_get(sdui_xeval *e, const sdui_xnode *nd, const sdui_value *o, const char *k,
                   size_t n, const sdui_value **out)
{
    /* A member step's name is hashed at compile (expr_parse.c) and holds
     * no NUL; the same work is counted as for a computed key. */
    int named = nd->kind == N_MEMBER && k == e->x->pool + nd->b;
    size_t members = sdui_value_count(o);
    unsigned long work = 1 + 3 * (n / SDUI_EXPR_STEP_BYTES);
    *out = NULL;
    for (size_t c = members; c; c >>= 1)
        work++;
    if (sdui__tree_scans(o))
        work += members;
    if (!sdui__expr_step(e, nd, work))
        return 0;
    if (named)
        *out = sdui__value_member(o, k, n, nd->v.h);
    else if (!memchr(k, 0, n))
        *out = sdui_value_get(o, k);
    return 1;
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
int sdui__expr_num_cmp(const sdui_xval *a, const sdui_xval *b)
{
    if (a->t == V_INT && b->t == V_INT)
        return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
    if (a->t == V_REAL && b->t == V_REAL)
        return a->u.d < b->u.d ? -1 : a->u.d > b->u.d;
    if (a->t == V_INT)
        return cmp_int_real(a->u.i, b->u.d);
    return -cmp_int_real(b->u.i, a->u.d);
}

/* A decimal result, or an overflow error when it is not finite. */
int sdui__expr_real_out(sdui_xeval *e, const sdui_xnode *nd, double d, sdui_xval *out)
{
    if (!isfinite(d))
        return sdui__expr_fail(e, SDUI_EXPR_OVERFLOW, nd, "decimal result is not finite");
    *out = sdui__expr_mkv(V_REAL);
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
int sdui__expr_equal(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a,
                     const sdui_xval *b, int *eq)
{
    *eq = 0;
    if (!sdui__expr_step(e, nd, 2))
        return 0;
    if (sdui__expr_is_num(a) && sdui__expr_is_num(b)) {
        *eq = sdui__expr_num_cmp(a, b) == 0;
        return 1;
    }
    if (sdui__expr_is_arr(a) && sdui__expr_is_arr(b)) {
        size_t n = sdui__expr_arr_len(a);
        if (n != sdui__expr_arr_len(b))
            return 1;
        if (a->t == b->t && (a->t == V_JARR ? a->u.j == b->u.j : a->u.a.items == b->u.a.items)) {
            *eq = 1;
            return 1;
        }
        for (size_t i = 0; i < n; i++) {
            sdui_xval x = sdui__expr_arr_at(a, i), y = sdui__expr_arr_at(b, i);
            if (!sdui__expr_equal(e, nd, &x, &y, eq))
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
        if (!sdui__expr_cmp_bytes(e, nd, a->u.s.s, b->u.s.s, a->u.s.n, &c))
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
                if (ln == kn && !sdui__expr_cmp_bytes(e, nd, k, l, kn, &c))
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
            sdui_xval x = sdui__expr_from_tree(sdui_value_iter_value(ia));
            sdui_xval y = sdui__expr_from_tree(o);
            if (!sdui__expr_equal(e, nd, &x, &y, eq))
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

/* Orders two numbers (by their exact values) or two strings into *cmp:
 * 1; 0 when they are neither (a type error for the caller); -1 past the
 * bound (e->st set). */
int sdui__expr_order(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a,
                     const sdui_xval *b, int *cmp)
{
    if (sdui__expr_is_num(a) && sdui__expr_is_num(b)) {
        *cmp = sdui__expr_num_cmp(a, b);
        return 1;
    }
    if (a->t == V_STR && b->t == V_STR)
        return sdui__expr_str_cmp(e, nd, a, b, cmp) ? 1 : -1;
    return 0;
}

/* A new string of n bytes (plus NUL) in the arena; NULL on failure. */
char *sdui__expr_new_str(sdui_xeval *e, const sdui_xnode *nd, size_t n, sdui_xval *out)
{
    char *s;
    if (n > SDUI_EXPR_MAX_STRING) {
        sdui__expr_fail(e, SDUI_LIMIT, nd, "string longer than 65536 bytes");
        return NULL;
    }
    s = sdui__expr_alloc(e, nd, n + 1);
    if (!s)
        return NULL;
    s[n] = 0;
    *out = sdui__expr_mkv(V_STR);
    out->u.s.s = s;
    out->u.s.n = n;
    return s;
}

/* A new array of n items in the arena; NULL on failure. */
sdui_xval *sdui__expr_new_arr(sdui_xeval *e, const sdui_xnode *nd, size_t n, sdui_xval *out)
{
    sdui_xval *items;
    if (n > SDUI_EXPR_MAX_ITEMS) {
        sdui__expr_fail(e, SDUI_LIMIT, nd, "array longer than 65536 items");
        return NULL;
    }
    items = sdui__expr_alloc(e, nd, (n ? n : 1) * sizeof *items);
    if (!items)
        return NULL;
    *out = sdui__expr_mkv(V_ARR);
    out->u.a.items = items;
    out->u.a.n = n;
    return items;
}

/* Appends bytes to a text. */
static void tx_add(sdui_xtext *t, const char *s, size_t n)
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
            ns = sdui__expr_alloc(t->e, t->nd, nc);
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
static void tx_json_str(sdui_xtext *t, const char *s, size_t n)
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
void sdui__expr_tx_json(sdui_xtext *t, const sdui_xval *v)
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
        size_t n = sdui__expr_arr_len(v);
        tx_add(t, "[", 1);
        for (size_t i = 0; i < n && !t->bad; i++) {
            sdui_xval x = sdui__expr_arr_at(v, i);
            if (i) tx_add(t, ",", 1);
            sdui__expr_tx_json(t, &x);
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
            sdui_xval x = sdui__expr_from_tree(sdui_value_iter_value(it));
            if (!first) tx_add(t, ",", 1);
            first = 0;
            tx_json_str(t, k, kn);
            tx_add(t, ":", 1);
            sdui__expr_tx_json(t, &x);
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
static int tree_put(sdui_json_builder *b, const sdui_xval *v, size_t *len)
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
        size_t n = sdui__expr_arr_len(v);
        *len += n ? n + 1 : 2; /* brackets, commas */
        if (*len > SDUI_EXPR_MAX_STRING || sdui_json_builder_begin_array(b) != SDUI_OK)
            return 0;
        for (size_t i = 0; i < n; i++) {
            sdui_xval x = sdui__expr_arr_at(v, i);
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
            sdui_xval x = sdui__expr_from_tree(sdui_value_iter_value(it));
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

/* Member key or index k applied to one (non-spread) value into *out,
 * null if absent; a member lookup is counted (obj_get).  0 past the
 * bound. */
static int step_into(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *base,
                     const sdui_xval *k, sdui_xval *out)
{
    *out = sdui__expr_mkv(V_NULL);
    if (k->t == V_STR && base->t == V_JOBJ) {
        const sdui_value *m;
        if (!obj_get(e, nd, base->u.j, k->u.s.s, k->u.s.n, &m))
            return 0;
        *out = sdui__expr_from_tree(m);
        return 1;
    }
    if (k->t == V_INT && sdui__expr_is_arr(base)) {
        if (k->u.i >= 0 && (uint64_t)k->u.i < sdui__expr_arr_len(base))
            *out = sdui__expr_arr_at(base, (size_t)k->u.i);
    }
    return 1;
}

/* Applies a step to a base, mapping over a spread array (dropping nulls). */
static int apply_step(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *base,
                      const sdui_xval *k, int wild, sdui_xval *out)
{
    if (base->spread && wild) {
        size_t n = base->u.a.n, m = 0, total = 0;
        /* First count, then fill: the arena holds only the result. */
        for (size_t i = 0; i < n; i++) {
            sdui_xval it = base->u.a.items[i];
            total += sdui__expr_is_arr(&it) ? sdui__expr_arr_len(&it) : 0;
        }
        if (!sdui__expr_step(e, nd, n + total))
            return 0;
        sdui_xval *items = sdui__expr_new_arr(e, nd, total, out);
        if (!items)
            return 0;
        for (size_t i = 0; i < n; i++) {
            sdui_xval it = base->u.a.items[i];
            if (!sdui__expr_is_arr(&it))
                continue;
            for (size_t j = 0; j < sdui__expr_arr_len(&it); j++) {
                sdui_xval y = sdui__expr_arr_at(&it, j);
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
        if (!sdui__expr_step(e, nd, n))
            return 0;
        sdui_xval *items = sdui__expr_new_arr(e, nd, n, out);
        if (!items)
            return 0;
        for (size_t i = 0; i < n; i++) {
            sdui_xval y;
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
        size_t n = sdui__expr_is_arr(base) ? sdui__expr_arr_len(base) : 0, m = 0;
        if (base->t == V_JOBJ)
            n = sdui_value_count(base->u.j);
        if (!sdui__expr_step(e, nd, n))
            return 0;
        sdui_xval *items = sdui__expr_new_arr(e, nd, n, out);
        if (!items)
            return 0;
        if (sdui__expr_is_arr(base)) {
            for (size_t j = 0; j < n; j++) {
                sdui_xval y = sdui__expr_arr_at(base, j);
                if (y.t != V_NULL)
                    items[m++] = y;
            }
        } else if (base->t == V_JOBJ) {
            for (const void *it = sdui_value_next(base->u.j, NULL); it;
                 it = sdui_value_next(base->u.j, it)) {
                sdui_xval y = sdui__expr_from_tree(sdui_value_iter_value(it));
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
static int binary(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a, const sdui_xval *b,
                  sdui_xval *out)
{
    int cmp;
    switch (nd->op) {
    case B_EQ:
    case B_NE: {
        int eq;
        if (!sdui__expr_equal(e, nd, a, b, &eq))
            return 0;
        *out = sdui__expr_mkv(V_BOOL);
        out->u.b = eq == (nd->op == B_EQ);
        return 1;
    }
    case B_LT: case B_LE: case B_GT: case B_GE: {
        int r = sdui__expr_order(e, nd, a, b, &cmp);
        if (r < 0)
            return 0;
        if (r == 0)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "ordering needs two numbers or two strings");
        *out = sdui__expr_mkv(V_BOOL);
        out->u.b = nd->op == B_LT ? cmp < 0 : nd->op == B_LE ? cmp <= 0
                 : nd->op == B_GT ? cmp > 0 : cmp >= 0;
        return 1;
    }
    case B_IN:
        *out = sdui__expr_mkv(V_BOOL);
        if (sdui__expr_is_arr(b)) {
            size_t n = sdui__expr_arr_len(b);
            if (!sdui__expr_step(e, nd, n))
                return 0;
            for (size_t i = 0; i < n; i++) {
                sdui_xval y = sdui__expr_arr_at(b, i);
                int eq;
                if (!sdui__expr_equal(e, nd, a, &y, &eq))
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
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "'in' needs an array, or a string and an object");
    case B_ADD:
        if (a->t == V_STR && b->t == V_STR) {
            char *s = sdui__expr_new_str(e, nd, a->u.s.n + b->u.s.n, out);
            if (!s)
                return 0;
            memcpy(s, a->u.s.s, a->u.s.n);
            memcpy(s + a->u.s.n, b->u.s.s, b->u.s.n);
            return sdui__expr_step_bytes(e, nd, out->u.s.n);
        }
        if (sdui__expr_is_arr(a) && sdui__expr_is_arr(b)) {
            size_t na = sdui__expr_arr_len(a), nb = sdui__expr_arr_len(b);
            if (!sdui__expr_step(e, nd, na + nb))
                return 0;
            sdui_xval *items = sdui__expr_new_arr(e, nd, na + nb, out);
            if (!items)
                return 0;
            for (size_t i = 0; i < na; i++) items[i] = sdui__expr_arr_at(a, i);
            for (size_t i = 0; i < nb; i++) items[na + i] = sdui__expr_arr_at(b, i);
            return 1;
        }
        /* fall through */
    case B_SUB: case B_MUL: case B_DIV: case B_MOD:
        if (!sdui__expr_is_num(a) || !sdui__expr_is_num(b))
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, nd->op == B_ADD
                        ? "'+' needs two numbers, two strings or two arrays"
                        : "arithmetic needs two numbers");
        if (nd->op == B_DIV) {
            if (sdui__expr_num_d(b) == 0)
                return sdui__expr_fail(e, SDUI_EXPR_DIVISION, nd, "division by zero");
            return sdui__expr_real_out(e, nd, sdui__expr_num_d(a) / sdui__expr_num_d(b), out);
        }
        if (nd->op == B_MOD && sdui__expr_num_d(b) == 0)
            return sdui__expr_fail(e, SDUI_EXPR_DIVISION, nd, "remainder by zero");
        if (a->t == V_INT && b->t == V_INT) {
            int64_t r;
            int ok;
            if (nd->op == B_ADD) ok = add_i(a->u.i, b->u.i, &r);
            else if (nd->op == B_SUB) ok = sub_i(a->u.i, b->u.i, &r);
            else if (nd->op == B_MUL) ok = mul_i(a->u.i, b->u.i, &r);
            else if (b->u.i == -1) { r = 0; ok = 1; }
            else { r = a->u.i % b->u.i; ok = 1; }
            if (!ok)
                return sdui__expr_fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
            *out = sdui__expr_mkv(V_INT);
            out->u.i = r;
            return 1;
        }
        {
            double x = sdui__expr_num_d(a), y = sdui__expr_num_d(b);
            double r = nd->op == B_ADD ? x + y : nd->op == B_SUB ? x - y
                     : nd->op == B_MUL ? x * y : fmod(x, y);
            return sdui__expr_real_out(e, nd, r, out);
        }
    }
    return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "unknown operator");
}

/* Evaluates node i into *out; 0 with e->st set on failure. */
static int eval(sdui_xeval *e, int32_t i, sdui_xval *out)
{
    const sdui_xnode *nd = &e->x->nodes[i];
    sdui_xval a, b;
    if (!sdui__expr_step(e, nd, 1))
        return 0;
    switch (nd->kind) {
    case N_NULL: *out = sdui__expr_mkv(V_NULL); return 1;
    case N_BOOL: *out = sdui__expr_mkv(V_BOOL); out->u.b = (int)nd->v.i; return 1;
    case N_INT: *out = sdui__expr_mkv(V_INT); out->u.i = nd->v.i; return 1;
    case N_REAL: *out = sdui__expr_mkv(V_REAL); out->u.d = nd->v.d; return 1;
    case N_STR:
        *out = sdui__expr_mkv(V_STR);
        out->u.s.s = e->x->pool + nd->b;
        out->u.s.n = (size_t)nd->c;
        return 1;
    case N_ARRAY: {
        sdui_xval *items = sdui__expr_new_arr(e, nd, (size_t)nd->b, out);
        if (!items) return 0;
        for (int32_t k = 0; k < nd->b; k++) {
            if (!eval(e, e->x->kids[nd->a + k], &items[k])) return 0;
            items[k].spread = 0;
        }
        return 1;
    }
    case N_ROOT: {
        const sdui_value *v;
        if (e->slots)
            v = (size_t)nd->a < e->n_slots ? e->slots[nd->a] : NULL;
        else
            v = e->lookup ? e->lookup(e->ctx, e->x->pool + nd->b, (size_t)nd->c) : NULL;
        *out = sdui__expr_from_tree(v);
        return 1;
    }
    case N_MEMBER:
        if (!eval(e, nd->a, &a)) return 0;
        b = sdui__expr_mkv(V_STR);
        b.u.s.s = e->x->pool + nd->b;
        b.u.s.n = (size_t)nd->c;
        return apply_step(e, nd, &a, &b, 0, out);
    case N_INDEX:
        if (!eval(e, nd->a, &a) || !eval(e, nd->b, &b)) return 0;
        if (b.t != V_INT && b.t != V_STR)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "an index must be an integer or a string");
        return apply_step(e, nd, &a, &b, 0, out);
    case N_WILD:
        if (!eval(e, nd->a, &a)) return 0;
        return apply_step(e, nd, &a, NULL, 1, out);
    case N_NOT:
        if (!eval(e, nd->a, &a)) return 0;
        if (a.t != V_BOOL)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "'!' needs a boolean");
        *out = sdui__expr_mkv(V_BOOL);
        out->u.b = !a.u.b;
        return 1;
    case N_NEG:
        if (!eval(e, nd->a, &a)) return 0;
        if (a.t == V_INT) {
            if (a.u.i == INT64_MIN)
                return sdui__expr_fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
            *out = sdui__expr_mkv(V_INT);
            out->u.i = -a.u.i;
            return 1;
        }
        if (a.t == V_REAL) {
            *out = sdui__expr_mkv(V_REAL);
            out->u.d = -a.u.d;
            return 1;
        }
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "unary '-' needs a number");
    case N_AND: case N_OR:
        if (!eval(e, nd->a, &a)) return 0;
        if (a.t != V_BOOL)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, nd->kind == N_AND ? "'&&' needs booleans"
                                                                      : "'||' needs booleans");
        if ((nd->kind == N_AND) != !!a.u.b) {
            *out = a;
            return 1;
        }
        if (!eval(e, nd->b, &b)) return 0;
        if (b.t != V_BOOL)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, nd->kind == N_AND ? "'&&' needs booleans"
                                                                      : "'||' needs booleans");
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
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "the condition of '?:' must be a boolean");
        return eval(e, a.u.b ? nd->b : nd->c, out);
    case N_BIN:
        if (!eval(e, nd->a, &a) || !eval(e, nd->b, &b)) return 0;
        a.spread = b.spread = 0;
        return binary(e, nd, &a, &b, out);
    case N_CALL: {
        sdui_xval *args = sdui__expr_alloc(e, nd, (size_t)(nd->b ? nd->b : 1) * sizeof *args);
        if (!args) return 0;
        for (int32_t k = 0; k < nd->b; k++) {
            if (!eval(e, e->x->kids[nd->a + k], &args[k])) return 0;
            args[k].spread = 0;
        }
        return nd->v.fn->call(e, nd, args, nd->b, out);
    }
    }
    return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "bad node");
}

/* Frees an evaluation's arena but its first block, on the stack. */
static void arena_free(sdui_xeval *e)
{
    while (e->arena && e->arena != e->stack) {
        sdui_xblock *nb = e->arena->next;
        sdui_free(e->arena);
        e->arena = nb;
    }
}

/* Bytes of an evaluation's first arena block, which lives on the entry
 * point's stack: what a typical condition or binding needs (a few values,
 * a short joined string), so most evaluations call the allocator for
 * nothing but their result, and a condition for nothing at all. */
#define STACK_BLOCK 2048

/* The first arena block's memory, aligned for the block header. */
typedef struct stack_block {
    sdui_xblock head;
    max_align_t data[STACK_BLOCK / sizeof(max_align_t)];
} stack_block;

/* Runs the program into *r (the public entry points share it), with the
 * roots from slots[0, n_slots) when slots is non-NULL, else from lookup:
 * 1 with the arena alive (what *r points into; the caller frees it with
 * arena_free), 0 with it freed and e->st set.  first is the caller's
 * stack block, which must outlive *r. */
static int run(sdui_xeval *e, stack_block *first, const sdui_expr *prog, sdui_expr_lookup lookup,
               void *ctx, const sdui_value *const *slots, size_t n_slots, sdui_error *err,
               sdui_xval *r)
{
    memset(e, 0, sizeof *e);
    e->x = prog;
    e->lookup = lookup;
    e->ctx = ctx;
    e->slots = slots;
    e->n_slots = n_slots;
    e->err = err;
    e->st = SDUI_OK;
    first->head.next = NULL;
    first->head.used = 0;
    first->head.cap = sizeof first->data;
    e->arena = e->stack = &first->head;
    e->arena_bytes = sizeof first->data;
    assert((void *)first->head.data == (void *)first->data);
    if (eval(e, prog->root, r)) {
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
    sdui_xtext t = {NULL, 0, 0, 0, NULL, NULL, 0};
    sdui_xeval e;
    stack_block first;
    sdui_xval r;
    if (!prog || !json)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "expr: eval_json: %s is NULL",
                          prog ? "json" : "prog");
    *json = NULL;
    if (!run(&e, &first, prog, lookup, ctx, NULL, 0, err, &r))
        return e.st;
    sdui__expr_tx_json(&t, &r);
    if (t.bad == 1)
        sdui__expr_fail(&e, SDUI_LIMIT, &prog->nodes[prog->root], "result longer than 65536 bytes");
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

/* The value of an evaluation that run() left in *r, as a new document
 * in *result; frees the arena. */
static sdui_status to_tree(sdui_xeval *e, const sdui_xval *r, sdui_json_doc **result)
{
    const sdui_expr *prog = e->x;
    sdui_error *err = e->err;
    sdui_json_builder *b = NULL;
    sdui_status st;
    size_t len = 0;
    /* No depth bound of the builder's own: the result's depth is the
     * data's (bounded where the data was read) plus the program's
     * nesting (SDUI_EXPR_MAX_NESTING). */
    st = sdui__json_builder_open_depth(&b, UINT_MAX, err);
    if (st == SDUI_OK) {
        tree_put(b, r, &len);
        if (len > SDUI_EXPR_MAX_STRING) {
            sdui__expr_fail(e, SDUI_LIMIT, &prog->nodes[prog->root],
                            "result longer than 65536 bytes");
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
    arena_free(e);
    return st;
}

/* Runs prog (roots from lookup, or from slots when slots is non-NULL)
 * into a new document in *result (NULL on an error): what
 * sdui_expr_eval and sdui_expr_eval_roots share once their arguments are
 * checked. */
static sdui_status eval_to_tree(const sdui_expr *prog, sdui_expr_lookup lookup, void *ctx,
                                const sdui_value *const *slots, size_t n_slots,
                                sdui_json_doc **result, sdui_error *err)
{
    sdui_xeval e;
    stack_block first;
    sdui_xval r;
    *result = NULL;
    if (!run(&e, &first, prog, lookup, ctx, slots, n_slots, err, &r))
        return e.st;
    return to_tree(&e, &r, result);
}

/* Evaluates into a value tree (expr.h): the result is built as a tree
 * directly, never written as text and parsed back. */
sdui_status sdui_expr_eval(const sdui_expr *prog, sdui_expr_lookup lookup,
                           void *ctx, sdui_json_doc **result, sdui_error *err)
{
    if (!prog || !result)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "expr: eval: %s is NULL",
                          prog ? "result" : "prog");
    return eval_to_tree(prog, lookup, ctx, NULL, 0, result, err);
}

/* The roots of a slot evaluation given none: every root is absent. */
static const sdui_value *const no_roots[1] = {NULL};

/* Checks the roots of a slot evaluation; SDUI_OK or SDUI_ARGUMENT naming
 * what is missing. */
static sdui_status slot_args(const char *fn, const sdui_expr *prog, const void *out,
                             const sdui_value *const *roots, size_t n_roots, sdui_error *err)
{
    if (!prog || !out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "expr: %s: %s is NULL", fn,
                          prog ? "the out-pointer" : "prog");
    if (!roots && n_roots > 0)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "expr: %s: roots is NULL with n_roots %zu",
                          fn, n_roots);
    return SDUI_OK;
}

/* Evaluates with the roots by slot into a value tree (expr.h). */
sdui_status sdui_expr_eval_roots(const sdui_expr *prog, const sdui_value *const *roots,
                                 size_t n_roots, sdui_json_doc **result, sdui_error *err)
{
    sdui_status st = slot_args("eval_roots", prog, result, roots, n_roots, err);
    if (st != SDUI_OK)
        return st;
    return eval_to_tree(prog, NULL, NULL, roots ? roots : no_roots, roots ? n_roots : 0, result, err);
}

/* Evaluates a condition with the roots by slot (expr.h): no result to
 * build, and with the stack block, no allocation at all unless a value
 * outgrows it. */
sdui_status sdui_expr_eval_bool(const sdui_expr *prog, const sdui_value *const *roots,
                                size_t n_roots, int *truth, sdui_error *err)
{
    sdui_xeval e;
    stack_block first;
    sdui_xval r;
    sdui_status st = slot_args("eval_bool", prog, truth, roots, n_roots, err);
    if (st != SDUI_OK)
        return st;
    if (!run(&e, &first, prog, NULL, NULL, roots ? roots : no_roots, roots ? n_roots : 0, err, &r))
        return e.st;
    if (r.t != V_BOOL) {
        static const char *const names[] = {"null", "a boolean", "an integer", "a decimal",
                                            "a string", "an array", "an array", "an object"};
        char what[64];
        snprintf(what, sizeof what, "a condition gave %s, not a boolean,", names[r.t]);
        sdui__expr_fail(&e, SDUI_EXPR_TYPE, &prog->nodes[prog->root], what);
    } else {
        *truth = r.u.b != 0;
    }
    arena_free(&e);
    return e.st;
}
