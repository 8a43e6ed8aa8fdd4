/*
 * test_experiment.c - experiment assignment (include/sdui/experiment.h):
 * the published cases of the specification it follows
 * (Tests/ExperimentVectors/spec-cases.json: hashes, bucket ranges, choosing
 * a variation, namespaces, whole runs), the text the hash reads (UTF-16
 * code units), the rules for bad weights and coverage, the reasons a user
 * is not enrolled, and the spread of a million users over the weights.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The vectors file, read with the tests' reference parser. */
static json_t *vectors(void)
{
    json_error_t e;
    json_t *root = json_load_file("Tests/ExperimentVectors/spec-cases.json", 0, &e);
    if (!root) {
        fprintf(stderr, "cannot read the vectors: %s (line %d)\n", e.text, e.line);
        exit(1);
    }
    return root;
}

/* A string member's text and length (NULL, 0 when absent). */
static const char *text(json_t *v, size_t *len)
{
    if (!json_is_string(v)) {
        *len = 0;
        return NULL;
    }
    *len = json_string_length(v);
    return json_string_value(v);
}

/* FNV-1a over 16-bit units, written out for the test. */
static uint32_t fnv_units(const unsigned *units, size_t n)
{
    uint32_t h = 0x811c9dc5u;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ units[i]) * 0x01000193u;
    return h;
}

static void test_hash_cases(json_t *root)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(root, "hash"), i, c) {
        size_t sl, vl;
        const char *seed = text(json_array_get(c, 0), &sl), *value = text(json_array_get(c, 1), &vl);
        int version = (int)json_integer_value(json_array_get(c, 2));
        json_t *want = json_array_get(c, 3);
        double got = sdui_experiment_hash(seed, sl, value, vl, version);
        if (json_is_null(want))
            CHECKF(got == -1.0, "hash case %zu: %g, expected null (-1)", i, got);
        else
            CHECKF(fabs(got - json_number_value(want)) < 1e-12, "hash case %zu (\"%s\", \"%s\", v%d): %.6f, expected %.6f",
                   i, seed, value, version, got, json_number_value(want));
    }
}

static void test_bucket_range_cases(json_t *root)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(root, "getBucketRange"), i, c) {
        json_t *args = json_array_get(c, 1), *want = json_array_get(c, 2), *w = json_array_get(args, 2);
        size_t n = (size_t)json_integer_value(json_array_get(args, 0)), k;
        double weights[16], coverage = json_number_value(json_array_get(args, 1));
        sdui_range out[16];
        size_t wn = json_is_array(w) ? json_array_size(w) : 0;
        if (n > 16 || wn > 16) {
            CHECKF(0, "bucket case %zu too large for the test", i);
            continue;
        }
        for (k = 0; k < wn; k++)
            weights[k] = json_number_value(json_array_get(w, k));
        sdui_experiment_bucket_ranges(n, coverage, json_is_array(w) ? weights : NULL, wn, out);
        CHECKF(json_array_size(want) == n, "bucket case %zu: %zu ranges expected", i, json_array_size(want));
        for (k = 0; k < n && k < json_array_size(want); k++) {
            double s = json_number_value(json_array_get(json_array_get(want, k), 0));
            double e = json_number_value(json_array_get(json_array_get(want, k), 1));
            CHECKF(fabs(out[k].start - s) < 1e-6 && fabs(out[k].end - e) < 1e-6,
                   "bucket case %zu (%s) range %zu: [%g, %g), expected [%g, %g)", i,
                   json_string_value(json_array_get(c, 0)), k, out[k].start, out[k].end, s, e);
        }
    }
}

static void test_choose_and_namespace_cases(json_t *root)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(root, "chooseVariation"), i, c) {
        json_t *ranges = json_array_get(c, 2);
        sdui_range r[16];
        size_t n = json_array_size(ranges), k;
        for (k = 0; k < n && k < 16; k++) {
            r[k].start = json_number_value(json_array_get(json_array_get(ranges, k), 0));
            r[k].end = json_number_value(json_array_get(json_array_get(ranges, k), 1));
        }
        CHECKF(sdui_experiment_choose(json_number_value(json_array_get(c, 1)), r, n) ==
                   (int)json_integer_value(json_array_get(c, 3)),
               "chooseVariation case %zu (%s)", i, json_string_value(json_array_get(c, 0)));
    }
    json_array_foreach(json_object_get(root, "inNamespace"), i, c) {
        size_t vl, il;
        const char *value = text(json_array_get(c, 1), &vl);
        json_t *ns = json_array_get(c, 2);
        const char *id = text(json_array_get(ns, 0), &il);
        int got = sdui_experiment_in_namespace(value, vl, id, il, json_number_value(json_array_get(ns, 1)),
                                               json_number_value(json_array_get(ns, 2)));
        CHECKF(got == json_is_true(json_array_get(c, 3)), "inNamespace case %zu (%s)", i,
               json_string_value(json_array_get(c, 0)));
    }
}

