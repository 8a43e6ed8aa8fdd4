/*
 * json_doc.c - any JSON document as a value tree (see json_doc.h).
 *
 * The text is first checked by the core's own validator, so grammar,
 * UTF-8, escape and depth faults are reported with the same offsets and
 * line:column as everywhere else; only then is the tree built.  A
 * document's values are jansson values, as a token's are, so the
 * sdui_value_* accessors of token.c read both.  A tree built without text
 * (json_build.c) becomes a document through the same constructor.
 *
 * The tree is built here from the validated text, value by value with
 * jansson's constructors, not by jansson's parser: that one reads decimals
 * with the C library's strtod in the process's locale, swapping the '.'
 * for the locale's decimal point, which gives wrong values while another
 * thread changes the locale and aborts the process (a failed assert) where
 * the decimal point is two bytes (ps_AF.UTF-8).  Decimals are read by the
 * core's locale-free strtod (number.c).  Everything else is as jansson's
 * json_loadb with JSON_DECODE_ANY | JSON_ALLOW_NUL built it, refusals
 * included, with its messages (quoting a refused token of up to 20 bytes),
 * at the first fault in document order, each placed just past the token: an integer outside the 64-bit range
 * ("too big integer", "too big negative integer"), a decimal that
 * overflows to an infinity ("real number overflow"; what underflows is 0
 * or subnormal), a NUL in a member name ("NUL byte in object key not
 * supported"), a value nested past jansson's limit, the top value at 1
 * ("maximum parsing depth reached"); a repeated member name keeps its
 * first place and its last value.  The build is iterative: the open
 * containers are a stack of their own, not the C stack.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"
#include "scan.h"
#include "sdui/json_doc.h"

/* jansson's nesting limit (its jansson_config.h says which it was built
 * with). */
#ifdef JSON_PARSER_MAX_DEPTH
#define DOC_MAX_DEPTH ((size_t)JSON_PARSER_MAX_DEPTH)
#else
#define DOC_MAX_DEPTH ((size_t)2048)
#endif

/* An open container, and for an object the name of the member whose value
 * comes next (decoded, in the builder's scratch). */
typedef struct frame {
    json_t *c;
    size_t key_at, key_len; /* in the scratch buffer */
} frame;

/* The builder's state. */
typedef struct builder {
    const char *s;
    size_t n, i;
    frame small[32], *stack; /* stack is small until it needs more */
    size_t depth, cap;
    char *scratch;           /* decoded strings and pending member names */
    size_t used, scratch_cap;
    sdui_error *err;
} builder;

/* A refusal of the token [start, end), placed just past it; the message
 * quotes a token of at most 20 bytes, as jansson's does. */
static sdui_status refuse(builder *b, size_t start, size_t end, const char *what)
{
    if (end - start <= 20)
        return sdui__fail_at(b->err, SDUI_JSON, b->s, b->n, end, "json document: %s near '%.*s'",
                             what, (int)(end - start), b->s + start);
    return sdui__fail_at(b->err, SDUI_JSON, b->s, b->n, end, "json document: %s", what);
}

/* Skips JSON white space. */
static void skip_ws(builder *b)
{
    while (b->i < b->n && (b->s[b->i] == ' ' || b->s[b->i] == '\t' ||
                           b->s[b->i] == '\n' || b->s[b->i] == '\r'))
        b->i++;
}

/* Room for n more bytes of scratch; 0 when memory runs out. */
static int scratch_room(builder *b, size_t n)
{
    if (b->scratch_cap - b->used >= n)
        return 1;
    size_t cap = b->scratch_cap ? b->scratch_cap : 256;
    while (cap - b->used < n) {
        if (cap > SIZE_MAX / 2)
            return 0;
        cap *= 2;
    }
    char *p = sdui_realloc(b->scratch, cap);
    if (!p)
        return 0;
    b->scratch = p;
    b->scratch_cap = cap;
    return 1;
}

/* Decodes the string whose opening quote is at b->i into the scratch at
 * b->used (not kept: the caller moves b->used on to keep it); moves b->i
 * past the closing quote.  -1 when memory runs out, else its length. */
