/*
 * test_catalog.c - string catalogs (include/sdui/catalog.h): every case of
 * Tests/LocaleVectors/catalogs.json (the chain, plural forms in en, de,
 * pl, ru, ar, fr and zh, exact forms, numbers written the way of the
 * locale the text came from, apostrophe quoting, unknown arguments,
 * missing keys), then the C API: each error an add can report (status,
 * locale, JSON path and byte in the message), every limit at and past its
 * bound, a failed add leaving the set as it was, replacing a catalog, the
 * locales in order, the result's fields, the check's findings and their
 * order, every allocation failure answered with SDUI_OOM and no leak, and
 * several threads looking up on one set at once.  And bundles
 * (sdui_strings_open_bundle): a set from one, the vectors' file read as
 * one, each error of the bundle's shape and of its catalogs (status,
 * JSON path from the bundle's root, byte, line and column in the
 * bundle), 256 catalogs and a 257th, bad calls, and every allocation
 * failure of an open.
 */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "strbuf.h"

#define VECTORS "Tests/LocaleVectors/catalogs.json"

/* The vectors file, read with the tests' reference parser. */
static json_t *vectors(void)
{
    json_error_t e;
    json_t *root = json_load_file(VECTORS, 0, &e);
    if (!root) {
        fprintf(stderr, "cannot read %s: %s (line %d)\n", VECTORS, e.text, e.line);
        exit(1);
    }
    return root;
}

/* A set of the vectors' catalogs, with their default locale. */
static sdui_strings *vector_set(json_t *root)
{
    const char *def = json_string_value(json_object_get(root, "default")), *loc;
    sdui_strings *s = NULL;
    sdui_error err;
    json_t *cat;
    CHECK_STATUS(sdui_strings_new(def, strlen(def), 0, &s, &err), SDUI_OK);
    json_object_foreach(json_object_get(root, "catalogs"), loc, cat) {
        char *text = json_dumps(cat, JSON_COMPACT);
        CHECK_STATUS(sdui_strings_add(s, loc, strlen(loc), text, strlen(text), &err), SDUI_OK);
        free(text);
    }
    return s;
}

/* One case's arguments (at most 16) from its "args" object. */
static size_t case_args(json_t *c, sdui_strings_arg *args)
{
    const char *name;
    json_t *v;
    size_t n = 0;
    json_object_foreach(json_object_get(c, "args"), name, v) {
        if (n == 16)
            break;
        memset(&args[n], 0, sizeof args[n]);
        args[n].name = name;
        args[n].name_len = strlen(name);
        if (json_is_number(v)) {
            args[n].is_number = 1;
            args[n].number = json_number_value(v);
        } else {
            args[n].text = json_string_value(v);
            args[n].text_len = json_string_length(v);
        }
        n++;
    }
    return n;
}

/* Runs case c on s; 1 when it gives what it expects (printing why not
 * when report is set). */
static int run_case(const sdui_strings *s, json_t *c, size_t i, int report)
{
    const char *loc = json_string_value(json_object_get(c, "locale"));
    const char *key = json_string_value(json_object_get(c, "key"));
    json_t *expect = json_object_get(c, "expect"), *from = json_object_get(c, "from");
    int missing = json_is_true(json_object_get(c, "missing"));
    sdui_strings_arg args[16];
    size_t n = case_args(c, args), len = 0;
    sdui_strings_result r;
    sdui_error err;
    char *out = NULL;
    int ok;
    sdui_status st = sdui_strings_format(s, loc, strlen(loc), key, strlen(key), args, n, &out, &len, &r, &err);
    if (st != SDUI_OK) {
        if (report)
            CHECKF(0, "case %zu (%s %s): %s: %s", i, loc, key, sdui_status_name(st), err.message);
        return 0;
    }
    ok = len == json_string_length(expect) && memcmp(out, json_string_value(expect), len) == 0
         && out[len] == '\0' && r.missing == missing
         && (json_is_null(from) ? r.locale == NULL : r.locale && strcmp(r.locale, json_string_value(from)) == 0);
    if (report)
        CHECKF(ok, "case %zu (%s %s): \"%s\" from %s%s, expected \"%s\" from %s%s", i, loc, key, out,
               r.locale ? r.locale : "null", r.missing ? " (missing)" : "", json_string_value(expect),
               json_is_null(from) ? "null" : json_string_value(from), missing ? " (missing)" : "");
    sdui_free(out);
    return ok;
}

static void test_vectors(void)
{
    json_t *root = vectors(), *cases = json_object_get(root, "cases"), *c;
    sdui_strings *s = vector_set(root);
    size_t i;
    CHECKF(json_array_size(cases) >= 80, "%zu cases", json_array_size(cases));
    json_array_foreach(cases, i, c)
        run_case(s, c, i, 1);
    sdui_strings_free(s);
    json_decref(root);
}

/* ---- the result's fields ---------------------------------------------- */

/* Formats key in loc on s with one argument (a number when text is NULL);
 * returns the text (to free with sdui_free) and the result. */
static char *fmt1(const sdui_strings *s, const char *loc, const char *key, const char *name, const char *text,
                  double number, sdui_strings_result *r)
{
    sdui_strings_arg a;
    sdui_error err;
    char *out = NULL;
    size_t len;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.name_len = name ? strlen(name) : 0;
    a.is_number = text == NULL;
    a.number = number;
    a.text = text;
    a.text_len = text ? strlen(text) : 0;
    CHECK_STATUS(sdui_strings_format(s, loc, strlen(loc), key, strlen(key), &a, name ? 1 : 0, &out, &len, r,
                                     &err),
                 SDUI_OK);
    CHECK(out && strlen(out) == len);
    return out;
}

/* Checks one lookup's text and fields. */
#define EXPECT(out, text)                                                                                   \
    do {                                                                                                    \
        char *o_ = (out);                                                                                   \
        CHECK_EQ_STR(o_, text);                                                                             \
        sdui_free(o_);                                                                                      \
    } while (0)

