/*
 * bench.h - what every C benchmark program in bench/c needs and would
 * otherwise write again: stopping with a message, a monotonic clock and a
 * CPU clock, a growing text buffer, the SplitMix64 generator the Swift
 * benchmark's PackGenerator uses, and the median of a set of times.
 *
 * Header-only (every function static inline), so a program still builds
 * with one `cc` line against any version of the core's static library:
 * nothing here depends on the core.  Not thread-safe: each program is one
 * thread, and the generator's state is the caller's.
 */
#ifndef SDUI_BENCH_H
#define SDUI_BENCH_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The program's name in messages; each program defines it before
 * including this header, e.g. #define BENCH_NAME "bench-outbox". */
#ifndef BENCH_NAME
#define BENCH_NAME "bench"
#endif

/* Prints "NAME: what" (printf-style) to stderr and exits with status 1. */
__attribute__((format(printf, 1, 2), noreturn))
static inline void bench_die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", BENCH_NAME);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* Monotonic wall-clock time in seconds. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process in seconds (both user and system). */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A growing, NUL-terminated text buffer; zero-initialize it, free s. */
typedef struct bench_text {
    char *s;
    size_t len, cap;
} bench_text;

/* Appends s[0, n) to t, growing it by doubling; stops on out of memory. */
static inline void bench_put(bench_text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (t->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(t->s, cap);
        if (grown == NULL)
            bench_die("out of memory growing a buffer to %zu bytes", cap);
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

/* Appends printf-style text to t. */
__attribute__((format(printf, 2, 3)))
static inline void bench_putf(bench_text *t, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        bench_die("vsnprintf failed");
    if ((size_t)n < sizeof small) {
        bench_put(t, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL)
        bench_die("out of memory formatting %d bytes", n);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    bench_put(t, big, (size_t)n);
    free(big);
}

/* The next draw of SplitMix64 from *state (PackGenerator.swift's
 * generator: the same seed gives the same draws in Swift and here). */
static inline uint64_t bench_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* qsort's comparison of two doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts t[0, n) in place and returns its median (n > 0; for an even n,
 * the mean of the middle two). */
static inline double bench_median(double *t, size_t n)
{
    if (n == 0)
        bench_die("the median of no times");
    qsort(t, n, sizeof *t, bench_cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

#endif
