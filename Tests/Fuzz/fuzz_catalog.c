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
 * An input whose first part starts with '{' is a bundle instead
 * (sdui_strings_open_bundle): that part is its JSON, a second part before
 * "@", when there is one, the bound on each catalog's bytes (decimal;
 * anything else: the default), and the lookups and the check run on the
 * set it gives, with its default locale for the first part.  There:
 *   - the open answers SDUI_OK, SDUI_JSON, SDUI_SCHEMA or SDUI_LIMIT, err
 *     says the same; a failed open leaves no set and an offset within the
 *     bundle whose line and column are that offset's, and a shape or
 *     catalog error (SDUI_SCHEMA) names its JSON path from "$";
 *   - a set from a bundle has its locales canonical and strictly sorted;
 *     when jansson reads the bundle, as many as its "catalogs" has;
 *   - when jansson reads a bundle without a backslash as an object whose
 *     "default" is a locale tag and whose "catalogs" is an object of at
 *     most 256 plain catalogs (as above) under keys that are locale tags of
 *     distinct canonical forms, the open (with the default bound)
 *     succeeds, its default locale is that tag's canonical form, and each
 *     key's text in each catalog's locale is its string.
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

/* 1 when jansson's value root is a catalog of plain texts (see the top
 * of this file). */
static int plain_object(json_t *root)
{
    json_t *v;
    const char *key;
    if (!json_is_object(root))
        return 0;
    json_object_foreach(root, key, v) {
        const char *t;
        size_t len;
        if (!is_key(key, strlen(key)) || !json_is_string(v))
            return 0;
        t = json_string_value(v);
        len = json_string_length(v);
        if (len > 4096 || memchr(t, '{', len) || memchr(t, '}', len) || memchr(t, '\'', len))
            return 0;
    }
    return 1;
}

/* jansson's object of json[0, n) when it is a catalog of plain texts (see
 * the top of this file), else NULL. */
static json_t *plain_catalog(const char *json, size_t n)
{
    json_error_t e;
    json_t *root = json_loadb(json, n, JSON_REJECT_DUPLICATES, &e);
    if (root && !plain_object(root)) {
        json_decref(root);
        root = NULL;
    }
    return root;
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

/* Checks one add of pair (loc, json) to s against the invariants; its
 * status, and the error's offset to *offset. */
static sdui_status one_add(sdui_strings *s, part loc, part json, long long *offset)
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
    *offset = st == SDUI_OK ? -1 : err.offset;
    return st;
}

/* The arguments of parts argp[0..nargs) ("name=value", "#name=value" for
 * a number) into args, the numbers' texts in numbers. */
static void parse_args(const part *argp, size_t nargs, sdui_strings_arg *args, char numbers[][64])
{
    size_t i;
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
    parse_args(argp, nargs, args, numbers);
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

/* A growing text (malloc'd; the caller frees b). */
typedef struct text {
    char *b;
    size_t n, cap;
} text;

/* Appends s[0, n) to t. */
static void put(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->b = realloc(t->b, t->cap);
        REQUIRE(t->b != NULL);
    }
    memcpy(t->b + t->n, s, n);
    t->n += n;
    t->b[t->n] = '\0';
}

/* Appends the NUL-terminated s to t. */
static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* The check's callback that writes each finding to a text. */
static int write_finding(void *ctx, const sdui_strings_finding *f)
{
    char head[64];
    snprintf(head, sizeof head, "%d ", (int)f->kind);
    puts_(ctx, head);
    puts_(ctx, f->locale ? f->locale : "-");
    puts_(ctx, " ");
    puts_(ctx, f->key);
    puts_(ctx, ": ");
    puts_(ctx, f->message);
    puts_(ctx, "\n");
    return 0;
}

/* What set s is, as far as a text can say: its default, its locales, its
 * findings (with used keys) and the lookup of key in loc (with the
 * arguments of argp[0..nargs)) there and in the default locale. */
