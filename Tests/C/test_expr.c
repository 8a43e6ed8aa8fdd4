/*
 * test_expr.c - the expression language (expr.h): every case of the
 * published vectors, every .json file of Tests/ExprVectors (or the directory named by
 * SDUI_EXPR_VECTORS), then the API: ownership, paths, error offsets,
 * limits, allocation failures and one program evaluated from several
 * threads at once.
 *
 * A vector file is {"topic": "...", "data": {...}, "cases": [case, ...]};
 * a case is
 *   {"expr": "...", "value": <expected JSON>}   or
 *   {"expr": "...", "error": "parse|type|overflow|division|value|limit"}
 * with an optional "data" of its own instead of the file's.  The data's
 * members are the roots the expression may name (no data: every root is
 * absent).  An expected value matches when it is the same JSON value,
 * an integer and a decimal being different (1 is not 1.0 here).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>

#include <jansson.h>

#include "check.h"

/* The lookup callback of the tests: ctx is the data object's tree. */
static const sdui_value *lookup_root(void *ctx, const char *name, size_t len)
{
    (void)len;
    return sdui_value_get((const sdui_value *)ctx, name);
}

/* The error kind a vector names, as a status. */
static sdui_status kind_status(const char *kind)
{
    static const struct { const char *k; sdui_status st; } map[] = {
        {"parse", SDUI_EXPR_PARSE}, {"type", SDUI_EXPR_TYPE},
        {"overflow", SDUI_EXPR_OVERFLOW}, {"division", SDUI_EXPR_DIVISION},
        {"value", SDUI_EXPR_VALUE}, {"limit", SDUI_LIMIT},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].k, kind))
            return map[i].st;
    return SDUI_STATUS_COUNT_;
}

static unsigned long vectors_run;

/* 1 if a and b are the same tree: same types, integers, decimals (bit for
 * bit, so -0.0 is not 0.0), string bytes, items, and members in the same
 * order with the same names. */
