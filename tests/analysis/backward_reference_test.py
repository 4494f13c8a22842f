"""Independent check of docs/semantics.md §7's backward attribution on the real Kineto traces
that carry fwdbwd flows and nn.Module events.

Recomputes from the raw JSON with the standard library: the backward roots
("autograd::engine::evaluate_function: ..."), the ones a fwdbwd flow links to a forward op (the
"f" end binds to the op starting at its ts on its thread, as HTA and the TensorBoard plugin bind
it; the root is that op or the nearest root around it), and the device time of the top-level
roots whose forward op ran inside an nn.Module (AccumulateGrad roots following such a root
count with it), kernels reached through their runtime calls' correlation ids. Then compares with
`profdiff show --view modules --format json`: the linking counts, >= 95% linked, and the device
time of the backward nodes under the root. Exit 77 = skipped.
Usage: backward_reference_test.py PROFDIFF_BINARY TRACES_DIR
"""
import bisect
import collections
import gzip
import json
import os
import subprocess
import sys

ROOT_PREFIX = "autograd::engine::evaluate_function: "
ACCUMULATE_GRAD = ROOT_PREFIX + "torch::autograd::AccumulateGrad"
RUNTIME_CATS = {"cuda_runtime", "cuda_driver"}
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
SYNC_PREFIXES = ("nccl:", "gloo:", "c10d::")


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    if b'"fwdbwd"' not in raw or b"nn.Module: " not in raw:
        return None
    doc = json.loads(raw)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def end(e):
    return e["ts"] + e.get("dur", 0)


def inside(outer, inner):
    return outer["ts"] <= inner["ts"] and end(inner) <= end(outer)


class Thread:
    """The complete events of one (pid, tid), by start, nested by containment in one sweep."""

    def __init__(self, events):
        self.events = sorted(events, key=lambda e: (e["ts"], -e.get("dur", 0)))
        self.starts = [e["ts"] for e in self.events]
        self.index = {id(e): i for i, e in enumerate(self.events)}
        self.parent = [-1] * len(self.events)
        stack = []
        for i, e in enumerate(self.events):
            while stack and not inside(self.events[stack[-1]], e):
                stack.pop()
            self.parent[i] = stack[-1] if stack else -1
            stack.append(i)

    def around(self, e, predicate):
        """Events on this thread holding `e` (itself included) that satisfy `predicate`,
        innermost first."""
        found = []
        i = self.index[id(e)]
        while i >= 0:
            if predicate(self.events[i]):
                found.append(self.events[i])
            i = self.parent[i]
        return found

    def starting_at(self, ts):
        i = bisect.bisect_left(self.starts, ts)
        hits = []
        while i < len(self.starts) and self.starts[i] == ts:
            hits.append(self.events[i])
            i += 1
        return min(hits, key=lambda e: e.get("dur", 0)) if hits else None


