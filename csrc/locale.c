/*
 * locale.c - what a locale changes in the core's output
 * (include/sdui/locale.h says what each function answers): locale tags and
 * their canonical form, the fallback chain, the lookup of a locale's data in
 * the tables generated from CLDR (locale_data.c, by scripts/gen-cldr.py),
 * the writing direction, the interpreter of CLDR's plural rules, and
 * numbers, percentages and amounts of money written the locale's way.
 * Nothing here reads the host's C locale, allocates or keeps state.
 *
 * The plural rules.  CLDR gives each language a rule per category (zero,
 * one, two, few, many; "other" is what none of them selects), written over
 * the operands of the number as the user sees it, digits and all:
 *
 *   n  the absolute value             i  the integer digits
 *   v  the count of visible fraction digits, trailing zeros included
 *   w  the same without trailing zeros
 *   f  the visible fraction digits as an integer, trailing zeros included
 *   t  the same without trailing zeros
 *   e  (and its synonym c) the exponent of compact notation: 1.2c6 is
 *      1200000 with e = 6, and its other operands are those of 1200000
 *
 * so "1" is n 1, i 1, v 0, and "1.50" is n 1.5, i 1, v 2, w 1, f 50, t 5:
 * English says "1 item" and "1.50 items".  A rule is an "or" of "and"
 * groups of relations, each "operand [% m] = ranges" or "!=": a list of
 * values and closed ranges (n % 100 = 3..10,13).  A relation on n holds
 * only for an integral n: 1.5 is in no range, so n = 1..4 is false for it
 * and n != 1..4 true.
 *
 * The encoding.  The generator compiles the rules (as Babel has parsed
 * them) into four flat tables, the same relations shared by every locale
 * whose rules are the same.  A relation (sdui__plural_rel) is one record:
 * its operand in the low three bits of `op`, SDUI__OP_NOT for "!=", and
 * SDUI__OP_OR when it starts a new "and" group; its modulus as an index
 * into sdui__plural_mods (0: none); its ranges as a run of
 * sdui__plural_ranges, a single value being the range [v, v].  A category's
 * condition (sdui__plural_rule) is a run of relations read left to right:
 * the running "and" group is closed by the next relation marked OR, and the
 * condition holds when any group does.  A locale's rule set
 * (sdui__plural_set) is a run of conditions in CLDR's order, the first
 * that holds giving the category, none giving other; it also carries the
 * mask of the categories it can give.  The interpreter is the three small
 * functions below it: no parsing at run time, a bounded loop, no recursion.
 *
 * The operands without big numbers.  A number is read as the digits of its
 * text, the point left out, and the place of the point once the exponent
 * has moved it (parse_number).  Every operand is then a run of those
 * digits, perhaps followed by zeros (i of 1c6): v and w are counts, and i,
 * f and t are read digit by digit, modulo m when the relation has one (the
 * zeros by repeated squaring of 10 mod m), else exactly up to 18 digits,
 * beyond which the value is larger than any range and in none.  So 1e300
 * and a 64-digit fraction are classified exactly, in a handful of
 * operations per relation.
 *
 * The formats.  A number is written from the decimal digits of its shortest
 * text (sdui_number_text, the core's one number-to-text rule), never
 * through printf, so no setlocale() changes a byte.  Those digits are
 * rounded half-even at the last fraction digit the format shows (the
 * pattern's, the caller's, the currency's), which is rounding the number
 * the user would read: 2.675 (whose double is a little below) rounds to
 * 2.68.  A percentage moves the point two places first, exactly.  Then the
 * integer digits are grouped (the pattern's primary and secondary sizes,
 * and only when there are at least primary + minimumGroupingDigits of
 * them: es writes 1234 but 12.345), written in the numbering system's
 * digits with the locale's decimal and group separators (an amount of
 * money with CLDR's currencyDecimal and currencyGroup where the locale
 * has them: fr-CH writes 1'234,5 but 1'234.50 CHF), between the
 * pattern's prefix and suffix for the sign (the locale's minus sign is
 * already in the negative affixes), the currency sign replaced by the
 * currency's symbol and spaced from the digits by CLDR's currencySpacing.
 * A number that rounds to zero is written without its sign.  Every length
 * is bounded: the largest double, grouped, with 20 fraction digits in the
 * widest digits, fits SDUI_LOCALE_TEXT_MAX (locale_data.c asserts it at
 * compile time).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "locale_data.h"
#include "sdui/number.h"

/* The longest tag, without its NUL. */
#define TAG_LIMIT (SDUI_LOCALE_TAG_MAX - 1)

/* The longest number text sdui_locale_plural reads. */
#define NUMBER_LIMIT 64

/* The largest exponent a plural number and a formatted number may have. */
#define PLURAL_EXP_MAX 9999
#define FORMAT_EXP_MAX 400

/* Bytes of the input shown in a message. */
#define QUOTE_BYTES 32

/* ---------- helpers ---------- */

/* 1 for an ASCII letter. */
static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* 1 for an ASCII digit. */
static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* c in lower case (ASCII). */
static char to_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* c in upper case (ASCII). */
static char to_upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
}

