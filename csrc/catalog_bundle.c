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
 * handed to sdui_strings_add, which checks it as it checks a catalog read
 * from a file.  So a bundle costs one validating scan plus the catalogs'
 * own reads, and an error names the bundle's path: $.catalogs["de"] and
 * the entry inside it, at the byte offset in the bundle.
 *
 * Bounds: the bundle may hold at most SDUI_BUNDLE_MAX_CATALOGS catalogs
 * (the set's own bound on locales), each bounded by the set's
 * max_catalog_bytes; the scan reads each byte once.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "scan.h"
#include "sdui/catalog.h"

/* The most catalogs a bundle holds (the set's bound on locales). */
#define SDUI_BUNDLE_MAX_CATALOGS 256

/* One catalog of the bundle: its tag's and its value's byte ranges. */
typedef struct bundle_entry {
    size_t tag_start, tag_end; /* the key, quotes excluded */
    size_t start, end;         /* the catalog's JSON       */
} bundle_entry;

/* What the scan found. */
typedef struct bundle_reader {
    const char *json;
    sdui_error *err;
    int in_catalogs;          /* the depth-1 member being read is "catalogs" */
    int in_default;           /* ... is "default"                            */
    int seen_catalogs;
    size_t default_start, default_end; /* quotes excluded; end 0: none */
    bundle_entry entries[SDUI_BUNDLE_MAX_CATALOGS];
    size_t count;
} bundle_reader;

/* Whether the key json[start, end) (quotes included) is name. */
static int key_is(const char *json, const sdui_scan_event *ev, const char *name)
{
    size_t n = strlen(name);
    return !ev->escaped && ev->end - ev->start == n + 2 && !memcmp(json + ev->start + 1, name, n);
}

/* The scan's hook: depth-1 keys choose the member; the default's string
 * and the catalogs' keys and ranges are kept. */
static int bundle_hook(void *ctx, const sdui_scan_event *ev)
{
    bundle_reader *r = ctx;
    if (ev->kind == SDUI_SCAN_KEY && ev->depth == 1) {
        r->in_catalogs = key_is(r->json, ev, "catalogs");
        r->in_default = key_is(r->json, ev, "default");
        return SDUI_SCAN_GO;
    }
    if (ev->kind == SDUI_SCAN_VALUE && ev->depth == 0 && r->json[ev->start] != '{')
        return SDUI_SCAN_FAIL(sdui__fail(r->err, SDUI_SCHEMA, (long long)ev->start, "the bundle is not an object"));
    if (ev->kind == SDUI_SCAN_VALUE && ev->depth == 1 && r->in_catalogs) {
        if (r->json[ev->start] != '{')
            return SDUI_SCAN_FAIL(sdui__fail(r->err, SDUI_SCHEMA, (long long)ev->start,
                                             "$.catalogs is not an object"));
        r->seen_catalogs = 1;
        return SDUI_SCAN_GO;
    }
    if (ev->kind == SDUI_SCAN_END && ev->depth == 1 && r->in_default) {
        if (r->json[ev->start] != '"' || ev->escaped)
            return SDUI_SCAN_FAIL(sdui__fail(r->err, SDUI_SCHEMA, (long long)ev->start,
                                             "$.default is not a locale tag"));
        r->default_start = ev->start + 1;
        r->default_end = ev->end - 1;
        return SDUI_SCAN_GO;
    }
    if (!r->in_catalogs || ev->depth != 2)
        return SDUI_SCAN_GO;
    if (ev->kind == SDUI_SCAN_KEY) {
        if (r->count == SDUI_BUNDLE_MAX_CATALOGS)
            return SDUI_SCAN_FAIL(sdui__fail(r->err, SDUI_LIMIT, (long long)ev->start,
                                             "$.catalogs holds more than %d catalogs", SDUI_BUNDLE_MAX_CATALOGS));
        if (ev->escaped)
            return SDUI_SCAN_FAIL(sdui__fail(r->err, SDUI_SCHEMA, (long long)ev->start,
                                             "$.catalogs: a key with escapes is not a locale tag"));
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

/* Prefixes err's message with the catalog's place in the bundle and moves
 * its offset from the catalog's text to the bundle's. */
static void place_error(sdui_error *err, const char *json, const bundle_entry *e)
{
    char msg[sizeof err->message];
    if (!err)
        return;
    size_t tag = e->tag_end - e->tag_start;
    snprintf(msg, sizeof msg, "$.catalogs[\"%.*s\"]: %.200s", (int)(tag < 36 ? tag : 36), json + e->tag_start,
             err->message);
    memcpy(err->message, msg, sizeof msg);
    if (err->offset >= 0)
        err->offset += (long long)e->start;
    err->line = 0;
    err->column = 0;
}

/* A new set from a bundle (catalog.h). */
sdui_status sdui_strings_open_bundle(const char *json, size_t json_len, size_t max_catalog_bytes, sdui_strings **out,
                                     sdui_error *err)
{
    sdui_scan_config cfg;
    bundle_reader *r;
    sdui_strings *set = NULL;
    sdui_status st;
    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out is NULL");
    *out = NULL;
    if (!json && json_len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "json is NULL");
    r = sdui__calloc(sizeof *r);
    if (!r)
        return sdui__oom(err);
    r->json = json ? json : "";
    r->err = err;
    memset(&cfg, 0, sizeof cfg);
    cfg.text = r->json;
    cfg.len = json_len;
    cfg.max_depth = 8; /* the bundle, "catalogs", a catalog, an entry, a form */
    cfg.err = err;
    cfg.hook = bundle_hook;
    cfg.ctx = r;
    cfg.value_levels = 3;
    cfg.key_levels = 3;
    st = sdui__scan(&cfg, NULL);
    if (st == SDUI_OK && !r->default_end)
        st = sdui__fail(err, SDUI_SCHEMA, 0, "the bundle has no string \"default\"");
    if (st == SDUI_OK && !r->seen_catalogs)
        st = sdui__fail(err, SDUI_SCHEMA, 0, "the bundle has no object \"catalogs\"");
    if (st == SDUI_OK)
        st = sdui_strings_new(r->json + r->default_start, r->default_end - r->default_start, max_catalog_bytes, &set,
                              err);
    for (size_t i = 0; st == SDUI_OK && i < r->count; i++) {
        const bundle_entry *e = &r->entries[i];
        for (size_t j = 0; j < i; j++) {
            const bundle_entry *f = &r->entries[j];
            if (f->tag_end - f->tag_start == e->tag_end - e->tag_start &&
                !memcmp(r->json + f->tag_start, r->json + e->tag_start, e->tag_end - e->tag_start)) {
                st = sdui__fail(err, SDUI_SCHEMA, (long long)e->tag_start, "$.catalogs: the locale \"%.*s\" is given twice",
                                (int)(e->tag_end - e->tag_start), r->json + e->tag_start);
                break;
            }
        }
        if (st != SDUI_OK)
            break;
        st = sdui_strings_add(set, r->json + e->tag_start, e->tag_end - e->tag_start, r->json + e->start,
                              e->end - e->start, err);
        if (st != SDUI_OK)
            place_error(err, r->json, e);
    }
    sdui_free(r);
    if (st != SDUI_OK) {
        sdui_strings_free(set);
        return st;
    }
    *out = set;
    return SDUI_OK;
}