static void describe(const sdui_strings *s, part loc, part key, const part *argp, size_t nargs, text *t)
{
    static const char *const used[] = {"a", "b", "cart.items", "zz"};
    static const size_t used_lens[] = {1, 1, 10, 2};
    sdui_strings_arg args[MAX_ARGS];
    char numbers[MAX_ARGS][64], head[160];
    sdui_error err;
    size_t i;
    int k;
    puts_(t, sdui_strings_default_locale(s));
    puts_(t, ":");
    for (i = 0; i < sdui_strings_locale_count(s); i++) {
        puts_(t, " ");
        puts_(t, sdui_strings_locale_at(s, i));
    }
    puts_(t, "\n");
    REQUIRE(sdui_strings_check(s, used, used_lens, 4, write_finding, t, &err) == SDUI_OK);
    parse_args(argp, nargs, args, numbers);
    for (k = 0; k < 2; k++) {
        part where = loc;
        sdui_strings_result r;
        char *out = NULL;
        size_t len = 0;
        sdui_status st;
        if (k == 1) {
            where.p = sdui_strings_default_locale(s);
            where.n = strlen(where.p);
        }
        memset(&r, 0, sizeof r);
        st = sdui_strings_format(s, where.p, where.n, key.p, key.n, args, nargs, &out, &len, &r, &err);
        if (st != SDUI_OK)
            memset(&r, 0, sizeof r);
        snprintf(head, sizeof head, "%d %s %d %d %d %d %d %d %zu: ", (int)st, r.locale ? r.locale : "-", r.missing,
                 r.fell_back, r.plural, (int)r.category, r.form_missing, r.count_missing, r.unknown_args);
        puts_(t, head);
        if (st == SDUI_OK)
            put(t, out, len);
        puts_(t, "\n");
        sdui_free(out);
    }
}

/* The same catalogs as a bundle: the set s that the adds adds[0..n) made
 * (with default locale def) against the one a bundle of them opens, when
 * every catalog's text is one JSON value (else the bundle would not be
 * the same catalogs) and every locale a tag of its own.  Then the open
 * fails exactly when an add did, with the status of the first that did,
 * at that catalog's path and byte in the bundle; else its set is the same
 * as s, by what describe() says. */
static void same_as_bundle(const sdui_strings *s, part def, const part *locs, const part *jsons,
                           const sdui_status *sts, const long long *offsets, size_t n, part loc, part key,
                           const part *argp, size_t nargs)
{
    char tags[4][SDUI_LOCALE_TAG_MAX];
    size_t starts[4], i, j;
    text b = {0}, d1 = {0}, d2 = {0};
    sdui_strings *bs = (sdui_strings *)1;
    sdui_error err;
    sdui_status st, first = SDUI_OK;
    size_t first_at = 0;
    REQUIRE(n <= 4);
    for (i = 0; i < n; i++) {
        if (sts[i] == SDUI_ARGUMENT || sts[i] == SDUI_JSON
            || sdui_json_validate(jsons[i].p, jsons[i].n, SDUI_DEFAULT_MAX_DEPTH, NULL) != SDUI_OK)
            return;
        REQUIRE(sdui_locale_canonical(locs[i].p, locs[i].n, tags[i], NULL) == SDUI_OK);
        for (j = 0; j < i; j++)
            if (strcmp(tags[i], tags[j]) == 0)
                return;
        if (sts[i] != SDUI_OK && first == SDUI_OK) {
            first = sts[i];
            first_at = i;
        }
    }
    /* Tags are letters, digits, '-' and '_': no escapes needed. */
    puts_(&b, "{\"locale\": \"xx\", \"default\": \"");
    put(&b, def.p, def.n);
    puts_(&b, "\", \"catalogs\": {");
    for (i = 0; i < n; i++) {
        puts_(&b, i ? ", \"" : "\"");
        put(&b, locs[i].p, locs[i].n);
        puts_(&b, "\": ");
        starts[i] = b.n;
        put(&b, jsons[i].p, jsons[i].n);
    }
    puts_(&b, "}}");
    st = sdui_strings_open_bundle(b.b, b.n, 0, &bs, &err);
    if (st != first)
        fprintf(stderr, "bundle: %s (%s), the adds: %s\n", sdui_status_name(st), err.message,
                sdui_status_name(first));
    REQUIRE(st == first);
    if (st != SDUI_OK) {
        char path[64];
        /* An error with no position is placed at the catalog's value,
         * after the white space before it. */
        size_t ws = 0;
        long long at;
        while (ws < jsons[first_at].n && (jsons[first_at].p[ws] == ' ' || jsons[first_at].p[ws] == '\t'
                                          || jsons[first_at].p[ws] == '\r' || jsons[first_at].p[ws] == '\n'))
            ws++;
        at = (long long)starts[first_at] + (offsets[first_at] >= 0 ? offsets[first_at] : (long long)ws);
        REQUIRE(bs == NULL);
        snprintf(path, sizeof path, "$.catalogs[\"%.*s\"]", (int)locs[first_at].n, locs[first_at].p);
        REQUIRE(strncmp(err.message, path, strlen(path)) == 0);
        REQUIRE(err.offset == at);
    } else {
        describe(s, loc, key, argp, nargs, &d1);
        describe(bs, loc, key, argp, nargs, &d2);
        if (strcmp(d1.b, d2.b) != 0)
            fprintf(stderr, "the adds' set:\n%s\nthe bundle's:\n%s\n", d1.b, d2.b);
        REQUIRE(strcmp(d1.b, d2.b) == 0);
        sdui_strings_free(bs);
    }
    free(b.b);
    free(d1.b);
    free(d2.b);
}

