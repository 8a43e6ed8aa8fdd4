/*
 * fuzz_json_doc.c - libFuzzer harness for sdui_json_doc_parse, any JSON
 * document read into a value tree (json_doc.h).
 *
 * Each input is parsed twice: with the default depth (128) and with the
 * value of its first byte as max_depth (0 to 255).  A parse that succeeds
 * is walked whole through the sdui_value_* accessors of value.h, and these
 * must hold:
 *   - err is clear, the root is never NULL and its type is the one the
 *     text's first non-blank byte opens;
 *   - sdui_json_validate agrees the text is valid at that depth, and the
 *     tree is no deeper than max_depth (a scalar is level 0);
 *   - an array's count matches its elements (at(count) is NULL); an
 *     object's count matches its iteration, each key is NUL-terminated at
 *     its length, has no NUL of its own, is valid UTF-8, is met once (a
 *     repeated name keeps one member) and sdui_value_get finds its value;
 *   - a string is NUL-terminated at its length and valid UTF-8;
 *   - a scalar answers no element, member or iteration; an integer reads
 *     as the same double; a real is finite;
 *   - every value takes at least one byte of the input, and the strings
 *     and keys together no more bytes than the input;
 *   - the tree fed to a builder (json_build.h) comes back the same tree,
 *     member order and number kinds included (the builder's layout and
 *     the parser's are one).
 * A parse that fails returns no document and fills err (status as
 * returned, a message, offset -1 or within the input).  Where
 * sdui_json_validate also fails, the two error records are the same;
 * where it accepts the text, the document was refused by the tree
 * builder for one of its known limits (an integer past 64 bits, a real
 * past the double range, a NUL in a member name), reported as SDUI_JSON.
 * The two depths must agree: a tree of depth D parses exactly at every
 * max_depth >= D and fails with SDUI_LIMIT below.
 * And each outcome is jansson's (Tests/C/json_oracle.h, oracle_check_doc):
 * a document the core reads, jansson reads into an equal tree (decimals
 * bit for bit, members in the same order, a repeated name at its first
 * place with its last value); a document the core refuses, jansson
 * refuses, in the same words at the same place when the refusal is the
 * tree's, except for the documented differences listed in one place,
 * json_oracle.h's table (here: the scan's max_depth, and a raw NUL byte
 * that jansson takes for the end of the text).
 * A broken invariant aborts, which libFuzzer reports as a crash.
 *
 * Seeds: Tests/Fuzz/seeds/json_doc/ (repeated names, deep nesting, big
 * integers, \u0000 in strings and names, every top-level type).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"
#include "../C/json_oracle.h"
#include "../C/value_eq.h"
#include "../C/value_feed.h"

/* The fixed depth of the first parse. */
#define FIXED_DEPTH SDUI_DEFAULT_MAX_DEPTH

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_json_doc: invariant broken at line %d: %s\n", line,
            what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* What a walk of a tree counted. */
typedef struct walk_totals {
    size_t values;       /* every value, containers included            */
    size_t string_bytes; /* bytes of the strings and the member names   */
    unsigned depth;      /* deepest level: a scalar 0, a container 1... */
} walk_totals;

/* 1 if s[0, len) is valid UTF-8 (RFC 3629: no overlongs, no surrogates,
 * nothing past U+10FFFF). */
static int utf8_valid(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i], need, min, cp, k;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
            min = 0x80;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            min = 0x800;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            min = 0x10000;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (len - i <= need)
            return 0;
        for (k = 1; k <= need; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += need + 1;
    }
    return 1;
}

/* Checks the accessors of a value that is neither array nor object. */
static void check_scalar(const sdui_value *v)
{
    size_t len = 7;
    REQUIRE(sdui_value_count(v) == 0);
    REQUIRE(sdui_value_at(v, 0) == NULL);
    REQUIRE(sdui_value_get(v, "") == NULL);
    REQUIRE(sdui_value_next(v, NULL) == NULL);
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_INT:
        REQUIRE(sdui_value_real(v) == (double)sdui_value_int(v));
        REQUIRE(sdui_value_bool(v) == 0);
        REQUIRE(sdui_value_string(v, &len) == NULL && len == 0);
        break;
    case SDUI_VALUE_REAL:
        REQUIRE(isfinite(sdui_value_real(v)));
        REQUIRE(sdui_value_int(v) == 0);
        REQUIRE(sdui_value_string(v, &len) == NULL && len == 0);
        break;
    case SDUI_VALUE_BOOL:
        REQUIRE(sdui_value_bool(v) == 0 || sdui_value_bool(v) == 1);
        REQUIRE(sdui_value_int(v) == 0 && sdui_value_real(v) == 0.0);
        break;
    case SDUI_VALUE_NULL:
        REQUIRE(sdui_value_bool(v) == 0 && sdui_value_int(v) == 0);
        REQUIRE(sdui_value_string(v, &len) == NULL && len == 0);
        break;
    default:
        REQUIRE(!"check_scalar: not a scalar");
    }
}

