/*
 * scan.c - the generic validating JSON scanner (scan.h) and the public
 * entry points of json.h that are one scan and nothing more:
 * sdui_json_validate (a scan without a hook) and sdui_json_minify
 * (validation, then the white space between tokens dropped).  The
 * readers built on its hook live in files of their own (pack_scan.c,
 * json_split.c and others).  Also sdui__utf8_put (internal.h), the UTF-8
 * writer that unescaping a string body needs, which the expression
 * language uses too.
 *
 * One pass over the text checks the RFC 8259 grammar, UTF-8 (RFC 3629),
 * escapes and the nesting depth, and builds no DOM.  Containers are tracked
 * with one bit per level (object or array) on a bit stack that lives on the
 * C stack for the first 4096 levels and doubles on the heap past them.
 *
 * Readers.  The scanner knows no document shape.  A reader that needs one
 * gives a hook (scan.h) and the depths it cares about; the scanner calls it
 * for the keys and values there and nowhere else, so a pack's shape (the
 * root object, its "tokens" array, each token's "id": depths 0 to 3, in
 * pack_scan.c) or a batch answer's elements (depth 1, json_split.c) cost
 * one compare per value deeper down.  A hook may mark a container as an
 * envelope: it does not count toward the nesting limit and what is inside
 * counts from itself (limits.h), which is how a pack's root and "tokens"
 * array, or a batch answer's array, stay out of a token's depth.
 *
 * Speed.  The state machine (scan_body) moves one position p through the
 * text; each step (skip white space, find the end of a string, read a
 * number) starts where the one before ended.  On this kind of text (a
 * pack: compact tokens of short keys and values) a wide core runs the
 * scanner's instructions five or six at a time, so its time is set by
 * its instruction count and by the chain of dependent steps from one
 * token's position to the next: what pays is fewer instructions per token
 * and a shorter chain.
 *
 * Strings, most of a pack's bytes, are read from blocks: the first string
 * that needs one classifies the 64 bytes at its position with vectors
 * into a mask of its special bytes (quote, backslash, control byte, byte
 * >= 0x80; json_simd.h: SSE2 on x86-64, NEON on aarch64, and on x86-64
 * AVX-512BW or AVX2 where the CPU has them, in copies of the loop compiled
 * for that set, whose bit instructions the loop uses too), and every
 * string inside that block finds its end with a shift and a bit scan of
 * that mask, without reading its bytes.  A string that runs past the block
 * takes the next one from where it ends, whose mask was computed when
 * this one was taken (one block ahead, off the strings' chain), so on
 * compact text each byte is classified once.  A block is only taken where
 * 8 bytes follow it (BLOCK_ROOM), so the bytes right after a string found
 * in one are read unchecked.  Only the special bytes leave the fast path:
 * a quote ends the string, the rest is checked byte by byte (escapes,
 * UTF-8 decoding only there).  White space runs (pretty-printed text) are
 * skipped with 32-byte kernels, and numbers are read inline: a call in
 * the loop costs more than most numbers.
 *
 * The states test for the compact case first: a value that is a string,
 * a ',' or the container's close after a value (the closing byte of the
 * container open is kept in a register, so neither needs the bit stack),
 * a ':' right after a key.  Members get a loop of their own: a key's
 * quotes, a string value's and the next key's are the block mask's next
 * bits in turn, taken with a bit clear and a bit scan each and checked by
 * their bytes (':' and ',' too), so one member's positions do not wait
 * for the last one's; a number value, or an object value that opens with
 * a key, stays in the loop, and so does an array whose first element is
 * such an object (and, in an array, ',' then such an object).  A mask
 * that runs out inside a member takes the next block, whose mask was
 * computed ahead, in the loop.  Anything else (white space, errors, a
 * block with no special byte) takes the general way from the same
 * position, so the outcome is the same.
 *
 * A reader's scan (the hooked copy) keeps more state live, and pays a
 * compare or two per key and value for the depths its reader asked for.
 * A container deep enough that nothing inside it can be reported (a
 * token's props, in a pack) is handed to a copy without hooks (scan_deep),
 * which returns at its close: a pack's bulk is read by the plain loop.
 * The member loop runs in a hooked copy too where the members' values are
 * not reported; a key the reader hears of leaves it first.
 *
 * Measured on the bench's packs (bench/c/scan.c: the example pack's tokens
 * repeated to 3, 5.4 and 27 MB of JSON; one thread, medians, a Zen 5 core
 * with AVX-512, the other core partly busy): a plain scan went from 2.9 to
 * 5.3-6.0 GB/s, the pack scan from 2.8 to 4.6-4.9 GB/s, and the one-thread
 * open of a gzip pack (inflate, this scan, the index) from 2.2-2.5 to
 * 1.7 times libdeflate's inflate alone (the pack reader now also hashes
 * the ids while it has them, pack_scan.c).  Of the steps, on the 3 MB pack
 * (plain scan, ms): 64-byte blocks taken one after another instead of a
 * new 32-byte block at each string that missed, and the compact-case
 * states, 1.03 -> 0.73; the AVX-512 copy 0.71 -> 0.63 (AVX2: 0.67); the
 * member loop 0.65 -> 0.61, its bit-at-a-time quotes 0.60 -> 0.55; the
 * mask computed a block ahead 0.55 -> 0.46.  The hand-off to scan_deep
 * took a pack scan from 20.4 to 18.6 million instructions.
 *
 * What was tried and left out, measured on a 3 MB pack of compact tokens
 * (bench/c/scan.c): a full structural pre-pass in the manner of simdjson's
 * stage 1 (every byte of a 4 KB window classified 64 at a time, the
 * tokens' starts marked with a prefix XOR over the quotes, and the state
 * machine taking its positions from those bits, each checked) took about
 * 1.5 times as long as the byte-wise scan it would replace: taking a token
 * from a bit mask and checking it costs as much as the compare it saves,
 * and the window is extra work.  (The member loop takes from a mask only
 * the quotes, lazily, one block ahead.)  Blocks for a CPU without vectors
 * (four 64-bit words a block) were no faster than reading each string a
 * word at a time, so that path has none.  Numbers read a word at a time
 * (the digits of 8 bytes found with one mask) were slower, 0.63 -> 0.70
 * ms per plain scan with 2% more instructions: a pack's numbers have one
 * to three digits.  Compares for '{' and digits before the value switch
 * (whose one indirect branch might predict worse) changed nothing that
 * showed.  An AVX-512 kernel of three chained masked compares (one mask
 * move instead of three) made the plain scan slower, 0.48 -> 0.50 ms.
 *
 * Packs of varied tokens.  The packs the project's benchmark writes are
 * tokens drawn at random (many short numbers, children arrays of
 * objects), and on them the scan's time is set by mispredicted branches
 * more than by its instructions: the first 2.9 MB of the 5.4 MB budget
 * pack took 1.13 ms to scan, its first 60 tokens repeated to the same
 * size 0.48 ms (plain scans, same machine).  What paid there was keeping
 * the member loop from leaving for the general code: a mask running out
 * inside a member now takes the ahead block in the loop (plain scan 1.09
 * -> 0.99 ms, pack scan 1.22 -> 1.13 ms; the bench pack's plain scan 0.50
 * -> 0.44 ms), a key whose quote opens that block too (1.05 -> 1.03 ms;
 * bench pack 0.45 -> 0.42), and '[{"' and ',{"' going straight to the
 * object's members (pack scan 1.16 -> 1.12 ms; the bench pack's plain
 * scan 0.40 -> 0.42 ms, its pack scan 0.58 -> 0.56).  The one-thread
 * open of the budget packs went from 2.04-2.11 to 1.95-1.96 times
 * libdeflate's inflate (5.4 MB: 4.57-4.69 -> 4.29-4.35 ms; 27 MB: 23.0 ->
 * 21.8 ms).  Left out: a short number read from one 8-byte word with
 * a digit mask, its parts picked without branches (the pack scan 1.11 ->
 * 1.15 ms: most numbers are one digit, whose loop predicts well, and the
 * word's chain is longer); a member step taking a string or a short
 * number without a branch on which (both ends worked out, one picked:
 * 1.09 -> 1.44 ms, as the next member's position then waits on both
 * chains instead of a predicted branch); a member's '}' going to the
 * close without `after`'s tests (no change that showed).
 *
 * Where that leaves the scan (bench/c/scan_bounds.c, the budget pack of
 * `sdui bench first-paint --save`, 5.4 MB of JSON, one thread, medians).
 * It does not wait for memory: the pack's parts scanned each right after
 * its bytes were written take 1.94-2.00 ms against 2.05-2.10 ms written
 * all first, 4-5 %, and less with parts of 1 MB, the gzip members' size
 * (an open inflates a member whole).  And a structural-index design would
 * not be faster on these packs, the ones it was meant for: the pack holds
 * 1.12 million marks (a structural byte outside strings, a string's quote,
 * a scalar's first byte), one in 4.8 bytes, and a walk over them that only
 * checks their order, classified ahead, with a bracket stack and selects
 * instead of branches, takes 2.2-2.5 ms, more than this whole scan (1.82-
 * 1.87 ms).  One dependent table step a mark and nothing else takes 1.31
 * ms; simdjson's first pass over the same bytes about 0.46 ms (its
 * On-Demand row in the first-paint bench, less the inflate): 1.77 ms
 * before a string, number or id is checked.
 *
 * Every path gives the same outcome, bit for bit: each kernel classifies
 * every byte exactly, and each loop stops at the first byte of its class,
 * so p goes through the same positions whichever ran, and with it every
 * error, its offset, line and column and every hook event.
 * cfg->portable picks a path for the tests and the fuzzer
 * (fuzz_scan_paths), which compare them: the widest the CPU runs, 64-bit
 * words, bytes, and the baseline vectors.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "json_simd.h"
#include "scan.h"

/* 1 for an ASCII digit. */
#define IS_DIGIT(c) ((unsigned)(c) - '0' < 10u)

