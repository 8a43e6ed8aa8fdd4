/*
 * fuzz_snapshot.c - libFuzzer harness for sdui_snapshot_read (snapshot.h):
 * hostile contents of a snapshot file PATH and of its PATH.prev, and the
 * round trip of whatever reads as good through sdui_snapshot_write.
 *
 * The input.  Byte 0 holds flags; the rest is PATH's bytes, the separator
 * "\n@prev@\n" (which no snapshot file holds: a raw newline cannot stand
 * inside a JSON string and '@' nowhere outside one), then PATH.prev's
 * bytes.  Without a separator all of the rest is PATH's and PATH.prev's
 * bytes are empty.  Flags:
 *   bits 0-1  what PATH is: 0 absent, 1 a file of its bytes, 2 the same
 *             with the 8 checksum digits set right when the bytes have the
 *             envelope's frame (so mutations of the value get past the
 *             CRC and reach the value's parser), 3 an empty directory;
 *   bits 2-3  the same for PATH.prev;
 *   bit 4     read with max_depth = the top three bits (0 to 7) instead
 *             of SDUI_DEFAULT_MAX_DEPTH.
 * The files live in one directory per process, named after the fuzzer's
 * pid ("fuzz_snapshot-<pid>", on /dev/shm when there is one), made once,
 * emptied before each input and removed at exit.
 *
 * The oracle.  The harness checks each file on its own the way snapshot.h
 * describes the form, with its own code: absent is NOT_FOUND, a directory
 * IO (EISDIR); a file is good only if it is exactly the header, 8
 * lowercase hex digits equal to its own CRC-32 (computed here, bit by bit)
 * of the value's bytes, the separator, the value and "}\n" -- otherwise
 * CORRUPT -- and then its value is what sdui_json_doc_parse makes of those
 * bytes at max_depth (SDUI_LIMIT stays LIMIT, SDUI_JSON is CORRUPT).  The
 * two outcomes combine as the header says (PATH good; PATH LIMIT or IO, an
 * error without reading PATH.prev; PATH.prev good, recovered; both
 * missing; PATH.prev LIMIT; a corrupt one; else IO) into the status the
 * read must return.  Nothing may crash, leak or hit
 * undefined behaviour, and these must hold:
 *   - the status is the oracle's, and one of OK, NOT_FOUND, CORRUPT, IO,
 *     LIMIT (OOM stops the checks: nothing here fails allocations);
 *   - on SDUI_OK *out is a document whose tree equals, members in order,
 *     the oracle's tree of the file it came from; recovered is 1 exactly
 *     when that file is PATH.prev; err is clear when recovered is 0 and
 *     otherwise holds PATH's fault (its status, code, position) with a
 *     message naming PATH;
 *   - on an error *out is NULL, recovered 0, err.status the status, the
 *     message NUL-terminated, non-empty and naming PATH, code EISDIR for
 *     IO and 0 otherwise, and the position either none (-1, line and
 *     column 0) or inside the file that gave the status;
 *   - a second read gives the same status, recovered, error record and
 *     tree; a read with recovered and err NULL the same status and tree;
 *   - the reads change neither file;
 *   - on SDUI_OK the document is written with sdui_snapshot_write to a
 *     fresh path BACK: that succeeds, the file is in the form above with a
 *     right checksum and mode 0600, and reading it gives an equal tree
 *     (members compared by name: the writer sorts them); writing that tree
 *     again gives the same bytes and keeps the first file as BACK.prev,
 *     byte for byte; with BACK removed, the read recovers the same tree
 *     from BACK.prev; and no temporary file is left in the directory.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 *
 * Seeds.  With FUZZ_SNAPSHOT_SEEDS=DIR in the environment the binary does
 * not fuzz: it writes real snapshot files of a few values with
 * sdui_snapshot_write (each value written over the one before, so the
 * PATH.prev beside it is a real one too), wraps them as inputs of the
 * layout above into DIR, with torn, checksum-flipped, value-flipped,
 * re-enveloped, missing, directory and too-deep variants, and exits
 * (Tests/Fuzz/run.sh does this before fuzzing).  Encoder and decoder of
 * the layout so stay in one file.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sdui/sdui.h"

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_snapshot: invariant broken at line %d: %s\n", line,
            what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* The form of snapshot.h, written out here on purpose rather than taken
 * from the library: HEAD, 8 lowercase hex digits, MID, value, TAIL. */
