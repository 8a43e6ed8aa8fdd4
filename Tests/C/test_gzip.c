/*
 * test_gzip.c - tests of the bounded gzip decoder and the encoder (gzip.h).
 *
 * Fixtures are made with zlib, independently of the code under test: members
 * with every header field, several members in a row, truncations, damaged
 * trailers, and gzip bombs of 1 GiB (many members, and one single member)
 * that must stop at the inflate limit with bounded memory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "check.h"

/* A growable byte buffer for building fixtures. */
typedef struct buf {
    unsigned char *p;
    size_t len, cap;
} buf;

/* Appends n bytes to b (aborts the test program if memory runs out). */
static void buf_put(buf *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->len + n)
            c *= 2;
        b->p = realloc(b->p, c);
        if (!b->p) {
            fprintf(stderr, "test_gzip: out of memory\n");
            exit(2);
        }
        b->cap = c;
    }
    if (n)
        memcpy(b->p + b->len, d, n);
    b->len += n;
}

/* Appends one byte. */
static void buf_byte(buf *b, unsigned c)
{
    unsigned char x = (unsigned char)c;
    buf_put(b, &x, 1);
}

/* Appends a little-endian 16-bit value. */
static void buf_le16(buf *b, unsigned v)
{
    buf_byte(b, v & 0xff);
    buf_byte(b, (v >> 8) & 0xff);
}

/* Appends a little-endian 32-bit value. */
static void buf_le32(buf *b, uint32_t v)
{
    buf_le16(b, v & 0xffff);
    buf_le16(b, v >> 16);
}

