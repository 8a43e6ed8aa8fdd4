/*
 * number.c - the one number-to-text rule (number.h), and the core's
 * locale-free reading of decimal text and fixed-point writing (internal.h).
 *
 * Shortest digits (the Schubfach method of R. Giulietti, "The Schubfach
 * way to render doubles", 2020; our own code).
 *
 * A finite positive double is v = c * 2^q with an integer c (the
 * significand with its hidden bit: 2^52 <= c < 2^53 for normal values, c
 * < 2^52 for subnormals with q = -1074).  Read back with round-half-even,
 * every real in its rounding interval R turns into v: R reaches halfway to
 * each neighbour, so with the neighbours at c +- 1 it is
 * [(4c - 2) * 2^(q-2), (4c + 2) * 2^(q-2)], except when v is a power of two
 * above the smallest normal (c = 2^52, q > -1074): the neighbour below is
 * then only half a step away and R starts at (4c - 1) * 2^(q-2).  R holds
 * its ends when c is even (a tie reads back to the even significand) and
 * not when c is odd.  We want the decimal in R with the fewest significant
 * digits, and among those the one closest to v (ties to an even last
 * digit, as the paper says).
 *
 * Scaling.  Take the decimal exponent k = floor(log10(2^q)) (for the power
 * of two case k = floor(log10(3/4 * 2^q))), so the width of R in units of
 * 10^k is in [1, 10).  Multiply v and both ends of R by 4 * 10^-k: vb,
 * vbl, vbr, whose integer parts are the candidates' scaled values times 4.
 * R is at least one unit wide, so an integer s with s * 10^k in R always
 * exists, and it is less than ten units wide, so at most one multiple of
 * ten lies in it:
 *   - if a multiple of ten (s10 or s10 + 10 around s = floor(v / 10^k))
 *     lies in R, it has fewer significant digits than any other candidate
 *     at this scale, and nothing at a coarser scale can lie in R without
 *     being that multiple, so it is the answer (its trailing zeros are
 *     dropped).  Skipped when s < 10: then 10 has as many digits as s;
 *   - otherwise the answer is s or s + 1, whichever lies in R; when both
 *     do, the one closer to v, an even one on a tie.
 * (When the width were exactly one unit and both ends open, neither s nor
 * s + 1 might lie in R; that needs 2^q = 10^k, so q = k = 0, where v = c
 * itself is a candidate.)
 *
 * The products.  10^-k is not a binary fraction, so the table
 * (number_pow10.h, made and checked by scripts/gen-number-pow10.py) holds
 * g = floor(10^-k / 2^r) + 1, a 126-bit integer, with 10^-k = (g - d) * 2^r
 * and 0 < d <= 1.  With x = (4c + j) << h for the right h (3 to 6, which
 * the script checks), x * g / 2^128 is vb (or vbl, vbr) and its exact
 * value is x * (g - d) / 2^128, between x * g - x and x * g, over 2^128.
 * We need the integer part of each and whether a fraction remains (a
 * fraction is kept as a set lowest bit, "round to odd": comparing an odd
 * number with 4 * s, a multiple of four, then tells above from below
 * exactly).  So:
 *   - when the 128 bits below the integer part of x * g exceed x, the
 *     exact product lies strictly between the same two integers: the
 *     integer part is right and a fraction remains;
 *   - otherwise the exact value is within x / 2^128 of an integer N (the
 *     integer part of x * g).  It is exactly N when (4c + j) * 2^(q-k) *
 *     5^-k is an integer, which two divisibility tests decide (powers of
 *     two by the trailing zeros, powers of five below 2^64 by a remainder):
 *     that happens for every integer and every short decimal, and then N
 *     is the answer with no fraction.  If it is not an integer, a compare
 *     of big integers (numerator against N times the denominator) says on
 *     which side of N it lies.  The paper proves this last case never
 *     occurs for doubles; we do not lean on that proof, we decide it
 *     exactly, and the test runs the compare itself against the products.
 * k comes from a multiply and shift that the script checks against exact
 * logarithms for every q a double has.
 *
 * The notation is then chosen from the digits and their exponent (number.h).
 * Nothing here reads the locale.
 *
 * Reading text (sdui__strtod): the C library's strtod with a "C" locale
 * object made once (strtod_l), so the process's locale (setlocale) and the
 * thread's (uselocale) change nothing, and nothing global is read while a
 * host thread switches locales.  Fixed-point text (sdui__number_fixed):
 * the double's exact value times 10^digits, rounded half-even, in big
 * integers, as printf's %.*f gives it in the "C" locale.
 */
