/*
 * expr_fn.c - the functions of the expression language
 * (docs/expressions.md, "Functions"): the table the parser looks names up
 * in, and every function's body.
 *
 * The table.  One row per function, as SQLite registers its functions:
 * the name, the least and most argument count (max -1: any number), and
 * one C function that computes the result from the evaluated arguments
 * (sdui_xfn_call in expr_internal.h says what a body may assume and must
 * do).  The parser finds the row by name and refuses a wrong argument
 * count, and stores the row in the call's node; the evaluator evaluates
 * the arguments left to right and calls the row's function.  Nothing else
 * lists the functions: no enum, no second table, no switch.
 *
 * Adding a function is one row in sdui__expr_fns (below), one function
 * body above it, and its tests: cases in Tests/ExprVectors/functions.json
 * (values, type errors, the bounds), a case in Tests/C/test_expr_fns.c
 * when the C API shows something the vectors cannot, and its line in the
 * functions table of docs/expressions.md.  Tests/C/test_expr_fns.c checks
 * that every row is well-formed (a name the parser can reach, unique,
 * argument counts in order, a body), that the parser honours its counts,
 * and that each row has vectors and a docs line.  A body counts the work
 * it does past the call's own step, with sdui__expr_step and
 * sdui__expr_step_bytes, before or while doing it (the essay at the top
 * of expr_eval.c), allocates only from the arena (sdui__expr_new_str,
 * sdui__expr_new_arr), and reports errors with sdui__expr_fail, which
 * names the call's text and byte offset.
 *
 * Algorithms worth an essay live beside the body that uses them: the
 * two-way substring search of contains(), the exact 128-bit sums of sum()
 * and avg(), the counted merge sort of keys(); matches() runs the regex
 * engine of expr_regex.c, and plural() and the format_*() functions the
 * locale functions of locale.c (an integer passed as its digits, so
 * format_number() writes every digit of one past 2^53).
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"
#include "locale_data.h"
#include "sdui/number.h"

/* ---------- helpers ---------- */

/* The number of Unicode scalar values in a string (bytes that are not
 * UTF-8 continuation bytes) into *count, counting the bytes read a chunk
 * at a time; 0 past the bound. */
static int scalars(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *s, size_t *count)
{
    size_t n = 0;
    for (size_t i = 0; i < s->u.s.n;) {
        size_t end = s->u.s.n - i < SDUI__EXPR_CHUNK ? s->u.s.n : i + SDUI__EXPR_CHUNK;
        if (!sdui__expr_step_bytes(e, nd, end - i))
            return 0;
        for (; i < end; i++)
            n += ((unsigned char)s->u.s.s[i] & 0xC0) != 0x80;
    }
    *count = n;
    return 1;
}

/* 1 for a space, tab, CR or LF. */
static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The length of the run of spaces, tabs, CR and LF at the start of s[0,n)
 * (or at its end: from_end) into *run, counting the bytes read a chunk
 * at a time; 0 past the bound. */
static int space_run(sdui_xeval *e, const sdui_xnode *nd, const char *s, size_t n, int from_end,
                     size_t *run)
{
    size_t k = 0;
    *run = 0;
    while (k < n) {
        size_t end = n - k < SDUI__EXPR_CHUNK ? n : k + SDUI__EXPR_CHUNK;
        if (!sdui__expr_step_bytes(e, nd, end - k))
            return 0;
        if (from_end) {
            for (; k < end && is_space(s[n - 1 - k]); k++)
                ;
        } else {
            for (; k < end && is_space(s[k]); k++)
                ;
        }
        if (k < end) {
            *run = k;
            return 1;
        }
    }
    *run = n;
    return 1;
}

/*
 * Substring search: the two-way algorithm of Crochemore and Perrin
 * (1991), linear in the text whatever the needle, in constant space.
 *
 * The needle x[0,m) is cut into a left part x[0,l) and a right part
 * x[l,m) at a critical position: one where the shortest square centred on
 * it is as long as the needle's whole period allows.  The later of the two
 * maximal suffixes of x, one under the byte order and one under its
 * reverse, starts at such a position (max_suffix finds each in linear
 * time, with the period of the suffix).  A window of the text is checked
 * right part first, left to right; a mismatch at x[i] lets the window move
 * by i - l + 1, since at a critical position no occurrence can start in
 * between.  When the right part matches, the left part is checked right
 * to left, and the window then moves by the period p when x is periodic
 * (x[0,l) equals x[p,p+l)), else by max(l, m - l) + 1.  In the periodic
 * case the bytes the last window proved (the needle's first m - p, which
 * the shifted window still covers) are remembered and not read again.
 * Each text byte is then compared at most twice, so a search costs at
 * most 2n + m comparisons (plus 2m for the cut), all counted, with three
 * more for each window (its shift and loop).
 */

/* Counts the byte comparisons gathered in *work once they make a chunk
 * (a step per SDUI_EXPR_STEP_BYTES), keeping the rest; 0 past the
 * bound. */
static int count_work(sdui_xeval *e, const sdui_xnode *nd, unsigned long *work)
{
    if (*work < (unsigned long)SDUI__EXPR_CHUNK)
        return 1;
    if (!sdui__expr_step(e, nd, *work / SDUI_EXPR_STEP_BYTES))
        return 0;
    *work %= SDUI_EXPR_STEP_BYTES;
    return 1;
}

/* The start of the maximal suffix of x[0,m) (m >= 1) under the byte
 * order, or under its reverse when rev, into *start, and that suffix's
 * period into *per; the bytes compared are added to *work and counted as
 * it goes (count_work).  0 past the bound. */
