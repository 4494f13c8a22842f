#!/usr/bin/env bash
# ctest html_report.browser: makes HTML reports from real trace pairs with the built `profdiff`
# and drives Debian's chromium over them (report_browser_test.mjs). Exit 77 = skipped, with why.
#   browser_test.sh PROFDIFF_BIN NODE_MODULES_DIR OUT_DIR
set -euo pipefail
profdiff="$1" node_modules="$2" out="$3"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/browser_prerequisites.sh"

# The interactive pair: one model on two GPUs (module tree, CUDA against ROCm). The large pair:
# the two largest traces that share a model (xDiT Flux, ~900 aligned modules, 20k+ table rows).
# The DDP run: 8-rank DLRM, against itself (both sides have a straggler to mark; its collectives
# fill the communication section).
interactive_a="$traces/tracelens/h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz"
interactive_b="$traces/tracelens/mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz"
large_a="$traces/tracelens/inference/xdit_flux_aiter/profile_trace_rank_0.json.gz"
large_b="$traces/tracelens/inference/xdit_flux_aiter_sage/profile_trace_rank_0.json.gz"
ranks_run="$traces/param/dlrm_kineto"
# The backward pair: a training step with fwdbwd flows (ResNet18 on an MI300), against itself, so
# every backward block has a partner.
backward_run="$traces/tracelens/mi300/ddp_resnet18_no_pool/train_resnet18.json.gz"
# The memory pair: the TensorBoard plugin's ResNet50 samples (DataLoader workers 0 against 4),
# whose [memory] events cover the CPU and cuda:0 over two profiling windows of 6 steps.
memory_a="$traces/kineto/tb_plugin_samples/resnet50_num_workers_0"
memory_b="$traces/kineto/tb_plugin_samples/resnet50_num_workers_4"
# The story pair (issue 43): one Transformer on an H200, fp32 against bf16 autocast: kernel time
# fell 4x and the step got longer, because the run became host-bound.
h200_a="$traces/profdiff_h200/transformer-fp32.pt.trace.json.gz"
h200_b="$traces/profdiff_h200/transformer-bf16.pt.trace.json.gz"
for f in "$interactive_a" "$interactive_b" "$large_a" "$large_b" "$ranks_run" "$backward_run" \
  "$memory_a" "$memory_b" "$h200_a" "$h200_b"; do
  [ -e "$f" ] || skip "missing trace $f"
done

mkdir -p "$out"
"$profdiff" diff "$interactive_a" "$interactive_b" --format html -o "$out/interactive.html"
"$profdiff" diff "$large_a" "$large_b" --format html -o "$out/large.html"
"$profdiff" diff "$ranks_run" "$ranks_run" --format html -o "$out/ranks.html"
"$profdiff" diff "$backward_run" "$backward_run" --format html -o "$out/backward.html"
"$profdiff" diff "$memory_a" "$memory_b" --format html -o "$out/memory.html"
"$profdiff" diff "$h200_a" "$h200_b" --format html -o "$out/h200.html"
# One baseline, two runs (issue 48): a tab per run over each pair's report.
"$profdiff" diff "$h200_a" "$h200_b" "$h200_a" --format html -o "$out/several.html"

# The gloo pair: the ddp-bucket workload (2 ranks, 3 steps a side) trained here with Debian's CPU
# torch, so its diff has collectives of two message-size mixes and an all_reduce finding whose
# evidence is a communication row. Without torch that part is skipped; the DLRM run still covers
# the communication section.
gloo=()
train="$here/../../examples/workloads/train.py"
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  rm -rf "$out/gloo" "$out/gloo.html"
  trained=1
  for variant in baseline experimental; do
    # train.py has tests of its own (workload.*): a run that fails here skips this part.
    /usr/bin/python3 "$train" --scenario ddp-bucket --variant "$variant" --ranks 2 --steps 3 \
      --out "$out/gloo" --run "$variant" >"$out/gloo-$variant.log" 2>&1 || {
      tail -5 "$out/gloo-$variant.log"
      echo "SKIPPED part: train.py --scenario ddp-bucket --variant $variant failed (above)"
      trained=0
      break
    }
  done
  if [ "$trained" = 1 ]; then
    "$profdiff" diff "$out/gloo/baseline" "$out/gloo/experimental" --format html -o "$out/gloo.html"
    gloo=(--gloo "$out/gloo.html")
  fi
else
  echo "SKIPPED part: /usr/bin/python3 has no torch, so no gloo pair is trained (the DLRM run still checks the communication section)"
fi

# A thousand ranks (issue 32): the DLRM run's 8 ranks made into 1,024 (bench/make_rank_run.py),
# against the same with rank 700 arriving last at every collective: the per-rank charts must stay
# readable at that size.
thousand="$out/thousand"
rm -rf "$thousand"
python3 "$here/../../bench/make_rank_run.py" "$ranks_run" 1024 "$thousand/baseline" >/dev/null
python3 "$here/../../bench/make_rank_run.py" "$ranks_run" 1024 "$thousand/experimental" \
  --straggler 700 >/dev/null
"$profdiff" diff "$thousand/baseline" "$thousand/experimental" --format html -o "$out/thousand.html"
rm -rf "$thousand"

# Self-contained: no reference to anything on a network.
for f in "$out"/*.html; do
  refs="$(grep -c -E "https?://" "$f" || true)"
  if [ "$refs" != 0 ]; then
    grep -o -E "https?://[^\"' )]{0,60}" "$f" | sort -u | sed -n 1,5p || true
    echo "FAIL: $f refers to the network on $refs lines (above)"
    exit 1
  fi
done
echo "PASS no http:// or https:// reference in $(ls "$out"/*.html | wc -l) reports"

PROFDIFF_NODE_MODULES="$node_modules" node "$here/report_browser_test.mjs" \
  --interactive "$out/interactive.html" --large "$out/large.html" --ranks "$out/ranks.html" \
  --backward "$out/backward.html" --memory "$out/memory.html" --thousand "$out/thousand.html" \
  --h200 "$out/h200.html" --several "$out/several.html" \
  "${gloo[@]}" \
  --out "$out/screenshots"
