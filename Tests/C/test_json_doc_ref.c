/*
 * test_json_doc_ref.c - sdui_json_doc_parse builds the core's value tree
 * (value.c; decimals read without the locale); jansson's json_loadb
 * (JSON_DECODE_ANY | JSON_ALLOW_NUL) is the reference here, in the "C"
 * locale where jansson reads decimals right.
 * For fixed documents at every refusal and 20,000 generated ones (nested
 * arrays and objects, small and large, repeated member names, escapes, \u0000 in strings
 * and names, integers at and past the 64-bit edges, decimals that
 * overflow, underflow or need more than 15 digits): the same verdict; on
 * success the same tree (types, integers, decimals bit for bit, string
 * bytes, members in the same order); on a refusal jansson's message at
 * jansson's position (json_oracle.h's oracle_check_doc).  And each row of
 * json_oracle.h's table of documented differences shows its difference.
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "json_oracle.h"

static unsigned long compared, refused;

/* Parses text both ways and compares (json_oracle.h); name says which in
 * a failure. */
static void compare(const char *text, size_t len, const char *name)
{
    sdui_json_doc *doc = NULL;
    sdui_error err;
    json_error_t jerr;
    json_t *j;
    char why[600];
    sdui_status st;
    /* jansson's verdict only counts where the core's validator accepts. */
    if (sdui_json_validate(text, len, 100000, &err) != SDUI_OK)
        return;
    compared++;
    j = json_loadb(text, len, ORACLE_DOC_FLAGS, &jerr);
    if (!j)
        refused++;
    json_decref(j);
    st = sdui_json_doc_parse(text, len, 100000, &doc, &err);
    CHECKF(oracle_check_doc(text, len, 100000, st, doc, &err, why, sizeof why), "%s: %s (%.80s)",
           name, why, text);
    /* A refusal by the tree is jansson's (oracle_check_doc compares the
     * words and the place). */
    CHECKF(st == SDUI_OK || st == SDUI_JSON, "%s: %s %s (%.80s)", name, sdui_status_name(st),
           err.message, text);
    sdui_json_doc_free(doc);
}

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
    t->p[t->len] = 0;
}

/* Appends a NUL-terminated string. */
static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static uint64_t rng = 0x1234567887654321u;

/* A random number below n. */
static unsigned below(unsigned n)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* A number of one of the kinds jansson tells apart or refuses. */
static void gen_number(text *t)
{
    static const char *const fixed[] = {
        "0", "-0", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999", "1e400", "-1e400", "1e-400", "0.0",
        "-0.0", "4.9e-324", "1.7976931348623157e308", "1.7976931348623159e308", "2.5E+3",
        "0.1000000000000000055511151231257827021181583404541015625", "123456789012345678901.5",
        "3.141592653589793238462643383279502884197",
    };
    char buf[64];
    switch (below(4)) {
    case 0:
        puts_(t, fixed[below(sizeof fixed / sizeof fixed[0])]);
        return;
    case 1:
        snprintf(buf, sizeof buf, "%s%u", below(2) ? "-" : "", below(1000000));
        break;
    case 2:
        snprintf(buf, sizeof buf, "%s%u.%u", below(2) ? "-" : "", below(100000), below(100000000));
        break;
    default:
        snprintf(buf, sizeof buf, "%u.%ue%s%u", below(10), below(1000000000), below(2) ? "-" : "",
                 below(330));
        break;
    }
    puts_(t, buf);
}

/* A string (or member name) with escapes, and sometimes \u0000. */
static void gen_string(text *t, int key)
{
    static const char *const parts[] = {"a", "b", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\\"",
                                        "\xc3\xa9", "\\u0000", " "};
    unsigned n = below(4);
    puts_(t, "\"");
    for (unsigned i = 0; i < n; i++) {
        unsigned p = below(sizeof parts / sizeof parts[0]);
        if (p == 7 && below(key ? 20 : 3))
            p = 0; /* NUL in a name: now and then */
        puts_(t, parts[p]);
    }
    puts_(t, "\"");
}

