/*
 * fuzz_matches.c - differential libFuzzer harness for matches() of the
 * expression language (expr.h, docs/expressions.md "Regular expressions of
 * matches") against PCRE2, the reference engine.
 *
 * The input is a pattern and subjects: the bytes before the first 0xFF are
 * the pattern, the rest the subjects, separated by 0xFE (bytes that never
 * occur in UTF-8, so neither side needs escapes).  Two more subjects are
 * made from the pattern itself: its bytes with the regex punctuation taken
 * out (so literal runs of the pattern are tried), and that twice.
 *
 * The pattern is read a second time, here, by a small translator written
 * from the documented grammar (not from csrc/expr_regex.c): it decides whether
 * the pattern is valid, and writes the PCRE2 pattern of the same meaning,
 * with nothing left to PCRE2's own reading of a construct: every literal
 * and class member as \x{H}, . as [^\n], ^ and $ as \A and \z, \d \w \s as
 * their ASCII classes, groups as (?:...), counts as {m}, {m,}, {m,n}.  So
 * the languages agree on every pattern the translator accepts.
 *
 * For each subject (valid UTF-8; others are skipped, as no string of the
 * language holds them) these must hold, or the harness aborts:
 *   - matches(s, p) fails with a value error exactly when the translator
 *     refuses the pattern (but for a program past 4096 instructions, which
 *     the translator does not size);
 *   - PCRE2 (PCRE2_UTF) compiles the translation (but for its own size
 *     and nesting limits);
 *   - where both answer (matches() within its steps, PCRE2 within its match
 *     limit), matches() is true exactly when PCRE2 finds a match anywhere
 *     in the subject.
 *
 * Seeds: the patterns and subjects of Tests/ExprVectors/regex.json and
 * Tests/Fuzz/seeds/matches/, written by Tests/Fuzz/run.sh, with a
 * dictionary of the syntax.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"

/* The most subjects tried for one pattern. */
#define MAX_SUBJECTS 8

static sdui_expr *prog;
static pcre2_compile_context *ccontext;
static pcre2_match_context *mcontext;

/* Aborts with the pattern and what failed. */
static void require(int ok, const char *what, const uint8_t *p, size_t pn,
                    const uint8_t *s, size_t sn, const char *detail)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_matches: %s\n  pattern (%zu bytes): ", what, pn);
    for (size_t i = 0; i < pn; i++)
        fprintf(stderr, p[i] >= 0x20 && p[i] < 0x7F ? "%c" : "\\x%02x", p[i]);
    fprintf(stderr, "\n  subject (%zu bytes): ", sn);
    for (size_t i = 0; s && i < sn && i < 300; i++)
        fprintf(stderr, s[i] >= 0x20 && s[i] < 0x7F ? "%c" : "\\x%02x", s[i]);
    fprintf(stderr, "\n  %s\n", detail ? detail : "");
    abort();
}

/* ---- The translator: the documented grammar, written to PCRE2. */

typedef struct tr {
    const uint8_t *p;
    size_t n, pos;
    char *out;
    size_t on, ocap;
    int depth;
} tr;

/* Appends text to the translation. */
static void tr_put(tr *t, const char *s)
{
    size_t k = strlen(s);
    if (t->on + k + 1 > t->ocap) {
        t->ocap = (t->on + k + 1) * 2;
        t->out = realloc(t->out, t->ocap);
        if (!t->out)
            abort();
    }
    memcpy(t->out + t->on, s, k + 1);
    t->on += k;
}

/* Appends one character as \x{H}. */
static void tr_char(tr *t, long cp)
{
    char b[24];
    snprintf(b, sizeof b, "\\x{%lx}", cp);
    tr_put(t, b);
}

/* The scalar value of the UTF-8 sequence at the cursor (the pattern is
 * valid UTF-8: the harness checked it), moving past it. */
static long tr_utf8(tr *t)
{
    const uint8_t *u = t->p + t->pos;
    long cp;
    int len;
    if (u[0] < 0x80) { cp = u[0]; len = 1; }
    else if (u[0] < 0xE0) { cp = u[0] & 0x1F; len = 2; }
    else if (u[0] < 0xF0) { cp = u[0] & 0x0F; len = 3; }
    else { cp = u[0] & 0x07; len = 4; }
    for (int i = 1; i < len; i++)
        cp = cp << 6 | (u[i] & 0x3F);
    t->pos += (size_t)len;
    return cp;
}

