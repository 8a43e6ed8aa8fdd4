#!/usr/bin/env bash
# build-release.sh - the release `sdui` and `sdui-server` every script,
# benchmark and the README use, built to start fast (README, "Start-up", has
# the figures).  `sdui` is the client front (render, expr, theme, token,
# flow, screen) without the server stack; it hands every other command line
# to `sdui-server` beside it, so the two are used from one folder.
# (`sdui-parser-floor` and `sdui-stack-floor` are `sdui bench start-up`'s
# floors: the argument parser alone, and with Foundation and
# FoundationNetworking linked as in `sdui`.)  All four:
#   - the Swift standard library and Foundation linked in
#     (--static-swift-stdlib): no dozen Swift libraries to load and bind;
#   - a position-dependent executable (-no-pie): its pointers need no
#     relocation at start;
#   - no dynamic symbol table of every public Swift symbol
#     (--no-export-dynamic): the runtime's start-up asks dladdr for its
#     own path, and dladdr walks that table linearly (45,000 symbols and
#     4 MB of pages, about 1.5 ms); nothing loaded later binds to them;
#   - libcurl, which FoundationNetworking calls, is not loaded at start:
#     the command defines every libcurl function it calls and opens
#     libcurl.so.4 on the first request (Sources/CurlLoader/curl_loader.c),
#     so once the link is checked to leave no libcurl function undefined,
#     libcurl is taken off the libraries the loader maps before main (with
#     it go the 28 libraries it needs).
# Static Foundation links FoundationNetworking against libcurl's linker
# name, which libcurl4-openssl-dev provides; patchelf edits the list
# (scripts/setup.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(-c release --traits Server --static-swift-stdlib -Xlinker -no-pie -Xlinker --no-export-dynamic)
for product in sdui-server sdui sdui-parser-floor sdui-stack-floor; do
    swift build "${flags[@]}" --product "$product" "$@"
    bin="$(swift build "${flags[@]}" "$@" --show-bin-path)/$product"
    if readelf -d "$bin" | grep -q 'NEEDED.*\[libcurl\.so'; then
        if nm -u "$bin" | grep -q ' curl_'; then
            echo "build-release.sh: $bin still calls libcurl directly:" >&2
            nm -u "$bin" | grep ' curl_' >&2
            exit 1
        fi
        patchelf --remove-needed "$(readelf -d "$bin" | sed -n 's/.*NEEDED.*\[\(libcurl\.so[^]]*\)\].*/\1/p')" "$bin"
    fi
done
