/*
 * error.h - status codes and the caller-owned error record of the SDUIKit core.
 *
 * Every fallible call returns an sdui_status and, when given a non-NULL
 * sdui_error, fills it with the category, a message that names the input and
 * the place, and for JSON the byte offset plus line:column.  No call prints,
 * aborts or exits on bad input.
 */
#ifndef SDUI_ERROR_H
#define SDUI_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one table of status codes: X(NAME, "category").  SDUI_OK is 0. */
#define SDUI_STATUS_MAP(X)                  \
    X(OK,        "ok")                      \
    X(IO,        "io")                      \
    X(GZIP,      "gzip")                    \
    X(JSON,      "json")                    \
    X(SCHEMA,    "schema")                  \
    X(LIMIT,     "limit")                   \
    X(OOM,       "oom")                     \
    X(NOT_FOUND, "not-found")               \
    X(ARGUMENT,  "argument")                \
    X(SIGNATURE, "signature")               \
    X(SQLITE,    "sqlite")                  \
    X(EXPR_PARSE,    "expr-parse")          \
    X(EXPR_TYPE,     "expr-type")           \
    X(EXPR_OVERFLOW, "expr-overflow")       \
    X(EXPR_DIVISION, "expr-division")       \
    X(EXPR_VALUE,    "expr-value")          \
    X(CORRUPT,       "corrupt")

typedef enum sdui_status {
#define SDUI_STATUS_ENUM_(name, text) SDUI_##name,
    SDUI_STATUS_MAP(SDUI_STATUS_ENUM_)
#undef SDUI_STATUS_ENUM_
    SDUI_STATUS_COUNT_
} sdui_status;

/* Length of sdui_error.message including the terminating NUL. */
#define SDUI_ERROR_MESSAGE_SIZE 256

/*
 * A detailed error.  Owned by the caller (usually on the stack).
 * offset: byte offset in the input the category refers to (the inflated JSON
 *         for json/schema/limit errors on a pack, the compressed bytes for
 *         gzip errors), or -1 when there is no position.
 * line, column: 1-based position in that JSON text (column counts Unicode
 *         scalar values), or 0 when there is no position.
 * code:   the underlying library's code beside the category, never 0 for
 *         these two categories:
 *         SDUI_SQLITE  SQLite's extended result code (e.g. SQLITE_FULL,
 *                      SQLITE_IOERR_WRITE).  Where the core itself refuses
 *                      before or beside SQLite, the code SQLite uses for
 *                      that case: SQLITE_CANTOPEN for a path that cannot
 *                      hold a database (checked before SQLite opens it),
 *                      SQLITE_CORRUPT for damage the core's own checks
 *                      find (and for "damaged and reset" when no SQLite
 *                      code revealed it), SQLITE_ERROR for a file of a
 *                      newer schema or one that refuses WAL mode;
 *         SDUI_IO      the errno of the failed system call (e.g. ENOENT,
 *                      EACCES; EISDIR for a directory refused by name),
 *                      or ENODEV for a device or socket refused by name;
 *         any other    0.
 *         (Added after message, so code built against an earlier layout
 *         keeps its offsets.)
 */
typedef struct sdui_error {
    sdui_status status;
    long long offset;
    int line;
    int column;
    char message[SDUI_ERROR_MESSAGE_SIZE];
    int code;
} sdui_error;

/*
 * The short category name of a status ("io", "gzip", "json", ...).
 * Returns a static string; "unknown" for a value outside the table.
 * Thread-safe.
 */
const char *sdui_status_name(sdui_status status);

/* Resets an error record to SDUI_OK, no position, empty message, code 0.
 * NULL is a no-op. */
void sdui_error_clear(sdui_error *err);

/*
 * Computes the 1-based line and column (in Unicode scalar values) of byte
 * offset in text[0, len) (an offset past len counts as len).  Used to turn
 * offsets into positions only when an error is reported.  text must not be
 * NULL unless len is 0; line and column must not be NULL.  Thread-safe.
 */
void sdui_json_position(const char *text, size_t len, size_t offset,
                        int *line, int *column);

#ifdef __cplusplus
}
#endif
#endif
