/*
 * value.c - the core's one value tree (value.h): building it from
 * scanned JSON text or from a draft (value_tree.h), and reading it.
 *
 * The tree.  One block of memory holds, in order, an array of fixed-size
 * nodes, the indexes of the arrays that need one, and an arena of decoded
 * strings.  Nodes are laid out in document order (pre-order): a container
 * is followed by its subtree, and knows how many nodes that subtree takes
 * (size, itself included), so the value after it is one add away.  An
 * object's members are a key node followed by the value's subtree.  An
 * array whose elements are all scalars has them in the nodes right after
 * it, one each, so element i is node i + 1; an array holding a container
 * gets an index (a pointer per element, filled when the array closes and
 * its elements' sizes are known).  Strings and keys are copied into the
 * arena decoded and NUL-terminated (a string may hold NUL bytes from
 * \u0000 as well); integers and decimals are decoded once.  Nothing in a
 * tree tells one owner from another: a token's tree and a document's are
 * the same thing to every reader.
 *
 * Member lookup.  An object of at most 16 members is scanned, skipping
 * each value's subtree (most objects are small, and a scan of a few keys
 * beats hashing the name).  The keys of larger objects go into the tree's
 * member index, one open-addressing hash table for the whole tree keyed
 * by (object, name) under SipHash with the process's key (as every table
 * of outside names), so a lookup there is one hash and a probe or two
 * however large the object.  The index is filled while the tree is
 * built, where it also finds repeated names, grows by doubling, and is
 * owned and freed with the tree (value_tree.h).
 *
 * Repeated names.  Under the token rules a repeated name is refused.
 * Under the document rules it keeps the place of its first appearance and
 * the value of its last: the later key node is marked dead (readers skip
 * it, and its value's nodes stay where they are, unreachable), and the
 * first key's size, the distance from a key to its value, is pointed at
 * the new value.  An object that repeats a name is indexed from then on,
 * whatever its size, so a text that repeats one name a million times
 * costs a million probes, not a million scans.
 *
 * Building from text.  The text has passed the validating scan, so the
 * builder reads without re-checking the grammar, in two passes: a quick
 * count of the structural bytes and string bytes sizes the block
 * (sdui__tree_measure), then one iterative pass fills it
 * (sdui__tree_build).  An open container keeps its parent in the node
 * while it is open, so nesting needs no stack of its own.  Should the
 * text not have been scanned after all, every read stays in bounds and
 * the build answers SDUI_JSON.
 *
 * Building from a draft (json_build.c).  The builder writes nodes in the
 * same order, with strings as offsets into its own buffer; laying out
 * copies them into one block, turns offsets into pointers, fills the
 * arrays' indexes and passes every key through the same check as a
 * text's keys, so repeated names and the index come out the same.
 *
 * What is refused, the first fault in document order winning:
 *   - a key holding \u0000, then (token rules) a key equal to an earlier
 *     key of the same object, both checked when the key is read, before
 *     its value;
 *   - a number out of range, when it is read: an integer (no '.', 'e' or
 *     'E') outside the 64-bit range, or a decimal that strtod turns into
 *     an infinity with ERANGE (what underflows is 0 or subnormal);
 *   - nesting past SDUI_TREE_MAX_DEPTH (2048; every value counts, the top
 *     one at 1), found once the value that goes too deep has been read,
 *     so a number's overflow there comes first.
 * Reported under the token rules as SDUI_SCHEMA at the key (refused on
 * purpose), SDUI_LIMIT at the number, SDUI_JSON just past the value read;
 * under the document rules all as SDUI_JSON "json document: <words>"
 * just past the token read, quoting it when it has at most 20 bytes.
 * Decimals take the exact fast path when they can: at most 15 significant
 * digits and a power of ten within 10^22 make the mantissa and the power
 * exact doubles, and one IEEE multiplication or division rounds the exact
 * quotient correctly, which is what strtod returns.  Others go to the
 * core's strtod (sdui__strtod: the C library's, in a "C" locale object of
 * its own), so the host's locale never changes what a decimal reads as.
 *
 * The core's parser and jansson.  jansson is the reference parser of the
 * tests and the fuzzers (Tests/C/json_oracle.h, used by
 * test_json_doc_ref.c, test_token_tree.c, fuzz_json_doc.c and
 * fuzz_token_parse.c), read as json_loadb with JSON_DECODE_ANY |
 * JSON_ALLOW_NUL, plus JSON_REJECT_DUPLICATES for the token rules.  On
 * text the scan accepts, the two agree: every document
 * either builds equal trees in both (types, integers, decimals bit for
 * bit, strings byte for byte, members in the same order, a repeated name
 * at its first place with its last value) or is refused by both, in the
 * same words at the same place (jansson's "too big integer", "real
 * number overflow", "NUL byte in object key not supported", "maximum
 * parsing depth reached", after "json document: " under the document
 * rules).  The differences, all on purpose, are listed here and, each
 * with a text that shows it, in json_oracle.h's table (checked by
 * test_json_doc_ref.c); the tests and fuzzers allow no other:
 *   1. The scan comes first (scan.c): nesting deeper than the caller's
 *      max_depth (default 128, limits.h) is SDUI_LIMIT, and a token's text
 *      over max_token_bytes is SDUI_LIMIT, where jansson reads on.
 *   2. The token rules report a repeated name or a name holding \u0000 as
 *      SDUI_SCHEMA and a number out of range as SDUI_LIMIT, in the core's
 *      words and at the start of the key or number; jansson says
 *      "duplicate object key", "NUL byte in object key not supported",
 *      "too big integer" or "real number overflow" just past it.  The
 *      verdict is the same, the status and words are not.
 *   3. A token must be an object that passes the schema (token.h); jansson
 *      takes any value.
 *   4. Decimals are read without the process's locale; jansson reads them
 *      with strtod in it, so under a locale whose decimal point is not
 *      '.' its values differ (and where the point is two bytes, it
 *      aborts).  Only under the "C" locale are the two compared.
 *   5. A raw NUL byte is never valid JSON (the scan refuses it); jansson
 *      takes one after a number for the end of the text, so it reads
 *      "[1\0]" as [1] and "1\0" as 1.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#endif

#include "internal.h"
#include "scan.h"
#include "value_tree.h"

/* Members an object may have before its keys go into the index. */
#define LINEAR_KEYS 16

