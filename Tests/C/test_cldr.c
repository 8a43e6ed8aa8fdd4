/*
 * test_cldr.c - locales (include/sdui/locale.h): every case of the
 * published vectors in Tests/LocaleVectors (plural.json, numbers.json,
 * percent.json, currency.json, chain.json; or the directory named by
 * SDUI_LOCALE_VECTORS), which scripts/gen-locale-vectors.py wrote from
 * Babel, through the C API and through the expression functions (plural(),
 * format_number(), format_percent(), format_currency()); and what the
 * vectors cannot show:
 *   - the tables: every locale canonical, sorted, its own data locale; its
 *     category masks hold other and every category the vectors give it;
 *   - tags: canonical forms, the message and byte of each kind of bad tag,
 *     the longest chain within SDUI_LOCALE_CHAIN_MAX;
 *   - plurals of numbers past 64 bits, of exponents, bad number texts;
 *   - formats: a buffer too small (SDUI_LIMIT, with the length needed and
 *     an empty buffer), NaN and the infinities, more than 20 digits, bad
 *     currency codes, the largest double in every locale and format
 *     within SDUI_LOCALE_TEXT_MAX;
 *   - the same answers from four threads at once.
 * The Makefile also builds this program to run whole under de_DE.UTF-8
 * (LOCALE_TESTS), whose decimal point is a comma: nothing here may follow
 * the host's C locale.
 */
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The vectors file name, read with the tests' reference parser. */
static json_t *vectors(const char *name)
{
    const char *dir = getenv("SDUI_LOCALE_VECTORS");
    char path[1024];
    json_error_t e;
    json_t *root;
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "Tests/LocaleVectors", name);
    root = json_load_file(path, 0, &e);
    if (!root) {
        fprintf(stderr, "cannot read %s: %s (line %d)\n", path, e.text, e.line);
        exit(1);
    }
    return root;
}

/* A member's string, "" when absent. */
static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* Evaluates src (no data) into a JSON text *json (the caller frees it with
 * sdui_free); the status. */
static sdui_status eval(const char *src, char **json, sdui_error *err)
{
    sdui_expr *prog = NULL;
    sdui_status st = sdui_expr_compile(src, strlen(src), &prog, err);
    *json = NULL;
    if (st == SDUI_OK)
        st = sdui_expr_eval_json(prog, NULL, NULL, json, NULL, err);
    sdui_expr_free(prog);
    return st;
}

/* Checks that the expression src gives the string want. */
static void check_expr_string(const char *src, const char *want, const char *where)
{
    sdui_error err;
    char *json = NULL;
    sdui_status st = eval(src, &json, &err);
    json_t *got = st == SDUI_OK ? json_loads(json, JSON_DECODE_ANY, NULL) : NULL;
    CHECKF(got && json_is_string(got) && strcmp(json_string_value(got), want) == 0,
           "%s: `%s` gave %s, expected \"%s\"", where, src, st == SDUI_OK ? json : err.message, want);
    json_decref(got);
    sdui_free(json);
}

/* ---------- the vectors ---------- */

/* Mask of the categories each table locale's vectors give (cardinal,
 * ordinal), checked against sdui_locale_plural_categories. */
static unsigned seen_masks[256][2];

/* Index of a table locale, or -1. */
static int table_index(const char *tag)
{
    size_t i;
    for (i = 0; i < sdui_locale_count(); i++)
        if (strcmp(sdui_locale_at(i), tag) == 0)
            return (int)i;
    return -1;
}

static void test_plural_vectors(void)
{
    json_t *root = vectors("plural.json"), *c;
    size_t i;
    CHECK_EQ_STR(str(root, "topic"), "plural");
    CHECK_EQ_STR(str(root, "cldr"), sdui_locale_cldr_version());
    json_array_foreach(json_object_get(root, "cases"), i, c) {
        const char *loc = str(c, "locale"), *num = str(c, "number"), *want = str(c, "category");
        int ordinal = json_is_true(json_object_get(c, "ordinal")), idx = table_index(loc);
        sdui_plural got = SDUI_PLURAL_ZERO, w;
        sdui_error err;
        char src[256];
        CHECKF(sdui_plural_from_name(want, strlen(want), &w), "plural case %zu: category %s", i, want);
        CHECK_STATUS(sdui_locale_plural(loc, strlen(loc), num, strlen(num), ordinal, &got, &err), SDUI_OK);
        CHECKF(got == w, "plural case %zu: %s %s%s is %s, expected %s", i, loc, num, ordinal ? " (ordinal)" : "",
               sdui_plural_name(got), want);
        if (idx >= 0 && idx < 256)
            seen_masks[idx][ordinal] |= 1u << w;
        snprintf(src, sizeof src, ordinal ? "plural('%s', '%s', 'ordinal')" : "plural('%s', '%s')", num, loc);
        check_expr_string(src, want, "plural vector");
        if (!ordinal) {
            snprintf(src, sizeof src, "plural('%s', '%s', 'cardinal')", num, loc);
            check_expr_string(src, want, "plural vector, cardinal named");
        }
    }
    printf("plural: %zu cases\n", json_array_size(json_object_get(root, "cases")));
    json_decref(root);
}

