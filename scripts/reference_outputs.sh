#!/usr/bin/env bash
# Writes the reference outputs: 12 commands (JSON, tables, module and all views,
# HTA mode, CSV, shape grouping, HTML, show) on 10 real pairs of
# $PROFDIFF_TRACES, one file each. A change that is meant to keep the output
# (a speed-up, a refactoring) runs it with the binary before and after and
# compares the two folders:
#   scripts/reference_outputs.sh OLD_PROFDIFF /tmp/ref/old
#   scripts/reference_outputs.sh build/client/profdiff /tmp/ref/new
#   diff -r /tmp/ref/old /tmp/ref/new
# A pair whose traces are missing is skipped with a message.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 PROFDIFF OUTDIR" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
traces=$(realpath -m "${PROFDIFF_TRACES:-$root/../shared/traces}")
profdiff=$(realpath "$1")
out=$(realpath -m "$2")
mkdir -p "$out"
# The HTML report is written by a relative name: its log line names it.
cd "$out"
pairs=(
  "torch_profiling_tutorial/log/transformer/dcb0aa1a78e7_4399.1752181589589738346.pt.trace.json.gz torch_profiling_tutorial/log/transformer/dc3b0e7228dd_851.1752215573993169006.pt.trace.json.gz"
  "tracelens/inference/xdit_flux_aiter/profile_trace_rank_0.json.gz tracelens/inference/xdit_flux_aiter_sage/profile_trace_rank_0.json.gz"
  "switchtransformers/history/trace.v0c4a673.json.gz switchtransformers/history/trace.v05c1085.json.gz"
  "param/dlrm_kineto param/dlrm_kineto"
  "hta/nccl_parser_config/nccl_data.json.gz hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
  "profdiff_h200/transformer-fp32.pt.trace.json.gz profdiff_h200/transformer-bf16.pt.trace.json.gz"
  "tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz tracelens/mi300/Falconsai_nsfw_image_detection__1016002.json.gz"
  "tracelens/inference/xdit_flux.1/split_traces/profile_trace_rank_0_annotation_iteration_0_execute_diffusion_1_256x256.json.gz tracelens/inference/xdit_flux.1/split_traces/profile_trace_rank_0_annotation_iteration_1_execute_diffusion_1_256x256.json.gz"
  "tracelens/semantic_purity/deepseek_r1/B300/1782843274.7730265-TP-0-DECODE.trace.json.gz tracelens/semantic_purity/deepseek_r1/MI300/1782841132.2905657-TP-0-DECODE.trace.json.gz"
  "tracelens/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz tracelens/inference/vllm_prefilldecode_piecewise/capture_traces/graph_capture_rank_0.1773709679453551615.pt.trace.json.gz"
)
i=0
for pair in "${pairs[@]}"; do
  read -r first second <<<"$pair"
  a=$traces/$first
  b=$traces/$second
  i=$((i + 1))
  if [[ ! -e $a || ! -e $b ]]; then
    echo "pair $i skipped: $first or $second not in $traces" >&2
    continue
  fi
  # Each command's status is part of its output: an error must stay an error.
  run() {
    local name=$1
    shift
    "$profdiff" "$@" >"$out/$i.$name" 2>&1 || echo "exit $?" >>"$out/$i.$name"
  }
  run json diff "$a" "$b" --format json
  run table diff "$a" "$b"
  run modules diff "$a" "$b" --view modules
  run all diff "$a" "$b" --view all
  run hta.json diff "$a" "$b" --compare hta --format json
  run hta.table diff "$a" "$b" --compare hta
  run operators.csv diff "$a" "$b" --view operators --format csv
  run kernels.csv diff "$a" "$b" --view kernels --format csv
  run shape.json diff "$a" "$b" --group-by shape --kernels-by op --format json
  run html.log diff "$a" "$b" --format html -o "$i.html"
  run show.all show "$a" --view all
  run show.json show "$a" --format json
done
echo "$(find "$out" -type f | wc -l) outputs in $out"
