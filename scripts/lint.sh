#!/usr/bin/env bash
# The format and lint gates: every C++ file as clang-format-14 formats it, and
# clang-tidy-14 clean with .clang-tidy's checks. `lint.sh format` runs only the first (no build
# needed); `lint.sh` runs both, the second on the compile database of ${BUILD_DIR:-build}.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
cd "$root"

sources() {
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -- '*.cc' '*.h' '*.cu'
  else
    find agent aggregator analysis base bench client differ examples rpc tests trace \
      -name '*.cc' -o -name '*.h' -o -name '*.cu'
  fi
}

echo "lint: clang-format-14 --dry-run on $(sources | wc -l) files" >&2
if ! sources | xargs clang-format-14 --dry-run --Werror 2>/tmp/profdiff-format.$$; then
  grep -o '^[^:]*:[0-9]*:[0-9]*: ' /tmp/profdiff-format.$$ | cut -d: -f1 | sort -u |
    sed 's/^/lint: not formatted: /' >&2
  echo "lint: run clang-format-14 -i on the files above" >&2
  rm -f /tmp/profdiff-format.$$
  exit 1
fi
rm -f /tmp/profdiff-format.$$
[ "${1:-all}" = format ] && exit 0

# Every translation unit of ours in the compile database (not generated code), checked in parallel.
echo "lint: clang-tidy-14 on the compile database in $build" >&2
run-clang-tidy-14 -p "$build" -quiet -j "$(nproc)" \
  "^$root/(agent|aggregator|analysis|base|bench|client|differ|rpc|tests|trace)/" >"$build/clang-tidy.log" 2>&1 || {
  grep -E '(error|warning):' "$build/clang-tidy.log" | grep -v '^error: [0-9]* warnings' | sort -u | head -50 >&2
  echo "lint: clang-tidy found the above (whole log: $build/clang-tidy.log)" >&2
  exit 1
}
