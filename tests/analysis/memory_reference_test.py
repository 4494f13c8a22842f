"""Independent check of README.md "Memory" on real traces in ../shared/traces.

Recomputes from the raw JSON, with the standard library, the TensorBoard plugin's memory table
(kineto tb_plugin memory_parser.py): each "[memory]" event belongs to the innermost cpu_op /
Operator event on its thread whose [start, end) holds it, unless that is not an operator row
(ProfilerStep#, Optimizer.*, (Distributed)DataParallel.forward); per operator name and device,
the self allocation count, self allocation bytes and self increase over the kept steps. The
allocator records its events on the host, so a step is its host ProfilerStep#N range [ts, ts+dur)
from the raw JSON, for each N `profdiff show` kept (issue 44: not the device-extended window of
docs/semantics.md §2). Also the peak allocated per device: the highest "Total Allocated" at an
event in the kept steps, or without it the running sum of "Bytes".
Compares them with `profdiff show --format json --view memory`.

With --h200 it checks issue 44's figures instead: on the H200 Transformer (fp32), the CUDA
allocation bytes per step of aten::mm, aten::addmm, aten::sum and aten::empty and the count of
CUDA "[memory]" events in the steps, against `show`; and the bf16 run's aten::mm change against
`profdiff diff --view memory --format json`.
Exit 77 = skipped. Usage: memory_reference_test.py PROFDIFF_BINARY TRACES_DIR [--h200]
"""
import collections
import decimal
import gzip
import json
import os
import re
import subprocess
import sys

TRACES = [
    "kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz",
    # With "Total Allocated" and "Addr" (Kineto 2023+).
    "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    # GPU-bound: each step's device window starts ~17 ms after its host range (issue 44).
    "profdiff_h200/transformer-fp32.pt.trace.json.gz",
]
H200_FP32 = "profdiff_h200/transformer-fp32.pt.trace.json.gz"
H200_BF16 = "profdiff_h200/transformer-bf16.pt.trace.json.gz"
# Issue 44's truth, CUDA allocation MiB per step (one decimal), recomputed below from the JSON.
H200_MIB_PER_STEP = {"aten::mm": 723.4, "aten::addmm": 634.0, "aten::sum": 1285.9,
                     "aten::empty": 2596.6}
H200_CUDA_EVENTS = 3710
H200_MM_CHANGE_PCT = -49.8  # bf16 against fp32, aten::mm allocation bytes per step
STEP_RE = re.compile(r"ProfilerStep#(\d+)$")


def ns(value):
    return int((decimal.Decimal(str(value)) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def device_name(args):
    kind, index = args.get("Device Type", 0), args.get("Device Id", 0)
    return "cpu" if kind == 0 else f"cuda:{index}" if kind == 1 else f"device{kind}:{index}"


def thread_of(event):
    # 2021 traces write an operator's tid as "25738" and a memory event's as 25738: one thread.
    return str(event.get("pid")), str(event.get("tid"))


def is_row(name):
    return not (name.startswith(("ProfilerStep#", "Optimizer.")) or
                name in ("DistributedDataParallel.forward", "DataParallel.forward"))


def host_windows(events, kept):
    """[start, end) of the host ProfilerStep#N range of each N in `kept` (the first by start)."""
    ranges = {}
    for e in sorted((e for e in events if e.get("ph") == "X" and STEP_RE.match(str(e.get("name")))),
                    key=lambda e: ns(e["ts"])):
        number = int(STEP_RE.match(e["name"]).group(1))
        if number in kept and number not in ranges:
            ranges[number] = (ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)))
    return [ranges[n] for n in sorted(ranges)]


def load_events(path):
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        return json.load(f)["traceEvents"]


def run_json(binary, *args):
    return json.loads(subprocess.run([binary, *args, "--format", "json", "--view", "memory"],
                                     check=True, capture_output=True, text=True).stdout)


