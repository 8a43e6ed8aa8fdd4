/*
 * test_seekable_race.c - one freshly opened seekable pack, many threads at
 * once, for ThreadSanitizer (`make tsan`) as much as for `make test`.
 *
 * A seekable pack opens with two members inflated and two tables read;
 * everything else is done lazily by whichever thread needs it first: a
 * member's table is decoded into the shared id index (under the pack's
 * index lock, cells published atomically), a member is inflated into the
 * shared document (under its own lock, its state published atomically).
 * So the threads here start together on a fresh pack (a barrier), each
 * with its own mix of calls from its very first one: lookups by id
 * strings built here (not borrowed from sdui_pack_id_at, so the lookup
 * reads the tables in member order), ids by position, present and absent
 * ids (an absent id reads every table), root members, the whole JSON and
 * the counts.  Half the lookups of a round aim at a few neighbouring
 * tokens, so several threads want the same member at the same moment.
 *
 * Every answer is checked against the generated document, from inside the
 * threads (check.h's counters are not shared: each thread keeps its own
 * failures and the first one's words), and each id yields one token
 * object whichever thread asked.  After the threads, each member must have
 * been inflated once.  Packs come from memory and from a file; a pack
 * with a corrupt member in the middle must fail that member's tokens with
 * one error, the same for every thread, and serve the others.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "strbuf.h"
#include "sdui/alloc.h"
#include "sdui/pack.h"

/* To find a member's deflate data in the file (the damaged rounds). */
#include "../../csrc/gzip_member.h"

enum {
    TOKENS = 480,     /* tokens in the pack                          */
    THREADS = 16,     /* threads on one pack                         */
    OPS = 48,         /* calls each thread makes in a round          */
    HOT = 12,         /* the neighbouring tokens half the gets aim at */
    ROUNDS = 200,     /* rounds on packs opened from memory          */
    FILE_ROUNDS = 20, /* rounds on packs opened from a file          */
    BAD_ROUNDS = 20   /* rounds on a damaged pack, memory and file   */
};

/* The calls a thread mixes. */
enum { OP_GET, OP_ID_AT, OP_CONTAINS, OP_ABSENT, OP_MEMBER, OP_INFO, OP_JSON,
       NOPS };

/* What the generated document holds, to check every answer against. */
typedef struct fixture {
    char *doc;               /* the pack's JSON                          */
    size_t doc_len;
    char *ids[TOKENS];       /* each token's id, decoded (NUL-ended)     */
    size_t id_len[TOKENS];
    size_t tok_start[TOKENS], tok_end[TOKENS]; /* its JSON in doc       */
    const char *screens;     /* the root member "screens", exactly       */
    size_t tokens_len;       /* the bytes of the "tokens" array          */
    unsigned char *gz;       /* the seekable pack                        */
    size_t gz_len;
    unsigned members;        /* its gzip members                         */
    char *order[TOKENS];     /* sdui_pack_id_at(i), read on one thread   */
    size_t order_len[TOKENS];
} fixture;

/* A damaged pack: which tokens fail, and with what. */
typedef struct damage {
    unsigned char *gz;
    size_t gz_len;
    unsigned member;         /* the corrupt member (0-based)             */
    char bad[TOKENS];        /* 1: token i is in it                      */
    size_t nbad;
    sdui_error error;        /* the error its tokens give                */
} damage;

/* One round: a pack, what it must answer, the threads' start line. */
typedef struct round_state {
    const fixture *fx;
    const damage *dmg;       /* NULL for an intact pack                  */
    sdui_pack *pack;
    pthread_barrier_t start;
    unsigned round;
    _Atomic(sdui_token *) seen[TOKENS]; /* the token each id yielded    */
} round_state;

/* One thread's share of a round. */
typedef struct worker {
    round_state *rs;
    unsigned t;
    uint64_t rng;
    unsigned last_inflated;
    unsigned long calls, failures;
    char first[320];         /* the first failure, in words              */
} worker;

