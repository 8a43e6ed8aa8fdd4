/*
 * fuzz_scan_paths.c - libFuzzer harness for the validating scanner's paths
 * (csrc/scan.c, sdui__scan): the widest vector kernels of this CPU, the
 * portable 64-bit-word path, the byte-at-a-time reference and the
 * baseline vector kernels (SSE2 or NEON; cfg->portable 0, 1, 2 and 3)
 * must give the same outcome for every input.
 *
 * Each input is the text, scanned whole on every path in several setups:
 * without a hook, and with a hook that records every event, at max_depth
 * 1, 3 and 128, with soft_depth off and on, at two depths of events, once
 * more with the hook stopping or failing at an event the input's length
 * picks, and once resumed in the middle as a split pack scan does.  The
 * hook's verdicts depend only on the event (WANT for keys at offsets that
 * are a multiple of 3, ENVELOPE for values at 1 mod 4, LIMIT for too-deep
 * containers at odd offsets), so every path hears the same.  The paths
 * must agree on the status, *stopped, the error record (status, message,
 * offset, line, column) and the list of events (kind, depth, start, end,
 * escaped), and a scan that succeeds must have written no error; the
 * first difference is printed and aborts (__builtin_trap),
 * which libFuzzer reports as a crash.  The input is scanned where
 * libFuzzer put it, an allocation of exactly its size, so AddressSanitizer
 * reports any read past cfg->len.
 *
 * Seeds (run.sh): the pack and token seeds, the example tokens and the
 * JSONTestSuite parsing corpus; dictionary json.dict.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scanner is internal. */
#include "../../csrc/scan.h"

/* The paths: cfg->portable 0, 1, 2 and 3. */
#define PATHS 4

/* A scan's outcome: everything a reader could tell the paths apart by. */
typedef struct outcome {
    sdui_status st;
    sdui_error err;
    int stopped;
    sdui_scan_event *ev; /* every event, in order (kept between runs)  */
    size_t n, cap;
    size_t stop_at, fail_at; /* verdicts at these event numbers         */
} outcome;

/* How the text is scanned: the same on every path. */
typedef struct setup {
    int hooked;
    unsigned max_depth;
    int soft;
    unsigned levels;       /* value_levels and key_levels             */
    size_t stop_at, fail_at;
    int resume;            /* start in the middle, two containers open */
} setup;

/* The outcomes of the paths of one setup. */
static outcome results[PATHS];