/* A random value, depth levels at most. */
static void gen_value(text *t, int depth)
{
    unsigned k = below(depth > 0 ? 9 : 6);
    switch (k) {
    case 0: puts_(t, "null"); return;
    case 1: puts_(t, below(2) ? "true" : "false"); return;
    case 2: case 3: gen_number(t); return;
    case 4: case 5: gen_string(t, 0); return;
    case 6: case 7: {
        /* Now and then past 16 members, where names go into the index. */
        unsigned n = below(10) ? below(5) : 17 + below(30);
        puts_(t, " { ");
        for (unsigned i = 0; i < n; i++) {
            if (i)
                puts_(t, ",");
            if (below(3) == 0)
                puts_(t, "\"k\""); /* repeated names */
            else
                gen_string(t, 1);
            puts_(t, ":");
            gen_value(t, depth - 1);
        }
        puts_(t, "}");
        return;
    }
    default: {
        unsigned n = below(5);
        puts_(t, "[");
        for (unsigned i = 0; i < n; i++) {
            if (i)
                puts_(t, " ,\n");
            gen_value(t, depth - 1);
        }
        puts_(t, "]");
        return;
    }
    }
}

/* Fixed documents at each refusal and at the depth limit. */
static void test_fixed(void)
{
    static const char *const docs[] = {
        "[1, 99999999999999999999]", "[-99999999999999999999]", "{\"a\":1e400}",
        "{\"a\\u0000b\":1}", "{\"a\":1,\"a\":2,\"b\":3,\"a\":4}", "[1e-400, -0.0, 0]",
        "\"\\u0000\"", "[[], {}, [{}], {\"\":[]}]", " 7 ", "-0",
        "[1, {\"x\":1e999}, 99999999999999999999]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        compare(docs[i], strlen(docs[i]), "fixed");
    /* Nesting at and past jansson's limit (2048 values deep). */
    for (int d = 2046; d <= 2050; d++) {
        text t = {NULL, 0, 0};
        for (int i = 0; i < d; i++)
            puts_(&t, i % 2 ? "{\"k\":" : "[");
        puts_(&t, d % 2 ? "1.5" : "\"s\"");
        for (int i = d - 1; i >= 0; i--)
            puts_(&t, i % 2 ? "}" : "]");
        compare(t.p, t.len, "deep");
        free(t.p);
    }
}

/* Generated documents. */
static void test_generated(void)
{
    for (int i = 0; i < 20000; i++) {
        text t = {NULL, 0, 0};
        gen_value(&t, 1 + (int)below(6));
        compare(t.p, t.len, "generated");
        free(t.p);
    }
}

/* Every row of the table of differences (json_oracle.h) shows what it
 * says: the core's answer, and whether jansson reads the text. */
static void test_differences(void)
{
    size_t rows = sizeof oracle_differences / sizeof oracle_differences[0], shown = 0;
    for (size_t i = 0; i < rows; i++) {
        const oracle_row *r = &oracle_differences[i];
        sdui_error err;
        json_error_t jerr;
        json_t *j;
        sdui_status st;
        if (!r->text)
            continue;
        shown++;
        if (r->token) {
            sdui_limits lim;
            sdui_token *tok = NULL;
            sdui_limits_default(&lim);
            if (r->max_depth)
                lim.max_depth = r->max_depth;
            if (r->max_token_bytes)
                lim.max_token_bytes = r->max_token_bytes;
            st = sdui_token_parse(r->text, r->len, &lim, &tok, &err);
            sdui_token_release(tok);
        } else {
            sdui_json_doc *doc = NULL;
            st = sdui_json_doc_parse(r->text, r->len, r->max_depth ? r->max_depth : 128, &doc,
                                     &err);
            sdui_json_doc_free(doc);
        }
        j = json_loadb(r->text, r->len, r->token ? ORACLE_TOKEN_FLAGS : ORACLE_DOC_FLAGS, &jerr);
        CHECKF(st == r->core && (j != NULL) == r->jansson_reads,
               "difference %d (%s): the core says %s, jansson %s", (int)r->diff, r->what,
               sdui_status_name(st), j ? "reads it" : jerr.text);
        json_decref(j);
    }
    printf("%zu documented differences, %zu shown here\n", rows, shown);
}

int main(void)
{
    test_differences();
    test_fixed();
    test_generated();
    printf("compared %lu documents with jansson (%lu refused by both)\n", compared, refused);
    CHECKF(refused > 100 && compared - refused > 1000, "too few of each kind");
    return check_summary();
}
