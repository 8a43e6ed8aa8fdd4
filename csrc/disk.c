/*
 * disk.c - the on-disk token cache over SQLite (see disk.h): tokens and
 * the last good payloads of screens.
 *
 * Storage: two tables keyed by id, `tokens` with the JSON and `screens`
 * (from schema version 2) with the last good payload of each screen, each
 * body a BLOB in its table's last column; an index on last_access orders
 * each table's eviction.  PRAGMA user_version holds the schema version;
 * schema_steps below is its history, which sqlite_util.c replays to create
 * a file or to upgrade an older one in place.  The two tables have bounds
 * of their own (disk.h says why) and evict apart, through one eviction
 * routine over a table description (`bounded`).
 *
 * Byte totals are length(json), never the stored `bytes` column: a file is
 * input, and one damaged `bytes` value (huge, negative, a REAL) would stop
 * every later write or lift the byte bound.  length() of a BLOB costs no
 * more than reading `bytes`: SQLite takes a BLOB's size from the record
 * header and skips the content, so no overflow page is read (a sum over
 * 3,000 rows of 64 KiB read 378 pages either way, against 48,378 when the
 * content is read).  `bytes` is still written, for files shared with
 * earlier builds, which sum it.
 *
 * Eviction (least recently accessed first): after a batch of tokens or a
 * screen is written, in the same transaction, count the table's rows and
 * sum their lengths; while either bound is exceeded, delete the row with
 * the oldest last_access (ties by id).  The
 * running totals are checked as they shrink: a row longer than what is left
 * of the sum means the file changed under us, and is reported as damage.
 *
 * Opening (the one sequence of the durable queue too: the path's copy, the
 * mutex, the file), the schema and integrity checks, moving a damaged file
 * aside and the errors that name the file and the system's cause are the
 * SQLite plumbing of sqlite_util.c (sdui_sql_conn), which this file
 * configures with the cache's label, schema and application_id.  Damage
 * met after open (SQLITE_CORRUPT or SQLITE_NOTADB from any
 * call, totals that do not add up, a read that finds a row not asked for)
 * resets the cache: the call closes the connection, moves the file aside,
 * opens a fresh file, and fails saying so; later calls work.  That reset
 * is sqlite_util.c's too, shared with the durable queue; the cache's part
 * is its hooks, which prepare the write on a new file and drop it and the
 * remembered accesses of the old one.
 *
 * Every statement that looks rows up by id takes the rowid from the id
 * index and compares the id on the table row itself, with the table NOT
 * INDEXED (a rowid lookup, no index): otherwise SQLite reads the id column
 * from the index it searched, and a damaged index would hand one row out,
 * refresh it or delete it under another row's id.
 *
 * Reads do not write.  Marking rows as accessed would otherwise cost a
 * commit (an fsync when durable) per lookup, so accesses (to tokens and to
 * screens) are remembered in memory and applied inside the next write
 * transaction, or at close; losing them in a crash only makes eviction a
 * little less exact.
 *
 * One path in, one path out.  The reads by id (sdui_disk_get copying rows,
 * sdui_disk_get_tokens parsing them into tokens) share one query loop,
 * read_ids, which hands each checked row to a callback while SQLite's
 * column pointers are valid: a token is parsed straight from the column,
 * with one copy into its own storage.  The writes of token rows
 * (sdui_disk_put from records, sdui_disk_put_tokens from token handles)
 * share one writer, write_rows, which asks a row source for each row and
 * binds the bytes where they are (SQLITE_STATIC), the token's own JSON
 * included.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "internal.h"
#include "sqlite_util.h"

/* Picks the row of id ?1 so that the id is checked on the row (see the
 * top); the statement names the table `tokens NOT INDEXED`. */
#define WHERE_ROW_OF_ID1 \
    " WHERE rowid=(SELECT rowid FROM tokens WHERE id=?1) AND id=?1"

/* How the cache's file is named in messages. */
#define LABEL "token cache"

/* Pending accesses kept until the next write; later ones are not noted
 * (eviction order is advisory). */
#define MAX_PENDING_TOUCHES 4096

/* Which table a remembered access is to. */
enum { TOUCH_TOKEN, TOUCH_SCREEN };

typedef struct touch {
    char *id;
    size_t len;
    int64_t at;
    int kind; /* TOUCH_TOKEN or TOUCH_SCREEN */
} touch;

struct sdui_disk {
    /* The connection, reset on damage (sqlite_util.h); its db is NULL
     * after a reset that could not open a fresh file. */
    sdui_sql_conn conn; /* its mutex guards the rest                     */
    sdui_disk_options opts;
    uint64_t evictions, screen_evictions;
    sqlite3_stmt *put;
    touch *touches;
    size_t ntouches, cap_touches;
};

/*
 * The strings a read copies out of SQLite: NUL-terminated copies in a chain
 * of blocks that never move, so a row's id, ETag and JSON can be pointed at
 * as soon as they are copied.  A block holds at least ARENA_BLOCK bytes, or
 * one string that is longer; a string that does not fit what is left of the
 * newest block starts a new one.  The result owns the chain.
 */
#define ARENA_BLOCK 4096

typedef struct arena_block {
    struct arena_block *next; /* the block made before this one */
    size_t used, cap;
    char bytes[];
} arena_block;

typedef struct arena {
    arena_block *head; /* the newest block, or NULL */
} arena;

struct sdui_disk_rows {
    sdui_disk_record *recs;
    size_t count;
    arena arena;            /* the ids, ETags and JSON */
};

struct sdui_disk_tokens {
    sdui_disk_token *items; /* each holds one reference to its token */
    size_t count;
    arena arena;            /* the ids and ETags */
};

/* The schema's history (sqlite_util.h): steps[v - 1] makes version v.
 * A released step never changes; a new version adds a step. */