static int max_suffix(sdui_xeval *e, const sdui_xnode *nd, const unsigned char *x, size_t m,
                      int rev, size_t *start, size_t *per, unsigned long *work)
{
    size_t best = 0;     /* the maximal suffix so far starts here */
    size_t rival = 1;    /* the suffix compared with it */
    size_t k = 0;        /* how far the two agree */
    size_t p = 1;        /* the period of the best suffix so far */
    while (rival + k < m) {
        unsigned char a = x[rival + k], b = x[best + k];
        (*work)++;
        if (a == b) {
            /* One period more agrees: the rival is the best one shifted. */
            if (k + 1 == p) {
                rival += p;
                k = 0;
            } else {
                k++;
            }
        } else if ((a < b) != rev) {
            /* The rival is smaller: every suffix up to its mismatch is. */
            rival += k + 1;
            k = 0;
            p = rival - best;
        } else {
            /* The rival is larger: it becomes the best. */
            best = rival;
            rival = best + 1;
            k = 0;
            p = 1;
        }
        if (!count_work(e, nd, work))
            return 0;
    }
    *start = best;
    *per = p;
    return 1;
}

/* Whether needle[0,m) occurs in hay[0,n) into *found (two-way, above), counting
 * the comparisons (a step per SDUI_EXPR_STEP_BYTES of them) as it goes;
 * 0 past the bound. */
static int search(sdui_xeval *e, const sdui_xnode *nd, const char *hay, size_t n,
                  const char *needle, size_t m, int *found)
{
    const unsigned char *y = (const unsigned char *)hay;
    const unsigned char *x = (const unsigned char *)needle;
    unsigned long work = 0;
    size_t l, p, p2, l2, j = 0, memo = 0;
    int periodic;

    *found = 0;
    if (m == 0) {
        *found = 1;
        return sdui__expr_step(e, nd, 1);
    }
    if (m > n)
        return sdui__expr_step(e, nd, 1);
    if (!max_suffix(e, nd, x, m, 0, &l, &p, &work) ||
        !max_suffix(e, nd, x, m, 1, &l2, &p2, &work))
        return 0;
    if (l2 > l) {
        l = l2;
        p = p2;
    }
    /* The periodicity test, and one window's comparisons paid ahead: a
     * window checks up to m bytes before the next count. */
    work += l + m;
    if (!count_work(e, nd, &work))
        return 0;
    periodic = l + p <= m && memcmp(x, x + p, l) == 0;
    if (!periodic)
        p = (l > m - l ? l : m - l) + 1;
    while (j <= n - m) {
        size_t start = periodic && memo > l ? memo : l, i = start;
        while (i < m && x[i] == y[j + i])
            i++;
        /* The bytes compared, and the window's own work. */
        work += i - start + 4;
        if (i < m) {
            /* A mismatch in the right part. */
            j += i - l + 1;
            memo = 0;
        } else {
            /* The right part matches: the left part, right to left, down
             * to what the last window proved. */
            size_t k = l, floor = periodic ? memo : 0;
            while (k > floor && x[k - 1] == y[j + k - 1])
                k--;
            work += l - k + 1;
            if (k <= floor) {
                *found = 1;
                break;
            }
            j += p;
            memo = periodic ? m - p : 0;
        }
        if (!count_work(e, nd, &work))
            return 0;
    }
    return sdui__expr_step(e, nd, 1 + work / SDUI_EXPR_STEP_BYTES);
}

/* Rounds half away from zero to digits places. */
static double round_to(double x, int64_t digits)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    double p = p10[digits];
    if (fabs(x) * p >= 4503599627370496.0)
        return x;
    return round(x * p) / p;
}

/* A double that is integral into an int64; 0 (overflow) out of range. */
static int to_i(sdui_xeval *e, const sdui_xnode *nd, double d, sdui_xval *out)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return sdui__expr_fail(e, SDUI_EXPR_OVERFLOW, nd, "result outside the 64-bit integer range");
    *out = sdui__expr_mkv(V_INT);
    out->u.i = (int64_t)d;
    return 1;
}

/* Parses a whole string as a number (int when it is an integer literal);
 * 0 if it is not one.  int_only: integer literals only. */
static int parse_num_text(const sdui_xval *s, int int_only, sdui_xval *out)
{
    char buf[400];
    size_t n = s->u.s.n, i = 0;
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s->u.s.s, n);
    buf[n] = 0;
    if (buf[i] == '-') i++;
    if (buf[i] < '0' || buf[i] > '9')
        return 0;
    size_t digits_start = i;
    while (buf[i] >= '0' && buf[i] <= '9') i++;
    if (i - digits_start > 1 && buf[digits_start] == '0')
        return 0;
    int real = 0;
    if (buf[i] == '.') {
        real = 1;
        i++;
        if (buf[i] < '0' || buf[i] > '9') return 0;
        while (buf[i] >= '0' && buf[i] <= '9') i++;
    }
    if (buf[i] == 'e' || buf[i] == 'E') {
        real = 1;
        i++;
        if (buf[i] == '+' || buf[i] == '-') i++;
        if (buf[i] < '0' || buf[i] > '9') return 0;
        while (buf[i] >= '0' && buf[i] <= '9') i++;
    }
    if (i != n)
        return 0;
    if (!real) {
        char *end;
        long long v;
        v = strtoll(buf, &end, 10);
        if (v == LLONG_MAX || v == LLONG_MIN) {
            /* Distinguish the edges from out-of-range text. */
            char chk[32];
            snprintf(chk, sizeof chk, "%lld", v);
            if (strcmp(chk, buf) != 0)
                return 0;
        }
        *out = sdui__expr_mkv(V_INT);
        out->u.i = v;
        return 1;
    }
    if (int_only)
        return 0;
    double d = sdui__strtod(buf, NULL);
    if (!isfinite(d))
        return 0;
    *out = sdui__expr_mkv(V_REAL);
    out->u.d = d;
    return 1;
}

