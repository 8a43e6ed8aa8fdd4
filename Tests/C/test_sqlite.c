/*
 * test_sqlite.c - the SQLite plumbing of the core (sqlite_util.c) on its
 * own, under another label and schema than the token cache's (as a durable
 * queue would use it), and the library codes that error records carry
 * beside the category (sdui_error.code): SQLite's extended result code for
 * SDUI_SQLITE, errno for SDUI_IO.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "sqlite_raw.h"
#include "sdui/sdui.h"
/* The plumbing under test is internal. */
#include "../../csrc/sqlite_util.h"

static char dir[256];

/* A path in the test's folder (a static buffer: copy it to keep it). */
static const char *path_for(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* 1 if some file of the folder starts with prefix (a moved-aside file). */
static int has_file_starting(const char *prefix)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q '^%s'", dir, prefix);
    return system(cmd) == 0;
}

/*
 * The schema history of the examples, a queue of items as a durable
 * queue's: 1 makes the table, 2 adds a column, 3 adds a table and a row
 * (a step that moves data).
 */
static const char *const queue_steps[] = {
    "CREATE TABLE IF NOT EXISTS items(seq INTEGER PRIMARY KEY,"
    " body BLOB NOT NULL);",
    "ALTER TABLE items ADD COLUMN at INTEGER NOT NULL DEFAULT 0;",
    "CREATE TABLE meta(k TEXT PRIMARY KEY, v INTEGER NOT NULL);"
    "INSERT INTO meta SELECT 'items', count(*) FROM items;",
};

/* The application_id of the examples' queue files ("QUEU"). */
#define QUEUE_APP_ID 0x51554555

/* The file description of a queue at path, at schema `version`. */
static sdui_sql_file queue_file_at(const char *path, int version)
{
    sdui_sql_file f;
    f.label = "durable queue";
    f.path = path;
    f.steps = queue_steps;
    f.version = version;
    f.durable = 1;
    f.app_id = QUEUE_APP_ID;
    return f;
}

/* The file description of a queue at path, at the newest schema. */
static sdui_sql_file queue_file(const char *path)
{
    return queue_file_at(path, 3);
}

/*
 * Open under another schema: a fresh file gets it and its user_version;
 * the one-row helpers read them; a newer file is refused and left alone;
 * a file of ours with other tables is damage, and open_or_reset moves it
 * aside and says where.
 */
