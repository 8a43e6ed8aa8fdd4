/*
 * check.h - the tiny assertion kit of the SDUIKit C tests.
 *
 * Each test program includes this header once, checks with the macros below
 * (a failed check prints file:line and goes on), and ends with
 *     return check_summary();
 * which prints the one line "N passed, N failed" and returns the exit code.
 *
 * CHECK_STATUS reads the sdui_error named `err` in the calling scope, so its
 * message is printed with the failure.
 */
#ifndef SDUI_TESTS_CHECK_H
#define SDUI_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sdui/sdui.h"

static unsigned long check_passed_;
static unsigned long check_failed_;

/* Counts one check; prints where it failed and an optional detail. */
static inline int check_record_(int ok, const char *file, int line,
                                const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        check_passed_++;
        return 1;
    }
    check_failed_++;
    fprintf(stderr, "%s:%d: FAILED: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 0;
}

/* Checks a status against the expected one, printing the error record. */
static inline int check_status_(sdui_status got, sdui_status want,
                                const sdui_error *e, const char *expr,
                                const char *file, int line)
{
    if (got == want)
        return check_record_(1, file, line, "%s", "");
    return check_record_(0, file, line,
                         "%s is %s, expected %s (error: %s \"%s\" at "
                         "offset %lld, %d:%d)",
                         expr, sdui_status_name(got), sdui_status_name(want),
                         sdui_status_name(e->status), e->message, e->offset,
                         e->line, e->column);
}

/* Prints "N passed, N failed" and returns the process exit code. */
static inline int check_summary(void)
{
    printf("%lu passed, %lu failed\n", check_passed_, check_failed_);
    fflush(stdout);
    return check_failed_ ? 1 : 0;
}

/* A boolean condition. */
#define CHECK(cond) \
    check_record_(!!(cond), __FILE__, __LINE__, "%s", #cond)

/* A boolean condition with a printf-style detail shown on failure. */
#define CHECKF(cond, ...) \
    check_record_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* Two integers (compared as long long). */
#define CHECK_EQ_INT(a, b)                                                  \
    do {                                                                    \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);     \
        check_record_(check_a_ == check_b_, __FILE__, __LINE__,             \
                      "%s == %s (%lld != %lld)", #a, #b, check_a_,          \
                      check_b_);                                            \
    } while (0)

/* Two NUL-terminated strings. */
#define CHECK_EQ_STR(a, b)                                                  \
    do {                                                                    \
        const char *check_a_ = (a), *check_b_ = (b);                        \
        check_record_(check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0, \
                      __FILE__, __LINE__, "%s == %s (\"%s\" != \"%s\")",    \
                      #a, #b, check_a_ ? check_a_ : "(null)",               \
                      check_b_ ? check_b_ : "(null)");                      \
    } while (0)

/* A status, printing the error record named `err` on failure. */
#define CHECK_STATUS(st, want) \
    check_status_((st), (want), &err, #st, __FILE__, __LINE__)

/* 1 if the NUL-terminated needle occurs in the error message. */
#define CHECK_MSG_HAS(needle)                                               \
    check_record_(strstr(err.message, (needle)) != NULL, __FILE__,          \
                  __LINE__, "message \"%s\" should contain \"%s\"",        \
                  err.message, (needle))

#endif
