/*
 * sdui_bench_simdjson.h - the simdjson peer of the first-paint benchmark
 * (Debian's libsimdjson-dev), behind a C interface so Swift can call it.
 * Part of the benchmark only: no library target links simdjson.
 */
#ifndef SDUI_BENCH_SIMDJSON_H
#define SDUI_BENCH_SIMDJSON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bytes that must be readable past the end of the JSON given to the
 * functions below (simdjson reads ahead in 64-byte blocks; it never writes
 * there).  The benchmark's inflate peers allocate that much slack.
 */
size_t sdui_bench_simdjson_padding(void);

/*
 * simdjson's DOM parser over the whole document json[0, len) (a pack: an
 * object with a "tokens" array): a parser is made, the tree built and
 * freed, as an app opening the pack with simdjson would.  Returns the
 * number of elements of "tokens", or -1 when the document does not parse
 * or has no "tokens" array.  Thread-safe (nothing shared).
 */
long sdui_bench_simdjson_parse(const char *json, size_t len);

/*
 * simdjson's On-Demand parser reaching the first n elements of "tokens"
 * and reading every value in them (each key and string unescaped, each
 * number converted): what an app needs to draw a screen of n tokens.  The
 * On-Demand front end indexes the whole document's structure first, then
 * walks only as far as the n-th token.  Returns the number of values read
 * (objects, arrays and scalars), or -1 on an error or when "tokens" holds
 * fewer than n elements.  Thread-safe (nothing shared).
 */
long sdui_bench_simdjson_first_tokens(const char *json, size_t len, size_t n);

#ifdef __cplusplus
}
#endif
#endif
