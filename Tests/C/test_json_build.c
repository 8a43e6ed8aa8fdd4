/*
 * test_json_build.c - building a value tree call by call (json_build.h):
 * every call, nesting, a built tree against sdui_json_doc_parse of the
 * same text (through the accessors, member order and number kinds
 * included), repeated names, each misuse with its sticky error and
 * message, the depth bound, NUL and UTF-8 rules, NULL arguments, reuse
 * after finish, builders on several threads, and every allocation failure.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "value_eq.h"
#include "sdui/json_build.h"

/* Finishes b and checks the document equals sdui_json_doc_parse(text). */
static void check_built(sdui_json_builder *b, const char *text, size_t len, int line)
{
    sdui_error err;
    sdui_json_doc *built = NULL, *parsed = NULL;
    sdui_status st = sdui_json_builder_finish(b, &built, &err);
    CHECKF(st == SDUI_OK, "line %d: finish: %s %s", line, sdui_status_name(st), err.message);
    st = sdui_json_doc_parse(text, len, SDUI_DEFAULT_MAX_DEPTH, &parsed, &err);
    CHECKF(st == SDUI_OK, "line %d: parse: %s", line, err.message);
    if (built && parsed)
        CHECKF(value_same(sdui_json_doc_root(built), sdui_json_doc_root(parsed)),
               "line %d: built tree differs from %.*s", line, (int)len, text);
    sdui_json_doc_free(built);
    sdui_json_doc_free(parsed);
}
#define CHECK_BUILT(b, text) check_built((b), (text), strlen(text), __LINE__)

/* Every scalar call, alone at the top level. */
static void test_scalars(void)
{
    sdui_error err;
    sdui_json_builder *b = NULL;
    CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);

    CHECK_STATUS(sdui_json_builder_null(b), SDUI_OK);
    CHECK_BUILT(b, "null");
    CHECK_STATUS(sdui_json_builder_bool(b, 1), SDUI_OK);
    CHECK_BUILT(b, "true");
    CHECK_STATUS(sdui_json_builder_bool(b, 0), SDUI_OK);
    CHECK_BUILT(b, "false");
    CHECK_STATUS(sdui_json_builder_bool(b, 7), SDUI_OK); /* any non-zero */
    CHECK_BUILT(b, "true");
    CHECK_STATUS(sdui_json_builder_int(b, 42), SDUI_OK);
    CHECK_BUILT(b, "42");
    CHECK_STATUS(sdui_json_builder_int(b, INT64_MIN), SDUI_OK);
    CHECK_BUILT(b, "-9223372036854775808");
    CHECK_STATUS(sdui_json_builder_int(b, INT64_MAX), SDUI_OK);
    CHECK_BUILT(b, "9223372036854775807");
    /* A decimal stays a decimal even when it is integral. */
    CHECK_STATUS(sdui_json_builder_real(b, 2.0), SDUI_OK);
    CHECK_BUILT(b, "2.0");
    CHECK_STATUS(sdui_json_builder_real(b, -0.0), SDUI_OK);
    CHECK_BUILT(b, "-0.0");
    CHECK_STATUS(sdui_json_builder_real(b, 0.1), SDUI_OK);
    CHECK_BUILT(b, "0.1");
    CHECK_STATUS(sdui_json_builder_real(b, DBL_MAX), SDUI_OK);
    CHECK_BUILT(b, "1.7976931348623157e308");
    CHECK_STATUS(sdui_json_builder_real(b, 5e-324), SDUI_OK);
    CHECK_BUILT(b, "5e-324");
    CHECK_STATUS(sdui_json_builder_string(b, "h\xc3\xa9llo \xf0\x9f\x98\x80", 11), SDUI_OK);
    CHECK_BUILT(b, "\"h\\u00e9llo \\ud83d\\ude00\"");
    CHECK_STATUS(sdui_json_builder_string(b, "", 0), SDUI_OK);
    CHECK_BUILT(b, "\"\"");
    CHECK_STATUS(sdui_json_builder_string(b, NULL, 0), SDUI_OK);
    CHECK_BUILT(b, "\"\"");
    /* NUL bytes are allowed in strings (copied, length kept). */
    CHECK_STATUS(sdui_json_builder_string(b, "a\0b", 3), SDUI_OK);
    CHECK_BUILT(b, "\"a\\u0000b\"");
    /* The builder copies: the caller's buffer may change right away. */
    {
        char buf[4] = "xyz";
        sdui_json_doc *doc = NULL;
        size_t n;
        CHECK_STATUS(sdui_json_builder_string(b, buf, 3), SDUI_OK);
        memcpy(buf, "QQQ", 3);
        CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_OK);
        CHECK_EQ_STR(sdui_value_string(sdui_json_doc_root(doc), &n), "xyz");
        CHECK_EQ_INT(n, 3);
        sdui_json_doc_free(doc);
    }
    sdui_json_builder_free(b);
    sdui_json_builder_free(NULL);
}

