/*
 * token_tree.c - a token's compact value tree (token_tree.h).
 *
 * The tree.  One block of memory holds, in order, an array of fixed-size
 * nodes, the indexes of the arrays that need one, and an arena of decoded
 * strings.  Nodes are laid out in document order (pre-order): a container
 * is followed by its subtree, and knows how many nodes that subtree takes
 * (size, itself included), so the value after it is one add away.  An
 * object's members are a key node followed by the value's subtree; its
 * lookup by key is a scan over the members, skipping each value's subtree
 * (tokens are small, and an object rarely has more than a dozen members).
 * An array whose elements are all scalars has them in the nodes right
 * after it, one each, so element i is node i + 1; an array holding a
 * container gets an index (a pointer per element, filled when the array
 * closes and its elements' sizes are known).  Strings and keys are copied
 * into the arena decoded and NUL-terminated (a string may hold NUL bytes
 * from \u0000 as well); integers and decimals are decoded once.
 *
 * Building.  The text has passed the validating scan, so the builder reads
 * without re-checking the grammar, in two passes: a quick count of the
 * structural bytes and string bytes sizes the block (sdui__tree_measure),
 * then one iterative pass fills it (sdui__tree_build).  An open container
 * keeps its parent in the node while it is open, so nesting needs no stack
 * of its own.  Should the text not have been scanned after all, every read
 * stays in bounds and the build answers SDUI_JSON.
 *
 * What jansson refuses, the builder refuses at the same place, in the same
 * order (the first fault in document order wins, as jansson stops there):
 *   - a key holding \u0000, then a key equal to an earlier key of the same
 *     object, checked when the key is read (before its value): linearly
 *     against the earlier keys while an object has at most 16, then in a
 *     hash table of keys (SipHash under the process's key, as every table
 *     of outside ids) allocated for the token's first larger object;
 *   - a number out of range, when it is read: an integer (no '.', 'e' or
 *     'E') outside the 64-bit range, or a decimal strtod turns into an
 *     infinity with ERANGE (what underflows is 0 or subnormal, as there);
 *   - jansson's nesting limit (JSON_PARSER_MAX_DEPTH, 2048): jansson counts
 *     every value, the top one at 1, and refuses one past the limit once
 *     it has read its first token, a number's overflow coming first.
 * Decimals take the exact fast path when they can: at most 15 significant
 * digits and a power of ten within 10^22 make the mantissa and the power
 * exact doubles, and one IEEE multiplication or division rounds the exact
 * quotient correctly, which is what strtod returns.  Others go to the
 * core's strtod (sdui__strtod: the C library's, in a "C" locale object of
 * its own), so the host's locale never changes what a decimal reads as.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#endif

#include "internal.h"
#include "scan.h"
#include "token_tree.h"

/* jansson's nesting limit (its jansson_config.h says which it was built
 * with). */
#ifdef JSON_PARSER_MAX_DEPTH
#define TREE_MAX_DEPTH ((size_t)JSON_PARSER_MAX_DEPTH)
#else
#define TREE_MAX_DEPTH ((size_t)2048)
#endif

/* Members an object may have before its keys go into the hash table. */
#define LINEAR_KEYS 16

/* The tag every node starts with: a kind under a mark no jansson type
 * (json_type, 0..7) takes. */
#define TAG_MARK 0x5D7E0000u
#define TAG_MASK 0xFFFF0000u
enum {
    K_NULL = TAG_MARK,
    K_FALSE,
    K_TRUE,
    K_INT,
    K_REAL,
    K_STRING,
    K_ARRAY,
    K_OBJECT,
    K_KEY
};

/* Node flags. */
#define F_CONTAINERS 1u /* an array with a container among its elements */
#define F_HASHED 2u     /* an object whose keys are in the hash table   */

/* One node: a value or an object key. */
typedef struct node {
    uint32_t tag;   /* a K_ kind                                           */
    uint32_t flags; /* F_ flags                                            */
    size_t n;       /* containers: elements or members; strings, keys:
                     * bytes                                               */
    size_t size;    /* nodes of the subtree, this one included             */
    union {
        int64_t i;
        double d;
        const char *s;                   /* strings, keys: in the arena  */
        const struct node *const *index; /* arrays: an index, or NULL    */
        struct node *parent;             /* containers, while open       */
    } u;
} node;

