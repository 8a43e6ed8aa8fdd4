/*
 * catalog.c - string catalogs (include/sdui/catalog.h): a locale's
 * catalog read from JSON into a table, the text of a key found along the
 * fallback chain with its plural form chosen and its arguments put in,
 * and the check of a set for missing, unused and inconsistent entries.
 *
 * Reading.  A catalog is read by one pass of the core's validating JSON
 * scanner (scan.h), with a hook for the keys and values at depths 1 and 2:
 * the entries and the members of plural objects.  Not the value tree of
 * json_doc.h, for two reasons the header's contract needs: the tree keeps
 * the last of two members of one name, where a catalog must refuse the
 * second, and it keeps no byte offsets, where every error must name one.
 * The hook checks each key, value and text as it passes and builds the new
 * catalog beside the set; the first error it finds is recorded and the
 * scan reads on, so a grammar error anywhere in the text is still reported
 * first (a text that is not JSON is reported as that, wherever the shape
 * goes wrong).  Only when the whole text has passed does the new catalog
 * replace the old one: a failed add changes nothing.
 *
 * Texts are compiled once.  Each text (a string entry, a plural form) is
 * decoded from its JSON escapes, its ICU apostrophes resolved, and cut
 * into segments: literal bytes, stored in the catalog's one byte arena,
 * and {arguments}, whose names are stored there too.  A lookup walks the
 * segments and copies; it never reads JSON, quotes or braces again.
 * Apostrophes follow ICU's default (DOUBLE_OPTIONAL) mode: '' is one
 * apostrophe everywhere; an apostrophe before '{' or '}' opens a quoted
 * run that the next lone apostrophe closes (or the end of the text), in
 * which braces are literal and '' is still one apostrophe; any other
 * apostrophe is itself ("l'article").
 *
 * The table.  Each catalog has its own open-addressing hash table over
 * its entries: a power-of-two array of slots (entry index + 1, 0 for
 * empty), at most half full, probed linearly from the key's hash.  Each
 * entry keeps its 64-bit hash, so a probe compares hashes before bytes.
 * The hash is the core's keyed one (hash.c, SipHash under a per-process
 * key): catalogs come from registries and packs the process does not
 * control, and a public hash would let a catalog's author choose keys that
 * share one probe run.  The same key has the same hash in every table of
 * the process, so a lookup hashes the key once and probes each catalog
 * of its chain with it.  After the scan the entries are sorted by key and
 * the table rebuilt over the new order, so the check walks keys in order
 * without sorting them again.
 *
 * The lookup (sdui_strings_format).  The chain is the requested locale's
 * (sdui_locale_chain: de-CH, de) followed by the default locale's, less
 * the tags already in it: at most 2 * SDUI_LOCALE_CHAIN_MAX tags.  Each
 * tag is found among the set's catalogs by binary search (they are kept
 * sorted by tag, at most 256), and each catalog found is probed once; the
 * first that has the key gives the text, and the locale of that catalog
 * is the locale everything else is done in.  For a plural entry the
 * argument "count" (a number, or a text that is decimal: -?[0-9]+(.[0-9]+)?)
 * chooses the form: an exact form ("=N") whose value equals it (exact
 * forms are sorted by value, so this is a binary search), else the form
 * of its cardinal category by that locale's rules, else "other".  The
 * category is computed from decimal text (CLDR's operands depend on the
 * digits as written): a text count as given, a number count as the one
 * number-to-text rule writes it (sdui_number_text), with the ".0" that
 * rule puts on integral values removed (3.0 is the integer 3: v = 0) and
 * its exponent form written out positionally.  Then the segments are
 * written twice over: once to measure, once into the one allocation of
 * the result; a number argument is formatted both times (the formatting
 * allocates nothing and is cheap beside an allocation).
 *
 * The check (sdui_strings_check) reports kind by kind, each by locale
 * (the catalogs are sorted) and key (their entries are sorted).  "The
 * default catalog" is what a lookup in the default locale finds: the
 * catalogs of its chain, the first that has a key giving its reference
 * entry.  Missing keys walk the union of those catalogs' keys by merging
 * their sorted entries; unused and undefined ones sort all keys of the set
 * and the used keys once and compare the two lists; the rest walk each
 * catalog's entries and probe the default chain for the reference.
 *
 * Memory: every allocation goes through the core's allocator hook
 * (alloc.h); a catalog is five arrays (entries, slots, segments, exact
 * forms, bytes), grown while it is read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_place.h"
#include "internal.h"
#include "scan.h"

/* The header's limits. */
#define TEXT_MAX 4096         /* bytes of one text, decoded              */
#define TEXT_ARGS_MAX 64      /* {arguments} in one text                 */
#define FORMAT_ARGS_MAX 64    /* arguments given to one lookup           */
#define LOCALES_MAX 256       /* catalogs in one set                     */
#define KEY_MAX 128           /* bytes of a key                          */
#define ARG_NAME_MAX 64       /* bytes of an argument's name             */
#define NUMBER_TEXT_MAX 64    /* bytes of a decimal count or exact value */
#define CATEGORIES 6          /* zero, one, two, few, many, other        */

/* The longest JSON escape decodes to one byte from six ("\u0041"), so a
 * string whose raw body is longer than this decodes past TEXT_MAX. */
#define RAW_TEXT_MAX (6 * TEXT_MAX)

/* A catalog's JSON nests two levels; deeper values are refused as the
 * wrong shape, and this bounds the grammar check of what is inside them. */
#define CATALOG_MAX_DEPTH SDUI_DEFAULT_MAX_DEPTH

/* What a segment of a compiled text is. */
enum { SEG_LITERAL = 0, SEG_ARG = 1 };

/* One segment: literal bytes, or an argument's name, at off in the
 * catalog's byte arena. */
typedef struct segment {
    size_t off;
    uint32_t len;
    uint32_t kind;
} segment;

/* A compiled text: segments [seg, seg + nseg) of the catalog. */
typedef struct text {
    size_t seg, nseg;
} text;

/* An exact form "=N" of a plural entry: its value, its text, and where
 * its name is in the JSON (the body between the quotes, for errors). */
typedef struct exact_form {
    double value;
    text t;
    size_t name_start, name_end;
} exact_form;

/* One entry of a catalog: its key, and either one text (form[OTHER]) or
 * a plural object's forms.  cats has bit (1u << category) for each
 * category form present; exact forms are [exact, exact + n_exact) of the
 * catalog's exact forms, sorted by value. */
typedef struct entry {
    uint64_t hash;
    const char *key;  /* NUL-terminated, in the arena; set once read  */
    size_t key_off, key_len;
    int plural;
    unsigned cats;
    text form[CATEGORIES];
    size_t exact, n_exact;
} entry;

/* One locale's catalog. */
typedef struct catalog {
    char tag[SDUI_LOCALE_TAG_MAX];
    size_t tag_len;
    entry *entries;
    size_t count, entries_cap;
    size_t *slots;      /* entry index + 1; 0 is empty               */
    size_t slots_cap;   /* a power of two, at least twice count       */
    segment *segs;
    size_t nsegs, segs_cap;
    exact_form *exact;
    size_t nexact, exact_cap;
    char *bytes;
    size_t nbytes, bytes_cap;
} catalog;

/* A set: the default locale, its chain, and the catalogs sorted by tag. */
struct sdui_strings {
    char default_locale[SDUI_LOCALE_TAG_MAX];
    char default_chain[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX];
    size_t default_chain_n;
    size_t max_catalog_bytes;
    catalog *cats[LOCALES_MAX];
    size_t ncats;
};

/* ---- memory ---------------------------------------------------------- */

/* Makes *p (an array of elem-byte items with room for *cap) hold at least
 * need items, growing it by half again; 0 on allocation failure or
 * overflow (*p is then unchanged). */
