#!/usr/bin/env bash
# setup.sh - installs the system libraries SDUIKit builds against.
# Uses apt-get when it can (root, or sudo without a password); otherwise it
# prints the exact command to run and exits non-zero.
set -euo pipefail

# chromium (+ a font): the headless browser the HTML preview tests lay pages out in;
# chromium-driver: chromedriver, through which Selenium drives that browser in the
# playground's browser tests and latency bench (scripts/browser-tests.sh);
# python3-jsonschema: checks examples and render trees against schemas/;
# postgresql: the registry's second store, tested for real (scripts/postgres.sh);
# libsimdjson-dev: a peer of the first-paint benchmark (bench/ only, never the library);
# pigz: one of the gzip readers test_seekable checks a seekable pack with;
# locales: de_DE.UTF-8, the comma-decimal locale the core's number tests run under;
# libpcre2-dev: the reference regex engine of the matches() differential fuzzer;
# libdouble-conversion-dev: the reference the shortest number-to-text test compares with;
# prometheus: promtool, which checks a live /metrics and the alert rules;
# python3-venv: the venv scripts/check-openapi.sh installs schemathesis (PyPI) in;
# openssl: the certificates of the PostgreSQL TLS tests (scripts/postgres.sh --tls);
# libcurl4-openssl-dev, patchelf: the release build (scripts/build-release.sh)
# links the static FoundationNetworking against libcurl by its linker name, then
# takes libcurl off the libraries loaded at start (it is opened on first use).
packages=(libjansson-dev libdeflate-dev zlib1g-dev libsqlite3-dev pkg-config make chromium chromium-driver fonts-dejavu-core
          python3-jsonschema postgresql libsimdjson-dev pigz locales libpcre2-dev libdouble-conversion-dev
          prometheus python3-venv openssl libcurl4-openssl-dev patchelf)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The locale the number tests switch to; generated once (glibc's locale-gen).
need_locale=0
locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$' || need_locale=1
[ ${#missing[@]} -eq 0 ] && [ $need_locale -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: missing ${missing[*]} (or the de_DE.UTF-8 locale) and apt-get is not available; install them with your package manager" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo"
else
    echo "setup: missing ${missing[*]} (or the de_DE.UTF-8 locale); run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]} locales" >&2
    echo "  sudo sh -c \"echo 'de_DE.UTF-8 UTF-8' >> /etc/locale.gen && locale-gen\"" >&2
    exit 1
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ $need_locale -eq 1 ]; then
    echo "setup: generating the de_DE.UTF-8 locale" >&2
    grep -q '^de_DE.UTF-8 UTF-8' /etc/locale.gen 2>/dev/null \
        || echo 'de_DE.UTF-8 UTF-8' | $sudo tee -a /etc/locale.gen >/dev/null
    $sudo locale-gen >/dev/null
fi
