/*
 * experiment.h - which variation of an experiment a user sees: the one
 * assignment function the app and the registry both call, so they agree.
 *
 * The assignment follows GrowthBook's public SDK specification for
 * experiments (its `hash`, `getBucketRanges`, `chooseVariation`,
 * `inNamespace` and the experiment run), so a team can move experiments
 * between the two without reassigning anyone:
 *
 *   - A hash of a seed and the user's hash attribute value, a number in
 *     [0, 1): version 1 is FNV-1a 32-bit of value + seed, modulo 1000, over
 *     1000; version 2 is FNV-1a of the decimal text of FNV-1a of seed +
 *     value, modulo 10000, over 10000.  FNV-1a runs over the text's UTF-16
 *     code units, as the specification's reference SDK does (for ASCII:
 *     its bytes).
 *   - Bucket ranges from weights and coverage: range i is [s, s + coverage
 *     * w_i) where s is the sum of the weights before i.  Coverage is
 *     clamped to [0, 1]; weights of another count than the variations, or
 *     whose sum is outside [0.99, 1.01], are replaced by equal weights.
 *   - A run: fewer than two variations, an inactive experiment, or a
 *     missing or empty hash attribute (after the fallback attribute) never
 *     enrol; then filters (if any) or else the namespace; then the audience
 *     (our expression language, evaluated by the caller); then the hash
 *     (an unknown hash version does not enrol) and the variation whose
 *     range holds it (none: outside coverage).
 *
 * Where the specification is silent on bad numbers, this library is strict:
 * a NaN coverage counts as 0, and a weight that is negative or not finite
 * makes the weights invalid (equal weights are used).
 *
 * Nothing here allocates; every function is thread-safe (it reads only its
 * arguments).
 */
#ifndef SDUI_EXPERIMENT_H
#define SDUI_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A half-open range [start, end) of hash values. */
typedef struct sdui_range {
    double start;
    double end;
} sdui_range;

/* A user attribute as the hash reads it: its name and its value as text
 * (a number as the one number-to-text rule writes it, true as "true").
 * A value that is empty (len 0) counts as missing, as do the values the
 * specification treats as false (the caller leaves out 0, false and null). */
typedef struct sdui_experiment_attr {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} sdui_experiment_attr;

/* A filter: the users whose hash of `seed` falls in one of `ranges`. */
typedef struct sdui_experiment_filter {
    const char *attribute;  /* NULL: "id" */
    size_t attribute_len;
    const char *seed;
    size_t seed_len;
    int hash_version;       /* 0: 2 */
    const sdui_range *ranges;
    size_t range_count;
} sdui_experiment_filter;

/* An experiment as a run reads it.  Strings are UTF-8 with a length (not
 * NUL-terminated); a NULL pointer with length 0 is the empty string.
 * Zero-initialize it and set what the definition has. */
typedef struct sdui_experiment {
    const char *key;
    size_t key_len;
    size_t variation_count;
    const double *weights;      /* NULL: equal weights */
    size_t weight_count;
    int has_coverage;           /* 0: coverage 1 */
    double coverage;
    const sdui_range *ranges;   /* explicit ranges, used as they are; NULL: from weights */
    size_t range_count;
    const char *seed;           /* NULL or empty: the key */
    size_t seed_len;
    int hash_version;           /* 0: 1 */
    int has_namespace;
    const char *namespace_id;
    size_t namespace_len;
    double namespace_start;
    double namespace_end;
    int has_filters;            /* filters replace the namespace, even none */
    const sdui_experiment_filter *filters;
    size_t filter_count;
    int inactive;               /* 1: draft or stopped, nobody enrols */
    const char *hash_attribute; /* NULL: "id" */
    size_t hash_attribute_len;
    const char *fallback_attribute; /* NULL: none */
    size_t fallback_attribute_len;
} sdui_experiment;

/* Why a run enrolled the user or did not. */
typedef enum sdui_experiment_reason {
    SDUI_EXPERIMENT_ENROLLED = 0,
    SDUI_EXPERIMENT_TOO_FEW_VARIATIONS,
    SDUI_EXPERIMENT_INACTIVE,
    SDUI_EXPERIMENT_NO_HASH_VALUE,
    SDUI_EXPERIMENT_FILTERED,
    SDUI_EXPERIMENT_NAMESPACE,
    SDUI_EXPERIMENT_AUDIENCE,
    SDUI_EXPERIMENT_UNKNOWN_HASH_VERSION,
    SDUI_EXPERIMENT_COVERAGE
} sdui_experiment_reason;

/* What a run decided (the specification's experiment result). */
typedef struct sdui_experiment_result {
    int in_experiment;          /* 1 when enrolled                          */
    int variation;              /* the variation's index; 0 when not enrolled */
    int hash_used;              /* 1 when the hash chose the variation      */
    double bucket;              /* the hash, when hash_used; else -1        */
    const char *hash_attribute; /* the attribute read (the fallback when it was used) */
    size_t hash_attribute_len;
    const char *hash_value;     /* its value (points into the attributes)   */
    size_t hash_value_len;
    sdui_experiment_reason reason;
} sdui_experiment_result;

/* The hash of `value` with `seed` for hash `version` (1 or 2): a number in
 * [0, 1); -1 for any other version.  Thread-safe; allocates nothing. */
double sdui_experiment_hash(const char *seed, size_t seed_len, const char *value, size_t value_len, int version);

/* FNV-1a 32-bit over the UTF-16 code units of UTF-8 `text` (a byte that is
 * not valid UTF-8 counts as U+FFFD).  Thread-safe. */
uint32_t sdui_experiment_fnv1a32(const char *text, size_t len);

/* Writes the `n` bucket ranges for `coverage` and `weights` (NULL: equal;
 * `weight_count` of them) to `out[0..n)`, by the rules above.  Thread-safe. */
void sdui_experiment_bucket_ranges(size_t n, double coverage, const double *weights, size_t weight_count,
                                   sdui_range *out);

/* The index of the first of `ranges[0..n)` that holds `bucket`, or -1.
 * Thread-safe. */
int sdui_experiment_choose(double bucket, const sdui_range *ranges, size_t n);

/* Whether `value` is in namespace `id` over [start, end) (a hash of version
 * 1 with the seed "__" + id).  Thread-safe. */
int sdui_experiment_in_namespace(const char *value, size_t value_len, const char *id, size_t id_len, double start,
                                 double end);

/*
 * Runs `experiment` for a user with attributes `attrs[0..attr_count)` (the
 * first of a name counts) and the caller's verdict on its audience
 * (`audience_passes`: 1 passes, 0 fails; the caller evaluates the
 * audience expression).  Writes the result to `*out`.
 *
 * Returns SDUI_OK, or SDUI_ARGUMENT (in `err`) when a pointer is NULL where
 * its count is not 0.  Thread-safe; allocates nothing.  The result's
 * strings point into `experiment` and `attrs`.
 */
sdui_status sdui_experiment_run(const sdui_experiment *experiment, const sdui_experiment_attr *attrs,
                                size_t attr_count, int audience_passes, sdui_experiment_result *out,
                                sdui_error *err);

/* The short name of a reason ("enrolled", "inactive", "coverage", ...);
 * "unknown" outside the enum.  Static storage; thread-safe. */
const char *sdui_experiment_reason_name(sdui_experiment_reason reason);

#ifdef __cplusplus
}
#endif
#endif
