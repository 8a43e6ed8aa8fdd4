#!/usr/bin/env bash
# demo.sh - the main job: build the example Core-Token Pack from Examples/tokens
# and inspect it (a later issue turns this into the full end-to-end demo).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product sdui
sdui=.build/release/sdui
out=.build/example-core-pack.json.gz
"$sdui" pack build Examples/tokens --out "$out"
"$sdui" pack inspect "$out" --check-tokens
