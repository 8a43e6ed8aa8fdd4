/*
 * fuzz_batch_split.c - libFuzzer harness for the splitter of batch answers
 * (a JSON array of tokens or compact-JWS strings, as /design-tokens sends).
 *
 * For any input the splitter must not crash or read out of bounds.  When it
 * says OK, every element range lies inside the input, in order and without
 * overlap, and each element validates alone at the same depth limit.  When
 * the whole input is valid JSON and an array, the splitter must not fail it.
 * A broken invariant aborts, which libFuzzer reports as a crash.
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

/* Room for element ranges; inputs with more elements check the first ones. */
#define CAP 64

/* libFuzzer entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t starts[CAP], ends[CAP], count = 0, i, prev_end = 0;
    unsigned depth = size % 2 ? 4 : SDUI_DEFAULT_MAX_DEPTH;
    sdui_error err, whole;
    sdui_status st, val;

    st = sdui_json_array_split(text, size, depth, starts, ends, CAP, &count,
                               &err);
    REQUIRE(st == err.status);
    val = sdui_json_validate(text, size, depth + 1, &whole);
    if (st != SDUI_OK) {
        REQUIRE(err.message[0] != '\0');
        REQUIRE(st == SDUI_JSON || st == SDUI_LIMIT || st == SDUI_SCHEMA ||
                st == SDUI_OOM);
        if (err.offset >= 0)
            REQUIRE((size_t)err.offset <= size && err.line >= 1);
        /* A valid array is never refused as a whole for its grammar. */
        if (val == SDUI_OK)
            REQUIRE(st != SDUI_JSON);
        return 0;
    }
    REQUIRE(val == SDUI_OK);
    for (i = 0; i < count && i < CAP; i++) {
        sdui_error one;
        REQUIRE(starts[i] < ends[i] && ends[i] <= size);
        REQUIRE(starts[i] >= prev_end);
        prev_end = ends[i];
        REQUIRE(sdui_json_validate(text + starts[i], ends[i] - starts[i],
                                   depth, &one) == SDUI_OK);
    }
    return 0;
}
