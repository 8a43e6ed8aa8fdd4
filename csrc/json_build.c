/*
 * json_build.c - builds a value tree call by call (json_build.h), for a
 * host that holds a JSON value already and for the expression evaluator's
 * results (expr_*.c), so neither writes text for the core to parse again.
 *
 * The builder writes a draft of the core's value tree (value_tree.h):
 * nodes in document order, as a tree has them, and the strings and names
 * in a byte buffer of their own, each followed by a NUL; finish hands the
 * draft to json_doc.c, which lays it out as a document's tree (value.c),
 * where a repeated name takes its place and the large objects their
 * index, exactly as for a parsed document.  So a built document and a
 * parsed one are the same kind of thing to every reader.
 *
 * State.  The draft (nodes and string bytes, each an array that doubles
 * when full), a stack of the open containers (their places in the draft,
 * innermost last), whether the innermost open object has a name waiting
 * for its value (that name is the draft's last node), and how many index
 * slots the arrays that hold containers will need.  A container's node is
 * written when it opens and its size when it closes.  Strings and names
 * are checked here (UTF-8, NUL in names) before they are copied.
 *
 * Errors.  The first failure is kept in the builder (status and record)
 * and answered by every later call until finish reports it and empties
 * the builder.  A failed call changes nothing else.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "sdui/json_build.h"
#include "value_tree.h"

/* Open containers a builder holds without a second allocation: enough
 * for most documents; deeper ones move the stack to the heap. */
#define INLINE_OPEN 16

struct sdui_json_builder {
    sdui_node *nodes;        /* the draft, in document order */
    size_t count, node_cap;
    char *bytes;             /* its strings and names, each NUL-ended */
    size_t used, byte_cap;
    size_t *open;            /* open containers (places in nodes), outermost first */
    size_t depth;            /* how many are open */
    size_t cap;              /* room in open */
    size_t slots;            /* elements of the closed arrays that hold containers */
    unsigned max_depth;      /* deepest level allowed (limits.h's count) */
    int key_pending;         /* the innermost open object has a name waiting */
    unsigned long calls;     /* calls since the builder was opened or finished */
    sdui_status st;          /* the first error, or SDUI_OK */
    sdui_error err;          /* its details */
    size_t inline_open[INLINE_OPEN];
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

/* The innermost open container's node, or NULL.  (A pointer into the
 * draft: valid until the draft next grows.) */
static sdui_node *top(const sdui_json_builder *b)
{
    return b->depth ? &b->nodes[b->open[b->depth - 1]] : NULL;
}

/* The kind of the innermost open container, for messages. */
static const char *open_kind(const sdui_json_builder *b)
{
    return !b->depth ? "nothing" : top(b)->kind == SDUI_NODE_OBJECT ? "an object" : "an array";
}

/* Checks that a value may be appended now (the rules of json_build.h). */
static sdui_status can_place(sdui_json_builder *b, const char *call)
{
    sdui_node *t = top(b);
    if (!t && b->count)
        return fail(b, SDUI_ARGUMENT, call, "a second top-level value (a document holds one)");
    if (t && t->kind == SDUI_NODE_OBJECT && !b->key_pending)
        return fail(b, SDUI_ARGUMENT, call, "a value in an object needs sdui_json_builder_key first");
    return SDUI_OK;
}

/* Makes room for one more node in the draft; SDUI_OOM if there is none. */
static sdui_status reserve_node(sdui_json_builder *b, const char *call)
{
    sdui_node *n;
    size_t cap;
    if (b->count < b->node_cap)
        return SDUI_OK;
    cap = b->node_cap ? b->node_cap * 2 : 16;
    if (cap > SIZE_MAX / sizeof *n)
        return fail(b, SDUI_OOM, call, "out of memory");
    n = sdui_realloc(b->nodes, cap * sizeof *n);
    if (!n)
        return fail(b, SDUI_OOM, call, "out of memory");
    b->nodes = n;
    b->node_cap = cap;
    return SDUI_OK;
}

/* Copies s[0, len) and a NUL into the string bytes; *at receives where.
 * SDUI_OOM if there is no room. */
static sdui_status put_bytes(sdui_json_builder *b, const char *call, const char *s,
                             size_t len, size_t *at)
{
    if (len >= SIZE_MAX - b->used)
        return fail(b, SDUI_OOM, call, "out of memory");
    if (b->byte_cap - b->used < len + 1) {
        size_t cap = b->byte_cap ? b->byte_cap : 256;
        char *n;
        while (cap - b->used < len + 1) {
            if (cap > SIZE_MAX / 2)
                return fail(b, SDUI_OOM, call, "out of memory");
            cap *= 2;
        }
        n = sdui_realloc(b->bytes, cap);
        if (!n)
            return fail(b, SDUI_OOM, call, "out of memory");
        b->bytes = n;
        b->byte_cap = cap;
    }
    if (len)
        memcpy(b->bytes + b->used, s, len);
    b->bytes[b->used + len] = '\0';
    *at = b->used;
    b->used += len + 1;
    return SDUI_OK;
}

/*
 * Appends a value node of kind where can_place said it may go, after
 * reserve_node made room: it counts in an open array (which holds a
 * container when the node is one) or takes the waiting name of an open
 * object.  Returns the node, to be filled.
 */
static sdui_node *append(sdui_json_builder *b, uint32_t kind)
{
    sdui_node *t = top(b), *nd;
    assert(b->count < b->node_cap);
    nd = &b->nodes[b->count++];
    memset(nd, 0, sizeof *nd);
    nd->kind = kind;
    nd->size = 1;
    if (t && t->kind == SDUI_NODE_ARRAY) {
        t->n++;
        if (kind == SDUI_NODE_ARRAY || kind == SDUI_NODE_OBJECT)
            t->flags |= SDUI_NODE_F_CONTAINERS;
    } else if (t) {
        assert(b->key_pending);
        b->key_pending = 0;
    }
    return nd;
}

/* The start of every scalar call: the count, the sticky error, where the
 * value may go, room for its node. */
static sdui_status scalar_call(sdui_json_builder *b, const char *call)
{
    sdui_status st = begin_call(b);
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st == SDUI_OK)
        st = reserve_node(b, call);
    return st;
}