static const char *const schema_steps[SDUI_DISK_SCHEMA_VERSION] = {
    /* 1: the tokens.  The text of the first release, kept as it was. */
    "CREATE TABLE IF NOT EXISTS tokens("
    " id TEXT PRIMARY KEY NOT NULL,"
    " version INTEGER NOT NULL,"
    " etag TEXT NOT NULL,"
    " bytes INTEGER NOT NULL,"
    " primitive_version INTEGER NOT NULL,"
    " fetched_at INTEGER NOT NULL,"
    " expires_at INTEGER NOT NULL,"
    " last_access INTEGER NOT NULL,"
    /* Last: reading a column after a large blob walks its overflow pages. */
    " json BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS tokens_last_access"
    " ON tokens(last_access, id);",
    /* 2: the screens' last good payloads. */
    "CREATE TABLE screens("
    " id TEXT PRIMARY KEY NOT NULL,"
    " etag TEXT NOT NULL,"
    " fetched_at INTEGER NOT NULL,"
    " last_access INTEGER NOT NULL,"
    /* Last, as the tokens' JSON. */
    " payload BLOB NOT NULL);"
    "CREATE INDEX screens_last_access ON screens(last_access, id);",
};

/* Fills the defaults (disk.h). */
void sdui_disk_options_default(sdui_disk_options *out)
{
    assert(out);
    out->max_entries = SDUI_CACHE_DEFAULT_MAX_ENTRIES;
    out->max_bytes = SDUI_CACHE_DEFAULT_MAX_BYTES;
    out->durable = 1;
    out->max_screens = SDUI_DISK_DEFAULT_MAX_SCREENS;
    out->max_screen_bytes = SDUI_DISK_DEFAULT_MAX_SCREEN_BYTES;
}

/* Runs SQL without results on the cache's connection. */
static int exec(sdui_disk *d, const char *sql)
{
    return sdui__sql_exec(d->conn.db, sql);
}

/*
 * A bounded table: its rows are evicted, least recently accessed first,
 * to an entry and a byte bound over the lengths of its blob column.
 */
typedef struct bounded {
    const char *totals_sql; /* count(*) and the sum of the blob lengths  */
    const char *oldest_sql; /* rowid and blob length, oldest access first */
    const char *delete_sql; /* deletes rowid ?1                           */
} bounded;

/* The tokens: the JSON's lengths. */
static const bounded tokens_table = {
    "SELECT count(*), coalesce(sum(length(json)),0) FROM tokens",
    "SELECT rowid, length(json) FROM tokens ORDER BY last_access, id",
    "DELETE FROM tokens WHERE rowid=?",
};

/* The screens: the payloads' lengths. */
static const bounded screens_table = {
    "SELECT count(*), coalesce(sum(length(payload)),0) FROM screens",
    "SELECT rowid, length(payload) FROM screens ORDER BY last_access, id",
    "DELETE FROM screens WHERE rowid=?",
};

/*
 * Row count and blob bytes of a table, in one pass over it.  The sum
 * cannot overflow for lengths SQLite itself stored; if it fails anyway, or
 * a total is negative, the file is not what we wrote: SQLITE_CORRUPT.
 */
static int totals(sdui_disk *d, const bounded *t, int64_t *count,
                  int64_t *bytes)
{
    int64_t v[2] = {0, 0};
    int rc = sdui__sql_ints(d->conn.db, t->totals_sql, v, 2);
    if (rc == SQLITE_ERROR || (rc == SQLITE_OK && (v[0] < 0 || v[1] < 0))) {
        d->conn.note = "its totals cannot be summed";
        rc = SQLITE_CORRUPT;
    }
    *count = v[0];
    *bytes = v[1];
    return rc;
}

/* Drops the remembered accesses. */
static void clear_touches(sdui_disk *d)
{
    size_t i;
    for (i = 0; i < d->ntouches; i++)
        sdui_free(d->touches[i].id);
    d->ntouches = 0;
}

/* Forgets the write statement and the accesses to rows of the file the
 * connection is about to close: its forget hook (sqlite_util.h), also
 * before a damaged file is moved aside. */
static void forget_file(void *owner)
{
    sdui_disk *d = owner;
    sqlite3_finalize(d->put);
    d->put = NULL;
    clear_touches(d);
}

/* Prepares the write statement on a file just opened: the connection's
 * prepare hook (sqlite_util.h). */
static sdui_status prepare_file(void *owner, sdui_error *err)
{
    sdui_disk *d = owner;
    int rc = sqlite3_prepare_v2(
        d->conn.db,
        "INSERT OR REPLACE INTO tokens(id, version, etag, json, bytes,"
        " primitive_version, fetched_at, expires_at, last_access)"
        " VALUES(?,?,?,?,?,?,?,?,?)",
        -1, &d->put, NULL);
    if (rc != SQLITE_OK)
        return sdui__sql_conn_fail(&d->conn, rc, "cannot prepare", err);
    return SDUI_OK;
}

/* What the cache keeps per file, for its connection. */
static const sdui_sql_hooks cache_hooks = {forget_file, prepare_file};

/* Opens a cache file, moving a damaged one aside (disk.h). */
sdui_status sdui_disk_open(const char *path, const sdui_disk_options *opts,
                           sdui_disk **out, sdui_error *err)
{
    sdui_disk *d;
    sdui_sql_file f;
    sdui_status st;

    sdui_error_clear(err);
    if (!path || !out || !*path)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "path or out is NULL");
    *out = NULL;
    d = sdui_malloc(sizeof *d);
    if (!d)
        return sdui__oom(err);
    memset(d, 0, sizeof *d);
    if (opts)
        d->opts = *opts;
    else
        sdui_disk_options_default(&d->opts);
    if (!d->opts.max_entries)
        d->opts.max_entries = SDUI_CACHE_DEFAULT_MAX_ENTRIES;
    if (!d->opts.max_bytes)
        d->opts.max_bytes = SDUI_CACHE_DEFAULT_MAX_BYTES;
    if (!d->opts.max_screens)
        d->opts.max_screens = SDUI_DISK_DEFAULT_MAX_SCREENS;
    if (!d->opts.max_screen_bytes)
        d->opts.max_screen_bytes = SDUI_DISK_DEFAULT_MAX_SCREEN_BYTES;
    f.label = LABEL;
    f.path = path;
    f.steps = schema_steps;
    f.version = SDUI_DISK_SCHEMA_VERSION;
    f.durable = d->opts.durable;
    f.app_id = SDUI_DISK_APPLICATION_ID;
    st = sdui__sql_conn_open(&d->conn, &f, &cache_hooks, d, err);
    if (st != SDUI_OK) {
        sdui_free(d);
        return st;
    }
    *out = d;
    return SDUI_OK;
}

