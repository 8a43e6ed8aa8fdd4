/*
 * catalog_bundle.c - a set of string catalogs from a bundle (catalog.h,
 * sdui_strings_open_bundle): the document GET /strings answers, a pack's
 * "strings" member and the disk cache keep,
 *
 *   {"locale": "de-CH", "default": "en", "catalogs": {"de": {...}, "en": {...}}}
 *
 * One pass of the generic scanner (scan.h) finds, without building a
 * value tree, the default locale's string and the byte range of each
 * catalog (the values at depth 2 under "catalogs"); each range is then
 * handed to the set's add (sdui__strings_add_placed), which checks it as
 * it checks a catalog read from a file, and names its errors by their
 * place in the bundle (catalog_place.h).  So a bundle costs one validating
 * scan plus the catalogs' own reads, and an error names the bundle's path
 * ($.default, $.catalogs["de"] and the entry inside it:
 * $.catalogs["de"]["cart.items"]) at the byte offset, line and column in
 * the bundle.
 *
 * What is wrong with the bundle's own shape (not an object, "default" or
 * "catalogs" missing, of the wrong kind or given twice, a key of
 * "catalogs" or the default that is not a locale tag, one locale given
 * twice, in any spelling of its tag: "de" and "DE") is SDUI_SCHEMA, as
 * the content of a catalog is: the tags are the bundle's data, not the
 * caller's arguments.  The scan records the first such error and goes on,
 * so that a bundle that is not JSON is reported as such wherever else it
 * goes wrong, as sdui_strings_add does for a catalog.
 *
 * Bounds: the bundle may hold at most SDUI_BUNDLE_MAX_CATALOGS catalogs
 * (the set's own bound on locales), each bounded by the set's
 * max_catalog_bytes; the scan reads each byte once, and nests as deep as
 * a catalog may (so that a catalog nested too deep is reported by its own
 * check, which names the entry).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "catalog_place.h"
#include "internal.h"
#include "scan.h"
#include "sdui/catalog.h"

/* The most catalogs a bundle holds (the set's bound on locales). */
#define SDUI_BUNDLE_MAX_CATALOGS 256

/* The deepest nesting the bundle's scan allows: the bundle, "catalogs",
 * then a catalog as deep as sdui_strings_add reads one. */
#define BUNDLE_MAX_DEPTH (2 + SDUI_DEFAULT_MAX_DEPTH)

/* The most bytes of a raw tag a message quotes. */
#define TAG_QUOTE 36

/* One catalog of the bundle: its tag's and its value's byte ranges. */
typedef struct bundle_entry {
    size_t tag_start, tag_end;     /* the key, quotes excluded      */
    size_t start, end;             /* the catalog's JSON            */
    char tag[SDUI_LOCALE_TAG_MAX]; /* canonical, once it is checked */
} bundle_entry;

/* What the scan found. */
typedef struct bundle_reader {
    const char *json;
    size_t len;
    sdui_error *err;
    sdui_status failed;       /* the first shape error (SDUI_OK: none)       */
    int in_catalogs;          /* the depth-1 member being read is "catalogs" */
    int in_default;           /* ... is "default"                            */
    int seen_catalogs;        /* its key was read                            */
    int seen_default;
    size_t default_start, default_end; /* quotes excluded                    */
    bundle_entry entries[SDUI_BUNDLE_MAX_CATALOGS];
    size_t count;
} bundle_reader;

/* Records the bundle's first shape error (status st at byte offset), and
 * tells the scanner to go on: a grammar error after it is reported
 * instead. */
static SDUI_PRINTF(4, 5) int bundle_fail(bundle_reader *r, sdui_status st, size_t offset, const char *fmt, ...)
{
    char what[SDUI_ERROR_MESSAGE_SIZE];
    va_list ap;
    if (r->failed)
        return SDUI_SCAN_GO;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->failed = sdui__fail_at(r->err, st, r->json, r->len, offset, "%s", what);
    return SDUI_SCAN_GO;
}

