/*
 * test_snapshot.c - the snapshot file (snapshot.h) on real files in a
 * fresh folder: round trips of every kind of value, PATH.prev after two
 * writes, recovery from a torn, damaged or missing PATH with the reason
 * named, both files bad, neither there, plain JSON and other envelopes
 * refused, a folder that cannot be written and a write that fails midway
 * (PATH untouched, no temporary file left), trees the reader would refuse,
 * the depth bound, leftovers of killed writers swept, reads beside writes
 * on another thread, every allocation failure, and a writer SIGKILLed 500
 * times at random moments with every completed write checked afterwards.
 * Also: a damaged or hand-made PATH is not kept as PATH.prev; a PATH (or
 * PATH.prev) that cannot be read is an error and is never replaced (mode
 * 000 read as "nobody" when the test runs as root, a FIFO); a replaced
 * file's mode gains the owner's read and write; a 1.5 GB sparse file is
 * refused by its size with the peak memory unchanged, and a value past
 * the size bound is not written; the write lock (refusal without waiting,
 * a SIGKILLed holder, two counting processes, a replaced lock file).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "value_eq.h"
#include "../../csrc/internal.h"
#include "../../csrc/value_tree.h"

static char dir[256];

/* A path inside the test folder (one of a few rotating buffers). */
static const char *path_for(const char *name)
{
    static char bufs[8][512];
    static unsigned next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

/* A document of the NUL-terminated JSON text, or NULL (a failed check). */
static sdui_json_doc *doc_of(const char *text)
{
    sdui_json_doc *doc = NULL;
    sdui_error err;
    CHECK_STATUS(sdui_json_doc_parse(text, strlen(text), 64, &doc, &err),
                 SDUI_OK);
    return doc;
}

/* Writes the JSON text as the snapshot at p; 1 on success. */
static int write_json(const char *p, const char *text)
{
    sdui_json_doc *doc = doc_of(text);
    sdui_error err;
    int ok = doc && CHECK_STATUS(sdui_snapshot_write(p, doc, &err), SDUI_OK);
    sdui_json_doc_free(doc);
    return ok;
}

/* 1 if doc's root equals the value of the JSON text (value_eq.h: same
 * types, reals compared exactly, members in any order). */
static int same_value(const sdui_json_doc *doc, const char *text)
{
    sdui_json_doc *want = doc_of(text);
    int same = doc && want &&
               value_equal(sdui_json_doc_root(doc), sdui_json_doc_root(want));
    sdui_json_doc_free(want);
    return same;
}

/* The document {"s": s[0, n)}, built value by value, or NULL (a failed
 * check). */
static sdui_json_doc *doc_with_s(const char *s, size_t n)
{
    sdui_json_builder *b = NULL;
    sdui_json_doc *doc = NULL;
    sdui_error err;
    if (!CHECK_STATUS(sdui_json_builder_open(&b, &err), SDUI_OK))
        return NULL;
    sdui_json_builder_begin_object(b);
    sdui_json_builder_key(b, "s", 1);
    sdui_json_builder_string(b, s, n);
    sdui_json_builder_end_object(b);
    CHECK_STATUS(sdui_json_builder_finish(b, &doc, &err), SDUI_OK);
    sdui_json_builder_free(b);
    return doc;
}

/* The whole file at p (malloc'd, NUL-terminated) and its length, or NULL. */
static char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return buf;
}

/* Replaces the file at p with bytes[0, len). */
static void put_file(const char *p, const char *bytes, size_t len)
{
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(bytes, 1, len, f) == len);
    fclose(f);
}

/* Counts the temporary files in folder d (names holding ".tmp-"). */
static int count_tmp(const char *d)
{
    DIR *dd = opendir(d);
    struct dirent *de;
    int n = 0;
    if (!dd)
        return -1;
    while ((de = readdir(dd)) != NULL)
        if (strstr(de->d_name, ".tmp-"))
            n++;
    closedir(dd);
    return n;
}

/* Reads the snapshot at p; checks the status and the recovered flag and
 * returns the document (or NULL). */
static sdui_json_doc *read_snap(const char *p, sdui_status want,
                                int want_recovered, sdui_error *e)
{
    sdui_json_doc *doc = (sdui_json_doc *)&doc;
    int recovered = -1;
    sdui_error err;
    sdui_status st = sdui_snapshot_read(p, 64, &doc, &recovered, &err);
    CHECK_STATUS(st, want);
    CHECK_EQ_INT(recovered, want_recovered);
    if (st != SDUI_OK)
        CHECK(doc == NULL);
    if (e)
        *e = err;
    return st == SDUI_OK ? doc : NULL;
}

/* Every kind of value reads back as it was written, and the file is one
 * line of JSON in the documented envelope. */
static void test_round_trip(void)
{
    static const char value[] =
        "{\"int\":-9223372036854775808,\"max\":9223372036854775807,"
        "\"tenth\":0.1,\"huge\":1e300,\"tiny\":5e-324,\"top\":1.7976931348623157e308,"
        "\"third\":0.3333333333333333,\"negzero\":-0.0,\"whole\":2.0,"
        "\"s\":\"a\\u0000b\\u00e9\\u4e2d\\ud83d\\ude00\",\"esc\":\"\\\"\\\\\\n\\t/\","
        "\"empty\":{},\"none\":[],\"nil\":null,\"yes\":true,\"no\":false,"
        "\"z\":[[[{\"x\":[1.5,\"y\",{}]}]]],\"caf\\u00e9\":1}";
    static const char *const scalars[] = {"42", "\"just text\"", "null",
                                          "false", "-1.25e-7", "[]", "{}"};
    const char *p = path_for("round.json");
    sdui_json_doc *doc;
    sdui_error err;
    struct stat sb;
    size_t i, len = 0, slen = 0;
    char *file;

    CHECK(write_json(p, value));
    doc = read_snap(p, SDUI_OK, 0, &err);
    CHECK(same_value(doc, value));
    if (doc) {
        const sdui_value *root = sdui_json_doc_root(doc);
        const char *s = sdui_value_string(sdui_value_get(root, "s"), &slen);
        CHECK(sdui_value_real(sdui_value_get(root, "tenth")) == 0.1);
        CHECK(sdui_value_real(sdui_value_get(root, "huge")) == 1e300);
        CHECK(sdui_value_real(sdui_value_get(root, "tiny")) == 5e-324);
        CHECK(signbit(sdui_value_real(sdui_value_get(root, "negzero"))));
        CHECK(sdui_value_type_of(sdui_value_get(root, "whole")) == SDUI_VALUE_REAL);
        CHECK(sdui_value_int(sdui_value_get(root, "int")) == INT64_MIN);
        CHECK_EQ_INT(slen, 12);
        CHECK(s && memcmp(s, "a\0b\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", 12) == 0);
        CHECK_EQ_INT(sdui_value_count(sdui_value_get(root, "empty")), 0);
        CHECK(sdui_value_type_of(sdui_value_get(root, "none")) == SDUI_VALUE_ARRAY);
    }
    sdui_json_doc_free(doc);

    /* One readable line: the envelope first, sorted keys, a newline. */
    file = slurp(p, &len);
    CHECK(file && strncmp(file, "{\"format\":\"sdui-snapshot\",\"version\":1,"
                                "\"crc32\":\"", 47) == 0);
    CHECK(file && len > 2 && file[len - 1] == '\n' && file[len - 2] == '}');
    CHECK(file && strchr(file, '\n') == file + len - 1);
    CHECK(file && strstr(file, ",\"data\":{\"caf\xc3\xa9\":1,\"empty\":{},"));
    if (file) {
        /* The whole file is JSON, and its "data" is the value. */
        sdui_json_doc *whole = NULL;
        CHECK_STATUS(sdui_json_doc_parse(file, len, 64, &whole, &err), SDUI_OK);
        if (whole) {
            sdui_json_doc *want = doc_of(value);
            CHECK(want && value_equal(sdui_value_get(sdui_json_doc_root(whole), "data"),
                                      sdui_json_doc_root(want)));
            sdui_json_doc_free(want);
        }
        sdui_json_doc_free(whole);
    }
    free(file);
    /* A new file is the user's alone. */
    CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600);

    /* Any value at the top. */
    for (i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        CHECK(write_json(p, scalars[i]));
        doc = read_snap(p, SDUI_OK, 0, NULL);
        CHECKF(same_value(doc, scalars[i]), "top-level %s", scalars[i]);
        sdui_json_doc_free(doc);
    }
    CHECK_EQ_INT(count_tmp(dir), 0);
}

