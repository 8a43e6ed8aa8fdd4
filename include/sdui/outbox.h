/*
 * outbox.h - the durable queue: one SQLite file in WAL mode that holds a
 * few keyed state rows and an append-only queue of opaque byte items, and
 * commits changes to both in one transaction.
 *
 * What it is for.  A flow keeps its progress (which screen, the answers)
 * in state rows and reports analytics events (already-encoded JSON) as
 * queued items.  Moving a flow forward changes both at once: the new
 * progress and the events that say so.  sdui_outbox_commit writes them in
 * ONE transaction, so a kill at any instant leaves either the new progress
 * and its events, or neither: an event is never sent for progress that
 * was lost, and progress is never kept without its events.  A sender
 * reads the oldest items (sdui_outbox_peek), delivers them, and deletes
 * them by seq (sdui_outbox_ack).  A file-scope store keeps its journal in
 * one too (Sources/SDUIStore/Persistence/StoreJournal.swift).
 *
 * The file.  PRAGMA user_version is the schema version
 * (SDUI_OUTBOX_SCHEMA_VERSION); versions 1 and 2 hold three tables:
 *     state(key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID
 *         the state rows, at most one per key;
 *     items(seq INTEGER PRIMARY KEY, bytes BLOB)
 *         the queue, seq the rowid: strictly increasing in append order;
 *     counters(id INTEGER PRIMARY KEY CHECK(id = 0), next_seq, dropped,
 *              dropped_total)
 *         one row: a floor of the seq the next item gets, and the drop
 *         counters.
 * Seqs start at 1 and are never reused, even after items are acked or
 * dropped and the file is reopened: the next seq is past next_seq and past
 * every stored item (version 2; version 1 wrote next_seq with every
 * commit, which a version-1 file still holds, so it reads the same and is
 * upgraded in place).  A commit rewrites the row only when its drop
 * counters change; an ack writes next_seq before it deletes.
 *
 * The transaction.  A commit writes (or deletes) its state rows in order,
 * appends its items, enforces the bounds and updates the counters, then
 * commits; on any failure it rolls back and nothing of it is kept.  With
 * the default synchronous setting (FULL) a commit that returned SDUI_OK
 * survives a kill of the process, and a loss of power as far as fsync
 * keeps its promise; with NORMAL it survives a kill of the process (WAL
 * mode), and the last commits may be lost with power.
 *
 * Bounds and the dropped counter.  The queue holds at most max_items items
 * and max_bytes bytes of items: the lengths of the stored blobs, as SQLite
 * reports them, summed from the rows (a handle carries its sums from one
 * of its commits to the next, and sums the rows again whenever another
 * connection may have written; no total is stored in the file, so no
 * value in it can lift a bound).  When a commit
 * leaves the queue over a bound, the OLDEST items are deleted in the same
 * transaction until both bounds hold, and their number is added to
 * `dropped` and `dropped_total`.  `dropped` is what has been dropped and
 * not yet reported: the caller reports it in an item (an analytics event
 * "n events were dropped") of a later commit and passes that same number
 * as dropped_reported, which the commit subtracts (not below 0), so the
 * report and the subtraction are one transaction too.  One item is bounded
 * by max_item_bytes (and by max_bytes, which it could never fit): a larger
 * item fails the commit with SDUI_LIMIT and nothing of the commit is
 * written.
 *
 * Whose file.  The path may name any file; only an outbox file is ever
 * written or moved aside.  An outbox file carries
 * SDUI_OUTBOX_APPLICATION_ID as its SQLite application_id from creation;
 * a file made before that (application_id 0) is one when its user_version
 * is 1 and its schema objects are exactly the outbox's, and it gets the
 * application_id as it is opened; an empty database (no bytes, or no
 * objects, application_id and user_version 0) becomes one.  Any other file
 * (not a SQLite database, another program's database, tables that are not
 * the outbox's under application_id 0) is refused with SDUI_SQLITE,
 * `outbox "<path>" is not an SDUIKit outbox file (<why>); left
 * untouched`, and not a byte of it is written, whatever its state.
 *
 * Damage.  An outbox file written by a newer schema version is refused
 * with a clear error and left untouched.  At open, before anything is
 * written, an outbox file's schema objects must be exactly those of its
 * version (a table, column, trigger or view added is not the outbox) and
 * the whole file must pass PRAGMA integrity_check; an outbox file that
 * fails either check, or that SQLite cannot read while its header still
 * holds the application_id, is moved aside (to PATH.corrupt-<ms>, or
 * PATH.corrupt-<ms>-<n> when that name is taken, with its -wal and -shm
 * files) and a fresh, empty outbox is created; sdui_outbox_recovered()
 * then answers 1 and sdui_outbox_recovery() says where it went and why.
 * Damage met later (SQLite reports a corrupt file; the item totals do not
 * add up; the counters row is missing, not made of integers, negative, or
 * its next_seq or the largest stored seq is 2^62 or more; a state
 * read finds another key) is handled the same way by the call that meets
 * it: the file is moved aside and a fresh one opened, and that call fails
 * with SDUI_SQLITE and a message saying the outbox was damaged and reset
 * and where the file went; later calls work on the fresh file.
 *
 * Threads and processes.  One sdui_outbox may be used from many threads:
 * every call takes its mutex.  Many processes (or many handles) may open
 * one file: WAL mode lets readers run beside the one writer, and a call
 * waits up to 5 seconds for another connection's write lock before it
 * fails (SDUI_SQLITE, SQLITE_BUSY).  Each commit reads the counters inside
 * its write transaction, so seqs stay unique across processes.  SQLite's
 * own allocations do not go through sdui_set_allocator (alloc.h says why);
 * what is copied out of SQLite (state values, batches) does.
 *
 * Errors.  SDUI_SQLITE records carry SQLite's extended result code in
 * sdui_error.code (error.h) and name the file as outbox "<path>"; SDUI_IO
 * (a damaged file that cannot be moved aside), errno.  NULL handles follow
 * the rule of sdui.h: a NULL outbox or out-pointer is SDUI_ARGUMENT with a
 * message naming it, and nothing is read or written.  SDUI_ARGUMENT
 * changes nothing, out-pointers included; after any other failure an
 * out-pointer holds NULL (or 0), unless its function says otherwise.
 */