/* ---- the document ---- */

/* Token i's id as written in the JSON (raw) and as decoded (into dec):
 * ids of several shapes, sharing prefixes the way real ids do, and every
 * 41st written with an escape that decodes to "é". */
static void make_id(int i, str *raw, char *dec, size_t cap)
{
    static const char *const kinds[] = {"home.card", "shop.list.item",
                                        "checkout/pay", "a"};
    const char *kind = kinds[i % 4];
    if (i % 41 == 5) {
        sadd(raw, "\"caf\\u00e9.%d\"", i);
        snprintf(dec, cap, "caf\xc3\xa9.%d", i);
    } else {
        sadd(raw, "\"%s.%d\"", kind, i);
        snprintf(dec, cap, "%s.%d", kind, i);
    }
}

/* Builds the document, its seekable pack, and reads the pack once on
 * this thread for the order of its ids. */
static int fixture_init(fixture *fx)
{
    str s = {0};
    sdui_seekable_options o = {512, 2048, 1};
    sdui_error err;
    sdui_pack *p = NULL;
    sdui_pack_info info;
    size_t i, screens_at, tokens_at;
    int ok = 1;

    memset(fx, 0, sizeof *fx);
    sadd(&s, "{\"formatVersion\":1,\"name\":\"race test\",\"tokens\":");
    tokens_at = s.n;
    sadd(&s, "[\n");
    for (i = 0; i < TOKENS; i++) {
        char dec[64];
        if (i)
            sadd(&s, ",\n");
        fx->tok_start[i] = s.n;
        sadd(&s, "{\"id\":");
        make_id((int)i, &s, dec, sizeof dec);
        sadd(&s, ",\"version\":%d,\"primitive\":\"Text\","
                 "\"primitiveVersion\":1,\"props\":{\"text\":\"token %zu "
                 "of the race\",\"size\":%zu,\"weight\":[%zu,%zu]}}",
             1 + (int)(i % 3), i, 10 + i % 9, i * 7 % 13, i * 11 % 17);
        fx->tok_end[i] = s.n;
        fx->id_len[i] = strlen(dec);
        fx->ids[i] = malloc(fx->id_len[i] + 1);
        memcpy(fx->ids[i], dec, fx->id_len[i] + 1);
    }
    sadd(&s, "\n]");
    fx->tokens_len = s.n - tokens_at;
    sadd(&s, ",\"screens\":");
    screens_at = s.n;
    sadd(&s, "{\"home\":[\"home.card.0\",\"a.3\"]}}");
    fx->doc = s.b;
    fx->doc_len = s.n;
    fx->screens = fx->doc + screens_at;

    CHECK_STATUS(sdui_pack_write_seekable(fx->doc, fx->doc_len, &o, NULL,
                                          &fx->gz, &fx->gz_len, &err),
                 SDUI_OK);
    if (!fx->gz)
        return 0;
    CHECK_STATUS(sdui_pack_open_memory(fx->gz, fx->gz_len, NULL, &p, &err),
                 SDUI_OK);
    if (!p)
        return 0;
    sdui_pack_get_info(p, &info);
    fx->members = info.members;
    CHECKF(info.seekable && info.members >= 20,
           "a seekable pack of 20 members or more (%u)", info.members);
    CHECK_EQ_INT(info.tokens, TOKENS);
    for (i = 0; i < TOKENS; i++) {
        size_t len = 0;
        const char *id = sdui_pack_id_at(p, i, &len);
        if (!CHECKF(id != NULL, "id %zu of the reference read", i)) {
            ok = 0;
            break;
        }
        fx->order[i] = malloc(len ? len : 1);
        memcpy(fx->order[i], id, len);
        fx->order_len[i] = len;
    }
    /* The order lists every generated id once. */
    for (i = 0; ok && i < TOKENS; i++) {
        size_t j, times = 0;
        for (j = 0; j < TOKENS; j++)
            times += fx->order_len[j] == fx->id_len[i] &&
                     memcmp(fx->order[j], fx->ids[i], fx->id_len[i]) == 0;
        ok &= CHECKF(times == 1, "%s is listed %zu times", fx->ids[i], times);
    }
    for (i = 0; ok && i < TOKENS; i++) {
        sdui_token *t = NULL;
        CHECK_STATUS(sdui_pack_get(p, fx->ids[i], fx->id_len[i], &t, &err),
                     SDUI_OK);
        sdui_token_release(t);
    }
    sdui_pack_free(p);
    return ok && check_failed_ == 0;
}

/* Frees what fixture_init made. */
static void fixture_free(fixture *fx)
{
    size_t i;
    for (i = 0; i < TOKENS; i++) {
        free(fx->ids[i]);
        free(fx->order[i]);
    }
    free(fx->doc);
    sdui_free(fx->gz);
}

/* A little-endian 32-bit field at p. */
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/*
 * A copy of the pack with a byte of the middle member's deflate data
 * flipped (found by hopping the headers: each member's seekable table,
 * subfield 'S' 'K', holds the member's size at byte 2), and the answers
 * of one thread on it: which tokens fail, and with what.
 */
static int damage_init(const fixture *fx, damage *d)
{
    size_t pos = 0, i;
    unsigned k;
    sdui_pack *p = NULL;
    sdui_error err;
    int same = 1;
    unsigned long failed_before = check_failed_;

    memset(d, 0, sizeof *d);
    d->gz = malloc(fx->gz_len);
    memcpy(d->gz, fx->gz, fx->gz_len);
    d->gz_len = fx->gz_len;
    d->member = fx->members / 2;
    for (k = 0;; k++) {
        sdui_gz_header h;
        const unsigned char *tab;
        size_t tl;
        if (sdui__gzip_header(d->gz, d->gz_len, pos, k, &h, NULL) != SDUI_OK ||
            sdui__gzip_subfield(h.extra, h.extra_len, 'S', 'K', &tab, &tl) !=
                1) {
            CHECKF(0, "member %u's header at byte %zu", k + 1, pos);
            return 0;
        }
        if (k == d->member) {
            d->gz[h.data_pos + 3] ^= 0x55;
            break;
        }
        pos += rd32(tab + 2);
    }
    CHECK_STATUS(sdui_pack_open_memory(d->gz, d->gz_len, NULL, &p, &err),
                 SDUI_OK);
    if (!p)
        return 0;
    for (i = 0; i < TOKENS; i++) {
        sdui_token *t = NULL;
        sdui_status st = sdui_pack_get(p, fx->ids[i], fx->id_len[i], &t, &err);
        sdui_token_release(t);
        if (st == SDUI_OK)
            continue;
        if (d->nbad == 0)
            d->error = err;
        else if (err.status != d->error.status ||
                 strcmp(err.message, d->error.message) != 0 ||
                 err.offset != d->error.offset)
            same = 0;
        d->bad[i] = 1;
        d->nbad++;
    }
    sdui_pack_free(p);
    CHECKF(d->nbad > 0 && d->nbad < TOKENS,
           "the damaged member fails some tokens, not all (%zu)", d->nbad);
    CHECKF(same, "one error for all of the damaged member's tokens");
    CHECK(d->error.status == SDUI_GZIP);
    {
        char words[32];
        snprintf(words, sizeof words, "member %u", d->member + 1);
        CHECKF(strstr(d->error.message, words) != NULL,
               "\"%s\" names %s", d->error.message, words);
    }
    /* The writer cuts the document in order: the failing tokens are
     * neighbours. */
    {
        size_t first = TOKENS, last = 0;
        for (i = 0; i < TOKENS; i++)
            if (d->bad[i]) {
                if (first == TOKENS)
                    first = i;
                last = i;
            }
        CHECKF(d->nbad && last - first + 1 == d->nbad,
               "the damaged tokens are one run (%zu..%zu, %zu)", first,
               last, d->nbad);
    }
    return check_failed_ == failed_before;
}

