#!/usr/bin/env bash
# run-swift.sh - builds the Swift libFuzzer harness of the normalized-payload
# decoder (Tests/Fuzz/swift: ScreenModel(json:), then a render under small
# RenderLimits, its JSON and its HTML preview) and runs it for SECONDS
# (default 60).  Run from anywhere:
#
#     bash Tests/Fuzz/run-swift.sh [SECONDS]
#
# The harness is a package of its own that depends on this one by path, so
# the library's Package.swift carries no sanitizer flags.  It is built in
# release mode with -sanitize=fuzzer,address (every Swift module and C
# target instrumented) into .build-fuzz (SDUI_FUZZ_SCRATCH names another);
# the first build takes several minutes, later ones are incremental.  Work
# files live in build/fuzz-swift/:
#   seeds/       Examples/payloads/*.json and Tests/Fuzz/swift/seeds/*.json
#                (hand-written and hostile payloads; hostile.py writes more)
#   corpus/      the growing corpus, kept between runs
#   artifacts/   crash, timeout and out-of-memory inputs
#   payload.log  the fuzzer's output
# An input that runs longer than 10 s or takes more than 2 GB is a finding
# (the render bounds must bound time and memory), as is a crash or a broken
# invariant (see Tests/Fuzz/swift/Sources/FuzzPayload/FuzzPayload.swift).
# Prints the runs and executions per second; exits non-zero when the build
# fails or the fuzzer found something.
# Needs: the Swift toolchain (its clang brings the fuzzer runtime) and the
# packages the library itself needs (libjansson-dev, libdeflate-dev,
# libsqlite3-dev).
set -u

USAGE="usage: bash Tests/Fuzz/run-swift.sh [SECONDS]"
SECONDS_RUN="${1:-60}"
case "$SECONDS_RUN" in
'' | *[!0-9]* | 0)
    echo "$USAGE" >&2
    exit 2
    ;;
esac

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT" || exit 2
SCRATCH="${SDUI_FUZZ_SCRATCH:-$ROOT/.build-fuzz}"
WORK=build/fuzz-swift
mkdir -p "$WORK/seeds" "$WORK/corpus" "$WORK/artifacts"

FLAGS=(-c release --package-path Tests/Fuzz/swift --scratch-path "$SCRATCH"
    -Xswiftc -sanitize=fuzzer,address
    -Xcc -fsanitize=fuzzer-no-link,address)
echo "run-swift.sh: building the payload harness (log: $WORK/build.log)"
if ! swift build "${FLAGS[@]}" >"$WORK/build.log" 2>&1; then
    grep -E "error:" "$WORK/build.log" | head -20 >&2
    echo "run-swift.sh: the harness did not build; see $WORK/build.log" >&2
    exit 1
fi
BIN="$(swift build "${FLAGS[@]}" --show-bin-path)/FuzzPayload"

cp Examples/payloads/*.json Tests/Fuzz/swift/seeds/*.json "$WORK/seeds/"

echo "run-swift.sh: fuzzing the payload decoder for ${SECONDS_RUN}s"
"$BIN" "$WORK/corpus" "$WORK/seeds" \
    -dict=<(cat Tests/Fuzz/json.dict Tests/Fuzz/swift/payload.dict) \
    -max_total_time="$SECONDS_RUN" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$WORK/artifacts/" -print_final_stats=1 >"$WORK/payload.log" 2>&1
status=$?
runs=$(grep -E '^stat::number_of_executed_units' "$WORK/payload.log" | awk '{print $2}')
rate=$(grep -E '^stat::average_exec_per_sec' "$WORK/payload.log" | awk '{print $2}')
echo "payload: ${runs:-?} runs, ${rate:-?} exec/s, exit $status"
if [ "$status" -ne 0 ]; then
    grep -E "ERROR|FuzzPayload:|Test unit written|SUMMARY" "$WORK/payload.log" | head -10 >&2
    echo "run-swift.sh: the payload harness found a problem; see $WORK/payload.log and $WORK/artifacts/" >&2
    exit 1
fi