/* Whether a damaged file was moved aside (disk.h); an accessor: disk must
 * not be NULL.  Read under the mutex, which a reset writes it under (the
 * handle is never const itself: the pointer only promises no change). */
int sdui_disk_recovered(const sdui_disk *disk)
{
    assert(disk);
    return sdui__sql_conn_recovered(&((sdui_disk *)disk)->conn);
}

/* The last recovery notice (disk.h), read under the mutex a reset writes
 * it under. */
size_t sdui_disk_recovery(const sdui_disk *disk, char *buf, size_t cap)
{
    assert(disk && (buf || cap == 0));
    return sdui__sql_conn_recovery(&((sdui_disk *)disk)->conn, buf, cap);
}

/* Writes remembered accesses; must run inside a write transaction.  The
 * statement of a kind is prepared only when an access of it is pending. */
static int apply_touches(sdui_disk *d)
{
    static const char *const sql[2] = {
        "UPDATE tokens NOT INDEXED SET last_access=max(last_access,?2)"
        WHERE_ROW_OF_ID1,
        "UPDATE screens NOT INDEXED SET last_access=max(last_access,?2)"
        " WHERE rowid=(SELECT rowid FROM screens WHERE id=?1) AND id=?1",
    };
    sqlite3_stmt *st[2] = {NULL, NULL};
    size_t i;
    int rc = SQLITE_OK;
    for (i = 0; rc == SQLITE_OK && i < d->ntouches; i++) {
        const touch *t = &d->touches[i];
        sqlite3_stmt **s = &st[t->kind];
        assert(t->kind == TOUCH_TOKEN || t->kind == TOUCH_SCREEN);
        if (!*s && (rc = sqlite3_prepare_v2(d->conn.db, sql[t->kind], -1, s,
                                            NULL)) != SQLITE_OK)
            break;
        sqlite3_bind_text(*s, 1, t->id, (int)t->len, SQLITE_STATIC);
        sqlite3_bind_int64(*s, 2, t->at);
        rc = sdui__sql_step_done(*s);
    }
    sqlite3_finalize(st[0]);
    sqlite3_finalize(st[1]);
    return rc;
}

/*
 * Ends a write transaction begun with BEGIN IMMEDIATE (sdui__sql_conn_end):
 * rc is how its work went.  On success commits (the remembered accesses
 * went in with it, so they are forgotten); otherwise, or if the commit
 * fails, rolls back and reports `what`, resetting the cache on damage.
 */
static sdui_status end_write(sdui_disk *d, int rc, const char *what,
                             sdui_error *err)
{
    sdui_status st = sdui__sql_conn_end(&d->conn, rc, what, err);
    if (st == SDUI_OK)
        clear_touches(d);
    return st;
}

/* Closes the cache, writing remembered accesses first (disk.h). */
void sdui_disk_free(sdui_disk *disk)
{
    if (!disk)
        return;
    if (disk->conn.db && disk->ntouches &&
        exec(disk, "BEGIN IMMEDIATE") == SQLITE_OK)
        exec(disk, apply_touches(disk) == SQLITE_OK ? "COMMIT" : "ROLLBACK");
    sdui__sql_conn_close(&disk->conn); /* forgets the accesses left */
    sdui_free(disk->touches);
    sdui_free(disk);
}

/*
 * Deletes least recently accessed rows of table t until both bounds hold,
 * adding their number to *evictions.  The victims are chosen by one
 * ordered read and deleted after it has finished, so no row is deleted
 * under a running SELECT.
 */
static int evict(sdui_disk *d, const bounded *t, size_t max_entries,
                 size_t max_bytes, uint64_t *evictions)
{
    int64_t count = 0, bytes = 0;
    sqlite3_stmt *oldest = NULL, *del = NULL;
    int64_t *victims = NULL;
    size_t nv = 0, capv = 0, i;
    int rc = totals(d, t, &count, &bytes);
    if (rc != SQLITE_OK ||
        ((size_t)count <= max_entries && (size_t)bytes <= max_bytes))
        return rc;
    rc = sqlite3_prepare_v2(d->conn.db, t->oldest_sql, -1, &oldest, NULL);
    while (rc == SQLITE_OK &&
           ((size_t)count > max_entries || (size_t)bytes > max_bytes)) {
        int64_t len;
        rc = sqlite3_step(oldest);
        if (rc != SQLITE_ROW)
            break;
        len = sqlite3_column_int64(oldest, 1);
        /* More rows, or longer ones, than the totals counted: damage. */
        if (count <= 0 || len < 0 || len > bytes) {
            d->conn.note = "its rows do not add up to its totals";
            rc = SQLITE_CORRUPT;
            break;
        }
        rc = SQLITE_OK;
        if (nv == capv) {
            size_t c = capv ? capv * 2 : 64;
            int64_t *nvict = sdui_realloc(victims, c * sizeof *nvict);
            if (!nvict) {
                rc = SQLITE_NOMEM;
                break;
            }
            victims = nvict;
            capv = c;
        }
        victims[nv++] = sqlite3_column_int64(oldest, 0);
        bytes -= len;
        count--;
    }
    /* The rows ran out while a bound still fails: the totals were wrong. */
    if (rc == SQLITE_DONE) {
        d->conn.note = "its rows do not add up to its totals";
        rc = SQLITE_CORRUPT;
    }
    sqlite3_finalize(oldest);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(d->conn.db, t->delete_sql, -1, &del, NULL);
    for (i = 0; rc == SQLITE_OK && i < nv; i++) {
        sqlite3_bind_int64(del, 1, victims[i]);
        rc = sdui__sql_step_done(del);
    }
    if (rc == SQLITE_OK)
        *evictions += nv;
    sqlite3_finalize(del);
    sdui_free(victims);
    return rc;
}

