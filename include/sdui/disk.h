/*
 * disk.h - the on-disk token cache: one SQLite file in WAL mode, holding
 * the cached tokens and the last good payload of each screen.
 *
 * Token rows hold id, version, etag, json, primitive_version, fetched_at,
 * expires_at and last_access (times are milliseconds since the Unix epoch,
 * always passed in by the caller, so tests can inject a clock).  A batch of
 * rows is written in one transaction; many ids are read with one query.
 * After each batch the least recently accessed rows are evicted until the
 * cache is within its entry and byte bounds.  Byte totals are the lengths of
 * the stored JSON blobs (SQLite's length(), read from each row's header),
 * never a stored count, so no value in the file can lift the bound or stop
 * writes.  With the default synchronous setting every committed batch
 * survives a crash of the process or of the machine.
 *
 * Screens.  A screen row holds an id, the ETag and the payload bytes of
 * the screen's last good answer (for offline starts), fetched_at and
 * last_access.  Screens have bounds of their own, max_screens and
 * max_screen_bytes (payload bytes), apart from the tokens': a burst of
 * tokens cannot evict the payload an offline start needs, nor a large
 * screen hundreds of tokens.  The file holds at most max_bytes of token
 * JSON plus max_screen_bytes of payloads.  Each put of a screen is one
 * durable transaction that evicts the least recently read screens to the
 * bounds; a payload over max_screen_bytes alone is refused (SDUI_LIMIT).
 *
 * Schema versions.  Version 1 held the tokens; version 2 adds the
 * screens.  A version-1 file is upgraded in place at open, its tokens
 * kept; each file is checked against the objects of the version it
 * claims.
 *
 * The cache is only a cache: a path that cannot hold one (a directory, a
 * FIFO or other non-regular file, a dangling symbolic link, a missing or
 * unwritable folder, a read-only file system, a full disk) fails the open at
 * once, without blocking, and the message names the cause.
 *
 * Whose file.  The path may name any file, and a path a user gave must
 * never cost them a file: only a cache file is ever written or moved
 * aside.  A cache file carries SDUI_DISK_APPLICATION_ID as its SQLite
 * application_id from creation; a file made before that (application_id
 * 0) is one when its user_version is 1 or 2 and its schema objects are
 * exactly that version's, and it gets the application_id as it is opened;
 * an empty database (no bytes, or no objects, application_id and
 * user_version 0) becomes one.  Any other file (not a SQLite database,
 * another program's database, tables that are not the cache's under
 * application_id 0) is refused with SDUI_SQLITE, `token cache "<path>" is
 * not an SDUIKit token cache file (<why>); left untouched`, and not a
 * byte of it is written: the cache is only a cache, the file may be all someone has.
 *
 * Damage.  A cache file written by a newer schema version is refused with
 * a clear error and left untouched.  At open, before anything is written,
 * a cache file is checked: its schema objects must be exactly the cache's
 * (a table, column, trigger or view added is not the cache), and then the
 * whole file must pass PRAGMA integrity_check (pages, and each index
 * against the table).  A cache file that fails either check, or that
 * SQLite cannot read while its header still holds the application_id, is
 * moved aside (to PATH.corrupt-<ms>, or PATH.corrupt-<ms>-<n> when that
 * name is taken, with its -wal and -shm files) and a fresh cache is
 * created.  Damage found
 * One sdui_disk may be used from many threads: every call takes its mutex.
 * SQLite's own allocations (connection, statements, page cache) do not go
 * through sdui_set_allocator: SQLite accepts an allocator only for the
 * whole process and only before it initialises, which a library sharing
 * libsqlite3 with its host cannot do safely (alloc.h says exactly why);
 * the rows the core copies out of SQLite do.
 *
 * Error records of SDUI_SQLITE carry SQLite's extended result code in
 * sdui_error.code (error.h); SDUI_IO, errno.  NULL handles follow the
 * rule of sdui.h.
 */
