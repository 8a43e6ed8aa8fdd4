/*
 * token.c - design tokens: jansson parse, schema check, read accessors.
 *
 * A token owns its jansson tree and either owns a copy of its JSON text or
 * borrows it from a reference-counted buffer (buffer.h; a pack's JSON),
 * holding a reference to the buffer.
 * Nothing mutates a token after it is made, so reads need no lock; the
 * reference count is atomic.
 */
#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"
#include "token_make.h"

struct sdui_token {
    atomic_long refs;
    /* Host data attached once (sdui_token_attach) and its destructor. */
    _Atomic(void *) attached;
    void (*attached_free)(void *);
    json_t *root;
    json_t *props;
    const char *id;
    size_t id_len;
    const char *primitive;
    size_t primitive_len;
    int64_t version;
    int64_t primitive_version;
    const char *json;
    size_t json_len;
    sdui_buffer *owner; /* NULL when the text is in owned[] */
    char owned[];
};

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

/* Reports a schema error at the token's start, naming the token and path. */
static sdui_status schema_fail(check_ctx *c, const char *what)
{
    return sdui__fail_at(c->err, SDUI_SCHEMA, c->text, c->text_len, c->offset,
                         "token \"%.*s\": %s%s%s", c->id_len, c->id,
                         c->path[0] ? c->path : "", c->path[0] ? ": " : "",
                         what);
}

/* An integer member >= 1, or -1 if absent, or 0 if present but invalid. */
static int64_t positive_int(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return -1;
    if (!json_is_integer(v) || json_integer_value(v) < 1)
        return 0;
    return (int64_t)json_integer_value(v);
}

/* 1 if v is a non-empty string. */
static int nonempty_string(json_t *v)
{
    return json_is_string(v) && json_string_length(v) > 0;
}

static sdui_status check_props(check_ctx *c, json_t *props, unsigned depth);

/* Checks one child node: primitive, optional primitiveVersion, props. */
static sdui_status check_node(check_ctx *c, json_t *node, unsigned depth)
{
    int64_t pv;
    if (!json_is_object(node))
        return schema_fail(c, "a child node must be an object");
    if (!nonempty_string(json_object_get(node, "primitive")))
        return schema_fail(c, "\"primitive\" must be a non-empty string");
    pv = positive_int(node, "primitiveVersion");
    if (pv == 0)
        return schema_fail(c, "\"primitiveVersion\" must be an integer >= 1");
    if (!json_is_object(json_object_get(node, "props")))
        return schema_fail(c, "\"props\" must be an object");
    return check_props(c, json_object_get(node, "props"), depth + 1);
}

/* Checks props.children (when present) recursively, extending the path. */
static sdui_status check_props(check_ctx *c, json_t *props, unsigned depth)
{
    json_t *children = json_object_get(props, "children");
    size_t i, base = strlen(c->path);
    if (!children)
        return SDUI_OK;
    if (!json_is_array(children)) {
        snprintf(c->path + base, sizeof c->path - base, "%sprops.children",
                 base ? "." : "");
        return schema_fail(c, "must be an array of nodes");
    }
    for (i = 0; i < json_array_size(children); i++) {
        sdui_status st;
        snprintf(c->path + base, sizeof c->path - base,
                 "%sprops.children[%zu]", base ? "." : "", i);
        st = check_node(c, json_array_get(children, i), depth);
        if (st != SDUI_OK)
            return st;
    }
    c->path[base] = '\0';
    return SDUI_OK;
}

/* Checks the root fields of a token (schemas/design-token.json) and every
 * nested node. */
static sdui_status check_token(check_ctx *c, sdui_token *t)
{
    json_t *root = t->root, *v;
    int64_t n;
    if (!json_is_object(root))
        return schema_fail(c, "a token must be a JSON object");
    v = json_object_get(root, "id");
    if (!nonempty_string(v))
        return schema_fail(c, "\"id\" must be a non-empty string");
    t->id = json_string_value(v);
    t->id_len = json_string_length(v);
    c->id = t->id;
    c->id_len = t->id_len > 64 ? 64 : (int)t->id_len;
    n = positive_int(root, "version");
    if (n < 1)
        return schema_fail(c, n < 0 ? "missing \"version\""
                                    : "\"version\" must be an integer >= 1");
    t->version = n;
    v = json_object_get(root, "primitive");
    if (!nonempty_string(v))
        return schema_fail(c, "\"primitive\" must be a non-empty string");
    t->primitive = json_string_value(v);
    t->primitive_len = json_string_length(v);
    n = positive_int(root, "primitiveVersion");
    if (n < 1)
        return schema_fail(c, n < 0 ? "missing \"primitiveVersion\""
                                    : "\"primitiveVersion\" must be an "
                                      "integer >= 1");
    t->primitive_version = n;
    t->props = json_object_get(root, "props");
    if (!json_is_object(t->props))
        return schema_fail(c, "\"props\" must be an object");
    return check_props(c, t->props, 1);
}


