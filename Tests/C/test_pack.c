/*
 * test_pack.c - tests of Core-Token Packs (pack.h): opening from memory and
 * from files, the pack shape rules, the id index (escaped and Unicode ids,
 * duplicates, decoys), every limit, lazy token parsing, concurrent lookups,
 * token lifetimes, and the raw bytes of the root's members.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "flood.h"
/* The test hooks on the hash (sdui__pack_longest_probe, sdui__hash). */
#include "../../csrc/internal.h"

/* A token document with the given id (raw JSON text) and props body. */
static char *token_doc(const char *raw_id, const char *props)
{
    size_t n = strlen(raw_id) + strlen(props) + 128;
    char *p = malloc(n);
    snprintf(p, n,
             "{\"id\":\"%s\",\"version\":1,\"primitive\":\"Text\","
             "\"primitiveVersion\":1,\"props\":{%s}}",
             raw_id, props);
    return p;
}

/* Gzips text with the core's encoder; aborts on failure. */
static unsigned char *gz(const char *text, size_t len, size_t *out_len)
{
    unsigned char *out = NULL;
    sdui_error err;
    if (sdui_gzip_encode(text, len, 6, &out, out_len, &err) != SDUI_OK) {
        fprintf(stderr, "test_pack: gzip_encode failed: %s\n", err.message);
        exit(2);
    }
    return out;
}

/* Gzips a NUL-terminated JSON pack and opens it from memory. */
static sdui_status open_json(const char *json, const sdui_limits *limits,
                             sdui_pack **pack, sdui_error *err)
{
    size_t n = 0;
    unsigned char *z = gz(json, strlen(json), &n);
    sdui_status st = sdui_pack_open_memory(z, n, limits, pack, err);
    sdui_free(z);
    return st;
}

/* Opens json expecting status want; frees any pack; returns the status. */
static sdui_status expect_open(const char *json, const sdui_limits *limits,
                               sdui_status want, sdui_error *err,
                               const char *what)
{
    sdui_pack *pack = (sdui_pack *)err; /* must be reset to NULL */
    sdui_status st = open_json(json, limits, &pack, err);
    CHECKF(st == want, "%s: got %s (\"%s\"), expected %s", what,
           sdui_status_name(st), err->message, sdui_status_name(want));
    if (st != SDUI_OK)
        CHECKF(pack == NULL && err->status == st && err->message[0],
               "%s: bad failure record", what);
    sdui_pack_free(st == SDUI_OK ? pack : NULL);
    return st;
}

/* 1 if pack holds the NUL-terminated id. */
static int has(const sdui_pack *pack, const char *id)
{
    return sdui_pack_contains(pack, id, strlen(id));
}

/* The three-token pack used by several tests, and its ids. */
static const char *const three_ids[] = {"header", "pay_button", "footer"};

/* Builds the three-token pack text (new; free). */
static char *three_pack(void)
{
    return strdup(
        "{\"formatVersion\": 1,\n \"tokens\": [\n"
        "  {\"id\":\"header\",\"version\":2,\"primitive\":\"Row\","
        "\"primitiveVersion\":2,\"props\":{\"children\":[{\"primitive\":"
        "\"Text\",\"props\":{\"text\":\"Hi\"}}]}},\n"
        "  {\"id\":\"pay_button\",\"version\":1,\"primitive\":\"Button\","
        "\"primitiveVersion\":3,\"props\":{\"title\":\"Pay\"}},\n"
        "  {\"id\":\"footer\",\"version\":7,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{}}\n ]}\n");
}

/* Open from memory: counts, order, lookups, info, the JSON text. */
static void test_open_memory(void)
{
    char *json = three_pack();
    size_t zlen = 0, i;
    unsigned char *z = gz(json, strlen(json), &zlen);
    sdui_pack *pack = NULL;
    sdui_pack_info info;
    sdui_error err;
    CHECK_STATUS(sdui_pack_open_memory(z, zlen, NULL, &pack, &err), SDUI_OK);
    if (!pack)
        return;
    CHECK_EQ_INT(sdui_pack_count(pack), 3);
    for (i = 0; i < 3; i++) {
        size_t len = 0;
        const char *id = sdui_pack_id_at(pack, i, &len);
        sdui_token *tok = NULL;
        CHECK(id && len == strlen(three_ids[i]) &&
              memcmp(id, three_ids[i], len) == 0);
        CHECK(has(pack, three_ids[i]));
        CHECK_STATUS(sdui_pack_get(pack, three_ids[i], strlen(three_ids[i]),
                                   &tok, &err),
                     SDUI_OK);
        if (tok) {
            size_t l = 0;
            const char *tid = sdui_token_id(tok, &l);
            CHECK(l == strlen(three_ids[i]) && memcmp(tid, three_ids[i], l) == 0);
        }
        sdui_token_release(tok);
    }
    {
        size_t len = 99;
        CHECK(sdui_pack_id_at(pack, 3, &len) == NULL && len == 0);
        CHECK(sdui_pack_id_at(pack, (size_t)-1, NULL) == NULL);
    }
    CHECK(!has(pack, "head"));
    CHECK(!has(pack, "headers"));
    CHECK(!has(pack, ""));
    CHECK(!sdui_pack_contains(pack, NULL, 0));
    /* Ids are compared by length, not by NUL. */
    CHECK(sdui_pack_contains(pack, "footerXYZ", 6));
    CHECK(!sdui_pack_contains(pack, "footer", 7));
    {
        sdui_token *tok = (sdui_token *)&err;
        CHECK_STATUS(sdui_pack_get(pack, "nope", 4, &tok, &err),
                     SDUI_NOT_FOUND);
        CHECK(tok == NULL);
        CHECK_MSG_HAS("nope");
        CHECK_STATUS(sdui_pack_get(pack, NULL, 3, &tok, &err), SDUI_ARGUMENT);
        CHECK_STATUS(sdui_pack_get(pack, "footer", 6, NULL, &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_pack_get(pack, "pay_buttonXX", 10, &tok, &err),
                     SDUI_OK);
        sdui_token_release(tok);
    }
    sdui_pack_get_info(pack, &info);
    CHECK_EQ_INT(info.tokens, 3);
    CHECK_EQ_INT(info.compressed_bytes, zlen);
    CHECK_EQ_INT(info.raw_bytes, strlen(json));
    CHECK_EQ_INT(info.members, 1);
    {
        size_t len = 0;
        const char *text = sdui_pack_json(pack, &len);
        CHECK(len == strlen(json) && memcmp(text, json, len) == 0);
    }
    sdui_pack_free(pack);
    sdui_pack_free(NULL);
    /* The input buffer is not retained: wipe it and open again. */
    CHECK_STATUS(sdui_pack_open_memory(z, zlen, NULL, NULL, &err),
                 SDUI_ARGUMENT);
    sdui_free(z);
    free(json);
}

/* Writes bytes to a new temporary file; returns its path (static). */
static const char *temp_file(const void *data, size_t len)
{
    static char path[64];
    int fd;
    snprintf(path, sizeof path, "/tmp/sdui-test-pack-XXXXXX");
    fd = mkstemp(path);
    if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
        fprintf(stderr, "test_pack: cannot write a temp file\n");
        exit(2);
    }
    close(fd);
    return path;
}