/* Containers, nested, empty and mixed; the same tree as the parsed text. */
static void test_nesting(void)
{
    sdui_error err;
    sdui_json_builder *b = NULL;
    CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);

    CHECK_STATUS(sdui_json_builder_begin_array(b), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_end_array(b), SDUI_OK);
    CHECK_BUILT(b, "[]");
    CHECK_STATUS(sdui_json_builder_begin_object(b), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_end_object(b), SDUI_OK);
    CHECK_BUILT(b, "{}");

    /* {"cart":{"items":[{"price":4,"tags":[]},{"price":3.5,"name":"b\u0000"},{}],
     *  "":null,"ok":true,"n":[[1,[2.5,[]]],{}]}} */
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "cart", 4);
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "items", 5);
    sdui_json_builder_begin_array(b);
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "price", 5);
    sdui_json_builder_int(b, 4);
    sdui_json_builder_key(b, "tags", 4);
    sdui_json_builder_begin_array(b);
    sdui_json_builder_end_array(b);
    sdui_json_builder_end_object(b);
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "price", 5);
    sdui_json_builder_real(b, 3.5);
    sdui_json_builder_key(b, "name", 4);
    sdui_json_builder_string(b, "b\0", 2);
    sdui_json_builder_end_object(b);
    sdui_json_builder_begin_object(b);
    sdui_json_builder_end_object(b);
    sdui_json_builder_end_array(b);
    sdui_json_builder_key(b, NULL, 0); /* the empty name */
    sdui_json_builder_null(b);
    sdui_json_builder_key(b, "ok", 2);
    sdui_json_builder_bool(b, 1);
    sdui_json_builder_key(b, "n", 1);
    sdui_json_builder_begin_array(b);
    sdui_json_builder_begin_array(b);
    sdui_json_builder_int(b, 1);
    sdui_json_builder_begin_array(b);
    sdui_json_builder_real(b, 2.5);
    sdui_json_builder_begin_array(b);
    sdui_json_builder_end_array(b);
    sdui_json_builder_end_array(b);
    sdui_json_builder_end_array(b);
    sdui_json_builder_begin_object(b);
    sdui_json_builder_end_object(b);
    sdui_json_builder_end_array(b);
    sdui_json_builder_end_object(b);
    CHECK_STATUS(sdui_json_builder_end_object(b), SDUI_OK);
    CHECK_BUILT(b, "{\"cart\":{\"items\":[{\"price\":4,\"tags\":[]},{\"price\":3.5,\"name\":\"b\\u0000\"},{}],"
                   "\"\":null,\"ok\":true,\"n\":[[1,[2.5,[]]],{}]}}");

    /* The tree differs from a text that differs (the comparison is real). */
    {
        sdui_json_doc *built = NULL, *parsed = NULL;
        sdui_json_builder_begin_array(b);
        sdui_json_builder_int(b, 2);
        sdui_json_builder_end_array(b);
        CHECK_STATUS(sdui_json_builder_finish(b, &built, &err), SDUI_OK);
        CHECK_STATUS(sdui_json_doc_parse("[2.0]", 5, 8, &parsed, &err), SDUI_OK);
        CHECK(!value_same(sdui_json_doc_root(built), sdui_json_doc_root(parsed)));
        sdui_json_doc_free(built);
        sdui_json_doc_free(parsed);
    }
    sdui_json_builder_free(b);
}