/*
 * Where a batch's rows come from: fills *out with row i of src (pointers
 * borrowed from src, read during the write only).  sdui_disk_put reads its
 * records, sdui_disk_put_tokens its tokens, through the one writer below.
 */
typedef void (*row_at_fn)(const void *src, size_t i, sdui_disk_record *out);

/*
 * The one writer of token rows: checks every row first (SDUI_ARGUMENT,
 * nothing written), then in one transaction writes them (last_access is
 * now), applies the remembered accesses and evicts to the bounds.  All or
 * nothing; damage resets the cache (end_write).  Every bound value is
 * SQLITE_STATIC: SQLite reads the caller's bytes during the step, no copy.
 */
static sdui_status write_rows(sdui_disk *d, const void *src, row_at_fn at,
                              size_t n, int64_t now, sdui_error *err)
{
    sdui_disk_record r;
    size_t i;
    int rc;
    sdui_status st;

    for (i = 0; i < n; i++) {
        at(src, i, &r);
        if (!r.id || !r.id_len || !r.etag || (!r.json && r.json_len) ||
            r.id_len > INT32_MAX || r.json_len > INT32_MAX ||
            r.etag_len > INT32_MAX)
            return sdui__fail(err, SDUI_ARGUMENT, -1,
                              "row %zu of the batch has no id, etag or json",
                              i);
    }
    st = sdui__sql_conn_lock(&d->conn, err);
    if (st != SDUI_OK)
        return st;
    rc = exec(d, "BEGIN IMMEDIATE");
    for (i = 0; rc == SQLITE_OK && i < n; i++) {
        sqlite3_stmt *s = d->put;
        at(src, i, &r);
        sqlite3_bind_text(s, 1, r.id, (int)r.id_len, SQLITE_STATIC);
        sqlite3_bind_int64(s, 2, r.version);
        sqlite3_bind_text(s, 3, r.etag, (int)r.etag_len, SQLITE_STATIC);
        sqlite3_bind_blob(s, 4, r.json ? r.json : "", (int)r.json_len,
                          SQLITE_STATIC);
        sqlite3_bind_int64(s, 5, (sqlite3_int64)r.json_len);
        sqlite3_bind_int64(s, 6, r.primitive_version);
        sqlite3_bind_int64(s, 7, r.fetched_at);
        sqlite3_bind_int64(s, 8, r.expires_at);
        sqlite3_bind_int64(s, 9, now);
        rc = sdui__sql_step_done(s);
        sqlite3_clear_bindings(s);
    }
    if (rc == SQLITE_OK)
        rc = apply_touches(d);
    if (rc == SQLITE_OK)
        rc = evict(d, &tokens_table, d->opts.max_entries, d->opts.max_bytes,
                   &d->evictions);
    st = end_write(d, rc, "cannot write a batch", err);
    sdui__sql_conn_unlock(&d->conn);
    return st;
}

/* Row i of an array of records (row_at_fn of sdui_disk_put). */
static void record_at(const void *src, size_t i, sdui_disk_record *out)
{
    *out = ((const sdui_disk_record *)src)[i];
}

/* Writes one batch in one transaction (disk.h). */
sdui_status sdui_disk_put(sdui_disk *d, const sdui_disk_record *rows,
                          size_t n, int64_t now, sdui_error *err)
{
    sdui_error_clear(err);
    if (!d)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "disk is NULL");
    if (n && !rows)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "rows is NULL");
    return write_rows(d, rows, record_at, n, now, err);
}

/* What sdui_disk_put_tokens writes: the tokens and their ETags. */
typedef struct token_batch {
    const sdui_token *const *tokens;
    const char *const *etags;
    const size_t *etag_lens;
    int64_t fetched_at, expires_at;
} token_batch;

/*
 * Row i of a batch of tokens (row_at_fn): the token's own id and JSON
 * bytes, not copies.  A NULL token or ETag makes a row without them, which
 * the writer refuses.
 */
static void token_at(const void *src, size_t i, sdui_disk_record *out)
{
    const token_batch *b = src;
    const sdui_token *tok = b->tokens[i];
    memset(out, 0, sizeof *out);
    out->etag = b->etags[i];
    out->etag_len = b->etag_lens[i];
    out->fetched_at = b->fetched_at;
    out->expires_at = b->expires_at;
    if (!tok)
        return;
    out->id = sdui_token_id(tok, &out->id_len);
    out->json = sdui_token_json(tok, &out->json_len);
    out->version = sdui_token_version(tok);
    out->primitive_version = sdui_token_primitive_version(tok);
}

/* Writes tokens from their handles, through the one writer (disk.h). */
sdui_status sdui_disk_put_tokens(sdui_disk *d,
                                 const sdui_token *const *tokens,
                                 const char *const *etags,
                                 const size_t *etag_lens, size_t n,
                                 int64_t fetched_at, int64_t expires_at,
                                 int64_t now, sdui_error *err)
{
    token_batch b;
    sdui_error_clear(err);
    if (!d || (n && (!tokens || !etags || !etag_lens)))
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "disk, tokens, etags or etag_lens is NULL");
    b.tokens = tokens;
    b.etags = etags;
    b.etag_lens = etag_lens;
    b.fetched_at = fetched_at;
    b.expires_at = expires_at;
    return write_rows(d, &b, token_at, n, now, err);
}

/* Remembers that the row id of a table (kind) was read at now (applied at
 * the next write). */
static void remember_touch(sdui_disk *d, int kind, const char *id,
                           size_t len, int64_t now)
{
    touch *t;
    if (d->ntouches == d->cap_touches) {
        size_t cap = d->cap_touches ? d->cap_touches * 2 : 64;
        touch *nt;
        if (cap > MAX_PENDING_TOUCHES)
            return; /* eviction order is advisory: drop the note */
        nt = sdui_realloc(d->touches, cap * sizeof *nt);
        if (!nt)
            return;
        d->touches = nt;
        d->cap_touches = cap;
    }
    t = &d->touches[d->ntouches];
    t->id = sdui_malloc(len ? len : 1);
    if (!t->id)
        return;
    memcpy(t->id, id, len);
    t->len = len;
    t->at = now;
    t->kind = kind;
    d->ntouches++;
}

