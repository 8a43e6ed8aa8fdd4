/*
 * test_expr_fns.c - the function table of the expression language
 * (csrc/expr_fn.c, sdui__expr_fns): every row well-formed, the parser
 * honouring each row's argument counts, each body wired to report its
 * errors at its call, and each row complete: it has cases in the published
 * vectors (Tests/ExprVectors, or the directory named by SDUI_EXPR_VECTORS)
 * and a line in the functions table of docs/expressions.md.  Adding a
 * function is a row, a body and its tests; this file fails when one of the
 * three is missing or a row is broken.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "check.h"
/* The table itself (sdui__expr_fns, sdui__expr_fn_find). */
#include "../../csrc/expr_internal.h"

/* The words the parser reads before it looks for a function, so a row
 * with one of them as its name could never be called. */
static const char *const reserved[] = {"true", "false", "null", "in"};

/* 1 if name is a name the grammar reads: [A-Za-z_][A-Za-z0-9_]*. */
static int is_name(const char *name)
{
    if (!name || !sdui__expr_ident_char(name[0], 1))
        return 0;
    for (size_t i = 1; name[i]; i++)
        if (!sdui__expr_ident_char(name[i], 0))
            return 0;
    return 1;
}

/* Every row: a reachable, unique name, argument counts in order, a body;
 * and sdui__expr_fn_find finds each row by its name and nothing else. */
static void test_rows(void)
{
    CHECKF(sdui__expr_fn_count > 0, "the function table is empty");
    for (size_t i = 0; i < sdui__expr_fn_count; i++) {
        const sdui_xfn *f = &sdui__expr_fns[i];
        const char *name = f->name ? f->name : "(NULL)";
        CHECKF(is_name(f->name), "row %zu: name \"%s\" is not a name of the grammar", i, name);
        for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
            CHECKF(!f->name || strcmp(f->name, reserved[k]) != 0,
                   "row %zu: \"%s\" is a keyword, never read as a call", i, name);
        for (size_t j = 0; j < i; j++)
            CHECKF(!f->name || !sdui__expr_fns[j].name || strcmp(f->name, sdui__expr_fns[j].name) != 0,
                   "rows %zu and %zu are both named \"%s\"", j, i, name);
        CHECKF(f->min >= 0 && f->min <= 256, "row %zu (%s): min %d is not 0 to 256", i, name, f->min);
        CHECKF(f->max == -1 || (f->max >= f->min && f->max <= 256),
               "row %zu (%s): max %d is neither -1 nor min (%d) to 256", i, name, f->max, f->min);
        CHECKF(f->call != NULL, "row %zu (%s) has no function", i, name);
        if (f->name)
            CHECKF(sdui__expr_fn_find(f->name, strlen(f->name)) == f,
                   "row %zu (%s) is not the row found by its name", i, name);
    }
    CHECK(sdui__expr_fn_find("nope", 4) == NULL);
    CHECK(sdui__expr_fn_find("len", 2) == NULL);  /* a prefix is not a name */
    CHECK(sdui__expr_fn_find("lens", 4) == NULL);
}

/* src: "  name(null, null, ...)" with args arguments (or "1" each when
 * ones), NUL-terminated, in buf. */
static const char *call_text(char *buf, size_t size, const char *name, int args, int ones)
{
    size_t n = (size_t)snprintf(buf, size, "  %s(", name);
    for (int k = 0; k < args && n < size; k++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? ", " : "", ones ? "1" : "null");
    if (n < size)
        snprintf(buf + n, size - n, ")");
    return buf;
}

/* The parser reads each row's counts: its least and most argument count
 * compile, one fewer or one more is a parse error at the call, and a row
 * with no most takes many. */
