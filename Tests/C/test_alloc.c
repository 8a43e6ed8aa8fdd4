/*
 * test_alloc.c - allocation fault injection over the whole core (alloc.h).
 *
 * An allocator installed with sdui_set_allocator fails exactly the n-th
 * allocation and counts live blocks.  Each scenario (pack open + get,
 * token parse, cache, gzip, deep JSON, pack file) runs for n = 1, 2, 3, ...
 * until it completes without reaching the failure.  Every call must answer
 * SDUI_OOM or succeed (never crash), a retry after an OOM must succeed, and
 * once everything is freed no block may be live.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* State of the failing allocator. */
typedef struct fail_alloc {
    long count;   /* allocations attempted                  */
    long fail_at; /* which one fails (0: none)              */
    int failed;   /* the failure happened                   */
    long live;    /* blocks currently allocated             */
} fail_alloc;

static fail_alloc fa;

/* malloc that fails the fail_at-th call. */
static void *fa_malloc(void *ctx, size_t size)
{
    fail_alloc *a = ctx;
    void *p;
    if (++a->count == a->fail_at) {
        a->failed = 1;
        return NULL;
    }
    p = malloc(size ? size : 1);
    if (p)
        a->live++;
    return p;
}

/* realloc that counts as an allocation and can fail the same way. */
static void *fa_realloc(void *ctx, void *ptr, size_t size)
{
    fail_alloc *a = ctx;
    void *p;
    if (++a->count == a->fail_at) {
        a->failed = 1;
        return NULL;
    }
    p = realloc(ptr, size ? size : 1);
    if (p && !ptr)
        a->live++;
    return p;
}

/* free that keeps the live count. */
static void fa_free(void *ctx, void *ptr)
{
    fail_alloc *a = ctx;
    if (ptr) {
        a->live--;
        free(ptr);
    }
}

/* Violations of the contract seen in the current run. */
static unsigned violations;

/* Notes a status that must be OK, OOM or one of the allowed others. */
static int expect(sdui_status st, const sdui_error *e, sdui_status also,
                  const char *what)
{
    if (st == SDUI_OK || st == also)
        return 1;
    if (st == SDUI_OOM) {
        if (e->status != SDUI_OOM || !e->message[0]) {
            fprintf(stderr, "  %s: OOM with a bad error record\n", what);
            violations++;
        }
        return 0;
    }
    fprintf(stderr, "  %s (fail at %ld): %s \"%s\"\n", what, fa.fail_at,
            sdui_status_name(st), e->message);
    violations++;
    return 0;
}

/* A retry after an OOM must succeed (the failure is one-shot). */
static void retry_ok(sdui_status st, const sdui_error *e, const char *what)
{
    if (st != SDUI_OK) {
        fprintf(stderr, "  retry of %s (fail at %ld): %s \"%s\"\n", what,
                fa.fail_at, sdui_status_name(st), e->message);
        violations++;
    }
}

/* The pack fixture: gzip bytes in plain libc memory. */
static unsigned char *pack_gz;
static size_t pack_gz_len;

static const char pack_json[] =
    "{\"formatVersion\":1,\"generator\":{\"tokens\":[1]},\"tokens\":["
    "{\"id\":\"header\",\"version\":2,\"primitive\":\"Row\","
    "\"primitiveVersion\":2,\"props\":{\"spacing\":8,\"children\":["
    "{\"primitive\":\"Text\",\"props\":{\"text\":\"Hi \\u00e9\"}},"
    "{\"primitive\":\"Icon\",\"primitiveVersion\":2,\"props\":"
    "{\"name\":\"star\",\"size\":[1,2.5,true,null]}}]}},"
    "{\"id\":\"caf\\u00e9\",\"version\":1,\"primitive\":\"Button\","
    "\"primitiveVersion\":3,\"props\":{\"title\":\"Pay\",\"a\":{\"b\":{}}}},"
    "{\"id\":\"broken\",\"version\":1,\"primitive\":\"Column\","
    "\"primitiveVersion\":1,\"props\":{\"children\":[{\"props\":{}}]}},"
    "{\"id\":\"dupkey\",\"version\":1,\"primitive\":\"Text\","
    "\"primitiveVersion\":1,\"props\":{\"k\":1,\"k\":2}},"
    "{\"id\":\"footer\",\"version\":7,\"primitive\":\"Text\","
    "\"primitiveVersion\":1,\"props\":{}}]}";

