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

#endif
