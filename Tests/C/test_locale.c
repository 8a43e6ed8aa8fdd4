/*
 * test_locale.c - the core's numbers as text and from text never follow
 * the host's C locale.  A GUI toolkit calls setlocale(LC_ALL, "") at start;
 * under de_DE.UTF-8 the C library's printf writes "2,5" and its strtod
 * stops at the '.' of "1.5".  Here, under that locale (in_locale.h; the
 * test FAILS when it cannot be set):
 *   - number text (sdui_number_text) is byte for byte what it is in the
 *     "C" locale, for fixed cases and 300,000 random doubles, and the
 *     core's reading (sdui__strtod) gives every double back;
 *   - decimals read from a token, a JSON document and a snapshot file, and
 *     written to a snapshot file, are the values the text says;
 *   - expressions read, compute and write decimals (1.5 + 1 is 2.5,
 *     fixed(), number(), string());
 *   - all of this holds while another thread switches the process's locale
 *     back and forth;
 *   - and in a locale whose decimal point is two bytes (ps_AF.UTF-8,
 *     U+066B, made with localedef in a child process), where jansson's own
 *     number reading aborts the process.
 * The whole expression and JSON-document test programs also run under
 * de_DE.UTF-8 (the Makefile's LOCALE_TESTS).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "in_locale.h"
#include "../../csrc/internal.h"

#define RANDOM_COUNT 300000

/* Texts of the random doubles, made in the "C" locale before the switch. */
static double random_values[RANDOM_COUNT];
static char random_texts[RANDOM_COUNT][SDUI_NUMBER_TEXT_MAX];

/* The doubles (random bit patterns, finite) and their texts. */
static void make_baseline(void)
{
    uint64_t x = 0x853C49E6748FEA9Bu;
    for (int i = 0; i < RANDOM_COUNT; i++) {
        double d;
        do {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            memcpy(&d, &x, sizeof d);
        } while (!isfinite(d));
        random_values[i] = d;
        sdui_number_text(d, random_texts[i]);
    }
}

/* The text of d. */
static const char *text(double d, char *buf)
{
    sdui_number_text(d, buf);
    return buf;
}

/* Number text and reading, fixed cases and the random doubles.  Returns
 * the failures (the thread test counts them). */
static unsigned long number_checks(int random)
{
    char buf[SDUI_NUMBER_TEXT_MAX], fixed[64];
    unsigned long bad = 0;
    bad += strcmp(text(2.5, buf), "2.5") != 0;
    bad += strcmp(text(-0.1, buf), "-0.1") != 0;
    bad += strcmp(text(1.5e-7, buf), "1.5e-7") != 0;
    bad += strcmp(text(1e21, buf), "1e21") != 0;
    bad += strcmp(text(123456.789, buf), "123456.789") != 0;
    bad += sdui__strtod("2.5", NULL) != 2.5;
    bad += sdui__strtod("-1.25e-3", NULL) != -1.25e-3;
    bad += sdui__strtod("3.141592653589793238462643383279", NULL) != 3.141592653589793;
    bad += sdui__number_fixed(2.5, 2, fixed, sizeof fixed) != 4 || strcmp(fixed, "2.50") != 0;
    bad += sdui__number_fixed(-1234.5678, 3, fixed, sizeof fixed) != 9 ||
           strcmp(fixed, "-1234.568") != 0;
    if (random)
        for (int i = 0; i < RANDOM_COUNT; i++) {
            sdui_number_text(random_values[i], buf);
            if (strcmp(buf, random_texts[i]) != 0 || sdui__strtod(buf, NULL) != random_values[i]) {
                if (bad++ < 5)
                    fprintf(stderr, "%a: %s under the locale, %s in \"C\"\n",
                            random_values[i], buf, random_texts[i]);
            }
        }
    return bad;
}

/* The decimals the documents below hold, as the compiler reads them. */
static const double doc_values[] = {
    1.5, -2.5e-3, 0.1, 3.141592653589793, 1e-7, 123456789.125, -0.0, 1.7976931348623157e308,
};
#define DOC_NUMBERS "1.5,-2.5e-3,0.1000000000000000055511151231257827021181583404541015625," \
                    "3.141592653589793238462643383279502884197,1e-7,123456789.125,-0.0," \
                    "1.7976931348623157e308"

