#!/usr/bin/env bash
# run.sh - /design-tokens with 50 ids, warm, under wrk: `sdui serve` side by
# side with nginx serving the very same response bytes as a static file.
#
#   bash bench/server/run.sh [SECONDS] [ROUNDS]     (defaults: 10 s, 5 rounds)
#
# Installs wrk and nginx from Debian when missing.  Builds sdui in release
# mode, publishes 94 tokens (the examples, twice over with new ids) into a
# fresh SQLite registry, and starts both servers on 127.0.0.1.  Each round
# runs wrk against both, taking turns at going first (2 threads, 32
# connections, the same X-Primitives header); the table gives each side's
# median, fewest and most req/s over the rounds, its median p99, and the
# ratio sdui/nginx of the medians; a last line gives the spread of the
# ratio round by round (each round's sdui run against its nginx run).
# Both servers use every core (NIO's default event loops, nginx
# worker_processes auto) and share them with wrk.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-10}
rounds=${2:-5}

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

build_log=$(mktemp)
if ! bash scripts/build-release.sh >"$build_log" 2>&1; then
    cat "$build_log" >&2; rm -f "$build_log"; exit 1
fi
rm -f "$build_log"
sdui=.build/release/sdui
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; "$nginx_bin" -p "$work" -c "$work/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT

# 94 tokens: every example token, and a copy of each under a new id.
mkdir -p "$work/reg/tokens"
python3 - "$work/reg/tokens" <<'PY'
import json, glob, os, sys
out = sys.argv[1]
for f in sorted(glob.glob("Examples/tokens/*.json")):
    t = json.load(open(f))
    for suffix in ("", "_copy"):
        u = dict(t, id=t["id"] + suffix)
        open(os.path.join(out, u["id"] + ".json"), "w").write(json.dumps(u, ensure_ascii=False))
PY
"$sdui" registry import "$work/reg" --db "$work/registry.db" >/dev/null
ids=$(ls "$work/reg/tokens" | sed 's/\.json$//' | sort | head -n 50 | paste -sd, -)
header="X-Primitives: Column@3,Row@2,Text@4,AsyncImage@2,Spacer@1,Button@1,TextField@1,Slider@1,Choice@1,Toggle@1"

port_sdui=18080; port_nginx=18081
"$sdui" serve --db "$work/registry.db" --port $port_sdui 2>"$work/serve.log" &
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port_sdui/health" >/dev/null && break; sleep 0.1; done
url_sdui="http://127.0.0.1:$port_sdui/design-tokens?ids=$ids"
curl -fs -H "$header" "$url_sdui" -o "$work/tokens.json"
etag=$(curl -fs -D - -o /dev/null -H "$header" "$url_sdui" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')

mkdir -p "$work/html/logs" "$work/logs"
cp "$work/tokens.json" "$work/html/design-tokens"
cat >"$work/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$port_nginx;
        root $work/html;
        location = /design-tokens {
            default_type application/json;
            etag off;
            add_header ETag '$etag';
            add_header Cache-Control 'max-age=86400';
            add_header Vary 'X-Primitives';
        }
    }
}
CONF
chmod -R a+rX "$work"   # nginx workers run as another user
"$nginx_bin" -p "$work" -c "$work/nginx.conf"
url_nginx="http://127.0.0.1:$port_nginx/design-tokens?ids=$ids"
cmp <(curl -fs -H "$header" "$url_sdui") <(curl -fs -H "$header" "$url_nginx")

bytes=$(wc -c <"$work/tokens.json")
echo "GET /design-tokens, 50 ids, $bytes-byte answer; wrk -t2 -c32 -d${seconds}s; $rounds rounds; $(nproc) cores"
run() {  # url -> "req/s p99-ms"
    wrk -t2 -c32 -d"${seconds}s" --latency -H "$header" "$1" | awk '
        /Requests\/sec/ { rps = $2 }
        /^ +99%/ { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v = v / 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v = v * 1000 }; p99 = v }
        END { printf "%s %s\n", rps, p99 }'
}
curl -fs -H "$header" "$url_sdui" >/dev/null   # warm
for r in $(seq 1 "$rounds"); do
    # The two take turns at going first, so neither always runs right
    # after the other has loaded the machine.
    if [ $((r % 2)) -eq 1 ]; then
        echo "sdui $(run "$url_sdui")" >>"$work/results"
        echo "nginx $(run "$url_nginx")" >>"$work/results"
    else
        echo "nginx $(run "$url_nginx")" >>"$work/results"
        echo "sdui $(run "$url_sdui")" >>"$work/results"
    fi
done
python3 - "$work/results" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
rps = {n: [float(r[1]) for r in rows if r[0] == n] for n in ("sdui", "nginx")}
p99 = {n: [float(r[2]) for r in rows if r[0] == n] for n in ("sdui", "nginx")}
for name in ("sdui", "nginx"):
    print(f"  {name:6s} rounds req/s: {', '.join(f'{x:.0f}' for x in rps[name])}")
print()
print("| server | median req/s | min req/s | max req/s | median p99 ms | median req/s × nginx |")
print("|---|---:|---:|---:|---:|---:|")
base = statistics.median(rps["nginx"])
for name in ("sdui", "nginx"):
    xs = rps[name]
    label = "sdui serve (SQLite)" if name == "sdui" else "nginx, static file"
    print(f"| {label} | {statistics.median(xs):,.0f} | {min(xs):,.0f} | {max(xs):,.0f} | "
          f"{statistics.median(p99[name]):.2f} | {statistics.median(xs) / base:.2f} |")
ratios = [a / b for a, b in zip(rps["sdui"], rps["nginx"])]
print()
print(f"sdui/nginx round by round: {', '.join(f'{r:.2f}' for r in ratios)} "
      f"(median {statistics.median(ratios):.2f}, min {min(ratios):.2f}, max {max(ratios):.2f})")
PY