/* Gets one token, retrying once after an OOM; returns it or NULL. */
static sdui_token *get_token(sdui_pack *pack, const char *id, size_t len,
                             sdui_status also)
{
    sdui_token *tok = NULL;
    sdui_error err;
    sdui_status st = sdui_pack_get(pack, id, len, &tok, &err);
    if (expect(st, &err, also, "pack get"))
        return tok;
    if (st == SDUI_OOM) {
        if (tok)
            violations++;
        st = sdui_pack_get(pack, id, len, &tok, &err);
        if (st != also)
            retry_ok(st, &err, "pack get");
    }
    return tok;
}

/* Scenario: open a multi-token pack from memory, get every token. */
static void scenario_pack(void)
{
    sdui_pack *pack = NULL;
    sdui_token *keep = NULL;
    sdui_error err;
    size_t i;
    sdui_status st = sdui_pack_open_memory(pack_gz, pack_gz_len, NULL, &pack,
                                           &err);
    if (!expect(st, &err, SDUI_OK, "pack open")) {
        if (pack)
            violations++;
        return;
    }
    if (sdui_pack_count(pack) != 5)
        violations++;
    for (i = 0; i < sdui_pack_count(pack); i++) {
        size_t len = 0;
        const char *id = sdui_pack_id_at(pack, i, &len);
        int bad = len == 6 && memcmp(id, "broken", 6) == 0;
        int dup = len == 6 && memcmp(id, "dupkey", 6) == 0;
        sdui_token *tok = get_token(pack, id, len,
                                    bad ? SDUI_SCHEMA
                                        : dup ? SDUI_SCHEMA : SDUI_OK);
        if (tok) {
            sdui_token *again = get_token(pack, id, len, SDUI_OK);
            if (again != tok)
                violations++;
            sdui_token_release(again);
            if (!keep)
                keep = sdui_token_retain(tok);
        }
        sdui_token_release(tok);
    }
    sdui_pack_free(pack);
    /* A token outlives its pack under the failing allocator too. */
    if (keep && sdui_value_count(sdui_token_props(keep)) != 2)
        violations++;
    sdui_token_release(keep);
}

/* Walks a value tree, touching every accessor; returns the node count. */
static size_t walk(const sdui_value *v)
{
    size_t n = 1, i;
    const void *it;
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_ARRAY:
        for (i = 0; i < sdui_value_count(v); i++)
            n += walk(sdui_value_at(v, i));
        break;
    case SDUI_VALUE_OBJECT:
        for (it = sdui_value_next(v, NULL); it; it = sdui_value_next(v, it))
            n += walk(sdui_value_iter_value(it));
        break;
    default:
        (void)sdui_value_string(v, NULL);
        break;
    }
    return n;
}

/* Scenario: parse standalone tokens, good and bad. */
static void scenario_token(void)
{
    static const struct {
        const char *json;
        sdui_status want;
    } docs[] = {
        {"{\"id\":\"t\\u00e9\",\"version\":1,\"primitive\":\"Column\","
         "\"primitiveVersion\":1,\"props\":{\"children\":[{\"primitive\":"
         "\"Text\",\"props\":{\"s\":\"\\ud83d\\ude00\",\"n\":[1,2,{}]}},"
         "{\"primitive\":\"Row\",\"props\":{\"children\":[]}}],"
         "\"style\":{\"color\":\"#fff\",\"size\":1.5}}}",
         SDUI_OK},
        {"{\"id\":\"t\",\"version\":1,\"primitive\":\"Column\","
         "\"primitiveVersion\":1,\"props\":{\"children\":[{\"primitive\":"
         "\"A\",\"props\":{}},{\"primitive\":\"B\"}]}}",
         SDUI_SCHEMA},
        {"{\"id\":\"t\",\"id\":\"u\"}", SDUI_SCHEMA},
        {"[1, 2", SDUI_JSON},
        {"\"scalar\"", SDUI_SCHEMA},
    };
    size_t i;
    for (i = 0; i < sizeof docs / sizeof *docs; i++) {
        sdui_token *tok = NULL;
        sdui_error err;
        sdui_status st = sdui_token_parse(docs[i].json, strlen(docs[i].json),
                                          NULL, &tok, &err);
        if (!expect(st, &err, docs[i].want, "token parse")) {
            if (tok)
                violations++;
            st = sdui_token_parse(docs[i].json, strlen(docs[i].json), NULL,
                                  &tok, &err);
            if (st != docs[i].want)
                retry_ok(st, &err, "token parse");
        } else if (st != docs[i].want) {
            fprintf(stderr, "  token doc %zu: %s, expected %s\n", i,
                    sdui_status_name(st), sdui_status_name(docs[i].want));
            violations++;
        }
        if (tok && walk(sdui_token_root(tok)) < 10)
            violations++;
        sdui_token_release(tok);
    }
}

