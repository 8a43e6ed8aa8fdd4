/*
 * scan_bounds.c - two measurements that bound what a different design of
 * the validating scan (csrc/scan.c) could gain on a pack of varied tokens,
 * where the scan is the part of a one-thread open that is not libdeflate.
 * Not part of `make`; built by hand against the core's static library:
 *
 *     make -s build/libsdui.a
 *     cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude \
 *        bench/c/scan_bounds.c build/libsdui.a -ldeflate -lsqlite3 \
 *        -lpthread -lm -o build/bench-scan-bounds
 *     build/bench-scan-bounds PACK.gz [PART_BYTES [RUNS]]
 *
 * PACK is a pack as `sdui pack build` or `sdui bench first-paint --save
 * DIR` writes it (gzip, one or more members, one token a line).
 *
 * 1. Is the scan waiting for memory?  The tokens are cut into documents of
 *    about PART_BYTES (default 262,144) each, and the pack scan reads them
 *    two ways: every document copied into one buffer first, then each
 *    scanned (what an open does: the whole JSON is inflated, then
 *    scanned); or each copied just before it is scanned, so that its bytes
 *    are in the nearest caches.  The same work either way: when the times
 *    agree, the scan does not wait for the bytes.
 *
 * 2. What would a table-driven grammar walk cost?  A structural-index
 *    design (a first pass marking, 64 bytes at a time, every structural
 *    byte outside strings and every scalar's first byte; then a walk over
 *    those marks) trades the byte-wise scan's branches, which mispredict on
 *    varied tokens, for a chain of dependent steps: each mark's state is
 *    looked up from the state before.  This program classifies the marks
 *    ahead of time (untimed) and times that walk alone: a real JSON grammar
 *    automaton (object or array from a bracket stack), checking the order
 *    of the marks and nothing else: no string, number or UTF-8 check, no
 *    first pass, no events for the pack's reader.  It is a lower bound on
 *    the walk of such a design; the first pass comes on top of it
 *    (simdjson's, the peer in `sdui bench first-paint`, is its On-Demand
 *    row minus its libdeflate row).
 *
 * Each measure runs RUNS times (default 31), taking turns; medians in
 * milliseconds.  One thread.
 */
#define BENCH_NAME "bench-scan-bounds"
#include "bench.h"

#include "sdui/sdui.h"
#include "../../csrc/pack_scan.h"

/* The marks' classes, in the walk's table order. */
enum { C_OPEN_OBJ, C_CLOSE_OBJ, C_OPEN_ARR, C_CLOSE_ARR, C_COLON, C_COMMA,
       C_STRING, C_SCALAR, NCLASS };

/* The walk's states; S_ERR absorbs.  After a value the next state depends
 * on the container (object or array), which the walk reads from its
 * bracket stack, so AFTER_VALUE is two states. */
enum { S_VALUE, S_KEY_OR_CLOSE, S_KEY, S_COLON, S_VALUE_OR_CLOSE,
       S_AFTER_IN_OBJ, S_AFTER_IN_ARR, S_DONE, S_ERR, NSTATE };

/* The transition table: next state for (state, class).  The container
 * a close returns to is fixed up by the walk from its stack. */
static unsigned char table[NSTATE][NCLASS];

/* Fills the table with the JSON grammar over marks. */
static void build_table(void)
{
    int s, c;
    for (s = 0; s < NSTATE; s++)
        for (c = 0; c < NCLASS; c++)
            table[s][c] = S_ERR;
    /* A value: a string, a scalar or a container's open. */
    const int value_states[] = {S_VALUE, S_VALUE_OR_CLOSE};
    for (s = 0; s < 2; s++) {
        table[value_states[s]][C_STRING] = S_AFTER_IN_OBJ; /* fixed up */
        table[value_states[s]][C_SCALAR] = S_AFTER_IN_OBJ; /* fixed up */
        table[value_states[s]][C_OPEN_OBJ] = S_KEY_OR_CLOSE;
        table[value_states[s]][C_OPEN_ARR] = S_VALUE_OR_CLOSE;
    }
    table[S_VALUE_OR_CLOSE][C_CLOSE_ARR] = S_AFTER_IN_OBJ; /* fixed up */
    table[S_KEY_OR_CLOSE][C_STRING] = S_COLON;
    table[S_KEY_OR_CLOSE][C_CLOSE_OBJ] = S_AFTER_IN_OBJ; /* fixed up */
    table[S_KEY][C_STRING] = S_COLON;
    table[S_COLON][C_COLON] = S_VALUE;
    table[S_AFTER_IN_OBJ][C_COMMA] = S_KEY;
    table[S_AFTER_IN_OBJ][C_CLOSE_OBJ] = S_AFTER_IN_OBJ; /* fixed up */
    table[S_AFTER_IN_ARR][C_COMMA] = S_VALUE;
    table[S_AFTER_IN_ARR][C_CLOSE_ARR] = S_AFTER_IN_OBJ; /* fixed up */
}

/* The marks of text[0, n): each structural byte outside strings, each
 * string's opening quote and each scalar's first byte, as classes.
 * Returns how many (cls holds n entries at most). */