/* An id to look up: the IN lists bind these (sqlite_util.h). */
typedef sdui_sql_text idref;

/* Orders ids by length, then bytes. */
static int idref_cmp(const void *a, const void *b)
{
    const idref *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->p, y->p, x->len);
}

/* The columns every read by id returns, in this order. */
enum {
    COL_ID,
    COL_VERSION,
    COL_ETAG,
    COL_JSON,
    COL_PRIMITIVE_VERSION,
    COL_FETCHED_AT,
    COL_EXPIRES_AT,
    COL_LAST_ACCESS
};

/*
 * What a read does with each row found: q stands on the row (columns as
 * above, the id already checked to be one asked for).  Returns SDUI_OK, or
 * the status that fails the read (SDUI_OOM), with err filled.  Runs with
 * the cache's mutex held; column pointers are valid until it returns.
 */
typedef sdui_status (*row_fn)(void *ctx, sqlite3_stmt *q, sdui_error *err);

/*
 * The one query loop of the reads by id (sdui_disk_get,
 * sdui_disk_get_tokens): each id once, one IN (...) query per chunk of
 * ids, each row checked to be one asked for and found once (else damage:
 * the cache is reset), its access remembered, and handed to fn.  The
 * arguments are the caller's to check.
 */
static sdui_status read_ids(sdui_disk *d, const char *const *ids,
                            const size_t *lens, size_t n, int64_t now,
                            row_fn fn, void *ctx, sdui_error *err)
{
    size_t done, i, nu = 0;
    sdui_status st = SDUI_OK;
    idref *uniq;
    unsigned char *seen;

    /* Each id once, so no row is returned twice across chunks. */
    uniq = sdui_malloc((n ? n : 1) * sizeof *uniq);
    seen = sdui_malloc(n ? n : 1);
    if (!uniq || !seen) {
        sdui_free(uniq);
        sdui_free(seen);
        return sdui__oom(err);
    }
    memset(seen, 0, n ? n : 1);
    for (i = 0; i < n; i++) {
        uniq[i].p = ids[i];
        uniq[i].len = lens[i];
    }
    qsort(uniq, n, sizeof *uniq, idref_cmp);
    for (i = 0; i < n; i++)
        if (nu == 0 || idref_cmp(&uniq[nu - 1], &uniq[i]) != 0)
            uniq[nu++] = uniq[i];
    n = nu;
    st = sdui__sql_conn_lock(&d->conn, err);
    if (st != SDUI_OK) {
        sdui_free(uniq);
        sdui_free(seen);
        return st;
    }
    for (done = 0; done < n && st == SDUI_OK; done += SDUI_SQL_IN_CHUNK) {
        size_t k = n - done < SDUI_SQL_IN_CHUNK ? n - done : SDUI_SQL_IN_CHUNK;
        sqlite3_stmt *q;
        int rc;
        /* Rows by rowid, so each id comes from its row (see the top). */
        rc = sdui__sql_prepare_in(
            d->conn.db,
            "SELECT id, version, etag, json, primitive_version,"
            " fetched_at, expires_at, last_access FROM tokens NOT INDEXED"
            " WHERE rowid IN (SELECT rowid FROM tokens WHERE id IN",
            ")", uniq + done, k, &q);
        while (rc == SQLITE_OK || rc == SQLITE_ROW) {
            idref got, *asked;
            if ((rc = sqlite3_step(q)) != SQLITE_ROW)
                break;
            /* Each row must be one asked for, and found once. */
            got.p = sqlite3_column_blob(q, COL_ID);
            got.len = (size_t)sqlite3_column_bytes(q, COL_ID);
            if (!got.p)
                got.p = "";
            asked = bsearch(&got, uniq + done, k, sizeof *uniq, idref_cmp);
            if (!asked || seen[asked - uniq]) {
                d->conn.note = "a read found a row not asked for";
                rc = SQLITE_CORRUPT;
                break;
            }
            seen[asked - uniq] = 1;
            remember_touch(d, TOUCH_TOKEN, got.p, got.len, now);
            st = fn(ctx, q, err);
            if (st != SDUI_OK)
                break;
        }
        /* finalize keeps the step's error on db for the report. */
        sqlite3_finalize(q);
        if (st == SDUI_OK && !q && rc == SQLITE_NOMEM)
            st = sdui__oom(err); /* the IN list could not be built */
        else if (st == SDUI_OK && rc != SQLITE_DONE)
            st = sdui__sql_conn_step_fail(&d->conn, rc, "cannot read", err);
    }
    sdui__sql_conn_unlock(&d->conn);
    sdui_free(uniq);
    sdui_free(seen);
    return st;
}

/* Grows an array of elements of size `size` to hold one more; 0 on OOM. */
static int grow(void **items, size_t *cap, size_t count, size_t size)
{
    size_t nc;
    void *ni;
    if (count < *cap)
        return 1;
    nc = *cap ? *cap * 2 : 16;
    ni = sdui_realloc(*items, nc * size);
    if (!ni)
        return 0;
    *items = ni;
    *cap = nc;
    return 1;
}