static void test_open_another_schema(void)
{
    char p[512], text[32], notice[SDUI_SQL_NOTICE_CAP];
    sdui_sql_file f;
    sqlite3 *db = NULL;
    int damaged = -1, moved = -1;
    int64_t v[2] = {0, 0};
    sdui_error err;

    snprintf(p, sizeof p, "%s", path_for("queue.db"));
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    CHECK(db != NULL);
    CHECK_EQ_INT(damaged, 0);
    CHECK_EQ_INT(sdui__sql_ints(db, "PRAGMA user_version", v, 1), SQLITE_OK);
    CHECK_EQ_INT(v[0], 3);
    CHECK_EQ_INT(sdui__sql_text(db, "PRAGMA journal_mode", text, sizeof text),
                 SQLITE_OK);
    CHECK_EQ_STR(text, "wal");
    CHECK_EQ_INT(sdui__sql_exec(db, "INSERT INTO items(body) VALUES('a'),"
                                    "('b')"),
                 SQLITE_OK);
    CHECK_EQ_INT(sdui__sql_ints(db, "SELECT count(*), max(seq) FROM items",
                                v, 2),
                 SQLITE_OK);
    CHECK_EQ_INT(v[0], 2);
    CHECK_EQ_INT(v[1], 2);
    /* No row: SQLITE_DONE and an empty text. */
    CHECK_EQ_INT(sdui__sql_text(db, "SELECT body FROM items WHERE seq=9",
                                text, sizeof text),
                 SQLITE_DONE);
    CHECK_EQ_STR(text, "");
    sqlite3_close(db);

    /* Reopened: the same file, kept. */
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    CHECK_EQ_INT(sdui__sql_ints(db, "SELECT count(*) FROM items", v, 1),
                 SQLITE_OK);
    CHECK_EQ_INT(v[0], 2);
    sqlite3_close(db);

    /* A newer schema: refused under the caller's label, untouched. */
    CHECK_EQ_INT(raw_exec(p, "PRAGMA user_version=4"), SQLITE_OK);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK(db == NULL);
    CHECK_EQ_INT(damaged, 0);
    CHECK(strstr(err.message, "durable queue") != NULL);
    CHECK(strstr(err.message, "newer version") != NULL);
    CHECK_EQ_INT(err.code, SQLITE_ERROR);

    /* A table of its own in a file of ours: damage; open_or_reset moves
     * it aside, says where, and starts afresh. */
    snprintf(p, sizeof p, "%s", path_for("extra.db"));
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_exec(p, "CREATE TABLE other(x)"), SQLITE_OK);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK_EQ_INT(damaged, 1);
    CHECK_EQ_INT(err.code, SQLITE_CORRUPT);
    CHECK(strstr(err.message, "does not hold our tables") != NULL);
    CHECK_STATUS(sdui__sql_open_or_reset(&f, &db, &moved, notice,
                                         sizeof notice, &err),
                 SDUI_OK);
    CHECK_EQ_INT(moved, 1);
    CHECK_EQ_INT(err.status, SDUI_OK);
    CHECK_EQ_INT(err.code, 0);
    CHECK(has_file_starting("extra.db.corrupt-"));
    CHECKF(strstr(notice, "durable queue") && strstr(notice, p) &&
               strstr(notice, "does not hold our tables") &&
               strstr(notice, "moved aside to") &&
               strstr(notice, ".corrupt-"),
           "notice: %s", notice);
    CHECK_EQ_INT(sdui__sql_ints(db, "SELECT count(*) FROM items", v, 1),
                 SQLITE_OK);
    CHECK_EQ_INT(v[0], 0);
    sqlite3_close(db);
}

/* Reads one integer through a connection of its own (-1 on failure). */
static int64_t raw_int(const char *path, const char *sql)
{
    sqlite3 *db;
    int64_t v = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK &&
        sdui__sql_ints(db, sql, &v, 1) != SQLITE_OK)
        v = -1;
    sqlite3_close(db);
    return v;
}

/* Writes len bytes to path; 1 on success. */
static int put_bytes(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f)
        return 0;
    ok = fwrite(bytes, 1, len, f) == len;
    return (fclose(f) == 0) & ok;
}

/* Overwrites len bytes at offset of the file at path; 1 on success. */
static int patch_bytes(const char *path, long offset, const void *bytes,
                       size_t len)
{
    FILE *f = fopen(path, "r+b");
    int ok;
    if (!f)
        return 0;
    ok = fseek(f, offset, SEEK_SET) == 0 && fwrite(bytes, 1, len, f) == len;
    return (fclose(f) == 0) & ok;
}

/*
 * Opens a file that is not ours through sdui__sql_open and
 * sdui__sql_open_or_reset: both refuse it (not damage) naming the path,
 * with `code`, and the file keeps every byte, with nothing moved aside.
 */
static void check_refused(const char *name, int code)
{
    char p[512], notice[SDUI_SQL_NOTICE_CAP], prefix[64];
    unsigned char *before, *after;
    long n_before, n_after;
    sdui_sql_file f;
    sqlite3 *db = NULL;
    int damaged = -1, moved = -1;
    sdui_error err;

    snprintf(p, sizeof p, "%s", path_for(name));
    before = file_bytes(p, &n_before);
    CHECKF(before != NULL, "%s: no file", name);
    f = queue_file(p);
    CHECKF(sdui__sql_open(&f, &db, &damaged, &err) == SDUI_SQLITE,
           "%s: opened (%s)", name, err.message);
    CHECK(db == NULL);
    CHECKF(damaged == 0, "%s: taken for damage", name);
    CHECKF(err.code == code, "%s: code %d, not %d (%s)", name, err.code,
           code, err.message);
    CHECKF(strstr(err.message, "not an SDUIKit durable queue file") &&
               strstr(err.message, "left untouched") &&
               strstr(err.message, p),
           "%s: message \"%s\"", name, err.message);
    CHECKF(sdui__sql_open_or_reset(&f, &db, &moved, notice, sizeof notice,
                                   &err) == SDUI_SQLITE,
           "%s: open_or_reset took it", name);
    CHECK_EQ_INT(moved, 0);
    CHECK_EQ_STR(notice, "");
    after = file_bytes(p, &n_after);
    CHECKF(after && n_after == n_before &&
               memcmp(before, after, (size_t)n_before) == 0,
           "%s: changed (%ld bytes, then %ld)", name, n_before, n_after);
    snprintf(prefix, sizeof prefix, "%s.corrupt-", name);
    CHECKF(!has_file_starting(prefix), "%s: moved aside", name);
    free(before);
    free(after);
}