static int same_tree(const sdui_value *a, const sdui_value *b)
{
    sdui_value_type t = sdui_value_type_of(a);
    if (t != sdui_value_type_of(b))
        return 0;
    switch (t) {
    case SDUI_VALUE_NULL:
        return 1;
    case SDUI_VALUE_BOOL:
        return sdui_value_bool(a) == sdui_value_bool(b);
    case SDUI_VALUE_INT:
        return sdui_value_int(a) == sdui_value_int(b);
    case SDUI_VALUE_REAL: {
        double x = sdui_value_real(a), y = sdui_value_real(b);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    case SDUI_VALUE_STRING: {
        size_t la, lb;
        const char *sa = sdui_value_string(a, &la), *sb = sdui_value_string(b, &lb);
        return la == lb && memcmp(sa, sb, la) == 0;
    }
    case SDUI_VALUE_ARRAY:
        if (sdui_value_count(a) != sdui_value_count(b))
            return 0;
        for (size_t i = 0; i < sdui_value_count(a); i++)
            if (!same_tree(sdui_value_at(a, i), sdui_value_at(b, i)))
                return 0;
        return 1;
    case SDUI_VALUE_OBJECT: {
        const void *ia = sdui_value_next(a, NULL), *ib = sdui_value_next(b, NULL);
        if (sdui_value_count(a) != sdui_value_count(b))
            return 0;
        for (; ia && ib; ia = sdui_value_next(a, ia), ib = sdui_value_next(b, ib)) {
            size_t la, lb;
            const char *ka = sdui_value_iter_key(ia, &la), *kb = sdui_value_iter_key(ib, &lb);
            if (la != lb || memcmp(ka, kb, la) != 0 ||
                !same_tree(sdui_value_iter_value(ia), sdui_value_iter_value(ib)))
                return 0;
        }
        return !ia && !ib;
    }
    }
    return 0;
}

/*
 * sdui_expr_eval against sdui_expr_eval_json of the same program and data:
 * the same status and error record, and on success a tree that is the
 * text read back (member order, integer or decimal, every bit of a
 * decimal).  where names the case in a failure.
 */
static void check_eval_matches_text(const sdui_expr *prog, const sdui_value *data,
                                    sdui_status text_st, const sdui_error *text_err,
                                    const char *json, size_t len, const char *where)
{
    sdui_error err;
    sdui_json_doc *res = NULL, *back = NULL;
    sdui_status st = sdui_expr_eval(prog, lookup_root, (void *)data, &res, &err);
    if (!CHECKF(st == text_st, "%s: eval gave %s (%s), eval_json %s (%s)", where,
                sdui_status_name(st), st == SDUI_OK ? "" : err.message,
                sdui_status_name(text_st), text_st == SDUI_OK ? json : text_err->message)) {
        sdui_json_doc_free(res);
        return;
    }
    if (st != SDUI_OK) {
        CHECKF(res == NULL && !strcmp(err.message, text_err->message) &&
               err.offset == text_err->offset && err.line == text_err->line &&
               err.column == text_err->column,
               "%s: eval's error \"%s\" differs from eval_json's \"%s\"", where,
               err.message, text_err->message);
        return;
    }
    if (CHECKF(sdui_json_doc_parse(json, len, 100000, &back, &err) == SDUI_OK,
               "%s: eval_json's text does not read back: %s", where, err.message))
        CHECKF(same_tree(sdui_json_doc_root(res), sdui_json_doc_root(back)),
               "%s: eval's tree is not eval_json's %s", where, json);
    sdui_json_doc_free(back);
    sdui_json_doc_free(res);
}

/* Runs one case of file name; reports a failure with the expression. */
static void run_case(const char *file, size_t idx, json_t *c, json_t *file_data)
{
    sdui_error err;
    sdui_expr *prog = NULL;
    sdui_json_doc *data = NULL;
    const char *src = json_string_value(json_object_get(c, "expr"));
    json_t *want = json_object_get(c, "value");
    const char *kind = json_string_value(json_object_get(c, "error"));
    json_t *d = json_object_get(c, "data") ? json_object_get(c, "data") : file_data;
    char *json = NULL;
    size_t len = 0;
    sdui_status st;

    vectors_run++;
    if (!CHECKF(src && (want || kind) && !(want && kind),
                "%s case %zu: needs expr and one of value/error", file, idx))
        return;
    if (d) {
        char *text = json_dumps(d, JSON_COMPACT | JSON_ENCODE_ANY);
        st = sdui_json_doc_parse(text, strlen(text), 1000, &data, &err);
        free(text);
        if (!CHECKF(st == SDUI_OK, "%s case %zu: data: %s", file, idx, err.message))
            return;
    }
    st = sdui_expr_compile(src, strlen(src), &prog, &err);
    if (st == SDUI_OK) {
        char where[160];
        st = sdui_expr_eval_json(prog, lookup_root,
                                 data ? (void *)sdui_json_doc_root(data) : NULL,
                                 &json, &len, &err);
        snprintf(where, sizeof where, "%s case %zu: `%.100s`", file, idx, src);
        check_eval_matches_text(prog, data ? sdui_json_doc_root(data) : NULL, st, &err,
                                json, len, where);
    }
    if (kind) {
        sdui_status ws = kind_status(kind);
        CHECKF(ws != SDUI_STATUS_COUNT_, "%s case %zu: unknown error kind %s", file, idx, kind);
        CHECKF(st == ws, "%s case %zu: `%s` gave %s (%s), expected error %s",
               file, idx, src, st == SDUI_OK ? json : sdui_status_name(st),
               st == SDUI_OK ? "" : err.message, kind);
        if (st != SDUI_OK)
            CHECKF(err.message[0] && err.offset >= 0 && (size_t)err.offset <= strlen(src),
                   "%s case %zu: `%s`: message/offset missing", file, idx, src);
    } else if (st != SDUI_OK) {
        char *w = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
        CHECKF(0, "%s case %zu: `%s` failed: %s (expected %s)", file, idx, src,
               err.message, w);
        free(w);
    } else {
        json_error_t jerr;
        json_t *got = json_loadb(json, len, JSON_DECODE_ANY, &jerr);
        char *w = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
        CHECKF(got && json_equal(got, want), "%s case %zu: `%s` is %s, expected %s",
               file, idx, src, json, w);
        free(w);
        json_decref(got);
    }
    sdui_free(json);
    sdui_expr_free(prog);
    sdui_json_doc_free(data);
}

/* Compares two strings for qsort. */
static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every vector file of the directory; returns the number of cases. */
static void run_vectors(void)
{
    const char *dir = getenv("SDUI_EXPR_VECTORS");
    char *names[256];
    size_t n = 0;
    DIR *dp;
    struct dirent *de;

    if (!dir)
        dir = "Tests/ExprVectors";
    dp = opendir(dir);
    if (!CHECKF(dp != NULL, "cannot open %s", dir))
        return;
    while ((de = readdir(dp)) && n < 256) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".json"))
            names[n++] = strdup(de->d_name);
    }
    closedir(dp);
    qsort(names, n, sizeof names[0], cmp_names);
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        json_error_t jerr;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_t *doc = json_load_file(path, 0, &jerr);
        if (CHECKF(doc != NULL, "%s: %s at %d:%d", path, jerr.text, jerr.line, jerr.column)) {
            json_t *cases = json_object_get(doc, "cases");
            size_t k;
            json_t *c;
            CHECKF(json_is_array(cases) && json_array_size(cases) > 0, "%s: no cases", path);
            json_array_foreach(cases, k, c)
                run_case(names[i], k, c, json_object_get(doc, "data"));
            json_decref(doc);
        }
        free(names[i]);
    }
    printf("vectors: %lu cases in %zu files\n", vectors_run, n);
    CHECKF(vectors_run >= 400, "only %lu vector cases", vectors_run);
}

