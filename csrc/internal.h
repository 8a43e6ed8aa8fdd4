/*
 * internal.h - the declarations every source file of the core shares, not
 * public: error records (error.c), allocation failures (alloc.c), UTF-8
 * (scan.c, json_build.c), documents made from trees rather than text
 * (json_doc.c, json_build.c), limits (limits.c), the keyed hash (hash.c)
 * and the hash's test hooks.  What only some files share has a header of
 * its own beside its file: buffer.h, token_make.h, scan.h (the generic
 * scanner), pack_scan.h, sqlite_util.h.
 */
#ifndef SDUI_INTERNAL_H
#define SDUI_INTERNAL_H

#include <assert.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sdui/sdui.h"
#include "sdui/json_build.h"

#if defined(__GNUC__) || defined(__clang__)
#define SDUI_LIKELY(x) __builtin_expect(!!(x), 1)
#define SDUI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SDUI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define SDUI_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SDUI_ALWAYS_INLINE inline
#define SDUI_LIKELY(x) (x)
#define SDUI_UNLIKELY(x) (x)
#define SDUI_PRINTF(f, a)
/*
 * Numbers as text without the locale (number.c).  sdui__strtod reads a
 * decimal as strtod does in the "C" locale, correctly rounded, whatever
 * the process's (setlocale) or the thread's (uselocale) locale; end and
 * errno (ERANGE) as strtod's.  sdui__number_fixed writes d (finite) with
 * digits (0..15) places after the point, rounded half-even from its exact
 * value, as printf's "%.*f" in the "C" locale, into buf[size] with a NUL,
 * and returns the length (when that is >= size, nothing was written).
 * Both thread-safe.  sdui__number_check_scale (a test hook) checks, for d,
 * the shortest-digits scaling's 128-bit products against an exact compare
 * of big integers: 1 when they agree.
 */
double sdui__strtod(const char *s, char **end);
int sdui__number_fixed(double d, int digits, char *buf, size_t size);
int sdui__number_check_scale(double d);

#endif

/* Fills err (if non-NULL) and returns status.  offset -1: no position.
 * For SDUI_SQLITE and SDUI_IO use sdui__fail_code. */
sdui_status sdui__fail(sdui_error *err, sdui_status status, long long offset,
                       const char *fmt, ...) SDUI_PRINTF(4, 5);

/* Like sdui__fail, and records code, the underlying library's code
 * (sdui_error.code: SQLite's extended result code for SDUI_SQLITE, errno
 * for SDUI_IO; never 0 for those two). */
sdui_status sdui__fail_code(sdui_error *err, sdui_status status, int code,
                            long long offset, const char *fmt, ...)
    SDUI_PRINTF(5, 6);

/* Like sdui__fail, and computes line:column of offset in text. */
sdui_status sdui__fail_at(sdui_error *err, sdui_status status,
                          const char *text, size_t len, size_t offset,
                          const char *fmt, ...) SDUI_PRINTF(6, 7);

/* n zeroed bytes through the allocator hook (alloc.c): calloc with the
 * default allocator, so fresh pages are not written; release with
 * sdui_free. */
void *sdui__calloc(size_t n);

/* Shorthand for an allocation failure. */
sdui_status sdui__oom(sdui_error *err);

/* Writes Unicode scalar value cp as UTF-8 at d, which has room for 4 bytes;
 * returns the byte count (scan.c: JSON string unescaping; expr_*.c too). */
size_t sdui__utf8_put(char *d, unsigned long cp);

/* Decodes one UTF-8 scalar value at s[*i, n), i < n (RFC 3629: no
 * overlongs, no surrogates, nothing past U+10FFFF); advances *i past it and
 * returns it, or returns -1 when the bytes there are not one
 * (json_build.c: strings and names given to a builder; expr_*.c too). */
long sdui__utf8_get(const char *s, size_t n, size_t *i);

/*
 * Value trees without text.  A new document laid out from a draft of
 * count nodes and its strings (value_tree.h's sdui__tree_lay_out says
 * what a draft is); nothing is borrowed from the draft.  On SDUI_OK *out
 * is new; else SDUI_OOM and *out is NULL (json_doc.c: the one place that
 * makes a document; json_build.c hands its drafts over through it).
 */
struct sdui_node;
sdui_status sdui__json_doc_from_draft(const struct sdui_node *draft, size_t count,
                                      const char *strings, size_t strings_len,
                                      size_t slots, sdui_json_doc **out,
                                      sdui_error *err);

/* A builder (json_build.h) whose nesting bound is max_depth instead of
 * SDUI_JSON_BUILD_MAX_DEPTH (json_build.c), for a tree whose depth was
 * bounded where its parts came from (expr_*.c: an evaluation's result). */
sdui_status sdui__json_builder_open_depth(sdui_json_builder **out,
                                          unsigned max_depth, sdui_error *err);

/* Limits, with NULL meaning the defaults (limits.c). */
const sdui_limits *sdui__limits_or_default(const sdui_limits *limits);

/*
 * The keyed hash of every table that holds ids from outside (the pack
 * index, the cache): SipHash-1-3 under a random key drawn once per process
 * (hash.c).  Not stable across processes.  Thread-safe.
 */
uint64_t sdui__hash(const void *data, size_t len);

/*
 * SipHash-c-d of data[0, len) under an explicit 16-byte key (hash.c), so
 * tests can check the function against published vectors.  Thread-safe.
 */
uint64_t sdui__siphash(const unsigned char key[16], int crounds, int drounds,
                       const void *data, size_t len);

/* Test hooks on the hash's spread (never on a hot path).  The longest
 * probe of a pack's id index: cells a lookup examines to reach an id, 1
 * when it sits in its home cell (pack.c).  The longest bucket chain of a
 * cache (cache.c; takes its lock). */
size_t sdui__pack_longest_probe(const sdui_pack *pack);
size_t sdui__cache_longest_chain(sdui_cache *cache);

/*
 * Numbers as text without the locale (number.c).  sdui__strtod reads a
 * decimal as strtod does in the "C" locale, correctly rounded, whatever
 * the process's (setlocale) or the thread's (uselocale) locale; end and
 * errno (ERANGE) as strtod's.  sdui__number_fixed writes d (finite) with
 * digits (0..15) places after the point, rounded half-even from its exact
 * value, as printf's "%.*f" in the "C" locale, into buf[size] with a NUL,
 * and returns the length (when that is >= size, nothing was written).
 * Both thread-safe.  sdui__number_check_scale (a test hook) checks, for d,
 * the shortest-digits scaling's 128-bit products against an exact compare
 * of big integers: 1 when they agree.
 */
double sdui__strtod(const char *s, char **end);
int sdui__number_fixed(double d, int digits, char *buf, size_t size);
int sdui__number_check_scale(double d);

#endif
