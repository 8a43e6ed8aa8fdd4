/*
 * json_build.c - builds a value tree call by call (json_build.h), for a
 * host that holds a JSON value already and for the expression evaluator's
 * results (expr_*.c), so neither writes text for the core to parse again.
 *
 * The tree is made of jansson values, as sdui_json_doc_parse makes it, and
 * is handed over through json_doc.c's internal constructor, so a built
 * document and a parsed one are the same kind of thing to every reader.
 *
 * State.  A stack of the containers that are open, innermost last (each a
 * borrowed pointer: the top-level value, or a member or element its parent
 * holds), the name waiting for its value in the innermost open object (a
 * copy in a buffer the builder keeps and reuses), and the top-level value.
 * A container joins its parent when it is opened, not when it is closed,
 * so closing one only pops the stack.  Strings and names are checked here
 * (UTF-8, NUL in names) before jansson copies them unchecked, so a NULL
 * from jansson can only mean memory.
 *
 * Errors.  The first failure is kept in the builder (status and record)
 * and answered by every later call until finish reports it and empties
 * the builder.  A failed call changes nothing else, so a builder in error
 * holds a consistent (if partial) tree that finish or free releases.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"
#include "sdui/json_build.h"

/* Open containers a builder holds without a second allocation: enough
 * for most documents; deeper ones move the stack to the heap. */
#define INLINE_OPEN 16

struct sdui_json_builder {
    json_t *root;            /* the top-level value, once begun */
    json_t **open;           /* open containers, outermost first */
    size_t depth;            /* how many are open */
    size_t cap;              /* room in open */
    unsigned max_depth;      /* deepest level allowed (limits.h's count) */
    int key_pending;         /* the innermost open object has a name waiting */
    char *key;               /* that name (not NUL-terminated) */
    size_t key_len, key_cap;
    unsigned long calls;     /* calls since the builder was opened or finished */
    sdui_status st;          /* the first error, or SDUI_OK */
    sdui_error err;          /* its details */
    json_t *inline_open[INLINE_OPEN];
};

/* Decodes one UTF-8 scalar value at s[*i, n) (RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF); advances *i; -1 if invalid
 * (internal.h). */