static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t n;
    void *q;
    assert(elem > 0);
    if (need <= *cap)
        return 1;
    n = *cap < 8 ? 8 : *cap + *cap / 2;
    if (n < need)
        n = need;
    if (n > SIZE_MAX / elem)
        return 0;
    q = sdui_realloc(*p, n * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* Frees a catalog and its arrays; NULL is a no-op. */
static void catalog_free(catalog *c)
{
    if (!c)
        return;
    sdui_free(c->entries);
    sdui_free(c->slots);
    sdui_free(c->segs);
    sdui_free(c->exact);
    sdui_free(c->bytes);
    sdui_free(c);
}

/* ---- the table ------------------------------------------------------- */

/* The entry of key[0, len) with hash h in c, or NULL. */
static const entry *probe(const catalog *c, uint64_t h, const char *key, size_t len)
{
    size_t mask, i;
    if (!c->slots_cap)
        return NULL;
    mask = c->slots_cap - 1;
    for (i = (size_t)h & mask;; i = (i + 1) & mask) {
        size_t s = c->slots[i];
        const entry *e;
        if (!s)
            return NULL;
        e = &c->entries[s - 1];
        if (e->hash == h && e->key_len == len && memcmp(c->bytes + e->key_off, key, len) == 0)
            return e;
    }
}

/* Puts entry index i (whose hash is h) into the first free slot of its
 * probe run; the table has a free slot. */
static void slot_put(catalog *c, uint64_t h, size_t i)
{
    size_t mask = c->slots_cap - 1, k;
    assert(c->slots_cap && (c->slots_cap & mask) == 0);
    for (k = (size_t)h & mask; c->slots[k]; k = (k + 1) & mask)
        ;
    c->slots[k] = i + 1;
}

/* Makes the table of c a fresh one of at least twice want slots, holding
 * entries [0, c->count); 0 on allocation failure (the old table is kept). */
static int table_rebuild(catalog *c, size_t want)
{
    size_t cap = 8, i;
    size_t *slots;
    while (cap < want * 2) {
        if (cap > SIZE_MAX / 4)
            return 0;
        cap *= 2;
    }
    if (cap > SIZE_MAX / sizeof *slots)
        return 0;
    slots = sdui__calloc(cap * sizeof *slots);
    if (!slots)
        return 0;
    sdui_free(c->slots);
    c->slots = slots;
    c->slots_cap = cap;
    for (i = 0; i < c->count; i++)
        slot_put(c, c->entries[i].hash, i);
    return 1;
}

/* The catalog of the canonical tag in the set (binary search), or NULL. */
static const catalog *find_catalog(const sdui_strings *s, const char *tag)
{
    size_t lo = 0, hi = s->ncats;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->cats[mid]->tag, tag);
        if (c == 0)
            return s->cats[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Where the canonical tag is or would go among the set's catalogs. */
static size_t catalog_position(const sdui_strings *s, const char *tag)
{
    size_t lo = 0, hi = s->ncats;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s->cats[mid]->tag, tag) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- reading a catalog ----------------------------------------------- */

/* The state of one add while the scanner runs. */
typedef struct builder {
    catalog *c;              /* the catalog being built                  */
    const char *json;
    size_t len;
    const sdui__catalog_place *place; /* a bundle's, or NULL: on its own */
    sdui_error *err;
    sdui_status failed;      /* the first error found (in err), or OK    */
    int hook_failed;         /* the hook ended the scan (allocation)     */
    size_t key_start, key_end;   /* raw body of the entry's key          */
    size_t form_start, form_end; /* raw body of the plural member's name */
    size_t cur;              /* the entry being read                     */
    int value_is_plural;     /* the entry's value is an object           */
    int form;                /* the member's category, or -1: exact      */
    char *scratch;           /* decoded strings                          */
    size_t scratch_cap;
} builder;

/* Writes the JSON path of what is being read to out[cap]: "$", the entry
 * ($["cart.items"]) or the plural member ($["cart.items"].few,
 * $["cart.empty"]["=0"]), each name as written in the JSON and cut short
 * past 48 bytes. */
static void path_of(const builder *b, int level, char *out, size_t cap)
{
    size_t n = 0;
    int k;
    assert(cap >= 8);
    out[0] = '$';
    out[1] = '\0';
    n = 1;
    for (k = 1; k <= level; k++) {
        size_t start = k == 1 ? b->key_start : b->form_start;
        size_t end = k == 1 ? b->key_end : b->form_end;
        size_t len = end - start, cut = len, i;
        int ident = k == 2 && len > 0;
        const char *name = b->json + start;
        if (cut > 48) {
            cut = 48;
            /* Not in the middle of a UTF-8 sequence or an escape. */
            while (cut > 0 && ((unsigned char)name[cut] & 0xC0) == 0x80)
                cut--;
            for (i = cut > 6 ? cut - 6 : 0; i < cut; i++)
                if (name[i] == '\\') {
                    cut = i;
                    break;
                }
        }
        for (i = 0; i < len && ident; i++)
            ident = name[i] >= 'a' && name[i] <= 'z';
        if (ident)
            n += (size_t)snprintf(out + n, cap - n, ".%.*s", (int)cut, name);
        else
            n += (size_t)snprintf(out + n, cap - n, "[\"%.*s%s\"]", (int)cut, name, cut < len ? "..." : "");
        if (n >= cap) {
            out[cap - 1] = '\0';
            return;
        }
    }
}

/* Records the first error of the text (status st, at byte offset of the
 * JSON, about the entry at level: 0 the catalog, 1 the entry, 2 its
 * member), naming the locale and the path; the scan goes on so that a
 * grammar error after it is still reported first.  Returns the verdict
 * for the scanner. */
static SDUI_PRINTF(5, 6) int fail(builder *b, sdui_status st, size_t offset, int level, const char *fmt, ...)
{
    char what[200], path[128];
    va_list ap;
    assert(st != SDUI_OK);
    if (b->failed)
        return SDUI_SCAN_GO;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    path_of(b, level, path, sizeof path);
    if (b->place) {
        /* The bundle's path of the catalog, then the catalog's own after
         * its "$", at the bundle's byte. */
        const sdui__catalog_place *pl = b->place;
        sdui__fail_at(b->err, st, pl->doc, pl->doc_len, pl->base + offset, "%s%s (byte %zu): %s", pl->path, path + 1,
                      pl->base + offset, what);
    } else {
        sdui__fail_at(b->err, st, b->json, b->len, offset, "catalog %s: %s (byte %zu): %s", b->c->tag, path, offset,
                      what);
    }
    b->failed = st;
    return SDUI_SCAN_GO;
}

/* Ends the scan for an allocation failure. */
static int fail_oom(builder *b)
{
    b->hook_failed = 1;
    return SDUI_SCAN_FAIL(sdui__oom(b->err));
}

/* Decodes the JSON string body json[start, end) (escaped: it holds
 * escapes) into the scratch buffer, NUL-terminated; its length to *len.
 * NULL on allocation failure. */
static const char *decode(builder *b, size_t start, size_t end, int escaped, size_t *len)
{
    size_t raw = end - start;
    if (!reserve((void **)&b->scratch, &b->scratch_cap, raw + 1, 1))
        return NULL;
    if (escaped) {
        *len = sdui__unescape(b->json + start, raw, b->scratch);
    } else {
        memcpy(b->scratch, b->json + start, raw);
        *len = raw;
    }
    assert(*len <= raw);
    b->scratch[*len] = '\0';
    return b->scratch;
}

/* Appends bytes s[0, n) to the catalog's arena; its offset to *off.  0 on
 * allocation failure. */
static int arena_put(catalog *c, const char *s, size_t n, size_t *off)
{
    if (!reserve((void **)&c->bytes, &c->bytes_cap, c->nbytes + n + 1, 1))
        return 0;
    memcpy(c->bytes + c->nbytes, s, n);
    *off = c->nbytes;
    c->nbytes += n;
    return 1;
}

/* Appends literal bytes s[0, n) to the text being compiled (whose first
 * segment is first): extends its last segment when that is a literal
 * ending where the arena ends.  0 on allocation failure. */
static int put_literal(catalog *c, size_t first, const char *s, size_t n)
{
    size_t off;
    segment *last = c->nsegs > first ? &c->segs[c->nsegs - 1] : NULL;
    if (n == 0)
        return 1;
    if (!arena_put(c, s, n, &off))
        return 0;
    if (last && last->kind == SEG_LITERAL && last->off + last->len == off) {
        last->len += (uint32_t)n;
        return 1;
    }
    if (!reserve((void **)&c->segs, &c->segs_cap, c->nsegs + 1, sizeof *c->segs))
        return 0;
    c->segs[c->nsegs].off = off;
    c->segs[c->nsegs].len = (uint32_t)n;
    c->segs[c->nsegs].kind = SEG_LITERAL;
    c->nsegs++;
    return 1;
}

/* Whether name[0, n) is an argument name's bytes: [A-Za-z_][A-Za-z0-9_]*
 * (any length; the limit is checked apart). */
static int arg_name_ok(const char *name, size_t n)
{
    size_t i;
    if (n == 0)
        return 0;
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)name[i];
        int alpha = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_';
        if (!alpha && !(i > 0 && ch >= '0' && ch <= '9'))
            return 0;
    }
    return 1;
}