#ifndef SDUI_DISK_H
#define SDUI_DISK_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "limits.h"
#include "token.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_disk sdui_disk;
typedef struct sdui_disk_rows sdui_disk_rows;
typedef struct sdui_disk_tokens sdui_disk_tokens;

/* The schema version this build writes and reads (older ones it
 * upgrades). */
#define SDUI_DISK_SCHEMA_VERSION 2

/* The SQLite application_id of a cache file ("SDUC"): see "Whose file"
 * above. */
#define SDUI_DISK_APPLICATION_ID 0x53445543

#define SDUI_DISK_DEFAULT_MAX_SCREENS ((size_t)256)
#define SDUI_DISK_DEFAULT_MAX_SCREEN_BYTES ((size_t)8 << 20)

/* A zero bound means its default. */
typedef struct sdui_disk_options {
    size_t max_entries; /* tokens; default 5000                           */
    size_t max_bytes;   /* bytes of token JSON; default 32 MiB            */
    int durable;        /* 1 (default): fsync each commit (synchronous=FULL);
                           0: survive a process crash only (NORMAL)        */
    size_t max_screens; /* screens; default 256                           */
    size_t max_screen_bytes; /* bytes of screen payloads; default 8 MiB   */
} sdui_disk_options;

/* One cached token.  In results every pointer is borrowed from the rows
 * object; in sdui_disk_put they are read during the call only. */
typedef struct sdui_disk_record {
    const char *id;
    size_t id_len;
    int64_t version;
    int64_t primitive_version;
    const char *etag;
    size_t etag_len;
    const char *json;
    size_t json_len;
    int64_t fetched_at;
    int64_t expires_at;  /* fresh while now < expires_at */
    int64_t last_access;
} sdui_disk_record;

/* Tokens first (entries, bytes: of token JSON), then screens. */
typedef struct sdui_disk_stats {
    size_t entries, bytes;
    size_t max_entries, max_bytes;
    uint64_t evictions; /* of tokens, since open */
    size_t screens, screen_bytes;
    size_t max_screens, max_screen_bytes;
    uint64_t screen_evictions; /* since open */
} sdui_disk_stats;

/* A cached screen (sdui_disk_get_screen): one allocation holding the
 * struct and its bytes; etag and payload are NUL-terminated (the payload
 * may hold NULs of its own: use payload_len). */
typedef struct sdui_disk_screen {
    const char *etag;
    size_t etag_len;
    const char *payload;
    size_t payload_len;
    int64_t fetched_at;
} sdui_disk_screen;

/* Fills *out with the defaults.  Thread-safe. */
void sdui_disk_options_default(sdui_disk_options *out);

/*
 * Opens (creating if needed) the cache file at path.  opts may be NULL for
 * the defaults.  On SDUI_OK *out is new (release with sdui_disk_free) and
 * err is clear, also after a recovery (see sdui_disk_recovered).
 * Errors: SDUI_SQLITE (the path cannot hold a cache, or SQLite failed; the
 * message names the path and the cause, e.g. "is a directory", "no space
 * left on device"; also a file that is not a cache file, or of a newer
 * schema version, both left untouched), SDUI_IO (a
 * damaged file cannot be moved aside), SDUI_OOM, SDUI_ARGUMENT.
 */
sdui_status sdui_disk_open(const char *path, const sdui_disk_options *opts,
                           sdui_disk **out, sdui_error *err);

/* Closes the cache.  NULL is a no-op. */
void sdui_disk_free(sdui_disk *disk);

/* 1 if a damaged file was moved aside (at open or by a later call), else 0. */
int sdui_disk_recovered(const sdui_disk *disk);

/*
 * What the last move aside of a damaged file said, copied into buf[0,
 * cap) (NUL-terminated, truncated to fit; buf may be NULL when cap is 0):
 * `token cache "<path>" was damaged (<why>); moved aside to "<new path>",
 * a fresh one was made`, or "" when none was moved aside.  Returns the
 * notice's whole length, as snprintf does.  disk must not be NULL.
 * Thread-safe.
 */
