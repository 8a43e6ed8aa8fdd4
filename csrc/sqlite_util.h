/*
 * sqlite_util.h - the SQLite plumbing of the core's database files
 * (sqlite_util.c), not public.
 *
 * What every file the core keeps in SQLite needs, whatever its tables:
 * checking a path before SQLite sees it, telling our own file from any
 * other (an application_id per kind of file), opening in WAL mode behind a
 * user_version gate, a schema history whose steps upgrade an older file
 * in place, objects that must be exactly those of the file's version, the
 * integrity check, moving a damaged file of ours aside (and saying where),
 * errors that name the file and the system's cause, one-row queries, reads
 * of many keys with batched IN (...) lists, and a handle's connection
 * (sdui_sql_conn): the one open sequence of a handle's file, and the reset
 * of a file that damage is met in after open.  The token cache (disk.c)
 * and the durable queue (outbox.c) are built on it, each giving only what
 * is its own: the label, the schema's steps (its tables), the
 * application_id, how durable, and the hooks for what it keeps per file.
 *
 * Every function works on a connection the caller owns and serialises (the
 * callers hold the sdui_sql_conn's mutex); none keeps state between calls
 * but in the caller's sdui_sql_conn.  Messages name the file as `<label> "<path>"`,
 * e.g. token cache "/tmp/c.db".
 */
#ifndef SDUI_SQLITE_UTIL_H
#define SDUI_SQLITE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <pthread.h>
#include <sqlite3.h>

#include "sdui/error.h"

/* Ids (or any keys) per IN (...) list; well under SQLite's variable limit. */
#define SDUI_SQL_IN_CHUNK 500

/* Room for a recovery notice (sdui_sql_conn.notice): the label, the path
 * twice (where it was, where it went) and why. */
#define SDUI_SQL_NOTICE_CAP 1024

/*
 * What to open: one database file, the history of its schema and how
 * durable it is.
 *
 * The schema is a list of steps: steps[0] makes version 1 on an empty
 * file, steps[v - 1] takes a file from version v - 1 to version v.  A
 * released step never changes: a file at version v was made by steps[0]
 * to steps[v - 1] exactly, so the objects a file of version v must hold
 * are those these steps make in a memory database, as SQLite stores them.
 * A step may create, alter or drop objects and move rows; it runs inside
 * the one transaction that also sets user_version and application_id.
 *
 * app_id is the kind of file, written at offset 68 of the header
 * (PRAGMA application_id) when the file is created: what tells our file
 * from another program's, see sdui__sql_open.
 */
typedef struct sdui_sql_file {
    const char *label;        /* names the file in messages ("token cache") */
    const char *path;
    const char *const *steps; /* version (>= 1) steps of SQL, as above      */
    int version;              /* the user_version this build writes: the
                                 number of steps                           */
    int durable;              /* 1: synchronous=FULL; 0: NORMAL             */
    int32_t app_id;           /* this kind of file's application_id, not 0  */
} sdui_sql_file;

/* A key to bind: bytes and length (not NUL-terminated in general). */
typedef struct sdui_sql_text {
    const char *p;
    size_t len;
} sdui_sql_text;

/* The text of a system error code, in the words of the core's messages
 * ("no space left on device", "is a directory", ...).  Thread-safe. */
const char *sdui__sql_errno_text(int code);

/* 1 for the SQLite result codes that mean the file itself is damaged
 * (SQLITE_CORRUPT, SQLITE_NOTADB, and their extended codes). */
int sdui__sql_is_damage(int rc);

/*
 * Reports SQLite's last error on db as SDUI_SQLITE: `<label> "<path>":
 * <what>: <SQLite's words>`, followed by the system's cause for a failed
 * write, open or full disk, which SQLite's own words ("disk I/O error")
 * leave out.  rc is the code the failed step returned; err->code gets
 * db's extended result code when it is of the same kind, else rc (never
 * 0: SQLITE_ERROR when neither tells).  Call it before anything else runs
 * on db: a ROLLBACK replaces the message and the codes.  Returns
 * SDUI_SQLITE.
 */
sdui_status sdui__sql_fail(sqlite3 *db, int rc, const char *label,
                           const char *path, const char *what,
                           sdui_error *err);

/* Runs SQL without results; returns SQLite's code. */
int sdui__sql_exec(sqlite3 *db, const char *sql);

/* Runs a bound statement that returns no rows and resets it for the next
 * binding (the bindings stay); SQLITE_OK when it ran to the end, else
 * SQLite's code. */
int sdui__sql_step_done(sqlite3_stmt *s);

/*
 * Reads the first row of a query: its first n columns as integers into
 * out.  Returns SQLITE_OK for a row, SQLITE_DONE for none, or SQLite's
 * error code.
 */
int sdui__sql_ints(sqlite3 *db, const char *sql, int64_t *out, int n);

/* As sdui__sql_ints with a statement the caller prepared and keeps: it is
 * stepped once and reset (its bindings stay). */