/* Compiles the decoded text t[0, n) (the JSON string at offset at, about
 * level) into segments (*out); apostrophes and braces as the top of this
 * file says.  Returns SDUI_OK, or an error recorded through fail (a
 * brace, a name, a limit) or SDUI_OOM (not recorded: the caller ends the
 * scan). */
static sdui_status compile_text(builder *b, const char *t, size_t n, size_t at, int level, text *out)
{
    catalog *c = b->c;
    size_t first = c->nsegs, i = 0, args = 0;
    out->seg = first;
    out->nseg = 0;
    while (i < n) {
        size_t j = i;
        /* The run of plain bytes up to the next special one. */
        while (j < n && t[j] != '\'' && t[j] != '{' && t[j] != '}')
            j++;
        if (!put_literal(c, first, t + i, j - i))
            return SDUI_OOM;
        i = j;
        if (i == n)
            break;
        if (t[i] == '\'') {
            if (i + 1 < n && t[i + 1] == '\'') {
                /* '' is one apostrophe. */
                if (!put_literal(c, first, "'", 1))
                    return SDUI_OOM;
                i += 2;
            } else if (i + 1 < n && (t[i + 1] == '{' || t[i + 1] == '}')) {
                /* A quoted run up to the next lone apostrophe or the end. */
                i++;
                while (i < n) {
                    j = i;
                    while (j < n && t[j] != '\'')
                        j++;
                    if (!put_literal(c, first, t + i, j - i))
                        return SDUI_OOM;
                    if (j + 1 < n && t[j + 1] == '\'') {
                        if (!put_literal(c, first, "'", 1))
                            return SDUI_OOM;
                        i = j + 2;
                        continue;
                    }
                    i = j < n ? j + 1 : n;
                    break;
                }
            } else {
                /* Any other apostrophe is itself. */
                if (!put_literal(c, first, "'", 1))
                    return SDUI_OOM;
                i++;
            }
            continue;
        }
        if (t[i] == '}') {
            fail(b, SDUI_SCHEMA, at, level,
                 "the text has a '}' at byte %zu of it that closes no '{' "
                 "(to show a brace, put it between apostrophes)",
                 i);
            return SDUI_SCHEMA;
        }
        /* '{': an argument up to the next '}'. */
        j = i + 1;
        while (j < n && t[j] != '}')
            j++;
        if (j == n) {
            fail(b, SDUI_SCHEMA, at, level, "the text has a '{' at byte %zu of it that is never closed", i);
            return SDUI_SCHEMA;
        }
        if (!arg_name_ok(t + i + 1, j - i - 1)) {
            fail(b, SDUI_SCHEMA, at, level,
                 "the text's argument at byte %zu of it, {%.*s}, is not a name ([A-Za-z_][A-Za-z0-9_]*)", i,
                 (int)(j - i - 1 > 40 ? 40 : j - i - 1), t + i + 1);
            return SDUI_SCHEMA;
        }
        if (j - i - 1 > ARG_NAME_MAX) {
            fail(b, SDUI_LIMIT, at, level,
                 "the text's argument at byte %zu of it has a name of %zu bytes, more than %d", i, j - i - 1,
                 ARG_NAME_MAX);
            return SDUI_LIMIT;
        }
        if (++args > TEXT_ARGS_MAX) {
            fail(b, SDUI_LIMIT, at, level, "the text has more than %d arguments", TEXT_ARGS_MAX);
            return SDUI_LIMIT;
        }
        {
            size_t off;
            if (!arena_put(c, t + i + 1, j - i - 1, &off))
                return SDUI_OOM;
            if (!reserve((void **)&c->segs, &c->segs_cap, c->nsegs + 1, sizeof *c->segs))
                return SDUI_OOM;
            c->segs[c->nsegs].off = off;
            c->segs[c->nsegs].len = (uint32_t)(j - i - 1);
            c->segs[c->nsegs].kind = SEG_ARG;
            c->nsegs++;
        }
        i = j + 1;
    }
    out->nseg = c->nsegs - first;
    return SDUI_OK;
}

/* Reads the string value json[start, end) (quotes included) as a text of
 * the entry (level 1) or of a plural member (level 2) into *out. */
static int read_text(builder *b, const sdui_scan_event *ev, int level, text *out)
{
    size_t len, raw = ev->end - ev->start - 2;
    const char *t;
    sdui_status st;
    assert(ev->end - ev->start >= 2 && b->json[ev->start] == '"');
    if (raw > RAW_TEXT_MAX)
        return fail(b, SDUI_LIMIT, ev->start, level, "the text is more than %d bytes long", TEXT_MAX);
    t = decode(b, ev->start + 1, ev->end - 1, ev->escaped, &len);
    if (!t)
        return fail_oom(b);
    if (len > TEXT_MAX)
        return fail(b, SDUI_LIMIT, ev->start, level, "the text is %zu bytes long, more than %d", len, TEXT_MAX);
    st = compile_text(b, t, len, ev->start, level, out);
    if (st == SDUI_OOM)
        return fail_oom(b);
    return SDUI_SCAN_GO;
}

/* A key at depth 1: checks it and opens its entry. */
static int entry_key(builder *b, const sdui_scan_event *ev)
{
    catalog *c = b->c;
    size_t len, i, off;
    const char *k;
    uint64_t h;
    entry *e;
    b->key_start = ev->start + 1;
    b->key_end = ev->end - 1;
    k = decode(b, b->key_start, b->key_end, ev->escaped, &len);
    if (!k)
        return fail_oom(b);
    if (len == 0)
        return fail(b, SDUI_SCHEMA, ev->start, 1, "an empty key (a key is 1-%d bytes of [A-Za-z0-9_.-])", KEY_MAX);
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)k[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'
              || ch == '.' || ch == '-'))
            return fail(b, SDUI_SCHEMA, ev->start, 1,
                        "the key has a byte 0x%02X, at byte %zu of it, that is not one of [A-Za-z0-9_.-]", ch, i);
    }
    if (len > KEY_MAX)
        return fail(b, SDUI_LIMIT, ev->start, 1, "the key is %zu bytes long, more than %d", len, KEY_MAX);
    h = sdui__hash(k, len);
    if (probe(c, h, k, len))
        return fail(b, SDUI_SCHEMA, ev->start, 1, "the key appears twice in the catalog");
    if (!reserve((void **)&c->entries, &c->entries_cap, c->count + 1, sizeof *c->entries))
        return fail_oom(b);
    if ((c->count + 1) * 2 > c->slots_cap && !table_rebuild(c, c->count + 1))
        return fail_oom(b);
    if (!arena_put(c, k, len, &off))
        return fail_oom(b);
    c->bytes[c->nbytes++] = '\0';   /* arena_put left room for it */
    e = &c->entries[c->count];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->key_off = off;
    e->key_len = len;
    b->cur = c->count;
    slot_put(c, h, c->count);
    c->count++;
    return SDUI_SCAN_GO;
}

/* Orders exact forms by value (qsort). */
static int exact_order(const void *x, const void *y)
{
    double a = ((const exact_form *)x)->value, v = ((const exact_form *)y)->value;
    return (a > v) - (a < v);
}

/* The end of a plural object at depth 1: "other" is there, and no two
 * exact forms have one value. */
static int plural_end(builder *b, const sdui_scan_event *ev)
{
    catalog *c = b->c;
    entry *e = &c->entries[b->cur];
    size_t i;
    if (!(e->cats & (1u << SDUI_PLURAL_OTHER)))
        return fail(b, SDUI_SCHEMA, ev->start, 1, "the plural object has no \"other\" form, which is required");
    e->n_exact = c->nexact - e->exact;
    if (e->n_exact > 1)
        qsort(c->exact + e->exact, e->n_exact, sizeof *c->exact, exact_order);
    for (i = 1; i < e->n_exact; i++) {
        const exact_form *p = &c->exact[e->exact + i - 1], *q = &c->exact[e->exact + i];
        if (p->value == q->value) {
            const exact_form *later = p->name_start > q->name_start ? p : q;
            const exact_form *earlier = later == p ? q : p;
            b->form_start = later->name_start;
            b->form_end = later->name_end;
            return fail(b, SDUI_SCHEMA, later->name_start - 1, 2, "the exact form has the value of \"%.*s\" before it",
                        (int)(earlier->name_end - earlier->name_start > 40 ? 40
                                                                          : earlier->name_end - earlier->name_start),
                        b->json + earlier->name_start);
        }
    }
    return SDUI_SCAN_GO;
}