static void test_result_fields(void)
{
    json_t *root = vectors();
    sdui_strings *s = vector_set(root);
    sdui_strings_result r;
    sdui_error err;
    char *out;
    size_t len;

    EXPECT(fmt1(s, "de-CH", "checkout.title", NULL, NULL, 0, &r), "Zur Kasse");
    CHECK(!r.fell_back && !r.missing && !r.plural && r.unknown_args == 0);
    CHECK_EQ_STR(r.locale, "de-CH");
    CHECK(r.locale == sdui_strings_locale_at(s, 2)); /* owned by the set: ar, de, de-CH, ... */
    EXPECT(fmt1(s, "de-CH", "greeting", "name", "Ada", 0, &r), "Hallo, Ada!");
    CHECK(r.fell_back && !r.missing);
    EXPECT(fmt1(s, "ja", "nowhere", NULL, NULL, 0, &r), "nowhere");
    CHECK(r.missing && r.fell_back && r.locale == NULL && !r.plural);

    /* Plural: the category, an exact form, a form the entry lacks. */
    EXPECT(fmt1(s, "pl", "cart.items", "count", NULL, 22, &r), "22 produkty");
    CHECK(r.plural && r.category == SDUI_PLURAL_FEW && !r.form_missing && !r.count_missing);
    EXPECT(fmt1(s, "pl", "files.deleted", "count", NULL, 25, &r), "Usunięto 25 pliku");
    CHECK(r.plural && r.category == SDUI_PLURAL_MANY && r.form_missing);
    EXPECT(fmt1(s, "en", "cart.empty", "count", NULL, 0, &r), "Your cart is empty");
    CHECK(r.plural && r.category == SDUI_PLURAL_OTHER && !r.form_missing);
    EXPECT(fmt1(s, "en", "tickets.left", "count", NULL, 1, &r), "Last ticket!");
    CHECK(r.category == SDUI_PLURAL_ONE); /* the count's category, all the same */
    EXPECT(fmt1(s, "en", "cart.items", "count", "1.0", 0, &r), "1.0 items");
    CHECK(r.category == SDUI_PLURAL_OTHER && !r.count_missing);
    EXPECT(fmt1(s, "en", "cart.items", NULL, NULL, 0, &r), "{count} items");
    CHECK(r.plural && r.count_missing && r.unknown_args == 1 && r.category == SDUI_PLURAL_OTHER);
    EXPECT(fmt1(s, "en", "cart.items", "count", "lots", 0, &r), "lots items");
    CHECK(r.count_missing && r.unknown_args == 0);
    EXPECT(fmt1(s, "en", "cart.items", "count", "", 0, &r), " items");
    CHECK(r.count_missing);
    /* The rules of the locale the text came from: de-CH's text is de's. */
    EXPECT(fmt1(s, "de-CH", "cart.items", "count", NULL, 1, &r), "ein Artikel");
    CHECK_EQ_STR(r.locale, "de");
    CHECK(r.category == SDUI_PLURAL_ONE && r.fell_back);
    /* fr: 0 and 1.5 are "one"; a tiny number too (i = 0), written as 0. */
    EXPECT(fmt1(s, "fr", "cart.items", "count", NULL, 1e-7, &r), "0 article");
    CHECK(r.category == SDUI_PLURAL_ONE);
    /* Numbers the locale cannot write: the number-to-text rule's words;
     * their category is "other". */
    EXPECT(fmt1(s, "en", "cart.items", "count", NULL, NAN, &r), "nan items");
    CHECK(r.category == SDUI_PLURAL_OTHER && !r.count_missing);
    EXPECT(fmt1(s, "en", "price.total", "amount", NULL, -INFINITY, &r), "Total: -inf");
    EXPECT(fmt1(s, "en", "cart.items", "count", NULL, 1e21, &r), "1,000,000,000,000,000,000,000 items");
    EXPECT(fmt1(s, "fr", "cart.items", "count", NULL, 1e21, &r),
           "1\u202f000\u202f000\u202f000\u202f000\u202f000\u202f000\u202f000 d’articles");
    CHECK(r.category == SDUI_PLURAL_MANY);
    EXPECT(fmt1(s, "pl", "cart.items", "count", NULL, -2, &r), "-2 produkty");
    CHECK(r.category == SDUI_PLURAL_FEW);
    /* Counts the number-to-text rule writes with an exponent are read
     * positionally: -1e22 is an integer ending in 0 (pl: many), 1.5e-9 a
     * fraction with i = 0 (fr: one; en: other). */
    sdui_free(fmt1(s, "pl", "cart.items", "count", NULL, -1e22, &r));
    CHECK(r.category == SDUI_PLURAL_MANY && !r.form_missing);
    sdui_free(fmt1(s, "fr", "cart.items", "count", NULL, 1.5e-9, &r));
    CHECK(r.category == SDUI_PLURAL_ONE);
    sdui_free(fmt1(s, "en", "cart.items", "count", NULL, 1.5e-9, &r));
    CHECK(r.category == SDUI_PLURAL_OTHER);
    sdui_free(fmt1(s, "en", "cart.items", "count", NULL, -1, &r));
    CHECK(r.category == SDUI_PLURAL_ONE);
    /* Past 64 digits the rules are not asked: "other". */
    sdui_free(fmt1(s, "pl", "cart.items", "count", NULL, 1e300, &r));
    CHECK(r.category == SDUI_PLURAL_OTHER && !r.count_missing);
    /* Unknown arguments are counted, each time they appear. */
    EXPECT(fmt1(s, "en", "unknown.args", NULL, NULL, 0, &r), "Hi {name}, you have {unread} new messages");
    CHECK_EQ_INT(r.unknown_args, 2);

    /* Arguments: 64 is the most; the first of two names counts. */
    {
        sdui_strings_arg a[65];
        int i;
        memset(a, 0, sizeof a);
        for (i = 0; i < 65; i++) {
            a[i].name = i == 63 ? "name" : "other";
            a[i].name_len = strlen(a[i].name);
            a[i].text = i == 63 ? "Ada" : "x";
            a[i].text_len = strlen(a[i].text);
        }
        a[64].name = "name";
        a[64].name_len = 4;
        a[64].text = "Bob";
        a[64].text_len = 3;
        CHECK_STATUS(sdui_strings_format(s, "en", 2, "greeting", 8, a, 64, &out, &len, &r, &err), SDUI_OK);
        CHECK_EQ_STR(out, "Hello, Ada!");
        sdui_free(out);
        CHECK_STATUS(sdui_strings_format(s, "en", 2, "greeting", 8, a, 65, &out, &len, &r, &err), SDUI_ARGUMENT);
        CHECK(out == NULL);
        CHECK_MSG_HAS("65 arguments");
    }
    /* Bad calls. */
    CHECK_STATUS(sdui_strings_format(s, "e", 1, "greeting", 8, NULL, 0, &out, &len, &r, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_format(s, "", 0, "greeting", 8, NULL, 0, &out, &len, &r, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_format(NULL, "en", 2, "greeting", 8, NULL, 0, &out, &len, &r, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_format(s, "en", 2, NULL, 8, NULL, 0, &out, &len, &r, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_format(s, "en", 2, "greeting", 8, NULL, 1, &out, &len, &r, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_format(s, "en", 2, "greeting", 8, NULL, 0, NULL, &len, &r, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_format(s, "en", 2, "greeting", 8, NULL, 0, &out, &len, NULL, &err), SDUI_ARGUMENT);
    /* A key that is no key is simply missing; the empty key too. */
    CHECK_STATUS(sdui_strings_format(s, "en", 2, "a b\0c", 5, NULL, 0, &out, &len, &r, &err), SDUI_OK);
    CHECK(len == 5 && memcmp(out, "a b\0c", 6) == 0 && r.missing);
    sdui_free(out);
    CHECK_STATUS(sdui_strings_format(s, "en", 2, "", 0, NULL, 0, &out, &len, &r, &err), SDUI_OK);
    CHECK(len == 0 && out && out[0] == '\0' && r.missing);
    sdui_free(out);
    /* Lengths, not NULs: a key given by its first bytes. */
    CHECK_STATUS(sdui_strings_format(s, "de-CHXX", 5, "greetingXX", 8, NULL, 0, &out, &len, &r, &err), SDUI_OK);
    CHECK_EQ_STR(out, "Hallo, {name}!");
    sdui_free(out);

    /* has: the catalog of exactly that locale. */
    CHECK(sdui_strings_has(s, "de", 2, "greeting", 8));
    CHECK(!sdui_strings_has(s, "de-CH", 5, "greeting", 8));
    CHECK(sdui_strings_has(s, "de_ch", 5, "checkout.title", 14));
    CHECK(!sdui_strings_has(s, "ja", 2, "checkout.title", 14));
    CHECK(!sdui_strings_has(s, "x", 1, "checkout.title", 14));
    CHECK(!sdui_strings_has(NULL, "en", 2, "checkout.title", 14));
    sdui_strings_free(s);
    json_decref(root);
}

/* ---- adding ----------------------------------------------------------- */

/* Adds json to s as locale loc; the status, with err filled. */
static sdui_status add(sdui_strings *s, const char *loc, const char *json, sdui_error *err)
{
    return sdui_strings_add(s, loc, strlen(loc), json, strlen(json), err);
}

/* An add of json that fails with want; the message names the locale and
 * has each of the NULL-terminated needles; the offset is at (-2: any). */
static void expect_error(const char *json, sdui_status want, long long at, const char *const *needles, int line)
{
    sdui_strings *s = NULL;
    sdui_error err;
    char *out = NULL;
    size_t len, i;
    sdui_strings_result r;
    CHECK_STATUS(sdui_strings_new("en", 2, 0, &s, &err), SDUI_OK);
    CHECK_STATUS(add(s, "de", "{\"keep\": \"kept\"}", &err), SDUI_OK);
    if (!CHECKF(add(s, "de", json, &err) == want, "line %d: %s is %s, expected %s (%s)", line, json,
                sdui_status_name(err.status), sdui_status_name(want), err.message)) {
        sdui_strings_free(s);
        return;
    }
    CHECKF(err.status == want, "line %d: err.status", line);
    CHECKF(strstr(err.message, "catalog de") != NULL, "line %d: message \"%s\" names no locale", line, err.message);
    for (i = 0; needles && needles[i]; i++)
        CHECKF(strstr(err.message, needles[i]) != NULL, "line %d: message \"%s\" lacks \"%s\"", line, err.message,
               needles[i]);
    if (at != -2)
        CHECKF(err.offset == at, "line %d: offset %lld, expected %lld (%s)", line, err.offset, at, err.message);
    if (at >= 0)
        CHECKF(err.line >= 1 && err.column >= 1, "line %d: no line:column", line);
    /* Nothing changed: the old catalog is still there. */
    CHECK_EQ_INT(sdui_strings_locale_count(s), 1);
    CHECK_STATUS(sdui_strings_format(s, "de", 2, "keep", 4, NULL, 0, &out, &len, &r, &err), SDUI_OK);
    CHECK_EQ_STR(out, "kept");
    sdui_free(out);
    sdui_strings_free(s);
}

/* expect_error with needles given inline. */
#define ERR(json, want, at, ...)                                                                            \
    do {                                                                                                    \
        static const char *const n_[] = {__VA_ARGS__, NULL};                                                \
        expect_error(json, want, at, n_, __LINE__);                                                         \
    } while (0)

static void test_add_errors(void)
{
    /* Not JSON: the scanner's error, with the locale and the byte. */
    ERR("{\"a\": }", SDUI_JSON, 6, "byte 6");
    ERR("", SDUI_JSON, -2, "catalog de");
    ERR("{\"a\": \"x\"", SDUI_JSON, -2, "catalog de");
    ERR("{\"a\": \"\xff\"}", SDUI_JSON, -2, "catalog de");
    /* A grammar error after a shape error is reported first. */
    ERR("{\"a\": 1, \"b\": }", SDUI_JSON, 14, "byte 14");
    /* Not an object. */
    ERR("[\"a\"]", SDUI_SCHEMA, 0, "$ (byte 0)", "an array");
    ERR("\"text\"", SDUI_SCHEMA, 0, "a string, not an object");
    /* Keys. */
    ERR("{\"a b\": \"x\"}", SDUI_SCHEMA, 1, "$[\"a b\"]", "0x20");
    ERR("{\"\": \"x\"}", SDUI_SCHEMA, 1, "$[\"\"]", "empty key");
    ERR("{\"caf\\u00e9\": \"x\"}", SDUI_SCHEMA, 1, "$[\"caf\\u00e9\"]", "0xC3");
    ERR("{\"a\": \"x\", \"b\": \"y\", \"a\": \"z\"}", SDUI_SCHEMA, 21, "$[\"a\"] (byte 21)", "twice");
    ERR("{\"a\": \"x\", \"\\u0061\": \"z\"}", SDUI_SCHEMA, 11, "twice");
    /* Values. */
    ERR("{\"a\": 3}", SDUI_SCHEMA, 6, "$[\"a\"]", "a number, neither a string nor a plural object");
    ERR("{\"a\": [\"x\"]}", SDUI_SCHEMA, 6, "an array");
    ERR("{\"a\": null}", SDUI_SCHEMA, 6, "null");
    ERR("{\"a\": true}", SDUI_SCHEMA, 6, "a boolean");
    /* Plural objects. */
    ERR("{\"cart.items\": {\"one\": \"x\"}}", SDUI_SCHEMA, 15, "$[\"cart.items\"]", "\"other\"");
    ERR("{\"cart.items\": {}}", SDUI_SCHEMA, 15, "\"other\"");
    ERR("{\"a\": {\"fewer\": \"x\", \"other\": \"y\"}}", SDUI_SCHEMA, 7, "$[\"a\"].fewer", "not a plural category");
    ERR("{\"a\": {\"One\": \"x\", \"other\": \"y\"}}", SDUI_SCHEMA, 7, "$[\"a\"][\"One\"]");
    ERR("{\"a\": {\"one\": 1, \"other\": \"y\"}}", SDUI_SCHEMA, 14, "$[\"a\"].one", "a number, not a string");
    ERR("{\"a\": {\"one\": {\"x\": 1}, \"other\": \"y\"}}", SDUI_SCHEMA, 14, "$[\"a\"].one", "an object");
    ERR("{\"a\": {\"one\": \"x\", \"one\": \"y\", \"other\": \"z\"}}", SDUI_SCHEMA, 19, "$[\"a\"].one", "twice");
    ERR("{\"a\": {\"=x\": \"x\", \"other\": \"y\"}}", SDUI_SCHEMA, 7, "$[\"a\"][\"=x\"]", "exact form");
    ERR("{\"a\": {\"=\": \"x\", \"other\": \"y\"}}", SDUI_SCHEMA, 7, "exact form");
    ERR("{\"a\": {\"=1.\": \"x\", \"other\": \"y\"}}", SDUI_SCHEMA, 7, "exact form");
    ERR("{\"a\": {\"=1e3\": \"x\", \"other\": \"y\"}}", SDUI_SCHEMA, 7, "exact form");
    ERR("{\"a\": {\"=1\": \"x\", \"other\": \"y\", \"=1.0\": \"z\"}}", SDUI_SCHEMA, 32, "$[\"a\"][\"=1.0\"]",
        "the value of \"=1\"");
    ERR("{\"a\": {\"=-0\": \"x\", \"=0\": \"z\", \"other\": \"y\"}}", SDUI_SCHEMA, 19, "$[\"a\"][\"=0\"]");
    /* Texts: braces and names. */
    ERR("{\"cart.items\": {\"few\": \"{count\", \"other\": \"x\"}}", SDUI_SCHEMA, 23, "$[\"cart.items\"].few",
        "never closed");
    ERR("{\"a\": \"x } y\"}", SDUI_SCHEMA, 6, "$[\"a\"]", "closes no '{'");
    ERR("{\"a\": \"{1abc}\"}", SDUI_SCHEMA, 6, "{1abc}", "not a name");
    ERR("{\"a\": \"{ name }\"}", SDUI_SCHEMA, 6, "not a name");
    ERR("{\"a\": \"{}\"}", SDUI_SCHEMA, 6, "not a name");
    ERR("{\"a\": \"{count, number}\"}", SDUI_SCHEMA, 6, "not a name");
    ERR("{\"a\": \"{a{b}}\"}", SDUI_SCHEMA, 6, "not a name");
    ERR("{\"a\": {\"other\": \"x\", \"=3\": \"{n\"}}", SDUI_SCHEMA, 27, "$[\"a\"][\"=3\"]", "never closed");
    /* A quoted brace is no brace; a closed quote ends the quoting. */
    ERR("{\"a\": \"'{' {b\"}", SDUI_SCHEMA, 6, "never closed");
}

/* A catalog of one key whose text is text (escaped for JSON by jansson). */
static char *one_text(const char *key, const char *text)
{
    json_t *o = json_object();
    char *s;
    json_object_set_new(o, key, json_string(text));
    s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

/* 1 when adding json to a fresh set gives want. */
static int adds_with(const char *json, sdui_status want, const char *needle)
{
    sdui_strings *s = NULL;
    sdui_error err;
    sdui_status st;
    int ok;
    sdui_strings_new("en", 2, 0, &s, &err);
    st = sdui_strings_add(s, "en", 2, json, strlen(json), &err);
    ok = st == want && (!needle || strstr(err.message, needle) != NULL);
    if (!ok)
        fprintf(stderr, "  add gave %s (%s), expected %s\n", sdui_status_name(st), err.message,
                sdui_status_name(want));
    sdui_strings_free(s);
    return ok;
}

static void test_limits(void)
{
    str t = {0};
    char key[200], *json;
    sdui_strings *s = NULL;
    sdui_error err;
    int i;

    /* A text of 4096 bytes, and of 4097. */
    for (i = 0; i < 4096; i++)
        sadd(&t, "x");
    json = one_text("a", t.b);
    CHECK(adds_with(json, SDUI_OK, NULL));
    free(json);
    sadd(&t, "y");
    json = one_text("a", t.b);
    CHECK(adds_with(json, SDUI_LIMIT, "4097 bytes long, more than 4096"));
    free(json);
    /* Escapes count as the bytes they stand for: 4096 of them is a text of
     * 4096 bytes, written in six times as many. */
    t.n = 0;
    sadd(&t, "{\"a\": \"");
    for (i = 0; i < 4096; i++)
        sadd(&t, "\\u0041");
    sadd(&t, "\"}");
    CHECK(adds_with(t.b, SDUI_OK, NULL));
    t.n -= 2;
    sadd(&t, "\\u0041\"}");
    CHECK(adds_with(t.b, SDUI_LIMIT, "more than 4096"));
    /* 4096 two-byte characters are 8192 bytes. */
    t.n = 0;
    for (i = 0; i < 2049; i++)
        sadd(&t, "é");
    json = one_text("a", t.b);
    CHECK(adds_with(json, SDUI_LIMIT, "4098 bytes long"));
    free(json);

    /* 64 arguments in one text, and 65. */
    t.n = 0;
    for (i = 0; i < 64; i++)
        sadd(&t, "{a%d}", i);
    json = one_text("a", t.b);
    CHECK(adds_with(json, SDUI_OK, NULL));
    free(json);
    sadd(&t, "{a}");
    json = one_text("a", t.b);
    CHECK(adds_with(json, SDUI_LIMIT, "more than 64 arguments"));
    free(json);

    /* A key of 128 bytes, and of 129. */
    memset(key, 'k', 128);
    key[128] = '\0';
    json = one_text(key, "x");
    CHECK(adds_with(json, SDUI_OK, NULL));
    free(json);
    key[128] = 'k';
    key[129] = '\0';
    json = one_text(key, "x");
    CHECK(adds_with(json, SDUI_LIMIT, "129 bytes long, more than 128"));
    free(json);
    /* Every byte a key may have. */
    CHECK(adds_with("{\"AZaz09_.-\": \"x\"}", SDUI_OK, NULL));

    /* An argument name of 64 bytes, and of 65. */
    t.n = 0;
    sadd(&t, "{");
    for (i = 0; i < 64; i++)
        sadd(&t, "n");
    sadd(&t, "}");
    json = one_text("a", t.b);
    CHECK(adds_with(json, SDUI_OK, NULL));
    free(json);
    t.n = 0;
    sadd(&t, "{_");
    for (i = 0; i < 64; i++)
        sadd(&t, "n");
    sadd(&t, "}");
    json = one_text("a", t.b);
    CHECK(adds_with(json, SDUI_LIMIT, "name of 65 bytes, more than 64"));
    free(json);
    free(t.b);

    /* The catalog's bytes: max_catalog_bytes and no more. */
    CHECK_STATUS(sdui_strings_new("en", 2, 12, &s, &err), SDUI_OK);
    CHECK_STATUS(add(s, "en", "{\"a\": \"xy\"}", &err), SDUI_OK); /* 11 */
    CHECK_STATUS(add(s, "en", "{\"a\": \"xyz\"}", &err), SDUI_OK); /* 12 */
    CHECK_STATUS(add(s, "en", "{\"a\": \"wxyz\"}", &err), SDUI_LIMIT);
    CHECK_MSG_HAS("catalog en: 13 bytes of JSON, more than the limit of 12");
    sdui_strings_free(s);

    /* 256 locales, and a 257th; replacing one of 256 is fine. */
    CHECK_STATUS(sdui_strings_new("en", 2, 0, &s, &err), SDUI_OK);
    for (i = 0; i < 256; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "%c%c%c", 'a' + i / 26 % 26, 'a' + i % 26, 'a' + (i * 7) % 26);
        if (!CHECKF(add(s, tag, "{\"a\": \"x\"}", &err) == SDUI_OK, "locale %d (%s): %s", i, tag, err.message))
            break;
    }
    CHECK_EQ_INT(sdui_strings_locale_count(s), 256);
    CHECK_STATUS(add(s, "zz", "{\"a\": \"x\"}", &err), SDUI_LIMIT);
    CHECK_MSG_HAS("256 locales");
    CHECK_STATUS(add(s, "aaa", "{\"b\": \"y\"}", &err), SDUI_OK);
    CHECK_EQ_INT(sdui_strings_locale_count(s), 256);
    for (i = 1; i < 256; i++)
        CHECK(strcmp(sdui_strings_locale_at(s, (size_t)i - 1), sdui_strings_locale_at(s, (size_t)i)) < 0);
    sdui_strings_free(s);
}

static void test_set(void)
{
    sdui_strings *s = NULL;
    sdui_strings_result r;
    sdui_error err;
    char *out;
    size_t len;

    CHECK_STATUS(sdui_strings_new("EN_us", 5, 0, &s, &err), SDUI_OK);
    CHECK_EQ_STR(sdui_strings_default_locale(s), "en-US");
    CHECK_EQ_INT(sdui_strings_locale_count(s), 0);
    CHECK(sdui_strings_locale_at(s, 0) == NULL);
    /* The default chain: en-US, then en. */
    CHECK_STATUS(add(s, "en", "{\"a\": \"en a\", \"b\": \"en b\"}", &err), SDUI_OK);
    CHECK_STATUS(add(s, "en_us", "{\"a\": \"US a\"}", &err), SDUI_OK);
    CHECK_STATUS(add(s, "pt-BR", "{}", &err), SDUI_OK);
    CHECK_STATUS(add(s, "de", "{\"a\": \"de a\"}", &err), SDUI_OK);
    CHECK_EQ_INT(sdui_strings_locale_count(s), 4);
    CHECK_EQ_STR(sdui_strings_locale_at(s, 0), "de");
    CHECK_EQ_STR(sdui_strings_locale_at(s, 1), "en");
    CHECK_EQ_STR(sdui_strings_locale_at(s, 2), "en-US");
    CHECK_EQ_STR(sdui_strings_locale_at(s, 3), "pt-BR");
    CHECK(sdui_strings_locale_at(s, 4) == NULL);
    EXPECT(fmt1(s, "de", "b", NULL, NULL, 0, &r), "en b");
    CHECK_EQ_STR(r.locale, "en");
    EXPECT(fmt1(s, "pt", "a", NULL, NULL, 0, &r), "US a");
    CHECK_EQ_STR(r.locale, "en-US");

    /* Replacing: the new catalog whole, the old one gone. */
    CHECK_STATUS(add(s, "de", "{\"b\": \"de b\"}", &err), SDUI_OK);
    CHECK_EQ_INT(sdui_strings_locale_count(s), 4);
    EXPECT(fmt1(s, "de", "a", NULL, NULL, 0, &r), "US a");
    EXPECT(fmt1(s, "de", "b", NULL, NULL, 0, &r), "de b");
    CHECK(!sdui_strings_has(s, "de", 2, "a", 1));
    /* A failed replacement keeps the catalog there was. */
    CHECK_STATUS(add(s, "de", "{\"a\": \"x\", \"b\": {\"one\": \"y\"}}", &err), SDUI_SCHEMA);
    EXPECT(fmt1(s, "de", "b", NULL, NULL, 0, &r), "de b");
    CHECK(!sdui_strings_has(s, "de", 2, "a", 1));

    /* Bad arguments. */
    CHECK_STATUS(add(s, "d", "{}", &err), SDUI_ARGUMENT);
    CHECK_STATUS(add(s, "de-", "{}", &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_add(s, "de", 2, NULL, 2, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_add(NULL, "de", 2, "{}", 2, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_add(s, NULL, 2, "{}", 2, &err), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_strings_locale_count(s), 4);
    sdui_strings_free(s);
    sdui_strings_free(NULL);
    s = (sdui_strings *)1;
    CHECK_STATUS(sdui_strings_new("e", 1, 0, &s, &err), SDUI_ARGUMENT);
    CHECK(s == NULL);
    CHECK_STATUS(sdui_strings_new(NULL, 2, 0, &s, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_new("en", 2, 0, NULL, &err), SDUI_ARGUMENT);
    CHECK(sdui_strings_default_locale(NULL) == NULL);
    CHECK_EQ_INT(sdui_strings_locale_count(NULL), 0);

    /* Lengths, not NULs: a tag given by its first bytes. */
    CHECK_STATUS(sdui_strings_new("frXX", 2, 0, &s, &err), SDUI_OK);
    CHECK_EQ_STR(sdui_strings_default_locale(s), "fr");
    CHECK_STATUS(sdui_strings_add(s, "de-CHxx", 5, "{\"a\": \"b\"}xx", 10, &err), SDUI_OK);
    CHECK_EQ_STR(sdui_strings_locale_at(s, 0), "de-CH");
    CHECK_STATUS(sdui_strings_format(s, "de-CH", 5, "a", 1, NULL, 0, &out, &len, &r, &err), SDUI_OK);
    CHECK_EQ_STR(out, "b");
    sdui_free(out);
    sdui_strings_free(s);
}

/* ---- bundles ---------------------------------------------------------- */

/* The whole of the file at path, NUL-terminated, its length to *len (the
 * caller frees it). */
static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(b = malloc((size_t)n + 1)) || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    b[n] = '\0';
    *len = (size_t)n;
    return b;
}

/* Opens the bundle json (its strlen) with catalogs of at most max bytes. */
static sdui_status open_bundle(const char *json, size_t max, sdui_strings **s, sdui_error *err)
{
    return sdui_strings_open_bundle(json, strlen(json), max, s, err);
}

/* The byte offset of the first needle in json (a test's own text: the
 * needle is there). */
static long long pos(const char *json, const char *needle)
{
    const char *p = strstr(json, needle);
    if (!p) {
        fprintf(stderr, "pos: \"%s\" is not in %s\n", needle, json);
        exit(1);
    }
    return (long long)(p - json);
}

static void test_bundle(void)
{
    static const char good[] =
        "{\"locale\": \"de-CH\", \"version\": 3, \"x\": {\"catalogs\": [1], \"default\": {}},\n"
        " \"catalogs\": {\n"
        "  \"de\": {\"greeting\": \"Hallo, {name}!\", \"cart.items\": {\"one\": \"ein Artikel\", \"other\": \"{count} "
        "Artikel\"}},\n"
        "  \"de_ch\": {\"checkout.title\": \"Zur Kasse\"},\n"
        "  \"en\": {\"checkout.title\": \"Checkout\", \"greeting\": \"Hello, {name}!\", \"only.en\": \"English\"},\n"
        "  \"FR\": {}\n"
        " },\n"
        " \"default\": \"EN\", \"catalogsx\": {\"de\": 1}, \"defaults\": 1}";
    sdui_strings *s = (sdui_strings *)1;
    sdui_strings_result r;
    sdui_error err;
    json_t *root, *cases, *c;
    char *text, *out;
    size_t len, i;

    /* A bundle: the default canonical, the locales sorted by canonical
     * tag; "locale", members of other names and what is inside them are
     * not read. */
    CHECK_STATUS(open_bundle(good, 0, &s, &err), SDUI_OK);
    CHECK_EQ_STR(sdui_strings_default_locale(s), "en");
    CHECK_EQ_INT(sdui_strings_locale_count(s), 4);
    CHECK_EQ_STR(sdui_strings_locale_at(s, 0), "de");
    CHECK_EQ_STR(sdui_strings_locale_at(s, 1), "de-CH");
    CHECK_EQ_STR(sdui_strings_locale_at(s, 2), "en");
    CHECK_EQ_STR(sdui_strings_locale_at(s, 3), "fr");
    /* Lookups follow the chain: de-CH, de, then the default. */
    EXPECT(fmt1(s, "de-CH", "checkout.title", NULL, NULL, 0, &r), "Zur Kasse");
    CHECK(!r.fell_back && r.locale && !strcmp(r.locale, "de-CH"));
    EXPECT(fmt1(s, "de-CH", "greeting", "name", "Ada", 0, &r), "Hallo, Ada!");
    CHECK(r.fell_back && r.locale && !strcmp(r.locale, "de"));
    EXPECT(fmt1(s, "de-CH", "cart.items", "count", NULL, 1, &r), "ein Artikel");
    CHECK(r.plural && r.category == SDUI_PLURAL_ONE);
    EXPECT(fmt1(s, "de-AT", "only.en", NULL, NULL, 0, &r), "English");
    CHECK(r.fell_back && !r.missing && r.locale && !strcmp(r.locale, "en"));
    EXPECT(fmt1(s, "fr", "checkout.title", NULL, NULL, 0, &r), "Checkout");
    CHECK_EQ_STR(r.locale, "en");
    EXPECT(fmt1(s, "fr", "nowhere", NULL, NULL, 0, &r), "nowhere");
    CHECK(r.missing && r.locale == NULL);
    sdui_strings_free(s);

    /* The vectors file is a bundle ("topic" and "cases" are members of
     * other names): every case, as from the catalogs added one by one. */
    text = read_whole(VECTORS, &len);
    root = vectors();
    cases = json_object_get(root, "cases");
    CHECK_STATUS(sdui_strings_open_bundle(text, len, 0, &s, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_strings_locale_count(s), json_object_size(json_object_get(root, "catalogs")));
    json_array_foreach(cases, i, c)
        run_case(s, c, i, 1);
    sdui_strings_free(s);
    json_decref(root);
    free(text);

    /* No catalogs at all is a set of none. */
    CHECK_STATUS(open_bundle("{\"default\": \"pt-BR\", \"catalogs\": {}}", 0, &s, &err), SDUI_OK);
    CHECK_EQ_STR(sdui_strings_default_locale(s), "pt-BR");
    CHECK_EQ_INT(sdui_strings_locale_count(s), 0);
    sdui_strings_free(s);
    /* Lengths, not NULs: a bundle given by its first bytes. */
    {
        static const char more[] = "{\"default\": \"en\", \"catalogs\": {\"en\": {\"a\": \"b\"}}}xyz";
        CHECK_STATUS(sdui_strings_open_bundle(more, strlen(more) - 3, 0, &s, &err), SDUI_OK);
    }
    CHECK_STATUS(sdui_strings_format(s, "en", 2, "a", 1, NULL, 0, &out, &len, &r, &err), SDUI_OK);
    CHECK_EQ_STR(out, "b");
    sdui_free(out);
    sdui_strings_free(s);
    /* max_catalog_bytes bounds each catalog, not the bundle. */
    CHECK_STATUS(open_bundle("{\"default\": \"en\", \"catalogs\": {\"en\": {\"a\": \"xyz\"},"
                             " \"de\": {\"a\": \"xyz\"}}}",
                             12, &s, &err),
                 SDUI_OK);
    sdui_strings_free(s);
    /* NULL and zero bytes: no JSON. */
    s = (sdui_strings *)1;
    CHECK_STATUS(sdui_strings_open_bundle(NULL, 0, 0, &s, &err), SDUI_JSON);
    CHECK(s == NULL);
    /* Bad calls. */
    s = (sdui_strings *)1;
    CHECK_STATUS(sdui_strings_open_bundle(NULL, 5, 0, &s, &err), SDUI_ARGUMENT);
    CHECK(s == NULL);
    CHECK_MSG_HAS("json is NULL");
    CHECK_STATUS(sdui_strings_open_bundle(good, strlen(good), 0, NULL, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("out is NULL");
    /* No error record: the status alone. */
    CHECK_EQ_INT(sdui_strings_open_bundle("[]", 2, 0, &s, NULL), SDUI_SCHEMA);
    CHECK(s == NULL);
    CHECK_EQ_INT(sdui_strings_open_bundle("{\"default\": \"en\", \"catalogs\": {\"en\": 1}}", 40, 0, &s, NULL),
                 SDUI_SCHEMA);
    CHECK_EQ_INT(sdui_strings_open_bundle(good, strlen(good), 0, &s, NULL), SDUI_OK);
    sdui_strings_free(s);
}

/* An open of bundle json (catalogs of at most max bytes) that fails with
 * want: *out NULL, the message starting with prefix (NULL: any) and
 * holding each of the NULL-terminated needles, the offset at (-2: any)
 * and, with an offset, its line and column in the bundle. */
static void expect_bundle_error(const char *json, size_t max, sdui_status want, long long at, const char *prefix,
                                const char *const *needles, int line)
{
    sdui_strings *s = (sdui_strings *)1;
    sdui_error err;
    size_t i;
    sdui_status st = open_bundle(json, max, &s, &err);
    if (!CHECKF(st == want, "line %d: %s is %s, expected %s (%s)", line, json, sdui_status_name(st),
                sdui_status_name(want), err.message)) {
        if (st == SDUI_OK)
            sdui_strings_free(s);
        return;
    }
    CHECKF(s == NULL, "line %d: *out is not NULL", line);
    CHECKF(err.status == want, "line %d: err.status", line);
    if (prefix)
        CHECKF(strncmp(err.message, prefix, strlen(prefix)) == 0, "line %d: message \"%s\" does not start with \"%s\"",
               line, err.message, prefix);
    for (i = 0; needles && needles[i]; i++)
        CHECKF(strstr(err.message, needles[i]) != NULL, "line %d: message \"%s\" lacks \"%s\"", line, err.message,
               needles[i]);
    if (at != -2)
        CHECKF(err.offset == at, "line %d: offset %lld, expected %lld (%s)", line, err.offset, at, err.message);
    if (err.offset >= 0) {
        int l, c;
        sdui_json_position(json, strlen(json), (size_t)err.offset, &l, &c);
        CHECKF(err.line == l && err.column == c, "line %d: at %d:%d, expected %d:%d", line, err.line, err.column, l,
               c);
    }
}

/* expect_bundle_error with the needles inline. */
#define BERR(json, max, want, at, prefix, ...)                                                              \
    do {                                                                                                    \
        static const char *const n_[] = {__VA_ARGS__, NULL};                                                \
        expect_bundle_error(json, max, want, at, prefix, n_, __LINE__);                                     \
    } while (0)

static void test_bundle_errors(void)
{
    static const char unsound[] = "{\"default\": \"en\", \"catalogs\": {\"en\": {\"cart.items\": {\"one\": \"x\", "
                                  "\"other\": \"y\"}},\n \"de\": {\"a\": \"b\", \"cart.items\": {\"one\": \"x\"}}}}";
    static const char text_error[] = "{\"default\": \"en\",\n \"catalogs\": {\n  \"de\": {\"a\": {\"other\": \"x\", "
                                     "\"few\": \"{count\"}}}}";
    static const char deep[] = "{\"default\": \"en\", \"catalogs\": {\"de\": {\"a\": [[[[[[[[[[1]]]]]]]]]]}}}";
    static const char shape_then_json[] = "{\"default\": 5, \"catalogs\": {\"de\": {\"a\": }}}";
    str t = {0};
    int i;

    /* Not JSON: the scanner's error at its byte, whatever else is wrong
     * before it. */
    BERR("", 0, SDUI_JSON, 0, NULL, "");
    BERR("{\"default\": \"en\", \"catalogs\": {}", 0, SDUI_JSON, 32, NULL, "");
    BERR("{\"default\": \"en\", \"catalogs\": {\"de\": {\"a\": }}}", 0, SDUI_JSON, 43, NULL, "");
    BERR(shape_then_json, 0, SDUI_JSON, pos(shape_then_json, "}}}"), NULL, "");
    BERR("[1, ]", 0, SDUI_JSON, 4, NULL, "");
    BERR("{\"default\": \"en\", \"catalogs\": {\"de\": {\"a\": \"\xff\"}}}", 0, SDUI_JSON, -2, NULL, "");
    /* Not an object. */
    BERR("[]", 0, SDUI_SCHEMA, 0, "$ (byte 0): ", "an array, not an object");
    BERR("\"en\"", 0, SDUI_SCHEMA, 0, "$ (byte 0): ", "a string, not an object");
    BERR(" 3", 0, SDUI_SCHEMA, 1, "$ (byte 1): ", "a number, not an object");
    /* "default". */
    BERR("{\"catalogs\": {}}", 0, SDUI_SCHEMA, 0, "$ (byte 0): ", "no \"default\"");
    BERR("{\"default\": 5, \"catalogs\": {}}", 0, SDUI_SCHEMA, 12, "$.default (byte 12): ",
         "a number, not a locale tag");
    BERR("{\"default\": null, \"catalogs\": {}}", 0, SDUI_SCHEMA, 12, "$.default (byte 12): ", "null");
    BERR("{\"default\": [\"en\"], \"catalogs\": {}}", 0, SDUI_SCHEMA, 12, "$.default (byte 12): ", "an array");
    BERR("{\"catalogs\": {}, \"default\": {\"tag\": \"en\"}}", 0, SDUI_SCHEMA, 28, "$.default (byte 28): ",
         "an object");
    BERR("{\"default\": \"e\", \"catalogs\": {}}", 0, SDUI_SCHEMA, 13, "$.default (byte 13): ",
         "locale tag \"e\" is not a tag");
    BERR("{\"default\": \"\", \"catalogs\": {}}", 0, SDUI_SCHEMA, 13, "$.default (byte 13): ", "an empty tag");
    BERR("{\"default\": \"en_US.UTF-8\", \"catalogs\": {}}", 0, SDUI_SCHEMA, 18, "$.default (byte 18): ",
         "a character outside [A-Za-z0-9]");
    BERR("{\"default\": \"\\u0065n\", \"catalogs\": {}}", 0, SDUI_SCHEMA, 12, "$.default (byte 12): ", "escapes");
    BERR("{\"default\": \"en\", \"default\": \"de\", \"catalogs\": {}}", 0, SDUI_SCHEMA, 18, "$.default (byte 18): ",
         "given twice");
    /* "catalogs". */
    BERR("{\"default\": \"en\"}", 0, SDUI_SCHEMA, 0, "$ (byte 0): ", "no \"catalogs\"");
    BERR("{\"default\": \"en\", \"catalogs\": [{\"en\": {}}]}", 0, SDUI_SCHEMA, 30, "$.catalogs (byte 30): ",
         "an array, not an object");
    BERR("{\"default\": \"en\", \"catalogs\": \"en\"}", 0, SDUI_SCHEMA, 30, "$.catalogs (byte 30): ", "a string");
    BERR("{\"default\": \"en\", \"catalogs\": null}", 0, SDUI_SCHEMA, 30, "$.catalogs (byte 30): ", "null");
    BERR("{\"default\": \"en\", \"catalogs\": {}, \"catalogs\": {}}", 0, SDUI_SCHEMA, 34, "$.catalogs (byte 34): ",
         "given twice");
    /* An escaped name is the member all the same. */
    BERR("{\"default\": \"en\", \"catalog\\u0073\": 1}", 0, SDUI_SCHEMA, 35, "$.catalogs (byte 35): ", "a number");
    /* A catalog that is not sound: the bundle's path, the entry and the
     * byte in the bundle. */
    BERR(unsound, 0, SDUI_SCHEMA, pos(unsound, "{\"one\": \"x\"}}}}"), "$.catalogs[\"de\"][\"cart.items\"] (byte ",
         "\"other\"");
    BERR(text_error, 0, SDUI_SCHEMA, pos(text_error, "\"{count"), "$.catalogs[\"de\"][\"a\"].few (byte ",
         "never closed");
    BERR("{\"default\": \"en\", \"catalogs\": {\"de\": \"Hallo\"}}", 0, SDUI_SCHEMA, 37,
         "$.catalogs[\"de\"] (byte 37): ", "a string, not an object");
    BERR("{\"default\": \"en\", \"catalogs\": {\"de\": {\"a b\": \"x\"}}}", 0, SDUI_SCHEMA, 38,
         "$.catalogs[\"de\"][\"a b\"] (byte 38): ", "");
    BERR("{\"default\": \"en\", \"catalogs\": {\"de\": {\"a\": \"y\", \"a\": \"x\"}}}", 0, SDUI_SCHEMA, 48,
         "$.catalogs[\"de\"][\"a\"] (byte 48): ", "twice");
    /* Nested too deep for a catalog: its own check names the entry. */
    BERR(deep, 0, SDUI_SCHEMA, pos(deep, "[["), "$.catalogs[\"de\"][\"a\"] (byte ", "an array");
    /* Past max_catalog_bytes: at the catalog's start. */
    BERR("{\"default\": \"en\", \"catalogs\": {\"de\": {\"a\": \"xy\"}, \"en\": {\"a\": \"wxyz\"}}}", 12,
         SDUI_LIMIT, 56, "$.catalogs[\"en\"] (byte 56): ", "13 bytes of JSON, more than the limit of 12");
    /* Keys of "catalogs" that are no locale tag, at the byte where they
     * stop being one. */
    BERR("{\"default\": \"en\", \"catalogs\": {\"e\": {}}}", 0, SDUI_SCHEMA, 32, "$.catalogs[\"e\"] (byte 32): ",
         "not a tag");
    BERR("{\"default\": \"en\", \"catalogs\": {\"de-\": {}}}", 0, SDUI_SCHEMA, 35, "$.catalogs[\"de-\"] (byte 35): ",
         "an empty subtag");
    BERR("{\"default\": \"en\", \"catalogs\": {\"\\u0064e\": {}}}", 0, SDUI_SCHEMA, 31, "$.catalogs (byte 31): ",
         "escapes");
    /* One locale twice, however its tag is written. */
    BERR("{\"default\": \"en\", \"catalogs\": {\"de\": {}, \"de\": {}}}", 0, SDUI_SCHEMA, 41,
         "$.catalogs[\"de\"] (byte 41): ", "the locale de is given twice");
    BERR("{\"default\": \"en\", \"catalogs\": {\"de\": {}, \"fr\": {}, \"DE\": {}}}", 0, SDUI_SCHEMA, 51,
         "$.catalogs[\"DE\"] (byte 51): ", "the locale de is given twice", "\"de\" at byte 31");
    BERR("{\"default\": \"en\", \"catalogs\": {\"de-CH\": {}, \"de_ch\": {}}}", 0, SDUI_SCHEMA, 44,
         "$.catalogs[\"de_ch\"] (byte 44): ", "de-CH is given twice");

    /* 256 catalogs, and 257: SDUI_LIMIT at the 257th key. */
    sadd(&t, "{\"default\": \"en\", \"catalogs\": {");
    for (i = 0; i < 256; i++)
        sadd(&t, "%s\"%c%c%c\": {\"a\": \"x\"}", i ? ", " : "", 'a' + i / 26 % 26, 'a' + i % 26, 'a' + (i * 7) % 26);
    sadd(&t, "}}");
    {
        sdui_strings *s = NULL;
        sdui_error err;
        CHECK_STATUS(open_bundle(t.b, 0, &s, &err), SDUI_OK);
        CHECK_EQ_INT(sdui_strings_locale_count(s), 256);
        sdui_strings_free(s);
    }
    t.n -= 2;
    {
        long long at = (long long)t.n + 2;
        sadd(&t, ", \"zz\": {}}}");
        BERR(t.b, 0, SDUI_LIMIT, at, "$.catalogs (byte ", "more than 256 catalogs");
    }
    free(t.b);
}

/* ---- the check -------------------------------------------------------- */

/* Findings as "kind locale key", one a line, and their messages. */
typedef struct findings {
    str lines, messages;
    int stop_after; /* stop at this many (0: never) */
    int count;
} findings;

/* Records a finding (the check's callback). */
static int collect(void *ctx, const sdui_strings_finding *f)
{
    findings *fs = ctx;
    CHECK(f->message && f->key);
    sadd(&fs->lines, "%s %s %s\n", sdui_strings_finding_name(f->kind), f->locale ? f->locale : "-", f->key);
    sadd(&fs->messages, "%s\n", f->message);
    fs->count++;
    return fs->stop_after && fs->count >= fs->stop_after;
}

static void test_check(void)
{
    static const char *const used[] = {"a", "plural", "never.defined", "a", "args", "zz.undefined"};
    size_t used_lens[6];
    sdui_strings *s = NULL;
    findings fs;
    sdui_error err;
    size_t i;
    for (i = 0; i < 6; i++)
        used_lens[i] = strlen(used[i]);
    CHECK_STATUS(sdui_strings_new("en", 2, 0, &s, &err), SDUI_OK);
    CHECK_STATUS(add(s, "en",
                     "{\"a\": \"A\", \"b\": \"B\", \"args\": \"{name} has {count}\","
                     " \"plural\": {\"one\": \"{count} thing\", \"other\": \"{count} things\"},"
                     " \"unused.key\": \"U\"}",
                     &err),
                 SDUI_OK);
    /* de has everything but b; its args text names {name} and {extra}. */
    CHECK_STATUS(add(s, "de",
                     "{\"a\": \"A\", \"args\": \"{name} {extra} {name}\", \"unused.key\": \"U\","
                     " \"plural\": {\"one\": \"{count} Ding\", \"other\": \"{count} Dinge\"}}",
                     &err),
                 SDUI_OK);
    /* de-CH has nothing of its own: its chain (de) lacks b. */
    CHECK_STATUS(add(s, "de-CH", "{}", &err), SDUI_OK);
    /* pl lacks few and many (an exact form does not stand in), and has
     * an orphan; its args text is a plural whose forms together name the
     * same arguments. */
    CHECK_STATUS(add(s, "pl",
                     "{\"a\": \"A\", \"b\": \"B\", \"unused.key\": \"U\", \"old.key\": \"O\","
                     " \"args\": {\"one\": \"{name}\", \"other\": \"{count}\"},"
                     " \"plural\": {\"=2\": \"dwie\", \"one\": \"{count} rzecz\", \"other\": \"{count} rzeczy\"}}",
                     &err),
                 SDUI_OK);
    /* en-GB's chain reaches en: nothing missing. */
    CHECK_STATUS(add(s, "en-GB", "{\"a\": \"A\"}", &err), SDUI_OK);

    memset(&fs, 0, sizeof fs);
    CHECK_STATUS(sdui_strings_check(s, used, used_lens, 6, collect, &fs, &err), SDUI_OK);
    CHECK_EQ_STR(fs.lines.b,
                 "missing de b\n"
                 "missing de-CH b\n"
                 "unused - b\n"
                 "unused - old.key\n"
                 "unused - unused.key\n"
                 "undefined - never.defined\n"
                 "undefined - zz.undefined\n"
                 "arguments de args\n"
                 "plural pl args\n"
                 "plural pl plural\n"
                 "orphan pl old.key\n");
    CHECK_EQ_STR(fs.messages.b,
                 "de lacks 'b': no catalog of its chain (de) has it, so en's text is shown\n"
                 "de-CH lacks 'b': no catalog of its chain (de-CH, de) has it, so en's text is shown\n"
                 "'b' is in a catalog but no screen, block or flow uses it\n"
                 "'old.key' is in a catalog but no screen, block or flow uses it\n"
                 "'unused.key' is in a catalog but no screen, block or flow uses it\n"
                 "'never.defined' is used but no catalog has it\n"
                 "'zz.undefined' is used but no catalog has it\n"
                 "de's text of 'args' lacks {count}, which en's text has, and names {extra}, which en's text "
                 "does not\n"
                 "pl's 'args' lacks the forms 'few' (e.g. 2, 3, 4) and 'many' (e.g. 0, 5, 6) that pl's plural "
                 "rules select; \"other\" is shown instead\n"
                 "pl's 'plural' lacks the forms 'few' (e.g. 2, 3, 4) and 'many' (e.g. 0, 5, 6) that pl's plural "
                 "rules select; \"other\" is shown instead\n"
                 "pl has 'old.key', which the default locale (en) lacks\n");
    free(fs.lines.b);
    free(fs.messages.b);

    /* Without used keys: neither unused nor undefined. */
    memset(&fs, 0, sizeof fs);
    CHECK_STATUS(sdui_strings_check(s, NULL, NULL, 0, collect, &fs, &err), SDUI_OK);
    CHECK_EQ_STR(fs.lines.b,
                 "missing de b\n"
                 "missing de-CH b\n"
                 "arguments de args\n"
                 "plural pl args\n"
                 "plural pl plural\n"
                 "orphan pl old.key\n");
    free(fs.lines.b);
    free(fs.messages.b);

    /* A callback that says stop is not called again. */
    memset(&fs, 0, sizeof fs);
    fs.stop_after = 3;
    CHECK_STATUS(sdui_strings_check(s, used, used_lens, 6, collect, &fs, &err), SDUI_OK);
    CHECK_EQ_INT(fs.count, 3);
    free(fs.lines.b);
    free(fs.messages.b);

    /* Bad calls. */
    CHECK_STATUS(sdui_strings_check(NULL, NULL, NULL, 0, collect, &fs, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_check(s, NULL, NULL, 0, NULL, &fs, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_check(s, NULL, used_lens, 2, collect, &fs, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_strings_check(s, used, NULL, 2, collect, &fs, &err), SDUI_ARGUMENT);
    sdui_strings_free(s);

    /* A default chain of two catalogs: en-US's own text and en's count as
     * the default's; a locale whose text differs from en-US's is told so. */
    CHECK_STATUS(sdui_strings_new("en-US", 5, 0, &s, &err), SDUI_OK);
    CHECK_STATUS(add(s, "en", "{\"a\": \"{x}\", \"b\": \"B\"}", &err), SDUI_OK);
    CHECK_STATUS(add(s, "en-US", "{\"a\": \"{y}\"}", &err), SDUI_OK);
    CHECK_STATUS(add(s, "fr", "{\"b\": \"B\"}", &err), SDUI_OK);
    memset(&fs, 0, sizeof fs);
    CHECK_STATUS(sdui_strings_check(s, NULL, NULL, 0, collect, &fs, &err), SDUI_OK);
    CHECK_EQ_STR(fs.lines.b,
                 "missing fr a\n"
                 "arguments en a\n");
    CHECK(strstr(fs.messages.b, "fr lacks 'a': no catalog of its chain (fr) has it, so en-US's text is shown"));
    CHECK(strstr(fs.messages.b, "en's text of 'a' lacks {y}, which en-US's text has, and names {x}"));
    free(fs.lines.b);
    free(fs.messages.b);
    sdui_strings_free(s);
}

/* ---- every allocation failure ------------------------------------------ */

/* A counting allocator that fails exactly the fail_at-th allocation. */
static struct {
    long count, fail_at, live;
    int failed;
} fa;

/* malloc that fails the fail_at-th call. */
static void *fa_malloc(void *ctx, size_t size)
{
    void *q;
    (void)ctx;
    if (++fa.count == fa.fail_at) {
        fa.failed = 1;
        return NULL;
    }
    q = malloc(size ? size : 1);
    if (q)
        fa.live++;
    return q;
}

/* realloc that counts as an allocation and can fail the same way. */
static void *fa_realloc(void *ctx, void *ptr, size_t size)
{
    void *q;
    (void)ctx;
    if (++fa.count == fa.fail_at) {
        fa.failed = 1;
        return NULL;
    }
    q = realloc(ptr, size ? size : 1);
    if (q && !ptr)
        fa.live++;
    return q;
}

/* free that keeps the live count. */
static void fa_free(void *ctx, void *ptr)
{
    (void)ctx;
    if (ptr) {
        fa.live--;
        free(ptr);
    }
}

/* Counts findings (a check's callback). */
static int count_finding(void *ctx, const sdui_strings_finding *f)
{
    (void)f;
    (*(int *)ctx)++;
    return 0;
}

/* One whole use of a set: new, two adds (one replacing), lookups, a
 * check.  Returns the first status that is not SDUI_OK, having freed
 * everything. */
static sdui_status one_use(int *findings_seen)
{
    static const char *const used[] = {"b", "nope", "a"};
    static const size_t used_lens[] = {1, 4, 1};
    sdui_strings *s = NULL;
    sdui_strings_arg a = {"count", 5, 1, 1234.5, NULL, 0};
    sdui_strings_result r;
    sdui_error err;
    sdui_status st;
    char *out = NULL;
    size_t len;
    st = sdui_strings_new("en", 2, 0, &s, &err);
    if (st != SDUI_OK)
        return err.status == st ? st : SDUI_CORRUPT;
    st = add(s, "en", "{\"a\": \"x\", \"b\": {\"one\": \"{count} b\", \"=0\": \"none\", \"other\": \"{count} bs\"}}",
             &err);
    if (st == SDUI_OK)
        st = add(s, "de", "{\"a\": \"{y}\", \"b\": {\"one\": \"{count} B\", \"other\": \"{count} Bs\"}, \"c\": \"z\"}",
                 &err);
    if (st == SDUI_OK)
        st = add(s, "pl", "{\"b\": {\"one\": \"{count}\", \"other\": \"{count}\"}}", &err);
    if (st == SDUI_OK)
        st = add(s, "de", "{\"a\": \"{y}\", \"b\": {\"one\": \"{count} B\", \"other\": \"{count} Bs\"}, \"c\": \"z\"}",
                 &err);
    if (st == SDUI_OK) {
        st = sdui_strings_format(s, "de-CH", 5, "b", 1, &a, 1, &out, &len, &r, &err);
        if (st == SDUI_OK && strcmp(out, "1.234,5 Bs") != 0)
            st = SDUI_CORRUPT;
        sdui_free(out);
    }
    if (st == SDUI_OK) {
        st = sdui_strings_format(s, "ja", 2, "missing", 7, NULL, 0, &out, &len, &r, &err);
        sdui_free(out);
    }
    if (st == SDUI_OK) {
        *findings_seen = 0;
        st = sdui_strings_check(s, used, used_lens, 3, count_finding, findings_seen, &err);
    }
    if (st != SDUI_OK && err.status != st)
        st = SDUI_CORRUPT;
    sdui_strings_free(s);
    return st;
}

/* One whole use of a bundle: open it (three catalogs and a member of
 * another name), look up along the chain, check.  Returns the first
 * status that is not SDUI_OK, having freed everything. */
static sdui_status bundle_use(int *findings_seen)
{
    static const char bundle[] =
        "{\"locale\": \"de-CH\", \"default\": \"en\", \"catalogs\": {"
        "\"en\": {\"a\": \"x\", \"b\": {\"one\": \"{count} b\", \"=0\": \"none\", \"other\": \"{count} bs\"}},"
        " \"de\": {\"a\": \"{y}\", \"b\": {\"one\": \"{count} B\", \"other\": \"{count} Bs\"}, \"c\": \"z\"},"
        " \"de_CH\": {\"c\": \"CH\"}, \"pl\": {\"b\": {\"one\": \"{count}\", \"other\": \"{count}\"}}}}";
    static const char *const used[] = {"b", "nope", "a"};
    static const size_t used_lens[] = {1, 4, 1};
    sdui_strings *s = NULL;
    sdui_strings_arg a = {"count", 5, 1, 1234.5, NULL, 0};
    sdui_strings_result r;
    sdui_error err;
    sdui_status st;
    char *out = NULL;
    size_t len;
    st = open_bundle(bundle, 0, &s, &err);
    if (st != SDUI_OK)
        return err.status == st && s == NULL ? st : SDUI_CORRUPT;
    st = sdui_strings_format(s, "de-CH", 5, "b", 1, &a, 1, &out, &len, &r, &err);
    if (st == SDUI_OK && strcmp(out, "1.234,5 Bs") != 0)
        st = SDUI_CORRUPT;
    sdui_free(out);
    if (st == SDUI_OK) {
        st = sdui_strings_format(s, "de-CH", 5, "c", 1, NULL, 0, &out, &len, &r, &err);
        if (st == SDUI_OK && strcmp(out, "CH") != 0)
            st = SDUI_CORRUPT;
        sdui_free(out);
    }
    if (st == SDUI_OK) {
        *findings_seen = 0;
        st = sdui_strings_check(s, used, used_lens, 3, count_finding, findings_seen, &err);
    }
    if (st != SDUI_OK && err.status != st)
        st = SDUI_CORRUPT;
    sdui_strings_free(s);
    return st;
}

/* An open of a bundle whose last catalog is not sound: SDUI_SCHEMA once
 * every allocation before it succeeds. */
static sdui_status bad_bundle_use(int *findings_seen)
{
    static const char bundle[] =
        "{\"default\": \"en\", \"catalogs\": {\"en\": {\"a\": \"x\", \"b\": \"y\"}, \"de\": {\"a\": \"x\"},"
        " \"fr\": {\"a\": {\"one\": \"x\"}}}}";
    sdui_strings *s = (sdui_strings *)1;
    sdui_error err;
    sdui_status st = open_bundle(bundle, 0, &s, &err);
    *findings_seen = 1;
    if (s != NULL || err.status != st)
        return SDUI_CORRUPT;
    if (st == SDUI_SCHEMA && strncmp(err.message, "$.catalogs[\"fr\"][\"a\"] (byte ", 28) != 0)
        return SDUI_CORRUPT;
    return st;
}

/* Runs use with its n-th allocation failing, for n = 1, 2, ... until a
 * run fails none: each failed run answers SDUI_OOM and leaks nothing, and
 * the last gives what a run with no failure gives. */
static void every_allocation_failure(sdui_status (*use)(int *), const char *what)
{
    sdui_allocator a = {fa_malloc, fa_realloc, fa_free, NULL};
    int want = 0, seen = 0, bad = 0;
    long n;
    sdui_status st, want_st = use(&want);
    CHECKF(want_st != SDUI_CORRUPT && want_st != SDUI_OOM, "%s: %s", what, sdui_status_name(want_st));
    CHECK(want > 0);
    sdui_set_allocator(&a);
    for (n = 1; n < 100000; n++) {
        fa.count = 0;
        fa.fail_at = n;
        fa.failed = 0;
        fa.live = 0;
        st = use(&seen);
        if (fa.live != 0 && bad++ < 5)
            CHECKF(0, "%s, failing allocation %ld: %ld blocks leaked", what, n, fa.live);
        if (fa.failed && st != SDUI_OOM && bad++ < 5)
            CHECKF(0, "%s, failing allocation %ld: %s, expected oom", what, n, sdui_status_name(st));
        if (!fa.failed) {
            CHECK_EQ_INT(st, want_st);
            CHECK_EQ_INT(seen, want);
            break;
        }
    }
    sdui_set_allocator(NULL);
    CHECKF(n > 5 && n < 100000, "%s: %ld allocations in one use", what, n - 1);
    CHECK_EQ_INT(bad, 0);
}

static void test_allocation_failures(void)
{
    int seen = 0;
    CHECK_EQ_INT(one_use(&seen), SDUI_OK);
    CHECK_EQ_INT(bundle_use(&seen), SDUI_OK);
    CHECK_EQ_INT(bad_bundle_use(&seen), SDUI_SCHEMA);
    every_allocation_failure(one_use, "a set");
    every_allocation_failure(bundle_use, "a bundle");
    every_allocation_failure(bad_bundle_use, "a bundle with an unsound catalog");
}

/* ---- threads ---------------------------------------------------------- */

#define THREADS 8
#define ROUNDS 40

/* What each thread reads. */
typedef struct job {
    const sdui_strings *s;
    json_t *cases;
    int failures;
} job;

/* Runs every case ROUNDS times, counting the ones that differ. */
static void *worker(void *arg)
{
    job *j = arg;
    size_t i;
    json_t *c;
    int round;
    for (round = 0; round < ROUNDS; round++)
        json_array_foreach(j->cases, i, c)
            if (!run_case(j->s, c, i, 0))
                j->failures++;
    return NULL;
}

static void test_threads(void)
{
    json_t *root = vectors();
    sdui_strings *s = vector_set(root);
    pthread_t t[THREADS];
    job jobs[THREADS];
    int i, failures = 0;
    for (i = 0; i < THREADS; i++) {
        jobs[i].s = s;
        jobs[i].cases = json_object_get(root, "cases");
        jobs[i].failures = 0;
        CHECK(pthread_create(&t[i], NULL, worker, &jobs[i]) == 0);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        failures += jobs[i].failures;
    }
    CHECK_EQ_INT(failures, 0);
    sdui_strings_free(s);
    json_decref(root);
}

/* The kinds' names. */
static void test_names(void)
{
    CHECK_EQ_STR(sdui_strings_finding_name(SDUI_STRINGS_MISSING), "missing");
    CHECK_EQ_STR(sdui_strings_finding_name(SDUI_STRINGS_UNUSED), "unused");
    CHECK_EQ_STR(sdui_strings_finding_name(SDUI_STRINGS_UNDEFINED), "undefined");
    CHECK_EQ_STR(sdui_strings_finding_name(SDUI_STRINGS_ARGUMENTS), "arguments");
    CHECK_EQ_STR(sdui_strings_finding_name(SDUI_STRINGS_PLURAL), "plural");
    CHECK_EQ_STR(sdui_strings_finding_name(SDUI_STRINGS_ORPHAN), "orphan");
    CHECK_EQ_STR(sdui_strings_finding_name((sdui_strings_finding_kind)99), "unknown");
}

int main(void)
{
    json_object_seed(1);
    test_vectors();
    test_result_fields();
    test_add_errors();
    test_limits();
    test_set();
    test_bundle();
    test_bundle_errors();
    test_check();
    test_allocation_failures();
    test_threads();
    test_names();
    return check_summary();
}