/*
 * Start of the object key that ends just before `pos` (jansson reports key
 * errors once it has read the key's closing quote).  In valid JSON a quote
 * inside a string is always escaped, so walking back from the closing
 * quote, the first quote preceded by an even number of backslashes opens
 * the key.  Returns pos when the text does not look like that.
 */
static size_t key_start(const char *json, size_t pos)
{
    size_t i;
    if (pos < 2 || json[pos - 1] != '"')
        return pos;
    for (i = pos - 1; i-- > 0;) {
        size_t slashes = 0;
        if (json[i] != '"')
            continue;
        while (slashes < i && json[i - 1 - slashes] == '\\')
            slashes++;
        if (slashes % 2 == 0)
            return i;
    }
    return pos;
}

/* Start of the number that ends just before `pos`. */
static size_t number_start(const char *json, size_t pos)
{
    size_t i = pos;
    while (i > 0 && strchr("0123456789+-.eE", json[i - 1]) && json[i - 1])
        i--;
    return i;
}

/*
 * Maps a jansson parse error of valid JSON (the scanner has already passed
 * the text, or the pack's scan has) to what it is:
 *   json_error_duplicate_key, json_error_null_byte_in_key: SDUI_SCHEMA,
 *     refused on purpose (a key must name one member; a NUL cannot be
 *     looked up), at the offending key;
 *   json_error_numeric_overflow: SDUI_LIMIT, a number the token cannot
 *     hold (an integer beyond 64 bits, a decimal that overflows to
 *     infinity), at the number;
 *   anything else: SDUI_JSON with jansson's text, as always.
 * pos is jansson's position in json[0, len); text/base_offset give the
 * offset and line:column in the caller's text.
 */
static sdui_status jansson_fail(const json_error_t *jerr, const char *json,
                                size_t len, const char *text,
                                size_t text_len, size_t base_offset,
                                sdui_error *err)
{
    size_t pos = (size_t)(jerr->position > 0 ? jerr->position : 0);
    size_t at;
    if (pos > len)
        pos = len;
    switch (json_error_code(jerr)) {
    case json_error_duplicate_key:
    case json_error_null_byte_in_key: {
        int dup = json_error_code(jerr) == json_error_duplicate_key;
        size_t klen;
        at = key_start(json, pos);
        klen = pos - at;
        return sdui__fail_at(
            err, SDUI_SCHEMA, text, text_len, base_offset + at,
            dup ? "duplicate object key %.*s%s: refused on purpose (each key "
                  "of an object must be unique)"
                : "object key %.*s%s holds \\u0000: refused on purpose (a "
                  "key must not contain NUL)",
            (int)(klen > 64 ? 64 : klen), json + at, klen > 64 ? "..." : "");
    }
    case json_error_numeric_overflow: {
        size_t nlen;
        int integer;
        at = number_start(json, pos);
        nlen = pos - at;
        integer = !memchr(json + at, '.', nlen) &&
                  !memchr(json + at, 'e', nlen) &&
                  !memchr(json + at, 'E', nlen);
        return sdui__fail_at(
            err, SDUI_LIMIT, text, text_len, base_offset + at,
            integer ? "number %.*s%s is out of range: an integer beyond 64 "
                      "bits"
                    : "number %.*s%s is out of range: a decimal that "
                      "overflows to infinity",
            (int)(nlen > 64 ? 64 : nlen), json + at, nlen > 64 ? "..." : "");
    }
    default:
        return sdui__fail_at(err, SDUI_JSON, text, text_len,
                             base_offset + pos, "%s", jerr->text);
    }
}

