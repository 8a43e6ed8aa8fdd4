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
 * Depth: max_depth counts from the value itself (limits.h); the envelope
 * does not count, as a pack's does not.
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
 * Mode: a new PATH gets 0600 (scenario data is the user's own); a PATH that
 * is replaced keeps its permission bits (not its owner).  A symbolic link
 * at PATH is replaced by the new file, not followed.
 *
 * Leftovers: a writer killed mid-write leaves its temporary file behind;
 * each write first removes the temporary files of PATH whose process (the
 * pid in the name) no longer exists.  (Writers in other PID namespaces
 * sharing the directory are not told apart; the worst that can follow is a
 * failed write there, never a lost or torn snapshot.)
 *
 * Errors: SDUI_ARGUMENT (path or doc NULL, path empty or ending in '/'),
 * SDUI_JSON (a value that does not serialise or would not read back),
 * SDUI_IO (with errno in err->code and the path in the message: a directory
 * that cannot be written, a full disk, PATH a directory, ...), SDUI_OOM.
 * On any of these the temporary files are removed and PATH is untouched,
 * with one exception: the directory sync fails after the rename (SDUI_IO,
 * saying that PATH was replaced but may not be durable).  When the file
 * system cannot make hard links, PATH is renamed to PATH.prev instead, and
 * for a moment only PATH.prev exists (a read then recovers it).
 *
 * Thread-safe for different paths.  Writes to one path from several
 * threads or processes are each atomic, but their order is not defined and
 * PATH.prev may then not be the snapshot just before PATH; the caller
 * serialises them.  Reads may run beside writes.
 */
sdui_status sdui_snapshot_write(const char *path, const sdui_json_doc *doc,
                                sdui_error *err);

/*
 * Reads the snapshot at path into a new document (*out; release with
 * sdui_json_doc_free).  If PATH is missing, unreadable, torn or corrupt,
 * reads PATH.prev instead: then the call returns SDUI_OK, *recovered (may
 * be NULL) is set to 1, and err (if non-NULL) describes why PATH was
 * refused: status SDUI_NOT_FOUND, SDUI_IO or SDUI_CORRUPT, code, position
 * in PATH where there is one, and a message naming PATH, the fault (does
 * not exist; cannot be read: <errno text>; not JSON at line:column;
 * checksum mismatch; plain JSON without the snapshot envelope; wrong format
 * or version; not as written) and PATH.prev.  Otherwise *recovered is 0 and
 * err is cleared.
 *
 * Errors (*out NULL, *recovered 0; SDUI_ARGUMENT sets *recovered to 0 but
 * leaves *out as it was):
 *   SDUI_NOT_FOUND  neither PATH nor PATH.prev exists;
 *   SDUI_CORRUPT    no good snapshot in either, and at least one exists but
 *                   holds something else (the message names both faults;
 *                   code and position are those of the fault that gave the
 *                   status, PATH's when both did);
 *   SDUI_IO         no good snapshot, and a file that exists cannot be read
 *                   (errno in err->code) while none is corrupt;
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

#ifdef __cplusplus
}
#endif
#endif
