/*
 * sqlite_util.c - the SQLite plumbing of the core's database files (see
 * sqlite_util.h): paths, opening, the schema and integrity checks, moving
 * a damaged file aside, errors, one-row queries and batched IN reads, and
 * a handle's connection: the one open sequence of a handle's file and the
 * reset of a connection that meets damage after open.
 *
 * Opening.  The path is checked before SQLite sees it, so a path that
 * cannot hold a database fails at once and names its cause; SQLite would
 * report "unable to open database file" or "disk I/O error" for all of
 * them, and would create the target of a dangling link.  A missing file is
 * created here (O_EXCL), which tells a read-only file system, a missing
 * folder or an unwritable one apart; an existing one is probed with
 * access(), never opened and closed, since closing any descriptor of a
 * file drops the POSIX locks that other connections of this process hold
 * on it.  A full disk shows at SQLite's first write, whose system error
 * sdui__sql_fail names.
 *
 * Whose file it is.  A path may name any file: one of ours, another
 * program's database, a document.  Only a file of ours may be written,
 * upgraded or moved aside; anything else is refused and left byte for
 * byte as it was, however broken it looks, since it may be all someone
 * has.  Each kind of file has its own application_id, the 32-bit number
 * SQLite keeps at offset 68 of the header for this purpose, written when
 * the file is created.  A file is ours when its application_id is ours;
 * when it is 0 (files made before application ids, and a new file whose
 * creation a kill cut short), when the user_version is one of ours and
 * the schema objects are exactly that version's, or when the database is
 * empty (nothing in it can be lost).  When SQLite cannot read the header
 * at all, the bytes at offset 68 are read through SQLite's own file handle
 * (never a descriptor of our own, see above): our id there means a file of
 * ours whose first bytes were damaged.  A refused file whose WAL holds
 * commits is closed without the checkpoint SQLite runs at close, so not
 * even a WAL of its own is folded into it.
 *
 * Nothing is written before the file is known to be ours: a newer
 * user_version is left untouched, and a file of ours whose schema objects
 * are not exactly those of the version it claims (other columns, triggers
 * or views of its own, a table added) is damage, like pages that fail
 * the integrity check.  The objects are compared with those the steps of
 * that version's history make in a memory database, as SQLite stores
 * them, so an old file is checked against its own version, not ours.  The check is PRAGMA integrity_check,
 * not quick_check, which does not compare the indexes with the tables:
 * with one key changed in an index, reads found other rows and INSERT OR
 * REPLACE added a second row for one key.  It reads each page once (about
 * 0.5 us a row more than quick_check on the token cache).  Only then is
 * WAL mode set (on a new file, the first write) and the schema created or
 * upgraded.
 *
 * Upgrades.  A file of an older version gets the steps it lacks, in order,
 * in one transaction with the new user_version: a crash leaves it at its
 * old version, whole, and the next open upgrades it.  Rows are kept; a
 * step that must change a table does it in SQL (ALTER TABLE, or a new
 * table filled from the old one).
 *
 * Damage after open.  A file can be damaged while it is open (another
 * program writes it, a disk fails); SQLite says so with SQLITE_CORRUPT or
 * SQLITE_NOTADB from any step, and the owners' own checks of what they
 * read (totals that do not add up, a row not asked for) find more.  The
 * call that meets it cannot go on with that file, and the next would meet
 * it again: so it resets the connection (sdui_sql_conn) and fails saying
 * so, with the code and words of the damage, taken before anything else
 * runs on the connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "sqlite_util.h"

/* The system causes a database file can fail with, in the words of the
 * core's messages. */
static const struct {
    int code;
    const char *text;
} errno_texts[] = {
    {ENOSPC, "no space left on device"},
    {EDQUOT, "disk quota exceeded"},
    {EFBIG, "file too large"},
    {EROFS, "read-only file system"},
    {EACCES, "permission denied"},
    {EPERM, "operation not permitted"},
    {ENOENT, "no such file or directory"},
    {ENOTDIR, "a part of the path is not a directory"},
    {EISDIR, "is a directory"},
    {ELOOP, "too many levels of symbolic links"},
    {ENAMETOOLONG, "file name too long"},
    {EIO, "input/output error"},
};

/* The message text of a system error code (sqlite_util.h). */
const char *sdui__sql_errno_text(int code)
{
    size_t i;
    for (i = 0; i < sizeof errno_texts / sizeof errno_texts[0]; i++)
        if (errno_texts[i].code == code)
            return errno_texts[i].text;
    return strerror(code);
}

