#!/usr/bin/env bash
# demo.sh - the main job: the registry on 127.0.0.1 with embedded SQLite
# seeded from Examples/, a core pack and a Fallback Pack built from it, and
# every example screen loaded through the token repository over HTTP:
# online, again from the disk cache, and offline.  Run it twice: the second
# run starts with the first one's disk cache.  HTML previews land in
# .build/demo/previews/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-release.sh
.build/release/sdui demo --examples Examples --out .build/demo "$@"
