/*
 * expr_worst.c - the slowest single evaluation of an expression
 * (csrc/expr_*.c) that hostile data can force: for each costly operation of
 * the language, an expression that makes it do as much work as it can,
 * evaluated against data of growing size up to the data bound of
 * `sdui expr eval --data` (64 MiB of JSON).  The step bound of an
 * evaluation (SDUI_EXPR_MAX_STEPS) is meant to bound its time; this shows
 * what it does.  Not part of `make`; built by hand against the core's
 * static library:
 *
 *     make -s build/libsdui.a
 *     cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude \
 *        bench/c/expr_worst.c build/libsdui.a \
 *        -ljansson -ldeflate -lsqlite3 -lpthread -lm -o build/bench-expr
 *     build/bench-expr [MAX_MIB [RUNS [CASE...]]]
 *
 * Each case has an expression and a data maker that takes a size in bytes
 * of JSON; the sizes run from 64 KiB up by doubling to MAX_MIB (default
 * 64).  The data is parsed once per size (sdui_json_doc_parse, as the CLI
 * and the Swift modules give the evaluator documents), the
 * expression compiled once, and the evaluation (sdui_expr_eval_json, the
 * result's text included) timed RUNS times (default 5; once when a run
 * takes over 0.2 s); the median CPU time of the evaluating thread is kept
 * (the wall-clock median is printed beside it: on a shared machine it
 * counts the time other processes held the CPU).  A size whose run takes
 * over 2 s ends the case's sweep.  Each line prints the case, the size,
 * the status the evaluation ended with (ok, limit, ...) and the medians
 * in milliseconds; the last lines give each case's slowest size and the
 * slowest of all.  CASE names pick cases (default: all).
 *
 * The file uses only the public API, so the same file builds against a
 * library from before a change to the evaluator (a before/after on one
 * machine).
 */
#define BENCH_NAME "bench-expr"
#include "bench.h"

#include "sdui/sdui.h"

/* The CPU time of this thread in seconds: on a shared machine the
 * figure that does not count the time other processes held the CPU.
 * (bench_cpu_now counts the whole process; this program keeps the
 * evaluating thread's clock.) */
static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- Appending to a growing text (bench_text). */

/* Appends a NUL-terminated text. */
static void puts_(bench_text *b, const char *s)
{
    bench_put(b, s, strlen(s));
}

/* Appends byte c n times. */
static void putn(bench_text *b, char c, size_t n)
{
    while (n) {
        char tmp[4096];
        size_t k = n < sizeof tmp ? n : sizeof tmp;
        memset(tmp, c, k);
        bench_put(b, tmp, k);
        n -= k;
    }
}

/* Appends the text s n times. */
static void putrep(bench_text *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        puts_(b, s);
}

/* ---- Data makers: the JSON of the roots, about `size` bytes. */

/* "s" and "t": two equal strings of 'a', half the size each. */
static void data_two_strings(bench_text *b, size_t size)
{
    puts_(b, "{\"s\":\"");
    putn(b, 'a', size / 2);
    puts_(b, "\",\"t\":\"");
    putn(b, 'a', size / 2);
    puts_(b, "\"}");
}

/* "s": 'a' times size; "t": 'a' times size/4, then 'b' (the needle a
 * quadratic search tries at every place). */
static void data_needle_long(bench_text *b, size_t size)
{
    puts_(b, "{\"s\":\"");
    putn(b, 'a', size);
    puts_(b, "\",\"t\":\"");
    putn(b, 'a', size / 4);
    puts_(b, "b\"}");
}

/* "s": 'a' times size; "t": 999 'a' and a 'b'. */
static void data_needle_short(bench_text *b, size_t size)
{
    puts_(b, "{\"s\":\"");
    putn(b, 'a', size);
    puts_(b, "\",\"t\":\"");
    putn(b, 'a', 999);
    puts_(b, "b\"}");
}

/* "s": 'ab' repeated; "t": a periodic needle 'ab'... then 'c' (the
 * periodic branch of a two-way search). */
static void data_needle_periodic(bench_text *b, size_t size)
{
    puts_(b, "{\"s\":\"");
    putrep(b, "ab", size / 2);
    puts_(b, "\",\"t\":\"");
    putrep(b, "ab", 600);
    puts_(b, "c\"}");
}

/* "s": spaces. */
static void data_spaces(bench_text *b, size_t size)
{
    puts_(b, "{\"s\":\"");
    putn(b, ' ', size);
    puts_(b, "\"}");
}