/* ---- the threads ---- */

/* xorshift64*: each thread's own sequence. */
static uint64_t next(worker *w)
{
    w->rng ^= w->rng >> 12;
    w->rng ^= w->rng << 25;
    w->rng ^= w->rng >> 27;
    return w->rng * 2685821657736338717ULL;
}

/* Counts a failure; keeps the first one's words. */
static void fail(worker *w, const char *fmt, ...)
{
    va_list ap;
    if (w->failures++ == 0) {
        int n = snprintf(w->first, sizeof w->first, "round %u thread %u: ",
                         w->rs->round, w->t);
        va_start(ap, fmt);
        vsnprintf(w->first + n, sizeof w->first - (size_t)n, fmt, ap);
        va_end(ap);
    }
}

/* Picks a token: half the time among the round's hot neighbours. */
static size_t pick(worker *w)
{
    if (next(w) & 1)
        return (w->rs->round * 37u + (unsigned)(next(w) % HOT)) % TOKENS;
    return (size_t)(next(w) % TOKENS);
}

/* Looks token i up by an id string built here; checks the answer. */
static void op_get(worker *w, size_t i)
{
    const fixture *fx = w->rs->fx;
    const damage *d = w->rs->dmg;
    char id[64];
    sdui_token *t = NULL, *expected = NULL;
    sdui_error err;
    sdui_status st;
    memcpy(id, fx->ids[i], fx->id_len[i]); /* not the pack's bytes */
    st = sdui_pack_get(w->rs->pack, id, fx->id_len[i], &t, &err);
    if (d && d->bad[i]) {
        if (st != d->error.status || strcmp(err.message, d->error.message) ||
            err.offset != d->error.offset)
            fail(w, "get %s: %s \"%s\", expected %s \"%s\"", fx->ids[i],
                 sdui_status_name(st), st ? err.message : "",
                 sdui_status_name(d->error.status), d->error.message);
        sdui_token_release(t);
        return;
    }
    if (st != SDUI_OK) {
        fail(w, "get %s: %s \"%s\"", fx->ids[i], sdui_status_name(st),
             err.message);
        return;
    }
    {
        size_t jl = 0, il = 0;
        const char *j = sdui_token_json(t, &jl);
        const char *tid = sdui_token_id(t, &il);
        size_t want = fx->tok_end[i] - fx->tok_start[i];
        if (!j || jl != want || memcmp(j, fx->doc + fx->tok_start[i], jl))
            fail(w, "get %s: its JSON differs (%zu bytes, expected %zu)",
                 fx->ids[i], jl, want);
        if (!tid || il != fx->id_len[i] || memcmp(tid, fx->ids[i], il))
            fail(w, "get %s: the token's id differs", fx->ids[i]);
    }
    /* One token per id, whichever thread parsed it. */
    if (!atomic_compare_exchange_strong(&w->rs->seen[i], &expected, t) &&
        expected != t)
        fail(w, "get %s: a second token object for the id", fx->ids[i]);
    sdui_token_release(t);
}

/* The id at position i is the one the reference read gave. */
static void op_id_at(worker *w, size_t i)
{
    const fixture *fx = w->rs->fx;
    size_t len = 0;
    const char *id = sdui_pack_id_at(w->rs->pack, i, &len);
    if (!id || len != fx->order_len[i] || memcmp(id, fx->order[i], len))
        fail(w, "id_at %zu: \"%.*s\", expected \"%.*s\"", i,
             (int)(id ? len : 0), id ? id : "", (int)fx->order_len[i],
             fx->order[i]);
}

