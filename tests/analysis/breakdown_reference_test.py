"""Independent check of docs/semantics.md §2-§3 on the TensorBoard plugin's ResNet50 samples.

Recomputes each step (device extension, trailing-step trimming) and its breakdown (Kernel, Memcpy,
Memset, Communication, Runtime, DataLoader, CPU Exec, Other) straight from the raw JSON with the
standard library, then compares with `profdiff show --format json`. Exit 77 = skipped.
Usage: breakdown_reference_test.py PROFDIFF_BINARY TRACES_DIR
"""
import decimal
import gzip
import json
import os
import subprocess
import sys

C10D_COLLECTIVES = {"c10d::" + n for n in (
    "allreduce_", "allreduce_coalesced_", "broadcast_", "allgather_", "allgather_coalesced_",
    "allgather_into_tensor_coalesced_", "_allgather_base_", "reduce_", "reduce_scatter_",
    "_reduce_scatter_base_", "reduce_scatter_tensor_coalesced_", "alltoall_", "alltoall_base_",
    "gather_", "scatter_", "send", "recv_", "recv_any_source_", "barrier", "monitored_barrier_")}

SAMPLES = [
    "kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
    "kineto/tb_plugin_samples/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz",
    "kineto/tb_plugin_samples_2021/resnet50_num_workers_0/worker0.vd3fb407.pt.trace.json.gz",
    "kineto/tb_plugin_samples_2020/resnet50_num_workers_4/worker0.v7bd25bd.pt.trace.json.gz",
]
ROLES = ["kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec"]


def ns(value):
    return int((decimal.Decimal(value) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def merge(intervals):
    out = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def clip(merged, lo, hi):
    return [[max(s, lo), min(e, hi)] for s, e in merged if min(e, hi) > max(s, lo)]


def length(merged):
    return sum(e - s for s, e in merged)


def reference(path):
    with gzip.open(path, "rb") as f:
        doc = json.loads(f.read(), parse_float=decimal.Decimal)
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    host, runtimes, devices, steps = [], [], [], []
    op_name_by_ext = {}
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = (e.get("cat") or "").lower()
        start = ns(e["ts"])
        end = start + ns(e["dur"])
        args = e.get("args") or {}
        ext = args.get("External id", args.get("external id", 0))
        name = e.get("name", "")
        if cat in ("cpu_op", "operator", "user_annotation"):
            if name.startswith("ProfilerStep#"):
                steps.append([int(name.split("#")[1]), start, end])
            else:
                host.append((name, start, end))
                if cat != "user_annotation" and ext:
                    op_name_by_ext.setdefault(ext, name)
        elif cat in ("cuda_runtime", "runtime", "cuda_driver"):
            runtimes.append((start, end, args.get("correlation"), ext))
        elif cat in ("kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset"):
            devices.append((cat, name, start, end, args.get("correlation")))
    steps.sort(key=lambda s: s[1])
    runtime_by_corr = {r[2]: r for r in runtimes if r[2]}
    count = [0] * len(steps)
    dmax = [None] * len(steps)
    dmin = [None] * len(steps)
    matched = set()
    for i, (cat, name, s, e, corr) in enumerate(devices):
        r = runtime_by_corr.get(corr)
        if r is None:
            continue
        for k, (_, hs, he) in enumerate(steps):
            if r[0] >= hs and r[1] <= he:
                count[k] += 1
                dmax[k] = e if dmax[k] is None else max(dmax[k], e)
                dmin[k] = s if dmin[k] is None else min(dmin[k], s)
                matched.add(i)
                break
    windows = []
    prev = None
    if matched:
        prev = steps[0][1]
        if count[0]:
            for i, d in enumerate(devices):
                if i not in matched and d[3] < dmin[0]:
                    prev = max(prev, d[3])
    for k, (number, hs, he) in enumerate(steps):
        start = max(prev, hs) if prev is not None else hs
        end = max(he, dmax[k]) if count[k] else max(he, start)
        if prev is not None:
            prev = end
        windows.append((number, start, end))
    keep = len(windows)
    if matched and keep > 1:
        while keep > 0 and count[keep - 1] == 0:
            keep -= 1
        if keep > 1 and count[keep - 2] * 0.8 > count[keep - 1]:
            keep -= 1
    windows = windows[:keep]

    def collective(name):
        # docs/semantics.md §3 (profdiff's one deliberate difference from the plugin's name set).
        return (name.startswith("nccl:") or name.startswith("gloo:") or name == "record_param_comms"
                or name in C10D_COLLECTIVES)

    role_intervals = {r: [] for r in ROLES}
    for cat, name, s, e, corr in devices:
        if cat == "kernel":
            r = runtime_by_corr.get(corr)
            launcher = op_name_by_ext.get(r[3], "") if r else ""
            comm = collective(launcher) or "nccl" in name.lower()
            role_intervals["communication" if comm else "kernel"].append((s, e))
        elif cat in ("gpu_memcpy", "memcpy"):
            role_intervals["memcpy"].append((s, e))
        else:
            role_intervals["memset"].append((s, e))
    for s, e, _, _ in runtimes:
        role_intervals["runtime"].append((s, e))
    for name, s, e in host:
        if name.startswith("enumerate(DataLoader)#") or name.startswith("enumerate(DataPipe)#"):
            role_intervals["dataloader"].append((s, e))
        elif collective(name):
            role_intervals["communication"].append((s, e))
        else:
            role_intervals["cpu_exec"].append((s, e))
    merged = {r: merge(v) for r, v in role_intervals.items()}
    result = []
    for number, start, end in windows:
        taken = []
        row = {"step": number, "start_ns": start, "duration_ns": end - start}
        for r in ROLES:
            mine = clip(merged[r], start, end)
            # the time of this role not already taken by a higher one
            union = merge([tuple(x) for x in taken + mine])
            row[r] = length(union) - length(taken)
            taken = union
        row["other"] = (end - start) - length(taken)
        result.append(row)
    return result


def main():
    binary, traces = sys.argv[1], sys.argv[2]
    if not os.path.isdir(traces):
        print(f"SKIPPED: no trace folder at {traces} (set PROFDIFF_TRACES)")
        return 77
    passed = failed = 0
    for rel in SAMPLES:
        path = os.path.join(traces, rel)
        if not os.path.exists(path):
            print(f"SKIPPED: {path} not found")
            return 77
        expected = reference(path)
        out = subprocess.run([binary, "show", path, "--format", "json"], check=True,
                             capture_output=True, text=True).stdout
        worker = json.loads(out)["workers"][0]
        got = worker["steps"]
        problems = []
        if len(got) != len(expected):
            problems.append(f"{len(got)} steps kept, reference {len(expected)}")
        for g, x in zip(got, expected):
            if int(g["step"]) != x["step"]:
                problems.append(f"step {g['step']} vs {x['step']}")
            for field, key in [("start_us", "start_ns"), ("duration_us", "duration_ns")] + \
                              [(f"{r}_us", r) for r in ROLES + ["other"]]:
                if abs(g[field] * 1000 - x[key]) > 1:
                    problems.append(f"step {x['step']} {field}: profdiff {g[field]}, reference {x[key] / 1000}")
        mean = sum(x["duration_ns"] for x in expected) / max(len(expected), 1) / 1000
        if abs(worker["average_step"]["duration_us"] - mean) > 1e-3:
            problems.append(f"average step {worker['average_step']['duration_us']} vs {mean}")
        if problems:
            failed += 1
            print(f"FAIL {rel}:\n  " + "\n  ".join(problems[:10]))
        else:
            passed += 1
            print(f"ok   {rel}: {len(expected)} steps, average {mean:.1f} us")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
