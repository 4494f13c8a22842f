"""Independent check of docs/semantics.md §6 (HTA TraceDiff.compare_traces) on real trace pairs.

Recomputes the per-name counts and total durations straight from the raw Kineto JSON with the
standard library, then compares with `profdiff diff --compare hta --format json`. Exit 77 = skipped.
Usage: hta_reference_test.py PROFDIFF_BINARY TRACES_DIR
       hta_reference_test.py --reference-only BASELINE EXPERIMENTAL [--steps all] [--device cpu|gpu]
                             [--ranks all]
"""
import decimal
import gzip
import json
import math
import os
import re
import subprocess
import sys

PAIRS = [  # (baseline, experimental, required)
    ("kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
     "kineto/tb_plugin_samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz", True),
    ("kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
     "kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz", True),
    ("torch_profiling_tutorial/log/transformer/dcb0aa1a78e7_4399.1752181589589738346.pt.trace.json.gz",
     "torch_profiling_tutorial/log/transformer/dc3b0e7228dd_851.1752215573993169006.pt.trace.json.gz",
     True),
    ("hta/trace_compare/base", "hta/trace_compare/test", False),  # folders of rank files
    # with_stack traces: the CLI reads them without their Python frames here
    ("profdiff_h200/transformer-fp32.pt.trace.json.gz",
     "profdiff_h200/transformer-bf16.pt.trace.json.gz", True),
]
OPTION_SETS = [[], ["--steps", "all", "--device", "gpu"], ["--steps", "all"]]
DEVICE_CATS = {"kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset"}  # 2020/21 spellings too
EXCLUDED_CATS = {"python_function", "python", "trace", "gpu_user_annotation"}
STEP_RE = re.compile(r"ProfilerStep#(\d+)$")
FIELDS = ["baseline_counts", "baseline_total_duration_us", "experimental_counts",
          "experimental_total_duration_us", "diff_counts", "diff_duration_us"]


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    # Decimal keeps fractional µs exact, so ceil/floor below match HTA's integer rounding.
    doc = json.loads(raw, parse_float=decimal.Decimal)
    if isinstance(doc, list):
        return 0, doc
    return int((doc.get("distributedInfo") or {}).get("rank", 0)), doc.get("traceEvents") or []


def rank_events(events, stats):
    """Events of one rank -> {step: [(name, duration, is_device)]}, each in its step."""
    host, device, steps = [], [], []
    runtime_by_corr = {}
    for e in events:
        if e.get("ph") != "X" or "dur" not in e or not e.get("cat"):
            continue
        cat = str(e["cat"]).lower()
        if cat in EXCLUDED_CATS:
            continue
        ts, dur = decimal.Decimal(str(e["ts"])), decimal.Decimal(str(e["dur"]))
        start, end = math.ceil(ts), math.floor(ts + dur)
        stats["string_times"] += isinstance(e["ts"], str) or isinstance(e["dur"], str)
        name, corr = e.get("name", ""), (e.get("args") or {}).get("correlation")
        if cat in DEVICE_CATS:
            device.append((name, start, end, corr))
            continue
        host.append((name, start, end))
        m = STEP_RE.match(name)
        if m:
            steps.append((start, end, int(m.group(1)), len(host) - 1))
        if corr is not None:
            runtime = "runtime" in cat or "driver" in cat
            if runtime:
                stats["runtime_cats"].add(e["cat"])
            # Prefer the runtime call when several host events share a correlation id.
            if runtime or corr not in runtime_by_corr:
                runtime_by_corr[corr] = len(host) - 1
    steps.sort()
    step_of_host = {}
    for i, (name, start, end) in enumerate(host):
        # The containing step with the latest start; a ProfilerStep is its own step.
        for s, e, n, own in reversed(steps):
            if own == i or s <= start < e:
                step_of_host[i] = n
                break
    out = {}
    for i, (name, start, end) in enumerate(host):
        if i in step_of_host:
            out.setdefault(step_of_host[i], []).append((name, end - start, False))
    for name, start, end, corr in device:
        i = runtime_by_corr.get(corr)
        if i is None or i not in step_of_host:
            stats["device_unmatched" if i is None else "device_no_step"] += 1
            continue
        out.setdefault(step_of_host[i], []).append((name, end - start, True))
    return out, sorted(n for _, _, n, _ in steps)


