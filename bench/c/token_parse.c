/*
 * token_parse.c - times making tokens from their JSON text: the first
 * screen's 20 tokens of a generated budget pack, parsed with
 * sdui_token_parse, against the old path's two stages (the validating scan,
 * then jansson's json_loadb building its tree), which the token parse
 * replaced.  Not part of `make`; built by hand against the core's static
 * library:
 *
 *     make -s build/libsdui.a
 *     cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude \
 *        bench/c/token_parse.c build/libsdui.a \
 *        -ljansson -ldeflate -lsqlite3 -lpthread -lm -o build/bench-token
 *     build/bench-token [RUNS [TOKENS]]
 *
 * The tokens: a C port of the Swift benchmark's PackGenerator (SplitMix64
 * from seed 0x5D01, nested Columns and Rows of Text, AsyncImage and Spacer
 * with colours, spacing, copy and CDN URLs); a pack's tokens are made in
 * order from one generator, so the first TOKENS (default 20, the first
 * screen) are the same whatever the pack's budget.  Each measure parses
 * all of them (and frees what it made) RUNS times (default 201), the
 * measures taking turns; the median and the fastest are printed in
 * milliseconds for the whole set.  The file builds against any version of
 * the core, so the same binary built against a library from before the
 * token tree (commit f2d1a87) times the old sdui_token_parse itself.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "sdui/sdui.h"

/* Stops with a message. */
static void die(const char *what)
{
    fprintf(stderr, "bench-token: %s\n", what);
    exit(1);
}

/* Monotonic time in seconds. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- The generator (PackGenerator.swift, same draws in the same order). */

static uint64_t state;

/* SplitMix64. */
static uint64_t next(void)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A number in [0, n). */
static int rint_(int n) { return (int)(next() % (uint64_t)n); }

/* 1 with the given chance in percent. */
static int chance(int percent) { return rint_(100) < percent; }

#define PICK(a) ((a)[rint_((int)(sizeof(a) / sizeof *(a)))])

static const char *const words[] = {
    "team", "match", "score", "season", "player", "goal", "league",
    "fixture", "ticket", "stadium", "home", "away", "offer", "save", "today",
    "members", "exclusive", "deal", "cart", "checkout", "order", "total",
    "shipping", "delivery", "payment", "secure", "account", "profile",
    "settings", "privacy", "welcome", "start", "plan", "goal", "progress",
    "daily", "streak", "reward", "badge", "level", "unlock", "premium",
    "trial", "cancel", "continue", "back", "next", "skip", "done", "learn",
    "more", "about", "help", "support", "contact", "news", "update", "story",
    "highlight", "video", "photo", "gallery", "share", "follow", "like",
    "comment", "live"};
static const char *const screens[] = {
    "home", "team", "match", "shop", "cart", "checkout", "login",
    "profile", "onboarding", "settings", "news", "video", "tickets"};
static const char *const kinds[] = {
    "banner", "card", "list", "row", "header", "footer", "hero", "tile",
    "carousel", "cta", "badge", "summary", "detail", "section", "promo"};
static const char *const spacing[] = {"@spacing.xs", "@spacing.sm",
                                      "@spacing.md", "@spacing.lg",
                                      "@spacing.xl"};
static const char *const colors[] = {"@color.primary", "@color.secondary",
                                     "@color.surface", "@color.onSurface",
                                     "@color.accent", "@color.error"};

/* A growing text. */
typedef struct text {
    char *p;
    size_t len, cap;
} text;

/* Appends formatted text. */
static void putf(text *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    for (;;) {
        size_t room = t->cap - t->len;
        va_start(ap, fmt);
        n = vsnprintf(t->p ? t->p + t->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            die("format");
        if ((size_t)n < room)
            break;
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p)
            die("out of memory");
    }
    t->len += (size_t)n;
}

/* A colour: a theme name or #RRGGBB. */
static void color(text *t)
{
    if (chance(50))
        putf(t, "%s", PICK(colors));
    else
        putf(t, "#%06X", rint_(0xFFFFFF));
}

