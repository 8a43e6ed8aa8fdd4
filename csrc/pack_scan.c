/*
 * pack_scan.c - the shape of a pack document, read with the generic
 * scanner's hook (scan.h): the reader the pack opens with.
 *
 * A pack's shape lives at four fixed depths, so the hook asks for values
 * at depths 0 to 2 and keys at depths 1 to 3, and the scanner calls it
 * nowhere deeper (props, unknown members' insides cost nothing extra):
 *
 *   depth 0  the root value: must be an object (an envelope)
 *   depth 1  its members: "formatVersion" (must be 1, once), "tokens"
 *            (an array, once: an envelope); each member's key and value
 *            range is recorded, for sdui_pack_member
 *   depth 2  the elements of "tokens": each must be an object
 *   depth 3  a token's keys: its one "id", whose value (asked for with
 *            SDUI_SCAN_WANT) must be a non-empty string
 *
 * A token that ends is checked for its id and size and recorded, with
 * the hash of an id that holds no escape (sdui__hash, for the pack's
 * index): taken here, while the id's bytes are in the cache, it adds
 * the hashing to the scan (4% of it on the bench's packs) and saves the
 * index, built after the scan of a large pack, a wait for memory at each
 * id (the 27 MB bench pack's open: 16.3 -> 15.3 ms).  The nesting limit counts from each
 * token, because the root and "tokens" are envelopes (limits.h).
 *
 * Large packs are scanned on two threads (scan_split): the second starts
 * at a likely token boundary as if between two tokens (a resumed scan:
 * the root object and the "tokens" array open); the first scans from the
 * start and stops there only if it arrives in that very state, which
 * proves the second's assumption.  Otherwise the first carries on alone
 * and the second's work is dropped, so the outcome is always that of a
 * one-thread scan, errors included, in document order.
 */
#include <pthread.h>
#include <string.h>

#include "internal.h"
#include "pack_scan.h"
#include "scan.h"

/* What the member being read means to the pack's shape. */
enum member_kind {
    MEMBER_OTHER,
    MEMBER_TOKENS,   /* the root's "tokens"        */
    MEMBER_FORMAT    /* the root's "formatVersion" */
};

/* The hook's state: the shape read so far. */
typedef struct pack_reader {
    const char *text;
    size_t len;
    const sdui_limits *limits;
    sdui_error *err;
    sdui_scan_result *out;
    enum member_kind kind;    /* of the member whose key was just read   */
    int in_tokens;            /* the "tokens" array is open              */
    int seen_tokens, seen_format, seen_id;
    sdui_scan_entry cur;      /* the token being scanned                 */
    sdui_scan_member member;  /* the root member being scanned           */
    int member_open;          /* its value has started, not ended        */
    /* Split scans: where the first half stops (SIZE_MAX: nowhere); the
     * second half leaves a missing formatVersion to the merge, and keeps
     * where its first formatVersion key and the root's end are. */
    size_t stop;
    int format_deferred;
    int has_format_key, has_root_close;
    size_t format_key_at, root_close;
    /* A part of a seekable pack that is not the last ends where the text
     * does, at a token's end: the scan stops there. */
    int stop_at_end;
} pack_reader;

/* Reports a shape error (SDUI_SCHEMA or SDUI_LIMIT) at offset at, and
 * returns the hook's failure verdict. */
static int shape_fail(pack_reader *r, sdui_status st, size_t at,
                      const char *what)
{
    sdui__fail_at(r->err, st, r->text, r->len, at, "%s", what);
    return SDUI_SCAN_FAIL(st);
}

/* Appends the finished token r->cur to the result. */
static int push_entry(pack_reader *r)
{
    sdui_scan_result *out = r->out;
    if (out->count >= r->limits->max_tokens) {
        sdui__fail_at(r->err, SDUI_LIMIT, r->text, r->len, r->cur.start,
                      "pack holds more than %zu tokens",
                      r->limits->max_tokens);
        return SDUI_SCAN_FAIL(SDUI_LIMIT);
    }
    if (out->count == out->cap) {
        size_t cap = out->cap ? out->cap * 2 : 256;
        sdui_scan_entry *e = sdui_realloc(out->entries, cap * sizeof *e);
        if (!e)
            return SDUI_SCAN_FAIL(sdui__oom(r->err));
        out->entries = e;
        out->cap = cap;
    }
    out->entries[out->count++] = r->cur;
    return SDUI_SCAN_GO;
}