/* An attribute's value as the hash reads it: strings as they are, numbers
 * as JavaScript writes them (the cases hold integers), true as "true";
 * false, null and empty are missing. */
static int attr_text(json_t *v, char *buf, size_t size, const char **out, size_t *len)
{
    if (json_is_string(v)) {
        *out = json_string_value(v);
        *len = json_string_length(v);
    } else if (json_is_integer(v) && json_integer_value(v) != 0) {
        *len = (size_t)snprintf(buf, size, "%lld", (long long)json_integer_value(v));
        *out = buf;
    } else if (json_is_true(v)) {
        *out = "true";
        *len = 4;
    } else {
        return 0;
    }
    return *len > 0;
}

static void test_run_cases(json_t *root)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(root, "run"), i, c) {
        const char *name = json_string_value(json_array_get(c, 0));
        json_t *ctx = json_array_get(c, 1), *x = json_array_get(c, 2), *attrs = json_object_get(ctx, "attributes");
        json_t *variations = json_object_get(x, "variations"), *v;
        sdui_experiment e;
        sdui_experiment_attr a[16];
        char numbers[16][32];
        double weights[16];
        sdui_range ranges[16], filter_ranges[8][8];
        sdui_experiment_filter filters[8];
        sdui_experiment_result r;
        sdui_error err;
        size_t an = 0, k;
        const char *key;

        memset(&e, 0, sizeof e);
        e.key = text(json_object_get(x, "key"), &e.key_len);
        e.variation_count = json_array_size(variations);
        if ((v = json_object_get(x, "weights")) && json_is_array(v)) {
            e.weight_count = json_array_size(v);
            for (k = 0; k < e.weight_count && k < 16; k++)
                weights[k] = json_number_value(json_array_get(v, k));
            e.weights = weights;
        }
        if ((v = json_object_get(x, "coverage"))) {
            e.has_coverage = 1;
            e.coverage = json_number_value(v);
        }
        if ((v = json_object_get(x, "ranges"))) {
            e.range_count = json_array_size(v);
            for (k = 0; k < e.range_count && k < 16; k++) {
                ranges[k].start = json_number_value(json_array_get(json_array_get(v, k), 0));
                ranges[k].end = json_number_value(json_array_get(json_array_get(v, k), 1));
            }
            e.ranges = ranges;
        }
        e.seed = text(json_object_get(x, "seed"), &e.seed_len);
        e.hash_version = (int)json_integer_value(json_object_get(x, "hashVersion"));
        if ((v = json_object_get(x, "namespace"))) {
            e.has_namespace = 1;
            e.namespace_id = text(json_array_get(v, 0), &e.namespace_len);
            e.namespace_start = json_number_value(json_array_get(v, 1));
            e.namespace_end = json_number_value(json_array_get(v, 2));
        }
        if ((v = json_object_get(x, "filters"))) {
            json_t *f;
            size_t fi;
            e.has_filters = 1;
            e.filter_count = json_array_size(v);
            json_array_foreach(v, fi, f) {
                json_t *fr = json_object_get(f, "ranges");
                size_t rk;
                if (fi >= 8)
                    break;
                memset(&filters[fi], 0, sizeof filters[fi]);
                filters[fi].attribute = text(json_object_get(f, "attribute"), &filters[fi].attribute_len);
                filters[fi].seed = text(json_object_get(f, "seed"), &filters[fi].seed_len);
                filters[fi].hash_version = (int)json_integer_value(json_object_get(f, "hashVersion"));
                filters[fi].range_count = json_array_size(fr);
                for (rk = 0; rk < filters[fi].range_count && rk < 8; rk++) {
                    filter_ranges[fi][rk].start = json_number_value(json_array_get(json_array_get(fr, rk), 0));
                    filter_ranges[fi][rk].end = json_number_value(json_array_get(json_array_get(fr, rk), 1));
                }
                filters[fi].ranges = filter_ranges[fi];
            }
            e.filters = filters;
        }
        e.inactive = json_is_false(json_object_get(x, "active"));
        e.hash_attribute = text(json_object_get(x, "hashAttribute"), &e.hash_attribute_len);
        json_object_foreach(attrs, key, v) {
            if (an >= 16)
                break;
            if (!attr_text(v, numbers[an], sizeof numbers[an], &a[an].value, &a[an].value_len))
                continue;
            a[an].name = key;
            a[an].name_len = strlen(key);
            an++;
        }
        CHECK_STATUS(sdui_experiment_run(&e, a, an, 1, &r, &err), SDUI_OK);
        CHECKF(r.in_experiment == json_is_true(json_array_get(c, 4)), "run \"%s\": inExperiment %d (%s)", name,
               r.in_experiment, sdui_experiment_reason_name(r.reason));
        CHECKF(r.hash_used == json_is_true(json_array_get(c, 5)), "run \"%s\": hashUsed %d", name, r.hash_used);
        CHECKF(json_equal(json_array_get(variations, (size_t)r.variation), json_array_get(c, 3)),
               "run \"%s\": variation %d", name, r.variation);
    }
}