/* A repeated name keeps its first place and its last value, as the
 * parser does; an object value can be replaced by a later one. */
static void test_repeated_keys(void)
{
    sdui_error err;
    sdui_json_builder *b = NULL;
    sdui_json_doc *doc = NULL;
    CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "a", 1);
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "x", 1);
    sdui_json_builder_int(b, 1);
    sdui_json_builder_end_object(b);
    sdui_json_builder_key(b, "b", 1);
    sdui_json_builder_int(b, 2);
    sdui_json_builder_key(b, "a", 1);
    sdui_json_builder_string(b, "last", 4);
    CHECK_STATUS(sdui_json_builder_end_object(b), SDUI_OK);
    CHECK_BUILT(b, "{\"a\":{\"x\":1},\"b\":2,\"a\":\"last\"}");

    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "k", 1);
    sdui_json_builder_int(b, 1);
    sdui_json_builder_key(b, "k", 1);
    sdui_json_builder_begin_array(b);
    sdui_json_builder_int(b, 2);
    sdui_json_builder_end_array(b);
    sdui_json_builder_end_object(b);
    CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_value_count(sdui_json_doc_root(doc)), 1);
    CHECK_EQ_INT(sdui_value_int(sdui_value_at(sdui_value_get(sdui_json_doc_root(doc), "k"), 0)), 2);
    sdui_json_doc_free(doc);
    sdui_json_builder_free(b);
}

/* Runs one misuse: calls `steps` (a builder is passed), expects `want`
 * from the failing call and every later call, and from finish with a
 * message holding each of the fragments (up to three, NULL-ended). */
#define MISUSE(want, steps, f1, f2, f3)                                        \
    do {                                                                       \
        sdui_json_builder *b_ = NULL;                                          \
        sdui_json_doc *d_ = NULL;                                              \
        sdui_status got_;                                                      \
        CHECK_STATUS(sdui_json_builder_open(&b_, &err), SDUI_OK);              \
        { sdui_json_builder *b = b_; steps; }                                  \
        /* Sticky: a later call that would be fine answers the error. */       \
        got_ = sdui_json_builder_null(b_);                                     \
        CHECKF(got_ == (want), "line %d: after the error null() gave %s",      \
               __LINE__, sdui_status_name(got_));                              \
        got_ = sdui_json_builder_finish(b_, &d_, &err);                        \
        CHECKF(got_ == (want) && d_ == NULL && err.status == (want),           \
               "line %d: finish gave %s (%s)", __LINE__,                       \
               sdui_status_name(got_), err.message);                           \
        if (f1) CHECK_MSG_HAS(f1);                                             \
        if (f2) CHECK_MSG_HAS(f2);                                             \
        if (f3) CHECK_MSG_HAS(f3);                                             \
        CHECK_EQ_INT(err.offset, -1);                                          \
        /* Reported once: the builder is empty and works again. */             \
        CHECK_STATUS(sdui_json_builder_int(b_, 5), SDUI_OK);                   \
        CHECK_BUILT(b_, "5");                                                  \
        sdui_json_builder_free(b_);                                            \
    } while (0)