/* Appends a finished root member to the result. */
static int push_member(pack_reader *r, const sdui_scan_member *m)
{
    sdui_scan_result *out = r->out;
    if (out->nmembers == out->cap_members) {
        size_t cap = out->cap_members ? out->cap_members * 2 : 8;
        sdui_scan_member *n = sdui_realloc(out->members, cap * sizeof *n);
        if (!n)
            return SDUI_SCAN_FAIL(sdui__oom(r->err));
        out->members = n;
        out->cap_members = cap;
    }
    out->members[out->nmembers++] = *m;
    return SDUI_SCAN_GO;
}

/* A key of the root object: "tokens" and "formatVersion" once each. */
static int root_key(pack_reader *r, const sdui_scan_event *ev)
{
    const char *body = r->text + ev->start + 1;
    size_t blen = ev->end - ev->start - 2;
    r->member.key_start = ev->start + 1;
    r->member.key_len = blen;
    r->member.key_escaped = ev->escaped;
    r->kind = MEMBER_OTHER;
    if (sdui__key_is(body, blen, ev->escaped, "tokens")) {
        if (r->seen_tokens)
            return shape_fail(r, SDUI_SCHEMA, ev->start,
                              "duplicate \"tokens\" key");
        r->seen_tokens = 1;
        r->kind = MEMBER_TOKENS;
    } else if (sdui__key_is(body, blen, ev->escaped, "formatVersion")) {
        if (r->seen_format)
            return shape_fail(r, SDUI_SCHEMA, ev->start,
                              "duplicate \"formatVersion\" key");
        if (!r->has_format_key) {
            r->has_format_key = 1;
            r->format_key_at = ev->start;
        }
        r->kind = MEMBER_FORMAT;
    }
    return SDUI_SCAN_GO;
}

/* A key of a token object: its one "id", whose value is asked for. */
static int token_key(pack_reader *r, const sdui_scan_event *ev)
{
    const char *body = r->text + ev->start + 1;
    size_t blen = ev->end - ev->start - 2;
    if (!ev->escaped ? blen != 2 || body[0] != 'i' || body[1] != 'd'
                     : !sdui__key_is(body, blen, 1, "id"))
        return SDUI_SCAN_GO;
    if (r->seen_id)
        return shape_fail(r, SDUI_SCHEMA, ev->start,
                          "a token has a duplicate \"id\" key");
    return SDUI_SCAN_WANT;
}

/* A value starts: the root, a root member, a token, a token's id. */
static int value_start(pack_reader *r, const sdui_scan_event *ev)
{
    char c = r->text[ev->start];
    switch (ev->depth) {
    case 0:
        if (c != '{')
            return shape_fail(r, SDUI_SCHEMA, ev->start,
                              "a pack must be a JSON object");
        return SDUI_SCAN_ENVELOPE;
    case 1:
        r->member.start = ev->start;
        r->member_open = 1;
        if (r->kind == MEMBER_TOKENS) {
            if (c != '[')
                return shape_fail(r, SDUI_SCHEMA, ev->start,
                                  "\"tokens\" must be an array");
            r->in_tokens = 1;
            return SDUI_SCAN_ENVELOPE;
        }
        if (r->kind == MEMBER_FORMAT && c != '-' && (c < '0' || c > '9'))
            return shape_fail(r, SDUI_SCHEMA, ev->start,
                              "\"formatVersion\" must be 1");
        return SDUI_SCAN_GO;
    case 2:
        if (!r->in_tokens)
            return SDUI_SCAN_GO;
        if (ev->start == r->stop)
            return SDUI_SCAN_STOP; /* the first half meets the split */
        if (c != '{')
            return shape_fail(r, SDUI_SCHEMA, ev->start,
                              "a token is not a JSON object");
        r->cur.start = ev->start;
        r->cur.end = r->cur.id_start = r->cur.id_len = 0;
        r->cur.id_escaped = 0;
        r->cur.id_hash = 0;
        r->seen_id = 0;
        return SDUI_SCAN_GO;
    default:
        /* Depth 3: only a token's "id" value is asked for. */
        assert(ev->depth == 3 && r->in_tokens);
        if (c != '"')
            return shape_fail(r, SDUI_SCHEMA, ev->start,
                              "a token's \"id\" must be a string");
        return SDUI_SCAN_GO;
    }
}

