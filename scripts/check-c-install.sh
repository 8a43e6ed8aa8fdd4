#!/usr/bin/env bash
# check-c-install.sh - installs the C core into a temporary prefix and builds
# Examples/c/pack_inspect.c against it through pkg-config, as a C/JNI user
# would, then runs it on the example pack.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v "${CC:-cc}" >/dev/null 2>&1 || export CC=clang
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" BUILD=build/install
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror Examples/c/pack_inspect.c \
    $(pkg-config --cflags --libs --static sdui) -o "$prefix/pack_inspect"
"$prefix/pack_inspect" Examples/core-pack.json.gz | head -3
echo "check-c-install: built and ran a pkg-config client of libsdui"
