/*
 * limits.h - resource limits applied while opening packs and parsing tokens.
 */
#ifndef SDUI_LIMITS_H
#define SDUI_LIMITS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_limits {
    size_t max_compressed_bytes; /* gzip input; default 16 MiB               */
    size_t max_inflated_bytes;   /* JSON after inflate; default 64 MiB       */
    size_t max_token_bytes;      /* one token's JSON text; default 32768     */
    unsigned max_depth;          /* JSON nesting, see below; default 128    */
    size_t max_tokens;           /* tokens in one pack; default 100000       */
    /* Not a limit but a threshold: packs whose JSON is at least this large
     * are scanned on two threads when they put one token per line (as packs
     * written by sdui do).  Default 1 MiB; SIZE_MAX scans on one thread.
     * The result is the same either way. */
    size_t parallel_scan_bytes;
} sdui_limits;

/*
 * Depth, one definition end to end.  A value is measured from itself: a
 * scalar is level 0, a container level 1, a container in it level 2, and
 * so on; max_depth is the deepest level allowed.  What is measured:
 *   - a token: from the token object (level 1), whether it stands alone
 *     (sdui_token_parse), sits in a pack or in a batch answer;
 *   - a pack: its root object and its "tokens" array are an envelope and
 *     do not count; each token counts from itself, and any other member
 *     of the root from its own value;
 *   - a batch answer (sdui_json_array_split, sdui_json_array_elements):
 *     the array does not count; each element counts from itself;
 *   - any other document (sdui_json_validate): from its root.
 * So a token that passes sdui_token_parse is accepted in a pack and in an
 * answer under the same limits, and one that is too deep alone is refused
 * in both, at the same bracket.  (The value tree a token or a document
 * is read into has a nesting bound of its own, 2048 levels, reported as
 * SDUI_JSON; a max_depth above 2000 does not make deeper values parse.)
 */
#define SDUI_DEFAULT_MAX_COMPRESSED_BYTES ((size_t)16 << 20)
#define SDUI_DEFAULT_MAX_INFLATED_BYTES   ((size_t)64 << 20)
#define SDUI_DEFAULT_MAX_TOKEN_BYTES      ((size_t)32768)
#define SDUI_DEFAULT_MAX_DEPTH            128u
#define SDUI_DEFAULT_MAX_TOKENS           ((size_t)100000)
#define SDUI_DEFAULT_PARALLEL_SCAN_BYTES  ((size_t)1 << 20)

/* Fills *out with the defaults above.  Thread-safe. */
void sdui_limits_default(sdui_limits *out);

#ifdef __cplusplus
}
#endif
#endif