/* Short names for the node kinds and flags (value_tree.h). */
typedef sdui_node node;
enum {
    K_NULL = SDUI_NODE_NULL,
    K_FALSE = SDUI_NODE_FALSE,
    K_TRUE = SDUI_NODE_TRUE,
    K_INT = SDUI_NODE_INT,
    K_REAL = SDUI_NODE_REAL,
    K_STRING = SDUI_NODE_STRING,
    K_ARRAY = SDUI_NODE_ARRAY,
    K_OBJECT = SDUI_NODE_OBJECT,
    K_KEY = SDUI_NODE_KEY
};
#define F_CONTAINERS SDUI_NODE_F_CONTAINERS
#define F_HASHED SDUI_NODE_F_HASHED
#define F_DEAD SDUI_NODE_F_DEAD

_Static_assert(sizeof(node) % SDUI_TREE_ALIGN == 0 &&
                   _Alignof(node) <= SDUI_TREE_ALIGN,
               "nodes tile memory aligned to SDUI_TREE_ALIGN");

/* A handle and its node. */
#define NODE(v) ((const node *)(const void *)(v))
#define VALUE(nd) ((const sdui_value *)(const void *)(nd))

/* The key after key k in its object (k's member's value skipped), or the
 * node past the object. */
static inline const node *next_key(const node *k)
{
    const node *v = k + 1;
    return v + v->size;
}

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

/* Counts what a tree needs (value_tree.h). */
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
    out->arena = string_bytes + strings;
}

