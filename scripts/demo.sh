#!/usr/bin/env bash
# The main job, the full pipeline on this machine: trains the baseline and experimental variants
# of one comparison (DDP, 2 ranks, Debian's CPU torch), starts the local deployment (aggregator +
# differ), lets a profdiff-agent upload the log dir, and prints `profdiff diff` of the two runs
# from the differ: overview, module tree, top operators. Then stops everything.
# Usage: scripts/demo.sh [SCENARIO]   (default resnet-depth; see examples/workloads/README.md)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scenario="${1:-resnet-depth}"
step() { echo; echo "=== demo: $* ==="; }

step "build"
"$root/scripts/build.sh"
build="${BUILD_DIR:-$root/build}"
profdiff="$build/client/profdiff"

work="$(mktemp -d)"
logdir="$work/logdir"
agent_pid=""
cleanup() {
  [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null
  "$root/deploy/local/profdiff-local" stop --data-dir "$work/local" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

step "train $scenario: baseline and experimental, 2 ranks each (gloo), 5 profiled steps"
for variant in baseline experimental; do
  /usr/bin/python3 "$root/examples/workloads/train.py" --scenario "$scenario" --variant "$variant" \
    --ranks 2 --steps 5 --out "$work/train"
done

step "start the local deployment (profdiff-aggregator + profdiff-differ on 127.0.0.1)"
"$root/deploy/local/profdiff-local" start --data-dir "$work/local" --aggregator-port 0 \
  --differ-port 0 --bin-dir "$build"
# PROFDIFF_SERVER (the differ: the CLI's one address) and PROFDIFF_AGGREGATOR (for agents).
# shellcheck disable=SC1091
source "$work/local/profdiff-local.env"
export PROFDIFF_SERVER

step "profdiff-agent watches the log dir; the training runs land in it"
mkdir -p "$logdir"
"$build/agent/profdiff-agent" --aggregator "$PROFDIFF_AGGREGATOR" --logdir "$logdir" \
  --state-dir "$work/agent-state" --settle 1s 2> "$work/agent.log" &
agent_pid=$!
# A finished run folder appears at once (rename), as a training job's log dir would.
mv "$work/train/$scenario-baseline" "$work/train/$scenario-experimental" "$logdir/"

runs_complete() {
  "$profdiff" runs --format csv 2>/dev/null | grep -c "^$scenario-.*,complete," || true
}
for _ in $(seq 600); do
  [ "$(runs_complete)" -ge 2 ] && break
  sleep 0.2
done
"$profdiff" runs
[ "$(runs_complete)" -ge 2 ] || { echo "demo: runs did not complete; agent log:"; tail -20 "$work/agent.log"; exit 1; }

base="$scenario-baseline"
exp="$scenario-experimental"
step "profdiff diff $base $exp (asked of the differ at $PROFDIFF_SERVER)"
"$profdiff" diff "$base" "$exp" --view overview
"$profdiff" diff "$base" "$exp" --view modules --depth 3
"$profdiff" diff "$base" "$exp" --view operators --top 10
report="$build/demo-report.html"
"$profdiff" diff "$base" "$exp" --format html -o "$report"
echo "open $report in a browser: module timeline with zoom, charts, sortable tables"

step "stop"
kill "$agent_pid"
wait "$agent_pid" 2>/dev/null || true
agent_pid=""
"$root/deploy/local/profdiff-local" stop --data-dir "$work/local"
echo "demo: done"