/* The string of the tables at offset off. */
static const char *str_at(uint16_t off)
{
    return sdui__locale_strings + off;
}

/* Writes s[0, len) into q for a message, in quotes: printable ASCII as it
 * is (a quote or backslash escaped), other bytes as \xNN, at most
 * QUOTE_BYTES of it and "..." after.  Returns q. */
static const char *quote(const char *s, size_t len, char q[QUOTE_BYTES * 4 + 8])
{
    static const char hex[] = "0123456789abcdef";
    size_t i, n = 0;
    q[n++] = '"';
    for (i = 0; i < len && i < QUOTE_BYTES; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            q[n++] = '\\';
            q[n++] = (char)c;
        } else if (c >= 0x20 && c < 0x7F) {
            q[n++] = (char)c;
        } else {
            q[n++] = '\\';
            q[n++] = 'x';
            q[n++] = hex[c >> 4];
            q[n++] = hex[c & 15];
        }
    }
    q[n++] = '"';
    if (len > QUOTE_BYTES) {
        memcpy(q + n, "...", 3);
        n += 3;
    }
    q[n] = 0;
    return q;
}

/* ---------- tags ---------- */

/* A tag taken apart: its canonical text and where its parts are (an
 * offset of 0 means the part is absent: only the language starts there). */
typedef struct tag_parts {
    char text[SDUI_LOCALE_TAG_MAX];
    size_t len;
    size_t lang_len;
    size_t script_at;
    size_t region_at, region_len;
} tag_parts;

/* Reports that tag[0, len) stops being a tag at byte at, for why. */
static sdui_status tag_fail(sdui_error *err, const char *tag, size_t len, size_t at, const char *why)
{
    char q[QUOTE_BYTES * 4 + 8];
    return sdui__fail(err, SDUI_ARGUMENT, (long long)at, "locale tag %s is not a tag: %s at byte %zu",
                      quote(tag, len, q), why, at);
}

/* Parses tag[0, len) into *t: language (2-3 letters), then an optional
 * script (4 letters), an optional region (2 letters or 3 digits) and
 * variants (5-8 letters and digits, or 4 starting with a digit), split by
 * '-' or '_', at most TAG_LIMIT bytes; then, read past and left out of the
 * canonical text, extensions (a singleton other than x and subtags of 2-8
 * letters and digits: -u-nu-latn, -t-...) and private use (x and subtags
 * of 1-8: -x-app), the whole tag at most SDUI_LOCALE_TAG_INPUT_MAX bytes.
 * SDUI_OK, or SDUI_ARGUMENT naming the byte where the text stops being a
 * tag.  Reads at most SDUI_LOCALE_TAG_INPUT_MAX + 1 bytes. */
static sdui_status parse_tag(const char *tag, size_t len, tag_parts *t, sdui_error *err)
{
    size_t i = 0, subtags = 0, core = 0, after_singleton = 0;
    int stage = 1;   /* 1: a script may come; 2: a region may; 3: variants only */
    int extension = 0;   /* 1: past a singleton; 2: past x (private use) */
    memset(t, 0, sizeof *t);
    if (!tag || len == 0)
        return tag_fail(err, "", 0, 0, "an empty tag");
    for (;;) {
        size_t start = i, n, k;
        int letters = 1, digits = 1;
        while (i < len && (is_alpha((unsigned char)tag[i]) || is_digit((unsigned char)tag[i]))) {
            if (i >= SDUI_LOCALE_TAG_INPUT_MAX)
                return tag_fail(err, tag, len, SDUI_LOCALE_TAG_INPUT_MAX, "longer than 255 bytes");
            letters = letters && is_alpha((unsigned char)tag[i]);
            digits = digits && is_digit((unsigned char)tag[i]);
            i++;
        }
        if (i < len && i >= SDUI_LOCALE_TAG_INPUT_MAX)
            return tag_fail(err, tag, len, SDUI_LOCALE_TAG_INPUT_MAX, "longer than 255 bytes");
        if (i < len && tag[i] != '-' && tag[i] != '_')
            return tag_fail(err, tag, len, i, "a character outside [A-Za-z0-9]");
        n = i - start;
        if (n == 0)
            return tag_fail(err, tag, len, start, "an empty subtag");
        if (subtags > 0 && n == 1 && extension != 2) {
            /* A singleton: an extension, or private use (x); the one
             * before needs a subtag of its own. */
            if (extension && after_singleton == 0)
                return tag_fail(err, tag, len, start, "an extension with no subtag");
            if (!extension)
                core = start - 1;
            extension = to_lower(tag[start]) == 'x' ? 2 : 1;
            after_singleton = 0;
        } else if (extension) {
            if (n > 8 || (extension == 1 && n < 2))
                return tag_fail(err, tag, len, start,
                                extension == 1 ? "an extension subtag that is not 2-8 letters and digits"
                                               : "a private use subtag longer than 8");
            after_singleton++;
        } else {
            if (i > TAG_LIMIT)
                return tag_fail(err, tag, len, TAG_LIMIT, "longer than 35 bytes before its extensions");
            if (subtags == 0) {
                if (n < 2 || n > 3 || !letters)
                    return tag_fail(err, tag, len, start, "a language that is not 2-3 letters");
                t->lang_len = n;
                for (k = start; k < i; k++)
                    t->text[k] = to_lower(tag[k]);
            } else if (stage == 1 && n == 4 && letters) {
                t->script_at = start;
                stage = 2;
                t->text[start] = to_upper(tag[start]);
                for (k = start + 1; k < i; k++)
                    t->text[k] = to_lower(tag[k]);
            } else if (stage <= 2 && ((n == 2 && letters) || (n == 3 && digits))) {
                t->region_at = start;
                t->region_len = n;
                stage = 3;
                for (k = start; k < i; k++)
                    t->text[k] = to_upper(tag[k]);
            } else if ((n >= 5 && n <= 8) || (n == 4 && is_digit((unsigned char)tag[start]))) {
                stage = 3;
                for (k = start; k < i; k++)
                    t->text[k] = to_lower(tag[k]);
            } else {
                return tag_fail(err, tag, len, start, "a subtag that is no script, region or variant here");
            }
            if (i < len && i < SDUI_LOCALE_TAG_MAX)
                t->text[i] = '-';
        }
        subtags++;
        if (i == len)
            break;
        i++;
    }
    if (extension && after_singleton == 0)
        return tag_fail(err, tag, len, len, "an extension with no subtag");
    if (!extension)
        core = len;
    assert(i == len && len <= SDUI_LOCALE_TAG_INPUT_MAX && core <= TAG_LIMIT);
    t->len = core;
    t->text[core] = 0;
    return SDUI_OK;
}