/*
 * Exact sums.  sum() and avg() add the integers of an array exactly, in
 * two 64-bit words (hi·2^64 + lo, two's complement: at most 2^20 items of
 * at most 2^63 each stay far inside), so the order of the items never
 * changes an integer result and no sum overflows on its way to a result
 * that fits.  wide_div_round turns such a sum, divided by a count, into
 * the double nearest to the exact quotient (ties to even): the quotient's
 * integer part and remainder by long division in 32-bit pieces, then as
 * many more quotient bits as a double's 53 need plus one to round on, the
 * remainder deciding a tie.  So avg() of integers is their exact mean,
 * rounded once.
 */

/* A wide integer: hi·2^64 + lo. */
typedef struct wide {
    uint64_t lo;
    int64_t hi;
} wide;

/* Adds x to w exactly. */
static void wide_add(wide *w, int64_t x)
{
    uint64_t lo = w->lo + (uint64_t)x;
    /* (uint64_t)x is x + 2^64 for a negative x: take the 2^64 back. */
    w->hi += (int64_t)(lo < w->lo) - (x < 0);
    w->lo = lo;
}

/* The nearest double to (hi·2^64 + lo) / n for the unsigned 128-bit value
 * hi·2^64 + lo and 1 <= n < 2^32, ties to even (the essay above). */
static double wide_div_round(uint64_t hi, uint64_t lo, uint64_t n)
{
    uint64_t part[4] = {hi >> 32, hi & 0xFFFFFFFFu, lo >> 32, lo & 0xFFFFFFFFu};
    uint64_t r = 0, mant;
    int exp = 0, bits, sticky;

    assert(n >= 1 && n <= 0xFFFFFFFFu);
    /* Long division by n, 32 bits at a time: r < n keeps r·2^32 + part
     * inside 64 bits. */
    for (int k = 0; k < 4; k++) {
        uint64_t cur = r << 32 | part[k];
        part[k] = cur / n;
        r = cur % n;
    }
    hi = part[0] << 32 | part[1];
    lo = part[2] << 32 | part[3];
    if (!hi && !lo && !r)
        return 0.0;
    bits = hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
    if (bits > 54) {
        /* The integer part alone has more bits than 53 and a round bit:
         * the ones below are sticky, with the remainder. */
        int shift = bits - 54;
        if (shift >= 64) {
            mant = hi >> (shift - 64);
            sticky = lo != 0 || (hi & ((UINT64_C(1) << (shift - 64)) - 1)) != 0;
        } else {
            mant = lo >> shift | hi << (64 - shift);
            sticky = (lo & ((UINT64_C(1) << shift) - 1)) != 0;
        }
        sticky |= r != 0;
        exp = shift;
    } else {
        /* Fraction bits from the remainder until there are 54. */
        mant = lo;
        while (mant < UINT64_C(1) << 53) {
            r *= 2;
            mant = mant * 2 + (r >= n);
            if (r >= n)
                r -= n;
            exp--;
        }
        sticky = r != 0;
    }
    assert(mant >= UINT64_C(1) << 53 && mant < UINT64_C(1) << 54);
    {
        uint64_t m = mant >> 1;
        if ((mant & 1) && (sticky || (m & 1)))
            m++;
        return ldexp((double)m, exp + 1);
    }
}

/* The nearest double to w / n (1 <= n < 2^32), ties to even. */
static double wide_to_double(wide w, uint64_t n)
{
    if (w.hi < 0) {
        /* The magnitude: two's complement negation of both words. */
        uint64_t lo = ~w.lo + 1, hi = ~(uint64_t)w.hi + (lo == 0);
        return -wide_div_round(hi, lo, n);
    }
    return wide_div_round((uint64_t)w.hi, w.lo, n);
}

/* The smallest (want_min) or largest of the numbers, or of the strings,
 * of an array value into *out: the value itself, the first of equals;
 * null for no items (min/max). */
static int extreme(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *arr, int want_min,
                   sdui_xval *out)
{
    size_t n = sdui__expr_arr_len(arr);
    if (!sdui__expr_step(e, nd, n))
        return 0;
    if (n == 0) {
        *out = sdui__expr_mkv(V_NULL);
        return 1;
    }
    sdui_xval best = sdui__expr_arr_at(arr, 0);
    if (!sdui__expr_is_num(&best) && best.t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "min/max need numbers or strings");
    for (size_t i = 1; i < n; i++) {
        sdui_xval y = sdui__expr_arr_at(arr, i);
        int cmp, r = sdui__expr_order(e, nd, &y, &best, &cmp);
        if (r < 0)
            return 0;
        if (r == 0)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "min/max need all numbers or all strings");
        if (want_min ? cmp < 0 : cmp > 0)
            best = y;
    }
    *out = best;
    out->spread = 0;
    return 1;
}

/* The sum (or, mean, the average) of an array value of numbers into *out:
 * the integers exactly, the decimals in order (the essay above). */
static int add_up(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *arr, int mean,
                  sdui_xval *out)
{
    size_t n = sdui__expr_arr_len(arr);
    wide si = {0, 0};
    double sd = 0;
    int real = 0;
    if (!sdui__expr_step(e, nd, n))
        return 0;
    for (size_t i = 0; i < n; i++) {
        sdui_xval y = sdui__expr_arr_at(arr, i);
        if (!sdui__expr_is_num(&y))
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "sum/avg need an array of numbers");
        if (y.t == V_INT) {
            wide_add(&si, y.u.i);
        } else {
            real = 1;
            sd += y.u.d;
        }
    }
    if (mean) {
        if (n == 0) {
            *out = sdui__expr_mkv(V_NULL);
            return 1;
        }
        if (!real)
            return sdui__expr_real_out(e, nd, wide_to_double(si, n), out);
        return sdui__expr_real_out(e, nd, (wide_to_double(si, 1) + sd) / (double)n, out);
    }
    if (real)
        return sdui__expr_real_out(e, nd, wide_to_double(si, 1) + sd, out);
    if (!(si.hi == 0 && si.lo <= (uint64_t)INT64_MAX) &&
        !(si.hi == -1 && si.lo > (uint64_t)INT64_MAX))
        return sdui__expr_fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
    *out = sdui__expr_mkv(V_INT);
    out->u.i = (int64_t)si.lo;
    return 1;
}

