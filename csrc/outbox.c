/*
 * outbox.c - the durable queue over SQLite (see outbox.h): state rows and
 * an append-only queue of byte items, changed together in one
 * transaction.
 *
 * Storage: `state` is WITHOUT ROWID, so a key's row lives in the key's
 * own b-tree and no separate index can disagree with it; `items` has seq
 * as its rowid, so the queue's order is the table's own order and needs
 * no index either; `counters` is one row (id 0) with next_seq and the two
 * drop counters.  PRAGMA user_version holds the schema version;
 * schema_steps below is its history, which sqlite_util.c replays to create
 * a file or to upgrade an older one in place (there is one version so
 * far).
 *
 * A commit (one BEGIN IMMEDIATE ... COMMIT):
 *   1. read the counters row and check it against the items (read_counters);
 *   2. write or delete the state rows, in the caller's order;
 *   3. insert the items with seqs next_seq, next_seq + 1, ...;
 *   4. take the item count and byte total (queue_totals); while a bound
 *      is exceeded, walk the items from the oldest, and delete the walked
 *      prefix with one DELETE (drop_oldest);
 *   5. when the drop counters change (drops, or dropped_reported), write
 *      the counters row back: next_seq past the new items, dropped and
 *      dropped_total up by the drops, dropped down by dropped_reported.
 *      Otherwise the row stays as it is: its next_seq is a floor, and the
 *      next seq is past it and past every stored item (the newest item
 *      carries it; an ack that deletes items writes the row first).  A
 *      step of a flow (one state row, one event) so writes the pages of
 *      its two rows and nothing else.  The statements are prepared once
 *      per open file and kept (stmt()), so a commit parses no SQL.
 * Any failure rolls all of it back (sdui__sql_conn_end).  The arguments are
 * checked before the transaction starts, so a refused commit does not
 * even take the write lock.
 *
 * Byte totals are the lengths of the stored blobs summed from the rows
 * (ITEM_LEN), never a total stored in the file: a file is input, and a
 * lying total would lift the bound or stop every write.  For a BLOB,
 * length() is taken from the record header without reading the content
 * (as disk.c explains); anything else (only a damaged or hand-edited file
 * holds another type) is measured as the bytes it would read back as.
 * The walk of step 4 checks the running totals as they shrink: a row
 * longer than what is left of the sum means the file changed under us,
 * and is damage.
 *
 * Summing the rows costs a pass over every page of the queue: with
 * synchronous NORMAL, a commit on a full default queue (10,000 items of
 * 800 bytes) took 6.5 ms summing, 0.2 to 0.3 ms without (the same at
 * 2,000 items and at 10,000).  So the handle keeps the totals it summed and
 * carries them forward itself, commit by commit, by the exact lengths it
 * inserted and dropped, and sums the rows again whenever they may have
 * changed behind it: after it opened or reset the file, after an ack
 * (which deletes rows it does not measure), after a failed commit, and
 * when PRAGMA data_version, read inside the write transaction, says
 * another connection (another process, or another handle) has committed
 * since this one last did.  The totals are never read from the file, so
 * nothing stored can lift a bound; sdui_outbox_stats_get always sums the
 * rows.
 *
 * The counters are checked on every read: the row must exist, hold
 * integers and not be negative, and both next_seq and the largest stored
 * seq (one step down the rowid b-tree) must be below 2^62, which no real
 * queue reaches.  The next seq is the larger of next_seq and that seq
 * plus one, so even a damaged row cannot hand out a seq twice, nor
 * overflow one.  A row that fails is damage.
 *
 * Damage (SQLITE_CORRUPT or SQLITE_NOTADB from any step, or one of our own
 * checks) is handled as in disk.c, by the connection both keep
 * (sdui_sql_conn): the call closes the connection, moves the file aside,
 * opens a fresh one and fails saying so; later calls work.  Opening (one
 * sequence with the token cache: the path's copy, the mutex, the file),
 * the schema and integrity checks, moving aside, that reset and the errors
 * that name the file and the system's cause are sqlite_util.c's; this file
 * gives the queue's label, schema and application_id, and forgets its
 * totals when the file closes.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "internal.h"
#include "sdui/outbox.h"
#include "sqlite_util.h"

/* How the outbox's file is named in messages. */
#define LABEL "outbox"

/* The most items one commit may append: with next_seq below SEQ_LIMIT,
 * no seq can overflow. */
#define MAX_COMMIT_ITEMS ((size_t)1 << 30)

/* next_seq stays below this (2^62 items are never appended). */
#define SEQ_LIMIT ((int64_t)1 << 62)

/* The stored length of an item in bytes, whatever the value's type (see
 * the top): a BLOB's from its header. */