/* Two writes: PATH holds the second, PATH.prev the first; a third moves
 * them on.  A replaced file keeps its permission bits. */
static void test_prev_holds_first(void)
{
    const char *p = path_for("two.json");
    const char *prev = path_for("two.json.prev");
    sdui_json_doc *doc;
    struct stat sb;

    CHECK(write_json(p, "{\"n\":1}"));
    CHECK(access(prev, F_OK) != 0); /* nothing to keep after the first */
    CHECK(write_json(p, "{\"n\":2}"));
    doc = read_snap(p, SDUI_OK, 0, NULL);
    CHECK(same_value(doc, "{\"n\":2}"));
    sdui_json_doc_free(doc);
    /* PATH.prev is a snapshot file itself. */
    doc = read_snap(prev, SDUI_OK, 0, NULL);
    CHECK(same_value(doc, "{\"n\":1}"));
    sdui_json_doc_free(doc);

    CHECK(chmod(p, 0640) == 0);
    CHECK(write_json(p, "{\"n\":3}"));
    CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0640);
    doc = read_snap(prev, SDUI_OK, 0, NULL);
    CHECK(same_value(doc, "{\"n\":2}"));
    sdui_json_doc_free(doc);
    CHECK_EQ_INT(count_tmp(dir), 0);
}

/* Writes {"n":1} then {"n":2} to a fresh p, and returns PATH's bytes. */
static char *two_writes(const char *p, size_t *len)
{
    char prev[600];
    snprintf(prev, sizeof prev, "%s.prev", p);
    unlink(p);
    unlink(prev);
    CHECK(write_json(p, "{\"n\":1,\"list\":[10,20,30]}"));
    CHECK(write_json(p, "{\"n\":2,\"list\":[40,50,60]}"));
    return slurp(p, len);
}

/* Checks that reading p recovers the first value from PATH.prev and that
 * the reason names PATH and holds each needle. */
static void expect_recovery(const char *p, sdui_status why, const char *n1,
                            const char *n2)
{
    sdui_error err;
    sdui_json_doc *doc = read_snap(p, SDUI_OK, 1, &err);
    CHECK(same_value(doc, "{\"n\":1,\"list\":[10,20,30]}"));
    sdui_json_doc_free(doc);
    CHECK_EQ_INT(err.status, why);
    CHECK_MSG_HAS(p);
    CHECK_MSG_HAS(".prev\" instead");
    if (n1)
        CHECK_MSG_HAS(n1);
    if (n2)
        CHECK_MSG_HAS(n2);
}

/* A torn PATH, cut anywhere, is refused and PATH.prev read instead. */
static void test_torn(void)
{
    const char *p = path_for("torn.json");
    sdui_error err;
    size_t len = 0, cut;
    char *good = two_writes(p, &len), *at;
    if (!good)
        return;

    /* Cut inside the value's array: the JSON ends there. */
    at = strstr(good, "50,60]");
    CHECK(at != NULL);
    cut = at ? (size_t)(at - good) : len / 2;
    put_file(p, good, cut);
    expect_recovery(p, SDUI_CORRUPT, "is not JSON at line 1, column", "torn");
    sdui_json_doc_free(read_snap(p, SDUI_OK, 1, &err));
    CHECK_EQ_INT(err.line, 1);
    CHECK_EQ_INT(err.column, (long long)cut + 1);
    CHECK_EQ_INT(err.offset, (long long)cut);

    put_file(p, good, 0);
    expect_recovery(p, SDUI_CORRUPT, "is empty", NULL);
    /* Only the last byte (the newline) missing: still not as written. */
    put_file(p, good, len - 1);
    expect_recovery(p, SDUI_CORRUPT, "not byte for byte as written", NULL);
    /* Every cut is refused, none crashes or reads a part as the whole. */
    for (cut = 1; cut < len; cut += 7) {
        put_file(p, good, cut);
        sdui_json_doc_free(read_snap(p, SDUI_OK, 1, &err));
        CHECKF(err.status == SDUI_CORRUPT, "cut at %zu: %s", cut, err.message);
    }
    free(good);
}

/* A flipped byte that leaves valid JSON is caught by the checksum; one in
 * the checksum itself too; one in the envelope by the form. */
static void test_checksum(void)
{
    const char *p = path_for("flip.json");
    size_t len = 0;
    char *good = two_writes(p, &len), *bad, *at;
    if (!good)
        return;
    bad = malloc(len);
    memcpy(bad, good, len);
    at = strstr(bad, "[40,50,60]");
    CHECK(at != NULL);
    if (at)
        at[2] = '1'; /* 50 -> 51 */
    put_file(p, bad, len);
    expect_recovery(p, SDUI_CORRUPT, "checksum mismatch", "crc32");

    memcpy(bad, good, len);
    bad[47] = bad[47] == 'a' ? 'b' : 'a'; /* the first checksum digit */
    put_file(p, bad, len);
    expect_recovery(p, SDUI_CORRUPT, "checksum mismatch", NULL);

    memcpy(bad, good, len);
    bad[47] = 'X'; /* not a hex digit */
    put_file(p, bad, len);
    expect_recovery(p, SDUI_CORRUPT, "crc32", "8 lowercase hex digits");

    memcpy(bad, good, len);
    at = strstr(bad, "sdui-snapshot");
    if (at)
        at[0] = 'S';
    put_file(p, bad, len);
    expect_recovery(p, SDUI_CORRUPT, "\"format\" other than", NULL);
    free(bad);
    free(good);
}

/* A write over a damaged PATH does not make the damage PATH.prev: the
 * last good snapshot stays there, so no moment has two bad files. */
static void test_damaged_path_not_kept(void)
{
    const char *p = path_for("keep.json");
    const char *prev = path_for("keep.json.prev");
    sdui_json_doc *doc;
    size_t len = 0;
    char *good = two_writes(p, &len), *at;
    if (!good)
        return;
    at = strstr(good, "[40,50,60]");
    if (at)
        at[1] = '7';
    put_file(p, good, len); /* PATH damaged; PATH.prev holds n = 1 */
    CHECK(write_json(p, "{\"n\":3}"));
    doc = read_snap(p, SDUI_OK, 0, NULL);
    CHECK(same_value(doc, "{\"n\":3}"));
    sdui_json_doc_free(doc);
    doc = read_snap(prev, SDUI_OK, 0, NULL);
    CHECK(same_value(doc, "{\"n\":1,\"list\":[10,20,30]}"));
    sdui_json_doc_free(doc);
    /* Plain JSON at PATH (a hand-made file) is not kept either. */
    put_file(p, "{\"hand\":1}", 10);
    CHECK(write_json(p, "{\"n\":4}"));
    doc = read_snap(prev, SDUI_OK, 0, NULL);
    CHECK(same_value(doc, "{\"n\":1,\"list\":[10,20,30]}"));
    sdui_json_doc_free(doc);
    /* A good PATH is. */
    CHECK(write_json(p, "{\"n\":5}"));
    doc = read_snap(prev, SDUI_OK, 0, NULL);
    CHECK(same_value(doc, "{\"n\":4}"));
    sdui_json_doc_free(doc);
    free(good);
}

/* Neither file good: SDUI_CORRUPT naming both faults; neither there:
 * SDUI_NOT_FOUND; PATH gone but PATH.prev there: recovered. */