/* Frees a buffer's bytes. */
static void buf_free(buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* Appends the raw deflate stream of data (zlib, no header) to b. */
static void raw_deflate(buf *b, const void *data, size_t n, int level)
{
    z_stream z;
    unsigned char chunk[65536];
    int r;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        exit(2);
    z.next_in = (unsigned char *)(uintptr_t)data;
    z.avail_in = (uInt)n;
    do {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        r = deflate(&z, Z_FINISH);
        buf_put(b, chunk, sizeof chunk - z.avail_out);
    } while (r == Z_OK);
    deflateEnd(&z);
}

/* Header options of a hand-made gzip member. */
typedef struct gz_opts {
    unsigned flags;             /* FLG byte as written                  */
    const unsigned char *extra; /* FEXTRA payload when flags has 4      */
    size_t extra_len;
    const char *name;           /* FNAME when flags has 8               */
    const char *comment;        /* FCOMMENT when flags has 16           */
    int bad_hcrc;               /* write a wrong header CRC (flags 2)   */
    int method;                 /* CM byte; 0 means 8 (deflate)         */
} gz_opts;

/* Appends one gzip member of data to b, header fields as o says. */
static void gz_member(buf *b, const void *data, size_t n, const gz_opts *o)
{
    static const gz_opts plain = {0, NULL, 0, NULL, NULL, 0, 0};
    size_t start = b->len;
    if (!o)
        o = &plain;
    buf_byte(b, 0x1f);
    buf_byte(b, 0x8b);
    buf_byte(b, o->method ? (unsigned)o->method : 8u);
    buf_byte(b, o->flags);
    buf_le32(b, 0x5f000000u); /* MTIME */
    buf_byte(b, 0);           /* XFL   */
    buf_byte(b, 3);           /* OS: Unix */
    if (o->flags & 4) {
        buf_le16(b, (unsigned)o->extra_len);
        buf_put(b, o->extra, o->extra_len);
    }
    if (o->flags & 8)
        buf_put(b, o->name, strlen(o->name) + 1);
    if (o->flags & 16)
        buf_put(b, o->comment, strlen(o->comment) + 1);
    if (o->flags & 2) {
        uLong c = crc32(0L, b->p + start, (uInt)(b->len - start));
        buf_le16(b, (unsigned)((c & 0xffff) ^ (o->bad_hcrc ? 1u : 0u)));
    }
    raw_deflate(b, data, n, 6);
    buf_le32(b, (uint32_t)crc32(0L, data, (uInt)n));
    buf_le32(b, (uint32_t)n);
}

/* Decodes b with a limit; returns the status and keeps the output in *out. */
static sdui_status decode(const buf *b, size_t max, char **out, size_t *len,
                          unsigned *members, sdui_error *err)
{
    return sdui_gzip_decode(b->p, b->len, max, out, len, members, err);
}

/* Checks that an error record is well formed for a gzip error on n bytes. */
static void check_gzip_error(const sdui_error *e, sdui_status st, size_t n)
{
    CHECK_EQ_INT(e->status, st);
    CHECKF(e->message[0] != '\0', "empty message for %s",
           sdui_status_name(st));
    if (st == SDUI_GZIP) {
        CHECKF(e->offset >= 0 && (size_t)e->offset <= n,
               "gzip error offset %lld outside [0, %zu]", e->offset, n);
        CHECK_EQ_INT(e->line, 0);
        CHECK_EQ_INT(e->column, 0);
    }
}

/* Fills p with n bytes of compressible, text-like data. */
static void fill_text(char *p, size_t n, unsigned seed)
{
    static const char *const words[] = {
        "{\"id\":", "\"primitive\"", "text", "button", " ", "\n", "42,",
        "\"props\":{", "}", "]", "[", "\u00e9t\u00e9", "\xf0\x9f\x98\x80"};
    size_t i = 0;
    uint32_t x = seed * 2654435761u + 1;
    while (i < n) {
        const char *w;
        size_t l;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        w = words[x % (sizeof words / sizeof *words)];
        l = strlen(w);
        if (l > n - i)
            l = n - i;
        memcpy(p + i, w, l);
        i += l;
    }
}

/* Encode then decode at every level, for several sizes. */
static void test_round_trip(void)
{
    static const size_t sizes[] = {0, 1, 17, 4095, 4096, 4097, 100000,
                                   3 << 20};
    static const int levels[] = {-1, 0, 1, 6, 9, 12};
    size_t si, li;
    sdui_error err;
    for (si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        char *in = malloc(n ? n : 1);
        fill_text(in, n, (unsigned)si);
        for (li = 0; li < sizeof levels / sizeof *levels; li++) {
            unsigned char *gz = NULL;
            size_t gz_len = 0, out_len = 0;
            char *out = NULL;
            unsigned members = 0;
            if (n > 100000 && levels[li] > 6)
                continue; /* slow levels on big input add nothing */
            CHECK_STATUS(sdui_gzip_encode(in, n, levels[li], &gz, &gz_len,
                                          &err),
                         SDUI_OK);
            CHECK(gz != NULL && gz_len >= 18);
            CHECK_STATUS(sdui_gzip_decode(gz, gz_len,
                                          SDUI_DEFAULT_MAX_INFLATED_BYTES,
                                          &out, &out_len, &members, &err),
                         SDUI_OK);
            CHECK_EQ_INT(out_len, n);
            CHECK_EQ_INT(members, 1);
            CHECKF(out && memcmp(out, in, n) == 0,
                   "round trip of %zu bytes at level %d differs", n,
                   levels[li]);
            CHECK(out && out[out_len] == '\0');
            /* zlib reads what the encoder wrote. */
            if (gz) {
                z_stream z;
                char *back = malloc(n + 1);
                memset(&z, 0, sizeof z);
                inflateInit2(&z, 31);
                z.next_in = gz;
                z.avail_in = (uInt)gz_len;
                z.next_out = (unsigned char *)back;
                z.avail_out = (uInt)(n + 1);
                CHECK_EQ_INT(inflate(&z, Z_FINISH), Z_STREAM_END);
                CHECK_EQ_INT(z.total_out, n);
                CHECK(memcmp(back, in, n) == 0);
                inflateEnd(&z);
                free(back);
            }
            sdui_free(out);
            sdui_free(gz);
        }
        free(in);
    }
    {
        unsigned char *gz = (unsigned char *)"x";
        size_t gz_len = 7;
        CHECK_STATUS(sdui_gzip_encode("abc", 3, 13, &gz, &gz_len, &err),
                     SDUI_ARGUMENT);
        CHECK(gz == NULL && gz_len == 0);
        CHECK_STATUS(sdui_gzip_encode(NULL, 3, 6, &gz, &gz_len, &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_gzip_encode(NULL, 0, 6, &gz, &gz_len, &err),
                     SDUI_OK);
        sdui_free(gz);
    }
    {
        char *out = (char *)"x";
        size_t out_len = 3;
        CHECK_STATUS(sdui_gzip_decode(NULL, 20, 100, &out, &out_len, NULL,
                                      &err),
                     SDUI_ARGUMENT);
        CHECK(out == NULL && out_len == 0);
    }
}

/* sdui_crc32 is the gzip CRC-32, and continues across calls. */
static void test_crc32(void)
{
    const char *s = "The quick brown fox jumps over the lazy dog";
    size_t n = strlen(s);
    CHECK_EQ_INT(sdui_crc32(0, s, n), 0x414fa339u);
    CHECK_EQ_INT(sdui_crc32(sdui_crc32(0, s, 10), s + 10, n - 10),
                 0x414fa339u);
    CHECK_EQ_INT(sdui_crc32(0, "", 0), 0);
    CHECK_EQ_INT(sdui_crc32(0, s, n), crc32(0L, (const Bytef *)s, (uInt)n));
}

/* A member made by zlib with a full header (extra, name, comment, hcrc). */
static void test_zlib_header(void)
{
    const char *text = "{\"formatVersion\":1,\"tokens\":[]}";
    unsigned char extra[] = {'S', 'D', 2, 0, 'h', 'i'};
    unsigned char out[512];
    gz_header h;
    z_stream z;
    char *dec = NULL;
    size_t dec_len = 0;
    unsigned members = 0;
    sdui_error err;
    memset(&z, 0, sizeof z);
    memset(&h, 0, sizeof h);
    deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    h.text = 1;
    h.extra = extra;
    h.extra_len = sizeof extra;
    h.name = (Bytef *)"pack.json";
    h.comment = (Bytef *)"made by zlib";
    h.hcrc = 1;
    h.os = 3;
    deflateSetHeader(&z, &h);
    z.next_in = (unsigned char *)(uintptr_t)text;
    z.avail_in = (uInt)strlen(text);
    z.next_out = out;
    z.avail_out = sizeof out;
    CHECK_EQ_INT(deflate(&z, Z_FINISH), Z_STREAM_END);
    CHECK_EQ_INT(out[3], 1 | 2 | 4 | 8 | 16);
    CHECK_STATUS(sdui_gzip_decode(out, z.total_out, 1 << 20, &dec, &dec_len,
                                  &members, &err),
                 SDUI_OK);
    CHECK_EQ_INT(dec_len, strlen(text));
    CHECK(dec && strcmp(dec, text) == 0);
    CHECK_EQ_INT(members, 1);
    sdui_free(dec);
    deflateEnd(&z);
}

/* Every header flag, alone and together; reserved bits and bad methods. */
static void test_header_flags(void)
{
    static const unsigned char extra[] = {'S', 'D', 4, 0, 1, 2, 3, 4,
                                          'X', 'Y', 0, 0};
    const char *text = "hello, header fields";
    size_t n = strlen(text);
    static const unsigned flag_sets[] = {0,  1,  2,  4,  8,  16,
                                         6,  12, 24, 30, 31};
    size_t i;
    sdui_error err;
    for (i = 0; i < sizeof flag_sets / sizeof *flag_sets; i++) {
        gz_opts o = {flag_sets[i], extra, sizeof extra, "pack.json",
                     "a comment, with punctuation!", 0, 0};
        buf b = {0};
        char *out = NULL;
        size_t out_len = 0;
        unsigned members = 0;
        gz_member(&b, text, n, &o);
        CHECKF(decode(&b, 1 << 20, &out, &out_len, &members, &err) == SDUI_OK,
               "flags 0x%x: %s", flag_sets[i], err.message);
        CHECK(out_len == n && out && memcmp(out, text, n) == 0);
        CHECK_EQ_INT(members, 1);
        sdui_free(out);
        buf_free(&b);
    }
    /* An empty FEXTRA field and an empty name. */
    {
        gz_opts o = {4 | 8, extra, 0, "", NULL, 0, 0};
        buf b = {0};
        char *out = NULL;
        size_t out_len = 0;
        gz_member(&b, text, n, &o);
        CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, NULL, &err), SDUI_OK);
        sdui_free(out);
        buf_free(&b);
    }
    /* A wrong header CRC: the error points at the CRC16. */
    {
        gz_opts o = {2 | 8, NULL, 0, "x.json", NULL, 1, 0};
        buf b = {0};
        char *out = (char *)"x";
        size_t out_len = 0;
        gz_member(&b, text, n, &o);
        CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, NULL, &err),
                     SDUI_GZIP);
        CHECK(out == NULL);
        CHECK_EQ_INT(err.offset, 10 + 7);
        CHECK_MSG_HAS("header CRC");
        check_gzip_error(&err, SDUI_GZIP, b.len);
        buf_free(&b);
    }
    /* Each reserved bit is an error at the FLG byte. */
    for (i = 5; i < 8; i++) {
        gz_opts o = {1u << i, NULL, 0, NULL, NULL, 0, 0};
        buf b = {0};
        char *out = NULL;
        size_t out_len = 0;
        gz_member(&b, text, n, &o);
        CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, NULL, &err),
                     SDUI_GZIP);
        CHECK_EQ_INT(err.offset, 3);
        CHECK_MSG_HAS("reserved");
        buf_free(&b);
    }
    /* A compression method other than deflate. */
    {
        gz_opts o = {0, NULL, 0, NULL, NULL, 0, 7};
        buf b = {0};
        char *out = NULL;
        size_t out_len = 0;
        gz_member(&b, text, n, &o);
        CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, NULL, &err),
                     SDUI_GZIP);
        CHECK_EQ_INT(err.offset, 2);
        buf_free(&b);
    }
    /* Reserved bits in the second member, reported at its FLG byte. */
    {
        gz_opts o = {0x20, NULL, 0, NULL, NULL, 0, 0};
        buf b = {0};
        char *out = NULL;
        size_t out_len = 0, first;
        gz_member(&b, text, n, NULL);
        first = b.len;
        gz_member(&b, text, n, &o);
        CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, NULL, &err),
                     SDUI_GZIP);
        CHECK_EQ_INT(err.offset, first + 3);
        CHECK_MSG_HAS("member 2");
        buf_free(&b);
    }
}