/* Sorts the key strings k[0,n) by byte order: a bottom-up merge sort
 * through tmp (room for n), at most n·log2(n) comparisons, each counted
 * as two steps and its bytes, and a step per 8 keys moved in each pass;
 * 0 past the bound. */
static int sort_keys(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *k, sdui_xval *tmp, size_t n)
{
    sdui_xval *from = k, *to = tmp, *swap;
    for (size_t w = 1; w < n; w *= 2) {
        if (!sdui__expr_step(e, nd, 1 + n / 8))
            return 0;
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = n - lo > w ? lo + w : n;
            size_t hi = n - mid > w ? mid + w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                int c;
                if (!sdui__expr_step(e, nd, 1) ||
                    !sdui__expr_str_cmp(e, nd, &from[j], &from[i], &c))
                    return 0;
                to[o++] = c < 0 ? from[j++] : from[i++];
            }
            while (i < mid)
                to[o++] = from[i++];
            while (j < hi)
                to[o++] = from[j++];
        }
        swap = from;
        from = to;
        to = swap;
    }
    if (from != k)
        memcpy(k, from, n * sizeof *k);
    return 1;
}

/* Renders v as text into a new arena string (string()). */
static int to_string(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *v, sdui_xval *out)
{
    char buf[40];
    sdui_xtext t = {NULL, 0, 0, 0, NULL, NULL, 0};
    if (v->t == V_STR) {
        *out = *v;
        return 1;
    }
    if (v->t == V_REAL) {
        size_t n = sdui_number_text(v->u.d, buf);
        char *s = sdui__expr_new_str(e, nd, n, out);
        if (!s) return 0;
        memcpy(s, buf, n);
        return 1;
    }
    t.e = e;
    t.nd = nd;
    sdui__expr_tx_json(&t, v);
    if (t.bad == 3)
        return 0;
    if (t.bad)
        return sdui__expr_fail(e, SDUI_LIMIT, nd, "string longer than 65536 bytes");
    if (!t.s) /* nothing written cannot happen: JSON text is never empty */
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "empty rendering");
    /* The values visited and the bytes written. */
    if (!sdui__expr_step(e, nd, t.values + t.n / SDUI_EXPR_STEP_BYTES))
        return 0;
    *out = sdui__expr_mkv(V_STR);
    out->u.s.s = t.s; /* NUL-terminated by tx_add */
    out->u.s.n = t.n;
    return 1;
}

/* ---------- the functions, in the table's order ---------- */

/* len(x): the scalar values of a string, the items of an array, the
 * members of an object. */
static int fn_len(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    *out = sdui__expr_mkv(V_INT);
    if (a[0].t == V_STR) {
        size_t n;
        if (!scalars(e, nd, &a[0], &n)) return 0;
        out->u.i = (int64_t)n;
    } else if (sdui__expr_is_arr(&a[0])) out->u.i = (int64_t)sdui__expr_arr_len(&a[0]);
    else if (a[0].t == V_JOBJ) out->u.i = (int64_t)sdui_value_count(a[0].u.j);
    else return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "len needs a string, an array or an object");
    return 1;
}

/* sum(a): of an array of numbers. */
static int fn_sum(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (!sdui__expr_is_arr(&a[0]))
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "sum/avg need an array");
    return add_up(e, nd, &a[0], 0, out);
}

/* avg(a): the mean of an array of numbers; null for none. */
static int fn_avg(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (!sdui__expr_is_arr(&a[0]))
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "sum/avg need an array");
    return add_up(e, nd, &a[0], 1, out);
}

/* min(a), max(a) of an array; min(x, y, ...), max(x, y, ...) of the
 * arguments (want_min: min). */
static int min_max(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                   int want_min, sdui_xval *out)
{
    if (argc == 1) {
        if (!sdui__expr_is_arr(&a[0]))
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "min/max need an array or several values");
        return extreme(e, nd, &a[0], want_min, out);
    }
    sdui_xval list = sdui__expr_mkv(V_ARR);
    list.u.a.items = a;
    list.u.a.n = (size_t)argc;
    return extreme(e, nd, &list, want_min, out);
}

/* min(a) or min(x, y, ...). */
static int fn_min(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    return min_max(e, nd, a, argc, 1, out);
}

/* max(a) or max(x, y, ...). */
static int fn_max(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    return min_max(e, nd, a, argc, 0, out);
}

/* count(a): the items of an array that are not null. */
static int fn_count(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (!sdui__expr_is_arr(&a[0]))
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "count needs an array");
    size_t n = sdui__expr_arr_len(&a[0]), c = 0;
    if (!sdui__expr_step(e, nd, n)) return 0;
    for (size_t i = 0; i < n; i++)
        c += sdui__expr_arr_at(&a[0], i).t != V_NULL;
    *out = sdui__expr_mkv(V_INT);
    out->u.i = (int64_t)c;
    return 1;
}

/* contains(s, sub): a substring (the two-way search); contains(a, x): an
 * item deep-equal to x. */
