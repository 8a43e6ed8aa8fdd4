/*
 * test_json_doc.c - any JSON document as a value tree: every top-level
 * type, repeated names (the last one counts), faults with their offsets,
 * the depth bound, integers past 64 bits, NUL bytes, NULL arguments.
 */
#include <string.h>

#include "check.h"

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

int main(void)
{
    test_top_level_values();
    test_last_duplicate_wins();
    test_faults();
    test_nul_and_arguments();
    return check_summary();
}