/* Copies n bytes and a NUL; the copy, or NULL when memory runs out. */
static const char *arena_copy(arena *a, const void *p, size_t n)
{
    arena_block *b = a->head;
    char *at;
    if (!b || b->cap - b->used < n + 1) {
        size_t cap = n + 1 > ARENA_BLOCK ? n + 1 : ARENA_BLOCK;
        if (n + 1 == 0 || cap > SIZE_MAX - sizeof *b)
            return NULL;
        b = sdui_malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    assert(b->cap - b->used >= n + 1);
    at = b->bytes + b->used;
    if (n)
        memcpy(at, p, n);
    at[n] = '\0';
    b->used += n + 1;
    return at;
}

/* Frees every block; the arena is empty again. */
static void arena_free(arena *a)
{
    while (a->head) {
        arena_block *next = a->head->next;
        sdui_free(a->head);
        a->head = next;
    }
}

/* Copies column c of q into the arena; the copy (its length in *len), or
 * NULL when memory runs out. */
static const char *arena_column(arena *a, sqlite3_stmt *q, int c, size_t *len)
{
    const void *p = sqlite3_column_blob(q, c);
    *len = (size_t)sqlite3_column_bytes(q, c);
    return arena_copy(a, p, *len);
}

/* What sdui_disk_get gathers. */
typedef struct get_ctx {
    sdui_disk_record *recs;
    size_t count, cap;
    arena text; /* id, etag and json of each record */
} get_ctx;

/* sdui_disk_get's row: copies id, etag and JSON (row_fn). */
static sdui_status get_row(void *ctx, sqlite3_stmt *q, sdui_error *err)
{
    get_ctx *g = ctx;
    sdui_disk_record *r;
    if (!grow((void **)&g->recs, &g->cap, g->count, sizeof *g->recs))
        return sdui__oom(err);
    r = &g->recs[g->count];
    memset(r, 0, sizeof *r);
    if (!(r->id = arena_column(&g->text, q, COL_ID, &r->id_len)) ||
        !(r->etag = arena_column(&g->text, q, COL_ETAG, &r->etag_len)) ||
        !(r->json = arena_column(&g->text, q, COL_JSON, &r->json_len)))
        return sdui__oom(err);
    r->version = sqlite3_column_int64(q, COL_VERSION);
    r->primitive_version = sqlite3_column_int64(q, COL_PRIMITIVE_VERSION);
    r->fetched_at = sqlite3_column_int64(q, COL_FETCHED_AT);
    r->expires_at = sqlite3_column_int64(q, COL_EXPIRES_AT);
    r->last_access = sqlite3_column_int64(q, COL_LAST_ACCESS);
    g->count++;
    return SDUI_OK;
}

/* Reads many ids with one query per chunk of ids (disk.h). */
sdui_status sdui_disk_get(sdui_disk *d, const char *const *ids,
                          const size_t *lens, size_t n, int64_t now,
                          sdui_disk_rows **out, sdui_error *err)
{
    sdui_disk_rows *rows;
    get_ctx g;
    sdui_status st;

    sdui_error_clear(err);
    if (!d || !out || (n && (!ids || !lens)))
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "disk, ids, lens or out is NULL");
    *out = NULL;
    memset(&g, 0, sizeof g);
    st = read_ids(d, ids, lens, n, now, get_row, &g, err);
    rows = st == SDUI_OK ? sdui_malloc(sizeof *rows) : NULL;
    if (st == SDUI_OK && !rows)
        st = sdui__oom(err);
    if (st != SDUI_OK) {
        sdui_free(g.recs);
        arena_free(&g.text);
        return st;
    }
    rows->recs = g.recs;
    rows->count = g.count;
    rows->arena = g.text;
    *out = rows;
    return SDUI_OK;
}

/* What sdui_disk_get_tokens gathers. */
typedef struct tokens_ctx {
    sdui_disk_token *items;
    size_t count, cap;
    arena text; /* id and etag of each item */
    const sdui_limits *limits;
} tokens_ctx;

/*
 * sdui_disk_get_tokens' row (row_fn): copies id and ETag, and parses the
 * JSON straight from SQLite's column into a token, which must carry the
 * row's id.  A row that makes no token is kept with bad = 1; only a
 * failed allocation fails the read.
 */
static sdui_status token_row(void *ctx, sqlite3_stmt *q, sdui_error *err)
{
    tokens_ctx *g = ctx;
    sdui_disk_token *t;
    sdui_token *tok = NULL;
    sdui_error perr;
    sdui_status st;
    const char *json, *tid;
    size_t len, tid_len = 0;

    if (!grow((void **)&g->items, &g->cap, g->count, sizeof *g->items))
        return sdui__oom(err);
    t = &g->items[g->count];
    memset(t, 0, sizeof *t);
    if (!(t->id = arena_column(&g->text, q, COL_ID, &t->id_len)) ||
        !(t->etag = arena_column(&g->text, q, COL_ETAG, &t->etag_len)))
        return sdui__oom(err);
    json = sqlite3_column_blob(q, COL_JSON);
    len = (size_t)sqlite3_column_bytes(q, COL_JSON);
    st = sdui_token_parse(json ? json : "", len, g->limits, &tok, &perr);
    if (st == SDUI_OOM)
        return sdui__oom(err);
    if (st == SDUI_OK) {
        tid = sdui_token_id(tok, &tid_len);
        if (tid_len != t->id_len ||
            memcmp(tid, t->id, tid_len) != 0) {
            sdui_token_release(tok); /* a body of another id */
            tok = NULL;
        }
    }
    t->token = tok;
    t->bad = tok == NULL;
    t->fetched_at = sqlite3_column_int64(q, COL_FETCHED_AT);
    t->expires_at = sqlite3_column_int64(q, COL_EXPIRES_AT);
    t->last_access = sqlite3_column_int64(q, COL_LAST_ACCESS);
    g->count++;
    return SDUI_OK;
}

/* Reads many ids as tokens, through the one query loop (disk.h). */
sdui_status sdui_disk_get_tokens(sdui_disk *d, const char *const *ids,
                                 const size_t *lens, size_t n, int64_t now,
                                 const sdui_limits *limits,
                                 sdui_disk_tokens **out, sdui_error *err)
{
    sdui_disk_tokens *res;
    tokens_ctx g;
    sdui_status st;
    size_t i;

    sdui_error_clear(err);
    if (!d || !out || (n && (!ids || !lens)))
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "disk, ids, lens or out is NULL");
    *out = NULL;
    memset(&g, 0, sizeof g);
    g.limits = limits;
    st = read_ids(d, ids, lens, n, now, token_row, &g, err);
    res = st == SDUI_OK ? sdui_malloc(sizeof *res) : NULL;
    if (st == SDUI_OK && !res)
        st = sdui__oom(err);
    if (st != SDUI_OK) {
        for (i = 0; i < g.count; i++)
            sdui_token_release(g.items[i].token);
        sdui_free(g.items);
        arena_free(&g.text);
        return st;
    }
    res->items = g.items;
    res->count = g.count;
    res->arena = g.text;
    *out = res;
    return SDUI_OK;
}