/* Bytes that end the fast path inside a string. */
static const unsigned char string_special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x10 */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* '"'  */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* '\\' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x80 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* The 64-bit word loop inside strings needs a little-endian CPU (the
 * first special byte is the lowest flagged one) and __builtin_ctzll. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    (defined(__GNUC__) || defined(__clang__))
#define SCAN_SWAR 1
#endif

/* How a scan reads runs of string bytes and of white space. */
typedef enum scan_path {
    PATH_BYTES,  /* a byte at a time: the reference                     */
    PATH_SWAR,   /* strings a 64-bit word at a time; no vector          */
    PATH_VEC,    /* vector blocks (json_simd.h): SSE2 or NEON           */
    PATH_AVX2,   /* PATH_VEC with AVX2 string blocks (x86, run time)    */
    PATH_AVX512  /* PATH_VEC with AVX-512BW string blocks (x86)         */
} scan_path;

/* 1 for the paths that read vector blocks. */
#define IS_VEC(path) ((path) >= PATH_VEC)

/* The bytes a string block needs from its start to the end of the text:
 * its own and 8 more, so that the bytes right after a string found in a
 * block can be read unchecked (string_fast). */
#define BLOCK_ROOM (SDUI_SIMD_STRING_BLOCK + 8)

#ifdef SDUI_SIMD
/* The special bytes of the 64 bytes at p, with the path's kernel. */
static SDUI_ALWAYS_INLINE uint64_t special64(const unsigned char *p,
                                             const scan_path path)
{
#ifdef SDUI_SIMD_WIDE
    if (path == PATH_AVX512)
        return sdui__special64_avx512(p);
    if (path == PATH_AVX2)
        return sdui__special64_avx2(p);
#else
    (void)path;
#endif
    return sdui__special64(p);
}
#endif

/* The special bytes of a block of text (json_simd.h), kept while the
 * strings inside it are read: bit i for at[i], for at <= at + i < lim
 * (lim is at + SDUI_SIMD_STRING_BLOCK, or at: no block yet).  A string
 * that runs past lim gets the next block, from lim on; its mask was
 * computed ahead when this one was taken (ahead, for the block at
 * ahead_at; NULL: none), so that a string does not wait for it. */
typedef struct string_block {
    const unsigned char *at, *lim;
    uint64_t mask;
    const unsigned char *ahead_at;
    uint64_t ahead;
} string_block;

#ifdef SDUI_SIMD
/* Takes the block at next (end - next >= BLOCK_ROOM) and returns its
 * mask: the one computed ahead when next is where the last block ended,
 * else one computed now; and computes the next block's ahead when there
 * is room for it. */
static SDUI_ALWAYS_INLINE uint64_t block_take(string_block *blk,
                                              const unsigned char *next,
                                              const unsigned char *end,
                                              const scan_path path)
{
    uint64_t m = next == blk->ahead_at ? blk->ahead : special64(next, path);
    blk->at = next;
    blk->lim = next + SDUI_SIMD_STRING_BLOCK;
    blk->mask = m;
    if (end - blk->lim >= BLOCK_ROOM) {
        blk->ahead = special64(blk->lim, path);
        blk->ahead_at = blk->lim;
    } else {
        blk->ahead_at = NULL;
    }
    return m;
}
#endif

/* The state of one scan. */
typedef struct scanner {
    const unsigned char *base, *end;
    const sdui_scan_config *cfg;
    unsigned max_depth;
    sdui_error *err;
    size_t envelopes;         /* envelope containers open                 */
    /* The bit stack's size, and the one compare of PUSH: the lower of
     * max_depth and the stack's last bit. */
    size_t stack_bits, guard;
    sdui_status slow_status;  /* why push_slow failed                     */
    scan_path path;           /* cfg->portable, as the CPU allows         */
} scanner;

/* Reports a JSON-category error at p. */
static sdui_status json_fail(scanner *s, const unsigned char *p,
                             const char *what)
{
    return sdui__fail_at(s->err, SDUI_JSON, (const char *)s->base,
                         (size_t)(s->end - s->base), (size_t)(p - s->base),
                         "%s", what);
}

/* Value of one hex digit, or -1. */
static int hexval(unsigned c)
{
    if (c - '0' < 10u)
        return (int)(c - '0');
    c |= 0x20;
    if (c - 'a' < 6u)
        return (int)(c - 'a' + 10);
    return -1;
}

