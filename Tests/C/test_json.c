/*
 * test_json.c - tests of the validating JSON scanner and the minifier
 * (json.h).
 *
 * Runs the JSONTestSuite parsing corpus (y_ accepted, n_ rejected, i_ must
 * not crash), then hand-made documents for exact error positions, the
 * nesting limit, UTF-8 and \u escape rules, and sdui_json_minify.
 *
 * The corpus is $SDUI_JSONTESTSUITE when set (the suite's root or its
 * test_parsing folder), else ../shared/JSONTestSuite (the tests run from the
 * repository root); its absence is a failure, not a skip.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

/* Validates a NUL-terminated document with the default depth. */
static sdui_status validate(const char *doc, sdui_error *err)
{
    return sdui_json_validate(doc, strlen(doc), SDUI_DEFAULT_MAX_DEPTH, err);
}

/* Reads a whole file into a new buffer; NULL on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0) {
        p = malloc((size_t)n + 1);
        if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
            free(p);
            p = NULL;
        } else if (p) {
            p[n] = '\0';
            *len = (size_t)n;
        }
    }
    fclose(f);
    return p;
}

/* 1 if path is a directory. */
static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Finds the test_parsing folder of the corpus into out; 1 when found. */
static int find_corpus(char *out, size_t cap)
{
    const char *env = getenv("SDUI_JSONTESTSUITE");
    /* The variable, when set, is the only place looked at. */
    const char *root = env && *env ? env : "../shared/JSONTestSuite";
    snprintf(out, cap, "%s/test_parsing", root);
    if (is_dir(out))
        return 1;
    /* Or the test_parsing folder itself. */
    snprintf(out, cap, "%s/y_structure_lonely_null.json", root);
    if (access(out, R_OK) == 0) {
        snprintf(out, cap, "%s", root);
        return 1;
    }
    snprintf(out, cap, "%s", root);
    return 0;
}

/* Compares two strings for qsort. */
static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A reference minifier: drops JSON white space outside strings.  Written
 * independently of the one under test, as a state machine over the text.
 */
static size_t reference_minify(const char *in, size_t len, char *out)
{
    size_t i, n = 0;
    int in_string = 0, escape = 0;
    for (i = 0; i < len; i++) {
        char c = in[i];
        if (in_string) {
            out[n++] = c;
            if (escape)
                escape = 0;
            else if (c == '\\')
                escape = 1;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
            out[n++] = c;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            out[n++] = c;
        }
    }
    return n;
}

/* Checks sdui_json_minify on a valid document against the reference. */
static int minify_matches(const char *doc, size_t len, const char *name)
{
    char *out = malloc(len + 1), *ref = malloc(len + 1);
    size_t out_len = (size_t)-1, ref_len;
    sdui_error err;
    int ok = 1;
    if (sdui_json_minify(doc, len, SDUI_DEFAULT_MAX_DEPTH, out, &out_len,
                         &err) != SDUI_OK) {
        fprintf(stderr, "  minify of %s failed: %s\n", name, err.message);
        ok = 0;
    } else {
        ref_len = reference_minify(doc, len, ref);
        if (out_len > len || out_len != ref_len ||
            memcmp(out, ref, ref_len) != 0) {
            fprintf(stderr, "  minify of %s differs from the reference\n",
                    name);
            ok = 0;
        } else if (sdui_json_validate(out, out_len, SDUI_DEFAULT_MAX_DEPTH,
                                      &err) != SDUI_OK) {
            fprintf(stderr, "  minified %s does not validate: %s\n", name,
                    err.message);
            ok = 0;
        }
    }
    free(out);
    free(ref);
    return ok;
}

