/*
 * alloc.h - the single allocator hook of the SDUIKit core.
 *
 * Every allocation the core makes, including libdeflate's on its behalf,
 * goes through this hook, so a test can fail allocation n and check that
 * the core answers SDUI_OOM without leaking or crashing.
 *
 * One exception, on purpose: SQLite's own memory (connections, prepared
 * statements, the page cache of the disk cache, disk.h).  What the core
 * copies out of SQLite (rows, their arena, SQL texts, id lists) does go
 * through the hook.  Why SQLite's does not:
 *   - SQLite takes an allocator only process-wide
 *     (sqlite3_config(SQLITE_CONFIG_MALLOC)), and only before the library
 *     initialises: afterwards the call fails with SQLITE_MISUSE.  The core
 *     links the shared libsqlite3 that the host and its other libraries
 *     may use too (on Apple platforms, system frameworks do), so it can
 *     neither count on being first nor route their allocations through
 *     this hook (a test's failing allocator would then fail them too).
 *   - This hook can be replaced (sdui_set_allocator(NULL) restores
 *     malloc); SQLite's allocator cannot change without sqlite3_shutdown(),
 *     which is unsafe while any connection of the process is open, and
 *     SQLite keeps memory between calls that would be freed through
 *     another allocator than the one that made it.
 *   - (The server's sqlite-nio is not part of the reason: it builds its
 *     own copy of SQLite with prefixed symbols, sqlite_nio_sqlite3_*,
 *     whose configuration is separate from the libsqlite3 used here.)
 * A host that owns the whole process and wants SQLite counted too can call
 * sqlite3_config(SQLITE_CONFIG_MALLOC, ...) itself before anything uses
 * SQLite, with methods built on sdui_malloc/sdui_realloc/sdui_free (SQLite
 * also asks for an allocation's size: keep it in a header).
 */
#ifndef SDUI_ALLOC_H
#define SDUI_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_allocator {
    void *(*malloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t size);
    void (*free_fn)(void *ctx, void *ptr);
    void *ctx;
} sdui_allocator;

/*
 * Installs an allocator (copied), or restores malloc/realloc/free when a is
 * NULL.  Also routes libdeflate's process-wide allocator here.
 * NOT thread-safe: call it before any other sdui call, or when no sdui object
 * is alive, since memory must be freed by the allocator that made it.
 */
void sdui_set_allocator(const sdui_allocator *a);

/* Allocation through the hook (for code that extends the core).  Thread-safe
 * if the installed allocator is.  sdui_free(NULL) is a no-op. */
void *sdui_malloc(size_t size);
void *sdui_realloc(void *ptr, size_t size);
void sdui_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif
