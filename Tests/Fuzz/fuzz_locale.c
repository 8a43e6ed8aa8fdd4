/*
 * fuzz_locale.c - libFuzzer harness for locales (include/sdui/locale.h).
 *
 * The input's first 12 bytes are controls: 8 bytes of a double (its bits),
 * the fraction digits (-2 to 22), the buffer's size (from none to
 * SDUI_LOCALE_TEXT_MAX), cardinal or ordinal; the rest is cut at 0xFF bytes
 * into texts: a tag, a number (decimal text, also read with strtod as a
 * second double), a currency code, a second tag.  The texts are passed with
 * their lengths, never NUL-terminated.  Every function of locale.h runs on
 * them, and for any input nothing may crash or read out of bounds, and:
 *   - a canonical tag is NUL-terminated, shorter than SDUI_LOCALE_TAG_MAX,
 *     its own canonical form, and the text before its extensions (if any)
 *     case and '_' aside; a bad tag leaves "" and names a byte within the
 *     text;
 *   - a chain holds 1 to SDUI_LOCALE_CHAIN_MAX entries, the canonical tag
 *     first, each canonical and unlike the one before; it exists exactly
 *     when the tag is one;
 *   - the data locale is "root" or a table locale, the first of the chain
 *     the tables hold;
 *   - a category is in the locale's mask, which holds other;
 *   - a format's text is NUL-terminated, its length *out_len, below the
 *     buffer's size; a buffer too small gives SDUI_LIMIT, "" and the
 *     length needed (the same text fits a buffer one byte larger); a
 *     buffer of SDUI_LOCALE_TEXT_MAX always suffices; NaN, the infinities,
 *     more than 20 digits and bad codes are SDUI_ARGUMENT; an ASCII text
 *     is never a minus sign before zeros (a negative zero).
 * A broken invariant aborts, which libFuzzer reports as a crash.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_locale: invariant broken at line %d: %s\n", line, what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* The n-th text of the input (cut at 0xFF), after the 12 control bytes. */
static const char *part(const uint8_t *data, size_t size, int n, size_t *len)
{
    size_t at = 12, start;
    int k = 0;
    if (size < 12) {
        *len = 0;
        return "";
    }
    for (;;) {
        start = at;
        while (at < size && data[at] != 0xFF)
            at++;
        if (k == n) {
            *len = at - start;
            return (const char *)data + start;
        }
        if (at >= size) {
            *len = 0;
            return "";
        }
        at++;
        k++;
    }
}

/* 1 when s is a table locale or "root". */
static int known_locale(const char *s)
{
    size_t i;
    if (strcmp(s, "root") == 0)
        return 1;
    for (i = 0; i < sdui_locale_count(); i++)
        if (strcmp(sdui_locale_at(i), s) == 0)
            return 1;
    return 0;
}

/* Checks a canonical tag and the chain of tag[0, len). */
static void check_tag(const char *tag, size_t len)
{
    char canon[SDUI_LOCALE_TAG_MAX], again[SDUI_LOCALE_TAG_MAX];
    char chain[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX];
    size_t n = 99, k, c;
    sdui_error err;
    sdui_status st = sdui_locale_canonical(tag, len, canon, &err), cs;
    const char *data = sdui_locale_data_locale(tag, len);
    sdui_direction dir = sdui_locale_direction(tag, len);
    unsigned card = sdui_locale_plural_categories(tag, len, 0), ord = sdui_locale_plural_categories(tag, len, 1);

    REQUIRE(dir == SDUI_DIRECTION_LTR || dir == SDUI_DIRECTION_RTL);
    REQUIRE((card & (1u << SDUI_PLURAL_OTHER)) && card < 64);
    REQUIRE((ord & (1u << SDUI_PLURAL_OTHER)) && ord < 64);
    REQUIRE(known_locale(data));
    cs = sdui_locale_chain(tag, len, chain, &n, &err);
    REQUIRE(cs == st);
    if (st != SDUI_OK) {
        REQUIRE(st == SDUI_ARGUMENT);
        REQUIRE(canon[0] == 0 && n == 0);
        REQUIRE(err.offset >= 0 && (size_t)err.offset <= len && err.message[0]);
        REQUIRE(strcmp(data, "root") == 0 && dir == SDUI_DIRECTION_LTR);
        return;
    }
    /* The canonical tag is the input's part before its extensions, if any
     * (a separator and a one-character subtag), case and '_' aside. */
    k = strlen(canon);
    REQUIRE(k <= len && k < SDUI_LOCALE_TAG_MAX && len <= SDUI_LOCALE_TAG_INPUT_MAX);
    REQUIRE(k == len || ((tag[k] == '-' || tag[k] == '_') && k + 2 <= len &&
                         (k + 2 == len || tag[k + 2] == '-' || tag[k + 2] == '_')));
    for (c = 0; c < k; c++)
        REQUIRE(tag[c] == '_' ? canon[c] == '-' : (canon[c] | 0x20) == (tag[c] | 0x20));
    REQUIRE(sdui_locale_canonical(canon, strlen(canon), again, &err) == SDUI_OK);
    REQUIRE(strcmp(again, canon) == 0);
    REQUIRE(n >= 1 && n <= SDUI_LOCALE_CHAIN_MAX);
    REQUIRE(strcmp(chain[0], canon) == 0);
    for (k = 0; k < n; k++) {
        size_t l = strlen(chain[k]);
        REQUIRE(l < SDUI_LOCALE_TAG_MAX);
        REQUIRE(sdui_locale_canonical(chain[k], l, again, &err) == SDUI_OK && strcmp(again, chain[k]) == 0);
        if (k > 0)
            REQUIRE(strcmp(chain[k], chain[k - 1]) != 0);
    }
    for (k = 0; k < n; k++)
        if (known_locale(chain[k]))
            break;
    REQUIRE(k < n ? strcmp(data, chain[k]) == 0 : strcmp(data, "root") == 0);
}