/* Whether the array v holds doc_values, bit for bit. */
static int holds_doc_values(const sdui_value *v)
{
    size_t n = sizeof doc_values / sizeof doc_values[0];
    if (!v || sdui_value_type_of(v) != SDUI_VALUE_ARRAY || sdui_value_count(v) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        double d = sdui_value_real(sdui_value_at(v, i));
        if (sdui_value_type_of(sdui_value_at(v, i)) != SDUI_VALUE_REAL ||
            memcmp(&d, &doc_values[i], sizeof d) != 0)
            return 0;
    }
    return 1;
}

/* Decimals read from a token and from a JSON document.  Failures. */
static unsigned long parse_checks(void)
{
    static const char token[] = "{\"id\":\"t\",\"version\":1,\"primitive\":\"Text\","
                                "\"primitiveVersion\":1,\"props\":{\"n\":[" DOC_NUMBERS "]}}";
    static const char doc_text[] = "{\"a\":[" DOC_NUMBERS "]}";
    unsigned long bad = 0;
    sdui_error err;
    sdui_token *tok = NULL;
    sdui_json_doc *doc = NULL;
    if (sdui_token_parse(token, sizeof token - 1, NULL, &tok, &err) != SDUI_OK ||
        !holds_doc_values(sdui_value_get(sdui_token_props(tok), "n")))
        bad++;
    sdui_token_release(tok);
    if (sdui_json_doc_parse(doc_text, sizeof doc_text - 1, 64, &doc, &err) != SDUI_OK ||
        !holds_doc_values(sdui_value_get(sdui_json_doc_root(doc), "a")))
        bad++;
    sdui_json_doc_free(doc);
    return bad;
}

/* Evaluates src with no data; the JSON text of the result, or the error. */
static const char *eval(const char *src, char *out, size_t size)
{
    sdui_error err;
    sdui_expr *prog = NULL;
    char *json = NULL;
    size_t len = 0;
    if (sdui_expr_compile(src, strlen(src), &prog, &err) != SDUI_OK ||
        sdui_expr_eval_json(prog, NULL, NULL, &json, &len, &err) != SDUI_OK)
        snprintf(out, size, "error: %.200s", err.message);
    else
        snprintf(out, size, "%.*s", (int)len, json);
    sdui_free(json);
    sdui_expr_free(prog);
    return out;
}

/* Expressions that read, compute and write decimals.  Failures; with
 * report, each is printed. */
static unsigned long expr_checks(int report)
{
    static const struct { const char *src, *want; } cases[] = {
        {"1.5 + 1", "2.5"},
        {"0.1 + 0.2", "0.30000000000000004"},
        {"2.5e3 * 2", "5000.0"},
        {"fixed(2.5, 2)", "\"2.50\""},
        {"fixed(-0.001, 2)", "\"0.00\""},
        {"fixed(1234.5678, 1)", "\"1234.6\""},
        {"number('2.75') * 2", "5.5"},
        {"number('-1.5e-3')", "-0.0015"},
        {"string(0.1)", "\"0.1\""},
        {"round(2.675, 2)", "2.68"},
    };
    unsigned long bad = 0;
    char out[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        eval(cases[i].src, out, sizeof out);
        if (strcmp(out, cases[i].want) != 0) {
            bad++;
            if (report)
                CHECKF(0, "`%s` under %s: %s, expected %s", cases[i].src,
                       setlocale(LC_NUMERIC, NULL), out, cases[i].want);
        }
    }
    return bad;
}

/* A snapshot file with decimals written and read under the locale: the
 * values come back, and the file writes each by the one number rule. */