static void test_utf16_units(void)
{
    /* "é" (U+00E9) is one unit; "😀" (U+1F600) two, its surrogates. */
    unsigned e_units[] = {0xE9}, smile[] = {0x61, 0xD83D, 0xDE00, 0x62};
    unsigned bad[] = {0x61, 0xFFFD, 0x62};
    CHECK(sdui_experiment_fnv1a32("\xc3\xa9", 2) == fnv_units(e_units, 1));
    CHECK(sdui_experiment_fnv1a32("a\xf0\x9f\x98\x80" "b", 6) == fnv_units(smile, 4));
    CHECK(sdui_experiment_fnv1a32("a\xff" "b", 3) == fnv_units(bad, 3));
    CHECK(sdui_experiment_fnv1a32("", 0) == 0x811c9dc5u);
    /* Parts hash as the joined text. */
    CHECK(sdui_experiment_hash("s\xc3\xa9", 3, "v\xf0\x9f\x98\x80", 5, 1) ==
          (double)(sdui_experiment_fnv1a32("v\xf0\x9f\x98\x80s\xc3\xa9", 8) % 1000u) / 1000.0);
    CHECK(sdui_experiment_hash("a", 1, "b", 1, 3) == -1.0 && sdui_experiment_hash("a", 1, "b", 1, 0) == -1.0);
}

/* Runs a two-variation experiment for user `id`. */
static sdui_experiment_result run_for(const sdui_experiment *e, const char *id, int audience)
{
    sdui_experiment_attr a = {"id", 2, id, strlen(id)};
    sdui_experiment_result r;
    sdui_error err;
    CHECK_STATUS(sdui_experiment_run(e, &a, id ? 1 : 0, audience, &r, &err), SDUI_OK);
    return r;
}