def reference(events, windows):
    ops = collections.defaultdict(list)
    memory = []
    for e in events:
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() in ("cpu_op", "operator") \
                and not e["name"].startswith("ProfilerStep#"):
            start = ns(e["ts"])
            ops[thread_of(e)].append((start, -(start + ns(e.get("dur", 0))), e["name"]))
        elif e.get("name") == "[memory]":
            memory.append(e)
    for v in ops.values():
        v.sort()

    def inside(t):
        return any(s <= t < end for s, end in windows)

    rows = collections.defaultdict(lambda: [0, 0, 0])
    by_thread = collections.defaultdict(list)
    for e in memory:
        by_thread[thread_of(e)].append(e)
    for thread, records in by_thread.items():
        records.sort(key=lambda e: ns(e["ts"]))
        stack, k, nodes = [], 0, ops.get(thread, [])
        for e in records:
            t = ns(e["ts"])
            while k < len(nodes) and nodes[k][0] <= t:
                start, neg_end, name = nodes[k]
                while stack and stack[-1][1] <= start:
                    stack.pop()
                stack.append((start, -neg_end, name))
                k += 1
            while stack and stack[-1][1] <= t:
                stack.pop()
            if not stack or not inside(t) or not is_row(stack[-1][2]):
                continue
            size = e["args"].get("Bytes", 0)
            row = rows[(stack[-1][2], device_name(e["args"]))]
            row[0] += 1 if size > 0 else 0
            row[1] += max(size, 0)
            row[2] += size
    peaks, counts, running = {}, collections.Counter(), collections.defaultdict(int)
    for e in sorted(memory, key=lambda e: ns(e["ts"])):
        device = device_name(e["args"])
        running[device] += e["args"].get("Bytes", 0)
        total = e["args"].get("Total Allocated", running[device])
        if inside(ns(e["ts"])):
            peaks[device] = max(peaks.get(device, total), total)
            counts[device] += 1
    return rows, peaks, dict(counts)


def mib(value):
    return round(value / (1 << 20), 1)


