#!/usr/bin/env python3
"""Writes an N-rank run from real traces, for the thousand-rank benchmarks and tests
(bench/scale_bench.cc, tests/html/browser_test.sh).

    make_rank_run.py SOURCE N OUT_DIR [--straggler RANK]

SOURCE is a trace folder of one multi-rank run (or one trace file), e.g.
$PROFDIFF_TRACES/param/dlrm_kineto (8 ranks). Rank r of the new run is source trace r % S, its
events unchanged, with distributedInfo saying rank r of world size N; the files are
OUT_DIR/worker<r>.<ts>.pt.trace.json.gz, as Kineto names them. With --straggler R, rank R's NCCL
kernels are cut to a tenth of their duration: its collectives are the shortest of every instance,
as those of the rank the others wait for are, so R arrives last at all of them. Standard library
only.
"""
import argparse
import gzip
import json
import os
import sys

RANK_MARK = "\x00rank\x00"


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


def text_of(doc, ranks, rank=None):
    """The trace as JSON text, its rank left as RANK_MARK when `rank` is None."""
    info = dict(doc.get("distributedInfo") or {})
    info.pop("pg_config", None)  # its rank lists are the source run's
    info.update({"rank": RANK_MARK if rank is None else rank, "world_size": ranks})
    out = dict(doc)
    out["distributedInfo"] = info
    return json.dumps(out, separators=(",", ":"))


def slowed(doc):
    """A copy whose NCCL kernels last a tenth as long."""
    out = dict(doc)
    events = []
    for e in doc.get("traceEvents", []):
        if e.get("cat") == "kernel" and "nccl" in e.get("name", "").lower() and "dur" in e:
            e = dict(e)
            e["dur"] = e["dur"] / 10
        events.append(e)
    out["traceEvents"] = events
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("ranks", type=int)
    parser.add_argument("out")
    parser.add_argument("--straggler", type=int, default=None)
    args = parser.parse_args()
    if args.ranks < 1:
        sys.exit("make_rank_run: N must be at least 1")
    os.makedirs(args.out, exist_ok=True)
    docs = [load(path) for path in source_files(args.source)]
    # Each source serialized once; a rank's text is its source's with the rank put in.
    quoted_mark = json.dumps(RANK_MARK)
    texts = [text_of(doc, args.ranks) for doc in docs]
    for rank in range(args.ranks):
        doc = docs[rank % len(docs)]
        if rank == args.straggler:
            text = text_of(slowed(doc), args.ranks, rank)
        else:
            text = texts[rank % len(docs)].replace(quoted_mark, str(rank), 1)
        # mtime 0: the same arguments give the same bytes.
        path = os.path.join(args.out, f"worker{rank}.{1700000000000 + rank}.pt.trace.json.gz")
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                    compresslevel=1) as f:
            f.write(text.encode("utf-8"))
    print(f"{args.ranks} ranks from {len(docs)} traces in {args.out}"
          + (f", rank {args.straggler} the straggler" if args.straggler is not None else ""))


if __name__ == "__main__":
    main()