/* "o": an object whose keys (a 2-byte prefix and a number) come in
 * descending order. */
static void data_keys_short(bench_text *b, size_t size)
{
    size_t n = size / 16;
    puts_(b, "{\"o\":{");
    for (size_t i = 0; i < n; i++)
        bench_putf(b, "%s\"k_%09zu\":0", i ? "," : "", n - i);
    puts_(b, "}}");
}

/* "o": as data_keys_short with a 1000-byte common prefix. */
static void data_keys_long(bench_text *b, size_t size)
{
    size_t n = size / 1016;
    puts_(b, "{\"o\":{");
    for (size_t i = 0; i < n; i++) {
        puts_(b, i ? ",\"" : "\"");
        putn(b, 'k', 1000);
        bench_putf(b, "%09zu\":0", n - i);
    }
    puts_(b, "}}");
}

/* "o" and "p": the same members in opposite orders. */
static void data_two_objects(bench_text *b, size_t size)
{
    size_t n = size / 32;
    puts_(b, "{\"o\":{");
    for (size_t i = 0; i < n; i++)
        bench_putf(b, "%s\"k%zu\":%zu", i ? "," : "", i, i);
    puts_(b, "},\"p\":{");
    for (size_t i = n; i-- > 0;)
        bench_putf(b, "%s\"k%zu\":%zu", i + 1 < n ? "," : "", i, i);
    puts_(b, "}}");
}

/* "a" and "b": two equal arrays of zeros (size/4 items each). */
static void data_two_arrays(bench_text *b, size_t size)
{
    size_t n = size / 4;
    puts_(b, "{\"a\":[");
    for (size_t i = 0; i < n; i++)
        puts_(b, i ? ",0" : "0");
    puts_(b, "],\"b\":[");
    for (size_t i = 0; i < n; i++)
        puts_(b, i ? ",0" : "0");
    puts_(b, "]}");
}

/* Arrays just inside the step bound whatever the size: "c" of 999,000
 * zeros (one step an item), "a" and "b" of 499,000 (two a pair). */
static void data_bound_arrays(bench_text *b, size_t size)
{
    (void)size;
    puts_(b, "{\"c\":[0");
    putrep(b, ",0", 998999);
    puts_(b, "],\"a\":[0");
    putrep(b, ",0", 498999);
    puts_(b, "],\"b\":[0");
    putrep(b, ",0", 498999);
    puts_(b, "]}");
}

/* "a": an array of small objects; "k": a key of a quarter of the size. */
static void data_spread_key(bench_text *b, size_t size)
{
    size_t n = size / 2 / 8 + 1;
    puts_(b, "{\"a\":[");
    for (size_t i = 0; i < n; i++)
        puts_(b, i ? ",{\"x\":1}" : "{\"x\":1}");
    puts_(b, "],\"k\":\"");
    putn(b, 'k', size / 4);
    puts_(b, "\",\"o\":{\"x\":1}}");
}

/* "a": strings of 'a' of 4096 bytes each (min/max compare them whole). */
static void data_string_array(bench_text *b, size_t size)
{
    size_t n = size / 4100 + 2;
    puts_(b, "{\"a\":[");
    for (size_t i = 0; i < n; i++) {
        puts_(b, i ? ",\"" : "\"");
        putn(b, 'a', 4096);
        puts_(b, "\"");
    }
    puts_(b, "]}");
}

/* "s": the subject 'a' times size; "p".."w": patterns (the same in every
 * size) that make a state-set simulation work hard on each character. */
static void data_regex(bench_text *b, size_t size)
{
    puts_(b, "{\"s\":\"");
    putn(b, 'a', size);
    /* 340 empty alternations before a 'b' that never comes: ε-moves. */
    puts_(b, "\",\"p\":\"");
    putrep(b, "(|)", 340);
    puts_(b, "b");
    /* One class of 511 distinct ranges that 'a' is not in. */
    puts_(b, "\",\"q\":\"[");
    for (int i = 0; i < 511; i++) {
        char u[8];
        unsigned cp = 0x100 + 2u * (unsigned)i;
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        bench_put(b, u, 2);
    }
    puts_(b, "]");
    /* 340 optional a's: every state live on every character. */
    puts_(b, "\",\"r\":\"");
    putrep(b, "a*", 340);
    puts_(b, "b");
    /* Counted repetition: a long program, every state live. */
    puts_(b, "\",\"u\":\"(a?){1000}b");
    puts_(b, "\",\"v\":\"((|)a?){1000}b");
    puts_(b, "\",\"w\":\"[^b]{1,1000}b");
    puts_(b, "\"}");
}

