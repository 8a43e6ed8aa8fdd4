/*
 * token.c - design tokens: the token object and its schema check
 * (token.h).
 *
 * A token is one block of memory: the token itself, then its value tree
 * (value.c: built from the scanned text, read-only), then, when it
 * owns it, a copy of its JSON text.  Otherwise it borrows the text from a
 * reference-counted buffer (buffer.h; a pack's JSON), holding a reference
 * to the buffer.  Nothing mutates a token after it is made, so reads need
 * no lock; the reference count is atomic.
 *
 * The tree is the core's value tree (value.c, built under its token
 * rules), read through value.h like any other; a token with an object of
 * more than 16 members also owns the tree's member index.
 */
#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "token_make.h"
#include "value_tree.h"

struct sdui_token {
    atomic_long refs;
    /* Host data attached once (sdui_token_attach) and its destructor. */
    _Atomic(void *) attached;
    void (*attached_free)(void *);
    const sdui_value *root;  /* in the tree, after this struct */
    sdui_tree_index *index;  /* the tree's member index, or NULL */
    const sdui_value *props;
    const char *id;
    size_t id_len;
    const char *primitive;
    size_t primitive_len;
    int64_t version;
    int64_t primitive_version;
    const char *json;
    size_t json_len;
    sdui_buffer *owner; /* NULL when the text is in the block, owned */
};

/* Where the tree starts in a token's block: after the struct, aligned. */
#define TREE_OFFSET                                                        \
    ((sizeof(struct sdui_token) + SDUI_TREE_ALIGN - 1) /                   \
     SDUI_TREE_ALIGN * SDUI_TREE_ALIGN)

/*
 * The schema check.  The path of a fault (props.children[2].props...) is
 * written only when there is one: the check walks down with a chain of
 * frames on the C stack, one per child node, and a failure writes the
 * chain out from the top, each segment appended where the text so far
 * ends, cut at the path buffer's size.
 */

/* A child node on the way down: its index in its parent's children. */
typedef struct check_frame {
    const struct check_frame *up;
    size_t index;
} check_frame;

/* Where a schema error was found: the token, its offset, a path buffer. */
typedef struct check_ctx {
    const char *id;
    int id_len;
    sdui_error *err;
    const char *text;      /* text the offset refers to (for line:col) */
    size_t text_len;
    size_t offset;
    char path[160];
} check_ctx;

/* Appends one path segment ("props.children" and, when index is not
 * SIZE_MAX, "[index]"), dotted after what is there, cut to the buffer. */
static void path_append(check_ctx *c, size_t index)
{
    size_t base = strlen(c->path);
    if (index == SIZE_MAX)
        snprintf(c->path + base, sizeof c->path - base, "%sprops.children",
                 base ? "." : "");
    else
        snprintf(c->path + base, sizeof c->path - base,
                 "%sprops.children[%zu]", base ? "." : "", index);
}

/* Writes the chain of frames f into the path, top first. */
static void path_write(check_ctx *c, const check_frame *f)
{
    if (!f)
        return;
    path_write(c, f->up);
    path_append(c, f->index);
}

/* Reports a schema error at the token's start, naming the token and the
 * path of frame f (NULL: the token's root). */
static sdui_status schema_fail(check_ctx *c, const check_frame *f,
                               const char *what)
{
    c->path[0] = '\0';
    path_write(c, f);
    return sdui__fail_at(c->err, SDUI_SCHEMA, c->text, c->text_len, c->offset,
                         "token \"%.*s\": %s%s%s", c->id_len, c->id,
                         c->path[0] ? c->path : "", c->path[0] ? ": " : "",
                         what);
}

/* An integer member >= 1, or -1 if absent, or 0 if present but invalid. */
static int64_t positive_int(const sdui_value *obj, const char *key)
{
    const sdui_value *v = sdui_value_get(obj, key);
    if (!v)
        return -1;
    if (sdui_value_type_of(v) != SDUI_VALUE_INT || sdui_value_int(v) < 1)
        return 0;
    return sdui_value_int(v);
}

/* A non-empty string's bytes and length, or NULL. */
static const char *nonempty_string(const sdui_value *v, size_t *len)
{
    const char *s = sdui_value_string(v, len);
    return s && *len > 0 ? s : NULL;
}

static sdui_status check_props(check_ctx *c, const sdui_value *props,
                               const check_frame *f);

/* Checks one child node (frame f): primitive, optional primitiveVersion,
 * props. */