/* The events at depth 1: an entry's key, its value's start and end. */
static int at_entry(builder *b, const sdui_scan_event *ev)
{
    catalog *c = b->c;
    switch (ev->kind) {
    case SDUI_SCAN_KEY:
        return entry_key(b, ev);
    case SDUI_SCAN_VALUE: {
        char first = b->json[ev->start];
        entry *e = &c->entries[b->cur];
        b->value_is_plural = first == '{';
        if (first == '{') {
            e->plural = 1;
            e->exact = c->nexact;
            return SDUI_SCAN_GO;
        }
        if (first != '"')
            return fail(b, SDUI_SCHEMA, ev->start, 1,
                        "the value is %s, neither a string nor a plural object", sdui__json_kind(first));
        return SDUI_SCAN_GO;
    }
    case SDUI_SCAN_END:
        if (b->value_is_plural)
            return plural_end(b, ev);
        c->entries[b->cur].cats = 1u << SDUI_PLURAL_OTHER;
        return read_text(b, ev, 1, &c->entries[b->cur].form[SDUI_PLURAL_OTHER]);
    default:
        return SDUI_SCAN_GO;
    }
}

/* Whether s[0, n) is decimal text: -?[0-9]+(.[0-9]+)?. */
static int is_decimal(const char *s, size_t n)
{
    size_t i = 0, d;
    if (i < n && s[i] == '-')
        i++;
    for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        ;
    if (i == d)
        return 0;
    if (i < n && s[i] == '.') {
        for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        if (i == d)
            return 0;
    }
    return i == n;
}

/* A member's name in a plural object: a category, or "=N". */
static int form_key(builder *b, const sdui_scan_event *ev)
{
    catalog *c = b->c;
    entry *e = &c->entries[b->cur];
    size_t len;
    const char *name;
    sdui_plural cat;
    b->form_start = ev->start + 1;
    b->form_end = ev->end - 1;
    name = decode(b, b->form_start, b->form_end, ev->escaped, &len);
    if (!name)
        return fail_oom(b);
    if (len > 0 && name[0] == '=') {
        exact_form *x;
        if (len - 1 > NUMBER_TEXT_MAX || !is_decimal(name + 1, len - 1))
            return fail(b, SDUI_SCHEMA, ev->start, 2,
                        "an exact form is '=' and a decimal number of at most %d bytes (\"=0\", \"=12\")",
                        NUMBER_TEXT_MAX);
        if (!reserve((void **)&c->exact, &c->exact_cap, c->nexact + 1, sizeof *c->exact))
            return fail_oom(b);
        x = &c->exact[c->nexact++];
        memset(x, 0, sizeof *x);
        x->value = sdui__strtod(name + 1, NULL);
        x->name_start = b->form_start;
        x->name_end = b->form_end;
        assert(isfinite(x->value));
        b->form = -1;
        return SDUI_SCAN_GO;
    }
    if (!sdui_plural_from_name(name, len, &cat) || (unsigned)cat >= CATEGORIES
        || strlen(sdui_plural_name(cat)) != len || memcmp(sdui_plural_name(cat), name, len) != 0)
        return fail(b, SDUI_SCHEMA, ev->start, 2,
                    "not a plural category (zero, one, two, few, many, other) or an exact value (\"=0\")");
    if (e->cats & (1u << cat))
        return fail(b, SDUI_SCHEMA, ev->start, 2, "the form appears twice in the plural object");
    e->cats |= 1u << cat;
    b->form = (int)cat;
    return SDUI_SCAN_GO;
}

/* The events at depth 2: a plural member's name, its value's start and
 * end. */
static int at_form(builder *b, const sdui_scan_event *ev)
{
    catalog *c = b->c;
    switch (ev->kind) {
    case SDUI_SCAN_KEY:
        return form_key(b, ev);
    case SDUI_SCAN_VALUE:
        if (b->json[ev->start] != '"')
            return fail(b, SDUI_SCHEMA, ev->start, 2, "the form's value is %s, not a string",
                        sdui__json_kind(b->json[ev->start]));
        return SDUI_SCAN_GO;
    case SDUI_SCAN_END:
        if (b->form < 0)
            return read_text(b, ev, 2, &c->exact[c->nexact - 1].t);
        return read_text(b, ev, 2, &c->entries[b->cur].form[b->form]);
    default:
        return SDUI_SCAN_GO;
    }
}

/* The scanner's hook: the root, the entries, the plural members.  After
 * the first error nothing more is built; the scan only checks grammar. */
static int catalog_hook(void *ctx, const sdui_scan_event *ev)
{
    builder *b = ctx;
    if (b->failed)
        return SDUI_SCAN_GO;
    switch (ev->depth) {
    case 0:
        if (ev->kind == SDUI_SCAN_VALUE && b->json[ev->start] != '{')
            return fail(b, SDUI_SCHEMA, ev->start, 0, "the catalog is %s, not an object of keys",
                        sdui__json_kind(b->json[ev->start]));
        return SDUI_SCAN_GO;
    case 1:
        return at_entry(b, ev);
    case 2:
        return at_form(b, ev);
    default:
        return SDUI_SCAN_GO;
    }
}

/* Orders entries by key (qsort; keys hold no NUL). */
static int entry_order(const void *x, const void *y)
{
    return strcmp(((const entry *)x)->key, ((const entry *)y)->key);
}

/* Completes a catalog that read without error: keys as pointers into the
 * final arena, entries sorted by key, the table rebuilt over that order.
 * 0 on allocation failure. */
static int catalog_finish(catalog *c)
{
    size_t i;
    if (!c->bytes && !reserve((void **)&c->bytes, &c->bytes_cap, 1, 1))
        return 0;
    for (i = 0; i < c->count; i++) {
        c->entries[i].key = c->bytes + c->entries[i].key_off;
        assert(c->entries[i].key[c->entries[i].key_len] == '\0');
    }
    if (c->count > 1)
        qsort(c->entries, c->count, sizeof *c->entries, entry_order);
    return table_rebuild(c, c->count);
}

/* Fails err with the message what (a NUL-terminated copy) about the
 * whole catalog of tag, at byte offset of its text (-1: none): "catalog
 * <tag>: " before it, or in place's document its path and byte (a
 * catalog's error with no byte is at its start). */
static sdui_status catalog_fail(sdui_error *err, sdui_status st, const char *tag, const sdui__catalog_place *place,
                                long long offset, const char *what)
{
    if (place) {
        size_t at = place->base + (offset > 0 ? (size_t)offset : 0);
        return sdui__fail_at(err, st, place->doc, place->doc_len, at, "%s (byte %zu): %.200s", place->path, at, what);
    }
    return sdui__fail(err, st, offset, "catalog %s: %.200s", tag, what);
}

/* Prefixes the scanner's message in err with the catalog's locale and
 * the byte it names (or places it in place's document). */