/* Checks the plural category of number[0, nlen) in tag[0, len). */
static void check_plural(const char *tag, size_t len, const char *number, size_t nlen, int ordinal)
{
    sdui_plural p = SDUI_PLURAL_ZERO;
    sdui_error err;
    sdui_status st = sdui_locale_plural(tag, len, number, nlen, ordinal, &p, &err);
    if (st == SDUI_OK) {
        REQUIRE(sdui_locale_plural_categories(tag, len, ordinal) & (1u << p));
        REQUIRE(nlen > 0 && nlen <= 64);
    } else {
        REQUIRE(st == SDUI_ARGUMENT && p == SDUI_PLURAL_OTHER && err.message[0]);
    }
}

/* The formats under test. */
enum { NUMBER, PERCENT, CURRENCY };

/* Runs one format into buf[0, cap). */
static sdui_status format(int kind, const char *tag, size_t len, double x, int digits, const char *code,
                          size_t code_len, char *buf, size_t cap, size_t *out_len, sdui_error *err)
{
    if (kind == NUMBER)
        return sdui_locale_format_number(tag, len, x, digits, buf, cap, out_len, err);
    if (kind == PERCENT)
        return sdui_locale_format_percent(tag, len, x, buf, cap, out_len, err);
    return sdui_locale_format_currency(tag, len, x, code, code_len, buf, cap, out_len, err);
}

/* 1 when code[0, n) is three ASCII letters. */
static int is_code(const char *code, size_t n)
{
    size_t i;
    if (n != 3)
        return 0;
    for (i = 0; i < 3; i++)
        if (!((code[i] >= 'a' && code[i] <= 'z') || (code[i] >= 'A' && code[i] <= 'Z')))
            return 0;
    return 1;
}

/* 1 when text is ASCII, starts with '-' and has no digit but 0: a
 * negative zero, which no format writes. */
static int negative_zero(const char *text)
{
    const char *p;
    if (text[0] != '-')
        return 0;
    for (p = text; *p; p++)
        if ((*p >= '1' && *p <= '9') || (unsigned char)*p >= 0x80)
            return 0;
    return 1;
}

/* Checks one format of x, with a buffer of cap bytes and a full one. */
static void check_format(int kind, const char *tag, size_t len, double x, int digits, const char *code,
                         size_t code_len, size_t cap)
{
    static char full[SDUI_LOCALE_TEXT_MAX];
    char *small = malloc(cap ? cap : 1);
    size_t n = 7777, m = 7777;
    sdui_error err;
    char canon[SDUI_LOCALE_TAG_MAX];
    int tag_ok = sdui_locale_canonical(tag, len, canon, NULL) == SDUI_OK;
    int args_ok = isfinite(x) && tag_ok && (kind != NUMBER || digits <= 20) && (kind != CURRENCY || is_code(code, code_len));
    sdui_status st = format(kind, tag, len, x, digits, code, code_len, full, sizeof full, &n, &err);

    REQUIRE(small != NULL);
    if (!args_ok) {
        REQUIRE(st == SDUI_ARGUMENT && full[0] == 0 && n == 0);
        free(small);
        return;
    }
    REQUIRE(st == SDUI_OK);
    REQUIRE(n < sizeof full && strlen(full) == n && n > 0);
    REQUIRE(!negative_zero(full));
    memset(small, 'x', cap ? cap : 1);
    st = format(kind, tag, len, x, digits, code, code_len, cap ? small : NULL, cap, &m, &err);
    if (n < cap) {
        REQUIRE(st == SDUI_OK && m == n && strcmp(small, full) == 0);
    } else {
        REQUIRE(st == SDUI_LIMIT && m == n);
        if (cap > 0)
            REQUIRE(small[0] == 0);
    }
    free(small);
}

/* libFuzzer's entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t tl, nl, cl, ul;
    const char *tag = part(data, size, 0, &tl), *number = part(data, size, 1, &nl);
    const char *code = part(data, size, 2, &cl), *tag2 = part(data, size, 3, &ul);
    uint8_t c[12] = {0};
    double x, y;
    int digits, ordinal, kind;
    size_t cap;
    char text[80];

    memcpy(c, data, size < 12 ? size : 12);
    memcpy(&x, c, sizeof x);
    digits = (int)(c[8] % 25) - 2;
    cap = (size_t)c[9] * SDUI_LOCALE_TEXT_MAX / 255;
    ordinal = c[10] & 1;
    kind = c[11] % 3;

    check_tag(tag, tl);
    check_tag(tag2, ul);
    check_plural(tag, tl, number, nl, ordinal);
    check_plural(tag2, ul, number, nl, !ordinal);

    /* The number text read as a double too (strtod in the "C" locale the
     * fuzzer runs in). */
    memcpy(text, number, nl < sizeof text - 1 ? nl : sizeof text - 1);
    text[nl < sizeof text - 1 ? nl : sizeof text - 1] = 0;
    y = strtod(text, NULL);

    check_format(kind, tag, tl, x, digits, code, cl, cap);
    check_format((kind + 1) % 3, tag2, ul, y, digits, code, cl, cap);
    check_format(NUMBER, tag, tl, y, digits, code, cl, cap / 4);
    return 0;
}
