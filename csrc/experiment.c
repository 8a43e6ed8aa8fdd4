/*
 * experiment.c - assigning users to an experiment's variations
 * (include/sdui/experiment.h says what each function answers).
 *
 * Why the hash runs over UTF-16.  The specification's reference SDK is
 * JavaScript, whose strings are UTF-16: its FNV-1a takes charCodeAt(i),
 * one 16-bit code unit at a time, xor-ed into the state before the
 * multiply.  To give a user the variation that SDK gives, this one decodes
 * the UTF-8 it is handed and feeds the same code units: a character up to
 * U+FFFF is one unit, one above it two (its surrogates).  For ASCII, the
 * common case for user ids, a unit is the byte, and the loop below takes
 * bytes straight until it meets one that is not ASCII.
 *
 * Why nothing is concatenated.  The specification hashes `seed + value`
 * (and `value + seed` for version 1).  FNV-1a is a fold over the units, so
 * hashing the first text and then continuing with the second gives the
 * hash of the two joined, with no buffer: the functions below keep the
 * state between the parts.  Version 2's second round hashes the decimal
 * digits of the first (at most ten), written into a local array.
 *
 * Why the ranges are not built.  A run needs only the variation whose
 * range holds the hash: walking the weights once, with the running sum, is
 * the same as building the ranges and searching them, so a run allocates
 * nothing and has no bound on the number of variations but its cost.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "sdui/experiment.h"
#include "internal.h"

#define FNV_OFFSET 0x811c9dc5u
#define FNV_PRIME 0x01000193u

/* Folds the UTF-16 code units of UTF-8 `text` into FNV-1a state `h`. */
static uint32_t fnv_update(uint32_t h, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        long cp;
        if (s[i] < 0x80) {
            h = (h ^ s[i]) * FNV_PRIME;
            i++;
            continue;
        }
        {
            size_t at = i;
            cp = sdui__utf8_get(text, len, &i);
            if (cp < 0) {
                cp = 0xFFFD;    /* a byte that starts nothing valid */
                i = at + 1;
            }
        }
        if (cp >= 0x10000) {
            unsigned long v = (unsigned long)cp - 0x10000;
            h = (h ^ (uint32_t)(0xD800 + (v >> 10))) * FNV_PRIME;
            h = (h ^ (uint32_t)(0xDC00 + (v & 0x3FF))) * FNV_PRIME;
        } else {
            h = (h ^ (uint32_t)cp) * FNV_PRIME;
        }
    }
    return h;
}

/* FNV-1a 32 of the UTF-16 code units of `text` (experiment.h). */
uint32_t sdui_experiment_fnv1a32(const char *text, size_t len)
{
    return fnv_update(FNV_OFFSET, text, len);
}

/* The hash of seed and value for version 1 or 2, else -1 (experiment.h). */
double sdui_experiment_hash(const char *seed, size_t seed_len, const char *value, size_t value_len, int version)
{
    if (version == 2) {
        char digits[16];
        uint32_t h = fnv_update(fnv_update(FNV_OFFSET, seed, seed_len), value, value_len);
        size_t n = 0, i;
        /* The decimal text of h, most significant digit first. */
        do {
            digits[n++] = (char)('0' + h % 10);
            h /= 10;
        } while (h);
        for (i = 0; i < n / 2; i++) {
            char t = digits[i];
            digits[i] = digits[n - 1 - i];
            digits[n - 1 - i] = t;
        }
        return (double)(fnv_update(FNV_OFFSET, digits, n) % 10000u) / 10000.0;
    }
    if (version == 1)
        return (double)(fnv_update(fnv_update(FNV_OFFSET, value, value_len), seed, seed_len) % 1000u) / 1000.0;
    return -1.0;
}

/* Coverage as the ranges use it: clamped to [0, 1], NaN as 0. */
static double clamp_coverage(double c)
{
    if (!(c >= 0))
        return 0;   /* negative or NaN */
    return c > 1 ? 1 : c;
}

/* Whether `weights` can be used for `n` variations: as many, each finite
 * and not negative, summing to within [0.99, 1.01]. */
static int weights_usable(size_t n, const double *weights, size_t count)
{
    double sum = 0;
    size_t i;
    if (!weights || count != n)
        return 0;
    for (i = 0; i < n; i++) {
        if (!isfinite(weights[i]) || weights[i] < 0)
            return 0;
        sum += weights[i];
    }
    return sum >= 0.99 && sum <= 1.01;
}