#define ITEM_LEN                                                           \
    "CASE WHEN typeof(bytes)='blob' THEN length(bytes)"                     \
    " ELSE length(CAST(bytes AS BLOB)) END"

/* The statements a commit runs, prepared once per open file (stmt()). */
enum {
    Q_COUNTERS,   /* read the counters row and the largest seq */
    Q_VERSION,    /* PRAGMA data_version                       */
    Q_PUT,        /* write a state row                          */
    Q_DEL,        /* delete a state row                         */
    Q_APPEND,     /* insert an item                             */
    Q_WRITE,      /* write the counters row back                */
    Q_COUNT
};

/* Their text, by the enum above. */
static const char *const stmt_sql[Q_COUNT] = {
    "SELECT next_seq, dropped, dropped_total,"
    " (SELECT coalesce(max(seq), 0) FROM items),"
    " typeof(next_seq)='integer' AND typeof(dropped)='integer'"
    " AND typeof(dropped_total)='integer'"
    " FROM counters WHERE id=0",
    "PRAGMA data_version",
    "INSERT OR REPLACE INTO state(key, value) VALUES(?1, ?2)",
    "DELETE FROM state WHERE key=?1",
    "INSERT INTO items(seq, bytes) VALUES(?1, ?2)",
    "UPDATE counters SET next_seq=?1, dropped=?2, dropped_total=?3 WHERE id=0",
};

struct sdui_outbox {
    /* The connection, reset on damage (sqlite_util.h); its db is NULL
     * after a reset that could not open a fresh file. */
    sdui_sql_conn conn; /* its mutex guards the rest                     */
    sdui_outbox_options opts;
    /* The commit's statements on the file now open, each prepared when
     * first needed (NULL until then) and finalized before the file
     * closes (forget_file): a commit parses no SQL. */
    sqlite3_stmt *stmts[Q_COUNT];
    /* The queue's totals as of this connection's last commit, when
     * have_totals (see the top); data_version as read in that commit. */
    int have_totals;
    int64_t count, bytes, data_version;
};

/* One item of a batch: its seq and where its bytes are. */
typedef struct batch_entry {
    int64_t seq;
    size_t off, len; /* in the batch's bytes; a NUL follows each */
} batch_entry;

struct sdui_outbox_batch {
    batch_entry *entries;
    size_t count;
    char *bytes;
};

/* The counters row. */
typedef struct counters {
    int64_t next_seq;   /* past the row's next_seq and every stored item */
    int64_t stored;     /* the row's own next_seq, as read              */
    int64_t dropped;
    int64_t dropped_total;
} counters;

/* The schema's history (sqlite_util.h): steps[v - 1] makes version v.
 * A released step never changes; a new version adds a step. */
static const char *const schema_steps[SDUI_OUTBOX_SCHEMA_VERSION] = {
    /* 1: state rows, the queue and its counters. */
    "CREATE TABLE state("
    " key TEXT PRIMARY KEY NOT NULL,"
    " value BLOB NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE items("
    " seq INTEGER PRIMARY KEY NOT NULL,"
    " bytes BLOB NOT NULL CHECK(typeof(bytes)='blob'));"
    "CREATE TABLE counters("
    " id INTEGER PRIMARY KEY CHECK(id=0),"
    " next_seq INTEGER NOT NULL,"
    " dropped INTEGER NOT NULL,"
    " dropped_total INTEGER NOT NULL);"
    "INSERT INTO counters VALUES(0, 1, 0, 0);",
    /* 2: the same tables; counters.next_seq becomes a floor (the next seq
     * is past it and past every item), so a commit that drops nothing
     * leaves the row alone.  Version 1 kept it past every item, so its
     * files read the same. */
    "UPDATE counters SET next_seq=max(next_seq,"
    " (SELECT coalesce(max(seq), 0) + 1 FROM items)) WHERE id=0;",
};

/* Fills the defaults (outbox.h). */
void sdui_outbox_options_default(sdui_outbox_options *out)
{
    assert(out);
    out->max_items = SDUI_OUTBOX_DEFAULT_MAX_ITEMS;
    out->max_bytes = SDUI_OUTBOX_DEFAULT_MAX_BYTES;
    out->max_item_bytes = SDUI_OUTBOX_DEFAULT_MAX_ITEM_BYTES;
    out->synchronous = 0;
}

/* Runs SQL without results on the outbox's connection. */
static int exec(sdui_outbox *b, const char *sql)
{
    return sdui__sql_exec(b->conn.db, sql);
}

/* Forgets what is kept for the file the connection is about to close:
 * the totals (see the top) and the prepared statements.  Its forget hook
 * (sqlite_util.h). */
static void forget_file(void *owner)
{
    sdui_outbox *b = owner;
    b->have_totals = 0;
    for (int i = 0; i < Q_COUNT; i++) {
        sqlite3_finalize(b->stmts[i]);
        b->stmts[i] = NULL;
    }
}

