/*
 * curl_loader.c - libcurl for the `sdui` and `sdui-server` commands, loaded
 * on its first use instead of at start.
 *
 * Why.  FoundationNetworking (URLSession on Linux) calls libcurl, so a
 * binary that links it has libcurl.so.4 as a needed library, and the
 * dynamic loader maps libcurl and the twenty-eight libraries it needs
 * (TLS, Kerberos, LDAP, IDN, SSH, ...) and relocates them before main
 * runs: measured on this project's CI machine, 4.5 ms and 700 page faults
 * of the 7.5 ms a static "hello" with FoundationNetworking takes to start,
 * against 1.5 ms without.  Most runs (`--version`, `render`, `expr`, `pack
 * inspect`, ...) never make a request.
 *
 * How.  This file defines the 23 libcurl functions FoundationNetworking
 * calls.  The executable's own definitions win over libcurl's at link
 * time, so the release build (scripts/build-release.sh, --as-needed) does
 * not list libcurl as needed at all; in a build with the Swift runtime as
 * shared libraries, the executable's definitions interpose on libcurl's
 * for FoundationNetworking all the same.  The first call of any of them
 * opens libcurl.so.4 (once, under pthread_once) and looks every function
 * up; each then calls through its pointer.  Three are variadic
 * (curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt): libcurl reads
 * exactly one argument after the option, a long, a pointer or a
 * curl_off_t, which on the LP64 systems this builds for are passed alike,
 * so it is taken as a pointer-sized integer and passed on as one.
 *
 * When libcurl cannot be opened, the functions answer as libcurl does
 * when it cannot start (CURLE_FAILED_INIT, CURLM_INTERNAL_ERROR, NULL),
 * after printing why once on stderr, and the request fails.  Outside
 * Linux, or without libcurl's headers, the file defines nothing.
 */
#include "sdui_curl_loader.h"

#if defined(__linux__) && defined(__has_include)
#if __has_include(<curl/curl.h>)
#define SDUI_CURL_LOADER 1
#endif
#endif

#ifdef SDUI_CURL_LOADER
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* The functions are defined here, so not the type-checking macros GCC's
 * curl.h puts over three of them. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

_Static_assert(sizeof(long) == sizeof(void *) && sizeof(curl_off_t) == sizeof(void *),
               "the variadic forwarding below needs an LP64 system");

/* The real functions, once loaded. */
static struct {
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURL *(*easy_init)(void);
    CURLcode (*easy_pause)(CURL *, int);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    const char *(*easy_strerror)(CURLcode);
    void (*free)(void *);
    CURLcode (*global_init)(long);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_assign)(CURLM *, curl_socket_t, void *);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_socket_action)(CURLM *, curl_socket_t, int, int *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLU *(*url)(void);
    CURLUcode (*url_get)(CURLU *, CURLUPart, char **, unsigned int);
    CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
    char *(*version)(void);
    curl_version_info_data *(*version_info)(CURLversion);
} real;

/* 1 when every function was found. */
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Looks name up in h into *slot; 0 when it is missing. */
static int find(void *h, const char *name, void *slot)
{
    void *f = dlsym(h, name);
    *(void **)slot = f;
    return f != NULL;
}

/* Opens libcurl and finds every function (once, under `once`). */
static void load(void)
{
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    int ok = h != NULL;
    if (ok) {
        ok &= find(h, "curl_easy_cleanup", &real.easy_cleanup);
        ok &= find(h, "curl_easy_getinfo", &real.easy_getinfo);
        ok &= find(h, "curl_easy_init", &real.easy_init);
        ok &= find(h, "curl_easy_pause", &real.easy_pause);
        ok &= find(h, "curl_easy_setopt", &real.easy_setopt);
        ok &= find(h, "curl_easy_strerror", &real.easy_strerror);
        ok &= find(h, "curl_free", &real.free);
        ok &= find(h, "curl_global_init", &real.global_init);
        ok &= find(h, "curl_multi_add_handle", &real.multi_add_handle);
        ok &= find(h, "curl_multi_assign", &real.multi_assign);
        ok &= find(h, "curl_multi_cleanup", &real.multi_cleanup);
        ok &= find(h, "curl_multi_info_read", &real.multi_info_read);
        ok &= find(h, "curl_multi_init", &real.multi_init);
        ok &= find(h, "curl_multi_remove_handle", &real.multi_remove_handle);
        ok &= find(h, "curl_multi_setopt", &real.multi_setopt);
        ok &= find(h, "curl_multi_socket_action", &real.multi_socket_action);
        ok &= find(h, "curl_slist_append", &real.slist_append);
        ok &= find(h, "curl_slist_free_all", &real.slist_free_all);
        ok &= find(h, "curl_url", &real.url);
        ok &= find(h, "curl_url_get", &real.url_get);
        ok &= find(h, "curl_url_set", &real.url_set);
        ok &= find(h, "curl_version", &real.version);
        ok &= find(h, "curl_version_info", &real.version_info);
    }
    if (!ok)
        fprintf(stderr, "sdui: cannot load libcurl.so.4 for HTTP: %s\n",
                h ? "a function is missing" : dlerror());
    loaded = ok;
}

