#!/usr/bin/env bash
# check-c-install.sh - installs the C core into a scratch prefix, as a C
# user would, and proves it works from there:
#   1. `make` with the default prefix, then `make install` with another
#      PREFIX and DESTDIR (as a packager does), and user CFLAGS that add to
#      (never replace) the core's own flags: the installed sdui.pc names
#      the install's prefix, not the one `make` was run with;
#   2. a C program built with `pkg-config --cflags --libs sdui` (shared
#      library) and with `pkg-config --static` (the archive);
#   3. a C++ program against the shared library;
#   4. a shared object that links the static archive into itself (JNI style);
#   5. the shared library exports only the public sdui_ API and has a soname;
#   6. Examples/c/pack_inspect.c, built with -Werror, reads the example pack;
#   7. `make uninstall` leaves nothing behind.
# Exits non-zero at the first failure, saying which.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
build="$root/build"
prefix=/opt/sdui-check
dest="$root/dest"
fail() { echo "check-c-install: FAILED: $*" >&2; exit 1; }
# A machine with only the Swift toolchain has clang but maybe no cc or c++.
command -v "${CC:-cc}" >/dev/null 2>&1 || export CC=clang
command -v "${CXX:-c++}" >/dev/null 2>&1 || export CXX=clang++
cc=${CC:-cc}
cxx=${CXX:-c++}

make -s CC="$cc" BUILD="$build" CFLAGS="-O1 -g0" all >/dev/null
make -s CC="$cc" BUILD="$build" PREFIX="$prefix" DESTDIR="$dest" install >/dev/null
lib="$dest$prefix/lib"
version=$(sed -n 's/^#define SDUI_VERSION_STRING "\(.*\)"/\1/p' include/sdui/version.h)
major_minor=$(echo "$version" | cut -d. -f1,2)

# A pack with token "t".
printf '%s' '{"formatVersion":1,"tokens":[{"id":"t","version":1,"primitive":"Text","primitiveVersion":1,"props":{"text":"hi"}}]}' \
    | gzip -c > "$root/pack.gz"

export PKG_CONFIG_PATH="$lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$dest"
[ "$(pkg-config --modversion sdui)" = "$version" ] || fail "sdui.pc says $(pkg-config --modversion sdui), version.h $version"
# 1. The installed .pc names the install's directories (the staging
#    directory is pkg-config's sysroot, as a packager's build sees it).
for v in prefix:"$prefix" libdir:"$prefix/lib" includedir:"$prefix/include"; do
    got=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable="${v%%:*}" sdui)
    [ "$got" = "${v#*:}" ] || fail "installed sdui.pc has ${v%%:*}=$got, not ${v#*:} (make install PREFIX=$prefix after make)"
done
case " $(pkg-config --cflags sdui) " in
    *" -I$dest$prefix/include "*) ;;
    *) fail "pkg-config --cflags sdui: $(pkg-config --cflags sdui)" ;;
esac
case " $(pkg-config --libs sdui) " in
    *" -L$dest$prefix/lib -lsdui "*) ;;
    *) fail "pkg-config --libs sdui: $(pkg-config --libs sdui)" ;;
esac

# 2. C, shared and static.
"$cc" -std=c11 Tests/Install/use_sdui.c $(pkg-config --cflags --libs sdui) -o "$root/use_shared"
LD_LIBRARY_PATH="$lib" "$root/use_shared" "$root/pack.gz" | grep -q "token t" || fail "C program, shared library"
readelf -d "$root/use_shared" | grep -q "NEEDED.*libsdui.so.$major_minor" || fail "not linked against the soname libsdui.so.$major_minor"
"$cc" -std=c11 Tests/Install/use_sdui.c $(pkg-config --cflags sdui) "$lib/libsdui.a" $(pkg-config --static --libs-only-l --libs-only-other sdui | sed 's/-lsdui//') \
    -o "$root/use_static"
"$root/use_static" "$root/pack.gz" | grep -q "token t" || fail "C program, static library"
readelf -d "$root/use_static" | grep -q "libsdui" && fail "the static build still needs libsdui.so"
# pkg-config --static alone (the archive found by -lsdui when the .so is absent).
mkdir -p "$root/staticonly/pkgconfig"
cp "$lib/libsdui.a" "$root/staticonly/"
sed "s|^libdir=.*|libdir=$root/staticonly|" "$lib/pkgconfig/sdui.pc" > "$root/staticonly/pkgconfig/sdui.pc"
PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_PATH="$root/staticonly/pkgconfig" \
    sh -c "$cc -std=c11 Tests/Install/use_sdui.c -I$dest$prefix/include \$(pkg-config --static --libs sdui) -o $root/use_static2"
"$root/use_static2" "$root/pack.gz" | grep -q "token t" || fail "pkg-config --static --libs"

# 3. C++.
"$cxx" -std=c++17 -Wall Tests/Install/use_sdui.cpp $(pkg-config --cflags --libs sdui) -o "$root/use_cpp"
LD_LIBRARY_PATH="$lib" "$root/use_cpp" "$root/pack.gz" | grep -q "found t" || fail "C++ program"

# 4. A shared object with the archive inside.
"$cc" -std=c11 -shared -fPIC Tests/Install/plugin.c $(pkg-config --cflags sdui) "$lib/libsdui.a" \
    $(pkg-config --static --libs-only-l sdui | sed 's/-lsdui//') -o "$root/libplugin.so"
"$cc" Tests/Install/use_plugin.c -L"$root" -lplugin -o "$root/use_plugin"
LD_LIBRARY_PATH="$root" "$root/use_plugin" "$version" >/dev/null || fail "a shared object linking libsdui.a"

# 5. Exports and soname.
readelf -d "$lib/libsdui.so" | grep -q "SONAME.*libsdui.so.$major_minor" || fail "soname"
if nm -D --defined-only "$lib/libsdui.so" | awk '{print $3}' | grep -q '^sdui__'; then fail "internal sdui__ symbols exported"; fi
nm -D --defined-only "$lib/libsdui.so" | awk '{print $3}' | grep -q '^sdui_version$' || fail "sdui_version not exported"

# 6. The example C program, warnings as errors.
"$cc" -std=c11 -Wall -Wextra -Werror Examples/c/pack_inspect.c $(pkg-config --cflags --libs sdui) -o "$root/pack_inspect"
LD_LIBRARY_PATH="$lib" "$root/pack_inspect" Examples/core-pack.json.gz | head -3 | grep -q . || fail "Examples/c/pack_inspect.c"

# 7. Uninstall.
make -s BUILD="$build" PREFIX="$prefix" DESTDIR="$dest" uninstall >/dev/null
left=$(find "$dest" -type f -o -type l | wc -l)
[ "$left" -eq 0 ] || fail "uninstall left $left files: $(find "$dest" -type f -o -type l)"

echo "check-c-install: all passed (sdui $version: the .pc of an install to another prefix, C shared and static, pkg-config --static, C++, a shared object over the archive, exports, soname, the example program, uninstall)"