/* Runs sql (id as ?1, args as ?2...) once per id, in one transaction. */
static sdui_status per_id(sdui_disk *d, const char *sql, const char *what,
                          const char *const *ids, const size_t *lens,
                          size_t n, const int64_t *args, int nargs,
                          size_t *changed, sdui_error *err)
{
    sqlite3_stmt *s = NULL;
    size_t i, total = 0;
    int rc, a;
    sdui_status st;

    sdui_error_clear(err);
    if (changed)
        *changed = 0;
    if (!d || (n && (!ids || !lens)))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "disk, ids or lens is NULL");
    st = sdui__sql_conn_lock(&d->conn, err);
    if (st != SDUI_OK)
        return st;
    rc = exec(d, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(d->conn.db, sql, -1, &s, NULL);
    for (i = 0; rc == SQLITE_OK && i < n; i++) {
        sqlite3_bind_text(s, 1, ids[i], (int)lens[i], SQLITE_STATIC);
        for (a = 0; a < nargs; a++)
            sqlite3_bind_int64(s, a + 2, args[a]);
        rc = sdui__sql_step_done(s);
        total += (size_t)sqlite3_changes(d->conn.db);
    }
    sqlite3_finalize(s);
    if (rc == SQLITE_OK)
        rc = apply_touches(d);
    st = end_write(d, rc, what, err);
    sdui__sql_conn_unlock(&d->conn);
    if (changed)
        *changed = st == SDUI_OK ? total : 0;
    return st;
}

/* Refreshes TTLs after a 304 (disk.h). */
sdui_status sdui_disk_refresh(sdui_disk *d, const char *const *ids,
                              const size_t *lens, size_t n,
                              int64_t fetched_at, int64_t expires_at,
                              size_t *updated, sdui_error *err)
{
    const int64_t args[2] = {fetched_at, expires_at};
    return per_id(d,
                  "UPDATE tokens NOT INDEXED SET fetched_at=?2, expires_at=?3"
                  WHERE_ROW_OF_ID1,
                  "cannot refresh", ids, lens, n, args, 2, updated, err);
}

/* Removes ids (disk.h). */
sdui_status sdui_disk_remove(sdui_disk *d, const char *const *ids,
                             const size_t *lens, size_t n, size_t *removed,
                             sdui_error *err)
{
    return per_id(d, "DELETE FROM tokens NOT INDEXED" WHERE_ROW_OF_ID1,
                  "cannot remove", ids, lens, n, NULL, 0, removed, err);
}

/* Sizes and bounds, of tokens and of screens (disk.h). */
sdui_status sdui_disk_get_stats(sdui_disk *d, sdui_disk_stats *out,
                                sdui_error *err)
{
    int64_t count = 0, bytes = 0, screens = 0, screen_bytes = 0;
    int rc = SQLITE_OK;
    sdui_status st;
    sdui_error_clear(err);
    if (!d || !out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "disk or out is NULL");
    /* The bounds and evictions are reported even when no file could be
     * opened again after a reset: the mutex is held whatever the file's
     * state (not sdui__sql_conn_lock). */
    pthread_mutex_lock(&d->conn.mu);
    st = sdui__sql_conn_ready(&d->conn, err);
    if (st == SDUI_OK) {
        rc = totals(d, &tokens_table, &count, &bytes);
        if (rc == SQLITE_OK)
            rc = totals(d, &screens_table, &screens, &screen_bytes);
    }
    if (st == SDUI_OK && rc != SQLITE_OK) {
        st = sdui__sql_conn_step_fail(&d->conn, rc, "cannot count", err);
        count = bytes = screens = screen_bytes = 0;
    }
    memset(out, 0, sizeof *out);
    out->entries = (size_t)count;
    out->bytes = (size_t)bytes;
    out->max_entries = d->opts.max_entries;
    out->max_bytes = d->opts.max_bytes;
    out->evictions = d->evictions;
    out->screens = (size_t)screens;
    out->screen_bytes = (size_t)screen_bytes;
    out->max_screens = d->opts.max_screens;
    out->max_screen_bytes = d->opts.max_screen_bytes;
    out->screen_evictions = d->screen_evictions;
    pthread_mutex_unlock(&d->conn.mu);
    return st;
}

/*
 * Writes a screen's row and evicts screens to their bounds, in one
 * transaction (disk.h).  The payload bound is checked first: a payload
 * that could never fit is refused, not written and evicted at once.
 */
