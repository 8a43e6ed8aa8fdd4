/*
 * fuzz_expr.c - libFuzzer harness for the expression language (expr.h):
 * the parser and the evaluator.
 *
 * The input is the expression's source.  It is compiled; a program is
 * evaluated against a fixed data document (the roots the vectors use:
 * cart, user, answers, arr, s, n, big, small, nested, grid, ...; numbers
 * an integer and a decimal tell apart only exactly, "nums"; objects with
 * members in different orders, "o1" "o2" "o3"; and data far
 * larger than the evaluator's own values, "long" (a string past the
 * string bound), "wide" (an object of 3000 members) and "many" (an array
 * of 70,000 items), whose work counts as it goes) and these must hold:
 *   - compile either succeeds or fails with a parse or limit status (or
 *     OOM), a message, and an offset within the source (or the limit);
 *   - evaluation gives the same status, message and JSON text twice (it
 *     is deterministic and reads nothing but the program and the data),
 *     and the same status and message with the roots given by slot
 *     (sdui_expr_eval_roots; sdui_expr_eval_bool the same boolean, or a
 *     type error for a value that is not one),
 *     and on success sdui_expr_eval's tree is of the type the text opens;
 *   - every path sdui_expr_path lists compiles as an expression of its own
 *     (the canonical form reads back);
 *   - two-way: a result without an object in it (JSON arrays, strings,
 *     numbers, true, false, null are also expressions) compiles back and
 *     evaluates to the same JSON text.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 *
 * Seeds: the expressions of Tests/ExprVectors/*.json, extracted by
 * Tests/Fuzz/run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdui/sdui.h"

static const char data_text[] =
    "{\"cart\":{\"total\":42.5,\"count\":3,\"items\":[{\"title\":\"Tea\",\"price\":4,"
    "\"qty\":2},{\"title\":\"Cake\",\"price\":3.5,\"qty\":1},{\"title\":\"Gift\"}],"
    "\"coupon\":null},\"user\":{\"name\":\"Ada Lovelace\",\"age\":36,\"tags\":"
    "[\"admin\",\"beta\"],\"active\":true,\"email\":\"ada@example.com\"},"
    "\"answers\":{\"first name\":\"Ada\",\"it's\":\"q\",\"a.b\":1},\"n\":10,\"z\":0,"
    "\"neg\":-7,\"f\":2.5,\"s\":\"Hello\",\"empty\":\"\",\"arr\":[1,2,3],\"none\":null,"
    "\"big\":9223372036854775807,\"small\":-9223372036854775808,\"nested\":{\"a\":"
    "{\"b\":{\"c\":[{\"d\":1},{\"d\":2}]}}},\"flags\":[true,false,true],\"mixed\":"
    "[1,\"a\",null,true],\"words\":[\"b\",\"a\",\"c\"],\"grid\":[[1,2],[3,4]],"
    "\"t\":true,\"fl\":false,\"one\":{\"k\":5}}";

static sdui_json_doc *data;

/* Appends n bytes to the growing text *b (length *len, room *cap). */
static void put(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *b = realloc(*b, *cap);
        if (!*b)
            abort();
    }
    memcpy(*b + *len, s, n);
    *len += n;
    (*b)[*len] = 0;
}

/* Aborts with a note when an invariant fails. */
static void require(int ok, const char *what, const char *src, size_t len)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_expr: %s for `%.*s`\n", what, (int)(len > 200 ? 200 : len), src);
    abort();
}

/* The fuzzer's lookup: members of the fixed data document. */
static const sdui_value *lookup(void *ctx, const char *name, size_t len)
{
    (void)len;
    return sdui_value_get((const sdui_value *)ctx, name);
}

/* Evaluates prog to JSON text; the status, *json set (caller frees). */
static sdui_status eval_text(const sdui_expr *prog, char **json, size_t *len,
                             sdui_error *err)
{
    return sdui_expr_eval_json(prog, lookup, (void *)sdui_json_doc_root(data),
                               json, len, err);
}

