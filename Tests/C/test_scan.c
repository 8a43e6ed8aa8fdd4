/*
 * test_scan.c - the generic scanner's hook (csrc/scan.h): which events a
 * reader hears (keys and values at the depths it names, a wanted member's
 * value, keys filtered by their first byte), in what order and with what
 * byte ranges; envelopes and the depth limit; stopping; resuming inside a
 * document; soft depth; a hook's failure; and that grammar errors come
 * before a reader's own.
 *
 * Then the scanner's paths (cfg->portable: the widest vectors the CPU
 * has, 64-bit words, bytes, the baseline vectors) against each other: the same status, error record, stop and every event
 * with its offsets, over the JSONTestSuite parsing corpus
 * ($SDUI_JSONTESTSUITE or ../shared/JSONTestSuite; its absence is a
 * failure) and over crafted texts that put each kind of special byte at
 * every position of a long string, at every alignment, strings ending at
 * the end of the input, lengths around the 8-, 16-, 32- and 64-byte steps,
 * broken and cut UTF-8 across block edges, and runs of white space.  Each
 * text is scanned where it ends right before an unreadable page, so a
 * read past its end crashes the test.  And the vector kernels
 * (json_simd.h) against their byte-at-a-time reference.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
/* The scanner's hook and kernels are internal. */
#include "../../csrc/json_simd.h"
#include "../../csrc/scan.h"

/* A reader that writes every event into a log, one token per event:
 *   K<depth>:<raw key body>  V<depth>:<first byte>  E<depth>:<value>
 *   D<depth>@<offset>  (too deep)
 * and answers with the verdicts set up for it. */
typedef struct recorder {
    const char *text;
    char log[2048];
    size_t used;
    int want_key;          /* WANT on keys named "want"                  */
    int envelope_depth;    /* ENVELOPE for containers at this depth, -1  */
    size_t stop_at;        /* STOP on the value starting here            */
    int fail_on_key;       /* fail (SDUI_SCHEMA) on keys named "bad"     */
    int too_deep_verdict;  /* what TOO_DEEP answers                      */
} recorder;

/* Appends formatted text to the log (an entry too long for it is left
 * out). */
static void logf_(recorder *r, const char *fmt, const char *s, size_t n,
                  unsigned depth)
{
    int w = snprintf(r->log + r->used, sizeof r->log - r->used, fmt, depth,
                     (int)n, s);
    if (w > 0 && r->used + (size_t)w < sizeof r->log)
        r->used += (size_t)w;
    else
        r->log[r->used] = '\0'; /* too long: left out */
}

/* The recording hook. */
static int record(void *ctx, const sdui_scan_event *ev)
{
    recorder *r = ctx;
    const char *t = r->text;
    char at[32];
    switch (ev->kind) {
    case SDUI_SCAN_KEY:
        logf_(r, "K%u:%.*s ", t + ev->start + 1, ev->end - ev->start - 2,
              ev->depth);
        if (r->fail_on_key && sdui__key_is(t + ev->start + 1,
                                           ev->end - ev->start - 2,
                                           ev->escaped, "bad"))
            return SDUI_SCAN_FAIL(SDUI_SCHEMA);
        if (r->want_key && sdui__key_is(t + ev->start + 1,
                                        ev->end - ev->start - 2, ev->escaped,
                                        "want"))
            return SDUI_SCAN_WANT;
        return SDUI_SCAN_GO;
    case SDUI_SCAN_VALUE:
        logf_(r, "V%u:%.*s ", t + ev->start, 1, ev->depth);
        if (ev->start == r->stop_at)
            return SDUI_SCAN_STOP;
        if ((int)ev->depth == r->envelope_depth)
            return SDUI_SCAN_ENVELOPE;
        return SDUI_SCAN_GO;
    case SDUI_SCAN_END:
        if (ev->start == SIZE_MAX)
            logf_(r, "E%u:?%.*s ", t + ev->end - 1, 1, ev->depth);
        else
            logf_(r, "E%u:%.*s ", t + ev->start, ev->end - ev->start,
                  ev->depth);
        return SDUI_SCAN_GO;
    default:
        snprintf(at, sizeof at, "%zu", ev->start);
        logf_(r, "D%u@%.*s ", at, strlen(at), ev->depth);
        return r->too_deep_verdict;
    }
}

/* Scans text with the recorder and the given levels; returns the status. */
/* A scan of text (NUL-terminated) recorded into r, at most max_depth deep;
 * the caller sets the levels and anything else it needs. */
static sdui_scan_config config(recorder *r, const char *text,
                               unsigned max_depth, sdui_error *err)
{
    sdui_scan_config cfg;
    r->text = text;
    memset(&cfg, 0, sizeof cfg);
    cfg.text = text;
    cfg.len = strlen(text);
    cfg.max_depth = max_depth;
    cfg.err = err;
    cfg.hook = record;
    cfg.ctx = r;
    return cfg;
}

