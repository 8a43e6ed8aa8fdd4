/*
 * test_token.c - tests of standalone token parsing and the read accessors
 * (token.h): every schema rule with the path it reports, unknown primitives,
 * every value type, member order, accessors on the wrong type, reference
 * counting, attached host data (once, freed once, one winner among threads),
 * the size limit that applies before parsing, and the token's memory: one
 * block, whatever the tree holds.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Parses a NUL-terminated token with default limits. */
static sdui_status parse(const char *json, sdui_token **tok, sdui_error *err)
{
    return sdui_token_parse(json, strlen(json), NULL, tok, err);
}

/* 1 if v is a string equal to the NUL-terminated s. */
static int str_is(const sdui_value *v, const char *s)
{
    size_t len = 0;
    const char *p = sdui_value_string(v, &len);
    return p && len == strlen(s) && memcmp(p, s, len) == 0;
}

/* A schema case: a token document and what the message must hold. */
typedef struct schema_case {
    const char *json;
    const char *msg1, *msg2; /* substrings of the message, or NULL */
} schema_case;

/* Every schema rule of token.h, each with a message naming the place. */
static void test_schema(void)
{
#define HEAD "{\"id\":\"t\",\"version\":1,\"primitive\":\"Column\"," \
             "\"primitiveVersion\":1,"
    static const schema_case cases[] = {
        {"[]", "object", NULL},
        {"\"token\"", "object", NULL},
        {"{\"version\":1,\"primitive\":\"P\",\"primitiveVersion\":1,"
         "\"props\":{}}", "\"id\"", NULL},
        {"{\"id\":7,\"version\":1,\"primitive\":\"P\",\"primitiveVersion\":1,"
         "\"props\":{}}", "\"id\"", NULL},
        {"{\"id\":\"\",\"version\":1,\"primitive\":\"P\","
         "\"primitiveVersion\":1,\"props\":{}}", "\"id\"", NULL},
        {"{\"id\":\"t\",\"primitive\":\"P\",\"primitiveVersion\":1,"
         "\"props\":{}}", "\"t\"", "missing \"version\""},
        {"{\"id\":\"t\",\"version\":0,\"primitive\":\"P\","
         "\"primitiveVersion\":1,\"props\":{}}", "\"t\"", "\"version\""},
        {"{\"id\":\"t\",\"version\":-3,\"primitive\":\"P\","
         "\"primitiveVersion\":1,\"props\":{}}", "\"version\"", NULL},
        {"{\"id\":\"t\",\"version\":1.5,\"primitive\":\"P\","
         "\"primitiveVersion\":1,\"props\":{}}", "\"version\"", "integer"},
        {"{\"id\":\"t\",\"version\":1.0,\"primitive\":\"P\","
         "\"primitiveVersion\":1,\"props\":{}}", "\"version\"", NULL},
        {"{\"id\":\"t\",\"version\":\"1\",\"primitive\":\"P\","
         "\"primitiveVersion\":1,\"props\":{}}", "\"version\"", NULL},
        {"{\"id\":\"t\",\"version\":true,\"primitive\":\"P\","
         "\"primitiveVersion\":1,\"props\":{}}", "\"version\"", NULL},
        {"{\"id\":\"t\",\"version\":1,\"primitiveVersion\":1,\"props\":{}}",
         "\"primitive\"", NULL},
        {"{\"id\":\"t\",\"version\":1,\"primitive\":\"\","
         "\"primitiveVersion\":1,\"props\":{}}", "\"primitive\"", NULL},
        {"{\"id\":\"t\",\"version\":1,\"primitive\":5,"
         "\"primitiveVersion\":1,\"props\":{}}", "\"primitive\"", NULL},
        {"{\"id\":\"t\",\"version\":1,\"primitive\":\"P\",\"props\":{}}",
         "missing \"primitiveVersion\"", NULL},
        {"{\"id\":\"t\",\"version\":1,\"primitive\":\"P\","
         "\"primitiveVersion\":0,\"props\":{}}", "\"primitiveVersion\"", NULL},
        {"{\"id\":\"t\",\"version\":1,\"primitive\":\"P\","
         "\"primitiveVersion\":2.5,\"props\":{}}", "\"primitiveVersion\"",
         NULL},
        {"{\"id\":\"t\",\"version\":1,\"primitive\":\"P\","
         "\"primitiveVersion\":1}", "\"props\"", NULL},
        {HEAD "\"props\":[]}", "\"props\"", "object"},
        {HEAD "\"props\":\"x\"}", "\"props\"", NULL},
        {HEAD "\"props\":null}", "\"props\"", NULL},
        {HEAD "\"props\":{\"children\":{}}}", "props.children", "array"},
        {HEAD "\"props\":{\"children\":\"x\"}}", "props.children", NULL},
        {HEAD "\"props\":{\"children\":null}}", "props.children", NULL},
        {HEAD "\"props\":{\"children\":[1]}}", "props.children[0]", "object"},
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"Text\","
              "\"props\":{}},{\"props\":{}}]}}",
         "props.children[1]", "\"primitive\""},
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"\",\"props\":{}}]}}",
         "props.children[0]", "\"primitive\""},
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"Text\","
              "\"primitiveVersion\":0,\"props\":{}}]}}",
         "props.children[0]", "\"primitiveVersion\""},
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"Text\","
              "\"primitiveVersion\":1.5,\"props\":{}}]}}",
         "props.children[0]", "\"primitiveVersion\""},
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"Text\","
              "\"primitiveVersion\":\"2\",\"props\":{}}]}}",
         "props.children[0]", "\"primitiveVersion\""},
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"Text\"}]}}",
         "props.children[0]", "\"props\""},
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"Text\","
              "\"props\":[]}]}}",
         "props.children[0]", "\"props\""},
        /* Three levels down: the whole path is named. */
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"Row\",\"props\":{"
              "\"children\":[{\"primitive\":\"A\",\"props\":{}},"
              "{\"primitive\":\"B\",\"props\":{}},"
              "{\"primitive\":\"Col\",\"props\":{\"children\":["
              "{\"primitive\":\"C\",\"props\":{}},{\"props\":{}}]}}]}}]}}",
         "props.children[0].props.children[2].props.children[1]",
         "\"primitive\""},
        {HEAD "\"props\":{\"children\":[{\"primitive\":\"Row\",\"props\":{"
              "\"children\":[{\"primitive\":\"Col\",\"props\":{"
              "\"children\":7}}]}}]}}",
         "props.children[0].props.children[0].props.children", "array"},
    };