static size_t mark(const unsigned char *text, size_t n, unsigned char *cls)
{
    size_t m = 0, i;
    int in_string = 0, after_scalar = 0;
    for (i = 0; i < n; i++) {
        unsigned c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
            continue;
        }
        switch (c) {
        case '{': cls[m++] = C_OPEN_OBJ; break;
        case '}': cls[m++] = C_CLOSE_OBJ; break;
        case '[': cls[m++] = C_OPEN_ARR; break;
        case ']': cls[m++] = C_CLOSE_ARR; break;
        case ':': cls[m++] = C_COLON; break;
        case ',': cls[m++] = C_COMMA; break;
        case '"': cls[m++] = C_STRING; in_string = 1; break;
        case ' ': case '\n': case '\r': case '\t': break;
        default:
            if (!after_scalar)
                cls[m++] = C_SCALAR;
            after_scalar = 1;
            continue;
        }
        after_scalar = 0;
    }
    return m;
}

/* The walk: one table step a mark, the bracket stack kept without
 * branches.  Returns 1 when the marks are a JSON document's. */
static int walk(const unsigned char *cls, size_t m)
{
    /* stack[d]: 1 for an object at depth d; depth 0 is the document. */
    static unsigned char stack[1 << 16];
    unsigned state = S_VALUE, d = 0, bad = 0, after;
    size_t i;
    for (i = 0; i < m; i++) {
        unsigned c = cls[i];
        unsigned open = (c == C_OPEN_OBJ) | (c == C_OPEN_ARR);
        unsigned close = (c == C_CLOSE_OBJ) | (c == C_CLOSE_ARR);
        unsigned next = table[state][c];
        /* A close must match its open. */
        bad |= close & (stack[d] != (c == C_CLOSE_OBJ));
        d += open;
        d -= close;
        bad |= d >> 15; /* deeper than the stack, or below the document */
        d &= 0x7fff;
        stack[d] = open ? (c == C_OPEN_OBJ) : stack[d];
        /* After a value or a close: which container are we in now?
         * (Selects, not branches: S_AFTER_IN_ARR - 1 is S_AFTER_IN_OBJ.) */
        after = d == 0 ? S_DONE : S_AFTER_IN_ARR - stack[d];
        state = next == S_AFTER_IN_OBJ ? after : next;
    }
    return !bad && state == S_DONE && d == 0;
}

/* The chain alone: one table step a mark and nothing else (no stack, no
 * context), the least any walk with a dependent lookup a mark can cost.
 * Returns the last state, so the loop is not dropped. */
static unsigned chain(const unsigned char *cls, size_t m)
{
    unsigned state = S_VALUE;
    size_t i;
    for (i = 0; i < m; i++)
        state = table[state][cls[i]];
    return state;
}

/* One document per part of about part bytes of the pack's token lines:
 * the pack's own opening line, its lines, and the tokens array's close. */
typedef struct part {
    char *text;
    size_t len;
} part;

/* Cuts json (one token a line) into parts; returns how many. */
static size_t cut_parts(const char *json, size_t len, size_t part_bytes,
                        part **out)
{
    const char *first = memchr(json, '\n', len), *p, *end = json + len;
    size_t n = 0, cap = 0, head;
    part *parts = NULL;
    if (!first)
        bench_die("the pack is not one token a line");
    head = (size_t)(first - json) + 1;
    for (p = first + 1; p < end;) {
        const char *q = p + part_bytes < end ? p + part_bytes : end;
        size_t body, tlen;
        char *text;
        while (q < end && *q != '\n')
            q++;
        body = (size_t)(q - p);
        /* The last line closes the array and the root itself. */
        while (body && (p[body - 1] == '\n' || p[body - 1] == ','))
            body--;
        text = malloc(head + body + 3);
        if (!text)
            bench_die("out of memory");
        memcpy(text, json, head);
        memcpy(text + head, p, body);
        tlen = head + body;
        if (!(body >= 2 && p[body - 2] == ']' && p[body - 1] == '}')) {
            memcpy(text + tlen, "]}", 2);
            tlen += 2;
        }
        text[tlen] = '\0';
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            parts = realloc(parts, cap * sizeof *parts);
            if (!parts)
                bench_die("out of memory");
        }
        parts[n].text = text;
        parts[n].len = tlen;
        n++;
        p = q < end ? q + 1 : end;
    }
    *out = parts;
    return n;
}

/* Scans one part with the pack's reader, one thread; dies on an error. */
static void scan_part(const char *text, size_t len, const sdui_limits *lim)
{
    sdui_scan_result res;
    sdui_error err;
    memset(&res, 0, sizeof res);
    sdui_error_clear(&err);
    if (sdui__scan_pack(text, len, lim, &res, &err) != SDUI_OK)
        bench_die("a part does not scan: %s", err.message);
    sdui__scan_result_free(&res);
}

/* Reads a whole file; *len gets its size. */
static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    bench_text t = {0};
    char buf[1 << 16];
    size_t got;
    if (!f)
        bench_die("cannot open %s", path);
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        bench_put(&t, buf, got);
    fclose(f);
    *len = t.len;
    return (unsigned char *)t.s;
}