/* Checks an object's members against each other and walks each value. */
static void walk_object(const sdui_value *v, unsigned level, walk_totals *t);

/* Walks a value at level (0 for the root's own level) through every
 * accessor, adding to t. */
static void walk(const sdui_value *v, unsigned level, walk_totals *t)
{
    size_t i, n, len = 0;
    const char *s;
    REQUIRE(v != NULL);
    t->values++;
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_STRING:
        s = sdui_value_string(v, &len);
        REQUIRE(s != NULL);
        REQUIRE(s[len] == '\0');
        REQUIRE(utf8_valid((const unsigned char *)s, len));
        REQUIRE(sdui_value_string(v, NULL) == s);
        REQUIRE(sdui_value_count(v) == 0 && sdui_value_at(v, 0) == NULL);
        REQUIRE(sdui_value_next(v, NULL) == NULL);
        REQUIRE(sdui_value_int(v) == 0 && sdui_value_bool(v) == 0);
        t->string_bytes += len;
        if (level > t->depth)
            t->depth = level;
        break;
    case SDUI_VALUE_ARRAY:
        if (level + 1 > t->depth)
            t->depth = level + 1;
        n = sdui_value_count(v);
        for (i = 0; i < n; i++)
            walk(sdui_value_at(v, i), level + 1, t);
        REQUIRE(sdui_value_at(v, n) == NULL);
        REQUIRE(sdui_value_next(v, NULL) == NULL);
        REQUIRE(sdui_value_get(v, "") == NULL);
        REQUIRE(sdui_value_string(v, NULL) == NULL);
        break;
    case SDUI_VALUE_OBJECT:
        if (level + 1 > t->depth)
            t->depth = level + 1;
        walk_object(v, level, t);
        break;
    default:
        check_scalar(v);
        if (level > t->depth)
            t->depth = level;
        break;
    }
}

/* An object at level: counts, unique keys, lookups agree; then its values
 * one level down. */
static void walk_object(const sdui_value *v, unsigned level, walk_totals *t)
{
    size_t n = 0, count = sdui_value_count(v), len;
    const void *it;
    const char **keys = malloc((count ? count : 1) * sizeof *keys);
    size_t i;
    REQUIRE(keys != NULL);
    REQUIRE(sdui_value_at(v, 0) == NULL);
    REQUIRE(sdui_value_string(v, NULL) == NULL);
    for (it = sdui_value_next(v, NULL); it; it = sdui_value_next(v, it)) {
        const char *key = sdui_value_iter_key(it, &len);
        const sdui_value *val = sdui_value_iter_value(it);
        REQUIRE(n < count);
        REQUIRE(key != NULL && val != NULL);
        REQUIRE(key[len] == '\0' && strlen(key) == len);
        REQUIRE(utf8_valid((const unsigned char *)key, len));
        REQUIRE(sdui_value_get(v, key) == val);
        /* A repeated name keeps one member: each key is met once. */
        for (i = 0; i < n; i++)
            REQUIRE(strcmp(keys[i], key) != 0);
        keys[n++] = key;
        t->string_bytes += len;
        walk(val, level + 1, t);
    }
    REQUIRE(n == count);
    free(keys);
}

/* Copies doc's tree through a builder and checks the copy is the same
 * tree (the builder's nesting bound is the default: deeper trees are
 * refused there, as json_build.h says). */
static void check_copy(const sdui_json_doc *doc, unsigned depth)
{
    sdui_json_builder *b = NULL;
    sdui_json_doc *copy = NULL;
    sdui_error err;
    sdui_status st;
    if (sdui_json_builder_open(&b, &err) != SDUI_OK)
        return; /* out of memory */
    value_feed(b, sdui_json_doc_root(doc));
    st = sdui_json_builder_finish(b, &copy, &err);
    sdui_json_builder_free(b);
    if (depth > SDUI_JSON_BUILD_MAX_DEPTH) {
        REQUIRE(st == SDUI_LIMIT);
        return;
    }
    REQUIRE(st == SDUI_OK || st == SDUI_OOM);
    if (st == SDUI_OK)
        REQUIRE(value_same(sdui_json_doc_root(doc), sdui_json_doc_root(copy)));
    sdui_json_doc_free(copy);
}