_Static_assert(sizeof(node) % SDUI_TREE_ALIGN == 0 &&
                   _Alignof(node) <= SDUI_TREE_ALIGN,
               "nodes tile memory aligned to SDUI_TREE_ALIGN");

/* A handle and its node. */
#define NODE(v) ((const node *)(const void *)(v))
#define VALUE(nd) ((const sdui_value *)(const void *)(nd))

/* ---------------------------------------------------------------------
 * Measuring.
 * --------------------------------------------------------------------- */

/* Bytes a measure counts outside strings: 1 ',', 2 ':', 3 '['. */
static const unsigned char structural[256] = {
    [','] = 1, [':'] = 2, ['['] = 3,
};

/* The first quote or backslash in [p, end), or end. */
static SDUI_ALWAYS_INLINE const unsigned char *
quote_or_backslash(const unsigned char *p, const unsigned char *end)
{
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                         _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    (defined(__GNUC__) || defined(__clang__))
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    while (end - p >= 8) {
        uint64_t v, q, b, m;
        memcpy(&v, p, 8);
        q = v ^ (ones * '"');
        b = v ^ (ones * '\\');
        m = (((q - ones) & ~q) | ((b - ones) & ~b)) & high;
        if (m)
            return p + ((unsigned)__builtin_ctzll(m) >> 3);
        p += 8;
    }
#endif
    while (p < end && *p != '"' && *p != '\\')
        p++;
    return p;
}

/* The closing quote of the string whose body starts at p, or end. */
static const unsigned char *string_end(const unsigned char *p,
                                       const unsigned char *end)
{
    for (;;) {
        p = quote_or_backslash(p, end);
        if (p >= end || *p == '"')
            return p;
        /* An escape: its next byte is never the closing quote (a \u
         * escape's hex digits hold no quote or backslash either). */
        p += end - p >= 2 ? 2 : 1;
    }
}

/* Counts what a tree needs (token_tree.h). */
void sdui__tree_measure(const char *json, size_t len, sdui_tree_size *out)
{
    const unsigned char *p = (const unsigned char *)json, *end = p + len;
    size_t count[4] = {0, 0, 0, 0}, strings = 0, string_bytes = 0;
    assert(json || len == 0);
    while (p < end) {
        unsigned c = *p++;
        if (c != '"') {
            count[structural[c]]++;
            continue;
        }
        {
            const unsigned char *close = string_end(p, end);
            string_bytes += (size_t)(close - p);
            strings++;
            p = close < end ? close + 1 : end;
        }
    }
    /* A key and its member's value per ':'; an array has at most one
     * element more than the commas in it. */
    out->nodes = 1 + count[1] + count[2] * 2 + count[3];
    out->slots = count[1] + count[3];
    out->keys = count[2];
    out->arena = string_bytes + strings;
}

/* Memory a tree takes (token_tree.h). */
size_t sdui__tree_bytes(const sdui_tree_size *size)
{
    size_t total;
    if (size->nodes > SIZE_MAX / sizeof(node) ||
        size->slots > SIZE_MAX / sizeof(node *))
        return SIZE_MAX;
    total = size->nodes * sizeof(node);
    if (total > SIZE_MAX - size->slots * sizeof(node *))
        return SIZE_MAX;
    total += size->slots * sizeof(node *);
    if (total > SIZE_MAX - size->arena)
        return SIZE_MAX;
    return total + size->arena;
}

/* ---------------------------------------------------------------------
 * Building.
 * --------------------------------------------------------------------- */

/* One key in the hash table of a large object's keys. */
typedef struct key_slot {
    const node *obj, *key;
} key_slot;

/* The state of one build. */
typedef struct builder {
    const unsigned char *base, *end;
    node *next, *nodes_end;            /* nodes: next free, bound        */
    const node **slot, **slots_end;    /* index slots: next free, bound  */
    char *arena, *arena_end;           /* strings: next free, bound      */
    const sdui_tree_place *place;
    sdui_error *err;
    size_t keys;                       /* keys in the text               */
    key_slot *table;                   /* NULL until an object is large  */
    size_t mask, used;
} builder;

