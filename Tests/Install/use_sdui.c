/*
 * use_sdui.c - a program as a C user writes it against the installed
 * library: the linked version agrees with the header, and the pack given
 * on the command line opens and gives its token "t".
 */
#include <stdio.h>
#include <string.h>

#include <sdui/sdui.h>

/* Exits 0 when every check holds; says what failed otherwise. */
int main(int argc, char **argv)
{
    sdui_pack *pack = NULL;
    sdui_token *tok = NULL;
    sdui_error err;
    size_t len = 0;
    const char *id;

    if (argc != 2) {
        fprintf(stderr, "usage: use_sdui PACK\n");
        return 2;
    }
    if (strcmp(sdui_version(), SDUI_VERSION_STRING) != 0 ||
        sdui_version_number() != SDUI_VERSION_NUMBER) {
        fprintf(stderr, "linked %s, header %s\n", sdui_version(), SDUI_VERSION_STRING);
        return 1;
    }
    if (sdui_pack_open_file(argv[1], NULL, &pack, &err) != SDUI_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        return 1;
    }
    if (sdui_pack_get(pack, "t", 1, &tok, &err) != SDUI_OK) {
        fprintf(stderr, "token: %s\n", err.message);
        sdui_pack_free(pack);
        return 1;
    }
    id = sdui_token_id(tok, &len);
    printf("sdui %s: token %.*s\n", sdui_version(), (int)len, id);
    sdui_token_release(tok);
    sdui_pack_free(pack);
    return 0;
}
