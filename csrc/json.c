/*
 * json.c - the generic validating JSON scanner (scan.h, json.h).
 *
 * One pass over the text checks the RFC 8259 grammar, UTF-8 (RFC 3629),
 * escapes and the nesting depth, and builds no DOM.  Containers are tracked
 * with one bit per level (object or array) on a bit stack that lives on the
 * C stack for the first 4096 levels and doubles on the heap past them.
 *
 * Readers.  The scanner knows no document shape.  A reader that needs one
 * gives a hook (scan.h) and the depths it cares about; the scanner calls it
 * for the keys and values there and nowhere else, so a pack's shape (the
 * root object, its "tokens" array, each token's "id": depths 0 to 3, in
 * pack_scan.c) or a batch answer's elements (depth 1, json_split.c) cost
 * one compare per value deeper down.  A hook may mark a container as an
 * envelope: it does not count toward the nesting limit and what is inside
 * counts from itself (limits.h), which is how a pack's root and "tokens"
 * array, or a batch answer's array, stay out of a token's depth.
 *
 * Strings, most of a pack's bytes, are skipped sixteen (SSE2) or eight
 * bytes at a time: a word is tested at once for a quote, a backslash, a
 * control byte or a non-ASCII byte, and only those bytes take the slow
 * path.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "scan.h"

/* 1 for an ASCII digit. */
#define IS_DIGIT(c) ((unsigned)(c) - '0' < 10u)

/* Bytes that end the fast path inside a string. */
static const unsigned char string_special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x10 */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* '"'  */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* '\\' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x80 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    (defined(__GNUC__) || defined(__clang__))
#define SCAN_SWAR 1
#if defined(__SSE2__)
#define SCAN_SSE2 1
#include <emmintrin.h>
#endif
#endif


/* The state of one scan. */
typedef struct scanner {
    const unsigned char *base, *end;
    const sdui_scan_config *cfg;
    unsigned max_depth;
    sdui_error *err;
    size_t envelopes;         /* envelope containers open                 */
    /* The bit stack's size, and the one compare of PUSH: the lower of
     * max_depth and the stack's last bit. */
    size_t stack_bits, guard;
    sdui_status slow_status;  /* why push_slow failed                     */
} scanner;

/* Reports a JSON-category error at p. */
static sdui_status json_fail(scanner *s, const unsigned char *p,
                             const char *what)
{
    return sdui__fail_at(s->err, SDUI_JSON, (const char *)s->base,
                         (size_t)(s->end - s->base), (size_t)(p - s->base),
                         "%s", what);
}

/* Value of one hex digit, or -1. */
static int hexval(unsigned c)
{
    if (c - '0' < 10u)
        return (int)(c - '0');
    c |= 0x20;
    if (c - 'a' < 6u)
        return (int)(c - 'a' + 10);
    return -1;
}

