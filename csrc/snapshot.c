/*
 * snapshot.c - a JSON value kept in one file, replaced atomically and
 * checked on read (snapshot.h).
 *
 * What must hold.  The store's "file" scope keeps its whole state in one
 * file.  The process may be killed at any instant (the system kills apps
 * without asking), the disk may hand back a damaged block, and a user may
 * open the file in an editor.  Whatever happened, a read must either give
 * a value that some write really wrote, or say plainly that it cannot;
 * and a write that returned SDUI_OK must not be lost by a later kill.
 *
 * The file.  One line of JSON:
 *
 *     {"format":"sdui-snapshot","version":1,"crc32":"<8 hex>","data":<value>}\n
 *
 * The envelope keeps the file a JSON document a person can read and a
 * tool such as jq can open, and says what the file is and which layout it
 * has, so a later version can tell its own files from older ones.  The
 * value comes last, so the envelope sits at a fixed place in front of it:
 * the header is a fixed string but for the eight checksum digits, and the
 * value's bytes run from there to the closing "}\n".
 *
 * The checksum.  crc32 covers the value's bytes exactly as they stand in
 * the file.  The other way, re-serialising the parsed value on read and
 * checking that, would tie every snapshot to the number formatting of the
 * writer that made it: a version that printed a real differently (as this
 * one does: files written before it have reals with 17 digits) would find
 * every old file "corrupt".  Raw bytes tie the check to nothing but
 * the file, cost one pass of CRC-32 (libdeflate's, gigabytes a second)
 * and no second serialisation, and catch every change of a byte of the
 * value, including those that keep it valid JSON (a digit changed).  A
 * CRC-32 is for accidents, not attackers: anyone who can write the file
 * can write a matching checksum.
 *
 * Reading is strict.  A file is accepted only if it is byte for byte in
 * the written form: the exact header (format, version 1), eight lowercase
 * hex digits, the value, "}\n", and a matching checksum.  Everything else
 * is refused as SDUI_CORRUPT, and only then is the file looked at more
 * closely to say why: empty, not JSON at line:column (a torn write), plain
 * JSON without the envelope (a hand-made file), another format, another
 * version, a malformed checksum, or JSON in the right shape but not as
 * written (reformatted by an editor, or missing its last byte).  So the
 * common path is a memcmp, a CRC and one parse of the value, and the
 * messages are as precise as a full look can make them.
 *
 * Writing.  A file is never changed in place.  The value is serialised
 * here, from the value tree (value.h), not by a library's dump, whose
 * reals go through printf in the process's locale (a two-byte decimal
 * point made every write fail with jansson's): compact, members sorted
 * by name, integers as digits and reals by the one number-to-text rule
 * (number.h: the shortest text that reads back to the same double,
 * whatever the locale).  It is then parsed back by the reader's own
 * parser before anything touches the disk: a value the reader would
 * refuse is refused here, so a write never makes a snapshot that cannot
 * be read.
 * Then, with A the current PATH and B the new value:
 *
 *   0. check A (form and checksum, without building a tree): an A that
 *      exists but cannot be read stops the write, and so does, when A
 *      checks out, a PATH.prev that exists but cannot be opened;
 *   1. create PATH.tmp-<pid>-<n> beside PATH (O_EXCL), write B, fsync;
 *   2. if A checks out: link A to a second temporary name and rename
 *      that over PATH.prev, so PATH.prev is A (PATH still A);
 *   3. rename the temporary file over PATH (PATH is B, PATH.prev is A);
 *   4. fsync the directory, so the renames are on disk before the call
 *      returns.
 *
 * At every instant PATH names a complete file (A until step 3 and B after;
 * rename is atomic), and B's bytes are on disk before any name points at
 * them, so neither a kill nor, on a file system that keeps fsync's promise,
 * a loss of power leaves a torn PATH.  PATH.prev is there for what the
 * protocol cannot prevent: a damaged block, a hand edit, a deleted PATH.
 * Step 2 goes by step 0's check: a damaged PATH is not promoted over a
 * good PATH.prev, so PATH.prev stays the last good snapshot and no instant
 * has two bad files.  It links and renames rather than renaming A away,
 * so PATH never goes missing; where the file system has no hard links, A
 * is renamed to PATH.prev in step 3's place just before B is renamed to
 * PATH, and for that moment a reader finds only PATH.prev (and recovers
 * from it, as it should).
 *
 * Leftovers.  A writer killed between steps 1 and 3 leaves its temporary
 * file.  Each write first removes PATH's temporary files whose writer's
 * pid no longer names a process (kill(pid, 0) says ESRCH), so they do not
 * pile up; a live writer's file, or one whose pid has been reused, stays.
 *
 * Reading.  PATH first; if it is missing or refused, PATH.prev, and the
 * caller hears why PATH was refused.  Two faults do not fall back, because
 * the file may well hold the newest value and an older one in its place
 * would be a silent loss: a value that checks out but nests deeper than
 * the caller's max_depth (SDUI_LIMIT), and a PATH that exists but cannot
 * be read at all (SDUI_IO: permissions, an I/O error, a directory or FIFO
 * in its place).  The second is an error, never "no snapshot": a caller
 * that took it for an empty state and wrote would replace the value it
 * could not see.
 *
 * Bounded reading.  A snapshot file is at most SDUI_SNAPSHOT_MAX_BYTES.
 * The reader opens the file, and before it reads a byte compares the size
 * fstat gives with that bound: a larger file is refused as not a snapshot
 * (no writer made it), whatever it holds, so a 1.5 GB file (sparse or not)
 * costs an open and an fstat.  Then it reads the header (the bytes up to
 * the value) and, when the caller only asks whether the file checks out
 * (the writer's step 2), stops there if the header is not the snapshot's.
 * The rest is read in pieces of at most READ_CHUNK into the one buffer
 * sized by fstat; a file that grows while it is read (nothing here writes
 * in place) is followed only up to the bound.  So the bytes held for a
 * file never exceed the bound, and the time spent is that of reading at
 * most the bound.
 *
 * Unreadable files are not replaced.  The writer checks PATH before it
 * writes anything: a PATH it cannot read is refused (SDUI_IO), and so is a
 * PATH.prev it cannot open when PATH is good and would replace it.  The
 * bits of a replaced PATH are kept with the owner's read and write added,
 * so a file made mode 000 (readable by root only) does not hand mode 000
 * on to its successor.
 *
 * Several writers.  Each write is atomic, but a read, a change and a write
 * back by one process can overwrite what another wrote in between.  The
 * lock (sdui_snapshot_lock_open) is an exclusive flock(2) on PATH.lock, a
 * file of its own because PATH is replaced (a lock on PATH's inode would
 * go with the old file).  flock rather than fcntl locks: flock locks
 * belong to the open file, so two handles in one process exclude each
 * other too, and closing some other descriptor of the file does not let
 * go.  The system drops a dead process's locks, so a killed writer never
 * blocks the others.  The lock file is never removed (removing it would
 * let a late waiter lock an inode no one else sees); should someone remove
 * or replace it, a waiter that gets the lock on the old inode notices that
 * the name now leads elsewhere and locks again.
 *
 * What this does not do: order writers that do not take the lock, or
 * survive storage that acknowledges an fsync it did not do.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "internal.h"
#include "sdui/number.h"

/* The written form: HEAD, 8 hex digits, MID, the value, TAIL. */
#define SNAP_STR_(x) #x
#define SNAP_STR(x) SNAP_STR_(x)
#define HEAD "{\"format\":\"" SDUI_SNAPSHOT_FORMAT "\",\"version\":" \
             SNAP_STR(SDUI_SNAPSHOT_VERSION) ",\"crc32\":\""
