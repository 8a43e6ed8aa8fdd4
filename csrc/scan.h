/*
 * scan.h - the generic validating JSON scanner (scan.c) and its hook, not
 * public.
 *
 * One pass checks a document (RFC 8259 grammar, UTF-8, escapes, nesting
 * depth) and builds nothing.  A reader that needs more than a verdict (the
 * pack's shape, a batch answer's elements, the byte ranges of a pack's
 * top-level members) gives a hook: the scanner calls it for the keys and
 * values at the shallow depths the reader names, and nowhere else, so the
 * deep bulk of a document costs the reader nothing.
 *
 * Depth: the root value is at depth 0, a member or element of the root at
 * depth 1, and so on; a key is at the depth of its member's value.
 *
 * Events, in document order:
 *   SDUI_SCAN_KEY       an object key at depth 1 <= d < key_levels;
 *                       [start, end) runs from its opening quote through
 *                       its closing one; escaped: the body holds escapes.
 *   SDUI_SCAN_VALUE     a value starts at start (its first byte, which can
 *                       start a value: other bytes are grammar errors
 *                       first), at depth d < value_levels, or deeper when
 *                       its key's verdict was SDUI_SCAN_WANT.
 *   SDUI_SCAN_END       that value ended: [start, end) is all of it
 *                       (start is SIZE_MAX for a container the scan
 *                       resumed inside); escaped as for a key, for strings.
 *   SDUI_SCAN_TOO_DEEP  (soft scans only) the container opening at start
 *                       is nested deeper than max_depth.
 * Every event but TOO_DEEP comes after the grammar of what it covers has
 * been checked, so a reader's own errors never hide a grammar error
 * before them.
 */
#ifndef SDUI_SCAN_H
#define SDUI_SCAN_H

#include <stddef.h>

#include "sdui/error.h"

typedef enum sdui_scan_kind {
    SDUI_SCAN_KEY,
    SDUI_SCAN_VALUE,
    SDUI_SCAN_END,
    SDUI_SCAN_TOO_DEEP
} sdui_scan_kind;

/* One event (see the top of this file).  Offsets are bytes in the text. */
typedef struct sdui_scan_event {
    sdui_scan_kind kind;
    unsigned depth;
    size_t start, end;
    int escaped;
} sdui_scan_event;

/* A hook's verdict: a combination of the flags below, or a failure. */
#define SDUI_SCAN_GO 0       /* go on                                      */
#define SDUI_SCAN_WANT 1     /* KEY: report the member's value (VALUE, END)
                              * even at or past value_levels               */
#define SDUI_SCAN_ENVELOPE 2 /* VALUE of a container: it does not count
                              * toward the depth limit; what is inside
                              * counts from itself (limits.h)              */
#define SDUI_SCAN_STOP 4     /* VALUE, or END of a container: end the
                              * scan here with SDUI_OK and *stopped set    */
#define SDUI_SCAN_LIMIT 8    /* TOO_DEEP: fail with the scanner's depth
                              * error after all                            */
/* A failure: the hook has filled the error record; the scan returns st. */
#define SDUI_SCAN_FAIL(st) (-(int)(st))

/* Called for each event; returns a verdict. */
typedef int (*sdui_scan_hook)(void *ctx, const sdui_scan_event *ev);

/* The deepest level at which events can be asked for (a bound of the
 * scanner's per-level bookkeeping). */
#define SDUI_SCAN_MAX_LEVELS 32

/* What to scan and what to report.  Zero-initialise, then set. */
typedef struct sdui_scan_config {
    const char *text;      /* text[0, len); NULL only when len is 0       */
    size_t len;
    unsigned max_depth;    /* deepest level allowed (limits.h)             */
    sdui_error *err;       /* may be NULL                                  */
    sdui_scan_hook hook;   /* NULL: validation only                        */
    void *ctx;
    unsigned value_levels; /* VALUE/END for values at depth < this         */
    unsigned key_levels;   /* KEY for keys at depth < this                 */
    /* Per depth d < key_levels, NULL (every key) or a 256-entry table:
     * a key is reported only when the table is non-zero at the first byte
     * of its raw body (a backslash for a key that starts with an escape,
     * the quote for an empty key).  Keys a reader never looks at then
     * cost it no call. */
    const unsigned char *key_first[SDUI_SCAN_MAX_LEVELS];
    int soft_depth;        /* report too-deep containers (TOO_DEEP) and
                            * read on, instead of failing                  */
    /* The depth error's words for where levels count from, by the number
     * of envelopes open (index 0, 1, 2, ...); NULL or a short table:
     * none. */
    const char *const *level_from;
    size_t level_from_count;
    /* Resuming inside a document: start offset, the containers open there
     * (start_depth of them; bit d of start_objects set when the one at
     * depth d, 1-based, is an object) and which of them are envelopes
     * (bit d of start_envelopes).  All zero: scan from the start. */
    size_t start;
    unsigned start_depth;
    unsigned start_objects;
    unsigned start_envelopes;
    /* Which inner loops read strings and white space (scan.c); the
     * outcome is the same every way, which the tests and the fuzzer
     * check.  0: the fastest the CPU has (the widest vectors it runs).
     * 1: the portable path only, as on a CPU without vectors: strings a
     * 64-bit word at a time.  2 (tests): a byte at a time, the reference.
     * 3 (tests): the baseline vectors (SSE2, NEON) even where wider ones
     * run; as 1 where there are none. */
    int portable;
} sdui_scan_config;

/*
 * Scans cfg->text from cfg->start to its end.  Returns SDUI_OK (with
 * *stopped, when not NULL, set to 1 if a hook said SDUI_SCAN_STOP, else
 * 0), SDUI_JSON for the first grammar, UTF-8 or escape error, SDUI_LIMIT
 * for nesting deeper than cfg->max_depth (levels counted past the
 * envelopes open), SDUI_OOM, or the status of a failing hook; err says
 * where.  Allocates only when the nesting passes 4095 levels (one bit per
 * level).  Thread-safe: the scan's state is its own.
 */
sdui_status sdui__scan(const sdui_scan_config *cfg, int *stopped);

/*
 * Decodes a JSON string body (no quotes) into dst, which holds at least len
 * bytes; the body must already be validated.  Returns the decoded length,
 * never more than len.
 */
size_t sdui__unescape(const char *src, size_t len, char *dst);

/*
 * 1 if the raw string body [body, body + len) decodes to the NUL-terminated
 * name (escaped: the body holds backslash escapes).  For readers matching
 * keys.
 */
int sdui__key_is(const char *body, size_t len, int escaped, const char *name);

/*
 * What a validated JSON value starting with byte first is, for a reader's
 * message: "an object", "an array", "a string", "a boolean", "null" or "a
 * number".  Static storage.
 */
const char *sdui__json_kind(char first);

#endif