static void test_counts(void)
{
    char src[2048];
    for (size_t i = 0; i < sdui__expr_fn_count; i++) {
        const sdui_xfn *f = &sdui__expr_fns[i];
        sdui_expr *prog = NULL;
        sdui_error err;
        if (!f->name || f->min < 0 || f->min > 256 || f->max > 256)
            continue; /* test_rows reports it */
        call_text(src, sizeof src, f->name, f->min, 1);
        CHECKF(sdui_expr_compile(src, strlen(src), &prog, &err) == SDUI_OK,
               "%s: with %d arguments: %s", src, f->min, err.message);
        sdui_expr_free(prog);
        prog = NULL;
        call_text(src, sizeof src, f->name, f->max >= 0 ? f->max : f->min + 5, 1);
        CHECKF(sdui_expr_compile(src, strlen(src), &prog, &err) == SDUI_OK, "%s: %s", src,
               err.message);
        sdui_expr_free(prog);
        prog = NULL;
        if (f->min > 0) {
            call_text(src, sizeof src, f->name, f->min - 1, 1);
            CHECKF(sdui_expr_compile(src, strlen(src), &prog, &err) == SDUI_EXPR_PARSE &&
                   err.offset == 2 && strstr(err.message, "wrong number of arguments"),
                   "%s: one argument too few is not refused at the call (%s)", src, err.message);
            sdui_expr_free(prog);
            prog = NULL;
        }
        if (f->max >= 0) {
            call_text(src, sizeof src, f->name, f->max + 1, 1);
            CHECKF(sdui_expr_compile(src, strlen(src), &prog, &err) == SDUI_EXPR_PARSE &&
                   err.offset == 2 && strstr(err.message, "wrong number of arguments"),
                   "%s: one argument too many is not refused at the call (%s)", src, err.message);
            sdui_expr_free(prog);
            prog = NULL;
        }
    }
}

/* Each body runs when its row is called, and an error it reports names
 * the call's text and byte offset (nulls as arguments: most bodies refuse
 * them, some take them). */
static void test_bodies(void)
{
    char src[2048], want[2100];
    for (size_t i = 0; i < sdui__expr_fn_count; i++) {
        const sdui_xfn *f = &sdui__expr_fns[i];
        sdui_expr *prog = NULL;
        sdui_error err;
        char *json = NULL;
        sdui_status st;
        if (!f->name || !f->call || f->min < 0 || f->min > 256)
            continue; /* test_rows reports it */
        call_text(src, sizeof src, f->name, f->min, 0);
        if (!CHECKF(sdui_expr_compile(src, strlen(src), &prog, &err) == SDUI_OK, "%s: %s", src,
                    err.message))
            continue;
        st = sdui_expr_eval_json(prog, NULL, NULL, &json, NULL, &err);
        if (st != SDUI_OK) {
            snprintf(want, sizeof want, "`%s` at offset 2", src + 2);
            CHECKF(err.offset == 2 && strstr(err.message, want),
                   "%s: the error does not name the call: %s", src, err.message);
        }
        sdui_free(json);
        sdui_expr_free(prog);
    }
}

/* 1 if text holds name followed by '(' where name is not the tail of a
 * longer name (`max(` is not in `amax(`). */
static int calls(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
        if (p[n] == '(' && (p == text || !sdui__expr_ident_char(p[-1], 0)))
            return 1;
    return 0;
}