int sdui__sql_stmt_ints(sqlite3_stmt *st, int64_t *out, int n);

/* Reads the first column of a query's first row as text into buf[0, cap)
 * (truncated, always NUL-terminated; "" without a row).  Returns as
 * sdui__sql_ints. */
int sdui__sql_text(sqlite3 *db, const char *sql, char *buf, size_t cap);

/*
 * Prepares `<prefix> (?,?,...)<suffix>` with one variable per key and
 * binds keys[0, n) to them as text (SQLITE_STATIC: the keys must outlive
 * the statement).  1 <= n <= SDUI_SQL_IN_CHUNK; a caller with more keys
 * runs one statement per chunk.  Returns SQLite's code (SQLITE_NOMEM when
 * the SQL text cannot be built); *out is NULL unless SQLITE_OK.
 */
int sdui__sql_prepare_in(sqlite3 *db, const char *prefix,
                         const char *suffix, const sdui_sql_text *keys,
                         size_t n, sqlite3_stmt **out);

/*
 * Moves path and its -wal and -shm files aside, to
 * `<path>.corrupt-<ms since the epoch>[-<n>][-wal|-shm]`, after damage is
 * found (the connection must be closed): the first of those names that no
 * file holds yet, so an earlier file moved aside is never replaced.
 * Missing companions are fine.  to[0, cap) gets the new path of the main
 * file (to may be NULL).  SDUI_IO, naming the file and the cause, when a
 * rename fails or no free name is found.
 */
sdui_status sdui__sql_move_aside(const char *label, const char *path,
                                 char *to, size_t cap, sdui_error *err);

/*
 * Opens f->path (creating it when missing) and brings it to f's newest
 * schema.  The path is checked first (a directory, a FIFO, a dangling
 * link, a missing or unwritable folder fail at once, naming the cause).
 * Then the file must be ours, which is one of:
 *   - its application_id is f->app_id (every file made by this build);
 *   - application_id 0, a user_version from 1 to f->version and exactly
 *     the schema objects of that version (a file made before application
 *     ids; it gets f->app_id as it is opened);
 *   - an empty database: no bytes, or application_id and user_version 0
 *     and no schema objects (nothing in it can be lost);
 *   - a file SQLite cannot read whose header still holds f->app_id at
 *     offset 68 (our file, damaged).
 * Any other file (not a SQLite database, another program's database, one
 * of ours in name only) is refused with SDUI_SQLITE, `<label> "<path>" is
 * not an SDUIKit <label> file (<why>); left untouched`, and not a byte of
 * it is written; err->code is SQLITE_NOTADB for a file that is not a database,
 * else SQLITE_ERROR.  A file of ours with a user_version newer than
 * f->version is refused and left untouched too.  A file of ours whose
 * schema objects are not exactly those of the version it claims, or that
 * fails PRAGMA integrity_check, or that SQLite cannot read, is damaged.
 * Only then is WAL mode set, the missing steps run (all of them on a new
 * file, the later ones on an older file: an upgrade in place that keeps
 * its rows), and the synchronous level applied.  The steps, the new
 * user_version and the application_id are one transaction, in which they
 * are read again, so two processes opening one old file upgrade it once.
 * On SDUI_OK *db is the open connection (the caller closes it); on failure
 * *db is NULL, and *damaged is 1 when the failure means the file is ours
 * and damaged (moving it aside and opening again may help), else 0.
 */
sdui_status sdui__sql_open(const sdui_sql_file *f, sqlite3 **db, int *damaged,
                           sdui_error *err);

/*
 * sdui__sql_open, and when the file is ours and damaged: moves it aside
 * (sdui__sql_move_aside), sets *moved to 1 and opens a fresh file.
 * notice[0, cap) (notice may be NULL) then says so: `<label> "<path>" was
 * damaged (<why>); moved aside to "<new path>", a fresh one was made`,
 * else it is "".  On SDUI_OK err is clear, also after a move (the caller
 * tells it by *moved and the notice).
 */
sdui_status sdui__sql_open_or_reset(const sdui_sql_file *f, sqlite3 **db,
                                    int *moved, char *notice, size_t cap,
                                    sdui_error *err);

/*
 * What the owner of a connection keeps for its file, handed to the
 * connection once (a static table of the owner's), each hook called with
 * the owner: forget drops what the owner keeps for the file now open
 * (prepared statements, totals, remembered accesses), before the
 * connection closes it; prepare, NULL for nothing, readies what the owner
 * needs on a file just opened, and on failure reports it in err (the
 * connection then forgets and closes the file).
 */
typedef struct sdui_sql_hooks {
    void (*forget)(void *owner);
    sdui_status (*prepare)(void *owner, sdui_error *err);
} sdui_sql_hooks;