/* Scans text with the given value and key levels, into a cleared log. */
static sdui_status run(recorder *r, const char *text, unsigned vlev,
                       unsigned klev, unsigned max_depth, sdui_error *err)
{
    sdui_scan_config cfg = config(r, text, max_depth, err);
    r->used = 0;
    r->log[0] = '\0';
    cfg.value_levels = vlev;
    cfg.key_levels = klev;
    return sdui__scan(&cfg, NULL);
}

/* A fresh recorder with no special verdicts. */
static recorder plain(void)
{
    recorder r;
    memset(&r, 0, sizeof r);
    r.envelope_depth = -1;
    r.stop_at = SIZE_MAX;
    r.too_deep_verdict = SDUI_SCAN_LIMIT;
    return r;
}

/* Events at the named depths only, in document order, with exact ranges;
 * a wanted member's value is reported below value_levels. */
static void test_events(void)
{
    static const char doc[] =
        "{\"a\": 1, \"b\": {\"c\": [true, {\"d\": null}], \"want\": \"x\\n\"},"
        " \"e\": []}";
    recorder r = plain();
    sdui_error err;

    CHECK_STATUS(run(&r, doc, 2, 2, 64, &err), SDUI_OK);
    CHECK_EQ_STR(r.log,
                 "V0:{ K1:a V1:1 E1:1 K1:b V1:{ "
                 "E1:{\"c\": [true, {\"d\": null}], \"want\": \"x\\n\"} "
                 "K1:e V1:[ E1:[] "
                 "E0:{\"a\": 1, \"b\": {\"c\": [true, {\"d\": null}], "
                 "\"want\": \"x\\n\"}, \"e\": []} ");

    /* Keys one level deeper, and the wanted member's value. */
    r = plain();
    r.want_key = 1;
    CHECK_STATUS(run(&r, doc, 1, 3, 64, &err), SDUI_OK);
    CHECK_EQ_STR(r.log,
                 "V0:{ K1:a K1:b K2:c K2:want V2:\" E2:\"x\\n\" K1:e "
                 "E0:{\"a\": 1, \"b\": {\"c\": [true, {\"d\": null}], "
                 "\"want\": \"x\\n\"}, \"e\": []} ");

    /* No levels: validation only, no call. */
    r = plain();
    CHECK_STATUS(run(&r, doc, 0, 0, 64, &err), SDUI_OK);
    CHECK_EQ_STR(r.log, "");
}

/* Keys filtered by their first raw byte: only those the table allows
 * reach the hook; a key starting with an escape is the backslash's. */
static void test_key_filter(void)
{
    static const char doc[] = "{\"id\": 1, \"version\": 2, \"\\u0069d\": 3,"
                              " \"icon\": 4, \"\": 5}";
    static unsigned char first[256];
    sdui_scan_config cfg;
    recorder r = plain();
    sdui_error err;
    first['i'] = 1;
    first['\\'] = 1;
    cfg = config(&r, doc, 8, &err);
    cfg.key_levels = 2;
    cfg.key_first[1] = first;
    CHECK_STATUS(sdui__scan(&cfg, NULL), SDUI_OK);
    CHECK_EQ_STR(r.log, "K1:id K1:\\u0069d K1:icon ");
    CHECK(sdui__key_is(doc + 25, 7, 1, "id"));
}

/* Envelopes do not count toward the depth limit: levels count from what
 * is inside them, and the error says so in the reader's words. */
static void test_envelopes(void)
{
    static const char *const from[] = {"", " (from the element)"};
    static const char doc[] = "[[1], [[2]]]";
    sdui_scan_config cfg;
    recorder r = plain();
    sdui_error err;

    /* Without an envelope the root counts: [[2]] inside it is level 3. */
    CHECK_STATUS(run(&r, doc, 1, 0, 2, &err), SDUI_LIMIT);
    CHECK_EQ_INT(err.offset, 7);
    CHECK_EQ_STR(err.message, "nesting deeper than the limit of 2");

    /* The root array as an envelope: [[2]] is level 2, accepted. */
    r = plain();
    r.envelope_depth = 0;
    CHECK_STATUS(run(&r, doc, 1, 0, 2, &err), SDUI_OK);

    /* Limit 1: [[2]] is too deep, at its inner bracket, with the words. */
    r = plain();
    r.envelope_depth = 0;
    cfg = config(&r, doc, 1, &err);
    cfg.value_levels = 1;
    cfg.level_from = from;
    cfg.level_from_count = 2;
    CHECK_STATUS(sdui__scan(&cfg, NULL), SDUI_LIMIT);
    CHECK_EQ_INT(err.offset, 7);
    CHECK_EQ_STR(err.message,
                 "nesting deeper than the limit of 1 (from the element)");

    /* Soft: the hook hears TOO_DEEP and the scan reads on to the end. */
    r = plain();
    r.text = doc;
    r.envelope_depth = 0;
    r.too_deep_verdict = SDUI_SCAN_GO;
    cfg.soft_depth = 1;
    CHECK_STATUS(sdui__scan(&cfg, NULL), SDUI_OK);
    CHECK_EQ_STR(r.log, "V0:[ D2@7 E0:[[1], [[2]]] ");
    /* ... or fails when the hook says SDUI_SCAN_LIMIT. */
    r = plain();
    r.text = doc;
    r.envelope_depth = 0;
    r.too_deep_verdict = SDUI_SCAN_LIMIT;
    CHECK_STATUS(sdui__scan(&cfg, NULL), SDUI_LIMIT);
}