/* Scenario: a cache, 80 tokens put (the table grows), gets, evictions. */
static void scenario_cache(void)
{
    enum { N = 80 };
    sdui_cache *c = NULL;
    sdui_token *toks[N];
    sdui_cache_stats st;
    sdui_error err;
    size_t i;
    sdui_status s = sdui_cache_new(70, 0, &c, &err);
    if (!expect(s, &err, SDUI_OK, "cache new"))
        return;
    memset(toks, 0, sizeof toks);
    for (i = 0; i < N; i++) {
        char json[160];
        int n = snprintf(json, sizeof json,
                         "{\"id\":\"c%zu\",\"version\":1,\"primitive\":\"T\","
                         "\"primitiveVersion\":1,\"props\":{\"i\":%zu}}",
                         i, i);
        s = sdui_token_parse(json, (size_t)n, NULL, &toks[i], &err);
        if (!expect(s, &err, SDUI_OK, "cache token")) {
            s = sdui_token_parse(json, (size_t)n, NULL, &toks[i], &err);
            retry_ok(s, &err, "cache token");
        }
        if (!toks[i])
            continue;
        s = sdui_cache_put(c, toks[i], &err);
        if (!expect(s, &err, SDUI_OK, "cache put")) {
            s = sdui_cache_put(c, toks[i], &err);
            retry_ok(s, &err, "cache put");
        }
    }
    sdui_cache_get_stats(c, &st);
    if (st.entries != 70 || st.evictions != 10)
        violations++;
    for (i = 0; i < N; i++) {
        char id[16];
        sdui_token *got;
        snprintf(id, sizeof id, "c%zu", i);
        got = sdui_cache_get(c, id, strlen(id));
        if ((i >= 10) != (got != NULL) || (got && got != toks[i]))
            violations++;
        sdui_token_release(got);
    }
    sdui_cache_free(c);
    for (i = 0; i < N; i++)
        sdui_token_release(toks[i]);
}

/* Scenario: gzip encode, decode, and a three-member decode. */
static void scenario_gzip(void)
{
    enum { LEN = 60000 };
    static char text[LEN];
    unsigned char *gz = NULL;
    char *out = NULL;
    size_t gz_len = 0, out_len = 0, i;
    unsigned members = 0;
    sdui_error err;
    sdui_status st;
    for (i = 0; i < LEN; i++)
        text[i] = (char)("{}[]\"abc 123,:"[(i * 7 + i / 13) % 14]);
    st = sdui_gzip_encode(text, LEN, 6, &gz, &gz_len, &err);
    if (!expect(st, &err, SDUI_OK, "gzip encode")) {
        if (gz)
            violations++;
        st = sdui_gzip_encode(text, LEN, 6, &gz, &gz_len, &err);
        retry_ok(st, &err, "gzip encode");
        if (st != SDUI_OK)
            return;
    }
    st = sdui_gzip_decode(gz, gz_len, 1 << 20, &out, &out_len, &members, &err);
    if (expect(st, &err, SDUI_OK, "gzip decode")) {
        if (out_len != LEN || memcmp(out, text, LEN) != 0)
            violations++;
    } else if (out) {
        violations++;
    }
    sdui_free(out);
    out = NULL;
    /* Three members: the first sizes the buffer (ISIZE of the last is
     * small), so decoding has to grow it. */
    {
        unsigned char *three = malloc(gz_len * 2 + 64), *small = NULL;
        size_t small_len = 0;
        st = sdui_gzip_encode("[]", 2, 1, &small, &small_len, &err);
        if (expect(st, &err, SDUI_OK, "gzip encode small")) {
            memcpy(three, gz, gz_len);
            memcpy(three + gz_len, gz, gz_len);
            memcpy(three + 2 * gz_len, small, small_len);
            st = sdui_gzip_decode(three, 2 * gz_len + small_len, 1 << 20,
                                  &out, &out_len, &members, &err);
            if (expect(st, &err, SDUI_OK, "gzip decode 3")) {
                if (out_len != 2 * LEN + 2 || members != 3)
                    violations++;
            }
            sdui_free(out);
        }
        sdui_free(small);
        free(three);
    }
    sdui_free(gz);
}