static int fn_contains(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                       sdui_xval *out)
{
    (void)argc;
    *out = sdui__expr_mkv(V_BOOL);
    if (a[0].t == V_STR && a[1].t == V_STR)
        return search(e, nd, a[0].u.s.s, a[0].u.s.n, a[1].u.s.s, a[1].u.s.n, &out->u.b);
    if (sdui__expr_is_arr(&a[0])) {
        size_t n = sdui__expr_arr_len(&a[0]);
        if (!sdui__expr_step(e, nd, n)) return 0;
        for (size_t i = 0; i < n; i++) {
            sdui_xval y = sdui__expr_arr_at(&a[0], i);
            int eq;
            if (!sdui__expr_equal(e, nd, &y, &a[1], &eq)) return 0;
            if (eq) { out->u.b = 1; break; }
        }
        return 1;
    }
    return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd,
                           "contains needs two strings, or an array and a value");
}

/* Whether the string a[1] is a prefix of the string a[0] (or, at_end, a
 * suffix), the bytes compared counted. */
static int affix(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a, int at_end,
                 sdui_xval *out)
{
    if (a[0].t != V_STR || a[1].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "starts_with/ends_with need two strings");
    *out = sdui__expr_mkv(V_BOOL);
    if (a[1].u.s.n <= a[0].u.s.n) {
        int c;
        if (!sdui__expr_cmp_bytes(e, nd, a[0].u.s.s + (at_end ? a[0].u.s.n - a[1].u.s.n : 0),
                                  a[1].u.s.s, a[1].u.s.n, &c))
            return 0;
        out->u.b = c == 0;
    }
    return 1;
}

/* starts_with(s, p). */
static int fn_starts_with(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                          sdui_xval *out)
{
    (void)argc;
    return affix(e, nd, a, 0, out);
}

/* ends_with(s, p). */
static int fn_ends_with(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                        sdui_xval *out)
{
    (void)argc;
    return affix(e, nd, a, 1, out);
}

/* The string a[0] with its ASCII letters mapped to lower (or, up, upper)
 * case, a new string. */
static int map_case(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a, int up,
                    sdui_xval *out)
{
    if (a[0].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "lower/upper need a string");
    char *s = sdui__expr_new_str(e, nd, a[0].u.s.n, out);
    if (!s || !sdui__expr_step_bytes(e, nd, a[0].u.s.n)) return 0;
    for (size_t i = 0; i < a[0].u.s.n; i++) {
        char c = a[0].u.s.s[i];
        if (!up && c >= 'A' && c <= 'Z') c = (char)(c + 32);
        if (up && c >= 'a' && c <= 'z') c = (char)(c - 32);
        s[i] = c;
    }
    return 1;
}

/* lower(s). */
static int fn_lower(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    return map_case(e, nd, a, 0, out);
}

/* upper(s). */
static int fn_upper(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    return map_case(e, nd, a, 1, out);
}

/* trim(s): without the spaces, tabs, CR and LF at both ends. */
static int fn_trim(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (a[0].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "trim needs a string");
    const char *s = a[0].u.s.s;
    size_t b, tail, n = a[0].u.s.n;
    if (!space_run(e, nd, s, n, 0, &b)) return 0;
    if (b < n && !space_run(e, nd, s + b, n - b, 1, &tail)) return 0;
    if (b < n) n -= tail;
    /* Borrowed strings must stay NUL-terminated for key lookups: copy. */
    char *c = sdui__expr_new_str(e, nd, n - b, out);
    if (!c || !sdui__expr_step_bytes(e, nd, n - b)) return 0;
    memcpy(c, s + b, n - b);
    return 1;
}

/* The type check round(), floor(), ceil() and abs() share: 1 when a[0] is
 * a number. */
static int rounding_arg(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a)
{
    if (!sdui__expr_is_num(&a[0]))
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "round/floor/ceil/abs need a number");
    return 1;
}

/* round(x): the nearest integer, halves away from zero; round(x, d): a
 * decimal rounded to d places.  An integer is itself. */
static int fn_round(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    if (!rounding_arg(e, nd, a))
        return 0;
    if (argc == 2) {
        if (a[1].t != V_INT)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "round's digits must be an integer");
        if (a[1].u.i < 0 || a[1].u.i > 15)
            return sdui__expr_fail(e, SDUI_EXPR_VALUE, nd, "round's digits must be 0 to 15");
        if (a[0].t == V_INT) { *out = a[0]; return 1; }
        return sdui__expr_real_out(e, nd, round_to(a[0].u.d, a[1].u.i), out);
    }
    if (a[0].t == V_INT) { *out = a[0]; return 1; }
    return to_i(e, nd, round(a[0].u.d), out);
}

/* floor(x): an integer. */
static int fn_floor(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (!rounding_arg(e, nd, a))
        return 0;
    if (a[0].t == V_INT) { *out = a[0]; return 1; }
    return to_i(e, nd, floor(a[0].u.d), out);
}

/* ceil(x): an integer. */
static int fn_ceil(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (!rounding_arg(e, nd, a))
        return 0;
    if (a[0].t == V_INT) { *out = a[0]; return 1; }
    return to_i(e, nd, ceil(a[0].u.d), out);
}

/* abs(x): of the same type as x. */
static int fn_abs(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (!rounding_arg(e, nd, a))
        return 0;
    if (a[0].t == V_INT) {
        *out = a[0];
        if (a[0].u.i < 0) {
            if (a[0].u.i == INT64_MIN)
                return sdui__expr_fail(e, SDUI_EXPR_OVERFLOW, nd, "integer overflow");
            out->u.i = -a[0].u.i;
        }
        return 1;
    }
    return sdui__expr_real_out(e, nd, fabs(a[0].u.d), out);
}

/* A number's text for a message: an integer's digits, a decimal by the
 * one rule of sdui_number_text; buf has SDUI_NUMBER_TEXT_MAX bytes. */
static const char *num_text(const sdui_xval *v, char *buf)
{
    if (v->t == V_INT)
        snprintf(buf, SDUI_NUMBER_TEXT_MAX, "%lld", (long long)v->u.i);
    else
        sdui_number_text(v->u.d, buf);
    return buf;
}

