/*
 * scan.c - times the validating JSON scanner (csrc/scan.c) on a large,
 * realistic pack: one thread, the pack's own reader (one and two threads),
 * and the whole open of a gzip pack.  Not part of `make`; built by hand
 * against the core's static library:
 *
 *     make -s build/libsdui.a
 *     cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude bench/c/scan.c \
 *        build/libsdui.a -ljansson -ldeflate -lsqlite3 -lpthread -lm \
 *        -o build/bench-scan
 *     build/bench-scan Examples/core-pack.json.gz [BYTES [RUNS]]
 *
 * The pack: the token lines of the given pack (gzip or plain JSON, one
 * token a line as sdui writes them) repeated with distinct ids ("_<n>"
 * appended to each copy's id) until the JSON holds BYTES bytes (default
 * 3,000,000, a budget pack), then gzipped here at level 6 for the open.
 * Each measure runs RUNS times (default 41), the measures taking turns, and
 * the median (and the fastest) is printed in milliseconds and MB/s (of
 * JSON), then each open's median over that of libdeflate's inflate of the
 * same gzip bytes alone (a new decompressor each run, as the open has,
 * into an output buffer kept warm).  With glibc, large blocks come from
 * the heap and stay there (mallopt), so the opens' buffers are warm too
 * after the first run: the times are of the work, not of page faults.
 *
 * Built with -DSCAN_BENCH_NO_PORTABLE it leaves out the portable-path
 * measure, so the same file builds against a core from before
 * sdui_scan_config.portable (a before/after on one machine).
 */
#define BENCH_NAME "bench-scan"
#include "bench.h"

#include <libdeflate.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "sdui/sdui.h"
#include "../../csrc/pack_scan.h"
#include "../../csrc/scan.h"

/* The longest measure list. */
#define MAX_MEASURES 8

/* Reads a whole file; *len gets its size. */
static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        bench_die("cannot open the input");
    for (;;) {
        size_t got;
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            b = realloc(b, cap);
            if (!b)
                bench_die("out of memory");
        }
        got = fread(b + n, 1, cap - n, f);
        if (!got)
            break;
        n += got;
    }
    fclose(f);
    *len = n;
    return b;
}

/* The JSON of the input: inflated when it is gzip (one member). */
static char *input_json(const char *path, size_t *len)
{
    size_t n, out_len;
    unsigned char *raw = read_file(path, &n);
    struct libdeflate_decompressor *d;
    char *out;
    if (n < 18 || raw[0] != 0x1f || raw[1] != 0x8b) {
        *len = n;
        return (char *)raw;
    }
    out_len = (size_t)raw[n - 4] | (size_t)raw[n - 3] << 8 |
              (size_t)raw[n - 2] << 16 | (size_t)raw[n - 1] << 24;
    out = malloc(out_len + 1);
    d = libdeflate_alloc_decompressor();
    if (!out || !d ||
        libdeflate_gzip_decompress(d, raw, n, out, out_len, NULL) !=
            LIBDEFLATE_SUCCESS)
        bench_die("cannot inflate the input");
    libdeflate_free_decompressor(d);
    free(raw);
    *len = out_len;
    return out;
}

/*
 * Builds the large pack: the lines of src that start a token ({"id":")
 * repeated, each copy's id given the suffix _<copy>, until want bytes.
 */