/* The JSONTestSuite parsing corpus. */
static void test_corpus(void)
{
    char dir[1024];
    DIR *d;
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    unsigned y = 0, nn = 0, in = 0, i_accepted = 0, bad = 0;

    if (!CHECKF(find_corpus(dir, sizeof dir),
                "JSONTestSuite not found at %s: set SDUI_JSONTESTSUITE to "
                "its folder",
                dir))
        return;
    d = opendir(dir);
    if (!CHECK(d != NULL))
        return;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 7 || de->d_name[1] != '_' ||
            strcmp(de->d_name + l - 5, ".json") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 512;
            names = realloc(names, cap * sizeof *names);
        }
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);

    for (i = 0; i < n; i++) {
        char path[2048];
        size_t len = 0;
        char *doc;
        sdui_error err;
        sdui_status st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        doc = read_file(path, &len);
        if (!CHECKF(doc != NULL, "cannot read %s", path)) {
            free(names[i]);
            continue;
        }
        st = sdui_json_validate(doc, len, SDUI_DEFAULT_MAX_DEPTH, &err);
        switch (names[i][0]) {
        case 'y':
            y++;
            if (!CHECKF(st == SDUI_OK, "%s rejected: %s \"%s\" at %d:%d",
                        names[i], sdui_status_name(st), err.message, err.line,
                        err.column))
                bad++;
            else if (!CHECKF(minify_matches(doc, len, names[i]),
                             "minify of %s", names[i]))
                bad++;
            break;
        case 'n':
            nn++;
            if (!CHECKF(st == SDUI_JSON || st == SDUI_LIMIT,
                        "%s gave %s, expected json or limit", names[i],
                        sdui_status_name(st)))
                bad++;
            else
                CHECKF(err.status == st && err.offset >= 0 &&
                           (size_t)err.offset <= len && err.line >= 1 &&
                           err.column >= 1 && err.message[0],
                       "%s: bad error record (offset %lld, %d:%d)", names[i],
                       err.offset, err.line, err.column);
            break;
        case 'i':
            in++;
            if (st == SDUI_OK)
                i_accepted++;
            CHECKF(st == SDUI_OK || st == SDUI_JSON || st == SDUI_LIMIT,
                   "%s gave %s", names[i], sdui_status_name(st));
            break;
        default:
            break;
        }
        free(doc);
        free(names[i]);
    }
    free(names);
    printf("JSONTestSuite (%s): y %u, n %u, i %u (%u accepted); %u wrong\n",
           dir, y, nn, in, i_accepted, bad);
    CHECKF(y >= 90 && nn >= 180 && in >= 30, "corpus looks incomplete");
}

/* One invalid document and where its error must be reported. */
typedef struct pos_case {
    const char *doc;
    sdui_status status;
    long long offset;
    int line, column;
} pos_case;

/* Exact offsets and line:column of errors, including non-ASCII lines. */
static void test_positions(void)
{
    static const pos_case cases[] = {
        {"{\"a\":1,}", SDUI_JSON, 7, 1, 8},
        {"[1,2", SDUI_JSON, 4, 1, 5},
        {"{\n  \"a\": tru\n}", SDUI_JSON, 9, 2, 8},
        {"{\"n\xc3\xa9\": 1,\n \"\xc3\xbc\xe2\x82\xac\xf0\x9d\x84\x9e\": 2, x}",
         SDUI_JSON, 28, 2, 12},
        {"[\"\xe6\x97\xa5\xe6\x9c\xac\", nul]", SDUI_JSON, 11, 1, 8},
        {"[\"ab\xc0\xaf\"]", SDUI_JSON, 4, 1, 5},
        {"\"a\tb\"", SDUI_JSON, 2, 1, 3},
        {"{\"abc", SDUI_JSON, 1, 1, 2},
        {"{} x", SDUI_JSON, 3, 1, 4},
        {"", SDUI_JSON, 0, 1, 1},
        {"   \n  ", SDUI_JSON, 6, 2, 3},
        {"[\r\n1,\r\n]", SDUI_JSON, 7, 3, 1},
        {"[1.]", SDUI_JSON, 3, 1, 4},
        {"[-]", SDUI_JSON, 2, 1, 3},
        {"[1e+]", SDUI_JSON, 4, 1, 5},
        {"\"\\x\"", SDUI_JSON, 1, 1, 2},
        {"\"\\u12G4\"", SDUI_JSON, 1, 1, 2},
        {"\"\\uDC00\"", SDUI_JSON, 1, 1, 2},
        {"\"ab\\uD800x\"", SDUI_JSON, 3, 1, 4},
        {"{\"a\" 1}", SDUI_JSON, 5, 1, 6},
        {"{1:2}", SDUI_JSON, 1, 1, 2},
        {"[1 2]", SDUI_JSON, 3, 1, 4},
        {"{\"a\":1 \"b\":2}", SDUI_JSON, 7, 1, 8},
        {"\n\n\n   @", SDUI_JSON, 6, 4, 4},
        {"[\n\"\xc3\xa9\xc3\xa9\xc3\xa9\", \xc3\xa9]", SDUI_JSON, 12, 2, 8},
        {"[[[", SDUI_JSON, 3, 1, 4},
        {"01", SDUI_JSON, 1, 1, 2},
        {"[01]", SDUI_JSON, 2, 1, 3},
        {"[.5]", SDUI_JSON, 1, 1, 2},
        {"[+1]", SDUI_JSON, 1, 1, 2},
        {"[True]", SDUI_JSON, 1, 1, 2},
        {"{\"k\":\n\n  [1, 2,\n   ]}", SDUI_JSON, 19, 4, 4},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        const pos_case *c = &cases[i];
        sdui_error err;
        sdui_status st = validate(c->doc, &err);
        CHECKF(st == c->status && err.status == st &&
                   err.offset == c->offset && err.line == c->line &&
                   err.column == c->column && err.message[0],
               "case %zu: got %s at offset %lld %d:%d (\"%s\"), expected %s "
               "at %lld %d:%d",
               i, sdui_status_name(st), err.offset, err.line, err.column,
               err.message, sdui_status_name(c->status), c->offset, c->line,
               c->column);
    }
    /* sdui_json_position on its own, and past the end. */
    {
        const char *t = "ab\n\xc3\xa9\xe2\x82\xac!";
        int line = 0, col = 0;
        sdui_json_position(t, strlen(t), 0, &line, &col);
        CHECK(line == 1 && col == 1);
        sdui_json_position(t, strlen(t), 3, &line, &col);
        CHECK(line == 2 && col == 1);
        sdui_json_position(t, strlen(t), 8, &line, &col);
        CHECK(line == 2 && col == 3);
        sdui_json_position(t, strlen(t), 1000, &line, &col);
        CHECK(line == 2 && col == 4);
    }
    /* A valid document leaves a clean error record. */
    {
        sdui_error err;
        err.status = SDUI_IO;
        CHECK_STATUS(validate(" {\"a\": [1, 2.5e-3, true, null, \"x\"]} ",
                              &err),
                     SDUI_OK);
        CHECK(err.status == SDUI_OK && err.offset == -1 && err.line == 0 &&
              err.message[0] == '\0');
        CHECK_STATUS(sdui_json_validate(NULL, 3, 4, &err), SDUI_ARGUMENT);
        CHECK_STATUS(sdui_json_validate(NULL, 0, 4, &err), SDUI_JSON);
        CHECK_STATUS(sdui_json_validate("1", 1, 0, NULL), SDUI_OK);
        CHECK_STATUS(sdui_json_validate("[", 1, 4, NULL), SDUI_JSON);
    }
}