/* What the outbox keeps per file, for its connection: the totals and the
 * statements, both made as they are needed. */
static const sdui_sql_hooks outbox_hooks = {forget_file, NULL};

/* Statement q of the commit (the enum above), prepared on first use and
 * kept (reset, bindings cleared) until the file closes; NULL with *rc set
 * when it cannot be prepared. */
static sqlite3_stmt *stmt(sdui_outbox *b, int q, int *rc)
{
    assert(q >= 0 && q < Q_COUNT && b->conn.db);
    if (!b->stmts[q]) {
        *rc = sqlite3_prepare_v3(b->conn.db, stmt_sql[q], -1, SQLITE_PREPARE_PERSISTENT,
                                 &b->stmts[q], NULL);
        if (*rc != SQLITE_OK)
            return NULL;
    }
    *rc = SQLITE_OK;
    return b->stmts[q];
}

/* Opens an outbox file, moving a damaged one aside (outbox.h). */
sdui_status sdui_outbox_open(const char *path,
                             const sdui_outbox_options *opts,
                             sdui_outbox **out, sdui_error *err)
{
    sdui_outbox *b;
    sdui_sql_file f;
    sdui_status st;

    sdui_error_clear(err);
    if (!path || !*path)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox open: path is %s",
                          path ? "empty" : "NULL");
    if (!out)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "outbox open: out is NULL");
    if (opts && opts->synchronous != 0 && opts->synchronous != 1)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox \"%s\": synchronous is %d, not 0 (FULL) "
                          "or 1 (NORMAL)",
                          path, opts->synchronous);
    *out = NULL;
    b = sdui_malloc(sizeof *b);
    if (!b)
        return sdui__oom(err);
    memset(b, 0, sizeof *b);
    if (opts)
        b->opts = *opts;
    else
        sdui_outbox_options_default(&b->opts);
    if (!b->opts.max_items)
        b->opts.max_items = SDUI_OUTBOX_DEFAULT_MAX_ITEMS;
    if (!b->opts.max_bytes)
        b->opts.max_bytes = SDUI_OUTBOX_DEFAULT_MAX_BYTES;
    if (!b->opts.max_item_bytes)
        b->opts.max_item_bytes = SDUI_OUTBOX_DEFAULT_MAX_ITEM_BYTES;
    f.label = LABEL;
    f.path = path;
    f.steps = schema_steps;
    f.version = SDUI_OUTBOX_SCHEMA_VERSION;
    f.durable = b->opts.synchronous == 0;
    f.app_id = SDUI_OUTBOX_APPLICATION_ID;
    st = sdui__sql_conn_open(&b->conn, &f, &outbox_hooks, b, err);
    if (st != SDUI_OK) {
        sdui_free(b);
        return st;
    }
    *out = b;
    return SDUI_OK;
}

/* Closes the outbox; NULL is a no-op (outbox.h). */
void sdui_outbox_free(sdui_outbox *box)
{
    if (!box)
        return;
    sdui__sql_conn_close(&box->conn);
    sdui_free(box);
}

/* Whether a damaged file was moved aside (outbox.h); an accessor: box
 * must not be NULL.  Read under the mutex, which a reset writes it under
 * (the handle is never const itself: the pointer only promises no
 * change). */
int sdui_outbox_recovered(const sdui_outbox *box)
{
    assert(box);
    return sdui__sql_conn_recovered(&((sdui_outbox *)box)->conn);
}

/* The last recovery notice (outbox.h), read under the mutex a reset
 * writes it under. */
size_t sdui_outbox_recovery(const sdui_outbox *box, char *buf, size_t cap)
{
    assert(box && (buf || cap == 0));
    return sdui__sql_conn_recovery(&((sdui_outbox *)box)->conn, buf, cap);
}

/* Checks a state key (outbox.h): NUL-terminated, 1 to
 * SDUI_OUTBOX_MAX_KEY_BYTES bytes.  where names it in the message. */
static sdui_status check_key(const char *key, const char *where,
                             sdui_error *err)
{
    size_t n = 0;
    if (!key)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "outbox %s: key is NULL",
                          where);
    while (n <= SDUI_OUTBOX_MAX_KEY_BYTES && key[n])
        n++;
    if (n == 0)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "outbox %s: key is empty",
                          where);
    if (n > SDUI_OUTBOX_MAX_KEY_BYTES)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox %s: key \"%.40s...\" is over %d bytes",
                          where, key, SDUI_OUTBOX_MAX_KEY_BYTES);
    return SDUI_OK;
}

/*
 * Checks a commit's arguments before anything is written (outbox.h):
 * SDUI_ARGUMENT or SDUI_LIMIT naming the state or item, else SDUI_OK.
 */
