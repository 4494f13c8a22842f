#!/usr/bin/env bash
# Configures and builds profdiff into ${BUILD_DIR:-build} with clang and Ninja (Release).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install_deps.sh"
build="${BUILD_DIR:-$root/build}"
export CC="${CC:-clang}" CXX="${CXX:-clang++}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
  -DPROFDIFF_TRACES="${PROFDIFF_TRACES:-$root/../shared/traces}" >/dev/null
cmake --build "$build"
