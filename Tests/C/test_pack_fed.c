/*
 * test_pack_fed.c - a plain pack written as several gzip members
 * (sdui_gzip_encode_members) is opened through the pipelined scan, which
 * scans member k on a second thread while member k+1 inflates.  Its
 * promise: the outcome of sdui_pack_open_memory (status, message, offset,
 * line:column, ids in order, token bytes, sdui_pack_member ranges, sizes)
 * is exactly that of the same JSON gzipped as one member and scanned on
 * one thread, and a gzip error is exactly sdui_gzip_decode's verdict on
 * the same bytes.  Documents of a few KB are cut into many members (small
 * member_bytes) and scanned in many parts (parallel_scan_bytes = 1): one
 * token a line, compact, pretty-printed (a '{' starting a line inside a
 * token: a wrong boundary guess), "tokens" not last, escapes, CRLF; with
 * defects injected at every offset; gzip damage in every member; gzip -dc
 * and Python read the files; 8 threads open them at once.  A small
 * document inflates whole before the scanner thread starts, so the scan
 * itself (sdui__scan_pack_fed) is also fed slowly, piece by piece, and
 * compared with sdui__scan_pack token by token.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "shell.h"
#include "strbuf.h"
#include "sdui/alloc.h"
#include "sdui/gzip.h"
#include "sdui/pack.h"

#include "../../csrc/gzip_member.h"
#include "../../csrc/pack_scan.h"

/* ------------------------------------------------------------------ */
/* Documents                                                           */
/* ------------------------------------------------------------------ */

/* How the document is laid out between tokens. */
enum style {
    STYLE_LINES,   /* one token a line, as sdui writes              */
    STYLE_COMPACT, /* no newline at all                             */
    STYLE_PRETTY,  /* indented, every container member on a line    */
    STYLE_WS       /* random white space (spaces, tabs, newlines)   */
};

/* A document to generate: its shape and the defects to put in it.  A
 * token index of -1 means no such defect. */
typedef struct spec {
    int n;              /* tokens                                      */
    int style;          /* enum style                                  */
    int crlf;           /* lines end with "\r\n"                       */
    int layout;         /* where "tokens" and the other members sit    */
    int escapes;        /* ids and id keys with escapes, raw UTF-8     */
    int no_id, empty_id, id_not_string, dup_id, not_object;
    int big, big_bytes;     /* token big gets big_bytes of padding     */
    int deep, deep_levels;  /* token deep nests deep_levels arrays     */
    int dup_format;     /* a second "formatVersion" just before the end */
    int no_format;      /* no "formatVersion"                          */
    int format_two;     /* "formatVersion": 2                          */
    int dup_tokens;     /* a second "tokens" just before the end       */
    const char *trailing; /* bytes after the root                      */
    unsigned seed;      /* for STYLE_WS                                */
} spec;

/* A spec of n tokens in style, without defects. */
static spec plain_spec(int n, int style)
{
    spec s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.style = style;
    s.no_id = s.empty_id = s.id_not_string = s.dup_id = s.not_object = -1;
    s.big = s.deep = -1;
    s.big_bytes = 600;
    s.deep_levels = 12;
    s.seed = 1;
    return s;
}

/* The test's random numbers: xorshift, reproducible. */
static uint32_t rnd_state = 2463534242u;

/* A random number below n (n > 0). */
static unsigned rnd(unsigned n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 17;
    rnd_state ^= rnd_state << 5;
    return rnd_state % n;
}

/* The white space between two elements of an array of the root's depth
 * (tokens, screens): nothing, a line end, or random white space. */
static void sep(str *s, const spec *sp)
{
    static const char *const ws[] = {" ", "\n", "\t\n  ", "\r\n", "\n\n",
                                     "", "  \n\t"};
    switch (sp->style) {
    case STYLE_LINES:
        sadd(s, "%s", sp->crlf ? "\r\n" : "\n");
        break;
    case STYLE_WS:
        sadd(s, "%s", ws[rnd(sizeof ws / sizeof ws[0])]);
        break;
    default:
        break;
    }
}

/* Token i's id as JSON text (escaped ids decode to other bytes). */
static void id_text(str *s, const spec *sp, int i)
{
    if (sp->escapes && i % 5 == 3)
        sadd(s, "\"esc\\u00e9\\\"q\\\\%d\"", i);
    else if (sp->escapes && i % 7 == 2)
        sadd(s, "\"\xc3\xbcn\xc3\xaf-\xe2\x9c\x93-%d\"", i);
    else if (sp->escapes && i % 11 == 6)
        sadd(s, "\"sur\\ud83d\\ude00%d\"", i);
    else
        sadd(s, "\"%s.card.%d\"", i % 3 ? "home" : "shop", i);
}

/* Appends token i, compact (the style is applied to the whole later). */
static void token_text(str *s, const spec *sp, int i)
{
    int k;
    if (i == sp->not_object) {
        sadd(s, "[\"not an object\",%d]", i);
        return;
    }
    sadd(s, "{");
    if (i == sp->no_id)
        sadd(s, "\"name\":\"no id %d\"", i);
    else {
        sadd(s, "%s:", sp->escapes && i % 6 == 4 ? "\"\\u0069d\"" : "\"id\"");
        if (i == sp->empty_id)
            sadd(s, "\"\"");
        else if (i == sp->id_not_string)
            sadd(s, "%d", 42 + i);
        else
            id_text(s, sp, i == sp->dup_id ? (i ? i - 1 : 1) : i);
    }
    sadd(s, ",\"version\":1,\"primitive\":\"Text\",\"primitiveVersion\":1,"
            "\"props\":{\"text\":\"token %d \xe2\x9c\x93 says {hi}\\n\","
            "\"list\":[{\"a\":%d},{\"b\":{\"c\":[true,null,-1.5e3]}}]",
         i, i);
    if (i == sp->big) {
        sadd(s, ",\"pad\":\"");
        for (k = 0; k < sp->big_bytes; k++)
            sadd(s, "%c", 'a' + k % 26);
        sadd(s, "\"");
    }
    if (i == sp->deep) {
        sadd(s, ",\"deep\":");
        for (k = 0; k < sp->deep_levels; k++)
            sadd(s, "[");
        sadd(s, "{\"x\":1}");
        for (k = 0; k < sp->deep_levels; k++)
            sadd(s, "]");
    }
    sadd(s, "}}");
}

/* Appends the "tokens" array. */
static void tokens_text(str *s, const spec *sp)
{
    int i;
    sadd(s, "\"tokens\":[");
    for (i = 0; i < sp->n; i++) {
        sep(s, sp);
        token_text(s, sp, i);
        if (i + 1 < sp->n)
            sadd(s, ",");
    }
    sep(s, sp);
    sadd(s, "]");
}

/* Appends an array of objects that is not "tokens": a '{' that starts a
 * line at the tokens' depth, outside them. */
static void screens_text(str *s, const spec *sp)
{
    sadd(s, "\"screens\":[");
    sep(s, sp);
    sadd(s, "{\"home\":[\"home.card.1\",\"shop.card.0\"]},");
    sep(s, sp);
    sadd(s, "{\"shop\":[{\"id\":\"decoy\"}]}");
    sep(s, sp);
    sadd(s, "]");
}

/* Appends "formatVersion" (1, or 2 for the defect). */
static void format_text(str *s, const spec *sp)
{
    sadd(s, "\"formatVersion\":%d", sp->format_two ? 2 : 1);
}

/* Indents text for STYLE_PRETTY: every member and element on a line of
 * its own, two spaces a level (strings copied as they are). */
static str pretty(const char *in, size_t n, const char *eol)
{
    str o = {0};
    size_t i;
    int depth = 0, instr = 0, k;
    for (i = 0; i < n; i++) {
        char c = in[i];
        if (instr) {
            sadd(&o, "%c", c);
            if (c == '\\' && i + 1 < n)
                sadd(&o, "%c", in[++i]);
            else if (c == '"')
                instr = 0;
            continue;
        }
        switch (c) {
        case '"':
            instr = 1;
            sadd(&o, "\"");
            break;
        case '{':
        case '[':
            sadd(&o, "%c", c);
            if (i + 1 < n && (in[i + 1] == '}' || in[i + 1] == ']')) {
                sadd(&o, "%c", in[++i]);
                break;
            }
            depth++;
            sadd(&o, "%s", eol);
            for (k = 0; k < depth; k++)
                sadd(&o, "  ");
            break;
        case ',':
            sadd(&o, ",%s", eol);
            for (k = 0; k < depth; k++)
                sadd(&o, "  ");
            break;
        case '}':
        case ']':
            depth--;
            sadd(&o, "%s", eol);
            for (k = 0; k < depth; k++)
                sadd(&o, "  ");
            sadd(&o, "%c", c);
            break;
        case ':':
            sadd(&o, ": ");
            break;
        default:
            sadd(&o, "%c", c);
        }
    }
    return o;
}

/* The document of a spec (malloc'd: free(s.b)). */
static str make_doc(const spec *sp)
{
    str s = {0};
    rnd_state = 2463534242u ^ sp->seed;
    sadd(&s, "{");
    switch (sp->layout) {
    case 0: /* formatVersion, a name, then tokens: as sdui writes */
        if (!sp->no_format) {
            format_text(&s, sp);
            sadd(&s, ",");
        }
        sadd(&s, "\"name\":\"fed test\",");
        tokens_text(&s, sp);
        break;
    case 1: /* tokens first, formatVersion last */
        tokens_text(&s, sp);
        if (!sp->no_format) {
            sadd(&s, ",");
            format_text(&s, sp);
        }
        break;
    case 2: /* members before and after */
        sadd(&s, "\"before\":[{\"a\":1},{\"b\":[{\"c\":2}]}],");
        screens_text(&s, sp);
        sadd(&s, ",");
        if (!sp->no_format) {
            format_text(&s, sp);
            sadd(&s, ",");
        }
        tokens_text(&s, sp);
        sadd(&s, ",\"after\":{\"x\":[{\"y\":1},{\"z\":\"}{\"}]}");
        break;
    default: /* screens, tokens, meta, formatVersion at the very end */
        screens_text(&s, sp);
        sadd(&s, ",");
        tokens_text(&s, sp);
        sadd(&s, ",\"meta\":{\"k\":{\"deep\":[1,2,{\"x\":null}]}}");
        if (!sp->no_format) {
            sadd(&s, ",");
            format_text(&s, sp);
        }
        break;
    }
    if (sp->dup_tokens)
        sadd(&s, ",\"tokens\":[]");
    if (sp->dup_format)
        sadd(&s, ",\"formatVersion\":1");
    sadd(&s, "}");
    if (sp->style == STYLE_PRETTY) {
        str p = pretty(s.b, s.n, sp->crlf ? "\r\n" : "\n");
        free(s.b);
        s = p;
    }
    if (sp->style != STYLE_COMPACT)
        sadd(&s, "%s", sp->crlf ? "\r\n" : "\n");
    if (sp->trailing)
        sadd(&s, "%s", sp->trailing);
    return s;
}

/* ------------------------------------------------------------------ */
/* Outcomes                                                            */
/* ------------------------------------------------------------------ */

/* The root members asked for with sdui_pack_member. */
static const char *const member_names[] = {
    "formatVersion", "tokens", "name", "screens", "before",
    "after", "meta", "absent"};