/* Builds `depth` nested containers: arrays, objects, or alternating. */
static char *nested(unsigned depth, int kind, size_t *len)
{
    size_t cap = (size_t)depth * 6 + 8, n = 0;
    char *p = malloc(cap);
    unsigned i;
    for (i = 0; i < depth; i++) {
        int obj = kind == 1 || (kind == 2 && i % 2);
        if (obj) {
            memcpy(p + n, "{\"a\":", 5);
            n += 5;
        } else
            p[n++] = '[';
    }
    p[n++] = '0';
    for (i = depth; i-- > 0;) {
        int obj = kind == 1 || (kind == 2 && i % 2);
        p[n++] = obj ? '}' : ']';
    }
    p[n] = '\0';
    *len = n;
    return p;
}

/* Exactly max_depth levels pass; one more is SDUI_LIMIT at that bracket. */
static void test_depth(void)
{
    static const unsigned depths[] = {1, 2, 3, 10, 128, 1000, 4095, 4096,
                                      5000};
    size_t i;
    int kind;
    sdui_error err;
    for (i = 0; i < sizeof depths / sizeof *depths; i++) {
        for (kind = 0; kind < 3; kind++) {
            unsigned d = depths[i];
            size_t len, len2;
            char *ok = nested(d, kind, &len);
            char *over = nested(d + 1, kind, &len2);
            CHECKF(sdui_json_validate(ok, len, d, &err) == SDUI_OK,
                   "depth %u kind %d rejected: %s", d, kind, err.message);
            CHECKF(sdui_json_validate(over, len2, d, &err) == SDUI_LIMIT,
                   "depth %u+1 kind %d not a limit error", d, kind);
            CHECK_EQ_INT(err.status, SDUI_LIMIT);
            /* The offending bracket is the (d+1)-th opening one. */
            CHECKF(err.offset >= 0 && (over[err.offset] == '[' ||
                                       over[err.offset] == '{'),
                   "depth %u: limit offset %lld is not a bracket", d,
                   err.offset);
            if (kind == 0)
                CHECK_EQ_INT(err.offset, d);
            CHECK(sdui_json_validate(over, len2, d + 1, &err) == SDUI_OK);
            free(ok);
            free(over);
        }
    }
    /* max_depth 0 allows scalars only. */
    CHECK_STATUS(sdui_json_validate("\"s\"", 3, 0, &err), SDUI_OK);
    CHECK_STATUS(sdui_json_validate("[]", 2, 0, &err), SDUI_LIMIT);
    CHECK_STATUS(sdui_json_validate("{}", 2, 0, &err), SDUI_LIMIT);
    /* Depth counts nesting, not the number of containers. */
    CHECK_STATUS(sdui_json_validate("[[],[],{},[[]]]", 15, 3, &err), SDUI_OK);
    CHECK_STATUS(sdui_json_validate("[[],[],{},[[[]]]]", 17, 3, &err),
                 SDUI_LIMIT);
    /* Deep input that is also broken: the limit comes first. */
    {
        size_t len;
        char *p = nested(200, 0, &len);
        p[len - 1] = 'x';
        CHECK_STATUS(sdui_json_validate(p, len, 100, &err), SDUI_LIMIT);
        CHECK_STATUS(sdui_json_validate(p, len, 300, &err), SDUI_JSON);
        free(p);
    }
}