static void test_snapshot(void)
{
    char dir[] = "/tmp/sdui-locale-XXXXXX", path[128];
    static const char doc_text[] = "[" DOC_NUMBERS "]";
    sdui_json_doc *doc = NULL, *back = NULL;
    sdui_error err;
    int recovered = 0;
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    snprintf(path, sizeof path, "%s/s.snap", dir);
    CHECK_STATUS(sdui_json_doc_parse(doc_text, sizeof doc_text - 1, 64, &doc, &err), SDUI_OK);
    CHECK_STATUS(sdui_snapshot_write(path, doc, &err), SDUI_OK);
    CHECK_STATUS(sdui_snapshot_read(path, 64, &back, &recovered, &err), SDUI_OK);
    CHECKF(back && holds_doc_values(sdui_json_doc_root(back)),
           "a snapshot's decimals changed under %s", IN_LOCALE_NAME);
    /* The file holds "1.5", never "1,5". */
    FILE *f = fopen(path, "rb");
    char bytes[4096];
    size_t n = f ? fread(bytes, 1, sizeof bytes - 1, f) : 0;
    if (f)
        fclose(f);
    bytes[n] = 0;
    CHECKF(strstr(bytes, "[1.5,-0.0025,0.1,") != NULL, "the snapshot file says %s", bytes);
    sdui_json_doc_free(doc);
    sdui_json_doc_free(back);
    char prev[160];
    snprintf(prev, sizeof prev, "%s.prev", path);
    unlink(prev);
    unlink(path);
    rmdir(dir);
}

/* The locale switcher's state. */
static atomic_int switching;

/* Switches the process's locale between de_DE.UTF-8 and "C" until told
 * to stop. */
static void *switcher(void *arg)
{
    (void)arg;
    while (atomic_load(&switching)) {
        setlocale(LC_ALL, IN_LOCALE_NAME);
        setlocale(LC_ALL, "C");
    }
    setlocale(LC_ALL, IN_LOCALE_NAME);
    return NULL;
}

/* Numbers written and read while another thread switches locales. */
static void test_switching_thread(void)
{
    pthread_t t;
    unsigned long bad = 0;
    atomic_store(&switching, 1);
    if (!CHECK(pthread_create(&t, NULL, switcher, NULL) == 0))
        return;
    for (int round = 0; round < 3000; round++) {
        bad += number_checks(0);
        bad += parse_checks();
        bad += expr_checks(0);
    }
    atomic_store(&switching, 0);
    pthread_join(t, NULL);
    CHECKF(bad == 0, "%lu number checks failed while another thread switched locales", bad);
}

/* In a child: the checks under a locale whose decimal point is the two
 * bytes of U+066B, made with localedef into a scratch directory. */
static void test_two_byte_point(void)
{
    char dir[] = "/tmp/sdui-locale-XXXXXX", cmd[512];
    int status = 0;
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    snprintf(cmd, sizeof cmd,
             "localedef -i ps_AF -f UTF-8 %s/ps_AF.UTF-8 >/dev/null 2>&1", dir);
    if (!CHECKF(system(cmd) == 0, "localedef could not make ps_AF.UTF-8 (run scripts/setup.sh: "
                                  "the Debian package locales)")) {
        rmdir(dir);
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LOCPATH", dir, 1);
        if (!setlocale(LC_ALL, "ps_AF.UTF-8") ||
            strcmp(localeconv()->decimal_point, "\xd9\xab") != 0)
            _exit(3);
        unsigned long before = check_failed_;
        test_snapshot();
        _exit(number_checks(1) == 0 && parse_checks() == 0 && expr_checks(1) == 0 &&
              check_failed_ == before ? 0 : 4);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECKF(!(WIFEXITED(status) && WEXITSTATUS(status) == 3), "the locale ps_AF.UTF-8 was not set");
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "under ps_AF.UTF-8 (a two-byte decimal point) the checks %s",
           WIFSIGNALED(status) ? "crashed the process" : "failed");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    make_baseline();
    in_locale_set();
    CHECKF(number_checks(1) == 0, "number text or reading differs under %s", IN_LOCALE_NAME);
    CHECKF(parse_checks() == 0, "decimals from a token or a document differ under %s",
           IN_LOCALE_NAME);
    expr_checks(1);
    test_snapshot();
    test_switching_thread();
    test_two_byte_point();
    return check_summary();
}