/*
 * Whose file it is: a text file, garbage, another program's database
 * (with or without an application_id, in WAL mode with frames not yet in
 * the file, with our tables under another id or under none at the wrong
 * version), a file of ours in name only: each is refused, not damage,
 * and not a byte of it changes.  Ours: a new file gets the
 * application_id; a file made before application ids with exactly our
 * tables is kept and marked; an empty database becomes ours; a file of
 * ours whose header SQLite refuses, but which still holds our
 * application_id, is damage and is moved aside.
 */
static void test_whose_file(void)
{
    static const char text[] = "Dear diary, today I kept my notes in a "
                               "file with a .db name.\n";
    static unsigned char garbage[5000];
    static const unsigned char zeros[16] = {0};
    char p[512], q[600], notice[SDUI_SQL_NOTICE_CAP];
    sdui_sql_file f;
    sqlite3 *db = NULL, *keep = NULL;
    int damaged = -1, moved = -1, i;
    sdui_error err;

    CHECK(put_bytes(path_for("diary.db"), text, sizeof text - 1));
    check_refused("diary.db", SQLITE_NOTADB);
    for (i = 0; i < (int)sizeof garbage; i++)
        garbage[i] = (unsigned char)((i * 7919) & 0xff);
    CHECK(put_bytes(path_for("garbage.db"), garbage, sizeof garbage));
    check_refused("garbage.db", SQLITE_NOTADB);
    CHECK(put_bytes(path_for("short.db"), "SQLite", 6));
    check_refused("short.db", SQLITE_NOTADB);

    CHECK_EQ_INT(raw_exec(path_for("notes.db"),
                          "CREATE TABLE notes(body TEXT);"
                          "INSERT INTO notes VALUES('mine')"),
                 SQLITE_OK);
    check_refused("notes.db", SQLITE_ERROR);
    CHECK_EQ_INT(raw_exec(path_for("app.db"),
                          "PRAGMA application_id=1234;"
                          "CREATE TABLE t(x); PRAGMA user_version=2"),
                 SQLITE_OK);
    check_refused("app.db", SQLITE_ERROR);
    /* Our tables under another program's id. */
    snprintf(p, sizeof p, "%s", path_for("lookalike.db"));
    for (i = 0; i < 3; i++)
        CHECK_EQ_INT(raw_exec(p, queue_steps[i]), SQLITE_OK);
    CHECK_EQ_INT(raw_exec(p, "PRAGMA user_version=3;"
                             "PRAGMA application_id=77"),
                 SQLITE_OK);
    check_refused("lookalike.db", SQLITE_ERROR);
    /* Our version 1's tables claiming version 2, without an id. */
    snprintf(p, sizeof p, "%s", path_for("claims.db"));
    CHECK_EQ_INT(raw_exec(p, queue_steps[0]), SQLITE_OK);
    CHECK_EQ_INT(raw_exec(p, "PRAGMA user_version=2"), SQLITE_OK);
    check_refused("claims.db", SQLITE_ERROR);
    /* A newer version without an id. */
    CHECK_EQ_INT(raw_exec(path_for("future.db"), "CREATE TABLE t(x);"
                                                 "PRAGMA user_version=9"),
                 SQLITE_OK);
    check_refused("future.db", SQLITE_ERROR);

    /* Another program's WAL file, with commits not yet in the file: not
     * even its own checkpoint runs when it is refused. */
    snprintf(p, sizeof p, "%s", path_for("walled.db"));
    CHECK_EQ_INT(sqlite3_open(p, &keep), SQLITE_OK);
    CHECK_EQ_INT(sdui__sql_exec(keep, "PRAGMA journal_mode=WAL;"
                                      "PRAGMA wal_autocheckpoint=0;"
                                      "CREATE TABLE notes(body TEXT);"
                                      "INSERT INTO notes VALUES('a')"),
                 SQLITE_OK);
    sqlite3_db_config(keep, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1,
                      (int *)NULL);
    sqlite3_close(keep);
    check_refused("walled.db", SQLITE_ERROR);
    CHECK_EQ_INT(raw_int(p, "SELECT count(*) FROM notes"), 1);
    /* Its WAL folded in (closed normally): refused, and the WAL and
     * shared-memory files the open made are gone again. */
    snprintf(p, sizeof p, "%s", path_for("walled.db"));
    snprintf(q, sizeof q, "%s-wal", p);
    CHECK(access(q, F_OK) != 0);
    check_refused("walled.db", SQLITE_ERROR);
    CHECK(access(q, F_OK) != 0);
    snprintf(q, sizeof q, "%s-shm", p);
    CHECK(access(q, F_OK) != 0);

    /* A new file is ours: it carries the application_id. */
    snprintf(p, sizeof p, "%s", path_for("new.db"));
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    CHECK_EQ_INT(sdui__sql_exec(db, "INSERT INTO items(body) VALUES('a')"),
                 SQLITE_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_int(p, "PRAGMA application_id"), QUEUE_APP_ID);

    /* Its header's first bytes damaged: SQLite refuses it, offset 68
     * still says it is ours, so it is damage and is moved aside. */
    CHECK(patch_bytes(p, 0, zeros, sizeof zeros));
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK_EQ_INT(damaged, 1);
    CHECK_STATUS(sdui__sql_open_or_reset(&f, &db, &moved, notice,
                                         sizeof notice, &err),
                 SDUI_OK);
    CHECK_EQ_INT(moved, 1);
    CHECK(has_file_starting("new.db.corrupt-"));
    CHECKF(strstr(notice, "moved aside to") != NULL, "notice: %s", notice);
    sqlite3_close(db);

    /* Made before application ids: exactly version 2's tables, rows in
     * them.  Kept, upgraded and marked. */
    snprintf(p, sizeof p, "%s", path_for("legacy.db"));
    for (i = 0; i < 2; i++)
        CHECK_EQ_INT(raw_exec(p, queue_steps[i]), SQLITE_OK);
    CHECK_EQ_INT(raw_exec(p, "INSERT INTO items(body) VALUES('old');"
                             "PRAGMA user_version=2"),
                 SQLITE_OK);
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_int(p, "PRAGMA application_id"), QUEUE_APP_ID);
    CHECK_EQ_INT(raw_int(p, "PRAGMA user_version"), 3);
    CHECK_EQ_INT(raw_int(p, "SELECT count(*) FROM items"), 1);
    /* At the newest version already: marked, nothing else. */
    snprintf(p, sizeof p, "%s", path_for("legacy3.db"));
    for (i = 0; i < 3; i++)
        CHECK_EQ_INT(raw_exec(p, queue_steps[i]), SQLITE_OK);
    CHECK_EQ_INT(raw_exec(p, "PRAGMA user_version=3"), SQLITE_OK);
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_int(p, "PRAGMA application_id"), QUEUE_APP_ID);

    /* An empty database (a page size set, nothing else) becomes ours. */
    snprintf(p, sizeof p, "%s", path_for("empty.db"));
    CHECK_EQ_INT(raw_exec(p, "PRAGMA page_size=1024; VACUUM"), SQLITE_OK);
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_int(p, "PRAGMA application_id"), QUEUE_APP_ID);
    /* So does a file of no bytes. */
    snprintf(p, sizeof p, "%s", path_for("zero.db"));
    CHECK(put_bytes(p, "", 0));
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_int(p, "PRAGMA user_version"), 3);
}

