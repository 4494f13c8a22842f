#!/usr/bin/env bash
# The format and lint gates.
#   lint.sh format            every C++ file as clang-format-14 formats it (no build needed)
#   lint.sh tidy [FLAGS]      clang-tidy-14 with .clang-tidy's checks on every translation unit of
#                             the build in ${BUILD_DIR:-build} whose inputs changed since it was
#                             last found clean (scripts/clang_tidy_gate.py: --all checks every
#                             unit, --record writes .clang-tidy-clean)
#   lint.sh                   both
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
cd "$root"
mode="${1:-all}"
[ $# -gt 0 ] && shift
case "$mode" in
  format | tidy | all) ;;
  *) echo "lint: unknown mode '$mode' (expected format, tidy or nothing for both)" >&2; exit 2 ;;
esac

sources() {
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -- '*.cc' '*.h' '*.cu'
  else
    find agent aggregator analysis base bench client differ examples report rpc tests trace \
      -name '*.cc' -o -name '*.h' -o -name '*.cu'
  fi
}

if [ "$mode" = format ] || [ "$mode" = all ]; then
  echo "lint: clang-format-14 --dry-run on $(sources | wc -l) files" >&2
  if ! sources | xargs clang-format-14 --dry-run --Werror 2>/tmp/profdiff-format.$$; then
    grep -o '^[^:]*:[0-9]*:[0-9]*: ' /tmp/profdiff-format.$$ | cut -d: -f1 | sort -u |
      sed 's/^/lint: not formatted: /' >&2
    echo "lint: run clang-format-14 -i on the files above" >&2
    rm -f /tmp/profdiff-format.$$
    exit 1
  fi
  rm -f /tmp/profdiff-format.$$
fi
if [ "$mode" = tidy ] || [ "$mode" = all ]; then
  python3 "$root/scripts/clang_tidy_gate.py" --build "$build" --log "$build/clang-tidy.log" "$@"
fi