#undef HEAD
    size_t i;
    sdui_error err;
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        sdui_token *tok = (sdui_token *)&err;
        sdui_status st = parse(cases[i].json, &tok, &err);
        CHECKF(st == SDUI_SCHEMA && tok == NULL,
               "schema case %zu: got %s (\"%s\")", i, sdui_status_name(st),
               err.message);
        if (cases[i].msg1)
            CHECKF(strstr(err.message, cases[i].msg1) != NULL,
                   "schema case %zu: \"%s\" lacks %s", i, err.message,
                   cases[i].msg1);
        if (cases[i].msg2)
            CHECKF(strstr(err.message, cases[i].msg2) != NULL,
                   "schema case %zu: \"%s\" lacks %s", i, err.message,
                   cases[i].msg2);
        CHECK(err.status == SDUI_SCHEMA && err.offset == 0 && err.line == 1);
        if (st == SDUI_OK)
            sdui_token_release(tok);
    }
    /* The id is named once known. */
    {
        sdui_token *tok = NULL;
        CHECK_STATUS(parse("{\"id\":\"login_title\",\"version\":0}", &tok,
                           &err),
                     SDUI_SCHEMA);
        CHECK_MSG_HAS("\"login_title\"");
    }
}

/* Valid tokens: optional child primitiveVersion, unknown primitives. */
static void test_valid(void)
{
    static const char *const docs[] = {
        "{\"id\":\"a\",\"version\":1,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{}}",
        "{\"id\":\"a\",\"version\":9007199254740993,\"primitive\":"
        "\"Hologram\",\"primitiveVersion\":42,\"props\":{\"x\":1}}",
        "{\"props\":{\"children\":[]},\"primitiveVersion\":1,"
        "\"primitive\":\"Column\",\"version\":1,\"id\":\"reordered\"}",
        "{\"id\":\"a\",\"version\":1,\"primitive\":\"Column\","
        "\"primitiveVersion\":1,\"extra\":[1,2],\"props\":{\"children\":["
        "{\"primitive\":\"Text\",\"props\":{}},"
        "{\"primitive\":\"QuantumWidget\",\"primitiveVersion\":7,"
        "\"props\":{\"children\":[{\"primitive\":\"Text\",\"props\":{},"
        "\"unknown\":true}]}}]}}",
        "  \n{\"id\":\"\\u00e9\",\"version\":1,\"primitive\":\"P\","
        "\"primitiveVersion\":1,\"props\":{}}\n  ",
    };
    size_t i;
    sdui_error err;
    for (i = 0; i < sizeof docs / sizeof *docs; i++) {
        sdui_token *tok = NULL;
        CHECKF(parse(docs[i], &tok, &err) == SDUI_OK, "valid doc %zu: %s", i,
               err.message);
        CHECK(tok != NULL && err.status == SDUI_OK);
        sdui_token_release(tok);
    }
    {
        sdui_token *tok = NULL;
        size_t len = 0;
        CHECK_STATUS(parse(docs[1], &tok, &err), SDUI_OK);
        if (tok) {
            CHECK(strcmp(sdui_token_primitive(tok, &len), "Hologram") == 0 &&
                  len == 8);
            CHECK(sdui_token_version(tok) == 9007199254740993LL);
            CHECK_EQ_INT(sdui_token_primitive_version(tok), 42);
        }
        sdui_token_release(tok);
        CHECK_STATUS(parse(docs[4], &tok, &err), SDUI_OK);
        if (tok) {
            const char *id = sdui_token_id(tok, &len);
            CHECK(len == 2 && memcmp(id, "\xc3\xa9", 2) == 0);
            /* The JSON text is the input, white space included. */
            CHECK(strcmp(sdui_token_json(tok, &len), docs[4]) == 0 &&
                  len == strlen(docs[4]));
        }
        sdui_token_release(tok);
    }
}

