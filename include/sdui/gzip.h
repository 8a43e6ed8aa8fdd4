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
 * Compresses data[0, len) as one gzip member at level (0-12, -1 default).
 * *out is new (release with sdui_free).  Returns SDUI_OK or SDUI_OOM/
 * SDUI_ARGUMENT.  Thread-safe.
 */
sdui_status sdui_gzip_encode(const void *data, size_t len, int level,
                             unsigned char **out, size_t *out_len,
                             sdui_error *err);

/*
 * Compresses data[0, len) at level (0-12; a negative level is the
 * default, 9) as several gzip members, so a reader can work on one
 * member's output while the next inflates (sdui_pack_open scans a pack's
 * JSON that way, on two threads).  The first member takes about
 * member_bytes / 4 bytes of input, each later one half as much again as
 * the one before, up to member_bytes (0: 2 MiB); a member ends just after the first
 * newline past its aim, so a pack written one token a line is cut
 * between tokens.  On a 600 KB pack of 5.4 MB of JSON that is 5 members
 * and about 4.7 KB more than one member.  The first member's header
 * carries an FEXTRA subfield "SZ" (13 bytes: version 1, the total input
 * size as 8 bytes and the member count as 4, little-endian) from which
 * sdui_gzip_decode sizes its buffer once; a file whose members do not add
 * up to it is refused.  Input of member_bytes or less is one member, byte
 * for byte what sdui_gzip_encode writes.  Still one standard gzip file:
 * zcat, gzip -d and every RFC 1952 reader print data.  *out is new
 * (sdui_free).
 * SDUI_OK, SDUI_OOM, SDUI_ARGUMENT or SDUI_GZIP.  Thread-safe.
 */
sdui_status sdui_gzip_encode_members(const void *data, size_t len, int level,
                                     size_t member_bytes, unsigned char **out,
                                     size_t *out_len, sdui_error *err);

/* CRC-32 (the gzip one) of data, continuing from crc (start with 0). */
uint32_t sdui_crc32(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