static void prefix_scan_error(sdui_error *err, const char *tag, const sdui__catalog_place *place)
{
    char msg[SDUI_ERROR_MESSAGE_SIZE];
    if (!err)
        return;
    memcpy(msg, err->message, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    if (place || err->offset < 0)
        catalog_fail(err, err->status, tag, place, err->offset, msg);
    else
        snprintf(err->message, sizeof err->message, "catalog %s: byte %lld (line %d, column %d): %.180s", tag,
                 err->offset, err->line, err->column, msg);
}

/* Reads json[0, len) into a new catalog of tag (the essay at the top).
 * On SDUI_OK *out is new; else err says why and nothing is kept. */
static sdui_status catalog_read(const char *tag, const char *json, size_t len, const sdui__catalog_place *place,
                                catalog **out, sdui_error *err)
{
    sdui_scan_config cfg;
    builder b;
    sdui_status st;
    catalog *c = sdui__calloc(sizeof *c);
    *out = NULL;
    if (!c)
        return sdui__oom(err);
    c->tag_len = strlen(tag);
    memcpy(c->tag, tag, c->tag_len + 1);
    memset(&b, 0, sizeof b);
    b.c = c;
    b.json = json ? json : "";
    b.len = len;
    b.place = place;
    b.err = err;
    memset(&cfg, 0, sizeof cfg);
    cfg.text = b.json;
    cfg.len = len;
    cfg.max_depth = CATALOG_MAX_DEPTH;
    cfg.err = err;
    cfg.hook = catalog_hook;
    cfg.ctx = &b;
    cfg.value_levels = 3; /* the root, the entries, the plural members */
    cfg.key_levels = 3;
    st = sdui__scan(&cfg, NULL);
    if (st != SDUI_OK && !b.hook_failed)
        prefix_scan_error(err, tag, place);
    if (st == SDUI_OK && b.failed)
        st = b.failed;
    if (st == SDUI_OK && !catalog_finish(c))
        st = sdui__oom(err);
    sdui_free(b.scratch);
    if (st != SDUI_OK) {
        catalog_free(c);
        return st;
    }
    *out = c;
    return SDUI_OK;
}

/* ---- the set --------------------------------------------------------- */

/* A new empty set (catalog.h). */
sdui_status sdui_strings_new(const char *default_locale, size_t len, size_t max_catalog_bytes, sdui_strings **out,
                             sdui_error *err)
{
    char tag[SDUI_LOCALE_TAG_MAX];
    sdui_strings *s;
    sdui_status st;
    sdui_error_clear(err);
    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "strings: out is NULL");
    *out = NULL;
    if (!default_locale && len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "strings: the default locale is NULL");
    st = sdui_locale_canonical(default_locale ? default_locale : "", len, tag, err);
    if (st != SDUI_OK)
        return st;
    s = sdui__calloc(sizeof *s);
    if (!s)
        return sdui__oom(err);
    memcpy(s->default_locale, tag, sizeof tag);
    st = sdui_locale_chain(tag, strlen(tag), s->default_chain, &s->default_chain_n, err);
    if (st != SDUI_OK) {
        sdui_free(s);
        return st;
    }
    assert(s->default_chain_n >= 1 && s->default_chain_n <= SDUI_LOCALE_CHAIN_MAX);
    s->max_catalog_bytes = max_catalog_bytes ? max_catalog_bytes : SDUI_STRINGS_DEFAULT_MAX_CATALOG_BYTES;
    *out = s;
    return SDUI_OK;
}

/* Frees the set and its catalogs (catalog.h). */
void sdui_strings_free(sdui_strings *strings)
{
    size_t i;
    if (!strings)
        return;
    for (i = 0; i < strings->ncats; i++)
        catalog_free(strings->cats[i]);
    sdui_free(strings);
}

/* The set's default locale (catalog.h). */
const char *sdui_strings_default_locale(const sdui_strings *strings)
{
    return strings ? strings->default_locale : NULL;
}

/* Adds or replaces the catalog of a locale (catalog.h). */
sdui_status sdui_strings_add(sdui_strings *strings, const char *locale, size_t len, const char *json,
                             size_t json_len, sdui_error *err)
{
    char tag[SDUI_LOCALE_TAG_MAX];
    sdui_status st;
    sdui_error_clear(err);
    if (!strings || (!locale && len) || (!json && json_len))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "strings_add: the set, the locale or the JSON is NULL");
    st = sdui_locale_canonical(locale ? locale : "", len, tag, err);
    if (st != SDUI_OK)
        return st;
    return sdui__strings_add_placed(strings, tag, json, json_len, NULL, err);
}

/* sdui_strings_add of a canonical tag, its errors placed (catalog_place.h). */
sdui_status sdui__strings_add_placed(sdui_strings *strings, const char *tag, const char *json, size_t json_len,
                                     const sdui__catalog_place *place, sdui_error *err)
{
    char what[160];
    catalog *c;
    sdui_status st;
    size_t at = catalog_position(strings, tag);
    if (!(at < strings->ncats && strcmp(strings->cats[at]->tag, tag) == 0) && strings->ncats >= LOCALES_MAX) {
        snprintf(what, sizeof what, "the set already holds %d locales, the most it can", LOCALES_MAX);
        return catalog_fail(err, SDUI_LIMIT, tag, place, -1, what);
    }
    if (json_len > strings->max_catalog_bytes) {
        snprintf(what, sizeof what, "%zu bytes of JSON, more than the limit of %zu", json_len,
                 strings->max_catalog_bytes);
        return catalog_fail(err, SDUI_LIMIT, tag, place, -1, what);
    }
    st = catalog_read(tag, json, json_len, place, &c, err);
    if (st != SDUI_OK)
        return st;
    if (at < strings->ncats && strcmp(strings->cats[at]->tag, tag) == 0) {
        catalog_free(strings->cats[at]);
        strings->cats[at] = c;
    } else {
        memmove(&strings->cats[at + 1], &strings->cats[at], (strings->ncats - at) * sizeof strings->cats[0]);
        strings->cats[at] = c;
        strings->ncats++;
    }
    assert(at == 0 || strcmp(strings->cats[at - 1]->tag, tag) < 0);
    assert(at + 1 >= strings->ncats || strcmp(strings->cats[at + 1]->tag, tag) > 0);
    return SDUI_OK;
}

/* The number of locales of the set (catalog.h). */
size_t sdui_strings_locale_count(const sdui_strings *strings)
{
    return strings ? strings->ncats : 0;
}

/* The i-th locale of the set, sorted by tag (catalog.h). */
const char *sdui_strings_locale_at(const sdui_strings *strings, size_t i)
{
    return strings && i < strings->ncats ? strings->cats[i]->tag : NULL;
}

/* Whether the catalog of exactly that locale has the key (catalog.h). */
int sdui_strings_has(const sdui_strings *strings, const char *locale, size_t locale_len, const char *key,
                     size_t key_len)
{
    char tag[SDUI_LOCALE_TAG_MAX];
    const catalog *c;
    if (!strings || !locale || (!key && key_len))
        return 0;
    if (sdui_locale_canonical(locale, locale_len, tag, NULL) != SDUI_OK)
        return 0;
    c = find_catalog(strings, tag);
    return c && probe(c, sdui__hash(key ? key : "", key_len), key ? key : "", key_len) != NULL;
}

/* ---- lookups --------------------------------------------------------- */

/* The first argument named name[0, len) among args[0..n), or NULL. */
static const sdui_strings_arg *find_arg(const sdui_strings_arg *args, size_t n, const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (args[i].name_len == len && (len == 0 || memcmp(args[i].name, name, len) == 0))
            return &args[i];
    return NULL;
}

/*
 * Writes x as decimal text for the plural rules into out (NUMBER_TEXT_MAX
 * bytes and a NUL): the number-to-text rule's digits, without the ".0" it
 * gives integral values, positional even where the rule would write an
 * exponent.  Returns the length; 0 when x is not finite or its positional
 * text is longer than NUMBER_TEXT_MAX (then the rules are not asked).
 */
static size_t count_text(double x, char out[NUMBER_TEXT_MAX + 1])
{
    char t[SDUI_NUMBER_TEXT_MAX], digits[SDUI_NUMBER_TEXT_MAX];
    size_t n, nd = 0, i = 0, o = 0;
    long point = 0, exp;
    const char *e;
    if (!isfinite(x))
        return 0;
    n = sdui_number_text(x, t);
    e = strchr(t, 'e');
    if (!e) {
        if (n >= 2 && t[n - 2] == '.' && t[n - 1] == '0')
            n -= 2;
        if (n > NUMBER_TEXT_MAX)
            return 0;
        memcpy(out, t, n);
        out[n] = '\0';
        return n;
    }
    /* d[.ddd]eX: the digits, and the point after the first of them moved
     * X places. */
    if (t[0] == '-')
        out[o++] = t[i++];
    for (; t + i < e; i++)
        if (t[i] != '.')
            digits[nd++] = t[i];
    exp = strtol(e + 1, NULL, 10);
    point = 1 + exp;   /* digits before the point */
    /* The rule writes an exponent only outside [-6, 21), so the point is
     * past the digits or before them, never among them. */
    assert(nd >= 1 && nd <= 17 && (point > (long)nd || point < 0));
    if (point >= (long)nd) {
        if (o + (size_t)point > NUMBER_TEXT_MAX)
            return 0;
        memcpy(out + o, digits, nd);
        o += nd;
        for (i = nd; i < (size_t)point; i++)
            out[o++] = '0';
    } else {
        if (o + 2 + (size_t)(-point) + nd > NUMBER_TEXT_MAX)
            return 0;
        out[o++] = '0';
        out[o++] = '.';
        for (i = 0; i < (size_t)(-point); i++)
            out[o++] = '0';
        memcpy(out + o, digits, nd);
        o += nd;
    }
    out[o] = '\0';
    return o;
}

