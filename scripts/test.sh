#!/usr/bin/env bash
# test.sh - the whole test suite: the C core's own tests (make test), then
# every Swift Testing suite.  Fuzzing is separate: Tests/Fuzz/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# A machine with only the Swift toolchain has clang but maybe no `cc`.
command -v "${CC:-cc}" >/dev/null 2>&1 || export CC=clang
make -s test
bash scripts/check-c-install.sh
swift test