/* clamp(x, lo, hi): x held within [lo, hi]: lo when x is below it, hi when
 * x is above it, else x, compared by exact value as min and max compare,
 * and the value itself (its kind kept), so it is min(max(x, lo), hi).
 * Three numbers, else a type error; lo above hi is a value error. */
static int fn_clamp(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    char lo[SDUI_NUMBER_TEXT_MAX], hi[SDUI_NUMBER_TEXT_MAX], what[128];
    (void)argc;
    if (!sdui__expr_is_num(&a[0]) || !sdui__expr_is_num(&a[1]) || !sdui__expr_is_num(&a[2]))
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "clamp needs three numbers");
    if (sdui__expr_num_cmp(&a[1], &a[2]) > 0) {
        snprintf(what, sizeof what, "clamp's low bound %s is above its high bound %s",
                 num_text(&a[1], lo), num_text(&a[2], hi));
        return sdui__expr_fail(e, SDUI_EXPR_VALUE, nd, what);
    }
    if (sdui__expr_num_cmp(&a[0], &a[1]) < 0)
        *out = a[1];
    else if (sdui__expr_num_cmp(&a[0], &a[2]) > 0)
        *out = a[2];
    else
        *out = a[0];
    return 1;
}

/* string(x). */
static int fn_string(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                     sdui_xval *out)
{
    (void)argc;
    return to_string(e, nd, &a[0], out);
}

/* A number as it is (or, int_only, an integer: a decimal truncated toward
 * zero), or a string holding a JSON number (int_only: an integer) read. */
static int to_number(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a, int int_only,
                     sdui_xval *out)
{
    if (sdui__expr_is_num(&a[0])) {
        if (!int_only || a[0].t == V_INT) { *out = a[0]; return 1; }
        return to_i(e, nd, trunc(a[0].u.d), out);
    }
    if (a[0].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "number/int need a string or a number");
    if (!parse_num_text(&a[0], int_only, out))
        return sdui__expr_fail(e, SDUI_EXPR_VALUE, nd, int_only ? "not an integer" : "not a number");
    return 1;
}

/* number(s). */
static int fn_number(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                     sdui_xval *out)
{
    (void)argc;
    return to_number(e, nd, a, 0, out);
}

/* int(s). */
static int fn_int(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    return to_number(e, nd, a, 1, out);
}

/* fixed(x, d): a string with exactly d decimals, never "-0.0". */
static int fn_fixed(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    char buf[400];
    (void)argc;
    if (!sdui__expr_is_num(&a[0]) || a[1].t != V_INT)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "fixed needs a number and an integer");
    if (a[1].u.i < 0 || a[1].u.i > 15)
        return sdui__expr_fail(e, SDUI_EXPR_VALUE, nd, "fixed's digits must be 0 to 15");
    double d = a[0].t == V_INT ? (double)a[0].u.i : round_to(a[0].u.d, a[1].u.i);
    if (!isfinite(d))
        return sdui__expr_fail(e, SDUI_EXPR_OVERFLOW, nd, "decimal result is not finite");
    int n = sdui__number_fixed(d, (int)a[1].u.i, buf, sizeof buf);
    if (n < 0 || (size_t)n >= sizeof buf)
        return sdui__expr_fail(e, SDUI_LIMIT, nd, "number too long to format");
    if (!strncmp(buf, "-0", 2) && !strpbrk(buf, "123456789"))
        memmove(buf, buf + 1, (size_t)n--);
    char *s = sdui__expr_new_str(e, nd, (size_t)n, out);
    if (!s) return 0;
    memcpy(s, buf, (size_t)n);
    return 1;
}

/* join(a, sep): the strings of a joined by sep. */
static int fn_join(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (!sdui__expr_is_arr(&a[0]) || a[1].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "join needs an array of strings and a string");
    size_t n = sdui__expr_arr_len(&a[0]), total = 0;
    if (!sdui__expr_step(e, nd, n)) return 0;
    for (size_t i = 0; i < n; i++) {
        sdui_xval y = sdui__expr_arr_at(&a[0], i);
        if (y.t != V_STR)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "join needs an array of strings");
        total += y.u.s.n + (i ? a[1].u.s.n : 0);
        if (total > SDUI_EXPR_MAX_STRING)
            return sdui__expr_fail(e, SDUI_LIMIT, nd, "string longer than 65536 bytes");
    }
    char *s = sdui__expr_new_str(e, nd, total, out);
    if (!s || !sdui__expr_step_bytes(e, nd, total)) return 0;
    for (size_t i = 0; i < n; i++) {
        sdui_xval y = sdui__expr_arr_at(&a[0], i);
        if (i) { memcpy(s, a[1].u.s.s, a[1].u.s.n); s += a[1].u.s.n; }
        memcpy(s, y.u.s.s, y.u.s.n);
        s += y.u.s.n;
    }
    return 1;
}

/* keys(o): the member names of an object, sorted. */
static int fn_keys(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    if (a[0].t != V_JOBJ)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "keys needs an object");
    size_t n = sdui_value_count(a[0].u.j), m = 0;
    if (!sdui__expr_step(e, nd, n)) return 0;
    sdui_xval *items = sdui__expr_new_arr(e, nd, n, out), tmp;
    sdui_xval *spare = items ? sdui__expr_new_arr(e, nd, n, &tmp) : NULL;
    if (!spare) return 0;
    for (const void *it = sdui_value_next(a[0].u.j, NULL); it && m < n;
         it = sdui_value_next(a[0].u.j, it)) {
        items[m] = sdui__expr_mkv(V_STR);
        items[m].u.s.s = sdui_value_iter_key(it, &items[m].u.s.n);
        m++;
    }
    out->u.a.n = m;
    return sort_keys(e, nd, items, spare, m);
}