static sdui_status check_commit(const sdui_outbox *b,
                                const sdui_outbox_state *states,
                                size_t nstates,
                                const sdui_outbox_item *items, size_t nitems,
                                sdui_error *err)
{
    size_t i, bound = b->opts.max_item_bytes;
    char where[48];
    sdui_status st;
    if (nstates && !states)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox commit: states is NULL with %zu states",
                          nstates);
    if (nitems && !items)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox commit: items is NULL with %zu items",
                          nitems);
    if (nitems > MAX_COMMIT_ITEMS)
        return sdui__fail(err, SDUI_LIMIT, -1,
                          "outbox commit: %zu items, over %zu in one commit",
                          nitems, MAX_COMMIT_ITEMS);
    for (i = 0; i < nstates; i++) {
        snprintf(where, sizeof where, "commit: state %zu", i);
        st = check_key(states[i].key, where, err);
        if (st != SDUI_OK)
            return st;
        if (states[i].value && states[i].len > INT32_MAX)
            return sdui__fail(err, SDUI_LIMIT, -1,
                              "outbox commit: state %zu (\"%.40s\"): value "
                              "of %zu bytes is over %d",
                              i, states[i].key, states[i].len, INT32_MAX);
    }
    if (b->opts.max_bytes < bound)
        bound = b->opts.max_bytes; /* an item over it could never stay */
    for (i = 0; i < nitems; i++) {
        if (!items[i].bytes && items[i].len)
            return sdui__fail(err, SDUI_ARGUMENT, -1,
                              "outbox commit: item %zu has NULL bytes and "
                              "length %zu",
                              i, items[i].len);
        if (items[i].len > bound || items[i].len > INT32_MAX)
            return sdui__fail(err, SDUI_LIMIT, -1,
                              "outbox commit: item %zu of %zu bytes is over "
                              "the bound of %zu (%s); nothing was written",
                              i, items[i].len, bound,
                              bound == b->opts.max_item_bytes
                                  ? "max_item_bytes"
                                  : "max_bytes");
    }
    return SDUI_OK;
}

/*
 * Reads the counters row and checks it (see the top); must run inside a
 * transaction.  Returns SQLite's code, or SQLITE_CORRUPT with
 * b->conn.note set when the row fails a check.
 */
static int read_counters(sdui_outbox *b, counters *c)
{
    /* The last column: every value an integer. */
    int64_t v[5] = {0, 0, 0, 0, 0};
    int rc;
    sqlite3_stmt *q = stmt(b, Q_COUNTERS, &rc);
    memset(c, 0, sizeof *c);
    if (!q)
        return rc;
    rc = sdui__sql_stmt_ints(q, v, 5);
    if (rc == SQLITE_DONE) {
        b->conn.note = "its counters row is missing";
        return SQLITE_CORRUPT;
    }
    if (rc != SQLITE_OK)
        return rc;
    if (!v[4] || v[0] < 1 || v[1] < 0 || v[2] < 0) {
        b->conn.note = "its counters are not counts";
        return SQLITE_CORRUPT;
    }
    if (v[0] >= SEQ_LIMIT || v[3] >= SEQ_LIMIT - 1) {
        b->conn.note = "its next seq is past the limit";
        return SQLITE_CORRUPT;
    }
    c->stored = v[0];
    c->next_seq = v[0] > v[3] ? v[0] : v[3] + 1;
    c->dropped = v[1];
    c->dropped_total = v[2];
    return SQLITE_OK;
}

/* Writes the counters row back; SQLITE_CORRUPT when it is gone (read
 * just before in the same transaction, so only damage removes it). */
static int write_counters(sdui_outbox *b, const counters *c)
{
    int rc;
    sqlite3_stmt *s = stmt(b, Q_WRITE, &rc);
    if (s) {
        sqlite3_bind_int64(s, 1, c->next_seq);
        sqlite3_bind_int64(s, 2, c->dropped);
        sqlite3_bind_int64(s, 3, c->dropped_total);
        rc = sdui__sql_step_done(s);
    }
    if (rc == SQLITE_OK && sqlite3_changes(b->conn.db) != 1) {
        b->conn.note = "its counters row is missing";
        rc = SQLITE_CORRUPT;
    }
    return rc;
}

/*
 * Item count and bytes, in one pass over the items.  The sum cannot
 * overflow for lengths SQLite itself stored; if it fails anyway, or a
 * total is negative, the file is not what we wrote: SQLITE_CORRUPT.
 */
