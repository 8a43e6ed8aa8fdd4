/*
 * test_token_tree.c - tokens read through the sdui_value API against
 * jansson, the reference parser.
 *
 * The reference is the token path as it was when jansson built a token's
 * tree: the validating scan, then json_loadb (duplicates refused, \u0000
 * allowed, any value), its errors mapped to the core's (a duplicate key or
 * a key holding \u0000: SDUI_SCHEMA at the key; a number out of range:
 * SDUI_LIMIT at the number; anything else: SDUI_JSON with jansson's text at
 * jansson's position), then the schema check of token.h on jansson's tree.
 * It is kept here, whole, so every outcome of sdui_token_parse and
 * sdui_pack_get can be compared with it field by field: status, message,
 * offset, line and column on failure; on success every value reachable
 * through the sdui_value API (types, integers, reals bit for bit, strings
 * byte for byte and NUL-terminated, counts, element order, member order,
 * get by key agreeing with iteration).
 *
 * The corpus: every file of JSONTestSuite's test_parsing/ and
 * test_transform/ (as a token, as a props member, and as props when it is
 * an object), the example tokens (Examples/tokens/, one file each) and the example
 * pack's tokens, generated tokens (numbers at and past every range edge,
 * escapes, surrogate pairs, \u0000, duplicate and NUL keys, schema faults)
 * alone and in a pack, jansson's own nesting limit at its edge, and
 * decimals under a locale whose decimal point is a comma (jansson reads
 * them through it; the test runs when such a locale is installed, e.g.
 * LOCPATH pointing at one made with localedef -i de_DE -f UTF-8).
 *
 * The reference's mapping of jansson's errors and its schema check are the
 * token's documented differences from jansson (json_oracle.h's table: 2
 * and 3; the locale test shows difference 4); nothing else may differ.
 */
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "json_oracle.h"

/* ---------------------------------------------------------------------
 * The reference: the token path over jansson.
 * --------------------------------------------------------------------- */

/* Fills e as the core fills an error record at a text position. */
static sdui_status ref_fail(sdui_error *e, sdui_status st, const char *text,
                            size_t text_len, size_t offset, const char *fmt,
                            ...)
{
    va_list ap;
    if (offset > text_len)
        offset = text_len;
    e->status = st;
    e->offset = (long long)offset;
    e->code = 0;
    va_start(ap, fmt);
    if (vsnprintf(e->message, sizeof e->message, fmt, ap) < 0)
        e->message[0] = '\0';
    va_end(ap);
    sdui_json_position(text, text_len, offset, &e->line, &e->column);
    return st;
}

/* Where the reference reports: the text offsets refer to and the token's
 * place in it. */
typedef struct ref_place {
    const char *text;
    size_t text_len, base;
} ref_place;

/* The reference's schema check state: the token, its place, the path. */
typedef struct ref_check {
    const char *id;
    int id_len;
    sdui_error *err;
    const ref_place *at;
    char path[160];
} ref_check;

/* A schema error at the token's start, naming the token and the path. */
static sdui_status ref_schema_fail(ref_check *c, const char *what)
{
    return ref_fail(c->err, SDUI_SCHEMA, c->at->text, c->at->text_len,
                    c->at->base, "token \"%.*s\": %s%s%s", c->id_len, c->id,
                    c->path[0] ? c->path : "", c->path[0] ? ": " : "", what);
}

/* An integer member >= 1, or -1 if absent, or 0 if present but invalid. */
static int64_t ref_positive_int(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return -1;
    if (!json_is_integer(v) || json_integer_value(v) < 1)
        return 0;
    return (int64_t)json_integer_value(v);
}

/* 1 if v is a non-empty string. */
static int ref_nonempty_string(json_t *v)
{
    return json_is_string(v) && json_string_length(v) > 0;
}

static sdui_status ref_check_props(ref_check *c, json_t *props);

/* Checks one child node. */
static sdui_status ref_check_node(ref_check *c, json_t *node)
{
    if (!json_is_object(node))
        return ref_schema_fail(c, "a child node must be an object");
    if (!ref_nonempty_string(json_object_get(node, "primitive")))
        return ref_schema_fail(c, "\"primitive\" must be a non-empty string");
    if (ref_positive_int(node, "primitiveVersion") == 0)
        return ref_schema_fail(c, "\"primitiveVersion\" must be an integer "
                                  ">= 1");
    if (!json_is_object(json_object_get(node, "props")))
        return ref_schema_fail(c, "\"props\" must be an object");
    return ref_check_props(c, json_object_get(node, "props"));
}

/* Checks props.children, extending the path. */
static sdui_status ref_check_props(ref_check *c, json_t *props)
{
    json_t *children = json_object_get(props, "children");
    size_t i, base = strlen(c->path);
    if (!children)
        return SDUI_OK;
    if (!json_is_array(children)) {
        snprintf(c->path + base, sizeof c->path - base, "%sprops.children",
                 base ? "." : "");
        return ref_schema_fail(c, "must be an array of nodes");
    }
    for (i = 0; i < json_array_size(children); i++) {
        sdui_status st;
        snprintf(c->path + base, sizeof c->path - base,
                 "%sprops.children[%zu]", base ? "." : "", i);
        st = ref_check_node(c, json_array_get(children, i));
        if (st != SDUI_OK)
            return st;
    }
    c->path[base] = '\0';
    return SDUI_OK;
}

