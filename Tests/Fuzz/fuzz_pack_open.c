/*
 * fuzz_pack_open.c - libFuzzer harness for opening Core-Token Packs.
 *
 * Input that starts with the gzip magic is opened as it is (exercising the
 * gzip header, trailer and bomb checks); any other input is gzipped first so
 * the fuzzer reaches the JSON scanner and the id index directly.  On success
 * every id is looked up and every token fetched (lazy parse + schema check),
 * and its whole props tree walked through the accessors.  The last input
 * byte picks one of four limit sets so the limit paths are reached too.
 * Every input is also opened with the two-thread scan forced on, and the
 * outcome (status, error place and message, ids in order) must equal the
 * one-thread scan's.  JSON input is also gzipped as several members
 * (sdui_gzip_encode_members, member_bytes 16 to 512 picked by the middle
 * input byte and the size) and opened with parallel_scan_bytes 1, so the
 * open scans member by member while the next inflates (the fed path):
 * the outcome must equal the one-member, one-thread open's, or, when the
 * members do not inflate under the limit, sdui_gzip_decode's verdict on
 * them.  A broken invariant aborts, which libFuzzer reports as a crash.
 *
 * Seeds.  With FUZZ_PACK_SEEDS=DIR in the environment the binary does not
 * fuzz: it writes each JSON file of DIR again as members of 32 and of 128
 * bytes (NAME.m32.gz, NAME.m128.gz), and a pack of one token a line both
 * ways, into DIR and exits (Tests/Fuzz/run.sh does this before fuzzing),
 * so gzip inputs with a size field reach the fed path too.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_pack_open: invariant broken at line %d: %s\n", line,
            what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* Picks the limits for this input from its last byte. */
static void pick_limits(const uint8_t *data, size_t size, sdui_limits *lim)
{
    sdui_limits_default(lim);
    lim->parallel_scan_bytes = SIZE_MAX; /* one thread; see same_as_split */
    /* Keep each run cheap: a bomb stops at 1 MiB instead of 64. */
    lim->max_inflated_bytes = (size_t)1 << 20;
    switch (size ? data[size - 1] & 3 : 0) {
    case 1:
        lim->max_token_bytes = 64;
        lim->max_tokens = 3;
        lim->max_depth = 5;
        lim->max_inflated_bytes = 4096;
        break;
    case 2:
        lim->max_depth = 3;
        lim->max_compressed_bytes = 64;
        break;
    case 3:
        lim->max_token_bytes = 300;
        lim->max_tokens = 16;
        lim->max_depth = 16;
        lim->max_inflated_bytes = 65536;
        break;
    default:
        break;
    }
}

/* Walks a value tree through every accessor, checking they agree. */
static void walk(const sdui_value *v, unsigned depth)
{
    size_t i, n, len;
    const void *it;
    REQUIRE(depth < 4096);
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_NULL:
        REQUIRE(sdui_value_count(v) == 0 && sdui_value_int(v) == 0);
        break;
    case SDUI_VALUE_BOOL:
        REQUIRE(sdui_value_bool(v) == 0 || sdui_value_bool(v) == 1);
        REQUIRE(sdui_value_string(v, NULL) == NULL);
        break;
    case SDUI_VALUE_INT:
        (void)sdui_value_int(v);
        REQUIRE(sdui_value_bool(v) == 0);
        break;
    case SDUI_VALUE_REAL:
        (void)sdui_value_real(v);
        REQUIRE(sdui_value_int(v) == 0);
        break;
    case SDUI_VALUE_STRING: {
        const char *s = sdui_value_string(v, &len);
        REQUIRE(s != NULL);
        REQUIRE(s[len] == '\0');
        REQUIRE(sdui_value_count(v) == 0 && sdui_value_at(v, 0) == NULL);
        break;
    }
    case SDUI_VALUE_ARRAY:
        n = sdui_value_count(v);
        for (i = 0; i < n; i++) {
            const sdui_value *e = sdui_value_at(v, i);
            REQUIRE(e != NULL);
            walk(e, depth + 1);
        }
        REQUIRE(sdui_value_at(v, n) == NULL);
        REQUIRE(sdui_value_next(v, NULL) == NULL);
        REQUIRE(sdui_value_get(v, "children") == NULL);
        break;
    case SDUI_VALUE_OBJECT:
        n = 0;
        for (it = sdui_value_next(v, NULL); it; it = sdui_value_next(v, it)) {
            const char *key = sdui_value_iter_key(it, &len);
            const sdui_value *e = sdui_value_iter_value(it);
            REQUIRE(key != NULL && e != NULL);
            /* Keys without a NUL byte are found by name. */
            if (strlen(key) == len)
                REQUIRE(sdui_value_get(v, key) == e);
            walk(e, depth + 1);
            n++;
        }
        REQUIRE(n == sdui_value_count(v));
        REQUIRE(sdui_value_at(v, 0) == NULL);
        break;
    default:
        REQUIRE(!"unknown value type");
    }
}

