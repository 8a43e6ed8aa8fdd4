/*
 * version.h - the one place the version of SDUIKit is written.
 *
 * The Makefile reads it for sdui.pc and the shared library's name, the
 * Swift modules read the macros (SDUIKitVersion), and `sdui --version`
 * prints SDUI_VERSION_STRING.  sdui_version() answers the version of the
 * library actually linked, so a program can compare it with the header it
 * was built against, as zlibVersion() allows.
 *
 * Before 1.0, a new minor version may change the C ABI: the shared
 * library's soname carries major and minor (libsdui.so.0.2).
 */
#ifndef SDUI_VERSION_H
#define SDUI_VERSION_H

#define SDUI_VERSION_MAJOR 0
#define SDUI_VERSION_MINOR 2
#define SDUI_VERSION_PATCH 0
#define SDUI_VERSION_STRING "0.2.0"
/* MAJOR * 1000000 + MINOR * 1000 + PATCH, for comparisons (SQLite's form). */
#define SDUI_VERSION_NUMBER 2000

#ifdef __cplusplus
extern "C" {
#endif

/* The version string of the linked library ("0.2.0"); static storage.
 * Thread-safe. */
const char *sdui_version(void);

/* The version number of the linked library (SDUI_VERSION_NUMBER's form).
 * Thread-safe. */
int sdui_version_number(void);

#ifdef __cplusplus
}
#endif
#endif