/* Checks a token's root fields and every nested node. */
static sdui_status ref_check_token(ref_check *c, json_t *root)
{
    json_t *v;
    int64_t n;
    if (!json_is_object(root))
        return ref_schema_fail(c, "a token must be a JSON object");
    v = json_object_get(root, "id");
    if (!ref_nonempty_string(v))
        return ref_schema_fail(c, "\"id\" must be a non-empty string");
    c->id = json_string_value(v);
    c->id_len = json_string_length(v) > 64 ? 64 : (int)json_string_length(v);
    n = ref_positive_int(root, "version");
    if (n < 1)
        return ref_schema_fail(c, n < 0 ? "missing \"version\""
                                        : "\"version\" must be an integer "
                                          ">= 1");
    if (!ref_nonempty_string(json_object_get(root, "primitive")))
        return ref_schema_fail(c, "\"primitive\" must be a non-empty string");
    n = ref_positive_int(root, "primitiveVersion");
    if (n < 1)
        return ref_schema_fail(c, n < 0 ? "missing \"primitiveVersion\""
                                        : "\"primitiveVersion\" must be an "
                                          "integer >= 1");
    if (!json_is_object(json_object_get(root, "props")))
        return ref_schema_fail(c, "\"props\" must be an object");
    return ref_check_props(c, json_object_get(root, "props"));
}

/* Start of the object key that ends just before pos (jansson reports key
 * errors once it has read the key's closing quote). */
static size_t ref_key_start(const char *json, size_t pos)
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

/* Start of the number that ends just before pos. */
static size_t ref_number_start(const char *json, size_t pos)
{
    size_t i = pos;
    while (i > 0 && strchr("0123456789+-.eE", json[i - 1]) && json[i - 1])
        i--;
    return i;
}

/* Maps a jansson error on scanned text to the core's error. */
static sdui_status ref_jansson_fail(const json_error_t *jerr, const char *json,
                                    size_t len, const ref_place *at,
                                    sdui_error *err)
{
    size_t pos = (size_t)(jerr->position > 0 ? jerr->position : 0), k;
    if (pos > len)
        pos = len;
    switch (json_error_code(jerr)) {
    case json_error_duplicate_key:
    case json_error_null_byte_in_key: {
        int dup = json_error_code(jerr) == json_error_duplicate_key;
        size_t klen;
        k = ref_key_start(json, pos);
        klen = pos - k;
        return ref_fail(
            err, SDUI_SCHEMA, at->text, at->text_len, at->base + k,
            dup ? "duplicate object key %.*s%s: refused on purpose (each key "
                  "of an object must be unique)"
                : "object key %.*s%s holds \\u0000: refused on purpose (a "
                  "key must not contain NUL)",
            (int)(klen > 64 ? 64 : klen), json + k, klen > 64 ? "..." : "");
    }
    case json_error_numeric_overflow: {
        size_t nlen;
        int integer;
        k = ref_number_start(json, pos);
        nlen = pos - k;
        integer = !memchr(json + k, '.', nlen) &&
                  !memchr(json + k, 'e', nlen) &&
                  !memchr(json + k, 'E', nlen);
        return ref_fail(
            err, SDUI_LIMIT, at->text, at->text_len, at->base + k,
            integer ? "number %.*s%s is out of range: an integer beyond 64 "
                      "bits"
                    : "number %.*s%s is out of range: a decimal that "
                      "overflows to infinity",
            (int)(nlen > 64 ? 64 : nlen), json + k, nlen > 64 ? "..." : "");
    }
    default:
        return ref_fail(err, SDUI_JSON, at->text, at->text_len,
                        at->base + pos, "%s", jerr->text);
    }
}

/*
 * The reference outcome for a token's text json[0, len) that has passed
 * the scan, at place `at`: SDUI_OK with *tree set (the caller decrefs), or
 * the error.
 */
static sdui_status ref_make(const char *json, size_t len, const ref_place *at,
                            json_t **tree, sdui_error *err)
{
    json_error_t jerr;
    ref_check c;
    sdui_status st;
    json_t *root = json_loadb(len ? json : "", len, ORACLE_TOKEN_FLAGS, &jerr);
    *tree = NULL;
    if (!root)
        return ref_jansson_fail(&jerr, json, len, at, err);
    memset(&c, 0, sizeof c);
    c.id = "?";
    c.id_len = 1;
    c.err = err;
    c.at = at;
    st = ref_check_token(&c, root);
    if (st != SDUI_OK) {
        json_decref(root);
        return st;
    }
    *tree = root;
    return SDUI_OK;
}

/* The reference outcome of sdui_token_parse (lim not NULL). */
static sdui_status ref_parse(const char *json, size_t len,
                             const sdui_limits *lim, json_t **tree,
                             sdui_error *err)
{
    ref_place at = {json, len, 0};
    sdui_status st;
    *tree = NULL;
    if (len > lim->max_token_bytes)
        return sdui_token_parse(json, len, lim, NULL, err); /* argument */
    st = sdui_json_validate(json, len, lim->max_depth, err);
    if (st != SDUI_OK)
        return st;
    return ref_make(json, len, &at, tree, err);
}

/* ---------------------------------------------------------------------
 * Comparing a token with the reference.
 * --------------------------------------------------------------------- */

/* What a comparison found first, for the failure message. */
typedef struct diff {
    char what[200];
} diff;

/* Notes the first difference; returns 0. */
static int differ(diff *d, const char *fmt, ...)
{
    va_list ap;
    if (d->what[0])
        return 0;
    va_start(ap, fmt);
    vsnprintf(d->what, sizeof d->what, fmt, ap);
    va_end(ap);
    return 0;
}

/* 1 if the tree under v holds what jansson's j holds, read through every
 * accessor. */