static int totals(sdui_outbox *b, int64_t *count, int64_t *bytes)
{
    int64_t v[2] = {0, 0};
    int rc = sdui__sql_ints(
        b->conn.db, "SELECT count(*), coalesce(sum(" ITEM_LEN "), 0) FROM items",
        v, 2);
    if (rc == SQLITE_ERROR || (rc == SQLITE_OK && (v[0] < 0 || v[1] < 0))) {
        b->conn.note = "its totals cannot be summed";
        rc = SQLITE_CORRUPT;
    }
    *count = v[0];
    *bytes = v[1];
    return rc;
}

/*
 * The queue's totals at the start of a commit (inside its write
 * transaction): the ones this handle carried forward from its last commit
 * when no other connection has committed since (PRAGMA data_version, see
 * the top), else summed from the rows.  *version gets data_version, for
 * the handle to keep with the new totals once the commit is done.
 */
static int queue_totals(sdui_outbox *b, int64_t *count, int64_t *bytes,
                        int64_t *version)
{
    int rc;
    sqlite3_stmt *q = stmt(b, Q_VERSION, &rc);
    if (q)
        rc = sdui__sql_stmt_ints(q, version, 1);
    if (rc != SQLITE_OK)
        return rc;
    if (b->have_totals && *version == b->data_version) {
        *count = b->count;
        *bytes = b->bytes;
        return SQLITE_OK;
    }
    return totals(b, count, bytes);
}

/*
 * Deletes the oldest items until the queue is within both bounds; *count
 * and *bytes are the queue's totals, brought down by what is deleted, and
 * *dropped gets the number deleted.  One ordered walk finds the prefix to
 * drop (checking the running totals as they shrink), then one DELETE
 * removes it after the walk has finished, so no row is deleted under a
 * running SELECT.
 */