/* Compiles src (NUL-terminated) and evaluates it against the JSON data
 * text; returns the status and fills *json (caller frees) and err. */
static sdui_status eval_text(const char *src, const char *data, char **json,
                             sdui_error *err)
{
    sdui_expr *prog = NULL;
    sdui_json_doc *doc = NULL;
    sdui_status st;
    *json = NULL;
    if (data) {
        st = sdui_json_doc_parse(data, strlen(data), 64, &doc, err);
        if (st != SDUI_OK)
            return st;
    }
    st = sdui_expr_compile(src, strlen(src), &prog, err);
    if (st == SDUI_OK)
        st = sdui_expr_eval_json(prog, lookup_root,
                                 doc ? (void *)sdui_json_doc_root(doc) : NULL,
                                 json, NULL, err);
    sdui_expr_free(prog);
    sdui_json_doc_free(doc);
    return st;
}

/* The result as a value tree the caller owns. */
static void test_result_tree(void)
{
    sdui_error err;
    sdui_expr *prog = NULL;
    sdui_json_doc *doc = NULL, *res = NULL;
    const char *data = "{\"cart\":{\"items\":[{\"price\":2},{\"price\":3.5},{}]}}";
    CHECK_STATUS(sdui_json_doc_parse(data, strlen(data), 8, &doc, &err), SDUI_OK);
    const char *src = "cart.items[*].price";
    CHECK_STATUS(sdui_expr_compile(src, strlen(src), &prog, &err), SDUI_OK);
    CHECK_STATUS(sdui_expr_eval(prog, lookup_root, (void *)sdui_json_doc_root(doc), &res, &err), SDUI_OK);
    /* The result outlives the program and the data. */
    sdui_expr_free(prog);
    sdui_json_doc_free(doc);
    const sdui_value *r = sdui_json_doc_root(res);
    CHECK_EQ_INT(sdui_value_type_of(r), SDUI_VALUE_ARRAY);
    CHECK_EQ_INT(sdui_value_count(r), 2);
    CHECK_EQ_INT(sdui_value_type_of(sdui_value_at(r, 0)), SDUI_VALUE_INT);
    CHECK_EQ_INT(sdui_value_int(sdui_value_at(r, 0)), 2);
    CHECK(sdui_value_real(sdui_value_at(r, 1)) == 3.5);
    sdui_json_doc_free(res);

    /* No lookup callback: every root is null. */
    CHECK_STATUS(sdui_expr_compile("a.b ?? 7", 8, &prog, &err), SDUI_OK);
    CHECK_STATUS(sdui_expr_eval(prog, NULL, NULL, &res, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_value_int(sdui_json_doc_root(res)), 7);
    sdui_json_doc_free(res);
    /* NULL arguments. */
    CHECK_STATUS(sdui_expr_eval(prog, NULL, NULL, NULL, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_expr_eval_json(NULL, NULL, NULL, NULL, NULL, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_expr_compile(NULL, 3, &prog, &err), SDUI_ARGUMENT);
    sdui_expr_free(prog);
    sdui_expr_free(NULL);
}

/* The result tree does not pass through text: a result nested deeper
 * than jansson's parser goes (2048 levels) is still a document, the same
 * value eval_json writes. */
static void test_result_deep(void)
{
    enum { DATA = 2040, WRAP = 60 };
    sdui_error err;
    sdui_expr *prog = NULL;
    sdui_json_doc *doc = NULL, *res = NULL;
    char *data = malloc(2 * DATA + 16), src[2 * WRAP + 8], *json = NULL;
    size_t k = 0, len = 0;
    k += (size_t)sprintf(data, "{\"d\":");
    for (int i = 0; i < DATA; i++) data[k++] = '[';
    data[k++] = '7';
    for (int i = 0; i < DATA; i++) data[k++] = ']';
    data[k++] = '}';
    CHECK_STATUS(sdui_json_doc_parse(data, k, DATA + 1, &doc, &err), SDUI_OK);
    k = 0;
    for (int i = 0; i < WRAP; i++) src[k++] = '[';
    src[k++] = 'd';
    for (int i = 0; i < WRAP; i++) src[k++] = ']';
    src[k] = 0;
    CHECK_STATUS(sdui_expr_compile(src, k, &prog, &err), SDUI_OK);
    CHECK_STATUS(sdui_expr_eval_json(prog, lookup_root, (void *)sdui_json_doc_root(doc),
                                     &json, &len, &err), SDUI_OK);
    CHECK_EQ_INT(len, 2 * (DATA + WRAP) + 1);
    CHECK_STATUS(sdui_expr_eval(prog, lookup_root, (void *)sdui_json_doc_root(doc), &res, &err),
                 SDUI_OK);
    if (res) {
        const sdui_value *v = sdui_json_doc_root(res);
        int levels = 0;
        while (sdui_value_type_of(v) == SDUI_VALUE_ARRAY && sdui_value_count(v) == 1) {
            levels++;
            v = sdui_value_at(v, 0);
        }
        CHECK_EQ_INT(levels, DATA + WRAP);
        CHECK_EQ_INT(sdui_value_type_of(v), SDUI_VALUE_INT);
        CHECK_EQ_INT(sdui_value_int(v), 7);
    }
    sdui_json_doc_free(res);
    sdui_free(json);
    sdui_expr_free(prog);
    sdui_json_doc_free(doc);
    free(data);
}

/* The bound on the result's JSON text holds for the tree too, to the
 * byte: escapes, decimals, negative integers, member names and nesting
 * counted as eval_json writes them.  The data's array is padded with a
 * string so its text is exactly 65536 bytes (fine), then 65537 (limit),
 * for a value borrowed whole from the data and one the evaluator built. */
static void test_result_bound(void)
{
    static const char *head =
        "{\"a\":[-1234567,0.30000000000000004,1e21,1.5e-7,2.0,-0.0,true,false,null,"
        "\"\\u0001\\n\\\"\\\\\\u00e9\\u001f\",{\"k\\n\":[],\"\":{\"x\":[1,[2]]}},\"";
    static const char *srcs[] = {"a", "a + []", "[a][0]"};
    size_t hl = strlen(head);
    char *data = malloc(hl + 70000);
    sdui_error err;
    size_t base = 0;
    /* The text's length without padding. */
    for (int pass = 0; pass < 3; pass++) {
        size_t pad = pass == 0 ? 0 : 65536 - base + (size_t)(pass - 1);
        size_t k = hl;
        sdui_json_doc *doc = NULL;
        memcpy(data, head, hl);
        memset(data + k, 'p', pad);
        k += pad;
        memcpy(data + k, "\"]}", 3);
        k += 3;
        CHECK_STATUS(sdui_json_doc_parse(data, k, 16, &doc, &err), SDUI_OK);
        for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
            sdui_expr *prog = NULL;
            char *json = NULL, where[64];
            size_t len = 0;
            sdui_status st;
            CHECK_STATUS(sdui_expr_compile(srcs[i], strlen(srcs[i]), &prog, &err), SDUI_OK);
            st = sdui_expr_eval_json(prog, lookup_root, (void *)sdui_json_doc_root(doc),
                                     &json, &len, &err);
            if (pass == 0) {
                CHECK_STATUS(st, SDUI_OK);
                base = len;
            } else if (pass == 1) {
                CHECK_STATUS(st, SDUI_OK);
                CHECK_EQ_INT(len, 65536);
            } else {
                CHECK_STATUS(st, SDUI_LIMIT);
                CHECK_MSG_HAS("result longer than 65536 bytes");
            }
            snprintf(where, sizeof where, "`%s` with %zu bytes of padding", srcs[i], pad);
            check_eval_matches_text(prog, sdui_json_doc_root(doc), st, &err, json, len, where);
            sdui_free(json);
            sdui_expr_free(prog);
        }
        sdui_json_doc_free(doc);
    }
    free(data);
}

/* The JSON text: integers without a point, decimals shortest. */
static void test_json_text(void)
{
    sdui_error err;
    char *j;
    static const char *cases[][2] = {
        {"1 + 2", "3"}, {"1 / 2", "0.5"}, {"4 / 2", "2.0"}, {"0.1 + 0.2", "0.30000000000000004"},
        {"1e21 * 1", "1e21"}, {"1.5e-7", "1.5e-7"}, {"'a\\nb\"'", "\"a\\nb\\\"\""},
        {"[1, 2.0, null, true]", "[1,2.0,null,true]"}, {"string(0.1)", "\"0.1\""},
        {"-0.0", "-0.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_STATUS(eval_text(cases[i][0], NULL, &j, &err), SDUI_OK);
        CHECKF(j && !strcmp(j, cases[i][1]), "`%s` rendered %s, expected %s",
               cases[i][0], j ? j : "(null)", cases[i][1]);
        sdui_free(j);
    }
}

/* The paths an expression reads. */
static void test_paths(void)
{
    sdui_error err;
    sdui_expr *prog = NULL;
    const char *src = "sum(items[*].price) > limit && answers['first name'] != '' "
                      "&& a.b[0].c == x[y.z] && items[*].price > 0";
    static const char *want[] = {"items[*].price", "limit", "answers['first name']",
                                 "a.b[0].c", "x", "y.z"};
    CHECK_STATUS(sdui_expr_compile(src, strlen(src), &prog, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_expr_path_count(prog), 6);
    for (size_t i = 0; i < 6 && i < sdui_expr_path_count(prog); i++)
        CHECK_EQ_STR(sdui_expr_path(prog, i, NULL), want[i]);
    CHECK(sdui_expr_path(prog, 6, NULL) == NULL);
    size_t n;
    CHECK(!strcmp(sdui_expr_source(prog, &n), src) && n == strlen(src));
    sdui_expr_free(prog);
    /* A key with a quote, a backslash and a control character is listed
     * in a form that compiles back (found by fuzz_expr). */
    src = "answers['it\\'s \\\\ \\b']";
    CHECK_STATUS(sdui_expr_compile(src, strlen(src), &prog, &err), SDUI_OK);
    CHECK_EQ_STR(sdui_expr_path(prog, 0, NULL), "answers['it\\'s \\\\ \\u0008']");
    {
        const char *p0 = sdui_expr_path(prog, 0, NULL);
        sdui_expr *back = NULL;
        CHECK_STATUS(sdui_expr_compile(p0, strlen(p0), &back, &err), SDUI_OK);
        sdui_expr_free(back);
    }
    sdui_expr_free(prog);
}

/* Messages name the sub-expression and its byte offset. */
static void test_offsets(void)
{
    sdui_error err;
    char *j;
    CHECK_STATUS(eval_text("a == 1 && (2 + 'x') == 3", "{\"a\":1}", &j, &err), SDUI_EXPR_TYPE);
    CHECK_EQ_INT(err.offset, 10);
    CHECK_MSG_HAS("(2 + 'x')");
    CHECK_MSG_HAS("offset 10");
    CHECK_STATUS(eval_text("1 +", NULL, &j, &err), SDUI_EXPR_PARSE);
    CHECK_EQ_INT(err.offset, 3);
    CHECK_MSG_HAS("offset 3");
    CHECK_STATUS(eval_text("10 % (a - 1)", "{\"a\":1}", &j, &err), SDUI_EXPR_DIVISION);
    CHECK_EQ_INT(err.offset, 0);
    CHECK_STATUS(eval_text("x +\n  nope(1)", NULL, &j, &err), SDUI_EXPR_PARSE);
    CHECK_EQ_INT(err.offset, 6);
    CHECK_EQ_INT(err.line, 2);
    CHECK_EQ_INT(err.column, 3);
    CHECK_MSG_HAS("unknown function 'nope'");
    CHECK(j == NULL);
    /* A long unknown name is shortened in the message. */
    CHECK_STATUS(eval_text("averyveryveryveryveryveryveryveryveryverylongname(1)", NULL, &j, &err), SDUI_EXPR_PARSE);
    CHECK_MSG_HAS("unknown function 'averyveryveryveryveryveryveryveryveryver...'");
}

/* Source length, nesting, depth, steps, string and array bounds. */
static void test_limits(void)
{
    sdui_error err;
    sdui_expr *prog = NULL;
    char *src = malloc(SDUI_EXPR_MAX_SOURCE + 2), *j;
    memset(src, ' ', SDUI_EXPR_MAX_SOURCE + 1);
    src[0] = '1';
    CHECK_STATUS(sdui_expr_compile(src, SDUI_EXPR_MAX_SOURCE, &prog, &err), SDUI_OK);
    sdui_expr_free(prog);
    CHECK_STATUS(sdui_expr_compile(src, SDUI_EXPR_MAX_SOURCE + 1, &prog, &err), SDUI_LIMIT);
    /* 64 parentheses are fine, 65 are not. */
    for (int n = 64; n <= 65; n++) {
        size_t k = 0;
        for (int i = 0; i < n; i++) src[k++] = '(';
        src[k++] = '1';
        for (int i = 0; i < n; i++) src[k++] = ')';
        src[k] = 0;
        CHECK_STATUS(sdui_expr_compile(src, k, &prog, &err), n == 64 ? SDUI_OK : SDUI_LIMIT);
        sdui_expr_free(prog);
        prog = NULL;
    }
    /* A long chain is bounded by the tree depth. */
    {
        size_t k = 0;
        for (int i = 0; i < 600; i++) { src[k++] = '1'; src[k++] = '+'; }
        src[k++] = '1';
        src[k] = 0;
        CHECK_STATUS(sdui_expr_compile(src, k, &prog, &err), SDUI_LIMIT);
        CHECK_MSG_HAS("deeper");
    }
    free(src);
    /* Work: deep equality of a 60000-item array, twenty times. */
    {
        size_t cap = 60000 * 2 + 64, k = 0;
        char *data = malloc(cap);
        k += (size_t)sprintf(data, "{\"a\":[");
        for (int i = 0; i < 60000; i++) { data[k++] = '1'; data[k++] = ','; }
        k--;
        strcpy(data + k, "]}");
        CHECK_STATUS(eval_text("len(a) + len(a)", data, &j, &err), SDUI_OK);
        CHECK_EQ_STR(j, "120000");
        sdui_free(j);
        CHECK_STATUS(eval_text("[a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,"
                               "a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a]",
                               data, &j, &err), SDUI_LIMIT);
        CHECK_MSG_HAS("steps");
        CHECK_STATUS(eval_text("len(a + a)", data, &j, &err), SDUI_LIMIT);
        free(data);
    }
    /* Work inside nested values counts too: 300 arrays of 300 items,
     * compared whole twelve times, is past the bound. */
    {
        size_t k = 0;
        char *data = malloc(300 * (300 * 2 + 4) + 64);
        k += (size_t)sprintf(data, "{\"a\":[");
        for (int i = 0; i < 300; i++) {
            data[k++] = '[';
            for (int m = 0; m < 300; m++) { data[k++] = '1'; data[k++] = ','; }
            data[k - 1] = ']';
            data[k++] = ',';
        }
        k--;
        strcpy(data + k, "]}");
        CHECK_STATUS(eval_text("a == a", data, &j, &err), SDUI_OK);
        CHECK_EQ_STR(j, "true");
        sdui_free(j);
        CHECK_STATUS(eval_text("[a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a]",
                               data, &j, &err), SDUI_LIMIT);
        free(data);
    }
    /* Strings double until past the bound. */
    CHECK_STATUS(eval_text("len(join(['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa','b'], 'cccccccccccccccc'))",
                           NULL, &j, &err), SDUI_OK);
    sdui_free(j);
    {
        char big[700];
        size_t k = 0;
        k += (size_t)sprintf(big, "len(");
        /* s + s with s of 2^k bytes: ((('ab'+'ab')+...)) through string() */
        for (int i = 0; i < 17; i++) k += (size_t)sprintf(big + k, "string(");
        k += (size_t)sprintf(big + k, "'ab'");
        for (int i = 0; i < 17; i++) k += (size_t)sprintf(big + k, ")");
        k += (size_t)sprintf(big + k, ")");
        CHECK_STATUS(eval_text(big, NULL, &j, &err), SDUI_OK);
        sdui_free(j);
    }
    CHECK_STATUS(eval_text("s + s", "{\"s\":\"x\"}", &j, &err), SDUI_OK);
    sdui_free(j);
}

/* A regex that makes backtracking engines explode runs in linear time. */
static void test_regex_linear(void)
{
    sdui_error err;
    char *j;
    char data[200];
    size_t k = (size_t)sprintf(data, "{\"s\":\"");
    for (int i = 0; i < 60; i++) data[k++] = 'a';
    strcpy(data + k, "!\"}");
    CHECK_STATUS(eval_text("matches(s, '^(a|a)*(a*)*$') || matches(s, '^(a+)+$')",
                           data, &j, &err), SDUI_OK);
    CHECK_EQ_STR(j, "false");
    sdui_free(j);
}

/* One program, many threads. */
typedef struct thread_arg {
    const sdui_expr *prog;
    const sdui_value *data;
    int bad;
} thread_arg;

/* Evaluates the shared program 2000 times and counts wrong answers. */
static void *thread_main(void *p)
{
    thread_arg *a = p;
    for (int i = 0; i < 2000; i++) {
        char *j = NULL;
        sdui_error err;
        if (sdui_expr_eval_json(a->prog, lookup_root, (void *)a->data, &j, NULL, &err) != SDUI_OK ||
            strcmp(j, "[\"A-B\",12.5,true]") != 0)
            a->bad++;
        sdui_free(j);
    }
    return NULL;
}

/* Eight threads evaluate one program at once and all agree. */
static void test_threads(void)
{
    sdui_error err;
    sdui_expr *prog = NULL;
    sdui_json_doc *doc = NULL;
    const char *data = "{\"items\":[{\"n\":\"a\",\"p\":10},{\"n\":\"b\",\"p\":2.5}]}";
    const char *src = "[upper(join(items[*].n, '-')), sum(items[*].p), matches('ab12', '^[a-z]+\\\\d+$')]";
    pthread_t th[8];
    thread_arg args[8];
    CHECK_STATUS(sdui_json_doc_parse(data, strlen(data), 8, &doc, &err), SDUI_OK);
    CHECK_STATUS(sdui_expr_compile(src, strlen(src), &prog, &err), SDUI_OK);
    for (int i = 0; i < 8; i++) {
        args[i].prog = prog;
        args[i].data = sdui_json_doc_root(doc);
        args[i].bad = 0;
        CHECK(pthread_create(&th[i], NULL, thread_main, &args[i]) == 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(args[i].bad, 0);
    }
    sdui_expr_free(prog);
    sdui_json_doc_free(doc);
}

/* Allocation failures: every failing allocation answers SDUI_OOM (or the
 * call succeeds), never a crash or a leak. */
static long fail_at;
static long alloc_count;

/* malloc that fails the fail_at-th call. */
static void *f_malloc(void *ctx, size_t n)
{
    (void)ctx;
    if (++alloc_count == fail_at)
        return NULL;
    return malloc(n);
}

/* realloc that fails the fail_at-th call. */
static void *f_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (++alloc_count == fail_at)
        return NULL;
    return realloc(p, n);
}

/* free. */
static void f_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

/* Fails each allocation of compile + eval in turn. */
static void test_oom(void)
{
    sdui_allocator a = {f_malloc, f_realloc, f_free, NULL};
    const char *src = "matches(join(keys(o), ','), '^a,b$') ? [string(1.5) + 'x', o.a] : null";
    const char *data = "{\"o\":{\"b\":1,\"a\":2}}";
    int ok = 0;
    sdui_error err;
    sdui_json_doc *doc = NULL;
    /* The data is parsed with the normal allocator (the document reader
     * has its own allocation tests). */
    CHECK_STATUS(sdui_json_doc_parse(data, strlen(data), 8, &doc, &err), SDUI_OK);
    for (fail_at = 1; fail_at < 400 && !ok; fail_at++) {
        sdui_expr *prog = NULL;
        sdui_json_doc *res = NULL;
        char *j = NULL;
        alloc_count = 0;
        sdui_set_allocator(&a);
        sdui_status st = sdui_expr_compile(src, strlen(src), &prog, &err);
        if (st == SDUI_OK)
            st = sdui_expr_eval_json(prog, lookup_root, (void *)sdui_json_doc_root(doc), &j, NULL, &err);
        if (st == SDUI_OK)
            st = sdui_expr_eval(prog, lookup_root, (void *)sdui_json_doc_root(doc), &res, &err);
        sdui_expr_free(prog);
        sdui_json_doc_free(res);
        sdui_set_allocator(NULL);
        CHECKF(st == SDUI_OK || st == SDUI_OOM, "fail_at %ld: %s", fail_at, err.message);
        if (st == SDUI_OK) {
            CHECK_EQ_STR(j, "[\"1.5x\",2]");
            ok = 1;
        }
        free(j);
    }
    sdui_json_doc_free(doc);
    CHECK(ok);
}

/* Runs the vectors and the unit tests. */
int main(void)
{
    run_vectors();
    test_result_tree();
    test_result_deep();
    test_result_bound();
    test_json_text();
    test_paths();
    test_offsets();
    test_limits();
    test_regex_linear();
    test_threads();
    test_oom();
    return check_summary();
}
