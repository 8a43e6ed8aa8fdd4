/*
 * json_doc.c - times the core's documents (json_doc.h, json_build.h):
 * parsing text into a value tree, building the same tree value by value,
 * reading it back whole, and looking members up by name, with jansson's
 * json_loadb (the parser the core's documents were once made of) as the
 * peer.  Not part of `make`; built by hand against the core's static
 * library:
 *
 *     make -s build/libsdui.a
 *     cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude \
 *        bench/c/json_doc.c build/libsdui.a \
 *        -ljansson -ldeflate -lsqlite3 -lpthread -lm -o build/bench-doc
 *     build/bench-doc [RUNS]
 *
 * The documents, generated here (SplitMix64 from a fixed seed):
 *   - header: a small object (a signed token's header: 6 members), the
 *     set parsed 1,000 times a measure;
 *   - screen: nested arrays and objects of about 20 KB (a screen's
 *     payload: sections of rows of text, numbers, decimals, booleans);
 *   - store: one object of 10,000 members, each an object of 4 (a file
 *     scope's state), about 700 KB.
 * For each: parse (sdui_json_doc_parse), jansson (json_loadb), build (the
 * builder fed from a walk of the parsed tree), walk (every value read
 * through the accessors); for store also get (sdui_value_get of each of
 * the 10,000 names).  Each measure runs RUNS times (default 41), the
 * measures taking turns; the median and the fastest are printed in
 * milliseconds.  Only the public API is used, so the same file builds
 * against any version of the core (a before/after on one machine).
 */
#define BENCH_NAME "bench-doc"
#include "bench.h"

#include <jansson.h>

#include "sdui/sdui.h"
#include "../../Tests/C/value_feed.h"

/* The generator's state (SplitMix64, bench_splitmix). */
static uint64_t state = 0x5D0C;

/* A random number below n. */
static int below(int n) { return (int)(bench_splitmix(&state) % (uint64_t)n); }

static const char *const words[] = {"Continue", "Your plan", "Settings",
                                    "caf\\u00e9", "Order #", "Total",
                                    "line\\nbreak", "Checkout", "Save"};

/* A string of a few words. */
static void words_(bench_text *t)
{
    int n = 1 + below(4);
    bench_putf(t, "\"");
    for (int i = 0; i < n; i++)
        bench_putf(t, "%s%s", i ? " " : "", words[below(9)]);
    bench_putf(t, "\"");
}

/* The header document. */
static void gen_header(bench_text *t)
{
    bench_putf(t,
               "{\"alg\":\"HS256\",\"typ\":\"JWT\",\"kid\":\"key-%d\","
               "\"iat\":%d,\"exp\":%d,\"scope\":[\"read\",\"write\"]}",
               below(100), 1700000000 + below(1000000),
               1800000000 + below(1000000));
}

/* A node of the screen document, depth levels at most. */
static void gen_node(bench_text *t, int depth)
{
    int n = 2 + below(4);
    bench_putf(t,
               "{\"type\":\"%s\",\"id\":\"n%d\",\"visible\":%s,"
               "\"padding\":%d.%d",
               depth ? "stack" : "text", below(100000),
               below(5) ? "true" : "false", below(32), below(10));
    if (depth == 0) {
        bench_putf(t, ",\"text\":");
        words_(t);
        bench_putf(t, ",\"size\":%d,\"weight\":null}", 10 + below(20));
        return;
    }
    bench_putf(t, ",\"children\":[");
    for (int i = 0; i < n; i++) {
        if (i)
            bench_putf(t, ",");
        gen_node(t, depth - 1);
    }
    bench_putf(t, "]}");
}

/* The screen document: sections until about 20 KB. */
static void gen_screen(bench_text *t)
{
    bench_putf(t, "{\"screen\":\"home\",\"version\":3,\"sections\":[");
    for (int i = 0; t->len < 20000; i++) {
        if (i)
            bench_putf(t, ",");
        gen_node(t, 3);
    }
    bench_putf(t, "]}");
}

/* The store document: 10,000 members. */
static void gen_store(bench_text *t)
{
    bench_putf(t, "{");
    for (int i = 0; i < 10000; i++)
        bench_putf(t,
                   "%s\"key%05d\":{\"n\":%d,\"s\":\"value %d\",\"f\":%d.%02d,"
                   "\"on\":%s}",
                   i ? "," : "", i, below(1000000), below(1000), below(1000),
                   below(100), below(2) ? "true" : "false");
    bench_putf(t, "}");
}

/* Reads every value of the tree; returns a sum so nothing is optimised
 * away. */
