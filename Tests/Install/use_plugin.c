/*
 * use_plugin.c - calls into plugin.so, which carries its own copy of the
 * static core.
 */
#include <stdio.h>
#include <string.h>

const char *plugin_sdui_version(void);

/* Exits 0 when the plugin answers the version it was built with. */
int main(int argc, char **argv)
{
    const char *v = plugin_sdui_version();
    printf("plugin links sdui %s\n", v);
    return argc == 2 && strcmp(v, argv[1]) == 0 ? 0 : 1;
}