def check_h200(binary, traces):
    """Issue 44's figures: 0 when they hold, else the number of failures; None when skipped."""
    fp32, bf16 = os.path.join(traces, H200_FP32), os.path.join(traces, H200_BF16)
    if not (os.path.exists(fp32) and os.path.exists(bf16)):
        print(f"[memory_reference] SKIPPED: {H200_FP32} or {H200_BF16} not in {traces}")
        return None
    failures = 0

    def expect(what, expected, got):
        nonlocal failures
        ok = expected == got
        failures += not ok
        print(f"[memory_reference] {'ok  ' if ok else 'FAIL'} {what}: expected {expected} got {got}")

    per_step = {}  # side -> {operator: CUDA allocation bytes per step}, from the raw JSON
    for side, path in (("fp32", fp32), ("bf16", bf16)):
        worker = run_json(binary, "show", path)["workers"][0]
        kept = [int(step["step"]) for step in worker["steps"]]
        rows, _, counts = reference(load_events(path), host_windows(load_events(path), kept))
        per_step[side] = {name: v[1] / len(kept) for (name, device), v in rows.items()
                          if device == "cuda:0"}
        if side != "fp32":
            continue
        # The raw JSON gives issue 44's numbers ...
        for name, truth in H200_MIB_PER_STEP.items():
            expect(f"fp32 {name} CUDA MiB per step, issue 44 / raw JSON", truth,
                   mib(per_step[side].get(name, 0)))
        expect("fp32 CUDA [memory] events in the steps, issue 44 / raw JSON", H200_CUDA_EVENTS,
               counts.get("cuda:0", 0))
        # ... and `show` prints them.
        shown = {r["name"]: int(r.get("self_allocation_bytes", 0)) / len(kept)
                 for r in worker.get("operator_memory", []) if r["device"] == "cuda:0"}
        for name in H200_MIB_PER_STEP:
            expect(f"fp32 {name} CUDA MiB per step, raw JSON / show", mib(per_step[side].get(name, 0)),
                   mib(shown.get(name, 0)))
        events = {m["device"]: m.get("event_count", 0) for m in worker.get("memory", [])}
        expect("fp32 CUDA [memory] events in the steps, raw JSON / show", counts.get("cuda:0", 0),
               events.get("cuda:0"))

    a, b = per_step["fp32"]["aten::mm"], per_step["bf16"]["aten::mm"]
    change = round((b - a) / a * 100, 1)
    expect("bf16 aten::mm allocation change %, issue 44 / raw JSON", H200_MM_CHANGE_PCT, change)
    diff = run_json(binary, "diff", fp32, bf16)
    row = next((r for r in diff.get("memory", {}).get("operators", [])
                if r["name"] == "aten::mm" and r["device"] == "cuda:0"), None)
    if row is None:
        expect("bf16 aten::mm row in diff", "present", "absent")
        return failures
    expect("fp32 aten::mm bytes per step, raw JSON / diff baseline", a,
           row["baseline"]["allocation_bytes"])
    expect("bf16 aten::mm bytes per step, raw JSON / diff experimental", b,
           row["experimental"]["allocation_bytes"])
    expect("bf16 aten::mm allocation change %, raw JSON / diff", change,
           round(row["delta_pct"]["allocation_bytes"], 1))
    # Every step allocates the same bytes in both runs: no noise, a real decrease.
    expect("bf16 aten::mm change class, diff", "decreased", row.get("change"))
    return failures


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--h200"]):
        print(__doc__)
        return 2
    binary, traces = sys.argv[1], sys.argv[2]
    if sys.argv[3:] == ["--h200"]:
        failures = check_h200(binary, traces)
        return 77 if failures is None else 1 if failures else 0
    failures = 0
    checked = 0
    for relative in TRACES:
        path = os.path.join(traces, relative)
        if not os.path.exists(path):
            print(f"[memory_reference] SKIPPED {relative}: not in {traces}")
            continue
        checked += 1
        worker = run_json(binary, "show", path)["workers"][0]
        events = load_events(path)
        windows = host_windows(events, [int(step["step"]) for step in worker["steps"]])
        rows, peaks, counts = reference(events, windows)
        ours = {(r["name"], r["device"]): [int(r.get("self_allocation_count", 0)),
                                           int(r.get("self_allocation_bytes", 0)),
                                           int(r.get("self_increase_bytes", 0))]
                for r in worker.get("operator_memory", [])}
        expected = {k: v for k, v in rows.items() if any(v)}
        ours_self = {k: v for k, v in ours.items() if any(v)}
        bad = [(k, expected.get(k), ours_self.get(k)) for k in sorted(set(expected) | set(ours_self))
               if expected.get(k) != ours_self.get(k)]
        for line in bad[:10]:
            print(f"[memory_reference] FAIL {relative}: {line[0]} reference {line[1]} profdiff {line[2]}")
        failures += bool(bad)
        our_peaks = {m["device"]: int(m.get("peak_allocated_bytes", 0)) for m in worker.get("memory", [])}
        our_counts = {m["device"]: int(m.get("event_count", 0)) for m in worker.get("memory", [])}
        if our_peaks != peaks or our_counts != counts:
            print(f"[memory_reference] FAIL {relative}: peaks reference {peaks} profdiff {our_peaks}, "
                  f"events reference {counts} profdiff {our_counts}")
            failures += 1
        ok = not bad and our_peaks == peaks and our_counts == counts
        print(f"[memory_reference] {'ok  ' if ok else 'FAIL'} {relative}: "
              f"{len(expected)} operator rows, {sum(v[0] for v in expected.values())} allocations, "
              f"peaks {peaks}, events {counts}")
    if checked == 0:
        print("[memory_reference] SKIPPED: none of the traces is present")
        return 77
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