/* Wraps bytes in quotes (and optionally an array) and validates. */
static sdui_status validate_string(const char *body, size_t n, int in_array,
                                   sdui_error *err)
{
    char doc[256];
    size_t len = 0;
    if (in_array)
        doc[len++] = '[';
    doc[len++] = '"';
    memcpy(doc + len, body, n);
    len += n;
    doc[len++] = '"';
    if (in_array)
        doc[len++] = ']';
    return sdui_json_validate(doc, len, SDUI_DEFAULT_MAX_DEPTH, err);
}

/* UTF-8 well-formedness and \u escape rules. */
static void test_utf8(void)
{
    static const char *const bad_utf8[] = {
        "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf",
        "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",       /* overlong   */
        "\xed\xa0\x80", "\xed\xbf\xbf", "\xed\xb0\x80", /* surrogates */
        "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf7\xbf\xbf\xbf",
        "\xf8\x88\x80\x80\x80", "\xfc\x84\x80\x80\x80\x80", "\xfe", "\xff",
        "\xe2\x82", "\xf0\x9f\x98", "\xc3", "\xe2",     /* truncated  */
        "\x80", "\xbf", "\x80\x80",                     /* lone cont. */
        "\xc3\x28", "\xe2\x28\xa1", "\xe2\x82\x28", "\xf0\x28\x8c\xbc",
        "\xf0\x90\x28\xbc", "\xf0\x9f\x98\x28",
    };
    static const char *const good_utf8[] = {
        "\xc2\x80", "\xdf\xbf", "\xc3\xa9",
        "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
        "\xe2\x82\xac", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
        "\xf0\x9f\x98\x80", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
        "\x7f",
    };
    static const char *const bad_escapes[] = {
        "\\uD800", "\\uDBFF", "\\uDC00", "\\uDFFF", "\\uD800\\u0041",
        "\\uD800\\uD800", "\\uDC00\\uD800", "\\uD800\\n", "\\uD800x",
        "\\uD800\\", "\\uD800\\u", "\\uD800\\uDC0", "\\uD83D\\uDE0G",
        "\\u", "\\u1", "\\u12", "\\u123", "\\uGHIJ", "\\U0041", "\\a", "\\0",
        "\\'", "\\x41", "\\ ",
    };
    static const char *const good_escapes[] = {
        "\\uD83D\\uDE00", "\\uDBFF\\uDFFF", "\\uD800\\uDC00", "\\ud834\\udd1e",
        "\\u0000", "\\u00e9", "\\uFFFF", "\\uFFFE", "\\uD7FF", "\\uE000",
        "\\\"\\\\\\/\\b\\f\\n\\r\\t", "\\uD83D\\uDE00\\uD83D\\uDE00",
    };
    size_t i, pos;
    sdui_error err;
    for (i = 0; i < sizeof bad_utf8 / sizeof *bad_utf8; i++) {
        size_t n = strlen(bad_utf8[i]);
        CHECKF(validate_string(bad_utf8[i], n, 0, &err) == SDUI_JSON &&
                   err.offset == 1,
               "bad UTF-8 #%zu accepted or misplaced (offset %lld)", i,
               err.offset);
        CHECKF(validate_string(bad_utf8[i], n, 1, &err) == SDUI_JSON,
               "bad UTF-8 #%zu accepted in an array", i);
        /* Also as an object key. */
        {
            char doc[64];
            snprintf(doc, sizeof doc, "{\"%s\":1}", bad_utf8[i]);
            CHECKF(validate(doc, &err) == SDUI_JSON,
                   "bad UTF-8 #%zu accepted as a key", i);
        }
        /* And cut off at the end of the document (no closing quote). */
        {
            char doc[64];
            snprintf(doc, sizeof doc, "\"%s", bad_utf8[i]);
            CHECK(validate(doc, &err) == SDUI_JSON);
        }
    }
    for (i = 0; i < sizeof good_utf8 / sizeof *good_utf8; i++) {
        size_t n = strlen(good_utf8[i]);
        CHECKF(validate_string(good_utf8[i], n, 0, &err) == SDUI_OK,
               "good UTF-8 #%zu rejected: %s", i, err.message);
        CHECKF(validate_string(good_utf8[i], n, 1, &err) == SDUI_OK,
               "good UTF-8 #%zu rejected in an array", i);
    }
    for (i = 0; i < sizeof bad_escapes / sizeof *bad_escapes; i++)
        CHECKF(validate_string(bad_escapes[i], strlen(bad_escapes[i]), 1,
                               &err) == SDUI_JSON &&
                   err.offset == 2,
               "bad escape %s accepted or misplaced (offset %lld)",
               bad_escapes[i], err.offset);
    for (i = 0; i < sizeof good_escapes / sizeof *good_escapes; i++)
        CHECKF(validate_string(good_escapes[i], strlen(good_escapes[i]), 1,
                               &err) == SDUI_OK,
               "good escape %s rejected: %s", good_escapes[i], err.message);

    /* Every control byte must be escaped; DEL need not be. */
    for (i = 0; i < 0x20; i++) {
        char c = (char)i;
        CHECKF(validate_string(&c, 1, 0, &err) == SDUI_JSON,
               "control byte 0x%02zx accepted", i);
    }

    /* The special byte at every position of a long string (the scanner
     * skips plain bytes eight at a time). */
    for (pos = 0; pos < 40; pos++) {
        static const char *const specials[] = {"\xc0\xaf", "\x01", "\x1f",
                                               "\xed\xa0\x80", "\\q",
                                               "\xf4\x90\x80\x80"};
        char body[128];
        size_t s;
        for (s = 0; s < sizeof specials / sizeof *specials; s++) {
            size_t sl = strlen(specials[s]);
            memset(body, 'a', sizeof body);
            memcpy(body + pos, specials[s], sl);
            CHECKF(validate_string(body, 60, 0, &err) == SDUI_JSON &&
                       err.offset == (long long)pos + 1,
                   "special %zu at %zu: offset %lld", s, pos, err.offset);
        }
        /* A good multi-byte character or escape anywhere is fine. */
        memset(body, 'a', sizeof body);
        memcpy(body + pos, "\xf0\x9f\x98\x80\\\"\xe2\x82\xac", 9);
        CHECKF(validate_string(body, 60, 0, &err) == SDUI_OK,
               "good bytes at %zu rejected: %s", pos, err.message);
        /* A quote ends the string early: what follows is an error. */
        memset(body, 'b', sizeof body);
        body[pos] = '"';
        CHECK(validate_string(body, 60, 0, &err) == SDUI_JSON);
        CHECK_EQ_INT(err.offset, pos + 2);
    }
    /* A NUL byte inside a string is a control character, not the end. */
    CHECK_STATUS(sdui_json_validate("\"a\0b\"", 5, 8, &err), SDUI_JSON);
    CHECK_EQ_INT(err.offset, 2);
    CHECK_STATUS(sdui_json_validate("[1]\0", 4, 8, &err), SDUI_JSON);
    /* A byte order mark is not white space. */
    CHECK_STATUS(validate("\xef\xbb\xbf{}", &err), SDUI_JSON);
}