/* Checks one fetched token against its pack id and the schema. */
static void check_token(sdui_token *tok, const char *id, size_t id_len,
                        const sdui_limits *lim)
{
    size_t len = 0;
    const char *s = sdui_token_id(tok, &len);
    REQUIRE(len == id_len && memcmp(s, id, len) == 0);
    REQUIRE(sdui_token_version(tok) >= 1);
    REQUIRE(sdui_token_primitive_version(tok) >= 1);
    s = sdui_token_primitive(tok, &len);
    REQUIRE(s != NULL && len > 0);
    s = sdui_token_json(tok, &len);
    REQUIRE(s != NULL && len >= 2 && len <= lim->max_token_bytes);
    REQUIRE(s[0] == '{' && s[len - 1] == '}');
    REQUIRE(sdui_value_type_of(sdui_token_props(tok)) == SDUI_VALUE_OBJECT);
    REQUIRE(sdui_value_type_of(sdui_token_root(tok)) == SDUI_VALUE_OBJECT);
    walk(sdui_token_root(tok), 0);
}

/* Exercises a successfully opened pack. */
static void use_pack(sdui_pack *pack, const sdui_limits *lim,
                     const uint8_t *json, size_t json_len)
{
    sdui_pack_info info;
    sdui_token *keep = NULL;
    size_t i, n = sdui_pack_count(pack), len;
    const char *text = sdui_pack_json(pack, &len);
    sdui_pack_get_info(pack, &info);
    REQUIRE(info.tokens == n && n <= lim->max_tokens);
    REQUIRE(info.raw_bytes == len && len <= lim->max_inflated_bytes);
    REQUIRE(info.members >= 1);
    if (json)
        REQUIRE(len == json_len && memcmp(text, json, len) == 0);
    for (i = 0; i < n; i++) {
        sdui_token *tok = NULL, *again = NULL;
        sdui_error err;
        sdui_status st;
        const char *id = sdui_pack_id_at(pack, i, &len);
        REQUIRE(id != NULL && len > 0);
        REQUIRE(sdui_pack_contains(pack, id, len));
        st = sdui_pack_get(pack, id, len, &tok, &err);
        REQUIRE(st == err.status);
        if (st != SDUI_OK) {
            REQUIRE(tok == NULL);
            REQUIRE(st == SDUI_JSON || st == SDUI_SCHEMA ||
                    st == SDUI_LIMIT || st == SDUI_OOM);
            REQUIRE(err.message[0] != '\0');
            REQUIRE(err.offset >= 0 && (size_t)err.offset <= info.raw_bytes);
            continue;
        }
        check_token(tok, id, len, lim);
        REQUIRE(sdui_pack_get(pack, id, len, &again, &err) == SDUI_OK);
        REQUIRE(again == tok);
        sdui_token_release(again);
        if (!keep)
            keep = sdui_token_retain(tok);
        sdui_token_release(tok);
    }
    REQUIRE(sdui_pack_id_at(pack, n, &len) == NULL);
    /* A lone 0xFF byte is never valid UTF-8, so never an id. */
    {
        sdui_token *tok = NULL;
        sdui_error err;
        REQUIRE(!sdui_pack_contains(pack, "\xff", 1));
        REQUIRE(sdui_pack_get(pack, "\xff", 1, &tok, &err) ==
                SDUI_NOT_FOUND);
    }
    sdui_pack_free(pack);
    /* A token outlives its pack. */
    if (keep) {
        walk(sdui_token_props(keep), 0);
        sdui_token_release(keep);
    }
}

