/*
 * snapshot.h - a JSON value kept in one file, replaced atomically and
 * checked on read (the store's "file" scope keeps its whole state so).
 *
 * The file.  One readable JSON document on one line, exactly
 *
 *     {"format":"sdui-snapshot","version":1,"crc32":"<8 hex>","data":<value>}
 *
 * and a newline, where <value> is the value written (compact, sorted keys,
 * reals with 17 significant digits so they read back to the same double)
 * and crc32 is the CRC-32 (the gzip one, lowercase hex) of <value>'s bytes
 * exactly as they stand in the file.  A read accepts the file only if it
 * is byte for byte in that form and the checksum holds, so a torn write, a
 * flipped byte, a plain JSON file without the envelope and a hand edit are
 * all refused (SDUI_CORRUPT), each with its own message.
 *
 * Two files.  PATH holds the newest snapshot and PATH.prev the one before
 * it.  A write never changes a file in place: it writes a temporary file
 * beside PATH, syncs it, makes the current PATH (if it checks out) the new
 * PATH.prev, renames the temporary file over PATH and syncs the directory.
 * So at every instant, whenever the process is killed, PATH or PATH.prev
 * holds a complete good snapshot, and a write that returned SDUI_OK
 * survives a kill of the process (and, as far as the file system keeps
 * its promise of fsync, a loss of power).
 *
 * Size: a snapshot file is at most SDUI_SNAPSHOT_MAX_BYTES bytes.  The
 * writer refuses a value that would make a larger file (SDUI_LIMIT), and
 * the reader refuses a larger file by its size alone (SDUI_CORRUPT: no
 * writer made it), before reading any of it; what it reads it reads in
 * bounded pieces into one buffer of the file's size, so a read never holds
 * more than that bound in memory for the file's bytes.
 *
 * Depth: max_depth counts from the value itself (limits.h); the envelope
 * does not count, as a pack's does not.
 *
 * Unreadable files.  A file that exists but cannot be read (permissions, an
 * I/O error, a directory or another non-regular file in its place) is an
 * error, never "no snapshot": the reader does not read an older PATH.prev
 * in place of an unreadable PATH (its value would silently stand in for a
 * newer one), and the writer never replaces a PATH or a PATH.prev it
 * cannot read.
 *
 * Several writers.  The write itself is atomic, but a caller that reads,
 * changes and writes back (as the store does) loses another process's
 * write made in between.  sdui_snapshot_lock_open takes an advisory lock
 * beside the file for that read-change-write; every writer that takes it
 * is serialized.
 *
 * NULL handles follow the rule of sdui.h: a NULL path, document or
 * out-pointer is SDUI_ARGUMENT with a message naming it, and nothing is
 * read or written.
 */
#ifndef SDUI_SNAPSHOT_H
#define SDUI_SNAPSHOT_H

#include "error.h"
#include "json_doc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The envelope's "format" and the one "version" this library writes and
 * reads. */
#define SDUI_SNAPSHOT_FORMAT "sdui-snapshot"
#define SDUI_SNAPSHOT_VERSION 1

/* The largest snapshot file, envelope included, that is written or read:
 * 64 MiB, the core's default bound on JSON text (limits.h). */
#define SDUI_SNAPSHOT_MAX_BYTES ((size_t)64 << 20)

/*
 * Writes doc's root value to path as a snapshot (the form above).
 *
 * Steps: serialise inside the envelope, then read the serialised value
 * back with the reader's own parser (so a tree the reader would refuse, such
 * as a NUL in a member name put there by hand, is refused here and never
 * becomes a snapshot); create a temporary file "PATH.tmp-<pid>-<n>" in the
 * same directory (O_CREAT|O_EXCL), write it, fsync it (F_FULLFSYNC where
 * the system has it); if the current PATH is a good snapshot (its form and
 * checksum check out), link it to a temporary name and rename that over
 * PATH.prev (a current PATH that does not check out is not kept, so
 * PATH.prev stays the last good one); rename the temporary file over PATH;
 * fsync the directory.
 *
 * Refusals: a PATH that exists but cannot be read (permissions, an I/O
 * error, a FIFO, device or socket in its place) is not replaced, nor is a
 * PATH.prev that exists but cannot be opened for reading when the write
 * would replace it (that is, when PATH is good): SDUI_IO with that
 * file's errno, naming it, and nothing is changed.  A value whose file
 * would be larger than SDUI_SNAPSHOT_MAX_BYTES is SDUI_LIMIT, found while
 * serialising (memory stays within the bound), and nothing is written.
 *
 * Mode: a new PATH gets 0600 (scenario data is the user's own); a PATH that
 * is replaced keeps its permission bits (not its owner), with read and
 * write for the owner added (so a file once made mode 000 or 0400 does not
 * pass that on: the new file can be read back).  A symbolic link at PATH is
 * replaced by the new file, not followed; one that leads to a file that
 * cannot be read is refused as above.
 *
 * Leftovers: a writer killed mid-write leaves its temporary file behind;
 * each write first removes the temporary files of PATH whose process (the
 * pid in the name) no longer exists.  (Writers in other PID namespaces
 * sharing the directory are not told apart; the worst that can follow is a
 * failed write there, never a lost or torn snapshot.)
 *
 * Errors: SDUI_ARGUMENT (path or doc NULL, path empty or ending in '/'),
 * SDUI_JSON (a value that does not serialise or would not read back),
 * SDUI_LIMIT (the file would exceed SDUI_SNAPSHOT_MAX_BYTES), SDUI_IO
 * (with errno in err->code and the path in the message: a directory that
 * cannot be written, a full disk, PATH a directory, PATH or PATH.prev
 * unreadable, ...), SDUI_OOM.
 * On any of these the temporary files are removed and PATH is untouched,
 * with one exception: the directory sync fails after the rename (SDUI_IO,
 * saying that PATH was replaced but may not be durable).  When the file
 * system cannot make hard links, PATH is renamed to PATH.prev instead, and
 * for a moment only PATH.prev exists (a read then recovers it).
 *
 * Thread-safe for different paths.  Writes to one path from several
 * threads or processes are each atomic, but their order is not defined and
 * PATH.prev may then not be the snapshot just before PATH; the caller
 * serialises them (sdui_snapshot_lock_open).  Reads may run beside writes.
 */
