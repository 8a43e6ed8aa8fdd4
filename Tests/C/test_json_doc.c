/*
 * test_json_doc.c - any JSON document as a value tree: every top-level
 * type, repeated names (the last one counts, in the first one's place,
 * in small and large objects, whatever the value skipped), faults with
 * their offsets, the depth bound, integers past 64 bits, NUL bytes, NULL
 * arguments; a document is one block of memory (the core's value tree,
 * not a tree of allocations), plus the member index when an object has
 * more than 16 members; a parsed document and a built one read the same.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "strbuf.h"
#include "value_feed.h"

/* Parses text (NUL-terminated) with the default depth. */
static sdui_status parse(const char *text, sdui_json_doc **doc, sdui_error *err)
{
    return sdui_json_doc_parse(text, strlen(text), SDUI_DEFAULT_MAX_DEPTH, doc, err);
}

/* Every top-level type reads back with the sdui_value accessors. */
static void test_top_level_values(void)
{
    sdui_json_doc *doc = NULL;
    sdui_error err;
    size_t len = 0;

    CHECK(parse("  42 ", &doc, &err) == SDUI_OK);
    CHECK(sdui_value_type_of(sdui_json_doc_root(doc)) == SDUI_VALUE_INT);
    CHECK_EQ_INT(sdui_value_int(sdui_json_doc_root(doc)), 42);
    sdui_json_doc_free(doc);

    CHECK(parse("\"a\\u00e9\"", &doc, &err) == SDUI_OK);
    CHECK_EQ_STR(sdui_value_string(sdui_json_doc_root(doc), &len), "a\xc3\xa9");
    CHECK_EQ_INT(len, 3);
    sdui_json_doc_free(doc);

    CHECK(parse("null", &doc, &err) == SDUI_OK);
    CHECK(sdui_value_type_of(sdui_json_doc_root(doc)) == SDUI_VALUE_NULL);
    sdui_json_doc_free(doc);

    CHECK(parse("[1, 2.5, true, {\"k\": [\"v\"]}]", &doc, &err) == SDUI_OK);
    {
        const sdui_value *root = sdui_json_doc_root(doc);
        CHECK_EQ_INT(sdui_value_count(root), 4);
        CHECK(sdui_value_real(sdui_value_at(root, 1)) == 2.5);
        CHECK(sdui_value_bool(sdui_value_at(root, 2)));
        CHECK_EQ_STR(sdui_value_string(sdui_value_at(sdui_value_get(sdui_value_at(root, 3), "k"), 0), NULL), "v");
    }
    sdui_json_doc_free(doc);
}

/* A repeated member name keeps its last value, as a JWS header needs. */
static void test_last_duplicate_wins(void)
{
    sdui_json_doc *doc = NULL;
    sdui_error err;

    CHECK(parse("{\"alg\":\"HS256\",\"alg\":\"none\"}", &doc, &err) == SDUI_OK);
    CHECK_EQ_INT(sdui_value_count(sdui_json_doc_root(doc)), 1);
    CHECK_EQ_STR(sdui_value_string(sdui_value_get(sdui_json_doc_root(doc), "alg"), NULL), "none");
    sdui_json_doc_free(doc);
    /* The same name written with an escape is the same name. */
    CHECK(parse("{\"alg\":\"HS256\",\"\\u0061lg\":\"none\"}", &doc, &err) == SDUI_OK);
    CHECK_EQ_STR(sdui_value_string(sdui_value_get(sdui_json_doc_root(doc), "alg"), NULL), "none");
    sdui_json_doc_free(doc);
}

/* Faults carry the validator's offset and line:column; nothing is returned. */
static void test_faults(void)
{
    sdui_json_doc *doc = (sdui_json_doc *)1;
    sdui_error err;
    char deep[600];
    size_t i;

    CHECK(parse("{\"a\":\n  tru}", &doc, &err) == SDUI_JSON);
    CHECK(doc == NULL);
    CHECK_EQ_INT(err.line, 2);
    CHECKF(err.offset >= 6 && err.offset <= 10, "offset %lld", err.offset);

    CHECK(parse("", &doc, &err) == SDUI_JSON);
    CHECK(parse("{\"a\":1} x", &doc, &err) == SDUI_JSON);
    CHECK(parse("\"\xff\"", &doc, &err) == SDUI_JSON);

    for (i = 0; i < 300; i++)
        deep[i] = '[';
    for (i = 300; i < 600; i++)
        deep[i] = ']';
    CHECK(sdui_json_doc_parse(deep, 600, 128, &doc, &err) == SDUI_LIMIT);
    CHECK(sdui_json_doc_parse(deep + 200, 200, 128, &doc, &err) == SDUI_OK);
    sdui_json_doc_free(doc);

    /* Valid JSON, but past what an int64 holds: refused, not wrapped. */
    CHECK(parse("[1, 99999999999999999999]", &doc, &err) == SDUI_JSON);
    CHECK(strstr(err.message, "json document") != NULL);
    /* Placed just past the refused number, with a line and column. */
    CHECK_EQ_INT(err.offset, 24);
    CHECK_EQ_INT(err.line, 1);
    CHECK(err.column > 0);
    CHECK(parse("[1e400]", &doc, &err) == SDUI_JSON);
}