/* The value type the first non-blank byte of text opens, or -1. */
static int type_opened(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
                       text[i] == '\r'))
        i++;
    if (i == len)
        return -1;
    switch (text[i]) {
    case '{': return SDUI_VALUE_OBJECT;
    case '[': return SDUI_VALUE_ARRAY;
    case '"': return SDUI_VALUE_STRING;
    case 't':
    case 'f': return SDUI_VALUE_BOOL;
    case 'n': return SDUI_VALUE_NULL;
    default: return -2; /* a number: INT or REAL */
    }
}

/* 1 if a refusal of text that validates is one of the tree builder's
 * known limits (json_doc.c). */
static int builder_limit(const char *message)
{
    return strstr(message, "too big") != NULL ||
           strstr(message, "overflow") != NULL ||
           strstr(message, "NUL byte in object key") != NULL;
}

/*
 * Parses text at max_depth and checks the outcome (see the top).  Returns
 * the status; on SDUI_OK *depth receives the tree's depth.
 */
static sdui_status parse_and_check(const char *text, size_t len,
                                   unsigned max_depth, unsigned *depth)
{
    sdui_json_doc *doc = (sdui_json_doc *)&doc; /* must be overwritten */
    sdui_error err, verr;
    sdui_status st, vst;
    char why[600];

    memset(&err, 0x5A, sizeof err);
    st = sdui_json_doc_parse(text, len, max_depth, &doc, &err);
    vst = sdui_json_validate(text, len, max_depth, &verr);
    REQUIRE(vst == verr.status);
    if (!oracle_check_doc(text, len, max_depth, st, st == SDUI_OK ? doc : NULL, &err, why,
                          sizeof why)) {
        fprintf(stderr, "fuzz_json_doc: against jansson: %s\n", why);
        REQUIRE(!"the core and jansson differ beyond the documented differences");
    }
    if (st == SDUI_OK) {
        const sdui_value *root;
        walk_totals t;
        int opened = type_opened(text, len);
        REQUIRE(doc != NULL);
        REQUIRE(err.status == SDUI_OK && err.message[0] == '\0');
        REQUIRE(vst == SDUI_OK);
        root = sdui_json_doc_root(doc);
        REQUIRE(root != NULL);
        if (opened == -2)
            REQUIRE(sdui_value_type_of(root) == SDUI_VALUE_INT ||
                    sdui_value_type_of(root) == SDUI_VALUE_REAL);
        else
            REQUIRE((int)sdui_value_type_of(root) == opened);
        memset(&t, 0, sizeof t);
        walk(root, 0, &t);
        REQUIRE(t.depth <= max_depth);
        REQUIRE(t.values <= len);
        REQUIRE(t.string_bytes <= len);
        *depth = t.depth;
        check_copy(doc, t.depth);
        sdui_json_doc_free(doc);
        return st;
    }
    REQUIRE(doc == NULL);
    REQUIRE(err.status == st);
    REQUIRE(st == SDUI_JSON || st == SDUI_LIMIT || st == SDUI_OOM);
    REQUIRE(memchr(err.message, '\0', sizeof err.message) != NULL);
    REQUIRE(err.message[0] != '\0');
    REQUIRE(err.offset == -1 ||
            (err.offset >= 0 && (unsigned long long)err.offset <= len));
    if (vst != SDUI_OK) {
        /* The validator's fault, reported as the validator reports it. */
        REQUIRE(st == vst);
        REQUIRE(err.offset == verr.offset && err.line == verr.line &&
                err.column == verr.column);
        REQUIRE(strcmp(err.message, verr.message) == 0);
    } else if (st != SDUI_OOM) {
        /* Valid text the tree builder refused. */
        if (st != SDUI_JSON || !builder_limit(err.message)) {
            fprintf(stderr, "valid text refused: %s \"%s\"\n",
                    sdui_status_name(st), err.message);
            REQUIRE(!"valid text refused for no known limit");
        }
    }
    return st;
}

/* libFuzzer entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    unsigned depth = 0, depth2 = 0, own = size ? data[0] : FIXED_DEPTH;
    sdui_status st = parse_and_check(text, size, FIXED_DEPTH, &depth);
    sdui_status st2 = parse_and_check(text, size, own, &depth2);

    /* The two depths agree (OOM aside). */
    if (st == SDUI_OOM || st2 == SDUI_OOM)
        return 0;
    if (st == SDUI_OK) {
        REQUIRE(st2 == (own >= depth ? SDUI_OK : SDUI_LIMIT));
        if (st2 == SDUI_OK)
            REQUIRE(depth2 == depth);
    }
    if (st2 == SDUI_OK)
        REQUIRE(st == (FIXED_DEPTH >= depth2 ? SDUI_OK : SDUI_LIMIT));
    if (st == SDUI_LIMIT && own <= FIXED_DEPTH)
        REQUIRE(st2 == SDUI_LIMIT);
    return 0;
}