/* Builds a token from a span of JSON text (token_make.h). */
sdui_status sdui__token_make(const sdui_span *span, const sdui_limits *limits,
                             sdui_token **out, sdui_error *err)
{
    sdui_token *t;
    json_error_t jerr;
    check_ctx c;
    sdui_status st;
    unsigned long failures;
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
    t = sdui_malloc(sizeof *t + (owner ? 0 : len + 1));
    if (!t)
        return sdui__oom(err);
    memset(t, 0, sizeof *t);
    atomic_init(&t->refs, 1);
    atomic_init(&t->attached, NULL);
    if (owner) {
        t->json = json;
    } else {
        memcpy(t->owned, json, len);
        t->owned[len] = '\0';
        t->json = t->owned;
    }
    t->json_len = len;

    /* Any value decodes, so a scalar is reported by the schema check. */
    failures = sdui__alloc_failures();
    t->root = json_loadb(t->json, len,
                         JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL |
                             JSON_DECODE_ANY,
                         &jerr);
    if (sdui__alloc_failures() != failures) {
        /* jansson may hide a failed allocation: trust neither result. */
        json_decref(t->root);
        sdui_free(t);
        return sdui__oom(err);
    }
    if (!t->root) {
        sdui_free(t);
        if (json_error_code(&jerr) == json_error_out_of_memory)
            return sdui__oom(err);
        return jansson_fail(&jerr, json, len, text, text_len, base_offset,
                            err);
    }
    memset(&c, 0, sizeof c);
    c.id = "?";
    c.id_len = 1;
    c.err = err;
    c.text = text;
    c.text_len = text_len;
    c.offset = base_offset;
    st = check_token(&c, t);
    if (st != SDUI_OK) {
        json_decref(t->root);
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
    json_decref(tok->root);
    sdui__buffer_release(tok->owner);
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

/* sdui_value is a jansson node seen through an opaque type. */
#define J(v) ((json_t *)(v))

/* The type of a value; NULL (absent) is SDUI_VALUE_NULL (token.h). */
sdui_value_type sdui_value_type_of(const sdui_value *v)
{
    if (!v)
        return SDUI_VALUE_NULL;
    switch (json_typeof(J(v))) {
    case JSON_OBJECT: return SDUI_VALUE_OBJECT;
    case JSON_ARRAY: return SDUI_VALUE_ARRAY;
    case JSON_STRING: return SDUI_VALUE_STRING;
    case JSON_INTEGER: return SDUI_VALUE_INT;
    case JSON_REAL: return SDUI_VALUE_REAL;
    case JSON_TRUE:
    case JSON_FALSE: return SDUI_VALUE_BOOL;
    default: return SDUI_VALUE_NULL;
    }
}

/* 1 for true, else 0 (token.h). */
int sdui_value_bool(const sdui_value *v) { return v && json_is_true(J(v)); }

/* An integer, else 0 (token.h). */
int64_t sdui_value_int(const sdui_value *v)
{
    return v && json_is_integer(J(v)) ? (int64_t)json_integer_value(J(v)) : 0;
}

/* A number as a double, else 0.0 (token.h). */
double sdui_value_real(const sdui_value *v)
{
    return v && json_is_number(J(v)) ? json_number_value(J(v)) : 0.0;
}

/* A string's bytes, else NULL (token.h). */
const char *sdui_value_string(const sdui_value *v, size_t *len)
{
    if (!v || !json_is_string(J(v))) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = json_string_length(J(v));
    return json_string_value(J(v));
}

/* Elements of an array or members of an object, else 0 (token.h). */
size_t sdui_value_count(const sdui_value *v)
{
    if (!v)
        return 0;
    if (json_is_array(J(v)))
        return json_array_size(J(v));
    if (json_is_object(J(v)))
        return json_object_size(J(v));
    return 0;
}

/* Array element i, else NULL (token.h). */
const sdui_value *sdui_value_at(const sdui_value *v, size_t i)
{
    return v ? (const sdui_value *)json_array_get(J(v), i) : NULL;
}

/* Object member by key, else NULL (token.h). */
const sdui_value *sdui_value_get(const sdui_value *v, const char *key)
{
    return v && key ? (const sdui_value *)json_object_get(J(v), key) : NULL;
}

/* The next member of an object in document order, or NULL (token.h). */
const void *sdui_value_next(const sdui_value *obj, const void *it)
{
    if (!obj || !json_is_object(J(obj)))
        return NULL;
    if (!it)
        return json_object_iter(J(obj));
    return json_object_iter_next(J(obj), (void *)it);
}

/* The key of a member iterator (token.h). */
const char *sdui_value_iter_key(const void *it, size_t *len)
{
    if (len)
        *len = json_object_iter_key_len((void *)it);
    return json_object_iter_key((void *)it);
}

/* The value of a member iterator (token.h). */
const sdui_value *sdui_value_iter_value(const void *it)
{
    return (const sdui_value *)json_object_iter_value((void *)it);
}