/* A STOP ends the scan successfully there; a resumed scan starts inside
 * containers and reports their ends with an unknown start. */
static void test_stop_and_resume(void)
{
    static const char doc[] = "{\"t\": [{\"a\": 1},\n{\"b\": 2}], \"z\": 0}";
    size_t split = (size_t)(strchr(doc, '\n') + 1 - doc);
    sdui_scan_config cfg;
    recorder r = plain();
    sdui_error err;
    int stopped = 0;

    r.stop_at = split;
    cfg = config(&r, doc, 8, &err);
    cfg.value_levels = 3;
    CHECK_STATUS(sdui__scan(&cfg, &stopped), SDUI_OK);
    CHECK_EQ_INT(stopped, 1);
    CHECK_EQ_STR(r.log, "V0:{ V1:[ V2:{ E2:{\"a\": 1} V2:{ ");

    /* The second half: inside the root object and "t". */
    r = plain();
    r.text = doc;
    cfg.start = split;
    cfg.start_depth = 2;
    cfg.start_objects = 1u << 1;
    stopped = 1;
    CHECK_STATUS(sdui__scan(&cfg, &stopped), SDUI_OK);
    CHECK_EQ_INT(stopped, 0);
    CHECK_EQ_STR(r.log, "V2:{ E2:{\"b\": 2} E1:?] V1:0 E1:0 E0:?} ");

    /* Resumed in the wrong place, the grammar still holds: an object
     * member without a key is an error. */
    r = plain();
    r.text = doc;
    cfg.start_objects = (1u << 1) | (1u << 2);
    CHECK_STATUS(sdui__scan(&cfg, NULL), SDUI_JSON);
}

/* A hook's failure ends the scan with its status; grammar errors before a
 * value or key come first, and a byte that cannot start a value is never
 * shown to the hook. */
static void test_failures_and_order(void)
{
    recorder r = plain();
    sdui_error err;
    r.fail_on_key = 1;
    CHECK_STATUS(run(&r, "{\"ok\": 1, \"bad\": 2}", 2, 2, 8, &err),
                 SDUI_SCHEMA);
    CHECK_EQ_STR(r.log, "V0:{ K1:ok V1:1 E1:1 K1:bad ");

    /* A broken string key: the grammar error, no event for it. */
    r = plain();
    r.fail_on_key = 1;
    CHECK_STATUS(run(&r, "{\"ok\": 1, \"ba\\x\": 2}", 2, 2, 8, &err),
                 SDUI_JSON);
    CHECK_EQ_STR(r.log, "V0:{ K1:ok V1:1 E1:1 ");

    /* A byte that cannot start a value: the grammar error, no VALUE. */
    r = plain();
    CHECK_STATUS(run(&r, "[1, x]", 2, 0, 8, &err), SDUI_JSON);
    CHECK_EQ_STR(r.log, "V0:[ V1:1 E1:1 ");
    CHECK_EQ_INT(err.offset, 4);

    /* A broken number is reported before its END. */
    r = plain();
    CHECK_STATUS(run(&r, "[1, -]", 2, 0, 8, &err), SDUI_JSON);
    CHECK_EQ_STR(r.log, "V0:[ V1:1 E1:1 V1:- ");
}

/* Deep documents: the bit stack grows past its inline 4096 levels, and a
 * reader's events stay at their depths. */
static void test_deep(void)
{
    size_t n = 10000, i;
    char *doc = malloc(2 * n + 1);
    recorder r = plain();
    sdui_error err;
    for (i = 0; i < n; i++) {
        doc[i] = '[';
        doc[2 * n - 1 - i] = ']';
    }
    doc[2 * n] = '\0';
    CHECK_STATUS(run(&r, doc, 2, 0, 20000, &err), SDUI_OK);
    /* (The END texts are too long for the log.) */
    CHECK_EQ_STR(r.log, "V0:[ V1:[ ");
    r = plain();
    CHECK_STATUS(run(&r, doc, 0, 0, 9999, &err), SDUI_LIMIT);
    CHECK_EQ_INT(err.offset, 9999);
    free(doc);
}


