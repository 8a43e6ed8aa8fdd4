/*
 * simdjson_peer.cpp - the simdjson peer of the first-paint benchmark: a
 * whole-document DOM parse and an On-Demand walk of the first tokens.
 * Uses simdjson's error-code interface (no exceptions cross into Swift).
 */
#include "sdui_bench_simdjson.h"

#include <simdjson.h>

using namespace simdjson;

size_t sdui_bench_simdjson_padding(void) { return SIMDJSON_PADDING; }

long sdui_bench_simdjson_parse(const char *json, size_t len)
{
    dom::parser parser;
    dom::element doc;
    /* realloc_if_needed = false: the caller promises the padding, so
     * simdjson parses the bytes where they are, as it would a file it read. */
    if (parser.parse(json, len, false).get(doc) != SUCCESS)
        return -1;
    dom::array tokens;
    if (doc["tokens"].get_array().get(tokens) != SUCCESS)
        return -1;
    return (long)tokens.size();
}

/* Reads one value and everything in it; adds the values read to *count.
 * Returns false on any error. */
static bool visit(ondemand::value value, long *count)
{
    ondemand::json_type type;
    if (value.type().get(type) != SUCCESS)
        return false;
    ++*count;
    switch (type) {
    case ondemand::json_type::object: {
        ondemand::object object;
        if (value.get_object().get(object) != SUCCESS)
            return false;
        for (auto field : object) {
            std::string_view key;
            ondemand::value inner;
            if (field.unescaped_key().get(key) != SUCCESS || field.value().get(inner) != SUCCESS ||
                !visit(inner, count))
                return false;
        }
        return true;
    }
    case ondemand::json_type::array: {
        ondemand::array array;
        if (value.get_array().get(array) != SUCCESS)
            return false;
        for (auto element : array) {
            ondemand::value inner;
            if (element.get(inner) != SUCCESS || !visit(inner, count))
                return false;
        }
        return true;
    }
    case ondemand::json_type::string: {
        std::string_view s;
        return value.get_string().get(s) == SUCCESS;
    }
    case ondemand::json_type::number: {
        ondemand::number n;
        return value.get_number().get(n) == SUCCESS;
    }
    case ondemand::json_type::boolean: {
        bool b;
        return value.get_bool().get(b) == SUCCESS;
    }
    case ondemand::json_type::null: {
        bool null;
        return value.is_null().get(null) == SUCCESS && null;
    }
    }
    return false;
}

long sdui_bench_simdjson_first_tokens(const char *json, size_t len, size_t n)
{
    ondemand::parser parser;
    ondemand::document doc;
    if (parser.iterate(json, len, len + SIMDJSON_PADDING).get(doc) != SUCCESS)
        return -1;
    ondemand::array tokens;
    if (doc["tokens"].get_array().get(tokens) != SUCCESS)
        return -1;
    long count = 0;
    size_t seen = 0;
    for (auto element : tokens) {
        if (seen == n)
            break;
        ondemand::value token;
        if (element.get(token) != SUCCESS || !visit(token, &count))
            return -1;
        seen++;
    }
    return seen == n ? count : -1;
}
