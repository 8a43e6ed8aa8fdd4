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
#define BENCH_NAME "bench-token"
#include "bench.h"

#include <jansson.h>

#include "sdui/sdui.h"

/* ---- The generator (PackGenerator.swift, same draws in the same order). */

/* The generator's state (SplitMix64, bench_splitmix); main seeds it. */
static uint64_t state;

/* A number in [0, n). */
static int rint_(int n) { return (int)(bench_splitmix(&state) % (uint64_t)n); }

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

/* A colour: a theme name or #RRGGBB. */
static void color(bench_text *t)
{
    if (chance(50))
        bench_putf(t, "%s", PICK(colors));
    else
        bench_putf(t, "#%06X", rint_(0xFFFFFF));
}

/* n words joined by spaces. */
static void words_(bench_text *t, int n)
{
    int i;
    for (i = 0; i < n; i++)
        bench_putf(t, "%s%s", i ? " " : "", PICK(words));
}

/* A props object for primitive, with children for containers. */
static void node(bench_text *t, const char *primitive, int depth)
{
    bench_putf(t, "{");
    if (!strcmp(primitive, "Column") || !strcmp(primitive, "Row")) {
        int n, i;
        if (chance(50))
            bench_putf(t, "\"padding\":\"%s\"", PICK(spacing));
        else
            bench_putf(t, "\"padding\":%d", 4 * rint_(8));
        if (chance(60)) {
            bench_putf(t, ",\"background\":\"");
            color(t);
            bench_putf(t, "\"");
        }
        {
            static const char *const al[] = {"START", "CENTER", "END",
                                             "STRETCH"};
            bench_putf(t, ",\"alignment\":\"%s\"", PICK(al));
        }
        if (chance(40))
            bench_putf(t, ",\"cornerRadius\":%d", 2 * rint_(9));
        n = depth >= 2 ? 1 + rint_(2) : 2 + rint_(4);
        bench_putf(t, ",\"children\":[");
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
            bench_putf(t, "%s{\"primitive\":\"%s\",", i ? "," : "", p);
            if (chance(60))
                bench_putf(t, "\"primitiveVersion\":%d,", pv);
            bench_putf(t, "\"props\":");
            node(t, p, depth + 1);
            bench_putf(t, "}");
        }
        bench_putf(t, "]");
    } else if (!strcmp(primitive, "Text")) {
        static const char *const styles[] = {"title", "headline", "body",
                                             "caption", "label"};
        bench_putf(t, "\"text\":\"");
        if (chance(30)) {
            const char *a = PICK(words);
            bench_putf(t, "{{%s.%s}}", a, PICK(words));
        } else {
            words_(t, 2 + rint_(9));
        }
        bench_putf(t, "\",\"style\":\"%s\",\"color\":\"", PICK(styles));
        color(t);
        bench_putf(t, "\"");
        if (chance(30))
            bench_putf(t, ",\"maxLines\":%d", 1 + rint_(3));
    } else if (!strcmp(primitive, "AsyncImage")) {
        static const char *const ratios[] = {"1.0", "1.5", "1.777", "0.75"};
        static const char *const modes[] = {"fill", "fit"};
        unsigned long long hash = bench_splitmix(&state);
        bench_putf(t,
                   "\"url\":\"https://cdn.sdui.example.com/img/%s/"
                   "%016llx.webp\"",
                   PICK(screens), hash);
        bench_putf(t, ",\"aspectRatio\":%s", PICK(ratios));
        bench_putf(t, ",\"contentMode\":\"%s\"", PICK(modes));
        if (chance(50)) {
            bench_putf(t, ",\"accessibilityLabel\":\"");
            words_(t, 3);
            bench_putf(t, "\"");
        }
    } else {
        bench_putf(t, "\"size\":%d", 4 * (1 + rint_(6)));
    }
    bench_putf(t, "}");
}

/* One token's compact JSON. */
static char *token(int index, size_t *len)
{
    bench_text t = {NULL, 0, 0}, props = {NULL, 0, 0};
    const char *screen = PICK(screens), *kind = PICK(kinds);
    const char *root = chance(70) ? "Column" : "Row";
    int version, pv;
    node(&props, root, 0);
    version = 1 + rint_(6);
    pv = !strcmp(root, "Column") ? 1 + rint_(3) : 1 + rint_(2);
    bench_putf(&t,
               "{\"id\":\"%s_%s_%d\",\"version\":%d,\"primitive\":\"%s\","
               "\"primitiveVersion\":%d,\"props\":%s}",
               screen, kind, index, version, root, pv, props.s);
    free(props.s);
    *len = t.len;
    return t.s;
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
            bench_die("%s", err.message);
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
            bench_die("%s", err.message);
        root = json_loadb(docs[i], lens[i],
                          JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL |
                              JSON_DECODE_ANY,
                          &jerr);
        if (!root)
            bench_die("%s", jerr.text);
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
            bench_die("%s", err.message);
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
            bench_die("%s", jerr.text);
        json_decref(root);
    }
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
        bench_die("usage: bench-token [RUNS [TOKENS (1..1000)]]");
    state = 0x5D01;
    for (i = 0; i < count; i++) {
        docs[i] = token(i, &lens[i]);
        bytes += lens[i];
    }
    ndocs = count;
    for (m = 0; m < M; m++) {
        times[m] = malloc(sizeof(double) * (size_t)runs);
        if (!times[m])
            bench_die("out of memory");
        measures[m].run(); /* warm up */
    }
    for (r = 0; r < runs; r++)
        for (m = 0; m < M; m++) {
            double t0 = bench_now();
            measures[m].run();
            times[m][r] = bench_now() - t0;
        }
    printf("%d tokens, %zu bytes of JSON (%zu on average), %d runs\n", count,
           bytes, bytes / (size_t)count, runs);
    for (m = 0; m < M; m++) {
        qsort(times[m], (size_t)runs, sizeof(double), bench_cmp_double);
        printf("%-42s median %8.4f ms   fastest %8.4f ms\n", measures[m].name,
               times[m][runs / 2] * 1e3, times[m][0] * 1e3);
        free(times[m]);
    }
    for (i = 0; i < count; i++)
        free(docs[i]);
    return 0;
}
