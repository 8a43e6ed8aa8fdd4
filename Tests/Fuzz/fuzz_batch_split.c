/*
 * fuzz_batch_split.c - libFuzzer harness for the splitter of batch answers
 * (a JSON array of tokens or compact-JWS strings, as /design-tokens sends):
 * sdui_json_array_elements, and sdui_json_array_split beside it.
 *
 * For any input the splitter must not crash or read out of bounds.  When it
 * says OK: every element range lies inside the input, in order and without
 * overlap, and only white space with one '[' or ',' lies between them (one
 * ']' after the last); each good element validates alone at the same depth
 * limit and fits the byte limit; each bad one is refused alone with the
 * status and place the splitter gave (the bracket that went too deep), or
 * is over the byte limit.  When the whole input is valid JSON and an array,
 * the splitter must not fail it, and it fails with SDUI_JSON only when the
 * input is not JSON.  sdui_json_array_split must agree: the same ranges
 * when no element is too deep, else SDUI_LIMIT.  A broken invariant aborts,
 * which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_batch_split: invariant broken at line %d: %s\n",
            line, what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* Room for element ranges; inputs with more elements check the first ones
 * (and the gaps only when all fit). */
#define CAP 64

/* A nesting limit that never binds: the input has fewer bytes. */
#define NO_DEPTH_LIMIT 0xFFFFFFF0u

/* 1 for JSON white space. */
static int is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* 1 if text[from, to) is white space around exactly one `sep`. */
static int one_separator(const char *text, size_t from, size_t to, char sep)
{
    size_t i, seps = 0;
    for (i = from; i < to; i++) {
        if (text[i] == sep)
            seps++;
        else if (!is_ws(text[i]))
            return 0;
    }
    return seps == 1;
}

/* libFuzzer entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t byte_limits[] = {(size_t)-1, 16, 256};
    const char *text = (const char *)data;
    sdui_json_element el[CAP];
    size_t starts[CAP], ends[CAP];
    size_t count = 0, count2 = 0, i, prev_end = 0, first = 0;
    unsigned depth = size % 2 ? 4 : SDUI_DEFAULT_MAX_DEPTH;
    size_t max_bytes = byte_limits[(size / 2) % 3];
    int too_deep = 0;
    sdui_error err, whole, err2;
    sdui_status st, val, st2;

    st = sdui_json_array_elements(text, size, depth, max_bytes, el, CAP,
                                  &count, &err);
    REQUIRE(st == err.status);
    val = sdui_json_validate(text, size, NO_DEPTH_LIMIT, &whole);
    while (first < size && is_ws(text[first]))
        first++;
    st2 = sdui_json_array_split(text, size, depth, starts, ends, CAP, &count2,
                                &err2);
    REQUIRE(st2 == err2.status);

    if (st != SDUI_OK) {
        REQUIRE(count == 0 && count2 == 0);
        REQUIRE(err.message[0] != '\0');
        REQUIRE(st == SDUI_JSON || st == SDUI_SCHEMA || st == SDUI_LIMIT ||
                st == SDUI_OOM);
        if (err.offset >= 0)
            REQUIRE((size_t)err.offset <= size && err.line >= 1);
        /* A valid array is never refused; valid JSON never as JSON. */
        if (val == SDUI_OK) {
            REQUIRE(st != SDUI_JSON);
            REQUIRE(first < size && text[first] != '[');
        }
        /* Not an array and deeper than the limit counts from the root. */
        if (st == SDUI_LIMIT)
            REQUIRE(first < size && text[first] != '[');
        if (st == SDUI_JSON)
            REQUIRE(val == SDUI_JSON || val == SDUI_LIMIT);
        /* The plain splitter fails the same way, or earlier on a
         * too-deep element it does not read past. */
        if (st2 == SDUI_LIMIT && st == SDUI_JSON)
            REQUIRE(err2.offset <= err.offset);
        else
            REQUIRE(st2 == st && err2.offset == err.offset);
        return 0;
    }
    REQUIRE(val == SDUI_OK);
    REQUIRE(first < size && text[first] == '[');
    for (i = 0; i < count && i < CAP; i++) {
        sdui_error one;
        sdui_status alone;
        size_t n = el[i].end - el[i].start;
        REQUIRE(el[i].start < el[i].end && el[i].end <= size);
        REQUIRE(el[i].start >= prev_end);
        if (i == 0)
            REQUIRE(one_separator(text, 0, el[i].start, '['));
        else
            REQUIRE(one_separator(text, prev_end, el[i].start, ','));
        prev_end = el[i].end;
        alone = sdui_json_validate(text + el[i].start, n, depth, &one);
        if (el[i].status == SDUI_OK) {
            REQUIRE(alone == SDUI_OK);
            REQUIRE(n <= max_bytes);
            REQUIRE(el[i].fault == el[i].start);
        } else {
            REQUIRE(el[i].status == SDUI_LIMIT);
            if (alone == SDUI_LIMIT) {
                /* Too deep: the same bracket as alone. */
                REQUIRE(one.offset >= 0 &&
                        el[i].fault == el[i].start + (size_t)one.offset);
                too_deep = 1;
            } else {
                /* Too large only. */
                REQUIRE(alone == SDUI_OK);
                REQUIRE(n > max_bytes && el[i].fault == el[i].start);
            }
        }
    }
    if (count <= CAP) {
        if (count == 0)
            REQUIRE(one_separator(text, first + 1, size, ']'));
        else
            REQUIRE(one_separator(text, prev_end, size, ']'));
    } else {
        /* Some elements unseen: the plain splitter decides for them. */
        too_deep = st2 == SDUI_LIMIT;
    }
    if (!too_deep) {
        REQUIRE(st2 == SDUI_OK && count2 == count);
        for (i = 0; i < count && i < CAP; i++)
            REQUIRE(starts[i] == el[i].start && ends[i] == el[i].end);
    } else {
        REQUIRE(st2 == SDUI_LIMIT && count2 == 0);
    }
    return 0;
}
