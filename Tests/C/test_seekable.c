/*
 * test_seekable.c - seekable packs: the writer's output read back by the
 * core, by gzip, pigz and Python; lazy members, once, from many threads;
 * and every lie a table can tell (tables built here member by member).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "shell.h"
#include "strbuf.h"
#include "sdui/alloc.h"
#include "sdui/gzip.h"
#include "sdui/pack.h"

#include "../../csrc/gzip_member.h"
#include "../../csrc/pack_seek.h"

/* The id of token i: one has an escape that decodes to "é". */
static void token_id(str *s, int i)
{
    if (i == 7)
        sadd(s, "\"esc\\u00e9.%d\"", i);
    else
        sadd(s, "\"%s.card.%d\"", i % 3 ? "home" : "shop", i);
}

/* A pack document of n tokens, one per line, with a root member before
 * and one after "tokens". */
static str pack_json(int n)
{
    str s = {0};
    int i;
    sadd(&s, "{\"formatVersion\":1,\"name\":\"seekable test\",\"tokens\":[\n");
    for (i = 0; i < n; i++) {
        sadd(&s, "%s{\"id\":", i ? ",\n" : "");
        token_id(&s, i);
        sadd(&s, ",\"version\":1,\"primitive\":\"Text\",\"primitiveVersion\":1,"
                 "\"props\":{\"text\":\"token %d says hello to the test\","
                 "\"color\":\"#%06X\",\"size\":%d}}",
             i, (unsigned)(i * 7919) & 0xffffff, 10 + i % 9);
    }
    sadd(&s, "\n],\"screens\":{\"home\":[\"home.card.1\"]}}");
    return s;
}

/* The standard tools read a seekable pack as one document. */
static void test_tools_read_it(void)
{
    str js = pack_json(300);
    sdui_seekable_options o = {2048, 8192, 6};
    unsigned char *gz;
    size_t n, got;
    sdui_error err;
    const char *path;
    int same;
    CHECK_STATUS(sdui_pack_write_seekable(js.b, js.n, &o, NULL, &gz, &n, &err),
                 SDUI_OK);
    path = to_file("seek", gz, n);
    same = reader_prints(GZIP_DC, path, js.b, js.n, &got);
    CHECKF(same, "gzip -dc gives the plain JSON (%zu of %zu bytes)", got,
           js.n);
    CHECKF(reader_prints(PYTHON_GZIP, path, js.b, js.n, &got),
           "Python's gzip gives the plain JSON");
    if (have_pigz()) {
        CHECKF(reader_prints(PIGZ_DC, path, js.b, js.n, &got),
               "pigz -dc gives the plain JSON");
    } else
        printf("note: pigz is not installed; checked gzip and Python\n");
    /* The core's whole-file decoder too, into one buffer. */
    {
        char *whole;
        size_t wl;
        unsigned members;
        CHECK_STATUS(sdui_gzip_decode(gz, n, 1 << 24, &whole, &wl, &members,
                                      &err),
                     SDUI_OK);
        CHECK(wl == js.n && memcmp(whole, js.b, wl) == 0);
        CHECK(members > 5);
        sdui_free(whole);
    }
    unlink(path);
    sdui_free(gz);
    free(js.b);
}

/* Opening reads headers and two members; tokens come as from the plain
 * pack, members inflate only when asked for. */
