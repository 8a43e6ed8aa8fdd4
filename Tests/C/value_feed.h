/*
 * value_feed.h - feeding a value tree (value.h) to a JSON builder
 * (json_build.h), depth first, for the C tests, the document fuzzer and
 * the document benchmark, which copy trees through the builder.  Read
 * through the public accessors only; the builder's own status reports any
 * failure (a nesting past its bound, an allocation), checked at finish.
 */
#ifndef SDUI_TESTS_VALUE_FEED_H
#define SDUI_TESTS_VALUE_FEED_H

#include <stddef.h>

#include "sdui/json_build.h"
#include "sdui/value.h"

/* Feeds v to b, depth first. */
static void value_feed(sdui_json_builder *b, const sdui_value *v)
{
    size_t len;
    const char *s;
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_NULL: sdui_json_builder_null(b); break;
    case SDUI_VALUE_BOOL: sdui_json_builder_bool(b, sdui_value_bool(v)); break;
    case SDUI_VALUE_INT: sdui_json_builder_int(b, sdui_value_int(v)); break;
    case SDUI_VALUE_REAL: sdui_json_builder_real(b, sdui_value_real(v)); break;
    case SDUI_VALUE_STRING:
        s = sdui_value_string(v, &len);
        sdui_json_builder_string(b, s, len);
        break;
    case SDUI_VALUE_ARRAY:
        sdui_json_builder_begin_array(b);
        for (size_t i = 0, n = sdui_value_count(v); i < n; i++)
            value_feed(b, sdui_value_at(v, i));
        sdui_json_builder_end_array(b);
        break;
    case SDUI_VALUE_OBJECT:
        sdui_json_builder_begin_object(b);
        for (const void *it = sdui_value_next(v, NULL); it; it = sdui_value_next(v, it)) {
            s = sdui_value_iter_key(it, &len);
            sdui_json_builder_key(b, s, len);
            value_feed(b, sdui_value_iter_value(it));
        }
        sdui_json_builder_end_object(b);
        break;
    }
}

#endif
