#!/usr/bin/env python3
"""The step-time overhead of the CUPTI injection, from interleaved rounds (issue 47).

    cupti_overhead.py ROUNDS.jsonl

ROUNDS.jsonl has one measurement a line, as scripts/cupti_gpu_check.sh writes them:
    {"model": "small", "config": "plain", "round": 1, "mean_step_ms": 0.926}
with config one of plain, socket (injected, through the agent's socket), direct (injected,
straight to the aggregator) and profiler (torch.profiler). Each round runs every config once,
in turn, so a machine that drifts moves all of them; a single pair cannot tell the injection's
cost from that drift (the first H200 run saw +65% in one pair and +0.07% in the next).

Prints, per model: each config's median step time with its spread (min-max over rounds), and
its overhead against plain as the median over rounds of (config / plain of the same round - 1),
with that spread; then the verdict against the goal (docs/cupti.md): the injection costs at
most what torch.profiler costs, and at most 3% on steps of 10 ms or more.
Exit status: 0, or 1 when a goal is missed, 2 for unusable input.
"""
import json
import statistics
import sys

CONFIGS = ("plain", "socket", "direct", "profiler")
INJECTED = ("socket", "direct")
GOAL_PCT = 3.0  # on steps of at least GOAL_STEP_MS
GOAL_STEP_MS = 10.0
MIN_ROUNDS = 5


def read_rounds(lines):
    """Measurements from JSON lines; ValueError naming the line for a bad one."""
    rows = []
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            row = json.loads(line)
            row = {"model": str(row["model"]), "config": str(row["config"]),
                   "round": int(row["round"]), "mean_step_ms": float(row["mean_step_ms"])}
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"line {number}: {e}: {line[:80]}") from None
        if row["config"] not in CONFIGS:
            raise ValueError(f"line {number}: config {row['config']!r} is not one of {CONFIGS}")
        if not row["mean_step_ms"] > 0:
            raise ValueError(f"line {number}: mean_step_ms {row['mean_step_ms']} is not > 0")
        rows.append(row)
    return rows


def summarize(rows):
    """{model: {"configs": {config: {...}}, "rounds": n}} with medians, spreads and overheads."""
    out = {}
    for model in sorted({r["model"] for r in rows}):
        by_round = {}
        for r in rows:
            if r["model"] == model:
                by_round.setdefault(r["round"], {})[r["config"]] = r["mean_step_ms"]
        configs = {}
        for config in CONFIGS:
            times = [v[config] for v in by_round.values() if config in v]
            if not times:
                continue
            entry = {"median_ms": statistics.median(times), "min_ms": min(times),
                     "max_ms": max(times), "rounds": len(times)}
            if config != "plain":
                # Paired by round: the drift both saw cancels.
                overheads = [100 * (v[config] / v["plain"] - 1)
                             for v in by_round.values() if config in v and "plain" in v]
                if overheads:
                    entry.update(overhead_pct=statistics.median(overheads),
                                 overhead_min_pct=min(overheads),
                                 overhead_max_pct=max(overheads))
            configs[config] = entry
        out[model] = {"configs": configs, "rounds": len(by_round)}
    return out


def verdicts(summary):
    """Lines saying, per model and injected path, whether the goal holds."""
    lines, missed = [], False
    for model, s in summary.items():
        c = s["configs"]
        if s["rounds"] < MIN_ROUNDS:
            lines.append(f"{model}: {s['rounds']} rounds, fewer than {MIN_ROUNDS}: no verdict")
            continue
        plain = c.get("plain", {}).get("median_ms")
        profiler = c.get("profiler", {}).get("overhead_pct")
        for config in INJECTED:
            if "overhead_pct" not in c.get(config, {}):
                continue
            pct = c[config]["overhead_pct"]
            checks = []
            if profiler is not None:
                ok = pct <= max(profiler, 0.0)
                checks.append(f"{'<=' if ok else '>'} torch.profiler's {profiler:+.2f}%")
                missed |= not ok
            if plain is not None and plain >= GOAL_STEP_MS:
                ok = pct <= GOAL_PCT
                checks.append(f"{'<=' if ok else '>'} {GOAL_PCT:g}% on a {plain:.1f} ms step")
                missed |= not ok
            lines.append(f"{model} {config}: {pct:+.2f}% " + ", ".join(checks))
    return lines, missed


def render(summary):
    lines = []
    for model, s in summary.items():
        lines.append(f"{model} ({s['rounds']} interleaved rounds)")
        lines.append(f"  {'config':<9} {'median ms':>10} {'min-max ms':>19} "
                     f"{'overhead':>9} {'min-max':>17}")
        for config, e in s["configs"].items():
            spread = f"{e['min_ms']:.3f}-{e['max_ms']:.3f}"
            over = (f"{e['overhead_pct']:+.2f}%" if "overhead_pct" in e else "")
            over_spread = (f"{e['overhead_min_pct']:+.1f}..{e['overhead_max_pct']:+.1f}%"
                           if "overhead_pct" in e else "")
            lines.append(f"  {config:<9} {e['median_ms']:>10.3f} {spread:>19} "
                         f"{over:>9} {over_spread:>17}")
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            rows = read_rounds(f)
    except (OSError, ValueError) as e:
        print(f"cupti_overhead: {argv[1]}: {e}", file=sys.stderr)
        return 2
    if not rows:
        print(f"cupti_overhead: {argv[1]}: no measurements", file=sys.stderr)
        return 2
    summary = summarize(rows)
    print(render(summary))
    lines, missed = verdicts(summary)
    print("\n".join(lines))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
