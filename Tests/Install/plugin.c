/*
 * plugin.c - a shared object (a JNI library, say) that links the static
 * libsdui.a into itself: proves the archive is position-independent.
 */
#include <sdui/sdui.h>

/* The linked core's version, through the plugin. */
const char *plugin_sdui_version(void)
{
    return sdui_version();
}