sdui_status sdui_snapshot_write(const char *path, const sdui_json_doc *doc,
                                sdui_error *err);

/*
 * Reads the snapshot at path into a new document (*out; release with
 * sdui_json_doc_free).  If PATH is missing, torn or corrupt (larger than
 * SDUI_SNAPSHOT_MAX_BYTES included), reads PATH.prev instead: then the
 * call returns SDUI_OK, *recovered (may be NULL) is set to 1, and err (if
 * non-NULL) describes why PATH was refused: status SDUI_NOT_FOUND or
 * SDUI_CORRUPT, position in PATH where there is one, and a message naming
 * PATH, the fault (does not exist; not JSON at line:column; checksum
 * mismatch; plain JSON without the snapshot envelope; wrong format or
 * version; not as written; too large) and PATH.prev.  Otherwise
 * *recovered is 0 and err is cleared.
 *
 * Errors (*out NULL, *recovered 0; SDUI_ARGUMENT sets *recovered to 0 but
 * leaves *out as it was):
 *   SDUI_IO         PATH exists but cannot be read (errno in err->code:
 *                   EACCES, EIO, EISDIR for a directory, ENODEV for
 *                   another non-regular file); PATH.prev is not read in
 *                   its place.  Or PATH is missing and PATH.prev exists
 *                   but cannot be read;
 *   SDUI_NOT_FOUND  neither PATH nor PATH.prev exists;
 *   SDUI_CORRUPT    no good snapshot in either, and at least one exists but
 *                   holds something else (the message names both faults;
 *                   code and position are those of the fault that gave the
 *                   status, PATH's when both did);
 *   SDUI_LIMIT      the file read checks out but its value nests deeper
 *                   than max_depth (not a fault of the file: when it is
 *                   PATH, PATH.prev is not read, as it would silently give
 *                   an older value);
 *   SDUI_OOM, SDUI_ARGUMENT (path or out NULL).
 * Thread-safe.
 */
sdui_status sdui_snapshot_read(const char *path, unsigned max_depth,
                               sdui_json_doc **out, int *recovered,
                               sdui_error *err);

/* The advisory write lock of one snapshot path (sdui_snapshot_lock_open). */
typedef struct sdui_snapshot_lock sdui_snapshot_lock;

/*
 * Takes the write lock of the snapshot at path: an exclusive flock(2) on
 * the lock file "PATH.lock" beside it (created with mode 0600 when
 * missing, never removed: a lock file that is removed or replaced while a
 * caller waits is noticed, and the one now at that name is locked instead).
 * The lock is advisory: it keeps out every caller that takes it, and
 * nothing else.  It lives in its own file because PATH itself is replaced
 * by each write.  A caller holds it while it reads, changes and writes
 * PATH, so that writers in several processes (or several handles of one
 * process) are serialized and none loses the others' writes.
 *
 * wait non-zero: blocks until the lock is free, for as long as another
 * holder keeps it (a holder that dies, SIGKILL included, lets go at once:
 * the system drops its locks with its files).  wait 0: does not block; a
 * lock held elsewhere is SDUI_IO with code EWOULDBLOCK and a message
 * saying that another writer holds it.
 *
 * On SDUI_OK *out is the held lock; release it with sdui_snapshot_lock_free.
 * Errors: SDUI_ARGUMENT (path or out NULL, path empty or ending in '/'),
 * SDUI_IO (the lock file cannot be opened or created, or is not a regular
 * file; errno in err->code), SDUI_OOM.  The lock belongs to the open file,
 * not to a thread: hold it on one thread at a time.  Thread-safe for
 * different locks.
 */
sdui_status sdui_snapshot_lock_open(const char *path, int wait,
                                    sdui_snapshot_lock **out,
                                    sdui_error *err);

/* Releases the lock and frees it.  NULL is a no-op. */
void sdui_snapshot_lock_free(sdui_snapshot_lock *lock);

#ifdef __cplusplus
}
#endif
#endif