/* Scenario: deep JSON needs a heap stack in the scanner. */
static void scenario_deep_json(void)
{
    enum { DEPTH = 6000 };
    static char doc[2 * DEPTH + 1], out[2 * DEPTH + 1];
    size_t out_len = 0;
    sdui_error err;
    sdui_status st;
    memset(doc, '[', DEPTH);
    memset(doc + DEPTH, ']', DEPTH);
    st = sdui_json_validate(doc, 2 * DEPTH, DEPTH, &err);
    if (!expect(st, &err, SDUI_OK, "deep validate"))
        retry_ok(sdui_json_validate(doc, 2 * DEPTH, DEPTH, &err), &err,
                 "deep validate");
    st = sdui_json_minify(doc, 2 * DEPTH, DEPTH, out, &out_len, &err);
    if (expect(st, &err, SDUI_OK, "deep minify") && out_len != 2 * DEPTH)
        violations++;
}

/* Path of the pack fixture written to disk. */
static char pack_path[64];

/* Scenario: open the pack from a file and get one token. */
static void scenario_pack_file(void)
{
    sdui_pack *pack = NULL;
    sdui_error err;
    sdui_status st = sdui_pack_open_file(pack_path, NULL, &pack, &err);
    if (!expect(st, &err, SDUI_OK, "pack open file"))
        return;
    sdui_token_release(get_token(pack, "footer", 6, SDUI_OK));
    sdui_pack_free(pack);
}

/* Runs a scenario failing allocation 1, 2, 3, ... until it needs no
 * failure; checks no violation and no live block after each run. */
static void run(const char *name, void (*scenario)(void))
{
    long n;
    unsigned leaks = 0, bad = 0;
    int done = 0;
    for (n = 1; n <= 200000 && !done; n++) {
        fa.count = 0;
        fa.fail_at = n;
        fa.failed = 0;
        fa.live = 0;
        violations = 0;
        scenario();
        if (fa.live != 0) {
            if (leaks < 5)
                fprintf(stderr, "  %s: %ld blocks live after failing "
                                "allocation %ld\n",
                        name, fa.live, n);
            leaks++;
        }
        if (violations)
            bad++;
        if (!fa.failed)
            done = 1;
    }
    printf("%s: %ld allocation failure points\n", name, n - 2);
    CHECKF(done, "%s never completed", name);
    CHECKF(leaks == 0, "%s leaked in %u runs", name, leaks);
    CHECKF(bad == 0, "%s broke the OOM contract in %u runs", name, bad);
}

/* Runs every scenario under the failing allocator. */
int main(void)
{
    sdui_allocator a = {fa_malloc, fa_realloc, fa_free, &fa};
    unsigned char *z = NULL;
    sdui_error err;
    int fd;

    /* Fixtures, made with the default allocator. */
    if (sdui_gzip_encode(pack_json, strlen(pack_json), 6, &z, &pack_gz_len,
                         &err) != SDUI_OK)
        return 2;
    pack_gz = malloc(pack_gz_len);
    memcpy(pack_gz, z, pack_gz_len);
    sdui_free(z);
    snprintf(pack_path, sizeof pack_path, "/tmp/sdui-test-alloc-XXXXXX");
    fd = mkstemp(pack_path);
    if (fd < 0 || write(fd, pack_gz, pack_gz_len) != (ssize_t)pack_gz_len)
        return 2;
    close(fd);

    sdui_set_allocator(&a);
    fa.fail_at = 0;
    /* With no failure everything succeeds and nothing is left live. */
    violations = 0;
    scenario_pack();
    scenario_token();
    scenario_cache();
    scenario_gzip();
    CHECK_EQ_INT(violations, 0);
    CHECK_EQ_INT(fa.live, 0);
    CHECK(fa.count > 100);

    run("pack open + get", scenario_pack);
    run("token parse", scenario_token);
    run("cache", scenario_cache);
    run("gzip", scenario_gzip);
    run("deep json", scenario_deep_json);
    run("pack file", scenario_pack_file);

    sdui_set_allocator(NULL);
    /* The default allocator works again. */
    {
        sdui_pack *pack = NULL;
        CHECK_STATUS(sdui_pack_open_memory(pack_gz, pack_gz_len, NULL, &pack,
                                           &err),
                     SDUI_OK);
        sdui_pack_free(pack);
    }
    unlink(pack_path);
    free(pack_gz);
    return check_summary();
}
