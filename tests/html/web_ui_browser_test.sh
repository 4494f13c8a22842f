#!/usr/bin/env bash
# ctest web_ui.browser (issue 49): the differ's web UI in Debian's chromium. Starts a real
# profdiff-aggregator holding real runs, and two profdiff-differ in front of it: one open on
# loopback, one with TLS and a token; then web_ui_browser_test.mjs uses them as a user would.
# Exit 77 = skipped, with why.
#   web_ui_browser_test.sh BUILD_DIR NODE_MODULES_DIR OUT_DIR
set -euo pipefail
build="$1" node_modules="$2" out="$3"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/browser_prerequisites.sh"

# The runs: the H200 pair (fp32 against bf16), one model on an H100 and an MI300 (a module tree
# to zoom into), and one rank of the 8-rank DLRM run (OPEN: 1 of 8 workers stored).
fp32="$traces/profdiff_h200/transformer-fp32.pt.trace.json.gz"
bf16="$traces/profdiff_h200/transformer-bf16.pt.trace.json.gz"
h100="$traces/tracelens/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz"
mi300="$traces/tracelens/mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz"
dlrm_rank="$(ls "$traces"/param/dlrm_kineto/* 2>/dev/null | sort | head -1)"
for f in "$fp32" "$bf16" "$h100" "$mi300" "$dlrm_rank"; do
  [ -n "$f" ] && [ -e "$f" ] || skip "missing trace ${f:-param/dlrm_kineto/*}"
done

work="$out/work"
rm -rf "$work"
mkdir -p "$work" "$out/screenshots"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

wait_file() {  # file, pid, log
  for _ in $(seq 1 300); do
    [ -s "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || { tail -20 "$3"; echo "FAIL: a server exited (log above)"; exit 1; }
    sleep 0.1
  done
  tail -20 "$3"
  echo "FAIL: no $1 after 30 s"
  exit 1
}

"$build/aggregator/profdiff-aggregator" --listen 127.0.0.1:0 --data-dir "$work/store" \
  --port-file "$work/aggregator.port" >"$work/aggregator.log" 2>&1 &
pids+=($!)
wait_file "$work/aggregator.port" "${pids[-1]}" "$work/aggregator.log"
aggregator="127.0.0.1:$(<"$work/aggregator.port")"

upload() {  # run, files...
  local run="$1"
  shift
  "$build/agent/profdiff-agent" upload --aggregator "$aggregator" --run "$run" \
    --state-dir "$work/agent-$run" "$@" >>"$work/upload.log" 2>&1 ||
    { tail -5 "$work/upload.log"; echo "FAIL: upload of $run"; exit 1; }
}
upload transformer-fp32 "$fp32"
upload transformer-bf16 "$bf16"
upload timesformer-h100 "$h100"
upload timesformer-mi300 "$mi300"
upload dlrm-partial "$dlrm_rank"

# The open differ: plain HTTP on loopback, no token.
"$build/differ/profdiff-differ" --listen 127.0.0.1:0 --store "$aggregator" \
  --http 127.0.0.1:0 --http-port-file "$work/open.http" >"$work/open.log" 2>&1 &
pids+=($!)
wait_file "$work/open.http" "${pids[-1]}" "$work/open.log"
# The guarded differ: TLS (the test CA's certificate) and a token, as a shared node runs it.
token="token-$RANDOM$RANDOM$RANDOM"
(umask 077 && printf '%s\n' "$token" >"$work/token")
tls="$here/../data/tls"
"$build/differ/profdiff-differ" --listen 127.0.0.1:0 --store "$aggregator" \
  --tls-cert-file "$tls/server.pem" --tls-key-file "$tls/server.key" \
  --auth-token-file "$work/token" \
  --http 127.0.0.1:0 --http-port-file "$work/guarded.http" >"$work/guarded.log" 2>&1 &
pids+=($!)
wait_file "$work/guarded.http" "${pids[-1]}" "$work/guarded.log"

PROFDIFF_NODE_MODULES="$node_modules" node "$here/web_ui_browser_test.mjs" \
  --open "http://127.0.0.1:$(<"$work/open.http")/" \
  --guarded "https://127.0.0.1:$(<"$work/guarded.http")/" --token "$token" \
  --out "$out/screenshots"