/* Whether the key of event ev (its quotes included) decodes to name. */
static int key_is(const bundle_reader *r, const sdui_scan_event *ev, const char *name)
{
    return sdui__key_is(r->json + ev->start + 1, ev->end - ev->start - 2, ev->escaped, name);
}

/* The scan's hook: depth-1 keys choose the member; the default's string
 * and the catalogs' keys and ranges are kept. */
static int bundle_hook(void *ctx, const sdui_scan_event *ev)
{
    bundle_reader *r = ctx;
    if (r->failed)
        return SDUI_SCAN_GO;
    if (ev->depth == 0) {
        if (ev->kind == SDUI_SCAN_VALUE && r->json[ev->start] != '{')
            return bundle_fail(r, SDUI_SCHEMA, ev->start, "$ (byte %zu): the bundle is %s, not an object", ev->start,
                               sdui__json_kind(r->json[ev->start]));
        return SDUI_SCAN_GO;
    }
    if (ev->depth == 1) {
        if (ev->kind == SDUI_SCAN_KEY) {
            r->in_catalogs = key_is(r, ev, "catalogs");
            r->in_default = key_is(r, ev, "default");
            if ((r->in_catalogs && r->seen_catalogs) || (r->in_default && r->seen_default))
                return bundle_fail(r, SDUI_SCHEMA, ev->start, "$.%s (byte %zu): the member is given twice",
                                   r->in_catalogs ? "catalogs" : "default", ev->start);
            r->seen_catalogs |= r->in_catalogs;
            r->seen_default |= r->in_default;
            return SDUI_SCAN_GO;
        }
        if (ev->kind == SDUI_SCAN_VALUE && r->in_catalogs && r->json[ev->start] != '{')
            return bundle_fail(r, SDUI_SCHEMA, ev->start, "$.catalogs (byte %zu): %s, not an object", ev->start,
                               sdui__json_kind(r->json[ev->start]));
        if (ev->kind == SDUI_SCAN_END && r->in_default) {
            if (r->json[ev->start] != '"')
                return bundle_fail(r, SDUI_SCHEMA, ev->start, "$.default (byte %zu): %s, not a locale tag", ev->start,
                                   sdui__json_kind(r->json[ev->start]));
            if (ev->escaped)
                return bundle_fail(r, SDUI_SCHEMA, ev->start,
                                   "$.default (byte %zu): a string with escapes is not a locale tag", ev->start);
            r->default_start = ev->start + 1;
            r->default_end = ev->end - 1;
        }
        return SDUI_SCAN_GO;
    }
    if (!r->in_catalogs || ev->depth != 2)
        return SDUI_SCAN_GO;
    if (ev->kind == SDUI_SCAN_KEY) {
        if (r->count == SDUI_BUNDLE_MAX_CATALOGS)
            return bundle_fail(r, SDUI_LIMIT, ev->start, "$.catalogs (byte %zu): more than %d catalogs", ev->start,
                               SDUI_BUNDLE_MAX_CATALOGS);
        if (ev->escaped)
            return bundle_fail(r, SDUI_SCHEMA, ev->start,
                               "$.catalogs (byte %zu): a key with escapes is not a locale tag", ev->start);
        r->entries[r->count].tag_start = ev->start + 1;
        r->entries[r->count].tag_end = ev->end - 1;
        return SDUI_SCAN_GO;
    }
    if (ev->kind == SDUI_SCAN_END) {
        assert(r->count < SDUI_BUNDLE_MAX_CATALOGS);
        r->entries[r->count].start = ev->start;
        r->entries[r->count].end = ev->end;
        r->count++;
    }
    return SDUI_SCAN_GO;
}

/* Writes the bundle's path of catalog e, $.catalogs["de"], to out (its
 * key as written, cut short past TAG_QUOTE bytes). */
static void catalog_path(const bundle_reader *r, const bundle_entry *e, char out[TAG_QUOTE + 24])
{
    size_t n = e->tag_end - e->tag_start;
    snprintf(out, TAG_QUOTE + 24, "$.catalogs[\"%.*s%s\"]", (int)(n < TAG_QUOTE ? n : TAG_QUOTE),
             r->json + e->tag_start, n > TAG_QUOTE ? "..." : "");
}

