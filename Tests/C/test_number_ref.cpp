/*
 * test_number_ref.cpp - sdui_number_text against a reference: Google's
 * double-conversion (DoubleToStringConverter::DoubleToAscii in SHORTEST
 * mode, the shortest digits that read back, the closest of them to the
 * value) on 10,000,000 doubles: random bit patterns, then sets where
 * shortest-digit methods go wrong: every power of two (an asymmetric
 * rounding interval), subnormals, the edges of the exponent range and of
 * each binade, integers near 2^53, powers of ten and their neighbours, and
 * short decimals (whose scaled values are exact integers).  The reference's
 * digits are laid out by the rule of number.h here, independently of
 * number.c, and the two texts must be equal byte for byte.
 *
 * C++ because double-conversion is a C++ library; built by the Makefile's
 * rule for Tests/C/test_*.cpp.
 */
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <double-conversion/double-to-string.h>

#include "check.h"
#include "sdui/number.h"

using double_conversion::DoubleToStringConverter;

namespace {

/* Appends n bytes of s at *p. */
void put(char **p, const char *s, size_t n)
{
    memcpy(*p, s, n);
    *p += n;
}

/* The rule of number.h, from the reference's digits, into out; its length. */
size_t expected(double d, char *out)
{
    char *p = out;
    if (std::isnan(d) || std::isinf(d)) {
        const char *t = std::isnan(d) ? "nan" : d < 0 ? "-inf" : "inf";
        put(&p, t, strlen(t));
        return (size_t)(p - out);
    }
    if (std::signbit(d))
        *p++ = '-';
    if (d == 0) {
        put(&p, "0.0", 3);
        return (size_t)(p - out);
    }
    char dig[32];
    bool sign;
    int length, point;
    DoubleToStringConverter::DoubleToAscii(std::fabs(d), DoubleToStringConverter::SHORTEST, 0,
                                           dig, sizeof dig, &sign, &length, &point);
    int ex = point - 1; /* exponent of the first digit */
    if (ex >= -6 && ex < 21) {
        if (ex < 0) {
            put(&p, "0.", 2);
            for (int i = 0; i < -ex - 1; i++)
                *p++ = '0';
            put(&p, dig, (size_t)length);
        } else if (length <= ex + 1) {
            put(&p, dig, (size_t)length);
            for (int i = length; i < ex + 1; i++)
                *p++ = '0';
            put(&p, ".0", 2);
        } else {
            put(&p, dig, (size_t)ex + 1);
            *p++ = '.';
            put(&p, dig + ex + 1, (size_t)(length - ex - 1));
        }
    } else {
        *p++ = dig[0];
        if (length > 1) {
            *p++ = '.';
            put(&p, dig + 1, (size_t)length - 1);
        }
        p += snprintf(p, 8, "e%d", ex);
    }
    return (size_t)(p - out);
}

unsigned long compared, differed;

/* Compares one double; prints the first few differences. */
void compare(double d)
{
    char buf[SDUI_NUMBER_TEXT_MAX], want[64];
    size_t n = sdui_number_text(d, buf), wn = expected(d, want);
    compared++;
    if (n != wn || memcmp(buf, want, n) != 0) {
        want[wn] = 0;
        if (++differed <= 10)
            fprintf(stderr, "%a: sdui_number_text gives %s, the reference %s\n", d, buf, want);
    }
}

/* splitmix64: the random source. */
uint64_t next(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

uint64_t to_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* d and its neighbours within w steps each way, both signs. */
void around(double d, int w)
{
    uint64_t b = to_bits(d) & 0x7FFFFFFFFFFFFFFFu;
    for (int i = -w; i <= w; i++) {
        uint64_t c = b + (uint64_t)(int64_t)i;
        if (i < 0 && (uint64_t)(-i) > b)
            continue;
        compare(from_bits(c));
        compare(-from_bits(c));
    }
}

} // namespace

int main()
{
    const unsigned long total = 10000000;
    uint64_t x = 0x5D0174B5u;

    /* Special sets. */
    for (int e = -1074; e <= 1023; e++)          /* every power of two, +- 2 steps */
        around(std::ldexp(1.0, e), 2);
    for (int i = 0; i < 200000; i++)              /* subnormals */
        compare(from_bits(next(&x) & 0x000FFFFFFFFFFFFFu));
    for (int i = 1; i <= 2000; i++) {             /* the smallest subnormals */
        compare(from_bits((uint64_t)i));
        compare(from_bits(0x0010000000000000u - (uint64_t)i));
    }
    around(DBL_MIN, 50);
    around(DBL_MAX, 50);
    around(9007199254740992.0, 5000);             /* integers near 2^53 */
    for (int64_t i = -5000; i <= 5000; i++)
        compare((double)(INT64_C(9007199254740992) + i * 2));
    for (int e = -323; e <= 308; e++)             /* powers of ten */
        around(std::strtod(("1e" + std::to_string(e)).c_str(), nullptr), 3);
    for (int i = 0; i < 200000; i++) {            /* short decimals */
        char t[40];
        snprintf(t, sizeof t, "%llue%d", (unsigned long long)(next(&x) % 100000000u),
                 (int)(next(&x) % 640) - 330);
        compare(std::strtod(t, nullptr));
    }
    for (int i = 0; i < 100000; i++)              /* small integers and halves */
        compare((double)(next(&x) % 100000000u) / 4.0);
    CHECKF(compared < total, "the special sets alone are %lu doubles", compared);

    /* The rest: random bit patterns. */
    while (compared < total)
        compare(from_bits(next(&x)));

    CHECKF(differed == 0, "%lu of %lu doubles differ from the reference", differed, compared);
    printf("compared %lu doubles with double-conversion's shortest\n", compared);
    return check_summary();
}