/* A present id is there (the damaged member's too: its table is fine). */
static void op_contains(worker *w, size_t i)
{
    const fixture *fx = w->rs->fx;
    char id[64];
    memcpy(id, fx->ids[i], fx->id_len[i]);
    if (!sdui_pack_contains(w->rs->pack, id, fx->id_len[i]))
        fail(w, "contains %s: 0", fx->ids[i]);
}

/* Absent ids are not there (each makes the lookup read every table); a
 * get of one is SDUI_NOT_FOUND. */
static void op_absent(worker *w, size_t i)
{
    const fixture *fx = w->rs->fx;
    char id[80];
    sdui_token *t = NULL;
    sdui_error err;
    sdui_status st;
    int n;
    n = snprintf(id, sizeof id, "%sx", fx->ids[i]); /* a near miss */
    if (sdui_pack_contains(w->rs->pack, id, (size_t)n))
        fail(w, "contains %s: 1", id);
    n = snprintf(id, sizeof id, "absent.%u.%u", w->t, (unsigned)i);
    st = sdui_pack_get(w->rs->pack, id, (size_t)n, &t, &err);
    if (st != SDUI_NOT_FOUND || t)
        fail(w, "get %s: %s, expected not-found", id, sdui_status_name(st));
    sdui_token_release(t);
}

/* The root's members, as written. */
static void op_member(worker *w)
{
    const fixture *fx = w->rs->fx;
    const char *v = NULL;
    size_t len = 0, want = strlen(fx->screens) - 1; /* without the '}' */
    sdui_error err;
    sdui_status st = sdui_pack_member(w->rs->pack, "screens", &v, &len, &err);
    if (st != SDUI_OK || len != want || memcmp(v, fx->screens, len))
        fail(w, "member screens: %s", sdui_status_name(st));
    st = sdui_pack_member(w->rs->pack, "name", &v, &len, &err);
    if (st != SDUI_OK || len != 11 || memcmp(v, "\"race test\"", 11))
        fail(w, "member name: %s", sdui_status_name(st));
    st = sdui_pack_member(w->rs->pack, "formatVersion", &v, &len, &err);
    if (st != SDUI_OK || len != 1 || v[0] != '1')
        fail(w, "member formatVersion: %s", sdui_status_name(st));
    /* "tokens" spans every member, so it inflates them all (rarely, as
     * the whole JSON, to leave the others something lazy): whole, or the
     * damaged member's error. */
    if (next(w) % 8 == 0) {
        const char *at = strstr(fx->doc, "\"tokens\":[") + 9;
        st = sdui_pack_member(w->rs->pack, "tokens", &v, &len, &err);
        if (w->rs->dmg ? st != SDUI_GZIP
                       : st != SDUI_OK || len != fx->tokens_len ||
                             memcmp(v, at, len) != 0)
            fail(w, "member tokens: %s, %zu bytes", sdui_status_name(st),
                 len);
    }
    st = sdui_pack_member(w->rs->pack, "nope", &v, &len, &err);
    if (st != SDUI_NOT_FOUND)
        fail(w, "member nope: %s", sdui_status_name(st));
}

/* The counts: fixed ones fixed, members inflated only growing and never
 * past the members (the damaged one never counts). */
static void op_info(worker *w)
{
    const fixture *fx = w->rs->fx;
    sdui_pack_info info;
    unsigned most = fx->members - (w->rs->dmg ? 1 : 0);
    sdui_pack_get_info(w->rs->pack, &info);
    if (info.tokens != TOKENS || info.members != fx->members ||
        !info.seekable || info.raw_bytes != fx->doc_len ||
        info.compressed_bytes != fx->gz_len)
        fail(w, "info: %zu tokens, %u members, %zu bytes", info.tokens,
             info.members, info.raw_bytes);
    if (info.members_inflated < 2 || info.members_inflated > most ||
        info.members_inflated < w->last_inflated)
        fail(w, "info: %u members inflated (before: %u, at most %u)",
             info.members_inflated, w->last_inflated, most);
    w->last_inflated = info.members_inflated;
}

