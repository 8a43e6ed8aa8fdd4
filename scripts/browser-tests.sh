#!/usr/bin/env bash
# browser-tests.sh - the playground (`sdui dev DIR`, docs/playground.md) in a
# real browser: Tests/Playground/test_playground.py drives Debian's headless
# Chromium through Debian's chromedriver with Selenium (PyPI, the version
# pinned below, in a venv of its own) against a live `sdui dev` on a copy of
# Examples/.  One failure fails the run.
#
# With --bench it runs the latency bench instead (Tests/Playground/latency.py:
# file save to paint, tap to paint; --runs, --json and --screenshot are
# passed to it).
#
# The venv is kept in SDUI_BROWSER_VENV (default ~/.cache/sdui/browser-venv)
# and reused while it holds the pinned Selenium.  Chromium and chromedriver
# come from scripts/setup.sh (SDUI_CHROMIUM / SDUI_CHROMEDRIVER name others).
#
#     bash scripts/browser-tests.sh PATH/TO/sdui [-k PATTERN]
#     bash scripts/browser-tests.sh --bench [--runs 50] [--json out.json] [--screenshot page.png] PATH/TO/sdui
set -euo pipefail
cd "$(dirname "$0")/.."
selenium_version=4.51.0
fail() { echo "browser-tests: $*" >&2; exit 1; }
usage="usage: browser-tests.sh [--bench [--runs N] [--json PATH] [--screenshot PATH]] PATH/TO/sdui [-k PATTERN]"

bench=0
sdui=""
passed=()       # options for latency.py or unittest
while [ $# -gt 0 ]; do
    case "$1" in
        --bench) bench=1 ;;
        --runs|--json|--screenshot|-k)
            [ $# -ge 2 ] || fail "$1 needs a value ($usage)"
            passed+=("$1" "$2"); shift ;;
        -h|--help) echo "$usage"; exit 0 ;;
        -*) fail "unknown option $1 ($usage)" ;;
        *) [ -z "$sdui" ] || fail "one executable only ($usage)"; sdui=$1 ;;
    esac
    shift
done
[ -n "$sdui" ] || fail "$usage"
[ -x "$sdui" ] && [ -f "$sdui" ] || fail "$sdui is not an executable"
sdui=$(cd "$(dirname "$sdui")" && pwd)/$(basename "$sdui")

# --- the browser and its driver (Debian's, from scripts/setup.sh) -------------
chromium=${SDUI_CHROMIUM:-/usr/bin/chromium}
chromedriver=${SDUI_CHROMEDRIVER:-/usr/bin/chromedriver}
[ -x "$chromium" ] || fail "$chromium is missing: run bash scripts/setup.sh (Debian package chromium)"
[ -x "$chromedriver" ] || fail "$chromedriver is missing: run bash scripts/setup.sh (Debian package chromium-driver)"
browser_major=$("$chromium" --version 2>/dev/null | grep -oE '[0-9]+\.' | head -1 | tr -d .)
driver_major=$("$chromedriver" --version 2>/dev/null | grep -oE '[0-9]+\.' | head -1 | tr -d .)
[ -n "$browser_major" ] && [ "$browser_major" = "$driver_major" ] \
    || fail "chromium ($("$chromium" --version 2>&1 | head -1)) and chromedriver ($("$chromedriver" --version 2>&1 | head -1)) are not the same major version"

# --- the venv -------------------------------------------------------------------
venv=${SDUI_BROWSER_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/sdui/browser-venv}
if [ "$("$venv/bin/python" -c 'import selenium; print(selenium.__version__)' 2>/dev/null)" != "$selenium_version" ]; then
    echo "browser-tests: making the venv $venv (selenium $selenium_version)"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    log=$(mktemp)
    python3 -m venv "$venv" >"$log" 2>&1 \
        || fail "python3 -m venv failed (Debian: apt-get install python3-venv): $(tail -3 "$log")"
    "$venv/bin/pip" install -q "selenium==$selenium_version" >>"$log" 2>&1 \
        || fail "pip install selenium==$selenium_version failed: $(tail -3 "$log")"
    rm -f "$log"
fi

export SDUI_EXE=$sdui SDUI_CHROMIUM=$chromium SDUI_CHROMEDRIVER=$chromedriver
# Selenium Manager must not download a browser or a driver: both are given.
export SE_OFFLINE=true
# No __pycache__ in the tree.
export PYTHONDONTWRITEBYTECODE=1
echo "browser-tests: $("$chromium" --version 2>/dev/null | head -1), selenium $selenium_version, against $sdui"
if [ "$bench" = 1 ]; then
    "$venv/bin/python" Tests/Playground/latency.py "$sdui" "${passed[@]}" || fail "the latency bench failed (above)"
else
    for o in "${passed[@]}"; do
        case "$o" in --runs|--json|--screenshot) fail "$o is an option of --bench" ;; esac
    done
    "$venv/bin/python" Tests/Playground/test_playground.py "$sdui" -v "${passed[@]}" \
        || fail "the playground's browser tests failed (above)"
    echo "browser-tests: every playground browser test passed"
fi
