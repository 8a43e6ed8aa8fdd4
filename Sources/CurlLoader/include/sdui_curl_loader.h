/*
 * sdui_curl_loader.h - the `sdui` command's libcurl, loaded when it first
 * makes a request (curl_loader.c says how and why).  Nothing to call: the
 * file defines the libcurl functions FoundationNetworking uses.  Not part
 * of the library.
 */
#ifndef SDUI_CURL_LOADER_H
#define SDUI_CURL_LOADER_H

/* Whether libcurl has been loaded yet (1) or not (0): what the tests of
 * start-up check.  Thread-safe. */
int sdui_curl_loaded(void);

#endif
