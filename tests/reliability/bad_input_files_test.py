#!/usr/bin/env python3
"""Bad trace files given to `profdiff show` and `profdiff diff`: each must end within seconds with
exit code 1 and a one-line error naming the file; never a crash, a hang or an exit 0.

  bad_input_files_test.py --profdiff BIN --out DIR    (PROFDIFF_TRACES: the real traces)
Exit 77 = skipped (no real trace to cut).
"""
import argparse
import gzip
import os
import random
import subprocess
import sys
import time

REAL = "kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
TIME_LIMIT_S = 10


def make_files(out, real_gz):
    """Writes every bad input under `out`; returns {file name: what it is}."""
    with open(real_gz, "rb") as f:
        compressed = f.read()
    text = gzip.decompress(compressed)
    rng = random.Random(42)
    files = {
        "truncated.json.gz": (compressed[: len(compressed) // 3], "a .gz cut at a third"),
        "cut_in_half.json": (text[: len(text) // 2], "a JSON trace cut in half"),
        "empty.json": (b"", "an empty file"),
        "random_bytes.json": (bytes(rng.getrandbits(8) for _ in range(200_000)), "random bytes"),
        "random_bytes.json.gz": (gzip.compress(bytes(rng.getrandbits(8) for _ in range(200_000))), "gzip of random bytes"),
        "deep_array.json": (b"[" * 100_000 + b"]" * 100_000, "100k-deep nested arrays"),
        "deep_object.json": (b'{"traceEvents":' + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"}", "100k-deep nested objects"),
        # In a field the reader takes (an unknown field is skipped unread, iteratively: any depth
        # there is harmless).
        "deep_in_args.json": (b'{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","ts":1,"dur":1,"pid":1,"tid":1,'
                              b'"args":{"Input Dims":' + b"[" * 100_000 + b"]" * 100_000 + b"}}]}",
                              "100k-deep nesting in Input Dims"),
        "wrong_types.json": (b'{"traceEvents":[{"ph":"X","name":5,"ts":"abc","dur":1,"pid":1,"tid":1}]}', "a number where a name goes"),
        "events_not_array.json": (b'{"traceEvents":{"ph":"X"}}', "traceEvents is an object"),
        "ts_na.json": (b'{"traceEvents":[{"ph":"X","name":"a","ts":N/A,"dur":1,"pid":1,"tid":1}]}', "a bare N/A token"),
        "non_ascii.json": (b'{"traceEvents":[{"ph":"X","name":"\xff\xfe","ts":1,"dur":1,"pid":1,"tid":1}]}', "invalid UTF-8 in a name"),
        "bomb.json.gz": (None, "a decompression bomb (1.5 GiB of blanks, 1.5 MB gzipped)"),
        "not_a_trace.json": (b'{"hello": "world"}', "JSON without traceEvents"),
    }
    for name, (data, _) in files.items():
        path = os.path.join(out, name)
        if name == "bomb.json.gz":
            with gzip.open(path, "wb", compresslevel=9) as f:
                block = b" " * (64 << 20)
                for _ in range(24):
                    f.write(block)
            continue
        with open(path, "wb") as f:
            f.write(data)
    return {name: what for name, (_, what) in files.items()}


def run(cmd):
    started = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        return None, b"", time.monotonic() - started
    return p.returncode, p.stderr, time.monotonic() - started


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profdiff", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    traces = os.environ.get("PROFDIFF_TRACES", "../shared/traces")
    real = os.path.join(traces, REAL)
    if not os.path.exists(real):
        print(f"SKIPPED: no real trace at {real} (set PROFDIFF_TRACES)")
        return 77
    os.makedirs(args.out, exist_ok=True)
    files = make_files(args.out, real)
    failures = 0
    rows = []
    for name, what in files.items():
        path = os.path.join(args.out, name)
        for cmd in ([args.profdiff, "show", path], [args.profdiff, "diff", real, path]):
            code, err, seconds = run(cmd)
            message = err.decode("utf-8", "replace").strip()
            problem = None
            if code is None:
                problem = f"no exit within {TIME_LIMIT_S} s"
            elif code != 1:
                problem = f"exit code {code} (want 1; a negative code is a signal)"
            elif name not in message:
                problem = "the message does not name the file"
            elif name == "bomb.json.gz" and "max_gzip_ratio" not in message:
                problem = "the bomb was not stopped by the max_gzip_ratio guard"
            elif message.count("\n") != 0:
                problem = "the message is more than one line"
            verdict = "FAIL" if problem else "PASS"
            failures += bool(problem)
            rows.append((verdict, cmd[1], name, seconds, problem or message[:150]))
    for verdict, command, name, seconds, detail in rows:
        print(f"{verdict} {command:4} {name:22} {seconds:5.2f} s  {detail}")
    print(f"{len(rows) - failures} of {len(rows)} passed; {len(files)} bad files, each through show and diff")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
