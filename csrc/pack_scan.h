/*
 * pack_scan.h - reading a pack document's shape (pack_scan.c), not public.
 *
 * A reader on the generic scanner (scan.h): one validating pass that also
 * checks the pack's shape (pack.h) and records each token's byte range and
 * raw id, and the byte range of each member of the root object (for
 * sdui_pack_member).
 */
#ifndef SDUI_PACK_SCAN_H
#define SDUI_PACK_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "sdui/error.h"
#include "sdui/limits.h"

/* One token found by the pack scan: byte ranges in the inflated JSON. */
typedef struct sdui_scan_entry {
    size_t start, end;     /* the token object, [start, end)             */
    size_t id_start;       /* the raw id bytes, between its quotes       */
    size_t id_len;
    int id_escaped;        /* the raw id holds backslash escapes         */
    /* sdui__hash of the raw id when it holds no escape (else 0), taken
     * while the scan has its bytes in the cache: in a large pack they are
     * far from it by the time the index is built. */
    uint64_t id_hash;
} sdui_scan_entry;

/* One member of the root object, in document order. */
typedef struct sdui_scan_member {
    size_t key_start;      /* the raw key bytes, between its quotes      */
    size_t key_len;
    int key_escaped;       /* the raw key holds backslash escapes        */
    size_t start, end;     /* the value, [start, end)                    */
} sdui_scan_member;

typedef struct sdui_scan_result {
    sdui_scan_entry *entries;  /* new; freed by sdui__scan_result_free  */
    size_t count, cap;
    sdui_scan_member *members; /* new; freed by sdui__scan_result_free  */
    size_t nmembers, cap_members;
    sdui_status status;        /* set by a scan run on another thread   */
} sdui_scan_result;

/*
 * Validates a pack document and records its tokens and root members (see
 * pack.h for the rules).  out must be zeroed before the call.  limits may
 * be NULL for the defaults.  Packs of limits->parallel_scan_bytes or more
 * are scanned on two threads when a token boundary can be guessed; the
 * outcome is that of a one-thread scan.  On error out may hold partial
 * lists: free them anyway.  Thread-safe.
 */
sdui_status sdui__scan_pack(const char *text, size_t len,
                            const sdui_limits *limits,
                            sdui_scan_result *out, sdui_error *err);

/*
 * The feed of sdui__scan_pack_fed, called on the caller's thread: puts
 * more of the document into the buffer and returns 1 with *ready, the
 * bytes ready from its start (more than before), 0 when the document is
 * complete (*ready its length), or -1 with *st when it failed (the error
 * is the feed's to keep).
 */
typedef int (*sdui_scan_feed)(void *ctx, size_t *ready, sdui_status *st);

/*
 * sdui__scan_pack over a document that arrives in pieces (a gzip member at
 * a time): text, a buffer that does not move, is filled by feed on the
 * calling thread while a second thread scans each piece; when the last
 * piece is in, the calling thread scans half of what is left.  The
 * outcome, errors included, is sdui__scan_pack's over the whole document,
 * *len bytes.  When feed fails, its status is returned with *feed_failed
 * set (err and out then hold nothing of use; free out anyway).  Without a
 * thread, feeds everything, then scans.  out must be zeroed.  Thread-safe.
 */
sdui_status sdui__scan_pack_fed(const char *text, const sdui_limits *limits,
                                sdui_scan_feed feed, void *ctx, size_t *len,
                                int *feed_failed, sdui_scan_result *out,
                                sdui_error *err);

/* What a part's scan saw of the root (sdui__scan_pack_part). */
typedef struct sdui_scan_part {
    int seen_format;       /* a "formatVersion": 1 in this part           */
    int has_format_key;    /* a "formatVersion" key (resumed parts)       */
    size_t format_key_at;
    int has_root_close;    /* the root object closed in this part         */
    size_t root_close;
} sdui_scan_part;

/*
 * Scans the JSON of one gzip member of a seekable pack, text[0, len), and
 * records its tokens and root members at offsets in text.  member 0 starts
 * the document; a later member starts between two tokens (white space, a
 * comma, white space) inside "tokens".  A member that is not the last
 * (last == 0) must end exactly at the end of a token; there, the "tokens"
 * member is recorded open (end SIZE_MAX) when it started in this member.
 * The last member's "tokens" member is recorded with start SIZE_MAX (it
 * began earlier).  Whether the whole document has exactly one
 * "formatVersion" is the caller's to decide from info: a resumed part
 * does not require it.  Errors as sdui__scan_pack, at offsets in text.
 * out must be zeroed.  Thread-safe.
 */
sdui_status sdui__scan_pack_part(const char *text, size_t len, unsigned member,
                                 int last, const sdui_limits *limits,
                                 sdui_scan_result *out, sdui_scan_part *info,
                                 sdui_error *err);

/*
 * The id of a scanned token, decoded: *len bytes at the returned pointer,
 * which is into text when the raw id has no escapes, else dst, which holds
 * at least e->id_len bytes (decoding never lengthens).  Thread-safe.
 */
const char *sdui__scan_entry_id(const char *text, const sdui_scan_entry *e,
                                char *dst, size_t *len);

/* Frees the lists of a result (not the result itself); NULL is a no-op. */
void sdui__scan_result_free(sdui_scan_result *r);

#endif
