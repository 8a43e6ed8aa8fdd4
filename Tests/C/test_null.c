/*
 * test_null.c - the one NULL-handle rule of sdui.h, across the API:
 * functions that return a status answer SDUI_ARGUMENT for a NULL handle
 * (and other NULL arguments they need) and change nothing; accessors
 * assert (checked in a child process, which must die of SIGABRT); letting
 * go of NULL is a no-op; a NULL sdui_value is "absent" everywhere.  The
 * document builder (json_build.h), the snapshot file (snapshot.h) and the
 * expression language (expr.h) are swept as the older APIs are, and their
 * messages must name the argument that was NULL.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* Stands in for an out-pointer's old value: a failed call must leave it. */
static char sentinel_;
#define SENTINEL ((void *)&sentinel_)

/* A valid token of the given (short) id. */
static sdui_token *a_token_of(const char *id)
{
    char json[160];
    int n = snprintf(json, sizeof json,
                     "{\"id\":\"%s\",\"version\":1,\"primitive\":\"Text\","
                     "\"primitiveVersion\":1,\"props\":{}}",
                     id);
    sdui_token *tok = NULL;
    sdui_error err;
    if (n > 0 && (size_t)n < sizeof json)
        sdui_token_parse(json, (size_t)n, NULL, &tok, &err);
    return tok;
}

/* A valid token of id "t" for the calls that need one besides the NULL. */
static sdui_token *a_token(void)
{
    return a_token_of("t");
}

/* Checks that call answers SDUI_ARGUMENT and fills its error record, which
 * the call names e_ (declared here), with a message. */