#define MID "\",\"data\":"
#define TAIL "}\n"
#define HEAD_LEN (sizeof HEAD - 1)
#define CRC_DIGITS 8
#define MID_LEN (sizeof MID - 1)
#define TAIL_LEN (sizeof TAIL - 1)
/* Where the value starts in a file of the written form. */
#define DATA_AT (HEAD_LEN + CRC_DIGITS + MID_LEN)

/* The deepest value a write serialises (the writer recurses once a level). */
#define WRITE_MAX_DEPTH 4096

/* Temporary names tried before a write gives up on O_EXCL collisions. */
#define TMP_TRIES 64

/* Bytes asked of one read(2): the file is read in pieces this large. */
#define READ_CHUNK ((size_t)1 << 20)

/* Times the lock is taken again because its file was replaced meanwhile,
 * before the call gives up. */
#define LOCK_TRIES 64

/* Numbers temporary names apart within the process. */
static atomic_ulong tmp_seq;

/* ------------------------------------------------------------------ */
/* Error records                                                        */
/* ------------------------------------------------------------------ */

/* Fills err (if non-NULL) field by field: status, code, position as
 * given, and the formatted message.  The faults of one file are recorded
 * so, without the path; the public functions put the path in front. */
static SDUI_PRINTF(7, 8) sdui_status note(sdui_error *err, sdui_status status,
                                         int code, long long offset, int line,
                                         int column, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return status;
    err->status = status;
    err->code = code;
    err->offset = offset;
    err->line = line;
    err->column = column;
    va_start(ap, fmt);
    if (vsnprintf(err->message, sizeof err->message, fmt, ap) < 0)
        err->message[0] = '\0';
    va_end(ap);
    return status;
}

/* A fault of one file's contents at byte offset at of text[0, len), with
 * its line:column in the message: "<what> at line L, column C<rest>". */
static sdui_status fault_at(sdui_error *e, sdui_status status,
                            const char *text, size_t len, size_t at,
                            const char *what, const char *rest)
{
    int line, column;
    sdui_json_position(text, len, at, &line, &column);
    return note(e, status, 0, (long long)at, line, column,
                "%s at line %d, column %d%s", what, line, column, rest);
}

/* An I/O failure of the write to path: SDUI_IO with errno code. */
static sdui_status write_failed(sdui_error *err, const char *path, int code,
                                const char *doing)
{
    if (code == 0)
        code = EIO;
    return sdui__fail_code(err, SDUI_IO, code, -1,
                           "cannot write snapshot \"%s\": %s: %s", path,
                           doing, strerror(code));
}

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

/* The names a write and a read use beside PATH, in one allocation. */
typedef struct names {
    char *block;      /* the allocation holding the strings below      */
    char *dir;        /* PATH's directory ("." when PATH has no '/')   */
    const char *base; /* PATH's last component (points into PATH)      */
    char *prev;       /* PATH.prev                                     */
    char *tmp;        /* the temporary file (set by next_tmp)          */
    char *tmp2;       /* the temporary link to the current PATH        */
    size_t tmp_cap;   /* room of tmp and of tmp2                       */
} names;

/* Room for ".tmp-<pid>-<n>" after PATH: both numbers in decimal. */
#define TMP_SUFFIX_ROOM 48

/* Makes the names of path.  SDUI_ARGUMENT for a path that names no file
 * (empty, or ending in '/'), SDUI_OOM. */
static sdui_status names_make(const char *path, names *n, sdui_error *err)
{
    size_t len = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dir_len;
    char *p;

    memset(n, 0, sizeof *n);
    if (len == 0 || path[len - 1] == '/')
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "snapshot path \"%s\" names no file", path);
    if (len > (SIZE_MAX - 2 * TMP_SUFFIX_ROOM - 16) / 4)
        return sdui__oom(err);
    n->base = slash ? slash + 1 : path;
    dir_len = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
    n->tmp_cap = len + TMP_SUFFIX_ROOM;
    n->block = sdui_malloc(dir_len + 1 + len + 6 + 2 * n->tmp_cap);
    if (!n->block)
        return sdui__oom(err);
    p = n->block;
    n->dir = p;
    if (!slash)
        memcpy(p, ".", 1);
    else
        memcpy(p, path, dir_len); /* "/" alone when PATH is "/name" */
    p[dir_len] = '\0';
    p += dir_len + 1;
    n->prev = p;
    memcpy(p, path, len);
    memcpy(p + len, ".prev", 6);
    p += len + 6;
    n->tmp = p;
    n->tmp[0] = '\0';
    p += n->tmp_cap;
    n->tmp2 = p;
    n->tmp2[0] = '\0';
    return SDUI_OK;
}

/* Releases the names' allocation. */
static void names_free(names *n)
{
    sdui_free(n->block);
    n->block = NULL;
}

/* Writes a fresh temporary name for path into buf (n->tmp_cap bytes):
 * PATH.tmp-<pid>-<n>, n counting up within the process. */