/* Every value type through the accessors, and document order of members. */
static void test_accessors(void)
{
    const char *json =
        "{\"id\":\"all\",\"version\":3,\"primitive\":\"Box\","
        "\"primitiveVersion\":2,\"props\":{"
        "\"zeta\":null,\"yes\":true,\"no\":false,\"int\":-42,"
        "\"big\":9223372036854775807,\"small\":-9223372036854775808,"
        "\"real\":1.5,\"exp\":-2.5e-3,\"zero\":-0.0,"
        "\"str\":\"h\\u00e9 \\\"q\\\" \\\\ \\ud83d\\ude00\","
        "\"nul\":\"a\\u0000b\",\"empty\":\"\","
        "\"arr\":[1,\"two\",[3],{\"four\":4},null],"
        "\"obj\":{\"b\":2,\"a\":1,\"c\":{\"deep\":[true]}},"
        "\"alpha\":\"last\"}}";
    static const char *const order[] = {"zeta", "yes", "no",   "int",  "big",
                                        "small", "real", "exp", "zero", "str",
                                        "nul", "empty", "arr", "obj", "alpha"};
    sdui_token *tok = NULL;
    const sdui_value *props, *v, *arr, *obj;
    const void *it;
    size_t len = 0, i;
    sdui_error err;
    CHECK_STATUS(parse(json, &tok, &err), SDUI_OK);
    if (!tok)
        return;
    props = sdui_token_props(tok);
    CHECK(props != NULL);
    CHECK_EQ_INT(sdui_value_type_of(props), SDUI_VALUE_OBJECT);
    CHECK_EQ_INT(sdui_value_count(props), 15);

    v = sdui_value_get(props, "zeta");
    CHECK(v != NULL && sdui_value_type_of(v) == SDUI_VALUE_NULL);
    v = sdui_value_get(props, "yes");
    CHECK(sdui_value_type_of(v) == SDUI_VALUE_BOOL && sdui_value_bool(v) == 1);
    v = sdui_value_get(props, "no");
    CHECK(sdui_value_type_of(v) == SDUI_VALUE_BOOL && sdui_value_bool(v) == 0);
    v = sdui_value_get(props, "int");
    CHECK(sdui_value_type_of(v) == SDUI_VALUE_INT && sdui_value_int(v) == -42);
    CHECK(sdui_value_int(sdui_value_get(props, "big")) == INT64_MAX);
    CHECK(sdui_value_int(sdui_value_get(props, "small")) == INT64_MIN);
    v = sdui_value_get(props, "real");
    CHECK(sdui_value_type_of(v) == SDUI_VALUE_REAL &&
          sdui_value_real(v) == 1.5);
    CHECK(sdui_value_real(sdui_value_get(props, "exp")) == -2.5e-3);
    CHECK(sdui_value_type_of(sdui_value_get(props, "zero")) ==
          SDUI_VALUE_REAL);
    v = sdui_value_get(props, "str");
    CHECK(sdui_value_type_of(v) == SDUI_VALUE_STRING);
    CHECK(str_is(v, "h\xc3\xa9 \"q\" \\ \xf0\x9f\x98\x80"));
    v = sdui_value_get(props, "nul");
    CHECK(sdui_value_string(v, &len) && len == 3 &&
          memcmp(sdui_value_string(v, NULL), "a\0b", 3) == 0);
    v = sdui_value_get(props, "empty");
    CHECK(sdui_value_string(v, &len) != NULL && len == 0);

    arr = sdui_value_get(props, "arr");
    CHECK(sdui_value_type_of(arr) == SDUI_VALUE_ARRAY);
    CHECK_EQ_INT(sdui_value_count(arr), 5);
    CHECK(sdui_value_int(sdui_value_at(arr, 0)) == 1);
    CHECK(str_is(sdui_value_at(arr, 1), "two"));
    CHECK(sdui_value_int(sdui_value_at(sdui_value_at(arr, 2), 0)) == 3);
    CHECK(sdui_value_int(sdui_value_get(sdui_value_at(arr, 3), "four")) == 4);
    CHECK(sdui_value_at(arr, 4) != NULL &&
          sdui_value_type_of(sdui_value_at(arr, 4)) == SDUI_VALUE_NULL);
    CHECK(sdui_value_at(arr, 5) == NULL);
    CHECK(sdui_value_at(arr, (size_t)-1) == NULL);

    obj = sdui_value_get(props, "obj");
    CHECK(sdui_value_bool(sdui_value_at(
              sdui_value_get(sdui_value_get(obj, "c"), "deep"), 0)) == 1);

    /* Members come in document order. */
    i = 0;
    for (it = sdui_value_next(props, NULL); it; it = sdui_value_next(props, it)) {
        const char *key = sdui_value_iter_key(it, &len);
        CHECKF(i < 15 && strcmp(key, order[i]) == 0 && len == strlen(key),
               "member %zu is %s", i, key);
        CHECK(sdui_value_iter_value(it) == sdui_value_get(props, key));
        i++;
    }
    CHECK_EQ_INT(i, 15);
    {
        static const char *const inner[] = {"b", "a", "c"};
        i = 0;
        for (it = sdui_value_next(obj, NULL); it; it = sdui_value_next(obj, it))
            CHECK(i < 3 && strcmp(sdui_value_iter_key(it, NULL), inner[i++]) ==
                               0);
        CHECK_EQ_INT(i, 3);
    }
    /* The root: the whole token object, in document order too. */
    {
        const sdui_value *root = sdui_token_root(tok);
        static const char *const top[] = {"id", "version", "primitive",
                                          "primitiveVersion", "props"};
        CHECK(sdui_value_type_of(root) == SDUI_VALUE_OBJECT);
        CHECK(str_is(sdui_value_get(root, "id"), "all"));
        CHECK(sdui_value_get(root, "props") == props);
        i = 0;
        for (it = sdui_value_next(root, NULL); it;
             it = sdui_value_next(root, it))
            CHECK(i < 5 && strcmp(sdui_value_iter_key(it, NULL), top[i++]) ==
                               0);
        CHECK_EQ_INT(i, 5);
    }

    /* Accessors on the wrong type (or NULL) return NULL / 0. */
    v = sdui_value_get(props, "str");
    CHECK(sdui_value_int(v) == 0 && sdui_value_bool(v) == 0 &&
          sdui_value_real(v) == 0.0);
    CHECK(sdui_value_count(v) == 0 && sdui_value_at(v, 0) == NULL &&
          sdui_value_get(v, "a") == NULL && sdui_value_next(v, NULL) == NULL);
    v = sdui_value_get(props, "int");
    len = 7;
    CHECK(sdui_value_string(v, &len) == NULL && len == 0);
    CHECK(sdui_value_bool(v) == 0 && sdui_value_count(v) == 0);
    CHECK(sdui_value_int(sdui_value_get(props, "real")) == 0);
    CHECK(sdui_value_int(sdui_value_get(props, "yes")) == 0);
    CHECK(sdui_value_real(sdui_value_get(props, "yes")) == 0.0);
    CHECK(sdui_value_real(sdui_value_get(props, "zeta")) == 0.0);
    CHECK(sdui_value_bool(sdui_value_get(props, "zeta")) == 0);
    CHECK(sdui_value_get(arr, "0") == NULL);
    CHECK(sdui_value_next(arr, NULL) == NULL);
    CHECK(sdui_value_at(obj, 0) == NULL);
    CHECK(sdui_value_get(props, "missing") == NULL);
    CHECK(sdui_value_get(props, NULL) == NULL);
    CHECK(sdui_value_type_of(NULL) == SDUI_VALUE_NULL);
    CHECK(sdui_value_int(NULL) == 0 && sdui_value_bool(NULL) == 0 &&
          sdui_value_real(NULL) == 0.0 && sdui_value_count(NULL) == 0);
    CHECK(sdui_value_string(NULL, &len) == NULL && len == 0);
    CHECK(sdui_value_at(NULL, 0) == NULL && sdui_value_get(NULL, "a") == NULL);
    CHECK(sdui_value_next(NULL, NULL) == NULL);
    sdui_token_release(tok);
}

