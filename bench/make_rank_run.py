#!/usr/bin/env python3
"""Writes an N-rank run from real traces, for the thousand-rank benchmarks (bench/scale_bench.cc).

    make_rank_run.py SOURCE N OUT_DIR

SOURCE is a trace folder of one multi-rank run (or one trace file), e.g.
$PROFDIFF_TRACES/param/dlrm_kineto (8 ranks). Rank r of the new run is source trace r % S, its
events unchanged, with distributedInfo saying rank r of world size N; the files are
OUT_DIR/worker<r>.<ts>.pt.trace.json.gz, as Kineto names them. Standard library only.
"""
import gzip
import json
import os
import sys


def source_files(source):
    if os.path.isfile(source):
        return [source]
    names = sorted(n for n in os.listdir(source)
                   if n.endswith(".json") or n.endswith(".json.gz"))
    if not names:
        sys.exit(f"make_rank_run: no trace files in {source}")
    return [os.path.join(source, n) for n in names]


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, ranks, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if ranks < 1:
        sys.exit("make_rank_run: N must be at least 1")
    os.makedirs(out, exist_ok=True)
    sources = [load(path) for path in source_files(source)]
    for rank in range(ranks):
        doc = sources[rank % len(sources)]
        info = dict(doc.get("distributedInfo") or {})
        info.update({"rank": rank, "world_size": ranks})
        info.pop("pg_config", None)  # its rank lists are the source run's
        doc["distributedInfo"] = info
        # mtime 0: the same N gives the same bytes.
        path = os.path.join(out, f"worker{rank}.{1700000000000 + rank}.pt.trace.json.gz")
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                    compresslevel=1) as f:
            f.write(json.dumps(doc, separators=(",", ":")).encode("utf-8"))
    print(f"{ranks} ranks from {len(sources)} traces in {out}")


if __name__ == "__main__":
    main()
