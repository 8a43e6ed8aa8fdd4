/*
 * json.c - the validating JSON scanner used to open packs.
 *
 * One pass over the text checks the RFC 8259 grammar, UTF-8 (RFC 3629),
 * escapes and the nesting depth, and builds no DOM.  Containers are tracked
 * with one bit per level (object or array).  When scanning a pack it also
 * follows the pack's shape, which lives only at fixed depths:
 *
 *   depth 1  the root object: keys "formatVersion" and "tokens"
 *   depth 2  the "tokens" array: each element must be an object
 *   depth 3  a token object: its own "id" key must be a non-empty string
 *
 * so deeper objects (props, unknown top-level keys) cost nothing extra.
 * The nesting limit counts from each token (limits.h): the root object and
 * the "tokens" array are an envelope (see too_deep).  The same scan splits
 * a batch answer, an array whose elements are recorded at depth 1 and
 * measured from themselves (sdui_json_array_elements).
 * Strings, most of a pack's bytes, are skipped eight bytes at a time: a word
 * is tested at once for a quote, a backslash, a control byte or a non-ASCII
 * byte, and only those bytes take the slow path.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

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

/* What the next value means to the pack's shape. */
enum pending {
    PENDING_NONE,
    PENDING_TOKENS,  /* value of the root's "tokens"        */
    PENDING_FORMAT,  /* value of the root's "formatVersion" */
    PENDING_ID       /* value of a token's "id"             */
};

typedef struct scanner {
    const unsigned char *base, *end;
    unsigned max_depth;
    sdui_error *err;
    /* Pack shape; pack is NULL for plain validation. */
    sdui_scan_result *pack;
    const sdui_limits *limits;
    int tokens_depth2;        /* the open depth-2 container is "tokens" */
    int seen_tokens, seen_format, seen_id;
    sdui_scan_entry cur;      /* the token being scanned               */
    /* Split scans (see scan_pack_split): where to start, and whether the
     * start is between two tokens; where to stop, and whether we did. */
    const unsigned char *start;
    int resume_in_tokens;
    const unsigned char *stop;
    int stopped;
    int format_deferred;      /* the other half may hold formatVersion  */
    const unsigned char *root_close;
    const unsigned char *format_key_at; /* first "formatVersion" key */
    /* Array splits (sdui_json_array_elements): the root must be an array
     * and each of its elements is recorded; split is cleared, and
     * not_array set, when the root is something else. */
    int split;
    int soft;                 /* a too-deep element is marked, not fatal */
    const unsigned char *not_array;
    size_t max_element_bytes;
    sdui_json_element *elems; /* one of elems or starts/ends receives   */
    size_t *starts, *ends;    /* the ranges, up to cap of them          */
    size_t cap, count;
    sdui_json_element el;     /* the element being scanned              */
    /* The bit stack's size, and the one compare of PUSH: the lower of
     * max_depth and the stack's last bit. */
    size_t stack_bits, guard;
    sdui_status slow_status;  /* why push_slow failed                   */
} scanner;

/* Reports a JSON-category error at p. */
static sdui_status json_fail(scanner *s, const unsigned char *p,
                             const char *what)
{
    return sdui__fail_at(s->err, SDUI_JSON, (const char *)s->base,
                         (size_t)(s->end - s->base), (size_t)(p - s->base),
                         "%s", what);
}

/* Reports an error of another category at p with a formatted message. */
static sdui_status shape_fail(scanner *s, sdui_status st,
                              const unsigned char *p, const char *fmt, ...)
    SDUI_PRINTF(4, 5);