/* The class body of \d, \w or \s (c), without brackets. */
static const char *tr_short(char c)
{
    return c == 'd' ? "\\x{30}-\\x{39}"
         : c == 's' ? "\\x{9}-\\x{d}\\x{20}"
         : "\\x{30}-\\x{39}\\x{41}-\\x{5a}\\x{61}-\\x{7a}\\x{5f}";
}

/* 1 for a letter, digit or '_'. */
static int word_byte(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* One member of a class: a character (its value) or a shorthand (-2,
 * written out); -1 when the pattern ends. */
static long tr_member(tr *t)
{
    if (t->pos >= t->n)
        return -1;
    if (t->p[t->pos] != '\\')
        return tr_utf8(t);
    t->pos++;
    if (t->pos >= t->n)
        return -1;
    uint8_t c = t->p[t->pos];
    if (c == 'd' || c == 'w' || c == 's') {
        t->pos++;
        tr_put(t, tr_short((char)c));
        return -2;
    }
    if (c == 'n' || c == 't' || c == 'r') {
        t->pos++;
        return c == 'n' ? '\n' : c == 't' ? '\t' : '\r';
    }
    return tr_utf8(t);
}

/* A class after its '['; 0 if it is malformed. */
static int tr_class(tr *t)
{
    int any = 0;
    tr_put(t, "[");
    if (t->pos < t->n && t->p[t->pos] == '^') {
        tr_put(t, "^");
        t->pos++;
    }
    for (;;) {
        if (t->pos >= t->n)
            return 0;
        if (t->p[t->pos] == ']' && any) {
            t->pos++;
            tr_put(t, "]");
            return 1;
        }
        any = 1;
        long lo = tr_member(t);
        if (lo == -1)
            return 0;
        if (lo == -2)
            continue;
        if (t->pos + 1 < t->n && t->p[t->pos] == '-' && t->p[t->pos + 1] != ']') {
            t->pos++;
            /* A range's end: a character; a shorthand cannot end one. */
            size_t mark = t->on;
            long hi = tr_member(t);
            if (hi < 0 || hi < lo)
                return 0;
            t->on = mark;
            tr_char(t, lo);
            tr_put(t, "-");
            tr_char(t, hi);
        } else {
            tr_char(t, lo);
        }
    }
}

static int tr_alt(tr *t);

/* A count of {m,n} at the cursor (digits, at most 1000) into *v; 0 when
 * there is none or it is too large. */
static int tr_count(tr *t, long *v)
{
    size_t start = t->pos;
    *v = 0;
    while (t->pos < t->n && t->p[t->pos] >= '0' && t->p[t->pos] <= '9') {
        *v = *v * 10 + (t->p[t->pos] - '0');
        if (*v > 1000)
            return 0;
        t->pos++;
    }
    return t->pos > start;
}

/* A piece: an atom and its quantifier; 0 if it is malformed. */
static int tr_piece(tr *t)
{
    uint8_t c = t->p[t->pos];
    if (c == '(') {
        t->pos++;
        if (++t->depth > 64)
            return 0;
        tr_put(t, "(?:");
        if (!tr_alt(t))
            return 0;
        t->depth--;
        if (t->pos >= t->n || t->p[t->pos] != ')')
            return 0;
        t->pos++;
        tr_put(t, ")");
    } else if (c == '[') {
        t->pos++;
        if (!tr_class(t))
            return 0;
    } else if (c == '.') {
        t->pos++;
        tr_put(t, "[^\\x{a}]");
    } else if (c == '^' || c == '$') {
        /* An anchor takes no quantifier. */
        t->pos++;
        tr_put(t, c == '^' ? "\\A" : "\\z");
        return 1;
    } else if (c == '*' || c == '+' || c == '?' || c == '{') {
        return 0;
    } else if (c == '\\') {
        t->pos++;
        if (t->pos >= t->n)
            return 0;
        uint8_t d = t->p[t->pos];
        if (d == 'd' || d == 'w' || d == 's') {
            t->pos++;
            tr_put(t, "[");
            tr_put(t, tr_short((char)d));
            tr_put(t, "]");
        } else if (d == 'n' || d == 't' || d == 'r') {
            t->pos++;
            tr_char(t, d == 'n' ? '\n' : d == 't' ? '\t' : '\r');
        } else if (word_byte(d)) {
            return 0;
        } else {
            tr_char(t, tr_utf8(t));
        }
    } else {
        /* Any other character stands for itself (']' and '}' too). */
        tr_char(t, tr_utf8(t));
    }
    if (t->pos >= t->n)
        return 1;
    c = t->p[t->pos];
    if (c == '*' || c == '+' || c == '?') {
        char q[2] = {(char)c, 0};
        t->pos++;
        tr_put(t, q);
    } else if (c == '{') {
        long m, n = -1;
        char q[48];
        t->pos++;
        if (!tr_count(t, &m))
            return 0;
        if (t->pos < t->n && t->p[t->pos] == ',') {
            t->pos++;
            if (t->pos < t->n && t->p[t->pos] != '}' && !tr_count(t, &n))
                return 0;
            if (n >= 0 && n < m)
                return 0;
            if (n >= 0)
                snprintf(q, sizeof q, "{%ld,%ld}", m, n);
            else
                snprintf(q, sizeof q, "{%ld,}", m);
        } else {
            snprintf(q, sizeof q, "{%ld}", m);
        }
        if (t->pos >= t->n || t->p[t->pos] != '}')
            return 0;
        t->pos++;
        tr_put(t, q);
    } else {
        return 1;
    }
    if (t->pos < t->n) {
        c = t->p[t->pos];
        if (c == '*' || c == '+' || c == '?' || c == '{')
            return 0;
    }
    return 1;
}

/* Alternatives of concatenations up to ')' or the end; 0 if malformed. */
static int tr_alt(tr *t)
{
    for (;;) {
        while (t->pos < t->n && t->p[t->pos] != '|' && t->p[t->pos] != ')')
            if (!tr_piece(t))
                return 0;
        if (t->pos >= t->n || t->p[t->pos] != '|')
            return 1;
        t->pos++;
        tr_put(t, "|");
    }
}

/* The PCRE2 pattern of p[0,n) (the caller frees it), or NULL when the
 * documented grammar refuses p.  It starts with an empty group, which
 * matches the same strings and keeps PCRE2 from anchoring the pattern
 * when it compiles it: PCRE2 10.42 anchors a pattern that starts with a
 * group skipped by {0} whose first alternative is empty and another
 * begins with \A, as (?:|\Aa){0}c, and then misses the c of "ac"
 * (seed matches/pcre2-anchors-a-skipped-group). */
static char *translate(const uint8_t *p, size_t n)
{
    tr t = {p, n, 0, NULL, 0, 0, 0};
    tr_put(&t, "(?:)");
    if (!tr_alt(&t) || t.pos < t.n) {
        free(t.out);
        return NULL;
    }
    return t.out;
}

/* ---- The harness. */

/* 1 if s[0,n) is UTF-8 the core accepts. */
static int valid_utf8(const uint8_t *s, size_t n)
{
    sdui_json_builder *b = NULL;
    sdui_json_doc *doc = NULL;
    sdui_error err;
    int ok;
    if (sdui_json_builder_open(&b, &err) != SDUI_OK)
        abort();
    ok = sdui_json_builder_string(b, (const char *)s, n) == SDUI_OK &&
         sdui_json_builder_finish(b, &doc, &err) == SDUI_OK;
    sdui_json_builder_free(b);
    sdui_json_doc_free(doc);
    return ok;
}

/* The lookup: members of the data object. */
static const sdui_value *lookup(void *ctx, const char *name, size_t len)
{
    (void)len;
    return sdui_value_get((const sdui_value *)ctx, name);
}

/* matches(s, p) through the language: its status, *hit the answer and
 * err the error. */
static sdui_status ours(const uint8_t *p, size_t pn, const uint8_t *s, size_t sn, int *hit,
                        sdui_error *err)
{
    sdui_json_builder *b = NULL;
    sdui_json_doc *doc = NULL;
    char *json = NULL;
    sdui_status st;
    if (sdui_json_builder_open(&b, err) != SDUI_OK)
        abort();
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "s", 1);
    sdui_json_builder_string(b, (const char *)s, sn);
    sdui_json_builder_key(b, "p", 1);
    sdui_json_builder_string(b, (const char *)p, pn);
    sdui_json_builder_end_object(b);
    st = sdui_json_builder_finish(b, &doc, err);
    sdui_json_builder_free(b);
    if (st != SDUI_OK)
        abort(); /* both are valid UTF-8: checked by the caller */
    st = sdui_expr_eval_json(prog, lookup, (void *)sdui_json_doc_root(doc), &json, NULL, err);
    if (st == SDUI_OK)
        *hit = !strcmp(json, "true");
    sdui_free(json);
    sdui_json_doc_free(doc);
    return st;
}