/* Weight i of `n` under the rules: the given one, or 1/n. */
static double weight_at(size_t i, size_t n, const double *weights, int usable)
{
    return usable ? weights[i] : 1.0 / (double)n;
}

/* The ranges of the weights and coverage, by the rules (experiment.h). */
void sdui_experiment_bucket_ranges(size_t n, double coverage, const double *weights, size_t weight_count,
                                   sdui_range *out)
{
    int usable = weights_usable(n, weights, weight_count);
    double c = clamp_coverage(coverage), sum = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double w = weight_at(i, n, weights, usable);
        out[i].start = sum;
        out[i].end = sum + c * w;
        sum += w;
    }
}

/* The first range that holds bucket, or -1. */
int sdui_experiment_choose(double bucket, const sdui_range *ranges, size_t n)
{
    size_t i;
    for (i = 0; i < n && i < (size_t)INT32_MAX; i++)
        if (bucket >= ranges[i].start && bucket < ranges[i].end)
            return (int)i;
    return -1;
}

/* Whether value falls in the namespace (experiment.h). */
int sdui_experiment_in_namespace(const char *value, size_t value_len, const char *id, size_t id_len, double start,
                                 double end)
{
    /* hash("__" + id, value, 1): FNV-1a of value, then "__", then id. */
    uint32_t h = fnv_update(fnv_update(fnv_update(FNV_OFFSET, value, value_len), "__", 2), id, id_len);
    double n = (double)(h % 1000u) / 1000.0;
    return n >= start && n < end;
}

/* The value of attribute `name` (NULL: "id") among `attrs`, the first of
 * that name; NULL when absent or empty. */
static const sdui_experiment_attr *attribute(const sdui_experiment_attr *attrs, size_t count, const char *name,
                                             size_t name_len)
{
    size_t i;
    if (!name) {
        name = "id";
        name_len = 2;
    }
    for (i = 0; i < count; i++) {
        if (attrs[i].name_len == name_len && (name_len == 0 || memcmp(attrs[i].name, name, name_len) == 0))
            return attrs[i].value_len > 0 ? &attrs[i] : NULL;
    }
    return NULL;
}

/* Whether a filter leaves the user out: no value for its attribute, an
 * unknown hash version, or a hash in none of its ranges. */
static int filtered_out(const sdui_experiment_filter *f, const sdui_experiment_attr *attrs, size_t count)
{
    const sdui_experiment_attr *a = attribute(attrs, count, f->attribute, f->attribute_len);
    double n;
    size_t i;
    if (!a)
        return 1;
    n = sdui_experiment_hash(f->seed, f->seed_len, a->value, a->value_len, f->hash_version ? f->hash_version : 2);
    if (n < 0)
        return 1;
    for (i = 0; i < f->range_count; i++)
        if (n >= f->ranges[i].start && n < f->ranges[i].end)
            return 0;
    return 1;
}

/* Fills `out` for a user who is not enrolled, for `reason`. */
static sdui_status not_enrolled(sdui_experiment_result *out, sdui_experiment_reason reason)
{
    out->in_experiment = 0;
    out->variation = 0;
    out->hash_used = 0;
    out->bucket = -1;
    out->reason = reason;
    return SDUI_OK;
}

/* Whether `p` may be NULL with `count` items: only when there are none. */
#define GIVEN(p, count) ((p) != NULL || (count) == 0)

