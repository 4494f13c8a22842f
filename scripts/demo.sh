#!/usr/bin/env bash
# The main job for now: build, then `profdiff show` on a real run folder (every view).
# Usage: scripts/demo.sh [PATH...]   (default: the ResNet50 num_workers=0 run in ../shared/traces)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh"
build="${BUILD_DIR:-$root/build}"
traces="${PROFDIFF_TRACES:-$root/../shared/traces}"
if [ $# -eq 0 ]; then
  set -- "$traces/kineto/tb_plugin_samples/resnet50_num_workers_0"
fi
"$build/client/profdiff" show "$@" --view all --top 10
