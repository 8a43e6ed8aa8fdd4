#!/usr/bin/env bash
# setup.sh - installs the system libraries SDUIKit builds against.
# Uses apt-get when it can (root, or sudo without a password); otherwise it
# prints the exact command to run and exits non-zero.
set -euo pipefail

# chromium (+ a font): the headless browser the HTML preview tests lay pages out in;
# python3-jsonschema: checks examples and render trees against schemas/;
# postgresql: the registry's second store, tested for real (scripts/postgres.sh);
# libsimdjson-dev: a peer of the first-paint benchmark (bench/ only, never the library);
# pigz: one of the gzip readers test_seekable checks a seekable pack with.
packages=(libjansson-dev libdeflate-dev zlib1g-dev libsqlite3-dev pkg-config make chromium fonts-dejavu-core
          python3-jsonschema postgresql libsimdjson-dev pigz)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: missing ${missing[*]} and apt-get is not available; install them with your package manager" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo"
else
    echo "setup: missing ${missing[*]}; run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "setup: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