#ifndef SDUI_OUTBOX_H
#define SDUI_OUTBOX_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_outbox sdui_outbox;
typedef struct sdui_outbox_batch sdui_outbox_batch;

/* The schema version this build writes and reads. */
#define SDUI_OUTBOX_SCHEMA_VERSION 2

/* The SQLite application_id of an outbox file ("SDUO"): see "Whose file"
 * above. */
#define SDUI_OUTBOX_APPLICATION_ID 0x5344554f

#define SDUI_OUTBOX_DEFAULT_MAX_ITEMS ((size_t)10000)
#define SDUI_OUTBOX_DEFAULT_MAX_BYTES ((size_t)8 << 20)
#define SDUI_OUTBOX_DEFAULT_MAX_ITEM_BYTES ((size_t)64 << 10)

/* The longest state key, in bytes (without the NUL). */
#define SDUI_OUTBOX_MAX_KEY_BYTES 1024

/* A zero bound means its default. */
typedef struct sdui_outbox_options {
    size_t max_items;      /* queued items; default 10000                    */
    size_t max_bytes;      /* queued item bytes; default 8 MiB               */
    size_t max_item_bytes; /* one item; default 64 KiB: a larger one fails
                              the commit with SDUI_LIMIT, nothing written   */
    int synchronous;       /* 0: FULL (default; each commit is fsynced);
                              1: NORMAL (survives a kill of the process)    */
} sdui_outbox_options;

