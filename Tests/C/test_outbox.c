/*
 * test_outbox.c - the durable queue (outbox.h) on real files: commits of
 * state rows and items, peek and ack, seqs across deletes and reopening,
 * state rows put, replaced, deleted and missing, the bounds and the
 * dropped counters, refused items leaving nothing written, peek's
 * slicing, a commit failing on a full disk leaving the file as it was,
 * NULL arguments, damaged files moved aside (and saying where), files
 * that are not outboxes refused with every byte kept, counters damaged
 * while open, a newer schema left untouched, two threads on one handle, two
 * handles and two processes on one file, and a writer SIGKILLed at random
 * moments with every reported commit checked whole afterwards.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "sqlite_raw.h"
#include "sdui/sdui.h"

/* Opens an outbox with the given bounds (0: default) and no fsync. */
static sdui_status open_box(const char *p, size_t max_items,
                            size_t max_bytes, size_t max_item_bytes,
                            sdui_outbox **box, sdui_error *err)
{
    sdui_outbox_options o;
    sdui_outbox_options_default(&o);
    o.max_items = max_items;
    o.max_bytes = max_bytes;
    o.max_item_bytes = max_item_bytes;
    o.synchronous = 1;
    return sdui_outbox_open(p, &o, box, err);
}

/* Commits one state row (value NULL: delete; "" is an empty value) and
 * the NUL-terminated items of a NULL-terminated list. */
static sdui_status commit_strs(sdui_outbox *box, const char *key,
                               const char *value, const char *const *strs,
                               uint64_t reported, int64_t *first,
                               sdui_error *err)
{
    sdui_outbox_item items[64];
    sdui_outbox_state s;
    size_t n = 0;
    s.key = key;
    s.value = value;
    s.len = value ? strlen(value) : 0;
    while (strs && strs[n]) {
        items[n].bytes = strs[n];
        items[n].len = strlen(strs[n]);
        n++;
    }
    return sdui_outbox_commit(box, &s, key ? 1 : 0, items, n, reported,
                              first, err);
}

/* Reads state row key into buf as text; the status of the read. */
static sdui_status get_str(sdui_outbox *box, const char *key, char *buf,
                           size_t cap)
{
    void *v = NULL;
    size_t len = 0;
    sdui_error err;
    sdui_status st = sdui_outbox_state_get(box, key, &v, &len, &err);
    buf[0] = '\0';
    if (st == SDUI_OK)
        snprintf(buf, cap, "%.*s", (int)len, (const char *)v);
    sdui_free(v);
    return st;
}

/* The stats, or zeros when they fail. */
static sdui_outbox_stats stats_of(sdui_outbox *box)
{
    sdui_outbox_stats s;
    sdui_error err;
    if (sdui_outbox_stats_get(box, &s, &err) != SDUI_OK)
        CHECKF(0, "stats: %s", err.message);
    return s;
}

/* Checks that the queue holds exactly the NUL-terminated items of a
 * NULL-terminated list, in order, with seqs strictly increasing. */
static void check_queue(sdui_outbox *box, const char *const *want)
{
    sdui_outbox_batch *b = NULL;
    sdui_error err;
    size_t i, n = 0;
    while (want[n])
        n++;
    CHECK_STATUS(sdui_outbox_peek(box, 0, 0, &b, &err), SDUI_OK);
    if (!b)
        return;
    CHECKF(sdui_outbox_batch_count(b) == n, "queue holds %zu, not %zu",
           sdui_outbox_batch_count(b), n);
    for (i = 0; i < n && i < sdui_outbox_batch_count(b); i++) {
        size_t len;
        const char *got = sdui_outbox_batch_bytes(b, i, &len);
        CHECKF(len == strlen(want[i]) && memcmp(got, want[i], len) == 0,
               "item %zu is \"%.*s\", not \"%s\"", i, (int)len, got, want[i]);
        CHECK(got[len] == '\0');
        if (i)
            CHECK(sdui_outbox_batch_seq(b, i) >
                  sdui_outbox_batch_seq(b, i - 1));
    }
    sdui_outbox_batch_free(b);
}

/* Commit, peek and ack round trip; WAL mode and the schema version. */
static void test_round_trip(void)
{
    char p[512], buf[64];
    const char *const three[] = {"{\"e\":1}", "{\"e\":2}", "{\"e\":3}", NULL};
    const char *const last[] = {"{\"e\":3}", NULL};
    const char *const none[] = {NULL};
    sdui_outbox *box;
    sdui_outbox_batch *b;
    sdui_outbox_stats s;
    sdui_error err;
    int64_t first = -1, seqs[2];

    snprintf(p, sizeof p, "%s", test_path("round.db"));
    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_recovered(box), 0);
    s = stats_of(box);
    CHECK_EQ_INT(s.items, 0);
    CHECK_EQ_INT(s.next_seq, 1);
    CHECK_STATUS(sdui_outbox_peek(box, 10, 1000, &b, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_batch_count(b), 0);
    sdui_outbox_batch_free(b);

    CHECK_STATUS(commit_strs(box, "flow", "{\"screen\":2}", three, 0, &first,
                             &err),
                 SDUI_OK);
    CHECK_EQ_INT(first, 1);
    CHECK_STATUS(get_str(box, "flow", buf, sizeof buf), SDUI_OK);
    CHECK_EQ_STR(buf, "{\"screen\":2}");
    check_queue(box, three);
    s = stats_of(box);
    CHECK_EQ_INT(s.items, 3);
    CHECK_EQ_INT(s.bytes, 21);
    CHECK_EQ_INT(s.next_seq, 4);
    CHECK_EQ_INT(s.dropped, 0);

    CHECK_STATUS(sdui_outbox_peek(box, 2, 0, &b, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_batch_count(b), 2);
    seqs[0] = sdui_outbox_batch_seq(b, 0);
    seqs[1] = sdui_outbox_batch_seq(b, 1);
    CHECK_EQ_INT(seqs[0], 1);
    CHECK_EQ_INT(seqs[1], 2);
    sdui_outbox_batch_free(b);
    CHECK_STATUS(sdui_outbox_ack(box, seqs, 2, &err), SDUI_OK);
    check_queue(box, last);
    /* Acking again, or seqs never given, changes nothing. */
    CHECK_STATUS(sdui_outbox_ack(box, seqs, 2, &err), SDUI_OK);
    seqs[0] = 999;
    seqs[1] = -5;
    CHECK_STATUS(sdui_outbox_ack(box, seqs, 2, &err), SDUI_OK);
    CHECK_STATUS(sdui_outbox_ack(box, NULL, 0, &err), SDUI_OK);
    check_queue(box, last);
    seqs[0] = 3;
    CHECK_STATUS(sdui_outbox_ack(box, seqs, 1, &err), SDUI_OK);
    check_queue(box, none);
    s = stats_of(box);
    CHECK_EQ_INT(s.items, 0);
    CHECK_EQ_INT(s.bytes, 0);
    CHECK_EQ_INT(s.next_seq, 4);
    sdui_outbox_free(box);

    raw_value(p, "PRAGMA journal_mode", buf, sizeof buf);
    CHECK_EQ_STR(buf, "wal");
    raw_value(p, "PRAGMA user_version", buf, sizeof buf);
    CHECK_EQ_INT(atoi(buf), SDUI_OUTBOX_SCHEMA_VERSION);

    /* Items survive closing; so does the state. */
    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(box, NULL, NULL, three, 0, &first, &err),
                 SDUI_OK);
    CHECK_EQ_INT(first, 4);
    sdui_outbox_free(box);
    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    check_queue(box, three);
    CHECK_STATUS(get_str(box, "flow", buf, sizeof buf), SDUI_OK);
    CHECK_EQ_STR(buf, "{\"screen\":2}");
    sdui_outbox_free(box);
}

/* Seqs strictly increase and are never reused: not after acks, not after
 * reopening with an empty queue, not after drops. */