/*
 * The schema history: a version-1 file is upgraded in place to 3, its rows
 * kept, each step once; the objects are checked against the version the
 * file claims (a version-2 file with version 3's objects, or with a table
 * of its own, is damage); a step that fails leaves the file whole at its
 * version; an older build refuses the newer file and leaves it alone.
 */
static void test_schema_history(void)
{
    char p[512], q[512];
    sdui_sql_file f;
    sqlite3 *db = NULL;
    int damaged = -1;
    int64_t v[2];
    sdui_error err;

    /* Version 1, as a first release wrote it, with rows. */
    snprintf(p, sizeof p, "%s", path_for("history.db"));
    f = queue_file_at(p, 1);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    CHECK_EQ_INT(sdui__sql_exec(db, "INSERT INTO items(body) VALUES('a'),"
                                    "('b'),('c')"),
                 SQLITE_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_int(p, "PRAGMA user_version"), 1);

    /* Opened by the newest build: upgraded, rows kept. */
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    CHECK_EQ_INT(damaged, 0);
    CHECK_EQ_INT(sdui__sql_ints(db, "PRAGMA user_version", v, 1), SQLITE_OK);
    CHECK_EQ_INT(v[0], 3);
    CHECK_EQ_INT(sdui__sql_ints(db, "SELECT count(*), sum(at) FROM items",
                                v, 2),
                 SQLITE_OK);
    CHECK_EQ_INT(v[0], 3);
    CHECK_EQ_INT(v[1], 0); /* the new column's default */
    CHECK_EQ_INT(sdui__sql_ints(db, "SELECT v FROM meta WHERE k='items'",
                                v, 1),
                 SQLITE_OK);
    CHECK_EQ_INT(v[0], 3); /* the data step saw the old rows */
    sqlite3_close(db);
    /* Reopened: nothing runs again (the data step would add no row, the
     * ALTER would fail). */
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_int(p, "SELECT count(*) FROM meta"), 1);

    /* The build of version 2 refuses the upgraded file, untouched. */
    f = queue_file_at(p, 2);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK_EQ_INT(damaged, 0);
    CHECK(strstr(err.message, "newer version") != NULL);
    CHECK_EQ_INT(raw_int(p, "PRAGMA user_version"), 3);

    /* A file claiming version 2 that holds version 3's objects: damage,
     * checked against version 2's objects, nothing run. */
    CHECK_EQ_INT(raw_exec(p, "PRAGMA user_version=2"), SQLITE_OK);
    f = queue_file(p);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK_EQ_INT(damaged, 1);
    CHECK(strstr(err.message, "schema 2 does not hold our tables") != NULL);
    CHECK_EQ_INT(raw_int(p, "PRAGMA user_version"), 2);

    /* Version 2 with a table of its own: damage too. */
    snprintf(q, sizeof q, "%s", path_for("history-extra.db"));
    f = queue_file_at(q, 2);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_exec(q, "CREATE TABLE mine(x)"), SQLITE_OK);
    f = queue_file(q);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK_EQ_INT(damaged, 1);

    /* A negative user_version: damage in a file of ours, another
     * program's file without our application_id. */
    snprintf(q, sizeof q, "%s", path_for("history-negative.db"));
    f = queue_file(q);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
    CHECK_EQ_INT(raw_exec(q, "PRAGMA user_version=-1"), SQLITE_OK);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK_EQ_INT(damaged, 1);
    snprintf(q, sizeof q, "%s", path_for("history-negative-theirs.db"));
    CHECK_EQ_INT(raw_exec(q, "PRAGMA user_version=-1"), SQLITE_OK);
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK_EQ_INT(damaged, 0);
    CHECK(strstr(err.message, "not an SDUIKit durable queue file") != NULL);
}