/* Appends bytes, escaping what is not printable ASCII. */
static void add_bytes(str *d, const char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            sadd(d, "%c", c);
        else
            sadd(d, "\\x%02x", c);
    }
}

/* Appends an error record. */
static void add_error(str *d, sdui_status st, const sdui_error *e)
{
    sadd(d, "%s (record %s) offset %lld at %d:%d code %d: ",
         sdui_status_name(st), sdui_status_name(e->status), e->offset,
         e->line, e->column, e->code);
    add_bytes(d, e->message, strlen(e->message));
    sadd(d, "\n");
}

/*
 * Describes an open's outcome as text: the status and error record; when
 * open, the sizes, every id in order, every token (its status or the
 * place and bytes of its JSON in the pack's) and every member asked for
 * (its place or error).  Two outcomes are the same when their texts are.
 * info.members and compressed_bytes are left out (they are the file's).
 */
static void describe(str *d, sdui_status st, const sdui_error *err,
                     sdui_pack *pack, int tokens)
{
    sdui_pack_info info;
    const char *json;
    size_t n, i, len;
    add_error(d, st, err);
    if (st != SDUI_OK || !pack)
        return;
    sdui_pack_get_info(pack, &info);
    json = sdui_pack_json(pack, &len);
    n = sdui_pack_count(pack);
    sadd(d, "tokens %zu (info %zu) raw %zu (json %zu, crc %08x) seekable %d\n",
         n, info.tokens, info.raw_bytes, len,
         (unsigned)sdui_crc32(0, json, len), info.seekable);
    for (i = 0; i < n; i++) {
        size_t il = 0;
        const char *id = sdui_pack_id_at(pack, i, &il);
        sadd(d, "id %zu: ", i);
        add_bytes(d, id ? id : "(null)", id ? il : 6);
        if (tokens) {
            sdui_token *tok = NULL;
            sdui_error e;
            sdui_status ts = sdui_pack_get(pack, id, il, &tok, &e);
            if (ts != SDUI_OK) {
                sadd(d, " -> ");
                add_error(d, ts, &e);
                continue;
            }
            {
                size_t tl = 0;
                const char *t = sdui_token_json(tok, &tl);
                long long at = t >= json && t + tl <= json + len
                                   ? (long long)(t - json)
                                   : -1;
                sadd(d, " @%lld+%zu ", at, tl);
                add_bytes(d, t, tl);
            }
            sdui_token_release(tok);
        }
        sadd(d, "\n");
    }
    for (i = 0; i < sizeof member_names / sizeof member_names[0]; i++) {
        const char *m = NULL;
        size_t ml = 0;
        sdui_error e;
        sdui_status ms = sdui_pack_member(pack, member_names[i], &m, &ml, &e);
        sadd(d, "member %s: ", member_names[i]);
        if (ms != SDUI_OK)
            add_error(d, ms, &e);
        else
            sadd(d, "@%lld+%zu\n", (long long)(m - json), ml);
    }
}

/* Opens gzip bytes with limits and describes the outcome into *d; the
 * pack's member count into *members (0 when not open). */
static sdui_status open_described(const void *gz, size_t n,
                                  const sdui_limits *lim, str *d,
                                  unsigned *members, sdui_error *err,
                                  int tokens)
{
    sdui_pack *pack = NULL;
    sdui_status st = sdui_pack_open_memory(gz, n, lim, &pack, err);
    *members = 0;
    if (st == SDUI_OK) {
        sdui_pack_info info;
        sdui_pack_get_info(pack, &info);
        *members = info.members;
    }
    describe(d, st, err, pack, tokens);
    sdui_pack_free(pack);
    return st;
}

/* Prints where two descriptions part, with some context. */
static void show_difference(const char *what, const str *a, const str *b)
{
    size_t i = 0, from, line_a, line_b;
    while (i < a->n && i < b->n && a->b[i] == b->b[i])
        i++;
    from = i;
    while (from > 0 && a->b[from - 1] != '\n')
        from--;
    line_a = line_b = from;
    while (line_a < a->n && a->b[line_a] != '\n')
        line_a++;
    while (line_b < b->n && b->b[line_b] != '\n')
        line_b++;
    fprintf(stderr, "  %s, first difference at byte %zu:\n  expected: %.*s\n"
                    "  got:      %.*s\n",
            what, i, (int)(line_a - from > 400 ? 400 : line_a - from),
            a->b + from, (int)(line_b - from > 400 ? 400 : line_b - from),
            b->b + from);
}

/* Mismatches saved to /tmp so far (the first few are kept). */
static int saved;

/* Keeps a document that opened differently, for a reproducer. */
static void save_doc(const char *json, size_t len, const char *what,
                     size_t mb, const sdui_limits *lim)
{
    char path[128];
    FILE *f;
    if (saved >= 5)
        return;
    snprintf(path, sizeof path, "/tmp/sdui-fed-mismatch-%d-%d.json",
             (int)getpid(), saved++);
    f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(json, 1, len, f);
    fclose(f);
    fprintf(stderr,
            "  %s: document saved as %s (member_bytes %zu, max_tokens %zu, "
            "max_token_bytes %zu, max_depth %u)\n",
            what, path, mb, lim->max_tokens, lim->max_token_bytes,
            lim->max_depth);
}

/* The rule's aim of the member after one that aimed at aim: half as much
 * again, up to mb (include/sdui/gzip.h). */
static size_t rule_next_aim(size_t aim, size_t mb)
{
    return aim >= mb / 3 * 2 ? mb : aim + aim / 2;
}

/* The members sdui_gzip_encode_members makes of json: one up to
 * member_bytes, else the first aims at member_bytes / 4 + 1 bytes, each
 * next at half as much again as the one before (up to member_bytes),
 * and each ends just
 * after the first newline at or past its aim (at the aim when there is
 * none); the last takes the rest. */
static unsigned rule_members(const char *json, size_t len, size_t mb)
{
    size_t from = 0, aim = mb / 4 + 1;
    unsigned count = 0;
    if (len <= mb)
        return 1;
    while (from < len) {
        const char *nl;
        if (len - from <= aim)
            from = len;
        else {
            nl = memchr(json + from + aim, '\n', len - from - aim);
            from = nl ? (size_t)(nl - json) + 1 : from + aim;
        }
        aim = rule_next_aim(aim, mb);
        count++;
    }
    return count;
}

/* The level the multi-member files are written at: 1, and 0 (stored
 * blocks) in the byte-defect sweep, so members of both kinds of block
 * are read. */
static int enc_level = 1;

/* Opens that were compared, and those that really took the fed path
 * (a hinted file of two members or more). */
static unsigned long compared, fed_opens;

/*
 * Opens json gzipped as one member on one thread (the reference), and as
 * members of member_bytes (sdui_gzip_encode_members) both through the
 * fed path (parallel_scan_bytes 1) and inflated whole first (SIZE_MAX):
 * the three outcomes must be the same, and the multi-member opens must
 * count the file's members.  Returns 1 when they are.
 */
static int same_outcome(const char *json, size_t len, const sdui_limits *base,
                        size_t mb, int tokens, const char *what)
{
    sdui_limits one = *base, fed = *base;
    unsigned char *gz1 = NULL, *gzm = NULL;
    size_t n1 = 0, nm = 0;
    str ref = {0}, got = {0}, whole = {0};
    unsigned m_ref, m_fed, m_whole, m_file = 0;
    sdui_error err, e2;
    sdui_status st;
    char *out = NULL;
    size_t out_len = 0;
    int ok = 1;

    one.parallel_scan_bytes = SIZE_MAX;
    fed.parallel_scan_bytes = 1;
    if (sdui_gzip_encode(json, len, 1, &gz1, &n1, &err) != SDUI_OK ||
        sdui_gzip_encode_members(json, len, enc_level, mb, &gzm, &nm, &err) !=
            SDUI_OK) {
        CHECKF(0, "%s: cannot gzip (%s)", what, err.message);
        sdui_free(gz1);
        sdui_free(gzm);
        return 0;
    }
    st = sdui_gzip_decode(gzm, nm, SIZE_MAX, &out, &out_len, &m_file, &e2);
    ok = CHECKF(st == SDUI_OK && out_len == len &&
                    memcmp(out, json, len) == 0,
                "%s: the members inflate to the document", what);
    sdui_free(out);
    ok &= CHECKF(m_file == rule_members(json, len, mb),
                 "%s: %zu bytes in members of %zu make %u members, not %u",
                 what, len, mb, m_file, rule_members(json, len, mb));
    if (m_file >= 2)
        fed_opens++;
    compared++;

    open_described(gz1, n1, &one, &ref, &m_ref, &err, tokens);
    open_described(gzm, nm, &fed, &got, &m_fed, &err, tokens);
    open_described(gzm, nm, &one, &whole, &m_whole, &err, tokens);
    if (ref.n != got.n || memcmp(ref.b, got.b, ref.n) != 0) {
        ok = 0;
        CHECKF(0, "%s (member_bytes %zu, %u members): the fed open differs "
                  "from the one-member open",
               what, mb, m_file);
        show_difference("one member vs fed", &ref, &got);
        save_doc(json, len, what, mb, base);
    }
    if (ref.n != whole.n || memcmp(ref.b, whole.b, ref.n) != 0) {
        ok = 0;
        CHECKF(0, "%s (member_bytes %zu): the members inflated whole differ "
                  "from the one-member open",
               what, mb);
        show_difference("one member vs members inflated whole", &ref, &whole);
        save_doc(json, len, what, mb, base);
    }
    if (m_ref) {
        ok &= CHECKF(m_ref == 1 && m_fed == m_file && m_whole == m_file,
                     "%s: members %u, fed %u, whole %u, file %u", what,
                     m_ref, m_fed, m_whole, m_file);
    }
    free(ref.b);
    free(got.b);
    free(whole.b);
    sdui_free(gz1);
    sdui_free(gzm);
    return ok;
}