/* Several members read as one stream equal the concatenated inputs. */
static void test_multi_member(void)
{
    static const unsigned char extra[] = {'S', 'D', 1, 0, 9};
    const char *parts[] = {"{\"formatVersion\":1,", "", "\"tokens\":[",
                           "{\"id\":\"a\"}", "]}"};
    gz_opts fancy = {4 | 8 | 16 | 2, extra, sizeof extra, "part", "c", 0, 0};
    buf b = {0}, whole = {0};
    size_t i, np = sizeof parts / sizeof *parts;
    char *out = NULL;
    size_t out_len = 0;
    unsigned members = 0;
    sdui_error err;
    for (i = 0; i < np; i++) {
        gz_member(&b, parts[i], strlen(parts[i]), i % 2 ? &fancy : NULL);
        buf_put(&whole, parts[i], strlen(parts[i]));
    }
    CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, &members, &err), SDUI_OK);
    CHECK_EQ_INT(members, np);
    CHECK_EQ_INT(out_len, whole.len);
    CHECK(out && memcmp(out, whole.p, whole.len) == 0);
    CHECK(out && out[out_len] == '\0');
    sdui_free(out);

    /* The same through sdui_gzip_encode, member by member, with larger parts
     * so the output buffer must grow past the last member's ISIZE. */
    {
        buf big = {0}, cat = {0};
        size_t sizes[] = {50000, 7, 200000, 0, 3000};
        for (i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            char *part = malloc(sizes[i] + 1);
            unsigned char *gz = NULL;
            size_t gz_len = 0;
            fill_text(part, sizes[i], (unsigned)i + 7);
            CHECK_STATUS(sdui_gzip_encode(part, sizes[i], 1, &gz, &gz_len,
                                          &err),
                         SDUI_OK);
            buf_put(&big, gz, gz_len);
            buf_put(&cat, part, sizes[i]);
            sdui_free(gz);
            free(part);
        }
        CHECK_STATUS(decode(&big, 1 << 20, &out, &out_len, &members, &err),
                     SDUI_OK);
        CHECK_EQ_INT(members, 5);
        CHECK_EQ_INT(out_len, cat.len);
        CHECK(out && memcmp(out, cat.p, cat.len) == 0);
        sdui_free(out);
        /* A limit just below the total fails, exactly the total passes. */
        CHECK_STATUS(decode(&big, cat.len - 1, &out, &out_len, NULL, &err),
                     SDUI_LIMIT);
        CHECK_STATUS(decode(&big, cat.len, &out, &out_len, NULL, &err),
                     SDUI_OK);
        sdui_free(out);
        buf_free(&big);
        buf_free(&cat);
    }
    buf_free(&b);
    buf_free(&whole);
}

