/*
 * json_oracle.h - jansson as the reference parser of the core's value tree
 * (csrc/value.c), for the C tests and the fuzzers: the flags it is read
 * with, the comparison of the core's tree with jansson's, the check of a
 * document's whole outcome against jansson's, and the one table of the
 * documented differences between the two.
 *
 * The rule (value.c's essay says it at length): on text the core's scan
 * accepts, every document that jansson reads is read by the core into an
 * equal tree (types, integers, decimals bit for bit, strings byte for
 * byte, members in the same order, a repeated name at its first place
 * with its last value), and every document that jansson refuses the core
 * refuses, in jansson's words after "json document: " and at jansson's
 * place.  Every difference is a row of oracle_differences below, with a
 * text that shows it; test_json_doc_ref.c checks each row, and no other
 * difference is allowed by oracle_check_doc (fuzz_json_doc.c,
 * test_json_doc_ref.c), test_token_tree.c or fuzz_token_parse.c.
 *
 * jansson reads decimals with strtod in the process's locale, so every
 * comparison runs in the "C" locale (difference ORACLE_LOCALE).
 */
#ifndef SDUI_TESTS_JSON_ORACLE_H
#define SDUI_TESTS_JSON_ORACLE_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "sdui/sdui.h"

/* How jansson reads a document (any value, \u0000 in strings), and a
 * token (the same, a repeated name refused). */
#define ORACLE_DOC_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)
#define ORACLE_TOKEN_FLAGS (ORACLE_DOC_FLAGS | JSON_REJECT_DUPLICATES)

/* jansson's nesting limit, which the core's tree keeps too. */
#define ORACLE_MAX_DEPTH 2048u

/* The documented differences (value.c's essay, the same numbers). */
typedef enum oracle_diff {
    ORACLE_DEPTH = 1,   /* 1: the scan's max_depth: SDUI_LIMIT           */
    ORACLE_TOKEN_BYTES, /* 1: a token over max_token_bytes: SDUI_LIMIT   */
    ORACLE_TOKEN_WORDS, /* 2: a token's refusals: other status and words */
    ORACLE_TOKEN_SCHEMA,/* 3: a token must pass the schema               */
    ORACLE_LOCALE,      /* 4: decimals read without the locale           */
    ORACLE_RAW_NUL      /* 5: a raw NUL byte ends jansson's text         */
} oracle_diff;

/* One row: a text that shows the difference, read as a token or as a
 * document under the limits given (0: the default), and what each side
 * answers. */
typedef struct oracle_row {
    oracle_diff diff;
    const char *what;        /* the difference in words                    */
    int token;               /* read with sdui_token_parse, else a document */
    const char *text;        /* NULL: shown by another test (named in what) */
    size_t len;
    unsigned max_depth;
    size_t max_token_bytes;
    sdui_status core;        /* the core's answer                          */
    int jansson_reads;       /* 1 if jansson builds a tree                 */
} oracle_row;

#define ORACLE_TEXT(s) s, sizeof s - 1