/* The exact form of e whose value is x (binary search), or NULL. */
static const exact_form *find_exact(const catalog *c, const entry *e, double x)
{
    size_t lo = 0, hi = e->n_exact;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const exact_form *f = &c->exact[e->exact + mid];
        if (f->value == x)
            return f;
        if (f->value < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Chooses the text of entry e of catalog c for the arguments, filling
 * the plural fields of *r. */
static const text *choose_form(const catalog *c, const entry *e, const sdui_strings_arg *args, size_t n,
                               sdui_strings_result *r)
{
    const sdui_strings_arg *count;
    char num[NUMBER_TEXT_MAX + 1];
    size_t num_len = 0;
    double x = 0;
    sdui_plural cat = SDUI_PLURAL_OTHER;
    const exact_form *exact = NULL;
    r->category = SDUI_PLURAL_OTHER;
    if (!e->plural)
        return &e->form[SDUI_PLURAL_OTHER];
    r->plural = 1;
    count = find_arg(args, n, "count", 5);
    if (count && count->is_number) {
        x = count->number;
        num_len = count_text(x, num);
    } else if (count && count->text_len <= NUMBER_TEXT_MAX && is_decimal(count->text, count->text_len)) {
        memcpy(num, count->text, count->text_len);
        num[count->text_len] = '\0';
        num_len = count->text_len;
        x = sdui__strtod(num, NULL);
    } else {
        r->count_missing = 1;
        return &e->form[SDUI_PLURAL_OTHER];
    }
    if (isfinite(x))
        exact = find_exact(c, e, x);
    if (num_len > 0 && sdui_locale_plural(c->tag, c->tag_len, num, num_len, 0, &cat, NULL) != SDUI_OK)
        cat = SDUI_PLURAL_OTHER;
    if ((unsigned)cat >= CATEGORIES)
        cat = SDUI_PLURAL_OTHER;
    r->category = cat;
    if (exact)
        return &exact->t;
    if (e->cats & (1u << cat))
        return &e->form[cat];
    r->form_missing = 1;
    return &e->form[SDUI_PLURAL_OTHER];
}

/* The text an argument puts in: a text as given; a number formatted in
 * the catalog's locale into buf (a number the locale cannot write, NaN or
 * infinite, by the number-to-text rule: nan, inf, -inf).  Its length. */
static size_t arg_text(const catalog *c, const sdui_strings_arg *a, char buf[SDUI_LOCALE_TEXT_MAX],
                       const char **out)
{
    size_t len = 0;
    if (!a->is_number) {
        *out = a->text ? a->text : "";
        return a->text ? a->text_len : 0;
    }
    if (sdui_locale_format_number(c->tag, c->tag_len, a->number, -1, buf, SDUI_LOCALE_TEXT_MAX, &len, NULL)
        != SDUI_OK)
        len = sdui_number_text(a->number, buf);
    *out = buf;
    return len;
}

/* Writes text t of catalog c with args put in to dst (NULL: only
 * measures); returns the length, or SIZE_MAX past SIZE_MAX - 1.  Counts
 * {name}s with no argument in *unknown. */
static size_t render(const catalog *c, const text *t, const sdui_strings_arg *args, size_t n, char *dst,
                     size_t *unknown)
{
    char buf[SDUI_LOCALE_TEXT_MAX];
    size_t i, len = 0;
    *unknown = 0;
    for (i = 0; i < t->nseg; i++) {
        const segment *s = &c->segs[t->seg + i];
        const char *p = c->bytes + s->off;
        size_t k = s->len;
        assert(s->off + s->len <= c->nbytes);
        const sdui_strings_arg *a;
        int braces = 0;
        if (s->kind == SEG_ARG) {
            a = find_arg(args, n, p, s->len);
            if (a) {
                k = arg_text(c, a, buf, &p);
            } else {
                (*unknown)++;
                braces = 1;   /* left as written: {name} */
            }
        }
        if (k > SIZE_MAX - 3 - len)
            return SIZE_MAX;
        if (dst) {
            if (braces)
                dst[len++] = '{';
            if (k)
                memcpy(dst + len, p, k);
            len += k;
            if (braces)
                dst[len++] = '}';
        } else {
            len += k + (braces ? 2 : 0);
        }
    }
    return len;
}

/* The text of a key in a locale, along the chain (catalog.h; the essay at
 * the top of this file). */
sdui_status sdui_strings_format(const sdui_strings *strings, const char *locale, size_t locale_len,
                                const char *key, size_t key_len, const sdui_strings_arg *args, size_t n,
                                char **out, size_t *out_len, sdui_strings_result *result, sdui_error *err)
{
    char chain[2 * SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX];
    size_t count = 0, i, j, len, unknown = 0;
    const catalog *c = NULL;
    const entry *e = NULL;
    const text *t;
    sdui_strings_result r;
    sdui_status st;
    uint64_t h;
    char *s;
    sdui_error_clear(err);
    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    if (!strings || !locale || (!key && key_len) || (!args && n) || !out || !out_len || !result)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "strings_format: a NULL pointer");
    if (n > FORMAT_ARGS_MAX)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "strings_format: %zu arguments, more than %d", n,
                          FORMAT_ARGS_MAX);
    for (i = 0; i < n; i++)
        if ((!args[i].name && args[i].name_len) || (!args[i].is_number && !args[i].text && args[i].text_len))
            return sdui__fail(err, SDUI_ARGUMENT, -1, "strings_format: argument %zu has a NULL name or text", i);
    st = sdui_locale_chain(locale, locale_len, chain, &count, err);
    if (st != SDUI_OK)
        return st;
    assert(count >= 1 && count <= SDUI_LOCALE_CHAIN_MAX);
    /* The default locale's chain, less the tags already in it. */
    for (i = 0; i < strings->default_chain_n; i++) {
        for (j = 0; j < count && strcmp(chain[j], strings->default_chain[i]) != 0; j++)
            ;
        if (j == count)
            memcpy(chain[count++], strings->default_chain[i], SDUI_LOCALE_TAG_MAX);
    }
    assert(count <= 2 * SDUI_LOCALE_CHAIN_MAX);
    memset(&r, 0, sizeof r);
    r.category = SDUI_PLURAL_OTHER;
    if (!key)
        key = "";
    h = sdui__hash(key, key_len);
    for (i = 0; i < count && !e; i++) {
        c = find_catalog(strings, chain[i]);
        if (c)
            e = probe(c, h, key, key_len);
    }
    if (!e) {
        /* No locale has it: the key itself. */
        s = sdui_malloc(key_len + 1);
        if (!s)
            return sdui__oom(err);
        if (key_len)
            memcpy(s, key, key_len);
        s[key_len] = '\0';
        r.missing = 1;
        r.fell_back = 1;
        *out = s;
        *out_len = key_len;
        *result = r;
        return SDUI_OK;
    }
    r.locale = c->tag;
    r.fell_back = strcmp(c->tag, chain[0]) != 0;
    t = choose_form(c, e, args, n, &r);
    len = render(c, t, args, n, NULL, &unknown);
    if (len == SIZE_MAX)
        return sdui__oom(err);
    s = sdui_malloc(len + 1);
    if (!s)
        return sdui__oom(err);
    i = render(c, t, args, n, s, &r.unknown_args);
    assert(i == len && r.unknown_args == unknown);
    s[len] = '\0';
    *out = s;
    *out_len = len;
    *result = r;
    return SDUI_OK;
}

/* ---- the check ------------------------------------------------------- */

/* The state of one check. */
typedef struct checker {
    const sdui_strings *s;
    sdui_strings_finding_fn fn;
    void *ctx;
    int stop;                           /* the callback asked to stop   */
    const catalog *dc[SDUI_LOCALE_CHAIN_MAX]; /* the default chain's    */
    size_t ndc;                         /* catalogs, in chain order     */
    char msg[1024];
    size_t msg_len;
} checker;

/* Starts a new message. */
static void msg_reset(checker *k)
{
    k->msg[0] = '\0';
    k->msg_len = 0;
}

/* Appends printf-style text to the message, cutting it short (with
 * "...") where the buffer ends. */