/* 1 for the result codes that mean the file is damaged (sqlite_util.h). */
int sdui__sql_is_damage(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

/* Reports SQLite's last error on db, with the system's cause and the
 * extended result code (sqlite_util.h). */
sdui_status sdui__sql_fail(sqlite3 *db, int rc, const char *label,
                           const char *path, const char *what,
                           sdui_error *err)
{
    int ext = sqlite3_extended_errcode(db);
    int code = ext & 0xff;
    int sys = sqlite3_system_errno(db);
    const char *cause = NULL;
    assert(db);
    /* The system code is only fresh after these two (SQLite keeps it). */
    if ((code == SQLITE_IOERR || code == SQLITE_CANTOPEN) && sys)
        cause = sdui__sql_errno_text(sys);
    else if (code == SQLITE_FULL)
        cause = sdui__sql_errno_text(ENOSPC);
    /* The record's code: db's extended code when it tells of rc, else rc
     * (a code the caller set, e.g. SQLITE_CORRUPT from its own check). */
    if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE)
        rc = ext;
    else if ((ext & 0xff) == (rc & 0xff))
        rc = ext;
    if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE)
        rc = SQLITE_ERROR;
    if (cause)
        return sdui__fail_code(err, SDUI_SQLITE, rc, -1,
                               "%s \"%s\": %s: %s (%s)", label, path, what,
                               sqlite3_errmsg(db), cause);
    return sdui__fail_code(err, SDUI_SQLITE, rc, -1, "%s \"%s\": %s: %s",
                           label, path, what, sqlite3_errmsg(db));
}

/* Runs SQL without results (sqlite_util.h). */
int sdui__sql_exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* Runs a statement to its end and resets it (sqlite_util.h). */
int sdui__sql_step_done(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The first n integer columns of a prepared query's first row, the
 * statement reset after (sqlite_util.h). */
int sdui__sql_stmt_ints(sqlite3_stmt *st, int64_t *out, int n)
{
    int i, rc;
    assert(n <= sqlite3_column_count(st));
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        for (i = 0; i < n; i++)
            out[i] = sqlite3_column_int64(st, i);
        rc = SQLITE_OK;
    }
    sqlite3_reset(st);
    return rc;
}

/* The first n integer columns of a query's first row (sqlite_util.h). */
int sdui__sql_ints(sqlite3 *db, const char *sql, int64_t *out, int n)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sdui__sql_stmt_ints(st, out, n);
    sqlite3_finalize(st);
    return rc;
}

/* The first column of a query's first row as text (sqlite_util.h). */
int sdui__sql_text(sqlite3 *db, const char *sql, char *buf, size_t cap)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    assert(cap > 0);
    buf[0] = '\0';
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(buf, cap, "%s", t ? (const char *)t : "");
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Prepares an IN (...) list of n variables and binds the keys
 * (sqlite_util.h). */
int sdui__sql_prepare_in(sqlite3 *db, const char *prefix,
                         const char *suffix, const sdui_sql_text *keys,
                         size_t n, sqlite3_stmt **out)
{
    size_t plen = strlen(prefix), slen = strlen(suffix), cap, at, i;
    char *sql;
    int rc;
    assert(n >= 1 && n <= SDUI_SQL_IN_CHUNK);
    *out = NULL;
    cap = plen + slen + 2 * n + 4;
    sql = sdui_malloc(cap);
    if (!sql)
        return SQLITE_NOMEM;
    memcpy(sql, prefix, plen);
    at = plen;
    sql[at++] = ' ';
    sql[at++] = '(';
    for (i = 0; i < n; i++) {
        if (i)
            sql[at++] = ',';
        sql[at++] = '?';
    }
    sql[at++] = ')';
    memcpy(sql + at, suffix, slen + 1);
    assert(at + slen + 1 <= cap);
    rc = sqlite3_prepare_v2(db, sql, -1, out, NULL);
    sdui_free(sql);
    for (i = 0; rc == SQLITE_OK && i < n; i++) {
        assert(keys[i].len <= INT32_MAX);
        rc = sqlite3_bind_text(*out, (int)i + 1, keys[i].p,
                               (int)keys[i].len, SQLITE_STATIC);
    }
    if (rc != SQLITE_OK) {
        sqlite3_finalize(*out);
        *out = NULL;
    }
    return rc;
}

/* Words for a file that is not a regular one ("a FIFO"). */
static const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "a special file";
}

/*
 * Checks that path can hold a database before SQLite opens it (see the
 * top of this file), creating it when missing.  Fails with SDUI_SQLITE and
 * a message naming the cause.
 */