/* 1 once libcurl is there (loading it on the first call). */
static int ready(void)
{
    pthread_once(&once, load);
    return loaded;
}

/* Whether libcurl has been loaded (sdui_curl_loader.h). */
int sdui_curl_loaded(void)
{
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
}

/* The one argument after a variadic function's option (see the top). */
#define ONE_ARG(last) \
    va_list ap; \
    va_start(ap, last); \
    intptr_t arg = va_arg(ap, intptr_t); \
    va_end(ap)

/* Each libcurl function: load, then call through. */
void curl_easy_cleanup(CURL *h) { if (ready()) real.easy_cleanup(h); }
CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
    ONE_ARG(info);
    return ready() ? real.easy_getinfo(h, info, arg) : CURLE_FAILED_INIT;
}
CURL *curl_easy_init(void) { return ready() ? real.easy_init() : NULL; }
CURLcode curl_easy_pause(CURL *h, int mask) { return ready() ? real.easy_pause(h, mask) : CURLE_FAILED_INIT; }
CURLcode curl_easy_setopt(CURL *h, CURLoption option, ...)
{
    ONE_ARG(option);
    return ready() ? real.easy_setopt(h, option, arg) : CURLE_FAILED_INIT;
}
const char *curl_easy_strerror(CURLcode c) { return ready() ? real.easy_strerror(c) : "libcurl could not be loaded"; }
void curl_free(void *p) { if (ready()) real.free(p); }
CURLcode curl_global_init(long flags) { return ready() ? real.global_init(flags) : CURLE_FAILED_INIT; }
CURLMcode curl_multi_add_handle(CURLM *m, CURL *h) { return ready() ? real.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR; }
CURLMcode curl_multi_assign(CURLM *m, curl_socket_t s, void *p)
{
    return ready() ? real.multi_assign(m, s, p) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_cleanup(CURLM *m) { return ready() ? real.multi_cleanup(m) : CURLM_INTERNAL_ERROR; }
CURLMsg *curl_multi_info_read(CURLM *m, int *left) { return ready() ? real.multi_info_read(m, left) : NULL; }
CURLM *curl_multi_init(void) { return ready() ? real.multi_init() : NULL; }
CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h)
{
    return ready() ? real.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_setopt(CURLM *m, CURLMoption option, ...)
{
    ONE_ARG(option);
    return ready() ? real.multi_setopt(m, option, arg) : CURLM_INTERNAL_ERROR;
}
CURLMcode curl_multi_socket_action(CURLM *m, curl_socket_t s, int mask, int *running)
{
    return ready() ? real.multi_socket_action(m, s, mask, running) : CURLM_INTERNAL_ERROR;
}
struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s)
{
    return ready() ? real.slist_append(l, s) : NULL;
}
void curl_slist_free_all(struct curl_slist *l) { if (ready()) real.slist_free_all(l); }
CURLU *curl_url(void) { return ready() ? real.url() : NULL; }
CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags)
{
    return ready() ? real.url_get(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}
CURLUcode curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags)
{
    return ready() ? real.url_set(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}
char *curl_version(void) { return ready() ? real.version() : (char *)"libcurl could not be loaded"; }
curl_version_info_data *curl_version_info(CURLversion v) { return ready() ? real.version_info(v) : NULL; }

#else

/* Whether libcurl has been loaded (sdui_curl_loader.h): here it is linked
 * as usual, so it is there from the start. */
int sdui_curl_loaded(void)
{
    return 1;
}

#endif
