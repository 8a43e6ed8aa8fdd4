/*
 * strbuf.h - a growing string for the C tests that write documents
 * (test_seekable.c, test_seekable_race.c).  Memory from malloc: free(s.b).
 */
#ifndef SDUI_TESTS_STRBUF_H
#define SDUI_TESTS_STRBUF_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A growing string. */
typedef struct str {
    char *b;
    size_t n, cap;
} str;

/* Appends printf-style text to s. */
static void sadd(str *s, const char *fmt, ...)
{
    va_list ap;
    int n;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(s->b + s->n, s->cap - s->n, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < s->cap - s->n)
            break;
        s->cap = s->cap * 2 + (size_t)(n > 0 ? n : 0) + 4096;
        s->b = realloc(s->b, s->cap);
        if (!s->b)
            abort();
    }
    s->n += (size_t)n;
}

#endif