/* Reads four hex digits at p (bounds checked); -1 if invalid. */
static long hex4(const unsigned char *p, const unsigned char *end)
{
    long v = 0;
    int i;
    if (end - p < 4)
        return -1;
    for (i = 0; i < 4; i++) {
        int d = hexval(p[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/*
 * Checks one UTF-8 sequence starting at p (p[0] >= 0x80) and returns the
 * byte after it, or NULL if it is not well formed (RFC 3629 table 4).
 */
static const unsigned char *utf8_next(const unsigned char *p,
                                      const unsigned char *end)
{
    unsigned c = p[0];
    unsigned lo = 0x80, hi = 0xBF;
    int n, i;
    if (c >= 0xC2 && c <= 0xDF)
        n = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 2;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 3;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return NULL;
    if (end - p <= n)
        return NULL;
    if (p[1] < lo || p[1] > hi)
        return NULL;
    for (i = 2; i <= n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return NULL;
    return p + n + 1;
}

/*
 * Scans a string body from p on; open is its opening quote, and the bytes
 * between are plain.  Returns the byte after the closing quote, or NULL
 * after reporting an error.  Sets *escaped when the body holds a backslash
 * escape.  path is the scan's (a constant in each copy of scan_body); blk
 * is the PATH_VEC copy's block, read and replaced here (p is never before
 * blk->at).  Whichever loop runs, p stops at the first special byte.
 */
static SDUI_ALWAYS_INLINE const unsigned char *
scan_string_loop(scanner *s, const unsigned char *open,
                 const unsigned char *p, int *escaped, const scan_path path,
                 string_block *blk)
{
    const unsigned char *end = s->end;
    for (;;) {
#ifdef SDUI_SIMD
        if (IS_VEC(path)) {
            /* The block holding p, if any: a shift and a bit scan. */
            if (p < blk->lim) {
                uint64_t m = blk->mask >> (p - blk->at);
                if (m) {
                    p += (unsigned)__builtin_ctzll(m);
                    goto special;
                }
                p = blk->lim;
            }
            /* New blocks from p on, while there is room for one. */
            while (end - p >= BLOCK_ROOM) {
                uint64_t m = block_take(blk, p, end, path);
                if (m) {
                    p += (unsigned)__builtin_ctzll(m);
                    goto special;
                }
                p += SDUI_SIMD_STRING_BLOCK;
            }
        }
#endif
#ifdef SCAN_SWAR
        /* 8 bytes at a time (and the last bytes of a vector scan). */
        if (path != PATH_BYTES) {
            while (end - p >= 8) {
                const uint64_t ones = 0x0101010101010101ULL;
                const uint64_t high = 0x8080808080808080ULL;
                uint64_t v, q, b, m;
                memcpy(&v, p, 8);
                q = v ^ (ones * '"');
                b = v ^ (ones * '\\');
                m = ((q - ones) & ~q) | ((b - ones) & ~b) |
                    ((v - ones * 0x20) & ~v) | v;
                m &= high;
                if (m) {
                    p += (unsigned)__builtin_ctzll(m) >> 3;
                    goto special;
                }
                p += 8;
            }
        }
#endif
        while (p < end && !string_special[*p])
            p++;
        if (SDUI_UNLIKELY(p >= end)) {
            json_fail(s, open, "unterminated string");
            return NULL;
        }
#if defined(SCAN_SWAR) || defined(SDUI_SIMD)
    special:
#endif
        if (*p == '"')
            return p + 1;
        if (*p == '\\') {
            long cp;
            *escaped = 1;
            if (end - p < 2) {
                json_fail(s, open, "unterminated string");
                return NULL;
            }
            switch (p[1]) {
            case '"': case '\\': case '/': case 'b':
            case 'f': case 'n': case 'r': case 't':
                p += 2;
                continue;
            case 'u':
                break;
            default:
                json_fail(s, p, "invalid escape sequence");
                return NULL;
            }
            cp = hex4(p + 2, end);
            if (cp < 0) {
                json_fail(s, p, "invalid \\u escape: expected four hex digits");
                return NULL;
            }
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                json_fail(s, p, "invalid \\u escape: lone low surrogate");
                return NULL;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                long lo = -1;
                if (end - p >= 12 && p[6] == '\\' && p[7] == 'u')
                    lo = hex4(p + 8, end);
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    json_fail(s, p, "invalid \\u escape: unpaired high surrogate");
                    return NULL;
                }
                p += 12;
            } else
                p += 6;
            continue;
        }
        if (*p < 0x20) {
            json_fail(s, p, "control character in string (must be escaped)");
            return NULL;
        }
        {
            const unsigned char *n = utf8_next(p, end);
            if (!n) {
                json_fail(s, p, "invalid UTF-8 in string");
                return NULL;
            }
            p = n;
        }
    }
}

/*
 * The common case of the vector paths, straight through: the string that
 * starts at p (just past its opening quote) ends inside the block kept
 * or, when that has no special byte left, the next one, with no other
 * special byte before its quote.  Returns the byte after the closing
 * quote, which a block covers, so 8 more bytes can be read after it
 * (BLOCK_ROOM); or NULL when the loop must go on, from *from (the bytes
 * before it are plain).  Kept apart from the loop, whose setup would
 * otherwise run for every string.
 */
static SDUI_ALWAYS_INLINE const unsigned char *
string_fast(const unsigned char *p, const unsigned char *end,
            const scan_path path, string_block *blk,
            const unsigned char **from)
{
#ifdef SDUI_SIMD
    const unsigned char *next = p;
    if (p < blk->lim) {
        uint64_t m = blk->mask >> (p - blk->at);
        if (m) {
            const unsigned char *q = p + (unsigned)__builtin_ctzll(m);
            *from = p;
            return SDUI_LIKELY(*q == '"') ? q + 1 : NULL;
        }
        next = blk->lim; /* [p, lim) has no special byte */
    }
    *from = next;
    if (end - next >= BLOCK_ROOM) {
        /* The next block, from where this one ends (or from p). */
        uint64_t m = block_take(blk, next, end, path);
        if (m) {
            const unsigned char *q = next + (unsigned)__builtin_ctzll(m);
            if (SDUI_LIKELY(*q == '"'))
                return q + 1;
        }
    }
#else
    (void)end;
    (void)path;
    (void)blk;
    *from = p;
#endif
    return NULL;
}

/* Scans a string body at p, just past its opening quote (see
 * scan_string_loop): string_fast first on the vector paths. */
static SDUI_ALWAYS_INLINE const unsigned char *
scan_string(scanner *s, const unsigned char *p, const unsigned char *end,
            int *escaped, const scan_path path, string_block *blk)
{
    if (IS_VEC(path)) {
        const unsigned char *from;
        const unsigned char *q = string_fast(p, end, path, blk, &from);
        if (q)
            return q;
        return scan_string_loop(s, p - 1, from, escaped, path, blk);
    }
    return scan_string_loop(s, p - 1, p, escaped, path, blk);
}

/* Scans a number at p; returns the byte after it, or NULL after an error.
 * Inline: a call in the scanner's loop costs more than most numbers. */
static SDUI_ALWAYS_INLINE const unsigned char *
scan_number(scanner *s, const unsigned char *p)
{
    const unsigned char *end = s->end;
    if (*p == '-')
        p++;
    if (p >= end || !IS_DIGIT(*p)) {
        json_fail(s, p, "invalid number: expected a digit");
        return NULL;
    }
    if (*p == '0')
        p++;
    else
        while (p < end && IS_DIGIT(*p))
            p++;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !IS_DIGIT(*p)) {
            json_fail(s, p, "invalid number: expected a digit after '.'");
            return NULL;
        }
        while (p < end && IS_DIGIT(*p))
            p++;
    }
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !IS_DIGIT(*p)) {
            json_fail(s, p, "invalid number: expected a digit in the exponent");
            return NULL;
        }
        while (p < end && IS_DIGIT(*p))
            p++;
    }
    return p;
}

/* Skips JSON white space; past one byte of it, 32 bytes at a time on
 * PATH_VEC. */