def reference(events):
    complete = [e for e in events if e.get("ph") == "X"]
    threads = collections.defaultdict(list)
    for e in complete:
        if e.get("cat") in ("cpu_op", "python_function", "user_annotation") or e.get("cat") in RUNTIME_CATS:
            threads[(e["pid"], e["tid"])].append(e)
    threads = {k: Thread(v) for k, v in threads.items()}
    is_op = lambda e: e.get("cat") == "cpu_op"
    is_root = lambda e: is_op(e) and e["name"].startswith(ROOT_PREFIX)
    is_module = lambda e: e.get("cat") == "python_function" and e["name"].startswith("nn.Module: ")
    roots = [e for e in complete if is_root(e)]

    flows = collections.defaultdict(dict)
    for e in events:
        if e.get("cat") == "fwdbwd" and e.get("ph") in ("s", "f"):
            flows[e["id"]][e["ph"]] = e
    forward_of = {}
    for pair in flows.values():
        if "s" not in pair or "f" not in pair:
            continue
        s, f = pair["s"], pair["f"]
        fwd = threads[(s["pid"], s["tid"])].starting_at(s["ts"]) if (s["pid"], s["tid"]) in threads else None
        bwd = threads[(f["pid"], f["tid"])].starting_at(f["ts"]) if (f["pid"], f["tid"]) in threads else None
        if fwd is None or bwd is None:
            continue
        around = threads[(f["pid"], f["tid"])].around(bwd, is_root)
        if around and id(around[0]) not in forward_of:
            forward_of[id(around[0])] = fwd

    # Top-level roots in order on their thread; AccumulateGrad follows the root before it.
    device_ns = 0.0
    by_correlation = collections.defaultdict(list)
    for e in complete:
        if e.get("cat") in DEVICE_CATS:
            by_correlation[e.get("args", {}).get("correlation")].append(e)
    for key, thread in threads.items():
        attributed = False
        for e in thread.events:
            if not is_root(e) or len(thread.around(e, lambda c: c is not e and (is_root(c) or is_module(c)))) > 0:
                continue
            if e["name"] != ACCUMULATE_GRAD:
                fwd = forward_of.get(id(e))
                attributed = fwd is not None and bool(threads[(fwd["pid"], fwd["tid"])].around(fwd, is_module))
            if not attributed:
                continue
            for runtime in thread.events[thread.index[id(e)]:bisect.bisect_left(thread.starts, end(e))]:
                if runtime.get("cat") not in RUNTIME_CATS or not inside(e, runtime):
                    continue
                if thread.around(runtime, lambda c: is_op(c) and c["name"].startswith(SYNC_PREFIXES + ("record_param_comms",))):
                    continue  # launched by a collective: the gradient sync's
                for activity in by_correlation.get(runtime.get("args", {}).get("correlation"), []):
                    device_ns += activity["dur"] * 1000
    non_accumulate = [r for r in roots if r["name"] != ACCUMULATE_GRAD]
    return len(non_accumulate), len(forward_of), device_ns / 1000


def profdiff_values(binary, path):
    out = subprocess.run([binary, "show", path, "--view", "modules", "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    worker = json.loads(out)["workers"][0]
    backward = sum(c.get("device_us", 0.0) for c in worker["modules"].get("children", [])
                   if c.get("kind") == "MODULE_NODE_KIND_BACKWARD")
    linking = worker.get("backward_linking", {})
    return linking.get("roots", 0), linking.get("linked_by_flow", 0), backward


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, traces = sys.argv[1], sys.argv[2]
    if not os.path.isdir(traces):
        print(f"SKIPPED: no traces at {traces}")
        return 77
    checked, failures = 0, []
    for folder, _, files in sorted(os.walk(traces)):
        for name in sorted(files):
            if not name.endswith((".json", ".json.gz")):
                continue
            path = os.path.join(folder, name)
            events = load(path)
            if events is None:
                continue
            checked += 1
            ref_roots, ref_linked, ref_device = reference(events)
            roots, linked, device = profdiff_values(binary, path)
            rel = os.path.relpath(path, traces)
            print(f"{rel}: roots {roots} (ref {ref_roots}), linked by flow {linked} (ref {ref_linked}), "
                  f"backward device {device:.3f} us (ref {ref_device:.3f})")
            if (roots, linked) != (ref_roots, ref_linked):
                failures.append(f"{rel}: linking counts differ")
            if ref_roots and linked < 0.95 * ref_roots:
                failures.append(f"{rel}: only {linked} of {ref_roots} backward roots linked")
            if abs(device - ref_device) > 1e-6 * max(ref_device, 1.0) + 1e-3:
                failures.append(f"{rel}: backward device time {device} != {ref_device}")
            if ref_device <= 0:
                failures.append(f"{rel}: no backward device time to compare")
    if checked == 0:
        print(f"SKIPPED: no trace under {traces} has fwdbwd flows and nn.Module events")
        return 77
    for failure in failures:
        print("FAIL", failure)
    print(f"{checked} traces, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