/* The number x as an expression's literal (the core's own text, so the
 * expression reads the same double; a leading '-' is the unary minus). */
static const char *literal(double x, char buf[SDUI_NUMBER_TEXT_MAX])
{
    sdui_number_text(x, buf);
    return buf;
}

/* Runs one format case: the API with room, with one byte too few (LIMIT,
 * the length needed, an empty buffer), and the expression src. */
static void check_format(const char *where, sdui_status (*call)(const void *, char *, size_t, size_t *, sdui_error *),
                         const void *args, const char *want, const char *src)
{
    char buf[SDUI_LOCALE_TEXT_MAX], small[SDUI_LOCALE_TEXT_MAX];
    size_t n = 12345, m = 0, wl = strlen(want);
    sdui_error err;
    CHECK_STATUS(call(args, buf, sizeof buf, &n, &err), SDUI_OK);
    CHECKF(strcmp(buf, want) == 0 && n == wl, "%s: \"%s\", expected \"%s\"", where, buf, want);
    if (wl > 0 && wl < sizeof small) {
        memset(small, 'x', sizeof small);
        CHECK_STATUS(call(args, small, wl, &m, &err), SDUI_LIMIT);
        CHECKF(m == wl && small[0] == 0, "%s: with %zu bytes: %zu, \"%.10s\"", where, wl, m, small);
        CHECK_STATUS(call(args, small, wl + 1, &m, &err), SDUI_OK);
        CHECKF(m == wl && strcmp(small, want) == 0, "%s: with %zu bytes", where, wl + 1);
    }
    check_expr_string(src, want, where);
}

/* The arguments of one format case. */
typedef struct fargs {
    const char *locale, *code;
    double x;
    int digits;
} fargs;

/* sdui_locale_format_number of a case. */
static sdui_status call_number(const void *p, char *buf, size_t cap, size_t *n, sdui_error *err)
{
    const fargs *a = p;
    return sdui_locale_format_number(a->locale, strlen(a->locale), a->x, a->digits, buf, cap, n, err);
}

/* sdui_locale_format_percent of a case. */
static sdui_status call_percent(const void *p, char *buf, size_t cap, size_t *n, sdui_error *err)
{
    const fargs *a = p;
    return sdui_locale_format_percent(a->locale, strlen(a->locale), a->x, buf, cap, n, err);
}

/* sdui_locale_format_currency of a case. */
static sdui_status call_currency(const void *p, char *buf, size_t cap, size_t *n, sdui_error *err)
{
    const fargs *a = p;
    return sdui_locale_format_currency(a->locale, strlen(a->locale), a->x, a->code, strlen(a->code), buf, cap, n,
                                       err);
}

static void test_format_vectors(const char *file, const char *topic)
{
    json_t *root = vectors(file), *c;
    size_t i;
    CHECK_EQ_STR(str(root, "topic"), topic);
    json_array_foreach(json_object_get(root, "cases"), i, c) {
        fargs a;
        char where[128], src[512], lit[SDUI_NUMBER_TEXT_MAX];
        json_t *d = json_object_get(c, "digits");
        a.locale = str(c, "locale");
        a.code = str(c, "code");
        a.x = json_number_value(json_object_get(c, "x"));
        a.digits = json_is_integer(d) ? (int)json_integer_value(d) : -1;
        snprintf(where, sizeof where, "%s case %zu (%s)", file, i, a.locale);
        literal(a.x, lit);
        if (!strcmp(topic, "numbers")) {
            if (a.digits >= 0)
                snprintf(src, sizeof src, "format_number(%s, '%s', %d)", lit, a.locale, a.digits);
            else
                snprintf(src, sizeof src, "format_number(%s, '%s')", lit, a.locale);
            check_format(where, call_number, &a, str(c, "expect"), src);
        } else if (!strcmp(topic, "percent")) {
            snprintf(src, sizeof src, "format_percent(%s, '%s')", lit, a.locale);
            check_format(where, call_percent, &a, str(c, "expect"), src);
        } else {
            snprintf(src, sizeof src, "format_currency(%s, '%s', '%s')", lit, a.code, a.locale);
            check_format(where, call_currency, &a, str(c, "expect"), src);
        }
    }
    printf("%s: %zu cases\n", topic, json_array_size(json_object_get(root, "cases")));
    json_decref(root);
}