static void next_tmp(const names *n, const char *path, char *buf)
{
    unsigned long seq = atomic_fetch_add(&tmp_seq, 1);
    int w = snprintf(buf, n->tmp_cap, "%s.tmp-%ld-%lu", path,
                     (long)getpid(), seq);
    assert(w > 0 && (size_t)w < n->tmp_cap);
    (void)w;
}

/* If name (a directory entry) is "<base>.tmp-<pid>-<n>", returns the pid;
 * else 0. */
static long tmp_owner(const char *name, const char *base)
{
    size_t blen = strlen(base);
    const char *p;
    long pid = 0;
    int digits = 0;

    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp-", 5) != 0)
        return 0;
    p = name + blen + 5;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (pid > (LONG_MAX - 9) / 10)
            return 0;
        pid = pid * 10 + (*p - '0');
    }
    if (digits == 0 || *p++ != '-' || !(*p >= '0' && *p <= '9'))
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == '\0' && pid <= INT_MAX ? pid : 0;
}

/*
 * Removes the temporary files of PATH left by writers that were killed:
 * those whose pid is not this process and names no process.  Best effort:
 * a directory that cannot be listed, or a file that cannot be removed, is
 * left as it is (the write itself reports what matters).
 */
static void sweep(const names *n)
{
    DIR *d = opendir(n->dir);
    struct dirent *de;
    size_t dir_len = strlen(n->dir);
    long self = (long)getpid();

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        long pid = tmp_owner(de->d_name, n->base);
        size_t name_len;
        char *full;
        if (pid <= 0 || pid == self)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to ask about */
        name_len = strlen(de->d_name);
        full = sdui_malloc(dir_len + 1 + name_len + 1);
        if (!full)
            break;
        memcpy(full, n->dir, dir_len);
        full[dir_len] = '/';
        memcpy(full + dir_len + 1, de->d_name, name_len + 1);
        unlink(full);
        sdui_free(full);
    }
    closedir(d);
}

/* ------------------------------------------------------------------ */
/* Serialising                                                          */
/* ------------------------------------------------------------------ */

/* A growing byte buffer (sdui_malloc'd) of at most SDUI_SNAPSHOT_MAX_BYTES. */
typedef struct outbuf {
    char *p;
    size_t len, cap;
    int oom;     /* memory ran out                          */
    int too_big; /* the bytes would pass the snapshot bound */
} outbuf;

/* Appends s[0, n); 0, or -1 when memory runs out (b->oom set) or the
 * buffer would pass SDUI_SNAPSHOT_MAX_BYTES (b->too_big set). */
static int out_put(outbuf *b, const char *s, size_t n)
{
    if (n > SDUI_SNAPSHOT_MAX_BYTES - b->len) {
        b->too_big = 1;
        return -1;
    }
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 4096;
        char *p;
        while (cap - b->len < n)
            cap *= 2; /* cannot overflow: the bound is far below SIZE_MAX */
        if (cap > SDUI_SNAPSHOT_MAX_BYTES)
            cap = SDUI_SNAPSHOT_MAX_BYTES;
        p = sdui_realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return -1;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

/*
 * Appends s[0, n) as a JSON string: quotes, '"' and '\\' escaped, control
 * characters as \b \f \n \r \t or \u00XX (NUL included); every other
 * byte as it is (the tree's strings are UTF-8).  0 or -1 as out_put.
 */
static int out_string(outbuf *b, const char *s, size_t n)
{
    size_t i, run = 0;
    if (out_put(b, "\"", 1) != 0)
        return -1;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        size_t k = 2;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        if (out_put(b, s + run, i - run) != 0)
            return -1;
        run = i + 1;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = "0123456789abcdef"[c >> 4];
            esc[5] = "0123456789abcdef"[c & 15];
            k = 6;
        }
        if (out_put(b, esc, k) != 0)
            return -1;
    }
    if (out_put(b, s + run, n - run) != 0)
        return -1;
    return out_put(b, "\"", 1);
}

/* One member of an object being written: its name and value. */
typedef struct member {
    const char *key;
    size_t key_len;
    const sdui_value *value;
} member;

/* Orders members by name, bytewise (a shorter name first on a tie). */
static int member_cmp(const void *a, const void *b)
{
    const member *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c != 0)
        return c;
    return (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/*
 * Appends v as compact JSON, members sorted by name, so the same value is
 * always the same bytes: integers in decimal digits, decimals by the one
 * number-to-text rule (number.h), never through the C library's printf,
 * whose decimal point is the process locale's.  0, or -1 with b->oom or
 * b->too_big set, or with *deep set past WRITE_MAX_DEPTH.
 */
static int out_value(outbuf *b, const sdui_value *v, unsigned depth, int *deep)
{
    char num[SDUI_NUMBER_TEXT_MAX > 24 ? SDUI_NUMBER_TEXT_MAX : 24];
    if (depth > WRITE_MAX_DEPTH) {
        *deep = 1;
        return -1;
    }
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_NULL: return out_put(b, "null", 4);
    case SDUI_VALUE_BOOL:
        return sdui_value_bool(v) ? out_put(b, "true", 4) : out_put(b, "false", 5);
    case SDUI_VALUE_INT: {
        int64_t i = sdui_value_int(v);
        unsigned long long m = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
        size_t k = sizeof num;
        do {
            num[--k] = (char)('0' + m % 10);
            m /= 10;
        } while (m);
        if (i < 0)
            num[--k] = '-';
        return out_put(b, num + k, sizeof num - k);
    }
    case SDUI_VALUE_REAL: {
        size_t n = sdui_number_text(sdui_value_real(v), num);
        return out_put(b, num, n);
    }
    case SDUI_VALUE_STRING: {
        size_t len;
        const char *s = sdui_value_string(v, &len);
        return out_string(b, s, len);
    }
    case SDUI_VALUE_ARRAY: {
        size_t i, n = sdui_value_count(v);
        if (out_put(b, "[", 1) != 0)
            return -1;
        for (i = 0; i < n; i++)
            if ((i && out_put(b, ",", 1) != 0) ||
                out_value(b, sdui_value_at(v, i), depth + 1, deep) != 0)
                return -1;
        return out_put(b, "]", 1);
    }
    case SDUI_VALUE_OBJECT: {
        size_t i = 0, n = sdui_value_count(v);
        member *m = NULL;
        const void *it;
        int rc = 0;
        if (n) {
            m = sdui_malloc(n * sizeof *m);
            if (!m) {
                b->oom = 1;
                return -1;
            }
            for (it = sdui_value_next(v, NULL); it; it = sdui_value_next(v, it)) {
                assert(i < n);
                m[i].key = sdui_value_iter_key(it, &m[i].key_len);
                m[i++].value = sdui_value_iter_value(it);
            }
            assert(i == n);
            qsort(m, n, sizeof *m, member_cmp);
        }
        rc = out_put(b, "{", 1);
        for (i = 0; rc == 0 && i < n; i++)
            rc = (i && out_put(b, ",", 1) != 0) || out_string(b, m[i].key, m[i].key_len) != 0 ||
                 out_put(b, ":", 1) != 0 || out_value(b, m[i].value, depth + 1, deep) != 0 ? -1 : 0;
        sdui_free(m);
        return rc != 0 ? -1 : out_put(b, "}", 1);
    }
    }
    return -1;
}

