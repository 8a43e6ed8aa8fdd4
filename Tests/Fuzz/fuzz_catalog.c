/*
 * fuzz_catalog.c - libFuzzer harness for string catalogs
 * (include/sdui/catalog.h).
 *
 * The input is cut at 0xFF bytes into parts: the default locale, then
 * pairs of a locale and a catalog's JSON (up to three, the last part of a
 * pair may be missing), and after a part that is exactly "@" the lookups:
 * a locale, a key, and arguments "name=value" ("#name=value" for a number
 * read with strtod; the harness runs in the "C" locale).  For any input
 * nothing may crash, leak (ASan) or read out of bounds, and:
 *   - every call answers one of the statuses its header names, and err
 *     says the same status with a message (naming the locale for an add);
 *   - a failed add changes nothing: the locales and what has() says of
 *     the keys of that catalog are as before;
 *   - when jansson (the tests' reference parser, refusing duplicate
 *     names) reads a catalog as an object of valid keys whose values are
 *     strings without braces and apostrophes, of at most 4096 bytes, the
 *     add succeeds and each key's text in that locale is its string;
 *   - a lookup's text is NUL-terminated at its length; a missing key
 *     gives the key itself and no locale; a found one gives a locale of
 *     the set; the same lookup twice gives the same text and result;
 *   - the check's findings come strictly ordered by kind, locale (none
 *     for unused and undefined) and key, each with a message, and a
 *     callback that says stop is not called again.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_catalog: invariant broken at line %d: %s\n", line, what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

#define MAX_PARTS 24
#define MAX_ARGS 16

/* One part of the input. */
typedef struct part {
    const char *p;
    size_t n;
} part;

/* Whether k[0, n) is a key: 1-128 bytes of [A-Za-z0-9_.-]. */
static int is_key(const char *k, size_t n)
{
    size_t i;
    if (n < 1 || n > 128)
        return 0;
    for (i = 0; i < n; i++) {
        char c = k[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
              || c == '-'))
            return 0;
    }
    return 1;
}

/* jansson's object of json[0, n) when it is a catalog of plain texts (see
 * the top of this file), else NULL. */
static json_t *plain_catalog(const char *json, size_t n)
{
    json_error_t e;
    json_t *root = json_loadb(json, n, JSON_REJECT_DUPLICATES, &e), *v;
    const char *key;
    if (!root)
        return NULL;
    if (!json_is_object(root))
        goto no;
    json_object_foreach(root, key, v) {
        const char *t;
        size_t len;
        if (!is_key(key, strlen(key)) || !json_is_string(v))
            goto no;
        t = json_string_value(v);
        len = json_string_length(v);
        if (len > 4096 || memchr(t, '{', len) || memchr(t, '}', len) || memchr(t, '\'', len))
            goto no;
    }
    return root;
no:
    json_decref(root);
    return NULL;
}

/* What the check's callback keeps. */
typedef struct order {
    int started;
    int kind;
    char locale[SDUI_LOCALE_TAG_MAX + 1]; /* "" for none */
    char key[512];
    int count, stop_at;
} order;

/* The check's callback: each finding after the one before it. */
static int ordered(void *ctx, const sdui_strings_finding *f)
{
    order *o = ctx;
    const char *loc = f->locale ? f->locale : "";
    int c;
    REQUIRE(o->stop_at == 0 || o->count < o->stop_at);
    REQUIRE(f->key && f->message && f->message[0]);
    REQUIRE((int)f->kind >= SDUI_STRINGS_MISSING && (int)f->kind <= SDUI_STRINGS_ORPHAN);
    REQUIRE((f->locale == NULL) == (f->kind == SDUI_STRINGS_UNUSED || f->kind == SDUI_STRINGS_UNDEFINED));
    REQUIRE(strlen(loc) < sizeof o->locale);
    if (o->started) {
        REQUIRE((int)f->kind >= o->kind);
        if ((int)f->kind == o->kind) {
            c = strcmp(loc, o->locale);
            REQUIRE(c >= 0);
            if (c == 0)
                REQUIRE(strcmp(f->key, o->key) > 0);
        }
    }
    o->started = 1;
    o->kind = (int)f->kind;
    strcpy(o->locale, loc);
    snprintf(o->key, sizeof o->key, "%s", f->key);
    REQUIRE(strlen(f->key) < sizeof o->key); /* keys and used keys here are short */
    o->count++;
    return o->stop_at && o->count >= o->stop_at;
}