#if !defined(_GNU_SOURCE) && !defined(__APPLE__) && !defined(_WIN32)
#define _GNU_SOURCE /* strtod_l (glibc, musl) */
#endif

#include "sdui/number.h"

#include <assert.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__APPLE__)
#include <xlocale.h>
#endif

#include "internal.h"
#include "number_pow10.h"

/* ---- 64 x 64 -> 128-bit products ---------------------------------------- */

/* The high and low halves of a * b. */
static inline uint64_t mul64(uint64_t a, uint64_t b, uint64_t *lo)
{
#if defined(__SIZEOF_INT128__)
    unsigned __int128 p = (unsigned __int128)a * b;
    *lo = (uint64_t)p;
    return (uint64_t)(p >> 64);
#else
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32;
    uint64_t b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* ---- Big integers, for the exact decisions ------------------------------ */

/* Enough 32-bit limbs for 2^1100 (the largest product below is about
 * 2^820: a 61-bit number times 5^325 or 2^760). */
#define BIG_LIMBS 36

/* An unsigned big integer, least significant limb first. */
typedef struct big {
    uint32_t l[BIG_LIMBS];
    int n; /* limbs in use; l[n-1] != 0 unless n == 0 */
} big;

/* b = v. */
static void big_set(big *b, uint64_t v)
{
    b->n = 0;
    while (v) {
        b->l[b->n++] = (uint32_t)v;
        v >>= 32;
    }
}

/* b *= m. */
static void big_mul(big *b, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < b->n; i++) {
        uint64_t t = (uint64_t)b->l[i] * m + carry;
        b->l[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) {
        assert(b->n < BIG_LIMBS);
        b->l[b->n++] = (uint32_t)carry;
    }
}

/* b *= 5^e. */
static void big_mul_pow5(big *b, int e)
{
    for (; e >= 13; e -= 13)
        big_mul(b, 1220703125u); /* 5^13 */
    if (e > 0) {
        uint32_t m = 1;
        while (e--)
            m *= 5;
        big_mul(b, m);
    }
}

/* b <<= e. */
static void big_shl(big *b, int e)
{
    int words = e / 32, bits = e % 32;
    if (b->n == 0)
        return;
    assert(b->n + words + 1 <= BIG_LIMBS);
    b->l[b->n + words] = 0;
    for (int i = b->n - 1; i >= 0; i--) {
        uint32_t v = b->l[i];
        if (bits) {
            b->l[i + words + 1] |= v >> (32 - bits);
            b->l[i + words] = v << bits;
        } else {
            b->l[i + words] = v;
        }
    }
    for (int i = 0; i < words; i++)
        b->l[i] = 0;
    b->n += words + 1;
    while (b->n > 0 && b->l[b->n - 1] == 0)
        b->n--;
}

/* Bit i of b (0 past its end). */
static int big_bit(const big *b, int i)
{
    return i >= 0 && i / 32 < b->n ? (int)((b->l[i / 32] >> (i % 32)) & 1) : 0;
}

/* -1, 0 or 1 as a < b, a == b, a > b. */
static int big_cmp(const big *a, const big *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->l[i] != b->l[i])
            return a->l[i] < b->l[i] ? -1 : 1;
    return 0;
}

/* The sign of m * 2^e2 * 5^e5 - n, exactly. */
static int scaled_cmp(uint64_t m, int e2, int e5, uint64_t n)
{
    big a, b;
    big_set(&a, m);
    big_set(&b, n);
    if (e5 > 0)
        big_mul_pow5(&a, e5);
    else
        big_mul_pow5(&b, -e5);
    if (e2 > 0)
        big_shl(&a, e2);
    else
        big_shl(&b, -e2);
    return big_cmp(&a, &b);
}