static sdui_status check_path(const char *label, const char *path,
                              sdui_error *err)
{
    struct stat st;
    int fd, e;
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode) && stat(path, &st) != 0) {
            char to[200];
            ssize_t n;
            e = errno;
            n = readlink(path, to, sizeof to - 1);
            to[n > 0 ? n : 0] = '\0';
            return sdui__fail_code(err, SDUI_SQLITE, SQLITE_CANTOPEN, -1,
                              "%s \"%s\" is a dangling symbolic "
                              "link to \"%s\" (%s)",
                              label, path, to, sdui__sql_errno_text(e));
        }
        if (S_ISDIR(st.st_mode))
            return sdui__fail_code(err, SDUI_SQLITE, SQLITE_CANTOPEN, -1, "%s \"%s\" is a directory",
                              label, path);
        if (!S_ISREG(st.st_mode))
            return sdui__fail_code(err, SDUI_SQLITE, SQLITE_CANTOPEN, -1,
                              "%s \"%s\" is %s, not a regular file", label,
                              path, file_kind(st.st_mode));
        if (access(path, R_OK | W_OK) != 0)
            return sdui__fail_code(err, SDUI_SQLITE, SQLITE_CANTOPEN, -1,
                              "%s \"%s\" cannot be written: %s", label, path,
                              sdui__sql_errno_text(errno));
        return SDUI_OK;
    }
    if (errno != ENOENT)
        return sdui__fail_code(err, SDUI_SQLITE, SQLITE_CANTOPEN, -1,
                          "%s \"%s\" cannot be looked up: %s", label, path,
                          sdui__sql_errno_text(errno));
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) /* EEXIST: another opener was first */
        return sdui__fail_code(err, SDUI_SQLITE, SQLITE_CANTOPEN, -1,
                          "%s \"%s\" cannot be created: %s", label, path,
                          sdui__sql_errno_text(errno));
    if (fd >= 0)
        close(fd);
    return SDUI_OK;
}