static int same_tree(const sdui_value *v, json_t *j, diff *d, unsigned depth)
{
    size_t len = 7, i, n;
    const char *s;
    if (!v)
        return differ(d, "absent value at depth %u", depth);
    switch (json_typeof(j)) {
    case JSON_NULL:
        if (sdui_value_type_of(v) != SDUI_VALUE_NULL)
            return differ(d, "null is type %d", sdui_value_type_of(v));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        if (sdui_value_type_of(v) != SDUI_VALUE_BOOL ||
            sdui_value_bool(v) != json_is_true(j))
            return differ(d, "bool differs at depth %u", depth);
        break;
    case JSON_INTEGER:
        if (sdui_value_type_of(v) != SDUI_VALUE_INT ||
            sdui_value_int(v) != (int64_t)json_integer_value(j))
            return differ(d, "integer %lld differs (type %d, %lld)",
                          (long long)json_integer_value(j),
                          sdui_value_type_of(v), (long long)sdui_value_int(v));
        {
            double a = sdui_value_real(v), b = (double)json_integer_value(j);
            if (memcmp(&a, &b, sizeof a) != 0)
                return differ(d, "integer %lld as a double differs",
                              (long long)json_integer_value(j));
        }
        break;
    case JSON_REAL: {
        double a = sdui_value_real(v), b = json_real_value(j);
        if (sdui_value_type_of(v) != SDUI_VALUE_REAL ||
            memcmp(&a, &b, sizeof a) != 0)
            return differ(d, "real %.17g differs (type %d, %.17g)", b,
                          sdui_value_type_of(v), a);
        if (sdui_value_int(v) != 0)
            return differ(d, "real %.17g reads as an integer", b);
        break;
    }
    case JSON_STRING:
        s = sdui_value_string(v, &len);
        if (sdui_value_type_of(v) != SDUI_VALUE_STRING || !s ||
            len != json_string_length(j) ||
            memcmp(s, json_string_value(j), len) != 0 || s[len] != '\0')
            return differ(d, "string \"%s\" differs (%zu bytes)",
                          json_string_value(j), json_string_length(j));
        if (sdui_value_string(v, NULL) != s)
            return differ(d, "string pointer differs without len");
        break;
    case JSON_ARRAY:
        n = json_array_size(j);
        if (sdui_value_type_of(v) != SDUI_VALUE_ARRAY ||
            sdui_value_count(v) != n)
            return differ(d, "array of %zu differs (type %d, count %zu)", n,
                          sdui_value_type_of(v), sdui_value_count(v));
        for (i = 0; i < n; i++)
            if (!same_tree(sdui_value_at(v, i), json_array_get(j, i), d,
                           depth + 1))
                return differ(d, "element %zu", i);
        if (sdui_value_at(v, n) != NULL || sdui_value_at(v, SIZE_MAX) != NULL)
            return differ(d, "element past the end is not NULL");
        if (sdui_value_next(v, NULL) != NULL || sdui_value_get(v, "0"))
            return differ(d, "an array reads as an object");
        break;
    case JSON_OBJECT: {
        const void *it;
        void *jt = json_object_iter(j);
        n = json_object_size(j);
        if (sdui_value_type_of(v) != SDUI_VALUE_OBJECT ||
            sdui_value_count(v) != n)
            return differ(d, "object of %zu differs (type %d, count %zu)", n,
                          sdui_value_type_of(v), sdui_value_count(v));
        i = 0;
        for (it = sdui_value_next(v, NULL); it;
             it = sdui_value_next(v, it), jt = json_object_iter_next(j, jt)) {
            const char *key = sdui_value_iter_key(it, &len);
            if (!jt)
                return differ(d, "more members than jansson's %zu", n);
            if (!key || len != json_object_iter_key_len(jt) ||
                memcmp(key, json_object_iter_key(jt), len) != 0 ||
                key[len] != '\0')
                return differ(d, "member %zu key differs: \"%s\" vs \"%s\"",
                              i, key ? key : "(null)",
                              json_object_iter_key(jt));
            if (sdui_value_get(v, key) != sdui_value_iter_value(it))
                return differ(d, "get(\"%s\") is not the member", key);
            if (!same_tree(sdui_value_iter_value(it),
                           json_object_iter_value(jt), d, depth + 1))
                return differ(d, "member \"%s\"", key);
            i++;
        }
        if (jt || i != n)
            return differ(d, "fewer members than jansson's %zu", n);
        if (sdui_value_at(v, 0) != NULL)
            return differ(d, "an object reads as an array");
        break;
    }
    default:
        return differ(d, "unknown jansson type");
    }
    if (json_typeof(j) != JSON_STRING) {
        len = 7;
        if (sdui_value_string(v, &len) != NULL || len != 0)
            return differ(d, "a non-string reads as a string");
    }
    if (json_typeof(j) != JSON_ARRAY && json_typeof(j) != JSON_OBJECT &&
        (sdui_value_count(v) != 0 || sdui_value_next(v, NULL) != NULL))
        return differ(d, "a scalar has members");
    return 1;
}

/* 1 if the token's derived fields agree with the reference tree. */
static int same_fields(const sdui_token *tok, json_t *root, diff *d)
{
    size_t len = 0;
    const char *s = sdui_token_id(tok, &len);
    json_t *v = json_object_get(root, "id");
    if (len != json_string_length(v) ||
        memcmp(s, json_string_value(v), len) != 0 || s[len])
        return differ(d, "id differs");
    s = sdui_token_primitive(tok, &len);
    v = json_object_get(root, "primitive");
    if (len != json_string_length(v) ||
        memcmp(s, json_string_value(v), len) != 0 || s[len])
        return differ(d, "primitive differs");
    if (sdui_token_version(tok) !=
            json_integer_value(json_object_get(root, "version")) ||
        sdui_token_primitive_version(tok) !=
            json_integer_value(json_object_get(root, "primitiveVersion")))
        return differ(d, "a version differs");
    if (sdui_token_props(tok) !=
        sdui_value_get(sdui_token_root(tok), "props"))
        return differ(d, "props is not root.props");
    return 1;
}

