/*
 * fuzz_token_parse.c - libFuzzer harness for token parsing, the validating
 * JSON scanner and the minifier.
 *
 * Each input is parsed as a token (walking its whole tree on success),
 * validated, and minified; the minified text must still be valid, must not
 * be longer, must minify to itself, and must parse as a token with the same
 * outcome.  The scanner is also compared with jansson in both directions:
 * what jansson accepts the scanner accepts, and what the scanner accepts
 * jansson accepts unless one of jansson's own limits is in the way.
 *
 * The token's tree (value.c) is compared with jansson's, the reference
 * parser (Tests/C/json_oracle.h), on every text the scan accepts: when
 * jansson builds a tree (duplicates refused, \u0000 allowed, any value),
 * the token is made or refused by the schema exactly when jansson's tree
 * is, and a token made holds the same values (oracle_same: types,
 * integers, reals bit for bit, strings byte for byte, member order,
 * counts); when jansson refuses, the token is refused with jansson's error
 * mapped as the token rules report it: a duplicate key or a key holding
 * \u0000 is SDUI_SCHEMA at the key, a number out of range SDUI_LIMIT at
 * the number, anything else SDUI_JSON with jansson's words at jansson's
 * place, each with the same message.  Nothing else may differ: these are
 * the documented differences 1 to 3 and 5 of json_oracle.h's table (the
 * scan's limits: the comparison runs where the scan accepts; the token's
 * words; the schema; a raw NUL byte, left out of the scanner's comparison
 * below).  A broken invariant aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"
#include "../C/json_oracle.h"

/* jansson's own nesting limit; the comparison uses the same one. */
#define JANSSON_DEPTH ORACLE_MAX_DEPTH

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_token_parse: invariant broken at line %d: %s\n",
            line, what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* Walks a value tree through every accessor, checking they agree. */
static size_t walk(const sdui_value *v)
{
    size_t i, n, len, nodes = 1;
    const void *it;
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_STRING:
        REQUIRE(sdui_value_string(v, &len) != NULL);
        break;
    case SDUI_VALUE_ARRAY:
        n = sdui_value_count(v);
        for (i = 0; i < n; i++) {
            REQUIRE(sdui_value_at(v, i) != NULL);
            nodes += walk(sdui_value_at(v, i));
        }
        REQUIRE(sdui_value_at(v, n) == NULL);
        break;
    case SDUI_VALUE_OBJECT:
        n = 0;
        for (it = sdui_value_next(v, NULL); it; it = sdui_value_next(v, it)) {
            const char *key = sdui_value_iter_key(it, &len);
            REQUIRE(key != NULL);
            if (strlen(key) == len)
                REQUIRE(sdui_value_get(v, key) == sdui_value_iter_value(it));
            nodes += walk(sdui_value_iter_value(it));
            n++;
        }
        REQUIRE(n == sdui_value_count(v));
        break;
    default:
        (void)sdui_value_int(v);
        (void)sdui_value_real(v);
        (void)sdui_value_bool(v);
        REQUIRE(sdui_value_count(v) == 0);
        break;
    }
    return nodes;
}

/* Checks every child node's schema rules hold on a parsed token. */
static void check_nodes(const sdui_value *props)
{
    const sdui_value *kids = sdui_value_get(props, "children");
    size_t i;
    REQUIRE(sdui_value_type_of(props) == SDUI_VALUE_OBJECT);
    if (!kids)
        return;
    REQUIRE(sdui_value_type_of(kids) == SDUI_VALUE_ARRAY);
    for (i = 0; i < sdui_value_count(kids); i++) {
        const sdui_value *node = sdui_value_at(kids, i), *pv;
        size_t len = 0;
        REQUIRE(sdui_value_type_of(node) == SDUI_VALUE_OBJECT);
        REQUIRE(sdui_value_string(sdui_value_get(node, "primitive"), &len) &&
                len > 0);
        pv = sdui_value_get(node, "primitiveVersion");
        if (pv)
            REQUIRE(sdui_value_type_of(pv) == SDUI_VALUE_INT &&
                    sdui_value_int(pv) >= 1);
        check_nodes(sdui_value_get(node, "props"));
    }
}

/* Compares a token's value tree with jansson's, through every accessor
 * (json_oracle.h). */
static void same_tree(const sdui_value *v, json_t *j)
{
    const char *where = "";
    if (!oracle_same(v, j, &where)) {
        fprintf(stderr, "fuzz_token_parse: the trees differ (%s)\n", where);
        REQUIRE(!"the token's tree differs from jansson's");
    }
}