/* The write's refusal of a value whose file would pass the bound. */
static sdui_status too_big(sdui_error *err, const char *path)
{
    return sdui__fail(err, SDUI_LIMIT, -1,
                      "snapshot \"%s\": the value makes a file of more than "
                      "%zu bytes (SDUI_SNAPSHOT_MAX_BYTES); nothing written",
                      path, SDUI_SNAPSHOT_MAX_BYTES);
}

/* Lowercase hex digit of v's low four bits. */
static char hex_of(unsigned v)
{
    return "0123456789abcdef"[v & 15];
}

/*
 * Serialises doc's root into b in the written form, checksum filled in.
 * The value is parsed back first with the reader's parser, so what is
 * written can be read.  SDUI_JSON, SDUI_OOM.
 */
static sdui_status serialise(const char *path, const sdui_json_doc *doc,
                             outbuf *b, sdui_error *err)
{
    const sdui_value *root = sdui_json_doc_root(doc);
    sdui_json_doc *back = NULL;
    int deep = 0;
    sdui_error perr;
    sdui_status st;
    size_t data_len, i;
    uint32_t crc;

    if (out_put(b, HEAD "00000000" MID, DATA_AT) != 0)
        return sdui__oom(err);
    if (out_value(b, root, 0, &deep) != 0) {
        if (b->too_big)
            return too_big(err, path);
        if (b->oom)
            return sdui__oom(err);
        if (deep)
            return sdui__fail(err, SDUI_LIMIT, -1,
                              "snapshot \"%s\": the value is nested more than "
                              "%d levels deep; nothing written", path, WRITE_MAX_DEPTH);
        return sdui__fail(err, SDUI_JSON, -1,
                          "snapshot \"%s\": the value cannot be serialised; "
                          "nothing written", path);
    }
    data_len = b->len - DATA_AT;
    /* No depth bound here: the reader's max_depth is the reader's. */
    st = sdui_json_doc_parse(b->p + DATA_AT, data_len, UINT_MAX, &back, &perr);
    sdui_json_doc_free(back);
    if (st == SDUI_OOM)
        return sdui__oom(err);
    if (st != SDUI_OK)
        return sdui__fail(err, SDUI_JSON, -1,
                          "snapshot \"%s\": the value would not read back "
                          "(%s, byte %lld of the value); nothing written",
                          path, perr.message, perr.offset);
    crc = sdui_crc32(0, b->p + DATA_AT, data_len);
    for (i = 0; i < CRC_DIGITS; i++)
        b->p[HEAD_LEN + i] = hex_of(crc >> (4 * (CRC_DIGITS - 1 - i)));
    if (out_put(b, TAIL, TAIL_LEN) != 0)
        return b->too_big ? too_big(err, path) : sdui__oom(err);
    return SDUI_OK;
}

/* ------------------------------------------------------------------ */
/* Reading and checking one file                                        */
/* ------------------------------------------------------------------ */

/* Value of a lowercase hex digit, or -1. */
static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* 1 if text[0, len) is in the written form (header, 8 lowercase hex
 * digits, value, tail), with the recorded checksum in *crc. */
static int in_form(const char *text, size_t len, uint32_t *crc)
{
    uint32_t v = 0;
    size_t i;
    if (len < DATA_AT + 1 + TAIL_LEN || memcmp(text, HEAD, HEAD_LEN) != 0 ||
        memcmp(text + HEAD_LEN + CRC_DIGITS, MID, MID_LEN) != 0 ||
        memcmp(text + len - TAIL_LEN, TAIL, TAIL_LEN) != 0)
        return 0;
    for (i = 0; i < CRC_DIGITS; i++) {
        int d = hex_value((unsigned char)text[HEAD_LEN + i]);
        if (d < 0)
            return 0;
        v = v << 4 | (uint32_t)d;
    }
    *crc = v;
    return 1;
}

/* The name of a value type, for messages. */
static const char *type_name(sdui_value_type t)
{
    switch (t) {
    case SDUI_VALUE_NULL: return "null";
    case SDUI_VALUE_BOOL: return "boolean";
    case SDUI_VALUE_INT: return "integer";
    case SDUI_VALUE_REAL: return "number";
    case SDUI_VALUE_STRING: return "string";
    case SDUI_VALUE_ARRAY: return "array";
    case SDUI_VALUE_OBJECT: return "object";
    }
    return "value";
}

/* 1 if v is a string equal to the NUL-terminated s. */
static int string_is(const sdui_value *v, const char *s)
{
    size_t len = 0;
    const char *got = sdui_value_string(v, &len);
    return got && len == strlen(s) && memcmp(got, s, len) == 0;
}

/* 1 if v is a string of 8 lowercase hex digits. */
static int is_crc_text(const sdui_value *v)
{
    size_t len = 0, i;
    const char *s = sdui_value_string(v, &len);
    if (!s || len != CRC_DIGITS)
        return 0;
    for (i = 0; i < len; i++)
        if (hex_value((unsigned char)s[i]) < 0)
            return 0;
    return 1;
}

/*
 * Says why text[0, len), which is not in the written form, is refused:
 * SDUI_CORRUPT with the most precise reason a full look finds (or
 * SDUI_OOM).  The record holds the fault without the path.
 */