/* The one table of differences. */
static const oracle_row oracle_differences[] = {
    {ORACLE_DEPTH, "nesting past the caller's max_depth (default 128) is refused by the scan",
     0, ORACLE_TEXT("[[[1]]]"), 2, 0, SDUI_LIMIT, 1},
    {ORACLE_DEPTH, "the same for a token (counted from the token object)",
     1, ORACLE_TEXT("{\"id\":\"a\",\"version\":1,\"primitive\":\"T\",\"primitiveVersion\":1,"
                    "\"props\":{\"x\":[[1]]}}"), 3, 0, SDUI_LIMIT, 1},
    {ORACLE_TOKEN_BYTES, "a token's text over max_token_bytes is refused before it is read",
     1, ORACLE_TEXT("{\"id\":\"a\",\"version\":1,\"primitive\":\"T\",\"primitiveVersion\":1,"
                    "\"props\":{}}"), 0, 16, SDUI_LIMIT, 1},
    {ORACLE_TOKEN_WORDS, "a token's repeated name: SDUI_SCHEMA at the name (jansson: "
                         "\"duplicate object key\" past it)",
     1, ORACLE_TEXT("{\"id\":\"a\",\"id\":\"b\"}"), 0, 0, SDUI_SCHEMA, 0},
    {ORACLE_TOKEN_WORDS, "a token's name holding \\u0000: SDUI_SCHEMA at the name (jansson: "
                         "\"NUL byte in object key not supported\" past it)",
     1, ORACLE_TEXT("{\"a\\u0000\":1}"), 0, 0, SDUI_SCHEMA, 0},
    {ORACLE_TOKEN_WORDS, "a token's integer past 64 bits: SDUI_LIMIT at the number (jansson: "
                         "\"too big integer\" past it)",
     1, ORACLE_TEXT("{\"n\":99999999999999999999}"), 0, 0, SDUI_LIMIT, 0},
    {ORACLE_TOKEN_WORDS, "a token's decimal past a double: SDUI_LIMIT at the number (jansson: "
                         "\"real number overflow\" past it)",
     1, ORACLE_TEXT("{\"n\":1e400}"), 0, 0, SDUI_LIMIT, 0},
    {ORACLE_TOKEN_SCHEMA, "a token must be an object that passes the schema; jansson reads any value",
     1, ORACLE_TEXT("[1]"), 0, 0, SDUI_SCHEMA, 1},
    {ORACLE_LOCALE, "decimals are read without the process's locale (jansson reads them in "
                    "it); shown by test_token_tree.c's test_locale under a comma locale",
     0, NULL, 0, 0, 0, SDUI_OK, 1},
    {ORACLE_RAW_NUL, "a raw NUL byte is never valid JSON; jansson takes one after a number for "
                     "the end of the text",
     0, ORACLE_TEXT("[1\0]"), 0, 0, SDUI_JSON, 1},
    {ORACLE_RAW_NUL, "the same at the top level",
     0, ORACLE_TEXT("1\0"), 0, 0, SDUI_JSON, 1},
};

/* 1 if the core's tree v equals jansson's j (see the top of this file);
 * when it does not, *where (may be NULL) names the first difference. */
static inline int oracle_same(const sdui_value *v, json_t *j, const char **where)
{
    const char *dummy;
    size_t len = 0, i, n;
    if (!where)
        where = &dummy;
    *where = "type";
    if (!v)
        return 0;
    switch (json_typeof(j)) {
    case JSON_NULL:
        return sdui_value_type_of(v) == SDUI_VALUE_NULL;
    case JSON_TRUE:
    case JSON_FALSE:
        *where = "boolean";
        return sdui_value_type_of(v) == SDUI_VALUE_BOOL && sdui_value_bool(v) == json_is_true(j);
    case JSON_INTEGER:
        *where = "integer";
        return sdui_value_type_of(v) == SDUI_VALUE_INT &&
               sdui_value_int(v) == (int64_t)json_integer_value(j);
    case JSON_REAL: {
        double a = sdui_value_real(v), b = json_real_value(j);
        *where = "decimal";
        return sdui_value_type_of(v) == SDUI_VALUE_REAL && memcmp(&a, &b, sizeof a) == 0;
    }
    case JSON_STRING: {
        const char *s = sdui_value_string(v, &len);
        *where = "string";
        return sdui_value_type_of(v) == SDUI_VALUE_STRING && s && len == json_string_length(j) &&
               memcmp(s, json_string_value(j), len) == 0 && s[len] == '\0';
    }
    case JSON_ARRAY:
        n = json_array_size(j);
        *where = "array size";
        if (sdui_value_type_of(v) != SDUI_VALUE_ARRAY || sdui_value_count(v) != n ||
            sdui_value_at(v, n) != NULL)
            return 0;
        for (i = 0; i < n; i++)
            if (!oracle_same(sdui_value_at(v, i), json_array_get(j, i), where))
                return 0;
        return 1;
    case JSON_OBJECT: {
        const void *it;
        void *jt = json_object_iter(j);
        *where = "member count";
        if (sdui_value_type_of(v) != SDUI_VALUE_OBJECT || sdui_value_count(v) != json_object_size(j))
            return 0;
        for (it = sdui_value_next(v, NULL); it;
             it = sdui_value_next(v, it), jt = json_object_iter_next(j, jt)) {
            const char *key = sdui_value_iter_key(it, &len);
            *where = "member name or order";
            if (!jt || !key || len != json_object_iter_key_len(jt) ||
                memcmp(key, json_object_iter_key(jt), len) != 0 || key[len] != '\0')
                return 0;
            *where = "member lookup";
            if (sdui_value_get(v, key) != sdui_value_iter_value(it))
                return 0;
            if (!oracle_same(sdui_value_iter_value(it), json_object_iter_value(jt), where))
                return 0;
        }
        *where = "member count";
        return jt == NULL;
    }
    }
    return 0;
}