/* Runs an experiment for a user (experiment.h; the steps in its order). */
sdui_status sdui_experiment_run(const sdui_experiment *e, const sdui_experiment_attr *attrs, size_t attr_count,
                                int audience_passes, sdui_experiment_result *out, sdui_error *err)
{
    const sdui_experiment_attr *hv;
    const char *seed;
    size_t seed_len, i;
    double n;
    int assigned = -1;

    if (!e || !out || !GIVEN(attrs, attr_count) || !GIVEN(e->weights, e->weight_count)
        || !GIVEN(e->ranges, e->range_count) || !GIVEN(e->filters, e->filter_count) || !GIVEN(e->key, e->key_len)
        || !GIVEN(e->seed, e->seed_len) || !GIVEN(e->namespace_id, e->namespace_len))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "experiment: a NULL pointer with a count above 0");
    for (i = 0; i < e->filter_count; i++)
        if (!GIVEN(e->filters[i].ranges, e->filters[i].range_count) || !GIVEN(e->filters[i].seed, e->filters[i].seed_len))
            return sdui__fail(err, SDUI_ARGUMENT, -1, "experiment: filter %zu has a NULL pointer with a count above 0", i);

    out->hash_attribute = e->hash_attribute ? e->hash_attribute : "id";
    out->hash_attribute_len = e->hash_attribute ? e->hash_attribute_len : 2;
    out->hash_value = NULL;
    out->hash_value_len = 0;
    if (e->variation_count < 2)
        return not_enrolled(out, SDUI_EXPERIMENT_TOO_FEW_VARIATIONS);
    if (e->inactive)
        return not_enrolled(out, SDUI_EXPERIMENT_INACTIVE);
    hv = attribute(attrs, attr_count, e->hash_attribute, e->hash_attribute_len);
    if (!hv && e->fallback_attribute) {
        hv = attribute(attrs, attr_count, e->fallback_attribute, e->fallback_attribute_len);
        if (hv) {
            out->hash_attribute = e->fallback_attribute;
            out->hash_attribute_len = e->fallback_attribute_len;
        }
    }
    if (!hv)
        return not_enrolled(out, SDUI_EXPERIMENT_NO_HASH_VALUE);
    out->hash_value = hv->value;
    out->hash_value_len = hv->value_len;
    if (e->has_filters) {
        for (i = 0; i < e->filter_count; i++)
            if (filtered_out(&e->filters[i], attrs, attr_count))
                return not_enrolled(out, SDUI_EXPERIMENT_FILTERED);
    } else if (e->has_namespace
               && !sdui_experiment_in_namespace(hv->value, hv->value_len, e->namespace_id, e->namespace_len,
                                                e->namespace_start, e->namespace_end)) {
        return not_enrolled(out, SDUI_EXPERIMENT_NAMESPACE);
    }
    if (!audience_passes)
        return not_enrolled(out, SDUI_EXPERIMENT_AUDIENCE);
    seed = e->seed_len ? e->seed : e->key;
    seed_len = e->seed_len ? e->seed_len : e->key_len;
    n = sdui_experiment_hash(seed, seed_len, hv->value, hv->value_len, e->hash_version ? e->hash_version : 1);
    if (n < 0)
        return not_enrolled(out, SDUI_EXPERIMENT_UNKNOWN_HASH_VERSION);
    if (e->ranges) {
        assigned = sdui_experiment_choose(n, e->ranges, e->range_count);
    } else {
        /* The ranges of the weights, walked without building them. */
        size_t count = e->variation_count;
        int usable = weights_usable(count, e->weights, e->weight_count);
        double c = clamp_coverage(e->has_coverage ? e->coverage : 1), sum = 0;
        for (i = 0; i < count && i < (size_t)INT32_MAX; i++) {
            double w = weight_at(i, count, e->weights, usable);
            if (n >= sum && n < sum + c * w) {
                assigned = (int)i;
                break;
            }
            sum += w;
        }
    }
    if (assigned < 0 || (size_t)assigned >= e->variation_count)
        return not_enrolled(out, SDUI_EXPERIMENT_COVERAGE);
    out->in_experiment = 1;
    out->variation = assigned;
    out->hash_used = 1;
    out->bucket = n;
    out->reason = SDUI_EXPERIMENT_ENROLLED;
    assert(n >= 0 && n < 1);
    return SDUI_OK;
}

/* A reason's short name. */
const char *sdui_experiment_reason_name(sdui_experiment_reason reason)
{
    switch (reason) {
    case SDUI_EXPERIMENT_ENROLLED: return "enrolled";
    case SDUI_EXPERIMENT_TOO_FEW_VARIATIONS: return "too_few_variations";
    case SDUI_EXPERIMENT_INACTIVE: return "inactive";
    case SDUI_EXPERIMENT_NO_HASH_VALUE: return "no_hash_value";
    case SDUI_EXPERIMENT_FILTERED: return "filtered";
    case SDUI_EXPERIMENT_NAMESPACE: return "namespace";
    case SDUI_EXPERIMENT_AUDIENCE: return "audience";
    case SDUI_EXPERIMENT_UNKNOWN_HASH_VERSION: return "unknown_hash_version";
    case SDUI_EXPERIMENT_COVERAGE: return "coverage";
    }
    return "unknown";
}
