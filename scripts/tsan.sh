#!/usr/bin/env bash
# tsan.sh - the concurrent parts of the Swift side under ThreadSanitizer:
# the scenario-data store (many writers, observers, the backend flusher),
# expression programs evaluated from many threads, and screen updates.
# Builds into its own scratch path (.build-tsan; SDUI_TSAN_SCRATCH names
# another) so the normal build stays as it is; the first build takes
# several minutes.  Then the C core's concurrent parts (seekable packs
# read from many threads, the cache, token parsing, ...): `make tsan`, its
# own objects in build/tsan.  Exit status is non-zero when a test fails or
# ThreadSanitizer reports anything.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${SDUI_TSAN_SCRATCH:-.build-tsan}"
# Without the trait "Server": the suites below are client code, and leaving
# the server stack (PostgresNIO, SQLiteNIO, Prometheus, the CLI) out of the
# instrumented build saves CI several minutes.
swift build --build-tests --sanitize=thread --scratch-path "$scratch"
bin="$(swift build --sanitize=thread --scratch-path "$scratch" --show-bin-path)"
log="$scratch/tsan.log"
# halt_on_error=0: finish the run and count every report.
TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" \
    "$bin/SDUIKitPackageTests.xctest" --testing-library swift-testing \
    --filter 'SDUIStoreTests|CompiledExpressionTests|ScreenRenderTests|FlowSessionConcurrencyTests|ScreenStateMachineTests' 2>&1 | tee "$log" | grep -E '^.{0,12}Test run with'
reports=$(grep -c 'WARNING: ThreadSanitizer' "$log" || true)
if grep -q 'Test run with .* failed' "$log" || [ "$reports" -ne 0 ]; then
    echo "tsan.sh: $reports ThreadSanitizer report(s) or a failed test; see $log" >&2
    exit 1
fi
echo "tsan.sh: no ThreadSanitizer reports"
# The C core under ThreadSanitizer (Makefile: tsan); it fails on any report.
if ! make -s tsan; then
    echo "tsan.sh: the C core's ThreadSanitizer run failed; see build/tsan/*.log" >&2
    exit 1
fi
echo "tsan.sh: no ThreadSanitizer reports in the C core"