static SDUI_ALWAYS_INLINE const unsigned char *
skip_ws(const unsigned char *p, const unsigned char *end, const scan_path path)
{
    if (SDUI_LIKELY(p < end && *p > ' '))
        return p; /* compact JSON: nothing to skip */
#ifdef SDUI_SIMD
    if (IS_VEC(path) && p + 1 < end && p[1] <= ' ') {
        while (end - p >= SDUI_SIMD_BLOCK) {
            uint32_t m = ~sdui__ws32(p);
            if (m)
                return p + __builtin_ctz(m);
            p += SDUI_SIMD_BLOCK;
        }
    }
#else
    (void)path;
#endif
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* 1 if c can start a JSON value. */
static int starts_value(unsigned c)
{
    return c == '{' || c == '[' || c == '"' || c == 't' || c == 'f' ||
           c == 'n' || c == '-' || IS_DIGIT(c);
}

/* 1 if the raw key body [k, k+len) decodes to the NUL-terminated name
 * (scan.h). */
int sdui__key_is(const char *k, size_t len, int escaped, const char *name)
{
    size_t n = strlen(name);
    char buf[64];
    if (!escaped)
        return len == n && memcmp(k, name, n) == 0;
    if (len >= sizeof buf)
        return 0;
    return sdui__unescape(k, len, buf) == n && memcmp(buf, name, n) == 0;
}

/* Bit stack of open containers: 1 for an object, 0 for an array.  This
 * many levels live on the C stack; deeper documents grow a heap copy. */
#define STACK_INLINE_BITS 4096

/* The closing byte of the root level: a value no byte has. */
#define CLOSER_ROOT 0x100u

/* The "nesting too deep" message: the limit and where levels count from
 * (the reader's words for the number of envelopes open). */
static sdui_status depth_fail(scanner *s, const unsigned char *p)
{
    const sdui_scan_config *cfg = s->cfg;
    const char *from = "";
    if (cfg->level_from && s->envelopes < cfg->level_from_count)
        from = cfg->level_from[s->envelopes];
    return sdui__fail_at(s->err, SDUI_LIMIT, (const char *)s->base,
                         (size_t)(s->end - s->base), (size_t)(p - s->base),
                         "nesting deeper than the limit of %u%s",
                         s->max_depth, from);
}

/*
 * The slow side of opening a container at depth + 1, taken once depth
 * reaches s->guard (the lower of max_depth and the bit stack's last bit).
 * Checks the depth limit: the level of the new container is depth minus
 * the envelopes open, and an envelope itself is exempt (limits.h).  Past
 * the limit a soft scan tells the hook (TOO_DEEP) and reads on unless the
 * hook says SDUI_SCAN_LIMIT; any other scan fails.  Then doubles the bit
 * stack when it is full, copying the inline one to the heap the first
 * time.  The depth can never pass the number of bytes read, so for any
 * input the stack stays under len / 8 bytes.  Returns the stack to use, or
 * NULL with s->slow_status set (the heap stack, if any, is then freed).
 * Kept out of line so the scanner's hot loop stays small.
 */
static unsigned char *push_slow(scanner *s, size_t depth, int envelope,
                                const unsigned char *p, unsigned char *stack,
                                unsigned char *inline_stack)
{
    const sdui_scan_config *cfg = s->cfg;
    assert(depth < s->stack_bits);
    if (!envelope && depth >= (size_t)s->max_depth + s->envelopes) {
        int v = SDUI_SCAN_LIMIT;
        if (cfg->soft_depth && cfg->hook) {
            sdui_scan_event ev;
            ev.kind = SDUI_SCAN_TOO_DEEP;
            ev.depth = depth > UINT32_MAX ? UINT32_MAX : (unsigned)depth;
            ev.start = ev.end = (size_t)(p - s->base);
            ev.escaped = 0;
            v = cfg->hook(cfg->ctx, &ev);
            if (v < 0) {
                s->slow_status = (sdui_status)-v;
                goto fail;
            }
        }
        if (v & SDUI_SCAN_LIMIT) {
            s->slow_status = depth_fail(s, p);
            goto fail;
        }
    }
    if (depth + 1 >= s->stack_bits) {
        size_t n = s->stack_bits * 2;
        unsigned char *b;
        if (stack == inline_stack) {
            b = sdui_malloc(n / 8);
            if (b)
                memcpy(b, inline_stack, s->stack_bits / 8);
        } else {
            b = sdui_realloc(stack, n / 8);
        }
        if (!b) {
            s->slow_status = sdui__oom(s->err);
            goto fail;
        }
        stack = b;
        s->stack_bits = n;
        s->guard = s->max_depth < n - 1 ? s->max_depth : n - 1;
    }
    /* What PUSH relies on without a check of its own. */
    assert(depth + 1 < s->stack_bits && s->guard < s->stack_bits);
    return stack;
fail:
    if (stack != inline_stack)
        sdui_free(stack);
    return NULL;
}

/* A container handed from a reader's scan to a copy without hooks
 * (scan_deep): where it starts and the state both share, given back
 * when it ends. */
typedef struct deep_scan {
    const unsigned char *p;     /* in: its opening bracket; out: after
                                 * its close (or where an error stopped) */
    size_t depth;               /* the depth of the value it is          */
    unsigned char *stack;       /* the bit stack (push_slow may move it) */
    unsigned char *inline_stack;
    string_block blk;
} deep_scan;

static sdui_status scan_deep_bytes(scanner *s, deep_scan *d);
static sdui_status scan_deep_swar(scanner *s, deep_scan *d);
#ifdef SDUI_SIMD
static sdui_status scan_deep_vec(scanner *s, deep_scan *d);
#endif
#ifdef SDUI_SIMD_WIDE
static sdui_status scan_deep_avx2(scanner *s, deep_scan *d);
static sdui_status scan_deep_avx512(scanner *s, deep_scan *d);
#endif

/* Scans one container without hooks on the path's copy (scan_deep_*). */
static SDUI_ALWAYS_INLINE sdui_status scan_deep(scanner *s, deep_scan *d,
                                                const scan_path path)
{
#ifdef SDUI_SIMD_WIDE
    if (path == PATH_AVX512)
        return scan_deep_avx512(s, d);
    if (path == PATH_AVX2)
        return scan_deep_avx2(s, d);
#endif
#ifdef SDUI_SIMD
    if (path == PATH_VEC)
        return scan_deep_vec(s, d);
#endif
    if (path == PATH_SWAR)
        return scan_deep_swar(s, d);
    return scan_deep_bytes(s, d);
}

/*
 * The scanner proper.  Iterative: a value is read at `value`, and what may
 * follow it at `after`; a container that ends goes through `close`.  The
 * hook runs only in the copy compiled with hooked = 1 (scan_hooked), and
 * there only at the depths the reader asked for (value_levels,
 * key_levels), so plain validation pays nothing for readers.  A container
 * deep enough that nothing inside it can be reported (nor is it itself)
 * is handed to a copy without hooks (deep = 1, scan_deep), which reads it
 * with the plain copy's loop and returns at its close; its bits and any
 * depth error are the same as in one copy.  Each path (scan_path) has its
 * copies too, so its loops are chosen once.
 *
 * Bookkeeping for the hook, per level d of the containers open (d <= 32,
 * SDUI_SCAN_MAX_LEVELS): bit d of `report` is set when the container at
 * depth d had a VALUE event and owes an END at its close (its start in
 * rstart[d]); bit d of `env` when it is an envelope.
 */
static SDUI_ALWAYS_INLINE sdui_status scan_body(scanner *s, const int hooked,
                                                const int deep,
                                                const scan_path path,
                                                int *stopped, deep_scan *dp)
{
    const sdui_scan_config *cfg = s->cfg;
    const unsigned char *p = deep ? dp->p : s->base + cfg->start;
    const unsigned char *end = s->end;
    const unsigned char *vstart;
    unsigned char own_stack[STACK_INLINE_BITS / 8];
    unsigned char *const inline_stack = deep ? dp->inline_stack : own_stack;
    unsigned char *stack = deep ? dp->stack : own_stack;
    /* deep: the scan ends when depth comes back to floor. */
    const size_t floor = deep ? dp->depth : 0;
    size_t depth = floor;
    sdui_status st = SDUI_JSON;
    /* Hook bookkeeping (see above); constant 0 in the plain copy. */
    const size_t vlev = hooked ? cfg->value_levels : 0;
    const size_t klev = hooked ? cfg->key_levels : 0;
    /* No container deeper than this can be marked in report or env. */
    const size_t shallow = !hooked                   ? 0
                           : vlev > klev              ? vlev
                           : klev > cfg->start_depth ? klev
                                                      : cfg->start_depth;
    /* A container that opens from a value at this depth or deeper holds
     * no key or value the reader asked for, nor a container resumed in:
     * unless the value itself is reported, it goes to scan_deep. */
    const size_t deep_from = !hooked ? SIZE_MAX
                             : shallow > cfg->start_depth ? shallow - 1
                                                          : cfg->start_depth;
    uint64_t report = 0, env = 0;
    size_t rstart[SDUI_SCAN_MAX_LEVELS + 1];
    sdui_scan_event ev;
    int want = 0, reported = 0, envelope = 0, esc = 0;
    /* The byte that closes the container at depth ('}' or ']'), or
     * CLOSER_ROOT, which no byte equals, at depth 0. */
    unsigned closer = CLOSER_ROOT;
    /* PATH_VEC: the block of the strings being read (none yet). */
    string_block blk;

    if (deep) {
        blk = dp->blk;
        assert(*p == '{' || *p == '[');
    } else {
        blk.at = blk.lim = p;
        blk.mask = 0;
        blk.ahead_at = NULL;
        blk.ahead = 0;
        s->stack_bits = STACK_INLINE_BITS;
        s->guard = s->max_depth < STACK_INLINE_BITS - 1
                       ? s->max_depth
                       : STACK_INLINE_BITS - 1;
        s->envelopes = 0;
    }
    assert(s->guard < s->stack_bits && shallow <= SDUI_SCAN_MAX_LEVELS);
    if (hooked && cfg->start_depth) {
        /* Resuming inside containers: rebuild their bits. */
        size_t d;
        assert(cfg->start_depth <= SDUI_SCAN_MAX_LEVELS);
        for (d = 1; d <= cfg->start_depth; d++) {
            if (cfg->start_objects & (1u << d))
                stack[d >> 3] |= (unsigned char)(1u << (d & 7));
            else
                stack[d >> 3] &= (unsigned char)~(1u << (d & 7));
            if (cfg->start_envelopes & (1u << d)) {
                env |= (uint64_t)1 << d;
                s->envelopes++;
            }
            if (d - 1 < vlev) {
                report |= (uint64_t)1 << d;
                rstart[d] = SIZE_MAX;
            }
        }
        depth = cfg->start_depth;
    }

#define IS_OBJECT(d) (stack[(d) >> 3] & (1u << ((d) & 7)))
/* The closing byte of the container at depth d > 0: ']' is 0x5D and '}'
 * 0x7D, one bit apart. */
#define CLOSER_OF(d)                                                       \
    (']' | ((unsigned)(stack[(d) >> 3] >> ((d) & 7)) & 1u) << 5)
    if (depth)
        closer = CLOSER_OF(depth);
#define PUSH(isobj)                                                        \
    do {                                                                   \
        if (SDUI_UNLIKELY(depth >= s->guard)) {                            \
            stack = push_slow(s, depth, envelope, p, stack, inline_stack); \
            if (!stack) {                                                  \
                stack = inline_stack; /* the heap one is freed */          \
                st = s->slow_status;                                       \
                goto done;                                                 \
            }                                                              \
        }                                                                  \
        depth++; /* < s->stack_bits: guard < stack_bits (push_slow) */     \
        if (isobj) {                                                       \
            stack[depth >> 3] |= (unsigned char)(1u << (depth & 7));       \
            closer = '}';                                                  \
        } else {                                                           \
            stack[depth >> 3] &= (unsigned char)~(1u << (depth & 7));      \
            closer = ']';                                                  \
        }                                                                  \
        if (hooked && SDUI_UNLIKELY(reported)) {                           \
            /* Events stop above SDUI_SCAN_MAX_LEVELS (asserted at the     \
             * VALUE event), so rstart[depth] is in bounds. */             \
            assert(depth <= SDUI_SCAN_MAX_LEVELS);                         \
            report |= (uint64_t)1 << depth;                                \
            rstart[depth] = (size_t)(vstart - s->base);                    \
            if (envelope) {                                                \
                env |= (uint64_t)1 << depth;                               \
                s->envelopes++;                                            \
            }                                                              \
            reported = envelope = 0;                                       \
        }                                                                  \
    } while (0)
/* 1 when the key whose opening quote is at k is one the reader hears of
 * (a hooked copy; k[1] is read: the key's first byte or its quote). */
#define KEY_REPORTED(k)                                                    \
    (depth < klev &&                                                       \
     (!cfg->key_first[depth] || cfg->key_first[depth][(k)[1]]))
/* Calls the hook with an event; a failure ends the scan. */
#define EMIT(k, d, a, b, e, verdict)                                       \
    do {                                                                   \
        ev.kind = (k);                                                     \
        ev.depth = (unsigned)(d);                                          \
        ev.start = (a);                                                    \
        ev.end = (b);                                                      \
        ev.escaped = (e);                                                  \
        verdict = cfg->hook(cfg->ctx, &ev);                                \
        if (verdict < 0) {                                                 \
            st = (sdui_status)-verdict;                                    \
            goto done;                                                     \
        }                                                                  \
    } while (0)

value:
    if (SDUI_UNLIKELY(p >= end || *p <= ' ')) {
        p = skip_ws(p, end, path);
        if (SDUI_UNLIKELY(p >= end)) {
            st = json_fail(s, p,
                           depth ? "unexpected end of input: expected a value"
                                 : "empty document: expected a value");
            goto done;
        }
    }
    vstart = p;
    /* reported and envelope are 0 here: whoever reads them clears them. */
    if (hooked && SDUI_UNLIKELY(depth < vlev || want)) {
        want = 0;
        if (starts_value(*p)) {
            /* A value the reader asked for (grammar errors come first
             * for bytes that cannot start one). */
            int v;
            assert(depth < SDUI_SCAN_MAX_LEVELS);
            EMIT(SDUI_SCAN_VALUE, depth, (size_t)(p - s->base),
                 (size_t)(p - s->base), 0, v);
            if (v & SDUI_SCAN_STOP) {
                if (stopped)
                    *stopped = 1;
                st = SDUI_OK;
                goto done;
            }
            envelope = (v & SDUI_SCAN_ENVELOPE) != 0;
            reported = 1;
        }
    }
    if (SDUI_LIKELY(*p == '"')) {
        esc = 0;
        p = scan_string(s, p + 1, end, &esc, path, &blk);
        if (!p)
            goto done;
        goto scalar_end;
    }
    if (hooked && depth >= deep_from && !reported &&
        (*p == '{' || *p == '[')) {
        /* Nothing inside to report: the copy without hooks reads it. */
        deep_scan d;
        sdui_status dst;
        d.p = p;
        d.depth = depth;
        d.stack = stack;
        d.inline_stack = inline_stack;
        d.blk = blk;
        dst = scan_deep(s, &d, path);
        p = d.p;
        stack = d.stack;
        blk = d.blk;
        if (dst != SDUI_OK) {
            st = dst;
            goto done;
        }
        goto after; /* st is still SDUI_JSON, for the errors below */
    }
    switch (*p) {
    case '{':
        PUSH(1);
        p = skip_ws(p + 1, end, path);
        if (p < end && *p == '}') {
            p++;
            goto close;
        }
        goto key;
    case '[':
        PUSH(0);
        p = skip_ws(p + 1, end, path);
        if (p < end && *p == ']') {
            p++;
            goto close;
        }
        goto value;
    case 't':
        if (end - p < 4 || memcmp(p, "true", 4) != 0)
            goto bad_literal;
        p += 4;
        break;
    case 'f':
        if (end - p < 5 || memcmp(p, "false", 5) != 0)
            goto bad_literal;
        p += 5;
        break;
    case 'n':
        if (end - p < 4 || memcmp(p, "null", 4) != 0)
            goto bad_literal;
        p += 4;
        break;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        p = scan_number(s, p);
        if (!p)
            goto done;
        break;
    default:
        st = json_fail(s, p, "unexpected character: expected a value");
        goto done;
    }

scalar_end:
    if (hooked && SDUI_UNLIKELY(reported)) {
        /* A scalar the reader asked for has ended. */
        int v;
        reported = envelope = 0;
        EMIT(SDUI_SCAN_END, depth, (size_t)(vstart - s->base),
             (size_t)(p - s->base), *vstart == '"' ? esc : 0, v);
        (void)v;
    }

after:
    /* The common case first: a comma or the container's close, no white
     * space.  Anything else takes the general way below, from the same p. */
    if (SDUI_LIKELY(p < end)) {
        unsigned c = *p;
        if (c == ',') {
            if (closer == '}') {
                p++;
                goto key;
            }
            if (closer == ']') {
                p++;
                if (!hooked && IS_VEC(path) && end - p >= 2 && p[0] == '{' &&
                    p[1] == '"') {
                    /* An object element and its first key: the general
                     * code's open, from its bracket, then its members. */
                    PUSH(1);
                    p++;
                    goto member;
                }
                goto value;
            }
        } else if (c == closer) {
            p++;
            goto close;
        }
    }
    p = skip_ws(p, end, path);
    if (depth == 0) {
        if (p != end) {
            st = json_fail(s, p, "unexpected data after the JSON value");
            goto done;
        }
        st = SDUI_OK;
        goto done;
    }
    if (SDUI_UNLIKELY(p >= end)) {
        st = json_fail(s, p, "unexpected end of input");
        goto done;
    }
    if (*p == ',') {
        p = skip_ws(p + 1, end, path);
        if (IS_OBJECT(depth))
            goto key;
        goto value;
    }
    if (IS_OBJECT(depth) ? *p != '}' : *p != ']') {
        st = json_fail(s, p, IS_OBJECT(depth)
                                 ? "expected ',' or '}' after an object member"
                                 : "expected ',' or ']' after an array element");
        goto done;
    }
    p++;

close:
    /* p is just past the closing bracket of the container at `depth`. */
    assert(depth > 0);
    if (hooked && SDUI_UNLIKELY(depth <= shallow) &&
        ((report | env) >> depth & 1)) {
        uint64_t bit = (uint64_t)1 << depth;
        if (env & bit) {
            assert(s->envelopes > 0);
            env &= ~bit;
            s->envelopes--;
        }
        if (report & bit) {
            int v;
            report &= ~bit;
            EMIT(SDUI_SCAN_END, depth - 1, rstart[depth],
                 (size_t)(p - s->base), 0, v);
            if (v & SDUI_SCAN_STOP) {
                /* A reader reading part of a document (one member of
                 * a seekable pack) ends it at a container's close. */
                if (stopped)
                    *stopped = 1;
                st = SDUI_OK;
                goto done;
            }
        }
    }
    depth--;
    if (deep && SDUI_UNLIKELY(depth == floor)) {
        st = SDUI_OK; /* the container handed over has ended */
        goto done;
    }
    closer = SDUI_UNLIKELY(depth == 0) ? CLOSER_ROOT : CLOSER_OF(depth);
    goto after;

key:
    /* White space may come before a key (after '{' or ','). */
    if (SDUI_UNLIKELY(p >= end || *p != '"')) {
        p = skip_ws(p, end, path);
        if (SDUI_UNLIKELY(p >= end || *p != '"')) {
            st = json_fail(s, p, p >= end ? "unexpected end of input: "
                                            "expected an object key"
                                          : "expected a string object key");
            goto done;
        }
    }
    if (IS_VEC(path) && (!hooked || depth >= vlev)) {
        /*
         * Members, "key":"value" the common case: with both strings found
         * in blocks, the bytes after each are read unchecked (BLOCK_ROOM),
         * and a ',' then '"' after the value goes straight to the next key
         * (the container is an object).  Each step is the general code's,
         * from the same position; anything else joins the general code
         * where it would be.  In a reader's scan, only where the members'
         * values are not reported (depth >= vlev; want is set by a key
         * event only, and such keys leave at key_event), and the values
         * stay at this depth (an object leaves for the general code, which
         * may hand it to scan_deep).
         */
        const unsigned char *from, *q, *v;
        uint64_t rem;
/*
 * When rem runs out inside a member, the next block (its mask computed
 * ahead) is taken in the loop, where it has a special byte, instead of
 * the member going to the general code from its start.  1 if it was
 * taken (rem is then its mask).  The quotes before it are then in the
 * block before: a way out to the general code from one of them, which
 * reads strings from blocks at or after its position, first drops the
 * block (an empty one at that position: the next string takes a new
 * one, whose mask is the same bits).
 */
#define MEMBER_REFILL()                                                    \
    (blk.ahead_at == blk.lim && blk.ahead                                  \
         ? (rem = block_take(&blk, blk.lim, end, path), 1)                 \
         : 0)
#define MEMBER_REWIND(at_)                                                 \
    do {                                                                   \
        if (SDUI_UNLIKELY((at_) < blk.at))                                 \
            blk.at = blk.lim = (at_);                                      \
    } while (0)
    member:
        /* (p[1] can be read: inside the loop p is before a block's end,
         * from the key state it is checked.) */
        if (hooked && (end - p < 2 || KEY_REPORTED(p)))
            goto key_event;
        if (SDUI_UNLIKELY(p >= blk.lim)) {
            /* A key whose quote is in the block computed ahead: take it
             * here (it has that quote's bit), not through the strings'
             * general way. */
            if (blk.ahead_at != blk.lim ||
                p - blk.lim >= SDUI_SIMD_STRING_BLOCK)
                goto member_strings;
            block_take(&blk, blk.lim, end, path);
        }
        /* The block's special bytes from the key's opening quote on. */
        rem = blk.mask & (~(uint64_t)0 << (p - blk.at));
        goto member_taken;
    member_bits:
        if (hooked && KEY_REPORTED(p))
            goto key_event;
    member_taken:
        /*
         * rem's lowest bit is the opening quote of a key at p: take the
         * quotes that follow one after another from the mask, with no
         * shift per string, so that one member's positions do not wait
         * for the one before.  Each is checked by its byte (and the byte
         * after it), and when the mask runs out or a byte is not the one
         * expected, the general code goes on from the token's start.
         */
        rem &= rem - 1;
        if (SDUI_UNLIKELY(!rem) && !MEMBER_REFILL())
            goto member_strings;
        q = blk.at + (unsigned)__builtin_ctzll(rem);
        if (SDUI_UNLIKELY(*q != '"')) {
            MEMBER_REWIND(p);
            goto member_strings;
        }
        rem &= rem - 1;
        q++; /* after the key */
        if (SDUI_UNLIKELY(q[0] != ':')) {
            p = q;
            goto colon;
        }
        if (q[1] != '"') {
            unsigned c = q[1];
            p = q + 1;
            if (IS_DIGIT(c)) {
                /* A number (digits and '.', 'e', '+', '-' are none of
                 * them special), then ',' and the next key, whose quote
                 * is rem's lowest bit when it is in the block. */
                p = scan_number(s, p);
                if (!p)
                    goto done;
                if (p < blk.lim && p[0] == ',' && p[1] == '"') {
                    p++;
                    if (SDUI_LIKELY(rem))
                        goto member_bits;
                    goto member;
                }
                goto after;
            }
            if (!hooked && c == '{' && q[2] == '"') {
                /* An object, and its first key (rem's lowest bit). */
                PUSH(1);
                p = q + 2;
                if (SDUI_LIKELY(rem))
                    goto member_bits;
                goto member;
            }
            if (!hooked && c == '[' && q[2] == '{' && q[3] == '"') {
                /* An array whose first element is an object, and that
                 * object's first key (rem's lowest bit): the general
                 * code's two opens, each from its bracket. */
                PUSH(0);
                p = q + 2;
                PUSH(1);
                p = q + 3;
                if (SDUI_LIKELY(rem))
                    goto member_bits;
                goto member;
            }
            goto value;
        }
        /* A string value: its opening quote is rem's lowest bit, unless
         * it is past the block (then rem is empty, and the next block
         * has it). */
        if (SDUI_UNLIKELY(!rem) && !MEMBER_REFILL()) {
            p = q + 1;
            goto value;
        }
        rem &= rem - 1;
        if (SDUI_UNLIKELY(!rem) && !MEMBER_REFILL()) {
            p = q + 1;
            goto value;
        }
        v = blk.at + (unsigned)__builtin_ctzll(rem);
        if (SDUI_UNLIKELY(*v != '"')) {
            p = q + 1;
            MEMBER_REWIND(p);
            goto value;
        }
        rem &= rem - 1;
        v++; /* after the value */
        if (v[0] == ',' && v[1] == '"') {
            /* The next key: its quote is rem's lowest bit, if any. */
            p = v + 1;
            if (SDUI_LIKELY(rem))
                goto member_bits;
            goto member;
        }
        p = v;
        goto after;
    member_strings:
        q = string_fast(p + 1, end, path, &blk, &from);
        if (SDUI_UNLIKELY(!q)) {
            p = scan_string_loop(s, p, from, &esc, path, &blk);
            if (!p)
                goto done;
            goto colon;
        }
        if (SDUI_UNLIKELY(q[0] != ':')) {
            p = q;
            goto colon;
        }
        if (q[1] != '"') {
            p = q + 1;
            goto value;
        }
        v = string_fast(q + 2, end, path, &blk, &from);
        if (SDUI_UNLIKELY(!v)) {
            p = scan_string_loop(s, q + 1, from, &esc, path, &blk);
            if (!p)
                goto done;
            goto after;
        }
        if (v[0] == ',' && v[1] == '"') {
            p = v + 1;
            goto member;
        }
        p = v;
        goto after;
    }
key_event:
    {
        int kesc = 0;
        const unsigned char *k = p;
        p = scan_string(s, k + 1, end, &kesc, path, &blk);
        if (!p)
            goto done;
        if (hooked && SDUI_UNLIKELY(depth < klev) &&
            (!cfg->key_first[depth] || cfg->key_first[depth][k[1]])) {
            int v;
            assert(depth < SDUI_SCAN_MAX_LEVELS);
            EMIT(SDUI_SCAN_KEY, depth, (size_t)(k - s->base),
                 (size_t)(p - s->base), kesc, v);
            want = (v & SDUI_SCAN_WANT) != 0;
        }
    }
colon:
    if (SDUI_LIKELY(p < end && *p == ':')) {
        p++;
        goto value;
    }
    p = skip_ws(p, end, path);
    if (SDUI_UNLIKELY(p >= end || *p != ':')) {
        st = json_fail(s, p, "expected ':' after an object key");
        goto done;
    }
    p++;
    goto value;

bad_literal:
    st = json_fail(s, p, "invalid literal (expected true, false or null)");

done:
    if (deep) {
        /* The caller frees the stack. */
        dp->p = p;
        dp->stack = stack;
        dp->blk = blk;
        return st;
    }
    if (stack != inline_stack)
        sdui_free(stack);
    return st;
#undef PUSH
#undef MEMBER_REFILL
#undef MEMBER_REWIND
#undef KEY_REPORTED
#undef EMIT
#undef IS_OBJECT
#undef CLOSER_OF
}

/* Each copy of scan_body stays a function of its own: inlined into
 * sdui__scan, a copy shares its registers with the others' setup. */
#if defined(__GNUC__) || defined(__clang__)
#define SCAN_COPY __attribute__((noinline))
#else
#define SCAN_COPY
#endif

/* Validation only: the copy without hook calls, strings a byte at a
 * time. */
static SCAN_COPY sdui_status scan_plain_bytes(scanner *s)
{
    return scan_body(s, 0, 0, PATH_BYTES, NULL, NULL);
}

/* A reader's scan, strings a byte at a time. */
static SCAN_COPY sdui_status scan_hooked_bytes(scanner *s, int *stopped)
{
    return scan_body(s, 1, 0, PATH_BYTES, stopped, NULL);
}

/* A container of a reader's scan with nothing to report, strings a byte
 * at a time. */
static SCAN_COPY sdui_status scan_deep_bytes(scanner *s, deep_scan *d)
{
    return scan_body(s, 0, 1, PATH_BYTES, NULL, d);
}

/* Validation only, strings a word at a time. */
static SCAN_COPY sdui_status scan_plain_swar(scanner *s)
{
    return scan_body(s, 0, 0, PATH_SWAR, NULL, NULL);
}

/* A reader's scan, strings a word at a time. */
static SCAN_COPY sdui_status scan_hooked_swar(scanner *s, int *stopped)
{
    return scan_body(s, 1, 0, PATH_SWAR, stopped, NULL);
}

/* A container with nothing to report, strings a word at a time. */
static SCAN_COPY sdui_status scan_deep_swar(scanner *s, deep_scan *d)
{
    return scan_body(s, 0, 1, PATH_SWAR, NULL, d);
}

#ifdef SDUI_SIMD
/* Validation only, with vector blocks. */
static SCAN_COPY sdui_status scan_plain_vec(scanner *s)
{
    return scan_body(s, 0, 0, PATH_VEC, NULL, NULL);
}

/* A reader's scan with vector blocks. */
static SCAN_COPY sdui_status scan_hooked_vec(scanner *s, int *stopped)
{
    return scan_body(s, 1, 0, PATH_VEC, stopped, NULL);
}

/* A container with nothing to report, with vector blocks. */
static SCAN_COPY sdui_status scan_deep_vec(scanner *s, deep_scan *d)
{
    return scan_body(s, 0, 1, PATH_VEC, NULL, d);
}
#endif

#ifdef SDUI_SIMD_WIDE
/* A copy compiled for a wider instruction set (json_simd.h): the whole
 * loop, with the bit instructions that come with it, the kernel inlined. */
#define TARGET_AVX2 __attribute__((target(SDUI_TARGET_AVX2)))
#define TARGET_AVX512 __attribute__((target(SDUI_TARGET_AVX512)))

/* Validation only, with AVX2 string blocks. */
static SCAN_COPY TARGET_AVX2 sdui_status scan_plain_avx2(scanner *s)
{
    return scan_body(s, 0, 0, PATH_AVX2, NULL, NULL);
}

/* A reader's scan with AVX2 string blocks. */
static SCAN_COPY TARGET_AVX2 sdui_status scan_hooked_avx2(scanner *s,
                                                          int *stopped)
{
    return scan_body(s, 1, 0, PATH_AVX2, stopped, NULL);
}

/* A container with nothing to report, with AVX2 string blocks. */
static SCAN_COPY TARGET_AVX2 sdui_status scan_deep_avx2(scanner *s,
                                                        deep_scan *d)
{
    return scan_body(s, 0, 1, PATH_AVX2, NULL, d);
}

/* Validation only, with AVX-512BW string blocks. */
static SCAN_COPY TARGET_AVX512 sdui_status scan_plain_avx512(scanner *s)
{
    return scan_body(s, 0, 0, PATH_AVX512, NULL, NULL);
}

/* A reader's scan with AVX-512BW string blocks. */
static SCAN_COPY TARGET_AVX512 sdui_status scan_hooked_avx512(scanner *s,
                                                              int *stopped)
{
    return scan_body(s, 1, 0, PATH_AVX512, stopped, NULL);
}

/* A container with nothing to report, with AVX-512BW string blocks. */
static SCAN_COPY TARGET_AVX512 sdui_status scan_deep_avx512(scanner *s,
                                                            deep_scan *d)
{
    return scan_body(s, 0, 1, PATH_AVX512, NULL, d);
}
#endif

/* The path of cfg->portable (scan.h) on this CPU. */
static scan_path choose_path(int portable)
{
    assert(portable >= 0 && portable <= 3);
    if (portable == 2)
        return PATH_BYTES;
#ifdef SDUI_SIMD
    if (portable == 0) {
#ifdef SDUI_SIMD_WIDE
        int wide = sdui__simd_wide();
        if (wide)
            return wide == 2 ? PATH_AVX512 : PATH_AVX2;
#endif
        return PATH_VEC;
    }
    if (portable == 3)
        return PATH_VEC;
#endif
#ifdef SCAN_SWAR
    return PATH_SWAR;
#else
    return PATH_BYTES;
#endif
}

/* Scans with a configuration (scan.h). */
sdui_status sdui__scan(const sdui_scan_config *cfg, int *stopped)
{
    scanner s;
    static const char empty[1] = "";
    sdui_scan_config c = *cfg;
    assert(cfg->text || cfg->len == 0);
    assert(cfg->start <= cfg->len);
    assert(cfg->value_levels <= SDUI_SCAN_MAX_LEVELS &&
           cfg->key_levels <= SDUI_SCAN_MAX_LEVELS);
    assert(cfg->start_depth == 0 || cfg->hook);
    if (!c.text)
        c.text = empty;
    memset(&s, 0, sizeof s);
    s.base = (const unsigned char *)c.text;
    s.end = s.base + c.len;
    s.cfg = &c;
    s.max_depth = c.max_depth;
    s.err = c.err;
    s.path = choose_path(c.portable);
    if (stopped)
        *stopped = 0;
    switch (s.path) {
#ifdef SDUI_SIMD_WIDE
    case PATH_AVX512:
        return c.hook ? scan_hooked_avx512(&s, stopped)
                      : scan_plain_avx512(&s);
    case PATH_AVX2:
        return c.hook ? scan_hooked_avx2(&s, stopped) : scan_plain_avx2(&s);
#endif
#ifdef SDUI_SIMD
    case PATH_VEC:
        return c.hook ? scan_hooked_vec(&s, stopped) : scan_plain_vec(&s);
#endif
    case PATH_SWAR:
        return c.hook ? scan_hooked_swar(&s, stopped) : scan_plain_swar(&s);
    default:
        return c.hook ? scan_hooked_bytes(&s, stopped) : scan_plain_bytes(&s);
    }
}

/* Validates any JSON document (json.h). */
sdui_status sdui_json_validate(const char *text, size_t len,
                               unsigned max_depth, sdui_error *err)
{
    sdui_scan_config cfg;
    if (!text && len)
        return sdui__fail(err, SDUI_ARGUMENT, -1, "text is NULL");
    sdui_error_clear(err);
    memset(&cfg, 0, sizeof cfg);
    cfg.text = text;
    cfg.len = len;
    cfg.max_depth = max_depth;
    cfg.err = err;
    return sdui__scan(&cfg, NULL);
}

/* Writes code point cp as UTF-8 at d (room for 4 bytes); returns the byte
 * count (internal.h). */
size_t sdui__utf8_put(char *d, unsigned long cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xC0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes a validated string body (internal.h).  Never longer than len. */
size_t sdui__unescape(const char *src, size_t len, char *dst)
{
    const unsigned char *p = (const unsigned char *)src, *end = p + len;
    size_t n = 0;
    while (p < end) {
        unsigned long cp;
        if (*p != '\\') {
            dst[n++] = (char)*p++;
            continue;
        }
        switch (p[1]) {
        case 'b': dst[n++] = '\b'; p += 2; continue;
        case 'f': dst[n++] = '\f'; p += 2; continue;
        case 'n': dst[n++] = '\n'; p += 2; continue;
        case 'r': dst[n++] = '\r'; p += 2; continue;
        case 't': dst[n++] = '\t'; p += 2; continue;
        case 'u': break;
        default: dst[n++] = (char)p[1]; p += 2; continue;
        }
        cp = (unsigned long)hex4(p + 2, end);
        p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned long lo = (unsigned long)hex4(p + 2, end);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p += 6;
        }
        n += sdui__utf8_put(dst + n, cp);
    }
    return n;
}

/* Drops insignificant white space from valid JSON (json.h). */
sdui_status sdui_json_minify(const char *text, size_t len, unsigned max_depth,
                             char *out, size_t *out_len, sdui_error *err)
{
    const char *p = text, *end = text + len;
    size_t n = 0;
    sdui_status st;
    if ((!out && len) || !out_len) {
        sdui_error_clear(err);
        return sdui__fail(err, SDUI_ARGUMENT, -1, "out or out_len is NULL");
    }
    st = sdui_json_validate(text, len, max_depth, err);
    if (st != SDUI_OK)
        return st;
    while (p < end) {
        char c = *p++;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        out[n++] = c;
        if (c != '"')
            continue;
        /* Copy the string body verbatim through its closing quote. */
        while (p < end) {
            c = *p++;
            out[n++] = c;
            if (c == '\\')
                out[n++] = *p++;
            else if (c == '"')
                break;
        }
    }
    *out_len = n;
    return SDUI_OK;
}

/* What a JSON value starting with byte first is (scan.h). */
const char *sdui__json_kind(char first)
{
    switch (first) {
    case '{': return "an object";
    case '[': return "an array";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
    }
}