static void test_rules_and_reasons(void)
{
    sdui_experiment e;
    sdui_experiment_result r;
    sdui_range out[3];
    double bad_sum[] = {0.5, 0.6}, negative[] = {1.5, -0.5}, nan_w[] = {NAN, 1};
    sdui_experiment_attr fallback[] = {{"id", 2, "", 0}, {"device", 6, "d-42", 4}};
    sdui_error err;
    size_t i, enrolled = 0;

    /* Bad weights give equal ranges; coverage is clamped; NaN coverage is 0. */
    sdui_experiment_bucket_ranges(2, 1, bad_sum, 2, out);
    CHECK(out[0].end == 0.5 && out[1].start == 0.5 && out[1].end == 1);
    sdui_experiment_bucket_ranges(2, 1, negative, 2, out);
    CHECK(out[0].end == 0.5);
    sdui_experiment_bucket_ranges(2, 1, nan_w, 2, out);
    CHECK(out[0].end == 0.5);
    sdui_experiment_bucket_ranges(2, 1, bad_sum, 1, out);
    CHECK(out[0].end == 0.5);
    sdui_experiment_bucket_ranges(2, 7, NULL, 0, out);
    CHECK(out[1].end == 1);
    sdui_experiment_bucket_ranges(2, -3, NULL, 0, out);
    CHECK(out[0].end == 0 && out[1].start == 0.5 && out[1].end == 0.5);
    sdui_experiment_bucket_ranges(2, NAN, NULL, 0, out);
    CHECK(out[0].end == 0 && out[1].end == 0.5);

    memset(&e, 0, sizeof e);
    e.key = "exp";
    e.key_len = 3;
    e.variation_count = 2;
    e.has_coverage = 1;
    e.coverage = NAN;
    CHECK(run_for(&e, "u1", 1).reason == SDUI_EXPERIMENT_COVERAGE);
    e.has_coverage = 0;
    /* The reasons, each alone. */
    CHECK(run_for(&e, "", 1).reason == SDUI_EXPERIMENT_NO_HASH_VALUE);
    CHECK(run_for(&e, "u1", 0).reason == SDUI_EXPERIMENT_AUDIENCE);
    e.variation_count = 1;
    r = run_for(&e, "u1", 1);
    CHECK(r.reason == SDUI_EXPERIMENT_TOO_FEW_VARIATIONS && !r.in_experiment && r.variation == 0 && r.bucket == -1);
    e.variation_count = 2;
    e.inactive = 1;
    CHECK(run_for(&e, "u1", 1).reason == SDUI_EXPERIMENT_INACTIVE);
    e.inactive = 0;
    e.hash_version = 3;
    CHECK(run_for(&e, "u1", 1).reason == SDUI_EXPERIMENT_UNKNOWN_HASH_VERSION);
    e.hash_version = 2;
    r = run_for(&e, "u1", 1);
    CHECK(r.in_experiment && r.hash_used && r.bucket >= 0 && r.bucket < 1 && r.reason == SDUI_EXPERIMENT_ENROLLED);
    CHECK(r.hash_value_len == 2 && memcmp(r.hash_value, "u1", 2) == 0);
    /* The fallback attribute, when the hash attribute is empty. */
    e.fallback_attribute = "device";
    e.fallback_attribute_len = 6;
    CHECK_STATUS(sdui_experiment_run(&e, fallback, 2, 1, &r, &err), SDUI_OK);
    CHECK(r.in_experiment && r.hash_attribute_len == 6 && memcmp(r.hash_attribute, "device", 6) == 0);
    e.fallback_attribute = NULL;
    e.fallback_attribute_len = 0;
    /* Explicit ranges beyond the variations: not enrolled there. */
    {
        sdui_range wide[3] = {{0, 0}, {0, 0}, {0, 1}};
        e.ranges = wide;
        e.range_count = 3;
        CHECK(run_for(&e, "u1", 1).reason == SDUI_EXPERIMENT_COVERAGE);
        e.ranges = NULL;
        e.range_count = 0;
    }
    /* Filters replace the namespace, even none. */
    e.has_namespace = 1;
    e.namespace_id = "ns";
    e.namespace_len = 2;
    e.namespace_start = 0;
    e.namespace_end = 0;
    CHECK(run_for(&e, "u1", 1).reason == SDUI_EXPERIMENT_NAMESPACE);
    e.has_filters = 1;
    CHECK(run_for(&e, "u1", 1).in_experiment);
    e.has_filters = 0;
    e.has_namespace = 0;
    /* NULL with a count: refused, with a message. */
    e.weight_count = 2;
    CHECK_STATUS(sdui_experiment_run(&e, NULL, 0, 1, &r, &err), SDUI_ARGUMENT);
    CHECK(strstr(err.message, "NULL") != NULL);
    e.weight_count = 0;
    CHECK_STATUS(sdui_experiment_run(&e, NULL, 1, 1, &r, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_experiment_run(NULL, NULL, 0, 1, &r, &err), SDUI_ARGUMENT);
    for (i = 0; i < 100; i++) {
        char id[16];
        snprintf(id, sizeof id, "user-%zu", i);
        enrolled += (size_t)run_for(&e, id, 1).in_experiment;
    }
    CHECK(enrolled == 100);
    CHECK(strcmp(sdui_experiment_reason_name(SDUI_EXPERIMENT_COVERAGE), "coverage") == 0);
    CHECK(strcmp(sdui_experiment_reason_name((sdui_experiment_reason)99), "unknown") == 0);
}

/* A million users over weights 0.2, 0.3, 0.5 (hash version 2): each share
 * within 0.3 percentage points of its weight, and the same user always
 * gets the same variation. */
static void test_spread(void)
{
    double weights[] = {0.2, 0.3, 0.5};
    size_t counts[3] = {0, 0, 0}, i, users = 1000000;
    sdui_experiment e;
    memset(&e, 0, sizeof e);
    e.key = "checkout-cta";
    e.key_len = 12;
    e.variation_count = 3;
    e.weights = weights;
    e.weight_count = 3;
    e.hash_version = 2;
    for (i = 0; i < users; i++) {
        char id[24];
        sdui_experiment_result r;
        snprintf(id, sizeof id, "user-%zu", i);
        r = run_for(&e, id, 1);
        if (r.in_experiment)
            counts[r.variation]++;
        if (i % 1000 == 0)
            CHECK(run_for(&e, id, 1).variation == r.variation);
    }
    for (i = 0; i < 3; i++) {
        double share = (double)counts[i] / (double)users;
        CHECKF(fabs(share - weights[i]) <= 0.003, "variation %zu: share %.5f, weight %.2f", i, share, weights[i]);
        printf("spread: variation %zu: %.4f%% of %zu users (weight %.0f%%, off by %.4f points)\n", i, share * 100,
               users, weights[i] * 100, fabs(share - weights[i]) * 100);
    }
}

int main(void)
{
    json_t *root = vectors();
    test_hash_cases(root);
    test_bucket_range_cases(root);
    test_choose_and_namespace_cases(root);
    test_run_cases(root);
    json_decref(root);
    test_utf16_units();
    test_rules_and_reasons();
    test_spread();
    return check_summary();
}