/* Reference counting, copying of the input, limits and bad input. */
static void test_lifecycle(void)
{
    char json[] = "{\"id\":\"copy\",\"version\":1,\"primitive\":\"T\","
                  "\"primitiveVersion\":1,\"props\":{\"s\":\"abc\"}}";
    sdui_token *tok = NULL;
    sdui_limits lim;
    sdui_error err;
    size_t len = 0;
    CHECK_STATUS(parse(json, &tok, &err), SDUI_OK);
    if (tok) {
        const char *text = sdui_token_json(tok, &len);
        CHECK(text != json && len == strlen(json));
        memset(json, 'x', strlen(json)); /* the token made its own copy */
        CHECK(text[0] == '{' &&
              str_is(sdui_value_get(sdui_token_props(tok), "s"), "abc"));
        CHECK(sdui_token_retain(tok) == tok);
        sdui_token_release(tok);
        CHECK(str_is(sdui_value_get(sdui_token_root(tok), "id"), "copy"));
        sdui_token_release(tok);
    }
    CHECK(sdui_token_retain(NULL) == NULL);
    sdui_token_release(NULL);

    /* Over max_token_bytes is refused before parsing: a limit error even
     * for garbage; at exactly the limit the garbage is a JSON error. */
    sdui_limits_default(&lim);
    lim.max_token_bytes = 10;
    CHECK_STATUS(sdui_token_parse("@@@@@@@@@@@", 11, &lim, &tok, &err),
                 SDUI_LIMIT);
    CHECK(tok == NULL);
    CHECK_STATUS(sdui_token_parse("@@@@@@@@@@", 10, &lim, &tok, &err),
                 SDUI_JSON);
    {
        /* The default limit is 32768 bytes. */
        size_t n = SDUI_DEFAULT_MAX_TOKEN_BYTES + 1;
        char *big = malloc(n);
        memset(big, ' ', n);
        CHECK_STATUS(sdui_token_parse(big, n, NULL, &tok, &err), SDUI_LIMIT);
        CHECK_STATUS(sdui_token_parse(big, n - 1, NULL, &tok, &err),
                     SDUI_JSON);
        free(big);
    }

    /* Bad JSON and depth. */
    CHECK_STATUS(parse("{\"id\":\"a\",}", &tok, &err), SDUI_JSON);
    CHECK_EQ_INT(err.offset, 10);
    CHECK_STATUS(parse("", &tok, &err), SDUI_JSON);
    CHECK_STATUS(parse("{\"id\":\"\xc0\xaf\"}", &tok, &err), SDUI_JSON);
    CHECK_STATUS(parse("{\"id\":\"\\ud800\"}", &tok, &err), SDUI_JSON);
    /* Valid JSON, refused on purpose: a schema error at the second key. */
    CHECK_STATUS(parse("{\"id\":\"a\",\"id\":\"b\",\"version\":1,"
                       "\"primitive\":\"T\",\"primitiveVersion\":1,"
                       "\"props\":{}}",
                       &tok, &err),
                 SDUI_SCHEMA);
    CHECK_EQ_INT(err.offset, 10);
    CHECK(parse("{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","
                "\"primitiveVersion\":1,\"props\":{\"n\":1e999}}",
                &tok, &err) != SDUI_OK);
    CHECK(tok == NULL);
    sdui_limits_default(&lim);
    lim.max_depth = 3;
    {
        const char *d3 = "{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","
                         "\"primitiveVersion\":1,\"props\":{\"x\":[1]}}";
        const char *d4 = "{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","
                         "\"primitiveVersion\":1,\"props\":{\"x\":[[1]]}}";
        CHECK_STATUS(sdui_token_parse(d3, strlen(d3), &lim, &tok, &err),
                     SDUI_OK);
        sdui_token_release(tok);
        CHECK_STATUS(sdui_token_parse(d4, strlen(d4), &lim, &tok, &err),
                     SDUI_LIMIT);
    }
    CHECK_STATUS(sdui_token_parse(NULL, 3, NULL, &tok, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_token_parse("{}", 2, NULL, NULL, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_token_parse(NULL, 0, NULL, &tok, &err), SDUI_JSON);
    /* A NULL error record is allowed. */
    CHECK(sdui_token_parse("[", 1, NULL, &tok, NULL) == SDUI_JSON);
}

/* Reads a JSONTestSuite parsing file ($SDUI_JSONTESTSUITE, or
 * ../shared/JSONTestSuite; with or without test_parsing/) into a new
 * NUL-terminated buffer; NULL when it is not there. */
static char *suite_file(const char *name, size_t *len)
{
    const char *env = getenv("SDUI_JSONTESTSUITE");
    const char *root = env && *env ? env : "../shared/JSONTestSuite";
    const char *sub[] = {"/test_parsing/", "/"};
    size_t i;
    for (i = 0; i < 2; i++) {
        char path[1024];
        FILE *f;
        long n;
        char *p;
        snprintf(path, sizeof path, "%s%s%s", root, sub[i], name);
        f = fopen(path, "rb");
        if (!f)
            continue;
        if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
            fseek(f, 0, SEEK_SET) != 0) {
            fclose(f);
            return NULL;
        }
        p = malloc((size_t)n + 1);
        if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
            free(p);
            p = NULL;
        }
        fclose(f);
        if (p) {
            p[n] = '\0';
            *len = (size_t)n;
        }
        return p;
    }
    return NULL;
}