long sdui__utf8_get(const char *s, size_t n, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned long cp;
    size_t k = *i, need;
    unsigned char c;
    assert(k < n);
    c = u[k];
    if (c < 0x80) { *i = k + 1; return c; }
    if (c >= 0xC2 && c <= 0xDF) { cp = c & 0x1F; need = 1; }
    else if (c >= 0xE0 && c <= 0xEF) { cp = c & 0x0F; need = 2; }
    else if (c >= 0xF0 && c <= 0xF4) { cp = c & 0x07; need = 3; }
    else return -1;
    if (n - k <= need)
        return -1;
    for (size_t j = 1; j <= need; j++) {
        if ((u[k + j] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (u[k + j] & 0x3F);
    }
    if ((need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
        return -1;
    *i = k + need + 1;
    return (long)cp;
}

/* The offset of the first byte of s[0, n) that does not start a valid
 * UTF-8 sequence, or n when all of it is UTF-8. */
static size_t utf8_bad_at(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t at = i;
        if (sdui__utf8_get(s, n, &i) < 0)
            return at;
    }
    return n;
}

static sdui_status fail(sdui_json_builder *b, sdui_status st, const char *call,
                       const char *fmt, ...) SDUI_PRINTF(4, 5);

/* Records the builder's first error: status st, and a message naming the
 * call, its number and the depth it was made at, then what went wrong.
 * Returns st. */
static sdui_status fail(sdui_json_builder *b, sdui_status st, const char *call,
                       const char *fmt, ...)
{
    char what[160];
    va_list ap;
    assert(b->st == SDUI_OK && st != SDUI_OK);
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    b->st = st;
    return sdui__fail(&b->err, st, -1, "json builder: %s (call %lu, depth %zu): %s",
                      call, b->calls, b->depth, what);
}

/* The start of every value and key call: NULL builder, the count of
 * calls, the sticky error. */
static sdui_status begin_call(sdui_json_builder *b)
{
    if (!b)
        return SDUI_ARGUMENT;
    b->calls++;
    return b->st;
}

/* The innermost open container, or NULL. */
static json_t *top(const sdui_json_builder *b)
{
    return b->depth ? b->open[b->depth - 1] : NULL;
}

/* The kind of the innermost open container, for messages. */
static const char *open_kind(const sdui_json_builder *b)
{
    return !b->depth ? "nothing" : json_is_object(top(b)) ? "an object" : "an array";
}

/* Checks that a value may be appended now (the rules of json_build.h). */
static sdui_status can_place(sdui_json_builder *b, const char *call)
{
    json_t *t = top(b);
    if (!t && b->root)
        return fail(b, SDUI_ARGUMENT, call, "a second top-level value (a document holds one)");
    if (t && json_is_object(t) && !b->key_pending)
        return fail(b, SDUI_ARGUMENT, call, "a value in an object needs sdui_json_builder_key first");
    return SDUI_OK;
}

/* Appends v (a new reference, or NULL when making it failed) where
 * can_place said it may go.  failures: the thread's allocation failure
 * count before v was made, so a failure jansson did not report still
 * counts. */
static sdui_status attach(sdui_json_builder *b, const char *call, json_t *v,
                          unsigned long failures)
{
    json_t *t = top(b);
    int r = 0;
    if (v && sdui__alloc_failures() == failures) {
        if (!t) {
            b->root = v;
        } else if (json_is_object(t)) {
            assert(b->key_pending);
            /* (b->key is still NULL while every name so far was empty:
             * jansson refuses a NULL name of any length) */
            r = json_object_setn_new_nocheck(t, b->key ? b->key : "", b->key_len, v);
            b->key_pending = 0;
        } else {
            r = json_array_append_new(t, v);
        }
        /* (jansson releases v when it cannot take it) */
        if (r == 0 && sdui__alloc_failures() == failures)
            return SDUI_OK;
    } else {
        json_decref(v);
    }
    return fail(b, SDUI_OOM, call, "out of memory");
}

/* Makes room for one more open container; SDUI_OOM if there is none. */
static sdui_status reserve_open(sdui_json_builder *b, const char *call)
{
    json_t **n;
    size_t cap;
    if (b->depth < b->cap)
        return SDUI_OK;
    cap = b->cap * 2;
    if (cap > SIZE_MAX / sizeof *n)
        return fail(b, SDUI_OOM, call, "out of memory");
    if (b->open == b->inline_open) {
        n = sdui_malloc(cap * sizeof *n);
        if (n)
            memcpy(n, b->open, b->depth * sizeof *n);
    } else {
        n = sdui_realloc(b->open, cap * sizeof *n);
    }
    if (!n)
        return fail(b, SDUI_OOM, call, "out of memory");
    b->open = n;
    b->cap = cap;
    return SDUI_OK;
}

/* Empties the builder: releases the tree, clears the stack, the waiting
 * name and the sticky error; keeps the buffers for the next build. */
static void reset(sdui_json_builder *b)
{
    json_decref(b->root);
    b->root = NULL;
    b->depth = 0;
    b->key_pending = 0;
    b->calls = 0;
    b->st = SDUI_OK;
    sdui_error_clear(&b->err);
}

/* A new builder whose nesting bound is max_depth (internal.h). */
sdui_status sdui__json_builder_open_depth(sdui_json_builder **out,
                                          unsigned max_depth, sdui_error *err)
{
    sdui_json_builder *b;
    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "json builder: open: out is NULL");
    *out = NULL;
    b = sdui_malloc(sizeof *b);
    if (!b)
        return sdui__oom(err);
    memset(b, 0, sizeof *b);
    b->open = b->inline_open;
    b->cap = INLINE_OPEN;
    b->max_depth = max_depth;
    b->st = SDUI_OK;
    sdui_error_clear(&b->err);
    *out = b;
    return SDUI_OK;
}

/* A new builder with the public nesting bound (json_build.h). */
sdui_status sdui_json_builder_open(sdui_json_builder **out, sdui_error *err)
{
    return sdui__json_builder_open_depth(out, SDUI_JSON_BUILD_MAX_DEPTH, err);
}

/* Frees the builder and its unfinished tree (json_build.h). */
void sdui_json_builder_free(sdui_json_builder *b)
{
    if (!b)
        return;
    json_decref(b->root);
    if (b->open != b->inline_open)
        sdui_free(b->open);
    sdui_free(b->key);
    sdui_free(b);
}

/* Appends null (json_build.h). */
sdui_status sdui_json_builder_null(sdui_json_builder *b)
{
    static const char call[] = "sdui_json_builder_null";
    sdui_status st = begin_call(b);
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st != SDUI_OK)
        return st;
    return attach(b, call, json_null(), sdui__alloc_failures());
}

/* Appends true or false (json_build.h). */
sdui_status sdui_json_builder_bool(sdui_json_builder *b, int v)
{
    static const char call[] = "sdui_json_builder_bool";
    sdui_status st = begin_call(b);
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st != SDUI_OK)
        return st;
    return attach(b, call, json_boolean(v), sdui__alloc_failures());
}

