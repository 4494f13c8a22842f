"""Independent check of README.md "Memory" on real traces in ../shared/traces.

Recomputes from the raw JSON, with the standard library, the TensorBoard plugin's memory table
(kineto tb_plugin memory_parser.py): each "[memory]" event belongs to the innermost cpu_op /
Operator event on its thread whose [start, end) holds it, unless that is not an operator row
(ProfilerStep#, Optimizer.*, (Distributed)DataParallel.forward); per operator name and device,
the self allocation count, self allocation bytes and self increase over the kept steps (their
windows as `profdiff show` reports them). Also the peak allocated per device: the highest
"Total Allocated" at an event in the kept steps, or without it the running sum of "Bytes".
Compares them with `profdiff show --format json --view memory`.
Exit 77 = skipped. Usage: memory_reference_test.py PROFDIFF_BINARY TRACES_DIR
"""
import collections
import decimal
import gzip
import json
import os
import subprocess
import sys

TRACES = [
    "kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz",
    # With "Total Allocated" and "Addr" (Kineto 2023+).
    "tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
]


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
    peaks, running = {}, collections.defaultdict(int)
    for e in sorted(memory, key=lambda e: ns(e["ts"])):
        device = device_name(e["args"])
        running[device] += e["args"].get("Bytes", 0)
        total = e["args"].get("Total Allocated", running[device])
        if inside(ns(e["ts"])):
            peaks[device] = max(peaks.get(device, total), total)
    return rows, peaks


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, traces = sys.argv[1], sys.argv[2]
    failures = 0
    checked = 0
    for relative in TRACES:
        path = os.path.join(traces, relative)
        if not os.path.exists(path):
            print(f"[memory_reference] SKIPPED {relative}: not in {traces}")
            continue
        checked += 1
        shown = json.loads(subprocess.run([binary, "show", path, "--format", "json", "--view", "memory"],
                                          check=True, capture_output=True, text=True).stdout)
        worker = shown["workers"][0]
        windows = [(ns(s["start_us"]), ns(s["start_us"]) + ns(s["duration_us"])) for s in worker["steps"]]
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            events = json.load(f)["traceEvents"]
        rows, peaks = reference(events, windows)
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
        if our_peaks != peaks:
            print(f"[memory_reference] FAIL {relative}: peaks reference {peaks} profdiff {our_peaks}")
            failures += 1
        print(f"[memory_reference] {'ok  ' if not bad and our_peaks == peaks else 'FAIL'} {relative}: "
              f"{len(expected)} operator rows, {sum(v[0] for v in expected.values())} allocations, "
              f"peaks {peaks}")
    if checked == 0:
        print("[memory_reference] SKIPPED: none of the traces is present")
        return 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