/* "e": the empty string; "p": 'a|a|...' (1023 bytes), a pattern whose
 * compilation is the work. */
static void data_pattern(bench_text *b, size_t size)
{
    (void)size;
    puts_(b, "{\"e\":\"\",\"p\":\"a");
    putrep(b, "|a", 511);
    puts_(b, "\",\"q\":\"a");
    putrep(b, "?a", 511);
    puts_(b, "\"}");
}

/* ---- Cases. */

/* An expression: item repeated `times` times as an array literal (nested
 * when past 256 items, the limit of one list). */
static char *repeat_expr(const char *item, int times)
{
    bench_text b = {0};
    if (times <= 1) {
        puts_(&b, item);
        return b.s;
    }
    puts_(&b, "[");
    for (int i = 0; i < times; i++) {
        if (i % 200 == 0)
            puts_(&b, i ? "],[" : "[");
        else
            puts_(&b, ",");
        puts_(&b, item);
    }
    puts_(&b, "]]");
    return b.s;
}

typedef struct bcase {
    const char *name;
    const char *item;    /* the expression, repeated `times` times */
    int times;
    void (*data)(bench_text *, size_t);
    size_t max;          /* the largest size in MiB (0: MAX_MIB; -1: the
                            data does not depend on it, one size) */
} bcase;

static const bcase cases[] = {
    {"keys-short", "len(keys(o))", 1, data_keys_short, 0},
    {"keys-long", "len(keys(o))", 1, data_keys_long, 0},
    {"contains-long", "contains(s, t)", 1, data_needle_long, 0},
    {"contains-short", "contains(s, t)", 20, data_needle_short, 0},
    {"contains-periodic", "contains(s, t)", 20, data_needle_periodic, 0},
    {"matches-eps", "matches(s, p)", 1, data_regex, 0},
    {"matches-class", "matches(s, q)", 1, data_regex, 0},
    {"matches-live", "matches(s, r)", 1, data_regex, 0},
    {"matches-count", "matches(s, u)", 1, data_regex, 0},
    {"matches-count-eps", "matches(s, v)", 1, data_regex, 0},
    {"matches-count-class", "matches(s, w)", 1, data_regex, 0},
    {"matches-compile", "matches(e, p)", 280, data_pattern, 1},
    {"matches-compile-opt", "matches(e, q)", 280, data_pattern, 1},
    {"string-equal", "s == t", 400, data_two_strings, 0},
    {"string-order", "s <= t", 400, data_two_strings, 0},
    {"len", "len(s)", 500, data_two_strings, 0},
    {"starts-with", "starts_with(s, t)", 200, data_two_strings, 0},
    {"trim", "trim(s)", 500, data_spaces, 0},
    {"string", "string(s)", 1, data_two_strings, 0},
    {"result", "s", 1, data_two_strings, 0},
    {"in-object", "k in o", 400, data_spread_key, 0},
    {"member-key", "o[k]", 400, data_spread_key, 0},
    {"spread-key", "len(a[*][k])", 1, data_spread_key, 0},
    {"object-equal", "o == p", 1, data_two_objects, 0},
    {"array-equal", "a == b", 1, data_two_arrays, 0},
    {"min-strings", "min(a)", 1, data_string_array, 0},
    {"contains-array", "contains(a, 1)", 1, data_two_arrays, 0},
    {"in-array", "1 in a", 1, data_two_arrays, 0},
    {"count", "count(a)", 1, data_two_arrays, 0},
    {"sum", "sum(a)", 1, data_two_arrays, 0},
    {"avg", "avg(a)", 1, data_two_arrays, 0},
    {"max-numbers", "max(a)", 1, data_two_arrays, 0},
    {"wildcard", "len(a[*])", 1, data_two_arrays, 0},
    {"wildcard-member", "len(a[*].x)", 1, data_spread_key, 0},
    {"string-array", "string(a)", 1, data_two_arrays, 0},
    {"join", "join(keys(o), ',')", 1, data_keys_short, 0},
    {"bound-count", "count(c)", 1, data_bound_arrays, (size_t)-1},
    {"bound-max", "max(c)", 1, data_bound_arrays, (size_t)-1},
    {"bound-sum", "sum(c)", 1, data_bound_arrays, (size_t)-1},
    {"bound-equal", "a == b", 1, data_bound_arrays, (size_t)-1},
};