/* Each misuse, the status of the failing call, and the message. */
static void test_sticky_errors(void)
{
    sdui_error err;
    const char *none = NULL;

    /* A value in an object without its key. */
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_begin_object(b), SDUI_OK);
        CHECK_STATUS(sdui_json_builder_int(b, 1), SDUI_ARGUMENT);
    }, "sdui_json_builder_int (call 2, depth 1)", "needs sdui_json_builder_key", none);
    /* A key at the top level, in an array, after a key. */
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_key(b, "a", 1), SDUI_ARGUMENT);
    }, "sdui_json_builder_key (call 1, depth 0)", "nothing is open", none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_array(b);
        sdui_json_builder_begin_array(b);
        CHECK_STATUS(sdui_json_builder_key(b, "a", 1), SDUI_ARGUMENT);
    }, "sdui_json_builder_key (call 3, depth 2)", "an array is open", none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_object(b);
        sdui_json_builder_key(b, "a", 1);
        CHECK_STATUS(sdui_json_builder_key(b, "b", 1), SDUI_ARGUMENT);
    }, "sdui_json_builder_key (call 3, depth 1)", "after a key", none);
    /* Ends that do not match. */
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_end_array(b), SDUI_ARGUMENT);
    }, "sdui_json_builder_end_array (call 1, depth 0)", "nothing is open, not an array", none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_object(b);
        CHECK_STATUS(sdui_json_builder_end_array(b), SDUI_ARGUMENT);
    }, "sdui_json_builder_end_array (call 2, depth 1)", "an object is open, not an array", none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_array(b);
        CHECK_STATUS(sdui_json_builder_end_object(b), SDUI_ARGUMENT);
    }, "sdui_json_builder_end_object", "an array is open, not an object", none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_object(b);
        sdui_json_builder_key(b, "dangling", 8);
        CHECK_STATUS(sdui_json_builder_end_object(b), SDUI_ARGUMENT);
    }, "sdui_json_builder_end_object (call 3, depth 1)", "the key \"dangling\" has no value", none);
    /* A long name is cut in the message at a character boundary. */
    MISUSE(SDUI_ARGUMENT, {
        const char *k = "0123456789012345678901234567890\xc3\xa9tail";
        sdui_json_builder_begin_object(b);
        sdui_json_builder_key(b, k, strlen(k));
        CHECK_STATUS(sdui_json_builder_end_object(b), SDUI_ARGUMENT);
    }, "\"0123456789012345678901234567890...\"", none, none);
    /* Two top-level values. */
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_int(b, 1), SDUI_OK);
        CHECK_STATUS(sdui_json_builder_begin_array(b), SDUI_ARGUMENT);
    }, "sdui_json_builder_begin_array (call 2, depth 0)", "a second top-level value", none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_array(b);
        sdui_json_builder_end_array(b);
        CHECK_STATUS(sdui_json_builder_string(b, "x", 1), SDUI_ARGUMENT);
    }, "sdui_json_builder_string (call 3, depth 0)", "second top-level", none);
    /* Values the tree cannot hold. */
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_real(b, NAN), SDUI_ARGUMENT);
    }, "sdui_json_builder_real (call 1, depth 0)", "not finite (NaN)", none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_array(b);
        CHECK_STATUS(sdui_json_builder_real(b, -INFINITY), SDUI_ARGUMENT);
    }, "sdui_json_builder_real (call 2, depth 1)", "-infinity", none);
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_real(b, INFINITY), SDUI_ARGUMENT);
    }, "+infinity", none, none);
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_string(b, "ok\xc0\xaf", 4), SDUI_ARGUMENT); /* overlong */
    }, "sdui_json_builder_string (call 1, depth 0)", "not UTF-8 at byte 2", none);
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_string(b, "\xed\xa0\x80", 3), SDUI_ARGUMENT); /* surrogate */
    }, "not UTF-8 at byte 0", none, none);
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_string(b, "ab\xe2\x82", 4), SDUI_ARGUMENT); /* cut short */
    }, "not UTF-8 at byte 2", none, none);
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_string(b, "\xf4\x90\x80\x80", 4), SDUI_ARGUMENT); /* > U+10FFFF */
    }, "not UTF-8 at byte 0", none, none);
    MISUSE(SDUI_ARGUMENT, {
        CHECK_STATUS(sdui_json_builder_string(b, NULL, 2), SDUI_ARGUMENT);
    }, "NULL string", none, none);
    /* Member names: no NUL, UTF-8, not NULL with a length. */
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_object(b);
        CHECK_STATUS(sdui_json_builder_key(b, "a\0b", 3), SDUI_ARGUMENT);
    }, "sdui_json_builder_key (call 2, depth 1)", "NUL byte (at byte 1)", none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_object(b);
        CHECK_STATUS(sdui_json_builder_key(b, "\xff", 1), SDUI_ARGUMENT);
    }, "member name of 1 bytes is not UTF-8 at byte 0", none, none);
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_object(b);
        CHECK_STATUS(sdui_json_builder_key(b, NULL, 1), SDUI_ARGUMENT);
    }, "NULL key", none, none);
    /* Only the first error counts: a later, different misuse is not
     * reported, and calls after it do nothing. */
    MISUSE(SDUI_ARGUMENT, {
        sdui_json_builder_begin_array(b);
        CHECK_STATUS(sdui_json_builder_key(b, "a", 1), SDUI_ARGUMENT);
        CHECK_STATUS(sdui_json_builder_end_object(b), SDUI_ARGUMENT);
        CHECK_STATUS(sdui_json_builder_end_array(b), SDUI_ARGUMENT);
        CHECK_STATUS(sdui_json_builder_real(b, NAN), SDUI_ARGUMENT);
    }, "sdui_json_builder_key (call 2, depth 1)", "an array is open", none);
    /* At finish: still open, a key without its value, nothing built;
     * each reported once, then the builder works again. */
    {
        sdui_json_builder *b = NULL;
        sdui_json_doc *d = NULL;
        CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);
        sdui_json_builder_begin_array(b);
        sdui_json_builder_begin_object(b);
        CHECK_STATUS(sdui_json_builder_finish(b, &d, &err), SDUI_ARGUMENT);
        CHECK_MSG_HAS("sdui_json_builder_finish (call 3, depth 2): 2 containers are still open "
                      "(innermost: an object)");
        CHECK(d == NULL);
        CHECK_STATUS(sdui_json_builder_int(b, 1), SDUI_OK);
        CHECK_BUILT(b, "1");
        sdui_json_builder_begin_object(b);
        sdui_json_builder_key(b, "a", 1);
        CHECK_STATUS(sdui_json_builder_finish(b, &d, &err), SDUI_ARGUMENT);
        CHECK_MSG_HAS("sdui_json_builder_finish (call 3, depth 1): a key has no value and "
                      "1 container is still open");
        CHECK_STATUS(sdui_json_builder_int(b, 2), SDUI_OK);
        CHECK_BUILT(b, "2");
        sdui_json_builder_free(b);
    }
    {
        sdui_json_builder *b = NULL;
        sdui_json_doc *d = NULL;
        CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);
        CHECK_STATUS(sdui_json_builder_finish(b, &d, &err), SDUI_ARGUMENT);
        CHECK_MSG_HAS("sdui_json_builder_finish (call 1, depth 0): nothing was built");
        CHECK(d == NULL);
        /* finish with a NULL error record still empties the builder. */
        sdui_json_builder_begin_array(b);
        CHECK_STATUS(sdui_json_builder_finish(b, &d, NULL), SDUI_ARGUMENT);
        CHECK_STATUS(sdui_json_builder_bool(b, 0), SDUI_OK);
        CHECK_BUILT(b, "false");
        sdui_json_builder_free(b);
    }
    /* Freeing a builder in error, with an unfinished tree, leaks nothing
     * (the sanitizer builds check). */
    {
        sdui_json_builder *b = NULL;
        CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);
        sdui_json_builder_begin_object(b);
        sdui_json_builder_key(b, "a", 1);
        sdui_json_builder_begin_array(b);
        sdui_json_builder_string(b, "s", 1);
        CHECK_STATUS(sdui_json_builder_end_object(b), SDUI_ARGUMENT);
        sdui_json_builder_free(b);
    }
}