static int drop_oldest(sdui_outbox *b, int64_t *total_count,
                       int64_t *total_bytes, int64_t *dropped)
{
    int64_t count = *total_count, bytes = *total_bytes, last = 0, n = 0;
    sqlite3_stmt *q = NULL, *del = NULL;
    size_t max_items = b->opts.max_items, max_bytes = b->opts.max_bytes;
    int rc = SQLITE_OK;
    *dropped = 0;
    if ((uint64_t)count <= max_items && (uint64_t)bytes <= max_bytes)
        return rc;
    rc = sqlite3_prepare_v2(b->conn.db,
                            "SELECT seq, " ITEM_LEN " FROM items ORDER BY seq",
                            -1, &q, NULL);
    while (rc == SQLITE_OK &&
           ((uint64_t)count > max_items || (uint64_t)bytes > max_bytes)) {
        int64_t len;
        rc = sqlite3_step(q);
        if (rc != SQLITE_ROW)
            break;
        len = sqlite3_column_int64(q, 1);
        /* More rows, or longer ones, than the totals counted: damage. */
        if (count <= 0 || len < 0 || len > bytes) {
            b->conn.note = "its items do not add up to its totals";
            rc = SQLITE_CORRUPT;
            break;
        }
        rc = SQLITE_OK;
        last = sqlite3_column_int64(q, 0);
        bytes -= len;
        count--;
        n++;
    }
    /* The rows ran out while a bound still fails: the totals were wrong. */
    if (rc == SQLITE_DONE) {
        b->conn.note = "its items do not add up to its totals";
        rc = SQLITE_CORRUPT;
    }
    sqlite3_finalize(q);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(b->conn.db, "DELETE FROM items WHERE seq<=?1", -1,
                                &del, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(del, 1, last);
        rc = sqlite3_step(del);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    /* The walk saw every row up to `last`; the delete must agree. */
    if (rc == SQLITE_OK && (int64_t)sqlite3_changes(b->conn.db) != n) {
        b->conn.note = "its items do not add up to its totals";
        rc = SQLITE_CORRUPT;
    }
    sqlite3_finalize(del);
    if (rc == SQLITE_OK) {
        *dropped = n;
        *total_count = count;
        *total_bytes = bytes;
    }
    return rc;
}

/* Writes or deletes the state rows in order (inside the transaction). */
static int put_states(sdui_outbox *b, const sdui_outbox_state *states,
                      size_t n)
{
    size_t i;
    int rc = SQLITE_OK;
    for (i = 0; rc == SQLITE_OK && i < n; i++) {
        const sdui_outbox_state *s = &states[i];
        sqlite3_stmt *q = stmt(b, s->value ? Q_PUT : Q_DEL, &rc);
        if (!q)
            break;
        sqlite3_bind_text(q, 1, s->key, -1, SQLITE_STATIC);
        if (s->value)
            /* A zero length still binds a (zero-length) BLOB, not NULL. */
            sqlite3_bind_blob(q, 2, s->value, (int)s->len, SQLITE_STATIC);
        rc = sdui__sql_step_done(q);
        /* The caller's bytes are not kept past the call. */
        sqlite3_clear_bindings(q);
    }
    return rc;
}

/* Appends the items with seqs first, first + 1, ... (inside the
 * transaction). */
static int append_items(sdui_outbox *b, const sdui_outbox_item *items,
                        size_t n, int64_t first)
{
    sqlite3_stmt *s;
    size_t i;
    int rc = SQLITE_OK;
    if (!n)
        return SQLITE_OK;
    s = stmt(b, Q_APPEND, &rc);
    for (i = 0; s && rc == SQLITE_OK && i < n; i++) {
        sqlite3_bind_int64(s, 1, first + (int64_t)i);
        sqlite3_bind_blob(s, 2, items[i].len ? items[i].bytes : "",
                          (int)items[i].len, SQLITE_STATIC);
        rc = sdui__sql_step_done(s);
    }
    if (s)
        sqlite3_clear_bindings(s);   /* the caller's bytes are not kept */
    return rc;
}

/* a + b, at most INT64_MAX (both non-negative). */
static int64_t add_sat(int64_t a, int64_t b)
{
    assert(a >= 0 && b >= 0);
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* States, items, bounds and counters in one transaction (outbox.h; the
 * steps are at the top of this file). */
sdui_status sdui_outbox_commit(sdui_outbox *box,
                               const sdui_outbox_state *states,
                               size_t nstates,
                               const sdui_outbox_item *items, size_t nitems,
                               uint64_t dropped_reported, int64_t *first_seq,
                               sdui_error *err)
{
    counters c;
    int64_t dropped = 0, first = 0, count = 0, bytes = 0, version = 0;
    sdui_status st;
    size_t i;
    int rc;

    sdui_error_clear(err);
    if (!box)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox commit: box is NULL");
    st = check_commit(box, states, nstates, items, nitems, err);
    if (st != SDUI_OK)
        return st;
    st = sdui__sql_conn_lock(&box->conn, err);
    if (st != SDUI_OK)
        return st;
    rc = exec(box, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK)
        rc = read_counters(box, &c);
    if (rc == SQLITE_OK) {
        first = c.next_seq;
        rc = put_states(box, states, nstates);
    }
    if (rc == SQLITE_OK)
        rc = queue_totals(box, &count, &bytes, &version);
    if (rc == SQLITE_OK)
        rc = append_items(box, items, nitems, first);
    if (rc == SQLITE_OK) {
        /* Each item is below 2^31 bytes and 2^30 items at most come. */
        count += (int64_t)nitems;
        for (i = 0; i < nitems; i++)
            bytes = add_sat(bytes, (int64_t)items[i].len);
        rc = drop_oldest(box, &count, &bytes, &dropped);
    }
    if (rc == SQLITE_OK) {
        counters was = c;
        assert(c.next_seq < SEQ_LIMIT && nitems <= MAX_COMMIT_ITEMS);
        c.next_seq += (int64_t)nitems;
        c.dropped = add_sat(c.dropped, dropped);
        c.dropped_total = add_sat(c.dropped_total, dropped);
        if (dropped_reported >= (uint64_t)c.dropped)
            c.dropped = 0;
        else
            c.dropped -= (int64_t)dropped_reported;
        /* The row changes only with the drop counters: the new items
         * carry the next seq (the newest is never dropped: no single
         * item passes a bound), so a commit that drops nothing writes
         * the pages of its rows and no more. */
        assert(nitems == 0 || count > 0);
        if (c.dropped != was.dropped || c.dropped_total != was.dropped_total)
            rc = write_counters(box, &c);
    }
    st = sdui__sql_conn_end(&box->conn, rc, "cannot commit", err);
    /* The totals go forward with a commit, and are summed again after a
     * failed one (a reset has dropped them already). */
    box->have_totals = st == SDUI_OK;
    box->count = count;
    box->bytes = bytes;
    box->data_version = version;
    sdui__sql_conn_unlock(&box->conn);
    if (st == SDUI_OK && first_seq)
        *first_seq = first;
    return st;
}

/* Reads one state row into a new buffer (outbox.h).  The row found must
 * carry the key asked for (else damage). */
sdui_status sdui_outbox_state_get(sdui_outbox *box, const char *key,
                                  void **out, size_t *len, sdui_error *err)
{
    sqlite3_stmt *q = NULL;
    char *copy = NULL;
    size_t n = 0;
    sdui_status st;
    int rc;

    sdui_error_clear(err);
    if (!box || !out || !len)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox state_get: %s is NULL",
                          !box ? "box" : !out ? "out" : "len");
    st = check_key(key, "state_get", err);
    if (st != SDUI_OK)
        return st;
    *out = NULL;
    *len = 0;
    st = sdui__sql_conn_lock(&box->conn, err);
    if (st != SDUI_OK)
        return st;
    rc = sqlite3_prepare_v2(box->conn.db,
                            "SELECT key, value FROM state WHERE key=?1", -1,
                            &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
        rc = sqlite3_step(q);
    }
    if (rc == SQLITE_ROW) {
        const unsigned char *got = sqlite3_column_text(q, 0);
        const void *v = sqlite3_column_blob(q, 1);
        n = (size_t)sqlite3_column_bytes(q, 1);
        if (!got || strcmp((const char *)got, key) != 0) {
            box->conn.note = "a read found another key";
            rc = SQLITE_CORRUPT;
        } else if ((copy = sdui_malloc(n + 1)) == NULL) {
            st = sdui__oom(err);
        } else {
            if (n)
                memcpy(copy, v, n);
            copy[n] = '\0';
            rc = SQLITE_DONE;
        }
    } else if (rc == SQLITE_DONE) {
        st = sdui__fail(err, SDUI_NOT_FOUND, -1,
                        "outbox \"%s\": no state row \"%.200s\"", box->conn.file.path,
                        key);
    }
    /* finalize keeps the step's error on db for the report. */
    sqlite3_finalize(q);
    if (st == SDUI_OK && rc != SQLITE_DONE)
        st = sdui__sql_conn_step_fail(&box->conn, rc,
                                      "cannot read a state row", err);
    sdui__sql_conn_unlock(&box->conn);
    if (st != SDUI_OK) {
        sdui_free(copy);
        return st;
    }
    *out = copy;
    *len = n;
    return SDUI_OK;
}

/* Frees a batch; NULL is a no-op (outbox.h). */
void sdui_outbox_batch_free(sdui_outbox_batch *b)
{
    if (!b)
        return;
    sdui_free(b->entries);
    sdui_free(b->bytes);
    sdui_free(b);
}

/*
 * Adds the item q stands on to the batch, growing its arrays (*cap_e
 * entries, *cap_b bytes) by doubling.  0 when memory runs out.
 */
static int batch_add(sdui_outbox_batch *bt, size_t *cap_e, size_t *cap_b,
                     size_t *used, sqlite3_stmt *q)
{
    const void *p = sqlite3_column_blob(q, 1);
    size_t len = (size_t)sqlite3_column_bytes(q, 1);
    batch_entry *e;
    if (bt->count == *cap_e) {
        size_t c = *cap_e ? *cap_e * 2 : 16;
        batch_entry *ne = sdui_realloc(bt->entries, c * sizeof *ne);
        if (!ne)
            return 0;
        bt->entries = ne;
        *cap_e = c;
    }
    if (*cap_b - *used < len + 1) {
        size_t c = *cap_b ? *cap_b : 1024;
        char *nb;
        while (c - *used < len + 1) {
            if (c > SIZE_MAX / 2)
                return 0;
            c *= 2;
        }
        nb = sdui_realloc(bt->bytes, c);
        if (!nb)
            return 0;
        bt->bytes = nb;
        *cap_b = c;
    }
    e = &bt->entries[bt->count++];
    e->seq = sqlite3_column_int64(q, 0);
    e->off = *used;
    e->len = len;
    if (len)
        memcpy(bt->bytes + *used, p, len);
    bt->bytes[*used + len] = '\0';
    *used += len + 1;
    return 1;
}

/* Reads the oldest items into a new batch (outbox.h). */
sdui_status sdui_outbox_peek(sdui_outbox *box, size_t max_items,
                             size_t max_bytes, sdui_outbox_batch **out,
                             sdui_error *err)
{
    sdui_outbox_batch *bt;
    sqlite3_stmt *q = NULL;
    size_t cap_e = 0, cap_b = 0, used = 0, total = 0;
    int64_t prev = 0;
    sdui_status st;
    int rc;

    sdui_error_clear(err);
    if (!box || !out)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox peek: %s is NULL", !box ? "box" : "out");
    *out = NULL;
    if (!max_bytes)
        max_bytes = SIZE_MAX;
    bt = sdui_malloc(sizeof *bt);
    if (!bt)
        return sdui__oom(err);
    memset(bt, 0, sizeof *bt);
    st = sdui__sql_conn_lock(&box->conn, err);
    if (st != SDUI_OK) {
        sdui_outbox_batch_free(bt);
        return st;
    }
    rc = sqlite3_prepare_v2(box->conn.db,
                            "SELECT seq, bytes FROM items ORDER BY seq"
                            " LIMIT ?1",
                            -1, &q, NULL);
    if (rc == SQLITE_OK)
        sqlite3_bind_int64(q, 1,
                           max_items && max_items <= INT64_MAX
                               ? (sqlite3_int64)max_items
                               : -1);
    while (rc == SQLITE_OK) {
        size_t len;
        int64_t seq;
        if ((rc = sqlite3_step(q)) != SQLITE_ROW)
            break;
        rc = SQLITE_OK;
        seq = sqlite3_column_int64(q, 0);
        len = (size_t)sqlite3_column_bytes(q, 1);
        if (seq <= prev) {
            box->conn.note = "its items are out of order";
            rc = SQLITE_CORRUPT;
            break;
        }
        prev = seq;
        /* Stop before passing max_bytes, but keep at least one item. */
        if (bt->count && (len > max_bytes || total > max_bytes - len)) {
            rc = SQLITE_DONE;
            break;
        }
        if (!batch_add(bt, &cap_e, &cap_b, &used, q)) {
            st = sdui__oom(err);
            break;
        }
        total += len;
    }
    /* finalize keeps the step's error on db for the report. */
    sqlite3_finalize(q);
    if (st == SDUI_OK && rc != SQLITE_DONE)
        st = sdui__sql_conn_step_fail(&box->conn, rc,
                                      "cannot read the queue", err);
    sdui__sql_conn_unlock(&box->conn);
    if (st != SDUI_OK) {
        sdui_outbox_batch_free(bt);
        return st;
    }
    *out = bt;
    return SDUI_OK;
}

/* Items of a batch (outbox.h); an accessor: b must not be NULL. */
size_t sdui_outbox_batch_count(const sdui_outbox_batch *b)
{
    assert(b);
    return b->count;
}

/* The seq of item i, or 0 when i >= count (outbox.h). */
int64_t sdui_outbox_batch_seq(const sdui_outbox_batch *b, size_t i)
{
    assert(b);
    return i < b->count ? b->entries[i].seq : 0;
}

/* The bytes of item i, borrowed from the batch, or NULL when i >= count
 * (outbox.h). */
const void *sdui_outbox_batch_bytes(const sdui_outbox_batch *b, size_t i,
                                    size_t *len)
{
    assert(b);
    if (i >= b->count) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = b->entries[i].len;
    return b->bytes + b->entries[i].off;
}

/* Deletes items by seq in one transaction (outbox.h). */
sdui_status sdui_outbox_ack(sdui_outbox *box, const int64_t *seqs, size_t n,
                            sdui_error *err)
{
    counters c;
    sqlite3_stmt *s = NULL;
    sdui_status st;
    size_t i;
    int rc;

    sdui_error_clear(err);
    if (!box)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "outbox ack: box is NULL");
    if (n && !seqs)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox ack: seqs is NULL with %zu seqs", n);
    if (!n)
        return SDUI_OK;
    st = sdui__sql_conn_lock(&box->conn, err);
    if (st != SDUI_OK)
        return st;
    rc = exec(box, "BEGIN IMMEDIATE");
    /* The row's next_seq first: the items acked may be the newest, which
     * carried it (see sdui_outbox_commit). */
    if (rc == SQLITE_OK)
        rc = read_counters(box, &c);
    if (rc == SQLITE_OK && c.next_seq != c.stored)
        rc = write_counters(box, &c);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(box->conn.db, "DELETE FROM items WHERE seq=?1",
                                -1, &s, NULL);
    for (i = 0; rc == SQLITE_OK && i < n; i++) {
        sqlite3_bind_int64(s, 1, seqs[i]);
        rc = sdui__sql_step_done(s);
    }
    sqlite3_finalize(s);
    st = sdui__sql_conn_end(&box->conn, rc, "cannot ack", err);
    box->have_totals = 0; /* rows went that were not measured */
    sdui__sql_conn_unlock(&box->conn);
    return st;
}