static SDUI_PRINTF(2, 3) void msg_add(checker *k, const char *fmt, ...)
{
    size_t room = sizeof k->msg - k->msg_len;
    va_list ap;
    int n;
    if (room <= 1)
        return;
    va_start(ap, fmt);
    n = vsnprintf(k->msg + k->msg_len, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= room) {
        k->msg_len = sizeof k->msg - 1;
        memcpy(k->msg + sizeof k->msg - 4, "...", 4);
    } else {
        k->msg_len += (size_t)n;
    }
}

/* Hands one finding to the callback; records a request to stop. */
static void emit(checker *k, sdui_strings_finding_kind kind, const char *locale, const char *key)
{
    sdui_strings_finding f;
    if (k->stop)
        return;
    f.kind = kind;
    f.locale = locale;
    f.key = key;
    f.message = k->msg;
    if (k->fn(k->ctx, &f) != 0)
        k->stop = 1;
}

/* The entry of key in the default chain's first catalog that has it
 * (what a lookup in the default locale shows), and that catalog. */
static const entry *reference(const checker *k, const entry *e, const catalog **from)
{
    size_t i;
    for (i = 0; i < k->ndc; i++) {
        const entry *r = probe(k->dc[i], e->hash, e->key, e->key_len);
        if (r) {
            *from = k->dc[i];
            return r;
        }
    }
    *from = NULL;
    return NULL;
}

/* Whether tag is in the default locale's chain. */
static int in_default_chain(const sdui_strings *s, const char *tag)
{
    size_t i;
    for (i = 0; i < s->default_chain_n; i++)
        if (strcmp(s->default_chain[i], tag) == 0)
            return 1;
    return 0;
}

/* Missing: for each locale outside the default chain, each key of the
 * default chain's catalogs (in key order: a merge of their sorted
 * entries) that no catalog of the locale's own chain has. */
static sdui_status check_missing(checker *k, sdui_error *err)
{
    const sdui_strings *s = k->s;
    size_t li;
    for (li = 0; li < s->ncats && !k->stop; li++) {
        const catalog *l = s->cats[li], *own[SDUI_LOCALE_CHAIN_MAX];
        char chain[SDUI_LOCALE_CHAIN_MAX][SDUI_LOCALE_TAG_MAX];
        size_t pos[SDUI_LOCALE_CHAIN_MAX] = {0}, nchain = 0, nown = 0, i;
        sdui_status st;
        if (in_default_chain(s, l->tag))
            continue;
        st = sdui_locale_chain(l->tag, l->tag_len, chain, &nchain, err);
        if (st != SDUI_OK)
            return st;
        for (i = 0; i < nchain; i++) {
            const catalog *c = find_catalog(s, chain[i]);
            if (c)
                own[nown++] = c;
        }
        for (;;) {
            const entry *least = NULL;
            const catalog *from = NULL;
            size_t d, hit = 0;
            /* The least key at the heads of the default chain's catalogs. */
            for (d = 0; d < k->ndc; d++) {
                const entry *h;
                if (pos[d] >= k->dc[d]->count)
                    continue;
                h = &k->dc[d]->entries[pos[d]];
                if (!least || strcmp(h->key, least->key) < 0) {
                    least = h;
                    from = k->dc[d];
                }
            }
            if (!least || k->stop)
                break;
            for (i = 0; i < nown && !hit; i++)
                hit = probe(own[i], least->hash, least->key, least->key_len) != NULL;
            if (!hit) {
                msg_reset(k);
                msg_add(k, "%s lacks '%s': no catalog of its chain (", l->tag, least->key);
                for (i = 0; i < nchain; i++)
                    msg_add(k, "%s%s", i ? ", " : "", chain[i]);
                msg_add(k, ") has it, so %s's text is shown", from->tag);
                emit(k, SDUI_STRINGS_MISSING, l->tag, least->key);
            }
            /* Past this key in every catalog whose head it is. */
            for (d = 0; d < k->ndc; d++)
                if (pos[d] < k->dc[d]->count && strcmp(k->dc[d]->entries[pos[d]].key, least->key) == 0)
                    pos[d]++;
        }
    }
    return SDUI_OK;
}

/* A key given to the check as used: its bytes. */
typedef struct used_key {
    const char *p;
    size_t len;
} used_key;

/* Orders used keys by bytes, then length (qsort). */
static int used_order(const void *x, const void *y)
{
    const used_key *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->p, b->p, n) : 0;
    if (c)
        return c;
    return (a->len > b->len) - (a->len < b->len);
}

/* Orders pointers to entries by key (qsort). */
static int entry_ptr_order(const void *x, const void *y)
{
    return strcmp((*(const entry *const *)x)->key, (*(const entry *const *)y)->key);
}

/* Unused and undefined: the keys of every catalog that no used key
 * names, then the used keys no catalog has, each in key order. */
static sdui_status check_used(checker *k, const char *const *used, const size_t *used_lens, size_t n_used,
                              sdui_error *err)
{
    const sdui_strings *s = k->s;
    used_key *u = NULL;
    const entry **all = NULL;
    char *copy = NULL;
    size_t nall = 0, i, j, nu = 0, copy_cap = 0;
    sdui_status st = SDUI_OK;
    if (n_used > SIZE_MAX / sizeof *u)
        return sdui__oom(err);
    u = sdui_malloc(n_used * sizeof *u);
    for (i = 0; i < s->ncats; i++)
        nall += s->cats[i]->count;
    all = sdui_malloc((nall ? nall : 1) * sizeof *all);
    if (!u || !all) {
        st = sdui__oom(err);
        goto done;
    }
    for (i = 0; i < n_used; i++) {
        u[i].p = used[i] ? used[i] : "";
        u[i].len = used[i] ? used_lens[i] : 0;
    }
    qsort(u, n_used, sizeof *u, used_order);
    for (i = 0; i < n_used; i++)
        if (nu == 0 || used_order(&u[nu - 1], &u[i]) != 0)
            u[nu++] = u[i];
    nall = 0;
    for (i = 0; i < s->ncats; i++)
        for (j = 0; j < s->cats[i]->count; j++)
            all[nall++] = &s->cats[i]->entries[j];
    if (nall > 1)
        qsort(all, nall, sizeof *all, entry_ptr_order);
    /* Unused: each distinct key of the catalogs not among the used. */
    for (i = 0; i < nall && !k->stop; i++) {
        used_key key;
        if (i > 0 && strcmp(all[i - 1]->key, all[i]->key) == 0)
            continue;
        key.p = all[i]->key;
        key.len = all[i]->key_len;
        if (nu && bsearch(&key, u, nu, sizeof *u, used_order))
            continue;
        msg_reset(k);
        msg_add(k, "'%s' is in a catalog but no screen, block or flow uses it", all[i]->key);
        emit(k, SDUI_STRINGS_UNUSED, NULL, all[i]->key);
    }
    /* Undefined: each distinct used key no catalog has. */
    for (i = 0; i < nu && !k->stop; i++) {
        uint64_t h = sdui__hash(u[i].p, u[i].len);
        int found = 0;
        for (j = 0; j < s->ncats && !found; j++)
            found = probe(s->cats[j], h, u[i].p, u[i].len) != NULL;
        if (found)
            continue;
        if (!reserve((void **)&copy, &copy_cap, u[i].len + 1, 1)) {
            st = sdui__oom(err);
            goto done;
        }
        if (u[i].len)
            memcpy(copy, u[i].p, u[i].len);
        copy[u[i].len] = '\0';
        msg_reset(k);
        msg_add(k, "'%s' is used but no catalog has it", copy);
        emit(k, SDUI_STRINGS_UNDEFINED, NULL, copy);
    }
done:
    sdui_free(u);
    sdui_free(all);
    sdui_free(copy);
    return st;
}

/* A list of argument names (the bytes of used_key), for the arguments
 * check. */
typedef struct name_list {
    used_key *items;
    size_t n, cap;
} name_list;

/* Adds the argument names of text t of c to list l.  0 on allocation
 * failure. */