/* Open from a real file, a two-member file, and failures naming the path. */
static void test_open_file(void)
{
    char *json = three_pack();
    size_t zlen = 0, half = strlen(json) / 2, z1, z2;
    unsigned char *z = gz(json, strlen(json), &zlen);
    unsigned char *a = gz(json, half, &z1);
    unsigned char *b = gz(json + half, strlen(json) - half, &z2);
    const char *path = temp_file(z, zlen);
    sdui_pack *pack = NULL;
    sdui_pack_info info;
    sdui_limits lim;
    sdui_error err;

    CHECK_STATUS(sdui_pack_open_file(path, NULL, &pack, &err), SDUI_OK);
    if (pack) {
        sdui_token *tok = NULL;
        CHECK_EQ_INT(sdui_pack_count(pack), 3);
        CHECK_STATUS(sdui_pack_get(pack, "footer", 6, &tok, &err), SDUI_OK);
        CHECK(tok && sdui_token_version(tok) == 7);
        sdui_token_release(tok);
        sdui_pack_get_info(pack, &info);
        CHECK_EQ_INT(info.compressed_bytes, zlen);
        sdui_pack_free(pack);
    }
    /* The compressed limit applies to files too. */
    sdui_limits_default(&lim);
    lim.max_compressed_bytes = zlen - 1;
    CHECK_STATUS(sdui_pack_open_file(path, &lim, &pack, &err), SDUI_LIMIT);
    CHECK_MSG_HAS(path);
    lim.max_compressed_bytes = zlen;
    CHECK_STATUS(sdui_pack_open_file(path, &lim, &pack, &err), SDUI_OK);
    sdui_pack_free(pack);
    unlink(path);

    /* Two gzip members, as `cat a.gz b.gz` would make. */
    {
        unsigned char *both = malloc(z1 + z2);
        memcpy(both, a, z1);
        memcpy(both + z1, b, z2);
        path = temp_file(both, z1 + z2);
        CHECK_STATUS(sdui_pack_open_file(path, NULL, &pack, &err), SDUI_OK);
        if (pack) {
            sdui_pack_get_info(pack, &info);
            CHECK_EQ_INT(info.members, 2);
            CHECK_EQ_INT(info.tokens, 3);
            CHECK_EQ_INT(info.raw_bytes, strlen(json));
            CHECK_EQ_INT(info.compressed_bytes, z1 + z2);
            sdui_pack_free(pack);
        }
        unlink(path);
        free(both);
    }
    /* An empty file is not gzip. */
    path = temp_file("", 0);
    CHECK_STATUS(sdui_pack_open_file(path, NULL, &pack, &err), SDUI_GZIP);
    unlink(path);

    pack = (sdui_pack *)&err;
    CHECK_STATUS(sdui_pack_open_file("/nonexistent-dir/core-pack.json.gz",
                                     NULL, &pack, &err),
                 SDUI_IO);
    CHECK(pack == NULL);
    CHECK_MSG_HAS("/nonexistent-dir/core-pack.json.gz");
    CHECK_EQ_INT(err.offset, -1);
    CHECK_STATUS(sdui_pack_open_file("/", NULL, &pack, &err), SDUI_IO);
    CHECK_MSG_HAS("\"/\"");
    CHECK_STATUS(sdui_pack_open_file(NULL, NULL, &pack, &err), SDUI_ARGUMENT);
    sdui_free(z);
    sdui_free(a);
    sdui_free(b);
    free(json);
}

/* What a FIFO writer thread writes: `len` bytes of `data`, then EOF. */
typedef struct fifo_job {
    const char *path;
    const unsigned char *data;
    size_t len;
} fifo_job;

/* Writes a job into its FIFO (opening it blocks until the reader opens). */
static void *fifo_writer(void *arg)
{
    fifo_job *job = arg;
    FILE *f = fopen(job->path, "wb");
    if (f) {
        fwrite(job->data, 1, job->len, f);
        fclose(f);
    }
    return NULL;
}

/* Files that are not regular files: a device is refused by name, a
 * directory says so, a FIFO is read with the same bound as a file. */
static void test_open_special_files(void)
{
    char *json = three_pack();
    size_t zlen = 0;
    unsigned char *z = gz(json, strlen(json), &zlen);
    char fifo[64];
    sdui_pack *pack = NULL;
    sdui_limits lim;
    sdui_error err;
    pthread_t t;
    fifo_job job;

    CHECK_STATUS(sdui_pack_open_file("/dev/zero", NULL, &pack, &err), SDUI_IO);
    CHECK_MSG_HAS("not a regular file");
    CHECK_MSG_HAS("/dev/zero");
    CHECK_STATUS(sdui_pack_open_file("/tmp", NULL, &pack, &err), SDUI_IO);
    CHECK_MSG_HAS(strerror(EISDIR));

    snprintf(fifo, sizeof fifo, "/tmp/sdui-test-fifo-%ld", (long)getpid());
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    job.path = fifo;
    job.data = z;
    job.len = zlen;
    pthread_create(&t, NULL, fifo_writer, &job);
    CHECK_STATUS(sdui_pack_open_file(fifo, NULL, &pack, &err), SDUI_OK);
    pthread_join(t, NULL);
    if (pack) {
        CHECK_EQ_INT(sdui_pack_count(pack), 3);
        sdui_pack_free(pack);
    }
    /* Through a FIFO, the compressed limit holds as the bytes arrive. */
    sdui_limits_default(&lim);
    lim.max_compressed_bytes = zlen - 1;
    pthread_create(&t, NULL, fifo_writer, &job);
    CHECK_STATUS(sdui_pack_open_file(fifo, &lim, &pack, &err), SDUI_LIMIT);
    CHECK_MSG_HAS(fifo);
    pthread_join(t, NULL);
    unlink(fifo);
    sdui_free(z);
    free(json);
}

/* The shape rules: object, tokens array, formatVersion, token objects, ids. */
static void test_shape(void)
{
    static const struct {
        const char *json;
        sdui_status want;
        const char *msg; /* part of the message, or NULL */
    } cases[] = {
        {"[]", SDUI_SCHEMA, "object"},
        {"\"pack\"", SDUI_SCHEMA, "object"},
        {"1", SDUI_SCHEMA, NULL},
        {"null", SDUI_SCHEMA, NULL},
        {"{", SDUI_JSON, NULL},
        {"{\"formatVersion\":1,\"tokens\":[]", SDUI_JSON, NULL},
        {"{\"formatVersion\":1,\"tokens\":[]} {}", SDUI_JSON, NULL},
        {"", SDUI_JSON, NULL},
        {"{}", SDUI_SCHEMA, "tokens"},
        {"{\"formatVersion\":1}", SDUI_SCHEMA, "tokens"},
        {"{\"formatVersion\":1,\"tokens\":{}}", SDUI_SCHEMA, "array"},
        {"{\"formatVersion\":1,\"tokens\":\"x\"}", SDUI_SCHEMA, "array"},
        {"{\"formatVersion\":1,\"tokens\":null}", SDUI_SCHEMA, "array"},
        {"{\"formatVersion\":1,\"tokens\":[],\"tokens\":[]}", SDUI_SCHEMA,
         "duplicate"},
        {"{\"tokens\":[]}", SDUI_SCHEMA, "formatVersion"},
        {"{\"formatVersion\":2,\"tokens\":[]}", SDUI_SCHEMA, "formatVersion"},
        {"{\"formatVersion\":1.0,\"tokens\":[]}", SDUI_SCHEMA,
         "formatVersion"},
        {"{\"formatVersion\":\"1\",\"tokens\":[]}", SDUI_SCHEMA,
         "formatVersion"},
        {"{\"formatVersion\":-1,\"tokens\":[]}", SDUI_SCHEMA, NULL},
        {"{\"formatVersion\":10,\"tokens\":[]}", SDUI_SCHEMA, NULL},
        {"{\"formatVersion\":1e0,\"tokens\":[]}", SDUI_SCHEMA, NULL},
        {"{\"formatVersion\":true,\"tokens\":[]}", SDUI_SCHEMA, NULL},
        {"{\"formatVersion\":null,\"tokens\":[]}", SDUI_SCHEMA, NULL},
        {"{\"formatVersion\":[1],\"tokens\":[]}", SDUI_SCHEMA, NULL},
        {"{\"formatVersion\":01,\"tokens\":[]}", SDUI_SCHEMA, NULL},
        {"{\"formatVersion\":1 2,\"tokens\":[]}", SDUI_JSON, NULL},
        {"{\"formatVersion\":1.,\"tokens\":[]}", SDUI_JSON, NULL},
        {"{\"formatVersion\":1,\"formatVersion\":1,\"tokens\":[]}",
         SDUI_SCHEMA, "duplicate"},
        {"{\"formatVersion\":1,\"tokens\":[1]}", SDUI_SCHEMA, "not a JSON object"},
        {"{\"formatVersion\":1,\"tokens\":[[]]}", SDUI_SCHEMA, "object"},
        {"{\"formatVersion\":1,\"tokens\":[\"a\"]}", SDUI_SCHEMA, "object"},
        {"{\"formatVersion\":1,\"tokens\":[null]}", SDUI_SCHEMA, "object"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\"},7]}", SDUI_SCHEMA,
         "not a JSON object"},
        {"{\"formatVersion\":1,\"tokens\":[{}]}", SDUI_SCHEMA, "id"},
        {"{\"formatVersion\":1,\"tokens\":[{\"name\":\"a\"}]}", SDUI_SCHEMA,
         "id"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":1}]}", SDUI_SCHEMA,
         "string"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":null}]}", SDUI_SCHEMA,
         "string"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":[\"a\"]}]}", SDUI_SCHEMA,
         "string"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":{\"a\":1}}]}", SDUI_SCHEMA,
         "string"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"\"}]}", SDUI_SCHEMA,
         "empty"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"id\":\"b\"}]}",
         SDUI_SCHEMA, "duplicate"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"i\\u0064\":\"a\"}]}",
         SDUI_SCHEMA, "duplicate"},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"dup\"},{\"id\":\"x\"},"
         "{\"id\":\"dup\"}]}",
         SDUI_SCHEMA, "\"dup\""},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"ab\"},"
         "{\"id\":\"a\\u0062\"}]}",
         SDUI_SCHEMA, "\"ab\""},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"\\u00e9\"},"
         "{\"id\":\"\xc3\xa9\"}]}",
         SDUI_SCHEMA, "duplicate token id"},
        /* Accepted shapes. */
        {"{\"formatVersion\":1,\"tokens\":[]}", SDUI_OK, NULL},
        {" \n{ \"tokens\" : [ ] , \"formatVersion\" : 1 }\n ", SDUI_OK, NULL},
        {"{\"\\u0066ormatVersion\":1,\"\\u0074okens\":[{\"i\\u0064\":\"a\"}]}",
         SDUI_OK, NULL},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\"},{\"id\":\"A\"}],"
         "\"generator\":\"sdui\"}",
         SDUI_OK, NULL},
    };
    size_t i;
    sdui_error err;
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        char what[64];
        snprintf(what, sizeof what, "shape case %zu", i);
        if (expect_open(cases[i].json, NULL, cases[i].want, &err, what) ==
                cases[i].want &&
            cases[i].msg)
            CHECKF(strstr(err.message, cases[i].msg) != NULL,
                   "%s: message \"%s\" lacks \"%s\"", what, err.message,
                   cases[i].msg);
    }
    /* Shape errors carry a position in the inflated JSON. */
    expect_open("{\"formatVersion\":1,\n\"tokens\":[{\"id\":\"a\"},\n  42]}",
                NULL, SDUI_SCHEMA, &err, "position");
    CHECK_EQ_INT(err.offset, 44);
    CHECK_EQ_INT(err.line, 3);
    CHECK_EQ_INT(err.column, 3);
    expect_open("{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\"} {}]}", NULL,
                SDUI_JSON, &err, "syntax position");
    CHECK_EQ_INT(err.offset, 40);
    /* Not gzip at all. */
    {
        sdui_pack *pack = NULL;
        const char *plain = "{\"formatVersion\":1,\"tokens\":[]}";
        CHECK_STATUS(sdui_pack_open_memory(plain, strlen(plain), NULL, &pack,
                                           &err),
                     SDUI_GZIP);
        CHECK_STATUS(sdui_pack_open_memory("", 0, NULL, &pack, &err),
                     SDUI_GZIP);
    }
}