/*
 * Opens the same bytes again with the two-thread scan forced on and checks
 * the outcome equals the one-thread one (st, err, and pack when open).
 */
static void same_as_split(const void *gz, size_t gz_len,
                          const sdui_limits *lim, sdui_status st,
                          const sdui_error *err, const sdui_pack *pack)
{
    sdui_limits split = *lim;
    sdui_pack *other = NULL;
    sdui_error e2;
    sdui_status st2;
    split.parallel_scan_bytes = 0;
    st2 = sdui_pack_open_memory(gz, gz_len, &split, &other, &e2);
    if (st2 != st || e2.offset != err->offset || e2.line != err->line ||
        e2.column != err->column || strcmp(e2.message, err->message) != 0) {
        fprintf(stderr, "one thread: %s @%lld %s\nsplit: %s @%lld %s\n",
                sdui_status_name(st), err->offset, err->message,
                sdui_status_name(st2), e2.offset, e2.message);
        REQUIRE(!"split scan differs from the one-thread scan");
    }
    if (st == SDUI_OK) {
        size_t i, n = sdui_pack_count(pack);
        REQUIRE(sdui_pack_count(other) == n);
        for (i = 0; i < n; i++) {
            size_t l1 = 0, l2 = 0;
            const char *a = sdui_pack_id_at(pack, i, &l1);
            const char *b = sdui_pack_id_at(other, i, &l2);
            REQUIRE(l1 == l2 && memcmp(a, b, l1) == 0);
        }
    }
    sdui_pack_free(other);
}

/*
 * Opens JSON gzipped as members of member_bytes (16 to 512, picked by the
 * middle input byte and the size) with parallel_scan_bytes 1, the fed
 * path, and checks the outcome equals the one-member, one-thread open's
 * (st, err, pack), or sdui_gzip_decode's verdict on the members when they
 * do not inflate (a limit).  Skipped when the one-member file was refused
 * for its compressed size (the members' is another).
 */