/* Appends a 64-bit integer (json_build.h). */
sdui_status sdui_json_builder_int(sdui_json_builder *b, int64_t v)
{
    static const char call[] = "sdui_json_builder_int";
    sdui_status st = begin_call(b);
    unsigned long failures;
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st != SDUI_OK)
        return st;
    failures = sdui__alloc_failures();
    return attach(b, call, json_integer((json_int_t)v), failures);
}

/* Appends a finite decimal (json_build.h). */
sdui_status sdui_json_builder_real(sdui_json_builder *b, double v)
{
    static const char call[] = "sdui_json_builder_real";
    sdui_status st = begin_call(b);
    unsigned long failures;
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st != SDUI_OK)
        return st;
    if (!isfinite(v))
        return fail(b, SDUI_ARGUMENT, call, "a decimal that is not finite (%s)",
                    isnan(v) ? "NaN" : v > 0 ? "+infinity" : "-infinity");
    failures = sdui__alloc_failures();
    return attach(b, call, json_real(v), failures);
}

/* Appends a copy of a UTF-8 string (json_build.h). */
sdui_status sdui_json_builder_string(sdui_json_builder *b, const char *s, size_t len)
{
    static const char call[] = "sdui_json_builder_string";
    sdui_status st = begin_call(b);
    unsigned long failures;
    size_t bad;
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st != SDUI_OK)
        return st;
    if (!s && len > 0)
        return fail(b, SDUI_ARGUMENT, call, "NULL string of %zu bytes", len);
    bad = utf8_bad_at(s, len);
    if (bad < len)
        return fail(b, SDUI_ARGUMENT, call,
                    "string of %zu bytes is not UTF-8 at byte %zu", len, bad);
    failures = sdui__alloc_failures();
    return attach(b, call, json_stringn_nocheck(s ? s : "", len), failures);
}

/* Opens a container of the kind make builds (json_array or json_object). */
static sdui_status begin(sdui_json_builder *b, const char *call, json_t *(*make)(void))
{
    sdui_status st = begin_call(b);
    unsigned long failures;
    json_t *c;
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st != SDUI_OK)
        return st;
    if (b->depth >= b->max_depth)
        return fail(b, SDUI_LIMIT, call, "nesting deeper than %u levels", b->max_depth);
    st = reserve_open(b, call);
    if (st != SDUI_OK)
        return st;
    failures = sdui__alloc_failures();
    c = make();
    st = attach(b, call, c, failures);
    if (st != SDUI_OK)
        return st;
    /* Borrowed: the parent (or root) holds it, and nothing replaces it
     * while it is open (a repeated name can only come after it closes). */
    b->open[b->depth++] = c;
    return SDUI_OK;
}

/* Closes the innermost open container, which must be an array (want 0)
 * or an object (want 1). */
static sdui_status end(sdui_json_builder *b, const char *call, int want)
{
    sdui_status st = begin_call(b);
    json_t *t;
    if (st != SDUI_OK)
        return st;
    t = top(b);
    if (!t || json_is_object(t) != want)
        return fail(b, SDUI_ARGUMENT, call, "%s is open, not %s", open_kind(b),
                    want ? "an object" : "an array");
    if (b->key_pending) {
        int show = b->key_len > 32 ? 32 : (int)b->key_len;
        while (show > 0 && (size_t)show < b->key_len &&
               ((unsigned char)b->key[show] & 0xC0) == 0x80)
            show--; /* cut at a character boundary */
        return fail(b, SDUI_ARGUMENT, call, "the key \"%.*s%s\" has no value", show,
                    b->key, (size_t)show < b->key_len ? "..." : "");
    }
    b->depth--;
    return SDUI_OK;
}