/* The schema verdict of token.h on jansson's tree of a node's props. */
static int schema_props_ok(json_t *props)
{
    json_t *kids = json_object_get(props, "children");
    size_t i;
    if (!kids)
        return 1;
    if (!json_is_array(kids))
        return 0;
    for (i = 0; i < json_array_size(kids); i++) {
        json_t *node = json_array_get(kids, i);
        json_t *pv = json_object_get(node, "primitiveVersion");
        json_t *prim = json_object_get(node, "primitive");
        if (!json_is_object(node) || !json_is_string(prim) ||
            json_string_length(prim) == 0)
            return 0;
        if (pv && (!json_is_integer(pv) || json_integer_value(pv) < 1))
            return 0;
        if (!json_is_object(json_object_get(node, "props")) ||
            !schema_props_ok(json_object_get(node, "props")))
            return 0;
    }
    return 1;
}

/* The schema verdict of token.h on jansson's tree of a token. */
static int schema_ok(json_t *root)
{
    static const char *const strings[] = {"id", "primitive"};
    static const char *const ints[] = {"version", "primitiveVersion"};
    size_t i;
    if (!json_is_object(root))
        return 0;
    for (i = 0; i < 2; i++) {
        json_t *s = json_object_get(root, strings[i]);
        json_t *n = json_object_get(root, ints[i]);
        if (!json_is_string(s) || json_string_length(s) == 0)
            return 0;
        if (!json_is_integer(n) || json_integer_value(n) < 1)
            return 0;
    }
    return json_is_object(json_object_get(root, "props")) &&
           schema_props_ok(json_object_get(root, "props"));
}

/* Start of the key that ends just before pos (its opening quote). */
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

/* Start of the number that ends just before pos. */
static size_t number_start(const char *json, size_t pos)
{
    size_t i = pos;
    while (i > 0 && json[i - 1] && strchr("0123456789+-.eE", json[i - 1]))
        i--;
    return i;
}

/* Checks a refused token's error against jansson's error on the same
 * text, mapped as the old token path mapped it. */
static void same_refusal(const char *text, size_t len, const json_error_t *jerr,
                         const sdui_error *err)
{
    size_t pos = (size_t)(jerr->position > 0 ? jerr->position : 0), at, n;
    char want[SDUI_ERROR_MESSAGE_SIZE];
    sdui_status st;
    if (pos > len)
        pos = len;
    switch (json_error_code(jerr)) {
    case json_error_duplicate_key:
    case json_error_null_byte_in_key:
        at = key_start(text, pos);
        n = pos - at;
        st = SDUI_SCHEMA;
        snprintf(want, sizeof want,
                 json_error_code(jerr) == json_error_duplicate_key
                     ? "duplicate object key %.*s%s: refused on purpose (each "
                       "key of an object must be unique)"
                     : "object key %.*s%s holds \\u0000: refused on purpose "
                       "(a key must not contain NUL)",
                 (int)(n > 64 ? 64 : n), text + at, n > 64 ? "..." : "");
        break;
    case json_error_numeric_overflow: {
        int integer;
        at = number_start(text, pos);
        n = pos - at;
        integer = !memchr(text + at, '.', n) && !memchr(text + at, 'e', n) &&
                  !memchr(text + at, 'E', n);
        st = SDUI_LIMIT;
        snprintf(want, sizeof want,
                 integer ? "number %.*s%s is out of range: an integer beyond "
                           "64 bits"
                         : "number %.*s%s is out of range: a decimal that "
                           "overflows to infinity",
                 (int)(n > 64 ? 64 : n), text + at, n > 64 ? "..." : "");
        break;
    }
    default:
        at = pos;
        st = SDUI_JSON;
        snprintf(want, sizeof want, "%s", jerr->text);
        break;
    }
    if (err->status != st || (size_t)err->offset != at ||
        strcmp(err->message, want) != 0) {
        fprintf(stderr, "token: %s at %lld \"%s\"; jansson mapped: %s at %zu "
                        "\"%s\"\n",
                sdui_status_name(err->status), err->offset, err->message,
                sdui_status_name(st), at, want);
        REQUIRE(!"the token's refusal differs from jansson's");
    }
}

/*
 * The token's outcome (st, tok, err) on text against jansson's, on text
 * the scan accepts under lim: jansson's tree when it builds one, with the
 * schema's verdict, or its error mapped.
 */
static void against_jansson(const char *text, size_t len,
                            const sdui_limits *lim, sdui_status st,
                            const sdui_token *tok, const sdui_error *err)
{
    json_error_t jerr;
    sdui_error verr;
    json_t *j;
    if (len > lim->max_token_bytes ||
        sdui_json_validate(text, len, lim->max_depth, &verr) != SDUI_OK)
        return;
    if (st == SDUI_OOM)
        return;
    j = json_loadb(len ? text : "", len, ORACLE_TOKEN_FLAGS, &jerr);
    if (!j) {
        REQUIRE(json_error_code(&jerr) != json_error_out_of_memory);
        REQUIRE(st != SDUI_OK);
        same_refusal(text, len, &jerr, err);
        return;
    }
    if (schema_ok(j)) {
        REQUIRE(st == SDUI_OK);
        same_tree(sdui_token_root(tok), j);
    } else {
        REQUIRE(st == SDUI_SCHEMA);
    }
    json_decref(j);
}

