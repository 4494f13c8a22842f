"""Independent check of README.md "Communication across ranks" on the 8-rank DLRM run in ../shared/traces.

Recomputes from the raw JSON, with the standard library, each rank's collective calls (outermost
collective ranges per host thread; named by Kineto's "Collective name", else the nccl:/gloo: range,
else the c10d:: op; a bare record_param_comms is a wait, no call), their count and bytes per
collective, and their time (the union of the NCCL kernels each launched), and compares them with
`profdiff show --format json` (per call) and `profdiff diff --view comm --format json` (per rank:
wait + transfer = the rank's collective time, transfer = the shortest duration of each instance).
Exit 77 = skipped. Usage: communication_reference_test.py PROFDIFF_BINARY TRACES_DIR
"""
import collections
import decimal
import glob
import gzip
import json
import os
import subprocess
import sys

C10D = {"allreduce_", "allreduce_coalesced_", "broadcast_", "allgather_", "allgather_coalesced_",
        "allgather_into_tensor_coalesced_", "_allgather_base_", "reduce_", "reduce_scatter_",
        "_reduce_scatter_base_", "reduce_scatter_tensor_coalesced_", "alltoall_", "alltoall_base_",
        "gather_", "scatter_", "send", "recv_", "recv_any_source_", "barrier",
        "monitored_barrier_"}
CANONICAL = {"allreduce": "all_reduce", "all_reduce": "all_reduce", "alltoall": "all_to_all",
             "all_to_all": "all_to_all", "allgather": "all_gather", "all_gather": "all_gather",
             "reduce_scatter": "reduce_scatter", "broadcast": "broadcast", "barrier": "barrier"}
ELEMENT_BYTES = {"float": 4, "double": 8, "int": 4, "long int": 8, "c10::Half": 2,
                 "c10::BFloat16": 2, "unsigned char": 1}


def is_collective(name):
    return (name.startswith(("nccl:", "gloo:")) or name == "record_param_comms"
            or (name.startswith("c10d::") and name[len("c10d::"):] in C10D))


def canonical(name):
    for prefix in ("c10d::", "nccl:", "gloo:"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    name = name.strip("_")
    if name.endswith("_base"):
        name = name[:-len("_base")]
    return CANONICAL.get(name, "")


def ns(value):
    return int((decimal.Decimal(value) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def union_length(intervals):
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def reference(path):
    """Per call, in start order: (collective, bytes, duration ns)."""
    with gzip.open(path, "rb") as f:
        events = json.loads(f.read(), parse_float=decimal.Decimal)["traceEvents"]
    ranges = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation")
              and is_collective(e["name"])]
    ranges.sort(key=lambda e: (e["pid"], e["tid"], ns(e["ts"]), -ns(e["dur"])))
    calls = []
    for e in ranges:
        start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        last = calls[-1] if calls else None
        if last and last["thread"] == (e["pid"], e["tid"]) and end <= last["end"]:
            last["members"].append(e)
        else:
            calls.append({"thread": (e["pid"], e["tid"]), "start": start, "end": end, "members": [e],
                          "kernels": []})
    # Kernels: the launching runtime call's thread and time place it in a call.
    kernel_by_correlation = {e["args"]["correlation"]: e for e in events
                             if e.get("cat") == "kernel" and "correlation" in e.get("args", {})}
    for r in events:
        if r.get("cat") != "cuda_runtime" or r.get("args", {}).get("correlation") not in kernel_by_correlation:
            continue
        k = kernel_by_correlation[r["args"]["correlation"]]
        t = ns(r["ts"])
        for c in calls:
            if c["thread"] == (r["pid"], r["tid"]) and c["start"] <= t < c["end"]:
                c["kernels"].append((ns(k["ts"]), ns(k["ts"]) + ns(k["dur"])))
                break
    out = []
    for c in sorted(calls, key=lambda c: c["start"]):
        name, library = "", None
        for m in c["members"]:
            if m["name"].startswith(("nccl:", "gloo:")):
                library = m
                break
        if library is not None:
            name = canonical(library["name"])
        if not name:
            name = canonical(c["members"][0]["name"])
        if not name:
            continue  # a wait
        size = 0
        if library is not None:
            for dims, dtype in zip(library["args"].get("Input Dims", []),
                                   library["args"].get("Input type", [])):
                if dims:
                    n = 1
                    for d in dims:
                        n *= d
                    size += n * ELEMENT_BYTES.get(dtype, 0)
        duration = union_length(c["kernels"]) if c["kernels"] else c["end"] - c["start"]
        out.append((name, size, duration))
    return out


def main():
    binary, traces = sys.argv[1], sys.argv[2]
    folder = os.path.join(traces, "param", "dlrm_kineto")
    files = sorted(glob.glob(os.path.join(folder, "worker*.pt.trace.json.gz")))
    if len(files) != 8:
        print(f"SKIPPED: the 8-rank DLRM run is not in {folder}")
        return 77
    failures = []
    durations = {}
    for rank, path in enumerate(files):
        expected = reference(path)
        profile = json.loads(subprocess.run([binary, "show", path, "--format", "json"], check=True,
                                            capture_output=True, text=True).stdout)
        worker = profile["workers"][0]
        got = [(c["collective"], int(c.get("bytes", 0)), round(c["duration_us"] * 1000))
               for c in worker.get("collective_calls", [])]
        want_counts = collections.Counter(n for n, _, _ in expected)
        got_counts = collections.Counter(n for n, _, _ in got)
        want_bytes = collections.Counter()
        got_bytes = collections.Counter()
        for n, b, _ in expected:
            want_bytes[n] += b
        for n, b, _ in got:
            got_bytes[n] += b
        if want_counts != got_counts or want_bytes != got_bytes:
            failures.append(f"rank {rank}: calls {dict(got_counts)} bytes {dict(got_bytes)}, "
                            f"expected {dict(want_counts)} {dict(want_bytes)}")
        if sorted(d for _, _, d in got) != sorted(d for _, _, d in expected):
            failures.append(f"rank {rank}: call durations {sorted(got)} != {sorted(expected)}")
        durations[rank] = sum(d for _, _, d in expected) / 1000
        print(f"rank {rank}: {dict(want_counts)} calls, {dict(want_bytes)} bytes")
    report = json.loads(subprocess.run([binary, "diff", folder, folder, "--view", "comm", "--format",
                                        "json"], check=True, capture_output=True, text=True).stdout)
    for row in report["communication"]["ranks"]:
        rank, values = row.get("rank", 0), row["baseline"]
        total = values.get("wait_us", 0) + values.get("transfer_us", 0)
        if abs(total - durations[rank]) > 1e-6 * max(1, durations[rank]) or \
                abs(values.get("time_us", 0) - durations[rank]) > 1e-6 * max(1, durations[rank]):
            failures.append(f"rank {rank}: wait + transfer = {total} us, time {values.get('time_us')}, "
                            f"the calls' durations sum to {durations[rank]} us")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
