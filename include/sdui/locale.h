/*
 * locale.h - what a locale changes in the core's output: plural categories,
 * numbers, percentages and amounts of money written the locale's way, the
 * writing direction, and the chain of locales a lookup falls back along.
 *
 * Everything here comes from tables generated from CLDR
 * (scripts/gen-cldr.py writes csrc/locale_data.c; sdui_locale_cldr_version
 * names the release), never from the host's C locale: the result is the
 * same under any setlocale() and on every platform, so an app on iOS, on
 * Android and the registry all write "1.234,5" for de.
 *
 * Locale tags are BCP 47 (language[-Script][-REGION]); '_' is read as '-'
 * and case is not significant ("de_ch" is "de-CH").  A locale the tables do
 * not have uses the data of the nearest one on its chain (de-BE uses de),
 * and a language they do not have at all uses root: plural "other" only,
 * '.' and ',' symbols, left to right.
 *
 * Nothing here allocates and nothing keeps state: every function is
 * thread-safe.
 */
#ifndef SDUI_LOCALE_H
#define SDUI_LOCALE_H

#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest canonical tag, with its NUL. */
#define SDUI_LOCALE_TAG_MAX 36

/* The longest tag read, extensions included (`de-CH-u-nu-latn-fw-mon`);
 * what comes before its extensions is at most SDUI_LOCALE_TAG_MAX - 1. */
#define SDUI_LOCALE_TAG_INPUT_MAX 255

/* The most locales a chain holds: a tag of 35 bytes has at most 8 subtags
 * (language, script, region, five variants), and CLDR's parents can make
 * its chain two longer (en-AT-... -> en-AT -> en-150 -> en-001 -> en);
 * locale_data.c asserts the bound for the parents it holds. */
#define SDUI_LOCALE_CHAIN_MAX 10

/* A buffer this large holds any formatted number (every double, grouped,
 * with 20 fraction digits, in digits of up to three bytes, with symbols
 * and the currency's symbol), with its NUL: the largest double has 309
 * integer digits.  locale_data.c asserts the bound for its tables. */
#define SDUI_LOCALE_TEXT_MAX 2048

/* The CLDR plural categories, in CLDR's order. */
typedef enum sdui_plural {
    SDUI_PLURAL_ZERO = 0,
    SDUI_PLURAL_ONE,
    SDUI_PLURAL_TWO,
    SDUI_PLURAL_FEW,
    SDUI_PLURAL_MANY,
    SDUI_PLURAL_OTHER
} sdui_plural;

/* Writing direction. */
typedef enum sdui_direction {
    SDUI_DIRECTION_LTR = 0,
    SDUI_DIRECTION_RTL = 1
} sdui_direction;

/* The CLDR release the tables were generated from, as Babel names it
 * ("49", say).  Static storage. */
const char *sdui_locale_cldr_version(void);

/* The number of locales the tables hold, and the canonical tag of the i-th
 * (sorted by tag; NULL past the end).  Static storage. */
size_t sdui_locale_count(void);
const char *sdui_locale_at(size_t i);

/*
 * Writes the canonical form of tag[0, len) to out (NUL-terminated):
 * language in lower case, Script in title case, REGION in upper case
 * (two letters or three digits), variants in lower case; '_' becomes '-'.
 * Extensions and private use (`-u-nu-latn`, `-u-fw-mon-mu-celsius` as
 * Android adds for regional preferences, `-x-app`) are checked for their
 * form and left out: the tables hold no data they would select.
 * Returns SDUI_OK, or SDUI_ARGUMENT with a message naming the tag and the
 * byte where it stops being a tag (an empty tag, a language that is not
 * 2-3 letters, a subtag of a wrong length, a character outside [A-Za-z0-9],
 * an extension without a subtag, more than SDUI_LOCALE_TAG_MAX - 1 bytes
 * before the extensions or SDUI_LOCALE_TAG_INPUT_MAX in all).  Thread-safe.
 */
sdui_status sdui_locale_canonical(const char *tag, size_t len, char out[SDUI_LOCALE_TAG_MAX], sdui_error *err);

/*
 * The fallback chain of tag[0, len): the canonical tag, then each parent
 * (CLDR's parent locales where CLDR names one: es-MX -> es-419 -> es,
 * pt-AO -> pt-PT -> pt, zh-Hant-TW -> zh-Hant and no further; otherwise the
 * tag with its last subtag removed: de-CH -> de).  Root is not in the
 * chain.  Writes the tags to out[0..n) and n to *count.  Returns
 * SDUI_ARGUMENT (as sdui_locale_canonical) for a tag that is not one.
 * Thread-safe.
 */
sdui_status sdui_locale_chain(const char *tag, size_t len, char out[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX],
                              size_t *count, sdui_error *err);