static sdui_status diagnose(const char *text, size_t len, unsigned max_depth,
                            sdui_error *e)
{
    unsigned depth = max_depth == UINT_MAX ? UINT_MAX : max_depth + 1;
    sdui_json_doc *doc = NULL;
    const sdui_value *root, *ver;
    sdui_error v;
    sdui_status st;

    if (len == 0)
        return note(e, SDUI_CORRUPT, 0, -1, 0, 0, "is empty");
    st = sdui_json_doc_parse(text, len, depth, &doc, &v);
    if (st == SDUI_OOM)
        return sdui__oom(e);
    if (st == SDUI_LIMIT)
        return fault_at(e, SDUI_CORRUPT, text, len, (size_t)v.offset,
                        "is not a snapshot, and nests too deep to say more",
                        "");
    if (st != SDUI_OK) {
        char rest[SDUI_ERROR_MESSAGE_SIZE + 32];
        snprintf(rest, sizeof rest, " (torn or damaged): %s", v.message);
        return fault_at(e, SDUI_CORRUPT, text, len,
                        v.offset >= 0 ? (size_t)v.offset : len,
                        "is not JSON", rest);
    }
    root = sdui_json_doc_root(doc);
    ver = sdui_value_get(root, "version");
    if (sdui_value_type_of(root) != SDUI_VALUE_OBJECT)
        st = note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                  "holds a JSON %s, not a snapshot envelope",
                  type_name(sdui_value_type_of(root)));
    else if (!sdui_value_get(root, "format"))
        st = note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                  "is plain JSON without the snapshot envelope (made or "
                  "edited by hand?)");
    else if (!string_is(sdui_value_get(root, "format"), SDUI_SNAPSHOT_FORMAT))
        st = note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                  "has a \"format\" other than \"" SDUI_SNAPSHOT_FORMAT "\"");
    else if (sdui_value_type_of(ver) != SDUI_VALUE_INT)
        st = note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                  "has no integer snapshot \"version\"");
    else if (sdui_value_int(ver) != SDUI_SNAPSHOT_VERSION)
        st = note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                  "is snapshot version %lld; this library reads version %d",
                  (long long)sdui_value_int(ver), SDUI_SNAPSHOT_VERSION);
    else if (!is_crc_text(sdui_value_get(root, "crc32")))
        st = note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                  "has no \"crc32\" of 8 lowercase hex digits");
    else if (!sdui_value_get(root, "data"))
        st = note(e, SDUI_CORRUPT, 0, -1, 0, 0, "has no \"data\"");
    else
        st = note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                  "is not byte for byte as written (torn at its end, or "
                  "edited by hand)");
    sdui_json_doc_free(doc);
    return st;
}

/* The refusal of a file past the bound: not a snapshot, whatever it
 * holds.  size is what fstat said (grew 0: nothing was read), or how far a
 * read of a file that grew meanwhile got (grew 1). */
static sdui_status too_large(sdui_error *e, unsigned long long size,
                             int grew)
{
    return note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                "%s %llu bytes, more than the %zu a snapshot file may have "
                "(SDUI_SNAPSHOT_MAX_BYTES): not a snapshot%s",
                grew ? "grew while it was read to over" : "is", size,
                SDUI_SNAPSHOT_MAX_BYTES,
                grew ? "" : " (refused by its size; none of it was read)");
}

/* An unreadable file's record: SDUI_IO with code, no position. */
static sdui_status unreadable(sdui_error *e, int code, const char *why)
{
    return note(e, SDUI_IO, code, -1, 0, 0, "cannot be read: %s",
                why ? why : strerror(code));
}

/*
 * Opens the regular file at path for reading: *fd and its size *size.
 * SDUI_NOT_FOUND, SDUI_IO (errno in the code; EISDIR for a directory,
 * ENODEV for anything else that is not a regular file); the record holds
 * the fault without the path.
 */
static sdui_status open_regular(const char *path, int *fd,
                                unsigned long long *size, sdui_error *e)
{
    struct stat sb;
    int f;

    *fd = -1;
    *size = 0;
    if (stat(path, &sb) != 0) {
        int code = errno;
        if (code == ENOENT)
            return note(e, SDUI_NOT_FOUND, 0, -1, 0, 0, "does not exist");
        return unreadable(e, code, NULL);
    }
    /* Only a regular file: opening a FIFO would wait for a writer, a
     * device could have effects. */
    if (!S_ISREG(sb.st_mode))
        return S_ISDIR(sb.st_mode) ? unreadable(e, EISDIR, "is a directory")
                                   : unreadable(e, ENODEV,
                                                "not a regular file");
    /* O_NONBLOCK: should a FIFO take the file's place meanwhile, the open
     * does not wait for a writer (fstat below refuses it). */
    f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (f < 0) {
        int code = errno;
        if (code == ENOENT)
            return note(e, SDUI_NOT_FOUND, 0, -1, 0, 0, "does not exist");
        return unreadable(e, code, NULL);
    }
    if (fstat(f, &sb) != 0) {
        int code = errno;
        close(f);
        return unreadable(e, code, NULL);
    }
    if (!S_ISREG(sb.st_mode)) {
        close(f);
        return unreadable(e, ENODEV, "not a regular file");
    }
    *fd = f;
    *size = sb.st_size > 0 ? (unsigned long long)sb.st_size : 0;
    return SDUI_OK;
}

/* Reads up to n bytes from fd into buf, READ_CHUNK at most per call,
 * stopping early only at the end of the file (*got says how many came).
 * 0 or an errno. */