/* The lookup: members of the data document. */
static const sdui_value *lookup(void *ctx, const char *name, size_t len)
{
    (void)len;
    return sdui_value_get((const sdui_value *)ctx, name);
}

/* Runs one case at one size; returns the median CPU time in seconds,
 * sets *st and *wall (the median wall-clock time). */
static double run_size(const bcase *c, size_t size, int runs, sdui_status *st,
                       double *wall)
{
    bench_text data = {0};
    sdui_json_doc *doc = NULL;
    sdui_expr *prog = NULL;
    sdui_error err;
    char *src = repeat_expr(c->item, c->times);
    double t[64], w[64];
    int n = 0;

    c->data(&data, size);
    if (sdui_json_doc_parse(data.s, data.len, 64, &doc, &err) != SDUI_OK)
        bench_die("%s", err.message);
    free(data.s);
    if (sdui_expr_compile(src, strlen(src), &prog, &err) != SDUI_OK)
        bench_die("%s: %s", c->name, err.message);
    while (n < runs && n < 64) {
        char *json = NULL;
        double w0 = bench_now(), t0 = thread_cpu_now();
        *st = sdui_expr_eval_json(prog, lookup, (void *)sdui_json_doc_root(doc),
                                  &json, NULL, &err);
        t[n] = thread_cpu_now() - t0;
        w[n++] = bench_now() - w0;
        sdui_free(json);
        if (w[n - 1] > 0.2)
            break;
    }
    sdui_expr_free(prog);
    sdui_json_doc_free(doc);
    free(src);
    /* The upper middle for an even n (not bench_median's mean of the two). */
    qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
    qsort(w, (size_t)n, sizeof *w, bench_cmp_double);
    *wall = w[n / 2];
    return t[n / 2];
}

/* The short name of a status. */
static const char *status_word(sdui_status st)
{
    switch (st) {
    case SDUI_OK: return "ok";
    case SDUI_LIMIT: return "limit";
    case SDUI_EXPR_VALUE: return "value";
    case SDUI_EXPR_TYPE: return "type";
    default: return sdui_status_name(st);
    }
}

/* Runs the chosen cases; prints each size and the summary. */
int main(int argc, char **argv)
{
    size_t max_mib = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 64;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    size_t ncases = sizeof cases / sizeof cases[0];
    double worst_case[sizeof cases / sizeof cases[0]];
    size_t worst_size[sizeof cases / sizeof cases[0]];
    sdui_status worst_st[sizeof cases / sizeof cases[0]];
    double worst = 0;
    const char *worst_name = "";

    if (max_mib == 0 || runs <= 0)
        bench_die("usage: bench-expr [MAX_MIB [RUNS [CASE...]]]");
    printf("%-22s %10s %8s %10s %10s\n", "case", "data", "status", "cpu ms", "wall ms");
    for (size_t c = 0; c < ncases; c++) {
        int chosen = argc <= 3;
        for (int a = 3; a < argc; a++)
            chosen |= !strcmp(argv[a], cases[c].name);
        worst_case[c] = -1;
        if (!chosen)
            continue;
        size_t top = cases[c].max == (size_t)-1 ? 64 << 10
                   : (cases[c].max ? cases[c].max : max_mib) << 20;
        for (size_t size = 64 << 10; size <= top; size *= 2) {
            sdui_status st = SDUI_OK;
            double wall = 0, t = run_size(&cases[c], size, runs, &st, &wall);
            printf("%-22s %9zuK %8s %10.2f %10.2f\n", cases[c].name, size >> 10,
                   status_word(st), t * 1e3, wall * 1e3);
            fflush(stdout);
            if (t > worst_case[c]) {
                worst_case[c] = t;
                worst_size[c] = size;
                worst_st[c] = st;
            }
            if (t > worst) {
                worst = t;
                worst_name = cases[c].name;
            }
            if (wall > 2.0)
                break;
        }
    }
    printf("\nslowest size of each case (CPU time):\n");
    for (size_t c = 0; c < ncases; c++)
        if (worst_case[c] >= 0)
            printf("%-22s %9zuK %8s %10.2f\n", cases[c].name, worst_size[c] >> 10,
                   status_word(worst_st[c]), worst_case[c] * 1e3);
    printf("slowest: %s, %.2f ms\n", worst_name, worst * 1e3);
    return 0;
}