sdui_status sdui_disk_put_screen(sdui_disk *d, const char *id, size_t id_len,
                                 const char *etag, size_t etag_len,
                                 const char *payload, size_t payload_len,
                                 int64_t fetched_at, int64_t now,
                                 sdui_error *err)
{
    sqlite3_stmt *s = NULL;
    sdui_status st;
    int rc;

    sdui_error_clear(err);
    if (!d || !id || !id_len || (!etag && etag_len) ||
        (!payload && payload_len) || id_len > INT32_MAX ||
        etag_len > INT32_MAX)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "disk, screen id, etag or payload is missing");
    if (payload_len > d->opts.max_screen_bytes || payload_len > INT32_MAX)
        return sdui__fail(err, SDUI_LIMIT, -1,
                          "screen \"%.*s\": payload of %zu bytes is over the "
                          "bound of %zu (max_screen_bytes)",
                          (int)(id_len > 200 ? 200 : id_len), id, payload_len,
                          d->opts.max_screen_bytes);
    st = sdui__sql_conn_lock(&d->conn, err);
    if (st != SDUI_OK)
        return st;
    rc = exec(d, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(d->conn.db,
                                "INSERT OR REPLACE INTO screens(id, etag,"
                                " fetched_at, last_access, payload)"
                                " VALUES(?,?,?,?,?)",
                                -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(s, 1, id, (int)id_len, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, etag ? etag : "", (int)etag_len,
                          SQLITE_STATIC);
        sqlite3_bind_int64(s, 3, fetched_at);
        sqlite3_bind_int64(s, 4, now);
        sqlite3_bind_blob(s, 5, payload ? payload : "", (int)payload_len,
                          SQLITE_STATIC);
        rc = sqlite3_step(s);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(s);
    if (rc == SQLITE_OK)
        rc = apply_touches(d);
    if (rc == SQLITE_OK)
        rc = evict(d, &screens_table, d->opts.max_screens,
                   d->opts.max_screen_bytes, &d->screen_evictions);
    st = end_write(d, rc, "cannot write a screen", err);
    sdui__sql_conn_unlock(&d->conn);
    return st;
}

/*
 * Copies the screen row q stands on (etag, payload, fetched_at) into one
 * allocation: the struct, then the NUL-terminated ETag and payload.
 */
static sdui_disk_screen *copy_screen(sqlite3_stmt *q)
{
    const void *etag = sqlite3_column_blob(q, 1);
    size_t etag_len = (size_t)sqlite3_column_bytes(q, 1);
    const void *payload = sqlite3_column_blob(q, 2);
    size_t payload_len = (size_t)sqlite3_column_bytes(q, 2);
    sdui_disk_screen *sc =
        sdui_malloc(sizeof *sc + etag_len + 1 + payload_len + 1);
    char *bytes;
    if (!sc)
        return NULL;
    bytes = (char *)(sc + 1);
    if (etag_len)
        memcpy(bytes, etag, etag_len);
    bytes[etag_len] = '\0';
    if (payload_len)
        memcpy(bytes + etag_len + 1, payload, payload_len);
    bytes[etag_len + 1 + payload_len] = '\0';
    sc->etag = bytes;
    sc->etag_len = etag_len;
    sc->payload = bytes + etag_len + 1;
    sc->payload_len = payload_len;
    sc->fetched_at = sqlite3_column_int64(q, 3);
    return sc;
}

/*
 * Reads a screen's row by rowid from the id index, the table NOT INDEXED,
 * and checks the id on the row itself (see the top): a row of another id
 * is damage (disk.h).
 */
sdui_status sdui_disk_get_screen(sdui_disk *d, const char *id, size_t id_len,
                                 int64_t now, sdui_disk_screen **out,
                                 sdui_error *err)
{
    sqlite3_stmt *q = NULL;
    sdui_disk_screen *sc = NULL;
    sdui_status st;
    int rc;

    sdui_error_clear(err);
    if (!d || !out || !id || id_len > INT32_MAX)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "disk, screen id or out is NULL");
    *out = NULL;
    st = sdui__sql_conn_lock(&d->conn, err);
    if (st != SDUI_OK)
        return st;
    rc = sqlite3_prepare_v2(d->conn.db,
                            "SELECT id, etag, payload, fetched_at"
                            " FROM screens NOT INDEXED WHERE rowid="
                            "(SELECT rowid FROM screens WHERE id=?1)",
                            -1, &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(q, 1, id, (int)id_len, SQLITE_STATIC);
        rc = sqlite3_step(q);
    }
    if (rc == SQLITE_ROW) {
        const void *got = sqlite3_column_blob(q, 0);
        size_t got_len = (size_t)sqlite3_column_bytes(q, 0);
        if (got_len != id_len || (id_len && memcmp(got, id, id_len) != 0)) {
            d->conn.note = "a read found a screen not asked for";
            rc = SQLITE_CORRUPT;
        } else if ((sc = copy_screen(q)) == NULL) {
            st = sdui__oom(err);
        } else {
            remember_touch(d, TOUCH_SCREEN, id, id_len, now);
            rc = SQLITE_DONE;
        }
    }
    /* finalize keeps the step's error on db for the report. */
    sqlite3_finalize(q);
    if (st == SDUI_OK && rc != SQLITE_DONE)
        st = sdui__sql_conn_step_fail(&d->conn, rc, "cannot read a screen",
                                      err);
    sdui__sql_conn_unlock(&d->conn);
    if (st != SDUI_OK) {
        sdui_free(sc);
        return st;
    }
    *out = sc;
    return SDUI_OK;
}

/* Frees a screen; NULL is a no-op (disk.h). */
void sdui_disk_screen_free(sdui_disk_screen *s)
{
    sdui_free(s);
}

/* Rows of a result (disk.h); an accessor: rows must not be NULL. */
size_t sdui_disk_rows_count(const sdui_disk_rows *rows)
{
    assert(rows);
    return rows->count;
}

/* Row i of a result, or NULL when i >= count (disk.h). */
const sdui_disk_record *sdui_disk_rows_at(const sdui_disk_rows *rows,
                                          size_t i)
{
    assert(rows);
    return i < rows->count ? &rows->recs[i] : NULL;
}

/* Frees a result; NULL is a no-op (disk.h). */
void sdui_disk_rows_free(sdui_disk_rows *rows)
{
    if (!rows)
        return;
    sdui_free(rows->recs);
    arena_free(&rows->arena);
    sdui_free(rows);
}

/* Tokens of a result (disk.h); an accessor: t must not be NULL. */
size_t sdui_disk_tokens_count(const sdui_disk_tokens *t)
{
    assert(t);
    return t->count;
}

/* Item i of a result, or NULL when i >= count (disk.h). */
const sdui_disk_token *sdui_disk_tokens_at(const sdui_disk_tokens *t,
                                           size_t i)
{
    assert(t);
    return i < t->count ? &t->items[i] : NULL;
}

/* A new reference to token i, or NULL (disk.h). */
sdui_token *sdui_disk_tokens_take(const sdui_disk_tokens *t, size_t i)
{
    assert(t);
    return i < t->count ? sdui_token_retain(t->items[i].token) : NULL;
}

/* Frees a result and its references; NULL is a no-op (disk.h). */
void sdui_disk_tokens_free(sdui_disk_tokens *t)
{
    size_t i;
    if (!t)
        return;
    for (i = 0; i < t->count; i++)
        sdui_token_release(t->items[i].token);
    sdui_free(t->items);
    arena_free(&t->arena);
    sdui_free(t);
}