static void test_both_bad_and_missing(void)
{
    const char *p = path_for("both.json");
    const char *prev = path_for("both.json.prev");
    sdui_json_doc *doc;
    sdui_error err;
    size_t len = 0;
    char *good = two_writes(p, &len), *at;
    if (!good)
        return;

    /* PATH damaged, PATH.prev torn. */
    at = strstr(good, "[40,50,60]");
    if (at)
        at[1] = '7';
    put_file(p, good, len);
    put_file(prev, "{\"format\":\"sdui-snap", 20);
    read_snap(p, SDUI_CORRUPT, 0, &err);
    CHECK_MSG_HAS(p);
    CHECK_MSG_HAS("checksum mismatch");
    /* (The fault is the string that never ends, from its quote.) */
    CHECK_MSG_HAS("its .prev is not JSON at line 1, column 11");
    CHECK_EQ_INT(err.status, SDUI_CORRUPT);

    /* PATH damaged, no PATH.prev at all. */
    unlink(prev);
    read_snap(p, SDUI_CORRUPT, 0, &err);
    CHECK_MSG_HAS("checksum mismatch");
    CHECK_MSG_HAS("its .prev does not exist");

    /* Neither exists. */
    unlink(p);
    read_snap(p, SDUI_NOT_FOUND, 0, &err);
    CHECK_EQ_INT(err.status, SDUI_NOT_FOUND);
    CHECK_MSG_HAS("neither");
    CHECK_MSG_HAS(p);
    read_snap(path_for("never-written.json"), SDUI_NOT_FOUND, 0, &err);

    /* PATH deleted, PATH.prev good. */
    free(good);
    good = two_writes(p, &len);
    unlink(p);
    expect_recovery(p, SDUI_NOT_FOUND, "does not exist", NULL);

    /* PATH a directory: unreadable (SDUI_IO, EISDIR), an error whether or
     * not a good PATH.prev is there (it is not read in PATH's place). */
    CHECK(mkdir(p, 0700) == 0);
    doc = read_snap(p, SDUI_IO, 0, &err);
    CHECK_EQ_INT(err.code, EISDIR);
    CHECK_MSG_HAS("is a directory");
    CHECK_MSG_HAS("is not read in its place");
    CHECK_MSG_HAS(p);
    sdui_json_doc_free(doc);
    unlink(prev);
    doc = read_snap(p, SDUI_IO, 0, &err);
    CHECK_EQ_INT(err.code, EISDIR);
    sdui_json_doc_free(doc);
    /* ... and cannot be written over. */
    {
        sdui_json_doc *d = doc_of("1");
        CHECK_STATUS(sdui_snapshot_write(p, d, &err), SDUI_IO);
        CHECK_EQ_INT(err.code, EISDIR);
        CHECK_MSG_HAS(p);
        sdui_json_doc_free(d);
    }
    CHECK(rmdir(p) == 0);
    CHECK_EQ_INT(count_tmp(dir), 0);
    free(good);
}

/* Plain JSON and other envelopes are refused, each for what it is. */
static void test_not_a_snapshot(void)
{
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"{\"a\":1}\n", "plain JSON without the snapshot envelope"},
        {"[1,2]", "holds a JSON array, not a snapshot envelope"},
        {"\"x\"", "holds a JSON string"},
        {"{\"format\":\"other\",\"version\":1,\"crc32\":\"00000000\",\"data\":1}\n",
         "\"format\" other than \"sdui-snapshot\""},
        {"{\"format\":\"sdui-snapshot\",\"version\":2,\"crc32\":\"00000000\",\"data\":1}\n",
         "is snapshot version 2; this library reads version 1"},
        {"{\"format\":\"sdui-snapshot\",\"version\":\"1\",\"crc32\":\"00000000\",\"data\":1}\n",
         "no integer snapshot \"version\""},
        {"{\"format\":\"sdui-snapshot\",\"version\":1,\"crc32\":\"00000000\"}\n",
         "has no \"data\""},
        /* The right members, reformatted by an editor (checksum of "1"). */
        {"{\n  \"format\": \"sdui-snapshot\",\n  \"version\": 1,\n"
         "  \"crc32\": \"83dcefb7\",\n  \"data\": 1\n}\n",
         "not byte for byte as written"},
        {"{\"format\":\"sdui-snapshot\",\"version\":1,\"crc32\":\"83DCEFB7\",\"data\":1}\n",
         "8 lowercase hex digits"},
    };
    const char *p = path_for("plain.json");
    sdui_error err;
    size_t i;
    unlink(path_for("plain.json.prev"));
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        put_file(p, cases[i].text, strlen(cases[i].text));
        read_snap(p, SDUI_CORRUPT, 0, &err);
        CHECKF(strstr(err.message, cases[i].needle) != NULL,
               "case %zu: \"%s\" should say \"%s\"", i, err.message,
               cases[i].needle);
        CHECK_MSG_HAS(p);
    }
    /* The exact form with the right checksum is what the writer makes. */
    {
        static const char made[] =
            "{\"format\":\"sdui-snapshot\",\"version\":1,\"crc32\":\"83dcefb7\",\"data\":1}\n";
        sdui_json_doc *doc;
        put_file(p, made, strlen(made));
        doc = read_snap(p, SDUI_OK, 0, NULL);
        CHECK(same_value(doc, "1"));
        sdui_json_doc_free(doc);
        CHECK(write_json(p, "1"));
        {
            char *file = slurp(p, NULL);
            CHECK(file && strcmp(file, made) == 0);
            free(file);
        }
    }
}

/* Runs sdui_snapshot_write(p, doc) in a child, as "nobody" when this is
 * root (root writes anywhere) and under an optional file size limit;
 * returns the child's status and error record. */
static sdui_status write_in_child(const char *p, const sdui_json_doc *doc,
                                  int as_nobody, long fsize_limit,
                                  sdui_error *out)
{
    int fds[2], status = 0;
    pid_t pid;
    sdui_status st = SDUI_OK;
    memset(out, 0, sizeof *out);
    if (pipe(fds) != 0)
        return SDUI_ARGUMENT;
    pid = fork();
    if (pid == 0) {
        sdui_error e;
        close(fds[0]);
        if (as_nobody && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(2);
        if (fsize_limit > 0) {
            struct rlimit rl;
            rl.rlim_cur = rl.rlim_max = (rlim_t)fsize_limit;
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(2);
        }
        st = sdui_snapshot_write(p, doc, &e);
        if (write(fds[1], &st, sizeof st) != (ssize_t)sizeof st ||
            write(fds[1], &e, sizeof e) != (ssize_t)sizeof e)
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], &st, sizeof st) != (ssize_t)sizeof st ||
        read(fds[0], out, sizeof *out) != (ssize_t)sizeof *out)
        st = SDUI_ARGUMENT;
    close(fds[0]);
    waitpid(pid, &status, 0);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    return st;
}

/* A folder that cannot be written: SDUI_IO naming PATH, PATH untouched,
 * no temporary file.  A write cut off midway (file size limit): the same. */
static void test_write_failures(void)
{
    char ro[300], p[400], *before, *after;
    sdui_json_doc *doc;
    sdui_error err;
    size_t blen = 0, alen = 0;
    sdui_status st;
    char big[9000];
    size_t i, n = 0;

    snprintf(ro, sizeof ro, "%s", path_for("read-only"));
    CHECK(mkdir(ro, 0700) == 0);
    snprintf(p, sizeof p, "%s/state.json", ro);
    CHECK(write_json(p, "{\"kept\":true}"));
    before = slurp(p, &blen);
    CHECK(chmod(p, 0644) == 0 && chmod(ro, 0555) == 0 && chmod(dir, 0711) == 0);
    doc = doc_of("{\"kept\":false}");
    st = write_in_child(p, doc, 1, 0, &err);
    CHECK_STATUS(st, SDUI_IO);
    CHECK_EQ_INT(err.code, EACCES);
    CHECK_MSG_HAS(p);
    CHECK_MSG_HAS("temporary file");
    after = slurp(p, &alen);
    CHECK(before && after && alen == blen && memcmp(before, after, blen) == 0);
    CHECK_EQ_INT(count_tmp(ro), 0);
    free(after);
    sdui_json_doc_free(doc);
    CHECK(chmod(ro, 0700) == 0 && chmod(dir, 0700) == 0);

    /* A write that fails after a first part went out: EFBIG at 2 KiB. */
    n += (size_t)snprintf(big + n, sizeof big - n, "[");
    for (i = 0; i < 1000; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s%zu", i ? "," : "", i + 1000);
    snprintf(big + n, sizeof big - n, "]");
    doc = doc_of(big);
    st = write_in_child(p, doc, 0, 2048, &err);
    CHECK_STATUS(st, SDUI_IO);
    CHECK_EQ_INT(err.code, EFBIG);
    CHECK_MSG_HAS(p);
    after = slurp(p, &alen);
    CHECK(before && after && alen == blen && memcmp(before, after, blen) == 0);
    CHECK_EQ_INT(count_tmp(ro), 0);
    free(after);
    /* Without the limit the same write goes through. */
    CHECK_STATUS(sdui_snapshot_write(p, doc, &err), SDUI_OK);
    sdui_json_doc_free(doc);
    free(before);
}

/* ------------------------------------------------------------------ */
/* Unreadable files                                                     */
/* ------------------------------------------------------------------ */

/* What a child did: the status and error record of one call. */
typedef struct child_call {
    sdui_status st;
    sdui_error err;
    int recovered;
} child_call;

/* Runs one call in a child process as "nobody" when this is root (root
 * reads files of any mode, nobody does not: the EACCES is the kernel's,
 * not a stand-in) and as this user otherwise: a read of p (write_doc NULL)
 * or a write of write_doc to p.  Returns what the child saw. */
static child_call call_as_nobody(const char *p, const sdui_json_doc *write_doc)
{
    child_call c;
    int fds[2], status = 0;
    pid_t pid;
    memset(&c, 0, sizeof c);
    c.st = SDUI_ARGUMENT;
    if (pipe(fds) != 0)
        return c;
    pid = fork();
    if (pid == 0) {
        child_call r;
        sdui_json_doc *doc = NULL;
        memset(&r, 0, sizeof r);
        close(fds[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(2);
        if (write_doc) {
            r.st = sdui_snapshot_write(p, write_doc, &r.err);
        } else {
            r.st = sdui_snapshot_read(p, 64, &doc, &r.recovered, &r.err);
            if (r.st != SDUI_OK && doc != NULL)
                r.recovered = -1; /* a failed read must leave no document */
            sdui_json_doc_free(doc);
        }
        if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r)
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], &c, sizeof c) != (ssize_t)sizeof c)
        c.st = SDUI_ARGUMENT;
    close(fds[0]);
    waitpid(pid, &status, 0);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    return c;
}