static void test_chain_vectors(void)
{
    json_t *root = vectors("chain.json"), *c;
    size_t i;
    CHECK_EQ_STR(str(root, "topic"), "chain");
    json_array_foreach(json_object_get(root, "cases"), i, c) {
        const char *loc = str(c, "locale");
        size_t len = strlen(loc), n = 99, k;
        char out[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX], canon[SDUI_LOCALE_TAG_MAX], again[SDUI_LOCALE_TAG_MAX];
        sdui_error err;
        if (json_is_true(json_object_get(c, "error"))) {
            CHECK_STATUS(sdui_locale_chain(loc, len, out, &n, &err), SDUI_ARGUMENT);
            CHECKF(n == 0, "chain case %zu: count %zu", i, n);
            CHECK_STATUS(sdui_locale_canonical(loc, len, canon, &err), SDUI_ARGUMENT);
            CHECKF(canon[0] == 0 && err.offset >= 0 && (size_t)err.offset <= len,
                   "chain case %zu (\"%s\"): offset %lld", i, loc, err.offset);
            CHECK_EQ_STR(sdui_locale_data_locale(loc, len), "root");
            CHECK(sdui_locale_direction(loc, len) == SDUI_DIRECTION_LTR);
            CHECK(sdui_locale_plural_categories(loc, len, 0) == 1u << SDUI_PLURAL_OTHER);
            continue;
        }
        CHECK_STATUS(sdui_locale_chain(loc, len, out, &n, &err), SDUI_OK);
        json_t *want = json_object_get(c, "chain");
        CHECKF(n == json_array_size(want), "chain case %zu (%s): %zu entries, expected %zu", i, loc, n,
               json_array_size(want));
        for (k = 0; k < n && k < json_array_size(want); k++)
            CHECKF(strcmp(out[k], json_string_value(json_array_get(want, k))) == 0,
                   "chain case %zu (%s): entry %zu is %s, expected %s", i, loc, k, out[k],
                   json_string_value(json_array_get(want, k)));
        CHECK_STATUS(sdui_locale_canonical(loc, len, canon, &err), SDUI_OK);
        CHECK_EQ_STR(canon, out[0]);
        CHECK_STATUS(sdui_locale_canonical(canon, strlen(canon), again, &err), SDUI_OK);
        CHECK_EQ_STR(again, canon);
        CHECKF(strcmp(sdui_locale_data_locale(loc, len), str(c, "data")) == 0, "chain case %zu (%s): data %s, expected %s",
               i, loc, sdui_locale_data_locale(loc, len), str(c, "data"));
        CHECKF((sdui_locale_direction(loc, len) == SDUI_DIRECTION_RTL) == !strcmp(str(c, "direction"), "rtl"),
               "chain case %zu (%s): direction, expected %s", i, loc, str(c, "direction"));
    }
    printf("chain: %zu cases\n", json_array_size(json_object_get(root, "cases")));
    json_decref(root);
}

/* ---------- the tables ---------- */

static void test_tables(void)
{
    size_t i, n = sdui_locale_count();
    sdui_error err;
    CHECK(n >= 60 && n < 256);
    CHECK(sdui_locale_at(n) == NULL);
    CHECK(strlen(sdui_locale_cldr_version()) > 0);
    for (i = 0; i < n; i++) {
        const char *t = sdui_locale_at(i);
        char canon[SDUI_LOCALE_TAG_MAX];
        unsigned card = sdui_locale_plural_categories(t, strlen(t), 0);
        unsigned ord = sdui_locale_plural_categories(t, strlen(t), 1);
        CHECK_STATUS(sdui_locale_canonical(t, strlen(t), canon, &err), SDUI_OK);
        CHECKF(strcmp(canon, t) == 0, "table locale %s is not canonical (%s)", t, canon);
        if (i > 0)
            CHECKF(strcmp(sdui_locale_at(i - 1), t) < 0, "table locales out of order at %s", t);
        CHECK_EQ_STR(sdui_locale_data_locale(t, strlen(t)), t);
        CHECKF((card & (1u << SDUI_PLURAL_OTHER)) && (ord & (1u << SDUI_PLURAL_OTHER)) && card < 64 && ord < 64,
               "%s: masks %#x %#x", t, card, ord);
        CHECKF((seen_masks[i][0] & ~card) == 0 && (seen_masks[i][1] & ~ord) == 0,
               "%s: the vectors give categories outside its masks", t);
        CHECKF(seen_masks[i][0] != 0, "%s: no cardinal vectors", t);
    }
    CHECK(sdui_locale_plural_categories("pl", 2, 0) == 0x3a);   /* one few many other */
    CHECK(sdui_locale_plural_categories("ar", 2, 0) == 0x3f);
    CHECK(sdui_locale_plural_categories("ja", 2, 0) == 0x20);
    CHECK(sdui_locale_plural_categories("en", 2, 1) == 0x2e);   /* one two few other */
    CHECK(sdui_locale_plural_categories("xx", 2, 0) == 0x20);   /* root */
}

