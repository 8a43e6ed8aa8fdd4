/*
 * pack_inspect.c - a C user of the SDUIKit core: opens a pack, lists its
 * tokens with their root primitive, and prints any error with its place.
 *
 *   make install PREFIX=/tmp/sdui
 *   PKG_CONFIG_PATH=/tmp/sdui/lib/pkgconfig \
 *     cc pack_inspect.c $(pkg-config --cflags --libs --static sdui) -o pack_inspect
 *   ./pack_inspect core-pack.json.gz
 */
#include <stdio.h>

#include <sdui/sdui.h>

int main(int argc, char **argv)
{
    sdui_error err;
    sdui_pack *pack;
    sdui_pack_info info;
    size_t i;
    int bad = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s PACK\n", argv[0]);
        return 2;
    }
    if (sdui_pack_open_file(argv[1], NULL, &pack, &err) != SDUI_OK) {
        fprintf(stderr, "error: %s: %s: line %d, column %d (byte %lld): %s\n",
                sdui_status_name(err.status), argv[1], err.line, err.column,
                err.offset, err.message);
        return 1;
    }
    sdui_pack_get_info(pack, &info);
    printf("%zu tokens, %zu bytes gzipped, %zu bytes of JSON\n", info.tokens,
           info.compressed_bytes, info.raw_bytes);
    for (i = 0; i < info.tokens; i++) {
        size_t len, plen;
        const char *id = sdui_pack_id_at(pack, i, &len);
        sdui_token *tok;
        if (sdui_pack_get(pack, id, len, &tok, &err) != SDUI_OK) {
            fprintf(stderr, "error: %s: %s\n", sdui_status_name(err.status),
                    err.message);
            bad = 1;
            continue;
        }
        printf("%.*s\t%s@%lld\n", (int)len, id,
               sdui_token_primitive(tok, &plen),
               (long long)sdui_token_primitive_version(tok));
        sdui_token_release(tok);
    }
    sdui_pack_free(pack);
    return bad;
}