/* Whether m * 2^e2 * 5^e5 is an integer (m > 0). */
static int scaled_is_integer(uint64_t m, int e2, int e5)
{
    if (e2 < 0) {
        if (e2 < -63 || (m & ((UINT64_C(1) << -e2) - 1)) != 0)
            return 0;
    }
    if (e5 < 0) {
        uint64_t p = 1;
        for (int i = 0; i < -e5; i++) {
            if (p > m / 5)
                return 0; /* 5^-e5 > m: no multiple but 0 */
            p *= 5;
        }
        if (m % p != 0)
            return 0;
    }
    return 1;
}

/* ---- Shortest digits ---------------------------------------------------- */

/* floor((q * m - b) / 2^s) for q of either sign. */
static int floor_shift(int q, int m, int b, int s)
{
    int64_t t = (int64_t)q * m - b;
    return t >= 0 ? (int)(t >> s) : -(int)((-t + (INT64_C(1) << s) - 1) >> s);
}

/*
 * y * 2^q * 10^-k, with h and g(k) lined up (top of the file): the integer
 * part, its lowest bit set when a fraction remains.
 */
static uint64_t scale(uint64_t y, int q, int k, int h,
                      const struct number_pow10 *g)
{
    uint64_t x = y << h, hi_lo, hi_hi, lo_lo, lo_hi, mid, n;
    assert(h >= 3 && h <= 6 && y < (UINT64_C(1) << 57));
    /* x * g = x * g.hi * 2^64 + x * g.lo: three 64-bit words n:mid:lo_lo. */
    hi_hi = mul64(x, g->hi, &hi_lo);
    lo_hi = mul64(x, g->lo, &lo_lo);
    mid = hi_lo + lo_hi;
    n = hi_hi + (mid < hi_lo);
    if (mid != 0 || lo_lo > x)
        return n | 1;
    /* Within x / 2^128 of n: decide exactly. */
    if (scaled_is_integer(y, q - k, -k))
        return n;
    assert(n > 0);
    return scaled_cmp(y, q - k, -k, n) > 0 ? n | 1 : (n - 1) | 1;
}

/* The shortest digits of v = c * 2^q > 0: *f * 10^*k, no trailing zeros. */
static void shortest(uint64_t c, int q, int irregular, uint64_t *f, int *k)
{
    int kk, h;
    uint64_t cb = c << 2, out = c & 1, vb, vbl, vbr, s, t;
    const struct number_pow10 *g;
    if (irregular)
        kk = floor_shift(q, NUMBER_LOG10_3_4_M, NUMBER_LOG10_3_4_B, NUMBER_LOG10_SHIFT);
    else
        kk = floor_shift(q, NUMBER_LOG10_2_M, 0, NUMBER_LOG10_SHIFT);
    assert(kk >= NUMBER_K_MIN && kk <= NUMBER_K_MAX);
    g = &number_pow10[kk - NUMBER_K_MIN];
    h = q + g->r + 128;
    vb = scale(cb, q, kk, h, g);
    vbl = scale(cb - 2 + (uint64_t)irregular, q, kk, h, g);
    vbr = scale(cb + 2, q, kk, h, g);
    s = vb >> 2;
    if (s >= 10) {
        uint64_t s10 = s / 10 * 10, t10 = s10 + 10;
        int u_in = vbl + out <= s10 << 2, w_in = (t10 << 2) + out <= vbr;
        if (u_in != w_in) {
            *f = u_in ? s10 : t10;
            *k = kk;
            goto trim;
        }
    }
    t = s + 1;
    {
        int u_in = vbl + out <= s << 2, w_in = (t << 2) + out <= vbr;
        if (u_in != w_in) {
            *f = u_in ? s : t;
        } else {
            /* Both in (R is at least one unit wide): the closer; on a
             * tie (vb == 4s + 2) the even one. */
            uint64_t mid = (s + t) << 1;
            *f = vb < mid || (vb == mid && (s & 1) == 0) ? s : t;
        }
        *k = kk;
    }
trim:
    while (*f % 10 == 0) {
        *f /= 10;
        (*k)++;
    }
}

/* Takes d apart: *c * 2^*q; *irregular for a power of two whose neighbour
 * below is nearer.  d finite and > 0. */