/* 1 when jansson's bundle root (of a text without a backslash) must
 * open: a "default" that is a locale tag, "catalogs" an object of at most
 * 256 plain catalogs under tags of distinct canonical forms (the top of
 * this file); its default's canonical form to def. */
static int plain_bundle(json_t *root, char def[SDUI_LOCALE_TAG_MAX])
{
    static char tags[256][SDUI_LOCALE_TAG_MAX];
    json_t *d = json_object_get(root, "default"), *cats = json_object_get(root, "catalogs"), *v;
    const char *key;
    size_t n = 0, i;
    if (!json_is_string(d) || !json_is_object(cats) || json_object_size(cats) > 256)
        return 0;
    if (sdui_locale_canonical(json_string_value(d), json_string_length(d), def, NULL) != SDUI_OK)
        return 0;
    json_object_foreach(cats, key, v) {
        if (!plain_object(v) || sdui_locale_canonical(key, strlen(key), tags[n], NULL) != SDUI_OK)
            return 0;
        for (i = 0; i < n; i++)
            if (strcmp(tags[i], tags[n]) == 0)
                return 0;
        n++;
    }
    return 1;
}

/* The deepest nesting of json[0, n), a text without a backslash (so a
 * quote always opens or closes a string). */
static int nesting(part json)
{
    int depth = 0, most = 0, in_string = 0;
    size_t i;
    for (i = 0; i < json.n; i++) {
        char c = json.p[i];
        if (c == '"')
            in_string = !in_string;
        else if (!in_string && (c == '{' || c == '['))
            most = ++depth > most ? depth : most;
        else if (!in_string && (c == '}' || c == ']'))
            depth--;
    }
    return most;
}

/* Opens the bundle json with catalogs of at most max bytes and checks the
 * open against the invariants (the top of this file).  The set, or NULL
 * when the open failed. */