/* Every proper prefix of a gzip file is a gzip error, never a crash. */
static void test_truncation(void)
{
    static const unsigned char extra[] = {'S', 'D', 3, 0, 'a', 'b', 'c'};
    gz_opts o = {2 | 4 | 8 | 16, extra, sizeof extra, "tokens.json",
                 "truncate me", 0, 0};
    char text[300];
    buf b = {0}, two = {0};
    size_t cut, first;
    sdui_error err;
    unsigned bad = 0;
    fill_text(text, sizeof text, 3);
    gz_member(&b, text, sizeof text, &o);
    for (cut = 0; cut < b.len; cut++) {
        static char sentinel[1];
        char *out = sentinel; /* must be reset to NULL */
        size_t out_len = 9;
        sdui_status st = sdui_gzip_decode(b.p, cut, 1 << 20, &out, &out_len,
                                          NULL, &err);
        if (st != SDUI_GZIP || out != NULL || out_len != 0 ||
            err.offset < 0 || (size_t)err.offset > cut || !err.message[0]) {
            bad++;
            fprintf(stderr, "  cut at %zu: %s \"%s\" offset %lld\n", cut,
                    sdui_status_name(st), err.message, err.offset);
        }
        if (out != sentinel)
            sdui_free(out);
    }
    CHECKF(bad == 0, "%u of %zu truncations were not gzip errors", bad, b.len);

    /* A second member cut anywhere (but at its start) is an error too. */
    gz_member(&two, "first", 5, NULL);
    first = two.len;
    gz_member(&two, text, sizeof text, &o);
    bad = 0;
    for (cut = first + 1; cut < two.len; cut++) {
        char *out = NULL;
        size_t out_len = 0;
        sdui_status st = sdui_gzip_decode(two.p, cut, 1 << 20, &out, &out_len,
                                          NULL, &err);
        if (st != SDUI_GZIP)
            bad++;
        sdui_free(out);
    }
    CHECKF(bad == 0, "%u truncations of member 2 were not gzip errors", bad);
    {
        char *out = NULL;
        size_t out_len = 0;
        unsigned members = 0;
        CHECK_STATUS(sdui_gzip_decode(two.p, first, 1 << 20, &out, &out_len,
                                      &members, &err),
                     SDUI_OK);
        CHECK(out_len == 5 && members == 1);
        sdui_free(out);
    }
    buf_free(&b);
    buf_free(&two);
}