/* Decoy "tokens" and "id" keys away from their fixed depths are ignored. */
static void test_decoys(void)
{
    const char *json =
        "{\"meta\":{\"tokens\":[{\"id\":\"x\"}],\"id\":\"y\","
        "\"formatVersion\":2,\"more\":{\"tokens\":\"no\"}},"
        "\"formatVersion\":1,"
        "\"list\":[{\"id\":\"q\"},{\"id\":\"q\"},7,\"s\"],"
        "\"tokens\":[{\"id\":\"a\",\"version\":1,\"primitive\":\"Box\","
        "\"primitiveVersion\":1,\"props\":{\"id\":\"z\",\"tokens\":"
        "[{\"id\":\"w\"},{\"id\":\"w\"}],\"nested\":{\"id\":5},"
        "\"children\":[{\"id\":\"c\",\"primitive\":\"Text\",\"props\":{}}]}},"
        "{\"x\":{\"id\":\"in-x\"},\"id\":\"b\",\"version\":1,\"primitive\":"
        "\"Box\",\"primitiveVersion\":1,\"props\":{}}],"
        "\"extra\":[{\"id\":\"a\"}],\"id\":\"root\"}";
    sdui_pack *pack = NULL;
    sdui_error err;
    static const char *const absent[] = {"x", "y", "q", "z", "w", "c",
                                         "in-x", "root", "5"};
    size_t i;
    CHECK_STATUS(open_json(json, NULL, &pack, &err), SDUI_OK);
    if (!pack)
        return;
    CHECK_EQ_INT(sdui_pack_count(pack), 2);
    CHECK(has(pack, "a") && has(pack, "b"));
    for (i = 0; i < sizeof absent / sizeof *absent; i++)
        CHECKF(!has(pack, absent[i]), "decoy id %s was indexed", absent[i]);
    {
        sdui_token *tok = NULL;
        CHECK_STATUS(sdui_pack_get(pack, "a", 1, &tok, &err), SDUI_OK);
        CHECK(tok && sdui_value_count(sdui_token_props(tok)) == 4);
        sdui_token_release(tok);
        CHECK_STATUS(sdui_pack_get(pack, "b", 1, &tok, &err), SDUI_OK);
        sdui_token_release(tok);
    }
    sdui_pack_free(pack);
}