#define CHECK_ARGUMENT(call)                                               \
    do {                                                                   \
        sdui_error e_;                                                     \
        sdui_status st_;                                                   \
        memset(&e_, 0, sizeof e_);                                         \
        e_.status = SDUI_OK;                                               \
        st_ = (call);                                                      \
        CHECKF(st_ == SDUI_ARGUMENT && e_.status == SDUI_ARGUMENT &&       \
                   e_.message[0] != '\0',                                  \
               "%s: %s \"%s\"", #call, sdui_status_name(st_), e_.message); \
    } while (0)

/* As CHECK_ARGUMENT, and the message names the argument that was NULL
 * (name: its parameter name in the header, as "<name> is NULL"). */
#define CHECK_ARGUMENT_NAMING(call, name)                                  \
    do {                                                                   \
        sdui_error e_;                                                     \
        sdui_status st_;                                                   \
        memset(&e_, 0, sizeof e_);                                         \
        e_.status = SDUI_OK;                                               \
        st_ = (call);                                                      \
        CHECKF(st_ == SDUI_ARGUMENT && e_.status == SDUI_ARGUMENT &&       \
                   strstr(e_.message, name " is NULL") != NULL,            \
               "%s: %s \"%s\" (should say \"%s is NULL\")", #call,        \
               sdui_status_name(st_), e_.message, name);                   \
    } while (0)

/* Status functions: SDUI_ARGUMENT for a NULL handle or needed pointer. */
static void test_status_functions(void)
{
    sdui_token *tok = a_token(), *got = NULL;
    sdui_pack *pack = NULL;
    sdui_disk *disk = NULL;
    sdui_disk_rows *rows = NULL;
    sdui_disk_tokens *toks = SENTINEL;
    sdui_disk_screen *screen = SENTINEL;
    sdui_json_doc *doc = SENTINEL;
    const sdui_token *ctok = tok;
    const char *etag = "\"e\"";
    size_t etag_len = 3;
    sdui_disk_stats ds;
    sdui_disk_record rec;
    const char *id = "t", *member = NULL;
    size_t len = 1, n = 7;
    char *out = NULL;
    unsigned char *zout = NULL;

    memset(&rec, 0, sizeof rec);
    CHECK_ARGUMENT(sdui_pack_get(NULL, "t", 1, &got, &e_));
    CHECK(got == NULL);
    CHECK_ARGUMENT(sdui_pack_member(NULL, "screens", &member, &len, &e_));
    CHECK_ARGUMENT(sdui_pack_open_memory("x", 1, NULL, NULL, &e_));
    CHECK_ARGUMENT(sdui_pack_open_file(NULL, NULL, &pack, &e_));
    CHECK_ARGUMENT(sdui_cache_new(0, 0, NULL, &e_));
    CHECK_ARGUMENT(sdui_cache_put(NULL, tok, &e_));
    CHECK_ARGUMENT(sdui_disk_open(NULL, NULL, &disk, &e_));
    CHECK_ARGUMENT(sdui_disk_put(NULL, &rec, 0, 0, &e_));
    CHECK_ARGUMENT(sdui_disk_get(NULL, &id, &len, 1, 0, &rows, &e_));
    CHECK(rows == NULL);
    len = 1;
    CHECK_ARGUMENT(sdui_disk_refresh(NULL, &id, &len, 1, 0, 0, &n, &e_));
    CHECK_EQ_INT(n, 0);
    n = 7;
    CHECK_ARGUMENT(sdui_disk_remove(NULL, &id, &len, 1, &n, &e_));
    CHECK_EQ_INT(n, 0);
    CHECK_ARGUMENT(sdui_disk_get_stats(NULL, &ds, &e_));
    CHECK_ARGUMENT(sdui_disk_get_tokens(NULL, &id, &len, 1, 0, NULL, &toks,
                                        &e_));
    CHECK(toks == SENTINEL);
    CHECK_ARGUMENT(sdui_disk_put_tokens(NULL, &ctok, &etag, &etag_len, 1, 0,
                                        0, 0, &e_));
    CHECK_ARGUMENT(sdui_disk_put_screen(NULL, "home", 4, "e", 1, "{}", 2, 0,
                                        0, &e_));
    CHECK_ARGUMENT(sdui_disk_get_screen(NULL, "home", 4, 0, &screen, &e_));
    CHECK(screen == SENTINEL);
    CHECK_ARGUMENT(sdui_json_doc_parse("[1]", 3, 8, NULL, &e_));
    CHECK_ARGUMENT(sdui_json_doc_parse(NULL, 3, 8, &doc, &e_));
    CHECK(doc == SENTINEL);
    CHECK_ARGUMENT(sdui_token_parse("{}", 2, NULL, NULL, &e_));
    CHECK_ARGUMENT(sdui_gzip_decode("x", 1, 10, NULL, &len, NULL, &e_));
    CHECK_ARGUMENT(sdui_gzip_decode("x", 1, 10, &out, NULL, NULL, &e_));
    CHECK_ARGUMENT(sdui_gzip_encode("x", 1, 1, NULL, &len, &e_));
    CHECK_ARGUMENT(sdui_gzip_encode("x", 1, 1, &zout, NULL, &e_));
    CHECK_ARGUMENT(sdui_json_validate(NULL, 3, 8, &e_));
    CHECK_ARGUMENT(sdui_json_minify("[1]", 3, 8, NULL, &len, &e_));
    CHECK_ARGUMENT(sdui_json_minify("[1]", 3, 8, out, NULL, &e_));
    CHECK_ARGUMENT(sdui_json_array_split("[1]", 3, 8, NULL, NULL, 1, &n,
                                         &e_));
    CHECK_ARGUMENT(sdui_json_array_elements("[1]", 3, 8, 10, NULL, 1, &n,
                                            &e_));
    /* The error record itself is optional. */
    CHECK(sdui_pack_get(NULL, "t", 1, &got, NULL) == SDUI_ARGUMENT);
    CHECK(sdui_cache_put(NULL, tok, NULL) == SDUI_ARGUMENT);
    CHECK(sdui_disk_get_tokens(NULL, &id, &len, 1, 0, NULL, &toks, NULL) ==
          SDUI_ARGUMENT);
    CHECK(sdui_disk_get_screen(NULL, "home", 4, 0, &screen, NULL) ==
          SDUI_ARGUMENT);
    CHECK(sdui_json_doc_parse(NULL, 3, 8, &doc, NULL) == SDUI_ARGUMENT);
    CHECK(toks == SENTINEL && screen == SENTINEL && doc == SENTINEL);
    /* NULL text of no bytes is the empty text: not JSON, not an argument
     * fault. */
    CHECK(sdui_json_doc_parse(NULL, 0, 8, &doc, NULL) == SDUI_JSON);
    CHECK(doc == NULL);
    sdui_token_release(tok);
}

/* The entries and screens of disk, and their bytes, as one comparable
 * value; SIZE_MAX fields when the stats cannot be read. */
static sdui_disk_stats disk_stats(sdui_disk *disk)
{
    sdui_disk_stats ds;
    sdui_error err;
    memset(&ds, 0, sizeof ds);
    if (sdui_disk_get_stats(disk, &ds, &err) != SDUI_OK)
        ds.entries = ds.bytes = ds.screens = ds.screen_bytes = SIZE_MAX;
    return ds;
}

/* 1 if the counts and bytes of two stats are the same. */
static int same_contents(const sdui_disk_stats *a, const sdui_disk_stats *b)
{
    return a->entries == b->entries && a->bytes == b->bytes &&
           a->screens == b->screens && a->screen_bytes == b->screen_bytes;
}

/*
 * The other NULL arguments of the token and screen calls of an open
 * cache: SDUI_ARGUMENT, out-pointers left as they were, nothing written
 * (not even the first row of a batch whose second token or ETag is NULL).
 * A NULL array with n == 0 is no fault.
 */
static void test_disk_arguments(void)
{
    char dir[64], path[96], cmd[128];
    sdui_disk *disk = NULL;
    sdui_disk_tokens *toks = SENTINEL;
    sdui_disk_screen *screen = SENTINEL;
    sdui_disk_stats before, after;
    sdui_error err;
    sdui_token *t = a_token_of("t"), *u = a_token_of("u");
    const sdui_token *one[1], *two[2], *with_null[2];
    const char *id = "t", *etags[2] = {"\"e\"", "\"e\""};
    const char *etags_null[2] = {"\"e\"", NULL};
    size_t len = 1, etag_lens[2] = {3, 3};

    snprintf(dir, sizeof dir, "/tmp/sdui-test-null-XXXXXX");
    if (!mkdtemp(dir)) {
        CHECKF(0, "mkdtemp: cannot make a folder for the cache");
        sdui_token_release(t);
        sdui_token_release(u);
        return;
    }
    snprintf(path, sizeof path, "%s/cache.db", dir);
    CHECK(t && u);
    one[0] = t;
    two[0] = u;
    two[1] = t;
    with_null[0] = u;
    with_null[1] = NULL;
    CHECK_STATUS(sdui_disk_open(path, NULL, &disk, &err), SDUI_OK);
    if (!disk || !t || !u)
        goto done;
    CHECK_STATUS(sdui_disk_put_tokens(disk, one, etags, etag_lens, 1, 1, 100,
                                      1, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_disk_put_screen(disk, "home", 4, "\"s\"", 3, "{}", 2,
                                      1, 1, &err),
                 SDUI_OK);
    before = disk_stats(disk);
    CHECK_EQ_INT(before.entries, 1);
    CHECK_EQ_INT(before.screens, 1);

    /* Reads. */
    CHECK_ARGUMENT(sdui_disk_get_tokens(disk, NULL, &len, 1, 2, NULL, &toks,
                                        &e_));
    CHECK_ARGUMENT(sdui_disk_get_tokens(disk, &id, NULL, 1, 2, NULL, &toks,
                                        &e_));
    CHECK_ARGUMENT(sdui_disk_get_tokens(disk, &id, &len, 1, 2, NULL, NULL,
                                        &e_));
    CHECK(toks == SENTINEL);
    CHECK_ARGUMENT(sdui_disk_get_screen(disk, NULL, 4, 2, &screen, &e_));
    CHECK_ARGUMENT(sdui_disk_get_screen(disk, "home", 4, 2, NULL, &e_));
    CHECK(screen == SENTINEL);

    /* Writes. */
    CHECK_ARGUMENT(sdui_disk_put_tokens(disk, NULL, etags, etag_lens, 1, 2,
                                        100, 2, &e_));
    CHECK_ARGUMENT(sdui_disk_put_tokens(disk, two, NULL, etag_lens, 2, 2, 100,
                                        2, &e_));
    CHECK_ARGUMENT(sdui_disk_put_tokens(disk, two, etags, NULL, 2, 2, 100, 2,
                                        &e_));
    CHECK_ARGUMENT(sdui_disk_put_tokens(disk, with_null, etags, etag_lens, 2,
                                        2, 100, 2, &e_));
    CHECK_ARGUMENT(sdui_disk_put_tokens(disk, two, etags_null, etag_lens, 2,
                                        2, 100, 2, &e_));
    CHECK_ARGUMENT(sdui_disk_put_screen(disk, NULL, 4, "\"s\"", 3, "[1]", 3,
                                        2, 2, &e_));
    CHECK_ARGUMENT(sdui_disk_put_screen(disk, "home", 0, "\"s\"", 3, "[1]",
                                        3, 2, 2, &e_));
    CHECK_ARGUMENT(sdui_disk_put_screen(disk, "home", 4, NULL, 3, "[1]", 3, 2,
                                        2, &e_));
    CHECK_ARGUMENT(sdui_disk_put_screen(disk, "home", 4, "\"s\"", 3, NULL, 3,
                                        2, 2, &e_));
    CHECK_ARGUMENT(sdui_disk_put_screen(disk, "s2", 2, "\"s\"", 3, NULL, 3,
                                        2, 2, &e_));
    after = disk_stats(disk);
    CHECKF(same_contents(&before, &after),
           "a refused call changed the cache: %zu entries, %zu screens",
           after.entries, after.screens);

    /* What was there is still there, as it was. */
    CHECK_STATUS(sdui_disk_get_screen(disk, "home", 4, 3, &screen, &err),
                 SDUI_OK);
    CHECK(screen && screen != SENTINEL && screen->payload_len == 2 &&
          memcmp(screen->payload, "{}", 2) == 0);
    if (screen != SENTINEL)
        sdui_disk_screen_free(screen);

    /* No ids, no arrays: not a fault. */
    toks = SENTINEL;
    CHECK_STATUS(sdui_disk_get_tokens(disk, NULL, NULL, 0, 3, NULL, &toks,
                                      &err),
                 SDUI_OK);
    CHECK(toks != SENTINEL && toks && sdui_disk_tokens_count(toks) == 0);
    if (toks != SENTINEL)
        sdui_disk_tokens_free(toks);
    CHECK_STATUS(sdui_disk_put_tokens(disk, NULL, NULL, NULL, 0, 3, 100, 3,
                                      &err),
                 SDUI_OK);
    after = disk_stats(disk);
    CHECK(same_contents(&before, &after));
done:
    sdui_disk_free(disk);
    sdui_token_release(t);
    sdui_token_release(u);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/*
 * The builder (json_build.h).  open and finish answer SDUI_ARGUMENT with
 * a message for a NULL builder or out-pointer; the value and key calls
 * take no error record and answer SDUI_ARGUMENT for a NULL builder.
 * finish with a NULL out leaves the builder as it was, and a NULL string
 * or key of some bytes is the builder's (sticky) argument error, of no
 * bytes the empty one.
 */
static void test_builder_arguments(void)
{
    sdui_json_builder *b = SENTINEL;
    sdui_json_doc *doc = SENTINEL;
    const sdui_value *root;
    sdui_error err;
    size_t len = 9;

    CHECK_ARGUMENT_NAMING(sdui_json_builder_open(NULL, &e_), "out");
    CHECK(sdui_json_builder_open(NULL, NULL) == SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_null(NULL), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_bool(NULL, 1), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_int(NULL, 4), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_real(NULL, 3.5), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_string(NULL, "s", 1), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_begin_array(NULL), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_end_array(NULL), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_begin_object(NULL), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_end_object(NULL), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_key(NULL, "k", 1), SDUI_ARGUMENT);
    CHECK_ARGUMENT_NAMING(sdui_json_builder_finish(NULL, &doc, &e_), "b");
    CHECK(doc == SENTINEL);
    CHECK(sdui_json_builder_finish(NULL, &doc, NULL) == SDUI_ARGUMENT);
    CHECK(doc == SENTINEL);

    b = NULL;
    CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK);
    if (!b)
        return;
    /* finish without out: the build goes on as if it had not been
     * called. */
    CHECK_EQ_INT(sdui_json_builder_begin_array(b), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_int(b, 1), SDUI_OK);
    CHECK_ARGUMENT_NAMING(sdui_json_builder_finish(b, NULL, &e_), "out");
    CHECK(sdui_json_builder_finish(b, NULL, NULL) == SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_int(b, 2), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_end_array(b), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_OK);
    root = doc && doc != SENTINEL ? sdui_json_doc_root(doc) : NULL;
    CHECK_EQ_INT(sdui_value_count(root), 2);
    CHECK_EQ_INT(sdui_value_int(sdui_value_at(root, 0)), 1);
    CHECK_EQ_INT(sdui_value_int(sdui_value_at(root, 1)), 2);
    if (doc != SENTINEL)
        sdui_json_doc_free(doc);

    /* NULL of no bytes: the empty name and the empty string, also as the
     * first name the builder is given (before it has kept any). */
    doc = SENTINEL;
    CHECK_EQ_INT(sdui_json_builder_begin_object(b), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_key(b, NULL, 0), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_string(b, NULL, 0), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_end_object(b), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_OK);
    root = doc && doc != SENTINEL ? sdui_json_doc_root(doc) : NULL;
    CHECK(sdui_value_string(sdui_value_get(root, ""), &len) != NULL &&
          len == 0);
    if (doc != SENTINEL)
        sdui_json_doc_free(doc);
    doc = SENTINEL;
    CHECK_EQ_INT(sdui_json_builder_begin_object(b), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_key(b, "", 0), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_null(b), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_end_object(b), SDUI_OK);
    CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_OK);
    root = doc && doc != SENTINEL ? sdui_json_doc_root(doc) : NULL;
    CHECK_EQ_INT(sdui_value_count(root), 1);
    CHECK(sdui_value_next(root, NULL) != NULL &&
          sdui_value_iter_key(sdui_value_next(root, NULL), &len) != NULL &&
          len == 0);
    if (doc != SENTINEL)
        sdui_json_doc_free(doc);

    /* NULL of some bytes: refused, kept, reported by finish. */
    doc = SENTINEL;
    CHECK_EQ_INT(sdui_json_builder_begin_object(b), SDUI_OK);
    CHECK_EQ_INT(sdui_json_builder_key(b, NULL, 2), SDUI_ARGUMENT);
    CHECK_EQ_INT(sdui_json_builder_end_object(b), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_ARGUMENT);
    CHECKF(strstr(err.message, "sdui_json_builder_key") != NULL,
           "message does not name the call: \"%s\"", err.message);
    CHECK(doc == NULL);
    doc = SENTINEL;
    CHECK_EQ_INT(sdui_json_builder_string(b, NULL, 1), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_ARGUMENT);
    CHECKF(strstr(err.message, "sdui_json_builder_string") != NULL,
           "message does not name the call: \"%s\"", err.message);
    CHECK(doc == NULL);
    sdui_json_builder_free(b);
}

/* The number of entries of folder dir besides . and .., or -1. */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;
    if (!d)
        return -1;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/*
 * The snapshot file (snapshot.h): a NULL path, document or out-pointer is
 * SDUI_ARGUMENT with a message naming it; nothing is written (not even a
 * temporary file), *out is left as it was and *recovered is 0.  recovered
 * itself may be NULL.
 */
static void test_snapshot_arguments(void)
{
    char dir[64], path[96], cmd[128];
    sdui_json_doc *doc = NULL, *got = SENTINEL;
    sdui_error err;
    int recovered = 7;

    snprintf(dir, sizeof dir, "/tmp/sdui-test-null-XXXXXX");
    if (!mkdtemp(dir)) {
        CHECKF(0, "mkdtemp: cannot make a folder for the snapshot");
        return;
    }
    snprintf(path, sizeof path, "%s/state.json", dir);
    CHECK_STATUS(sdui_json_doc_parse("{\"a\":1}", 7, 8, &doc, &err),
                 SDUI_OK);
    if (!doc)
        goto done;

    CHECK_ARGUMENT_NAMING(sdui_snapshot_write(NULL, doc, &e_), "path");
    CHECK_ARGUMENT_NAMING(sdui_snapshot_write(path, NULL, &e_), "doc");
    CHECK(sdui_snapshot_write(path, NULL, NULL) == SDUI_ARGUMENT);
    CHECK(sdui_snapshot_write(NULL, NULL, NULL) == SDUI_ARGUMENT);
    CHECK_EQ_INT(entries_in(dir), 0);

    CHECK_ARGUMENT_NAMING(sdui_snapshot_read(NULL, 8, &got, &recovered, &e_),
                          "path");
    CHECK(got == SENTINEL);
    CHECK_EQ_INT(recovered, 0);
    recovered = 7;
    CHECK_ARGUMENT_NAMING(sdui_snapshot_read(path, 8, NULL, &recovered, &e_),
                          "out");
    CHECK_EQ_INT(recovered, 0);
    CHECK(sdui_snapshot_read(NULL, 8, &got, NULL, NULL) == SDUI_ARGUMENT);
    CHECK(got == SENTINEL);
    CHECK_EQ_INT(entries_in(dir), 0);

    /* recovered NULL is no fault. */
    CHECK_STATUS(sdui_snapshot_write(path, doc, &err), SDUI_OK);
    got = NULL;
    CHECK_STATUS(sdui_snapshot_read(path, 8, &got, NULL, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_value_int(sdui_value_get(
                     got ? sdui_json_doc_root(got) : NULL, "a")),
                 1);
    sdui_json_doc_free(got);

    /* The writers' lock: a NULL path or out-pointer, and freeing none. */
    {
        sdui_snapshot_lock *lk = (sdui_snapshot_lock *)SENTINEL;
        CHECK_ARGUMENT_NAMING(sdui_snapshot_lock_open(NULL, 1, &lk, &e_), "path");
        CHECK(lk == (sdui_snapshot_lock *)SENTINEL);
        CHECK_ARGUMENT_NAMING(sdui_snapshot_lock_open(path, 1, NULL, &e_), "out");
        CHECK(sdui_snapshot_lock_open(NULL, 0, NULL, NULL) == SDUI_ARGUMENT);
        sdui_snapshot_lock_free(NULL);
    }
done:
    sdui_json_doc_free(doc);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* A lookup that must not be called. */
static const sdui_value *no_lookup(void *ctx, const char *name, size_t len)
{
    (void)name;
    (void)len;
    ++*(int *)ctx;
    return NULL;
}

/*
 * The expression language (expr.h): a NULL program, source of some bytes
 * or out-pointer is SDUI_ARGUMENT with a message naming it, the
 * out-pointer left as it was and the lookup never called; a NULL lookup
 * makes every root absent, a NULL len is no fault, and NULL source of no
 * bytes is the empty source (not an expression, not an argument fault).
 */
static void test_expr_arguments(void)
{
    sdui_expr *prog = SENTINEL;
    sdui_json_doc *doc = SENTINEL;
    char *json = SENTINEL;
    size_t len = 9;
    int calls = 0;
    sdui_error err;

    CHECK_ARGUMENT_NAMING(sdui_expr_compile("1", 1, NULL, &e_), "out");
    CHECK_ARGUMENT_NAMING(sdui_expr_compile(NULL, 3, &prog, &e_), "src");
    CHECK(prog == SENTINEL);
    CHECK(sdui_expr_compile(NULL, 3, &prog, NULL) == SDUI_ARGUMENT);
    CHECK(prog == SENTINEL);
    CHECK_ARGUMENT_NAMING(sdui_expr_eval(NULL, no_lookup, &calls, &doc, &e_),
                          "prog");
    CHECK(doc == SENTINEL);
    CHECK(sdui_expr_eval(NULL, no_lookup, &calls, &doc, NULL) ==
          SDUI_ARGUMENT);
    CHECK(doc == SENTINEL);
    CHECK_ARGUMENT_NAMING(sdui_expr_eval_json(NULL, no_lookup, &calls, &json,
                                              &len, &e_),
                          "prog");
    CHECK(json == SENTINEL);
    CHECK_EQ_INT(len, 9);
    CHECK_EQ_INT(calls, 0);

    /* NULL source of no bytes: the empty source, a parse error. */
    CHECK_STATUS(sdui_expr_compile(NULL, 0, &prog, &err), SDUI_EXPR_PARSE);
    CHECK(prog == NULL);

    prog = NULL;
    CHECK_STATUS(sdui_expr_compile("a.b ?? 2", 8, &prog, &err), SDUI_OK);
    if (!prog)
        return;
    CHECK_ARGUMENT_NAMING(sdui_expr_eval(prog, no_lookup, &calls, NULL, &e_),
                          "result");
    CHECK_ARGUMENT_NAMING(sdui_expr_eval_json(prog, no_lookup, &calls, NULL,
                                              &len, &e_),
                          "json");
    CHECK(sdui_expr_eval_json(prog, no_lookup, &calls, NULL, NULL, NULL) ==
          SDUI_ARGUMENT);
    CHECK_EQ_INT(calls, 0);

    /* No lookup: every root is absent.  No len: not wanted. */
    CHECK_STATUS(sdui_expr_eval(prog, NULL, NULL, &doc, &err), SDUI_OK);
    CHECK(doc != SENTINEL && doc &&
          sdui_value_int(sdui_json_doc_root(doc)) == 2);
    if (doc != SENTINEL)
        sdui_json_doc_free(doc);
    CHECK_STATUS(sdui_expr_eval_json(prog, NULL, NULL, &json, NULL, &err),
                 SDUI_OK);
    CHECK(json != SENTINEL && json && strcmp(json, "2") == 0);
    if (json != SENTINEL)
        sdui_free(json);
    CHECK(sdui_expr_source(prog, NULL) != NULL);
    CHECK(sdui_expr_path(prog, 0, NULL) != NULL);
    sdui_expr_free(prog);
}

/* Letting go of NULL is a no-op; retaining NULL gives NULL. */
static void test_release_null(void)
{
    sdui_pack_free(NULL);
    sdui_cache_free(NULL);
    sdui_disk_free(NULL);
    sdui_disk_rows_free(NULL);
    sdui_disk_tokens_free(NULL);
    sdui_disk_screen_free(NULL);
    sdui_json_doc_free(NULL);
    sdui_json_builder_free(NULL);
    sdui_expr_free(NULL);
    sdui_token_release(NULL);
    sdui_free(NULL);
    sdui_error_clear(NULL);
    CHECK(sdui_token_retain(NULL) == NULL);
}

/* A NULL sdui_value is absent: every value function answers for it. */
static void test_null_values(void)
{
    size_t len = 9;
    CHECK_EQ_INT(sdui_value_type_of(NULL), SDUI_VALUE_NULL);
    CHECK_EQ_INT(sdui_value_bool(NULL), 0);
    CHECK_EQ_INT(sdui_value_int(NULL), 0);
    CHECK(sdui_value_real(NULL) == 0.0);
    CHECK(sdui_value_string(NULL, &len) == NULL);
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_INT(sdui_value_count(NULL), 0);
    CHECK(sdui_value_at(NULL, 0) == NULL);
    CHECK(sdui_value_get(NULL, "a") == NULL);
    CHECK(sdui_value_get(sdui_value_get(NULL, "a"), "b") == NULL);
    CHECK(sdui_value_next(NULL, NULL) == NULL);
}

/* Runs fn in a child; 1 if it died of SIGABRT (a failed assert). */
static int aborts(void (*fn)(void))
{
    int status;
    pid_t pid = fork();
    if (pid == 0) {
        /* The assert's message is expected: keep the log clean. */
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        fn();
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 0;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* Accessors called with NULL (each must abort). */
static void pack_count_null(void) { sdui_pack_count(NULL); }
static void pack_id_at_null(void) { sdui_pack_id_at(NULL, 0, NULL); }
static void pack_contains_null(void) { sdui_pack_contains(NULL, "a", 1); }
static void pack_json_null(void) { sdui_pack_json(NULL, NULL); }
static void pack_info_null(void)
{
    sdui_pack_info info;
    sdui_pack_get_info(NULL, &info);
}
static void token_id_null(void) { sdui_token_id(NULL, NULL); }
static void token_json_null(void) { sdui_token_json(NULL, NULL); }
static void token_version_null(void) { sdui_token_version(NULL); }
static void token_props_null(void) { sdui_token_props(NULL); }
static void token_attached_null(void) { sdui_token_attached(NULL); }
static void cache_get_null(void) { sdui_cache_get(NULL, "a", 1); }
static void cache_remove_null(void) { sdui_cache_remove(NULL, "a", 1); }
static void cache_clear_null(void) { sdui_cache_clear(NULL); }
static void cache_stats_null(void)
{
    sdui_cache_stats s;
    sdui_cache_get_stats(NULL, &s);
}
static void cache_snapshot_null(void) { sdui_cache_snapshot(NULL, NULL, 0); }
static void disk_recovered_null(void) { sdui_disk_recovered(NULL); }
static void rows_count_null(void) { sdui_disk_rows_count(NULL); }
static void rows_at_null(void) { sdui_disk_rows_at(NULL, 0); }
/* The accessors of a token result (disk.h) and of a document
 * (json_doc.h), called with NULL (each must abort). */
static void tokens_count_null(void) { sdui_disk_tokens_count(NULL); }
static void tokens_at_null(void) { sdui_disk_tokens_at(NULL, 0); }
static void tokens_take_null(void) { sdui_disk_tokens_take(NULL, 0); }
static void json_doc_root_null(void) { sdui_json_doc_root(NULL); }
static void limits_default_null(void) { sdui_limits_default(NULL); }
static void disk_options_null(void) { sdui_disk_options_default(NULL); }
/* The accessors of a program (expr.h), called with NULL (each must
 * abort). */
static void expr_path_count_null(void) { sdui_expr_path_count(NULL); }
static void expr_path_null(void) { sdui_expr_path(NULL, 0, NULL); }
static void expr_source_null(void) { sdui_expr_source(NULL, NULL); }

/* Every accessor asserts its handle (only where asserts are compiled). */
static void test_accessors_assert(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {
        {"sdui_pack_count", pack_count_null},
        {"sdui_pack_id_at", pack_id_at_null},
        {"sdui_pack_contains", pack_contains_null},
        {"sdui_pack_json", pack_json_null},
        {"sdui_pack_get_info", pack_info_null},
        {"sdui_token_id", token_id_null},
        {"sdui_token_json", token_json_null},
        {"sdui_token_version", token_version_null},
        {"sdui_token_props", token_props_null},
        {"sdui_token_attached", token_attached_null},
        {"sdui_cache_get", cache_get_null},
        {"sdui_cache_remove", cache_remove_null},
        {"sdui_cache_clear", cache_clear_null},
        {"sdui_cache_get_stats", cache_stats_null},
        {"sdui_cache_snapshot", cache_snapshot_null},
        {"sdui_disk_recovered", disk_recovered_null},
        {"sdui_disk_rows_count", rows_count_null},
        {"sdui_disk_rows_at", rows_at_null},
        {"sdui_disk_tokens_count", tokens_count_null},
        {"sdui_disk_tokens_at", tokens_at_null},
        {"sdui_disk_tokens_take", tokens_take_null},
        {"sdui_json_doc_root", json_doc_root_null},
        {"sdui_limits_default", limits_default_null},
        {"sdui_disk_options_default", disk_options_null},
        {"sdui_expr_path_count", expr_path_count_null},
        {"sdui_expr_path", expr_path_null},
        {"sdui_expr_source", expr_source_null},
    };
    size_t i;
#ifdef NDEBUG
    printf("accessor asserts: compiled out (NDEBUG); not checked\n");
    return;
#endif
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECKF(aborts(cases[i].fn), "%s(NULL) did not assert",
               cases[i].name);
}

/* Runs the tests. */
int main(void)
{
    test_status_functions();
    test_disk_arguments();
    test_builder_arguments();
    test_snapshot_arguments();
    test_expr_arguments();
    test_release_null();
    test_null_values();
    test_accessors_assert();
    return check_summary();
}