/* The root ends: it must have had "tokens" and (unless the merge of a
 * split scan decides) "formatVersion". */
static int root_end(pack_reader *r, const sdui_scan_event *ev)
{
    size_t close = ev->end - 1;
    if (!r->seen_tokens)
        return shape_fail(r, SDUI_SCHEMA, close,
                          "a pack needs a \"tokens\" array");
    if (!r->seen_format && !r->format_deferred)
        return shape_fail(r, SDUI_SCHEMA, close,
                          "a pack needs \"formatVersion\": 1");
    r->has_root_close = 1;
    r->root_close = close;
    return SDUI_SCAN_GO;
}

/* A root member's value ends: formatVersion must be exactly 1; the
 * member is recorded. */
static int member_end(pack_reader *r, const sdui_scan_event *ev)
{
    if (r->kind == MEMBER_FORMAT) {
        if (ev->end - ev->start != 1 || r->text[ev->start] != '1')
            return shape_fail(r, SDUI_SCHEMA, ev->start,
                              "\"formatVersion\" must be 1");
        r->seen_format = 1;
    }
    if (r->kind == MEMBER_TOKENS)
        r->in_tokens = 0;
    r->kind = MEMBER_OTHER;
    r->member.end = ev->end;
    if (ev->start == SIZE_MAX && !r->member_open) {
        /* A resumed scan's "tokens", begun before this reader's first
         * byte: its key and start are the first half's (merge_members).
         * A reader that goes on from part to part (sdui__scan_pack_fed)
         * saw them itself. */
        r->member.key_start = SIZE_MAX;
        r->member.key_len = 0;
        r->member.key_escaped = 0;
        r->member.start = SIZE_MAX;
    }
    r->member_open = 0;
    return push_member(r, &r->member);
}

/* A token ends: it needs an id and must fit the size limit. */
static int token_end(pack_reader *r, const sdui_scan_event *ev)
{
    r->cur.end = ev->end;
    if (!r->seen_id)
        return shape_fail(r, SDUI_SCHEMA, r->cur.start,
                          "a token has no string \"id\"");
    if (r->cur.end - r->cur.start > r->limits->max_token_bytes) {
        size_t n = r->cur.id_len > 64 ? 64 : r->cur.id_len;
        sdui__fail_at(r->err, SDUI_LIMIT, r->text, r->len, r->cur.start,
                      "token \"%.*s\" is %zu bytes, over the limit of %zu",
                      (int)n, r->text + r->cur.id_start,
                      r->cur.end - r->cur.start, r->limits->max_token_bytes);
        return SDUI_SCAN_FAIL(SDUI_LIMIT);
    }
    if (r->stop_at_end && ev->end == r->len) {
        int v = push_entry(r);
        return v < 0 ? v : SDUI_SCAN_STOP;
    }
    return push_entry(r);
}

/* A token's id ends: a non-empty string. */
static int id_end(pack_reader *r, const sdui_scan_event *ev)
{
    r->cur.id_start = ev->start + 1;
    r->cur.id_len = ev->end - ev->start - 2;
    r->cur.id_escaped = ev->escaped;
    if (r->cur.id_len == 0)
        return shape_fail(r, SDUI_SCHEMA, ev->start,
                          "a token has an empty \"id\"");
    if (!ev->escaped)
        r->cur.id_hash = sdui__hash(r->text + r->cur.id_start,
                                    r->cur.id_len);
    r->seen_id = 1;
    return SDUI_SCAN_GO;
}

/* The scanner's hook: dispatches each event to the shape rule of its
 * depth (see the top of this file). */
static int pack_hook(void *ctx, const sdui_scan_event *ev)
{
    pack_reader *r = ctx;
    switch (ev->kind) {
    case SDUI_SCAN_KEY:
        if (ev->depth == 1)
            return root_key(r, ev);
        if (ev->depth == 3 && r->in_tokens)
            return token_key(r, ev);
        return SDUI_SCAN_GO;
    case SDUI_SCAN_VALUE:
        return value_start(r, ev);
    case SDUI_SCAN_END:
        switch (ev->depth) {
        case 0:
            return root_end(r, ev);
        case 1:
            return member_end(r, ev);
        case 2:
            return r->in_tokens ? token_end(r, ev) : SDUI_SCAN_GO;
        default:
            return id_end(r, ev);
        }
    default:
        return SDUI_SCAN_GO;
    }
}