/* ---------------------------------------------------------------------
 * The paths against each other.
 * --------------------------------------------------------------------- */

/* The paths (cfg->portable) compared with path 0. */
#define PATHS 4

/* A scan's whole outcome: what a reader could tell the paths apart by. */
typedef struct outcome {
    sdui_status st;
    sdui_error err;
    int stopped;
    sdui_scan_event *ev;  /* every event, in order                  */
    size_t n, cap;
    int lost;             /* the log could not grow                 */
    /* Verdicts: STOP on the event numbered stop_at, a failure on the
     * one numbered fail_at (SIZE_MAX: never); the rest by offset. */
    size_t stop_at, fail_at;
    sdui_error *err_of_scan;
} outcome;

/* The hook of a compared scan: logs every event and answers with verdicts
 * that depend only on the event (so every path hears the same). */
static int log_all(void *ctx, const sdui_scan_event *ev)
{
    outcome *o = ctx;
    size_t i = o->n;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        sdui_scan_event *e = realloc(o->ev, cap * sizeof *e);
        if (!e) {
            o->lost = 1;
            return SDUI_SCAN_FAIL(SDUI_OOM);
        }
        o->ev = e;
        o->cap = cap;
    }
    o->ev[o->n++] = *ev;
    if (i == o->fail_at) {
        sdui_error *e = o->err_of_scan;
        if (e) {
            memset(e, 0, sizeof *e);
            e->status = SDUI_SCHEMA;
            e->offset = (long long)ev->start;
            snprintf(e->message, sizeof e->message, "hook failed at %zu",
                     i);
        }
        return SDUI_SCAN_FAIL(SDUI_SCHEMA);
    }
    if (i == o->stop_at)
        return SDUI_SCAN_STOP;
    switch (ev->kind) {
    case SDUI_SCAN_KEY:
        return ev->start % 3 == 0 ? SDUI_SCAN_WANT : SDUI_SCAN_GO;
    case SDUI_SCAN_VALUE:
        return ev->start % 4 == 1 ? SDUI_SCAN_ENVELOPE : SDUI_SCAN_GO;
    case SDUI_SCAN_TOO_DEEP:
        return ev->start % 2 ? SDUI_SCAN_LIMIT : SDUI_SCAN_GO;
    default:
        return SDUI_SCAN_GO;
    }
}

/* How a text is scanned (the same for every path). */
typedef struct setup {
    int hooked;
    unsigned max_depth;
    int soft;
    unsigned levels;      /* value_levels and key_levels              */
    size_t stop_at, fail_at;
} setup;

/* The setups every corpus file and crafted text goes through. */
static const setup setups[] = {
    {0, SDUI_DEFAULT_MAX_DEPTH, 0, 0, SIZE_MAX, SIZE_MAX},
    {0, 2, 0, 0, SIZE_MAX, SIZE_MAX},
    {1, SDUI_DEFAULT_MAX_DEPTH, 0, 3, SIZE_MAX, SIZE_MAX},
    {1, 1, 1, 2, SIZE_MAX, SIZE_MAX},
    {1, 3, 0, 32, 5, SIZE_MAX},
    {1, 2, 1, 4, SIZE_MAX, 7},
};

/* A page-aligned buffer whose next page cannot be read: a text copied to
 * its end is followed by the unreadable page (guard_copy). */
static unsigned char *guard_area;
static size_t guard_size;

/* Maps the guard area once (from /dev/zero, which POSIX gives); 0 when it
 * cannot be had, and texts are then scanned from the heap. */
static int guard_init(void)
{
    long page = sysconf(_SC_PAGESIZE);
    int fd;
    void *m;
    if (guard_area)
        return 1;
    if (page <= 0)
        return 0;
    guard_size = (size_t)page * 128; /* the example pack fits */
    fd = open("/dev/zero", O_RDWR);
    if (fd < 0)
        return 0;
    m = mmap(NULL, guard_size + (size_t)page, PROT_READ | PROT_WRITE,
             MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return 0;
    if (mprotect((unsigned char *)m + guard_size, (size_t)page, PROT_NONE)) {
        munmap(m, guard_size + (size_t)page);
        return 0;
    }
    guard_area = m;
    return 1;
}

/* The text copied so that it ends right before the unreadable page (or
 * NULL when it does not fit there). */
static const char *guard_copy(const char *text, size_t len)
{
    unsigned char *at;
    if (!guard_init() || len > guard_size)
        return NULL;
    at = guard_area + guard_size - len;
    if (len)
        memcpy(at, text, len);
    return (const char *)at;
}

/* Scans text[0, len) on one path with a setup into o (cleared first). */
static void scan_on(const char *text, size_t len, const setup *su,
                    int portable, outcome *o)
{
    sdui_scan_config cfg;
    sdui_scan_event *keep = o->ev;
    size_t cap = o->cap;
    memset(o, 0, sizeof *o);
    o->ev = keep;
    o->cap = cap;
    o->stop_at = su->stop_at;
    o->fail_at = su->fail_at;
    o->err_of_scan = &o->err;
    memset(&cfg, 0, sizeof cfg);
    cfg.text = text;
    cfg.len = len;
    cfg.max_depth = su->max_depth;
    cfg.err = &o->err;
    cfg.soft_depth = su->soft;
    cfg.portable = portable;
    if (su->hooked) {
        cfg.hook = log_all;
        cfg.ctx = o;
        cfg.value_levels = su->levels;
        cfg.key_levels = su->levels;
    }
    o->st = sdui__scan(&cfg, &o->stopped);
}

/* 1 when two outcomes are the same in every field a reader sees; else
 * prints the first difference. */
static int same_outcome(const outcome *a, const outcome *b, const char *name,
                        int portable)
{
    size_t i;
    const char *what = NULL;
    if (a->lost || b->lost)
        what = "event log lost";
    else if ((a->st == SDUI_OK && (a->err.status != SDUI_OK || a->err.message[0])) ||
             (b->st == SDUI_OK && (b->err.status != SDUI_OK || b->err.message[0])))
        what = "error record of a success";
    else if (a->st != b->st)
        what = "status";
    else if (a->stopped != b->stopped)
        what = "stopped";
    else if (a->st != SDUI_OK &&
             (a->err.status != b->err.status ||
              a->err.offset != b->err.offset ||
              a->err.line != b->err.line || a->err.column != b->err.column ||
              strcmp(a->err.message, b->err.message) != 0))
        what = "error record";
    else if (a->n != b->n)
        what = "number of events";
    for (i = 0; !what && i < a->n; i++)
        if (a->ev[i].kind != b->ev[i].kind ||
            a->ev[i].depth != b->ev[i].depth ||
            a->ev[i].start != b->ev[i].start ||
            a->ev[i].end != b->ev[i].end ||
            a->ev[i].escaped != b->ev[i].escaped)
            what = "an event";
    if (!what)
        return 1;
    fprintf(stderr,
            "  %s: path %d differs from path 0 in its %s (%s \"%s\" at %lld "
            "vs %s \"%s\" at %lld; %zu vs %zu events)\n",
            name, portable, what, sdui_status_name(b->st), b->err.message,
            b->err.offset, sdui_status_name(a->st), a->err.message,
            a->err.offset, b->n, a->n);
    return 0;
}

/* The outcomes of the paths, reused from text to text. */
static outcome results[PATHS];

/* Scans a text on every path with every setup (from the guard area when
 * it fits, else in place); returns the number of differences, each
 * printed.  *accepted (if not NULL) counts the plain default scans that
 * passed. */
static unsigned compare_paths(const char *text, size_t len, const char *name,
                              unsigned *accepted)
{
    const char *at = guard_copy(text, len);
    unsigned bad = 0;
    size_t k;
    int path;
    if (!at)
        at = text;
    for (k = 0; k < sizeof setups / sizeof *setups; k++) {
        for (path = 0; path < PATHS; path++)
            scan_on(at, len, &setups[k], path, &results[path]);
        for (path = 1; path < PATHS; path++)
            bad += !same_outcome(&results[0], &results[path], name, path);
        if (k == 0 && accepted && results[0].st == SDUI_OK)
            (*accepted)++;
    }
    return bad;
}

/* Reads a whole file into a new buffer; NULL when it cannot. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    size_t cap = 0, n = 0, got;
    if (!f)
        return NULL;
    do {
        if (n == cap) {
            char *nb = realloc(b, cap = cap ? cap * 2 : 4096);
            if (!nb) {
                free(b);
                fclose(f);
                return NULL;
            }
            b = nb;
        }
        got = fread(b + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *len = n;
    return b;
}

/* The JSONTestSuite parsing corpus, every file on every path. */
static void test_paths_corpus(void)
{
    const char *env = getenv("SDUI_JSONTESTSUITE");
    const char *root = env && *env ? env : "../shared/JSONTestSuite";
    char dir[1024], path[2048];
    DIR *d;
    struct dirent *de;
    unsigned files = 0, bad = 0, accepted = 0;
    snprintf(dir, sizeof dir, "%s/test_parsing", root);
    d = opendir(dir);
    if (!d) {
        snprintf(dir, sizeof dir, "%s", root);
        d = opendir(dir);
    }
    if (!CHECKF(d != NULL, "JSONTestSuite not found at %s: set "
                           "SDUI_JSONTESTSUITE to its folder", root))
        return;
    while ((de = readdir(d)) != NULL) {
        size_t len = 0, n = strlen(de->d_name);
        char *text;
        if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        text = read_all(path, &len);
        if (!CHECKF(text != NULL, "cannot read %s", path))
            continue;
        files++;
        bad += compare_paths(text, len, de->d_name, &accepted);
        free(text);
    }
    closedir(d);
    CHECKF(files >= 300, "only %u corpus files in %s", files, dir);
    CHECKF(bad == 0, "%u path differences over the corpus", bad);
    printf("paths: %u corpus files, %u accepted, %u differences\n", files,
           accepted, bad);
}

/* The example tokens (Examples/tokens/, the tests run from the
 * repository's root), each alone and all of them as one pack, one token a
 * line as sdui writes packs. */
static void test_paths_examples(void)
{
    const char *dir = "Examples/tokens";
    char path[1024];
    DIR *d = opendir(dir);
    struct dirent *de;
    char *pack = NULL;
    size_t pack_len = 0;
    unsigned files = 0, bad = 0;
    if (!CHECKF(d != NULL, "%s not found (run from the repository root)",
                dir))
        return;
    pack = malloc(32);
    if (!CHECK(pack != NULL)) {
        closedir(d);
        return;
    }
    pack_len = (size_t)sprintf(pack, "{\"formatVersion\":1,\"tokens\":[\n");
    while ((de = readdir(d)) != NULL) {
        size_t len = 0, n = strlen(de->d_name);
        char *text, *grown;
        if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        text = read_all(path, &len);
        if (!CHECKF(text != NULL, "cannot read %s", path))
            continue;
        files++;
        bad += compare_paths(text, len, de->d_name, NULL);
        grown = realloc(pack, pack_len + len + 4);
        if (grown) {
            pack = grown;
            if (files > 1)
                pack[pack_len++] = ',';
            memcpy(pack + pack_len, text, len);
            pack_len += len;
            pack[pack_len++] = '\n';
        }
        free(text);
    }
    closedir(d);
    memcpy(pack + pack_len, "]}", 2);
    bad += compare_paths(pack, pack_len + 2, "the example pack", NULL);
    free(pack);
    CHECKF(files >= 10, "only %u example tokens", files);
    CHECKF(bad == 0, "%u path differences over the example tokens", bad);
}

/* The special bytes (and sequences) put into long strings. */
static const char *const specials[] = {
    "\"",             /* ends the string early                       */
    "\\n",            /* an escape                                   */
    "\\u00e9",        /* a \u escape                                 */
    "\\ud83d\\ude00", /* a surrogate pair                            */
    "\\x",            /* a bad escape                                */
    "\\",             /* a backslash before the closing quote         */
    "\x01",           /* a control byte                              */
    "\x1f",
    "\t",             /* white space is a control byte in a string   */
    "\x7f",           /* DEL is ordinary                             */
    "\xc3\xa9",       /* two-byte UTF-8                              */
    "\xe2\x82\xac",   /* three bytes                                 */
    "\xf0\x9f\x98\x80", /* four bytes                                */
    "\x80",           /* a lone continuation byte                    */
    "\xc3",           /* a cut sequence                              */
    "\xe2\x82",
    "\xf0\x9f\x98",
    "\xc0\xaf",       /* overlong                                    */
    "\xed\xa0\x80",   /* a surrogate in UTF-8                        */
    "\xf4\x90\x80\x80", /* past U+10FFFF                             */
    "\xff",
};

/*
 * Every special byte at every position 0..139 of a 140-byte string (so in
 * the first, second and third 64-byte block of it), the string starting
 * at each offset 0..32 of the text, as an array element followed by
 * another string; and the same strings ending the text, closed and not.
 */
static void test_paths_crafted_strings(void)
{
    char text[256];
    unsigned bad = 0, texts = 0, accepted = 0;
    size_t k, pos, lead;
    for (k = 0; k < sizeof specials / sizeof *specials; k++) {
        size_t sl = strlen(specials[k]);
        for (pos = 0; pos < 140; pos++) {
            for (lead = 0; lead <= 32; lead++) {
                size_t n = 0, i;
                char name[96];
                text[n++] = '[';
                for (i = 1; i < lead; i++)
                    text[n++] = ' ';
                text[n++] = '"';
                for (i = 0; i < 140; i++) {
                    if (i == pos) {
                        memcpy(text + n, specials[k], sl);
                        n += sl;
                    }
                    text[n++] = (char)('a' + i % 26);
                }
                memcpy(text + n, "\",\"z\"]", 6);
                snprintf(name, sizeof name, "special %zu at %zu, lead %zu", k,
                         pos, lead);
                bad += compare_paths(text, n + 6, name, &accepted);
                /* The string ends the text: closed, then not. */
                text[n] = '"';
                bad += compare_paths(text + 1, n, name, NULL);
                bad += compare_paths(text + 1, n - 1, name, NULL);
                texts += 3;
            }
        }
    }
    CHECKF(bad == 0, "%u path differences over %u crafted strings", bad,
           texts);
    /* Sanity: the clean kinds (escapes, UTF-8, DEL) are accepted. */
    CHECKF(accepted > 0, "no crafted string accepted");
}

/*
 * Texts of every length 0..200 made of one string (closed, unclosed, or
 * with an escape at its end), of a string per byte of a long array, and
 * of keys and values packed back to back, so strings end on and around
 * every 8-, 16-, 32- and 64-byte step and at the end of the input.
 */
static void test_paths_lengths(void)
{
    char text[256];
    unsigned bad = 0;
    size_t len, i;
    for (len = 0; len <= 200; len++) {
        char name[64];
        snprintf(name, sizeof name, "length %zu", len);
        /* "aaa...a" of len bytes in all, closed at the end. */
        memset(text, 'a', len);
        if (len)
            text[0] = '"';
        if (len > 1)
            text[len - 1] = '"';
        bad += compare_paths(text, len, name, NULL);
        /* Unclosed, and closed after a backslash. */
        if (len > 1) {
            text[len - 1] = 'a';
            bad += compare_paths(text, len, name, NULL);
            text[len - 2] = '\\';
            text[len - 1] = '"';
            bad += compare_paths(text, len, name, NULL);
        }
        /* ["","",...]: short strings back to back. */
        text[0] = '[';
        for (i = 1; i + 3 < len; i += 3)
            memcpy(text + i, "\"\",", 3);
        if (len)
            text[len - 1] = ']';
        bad += compare_paths(text, len, name, NULL);
        /* {"k":"v","k":"v",...} cut at len. */
        text[0] = '{';
        for (i = 1; i + 8 < len; i += 8)
            memcpy(text + i, "\"k\":\"v\",", 8);
        bad += compare_paths(text, len, name, NULL);
    }
    CHECKF(bad == 0, "%u path differences over the lengths", bad);
}

/*
 * Runs of white space of every length 0..70 between array elements, at
 * every offset, with a foreign byte (form feed, a vertical tab, NUL, DEL,
 * 0xa0) at each place of the run; and a pretty-printed document cut at
 * every length.
 */
static void test_paths_white_space(void)
{
    static const char ws[] = " \t\n\r";
    static const char foreign[] = "\f\v\0\x7f\xa0";
    static const char pretty[] =
        "{\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"b\": {\n"
        "    \"c\":\ttrue\r\n  }\n}\n";
    char text[256];
    unsigned bad = 0;
    size_t run, lead, at, f, len;
    for (run = 0; run <= 70; run++)
        for (lead = 0; lead < 8; lead++)
            for (at = 0; at <= run; at++)
                for (f = 0; f < sizeof foreign; f++) {
                    size_t n = 0, i;
                    char name[80];
                    text[n++] = '[';
                    for (i = 0; i < lead; i++)
                        text[n++] = ' ';
                    text[n++] = '1';
                    text[n++] = ',';
                    for (i = 0; i < run; i++)
                        text[n++] = ws[(i + lead) % 4];
                    if (at < run && f + 1 < sizeof foreign)
                        text[n - run + at] = foreign[f];
                    text[n++] = '2';
                    text[n++] = ']';
                    snprintf(name, sizeof name, "white space %zu/%zu/%zu/%zu",
                             run, lead, at, f);
                    bad += compare_paths(text, n, name, NULL);
                    if (at == run)
                        break; /* no foreign byte: once is enough */
                }
    for (len = 0; len <= sizeof pretty - 1; len++)
        bad += compare_paths(pretty, len, "pretty, cut", NULL);
    CHECKF(bad == 0, "%u path differences over white space", bad);
}

/* The next number of a fixed pseudo-random sequence (xorshift64). */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/*
 * Random texts over a small alphabet of JSON's bytes (mostly well formed
 * at the start, then mutated), every path: the crafted cases' net for
 * the mixes nobody wrote down.
 */
static void test_paths_random(void)
{
    static const char alphabet[] =
        "{}[],:\"\\ \n\tab01-.eEtrufnls\x80\xc3\xa9\x01";
    static const char *const seeds[] = {
        "{\"id\":\"a\",\"version\":1,\"props\":{\"text\":\"h\\u00e9llo\","
        "\"n\":[1,2.5e3,-0,true,false,null]}}",
        "[{\"a\":\"\\\"\\\\\"},{\"b\":[[],{}]},\"\xc3\xa9\xe2\x82\xac\"]",
    };
    char text[160];
    uint64_t x = 0x5D015D01ULL;
    unsigned bad = 0, round;
    for (round = 0; round < 4000; round++) {
        const char *seed = seeds[round % 2];
        size_t n = strlen(seed), edits = 1 + next_random(&x) % 4, e;
        char name[48];
        memcpy(text, seed, n);
        for (e = 0; e < edits; e++) {
            size_t at = (size_t)(next_random(&x) % n);
            text[at] = alphabet[next_random(&x) % (sizeof alphabet - 1)];
        }
        n -= (size_t)(next_random(&x) % 4 == 0 ? next_random(&x) % n : 0);
        snprintf(name, sizeof name, "random %u", round);
        bad += compare_paths(text, n, name, NULL);
    }
    CHECKF(bad == 0, "%u path differences over random texts", bad);
}

/* The vector kernels against the reference: every byte value at every
 * place of a block, and random blocks. */
static void test_kernels(void)
{
#ifdef SDUI_SIMD
    unsigned char block[SDUI_SIMD_BLOCK];
    uint64_t x = 0x1234567ULL;
    unsigned bad = 0, pos, v, round;
    for (pos = 0; pos < SDUI_SIMD_BLOCK; pos++)
        for (v = 0; v < 256; v++) {
            memset(block, 'a', sizeof block);
            block[pos] = (unsigned char)v;
            block[(pos + 7) % SDUI_SIMD_BLOCK] = (unsigned char)(255 - v);
            bad += sdui__special32(block) != sdui__special32_portable(block);
            bad += sdui__ws32(block) != sdui__ws32_portable(block);
        }
    for (round = 0; round < 20000; round++) {
        for (pos = 0; pos < SDUI_SIMD_BLOCK; pos++)
            block[pos] = (unsigned char)next_random(&x);
        bad += sdui__special32(block) != sdui__special32_portable(block);
        bad += sdui__ws32(block) != sdui__ws32_portable(block);
    }
    {
        /* The 64-byte blocks of string bytes. */
        unsigned char wide[SDUI_SIMD_STRING_BLOCK];
        for (pos = 0; pos < SDUI_SIMD_STRING_BLOCK; pos++)
            for (v = 0; v < 256; v++) {
                memset(wide, 'a', sizeof wide);
                wide[pos] = (unsigned char)v;
                wide[(pos + 13) % SDUI_SIMD_STRING_BLOCK] =
                    (unsigned char)(255 - v);
                bad += sdui__special64(wide) != sdui__special64_portable(wide);
            }
        for (round = 0; round < 20000; round++) {
            for (pos = 0; pos < SDUI_SIMD_STRING_BLOCK; pos++)
                wide[pos] = (unsigned char)next_random(&x);
            bad += sdui__special64(wide) != sdui__special64_portable(wide);
        }
#ifdef SDUI_SIMD_WIDE
        /* The wider x86 kernels, where this CPU runs them. */
        for (round = 0; round < 20000 + 64 * 256; round++) {
            uint64_t want;
            int wide_set = sdui__simd_wide();
            if (round < 64 * 256) {
                memset(wide, 'a', sizeof wide);
                wide[round / 256] = (unsigned char)(round % 256);
                wide[(round / 256 + 13) % SDUI_SIMD_STRING_BLOCK] =
                    (unsigned char)(255 - round % 256);
            } else {
                for (pos = 0; pos < SDUI_SIMD_STRING_BLOCK; pos++)
                    wide[pos] = (unsigned char)next_random(&x);
            }
            want = sdui__special64_portable(wide);
            if (wide_set >= 1)
                bad += sdui__special64_avx2(wide) != want;
            if (wide_set >= 2)
                bad += sdui__special64_avx512(wide) != want;
        }
        printf("kernels: wide x86 kernels run here: %s\n",
               sdui__simd_wide() == 2   ? "AVX2, AVX-512BW"
               : sdui__simd_wide() == 1 ? "AVX2"
                                        : "none");
#endif
    }
    CHECKF(bad == 0, "%u kernel results differ from the reference", bad);
#else
    CHECK(1); /* no kernel on this CPU: the paths are the portable ones */
#endif
}

/* Frees the outcomes' logs. */
static void free_results(void)
{
    int i;
    for (i = 0; i < PATHS; i++) {
        free(results[i].ev);
        results[i].ev = NULL;
        results[i].cap = 0;
    }
}

/* Runs the tests. */
int main(void)
{
    test_events();
    test_key_filter();
    test_envelopes();
    test_stop_and_resume();
    test_failures_and_order();
    test_deep();
    test_kernels();
    test_paths_corpus();
    test_paths_examples();
    test_paths_crafted_strings();
    test_paths_lengths();
    test_paths_white_space();
    test_paths_random();
    free_results();
    return check_summary();
}
