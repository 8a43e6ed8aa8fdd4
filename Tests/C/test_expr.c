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
#include <stdarg.h>
#include <stdlib.h>

#include <jansson.h>

#include "check.h"
#include "value_eq.h"

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
        CHECKF(value_same(sdui_json_doc_root(res), sdui_json_doc_root(back)),
               "%s: eval's tree is not eval_json's %s", where, json);
    sdui_json_doc_free(back);
    sdui_json_doc_free(res);
}

/*
 * The slot entry points against the lookup's: the roots looked up once by
 * the names sdui_expr_root lists, sdui_expr_eval_roots gives the same
 * status, error record and tree as sdui_expr_eval, and sdui_expr_eval_bool
 * the same boolean, the same error, or SDUI_EXPR_TYPE for any other value.
 */
static void check_slots_match(const sdui_expr *prog, const sdui_value *data, const char *where)
{
    enum { MAX = 64 };
    const sdui_value *roots[MAX];
    size_t n = sdui_expr_root_count(prog);
    sdui_error err, serr;
    sdui_json_doc *res = NULL, *sres = NULL;
    int truth = -1;
    if (n > MAX)
        return;
    for (size_t k = 0; k < n; k++) {
        size_t len;
        const char *name = sdui_expr_root(prog, k, &len);
        CHECKF(name && strlen(name) == len, "%s: root %zu", where, k);
        roots[k] = data && name ? sdui_value_get(data, name) : NULL;
    }
    CHECK(sdui_expr_root(prog, n, NULL) == NULL);
    sdui_status st = sdui_expr_eval(prog, lookup_root, (void *)data, &res, &err);
    sdui_status sst = sdui_expr_eval_roots(prog, n ? roots : NULL, n, &sres, &serr);
    if (CHECKF(sst == st, "%s: eval_roots gave %s, eval %s", where, sdui_status_name(sst),
               sdui_status_name(st))) {
        if (st == SDUI_OK)
            CHECKF(value_same(sdui_json_doc_root(res), sdui_json_doc_root(sres)),
                   "%s: eval_roots's tree is not eval's", where);
        else
            CHECKF(!strcmp(err.message, serr.message) && err.offset == serr.offset,
                   "%s: eval_roots's error \"%s\" is not eval's \"%s\"", where, serr.message,
                   err.message);
    }
    sst = sdui_expr_eval_bool(prog, n ? roots : NULL, n, &truth, &serr);
    if (st == SDUI_LIMIT && strstr(err.message, "result longer"))
        CHECKF(sst == SDUI_EXPR_TYPE, "%s: eval_bool of a long result gave %s", where,
               sdui_status_name(sst));   /* no condition writes a result */
    else if (st != SDUI_OK)
        CHECKF(sst == st && !strcmp(err.message, serr.message),
               "%s: eval_bool gave %s \"%s\", eval %s \"%s\"", where, sdui_status_name(sst),
               serr.message, sdui_status_name(st), err.message);
    else if (sdui_value_type_of(sdui_json_doc_root(res)) == SDUI_VALUE_BOOL)
        CHECKF(sst == SDUI_OK && truth == sdui_value_bool(sdui_json_doc_root(res)),
               "%s: eval_bool gave %s %d", where, sdui_status_name(sst), truth);
    else
        CHECKF(sst == SDUI_EXPR_TYPE && strstr(serr.message, "not a boolean") &&
               truth == -1, "%s: eval_bool of a non-boolean gave %s (%s)", where,
               sdui_status_name(sst), serr.message);
    sdui_json_doc_free(res);
    sdui_json_doc_free(sres);
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
        check_slots_match(prog, data ? sdui_json_doc_root(data) : NULL, where);
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

/* Root slots: numbered by first appearance, each name once, NULL or
 * missing slots absent, member lookups in hashed objects (more than 16
 * members) by the compiled hash, and the arguments checked. */
static void test_slots(void)
{
    sdui_error err;
    sdui_expr *prog = NULL;
    sdui_json_doc *doc = NULL, *res = NULL;
    size_t len = 0;
    int truth = -1;
    const char *src = "user.age >= 18 && 'beta' in user.flags && (cart.total ?? 0) > 0 && cart.n != x";
    CHECK_STATUS(sdui_expr_compile(src, strlen(src), &prog, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_expr_root_count(prog), 3);
    CHECK_EQ_STR(sdui_expr_root(prog, 0, &len), "user");
    CHECK_EQ_INT(len, 4);
    CHECK_EQ_STR(sdui_expr_root(prog, 1, NULL), "cart");
    CHECK_EQ_STR(sdui_expr_root(prog, 2, NULL), "x");
    CHECK(sdui_expr_root(prog, 3, &len) == NULL);

    /* cart has 40 members, so the core indexes them (a hash lookup). */
    char data[2048];
    size_t k = (size_t)sprintf(data, "{\"user\":{\"age\":30,\"flags\":[\"alpha\",\"beta\"]},\"cart\":{");
    for (int i = 0; i < 40; i++)
        k += (size_t)sprintf(data + k, "\"m%d\":%d,", i, i);
    k += (size_t)sprintf(data + k, "\"total\":12.5,\"n\":1}}");
    CHECK_STATUS(sdui_json_doc_parse(data, k, 8, &doc, &err), SDUI_OK);
    const sdui_value *root = sdui_json_doc_root(doc);
    const sdui_value *roots[3] = {sdui_value_get(root, "user"), sdui_value_get(root, "cart"), NULL};
    CHECK_STATUS(sdui_expr_eval_bool(prog, roots, 3, &truth, &err), SDUI_OK);
    CHECK_EQ_INT(truth, 1);
    /* Fewer slots than names: the rest are absent (x is null, 1 != null). */
    CHECK_STATUS(sdui_expr_eval_bool(prog, roots, 2, &truth, &err), SDUI_OK);
    CHECK_EQ_INT(truth, 1);
    /* cart absent: (null ?? 0) > 0 is false. */
    roots[1] = NULL;
    CHECK_STATUS(sdui_expr_eval_bool(prog, roots, 3, &truth, &err), SDUI_OK);
    CHECK_EQ_INT(truth, 0);
    /* No roots at all: null >= 18 is a type error, named. */
    truth = 7;
    CHECK_STATUS(sdui_expr_eval_bool(prog, NULL, 0, &truth, &err), SDUI_EXPR_TYPE);
    CHECK_EQ_INT(truth, 7);
    sdui_expr_free(prog);

    /* Member names of a hashed object, missing ones too, through slots. */
    src = "[cart.m0, cart.m39, cart.total, cart.nope]";
    CHECK_STATUS(sdui_expr_compile(src, strlen(src), &prog, &err), SDUI_OK);
    roots[0] = sdui_value_get(root, "cart");
    CHECK_STATUS(sdui_expr_eval_roots(prog, roots, 1, &res, &err), SDUI_OK);
    if (res) {
        const sdui_value *r = sdui_json_doc_root(res);
        CHECK_EQ_INT(sdui_value_count(r), 4);
        CHECK_EQ_INT(sdui_value_int(sdui_value_at(r, 1)), 39);
        CHECK(sdui_value_real(sdui_value_at(r, 2)) == 12.5);
        CHECK_EQ_INT(sdui_value_type_of(sdui_value_at(r, 3)), SDUI_VALUE_NULL);
    }
    sdui_json_doc_free(res);
    res = NULL;
    /* A value, not a boolean: the type error names the expression. */
    CHECK_STATUS(sdui_expr_eval_bool(prog, roots, 1, &truth, &err), SDUI_EXPR_TYPE);
    CHECK(strstr(err.message, "a condition gave an array, not a boolean") != NULL);
    CHECK(strstr(err.message, "[cart.m0") != NULL);
    CHECK_EQ_INT(err.offset, 0);
    /* The arguments. */
    CHECK_STATUS(sdui_expr_eval_bool(NULL, roots, 1, &truth, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_expr_eval_bool(prog, roots, 1, NULL, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_expr_eval_bool(prog, NULL, 2, &truth, &err), SDUI_ARGUMENT);
    CHECK(strstr(err.message, "roots is NULL") != NULL);
    CHECK_STATUS(sdui_expr_eval_roots(prog, roots, 1, NULL, &err), SDUI_ARGUMENT);
    res = (sdui_json_doc *)1;
    CHECK_STATUS(sdui_expr_eval_roots(prog, NULL, 1, &res, &err), SDUI_ARGUMENT);
    CHECK(res == (sdui_json_doc *)1);
    sdui_expr_free(prog);

    /* The same name many times over is one slot. */
    src = "a + a + a.b + a['c'] + b";
    CHECK_STATUS(sdui_expr_compile(src, strlen(src), &prog, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_expr_root_count(prog), 2);
    CHECK_EQ_STR(sdui_expr_root(prog, 1, NULL), "b");
    sdui_expr_free(prog);
    sdui_json_doc_free(doc);
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
    /* Work: deep equality of two 60000-item arrays, twenty times. */
    {
        size_t cap = 60000 * 2 + 64, k = 0;
        char *arr = malloc(cap), *data = malloc(2 * cap);
        arr[k++] = '[';
        for (int i = 0; i < 60000; i++) { arr[k++] = '1'; arr[k++] = ','; }
        strcpy(arr + k - 1, "]");
        sprintf(data, "{\"a\":%s,\"b\":%s}", arr, arr);
        CHECK_STATUS(eval_text("len(a) + len(a)", data, &j, &err), SDUI_OK);
        CHECK_EQ_STR(j, "120000");
        sdui_free(j);
        CHECK_STATUS(eval_text("[a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,"
                               "a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b]",
                               data, &j, &err), SDUI_LIMIT);
        CHECK_MSG_HAS("steps");
        /* A value compared with itself is equal at once. */
        CHECK_STATUS(eval_text("[a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,"
                               "a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a,a==a]",
                               data, &j, &err), SDUI_OK);
        sdui_free(j);
        CHECK_STATUS(eval_text("len(a + a)", data, &j, &err), SDUI_LIMIT);
        free(arr);
        free(data);
    }
    /* Work inside nested values counts too: 300 arrays of 300 items,
     * compared whole twelve times, is past the bound. */
    {
        size_t k = 0;
        char *arr = malloc(300 * (300 * 2 + 4) + 64), *data = malloc(2 * (300 * (300 * 2 + 4) + 64));
        arr[k++] = '[';
        for (int i = 0; i < 300; i++) {
            arr[k++] = '[';
            for (int m = 0; m < 300; m++) { arr[k++] = '1'; arr[k++] = ','; }
            arr[k - 1] = ']';
            arr[k++] = ',';
        }
        strcpy(arr + k - 1, "]");
        sprintf(data, "{\"a\":%s,\"b\":%s}", arr, arr);
        CHECK_STATUS(eval_text("a == b", data, &j, &err), SDUI_OK);
        CHECK_EQ_STR(j, "true");
        sdui_free(j);
        CHECK_STATUS(eval_text("[a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b,a==b]",
                               data, &j, &err), SDUI_LIMIT);
        free(arr);
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

/* ---- Work: every costly operation counts what it does (point 7). */

/* A growing text for the data of the work tests. */
typedef struct tbuf {
    char *s;
    size_t n, cap;
} tbuf;

/* Appends n bytes. */
static void tb_put(tbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

/* Appends the text s (NUL-terminated) times times. */
static void tb_rep(tbuf *b, const char *s, size_t times)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < times; i++)
        tb_put(b, s, n);
}

/* Appends printf-style text. */
static void tb_fmt(tbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    tb_put(b, tmp, (size_t)n);
}

/* item repeated times times as an array literal (at most 200 a list). */
static char *repeated(const char *item, int times)
{
    tbuf b = {0};
    tb_put(&b, "[[", 2);
    for (int i = 0; i < times; i++) {
        if (i && i % 200 == 0)
            tb_put(&b, "],[", 3);
        else if (i)
            tb_put(&b, ",", 1);
        tb_put(&b, item, strlen(item));
    }
    tb_put(&b, "]]", 2);
    return b.s;
}

/* Evaluates src against data and checks the status; *json freed. */
static void check_eval(const char *src, const char *data, sdui_status want, const char *where)
{
    sdui_error err;
    char *j = NULL;
    sdui_status st = eval_text(src, data, &j, &err);
    CHECKF(st == want, "%s: %s, expected %s (%s)", where, sdui_status_name(st),
           sdui_status_name(want), st == SDUI_OK ? j : err.message);
    if (st == SDUI_LIMIT && want == SDUI_LIMIT)
        CHECKF(strstr(err.message, "steps") != NULL, "%s: %s", where, err.message);
    sdui_free(j);
}

/* keys() sorts in n log n comparisons, each counted with its bytes. */
static void test_work_keys(void)
{
    sdui_error err;
    tbuf b = {0};
    char *j = NULL;
    /* 5000 keys in a scrambled order come back in byte order. */
    tb_put(&b, "{\"o\":{", 6);
    for (int i = 0; i < 5000; i++)
        tb_fmt(&b, "%s\"k%d\":%d", i ? "," : "", (i * 7919) % 5000, i);
    tb_put(&b, "}}", 2);
    CHECK_STATUS(eval_text("keys(o)", b.s, &j, &err), SDUI_OK);
    if (j) {
        json_t *got = json_loads(j, JSON_DECODE_ANY, NULL);
        int sorted = json_is_array(got) && json_array_size(got) == 5000;
        for (size_t i = 1; sorted && i < 5000; i++)
            sorted = strcmp(json_string_value(json_array_get(got, i - 1)),
                            json_string_value(json_array_get(got, i))) < 0;
        CHECK(sorted);
        json_decref(got);
    }
    sdui_free(j);
    /* 2000 keys sharing a 1000-byte prefix: some 22,000 comparisons of
     * 1000 bytes each are past the bound. */
    b.n = 0;
    tb_put(&b, "{\"o\":{", 6);
    for (int i = 0; i < 2000; i++) {
        tb_put(&b, i ? ",\"" : "\"", i ? 2 : 1);
        tb_rep(&b, "k", 1000);
        tb_fmt(&b, "%05d\":0", 2000 - i);
    }
    tb_put(&b, "}}", 2);
    check_eval("len(keys(o))", b.s, SDUI_LIMIT, "keys of long keys");
    free(b.s);
}

/* A naive search, the reference for the two-way search. */
static int naive_contains(const char *h, size_t hn, const char *n, size_t nn)
{
    for (size_t i = 0; nn <= hn && i <= hn - nn; i++)
        if (!memcmp(h + i, n, nn))
            return 1;
    return 0;
}

/* contains(s, sub) agrees with a naive search on random strings over
 * small alphabets (periodic needles included), and is linear: a needle
 * that makes a naive search quadratic (a^m b in a^n) is answered within
 * the bound. */
static void test_work_contains(void)
{
    sdui_error err;
    sdui_expr *prog = NULL;
    unsigned long seed = 12345;
    int wrong = 0;
    CHECK_STATUS(sdui_expr_compile("contains(s, t)", 14, &prog, &err), SDUI_OK);
    for (int c = 0; c < 20000 && prog; c++) {
        char h[64], n[24], data[160], *j = NULL;
        size_t hn, nn;
        int k = 2 + c % 3;
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        hn = (seed >> 33) % 48;
        nn = (seed >> 40) % 12;
        for (size_t i = 0; i < hn; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            h[i] = (char)('a' + (seed >> 35) % (unsigned)k);
        }
        for (size_t i = 0; i < nn; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            /* A third of the needles are periodic (a run of a short word),
             * a third are cut from the text itself. */
            if (c % 3 == 0 && i >= 2)
                n[i] = n[i - 2];
            else if (c % 3 == 1 && hn >= nn)
                n[i] = h[(seed >> 37) % (hn - nn + 1) + 0 * i];
            else
                n[i] = (char)('a' + (seed >> 35) % (unsigned)k);
        }
        if (c % 3 == 1 && hn >= nn && nn) {
            size_t at = (seed >> 20) % (hn - nn + 1);
            memcpy(n, h + at, nn);
            if (c % 6 == 1)
                n[nn - 1] = (char)(n[nn - 1] == 'a' ? 'b' : 'a');
        }
        snprintf(data, sizeof data, "{\"s\":\"%.*s\",\"t\":\"%.*s\"}", (int)hn, h, (int)nn, n);
        sdui_json_doc *doc = NULL;
        if (sdui_json_doc_parse(data, strlen(data), 8, &doc, &err) != SDUI_OK ||
            sdui_expr_eval_json(prog, lookup_root, (void *)sdui_json_doc_root(doc), &j, NULL,
                                &err) != SDUI_OK ||
            strcmp(j, naive_contains(h, hn, n, nn) ? "true" : "false") != 0) {
            if (wrong++ < 5)
                CHECKF(0, "contains('%.*s', '%.*s') is %s", (int)hn, h, (int)nn, n, j ? j : "an error");
        }
        sdui_free(j);
        sdui_json_doc_free(doc);
    }
    CHECK_EQ_INT(wrong, 0);
    sdui_expr_free(prog);
    /* a^(256K) b in a^(1M): a naive search compares 256 KiB at each of
     * 768K places; two-way some 5M bytes in all (the cut of the needle and
     * a window a place), within the bound once but not twice. */
    {
        tbuf b = {0};
        char *j = NULL;
        tb_put(&b, "{\"s\":\"", 6);
        for (int i = 0; i < 1 << 20; i++)
            tb_put(&b, "a", 1);
        tb_put(&b, "\",\"t\":\"", 7);
        for (int i = 0; i < 1 << 18; i++)
            tb_put(&b, "a", 1);
        tb_put(&b, "b\"}", 3);
        CHECK_STATUS(eval_text("contains(s, t) || contains(s, t)", b.s, &j, &err), SDUI_LIMIT);
        sdui_free(j);
        CHECK_STATUS(eval_text("contains(s, t)", b.s, &j, &err), SDUI_OK);
        CHECK_EQ_STR(j, "false");
        sdui_free(j);
        free(b.s);
    }
}

/* Strings of the data far longer than any the evaluator makes: their
 * bytes count as they are read, compared, scanned or hashed. */
static void test_work_strings(void)
{
    tbuf b = {0};
    char *src;
    /* Two equal strings of 1 MiB (distinct copies), spaces, and 'é's. */
    tb_put(&b, "{\"s\":\"", 6);
    tb_rep(&b, "a", 1 << 20);
    tb_put(&b, "\",\"t\":\"", 7);
    tb_rep(&b, "a", 1 << 20);
    tb_put(&b, "\",\"w\":\"", 7);
    tb_rep(&b, " ", 1 << 20);
    tb_put(&b, "\",\"u\":\"", 7);
    tb_rep(&b, "\xc3\xa9", 1 << 19);
    tb_put(&b, "\",\"o\":{\"x\":1}}", 14);
    check_eval("len(u) + len(u)", b.s, SDUI_OK, "len twice");
    src = repeated("len(u)", 20);
    check_eval(src, b.s, SDUI_LIMIT, "len twenty times");
    free(src);
    check_eval("s == t", b.s, SDUI_OK, "equal strings");
    src = repeated("s == t", 20);
    check_eval(src, b.s, SDUI_LIMIT, "equal strings twenty times");
    free(src);
    src = repeated("s <= t", 20);
    check_eval(src, b.s, SDUI_LIMIT, "ordered strings twenty times");
    free(src);
    src = repeated("starts_with(s, t)", 20);
    check_eval(src, b.s, SDUI_LIMIT, "starts_with twenty times");
    free(src);
    src = repeated("trim(w)", 20);
    check_eval(src, b.s, SDUI_LIMIT, "trim twenty times");
    free(src);
    /* A member looked up by a 1 MiB key hashes it. */
    src = repeated("o[s]", 20);
    check_eval(src, b.s, SDUI_LIMIT, "long keys twenty times");
    free(src);
    src = repeated("s in o", 20);
    check_eval(src, b.s, SDUI_LIMIT, "long keys in an object twenty times");
    free(src);
    /* A value compared with itself costs nothing. */
    src = repeated("s == s", 200);
    check_eval(src, b.s, SDUI_OK, "a string compared with itself");
    free(src);
    free(b.s);
}

/* Objects compared member by member count the lookups; string() counts
 * the values it writes. */
static void test_work_values(void)
{
    tbuf b = {0};
    char *src;
    /* 100,000 members in opposite orders: each is looked up. */
    tb_put(&b, "{\"o\":{", 6);
    for (int i = 0; i < 100000; i++)
        tb_fmt(&b, "%s\"k%d\":%d", i ? "," : "", i, i);
    tb_put(&b, "},\"p\":{", 7);
    for (int i = 100000; i-- > 0;)
        tb_fmt(&b, "%s\"k%d\":%d", i < 99999 ? "," : "", i, i);
    tb_put(&b, "},\"q\":{", 7);
    for (int i = 0; i < 100000; i++)
        tb_fmt(&b, "%s\"k%d\":%d", i ? "," : "", i, i);
    tb_put(&b, "},\"a\":[", 7);
    for (int i = 0; i < 30000; i++)
        tb_put(&b, i ? ",0" : "0", i ? 2 : 1);
    tb_put(&b, "]}", 2);
    check_eval("o == q", b.s, SDUI_OK, "objects in the same order");
    check_eval("o == p", b.s, SDUI_LIMIT, "objects in opposite orders");
    check_eval("len(string(a))", b.s, SDUI_OK, "string() of an array");
    src = repeated("len(string(a))", 30);
    check_eval(src, b.s, SDUI_LIMIT, "string() of an array thirty times");
    free(src);
    free(b.s);
}

/* matches() counts every instruction it reaches (ε-moves included) and
 * every probe of a class. */
static void test_work_regex(void)
{
    tbuf b = {0};
    /* 300 empty alternations before a 'b': some 1200 ε-moves a character. */
    tb_put(&b, "{\"s\":\"", 6);
    tb_rep(&b, "a", 5000);
    tb_put(&b, "\",\"p\":\"", 7);
    tb_rep(&b, "(|)", 300);
    tb_put(&b, "b\",\"q\":\"[", 9);
    for (int i = 0; i < 511; i++) {
        unsigned cp = 0x100 + 2u * (unsigned)i;
        char u[2] = {(char)(0xC0 | (cp >> 6)), (char)(0x80 | (cp & 0x3F))};
        tb_put(&b, u, 2);
    }
    tb_put(&b, "]\",\"big\":\"", 10);
    tb_rep(&b, "a", 300000);
    tb_put(&b, "\"}", 2);
    check_eval("matches('aab', p)", b.s, SDUI_OK, "ε-moves, short subject");
    check_eval("matches(s, p)", b.s, SDUI_LIMIT, "ε-moves, 5000 characters");
    check_eval("matches('\xc4\x80', q)", b.s, SDUI_OK, "511 ranges, one character");
    check_eval("matches(big, q)", b.s, SDUI_LIMIT, "511 ranges, 300,000 characters");
    /* Counted repetition stays linear and counted: 2000 instructions, a
     * thread for each of the last 1000 places live at every character. */
    check_eval("matches(s, '[ab]{1,1000}c')", b.s, SDUI_LIMIT,
               "counted repetition over 5000 characters");
    free(b.s);
    {
        sdui_error err;
        char *j = NULL;
        tbuf d = {0};
        tb_put(&d, "{\"s\":\"", 6);
        tb_rep(&d, "ab", 500);
        tb_put(&d, "\",\"t\":\"", 7);
        tb_rep(&d, "ab", 500);
        tb_put(&d, "a\"}", 3);
        CHECK_STATUS(eval_text("[matches(s, '^[ab]{1,1000}$'), matches(t, '^[ab]{1,1000}$'), "
                               "matches(s, '^(ab){500}$'), matches(t, '^(ab){500}a{1}$')]",
                               d.s, &j, &err), SDUI_OK);
        CHECK_EQ_STR(j, "[true,false,true,true]");
        sdui_free(j);
        free(d.s);
    }
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

/* A condition on the stack block calls the allocator for nothing; one
 * whose values outgrow it (a long joined string) gets heap blocks, freed
 * before the call returns. */
static void test_bool_allocates_nothing(void)
{
    sdui_allocator a = {f_malloc, f_realloc, f_free, NULL};
    sdui_error err;
    sdui_expr *prog = NULL, *big = NULL;
    sdui_json_doc *doc = NULL;
    int truth = -1;
    const char *data = "{\"cart\":{\"total\":12.5},\"user\":{\"age\":30,\"flags\":[\"alpha\",\"beta\"]},"
                       "\"s\":\"0123456789012345678901234567890123456789\"}";
    const char *src = "cart.total > 0 && user.age >= 18 && 'beta' in user.flags";
    const char *bsrc = "len(join([s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, "
                       "s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, "
                       "s, s, s, s, s, s, s, s, s, s], '-')) > 2048";
    CHECK_STATUS(sdui_json_doc_parse(data, strlen(data), 8, &doc, &err), SDUI_OK);
    CHECK_STATUS(sdui_expr_compile(src, strlen(src), &prog, &err), SDUI_OK);
    CHECK_STATUS(sdui_expr_compile(bsrc, strlen(bsrc), &big, &err), SDUI_OK);
    const sdui_value *root = sdui_json_doc_root(doc);
    const sdui_value *roots[2] = {sdui_value_get(root, "cart"), sdui_value_get(root, "user")};
    const sdui_value *sroots[1] = {sdui_value_get(root, "s")};
    fail_at = -1;
    alloc_count = 0;
    sdui_set_allocator(&a);
    sdui_status st = sdui_expr_eval_bool(prog, roots, 2, &truth, &err);
    long counted = alloc_count;
    sdui_status bst = sdui_expr_eval_bool(big, sroots, 1, &truth, &err);
    long big_counted = alloc_count - counted;
    fail_at = alloc_count + 1;   /* the big one again, its first heap block refused */
    sdui_status oom = sdui_expr_eval_bool(big, sroots, 1, &truth, &err);
    sdui_set_allocator(NULL);
    CHECK_STATUS(st, SDUI_OK);
    CHECK_EQ_INT(counted, 0);
    CHECK_STATUS(bst, SDUI_OK);
    CHECK_EQ_INT(truth, 1);
    CHECKF(big_counted > 0, "a condition past the stack block allocated %ld times", big_counted);
    CHECK_STATUS(oom, SDUI_OOM);
    sdui_expr_free(prog);
    sdui_expr_free(big);
    sdui_json_doc_free(doc);
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
    test_slots();
    test_bool_allocates_nothing();
    test_result_deep();
    test_result_bound();
    test_json_text();
    test_paths();
    test_offsets();
    test_limits();
    test_work_keys();
    test_work_contains();
    test_work_strings();
    test_work_values();
    test_work_regex();
    test_regex_linear();
    test_threads();
    test_oom();
    return check_summary();
}