/* An error at offset `at` of the token's text. */
static sdui_status fail_at(builder *b, sdui_status st, size_t at,
                           const char *fmt, ...) SDUI_PRINTF(4, 5);

/* Formats an error at `at` (offset in the token's text) into b->err. */
static sdui_status fail_at(builder *b, sdui_status st, size_t at,
                           const char *fmt, ...)
{
    const sdui_tree_place *pl = b->place;
    char msg[SDUI_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(msg, sizeof msg, fmt, ap) < 0)
        msg[0] = '\0';
    va_end(ap);
    return sdui__fail_at(b->err, st, pl->doc, pl->doc_len,
                         pl->base_offset + at, "%s", msg);
}

/* Text that cannot be valid JSON: the caller broke the contract (the
 * text was not scanned). */
static sdui_status malformed(builder *b, const unsigned char *p)
{
    return fail_at(b, SDUI_JSON, (size_t)(p - b->base),
                   "invalid JSON in a token (the text was not scanned)");
}

/* A value nested past jansson's limit; [start, end) is the token jansson
 * had read (its words: the token as context when it is short). */
static sdui_status too_deep(builder *b, const unsigned char *start,
                            const unsigned char *end)
{
    size_t n = (size_t)(end - start);
    if (n <= 20)
        return fail_at(b, SDUI_JSON, (size_t)(end - b->base),
                       "maximum parsing depth reached near '%.*s'", (int)n,
                       (const char *)start);
    return fail_at(b, SDUI_JSON, (size_t)(end - b->base),
                   "maximum parsing depth reached");
}

/* Skips JSON white space. */
static inline const unsigned char *skip_ws(const unsigned char *p,
                                           const unsigned char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/*
 * Reads the string whose opening quote is at *pp into the arena, setting
 * nd's bytes and length, and moves *pp past the closing quote; *escaped
 * tells whether it held an escape (only then can it hold a NUL).
 */
static sdui_status read_string(builder *b, node *nd, const unsigned char **pp,
                               int *escaped)
{
    const unsigned char *p = *pp, *body = p + 1, *q = body, *end = b->end;
    size_t raw, n;
    char *dst = b->arena;
    for (;;) {
        q = quote_or_backslash(q, end);
        if (q >= end)
            return malformed(b, p);
        if (*q == '"')
            break;
        *escaped = 1;
        if (end - q < 2)
            return malformed(b, q);
        q += 2;
    }
    raw = (size_t)(q - body);
    if ((size_t)(b->arena_end - dst) < raw + 1)
        return malformed(b, p);
    if (*escaped) {
        n = sdui__unescape((const char *)body, raw, dst);
    } else {
        memcpy(dst, body, raw);
        n = raw;
    }
    dst[n] = '\0';
    b->arena = dst + n + 1;
    nd->u.s = dst;
    nd->n = n;
    *pp = q + 1;
    return SDUI_OK;
}

/* Exact powers of ten as doubles (10^22 is the last one). */
static const double pow10_exact[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * The decimal [s, e) (a JSON number with '.', 'e' or 'E') by the exact
 * fast path; 0 when it does not apply.  (Only where double arithmetic is
 * done in double: FLT_EVAL_METHOD 0.)
 */
static int fast_decimal(const unsigned char *s, const unsigned char *e,
                        double *out)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    const unsigned char *p = s;
    uint64_t m = 0;
    int digits = 0, neg = 0;
    long e10 = 0, x = 0;
    double d;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; p < e && (unsigned)(*p - '0') < 10u; p++) {
        if (m == 0 && *p == '0')
            continue;
        if (++digits > 15)
            return 0;
        m = m * 10 + (uint64_t)(*p - '0');
    }
    if (p < e && *p == '.') {
        for (p++; p < e && (unsigned)(*p - '0') < 10u; p++) {
            e10--;
            if (m == 0 && *p == '0')
                continue;
            if (++digits > 15)
                return 0;
            m = m * 10 + (uint64_t)(*p - '0');
        }
    }
    if (p < e && (*p | 0x20) == 'e') {
        int eneg = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        for (; p < e; p++) {
            if ((unsigned)(*p - '0') >= 10u)
                return 0;
            if (x < 100000)
                x = x * 10 + (*p - '0');
        }
        e10 += eneg ? -x : x;
    }
    if (m == 0) {
        d = 0.0; /* whatever the exponent: strtod's zero */
    } else if (e10 >= 0 && e10 <= 22) {
        d = (double)m * pow10_exact[e10];
    } else if (e10 < 0 && e10 >= -22) {
        d = (double)m / pow10_exact[-e10];
    } else {
        return 0;
    }
    *out = neg ? -d : d;
    return 1;
#else
    (void)s;
    (void)e;
    (void)out;
    return 0;
#endif
}