/* Reads four hex digits at p (bounds checked); -1 if invalid. */
static long hex4(const unsigned char *p, const unsigned char *end)
{
    long v = 0;
    int i;
    if (end - p < 4)
        return -1;
    for (i = 0; i < 4; i++) {
        int d = hexval(p[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/*
 * Checks one UTF-8 sequence starting at p (p[0] >= 0x80) and returns the
 * byte after it, or NULL if it is not well formed (RFC 3629 table 4).
 */
static const unsigned char *utf8_next(const unsigned char *p,
                                      const unsigned char *end)
{
    unsigned c = p[0];
    unsigned lo = 0x80, hi = 0xBF;
    int n, i;
    if (c >= 0xC2 && c <= 0xDF)
        n = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 2;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 3;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return NULL;
    if (end - p <= n)
        return NULL;
    if (p[1] < lo || p[1] > hi)
        return NULL;
    for (i = 2; i <= n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return NULL;
    return p + n + 1;
}

/*
 * Scans a string body; p is just past the opening quote.  Returns the byte
 * after the closing quote, or NULL after reporting an error.  Sets *escaped
 * when the body holds a backslash escape.
 */
static SDUI_ALWAYS_INLINE const unsigned char *
scan_string(scanner *s, const unsigned char *p, int *escaped)
{
    const unsigned char *end = s->end;
    const unsigned char *open = p - 1;
    for (;;) {
#ifdef SCAN_SSE2
        /* 16 bytes at a time: a signed compare with 0x20 is true for control
         * bytes and for every byte >= 0x80, so three compares find them all. */
        while (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            __m128i hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                             _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
            unsigned m = (unsigned)_mm_movemask_epi8(hit);
            if (m) {
                p += __builtin_ctz(m);
                goto special;
            }
            p += 16;
        }
#endif
#ifdef SCAN_SWAR
        while (end - p >= 8) {
            const uint64_t ones = 0x0101010101010101ULL;
            const uint64_t high = 0x8080808080808080ULL;
            uint64_t v, q, b, m;
            memcpy(&v, p, 8);
            q = v ^ (ones * '"');
            b = v ^ (ones * '\\');
            m = ((q - ones) & ~q) | ((b - ones) & ~b) |
                ((v - ones * 0x20) & ~v) | v;
            m &= high;
            if (m) {
                p += (unsigned)__builtin_ctzll(m) >> 3;
                goto special;
            }
            p += 8;
        }
#endif
        while (p < end && !string_special[*p])
            p++;
        if (SDUI_UNLIKELY(p >= end)) {
            json_fail(s, open, "unterminated string");
            return NULL;
        }
#if defined(SCAN_SWAR) || defined(SCAN_SSE2)
    special:
#endif
        if (*p == '"')
            return p + 1;
        if (*p == '\\') {
            long cp;
            *escaped = 1;
            if (end - p < 2) {
                json_fail(s, open, "unterminated string");
                return NULL;
            }
            switch (p[1]) {
            case '"': case '\\': case '/': case 'b':
            case 'f': case 'n': case 'r': case 't':
                p += 2;
                continue;
            case 'u':
                break;
            default:
                json_fail(s, p, "invalid escape sequence");
                return NULL;
            }
            cp = hex4(p + 2, end);
            if (cp < 0) {
                json_fail(s, p, "invalid \\u escape: expected four hex digits");
                return NULL;
            }
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                json_fail(s, p, "invalid \\u escape: lone low surrogate");
                return NULL;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                long lo = -1;
                if (end - p >= 12 && p[6] == '\\' && p[7] == 'u')
                    lo = hex4(p + 8, end);
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    json_fail(s, p, "invalid \\u escape: unpaired high surrogate");
                    return NULL;
                }
                p += 12;
            } else
                p += 6;
            continue;
        }
        if (*p < 0x20) {
            json_fail(s, p, "control character in string (must be escaped)");
            return NULL;
        }
        {
            const unsigned char *n = utf8_next(p, end);
            if (!n) {
                json_fail(s, p, "invalid UTF-8 in string");
                return NULL;
            }
            p = n;
        }
    }
}

/* Scans a number at p; returns the byte after it, or NULL after an error. */
static const unsigned char *scan_number(scanner *s, const unsigned char *p)
{
    const unsigned char *end = s->end;
    if (*p == '-')
        p++;
    if (p >= end || !IS_DIGIT(*p)) {
        json_fail(s, p, "invalid number: expected a digit");
        return NULL;
    }
    if (*p == '0')
        p++;
    else
        while (p < end && IS_DIGIT(*p))
            p++;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !IS_DIGIT(*p)) {
            json_fail(s, p, "invalid number: expected a digit after '.'");
            return NULL;
        }
        while (p < end && IS_DIGIT(*p))
            p++;
    }
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !IS_DIGIT(*p)) {
            json_fail(s, p, "invalid number: expected a digit in the exponent");
            return NULL;
        }
        while (p < end && IS_DIGIT(*p))
            p++;
    }
    return p;
}