/* sdui_json_minify keeps strings byte for byte and drops the rest. */
static void test_minify(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {" { \"a\" : [ 1 , 2 ] } ", "{\"a\":[1,2]}"},
        {"{\"k y\": \"v  a\\\"l u\\\\\" ,\n\t\"x\":\r\n null}",
         "{\"k y\":\"v  a\\\"l u\\\\\",\"x\":null}"},
        {"[ \"\\\\\" , \"\\\\\\\"  \" ]", "[\"\\\\\",\"\\\\\\\"  \"]"},
        {"  \"  spaced \\n string \"  ", "\"  spaced \\n string \""},
        {"[true ,false, null , -1.5e+10 ]", "[true,false,null,-1.5e+10]"},
        {"{\"\xc3\xa9 \xf0\x9f\x98\x80\" : \"\\uD83D\\uDE00 \"}",
         "{\"\xc3\xa9 \xf0\x9f\x98\x80\":\"\\uD83D\\uDE00 \"}"},
        {"{}", "{}"},
        {"0", "0"},
    };
    size_t i;
    sdui_error err;
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len = strlen(cases[i].in), out_len = 0;
        char *out = malloc(len + 1);
        CHECK_STATUS(sdui_json_minify(cases[i].in, len, 16, out, &out_len,
                                      &err),
                     SDUI_OK);
        CHECKF(out_len == strlen(cases[i].out) &&
                   memcmp(out, cases[i].out, out_len) == 0,
               "minify case %zu: got \"%.*s\"", i, (int)out_len, out);
        CHECK_STATUS(sdui_json_validate(out, out_len, 16, &err), SDUI_OK);
        CHECK(minify_matches(cases[i].in, len, "case"));
        free(out);
    }
    /* Invalid input reports the validation error. */
    {
        char out[32];
        size_t out_len = 0;
        CHECK_STATUS(sdui_json_minify("[1, 2,]", 7, 16, out, &out_len, &err),
                     SDUI_JSON);
        CHECK_EQ_INT(err.offset, 6);
        CHECK_STATUS(sdui_json_minify("[[1]]", 5, 1, out, &out_len, &err),
                     SDUI_LIMIT);
    }
}