/* The levels' words for the depth error, by envelopes open: none, the
 * root (a member counts from itself), the root and "tokens". */
static const char *const level_from[] = {
    "",
    " (levels counted from the member of the pack's root)",
    " (levels counted from the token)",
};

/* The keys the reader hears of, by their first raw byte: none at depth 2
 * (inside other members), and at depth 3 those that may be "id" (a key
 * starting with an escape may decode to anything). */
static const unsigned char no_key[256];
static const unsigned char id_first[256] = {['i'] = 1, ['\\'] = 1};

/* Prepares a reader and its scan over text. */
static void setup(pack_reader *r, sdui_scan_config *cfg, const char *text,
                  size_t len, const sdui_limits *limits,
                  sdui_scan_result *out, sdui_error *err)
{
    memset(r, 0, sizeof *r);
    r->text = text;
    r->len = len;
    r->limits = limits;
    r->err = err;
    r->out = out;
    r->stop = SIZE_MAX;
    memset(cfg, 0, sizeof *cfg);
    cfg->text = text;
    cfg->len = len;
    cfg->max_depth = limits->max_depth;
    cfg->err = err;
    cfg->hook = pack_hook;
    cfg->ctx = r;
    cfg->value_levels = 3;
    cfg->key_levels = 4;
    cfg->key_first[2] = no_key;
    cfg->key_first[3] = id_first;
    cfg->level_from = level_from;
    cfg->level_from_count = 3;
}

/* Sets a scan to resume at start, between two tokens: the root object
 * and the "tokens" array open (both envelopes). */
static void resume_scan(sdui_scan_config *cfg, size_t start)
{
    cfg->start = start;
    cfg->start_depth = 2;
    cfg->start_objects = 1u << 1;
    cfg->start_envelopes = (1u << 1) | (1u << 2);
}

/* Sets a fresh reader and its scan to resume at start, between two
 * tokens, knowing nothing of what came before. */
static void resume_in_tokens(pack_reader *r, sdui_scan_config *cfg,
                             size_t start)
{
    resume_scan(cfg, start);
    r->in_tokens = 1;
    r->seen_tokens = 1;
    r->kind = MEMBER_TOKENS;
    r->format_deferred = 1;
}

/* The second half of a split scan, run on its own thread. */
typedef struct half {
    sdui_scan_config cfg;
    pack_reader r;
} half;

/* Thread body: the second half of a split scan. */
static void *scan_thread(void *arg)
{
    half *h = arg;
    h->r.out->status = sdui__scan(&h->cfg, NULL);
    return NULL;
}

/* 1 for JSON white space. */
static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/*
 * Where to split text[from, len): the first newline at or after the middle
 * that is followed by '{' (optional white space between).  Packs written
 * by sdui put one token per line, and a raw newline is never inside a JSON
 * string, so this is a token boundary for them.  Compact packs from other
 * writers have no newline: then the first `},{"id":` after the middle is
 * the guess.  A wrong guess is harmless: the first half does not confirm it
 * and the scan goes on on one thread.  SIZE_MAX when there is no candidate.
 */
static size_t split_point(const char *text, size_t from, size_t len)
{
    static const char pattern[] = "},{\"id\":";
    const unsigned char *base = (const unsigned char *)text;
    const unsigned char *end = base + len;
    const unsigned char *mid = base + from + (len - from) / 2;
    const unsigned char *p = memchr(mid, '\n', (size_t)(end - mid));
    while (p) {
        const unsigned char *q = p;
        while (q < end && is_ws(*q))
            q++;
        if (q < end && *q == '{')
            return (size_t)(q - base);
        p = memchr(q, '\n', (size_t)(end - q));
    }
    for (p = mid; (p = memchr(p, '}', (size_t)(end - p))) != NULL; p++)
        if ((size_t)(end - p) > sizeof pattern &&
            memcmp(p, pattern, sizeof pattern - 1) == 0)
            return (size_t)(p + 2 - base);
    return SIZE_MAX;
}