/* A history whose step 2 fails on the rows of a file (a unique index over
 * equal bodies). */
static const char *const failing_steps[] = {
    "CREATE TABLE IF NOT EXISTS items(seq INTEGER PRIMARY KEY,"
    " body BLOB NOT NULL);",
    "CREATE TABLE log(x); CREATE UNIQUE INDEX items_body ON items(body);",
};

/*
 * An upgrade that fails is rolled back whole: the file stays at its
 * version with its rows and none of the step's objects, the error names
 * the version, and it is no damage.
 */
static void test_failed_upgrade(void)
{
    char p[512];
    sdui_sql_file f;
    sqlite3 *db = NULL;
    int damaged = -1;
    sdui_error err;

    snprintf(p, sizeof p, "%s", path_for("failing.db"));
    f = queue_file_at(p, 1);
    f.steps = failing_steps;
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    CHECK_EQ_INT(sdui__sql_exec(db, "INSERT INTO items(body) VALUES('a'),"
                                    "('a')"),
                 SQLITE_OK);
    sqlite3_close(db);
    f.version = 2;
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_SQLITE);
    CHECK(db == NULL);
    CHECK_EQ_INT(damaged, 0);
    CHECK_EQ_INT(err.code & 0xff, SQLITE_CONSTRAINT);
    CHECKF(strstr(err.message, "cannot upgrade the schema from version 1") !=
               NULL,
           "message: %s", err.message);
    CHECK_EQ_INT(raw_int(p, "PRAGMA user_version"), 1);
    CHECK_EQ_INT(raw_int(p, "SELECT count(*) FROM items"), 2);
    CHECK_EQ_INT(raw_int(p, "SELECT count(*) FROM sqlite_master"
                            " WHERE name IN ('log', 'items_body')"),
                 0);
    /* The old build still opens it. */
    f.version = 1;
    CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
    sqlite3_close(db);
}