/* The locale of the tables whose data tag[0, len) uses (the first of its
 * chain the tables hold), or "root".  Static storage; "root" also for a
 * tag that is not one.  Thread-safe. */
const char *sdui_locale_data_locale(const char *tag, size_t len);

/* The direction tag[0, len) is written in (from its script, or else its
 * likely script in CLDR: that of its language and region where CLDR gives
 * one, pa-PK is Arab, else its language's: ar, fa, he, ur are right to
 * left; az-Arab too; ar-Latn is not).  LTR for a tag that is not one.
 * Thread-safe. */
sdui_direction sdui_locale_direction(const char *tag, size_t len);

/* The category's name ("zero", "one", "two", "few", "many", "other");
 * "other" outside the enum.  Static storage. */
const char *sdui_plural_name(sdui_plural category);

/* The category named name[0, len) into *out; 0 when it names none. */
int sdui_plural_from_name(const char *name, size_t len, sdui_plural *out);

/* The categories a locale's rules can select, as a mask of
 * (1u << category); ordinal != 0 for the ordinal rules.  "other" is always
 * in it.  Thread-safe. */
unsigned sdui_locale_plural_categories(const char *tag, size_t len, int ordinal);

/*
 * The plural category of the number written number[0, number_len) in the
 * locale tag[0, len), by its cardinal rules (ordinal == 0) or its ordinal
 * rules.  The number is decimal text, an optional '-' then digits with an
 * optional fraction ("1", "1.0", "2.50", "-3"); CLDR's operands come from
 * the text as written, so "1" and "1.0" may differ (en: one, other).  An
 * exponent ("1e3", "1.2c6" is CLDR's notation for compact numbers; e, E,
 * c or C, a sign, at most 9999) is read as CLDR's operand e.  Returns
 * SDUI_OK, or SDUI_ARGUMENT naming the number and the byte where it is not
 * one (at most 64 bytes), or for a bad tag (as sdui_locale_canonical).
 * Thread-safe.
 */
sdui_status sdui_locale_plural(const char *tag, size_t len, const char *number, size_t number_len, int ordinal,
                               sdui_plural *out, sdui_error *err);

/*
 * Writes x in the locale's decimal format to buf[0, cap) (NUL-terminated;
 * the length without the NUL in *out_len): its digits, grouping (primary
 * and secondary sizes, and the minimum grouping digits: es writes "1234"
 * and "12.345"), decimal separator, minus sign.  fraction_digits < 0: the
 * pattern's (at most 3 fraction digits, trailing zeros dropped); 0..20:
 * exactly that many.  Rounding is half-even on the decimal value of x's
 * shortest text (the one number-to-text rule), so 0.125 with 2 digits is
 * "0.12" and 2.675 is "2.68" (its shortest text is 2.675).  -0, and a
 * negative x that rounds to zero, are written as 0.  Digits are those of
 * the locale's default numbering system (ar-EG, fa, bn, mr: not ASCII).
 * Returns SDUI_OK; SDUI_ARGUMENT for a NaN or infinite x, a fraction_digits
 * above 20, or a bad tag; SDUI_LIMIT when cap is too small
 * (SDUI_LOCALE_TEXT_MAX always suffices), with *out_len the length the
 * text needs.  On an error buf holds "" (when cap > 0).  Thread-safe.
 */
sdui_status sdui_locale_format_number(const char *tag, size_t len, double x, int fraction_digits, char *buf,
                                      size_t cap, size_t *out_len, sdui_error *err);

/* As sdui_locale_format_number, in the locale's percent format: x = 0.25
 * is "25%" in en, "25 %" in de (with the locale's own spaces and sign),
 * with no fraction digits, rounded half-even. */
sdui_status sdui_locale_format_percent(const char *tag, size_t len, double x, char *buf, size_t cap,
                                       size_t *out_len, sdui_error *err);

/*
 * As sdui_locale_format_number, in the locale's currency format for the
 * ISO 4217 code code[0, code_len) (three letters, any case): the
 * currency's symbol in that locale ("$" for USD in en, "US$" in en-CA,
 * "€" for EUR), or the code itself for a currency the tables have no
 * symbol for; the currency's digits (from CLDR: JPY 0, KWD 3, ...; 2 for
 * a currency the tables do not have); the locale's placement and spacing
 * ("€1,234.50" in en, "1.234,50 €" in de), with CLDR's currencySpacing (a
 * no-break space between digits and a symbol that ends, or starts, with a
 * letter: "CHF 1,234.50" in en).  SDUI_ARGUMENT also for a code that is
 * not three letters.
 */
sdui_status sdui_locale_format_currency(const char *tag, size_t len, double x, const char *code, size_t code_len,
                                        char *buf, size_t cap, size_t *out_len, sdui_error *err);

#ifdef __cplusplus
}
#endif
#endif