/* n words joined by spaces. */
static void words_(text *t, int n)
{
    int i;
    for (i = 0; i < n; i++)
        putf(t, "%s%s", i ? " " : "", PICK(words));
}

/* A props object for primitive, with children for containers. */
static void node(text *t, const char *primitive, int depth)
{
    putf(t, "{");
    if (!strcmp(primitive, "Column") || !strcmp(primitive, "Row")) {
        int n, i;
        if (chance(50))
            putf(t, "\"padding\":\"%s\"", PICK(spacing));
        else
            putf(t, "\"padding\":%d", 4 * rint_(8));
        if (chance(60)) {
            putf(t, ",\"background\":\"");
            color(t);
            putf(t, "\"");
        }
        {
            static const char *const al[] = {"START", "CENTER", "END",
                                             "STRETCH"};
            putf(t, ",\"alignment\":\"%s\"", PICK(al));
        }
        if (chance(40))
            putf(t, ",\"cornerRadius\":%d", 2 * rint_(9));
        n = depth >= 2 ? 1 + rint_(2) : 2 + rint_(4);
        putf(t, ",\"children\":[");
        for (i = 0; i < n; i++) {
            static const char *const leaves[] = {"Text", "Text", "Text",
                                                 "AsyncImage", "Spacer"};
            const char *p;
            int pv;
            if (depth < 3 && chance(25))
                p = chance(50) ? "Column" : "Row";
            else
                p = PICK(leaves);
            pv = !strcmp(p, "Column")       ? 1 + rint_(3)
                 : !strcmp(p, "Row")        ? 1 + rint_(2)
                 : !strcmp(p, "Text")       ? 1 + rint_(4)
                 : !strcmp(p, "AsyncImage") ? 1 + rint_(2)
                                            : 1;
            putf(t, "%s{\"primitive\":\"%s\",", i ? "," : "", p);
            if (chance(60))
                putf(t, "\"primitiveVersion\":%d,", pv);
            putf(t, "\"props\":");
            node(t, p, depth + 1);
            putf(t, "}");
        }
        putf(t, "]");
    } else if (!strcmp(primitive, "Text")) {
        static const char *const styles[] = {"title", "headline", "body",
                                             "caption", "label"};
        putf(t, "\"text\":\"");
        if (chance(30)) {
            const char *a = PICK(words);
            putf(t, "{{%s.%s}}", a, PICK(words));
        } else {
            words_(t, 2 + rint_(9));
        }
        putf(t, "\",\"style\":\"%s\",\"color\":\"", PICK(styles));
        color(t);
        putf(t, "\"");
        if (chance(30))
            putf(t, ",\"maxLines\":%d", 1 + rint_(3));
    } else if (!strcmp(primitive, "AsyncImage")) {
        static const char *const ratios[] = {"1.0", "1.5", "1.777", "0.75"};
        static const char *const modes[] = {"fill", "fit"};
        unsigned long long hash = next();
        putf(t, "\"url\":\"https://cdn.sdui.example.com/img/%s/%016llx.webp\"",
             PICK(screens), hash);
        putf(t, ",\"aspectRatio\":%s", PICK(ratios));
        putf(t, ",\"contentMode\":\"%s\"", PICK(modes));
        if (chance(50)) {
            putf(t, ",\"accessibilityLabel\":\"");
            words_(t, 3);
            putf(t, "\"");
        }
    } else {
        putf(t, "\"size\":%d", 4 * (1 + rint_(6)));
    }
    putf(t, "}");
}

/* One token's compact JSON. */
static char *token(int index, size_t *len)
{
    text t = {NULL, 0, 0}, props = {NULL, 0, 0};
    const char *screen = PICK(screens), *kind = PICK(kinds);
    const char *root = chance(70) ? "Column" : "Row";
    int version, pv;
    node(&props, root, 0);
    version = 1 + rint_(6);
    pv = !strcmp(root, "Column") ? 1 + rint_(3) : 1 + rint_(2);
    putf(&t,
         "{\"id\":\"%s_%s_%d\",\"version\":%d,\"primitive\":\"%s\","
         "\"primitiveVersion\":%d,\"props\":%s}",
         screen, kind, index, version, root, pv, props.p);
    free(props.p);
    *len = t.len;
    return t.p;
}

