/*
 * catalog.h - string catalogs: the text of a key in a locale, found along
 * one fallback chain, with its plural form chosen and its arguments put in.
 * The app, the registry's import check and the CLI all call this one
 * implementation, so every platform shows the same text for the same key.
 *
 * A catalog is the JSON object of one locale (strings/<locale>.json in a
 * registry's folder, a member of a pack):
 *
 *   {"checkout.title": "Kasse",
 *    "cart.items": {"one": "{count} Artikel", "other": "{count} Artikel"},
 *    "cart.empty": {"=0": "Nichts im Korb", "other": "{count} im Korb"}}
 *
 * A key is 1-128 bytes of [A-Za-z0-9_.-].  Its value is a string, or a
 * plural object whose members are CLDR categories (zero, one, two, few,
 * many, other) or exact values ("=0", "=12"), with "other" required.
 * Texts use ICU MessageFormat's arguments: {name} (name: [A-Za-z_]
 * [A-Za-z0-9_]*, at most 64 bytes) is replaced by the argument of that name;
 * an apostrophe quotes ICU's way ('{' is a literal brace, '' an apostrophe,
 * an apostrophe before any other character is itself: "l'article"; a
 * quoted run lasts to the next lone apostrophe, or to the end of the text:
 * "'{name}'" is the literal "{name}").
 *
 * The chain.  A lookup of key in locale L tries L's chain (sdui_locale_chain:
 * de-CH, de), then the set's default locale's chain, and when none has the
 * key, gives the key itself and says it is missing.  A plural entry's form
 * is chosen by the argument named "count": an exact form equal to its
 * value first, then the form of its cardinal category in the locale the
 * text came from; a form the entry lacks falls back to "other".  The count
 * is a number argument, or a text argument that is decimal text
 * (-?[0-9]+(.[0-9]+)?, at most 64 bytes); its category is that of its
 * decimal text: a text as written ("1.0" is not "1" in en), a number as
 * sdui_number_text writes it, less the ".0" of an integral value and
 * without an exponent (3 is "3", 1.5 is "1.5").  A number argument is
 * written with sdui_locale_format_number in the locale the text came from
 * (NaN and the infinities, which it cannot write, as sdui_number_text
 * does: nan, inf, -inf).
 *
 * Limits bound work as well as size: a catalog's JSON at most
 * max_catalog_bytes (sdui_strings_new), a text at most 4096 bytes, at most
 * 64 arguments in one text, at most 256 locales in a set; a lookup hashes
 * the key once and probes the table of each locale of the chain the set
 * has a catalog of (at most 2 * SDUI_LOCALE_CHAIN_MAX probes), and writes
 * at most the text plus its arguments.
 *
 * Thread-safety: a set is built (sdui_strings_add) by one thread; once
 * built, any number of threads may look up and check concurrently.
 */
#ifndef SDUI_CATALOG_H
#define SDUI_CATALOG_H

#include <stddef.h>

#include "error.h"
#include "locale.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_strings sdui_strings;

/* The default bound on one catalog's JSON text: 1 MiB. */
#define SDUI_STRINGS_DEFAULT_MAX_CATALOG_BYTES ((size_t)1 << 20)

/*
 * A new empty set whose default locale is default_locale[0, len) (the last
 * locales of every chain; canonicalized), reading catalogs of at most
 * max_catalog_bytes (0: the default).  Returns SDUI_OK and the set in *out
 * (the caller frees it with sdui_strings_free); SDUI_ARGUMENT for a tag
 * that is not one; SDUI_OOM.
 */
sdui_status sdui_strings_new(const char *default_locale, size_t len, size_t max_catalog_bytes, sdui_strings **out,
                             sdui_error *err);

/* Frees the set; NULL is a no-op. */
void sdui_strings_free(sdui_strings *strings);

/* The set's default locale, canonical.  Owned by the set. */
const char *sdui_strings_default_locale(const sdui_strings *strings);

/*
 * Adds the catalog of locale[0, len) from the JSON text json[0, json_len),
 * replacing one the set had for that locale.  The text is checked whole
 * before anything changes; an error names the locale, the JSON path
 * ($["cart.items"].few) and the byte offset: not JSON, not an object, a
 * key that is not a key or appears twice, a value that is neither a string
 * nor a plural object, a plural object without "other", with a member
 * that is not a category or an exact value, or with two members of one
 * name or one exact value ("=1", "=1.0"), a text with an unbalanced
 * brace or a bad argument name (SDUI_SCHEMA); past a limit (SDUI_LIMIT:
 * a key longer than 128 bytes, an argument name longer than 64, a text
 * longer than 4096 bytes or with more than 64 {arguments}, JSON longer
 * than max_catalog_bytes or nested deeper than 128 levels, a 257th
 * locale).  When the text is not JSON, that is the error reported,
 * wherever else it goes wrong.  Returns
 * SDUI_OK, SDUI_JSON, SDUI_SCHEMA, SDUI_LIMIT, SDUI_ARGUMENT (a bad tag or
 * NULL) or SDUI_OOM.  Not thread-safe with anything else on the set.
 */
sdui_status sdui_strings_add(sdui_strings *strings, const char *locale, size_t len, const char *json,
                             size_t json_len, sdui_error *err);