static sdui_strings *one_bundle(part json, size_t max)
{
    sdui_strings *s = (sdui_strings *)1;
    sdui_error err;
    json_error_t je;
    json_t *root = json_loadb(json.p, json.n, JSON_REJECT_DUPLICATES, &je);
    char def[SDUI_LOCALE_TAG_MAX];
    /* Deeper than the bundle's scan reads (2 + 128 levels: jansson reads
     * more) is no plain bundle, whatever jansson says. */
    int must = root && max == 0 && !memchr(json.p, '\\', json.n) && nesting(json) <= 100 && plain_bundle(root, def);
    size_t i;
    sdui_status st = sdui_strings_open_bundle(json.p, json.n, max, &s, &err);
    REQUIRE(st == SDUI_OK || st == SDUI_JSON || st == SDUI_SCHEMA || st == SDUI_LIMIT);
    REQUIRE(err.status == st);
    if (st != SDUI_OK) {
        if (must)
            fprintf(stderr, "plain bundle refused: %s\n", err.message);
        REQUIRE(!must);
        REQUIRE(s == NULL && err.message[0]);
        REQUIRE(err.offset >= 0 && (size_t)err.offset <= json.n);
        {
            int line, column;
            sdui_json_position(json.p, json.n, (size_t)err.offset, &line, &column);
            REQUIRE(err.line == line && err.column == column);
        }
        if (st == SDUI_SCHEMA)
            REQUIRE(err.message[0] == '$');
        json_decref(root);
        return NULL;
    }
    REQUIRE(s != NULL && sdui_strings_default_locale(s) != NULL);
    for (i = 0; i < sdui_strings_locale_count(s); i++) {
        const char *t = sdui_strings_locale_at(s, i);
        char canon[SDUI_LOCALE_TAG_MAX];
        REQUIRE(sdui_locale_canonical(t, strlen(t), canon, NULL) == SDUI_OK && strcmp(canon, t) == 0);
        if (i > 0)
            REQUIRE(strcmp(sdui_strings_locale_at(s, i - 1), t) < 0);
    }
    if (root && json_is_object(json_object_get(root, "catalogs")))
        REQUIRE(sdui_strings_locale_count(s) == json_object_size(json_object_get(root, "catalogs")));
    if (must) {
        json_t *cats = json_object_get(root, "catalogs"), *cat, *v;
        const char *loc, *key;
        REQUIRE(strcmp(sdui_strings_default_locale(s), def) == 0);
        json_object_foreach(cats, loc, cat) {
            json_object_foreach(cat, key, v) {
                sdui_strings_result r;
                char *out = NULL;
                size_t len;
                REQUIRE(sdui_strings_has(s, loc, strlen(loc), key, strlen(key)));
                REQUIRE(sdui_strings_format(s, loc, strlen(loc), key, strlen(key), NULL, 0, &out, &len, &r, &err)
                        == SDUI_OK);
                REQUIRE(!r.missing && r.locale && !r.fell_back && !r.plural && r.unknown_args == 0);
                REQUIRE(len == json_string_length(v) && memcmp(out, json_string_value(v), len) == 0);
                sdui_free(out);
            }
        }
    }
    json_decref(root);
    return s;
}

/* The bound on a bundle's catalogs that part p gives: its decimal value
 * (at most 9 digits), else 0 (the default). */
static size_t bundle_bound(part p)
{
    size_t i, v = 0;
    if (p.n == 0 || p.n > 9)
        return 0;
    for (i = 0; i < p.n; i++) {
        if (p.p[i] < '0' || p.p[i] > '9')
            return 0;
        v = v * 10 + (size_t)(p.p[i] - '0');
    }
    return v;
}

/* The fuzz entry point: parts, the set, adds, lookups, a check. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    part parts[MAX_PARTS];
    size_t np = 0, i, start = 0, at = SIZE_MAX;
    sdui_strings *s = NULL;
    sdui_error err;
    sdui_status st, sts[4];
    part locs[4], jsons[4];
    long long offsets[4];
    size_t nadds = 0;
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
    if (parts[0].n > 0 && parts[0].p[0] == '{') {
        /* A bundle, and its bound when a part before "@" gives one. */
        s = one_bundle(parts[0], np > 1 && at != 1 ? bundle_bound(parts[1]) : 0);
        if (!s)
            return 0;
        /* The default locale stands for the first part in the lookups. */
        parts[0].p = sdui_strings_default_locale(s);
        parts[0].n = strlen(parts[0].p);
    } else {
        st = sdui_strings_new(parts[0].p, parts[0].n, 0, &s, &err);
        REQUIRE(st == SDUI_OK || st == SDUI_ARGUMENT);
        REQUIRE(err.status == st);
        if (st != SDUI_OK) {
            REQUIRE(s == NULL);
            return 0;
        }
        REQUIRE(sdui_strings_default_locale(s) != NULL);
        /* Adds: pairs up to "@" (or the end); then the same catalogs as
         * a bundle. */
        for (i = 1; i + 1 < np && i + 1 < at && i < 7; i += 2) {
            locs[nadds] = parts[i];
            jsons[nadds] = parts[i + 1];
            sts[nadds] = one_add(s, parts[i], parts[i + 1], &offsets[nadds]);
            nadds++;
        }
        {
            part loc = at != SIZE_MAX && at + 1 < np ? parts[at + 1] : parts[0];
            part key = at != SIZE_MAX && at + 2 < np ? parts[at + 2] : parts[0];
            size_t first = at != SIZE_MAX ? at + 3 : np, nargs = first < np ? np - first : 0;
            if (nargs > MAX_ARGS)
                nargs = MAX_ARGS;
            same_as_bundle(s, parts[0], locs, jsons, sts, offsets, nadds, loc, key, parts + (first < np ? first : 0),
                           nargs);
        }
    }
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