/* 1 if the file at p holds exactly bytes[0, len) and has mode bits mode. */
static int unchanged(const char *p, const char *bytes, size_t len, mode_t mode)
{
    struct stat sb;
    size_t now_len = 0;
    char *now = slurp(p, &now_len);
    int same = now && bytes && now_len == len && memcmp(now, bytes, len) == 0 &&
               stat(p, &sb) == 0 && (sb.st_mode & 07777) == mode;
    free(now);
    return same;
}

/* A PATH that exists but cannot be read (mode 000, read by a user who is
 * not root) is an error, not "no snapshot" and not a reason to read the
 * older PATH.prev; a write neither replaces it nor, when PATH is good,
 * replaces a PATH.prev that cannot be read.  Both files keep their bytes
 * and modes; no temporary file is left. */
static void test_unreadable_not_replaced(void)
{
    char sub[300], p[400], prev[420];
    char *pb = NULL, *vb = NULL;
    size_t plen = 0, vlen = 0;
    sdui_json_doc *doc = doc_of("{\"n\":3}");
    sdui_error err;
    child_call c;

    snprintf(sub, sizeof sub, "%s", path_for("unreadable"));
    CHECK(mkdir(sub, 0700) == 0);
    snprintf(p, sizeof p, "%s/state.json", sub);
    snprintf(prev, sizeof prev, "%s.prev", p);
    CHECK(write_json(p, "{\"n\":1}"));
    CHECK(write_json(p, "{\"n\":2}"));
    /* nobody must reach the folder and own the files; a user who is not
     * root owns them already. */
    if (geteuid() == 0) {
        CHECK(chmod(dir, 0711) == 0);
        CHECK(chown(sub, 65534, 65534) == 0);
        CHECK(chown(p, 65534, 65534) == 0);
        CHECK(chown(prev, 65534, 65534) == 0);
    }
    pb = slurp(p, &plen);
    vb = slurp(prev, &vlen);

    /* PATH mode 000. */
    CHECK(chmod(p, 0) == 0);
    c = call_as_nobody(p, NULL);
    err = c.err;
    CHECK_STATUS(c.st, SDUI_IO);
    CHECK_EQ_INT(c.recovered, 0);
    CHECK_EQ_INT(err.code, EACCES);
    CHECK_MSG_HAS(p);
    CHECK_MSG_HAS("cannot be read: Permission denied");
    CHECK_MSG_HAS("is not read in its place");
    c = call_as_nobody(p, doc);
    err = c.err;
    CHECK_STATUS(c.st, SDUI_IO);
    CHECK_EQ_INT(err.code, EACCES);
    CHECK_MSG_HAS(p);
    CHECK_MSG_HAS("it exists but cannot be read");
    CHECK(unchanged(p, pb, plen, 0));
    CHECK(unchanged(prev, vb, vlen, 0600));
    CHECK_EQ_INT(count_tmp(sub), 0);

    /* PATH good, PATH.prev mode 000: the write would replace PATH.prev. */
    CHECK(chmod(p, 0600) == 0 && chmod(prev, 0) == 0);
    c = call_as_nobody(p, NULL);
    CHECK_STATUS(c.st, SDUI_OK);
    c = call_as_nobody(p, doc);
    err = c.err;
    CHECK_STATUS(c.st, SDUI_IO);
    CHECK_EQ_INT(err.code, EACCES);
    CHECK_MSG_HAS(prev);
    CHECK_MSG_HAS("both are left as they are");
    CHECK(unchanged(p, pb, plen, 0600));
    CHECK(unchanged(prev, vb, vlen, 0));
    CHECK_EQ_INT(count_tmp(sub), 0);

    /* Readable again: the write goes through. */
    CHECK(chmod(prev, 0600) == 0);
    c = call_as_nobody(p, doc);
    CHECK_STATUS(c.st, SDUI_OK);
    CHECK(unchanged(prev, pb, plen, 0600));

    /* Not a regular file in PATH's place (a FIFO): refused the same way,
     * for root too. */
    CHECK(unlink(p) == 0 && mkfifo(p, 0600) == 0);
    read_snap(p, SDUI_IO, 0, &err);
    CHECK_EQ_INT(err.code, ENODEV);
    CHECK_STATUS(sdui_snapshot_write(p, doc, &err), SDUI_IO);
    CHECK_MSG_HAS("not a regular file");
    {
        struct stat sb;
        CHECK(lstat(p, &sb) == 0 && S_ISFIFO(sb.st_mode));
    }
    CHECK(unlink(p) == 0);
    if (geteuid() == 0)
        CHECK(chmod(dir, 0700) == 0);
    free(pb);
    free(vb);
    sdui_json_doc_free(doc);
}

/* A replaced PATH keeps its bits with the owner's read and write added:
 * 0640 stays, 0400 and 000 (which root can read, so the write goes on)
 * become readable by the owner, never handing mode 000 on. */
static void test_mode_of_replaced(void)
{
    const char *p = path_for("mode.json");
    struct stat sb;
    CHECK(write_json(p, "1"));
    CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    CHECK(chmod(p, 0640) == 0);
    CHECK(write_json(p, "2"));
    CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0640);
    CHECK(chmod(p, 0400) == 0);
    CHECK(write_json(p, "3"));
    CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    if (geteuid() == 0) {
        sdui_json_doc *doc;
        CHECK(chmod(p, 0) == 0);
        CHECK(write_json(p, "4"));
        CHECKF(stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0600,
               "mode %o after replacing a mode 000 file", sb.st_mode & 0777);
        doc = read_snap(p, SDUI_OK, 0, NULL);
        CHECK(same_value(doc, "4"));
        sdui_json_doc_free(doc);
    } else {
        /* Not root: mode 000 cannot be read, so it is not replaced. */
        sdui_json_doc *doc = doc_of("4");
        sdui_error err;
        CHECK(chmod(p, 0) == 0);
        CHECK_STATUS(sdui_snapshot_write(p, doc, &err), SDUI_IO);
        CHECK(chmod(p, 0600) == 0);
        sdui_json_doc_free(doc);
    }
}

/* ------------------------------------------------------------------ */
/* The size bound                                                       */
/* ------------------------------------------------------------------ */

/* The bytes of a snapshot file around its value: the envelope's header,
 * checksum and separator before it, "}\n" after it. */
#define DATA_LEN_OF_FRAME                                                   \
    (strlen("{\"format\":\"sdui-snapshot\",\"version\":1,\"crc32\":\"") + 8 + \
     strlen("\",\"data\":") + 2)

/* Peak resident set of this process so far, in KiB (Linux's unit). */
static long peak_kib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

/* A file of 1.5 GB (sparse: its blocks are holes) is refused by its size
 * before any of it is read, whether it starts with the snapshot header or
 * not: the read answers SDUI_CORRUPT naming the size (or recovers
 * PATH.prev), and the process's peak memory grows by less than 16 MiB
 * (before the bound it grew by the whole 1.5 GB).  A write over it (it is
 * not a snapshot) checks it the same way.  The writer refuses a value
 * whose file would pass the bound, and leaves PATH as it was. */