static int read_upto(int fd, char *buf, size_t n, size_t *got)
{
    *got = 0;
    while (*got < n) {
        size_t want = n - *got < READ_CHUNK ? n - *got : READ_CHUNK;
        ssize_t r = read(fd, buf + *got, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return errno ? errno : EIO;
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return 0;
}

/* 1 if the first DATA_AT bytes of text are the written form's header:
 * HEAD, 8 lowercase hex digits, MID. */
static int header_ok(const char *text)
{
    size_t i;
    if (memcmp(text, HEAD, HEAD_LEN) != 0 ||
        memcmp(text + HEAD_LEN + CRC_DIGITS, MID, MID_LEN) != 0)
        return 0;
    for (i = 0; i < CRC_DIGITS; i++)
        if (hex_value((unsigned char)text[HEAD_LEN + i]) < 0)
            return 0;
    return 1;
}

/*
 * Reads the regular file at path into new memory (*text, *len; a NUL
 * follows), as the essay's "Bounded reading" says: the size bound by fstat
 * before any byte, the header next, then the rest in pieces.  With
 * header_only set, a file whose header (or length) already shows it is not
 * in the written form is SDUI_CORRUPT without reading further (the caller
 * only asks whether it checks out).  SDUI_NOT_FOUND, SDUI_IO (errno in the
 * code), SDUI_CORRUPT (too large; or header_only and no header),
 * SDUI_OOM; the record holds the fault without the path.
 */
static sdui_status slurp(const char *path, int header_only, char **text,
                         size_t *len, sdui_error *e)
{
    unsigned long long size;
    size_t cap, used = 0, got = 0, head;
    sdui_status st;
    char *buf;
    int fd, code;

    *text = NULL;
    *len = 0;
    st = open_regular(path, &fd, &size, e);
    if (st != SDUI_OK)
        return st;
    if (size > SDUI_SNAPSHOT_MAX_BYTES) {
        close(fd);
        return too_large(e, size, 0);
    }
    /* The file, one byte more to notice that it grew, and the NUL. */
    cap = (size_t)size + 1;
    buf = sdui_malloc(cap + 1);
    if (!buf) {
        close(fd);
        return sdui__oom(e);
    }
    head = (size_t)size < DATA_AT ? (size_t)size : DATA_AT;
    code = read_upto(fd, buf, head, &used);
    if (code == 0 && header_only &&
        (used < DATA_AT || size < DATA_AT + 1 + TAIL_LEN || !header_ok(buf))) {
        sdui_free(buf);
        close(fd);
        return note(e, SDUI_CORRUPT, 0, -1, 0, 0,
                    "does not start with the snapshot header");
    }
    while (code == 0) {
        if (used == cap) {
            /* It grew since fstat (someone writes it in place): follow it
             * up to the bound. */
            size_t more = cap > SDUI_SNAPSHOT_MAX_BYTES / 2
                              ? SDUI_SNAPSHOT_MAX_BYTES + 1
                              : 2 * cap;
            char *p;
            if (cap > SDUI_SNAPSHOT_MAX_BYTES) {
                sdui_free(buf);
                close(fd);
                return too_large(e, (unsigned long long)SDUI_SNAPSHOT_MAX_BYTES, 1);
            }
            p = sdui_realloc(buf, more + 1);
            if (!p) {
                sdui_free(buf);
                close(fd);
                return sdui__oom(e);
            }
            buf = p;
            cap = more;
        }
        code = read_upto(fd, buf + used, cap - used, &got);
        used += got;
        if (code == 0 && used < cap)
            break; /* the end of the file */
    }
    close(fd);
    if (code != 0) {
        sdui_free(buf);
        return unreadable(e, code, NULL);
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return SDUI_OK;
}

/*
 * Reads and checks the snapshot file at path.  With out NULL only the form
 * and checksum are checked (no tree is built).  SDUI_OK (*out new when out
 * is given), SDUI_NOT_FOUND, SDUI_IO, SDUI_CORRUPT, SDUI_LIMIT, SDUI_OOM;
 * the record holds the fault without the path.
 */
static sdui_status read_one(const char *path, unsigned max_depth,
                            sdui_json_doc **out, sdui_error *e)
{
    char *text = NULL;
    size_t len = 0, data_len;
    uint32_t want = 0, got;
    sdui_status st;
    sdui_error perr;

    assert(e);
    st = slurp(path, out == NULL, &text, &len, e);
    if (st != SDUI_OK)
        return st;
    if (!in_form(text, len, &want)) {
        st = diagnose(text, len, max_depth, e);
        sdui_free(text);
        return st;
    }
    data_len = len - DATA_AT - TAIL_LEN;
    got = sdui_crc32(0, text + DATA_AT, data_len);
    if (got != want) {
        st = note(e, SDUI_CORRUPT, 0, (long long)DATA_AT, 1,
                  (int)DATA_AT + 1,
                  "has a checksum mismatch: the envelope says crc32 %08lx, "
                  "the data has %08lx",
                  (unsigned long)want, (unsigned long)got);
        sdui_free(text);
        return st;
    }
    if (!out) {
        sdui_free(text);
        return SDUI_OK;
    }
    st = sdui_json_doc_parse(text + DATA_AT, data_len, max_depth, out, &perr);
    if (st == SDUI_LIMIT || st == SDUI_JSON) {
        /* The position is in the value; the message gives it in the file. */
        char rest[SDUI_ERROR_MESSAGE_SIZE + 32];
        size_t at = DATA_AT + (perr.offset >= 0 ? (size_t)perr.offset : 0);
        snprintf(rest, sizeof rest, ": %s", perr.message);
        if (st == SDUI_LIMIT)
            st = fault_at(e, SDUI_LIMIT, text, len, at,
                          "nests deeper than max_depth", rest);
        else /* the checksum holds: whoever wrote the file wrote this */
            st = fault_at(e, SDUI_CORRUPT, text, len, at,
                          "holds data that is not JSON", rest);
    } else if (st != SDUI_OK) {
        *e = perr;
    }
    sdui_free(text);
    return st;
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */
/* ------------------------------------------------------------------ */

/* Writes all of text[0, len) to fd; 0 or an errno. */
static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno ? errno : EIO;
        if (n == 0)
            return EIO;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Puts fd's bytes on the storage itself: F_FULLFSYNC where the system has
 * it (its fsync stops at the drive's cache), else fsync.  0 or an errno. */
static int sync_fd(int fd)
{
#ifdef F_FULLFSYNC
    if (fcntl(fd, F_FULLFSYNC) == 0)
        return 0;
#endif
    return fsync(fd) == 0 ? 0 : errno;
}

/* Syncs a directory, so renames in it are durable.  0 or an errno; EINVAL
 * (a file system that cannot sync a directory) counts as done. */
static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int code;
    if (fd < 0)
        return errno;
    code = sync_fd(fd);
    close(fd);
    return code == EINVAL ? 0 : code;
}

/* 1 if link(2) failed because the file system has no hard links (so the
 * rename fallback applies), not because of the files. */
static int no_hard_links(int code)
{
    return code == EPERM || code == ENOSYS || code == EOPNOTSUPP
#if defined(ENOTSUP) && ENOTSUP != EOPNOTSUPP
           || code == ENOTSUP
#endif
        ;
}

/*
 * Makes the current PATH the new PATH.prev without PATH ever going
 * missing: a hard link to a temporary name, renamed over PATH.prev.  Sets
 * *use_rename when the file system has no hard links (the caller then
 * renames PATH to PATH.prev just before its last rename).  SDUI_IO.
 */
static sdui_status keep_prev(const char *path, names *n, int *use_rename,
                             sdui_error *err)
{
    int tries;
    *use_rename = 0;
    for (tries = 0; tries < TMP_TRIES; tries++) {
        next_tmp(n, path, n->tmp2);
        if (link(path, n->tmp2) == 0)
            break;
        if (errno == EEXIST)
            continue;
        if (errno == ENOENT)
            return SDUI_OK; /* PATH went away: nothing to keep */
        if (no_hard_links(errno)) {
            *use_rename = 1;
            return SDUI_OK;
        }
        return write_failed(err, path, errno, "cannot keep it as .prev");
    }
    if (tries == TMP_TRIES)
        return write_failed(err, path, EEXIST, "cannot keep it as .prev");
    if (rename(n->tmp2, n->prev) != 0) {
        int code = errno;
        unlink(n->tmp2);
        return write_failed(err, path, code, "cannot keep it as .prev");
    }
    return SDUI_OK;
}

/* Creates the temporary file beside path (O_EXCL, mode 0600) into *fd and
 * n->tmp.  SDUI_IO. */
static sdui_status create_tmp(const char *path, names *n, int *fd,
                              sdui_error *err)
{
    int tries;
    for (tries = 0; tries < TMP_TRIES; tries++) {
        next_tmp(n, path, n->tmp);
        *fd = open(n->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (*fd >= 0)
            return SDUI_OK;
        if (errno != EEXIST)
            break;
    }
    n->tmp[0] = '\0';
    return write_failed(err, path, tries == TMP_TRIES ? EEXIST : errno,
                        "cannot create a temporary file in its directory");
}

/* Steps 0 to 4 of the essay for text[0, len) (the whole file). */
static sdui_status commit(const char *path, names *n, const char *text,
                          size_t len, sdui_error *err)
{
    struct stat sb;
    mode_t mode = 0600;
    sdui_status st, good;
    int fd = -1, code, use_rename = 0;
    sdui_error check;

    sweep(n);
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return write_failed(err, path, EISDIR, "it is taken");
        if (S_ISREG(sb.st_mode))
            mode = (sb.st_mode & 0777) | S_IRUSR | S_IWUSR;
    }
    /* Step 0: what PATH is now.  Nothing unreadable is replaced. */
    good = read_one(path, 0, NULL, &check);
    if (good == SDUI_OOM)
        return sdui__oom(err);
    if (good == SDUI_IO)
        return sdui__fail_code(err, SDUI_IO, check.code, -1,
                               "cannot write snapshot \"%s\": it exists but "
                               "%s; it is left as it is",
                               path, check.message);
    if (good == SDUI_OK) {
        /* PATH.prev is about to be replaced by PATH: it must be readable
         * (or absent) too. */
        int pfd;
        unsigned long long psize;
        st = open_regular(n->prev, &pfd, &psize, &check);
        if (st == SDUI_IO)
            return sdui__fail_code(err, SDUI_IO, check.code, -1,
                                   "cannot write snapshot \"%s\": its "
                                   "previous generation \"%s\" exists but "
                                   "%s; both are left as they are",
                                   path, n->prev, check.message);
        if (st == SDUI_OK)
            close(pfd);
    }
    st = create_tmp(path, n, &fd, err);
    if (st != SDUI_OK)
        return st;
    /* The permission bits where the file system takes them (not all do). */
    (void)fchmod(fd, mode);
    code = write_all(fd, text, len);
    if (code == 0)
        code = sync_fd(fd);
    if (close(fd) != 0 && code == 0)
        code = errno;
    if (code != 0) {
        unlink(n->tmp);
        return write_failed(err, path, code,
                            "writing its temporary file (removed)");
    }
    /* Step 2: keep the current PATH only if it is good. */
    if (good == SDUI_OK) {
        st = keep_prev(path, n, &use_rename, err);
        if (st != SDUI_OK) {
            unlink(n->tmp);
            return st;
        }
        if (use_rename && rename(path, n->prev) != 0 && errno != ENOENT) {
            code = errno;
            unlink(n->tmp);
            return write_failed(err, path, code, "cannot keep it as .prev");
        }
    }
    if (rename(n->tmp, path) != 0) {
        code = errno;
        unlink(n->tmp);
        if (use_rename)
            (void)rename(n->prev, path); /* put PATH back where it was */
        return write_failed(err, path, code,
                            "cannot rename its temporary file over it");
    }
    code = sync_dir(n->dir);
    if (code != 0)
        return sdui__fail_code(err, SDUI_IO, code, -1,
                               "snapshot \"%s\" was replaced, but its "
                               "directory could not be synced, so the change "
                               "may not be durable: %s",
                               path, strerror(code));
    return SDUI_OK;
}

/* ------------------------------------------------------------------ */
/* The public functions                                                 */
/* ------------------------------------------------------------------ */

/* Writes doc's root as the snapshot at path (snapshot.h). */
sdui_status sdui_snapshot_write(const char *path, const sdui_json_doc *doc,
                                sdui_error *err)
{
    names n;
    outbuf b = {NULL, 0, 0, 0, 0};
    sdui_status st;

    sdui_error_clear(err);
    if (!path || !doc)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "snapshot write: %s is NULL", path ? "doc" : "path");
    st = names_make(path, &n, err);
    if (st != SDUI_OK)
        return st;
    st = serialise(path, doc, &b, err);
    if (st == SDUI_OK)
        st = commit(path, &n, b.p, b.len, err);
    sdui_free(b.p);
    names_free(&n);
    return st;
}

/* Reads the snapshot at path, falling back to PATH.prev (snapshot.h). */
sdui_status sdui_snapshot_read(const char *path, unsigned max_depth,
                               sdui_json_doc **out, int *recovered,
                               sdui_error *err)
{
    sdui_error e1, e2;
    sdui_status s1, s2, st;
    const sdui_error *why;
    names n;

    sdui_error_clear(err);
    if (recovered)
        *recovered = 0;
    if (!path || !out)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "snapshot read: %s is NULL", path ? "out" : "path");
    *out = NULL;
    st = names_make(path, &n, err);
    if (st != SDUI_OK)
        return st;
    sdui_error_clear(&e1);
    sdui_error_clear(&e2);
    s1 = read_one(path, max_depth, out, &e1);
    if (s1 == SDUI_OK || s1 == SDUI_OOM || s1 == SDUI_LIMIT) {
        if (s1 != SDUI_OK)
            note(err, s1, e1.code, e1.offset, e1.line, e1.column,
                 "snapshot \"%s\" %s", path, e1.message);
        names_free(&n);
        return s1;
    }
    if (s1 == SDUI_IO) {
        /* PATH is there but cannot be read: PATH.prev may be older. */
        note(err, s1, e1.code, e1.offset, e1.line, e1.column,
             "snapshot \"%s\" %s; \"%s\" (an older snapshot, if any) is "
             "not read in its place",
             path, e1.message, n.prev);
        names_free(&n);
        return s1;
    }
    s2 = read_one(n.prev, max_depth, out, &e2);
    if (s2 == SDUI_OK) {
        if (recovered)
            *recovered = 1;
        /* The record says why PATH was refused; the call succeeded. */
        note(err, s1, e1.code, e1.offset, e1.line, e1.column,
             "snapshot \"%s\" %s; read \"%s\" instead", path, e1.message,
             n.prev);
        names_free(&n);
        return SDUI_OK;
    }
    if (s1 == SDUI_NOT_FOUND && s2 == SDUI_NOT_FOUND) {
        note(err, SDUI_NOT_FOUND, 0, -1, 0, 0,
             "no snapshot: neither \"%s\" nor \"%s\" exists", path, n.prev);
        names_free(&n);
        return SDUI_NOT_FOUND;
    }
    /* Neither is good.  The status: memory or depth as they are, else
     * corrupt if either holds something else, else unreadable. */
    if (s2 == SDUI_OOM) {
        names_free(&n);
        return sdui__oom(err);
    }
    if (s2 == SDUI_LIMIT)
        st = s2;
    else if (s1 == SDUI_CORRUPT || s2 == SDUI_CORRUPT)
        st = SDUI_CORRUPT;
    else
        st = SDUI_IO;
    why = s1 == st ? &e1 : &e2;
    note(err, st, why->code, why->offset, why->line, why->column,
         "snapshot \"%s\" %s; its .prev %s", path, e1.message,
         e2.message);
    names_free(&n);
    return st;
}

/* ------------------------------------------------------------------ */
/* The lock                                                             */
/* ------------------------------------------------------------------ */

/* A held lock: the open lock file, flock'ed. */
struct sdui_snapshot_lock {
    int fd;
};

/* Opens (creating it when missing) the lock file at name for flock: read
 * and write where allowed, else read only (flock needs no more).  The
 * descriptor, or -1 with errno set. */
static int open_lock_file(const char *name)
{
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
        fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    return fd;
}

/* Takes the write lock of the snapshot at path (snapshot.h). */
sdui_status sdui_snapshot_lock_open(const char *path, int wait,
                                    sdui_snapshot_lock **out,
                                    sdui_error *err)
{
    size_t len;
    char *name;
    int tries;
    sdui_status st = SDUI_OK;

    sdui_error_clear(err);
    if (!path || !out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "snapshot lock: %s is NULL",
                          path ? "out" : "path");
    *out = NULL;
    len = strlen(path);
    if (len == 0 || path[len - 1] == '/')
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "snapshot path \"%s\" names no file", path);
    if (len > SIZE_MAX - 8)
        return sdui__oom(err);
    name = sdui_malloc(len + 6);
    if (!name)
        return sdui__oom(err);
    memcpy(name, path, len);
    memcpy(name + len, ".lock", 6);
    for (tries = 0; tries < LOCK_TRIES; tries++) {
        struct stat held, now;
        int fd = open_lock_file(name), r, code;
        if (fd < 0) {
            code = errno;
            st = sdui__fail_code(err, SDUI_IO, code, -1,
                                 "cannot lock snapshot \"%s\": cannot open "
                                 "its lock file \"%s\": %s",
                                 path, name, strerror(code));
            break;
        }
        code = fstat(fd, &held) != 0 ? errno
               : !S_ISREG(held.st_mode) ? ENODEV
                                        : 0;
        if (code != 0) {
            close(fd);
            st = sdui__fail_code(err, SDUI_IO, code, -1,
                                 "cannot lock snapshot \"%s\": its lock "
                                 "file \"%s\" %s",
                                 path, name,
                                 code == ENODEV ? "is not a regular file"
                                                : strerror(code));
            break;
        }
        do
            r = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB));
        while (r != 0 && errno == EINTR);
        if (r != 0) {
            code = errno;
            close(fd);
            if (code == EWOULDBLOCK)
                st = sdui__fail_code(err, SDUI_IO, code, -1,
                                     "snapshot \"%s\" is being written by "
                                     "another writer (it holds the lock "
                                     "file \"%s\")",
                                     path, name);
            else
                st = sdui__fail_code(err, SDUI_IO, code, -1,
                                     "cannot lock snapshot \"%s\": flock "
                                     "on \"%s\": %s",
                                     path, name, strerror(code));
            break;
        }
        /* Locked; but if the name now leads to another file (this one was
         * removed or replaced while we waited), others lock that one. */
        if (stat(name, &now) == 0 && now.st_dev == held.st_dev &&
            now.st_ino == held.st_ino) {
            *out = sdui_malloc(sizeof **out);
            if (!*out) {
                close(fd); /* lets go of the lock */
                st = sdui__oom(err);
                break;
            }
            (*out)->fd = fd;
            st = SDUI_OK;
            break;
        }
        close(fd);
    }
    if (tries == LOCK_TRIES)
        st = sdui__fail_code(err, SDUI_IO, EAGAIN, -1,
                             "cannot lock snapshot \"%s\": its lock file "
                             "\"%s\" was replaced %d times while this "
                             "writer waited",
                             path, name, LOCK_TRIES);
    sdui_free(name);
    return st;
}

/* Releases the lock (closing the file lets go of it) and frees it. */
void sdui_snapshot_lock_free(sdui_snapshot_lock *lock)
{
    if (!lock)
        return;
    close(lock->fd);
    sdui_free(lock);
}
