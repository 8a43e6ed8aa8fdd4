/*
 * gzip.h - bounded gzip (RFC 1952) decoding and encoding.
 *
 * Decoding reads several members as one stream (as zcat does), handles the
 * FEXTRA, FNAME, FCOMMENT and FHCRC header fields, checks each member's CRC-32
 * and ISIZE, rejects trailing garbage, and stops at a byte limit so a gzip
 * bomb costs bounded memory and time.
 */
#ifndef SDUI_GZIP_H
#define SDUI_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Inflates data[0, len) into a new buffer of at most max_out bytes.
 * On SDUI_OK, *out (new; release with sdui_free) holds *out_len bytes
 * followed by one NUL that is not counted, and *members (if non-NULL) the
 * number of gzip members.  On error *out is NULL and err says why: SDUI_GZIP
 * with the compressed byte offset, SDUI_LIMIT, or SDUI_OOM.  Thread-safe.
 */
sdui_status sdui_gzip_decode(const void *data, size_t len, size_t max_out,
                             char **out, size_t *out_len, unsigned *members,
                             sdui_error *err);

/*
 * Compresses data[0, len) as one gzip member at level (0-9, -1 default).
 * *out is new (release with sdui_free).  Returns SDUI_OK or SDUI_OOM/
 * SDUI_ARGUMENT.  Thread-safe.
 */
sdui_status sdui_gzip_encode(const void *data, size_t len, int level,
                             unsigned char **out, size_t *out_len,
                             sdui_error *err);

/* CRC-32 (the gzip one) of data, continuing from crc (start with 0). */
uint32_t sdui_crc32(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