/* Escaped, Unicode and NUL-holding ids are indexed by their decoded bytes. */
static void test_ids(void)
{
    static const struct {
        const char *raw;   /* as written in the JSON */
        const char *bytes; /* decoded                */
        size_t len;
    } ids[] = {
        {"a\\u0062", "ab", 2},
        {"line\\nbreak", "line\nbreak", 10},
        {"q\\\"uote\\\\slash\\/", "q\"uote\\slash/", 13},
        {"caf\\u00e9", "caf\xc3\xa9", 5},
        {"h\xc3\xa9llo", "h\xc3\xa9llo", 6},
        {"\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac", 6},
        {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", 4},
        {"\\ud83d\\ude01", "\xf0\x9f\x98\x81", 4},
        {"nul\\u0000byte", "nul\0byte", 8},
        {"tab\\tand\\b\\f\\r", "tab\tand\b\f\r", 10},
    };
    size_t n = sizeof ids / sizeof *ids, i, len = 64;
    char *json;
    sdui_pack *pack = NULL;
    sdui_error err;
    for (i = 0; i < n; i++)
        len += strlen(ids[i].raw) + 128;
    json = malloc(len);
    strcpy(json, "{\"formatVersion\":1,\"tokens\":[");
    for (i = 0; i < n; i++) {
        char *t = token_doc(ids[i].raw, "\"n\":1");
        if (i)
            strcat(json, ",");
        strcat(json, t);
        free(t);
    }
    strcat(json, "]}");
    CHECK_STATUS(open_json(json, NULL, &pack, &err), SDUI_OK);
    if (pack) {
        CHECK_EQ_INT(sdui_pack_count(pack), n);
        for (i = 0; i < n; i++) {
            size_t l = 0;
            const char *id = sdui_pack_id_at(pack, i, &l);
            sdui_token *tok = NULL, *again = NULL;
            CHECKF(l == ids[i].len && memcmp(id, ids[i].bytes, l) == 0,
                   "id %zu decoded wrong", i);
            CHECKF(sdui_pack_contains(pack, ids[i].bytes, ids[i].len),
                   "id %zu not found by its bytes", i);
            CHECKF(sdui_pack_get(pack, ids[i].bytes, ids[i].len, &tok,
                                 &err) == SDUI_OK,
                   "get id %zu: %s", i, err.message);
            if (tok) {
                const char *tid = sdui_token_id(tok, &l);
                CHECK(l == ids[i].len && memcmp(tid, ids[i].bytes, l) == 0);
            }
            CHECK_STATUS(sdui_pack_get(pack, ids[i].bytes, ids[i].len, &again,
                                       &err),
                         SDUI_OK);
            CHECK(tok == again);
            sdui_token_release(tok);
            sdui_token_release(again);
        }
        /* The raw (escaped) spelling is not an id. */
        CHECK(!has(pack, "a\\u0062"));
        CHECK(!sdui_pack_contains(pack, "nul", 3));
        sdui_pack_free(pack);
    }
    free(json);
}

/* Builds a pack of one token whose object text is exactly size bytes. */
static char *sized_token_pack(size_t size, size_t *token_start)
{
    const char *head = "{\"formatVersion\":1,\"tokens\":[ ";
    char *tok = token_doc("big", "\"t\":\"\""), *json;
    size_t base = strlen(tok), pad = size - base, hl = strlen(head);
    json = malloc(hl + size + 16);
    memcpy(json, head, hl);
    /* Insert the padding inside the empty "t" string: before `"}}`. */
    memcpy(json + hl, tok, base - 3);
    memset(json + hl + base - 3, 'x', pad);
    strcpy(json + hl + base - 3 + pad, "\"}} ]}");
    *token_start = hl;
    free(tok);
    return json;
}

/* Limits: token bytes at the boundary, token count, compressed, inflated,
 * depth. */
static void test_limits(void)
{
    sdui_limits lim;
    sdui_error err;
    size_t start, sizes[] = {SDUI_DEFAULT_MAX_TOKEN_BYTES, 200};
    size_t si;
    for (si = 0; si < 2; si++) {
        size_t max = sizes[si];
        char *ok = sized_token_pack(max, &start);
        char *over = sized_token_pack(max + 1, &start);
        sdui_pack *pack = NULL;
        sdui_limits_default(&lim);
        lim.max_token_bytes = max;
        CHECKF(open_json(ok, si ? &lim : NULL, &pack, &err) == SDUI_OK,
               "token of exactly %zu bytes: %s", max, err.message);
        if (pack) {
            sdui_token *tok = NULL;
            size_t l = 0;
            CHECK_STATUS(sdui_pack_get(pack, "big", 3, &tok, &err), SDUI_OK);
            CHECK(tok && sdui_token_json(tok, &l) && l == max);
            sdui_token_release(tok);
            sdui_pack_free(pack);
        }
        CHECK_STATUS(open_json(over, si ? &lim : NULL, &pack, &err),
                     SDUI_LIMIT);
        CHECK(pack == NULL);
        CHECK_MSG_HAS("\"big\"");
        CHECK_EQ_INT(err.offset, start);
        free(ok);
        free(over);
    }
    /* A lower limit than the pack was built for refuses it. */
    {
        char *ok = sized_token_pack(1000, &start);
        sdui_pack *pack = NULL;
        sdui_limits_default(&lim);
        lim.max_token_bytes = 999;
        CHECK_STATUS(open_json(ok, &lim, &pack, &err), SDUI_LIMIT);
        free(ok);
    }

    /* max_tokens: exactly the limit passes, one more fails. */
    {
        char json[512];
        sdui_limits_default(&lim);
        lim.max_tokens = 3;
        snprintf(json, sizeof json, "{\"formatVersion\":1,\"tokens\":[%s]}",
                 "{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}");
        expect_open(json, &lim, SDUI_OK, &err, "3 tokens under 3");
        snprintf(json, sizeof json, "{\"formatVersion\":1,\"tokens\":[%s]}",
                 "{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}");
        expect_open(json, &lim, SDUI_LIMIT, &err, "4 tokens under 3");
        CHECK_MSG_HAS("3");
        lim.max_tokens = 0;
        expect_open("{\"formatVersion\":1,\"tokens\":[]}", &lim, SDUI_OK, &err,
                    "0 tokens under 0");
        expect_open("{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\"}]}", &lim,
                    SDUI_LIMIT, &err, "1 token under 0");
    }

    /* max_compressed_bytes and max_inflated_bytes at their boundaries. */
    {
        char *json = three_pack();
        size_t zlen = 0, jl = strlen(json);
        unsigned char *z = gz(json, jl, &zlen);
        sdui_pack *pack = NULL;
        sdui_limits_default(&lim);
        lim.max_compressed_bytes = zlen;
        CHECK_STATUS(sdui_pack_open_memory(z, zlen, &lim, &pack, &err),
                     SDUI_OK);
        sdui_pack_free(pack);
        lim.max_compressed_bytes = zlen - 1;
        CHECK_STATUS(sdui_pack_open_memory(z, zlen, &lim, &pack, &err),
                     SDUI_LIMIT);
        CHECK_MSG_HAS("compressed");
        sdui_limits_default(&lim);
        lim.max_inflated_bytes = jl;
        CHECK_STATUS(sdui_pack_open_memory(z, zlen, &lim, &pack, &err),
                     SDUI_OK);
        sdui_pack_free(pack);
        lim.max_inflated_bytes = jl - 1;
        CHECK_STATUS(sdui_pack_open_memory(z, zlen, &lim, &pack, &err),
                     SDUI_LIMIT);
        sdui_free(z);
        free(json);
    }

    /* Depth counts from the token (limits.h): token 1, props 2, x 3; the
     * pack's root and "tokens" array do not count. */
    {
        const char *json = "{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\","
                           "\"version\":1,\"primitive\":\"P\","
                           "\"primitiveVersion\":1,\"props\":{\"x\":[1]}}]}";
        sdui_pack *pack = NULL;
        sdui_limits_default(&lim);
        lim.max_depth = 3;
        CHECK_STATUS(open_json(json, &lim, &pack, &err), SDUI_OK);
        if (pack) {
            sdui_token *tok = NULL;
            CHECK_STATUS(sdui_pack_get(pack, "a", 1, &tok, &err), SDUI_OK);
            sdui_token_release(tok);
            sdui_pack_free(pack);
        }
        lim.max_depth = 2;
        CHECK_STATUS(open_json(json, &lim, &pack, &err), SDUI_LIMIT);
        CHECK_EQ_INT(err.offset, strstr(json, "[1]") - json);
        CHECK_MSG_HAS("counted from the token");
        lim.max_depth = 0;
        CHECK_STATUS(open_json(json, &lim, &pack, &err), SDUI_LIMIT);
    }
}

/* A valid token nested exactly `depth` levels deep counted from itself
 * (token 1, props 2, then arrays), depth >= 2 (new; free). */
static char *deep_token(const char *id, unsigned depth)
{
    size_t arrays = depth - 2, n = 2 * arrays + 256, k = 0, i;
    char *p = malloc(n);
    k += (size_t)snprintf(p, n,
                          "{\"id\":\"%s\",\"version\":1,\"primitive\":\"T\","
                          "\"primitiveVersion\":1,\"props\":{\"x\":",
                          id);
    for (i = 0; i < arrays; i++)
        p[k++] = '[';
    p[k++] = '1';
    for (i = 0; i < arrays; i++)
        p[k++] = ']';
    snprintf(p + k, n - k, "}}");
    return p;
}

/* Wraps NUL-terminated token texts as a pack, one a line (new; free). */
static char *pack_of(const char *const *tokens, size_t n)
{
    size_t len = 64, i;
    char *p;
    for (i = 0; i < n; i++)
        len += strlen(tokens[i]) + 2;
    p = malloc(len);
    strcpy(p, "{\"formatVersion\":1,\"tokens\":[\n");
    for (i = 0; i < n; i++) {
        strcat(p, tokens[i]);
        strcat(p, i + 1 < n ? ",\n" : "\n");
    }
    strcat(p, "]}");
    return p;
}

/* One definition of depth end to end: a token that parses alone at
 * max_depth opens in a pack (one and two threads) and is got from it; one
 * level more is refused alone and in the pack, at the same bracket. */
static void test_depth_end_to_end(void)
{
    static const unsigned depths[] = {2, 3, 10, SDUI_DEFAULT_MAX_DEPTH, 300};
    size_t di;
    for (di = 0; di < sizeof depths / sizeof *depths; di++) {
        unsigned d = depths[di];
        char *ok = deep_token("ok", d), *over = deep_token("over", d + 1);
        char *small = deep_token("small", 2);
        const char *trio[3];
        char *json, *pad;
        sdui_limits lim;
        sdui_error err, alone;
        sdui_token *tok = NULL;
        sdui_pack *pack = NULL;
        size_t pi;
        sdui_limits_default(&lim);
        lim.max_depth = d;

        CHECK_STATUS(sdui_token_parse(ok, strlen(ok), &lim, &tok, &err),
                     SDUI_OK);
        sdui_token_release(tok);
        tok = NULL;
        CHECK(sdui_token_parse(over, strlen(over), &lim, &tok, &alone) ==
              SDUI_LIMIT);

        /* Padding makes the pack large enough to be split in two. */
        pad = malloc(4000);
        snprintf(pad, 4000, "{\"id\":\"pad\",\"p\":\"%0*d\"}", 3000, 0);
        trio[0] = pad;
        trio[1] = small;
        trio[2] = ok;
        json = pack_of(trio, 3);
        for (pi = 0; pi < 2; pi++) {
            lim.parallel_scan_bytes = pi ? 0 : (size_t)-1;
            CHECKF(open_json(json, &lim, &pack, &err) == SDUI_OK,
                   "depth %u (threads %zu): a token valid alone is refused "
                   "in a pack: %s",
                   d, pi + 1, err.message);
            if (pack) {
                CHECK_STATUS(sdui_pack_get(pack, "ok", 2, &tok, &err),
                             SDUI_OK);
                sdui_token_release(tok);
                CHECK_STATUS(sdui_pack_get(pack, "small", 5, &tok, &err),
                             SDUI_OK);
                sdui_token_release(tok);
                sdui_pack_free(pack);
                pack = NULL;
            }
        }
        free(json);
        trio[2] = over;
        json = pack_of(trio, 3);
        for (pi = 0; pi < 2; pi++) {
            lim.parallel_scan_bytes = pi ? 0 : (size_t)-1;
            CHECK_STATUS(open_json(json, &lim, &pack, &err), SDUI_LIMIT);
            CHECK(pack == NULL);
            /* The same bracket as alone, shifted by the token's place. */
            CHECK_EQ_INT(err.offset,
                         (strstr(json, "{\"id\":\"over\"") - json) +
                             alone.offset);
            CHECK_MSG_HAS("counted from the token");
        }
        free(json);

        /* Another member of the root counts from itself too. */
        {
            size_t n = 2 * (size_t)d + 128, k, i;
            char *doc = malloc(n);
            for (i = 0; i < 2; i++) {
                unsigned levels = d + (unsigned)i, j;
                k = (size_t)snprintf(doc, n, "{\"formatVersion\":1,\"meta\":");
                for (j = 0; j < levels; j++)
                    doc[k++] = '[';
                for (j = 0; j < levels; j++)
                    doc[k++] = ']';
                snprintf(doc + k, n - k, ",\"tokens\":[]}");
                lim.parallel_scan_bytes = (size_t)-1;
                CHECK_STATUS(open_json(doc, &lim, &pack, &err),
                             i ? SDUI_LIMIT : SDUI_OK);
                sdui_pack_free(pack);
                pack = NULL;
            }
            free(doc);
        }
        free(pad);
        free(small);
        free(ok);
        free(over);
    }
    /* The envelope costs nothing: with max_depth 0 an empty pack opens
     * (no value in it has a level), a pack with a token does not. */
    {
        sdui_limits lim;
        sdui_error err;
        sdui_limits_default(&lim);
        lim.max_depth = 0;
        expect_open("{\"formatVersion\":1,\"tokens\":[]}", &lim, SDUI_OK, &err,
                    "empty pack under depth 0");
        expect_open("{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\"}]}", &lim,
                    SDUI_LIMIT, &err, "token under depth 0");
        lim.max_depth = 1;
        expect_open("{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\"}]}", &lim,
                    SDUI_OK, &err, "flat token under depth 1");
        expect_open("{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":{}}]}",
                    &lim, SDUI_LIMIT, &err, "two-level token under depth 1");
    }
}