/*
 * Processes opening one version-1 file at once (even rounds), or creating
 * one new file at once (odd rounds): each open succeeds, none takes the
 * others' work for damage (nothing is moved aside), and the steps run
 * once (a second run of the ALTER would fail, of the data step would add
 * a second row).
 */
static void test_concurrent_upgrade(void)
{
    int round, k, ok = 1;
    for (round = 0; round < 20 && ok; round++) {
        char p[512], name[32];
        sdui_sql_file f;
        sqlite3 *db = NULL;
        int damaged, status;
        pid_t kids[6];
        sdui_error err;
        snprintf(name, sizeof name, "race%d.db", round);
        snprintf(p, sizeof p, "%s", path_for(name));
        f = queue_file_at(p, 1);
        if (round % 2 == 0) {
            CHECK_STATUS(sdui__sql_open(&f, &db, &damaged, &err), SDUI_OK);
            sdui__sql_exec(db, "INSERT INTO items(body) VALUES('a')");
            sqlite3_close(db);
        }
        f = queue_file(p);
        for (k = 0; k < 6; k++) {
            kids[k] = fork();
            if (kids[k] == 0) {
                sqlite3 *mine = NULL;
                int dmg;
                sdui_error e;
                alarm(20);
                if (sdui__sql_open(&f, &mine, &dmg, &e) != SDUI_OK) {
                    fprintf(stderr, "race: %s\n", e.message);
                    _exit(1);
                }
                sqlite3_close(mine);
                _exit(0);
            }
        }
        for (k = 0; k < 6; k++) {
            waitpid(kids[k], &status, 0);
            ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
        }
        CHECKF(ok, "round %d: an open failed", round);
        snprintf(name, sizeof name, "race%d.db.corrupt-", round);
        CHECKF(!has_file_starting(name), "round %d: moved aside", round);
        CHECK_EQ_INT(raw_int(p, "PRAGMA user_version"), 3);
        CHECK_EQ_INT(raw_int(p, "SELECT count(*) FROM meta"), 1);
        CHECK_EQ_INT(raw_int(p, "SELECT v FROM meta"), 1 - round % 2);
    }
}

/*
 * Batched IN lists: one variable per key, every key bound (lengths
 * respected, no NUL needed), from one key to a full chunk.
 */