def side(path, all_steps, device, all_ranks, stats):
    """Per-name [counts, total duration] of one side (a file or a folder of rank files)."""
    files = [path] if os.path.isfile(path) else sorted(
        os.path.join(path, f) for f in os.listdir(path) if f.endswith((".json", ".json.gz")))
    ranks = {}
    for f in files:
        rank, events = load(f)
        ranks.setdefault(rank, []).append(events)
    chosen = sorted(ranks) if all_ranks else sorted(ranks)[:1]
    totals = {}
    for rank in chosen:
        for events in ranks[rank]:
            by_step, step_numbers = rank_events(events, stats)
            keep = step_numbers if all_steps else step_numbers[:1]
            for n in set(keep):
                for name, dur, is_device in by_step.get(n, []):
                    if device == "cpu" and is_device or device == "gpu" and not is_device:
                        continue
                    t = totals.setdefault(name, [0, 0])
                    t[0] += 1
                    t[1] += dur
    return totals


def reference(baseline, experimental, options, stats=None):
    stats = stats if stats is not None else new_stats()
    opts = dict(zip(options[::2], options[1::2]))
    args = (opts.get("--steps") == "all", opts.get("--device", "all"), opts.get("--ranks") == "all")
    b, x = side(baseline, *args, stats), side(experimental, *args, stats)
    rows = {}
    for name in set(b) | set(x):
        bc, bd = b.get(name, [0, 0])
        xc, xd = x.get(name, [0, 0])
        dc = xc - bc
        rows[name] = {"name": name, "baseline_counts": bc, "baseline_total_duration_us": bd,
                      "experimental_counts": xc, "experimental_total_duration_us": xd,
                      "diff_counts": dc, "diff_duration_us": xd - bd,
                      "change": "+" if dc > 0 else "-" if dc < 0 else "="}
    return rows


def new_stats():
    return {"string_times": 0, "runtime_cats": set(), "device_unmatched": 0, "device_no_step": 0}


def normalize(row):
    # Protobuf JSON drops zero fields and prints int64 as strings.
    return dict({k: float(row.get(k, 0)) for k in FIELDS}, change=row.get("change", ""))


def mismatches(expected, got):
    out = []
    for name in sorted(set(expected) | set(got)):
        x, g = expected.get(name), got.get(name)
        if x is None or g is None:
            out.append((name, x, g))
            continue
        g = normalize(g)
        same = all(abs(g[k] - x[k]) <= (1 if "duration" in k else 0) for k in FIELDS)
        if not same or g["change"] != x["change"]:
            out.append((name, x, g))
    return out


def main(argv):
    if len(argv) >= 3 and argv[0] == "--reference-only":
        stats = new_stats()
        rows = reference(argv[1], argv[2], argv[3:], stats)
        print(json.dumps({"hta_rows": sorted(rows.values(), key=lambda r: r["name"])}, indent=1))
        stats["runtime_cats"] = sorted(stats["runtime_cats"])
        print(f"stats: {stats}", file=sys.stderr)
        return 0
    binary, traces = argv[0], argv[1]
    if not os.path.isdir(traces):
        print(f"SKIPPED: no trace folder at {traces} (set PROFDIFF_TRACES)")
        return 77
    failed = 0
    for base_rel, exp_rel, required in PAIRS:
        base, exp = os.path.join(traces, base_rel), os.path.join(traces, exp_rel)
        if not (os.path.exists(base) and os.path.exists(exp)):
            if required:
                print(f"SKIPPED: {base} or {exp} not found")
                return 77
            print(f"skip {base_rel} vs {exp_rel}: not found")
            continue
        for options in OPTION_SETS:
            names = f"{os.path.basename(base_rel)} vs {os.path.basename(exp_rel)}"
            label = f"{names} [{' '.join(options) or 'default'}]"
            expected = reference(base, exp, options)
            cmd = [binary, "diff", base, exp, "--compare", "hta", "--format", "json"] + options
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            if proc.returncode != 0:
                failed += 1
                print(f"FAIL {label}: exit {proc.returncode}\n  {proc.stderr.strip()[:2000]}")
                continue
            got = {r.get("name", ""): r for r in json.loads(proc.stdout).get("hta_rows", [])}
            bad = mismatches(expected, got)
            if bad:
                failed += 1
                print(f"FAIL {label}: {len(bad)} of {len(expected)} rows differ")
                for name, x, g in bad[:10]:
                    print(f"  {name!r}\n    expected {x}\n    got      {g}")
            else:
                bc = sum(r["baseline_counts"] for r in expected.values())
                xc = sum(r["experimental_counts"] for r in expected.values())
                print(f"ok   {label}: {len(expected)} rows, counts {bc} -> {xc}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