static void test_size_bound(void)
{
    const char *p = path_for("huge.json");
    const char *prev = path_for("huge.json.prev");
    const off_t huge = (off_t)1536 << 20;
    static const char head[] =
        "{\"format\":\"sdui-snapshot\",\"version\":1,\"crc32\":\"00000000\",\"data\":";
    long before = peak_kib(), after;
    sdui_json_doc *doc;
    sdui_error err;
    int i;

    for (i = 0; i < 2; i++) {
        int fd;
        unlink(p);
        unlink(prev);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0);
        if (fd < 0)
            return;
        if (i == 1)
            CHECK(write(fd, head, sizeof head - 1) == (ssize_t)(sizeof head - 1));
        CHECK(ftruncate(fd, huge) == 0);
        close(fd);
        read_snap(p, SDUI_CORRUPT, 0, &err);
        CHECK_MSG_HAS("is 1610612736 bytes, more than the 67108864");
        CHECK_MSG_HAS("none of it was read");
        CHECK_MSG_HAS(p);
        /* With a good PATH.prev, that is read instead. */
        {
            char good[] = "{\"format\":\"sdui-snapshot\",\"version\":1,"
                          "\"crc32\":\"83dcefb7\",\"data\":1}\n";
            put_file(prev, good, strlen(good));
        }
        doc = read_snap(p, SDUI_OK, 1, &err);
        CHECK(same_value(doc, "1"));
        CHECK_EQ_INT(err.status, SDUI_CORRUPT);
        sdui_json_doc_free(doc);
        /* The write replaces it (it is not a snapshot) without reading it,
         * and keeps the good PATH.prev. */
        CHECK(write_json(p, "2"));
        doc = read_snap(prev, SDUI_OK, 0, NULL);
        CHECK(same_value(doc, "1"));
        sdui_json_doc_free(doc);
    }
    after = peak_kib();
    CHECKF(before > 0 && after - before < 16 * 1024,
           "peak memory grew by %ld KiB reading a 1.5 GB file", after - before);
    printf("1.5 GB sparse snapshot, read and written over twice: peak memory "
           "+%ld KiB\n", after - before);

    /* A value whose file just fits is written and read back; one byte
     * more is SDUI_LIMIT, and PATH stays as it was. */
    {
        size_t n = SDUI_SNAPSHOT_MAX_BYTES, fits;
        size_t frame = DATA_LEN_OF_FRAME + strlen("{\"s\":\"\"}");
        char *big = malloc(n);
        sdui_json_doc *d;
        struct stat sb;
        size_t got = 0;
        CHECK(big != NULL);
        if (!big)
            return;
        memset(big, 'a', n);
        fits = n - frame;
        d = doc_with_s(big, fits);
        CHECK(d != NULL);
        CHECK_STATUS(sdui_snapshot_write(p, d, &err), SDUI_OK);
        sdui_json_doc_free(d);
        CHECK(stat(p, &sb) == 0 && (size_t)sb.st_size == n);
        doc = read_snap(p, SDUI_OK, 0, NULL);
        CHECK(doc && sdui_value_string(sdui_value_get(sdui_json_doc_root(doc), "s"), &got) &&
              got == fits);
        sdui_json_doc_free(doc);
        d = doc_with_s(big, fits + 1);
        CHECK(d != NULL);
        free(big);
        CHECK_STATUS(sdui_snapshot_write(p, d, &err), SDUI_LIMIT);
        CHECK_MSG_HAS("more than 67108864 bytes");
        CHECK_MSG_HAS(p);
        CHECK(stat(p, &sb) == 0 && (size_t)sb.st_size == n);
        CHECK_EQ_INT(count_tmp(dir), 0);
        sdui_json_doc_free(d);
        unlink(p);
        unlink(prev);
    }
}

/* ------------------------------------------------------------------ */
/* The lock                                                             */
/* ------------------------------------------------------------------ */

/* A child that takes the lock of p (waiting for it), writes one byte to
 * fd `told` once it holds it, then holds it until it is killed or its
 * `hold` pipe closes.  Returns the child's pid. */
static pid_t lock_holder(const char *p, int told, int hold)
{
    pid_t pid = fork();
    if (pid == 0) {
        sdui_snapshot_lock *lk = NULL;
        sdui_error err;
        char b;
        if (sdui_snapshot_lock_open(p, 1, &lk, &err) != SDUI_OK)
            _exit(2);
        if (write(told, "L", 1) != 1)
            _exit(3);
        while (read(hold, &b, 1) > 0) {
        }
        sdui_snapshot_lock_free(lk);
        _exit(0);
    }
    return pid;
}

/* 1 if a byte arrives on fd within ms milliseconds (then it is read). */
static int byte_within(int fd, int ms)
{
    struct pollfd pf;
    char b;
    pf.fd = fd;
    pf.events = POLLIN;
    pf.revents = 0;
    if (poll(&pf, 1, ms) != 1)
        return 0;
    return read(fd, &b, 1) == 1;
}

/* Adds one to the integer snapshot at p under its lock, `rounds` times. */
static int count_up(const char *p, int rounds)
{
    int i;
    for (i = 0; i < rounds; i++) {
        sdui_snapshot_lock *lk = NULL;
        sdui_json_doc *doc = NULL;
        sdui_error err;
        char text[32];
        long long n = 0;
        if (sdui_snapshot_lock_open(p, 1, &lk, &err) != SDUI_OK)
            return 0;
        if (sdui_snapshot_read(p, 8, &doc, NULL, &err) == SDUI_OK)
            n = sdui_value_int(sdui_json_doc_root(doc));
        sdui_json_doc_free(doc);
        snprintf(text, sizeof text, "%lld", n + 1);
        doc = NULL;
        if (sdui_json_doc_parse(text, strlen(text), 8, &doc, &err) != SDUI_OK ||
            sdui_snapshot_write(p, doc, &err) != SDUI_OK)
            return 0;
        sdui_json_doc_free(doc);
        sdui_snapshot_lock_free(lk);
    }
    return 1;
}

/* The lock: a second taker without waiting is refused while a holder has
 * it, and gets it once the holder is SIGKILLed (the system lets go); two
 * processes counting up under it lose no count; a lock file replaced
 * while a taker waits is noticed; bad arguments. */