static char *make_pack(const char *src, size_t src_len, size_t want,
                       size_t *len, size_t *tokens)
{
    static const char head[] = "{\"formatVersion\":1,\"tokens\":[\n";
    const char *lines[4096];
    size_t lens[4096], nlines = 0, copy, i;
    const char *p = src, *end = src + src_len;
    bench_text out = {0};
    *tokens = 0;
    while (p < end && nlines < 4096) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        size_t n = (size_t)(e - p);
        if (n > 8 && memcmp(p, "{\"id\":\"", 7) == 0) {
            /* Without its separator (","). */
            while (n && (p[n - 1] == ',' || p[n - 1] == '\r'))
                n--;
            lines[nlines] = p;
            lens[nlines++] = n;
        }
        p = e + 1;
    }
    if (!nlines)
        bench_die("no token lines ({\"id\":\" at a line's start) in the input");
    bench_put(&out, head, sizeof head - 1);
    for (copy = 0; out.len < want; copy++)
        for (i = 0; i < nlines && out.len < want; i++) {
            const char *l = lines[i], *q = memchr(l + 7, '"', lens[i] - 7);
            char suffix[32];
            int sn = snprintf(suffix, sizeof suffix, "_%zu", copy);
            if (!q)
                bench_die("a token line with no id");
            if (*tokens)
                bench_put(&out, ",\n", 2);
            bench_put(&out, l, (size_t)(q - l));
            bench_put(&out, suffix, (size_t)sn);
            bench_put(&out, q, lens[i] - (size_t)(q - l));
            (*tokens)++;
        }
    bench_put(&out, "\n]}", 3);
    *len = out.len;
    return out.s;
}

/* What one measure runs. */
typedef enum which {
    SCAN_FAST,      /* sdui__scan, validation only                     */
    SCAN_PORTABLE,  /* the same, cfg.portable                          */
    PACK_ONE,       /* sdui__scan_pack on one thread                   */
    PACK_TWO,       /* sdui__scan_pack, default limits (two threads)   */
    OPEN_ONE,       /* sdui_pack_open_memory, one-thread scan          */
    OPEN_TWO,       /* sdui_pack_open_memory, default limits           */
    INFLATE         /* libdeflate's inflate of the gzip pack alone     */
} which;

/* A measure: its name, what it runs and its times. */
typedef struct measure {
    const char *name;
    which what;
    double *t;
} measure;

/* The inputs every measure reads. */
typedef struct inputs {
    const char *json;
    size_t len;
    const unsigned char *gz;
    size_t gz_len;
    char *out;             /* the inflate measure's output buffer      */
} inputs;

/* Runs one measure once; returns its time in seconds. */
static double run_once(const measure *m, const inputs *in)
{
    sdui_error err;
    sdui_limits lim;
    sdui_status st = SDUI_OK;
    double t0;
    sdui_limits_default(&lim);
    if (m->what == PACK_ONE || m->what == OPEN_ONE)
        lim.parallel_scan_bytes = SIZE_MAX;
    t0 = bench_now();
    switch (m->what) {
    case SCAN_FAST:
    case SCAN_PORTABLE: {
        sdui_scan_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.text = in->json;
        cfg.len = in->len;
        cfg.max_depth = SDUI_DEFAULT_MAX_DEPTH;
        cfg.err = &err;
#ifndef SCAN_BENCH_NO_PORTABLE
        cfg.portable = m->what == SCAN_PORTABLE;
#endif
        st = sdui__scan(&cfg, NULL);
        break;
    }
    case PACK_ONE:
    case PACK_TWO: {
        sdui_scan_result r;
        memset(&r, 0, sizeof r);
        st = sdui__scan_pack(in->json, in->len, &lim, &r, &err);
        sdui__scan_result_free(&r);
        break;
    }
    case OPEN_ONE:
    case OPEN_TWO: {
        sdui_pack *pack = NULL;
        st = sdui_pack_open_memory(in->gz, in->gz_len, &lim, &pack, &err);
        sdui_pack_free(pack);
        break;
    }
    case INFLATE: {
        /* A new decompressor, as the open has, into a buffer kept from
         * run to run: a new buffer's page faults come and go with the
         * allocator's state (a 3 MB one took 0.9 or 1.3 ms), and this
         * measure is the one the opens are divided by. */
        struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
        if (!d ||
            libdeflate_gzip_decompress(d, in->gz, in->gz_len, in->out,
                                       in->len, NULL) != LIBDEFLATE_SUCCESS)
            bench_die("%s: cannot inflate the pack", m->name);
        libdeflate_free_decompressor(d);
        break;
    }
    }
    t0 = bench_now() - t0;
    if (st != SDUI_OK)
        bench_die("%s: %s: %s", m->name, sdui_status_name(st), err.message);
    return t0;
}

