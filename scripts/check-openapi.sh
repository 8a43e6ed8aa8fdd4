#!/usr/bin/env bash
# check-openapi.sh - schemas/openapi.json against the server it describes.
#
#  1. The committed document is the bundle of its sources
#     (scripts/bundle-openapi.py --check).
#  2. Tests/OpenAPIClient: swift-openapi-generator's build plugin makes a
#     client from the document (the build fails when the generator refuses
#     it), and the client calls a live `sdui serve` on the example registry,
#     without and then with --access-key, checking every answer.
#  3. schemathesis (PyPI, the version pinned below, in a venv of its own)
#     runs all its checks against the same two servers, with a bounded
#     number of examples per operation and a fixed seed, so a run is
#     repeatable; one failure fails the run.  Tests/OpenAPIClient/
#     schemathesis.toml says which statuses count as accepted or refused.
#
# Everything is built and run in a scratch folder, removed afterwards unless
# SDUI_OPENAPI_WORK names one to keep (the venv and the client's build are
# then reused).  SDUI_OPENAPI_EXAMPLES (default 50) and SDUI_OPENAPI_SEED
# (default 23) set schemathesis's examples per operation and seed.
#
#     bash scripts/check-openapi.sh PATH/TO/sdui
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
sdui=${1:?usage: check-openapi.sh PATH/TO/sdui}
[ -x "$sdui" ] || { echo "check-openapi: $sdui is not an executable" >&2; exit 1; }
sdui=$(cd "$(dirname "$sdui")" && pwd)/$(basename "$sdui")
schemathesis_version=4.32.5
examples=${SDUI_OPENAPI_EXAMPLES:-50}
seed=${SDUI_OPENAPI_SEED:-23}
keep=${SDUI_OPENAPI_WORK:-}
if [ -n "$keep" ]; then mkdir -p "$keep"; work=$(cd "$keep" && pwd); else work=$(mktemp -d); fi
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check-openapi: $*" >&2; exit 1; }

# --- 1. the bundle ----------------------------------------------------------
python3 scripts/bundle-openapi.py --check || fail "schemas/openapi.json is stale"

# --- servers on the example registry -----------------------------------------
db="$work/registry.db"
rm -f "$db" "$db-wal" "$db-shm"
"$sdui" registry import Examples --db "$db" >/dev/null
key="$work/access.key"
head -c 48 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$key"   # an HS256 secret of 96 bytes

# serve NAME ARGS...: starts `sdui serve` on a free port; sets $port.
serve() {
    local name=$1; shift
    "$sdui" serve --db "$db" --port 0 "$@" >"$work/$name.log" 2>&1 &
    pids+=($!)
    port=
    for _ in $(seq 1 100); do
        port=$(sed -n 's|^sdui serve: listening on http://127.0.0.1:\([0-9]*\)/$|\1|p' "$work/$name.log")
        [ -n "$port" ] && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || fail "sdui serve $* exited: $(cat "$work/$name.log")"
        sleep 0.1
    done
    fail "sdui serve $* did not start: $(cat "$work/$name.log")"
}
serve open
open_port=$port
serve auth --access-key "$key"
auth_port=$port
# A token lives at most an hour: enough for one run.
bearer=$("$sdui" registry token --access-key "$key")

# --- 2. a generated client ---------------------------------------------------
mkdir -p "$work/client"
rm -rf "$work/client/Sources" "$work/client/Package.swift"
cp -RL Tests/OpenAPIClient/Package.swift Tests/OpenAPIClient/Sources "$work/client/"
cmp -s schemas/openapi.json "$work/client/Sources/RegistryClientCheck/openapi.json" \
    || fail "Tests/OpenAPIClient/Sources/RegistryClientCheck/openapi.json is not schemas/openapi.json"
swift build --package-path "$work/client" >"$work/client.log" 2>&1 \
    || fail "the client generated from schemas/openapi.json did not build: $(grep -E 'error:' "$work/client.log" | head -5)"
echo "generated client: built; $(grep 'warning: Validation warning' "$work/client.log" | sort -u | wc -l) generator warning(s) about JSON Schema keywords a Swift type cannot hold (if/then)"
client=$(swift build --package-path "$work/client" --show-bin-path)/RegistryClientCheck
status=0
"$client" "$open_port" || status=1
"$client" "$auth_port" "$bearer" || status=1

# --- 3. schemathesis ---------------------------------------------------------
venv="$work/venv"
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null)" != "Schemathesis $schemathesis_version" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >"$work/venv.log" 2>&1 \
        || fail "python3 -m venv failed (Debian: apt-get install python3-venv): $(tail -3 "$work/venv.log")"
    "$venv/bin/pip" install -q "schemathesis==$schemathesis_version" >>"$work/venv.log" 2>&1 \
        || fail "pip install schemathesis==$schemathesis_version failed: $(tail -3 "$work/venv.log")"
fi
# st LABEL PORT [ARGS...]: one schemathesis run; its summary, or all of it on failure.
st() {
    local label=$1 port=$2; shift 2
    local out="$work/schemathesis-$label.txt"
    if (cd "$work" && "$venv/bin/schemathesis" --config-file "$root/Tests/OpenAPIClient/schemathesis.toml" \
            run "$root/schemas/openapi.json" --url "http://127.0.0.1:$port" --checks all \
            --max-examples "$examples" --seed "$seed" --generation-database none --no-color "$@") >"$out" 2>&1; then
        echo "schemathesis ($label): $(grep -E '^ +[0-9]+ generated' "$out" | sed 's/^ *//'), 0 failures"
    else
        sed -n '/=== FAILURES ===/,$p' "$out" | cut -c1-600 >&2
        [ -s "$out" ] && ! grep -q "=== FAILURES ===" "$out" && tail -20 "$out" >&2
        echo "schemathesis ($label): FAILED$([ -n "$keep" ] && echo "; all it printed is in $out")" >&2
        status=1
    fi
}
st open "$open_port"
st access-key "$auth_port" -H "Authorization: Bearer $bearer"
[ "$status" = 0 ] || fail "schemas/openapi.json and the server disagree (above)"
echo "check-openapi: the generated client and schemathesis ($examples examples per operation, seed $seed) agree with the server"
