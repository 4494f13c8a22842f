#!/usr/bin/env bash
# ctest cli.exit_codes: `profdiff` exits 0 on success, 2 for a bad command line (the command's
# usage follows, as lines, when the command line itself is malformed) and for a server it cannot
# reach, 1 for everything else (README "Exit codes").
#   exit_codes_test.sh PROFDIFF_BIN WORK_DIR
set -uo pipefail
profdiff="$1" work="$2"
rm -rf "$work" && mkdir -p "$work"
failures=0
# expect CODE DESCRIPTION ARGS...: runs profdiff, checks the exit code; stderr is kept in $work/err.
expect() {
  local want="$1" what="$2"
  shift 2
  "$profdiff" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" = "$want" ]; then
    echo "ok   $what: exit $got"
  else
    echo "FAIL $what: exit $got, expected $want ($(head -c 300 "$work/err"))"
    failures=$((failures + 1))
  fi
}
stdout_has() {
  if grep -q -- "$1" "$work/out"; then echo "ok   stdout has '$1'"; else
    echo "FAIL stdout lacks '$1': $(head -c 300 "$work/out")"
    failures=$((failures + 1))
  fi
}
stderr_has() {
  if grep -q -- "$1" "$work/err"; then echo "ok   stderr has '$1'"; else
    echo "FAIL stderr lacks '$1': $(head -c 300 "$work/err")"
    failures=$((failures + 1))
  fi
}

cat >"$work/a.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 50}]}
JSON
echo '{"traceEvents": []}' >"$work/empty.json"
head -c 60 "$work/a.json" >"$work/cut.json"

expect 0 "--version" --version
expect 0 "--help" --help
expect 0 "diff --help" diff --help
# Every view (issue 45: memory was missing).
stdout_has "view findings|overview|modules|operators|kernels|comm|memory|ranks|all"
expect 0 "a diff" diff "$work/a.json" "$work/a.json"
expect 2 "no command" ""
expect 2 "an unknown command" frobnicate
expect 2 "diff with one path" diff "$work/a.json"
stderr_has "^profdiff: error: diff: expected BASELINE and EXPERIMENTAL, got 1 paths$"
stderr_has "^usage: profdiff diff BASELINE EXPERIMENTAL"
stderr_has "^  --view findings"
# The CI gate (issue 48): 3 when a significant change crosses a condition, 0 when none does, 2
# for a malformed condition (before any trace is read).
expect 0 "a gate nothing crosses" diff "$work/a.json" "$work/a.json" --fail-on "step_time>5%"
expect 2 "a gate with an unknown metric" diff "$work/a.json" "$work/a.json" --fail-on "step_tme>5%"
stderr_has '^profdiff: error: --fail-on step_tme>5%: unknown metric "step_tme"; known: '
expect 2 "a gate with a unit that does not fit" diff "$work/a.json" "$work/a.json" \
  --fail-on "memory.peak>5ms"
stderr_has '^profdiff: error: --fail-on memory.peak>5ms: "ms" does not measure memory.peak$'
expect 2 "a gate with no threshold" diff "$work/a.json" "$work/a.json" --fail-on "step_time>"
stderr_has "expected METRIC OP THRESHOLD"
h200="${PROFDIFF_TRACES:-}/profdiff_h200"
if [ -f "$h200/transformer-fp32.pt.trace.json.gz" ]; then
  expect 3 "the H200 pair crosses step_time>5%" diff "$h200/transformer-fp32.pt.trace.json.gz" \
    "$h200/transformer-bf16.pt.trace.json.gz" --view overview --fail-on "step_time>5%"
  stderr_has "^profdiff: --fail-on: the gate failed: step_time>5% (Average step time +24.6%"
  if grep -q "  FAILED  step_time>5%" "$work/out" && tail -3 "$work/out" | grep -q "Average step"; then
    echo "ok   the report, then the failed condition last"
  else
    echo "FAIL the gate is not printed last: $(tail -5 "$work/out")"
    failures=$((failures + 1))
  fi
  expect 0 "the H200 trace against itself passes" diff "$h200/transformer-fp32.pt.trace.json.gz" \
    "$h200/transformer-fp32.pt.trace.json.gz" --view overview --fail-on "step_time>5%,memory.peak>+512MiB"
else
  echo "SKIPPED part: no $h200 (PROFDIFF_TRACES): the gate's exit 3 on the H200 pair"
fi
expect 2 "an unknown option" diff "$work/a.json" "$work/a.json" --bogus
stderr_has "^usage: profdiff diff"
expect 2 "a bad option value" diff "$work/a.json" "$work/a.json" --top x
stderr_has "^profdiff: error: --top x: expected a number >= 0$"
expect 2 "a sort column the differ does not know" diff "$work/a.json" "$work/a.json" --sort speed
expect 2 "show without a path" show
expect 2 "show with a bad view" show "$work/a.json" --view everything
expect 1 "a missing file" show "$work/missing.json"
expect 1 "a trace without events" show "$work/empty.json"
stderr_has "no events"
expect 1 "a cut trace" diff "$work/a.json" "$work/cut.json"
expect 2 "an unreachable server" runs --server 127.0.0.1:1
stderr_has "127.0.0.1:1"
# A mistyped path that could be a run id (issue 45): the missing path first, and no server named
# is said as such, not as a refused connection to localhost.
(
  unset PROFDIFF_SERVER
  cd "$work"
  expect 1 "a missing path, no server named" diff transformer-fp33 a.json
  stderr_has "^profdiff: error: transformer-fp33: no such file or folder, and no run of that name (no server: set PROFDIFF_SERVER or --server)$"
  expect 1 "show of a missing path, no server named" show transformer-fp33
  stderr_has "transformer-fp33: no such file or folder, and no run of that name (no server"
  expect 2 "a missing path, the named server unreachable" show transformer-fp33 --server 127.0.0.1:1
  stderr_has "transformer-fp33: no such file or folder, and server 127.0.0.1:1 could not be asked"
  [ "$failures" = 0 ]
) || failures=$((failures + 1))
# capture: the command line is checked before any server is asked.
expect 2 "capture without a job" capture --steps 3 --server 127.0.0.1:1
stderr_has "capture: give --job JOB or --all"
expect 2 "capture by steps and by time" capture --job j --steps 3 --duration 2s --server 127.0.0.1:1
stderr_has "give --steps N or --duration D, not both"
expect 2 "capture of zero steps" capture --job j --steps 0 --server 127.0.0.1:1
stderr_has "^profdiff: error: --steps 0: expected an integer >= 1$"
expect 2 "capture --wait with a job" capture --wait c --job j --server 127.0.0.1:1
expect 2 "capture --cancel with steps" capture --cancel c --steps 3 --server 127.0.0.1:1
stderr_has "capture --cancel CAPTURE takes no --steps"
expect 2 "capture with an unreachable server" capture --job j --server 127.0.0.1:1
stderr_has "127.0.0.1:1"
expect 2 "agents with an unreachable server" agents --server 127.0.0.1:1

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
echo "all exit codes as documented"
