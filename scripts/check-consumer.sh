#!/usr/bin/env bash
# check-consumer.sh - SDUIKit as other packages depend on it.
#
#  1. Tests/Consumer/ClientApp, an app that depends on the SDUI product only:
#     resolving it must not fetch the server stack (the package trait "Server"
#     is off by default), building it must not build it, and the app must open
#     the example Core-Token Pack.
#  2. Examples/registry-host, a service that depends on SDUIServer with the
#     trait on and mounts the registry's routes in its own Hummingbird router:
#     it must build, serve a registry imported by `sdui`, see a later publish
#     through the refresher, and stop cleanly on SIGTERM.
#
# Each package is copied to a scratch folder with its path dependency pointed
# back at this checkout, so nothing is written into the tree.  The folder is
# removed afterwards unless SDUI_CONSUMER_WORK names one to keep (its builds
# are then incremental on the next run).
#
#     bash scripts/check-consumer.sh PATH/TO/sdui [SCRATCH]
#
# SCRATCH, when given, is the build folder of this checkout built with the
# trait on (test.sh passes .build): both packages are built there, so they
# reuse the modules already compiled instead of building them again (the
# client app and the host each add one module).  What the client app's
# build needs is then read from its build plan (description.json, which
# SwiftPM writes for the graph it builds): no server module may be in it.
# Without SCRATCH the client app builds in a folder of its own, and the
# modules it produced are checked as well.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
sdui=${1:?usage: check-consumer.sh PATH/TO/sdui [SCRATCH]}
shared=${2:-}
keep=${SDUI_CONSUMER_WORK:-}
if [ -n "$keep" ]; then mkdir -p "$keep"; work=$(cd "$keep" && pwd); else work=$(mktemp -d); fi
host_pid=
cleanup() {
    [ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null || true
    [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check-consumer: $*" >&2; exit 1; }

# copy FIXTURE NAME: the fixture in $work/NAME, its "../.." path made absolute.
copy() {
    mkdir -p "$work/$2"
    rm -rf "$work/$2/Sources" "$work/$2/Package.resolved"
    cp -R "$1/Package.swift" "$1/Sources" "$work/$2/"
    sed -i "s|path: \"[./]*\"|path: \"$root\"|" "$work/$2/Package.swift"
    grep -q "path: \"$root\"" "$work/$2/Package.swift" || fail "$1/Package.swift: no path dependency to point at $root"
}

# pins DIR: the identities Package.resolved pins, one per line.
pins() {
    python3 -c 'import json,sys; [print(p["identity"]) for p in json.load(open(sys.argv[1]))["pins"]]' "$1/Package.resolved"
}

server_stack='^(hummingbird|swift-nio.*|postgres-nio|sqlite-nio|swift-prometheus|swift-service-lifecycle|async-http-client|swift-argument-parser|swift-http-types)$'

# --- 1. a client app --------------------------------------------------------
copy Tests/Consumer/ClientApp client
swift package --package-path "$work/client" resolve >/dev/null 2>&1 || fail "Tests/Consumer/ClientApp did not resolve"
client_pins=$(pins "$work/client")
echo "client app: $(echo "$client_pins" | wc -l) packages fetched: $(echo $client_pins)"
if echo "$client_pins" | grep -Eq "$server_stack"; then
    fail "the client app fetched server packages: $(echo "$client_pins" | grep -E "$server_stack" | tr '\n' ' ')"
fi
client_build=(--package-path "$work/client")
if [ -n "$shared" ]; then
    [ -d "$shared" ] || fail "$shared: no such build folder"
    client_build+=(--scratch-path "$(cd "$shared" && pwd)")
fi
swift build "${client_build[@]}" >"$work/client.log" 2>&1 || fail "the client app did not build: $(grep -E 'error:' "$work/client.log" | head -5)"
bin=$(swift build "${client_build[@]}" --show-bin-path)
# The build plan: every target the client app depends on, directly or not
# (description.json, which SwiftPM writes for the graph it builds, maps
# each target to those it depends on).
plan="$bin/description.json"
[ -f "$plan" ] || fail "$plan: the client app's build plan is missing"
modules=$(python3 - "$plan" <<'PY'
import json, sys
deps = json.load(open(sys.argv[1]))["targetDependencyMap"]
seen, todo = set(), ["ClientApp"]
while todo:
    t = todo.pop()
    if t not in seen:
        seen.add(t)
        todo += deps.get(t, [])
print("\n".join(sorted(seen)))
PY
) || fail "$plan: not a build description"
for m in ClientApp SDUI SDUICore CSDUI; do
    echo "$modules" | grep -qx "$m" || fail "the client app's build plan $plan has no target $m: it is not the client app's"
done
server_modules='^(Hummingbird.*|NIO.*|PostgresNIO|SQLiteNIO|Prometheus|ServiceLifecycle|AsyncHTTPClient|ArgumentParser|SDUIServer|sdui)$'
if echo "$modules" | grep -Eq "$server_modules"; then
    fail "the client app's build needs $(echo "$modules" | grep -E "$server_modules" | tr '\n' ' ')"
fi
if [ -z "$shared" ]; then
    for m in Hummingbird NIOCore PostgresNIO SDUIServer; do
        [ -e "$bin/Modules/$m.swiftmodule" ] || [ -e "$bin/$m.swiftmodule" ] && fail "the client app built $m"
    done
fi
out=$("$bin/ClientApp" Examples/core-pack.json.gz login_logo)
[[ "$out" == *"login_logo@"* ]] || fail "ClientApp printed '$out'"
echo "client app: built without the server stack ($(echo "$modules" | wc -l) targets in its build plan); $out"

# --- 2. a service hosting the registry ---------------------------------------
copy Examples/registry-host host
host_build=(--package-path "$work/host")
[ -n "$shared" ] && host_build+=(--scratch-path "$(cd "$shared" && pwd)")
swift package "${host_build[@]}" resolve >/dev/null 2>&1 || fail "Examples/registry-host did not resolve"
echo "registry host: $(pins "$work/host" | wc -l) packages fetched (trait \"Server\" on)"
swift build "${host_build[@]}" >"$work/host.log" 2>&1 || fail "Examples/registry-host did not build: $(grep -E 'error:' "$work/host.log" | head -5)"
host=$(swift build "${host_build[@]}" --show-bin-path)/RegistryHost

db="$work/registry.db"
rm -f "$db" "$db-wal" "$db-shm"
"$sdui" registry import Examples --db "$db" >/dev/null
"$host" --db "$db" --port 0 >"$work/host.out" 2>&1 &
host_pid=$!
port=
for _ in $(seq 1 100); do
    port=$(sed -n 's/^registry-host listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/host.out")
    [ -n "$port" ] && break
    kill -0 "$host_pid" 2>/dev/null || fail "registry-host exited: $(cat "$work/host.out")"
    sleep 0.1
done
[ -n "$port" ] || fail "registry-host did not start: $(cat "$work/host.out")"
base="http://127.0.0.1:$port"
prims='X-Primitives: Column@3,Row@2,Text@4,AsyncImage@2,Spacer@1,Button@1,TextField@1,Slider@1,Choice@1,Toggle@1'
# status PATH: the HTTP status of a GET.
status() { curl -s -o /dev/null -w '%{http_code}' -H "$prims" "$base$1"; }
[ "$(curl -s "$base/")" = "registry-host: the registry is under /sdui" ] || fail "the host's own route did not answer"
[ "$(status /sdui/health/live)" = 200 ] || fail "/sdui/health/live is not 200"
[ "$(status /sdui/design-tokens?ids=login_logo)" = 200 ] || fail "/sdui/design-tokens?ids=login_logo is not 200"
[ "$(status /sdui/design-tokens?ids=host_check_token)" = 404 ] || fail "host_check_token answered before it was published"

# A publish after the host started must reach its routes through the refresher.
rm -rf "$work/later"; mkdir -p "$work/later/tokens"
python3 - "$work/later/tokens/host_check_token.json" <<'PY'
import json, sys
json.dump({"id": "host_check_token", "version": 1, "primitive": "Text", "primitiveVersion": 4,
           "props": {"text": "published after the host started"}}, open(sys.argv[1], "w"))
PY
"$sdui" registry import "$work/later/tokens" --db "$db" >/dev/null
seen=
for _ in $(seq 1 100); do
    [ "$(status /sdui/design-tokens?ids=host_check_token)" = 200 ] && { seen=1; break; }
    sleep 0.1
done
[ -n "$seen" ] || fail "a publish did not reach the host's mounted routes"

kill -TERM "$host_pid"
rc=0; wait "$host_pid" || rc=$?
host_pid=
[ "$rc" = 0 ] || fail "registry-host exited $rc on SIGTERM: $(cat "$work/host.out")"
echo "registry host: serves /sdui next to its own routes, sees a later publish, stops on SIGTERM"