/* 1 if two error records say the same. */
static int same_error(const sdui_error *a, const sdui_error *b)
{
    return a->status == b->status && a->offset == b->offset &&
           a->line == b->line && a->column == b->column &&
           strcmp(a->message, b->message) == 0;
}

static unsigned long compared_ok, compared_err[SDUI_OOM + 1];

/* Compares an outcome (st, tok, err) with the reference (rst, tree, rerr);
 * name says which input it was. */
static void compare(const char *name, sdui_status st, const sdui_token *tok,
                    const sdui_error *err, sdui_status rst, json_t *tree,
                    const sdui_error *rerr)
{
    diff d;
    d.what[0] = '\0';
    if (!CHECKF(st == rst, "%s: %s \"%s\", reference %s \"%s\"", name,
                sdui_status_name(st), err->message, sdui_status_name(rst),
                rst == SDUI_OK ? "" : rerr->message))
        return;
    if (st != SDUI_OK) {
        if (st <= SDUI_OOM)
            compared_err[st]++;
        CHECKF(tok == NULL && same_error(err, rerr),
               "%s: error %s \"%s\" at %lld (%d:%d), reference \"%s\" at "
               "%lld (%d:%d)",
               name, sdui_status_name(err->status), err->message, err->offset,
               err->line, err->column, rerr->message, rerr->offset,
               rerr->line, rerr->column);
        return;
    }
    compared_ok++;
    CHECKF(tok && same_tree(sdui_token_root(tok), tree, &d, 0) &&
               same_fields(tok, tree, &d),
           "%s: trees differ: %s", name, d.what);
}

/* Parses json as a token and compares everything with the reference. */
static sdui_status check_parse(const char *name, const char *json, size_t len,
                               const sdui_limits *lim)
{
    sdui_token *tok = NULL;
    sdui_error err, rerr;
    json_t *tree = NULL;
    sdui_status st = sdui_token_parse(json, len, lim, &tok, &err);
    sdui_status rst = ref_parse(json, len, lim, &tree, &rerr);
    compare(name, st, tok, &err, rst, tree, &rerr);
    json_decref(tree);
    sdui_token_release(tok);
    return st;
}

/* Limits for the corpus: deep and large enough for every file. */
static sdui_limits corpus_limits(void)
{
    sdui_limits lim;
    sdui_limits_default(&lim);
    lim.max_depth = 4096;
    lim.max_token_bytes = (size_t)4 << 20;
    return lim;
}

/* ---------------------------------------------------------------------
 * Files.
 * --------------------------------------------------------------------- */

/* Reads a whole file into a new NUL-terminated buffer, or NULL. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *p;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p) {
        p[n] = '\0';
        *len = (size_t)n;
    }
    return p;
}

/* The token head every wrapped input shares. */
#define HEAD                                                              \
    "{\"id\":\"t\",\"version\":1,\"primitive\":\"T\",\"primitiveVersion\":1,"

/* Checks one JSON text three ways: as a token, as the value of a props
 * member, and as props itself. */
static void check_text(const char *name, const char *text, size_t len,
                       const sdui_limits *lim)
{
    char label[1100];
    size_t cap = len + 128, n;
    char *doc = malloc(cap);
    if (!doc)
        return;
    snprintf(label, sizeof label, "%s (alone)", name);
    check_parse(label, text, len, lim);
    n = (size_t)snprintf(doc, cap, HEAD "\"props\":{\"x\":");
    memcpy(doc + n, text, len);
    n += len;
    memcpy(doc + n, "}}", 2);
    snprintf(label, sizeof label, "%s (in props)", name);
    check_parse(label, doc, n + 2, lim);
    n = (size_t)snprintf(doc, cap, HEAD "\"props\":");
    memcpy(doc + n, text, len);
    n += len;
    doc[n] = '}';
    snprintf(label, sizeof label, "%s (as props)", name);
    check_parse(label, doc, n + 1, lim);
    free(doc);
}

/* The JSONTestSuite root ($SDUI_JSONTESTSUITE or ../shared/JSONTestSuite). */
static const char *suite_root(void)
{
    const char *env = getenv("SDUI_JSONTESTSUITE");
    return env && *env ? env : "../shared/JSONTestSuite";
}

/* Every file of a directory through check_text; returns the count. */
static size_t check_dir(const char *dir, const char *suffix,
                        const sdui_limits *lim)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t count = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char path[1024];
        size_t len = 0, sl = strlen(suffix), nl = strlen(e->d_name);
        char *text;
        if (nl < sl || strcmp(e->d_name + nl - sl, suffix) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        text = read_file(path, &len);
        if (!text)
            continue;
        check_text(path, text, len, lim);
        free(text);
        count++;
    }
    closedir(d);
    return count;
}

/* JSONTestSuite's parsing and transform files. */
static void test_suite(void)
{
    sdui_limits lim = corpus_limits();
    char dir[1024];
    size_t n;
    snprintf(dir, sizeof dir, "%s/test_parsing", suite_root());
    n = check_dir(dir, ".json", &lim);
    CHECKF(n >= 300, "JSONTestSuite test_parsing: %zu files in %s", n, dir);
    snprintf(dir, sizeof dir, "%s/test_transform", suite_root());
    n = check_dir(dir, ".json", &lim);
    CHECKF(n >= 20, "JSONTestSuite test_transform: %zu files in %s", n, dir);
}