/* The whole JSON: the document, or NULL when a member is damaged. */
static void op_json(worker *w)
{
    const fixture *fx = w->rs->fx;
    size_t len = 1;
    const char *j = sdui_pack_json(w->rs->pack, &len);
    if (w->rs->dmg) {
        if (j || len)
            fail(w, "json of a damaged pack: not NULL");
    } else if (!j || len != fx->doc_len || memcmp(j, fx->doc, len))
        fail(w, "json: %s, %zu bytes", j ? "differs" : "NULL", len);
}

/* Runs op on the pack. */
static void run_op(worker *w, int op)
{
    switch (op) {
    case OP_GET: op_get(w, pick(w)); break;
    case OP_ID_AT: op_id_at(w, (size_t)(next(w) % TOKENS)); break;
    case OP_CONTAINS: op_contains(w, pick(w)); break;
    case OP_ABSENT: op_absent(w, pick(w)); break;
    case OP_MEMBER: op_member(w); break;
    case OP_INFO: op_info(w); break;
    default: op_json(w); break;
    }
    w->calls++;
}

/*
 * Thread body.  Thread t's first call is op t mod NOPS, and half its calls
 * are that op; the others are drawn from the rest (the whole JSON rarely:
 * it inflates every member, which would leave the others nothing lazy).
 */
static void *worker_main(void *arg)
{
    worker *w = arg;
    int mine = (int)(w->t % NOPS), k;
    pthread_barrier_wait(&w->rs->start);
    run_op(w, mine);
    for (k = 1; k < OPS; k++) {
        uint64_t r = next(w);
        int op;
        if (r & 1)
            op = mine;
        else {
            op = (int)((r >> 1) % (NOPS - 1)); /* OP_JSON excluded */
            if (op == OP_GET && (r >> 8) % 64 == 0)
                op = OP_JSON;
        }
        if (op == OP_JSON && mine == OP_JSON && k % 8)
            op = OP_GET; /* the JSON thread: the whole once in 8 calls */
        run_op(w, op);
    }
    return NULL;
}

/*
 * One round on a pack just opened: THREADS threads from one barrier; then,
 * on this thread, each member inflated at most once, every token as
 * expected, and then every member inflated exactly once.
 */
static void race_round(const fixture *fx, const damage *dmg, sdui_pack *pack,
                       unsigned round, const char *what)
{
    static round_state rs; /* large: not on the stack */
    pthread_t th[THREADS];
    worker ws[THREADS];
    sdui_pack_info info;
    unsigned long failures = 0, calls = 0;
    const char *first = NULL;
    unsigned t;
    size_t i;

    rs.fx = fx;
    rs.dmg = dmg;
    rs.pack = pack;
    rs.round = round;
    for (i = 0; i < TOKENS; i++)
        atomic_init(&rs.seen[i], NULL);
    sdui_pack_get_info(pack, &info);
    CHECKF(info.members_inflated == 2, "%s round %u: %u members inflated "
           "at open", what, round, info.members_inflated);
    pthread_barrier_init(&rs.start, NULL, THREADS);
    for (t = 0; t < THREADS; t++) {
        memset(&ws[t], 0, sizeof ws[t]);
        ws[t].rs = &rs;
        ws[t].t = t;
        ws[t].rng = 0x9e3779b97f4a7c15ULL * (round * THREADS + t + 1);
        ws[t].last_inflated = 2;
        pthread_create(&th[t], NULL, worker_main, &ws[t]);
    }
    for (t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        failures += ws[t].failures;
        calls += ws[t].calls;
        if (!first && ws[t].failures)
            first = ws[t].first;
    }
    pthread_barrier_destroy(&rs.start);
    CHECKF(failures == 0, "%s: %lu of %lu calls failed; first: %s", what,
           failures, calls, first ? first : "");
    CHECK_EQ_INT(calls, THREADS * OPS);
    sdui_pack_get_info(pack, &info);
    CHECKF(info.members_inflated <= fx->members,
           "%s round %u: %u members inflated of %u", what, round,
           info.members_inflated, fx->members);
    /* Then all of it on this thread: the threads left nothing behind. */
    {
        worker w;
        memset(&w, 0, sizeof w);
        w.rs = &rs;
        w.t = THREADS;
        w.last_inflated = 2;
        for (i = 0; i < TOKENS; i++) {
            op_get(&w, i);
            op_id_at(&w, i);
        }
        op_json(&w);
        op_info(&w);
        CHECKF(w.failures == 0, "%s, after the threads: %lu failures; "
               "first: %s", what, w.failures, w.first);
    }
    sdui_pack_get_info(pack, &info);
    CHECKF(info.members_inflated == fx->members - (dmg ? 1 : 0),
           "%s round %u: %u members inflated of %u at the end", what, round,
           info.members_inflated, fx->members);
}