/* Builds and parses the data once: data_text with the large members
 * added. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    sdui_error err;
    char *text = NULL, num[48];
    size_t len = 0, cap = 0;
    (void)argc;
    (void)argv;
    put(&text, &len, &cap, data_text, sizeof data_text - 2); /* without '}' */
    {
        static const char more[] =
            ",\"nums\":[9007199254740993,9007199254740992.0,9007199254740992,"
            "9223372036854775807,9223372036854775808.0,-9223372036854775808,-9.3e18,0.5],"
            "\"o1\":{\"b\":2,\"a\":1,\"n\":{\"y\":[1,2.0],\"x\":null}},"
            "\"o2\":{\"c\":1,\"b\":2,\"n\":{\"x\":null,\"y\":[1.0,2]}},"
            "\"o3\":{\"n\":{\"x\":null,\"y\":[1,2]},\"a\":1.0,\"b\":2},"
            "\"long\":\"";
        put(&text, &len, &cap, more, sizeof more - 1);
    }
    for (int i = 0; i < 70000; i++)
        put(&text, &len, &cap, i % 100 == 99 ? "\\n" : "a", i % 100 == 99 ? 2 : 1);
    put(&text, &len, &cap, "\",\"wide\":{", 10);
    for (int i = 0; i < 3000; i++) {
        int n = snprintf(num, sizeof num, "%s\"k%d\":%d", i ? "," : "", (i * 7) % 3000, i);
        put(&text, &len, &cap, num, (size_t)n);
    }
    put(&text, &len, &cap, "},\"many\":[", 10);
    for (int i = 0; i < 70000; i++)
        put(&text, &len, &cap, i ? ",1" : "1", i ? 2 : 1);
    put(&text, &len, &cap, "]}", 2);
    if (sdui_json_doc_parse(text, len, 64, &data, &err) != SDUI_OK) {
        fprintf(stderr, "fuzz_expr: the data: %s\n", err.message);
        abort();
    }
    free(text);
    return 0;
}

/* The slot entry points against the lookup's (st, j1: eval_text's
 * answer): the roots looked up once by the names the program lists, the
 * same status and message, the same value's kind, and from eval_bool the
 * same boolean or a type error for any other value. */
static void check_slots(const sdui_expr *prog, sdui_status st, const char *j1,
                        const sdui_error *err, const char *src, size_t size)
{
    enum { MAX = 2048 };
    static const sdui_value *roots[MAX];
    size_t n = sdui_expr_root_count(prog);
    sdui_error serr;
    sdui_json_doc *tree = NULL;
    int truth = -1;
    require(n <= MAX, "more roots than a source can hold", src, size);
    for (size_t k = 0; k < n; k++) {
        const char *name = sdui_expr_root(prog, k, NULL);
        require(name != NULL, "a root slot without a name", src, size);
        roots[k] = sdui_value_get(sdui_json_doc_root(data), name);
    }
    sdui_status sst = sdui_expr_eval_roots(prog, roots, n, &tree, &serr);
    if (sst == SDUI_OOM || st == SDUI_OOM) {
        sdui_json_doc_free(tree);
        return;
    }
    require(sst == st, "eval_roots and eval differ in status", src, size);
    if (st != SDUI_OK)
        require(!strcmp(serr.message, err->message), "eval_roots and eval differ in message", src, size);
    sdui_json_doc_free(tree);
    sst = sdui_expr_eval_bool(prog, roots, n, &truth, &serr);
    if (sst == SDUI_OOM)
        return;
    if (st == SDUI_LIMIT && !strncmp(err->message, "expr: result longer", 19))
        /* A bound on the result's text, which a condition does not write;
         * no boolean is that long. The prefix is matched, not a substring:
         * the message quotes the source, which may hold the same words. */
        require(sst == SDUI_EXPR_TYPE, "eval_bool of a long result", src, size);
    else if (st != SDUI_OK)
        require(sst == st && !strcmp(serr.message, err->message), "eval_bool and eval differ in error",
                src, size);
    else if (!strcmp(j1, "true") || !strcmp(j1, "false"))
        require(sst == SDUI_OK && truth == (j1[0] == 't'), "eval_bool and eval differ in value", src, size);
    else
        require(sst == SDUI_EXPR_TYPE, "eval_bool took a non-boolean", src, size);
}