/* NUL bytes inside strings are kept; NULL arguments are refused. */
static void test_nul_and_arguments(void)
{
    static const char text[] = "\"a\\u0000b\"";
    sdui_json_doc *doc = NULL;
    sdui_error err;
    size_t len = 0;

    CHECK(sdui_json_doc_parse(text, sizeof text - 1, 8, &doc, &err) == SDUI_OK);
    CHECK(memcmp(sdui_value_string(sdui_json_doc_root(doc), &len), "a\0b", 3) == 0);
    CHECK_EQ_INT(len, 3);
    sdui_json_doc_free(doc);

    CHECK(sdui_json_doc_parse(NULL, 3, 8, &doc, &err) == SDUI_ARGUMENT);
    CHECK(sdui_json_doc_parse("1", 1, 8, NULL, &err) == SDUI_ARGUMENT);
    sdui_json_doc_free(NULL);
}

/* Allocations through the hook not yet freed. */
static long outstanding, allocations;

/* malloc that counts. */
static void *count_malloc(void *ctx, size_t n)
{
    (void)ctx;
    outstanding++;
    allocations++;
    return malloc(n ? n : 1);
}

/* realloc that counts a new block. */
static void *count_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (!p)
        outstanding++;
    allocations++;
    return realloc(p, n ? n : 1);
}

/* free that counts. */
static void count_free(void *ctx, void *p)
{
    (void)ctx;
    if (p)
        outstanding--;
    free(p);
}

/* A document is one block of memory however many values it holds (a tree
 * of allocations, one a value, is what it was before), and one more, the
 * member index, when an object has more than 16 members; freeing the
 * document frees both. */
static void test_one_block(void)
{
    sdui_allocator a = {count_malloc, count_realloc, count_free, NULL};
    str big = {0}, wide = {0};
    sdui_json_doc *doc = NULL;
    sdui_error err;
    sadd(&big, "[");
    for (int i = 0; i < 500; i++)
        sadd(&big, "%s{\"n\":%d,\"s\":\"v\\u00e9%d\",\"r\":%d.5,\"a\":[true,null]}",
                  i ? "," : "", i, i, i);
    sadd(&big, "]");
    sadd(&wide, "{");
    for (int i = 0; i < 40; i++)
        sadd(&wide, "%s\"k%d\":%d", i ? "," : "", i, i);
    sadd(&wide, "}");
    sdui_set_allocator(&a);
    outstanding = allocations = 0;
    CHECK(parse(big.b, &doc, &err) == SDUI_OK);
    CHECKF(outstanding == 1, "%ld blocks held by a document of 3,001 values", outstanding);
    sdui_json_doc_free(doc);
    CHECK_EQ_INT(outstanding, 0);
    CHECK(parse(wide.b, &doc, &err) == SDUI_OK);
    CHECKF(outstanding == 2, "%ld blocks held by a document with an object of 40 members",
           outstanding);
    CHECK_EQ_INT(sdui_value_int(sdui_value_get(sdui_json_doc_root(doc), "k39")), 39);
    sdui_json_doc_free(doc);
    CHECK_EQ_INT(outstanding, 0);
    sdui_set_allocator(NULL);
    free(big.b);
    free(wide.b);
}

/*
 * Checks the object at root of the text that big_object wrote: members in
 * the order of each name's first appearance, each holding the value of
 * its last, the skipped values nowhere, the count the distinct names.
 */
static void check_big_object(const sdui_value *o, int members, const char *what)
{
    int i = 0, ok = 1;
    CHECKF(sdui_value_count(o) == (size_t)members, "%s: %zu members", what, sdui_value_count(o));
    for (const void *it = sdui_value_next(o, NULL); it && ok; it = sdui_value_next(o, it), i++) {
        char want[16];
        size_t len;
        const sdui_value *v = sdui_value_iter_value(it);
        snprintf(want, sizeof want, "m%d", i);
        ok = !strcmp(sdui_value_iter_key(it, &len), want) && len == strlen(want) &&
             sdui_value_get(o, want) == v &&
             (i % 3 ? sdui_value_int(v) == i
                    : sdui_value_type_of(v) == SDUI_VALUE_ARRAY && sdui_value_count(v) == 1 &&
                          sdui_value_int(sdui_value_at(v, 0)) == -i);
        CHECKF(ok, "%s: member %d", what, i);
    }
    CHECKF(i == members, "%s: iteration met %d members", what, i);
    CHECK(sdui_value_get(o, "m-none") == NULL);
}