/* Milliseconds since the epoch, for naming a moved-aside file. */
static long long wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 1 if some file is at path (a name is taken). */
static int name_taken(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Moves path and its -wal/-shm files aside, to names no file holds yet
 * (sqlite_util.h). */
sdui_status sdui__sql_move_aside(const char *label, const char *path,
                                 char *to, size_t cap, sdui_error *err)
{
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    char base[4096], from[4200], dest[4200];
    long long stamp = wall_ms();
    int n, taken = 1;
    size_t i;
    /* The first free name: <stamp>, then <stamp>-1, -2, ... (several
     * files damaged within one millisecond, or a clock set back). */
    for (n = 0; n < 1000 && taken; n++) {
        if (n == 0)
            snprintf(base, sizeof base, "%s.corrupt-%lld", path, stamp);
        else
            snprintf(base, sizeof base, "%s.corrupt-%lld-%d", path, stamp,
                     n);
        taken = 0;
        for (i = 0; i < 3 && !taken; i++) {
            snprintf(dest, sizeof dest, "%s%s", base, suffixes[i]);
            taken = name_taken(dest);
        }
    }
    if (taken)
        return sdui__fail_code(err, SDUI_IO, EEXIST, -1,
                               "%s \"%s\" is damaged and cannot be moved "
                               "aside: no free name \"%s.corrupt-%lld-N\"",
                               label, path, path, stamp);
    for (i = 0; i < 3; i++) {
        snprintf(from, sizeof from, "%s%s", path, suffixes[i]);
        snprintf(dest, sizeof dest, "%s%s", base, suffixes[i]);
        if (rename(from, dest) != 0 && errno != ENOENT) {
            int e = errno;
            return sdui__fail_code(err, SDUI_IO, e, -1,
                                   "%s \"%s\" is damaged and cannot be "
                                   "moved aside: %s",
                                   label, path, strerror(e));
        }
    }
    if (to && cap)
        snprintf(to, cap, "%s", base);
    return SDUI_OK;
}

/* Lists a database's schema objects, for schema_is. */
static const char schema_list_sql[] =
    "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name";

/* 1 if column c of two rows holds the same text (or both NULL). */
static int same_text(sqlite3_stmt *a, sqlite3_stmt *b, int c)
{
    const unsigned char *x = sqlite3_column_text(a, c);
    const unsigned char *y = sqlite3_column_text(b, c);
    return x && y ? strcmp((const char *)x, (const char *)y) == 0 : x == y;
}

/*
 * Compares db's schema objects with those steps[0, upto) make in a memory
 * database, as SQLite stores them (none when upto is 0).  Sets *same;
 * returns SQLite's code.
 */
static int schema_is(sqlite3 *db, const char *const *steps, int64_t upto,
                     int *same)
{
    sqlite3 *ref = NULL;
    sqlite3_stmt *a = NULL, *b = NULL;
    int rc, ra = SQLITE_DONE, rb = SQLITE_DONE, c;
    int64_t v;
    *same = 0;
    assert(upto >= 0);
    rc = sqlite3_open_v2(":memory:", &ref,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    for (v = 0; rc == SQLITE_OK && v < upto; v++)
        rc = sqlite3_exec(ref, steps[v], NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(ref, schema_list_sql, -1, &b, NULL);
    if (rc != SQLITE_OK) {
        /* Our own steps run on an empty memory database: only memory can
         * fail there, unless a step is not valid SQL. */
        assert((rc & 0xff) == SQLITE_NOMEM);
        rc = SQLITE_NOMEM;
    } else {
        rc = sqlite3_prepare_v2(db, schema_list_sql, -1, &a, NULL);
        *same = rc == SQLITE_OK;
    }
    while (*same) {
        ra = sqlite3_step(a);
        rb = sqlite3_step(b);
        if (ra != rb || ra != SQLITE_ROW)
            break;
        for (c = 0; c < 4; c++)
            *same &= same_text(a, b, c);
    }
    if (*same && ra != rb)
        *same = 0;
    if (ra != SQLITE_ROW && ra != SQLITE_DONE)
        rc = ra; /* the file could not be read */
    else if (rb != SQLITE_ROW && rb != SQLITE_DONE)
        rc = SQLITE_NOMEM;
    sqlite3_finalize(a);
    sqlite3_finalize(b);
    sqlite3_close(ref);
    return rc;
}

/* Refuses a file of a newer schema version, leaving it untouched. */
static sdui_status newer_version(const sdui_sql_file *f, sqlite3 *db,
                                 int64_t version, sdui_error *err)
{
    (void)db;
    return sdui__fail_code(err, SDUI_SQLITE, SQLITE_ERROR, -1,
                           "%s \"%s\" was written by a newer version "
                           "(schema %lld; this build reads %d); left "
                           "untouched",
                           f->label, f->path, (long long)version, f->version);
}

/*
 * Refuses a file that is not ours (see the top), leaving it untouched:
 * SDUI_SQLITE with code (SQLITE_NOTADB for a file that is not a database,
 * else SQLITE_ERROR) and `<label> "<path>" is not an SDUIKit <label> file
 * (<why>); left untouched`.
 */
static sdui_status not_ours(const sdui_sql_file *f, sqlite3 *db, int code,
                            const char *why, sdui_error *err)
{
    (void)db;
    return sdui__fail_code(err, SDUI_SQLITE, code, -1,
                           "%s \"%s\" is not an SDUIKit %s file (%s); "
                           "left untouched",
                           f->label, f->path, f->label, why);
}

/*
 * The application_id in the first bytes of db's file, read through
 * SQLite's own handle of it (see the top), for a file whose header SQLite
 * refuses; 0 when it cannot be read.
 */
static int32_t header_app_id(sqlite3 *db)
{
    sqlite3_file *file = NULL;
    unsigned char h[100];
    int rc;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) !=
            SQLITE_OK ||
        !file || !file->pMethods)
        return 0;
    memset(h, 0, sizeof h);
    /* A short file reads as far as it goes, the rest zeros. */
    rc = file->pMethods->xRead(file, h, (int)sizeof h, 0);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)
        return 0;
    return (int32_t)((uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 |
                     (uint32_t)h[70] << 8 | (uint32_t)h[71]);
}

/*
 * A read of the file failed with rc before it was known to be ours: a
 * damaged file of ours when its header still holds our application_id
 * (*damaged set), else not ours (or, for a failure that is no damage,
 * SQLite's error as it is).
 */
static sdui_status unreadable(const sdui_sql_file *f, sqlite3 *db, int rc,
                              int *damaged, sdui_error *err)
{
    /* SQLite's words first: anything run on db may replace them. */
    sdui_status st = sdui__sql_fail(db, rc, f->label, f->path,
                                    "cannot read the file", err);
    if (!sdui__sql_is_damage(rc))
        return st;
    if (header_app_id(db) == f->app_id) {
        *damaged = 1;
        return st;
    }
    return (rc & 0xff) == SQLITE_NOTADB
               ? not_ours(f, db, SQLITE_NOTADB,
                          "not a SQLite database", err)
               : not_ours(f, db, SQLITE_ERROR,
                          "SQLite cannot read it, and its header does not "
                          "say it is ours",
                          err);
}

/*
 * Checks that db holds exactly the objects of schema `version` (see
 * sqlite_util.h); 0 <= version <= f->version is the caller's to check,
 * a negative version never is.  mine: the application_id is ours, so
 * other objects are damage (*damaged set); otherwise the file is not ours.
 * Returns SQLite's code of a failed read (*rc), or SDUI_SQLITE when the
 * objects are not those.
 */
static sdui_status objects_are(const sdui_sql_file *f, sqlite3 *db,
                               int64_t version, int mine, int *rc,
                               int *damaged, sdui_error *err)
{
    int same = 0;
    assert(version <= f->version);
    *rc = version < 0 ? SQLITE_OK
                      : schema_is(db, f->steps, version, &same);
    if (*rc != SQLITE_OK || same)
        return SDUI_OK;
    if (!mine) {
        char why[96];
        if (version == 0)
            snprintf(why, sizeof why, "a SQLite database with tables of "
                                      "another program");
        else
            snprintf(why, sizeof why, "user_version %lld, but not the "
                                      "tables of that version",
                     (long long)version);
        return not_ours(f, db, SQLITE_ERROR, why, err);
    }
    *damaged = 1;
    return sdui__fail_code(err, SDUI_SQLITE, SQLITE_CORRUPT, -1,
                           "%s \"%s\": schema %lld does not hold our "
                           "tables",
                           f->label, f->path, (long long)version);
}

/*
 * Reads the file's application_id and user_version into head[0], head[1]
 * and tells whose file it is (see the top): SDUI_OK with *mine 1 for our
 * application_id, 0 for application_id 0 (still to be proven ours by its
 * objects); else the refusal.  A failed read is SQLite's code in *rc.
 */
static sdui_status read_head(const sdui_sql_file *f, sqlite3 *db,
                             int64_t head[2], int *mine, int *rc,
                             sdui_error *err)
{
    char why[96];
    *rc = sdui__sql_ints(db, "PRAGMA application_id", &head[0], 1);
    if (*rc == SQLITE_OK)
        *rc = sdui__sql_ints(db, "PRAGMA user_version", &head[1], 1);
    if (*rc != SQLITE_OK)
        return SDUI_OK;
    *mine = head[0] == f->app_id;
    if (!*mine && head[0] != 0) {
        snprintf(why, sizeof why, "a SQLite database of another program: "
                                  "application_id %lld",
                 (long long)head[0]);
        return not_ours(f, db, SQLITE_ERROR, why, err);
    }
    if (head[1] > f->version) {
        if (*mine)
            return newer_version(f, db, head[1], err);
        snprintf(why, sizeof why, "a SQLite database with user_version "
                                  "%lld and no application_id",
                 (long long)head[1]);
        return not_ours(f, db, SQLITE_ERROR, why, err);
    }
    if (head[1] < 0 && !*mine) {
        snprintf(why, sizeof why, "a SQLite database with user_version "
                                  "%lld",
                 (long long)head[1]);
        return not_ours(f, db, SQLITE_ERROR, why, err);
    }
    return SDUI_OK;
}

/*
 * Runs the steps a file of schema `version` lacks and sets user_version
 * and application_id, in one transaction.  Both are read again inside it:
 * another connection may have created or upgraded the file since it was
 * checked (then its objects are checked again, and nothing may be left to
 * do).  mine: the application_id was ours when checked.  On failure the
 * transaction is rolled back.
 */
static sdui_status run_steps(const sdui_sql_file *f, sqlite3 *db,
                             int64_t version, int mine, int *damaged,
                             sdui_error *err)
{
    sdui_status st = SDUI_OK;
    int64_t head[2] = {0, version}, v;
    int now_mine = mine;
    char sql[96], what[64];
    int rc = sdui__sql_exec(db, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK)
        st = read_head(f, db, head, &now_mine, &rc, err);
    if (st == SDUI_OK && rc == SQLITE_OK &&
        (head[1] != version || now_mine != mine))
        st = objects_are(f, db, head[1], now_mine, &rc, damaged, err);
    if (st != SDUI_OK) {
        sdui__sql_exec(db, "ROLLBACK");
        return st;
    }
    for (v = head[1]; rc == SQLITE_OK && v < f->version; v++)
        rc = sdui__sql_exec(db, f->steps[v]);
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d; PRAGMA "
                              "application_id=%ld",
             f->version, (long)f->app_id);
    if (rc == SQLITE_OK)
        rc = sdui__sql_exec(db, sql);
    if (rc == SQLITE_OK)
        rc = sdui__sql_exec(db, "COMMIT");
    if (rc != SQLITE_OK) {
        /* The failure's own words first: ROLLBACK replaces them (and
         * fails itself when SQLite already rolled back). */
        if (head[1] <= 0)
            snprintf(what, sizeof what, "cannot create the schema");
        else if (head[1] == f->version)
            snprintf(what, sizeof what, "cannot mark the file as ours");
        else
            snprintf(what, sizeof what,
                     "cannot upgrade the schema from version %lld",
                     (long long)head[1]);
        st = sdui__sql_fail(db, rc, f->label, f->path, what, err);
        *damaged = now_mine && sdui__sql_is_damage(rc);
        sdui__sql_exec(db, "ROLLBACK");
    }
    return st;
}