/* SDUI_JSON_BUILD_MAX_DEPTH levels build, one more is SDUI_LIMIT; the same
 * bound as sdui_json_doc_parse at the default depth. */
static void test_depth(void)
{
    sdui_error err;
    sdui_json_builder *b = NULL;
    sdui_json_doc *doc = NULL;
    char text[2 * (SDUI_JSON_BUILD_MAX_DEPTH + 1) + 1];
    CHECK_EQ_INT(SDUI_JSON_BUILD_MAX_DEPTH, 128);
    CHECK_EQ_INT(SDUI_JSON_BUILD_MAX_DEPTH, SDUI_DEFAULT_MAX_DEPTH);
    CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);
    for (int round = 0; round < 2; round++) { /* the second reuses the grown stack */
        /* {"k":[{"k":[ ... [null] ... ]}]}: objects and arrays in turn. */
        for (int i = 0; i < (int)SDUI_JSON_BUILD_MAX_DEPTH; i++) {
            if (i % 2) {
                CHECK_STATUS(sdui_json_builder_begin_array(b), SDUI_OK);
            } else {
                CHECK_STATUS(sdui_json_builder_begin_object(b), SDUI_OK);
                CHECK_STATUS(sdui_json_builder_key(b, "k", 1), SDUI_OK);
            }
        }
        CHECK_STATUS(sdui_json_builder_null(b), SDUI_OK);
        for (int i = (int)SDUI_JSON_BUILD_MAX_DEPTH - 1; i >= 0; i--)
            CHECK_STATUS(i % 2 ? sdui_json_builder_end_array(b) : sdui_json_builder_end_object(b),
                         SDUI_OK);
        CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_OK);
        {
            const sdui_value *v = sdui_json_doc_root(doc);
            int levels = 0;
            while (v && sdui_value_type_of(v) != SDUI_VALUE_NULL) {
                levels++;
                v = sdui_value_type_of(v) == SDUI_VALUE_OBJECT ? sdui_value_get(v, "k")
                                                               : sdui_value_at(v, 0);
            }
            CHECK_EQ_INT(levels, SDUI_JSON_BUILD_MAX_DEPTH);
        }
        sdui_json_doc_free(doc);
    }
    /* One level more. */
    for (int i = 0; i < (int)SDUI_JSON_BUILD_MAX_DEPTH; i++)
        CHECK_STATUS(sdui_json_builder_begin_array(b), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_begin_object(b), SDUI_LIMIT);
    CHECK_STATUS(sdui_json_builder_end_array(b), SDUI_LIMIT);
    CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_LIMIT);
    CHECK_MSG_HAS("sdui_json_builder_begin_object (call 129, depth 128): nesting deeper than 128 levels");
    /* The parser draws the line at the same place. */
    for (int n = (int)SDUI_JSON_BUILD_MAX_DEPTH; n <= (int)SDUI_JSON_BUILD_MAX_DEPTH + 1; n++) {
        sdui_json_doc *p = NULL;
        for (int i = 0; i < n; i++) {
            text[i] = '[';
            text[2 * n - 1 - i] = ']';
        }
        CHECK_STATUS(sdui_json_doc_parse(text, (size_t)(2 * n), SDUI_DEFAULT_MAX_DEPTH, &p, &err),
                     n == (int)SDUI_JSON_BUILD_MAX_DEPTH ? SDUI_OK : SDUI_LIMIT);
        sdui_json_doc_free(p);
    }
    sdui_json_builder_free(b);
}