/* The recording hook (see the top of this file). */
static int record(void *ctx, const sdui_scan_event *ev)
{
    outcome *o = ctx;
    size_t i = o->n;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 256;
        sdui_scan_event *e = realloc(o->ev, cap * sizeof *e);
        if (!e) {
            fprintf(stderr, "fuzz_scan_paths: out of memory\n");
            abort();
        }
        o->ev = e;
        o->cap = cap;
    }
    o->ev[o->n++] = *ev;
    if (i == o->fail_at) {
        memset(&o->err, 0, sizeof o->err);
        o->err.status = SDUI_SCHEMA;
        o->err.offset = (long long)ev->start;
        snprintf(o->err.message, sizeof o->err.message, "hook failed");
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

/* Scans the text on one path into o. */
static void scan_on(const char *text, size_t len, const setup *su,
                    int portable, outcome *o)
{
    sdui_scan_config cfg;
    o->n = 0;
    o->stop_at = su->stop_at;
    o->fail_at = su->fail_at;
    o->stopped = -1;
    memset(&o->err, 0, sizeof o->err);
    memset(&cfg, 0, sizeof cfg);
    cfg.text = text;
    cfg.len = len;
    cfg.max_depth = su->max_depth;
    cfg.err = &o->err;
    cfg.soft_depth = su->soft;
    cfg.portable = portable;
    if (su->hooked) {
        cfg.hook = record;
        cfg.ctx = o;
        cfg.value_levels = su->levels;
        cfg.key_levels = su->levels;
        if (su->resume) {
            /* As the second half of a split pack scan: inside an object
             * and an array, both envelopes. */
            cfg.start = len / 2;
            cfg.start_depth = 2;
            cfg.start_objects = 1u << 1;
            cfg.start_envelopes = (1u << 1) | (1u << 2);
        }
    }
    o->st = sdui__scan(&cfg, &o->stopped);
}

/* Prints where path differs from path 0 and traps. */
static void differ(const setup *su, int path, const char *what)
{
    const outcome *a = &results[0], *b = &results[path];
    fprintf(stderr,
            "fuzz_scan_paths: path %d differs from path 0 in the %s "
            "(hooked %d, max_depth %u, soft %d, levels %u, stop %zu, fail "
            "%zu, resume %d): status %d/%d, \"%s\" at %lld (%d:%d) / \"%s\" "
            "at %lld (%d:%d), %zu/%zu events\n",
            path, what, su->hooked, su->max_depth, su->soft, su->levels,
            su->stop_at, su->fail_at, su->resume, (int)a->st, (int)b->st,
            a->err.message, a->err.offset, a->err.line, a->err.column,
            b->err.message, b->err.offset, b->err.line, b->err.column, a->n,
            b->n);
    __builtin_trap();
}

/* Traps unless every path's outcome equals path 0's. */
static void compare(const setup *su)
{
    const outcome *a = &results[0];
    int path;
    size_t i;
    /* A scan that succeeds has written no error (one path is enough:
     * the others must equal it). */
    if (a->st == SDUI_OK && (a->err.status != SDUI_OK || a->err.message[0]))
        differ(su, 0, "error record of a success");
    for (path = 1; path < PATHS; path++) {
        const outcome *b = &results[path];
        if (a->st != b->st)
            differ(su, path, "status");
        if (a->stopped != b->stopped)
            differ(su, path, "stop");
        if (a->err.status != b->err.status || a->err.offset != b->err.offset ||
            a->err.line != b->err.line || a->err.column != b->err.column ||
            strcmp(a->err.message, b->err.message) != 0)
            differ(su, path, "error record");
        if (a->n != b->n)
            differ(su, path, "number of events");
        for (i = 0; i < a->n; i++)
            if (a->ev[i].kind != b->ev[i].kind ||
                a->ev[i].depth != b->ev[i].depth ||
                a->ev[i].start != b->ev[i].start ||
                a->ev[i].end != b->ev[i].end ||
                a->ev[i].escaped != b->ev[i].escaped)
                differ(su, path, "events");
    }
}

/* libFuzzer's entry: the input on every path in every setup. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned depths[] = {1, 3, 128};
    const char *text = (const char *)data;
    setup su;
    size_t d;
    int hooked, soft, path;
    memset(&su, 0, sizeof su);
    su.stop_at = su.fail_at = SIZE_MAX;
    for (d = 0; d < sizeof depths / sizeof *depths; d++)
        for (hooked = 0; hooked <= 1; hooked++)
            for (soft = 0; soft <= hooked; soft++) {
                su.hooked = hooked;
                su.max_depth = depths[d];
                su.soft = soft;
                su.levels = hooked ? (d == 1 ? 32 : 3) : 0;
                for (path = 0; path < PATHS; path++)
                    scan_on(text, size, &su, path, &results[path]);
                compare(&su);
            }
    /* A hook that stops or fails at an event the length picks, and a
     * resumed scan. */
    su.hooked = 1;
    su.max_depth = 4;
    su.soft = (int)(size & 1);
    su.levels = 4;
    su.stop_at = size % 5 ? size % 11 : SIZE_MAX;
    su.fail_at = size % 5 ? SIZE_MAX : size % 7;
    for (path = 0; path < PATHS; path++)
        scan_on(text, size, &su, path, &results[path]);
    compare(&su);
    su.stop_at = su.fail_at = SIZE_MAX;
    su.resume = 1;
    su.levels = 3;
    for (path = 0; path < PATHS; path++)
        scan_on(text, size, &su, path, &results[path]);
    compare(&su);
    return 0;
}