static void test_seq_monotonic(void)
{
    char p[512];
    const char *const two[] = {"a", "b", NULL};
    sdui_outbox *box;
    sdui_outbox_batch *b;
    sdui_error err;
    int64_t first = 0, prev = 0, seqs[2];
    size_t n;
    int round;

    snprintf(p, sizeof p, "%s", test_path("seq.db"));
    for (round = 0; round < 5; round++) {
        CHECK_STATUS(open_box(p, 3, 0, 0, &box, &err), SDUI_OK);
        /* An empty commit tells the next seq and takes none. */
        CHECK_STATUS(sdui_outbox_commit(box, NULL, 0, NULL, 0, 0, &first,
                                        &err),
                     SDUI_OK);
        CHECK(first > prev);
        CHECK_EQ_INT(stats_of(box).next_seq, first);
        CHECK_STATUS(commit_strs(box, NULL, NULL, two, 0, &first, &err),
                     SDUI_OK);
        CHECK(first > prev);
        CHECK_STATUS(sdui_outbox_peek(box, 0, 0, &b, &err), SDUI_OK);
        /* The bound of 3 keeps older items of unacked rounds too. */
        n = sdui_outbox_batch_count(b);
        CHECK(n >= 2 && n <= 3);
        seqs[0] = sdui_outbox_batch_seq(b, n - 2);
        seqs[1] = sdui_outbox_batch_seq(b, n - 1);
        CHECK_EQ_INT(seqs[0], first);
        CHECK_EQ_INT(seqs[1], first + 1);
        sdui_outbox_batch_free(b);
        /* Every other round acks, and the next ones drop to the bound. */
        if (round % 2 == 0)
            CHECK_STATUS(sdui_outbox_ack(box, seqs, 2, &err), SDUI_OK);
        prev = seqs[1];
        CHECK_EQ_INT(stats_of(box).next_seq, prev + 1);
        sdui_outbox_free(box);
    }
    CHECK_EQ_INT(prev, 10);
}

/* State rows: put, replace, delete, read back; missing keys; key bounds;
 * values with NULs and empty values; a key twice in one commit. */