/* How long an open waits for other connections' locks, in ms. */
#define BUSY_MS 5000

/*
 * Sets WAL mode; returns SQLite's code, the mode into text.  A file still
 * in rollback mode (a new one) needs an exclusive lock for it, and when
 * other connections opening the same new file hold shared locks SQLite
 * answers SQLITE_BUSY at once, without the busy handler (which could
 * deadlock there); so the switch is tried again, for up to BUSY_MS.
 */
static int set_wal(sqlite3 *db, char *text, size_t cap)
{
    int rc, waited = 0;
    for (;;) {
        rc = sdui__sql_text(db, "PRAGMA journal_mode=WAL", text, cap);
        if ((rc & 0xff) != SQLITE_BUSY || waited >= BUSY_MS)
            return rc;
        sqlite3_sleep(10);
        waited += 10;
    }
}

/*
 * The checks and set-up of sdui__sql_open on an open connection (see the
 * top of this file).  On failure the caller closes db.
 */
static sdui_status bring_to_schema(const sdui_sql_file *f, sqlite3 *db,
                                   int *damaged, sdui_error *err)
{
    sdui_status st;
    int rc, mine = 0;
    int64_t head[2] = {0, 0}; /* application_id, user_version */
    char text[16] = "";

    sqlite3_busy_timeout(db, BUSY_MS);
    /* One read transaction: the header, the objects and the pages of one
     * state of the file, whatever another opener commits meanwhile (read
     * apart, a version and the objects of the next one looked like
     * damage).  A failure returns inside it; closing db ends it. */
    rc = sdui__sql_exec(db, "BEGIN");
    if (rc == SQLITE_OK) {
        st = read_head(f, db, head, &mine, &rc, err);
        if (st != SDUI_OK)
            return st;
    }
    if (rc != SQLITE_OK)
        return unreadable(f, db, rc, damaged, err);
    st = objects_are(f, db, head[1], mine, &rc, damaged, err);
    if (st != SDUI_OK)
        return st;
    if (rc != SQLITE_OK && !mine)
        return unreadable(f, db, rc, damaged, err);
    /* From here on the file is ours: damage is ours to move aside. */
    if (rc == SQLITE_OK) {
        /* The full check, indexes against the tables (see the top). */
        rc = sdui__sql_text(db, "PRAGMA integrity_check(1)", text,
                            sizeof text);
        if (rc == SQLITE_OK && strcmp(text, "ok") != 0)
            rc = SQLITE_CORRUPT;
    }
    if (rc == SQLITE_OK)
        rc = sdui__sql_exec(db, "COMMIT");
    if (rc != SQLITE_OK) {
        *damaged = sdui__sql_is_damage(rc);
        return sdui__sql_fail(db, rc, f->label, f->path,
                              "cannot read the file", err);
    }
    rc = set_wal(db, text, sizeof text);
    if (rc != SQLITE_OK)
        return sdui__sql_fail(db, rc, f->label, f->path,
                              "cannot switch to WAL mode", err);
    if (strcmp(text, "wal") != 0)
        return sdui__fail_code(err, SDUI_SQLITE, SQLITE_ERROR, -1,
                          "%s \"%s\": cannot use WAL mode (got "
                          "\"%s\")",
                          f->label, f->path, text);
    if (head[1] < f->version || !mine) {
        st = run_steps(f, db, head[1], mine, damaged, err);
        if (st != SDUI_OK)
            return st;
    }
    rc = sdui__sql_exec(db, f->durable ? "PRAGMA synchronous=FULL"
                                       : "PRAGMA synchronous=NORMAL");
    if (rc != SQLITE_OK)
        return sdui__sql_fail(db, rc, f->label, f->path, "cannot prepare",
                              err);
    return SDUI_OK;
}