/* Memory a tree takes (value_tree.h). */
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
 * The member index.
 * --------------------------------------------------------------------- */

/* One key in the index, with its hash: a probe compares hashes first,
 * so it reads a key node only when the name is most likely the one. */
typedef struct key_slot {
    const node *obj, *key;
    size_t hash;
} key_slot;

/* The index: a power-of-two table of slots, at most half full, in one
 * allocation. */
struct sdui_tree_index {
    size_t mask, used;
    key_slot slots[];
};

/* The slot hash of a name in object obj, from the name's own hash h
 * (sdui__hash): the object's address is mixed in, so the members of many
 * objects share one table. */
static size_t key_hash_of(const node *obj, uint64_t h)
{
    h ^= (uint64_t)(uintptr_t)obj * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h ^ (h >> 32));
}

/* The hash of name s[0, n) in object obj. */
static size_t key_hash(const node *obj, const char *s, size_t n)
{
    return key_hash_of(obj, sdui__hash(s, n));
}

/* 1 if key node k holds the name s[0, n). */
static inline int key_is(const node *k, const char *s, size_t n)
{
    return k->n == n && memcmp(k->u.s, s, n) == 0;
}

/* Puts key of obj in its slot of an index with room (no equal key
 * there). */
static void slot_put(sdui_tree_index *ix, const node *obj, const node *key)
{
    size_t h = key_hash(obj, key->u.s, key->n), i = h & ix->mask;
    while (ix->slots[i].key)
        i = (i + 1) & ix->mask;
    ix->slots[i].obj = obj;
    ix->slots[i].key = key;
    ix->slots[i].hash = h;
    ix->used++;
}

/* Replaces *ixp by an index of twice the slots (or makes the first) with
 * the same keys; 0, or -1 when memory runs out (*ixp unchanged then). */
static int index_grow(sdui_tree_index **ixp)
{
    sdui_tree_index *old = *ixp, *ix;
    size_t cap = old ? (old->mask + 1) * 2 : 64, i;
    if (cap > (SIZE_MAX - sizeof *ix) / sizeof ix->slots[0])
        return -1;
    ix = sdui__calloc(sizeof *ix + cap * sizeof ix->slots[0]);
    if (!ix)
        return -1;
    ix->mask = cap - 1;
    ix->used = 0;
    if (old) {
        for (i = 0; i <= old->mask; i++)
            if (old->slots[i].key)
                slot_put(ix, old->slots[i].obj, old->slots[i].key);
        sdui_free(old);
    }
    *ixp = ix;
    return 0;
}

/*
 * Puts key of obj in the index *ixp (made or grown as needed) unless obj
 * has an equal key there, which *found receives (NULL when key went in).
 * 0, or -1 when memory runs out.
 */
static int index_put(sdui_tree_index **ixp, const node *obj, const node *key,
                     const node **found)
{
    sdui_tree_index *ix = *ixp;
    size_t i;
    *found = NULL;
    if ((!ix || (ix->used + 1) * 2 > ix->mask + 1) && index_grow(ixp) != 0)
        return -1;
    ix = *ixp;
    size_t h = key_hash(obj, key->u.s, key->n);
    i = h & ix->mask;
    for (;; i = (i + 1) & ix->mask) {
        key_slot *s = &ix->slots[i];
        if (!s->key) {
            s->obj = obj;
            s->key = key;
            s->hash = h;
            ix->used++;
            return 0;
        }
        if (s->hash == h && s->obj == obj && key_is(s->key, key->u.s, key->n)) {
            *found = s->key;
            return 0;
        }
    }
}

/* Hands the finished index to the objects in it, once the tree is built
 * (it may move while it grows, so not before): every indexed object has
 * a key in a slot. */
static void index_publish(sdui_tree_index *ix)
{
    size_t i;
    if (!ix)
        return;
    for (i = 0; i <= ix->mask; i++)
        if (ix->slots[i].key)
            ((node *)ix->slots[i].obj)->u.table = ix;
}