/* NULL builder and NULL out: SDUI_ARGUMENT, nothing changes. */
static void test_null_arguments(void)
{
    sdui_error err;
    sdui_json_builder *b = NULL;
    sdui_json_doc *doc = NULL;
    CHECK_STATUS(sdui_json_builder_open(NULL, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("json builder");
    CHECK(sdui_json_builder_null(NULL) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_bool(NULL, 1) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_int(NULL, 1) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_real(NULL, 1.0) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_string(NULL, "a", 1) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_begin_array(NULL) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_end_array(NULL) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_begin_object(NULL) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_key(NULL, "a", 1) == SDUI_ARGUMENT);
    CHECK(sdui_json_builder_end_object(NULL) == SDUI_ARGUMENT);
    CHECK_STATUS(sdui_json_builder_finish(NULL, &doc, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("NULL argument");
    CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_begin_array(b), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_int(b, 1), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_end_array(b), SDUI_OK);
    /* finish without a place for the document keeps the build. */
    CHECK_STATUS(sdui_json_builder_finish(b, NULL, &err), SDUI_ARGUMENT);
    CHECK_BUILT(b, "[1]");
    sdui_json_builder_free(b);
}

/* One builder, many documents: each outlives the next build and the
 * builder itself. */
static void test_reuse(void)
{
    sdui_error err;
    sdui_json_builder *b = NULL;
    sdui_json_doc *docs[5] = {0};
    CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);
    for (int i = 0; i < 5; i++) {
        char key[8];
        snprintf(key, sizeof key, "k%d", i);
        sdui_json_builder_begin_object(b);
        sdui_json_builder_key(b, key, strlen(key));
        sdui_json_builder_int(b, i);
        sdui_json_builder_end_object(b);
        CHECK_STATUS(sdui_json_builder_finish(b, &docs[i], &err), SDUI_OK);
    }
    sdui_json_builder_free(b);
    for (int i = 0; i < 5; i++) {
        char key[8];
        snprintf(key, sizeof key, "k%d", i);
        CHECK_EQ_INT(sdui_value_count(sdui_json_doc_root(docs[i])), 1);
        CHECK_EQ_INT(sdui_value_int(sdui_value_get(sdui_json_doc_root(docs[i]), key)), i);
        sdui_json_doc_free(docs[i]);
    }
}

/* Builds [0, 1, ..., 999, {"n": "thread"}] 200 times on its own builder. */
static void *thread_main(void *p)
{
    int *bad = p;
    sdui_json_builder *b = NULL;
    if (sdui_json_builder_open(&b, NULL) != SDUI_OK) {
        (*bad)++;
        return NULL;
    }
    for (int round = 0; round < 200; round++) {
        sdui_json_doc *doc = NULL;
        sdui_json_builder_begin_array(b);
        for (int i = 0; i < 1000; i++)
            sdui_json_builder_int(b, i);
        sdui_json_builder_begin_object(b);
        sdui_json_builder_key(b, "n", 1);
        sdui_json_builder_string(b, "thread", 6);
        sdui_json_builder_end_object(b);
        sdui_json_builder_end_array(b);
        if (sdui_json_builder_finish(b, &doc, NULL) != SDUI_OK ||
            sdui_value_count(sdui_json_doc_root(doc)) != 1001 ||
            sdui_value_int(sdui_value_at(sdui_json_doc_root(doc), 999)) != 999)
            (*bad)++;
        sdui_json_doc_free(doc);
    }
    sdui_json_builder_free(b);
    return NULL;
}

/* Builders on four threads at once. */
static void test_threads(void)
{
    pthread_t th[4];
    int bad[4] = {0};
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, thread_main, &bad[i]) == 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(bad[i], 0);
    }
}

