#!/usr/bin/env bash
# End to end through deploy/local/profdiff-local with real processes: start (free ports), upload
# two runs with profdiff-agent, read them back and diff them through the differ, stop (both
# processes gone, runs kept), start again (the runs are still served), stop.
# Usage: local_launcher_test.sh --agent BIN --aggregator BIN --differ BIN --cli BIN [--launcher F]
# Real traces from $PROFDIFF_TRACES (default ../shared/traces); without them: SKIPPED, exit 77.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
launcher="$repo/deploy/local/profdiff-local"
agent="" aggregator="" differ="" cli=""
readonly skipped_status=77
readonly upload_timeout=60s  # a span is a few thousand events; minutes would hide a hang

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

while [ $# -gt 0 ]; do
  case "$1" in
    --agent) agent="$2"; shift 2 ;;
    --aggregator) aggregator="$2"; shift 2 ;;
    --differ) differ="$2"; shift 2 ;;
    --cli) cli="$2"; shift 2 ;;
    --launcher) launcher="$2"; shift 2 ;;
    *) fail "unknown argument '$1' (usage: see the head of $0)" ;;
  esac
done
for binary in "$agent" "$aggregator" "$differ" "$cli" "$launcher"; do
  [ -n "$binary" ] || fail "pass --agent, --aggregator, --differ and --cli"
  [ -x "$binary" ] || fail "$binary: no such executable"
done
# Absolute: the test runs in a temporary folder.
agent="$(realpath "$agent")" aggregator="$(realpath "$aggregator")" differ="$(realpath "$differ")"
cli="$(realpath "$cli")" launcher="$(realpath "$launcher")"

# Two runs of the same transformer script in two containers, two spans (files) each.
traces="${PROFDIFF_TRACES:-$repo/../shared/traces}"
run_dir="$traces/torch_profiling_tutorial/log/transformer"
base_files=("$run_dir"/dcb0aa1a78e7_4399.*.pt.trace.json.gz)
exp_files=("$run_dir"/dc3b0e7228dd_851.*.pt.trace.json.gz)
if [ ! -f "${base_files[0]}" ] || [ ! -f "${exp_files[0]}" ]; then
  echo "SKIPPED: no transformer traces in $run_dir (set PROFDIFF_TRACES)"
  exit "$skipped_status"
fi

work="$(mktemp -d)"
data="$work/data"
started_pids=()
cleanup() {
  if [ -f "$data/aggregator.pid" ] || [ -f "$data/differ.pid" ]; then
    "$launcher" stop --data-dir "$data" --timeout 5 >/dev/null 2>&1 || true
  fi
  # Whatever a failing launcher left running of what this test started.
  local pid
  for pid in "${started_pids[@]}"; do
    gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT  # gone() is defined below, before any pid is recorded
# Run ids are also paths to the CLI when such a folder exists: work where none does.
cd "$work"

export PROFDIFF_AGGREGATOR_BIN="$aggregator" PROFDIFF_DIFFER_BIN="$differ"
unset PROFDIFF_BIN_DIR PROFDIFF_SERVER

show_logs() {
  local log
  for log in "$data"/logs/*.log; do
    [ -f "$log" ] || continue
    echo "--- $log (last 20 lines):" >&2
    tail -n 20 "$log" >&2
  done
}

# True once pid no longer runs (a zombie waiting for its reaper counts as gone).
gone() {
  local stat
  kill -0 "$1" 2>/dev/null || return 0
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  stat="${stat##*) }"
  [ "${stat%% *}" = "Z" ]
}

# Starts both servers; sets aggregator_address, differ_address, web_url, aggregator_pid,
# differ_pid.
start_servers() {
  local out status
  out="$("$launcher" start --data-dir "$data" --aggregator-port 0 --differ-port 0 --web-port 0)" ||
    { status=$?; show_logs; fail "profdiff-local start exited $status"; }
  echo "$out"
  [ -f "$data/profdiff-local.env" ] || fail "start wrote no $data/profdiff-local.env"
  # The README's quick start: `source` the file, then the CLI (a child process) sees the ports.
  local seen
  seen="$(env -u PROFDIFF_SERVER -u PROFDIFF_AGGREGATOR bash -c \
    'source "$1" && bash -c "echo \$PROFDIFF_AGGREGATOR \$PROFDIFF_SERVER"' _ "$data/profdiff-local.env")"
  aggregator_address="${seen%% *}"
  differ_address="${seen##* }"
  [ "$(tail -c 1 "$data/profdiff-local.env" | od -An -c | tr -d ' ')" = '\n' ] ||
    fail "profdiff-local.env does not end with a newline"
  [[ "$aggregator_address" =~ ^127\.0\.0\.1:[1-9][0-9]*$ ]] ||
    fail "profdiff-local.env: PROFDIFF_AGGREGATOR='$aggregator_address', expected 127.0.0.1:PORT"
  [[ "$differ_address" =~ ^127\.0\.0\.1:[1-9][0-9]*$ ]] ||
    fail "profdiff-local.env: PROFDIFF_SERVER='$differ_address', expected 127.0.0.1:PORT"
  grep -qx "export PROFDIFF_SERVER=$differ_address" <<<"$out" ||
    fail "start did not print 'export PROFDIFF_SERVER=$differ_address'"
  grep -q "^aggregator $aggregator_address " <<<"$out" ||
    fail "start did not print 'aggregator $aggregator_address'"
  # The web UI's URL: printed, and in the env file.
  web_url="$(env -u PROFDIFF_WEB_URL bash -c 'source "$1" && echo "$PROFDIFF_WEB_URL"' _ \
    "$data/profdiff-local.env")"
  [[ "$web_url" =~ ^http://127\.0\.0\.1:[1-9][0-9]*/$ ]] ||
    fail "profdiff-local.env: PROFDIFF_WEB_URL='$web_url', expected http://127.0.0.1:PORT/"
  grep -q "^web UI     $web_url " <<<"$out" || fail "start did not print 'web UI     $web_url'"
  aggregator_pid="$(<"$data/aggregator.pid")"
  differ_pid="$(<"$data/differ.pid")"
  started_pids+=("$aggregator_pid" "$differ_pid")
  ! gone "$aggregator_pid" || { show_logs; fail "aggregator (pid $aggregator_pid) not running"; }
  ! gone "$differ_pid" || { show_logs; fail "differ (pid $differ_pid) not running"; }
  "$launcher" status --data-dir "$data" >/dev/null || fail "status after start exited $?, expected 0"
}