/*
 * Joins the second half's members to the first's: the first half stopped
 * inside "tokens", whose member it left open; the second half's first
 * member is that one's end (recorded with start SIZE_MAX).  SDUI_OOM (err
 * filled by push_member) or SDUI_OK.
 */
static sdui_status merge_members(pack_reader *a,
                                 const sdui_scan_result *second)
{
    size_t i = 0;
    if (a->member_open && second->nmembers &&
        second->members[0].start == SIZE_MAX) {
        a->member.end = second->members[0].end;
        if (push_member(a, &a->member) < 0)
            return SDUI_OOM;
        i = 1;
    }
    for (; i < second->nmembers; i++)
        if (push_member(a, &second->members[i]) < 0)
            return SDUI_OOM;
    return SDUI_OK;
}

/*
 * The verdict of a split scan once both halves are done: a scanned from
 * the start (or resumed with all it knew) and stopped at the split or
 * not; b, a fresh reader, scanned from the split into second, its errors
 * in err2.  Joins b's tokens and members to a's result (out) and returns
 * the status a one-thread scan would have, errors in document order.
 */
static sdui_status merge_split(pack_reader *a, sdui_status st, int stopped,
                               const pack_reader *b,
                               sdui_scan_result *second,
                               const sdui_error *err2,
                               sdui_scan_result *out, sdui_error *err)
{
    const char *text = a->text;
    size_t len = b->len;
    const sdui_limits *limits = a->limits;
    sdui_status status;
    if (st != SDUI_OK || !stopped) {
        /* Failed before the split, or never met it in the right state:
         * the first half's verdict is the whole document's. */
        sdui__scan_result_free(second);
        return st;
    }
    /* Errors in document order, as one thread would meet them.  First the
     * token count: the second half's entries all closed before any error it
     * met (or its own count limit), so an overflow among them comes first. */
    if (out->count + second->count > limits->max_tokens) {
        size_t at = limits->max_tokens >= out->count
                        ? second->entries[limits->max_tokens - out->count].start
                        : out->entries[limits->max_tokens].start;
        sdui__scan_result_free(second);
        status = sdui__fail_at(err, SDUI_LIMIT, text, len, at,
                                "pack holds more than %zu tokens",
                                limits->max_tokens);
        return status;
    }
    /* A formatVersion key in the second half when the first had one is a
     * duplicate, reported at that key unless an earlier error came first. */
    if (a->seen_format && b->has_format_key &&
        (second->status == SDUI_OK ||
         err2->offset >= (long long)b->format_key_at)) {
        sdui__scan_result_free(second);
        status = sdui__fail_at(err, SDUI_SCHEMA, text, len,
                                b->format_key_at,
                                "duplicate \"formatVersion\" key");
        return status;
    }
    /* No formatVersion at all is found when the root closes, before any
     * error after it (trailing data) that the second half went on to meet. */
    if (!a->seen_format && !b->seen_format && b->has_root_close) {
        sdui__scan_result_free(second);
        status = sdui__fail_at(err, SDUI_SCHEMA, text, len,
                                b->root_close,
                                "a pack needs \"formatVersion\": 1");
        return status;
    }
    if (second->status != SDUI_OK) {
        if (err)
            *err = *err2;
        status = second->status;
        sdui__scan_result_free(second);
        return status;
    }
    if (second->count) {
        sdui_scan_entry *e = sdui_realloc(
            out->entries, (out->count + second->count) * sizeof *e);
        if (!e) {
            sdui__scan_result_free(second);
            status = sdui__oom(err);
            return status;
        }
        memcpy(e + out->count, second->entries, second->count * sizeof *e);
        out->entries = e;
        out->count += second->count;
        out->cap = out->count;
    }
    status = merge_members(a, second);
    sdui__scan_result_free(second);
    return status;
}

/*
 * Scans a large pack on two threads (see the top of this file).  Returns
 * -1 when no thread could be started (the caller scans serially), else 0
 * with the scan's status in *status.
 */
