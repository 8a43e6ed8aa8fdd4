// use_sdui.cpp - the same checks from C++: the headers compile as C++ and
// link with C linkage.
#include <cstdio>
#include <cstring>
#include <sdui/sdui.h>

// Exits 0 when the pack given opens and holds token "t".
int main(int argc, char **argv)
{
    if (argc != 2 || std::strcmp(sdui_version(), SDUI_VERSION_STRING) != 0)
        return 1;
    sdui_pack *pack = nullptr;
    sdui_error err;
    if (sdui_pack_open_file(argv[1], nullptr, &pack, &err) != SDUI_OK) {
        std::fprintf(stderr, "open: %s\n", err.message);
        return 1;
    }
    int found = sdui_pack_contains(pack, "t", 1);
    sdui_pack_free(pack);
    std::printf("sdui %s from C++: %s\n", sdui_version(), found ? "found t" : "no t");
    return found ? 0 : 1;
}