static sdui_status shape_fail(scanner *s, sdui_status st,
                              const unsigned char *p, const char *fmt, ...)
{
    char msg[SDUI_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sdui__fail_at(s->err, st, (const char *)s->base,
                         (size_t)(s->end - s->base), (size_t)(p - s->base),
                         "%s", msg);
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

/* 1 if the raw key body [k, k+len) decodes to the NUL-terminated name. */
static int key_is(const unsigned char *k, size_t len, int escaped,
                  const char *name)
{
    size_t n = strlen(name);
    char buf[64];
    if (!escaped)
        return len == n && memcmp(k, name, n) == 0;
    if (len >= sizeof buf)
        return 0;
    return sdui__unescape((const char *)k, len, buf) == n &&
           memcmp(buf, name, n) == 0;
}

/* Appends the finished token s->cur to the pack result. */
static sdui_status push_entry(scanner *s, const unsigned char *at)
{
    sdui_scan_result *r = s->pack;
    if (r->count >= s->limits->max_tokens)
        return shape_fail(s, SDUI_LIMIT, at,
                          "pack holds more than %zu tokens",
                          s->limits->max_tokens);
    if (r->count == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        sdui_scan_entry *e = sdui_realloc(r->entries, cap * sizeof *e);
        if (!e)
            return sdui__oom(s->err);
        r->entries = e;
        r->cap = cap;
    }
    r->entries[r->count++] = s->cur;
    return SDUI_OK;
}

/* Bit stack of open containers: 1 for an object, 0 for an array.  This
 * many levels live on the C stack; deeper documents grow a heap copy. */
#define STACK_INLINE_BITS 4096

/*
 * Where the depth of a new container is counted from.  One definition
 * holds end to end (limits.h): a value is measured from itself, and the
 * envelopes around tokens do not count.
 *   plain validation   from the document's root: level = depth
 *   pack               the root object and its "tokens" array are exempt;
 *                      a token counts from itself (level = depth - 2),
 *                      any other member of the root from itself
 *                      (level = depth - 1)
 *   array split        the root array is exempt; an element counts from
 *                      itself (level = depth - 1)
 * Returns 1 when opening a container at depth + 1 would pass max_depth.
 * Called only once depth >= max_depth, so the common path stays one
 * compare.
 */
static int too_deep(const scanner *s, size_t depth, enum pending pending)
{
    size_t slack = 0;
    if (s->pack) {
        if (depth == 0 || (depth == 1 && pending == PENDING_TOKENS))
            return 0;
        slack = depth >= 2 && s->tokens_depth2 ? 2 : 1;
    } else if (s->split) {
        if (depth == 0)
            return 0;
        slack = 1;
    }
    return depth >= (size_t)s->max_depth + slack;
}

/* The "nesting too deep" message: the limit and where levels count from. */
static sdui_status depth_fail(scanner *s, const unsigned char *p,
                              size_t depth)
{
    const char *from = "";
    if (s->pack)
        from = depth >= 2 && s->tokens_depth2
                   ? " (levels counted from the token)"
                   : " (levels counted from the member of the pack's root)";
    else if (s->split)
        from = " (levels counted from the array element)";
    return shape_fail(s, SDUI_LIMIT, p,
                      "nesting deeper than the limit of %u%s", s->max_depth,
                      from);
}

/*
 * The slow side of opening a container at depth + 1, taken once depth
 * reaches s->guard (the lower of max_depth and the bit stack's last bit):
 * checks the depth limit (too_deep) and doubles the bit stack when it is
 * full, copying the inline one to the heap the first time.  The depth can
 * never pass the number of bytes read, so for any input the stack stays
 * under len / 8 bytes.  Returns the stack to use, or NULL with
 * s->slow_status set (the heap stack, if any, is then freed).  Kept out of
 * line so the scanner's hot loop stays small.
 */
static unsigned char *push_slow(scanner *s, size_t depth,
                                enum pending pending, const unsigned char *p,
                                unsigned char *stack,
                                unsigned char *inline_stack)
{
    if (depth >= s->max_depth && too_deep(s, depth, pending)) {
        if (!s->soft) {
            s->slow_status = depth_fail(s, p, depth);
            goto fail;
        }
        /* An array split marks the element and reads on. */
        if (s->el.status == SDUI_OK) {
            s->el.status = SDUI_LIMIT;
            s->el.fault = (size_t)(p - s->base);
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
    return stack;
fail:
    if (stack != inline_stack)
        sdui_free(stack);
    return NULL;
}

/* Records the element that just ended at p (an array split). */
static void end_element(scanner *s, const unsigned char *p)
{
    s->el.end = (size_t)(p - s->base);
    if (s->el.status == SDUI_OK &&
        s->el.end - s->el.start > s->max_element_bytes) {
        s->el.status = SDUI_LIMIT;
        s->el.fault = s->el.start;
    }
    if (s->count < s->cap) {
        if (s->elems) {
            s->elems[s->count] = s->el;
        } else {
            s->starts[s->count] = s->el.start;
            s->ends[s->count] = s->el.end;
        }
    }
    s->count++;
}

/*
 * The scanner proper.  Iterative: a value is read at `value`, and what may
 * follow it at `after`.  Pack-shape checks run only when s->pack is set and
 * only at depths 1 to 3; element bounds only in the copy compiled with
 * split = 1 (scan_split), at depth 1, so validation and packs do not pay
 * for them.
 */
static SDUI_ALWAYS_INLINE sdui_status scan_body(scanner *s, const int split)
{
    const unsigned char *p = s->start ? s->start : s->base, *end = s->end;
    unsigned char inline_stack[STACK_INLINE_BITS / 8];
    unsigned char *stack = inline_stack;
    size_t depth = 0;
    enum pending pending = PENDING_NONE;
    sdui_status st = SDUI_JSON;
    /* Deepest level the pack shape cares about; 0 for plain validation. */
    const unsigned shape = s->pack ? 3 : 0;
    /* Depth of an array split's elements; never reached otherwise. */
    size_t element_level = SIZE_MAX;

    if (split) {
        /* Elements may nest past the limit: the stack grows as needed. */
        s->stack_bits = STACK_INLINE_BITS;
        s->guard = s->max_depth < STACK_INLINE_BITS - 1
                       ? s->max_depth
                       : STACK_INLINE_BITS - 1;
    } else {
        /* Never deeper than max_depth + 2 (a pack's envelope) nor than
         * the bytes there are: size the stack once, so the hot loop keeps
         * one compare. */
        size_t len = (size_t)(end - s->base);
        size_t bits = (size_t)s->max_depth + 3 < len + 2
                          ? (size_t)s->max_depth + 3
                          : len + 2;
        s->guard = s->max_depth;
        s->stack_bits = STACK_INLINE_BITS;
        if (bits > STACK_INLINE_BITS) {
            stack = sdui_malloc(bits / 8 + 1);
            if (!stack)
                return sdui__oom(s->err);
            s->stack_bits = bits / 8 * 8 + 8;
        }
    }

#define IS_OBJECT(d) (stack[(d) >> 3] & (1u << ((d) & 7)))
#define PUSH(isobj)                                                        \
    do {                                                                   \
        if (SDUI_UNLIKELY(depth >= s->guard)) {                            \
            if (!split) {                                                  \
                /* The stack was sized for the limit up front. */         \
                if (too_deep(s, depth, pending)) {                         \
                    st = depth_fail(s, p, depth);                          \
                    goto done;                                             \
                }                                                          \
            } else {                                                       \
                stack = push_slow(s, depth, pending, p, stack,             \
                                  inline_stack);                           \
                if (!stack) {                                              \
                    stack = inline_stack; /* the heap one is freed */      \
                    st = s->slow_status;                                   \
                    goto done;                                             \
                }                                                          \
            }                                                              \
        }                                                                  \
        depth++;                                                           \
        if (isobj)                                                         \
            stack[depth >> 3] |= (unsigned char)(1u << (depth & 7));       \
        else                                                               \
            stack[depth >> 3] &= (unsigned char)~(1u << (depth & 7));      \
    } while (0)

    if (s->resume_in_tokens) {
        /* Second half of a split scan: inside the root object (depth 1)
         * and its "tokens" array (depth 2), about to read a token. */
        stack[0] = 1u << 1;
        depth = 2;
        s->tokens_depth2 = 1;
        s->seen_tokens = 1;
    }
    if (split && s->split) {
        /* Anything but an array is plain validation, then SDUI_SCHEMA
         * (grammar and depth errors are reported first). */
        const unsigned char *q = skip_ws(p, end);
        if (q < end && *q == '[') {
            element_level = 1;
        } else {
            s->not_array = q;
            s->split = 0;
            s->soft = 0;
        }
    }

value:
    p = skip_ws(p, end);
    if (SDUI_UNLIKELY(p >= end)) {
        st = json_fail(s, p, depth ? "unexpected end of input: expected a value"
                                   : "empty document: expected a value");
        goto done;
    }
    if (SDUI_UNLIKELY(p == s->stop)) {
        /* First half of a split scan: the split is right only if we reach
         * it between two tokens; otherwise go on alone. */
        if (depth == 2 && s->tokens_depth2) {
            s->stopped = 1;
            st = SDUI_OK;
            goto done;
        }
        s->stop = NULL;
    }
    if (split && SDUI_UNLIKELY(depth == element_level)) {
        /* An array split: an element starts here. */
        s->el.start = (size_t)(p - s->base);
        s->el.end = s->el.start;
        s->el.status = SDUI_OK;
        s->el.fault = s->el.start;
    }
    if (SDUI_UNLIKELY(depth < shape) && starts_value(*p)) {
        /* Pack shape at the top levels (grammar errors are reported first). */
        if (depth == 0 && *p != '{') {
            st = shape_fail(s, SDUI_SCHEMA, p,
                            "a pack must be a JSON object");
            goto done;
        }
        if (depth == 1 && pending == PENDING_TOKENS && *p != '[') {
            st = shape_fail(s, SDUI_SCHEMA, p, "\"tokens\" must be an array");
            goto done;
        }
        if (depth == 2 && s->tokens_depth2) {
            if (*p != '{') {
                st = shape_fail(s, SDUI_SCHEMA, p,
                                "a token is not a JSON object");
                goto done;
            }
            memset(&s->cur, 0, sizeof s->cur);
            s->cur.start = (size_t)(p - s->base);
            s->seen_id = 0;
        }
        if (depth == 1 && pending == PENDING_FORMAT) {
            const unsigned char *q = p;
            if (*p == '-' || IS_DIGIT(*p)) {
                q = scan_number(s, p);
                if (!q)
                    goto done;
            }
            if (q - p != 1 || *p != '1') {
                st = shape_fail(s, SDUI_SCHEMA, p,
                                "\"formatVersion\" must be 1");
                goto done;
            }
            s->seen_format = 1;
            p = q;
            pending = PENDING_NONE;
            goto after;
        }
    }
    if (SDUI_UNLIKELY(pending == PENDING_ID) && *p != '"' && starts_value(*p)) {
        st = shape_fail(s, SDUI_SCHEMA, p,
                        "a token's \"id\" must be a string");
        goto done;
    }
    switch (*p) {
    case '{':
        PUSH(1);
        if (s->pack && depth == 2)
            s->tokens_depth2 = (pending == PENDING_TOKENS);
        pending = PENDING_NONE;
        p = skip_ws(p + 1, end);
        if (p < end && *p == '}') {
            p++;
            goto close;
        }
        goto key;
    case '[':
        PUSH(0);
        if (s->pack && depth == 2)
            s->tokens_depth2 = (pending == PENDING_TOKENS);
        pending = PENDING_NONE;
        p = skip_ws(p + 1, end);
        if (p < end && *p == ']') {
            p++;
            goto close;
        }
        goto value;
    case '"': {
        int esc = 0;
        const unsigned char *body = p + 1;
        p = scan_string(s, body, &esc);
        if (!p)
            goto done;
        if (SDUI_UNLIKELY(pending == PENDING_ID)) {
            s->cur.id_start = (size_t)(body - s->base);
            s->cur.id_len = (size_t)(p - 1 - body);
            s->cur.id_escaped = esc;
            if (s->cur.id_len == 0) {
                st = shape_fail(s, SDUI_SCHEMA, body - 1,
                                "a token has an empty \"id\"");
                goto done;
            }
            s->seen_id = 1;
        }
        break;
    }
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
    pending = PENDING_NONE;

after:
    if (split && SDUI_UNLIKELY(depth == element_level))
        end_element(s, p);
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
    if (SDUI_UNLIKELY(depth <= shape)) {
        if (depth == 3 && s->tokens_depth2) {
            s->cur.end = (size_t)(p - s->base);
            if (!s->seen_id) {
                st = shape_fail(s, SDUI_SCHEMA, s->base + s->cur.start,
                                "a token has no string \"id\"");
                goto done;
            }
            if (s->cur.end - s->cur.start > s->limits->max_token_bytes) {
                st = shape_fail(s, SDUI_LIMIT, s->base + s->cur.start,
                                "token \"%.*s\" is %zu bytes, over the "
                                "limit of %zu",
                                (int)(s->cur.id_len > 64 ? 64 : s->cur.id_len),
                                (const char *)s->base + s->cur.id_start,
                                s->cur.end - s->cur.start,
                                s->limits->max_token_bytes);
                goto done;
            }
            st = push_entry(s, s->base + s->cur.start);
            if (st != SDUI_OK)
                goto done;
            st = SDUI_JSON;
        }
        if (depth == 2 && s->tokens_depth2)
            s->tokens_depth2 = 0;
        if (depth == 1) {
            if (!s->seen_tokens) {
                st = shape_fail(s, SDUI_SCHEMA, p - 1,
                                "a pack needs a \"tokens\" array");
                goto done;
            }
            if (!s->seen_format && !s->format_deferred) {
                st = shape_fail(s, SDUI_SCHEMA, p - 1,
                                "a pack needs \"formatVersion\": 1");
                goto done;
            }
            s->root_close = p - 1;
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
        int esc = 0;
        const unsigned char *k = p + 1;
        p = scan_string(s, k, &esc);
        if (!p)
            goto done;
        if (SDUI_UNLIKELY(depth <= shape) && (depth & 1)) {
            size_t klen = (size_t)(p - 1 - k);
            if (depth == 1 && key_is(k, klen, esc, "tokens")) {
                if (s->seen_tokens) {
                    st = shape_fail(s, SDUI_SCHEMA, k - 1,
                                    "duplicate \"tokens\" key");
                    goto done;
                }
                s->seen_tokens = 1;
                pending = PENDING_TOKENS;
            } else if (depth == 1 && key_is(k, klen, esc, "formatVersion")) {
                if (s->seen_format) {
                    st = shape_fail(s, SDUI_SCHEMA, k - 1,
                                    "duplicate \"formatVersion\" key");
                    goto done;
                }
                if (!s->format_key_at)
                    s->format_key_at = k - 1;
                pending = PENDING_FORMAT;
            } else if (depth == 3 && s->tokens_depth2 &&
                       key_is(k, klen, esc, "id")) {
                if (s->seen_id) {
                    st = shape_fail(s, SDUI_SCHEMA, k - 1,
                                    "a token has a duplicate \"id\" key");
                    goto done;
                }
                pending = PENDING_ID;
            }
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
#undef IS_OBJECT
}

/* Validation and pack scans (no element bounds). */
static sdui_status scan(scanner *s)
{
    return scan_body(s, 0);
}

/* Array splits: the same scan, recording the root array's elements. */
static sdui_status scan_split(scanner *s)
{
    return scan_body(s, 1);
}

/* Validates any JSON document (json.h). */
sdui_status sdui_json_validate(const char *text, size_t len,
                               unsigned max_depth, sdui_error *err)
{
    scanner s;
    memset(&s, 0, sizeof s);
    if (!text && len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "text is NULL");
    s.base = (const unsigned char *)(text ? text : "");
    s.end = s.base + len;
    s.max_depth = max_depth;
    s.err = err;
    sdui_error_clear(err);
    return scan(&s);
}

/* Prepares a pack scanner over text. */
static void pack_scanner(scanner *s, const char *text, size_t len,
                         const sdui_limits *limits, sdui_scan_result *out,
                         sdui_error *err)
{
    memset(s, 0, sizeof *s);
    s->base = (const unsigned char *)text;
    s->end = s->base + len;
    s->limits = limits;
    s->max_depth = limits->max_depth;
    s->err = err;
    s->pack = out;
}

/* Thread body: the second half of a split scan. */
static void *scan_thread(void *arg)
{
    scanner *s = arg;
    s->pack->status = scan(s);
    return NULL;
}

/*
 * Where to split a large pack: the first newline at or after the middle
 * that is followed by '{' (optional white space between).  Packs written
 * by sdui put one token per line, and a raw newline is never inside a JSON
 * string, so this is a token boundary for them.  Compact packs from other
 * writers have no newline: then the first `},{"id":` after the middle is
 * the guess.  A wrong guess is harmless: the first half does not confirm it
 * and the scan goes on on one thread.  NULL when there is no candidate.
 */
static const unsigned char *split_point(const unsigned char *base,
                                        size_t len)
{
    static const char pattern[] = "},{\"id\":";
    const unsigned char *end = base + len, *mid = base + len / 2;
    const unsigned char *p = memchr(mid, '\n', (size_t)(end - mid));
    while (p) {
        const unsigned char *q = skip_ws(p, end);
        if (q < end && *q == '{')
            return q;
        p = memchr(q, '\n', (size_t)(end - q));
    }
    for (p = mid; (p = memchr(p, '}', (size_t)(end - p))) != NULL; p++)
        if ((size_t)(end - p) > sizeof pattern &&
            memcmp(p, pattern, sizeof pattern - 1) == 0)
            return p + 2;
    return NULL;
}

/*
 * Scans a large pack on two threads.  The second thread starts at a likely
 * token boundary (split_point) as if it were between two tokens; this
 * thread scans from the start and stops there only if it arrives in that
 * very state, which proves the second thread's assumption.  If it does not,
 * or fails first, it carries on (or reports) alone and the second half's
 * work is dropped, so the outcome is always that of a one-thread scan.
 * Returns -1 when no thread could be started (the caller scans serially).
 */
static int scan_pack_split(const char *text, size_t len,
                           const sdui_limits *limits,
                           const unsigned char *split,
                           sdui_scan_result *out, sdui_error *err,
                           sdui_status *status)
{
    scanner a, b;
    sdui_scan_result second = {NULL, 0, 0, SDUI_OK};
    sdui_error err2;
    pthread_t th;
    sdui_status st;

    pack_scanner(&b, text, len, limits, &second, &err2);
    b.start = split;
    b.resume_in_tokens = 1;
    b.format_deferred = 1;
    sdui_error_clear(&err2);
    if (pthread_create(&th, NULL, scan_thread, &b) != 0)
        return -1;

    pack_scanner(&a, text, len, limits, out, err);
    a.stop = split;
    st = scan(&a);
    pthread_join(th, NULL);

    if (st != SDUI_OK || !a.stopped) {
        /* Failed before the split, or never met it in the right state:
         * the first half's verdict is the whole document's. */
        sdui_free(second.entries);
        *status = st;
        return 0;
    }
    /* Errors in document order, as one thread would meet them.  First the
     * token count: the second half's entries all closed before any error it
     * met (or its own count limit), so an overflow among them comes first. */
    if (out->count + second.count > limits->max_tokens) {
        size_t at = limits->max_tokens >= out->count
                        ? second.entries[limits->max_tokens - out->count].start
                        : out->entries[limits->max_tokens].start;
        sdui_free(second.entries);
        *status = sdui__fail_at(err, SDUI_LIMIT, text, len, at,
                                "pack holds more than %zu tokens",
                                limits->max_tokens);
        return 0;
    }
    /* A formatVersion key in the second half when the first had one is a
     * duplicate, reported at that key unless an earlier error came first. */
    if (a.seen_format && b.format_key_at &&
        (second.status == SDUI_OK ||
         err2.offset >= (long long)(b.format_key_at - b.base))) {
        sdui_free(second.entries);
        *status = sdui__fail_at(err, SDUI_SCHEMA, text, len,
                                (size_t)(b.format_key_at - b.base),
                                "duplicate \"formatVersion\" key");
        return 0;
    }
    /* No formatVersion at all is found when the root closes, before any
     * error after it (trailing data) that the second half went on to meet. */
    if (!a.seen_format && !b.seen_format && b.root_close) {
        sdui_free(second.entries);
        *status = sdui__fail_at(err, SDUI_SCHEMA, text, len,
                                (size_t)(b.root_close - b.base),
                                "a pack needs \"formatVersion\": 1");
        return 0;
    }
    if (second.status != SDUI_OK) {
        if (err)
            *err = err2;
        sdui_free(second.entries);
        *status = second.status;
        return 0;
    }
    if (second.count) {
        sdui_scan_entry *e = sdui_realloc(
            out->entries, (out->count + second.count) * sizeof *e);
        if (!e) {
            sdui_free(second.entries);
            *status = sdui__oom(err);
            return 0;
        }
        memcpy(e + out->count, second.entries,
               second.count * sizeof *e);
        out->entries = e;
        out->count += second.count;
        out->cap = out->count;
    }
    sdui_free(second.entries);
    *status = SDUI_OK;
    return 0;
}

/* Validates a pack document and lists its tokens (internal.h). */
sdui_status sdui__scan_pack(const char *text, size_t len,
                            const sdui_limits *limits,
                            sdui_scan_result *out, sdui_error *err)
{
    scanner s;
    limits = sdui__limits_or_default(limits);
    if (len >= limits->parallel_scan_bytes && len >= 2) {
        const unsigned char *split =
            split_point((const unsigned char *)text, len);
        sdui_status st;
        if (split && scan_pack_split(text, len, limits, split, out, err,
                                     &st) == 0)
            return st;
    }
    pack_scanner(&s, text, len, limits, out, err);
    return scan(&s);
}

/* Appends code point cp as UTF-8 at d; returns the byte count. */
static size_t put_utf8(char *d, unsigned long cp)
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
        n += put_utf8(dst + n, cp);
    }
    return n;
}

/* Drops insignificant white space from valid JSON (json.h). */
sdui_status sdui_json_minify(const char *text, size_t len, unsigned max_depth,
                             char *out, size_t *out_len, sdui_error *err)
{
    const char *p = text, *end = text + len;
    size_t n = 0;
    sdui_status st = sdui_json_validate(text, len, max_depth, err);
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

/*
 * Splits an array with the validating scanner itself: one pass checks the
 * grammar of the whole text and records each element of the root array at
 * depth 1 (scan's element_level), so no second walker re-reads the text.
 * soft: an element nested deeper than max_depth (counted from itself) or
 * longer than max_element_bytes is marked SDUI_LIMIT and the scan goes on;
 * otherwise a too-deep element fails the whole text.  Memory: the bit stack
 * only, at most one bit per byte of nesting read.
 */
static sdui_status split_scan(const char *text, size_t len,
                              unsigned max_depth, size_t max_element_bytes,
                              int soft, sdui_json_element *elems,
                              size_t *starts, size_t *ends, size_t cap,
                              size_t *count, sdui_error *err)
{
    scanner s;
    sdui_status st;
    sdui_error_clear(err);
    if (count)
        *count = 0;
    if (!count || (!text && len) || (cap && !elems && (!starts || !ends)))
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "text, the element arrays or count is NULL");
    memset(&s, 0, sizeof s);
    s.base = (const unsigned char *)(text ? text : "");
    s.end = s.base + len;
    s.max_depth = max_depth;
    s.err = err;
    s.split = 1;
    s.soft = soft;
    s.max_element_bytes = max_element_bytes;
    s.elems = elems;
    s.starts = starts;
    s.ends = ends;
    s.cap = cap;
    st = scan_split(&s);
    if (st != SDUI_OK)
        return st;
    if (s.not_array)
        return sdui__fail_at(err, SDUI_SCHEMA, (const char *)s.base, len,
                             (size_t)(s.not_array - s.base),
                             "expected a JSON array");
    *count = s.count;
    return SDUI_OK;
}

/* Element ranges of a validated top-level array (json.h). */
sdui_status sdui_json_array_split(const char *text, size_t len,
                                  unsigned max_depth, size_t *starts,
                                  size_t *ends, size_t cap, size_t *count,
                                  sdui_error *err)
{
    return split_scan(text, len, max_depth, SIZE_MAX, 0, NULL, starts, ends,
                      cap, count, err);
}

/* Element ranges and per-element verdicts of an array (json.h). */
sdui_status sdui_json_array_elements(const char *text, size_t len,
                                     unsigned max_depth,
                                     size_t max_element_bytes,
                                     sdui_json_element *elements, size_t cap,
                                     size_t *count, sdui_error *err)
{
    return split_scan(text, len, max_depth, max_element_bytes, 1, elements,
                      NULL, NULL, cap, count, err);
}