size_t sdui_disk_recovery(const sdui_disk *disk, char *buf, size_t cap);

/*
 * Writes n rows in one transaction, replacing rows with the same ids
 * (last_access is set to now), then evicts to the bounds in the same
 * transaction.  All or nothing: on error no row of the batch is stored.
 * Every call below fails with SDUI_SQLITE when it meets damage, after
 * resetting the cache (see the top of this file).
 */
sdui_status sdui_disk_put(sdui_disk *disk, const sdui_disk_record *rows,
                          size_t n, int64_t now, sdui_error *err);

/*
 * Reads the rows of up to n ids with one query (ids not cached are simply
 * absent; duplicates are returned once) and sets their last_access to now.
 * On SDUI_OK *out is new (release with sdui_disk_rows_free), in no
 * particular order.  Stale rows are returned too: compare expires_at.
 */
sdui_status sdui_disk_get(sdui_disk *disk, const char *const *ids,
                          const size_t *lens, size_t n, int64_t now,
                          sdui_disk_rows **out, sdui_error *err);

/*
 * Revalidation without a new body (HTTP 304): sets fetched_at and
 * expires_at of the given ids in one transaction.  *updated (may be NULL)
 * receives the number of rows changed.
 */
sdui_status sdui_disk_refresh(sdui_disk *disk, const char *const *ids,
                              const size_t *lens, size_t n,
                              int64_t fetched_at, int64_t expires_at,
                              size_t *updated, sdui_error *err);

/* Removes the given ids; *removed (may be NULL) receives the count. */
sdui_status sdui_disk_remove(sdui_disk *disk, const char *const *ids,
                             const size_t *lens, size_t n, size_t *removed,
                             sdui_error *err);

/*
 * Stores the last good payload of screen id (payload may hold any bytes)
 * with its ETag, replacing the screen's earlier row, in one transaction
 * (durable as a batch of tokens) that then evicts the least recently read
 * screens to max_screens and max_screen_bytes.  last_access is set to now.
 * The bytes are read during the call only.  Errors: SDUI_LIMIT (nothing
 * written) when payload_len is over max_screen_bytes; SDUI_ARGUMENT when
 * disk is NULL, the id empty, or etag or payload NULL with a length;
 * SDUI_SQLITE (damage resets the cache, as above); SDUI_OOM.
 */
sdui_status sdui_disk_put_screen(sdui_disk *disk, const char *id,
                                 size_t id_len, const char *etag,
                                 size_t etag_len, const char *payload,
                                 size_t payload_len, int64_t fetched_at,
                                 int64_t now, sdui_error *err);

/*
 * Reads the cached payload of screen id and marks it read at now.  On
 * SDUI_OK *out is a new screen (release with sdui_disk_screen_free), or
 * NULL when the screen is not cached.  A row found under another id is
 * damage: the cache is reset and the call fails with SDUI_SQLITE.
 */
sdui_status sdui_disk_get_screen(sdui_disk *disk, const char *id,
                                 size_t id_len, int64_t now,
                                 sdui_disk_screen **out, sdui_error *err);

/* Frees a screen of sdui_disk_get_screen.  NULL is a no-op. */
void sdui_disk_screen_free(sdui_disk_screen *s);

/* Sizes, bounds and evictions since open, of tokens and of screens. */
sdui_status sdui_disk_get_stats(sdui_disk *disk, sdui_disk_stats *out,
                                sdui_error *err);

/*
 * One cached row read as a token (sdui_disk_get_tokens).  The strings are
 * borrowed from the result (NUL-terminated, valid until
 * sdui_disk_tokens_free); so is `token`: the result holds one reference
 * to it and releases it when freed.  To keep a token longer, take a
 * reference of your own (sdui_disk_tokens_take, or sdui_token_retain).
 */
