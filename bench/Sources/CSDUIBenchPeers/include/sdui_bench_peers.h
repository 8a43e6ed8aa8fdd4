/*
 * sdui_bench_peers.h - the C peers the first-paint benchmark compares the
 * engine with: libdeflate inflate alone (the floor), zlib inflate alone
 * (the reference) and jansson's whole-document parse; and the readings
 * the benchmark takes (resident memory, minor page faults, a clock).  Not
 * part of the library.
 */
#ifndef SDUI_BENCH_PEERS_H
#define SDUI_BENCH_PEERS_H

#include <stddef.h>

/* Bytes allocated past the end of every inflated buffer below (readable,
 * not zeroed but for the first): simdjson's padding. */
#define SDUI_BENCH_PADDING 64

/*
 * Inflates every gzip member of gz[0, len) with zlib into a new malloc'd
 * buffer (*out, release with free) of the inflated size + SDUI_BENCH_PADDING
 * bytes, NUL-terminated.  The buffer's first size is hint when it is not 0
 * (the known inflated size: one allocation), else the last member's ISIZE;
 * it doubles when needed.  Returns the inflated length, or -1 on any error.
 */
long long sdui_bench_zlib_inflate(const void *gz, size_t len, size_t hint, char **out);

/* Inflates with libdeflate the same way, member by member. */
long long sdui_bench_libdeflate_inflate(const void *gz, size_t len, size_t hint, char **out);

/*
 * libdeflate inflate + jansson json_loadb of the whole document +
 * json_decref.  Returns the number of elements of the "tokens" array, or
 * -1 on error.
 */
long long sdui_bench_jansson_parse(const void *gz, size_t len, size_t hint);

/* Resident set now and at its peak (Linux /proc, bytes; -1 elsewhere). */
long long sdui_bench_rss_bytes(void);
long long sdui_bench_peak_rss_bytes(void);

/* Minor page faults of this process so far (getrusage); -1 on error. */
long long sdui_bench_minor_faults(void);

/* CLOCK_MONOTONIC in nanoseconds; -1 on error. */
long long sdui_bench_monotonic_ns(void);

/* CPU time of the whole process (all its threads) in nanoseconds
 * (CLOCK_PROCESS_CPUTIME_ID); -1 on error.  Over a run, CPU time above the
 * wall time is work another thread did at the same time, on another core. */
long long sdui_bench_process_cpu_ns(void);

/*
 * Starts path with argv (NULL-terminated, argv[0] included) by
 * posix_spawn, its stdin and stdout on /dev/null and its stderr into
 * err[0, errlen) (NUL-terminated, truncated; the rest is read and
 * dropped), and waits for it.  Returns the wall time from the spawn to
 * the exit in nanoseconds, with *status its exit status (128 + the signal
 * when killed), or -1 when it cannot be started.
 */
long long sdui_bench_spawn(const char *path, char *const *argv, int *status, char *err, size_t errlen);

/*
 * Pins the process (the calling thread and every thread it starts later)
 * to its first n allowed CPUs (Linux sched_setaffinity); n <= 0 leaves it
 * as it is.  Returns the number of CPUs it may now run on, or -1 with
 * errno when the system refuses (or is not Linux).
 */
int sdui_bench_pin_cpus(int n);

/*
 * The floor of a durable event queue: inserts rows[i] (lens[i] bytes) as
 * (n, id, json) into a fresh table of the SQLite file at path, `batch`
 * rows per transaction, in WAL mode with synchronous FULL (full != 0, an
 * fsync per commit) or NORMAL, as the outbox is opened: a prepared INSERT
 * bound and stepped per row, nothing else.  Returns 0, or -1 with SQLite's
 * message in err (errlen bytes).
 */
int sdui_bench_sqlite_inserts(const char *path, const char *const *rows, const size_t *lens, size_t n,
                              size_t batch, int full, char *err, size_t errlen);

/*
 * The floor of a durable flow step: n times, in one transaction each, the
 * progress row (progress, plen bytes) written over the one before under
 * one key and one event (event, elen bytes) appended, into a fresh SQLite
 * file at path with the queue's two tables as the outbox has them (a
 * WITHOUT ROWID key/value table and a rowid table), WAL mode, synchronous
 * FULL or NORMAL; prepared statements bound and stepped, nothing else.
 * A first, uncounted step makes the rows; *frames gets the WAL frames
 * (pages) the n commits after it wrote.  Returns 0, or
 * -1 with SQLite's message in err (errlen bytes).
 */
int sdui_bench_sqlite_steps(const char *path, const char *progress, size_t plen, const char *event, size_t elen,
                            size_t n, int full, long long *frames, char *err, size_t errlen);

#endif
