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

# playwright-core for the HTML report's browser test (tests/html/package-lock.json), from the npm
# registry. Without it that one test says SKIPPED; the build does not fail for it.
node_dir="$build/node"
if ! cmp -s "$root/tests/html/package-lock.json" "$node_dir/package-lock.json" ||
   [ ! -d "$node_dir/node_modules/playwright-core" ]; then
  mkdir -p "$node_dir"
  cp "$root/tests/html/package.json" "$root/tests/html/package-lock.json" "$node_dir/"
  (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "warning: npm ci failed in $node_dir: the HTML browser test will be skipped" >&2
fi
