#!/usr/bin/env bash
# test.sh - the whole test suite: the C core's own tests (make test), every
# Swift Testing suite (with PostgreSQL started for the registry tests), then
# the playground in a real browser, and the examples and rendered trees
# against schemas/.  Fuzzing is separate:
# Tests/Fuzz/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step prints its wall-clock time ("test.sh: STEP took N s").
step() {
    local name=$1 start=$SECONDS
    shift
    "$@"
    echo "test.sh: $name took $((SECONDS - start)) s"
}
step setup bash scripts/setup.sh
# A machine with only the Swift toolchain has clang but maybe no `cc`.
command -v "${CC:-cc}" >/dev/null 2>&1 || export CC=clang
step "make test" make -s test
step check-c-install bash scripts/check-c-install.sh
# Text becomes a JSONValue through the core's parser only, in every client module.
bash scripts/check-client-json.sh
# The registry tests run against SQLite and a real PostgreSQL; this starts
# Debian's server (or fails the run when it cannot).
SDUI_TEST_POSTGRES_URL=$(bash scripts/postgres.sh)
if ! [[ "$SDUI_TEST_POSTGRES_URL" =~ ^postgres://[^[:space:]]+$ ]]; then
    echo "test.sh: scripts/postgres.sh printed no usable URL: '$SDUI_TEST_POSTGRES_URL'" >&2
    exit 1
fi
export SDUI_TEST_POSTGRES_URL
# The package trait "Server" brings in the server, the CLI and their tests
# (Package.swift); an app's build leaves it out.
step "swift test" swift test --traits Server
sdui="$(swift build --traits Server --show-bin-path)/sdui"
# SDUIKit as a dependency: a client-only app (no server stack fetched or
# built) and Examples/registry-host, a service mounting the registry, built
# in .build beside the server stack the tests just compiled.
step check-consumer bash scripts/check-consumer.sh "$sdui" .build
# The OpenAPI document against the server: a client generated from it, and
# schemathesis (PyPI) with every check against a live `sdui serve`.
step check-openapi bash scripts/check-openapi.sh "$sdui"
# The playground (`sdui dev`) in headless Chromium through chromedriver and
# Selenium (PyPI, in a venv of its own): taps, inputs, hot reload, the
# banner, panels, flows.
step browser-tests bash scripts/browser-tests.sh "$sdui"
# Debian's python3 has python3-jsonschema (setup.sh); another python3 first
# on PATH may not.
py=python3
for c in /usr/bin/python3 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import jsonschema' 2>/dev/null; then py=$c; break; fi
done
step check-schemas "$py" scripts/check-schemas.py "$sdui"
