/*
 * error.c - status names, error records, and the line:column of a byte
 * offset that an error record carries.  It calls no other file of the
 * core (only the C library), so every file may report errors through it.
 */
#include <stdio.h>

#include "internal.h"

static const char *const status_names[] = {
#define SDUI_STATUS_NAME_(name, text) text,
    SDUI_STATUS_MAP(SDUI_STATUS_NAME_)
#undef SDUI_STATUS_NAME_
};

/* Category name of a status from the one table in error.h. */
const char *sdui_status_name(sdui_status status)
{
    if ((unsigned)status >= (unsigned)SDUI_STATUS_COUNT_)
        return "unknown";
    return status_names[status];
}

/* Resets an error record. */
void sdui_error_clear(sdui_error *err)
{
    if (!err)
        return;
    err->status = SDUI_OK;
    err->offset = -1;
    err->line = 0;
    err->column = 0;
    err->message[0] = '\0';
    err->code = 0;
}

/* Formats the message into err (for fill). */
static void set_message(sdui_error *err, const char *fmt, va_list ap)
{
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    if (n < 0)
        err->message[0] = '\0';
}

/* Fills err with a failure: category, library code, offset without a
 * line:column, and the message; shared by the failure helpers. */
static void fill(sdui_error *err, sdui_status status, int code,
                 long long offset, const char *fmt, va_list ap)
{
    err->status = status;
    err->offset = offset;
    err->line = 0;
    err->column = 0;
    err->code = code;
    set_message(err, fmt, ap);
}

/* Records a failure without a text position or library code (internal.h). */
sdui_status sdui__fail(sdui_error *err, sdui_status status, long long offset,
                       const char *fmt, ...)
{
    assert(status != SDUI_OK);
    /* These two carry a library code: sdui__fail_code. */
    assert(status != SDUI_SQLITE && status != SDUI_IO);
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        fill(err, status, 0, offset, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* Records a failure with the underlying library's code (internal.h). */
sdui_status sdui__fail_code(sdui_error *err, sdui_status status, int code,
                            long long offset, const char *fmt, ...)
{
    assert(status != SDUI_OK);
    assert(code != 0 || (status != SDUI_SQLITE && status != SDUI_IO));
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        fill(err, status, code, offset, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* Line and column (in scalar values) of a byte offset (error.h).  Counts
 * every byte that does not continue a UTF-8 sequence as one column, so the
 * column is in Unicode scalar values for valid text. */
void sdui_json_position(const char *text, size_t len, size_t offset,
                        int *line, int *column)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i;
    long l = 1, c = 1;
    assert(line && column && (text || len == 0));
    if (offset > len)
        offset = len;
    for (i = 0; i < offset; i++) {
        if (p[i] == '\n') {
            l++;
            c = 1;
        } else if ((p[i] & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l > INT32_MAX ? INT32_MAX : (int)l;
    *column = c > INT32_MAX ? INT32_MAX : (int)c;
}

/* Records a failure at a byte offset of a JSON text, with line:column. */
sdui_status sdui__fail_at(sdui_error *err, sdui_status status,
                          const char *text, size_t len, size_t offset,
                          const char *fmt, ...)
{
    assert(status != SDUI_OK);
    if (err) {
        va_list ap;
        if (offset > len)
            offset = len;
        va_start(ap, fmt);
        fill(err, status, 0, (long long)offset, fmt, ap);
        va_end(ap);
        sdui_json_position(text, len, offset, &err->line, &err->column);
    }
    return status;
}

/* Records an allocation failure. */
sdui_status sdui__oom(sdui_error *err)
{
    return sdui__fail(err, SDUI_OOM, -1, "out of memory");
}
