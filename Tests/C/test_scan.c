/*
 * test_scan.c - the generic scanner's hook (csrc/scan.h): which events a
 * reader hears (keys and values at the depths it names, a wanted member's
 * value, keys filtered by their first byte), in what order and with what
 * byte ranges; envelopes and the depth limit; stopping; resuming inside a
 * document; soft depth; a hook's failure; and that grammar errors come
 * before a reader's own.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
/* The scanner's hook is internal. */
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

/* Runs the tests. */
int main(void)
{
    test_events();
    test_key_filter();
    test_envelopes();
    test_stop_and_resume();
    test_failures_and_order();
    test_deep();
    return check_summary();
}