/* One input: the source of an expression. */
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    const char *src = (const char *)bytes;
    sdui_error err, err2;
    sdui_expr *prog = NULL;
    char *j1 = NULL, *j2 = NULL;
    size_t n1 = 0, n2 = 0;
    sdui_status st, st2;

    st = sdui_expr_compile(src, size, &prog, &err);
    if (st != SDUI_OK) {
        require(prog == NULL, "failed compile returned a program", src, size);
        require(st == SDUI_EXPR_PARSE || st == SDUI_LIMIT || st == SDUI_OOM,
                "compile status", src, size);
        require(err.status == st && err.message[0], "compile error record", src, size);
        require(err.offset >= 0 && (size_t)err.offset <= (size > 4096 ? 4096 : size),
                "compile error offset", src, size);
        return 0;
    }
    for (size_t i = 0; i < sdui_expr_path_count(prog); i++) {
        size_t pl;
        const char *p = sdui_expr_path(prog, i, &pl);
        sdui_expr *pp = NULL;
        require(p && strlen(p) == pl, "path text", src, size);
        st2 = sdui_expr_compile(p, pl, &pp, &err2);
        require(st2 == SDUI_OK || st2 == SDUI_LIMIT, "a listed path does not compile", src, size);
        sdui_expr_free(pp);
    }
    st = eval_text(prog, &j1, &n1, &err);
    check_slots(prog, st, j1, &err, src, size);
    st2 = eval_text(prog, &j2, &n2, &err2);
    require(st == st2, "two evaluations differ in status", src, size);
    if (st != SDUI_OK) {
        require(j1 == NULL && err.status == st && err.message[0], "eval error record", src, size);
        require(err.offset >= 0 && (size_t)err.offset <= size, "eval error offset", src, size);
        require(!strcmp(err.message, err2.message), "two evaluations differ in message", src, size);
    } else {
        sdui_json_doc *tree = NULL;
        require(n1 == n2 && !memcmp(j1, j2, n1), "two evaluations differ in value", src, size);
        require(strlen(j1) == n1, "result text length", src, size);
        /* The tree form holds a value of the kind the text opens. */
        st2 = sdui_expr_eval(prog, lookup, (void *)sdui_json_doc_root(data), &tree, &err2);
        require(st2 == SDUI_OK || st2 == SDUI_OOM, "tree evaluation failed", src, size);
        if (tree) {
            sdui_value_type t = sdui_value_type_of(sdui_json_doc_root(tree));
            char c = j1[0];
            require((c == '[') == (t == SDUI_VALUE_ARRAY) && (c == '{') == (t == SDUI_VALUE_OBJECT) &&
                    (c == '"') == (t == SDUI_VALUE_STRING) && (c == 'n') == (t == SDUI_VALUE_NULL),
                    "tree and text disagree", src, size);
            sdui_json_doc_free(tree);
        }
        /* Two-way: the value's text read back as an expression. */
        if (!memchr(j1, '{', n1) && !strstr(j1, "9223372036854775808")) {
            sdui_expr *back = NULL;
            char *j3 = NULL;
            size_t n3 = 0;
            st2 = sdui_expr_compile(j1, n1, &back, &err2);
            require(st2 == SDUI_OK || st2 == SDUI_LIMIT, "result text does not compile", j1, n1);
            if (st2 == SDUI_OK) {
                st2 = eval_text(back, &j3, &n3, &err2);
                require(st2 == SDUI_OK || st2 == SDUI_LIMIT, "result text does not evaluate", j1, n1);
                if (st2 == SDUI_OK)
                    require(n3 == n1 && !memcmp(j3, j1, n1), "result does not read back", j1, n1);
            }
            sdui_free(j3);
            sdui_expr_free(back);
        }
    }
    sdui_free(j1);
    sdui_free(j2);
    sdui_expr_free(prog);
    return 0;
}