/* 1 when path's WAL holds frames: commits not yet in the file. */
static int wal_has_frames(const char *path)
{
    char wal[4200];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", path);
    return stat(wal, &st) == 0 && st.st_size > 0;
}

/* Opens a database file and brings it to its schema (sqlite_util.h). */
sdui_status sdui__sql_open(const sdui_sql_file *f, sqlite3 **db, int *damaged,
                           sdui_error *err)
{
    sdui_status st;
    int rc, frames;

    assert(f && f->label && f->path && f->steps && f->version >= 1);
    *db = NULL;
    *damaged = 0;
    st = check_path(f->label, f->path, err);
    if (st != SDUI_OK)
        return st;
    frames = wal_has_frames(f->path);
    rc = sqlite3_open_v2(f->path, db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        if (!*db)
            return sdui__oom(err);
        st = sdui__sql_fail(*db, rc, f->label, f->path, "cannot open", err);
    } else {
        st = bring_to_schema(f, *db, damaged, err);
    }
    if (st != SDUI_OK) {
        /* A file refused (not ours, newer) keeps every byte: when its WAL
         * holds commits, the checkpoint SQLite runs as the last
         * connection closes would fold them into the file, so it is not
         * run.  Without commits it is, and it removes the WAL and shared
         * memory files this open made. */
        if (frames)
            sqlite3_db_config(*db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1,
                              (int *)NULL);
        sqlite3_close(*db);
        *db = NULL;
    }
    return st;
}