/* Writes bytes to a new temporary file; returns its path (static). */
static const char *to_file(const void *b, size_t n, const char *tag)
{
    static char path[96];
    FILE *f;
    snprintf(path, sizeof path, "/tmp/sdui-seek-race-%d-%s.gz", (int)getpid(),
             tag);
    f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n) {
        if (f)
            fclose(f);
        return NULL;
    }
    fclose(f);
    return path;
}

/* Opens gz from memory (path NULL) or from path; NULL when it fails. */
static sdui_pack *open_pack(const unsigned char *gz, size_t n,
                            const char *path)
{
    sdui_pack *p = NULL;
    sdui_error err;
    if (path)
        CHECK_STATUS(sdui_pack_open_file(path, NULL, &p, &err), SDUI_OK);
    else
        CHECK_STATUS(sdui_pack_open_memory(gz, n, NULL, &p, &err), SDUI_OK);
    return p;
}

/* Rounds of threads on fresh packs: from memory, from a file, damaged. */
int main(void)
{
    static fixture fx;
    static damage dmg;
    unsigned r;
    const char *path;
    char *dpath;

    if (!fixture_init(&fx))
        return check_summary();
    printf("%u members, %d tokens, %d threads\n", fx.members, TOKENS,
           THREADS);
    for (r = 0; r < ROUNDS; r++) {
        sdui_pack *p = open_pack(fx.gz, fx.gz_len, NULL);
        if (!p)
            break;
        race_round(&fx, NULL, p, r, "from memory");
        sdui_pack_free(p);
    }
    path = to_file(fx.gz, fx.gz_len, "ok");
    CHECK(path != NULL);
    for (r = 0; path && r < FILE_ROUNDS; r++) {
        sdui_pack *p = open_pack(NULL, 0, path);
        if (!p)
            break;
        race_round(&fx, NULL, p, r, "from a file");
        sdui_pack_free(p);
    }
    if (path)
        unlink(path);
    if (damage_init(&fx, &dmg)) {
        printf("member %u damaged: %zu tokens fail with \"%s\"\n",
               dmg.member + 1, dmg.nbad, dmg.error.message);
        path = to_file(dmg.gz, dmg.gz_len, "bad");
        dpath = path ? strdup(path) : NULL;
        CHECK(dpath != NULL);
        for (r = 0; r < BAD_ROUNDS; r++) {
            sdui_pack *p = open_pack(dmg.gz, dmg.gz_len,
                                     r % 2 && dpath ? dpath : NULL);
            if (!p)
                break;
            race_round(&fx, &dmg, p, r,
                       r % 2 ? "damaged, from a file" : "damaged, from memory");
            sdui_pack_free(p);
        }
        if (dpath)
            unlink(dpath);
        free(dpath);
    }
    free(dmg.gz);
    fixture_free(&fx);
    return check_summary();
}