static int scan_split(const char *text, size_t len, const sdui_limits *limits,
                      size_t split, sdui_scan_result *out, sdui_error *err,
                      sdui_status *status)
{
    half b;
    pack_reader a;
    sdui_scan_config acfg;
    sdui_scan_result second;
    sdui_error err2;
    pthread_t th;
    sdui_status st;
    int stopped = 0;

    memset(&second, 0, sizeof second);
    setup(&b.r, &b.cfg, text, len, limits, &second, &err2);
    resume_in_tokens(&b.r, &b.cfg, split);
    sdui_error_clear(&err2);
    if (pthread_create(&th, NULL, scan_thread, &b) != 0)
        return -1;

    setup(&a, &acfg, text, len, limits, out, err);
    a.stop = split;
    st = sdui__scan(&acfg, &stopped);
    pthread_join(th, NULL);

    *status = merge_split(&a, st, stopped, &b.r, &second, &err2, out, err);
    return 0;
}

/* Validates a pack document and lists its tokens and members
 * (pack_scan.h). */
sdui_status sdui__scan_pack(const char *text, size_t len,
                            const sdui_limits *limits,
                            sdui_scan_result *out, sdui_error *err)
{
    pack_reader r;
    sdui_scan_config cfg;
    assert(text || len == 0);
    limits = sdui__limits_or_default(limits);
    if (len >= limits->parallel_scan_bytes && len >= 2) {
        size_t split = split_point(text, 0, len);
        sdui_status st;
        if (split != SIZE_MAX &&
            scan_split(text, len, limits, split, out, err, &st) == 0)
            return st;
    }
    setup(&r, &cfg, text, len, limits, out, err);
    return sdui__scan(&cfg, NULL);
}

/*
 * A pipelined scan (sdui__scan_pack_fed).  The document arrives in
 * pieces, one gzip member at a time; while the caller's thread inflates
 * the next, this file's thread scans what is there, part by part.  A part
 * ends at the last likely token boundary in the bytes ready (a '{' at the
 * start of a line: packs written by sdui have one token a line) and the
 * scan stops there only if it arrives there between two tokens of
 * "tokens", which proves the guess; the same reader then goes on from
 * there when more bytes are ready, so its state (formatVersion seen, the
 * member open, the token count) runs through the whole document as in a
 * one-thread scan.  A part that does not stop there (a wrong guess, or an
 * error that may be the cut's doing) is undone (reader state and result
 * lists put back) and scanned again once everything is in.  When the last
 * member is in, the caller's thread, now idle, scans the second half of
 * what is left from a likely boundary with a fresh reader, as the split
 * scan does, and the two verdicts are merged the same way (merge_split).
 * So the outcome, errors included, is that of sdui__scan_pack over the
 * whole document.  The bytes are published under a mutex: the scanner
 * never reads a byte the inflater may still be writing.
 */
typedef struct fed_scan {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t ready;          /* bytes ready from the start (under lock)   */
    int complete;          /* the document is all in (under lock)       */
    int cancel;            /* the feed failed: stop (under lock)        */
    size_t split;          /* where the caller's thread takes over the
                            * tail, SIZE_MAX: nowhere (under lock)      */
    size_t next_start;     /* where the scanner's next part begins
                            * (under lock)                              */
    /* The scanner thread's own until it is joined. */
    const char *text;
    const sdui_limits *limits;
    sdui_scan_result *out;
    sdui_error *err;
    pack_reader r;
    sdui_scan_config cfg;
    sdui_status status;
    int stopped;
    int cancelled;
} fed_scan;

/* The tail left when the last member is in that is worth splitting. */
#define FED_TAIL_SPLIT_MIN ((size_t)65536)

/*
 * Waits until more than have bytes are ready, the document is complete or
 * the feed failed.  Returns -1 (failed), 1 (complete) or 0 (more), with
 * the bytes ready and the tail's split.
 */
static int fed_wait(fed_scan *f, size_t have, size_t *ready, size_t *split)
{
    int v;
    pthread_mutex_lock(&f->lock);
    while (!f->cancel && !f->complete && f->ready <= have)
        pthread_cond_wait(&f->cond, &f->lock);
    v = f->cancel ? -1 : f->complete ? 1 : 0;
    *ready = f->ready;
    *split = f->split;
    pthread_mutex_unlock(&f->lock);
    return v;
}

/* Records where the scanner's next part begins. */
static void fed_mark(fed_scan *f, size_t at)
{
    pthread_mutex_lock(&f->lock);
    f->next_start = at;
    pthread_mutex_unlock(&f->lock);
}

/* The last likely token boundary in text(from, to): a '{' that starts a
 * line (after white space).  SIZE_MAX when there is none. */