/* Writes v little-endian in n bytes at p. */
static void put_le(unsigned char *p, uint64_t v, int n)
{
    int i;
    for (i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The member sizes the tests cut documents with. */
static const size_t sizes[] = {1, 16, 64, 100, 256, 333, 1000, 4096};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Limits for the tests: the defaults (a token under 32 KB). */
static sdui_limits test_limits(void)
{
    sdui_limits lim;
    sdui_limits_default(&lim);
    return lim;
}

/* ------------------------------------------------------------------ */
/* Valid documents                                                     */
/* ------------------------------------------------------------------ */

/* Many shapes of valid pack open the same through the fed path. */
static void test_valid_shapes(void)
{
    sdui_limits lim = test_limits();
    int style, layout, crlf, esc, n, bad = 0;
    size_t k;
    char what[128];
    for (style = STYLE_LINES; style <= STYLE_WS; style++)
        for (layout = 0; layout < 4; layout++)
            for (crlf = 0; crlf < 2; crlf++)
                for (esc = 0; esc < 2; esc++) {
                    static const int counts[] = {0, 1, 2, 7, 30};
                    for (n = 0; n < 5; n++) {
                        spec sp = plain_spec(counts[n], style);
                        str js;
                        sp.layout = layout;
                        sp.crlf = crlf;
                        sp.escapes = esc;
                        sp.seed = (unsigned)(n * 131 + layout);
                        js = make_doc(&sp);
                        for (k = 0; k < NSIZES; k++) {
                            snprintf(what, sizeof what,
                                     "valid style %d layout %d crlf %d "
                                     "escapes %d tokens %d",
                                     style, layout, crlf, esc, counts[n]);
                            if (!same_outcome(js.b, js.n, &lim, sizes[k], 1,
                                              what))
                                bad++;
                        }
                        free(js.b);
                    }
                }
    CHECKF(bad == 0, "%d valid documents opened differently", bad);
}

/* A valid document really opens, with its ids (the comparison above
 * would also pass if every open failed the same way). */
static void test_valid_opens(void)
{
    sdui_limits lim = test_limits();
    spec sp = plain_spec(40, STYLE_PRETTY);
    str js;
    unsigned char *gz;
    size_t n;
    sdui_pack *pack = NULL;
    sdui_error err;
    sdui_pack_info info;
    sp.layout = 2;
    sp.escapes = 1;
    js = make_doc(&sp);
    lim.parallel_scan_bytes = 1;
    CHECK_STATUS(sdui_gzip_encode_members(js.b, js.n, 6, 256, &gz, &n, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_pack_open_memory(gz, n, &lim, &pack, &err), SDUI_OK);
    if (pack) {
        size_t il;
        const char *id;
        const char *m;
        size_t ml;
        sdui_pack_get_info(pack, &info);
        CHECK_EQ_INT(info.tokens, 40);
        CHECK(info.members > 10);
        CHECK_EQ_INT(info.members_inflated, info.members);
        CHECK_EQ_INT(info.raw_bytes, js.n);
        CHECK_EQ_INT(info.compressed_bytes, n);
        id = sdui_pack_id_at(pack, 3, &il);
        CHECK(id && il == 9 && memcmp(id, "esc\xc3\xa9\"q\\3", il) == 0);
        CHECK(sdui_pack_contains(pack, "home.card.1", 11));
        CHECK_STATUS(sdui_pack_member(pack, "after", &m, &ml, &err), SDUI_OK);
        CHECK(ml > 2 && m[0] == '{' && m[ml - 1] == '}');
    }
    sdui_pack_free(pack);
    sdui_free(gz);
    free(js.b);
}

/* ------------------------------------------------------------------ */
/* Defects                                                             */
/* ------------------------------------------------------------------ */

/* A byte defect at an offset: what it does to the document. */
enum byte_defect {
    BAD_BYTE,     /* '#' in place of the byte                        */
    BAD_UTF8,     /* 0xFF in place of the byte                       */
    QUOTE,        /* a '"' inserted (a string left open, or closed)  */
    TRUNCATE,     /* the document cut there                          */
    DELETE,       /* the byte taken out                              */
    BRACE,        /* a '{' inserted                                  */
    NDEFECTS
};

/* The document with defect at offset at (malloc'd, length in *n). */
static char *with_defect(const str *js, size_t at, int defect, size_t *n)
{
    char *b = malloc(js->n + 2);
    memcpy(b, js->b, js->n);
    *n = js->n;
    switch (defect) {
    case BAD_BYTE:
        b[at] = '#';
        break;
    case BAD_UTF8:
        b[at] = (char)0xff;
        break;
    case QUOTE:
    case BRACE:
        memmove(b + at + 1, b + at, js->n - at);
        b[at] = defect == QUOTE ? '"' : '{';
        (*n)++;
        break;
    case TRUNCATE:
        *n = at;
        break;
    default:
        memmove(b + at, b + at + 1, js->n - at - 1);
        (*n)--;
        break;
    }
    return b;
}

/* Byte defects at every offset of small documents of each style (two
 * kinds at each offset, each kind at every third), cut in members of a
 * size that changes with the offset. */
static void test_byte_defects(void)
{
    sdui_limits lim = test_limits();
    int style, pass, bad = 0;
    size_t at;
    char what[128];
    enc_level = 0;
    for (style = STYLE_LINES; style <= STYLE_WS; style++) {
        spec sp = plain_spec(style == STYLE_PRETTY ? 4 : 8, style);
        str js;
        sp.layout = style;
        sp.escapes = 1;
        sp.crlf = style == STYLE_WS;
        js = make_doc(&sp);
        for (at = 0; at < js.n; at++)
            for (pass = 0; pass < 2; pass++) {
                /* Two of the defects at each offset, in turn. */
                int defect = (int)((at + (size_t)pass * 3) % NDEFECTS);
                size_t n;
                char *b = with_defect(&js, at, defect, &n);
                snprintf(what, sizeof what,
                         "style %d, defect %d at offset %zu", style, defect,
                         at);
                if (!same_outcome(b, n, &lim,
                                  sizes[(at + (size_t)defect) % NSIZES], 0,
                                  what))
                    bad++;
                free(b);
            }
        free(js.b);
    }
    enc_level = 1;
    CHECKF(bad == 0, "%d damaged documents opened differently", bad);
}

/* Shape defects in each token in turn, in each style and layout. */
static void test_token_defects(void)
{
    sdui_limits lim = test_limits();
    int style, layout, i, kind, bad = 0;
    char what[128];
    for (style = STYLE_LINES; style <= STYLE_WS; style++)
        for (layout = 0; layout < 4; layout++)
            for (kind = 0; kind < 7; kind++)
                for (i = 0; i < 12; i++) {
                    spec sp = plain_spec(12, style);
                    sdui_limits l = lim;
                    str js;
                    size_t k;
                    sp.layout = layout;
                    sp.escapes = (i + kind) & 1;
                    sp.crlf = kind == 3;
                    switch (kind) {
                    case 0:
                        sp.no_id = i;
                        break;
                    case 1:
                        sp.dup_id = i;
                        break;
                    case 2:
                        sp.empty_id = i;
                        break;
                    case 3:
                        sp.id_not_string = i;
                        break;
                    case 4:
                        sp.not_object = i;
                        break;
                    case 5:
                        /* One token over max_token_bytes. */
                        sp.big = i;
                        l.max_token_bytes = 700;
                        break;
                    default:
                        /* One token over max_depth. */
                        sp.deep = i;
                        l.max_depth = 8;
                        break;
                    }
                    js = make_doc(&sp);
                    for (k = 0; k < 3; k++) {
                        size_t mb = sizes[((size_t)i + (size_t)kind + k) % NSIZES];
                        snprintf(what, sizeof what,
                                 "style %d layout %d: defect %d in token %d",
                                 style, layout, kind, i);
                        if (!same_outcome(js.b, js.n, &l, mb, 0, what))
                            bad++;
                    }
                    free(js.b);
                }
    CHECKF(bad == 0, "%d documents with a bad token opened differently",
           bad);
}

/* The limits swept: max_tokens from 0 past the count, max_token_bytes
 * and max_depth across the tokens' sizes and depths. */
static void test_limit_sweeps(void)
{
    sdui_limits lim = test_limits();
    int style, bad = 0;
    size_t v, k;
    char what[128];
    for (style = STYLE_LINES; style <= STYLE_WS; style++) {
        spec sp = plain_spec(20, style);
        str js;
        sp.layout = style;
        sp.escapes = 1;
        sp.big = 13;
        sp.big_bytes = 900;
        sp.deep = 17;
        sp.deep_levels = 9;
        js = make_doc(&sp);
        for (v = 0; v <= 22; v++) {
            sdui_limits l = lim;
            l.max_tokens = v;
            for (k = 0; k < 2; k++) {
                snprintf(what, sizeof what, "style %d, max_tokens %zu",
                         style, v);
                if (!same_outcome(js.b, js.n, &l, sizes[(v + k * 3) % NSIZES],
                                  0, what))
                    bad++;
            }
        }
        for (v = 100; v <= 1400; v += 37) {
            sdui_limits l = lim;
            l.max_token_bytes = v;
            snprintf(what, sizeof what, "style %d, max_token_bytes %zu",
                     style, v);
            if (!same_outcome(js.b, js.n, &l, sizes[v % NSIZES], 0, what))
                bad++;
        }
        for (v = 0; v <= 14; v++) {
            sdui_limits l = lim;
            l.max_depth = (unsigned)v;
            snprintf(what, sizeof what, "style %d, max_depth %zu", style, v);
            if (!same_outcome(js.b, js.n, &l, sizes[v % NSIZES], 0, what))
                bad++;
        }
        free(js.b);
    }
    CHECKF(bad == 0, "%d limit settings opened differently", bad);
}

/* The root's own defects: formatVersion twice (near the end), missing or
 * 2, "tokens" twice, bytes after the root. */
static void test_root_defects(void)
{
    static const char *const trailing[] = {
        NULL, "x", "}", "{}", " ,", "\n{\"id\":\"x\"}", "\n\n\n]", "\xff"};
    sdui_limits lim = test_limits();
    int style, layout, kind, bad = 0;
    size_t k;
    char what[128];
    for (style = STYLE_LINES; style <= STYLE_WS; style++)
        for (layout = 0; layout < 4; layout++)
            for (kind = 0; kind < 4 + 8; kind++) {
                spec sp = plain_spec(15, style);
                str js;
                sp.layout = layout;
                sp.crlf = layout == 3;
                if (kind == 0)
                    sp.dup_format = 1;
                else if (kind == 1)
                    sp.no_format = 1;
                else if (kind == 2)
                    sp.format_two = 1;
                else if (kind == 3)
                    sp.dup_tokens = 1;
                else
                    sp.trailing = trailing[kind - 4];
                js = make_doc(&sp);
                for (k = 0; k < NSIZES; k++) {
                    snprintf(what, sizeof what,
                             "style %d layout %d: root defect %d", style,
                             layout, kind);
                    if (!same_outcome(js.b, js.n, &lim, sizes[k], 1, what))
                        bad++;
                }
                /* The same with a missing formatVersion too: which error
                 * comes first. */
                if (kind != 1) {
                    free(js.b);
                    sp.no_format = 1;
                    js = make_doc(&sp);
                    for (k = 0; k < NSIZES; k += 3) {
                        snprintf(what, sizeof what,
                                 "style %d layout %d: root defect %d, no "
                                 "formatVersion",
                                 style, layout, kind);
                        if (!same_outcome(js.b, js.n, &lim, sizes[k], 0,
                                          what))
                            bad++;
                    }
                }
                free(js.b);
            }
    CHECKF(bad == 0, "%d documents with a bad root opened differently", bad);
}

/* Documents that are not packs at all, and tiny ones. */
static void test_odd_documents(void)
{
    static const char *const docs[] = {
        "",
        "\n",
        "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n",
        "[\n{\"id\":\"a\"},\n{\"id\":\"b\"}\n]\n",
        "{\"formatVersion\":1,\"tokens\":{\n\"id\":\"a\"\n}}\n",
        "{\"formatVersion\":1,\"tokens\":[\n]}\n",
        "{\"formatVersion\":1,\"tokens\":[\n\n\n{\"id\":\"a\"}\n\n\n]}\n\n\n",
        "{\"formatVersion\":1,\"tokens\":[\n{\"id\":\"a\"},\n]}\n",
        "{\"formatVersion\":1,\"tokens\":[\n{\"id\":\"a\"}\n{\"id\":\"b\"}\n]}\n",
        "{\"formatVersion\":1,\"tokens\":[\n{\"id\":\"a\"},\n{\"id\":\"a\"}\n]}\n",
        "{\"formatVersion\":1,\"tokens\":[\n\"a\",\n{\"id\":\"b\"}\n]}\n",
        "{\"formatVersion\":1,\"tokens\":[\n{\"id\":\"a\",\n\"id\":\"b\"}\n]}\n",
        "{\"formatVersion\":1,\"tokens\":[\n{\"id\":\"a\"},\n{\"id\":\"b\"}\n]\n",
        "{\"formatVersion\":1,\"tokens\":[\n{\"id\":\"a\"},\n{\"id\":\"b\"}\n]}}\n",
        "{\"formatVersion\":1.0,\"tokens\":[\n{\"id\":\"a\"}\n]}\n",
        "{\"formatVersion\":1,\n\"tokens\":[\n{\"id\":\"a\"}\n],\n"
        "\"formatVersion\":1}\n",
        "{\"formatVersion\":\"1\",\"tokens\":[\n{\"id\":\"a\"}\n]}\n",
        "{\"tokens\":[\n{\"id\":\"a\"},\n{\"id\":\"b\"}\n]}\n",
        "{\"formatVersion\":1,\"tokens\":[\n{\"id\":\"a\",\"x\":\n{\"y\":[\n{}\n]}}"
        ",\n{\"id\":\"b\"}\n]}\n",
    };
    sdui_limits lim = test_limits();
    size_t d, k, rep;
    int bad = 0;
    char what[64];
    for (d = 0; d < sizeof docs / sizeof docs[0]; d++)
        for (rep = 1; rep <= 3; rep++) {
            /* The document alone, then after lots of white space, which
             * makes several members before it starts. */
            str js = {0};
            size_t i;
            for (i = 1; i < rep; i++)
                sadd(&js, "%200s\n", "");
            sadd(&js, "%s", docs[d]);
            for (k = 0; k < NSIZES; k++) {
                snprintf(what, sizeof what, "odd document %zu (%zu)", d, rep);
                if (!same_outcome(js.b, js.n, &lim, sizes[k], 1, what))
                    bad++;
            }
            free(js.b);
        }
    CHECKF(bad == 0, "%d odd documents opened differently", bad);
}

/* Random documents: random styles, layouts, defects and limits. */
static void test_random(void)
{
    sdui_limits lim = test_limits();
    int round, bad = 0;
    char what[96];
    for (round = 0; round < 300; round++) {
        spec sp;
        sdui_limits l = lim;
        str js;
        uint32_t r;
        rnd_state = 0x9e3779b9u * (uint32_t)(round + 1);
        r = rnd(1u << 30);
        sp = plain_spec((int)(r % 40), (int)(r >> 6) % 4);
        sp.layout = (int)(r >> 8) % 4;
        sp.crlf = (r >> 10) & 1;
        sp.escapes = (r >> 11) & 1;
        sp.seed = r;
        if (sp.n > 0) {
            switch ((r >> 12) % 10) {
            case 0: sp.no_id = (int)(r >> 16) % sp.n; break;
            case 1: sp.dup_id = (int)(r >> 16) % sp.n; break;
            case 2: sp.not_object = (int)(r >> 16) % sp.n; break;
            case 3: sp.big = (int)(r >> 16) % sp.n;
                    l.max_token_bytes = 500; break;
            case 4: sp.deep = (int)(r >> 16) % sp.n; l.max_depth = 10; break;
            case 5: l.max_tokens = (r >> 16) % (unsigned)(sp.n + 1); break;
            case 6: sp.dup_format = 1; break;
            case 7: sp.no_format = 1; break;
            default: break;
            }
        }
        js = make_doc(&sp);
        if ((r >> 20) % 3 == 0 && js.n > 0) {
            /* And a random byte defect on top. */
            size_t n, at = rnd((unsigned)js.n);
            char *b = with_defect(&js, at, (int)rnd(NDEFECTS), &n);
            free(js.b);
            js.b = b;
            js.n = n;
        }
        snprintf(what, sizeof what, "random document %d", round);
        if (!same_outcome(js.b, js.n, &l, 1 + rnd(3000), 1, what))
            bad++;
        free(js.b);
    }
    CHECKF(bad == 0, "%d random documents opened differently", bad);
}

/*
 * Large documents, so that the last member leaves a tail of more than
 * 64 KB to scan when everything is in: the caller's thread then scans the
 * tail's second half, and the two verdicts merge.  Defects near the end
 * land in that second half.
 */
static void test_large(void)
{
    sdui_limits lim = test_limits();
    int style, kind, bad = 0;
    char what[96];
    for (style = STYLE_LINES; style <= STYLE_PRETTY; style += 2)
        for (kind = 0; kind < 11; kind++) {
            spec sp = plain_spec(style == STYLE_PRETTY ? 1200 : 2600, style);
            sdui_limits l = lim;
            str js;
            size_t k;
            static const size_t big_sizes[] = {256 << 10, 100 << 10, 4096};
            sp.layout = kind % 4;
            sp.escapes = 1;
            switch (kind) {
            case 1: sp.no_id = sp.n - 3; break;
            case 2: sp.dup_format = 1; break;
            case 3: sp.no_format = 1; break;
            case 4: l.max_tokens = (size_t)sp.n - 2; break;
            case 5: sp.dup_id = sp.n - 5; break;
            case 6: sp.trailing = "garbage"; break;
            case 7: sp.deep = sp.n - 7; l.max_depth = 6; break;
            case 8: sp.big = sp.n * 3 / 4; l.max_token_bytes = 600; break;
            case 9: sp.not_object = sp.n * 9 / 10; break;
            default: break;
            }
            js = make_doc(&sp);
            if (kind == 10)
                js.b[js.n * 95 / 100] = '#';
            for (k = 0; k < 3; k++) {
                snprintf(what, sizeof what, "large style %d, defect %d",
                         style, kind);
                if (!same_outcome(js.b, js.n, &l, big_sizes[k], kind == 0,
                                  what))
                    bad++;
            }
            free(js.b);
        }
    CHECKF(bad == 0, "%d large documents opened differently", bad);
}

/* Defects spread over the last half of a large document, where the
 * caller's thread scans the tail's second half: byte defects at random
 * offsets, a token without id, and max_tokens just under the count. */
static void test_large_tail(void)
{
    sdui_limits lim = test_limits();
    spec sp = plain_spec(2600, STYLE_LINES);
    str js;
    int i, bad = 0;
    char what[96];
    sp.layout = 1;
    sp.escapes = 1;
    js = make_doc(&sp);
    rnd_state = 77;
    for (i = 0; i < 40; i++) {
        size_t n, at = js.n / 2 + rnd((unsigned)(js.n / 2));
        int defect = (int)rnd(NDEFECTS);
        char *b = with_defect(&js, at, defect, &n);
        snprintf(what, sizeof what, "large, defect %d at %zu", defect, at);
        if (!same_outcome(b, n, &lim, i & 1 ? 256 << 10 : 128 << 10, 0,
                          what))
            bad++;
        free(b);
    }
    free(js.b);
    for (i = 0; i < 24; i++) {
        sp.no_id = sp.n / 2 + (int)rnd((unsigned)sp.n / 2);
        js = make_doc(&sp);
        snprintf(what, sizeof what, "large, no id in token %d", sp.no_id);
        if (!same_outcome(js.b, js.n, &lim, 256 << 10, 0, what))
            bad++;
        free(js.b);
    }
    sp.no_id = -1;
    js = make_doc(&sp);
    {
        static const size_t under[] = {0, 1, 2, 50, 300, 1000};
        for (i = 0; i < 6; i++) {
            sdui_limits l = lim;
            l.max_tokens = (size_t)sp.n - under[i];
            snprintf(what, sizeof what, "large, max_tokens %zu",
                     l.max_tokens);
            if (!same_outcome(js.b, js.n, &l, 256 << 10, 0, what))
                bad++;
        }
    }
    free(js.b);
    CHECKF(bad == 0, "%d large documents opened differently", bad);
}

/*
 * A gzip file of json cut at cuts[0 .. ncuts) (increasing offsets; equal
 * ones make empty members), its first header carrying a true size field,
 * as sdui_gzip_encode_members would write it were it to cut there.
 * malloc'd; length in *n.
 */
static unsigned char *cut_file(const char *json, size_t len,
                               const size_t *cuts, int ncuts, int level,
                               size_t *n)
{
    unsigned char sz[17], *all = NULL;
    size_t from = 0;
    int i;
    sdui_error err;
    sz[0] = 'S';
    sz[1] = 'Z';
    sz[2] = 13;
    sz[3] = 0;
    sz[4] = 1;
    put_le(sz + 5, len, 8);
    put_le(sz + 13, (uint64_t)ncuts + 1, 4);
    *n = 0;
    for (i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : len;
        unsigned char *m;
        size_t ml;
        if (sdui__gzip_write_member(json + from, to - from, level,
                                    i ? NULL : sz, i ? 0 : sizeof sz, &m,
                                    &ml, &err) != SDUI_OK) {
            free(all);
            return NULL;
        }
        all = realloc(all, *n + ml);
        memcpy(all + *n, m, ml);
        *n += ml;
        sdui_free(m);
        from = to;
    }
    return all;
}

/*
 * Opens json cut into members at cuts through the fed path and compares
 * the outcome with the one-member open (which comes first: the members
 * must inflate, then scan, the same).
 */
static int same_cut(const char *json, size_t len, const size_t *cuts,
                    int ncuts, const sdui_limits *base, int tokens,
                    const char *what)
{
    sdui_limits one = *base, fed = *base;
    unsigned char *gz1 = NULL, *gzm;
    size_t n1 = 0, nm = 0;
    str ref = {0}, got = {0};
    unsigned m_ref, m_fed;
    sdui_error err;
    int ok = 1;
    one.parallel_scan_bytes = SIZE_MAX;
    fed.parallel_scan_bytes = 1;
    gzm = cut_file(json, len, cuts, ncuts, 0, &nm);
    if (!CHECKF(gzm != NULL, "%s: cannot write the members", what))
        return 0;
    sdui_gzip_encode(json, len, 1, &gz1, &n1, &err);
    open_described(gz1, n1, &one, &ref, &m_ref, &err, tokens);
    open_described(gzm, nm, &fed, &got, &m_fed, &err, tokens);
    compared++;
    fed_opens++;
    if (ref.n != got.n || memcmp(ref.b, got.b, ref.n) != 0) {
        ok = CHECKF(0, "%s: the fed open of %d members differs from the "
                       "one-member open",
                    what, ncuts + 1);
        show_difference("one member vs fed", &ref, &got);
        save_doc(json, len, what, 0, base);
    }
    if (m_ref)
        ok &= CHECKF(m_fed == (unsigned)ncuts + 1, "%s: %u members of %d",
                     what, m_fed, ncuts + 1);
    free(ref.b);
    free(got.b);
    sdui_free(gz1);
    free(gzm);
    return ok;
}

/*
 * Members cut anywhere, not only after a newline: two members cut at
 * every offset (between '\r' and '\n', just before or after a '{' that
 * starts a line, inside a string or a UTF-8 sequence), and many members of
 * random sizes, empty ones too; valid documents and damaged ones.
 */
static void test_arbitrary_cuts(void)
{
    sdui_limits lim = test_limits();
    int style, round, bad = 0;
    size_t at;
    char what[96];
    for (style = STYLE_LINES; style <= STYLE_WS; style++) {
        spec sp = plain_spec(style == STYLE_PRETTY ? 3 : 6, style);
        str js;
        sp.layout = (style + 1) % 4;
        sp.escapes = 1;
        sp.crlf = style != STYLE_PRETTY;
        if (style == STYLE_WS)
            sp.no_id = 4;
        js = make_doc(&sp);
        for (at = 0; at <= js.n; at++) {
            snprintf(what, sizeof what, "style %d, two members cut at %zu",
                     style, at);
            if (!same_cut(js.b, js.n, &at, 1, &lim, 0, what))
                bad++;
        }
        for (round = 0; round < 60; round++) {
            size_t cuts[40];
            int nc = 1 + (int)rnd(40), i;
            for (i = 0; i < nc; i++)
                cuts[i] = rnd((unsigned)js.n + 1);
            /* Sorted (equal cuts: empty members). */
            for (i = 1; i < nc; i++) {
                size_t v = cuts[i];
                int j = i;
                while (j > 0 && cuts[j - 1] > v) {
                    cuts[j] = cuts[j - 1];
                    j--;
                }
                cuts[j] = v;
            }
            snprintf(what, sizeof what, "style %d, %d random cuts (%d)",
                     style, nc, round);
            if (!same_cut(js.b, js.n, cuts, nc, &lim, round % 4 == 0, what))
                bad++;
        }
        free(js.b);
    }
    CHECKF(bad == 0, "%d documents cut anywhere opened differently", bad);
}

/* A pack over a MiB opened with the default limits (NULL): the fed path
 * by default, the same outcome. */
static void test_default_limits(void)
{
    spec sp = plain_spec(12000, STYLE_LINES);
    str js;
    unsigned char *gz1, *gzm;
    size_t n1, nm;
    str ref = {0}, got = {0};
    unsigned m_ref, m_fed;
    sdui_limits one;
    sdui_error err;
    sp.layout = 2;
    sp.escapes = 1;
    js = make_doc(&sp);
    CHECK(js.n > ((size_t)2 << 20));
    sdui_limits_default(&one);
    one.parallel_scan_bytes = SIZE_MAX;
    CHECK_STATUS(sdui_gzip_encode(js.b, js.n, 1, &gz1, &n1, &err), SDUI_OK);
    CHECK_STATUS(sdui_gzip_encode_members(js.b, js.n, -1, 0, &gzm, &nm, &err),
                 SDUI_OK);
    open_described(gz1, n1, &one, &ref, &m_ref, &err, 0);
    CHECK_STATUS(open_described(gzm, nm, NULL, &got, &m_fed, &err, 0),
                 SDUI_OK);
    CHECK(ref.n == got.n && memcmp(ref.b, got.b, ref.n) == 0);
    CHECKF(m_fed == rule_members(js.b, js.n, (size_t)2 << 20) && m_fed >= 2,
           "%u members with the default member size", m_fed);
    free(ref.b);
    free(got.b);
    sdui_free(gz1);
    sdui_free(gzm);
    free(js.b);
}

/* ------------------------------------------------------------------ */
/* The pipelined scan itself, fed slowly                               */
/* ------------------------------------------------------------------ */

/*
 * A feed for sdui__scan_pack_fed that copies the document into the
 * scanner's buffer a piece at a time, as the inflater does member by
 * member, and pauses before each piece after the first so the scanner
 * thread scans the parts as they come (a small document otherwise
 * inflates whole before that thread starts).  The pause only makes
 * interleavings likely; nothing depends on it.  The bytes not yet fed
 * hold a poison of line starts and braces: a scanner that read past the
 * bytes ready would see it (and ThreadSanitizer the race).
 */
typedef struct slow_feed {
    const char *src;
    char *buf;
    size_t len, done;
    const size_t *cuts;  /* where pieces end, increasing (equal: no bytes) */
    int ncuts, next;
    unsigned pause_us;
    int fail_at;         /* the piece whose inflate fails (-1: none)   */
} slow_feed;

/* The sdui_scan_feed of a slow_feed. */
static int slow_feed_next(void *ctx, size_t *ready, sdui_status *st)
{
    slow_feed *f = ctx;
    size_t to;
    if (f->next > 0 && f->pause_us) {
        struct timespec t = {0, (long)f->pause_us * 1000};
        nanosleep(&t, NULL);
    }
    if (f->next == f->fail_at) {
        *st = SDUI_GZIP;
        return -1;
    }
    to = f->next < f->ncuts ? f->cuts[f->next] : f->len;
    memcpy(f->buf + f->done, f->src + f->done, to - f->done);
    f->done = to;
    *ready = to;
    if (f->next++ < f->ncuts)
        return 1;
    f->buf[f->len] = '\0';
    return 0;
}

/* 1 when two scan results hold the same tokens and root members. */
static int same_lists(const sdui_scan_result *a, const sdui_scan_result *b)
{
    size_t i;
    if (a->count != b->count || a->nmembers != b->nmembers)
        return 0;
    for (i = 0; i < a->count; i++) {
        const sdui_scan_entry *x = &a->entries[i], *y = &b->entries[i];
        if (x->start != y->start || x->end != y->end ||
            x->id_start != y->id_start || x->id_len != y->id_len ||
            x->id_escaped != y->id_escaped)
            return 0;
    }
    for (i = 0; i < a->nmembers; i++) {
        const sdui_scan_member *x = &a->members[i], *y = &b->members[i];
        if (x->key_start != y->key_start || x->key_len != y->key_len ||
            x->key_escaped != y->key_escaped || x->start != y->start ||
            x->end != y->end)
            return 0;
    }
    return 1;
}

/*
 * Scans json fed in pieces ending at cuts (pausing pause_us before each)
 * with sdui__scan_pack_fed and compares with sdui__scan_pack on one
 * thread: status, error record, and on success every token and member.
 * With fail_at >= 0 the feed fails at that piece: the feed's status,
 * feed_failed set, nothing leaks.  Returns 1 when all agree.
 */
static int same_fed_scan(const char *json, size_t len, const size_t *cuts,
                         int ncuts, unsigned pause_us, int fail_at,
                         const sdui_limits *base, const char *what)
{
    sdui_limits one = *base;
    sdui_scan_result want, got;
    sdui_error e1, e2;
    sdui_status s1, s2;
    slow_feed f;
    size_t got_len = 0, i;
    int failed = 0, ok = 1;
    memset(&want, 0, sizeof want);
    memset(&got, 0, sizeof got);
    memset(&f, 0, sizeof f);
    one.parallel_scan_bytes = SIZE_MAX;
    f.src = json;
    f.len = len;
    f.buf = malloc(len + 1);
    for (i = 0; i <= len; i++)
        f.buf[i] = "\n{\"id\":\"p\"},"[i % 13];
    f.cuts = cuts;
    f.ncuts = ncuts;
    f.pause_us = pause_us;
    f.fail_at = fail_at;
    sdui_error_clear(&e2);
    s2 = sdui__scan_pack_fed(f.buf, base, slow_feed_next, &f, &got_len,
                             &failed, &got, &e2);
    compared++;
    if (fail_at >= 0 && fail_at <= ncuts) {
        ok = CHECKF(s2 == SDUI_GZIP && failed == 1,
                    "%s: the feed failed at piece %d: %s, failed %d", what,
                    fail_at, sdui_status_name(s2), failed);
    } else {
        s1 = sdui__scan_pack(json, len, &one, &want, &e1);
        ok = CHECKF(!failed && got_len == len, "%s: fed %zu of %zu bytes",
                    what, got_len, len);
        if (s1 != s2 || (s1 != SDUI_OK &&
                         (e1.status != e2.status || e1.offset != e2.offset ||
                          e1.line != e2.line || e1.column != e2.column ||
                          strcmp(e1.message, e2.message) != 0))) {
            ok = CHECKF(0, "%s: one thread %s @%lld %d:%d \"%s\", fed %s "
                           "@%lld %d:%d \"%s\"",
                        what, sdui_status_name(s1), e1.offset, e1.line,
                        e1.column, e1.message, sdui_status_name(s2),
                        e2.offset, e2.line, e2.column, e2.message);
            save_doc(json, len, what, 0, base);
        } else if (s1 == SDUI_OK && !same_lists(&want, &got)) {
            ok = CHECKF(0, "%s: the fed scan lists other tokens or members "
                           "(%zu tokens, %zu members; one thread %zu, %zu)",
                        what, got.count, got.nmembers, want.count,
                        want.nmembers);
            save_doc(json, len, what, 0, base);
        }
        sdui__scan_result_free(&want);
    }
    sdui__scan_result_free(&got);
    free(f.buf);
    return ok;
}

/* Sorts n cuts (insertion sort: a few dozen at most). */
static void sort_cuts(size_t *c, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        size_t v = c[i];
        for (j = i; j > 0 && c[j - 1] > v; j--)
            c[j] = c[j - 1];
        c[j] = v;
    }
}

/* Up to max cuts of json where sdui_gzip_encode_members would cut it
 * into members of mb; returns how many. */
static int rule_cuts(const char *json, size_t len, size_t mb, size_t *cuts,
                     int max)
{
    size_t from = 0, aim = mb / 4 + 1;
    int n = 0;
    if (len <= mb)
        return 0;
    while (from < len && n < max) {
        const char *nl;
        if (len - from <= aim)
            break;
        nl = memchr(json + from + aim, '\n', len - from - aim);
        from = nl ? (size_t)(nl - json) + 1 : from + aim;
        if (from < len)
            cuts[n++] = from;
        aim = rule_next_aim(aim, mb);
    }
    return n;
}

/*
 * The pipelined scan fed slowly, so its thread really scans part after
 * part: valid documents of every style and layout, defects at many
 * offsets, shape defects in each token, limits, the feed failing at each
 * piece, pieces that bring no bytes, and large documents whose tail is
 * split between the two threads.
 */
static void test_fed_scan_slowly(void)
{
    sdui_limits lim = test_limits();
    int style, layout, i, bad = 0;
    size_t cuts[64], at;
    char what[128];
    /* Valid documents, cut by the members' rule and at random. */
    for (style = STYLE_LINES; style <= STYLE_WS; style++)
        for (layout = 0; layout < 4; layout++) {
            spec sp = plain_spec(16, style);
            str js;
            size_t k;
            sp.layout = layout;
            sp.escapes = 1;
            sp.crlf = layout & 1;
            js = make_doc(&sp);
            for (k = 2; k < NSIZES; k++) {
                int nc = rule_cuts(js.b, js.n, sizes[k], cuts, 24);
                snprintf(what, sizeof what,
                         "slow feed, style %d layout %d, members of %zu",
                         style, layout, sizes[k]);
                if (!same_fed_scan(js.b, js.n, cuts, nc, 200, -1, &lim, what))
                    bad++;
            }
            for (i = 0; i < 8; i++) {
                int nc = 2 + (int)rnd(10), j;
                for (j = 0; j < nc; j++)
                    cuts[j] = rnd((unsigned)js.n + 1);
                sort_cuts(cuts, nc);
                snprintf(what, sizeof what,
                         "slow feed, style %d layout %d, %d random cuts",
                         style, layout, nc);
                if (!same_fed_scan(js.b, js.n, cuts, nc, 100, -1, &lim, what))
                    bad++;
            }
            /* The feed fails at each piece. */
            {
                int nc = rule_cuts(js.b, js.n, 256, cuts, 24);
                for (i = 0; i <= nc; i++) {
                    snprintf(what, sizeof what,
                             "slow feed, style %d layout %d, fails at %d",
                             style, layout, i);
                    if (!same_fed_scan(js.b, js.n, cuts, nc, 50, i, &lim,
                                       what))
                        bad++;
                }
            }
            free(js.b);
        }
    /* Byte defects at every fourth offset, cut at lines around them. */
    for (style = STYLE_LINES; style <= STYLE_WS; style++) {
        spec sp = plain_spec(style == STYLE_PRETTY ? 4 : 8, style);
        str js;
        sp.layout = style;
        sp.escapes = 1;
        js = make_doc(&sp);
        for (at = 0; at < js.n; at += 4) {
            size_t n;
            int defect = (int)((at / 4) % NDEFECTS), nc;
            char *b = with_defect(&js, at, defect, &n);
            nc = rule_cuts(b, n, sizes[2 + (at / 4) % (NSIZES - 2)], cuts,
                           12);
            snprintf(what, sizeof what, "slow feed, style %d, defect %d at %zu",
                     style, defect, at);
            if (!same_fed_scan(b, n, cuts, nc, 60, -1, &lim, what))
                bad++;
            free(b);
        }
        free(js.b);
    }
    /* Shape defects in each token; limits. */
    for (style = STYLE_LINES; style <= STYLE_WS; style++)
        for (i = 0; i < 12; i++) {
            int kind;
            for (kind = 0; kind < 9; kind++) {
                spec sp = plain_spec(12, style);
                sdui_limits l = lim;
                str js;
                int nc;
                sp.layout = (i + kind) % 4;
                sp.escapes = kind & 1;
                switch (kind) {
                case 0: sp.no_id = i; break;
                case 1: sp.dup_id = i; break;
                case 2: sp.not_object = i; break;
                case 3: sp.big = i; l.max_token_bytes = 700; break;
                case 4: sp.deep = i; l.max_depth = 8; break;
                case 5: l.max_tokens = (size_t)i; break;
                case 6: sp.dup_format = 1; sp.seed = (unsigned)i; break;
                case 7: sp.no_format = 1; sp.seed = (unsigned)i; break;
                default: sp.trailing = "\n{}"; sp.seed = (unsigned)i; break;
                }
                js = make_doc(&sp);
                nc = rule_cuts(js.b, js.n, sizes[2 + (i + kind) % 6], cuts,
                               24);
                snprintf(what, sizeof what,
                         "slow feed, style %d, shape defect %d (%d)", style,
                         kind, i);
                if (!same_fed_scan(js.b, js.n, cuts, nc, 100, -1, &l, what))
                    bad++;
                free(js.b);
            }
        }
    /* Pieces that bring nothing: the first, in the middle, the last. */
    {
        spec sp = plain_spec(10, STYLE_LINES);
        str js = make_doc(&sp);
        size_t c[] = {0, 0, 300, 300, 300, 900, js.n, js.n};
        if (!same_fed_scan(js.b, js.n, c, 8, 100, -1, &lim,
                           "slow feed, empty pieces"))
            bad++;
        free(js.b);
    }
    /* Large documents: the tail left when the last piece comes is over
     * 64 KB, so the caller's thread scans its second half. */
    for (i = 0; i < 12; i++) {
        spec sp = plain_spec(1500, i % 3 == 2 ? STYLE_PRETTY : STYLE_LINES);
        sdui_limits l = lim;
        str js;
        size_t c[3];
        sp.layout = i % 4;
        sp.escapes = 1;
        switch (i / 2) {
        case 1: sp.no_id = 1400; break;
        case 2: sp.dup_format = 1; break;
        case 3: l.max_tokens = 1450; break;
        case 4: sp.no_format = 1; break;
        case 5: sp.trailing = "]"; break;
        default: break;
        }
        js = make_doc(&sp);
        c[0] = js.n / 8;
        c[1] = js.n / 4;
        c[2] = js.n / 3;
        snprintf(what, sizeof what, "slow feed, large %d", i);
        if (!same_fed_scan(js.b, js.n, c, 3, 2000, -1, &l, what))
            bad++;
        free(js.b);
    }
    CHECKF(bad == 0, "%d documents fed slowly scanned differently", bad);
}

/* ------------------------------------------------------------------ */
/* gzip damage                                                         */
/* ------------------------------------------------------------------ */

/* Where each member of a gzip file starts, found with the core's own
 * stream reader; returns the count (at most max). */
static unsigned member_starts(const unsigned char *gz, size_t n,
                              size_t *starts, size_t *data, unsigned max)
{
    sdui_gz_stream s;
    char *out = malloc(1 << 20);
    unsigned k = 0;
    size_t produced;
    sdui_status st;
    sdui_error err;
    memset(&s, 0, sizeof s);
    if (sdui__gz_stream_open(&s, gz, n, &err) != SDUI_OK) {
        free(out);
        return 0;
    }
    while (k < max) {
        sdui_gz_header h;
        size_t at = s.pos;
        if (sdui__gzip_header(gz, n, at, k, &h, NULL) != SDUI_OK)
            break;
        if (sdui__gz_next(&s, out, 1 << 20, &produced, &st, &err) !=
            SDUI_GZ_MEMBER)
            break;
        starts[k] = at;
        data[k] = h.data_pos;
        k++;
    }
    sdui__gz_stream_close(&s);
    free(out);
    return k;
}

/*
 * Opens damaged gzip bytes through the fed path and checks the verdict:
 * sdui_gzip_decode's when it refuses the bytes (status, message, offset,
 * line, column), else the outcome of the same bytes inflated whole and of
 * the JSON they inflate to as one member.
 */
static int same_as_decode(const unsigned char *gz, size_t n,
                          const sdui_limits *base, const char *what)
{
    sdui_limits fed = *base, one = *base;
    sdui_error e_dec, e_fed, e_one;
    sdui_status s_dec, s_fed, s_one;
    char *out = NULL;
    size_t out_len = 0;
    unsigned members = 0, m_fed, m_one;
    str d_fed = {0}, d_one = {0};
    int ok = 1;
    fed.parallel_scan_bytes = 1;
    one.parallel_scan_bytes = SIZE_MAX;
    s_dec = sdui_gzip_decode(gz, n, base->max_inflated_bytes, &out, &out_len,
                             &members, &e_dec);
    s_fed = open_described(gz, n, &fed, &d_fed, &m_fed, &e_fed, 0);
    s_one = open_described(gz, n, &one, &d_one, &m_one, &e_one, 0);
    compared++;
    if (s_dec != SDUI_OK) {
        ok = CHECKF(s_fed == s_dec && e_fed.status == e_dec.status &&
                        e_fed.offset == e_dec.offset &&
                        e_fed.line == e_dec.line &&
                        e_fed.column == e_dec.column &&
                        e_fed.code == e_dec.code &&
                        strcmp(e_fed.message, e_dec.message) == 0,
                    "%s: fed open %s @%lld \"%s\", decode %s @%lld \"%s\"",
                    what, sdui_status_name(s_fed), e_fed.offset,
                    e_fed.message, sdui_status_name(s_dec), e_dec.offset,
                    e_dec.message);
        ok &= CHECKF(s_one == s_dec && e_one.offset == e_dec.offset &&
                         strcmp(e_one.message, e_dec.message) == 0,
                     "%s: the whole open %s \"%s\", decode %s \"%s\"", what,
                     sdui_status_name(s_one), e_one.message,
                     sdui_status_name(s_dec), e_dec.message);
    } else {
        ok = CHECKF(m_fed == m_one &&
                        (s_fed != SDUI_OK || m_fed == members),
                    "%s: members fed %u, whole %u, decode %u", what, m_fed,
                    m_one, members);
        if (d_fed.n != d_one.n || memcmp(d_fed.b, d_one.b, d_fed.n) != 0) {
            ok = CHECKF(0, "%s: decodes, but the fed open differs from the "
                           "whole one",
                        what);
            show_difference("whole vs fed", &d_one, &d_fed);
        }
        /* And as one member: the same outcome again. */
        ok &= same_outcome(out, out_len, base, 1 << 30, 0, what);
    }
    sdui_free(out);
    free(d_fed.b);
    free(d_one.b);
    return ok;
}

/* Flipped bytes in every member, truncations at every offset, and every
 * lie the size field can tell. */
static void test_gzip_damage(void)
{
    enum { MAXM = 256 };
    sdui_limits lim = test_limits();
    spec sp = plain_spec(30, STYLE_LINES);
    str js;
    unsigned char *gz, *b;
    size_t n, starts[MAXM], data[MAXM], at, total;
    unsigned m, k, count;
    int bad = 0, i;
    sdui_error err;
    char what[128];
    sp.layout = 2;
    sp.escapes = 1;
    js = make_doc(&sp);
    CHECK_STATUS(sdui_gzip_encode_members(js.b, js.n, 6, 400, &gz, &n, &err),
                 SDUI_OK);
    m = member_starts(gz, n, starts, data, MAXM);
    CHECKF(m >= 8, "%u members", m);
    b = malloc(2 * n + 64);

    /* The size field as written: version 1, the size, the count. */
    CHECK(gz[3] & 4);
    CHECK(gz[10] == 17 && gz[11] == 0 && gz[12] == 'S' && gz[13] == 'Z' &&
          gz[14] == 13 && gz[15] == 0 && gz[16] == 1);
    total = 0;
    for (i = 0; i < 8; i++)
        total |= (size_t)gz[17 + i] << (8 * i);
    count = (unsigned)gz[25] | (unsigned)gz[26] << 8 |
            (unsigned)gz[27] << 16 | (unsigned)gz[28] << 24;
    CHECK_EQ_INT(total, js.n);
    CHECK_EQ_INT(count, m);
    CHECK_EQ_INT(data[0], 29);

    /* A flipped byte in each member: its header, its deflate data (first,
     * middle, last byte), its CRC-32 and its ISIZE. */
    for (k = 0; k < m; k++) {
        size_t end = k + 1 < m ? starts[k + 1] : n;
        size_t spots[] = {starts[k], starts[k] + 2, starts[k] + 3,
                          data[k], (data[k] + end - 8) / 2, end - 9,
                          end - 8, end - 5, end - 4, end - 1};
        for (i = 0; i < (int)(sizeof spots / sizeof spots[0]); i++) {
            int bit;
            for (bit = 0; bit < 8; bit += 3) {
                memcpy(b, gz, n);
                b[spots[i]] ^= (unsigned char)(1u << bit);
                snprintf(what, sizeof what,
                         "bit %d flipped at %zu (member %u, spot %d)", bit,
                         spots[i], k + 1, i);
                if (!same_as_decode(b, n, &lim, what))
                    bad++;
            }
        }
    }
    /* Cut short at every offset. */
    for (at = 1; at < n; at++) {
        snprintf(what, sizeof what, "truncated to %zu of %zu bytes", at, n);
        if (!same_as_decode(gz, at, &lim, what))
            bad++;
    }
    /* Member k taken out; members k and k+1 swapped. */
    for (k = 1; k < m; k++) {
        size_t end = k + 1 < m ? starts[k + 1] : n, cut = end - starts[k];
        memcpy(b, gz, starts[k]);
        memcpy(b + starts[k], gz + end, n - end);
        snprintf(what, sizeof what, "member %u taken out", k + 1);
        if (!same_as_decode(b, n - cut, &lim, what))
            bad++;
        if (k + 1 < m) {
            size_t end2 = k + 2 < m ? starts[k + 2] : n;
            size_t l2 = end2 - end;
            memcpy(b, gz, starts[k]);
            memcpy(b + starts[k], gz + end, l2);
            memcpy(b + starts[k] + l2, gz + starts[k], cut);
            memcpy(b + starts[k] + l2 + cut, gz + end2, n - end2);
            snprintf(what, sizeof what, "members %u and %u swapped", k + 1,
                     k + 2);
            if (!same_as_decode(b, n, &lim, what))
                bad++;
        }
    }
    /* Bytes after the last member: garbage, zeros, another member. */
    {
        static const char *const tails[] = {"x", "\0\0\0\0", "\x1f",
                                            "\x1f\x8b", "\x1f\x8b\x08"};
        static const size_t tail_len[] = {1, 4, 1, 2, 3};
        for (i = 0; i < 5; i++) {
            memcpy(b, gz, n);
            memcpy(b + n, tails[i], tail_len[i]);
            snprintf(what, sizeof what, "trailing bytes %d", i);
            if (!same_as_decode(b, n + tail_len[i], &lim, what))
                bad++;
        }
        memcpy(b, gz, n);
        memcpy(b + n, gz + starts[m - 1], n - starts[m - 1]);
        if (!same_as_decode(b, n + n - starts[m - 1], &lim,
                            "the last member twice"))
            bad++;
    }
    /* The size field's lies. */
    {
        static const long long total_delta[] = {-1000, -2, -1, 1, 2, 1000};
        for (i = 0; i < 6; i++) {
            memcpy(b, gz, n);
            put_le(b + 17, (uint64_t)((long long)total + total_delta[i]), 8);
            snprintf(what, sizeof what, "size field total %+lld",
                     total_delta[i]);
            if (!same_as_decode(b, n, &lim, what))
                bad++;
        }
        for (i = -2; i <= 2; i++) {
            if (i == 0)
                continue;
            memcpy(b, gz, n);
            put_le(b + 25, (uint64_t)((long long)count + i), 4);
            snprintf(what, sizeof what, "size field count %+d", i);
            if (!same_as_decode(b, n, &lim, what))
                bad++;
        }
        /* No members at all, more than the bytes can hold. */
        memcpy(b, gz, n);
        put_le(b + 25, 0, 4);
        if (!same_as_decode(b, n, &lim, "size field count 0"))
            bad++;
        put_le(b + 25, n / 18 + 1, 4);
        if (!same_as_decode(b, n, &lim, "size field count too high"))
            bad++;
        put_le(b + 25, 0xffffffffu, 4);
        if (!same_as_decode(b, n, &lim, "size field count 2^32-1"))
            bad++;
        /* A total no deflate data of this size could make. */
        memcpy(b, gz, n);
        put_le(b + 17, (uint64_t)n * 1032 + 1, 8);
        if (!same_as_decode(b, n, &lim, "size field total impossible"))
            bad++;
        put_le(b + 17, UINT64_MAX, 8);
        if (!same_as_decode(b, n, &lim, "size field total 2^64-1"))
            bad++;
        put_le(b + 17, UINT64_MAX - 1, 8);
        if (!same_as_decode(b, n, &lim, "size field total 2^64-2"))
            bad++;
        /* A total over the limit: SDUI_LIMIT before anything is
         * allocated, whatever the limit. */
        {
            sdui_limits l = lim;
            l.max_inflated_bytes = total - 1;
            if (!same_as_decode(gz, n, &l, "total over max_inflated_bytes"))
                bad++;
            l.max_inflated_bytes = total;
            if (!same_as_decode(gz, n, &l, "total at max_inflated_bytes"))
                bad++;
            memcpy(b, gz, n);
            put_le(b + 17, (uint64_t)n * 1032 + 1, 8);
            l.max_inflated_bytes = (size_t)n * 1032;
            if (!same_as_decode(b, n, &l, "impossible total over the limit"))
                bad++;
        }
        /* Not a size field any more: read without a hint. */
        memcpy(b, gz, n);
        b[16] = 2;
        if (!same_as_decode(b, n, &lim, "size field version 2"))
            bad++;
        memcpy(b, gz, n);
        b[12] = 'X';
        if (!same_as_decode(b, n, &lim, "no SZ subfield"))
            bad++;
        memcpy(b, gz, n);
        b[14] = 12;
        if (!same_as_decode(b, n, &lim, "SZ subfield of 12 bytes"))
            bad++;
        memcpy(b, gz, n);
        b[10] = 16;
        if (!same_as_decode(b, n, &lim, "FEXTRA one byte short"))
            bad++;
    }
    /* With a smaller limit, the first member that passes it. */
    {
        sdui_limits l = lim;
        l.max_inflated_bytes = js.n / 2;
        memcpy(b, gz, n);
        put_le(b + 17, js.n / 3, 8);
        if (!same_as_decode(b, n, &l, "total under the limit, members not"))
            bad++;
    }
    CHECKF(bad == 0, "%d damaged gzip files opened differently", bad);
    CHECK(m > 0 && m <= MAXM);
    free(b);
    sdui_free(gz);
    free(js.b);
}

/* ------------------------------------------------------------------ */
/* The encoder                                                         */
/* ------------------------------------------------------------------ */

/*
 * Checks the members of an encoded file against the cutting rule: the
 * first aims at member_bytes / 4 + 1 bytes, each next as rule_next_aim
 * says, up to
 * member_bytes, and a member ends just after the first newline at or past
 * its aim (at the aim when there is none); the last takes the rest.
 */
static int cuts_follow_rule(const unsigned char *gz, size_t n,
                            const char *json, size_t len, size_t mb)
{
    sdui_gz_stream s;
    char *out = malloc(len + 1);
    size_t from = 0, aim = mb / 4 + 1, produced;
    sdui_status st;
    sdui_error err;
    int ok = 1, k;
    if (len <= mb) {
        /* One member, no cutting. */
        free(out);
        return rule_members(json, len, mb) == 1;
    }
    memset(&s, 0, sizeof s);
    sdui__gz_stream_open(&s, gz, n, &err);
    while ((k = sdui__gz_next(&s, out + from, len + 1 - from, &produced, &st,
                              &err)) == SDUI_GZ_MEMBER) {
        size_t want;
        const char *nl;
        if (len - from <= aim)
            want = len - from;
        else {
            nl = memchr(json + from + aim, '\n', len - from - aim);
            want = nl ? (size_t)(nl - json) + 1 - from : aim;
        }
        if (produced != want) {
            fprintf(stderr, "  member %u at %zu: %zu bytes, the rule says "
                            "%zu (aim %zu)\n",
                    s.n, from, produced, want, aim);
            ok = 0;
        }
        from += produced;
        aim = rule_next_aim(aim, mb);
    }
    sdui__gz_stream_close(&s);
    ok &= k == SDUI_GZ_END && from == len && memcmp(out, json, len) == 0;
    free(out);
    return ok;
}

/* sdui_gzip_encode_members: one member (sdui_gzip_encode's bytes) up to
 * member_bytes, members cut by the rule above it, read by gzip -dc and
 * Python byte for byte, with a size field that tells the truth. */
static void test_encoder(void)
{
    static const int levels[] = {-1, 0, 1, 6, 9, 12};
    spec sp = plain_spec(60, STYLE_LINES);
    str js, nonl = {0};
    unsigned char *a, *b;
    size_t na, nb, k, i;
    sdui_error err;
    char cmd[256];
    const char *path;
    sp.layout = 2;
    sp.escapes = 1;
    js = make_doc(&sp);
    for (i = 0; i < 3000; i++)
        sadd(&nonl, "%c", 'a' + (int)(i % 23));

    /* Up to member_bytes: one member, byte for byte sdui_gzip_encode's. */
    for (k = 0; k < sizeof levels / sizeof levels[0]; k++) {
        size_t mbs[] = {js.n, js.n + 1, 0};
        for (i = 0; i < 3; i++) {
            CHECK_STATUS(sdui_gzip_encode(js.b, js.n, levels[k], &a, &na,
                                          &err),
                         SDUI_OK);
            CHECK_STATUS(sdui_gzip_encode_members(js.b, js.n, levels[k],
                                                  mbs[i], &b, &nb, &err),
                         SDUI_OK);
            CHECKF(na == nb && memcmp(a, b, na) == 0,
                   "level %d, member_bytes %zu: one member, as "
                   "sdui_gzip_encode writes it",
                   levels[k], mbs[i]);
            sdui_free(a);
            sdui_free(b);
        }
    }
    /* Empty input: one empty member. */
    CHECK_STATUS(sdui_gzip_encode("", 0, 6, &a, &na, &err), SDUI_OK);
    CHECK_STATUS(sdui_gzip_encode_members("", 0, 6, 1, &b, &nb, &err),
                 SDUI_OK);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    sdui_free(a);
    sdui_free(b);
    /* Argument errors. */
    CHECK_STATUS(sdui_gzip_encode_members(js.b, js.n, 6, 64, NULL, &nb, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_gzip_encode_members(NULL, 100, 6, 64, &b, &nb, &err),
                 SDUI_ARGUMENT);
    CHECK(b == NULL && nb == 0);
    CHECK_STATUS(sdui_gzip_encode_members(js.b, js.n, 13, 64, &b, &nb, &err),
                 SDUI_ARGUMENT);
    CHECK(b == NULL);

    /* Members by the rule, and the size field, for many sizes. */
    for (k = 0; k < NSIZES; k++) {
        const str *docs[2] = {&js, &nonl};
        int d;
        for (d = 0; d < 2; d++) {
            const str *doc = docs[d];
            char *whole = NULL;
            size_t wl = 0;
            unsigned members = 0;
            CHECK_STATUS(sdui_gzip_encode_members(doc->b, doc->n, 1, sizes[k],
                                                  &b, &nb, &err),
                         SDUI_OK);
            CHECKF(cuts_follow_rule(b, nb, doc->b, doc->n, sizes[k]),
                   "member_bytes %zu, document %d: members cut by the rule",
                   sizes[k], d);
            CHECK_STATUS(sdui_gzip_decode(b, nb, SIZE_MAX, &whole, &wl,
                                          &members, &err),
                         SDUI_OK);
            CHECK(wl == doc->n && memcmp(whole, doc->b, wl) == 0);
            if (doc->n > sizes[k] &&
                CHECK(nb > 29 && b[12] == 'S' && b[13] == 'Z')) {
                unsigned said = (unsigned)b[25] | (unsigned)b[26] << 8 |
                                (unsigned)b[27] << 16 |
                                (unsigned)b[28] << 24;
                CHECKF(said == members && members >= 2,
                       "member_bytes %zu: the size field counts %u members "
                       "of %u",
                       sizes[k], said, members);
            }
            sdui_free(whole);
            sdui_free(b);
        }
    }

    /* gzip -dc, Python and pigz read the members as one document. */
    for (k = 0; k < 3; k++) {
        size_t mb = k == 0 ? 1 : k == 1 ? 100 : 2048;
        size_t got;
        int same;
        CHECK_STATUS(sdui_gzip_encode_members(js.b, js.n, 6, mb, &b, &nb,
                                              &err),
                     SDUI_OK);
        path = to_file("fed", b, nb);
        if (!CHECK(path != NULL)) {
            sdui_free(b);
            continue;
        }
        same = reader_prints(GZIP_DC, path, js.b, js.n, &got);
        CHECKF(same,
               "gzip -dc gives the document (member_bytes %zu, %zu of %zu "
               "bytes)",
               mb, got, js.n);
        snprintf(cmd, sizeof cmd, "gzip -t %s", path);
        CHECKF(system(cmd) == 0, "gzip -t accepts the file");
        CHECKF(reader_prints(PYTHON_GZIP, path, js.b, js.n, &got),
               "Python's gzip gives the document (member_bytes %zu)", mb);
        if (have_pigz())
            CHECKF(reader_prints(PIGZ_DC, path, js.b, js.n, &got),
                   "pigz -dc gives the document (member_bytes %zu)", mb);
        unlink(path);
        sdui_free(b);
    }
    free(nonl.b);
    free(js.b);
}

/* ------------------------------------------------------------------ */
/* Out of memory                                                       */
/* ------------------------------------------------------------------ */

/* A failing allocator for both threads of an open: fails the fail_at-th
 * allocation (0: none) and counts live blocks. */
typedef struct fail_alloc {
    long count, fail_at, live;
    int failed;
} fail_alloc;

/* Counts an allocation; 1 when it is the one to fail. */
static int fa_fails(fail_alloc *a)
{
    long n = __atomic_add_fetch(&a->count, 1, __ATOMIC_SEQ_CST);
    if (n == __atomic_load_n(&a->fail_at, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&a->failed, 1, __ATOMIC_SEQ_CST);
        return 1;
    }
    return 0;
}

/* malloc that fails the fail_at-th allocation. */
static void *fa_malloc(void *ctx, size_t size)
{
    fail_alloc *a = ctx;
    void *p;
    if (fa_fails(a))
        return NULL;
    p = malloc(size ? size : 1);
    if (p)
        __atomic_add_fetch(&a->live, 1, __ATOMIC_SEQ_CST);
    return p;
}

/* realloc that counts as an allocation and can fail the same way. */
static void *fa_realloc(void *ctx, void *ptr, size_t size)
{
    fail_alloc *a = ctx;
    void *p;
    if (fa_fails(a))
        return NULL;
    p = realloc(ptr, size ? size : 1);
    if (p && !ptr)
        __atomic_add_fetch(&a->live, 1, __ATOMIC_SEQ_CST);
    return p;
}

/* free that keeps the live count. */
static void fa_free(void *ctx, void *ptr)
{
    fail_alloc *a = ctx;
    if (ptr) {
        __atomic_sub_fetch(&a->live, 1, __ATOMIC_SEQ_CST);
        free(ptr);
    }
}

/*
 * Fails each allocation of a fed open in turn (whichever thread makes
 * it): the open answers SDUI_OOM, or, when the failed allocation was in a
 * part that is scanned again, the outcome it has without the failure;
 * nothing leaks either way.  A good pack, one with a bad token, one with
 * a damaged member.
 */
static void test_out_of_memory(void)
{
    static fail_alloc fa;
    sdui_allocator a = {fa_malloc, fa_realloc, fa_free, &fa};
    spec sp = plain_spec(40, STYLE_LINES);
    str docs[2];
    unsigned char *gz[3];
    size_t n[3];
    str want[3];
    int i, bad = 0, oom = 0, ok = 0;
    sdui_limits fed = test_limits();
    sdui_error err;
    unsigned members;
    sp.layout = 2;
    docs[0] = make_doc(&sp);
    sp.no_id = 33;
    docs[1] = make_doc(&sp);
    fed.parallel_scan_bytes = 1;
    for (i = 0; i < 3; i++) {
        sdui_limits one = fed;
        unsigned char *g1;
        size_t n1;
        const str *doc = &docs[i == 1];
        one.parallel_scan_bytes = SIZE_MAX;
        sdui_gzip_encode_members(doc->b, doc->n, 1, 200, &gz[i], &n[i], &err);
        want[i].b = NULL;
        want[i].n = want[i].cap = 0;
        if (i == 2) {
            gz[i][n[i] * 3 / 4] ^= 0x40;
            open_described(gz[i], n[i], &fed, &want[i], &members, &err, 1);
            CHECK(strncmp(want[i].b, "gzip", 4) == 0);
            continue;
        }
        sdui_gzip_encode(doc->b, doc->n, 1, &g1, &n1, &err);
        open_described(g1, n1, &one, &want[i], &members, &err, 1);
        sdui_free(g1);
    }
    for (i = 0; i < 3; i++) {
        long at, clean;
        /* A clean run first: how many allocations an open makes. */
        memset(&fa, 0, sizeof fa);
        sdui_set_allocator(&a);
        {
            sdui_pack *p = NULL;
            sdui_pack_open_memory(gz[i], n[i], &fed, &p, &err);
            sdui_pack_free(p);
        }
        sdui_set_allocator(NULL);
        clean = fa.count;
        for (at = 1; at <= clean + 8; at++) {
            sdui_pack *p = NULL;
            sdui_status st;
            str d = {0};
            memset(&fa, 0, sizeof fa);
            fa.fail_at = at;
            sdui_set_allocator(&a);
            st = sdui_pack_open_memory(gz[i], n[i], &fed, &p, &err);
            __atomic_store_n(&fa.fail_at, 0, __ATOMIC_SEQ_CST);
            if (st == SDUI_OOM) {
                oom++;
                if (err.status != SDUI_OOM || p != NULL) {
                    bad++;
                    fprintf(stderr, "  file %d, allocation %ld: OOM with "
                                    "a bad record\n",
                            i, at);
                }
            } else {
                describe(&d, st, &err, p, 1);
                ok++;
                if (d.n != want[i].n || memcmp(d.b, want[i].b, d.n) != 0) {
                    bad++;
                    fprintf(stderr, "  file %d, allocation %ld failed%s:\n", i,
                            at, fa.failed ? "" : " (not reached)");
                    show_difference("expected vs got", &want[i], &d);
                }
            }
            sdui_pack_free(p);
            sdui_set_allocator(NULL);
            if (fa.live != 0) {
                bad++;
                fprintf(stderr, "  file %d, allocation %ld failed: %ld "
                                "blocks leak\n",
                        i, at, fa.live);
            }
            free(d.b);
        }
    }
    CHECKF(bad == 0, "%d opens with a failed allocation went wrong", bad);
    CHECKF(oom > 0 && ok > 0, "%d answered SDUI_OOM, %d went on", oom, ok);
    for (i = 0; i < 3; i++) {
        free(want[i].b);
        sdui_free(gz[i]);
    }
    free(docs[0].b);
    free(docs[1].b);
}

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */

/* The files the threads open, and what each must give. */
typedef struct shared_files {
    const unsigned char *gz[3];
    size_t n[3];
    str want[3];     /* with every token parsed        */
    str want_ids[3]; /* ids and members only           */
    sdui_limits lim;
    pthread_barrier_t *start;
} shared_files;

/* One thread's work and findings. */
typedef struct opener {
    shared_files *f;
    int index;
    int rounds;
    int differ;
} opener;

/* Thread body: opens the three files each round, checks each outcome. */
static void *opener_thread(void *arg)
{
    opener *o = arg;
    int r, i;
    pthread_barrier_wait(o->f->start);
    for (r = 0; r < o->rounds; r++)
        for (i = 0; i < 3; i++) {
            int which = (i + o->index + r) % 3;
            str d = {0};
            unsigned members;
            sdui_error err;
            open_described(o->f->gz[which], o->f->n[which], &o->f->lim, &d,
                           &members, &err, (r & 7) == 0);
            {
                const str *w = (r & 7) == 0 ? &o->f->want[which]
                                            : &o->f->want_ids[which];
                if (d.n != w->n || memcmp(d.b, w->b, d.n) != 0)
                    o->differ++;
            }
            free(d.b);
        }
    return NULL;
}

/* 8 threads open the same multi-member packs 50 times over, at once: a
 * good one, one with a JSON error near the end, one with a damaged
 * member.  Every outcome is the one-thread one. */
static void test_threads(void)
{
    enum { THREADS = 8, ROUNDS = 50 };
    shared_files f;
    opener o[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_t start;
    spec sp = plain_spec(150, STYLE_LINES);
    str good, broken;
    unsigned char *gz[3];
    size_t n[3], i;
    sdui_error err;
    unsigned members;
    int t, differ = 0;
    sdui_limits one;
    sp.layout = 2;
    sp.escapes = 1;
    good = make_doc(&sp);
    sp.no_id = 140;
    broken = make_doc(&sp);
    CHECK_STATUS(sdui_gzip_encode_members(good.b, good.n, 6, 512, &gz[0],
                                          &n[0], &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_gzip_encode_members(broken.b, broken.n, 6, 512, &gz[1],
                                          &n[1], &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_gzip_encode_members(good.b, good.n, 6, 512, &gz[2],
                                          &n[2], &err),
                 SDUI_OK);
    gz[2][n[2] * 2 / 3] ^= 0x10;
    memset(&f, 0, sizeof f);
    f.lim = test_limits();
    f.lim.parallel_scan_bytes = 1;
    one = f.lim;
    one.parallel_scan_bytes = SIZE_MAX;
    for (i = 0; i < 3; i++) {
        unsigned char *g1;
        size_t n1;
        f.gz[i] = gz[i];
        f.n[i] = n[i];
        if (i < 2) {
            /* The reference: the document as one member, one thread. */
            const str *doc = i == 0 ? &good : &broken;
            sdui_gzip_encode(doc->b, doc->n, 6, &g1, &n1, &err);
            open_described(g1, n1, &one, &f.want[i], &members, &err, 1);
            open_described(g1, n1, &one, &f.want_ids[i], &members, &err, 0);
            sdui_free(g1);
        } else {
            char *out = NULL;
            size_t ol;
            sdui_status st = sdui_gzip_decode(gz[2], n[2], SIZE_MAX, &out,
                                              &ol, &members, &err);
            CHECK(st == SDUI_GZIP);
            add_error(&f.want[i], st, &err);
            add_error(&f.want_ids[i], st, &err);
            sdui_free(out);
        }
    }
    CHECK(strncmp(f.want[0].b, "ok", 2) == 0);
    CHECK(strncmp(f.want[1].b, "schema", 6) == 0);
    pthread_barrier_init(&start, NULL, THREADS);
    f.start = &start;
    for (t = 0; t < THREADS; t++) {
        o[t].f = &f;
        o[t].index = t;
        o[t].rounds = ROUNDS;
        o[t].differ = 0;
        pthread_create(&th[t], NULL, opener_thread, &o[t]);
    }
    for (t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (t = 0; t < THREADS; t++)
        differ += o[t].differ;
    CHECKF(differ == 0, "%d of %d opens from %d threads differed", differ,
           THREADS * ROUNDS * 3, THREADS);
    for (i = 0; i < 3; i++) {
        free(f.want[i].b);
        free(f.want_ids[i].b);
        sdui_free(gz[i]);
    }
    free(good.b);
    free(broken.b);
}

/* Runs every test. */
int main(void)
{
    test_encoder();
    test_valid_opens();
    test_valid_shapes();
    test_odd_documents();
    test_root_defects();
    test_token_defects();
    test_limit_sweeps();
    test_byte_defects();
    test_random();
    test_large();
    test_large_tail();
    test_arbitrary_cuts();
    test_fed_scan_slowly();
    test_default_limits();
    test_gzip_damage();
    test_out_of_memory();
    test_threads();
    printf("%lu outcomes compared, %lu of them through the fed path\n",
           compared, fed_opens);
    return check_summary();
}
