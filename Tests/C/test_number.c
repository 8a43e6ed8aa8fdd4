/*
 * test_number.c - the one number-to-text rule (sdui_number_text): fixed
 * cases at every boundary of the notation, and for a million doubles of
 * every magnitude that the text reads back to the same double, that no
 * shorter digit string does, and that it always reads as a decimal; every
 * power of two shortest (its rounding interval is lopsided); the exact
 * big-integer decisions of the shortest-digits scaling against its 128-bit
 * products; and the core's locale-free reading (sdui__strtod) and
 * fixed-point writing (sdui__number_fixed) against the C library's in the
 * "C" locale.  (test_number_ref.cpp compares with a reference library.)
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdui/number.h"
#include "../../csrc/internal.h"

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
    /* Powers of two: 16 digits read back, 17 were written before. */
    CHECK_EQ_STR(text(ldexp(1, -1017)), "7.120236347223045e-307");
    CHECK_EQ_STR(text(ldexp(1, 976)), "6.386688990511104e293");
    CHECK_EQ_STR(text(ldexp(1, 710)), "5.386379163185535e213");
    CHECK_EQ_STR(text(-ldexp(1, 896)), "-5.282945311356653e269");
    CHECK_EQ_STR(text(ldexp(1, -1074)), "5e-324");
    CHECK_EQ_STR(text(ldexp(1, 53)), "9007199254740992.0");
    CHECK_EQ_STR(text(ldexp(1, 70)), "1.1805916207174113e21");
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

/* Every power of two: the shortest digits that read back (none shorter
 * does), the neighbours below being half as far as those above. */
static void test_powers_of_two(void)
{
    unsigned long bad_trip = 0, bad_short = 0;
    for (int e = -1074; e <= 1023; e++) {
        double d = ldexp(1, e);
        const char *t = text(d);
        if (strtod(t, NULL) != d) bad_trip++;
        int nd = digits(t);
        if (nd > 1) {
            char shorter[40];
            snprintf(shorter, sizeof shorter, "%.*e", nd - 2, d);
            if (strtod(shorter, NULL) == d) bad_short++;
        }
    }
    CHECKF(bad_trip == 0, "%lu powers of two did not read back", bad_trip);
    CHECKF(bad_short == 0, "%lu powers of two were not the shortest", bad_short);
}

/* The scaling's 128-bit products agree with exact big-integer compares,
 * for doubles of every kind (random, powers of two, integers, short
 * decimals, subnormals). */
static void test_scale_exact(void)
{
    uint64_t x = 0x2545F4914F6CDD1Du;
    unsigned long bad = 0, n = 0;
    for (int i = 0; i < 200000; i++, n++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        double d;
        memcpy(&d, &x, sizeof d);
        if (!sdui__number_check_scale(d)) bad++;
    }
    for (int e = -1074; e <= 1023; e++, n += 3) {
        bad += !sdui__number_check_scale(ldexp(1, e));
        bad += !sdui__number_check_scale(nextafter(ldexp(1, e), 0));
        bad += !sdui__number_check_scale(nextafter(ldexp(1, e), INFINITY));
    }
    for (int i = 1; i <= 20000; i++, n += 3) {
        bad += !sdui__number_check_scale((double)i);
        bad += !sdui__number_check_scale(i / 1000.0);
        bad += !sdui__number_check_scale(ldexp((double)i, -1074));
    }
    for (int e = -323; e <= 308; e++, n++) {
        char t[16];
        snprintf(t, sizeof t, "1e%d", e);
        bad += !sdui__number_check_scale(strtod(t, NULL));
    }
    CHECKF(bad == 0, "%lu of %lu doubles scaled differently from the exact compare", bad, n);
}

/* sdui__number_fixed equals printf's %.*f (this process stays in the "C"
 * locale), and says how long the text is when it does not fit. */
static void test_fixed(void)
{
    uint64_t x = 0x9E3779B97F4A7C15u;
    unsigned long bad = 0;
    char got[400], want[400];
    static const double cases[] = {0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.005, 1.005,
                                   2.675, 1e-7, -1e-7, 123456.789, 9007199254740993.0,
                                   1e300, -1.7976931348623157e308, 5e-324, 0.045};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int dg = 0; dg <= 15; dg++) {
            sdui__number_fixed(cases[i], dg, got, sizeof got);
            snprintf(want, sizeof want, "%.*f", dg, cases[i]);
            CHECKF(strcmp(got, want) == 0, "fixed(%.17g, %d): %s, printf %s", cases[i], dg, got, want);
        }
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        double d;
        memcpy(&d, &x, sizeof d);
        if (!isfinite(d))
            continue;
        if (i % 3 == 1)
            d = ldexp(d - trunc(d) + (double)(x % 1000), -(int)(x % 40)); /* small */
        int dg = (int)(x >> 60);
        if (dg > 15) dg = 15;
        int n = sdui__number_fixed(d, dg, got, sizeof got);
        int m = snprintf(want, sizeof want, "%.*f", dg, d);
        if (n != m || strcmp(got, want) != 0) {
            if (++bad <= 5)
                fprintf(stderr, "fixed(%a, %d): %s, printf %s\n", d, dg, got, want);
        }
    }
    CHECKF(bad == 0, "%lu fixed texts differ from printf's", bad);
    char small[4];
    CHECK_EQ_INT(sdui__number_fixed(-12.5, 2, small, sizeof small), 6);
}

/* sdui__strtod reads as strtod does in the "C" locale. */
static void test_strtod(void)
{
    static const char *cases[] = {"1.5", "-0.0", "2.5e3", "1e400", "-1e400", "1e-400",
                                  "4.9406564584124654e-324", "2.2250738585072011e-308",
                                  "9007199254740993", "0.1", "1.7976931348623157e308",
                                  "123456789012345678901234567890e-10", "1.5x", ".5", "abc"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *e1, *e2;
        errno = 0;
        double a = sdui__strtod(cases[i], &e1);
        int err1 = errno;
        errno = 0;
        double b = strtod(cases[i], &e2);
        int err2 = errno;
        CHECKF(memcmp(&a, &b, sizeof a) == 0 && e1 == e2 && err1 == err2,
               "sdui__strtod(\"%s\") = %a (end %d, errno %d), strtod %a (end %d, errno %d)",
               cases[i], a, (int)(e1 - cases[i]), err1, b, (int)(e2 - cases[i]), err2);
    }
}

int main(void)
{
    test_cases();
    test_round_trip();
    test_powers_of_two();
    test_scale_exact();
    test_fixed();
    test_strtod();
    return check_summary();
}
