/*
 * outbox.c - times sdui_outbox_commit, the durable queue under the flow
 * journal (events and the session's state rows) and the file-scope store's
 * journal: one event per commit, one event plus one state row (a flow
 * step), and a batch of 50 events, each with synchronous NORMAL (survives
 * a kill of the process) and one event with FULL (fsync per commit).  Not
 * part of `make`; built by hand against the core's static library:
 *
 *     make -s build/libsdui.a
 *     cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude \
 *        bench/c/outbox.c build/libsdui.a \
 *        -ldeflate -lsqlite3 -lpthread -lm -o build/bench-outbox
 *     build/bench-outbox [ROUNDS [COMMITS [DIR]]]
 *
 * Each round opens a fresh outbox file in DIR (default $TMPDIR or /tmp),
 * makes COMMITS commits (default 400; a tenth of that for the fsync case)
 * and removes the file; the time per commit is the round's total over its
 * commits.  Printed per case: the median over ROUNDS (default 9) rounds in
 * microseconds per commit, and the fastest and slowest round, so two
 * builds can be compared with their spread.  The events are 300-byte JSON
 * objects like a flow's screen_view.  The file builds against any version
 * of the core that has include/sdui/outbox.h.
 */
#define BENCH_NAME "bench-outbox"
#include "bench.h"

#include <unistd.h>

#include "sdui/sdui.h"

/* One measured case. */
typedef struct bcase {
    const char *label;
    int synchronous;   /* sdui_outbox_options.synchronous */
    size_t events;     /* items per commit */
    int state;         /* 1: also write one state row per commit */
    int commits_div;   /* commits = COMMITS / commits_div */
} bcase;

static const bcase cases[] = {
    {"1 event, NORMAL", 1, 1, 0, 1},
    {"1 event + 1 state row, NORMAL", 1, 1, 1, 1},
    {"50 events, NORMAL", 1, 50, 0, 1},
    {"1 event, FULL (fsync)", 0, 1, 0, 10},
};

/* A 300-byte event like a flow's screen_view, numbered seq. */
static void make_event(char *out, size_t cap, long seq)
{
    int n = snprintf(out, cap,
                     "{\"id\":\"%08lx-9ddd-4096-b10f-ecd9e6694f75\",\"flowId\":\"onboarding\","
                     "\"flowVersion\":\"1\",\"name\":\"screen_view\",\"screen\":\"welcome\","
                     "\"seq\":%ld,\"timestamp\":1795815787815,\"userId\":\"u\","
                     "\"properties\":{\"back\":true,\"source\":\"benchmark\"}}",
                     (unsigned long)seq, seq);
    if (n < 0 || (size_t)n >= cap)
        bench_die("event %ld does not fit %zu bytes", seq, cap);
    /* Pad to 300 bytes inside a trailing string so every event is alike. */
    memset(out + n, ' ', cap - 1 - (size_t)n);
    out[cap - 1] = '\0';
}

/* One round of case c: a fresh outbox in dir, `commits` commits; returns
 * the microseconds per commit. */
static double run_round(const bcase *c, const char *dir, int round, int commits)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench-outbox-%ld-%d.sqlite", dir, (long)getpid(), round);
    unlink(path);
    sdui_outbox_options opts;
    sdui_outbox_options_default(&opts);
    opts.synchronous = c->synchronous;
    opts.max_items = (size_t)1 << 24;  /* no drops: time the append alone */
    opts.max_bytes = (size_t)1 << 34;
    sdui_outbox *box = NULL;
    sdui_error err = {0};
    if (sdui_outbox_open(path, &opts, &box, &err) != SDUI_OK)
        bench_die("open %s: %s", path, err.message);

    static char events[50][301];
    sdui_outbox_item items[50];
    if (c->events > 50)
        bench_die("at most 50 events per commit");
    char state_value[64];
    sdui_outbox_state state = {"flow.onboarding.position", state_value, 0};
    long seq = 0;
    double t0 = bench_now();
    for (int i = 0; i < commits; i++) {
        for (size_t e = 0; e < c->events; e++) {
            make_event(events[e], sizeof events[e], seq++);
            items[e].bytes = events[e];
            items[e].len = sizeof events[e] - 1;
        }
        state.len = (size_t)snprintf(state_value, sizeof state_value, "{\"screen\":\"s%d\"}", i);
        int64_t first = 0;
        if (sdui_outbox_commit(box, c->state ? &state : NULL, c->state ? 1 : 0, items, c->events, 0,
                               &first, &err) != SDUI_OK)
            bench_die("commit %d of %s: %s", i, c->label, err.message);
    }
    double us = (bench_now() - t0) * 1e6 / commits;
    sdui_outbox_free(box);
    unlink(path);
    char side[4200];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return us;
}

/* Measures every case and prints a table. */
int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    int commits = argc > 2 ? atoi(argv[2]) : 400;
    const char *dir = argc > 3 ? argv[3] : getenv("TMPDIR");
    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    if (rounds < 1 || rounds > 1000 || commits < 10 || commits > 1000000)
        bench_die("usage: bench-outbox [ROUNDS 1-1000 [COMMITS 10-1000000 [DIR]]]");
    printf("outbox commit: %d rounds, %d commits a round (fsync case: a tenth), files in %s\n",
           rounds, commits, dir);
    printf("%-32s %12s %12s %12s\n", "case", "median us", "fastest", "slowest");
    double *t = calloc((size_t)rounds, sizeof *t);
    if (t == NULL)
        bench_die("out of memory");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const bcase *c = &cases[k];
        int n = commits / c->commits_div;
        run_round(c, dir, -1, n < 10 ? 10 : n);   /* warm-up: page cache, SQLite's code */
        for (int r = 0; r < rounds; r++)
            t[r] = run_round(c, dir, r, n < 10 ? 10 : n);
        double m = bench_median(t, (size_t)rounds);   /* sorts t */
        printf("%-32s %12.2f %12.2f %12.2f\n", c->label, m, t[0], t[rounds - 1]);
        fflush(stdout);
    }
    free(t);
    return 0;
}