/* Skips JSON white space. */
static inline const unsigned char *skip_ws(const unsigned char *p,
                                           const unsigned char *end)
{
    if (SDUI_LIKELY(p < end && *p > ' '))
        return p; /* compact JSON: nothing to skip */
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* 1 if c can start a JSON value. */
static int starts_value(unsigned c)
{
    return c == '{' || c == '[' || c == '"' || c == 't' || c == 'f' ||
           c == 'n' || c == '-' || IS_DIGIT(c);
}

/* 1 if the raw key body [k, k+len) decodes to the NUL-terminated name
 * (scan.h). */
int sdui__key_is(const char *k, size_t len, int escaped, const char *name)
{
    size_t n = strlen(name);
    char buf[64];
    if (!escaped)
        return len == n && memcmp(k, name, n) == 0;
    if (len >= sizeof buf)
        return 0;
    return sdui__unescape(k, len, buf) == n && memcmp(buf, name, n) == 0;
}

/* Bit stack of open containers: 1 for an object, 0 for an array.  This
 * many levels live on the C stack; deeper documents grow a heap copy. */
#define STACK_INLINE_BITS 4096

/* The "nesting too deep" message: the limit and where levels count from
 * (the reader's words for the number of envelopes open). */
static sdui_status depth_fail(scanner *s, const unsigned char *p)
{
    const sdui_scan_config *cfg = s->cfg;
    const char *from = "";
    if (cfg->level_from && s->envelopes < cfg->level_from_count)
        from = cfg->level_from[s->envelopes];
    return sdui__fail_at(s->err, SDUI_LIMIT, (const char *)s->base,
                         (size_t)(s->end - s->base), (size_t)(p - s->base),
                         "nesting deeper than the limit of %u%s",
                         s->max_depth, from);
}

/*
 * The slow side of opening a container at depth + 1, taken once depth
 * reaches s->guard (the lower of max_depth and the bit stack's last bit).
 * Checks the depth limit: the level of the new container is depth minus
 * the envelopes open, and an envelope itself is exempt (limits.h).  Past
 * the limit a soft scan tells the hook (TOO_DEEP) and reads on unless the
 * hook says SDUI_SCAN_LIMIT; any other scan fails.  Then doubles the bit
 * stack when it is full, copying the inline one to the heap the first
 * time.  The depth can never pass the number of bytes read, so for any
 * input the stack stays under len / 8 bytes.  Returns the stack to use, or
 * NULL with s->slow_status set (the heap stack, if any, is then freed).
 * Kept out of line so the scanner's hot loop stays small.
 */
static unsigned char *push_slow(scanner *s, size_t depth, int envelope,
                                const unsigned char *p, unsigned char *stack,
                                unsigned char *inline_stack)
{
    const sdui_scan_config *cfg = s->cfg;
    assert(depth < s->stack_bits);
    if (!envelope && depth >= (size_t)s->max_depth + s->envelopes) {
        int v = SDUI_SCAN_LIMIT;
        if (cfg->soft_depth && cfg->hook) {
            sdui_scan_event ev;
            ev.kind = SDUI_SCAN_TOO_DEEP;
            ev.depth = depth > UINT32_MAX ? UINT32_MAX : (unsigned)depth;
            ev.start = ev.end = (size_t)(p - s->base);
            ev.escaped = 0;
            v = cfg->hook(cfg->ctx, &ev);
            if (v < 0) {
                s->slow_status = (sdui_status)-v;
                goto fail;
            }
        }
        if (v & SDUI_SCAN_LIMIT) {
            s->slow_status = depth_fail(s, p);
            goto fail;
        }
    }
    if (depth + 1 >= s->stack_bits) {
        size_t n = s->stack_bits * 2;
        unsigned char *b;
        if (stack == inline_stack) {
            b = sdui_malloc(n / 8);
            if (b)
                memcpy(b, inline_stack, s->stack_bits / 8);
        } else {
            b = sdui_realloc(stack, n / 8);
        }
        if (!b) {
            s->slow_status = sdui__oom(s->err);
            goto fail;
        }
        stack = b;
        s->stack_bits = n;
        s->guard = s->max_depth < n - 1 ? s->max_depth : n - 1;
    }
    /* What PUSH relies on without a check of its own. */
    assert(depth + 1 < s->stack_bits && s->guard < s->stack_bits);
    return stack;
fail:
    if (stack != inline_stack)
        sdui_free(stack);
    return NULL;
}

/*
 * The scanner proper.  Iterative: a value is read at `value`, and what may
 * follow it at `after`; a container that ends goes through `close`.  The
 * hook runs only in the copy compiled with hooked = 1 (scan_hooked), and
 * there only at the depths the reader asked for (value_levels,
 * key_levels), so plain validation pays nothing for readers.
 *
 * Bookkeeping for the hook, per level d of the containers open (d <= 32,
 * SDUI_SCAN_MAX_LEVELS): bit d of `report` is set when the container at
 * depth d had a VALUE event and owes an END at its close (its start in
 * rstart[d]); bit d of `env` when it is an envelope.
 */
static SDUI_ALWAYS_INLINE sdui_status scan_body(scanner *s, const int hooked,
                                                int *stopped)
{
    const sdui_scan_config *cfg = s->cfg;
    const unsigned char *p = s->base + cfg->start, *end = s->end;
    const unsigned char *vstart;
    unsigned char inline_stack[STACK_INLINE_BITS / 8];
    unsigned char *stack = inline_stack;
    size_t depth = 0;
    sdui_status st = SDUI_JSON;
    /* Hook bookkeeping (see above); constant 0 in the plain copy. */
    const size_t vlev = hooked ? cfg->value_levels : 0;
    const size_t klev = hooked ? cfg->key_levels : 0;
    /* No container deeper than this can be marked in report or env. */
    const size_t shallow = !hooked                   ? 0
                           : vlev > klev              ? vlev
                           : klev > cfg->start_depth ? klev
                                                      : cfg->start_depth;
    uint64_t report = 0, env = 0;
    size_t rstart[SDUI_SCAN_MAX_LEVELS + 1];
    sdui_scan_event ev;
    int want = 0, reported = 0, envelope = 0, esc = 0;

    s->stack_bits = STACK_INLINE_BITS;
    s->guard = s->max_depth < STACK_INLINE_BITS - 1 ? s->max_depth
                                                    : STACK_INLINE_BITS - 1;
    s->envelopes = 0;
    assert(s->guard < s->stack_bits && shallow <= SDUI_SCAN_MAX_LEVELS);
    if (hooked && cfg->start_depth) {
        /* Resuming inside containers: rebuild their bits. */
        size_t d;
        assert(cfg->start_depth <= SDUI_SCAN_MAX_LEVELS);
        for (d = 1; d <= cfg->start_depth; d++) {
            if (cfg->start_objects & (1u << d))
                stack[d >> 3] |= (unsigned char)(1u << (d & 7));
            else
                stack[d >> 3] &= (unsigned char)~(1u << (d & 7));
            if (cfg->start_envelopes & (1u << d)) {
                env |= (uint64_t)1 << d;
                s->envelopes++;
            }
            if (d - 1 < vlev) {
                report |= (uint64_t)1 << d;
                rstart[d] = SIZE_MAX;
            }
        }
        depth = cfg->start_depth;
    }

#define IS_OBJECT(d) (stack[(d) >> 3] & (1u << ((d) & 7)))
#define PUSH(isobj)                                                        \
    do {                                                                   \
        if (SDUI_UNLIKELY(depth >= s->guard)) {                            \
            stack = push_slow(s, depth, envelope, p, stack, inline_stack); \
            if (!stack) {                                                  \
                stack = inline_stack; /* the heap one is freed */          \
                st = s->slow_status;                                       \
                goto done;                                                 \
            }                                                              \
        }                                                                  \
        depth++; /* < s->stack_bits: guard < stack_bits (push_slow) */     \
        if (isobj)                                                         \
            stack[depth >> 3] |= (unsigned char)(1u << (depth & 7));       \
        else                                                               \
            stack[depth >> 3] &= (unsigned char)~(1u << (depth & 7));      \
        if (hooked && SDUI_UNLIKELY(reported)) {                           \
            /* Events stop above SDUI_SCAN_MAX_LEVELS (asserted at the     \
             * VALUE event), so rstart[depth] is in bounds. */             \
            assert(depth <= SDUI_SCAN_MAX_LEVELS);                         \
            report |= (uint64_t)1 << depth;                                \
            rstart[depth] = (size_t)(vstart - s->base);                    \
            if (envelope) {                                                \
                env |= (uint64_t)1 << depth;                               \
                s->envelopes++;                                            \
            }                                                              \
            reported = envelope = 0;                                       \
        }                                                                  \
    } while (0)
/* Calls the hook with an event; a failure ends the scan. */
#define EMIT(k, d, a, b, e, verdict)                                       \
    do {                                                                   \
        ev.kind = (k);                                                     \
        ev.depth = (unsigned)(d);                                          \
        ev.start = (a);                                                    \
        ev.end = (b);                                                      \
        ev.escaped = (e);                                                  \
        verdict = cfg->hook(cfg->ctx, &ev);                                \
        if (verdict < 0) {                                                 \
            st = (sdui_status)-verdict;                                    \
            goto done;                                                     \
        }                                                                  \
    } while (0)

value:
    p = skip_ws(p, end);
    if (SDUI_UNLIKELY(p >= end)) {
        st = json_fail(s, p, depth ? "unexpected end of input: expected a value"
                                   : "empty document: expected a value");
        goto done;
    }
    vstart = p;
    /* reported and envelope are 0 here: whoever reads them clears them. */
    if (hooked && SDUI_UNLIKELY(depth < vlev || want)) {
        want = 0;
        if (starts_value(*p)) {
            /* A value the reader asked for (grammar errors come first
             * for bytes that cannot start one). */
            int v;
            assert(depth < SDUI_SCAN_MAX_LEVELS);
            EMIT(SDUI_SCAN_VALUE, depth, (size_t)(p - s->base),
                 (size_t)(p - s->base), 0, v);
            if (v & SDUI_SCAN_STOP) {
                if (stopped)
                    *stopped = 1;
                st = SDUI_OK;
                goto done;
            }
            envelope = (v & SDUI_SCAN_ENVELOPE) != 0;
            reported = 1;
        }
    }
    switch (*p) {
    case '{':
        PUSH(1);
        p = skip_ws(p + 1, end);
        if (p < end && *p == '}') {
            p++;
            goto close;
        }
        goto key;
    case '[':
        PUSH(0);
        p = skip_ws(p + 1, end);
        if (p < end && *p == ']') {
            p++;
            goto close;
        }
        goto value;
    case '"':
        esc = 0;
        p = scan_string(s, p + 1, &esc);
        if (!p)
            goto done;
        break;
    case 't':
        if (end - p < 4 || memcmp(p, "true", 4) != 0)
            goto bad_literal;
        p += 4;
        break;
    case 'f':
        if (end - p < 5 || memcmp(p, "false", 5) != 0)
            goto bad_literal;
        p += 5;
        break;
    case 'n':
        if (end - p < 4 || memcmp(p, "null", 4) != 0)
            goto bad_literal;
        p += 4;
        break;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        p = scan_number(s, p);
        if (!p)
            goto done;
        break;
    default:
        st = json_fail(s, p, "unexpected character: expected a value");
        goto done;
    }
    if (hooked && SDUI_UNLIKELY(reported)) {
        /* A scalar the reader asked for has ended. */
        int v;
        reported = envelope = 0;
        EMIT(SDUI_SCAN_END, depth, (size_t)(vstart - s->base),
             (size_t)(p - s->base), *vstart == '"' ? esc : 0, v);
        (void)v;
    }

after:
    p = skip_ws(p, end);
    if (depth == 0) {
        if (p != end) {
            st = json_fail(s, p, "unexpected data after the JSON value");
            goto done;
        }
        st = SDUI_OK;
        goto done;
    }
    if (SDUI_UNLIKELY(p >= end)) {
        st = json_fail(s, p, "unexpected end of input");
        goto done;
    }
    if (*p == ',') {
        p = skip_ws(p + 1, end);
        if (IS_OBJECT(depth))
            goto key;
        goto value;
    }
    if (IS_OBJECT(depth) ? *p != '}' : *p != ']') {
        st = json_fail(s, p, IS_OBJECT(depth)
                                 ? "expected ',' or '}' after an object member"
                                 : "expected ',' or ']' after an array element");
        goto done;
    }
    p++;

close:
    /* p is just past the closing bracket of the container at `depth`. */
    assert(depth > 0);
    if (hooked && SDUI_UNLIKELY(depth <= shallow) &&
        ((report | env) >> depth & 1)) {
        uint64_t bit = (uint64_t)1 << depth;
        if (env & bit) {
            assert(s->envelopes > 0);
            env &= ~bit;
            s->envelopes--;
        }
        if (report & bit) {
            int v;
            report &= ~bit;
            EMIT(SDUI_SCAN_END, depth - 1, rstart[depth],
                 (size_t)(p - s->base), 0, v);
            if (v & SDUI_SCAN_STOP) {
                /* A reader reading part of a document (one member of
                 * a seekable pack) ends it at a container's close. */
                if (stopped)
                    *stopped = 1;
                st = SDUI_OK;
                goto done;
            }
        }
    }
    depth--;
    goto after;

key:
    if (SDUI_UNLIKELY(p >= end || *p != '"')) {
        st = json_fail(s, p, p >= end ? "unexpected end of input: expected "
                                        "an object key"
                                      : "expected a string object key");
        goto done;
    }
    {
        int kesc = 0;
        const unsigned char *k = p;
        p = scan_string(s, k + 1, &kesc);
        if (!p)
            goto done;
        if (hooked && SDUI_UNLIKELY(depth < klev) &&
            (!cfg->key_first[depth] || cfg->key_first[depth][k[1]])) {
            int v;
            assert(depth < SDUI_SCAN_MAX_LEVELS);
            EMIT(SDUI_SCAN_KEY, depth, (size_t)(k - s->base),
                 (size_t)(p - s->base), kesc, v);
            want = (v & SDUI_SCAN_WANT) != 0;
        }
    }
    p = skip_ws(p, end);
    if (SDUI_UNLIKELY(p >= end || *p != ':')) {
        st = json_fail(s, p, "expected ':' after an object key");
        goto done;
    }
    p++;
    goto value;

bad_literal:
    st = json_fail(s, p, "invalid literal (expected true, false or null)");

done:
    if (stack != inline_stack)
        sdui_free(stack);
    return st;
#undef PUSH
#undef EMIT
#undef IS_OBJECT
}

/* Validation only: the copy without hook calls. */
static sdui_status scan_plain(scanner *s)
{
    return scan_body(s, 0, NULL);
}

/* A reader's scan: the copy that calls the hook. */
static sdui_status scan_hooked(scanner *s, int *stopped)
{
    return scan_body(s, 1, stopped);
}

/* Scans with a configuration (scan.h). */
sdui_status sdui__scan(const sdui_scan_config *cfg, int *stopped)
{
    scanner s;
    static const char empty[1] = "";
    sdui_scan_config c = *cfg;
    assert(cfg->text || cfg->len == 0);
    assert(cfg->start <= cfg->len);
    assert(cfg->value_levels <= SDUI_SCAN_MAX_LEVELS &&
           cfg->key_levels <= SDUI_SCAN_MAX_LEVELS);
    assert(cfg->start_depth == 0 || cfg->hook);
    if (!c.text)
        c.text = empty;
    memset(&s, 0, sizeof s);
    s.base = (const unsigned char *)c.text;
    s.end = s.base + c.len;
    s.cfg = &c;
    s.max_depth = c.max_depth;
    s.err = c.err;
    if (stopped)
        *stopped = 0;
    return c.hook ? scan_hooked(&s, stopped) : scan_plain(&s);
}

/* Validates any JSON document (json.h). */
sdui_status sdui_json_validate(const char *text, size_t len,
                               unsigned max_depth, sdui_error *err)
{
    sdui_scan_config cfg;
    if (!text && len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "text is NULL");
    sdui_error_clear(err);
    memset(&cfg, 0, sizeof cfg);
    cfg.text = text;
    cfg.len = len;
    cfg.max_depth = max_depth;
    cfg.err = err;
    return sdui__scan(&cfg, NULL);
}

/* Writes code point cp as UTF-8 at d (room for 4 bytes); returns the byte
 * count (internal.h). */
size_t sdui__utf8_put(char *d, unsigned long cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xC0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes a validated string body (internal.h).  Never longer than len. */
size_t sdui__unescape(const char *src, size_t len, char *dst)
{
    const unsigned char *p = (const unsigned char *)src, *end = p + len;
    size_t n = 0;
    while (p < end) {
        unsigned long cp;
        if (*p != '\\') {
            dst[n++] = (char)*p++;
            continue;
        }
        switch (p[1]) {
        case 'b': dst[n++] = '\b'; p += 2; continue;
        case 'f': dst[n++] = '\f'; p += 2; continue;
        case 'n': dst[n++] = '\n'; p += 2; continue;
        case 'r': dst[n++] = '\r'; p += 2; continue;
        case 't': dst[n++] = '\t'; p += 2; continue;
        case 'u': break;
        default: dst[n++] = (char)p[1]; p += 2; continue;
        }
        cp = (unsigned long)hex4(p + 2, end);
        p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned long lo = (unsigned long)hex4(p + 2, end);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p += 6;
        }
        n += sdui__utf8_put(dst + n, cp);
    }
    return n;
}

/* Drops insignificant white space from valid JSON (json.h). */
sdui_status sdui_json_minify(const char *text, size_t len, unsigned max_depth,
                             char *out, size_t *out_len, sdui_error *err)
{
    const char *p = text, *end = text + len;
    size_t n = 0;
    sdui_status st;
    if ((!out && len) || !out_len) {
        sdui_error_clear(err);
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out or out_len is NULL");
    }
    st = sdui_json_validate(text, len, max_depth, err);
    if (st != SDUI_OK)
        return st;
    while (p < end) {
        char c = *p++;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        out[n++] = c;
        if (c != '"')
            continue;
        /* Copy the string body verbatim through its closing quote. */
        while (p < end) {
            c = *p++;
            out[n++] = c;
            if (c == '\\')
                out[n++] = *p++;
            else if (c == '"')
                break;
        }
    }
    *out_len = n;
    return SDUI_OK;
}
