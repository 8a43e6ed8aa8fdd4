/*
 * fuzz_experiment.c - libFuzzer harness for experiment assignment
 * (include/sdui/experiment.h).
 *
 * The input is cut at 0xFF bytes into texts: the key, the seed, the user's
 * id, a second attribute's value, the namespace id; its first bytes pick
 * the numbers (variation count, hash version, weights, coverage, the
 * namespace's range).  For any input nothing may crash or read out of
 * bounds, and:
 *   - a hash is in [0, 1) for versions 1 and 2 and -1 otherwise, and equals
 *     the harness's own FNV-1a of the joined texts' UTF-16 code units
 *     (decoded here independently) when both texts are valid UTF-8;
 *   - bucket ranges start where the last ended, none is longer than its
 *     weight, and coverage 1 with usable weights covers [0, ~1);
 *   - a run is deterministic; enrolled means a variation in range, the hash
 *     used, and the bucket inside that variation's range; not enrolled
 *     means variation 0, no hash, bucket -1.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_experiment: invariant broken at line %d: %s\n", line, what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* The harness's own UTF-8 decoder: the scalar at s[*i], advancing; -1 for
 * bytes that are not one (RFC 3629). */
static long decode(const unsigned char *s, size_t n, size_t *i)
{
    unsigned char b = s[*i];
    long cp;
    size_t len, k;
    if (b < 0x80) {
        (*i)++;
        return b;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
        cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        cp = b & 0x0F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        cp = b & 0x07;
    } else {
        return -1;
    }
    if (*i + len > n)
        return -1;
    for (k = 1; k < len; k++) {
        if ((s[*i + k] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[*i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *i += len;
    return cp;
}

/* FNV-1a over the UTF-16 units of valid UTF-8; 0 with *ok = 0 otherwise. */
static uint32_t reference_fnv(const unsigned char *s, size_t n, uint32_t h, int *ok)
{
    size_t i = 0;
    while (i < n) {
        long cp = decode(s, n, &i);
        if (cp < 0) {
            *ok = 0;
            return 0;
        }
        if (cp >= 0x10000) {
            h = (h ^ (uint32_t)(0xD800 + ((cp - 0x10000) >> 10))) * 0x01000193u;
            h = (h ^ (uint32_t)(0xDC00 + ((cp - 0x10000) & 0x3FF))) * 0x01000193u;
        } else {
            h = (h ^ (uint32_t)cp) * 0x01000193u;
        }
    }
    return h;
}

/* The n-th text of the input (cut at 0xFF), after the 12 control bytes. */
static const char *part(const uint8_t *data, size_t size, int n, size_t *len)
{
    size_t at = 12, start;
    int k = 0;
    if (size < 12) {
        *len = 0;
        return "";
    }
    for (;;) {
        start = at;
        while (at < size && data[at] != 0xFF)
            at++;
        if (k == n) {
            *len = at - start;
            return (const char *)data + start;
        }
        if (at >= size) {
            *len = 0;
            return "";
        }
        at++;
        k++;
    }
}

/* libFuzzer's entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t kl, sl, il, ol, nl, i;
    const char *key = part(data, size, 0, &kl), *seed = part(data, size, 1, &sl);
    const char *id = part(data, size, 2, &il), *other = part(data, size, 3, &ol), *ns = part(data, size, 4, &nl);
    uint8_t c[12] = {0};
    double weights[8], sum = 0;
    sdui_range ranges[8];
    sdui_experiment e;
    sdui_experiment_attr attrs[2] = {{"id", 2, id, il}, {"other", 5, other, ol}};
    sdui_experiment_result r1, r2;
    sdui_error err;
    int version, ok = 1;
    size_t count;
    double h;

    memcpy(c, data, size < 12 ? size : 12);
    version = c[0] % 4;   /* 0 and 3 are unknown to the hash */
    h = sdui_experiment_hash(seed, sl, id, il, version);
    if (version == 1 || version == 2)
        REQUIRE(h >= 0 && h < 1);
    else
        REQUIRE(h == -1.0);
    if (version == 1) {
        uint32_t ref = reference_fnv((const unsigned char *)seed, sl,
                                     reference_fnv((const unsigned char *)id, il, 0x811c9dc5u, &ok), &ok);
        if (ok)
            REQUIRE(h == (double)(ref % 1000u) / 1000.0);
    }
    ok = 1;
    {
        uint32_t ref = reference_fnv((const unsigned char *)id, il, 0x811c9dc5u, &ok);
        if (ok)
            REQUIRE(sdui_experiment_fnv1a32(id, il) == ref);
    }

    count = c[1] % 9;   /* 0 to 8 variations */
    for (i = 0; i < 8; i++) {
        weights[i] = (double)c[2 + i % 8] / 255.0;
        if (i < count)
            sum += weights[i];
    }
    if (c[10] & 1) {    /* weights that sum to 1 */
        for (i = 0; i < count && sum > 0; i++)
            weights[i] /= sum;
    }
    sdui_experiment_bucket_ranges(count, (double)c[11] / 200.0 - 0.1, weights, c[10] & 2 ? count : 1, ranges);
    for (i = 0; i < count; i++) {
        REQUIRE(ranges[i].start <= ranges[i].end);
        REQUIRE(i == 0 ? ranges[i].start == 0 : ranges[i].start >= ranges[i - 1].start);
        REQUIRE(ranges[i].end - ranges[i].start <= 1.0000001);
    }

    memset(&e, 0, sizeof e);
    e.key = key;
    e.key_len = kl;
    e.seed = seed;
    e.seed_len = c[0] & 4 ? sl : 0;
    e.variation_count = count;
    e.weights = weights;
    e.weight_count = c[10] & 2 ? count : count + 1;
    e.has_coverage = (c[0] & 8) != 0;
    e.coverage = (double)c[11] / 200.0 - 0.1;
    e.hash_version = version;
    e.has_namespace = (c[0] & 16) != 0;
    e.namespace_id = ns;
    e.namespace_len = nl;
    e.namespace_start = (double)(c[2] % 100) / 100.0;
    e.namespace_end = e.namespace_start + (double)(c[3] % 100) / 100.0;
    e.inactive = (c[0] & 32) != 0;
    e.hash_attribute = c[0] & 64 ? "other" : NULL;
    e.hash_attribute_len = c[0] & 64 ? 5 : 0;
    e.fallback_attribute = c[0] & 128 ? "id" : NULL;
    e.fallback_attribute_len = c[0] & 128 ? 2 : 0;

    REQUIRE(sdui_experiment_run(&e, attrs, 2, c[1] & 16 ? 0 : 1, &r1, &err) == SDUI_OK);
    REQUIRE(sdui_experiment_run(&e, attrs, 2, c[1] & 16 ? 0 : 1, &r2, &err) == SDUI_OK);
    REQUIRE(r1.in_experiment == r2.in_experiment && r1.variation == r2.variation && r1.bucket == r2.bucket
            && r1.reason == r2.reason);
    REQUIRE(strcmp(sdui_experiment_reason_name(r1.reason), "unknown") != 0);
    if (r1.in_experiment) {
        sdui_range mine[8];
        REQUIRE(r1.reason == SDUI_EXPERIMENT_ENROLLED && r1.hash_used);
        REQUIRE(r1.variation >= 0 && (size_t)r1.variation < count);
        REQUIRE(r1.bucket >= 0 && r1.bucket < 1);
        sdui_experiment_bucket_ranges(count, e.has_coverage ? e.coverage : 1, weights, e.weight_count, mine);
        REQUIRE(r1.bucket >= mine[r1.variation].start && r1.bucket < mine[r1.variation].end);
        REQUIRE(sdui_experiment_choose(r1.bucket, mine, count) == r1.variation);
    } else {
        REQUIRE(r1.reason != SDUI_EXPERIMENT_ENROLLED && !r1.hash_used && r1.variation == 0 && r1.bucket == -1);
    }
    return 0;
}