/* Builds the pack, runs every measure runs times in turn, prints medians. */
int main(int argc, char **argv)
{
    measure ms[MAX_MEASURES];
    double med[MAX_MEASURES];
    size_t nm = 0, src_len, tokens, runs, i, r;
    size_t want = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 3000000;
    struct libdeflate_compressor *c;
    unsigned char *gz;
    char *src;
    inputs in;
    if (argc < 2)
        bench_die("usage: bench-scan PACK.json[.gz] [BYTES [RUNS]]");
#ifdef __GLIBC__
    /* Large blocks from the heap, kept when freed: otherwise whether an
     * open's JSON buffer is a fresh mapping (its page faults, 0.3 ms for
     * 3 MB) or reused memory depends on the allocator's history, and the
     * medians with it. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    runs = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 41;
    if (!runs)
        runs = 1;
    src = input_json(argv[1], &src_len);
    in.json = make_pack(src, src_len, want, &in.len, &tokens);
    free(src);
    c = libdeflate_alloc_compressor(6);
    gz = malloc(libdeflate_gzip_compress_bound(c, in.len));
    if (!c || !gz)
        bench_die("out of memory");
    in.gz_len = libdeflate_gzip_compress(
        c, in.json, in.len, gz, libdeflate_gzip_compress_bound(c, in.len));
    libdeflate_free_compressor(c);
    in.gz = gz;
    in.out = malloc(in.len + 1);
    if (!in.out)
        bench_die("out of memory");
    memset(in.out, 0, in.len + 1);
    printf("pack: %zu tokens, %zu bytes of JSON, %zu bytes gzipped; "
           "%zu runs each\n",
           tokens, in.len, in.gz_len, runs);

    ms[nm++] = (measure){"scan, one thread", SCAN_FAST, NULL};
#ifndef SCAN_BENCH_NO_PORTABLE
    ms[nm++] = (measure){"scan, portable path", SCAN_PORTABLE, NULL};
#endif
    ms[nm++] = (measure){"pack scan, one thread", PACK_ONE, NULL};
    ms[nm++] = (measure){"pack scan, two threads", PACK_TWO, NULL};
    ms[nm++] = (measure){"pack open, one-thread scan", OPEN_ONE, NULL};
    ms[nm++] = (measure){"pack open, default", OPEN_TWO, NULL};
    ms[nm++] = (measure){"inflate alone (libdeflate)", INFLATE, NULL};
    for (i = 0; i < nm; i++) {
        ms[i].t = malloc(runs * sizeof *ms[i].t);
        if (!ms[i].t)
            bench_die("out of memory");
        run_once(&ms[i], &in); /* warm-up */
    }
    for (r = 0; r < runs; r++)
        for (i = 0; i < nm; i++)
            ms[i].t[r] = run_once(&ms[i], &in);
    for (i = 0; i < nm; i++) {
        double best;
        qsort(ms[i].t, runs, sizeof *ms[i].t, bench_cmp_double);
        med[i] = ms[i].t[runs / 2];
        best = ms[i].t[0];
        printf("%-28s median %8.3f ms (%7.1f MB/s), fastest %8.3f ms\n",
               ms[i].name, med[i] * 1e3, (double)in.len / med[i] / 1e6,
               best * 1e3);
        free(ms[i].t);
    }
    /* The opens against the inflate alone (the last measure). */
    for (i = 0; i < nm; i++)
        if (ms[i].what == OPEN_ONE || ms[i].what == OPEN_TWO)
            printf("%-28s %.2fx the inflate alone\n", ms[i].name,
                   med[i] / med[nm - 1]);
    free((void *)in.json);
    free(in.out);
    free(gz);
    return 0;
}