/* The example tokens, alone, and the example pack's tokens, got from the
 * pack and parsed alone. */
static void test_examples(void)
{
    sdui_limits lim;
    sdui_pack *pack = NULL;
    sdui_error err;
    size_t n, i;
    sdui_limits_default(&lim);
    n = check_dir("Examples/tokens", ".json", &lim);
    CHECKF(n >= 40, "Examples/tokens: %zu files", n);
    n = check_dir("Examples/themes", ".json", &lim);
    CHECKF(n >= 1, "Examples/themes: %zu files", n);
    CHECK_STATUS(sdui_pack_open_file("Examples/core-pack.json.gz", NULL,
                                     &pack, &err),
                 SDUI_OK);
    if (!pack)
        return;
    n = sdui_pack_count(pack);
    CHECK(n >= 40);
    for (i = 0; i < n; i++) {
        size_t idlen = 0, len = 0;
        const char *id = sdui_pack_id_at(pack, i, &idlen);
        sdui_token *tok = NULL;
        json_t *tree = NULL;
        sdui_error rerr;
        sdui_status st = sdui_pack_get(pack, id, idlen, &tok, &err), rst;
        char name[128];
        const char *json;
        snprintf(name, sizeof name, "core-pack token %.*s", (int)idlen, id);
        if (!CHECKF(st == SDUI_OK, "%s: %s", name, err.message))
            continue;
        json = sdui_token_json(tok, &len);
        rst = ref_parse(json, len, &lim, &tree, &rerr);
        compare(name, st, tok, &err, rst, tree, &rerr);
        json_decref(tree);
        check_parse(name, json, len, &lim);
        sdui_token_release(tok);
    }
    sdui_pack_free(pack);
}

/* ---------------------------------------------------------------------
 * Generated tokens.
 * --------------------------------------------------------------------- */

/* SplitMix64. */
static uint64_t rng_state = 0x5D01;

/* The next pseudo-random number. */
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A number in [0, n). */
static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }

/* A growing text. */
typedef struct text {
    char *p;
    size_t len, cap;
} text;

/* Appends n bytes. */
static void put(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p)
            abort();
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

/* Appends a NUL-terminated string. */
static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

/* Appends formatted text. */
static void putf(text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(t, buf, (size_t)n);
}

/* How faulty a generated token may be (per mille). */
typedef struct faults {
    unsigned dup_key, nul_key, overflow, schema;
    int keep_id; /* never leave "id" out (a pack needs one) */
} faults;

/* Sometimes white space. */
static void ws(text *t)
{
    static const char *const spaces[] = {" ", "\n", "\t", "\r\n  ", "  "};
    if (below(6) == 0)
        puts_(t, spaces[below(5)]);
}

/* Appends random digits, the first not 0 unless n is 1. */
static void digits(text *t, unsigned n, int lead_zero_ok)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        char c = (char)('0' + below(10));
        if (i == 0 && !lead_zero_ok && n > 1 && c == '0')
            c = '1';
        put(t, &c, 1);
    }
}

/* Appends a number: integers and decimals at and past every range edge. */
static void gen_number(text *t, const faults *f)
{
    static const char *const edges[] = {
        "0", "-0", "0.0", "-0.0", "0e0", "-0E-0", "1E+2", "1e-2",
        "9223372036854775807", "-9223372036854775808",
        "9007199254740993", "-9007199254740993", "4.9e-324", "5e-324",
        "2.4703282292062327e-324", "2.4703282292062328e-324",
        "2.2250738585072011e-308", "2.2250738585072014e-308",
        "1.7976931348623157e308", "1.7976931348623158e308",
        "179769313486231570000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000"
        "0000000000000000000000000000000000000000000000000000000.0",
        "1e-400", "-1e-400", "0.1", "0.2", "0.3", "1.5", "123.456e-7",
        "9007199254740992.5", "1e22", "1e23", "1.0e-22", "8.988465674311579e307",
        "0.000000000000000000000000000000000000000000000000000000001e-300",
        "100000000000000000000000000000000000000000e-42",
        "1e0000000000000000000000000000000000000000000000000000000000002",
        "-1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203126",
        "2.2250738585072012e-308", "1.7976931348623159e308e",
    };
    static const char *const overflows[] = {
        "9223372036854775808", "-9223372036854775809",
        "123456789012345678901234567890", "1e400", "-1E+400",
        "1.7976931348623159e308", "1e99999999999999999999", "-1.5e309",
        "18446744073709551616", "-18446744073709551616",
    };
    unsigned k = below(10);
    if (below(1000) < f->overflow) {
        puts_(t, overflows[below(sizeof overflows / sizeof *overflows)]);
        return;
    }
    if (k == 0) {
        const char *e = edges[below(sizeof edges / sizeof *edges - 1)];
        puts_(t, e);
        return;
    }
    if (below(3) == 0)
        puts_(t, "-");
    if (k < 4) {
        /* An integer of 1 to 18 digits (never past 64 bits). */
        digits(t, 1 + below(18), 0);
        return;
    }
    /* A decimal: mantissa, fraction, exponent of varied size. */
    if (below(4) == 0)
        puts_(t, "0");
    else
        digits(t, 1 + below(below(4) ? 8 : 25), 0);
    if (below(3)) {
        puts_(t, ".");
        digits(t, 1 + below(below(4) ? 6 : 22), 1);
    }
    if (below(3) == 0 || t->p[t->len - 1] != '.') {
        if (below(2) || !strchr(t->p + t->len - 1, '.')) {
            int e;
            put(t, below(2) ? "e" : "E", 1);
            if (below(3) == 0)
                put(t, below(2) ? "+" : "-", 1);
            e = (int)(below(5) ? below(30) : below(330));
            putf(t, "%s%d", below(6) == 0 ? "00" : "", e);
        }
    }
}