/* ---- The measures. */

static char *docs[1000];
static size_t lens[1000];
static int ndocs;

/* The token parse: validating scan and tree, schema check, release. */
static void run_token_parse(void)
{
    int i;
    for (i = 0; i < ndocs; i++) {
        sdui_token *tok = NULL;
        sdui_error err;
        if (sdui_token_parse(docs[i], lens[i], NULL, &tok, &err) != SDUI_OK)
            die(err.message);
        sdui_token_release(tok);
    }
}

/* The old path's two stages: the validating scan, then jansson's tree. */
static void run_old_path(void)
{
    int i;
    for (i = 0; i < ndocs; i++) {
        sdui_error err;
        json_error_t jerr;
        json_t *root;
        if (sdui_json_validate(docs[i], lens[i], SDUI_DEFAULT_MAX_DEPTH,
                               &err) != SDUI_OK)
            die(err.message);
        root = json_loadb(docs[i], lens[i],
                          JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL |
                              JSON_DECODE_ANY,
                          &jerr);
        if (!root)
            die(jerr.text);
        json_decref(root);
    }
}

/* The validating scan alone. */
static void run_scan(void)
{
    int i;
    for (i = 0; i < ndocs; i++) {
        sdui_error err;
        if (sdui_json_validate(docs[i], lens[i], SDUI_DEFAULT_MAX_DEPTH,
                               &err) != SDUI_OK)
            die(err.message);
    }
}

/* jansson's json_loadb alone. */
static void run_jansson(void)
{
    int i;
    for (i = 0; i < ndocs; i++) {
        json_error_t jerr;
        json_t *root = json_loadb(docs[i], lens[i],
                                  JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL |
                                      JSON_DECODE_ANY,
                                  &jerr);
        if (!root)
            die(jerr.text);
        json_decref(root);
    }
}

/* Ascending doubles, for qsort. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Times the measures in turns; prints medians and minima. */
int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } measures[] = {
        {"sdui_token_parse (scan + tree + schema)", run_token_parse},
        {"old path: scan + json_loadb", run_old_path},
        {"  scan alone", run_scan},
        {"  json_loadb alone", run_jansson},
    };
    enum { M = sizeof measures / sizeof *measures };
    int runs = argc > 1 ? atoi(argv[1]) : 201;
    int count = argc > 2 ? atoi(argv[2]) : 20, r, m, i;
    double *times[M];
    size_t bytes = 0;
    if (runs < 1 || count < 1 || count > 1000)
        die("usage: bench-token [RUNS [TOKENS (1..1000)]]");
    state = 0x5D01;
    for (i = 0; i < count; i++) {
        docs[i] = token(i, &lens[i]);
        bytes += lens[i];
    }
    ndocs = count;
    for (m = 0; m < M; m++) {
        times[m] = malloc(sizeof(double) * (size_t)runs);
        if (!times[m])
            die("out of memory");
        measures[m].run(); /* warm up */
    }
    for (r = 0; r < runs; r++)
        for (m = 0; m < M; m++) {
            double t0 = now();
            measures[m].run();
            times[m][r] = now() - t0;
        }
    printf("%d tokens, %zu bytes of JSON (%zu on average), %d runs\n", count,
           bytes, bytes / (size_t)count, runs);
    for (m = 0; m < M; m++) {
        qsort(times[m], (size_t)runs, sizeof(double), by_value);
        printf("%-42s median %8.4f ms   fastest %8.4f ms\n", measures[m].name,
               times[m][runs / 2] * 1e3, times[m][0] * 1e3);
        free(times[m]);
    }
    for (i = 0; i < count; i++)
        free(docs[i]);
    return 0;
}
