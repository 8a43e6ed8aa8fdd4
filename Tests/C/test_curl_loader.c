/*
 * test_curl_loader.c - the `sdui` command's libcurl loader
 * (Sources/CurlLoader/curl_loader.c), linked as the release command links
 * it: without libcurl.  Nothing is loaded before the first call; the first
 * call loads libcurl; plain, pointer and variadic (long and pointer)
 * arguments reach libcurl and its answers come back.
 */
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "check.h"
#include "sdui_curl_loader.h"

/* A write callback that keeps nothing (a function pointer through the
 * variadic setopt). */
static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
    (void)p;
    (void)ctx;
    return size * n;
}

/* The loader, call by call. */
int main(void)
{
    CHECK_EQ_INT(sdui_curl_loaded(), 0);
    const char *v = curl_version();
    CHECK(v != NULL && strncmp(v, "libcurl/", 8) == 0);
    CHECK_EQ_INT(sdui_curl_loaded(), 1);
    CHECK_EQ_INT(curl_global_init(CURL_GLOBAL_DEFAULT), CURLE_OK);
    curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    CHECK(info != NULL && info->version != NULL);

    /* The URL API: set, get, free. */
    CURLU *u = curl_url();
    char *host = NULL;
    CHECK(u != NULL);
    CHECK_EQ_INT(curl_url_set(u, CURLUPART_URL, "http://127.0.0.1:8080/flows/a?x=1", 0), CURLUE_OK);
    CHECK_EQ_INT(curl_url_get(u, CURLUPART_HOST, &host, 0), CURLUE_OK);
    CHECK_EQ_STR(host, "127.0.0.1");
    curl_free(host);

    /* Variadic options: a pointer, a long, a function pointer; an unknown
     * option is libcurl's own answer. */
    CURL *h = curl_easy_init();
    long code = -1;
    CHECK(h != NULL);
    CHECK_EQ_INT(curl_easy_setopt(h, CURLOPT_URL, "http://127.0.0.1:9/"), CURLE_OK);
    CHECK_EQ_INT(curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 1500L), CURLE_OK);
    CHECK_EQ_INT(curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard), CURLE_OK);
    CHECK_EQ_INT(curl_easy_setopt(h, (CURLoption)99999, 1L), CURLE_UNKNOWN_OPTION);
    CHECK_EQ_INT(curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code), CURLE_OK);
    CHECK_EQ_INT(code, 0);
    CHECK(strlen(curl_easy_strerror(CURLE_COULDNT_CONNECT)) > 0);
    /* libcurl's own answer for a handle outside a transfer. */
    CHECK_EQ_INT(curl_easy_pause(h, CURLPAUSE_CONT), CURLE_BAD_FUNCTION_ARGUMENT);

    /* A multi handle with the easy one, as URLSession drives it. */
    CURLM *m = curl_multi_init();
    int running = -1, left = -1;
    CHECK(m != NULL);
    CHECK_EQ_INT(curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, 4L), CURLM_OK);
    CHECK_EQ_INT(curl_multi_add_handle(m, h), CURLM_OK);
    CHECK_EQ_INT(curl_multi_socket_action(m, CURL_SOCKET_TIMEOUT, 0, &running), CURLM_OK);
    CHECK(running >= 0);
    CHECK_EQ_INT(curl_multi_assign(m, CURL_SOCKET_BAD, NULL), CURLM_BAD_SOCKET);
    (void)curl_multi_info_read(m, &left);
    CHECK(left >= 0);
    CHECK_EQ_INT(curl_multi_remove_handle(m, h), CURLM_OK);
    CHECK_EQ_INT(curl_multi_cleanup(m), CURLM_OK);

    struct curl_slist *l = curl_slist_append(NULL, "X-Primitives: Text=1");
    CHECK(l != NULL && strcmp(l->data, "X-Primitives: Text=1") == 0);
    curl_slist_free_all(l);
    curl_easy_cleanup(h);

    return check_summary();
}