/* Runs every JSON test. */
/* Element ranges of arrays: exact bytes, whatever the elements hold. */
static void test_array_split(void)
{
    static const struct {
        const char *doc;
        const char *elems[8];
    } cases[] = {
        {"[]", {NULL}},
        {" [ 1 ] ", {"1", NULL}},
        {"[\"a,]\\\"b\",{\"x\":[1,{\"y\":\"]\"}]},[ ],true,null,-1.5e3]",
         {"\"a,]\\\"b\"", "{\"x\":[1,{\"y\":\"]\"}]}", "[ ]", "true", "null",
          "-1.5e3", NULL}},
        {"[\n\"x\\\\\" ,\t{} ]", {"\"x\\\\\"", "{}", NULL}},
        {"[[[]],[{}],\"\\u005d\"]", {"[[]]", "[{}]", "\"\\u005d\"", NULL}},
    };
    size_t c;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *doc = cases[c].doc;
        size_t starts[8], ends[8], n = 99, i, want = 0;
        sdui_error err;
        while (cases[c].elems[want])
            want++;
        CHECK_STATUS(sdui_json_array_split(doc, strlen(doc), 64, starts, ends,
                                           8, &n, &err),
                     SDUI_OK);
        CHECKF(n == want, "case %zu: %zu elements, want %zu", c, n, want);
        for (i = 0; i < n && i < want; i++)
            CHECKF(ends[i] - starts[i] == strlen(cases[c].elems[i]) &&
                       memcmp(doc + starts[i], cases[c].elems[i],
                              ends[i] - starts[i]) == 0,
                   "case %zu element %zu: [%.*s]", c, i,
                   (int)(ends[i] - starts[i]), doc + starts[i]);
    }
    {
        size_t s1[1], e1[1], n;
        sdui_error err;
        CHECK_STATUS(sdui_json_array_split("{\"a\":1}", 7, 64, s1, e1, 1, &n,
                                           &err),
                     SDUI_SCHEMA);
        CHECK_STATUS(sdui_json_array_split("[1,]", 4, 64, s1, e1, 1, &n, &err),
                     SDUI_JSON);
        /* More elements than room: counted, first ones stored. */
        CHECK_STATUS(sdui_json_array_split("[1,2,3]", 7, 64, s1, e1, 1, &n,
                                           &err),
                     SDUI_OK);
        CHECK_EQ_INT(n, 3);
        CHECK_EQ_INT(s1[0], 1);
    }
}

/* `levels` nested arrays around 1, preceded by prefix and followed by
 * suffix (new; free). */
static char *wrap_deep(const char *prefix, size_t levels, const char *suffix,
                       size_t *len)
{
    size_t pl = strlen(prefix), sl = strlen(suffix), n = 0;
    char *p = malloc(pl + 2 * levels + sl + 2);
    memcpy(p, prefix, pl);
    n = pl;
    memset(p + n, '[', levels);
    n += levels;
    p[n++] = '1';
    memset(p + n, ']', levels);
    n += levels;
    memcpy(p + n, suffix, sl);
    n += sl;
    p[n] = '\0';
    *len = n;
    return p;
}

/* The array of a batch answer is an envelope: an element that validates
 * alone at max_depth is accepted by sdui_json_array_split, one level more
 * fails the whole text (as it always did). */