/* A valid-JSON case: the document, the status, the text the error must
 * point at (its nth occurrence, from 1), a part of the message. */
typedef struct valid_json_case {
    const char *json;
    sdui_status want;
    const char *at;
    int nth;
    const char *msg;
} valid_json_case;

/* Token text for the cases: a valid token whose props hold `props`. */
#define TOKEN_WITH(props)                                                  \
    "{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","                    \
    "\"primitiveVersion\":1,\"props\":{" props "}}"

/* The valid-JSON cases (test_pack.c has the same in a pack). */
static const valid_json_case valid_json_cases[] = {
    /* Duplicate keys and NUL in a key: refused on purpose. */
    {TOKEN_WITH("\"k\":1,\n  \"k\":2"), SDUI_SCHEMA, "\"k\"", 2,
     "duplicate"},
    {TOKEN_WITH("\"k\":1,\"\\u006b\":2"), SDUI_SCHEMA, "\"\\u006b\"", 1,
     "duplicate"},
    {TOKEN_WITH("\"a\\\"b\\\\\":1,\"a\\\"b\\\\\":2"), SDUI_SCHEMA,
     "\"a\\\"b\\\\\"", 2, "duplicate"},
    {TOKEN_WITH("\"x\":{\"y\":[{\"z\":1,\"z\":1}]}"), SDUI_SCHEMA, "\"z\"", 2,
     "refused on purpose"},
    {TOKEN_WITH("\"n\\u0000ul\":1"), SDUI_SCHEMA, "\"n\\u0000ul\"", 1, "NUL"},
    /* Numbers out of range. */
    {TOKEN_WITH("\"n\":1e999"), SDUI_LIMIT, "1e999", 1, "infinity"},
    {TOKEN_WITH("\"n\":[-1.5E+400]"), SDUI_LIMIT, "-1.5E+400", 1,
     "infinity"},
    {TOKEN_WITH("\"n\":123456789012345678901234567890"), SDUI_LIMIT,
     "123456789012345678901234567890", 1, "64 bits"},
    {TOKEN_WITH("\"n\":-123456789012345678901234567890 "), SDUI_LIMIT,
     "-123456789012345678901234567890", 1, "64 bits"},
    {TOKEN_WITH("\"n\":9223372036854775808"), SDUI_LIMIT,
     "9223372036854775808", 1, "64 bits"},
};

