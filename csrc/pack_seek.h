/*
 * pack_seek.h - the seekable pack's member tables (pack_seek.c), not
 * public: reading them by hopping from header to header, and writing one.
 *
 * A seekable pack is a gzip file of several members; each member's header
 * has an FEXTRA subfield 'S' 'K' (see pack_seek.c for its bytes) giving the
 * member's compressed size and the ids of the tokens its JSON holds; the
 * first member's also gives the totals.  The members' JSON, concatenated,
 * is one pack document cut between tokens (pack_write.c).
 */
#ifndef SDUI_PACK_SEEK_H
#define SDUI_PACK_SEEK_H

#include <stddef.h>
#include <stdint.h>

#include "sdui/error.h"
#include "sdui/limits.h"

/* The subfield's id. */
#define SDUI_SEEK_SI1 'S'
#define SDUI_SEEK_SI2 'K'

/* One member, as its table and its trailer describe it. */
typedef struct sdui_seek_member {
    size_t start;      /* offset of its header in the gzip bytes        */
    size_t end;        /* one past its trailer                          */
    size_t data_pos;   /* offset of its deflate data                    */
    size_t json_start; /* offset of its JSON in the inflated document   */
    size_t json_len;   /* its ISIZE                                     */
    size_t first_id;   /* its ids are ids [first_id, first_id + nids)   */
    size_t nids;       /*   of the pack, in member order               */
    size_t table_at;   /* offset of its compressed id block             */
    size_t table_len;
    size_t block_len;  /* the id block's inflated size                  */
} sdui_seek_member;

/* One id: bytes and length. */
typedef struct sdui_seek_id {
    const char *bytes;
    size_t len;
} sdui_seek_id;

/*
 * Where a seekable pack's gzip bytes are: in memory (mem, len), or in an
 * open file of len bytes (fd, mem NULL) read with pread when needed, so
 * an open reads the headers and not the members' data.
 */
typedef struct sdui_seek_src {
    const unsigned char *mem;
    size_t len;
    int fd;
    const char *path;    /* the file's name, for messages (NULL: memory) */
} sdui_seek_src;

/* A buffer that reads from a file land in; zero-initialise, release with
 * sdui_free(bytes). */
typedef struct sdui_seek_buf {
    unsigned char *bytes;
    size_t cap;
} sdui_seek_buf;

/*
 * The bytes [off, off + n) of src: a pointer into memory, or into buf
 * after a pread (valid until buf is used again).  off + n <= src->len.
 * SDUI_IO when the file is shorter than it was or cannot be read,
 * SDUI_OOM.  Thread-safe for distinct bufs.
 */
sdui_status sdui__seek_bytes(const sdui_seek_src *src, size_t off, size_t n,
                             sdui_seek_buf *buf, const unsigned char **out,
                             sdui_error *err);

/* Every member's table, as the hop at open found it (ids not decoded). */
typedef struct sdui_seek_index {
    sdui_seek_member *members;
    size_t nmembers;
    size_t total;        /* inflated size of the whole document           */
    size_t nids;         /* ids listed in all                             */
} sdui_seek_index;

/*
 * 1 when in[0, len) starts with a gzip member whose header carries a
 * seekable table with the totals (the file is meant as a seekable pack),
 * else 0.  Reads only the first header.
 */
int sdui__seek_detect(const unsigned char *in, size_t len);

/*
 * Reads every member's header, hopping from one to the next without
 * inflating anything: checks that each table is well formed, that each
 * member's size lands on the next header and the last one on the end of
 * the input, that the member count and totals agree with what was found,
 * and the limits (inflated size, token count).  The ids are not decoded
 * here (sdui__seek_ids does that, per member, when they are needed).
 * Errors: SDUI_GZIP naming the member and offset, SDUI_LIMIT, SDUI_OOM.
 * On success *out is filled (release with sdui__seek_index_free).
 * Thread-safe.
 */
sdui_status sdui__seek_read(const sdui_seek_src *src,
                            const sdui_limits *limits, sdui_seek_index *out,
                            sdui_error *err);

/*
 * Decodes member k's ids: ids[0, nids) are filled with bytes in *arena
 * (new, sdui_free), in the table's order (increasing bytes).  Checks that
 * the block inflates to its size, that every id is non-empty, under
 * limits->max_token_bytes and greater than the one before.  src is where
 * the index was read from.  SDUI_GZIP naming the member, SDUI_IO,
 * SDUI_OOM.  Thread-safe.
 */
sdui_status sdui__seek_ids(const sdui_seek_src *src, const sdui_seek_index *x,
                           unsigned k, const sdui_limits *limits,
                           sdui_seek_id *ids, char **arena, sdui_error *err);

/* Releases what sdui__seek_read filled; a zeroed index is a no-op. */
void sdui__seek_index_free(sdui_seek_index *x);

/*
 * Encodes a member's table as the FEXTRA field of its header (the 'S' 'K'
 * subfield with its 4-byte subfield header).  ids[0, n) are the member's
 * ids (decoded bytes); first: the member is the first (totals given).
 * member_size is the member's whole compressed size, which depends on the
 * field's own length: the caller encodes with 0, compresses, then encodes
 * again with the size (the length does not change).  *out is new
 * (sdui_free).  SDUI_LIMIT when the table does not fit a header.
 */
sdui_status sdui__seek_encode(const sdui_seek_id *ids, size_t n, int first,
                              uint32_t member_size, uint32_t total,
                              uint32_t members, uint32_t total_ids, int level,
                              unsigned char **out, size_t *out_len,
                              sdui_error *err);

#endif