/* Damaged trailers, trailing bytes, empty and foreign input. */
static void test_damage(void)
{
    const char *text = "{\"formatVersion\":1,\"tokens\":[]}";
    size_t n = strlen(text);
    buf b = {0};
    char *out = NULL;
    size_t out_len = 0, trailer;
    sdui_error err;
    gz_member(&b, text, n, NULL);
    trailer = b.len - 8;

    b.p[trailer] ^= 0x40; /* CRC-32 */
    CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, NULL, &err), SDUI_GZIP);
    CHECK_EQ_INT(err.offset, trailer);
    CHECK_MSG_HAS("CRC-32");
    check_gzip_error(&err, SDUI_GZIP, b.len);
    b.p[trailer] ^= 0x40;

    b.p[trailer + 4] ^= 1; /* ISIZE */
    CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, NULL, &err), SDUI_GZIP);
    CHECK_EQ_INT(err.offset, trailer + 4);
    CHECK_MSG_HAS("ISIZE");
    b.p[trailer + 4] ^= 1;

    CHECK_STATUS(decode(&b, 1 << 20, &out, &out_len, NULL, &err), SDUI_OK);
    sdui_free(out);

    /* Trailing garbage after a complete member, then trailing zeros. */
    {
        buf g = {0};
        buf_put(&g, b.p, b.len);
        buf_put(&g, "garbage", 7);
        CHECK_STATUS(decode(&g, 1 << 20, &out, &out_len, NULL, &err),
                     SDUI_GZIP);
        CHECK_EQ_INT(err.offset, b.len);
        CHECK_MSG_HAS("trailing garbage");
        check_gzip_error(&err, SDUI_GZIP, g.len);
        g.len = b.len;
        buf_put(&g, "\0\0\0\0", 4);
        CHECK_STATUS(decode(&g, 1 << 20, &out, &out_len, NULL, &err),
                     SDUI_GZIP);
        CHECK_EQ_INT(err.offset, b.len);
        g.len = b.len;
        buf_byte(&g, 0x1f); /* a lone magic byte */
        CHECK_STATUS(decode(&g, 1 << 20, &out, &out_len, NULL, &err),
                     SDUI_GZIP);
        buf_free(&g);
    }

    /* Corrupt deflate data: an invalid block type (BTYPE 11). */
    {
        buf c = {0};
        buf_put(&c, b.p, 10);
        buf_byte(&c, 0x07);
        buf_put(&c, b.p + 11, b.len - 11);
        CHECK_STATUS(decode(&c, 1 << 20, &out, &out_len, NULL, &err),
                     SDUI_GZIP);
        CHECK_EQ_INT(err.offset, 10);
        check_gzip_error(&err, SDUI_GZIP, c.len);
        buf_free(&c);
    }

    /* Empty input and bytes that are not gzip at all. */
    CHECK_STATUS(sdui_gzip_decode("", 0, 1 << 20, &out, &out_len, NULL, &err),
                 SDUI_GZIP);
    CHECK_EQ_INT(err.offset, 0);
    check_gzip_error(&err, SDUI_GZIP, 0);
    CHECK_STATUS(sdui_gzip_decode(text, n, 1 << 20, &out, &out_len, NULL,
                                  &err),
                 SDUI_GZIP);
    CHECK_EQ_INT(err.offset, 0);
    CHECK_MSG_HAS("not a gzip");
    CHECK_STATUS(sdui_gzip_decode("\x1f\x8b\x08", 3, 1 << 20, &out, &out_len,
                                  NULL, &err),
                 SDUI_GZIP);
    CHECK_STATUS(sdui_gzip_decode("\x1f\x8b\x08\0\0\0\0\0\0\3\3\0", 12,
                                  1 << 20, &out, &out_len, NULL, &err),
                 SDUI_GZIP);
    CHECK_MSG_HAS("trailer");
    /* A zlib (not gzip) stream. */
    {
        unsigned char z[64];
        uLongf zl = sizeof z;
        compress(z, &zl, (const Bytef *)text, (uLong)n);
        CHECK_STATUS(sdui_gzip_decode(z, zl, 1 << 20, &out, &out_len, NULL,
                                      &err),
                     SDUI_GZIP);
    }
    CHECK_EQ_STR(sdui_status_name(SDUI_GZIP), "gzip");
    CHECK_EQ_STR(sdui_status_name(SDUI_LIMIT), "limit");
    CHECK_EQ_STR(sdui_status_name((sdui_status)999), "unknown");
    buf_free(&b);
}

