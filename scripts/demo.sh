#!/usr/bin/env bash
# The main job for now: build, `profdiff show` on a real run folder (every view), then
# `profdiff diff` of DataLoader num_workers 0 against 4 (ResNet50 on a V100).
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
samples="$traces/kineto/tb_plugin_samples"
if [ -d "$samples/resnet50_num_workers_0" ] && [ -d "$samples/resnet50_num_workers_4" ]; then
  echo
  echo "=== profdiff diff: num_workers=0 (baseline) vs num_workers=4 (experimental) ==="
  "$build/client/profdiff" diff "$samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz" \
    "$samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz" --top 10 --depth 1
fi