/* Sets seen[i] for each row called by some case of the vector files. */
static void scan_vectors(int *seen)
{
    const char *dir = getenv("SDUI_EXPR_VECTORS");
    DIR *dp;
    struct dirent *de;
    if (!dir)
        dir = "Tests/ExprVectors";
    dp = opendir(dir);
    if (!CHECKF(dp != NULL, "cannot open %s", dir))
        return;
    while ((de = readdir(dp))) {
        char path[1024];
        json_error_t jerr;
        size_t l = strlen(de->d_name), k;
        json_t *doc, *c;
        if (l <= 5 || strcmp(de->d_name + l - 5, ".json"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        doc = json_load_file(path, 0, &jerr);
        if (!CHECKF(doc != NULL, "%s: %s", path, jerr.text))
            continue;
        json_array_foreach(json_object_get(doc, "cases"), k, c) {
            const char *src = json_string_value(json_object_get(c, "expr"));
            for (size_t i = 0; src && i < sdui__expr_fn_count; i++)
                if (sdui__expr_fns[i].name && calls(src, sdui__expr_fns[i].name))
                    seen[i] = 1;
        }
        json_decref(doc);
    }
    closedir(dp);
}

/* The "## Functions" section of docs/expressions.md, NUL-terminated (the
 * caller frees it), or NULL. */
static char *functions_doc(void)
{
    FILE *fp = fopen("docs/expressions.md", "rb");
    char *text, *start, *end;
    long n;
    if (!CHECKF(fp != NULL, "cannot open docs/expressions.md"))
        return NULL;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, fp) != (size_t)n) {
        fclose(fp);
        free(text);
        CHECKF(0, "cannot read docs/expressions.md");
        return NULL;
    }
    fclose(fp);
    text[n] = 0;
    start = strstr(text, "\n## Functions\n");
    if (!CHECKF(start != NULL, "docs/expressions.md has no \"## Functions\" section")) {
        free(text);
        return NULL;
    }
    end = strstr(start + 1, "\n## ");
    if (end)
        *end = 0;
    memmove(text, start, strlen(start) + 1);
    return text;
}

/* Every row has vector cases that call it and a line of its own in the
 * documented functions table (`name(` in backquotes). */
static void test_complete(void)
{
    int seen[1024] = {0};
    char *doc = functions_doc();
    if (!CHECKF(sdui__expr_fn_count <= 1024, "more rows than this test counts"))
        return;
    scan_vectors(seen);
    for (size_t i = 0; i < sdui__expr_fn_count; i++) {
        const char *name = sdui__expr_fns[i].name;
        char quoted[300];
        if (!name)
            continue;
        CHECKF(seen[i], "%s has no case in the vectors (Tests/ExprVectors)", name);
        snprintf(quoted, sizeof quoted, "`%s(", name);
        if (doc)
            CHECKF(strstr(doc, quoted) != NULL,
                   "%s is not in the functions table of docs/expressions.md", name);
    }
    free(doc);
}

/* Compiles and evaluates src (no data); the status, err filled. */
static sdui_status eval_src(const char *src, sdui_error *err)
{
    sdui_expr *prog = NULL;
    char *json = NULL;
    sdui_status st = sdui_expr_compile(src, strlen(src), &prog, err);
    if (st == SDUI_OK)
        st = sdui_expr_eval_json(prog, NULL, NULL, &json, NULL, err);
    sdui_free(json);
    sdui_expr_free(prog);
    return st;
}

/* clamp(x, lo, hi): what the vectors cannot show, the message and place
 * of its errors. */
static void test_clamp(void)
{
    sdui_error err;
    CHECK_STATUS(eval_src("1 + clamp(5, 3, 1)", &err), SDUI_EXPR_VALUE);
    CHECK_EQ_INT(err.offset, 4);
    CHECK_MSG_HAS("clamp's low bound 3 is above its high bound 1 in `clamp(5, 3, 1)` at offset 4");
    CHECK_STATUS(eval_src("clamp(0, 2.5, 1)", &err), SDUI_EXPR_VALUE);
    CHECK_MSG_HAS("low bound 2.5 is above its high bound 1 in");
    CHECK_STATUS(eval_src("[1,\n clamp(1, 'a', 3)]", &err), SDUI_EXPR_TYPE);
    CHECK_EQ_INT(err.offset, 5);
    CHECK_EQ_INT(err.line, 2);
    CHECK_EQ_INT(err.column, 2);
    CHECK_MSG_HAS("clamp needs three numbers in `clamp(1, 'a', 3)` at offset 5");
    CHECK_STATUS(eval_src("clamp(1, 2)", &err), SDUI_EXPR_PARSE);
    CHECK_MSG_HAS("wrong number of arguments at offset 0");
}

int main(void)
{
    test_rows();
    test_counts();
    test_bodies();
    test_complete();
    test_clamp();
    printf("%zu functions\n", sdui__expr_fn_count);
    return check_summary();
}