/* A token that is valid JSON but breaks the schema fails only when asked
 * for, naming the token and the path; good tokens are unaffected. */
static void test_lazy_parse(void)
{
    const char *json =
        "{\"formatVersion\":1,\"tokens\":[\n"
        "{\"id\":\"good\",\"version\":1,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{}},\n"
        "  {\"id\":\"bad\",\"version\":1,\"primitive\":\"Column\","
        "\"primitiveVersion\":1,\"props\":{\"children\":["
        "{\"primitive\":\"Text\",\"props\":{}},{\"props\":{}}]}},\n"
        "{\"id\":\"dupkey\",\"version\":1,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{\"a\":1,\"a\":2}},\n"
        "{\"id\":\"noversion\",\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{}},\n"
        "{\"id\":\"hugeint\",\"version\":1,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{\"n\":123456789012345678901234}}"
        "]}";
    const char *bad_at = strstr(json, "{\"id\":\"bad\"");
    const char *dup_at = strstr(json, "{\"id\":\"dupkey\"");
    sdui_pack *pack = NULL;
    sdui_token *tok = NULL, *again = NULL;
    sdui_error err;
    CHECK_STATUS(open_json(json, NULL, &pack, &err), SDUI_OK);
    if (!pack)
        return;
    CHECK_EQ_INT(sdui_pack_count(pack), 5);
    CHECK_STATUS(sdui_pack_get(pack, "good", 4, &tok, &err), SDUI_OK);
    CHECK_STATUS(sdui_pack_get(pack, "good", 4, &again, &err), SDUI_OK);
    CHECK(tok != NULL && tok == again);
    sdui_token_release(again);
    sdui_token_release(tok);

    tok = (sdui_token *)&err;
    CHECK_STATUS(sdui_pack_get(pack, "bad", 3, &tok, &err), SDUI_SCHEMA);
    CHECK(tok == NULL);
    CHECK_MSG_HAS("\"bad\"");
    CHECK_MSG_HAS("props.children[1]");
    CHECK_MSG_HAS("primitive");
    CHECK_EQ_INT(err.offset, bad_at - json);
    CHECK_EQ_INT(err.line, 3);
    CHECK_EQ_INT(err.column, 3);
    /* Failing again, the same way: nothing half-made was kept. */
    CHECK_STATUS(sdui_pack_get(pack, "bad", 3, &tok, &err), SDUI_SCHEMA);
    CHECK_MSG_HAS("props.children[1]");
    CHECK(sdui_pack_contains(pack, "bad", 3));

    /* Valid JSON refused on purpose: a schema error at the second key. */
    CHECK_STATUS(sdui_pack_get(pack, "dupkey", 6, &tok, &err), SDUI_SCHEMA);
    CHECK_EQ_INT(err.offset, strstr(dup_at, "\"a\":2") - json);
    CHECK(err.line == 4);
    CHECK_MSG_HAS("duplicate object key \"a\"");
    CHECK_STATUS(sdui_pack_get(pack, "noversion", 9, &tok, &err),
                 SDUI_SCHEMA);
    CHECK_MSG_HAS("version");
    /* A number out of range is a limit, at the number. */
    CHECK_STATUS(sdui_pack_get(pack, "hugeint", 7, &tok, &err), SDUI_LIMIT);
    CHECK_EQ_INT(err.offset, strstr(json, "123456789012345678901234") - json);
    CHECK_MSG_HAS("64 bits");
    CHECK(tok == NULL);
    sdui_pack_free(pack);
}

/* Valid JSON a token cannot take, in a pack: the pack opens (the scan
 * accepts the bytes), the other tokens are got, and each such token is
 * reported when asked for as it is alone (token.c): SDUI_SCHEMA for
 * duplicate keys and NUL in keys, SDUI_LIMIT for numbers out of range, at
 * the same place shifted to the pack. */
static void test_lazy_valid_json(void)
{
    static const char *const tokens[] = {
        "{\"id\":\"suite_dup\",\"a\":\"b\",\"a\":\"c\"}",
        "{\"id\":\"suite_dup_same\",\"a\":\"b\",\"a\":\"b\"}",
        "{\"id\":\"suite_nul\",\"foo\\u0000bar\": 42}",
        "{\"id\":\"dup\",\"version\":1,\"primitive\":\"T\","
        "\"primitiveVersion\":1,\"props\":{\"k\":1,\n\"\\u006b\":2}}",
        "{\"id\":\"real\",\"version\":1,\"primitive\":\"T\","
        "\"primitiveVersion\":1,\"props\":{\"n\":[1,-1e999]}}",
        "{\"id\":\"int\",\"version\":1,\"primitive\":\"T\","
        "\"primitiveVersion\":1,\"props\":{\"n\":"
        "123456789012345678901234567890}}",
        "{\"id\":\"good\",\"version\":1,\"primitive\":\"T\","
        "\"primitiveVersion\":1,\"props\":{\"n\":1e-999}}",
    };
    static const struct {
        const char *id;
        sdui_status want;
        const char *at; /* in the token text, its last occurrence */
        const char *msg;
    } want[] = {
        {"suite_dup", SDUI_SCHEMA, "\"a\"", "duplicate object key \"a\""},
        {"suite_dup_same", SDUI_SCHEMA, "\"a\"", "refused on purpose"},
        {"suite_nul", SDUI_SCHEMA, "\"foo\\u0000bar\"", "NUL"},
        {"dup", SDUI_SCHEMA, "\"\\u006b\"", "duplicate"},
        {"real", SDUI_LIMIT, "-1e999", "infinity"},
        {"int", SDUI_LIMIT, "123456789012345678901234567890", "64 bits"},
        {"good", SDUI_OK, NULL, NULL},
    };
    const size_t n = sizeof tokens / sizeof *tokens;
    char *json = pack_of(tokens, n);
    sdui_pack *pack = NULL;
    sdui_error err, alone;
    size_t i;
    CHECK_STATUS(open_json(json, NULL, &pack, &err), SDUI_OK);
    if (!pack) {
        free(json);
        return;
    }
    for (i = 0; i < n; i++) {
        sdui_token *tok = NULL;
        const char *start = strstr(json, tokens[i]);
        const char *at = NULL, *q;
        sdui_status st = sdui_pack_get(pack, want[i].id, strlen(want[i].id),
                                       &tok, &err);
        CHECKF(st == want[i].want, "%s: %s \"%s\"", want[i].id,
               sdui_status_name(st), err.message);
        sdui_token_release(tok);
        if (!want[i].at)
            continue;
        for (q = start; (q = strstr(q, want[i].at)) != NULL &&
                        q < start + strlen(tokens[i]);
             q++)
            at = q;
        CHECKF(at && err.offset == at - json, "%s: offset %lld, want %lld",
               want[i].id, err.offset, at ? (long long)(at - json) : -1LL);
        CHECK_MSG_HAS(want[i].msg);
        /* The same verdict alone (the pack's shape aside), shifted. */
        tok = NULL;
        if (sdui_token_parse(tokens[i], strlen(tokens[i]), NULL, &tok,
                             &alone) == want[i].want) {
            CHECK_EQ_INT(err.offset - (start - json), alone.offset);
            CHECK_EQ_STR(err.message, alone.message);
        } else {
            CHECKF(0, "%s alone: %s", want[i].id, alone.message);
        }
        sdui_token_release(tok);
    }
    sdui_pack_free(pack);
    free(json);
}

