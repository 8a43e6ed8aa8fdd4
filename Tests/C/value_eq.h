/*
 * value_eq.h - equality of two value trees (value.h) for the C tests, as
 * JSON means it: the same types (an integer is not a decimal), integers
 * and decimals equal by ==, strings byte for byte, arrays item by item,
 * objects with the same names holding equal values, in any order (a
 * snapshot file sorts its members).  Read through the public accessors
 * only.
 */
#ifndef SDUI_TESTS_VALUE_EQ_H
#define SDUI_TESTS_VALUE_EQ_H

#include <string.h>

#include "sdui/value.h"

/* 1 if a and b are equal values (see the top of this file). */
static int value_equal(const sdui_value *a, const sdui_value *b)
{
    sdui_value_type t = sdui_value_type_of(a);
    if (!a || !b || t != sdui_value_type_of(b))
        return 0;
    switch (t) {
    case SDUI_VALUE_NULL:
        return 1;
    case SDUI_VALUE_BOOL:
        return sdui_value_bool(a) == sdui_value_bool(b);
    case SDUI_VALUE_INT:
        return sdui_value_int(a) == sdui_value_int(b);
    case SDUI_VALUE_REAL:
        return sdui_value_real(a) == sdui_value_real(b);
    case SDUI_VALUE_STRING: {
        size_t la, lb;
        const char *sa = sdui_value_string(a, &la), *sb = sdui_value_string(b, &lb);
        return la == lb && memcmp(sa, sb, la) == 0;
    }
    case SDUI_VALUE_ARRAY:
        if (sdui_value_count(a) != sdui_value_count(b))
            return 0;
        for (size_t i = 0; i < sdui_value_count(a); i++)
            if (!value_equal(sdui_value_at(a, i), sdui_value_at(b, i)))
                return 0;
        return 1;
    case SDUI_VALUE_OBJECT:
        if (sdui_value_count(a) != sdui_value_count(b))
            return 0;
        for (const void *it = sdui_value_next(a, NULL); it; it = sdui_value_next(a, it))
            if (!value_equal(sdui_value_iter_value(it),
                             sdui_value_get(b, sdui_value_iter_key(it, NULL))))
                return 0;
        return 1;
    }
    return 0;
}

#endif