static sdui_status check_node(check_ctx *c, const sdui_value *node,
                              const check_frame *f)
{
    const sdui_value *props;
    size_t len;
    if (sdui_value_type_of(node) != SDUI_VALUE_OBJECT)
        return schema_fail(c, f, "a child node must be an object");
    if (!nonempty_string(sdui_value_get(node, "primitive"), &len))
        return schema_fail(c, f, "\"primitive\" must be a non-empty string");
    if (positive_int(node, "primitiveVersion") == 0)
        return schema_fail(c, f,
                           "\"primitiveVersion\" must be an integer >= 1");
    props = sdui_value_get(node, "props");
    if (sdui_value_type_of(props) != SDUI_VALUE_OBJECT)
        return schema_fail(c, f, "\"props\" must be an object");
    return check_props(c, props, f);
}

/* Checks props.children (when present) of the node of frame f (NULL: the
 * token) recursively. */
static sdui_status check_props(check_ctx *c, const sdui_value *props,
                               const check_frame *f)
{
    const sdui_value *children = sdui_value_get(props, "children");
    size_t i, n;
    if (!children)
        return SDUI_OK;
    if (sdui_value_type_of(children) != SDUI_VALUE_ARRAY) {
        check_frame here = {f, SIZE_MAX};
        return schema_fail(c, &here, "must be an array of nodes");
    }
    n = sdui_value_count(children);
    for (i = 0; i < n; i++) {
        check_frame here = {f, i};
        sdui_status st = check_node(c, sdui_value_at(children, i), &here);
        if (st != SDUI_OK)
            return st;
    }
    return SDUI_OK;
}

/* Checks the root fields of a token (schemas/design-token.json) and every
 * nested node. */
static sdui_status check_token(check_ctx *c, sdui_token *t)
{
    const sdui_value *root = t->root;
    int64_t n;
    if (sdui_value_type_of(root) != SDUI_VALUE_OBJECT)
        return schema_fail(c, NULL, "a token must be a JSON object");
    t->id = nonempty_string(sdui_value_get(root, "id"), &t->id_len);
    if (!t->id)
        return schema_fail(c, NULL, "\"id\" must be a non-empty string");
    c->id = t->id;
    c->id_len = t->id_len > 64 ? 64 : (int)t->id_len;
    n = positive_int(root, "version");
    if (n < 1)
        return schema_fail(c, NULL,
                           n < 0 ? "missing \"version\""
                                 : "\"version\" must be an integer >= 1");
    t->version = n;
    t->primitive = nonempty_string(sdui_value_get(root, "primitive"),
                                   &t->primitive_len);
    if (!t->primitive)
        return schema_fail(c, NULL,
                           "\"primitive\" must be a non-empty string");
    n = positive_int(root, "primitiveVersion");
    if (n < 1)
        return schema_fail(c, NULL,
                           n < 0 ? "missing \"primitiveVersion\""
                                 : "\"primitiveVersion\" must be an "
                                   "integer >= 1");
    t->primitive_version = n;
    t->props = sdui_value_get(root, "props");
    if (sdui_value_type_of(t->props) != SDUI_VALUE_OBJECT)
        return schema_fail(c, NULL, "\"props\" must be an object");
    return check_props(c, t->props, NULL);
}

/* Builds a token from a span of JSON text (token_make.h): one block for
 * the token, its tree and (unless borrowed) its text. */
sdui_status sdui__token_make(const sdui_span *span, const sdui_limits *limits,
                             sdui_token **out, sdui_error *err)
{
    sdui_token *t;
    sdui_tree_size size;
    sdui_tree_place place;
    sdui_tree tree;
    check_ctx c;
    sdui_status st;
    size_t tree_bytes, total;
    const char *json = span->bytes;
    size_t len = span->len, base_offset = span->base_offset;
    sdui_buffer *owner = span->owner;
    const char *text = span->doc ? span->doc : json;
    size_t text_len = span->doc ? span->doc_len : len;

    assert(json || len == 0);
    assert(!span->doc || base_offset + len <= span->doc_len);
    limits = sdui__limits_or_default(limits);
    *out = NULL;
    if (len > limits->max_token_bytes)
        return sdui__fail_at(err, SDUI_LIMIT, text, text_len, base_offset,
                             "token JSON is %zu bytes, over the limit of %zu",
                             len, limits->max_token_bytes);
    sdui__tree_measure(json, len, &size);
    tree_bytes = sdui__tree_bytes(&size);
    total = TREE_OFFSET + tree_bytes;
    if (tree_bytes == SIZE_MAX || total < tree_bytes ||
        (!owner && total > SIZE_MAX - len - 1))
        return sdui__oom(err);
    t = sdui_malloc(total + (owner ? 0 : len + 1));
    if (!t)
        return sdui__oom(err);
    memset(t, 0, sizeof *t);
    atomic_init(&t->refs, 1);
    atomic_init(&t->attached, NULL);
    if (owner) {
        t->json = json;
    } else {
        char *copy = (char *)t + total;
        if (len)
            memcpy(copy, json, len);
        copy[len] = '\0';
        t->json = copy;
    }
    t->json_len = len;

    place.doc = text;
    place.doc_len = text_len;
    place.base_offset = base_offset;
    st = sdui__tree_build(t->json, len, &size, (char *)t + TREE_OFFSET,
                          &place, SDUI_TREE_TOKEN, &tree, err);
    if (st != SDUI_OK) {
        sdui_free(t);
        return st;
    }
    t->root = tree.root;
    t->index = tree.index;
    memset(&c, 0, sizeof c);
    c.id = "?";
    c.id_len = 1;
    c.err = err;
    c.text = text;
    c.text_len = text_len;
    c.offset = base_offset;
    st = check_token(&c, t);
    if (st != SDUI_OK) {
        sdui__tree_index_free(t->index);
        sdui_free(t);
        return st;
    }
    if (owner)
        t->owner = sdui__buffer_retain(owner);
    *out = t;
    return SDUI_OK;
}