/* Whether every (every) or some boolean of the array a[0] is true. */
static int every_some(sdui_xeval *e, const sdui_xnode *nd, const sdui_xval *a, int every,
                      sdui_xval *out)
{
    if (!sdui__expr_is_arr(&a[0]))
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "all/any need an array of booleans");
    size_t n = sdui__expr_arr_len(&a[0]);
    int r = every;
    if (!sdui__expr_step(e, nd, n)) return 0;
    for (size_t i = 0; i < n; i++) {
        sdui_xval y = sdui__expr_arr_at(&a[0], i);
        if (y.t != V_BOOL)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "all/any need an array of booleans");
        if (every) r = r && y.u.b;
        else r = r || y.u.b;
    }
    *out = sdui__expr_mkv(V_BOOL);
    out->u.b = r;
    return 1;
}

/* all(a). */
static int fn_all(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    return every_some(e, nd, a, 1, out);
}

/* any(a). */
static int fn_any(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    (void)argc;
    return every_some(e, nd, a, 0, out);
}

/* coalesce(a, b, ...): the first argument that is not null, else null
 * (all of them evaluated, as every call's are). */
static int fn_coalesce(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                       sdui_xval *out)
{
    (void)e;
    (void)nd;
    *out = sdui__expr_mkv(V_NULL);
    for (int32_t i = 0; i < argc; i++)
        if (a[i].t != V_NULL) { *out = a[i]; break; }
    out->spread = 0;
    return 1;
}

/* matches(s, pattern): the regex engine (expr_regex.c). */
static int fn_matches(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                      sdui_xval *out)
{
    int hit = 0;   /* set by sdui__expr_match when it succeeds */
    (void)argc;
    if (a[0].t != V_STR || a[1].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "matches needs two strings");
    if (a[1].u.s.n > SDUI_EXPR_MAX_PATTERN)
        return sdui__expr_fail(e, SDUI_LIMIT, nd, "pattern longer than 1024 bytes");
    if (!sdui__expr_match(e, nd, &a[0], &a[1], &hit)) return 0;
    *out = sdui__expr_mkv(V_BOOL);
    out->u.b = hit;
    return 1;
}

/* The text of a number argument for the locale functions into *text, *n:
 * an integer's digits (exact, never through a double) or a decimal's
 * shortest text (the one number-to-text rule), written into buf (at least
 * SDUI_NUMBER_TEXT_MAX bytes); a string as it is when strings are
 * allowed.  0 for any other value (the caller's type error). */
static int locale_number(const sdui_xval *v, int strings, char *buf, const char **text, size_t *n)
{
    if (v->t == V_INT) {
        *n = (size_t)snprintf(buf, SDUI_NUMBER_TEXT_MAX, "%lld", (long long)v->u.i);
        *text = buf;
        return 1;
    }
    if (v->t == V_REAL) {
        *n = sdui_number_text(v->u.d, buf);
        *text = buf;
        return 1;
    }
    if (strings && v->t == V_STR) {
        *text = v->u.s.s;
        *n = v->u.s.n;
        return 1;
    }
    return 0;
}

/* A locale function's error (a tag that is not one, a number text that is
 * not one, a currency code that is not three letters) as a value error of
 * the call, with the locale function's message. */
static int locale_fail(sdui_xeval *e, const sdui_xnode *nd, const char *name, const sdui_error *err)
{
    char what[200];
    snprintf(what, sizeof what, "%s: %.160s", name, err->message);
    return sdui__expr_fail(e, SDUI_EXPR_VALUE, nd, what);
}

/* The text a format wrote, buf[0, n), as a new string of the arena,
 * counting the bytes written. */
static int locale_result(sdui_xeval *e, const sdui_xnode *nd, const char *buf, size_t n, sdui_xval *out)
{
    char *s;
    if (!sdui__expr_step_bytes(e, nd, n))
        return 0;
    s = sdui__expr_new_str(e, nd, n, out);
    if (!s)
        return 0;
    memcpy(s, buf, n);
    return 1;
}

/* plural(n, locale[, kind]): the CLDR category ("one", "few", ...) of n
 * in the locale, cardinal unless kind is 'ordinal' ("1st", "2nd": en's
 * one, two, few): of an integer's digits, a decimal's shortest text (so
 * 1.0 is "1.0": "other" in en), or a string holding decimal text
 * (sdui_locale_plural's grammar: '1.50', '1.2c6'). */
static int fn_plural(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc, sdui_xval *out)
{
    char buf[SDUI_NUMBER_TEXT_MAX];
    const char *text;
    const char *name;
    size_t n;
    int ordinal = 0;
    sdui_plural category = SDUI_PLURAL_OTHER;
    sdui_error err;
    if (!locale_number(&a[0], 1, buf, &text, &n) || a[1].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "plural needs a number (or its text) and a locale");
    if (argc > 2) {
        if (a[2].t != V_STR)
            return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "plural's kind is 'cardinal' or 'ordinal'");
        if (a[2].u.s.n == 7 && memcmp(a[2].u.s.s, "ordinal", 7) == 0)
            ordinal = 1;
        else if (!(a[2].u.s.n == 8 && memcmp(a[2].u.s.s, "cardinal", 8) == 0))
            return sdui__expr_fail(e, SDUI_EXPR_VALUE, nd, "plural's kind is 'cardinal' or 'ordinal'");
    }
    if (!sdui__expr_step_bytes(e, nd, n + a[1].u.s.n))
        return 0;
    if (sdui_locale_plural(a[1].u.s.s, a[1].u.s.n, text, n, ordinal, &category, &err) != SDUI_OK)
        return locale_fail(e, nd, "plural", &err);
    name = sdui_plural_name(category);
    *out = sdui__expr_mkv(V_STR);
    out->u.s.s = name;   /* static storage */
    out->u.s.n = strlen(name);
    return 1;
}