static void test_states(void)
{
    char p[512], buf[64], key[SDUI_OUTBOX_MAX_KEY_BYTES + 2];
    static const char nul_value[] = {'a', '\0', 'b'};
    sdui_outbox *box;
    sdui_outbox_state s[3];
    sdui_error err;
    void *v = (void *)1;
    size_t len = 9;

    snprintf(p, sizeof p, "%s", test_path("states.db"));
    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    CHECK_STATUS(sdui_outbox_state_get(box, "progress", &v, &len, &err),
                 SDUI_NOT_FOUND);
    CHECK_MSG_HAS("progress");
    CHECK_MSG_HAS(p);
    CHECK(v == NULL && len == 0);

    CHECK_STATUS(commit_strs(box, "progress", "1", NULL, 0, NULL, &err),
                 SDUI_OK);
    CHECK_STATUS(get_str(box, "progress", buf, sizeof buf), SDUI_OK);
    CHECK_EQ_STR(buf, "1");
    CHECK_STATUS(commit_strs(box, "progress", "22", NULL, 0, NULL, &err),
                 SDUI_OK);
    CHECK_STATUS(get_str(box, "progress", buf, sizeof buf), SDUI_OK);
    CHECK_EQ_STR(buf, "22");
    /* Deleting, and deleting what is not there. */
    CHECK_STATUS(commit_strs(box, "progress", NULL, NULL, 0, NULL, &err),
                 SDUI_OK);
    CHECK_STATUS(get_str(box, "progress", buf, sizeof buf), SDUI_NOT_FOUND);
    CHECK_STATUS(commit_strs(box, "never", NULL, NULL, 0, NULL, &err),
                 SDUI_OK);

    /* An empty value is a row; a value keeps its NULs; a key given twice:
     * the later wins, in order (put, delete, put). */
    s[0].key = "empty";
    s[0].value = "";
    s[0].len = 0;
    s[1].key = "nul";
    s[1].value = nul_value;
    s[1].len = sizeof nul_value;
    s[2].key = "empty";
    s[2].value = NULL;
    s[2].len = 0;
    CHECK_STATUS(sdui_outbox_commit(box, s, 3, NULL, 0, 0, NULL, &err),
                 SDUI_OK);
    CHECK_STATUS(get_str(box, "empty", buf, sizeof buf), SDUI_NOT_FOUND);
    CHECK_STATUS(sdui_outbox_commit(box, s, 2, NULL, 0, 0, NULL, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_outbox_state_get(box, "empty", &v, &len, &err),
                 SDUI_OK);
    CHECK(v != NULL && len == 0 && ((char *)v)[0] == '\0');
    sdui_free(v);
    CHECK_STATUS(sdui_outbox_state_get(box, "nul", &v, &len, &err), SDUI_OK);
    CHECK(len == 3 && memcmp(v, nul_value, 3) == 0 && ((char *)v)[3] == 0);
    sdui_free(v);

    /* Keys: 1024 bytes are fine, 1025 and empty are not (named). */
    memset(key, 'k', sizeof key);
    key[SDUI_OUTBOX_MAX_KEY_BYTES] = '\0';
    CHECK_STATUS(commit_strs(box, key, "long", NULL, 0, NULL, &err), SDUI_OK);
    CHECK_STATUS(get_str(box, key, buf, sizeof buf), SDUI_OK);
    CHECK_EQ_STR(buf, "long");
    key[SDUI_OUTBOX_MAX_KEY_BYTES] = 'k';
    key[SDUI_OUTBOX_MAX_KEY_BYTES + 1] = '\0';
    CHECK_STATUS(commit_strs(box, key, "x", NULL, 0, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("state 0");
    CHECK_MSG_HAS("1024");
    CHECK_STATUS(sdui_outbox_state_get(box, key, &v, &len, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(commit_strs(box, "", "x", NULL, 0, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("empty");
    CHECK_STATUS(sdui_outbox_state_get(box, "", &v, &len, &err),
                 SDUI_ARGUMENT);
    s[0].key = "ok";
    s[0].value = "1";
    s[0].len = 1;
    s[1].key = NULL;
    CHECK_STATUS(sdui_outbox_commit(box, s, 2, NULL, 0, 0, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("state 1");
    CHECK_STATUS(get_str(box, "ok", buf, sizeof buf), SDUI_NOT_FOUND);
    sdui_outbox_free(box);

    /* Rows survive reopening. */
    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    CHECK_STATUS(sdui_outbox_state_get(box, "nul", &v, &len, &err), SDUI_OK);
    CHECK(len == 3 && memcmp(v, nul_value, 3) == 0);
    sdui_free(v);
    sdui_outbox_free(box);
}

/* The bounds drop the oldest items and count them; dropped_reported
 * subtracts (not below 0); dropped_total only grows. */
static void test_bounds(void)
{
    char p[512];
    const char *const four[] = {"i1", "i2", "i3", "i4", NULL};
    const char *const two[] = {"i5", "i6", NULL};
    const char *const kept[] = {"i3", "i4", "i5", "i6", NULL};
    const char *const big[] = {"0123456789", "abcdefghij", NULL};
    const char *const after_big[] = {"i6", "0123456789", "abcdefghij", NULL};
    const char *const seven[] = {"s1", "s2", "s3", "s4", "s5", "s6", "s7",
                                 NULL};
    const char *const last4[] = {"s4", "s5", "s6", "s7", NULL};
    sdui_outbox *box;
    sdui_outbox_stats s;
    sdui_error err;
    int64_t first = 0;

    snprintf(p, sizeof p, "%s", test_path("bounds.db"));
    CHECK_STATUS(open_box(p, 4, 30, 0, &box, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(box, NULL, NULL, four, 0, NULL, &err), SDUI_OK);
    CHECK_EQ_INT(stats_of(box).dropped, 0);
    CHECK_STATUS(commit_strs(box, NULL, NULL, two, 0, &first, &err), SDUI_OK);
    CHECK_EQ_INT(first, 5);
    check_queue(box, kept);
    s = stats_of(box);
    CHECK_EQ_INT(s.items, 4);
    CHECK_EQ_INT(s.bytes, 8);
    CHECK_EQ_INT(s.dropped, 2);
    CHECK_EQ_INT(s.dropped_total, 2);

    /* 6 items: two more dropped, 24 bytes left; then 44 bytes: the
     * byte bound drops a third, and exactly 30 bytes stay. */
    CHECK_STATUS(commit_strs(box, NULL, NULL, big, 0, NULL, &err), SDUI_OK);
    check_queue(box, (const char *const[]){"i5", "i6", "0123456789",
                                           "abcdefghij", NULL});
    s = stats_of(box);
    CHECK_EQ_INT(s.bytes, 24);
    CHECK_EQ_INT(s.dropped, 4);
    CHECK_STATUS(commit_strs(box, NULL, NULL, big, 0, NULL, &err), SDUI_OK);
    check_queue(box, (const char *const[]){"abcdefghij", "0123456789",
                                           "abcdefghij", NULL});
    s = stats_of(box);
    CHECK_EQ_INT(s.items, 3);
    CHECK_EQ_INT(s.bytes, 30);
    CHECK_EQ_INT(s.dropped, 7);
    CHECK_EQ_INT(s.dropped_total, 7);

    /* The report of the 7 drops goes in the same commit as its item,
     * which itself drops one more. */
    {
        const char *const report[] = {"i6", NULL};
        CHECK_STATUS(commit_strs(box, NULL, NULL, report, 7, NULL, &err),
                     SDUI_OK);
    }
    s = stats_of(box);
    CHECK_EQ_INT(s.dropped, 1);
    CHECK_EQ_INT(s.dropped_total, 8);
    check_queue(box, (const char *const[]){"0123456789", "abcdefghij", "i6",
                                           NULL});
    /* Reporting more than there is saturates at 0. */
    CHECK_STATUS(sdui_outbox_commit(box, NULL, 0, NULL, 0, 1000, NULL, &err),
                 SDUI_OK);
    s = stats_of(box);
    CHECK_EQ_INT(s.dropped, 0);
    CHECK_EQ_INT(s.dropped_total, 8);
    CHECK_STATUS(commit_strs(box, NULL, NULL, big, 0, NULL, &err), SDUI_OK);
    check_queue(box, after_big);
    s = stats_of(box);
    CHECK_EQ_INT(s.dropped, 2);
    CHECK_EQ_INT(s.dropped_total, 10);
    sdui_outbox_free(box);

    /* One commit alone over the bound drops its own oldest items; the
     * counters survive reopening. */
    snprintf(p, sizeof p, "%s", test_path("bounds-one.db"));
    CHECK_STATUS(open_box(p, 4, 0, 0, &box, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(box, NULL, NULL, seven, 0, &first, &err),
                 SDUI_OK);
    CHECK_EQ_INT(first, 1);
    check_queue(box, last4);
    sdui_outbox_free(box);
    CHECK_STATUS(open_box(p, 4, 0, 0, &box, &err), SDUI_OK);
    s = stats_of(box);
    CHECK_EQ_INT(s.dropped, 3);
    CHECK_EQ_INT(s.dropped_total, 3);
    CHECK_EQ_INT(s.next_seq, 8);
    sdui_outbox_free(box);
    /* Reopened with a smaller bound: the next commit enforces it. */
    CHECK_STATUS(open_box(p, 2, 0, 0, &box, &err), SDUI_OK);
    CHECK_STATUS(sdui_outbox_commit(box, NULL, 0, NULL, 0, 0, NULL, &err),
                 SDUI_OK);
    check_queue(box, (const char *const[]){"s6", "s7", NULL});
    CHECK_EQ_INT(stats_of(box).dropped, 5);
    sdui_outbox_free(box);
}

/*
 * The totals a handle carries from commit to commit follow the rows: items
 * appended by another handle on the same file, and items acked, count in
 * the next commit's bounds.
 */
static void test_totals_follow_rows(void)
{
    char p[512];
    const char *const two[] = {"a1", "a2", NULL};
    const char *const five[] = {"b1", "b2", "b3", "b4", "b5", NULL};
    const char *const one[] = {"a3", NULL};
    sdui_outbox *a, *b;
    sdui_outbox_stats s;
    sdui_error err;
    int64_t seqs[2] = {6, 7};

    snprintf(p, sizeof p, "%s", test_path("totals.db"));
    CHECK_STATUS(open_box(p, 3, 0, 0, &a, &err), SDUI_OK);
    CHECK_STATUS(open_box(p, 100, 0, 0, &b, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(a, NULL, NULL, two, 0, NULL, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(b, NULL, NULL, five, 0, NULL, &err), SDUI_OK);
    CHECK_EQ_INT(stats_of(a).items, 7);
    /* a's next commit sees b's five items: 8 items, 5 dropped. */
    CHECK_STATUS(commit_strs(a, NULL, NULL, one, 0, NULL, &err), SDUI_OK);
    check_queue(a, (const char *const[]){"b4", "b5", "a3", NULL});
    s = stats_of(a);
    CHECK_EQ_INT(s.dropped, 5);
    /* An ack of two (b4, b5) leaves one; two more fit the bound of 3. */
    CHECK_STATUS(sdui_outbox_ack(a, seqs, 2, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(a, NULL, NULL, two, 0, NULL, &err), SDUI_OK);
    check_queue(a, (const char *const[]){"a3", "a1", "a2", NULL});
    CHECK_EQ_INT(stats_of(a).dropped, 5);
    /* Acks through b count too. */
    seqs[0] = 8;
    CHECK_STATUS(sdui_outbox_ack(b, seqs, 1, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(a, NULL, NULL, one, 0, NULL, &err), SDUI_OK);
    check_queue(a, (const char *const[]){"a1", "a2", "a3", NULL});
    CHECK_EQ_INT(stats_of(a).dropped, 5);
    sdui_outbox_free(a);
    sdui_outbox_free(b);
}

/* An item over max_item_bytes (or over max_bytes) fails the commit and
 * nothing of it is written, states included. */
static void test_item_limit(void)
{
    char p[512], buf[64], big[200];
    const char *const one[] = {"first", NULL};
    sdui_outbox *box;
    sdui_outbox_state s[2];
    sdui_outbox_item it[2];
    sdui_outbox_stats st;
    sdui_error err;
    int64_t first = 7;

    memset(big, 'x', sizeof big);
    snprintf(p, sizeof p, "%s", test_path("limit.db"));
    CHECK_STATUS(open_box(p, 0, 150, 100, &box, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(box, "progress", "1", one, 0, NULL, &err),
                 SDUI_OK);
    s[0].key = "progress";
    s[0].value = "2";
    s[0].len = 1;
    s[1].key = "other";
    s[1].value = "x";
    s[1].len = 1;
    it[0].bytes = "fine";
    it[0].len = 4;
    it[1].bytes = big;
    it[1].len = 101;
    CHECK_STATUS(sdui_outbox_commit(box, s, 2, it, 2, 0, &first, &err),
                 SDUI_LIMIT);
    CHECK_MSG_HAS("item 1");
    CHECK_MSG_HAS("101");
    CHECK_MSG_HAS("max_item_bytes");
    CHECK_EQ_INT(first, 7); /* left as it was */
    CHECK_STATUS(get_str(box, "progress", buf, sizeof buf), SDUI_OK);
    CHECK_EQ_STR(buf, "1");
    CHECK_STATUS(get_str(box, "other", buf, sizeof buf), SDUI_NOT_FOUND);
    check_queue(box, one);
    st = stats_of(box);
    CHECK_EQ_INT(st.next_seq, 2);
    /* Exactly max_item_bytes is fine. */
    it[1].len = 100;
    CHECK_STATUS(sdui_outbox_commit(box, s, 2, it, 2, 0, &first, &err),
                 SDUI_OK);
    CHECK_EQ_INT(first, 2);
    sdui_outbox_free(box);

    /* max_bytes below max_item_bytes bounds one item too. */
    snprintf(p, sizeof p, "%s", test_path("limit-bytes.db"));
    CHECK_STATUS(open_box(p, 0, 50, 100, &box, &err), SDUI_OK);
    it[1].len = 51;
    CHECK_STATUS(sdui_outbox_commit(box, s, 2, it, 2, 0, NULL, &err),
                 SDUI_LIMIT);
    CHECK_MSG_HAS("max_bytes");
    CHECK_STATUS(get_str(box, "progress", buf, sizeof buf), SDUI_NOT_FOUND);
    CHECK_EQ_INT(stats_of(box).items, 0);
    /* An item with NULL bytes and a length is refused, named. */
    it[1].bytes = NULL;
    it[1].len = 3;
    CHECK_STATUS(sdui_outbox_commit(box, s, 2, it, 2, 0, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("item 1");
    /* ... and with no length it is an empty item. */
    it[1].len = 0;
    CHECK_STATUS(sdui_outbox_commit(box, NULL, 0, it, 2, 0, NULL, &err),
                 SDUI_OK);
    check_queue(box, (const char *const[]){"fine", "", NULL});
    sdui_outbox_free(box);
}

/* Peek: at most max_items, stopping before max_bytes, at least one. */
static void test_peek_slicing(void)
{
    char p[512], big[300];
    const char *const items[] = {"aaaa", "bbbb", "cccc", "dddd", NULL};
    sdui_outbox *box;
    sdui_outbox_batch *b;
    sdui_outbox_item it;
    sdui_error err;
    size_t len = 5;

    snprintf(p, sizeof p, "%s", test_path("peek.db"));
    CHECK_STATUS(open_box(p, 0, 0, 0, &box, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(box, NULL, NULL, items, 0, NULL, &err), SDUI_OK);

    CHECK_STATUS(sdui_outbox_peek(box, 3, 0, &b, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_batch_count(b), 3);
    sdui_outbox_batch_free(b);
    CHECK_STATUS(sdui_outbox_peek(box, 0, 8, &b, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_batch_count(b), 2); /* exactly 8 bytes */
    sdui_outbox_batch_free(b);
    CHECK_STATUS(sdui_outbox_peek(box, 0, 11, &b, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_batch_count(b), 2); /* a third would be 12 */
    sdui_outbox_batch_free(b);
    CHECK_STATUS(sdui_outbox_peek(box, 1, 100, &b, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_batch_count(b), 1);
    CHECK_EQ_INT(sdui_outbox_batch_seq(b, 0), 1);
    /* Past the end: 0 and NULL. */
    CHECK_EQ_INT(sdui_outbox_batch_seq(b, 1), 0);
    CHECK(sdui_outbox_batch_bytes(b, 1, &len) == NULL && len == 0);
    sdui_outbox_batch_free(b);
    CHECK_STATUS(sdui_outbox_peek(box, 0, 0, &b, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_batch_count(b), 4);
    sdui_outbox_batch_free(b);

    /* At least one: the oldest item, larger than max_bytes, still comes. */
    memset(big, 'z', sizeof big);
    it.bytes = big;
    it.len = sizeof big;
    {
        int64_t seqs[4] = {1, 2, 3, 4};
        CHECK_STATUS(sdui_outbox_ack(box, seqs, 4, &err), SDUI_OK);
    }
    CHECK_STATUS(sdui_outbox_commit(box, NULL, 0, &it, 1, 0, NULL, &err),
                 SDUI_OK);
    CHECK_STATUS(commit_strs(box, NULL, NULL, items, 0, NULL, &err), SDUI_OK);
    CHECK_STATUS(sdui_outbox_peek(box, 10, 10, &b, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_batch_count(b), 1);
    CHECK(sdui_outbox_batch_bytes(b, 0, &len) != NULL && len == sizeof big);
    CHECK_EQ_INT(sdui_outbox_batch_seq(b, 0), 5);
    sdui_outbox_batch_free(b);
    /* Many items: the batch grows past its first blocks. */
    {
        static sdui_outbox_item many[500];
        size_t i;
        for (i = 0; i < 500; i++) {
            many[i].bytes = big;
            many[i].len = 1 + i % 200;
        }
        CHECK_STATUS(sdui_outbox_commit(box, NULL, 0, many, 500, 0, NULL,
                                        &err),
                     SDUI_OK);
        CHECK_STATUS(sdui_outbox_peek(box, 0, 0, &b, &err), SDUI_OK);
        CHECK_EQ_INT(sdui_outbox_batch_count(b), 505);
        for (i = 0; i < 500; i++) {
            const char *got = sdui_outbox_batch_bytes(b, i + 5, &len);
            if (!CHECK(len == 1 + i % 200 && memcmp(got, big, len) == 0 &&
                       got[len] == '\0'))
                break;
        }
        sdui_outbox_batch_free(b);
    }
    sdui_outbox_free(box);
}

/* NULL arguments: SDUI_ARGUMENT naming them; frees of NULL are no-ops. */
static void test_arguments(void)
{
    char p[512];
    sdui_outbox *box = (sdui_outbox *)1;
    sdui_outbox_batch *b = (sdui_outbox_batch *)1;
    sdui_outbox_stats s;
    sdui_outbox_options o;
    sdui_error err;
    void *v = NULL;
    size_t len;
    int64_t first = 5;

    snprintf(p, sizeof p, "%s", test_path("args.db"));
    CHECK_STATUS(sdui_outbox_open(NULL, NULL, &box, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("path is NULL");
    CHECK(box == (sdui_outbox *)1);
    CHECK_STATUS(sdui_outbox_open("", NULL, &box, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("path is empty");
    CHECK_STATUS(sdui_outbox_open(p, NULL, NULL, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("out is NULL");
    sdui_outbox_options_default(&o);
    o.synchronous = 2;
    CHECK_STATUS(sdui_outbox_open(p, &o, &box, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("synchronous");
    CHECK(box == (sdui_outbox *)1);
    CHECK_STATUS(sdui_outbox_open(test_dir, NULL, &box, &err), SDUI_SQLITE);
    CHECK_MSG_HAS("is a directory");
    CHECK(box == NULL);

    /* A NULL handle: SDUI_ARGUMENT naming it, out-pointers untouched. */
    CHECK_STATUS(sdui_outbox_commit(NULL, NULL, 0, NULL, 0, 0, &first, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("box is NULL");
    CHECK_EQ_INT(first, 5);
    len = 77;
    CHECK_STATUS(sdui_outbox_state_get(NULL, "k", &v, &len, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("box is NULL");
    CHECK(v == NULL && len == 77);
    CHECK_STATUS(sdui_outbox_peek(NULL, 1, 1, &b, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("box is NULL");
    CHECK(b == (sdui_outbox_batch *)1);
    CHECK_STATUS(sdui_outbox_ack(NULL, NULL, 0, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("box is NULL");
    memset(&s, 0x5a, sizeof s);
    CHECK_STATUS(sdui_outbox_stats_get(NULL, &s, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("box is NULL");
    CHECK(s.next_seq == 0x5a5a5a5a5a5a5a5a);

    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    CHECK_STATUS(sdui_outbox_commit(box, NULL, 1, NULL, 0, 0, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("states");
    CHECK_STATUS(sdui_outbox_commit(box, NULL, 0, NULL, 2, 0, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("items");
    CHECK_STATUS(sdui_outbox_state_get(box, NULL, &v, &len, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("key is NULL");
    CHECK_STATUS(sdui_outbox_state_get(box, "k", NULL, &len, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("out is NULL");
    CHECK_STATUS(sdui_outbox_state_get(box, "k", &v, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_MSG_HAS("len is NULL");
    CHECK_STATUS(sdui_outbox_peek(box, 1, 1, NULL, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("out is NULL");
    CHECK_STATUS(sdui_outbox_ack(box, NULL, 3, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("seqs is NULL");
    CHECK_STATUS(sdui_outbox_stats_get(box, NULL, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("out is NULL");
    /* A NULL error record is fine everywhere. */
    CHECK(sdui_outbox_commit(box, NULL, 0, NULL, 0, 0, NULL, NULL) ==
          SDUI_OK);
    CHECK(sdui_outbox_state_get(box, "k", &v, &len, NULL) == SDUI_NOT_FOUND);
    CHECK(sdui_outbox_stats_get(box, NULL, NULL) == SDUI_ARGUMENT);
    CHECK_EQ_INT(stats_of(box).next_seq, 1);
    sdui_outbox_free(box);

    sdui_outbox_free(NULL);
    sdui_outbox_batch_free(NULL);
}

/* An outbox of a newer schema is refused and left untouched. */
static void test_newer_schema(void)
{
    char p[512], buf[64];
    sdui_outbox *box = (sdui_outbox *)1;
    sdui_error err;

    snprintf(p, sizeof p, "%s", test_path("newer.db"));
    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    sdui_outbox_free(box);
    /* What a later build's upgrade could have done. */
    CHECK(raw_exec(p, "PRAGMA journal_mode=DELETE; CREATE TABLE future(x);"
                      " INSERT INTO future VALUES(42);"
                      " PRAGMA user_version=7") == SQLITE_OK);
    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_SQLITE);
    CHECK(box == NULL);
    CHECK_MSG_HAS("newer version");
    CHECK_MSG_HAS(p);
    raw_value(p, "PRAGMA user_version", buf, sizeof buf);
    CHECK_EQ_STR(buf, "7");
    raw_value(p, "SELECT x FROM future", buf, sizeof buf);
    CHECK_EQ_STR(buf, "42");
    raw_value(p, "PRAGMA journal_mode", buf, sizeof buf);
    CHECK_EQ_STR(buf, "delete");
    CHECK(!moved_aside("newer.db"));
}

/* After a reset the outbox works again, empty. */
static void check_fresh(sdui_outbox *box)
{
    char buf[16];
    const char *const one[] = {"after", NULL};
    sdui_outbox_stats s;
    sdui_error err;
    int64_t first = 0;
    CHECK_STATUS(commit_strs(box, "k", "v", one, 0, &first, &err), SDUI_OK);
    CHECK_EQ_INT(first, 1);
    CHECK_STATUS(get_str(box, "k", buf, sizeof buf), SDUI_OK);
    check_queue(box, one);
    s = stats_of(box);
    CHECK_EQ_INT(s.items, 1);
    CHECK_EQ_INT(s.dropped_total, 0);
}

/*
 * Files that are not outboxes are refused at open, naming the path and
 * why, and keep every byte; nothing is moved aside: a text file, garbage,
 * another program's database (healthy, with an application_id, or with
 * the outbox's tables but none), and outbox-like files without the
 * application_id whose tables are not exactly the outbox's.
 */
static void test_foreign_files(void)
{
    static const struct {
        const char *sql; /* NULL: bytes */
        const char *why;
    } cases[] = {
        {NULL, "not a SQLite database"},
        {NULL, "not a SQLite database"},
        {"CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES('mine');",
         "tables of another program"},
        {"PRAGMA application_id=1234; CREATE TABLE t(x);",
         "application_id 1234"},
        /* The outbox's tables, a trigger of its own, no application_id. */
        {"CREATE TABLE state(key TEXT PRIMARY KEY NOT NULL, value BLOB NOT"
         " NULL) WITHOUT ROWID; CREATE TABLE items(seq INTEGER PRIMARY KEY"
         " NOT NULL, bytes BLOB NOT NULL CHECK(typeof(bytes)='blob'));"
         " CREATE TABLE counters(id INTEGER PRIMARY KEY CHECK(id=0),"
         " next_seq INTEGER NOT NULL, dropped INTEGER NOT NULL,"
         " dropped_total INTEGER NOT NULL); CREATE TRIGGER t AFTER INSERT"
         " ON items BEGIN DELETE FROM state; END; PRAGMA user_version=1;",
         "not the tables of that version"},
        /* Version 1 claimed over another table. */
        {"CREATE TABLE items(seq, bytes); PRAGMA user_version=1;",
         "not the tables of that version"},
    };
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char p[512], name[32];
        sdui_outbox *box = (sdui_outbox *)1;
        sdui_error err;
        unsigned char *before, *after;
        long n_before, n_after;
        snprintf(name, sizeof name, "foreign%zu.db", k);
        snprintf(p, sizeof p, "%s", test_path(name));
        if (k == 0) {
            FILE *f = fopen(p, "w");
            CHECK(f != NULL);
            if (f) {
                fputs("shopping: eggs, milk, an outbox\n", f);
                fclose(f);
            }
        } else if (k == 1) {
            CHECK(write_garbage(p, 5000));
        } else {
            CHECK(raw_exec(p, cases[k].sql) == SQLITE_OK);
        }
        before = file_bytes(p, &n_before);
        CHECKF(sdui_outbox_open(p, NULL, &box, &err) == SDUI_SQLITE,
               "%s: opened", name);
        CHECK(box == NULL);
        CHECK_MSG_HAS(p);
        CHECK_MSG_HAS("not an SDUIKit outbox file");
        CHECK_MSG_HAS("left untouched");
        CHECK_MSG_HAS(cases[k].why);
        CHECK_EQ_INT(err.code, k < 2 ? SQLITE_NOTADB : SQLITE_ERROR);
        after = file_bytes(p, &n_after);
        CHECKF(before && after && n_before == n_after &&
                   memcmp(before, after, (size_t)n_before) == 0,
               "%s changed", name);
        CHECKF(!moved_aside(name), "%s moved aside", name);
        free(before);
        free(after);
    }
}

/*
 * An outbox file damaged while closed is moved aside at open, and
 * sdui_outbox_recovery says where and why: a table added, the header's
 * first bytes destroyed (its application_id still there), a page of the
 * queue overwritten.  A fresh outbox is made; reopened, it is no longer
 * a recovery.
 */
static void test_damaged_files(void)
{
    static const unsigned char zeros[16] = {0};
    static unsigned char junk[1024];
    const char *const three[] = {"x1", "x2", "x3", NULL};
    char p[512], name[32], notice[1024];
    sdui_outbox *box;
    sdui_error err;
    size_t k;
    memset(junk, 0xA5, sizeof junk);
    for (k = 0; k < 3; k++) {
        FILE *f;
        snprintf(name, sizeof name, "damaged%zu.db", k);
        snprintf(p, sizeof p, "%s", test_path(name));
        CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
        CHECK_STATUS(commit_strs(box, "k", "v", three, 0, NULL, &err),
                     SDUI_OK);
        sdui_outbox_free(box); /* checkpoints the WAL into the file */
        if (k == 0) {
            CHECK(raw_exec(p, "CREATE TABLE extra(x)") == SQLITE_OK);
        } else {
            f = fopen(p, "r+b");
            CHECK(f != NULL);
            if (!f)
                continue;
            if (k == 1)
                fwrite(zeros, 1, sizeof zeros, f);
            else if (fseek(f, 4096, SEEK_SET) == 0)
                fwrite(junk, 1, sizeof junk, f);
            fclose(f);
        }
        CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
        CHECK_EQ_INT(err.status, SDUI_OK);
        if (!box)
            continue;
        CHECKF(sdui_outbox_recovered(box) == 1, "%s not recovered", name);
        CHECKF(moved_aside(name), "%s not moved aside", name);
        CHECK(sdui_outbox_recovery(box, notice, sizeof notice) ==
              strlen(notice));
        CHECKF(strstr(notice, p) && strstr(notice, "was damaged") &&
                   strstr(notice, "moved aside to") &&
                   strstr(notice, ".corrupt-"),
               "%s: notice \"%s\"", name, notice);
        check_fresh(box);
        sdui_outbox_free(box);
        /* Reopened, the fresh file is no longer a recovery. */
        CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
        CHECK_EQ_INT(sdui_outbox_recovered(box), 0);
        CHECK_EQ_INT(sdui_outbox_recovery(box, NULL, 0), 0);
        sdui_outbox_free(box);
    }
}

/*
 * A counters row damaged by another connection while the outbox is open:
 * the next call that reads it fails once, saying the outbox was damaged
 * and reset; the file is moved aside and later calls work.
 */
static void test_counters_damage(void)
{
    static const struct {
        const char *sql;
        const char *why;
    } cases[] = {
        {"UPDATE counters SET next_seq=0", "not counts"},
        {"UPDATE counters SET next_seq=4611686018427387904", "next seq"},
        {"UPDATE counters SET dropped=-1", "not counts"},
        {"UPDATE counters SET dropped_total='many'", "not counts"},
        {"DELETE FROM counters", "missing"},
    };
    const char *const three[] = {"x1", "x2", "x3", NULL};
    size_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char p[512], name[32];
        sdui_outbox *box;
        sdui_outbox_stats s;
        sdui_error err;
        int64_t first = 9;
        sdui_status st;
        snprintf(name, sizeof name, "counters%zu.db", k);
        snprintf(p, sizeof p, "%s", test_path(name));
        CHECK_STATUS(open_box(p, 0, 0, 0, &box, &err), SDUI_OK);
        CHECK_STATUS(commit_strs(box, "k", "v", three, 0, NULL, &err),
                     SDUI_OK);
        CHECK(raw_exec(p, cases[k].sql) == SQLITE_OK);
        /* Even rounds meet it in a commit, odd ones in stats. */
        if (k % 2 == 0)
            st = commit_strs(box, NULL, NULL, three, 0, &first, &err);
        else
            st = sdui_outbox_stats_get(box, &s, &err);
        CHECKF(st == SDUI_SQLITE, "case %zu: %s (%s)", k,
               sdui_status_name(st), err.message);
        CHECK_MSG_HAS("damaged and was reset");
        CHECK_MSG_HAS(cases[k].why);
        CHECK_MSG_HAS(p);
        CHECK_EQ_INT(err.code, SQLITE_CORRUPT);
        CHECK_EQ_INT(first, 9);
        CHECK_EQ_INT(sdui_outbox_recovered(box), 1);
        CHECKF(moved_aside(name), "%s not moved aside", name);
        check_fresh(box);
        sdui_outbox_free(box);
    }
}

/* Where the counters row leaves the next seq (version 2): a commit that
 * drops nothing does not write the row, the newest item carries the next
 * seq, a row behind the items is a floor and not damage, an ack that
 * deletes the newest writes the row first, and a version-1 file is
 * upgraded in place with its seqs going on. */
static void test_next_seq_floor(void)
{
    const char *const three[] = {"x1", "x2", "x3", NULL};
    const char *const one[] = {"y", NULL};
    char p[512], buf[64];
    sdui_outbox *box;
    sdui_error err;
    int64_t first = 0, seqs[4] = {1, 2, 3, 4};
    snprintf(p, sizeof p, "%s", test_path("floor.db"));
    CHECK_STATUS(open_box(p, 0, 0, 0, &box, &err), SDUI_OK);
    CHECK_STATUS(commit_strs(box, "k", "v", three, 0, &first, &err), SDUI_OK);
    CHECK_EQ_INT(first, 1);
    /* The row was not written: its next_seq is still the first one. */
    raw_value(p, "SELECT next_seq FROM counters", buf, sizeof buf);
    CHECK_EQ_STR(buf, "1");
    CHECK_EQ_INT(stats_of(box).next_seq, 4);
    /* Behind the items, set by another connection: still no seq twice. */
    CHECK(raw_exec(p, "UPDATE counters SET next_seq=2") == SQLITE_OK);
    CHECK_STATUS(commit_strs(box, NULL, NULL, one, 0, &first, &err), SDUI_OK);
    CHECK_EQ_INT(first, 4);
    CHECK_EQ_INT(sdui_outbox_recovered(box), 0);
    /* Every item acked, the newest among them: the next seq stays. */
    CHECK_STATUS(sdui_outbox_ack(box, seqs, 4, &err), SDUI_OK);
    raw_value(p, "SELECT next_seq FROM counters", buf, sizeof buf);
    CHECK_EQ_STR(buf, "5");
    CHECK_STATUS(commit_strs(box, NULL, NULL, one, 0, &first, &err), SDUI_OK);
    CHECK_EQ_INT(first, 5);
    sdui_outbox_free(box);

    /* A version-1 file as the last build left it: upgraded, seqs go on. */
    snprintf(p, sizeof p, "%s", test_path("v1.db"));
    CHECK(raw_exec(p, "PRAGMA application_id=1396987215;"
                      /* Version 1's step, word for word. */
                      "CREATE TABLE state( key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID;"
                      "CREATE TABLE items( seq INTEGER PRIMARY KEY NOT NULL,"
                      " bytes BLOB NOT NULL CHECK(typeof(bytes)='blob'));"
                      "CREATE TABLE counters( id INTEGER PRIMARY KEY CHECK(id=0), next_seq INTEGER NOT NULL,"
                      " dropped INTEGER NOT NULL, dropped_total INTEGER NOT NULL);"
                      "INSERT INTO counters VALUES(0, 8, 0, 0);"
                      "INSERT INTO items VALUES(6, x'6f6c64'), (7, x'6f6c64');"
                      "PRAGMA user_version=1;") == SQLITE_OK);
    CHECK_STATUS(open_box(p, 0, 0, 0, &box, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_recovered(box), 0);
    raw_value(p, "PRAGMA user_version", buf, sizeof buf);
    CHECK_EQ_INT(atoi(buf), SDUI_OUTBOX_SCHEMA_VERSION);
    CHECK_STATUS(commit_strs(box, NULL, NULL, one, 0, &first, &err), SDUI_OK);
    CHECK_EQ_INT(first, 8);
    CHECK_EQ_INT(stats_of(box).items, 3);
    sdui_outbox_free(box);
}

/* Fills the root page of table `name` with garbage, after checkpointing
 * the WAL into the file, then changes the header through another
 * connection so an open one drops its page cache. */
static int smash_table(const char *path, const char *name)
{
    static unsigned char page[65536];
    char sql[160], buf[32];
    long root, size;
    raw_value(path, "PRAGMA wal_checkpoint(TRUNCATE)", buf, sizeof buf);
    if (strcmp(buf, "0") != 0)
        return 0;
    snprintf(sql, sizeof sql,
             "SELECT rootpage FROM sqlite_master WHERE name='%s'", name);
    raw_value(path, sql, buf, sizeof buf);
    root = atol(buf);
    raw_value(path, "PRAGMA page_size", buf, sizeof buf);
    size = atol(buf);
    if (root <= 0 || size <= 0 || size > (long)sizeof page)
        return 0;
    memset(page, 0xA5, (size_t)size);
    return page_io(path, root, size, page, 1) &&
           raw_exec(path, "PRAGMA user_version=1") == SQLITE_OK;
}

/* Pages damaged under an open outbox: each call that meets the damage
 * fails once saying the outbox was reset; later calls work. */
static void test_pages_damage(void)
{
    static const char *const ops[] = {"commit", "peek", "ack", "stats",
                                      "state_get"};
    const char *const three[] = {"x1", "x2", "x3", NULL};
    size_t op;
    for (op = 0; op < sizeof ops / sizeof ops[0]; op++) {
        char p[512], name[32];
        sdui_outbox *box;
        sdui_outbox_batch *b = NULL;
        sdui_outbox_stats s;
        sdui_error err;
        sdui_status st;
        int64_t seq = 1;
        void *v = NULL;
        size_t len;
        snprintf(name, sizeof name, "pages-%s.db", ops[op]);
        snprintf(p, sizeof p, "%s", test_path(name));
        CHECK_STATUS(open_box(p, 0, 0, 0, &box, &err), SDUI_OK);
        CHECK_STATUS(commit_strs(box, "k", "v", three, 0, NULL, &err),
                     SDUI_OK);
        CHECK(smash_table(p, op == 4 ? "state" : "items"));
        switch (op) {
        case 0:
            st = commit_strs(box, NULL, NULL, three, 0, NULL, &err);
            break;
        case 1:
            st = sdui_outbox_peek(box, 0, 0, &b, &err);
            CHECK(b == NULL);
            break;
        case 2:
            st = sdui_outbox_ack(box, &seq, 1, &err);
            break;
        case 3:
            st = sdui_outbox_stats_get(box, &s, &err);
            break;
        default:
            st = sdui_outbox_state_get(box, "k", &v, &len, &err);
            CHECK(v == NULL);
            break;
        }
        CHECKF(st == SDUI_SQLITE, "%s: %s (%s)", ops[op],
               sdui_status_name(st), err.message);
        CHECKF(strstr(err.message, "damaged and was reset") != NULL,
               "%s: message \"%s\"", ops[op], err.message);
        CHECKF(sdui_outbox_recovered(box) == 1, "%s: not recovered",
               ops[op]);
        CHECKF(moved_aside(name), "%s: not moved aside", ops[op]);
        check_fresh(box);
        sdui_outbox_free(box);
    }
}

#ifdef HAVE_DISK_FULL
/*
 * Child: commits progress 1 with two items, then, on a full disk, progress
 * 2 with a state row of its own and two items after them; writes the
 * second commit's error record to fd.
 */
static void full_disk_child(const char *p, int fd)
{
    const char *const one[] = {"n1a", "n1b", NULL};
    sdui_outbox *box;
    sdui_outbox_state s[2];
    sdui_outbox_item it[2];
    sdui_error err;
    alarm(10);
    if (sdui_outbox_open(p, NULL, &box, &err) != SDUI_OK ||
        commit_strs(box, "progress", "1", one, 0, NULL, &err) != SDUI_OK)
        _exit(3);
    make_disk_full();
    s[0].key = "progress";
    s[0].value = "2";
    s[0].len = 1;
    s[1].key = "extra";
    s[1].value = "e";
    s[1].len = 1;
    it[0].bytes = "n2a";
    it[0].len = 3;
    it[1].bytes = "n2b";
    it[1].len = 3;
    sdui_outbox_commit(box, s, 2, it, 2, 0, NULL, &err);
    if (write(fd, &err, sizeof err) != (ssize_t)sizeof err)
        _exit(4);
    sdui_outbox_free(box);
    _exit(0);
}
#endif

/* A commit that fails inside its transaction (a full disk, after its
 * state rows and items went in) leaves the file as it was. */
static void test_full_disk_rolls_back(void)
{
#ifdef HAVE_DISK_FULL
    char p[512], buf[16];
    const char *const one[] = {"n1a", "n1b", NULL};
    sdui_outbox *box;
    sdui_error err, child;
    int fds[2], status;
    pid_t pid;

    snprintf(p, sizeof p, "%s", test_path("full.db"));
    if (!CHECK(pipe(fds) == 0))
        return;
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        full_disk_child(p, fds[1]);
    }
    close(fds[1]);
    memset(&child, 0, sizeof child);
    CHECK(read(fds[0], &child, sizeof child) == (ssize_t)sizeof child);
    close(fds[0]);
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_INT(child.status, SDUI_SQLITE);
    CHECKF(strstr(child.message, "no space left on device") != NULL,
           "message: %s", child.message);
    CHECK(!moved_aside("full.db"));

    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_outbox_recovered(box), 0);
    CHECK_STATUS(get_str(box, "progress", buf, sizeof buf), SDUI_OK);
    CHECK_EQ_STR(buf, "1");
    CHECK_STATUS(get_str(box, "extra", buf, sizeof buf), SDUI_NOT_FOUND);
    check_queue(box, one);
    CHECK_EQ_INT(stats_of(box).next_seq, 3);
    sdui_outbox_free(box);
#else
    printf("full disk: no seccomp here; not tested\n");
#endif
}

/* What one committing thread does. */
typedef struct writer_arg {
    sdui_outbox *box; /* shared, or NULL: open path_own */
    const char *path;
    int id, commits;
    int failures;
} writer_arg;

/* Thread: `commits` commits of its state row "t<id>" = i and two items
 * "<id>:<i>:a", "<id>:<i>:b". */
static void *writer_thread(void *p)
{
    writer_arg *a = p;
    sdui_outbox *box = a->box;
    sdui_error err;
    int i;
    if (!box && sdui_outbox_open(a->path, NULL, &box, &err) != SDUI_OK) {
        a->failures = a->commits;
        return NULL;
    }
    for (i = 1; i <= a->commits; i++) {
        char key[16], val[16], x[32], y[32];
        const char *const items[] = {x, y, NULL};
        snprintf(key, sizeof key, "t%d", a->id);
        snprintf(val, sizeof val, "%d", i);
        snprintf(x, sizeof x, "%d:%d:a", a->id, i);
        snprintf(y, sizeof y, "%d:%d:b", a->id, i);
        if (commit_strs(box, key, val, items, 0, NULL, &err) != SDUI_OK) {
            fprintf(stderr, "writer %d: %s\n", a->id, err.message);
            a->failures++;
        }
    }
    if (!a->box)
        sdui_outbox_free(box);
    return NULL;
}

/*
 * Checks a queue written by `writers` writers of `commits` commits each
 * (writer_thread's items, or the processes' of test_processes): every
 * item once, each writer's in its own order, seqs strictly increasing.
 */
static void check_writers(sdui_outbox *box, int writers, int commits)
{
    sdui_outbox_batch *b = NULL;
    sdui_error err;
    int next[8], w;
    size_t i;
    int ok = 1;
    CHECK(writers <= 8);
    for (w = 0; w < writers; w++)
        next[w] = 2; /* the next item: commit next/2, a when even */
    CHECK_STATUS(sdui_outbox_peek(box, 0, 0, &b, &err), SDUI_OK);
    if (!b)
        return;
    CHECK_EQ_INT(sdui_outbox_batch_count(b), (size_t)writers * commits * 2);
    for (i = 0; ok && i < sdui_outbox_batch_count(b); i++) {
        int id, n;
        char kind;
        const char *s = sdui_outbox_batch_bytes(b, i, NULL);
        if (sscanf(s, "%d:%d:%c", &id, &n, &kind) != 3 || id < 0 ||
            id >= writers) {
            ok = CHECKF(0, "item %zu is \"%s\"", i, s);
            break;
        }
        ok = CHECKF(n * 2 + (kind == 'b') == next[id],
                    "writer %d: item \"%s\" out of order", id, s);
        next[id]++;
        if (i)
            ok &= CHECK(sdui_outbox_batch_seq(b, i) >
                        sdui_outbox_batch_seq(b, i - 1));
    }
    sdui_outbox_batch_free(b);
    for (w = 0; w < writers; w++) {
        char key[16], buf[16];
        snprintf(key, sizeof key, "t%d", w);
        CHECK_STATUS(get_str(box, key, buf, sizeof buf), SDUI_OK);
        CHECK_EQ_INT(atoi(buf), commits);
    }
}

/* Two threads committing at once on one handle; then two handles on one
 * file, one thread each (the second waits for the first's lock). */
static void test_threads(void)
{
    char p[512];
    sdui_outbox *box;
    sdui_error err;
    pthread_t t[2];
    writer_arg a[2];
    int round, i;

    for (round = 0; round < 2; round++) {
        snprintf(p, sizeof p, "%s",
                 test_path(round ? "threads-handles.db" : "threads.db"));
        CHECK_STATUS(open_box(p, 0, 0, 0, &box, &err), SDUI_OK);
        for (i = 0; i < 2; i++) {
            memset(&a[i], 0, sizeof a[i]);
            a[i].box = round ? NULL : box;
            a[i].path = p;
            a[i].id = i;
            a[i].commits = 200;
            CHECK(pthread_create(&t[i], NULL, writer_thread, &a[i]) == 0);
        }
        for (i = 0; i < 2; i++) {
            pthread_join(t[i], NULL);
            CHECK_EQ_INT(a[i].failures, 0);
        }
        check_writers(box, 2, 200);
        CHECK_EQ_INT(stats_of(box).next_seq, 801);
        sdui_outbox_free(box);
    }
}

/* Two processes committing at once on one file. */
static void test_processes(void)
{
    char p[512];
    sdui_outbox *box;
    sdui_error err;
    pid_t pid[2];
    int i, status;

    snprintf(p, sizeof p, "%s", test_path("processes.db"));
    for (i = 0; i < 2; i++) {
        pid[i] = fork();
        if (pid[i] == 0) {
            writer_arg a;
            memset(&a, 0, sizeof a);
            a.path = p;
            a.id = i;
            a.commits = 100;
            alarm(60);
            writer_thread(&a);
            _exit(a.failures ? 1 : 0);
        }
    }
    for (i = 0; i < 2; i++) {
        waitpid(pid[i], &status, 0);
        CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "process %d: status %d", i, status);
    }
    CHECK_STATUS(sdui_outbox_open(p, NULL, &box, &err), SDUI_OK);
    check_writers(box, 2, 100);
    sdui_outbox_free(box);
}

/*
 * The writer of the crash test: continues from the state row "progress"
 * (0 when absent); commit n sets it to n and appends the items "n:a" and
 * "n:b".  It writes -1 to fd once open, then n once commit n returned.
 */
static void crash_writer(const char *p, int fd)
{
    sdui_outbox *box;
    sdui_outbox_options o;
    sdui_error err;
    char buf[32];
    int n;
    sdui_outbox_options_default(&o);
    o.max_items = (size_t)1 << 30;
    o.max_bytes = (size_t)1 << 40;
    if (sdui_outbox_open(p, &o, &box, &err) != SDUI_OK)
        _exit(3);
    n = get_str(box, "progress", buf, sizeof buf) == SDUI_OK ? atoi(buf) : 0;
    {
        int open_notice = -1;
        if (write(fd, &open_notice, sizeof open_notice) !=
            (ssize_t)sizeof open_notice)
            _exit(5);
    }
    for (n = n + 1;; n++) {
        char val[16], x[32], y[32];
        const char *const items[] = {x, y, NULL};
        snprintf(val, sizeof val, "%d", n);
        snprintf(x, sizeof x, "%d:a", n);
        snprintf(y, sizeof y, "%d:b", n);
        if (commit_strs(box, "progress", val, items, 0, NULL, &err) !=
            SDUI_OK)
            _exit(4);
        /* Reported only once committed. */
        if (write(fd, &n, sizeof n) != (ssize_t)sizeof n)
            _exit(5);
    }
}

/*
 * After a kill: the file is whole; "progress" is the last reported commit
 * or the one after it (committed, killed before reporting); every commit
 * up to it has both its items, once, in order, and no later commit has
 * any.  Returns 1 when all holds.
 */
static int verify_crash(const char *p, int reported)
{
    sdui_outbox *box;
    sdui_outbox_batch *b = NULL;
    sdui_error err;
    char buf[64];
    int progress, expect = 2, ok = 1;
    size_t i;
    raw_value(p, "PRAGMA integrity_check", buf, sizeof buf);
    if (!CHECKF(strcmp(buf, "ok") == 0, "integrity_check said \"%s\"", buf))
        return 0;
    if (!CHECKF(sdui_outbox_open(p, NULL, &box, &err) == SDUI_OK,
                "reopen: %s", err.message))
        return 0;
    ok &= CHECK(sdui_outbox_recovered(box) == 0);
    if (get_str(box, "progress", buf, sizeof buf) == SDUI_OK)
        progress = atoi(buf);
    else
        progress = 0;
    ok &= CHECKF(progress == reported || progress == reported + 1,
                 "progress %d, last reported %d", progress, reported);
    if (sdui_outbox_peek(box, 0, 0, &b, &err) != SDUI_OK) {
        CHECKF(0, "peek: %s", err.message);
        sdui_outbox_free(box);
        return 0;
    }
    /* Item k (from 0) must be commit k/2 + 1, "a" then "b". */
    ok &= CHECKF(sdui_outbox_batch_count(b) == (size_t)progress * 2,
                 "%zu items for progress %d", sdui_outbox_batch_count(b),
                 progress);
    for (i = 0; ok && i < sdui_outbox_batch_count(b); i++) {
        int n = 0;
        char kind = 0;
        const char *s = sdui_outbox_batch_bytes(b, i, NULL);
        sscanf(s, "%d:%c", &n, &kind);
        ok &= CHECKF(n * 2 + (kind == 'b') == expect &&
                         (kind == 'a' || kind == 'b'),
                     "item %zu is \"%s\"", i, s);
        ok &= CHECK(sdui_outbox_batch_seq(b, i) == (int64_t)i + 1);
        expect++;
    }
    sdui_outbox_batch_free(b);
    /* No seq was handed out twice or skipped by a rolled-back commit. */
    ok &= CHECK(stats_of(box).next_seq == (int64_t)progress * 2 + 1);
    sdui_outbox_free(box);
    return ok;
}

/*
 * SIGKILL a committing writer at random moments, 50 times; after each
 * kill the file must hold every reported commit whole (state and both
 * items) and nothing of a commit that did not happen.  Even rounds time
 * the kill from the fork, so it may land in the open (schema creation,
 * WAL recovery); odd rounds from the moment the writer says it is open.
 */
static void test_crash(void)
{
    char p[512];
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    int round, reported = 0, kills = 0;
    useconds_t extra = 0; /* added to the wait while rounds commit nothing */
    snprintf(p, sizeof p, "%s", test_path("crash.db"));
    printf("outbox crash test seed %u\n", seed);
    srand(seed);
    /* At least 50 kills; more (up to 400) while a loaded machine lets
     * writers commit too little before their kill, the wait growing. */
    for (round = 0; round < 400 && (round < 50 || reported < 50); round++) {
        int fds[2], n, status, before = reported;
        pid_t pid;
        if (!CHECK(pipe(fds) == 0))
            break;
        pid = fork();
        if (pid == 0) {
            close(fds[0]);
            crash_writer(p, fds[1]);
        }
        close(fds[1]);
        if (round % 2 && read(fds[0], &n, sizeof n) == (ssize_t)sizeof n)
            CHECK_EQ_INT(n, -1);
        usleep((useconds_t)(1000 + rand() % 30000) + extra);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        while (read(fds[0], &n, sizeof n) == (ssize_t)sizeof n)
            if (n > 0) {
                CHECKF(n > reported, "commit %d reported after %d", n,
                       reported);
                reported = n;
            }
        close(fds[0]);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
            kills++;
        else
            CHECKF(0, "writer exited by itself (status %d)", status);
        if (reported > before)
            extra /= 2;
        else if (round % 2 && extra < 500000)
            extra = extra * 2 + 5000;
        if (!verify_crash(p, reported))
            break;
        /* The next writer continues from what the file holds. */
        {
            sdui_outbox *box;
            sdui_error err;
            char buf[16];
            if (sdui_outbox_open(p, NULL, &box, &err) == SDUI_OK) {
                if (get_str(box, "progress", buf, sizeof buf) == SDUI_OK)
                    reported = atoi(buf);
                sdui_outbox_free(box);
            }
        }
    }
    printf("outbox crash test: %d kills, %d commits\n", kills, reported);
    CHECK_EQ_INT(kills, round);
    CHECK(kills >= 50);
    CHECK(reported >= 50);
}

int main(void)
{
    test_dir_make("outbox");
    test_round_trip();
    test_seq_monotonic();
    test_states();
    test_bounds();
    test_totals_follow_rows();
    test_item_limit();
    test_peek_slicing();
    test_arguments();
    test_newer_schema();
    test_foreign_files();
    test_damaged_files();
    test_counters_damage();
    test_next_seq_floor();
    test_pages_damage();
    test_full_disk_rolls_back();
    test_threads();
    test_processes();
    test_crash();
    test_dir_remove();
    return check_summary();
}