/* The canonical form of a tag (locale.h). */
sdui_status sdui_locale_canonical(const char *tag, size_t len, char out[SDUI_LOCALE_TAG_MAX], sdui_error *err)
{
    tag_parts t;
    sdui_status st = parse_tag(tag, len, &t, err);
    if (out)
        memcpy(out, st == SDUI_OK ? t.text : "", st == SDUI_OK ? t.len + 1 : 1);
    return st;
}

/* The entry of sdui__parents for canonical tag t, or NULL (a binary
 * search: the table is sorted by child). */
static const sdui__parent *find_parent(const char *t)
{
    size_t lo = 0, hi = sdui__parent_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t, str_at(sdui__parents[mid].child));
        if (c == 0)
            return &sdui__parents[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* The likely script of language lang[0, n) (2-3 lower-case letters), as
 * its 4-letter code: from the tables, Latn when they do not list it (a
 * binary search of the sorted languages). */
static const char *likely_script(const char *lang, size_t n)
{
    char key[4] = {0, 0, 0, 0};
    size_t lo = 0, hi = sdui__language_count;
    assert(n >= 2 && n <= 3);
    memcpy(key, lang, n);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(key, sdui__languages[mid]);
        if (c == 0)
            return sdui__scripts[sdui__language_scripts[mid]];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return "Latn";
}

/* The parent of canonical tag t into out: CLDR's when it names one; root
 * for language-Script when the script is not the language's likely one
 * (CLDR's localRules="nonlikelyScript": zh-Hant, sr-Latn); else t without
 * its last subtag.  Returns 0 (out unset) when the parent is root. */
static int parent_of(const char *t, char out[SDUI_LOCALE_TAG_MAX])
{
    const sdui__parent *p = find_parent(t);
    const char *dash;
    size_t n;
    if (p) {
        const char *s = str_at(p->parent);
        n = strlen(s);
        if (n == 0)
            return 0;
        assert(n < SDUI_LOCALE_TAG_MAX);
        memcpy(out, s, n + 1);
        return 1;
    }
    dash = strrchr(t, '-');
    if (!dash)
        return 0;
    n = (size_t)(dash - t);
    if (strchr(t, '-') == dash && strlen(dash + 1) == 4 && is_alpha((unsigned char)dash[1])
        && strcmp(dash + 1, likely_script(t, n)) != 0)
        return 0;
    memcpy(out, t, n);
    out[n] = 0;
    return 1;
}

/* The chain of a parsed tag into out[0, *count). */
static void chain_of(const tag_parts *t, char out[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX], size_t *count)
{
    size_t n = 1;
    memcpy(out[0], t->text, t->len + 1);
    /* A chain ends at root; its length is bounded (locale_data.c asserts
     * the bound against SDUI_LOCALE_CHAIN_MAX). */
    while (n < SDUI_LOCALE_CHAIN_MAX && parent_of(out[n - 1], out[n]))
        n++;
#ifndef NDEBUG
    if (n == SDUI_LOCALE_CHAIN_MAX) {
        char more[SDUI_LOCALE_TAG_MAX];
        assert(!parent_of(out[n - 1], more));
    }
#endif
    *count = n;
}

/* The fallback chain of a tag (locale.h). */
sdui_status sdui_locale_chain(const char *tag, size_t len, char out[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX],
                              size_t *count, sdui_error *err)
{
    tag_parts t;
    sdui_status st = parse_tag(tag, len, &t, err);
    if (count)
        *count = 0;
    if (st != SDUI_OK)
        return st;
    if (!out || !count)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "locale chain: a NULL output");
    chain_of(&t, out, count);
    return SDUI_OK;
}