/* Makes room for one more open container; SDUI_OOM if there is none. */
static sdui_status reserve_open(sdui_json_builder *b, const char *call)
{
    size_t *n;
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

/* Empties the builder: the draft, the stack, the waiting name and the
 * sticky error; keeps the buffers for the next build. */
static void reset(sdui_json_builder *b)
{
    b->count = 0;
    b->used = 0;
    b->depth = 0;
    b->slots = 0;
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

/* Frees the builder and its unfinished draft (json_build.h). */
void sdui_json_builder_free(sdui_json_builder *b)
{
    if (!b)
        return;
    if (b->open != b->inline_open)
        sdui_free(b->open);
    sdui_free(b->nodes);
    sdui_free(b->bytes);
    sdui_free(b);
}

/* Appends null (json_build.h). */
sdui_status sdui_json_builder_null(sdui_json_builder *b)
{
    sdui_status st = scalar_call(b, "sdui_json_builder_null");
    if (st == SDUI_OK)
        append(b, SDUI_NODE_NULL);
    return st;
}

/* Appends true or false (json_build.h). */
sdui_status sdui_json_builder_bool(sdui_json_builder *b, int v)
{
    sdui_status st = scalar_call(b, "sdui_json_builder_bool");
    if (st == SDUI_OK)
        append(b, v ? SDUI_NODE_TRUE : SDUI_NODE_FALSE);
    return st;
}

/* Appends a 64-bit integer (json_build.h). */
sdui_status sdui_json_builder_int(sdui_json_builder *b, int64_t v)
{
    sdui_status st = scalar_call(b, "sdui_json_builder_int");
    if (st == SDUI_OK)
        append(b, SDUI_NODE_INT)->u.i = v;
    return st;
}

/* Appends a finite decimal (json_build.h). */
sdui_status sdui_json_builder_real(sdui_json_builder *b, double v)
{
    static const char call[] = "sdui_json_builder_real";
    sdui_status st = begin_call(b);
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st != SDUI_OK)
        return st;
    if (!isfinite(v))
        return fail(b, SDUI_ARGUMENT, call, "a decimal that is not finite (%s)",
                    isnan(v) ? "NaN" : v > 0 ? "+infinity" : "-infinity");
    st = reserve_node(b, call);
    if (st == SDUI_OK)
        append(b, SDUI_NODE_REAL)->u.d = v;
    return st;
}

/* Appends a copy of a UTF-8 string (json_build.h). */
sdui_status sdui_json_builder_string(sdui_json_builder *b, const char *s, size_t len)
{
    static const char call[] = "sdui_json_builder_string";
    sdui_status st = begin_call(b);
    sdui_node *nd;
    size_t bad, at;
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
    st = reserve_node(b, call);
    if (st == SDUI_OK)
        st = put_bytes(b, call, s, len, &at);
    if (st != SDUI_OK)
        return st;
    nd = append(b, SDUI_NODE_STRING);
    nd->n = len;
    nd->u.at = at;
    return SDUI_OK;
}

/* Opens a container of kind (an array or an object). */
static sdui_status begin(sdui_json_builder *b, const char *call, uint32_t kind)
{
    sdui_status st = begin_call(b);
    if (st == SDUI_OK)
        st = can_place(b, call);
    if (st != SDUI_OK)
        return st;
    if (b->depth >= b->max_depth)
        return fail(b, SDUI_LIMIT, call, "nesting deeper than %u levels", b->max_depth);
    st = reserve_open(b, call);
    if (st == SDUI_OK)
        st = reserve_node(b, call);
    if (st != SDUI_OK)
        return st;
    append(b, kind);
    b->open[b->depth++] = b->count - 1;
    return SDUI_OK;
}

/* Closes the innermost open container, which must be an array (want 0)
 * or an object (want 1): its size is what was written since it opened. */
static sdui_status end(sdui_json_builder *b, const char *call, int want)
{
    sdui_status st = begin_call(b);
    sdui_node *t;
    if (st != SDUI_OK)
        return st;
    t = top(b);
    if (!t || (t->kind == SDUI_NODE_OBJECT) != want)
        return fail(b, SDUI_ARGUMENT, call, "%s is open, not %s", open_kind(b),
                    want ? "an object" : "an array");
    if (b->key_pending) {
        const sdui_node *k = &b->nodes[b->count - 1];
        const char *name = b->bytes + k->u.at;
        int show = k->n > 32 ? 32 : (int)k->n;
        while (show > 0 && (size_t)show < k->n &&
               ((unsigned char)name[show] & 0xC0) == 0x80)
            show--; /* cut at a character boundary */
        return fail(b, SDUI_ARGUMENT, call, "the key \"%.*s%s\" has no value", show,
                    name, (size_t)show < k->n ? "..." : "");
    }
    t->size = b->count - b->open[b->depth - 1];
    if (t->flags & SDUI_NODE_F_CONTAINERS)
        b->slots += t->n;
    b->depth--;
    return SDUI_OK;
}

/* Opens an array (json_build.h). */
sdui_status sdui_json_builder_begin_array(sdui_json_builder *b)
{
    return begin(b, "sdui_json_builder_begin_array", SDUI_NODE_ARRAY);
}

/* Closes the innermost array (json_build.h). */
sdui_status sdui_json_builder_end_array(sdui_json_builder *b)
{
    return end(b, "sdui_json_builder_end_array", 0);
}

/* Opens an object (json_build.h). */
sdui_status sdui_json_builder_begin_object(sdui_json_builder *b)
{
    return begin(b, "sdui_json_builder_begin_object", SDUI_NODE_OBJECT);
}

/* Closes the innermost object (json_build.h). */
sdui_status sdui_json_builder_end_object(sdui_json_builder *b)
{
    return end(b, "sdui_json_builder_end_object", 1);
}

/* Names the next member of the innermost open object (json_build.h): a
 * key node in the draft, which the layout checks for repeats. */
sdui_status sdui_json_builder_key(sdui_json_builder *b, const char *k, size_t len)
{
    static const char call[] = "sdui_json_builder_key";
    sdui_status st = begin_call(b);
    const char *nul;
    sdui_node *nd;
    size_t bad, at;
    if (st != SDUI_OK)
        return st;
    if (!top(b) || top(b)->kind != SDUI_NODE_OBJECT)
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
    st = reserve_node(b, call);
    if (st == SDUI_OK)
        st = put_bytes(b, call, k, len, &at);
    if (st != SDUI_OK)
        return st;
    top(b)->n++;
    nd = &b->nodes[b->count++];
    memset(nd, 0, sizeof *nd);
    nd->kind = SDUI_NODE_KEY;
    nd->size = 1;
    nd->n = len;
    nd->u.at = at;
    b->key_pending = 1;
    return SDUI_OK;
}

/* Hands over the finished document and empties the builder
 * (json_build.h). */
sdui_status sdui_json_builder_finish(sdui_json_builder *b, sdui_json_doc **out,
                                     sdui_error *err)
{
    static const char call[] = "sdui_json_builder_finish";
    sdui_status st;
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
        else if (!b->count)
            fail(b, SDUI_ARGUMENT, call, "nothing was built");
    }
    if (b->st != SDUI_OK) {
        st = b->st;
        if (err)
            *err = b->err;
        reset(b);
        return st;
    }
    st = sdui__json_doc_from_draft(b->nodes, b->count, b->bytes, b->used, b->slots, out, err);
    reset(b);
    return st;
}
