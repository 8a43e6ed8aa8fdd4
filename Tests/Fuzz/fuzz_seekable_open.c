/*
 * fuzz_seekable_open.c - libFuzzer harness for the seekable pack reader:
 * header hopping, the member tables, the id index and lazy inflation.
 *
 * Each input is opened as a pack from memory (a seekable pack when its
 * first header carries a table with the totals, else the plain path).
 * When it opens, every listed token is asked for (each member inflates on
 * first use), then the whole document.  Two-path check: when every member
 * inflated and checked out, the document the members make must be what
 * the plain whole-file decoder gives, that document opened as a plain pack
 * must be accepted too, with the same ids, and each token must come out
 * of both with the same status and the same bytes.  A broken invariant
 * aborts, which libFuzzer reports as a crash.
 *
 * Seeds.  With FUZZ_SEEKABLE_SEEDS=DIR in the environment the binary does
 * not fuzz: it writes real seekable packs made by sdui_pack_write_seekable
 * (several sizes and member aims, escaped ids, root members on both sides
 * of "tokens") into DIR and exits (Tests/Fuzz/run.sh does this before
 * fuzzing).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_seekable_open: invariant broken at line %d: %s\n",
            line, what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* Small limits, so the fuzzer reaches them. */
static sdui_limits small_limits(void)
{
    sdui_limits l;
    sdui_limits_default(&l);
    l.max_inflated_bytes = 1 << 20;
    l.max_tokens = 2000;
    l.max_depth = 16;
    return l;
}

/* Compares the seekable pack with the plain pack of its own document. */
static void two_paths(const uint8_t *data, size_t size, sdui_pack *sk,
                      const char *json, size_t json_len,
                      const sdui_limits *lim)
{
    char *whole = NULL;
    size_t wl = 0, i, n;
    unsigned char *gz;
    size_t gl;
    sdui_pack *pl = NULL;
    sdui_error err;
    REQUIRE(sdui_gzip_decode(data, size, lim->max_inflated_bytes, &whole, &wl,
                             NULL, &err) == SDUI_OK);
    REQUIRE(wl == json_len && memcmp(whole, json, wl) == 0);
    sdui_free(whole);
    if (sdui_gzip_encode(json, json_len, 1, &gz, &gl, &err) != SDUI_OK)
        return; /* out of memory only */
    if (sdui_pack_open_memory(gz, gl, lim, &pl, &err) != SDUI_OK) {
        fprintf(stderr, "plain open: %s\n", err.message);
        broken("the plain pack of a seekable pack's document opens", __LINE__);
    }
    n = sdui_pack_count(sk);
    REQUIRE(sdui_pack_count(pl) == n);
    for (i = 0; i < n; i++) {
        size_t il, x = 0, y = 0;
        const char *id = sdui_pack_id_at(sk, i, &il);
        sdui_token *a = NULL, *b = NULL;
        sdui_status sa, sb;
        REQUIRE(sdui_pack_contains(pl, id, il));
        sa = sdui_pack_get(sk, id, il, &a, &err);
        sb = sdui_pack_get(pl, id, il, &b, &err);
        REQUIRE(sa == sb);
        if (a && b) {
            const char *ja = sdui_token_json(a, &x), *jb = sdui_token_json(b, &y);
            REQUIRE(x == y && memcmp(ja, jb, x) == 0);
        }
        sdui_token_release(a);
        sdui_token_release(b);
    }
    sdui_pack_free(pl);
    sdui_free(gz);
}

/* One input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sdui_limits lim = small_limits();
    sdui_pack *p = NULL;
    sdui_error err;
    sdui_pack_info info;
    size_t i, n, jl = 0;
    const char *json, *m;
    size_t ml;

    if (sdui_pack_open_memory(data, size, &lim, &p, &err) != SDUI_OK) {
        REQUIRE(p == NULL);
        REQUIRE(err.status != SDUI_OK && err.message[0]);
        return 0;
    }
    sdui_pack_get_info(p, &info);
    REQUIRE(info.members_inflated <= info.members);
    n = sdui_pack_count(p);
    REQUIRE(n == info.tokens);
    for (i = 0; i < n; i++) {
        size_t il;
        const char *id = sdui_pack_id_at(p, i, &il);
        sdui_token *t = NULL;
        sdui_status st;
        if (!id) {
            /* A seekable pack's member table that cannot be read. */
            REQUIRE(info.seekable && il == 0);
            continue;
        }
        REQUIRE(il > 0 && sdui_pack_contains(p, id, il));
        st = sdui_pack_get(p, id, il, &t, &err);
        if (st == SDUI_OK) {
            size_t tl, idl;
            const char *tid = sdui_token_id(t, &idl);
            REQUIRE(idl == il && memcmp(tid, id, il) == 0);
            REQUIRE(sdui_token_json(t, &tl) && tl > 0);
            sdui_token_release(t);
        } else
            REQUIRE(t == NULL && err.message[0]);
    }
    (void)sdui_pack_member(p, "screens", &m, &ml, &err);
    json = sdui_pack_json(p, &jl);
    sdui_pack_get_info(p, &info);
    if (json) {
        REQUIRE(jl == info.raw_bytes);
        REQUIRE(info.members_inflated == info.members);
        if (info.seekable) /* every member inflated and checked out */
            two_paths(data, size, p, json, jl, &lim);
    } else
        REQUIRE(info.seekable);
    sdui_pack_free(p);
    return 0;
}

/* Writes one seekable pack of n tokens with the given first-member aim. */
static void write_seed(const char *dir, int n, size_t aim, int after)
{
    char *js = malloc((size_t)n * 200 + 256), path[512];
    size_t len = 0;
    int i;
    unsigned char *gz;
    size_t gl;
    sdui_error err;
    sdui_seekable_options o = {aim, aim * 16, 6};
    FILE *f;
    len += (size_t)sprintf(js + len, "{\"formatVersion\":1,\"tokens\":[\n");
    for (i = 0; i < n; i++)
        len += (size_t)sprintf(js + len,
                               "%s{\"id\":\"%s%d\",\"version\":1,"
                               "\"primitive\":\"Text\",\"primitiveVersion\":1,"
                               "\"props\":{\"text\":\"t%d\",\"n\":[%d,true]}}",
                               i ? ",\n" : "", i == 3 ? "e\\u00e9" : "tok", i,
                               i, i * 3);
    len += (size_t)sprintf(js + len, "\n]%s}",
                           after ? ",\"screens\":{\"home\":[\"tok1\"]}" : "");
    if (sdui_pack_write_seekable(js, len, &o, NULL, &gz, &gl, &err) !=
        SDUI_OK) {
        fprintf(stderr, "seed: %s\n", err.message);
        exit(1);
    }
    snprintf(path, sizeof path, "%s/seekable-%d-%zu-%d.gz", dir, n, aim,
             after);
    f = fopen(path, "wb");
    if (!f || fwrite(gz, 1, gl, f) != gl || fclose(f) != 0) {
        fprintf(stderr, "seed: cannot write %s\n", path);
        exit(1);
    }
    sdui_free(gz);
    free(js);
}

/* Seed mode (see the top of this file), before libFuzzer starts. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("FUZZ_SEEKABLE_SEEDS");
    (void)argc;
    (void)argv;
    if (!dir)
        return 0;
    write_seed(dir, 1, 64, 0);
    write_seed(dir, 2, 64, 1);
    write_seed(dir, 12, 200, 1);
    write_seed(dir, 40, 300, 0);
    write_seed(dir, 120, 1000, 1);
    exit(0);
}
