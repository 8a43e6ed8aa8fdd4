/*
 * limits.c - the resource limits of packs and tokens: the defaults of
 * limits.h, and the one place where a NULL limits pointer becomes them.
 */
#include "internal.h"

/* The defaults of limits.h, as one constant both functions below use. */
static const sdui_limits defaults = {
    SDUI_DEFAULT_MAX_COMPRESSED_BYTES, SDUI_DEFAULT_MAX_INFLATED_BYTES,
    SDUI_DEFAULT_MAX_TOKEN_BYTES,      SDUI_DEFAULT_MAX_DEPTH,
    SDUI_DEFAULT_MAX_TOKENS,           SDUI_DEFAULT_PARALLEL_SCAN_BYTES,
};

/* Fills *out with the defaults (limits.h). */
void sdui_limits_default(sdui_limits *out)
{
    assert(out);
    *out = defaults;
}

/* The caller's limits, or the static defaults when limits is NULL
 * (internal.h). */
const sdui_limits *sdui__limits_or_default(const sdui_limits *limits)
{
    return limits ? limits : &defaults;
}