/* Parses text as a token; checks the outcome and returns the status. */
static sdui_status parse_token(const char *text, size_t len,
                               const sdui_limits *lim)
{
    sdui_token *tok = NULL;
    sdui_error err;
    sdui_status st = sdui_token_parse(text, len, lim, &tok, &err);
    REQUIRE(st == err.status);
    against_jansson(text, len, lim, st, tok, &err);
    if (st != SDUI_OK) {
        REQUIRE(tok == NULL && err.message[0] != '\0');
        REQUIRE(st == SDUI_JSON || st == SDUI_SCHEMA || st == SDUI_LIMIT ||
                st == SDUI_OOM);
        if (err.offset >= 0)
            REQUIRE((size_t)err.offset <= len && err.line >= 1);
        return st;
    }
    {
        size_t n = 0;
        const char *json = sdui_token_json(tok, &n);
        REQUIRE(n == len && memcmp(json, text, len) == 0);
        REQUIRE(sdui_token_version(tok) >= 1);
        REQUIRE(sdui_token_primitive_version(tok) >= 1);
        REQUIRE(sdui_token_id(tok, &n) != NULL && n > 0);
        REQUIRE(sdui_token_primitive(tok, &n) != NULL && n > 0);
        check_nodes(sdui_token_props(tok));
        REQUIRE(walk(sdui_token_root(tok)) >= 6);
    }
    sdui_token_release(tok);
    return st;
}

/* 1 if jansson's error is one of its own limitations, not a grammar error:
 * a number out of its range, or a \u0000 escape in an object key (which
 * jansson refuses even with JSON_ALLOW_NUL).  The scanner, checking only
 * the grammar, rightly accepts both. */
static int jansson_limitation(const json_error_t *e)
{
    return strstr(e->text, "too big") != NULL ||
           strstr(e->text, "overflow") != NULL ||
           strstr(e->text, "NUL byte in object key") != NULL;
}

/* libFuzzer entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    sdui_limits lim;
    sdui_error err;
    sdui_status tok_st, val_st;
    char *min;
    size_t min_len = 0;

    sdui_limits_default(&lim);
    switch (size % 3) {
    case 1:
        lim.max_depth = 4;
        break;
    case 2:
        lim.max_token_bytes = 256;
        break;
    default:
        break;
    }
    tok_st = parse_token(text, size, &lim);

    val_st = sdui_json_validate(text, size, lim.max_depth, &err);
    REQUIRE(val_st == err.status);
    REQUIRE(val_st == SDUI_OK || val_st == SDUI_JSON || val_st == SDUI_LIMIT);
    if (tok_st == SDUI_OK)
        REQUIRE(val_st == SDUI_OK);
    if (val_st != SDUI_OK && size <= lim.max_token_bytes)
        REQUIRE(tok_st == val_st);

    /* Minify: valid, not longer, a fixed point, same token outcome. */
    min = malloc(size ? size : 1);
    REQUIRE(min != NULL);
    if (sdui_json_minify(text, size, lim.max_depth, min, &min_len, &err) ==
        SDUI_OK) {
        char *again = malloc(min_len ? min_len : 1);
        size_t again_len = 0;
        REQUIRE(val_st == SDUI_OK);
        REQUIRE(min_len <= size);
        REQUIRE(sdui_json_validate(min, min_len, lim.max_depth, &err) ==
                SDUI_OK);
        REQUIRE(sdui_json_minify(min, min_len, lim.max_depth, again,
                                 &again_len, &err) == SDUI_OK);
        REQUIRE(again_len == min_len && memcmp(again, min, min_len) == 0);
        free(again);
        if (tok_st != SDUI_LIMIT)
            REQUIRE(parse_token(min, min_len, &lim) == tok_st);
    } else {
        REQUIRE(val_st != SDUI_OK);
    }
    free(min);

    /* The scanner against jansson, at jansson's depth limit.  Inputs with
     * a raw NUL byte are left out: jansson stops reading at one in some
     * places (it accepts "[1\0]"), which the grammar does not allow. */
    if (!memchr(data, 0, size)) {
        json_error_t jerr;
        json_t *j = json_loadb(text, size, ORACLE_DOC_FLAGS, &jerr);
        sdui_status deep =
            sdui_json_validate(text, size, JANSSON_DEPTH, &err);
        if (j && deep != SDUI_OK) {
            fprintf(stderr, "jansson accepts, scanner says %s: %s\n",
                    sdui_status_name(deep), err.message);
            REQUIRE(!"scanner rejects what jansson accepts");
        }
        if (!j && deep == SDUI_OK && !jansson_limitation(&jerr)) {
            fprintf(stderr, "scanner accepts, jansson says: %s\n", jerr.text);
            REQUIRE(!"scanner accepts what jansson rejects");
        }
        json_decref(j);
    }
    return 0;
}
