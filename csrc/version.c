/*
 * version.c - the version of the library as built (see version.h).
 */
#include "sdui/version.h"

/* The version macros must agree with each other. */
_Static_assert(SDUI_VERSION_NUMBER == SDUI_VERSION_MAJOR * 1000000 +
                   SDUI_VERSION_MINOR * 1000 + SDUI_VERSION_PATCH,
               "SDUI_VERSION_NUMBER does not match its parts");

/* The version string compiled into this library. */
const char *sdui_version(void)
{
    return SDUI_VERSION_STRING;
}

/* The version number compiled into this library. */
int sdui_version_number(void)
{
    return SDUI_VERSION_NUMBER;
}
