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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "sdui/sdui.h"
#include "../../Tests/C/value_feed.h"

/* Stops with a message. */
static void die(const char *what)
{
    fprintf(stderr, "bench-doc: %s\n", what);
    exit(1);
}

/* Monotonic time in seconds. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t state = 0x5D0C;

/* SplitMix64. */
static uint64_t next(void)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A random number below n. */
static int below(int n) { return (int)(next() % (uint64_t)n); }

/* A growing text. */
typedef struct text {
    char *p;
    size_t len, cap;
} text;

/* Appends printf-formatted text. */
static void putf(text *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            die("vsnprintf");
        if ((size_t)n < t->cap - t->len)
            break;
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p)
            die("out of memory");
    }
    t->len += (size_t)n;
}

static const char *const words[] = {"Continue", "Your plan", "Settings",
                                    "caf\\u00e9", "Order #", "Total",
                                    "line\\nbreak", "Checkout", "Save"};

/* A string of a few words. */
static void words_(text *t)
{
    int n = 1 + below(4);
    putf(t, "\"");
    for (int i = 0; i < n; i++)
        putf(t, "%s%s", i ? " " : "", words[below(9)]);
    putf(t, "\"");
}

/* The header document. */
static void gen_header(text *t)
{
    putf(t, "{\"alg\":\"HS256\",\"typ\":\"JWT\",\"kid\":\"key-%d\",\"iat\":%d,"
            "\"exp\":%d,\"scope\":[\"read\",\"write\"]}",
         below(100), 1700000000 + below(1000000), 1800000000 + below(1000000));
}

/* A node of the screen document, depth levels at most. */
static void gen_node(text *t, int depth)
{
    int n = 2 + below(4);
    putf(t, "{\"type\":\"%s\",\"id\":\"n%d\",\"visible\":%s,\"padding\":%d.%d",
         depth ? "stack" : "text", below(100000), below(5) ? "true" : "false",
         below(32), below(10));
    if (depth == 0) {
        putf(t, ",\"text\":");
        words_(t);
        putf(t, ",\"size\":%d,\"weight\":null}", 10 + below(20));
        return;
    }
    putf(t, ",\"children\":[");
    for (int i = 0; i < n; i++) {
        if (i)
            putf(t, ",");
        gen_node(t, depth - 1);
    }
    putf(t, "]}");
}

/* The screen document: sections until about 20 KB. */
static void gen_screen(text *t)
{
    putf(t, "{\"screen\":\"home\",\"version\":3,\"sections\":[");
    for (int i = 0; t->len < 20000; i++) {
        if (i)
            putf(t, ",");
        gen_node(t, 3);
    }
    putf(t, "]}");
}

/* The store document: 10,000 members. */
static void gen_store(text *t)
{
    putf(t, "{");
    for (int i = 0; i < 10000; i++)
        putf(t, "%s\"key%05d\":{\"n\":%d,\"s\":\"value %d\",\"f\":%d.%02d,"
                "\"on\":%s}",
             i ? "," : "", i, below(1000000), below(1000), below(1000),
             below(100), below(2) ? "true" : "false");
    putf(t, "}");
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
    text t;
    int reps;                /* parses per measure */
    sdui_json_doc *parsed;   /* for build, walk and get */
} doc;

static volatile uint64_t sink;

/* Runs measure m once on d; returns seconds. */
static double run(doc *d, int m)
{
    double t0 = now();
    sdui_error err;
    for (int r = 0; r < d->reps; r++) {
        switch (m) {
        case M_PARSE: {
            sdui_json_doc *x = NULL;
            if (sdui_json_doc_parse(d->t.p, d->t.len, 128, &x, &err) != SDUI_OK)
                die(err.message);
            sdui_json_doc_free(x);
            break;
        }
        case M_JANSSON: {
            json_error_t je;
            json_t *j = json_loadb(d->t.p, d->t.len, 0, &je);
            if (!j)
                die(je.text);
            json_decref(j);
            break;
        }
        case M_BUILD: {
            sdui_json_builder *b = NULL;
            sdui_json_doc *x = NULL;
            if (sdui_json_builder_open(&b, &err) != SDUI_OK)
                die(err.message);
            value_feed(b, sdui_json_doc_root(d->parsed));
            if (sdui_json_builder_finish(b, &x, &err) != SDUI_OK)
                die(err.message);
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
                    die("a member is missing");
            }
            break;
        }
        }
    }
    return now() - t0;
}

/* Sorts doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 41;
    doc docs[3] = {{"header", {0}, 1000, NULL},
                   {"screen", {0}, 10, NULL},
                   {"store", {0}, 1, NULL}};
    sdui_error err;
    if (runs < 1)
        die("RUNS must be at least 1");
    gen_header(&docs[0].t);
    gen_screen(&docs[1].t);
    gen_store(&docs[2].t);
    for (int i = 0; i < 3; i++) {
        doc *d = &docs[i];
        double *times = malloc((size_t)runs * M_COUNT * sizeof *times);
        int measures = i == 2 ? M_COUNT : M_GET;
        if (!times)
            die("out of memory");
        if (sdui_json_doc_parse(d->t.p, d->t.len, 128, &d->parsed, &err) != SDUI_OK)
            die(err.message);
        for (int r = 0; r < runs; r++)
            for (int m = 0; m < measures; m++)
                times[m * runs + r] = run(d, m);
        printf("%s: %zu bytes, x%d a run, %d runs\n", d->name, d->t.len,
               d->reps, runs);
        for (int m = 0; m < measures; m++) {
            qsort(times + m * runs, (size_t)runs, sizeof *times, cmp_double);
            printf("  %-8s median %9.3f ms  fastest %9.3f ms\n", names[m],
                   times[m * runs + runs / 2] * 1e3, times[m * runs] * 1e3);
        }
        free(times);
        sdui_json_doc_free(d->parsed);
        free(d->t.p);
    }
    return 0;
}