/* Opens an array (json_build.h). */
sdui_status sdui_json_builder_begin_array(sdui_json_builder *b)
{
    return begin(b, "sdui_json_builder_begin_array", json_array);
}

/* Closes the innermost array (json_build.h). */
sdui_status sdui_json_builder_end_array(sdui_json_builder *b)
{
    return end(b, "sdui_json_builder_end_array", 0);
}

/* Opens an object (json_build.h). */
sdui_status sdui_json_builder_begin_object(sdui_json_builder *b)
{
    return begin(b, "sdui_json_builder_begin_object", json_object);
}

/* Closes the innermost object (json_build.h). */
sdui_status sdui_json_builder_end_object(sdui_json_builder *b)
{
    return end(b, "sdui_json_builder_end_object", 1);
}

/* Names the next member of the innermost open object (json_build.h). */
sdui_status sdui_json_builder_key(sdui_json_builder *b, const char *k, size_t len)
{
    static const char call[] = "sdui_json_builder_key";
    sdui_status st = begin_call(b);
    const char *nul;
    size_t bad;
    if (st != SDUI_OK)
        return st;
    if (!top(b) || !json_is_object(top(b)))
        return fail(b, SDUI_ARGUMENT, call, "a key needs an open object (%s is open)",
                    open_kind(b));
    if (b->key_pending)
        return fail(b, SDUI_ARGUMENT, call, "a key after a key that has no value");
    if (!k && len > 0)
        return fail(b, SDUI_ARGUMENT, call, "NULL key of %zu bytes", len);
    nul = len ? memchr(k, 0, len) : NULL;
    if (nul)
        return fail(b, SDUI_ARGUMENT, call, "a member name holds a NUL byte (at byte %zu)",
                    (size_t)(nul - k));
    bad = utf8_bad_at(k, len);
    if (bad < len)
        return fail(b, SDUI_ARGUMENT, call,
                    "member name of %zu bytes is not UTF-8 at byte %zu", len, bad);
    if (len > b->key_cap) {
        size_t cap = b->key_cap ? b->key_cap : 32;
        char *n;
        while (cap < len)
            cap = cap > SIZE_MAX / 2 ? len : cap * 2;
        n = sdui_realloc(b->key, cap);
        if (!n)
            return fail(b, SDUI_OOM, call, "out of memory");
        b->key = n;
        b->key_cap = cap;
    }
    if (len)
        memcpy(b->key, k, len);
    b->key_len = len;
    b->key_pending = 1;
    return SDUI_OK;
}

/* Hands over the finished document and empties the builder
 * (json_build.h). */
sdui_status sdui_json_builder_finish(sdui_json_builder *b, sdui_json_doc **out,
                                     sdui_error *err)
{
    static const char call[] = "sdui_json_builder_finish";
    json_t *root;
    if (!b || !out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "json builder: finish: NULL argument: %s is NULL",
                          b ? "out" : "b");
    *out = NULL;
    if (b->st == SDUI_OK) {
        b->calls++;
        if (b->key_pending)
            fail(b, SDUI_ARGUMENT, call, "a key has no value and %zu container%s still open",
                 b->depth, b->depth == 1 ? " is" : "s are");
        else if (b->depth)
            fail(b, SDUI_ARGUMENT, call, "%zu container%s still open (innermost: %s)",
                 b->depth, b->depth == 1 ? " is" : "s are", open_kind(b));
        else if (!b->root)
            fail(b, SDUI_ARGUMENT, call, "nothing was built");
    }
    if (b->st != SDUI_OK) {
        sdui_status st = b->st;
        if (err)
            *err = b->err;
        reset(b);
        return st;
    }
    root = b->root;
    b->root = NULL;
    reset(b);
    return sdui__json_doc_adopt(root, out, err);
}
