#!/usr/bin/env bash
# The test command: installs what is missing, checks formatting, builds, runs the clang-tidy gate
# (scripts/lint.sh tidy: the units whose inputs changed since found clean), and runs every test
# (slow and e2e too).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install_deps.sh"
"$root/scripts/lint.sh" format
"$root/scripts/build.sh"
"$root/scripts/lint.sh" tidy
build="${BUILD_DIR:-$root/build}"
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