static void same_as_fed(const uint8_t *data, size_t size,
                        const sdui_limits *lim, size_t gz_len,
                        sdui_status st, const sdui_error *err,
                        const sdui_pack *pack)
{
    sdui_limits fed = *lim;
    /* Not the first byte alone: JSON input nearly always starts "{". */
    size_t mb = 16 + (size ? ((size_t)data[size / 2] * 7 + size) % 497 : 0);
    size_t gl = 0, dl = 0;
    unsigned char *gz = NULL;
    char *dec = NULL;
    unsigned members = 0;
    sdui_pack *other = NULL;
    sdui_error e2, ed;
    sdui_status st2, sd;
    if (gz_len > lim->max_compressed_bytes)
        return;
    if (sdui_gzip_encode_members(data, size, 1, mb, &gz, &gl, &e2) !=
        SDUI_OK)
        return; /* out of memory only */
    fed.parallel_scan_bytes = 1;
    fed.max_compressed_bytes = SIZE_MAX;
    sd = sdui_gzip_decode(gz, gl, lim->max_inflated_bytes, &dec, &dl,
                          &members, &ed);
    st2 = sdui_pack_open_memory(gz, gl, &fed, &other, &e2);
    if (sd != SDUI_OK) {
        /* The members' own gzip verdict (a limit, or out of memory). */
        REQUIRE(sd == SDUI_LIMIT || sd == SDUI_OOM);
        if (st2 != sd || e2.offset != ed.offset || e2.line != ed.line ||
            e2.column != ed.column || strcmp(e2.message, ed.message) != 0) {
            fprintf(stderr, "decode: %s @%lld %s\nfed: %s @%lld %s\n",
                    sdui_status_name(sd), ed.offset, ed.message,
                    sdui_status_name(st2), e2.offset, e2.message);
            REQUIRE(!"fed open differs from sdui_gzip_decode");
        }
    } else {
        REQUIRE(dl == size && (size == 0 || memcmp(dec, data, size) == 0));
        if (st2 != st || e2.offset != err->offset || e2.line != err->line ||
            e2.column != err->column ||
            strcmp(e2.message, err->message) != 0) {
            fprintf(stderr,
                    "one member: %s @%lld %d:%d %s\n"
                    "fed (%u members of %zu): %s @%lld %d:%d %s\n",
                    sdui_status_name(st), err->offset, err->line,
                    err->column, err->message, members, mb,
                    sdui_status_name(st2), e2.offset, e2.line, e2.column,
                    e2.message);
            REQUIRE(!"fed open differs from the one-member open");
        }
        if (st == SDUI_OK) {
            size_t i, n = sdui_pack_count(pack), l1 = 0, l2 = 0;
            sdui_pack_info info;
            const char *a, *b;
            REQUIRE(sdui_pack_count(other) == n);
            sdui_pack_get_info(other, &info);
            REQUIRE(info.members == members);
            for (i = 0; i < n; i++) {
                a = sdui_pack_id_at(pack, i, &l1);
                b = sdui_pack_id_at(other, i, &l2);
                REQUIRE(l1 == l2 && memcmp(a, b, l1) == 0);
            }
            a = sdui_pack_json(pack, &l1);
            b = sdui_pack_json(other, &l2);
            REQUIRE(l1 == l2 && memcmp(a, b, l1) == 0);
            {
                static const char *const names[] = {"formatVersion",
                                                    "tokens", "screens"};
                for (i = 0; i < 3; i++) {
                    sdui_error m1, m2;
                    sdui_status s1 = sdui_pack_member(pack, names[i], &a, &l1,
                                                      &m1);
                    sdui_status s2 = sdui_pack_member(other, names[i], &b,
                                                      &l2, &m2);
                    REQUIRE(s1 == s2 && m1.offset == m2.offset &&
                            strcmp(m1.message, m2.message) == 0);
                    if (s1 == SDUI_OK)
                        REQUIRE(l1 == l2 &&
                                a - sdui_pack_json(pack, NULL) ==
                                    b - sdui_pack_json(other, NULL));
                }
            }
        }
    }
    sdui_pack_free(other);
    sdui_free(dec);
    sdui_free(gz);
}