/*
 * A new set from a bundle: the JSON object {"default": "<tag>", "catalogs":
 * {"<tag>": {catalog}, ...}} that GET /strings answers, a pack's "strings"
 * member and the disk cache keep (other members, such as "locale", are
 * ignored).  Every catalog is checked as sdui_strings_add checks it, and
 * an error names the bundle's path ($.catalogs["de"]["cart.items"]).
 * Returns SDUI_OK and the set in *out (the caller frees it with
 * sdui_strings_free); SDUI_JSON for text that is not JSON; SDUI_SCHEMA for
 * a bundle of another shape, a "default" or catalog key that is not a
 * locale tag, or a member or locale given twice; what sdui_strings_add
 * answers for a catalog that is not sound; SDUI_LIMIT past 256 catalogs;
 * SDUI_ARGUMENT for NULL; SDUI_OOM.
 */
sdui_status sdui_strings_open_bundle(const char *json, size_t json_len, size_t max_catalog_bytes,
                                     sdui_strings **out, sdui_error *err);

/* The number of locales in the set and the i-th, sorted by tag (NULL past
 * the end).  Owned by the set. */
size_t sdui_strings_locale_count(const sdui_strings *strings);
const char *sdui_strings_locale_at(const sdui_strings *strings, size_t i);

/* One argument of a lookup: its name and either a number or a text. */
typedef struct sdui_strings_arg {
    const char *name;
    size_t name_len;
    int is_number;      /* 1: number is the value; 0: text[0, text_len) */
    double number;
    const char *text;
    size_t text_len;
} sdui_strings_arg;

/* What a lookup found. */
typedef struct sdui_strings_result {
    /* The locale the text came from (owned by the set), or NULL when no
     * locale had the key and the text is the key. */
    const char *locale;
    int missing;          /* 1: no locale of the chain had the key        */
    int fell_back;        /* 1: the text is not from the requested locale
                           * (also when missing)                           */
    int plural;           /* 1: the entry was a plural object              */
    sdui_plural category; /* its category, when plural (exact forms: the
                           * category of the count all the same)           */
    int form_missing;     /* 1: the entry lacked the category's form and
                           * "other" was used                              */
    int count_missing;    /* 1: a plural entry and no number "count"       */
    size_t unknown_args;  /* {name}s with no argument (left as written)    */
} sdui_strings_result;

/*
 * The text of key[0, key_len) in locale[0, locale_len) with args[0..n)
 * put in, written to a new buffer in *out (NUL-terminated, its length in
 * *out_len; the caller frees it with sdui_free) and what was found to
 * *result.  A missing key is not an error: the text is the key and
 * result->missing is 1.  Returns SDUI_OK; SDUI_ARGUMENT for a bad locale
 * tag, a NULL pointer or more than 64 arguments; SDUI_OOM.  Thread-safe
 * on a built set.
 */
sdui_status sdui_strings_format(const sdui_strings *strings, const char *locale, size_t locale_len,
                                const char *key, size_t key_len, const sdui_strings_arg *args, size_t n,
                                char **out, size_t *out_len, sdui_strings_result *result, sdui_error *err);

/* Whether key[0, key_len) has an entry in exactly the catalog of locale
 * (no fallback).  0 for a locale the set has no catalog of. */
int sdui_strings_has(const sdui_strings *strings, const char *locale, size_t locale_len, const char *key,
                     size_t key_len);

/* The kinds of finding a check reports. */
typedef enum sdui_strings_finding_kind {
    SDUI_STRINGS_MISSING = 0, /* a key of the default catalog that a locale's chain lacks */
    SDUI_STRINGS_UNUSED,      /* a key no screen, block or flow refers to */
    SDUI_STRINGS_UNDEFINED,   /* a key referred to that no catalog has (only with used keys) */
    SDUI_STRINGS_ARGUMENTS,   /* a locale's text names other {arguments} than the default's */
    SDUI_STRINGS_PLURAL,      /* a plural entry lacks a form its locale's rules select */
    SDUI_STRINGS_ORPHAN       /* a key a locale has and the default catalog does not */
} sdui_strings_finding_kind;

/* One finding: its kind, the locale (NULL for unused and undefined), the
 * key, and a sentence saying what is wrong ("pl's 'cart.items' lacks the
 * form 'few' (e.g. 2, 3, 4) that pl's plural rules select; \"other\" is
 * shown instead").  The strings are valid during the callback only. */
typedef struct sdui_strings_finding {
    sdui_strings_finding_kind kind;
    const char *locale;
    const char *key;
    const char *message;
} sdui_strings_finding;

/* The kind's name: "missing", "unused", "undefined", "arguments",
 * "plural", "orphan".  Static storage. */
const char *sdui_strings_finding_name(sdui_strings_finding_kind kind);

/* Receives each finding; returns 0 to go on, anything else to stop. */
typedef int (*sdui_strings_finding_fn)(void *ctx, const sdui_strings_finding *finding);

/*
 * Checks the set.  "The default catalog" is what a lookup in the default
 * locale finds: the catalogs of its chain (en-US's, then en's).  Keys
 * missing per locale (a key the default catalog has that no catalog of a
 * locale's own chain has; the default locale's chain itself is never
 * missing), argument names that differ from the default
 * catalog's for the same key (a plural entry: the union of its forms),
 * plural forms a locale's rules select that an entry lacks (exact forms
 * do not stand in for categories), and keys only a locale has (orphan).
 * With used[0..n_used) (keys screens, blocks and flows refer to; NULL when
 * n_used is 0, which skips both), also keys no one uses and used keys no
 * catalog has.  Findings come in a fixed order: by kind, then locale, then
 * key.  Returns SDUI_OK (also when there are findings), SDUI_ARGUMENT for
 * NULL, SDUI_OOM.  Thread-safe on a built set.
 */
sdui_status sdui_strings_check(const sdui_strings *strings, const char *const *used, const size_t *used_lens,
                               size_t n_used, sdui_strings_finding_fn fn, void *ctx, sdui_error *err);

#ifdef __cplusplus
}
#endif
#endif