/* An allocator that records the peak number of bytes held at once. */
typedef struct peak_ctx {
    size_t live, peak;
} peak_ctx;

/* Allocates with a size header so frees know what they release. */
static void *peak_malloc(void *ctx, size_t size)
{
    peak_ctx *c = ctx;
    size_t *p = malloc(size + 16);
    if (!p)
        return NULL;
    p[0] = size;
    c->live += size;
    if (c->live > c->peak)
        c->peak = c->live;
    return (char *)p + 16;
}

/* Frees a block made by peak_malloc. */
static void peak_free(void *ctx, void *ptr)
{
    peak_ctx *c = ctx;
    size_t *p;
    if (!ptr)
        return;
    p = (size_t *)(void *)((char *)ptr - 16);
    c->live -= p[0];
    free(p);
}

/* Resizes a block made by peak_malloc. */
static void *peak_realloc(void *ctx, void *ptr, size_t size)
{
    peak_ctx *c = ctx;
    size_t *p, old;
    if (!ptr)
        return peak_malloc(ctx, size);
    p = (size_t *)(void *)((char *)ptr - 16);
    old = p[0];
    p = realloc(p, size + 16);
    if (!p)
        return NULL;
    p[0] = size;
    c->live = c->live - old + size;
    if (c->live > c->peak)
        c->peak = c->live;
    return (char *)p + 16;
}