/* Writes len bytes as dir/name; returns 0 on success. */
static int write_file(const char *dir, const char *name, const void *b,
                      size_t len)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f)
        return -1;
    if (fwrite(b, 1, len, f) != len) {
        fclose(f);
        return -1;
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* Writes json as members of 32 and of 128 bytes, dir/name.mN.gz. */
static void write_members(const char *dir, const char *name,
                          const char *json, size_t len)
{
    static const size_t sizes[] = {32, 128};
    size_t i;
    for (i = 0; i < 2; i++) {
        unsigned char *gz;
        size_t gl;
        sdui_error err;
        char out[1024];
        if (sdui_gzip_encode_members(json, len, 6, sizes[i], &gz, &gl,
                                     &err) != SDUI_OK)
            continue;
        snprintf(out, sizeof out, "%s.m%zu.gz", name, sizes[i]);
        if (write_file(dir, out, gz, gl) != 0)
            fprintf(stderr, "fuzz_pack_open: cannot write %s/%s\n", dir, out);
        sdui_free(gz);
    }
}

/* Seed mode (see the top of this file), before libFuzzer starts. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("FUZZ_PACK_SEEDS");
    DIR *d;
    struct dirent *e;
    char *json;
    size_t n = 0, i;
    (void)argc;
    (void)argv;
    if (!dir)
        return 0;
    d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz_pack_open: cannot read %s\n", dir);
        exit(1);
    }
    while ((e = readdir(d)) != NULL) {
        char path[4096], buf[1 << 16];
        size_t got;
        FILE *f;
        if (e->d_name[0] == '.' || strstr(e->d_name, ".gz"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        f = fopen(path, "rb");
        if (!f)
            continue;
        got = fread(buf, 1, sizeof buf, f);
        fclose(f);
        if (got < 2 || ((unsigned char)buf[0] == 0x1f &&
                        (unsigned char)buf[1] == 0x8b))
            continue;
        write_members(dir, e->d_name, buf, got);
    }
    closedir(d);
    /* A pack of one token a line, as sdui writes, with a member on each
     * side of "tokens". */
    json = malloc(40 * 160 + 256);
    if (!json)
        exit(1);
    n += (size_t)sprintf(json + n, "{\"formatVersion\":1,\"name\":\"seed\","
                                   "\"tokens\":[\n");
    for (i = 0; i < 40; i++)
        n += (size_t)sprintf(json + n,
                             "{\"id\":\"%s.%zu\",\"version\":1,"
                             "\"primitive\":\"Text\",\"primitiveVersion\":1,"
                             "\"props\":{\"text\":\"t%zu\",\"list\":[{\"a\":1}]}}"
                             "%s\n",
                             i % 3 ? "home.card" : "shop\\u00e9", i, i,
                             i + 1 < 40 ? "," : "");
    n += (size_t)sprintf(json + n, "],\"screens\":{\"home\":[]}}\n");
    if (write_file(dir, "lines40.json", json, n) != 0)
        fprintf(stderr, "fuzz_pack_open: cannot write %s/lines40.json\n",
                dir);
    write_members(dir, "lines40.json", json, n);
    free(json);
    exit(0);
}

/* libFuzzer entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sdui_limits lim;
    sdui_pack *pack = NULL;
    sdui_error err;
    sdui_status st;
    int raw_json = !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b);
    unsigned char *gz = NULL;
    size_t gz_len = 0;

    pick_limits(data, size, &lim);
    if (raw_json) {
        REQUIRE(sdui_gzip_encode(data, size, 1, &gz, &gz_len, &err) ==
                SDUI_OK);
        /* Keep the compressed limit from refusing most JSON inputs. */
        if (lim.max_compressed_bytes < gz_len && (size & 1))
            lim.max_compressed_bytes = gz_len;
        st = sdui_pack_open_memory(gz, gz_len, &lim, &pack, &err);
        same_as_split(gz, gz_len, &lim, st, &err, pack);
        same_as_fed(data, size, &lim, gz_len, st, &err, pack);
    } else {
        st = sdui_pack_open_memory(data, size, &lim, &pack, &err);
        same_as_split(data, size, &lim, st, &err, pack);
    }
    REQUIRE(st == err.status);
    if (st == SDUI_OK) {
        REQUIRE(pack != NULL);
        use_pack(pack, &lim, raw_json ? data : NULL, size);
    } else {
        REQUIRE(pack == NULL);
        REQUIRE(err.message[0] != '\0');
        REQUIRE(st == SDUI_GZIP || st == SDUI_JSON || st == SDUI_SCHEMA ||
                st == SDUI_LIMIT || st == SDUI_OOM);
        /* Our own gzip output always inflates (or hits a limit). */
        if (raw_json)
            REQUIRE(st != SDUI_GZIP);
        if (st == SDUI_GZIP)
            REQUIRE(err.offset >= 0 && (size_t)err.offset <= size);
        if (raw_json && (st == SDUI_JSON || st == SDUI_SCHEMA)) {
            REQUIRE(err.offset >= 0 && (size_t)err.offset <= size);
            REQUIRE(err.line >= 1 && err.column >= 1);
        }
    }
    sdui_free(gz);
    return 0;
}