/* Checks one add of pair (loc, json) to s against the invariants. */
static void one_add(sdui_strings *s, part loc, part json)
{
    size_t before = sdui_strings_locale_count(s), i;
    char *tags[300];
    json_t *plain = plain_catalog(json.p, json.n), *v;
    sdui_error err;
    sdui_status st;
    const char *key;
    int had[64], nk = 0;
    REQUIRE(before <= 256);
    for (i = 0; i < before; i++)
        tags[i] = strdup(sdui_strings_locale_at(s, i));
    if (plain) {
        json_object_foreach(plain, key, v) {
            if (nk == 64)
                break;
            had[nk++] = sdui_strings_has(s, loc.p, loc.n, key, strlen(key));
        }
    }
    st = sdui_strings_add(s, loc.p, loc.n, json.p, json.n, &err);
    REQUIRE(st == SDUI_OK || st == SDUI_JSON || st == SDUI_SCHEMA || st == SDUI_LIMIT || st == SDUI_ARGUMENT);
    REQUIRE(err.status == st);
    if (st != SDUI_OK) {
        REQUIRE(err.message[0]);
        if (st != SDUI_ARGUMENT)
            REQUIRE(strncmp(err.message, "catalog ", 8) == 0);
        REQUIRE(sdui_strings_locale_count(s) == before);
        for (i = 0; i < before; i++)
            REQUIRE(strcmp(tags[i], sdui_strings_locale_at(s, i)) == 0);
        nk = 0;
        if (plain) {
            json_object_foreach(plain, key, v) {
                if (nk == 64)
                    break;
                REQUIRE(sdui_strings_has(s, loc.p, loc.n, key, strlen(key)) == had[nk]);
                nk++;
            }
        }
    } else {
        REQUIRE(sdui_strings_locale_count(s) >= before);
        for (i = 1; i < sdui_strings_locale_count(s); i++)
            REQUIRE(strcmp(sdui_strings_locale_at(s, i - 1), sdui_strings_locale_at(s, i)) < 0);
    }
    /* A plain catalog within the byte limit is read, and gives its texts. */
    if (plain && st != SDUI_ARGUMENT && json.n <= SDUI_STRINGS_DEFAULT_MAX_CATALOG_BYTES
        && !(st == SDUI_LIMIT && before == 256)) {
        if (st != SDUI_OK)
            fprintf(stderr, "plain catalog refused: %s\n", err.message);
        REQUIRE(st == SDUI_OK);
        json_object_foreach(plain, key, v) {
            sdui_strings_result r;
            char *out = NULL;
            size_t len;
            REQUIRE(sdui_strings_has(s, loc.p, loc.n, key, strlen(key)));
            REQUIRE(sdui_strings_format(s, loc.p, loc.n, key, strlen(key), NULL, 0, &out, &len, &r, &err)
                    == SDUI_OK);
            REQUIRE(!r.missing && r.locale && !r.fell_back && !r.plural && r.unknown_args == 0);
            REQUIRE(len == json_string_length(v) && memcmp(out, json_string_value(v), len) == 0);
            sdui_free(out);
        }
    }
    for (i = 0; i < before; i++)
        free(tags[i]);
    json_decref(plain);
}