/* The queue's size and counters, in one read transaction (outbox.h). */
sdui_status sdui_outbox_stats_get(sdui_outbox *box, sdui_outbox_stats *out,
                                  sdui_error *err)
{
    counters c;
    int64_t count = 0, bytes = 0;
    sdui_status st;
    int rc;

    sdui_error_clear(err);
    if (!box || !out)
        return sdui__fail(err, SDUI_ARGUMENT, -1,
                          "outbox stats_get: %s is NULL",
                          !box ? "box" : "out");
    memset(out, 0, sizeof *out);
    st = sdui__sql_conn_lock(&box->conn, err);
    if (st != SDUI_OK)
        return st;
    rc = exec(box, "BEGIN");
    if (rc == SQLITE_OK)
        rc = read_counters(box, &c);
    if (rc == SQLITE_OK)
        rc = totals(box, &count, &bytes);
    st = sdui__sql_conn_end(&box->conn, rc, "cannot count", err);
    if (st == SDUI_OK) {
        out->items = (uint64_t)count;
        out->bytes = (uint64_t)bytes;
        out->dropped = (uint64_t)c.dropped;
        out->dropped_total = (uint64_t)c.dropped_total;
        out->next_seq = c.next_seq;
    }
    sdui__sql_conn_unlock(&box->conn);
    return st;
}