/* The key node of obj named s[0, n), whose slot hash is h, in the
 * index, or NULL. */
static const node *index_get(const sdui_tree_index *ix, const node *obj,
                             const char *s, size_t n, size_t h)
{
    size_t i = h & ix->mask;
    for (;; i = (i + 1) & ix->mask) {
        const key_slot *k = &ix->slots[i];
        if (!k->key)
            return NULL;
        if (k->hash == h && k->obj == obj && key_is(k->key, s, n))
            return k->key;
    }
}

/* Frees an index (value_tree.h). */
void sdui__tree_index_free(sdui_tree_index *index)
{
    sdui_free(index);
}

/* ---------------------------------------------------------------------
 * Building.
 * --------------------------------------------------------------------- */

/* The state of one build, from text or from a draft. */
typedef struct builder {
    const unsigned char *base, *end;   /* the text (a draft has none)     */
    node *next, *nodes_end;            /* nodes: next free, bound         */
    const node **slot, **slots_end;    /* index slots: next free, bound   */
    char *arena, *arena_end;           /* strings: next free, bound       */
    const sdui_tree_place *place;
    sdui_tree_rules rules;
    sdui_error *err;
    sdui_tree_index *index;            /* NULL until an object is indexed */
} builder;

/* An error at offset `at` of the tree's text. */
static sdui_status fail_at(builder *b, sdui_status st, size_t at,
                           const char *fmt, ...) SDUI_PRINTF(4, 5);

/* Formats an error at `at` (offset in the tree's text) into b->err. */
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
                   "invalid JSON (the text was not scanned)");
}

/*
 * A refusal as SDUI_JSON in jansson's words (the top of this file),
 * placed just past the token [start, end) that was read, quoting it when
 * it has at most 20 bytes; the document rules say "json document: " first.
 */
static sdui_status refuse(builder *b, const unsigned char *start,
                          const unsigned char *end, const char *what)
{
    const char *pre = b->rules == SDUI_TREE_DOCUMENT ? "json document: " : "";
    size_t n = (size_t)(end - start);
    if (n <= 20)
        return fail_at(b, SDUI_JSON, (size_t)(end - b->base),
                       "%s%s near '%.*s'", pre, what, (int)n,
                       (const char *)start);
    return fail_at(b, SDUI_JSON, (size_t)(end - b->base), "%s%s", pre, what);
}

/* A value nested past SDUI_TREE_MAX_DEPTH; [start, end) is what was
 * read of it. */
static sdui_status too_deep(builder *b, const unsigned char *start,
                            const unsigned char *end)
{
    return refuse(b, start, end, "maximum parsing depth reached");
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
 * Reads the number at *pp into nd (an integer when it has no '.', 'e' or
 * 'E', else a decimal) and moves *pp past it; a number out of range is
 * refused by the rules (the top of this file).
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
        nd->kind = K_INT;
        nd->u.i = !neg                          ? (int64_t)v
                  : v == (uint64_t)INT64_MAX + 1 ? INT64_MIN
                                                 : -(int64_t)v;
        return SDUI_OK;
    }
    nd->kind = K_REAL;
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
    if (b->rules == SDUI_TREE_DOCUMENT)
        return refuse(b, s, p,
                      decimal     ? "real number overflow"
                      : *s == '-' ? "too big negative integer"
                                  : "too big integer");
    n = (size_t)(p - s);
    return fail_at(b, SDUI_LIMIT, (size_t)(s - b->base),
                   decimal ? "number %.*s%s is out of range: a decimal that "
                             "overflows to infinity"
                           : "number %.*s%s is out of range: an integer "
                             "beyond 64 bits",
                   (int)(n > 64 ? 64 : n), (const char *)s,
                   n > 64 ? "..." : "");
}

/*
 * Puts obj's keys so far, from obj + 1 up to (not including) end, in the
 * index (made for the tree's first indexed object), and marks obj indexed.
 * They are unique and none is dead (an object is indexed before its first
 * repeated name is taken).  0, or -1 when memory runs out.
 */