typedef struct sdui_disk_token {
    sdui_token *token;   /* the token; NULL when bad                        */
    const char *id;      /* the id asked for (the row's id)                 */
    size_t id_len;
    const char *etag;
    size_t etag_len;
    int64_t fetched_at;
    int64_t expires_at;  /* fresh while now < expires_at                    */
    int64_t last_access; /* as stored before this read                      */
    int bad;             /* 1: the row is cached but unusable: its JSON does
                            not parse, fails the token schema or the limits,
                            or its "id" is not the row's id.  Refetch it (a
                            put replaces the row). */
} sdui_disk_token;

/*
 * Reads the rows of up to n ids as tokens: the same one query per chunk
 * of ids as sdui_disk_get (ids not cached are absent, duplicates are
 * returned once, in no particular order, stale rows too), and the same
 * marking of last_access.  Each row's JSON goes from SQLite's column
 * straight into sdui_token_parse (one copy, into the token's own storage;
 * one parse) under limits (NULL: the defaults).  A row that does not
 * make a token does not fail the call: it is returned with bad = 1.  The
 * tokens are parsed while the cache's mutex is held.
 * On SDUI_OK *out is new (release with sdui_disk_tokens_free).  Errors as
 * sdui_disk_get: SDUI_SQLITE (damage resets the cache), SDUI_OOM (also
 * when a token could not be allocated), SDUI_ARGUMENT.
 */
sdui_status sdui_disk_get_tokens(sdui_disk *disk, const char *const *ids,
                                 const size_t *lens, size_t n, int64_t now,
                                 const sdui_limits *limits,
                                 sdui_disk_tokens **out, sdui_error *err);

/*
 * Writes n tokens as one batch: sdui_disk_put (the same writer: one
 * transaction, replacing rows of the same ids, eviction, all or nothing,
 * damage resets), with each row's id, version, primitive_version and JSON
 * taken from tokens[i] and bound in place (SQLite reads the token's own
 * bytes; no copy), its ETag from etags[i] (etag_lens[i] bytes), and
 * fetched_at and expires_at for every row.  The tokens and ETags are
 * borrowed for the call only.  SDUI_ARGUMENT (nothing written) when disk
 * is NULL, or n > 0 and an array, a token or an ETag is NULL.
 */
sdui_status sdui_disk_put_tokens(sdui_disk *disk,
                                 const sdui_token *const *tokens,
                                 const char *const *etags,
                                 const size_t *etag_lens, size_t n,
                                 int64_t fetched_at, int64_t expires_at,
                                 int64_t now, sdui_error *err);

/* Rows of a result (borrowed, valid until sdui_disk_rows_free). */
size_t sdui_disk_rows_count(const sdui_disk_rows *rows);
const sdui_disk_record *sdui_disk_rows_at(const sdui_disk_rows *rows,
                                          size_t i);
void sdui_disk_rows_free(sdui_disk_rows *rows);

/*
 * Tokens of a result.  _at: borrowed, valid until sdui_disk_tokens_free;
 * NULL when i >= count.  _take: a new reference to the i-th token, which
 * the caller owns and releases with sdui_token_release (a Swift
 * DesignToken(adopting:) takes it over); the result keeps its own and
 * stays whole.  NULL when the row is bad or i >= count.  The accessors
 * may be called from many threads at once; _free must come after all of
 * them, and releases the result's references (taken ones live on).
 * NULL handles: _count, _at and _take assert; _free(NULL) is a no-op.
 */
size_t sdui_disk_tokens_count(const sdui_disk_tokens *t);
const sdui_disk_token *sdui_disk_tokens_at(const sdui_disk_tokens *t,
                                           size_t i);
sdui_token *sdui_disk_tokens_take(const sdui_disk_tokens *t, size_t i);
void sdui_disk_tokens_free(sdui_disk_tokens *t);

#ifdef __cplusplus
}
#endif
#endif