static size_t last_boundary(const char *text, size_t from, size_t to)
{
    size_t p = to;
    while (p > from + 1) {
        size_t q;
        p--;
        if (text[p - 1] != '\n')
            continue;
        for (q = p; q < to && is_ws((unsigned char)text[q]); q++)
            ;
        if (q < to && text[q] == '{')
            return q;
    }
    return SIZE_MAX;
}

/* Thread body: scans the document part by part as it arrives. */
static void *fed_thread(void *arg)
{
    fed_scan *f = arg;
    sdui_scan_result *out = f->out;
    size_t ready = 0, split = SIZE_MAX, start = 0;
    int k = fed_wait(f, 0, &ready, &split);
    if (k < 0) {
        f->cancelled = 1;
        return NULL;
    }
    setup(&f->r, &f->cfg, f->text, ready, f->limits, out, f->err);
    for (;;) {
        size_t cand;
        if (k == 1) {
            /* All in: the last part, to the end or to the split. */
            f->cfg.len = f->r.len = ready;
            f->r.stop = split;
            f->status = sdui__scan(&f->cfg, &f->stopped);
            return NULL;
        }
        cand = last_boundary(f->text, start, ready);
        if (cand != SIZE_MAX) {
            pack_reader saved = f->r;
            size_t count = out->count, nmembers = out->nmembers;
            int stopped = 0;
            sdui_status st;
            fed_mark(f, cand);
            f->cfg.len = f->r.len = ready;
            f->r.stop = cand;
            st = sdui__scan(&f->cfg, &stopped);
            if (st == SDUI_OK && stopped) {
                start = cand;
                resume_scan(&f->cfg, cand);
            } else {
                /* Undo the part; scan it again when everything is in. */
                f->r = saved;
                out->count = count;
                out->nmembers = nmembers;
                sdui_error_clear(f->err);
                fed_mark(f, start);
                do
                    k = fed_wait(f, ready, &ready, &split);
                while (k == 0);
                if (k < 0) {
                    f->cancelled = 1;
                    return NULL;
                }
                continue;
            }
        }
        k = fed_wait(f, ready, &ready, &split);
        if (k < 0) {
            f->cancelled = 1;
            return NULL;
        }
    }
}

/* Publishes a feed's progress to the scanner: ready bytes, and whether
 * that is all (complete) or the feed failed (cancel).  On completion,
 * picks the tail's split; returns it (SIZE_MAX: none). */
static size_t fed_publish(fed_scan *f, size_t ready, int complete,
                          int cancel)
{
    size_t split = SIZE_MAX;
    pthread_mutex_lock(&f->lock);
    assert(ready >= f->ready);
    f->ready = ready;
    if (cancel)
        f->cancel = 1;
    if (complete) {
        if (ready - f->next_start >= FED_TAIL_SPLIT_MIN)
            split = split_point(f->text, f->next_start, ready);
        if (split <= f->next_start)
            split = SIZE_MAX;
        f->split = split;
        f->complete = 1;
    }
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
    return split;
}