/* Opens, moving a damaged file of ours aside and starting afresh
 * (sqlite_util.h). */
sdui_status sdui__sql_open_or_reset(const sdui_sql_file *f, sqlite3 **db,
                                    int *moved, char *notice, size_t cap,
                                    sdui_error *err)
{
    int damaged = 0;
    char why[SDUI_ERROR_MESSAGE_SIZE] = "", to[4096] = "";
    sdui_status st = sdui__sql_open(f, db, &damaged, err);
    *moved = 0;
    if (notice && cap)
        notice[0] = '\0';
    if (st != SDUI_OK && damaged) {
        if (err)
            snprintf(why, sizeof why, "%s", err->message);
        st = sdui__sql_move_aside(f->label, f->path, to, sizeof to, err);
        if (st == SDUI_OK) {
            *moved = 1;
            if (notice && cap)
                snprintf(notice, cap,
                         "%s \"%s\" was damaged (%s); moved aside to "
                         "\"%s\", a fresh one was made",
                         f->label, f->path, why, to);
            st = sdui__sql_open(f, db, &damaged, err);
        }
    }
    if (st == SDUI_OK)
        sdui_error_clear(err);
    return st;
}

/* Forgets the owner's state for the connection's file and closes it; db
 * is NULL after. */
static void conn_drop(sdui_sql_conn *c)
{
    c->hooks->forget(c->owner);
    sqlite3_close(c->db);
    c->db = NULL;
}

/*
 * Opens the connection's file into c->db, moving a damaged one aside
 * (setting c->recovered and c->notice), and runs the owner's prepare hook.
 * On SDUI_OK err is clear; on failure c->db is NULL.
 */
static sdui_status conn_connect(sdui_sql_conn *c, sdui_error *err)
{
    char notice[SDUI_SQL_NOTICE_CAP];
    int moved = 0;
    sdui_status st;

    st = sdui__sql_open_or_reset(&c->file, &c->db, &moved, notice,
                                 sizeof notice, err);
    if (moved) {
        c->recovered = 1;
        memcpy(c->notice, notice, sizeof notice);
    }
    if (st == SDUI_OK && c->hooks->prepare) {
        st = c->hooks->prepare(c->owner, err);
        if (st != SDUI_OK)
            conn_drop(c);
    }
    assert(st == SDUI_OK || c->db == NULL);
    return st;
}

/* The one open sequence of a handle's file (sqlite_util.h). */
sdui_status sdui__sql_conn_open(sdui_sql_conn *c, const sdui_sql_file *f,
                                const sdui_sql_hooks *hooks, void *owner,
                                sdui_error *err)
{
    size_t plen;
    char *path;
    sdui_status st;

    assert(c && f && f->path && hooks && hooks->forget);
    memset(c, 0, sizeof *c);
    plen = strlen(f->path);
    path = sdui_malloc(plen + 1);
    if (!path)
        return sdui__oom(err);
    memcpy(path, f->path, plen + 1);
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        sdui_free(path);
        return sdui__fail(err, SDUI_OOM, -1, "cannot create a mutex");
    }
    c->file = *f;
    c->file.path = path;
    c->hooks = hooks;
    c->owner = owner;
    st = conn_connect(c, err);
    if (st != SDUI_OK) {
        pthread_mutex_destroy(&c->mu);
        sdui_free(path);
    }
    return st;
}

/* Closes the file and releases the connection (sqlite_util.h). */
void sdui__sql_conn_close(sdui_sql_conn *c)
{
    if (c->db)
        conn_drop(c);
    pthread_mutex_destroy(&c->mu);
    /* The connection's own copy (sdui__sql_conn_open). */
    sdui_free((char *)c->file.path);
    c->file.path = NULL;
}

/* Whether a damaged file was moved aside (sqlite_util.h). */
int sdui__sql_conn_recovered(sdui_sql_conn *c)
{
    int r;
    pthread_mutex_lock(&c->mu);
    r = c->recovered;
    pthread_mutex_unlock(&c->mu);
    return r;
}