/*
 * Checks a document's outcome: st, doc and err are what
 * sdui_json_doc_parse(text, len, max_depth, ...) answered.  Returns 1 when
 * it agrees with jansson's reading of the same text as documented, else 0
 * with why[0, n) saying how it differs.  Out of memory agrees with
 * anything.
 */
static inline int oracle_check_doc(const char *text, size_t len, unsigned max_depth,
                                   sdui_status st, const sdui_json_doc *doc,
                                   const sdui_error *err, char *why, size_t n)
{
    json_error_t jerr;
    json_t *j;
    sdui_error verr;
    int ok = 1;
    if (st == SDUI_OOM)
        return 1;
    j = json_loadb(len ? text : "", len, ORACLE_DOC_FLAGS, &jerr);
    if (st == SDUI_OK) {
        const char *where = "";
        if (!j) {
            snprintf(why, n, "the core reads it, jansson says \"%s\" at %d", jerr.text,
                     jerr.position);
            ok = 0;
        } else if (!oracle_same(sdui_json_doc_root(doc), j, &where)) {
            snprintf(why, n, "the trees differ (%s)", where);
            ok = 0;
        }
    } else if (st == SDUI_LIMIT) {
        /* ORACLE_DEPTH: the scan's bound, whatever jansson says. */
        if (max_depth >= ORACLE_MAX_DEPTH ||
            sdui_json_validate(text, len, max_depth, &verr) != SDUI_LIMIT) {
            snprintf(why, n, "SDUI_LIMIT but not the scan's depth: %s", err->message);
            ok = 0;
        }
    } else if (j) {
        /* ORACLE_RAW_NUL: jansson stops at a raw NUL now and then. */
        if (st != SDUI_JSON || !memchr(text, 0, len)) {
            snprintf(why, n, "jansson reads it, the core says %s \"%s\"", sdui_status_name(st),
                     err->message);
            ok = 0;
        }
    } else if (st == SDUI_JSON && sdui_json_validate(text, len, max_depth, &verr) == SDUI_OK) {
        /* Refused by the tree, as jansson refuses it: its words, its place. */
        char want[SDUI_ERROR_MESSAGE_SIZE];
        snprintf(want, sizeof want, "json document: %s", jerr.text);
        if (strcmp(err->message, want) != 0 || err->offset != jerr.position) {
            snprintf(why, n, "refused as \"%s\" at %lld, jansson says \"%s\" at %d",
                     err->message, err->offset, jerr.text, jerr.position);
            ok = 0;
        }
    } else if (st != SDUI_JSON) {
        snprintf(why, n, "refused as %s \"%s\", jansson refuses it too, as JSON",
                 sdui_status_name(st), err->message);
        ok = 0;
    }
    json_decref(j);
    return ok;
}

#endif