/* Scans a document as it arrives (pack_scan.h). */
sdui_status sdui__scan_pack_fed(const char *text, const sdui_limits *limits,
                                sdui_scan_feed feed, void *ctx, size_t *len,
                                int *feed_failed, sdui_scan_result *out,
                                sdui_error *err)
{
    fed_scan f;
    pthread_t th;
    size_t ready = 0, split;
    sdui_status st = SDUI_OK;
    int k;

    limits = sdui__limits_or_default(limits);
    *feed_failed = 0;
    *len = 0;
    memset(&f, 0, sizeof f);
    f.text = text;
    f.limits = limits;
    f.out = out;
    f.err = err;
    f.split = SIZE_MAX;
    if (pthread_mutex_init(&f.lock, NULL) != 0)
        goto serial;
    if (pthread_cond_init(&f.cond, NULL) != 0) {
        pthread_mutex_destroy(&f.lock);
        goto serial;
    }
    if (pthread_create(&th, NULL, fed_thread, &f) != 0) {
        pthread_cond_destroy(&f.cond);
        pthread_mutex_destroy(&f.lock);
        goto serial;
    }

    do {
        k = feed(ctx, &ready, &st);
        if (k < 0) {
            fed_publish(&f, f.ready, 0, 1);
            pthread_join(th, NULL);
            pthread_cond_destroy(&f.cond);
            pthread_mutex_destroy(&f.lock);
            *feed_failed = 1;
            return st;
        }
        split = fed_publish(&f, ready, k == 0, 0);
    } while (k > 0);
    *len = ready;

    if (split != SIZE_MAX) {
        /* The second half of the tail, on this thread, now idle. */
        pack_reader b;
        sdui_scan_config bcfg;
        sdui_scan_result second;
        sdui_error err2;
        memset(&second, 0, sizeof second);
        sdui_error_clear(&err2);
        setup(&b, &bcfg, text, ready, limits, &second, &err2);
        resume_in_tokens(&b, &bcfg, split);
        second.status = sdui__scan(&bcfg, NULL);
        pthread_join(th, NULL);
        assert(!f.cancelled);
        st = merge_split(&f.r, f.status, f.stopped, &b, &second, &err2, out,
                         err);
    } else {
        pthread_join(th, NULL);
        assert(!f.cancelled && !f.stopped);
        st = f.status;
    }
    pthread_cond_destroy(&f.cond);
    pthread_mutex_destroy(&f.lock);
    return st;

serial:
    do {
        k = feed(ctx, &ready, &st);
        if (k < 0) {
            *feed_failed = 1;
            return st;
        }
    } while (k > 0);
    *len = ready;
    return sdui__scan_pack(text, ready, limits, out, err);
}

/* A scanned token's decoded id (pack_scan.h). */
const char *sdui__scan_entry_id(const char *text, const sdui_scan_entry *e,
                                char *dst, size_t *len)
{
    if (!e->id_escaped) {
        *len = e->id_len;
        return text + e->id_start;
    }
    *len = sdui__unescape(text + e->id_start, e->id_len, dst);
    assert(*len <= e->id_len);
    return dst;
}

/* Frees a result's lists (pack_scan.h). */
void sdui__scan_result_free(sdui_scan_result *r)
{
    if (!r)
        return;
    sdui_free(r->entries);
    sdui_free(r->members);
    r->entries = NULL;
    r->members = NULL;
    r->count = r->cap = r->nmembers = r->cap_members = 0;
}

/* Scans one member of a seekable pack (pack_scan.h). */
sdui_status sdui__scan_pack_part(const char *text, size_t len, unsigned member,
                                 int last, const sdui_limits *limits,
                                 sdui_scan_result *out, sdui_scan_part *info,
                                 sdui_error *err)
{
    pack_reader r;
    sdui_scan_config cfg;
    sdui_status st;
    int stopped = 0;
    assert(text || len == 0);
    limits = sdui__limits_or_default(limits);
    memset(info, 0, sizeof *info);
    setup(&r, &cfg, text, len, limits, out, err);
    if (member > 0) {
        /* Between two tokens: white space, the comma, white space. */
        size_t p = 0;
        while (p < len && is_ws((unsigned char)text[p]))
            p++;
        if (p == len || text[p] != ',')
            return sdui__fail_at(err, SDUI_SCHEMA, text, len, p,
                                 "gzip member %u does not start between two "
                                 "tokens (expected ',')",
                                 member + 1);
        p++;
        while (p < len && is_ws((unsigned char)text[p]))
            p++;
        resume_in_tokens(&r, &cfg, p);
    }
    r.stop_at_end = !last;
    st = sdui__scan(&cfg, &stopped);
    if (st == SDUI_JSON && !last && err && err->offset == (long long)len)
        return sdui__fail_at(err, SDUI_SCHEMA, text, len, len,
                             "gzip member %u ends inside a value, not at the "
                             "end of a token",
                             member + 1);
    if (st != SDUI_OK)
        return st;
    if (!last && !stopped)
        return sdui__fail_at(err, SDUI_SCHEMA, text, len, len,
                             "the pack document ends in gzip member %u, but "
                             "more members follow",
                             member + 1);
    if (!last && r.member_open) {
        /* "tokens" goes on in the next members: recorded open. */
        r.member.end = SIZE_MAX;
        if (push_member(&r, &r.member) < 0)
            return SDUI_OOM;
    }
    info->seen_format = r.seen_format;
    info->has_format_key = r.has_format_key;
    info->format_key_at = r.format_key_at;
    info->has_root_close = r.has_root_close;
    info->root_close = r.root_close;
    return SDUI_OK;
}