/* Where the case's error must point: the nth occurrence of c->at. */
static const char *case_at(const valid_json_case *c)
{
    const char *p = c->json - 1;
    int i;
    for (i = 0; i < c->nth && p; i++)
        p = strstr(p + 1, c->at);
    return p;
}

/* Valid JSON that a token cannot take is reported for what it is, with
 * its place: SDUI_SCHEMA for duplicate keys and NUL in keys (refused on
 * purpose), SDUI_LIMIT for numbers out of range; never SDUI_JSON. */
static void test_valid_json_refused(void)
{
    static const struct {
        const char *file;
        long long offset;
        int column;
        const char *msg;
    } suite[] = {
        {"y_object_duplicated_key.json", 9, 10, "duplicate object key \"a\""},
        {"y_object_duplicated_key_and_value.json", 9, 10,
         "duplicate object key \"a\""},
        {"y_object_escaped_null_in_key.json", 1, 2, "NUL"},
    };
    size_t i;
    sdui_error err;
    sdui_token *tok = NULL;
    for (i = 0; i < sizeof suite / sizeof *suite; i++) {
        size_t len = 0;
        char *doc = suite_file(suite[i].file, &len);
        if (!CHECKF(doc != NULL, "JSONTestSuite file %s not found",
                    suite[i].file))
            continue;
        CHECK_STATUS(sdui_json_validate(doc, len, 128, &err), SDUI_OK);
        CHECKF(sdui_token_parse(doc, len, NULL, &tok, &err) == SDUI_SCHEMA,
               "%s: %s \"%s\"", suite[i].file, sdui_status_name(err.status),
               err.message);
        CHECK(tok == NULL);
        CHECK_EQ_INT(err.offset, suite[i].offset);
        CHECK_EQ_INT(err.line, 1);
        CHECK_EQ_INT(err.column, suite[i].column);
        CHECK_MSG_HAS(suite[i].msg);
        CHECK_MSG_HAS("refused on purpose");
        free(doc);
    }
    for (i = 0; i < sizeof valid_json_cases / sizeof *valid_json_cases;
         i++) {
        const valid_json_case *c = &valid_json_cases[i];
        const char *at = case_at(c);
        int line = 1, col = 1;
        const char *q;
        for (q = c->json; q < at; q++) {
            if (*q == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        CHECK_STATUS(sdui_json_validate(c->json, strlen(c->json), 128, &err),
                     SDUI_OK);
        CHECKF(parse(c->json, &tok, &err) == c->want,
               "case %zu: %s \"%s\", expected %s", i,
               sdui_status_name(err.status), err.message,
               sdui_status_name(c->want));
        CHECK(tok == NULL);
        CHECKF(err.offset == at - c->json && err.line == line &&
                   err.column == col,
               "case %zu: at %lld (%d:%d), expected %lld (%d:%d)", i,
               err.offset, err.line, err.column, (long long)(at - c->json),
               line, col);
        CHECK_MSG_HAS(c->msg);
        CHECK_MSG_HAS(c->at);
    }
    /* In range: the largest integers, a tiny decimal (underflow is 0),
     * \u0000 in a value. */
    {
        static const char *const fine[] = {
            TOKEN_WITH("\"n\":9223372036854775807"),
            TOKEN_WITH("\"n\":-9223372036854775808"),
            TOKEN_WITH("\"n\":1e-999"),
            TOKEN_WITH("\"n\":1.7976931348623157e308"),
            TOKEN_WITH("\"s\":\"a\\u0000b\""),
            TOKEN_WITH("\"k\":{\"k\":{\"k\":1}}"),
        };
        for (i = 0; i < sizeof fine / sizeof *fine; i++) {
            CHECKF(parse(fine[i], &tok, &err) == SDUI_OK, "fine %zu: %s", i,
                   err.message);
            sdui_token_release(tok);
            tok = NULL;
        }
    }
    /* Every other jansson error is still a JSON error, as before: its own
     * nesting limit (2048) under a higher max_depth. */
    {
        sdui_limits lim;
        size_t n = 2100, k = 0, j;
        char *doc = malloc(2 * n + 128);
        sdui_limits_default(&lim);
        lim.max_depth = 4096;
        k += (size_t)sprintf(doc, "{\"id\":\"a\",\"version\":1,\"primitive\":"
                                  "\"T\",\"primitiveVersion\":1,\"props\":{"
                                  "\"x\":");
        for (j = 0; j < n; j++)
            doc[k++] = '[';
        for (j = 0; j < n; j++)
            doc[k++] = ']';
        k += (size_t)sprintf(doc + k, "}}");
        CHECK_STATUS(sdui_token_parse(doc, k, &lim, &tok, &err), SDUI_JSON);
        CHECK(tok == NULL);
        free(doc);
    }
}

static atomic_int attached_frees;

/* Destructor of attached data: counts and frees. */
static void count_free(void *p)
{
    atomic_fetch_add(&attached_frees, 1);
    free(p);
}

/* One racing attacher. */
typedef struct attacher {
    sdui_token *tok;
    pthread_barrier_t *start;
    void *mine, *won;
} attacher;

/* Attaches its own block; frees it if another thread won. */
static void *attach_thread(void *arg)
{
    attacher *a = arg;
    pthread_barrier_wait(a->start);
    a->won = sdui_token_attach(a->tok, a->mine, count_free);
    if (a->won != a->mine)
        free(a->mine);
    return NULL;
}

/* sdui_token_attach: once, the winner's data kept and freed on the last
 * release, every racing thread agreeing on the winner. */
static void test_attach(void)
{
    enum { THREADS = 8, ROUNDS = 200 };
    sdui_token *tok = NULL;
    sdui_error err;
    CHECK_STATUS(parse("{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","
                       "\"primitiveVersion\":1,\"props\":{}}", &tok, &err),
                 SDUI_OK);
    if (!tok)
        return;
    {
        void *first = malloc(1), *second = malloc(1);
        CHECK(sdui_token_attached(tok) == NULL);
        CHECK(sdui_token_attach(tok, first, count_free) == first);
        CHECK(sdui_token_attach(tok, second, count_free) == first);
        CHECK(sdui_token_attached(tok) == first);
        free(second);
        sdui_token_retain(tok);
        sdui_token_release(tok);
        CHECK_EQ_INT(atomic_load(&attached_frees), 0);
        sdui_token_release(tok);
        CHECK_EQ_INT(atomic_load(&attached_frees), 1);
    }
    for (int r = 0; r < ROUNDS; r++) {
        pthread_t th[THREADS];
        attacher a[THREADS];
        pthread_barrier_t start;
        int agree = 1;
        CHECK_STATUS(parse("{\"id\":\"b\",\"version\":1,\"primitive\":\"T\","
                           "\"primitiveVersion\":1,\"props\":{}}", &tok, &err),
                     SDUI_OK);
        atomic_store(&attached_frees, 0);
        pthread_barrier_init(&start, NULL, THREADS);
        for (int i = 0; i < THREADS; i++) {
            a[i] = (attacher){ tok, &start, malloc(1), NULL };
            pthread_create(&th[i], NULL, attach_thread, &a[i]);
        }
        for (int i = 0; i < THREADS; i++)
            pthread_join(th[i], NULL);
        pthread_barrier_destroy(&start);
        for (int i = 1; i < THREADS; i++)
            agree &= a[i].won == a[0].won;
        if (r == 0 || !agree)
            CHECK(agree && sdui_token_attached(tok) == a[0].won);
        sdui_token_release(tok);
        if (r == 0 || atomic_load(&attached_frees) != 1)
            CHECK_EQ_INT(atomic_load(&attached_frees), 1);
    }
}

/* Allocations and frees seen by the counting allocator. */
static unsigned long counted_mallocs, counted_frees;

/* Counting malloc. */
static void *counting_malloc(void *ctx, size_t size)
{
    (void)ctx;
    counted_mallocs++;
    return malloc(size ? size : 1);
}

/* Counting realloc (counts as an allocation). */
static void *counting_realloc(void *ctx, void *p, size_t size)
{
    (void)ctx;
    counted_mallocs++;
    return realloc(p, size ? size : 1);
}

/* Counting free. */
static void counting_free(void *ctx, void *p)
{
    (void)ctx;
    if (p)
        counted_frees++;
    free(p);
}

/* A token is one block of memory: the token, its tree and its copy of the
 * text come from one allocation, however many values, strings and escapes
 * the tree holds, and one free releases it.  A long number (copied for
 * strtod) takes one more, freed before the parse returns; a large object
 * (more than 16 members: its keys go in the tree's member index, where
 * duplicates are found and lookups go) takes one more that the token
 * keeps and its release frees. */
static void test_one_block(void)
{
    static const char *const one[] = {
        "{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","
        "\"primitiveVersion\":1,\"props\":{}}",
        "{\"id\":\"login_\\u00e9\",\"version\":3,\"primitive\":\"Column\","
        "\"primitiveVersion\":2,\"props\":{\"padding\":{\"top\":8,"
        "\"left\":16.5},\"tags\":[\"a\",\"b\\n\",null,true,false,-0.0,"
        "1e-400,[1,[2,{}]]],\"children\":[{\"primitive\":\"Text\","
        "\"props\":{\"text\":\"Hello \\ud83d\\ude00\",\"nul\":\"a\\u0000b\"}},"
        "{\"primitive\":\"Spacer\",\"primitiveVersion\":1,\"props\":"
        "{\"size\":12}}]}}",
    };
    static const char *const two[] = {
        "{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","
        "\"primitiveVersion\":1,\"props\":{\"n\":"
        "1.00000000000000000000000000000000000000000000000000000000000000001"
        "}}",
        "{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","
        "\"primitiveVersion\":1,\"props\":{\"a\":1,\"b\":2,\"c\":3,"
        "\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"j\":10,\"k\":11,"
        "\"l\":12,\"m\":13,\"n\":14,\"o\":15,\"p\":16,\"q\":17}}",
    };
    sdui_allocator a = {counting_malloc, counting_realloc, counting_free,
                        NULL};
    sdui_error err;
    size_t i;
    sdui_set_allocator(&a);
    for (i = 0; i < 4; i++) {
        const char *json = i < 2 ? one[i] : two[i - 2];
        sdui_token *tok = NULL;
        unsigned long mallocs, frees;
        counted_mallocs = counted_frees = 0;
        CHECK_STATUS(parse(json, &tok, &err), SDUI_OK);
        mallocs = counted_mallocs;
        frees = counted_frees;
        CHECKF(mallocs == (i < 2 ? 1u : 2u) &&
                   frees == (i == 3 ? 0u : mallocs - 1),
               "token %zu: %lu allocations, %lu frees while parsing", i,
               mallocs, frees);
        CHECK(sdui_value_type_of(sdui_token_props(tok)) == SDUI_VALUE_OBJECT);
        sdui_token_release(tok);
        CHECKF(counted_frees == mallocs,
               "token %zu: %lu frees after release, %lu allocations", i,
               counted_frees, mallocs);
    }
    /* A refused token frees what it took. */
    counted_mallocs = counted_frees = 0;
    CHECK(parse("{\"id\":\"a\",\"id\":\"b\"}", NULL, &err) ==
          SDUI_ARGUMENT);
    {
        sdui_token *tok = NULL;
        CHECK_STATUS(parse("{\"id\":\"a\",\"version\":1,\"primitive\":\"T\","
                           "\"primitiveVersion\":1,\"props\":{\"k\":1,\"k\":2}}",
                           &tok, &err),
                     SDUI_SCHEMA);
        CHECK(tok == NULL && counted_mallocs == 1 && counted_frees == 1);
    }
    sdui_set_allocator(NULL);
}

/* Runs every token test. */
int main(void)
{
    test_schema();
    test_valid();
    test_accessors();
    test_lifecycle();
    test_valid_json_refused();
    test_attach();
    test_one_block();
    return check_summary();
}
