/*
 * json_split.c - splitting a batch answer (a JSON array of tokens) into
 * its elements' byte ranges, a reader on the generic scanner (scan.h).
 *
 * One pass of the scanner checks the grammar of the whole text; the hook
 * asks for the values at depths 0 and 1 only: the root (which must be an
 * array, an envelope that does not count toward the nesting limit) and
 * its elements, whose start and end it records.  In a soft split (one bad
 * element fails alone) the scanner reports a too-deep container instead of
 * failing, and the hook marks the element it lies in and reads on.  No
 * second walker re-reads the text; memory is the scanner's bit stack only,
 * at most one bit per byte of nesting read.
 */
#include <string.h>

#include "internal.h"
#include "scan.h"

/* What the hook keeps while the scan runs. */
typedef struct splitter {
    const char *text;         /* the answer being split                   */
    int soft;                 /* too-deep elements are marked, not fatal  */
    int is_array;             /* the root is an array                     */
    size_t not_array;         /* else: where the root value starts        */
    size_t max_element_bytes;
    sdui_json_element *elems; /* one of elems or starts/ends receives     */
    size_t *starts, *ends;    /* the ranges, up to cap of them            */
    size_t cap, count;
    sdui_json_element el;     /* the element being scanned                */
} splitter;

/* Records the element that just ended at offset end. */
static void end_element(splitter *sp, size_t end)
{
    sp->el.end = end;
    if (sp->el.status == SDUI_OK &&
        sp->el.end - sp->el.start > sp->max_element_bytes) {
        sp->el.status = SDUI_LIMIT;
        sp->el.fault = sp->el.start;
    }
    if (sp->count < sp->cap) {
        if (sp->elems) {
            sp->elems[sp->count] = sp->el;
        } else {
            sp->starts[sp->count] = sp->el.start;
            sp->ends[sp->count] = sp->el.end;
        }
    }
    sp->count++;
}

/* The scanner's hook: the root, its elements, too-deep containers. */
static int split_hook(void *ctx, const sdui_scan_event *ev)
{
    splitter *sp = ctx;
    switch (ev->kind) {
    case SDUI_SCAN_VALUE:
        if (ev->depth == 0) {
            /* Anything but an array is plain validation, then
             * SDUI_SCHEMA (grammar and depth errors are reported first). */
            sp->is_array = sp->text[ev->start] == '[';
            if (!sp->is_array)
                sp->not_array = ev->start;
            return sp->is_array ? SDUI_SCAN_ENVELOPE : SDUI_SCAN_GO;
        }
        if (sp->is_array) {
            sp->el.start = ev->start;
            sp->el.end = ev->start;
            sp->el.status = SDUI_OK;
            sp->el.fault = ev->start;
        }
        return SDUI_SCAN_GO;
    case SDUI_SCAN_END:
        if (ev->depth == 1 && sp->is_array)
            end_element(sp, ev->end);
        return SDUI_SCAN_GO;
    case SDUI_SCAN_TOO_DEEP:
        /* Only an element of an array fails alone. */
        if (!sp->soft || !sp->is_array)
            return SDUI_SCAN_LIMIT;
        if (sp->el.status == SDUI_OK) {
            sp->el.status = SDUI_LIMIT;
            sp->el.fault = ev->start;
        }
        return SDUI_SCAN_GO;
    default:
        return SDUI_SCAN_GO;
    }
}

/*
 * Splits an array (see the top of this file).  soft: an element nested
 * deeper than max_depth (counted from itself) or longer than
 * max_element_bytes is marked SDUI_LIMIT and the scan goes on; otherwise a
 * too-deep element fails the whole text.
 */
static sdui_status split_scan(const char *text, size_t len,
                              unsigned max_depth, size_t max_element_bytes,
                              int soft, sdui_json_element *elems,
                              size_t *starts, size_t *ends, size_t cap,
                              size_t *count, sdui_error *err)
{
    static const char *const level_from[] = {
        "", " (levels counted from the array element)"};
    sdui_scan_config cfg;
    splitter sp;
    sdui_status st;
    sdui_error_clear(err);
    if (count)
        *count = 0;
    if (!count || (!text && len) || (cap && !elems && (!starts || !ends)))
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "text, the element arrays or count is NULL");
    memset(&sp, 0, sizeof sp);
    sp.text = text ? text : "";
    sp.soft = soft;
    sp.max_element_bytes = max_element_bytes;
    sp.elems = elems;
    sp.starts = starts;
    sp.ends = ends;
    sp.cap = cap;
    memset(&cfg, 0, sizeof cfg);
    cfg.text = sp.text;
    cfg.len = len;
    cfg.max_depth = max_depth;
    cfg.err = err;
    cfg.hook = split_hook;
    cfg.ctx = &sp;
    cfg.value_levels = 2; /* the root and its elements */
    cfg.key_levels = 0;
    cfg.soft_depth = soft;
    cfg.level_from = level_from;
    cfg.level_from_count = 2;
    st = sdui__scan(&cfg, NULL);
    if (st != SDUI_OK)
        return st;
    if (!sp.is_array)
        return sdui__fail_at(err, SDUI_SCHEMA, sp.text, len, sp.not_array,
                             "expected a JSON array");
    *count = sp.count;
    return SDUI_OK;
}

/* Element ranges of a validated top-level array (json.h). */
sdui_status sdui_json_array_split(const char *text, size_t len,
                                  unsigned max_depth, size_t *starts,
                                  size_t *ends, size_t cap, size_t *count,
                                  sdui_error *err)
{
    return split_scan(text, len, max_depth, SIZE_MAX, 0, NULL, starts, ends,
                      cap, count, err);
}

/* Element ranges and per-element verdicts of an array (json.h). */
sdui_status sdui_json_array_elements(const char *text, size_t len,
                                     unsigned max_depth,
                                     size_t max_element_bytes,
                                     sdui_json_element *elements, size_t cap,
                                     size_t *count, sdui_error *err)
{
    return split_scan(text, len, max_depth, max_element_bytes, 1, elements,
                      NULL, NULL, cap, count, err);
}