static void test_lock(void)
{
    const char *p = path_for("locked.json");
    char lockname[600], moved[620];
    sdui_snapshot_lock *lk = NULL;
    sdui_error err;
    int told[2], hold[2], status;
    pid_t holder, other;
    sdui_json_doc *doc;

    snprintf(lockname, sizeof lockname, "%s.lock", p);
    snprintf(moved, sizeof moved, "%s.lock.old", p);
    CHECK(pipe(told) == 0 && pipe(hold) == 0);
    holder = lock_holder(p, told[1], hold[0]);
    CHECK(byte_within(told[0], 30000));
    CHECK_STATUS(sdui_snapshot_lock_open(p, 0, &lk, &err), SDUI_IO);
    CHECK(lk == NULL);
    CHECK_EQ_INT(err.code, EWOULDBLOCK);
    CHECK_MSG_HAS("is being written by another writer");
    CHECK_MSG_HAS(lockname);
    /* The holder dies holding it: the lock is free at once. */
    kill(holder, SIGKILL);
    waitpid(holder, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CHECK_STATUS(sdui_snapshot_lock_open(p, 0, &lk, &err), SDUI_OK);
    sdui_snapshot_lock_free(lk);
    lk = NULL;
    {
        struct stat sb;
        CHECK(stat(lockname, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    }

    /* Two processes, 200 rounds each of read, add one, write. */
    {
        pid_t a, b;
        int sa, sb;
        unlink(p);
        a = fork();
        if (a == 0)
            _exit(count_up(p, 200) ? 0 : 1);
        b = fork();
        if (b == 0)
            _exit(count_up(p, 200) ? 0 : 1);
        waitpid(a, &sa, 0);
        waitpid(b, &sb, 0);
        CHECK(WIFEXITED(sa) && WEXITSTATUS(sa) == 0);
        CHECK(WIFEXITED(sb) && WEXITSTATUS(sb) == 0);
        doc = read_snap(p, SDUI_OK, 0, &err);
        CHECKF(doc && sdui_value_int(sdui_json_doc_root(doc)) == 400,
               "two counters under the lock reached %lld, not 400",
               doc ? (long long)sdui_value_int(sdui_json_doc_root(doc)) : -1LL);
        sdui_json_doc_free(doc);
    }

    /* A lock file moved away while a taker waits on it: the taker, once
     * the old file's holder is gone, finds that the name leads to a new
     * file (held here) and waits for that one. */
    holder = lock_holder(p, told[1], hold[0]);
    CHECK(byte_within(told[0], 30000));
    other = lock_holder(p, told[1], hold[0]);
    CHECK(!byte_within(told[0], 200)); /* waits behind the holder */
    CHECK(rename(lockname, moved) == 0);
    CHECK_STATUS(sdui_snapshot_lock_open(p, 0, &lk, &err), SDUI_OK);
    kill(holder, SIGKILL);
    waitpid(holder, &status, 0);
    CHECKF(!byte_within(told[0], 500),
           "a taker locked the removed lock file while the new one was held");
    sdui_snapshot_lock_free(lk);
    lk = NULL;
    CHECK(byte_within(told[0], 30000));
    kill(other, SIGKILL);
    waitpid(other, &status, 0);
    unlink(moved);
    close(told[0]);
    close(told[1]);
    close(hold[0]);
    close(hold[1]);

    /* Arguments, and a folder that does not exist. */
    CHECK_STATUS(sdui_snapshot_lock_open(NULL, 1, &lk, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("path");
    CHECK_STATUS(sdui_snapshot_lock_open(p, 1, NULL, &err), SDUI_ARGUMENT);
    CHECK_MSG_HAS("out");
    CHECK_STATUS(sdui_snapshot_lock_open("", 1, &lk, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_snapshot_lock_open(path_for("no-such-folder/s.json"), 1,
                                         &lk, &err),
                 SDUI_IO);
    CHECK_EQ_INT(err.code, ENOENT);
    CHECK_MSG_HAS("cannot open its lock file");
    CHECK(lk == NULL);
    sdui_snapshot_lock_free(NULL);
}

/* The document {"k": 1, <name>: <string>} laid out from a draft by hand
 * (value_tree.h), so it may hold what no builder lets in, as a builder
 * bug could; NULL on a failed check. */
static sdui_json_doc *doc_by_hand(const char *name, size_t name_len,
                                  const char *str, size_t str_len)
{
    char bytes[64];
    sdui_node draft[5];
    sdui_json_doc *doc = NULL;
    sdui_error err;
    memset(draft, 0, sizeof draft);
    memcpy(bytes, "k", 2);
    memcpy(bytes + 2, name, name_len);
    bytes[2 + name_len] = '\0';
    memcpy(bytes + 3 + name_len, str, str_len);
    bytes[3 + name_len + str_len] = '\0';
    draft[0].kind = SDUI_NODE_OBJECT;
    draft[0].n = 2;
    draft[0].size = 5;
    draft[1].kind = SDUI_NODE_KEY;
    draft[1].n = 1;
    draft[1].u.at = 0;
    draft[2].kind = SDUI_NODE_INT;
    draft[2].u.i = 1;
    draft[3].kind = SDUI_NODE_KEY;
    draft[3].n = name_len;
    draft[3].u.at = 2;
    draft[4].kind = SDUI_NODE_STRING;
    draft[4].n = str_len;
    draft[4].u.at = 3 + name_len;
    for (int i = 0; i < 5; i++)
        draft[i].size = i ? 1 : 5;
    CHECK_STATUS(sdui__json_doc_from_draft(draft, 5, bytes, 4 + name_len + str_len, 0,
                                           &doc, &err), SDUI_OK);
    return doc;
}

/* A tree the reader would refuse is refused by the writer before the disk
 * is touched: a NUL in a member name, invalid UTF-8 (both put in by hand
 * below the builder, as a builder bug could). */
static void test_unreadable_trees_refused(void)
{
    const char *p = path_for("refused.json");
    sdui_json_doc *doc = doc_by_hand("a\0b", 3, "x", 1);
    sdui_error err;
    unlink(p);
    if (!doc)
        return;
    CHECK_STATUS(sdui_snapshot_write(p, doc, &err), SDUI_JSON);
    CHECK_MSG_HAS("would not read back");
    CHECK_MSG_HAS(p);
    CHECK(access(p, F_OK) != 0);
    sdui_json_doc_free(doc);
    doc = doc_by_hand("bad", 3, "\xff", 1);
    if (!doc)
        return;
    CHECK_STATUS(sdui_snapshot_write(p, doc, &err), SDUI_JSON);
    CHECK(access(p, F_OK) != 0);
    CHECK_EQ_INT(count_tmp(dir), 0);
    sdui_json_doc_free(doc);
}

/* NULL and impossible arguments. */
static void test_arguments(void)
{
    sdui_json_doc *doc = doc_of("1"), *out = (sdui_json_doc *)&out;
    sdui_error err;
    char p[400];
    int rec = 5;
    CHECK_STATUS(sdui_snapshot_write(NULL, doc, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_snapshot_write(path_for("a.json"), NULL, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_snapshot_write("", doc, &err), SDUI_ARGUMENT);
    snprintf(p, sizeof p, "%s/", dir);
    CHECK_STATUS(sdui_snapshot_write(p, doc, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_snapshot_read(NULL, 64, &out, &rec, &err), SDUI_ARGUMENT);
    CHECK_EQ_INT(rec, 0);
    CHECK_STATUS(sdui_snapshot_read(path_for("a.json"), 64, NULL, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_snapshot_read(p, 64, &out, NULL, &err), SDUI_ARGUMENT);
    CHECK(out == NULL);
    /* A NULL error record and a NULL recovered flag are fine. */
    CHECK(sdui_snapshot_write(path_for("a.json"), doc, NULL) == SDUI_OK);
    CHECK(sdui_snapshot_read(path_for("a.json"), 64, &out, NULL, NULL) == SDUI_OK);
    sdui_json_doc_free(out);
    /* A path with no folder part: the current folder. */
    {
        char cwd[512];
        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        CHECK(chdir(dir) == 0);
        CHECK(sdui_snapshot_write("bare.json", doc, &err) == SDUI_OK);
        CHECK(sdui_snapshot_read("bare.json", 64, &out, NULL, &err) == SDUI_OK);
        CHECK(same_value(out, "1"));
        sdui_json_doc_free(out);
        CHECK(chdir(cwd) == 0);
    }
    sdui_json_doc_free(doc);
}

/* max_depth counts from the value; a value too deep is SDUI_LIMIT, and
 * PATH.prev is not read in its place. */
static void test_depth(void)
{
    const char *p = path_for("deep.json");
    sdui_json_doc *out = NULL;
    sdui_error err;
    int rec = 7;
    CHECK(write_json(p, "[1]"));
    CHECK(write_json(p, "[[[[[1]]]]]")); /* level 5 */
    CHECK_STATUS(sdui_snapshot_read(p, 5, &out, &rec, &err), SDUI_OK);
    CHECK(same_value(out, "[[[[[1]]]]]"));
    sdui_json_doc_free(out);
    CHECK_STATUS(sdui_snapshot_read(p, 4, &out, &rec, &err), SDUI_LIMIT);
    CHECK(out == NULL);
    CHECK_EQ_INT(rec, 0);
    CHECK_MSG_HAS(p);
    CHECK_MSG_HAS("nests deeper than max_depth");
}

/* Temporary files of writers that no longer run are swept by the next
 * write; a live writer's, and files that only look alike, stay. */
static void test_leftovers_swept(void)
{
    const char *p = path_for("sweep.json");
    char dead[600], alive[600], mine[600], other[600], odd[600];
    pid_t pid = fork();
    int status;
    if (pid == 0)
        _exit(0);
    waitpid(pid, &status, 0); /* pid now names no process */
    snprintf(dead, sizeof dead, "%s.tmp-%ld-3", p, (long)pid);
    snprintf(alive, sizeof alive, "%s.tmp-1-3", p); /* init lives */
    snprintf(mine, sizeof mine, "%s.tmp-%ld-99999", p, (long)getpid());
    snprintf(other, sizeof other, "%s/other.json.tmp-%ld-3", dir, (long)pid);
    snprintf(odd, sizeof odd, "%s.tmp-%ld-3x", p, (long)pid);
    put_file(dead, "x", 1);
    put_file(alive, "x", 1);
    put_file(mine, "x", 1);
    put_file(other, "x", 1);
    put_file(odd, "x", 1);
    CHECK(write_json(p, "{}"));
    CHECK(access(dead, F_OK) != 0);
    CHECK(access(alive, F_OK) == 0);
    CHECK(access(mine, F_OK) == 0);
    CHECK(access(other, F_OK) == 0);
    CHECK(access(odd, F_OK) == 0);
    unlink(alive);
    unlink(mine);
    unlink(other);
    unlink(odd);
    CHECK_EQ_INT(count_tmp(dir), 0);
}

/* ------------------------------------------------------------------ */
/* Generations: the values of the concurrency and kill tests            */
/* ------------------------------------------------------------------ */

/* How many pad items generation g has: 1 to 700, varying. */
static size_t pad_count(long g)
{
    return 1 + (size_t)((unsigned long)g * 7919u % 700u);
}

/* The JSON of generation g: {"gen":g,"pad":[g, g, ...]} into buf. */
static size_t gen_json(long g, char *buf, size_t cap)
{
    size_t n = 0, i, count = pad_count(g);
    n += (size_t)snprintf(buf + n, cap - n, "{\"gen\":%ld,\"pad\":[", g);
    for (i = 0; i < count && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%ld", i ? "," : "", g);
    n += (size_t)snprintf(buf + n, cap - n, "]}");
    return n;
}

/* The generation doc holds if it is whole: every pad item equal to gen
 * and as many as gen implies; else -1. */
static long gen_of(const sdui_json_doc *doc)
{
    const sdui_value *root = sdui_json_doc_root(doc);
    const sdui_value *pad = sdui_value_get(root, "pad");
    long g = (long)sdui_value_int(sdui_value_get(root, "gen"));
    size_t i, count = sdui_value_count(pad);
    if (sdui_value_type_of(sdui_value_get(root, "gen")) != SDUI_VALUE_INT ||
        count != pad_count(g))
        return -1;
    for (i = 0; i < count; i++)
        if (sdui_value_int(sdui_value_at(pad, i)) != g)
            return -1;
    return g;
}

/* Writes generation g to p; the status. */
static sdui_status write_gen(const char *p, long g)
{
    static _Thread_local char buf[8192];
    sdui_json_doc *doc = NULL;
    sdui_error err;
    size_t n = gen_json(g, buf, sizeof buf);
    sdui_status st = sdui_json_doc_parse(buf, n, 8, &doc, &err);
    if (st == SDUI_OK)
        st = sdui_snapshot_write(p, doc, &err);
    sdui_json_doc_free(doc);
    return st;
}

/* The writer thread of the concurrency test. */
typedef struct writer_arg {
    const char *path;
    long last;
    volatile int done;
    int failures;
} writer_arg;

/* Writes generations 2..last, then says it is done. */
static void *writer_main(void *arg)
{
    writer_arg *w = arg;
    long g;
    for (g = 2; g <= w->last; g++)
        if (write_gen(w->path, g) != SDUI_OK)
            w->failures++;
    __atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Reads beside writes: every read finds PATH whole (no recovery), and the
 * generations it sees never go back. */
static void test_reads_beside_writes(void)
{
    const char *p = path_for("busy.json");
    writer_arg w = {NULL, 150, 0, 0};
    pthread_t t;
    long seen = 0;
    int reads = 0, bad = 0;
    w.path = p;
    CHECK(write_gen(p, 1) == SDUI_OK);
    CHECK(pthread_create(&t, NULL, writer_main, &w) == 0);
    while (!__atomic_load_n(&w.done, __ATOMIC_SEQ_CST) || reads == 0) {
        sdui_json_doc *doc = NULL;
        int rec = -1;
        sdui_error err;
        sdui_status st = sdui_snapshot_read(p, 8, &doc, &rec, &err);
        long g = st == SDUI_OK ? gen_of(doc) : -1;
        if (st != SDUI_OK || rec != 0 || g < seen) {
            if (bad++ < 3)
                CHECKF(0, "read %d: %s, recovered %d, gen %ld after %ld: %s",
                       reads, sdui_status_name(st), rec, g, seen, err.message);
        }
        if (g > seen)
            seen = g;
        sdui_json_doc_free(doc);
        reads++;
    }
    pthread_join(t, NULL);
    CHECK_EQ_INT(w.failures, 0);
    CHECK_EQ_INT(bad, 0);
    CHECK(reads > 0);
    CHECK_EQ_INT(count_tmp(dir), 0);
}

/* ------------------------------------------------------------------ */
/* Every allocation failure                                             */
/* ------------------------------------------------------------------ */

/* A counting allocator that fails exactly the fail_at-th allocation. */
static struct {
    long count, fail_at, live;
    int failed;
} fa;

/* malloc that fails the fail_at-th call. */
static void *fa_malloc(void *ctx, size_t size)
{
    void *q;
    (void)ctx;
    if (++fa.count == fa.fail_at) {
        fa.failed = 1;
        return NULL;
    }
    q = malloc(size ? size : 1);
    if (q)
        fa.live++;
    return q;
}

/* realloc that counts as an allocation and can fail the same way. */
static void *fa_realloc(void *ctx, void *ptr, size_t size)
{
    void *q;
    (void)ctx;
    if (++fa.count == fa.fail_at) {
        fa.failed = 1;
        return NULL;
    }
    q = realloc(ptr, size ? size : 1);
    if (q && !ptr)
        fa.live++;
    return q;
}

/* free that keeps the live count. */
static void fa_free(void *ctx, void *ptr)
{
    (void)ctx;
    if (ptr) {
        fa.live--;
        free(ptr);
    }
}

/* Fails each allocation of a write and of a read in turn: every call
 * answers SDUI_OK or SDUI_OOM; a failed write leaves PATH as it was and no
 * temporary file; nothing leaks. */
static void test_allocation_failures(void)
{
    const char *p = path_for("oom.json");
    sdui_allocator a = {fa_malloc, fa_realloc, fa_free, NULL};
    sdui_json_doc *one, *two;
    sdui_error err;
    long n, base;
    int bad = 0, writes_failed = 0, reads_failed = 0;

    sdui_set_allocator(&a);
    base = fa.live;
    one = doc_of("{\"v\":1,\"s\":\"one\",\"a\":[1.5,{\"k\":null}]}");
    two = doc_of("{\"v\":2,\"s\":\"two\",\"a\":[2.5,{\"k\":true}],\"z\":{\"y\":[]}}");
    for (n = 1; n < 10000; n++) {
        char *before;
        size_t blen = 0, alen = 0;
        sdui_status st;
        fa.fail_at = 0;
        CHECK(sdui_snapshot_write(p, one, &err) == SDUI_OK);
        before = slurp(p, &blen);
        fa.count = 0;
        fa.failed = 0;
        fa.fail_at = n;
        st = sdui_snapshot_write(p, two, &err);
        fa.fail_at = 0;
        if (st == SDUI_OOM) {
            char *after = slurp(p, &alen);
            writes_failed++;
            if (err.status != SDUI_OOM || !after || alen != blen ||
                memcmp(after, before, blen) != 0 || count_tmp(dir) != 0)
                if (bad++ < 3)
                    CHECKF(0, "write failing at %ld: PATH changed or temp left", n);
            free(after);
        } else if (st != SDUI_OK) {
            if (bad++ < 3)
                CHECKF(0, "write failing at %ld: %s %s", n, sdui_status_name(st), err.message);
        }
        free(before);
        if (!fa.failed)
            break;
    }
    CHECK(writes_failed > 3);
    for (n = 1; n < 10000; n++) {
        sdui_json_doc *out = NULL;
        int rec = -1;
        sdui_status st;
        fa.count = 0;
        fa.failed = 0;
        fa.fail_at = n;
        st = sdui_snapshot_read(p, 64, &out, &rec, &err);
        fa.fail_at = 0;
        if (st == SDUI_OOM) {
            reads_failed++;
            if (out || rec != 0 || err.status != SDUI_OOM)
                if (bad++ < 3)
                    CHECKF(0, "read failing at %ld: bad OOM answer", n);
        } else if (st != SDUI_OK || rec != 0 ||
                   !value_equal(sdui_json_doc_root(out), sdui_json_doc_root(two))) {
            if (bad++ < 3)
                CHECKF(0, "read failing at %ld: %s %s", n, sdui_status_name(st), err.message);
        }
        sdui_json_doc_free(out);
        if (!fa.failed)
            break;
    }
    CHECK(reads_failed > 2);
    CHECK_EQ_INT(bad, 0);
    sdui_json_doc_free(one);
    sdui_json_doc_free(two);
    CHECK_EQ_INT(fa.live, base);
    sdui_set_allocator(NULL);
}

/* ------------------------------------------------------------------ */
/* The kill test                                                        */
/* ------------------------------------------------------------------ */

/* What the writer child says through its pipe. */
typedef struct report {
    int kind; /* 0 ready, 1 about to write gen, 2 gen written */
    long gen;
} report;

/* The writer child: writes generations first, first + 1, ... for ever,
 * saying before and after each. */
static void kill_child(const char *p, int fd, long first)
{
    report r = {0, 0};
    long g;
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(5);
    for (g = first;; g++) {
        r.kind = 1;
        r.gen = g;
        if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
            _exit(5);
        if (write_gen(p, g) != SDUI_OK)
            _exit(4);
        r.kind = 2;
        if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
            _exit(5);
    }
}

/* A small generator for the kill delays (xorshift32). */
static unsigned next_random(unsigned *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Seconds on the monotonic clock. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Temporary files in folder d whose name holds ".tmp-<pid>-". */
static int count_tmp_of(const char *d, long pid)
{
    DIR *dd = opendir(d);
    struct dirent *de;
    char mark[40];
    int n = 0;
    snprintf(mark, sizeof mark, ".tmp-%ld-", pid);
    if (!dd)
        return -1;
    while ((de = readdir(dd)) != NULL)
        if (strstr(de->d_name, mark))
            n++;
    closedir(dd);
    return n;
}

/* Temporary files in folder d whose writer (the pid in the name) has
 * ended: what a sweep should have removed. */
static int count_tmp_of_dead(const char *d)
{
    DIR *dd = opendir(d);
    struct dirent *de;
    int n = 0;
    if (!dd)
        return -1;
    while ((de = readdir(dd)) != NULL) {
        const char *t = strstr(de->d_name, ".tmp-");
        long pid = t ? strtol(t + 5, NULL, 10) : 0;
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            n++;
    }
    closedir(dd);
    return n;
}

/* What the parent has heard from one writer child. */
typedef struct heard {
    long started, done; /* last generation begun and finished, or -1 */
    long written;       /* writes finished                          */
} heard;

/* Takes one report into h. */
static void take(heard *h, const report *r)
{
    if (r->kind == 1)
        h->started = r->gen;
    else if (r->kind == 2) {
        h->done = r->gen;
        h->written++;
    }
}

/*
 * SIGKILL a writer 500 times after 0 to 3 ms of writing (every fifth time
 * counted from its first finished write, so finished writes are always
 * among those checked, however slow the disk).  After each kill the
 * snapshot must read without recovery (PATH is never torn), be whole, be
 * no older than the last generation any writer reported written, and no
 * newer than the one the killed writer had started; PATH.prev must be
 * whole and not newer.  Where the kill landed is read from the files: the
 * writer's temporary file still there (killed while writing it, before the
 * rename), its new generation in PATH (after the rename), or neither.
 * Leftovers never pile up: each writer's first write sweeps those of the
 * killed ones (a pid the system has already reused keeps its file).
 */
static void test_kill(void)
{
    char sub[300], p[400], prev[420];
    long completed = 0, next = 1, written_total = 0;
    int kills, in_tmp = 0, landed = 0, other = 0, idle = 0, before_first = 0;
    int bad = 0, max_tmp = 0;
    unsigned seed = 0x5eed1234u;
    const char *env = getenv("SDUI_SNAPSHOT_SEED");
    double t0 = now_s();

    if (env)
        seed = (unsigned)strtoul(env, NULL, 10);
    if (seed == 0)
        seed = 1;
    printf("kill test seed %u (SDUI_SNAPSHOT_SEED)\n", seed);
    snprintf(sub, sizeof sub, "%s", path_for("kill"));
    CHECK(mkdir(sub, 0700) == 0);
    snprintf(p, sizeof p, "%s/state.json", sub);
    snprintf(prev, sizeof prev, "%s.prev", p);

    for (kills = 0; kills < 500; kills++) {
        int fds[2], status, rec = -1, tmp;
        heard h = {-1, -1, 0};
        long g = -1;
        struct timespec delay;
        report r;
        pid_t pid;
        sdui_json_doc *doc = NULL;
        sdui_error err;
        sdui_status st;

        if (pipe(fds) != 0)
            break;
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
            close(fds[0]);
            kill_child(p, fds[1], next);
        }
        close(fds[1]);
        /* Time from the moment the child runs, not from the fork. */
        if (read(fds[0], &r, sizeof r) != (ssize_t)sizeof r || r.kind != 0)
            CHECKF(0, "child %d did not start", kills);
        if (kills % 5 == 4)
            while (h.done < 0 && read(fds[0], &r, sizeof r) == (ssize_t)sizeof r)
                take(&h, &r);
        delay.tv_sec = 0;
        delay.tv_nsec = (long)(next_random(&seed) % 3001u) * 1000L;
        nanosleep(&delay, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
               "writer %d ended by itself (status %d)", kills, status);
        while (read(fds[0], &r, sizeof r) == (ssize_t)sizeof r)
            take(&h, &r);
        close(fds[0]);
        written_total += h.written;

        st = sdui_snapshot_read(p, 8, &doc, &rec, &err);
        if (st == SDUI_NOT_FOUND && completed == 0 && h.done < 0) {
            before_first++; /* killed before the very first write landed */
        } else {
            g = st == SDUI_OK ? gen_of(doc) : -1;
            if (st != SDUI_OK || rec != 0 || g < 0 || g < completed ||
                g < h.done || (h.started >= 0 && g > h.started) ||
                (h.started < 0 && g >= next)) {
                if (bad++ < 5)
                    CHECKF(0, "kill %d: %s recovered %d gen %ld; written %ld, "
                              "this writer started %ld done %ld: %s",
                           kills, sdui_status_name(st), rec, g, completed,
                           h.started, h.done, err.message);
            }
        }
        sdui_json_doc_free(doc);
        doc = NULL;
        /* PATH.prev, once there, is whole and not newer than PATH. */
        if (g >= 0 && access(prev, F_OK) == 0) {
            long pg;
            st = sdui_snapshot_read(prev, 8, &doc, &rec, &err);
            pg = st == SDUI_OK ? gen_of(doc) : -1;
            if (st != SDUI_OK || rec != 0 || pg < 0 || pg > g)
                if (bad++ < 5)
                    CHECKF(0, "kill %d: PATH.prev %s gen %ld (PATH %ld): %s",
                           kills, sdui_status_name(st), pg, g, err.message);
            sdui_json_doc_free(doc);
        }

        /* Where the kill landed. */
        if (h.started <= h.done)
            idle++; /* between two writes */
        else if (g == h.started)
            landed++;
        else if (count_tmp_of(sub, (long)pid) > 0)
            in_tmp++;
        else
            other++; /* serialising, sweeping, or creating the file */
        tmp = count_tmp(sub);
        if (tmp > max_tmp)
            max_tmp = tmp;
        if (h.done > completed)
            completed = h.done;
        if (h.started >= next)
            next = h.started + 1;
    }
    printf("kill test: %d kills in %.1f s; %ld writes finished (last "
           "generation %ld); killed inside a write %d times: %d with its "
           "temporary file written or being written, %d after the rename "
           "(the new value landed, the call had not returned), %d before "
           "the temporary file; %d between writes, %d before any snapshot "
           "existed; at most %d temporary files at once\n",
           kills, now_s() - t0, written_total, completed,
           in_tmp + landed + other, in_tmp, landed, other, idle,
           before_first, max_tmp);
    CHECK_EQ_INT(kills, 500);
    CHECK_EQ_INT(bad, 0);
    CHECK(written_total >= 100);
    CHECK(max_tmp <= 8);
    /* A last write sweeps what the killed writers left. */
    CHECK(write_gen(p, next) == SDUI_OK);
    CHECK_EQ_INT(count_tmp_of_dead(sub), 0);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char cmd[300];
    snprintf(dir, sizeof dir, "%s/sdui-snapshot-XXXXXX",
             tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_prev_holds_first();
    test_torn();
    test_checksum();
    test_damaged_path_not_kept();
    test_both_bad_and_missing();
    test_not_a_snapshot();
    test_write_failures();
    test_unreadable_not_replaced();
    test_mode_of_replaced();
    test_size_bound();
    test_lock();
    test_unreadable_trees_refused();
    test_arguments();
    test_depth();
    test_leftovers_swept();
    test_reads_beside_writes();
    test_allocation_failures();
    test_kill();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
    return check_summary();
}