/* Allocation failures: the fail_at-th allocation through the hook fails. */
static long fail_at;
static long alloc_count;
static long outstanding; /* allocations not yet freed */

/* malloc that fails the fail_at-th call. */
static void *f_malloc(void *ctx, size_t n)
{
    void *p;
    (void)ctx;
    if (++alloc_count == fail_at)
        return NULL;
    p = malloc(n);
    if (p)
        outstanding++;
    return p;
}

/* realloc that fails the fail_at-th call. */
static void *f_realloc(void *ctx, void *p, size_t n)
{
    void *q;
    (void)ctx;
    if (++alloc_count == fail_at)
        return NULL;
    q = realloc(p, n);
    if (q && !p)
        outstanding++;
    return q;
}

/* free. */
static void f_free(void *ctx, void *p)
{
    (void)ctx;
    if (p)
        outstanding--;
    free(p);
}

/* Opens a builder, builds a document that makes every kind of allocation
 * (the builder, a deep stack, a long name, strings, integers, decimals,
 * arrays and objects that grow) and finishes; SDUI_OK or SDUI_OOM. */
static sdui_status build_all(sdui_json_doc **doc, sdui_error *err)
{
    sdui_json_builder *b = NULL;
    sdui_status st = sdui_json_builder_open(&b, err);
    char name[100];
    if (st != SDUI_OK)
        return st;
    memset(name, 'n', sizeof name);
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, name, sizeof name);
    for (int i = 0; i < 40; i++)
        sdui_json_builder_begin_array(b);
    sdui_json_builder_string(b, "deep", 4);
    for (int i = 0; i < 40; i++)
        sdui_json_builder_end_array(b);
    for (int i = 0; i < 20; i++) {
        char k[8];
        snprintf(k, sizeof k, "m%d", i);
        sdui_json_builder_key(b, k, strlen(k));
        sdui_json_builder_begin_array(b);
        sdui_json_builder_int(b, i);
        sdui_json_builder_real(b, i + 0.5);
        sdui_json_builder_bool(b, i & 1);
        sdui_json_builder_null(b);
        sdui_json_builder_end_array(b);
    }
    st = sdui_json_builder_end_object(b);
    if (st == SDUI_OK || st == SDUI_OOM)
        st = sdui_json_builder_finish(b, doc, err);
    sdui_json_builder_free(b);
    return st;
}