static int add_names(name_list *l, const catalog *c, const text *t)
{
    size_t i;
    for (i = 0; i < t->nseg; i++) {
        const segment *sg = &c->segs[t->seg + i];
        if (sg->kind != SEG_ARG)
            continue;
        if (!reserve((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items))
            return 0;
        l->items[l->n].p = c->bytes + sg->off;
        l->items[l->n].len = sg->len;
        l->n++;
    }
    return 1;
}

/* The sorted distinct argument names of entry e of c (the union of its
 * forms) into l.  0 on allocation failure. */
static int collect_names(name_list *l, const catalog *c, const entry *e)
{
    size_t i, m = 0;
    l->n = 0;
    for (i = 0; i < CATEGORIES; i++)
        if ((e->cats & (1u << i)) && !add_names(l, c, &e->form[i]))
            return 0;
    for (i = 0; i < e->n_exact; i++)
        if (!add_names(l, c, &c->exact[e->exact + i].t))
            return 0;
    if (l->n > 1)
        qsort(l->items, l->n, sizeof *l->items, used_order);
    for (i = 0; i < l->n; i++)
        if (m == 0 || used_order(&l->items[m - 1], &l->items[i]) != 0)
            l->items[m++] = l->items[i];
    l->n = m;
    return 1;
}

/* The names of a that b lacks (both sorted): appended to the message as
 * "{x}, {y}" when k is not NULL.  Returns how many. */
static size_t difference(checker *k, const name_list *a, const name_list *b)
{
    size_t i, j = 0, n = 0;
    for (i = 0; i < a->n; i++) {
        while (j < b->n && used_order(&b->items[j], &a->items[i]) < 0)
            j++;
        if (j < b->n && used_order(&b->items[j], &a->items[i]) == 0)
            continue;
        if (k)
            msg_add(k, "%s{%.*s}", n ? ", " : "", (int)a->items[i].len, a->items[i].p);
        n++;
    }
    return n;
}

/* Arguments: for each locale and key, whether its text names the same
 * {arguments} as the text of the default chain (a plural entry: the
 * union of its forms). */
static sdui_status check_arguments(checker *k, sdui_error *err)
{
    const sdui_strings *s = k->s;
    name_list mine = {0}, theirs = {0};
    sdui_status st = SDUI_OK;
    size_t li, i;
    for (li = 0; li < s->ncats && !k->stop; li++) {
        const catalog *l = s->cats[li];
        for (i = 0; i < l->count && !k->stop; i++) {
            const entry *e = &l->entries[i], *ref;
            const catalog *from;
            size_t lacks, extra;
            ref = reference(k, e, &from);
            if (!ref || from == l)
                continue;
            if (!collect_names(&mine, l, e) || !collect_names(&theirs, from, ref)) {
                st = sdui__oom(err);
                goto done;
            }
            lacks = difference(NULL, &theirs, &mine);
            extra = difference(NULL, &mine, &theirs);
            if (!lacks && !extra)
                continue;
            msg_reset(k);
            msg_add(k, "%s's text of '%s'", l->tag, e->key);
            if (lacks) {
                msg_add(k, " lacks ");
                difference(k, &theirs, &mine);
                msg_add(k, ", which %s's text has", from->tag);
            }
            if (extra) {
                msg_add(k, "%s names ", lacks ? ", and" : "");
                difference(k, &mine, &theirs);
                msg_add(k, ", which %s's text does not", from->tag);
            }
            emit(k, SDUI_STRINGS_ARGUMENTS, l->tag, e->key);
        }
    }
done:
    sdui_free(mine.items);
    sdui_free(theirs.items);
    return st;
}

/* Appends up to three numbers whose category in tag's cardinal rules is
 * cat: integers from 0, then a few larger and decimal ones. */
static void add_samples(checker *k, const catalog *l, sdui_plural cat)
{
    static const char *const more[] = {"1000", "10000", "100000", "1000000", "2000000",
                                       "0.5", "1.5", "2.5",   "0.1",     "1.1", "2.1"};
    char num[16];
    size_t found = 0, i;
    for (i = 0; i < 200 + sizeof more / sizeof more[0] && found < 3; i++) {
        const char *t = num;
        sdui_plural got;
        size_t len;
        if (i < 200)
            len = (size_t)snprintf(num, sizeof num, "%zu", i);
        else
            len = strlen(t = more[i - 200]);
        if (sdui_locale_plural(l->tag, l->tag_len, t, len, 0, &got, NULL) != SDUI_OK || got != cat)
            continue;
        msg_add(k, "%s%s", found ? ", " : " (e.g. ", t);
        found++;
    }
    if (found)
        msg_add(k, ")");
}

/* Plural: for each locale, each plural entry lacking a form its rules
 * select (exact forms do not stand in for categories). */
static void check_plural(checker *k)
{
    const sdui_strings *s = k->s;
    size_t li, i;
    for (li = 0; li < s->ncats && !k->stop; li++) {
        const catalog *l = s->cats[li];
        unsigned want = sdui_locale_plural_categories(l->tag, l->tag_len, 0);
        for (i = 0; i < l->count && !k->stop; i++) {
            const entry *e = &l->entries[i];
            unsigned lacking = want & ~e->cats & ((1u << CATEGORIES) - 1);
            unsigned cat, n = 0, total = 0;
            if (!e->plural || !lacking)
                continue;
            for (cat = 0; cat < CATEGORIES; cat++)
                total += (lacking >> cat) & 1u;
            msg_reset(k);
            msg_add(k, "%s's '%s' lacks the form%s ", l->tag, e->key, total > 1 ? "s" : "");
            for (cat = 0; cat < CATEGORIES; cat++) {
                if (!(lacking & (1u << cat)))
                    continue;
                n++;
                msg_add(k, "%s'%s'", n == 1 ? "" : n == total ? " and " : ", ", sdui_plural_name((sdui_plural)cat));
                add_samples(k, l, (sdui_plural)cat);
            }
            msg_add(k, " that %s's plural rules select; \"other\" is shown instead", l->tag);
            emit(k, SDUI_STRINGS_PLURAL, l->tag, e->key);
        }
    }
}

/* Orphan: for each locale, each key the default chain's catalogs lack. */
static void check_orphan(checker *k)
{
    const sdui_strings *s = k->s;
    size_t li, i;
    for (li = 0; li < s->ncats && !k->stop; li++) {
        const catalog *l = s->cats[li];
        for (i = 0; i < l->count && !k->stop; i++) {
            const catalog *from;
            if (reference(k, &l->entries[i], &from))
                continue;
            msg_reset(k);
            msg_add(k, "%s has '%s', which the default locale (%s) lacks", l->tag,
                    l->entries[i].key, s->default_locale);
            emit(k, SDUI_STRINGS_ORPHAN, l->tag, l->entries[i].key);
        }
    }
}

/* Checks the set (catalog.h): the kinds in the order of their enum, each
 * by locale and key. */
sdui_status sdui_strings_check(const sdui_strings *strings, const char *const *used, const size_t *used_lens,
                               size_t n_used, sdui_strings_finding_fn fn, void *ctx, sdui_error *err)
{
    checker k;
    sdui_status st;
    size_t i;
    sdui_error_clear(err);
    if (!strings || !fn || (n_used && (!used || !used_lens)))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "strings_check: a NULL pointer");
    for (i = 0; i < n_used; i++)
        if (!used[i] && used_lens[i])
            return sdui__fail(err, SDUI_ARGUMENT, -1, "strings_check: used key %zu is NULL", i);
    memset(&k, 0, sizeof k);
    k.s = strings;
    k.fn = fn;
    k.ctx = ctx;
    for (i = 0; i < strings->default_chain_n; i++) {
        const catalog *c = find_catalog(strings, strings->default_chain[i]);
        if (c)
            k.dc[k.ndc++] = c;
    }
    st = check_missing(&k, err);
    if (st == SDUI_OK && n_used && !k.stop)
        st = check_used(&k, used, used_lens, n_used, err);
    if (st == SDUI_OK && !k.stop)
        st = check_arguments(&k, err);
    if (st == SDUI_OK && !k.stop)
        check_plural(&k);
    if (st == SDUI_OK && !k.stop)
        check_orphan(&k);
    return st;
}

/* The name of a finding's kind (catalog.h). */
const char *sdui_strings_finding_name(sdui_strings_finding_kind kind)
{
    switch (kind) {
    case SDUI_STRINGS_MISSING: return "missing";
    case SDUI_STRINGS_UNUSED: return "unused";
    case SDUI_STRINGS_UNDEFINED: return "undefined";
    case SDUI_STRINGS_ARGUMENTS: return "arguments";
    case SDUI_STRINGS_PLURAL: return "plural";
    case SDUI_STRINGS_ORPHAN: return "orphan";
    }
    return "unknown";
}
