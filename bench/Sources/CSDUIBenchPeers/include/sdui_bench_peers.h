/*
 * sdui_bench_peers.h - the C peers the first-paint benchmark compares the
 * engine with: zlib inflate alone (the floor) and jansson's whole-document
 * parse.  Not part of the library.
 */
#ifndef SDUI_BENCH_PEERS_H
#define SDUI_BENCH_PEERS_H

#include <stddef.h>

/*
 * Inflates every gzip member of gz[0, len) with zlib into a new malloc'd
 * buffer (*out, release with free), sized from the trailer's ISIZE and grown
 * when needed.  Returns the inflated length, or -1 on any error.
 */
long long sdui_bench_zlib_inflate(const void *gz, size_t len, char **out);

/* Inflates with libdeflate the same way (for reference). */
long long sdui_bench_libdeflate_inflate(const void *gz, size_t len, char **out);

/*
 * zlib inflate + jansson json_loadb of the whole document + json_decref.
 * Returns the number of elements of the "tokens" array, or -1 on error.
 */
long long sdui_bench_jansson_parse(const void *gz, size_t len);

/* Peak resident set growth helpers (Linux /proc; -1 elsewhere). */
long long sdui_bench_rss_bytes(void);
long long sdui_bench_peak_rss_bytes(void);

#endif