/* Compiles "matches(s, p)" once; sets up PCRE2. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sdui_error err;
    (void)argc;
    (void)argv;
    if (sdui_expr_compile("matches(s, p)", 13, &prog, &err) != SDUI_OK)
        abort();
    ccontext = pcre2_compile_context_create(NULL);
    mcontext = pcre2_match_context_create(NULL);
    pcre2_set_newline(ccontext, PCRE2_NEWLINE_LF);
    pcre2_set_match_limit(mcontext, 200000);
    pcre2_set_depth_limit(mcontext, 10000);
    return 0;
}

/* Appends the pattern's bytes without the regex punctuation to *out. */
static size_t literal_run(const uint8_t *p, size_t n, uint8_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr(".[]()|*+?^${}\\", p[i]) || p[i] == 0)
            out[k++] = p[i];
    return k;
}

/* One input: a pattern, 0xFF, subjects separated by 0xFE. */
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    const uint8_t *sep = memchr(bytes, 0xFF, size);
    const uint8_t *p = bytes, *subj[MAX_SUBJECTS];
    size_t pn = sep ? (size_t)(sep - bytes) : size, sl[MAX_SUBJECTS], ns = 0;
    uint8_t *lit, *lit2;
    char *pat;
    pcre2_code *re = NULL;
    pcre2_match_data *md = NULL;
    int refused = 0;

    if (pn > 1024 || !valid_utf8(p, pn))
        return 0;
    /* The subjects: those given, then the pattern's literal runs. */
    if (sep) {
        const uint8_t *s = sep + 1, *end = bytes + size;
        while (ns < MAX_SUBJECTS - 2) {
            const uint8_t *e = memchr(s, 0xFE, (size_t)(end - s));
            subj[ns] = s;
            sl[ns++] = (size_t)((e ? e : end) - s);
            if (!e)
                break;
            s = e + 1;
        }
    }
    lit = malloc(2 * pn + 1);
    lit2 = malloc(2 * pn + 1);
    if (!lit || !lit2)
        abort();
    sl[ns] = literal_run(p, pn, lit);
    subj[ns++] = lit;
    memcpy(lit2, lit, sl[ns - 1]);
    memcpy(lit2 + sl[ns - 1], lit, sl[ns - 1]);
    sl[ns] = 2 * sl[ns - 1];
    subj[ns++] = lit2;

    pat = translate(p, pn);
    if (pat) {
        int code;
        PCRE2_SIZE off;
        re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &off,
                           ccontext);
        if (!re) {
            char msg[256];
            PCRE2_UCHAR buf[200];
            pcre2_get_error_message(code, buf, sizeof buf);
            snprintf(msg, sizeof msg, "PCRE2: %s at %zu of %.120s", (char *)buf, (size_t)off, pat);
            /* PCRE2's own bounds are not the language's. */
            require(code == PCRE2_ERROR_PATTERN_TOO_LARGE ||
                    code == PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP ||
                    code == PCRE2_ERROR_PATTERN_TOO_COMPLICATED,
                    "PCRE2 refuses the translation", p, pn, NULL, 0, msg);
            refused = 1;
        } else {
            md = pcre2_match_data_create_from_pattern(re, NULL);
        }
    }
    for (size_t k = 0; k < ns; k++) {
        sdui_error err;
        int hit = 0, rc;
        sdui_status st;
        if (!valid_utf8(subj[k], sl[k]))
            continue;
        st = ours(p, pn, subj[k], sl[k], &hit, &err);
        if (st == SDUI_LIMIT)
            continue; /* past the steps or the working memory */
        if (st == SDUI_EXPR_VALUE) {
            /* A program past its bound is the language's own limit. */
            if (strstr(err.message, "program longer than"))
                break;
            require(pat == NULL, "matches() refuses a pattern the grammar accepts", p, pn,
                    subj[k], sl[k], err.message);
            break;
        }
        require(st == SDUI_OK, "matches() failed", p, pn, subj[k], sl[k], err.message);
        require(pat != NULL, "matches() accepts a pattern the grammar refuses", p, pn,
                subj[k], sl[k], NULL);
        if (refused)
            break;
        rc = pcre2_match(re, (PCRE2_SPTR)subj[k], sl[k], 0, 0, md, mcontext);
        if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
            rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_NOMEMORY)
            continue;
        require(rc >= 0 || rc == PCRE2_ERROR_NOMATCH, "PCRE2 failed", p, pn, subj[k], sl[k],
                pat);
        require((rc >= 0) == hit, hit ? "matches() is true, PCRE2 finds no match"
                                      : "matches() is false, PCRE2 finds a match",
                p, pn, subj[k], sl[k], pat);
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    free(pat);
    free(lit);
    free(lit2);
    return 0;
}