static void test_plural_names(void)
{
    sdui_plural p = SDUI_PLURAL_OTHER;
    int c;
    for (c = SDUI_PLURAL_ZERO; c <= SDUI_PLURAL_OTHER; c++) {
        const char *name = sdui_plural_name((sdui_plural)c);
        CHECK(sdui_plural_from_name(name, strlen(name), &p) && p == (sdui_plural)c);
    }
    CHECK_EQ_STR(sdui_plural_name((sdui_plural)99), "other");
    CHECK_EQ_STR(sdui_plural_name((sdui_plural)-1), "other");
    CHECK(!sdui_plural_from_name("On", 2, &p));
    CHECK(!sdui_plural_from_name("one ", 4, &p));
    CHECK(!sdui_plural_from_name("", 0, &p));
    CHECK(!sdui_plural_from_name(NULL, 3, &p));
    CHECK(sdui_plural_from_name("fewer", 3, &p) && p == SDUI_PLURAL_FEW);
}

/* ---------- tags ---------- */

/* Checks that tag is refused at byte at with a message naming it. */
static void check_bad_tag(const char *tag, size_t len, long long at, const char *why)
{
    char out[SDUI_LOCALE_TAG_MAX], quoted[128];
    const char *shown = tag ? tag : "";
    sdui_error err;
    CHECK_STATUS(sdui_locale_canonical(tag, len, out, &err), SDUI_ARGUMENT);
    CHECKF(err.offset == at, "tag \"%.*s\": offset %lld, expected %lld", (int)len, shown, err.offset, at);
    CHECKF(strstr(err.message, why) != NULL, "tag \"%.*s\": message \"%s\" lacks \"%s\"", (int)len, shown,
           err.message, why);
    snprintf(quoted, sizeof quoted, "\"%.*s", (int)(len < 20 ? len : 20), shown);
    if (len > 0 && memchr(shown, 0, len) == NULL && (unsigned char)shown[0] >= 0x20 && (unsigned char)shown[0] < 0x7f
        && !strpbrk(quoted + 1, "\"\\\x7f\x80\xc3"))
        CHECKF(strstr(err.message, quoted) != NULL, "tag: message \"%s\" does not quote the tag", err.message);
}