/* Writes an object of `members` names m0, m1, ...: every third name comes
 * again later (after a nested object that stands in its place first),
 * holding [-i] at last; the others once, holding i. */
static void big_object(str *t, int members)
{
    sadd(t, "{");
    for (int i = 0; i < members; i++)
        sadd(t, "%s\"m%d\":%s%d%s", i ? "," : "", i, i % 3 ? "" : "{\"x\":[{\"y\":",
                  i, i % 3 ? "" : "}]}");
    for (int i = 0; i < members; i += 3)
        sadd(t, ",\"m%d\":[%d]", i, -i);
    sadd(t, "}");
}

/* Repeated names in objects small and large keep their first place and
 * their last value, parsed or built, and a flood of one repeated name
 * costs no more than its length. */
static void test_repeats_small_and_large(void)
{
    static const int sizes[] = {1, 5, 15, 16, 17, 40, 1000};
    for (size_t n = 0; n < sizeof sizes / sizeof sizes[0]; n++) {
        str t = {0};
        sdui_json_doc *doc = NULL, *built = NULL;
        sdui_json_builder *b = NULL;
        sdui_error err;
        char what[64];
        big_object(&t, sizes[n]);
        snprintf(what, sizeof what, "parsed, %d members", sizes[n]);
        CHECK(parse(t.b, &doc, &err) == SDUI_OK);
        if (doc)
            check_big_object(sdui_json_doc_root(doc), sizes[n], what);
        /* The builder takes the same names in the same order. */
        CHECK(sdui_json_builder_open(&b, &err) == SDUI_OK);
        sdui_json_builder_begin_object(b);
        for (int i = 0; i < sizes[n]; i++) {
            char k[16];
            snprintf(k, sizeof k, "m%d", i);
            sdui_json_builder_key(b, k, strlen(k));
            if (i % 3) {
                sdui_json_builder_int(b, i);
                continue;
            }
            sdui_json_builder_begin_object(b);
            sdui_json_builder_key(b, "x", 1);
            sdui_json_builder_begin_array(b);
            sdui_json_builder_int(b, i);
            sdui_json_builder_end_array(b);
            sdui_json_builder_end_object(b);
        }
        for (int i = 0; i < sizes[n]; i += 3) {
            char k[16];
            snprintf(k, sizeof k, "m%d", i);
            sdui_json_builder_key(b, k, strlen(k));
            sdui_json_builder_begin_array(b);
            sdui_json_builder_int(b, -i);
            sdui_json_builder_end_array(b);
        }
        sdui_json_builder_end_object(b);
        CHECK(sdui_json_builder_finish(b, &built, &err) == SDUI_OK);
        snprintf(what, sizeof what, "built, %d members", sizes[n]);
        if (built)
            check_big_object(sdui_json_doc_root(built), sizes[n], what);
        sdui_json_doc_free(built);
        /* A tree read back into a builder is the same tree. */
        if (doc) {
            value_feed(b, sdui_json_doc_root(doc));
            CHECK(sdui_json_builder_finish(b, &built, &err) == SDUI_OK);
            snprintf(what, sizeof what, "copied, %d members", sizes[n]);
            if (built)
                check_big_object(sdui_json_doc_root(built), sizes[n], what);
            sdui_json_doc_free(built);
        }
        sdui_json_builder_free(b);
        sdui_json_doc_free(doc);
        free(t.b);
    }
    /* 200,000 times the same name: one member, the last value. */
    {
        str t = {0};
        sdui_json_doc *doc = NULL;
        sdui_error err;
        sadd(&t, "{\"first\":true");
        for (int i = 0; i < 200000; i++)
            sadd(&t, ",\"a\":%d", i);
        sadd(&t, ",\"last\":false}");
        CHECK(sdui_json_doc_parse(t.b, t.n, 8, &doc, &err) == SDUI_OK);
        if (doc) {
            const sdui_value *o = sdui_json_doc_root(doc);
            const void *it = sdui_value_next(o, NULL);
            CHECK_EQ_INT(sdui_value_count(o), 3);
            CHECK_EQ_INT(sdui_value_int(sdui_value_get(o, "a")), 199999);
            it = sdui_value_next(o, it);
            CHECK_EQ_STR(sdui_value_iter_key(it, NULL), "a");
            it = sdui_value_next(o, it);
            CHECK_EQ_STR(sdui_value_iter_key(it, NULL), "last");
            CHECK(sdui_value_next(o, it) == NULL);
        }
        sdui_json_doc_free(doc);
        free(t.b);
    }
}

int main(void)
{
    test_top_level_values();
    test_last_duplicate_wins();
    test_one_block();
    test_repeats_small_and_large();
    test_faults();
    test_nul_and_arguments();
    return check_summary();
}