/* A state row to write: key (NUL-terminated, 1 to 1024 bytes) and
 * value[0, len) (any bytes).  value == NULL deletes the row `key`. */
typedef struct sdui_outbox_state {
    const char *key;
    const void *value;
    size_t len;
} sdui_outbox_state;

/* An item to append: bytes[0, len) (any bytes; bytes may be NULL when len
 * is 0). */
typedef struct sdui_outbox_item {
    const void *bytes;
    size_t len;
} sdui_outbox_item;

typedef struct sdui_outbox_stats {
    uint64_t items;         /* queued now                                   */
    uint64_t bytes;         /* queued item bytes now                        */
    uint64_t dropped;       /* dropped by the bounds, not yet reported      */
    uint64_t dropped_total; /* ever dropped                                 */
    int64_t next_seq;       /* the seq the next appended item will get      */
} sdui_outbox_stats;

/* Fills *out with the defaults (the bounds above, synchronous FULL).
 * Thread-safe. */
void sdui_outbox_options_default(sdui_outbox_options *out);

/*
 * Opens (creating if needed) the outbox file at path.  opts may be NULL
 * for the defaults; a zero bound means its default; synchronous must be 0
 * or 1.  On SDUI_OK *out is new (release with sdui_outbox_free) and err
 * is clear, also after a damaged file was moved aside (see
 * sdui_outbox_recovered).  Errors: SDUI_SQLITE (the path cannot hold a
 * database, e.g. "is a directory"; a file that is not an outbox file,
 * left untouched, err.code SQLITE_NOTADB when it is no SQLite database at
 * all, else SQLITE_ERROR; a file of a newer schema version, left
 * untouched; SQLite failed; the message names the path and the cause),
 * SDUI_IO (a damaged file cannot be moved aside), SDUI_OOM, SDUI_ARGUMENT
 * (path or out NULL, path empty, synchronous not 0 or 1).  Thread-safe
 * (each call opens its own handle).
 */
sdui_status sdui_outbox_open(const char *path,
                             const sdui_outbox_options *opts,
                             sdui_outbox **out, sdui_error *err);

/* Closes the outbox.  NULL is a no-op.  No other call on box may run
 * meanwhile or follow. */
void sdui_outbox_free(sdui_outbox *box);

/* 1 when a damaged file was moved aside (at open or by a later call),
 * else 0.  An accessor: box must not be NULL.  Thread-safe. */
int sdui_outbox_recovered(const sdui_outbox *box);

/*
 * What the last move aside of a damaged file said, copied into buf[0,
 * cap) (NUL-terminated, truncated to fit; buf may be NULL when cap is 0):
 * `outbox "<path>" was damaged (<why>); moved aside to "<new path>", a
 * fresh one was made`, or "" when none was moved aside.  Returns the
 * notice's whole length, as snprintf does.  box must not be NULL.
 * Thread-safe.
 */
size_t sdui_outbox_recovery(const sdui_outbox *box, char *buf, size_t cap);

/*
 * One transaction: writes (value != NULL) or deletes (value == NULL) the
 * states[0, nstates) rows in order (a key given twice: the later wins),
 * appends items[0, nitems) in order, each getting the next seq; then, while
 * the queue is over max_items or max_bytes, deletes the oldest items and
 * adds their number to `dropped` and `dropped_total`; finally subtracts
 * dropped_reported from `dropped` (not below 0).  Items of this commit may
 * be dropped too when the commit alone is over a bound.  *first_seq (may
 * be NULL) gets the seq of the first appended item, or the next seq when
 * there is none; it is left as it was when the commit fails.  An empty
 * commit is fine (it may still
 * subtract dropped_reported).  The arguments are borrowed for the call.
 *
 * All or nothing: every argument is checked before anything is written,
 * and any later failure rolls the transaction back.  Errors: SDUI_ARGUMENT
 * (box NULL; states or items NULL with a count; a key NULL, empty or over
 * SDUI_OUTBOX_MAX_KEY_BYTES; an item's bytes NULL with a length; the
 * message names the index), SDUI_LIMIT (an item over max_item_bytes or
 * max_bytes; a value of 2 GiB or more; over 2^30 items in one commit),
 * SDUI_SQLITE (damage resets the outbox, see the top; SQLITE_BUSY after
 * waiting for another process; SQLITE_TOOBIG for a value longer than
 * SQLite stores), SDUI_OOM.  Thread-safe.
 */