/* Decodes a bomb under limit max; checks SDUI_LIMIT, offset and peak memory. */
static void check_bomb(const buf *b, size_t max, long long want_offset,
                       const char *what)
{
    peak_ctx pc = {0, 0};
    sdui_allocator a = {peak_malloc, peak_realloc, peak_free, &pc};
    char *out = (char *)"x";
    size_t out_len = 1;
    sdui_error err;
    sdui_status st;
    sdui_set_allocator(&a);
    st = sdui_gzip_decode(b->p, b->len, max, &out, &out_len, NULL, &err);
    sdui_set_allocator(NULL);
    CHECKF(st == SDUI_LIMIT, "%s under %zu: %s (%s)", what, max,
           sdui_status_name(st), err.message);
    CHECK(out == NULL && out_len == 0);
    CHECK_EQ_INT(err.status, SDUI_LIMIT);
    CHECK(err.message[0] != '\0');
    if (want_offset >= 0)
        CHECK_EQ_INT(err.offset, want_offset);
    CHECKF(pc.peak <= max + (1u << 20),
           "%s: peak memory %zu bytes for a limit of %zu", what, pc.peak,
           max);
    CHECK_EQ_INT(pc.live, 0);
}

/* Gzip bombs of 1 GiB stop at the limit, with memory bounded by it. */
static void test_bombs(void)
{
    const size_t part = (size_t)16 << 20;
    const int copies = 64;
    unsigned char *zeros = calloc(1, part);
    buf member = {0}, multi = {0}, single = {0};
    int i;
    sdui_error err;

    /* Many members: one 16 MiB member of zeros repeated 64 times. */
    gz_member(&member, zeros, part, NULL);
    for (i = 0; i < copies; i++)
        buf_put(&multi, member.p, member.len);
    /* Default limit: members 1-4 fill 64 MiB, member 5 is refused. */
    check_bomb(&multi, SDUI_DEFAULT_MAX_INFLATED_BYTES,
               (long long)(4 * member.len), "multi-member bomb");
    check_bomb(&multi, (size_t)1 << 20, 0, "multi-member bomb");
    check_bomb(&multi, 4096, 0, "multi-member bomb");
    /* The pack opener applies the default limit the same way. */
    {
        sdui_pack *pack = (sdui_pack *)&err;
        CHECK_STATUS(sdui_pack_open_memory(multi.p, multi.len, NULL, &pack,
                                           &err),
                     SDUI_LIMIT);
        CHECK(pack == NULL);
    }

    /* One member: 1 GiB of zeros streamed through zlib in 1 MiB chunks. */
    {
        const size_t chunk = (size_t)1 << 20, total = (size_t)1 << 30;
        unsigned char out[1 << 16];
        z_stream z;
        size_t fed = 0;
        uLong crc_chunk = crc32(0L, zeros, (uInt)chunk), crc = 0;
        int r = Z_OK;
        memset(&z, 0, sizeof z);
        buf_put(&single, "\x1f\x8b\x08\0\0\0\0\0\0\3", 10);
        deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_RLE);
        while (r != Z_STREAM_END) {
            if (z.avail_in == 0 && fed < total) {
                z.next_in = zeros;
                z.avail_in = (uInt)chunk;
                fed += chunk;
                crc = crc32_combine(crc, crc_chunk, (z_off_t)chunk);
            }
            z.next_out = out;
            z.avail_out = sizeof out;
            r = deflate(&z, fed == total ? Z_FINISH : Z_NO_FLUSH);
            buf_put(&single, out, sizeof out - z.avail_out);
        }
        deflateEnd(&z);
        buf_le32(&single, (uint32_t)crc);
        buf_le32(&single, (uint32_t)total);
        CHECKF(single.len < ((size_t)2 << 20), "single bomb is %zu bytes",
               single.len);
        check_bomb(&single, SDUI_DEFAULT_MAX_INFLATED_BYTES, 0,
                   "single-member bomb");
        check_bomb(&single, (size_t)1 << 20, 0, "single-member bomb");
        /* A lying ISIZE (10 bytes) makes the decoder grow from small. */
        single.p[single.len - 4] = 10;
        single.p[single.len - 3] = 0;
        single.p[single.len - 2] = 0;
        single.p[single.len - 1] = 0;
        check_bomb(&single, (size_t)8 << 20, 0, "single bomb, lying ISIZE");
    }

    /* Below the bomb, a real 16 MiB member inflates under a 16 MiB limit. */
    {
        char *out = NULL;
        size_t out_len = 0;
        CHECK_STATUS(sdui_gzip_decode(member.p, member.len, part, &out,
                                      &out_len, NULL, &err),
                     SDUI_OK);
        CHECK_EQ_INT(out_len, part);
        CHECK(out && memcmp(out, zeros, part) == 0);
        sdui_free(out);
        CHECK_STATUS(sdui_gzip_decode(member.p, member.len, part - 1, &out,
                                      &out_len, NULL, &err),
                     SDUI_LIMIT);
        CHECK_MSG_HAS("limit");
    }
    buf_free(&member);
    buf_free(&multi);
    buf_free(&single);
    free(zeros);
}