/* Checks that the string body json[start, end) of the member at path is a
 * locale tag, and writes its canonical form to tag.  SDUI_OK, or
 * SDUI_SCHEMA at the byte of the bundle where it stops being one. */
static sdui_status check_tag(const bundle_reader *r, size_t start, size_t end, const char *path,
                             char tag[SDUI_LOCALE_TAG_MAX])
{
    sdui_error sub;
    size_t at;
    if (sdui_locale_canonical(r->json + start, end - start, tag, &sub) == SDUI_OK)
        return SDUI_OK;
    at = start + (sub.offset > 0 ? (size_t)sub.offset : 0);
    return sdui__fail_at(r->err, SDUI_SCHEMA, r->json, r->len, at, "%s (byte %zu): %.200s", path, at, sub.message);
}

/* A new set from a bundle (catalog.h). */
sdui_status sdui_strings_open_bundle(const char *json, size_t json_len, size_t max_catalog_bytes, sdui_strings **out,
                                     sdui_error *err)
{
    sdui_scan_config cfg;
    bundle_reader *r;
    sdui_strings *set = NULL;
    sdui_status st;
    char tag[SDUI_LOCALE_TAG_MAX], path[TAG_QUOTE + 24];
    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "strings bundle: out is NULL");
    *out = NULL;
    if (!json && json_len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "strings bundle: json is NULL");
    sdui_error_clear(err);
    r = sdui__calloc(sizeof *r);
    if (!r)
        return sdui__oom(err);
    r->json = json ? json : "";
    r->len = json_len;
    r->err = err;
    memset(&cfg, 0, sizeof cfg);
    cfg.text = r->json;
    cfg.len = json_len;
    cfg.max_depth = BUNDLE_MAX_DEPTH;
    cfg.err = err;
    cfg.hook = bundle_hook;
    cfg.ctx = r;
    cfg.value_levels = 3; /* the bundle, its members, the catalogs */
    cfg.key_levels = 3;
    st = sdui__scan(&cfg, NULL);
    if (st == SDUI_OK)
        st = r->failed;
    if (st == SDUI_OK && !r->seen_default)
        st = sdui__fail_at(err, SDUI_SCHEMA, r->json, json_len, 0, "$ (byte 0): the bundle has no \"default\"");
    if (st == SDUI_OK && !r->seen_catalogs)
        st = sdui__fail_at(err, SDUI_SCHEMA, r->json, json_len, 0, "$ (byte 0): the bundle has no \"catalogs\"");
    if (st == SDUI_OK)
        st = check_tag(r, r->default_start, r->default_end, "$.default", tag);
    if (st == SDUI_OK)
        st = sdui_strings_new(tag, strlen(tag), max_catalog_bytes, &set, err);
    for (size_t i = 0; st == SDUI_OK && i < r->count; i++) {
        bundle_entry *e = &r->entries[i];
        catalog_path(r, e, path);
        st = check_tag(r, e->tag_start, e->tag_end, path, e->tag);
        for (size_t j = 0; st == SDUI_OK && j < i; j++) {
            const bundle_entry *f = &r->entries[j];
            if (strcmp(f->tag, e->tag) == 0)
                st = sdui__fail_at(err, SDUI_SCHEMA, r->json, json_len, e->tag_start - 1,
                                   "%s (byte %zu): the locale %s is given twice (as \"%.*s\" at byte %zu before)", path,
                                   e->tag_start - 1, e->tag, (int)(f->tag_end - f->tag_start), r->json + f->tag_start,
                                   f->tag_start - 1);
        }
        if (st == SDUI_OK) {
            /* Its errors name the bundle's path and byte (catalog_place.h). */
            const sdui__catalog_place place = {r->json, r->len, e->start, path};
            st = sdui__strings_add_placed(set, e->tag, r->json + e->start, e->end - e->start, &place, err);
        }
    }
    sdui_free(r);
    if (st != SDUI_OK) {
        sdui_strings_free(set);
        return st;
    }
    *out = set;
    return SDUI_OK;
}