/* Every allocation failure answers SDUI_OOM, from the call that met it
 * through finish, and leaks nothing; past the last one the build works. */
static void test_oom(void)
{
    sdui_allocator a = {f_malloc, f_realloc, f_free, NULL};
    int ok = 0;
    long failures = 0;
    for (fail_at = 1; fail_at < 5000 && !ok; fail_at++) {
        sdui_error err;
        sdui_json_doc *doc = NULL;
        sdui_status st;
        alloc_count = 0;
        outstanding = 0;
        sdui_set_allocator(&a);
        st = build_all(&doc, &err);
        if (st == SDUI_OK) {
            const sdui_value *r = sdui_json_doc_root(doc);
            const sdui_value *v = sdui_value_iter_value(sdui_value_next(r, NULL));
            for (int i = 0; i < 40; i++)
                v = sdui_value_at(v, 0);
            CHECK_EQ_INT(sdui_value_count(r), 21);
            CHECK_EQ_STR(sdui_value_string(v, NULL), "deep");
            CHECK(sdui_value_real(sdui_value_at(sdui_value_get(r, "m19"), 1)) == 19.5);
            ok = 1;
        } else {
            failures++;
            CHECKF(st == SDUI_OOM, "fail_at %ld: %s %s", fail_at, sdui_status_name(st), err.message);
            CHECKF(doc == NULL, "fail_at %ld: a document despite the error", fail_at);
        }
        sdui_json_doc_free(doc);
        sdui_set_allocator(NULL);
        CHECKF(outstanding == 0, "fail_at %ld: %ld allocations leaked", fail_at, outstanding);
    }
    CHECK(ok);
    printf("allocation failures: %ld, each answered SDUI_OOM\n", failures);
}

/* Runs every test. */
int main(void)
{
    test_scalars();
    test_nesting();
    test_repeated_keys();
    test_sticky_errors();
    test_depth();
    test_null_arguments();
    test_reuse();
    test_threads();
    test_oom();
    return check_summary();
}