/* Checks one lookup against the invariants. */
static void one_lookup(const sdui_strings *s, part loc, part key, const part *argp, size_t nargs)
{
    sdui_strings_arg args[MAX_ARGS];
    char numbers[MAX_ARGS][64];
    sdui_strings_result r, r2;
    sdui_error err;
    char *out = NULL, *out2 = NULL;
    size_t len = 0, len2 = 0, i;
    sdui_status st, st2;
    for (i = 0; i < nargs; i++) {
        const char *p = argp[i].p, *eq;
        size_t n = argp[i].n;
        memset(&args[i], 0, sizeof args[i]);
        if (n > 0 && p[0] == '#') {
            args[i].is_number = 1;
            p++;
            n--;
        }
        eq = memchr(p, '=', n);
        args[i].name = p;
        args[i].name_len = eq ? (size_t)(eq - p) : n;
        if (eq) {
            args[i].text = eq + 1;
            args[i].text_len = n - (size_t)(eq + 1 - p);
        }
        if (args[i].is_number) {
            size_t m = args[i].text_len < 63 ? args[i].text_len : 63;
            if (m)
                memcpy(numbers[i], args[i].text, m);
            numbers[i][m] = '\0';
            args[i].number = strtod(numbers[i], NULL);
        }
    }
    st = sdui_strings_format(s, loc.p, loc.n, key.p, key.n, args, nargs, &out, &len, &r, &err);
    REQUIRE(st == SDUI_OK || st == SDUI_ARGUMENT);
    REQUIRE(err.status == st);
    if (st != SDUI_OK) {
        REQUIRE(out == NULL);
        return;
    }
    REQUIRE(out && out[len] == '\0');
    if (r.missing) {
        REQUIRE(r.locale == NULL && len == key.n && (key.n == 0 || memcmp(out, key.p, key.n) == 0));
        REQUIRE(!r.plural && r.unknown_args == 0);
    } else {
        int found = 0;
        REQUIRE(r.locale != NULL);
        for (i = 0; i < sdui_strings_locale_count(s); i++)
            found |= sdui_strings_locale_at(s, i) == r.locale;
        REQUIRE(found);
        REQUIRE(sdui_strings_has(s, r.locale, strlen(r.locale), key.p, key.n));
        REQUIRE(r.unknown_args <= 64);
        REQUIRE(r.plural || (!r.form_missing && !r.count_missing));
        REQUIRE((unsigned)r.category <= SDUI_PLURAL_OTHER);
    }
    st2 = sdui_strings_format(s, loc.p, loc.n, key.p, key.n, args, nargs, &out2, &len2, &r2, &err);
    REQUIRE(st2 == SDUI_OK && len2 == len && memcmp(out, out2, len) == 0);
    REQUIRE(r.locale == r2.locale && r.missing == r2.missing && r.fell_back == r2.fell_back
            && r.plural == r2.plural && r.category == r2.category && r.form_missing == r2.form_missing
            && r.count_missing == r2.count_missing && r.unknown_args == r2.unknown_args);
    sdui_free(out);
    sdui_free(out2);
}

/* The fuzz entry point: parts, the set, adds, lookups, a check. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    part parts[MAX_PARTS];
    size_t np = 0, i, start = 0, at = SIZE_MAX;
    sdui_strings *s = NULL;
    sdui_error err;
    sdui_status st;
    for (i = 0; i <= size && np < MAX_PARTS; i++) {
        if (i == size || data[i] == 0xFF) {
            parts[np].p = (const char *)data + start;
            parts[np].n = i - start;
            if (parts[np].n == 1 && parts[np].p[0] == '@' && at == SIZE_MAX)
                at = np;
            np++;
            start = i + 1;
        }
    }
    st = sdui_strings_new(parts[0].p, parts[0].n, 0, &s, &err);
    REQUIRE(st == SDUI_OK || st == SDUI_ARGUMENT);
    REQUIRE(err.status == st);
    if (st != SDUI_OK) {
        REQUIRE(s == NULL);
        return 0;
    }
    REQUIRE(sdui_strings_default_locale(s) != NULL);
    /* Adds: pairs up to "@" (or the end). */
    for (i = 1; i + 1 < np && i + 1 < at && i < 7; i += 2)
        one_add(s, parts[i], parts[i + 1]);
    /* Lookups: locale, key and arguments after "@"; else each key in the
     * first catalog's locale and in the default one. */
    if (at != SIZE_MAX && at + 1 < np) {
        part loc = parts[at + 1 < np ? at + 1 : 0];
        part key = at + 2 < np ? parts[at + 2] : parts[0];
        size_t first = at + 3, nargs = first < np ? np - first : 0;
        if (nargs > MAX_ARGS)
            nargs = MAX_ARGS;
        one_lookup(s, loc, key, parts + (first < np ? first : 0), nargs);
        one_lookup(s, parts[0], key, parts + (first < np ? first : 0), nargs);
    }
    {
        static const char *const used[] = {"a", "b", "cart.items", "zz", "a"};
        static const size_t used_lens[] = {1, 1, 10, 2, 1};
        order o;
        memset(&o, 0, sizeof o);
        REQUIRE(sdui_strings_check(s, used, used_lens, 5, ordered, &o, &err) == SDUI_OK);
        if (o.count > 1) {
            int all = o.count;
            memset(&o, 0, sizeof o);
            o.stop_at = all / 2;
            REQUIRE(sdui_strings_check(s, used, used_lens, 5, ordered, &o, &err) == SDUI_OK);
            REQUIRE(o.count == all / 2);
        }
        memset(&o, 0, sizeof o);
        REQUIRE(sdui_strings_check(s, NULL, NULL, 0, ordered, &o, &err) == SDUI_OK);
    }
    sdui_strings_free(s);
    return 0;
}