_Static_assert(SDUI_SNAPSHOT_VERSION == 1, "the form below is version 1's");
#define HEAD "{\"format\":\"sdui-snapshot\",\"version\":1,\"crc32\":\""
#define MID "\",\"data\":"
#define TAIL "}\n"
#define HEAD_LEN (sizeof HEAD - 1)
#define MID_LEN (sizeof MID - 1)
#define TAIL_LEN (sizeof TAIL - 1)
#define DATA_AT (HEAD_LEN + 8 + MID_LEN)

/* Splits PATH's bytes from PATH.prev's in an input. */
#define SEP "\n@prev@\n"
#define SEP_LEN (sizeof SEP - 1)

/* What a file named in an input is (two bits of the flags). */
enum kind { ABSENT = 0, FILE_AS_IS = 1, FILE_CRC_SET = 2, DIRECTORY = 3 };

/* Flags of byte 0. */
#define PATH_KIND(f) ((enum kind)((f) & 3))
#define PREV_KIND(f) ((enum kind)(((f) >> 2) & 3))
#define SMALL_DEPTH 0x10
#define DEPTH_OF(f) ((unsigned)(f) >> 5)

/* ------------------------------------------------------------------ */
/* The per-process directory                                           */
/* ------------------------------------------------------------------ */

#include "fuzz_folder.h"
#include "../C/value_eq.h"

static char snap_path[320], prev_path[320], back_path[320], back_prev[320];

/* Makes this process's folder once (fuzz_folder.h) and names the files the
 * harness writes in it. */
static void make_folder(void)
{
    fuzz_folder_make("fuzz_snapshot", "snap");
    snprintf(snap_path, sizeof snap_path, "%s", fuzz_file);
    snprintf(prev_path, sizeof prev_path, "%s/snap.prev", fuzz_dir);
    snprintf(back_path, sizeof back_path, "%s/back", fuzz_dir);
    snprintf(back_prev, sizeof back_prev, "%s/back.prev", fuzz_dir);
}

/* ------------------------------------------------------------------ */
/* Files                                                                */
/* ------------------------------------------------------------------ */

/* Writes bytes[0, len) as the file at path (replacing it). */
static void write_file(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    REQUIRE(len == 0 || fwrite(bytes, 1, len, f) == len);
    REQUIRE(fclose(f) == 0);
}

/* The whole file at path in new memory (*len; a NUL follows), or NULL
 * when it does not exist. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, used = 0, got;
    *len = 0;
    if (!f) {
        REQUIRE(errno == ENOENT);
        return NULL;
    }
    do {
        if (cap - used < 4096) {
            cap = cap ? cap * 2 : 8192;
            buf = realloc(buf, cap + 1);
            REQUIRE(buf != NULL);
        }
        got = fread(buf + used, 1, cap - used, f);
        used += got;
    } while (got > 0);
    REQUIRE(!ferror(f));
    fclose(f);
    buf[used] = '\0';
    *len = used;
    return buf;
}

/* ------------------------------------------------------------------ */
/* The form, checked here                                               */
/* ------------------------------------------------------------------ */

/* The CRC-32 of gzip (reflected 0xEDB88320), bit by bit: slow and plain,
 * so that it shares nothing with the library's. */