/* Runs the measures; see the top of the file. */
int main(int argc, char **argv)
{
    size_t gz_len, json_len, part_bytes, runs, nparts, total = 0, i, r, m;
    unsigned char *gz, *cls;
    char *json, *dst;
    unsigned members;
    sdui_limits lim;
    sdui_error err;
    part *parts;
    double *whole, *interleaved, *walks, *scans, *chains;
    unsigned sink = 0;

    if (argc < 2)
        bench_die("usage: bench-scan-bounds PACK.gz [PART_BYTES [RUNS]]");
    part_bytes = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 262144;
    runs = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 31;
    if (part_bytes < 1024 || runs == 0)
        bench_die("PART_BYTES must be 1024 or more and RUNS 1 or more");
    gz = read_file(argv[1], &gz_len);
    sdui_error_clear(&err);
    if (sdui_gzip_decode(gz, gz_len, (size_t)1 << 30, &json, &json_len,
                         &members, &err) != SDUI_OK)
        bench_die("%s: %s", argv[1], err.message);
    sdui_limits_default(&lim);
    lim.parallel_scan_bytes = SIZE_MAX; /* one thread */
    lim.max_tokens = SIZE_MAX;

    nparts = cut_parts(json, json_len, part_bytes, &parts);
    for (i = 0; i < nparts; i++)
        total += parts[i].len;
    dst = malloc(total);
    cls = calloc(json_len ? json_len : 1, 1);
    whole = malloc(runs * sizeof *whole);
    interleaved = malloc(runs * sizeof *interleaved);
    walks = malloc(runs * sizeof *walks);
    scans = malloc(runs * sizeof *scans);
    chains = malloc(runs * sizeof *chains);
    if (!dst || !cls || !whole || !interleaved || !walks || !scans ||
        !chains)
        bench_die("out of memory");

    build_table();
    m = mark((const unsigned char *)json, json_len, cls);
    if (!walk(cls, m))
        bench_die("the walk refused the pack's marks");
    /* It must refuse a broken order too: a member without its colon. */
    for (i = 0; i < m && cls[i] != C_COLON; i++)
        ;
    if (i < m) {
        cls[i] = C_COMMA;
        if (walk(cls, m))
            bench_die("the walk took a member without its colon");
        cls[i] = C_COLON;
    }

    for (r = 0; r < runs; r++) {
        double t0, t1;
        size_t off;
        /* Copy everything, then scan everything. */
        t0 = bench_now();
        for (i = 0, off = 0; i < nparts; off += parts[i].len, i++)
            memcpy(dst + off, parts[i].text, parts[i].len);
        for (i = 0, off = 0; i < nparts; off += parts[i].len, i++)
            scan_part(dst + off, parts[i].len, &lim);
        t1 = bench_now();
        whole[r] = (t1 - t0) * 1e3;
        /* Copy each part just before it is scanned. */
        t0 = bench_now();
        for (i = 0, off = 0; i < nparts; off += parts[i].len, i++) {
            memcpy(dst + off, parts[i].text, parts[i].len);
            scan_part(dst + off, parts[i].len, &lim);
        }
        t1 = bench_now();
        interleaved[r] = (t1 - t0) * 1e3;
        /* The whole document's pack scan, and the walk over its marks. */
        t0 = bench_now();
        scan_part(json, json_len, &lim);
        t1 = bench_now();
        scans[r] = (t1 - t0) * 1e3;
        t0 = bench_now();
        if (!walk(cls, m))
            bench_die("the walk changed its mind");
        t1 = bench_now();
        walks[r] = (t1 - t0) * 1e3;
        t0 = bench_now();
        sink += chain(cls, m);
        t1 = bench_now();
        chains[r] = (t1 - t0) * 1e3;
    }
    printf("pack: %zu bytes of JSON in %u gzip members; %zu runs each, "
           "one thread, medians\n", json_len, members, runs);
    printf("1. %zu parts of about %zu bytes (copy + pack scan):\n", nparts,
           part_bytes);
    printf("   all copied, then all scanned     %8.3f ms\n",
           bench_median(whole, runs));
    printf("   each copied just before its scan %8.3f ms\n",
           bench_median(interleaved, runs));
    printf("2. the whole document:\n");
    printf("   pack scan (csrc/scan.c)          %8.3f ms\n",
           bench_median(scans, runs));
    printf("   grammar walk over %zu marks   %8.3f ms (%.2f ns a mark, "
           "%.2f bytes a mark)\n", m, bench_median(walks, runs),
           bench_median(walks, runs) * 1e6 / (double)m,
           (double)json_len / (double)m);
    printf("   one table step a mark, no more   %8.3f ms (%.2f ns a mark; "
           "state %u)\n", bench_median(chains, runs),
           bench_median(chains, runs) * 1e6 / (double)m, sink % NSTATE);
    for (i = 0; i < nparts; i++)
        free(parts[i].text);
    free(parts);
    free(dst);
    free(cls);
    free(whole);
    free(interleaved);
    free(walks);
    free(scans);
    free(chains);
    free(gz);
    sdui_free(json);
    return 0;
}