static void test_lazy_members(void)
{
    str js = pack_json(400);
    sdui_seekable_options o = {1024, 4096, 9};
    unsigned char *gz, *plain_gz;
    size_t n, pn, i, jl;
    sdui_error err;
    sdui_pack *sk, *pl;
    sdui_pack_info info;
    const char *a, *b;
    size_t al, bl;

    CHECK_STATUS(sdui_pack_write_seekable(js.b, js.n, &o, NULL, &gz, &n, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_gzip_encode(js.b, js.n, 9, &plain_gz, &pn, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_pack_open_memory(gz, n, NULL, &sk, &err), SDUI_OK);
    CHECK_STATUS(sdui_pack_open_memory(plain_gz, pn, NULL, &pl, &err),
                 SDUI_OK);
    if (!sk || !pl)
        return;
    sdui_pack_get_info(sk, &info);
    CHECK(info.seekable == 1);
    CHECK(info.members > 10);
    CHECK_EQ_INT(info.members_inflated, 2); /* the first and the last */
    CHECK_EQ_INT(info.tokens, 400);
    /* The first member's ids are there without reading other tables. */
    CHECK(sdui_pack_contains(sk, "shop.card.0", 11));
    CHECK_EQ_INT(info.raw_bytes, js.n);
    CHECK_EQ_INT(info.compressed_bytes, n);
    sdui_pack_get_info(pl, &info);
    CHECK(info.seekable == 0 && info.members == 1 && info.members_inflated == 1);
    /* A root member before and after "tokens", without inflating more. */
    CHECK_STATUS(sdui_pack_member(sk, "screens", &a, &al, &err), SDUI_OK);
    CHECK_STATUS(sdui_pack_member(pl, "screens", &b, &bl, &err), SDUI_OK);
    CHECK(al == bl && memcmp(a, b, al) == 0);
    CHECK_STATUS(sdui_pack_member(sk, "name", &a, &al, &err), SDUI_OK);
    CHECK(al == 15 && memcmp(a, "\"seekable test\"", 15) == 0);
    /* The escaped id decodes as in the plain pack. */
    CHECK(sdui_pack_contains(sk, "esc\xc3\xa9.7", 7));
    /* One token in the middle inflates one more member. */
    {
        sdui_token *t;
        CHECK_STATUS(sdui_pack_get(sk, "home.card.200", 13, &t, &err),
                     SDUI_OK);
        sdui_token_release(t);
        sdui_pack_get_info(sk, &info);
        CHECK_EQ_INT(info.members_inflated, 3);
        CHECK_STATUS(sdui_pack_get(sk, "home.card.202", 13, &t, &err),
                     SDUI_OK);
        sdui_token_release(t);
        sdui_pack_get_info(sk, &info);
        CHECKF(info.members_inflated <= 4, "neighbours share members");
    }
    CHECK_STATUS(sdui_pack_get(sk, "nope", 4, &(sdui_token *){0}, &err),
                 SDUI_NOT_FOUND);
    /* Every token equal to the plain pack's. */
    CHECK_EQ_INT(sdui_pack_count(sk), sdui_pack_count(pl));
    for (i = 0; i < sdui_pack_count(sk); i++) {
        size_t il, x, y;
        const char *id = sdui_pack_id_at(sk, i, &il);
        sdui_token *t1 = NULL, *t2 = NULL;
        CHECK_STATUS(sdui_pack_get(sk, id, il, &t1, &err), SDUI_OK);
        CHECK_STATUS(sdui_pack_get(pl, id, il, &t2, &err), SDUI_OK);
        if (t1 && t2) {
            const char *j1 = sdui_token_json(t1, &x), *j2 = sdui_token_json(t2, &y);
            CHECK(x == y && memcmp(j1, j2, x) == 0);
        }
        sdui_token_release(t1);
        sdui_token_release(t2);
    }
    sdui_pack_get_info(sk, &info);
    CHECK_EQ_INT(info.members_inflated, info.members);
    /* "tokens" spans every member: whole once they are inflated. */
    CHECK_STATUS(sdui_pack_member(sk, "tokens", &a, &al, &err), SDUI_OK);
    CHECK_STATUS(sdui_pack_member(pl, "tokens", &b, &bl, &err), SDUI_OK);
    CHECK(al == bl && memcmp(a, b, al) == 0);
    a = sdui_pack_json(sk, &jl);
    CHECK(a && jl == js.n && memcmp(a, js.b, jl) == 0);
    sdui_pack_free(sk);
    sdui_pack_free(pl);
    sdui_free(gz);
    sdui_free(plain_gz);
    free(js.b);
}

/* Many threads ask for every token at once. */
typedef struct race {
    sdui_pack *pack;
    int failures;
} race;

/* Thread body: gets every token from the end backwards. */
static void *race_body(void *arg)
{
    race *r = arg;
    size_t i = sdui_pack_count(r->pack);
    while (i-- > 0) {
        size_t il;
        const char *id = sdui_pack_id_at(r->pack, i, &il);
        sdui_token *t;
        sdui_error err;
        if (sdui_pack_get(r->pack, id, il, &t, &err) != SDUI_OK)
            r->failures++;
        else
            sdui_token_release(t);
    }
    return NULL;
}

/* Each member is inflated once however many threads want it. */
static void test_threads(void)
{
    str js = pack_json(600);
    sdui_seekable_options o = {512, 2048, 1};
    unsigned char *gz;
    size_t n;
    sdui_error err;
    sdui_pack *p;
    pthread_t th[8];
    race r[8];
    sdui_pack_info info;
    int i, failures = 0;
    CHECK_STATUS(sdui_pack_write_seekable(js.b, js.n, &o, NULL, &gz, &n, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_pack_open_memory(gz, n, NULL, &p, &err), SDUI_OK);
    for (i = 0; i < 8; i++) {
        r[i].pack = p;
        r[i].failures = 0;
        pthread_create(&th[i], NULL, race_body, &r[i]);
    }
    for (i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        failures += r[i].failures;
    }
    CHECK_EQ_INT(failures, 0);
    sdui_pack_get_info(p, &info);
    CHECK_EQ_INT(info.members_inflated, info.members);
    sdui_pack_free(p);
    sdui_free(gz);
    free(js.b);
}

/* ---- packs built member by member, to tell lies ---- */

/* One member to build: its JSON piece and what its table says. */
typedef struct part {
    const char *json;
    const char *ids[4];  /* NULL-terminated: the table's ids              */
    long size_delta;     /* added to the true member size in the table    */
    int pre_subfield;    /* an unknown subfield before the table          */
} part;

/* Builds a file from parts; total/members/total_ids of 0 mean "true". */
static unsigned char *build(const part *parts, int np, uint32_t total,
                            uint32_t members, uint32_t total_ids,
                            size_t *len)
{
    unsigned char *out = NULL;
    size_t i, n = 0;
    uint32_t t = 0, ids = 0;
    for (i = 0; i < (size_t)np; i++) {
        size_t k;
        t += (uint32_t)strlen(parts[i].json);
        for (k = 0; parts[i].ids[k]; k++)
            ids++;
    }
    for (i = 0; i < (size_t)np; i++) {
        sdui_seek_id sid[4];
        size_t k, el, ml;
        unsigned char *extra, *member, *field;
        sdui_error err;
        sdui_gz_header h;
        const unsigned char *tab;
        size_t tl;
        for (k = 0; parts[i].ids[k]; k++) {
            sid[k].bytes = parts[i].ids[k];
            sid[k].len = strlen(parts[i].ids[k]);
        }
        sdui__seek_encode(sid, k, i == 0, 0, total ? total : t,
                          members ? members : (uint32_t)np,
                          total_ids ? total_ids : ids, 6, &extra, &el, &err);
        field = malloc(el + 8);
        n = 0;
        if (parts[i].pre_subfield) {
            memcpy(field, "QZ\3\0abc", 7);
            n = 7;
        }
        memcpy(field + n, extra, el);
        el += n;
        sdui_free(extra);
        sdui__gzip_write_member(parts[i].json, strlen(parts[i].json), 6, field,
                                el, &member, &ml, &err);
        free(field);
        sdui__gzip_header(member, ml, 0, 0, &h, NULL);
        sdui__gzip_subfield(h.extra, h.extra_len, 'S', 'K', &tab, &tl);
        {
            uint32_t sz = (uint32_t)((long)ml + parts[i].size_delta);
            unsigned char *p = (unsigned char *)tab + 2;
            p[0] = (unsigned char)sz;
            p[1] = (unsigned char)(sz >> 8);
            p[2] = (unsigned char)(sz >> 16);
            p[3] = (unsigned char)(sz >> 24);
        }
        out = realloc(out, *len + ml);
        memcpy(out + *len, member, ml);
        *len += ml;
        sdui_free(member);
    }
    return out;
}

/* Opens bytes expecting status want at open; returns the pack on OK. */
static sdui_pack *open_expect(const unsigned char *b, size_t n,
                              sdui_status want, const char *words,
                              int line)
{
    sdui_pack *p = NULL;
    sdui_error err;
    sdui_status st = sdui_pack_open_memory(b, n, NULL, &p, &err);
    check_record_(st == want, __FILE__, line, "open is %s, expected %s (%s)",
                  sdui_status_name(st), sdui_status_name(want),
                  st ? err.message : "");
    if (st != SDUI_OK && words)
        check_record_(strstr(err.message, words) != NULL, __FILE__, line,
                      "message \"%s\" names \"%s\"", err.message, words);
    return p;
}

/* Gets id from p expecting want, with words in the message. */
static void get_expect(sdui_pack *p, const char *id, sdui_status want,
                       const char *words, int line)
{
    sdui_token *t = NULL;
    sdui_error err;
    sdui_status st = sdui_pack_get(p, id, strlen(id), &t, &err);
    check_record_(st == want, __FILE__, line, "get %s is %s, expected %s (%s)",
                  id, sdui_status_name(st), sdui_status_name(want),
                  st ? err.message : "");
    if (st != SDUI_OK && words)
        check_record_(strstr(err.message, words) != NULL, __FILE__, line,
                      "message \"%s\" names \"%s\"", err.message, words);
    sdui_token_release(t);
}

#define HEAD "{\"formatVersion\":1,\"tokens\":[\n"
#define TOK(x) "{\"id\":\"" x "\",\"version\":1,\"primitive\":\"Text\"," \
               "\"primitiveVersion\":1,\"props\":{}}"

/* From a file: only headers are read at open; members come from the file
 * on first use; a file cut short under the pack is an I/O error for the
 * members not read yet, never a crash. */
static void test_from_file(void)
{
    str js = pack_json(400);
    sdui_seekable_options o = {1024, 4096, 6};
    unsigned char *gz;
    size_t n, jl;
    sdui_error err;
    sdui_pack *p;
    sdui_pack_info info;
    const char *path, *j;
    char moved[80];
    CHECK_STATUS(sdui_pack_write_seekable(js.b, js.n, &o, NULL, &gz, &n, &err),
                 SDUI_OK);
    path = to_file("seek", gz, n);
    CHECK_STATUS(sdui_pack_open_file(path, NULL, &p, &err), SDUI_OK);
    if (p) {
        sdui_pack_get_info(p, &info);
        CHECK(info.seekable && info.members_inflated == 2);
        CHECK_EQ_INT(info.compressed_bytes, n);
        get_expect(p, "home.card.100", SDUI_OK, NULL, __LINE__);
        /* Replaced by rename: the pack keeps reading its own file. */
        snprintf(moved, sizeof moved, "%s.old", path);
        CHECK(rename(path, moved) == 0);
        to_file("seek", "garbage", 7);
        get_expect(p, "home.card.200", SDUI_OK, NULL, __LINE__);
        /* Cut short in place: members not read yet fail by name. */
        CHECK(truncate(moved, (off_t)(n / 2)) == 0);
        get_expect(p, "home.card.398", SDUI_IO, "shorter", __LINE__);
        get_expect(p, "home.card.100", SDUI_OK, NULL, __LINE__);
        j = sdui_pack_json(p, &jl);
        CHECK(j == NULL && jl == 0);
        sdui_pack_free(p);
        unlink(moved);
    }
    /* Whole again, every token from the file equals the JSON. */
    path = to_file("seek", gz, n);
    CHECK_STATUS(sdui_pack_open_file(path, NULL, &p, &err), SDUI_OK);
    if (p) {
        j = sdui_pack_json(p, &jl);
        CHECK(j && jl == js.n && memcmp(j, js.b, jl) == 0);
        sdui_pack_free(p);
    }
    unlink(path);
    sdui_free(gz);
    free(js.b);
}

/* Every lie a table can tell is an error when it matters. */
static void test_tampered(void)
{
    unsigned char *b;
    size_t n;
    sdui_pack *p;

    /* The honest pack first, with unknown subfields beside the tables. */
    {
        part ok[] = {{HEAD TOK("a"), {"a"}, 0, 1},
                     {",\n" TOK("b") ",\n" TOK("c"), {"b", "c"}, 0, 1},
                     {",\n" TOK("d"), {"d"}, 0, 0},
                     {",\n" TOK("e") "\n]}", {"e"}, 0, 1}};
        n = 0;
        b = build(ok, 4, 0, 0, 0, &n);
        p = open_expect(b, n, SDUI_OK, NULL, __LINE__);
        if (p) {
            get_expect(p, "c", SDUI_OK, NULL, __LINE__);
            get_expect(p, "d", SDUI_OK, NULL, __LINE__);
            CHECK_EQ_INT(sdui_pack_count(p), 5);
        }
        sdui_pack_free(p);
        /* Truncated by one byte: the last size points past the end. */
        open_expect(b, n - 1, SDUI_GZIP, "past the end", __LINE__);
        free(b);
    }
    /* An id claimed but absent: a table lists "x" the member lacks. */
    {
        part t[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                    {",\n" TOK("b"), {"b", "x"}, 0, 0},
                    {",\n" TOK("d"), {"d"}, 0, 0},
                    {",\n" TOK("e") "\n]}", {"e"}, 0, 0}};
        n = 0;
        b = build(t, 4, 0, 0, 0, &n);
        p = open_expect(b, n, SDUI_OK, NULL, __LINE__);
        if (p) {
            CHECK(sdui_pack_contains(p, "x", 1));
            get_expect(p, "x", SDUI_SCHEMA, "lists 2 ids", __LINE__);
            get_expect(p, "b", SDUI_SCHEMA, "gzip member 2", __LINE__);
            get_expect(p, "d", SDUI_OK, NULL, __LINE__); /* others work */
        }
        sdui_pack_free(p);
        free(b);
    }
    /* The member holds an id its table does not list. */
    {
        part t[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                    {",\n" TOK("b"), {"y"}, 0, 0},
                    {",\n" TOK("e") "\n]}", {"e"}, 0, 0}};
        n = 0;
        b = build(t, 3, 0, 0, 0, &n);
        p = open_expect(b, n, SDUI_OK, NULL, __LINE__);
        if (p) {
            get_expect(p, "y", SDUI_SCHEMA, "no seekable table lists",
                       __LINE__);
            get_expect(p, "b", SDUI_NOT_FOUND, NULL, __LINE__);
        }
        sdui_pack_free(p);
        free(b);
    }
    /* An id in two members' tables. */
    {
        part t[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                    {",\n" TOK("b"), {"b"}, 0, 0},
                    {",\n" TOK("c"), {"b"}, 0, 0},
                    {",\n" TOK("d") "\n]}", {"d"}, 0, 0}};
        n = 0;
        b = build(t, 4, 0, 0, 0, &n);
        /* The open reads the first and the last table only; asking for
         * an id no table lists reads them all, and then "b" is known to
         * be claimed twice. */
        p = open_expect(b, n, SDUI_OK, NULL, __LINE__);
        if (p) {
            get_expect(p, "zz", SDUI_NOT_FOUND, NULL, __LINE__);
            get_expect(p, "b", SDUI_SCHEMA, "both list it", __LINE__);
            CHECK(sdui_pack_json(p, NULL) == NULL);
            get_expect(p, "a", SDUI_OK, NULL, __LINE__);
        }
        sdui_pack_free(p);
        free(b);
    }
    /* A size that points into the next member, or past the file. */
    {
        static const long deltas[] = {-1, 1, 7, -9, 100000};
        size_t d;
        for (d = 0; d < sizeof deltas / sizeof *deltas; d++) {
            part t[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                        {",\n" TOK("b"), {"b"}, deltas[d], 0},
                        {",\n" TOK("c") "\n]}", {"c"}, 0, 0}};
            n = 0;
            b = build(t, 3, 0, 0, 0, &n);
            sdui_pack_free(open_expect(b, n, SDUI_GZIP, NULL, __LINE__));
            free(b);
        }
    }
    /* Member counts and totals that lie. */
    {
        part t[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                    {",\n" TOK("b"), {"b"}, 0, 0},
                    {",\n" TOK("c") "\n]}", {"c"}, 0, 0}};
        n = 0;
        b = build(t, 3, 0, 4, 0, &n);
        open_expect(b, n, SDUI_GZIP, "ends after 3 members", __LINE__);
        free(b);
        n = 0;
        b = build(t, 3, 0, 2, 0, &n);
        open_expect(b, n, SDUI_GZIP, "after the 2 members", __LINE__);
        free(b);
        n = 0;
        b = build(t, 3, 99999, 0, 0, &n);
        open_expect(b, n, SDUI_GZIP, "inflate to", __LINE__);
        free(b);
        n = 0;
        b = build(t, 3, 0, 0, 9, &n);
        open_expect(b, n, SDUI_GZIP, "9", __LINE__);
        free(b);
    }
    /* JSON cut in the wrong place, or not a pack. */
    {
        part mid[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                      {",\n{\"id\":\"b\",\"version\":1,", {"b"}, 0, 0},
                      {"\"primitive\":\"Text\",\"primitiveVersion\":1,"
                       "\"props\":{}},\n" TOK("c"), {"c"}, 0, 0},
                      {",\n" TOK("d") "\n]}", {"d"}, 0, 0}};
        part nocomma[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                          {"\n" TOK("b"), {"b"}, 0, 0},
                          {",\n" TOK("c") "\n]}", {"c"}, 0, 0}};
        part noformat[] = {{"{\"tokens\":[\n" TOK("a"), {"a"}, 0, 0},
                           {",\n" TOK("c") "\n]}", {"c"}, 0, 0}};
        part lateformat[] = {{"{\"tokens\":[\n" TOK("a"), {"a"}, 0, 0},
                             {",\n" TOK("c") "\n],\"formatVersion\":1}",
                              {"c"}, 0, 0}};
        part twoformats[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                             {",\n" TOK("c") "\n],\"formatVersion\":1}",
                              {"c"}, 0, 0}};
        part closesearly[] = {{HEAD TOK("a") "]}", {"a"}, 0, 0},
                              {",\n" TOK("c") "\n]}", {"c"}, 0, 0}};
        n = 0;
        b = build(mid, 4, 0, 0, 0, &n);
        p = open_expect(b, n, SDUI_OK, NULL, __LINE__);
        if (p) {
            get_expect(p, "b", SDUI_SCHEMA, "ends inside a value", __LINE__);
            get_expect(p, "c", SDUI_SCHEMA, "between two tokens", __LINE__);
            get_expect(p, "d", SDUI_OK, NULL, __LINE__);
        }
        sdui_pack_free(p);
        free(b);
        n = 0;
        b = build(nocomma, 3, 0, 0, 0, &n);
        p = open_expect(b, n, SDUI_OK, NULL, __LINE__);
        if (p)
            get_expect(p, "b", SDUI_SCHEMA, "between two tokens", __LINE__);
        sdui_pack_free(p);
        free(b);
        n = 0;
        b = build(noformat, 2, 0, 0, 0, &n);
        open_expect(b, n, SDUI_SCHEMA, "formatVersion", __LINE__);
        free(b);
        n = 0;
        b = build(lateformat, 2, 0, 0, 0, &n);
        sdui_pack_free(open_expect(b, n, SDUI_OK, NULL, __LINE__));
        free(b);
        n = 0;
        b = build(twoformats, 2, 0, 0, 0, &n);
        open_expect(b, n, SDUI_SCHEMA, "duplicate \"formatVersion\"",
                    __LINE__);
        free(b);
        n = 0;
        b = build(closesearly, 2, 0, 0, 0, &n);
        open_expect(b, n, SDUI_SCHEMA, NULL, __LINE__);
        free(b);
    }
    /* Corrupt deflate data in a middle member: only its tokens fail, with
     * the same error each time. */
    {
        part t[] = {{HEAD TOK("a"), {"a"}, 0, 0},
                    {",\n" TOK("b"), {"b"}, 0, 0},
                    {",\n" TOK("c") "\n]}", {"c"}, 0, 0}};
        sdui_gz_header h0, h1;
        n = 0;
        b = build(t, 3, 0, 0, 0, &n);
        {
            /* Flip a byte in member 2's deflate data. */
            size_t m1;
            sdui__gzip_header(b, n, 0, 0, &h0, NULL);
            {
                const unsigned char *tab;
                size_t tl;
                sdui__gzip_subfield(h0.extra, h0.extra_len, 'S', 'K', &tab,
                                    &tl);
                m1 = (size_t)tab[2] | (size_t)tab[3] << 8;
            }
            sdui__gzip_header(b, n, m1, 1, &h1, NULL);
            b[h1.data_pos + 3] ^= 0x55;
        }
        p = open_expect(b, n, SDUI_OK, NULL, __LINE__);
        if (p) {
            get_expect(p, "b", SDUI_GZIP, "member 2", __LINE__);
            get_expect(p, "b", SDUI_GZIP, "member 2", __LINE__);
            get_expect(p, "c", SDUI_OK, NULL, __LINE__);
            CHECK(sdui_pack_json(p, NULL) == NULL);
            {
                const char *v;
                size_t vl;
                sdui_error err;
                CHECK_STATUS(sdui_pack_member(p, "tokens", &v, &vl, &err),
                             SDUI_GZIP);
            }
        }
        sdui_pack_free(p);
        free(b);
    }
}

/* A plain file of several members is inflated with few reallocations:
 * the buffer grows once by the ratio seen, not by doubling. */
static size_t reallocs;

/* Counting allocator hooks. */
static void *c_malloc(void *ctx, size_t n) { (void)ctx; return malloc(n); }
static void *c_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    reallocs++;
    return realloc(p, n);
}
static void c_free(void *ctx, void *p) { (void)ctx; free(p); }

/* Several plain members inflate with at most three buffer changes. */
static void test_multi_member_sizing(void)
{
    str js = pack_json(2000);
    unsigned char *all = NULL;
    size_t n = 0, i, parts = 8, step = js.n / parts, wl;
    sdui_error err;
    char *whole;
    sdui_allocator a = {c_malloc, c_realloc, c_free, NULL};
    for (i = 0; i < parts; i++) {
        unsigned char *m;
        size_t ml, from = i * step, to = i + 1 == parts ? js.n : from + step;
        sdui_gzip_encode(js.b + from, to - from, 6, &m, &ml, &err);
        all = realloc(all, n + ml);
        memcpy(all + n, m, ml);
        n += ml;
        sdui_free(m);
    }
    sdui_set_allocator(&a);
    reallocs = 0;
    CHECK_STATUS(sdui_gzip_decode(all, n, 1 << 26, &whole, &wl, NULL, &err),
                 SDUI_OK);
    CHECKF(reallocs <= 3, "%zu reallocations for 8 members", reallocs);
    CHECK(wl == js.n && memcmp(whole, js.b, wl) == 0);
    sdui_free(whole);
    /* A seekable pack read whole: its tiny last member says nothing of
     * the total, and still few reallocations. */
    {
        unsigned char *gz;
        size_t gl;
        sdui_seekable_options o = {4096, 16384, 6};
        sdui_set_allocator(NULL);
        CHECK_STATUS(sdui_pack_write_seekable(js.b, js.n, &o, NULL, &gz, &gl,
                                              &err),
                     SDUI_OK);
        sdui_set_allocator(&a);
        reallocs = 0;
        CHECK_STATUS(sdui_gzip_decode(gz, gl, 1 << 26, &whole, &wl, NULL,
                                      &err),
                     SDUI_OK);
        CHECKF(reallocs <= 3, "%zu reallocations for a seekable pack",
               reallocs);
        CHECK(wl == js.n && memcmp(whole, js.b, wl) == 0);
        sdui_free(whole);
        sdui_set_allocator(NULL);
        sdui_free(gz);
        sdui_set_allocator(&a);
    }
    sdui_set_allocator(NULL);
    free(all);
    free(js.b);
}

/* Runs every test. */
int main(void)
{
    test_tools_read_it();
    test_lazy_members();
    test_threads();
    test_from_file();
    test_tampered();
    test_multi_member_sizing();
    return check_summary();
}
