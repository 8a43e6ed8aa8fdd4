/*
 * in_locale.h - runs a whole C test program under the de_DE.UTF-8 locale,
 * whose decimal point is a comma, as a GUI toolkit sets it at start
 * (setlocale(LC_ALL, "")).  The Makefile builds such programs a second
 * time with `-include Tests/C/in_locale.h` (see LOCALE_TESTS there), so the
 * same checks run unchanged in both locales: the core's number text and
 * parsing must not depend on the locale.
 *
 * The locale is set before main by a constructor.  When it cannot be set
 * the program FAILS (exit 1) and says to run scripts/setup.sh, which
 * generates it: a check that quietly ran in the "C" locale would prove
 * nothing.
 */
#ifndef SDUI_TESTS_IN_LOCALE_H
#define SDUI_TESTS_IN_LOCALE_H

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The locale the tests run under, with a comma for a decimal point. */
#define IN_LOCALE_NAME "de_DE.UTF-8"

/* Sets IN_LOCALE_NAME for the whole process, or exits 1 saying why. */
static inline void in_locale_set(void)
{
    if (!setlocale(LC_ALL, IN_LOCALE_NAME)) {
        fprintf(stderr, "FAILED: cannot set the locale %s (run scripts/setup.sh, "
                        "which generates it)\n", IN_LOCALE_NAME);
        exit(1);
    }
    if (strcmp(localeconv()->decimal_point, ",") != 0) {
        fprintf(stderr, "FAILED: the locale %s has the decimal point \"%s\", not \",\"\n",
                IN_LOCALE_NAME, localeconv()->decimal_point);
        exit(1);
    }
}

#ifdef IN_LOCALE_WHOLE_PROGRAM
/* Before main: the whole program runs under the locale. */
__attribute__((constructor)) static void in_locale_constructor_(void)
{
    in_locale_set();
    printf("(under the locale %s)\n", IN_LOCALE_NAME);
}
#endif

#endif