/* Shared state of the concurrent lookup test. */
typedef struct race {
    const sdui_pack *pack;
    pthread_barrier_t *start;
    size_t n, offset;
    sdui_token **seen; /* n pointers */
    int failures;
} race;

/* One thread: get every id, starting at its own offset, twice over. */
static void *race_thread(void *arg)
{
    race *r = arg;
    size_t k, round;
    pthread_barrier_wait(r->start);
    for (round = 0; round < 2; round++) {
        for (k = 0; k < r->n; k++) {
            size_t i = (k + r->offset) % r->n, len = 0;
            const char *id = sdui_pack_id_at(r->pack, i, &len);
            sdui_token *tok = NULL;
            sdui_error err;
            if (sdui_pack_get(r->pack, id, len, &tok, &err) != SDUI_OK) {
                r->failures++;
                continue;
            }
            if (round == 0)
                r->seen[i] = tok;
            else if (r->seen[i] != tok)
                r->failures++;
            sdui_token_release(tok);
        }
    }
    return NULL;
}

/* Many threads get the same ids at once: all see one token per id. */
static void test_threads(void)
{
    enum { THREADS = 8, TOKENS = 400 };
    char *json = malloc(TOKENS * 256 + 64);
    size_t i, t, n = 0, bad = 0;
    sdui_pack *pack = NULL;
    pthread_t th[THREADS];
    race rs[THREADS];
    pthread_barrier_t start;
    sdui_error err;
    n += (size_t)sprintf(json, "{\"formatVersion\":1,\"tokens\":[");
    for (i = 0; i < TOKENS; i++)
        n += (size_t)sprintf(json + n,
                             "%s{\"id\":\"tok-%zu\",\"version\":1,"
                             "\"primitive\":\"Text\",\"primitiveVersion\":1,"
                             "\"props\":{\"i\":%zu,\"children\":[{"
                             "\"primitive\":\"Icon\",\"props\":{}}]}}",
                             i ? "," : "", i, i);
    strcpy(json + n, "]}");
    CHECK_STATUS(open_json(json, NULL, &pack, &err), SDUI_OK);
    free(json);
    if (!pack)
        return;
    pthread_barrier_init(&start, NULL, THREADS);
    for (t = 0; t < THREADS; t++) {
        rs[t].pack = pack;
        rs[t].start = &start;
        rs[t].n = TOKENS;
        rs[t].offset = (t * 37) % TOKENS;
        rs[t].seen = calloc(TOKENS, sizeof *rs[t].seen);
        rs[t].failures = 0;
        pthread_create(&th[t], NULL, race_thread, &rs[t]);
    }
    for (t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (t = 0; t < THREADS; t++) {
        CHECKF(rs[t].failures == 0, "thread %zu: %d failures", t,
               rs[t].failures);
        for (i = 0; i < TOKENS; i++)
            if (rs[t].seen[i] != rs[0].seen[i] || !rs[t].seen[i])
                bad++;
    }
    CHECKF(bad == 0, "%zu lookups saw a different token", bad);
    for (i = 0; i < TOKENS; i++) {
        sdui_token *tok = NULL;
        char id[32];
        snprintf(id, sizeof id, "tok-%zu", i);
        sdui_pack_get(pack, id, strlen(id), &tok, &err);
        if (tok != rs[0].seen[i] ||
            sdui_value_int(sdui_value_get(sdui_token_props(tok), "i")) !=
                (int64_t)i)
            bad++;
        sdui_token_release(tok);
    }
    CHECKF(bad == 0, "%zu tokens differ after the race", bad);
    for (t = 0; t < THREADS; t++)
        free(rs[t].seen);
    sdui_pack_free(pack);
}

/* Tokens stay valid after the pack is freed; so does their JSON text. */
static void test_lifetime(void)
{
    char *json = three_pack();
    sdui_pack *pack = NULL;
    sdui_token *header = NULL, *footer = NULL;
    sdui_error err;
    CHECK_STATUS(open_json(json, NULL, &pack, &err), SDUI_OK);
    if (!pack) {
        free(json);
        return;
    }
    CHECK_STATUS(sdui_pack_get(pack, "header", 6, &header, &err), SDUI_OK);
    CHECK_STATUS(sdui_pack_get(pack, "footer", 6, &footer, &err), SDUI_OK);
    sdui_token_retain(header);
    sdui_pack_free(pack);
    if (header && footer) {
        size_t len = 0;
        const char *text = sdui_token_json(header, &len);
        const sdui_value *kids =
            sdui_value_get(sdui_token_props(header), "children");
        const char *s =
            sdui_value_string(sdui_value_get(sdui_value_get(
                                  sdui_value_at(kids, 0), "props"), "text"),
                              &len);
        CHECK(s && len == 2 && memcmp(s, "Hi", 2) == 0);
        text = sdui_token_json(header, &len);
        CHECK(len > 10 && text[0] == '{' && text[len - 1] == '}' &&
              strstr(json, "{\"id\":\"header\"") &&
              memcmp(text, strstr(json, "{\"id\":\"header\""), len) == 0);
        CHECK_EQ_INT(sdui_token_version(footer), 7);
        CHECK_EQ_INT(sdui_token_primitive_version(header), 2);
    }
    sdui_token_release(header);
    sdui_token_release(header);
    sdui_token_release(footer);
    free(json);
}

/* The example pack of the repository, when present, opens cleanly. */
static void test_example_pack(void)
{
    const char *path = "Examples/core-pack.json.gz";
    sdui_pack *pack = NULL;
    sdui_error err;
    size_t i, bad = 0;
    if (access(path, R_OK) != 0) {
        printf("note: %s not present; example pack test not run\n", path);
        return;
    }
    CHECK_STATUS(sdui_pack_open_file(path, NULL, &pack, &err), SDUI_OK);
    if (!pack)
        return;
    for (i = 0; i < sdui_pack_count(pack); i++) {
        size_t len = 0;
        const char *id = sdui_pack_id_at(pack, i, &len);
        sdui_token *tok = NULL;
        if (sdui_pack_get(pack, id, len, &tok, &err) != SDUI_OK) {
            fprintf(stderr, "  %s: token %.*s: %s\n", path, (int)len, id,
                    err.message);
            bad++;
        }
        sdui_token_release(tok);
    }
    CHECKF(bad == 0, "%zu tokens of %s fail", bad, path);
    CHECK(sdui_pack_count(pack) > 0);
    sdui_pack_free(pack);
}

/* The outcome of one open, for comparing two ways of scanning. */
typedef struct outcome {
    sdui_status st;
    sdui_error err;
    size_t count;
    char ids[4096]; /* ids joined by '\n' (truncated) */
} outcome;

/* Opens json with the given split threshold and records the outcome. */
static void open_outcome(const char *json, size_t len, size_t max_tokens,
                         size_t parallel, outcome *o)
{
    sdui_limits lim;
    sdui_pack *pack = NULL;
    unsigned char *z;
    size_t zlen = 0, i, n = 0;
    sdui_limits_default(&lim);
    lim.max_tokens = max_tokens;
    lim.parallel_scan_bytes = parallel;
    z = gz(json, len, &zlen);
    memset(o, 0, sizeof *o);
    o->st = sdui_pack_open_memory(z, zlen, &lim, &pack, &o->err);
    sdui_free(z);
    if (!pack)
        return;
    o->count = sdui_pack_count(pack);
    for (i = 0; i < o->count; i++) {
        size_t l = 0;
        const char *id = sdui_pack_id_at(pack, i, &l);
        if (n + l + 1 < sizeof o->ids) {
            memcpy(o->ids + n, id, l);
            n += l;
            o->ids[n++] = '\n';
        }
    }
    sdui_pack_free(pack);
}

/* 1 if a split scan and a one-thread scan of json agree in every detail. */
static int split_agrees(const char *json, size_t len, size_t max_tokens,
                        int verbose)
{
    outcome one, two;
    open_outcome(json, len, max_tokens, (size_t)-1, &one);
    open_outcome(json, len, max_tokens, 0, &two);
    if (one.st == two.st && one.err.offset == two.err.offset &&
        one.err.line == two.err.line && one.err.column == two.err.column &&
        strcmp(one.err.message, two.err.message) == 0 &&
        one.count == two.count && strcmp(one.ids, two.ids) == 0)
        return 1;
    if (verbose)
        fprintf(stderr,
                "  one thread: %s @%lld \"%s\" (%zu tokens)\n"
                "  split:      %s @%lld \"%s\" (%zu tokens)\n"
                "  document: %.*s\n",
                sdui_status_name(one.st), one.err.offset, one.err.message,
                one.count, sdui_status_name(two.st), two.err.offset,
                two.err.message, two.count, (int)(len > 400 ? 400 : len),
                json);
    return 0;
}

/* Large packs may be scanned on two threads: the outcome (status, error
 * place and message, tokens and their order) must be the one-thread one. */
static void test_split_scan(void)
{
    /* PAD makes the first token long, so the middle of the text (where
     * the split is looked for) falls after it. */
    static const struct {
        const char *doc;
        size_t max_tokens;
        sdui_status want;
    } cases[] = {
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"},\n{\"id\":\"c\"},\n{\"id\":\"d\"}]}",
         100, SDUI_OK},
        {"{\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n{\"id\":\"b\"},\n"
         "{\"id\":\"c\"}],\"formatVersion\":1}",
         100, SDUI_OK},
        /* Compact: no newline, the },{"id": guess. */
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},"
         "{\"id\":\"b\"},{\"id\":\"c\"},{\"id\":\"d\"}]}",
         100, SDUI_OK},
        /* The guess inside a string, and inside an unknown key's array. */
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\","
         "\"s\":\"},{\\\"id\\\":\"},{\"id\":\"b\"}]}",
         100, SDUI_OK},
        {"{\"formatVersion\":1,\"meta\":[\"PAD\",\n{\"id\":\"x\"},\n"
         "{\"id\":\"y\"}],\"tokens\":[{\"id\":\"a\"}]}",
         100, SDUI_OK},
        /* A newline before a nested object inside a token. */
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\","
         "\"props\":\n{\"id\":\"z\"}},\n{\"id\":\"b\"}]}",
         100, SDUI_OK},
        /* More tokens than allowed, and an error after them. */
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"},\n{\"id\":\"c\"},\n{\"id\":\"d\"},\n{\"id\":"
         "\"e\"}, x]}",
         2, SDUI_LIMIT},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"},\n{\"id\":\"c\"},\n{\"id\":\"d\"}]}",
         2, SDUI_LIMIT},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"},\n{\"id\":\"c\"}]}",
         3, SDUI_OK},
        /* No formatVersion, then trailing data. */
        {"{\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n{\"id\":\"b\"},\n"
         "{\"id\":\"c\"}]} x",
         100, SDUI_SCHEMA},
        {"{\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n{\"id\":\"b\"},\n"
         "{\"id\":\"c\"}]}",
         100, SDUI_SCHEMA},
        /* formatVersion twice across the halves; wrong in the second. */
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"}],\"formatVersion\":1}",
         100, SDUI_SCHEMA},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"}],\"formatVersion\":2}",
         100, SDUI_SCHEMA},
        {"{\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"}],\"formatVersion\":2}",
         100, SDUI_SCHEMA},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\",}],\"formatVersion\":1}",
         100, SDUI_JSON},
        /* A second "tokens" key after the array. */
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"}],\"tokens\":[]}",
         100, SDUI_SCHEMA},
        /* Errors in either half; a duplicate id across the halves. */
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\" x},\n"
         "{\"id\":\"b\"}]}",
         100, SDUI_JSON},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":7}]}",
         100, SDUI_SCHEMA},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"a\"}]}",
         100, SDUI_SCHEMA},
        {"{\"formatVersion\":1,\"tokens\":[{\"id\":\"a\",\"p\":\"PAD\"},\n"
         "{\"id\":\"b\"}]",
         100, SDUI_JSON},
    };
    size_t i;
    char pad[301];
    memset(pad, 'q', 300);
    pad[300] = '\0';
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *doc = cases[i].doc, *at = strstr(doc, "PAD");
        char json[2048];
        outcome one;
        if (at)
            snprintf(json, sizeof json, "%.*s%s%s", (int)(at - doc), doc, pad,
                     at + 3);
        else
            snprintf(json, sizeof json, "%s", doc);
        CHECKF(split_agrees(json, strlen(json), cases[i].max_tokens, 1),
               "split case %zu", i);
        open_outcome(json, strlen(json), cases[i].max_tokens, (size_t)-1,
                     &one);
        CHECKF(one.st == cases[i].want, "split case %zu: %s (%s)", i,
               sdui_status_name(one.st), one.err.message);
    }
}