/* Appends a string body: ASCII, escapes, \u escapes, surrogate pairs,
 * raw UTF-8, and \u0000 when nul is set. */
static void gen_string_body(text *t, int nul)
{
    static const char *const pieces[] = {
        "a", "b", "zz", "Hello", " ", "\\\"", "\\\\", "\\/", "\\b", "\\f",
        "\\n", "\\r", "\\t", "\\u00e9", "\\u00E9", "\\u20AC", "\\uffff",
        "\\ud83d\\ude00", "\\uD834\\uDD1E", "\xc3\xa9", "\xe6\x97\xa5",
        "\xf0\x9f\x98\x80", "\\u0041", "\\u007f", "\\u0080", "\\u07ff",
        "\\u0800", "{{a.b}}", "@color.primary", "#1B5E20", "/",
    };
    unsigned n = below(8), i;
    for (i = 0; i < n; i++) {
        if (nul && below(8) == 0)
            puts_(t, "\\u0000");
        else
            puts_(t, pieces[below(sizeof pieces / sizeof *pieces)]);
    }
}

static void gen_value(text *t, unsigned depth, const faults *f);

/* Appends up to max members (no braces); each after the first, or every
 * one when more is set, is preceded by a comma. */
static void gen_members(text *t, unsigned depth, const faults *f,
                        unsigned max, int more)
{
    static const char *const pool[] = {"a", "\\u0061", "b", "k", "\\u006b",
                                       "", "a\\\"b"};
    unsigned n = below(max + 1), i;
    for (i = 0; i < n; i++) {
        if (i || more) {
            puts_(t, ",");
            ws(t);
        }
        puts_(t, "\"");
        if (below(1000) < f->dup_key) {
            puts_(t, pool[below(sizeof pool / sizeof *pool)]);
        } else {
            gen_string_body(t, below(1000) < f->nul_key);
            putf(t, "#%u", i); /* unique, unless a fault repeats a key */
        }
        puts_(t, "\"");
        ws(t);
        puts_(t, ":");
        ws(t);
        gen_value(t, depth + 1, f);
        ws(t);
    }
}

/* Appends an object with up to max members. */
static void gen_object(text *t, unsigned depth, const faults *f,
                       unsigned max)
{
    puts_(t, "{");
    ws(t);
    gen_members(t, depth, f, max, 0);
    puts_(t, "}");
}

/* Appends any value. */
static void gen_value(text *t, unsigned depth, const faults *f)
{
    unsigned k = below(depth > 6 ? 7 : 10), i, n;
    switch (k) {
    case 0: puts_(t, "null"); break;
    case 1: puts_(t, below(2) ? "true" : "false"); break;
    case 2:
    case 3: gen_number(t, f); break;
    case 4:
    case 5:
    case 6:
        puts_(t, "\"");
        gen_string_body(t, 1);
        puts_(t, "\"");
        break;
    case 7:
    case 8:
        n = below(below(8) ? 5 : 40);
        puts_(t, "[");
        ws(t);
        for (i = 0; i < n; i++) {
            if (i) {
                puts_(t, ",");
                ws(t);
            }
            gen_value(t, depth + 1, f);
            ws(t);
        }
        puts_(t, "]");
        break;
    default:
        gen_object(t, depth, f, below(8) ? 5 : 40);
        break;
    }
}

/* Appends a child node (primitive, maybe primitiveVersion, props). */
static void gen_node(text *t, unsigned depth, const faults *f)
{
    int bad = below(1000) < f->schema;
    puts_(t, "{");
    if (!(bad && below(4) == 0))
        putf(t, "\"primitive\":\"%s\",", below(2) ? "Text" : "Row");
    if (below(2))
        putf(t, "\"primitiveVersion\":%s,",
             bad && below(2) ? "1.0" : below(2) ? "1" : "3");
    if (below(3) == 0) {
        puts_(t, "\"extra\":");
        gen_object(t, depth + 1, f, 3);
        puts_(t, ",");
    }
    puts_(t, "\"props\":");
    if (bad && below(3) == 0)
        puts_(t, "[]");
    else {
        puts_(t, "{\"children\":[");
        if (depth < 4) {
            unsigned n = below(3), i;
            for (i = 0; i < n; i++) {
                if (i)
                    puts_(t, ",");
                gen_node(t, depth + 1, f);
            }
        }
        puts_(t, "],\"style\":");
        gen_value(t, depth + 3, f);
        puts_(t, "}");
    }
    puts_(t, "}");
}

/* A whole token: the root fields in random order (some faulty), props
 * with random members and children. */