static void test_array_split_depth(void)
{
    static const unsigned depths[] = {1, 5, SDUI_DEFAULT_MAX_DEPTH, 5000};
    size_t i;
    for (i = 0; i < sizeof depths / sizeof *depths; i++) {
        unsigned d = depths[i];
        size_t len, elen, s1[2], e1[2], n = 0;
        char *doc = wrap_deep("[\"jws.a.b\",", d, "]", &len);
        char *elem = wrap_deep("", d, "", &elen);
        sdui_error err;
        CHECK_STATUS(sdui_json_validate(elem, elen, d, &err), SDUI_OK);
        CHECKF(sdui_json_array_split(doc, len, d, s1, e1, 2, &n, &err) ==
                   SDUI_OK,
               "depth %u: an element valid alone fails the answer: %s", d,
               err.message);
        CHECK_EQ_INT(n, 2);
        CHECK(n == 2 && e1[1] - s1[1] == elen);
        free(doc);
        free(elem);
        doc = wrap_deep("[\"jws.a.b\",", d + 1, "]", &len);
        CHECK_STATUS(sdui_json_array_split(doc, len, d, s1, e1, 2, &n, &err),
                     SDUI_LIMIT);
        CHECK_EQ_INT(err.offset, 11 + d);
        CHECK_MSG_HAS("counted from the array element");
        CHECK_EQ_INT(n, 0);
        free(doc);
    }
    {
        /* max_depth 0: scalars only, in the array. */
        size_t s1[2], e1[2], n = 0;
        sdui_error err;
        CHECK_STATUS(sdui_json_array_split("[1,\"a\"]", 7, 0, s1, e1, 2, &n,
                                           &err),
                     SDUI_OK);
        CHECK_EQ_INT(n, 2);
        CHECK_STATUS(sdui_json_array_split("[1,[]]", 6, 0, s1, e1, 2, &n,
                                           &err),
                     SDUI_LIMIT);
        /* Not an array: plain validation first (root depth counts). */
        CHECK_STATUS(sdui_json_array_split("{}", 2, 0, s1, e1, 2, &n, &err),
                     SDUI_LIMIT);
        CHECK_STATUS(sdui_json_array_split("{}", 2, 1, s1, e1, 2, &n, &err),
                     SDUI_SCHEMA);
        CHECK_STATUS(sdui_json_array_split("{x", 2, 1, s1, e1, 2, &n, &err),
                     SDUI_JSON);
        CHECK_STATUS(sdui_json_array_split("", 0, 1, s1, e1, 2, &n, &err),
                     SDUI_JSON);
        CHECK_STATUS(sdui_json_array_split(NULL, 0, 1, s1, e1, 2, &n, &err),
                     SDUI_JSON);
        CHECK_STATUS(sdui_json_array_split("[]", 2, 1, NULL, NULL, 0, &n,
                                           &err),
                     SDUI_OK);
        CHECK_EQ_INT(n, 0);
    }
}

/* Per-element verdicts: a too-deep or too-large element is marked and its
 * neighbours kept; grammar errors anywhere fail the whole answer. */