/* Random damage to split-friendly packs: both scans must always agree. */
static void test_split_random(void)
{
    static const char bytes[] = "{}[],:\"x1 \n\\";
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    char *doc = malloc(8192);
    size_t iter, bad = 0;
    for (iter = 0; iter < 3000 && bad < 3; iter++) {
        size_t n = 0, tokens, t, len, max_tokens, k, edits;
        int fv_where;
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        tokens = 1 + rng % 12;
        fv_where = (int)((rng >> 8) % 4); /* before, after, both, none */
        n += (size_t)sprintf(doc + n, "{%s\"tokens\":[",
                             fv_where == 0 || fv_where == 2
                                 ? "\"formatVersion\":1," : "");
        for (t = 0; t < tokens; t++)
            n += (size_t)sprintf(doc + n,
                                 "%s{\"id\":\"t%zu\",\"props\":{\"v\":[%zu]}}",
                                 t ? ((rng >> (16 + t)) & 1 ? ",\n" : ",")
                                   : "",
                                 (rng >> 20) % 3 == 0 ? t % 3 : t, t);
        n += (size_t)sprintf(doc + n, "]%s}",
                             fv_where == 1 || fv_where == 2
                                 ? ",\"formatVersion\":1" : "");
        len = n;
        edits = (rng >> 40) % 3;
        for (k = 0; k < edits; k++) {
            size_t pos;
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            pos = (size_t)(rng % len);
            switch ((rng >> 32) % 3) {
            case 0: /* replace */
                doc[pos] = bytes[(rng >> 36) % (sizeof bytes - 1)];
                break;
            case 1: /* delete */
                memmove(doc + pos, doc + pos + 1, len - pos - 1);
                len--;
                break;
            default: /* insert */
                memmove(doc + pos + 1, doc + pos, len - pos);
                doc[pos] = bytes[(rng >> 36) % (sizeof bytes - 1)];
                len++;
                break;
            }
        }
        max_tokens = (rng >> 44) % 3 ? 100000 : 1 + (rng >> 48) % tokens;
        if (!split_agrees(doc, len, max_tokens, 1))
            bad++;
    }
    CHECKF(bad == 0, "%zu damaged packs scanned differently on two threads",
           bad);
    free(doc);
}

/* A pack over the default threshold (1 MiB, one token per line) is split;
 * every token is found in order. */