/* ---------- the tables ---------- */

/* The CLDR release of the tables (locale.h). */
const char *sdui_locale_cldr_version(void)
{
    return sdui__locale_cldr;
}

/* The number of locales of the tables (locale.h). */
size_t sdui_locale_count(void)
{
    return sdui__locale_count;
}

/* The i-th locale's tag, or NULL (locale.h). */
const char *sdui_locale_at(size_t i)
{
    return i < sdui__locale_count ? str_at(sdui__locales[i].tag) : NULL;
}

/* The row of canonical tag t, or NULL (a binary search of the sorted
 * tags). */
static const sdui__locale *find_locale(const char *t)
{
    size_t lo = 0, hi = sdui__locale_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t, str_at(sdui__locales[mid].tag));
        if (c == 0)
            return &sdui__locales[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* The row whose data a parsed tag uses: the first of its chain that the
 * tables hold, else root. */
static const sdui__locale *row_of(const tag_parts *t)
{
    char chain[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX];
    size_t n, k;
    chain_of(t, chain, &n);
    for (k = 0; k < n; k++) {
        const sdui__locale *row = find_locale(chain[k]);
        if (row)
            return row;
    }
    return &sdui__locale_root;
}

/* The row whose data tag[0, len) uses, or NULL (err set) for a tag that is
 * not one. */
static const sdui__locale *data_row(const char *tag, size_t len, sdui_error *err)
{
    tag_parts t;
    if (parse_tag(tag, len, &t, err) != SDUI_OK)
        return NULL;
    return row_of(&t);
}

/* The locale whose data a tag uses (locale.h). */
const char *sdui_locale_data_locale(const char *tag, size_t len)
{
    const sdui__locale *row = data_row(tag, len, NULL);
    return str_at(row ? row->tag : sdui__locale_root.tag);
}

/* 1 when the 4-letter script s (canonical case) is written right to left
 * (a binary search of the sorted scripts; one the tables do not name is
 * not). */
static int rtl_script(const char *s)
{
    size_t lo = 0, hi = sdui__script_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strncmp(s, sdui__scripts[mid], 4);
        if (c == 0)
            return sdui__script_rtl[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* The direction of a parsed tag's language-region pair when its likely
 * script runs the other way than its language's: 0 LTR, 1 RTL, -1 when
 * the pair is not listed. */
static int region_direction(const tag_parts *t)
{
    char key[SDUI_LOCALE_TAG_MAX];
    size_t lo = 0, hi = sdui__region_direction_count, n = t->lang_len;
    memcpy(key, t->text, n);
    key[n] = '-';
    memcpy(key + n + 1, t->text + t->region_at, t->region_len);
    key[n + 1 + t->region_len] = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(key, str_at(sdui__region_directions[mid].tag));
        if (c == 0)
            return sdui__region_directions[mid].rtl;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

/* The writing direction of a tag (locale.h). */
sdui_direction sdui_locale_direction(const char *tag, size_t len)
{
    tag_parts t;
    int r;
    if (parse_tag(tag, len, &t, NULL) != SDUI_OK)
        return SDUI_DIRECTION_LTR;
    if (t.script_at)
        return rtl_script(t.text + t.script_at) ? SDUI_DIRECTION_RTL : SDUI_DIRECTION_LTR;
    if (t.region_at && (r = region_direction(&t)) >= 0)
        return r ? SDUI_DIRECTION_RTL : SDUI_DIRECTION_LTR;
    return rtl_script(likely_script(t.text, t.lang_len)) ? SDUI_DIRECTION_RTL : SDUI_DIRECTION_LTR;
}

/* ---------- plural categories ---------- */

/* The names of the categories, in the enum's order. */
static const char *const plural_names[] = {"zero", "one", "two", "few", "many", "other"};

/* A category's name (locale.h). */
const char *sdui_plural_name(sdui_plural category)
{
    if ((int)category < 0 || category > SDUI_PLURAL_OTHER)
        return "other";
    return plural_names[category];
}

/* The category named name[0, len) (locale.h). */
int sdui_plural_from_name(const char *name, size_t len, sdui_plural *out)
{
    int c;
    if (!name)
        return 0;
    for (c = 0; c <= SDUI_PLURAL_OTHER; c++)
        if (strlen(plural_names[c]) == len && memcmp(plural_names[c], name, len) == 0) {
            if (out)
                *out = (sdui_plural)c;
            return 1;
        }
    return 0;
}

/* The rule set of a row, cardinal or ordinal. */
static const sdui__plural_set *set_of(const sdui__locale *row, int ordinal)
{
    size_t s = ordinal ? row->ordinal : row->cardinal;
    assert(s < sdui__plural_set_count);
    return &sdui__plural_sets[s];
}

/* The categories a locale's rules can give (locale.h). */
unsigned sdui_locale_plural_categories(const char *tag, size_t len, int ordinal)
{
    const sdui__locale *row = data_row(tag, len, NULL);
    unsigned mask = set_of(row ? row : &sdui__locale_root, ordinal)->mask;
    assert(mask & (1u << SDUI_PLURAL_OTHER));
    return mask;
}

/* A decimal number taken apart: the digits of its text with the point left
 * out, where the point falls once the exponent has moved it, and the
 * exponent (the essay at the top). */
typedef struct decimal {
    char m[NUMBER_LIMIT];
    int nd;     /* digits in m */
    int p;      /* the integer digits are m[0, p), with zeros past nd */
    int e;      /* the exponent as written (CLDR's e and c) */
    int neg;    /* a '-' before it */
} decimal;

/* Reads number[0, len) (an optional '-', digits, an optional '.' and
 * digits, an optional exponent: e, E, c or C, a sign, at most max_exp) into
 * *d.  SDUI_OK, or SDUI_ARGUMENT naming the text and the byte where it
 * stops being a number. */
static sdui_status parse_number(const char *s, size_t len, int max_exp, decimal *d, sdui_error *err)
{
    char q[QUOTE_BYTES * 4 + 8];
    size_t i = 0;
    int int_digits = 0, exp = 0, exp_neg = 0;
    const char *why = "not a decimal number";
    memset(d, 0, sizeof *d);
    if (!s)
        len = 0;
    if (len > NUMBER_LIMIT) {
        i = NUMBER_LIMIT;
        why = "longer than 64 bytes";
        goto bad;
    }
    if (i < len && s[i] == '-') {
        d->neg = 1;
        i++;
    }
    if (i >= len || !is_digit((unsigned char)s[i]))
        goto bad;
    while (i < len && is_digit((unsigned char)s[i]))
        d->m[d->nd++] = s[i++];
    int_digits = d->nd;
    if (i < len && s[i] == '.') {
        i++;
        if (i >= len || !is_digit((unsigned char)s[i]))
            goto bad;
        while (i < len && is_digit((unsigned char)s[i]))
            d->m[d->nd++] = s[i++];
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E' || s[i] == 'c' || s[i] == 'C')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            exp_neg = s[i++] == '-';
        if (i >= len || !is_digit((unsigned char)s[i]))
            goto bad;
        while (i < len && is_digit((unsigned char)s[i])) {
            exp = exp * 10 + (s[i] - '0');
            if (exp > max_exp) {
                why = "an exponent out of range";
                goto bad;
            }
            i++;
        }
    }
    if (i != len)
        goto bad;
    assert(d->nd <= NUMBER_LIMIT);
    d->e = exp_neg ? -exp : exp;
    d->p = int_digits + d->e;
    return SDUI_OK;
bad:
    return sdui__fail(err, SDUI_ARGUMENT, (long long)i, "number %s is not one: %s at byte %zu",
                      quote(s ? s : "", len, q), why, i);
}

/* The value of the digits m[a, b) followed by z zeros into *v: modulo mod
 * when mod is not 0 (always 1), else exactly, or 0 when it has more than
 * 18 digits (larger than every range). */
static int digits_value(const char *m, int a, int b, long z, uint32_t mod, uint64_t *v)
{
    uint64_t r = 0;
    int k;
    if (mod) {
        uint64_t base = 10 % mod;
        for (k = a; k < b; k++)
            r = (r * 10 + (uint64_t)(m[k] - '0')) % mod;
        /* r * 10^z mod m, by repeated squaring. */
        while (z > 0) {
            if (z & 1)
                r = r * base % mod;
            base = base * base % mod;
            z >>= 1;
        }
        *v = r;
        return 1;
    }
    while (a < b && m[a] == '0')
        a++;
    if (a == b) {
        *v = 0;
        return 1;
    }
    if ((long)(b - a) + z > 18)
        return 0;
    for (k = a; k < b; k++)
        r = r * 10 + (uint64_t)(m[k] - '0');
    for (; z > 0; z--)
        r *= 10;
    *v = r;
    return 1;
}

/* The value of operand op of d (modulo mod, when not 0) into *v; 0 when it
 * is in no range: n with a fraction, a value above 18 digits, a negative
 * exponent. */
static int operand_value(const decimal *d, int op, uint32_t mod, uint64_t *v)
{
    int fa = d->p < 0 ? 0 : (d->p > d->nd ? d->nd : d->p);  /* the fraction's digits: m[fa, nd) */
    int last = d->nd;                                       /* past its last digit that is not 0 */
    long count;
    while (last > fa && d->m[last - 1] == '0')
        last--;
    if (op == SDUI__OP_N && last > fa)
        return 0;   /* not an integer: in no range */
    switch (op) {
    case SDUI__OP_N:   /* an integer: n is i */
    case SDUI__OP_I:
        return digits_value(d->m, 0, fa, d->p > d->nd ? d->p - d->nd : 0, mod, v);
    case SDUI__OP_F:
        return digits_value(d->m, fa, d->nd, 0, mod, v);
    case SDUI__OP_T:
        return digits_value(d->m, fa, last, 0, mod, v);
    case SDUI__OP_V:
        count = d->nd > d->p ? (long)d->nd - d->p : 0;
        break;
    case SDUI__OP_W:
        count = last > fa ? (long)last - d->p : 0;
        break;
    default:
        assert(op == SDUI__OP_E);
        if (d->e < 0)
            return 0;
        count = d->e;
        break;
    }
    *v = mod ? (uint64_t)count % mod : (uint64_t)count;
    return 1;
}

/* Whether relation r holds for d. */
static int relation_holds(const decimal *d, const sdui__plural_rel *r)
{
    uint64_t v;
    int in = 0;
    unsigned k;
    if (operand_value(d, r->op & SDUI__OP_OPERAND, sdui__plural_mods[r->mod], &v)) {
        for (k = 0; k < r->count && !in; k++) {
            const sdui__plural_range *g = &sdui__plural_ranges[r->first + k];
            in = v >= g->lo && v <= g->hi;
        }
    }
    return (r->op & SDUI__OP_NOT) ? !in : in;
}

/* Whether the condition of rule holds for d: its "and" groups, joined by
 * "or" (a group ends before the next relation marked SDUI__OP_OR). */
static int rule_holds(const decimal *d, const sdui__plural_rule *rule)
{
    int any = 0, all = 1;
    unsigned k;
    assert(rule->count > 0);
    for (k = 0; k < rule->count; k++) {
        const sdui__plural_rel *r = &sdui__plural_rels[rule->first + k];
        if (k > 0 && (r->op & SDUI__OP_OR)) {
            any = any || all;
            all = 1;
        }
        all = all && relation_holds(d, r);
    }
    return any || all;
}

/* The category of d by rule set s: the first rule that holds, else other. */
static sdui_plural category_of(const decimal *d, const sdui__plural_set *s)
{
    unsigned k;
    for (k = 0; k < s->count; k++) {
        const sdui__plural_rule *rule = &sdui__plural_rules[s->first + k];
        if (rule_holds(d, rule)) {
            assert(rule->category < SDUI_PLURAL_OTHER && (s->mask & (1u << rule->category)));
            return (sdui_plural)rule->category;
        }
    }
    return SDUI_PLURAL_OTHER;
}

/* The plural category of a number (locale.h). */
sdui_status sdui_locale_plural(const char *tag, size_t len, const char *number, size_t number_len, int ordinal,
                               sdui_plural *out, sdui_error *err)
{
    const sdui__locale *row;
    decimal d;
    sdui_status st;
    if (out)
        *out = SDUI_PLURAL_OTHER;
    row = data_row(tag, len, err);
    if (!row)
        return SDUI_ARGUMENT;
    st = parse_number(number, number_len, PLURAL_EXP_MAX, &d, err);
    if (st != SDUI_OK)
        return st;
    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "locale plural: a NULL output");
    *out = category_of(&d, set_of(row, ordinal));
    return SDUI_OK;
}

/* ---------- formats ---------- */

/* A currency as a format writes it: its symbol and currencySpacing flags
 * (sdui__symbol's), and its fraction digits. */
typedef struct currency {
    const char *symbol;
    size_t symbol_len;
    unsigned spacing;
    int digits;
    char code[4];     /* the code in upper case, the symbol of a currency
                         the tables do not have */
} currency;

/* Looks code[0, code_len) up for row into *c: its symbol in the locale,
 * else root's, else the code itself; its digits, else 2.  SDUI_ARGUMENT
 * for a code that is not three ASCII letters. */
static sdui_status find_currency(const sdui__locale *row, const char *code, size_t code_len, currency *c,
                                 sdui_error *err)
{
    char q[QUOTE_BYTES * 4 + 8];
    size_t lo = 0, hi = sdui__currency_count, k;
    if (!code || code_len != 3 || !is_alpha((unsigned char)code[0]) || !is_alpha((unsigned char)code[1])
        || !is_alpha((unsigned char)code[2]))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "currency code %s is not three letters",
                          quote(code ? code : "", code ? code_len : 0, q));
    for (k = 0; k < 3; k++)
        c->code[k] = to_upper(code[k]);
    c->code[3] = 0;
    c->symbol = c->code;
    c->symbol_len = 3;
    c->spacing = 3;   /* letters: spaced from digits on both sides */
    c->digits = 2;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = memcmp(c->code, sdui__currency_codes[mid], 3);
        if (cmp == 0) {
            uint16_t text = sdui__currency_root[mid].text;
            unsigned spacing = sdui__currency_root[mid].spacing;
            for (k = 0; k < row->symbol_count; k++) {
                const sdui__locale_symbol *ls = &sdui__locale_symbols[row->symbols + k];
                if (ls->currency == mid) {
                    text = ls->text;
                    spacing = ls->spacing;
                }
            }
            c->symbol = str_at(text);
            c->symbol_len = strlen(c->symbol);
            c->spacing = spacing;
            c->digits = sdui__currency_digits[mid];
            break;
        }
        if (cmp < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return SDUI_OK;
}

/* A text being written into a caller's buffer: what fits, and the length
 * the whole would have. */
typedef struct writer {
    char *buf;
    size_t cap;
    size_t n;
} writer;

/* Appends s[0, len) when it fits with a NUL after it; counts it anyway. */
static void put(writer *w, const char *s, size_t len)
{
    if (w->n + len < w->cap)
        memcpy(w->buf + w->n, s, len);
    w->n += len;
}

/* Appends digit k (0-9) of the numbering system whose zero is code point
 * zero. */
static void put_digit(writer *w, uint32_t zero, int k)
{
    char u[4];
    assert(k >= 0 && k <= 9);
    put(w, u, sdui__utf8_put(u, (unsigned long)zero + (unsigned long)k));
}

/* The currency sign of the patterns, U+00A4, in UTF-8. */
#define CURRENCY_SIGN "\302\244"

/* A no-break space, U+00A0: CLDR's currencySpacing inserts it. */
#define NBSP "\302\240"

/* Appends affix a, its currency sign replaced by c's symbol (c NULL: none
 * can occur).  CLDR's currencySpacing: when the sign touches the digits
 * (it ends a prefix or starts a suffix) and the symbol's character next to
 * them is neither a symbol nor a space (sdui__symbol's flags), a no-break
 * space goes between ("CHF 12.00" but "$12.00"). */
static void put_affix(writer *w, const char *a, const currency *c, int prefix)
{
    size_t n = strlen(a), i = 0;
    while (i < n) {
        if (c && a[i] == CURRENCY_SIGN[0] && a[i + 1] == CURRENCY_SIGN[1]) {
            int touches = prefix ? i + 2 == n : i == 0;
            if (touches && !prefix && (c->spacing & 1))
                put(w, NBSP, 2);
            put(w, c->symbol, c->symbol_len);
            if (touches && prefix && (c->spacing & 2))
                put(w, NBSP, 2);
            i += 2;
            continue;
        }
        put(w, a + i, 1);
        i++;
    }
}

/* Rounds d half-even to max_frac fraction digits, in place, and drops
 * the zeros at either end of its digits (0: nd 0). */
static void round_digits(decimal *d, int max_frac)
{
    int keep, k, up;
    /* Leading zeros say nothing: 0.05 is the digit 5 at place -1. */
    for (k = 0; k < d->nd && d->m[k] == '0'; k++)
        ;
    if (k > 0) {
        memmove(d->m, d->m + k, (size_t)(d->nd - k));
        d->nd -= k;
        d->p -= k;
    }
    keep = d->p + max_frac;   /* the digits that stay */
    if (keep < d->nd) {
        if (keep < 0) {
            d->nd = 0;        /* below half of the last place: 0 */
        } else {
            int rest = 0;
            for (k = keep + 1; k < d->nd; k++)
                rest = rest || d->m[k] != '0';
            up = d->m[keep] > '5' || (d->m[keep] == '5' && (rest || (keep > 0 && (d->m[keep - 1] - '0') % 2)));
            d->nd = keep;
            for (k = keep - 1; up && k >= 0; k--) {
                if (d->m[k] == '9') {
                    d->m[k] = '0';
                } else {
                    d->m[k]++;
                    up = 0;
                }
            }
            if (up) {         /* 9.99 -> 10.0, or 0.5 at place 0 -> 1 */
                d->m[0] = '1';
                d->nd = 1;
                d->p++;
            }
        }
    }
    while (d->nd > 0 && d->m[d->nd - 1] == '0')
        d->nd--;
    if (d->nd == 0)
        d->p = 0;
}

/* Writes d by pattern pat and the number format nf, with currency c (NULL
 * but for a currency format, which also takes nf's currency separators),
 * min_frac to max_frac fraction digits. */
static void write_number(writer *w, decimal *d, const sdui__numbers *nf, const sdui__pattern *pat,
                         const currency *c, int min_frac, int max_frac)
{
    int ints, frac, k, g1 = pat->primary, g2 = pat->secondary ? pat->secondary : pat->primary, grouped;
    const char *group = str_at(nf->group), *point = str_at(nf->decimal);
    size_t group_len;

    /* An amount of money takes the currency separators where the locale
     * has its own (CLDR's currencyDecimal, currencyGroup: fr-CH). */
    if (c && nf->currency_decimal)
        point = str_at(nf->currency_decimal);
    if (c && nf->currency_group)
        group = str_at(nf->currency_group);
    group_len = strlen(group);

    round_digits(d, max_frac);
    if (d->nd == 0)
        d->neg = 0;   /* nothing rounds to "-0" */
    ints = d->p > 0 ? d->p : 0;
    if (ints < pat->min_int)
        ints = pat->min_int;
    frac = d->nd > d->p ? d->nd - d->p : 0;
    if (frac < min_frac)
        frac = min_frac;
    assert(frac <= max_frac || max_frac < min_frac);
    grouped = g1 > 0 && ints >= g1 + nf->min_grouping;

    put_affix(w, str_at(d->neg ? pat->neg_prefix : pat->pos_prefix), c, 1);
    for (k = 0; k < ints; k++) {
        int at = d->p - ints + k;   /* the digit's index in m (negative: a leading zero) */
        int right = ints - k;       /* digits from this one to the point */
        if (k > 0 && grouped && (right == g1 || (right > g1 && (right - g1) % g2 == 0)))
            put(w, group, group_len);
        put_digit(w, nf->zero, at >= 0 && at < d->nd ? d->m[at] - '0' : 0);
    }
    if (frac > 0) {
        put(w, point, strlen(point));
        for (k = 0; k < frac; k++) {
            int at = d->p + k;
            put_digit(w, nf->zero, at >= 0 && at < d->nd ? d->m[at] - '0' : 0);
        }
    }
    put_affix(w, str_at(d->neg ? pat->neg_suffix : pat->pos_suffix), c, 0);
}

/* Empties the caller's buffer (when it has room for the NUL) and returns
 * st: what a format leaves on an error. */
static sdui_status no_text(char *buf, size_t cap, size_t *out_len, sdui_status st)
{
    if (buf && cap > 0)
        buf[0] = 0;
    if (out_len)
        *out_len = 0;
    return st;
}

/* Formats a decimal text (locale_data.h). */
sdui_status sdui__locale_format(const char *tag, size_t len, int kind, const char *number, size_t number_len,
                                int fraction_digits, const char *code, size_t code_len, char *buf, size_t cap,
                                size_t *out_len, sdui_error *err)
{
    const sdui__locale *row;
    const sdui__numbers *nf;
    const sdui__pattern *pat;
    currency cur;
    decimal d;
    writer w;
    int min_frac, max_frac;

    if (kind == SDUI__FORMAT_DECIMAL && fraction_digits > 20)
        return no_text(buf, cap, out_len,
                       sdui__fail(err, SDUI_ARGUMENT, -1, "fraction digits %d: more than 20", fraction_digits));
    if (!(row = data_row(tag, len, err)))
        return no_text(buf, cap, out_len, SDUI_ARGUMENT);
    if (kind == SDUI__FORMAT_CURRENCY && find_currency(row, code, code_len, &cur, err) != SDUI_OK)
        return no_text(buf, cap, out_len, SDUI_ARGUMENT);
    if (parse_number(number, number_len, FORMAT_EXP_MAX, &d, err) != SDUI_OK)
        return no_text(buf, cap, out_len, SDUI_ARGUMENT);
    nf = &sdui__number_formats[row->numbers];
    pat = &sdui__patterns[kind == SDUI__FORMAT_PERCENT    ? nf->percent_pattern
                          : kind == SDUI__FORMAT_CURRENCY ? nf->currency_pattern
                                                          : nf->decimal_pattern];
    min_frac = pat->min_frac;
    max_frac = pat->max_frac;
    if (kind == SDUI__FORMAT_DECIMAL && fraction_digits >= 0)
        min_frac = max_frac = fraction_digits;
    if (kind == SDUI__FORMAT_CURRENCY)
        min_frac = max_frac = cur.digits;
    if (kind == SDUI__FORMAT_PERCENT)
        d.p += 2;   /* 0.25 is 25 % */
    w.buf = buf;
    w.cap = buf ? cap : 0;
    w.n = 0;
    write_number(&w, &d, nf, pat, kind == SDUI__FORMAT_CURRENCY ? &cur : NULL, min_frac, max_frac);
    if (w.n >= w.cap) {
        if (out_len)
            *out_len = w.n;
        if (buf && cap > 0)
            buf[0] = 0;
        return sdui__fail(err, SDUI_LIMIT, -1, "formatted number: %zu bytes and a NUL do not fit in %zu", w.n,
                          cap);
    }
    buf[w.n] = 0;
    if (out_len)
        *out_len = w.n;
    return SDUI_OK;
}

/* Formats a double through its shortest text: SDUI_ARGUMENT for NaN and
 * the infinities. */
static sdui_status format_double(const char *tag, size_t len, int kind, double x, int fraction_digits,
                                 const char *code, size_t code_len, char *buf, size_t cap, size_t *out_len,
                                 sdui_error *err)
{
    char text[SDUI_NUMBER_TEXT_MAX];
    size_t n;
    if (!isfinite(x))
        return no_text(buf, cap, out_len,
                       sdui__fail(err, SDUI_ARGUMENT, -1, "number %s is not finite",
                                  isnan(x) ? "nan" : x > 0 ? "inf" : "-inf"));
    n = sdui_number_text(x, text);
    return sdui__locale_format(tag, len, kind, text, n, fraction_digits, code, code_len, buf, cap, out_len, err);
}

/* A number in the locale's decimal format (locale.h). */
sdui_status sdui_locale_format_number(const char *tag, size_t len, double x, int fraction_digits, char *buf,
                                      size_t cap, size_t *out_len, sdui_error *err)
{
    return format_double(tag, len, SDUI__FORMAT_DECIMAL, x, fraction_digits, NULL, 0, buf, cap, out_len, err);
}

/* A number in the locale's percent format (locale.h). */
sdui_status sdui_locale_format_percent(const char *tag, size_t len, double x, char *buf, size_t cap,
                                       size_t *out_len, sdui_error *err)
{
    return format_double(tag, len, SDUI__FORMAT_PERCENT, x, -1, NULL, 0, buf, cap, out_len, err);
}

/* An amount in the locale's currency format (locale.h). */
sdui_status sdui_locale_format_currency(const char *tag, size_t len, double x, const char *code, size_t code_len,
                                        char *buf, size_t cap, size_t *out_len, sdui_error *err)
{
    return format_double(tag, len, SDUI__FORMAT_CURRENCY, x, -1, code, code_len, buf, cap, out_len, err);
}
