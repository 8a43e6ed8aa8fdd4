/*
 * value_eq.h - comparing two value trees (value.h) in the C tests and the
 * fuzzers, read through the public accessors only.  One walk, two rules:
 *
 *   value_equal  equal as JSON means it: the same types (an integer is not
 *                a decimal), integers and decimals equal by ==, strings
 *                byte for byte (NUL bytes included), arrays item by item,
 *                objects with the same names holding equal values, in any
 *                order (a snapshot file sorts its members);
 *   value_same   the same tree: as above, but decimals bit for bit (-0.0
 *                is not 0.0), members in the same order, and each member
 *                also found by its name (names are unique in a tree, so a
 *                lookup must land on the member the walk is at).
 *
 * value_match takes the two rules' parts as flags, for a caller that needs
 * another mix (bit-for-bit decimals in any order).  A NULL value equals
 * nothing, not even another NULL.
 */
#ifndef SDUI_TESTS_VALUE_EQ_H
#define SDUI_TESTS_VALUE_EQ_H

#include <string.h>

#include "sdui/value.h"

/* value_match's flags. */
enum {
    VALUE_BITS = 1,   /* decimals compared bit for bit, not by == */
    VALUE_ORDER = 2   /* members in the same order, each found by name too */
};

/* 1 if a and b match under flags (see the top of this file). */
static int value_match(const sdui_value *a, const sdui_value *b, unsigned flags)
{
    if (!a || !b)
        return 0;
    sdui_value_type t = sdui_value_type_of(a);
    if (t != sdui_value_type_of(b))
        return 0;
    switch (t) {
    case SDUI_VALUE_NULL:
        return 1;
    case SDUI_VALUE_BOOL:
        return sdui_value_bool(a) == sdui_value_bool(b);
    case SDUI_VALUE_INT:
        return sdui_value_int(a) == sdui_value_int(b);
    case SDUI_VALUE_REAL: {
        double x = sdui_value_real(a), y = sdui_value_real(b);
        return (flags & VALUE_BITS) ? memcmp(&x, &y, sizeof x) == 0 : x == y;
    }
    case SDUI_VALUE_STRING: {
        size_t la, lb;
        const char *sa = sdui_value_string(a, &la), *sb = sdui_value_string(b, &lb);
        return sa && sb && la == lb && memcmp(sa, sb, la) == 0;
    }
    case SDUI_VALUE_ARRAY:
        if (sdui_value_count(a) != sdui_value_count(b))
            return 0;
        for (size_t i = 0; i < sdui_value_count(a); i++)
            if (!value_match(sdui_value_at(a, i), sdui_value_at(b, i), flags))
                return 0;
        return 1;
    case SDUI_VALUE_OBJECT: {
        if (sdui_value_count(a) != sdui_value_count(b))
            return 0;
        const void *ib = sdui_value_next(b, NULL);
        for (const void *ia = sdui_value_next(a, NULL); ia; ia = sdui_value_next(a, ia)) {
            size_t la, lb;
            const char *ka = sdui_value_iter_key(ia, &la);
            const sdui_value *other = sdui_value_get(b, ka);
            if (flags & VALUE_ORDER) {
                if (!ib)
                    return 0;
                const char *kb = sdui_value_iter_key(ib, &lb);
                if (la != lb || memcmp(ka, kb, la) != 0 || other != sdui_value_iter_value(ib))
                    return 0;
                ib = sdui_value_next(b, ib);
            }
            if (!value_match(sdui_value_iter_value(ia), other, flags))
                return 0;
        }
        return !(flags & VALUE_ORDER) || ib == NULL;
    }
    }
    return 0;
}

/* 1 if a and b are equal as JSON (any member order, decimals by ==). */
static inline int value_equal(const sdui_value *a, const sdui_value *b)
{
    return value_match(a, b, 0);
}

/* 1 if a and b are the same tree (member order, decimals bit for bit). */
static inline int value_same(const sdui_value *a, const sdui_value *b)
{
    return value_match(a, b, VALUE_BITS | VALUE_ORDER);
}

#endif