static void test_prepare_in(void)
{
    static char keys_text[SDUI_SQL_IN_CHUNK][8];
    static sdui_sql_text keys[SDUI_SQL_IN_CHUNK];
    size_t sizes[] = {1, 2, 7, SDUI_SQL_IN_CHUNK}, i, k;
    sqlite3 *db;
    CHECK_EQ_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
    CHECK_EQ_INT(sdui__sql_exec(db, "CREATE TABLE t(k TEXT PRIMARY KEY)"),
                 SQLITE_OK);
    for (i = 0; i < SDUI_SQL_IN_CHUNK; i++) {
        char sql[64];
        snprintf(keys_text[i], sizeof keys_text[i], "k%03zuXX", i);
        keys[i].p = keys_text[i];
        keys[i].len = 4; /* "k007": the XX tail is not part of the key */
        snprintf(sql, sizeof sql, "INSERT INTO t VALUES('k%03zu')", i);
        sdui__sql_exec(db, sql);
    }
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        sqlite3_stmt *st = NULL;
        int64_t n = 0;
        CHECK_EQ_INT(sdui__sql_prepare_in(db, "SELECT count(*) FROM t WHERE k"
                                              " IN",
                                          " AND 1", keys, sizes[k], &st),
                     SQLITE_OK);
        CHECKF(st != NULL, "%zu keys", sizes[k]);
        if (!st)
            continue;
        CHECK_EQ_INT(sqlite3_bind_parameter_count(st), (int)sizes[k]);
        if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        CHECK_EQ_INT(n, (int64_t)sizes[k]);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
}

/* Moving aside takes the -wal and -shm files too, and a missing one is
 * fine; it says where the file went, never to a name another file holds;
 * a rename that fails is SDUI_IO with its errno. */
static void test_move_aside(void)
{
    static char names[20][600];
    char p[512], sub[700], to[600];
    sdui_error err;
    FILE *f;
    int i;
    snprintf(p, sizeof p, "%s", path_for("aside.db"));
    f = fopen(p, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    snprintf(sub, sizeof sub, "%s-wal", p);
    f = fopen(sub, "w");
    if (f)
        fclose(f);
    CHECK_STATUS(sdui__sql_move_aside("durable queue", p, to, sizeof to,
                                      &err),
                 SDUI_OK);
    CHECK(access(p, F_OK) != 0);
    CHECK(access(sub, F_OK) != 0);
    CHECK(has_file_starting("aside.db.corrupt-"));
    CHECK(access(to, F_OK) == 0);
    snprintf(sub, sizeof sub, "%s-wal", to);
    CHECK(access(sub, F_OK) == 0);

    /* Files damaged in a row, most within one millisecond: each gets a
     * name of its own, and none replaces another. */
    snprintf(p, sizeof p, "%s", path_for("row.db"));
    for (i = 0; i < 20; i++) {
        f = fopen(p, "w");
        if (f) {
            fprintf(f, "generation %d", i);
            fclose(f);
        }
        CHECK_STATUS(sdui__sql_move_aside("durable queue", p, names[i],
                                          sizeof names[i], &err),
                     SDUI_OK);
    }
    for (i = 0; i < 20; i++) {
        char want[32], got[32] = "";
        f = fopen(names[i], "r");
        if (f) {
            if (!fgets(got, sizeof got, f))
                got[0] = '\0';
            fclose(f);
        }
        snprintf(want, sizeof want, "generation %d", i);
        CHECKF(strcmp(got, want) == 0, "%s holds \"%s\", not \"%s\"",
               names[i], got, want);
    }

    /* A file in a folder that cannot be renamed into: a file "folder". */
    snprintf(sub, sizeof sub, "%s/plain-file", dir);
    f = fopen(sub, "w");
    if (f)
        fclose(f);
    snprintf(p, sizeof p, "%s/plain-file/inside.db", dir);
    /* The source is missing (ENOTDIR on the way), which is not ENOENT. */
    CHECK_STATUS(sdui__sql_move_aside("durable queue", p, NULL, 0, &err),
                 SDUI_IO);
    CHECK_EQ_INT(err.code, ENOTDIR);
    CHECK(strstr(err.message, "cannot be moved aside") != NULL);
}

/* Child of test_sqlite_codes: opens a cache whose file may not grow, and
 * writes the error record to fd. */
static void open_without_growth(const char *path, int fd)
{
    struct rlimit rl = {0, 0};
    sdui_disk *d = NULL;
    sdui_error e;
    memset(&e, 0, sizeof e);
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        _exit(2);
    sdui_disk_open(path, NULL, &d, &e);
    sdui_disk_free(d);
    if (write(fd, &e, sizeof e) != (ssize_t)sizeof e)
        _exit(1);
    _exit(0);
}

/*
 * SDUI_SQLITE errors carry SQLite's extended result code: a write that
 * the system refuses (files may not grow: EFBIG) is an I/O error with its
 * extended code; the core's own refusals carry the code SQLite uses for
 * the case.
 */
static void test_sqlite_codes(void)
{
    char p[512];
    sdui_disk *d = NULL;
    sdui_error err;
    int fds[2], status;
    pid_t pid;

    snprintf(p, sizeof p, "%s", path_for("no-growth.db"));
    CHECK(pipe(fds) == 0);
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        open_without_growth(p, fds[1]);
    }
    close(fds[1]);
    memset(&err, 0, sizeof err);
    CHECK(read(fds[0], &err, sizeof err) == (ssize_t)sizeof err);
    close(fds[0]);
    waitpid(pid, &status, 0);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK(strstr(err.message, "file too large") != NULL);
    /* SQLITE_IOERR_WRITE and its kin: an extended code of SQLITE_IOERR
     * (or SQLITE_FULL), not the bare primary code. */
    CHECKF((err.code & 0xff) == SQLITE_IOERR || (err.code & 0xff) == SQLITE_FULL,
           "code %d", err.code);
    CHECKF(err.code == SQLITE_FULL || err.code > 0xff, "code %d", err.code);

    /* Refused before SQLite opens it: SQLITE_CANTOPEN. */
    snprintf(p, sizeof p, "%s", path_for("a-folder"));
    CHECK(mkdir(p, 0700) == 0);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK_EQ_INT(err.code, SQLITE_CANTOPEN);

    /* A newer schema: SQLITE_ERROR. */
    snprintf(p, sizeof p, "%s", path_for("newer.db"));
    CHECK_EQ_INT(raw_exec(p, "PRAGMA user_version=99"), SQLITE_OK);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK_EQ_INT(err.code, SQLITE_ERROR);

    /* Cleared by the next success. */
    snprintf(p, sizeof p, "%s", path_for("fine.db"));
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_EQ_INT(err.code, 0);
    sdui_disk_free(d);
}

