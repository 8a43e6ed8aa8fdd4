/*
 * test_number.c - the one number-to-text rule (sdui_number_text): fixed
 * cases at every boundary of the notation, and for a million doubles of
 * every magnitude that the text reads back to the same double, that no
 * shorter digit string does, and that it always reads as a decimal.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdui/number.h"

/* The text of d. */
static const char *text(double d)
{
    static char buf[SDUI_NUMBER_TEXT_MAX];
    sdui_number_text(d, buf);
    return buf;
}

/* Cases at the boundaries of each notation. */
static void test_cases(void)
{
    CHECK_EQ_STR(text(0.0), "0.0");
    CHECK_EQ_STR(text(-0.0), "-0.0");
    CHECK_EQ_STR(text(2.0), "2.0");
    CHECK_EQ_STR(text(0.1), "0.1");
    CHECK_EQ_STR(text(2.5), "2.5");
    CHECK_EQ_STR(text(-7.25), "-7.25");
    CHECK_EQ_STR(text(1e-6), "0.000001");
    CHECK_EQ_STR(text(1.5e-7), "1.5e-7");
    CHECK_EQ_STR(text(123456.789), "123456.789");
    CHECK_EQ_STR(text(1e20), "100000000000000000000.0");
    CHECK_EQ_STR(text(1e21), "1e21");
    CHECK_EQ_STR(text(123456789012345680000.0), "123456789012345680000.0");
    CHECK_EQ_STR(text(0.1 + 0.2), "0.30000000000000004");
    CHECK_EQ_STR(text(DBL_MAX), "1.7976931348623157e308");
    CHECK_EQ_STR(text(-DBL_MAX), "-1.7976931348623157e308");
    CHECK_EQ_STR(text(5e-324), "5e-324");
    CHECK_EQ_STR(text(DBL_MIN), "2.2250738585072014e-308");
    CHECK_EQ_STR(text(9007199254740993.0), "9007199254740992.0");
    CHECK_EQ_STR(text(NAN), "nan");
    CHECK_EQ_STR(text(INFINITY), "inf");
    CHECK_EQ_STR(text(-INFINITY), "-inf");
    /* The length is returned. */
    char buf[SDUI_NUMBER_TEXT_MAX];
    CHECK_EQ_INT(sdui_number_text(-DBL_MAX, buf), strlen("-1.7976931348623157e308"));
}

/* The significant digits of a text: no sign, point or exponent, no
 * leading zeros, and no trailing zeros (positional notation pads with
 * them). */
static int digits(const char *t)
{
    int n = 0, lead = 1, zeros = 0;
    for (const char *c = t; *c && *c != 'e'; c++) {
        if (*c < '0' || *c > '9')
            continue;
        if (lead && *c == '0')
            continue;
        lead = 0;
        n++;
        zeros = *c == '0' ? zeros + 1 : 0;
    }
    return n - zeros;
}

/* Random doubles of every exponent (and random bit patterns). */
static void test_round_trip(void)
{
    uint64_t x = 0x9E3779B97F4A7C15u;
    unsigned long bad_trip = 0, bad_short = 0, bad_form = 0;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        double d;
        memcpy(&d, &x, sizeof d);
        if (!isfinite(d))
            continue;
        char buf[SDUI_NUMBER_TEXT_MAX];
        size_t n = sdui_number_text(d, buf);
        if (n != strlen(buf) || n >= SDUI_NUMBER_TEXT_MAX) bad_form++;
        if (strtod(buf, NULL) != d) bad_trip++;
        if (!strchr(buf, '.') && !strchr(buf, 'e')) bad_form++;
        /* No shorter digit string reads back. */
        int nd = digits(buf);
        if (nd > 1) {
            char shorter[40];
            snprintf(shorter, sizeof shorter, "%.*e", nd - 2, d);
            if (strtod(shorter, NULL) == d) bad_short++;
        }
    }
    CHECKF(bad_trip == 0, "%lu texts did not read back to their double", bad_trip);
    CHECKF(bad_short == 0, "%lu texts were not the shortest", bad_short);
    CHECKF(bad_form == 0, "%lu texts had the wrong form", bad_form);
}

int main(void)
{
    test_cases();
    test_round_trip();
    return check_summary();
}
