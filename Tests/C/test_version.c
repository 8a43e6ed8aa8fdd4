/*
 * test_version.c - the version in one place: the linked library answers
 * the header's string and number, and the number is made of the parts.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"

int main(void)
{
    char parts[32];

    CHECK_EQ_STR(sdui_version(), SDUI_VERSION_STRING);
    CHECK_EQ_INT(sdui_version_number(), SDUI_VERSION_NUMBER);
    CHECK_EQ_INT(SDUI_VERSION_NUMBER,
                 SDUI_VERSION_MAJOR * 1000000 + SDUI_VERSION_MINOR * 1000 + SDUI_VERSION_PATCH);
    snprintf(parts, sizeof parts, "%d.%d.%d", SDUI_VERSION_MAJOR, SDUI_VERSION_MINOR,
             SDUI_VERSION_PATCH);
    CHECK_EQ_STR(parts, SDUI_VERSION_STRING);
    return check_summary();
}