# Stops both; checks both processes are gone and the runs stayed in the data dir.
stop_servers() {
  local out status=0
  out="$("$launcher" stop --data-dir "$data")" || fail "profdiff-local stop exited $?"
  echo "$out"
  grep -qx "differ: stopped (pid $differ_pid)" <<<"$out" ||
    fail "stop did not stop the differ with SIGTERM: $out"
  grep -qx "aggregator: stopped (pid $aggregator_pid)" <<<"$out" ||
    fail "stop did not stop the aggregator with SIGTERM: $out"
  gone "$differ_pid" || fail "differ (pid $differ_pid) still runs after stop"
  gone "$aggregator_pid" || fail "aggregator (pid $aggregator_pid) still runs after stop"
  if [ -e "$data/aggregator.pid" ] || [ -e "$data/differ.pid" ]; then
    fail "stop left pid files in $data"
  fi
  "$launcher" status --data-dir "$data" >/dev/null || status=$?
  [ "$status" -eq 3 ] || fail "status after stop exited $status, expected 3 (not running)"
  local run
  for run in base exp; do
    [ -d "$data/store/runs/$run" ] || fail "stop lost run $run: no $data/store/runs/$run"
  done
}

# Both runs listed as complete, one worker each: `runs` with the arguments given.
check_runs() {
  local out run status
  out="$("$cli" runs --format csv "$@")" ||
    { status=$?; show_logs; fail "profdiff runs $* exited $status"; }
  for run in base exp; do
    grep -q "^$run,complete,1/1," <<<"$out" ||
      { show_logs; fail "profdiff runs $* does not list $run as complete with 1/1 workers: $out"; }
  done
}

echo "== start"
start_servers
second_status=0
second="$("$launcher" start --data-dir "$data" --aggregator-port 0 --differ-port 0 --web-port 0 2>&1)" ||
  second_status=$?
if [ "$second_status" -eq 0 ] || ! grep -q "already runs" <<<"$second"; then
  fail "a second start on the same data dir did not refuse (status $second_status): $second"
fi

echo "== upload base and exp to $aggregator_address"
"$agent" upload --aggregator "$aggregator_address" --run base --timeout "$upload_timeout" \
  "${base_files[@]}" || { status=$?; show_logs; fail "upload of base exited $status"; }
"$agent" upload --aggregator "$aggregator_address" --run exp --timeout "$upload_timeout" \
  "${exp_files[@]}" || { status=$?; show_logs; fail "upload of exp exited $status"; }

echo "== runs and diff through the differ at $differ_address"
check_runs --server "$differ_address"
"$cli" diff base exp --server "$differ_address" --format json >"$work/diff.json" ||
  { status=$?; show_logs; fail "profdiff diff base exp --server $differ_address exited $status"; }
python3 - "$work/diff.json" <<'EOF' || fail "profdiff diff base exp: unexpected JSON (above)"
import json, sys
report = json.load(open(sys.argv[1]))
sides = (report.get("baseline", {}).get("run"), report.get("experimental", {}).get("run"))
if sides != ("base", "exp"):
    sys.exit(f"baseline/experimental runs are {sides}, expected ('base', 'exp')")
EOF

echo "== the web UI at $web_url lists both runs and diffs them"
python3 - "$web_url" <<'EOF' || { show_logs; fail "the web UI did not serve the runs (above)"; }
import sys, urllib.request
url = sys.argv[1]
runs = urllib.request.urlopen(url, timeout=60).read().decode()
for run in ("base", "exp"):
    if f'data-run="{run}"' not in runs:
        sys.exit(f"{url}: run {run} is not listed")
diff = urllib.request.urlopen(url + "diff?baseline=base&experimental=exp", timeout=120)
page = diff.read().decode()
if diff.status != 200 or 'id="profdiff-data"' not in page:
    sys.exit(f"{url}diff: status {diff.status}, no report in the page")
EOF

echo "== stop"
stop_servers

echo "== start again: the runs are still served"
start_servers
PROFDIFF_SERVER="$differ_address" check_runs
stop_servers

echo "PASS: profdiff-local start/upload/runs/diff/stop/restart"