static void split(double d, uint64_t *c, int *q, int *irregular)
{
    uint64_t bits;
    int e;
    memcpy(&bits, &d, sizeof bits);
    e = (int)(bits >> 52) & 0x7FF;
    *c = bits & ((UINT64_C(1) << 52) - 1);
    *irregular = 0;
    if (e == 0) {
        *q = -1074;
    } else {
        *irregular = *c == 0 && e > 1;
        *c |= UINT64_C(1) << 52;
        *q = e - 1075;
    }
}

/* Writes d by the rule into buf; see number.h. */
size_t sdui_number_text(double d, char *buf)
{
    char dig[24];
    int nd = 0, k = 0, ex, q, irregular;
    uint64_t c, f;
    assert(buf != NULL);
    if (isnan(d)) {
        memcpy(buf, "nan", 4);
        return 3;
    }
    if (isinf(d)) {
        const char *t = d < 0 ? "-inf" : "inf";
        memcpy(buf, t, strlen(t) + 1);
        return strlen(t);
    }
    if (signbit(d))
        buf[k++] = '-';
    if (d == 0) {
        memcpy(buf + k, "0.0", 4);
        return (size_t)k + 3;
    }
    split(fabs(d), &c, &q, &irregular);
    shortest(c, q, irregular, &f, &ex);
    for (uint64_t r = f; r; r /= 10)
        nd++;
    assert(nd >= 1 && nd <= 17);
    for (int i = nd - 1; i >= 0; i--, f /= 10)
        dig[i] = (char)('0' + f % 10);
    ex += nd - 1; /* the exponent of the first digit */
    if (ex >= -6 && ex < 21) {
        if (ex < 0) {
            buf[k++] = '0';
            buf[k++] = '.';
            for (int z = 0; z < -ex - 1; z++)
                buf[k++] = '0';
            for (int z = 0; z < nd; z++)
                buf[k++] = dig[z];
        } else {
            for (int z = 0; z <= ex; z++)
                buf[k++] = z < nd ? dig[z] : '0';
            buf[k++] = '.';
            if (nd > ex + 1)
                for (int z = ex + 1; z < nd; z++)
                    buf[k++] = dig[z];
            else
                buf[k++] = '0';
        }
    } else {
        buf[k++] = dig[0];
        if (nd > 1) {
            buf[k++] = '.';
            for (int z = 1; z < nd; z++)
                buf[k++] = dig[z];
        }
        buf[k++] = 'e';
        if (ex < 0) {
            buf[k++] = '-';
            ex = -ex;
        }
        if (ex >= 100)
            buf[k++] = (char)('0' + ex / 100);
        if (ex >= 10)
            buf[k++] = (char)('0' + ex / 10 % 10);
        buf[k++] = (char)('0' + ex % 10);
    }
    assert(k < SDUI_NUMBER_TEXT_MAX);
    buf[k] = 0;
    return (size_t)k;
}

/* Checks the exact compare against the 128-bit products for d (internal.h). */
int sdui__number_check_scale(double d)
{
    uint64_t c, bad = 0;
    int q, irregular, kk;
    if (!isfinite(d) || d == 0)
        return 1;
    split(fabs(d), &c, &q, &irregular);
    kk = irregular ? floor_shift(q, NUMBER_LOG10_3_4_M, NUMBER_LOG10_3_4_B, NUMBER_LOG10_SHIFT)
                   : floor_shift(q, NUMBER_LOG10_2_M, 0, NUMBER_LOG10_SHIFT);
    const struct number_pow10 *g = &number_pow10[kk - NUMBER_K_MIN];
    int h = q + g->r + 128;
    for (int j = -2; j <= 2; j += 2) {
        uint64_t y = (c << 2) + (uint64_t)(int64_t)j, v = scale(y, q, kk, h, g);
        int exact = scaled_cmp(y, q - kk, -kk, v) == 0;
        /* v is the exact value, or (odd) a non-integer between v - 1 and
         * v + 1, whose integer part v - 1 or v it stands for. */
        if (!exact && (!(v & 1) || scaled_is_integer(y, q - kk, -kk) ||
                       scaled_cmp(y, q - kk, -kk, v - 1) <= 0 ||
                       scaled_cmp(y, q - kk, -kk, v + 1) >= 0))
            bad++;
    }
    return bad == 0;
}

