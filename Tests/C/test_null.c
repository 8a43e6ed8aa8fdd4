/*
 * test_null.c - the one NULL-handle rule of sdui.h, across the API:
 * functions that return a status answer SDUI_ARGUMENT for a NULL handle
 * (and other NULL arguments they need) and change nothing; accessors
 * assert (checked in a child process, which must die of SIGABRT); letting
 * go of NULL is a no-op; a NULL sdui_value is "absent" everywhere.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* A valid token for the calls that need one besides the NULL. */
static sdui_token *a_token(void)
{
    static const char json[] =
        "{\"id\":\"t\",\"version\":1,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{}}";
    sdui_token *tok = NULL;
    sdui_error err;
    sdui_token_parse(json, strlen(json), NULL, &tok, &err);
    return tok;
}

/* Checks that call answers SDUI_ARGUMENT and fills its error record, which
 * the call names e_ (declared here), with a message. */
#define CHECK_ARGUMENT(call)                                               \
    do {                                                                   \
        sdui_error e_;                                                     \
        sdui_status st_;                                                   \
        memset(&e_, 0, sizeof e_);                                         \
        e_.status = SDUI_OK;                                               \
        st_ = (call);                                                      \
        CHECKF(st_ == SDUI_ARGUMENT && e_.status == SDUI_ARGUMENT &&       \
                   e_.message[0] != '\0',                                  \
               "%s: %s \"%s\"", #call, sdui_status_name(st_), e_.message); \
    } while (0)

/* Status functions: SDUI_ARGUMENT for a NULL handle or needed pointer. */
static void test_status_functions(void)
{
    sdui_token *tok = a_token(), *got = NULL;
    sdui_pack *pack = NULL;
    sdui_disk *disk = NULL;
    sdui_disk_rows *rows = NULL;
    sdui_disk_stats ds;
    sdui_disk_record rec;
    const char *id = "t", *member = NULL;
    size_t len = 1, n = 7;
    char *out = NULL;
    unsigned char *zout = NULL;

    memset(&rec, 0, sizeof rec);
    CHECK_ARGUMENT(sdui_pack_get(NULL, "t", 1, &got, &e_));
    CHECK(got == NULL);
    CHECK_ARGUMENT(sdui_pack_member(NULL, "screens", &member, &len, &e_));
    CHECK_ARGUMENT(sdui_pack_open_memory("x", 1, NULL, NULL, &e_));
    CHECK_ARGUMENT(sdui_pack_open_file(NULL, NULL, &pack, &e_));
    CHECK_ARGUMENT(sdui_cache_new(0, 0, NULL, &e_));
    CHECK_ARGUMENT(sdui_cache_put(NULL, tok, &e_));
    CHECK_ARGUMENT(sdui_disk_open(NULL, NULL, &disk, &e_));
    CHECK_ARGUMENT(sdui_disk_put(NULL, &rec, 0, 0, &e_));
    CHECK_ARGUMENT(sdui_disk_get(NULL, &id, &len, 1, 0, &rows, &e_));
    CHECK(rows == NULL);
    len = 1;
    CHECK_ARGUMENT(sdui_disk_refresh(NULL, &id, &len, 1, 0, 0, &n, &e_));
    CHECK_EQ_INT(n, 0);
    n = 7;
    CHECK_ARGUMENT(sdui_disk_remove(NULL, &id, &len, 1, &n, &e_));
    CHECK_EQ_INT(n, 0);
    CHECK_ARGUMENT(sdui_disk_get_stats(NULL, &ds, &e_));
    CHECK_ARGUMENT(sdui_token_parse("{}", 2, NULL, NULL, &e_));
    CHECK_ARGUMENT(sdui_gzip_decode("x", 1, 10, NULL, &len, NULL, &e_));
    CHECK_ARGUMENT(sdui_gzip_decode("x", 1, 10, &out, NULL, NULL, &e_));
    CHECK_ARGUMENT(sdui_gzip_encode("x", 1, 1, NULL, &len, &e_));
    CHECK_ARGUMENT(sdui_gzip_encode("x", 1, 1, &zout, NULL, &e_));
    CHECK_ARGUMENT(sdui_json_validate(NULL, 3, 8, &e_));
    CHECK_ARGUMENT(sdui_json_minify("[1]", 3, 8, NULL, &len, &e_));
    CHECK_ARGUMENT(sdui_json_minify("[1]", 3, 8, out, NULL, &e_));
    CHECK_ARGUMENT(sdui_json_array_split("[1]", 3, 8, NULL, NULL, 1, &n,
                                         &e_));
    CHECK_ARGUMENT(sdui_json_array_elements("[1]", 3, 8, 10, NULL, 1, &n,
                                            &e_));
    /* The error record itself is optional. */
    CHECK(sdui_pack_get(NULL, "t", 1, &got, NULL) == SDUI_ARGUMENT);
    CHECK(sdui_cache_put(NULL, tok, NULL) == SDUI_ARGUMENT);
    sdui_token_release(tok);
}

/* Letting go of NULL is a no-op; retaining NULL gives NULL. */
static void test_release_null(void)
{
    sdui_pack_free(NULL);
    sdui_cache_free(NULL);
    sdui_disk_free(NULL);
    sdui_disk_rows_free(NULL);
    sdui_token_release(NULL);
    sdui_free(NULL);
    sdui_error_clear(NULL);
    CHECK(sdui_token_retain(NULL) == NULL);
}

/* A NULL sdui_value is absent: every value function answers for it. */
static void test_null_values(void)
{
    size_t len = 9;
    CHECK_EQ_INT(sdui_value_type_of(NULL), SDUI_VALUE_NULL);
    CHECK_EQ_INT(sdui_value_bool(NULL), 0);
    CHECK_EQ_INT(sdui_value_int(NULL), 0);
    CHECK(sdui_value_real(NULL) == 0.0);
    CHECK(sdui_value_string(NULL, &len) == NULL);
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_INT(sdui_value_count(NULL), 0);
    CHECK(sdui_value_at(NULL, 0) == NULL);
    CHECK(sdui_value_get(NULL, "a") == NULL);
    CHECK(sdui_value_get(sdui_value_get(NULL, "a"), "b") == NULL);
    CHECK(sdui_value_next(NULL, NULL) == NULL);
}

/* Runs fn in a child; 1 if it died of SIGABRT (a failed assert). */
static int aborts(void (*fn)(void))
{
    int status;
    pid_t pid = fork();
    if (pid == 0) {
        /* The assert's message is expected: keep the log clean. */
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        fn();
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 0;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* Accessors called with NULL (each must abort). */
static void pack_count_null(void) { sdui_pack_count(NULL); }
static void pack_id_at_null(void) { sdui_pack_id_at(NULL, 0, NULL); }
static void pack_contains_null(void) { sdui_pack_contains(NULL, "a", 1); }
static void pack_json_null(void) { sdui_pack_json(NULL, NULL); }
static void pack_info_null(void)
{
    sdui_pack_info info;
    sdui_pack_get_info(NULL, &info);
}
static void token_id_null(void) { sdui_token_id(NULL, NULL); }
static void token_json_null(void) { sdui_token_json(NULL, NULL); }
static void token_version_null(void) { sdui_token_version(NULL); }
static void token_props_null(void) { sdui_token_props(NULL); }
static void token_attached_null(void) { sdui_token_attached(NULL); }
static void cache_get_null(void) { sdui_cache_get(NULL, "a", 1); }
static void cache_remove_null(void) { sdui_cache_remove(NULL, "a", 1); }
static void cache_clear_null(void) { sdui_cache_clear(NULL); }
static void cache_stats_null(void)
{
    sdui_cache_stats s;
    sdui_cache_get_stats(NULL, &s);
}
static void cache_snapshot_null(void) { sdui_cache_snapshot(NULL, NULL, 0); }
static void disk_recovered_null(void) { sdui_disk_recovered(NULL); }
static void rows_count_null(void) { sdui_disk_rows_count(NULL); }
static void rows_at_null(void) { sdui_disk_rows_at(NULL, 0); }
static void limits_default_null(void) { sdui_limits_default(NULL); }
static void disk_options_null(void) { sdui_disk_options_default(NULL); }

/* Every accessor asserts its handle (only where asserts are compiled). */
static void test_accessors_assert(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {
        {"sdui_pack_count", pack_count_null},
        {"sdui_pack_id_at", pack_id_at_null},
        {"sdui_pack_contains", pack_contains_null},
        {"sdui_pack_json", pack_json_null},
        {"sdui_pack_get_info", pack_info_null},
        {"sdui_token_id", token_id_null},
        {"sdui_token_json", token_json_null},
        {"sdui_token_version", token_version_null},
        {"sdui_token_props", token_props_null},
        {"sdui_token_attached", token_attached_null},
        {"sdui_cache_get", cache_get_null},
        {"sdui_cache_remove", cache_remove_null},
        {"sdui_cache_clear", cache_clear_null},
        {"sdui_cache_get_stats", cache_stats_null},
        {"sdui_cache_snapshot", cache_snapshot_null},
        {"sdui_disk_recovered", disk_recovered_null},
        {"sdui_disk_rows_count", rows_count_null},
        {"sdui_disk_rows_at", rows_at_null},
        {"sdui_limits_default", limits_default_null},
        {"sdui_disk_options_default", disk_options_null},
    };
    size_t i;
#ifdef NDEBUG
    printf("accessor asserts: compiled out (NDEBUG); not checked\n");
    return;
#endif
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECKF(aborts(cases[i].fn), "%s(NULL) did not assert",
               cases[i].name);
}

/* Runs the tests. */
int main(void)
{
    test_status_functions();
    test_release_null();
    test_null_values();
    test_accessors_assert();
    return check_summary();
}