static void gen_token(text *t, unsigned i, const faults *f)
{
    int bad = below(1000) < f->schema;
    unsigned skip = bad ? below(6) : 6, m, order[5] = {0, 1, 2, 3, 4};
    int first = 1;
    if (skip == 0 && f->keep_id)
        skip = 6;
    for (m = 4; m > 0; m--) {
        unsigned j = below(m + 1), x = order[m];
        order[m] = order[j];
        order[j] = x;
    }
    puts_(t, "{");
    ws(t);
    for (m = 0; m < 5; m++) {
        if (order[m] == skip)
            continue;
        if (!first)
            puts_(t, ",");
        first = 0;
        switch (order[m]) {
        case 0: putf(t, "\"id\":\"g%u\\u00e9\"", i); break;
        case 1:
            putf(t, "\"version\":%s",
                 bad && below(2) ? (below(2) ? "0" : "2.0") : "7");
            break;
        case 2: puts_(t, "\"primitive\":\"Column\""); break;
        case 3: puts_(t, "\"primitiveVersion\":2"); break;
        default:
            puts_(t, "\"props\":");
            if (bad && below(4) == 0) {
                gen_value(t, 2, f);
            } else {
                unsigned n = below(4), k;
                puts_(t, "{\"children\":[");
                for (k = 0; k < n; k++) {
                    if (k)
                        puts_(t, ",");
                    gen_node(t, 1, f);
                }
                puts_(t, "]");
                gen_members(t, 1, f, 6, 1);
                puts_(t, "}");
            }
            break;
        }
        ws(t);
    }
    puts_(t, "}");
}

/* Generated tokens, clean and faulty, alone: each against the reference. */
static void test_generated(void)
{
    static const faults clean = {0, 0, 0, 0, 0};
    static const faults faulty = {30, 20, 15, 60, 0};
    sdui_limits lim = corpus_limits();
    unsigned i;
    size_t ok = 0;
    for (i = 0; i < 4000; i++) {
        text t = {NULL, 0, 0};
        char name[64];
        const faults *f = i % 2 ? &faulty : &clean;
        gen_token(&t, i, f);
        snprintf(name, sizeof name, "generated token %u", i);
        if (check_parse(name, t.p, t.len, &lim) == SDUI_OK)
            ok++;
        free(t.p);
    }
    /* Most clean ones parse, so the trees were compared. */
    CHECKF(ok > 2000, "only %zu generated tokens parsed", ok);
}

/* Generated tokens in a pack: each got from it and compared with the
 * reference at its place in the pack (offsets and line:column shift). */
static void test_generated_pack(void)
{
    static const faults faulty = {30, 20, 15, 60, 1};
    enum { N = 400 };
    text pack = {NULL, 0, 0};
    size_t starts[N], ends[N];
    unsigned i;
    sdui_pack *p = NULL;
    sdui_error err;
    unsigned char *z = NULL;
    size_t zlen = 0;
    puts_(&pack, "{\"formatVersion\":1,\"tokens\":[\n");
    for (i = 0; i < N; i++) {
        if (i)
            puts_(&pack, ",\n");
        starts[i] = pack.len;
        gen_token(&pack, i, &faulty);
        ends[i] = pack.len;
    }
    puts_(&pack, "\n]}");
    if (getenv("TT_DUMP")) fwrite(pack.p, 1, pack.len, stderr);
    CHECK_STATUS(sdui_gzip_encode(pack.p, pack.len, 1, &z, &zlen, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_pack_open_memory(z, zlen, NULL, &p, &err), SDUI_OK);
    sdui_free(z);
    if (!p) {
        free(pack.p);
        return;
    }
    for (i = 0; i < N; i++) {
        char id[32], name[64];
        sdui_token *tok = NULL;
        json_t *tree = NULL;
        sdui_error rerr;
        ref_place at = {pack.p, pack.len, starts[i]};
        sdui_status st, rst;
        snprintf(id, sizeof id, "g%u\xc3\xa9", i);
        snprintf(name, sizeof name, "pack token %u", i);
        if (!sdui_pack_contains(p, id, strlen(id)))
            continue; /* a faulty token without an id */
        st = sdui_pack_get(p, id, strlen(id), &tok, &err);
        rst = ref_make(pack.p + starts[i], ends[i] - starts[i], &at, &tree,
                       &rerr);
        compare(name, st, tok, &err, rst, tree, &rerr);
        json_decref(tree);
        sdui_token_release(tok);
    }
    sdui_pack_free(p);
    free(pack.p);
}

/* jansson's own nesting limit (JSON_PARSER_MAX_DEPTH): a value nested past
 * it is SDUI_JSON at the place and with the words jansson gives, whatever
 * the value; at the limit the token parses. */
static void test_nesting_edge(void)
{
    static const char *const inner[] = {
        "1", "-12.5e3", "\"s\"", "\"a much longer string than twenty\"",
        "true", "null", "[]", "{}", "[1]", "{\"k\":1}", "1e999",
        "123456789012345678901234567890", "[1e999]", "{\"k\":1,\"k\":2}",
        "{\"\\u0000\":1}",
    };
    sdui_limits lim = corpus_limits();
    size_t i;
    unsigned levels;
    for (levels = JSON_PARSER_MAX_DEPTH - 4; levels <= JSON_PARSER_MAX_DEPTH + 1;
         levels++) {
        for (i = 0; i < sizeof inner / sizeof *inner; i++) {
            text t = {NULL, 0, 0};
            unsigned j, arrays = levels - 3; /* token, props, x: 3 levels */
            char name[96];
            puts_(&t, HEAD "\"props\":{\"x\":");
            for (j = 0; j < arrays; j++)
                puts_(&t, j % 2 ? "[" : "{\"o\":");
            puts_(&t, inner[i]);
            for (j = arrays; j-- > 0;)
                puts_(&t, j % 2 ? "]" : "}");
            puts_(&t, "}}");
            snprintf(name, sizeof name, "%u levels around %s", levels,
                     inner[i]);
            check_parse(name, t.p, t.len, &lim);
            free(t.p);
        }
    }
}

/* Hand-made cases of every kind of outcome, with line breaks so that
 * line:column is exercised. */
static void test_cases(void)
{
    static const char *const cases[] = {
        HEAD "\"props\":{\"k\":1,\n  \"k\":2}}",
        HEAD "\"props\":{\"k\":1,\"\\u006b\":2}}",
        HEAD "\"props\":{\"x\":{\"y\":[{\"z\":1,\n\"z\":1}]}}}",
        HEAD "\"props\":{\"n\\u0000ul\":1}}",
        HEAD "\"props\":{\"a\":{\"b\":1e999},\"a\":1}}",
        HEAD "\"props\":{\"a\":1,\"a\":{\"b\":1e999}}}",
        HEAD "\"props\":{\"\\u0000\":1,\"\\u0000\":1}}",
        HEAD "\"props\":{\"n\":\n 1e999}}",
        HEAD "\"props\":{\"n\":-1.5E+400}}",
        HEAD "\"props\":{\"n\":-0, \"m\":-0.0, \"o\":0E0}}",
        HEAD "\"props\":{\"n\":9223372036854775808}}",
        HEAD "\"props\":{\"n\":-9223372036854775809}}",
        HEAD "\"props\":{\"n\":1e-999, \"m\":4.9e-324}}",
        HEAD "\"props\":{\"" "0123456789012345678901234567890123456789"
             "0123456789012345678901234567890123456789\":1,\"" 
             "0123456789012345678901234567890123456789"
             "0123456789012345678901234567890123456789\":2}}",
        HEAD "\"props\":{\"n\":1" "0123456789012345678901234567890123456789"
             "0123456789012345678901234567890123456789}}",
        HEAD "\"props\":{\"s\":\"a\\u0000b\", \"e\":\"\", \"u\":\"\\ud83d\\ude00\"}}",
        "{\"id\":\"a\",\"id\":\"b\",\"version\":1}",
        "{\"version\":1,\"id\":\"x\"}",
        "  [1, 2]  ",
        "\"just a string\"",
        "{\"id\":\"\\u00e9\\u00e9\",\"version\":2.0}",
        HEAD "\"props\":{\"children\":[{\"primitive\":\"A\",\"props\":{"
             "\"children\":[{\"primitive\":\"B\",\"props\":{}},{}]}}]}}",
    };
    sdui_limits lim;
    size_t i;
    sdui_limits_default(&lim);
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[32];
        snprintf(name, sizeof name, "case %zu", i);
        check_parse(name, cases[i], strlen(cases[i]), &lim);
    }
    /* Objects with many members: a duplicate found late, and none. */
    {
        text t = {NULL, 0, 0};
        unsigned n;
        for (n = 0; n < 4; n++) {
            unsigned k, members = n < 2 ? 300 : 17;
            t.len = 0;
            puts_(&t, HEAD "\"props\":{");
            for (k = 0; k < members; k++)
                putf(&t, "%s\"key%u\":%u", k ? "," : "", k, k);
            if (n % 2)
                puts_(&t, ",\"key7\":0");
            puts_(&t, "}}");
            check_parse(n % 2 ? "many members, a duplicate"
                              : "many members",
                        t.p, t.len, &lim);
        }
        free(t.p);
    }
}