static void test_split_large(void)
{
    enum { TOKENS = 6000 };
    size_t cap = (size_t)TOKENS * 300, n = 0, i, bad = 0;
    char *json = malloc(cap);
    sdui_pack *pack = NULL;
    sdui_error err;
    n += (size_t)sprintf(json, "{\"formatVersion\":1,\"tokens\":[\n");
    for (i = 0; i < TOKENS; i++)
        n += (size_t)sprintf(json + n,
                             "%s{\"id\":\"large-%05zu\",\"version\":1,"
                             "\"primitive\":\"Text\",\"primitiveVersion\":1,"
                             "\"props\":{\"text\":\"%0150zu\"}}",
                             i ? ",\n" : "", i, i);
    n += (size_t)sprintf(json + n, "\n]}\n");
    CHECK(n >= SDUI_DEFAULT_PARALLEL_SCAN_BYTES);
    CHECK_STATUS(open_json(json, NULL, &pack, &err), SDUI_OK);
    if (pack) {
        CHECK_EQ_INT(sdui_pack_count(pack), TOKENS);
        for (i = 0; i < TOKENS; i++) {
            char want[32];
            size_t l = 0;
            const char *id = sdui_pack_id_at(pack, i, &l);
            snprintf(want, sizeof want, "large-%05zu", i);
            if (!id || l != strlen(want) || memcmp(id, want, l) != 0)
                bad++;
        }
        CHECKF(bad == 0, "%zu ids out of order", bad);
        {
            sdui_token *tok = NULL;
            CHECK_STATUS(sdui_pack_get(pack, "large-05999", 11, &tok, &err),
                         SDUI_OK);
            sdui_token_release(tok);
        }
        sdui_pack_free(pack);
    }
    CHECK(split_agrees(json, n, 100000, 1));
    /* The same with an error near the end, and with a duplicate id. */
    json[n - 4] = 'x';
    CHECK(split_agrees(json, n, 100000, 1));
    CHECK(split_agrees(json, n, 3000, 1));
    memcpy(strstr(json, "large-05000"), "large-00001", 11);
    CHECK(split_agrees(json, n, 100000, 1));
    free(json);
}

/* Ids crafted to collide under the old fixed hash spread out under the
 * keyed one: their low 12 bits are not degenerate, and a pack of them
 * opens with a short longest probe (the old hash made every lookup scan
 * thousands of cells).  Asserts on counts, never on time. */
static void test_hash_flood(void)
{
    enum { N = 10000 };
    char(*ids)[17] = flood_ids(N);
    static unsigned buckets[4096];
    unsigned most = 0;
    size_t i;
    char *json, *q;
    sdui_pack *pack = NULL;
    sdui_error err;
    memset(buckets, 0, sizeof buckets);
    /* The same id hashes the same within the process. */
    CHECK(sdui__hash(ids[0], 16) == sdui__hash(ids[0], 16));
    for (i = 0; i < N; i++) {
        unsigned b = (unsigned)(sdui__hash(ids[i], 16) & 0xfff);
        if (++buckets[b] > most)
            most = buckets[b];
    }
    /* 10,000 ids in 4,096 buckets: about 2.4 each, rarely over 10. */
    CHECKF(most <= 24, "%u of the crafted ids share their low 12 bits",
           most);

    json = malloc((size_t)N * 32 + 64);
    q = json + sprintf(json, "{\"formatVersion\":1,\"tokens\":[\n");
    for (i = 0; i < N; i++)
        q += sprintf(q, "%s{\"id\":\"%s\"}\n", i ? "," : "", ids[i]);
    sprintf(q, "]}");
    CHECK_STATUS(open_json(json, NULL, &pack, &err), SDUI_OK);
    if (pack) {
        size_t probe = sdui__pack_longest_probe(pack), missing = 0;
        CHECK_EQ_INT(sdui_pack_count(pack), N);
        /* A table of 32,768 cells under a third full. */
        CHECKF(probe >= 1 && probe <= 64,
               "longest probe of the id index is %zu cells", probe);
        for (i = 0; i < N; i++)
            missing += !sdui_pack_contains(pack, ids[i], 16);
        CHECK_EQ_INT(missing, 0);
        CHECK(!has(pack, "flood-idzzzzzzzz"));
        sdui_pack_free(pack);
    }
    free(json);
    free(ids);
}

/* Runs every pack test. */

/* 1 if the member called name has exactly the bytes want. */
static int member_is_text(const sdui_pack *pack, const char *name,
                          const char *want)
{
    const char *v = NULL;
    size_t len = 0;
    sdui_error err;
    if (sdui_pack_member(pack, name, &v, &len, &err) != SDUI_OK)
        return 0;
    return len == strlen(want) && memcmp(v, want, len) == 0;
}

/*
 * sdui_pack_member: the exact bytes of each member of the root, found by
 * the open's one scan (keys matched as decoded); the same on one thread
 * and on two (members before and after "tokens"); missing, duplicate and
 * NULL arguments.
 */
static void test_members(void)
{
    static const char doc[] =
        "{\"formatVersion\": 1, \"screens\": {\"home\": [\"a\", 1]},\n"
        " \"tokens\": [\n"
        "{\"id\":\"a\",\"version\":1,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{\"text\":\"PADPADPADPADPADPADPAD"
        "PADPADPADPADPADPADPADPADPADPADPADPADPADPADPADPADPADPADPAD\"}},\n"
        "{\"id\":\"b\",\"version\":1,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{}},\n"
        "{\"id\":\"c\",\"version\":1,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{}}\n"
        " ],\n \"sc\\u0072eens2\" : [ 1 , 2 ] , \"n\": null}\n";
    const char *tokens_start = strstr(doc, "[\n{");
    const char *tokens_end = strstr(doc, " ],") + 2;
    size_t parallel[2] = {(size_t)-1, 0}, i;
    sdui_limits lim;
    sdui_error err;

    sdui_limits_default(&lim);
    for (i = 0; i < 2; i++) {
        sdui_pack *pack = NULL;
        const char *v = NULL;
        size_t len = 0;
        lim.parallel_scan_bytes = parallel[i];
        CHECK_STATUS(open_json(doc, &lim, &pack, &err), SDUI_OK);
        if (!pack)
            continue;
        CHECKF(member_is_text(pack, "screens", "{\"home\": [\"a\", 1]}"),
               "screens, parallel %zu", parallel[i]);
        CHECK(member_is_text(pack, "formatVersion", "1"));
        CHECK(member_is_text(pack, "screens2", "[ 1 , 2 ]"));
        CHECK(member_is_text(pack, "n", "null"));
        CHECK_STATUS(sdui_pack_member(pack, "tokens", &v, &len, &err),
                     SDUI_OK);
        CHECKF(v == sdui_pack_json(pack, NULL) + (tokens_start - doc) &&
                   len == (size_t)(tokens_end - tokens_start),
               "tokens, parallel %zu: at %td, %zu bytes", parallel[i],
               v ? v - sdui_pack_json(pack, NULL) : -1, len);
        CHECK_STATUS(sdui_pack_member(pack, "screens3", &v, &len, &err),
                     SDUI_NOT_FOUND);
        CHECK(v == NULL && len == 0);
        CHECK_STATUS(sdui_pack_member(pack, "", &v, &len, &err),
                     SDUI_NOT_FOUND);
        CHECK_STATUS(sdui_pack_member(NULL, "screens", &v, &len, &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_pack_member(pack, NULL, &v, &len, &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_pack_member(pack, "screens", NULL, &len, &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_pack_member(pack, "screens", &v, NULL, &err),
                     SDUI_ARGUMENT);
        sdui_pack_free(pack);
    }

    /* Two members of one name: ambiguous, at the second key. */
    {
        static const char dup[] =
            "{\"formatVersion\":1,\"s\":1,\"tokens\":[],\"\\u0073\":2}";
        sdui_pack *pack = NULL;
        const char *v = NULL;
        size_t len = 0;
        CHECK_STATUS(open_json(dup, NULL, &pack, &err), SDUI_OK);
        if (pack) {
            CHECK_STATUS(sdui_pack_member(pack, "s", &v, &len, &err),
                         SDUI_SCHEMA);
            CHECK_EQ_INT(err.offset, (long long)(strstr(dup, "\"\\u") - dup));
            CHECK(v == NULL);
            CHECK(member_is_text(pack, "tokens", "[]"));
            sdui_pack_free(pack);
        }
    }
}

int main(void)
{
    test_open_memory();
    test_open_file();
    test_open_special_files();
    test_shape();
    test_decoys();
    test_ids();
    test_limits();
    test_depth_end_to_end();
    test_lazy_parse();
    test_lazy_valid_json();
    test_threads();
    test_lifetime();
    test_example_pack();
    test_split_scan();
    test_split_random();
    test_split_large();
    test_hash_flood();
    test_members();
    return check_summary();
}