/* ---- Reading decimal text ----------------------------------------------- */

#if defined(_WIN32)
typedef _locale_t c_locale_t;
#else
typedef locale_t c_locale_t;
#endif

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static c_locale_t c_locale;

/* Makes the "C" locale object, once (never freed: it lives as long as the
 * process may read numbers). */
static void make_c_locale(void)
{
#if defined(_WIN32)
    c_locale = _create_locale(LC_ALL, "C");
#else
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
#endif
}

/* Reads a decimal as strtod in the "C" locale (internal.h). */
double sdui__strtod(const char *s, char **end)
{
    pthread_once(&c_locale_once, make_c_locale);
    if (SDUI_UNLIKELY(!c_locale)) {
        /* The C library could not make a "C" locale (glibc's is static
         * and never fails).  Say nothing was read rather than read in
         * whatever locale the host has set. */
        if (end)
            *end = (char *)s;
        errno = ENOMEM;
        return 0.0;
    }
#if defined(_WIN32)
    return _strtod_l(s, end, c_locale);
#else
    return strtod_l(s, end, c_locale);
#endif
}

/* ---- Fixed-point text --------------------------------------------------- */

/* Writes d rounded to digits (0..15) places as %.*f would in the "C"
 * locale (internal.h). */
int sdui__number_fixed(double d, int digits, char *buf, size_t size)
{
    char tmp[400];
    int n = 0, k = 0;
    uint64_t c;
    int q, irregular;
    big b;
    assert(digits >= 0 && digits <= 15 && isfinite(d));
    if (d == 0) {
        big_set(&b, 0);
    } else {
        split(fabs(d), &c, &q, &irregular);
        /* N = round-half-even(c * 10^digits * 2^q). */
        big_set(&b, c);
        for (int i = 0; i < digits; i++)
            big_mul(&b, 10);
        if (q >= 0) {
            big_shl(&b, q);
        } else {
            /* b >> -q, the bits shifted out deciding the rounding. */
            int sh = -q, half = big_bit(&b, sh - 1), sticky = 0;
            big r;
            for (int i = 0; i < sh - 1 && i < b.n * 32 && !sticky; i++)
                sticky = big_bit(&b, i);
            r.n = 0;
            for (int i = sh / 32, bits = sh % 32; i < b.n; i++) {
                uint64_t v = b.l[i] >> bits;
                if (bits && i + 1 < b.n)
                    v |= (uint64_t)b.l[i + 1] << (32 - bits);
                r.l[r.n++] = (uint32_t)v;
            }
            while (r.n > 0 && r.l[r.n - 1] == 0)
                r.n--;
            if (half && (sticky || (r.n > 0 && (r.l[0] & 1)))) {
                /* r += 1 */
                int i = 0;
                for (; i < r.n; i++)
                    if (++r.l[i] != 0)
                        break;
                if (i == r.n) {
                    assert(r.n < BIG_LIMBS);
                    r.l[r.n++] = 1;
                }
            }
            b = r;
        }
    }
    /* The decimal digits of b, last first. */
    while (b.n > 0) {
        uint64_t rem = 0;
        for (int i = b.n - 1; i >= 0; i--) {
            uint64_t cur = (rem << 32) | b.l[i];
            b.l[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (b.n > 0 && b.l[b.n - 1] == 0)
            b.n--;
        for (int i = 0; i < 9 && (b.n > 0 || rem); i++) {
            assert(n < (int)sizeof tmp);
            tmp[n++] = (char)('0' + rem % 10);
            rem /= 10;
        }
    }
    while (n < digits + 1)
        tmp[n++] = '0';
    /* Sign, integer digits, point, fraction digits. */
    if (signbit(d))
        k++;
    k += n + (digits > 0);
    if ((size_t)k >= size)
        return k;
    k = 0;
    if (signbit(d))
        buf[k++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        if (i == digits - 1)
            buf[k++] = '.';
        buf[k++] = tmp[i];
    }
    buf[k] = 0;
    return k;
}