/* Decimals under a locale whose decimal point is a comma, when one is
 * installed: the same values as jansson reads through the locale. */
static void test_locale(void)
{
    static const char *const names[] = {
        "de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8",
        "fr_FR", "nl_NL.UTF-8", "ru_RU.UTF-8", "es_ES.UTF-8",
    };
    static const char *const numbers[] = {
        "1.5", "-0.0", "123.456e-7", "1e-400", "4.9e-324",
        "1.7976931348623157e308", "1.7976931348623159e308",
        "0.1000000000000000055511151231257827021181583404541015625",
        "3.141592653589793238462643383279502884197", "2.5E+3", "7e0",
    };
    static const faults clean = {0, 0, 0, 0, 0};
    sdui_limits lim = corpus_limits();
    const char *got = NULL;
    size_t i;
    for (i = 0; i < sizeof names / sizeof *names && !got; i++)
        if (setlocale(LC_NUMERIC, names[i]) &&
            localeconv()->decimal_point[0] == ',')
            got = names[i];
    if (!got) {
        setlocale(LC_NUMERIC, "C");
        printf("no locale with a decimal comma installed: locale test "
               "skipped\n");
        return;
    }
    for (i = 0; i < sizeof numbers / sizeof *numbers; i++) {
        text t = {NULL, 0, 0};
        char name[96];
        puts_(&t, HEAD "\"props\":{\"n\":");
        puts_(&t, numbers[i]);
        puts_(&t, "}}");
        snprintf(name, sizeof name, "%s under %s", numbers[i], got);
        check_parse(name, t.p, t.len, &lim);
        free(t.p);
    }
    for (i = 0; i < 300; i++) {
        text t = {NULL, 0, 0};
        char name[96];
        gen_token(&t, (unsigned)i, &clean);
        snprintf(name, sizeof name, "generated token %zu under %s", i, got);
        check_parse(name, t.p, t.len, &lim);
        free(t.p);
    }
    printf("locale %s: decimals compared\n", got);
    setlocale(LC_NUMERIC, "C");
}

/* Runs every test. */
int main(void)
{
    test_cases();
    test_nesting_edge();
    test_suite();
    test_examples();
    test_generated();
    test_generated_pack();
    test_locale();
    printf("compared with jansson: %lu parsed; refused: %lu json, %lu limit, "
           "%lu schema\n",
           compared_ok, compared_err[SDUI_JSON], compared_err[SDUI_LIMIT],
           compared_err[SDUI_SCHEMA]);
    return check_summary();
}