/* SDUI_IO errors carry errno; other categories carry 0. */
static void test_io_codes(void)
{
    sdui_pack *pack = NULL;
    sdui_error err;
    char p[512];

    snprintf(p, sizeof p, "%s", path_for("no-such-pack.json.gz"));
    CHECK_STATUS(sdui_pack_open_file(p, NULL, &pack, &err), SDUI_IO);
    CHECK_EQ_INT(err.code, ENOENT);
    CHECK_STATUS(sdui_pack_open_file(dir, NULL, &pack, &err), SDUI_IO);
    CHECK_EQ_INT(err.code, EISDIR);
    CHECK_STATUS(sdui_pack_open_file("/dev/null", NULL, &pack, &err), SDUI_IO);
    CHECK_EQ_INT(err.code, ENODEV);
    if (getuid() != 0) { /* root reads anything */
        FILE *f;
        snprintf(p, sizeof p, "%s", path_for("unreadable.json.gz"));
        f = fopen(p, "w");
        if (f)
            fclose(f);
        chmod(p, 0);
        CHECK_STATUS(sdui_pack_open_file(p, NULL, &pack, &err), SDUI_IO);
        CHECK_EQ_INT(err.code, EACCES);
    }
    /* Not a library error: 0. */
    CHECK_STATUS(sdui_pack_open_memory("xx", 2, NULL, &pack, &err), SDUI_GZIP);
    CHECK_EQ_INT(err.code, 0);
    sdui_error_clear(&err);
    CHECK_EQ_INT(err.code, 0);
}

/* Runs every test in a fresh temporary folder. */
int main(void)
{
    char cmd[300];
    snprintf(dir, sizeof dir, "/tmp/sdui-test-sqlite-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_open_another_schema();
    test_whose_file();
    test_schema_history();
    test_failed_upgrade();
    test_concurrent_upgrade();
    test_prepare_in();
    test_move_aside();
    test_sqlite_codes();
    test_io_codes();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_summary();
}