/* format_number(x, locale[, digits]): x written the locale's way
 * (sdui_locale_format_number): the pattern's fraction digits (at most 3),
 * or exactly digits (0 to 20), rounded half-even. */
static int fn_format_number(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                            sdui_xval *out)
{
    char num[SDUI_NUMBER_TEXT_MAX], buf[SDUI_LOCALE_TEXT_MAX];
    const char *text;
    size_t n, len = 0;
    int digits = -1;
    sdui_error err;
    if (!locale_number(&a[0], 0, num, &text, &n) || a[1].t != V_STR || (argc == 3 && a[2].t != V_INT))
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "format_number needs a number, a locale and an integer");
    if (argc == 3) {
        if (a[2].u.i < 0 || a[2].u.i > 20)
            return sdui__expr_fail(e, SDUI_EXPR_VALUE, nd, "format_number's digits must be 0 to 20");
        digits = (int)a[2].u.i;
    }
    if (!sdui__expr_step_bytes(e, nd, a[1].u.s.n))
        return 0;
    if (sdui__locale_format(a[1].u.s.s, a[1].u.s.n, SDUI__FORMAT_DECIMAL, text, n, digits, NULL, 0, buf,
                            sizeof buf, &len, &err) != SDUI_OK)
        return locale_fail(e, nd, "format_number", &err);
    return locale_result(e, nd, buf, len, out);
}

/* format_currency(x, code, locale): an amount of the currency code (ISO
 * 4217, three letters) written the locale's way
 * (sdui_locale_format_currency). */
static int fn_format_currency(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                              sdui_xval *out)
{
    char num[SDUI_NUMBER_TEXT_MAX], buf[SDUI_LOCALE_TEXT_MAX];
    const char *text;
    size_t n, len = 0;
    sdui_error err;
    (void)argc;
    if (!locale_number(&a[0], 0, num, &text, &n) || a[1].t != V_STR || a[2].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "format_currency needs a number, a currency code and a locale");
    if (!sdui__expr_step_bytes(e, nd, a[1].u.s.n + a[2].u.s.n))
        return 0;
    if (sdui__locale_format(a[2].u.s.s, a[2].u.s.n, SDUI__FORMAT_CURRENCY, text, n, -1, a[1].u.s.s, a[1].u.s.n,
                            buf, sizeof buf, &len, &err) != SDUI_OK)
        return locale_fail(e, nd, "format_currency", &err);
    return locale_result(e, nd, buf, len, out);
}

/* format_percent(x, locale): x as a percentage written the locale's way
 * (sdui_locale_format_percent): 0.25 is "25%" in en, "25 %" in de. */
static int fn_format_percent(sdui_xeval *e, const sdui_xnode *nd, sdui_xval *a, int32_t argc,
                             sdui_xval *out)
{
    char num[SDUI_NUMBER_TEXT_MAX], buf[SDUI_LOCALE_TEXT_MAX];
    const char *text;
    size_t n, len = 0;
    sdui_error err;
    (void)argc;
    if (!locale_number(&a[0], 0, num, &text, &n) || a[1].t != V_STR)
        return sdui__expr_fail(e, SDUI_EXPR_TYPE, nd, "format_percent needs a number and a locale");
    if (!sdui__expr_step_bytes(e, nd, a[1].u.s.n))
        return 0;
    if (sdui__locale_format(a[1].u.s.s, a[1].u.s.n, SDUI__FORMAT_PERCENT, text, n, -1, NULL, 0, buf, sizeof buf,
                            &len, &err) != SDUI_OK)
        return locale_fail(e, nd, "format_percent", &err);
    return locale_result(e, nd, buf, len, out);
}

/* ---------- the table ---------- */

/* Every function of the language: name, least and most argument count
 * (-1: any), body.  Adding one is a row here (the top of this file). */
const sdui_xfn sdui__expr_fns[] = {
    {"len", 1, 1, fn_len},
    {"sum", 1, 1, fn_sum},
    {"avg", 1, 1, fn_avg},
    {"min", 1, -1, fn_min},
    {"max", 1, -1, fn_max},
    {"count", 1, 1, fn_count},
    {"contains", 2, 2, fn_contains},
    {"starts_with", 2, 2, fn_starts_with},
    {"ends_with", 2, 2, fn_ends_with},
    {"lower", 1, 1, fn_lower},
    {"upper", 1, 1, fn_upper},
    {"trim", 1, 1, fn_trim},
    {"round", 1, 2, fn_round},
    {"floor", 1, 1, fn_floor},
    {"ceil", 1, 1, fn_ceil},
    {"abs", 1, 1, fn_abs},
    {"clamp", 3, 3, fn_clamp},
    {"string", 1, 1, fn_string},
    {"number", 1, 1, fn_number},
    {"int", 1, 1, fn_int},
    {"fixed", 2, 2, fn_fixed},
    {"join", 2, 2, fn_join},
    {"keys", 1, 1, fn_keys},
    {"all", 1, 1, fn_all},
    {"any", 1, 1, fn_any},
    {"coalesce", 1, -1, fn_coalesce},
    {"matches", 2, 2, fn_matches},
    {"plural", 2, 3, fn_plural},
    {"format_number", 2, 3, fn_format_number},
    {"format_currency", 3, 3, fn_format_currency},
    {"format_percent", 2, 2, fn_format_percent},
};

const size_t sdui__expr_fn_count = sizeof sdui__expr_fns / sizeof sdui__expr_fns[0];

/* The row named name[0, len), or NULL (expr_internal.h): a scan of the
 * table, which is small. */
const sdui_xfn *sdui__expr_fn_find(const char *name, size_t len)
{
    for (size_t f = 0; f < sdui__expr_fn_count; f++)
        if (strlen(sdui__expr_fns[f].name) == len && !memcmp(sdui__expr_fns[f].name, name, len))
            return &sdui__expr_fns[f];
    return NULL;
}