static int index_object(builder *b, node *obj, const node *end)
{
    const node *k, *dup;
    for (k = obj + 1; k < end; k = next_key(k)) {
        assert(!(k->flags & F_DEAD));
        if (index_put(&b->index, obj, k, &dup) != 0)
            return -1;
        assert(!dup);
    }
    obj->flags |= F_HASHED;
    return 0;
}

/*
 * Takes key, just written, as the next member of the open object obj
 * (whose members so far are complete): a new name counts a member; a
 * repeated one is refused (token rules; [p, q) is the key's text for the
 * message) or takes the value that follows (document rules).
 */
static sdui_status add_key(builder *b, node *obj, node *key,
                           const unsigned char *p, const unsigned char *q)
{
    const node *first = NULL;
    if (!(obj->flags & F_HASHED)) {
        if (obj->n < LINEAR_KEYS) {
            const node *k = obj + 1;
            size_t i;
            for (i = 0; i < obj->n && !first; i++, k = next_key(k))
                if (key_is(k, key->u.s, key->n))
                    first = k;
            if (!first) {
                obj->n++;
                return SDUI_OK;
            }
            if (b->rules == SDUI_TREE_TOKEN)
                goto repeated;
        }
        if (index_object(b, obj, key) != 0)
            return sdui__oom(b->err);
    }
    if (index_put(&b->index, obj, key, &first) != 0)
        return sdui__oom(b->err);
    if (!first) {
        obj->n++;
        return SDUI_OK;
    }
    if (b->rules == SDUI_TREE_TOKEN)
        goto repeated;
    /* The first key takes the value that comes next, right after key. */
    key->flags |= F_DEAD;
    ((node *)first)->size = (size_t)(key + 1 - first);
    return SDUI_OK;
repeated:
    {
        size_t n = (size_t)(q - p);
        assert(p && q);
        return fail_at(b, SDUI_SCHEMA, (size_t)(p - b->base),
                       "duplicate object key %.*s%s: refused on purpose "
                       "(each key of an object must be unique)",
                       (int)(n > 64 ? 64 : n), (const char *)p,
                       n > 64 ? "..." : "");
    }
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

/* Closes container c, whose size is set: an array gets its index (an
 * indexed object gets the member index when the tree is done).  Returns
 * c's parent; *bad is set when the slots run out (malformed). */
static node *close_container(builder *b, node *c, int *bad)
{
    node *parent = c->u.parent;
    if (c->kind == K_OBJECT) {
        c->u.table = NULL;
    } else if (c->flags & F_CONTAINERS) {
        if (fill_index(b, c) != 0)
            *bad = 1;
    } else {
        c->u.index = NULL;
    }
    return parent;
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
    if (open && open->kind == K_ARRAY)
        open->n++;
    switch (*p) {
    case '{':
    case '[':
        if (depth >= SDUI_TREE_MAX_DEPTH)
            return too_deep(b, p, p + 1);
        if (open && open->kind == K_ARRAY)
            open->flags |= F_CONTAINERS;
        nd->kind = *p == '{' ? K_OBJECT : K_ARRAY;
        nd->u.parent = open;
        open = nd;
        depth++;
        p = skip_ws(p + 1, end);
        if (p < end && (*p == '}' || *p == ']')) {
            p++;
            goto close;
        }
        if (nd->kind == K_OBJECT)
            goto key;
        goto value;
    case '"': {
        int escaped = 0;
        nd->kind = K_STRING;
        st = read_string(b, nd, &p, &escaped);
        if (st != SDUI_OK)
            return st;
        break;
    }
    case 't':
        nd->kind = K_TRUE;
        p += end - p >= 4 ? 4 : end - p;
        break;
    case 'f':
        nd->kind = K_FALSE;
        p += end - p >= 5 ? 5 : end - p;
        break;
    case 'n':
        nd->kind = K_NULL;
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
    if (depth >= SDUI_TREE_MAX_DEPTH)
        return too_deep(b, start, p);

after:
    if (!open)
        goto done;
    p = skip_ws(p, end);
    if (p >= end)
        return malformed(b, p);
    if (*p == ',') {
        p = skip_ws(p + 1, end);
        if (open->kind == K_OBJECT)
            goto key;
        goto value;
    }
    if (*p != (open->kind == K_OBJECT ? '}' : ']'))
        return malformed(b, p);
    p++;

close:
    {
        int bad = 0;
        open->size = (size_t)(b->next - open);
        open = close_container(b, open, &bad);
        if (bad)
            return malformed(b, p);
        depth--;
    }
    goto after;

key:
    if (p >= end || *p != '"' || b->next >= b->nodes_end)
        return malformed(b, p);
    {
        node *k = b->next++;
        const unsigned char *q = p;
        int escaped = 0;
        k->kind = K_KEY;
        k->flags = 0;
        k->size = 1;
        st = read_string(b, k, &q, &escaped);
        if (st != SDUI_OK)
            return st;
        if (SDUI_UNLIKELY(escaped && memchr(k->u.s, '\0', k->n) != NULL)) {
            size_t n = (size_t)(q - p);
            if (b->rules == SDUI_TREE_DOCUMENT)
                return refuse(b, p, q, "NUL byte in object key not supported");
            return fail_at(b, SDUI_SCHEMA, (size_t)(p - b->base),
                           "object key %.*s%s holds \\u0000: refused on "
                           "purpose (a key must not contain NUL)",
                           (int)(n > 64 ? 64 : n), (const char *)p,
                           n > 64 ? "..." : "");
        }
        st = add_key(b, open, k, p, q);
        if (st != SDUI_OK)
            return st;
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

/* Carves mem into the nodes, slots and arena of a tree of that size. */
static void carve(builder *b, void *mem, const sdui_tree_size *size)
{
    char *m = mem;
    assert((uintptr_t)mem % SDUI_TREE_ALIGN == 0);
    assert(sdui__tree_bytes(size) != SIZE_MAX);
    b->next = (node *)(void *)m;
    b->nodes_end = b->next + size->nodes;
    m += size->nodes * sizeof(node);
    b->slot = (const node **)(void *)m;
    b->slots_end = b->slot + size->slots;
    m += size->slots * sizeof(node *);
    b->arena = m;
    b->arena_end = m + size->arena;
}

/* Builds a tree from text (value_tree.h). */
sdui_status sdui__tree_build(const char *json, size_t len,
                             const sdui_tree_size *size, void *mem,
                             const sdui_tree_place *place,
                             sdui_tree_rules rules, sdui_tree *out,
                             sdui_error *err)
{
    builder b;
    sdui_status st;
    assert((json || len == 0) && size && mem && place && out);
    out->root = NULL;
    out->index = NULL;
    memset(&b, 0, sizeof b);
    b.base = (const unsigned char *)(json ? json : "");
    b.end = b.base + len;
    carve(&b, mem, size);
    b.place = place;
    b.rules = rules;
    b.err = err;
    st = build(&b, &out->root);
    if (st != SDUI_OK) {
        sdui__tree_index_free(b.index);
        out->root = NULL;
        return st;
    }
    index_publish(b.index);
    out->index = b.index;
    return SDUI_OK;
}

/* Lays a draft out as a tree (value_tree.h): the nodes and strings
 * copied, then one pass in document order that closes each container
 * where its size says it ends and takes each key as a text's key. */
sdui_status sdui__tree_lay_out(const sdui_node *draft, size_t count,
                               const char *strings, size_t strings_len,
                               size_t slots, void *mem, sdui_tree *out,
                               sdui_error *err)
{
    static const sdui_tree_place nowhere = {"", 0, 0};
    sdui_tree_size size = {count, slots, strings_len};
    builder b;
    node *nodes, *open = NULL;
    char *arena;
    size_t i;
    int bad = 0;
    assert(draft && count > 0 && (strings || strings_len == 0) && out);
    out->root = NULL;
    out->index = NULL;
    memset(&b, 0, sizeof b);
    carve(&b, mem, &size);
    b.base = b.end = (const unsigned char *)"";
    b.place = &nowhere;
    b.rules = SDUI_TREE_DOCUMENT;
    b.err = err;
    nodes = b.next;
    arena = b.arena;
    memcpy(nodes, draft, count * sizeof *nodes);
    if (strings_len)
        memcpy(arena, strings, strings_len);
    for (i = 0; i < count; i++) {
        node *nd = nodes + i;
        while (open && nd >= open + open->size)
            open = close_container(&b, open, &bad);
        switch (nd->kind) {
        case K_KEY: {
            sdui_status st;
            assert(open && open->kind == K_OBJECT && nd->u.at < strings_len);
            nd->u.s = arena + nd->u.at;
            nd->size = 1;
            nd->flags = 0;
            st = add_key(&b, open, nd, NULL, NULL);
            if (st != SDUI_OK) {
                sdui__tree_index_free(b.index);
                return st;
            }
            break;
        }
        case K_STRING:
            assert(nd->u.at < strings_len);
            nd->u.s = arena + nd->u.at;
            break;
        case K_OBJECT:
            nd->n = 0; /* counted again as its keys are taken */
            nd->flags = 0;
            /* fall through */
        case K_ARRAY:
            assert(nd->size >= 1 && nd->size <= count - i);
            nd->u.parent = open;
            open = nd;
            break;
        default:
            break;
        }
    }
    while (open)
        open = close_container(&b, open, &bad);
    assert(!bad);
    (void)bad;
    index_publish(b.index);
    out->root = VALUE(nodes);
    out->index = b.index;
    return SDUI_OK;
}

/* ---------------------------------------------------------------------
 * Reading (value.h).  Every reader takes NULL as "absent".
 * --------------------------------------------------------------------- */

/* The value type of each node kind. */
static const sdui_value_type type_of_kind[] = {
    [K_NULL] = SDUI_VALUE_NULL,     [K_FALSE] = SDUI_VALUE_BOOL,
    [K_TRUE] = SDUI_VALUE_BOOL,     [K_INT] = SDUI_VALUE_INT,
    [K_REAL] = SDUI_VALUE_REAL,     [K_STRING] = SDUI_VALUE_STRING,
    [K_ARRAY] = SDUI_VALUE_ARRAY,   [K_OBJECT] = SDUI_VALUE_OBJECT,
    [K_KEY] = SDUI_VALUE_NULL,
};

/* The type of a value; NULL (absent) is SDUI_VALUE_NULL. */
sdui_value_type sdui_value_type_of(const sdui_value *v)
{
    if (!v)
        return SDUI_VALUE_NULL;
    assert(NODE(v)->kind <= K_KEY);
    return type_of_kind[NODE(v)->kind];
}

/* 1 for true, else 0. */
int sdui_value_bool(const sdui_value *v)
{
    return v && NODE(v)->kind == K_TRUE;
}

/* An integer, else 0. */
int64_t sdui_value_int(const sdui_value *v)
{
    return v && NODE(v)->kind == K_INT ? NODE(v)->u.i : 0;
}

/* A number as a double (an integer converted), else 0.0. */
double sdui_value_real(const sdui_value *v)
{
    if (!v)
        return 0.0;
    if (NODE(v)->kind == K_REAL)
        return NODE(v)->u.d;
    return NODE(v)->kind == K_INT ? (double)NODE(v)->u.i : 0.0;
}

/* A string's bytes and length, else NULL and 0. */
const char *sdui_value_string(const sdui_value *v, size_t *len)
{
    if (!v || NODE(v)->kind != K_STRING) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = NODE(v)->n;
    return NODE(v)->u.s;
}

/* Elements of an array or members of an object, else 0. */
size_t sdui_value_count(const sdui_value *v)
{
    if (!v)
        return 0;
    return NODE(v)->kind == K_ARRAY || NODE(v)->kind == K_OBJECT ? NODE(v)->n
                                                                 : 0;
}

/* Element i of an array: from its index, or the node i + 1 after it when
 * every element is a scalar; else NULL. */
const sdui_value *sdui_value_at(const sdui_value *v, size_t i)
{
    const node *nd = NODE(v);
    if (!v || nd->kind != K_ARRAY || i >= nd->n)
        return NULL;
    return VALUE(nd->u.index ? nd->u.index[i] : nd + 1 + i);
}

/* The member named key (NUL-terminated) of an object, else NULL: through
 * the index, or a scan over the members skipping each value's subtree. */
const sdui_value *sdui_value_get(const sdui_value *v, const char *key)
{
    const node *nd = NODE(v), *k;
    size_t i, len;
    if (!v || !key || nd->kind != K_OBJECT)
        return NULL;
    len = strlen(key);
    if (nd->flags & F_HASHED) {
        k = index_get(nd->u.table, nd, key, len, key_hash(nd, key, len));
        return k ? VALUE(k + k->size) : NULL;
    }
    k = nd + 1;
    for (i = 0; i < nd->n; i++, k = next_key(k))
        if (key_is(k, key, len))
            return VALUE(k + k->size);
    return NULL;
}

/* The member named key[0, n) of object obj, whose sdui__hash is hash
 * (value_tree.h): sdui_value_get without measuring or hashing the name,
 * for a caller that looks the same name up many times. */
const sdui_value *sdui__value_member(const sdui_value *obj, const char *key, size_t n,
                                     uint64_t hash)
{
    const node *nd = NODE(obj), *k;
    size_t i;
    assert(obj && nd->kind == K_OBJECT && key && !memchr(key, 0, n));
    if (nd->flags & F_HASHED) {
        k = index_get(nd->u.table, nd, key, n, key_hash_of(nd, hash));
        return k ? VALUE(k + k->size) : NULL;
    }
    k = nd + 1;
    for (i = 0; i < nd->n; i++, k = next_key(k))
        if (key_is(k, key, n))
            return VALUE(k + k->size);
    return NULL;
}

/* The first member's key at or after k that is not dead, or NULL at the
 * end of object o. */
static const node *live_key(const node *o, const node *k)
{
    const node *end = o + o->size;
    while (k < end && (k->flags & F_DEAD))
        k = next_key(k);
    return k < end ? k : NULL;
}

/* The member after it (the first when it is NULL) of an object, in
 * document order, or NULL at the end or when obj is not an object.  An
 * iterator is its member's key node. */
const void *sdui_value_next(const sdui_value *obj, const void *it)
{
    const node *o = NODE(obj);
    if (!obj || o->kind != K_OBJECT || o->n == 0)
        return NULL;
    if (!it)
        return live_key(o, o + 1);
    assert(NODE(it)->kind == K_KEY && NODE(it) > o && NODE(it) < o + o->size);
    return live_key(o, next_key(NODE(it)));
}

/* The key of a member iterator, NUL-terminated, and its length. */
const char *sdui_value_iter_key(const void *it, size_t *len)
{
    if (!it) {
        if (len)
            *len = 0;
        return NULL;
    }
    assert(NODE(it)->kind == K_KEY);
    if (len)
        *len = NODE(it)->n;
    return NODE(it)->u.s;
}

/* The value of a member iterator (its key's size leads to it). */
const sdui_value *sdui_value_iter_value(const void *it)
{
    if (!it)
        return NULL;
    assert(NODE(it)->kind == K_KEY);
    return VALUE(NODE(it) + NODE(it)->size);
}

/* 1 if a lookup in obj scans its members (value_tree.h). */
int sdui__tree_scans(const sdui_value *obj)
{
    assert(obj && NODE(obj)->kind == K_OBJECT);
    return !(NODE(obj)->flags & F_HASHED);
}
