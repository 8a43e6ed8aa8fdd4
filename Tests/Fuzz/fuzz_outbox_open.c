/*
 * fuzz_outbox_open.c - libFuzzer harness for sdui_outbox_open on hostile
 * database files.
 *
 * The input bytes become the outbox file (one folder per process, emptied
 * before each input, on /dev/shm when there is one), which is opened with
 * small bounds (4 items, 64 bytes, 40 bytes an item) and no fsync, and
 * then used as a flow and its sender would: the state rows read, the
 * queue peeked, stats, a commit of two state rows and three items (over
 * the bounds: it must drop), a commit refused for a too-large item, an
 * ack of the first two items, the reads again, and close.  Nothing may
 * crash, leak or hit undefined behaviour, and these must hold:
 *   - every failure fills err (status, message); a successful open
 *     leaves err clear;
 *   - a peek returns seqs that strictly increase, bytes NUL-terminated;
 *   - after a successful commit the queue is within its bounds, next_seq
 *     went up by the items appended, and a state row reads back as written
 *     (unless a later call reset the file);
 *   - a refused commit (SDUI_LIMIT) changes nothing the stats show;
 *   - a call that reports "damaged and was reset" leaves an empty,
 *     working outbox behind it;
 *   - an open refused because the file is not an outbox ("left
 *     untouched") leaves the input byte for byte and moves nothing aside;
 *   - an open that moved a damaged file aside says so
 *     (sdui_outbox_recovery names the new path) and that file holds the
 *     input byte for byte; an open that did not moved nothing aside.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 *
 * Seeds (Tests/Fuzz/seeds/outbox_open/) are outbox files of schema
 * version 1 with 512-byte pages, made by SQLite running the schema text of
 * outbox.c, then filled and some changed on purpose: fresh (no rows),
 * rows (two state rows, three items, next_seq 4), over_bounds (six items
 * of 30 bytes, dropped 2), big_item (one item of 100 bytes), text_item (an
 * item stored as TEXT, two-byte characters, check constraints ignored),
 * next_seq_behind (2, items up to 3), next_seq_limit (2^62 - 2),
 * negative_dropped, real_next_seq (4.5), no_counters (the row deleted),
 * newer_schema (user_version 2), foreign (another program's table), and
 * an empty file.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sdui/sdui.h"

/* Aborts (a crash for libFuzzer) when an invariant does not hold. */
#define REQUIRE(c)                                                          \
    do {                                                                    \
        if (!(c)) {                                                         \
            fprintf(stderr, "%s:%d: REQUIRE(%s) failed\n", __FILE__,        \
                    __LINE__, #c);                                          \
            abort();                                                        \
        }                                                                   \
    } while (0)

#define MAX_ITEMS 4
#define MAX_BYTES 64
#define MAX_ITEM_BYTES 40

#include "fuzz_folder.h"

/* Checks a failed call's error record. */
static void check_failure(sdui_status st, const sdui_error *err)
{
    REQUIRE(st != SDUI_OK);
    REQUIRE(err->status == st);
    REQUIRE(err->message[0] != '\0');
    REQUIRE(st == SDUI_SQLITE || st == SDUI_IO || st == SDUI_OOM);
}

/* Set when a call reset the file (what was written before is gone). */
static int reset_seen;

/* The stats, or 0 when they fail (checked as any call). */
static int stats(sdui_outbox *box, sdui_outbox_stats *s);

/*
 * After each call: a failure is well formed, and one that reset the
 * outbox leaves an empty, working outbox.
 */
static void after_call(sdui_outbox *box, sdui_status st,
                       const sdui_error *err)
{
    if (st == SDUI_OK) {
        REQUIRE(err->status == SDUI_OK);
        return;
    }
    check_failure(st, err);
    if (st == SDUI_SQLITE && strstr(err->message, "damaged and was reset")) {
        sdui_outbox_stats s;
        reset_seen = 1;
        REQUIRE(sdui_outbox_recovered(box) == 1);
        REQUIRE(stats(box, &s) && s.items == 0 && s.bytes == 0 &&
                s.next_seq == 1);
    }
}

/* The stats, or 0 when they fail (checked as any call). */
static int stats(sdui_outbox *box, sdui_outbox_stats *s)
{
    sdui_error err;
    sdui_status st = sdui_outbox_stats_get(box, s, &err);
    if (st != SDUI_OK) {
        after_call(box, st, &err);
        return 0;
    }
    REQUIRE(err.status == SDUI_OK);
    REQUIRE(s->next_seq >= 1);
    REQUIRE(s->items > 0 || s->bytes == 0);
    return 1;
}

/* Reads a state row: a NUL-terminated copy, or NOT_FOUND. */
static void read_state(sdui_outbox *box, const char *key)
{
    void *v = (void *)1;
    size_t len = 7;
    sdui_error err;
    sdui_status st = sdui_outbox_state_get(box, key, &v, &len, &err);
    if (st == SDUI_NOT_FOUND) {
        REQUIRE(v == NULL && len == 0 && strstr(err.message, key));
        return;
    }
    after_call(box, st, &err);
    if (st != SDUI_OK) {
        REQUIRE(v == NULL && len == 0);
        return;
    }
    REQUIRE(v != NULL && ((const char *)v)[len] == '\0');
    sdui_free(v);
}

/* Peeks the whole queue; seqs strictly increase, bytes NUL-terminated.
 * Keeps the first two seqs in seqs (0 when absent); returns the count. */
static size_t peek_all(sdui_outbox *box, int64_t seqs[2])
{
    sdui_outbox_batch *b = (sdui_outbox_batch *)1;
    sdui_error err;
    sdui_status st = sdui_outbox_peek(box, 0, 0, &b, &err);
    size_t i, n;
    seqs[0] = seqs[1] = 0;
    after_call(box, st, &err);
    if (st != SDUI_OK) {
        REQUIRE(b == NULL);
        return 0;
    }
    n = sdui_outbox_batch_count(b);
    for (i = 0; i < n; i++) {
        size_t len;
        const char *p = sdui_outbox_batch_bytes(b, i, &len);
        REQUIRE(p != NULL && p[len] == '\0');
        REQUIRE(sdui_outbox_batch_seq(b, i) >= 1);
        if (i)
            REQUIRE(sdui_outbox_batch_seq(b, i) >
                    sdui_outbox_batch_seq(b, i - 1));
        if (i < 2)
            seqs[i] = sdui_outbox_batch_seq(b, i);
    }
    REQUIRE(sdui_outbox_batch_bytes(b, n, NULL) == NULL);
    sdui_outbox_batch_free(b);
    /* A byte bound of 1 still hands out the oldest item. */
    st = sdui_outbox_peek(box, 3, 1, &b, &err);
    after_call(box, st, &err);
    if (st == SDUI_OK) {
        size_t got = sdui_outbox_batch_count(b);
        REQUIRE(((got == 0) == (n == 0) && got <= 3) || reset_seen);
        sdui_outbox_batch_free(b);
    }
    return n;
}

/* A commit of two state rows and three items of 30 bytes (90: over the
 * 64-byte bound), reporting one drop; then its checks. */
static void commit_some(sdui_outbox *box)
{
    static const char item[31] = "{\"event\":\"screen_view\",\"n\":1}";
    sdui_outbox_state s[2] = {{"progress", "{\"screen\":3}", 12},
                              {"gone", NULL, 0}};
    sdui_outbox_item it[3] = {{item, 30}, {item, 30}, {item, 30}};
    sdui_outbox_stats before, after;
    sdui_error err;
    int64_t first = -1;
    int had = stats(box, &before);
    sdui_status st = sdui_outbox_commit(box, s, 2, it, 3, 1, &first, &err);
    after_call(box, st, &err);
    if (st != SDUI_OK) {
        REQUIRE(first == -1);
        return;
    }
    REQUIRE(first >= 1);
    if (stats(box, &after)) {
        REQUIRE(after.items <= MAX_ITEMS && after.bytes <= MAX_BYTES);
        REQUIRE(after.next_seq == first + 3);
        if (had && !reset_seen)
            REQUIRE(after.dropped_total >= before.dropped_total + 1);
    }
    if (!reset_seen) {
        void *v = NULL;
        size_t len = 0;
        st = sdui_outbox_state_get(box, "progress", &v, &len, &err);
        after_call(box, st, &err);
        if (st == SDUI_OK)
            REQUIRE(len == 12 && memcmp(v, "{\"screen\":3}", 12) == 0);
        sdui_free(v);
    }
}

/* A commit refused for an item over max_item_bytes: nothing changes. */
static void commit_too_large(sdui_outbox *box)
{
    static char big[MAX_ITEM_BYTES + 1];
    sdui_outbox_state s = {"progress", "x", 1};
    sdui_outbox_item it = {big, sizeof big};
    sdui_outbox_stats before, after;
    sdui_error err;
    int had = stats(box, &before);
    sdui_status st = sdui_outbox_commit(box, &s, 1, &it, 1, 0, NULL, &err);
    REQUIRE(st == SDUI_LIMIT && err.status == SDUI_LIMIT);
    if (had && stats(box, &after) && !reset_seen)
        REQUIRE(after.items == before.items && after.bytes == before.bytes &&
                after.next_seq == before.next_seq);
}

/* libFuzzer entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sdui_outbox_options o;
    sdui_outbox_stats s;
    sdui_outbox *box = (sdui_outbox *)1;
    sdui_error err;
    sdui_status st;
    int64_t seqs[2];
    char moved[600], notice[1024];

    if (!fuzz_dir[0])
        fuzz_folder_make("fuzz_outbox_open", "outbox.db");
    fuzz_folder_empty();
    fuzz_write_input(data, size);
    reset_seen = 0;

    sdui_outbox_options_default(&o);
    o.max_items = MAX_ITEMS;
    o.max_bytes = MAX_BYTES;
    o.max_item_bytes = MAX_ITEM_BYTES;
    o.synchronous = 1;
    st = sdui_outbox_open(fuzz_file, &o, &box, &err);
    if (st != SDUI_OK) {
        check_failure(st, &err);
        REQUIRE(box == NULL);
        if (strstr(err.message, "left untouched")) {
            REQUIRE(file_is(fuzz_file, data, size));
            REQUIRE(!moved_file(moved, sizeof moved));
        }
        return 0;
    }
    REQUIRE(box != NULL);
    REQUIRE(err.status == SDUI_OK && err.message[0] == '\0');
    if (sdui_outbox_recovered(box)) {
        REQUIRE(moved_file(moved, sizeof moved));
        REQUIRE(file_is(moved, data, size));
        REQUIRE(sdui_outbox_recovery(box, notice, sizeof notice) > 0);
        REQUIRE(strstr(notice, moved) != NULL);
    } else {
        REQUIRE(!moved_file(moved, sizeof moved));
        REQUIRE(sdui_outbox_recovery(box, notice, sizeof notice) == 0);
    }

    read_state(box, "progress");
    read_state(box, "k");
    (void)peek_all(box, seqs);
    (void)stats(box, &s);
    commit_some(box);
    commit_too_large(box);
    if (peek_all(box, seqs) >= 2) {
        st = sdui_outbox_ack(box, seqs, 2, &err);
        after_call(box, st, &err);
    }
    commit_some(box);
    read_state(box, "progress");
    read_state(box, "gone");
    (void)peek_all(box, seqs);
    (void)stats(box, &s);
    sdui_outbox_free(box);
    return 0;
}
