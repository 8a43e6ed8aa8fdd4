#!/usr/bin/env bash
# build-release.sh - the release `sdui` every script, benchmark and the README
# use: the Swift standard library and Foundation linked in (--static-swift-stdlib)
# and a position-dependent executable (-no-pie), so starting it does not
# load a dozen Swift libraries nor relocate the binary's pointers.  What is
# still loaded at start is libc's family and what FoundationNetworking
# needs (libcurl and its libraries); README, "Start-up", has the figures.
# Static Foundation links FoundationNetworking against libcurl's linker
# name, which libcurl4-openssl-dev provides (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --traits Server --product sdui --static-swift-stdlib -Xlinker -no-pie "$@"