/*
 * The decimal [s, e) by the core's strtod, whatever the locale (number.c).
 * Returns 0, 1 when the value overflows to an infinity (ERANGE), or -1
 * when memory runs out (a copy longer than 63 bytes).  errno is kept.
 */
static int strtod_decimal(const unsigned char *s, const unsigned char *e,
                          double *out)
{
    char small[64], *buf;
    size_t n = (size_t)(e - s);
    int saved = errno, over;
    double d;
    buf = n < sizeof small ? small : sdui_malloc(n + 1);
    if (!buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    d = sdui__strtod(buf, NULL);
    over = (d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE;
    errno = saved;
    if (buf != small)
        sdui_free(buf);
    *out = d;
    return over;
}

/*
 * Reads the number at *pp into nd (an integer or a decimal, as jansson
 * tells them apart) and moves *pp past it; SDUI_LIMIT for a number out of
 * range.
 */
static sdui_status read_number(builder *b, node *nd, const unsigned char **pp)
{
    const unsigned char *s = *pp, *p = s, *end = b->end;
    int decimal = 0;
    size_t n;
    while (p < end) {
        unsigned c = *p;
        if ((unsigned)(c - '0') < 10u || c == '-' || c == '+')
            p++;
        else if (c == '.' || c == 'e' || c == 'E') {
            decimal = 1;
            p++;
        } else
            break;
    }
    *pp = p;
    if (!decimal) {
        const unsigned char *q = s;
        int neg = *q == '-';
        uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        uint64_t v = 0;
        q += neg;
        for (; q < p; q++) {
            uint64_t digit = (uint64_t)(*q - '0');
            if (digit > 9)
                return malformed(b, q);
            if (v > (limit - digit) / 10)
                goto out_of_range;
            v = v * 10 + digit;
        }
        nd->tag = K_INT;
        nd->u.i = !neg                          ? (int64_t)v
                  : v == (uint64_t)INT64_MAX + 1 ? INT64_MIN
                                                 : -(int64_t)v;
        return SDUI_OK;
    }
    nd->tag = K_REAL;
    if (fast_decimal(s, p, &nd->u.d))
        return SDUI_OK;
    switch (strtod_decimal(s, p, &nd->u.d)) {
    case 0:
        return SDUI_OK;
    case 1:
        goto out_of_range;
    default:
        return sdui__oom(b->err);
    }
out_of_range:
    n = (size_t)(p - s);
    return fail_at(b, SDUI_LIMIT, (size_t)(s - b->base),
                   decimal ? "number %.*s%s is out of range: a decimal that "
                             "overflows to infinity"
                           : "number %.*s%s is out of range: an integer "
                             "beyond 64 bits",
                   (int)(n > 64 ? 64 : n), (const char *)s,
                   n > 64 ? "..." : "");
}

/* The hash of a key of object obj. */
static size_t key_hash(const node *obj, const node *key)
{
    uint64_t h = sdui__hash(key->u.s, key->n);
    h ^= (uint64_t)(uintptr_t)obj * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h ^ (h >> 32));
}

/* 1 if two key nodes hold the same bytes. */
static int same_key(const node *a, const node *b)
{
    return a->n == b->n && memcmp(a->u.s, b->u.s, a->n) == 0;
}

/*
 * Puts key of object obj in the hash table unless an equal key of obj is
 * there: returns 1 if it was, else 0.
 */
static int table_put(builder *b, const node *obj, const node *key)
{
    size_t i = key_hash(obj, key) & b->mask;
    for (;; i = (i + 1) & b->mask) {
        key_slot *s = &b->table[i];
        if (!s->key) {
            s->obj = obj;
            s->key = key;
            b->used++;
            assert(b->used <= b->mask / 2 + 1);
            return 0;
        }
        if (s->obj == obj && same_key(s->key, key))
            return 1;
    }
}

/*
 * 1 if key equals an earlier key of obj (whose members so far are all
 * complete), 0 if not, -1 when memory runs out for the hash table.
 */
static int duplicate_key(builder *b, node *obj, const node *key)
{
    const node *k = obj + 1;
    size_t i;
    if (obj->n < LINEAR_KEYS) {
        for (i = 0; i < obj->n; i++) {
            const node *v = k + 1;
            if (same_key(k, key))
                return 1;
            k = v + v->size;
        }
        return 0;
    }
    if (!b->table) {
        size_t cap = 64;
        while (cap / 2 < b->keys)
            cap *= 2;
        b->table = sdui_malloc(cap * sizeof *b->table);
        if (!b->table)
            return -1;
        memset(b->table, 0, cap * sizeof *b->table);
        b->mask = cap - 1;
        b->used = 0;
    }
    if (!(obj->flags & F_HASHED)) {
        /* The object's first keys, which are unique, go in first. */
        for (i = 0; i < obj->n; i++) {
            const node *v = k + 1;
            int dup = table_put(b, obj, k);
            assert(!dup);
            (void)dup;
            k = v + v->size;
        }
        obj->flags |= F_HASHED;
    }
    return table_put(b, obj, key);
}

/* Fills the index of an array that holds a container, once its elements
 * are complete; returns 0, or -1 when the slots run out (malformed). */
static int fill_index(builder *b, node *arr)
{
    const node *e = arr + 1;
    size_t i;
    if ((size_t)(b->slots_end - b->slot) < arr->n)
        return -1;
    for (i = 0; i < arr->n; i++) {
        b->slot[i] = e;
        e += e->size;
    }
    arr->u.index = b->slot;
    b->slot += arr->n;
    return 0;
}

/*
 * The builder proper.  Iterative: a value is read at `value`, what may
 * follow it at `after`, a container that ends goes through `close`, and
 * an object's key through `key`.  `open` is the innermost open container
 * (its parent is in its node until it closes), `depth` how many are open.
 */
static sdui_status build(builder *b, const sdui_value **root)
{
    const unsigned char *p = b->base, *end = b->end, *start;
    node *open = NULL, *nd, *first = b->next;
    size_t depth = 0;
    sdui_status st;

value:
    p = skip_ws(p, end);
    if (p >= end || b->next >= b->nodes_end)
        return malformed(b, p);
    nd = b->next++;
    nd->flags = 0;
    nd->n = 0;
    nd->size = 1;
    start = p;
    if (open && open->tag == K_ARRAY)
        open->n++;
    switch (*p) {
    case '{':
    case '[':
        if (depth >= TREE_MAX_DEPTH)
            return too_deep(b, p, p + 1);
        if (open && open->tag == K_ARRAY)
            open->flags |= F_CONTAINERS;
        nd->tag = *p == '{' ? K_OBJECT : K_ARRAY;
        nd->u.parent = open;
        open = nd;
        depth++;
        p = skip_ws(p + 1, end);
        if (p < end && (*p == '}' || *p == ']')) {
            p++;
            goto close;
        }
        if (nd->tag == K_OBJECT)
            goto key;
        goto value;
    case '"': {
        int escaped = 0;
        nd->tag = K_STRING;
        st = read_string(b, nd, &p, &escaped);
        if (st != SDUI_OK)
            return st;
        break;
    }
    case 't':
        nd->tag = K_TRUE;
        p += end - p >= 4 ? 4 : end - p;
        break;
    case 'f':
        nd->tag = K_FALSE;
        p += end - p >= 5 ? 5 : end - p;
        break;
    case 'n':
        nd->tag = K_NULL;
        p += end - p >= 4 ? 4 : end - p;
        break;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        st = read_number(b, nd, &p);
        if (st != SDUI_OK)
            return st;
        break;
    default:
        return malformed(b, p);
    }
    if (depth >= TREE_MAX_DEPTH)
        return too_deep(b, start, p);

after:
    if (!open)
        goto done;
    p = skip_ws(p, end);
    if (p >= end)
        return malformed(b, p);
    if (*p == ',') {
        p = skip_ws(p + 1, end);
        if (open->tag == K_OBJECT)
            goto key;
        goto value;
    }
    if (*p != (open->tag == K_OBJECT ? '}' : ']'))
        return malformed(b, p);
    p++;

close:
    {
        node *parent = open->u.parent;
        open->size = (size_t)(b->next - open);
        if (open->flags & F_CONTAINERS) {
            if (fill_index(b, open) != 0)
                return malformed(b, p);
        } else {
            open->u.index = NULL;
        }
        open = parent;
        depth--;
    }
    goto after;

key:
    if (p >= end || *p != '"' || b->next >= b->nodes_end)
        return malformed(b, p);
    {
        node *k = b->next++;
        const unsigned char *q = p;
        int dup, escaped = 0;
        k->tag = K_KEY;
        k->flags = 0;
        k->size = 1;
        st = read_string(b, k, &q, &escaped);
        if (st != SDUI_OK)
            return st;
        if (SDUI_UNLIKELY(escaped && memchr(k->u.s, '\0', k->n) != NULL)) {
            size_t n = (size_t)(q - p);
            return fail_at(b, SDUI_SCHEMA, (size_t)(p - b->base),
                           "object key %.*s%s holds \\u0000: refused on "
                           "purpose (a key must not contain NUL)",
                           (int)(n > 64 ? 64 : n), (const char *)p,
                           n > 64 ? "..." : "");
        }
        dup = duplicate_key(b, open, k);
        if (SDUI_UNLIKELY(dup != 0)) {
            size_t n = (size_t)(q - p);
            if (dup < 0)
                return sdui__oom(b->err);
            return fail_at(b, SDUI_SCHEMA, (size_t)(p - b->base),
                           "duplicate object key %.*s%s: refused on purpose "
                           "(each key of an object must be unique)",
                           (int)(n > 64 ? 64 : n), (const char *)p,
                           n > 64 ? "..." : "");
        }
        open->n++;
        p = skip_ws(q, end);
        if (p >= end || *p != ':')
            return malformed(b, p);
        p++;
    }
    goto value;

done:
    if (skip_ws(p, end) != end)
        return malformed(b, p);
    *root = VALUE(first);
    return SDUI_OK;
}

/* Builds a tree (token_tree.h). */
sdui_status sdui__tree_build(const char *json, size_t len,
                             const sdui_tree_size *size, void *mem,
                             const sdui_tree_place *place,
                             const sdui_value **root, sdui_error *err)
{
    builder b;
    sdui_status st;
    char *m = mem;
    assert((json || len == 0) && size && mem && place && root);
    assert((uintptr_t)mem % SDUI_TREE_ALIGN == 0);
    assert(sdui__tree_bytes(size) != SIZE_MAX);
    *root = NULL;
    memset(&b, 0, sizeof b);
    b.base = (const unsigned char *)(json ? json : "");
    b.end = b.base + len;
    b.next = (node *)(void *)m;
    b.nodes_end = b.next + size->nodes;
    m += size->nodes * sizeof(node);
    b.slot = (const node **)(void *)m;
    b.slots_end = b.slot + size->slots;
    m += size->slots * sizeof(node *);
    b.arena = m;
    b.arena_end = m + size->arena;
    b.place = place;
    b.err = err;
    b.keys = size->keys;
    st = build(&b, root);
    sdui_free(b.table);
    return st;
}

/* ---------------------------------------------------------------------
 * Reading.
 * --------------------------------------------------------------------- */

/* 1 if v is a node (token_tree.h): its first four bytes are a tag.  A
 * jansson value starts with its json_type, an int from 0 to 7. */
int sdui__tree_holds(const sdui_value *v)
{
    uint32_t tag;
    assert(v);
    memcpy(&tag, v, sizeof tag);
    return (tag & TAG_MASK) == TAG_MARK;
}

/* 1 if it is a tree's member iterator: a key node's address plus one. */
int sdui__tree_iter_holds(const void *it)
{
    return ((uintptr_t)it & 1u) != 0;
}

/* A key node as a member iterator. */
static const void *iter_of(const node *key)
{
    assert(key->tag == K_KEY);
    return (const char *)(const void *)key + 1;
}

/* The key node of a member iterator. */
static const node *key_of(const void *it)
{
    const node *k = (const node *)(const void *)((const char *)it - 1);
    assert(k->tag == K_KEY);
    return k;
}

/* The value type of a node (token.h). */
sdui_value_type sdui__tree_type(const sdui_value *v)
{
    switch (NODE(v)->tag) {
    case K_FALSE:
    case K_TRUE: return SDUI_VALUE_BOOL;
    case K_INT: return SDUI_VALUE_INT;
    case K_REAL: return SDUI_VALUE_REAL;
    case K_STRING: return SDUI_VALUE_STRING;
    case K_ARRAY: return SDUI_VALUE_ARRAY;
    case K_OBJECT: return SDUI_VALUE_OBJECT;
    default: return SDUI_VALUE_NULL;
    }
}

/* 1 for true, else 0. */
int sdui__tree_bool(const sdui_value *v) { return NODE(v)->tag == K_TRUE; }

/* An integer, else 0. */
int64_t sdui__tree_int(const sdui_value *v)
{
    return NODE(v)->tag == K_INT ? NODE(v)->u.i : 0;
}

/* A number as a double (an integer converted), else 0.0. */
double sdui__tree_real(const sdui_value *v)
{
    const node *nd = NODE(v);
    if (nd->tag == K_REAL)
        return nd->u.d;
    return nd->tag == K_INT ? (double)nd->u.i : 0.0;
}

/* A string's bytes and length, else NULL and 0. */
const char *sdui__tree_string(const sdui_value *v, size_t *len)
{
    const node *nd = NODE(v);
    if (nd->tag != K_STRING) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = nd->n;
    return nd->u.s;
}

/* Elements of an array or members of an object, else 0. */
size_t sdui__tree_count(const sdui_value *v)
{
    const node *nd = NODE(v);
    return nd->tag == K_ARRAY || nd->tag == K_OBJECT ? nd->n : 0;
}

/* Element i of an array: from its index, or the node i + 1 after it when
 * every element is a scalar; else NULL. */
const sdui_value *sdui__tree_at(const sdui_value *v, size_t i)
{
    const node *nd = NODE(v);
    if (nd->tag != K_ARRAY || i >= nd->n)
        return NULL;
    return VALUE(nd->u.index ? nd->u.index[i] : nd + 1 + i);
}

/* The member named key (NUL-terminated) of an object, else NULL: a scan
 * over the members, skipping each value's subtree. */
const sdui_value *sdui__tree_get(const sdui_value *v, const char *key)
{
    const node *nd = NODE(v), *k;
    size_t i, len;
    if (nd->tag != K_OBJECT)
        return NULL;
    len = strlen(key);
    k = nd + 1;
    for (i = 0; i < nd->n; i++) {
        const node *val = k + 1;
        if (k->n == len && memcmp(k->u.s, key, len) == 0)
            return VALUE(val);
        k = val + val->size;
    }
    return NULL;
}

/* The member after it (the first when it is NULL) of an object, in
 * document order, or NULL at the end or when obj is not an object. */
const void *sdui__tree_next(const sdui_value *obj, const void *it)
{
    const node *o = NODE(obj), *k;
    if (o->tag != K_OBJECT || o->n == 0)
        return NULL;
    if (!it)
        return iter_of(o + 1);
    k = key_of(it) + 1;     /* the member's value */
    k += k->size;           /* the next key, or past the object */
    return k < o + o->size ? iter_of(k) : NULL;
}

/* The key of a member iterator, NUL-terminated, and its length. */
const char *sdui__tree_iter_key(const void *it, size_t *len)
{
    const node *k = key_of(it);
    if (len)
        *len = k->n;
    return k->u.s;
}

/* The value of a member iterator. */
const sdui_value *sdui__tree_iter_value(const void *it)
{
    return VALUE(key_of(it) + 1);
}
