/*
 * gzip_member.h - one gzip member at a time (gzip.c), not public.
 *
 * sdui_gzip_decode (gzip.h) reads a whole file.  A seekable pack
 * (pack_seek.c) needs the pieces: a member's header with its FEXTRA
 * subfields, a member inflated on its own into a place the caller chose,
 * a member written with a subfield of the caller's, and raw deflate for
 * the small id tables the subfields carry.  libdeflate stays behind this
 * file and gzip.c.
 */
#ifndef SDUI_GZIP_MEMBER_H
#define SDUI_GZIP_MEMBER_H

#include <stddef.h>

#include "sdui/error.h"

/* A member header, parsed. */
typedef struct sdui_gz_header {
    size_t data_pos;            /* offset of the deflate data            */
    const unsigned char *extra; /* the FEXTRA field's bytes, or NULL     */
    size_t extra_len;
} sdui_gz_header;

/* The fixed part of a header plus XLEN: 10 + 2 bytes. */
#define SDUI_GZ_HEADER_FIXED 12
/* A member's trailer: CRC-32 and ISIZE. */
#define SDUI_GZ_TRAILER 8

/*
 * Parses the header of gzip member number member (0-based, for messages)
 * at in[pos] (pos < len).  SDUI_GZIP with the offset and the member's
 * number (1-based) in the message on any defect.  Thread-safe.
 */
sdui_status sdui__gzip_header(const unsigned char *in, size_t len, size_t pos,
                              unsigned member, sdui_gz_header *h,
                              sdui_error *err);

/*
 * Finds the subfield si1 si2 in an FEXTRA field (RFC 1952 2.3.1.1).
 * Returns 1 and its data, 0 when the field has none, -1 when the field is
 * not a well-formed list of subfields.
 */
int sdui__gzip_subfield(const unsigned char *extra, size_t len, int si1,
                        int si2, const unsigned char **data, size_t *dlen);

/*
 * Inflates one member: body[0, len) is its deflate data followed by its
 * 8-byte trailer.  out receives exactly out_len bytes, which the
 * trailer's ISIZE must equal; the deflate stream must end exactly at the
 * trailer and the CRC-32 must match.  member (0-based) names the member
 * in messages; at is body's offset in the file, for error offsets.
 * SDUI_GZIP or SDUI_OOM.  Thread-safe.
 */
sdui_status sdui__gzip_inflate_member(const unsigned char *body, size_t len,
                                      size_t at, unsigned member, char *out,
                                      size_t out_len, sdui_error *err);

/*
 * Writes one gzip member of data[0, len) at libdeflate level (1-12) whose
 * header carries the FEXTRA field extra[0, extra_len) (no field when
 * extra_len is 0; at most 65535 bytes).  *out is new (sdui_free).
 * SDUI_ARGUMENT, SDUI_OOM or SDUI_GZIP.  Thread-safe.
 */
sdui_status sdui__gzip_write_member(const void *data, size_t len, int level,
                                    const unsigned char *extra,
                                    size_t extra_len, unsigned char **out,
                                    size_t *out_len, sdui_error *err);

/* Raw deflate of data at level into a new buffer (*out, sdui_free).
 * SDUI_OOM or SDUI_GZIP.  Thread-safe. */
sdui_status sdui__deflate_raw(const void *data, size_t len, int level,
                              unsigned char **out, size_t *out_len,
                              sdui_error *err);

/* Raw inflate of in[0, len) into exactly out_len bytes of out; the stream
 * must use all of in.  Returns 0, or -1 when it is corrupt, ends early or
 * inflates to another size.  Thread-safe. */
int sdui__inflate_raw(const void *in, size_t len, void *out, size_t out_len);

/*
 * A whole gzip file read one member at a time: sdui_gzip_decode, and a
 * pack's pipelined open (pack.c), which scans one member's JSON while the
 * next inflates.  Fields are the stream's own; zero-initialise, then
 * sdui__gz_stream_open.
 */
struct libdeflate_decompressor;
typedef struct sdui_gz_stream {
    const unsigned char *in;
    size_t len;
    size_t pos;         /* the next member's header                      */
    unsigned n;         /* members inflated so far                       */
    struct libdeflate_decompressor *d;
} sdui_gz_stream;

/* What sdui__gz_next did. */
enum {
    SDUI_GZ_FAIL = -1,  /* *st and err say why                          */
    SDUI_GZ_END = 0,    /* no member left                                */
    SDUI_GZ_MEMBER = 1, /* one member inflated and checked               */
    SDUI_GZ_ROOM = 2    /* the member does not fit in room: nothing
                         * consumed, call again with more room            */
};

/* Starts reading in[0, len) (len > 0).  SDUI_OOM or SDUI_OK. */
sdui_status sdui__gz_stream_open(sdui_gz_stream *s, const void *in,
                                 size_t len, sdui_error *err);

/*
 * Inflates the next member into out[0, room), checks its CRC-32 and
 * ISIZE, and sets *produced.  Returns one of the SDUI_GZ_ values; on
 * SDUI_GZ_FAIL, *st is SDUI_GZIP with the compressed offset.  Not
 * thread-safe on one stream.
 */
int sdui__gz_next(sdui_gz_stream *s, char *out, size_t room,
                  size_t *produced, sdui_status *st, sdui_error *err);

/* Frees the stream's decompressor; a zeroed stream is a no-op. */
void sdui__gz_stream_close(sdui_gz_stream *s);

/*
 * The size hint of a file written by sdui_gzip_encode_members: the first
 * header's FEXTRA subfield "SZ" (version 1, the total inflated size, the
 * member count).  Returns 1 and fills *total and *members when there is
 * one, else 0 (no FEXTRA, no "SZ", another version, a malformed field:
 * the file is then read without a hint).  Thread-safe.
 */
int sdui__gz_size_hint(const unsigned char *in, size_t len, size_t *total,
                       unsigned *members);

/*
 * Checks a size hint against the input before anything is allocated:
 * SDUI_LIMIT when total is over max_out, SDUI_GZIP when deflate could not
 * expand len bytes to total or when there are more members than the input
 * could hold.  Thread-safe.
 */
sdui_status sdui__gz_hint_check(size_t len, size_t total, unsigned members,
                                size_t max_out, sdui_error *err);

/*
 * Reads the next member of a hinted file (total bytes, members members)
 * into buf + *used and adds its size to *used.  Returns SDUI_GZ_MEMBER,
 * SDUI_GZ_END once the last was read and the sizes add up to the hint,
 * or SDUI_GZ_FAIL (SDUI_GZIP: a member that would pass the total, a sum
 * or count that is not the hint's, any defect sdui__gz_next finds).
 * buf holds total bytes.  Not thread-safe on one stream.
 */
int sdui__gz_next_hinted(sdui_gz_stream *s, char *buf, size_t total,
                         unsigned members, size_t *used, sdui_status *st,
                         sdui_error *err);

#endif