/* Runs every gzip test. */
/* A tiny file whose trailer claims a huge size gets a small first buffer:
 * memory follows what deflate can produce from the input, not the claim. */
static void test_lying_isize(void)
{
    static const char doc[] = "{\"a\":1}";
    unsigned char *gz;
    size_t gz_len, out_len = 0;
    char *out = NULL;
    peak_ctx pc = {0, 0};
    sdui_allocator a = {peak_malloc, peak_realloc, peak_free, &pc};
    sdui_error err;
    sdui_status st;

    CHECK_STATUS(sdui_gzip_encode(doc, sizeof doc - 1, 9, &gz, &gz_len, &err),
                 SDUI_OK);
    /* ISIZE is the last four bytes: claim 60 MiB. */
    gz[gz_len - 4] = 0x00;
    gz[gz_len - 3] = 0x00;
    gz[gz_len - 2] = 0xc0;
    gz[gz_len - 1] = 0x03;
    sdui_set_allocator(&a);
    st = sdui_gzip_decode(gz, gz_len, (size_t)64 << 20, &out, &out_len, NULL,
                          &err);
    sdui_set_allocator(NULL);
    CHECK_STATUS(st, SDUI_GZIP);
    CHECK_MSG_HAS("ISIZE");
    CHECKF(pc.peak < (size_t)1 << 20,
           "a %zu-byte file cost %zu bytes of memory", gz_len, pc.peak);
    CHECK_EQ_INT(pc.live, 0);
    sdui_free(gz);
}

int main(void)
{
    test_round_trip();
    test_crc32();
    test_zlib_header();
    test_header_flags();
    test_multi_member();
    test_truncation();
    test_damage();
    test_bombs();
    test_lying_isize();
    return check_summary();
}
