#!/usr/bin/env bash
# The main job: build, `profdiff show` on a real run folder (every view), `profdiff diff` of
# DataLoader num_workers 0 against 4 (ResNet50 on a V100), then the pipeline on this machine
# (aggregator, two agents, and the CLI reading the stored run from the server).
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

# The pipeline on one machine: an aggregator, two agents uploading the 8 DLRM ranks (4 each),
# then the CLI reading the stored run back from the server.
dlrm="$traces/param/dlrm_kineto"
if [ -d "$dlrm" ]; then
  echo
  echo "=== pipeline: profdiff-aggregator + two profdiff-agent uploads of the 8 DLRM ranks ==="
  work="$(mktemp -d)"
  trap 'kill "$aggregator_pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
  "$build/aggregator/profdiff-aggregator" --listen 127.0.0.1:0 --data-dir "$work/data" \
    --port-file "$work/port" 2> "$work/aggregator.log" &
  aggregator_pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  server="127.0.0.1:$(cat "$work/port")"
  files=("$dlrm"/*.json.gz)
  "$build/agent/profdiff-agent" upload --aggregator "$server" --run dlrm_kineto "${files[@]:0:4}" &
  agent_a=$!
  "$build/agent/profdiff-agent" upload --aggregator "$server" --run dlrm_kineto "${files[@]:4:4}" &
  agent_b=$!
  wait "$agent_a" "$agent_b"
  "$build/client/profdiff" runs --server "$server"
  "$build/client/profdiff" show dlrm_kineto --server "$server" --view steps
  "$build/client/profdiff" export dlrm_kineto --worker 3 --server "$server" -o "$work/rank3.json"
fi