static void test_array_elements(void)
{
    sdui_json_element el[8];
    size_t n = 99, len, i;
    sdui_error err, one;
    /* good, too deep (4 levels under a limit of 3), good, too large,
     * a JWS string, a deep but allowed one. */
    const char *doc = "[ {\"id\":\"a\"},\n {\"id\":\"b\",\"p\":[[[1]]]} ,"
                      "\"x\",[1,2,3,4,5,6,7,8,9,10],\"eyJh.eyJi.c2ln\","
                      "{\"p\":[[2]]} ]";
    static const char *const want[] = {
        "{\"id\":\"a\"}", "{\"id\":\"b\",\"p\":[[[1]]]}", "\"x\"",
        "[1,2,3,4,5,6,7,8,9,10]", "\"eyJh.eyJi.c2ln\"", "{\"p\":[[2]]}"};
    static const sdui_status want_st[] = {SDUI_OK,    SDUI_LIMIT, SDUI_OK,
                                          SDUI_LIMIT, SDUI_OK,    SDUI_OK};
    CHECK_STATUS(sdui_json_array_elements(doc, strlen(doc), 3, 20, el, 8, &n,
                                          &err),
                 SDUI_OK);
    CHECK_EQ_INT(n, 6);
    for (i = 0; i < n && i < 6; i++) {
        CHECKF(el[i].end - el[i].start == strlen(want[i]) &&
                   memcmp(doc + el[i].start, want[i], strlen(want[i])) == 0,
               "element %zu: [%.*s]", i, (int)(el[i].end - el[i].start),
               doc + el[i].start);
        CHECKF(el[i].status == want_st[i], "element %zu: %s", i,
               sdui_status_name(el[i].status));
    }
    /* The depth fault is the bracket that went one level too deep, as
     * sdui_json_validate reports it for the element alone. */
    CHECK_STATUS(sdui_json_validate(doc + el[1].start,
                                    el[1].end - el[1].start, 3, &one),
                 SDUI_LIMIT);
    CHECK_EQ_INT(el[1].fault, el[1].start + (size_t)one.offset);
    CHECK_EQ_INT(el[1].fault, strstr(doc, "[[[1") - doc + 2);
    CHECK_EQ_INT(el[3].fault, el[3].start);
    CHECK_EQ_INT(el[0].fault, el[0].start);

    /* No size limit; more elements than room. */
    CHECK_STATUS(sdui_json_array_elements(doc, strlen(doc), 3, (size_t)-1,
                                          el, 2, &n, &err),
                 SDUI_OK);
    CHECK_EQ_INT(n, 6);
    CHECK(el[0].status == SDUI_OK && el[1].status == SDUI_LIMIT);

    /* Whole-answer failures: grammar anywhere, even inside a bad element
     * or after it; not an array; bad arguments. */
    {
        static const struct {
            const char *doc;
            sdui_status st;
            long long offset;
        } bad[] = {
            {"[{\"a\":1},[[[[[1]]]]] x]", SDUI_JSON, 21},
            {"[[[[[[1]]]]],]", SDUI_JSON, 13},
            {"[[[[[[1}]]]]]", SDUI_JSON, 7},
            {"[[[[[[\"\\q\"]]]]]]", SDUI_JSON, 7},
            {"[1,2", SDUI_JSON, 4},
            {"[1] [2]", SDUI_JSON, 4},
            {"{\"a\":[1]}", SDUI_SCHEMA, 0},
            {"  \"a\"", SDUI_SCHEMA, 2},
            {"", SDUI_JSON, 0},
        };
        for (i = 0; i < sizeof bad / sizeof *bad; i++) {
            n = 99;
            CHECKF(sdui_json_array_elements(bad[i].doc, strlen(bad[i].doc), 3,
                                            (size_t)-1, el, 8, &n,
                                            &err) == bad[i].st &&
                       err.offset == bad[i].offset && n == 0,
                   "bad case %zu: %s at %lld", i, sdui_status_name(err.status),
                   err.offset);
        }
        CHECK_STATUS(sdui_json_array_elements("[1]", 3, 3, 10, NULL, 1, &n,
                                              &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_json_array_elements("[1]", 3, 3, 10, el, 1, NULL,
                                              &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_json_array_elements(NULL, 3, 3, 10, el, 1, &n,
                                              &err),
                     SDUI_ARGUMENT);
    }

    /* Hostile nesting: a million levels in one element cost one bit each
     * and fail that element only; unclosed, the whole answer. */
    {
        char *deep = wrap_deep("[{\"id\":\"a\"},", 1000000, ",2]", &len);
        CHECK_STATUS(sdui_json_array_elements(deep, len, 128, (size_t)-1, el,
                                              8, &n, &err),
                     SDUI_OK);
        CHECK_EQ_INT(n, 3);
        CHECK(el[0].status == SDUI_OK && el[1].status == SDUI_LIMIT &&
              el[2].status == SDUI_OK);
        CHECK_EQ_INT(el[1].fault, 12 + 128);
        CHECK_EQ_INT(el[1].end - el[1].start, 2000001);
        /* The old splitter refuses the whole answer for it. */
        CHECK_STATUS(sdui_json_array_split(deep, len, 128, NULL, NULL, 0, &n,
                                           &err),
                     SDUI_LIMIT);
        CHECK_STATUS(sdui_json_array_elements(deep, len - 5, 128, (size_t)-1,
                                              el, 8, &n, &err),
                     SDUI_JSON);
        free(deep);
    }
}

/* A counting allocator that fails every allocation from fail_at on. */
typedef struct split_alloc {
    long calls, fail_at, live;
} split_alloc;

static void *sa_malloc(void *ctx, size_t n)
{
    split_alloc *a = ctx;
    void *p;
    if (++a->calls >= a->fail_at)
        return NULL;
    p = malloc(n);
    if (p)
        a->live++;
    return p;
}

static void *sa_realloc(void *ctx, void *ptr, size_t n)
{
    split_alloc *a = ctx;
    void *p;
    if (++a->calls >= a->fail_at)
        return NULL;
    p = realloc(ptr, n);
    if (p && !ptr)
        a->live++;
    return p;
}

static void sa_free(void *ctx, void *ptr)
{
    split_alloc *a = ctx;
    if (ptr)
        a->live--;
    free(ptr);
}

/* The split's bit stack grows past 4096 levels through the allocator hook:
 * every failure point answers SDUI_OOM and leaks nothing. */
static void test_array_elements_oom(void)
{
    size_t len, n = 0;
    char *deep = wrap_deep("[1,", 40000, "]", &len);
    sdui_json_element el[4];
    sdui_error err;
    split_alloc a = {0, 0, 0};
    sdui_allocator hook = {sa_malloc, sa_realloc, sa_free, &a};
    long k, points = 0;
    sdui_set_allocator(&hook);
    for (k = 1; k < 100; k++) {
        sdui_status st;
        a.calls = 0;
        a.fail_at = k;
        st = sdui_json_array_elements(deep, len, 128, (size_t)-1, el, 4, &n,
                                      &err);
        CHECKF(a.live == 0, "failure point %ld: %ld blocks live", k, a.live);
        if (st == SDUI_OK)
            break;
        CHECK_STATUS(st, SDUI_OOM);
        points++;
    }
    sdui_set_allocator(NULL);
    /* 4096 -> 8192 -> 16384 -> 32768 -> 65536 bits: four growths. */
    CHECK_EQ_INT(points, 4);
    CHECK(n == 2 && el[1].status == SDUI_LIMIT);
    free(deep);
}

int main(void)
{
    test_corpus();
    test_positions();
    test_depth();
    test_utf8();
    test_minify();
    test_array_split();
    test_array_split_depth();
    test_array_elements();
    test_array_elements_oom();
    return check_summary();
}