static long long read_string(builder *b, size_t *at)
{
    size_t start = ++b->i, end = start;
    while (b->s[end] != '"')
        end += b->s[end] == '\\' ? 2 : 1; /* validated: the escape is whole */
    b->i = end + 1;
    if (!scratch_room(b, end - start + 1))
        return -1;
    *at = b->used;
    return (long long)sdui__unescape(b->s + start, end - start, b->scratch + b->used);
}

/* Reads the number at b->i as jansson tells an integer from a decimal. */
static sdui_status read_number(builder *b, json_t **out)
{
    size_t start = b->i, len;
    int decimal = 0;
    char small[64], *buf;
    sdui_status st = SDUI_OK;
    while (b->i < b->n) {
        char c = b->s[b->i];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+')
            b->i++;
        else if (c == '.' || c == 'e' || c == 'E') {
            decimal = 1;
            b->i++;
        } else
            break;
    }
    len = b->i - start;
    buf = len < sizeof small ? small : sdui_malloc(len + 1);
    if (!buf)
        return sdui__oom(b->err);
    memcpy(buf, b->s + start, len);
    buf[len] = '\0';
    errno = 0;
    if (!decimal) {
        long long v = strtoll(buf, NULL, 10);
        if (errno == ERANGE)
            st = refuse(b, start, b->i, v < 0 ? "too big negative integer" : "too big integer");
        else if (!(*out = json_integer(v)))
            st = sdui__oom(b->err);
    } else {
        double d = sdui__strtod(buf, NULL);
        if ((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE)
            st = refuse(b, start, b->i, "real number overflow");
        else if (!(*out = json_real(d)))
            st = sdui__oom(b->err);
    }
    if (buf != small)
        sdui_free(buf);
    return st;
}

/* Opens container c (taken over). */
static sdui_status push(builder *b, json_t *c)
{
    if (!c)
        return sdui__oom(b->err);
    if (b->depth == b->cap) {
        size_t cap = b->cap * 2;
        frame *f = sdui_malloc(cap * sizeof *f);
        if (!f) {
            json_decref(c);
            return sdui__oom(b->err);
        }
        memcpy(f, b->stack, b->depth * sizeof *f);
        if (b->stack != b->small)
            sdui_free(b->stack);
        b->stack = f;
        b->cap = cap;
    }
    b->stack[b->depth].c = c;
    b->stack[b->depth].key_at = b->stack[b->depth].key_len = 0;
    b->depth++;
    return SDUI_OK;
}

/* Reads the name of the member at b->i (after '{' or ',') and its ':'. */
static sdui_status read_key(builder *b)
{
    size_t at, start;
    long long len;
    skip_ws(b);
    assert(b->i < b->n && b->s[b->i] == '"');
    start = b->i;
    len = read_string(b, &at);
    if (len < 0)
        return sdui__oom(b->err);
    if (memchr(b->scratch + at, '\0', (size_t)len))
        return refuse(b, start, b->i, "NUL byte in object key not supported");
    b->stack[b->depth - 1].key_at = at;
    b->stack[b->depth - 1].key_len = (size_t)len;
    b->used = at + (size_t)len;
    skip_ws(b);
    assert(b->s[b->i] == ':');
    b->i++;
    return SDUI_OK;
}

/* Builds the tree of the validated text into *root. */
static sdui_status build(builder *b, json_t **root)
{
    sdui_status st;
    json_t *v = NULL;
    *root = NULL;
    for (;;) {
        /* A value starts here. */
        size_t start;
        skip_ws(b);
        assert(b->i < b->n);
        start = b->i;
        switch (b->s[b->i]) {
        case '[':
        case '{': {
            int object = b->s[b->i] == '{';
            b->i++;
            if (b->depth + 1 > DOC_MAX_DEPTH)
                return refuse(b, start, b->i, "maximum parsing depth reached");
            st = push(b, object ? json_object() : json_array());
            if (st != SDUI_OK)
                return st;
            skip_ws(b);
            if (b->s[b->i] == (object ? '}' : ']')) {
                b->i++;
                v = b->stack[--b->depth].c;
                break;
            }
            if (object && (st = read_key(b)) != SDUI_OK)
                return st;
            continue;
        }
        case '"': {
            size_t at;
            long long len = read_string(b, &at);
            if (len < 0)
                return sdui__oom(b->err);
            v = json_stringn_nocheck(b->scratch + at, (size_t)len);
            if (!v)
                return sdui__oom(b->err);
            break;
        }
        case 't': v = json_true(); b->i += 4; break;
        case 'f': v = json_false(); b->i += 5; break;
        case 'n': v = json_null(); b->i += 4; break;
        default:
            if ((st = read_number(b, &v)) != SDUI_OK)
                return st;
            break;
        }
        if (b->depth + 1 > DOC_MAX_DEPTH) {
            json_decref(v);
            return refuse(b, start, b->i, "maximum parsing depth reached");
        }
        /* v is whole: into its container, closing those that end here. */
        for (;;) {
            frame *top;
            if (b->depth == 0) {
                *root = v;
                return SDUI_OK;
            }
            top = &b->stack[b->depth - 1];
            if (json_is_array(top->c)) {
                if (json_array_append_new(top->c, v) != 0)
                    return sdui__oom(b->err);
            } else {
                int rc = json_object_setn_new_nocheck(top->c, b->scratch + top->key_at,
                                                      top->key_len, v);
                b->used = top->key_at;
                if (rc != 0)
                    return sdui__oom(b->err);
            }
            skip_ws(b);
            if (b->s[b->i] == ',') {
                b->i++;
                if (json_is_object(top->c) && (st = read_key(b)) != SDUI_OK)
                    return st;
                break;
            }
            b->i++; /* ']' or '}' */
            v = b->stack[--b->depth].c;
        }
    }
}

struct sdui_json_doc {
    json_t *root;
};

/* Validates, then builds the tree (json_doc.h). */
sdui_status sdui_json_doc_parse(const char *text, size_t len,
                                unsigned max_depth, sdui_json_doc **out,
                                sdui_error *err)
{
    json_t *root = NULL;
    builder b;
    sdui_status st;
    unsigned long failures;

    if (!out || (!text && len > 0))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "json document: NULL argument");
    *out = NULL;
    if (!text)
        text = "";
    st = sdui_json_validate(text, len, max_depth, err);
    if (st != SDUI_OK)
        return st;
    failures = sdui__alloc_failures();
    memset(&b, 0, sizeof b);
    b.s = text;
    b.n = len;
    b.stack = b.small;
    b.cap = sizeof b.small / sizeof b.small[0];
    b.err = err;
    st = build(&b, &root);
    if (st == SDUI_OK && sdui__alloc_failures() != failures)
        st = sdui__oom(err); /* jansson hides some failed allocations */
    /* Containers still open (after a refusal) are each held only here. */
    while (b.depth > 0)
        json_decref(b.stack[--b.depth].c);
    if (b.stack != b.small)
        sdui_free(b.stack);
    sdui_free(b.scratch);
    if (st != SDUI_OK) {
        json_decref(root);
        return st;
    }
    return sdui__json_doc_adopt(root, out, err);
}

/* A document around a tree made elsewhere, taken over (internal.h). */
sdui_status sdui__json_doc_adopt(json_t *root, sdui_json_doc **out, sdui_error *err)
{
    sdui_json_doc *doc;
    assert(root && out);
    *out = NULL;
    doc = sdui_malloc(sizeof *doc);
    if (!doc) {
        json_decref(root);
        return sdui__oom(err);
    }
    doc->root = root;
    *out = doc;
    return SDUI_OK;
}

/* The top-level value (json_doc.h). */
const sdui_value *sdui_json_doc_root(const sdui_json_doc *doc)
{
    assert(doc);
    return (const sdui_value *)doc->root;
}

/* Releases the tree and the document (json_doc.h). */
void sdui_json_doc_free(sdui_json_doc *doc)
{
    if (!doc)
        return;
    json_decref(doc->root);
    sdui_free(doc);
}