static uint64_t walk(const sdui_value *v)
{
    uint64_t sum = 0;
    size_t n, i, len;
    const void *it;
    switch (sdui_value_type_of(v)) {
    case SDUI_VALUE_BOOL: return (uint64_t)sdui_value_bool(v);
    case SDUI_VALUE_INT: return (uint64_t)sdui_value_int(v);
    case SDUI_VALUE_REAL: return (uint64_t)(sdui_value_real(v) * 4);
    case SDUI_VALUE_STRING:
        (void)sdui_value_string(v, &len);
        return len;
    case SDUI_VALUE_ARRAY:
        n = sdui_value_count(v);
        for (i = 0; i < n; i++)
            sum += walk(sdui_value_at(v, i));
        return sum;
    case SDUI_VALUE_OBJECT:
        for (it = sdui_value_next(v, NULL); it; it = sdui_value_next(v, it)) {
            (void)sdui_value_iter_key(it, &len);
            sum += len + walk(sdui_value_iter_value(it));
        }
        return sum;
    default: return 1;
    }
}

/* The measures. */
enum { M_PARSE, M_JANSSON, M_BUILD, M_WALK, M_GET, M_COUNT };
static const char *const names[M_COUNT] = {"parse", "jansson", "build",
                                           "walk", "get"};

/* One document under test. */
typedef struct doc {
    const char *name;
    bench_text t;
    int reps;                /* parses per measure */
    sdui_json_doc *parsed;   /* for build, walk and get */
} doc;

static volatile uint64_t sink;

/* Runs measure m once on d; returns seconds. */
static double run(doc *d, int m)
{
    double t0 = bench_now();
    sdui_error err;
    for (int r = 0; r < d->reps; r++) {
        switch (m) {
        case M_PARSE: {
            sdui_json_doc *x = NULL;
            if (sdui_json_doc_parse(d->t.s, d->t.len, 128, &x, &err) != SDUI_OK)
                bench_die("%s", err.message);
            sdui_json_doc_free(x);
            break;
        }
        case M_JANSSON: {
            json_error_t je;
            json_t *j = json_loadb(d->t.s, d->t.len, 0, &je);
            if (!j)
                bench_die("%s", je.text);
            json_decref(j);
            break;
        }
        case M_BUILD: {
            sdui_json_builder *b = NULL;
            sdui_json_doc *x = NULL;
            if (sdui_json_builder_open(&b, &err) != SDUI_OK)
                bench_die("%s", err.message);
            value_feed(b, sdui_json_doc_root(d->parsed));
            if (sdui_json_builder_finish(b, &x, &err) != SDUI_OK)
                bench_die("%s", err.message);
            sdui_json_builder_free(b);
            sdui_json_doc_free(x);
            break;
        }
        case M_WALK:
            sink += walk(sdui_json_doc_root(d->parsed));
            break;
        case M_GET: {
            const sdui_value *root = sdui_json_doc_root(d->parsed);
            char key[16];
            for (int i = 0; i < 10000; i++) {
                snprintf(key, sizeof key, "key%05d", i);
                if (!sdui_value_get(root, key))
                    bench_die("a member is missing");
            }
            break;
        }
        }
    }
    return bench_now() - t0;
}

/* Generates the documents, runs every measure RUNS times in turn on
 * each, prints the medians and the fastest. */
int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 41;
    doc docs[3] = {{"header", {0}, 1000, NULL},
                   {"screen", {0}, 10, NULL},
                   {"store", {0}, 1, NULL}};
    sdui_error err;
    if (runs < 1)
        bench_die("RUNS must be at least 1");
    gen_header(&docs[0].t);
    gen_screen(&docs[1].t);
    gen_store(&docs[2].t);
    for (int i = 0; i < 3; i++) {
        doc *d = &docs[i];
        double *times = malloc((size_t)runs * M_COUNT * sizeof *times);
        int measures = i == 2 ? M_COUNT : M_GET;
        if (!times)
            bench_die("out of memory");
        if (sdui_json_doc_parse(d->t.s, d->t.len, 128, &d->parsed, &err) != SDUI_OK)
            bench_die("%s", err.message);
        for (int r = 0; r < runs; r++)
            for (int m = 0; m < measures; m++)
                times[m * runs + r] = run(d, m);
        printf("%s: %zu bytes, x%d a run, %d runs\n", d->name, d->t.len,
               d->reps, runs);
        for (int m = 0; m < measures; m++) {
            qsort(times + m * runs, (size_t)runs, sizeof *times,
                  bench_cmp_double);
            printf("  %-8s median %9.3f ms  fastest %9.3f ms\n", names[m],
                   times[m * runs + runs / 2] * 1e3, times[m * runs] * 1e3);
        }
        free(times);
        sdui_json_doc_free(d->parsed);
        free(d->t.s);
    }
    return 0;
}
