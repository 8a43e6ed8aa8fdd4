/*
 * fuzz_token_parse.c - libFuzzer harness for token parsing, the validating
 * JSON scanner and the minifier.
 *
 * Each input is parsed as a token (walking its whole tree on success),
 * validated, and minified; the minified text must still be valid, must not
 * be longer, must minify to itself, and must parse as a token with the same
 * outcome.  The scanner is also compared with jansson in both directions:
 * what jansson accepts the scanner accepts, and what the scanner accepts
 * jansson accepts unless one of jansson's own limits is in the way.  A broken invariant
 * aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sdui/sdui.h"

/* jansson's own nesting limit; the comparison uses the same one. */
#define JANSSON_DEPTH 2048u

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

/* Parses text as a token; checks the outcome and returns the status. */
static sdui_status parse_token(const char *text, size_t len,
                               const sdui_limits *lim)
{
    sdui_token *tok = NULL;
    sdui_error err;
    sdui_status st = sdui_token_parse(text, len, lim, &tok, &err);
    REQUIRE(st == err.status);
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
        json_t *j = json_loadb(text, size, JSON_DECODE_ANY | JSON_ALLOW_NUL,
                               &jerr);
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