static uint32_t crc32_of(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    int k;
    while (len--) {
        c ^= *p++;
        for (k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
}

/* 1 if text[0, len) has the envelope's frame: HEAD, eight bytes, MID,
 * and TAIL at its end (the value between may be anything). */
static int framed(const char *text, size_t len)
{
    return len >= DATA_AT + TAIL_LEN && memcmp(text, HEAD, HEAD_LEN) == 0 &&
           memcmp(text + HEAD_LEN + 8, MID, MID_LEN) == 0 &&
           memcmp(text + len - TAIL_LEN, TAIL, TAIL_LEN) == 0;
}

/* Sets the checksum digits of a framed text right for its value. */
static void set_crc(char *text, size_t len)
{
    char digits[9];
    snprintf(digits, sizeof digits, "%08lx",
             (unsigned long)crc32_of(text + DATA_AT, len - DATA_AT - TAIL_LEN));
    memcpy(text + HEAD_LEN, digits, 8);
}

/* 1 if text[0, len) is framed and its checksum digits are the lowercase
 * hex of its value's CRC-32. */
static int checks_out(const char *text, size_t len)
{
    char digits[9];
    if (!framed(text, len))
        return 0;
    snprintf(digits, sizeof digits, "%08lx",
             (unsigned long)crc32_of(text + DATA_AT, len - DATA_AT - TAIL_LEN));
    return memcmp(text + HEAD_LEN, digits, 8) == 0;
}

/* What the oracle expects of one file. */
typedef struct expect {
    sdui_status status;  /* as read_one would answer for this file alone */
    sdui_json_doc *doc;  /* its tree, when status is SDUI_OK             */
    size_t len;          /* the file's length (0 when not a file)        */
} expect;

/* The oracle for one file of the given kind and contents. */
static void expect_one(enum kind kind, const char *text, size_t len,
                       unsigned max_depth, expect *x)
{
    sdui_error err;
    sdui_status st;
    x->doc = NULL;
    x->len = 0;
    if (kind == ABSENT) {
        x->status = SDUI_NOT_FOUND;
        return;
    }
    if (kind == DIRECTORY) {
        x->status = SDUI_IO;
        return;
    }
    x->len = len;
    if (!checks_out(text, len)) {
        x->status = SDUI_CORRUPT;
        return;
    }
    st = sdui_json_doc_parse(text + DATA_AT, len - DATA_AT - TAIL_LEN,
                             max_depth, &x->doc, &err);
    x->status = st == SDUI_JSON ? SDUI_CORRUPT : st;
}

/* ------------------------------------------------------------------ */
/* Trees                                                                */
/* ------------------------------------------------------------------ */

/* 1 if two documents (either may be NULL) hold the same tree: decimals bit
 * for bit, members in the same order when ordered is 1, by name otherwise
 * (value_eq.h). */
static int same_doc(const sdui_json_doc *a, const sdui_json_doc *b, int ordered)
{
    if (!a || !b)
        return a == b;
    return value_match(sdui_json_doc_root(a), sdui_json_doc_root(b),
                       VALUE_BITS | (ordered ? VALUE_ORDER : 0));
}

/* ------------------------------------------------------------------ */
/* Reads and their records                                              */
/* ------------------------------------------------------------------ */

/* One read of PATH as the harness makes it. */
typedef struct outcome {
    sdui_status status;
    sdui_json_doc *doc;
    int recovered;
    sdui_error err;
} outcome;

/* Reads path at max_depth with every out-parameter primed with garbage. */
static void read_snapshot(const char *path, unsigned max_depth, outcome *o)
{
    o->doc = (sdui_json_doc *)&o->doc; /* must be overwritten */
    o->recovered = 7;
    memset(&o->err, 0x5A, sizeof o->err);
    o->status = sdui_snapshot_read(path, max_depth, &o->doc, &o->recovered,
                                   &o->err);
}

/* 1 if two error records are the same. */
static int same_record(const sdui_error *a, const sdui_error *b)
{
    return a->status == b->status && a->code == b->code &&
           a->offset == b->offset && a->line == b->line &&
           a->column == b->column && strcmp(a->message, b->message) == 0;
}

/* Checks the record of a fault: its status, the message naming path, the
 * code (EISDIR for IO: a directory is the only unreadable thing here) and
 * the position, none or inside the file of length len that gave it. */
static void check_fault(const sdui_error *err, sdui_status status,
                        const char *path, size_t len)
{
    REQUIRE(err->status == status);
    REQUIRE(memchr(err->message, '\0', sizeof err->message) != NULL);
    REQUIRE(err->message[0] != '\0');
    REQUIRE(strstr(err->message, path) != NULL);
    REQUIRE(err->code == (status == SDUI_IO ? EISDIR : 0));
    if (err->offset == -1) {
        REQUIRE(err->line == 0 && err->column == 0);
    } else {
        REQUIRE(err->offset >= 0 && (unsigned long long)err->offset <= len);
        REQUIRE(err->line >= 1 && err->column >= 1);
    }
}

/* 1 if the folder holds no names but PATH's, PATH.prev's, BACK's and
 * BACK.prev's (no temporary file left by a write). */
static int folder_clean(void)
{
    DIR *dir = opendir(fuzz_dir);
    struct dirent *e;
    int clean = 1;
    REQUIRE(dir != NULL);
    while ((e = readdir(dir)) != NULL) {
        const char *n = e->d_name;
        if (strcmp(n, ".") && strcmp(n, "..") && strcmp(n, "snap") &&
            strcmp(n, "snap.prev") && strcmp(n, "back") &&
            strcmp(n, "back.prev")) {
            fprintf(stderr, "fuzz_snapshot: left in the folder: %s\n", n);
            clean = 0;
        }
    }
    closedir(dir);
    return clean;
}

/*
 * The round trip of a document that read as good: write it to BACK, read
 * it back, write that again (same bytes, the first kept as BACK.prev),
 * remove BACK and recover from BACK.prev.  See the top.
 */
static void round_trip(const sdui_json_doc *doc, unsigned max_depth)
{
    sdui_error err;
    sdui_status st;
    outcome o, o2;
    struct stat sb;
    char *first;
    size_t first_len;
    sdui_json_doc *canon = NULL;

    memset(&err, 0x5A, sizeof err);
    st = sdui_snapshot_write(back_path, doc, &err);
    if (st == SDUI_OOM)
        return;
    REQUIRE(st == SDUI_OK);
    REQUIRE(err.status == SDUI_OK && err.message[0] == '\0');
    first = read_file(back_path, &first_len);
    REQUIRE(first != NULL);
    REQUIRE(checks_out(first, first_len));
    REQUIRE(stat(back_path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    REQUIRE(access(back_prev, F_OK) != 0);

    /* Read back: the same tree (the writer sorts members: compare by
     * name), and the tree of the value's bytes, in order. */
    read_snapshot(back_path, max_depth, &o);
    if (o.status == SDUI_OOM) {
        free(first);
        return;
    }
    REQUIRE(o.status == SDUI_OK && o.recovered == 0);
    REQUIRE(o.err.status == SDUI_OK && o.err.message[0] == '\0');
    REQUIRE(same_doc(doc, o.doc, 0));
    st = sdui_json_doc_parse(first + DATA_AT, first_len - DATA_AT - TAIL_LEN,
                             max_depth, &canon, &err);
    REQUIRE(st == SDUI_OK || st == SDUI_OOM);
    if (st == SDUI_OK)
        REQUIRE(same_doc(canon, o.doc, 1));
    sdui_json_doc_free(canon);

    /* Again: the written form is a fixed point, and the first file is
     * kept as BACK.prev. */
    st = sdui_snapshot_write(back_path, o.doc, &err);
    if (st == SDUI_OK) {
        REQUIRE(file_is(back_path, (const uint8_t *)first, first_len));
        REQUIRE(file_is(back_prev, (const uint8_t *)first, first_len));
        REQUIRE(stat(back_path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
        /* BACK gone: the read recovers the same tree from BACK.prev. */
        REQUIRE(unlink(back_path) == 0);
        read_snapshot(back_path, max_depth, &o2);
        if (o2.status != SDUI_OOM) {
            REQUIRE(o2.status == SDUI_OK && o2.recovered == 1);
            check_fault(&o2.err, SDUI_NOT_FOUND, back_path, 0);
            REQUIRE(o2.err.offset == -1);
            REQUIRE(same_doc(o.doc, o2.doc, 1));
        }
        sdui_json_doc_free(o2.doc);
    } else {
        REQUIRE(st == SDUI_OOM);
    }
    REQUIRE(folder_clean());
    sdui_json_doc_free(o.doc);
    free(first);
}

/* ------------------------------------------------------------------ */
/* One input                                                            */
/* ------------------------------------------------------------------ */

/* Finds SEP in p[0, n): its index, or n. */
static size_t find_sep(const uint8_t *p, size_t n)
{
    size_t i;
    if (n < SEP_LEN)
        return n;
    for (i = 0; i + SEP_LEN <= n; i++)
        if (p[i] == '\n' && memcmp(p + i, SEP, SEP_LEN) == 0)
            return i;
    return n;
}

/* Puts one file of an input in place: nothing, its bytes (with the
 * checksum set right when asked and framed), or an empty directory.  The
 * bytes as written go to *text (malloc'd copy) for the oracle. */
static void place(const char *path, enum kind kind, const uint8_t *bytes,
                  size_t len, char **text)
{
    *text = malloc(len + 1);
    REQUIRE(*text != NULL);
    if (len)
        memcpy(*text, bytes, len);
    (*text)[len] = '\0';
    switch (kind) {
    case ABSENT:
        break;
    case FILE_CRC_SET:
        if (framed(*text, len))
            set_crc(*text, len);
        /* fall through */
    case FILE_AS_IS:
        write_file(path, *text, len);
        break;
    case DIRECTORY:
        REQUIRE(mkdir(path, 0700) == 0);
        break;
    }
}

/* libFuzzer entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned flags, max_depth;
    enum kind k1, k2;
    size_t rest, sep, len1, len2;
    const uint8_t *bytes1, *bytes2;
    char *text1, *text2;
    expect x1, x2;
    sdui_status want, want_fault = SDUI_OK;
    int want_recovered = 0;
    const expect *from = NULL, *why = NULL;
    outcome o, again, bare;

    if (size == 0)
        return 0;
    if (!fuzz_dir[0])
        make_folder();
    fuzz_folder_empty();

    flags = data[0];
    k1 = PATH_KIND(flags);
    k2 = PREV_KIND(flags);
    max_depth = (flags & SMALL_DEPTH) ? DEPTH_OF(flags) : SDUI_DEFAULT_MAX_DEPTH;
    rest = size - 1;
    bytes1 = data + 1;
    sep = find_sep(bytes1, rest);
    len1 = sep;
    bytes2 = sep < rest ? bytes1 + sep + SEP_LEN : bytes1 + rest;
    len2 = sep < rest ? rest - sep - SEP_LEN : 0;
    place(snap_path, k1, bytes1, len1, &text1);
    place(prev_path, k2, bytes2, len2, &text2);

    /* The oracle, combined as snapshot.h says. */
    expect_one(k1, text1, len1, max_depth, &x1);
    expect_one(k2, text2, len2, max_depth, &x2);
    if (x1.status == SDUI_OK) {
        want = SDUI_OK;
        from = &x1;
    } else if (x1.status == SDUI_LIMIT || x1.status == SDUI_OOM ||
               x1.status == SDUI_IO) {
        /* Not read in PATH's place: PATH.prev may be older. */
        want = x1.status;
        why = &x1;
    } else if (x2.status == SDUI_OK) {
        want = SDUI_OK;
        want_recovered = 1;
        want_fault = x1.status;
        from = &x2;
        why = &x1;
    } else if (x1.status == SDUI_NOT_FOUND && x2.status == SDUI_NOT_FOUND) {
        want = SDUI_NOT_FOUND;
        why = &x1;
    } else if (x2.status == SDUI_OOM || x2.status == SDUI_LIMIT) {
        want = x2.status;
        why = &x2;
    } else {
        want = x1.status == SDUI_CORRUPT || x2.status == SDUI_CORRUPT
                   ? SDUI_CORRUPT
                   : SDUI_IO;
        why = x1.status == want ? &x1 : &x2;
    }

    read_snapshot(snap_path, max_depth, &o);
    if (o.status == SDUI_OOM || want == SDUI_OOM)
        goto done;
    REQUIRE(o.status == SDUI_OK || o.status == SDUI_NOT_FOUND ||
            o.status == SDUI_CORRUPT || o.status == SDUI_IO ||
            o.status == SDUI_LIMIT);
    if (o.status != want) {
        fprintf(stderr, "fuzz_snapshot: read says %s, expected %s: %s\n",
                sdui_status_name(o.status), sdui_status_name(want),
                o.err.message);
        REQUIRE(o.status == want);
    }
    if (o.status == SDUI_OK) {
        REQUIRE(o.doc != NULL && sdui_json_doc_root(o.doc) != NULL);
        REQUIRE(o.recovered == want_recovered);
        REQUIRE(same_doc(o.doc, from->doc, 1));
        if (o.recovered)
            check_fault(&o.err, want_fault, snap_path, why->len);
        else
            REQUIRE(o.err.status == SDUI_OK && o.err.message[0] == '\0' &&
                    o.err.offset == -1 && o.err.code == 0);
    } else {
        REQUIRE(o.doc == NULL);
        REQUIRE(o.recovered == 0);
        check_fault(&o.err, o.status, snap_path, why->len);
    }

    /* The same again, and without recovered and err. */
    read_snapshot(snap_path, max_depth, &again);
    if (again.status != SDUI_OOM) {
        REQUIRE(again.status == o.status && again.recovered == o.recovered);
        REQUIRE(same_record(&again.err, &o.err));
        REQUIRE(same_doc(again.doc, o.doc, 1));
    }
    sdui_json_doc_free(again.doc);
    bare.doc = (sdui_json_doc *)&bare.doc;
    bare.status = sdui_snapshot_read(snap_path, max_depth, &bare.doc, NULL,
                                     NULL);
    if (bare.status != SDUI_OOM) {
        REQUIRE(bare.status == o.status);
        REQUIRE(same_doc(bare.doc, o.doc, 1));
    }
    sdui_json_doc_free(bare.doc);

    /* Reads change nothing. */
    if (k1 == FILE_AS_IS || k1 == FILE_CRC_SET)
        REQUIRE(file_is(snap_path, (const uint8_t *)text1, len1));
    if (k2 == FILE_AS_IS || k2 == FILE_CRC_SET)
        REQUIRE(file_is(prev_path, (const uint8_t *)text2, len2));

    if (o.status == SDUI_OK)
        round_trip(o.doc, max_depth);

done:
    if (o.status == SDUI_OK)
        sdui_json_doc_free(o.doc);
    sdui_json_doc_free(x1.doc);
    sdui_json_doc_free(x2.doc);
    free(text1);
    free(text2);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Seeds                                                                */
/* ------------------------------------------------------------------ */

/* The values the seeds hold, as JSON text: every type, the edges of the
 * integer and double ranges, escapes, sorting, nesting. */
static const char *const seed_values[] = {
    "null",
    "true",
    "0",
    "-9223372036854775808",
    "9223372036854775807",
    "1.5",
    "-0.0",
    "1.7976931348623157e308",
    "5e-324",
    "0.1",
    "\"h\\u00e9llo \\\"w\\\"\\n\\t\\u0000 \\u2028 \\ud83d\\ude00\"",
    "[]",
    "{}",
    "{\"zeta\":1,\"alpha\":[true,false,null],\"\\u00e9t\\u00e9\":\"x\","
    "\"\":{},\"Z\":-1}",
    "{\"user\":{\"name\":\"Ada\",\"age\":36,\"tags\":[\"a\",\"b\"]},"
    "\"cart\":{\"items\":[{\"sku\":\"x1\",\"price\":9.99,\"qty\":2},"
    "{\"sku\":\"y2\",\"price\":0.1,\"qty\":1}],\"total\":20.08},"
    "\"flags\":{\"beta\":true,\"dark\":false,\"none\":null}}",
    "[[[[[[[[[[[[\"twelve deep\"]]]]]]]]]]]]",
    "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":[1,{\"f\":2.5}]}}}}}",
};
#define NSEED_VALUES (sizeof seed_values / sizeof seed_values[0])

/* Where seeds are written, and how many so far. */
static const char *seed_dir;
static unsigned seed_count;

/* Writes one seed: flags, then a (PATH's bytes) and, when b is given,
 * SEP and b. */
static void seed(const char *label, unsigned flags, const char *a,
                 size_t alen, const char *b, size_t blen)
{
    char path[1024];
    unsigned char f = (unsigned char)flags;
    FILE *out;
    snprintf(path, sizeof path, "%s/snapshot-%03u-%s", seed_dir, seed_count++,
             label);
    out = fopen(path, "wb");
    REQUIRE(out != NULL);
    REQUIRE(fwrite(&f, 1, 1, out) == 1);
    REQUIRE(alen == 0 || fwrite(a, 1, alen, out) == alen);
    if (b) {
        REQUIRE(fwrite(SEP, 1, SEP_LEN, out) == SEP_LEN);
        REQUIRE(blen == 0 || fwrite(b, 1, blen, out) == blen);
    }
    REQUIRE(fclose(out) == 0);
}

/* Flags of a seed: PATH's kind, PATH.prev's kind, and a small depth
 * (-1: the default). */
static unsigned seed_flags(enum kind k1, enum kind k2, int depth)
{
    unsigned f = (unsigned)k1 | (unsigned)k2 << 2;
    if (depth >= 0)
        f |= SMALL_DEPTH | (unsigned)depth << 5;
    return f;
}

/* A copy of text[0, len) with the first occurrence of from replaced by to
 * (*out_len), or NULL when from is not there. */
static char *replaced(const char *text, size_t len, const char *from,
                      const char *to, size_t *out_len)
{
    const char *at = strstr(text, from);
    size_t fl = strlen(from), tl = strlen(to);
    char *out;
    (void)len;
    if (!at)
        return NULL;
    *out_len = len - fl + tl;
    out = malloc(*out_len + 1);
    REQUIRE(out != NULL);
    memcpy(out, text, (size_t)(at - text));
    memcpy(out + (at - text), to, tl);
    memcpy(out + (at - text) + tl, at + fl, len - (size_t)(at - text) - fl);
    out[*out_len] = '\0';
    return out;
}

/* The variants of one real pair (cur is PATH, prev its PATH.prev, both
 * written by the library) that a damaged or hand-made PATH gives. */
static void seed_damage(const char *name, const char *cur, size_t cur_len,
                        const char *prev, size_t prev_len)
{
    char label[128], *t;
    size_t tl, i;
    const enum kind F = FILE_AS_IS;

#define LABEL(what) (snprintf(label, sizeof label, "%s-%s", name, what), label)
    /* Torn: cut at several places, with the good PATH.prev and alone. */
    {
        size_t cuts[] = {1, HEAD_LEN + 3, DATA_AT, cur_len / 2, cur_len - 2,
                         cur_len - 1};
        for (i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
            if (cuts[i] >= cur_len)
                continue;
            seed(LABEL("torn"), seed_flags(F, F, -1), cur, cuts[i], prev,
                 prev_len);
        }
        seed(LABEL("torn-alone"), seed_flags(F, ABSENT, -1), cur, cur_len / 2,
             NULL, 0);
        seed(LABEL("both-torn"), seed_flags(F, F, -1), cur, cur_len - 1, prev,
             prev_len / 2);
    }
    /* A checksum digit changed. */
    t = malloc(cur_len + 1);
    REQUIRE(t != NULL);
    memcpy(t, cur, cur_len + 1);
    t[HEAD_LEN + 7] = t[HEAD_LEN + 7] == '0' ? '1' : '0';
    seed(LABEL("crc-flipped"), seed_flags(F, F, -1), t, cur_len, prev,
         prev_len);
    /* Uppercase hex digits: the same number, not the written form. */
    memcpy(t, cur, cur_len + 1);
    for (i = HEAD_LEN; i < HEAD_LEN + 8; i++)
        if (t[i] >= 'a' && t[i] <= 'f')
            t[i] = (char)(t[i] - 'a' + 'A');
    seed(LABEL("crc-upper"), seed_flags(F, F, -1), t, cur_len, prev,
         prev_len);
    /* A byte of the value changed, the checksum left (refused) or set
     * right (a value that reads, or one that is not JSON). */
    memcpy(t, cur, cur_len + 1);
    t[DATA_AT] = t[DATA_AT] == '[' ? '{' : '[';
    seed(LABEL("data-flipped"), seed_flags(F, F, -1), t, cur_len, prev,
         prev_len);
    seed(LABEL("data-flipped-crc-set"), seed_flags(FILE_CRC_SET, F, -1), t,
         cur_len, prev, prev_len);
    free(t);
    /* PATH missing, or a directory. */
    seed(LABEL("path-missing"), seed_flags(ABSENT, F, -1), "", 0, prev,
         prev_len);
    seed(LABEL("path-dir"), seed_flags(DIRECTORY, F, -1), "", 0, prev,
         prev_len);
    seed(LABEL("path-dir-alone"), seed_flags(DIRECTORY, ABSENT, -1), "", 0,
         NULL, 0);
    seed(LABEL("both-dir"), seed_flags(DIRECTORY, DIRECTORY, -1), "", 0, "",
         0);
    seed(LABEL("dir-and-torn"), seed_flags(DIRECTORY, F, -1), "", 0, prev,
         prev_len / 2);
    /* Made or edited by hand: the value alone, a spaced envelope, another
     * version, another format, an empty file. */
    seed(LABEL("plain"), seed_flags(F, F, -1), cur + DATA_AT,
         cur_len - DATA_AT - TAIL_LEN, prev, prev_len);
    if ((t = replaced(cur, cur_len, MID, "\", \"data\": ", &tl))) {
        seed(LABEL("spaced"), seed_flags(F, F, -1), t, tl, prev, prev_len);
        free(t);
    }
    if ((t = replaced(cur, cur_len, "\"version\":1", "\"version\":2", &tl))) {
        seed(LABEL("version-2"), seed_flags(F, F, -1), t, tl, prev, prev_len);
        free(t);
    }
    if ((t = replaced(cur, cur_len, "sdui-snapshot", "sdui-snapshop", &tl))) {
        seed(LABEL("format"), seed_flags(F, F, -1), t, tl, prev, prev_len);
        free(t);
    }
    seed(LABEL("empty"), seed_flags(F, F, -1), "", 0, prev, prev_len);
    /* Without its final newline, or with one more. */
    seed(LABEL("no-newline"), seed_flags(F, F, -1), cur, cur_len - 1, prev,
         prev_len);
    t = malloc(cur_len + 2);
    REQUIRE(t != NULL);
    memcpy(t, cur, cur_len);
    t[cur_len] = '\n';
    seed(LABEL("two-newlines"), seed_flags(F, F, -1), t, cur_len + 1, prev,
         prev_len);
    free(t);
#undef LABEL
}

/* Writes v to path with the library, then returns the file's bytes. */
static char *written(const char *path, const char *v, size_t *len)
{
    sdui_json_doc *doc = NULL;
    sdui_error err;
    char *bytes;
    REQUIRE(sdui_json_doc_parse(v, strlen(v), SDUI_DEFAULT_MAX_DEPTH, &doc,
                                &err) == SDUI_OK);
    REQUIRE(sdui_snapshot_write(path, doc, &err) == SDUI_OK);
    sdui_json_doc_free(doc);
    bytes = read_file(path, len);
    REQUIRE(bytes != NULL);
    return bytes;
}

/* Writes the seed inputs into dir (see the top). */
static void make_seeds(const char *dir)
{
    size_t i, cur_len, prev_len, one_len;
    char name[32];
    const enum kind F = FILE_AS_IS;
    char *deep = NULL, *flat = NULL;
    size_t deep_len = 0, flat_len = 0;

    seed_dir = dir;
    for (i = 0; i < NSEED_VALUES; i++) {
        const char *next = seed_values[(i + 1) % NSEED_VALUES];
        char *one, *cur, *prev;
        fuzz_folder_empty();
        /* The value alone, then the next one written over it: PATH is the
         * next value and PATH.prev this one, as a real rotation left them. */
        one = written(snap_path, seed_values[i], &one_len);
        cur = written(snap_path, next, &cur_len);
        prev = read_file(prev_path, &prev_len);
        REQUIRE(prev != NULL && prev_len == one_len &&
                memcmp(prev, one, one_len) == 0);
        snprintf(name, sizeof name, "value%02zu", i);
        seed(name, seed_flags(F, ABSENT, -1), one, one_len, NULL, 0);
        seed(name, seed_flags(F, F, -1), cur, cur_len, prev, prev_len);
        seed(name, seed_flags(F, F, 3), cur, cur_len, prev, prev_len);
        /* The damaged forms, for a few of the values. */
        if (i == 5 || i == 10 || i == 13 || i == 14 || i == 15)
            seed_damage(name, cur, cur_len, prev, prev_len);
        if (i == 15) { /* twelve deep */
            deep = one;
            deep_len = one_len;
        } else if (i == 14) { /* the scenario, depth 4 */
            flat = one;
            flat_len = one_len;
        } else {
            free(one);
        }
        free(cur);
        free(prev);
    }
    /* Depth: too deep for max_depth 3 as PATH (no fallback to a good
     * PATH.prev), as PATH.prev behind a torn PATH, and read at depth 0. */
    REQUIRE(deep && flat);
    seed("deep-path", seed_flags(F, F, 3), deep, deep_len, flat, flat_len);
    seed("deep-prev", seed_flags(F, F, 3), flat, flat_len / 2, deep,
         deep_len);
    seed("deep-prev-ok", seed_flags(F, F, 7), flat, 10, flat, flat_len);
    seed("depth-0", seed_flags(F, F, 0), flat, flat_len, deep, deep_len);
    seed("deep-default", seed_flags(F, ABSENT, -1), deep, deep_len, NULL, 0);
    /* A frame around something that is not JSON, checksum set right. */
    {
        const char bad[] = HEAD "00000000" MID "[1,2" TAIL;
        const char dup[] = HEAD "00000000" MID "{\"a\":1,\"a\":2}" TAIL;
        const char spaced[] = HEAD "00000000" MID " [ 1 , 2 ] " TAIL;
        seed("not-json-crc-set", seed_flags(FILE_CRC_SET, F, -1), bad,
             sizeof bad - 1, flat, flat_len);
        seed("repeated-name-crc-set", seed_flags(FILE_CRC_SET, ABSENT, -1),
             dup, sizeof dup - 1, NULL, 0);
        seed("spaced-value-crc-set", seed_flags(FILE_CRC_SET, ABSENT, -1),
             spaced, sizeof spaced - 1, NULL, 0);
    }
    seed("nothing", seed_flags(ABSENT, ABSENT, -1), "", 0, NULL, 0);
    free(deep);
    free(flat);
    fuzz_folder_empty();
}

/* Makes the folder; in seed mode (FUZZ_SNAPSHOT_SEEDS=DIR) writes the
 * seeds and exits. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("FUZZ_SNAPSHOT_SEEDS");
    (void)argc;
    (void)argv;
    make_folder();
    if (dir && dir[0]) {
        make_seeds(dir);
        printf("fuzz_snapshot: %u seeds written to %s\n", seed_count, dir);
        exit(0);
    }
    return 0;
}