sdui_status sdui_outbox_commit(sdui_outbox *box,
                               const sdui_outbox_state *states,
                               size_t nstates,
                               const sdui_outbox_item *items, size_t nitems,
                               uint64_t dropped_reported, int64_t *first_seq,
                               sdui_error *err);

/*
 * Reads state row `key`.  On SDUI_OK *out is a new buffer the caller owns
 * and frees with sdui_free, holding the value and a NUL after it (for
 * convenience: *len excludes it; the value may hold NULs of its own).
 * Errors: SDUI_NOT_FOUND (no such row; the message names the key),
 * SDUI_ARGUMENT (box, key, out or len NULL; key empty or too long),
 * SDUI_SQLITE (damage resets the outbox), SDUI_OOM.  Thread-safe.
 */
sdui_status sdui_outbox_state_get(sdui_outbox *box, const char *key,
                                  void **out, size_t *len, sdui_error *err);

/*
 * Reads the oldest queued items, in seq order, without removing them: at
 * most max_items of them, stopping before their total length would pass
 * max_bytes, but always at least one when the queue is not empty (so an
 * item larger than max_bytes is still delivered).  0 for either bound
 * means no bound.  On SDUI_OK *out is a new batch the caller owns
 * (release with sdui_outbox_batch_free); its count is 0 when the queue is
 * empty.  Errors: SDUI_ARGUMENT (box or out NULL), SDUI_SQLITE (damage
 * resets the outbox), SDUI_OOM.  Thread-safe.
 */
sdui_status sdui_outbox_peek(sdui_outbox *box, size_t max_items,
                             size_t max_bytes, sdui_outbox_batch **out,
                             sdui_error *err);

/*
 * A batch's items.  _seq: the seq of item i (0 when i >= count).  _bytes:
 * item i's bytes, borrowed from the batch (valid until _free;
 * NUL-terminated for convenience, *len, which may be NULL, excludes the
 * NUL), or NULL with *len 0 when i >= count.  Accessors: b must not be
 * NULL; they may run on many threads at once, and _free after all of
 * them.  _free(NULL) is a no-op.
 */
size_t sdui_outbox_batch_count(const sdui_outbox_batch *b);
int64_t sdui_outbox_batch_seq(const sdui_outbox_batch *b, size_t i);
const void *sdui_outbox_batch_bytes(const sdui_outbox_batch *b, size_t i,
                                    size_t *len);
void sdui_outbox_batch_free(sdui_outbox_batch *b);

/*
 * Deletes the items seqs[0, n) in one transaction.  Seqs not present are
 * ignored (an ack may race a drop by the bounds, or another process's
 * ack).  Errors: SDUI_ARGUMENT (box NULL, or seqs NULL with n > 0),
 * SDUI_SQLITE (damage resets the outbox), SDUI_OOM.  Thread-safe.
 */
sdui_status sdui_outbox_ack(sdui_outbox *box, const int64_t *seqs, size_t n,
                            sdui_error *err);

/*
 * The queue's size and counters, read in one read transaction (the item
 * totals summed from the rows).  Errors:
 * SDUI_ARGUMENT (box or out NULL), SDUI_SQLITE (damage resets the
 * outbox), SDUI_OOM.  Thread-safe.
 */
sdui_status sdui_outbox_stats_get(sdui_outbox *box, sdui_outbox_stats *out,
                                  sdui_error *err);

#ifdef __cplusplus
}
#endif
#endif