static void test_tags(void)
{
    char out[SDUI_LOCALE_TAG_MAX], chain[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX];
    char long_tag[200];
    size_t n;
    sdui_error err;
    CHECK_STATUS(sdui_locale_canonical("sR_lATN_rs", 10, out, &err), SDUI_OK);
    CHECK_EQ_STR(out, "sr-Latn-RS");
    CHECK_STATUS(sdui_locale_canonical("ES_419", 6, out, &err), SDUI_OK);
    CHECK_EQ_STR(out, "es-419");
    CHECK_STATUS(sdui_locale_canonical("de-CH-1996-POSIX", 16, out, &err), SDUI_OK);
    CHECK_EQ_STR(out, "de-CH-1996-posix");
    CHECK_STATUS(sdui_locale_canonical("en-USxyz", 5, out, &err), SDUI_OK);   /* the length given counts */
    CHECK_EQ_STR(out, "en-US");
    check_bad_tag("en_U$", 5, 4, "a character outside [A-Za-z0-9] at byte 4");
    check_bad_tag("", 0, 0, "an empty tag");
    check_bad_tag(NULL, 0, 0, "an empty tag");
    check_bad_tag("english", 7, 0, "a language that is not 2-3 letters");
    check_bad_tag("e1", 2, 0, "a language that is not 2-3 letters");
    check_bad_tag("en--US", 6, 3, "an empty subtag");
    check_bad_tag("en-", 3, 3, "an empty subtag");
    check_bad_tag("en-US-Latn", 10, 6, "no script, region or variant here");
    check_bad_tag("en-x", 4, 4, "an extension with no subtag");
    check_bad_tag("en-US-Latn-u-nu-arab", 20, 6, "no script, region or variant here");
    /* Extensions and private use: read past, left out of the canonical tag. */
    CHECK_STATUS(sdui_locale_canonical("de-CH-u-nu-arab", 15, out, &err), SDUI_OK);
    CHECK_EQ_STR(out, "de-CH");
    CHECK_STATUS(sdui_locale_canonical("en_gb_U_FW_MON_MU_CELSIUS", 25, out, &err), SDUI_OK);
    CHECK_EQ_STR(out, "en-GB");
    CHECK_STATUS(sdui_locale_canonical("zh-Hant-TW-x-private", 20, out, &err), SDUI_OK);
    CHECK_EQ_STR(out, "zh-Hant-TW");
    CHECK_STATUS(sdui_locale_canonical("sr-Latn-t-sr-cyrl-x-a-u-b", 25, out, &err), SDUI_OK);
    CHECK_EQ_STR(out, "sr-Latn");   /* after x, a one-letter subtag is private use, not a singleton */
    check_bad_tag("en-u", 4, 4, "an extension with no subtag");
    check_bad_tag("en-u-c", 6, 5, "an extension with no subtag");
    check_bad_tag("en-u-nu-t", 9, 9, "an extension with no subtag");
    check_bad_tag("en-u-abcdefghi", 14, 5, "an extension subtag that is not 2-8 letters and digits");
    check_bad_tag("en-u-nu-a", 9, 9, "an extension with no subtag");
    check_bad_tag("en-x-abcdefghi", 14, 5, "a private use subtag longer than 8");
    check_bad_tag("en-x--a", 7, 5, "an empty subtag");
    check_bad_tag("x-private", 9, 0, "a language that is not 2-3 letters");
    CHECK_STATUS(sdui_locale_chain("de-CH-u-nu-arab", 15, chain, &n, &err), SDUI_OK);
    CHECK(n == 2);
    CHECK_EQ_STR(chain[0], "de-CH");
    CHECK_EQ_STR(chain[1], "de");
    CHECK(sdui_locale_direction("ar-u-nu-latn", 12) == SDUI_DIRECTION_RTL);
    check_bad_tag("en\0US", 5, 2, "a character outside");
    check_bad_tag("en-\xc3\xa9", 5, 3, "a character outside");
    memset(long_tag, 'a', sizeof long_tag);
    memcpy(long_tag, "en-", 3);
    long_tag[8] = '-';
    long_tag[14] = '-';
    long_tag[20] = '-';
    long_tag[26] = '-';   /* en and five variants, the last of 8 */
    check_bad_tag(long_tag, 36, 35, "longer than 35 bytes");
    check_bad_tag(long_tag, sizeof long_tag, 35, "longer than 35 bytes");
    CHECK_STATUS(sdui_locale_canonical(long_tag, 35, out, &err), SDUI_OK);
    CHECK(strlen(out) == 35);
    {
        /* 35 bytes, then extensions up to SDUI_LOCALE_TAG_INPUT_MAX in all. */
        char ext[SDUI_LOCALE_TAG_INPUT_MAX + 40];
        size_t k;
        memcpy(ext, long_tag, 35);
        memcpy(ext + 35, "-u", 2);
        for (k = 37; k + 3 <= sizeof ext; k += 3)
            memcpy(ext + k, "-ab", 3);
        /* (ext ends on a whole "-ab" at 37 + 3k bytes: 253.) */
        CHECK_STATUS(sdui_locale_canonical(ext, SDUI_LOCALE_TAG_INPUT_MAX - 2, out, &err), SDUI_OK);
        CHECK(strlen(out) == 35 && memcmp(out, long_tag, 35) == 0);
        check_bad_tag(ext, SDUI_LOCALE_TAG_INPUT_MAX - 1, SDUI_LOCALE_TAG_INPUT_MAX - 1, "an empty subtag");
        check_bad_tag(ext, SDUI_LOCALE_TAG_INPUT_MAX + 1, SDUI_LOCALE_TAG_INPUT_MAX, "longer than 255 bytes");
        check_bad_tag(ext, sizeof ext, SDUI_LOCALE_TAG_INPUT_MAX, "longer than 255 bytes");
        /* One byte more before the extensions is one too many. */
        check_bad_tag("en-Latn-US-aaaaa-aaaaa-aaaaa-aaaaaaa-u-nu-latn", 46, 35,
                      "longer than 35 bytes before its extensions");
        CHECK_STATUS(sdui_locale_canonical("en-Latn-US-aaaaa-aaaaa-aaaaa-aaaaaa-u-nu-latn", 45, out, &err), SDUI_OK);
        CHECK_EQ_STR(out, "en-Latn-US-aaaaa-aaaaa-aaaaa-aaaaaa");
    }
    /* The message escapes what it cannot print. */
    CHECK_STATUS(sdui_locale_canonical("a\x01\"", 3, out, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("\"a\\x01\\\"\"");
    CHECK_STATUS(sdui_locale_canonical("\xff\xfe", 2, NULL, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("\\xff\\xfe");
    /* The longest chains (locale_data.c asserts the bound). */
    CHECK_STATUS(sdui_locale_chain("en-AT-1aaa-1bbb-1ccc-1ddd-1eee-1fff", 35, chain, &n, &err), SDUI_OK);
    CHECK(n == 10 && n <= SDUI_LOCALE_CHAIN_MAX);
    CHECK_EQ_STR(chain[n - 1], "en");
    CHECK_STATUS(sdui_locale_chain("hi-Latn-IN-1aaa-1bbb-1ccc-1ddd-1eee", 35, chain, &n, &err), SDUI_OK);
    CHECK(n == 10);
    CHECK_STATUS(sdui_locale_chain("en", 2, NULL, &n, &err), SDUI_ARGUMENT);
    CHECK(sdui_locale_direction("ar-Latn", 7) == SDUI_DIRECTION_LTR);
    CHECK(sdui_locale_direction("az-Arab", 7) == SDUI_DIRECTION_RTL);
    CHECK(sdui_locale_direction("AR", 2) == SDUI_DIRECTION_RTL);
    CHECK(sdui_locale_direction("en-Zzzz", 7) == SDUI_DIRECTION_LTR);
    CHECK(sdui_locale_direction("he_il", 5) == SDUI_DIRECTION_RTL);
    CHECK(sdui_locale_direction("ar!", 3) == SDUI_DIRECTION_LTR);
    CHECK(sdui_locale_direction(NULL, 0) == SDUI_DIRECTION_LTR);
    CHECK_EQ_STR(sdui_locale_data_locale(NULL, 0), "root");
}

/* ---------- plurals ---------- */

/* The category of number in tag (cardinal or ordinal), or -1 on an error. */
static int plural_of(const char *tag, const char *number, int ordinal)
{
    sdui_plural p;
    sdui_error err;
    if (sdui_locale_plural(tag, strlen(tag), number, strlen(number), ordinal, &p, &err) != SDUI_OK)
        return -1;
    return (int)p;
}

static void test_plurals(void)
{
    sdui_plural p;
    sdui_error err;
    char digits[80];
    /* Operands past 64 bits: exact, by the digits. */
    CHECK(plural_of("pl", "1000000000000000000000002", 0) == SDUI_PLURAL_FEW);
    CHECK(plural_of("pl", "1000000000000000000000012", 0) == SDUI_PLURAL_MANY);
    CHECK(plural_of("ru", "100000000000000000000000000000000000000000000000000000000001", 0) == SDUI_PLURAL_ONE);
    CHECK(plural_of("ru", "1e300", 0) == SDUI_PLURAL_MANY);
    CHECK(plural_of("en", "1e0", 0) == SDUI_PLURAL_ONE);        /* e = 0: the number 1 */
    CHECK(plural_of("en", "10e-1", 0) == SDUI_PLURAL_OTHER);    /* 1.0: v = 1 */
    CHECK(plural_of("fr", "1e300", 0) == SDUI_PLURAL_MANY);
    CHECK(plural_of("fr", "1.5e-7", 0) == SDUI_PLURAL_ONE);      /* i = 0 */
    CHECK(plural_of("fr", "1000000.0", 0) == SDUI_PLURAL_OTHER); /* v = 1 */
    CHECK(plural_of("en", "5e-324", 0) == SDUI_PLURAL_OTHER);
    CHECK(plural_of("lt", "0.0000000000000000000001", 0) == SDUI_PLURAL_MANY);   /* f != 0 */
    CHECK(plural_of("lv", "0.1", 0) == SDUI_PLURAL_ONE);
    CHECK(plural_of("is", "0.000000000000000000000000000000000000000000001", 0) == SDUI_PLURAL_ONE);
    CHECK(plural_of("en", "0001", 0) == SDUI_PLURAL_ONE);
    CHECK(plural_of("en", "-0", 0) == SDUI_PLURAL_OTHER);
    CHECK(plural_of("en", "1E+0", 0) == SDUI_PLURAL_ONE);
    CHECK(plural_of("en", "1e9999", 0) == SDUI_PLURAL_OTHER);
    CHECK(plural_of("en", "21", 1) == SDUI_PLURAL_ONE);
    CHECK(plural_of("en", "111", 1) == SDUI_PLURAL_OTHER);
    CHECK(plural_of("xx", "1", 1) == SDUI_PLURAL_OTHER);
    CHECK(plural_of("de-LI", "1", 0) == SDUI_PLURAL_ONE);
    /* Numbers that are not one: the byte where they stop. */
    CHECK_STATUS(sdui_locale_plural("en", 2, "1.", 2, 0, &p, &err), SDUI_ARGUMENT);
    CHECK(err.offset == 2 && p == SDUI_PLURAL_OTHER);
    CHECK_MSG_HAS("number \"1.\" is not one");
    CHECK_STATUS(sdui_locale_plural("en", 2, ".5", 2, 0, &p, &err), SDUI_ARGUMENT);
    CHECK(err.offset == 0);
    CHECK_STATUS(sdui_locale_plural("en", 2, "+1", 2, 0, &p, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_locale_plural("en", 2, "1e", 2, 0, &p, &err), SDUI_ARGUMENT);
    CHECK(err.offset == 2);
    CHECK_STATUS(sdui_locale_plural("en", 2, "1e10000", 7, 0, &p, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("an exponent out of range at byte 6");
    CHECK_STATUS(sdui_locale_plural("en", 2, "1 ", 2, 0, &p, &err), SDUI_ARGUMENT);
    CHECK(err.offset == 1);
    CHECK_STATUS(sdui_locale_plural("en", 2, "", 0, 0, &p, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_locale_plural("en", 2, NULL, 0, 0, &p, &err), SDUI_ARGUMENT);
    memset(digits, '1', sizeof digits);
    CHECK_STATUS(sdui_locale_plural("en", 2, digits, 64, 0, &p, &err), SDUI_OK);
    CHECK_STATUS(sdui_locale_plural("en", 2, digits, 65, 0, &p, &err), SDUI_ARGUMENT);
    CHECK(err.offset == 64);
    CHECK_MSG_HAS("longer than 64 bytes");
    CHECK_STATUS(sdui_locale_plural("e!", 2, "1", 1, 0, &p, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("locale tag \"e!\"");
    CHECK_STATUS(sdui_locale_plural("en", 2, "1", 1, 0, NULL, &err), SDUI_ARGUMENT);
}

/* ---------- formats ---------- */

static void test_formats(void)
{
    char buf[SDUI_LOCALE_TEXT_MAX];
    size_t n = 7, i, worst = 0;
    sdui_error err;
    CHECK_STATUS(sdui_locale_format_number("en", 2, NAN, -1, buf, sizeof buf, &n, &err), SDUI_ARGUMENT);
    CHECK(buf[0] == 0 && n == 0);
    CHECK_MSG_HAS("number nan is not finite");
    CHECK_STATUS(sdui_locale_format_percent("en", 2, INFINITY, buf, sizeof buf, &n, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_locale_format_currency("en", 2, -INFINITY, "USD", 3, buf, sizeof buf, &n, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("-inf");
    CHECK_STATUS(sdui_locale_format_number("en", 2, 1, 21, buf, sizeof buf, &n, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("more than 20");
    CHECK_STATUS(sdui_locale_format_number("en", 2, 1.5, -7, buf, sizeof buf, &n, &err), SDUI_OK);
    CHECK_EQ_STR(buf, "1.5");
    CHECK_STATUS(sdui_locale_format_number("en-", 3, 1, -1, buf, sizeof buf, &n, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("locale tag \"en-\"");
    CHECK_STATUS(sdui_locale_format_currency("en", 2, 1, "EU", 2, buf, sizeof buf, &n, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("currency code \"EU\" is not three letters");
    CHECK_STATUS(sdui_locale_format_currency("en", 2, 1, "E1R", 3, buf, sizeof buf, &n, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_locale_format_currency("en", 2, 1, NULL, 0, buf, sizeof buf, &n, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_locale_format_currency("en", 2, 1, "eurx", 3, buf, sizeof buf, &n, &err), SDUI_OK);
    CHECK_EQ_STR(buf, "\xe2\x82\xac" "1.00");
    /* No room at all: the length needed. */
    CHECK_STATUS(sdui_locale_format_number("en", 2, 1234.5, -1, NULL, 0, &n, &err), SDUI_LIMIT);
    CHECK(n == 7);
    CHECK_STATUS(sdui_locale_format_number("en", 2, 1234.5, -1, buf, 0, NULL, &err), SDUI_LIMIT);
    CHECK_STATUS(sdui_locale_format_number("en", 2, 1234.5, -1, buf, 7, NULL, &err), SDUI_LIMIT);
    CHECK_MSG_HAS("7 bytes and a NUL do not fit in 7");
    /* The largest doubles, in every locale and format, with every
     * currency's symbol, fit SDUI_LOCALE_TEXT_MAX. */
    for (i = 0; i < sdui_locale_count(); i++) {
        static const char *const codes[] = {"USD", "EUR", "GBP", "JPY", "CNY", "INR", "BRL", "RUB", "KRW", "TRY",
                                            "MXN", "CAD", "AUD", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF",
                                            "ILS", "SAR", "AED", "EGP", "THB", "VND", "IDR", "MYR", "PHP", "ZAR",
                                            "NGN", "UAH", "RON", "KWD", "HKD", "TWD", "SGD", "NZD", "XYZ"};
        const char *t = sdui_locale_at(i);
        size_t k;
        CHECK_STATUS(sdui_locale_format_number(t, strlen(t), -DBL_MAX, 20, buf, sizeof buf, &n, &err), SDUI_OK);
        worst = n > worst ? n : worst;
        CHECK_STATUS(sdui_locale_format_percent(t, strlen(t), -DBL_MAX, buf, sizeof buf, &n, &err), SDUI_OK);
        worst = n > worst ? n : worst;
        for (k = 0; k < sizeof codes / sizeof codes[0]; k++) {
            CHECK_STATUS(sdui_locale_format_currency(t, strlen(t), -DBL_MAX, codes[k], 3, buf, sizeof buf, &n, &err),
                         SDUI_OK);
            worst = n > worst ? n : worst;
        }
        CHECK_STATUS(sdui_locale_format_number(t, strlen(t), 5e-324, 20, buf, sizeof buf, &n, &err), SDUI_OK);
        CHECK_STATUS(sdui_locale_format_number(t, strlen(t), -1e-300, -1, buf, sizeof buf, &n, &err), SDUI_OK);
        CHECKF(strchr(buf, '-') == NULL && n <= 3, "%s: -1e-300 is \"%s\"", t, buf);
    }
    CHECKF(worst < SDUI_LOCALE_TEXT_MAX, "the longest text: %zu bytes", worst);
    printf("the longest formatted text: %zu bytes (SDUI_LOCALE_TEXT_MAX %d)\n", worst, SDUI_LOCALE_TEXT_MAX);
}

/* ---------- threads ---------- */

/* Formats and classifies a fixed set many times; 0 when every answer is
 * the expected one. */
static void *thread_body(void *arg)
{
    long bad = 0;
    int k;
    (void)arg;
    for (k = 0; k < 2000; k++) {
        char buf[SDUI_LOCALE_TEXT_MAX];
        size_t n;
        sdui_plural p;
        sdui_error err;
        if (sdui_locale_format_number("de", 2, 1234.5, -1, buf, sizeof buf, &n, &err) != SDUI_OK
            || strcmp(buf, "1.234,5") != 0)
            bad++;
        if (sdui_locale_format_currency("ja", 2, 1234.5, "JPY", 3, buf, sizeof buf, &n, &err) != SDUI_OK
            || strcmp(buf, "\xef\xbf\xa5" "1,234") != 0)
            bad++;
        if (sdui_locale_plural("pl", 2, "22", 2, 0, &p, &err) != SDUI_OK || p != SDUI_PLURAL_FEW)
            bad++;
        if (strcmp(sdui_locale_data_locale("de_CH_1996", 10), "de-CH") != 0)
            bad++;
    }
    return (void *)bad;
}

static void test_threads(void)
{
    pthread_t t[4];
    int i;
    for (i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, thread_body, NULL) == 0);
    for (i = 0; i < 4; i++) {
        void *bad = NULL;
        CHECK(pthread_join(t[i], &bad) == 0);
        CHECKF(bad == NULL, "thread %d: %ld wrong answers", i, (long)bad);
    }
}

/* ---------- expression functions ---------- */

static void test_expr_errors(void)
{
    sdui_error err;
    char *json = NULL;
    CHECK_STATUS(eval("1 + plural(1, 'e!')", &json, &err), SDUI_EXPR_VALUE);
    CHECK(err.offset == 4);
    CHECK_MSG_HAS("plural: locale tag \"e!\" is not a tag: a character outside [A-Za-z0-9] at byte 1 in "
                  "`plural(1, 'e!')` at offset 4");
    CHECK_STATUS(eval("format_currency(1, 'us', 'en')", &json, &err), SDUI_EXPR_VALUE);
    CHECK_MSG_HAS("format_currency: currency code \"us\" is not three letters");
    CHECK_STATUS(eval("format_number(1, 'en', 99)", &json, &err), SDUI_EXPR_VALUE);
    CHECK_MSG_HAS("digits must be 0 to 20");
    CHECK_STATUS(eval("format_percent([1], 'en')", &json, &err), SDUI_EXPR_TYPE);
    CHECK_STATUS(eval("plural('1.2.3', 'en')", &json, &err), SDUI_EXPR_VALUE);
    CHECK_MSG_HAS("plural: number \"1.2.3\" is not one");
    sdui_free(json);
}

int main(void)
{
    test_plural_vectors();
    test_format_vectors("numbers.json", "numbers");
    test_format_vectors("percent.json", "percent");
    test_format_vectors("currency.json", "currency");
    test_chain_vectors();
    test_tables();
    test_plural_names();
    test_tags();
    test_plurals();
    test_formats();
    test_threads();
    test_expr_errors();
    printf("%zu locales, CLDR %s\n", sdui_locale_count(), sdui_locale_cldr_version());
    return check_summary();
}