/* The last move aside's notice (sqlite_util.h). */
size_t sdui__sql_conn_recovery(sdui_sql_conn *c, char *buf, size_t cap)
{
    int n;
    pthread_mutex_lock(&c->mu);
    n = snprintf(buf, cap, "%s", c->notice);
    pthread_mutex_unlock(&c->mu);
    return n < 0 ? 0 : (size_t)n;
}

/* Opens a fresh file if a reset could not (sqlite_util.h). */
sdui_status sdui__sql_conn_ready(sdui_sql_conn *c, sdui_error *err)
{
    return c->db ? SDUI_OK : conn_connect(c, err);
}

/* Locks the connection with its file open (sqlite_util.h). */
sdui_status sdui__sql_conn_lock(sdui_sql_conn *c, sdui_error *err)
{
    sdui_status st;
    pthread_mutex_lock(&c->mu);
    st = sdui__sql_conn_ready(c, err);
    if (st != SDUI_OK)
        pthread_mutex_unlock(&c->mu);
    return st;
}

/* Unlocks the connection (sqlite_util.h). */
void sdui__sql_conn_unlock(sdui_sql_conn *c)
{
    pthread_mutex_unlock(&c->mu);
}

/* sdui__sql_fail on the connection (sqlite_util.h). */
sdui_status sdui__sql_conn_fail(sdui_sql_conn *c, int rc, const char *what,
                                sdui_error *err)
{
    return sdui__sql_fail(c->db, rc, c->file.label, c->file.path, what, err);
}

/*
 * Copies why damage was found, the owner's check's words or SQLite's, and
 * returns the code for the error record: SQLITE_CORRUPT for the owner's
 * checks, else SQLite's extended code of the damage that rc reported.
 */
static int damage_reason(sdui_sql_conn *c, int rc, char *buf, size_t cap)
{
    int code = SQLITE_CORRUPT;
    if (c->note) {
        snprintf(buf, cap, "%s", c->note);
    } else {
        int ext = sqlite3_extended_errcode(c->db);
        snprintf(buf, cap, "%s", sqlite3_errmsg(c->db));
        code = (ext & 0xff) == (rc & 0xff) ? ext : rc;
    }
    c->note = NULL;
    return code;
}

/*
 * After a call met damage (no statement of the call left open, no
 * transaction): closes the connection, moves the file aside and opens a
 * fresh one.  The call still fails, with SDUI_SQLITE and a message saying
 * the file was damaged and reset (what: the call's step; why and code:
 * from damage_reason), or with the error of moving aside or reopening
 * (then c->db is NULL and the next call tries again).
 */
static sdui_status reset_damaged(sdui_sql_conn *c, const char *what,
                                 const char *why, int code, sdui_error *err)
{
    sdui_status st;
    char to[4096] = "";
    conn_drop(c);
    st = sdui__sql_move_aside(c->file.label, c->file.path, to, sizeof to,
                              err);
    if (st == SDUI_OK) {
        c->recovered = 1;
        snprintf(c->notice, sizeof c->notice,
                 "%s \"%s\" was damaged (%s: %s); moved aside to \"%s\", "
                 "a fresh one was made",
                 c->file.label, c->file.path, what, why, to);
        st = conn_connect(c, err);
    }
    if (st != SDUI_OK)
        return st;
    return sdui__fail_code(err, SDUI_SQLITE, code, -1,
                           "%s \"%s\" was damaged and was reset (%s: %s): "
                           "moved aside to \"%s\", now empty",
                           c->file.label, c->file.path, what, why, to);
}

/* Reports a failed step, resetting on damage (sqlite_util.h). */
sdui_status sdui__sql_conn_step_fail(sdui_sql_conn *c, int rc,
                                     const char *what, sdui_error *err)
{
    char why[160];
    int code;
    if (!sdui__sql_is_damage(rc))
        return sdui__sql_conn_fail(c, rc, what, err);
    code = damage_reason(c, rc, why, sizeof why);
    return reset_damaged(c, what, why, code, err);
}

/* Commits, or rolls back and reports, resetting on damage
 * (sqlite_util.h). */
sdui_status sdui__sql_conn_end(sdui_sql_conn *c, int rc, const char *what,
                               sdui_error *err)
{
    char why[160];
    int code = 0;
    sdui_status st = SDUI_OK;
    if (rc == SQLITE_OK)
        rc = sdui__sql_exec(c->db, "COMMIT");
    if (rc == SQLITE_OK)
        return SDUI_OK;
    if (sdui__sql_is_damage(rc))
        code = damage_reason(c, rc, why, sizeof why);
    else
        st = sdui__sql_conn_fail(c, rc, what, err);
    sdui__sql_exec(c->db, "ROLLBACK"); /* fails harmlessly when SQLite
                                          already rolled back */
    return sdui__sql_is_damage(rc) ? reset_damaged(c, what, why, code, err)
                                   : st;
}
