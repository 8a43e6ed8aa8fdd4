/*
 * number.c - the one number-to-text rule (number.h).
 *
 * Finding the shortest text that reads back to the same double: print the
 * value in scientific notation with 1, 2, ... 17 significant digits and
 * keep the first that strtod turns back into exactly d (17 always does,
 * for IEEE doubles).  That fixes the digits and the decimal exponent; the
 * notation is then chosen from the exponent, placing the point among the
 * digits by hand (printing the binary value with %f would show digits past
 * the shortest ones) or tidying the exponent (e+21 -> e21, e-07 -> e-7).
 * strtod and snprintf use the C locale's '.', which the core never changes.
 */
#include "sdui/number.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes d by the rule into buf; see number.h. */
size_t sdui_number_text(double d, char *buf)
{
    char sci[40];
    int prec, ex;
    char *e;
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
    for (prec = 1; prec < 17; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec - 1, d);
        if (strtod(sci, NULL) == d)
            break;
    }
    snprintf(sci, sizeof sci, "%.*e", prec - 1, d);
    e = strchr(sci, 'e');
    assert(e != NULL);
    ex = atoi(e + 1);
    if (ex >= -6 && ex < 21) {
        char dig[24];
        int nd = 0, k = 0, neg = sci[0] == '-';
        for (char *c = sci + neg; c < e; c++)
            if (*c != '.')
                dig[nd++] = *c;
        while (nd > 1 && dig[nd - 1] == '0')
            nd--;
        if (neg)
            buf[k++] = '-';
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
        assert(k < SDUI_NUMBER_TEXT_MAX);
        buf[k] = 0;
        return (size_t)k;
    }
    /* Tidy the exponent: e+21 -> e21, e-07 -> e-7. */
    {
        char *w = e + 1, *r = e + 1;
        if (*r == '+')
            r++;
        else if (*r == '-')
            *w++ = *r++;
        while (*r == '0' && r[1])
            r++;
        memmove(w, r, strlen(r) + 1);
    }
    assert(strlen(sci) < SDUI_NUMBER_TEXT_MAX);
    memcpy(buf, sci, strlen(sci) + 1);
    return strlen(buf);
}