/*
 * A handle's connection to its database file, the one open sequence of the
 * token cache and the durable queue, and the reset of a file that damage
 * is met in after open.
 *
 * Opening (sdui__sql_conn_open): the connection keeps its own copy of the
 * file's description and path, makes the mutex the owner holds around
 * every use, opens the file (sdui__sql_open_or_reset: a damaged file of
 * ours is moved aside and a fresh one made, telling so by recovered and
 * notice) and calls the owner's prepare hook.
 *
 * Reset: when a call meets SQLITE_CORRUPT or SQLITE_NOTADB, or one of the
 * owner's own checks finds the file is not what it wrote, the call forgets
 * and closes the file, moves it aside, opens a fresh one and fails with
 * SDUI_SQLITE, `<label> "<path>" was damaged and was reset (<what>:
 * <why>): moved aside to "<new path>", now empty`; later calls work on the
 * fresh file.  If moving aside or opening again fails, the call fails with
 * that error instead and db stays NULL: the next call opens it
 * (sdui__sql_conn_ready).
 *
 * The owner embeds one and touches its fields only to read db, file and
 * (under mu) recovered and notice, and to set note.
 */
typedef struct sdui_sql_conn {
    sqlite3 *db;       /* NULL after a reset that could not open a file   */
    /* The file (label, schema, durability, application_id); path is the
     * connection's own copy. */
    sdui_sql_file file;
    pthread_mutex_t mu; /* the owner's calls hold it around every use     */
    /* Why the owner's own check found damage (SQLite's message is stale
     * then); set with SQLITE_CORRUPT, read and cleared by the reset.     */
    const char *note;
    int recovered;     /* 1 once a damaged file was moved aside           */
    /* The last move aside, in words (sdui__sql_open_or_reset's notice);
     * "" until one happens. */
    char notice[SDUI_SQL_NOTICE_CAP];
    const sdui_sql_hooks *hooks;
    void *owner;       /* handed to the hooks                             */
} sdui_sql_conn;

/*
 * Opens the file f describes into c (see sdui_sql_conn), with hooks called
 * with owner; f and f->path need not outlive the call, hooks must outlive
 * c.  On SDUI_OK c is ready and err is clear (a move aside is told by
 * c->recovered and c->notice, not by an error); the owner ends it with
 * sdui__sql_conn_close.  On failure nothing is left to release: SDUI_OOM
 * (the path's copy, the mutex), a failure of sdui__sql_open_or_reset, or
 * the prepare hook's.
 */
sdui_status sdui__sql_conn_open(sdui_sql_conn *c, const sdui_sql_file *f,
                                const sdui_sql_hooks *hooks, void *owner,
                                sdui_error *err);

/* Forgets and closes the file (when open) and releases what
 * sdui__sql_conn_open made.  No other thread may use c any more. */
void sdui__sql_conn_close(sdui_sql_conn *c);

/* Whether a damaged file was moved aside since open, read under c->mu.
 * Thread-safe. */
int sdui__sql_conn_recovered(sdui_sql_conn *c);

/* Copies the last move aside's notice ("" before one) into buf[0, cap),
 * truncated and NUL-terminated when cap > 0, read under c->mu; returns
 * its full length.  Thread-safe. */
size_t sdui__sql_conn_recovery(sdui_sql_conn *c, char *buf, size_t cap);

/* SDUI_OK when c->db is open, else opens it again (after a reset that
 * could not), as sdui__sql_conn_open does.  Under c->mu. */
sdui_status sdui__sql_conn_ready(sdui_sql_conn *c, sdui_error *err);

/*
 * Locks c->mu and makes sure c->db is open (sdui__sql_conn_ready): how
 * every call of an owner that uses the file begins.  On SDUI_OK the caller
 * holds the mutex and releases it with sdui__sql_conn_unlock; on failure
 * the mutex is released again and the error returned.
 */
sdui_status sdui__sql_conn_lock(sdui_sql_conn *c, sdui_error *err);

/* Releases c->mu, taken by sdui__sql_conn_lock. */
void sdui__sql_conn_unlock(sdui_sql_conn *c);

/* sdui__sql_fail on c's connection and file. */
sdui_status sdui__sql_conn_fail(sdui_sql_conn *c, int rc, const char *what,
                                sdui_error *err);

/*
 * Reports a failed step with code rc (SQLite's, or SQLITE_CORRUPT with
 * c->note from the owner's own checks): damage resets the connection (see
 * sdui_sql_conn), any other failure is reported as it is.  No statement of
 * the call may be open, no transaction either, and nothing but finalizing
 * the failed statement may have run on db since the failure.
 */
sdui_status sdui__sql_conn_step_fail(sdui_sql_conn *c, int rc,
                                     const char *what, sdui_error *err);

/*
 * Ends a transaction begun with BEGIN (IMMEDIATE); rc is how its work went.
 * On success commits and returns SDUI_OK; otherwise, or if the commit
 * fails, rolls back and reports `what`, resetting the connection on damage.
 * The failure's words are taken first: ROLLBACK replaces them.  No
 * statement of the call may be open.
 */
sdui_status sdui__sql_conn_end(sdui_sql_conn *c, int rc, const char *what,
                               sdui_error *err);

#endif