/* Parses one standalone token (token.h). */
sdui_status sdui_token_parse(const char *json, size_t len,
                             const sdui_limits *limits, sdui_token **out,
                             sdui_error *err)
{
    sdui_status st;
    sdui_error_clear(err);
    if (!out || (!json && len))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "json or out is NULL");
    *out = NULL;
    limits = sdui__limits_or_default(limits);
    if (len > limits->max_token_bytes)
        return sdui__fail(err, SDUI_LIMIT, -1,
                          "token JSON is %zu bytes, over the limit of %zu",
                          len, limits->max_token_bytes);
    /* Our scan first: the same grammar, UTF-8 and depth rules as packs. */
    st = sdui_json_validate(json ? json : "", len, limits->max_depth, err);
    if (st != SDUI_OK)
        return st;
    {
        sdui_span span = {json ? json : "", len, NULL, 0, NULL, 0};
        return sdui__token_make(&span, limits, out, err);
    }
}

/* Adds a reference. */
sdui_token *sdui_token_retain(sdui_token *tok)
{
    if (tok)
        atomic_fetch_add_explicit(&tok->refs, 1, memory_order_relaxed);
    return tok;
}

/* Drops a reference; frees on the last. */
void sdui_token_release(sdui_token *tok)
{
    if (!tok)
        return;
    if (atomic_fetch_sub_explicit(&tok->refs, 1, memory_order_acq_rel) != 1)
        return;
    void *data = atomic_load_explicit(&tok->attached, memory_order_acquire);
    if (data && tok->attached_free)
        tok->attached_free(data);
    sdui__buffer_release(tok->owner);
    sdui__tree_index_free(tok->index);
    sdui_free(tok);
}

/* Publishes data once: compare-and-swap from NULL.  Only the winner
 * writes the destructor, after the swap and while it still holds a
 * reference; the destructor is read only by the last release, which the
 * reference count's acquire-release ordering places after that write. */
void *sdui_token_attach(sdui_token *tok, void *data, void (*free_fn)(void *))
{
    void *expected;
    assert(tok && data);
    expected = atomic_load_explicit(&tok->attached, memory_order_acquire);
    if (expected)
        return expected;
    if (atomic_compare_exchange_strong_explicit(&tok->attached, &expected, data,
                                                memory_order_acq_rel,
                                                memory_order_acquire)) {
        tok->attached_free = free_fn;
        return data;
    }
    return expected;
}

/* The data attached to tok, or NULL (token.h). */
void *sdui_token_attached(const sdui_token *tok)
{
    assert(tok);
    return atomic_load_explicit(&((sdui_token *)tok)->attached,
                                memory_order_acquire);
}

/* The id (token.h); like every accessor below, tok must not be NULL. */
const char *sdui_token_id(const sdui_token *tok, size_t *len)
{
    assert(tok);
    if (len)
        *len = tok->id_len;
    return tok->id;
}

/* The primitive's name (token.h). */
const char *sdui_token_primitive(const sdui_token *tok, size_t *len)
{
    assert(tok);
    if (len)
        *len = tok->primitive_len;
    return tok->primitive;
}

/* The token's version (token.h). */
int64_t sdui_token_version(const sdui_token *tok)
{
    assert(tok);
    return tok->version;
}

/* The primitive's version (token.h). */
int64_t sdui_token_primitive_version(const sdui_token *tok)
{
    assert(tok);
    return tok->primitive_version;
}

/* The exact JSON text (token.h). */
const char *sdui_token_json(const sdui_token *tok, size_t *len)
{
    assert(tok);
    if (len)
        *len = tok->json_len;
    return tok->json;
}

/* The props object (token.h). */
const sdui_value *sdui_token_props(const sdui_token *tok)
{
    assert(tok);
    return (const sdui_value *)tok->props;
}

/* The whole token object (token.h). */
const sdui_value *sdui_token_root(const sdui_token *tok)
{
    assert(tok);
    return (const sdui_value *)tok->root;
}
