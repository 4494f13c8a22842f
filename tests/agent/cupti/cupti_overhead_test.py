#!/usr/bin/env python3
"""ctest cupti.overhead_stats: scripts/cupti_overhead.py, the GPU check's overhead statistics,
on canned numbers (the first H200 run's, issue 47), so CI keeps the part that needs no GPU
working.   cupti_overhead_test.py SCRIPTS_DIR"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, sys.argv.pop(1))
import cupti_overhead  # noqa: E402

# The H200's interleaved measurements (issue 47), mean step ms: small model rounds 1-3,
# Transformer rounds 1-2 (no socket run).
H200 = {
    "small": [(0.860, 0.816, 0.857, 1.001), (0.926, 1.320, 1.149, 1.419),
              (0.935, 1.391, 1.486, 1.310)],
    "transformer": [(24.481, None, 24.656, 24.667), (24.514, None, 24.680, 24.716)],
}


def rows_of(table):
    rows = []
    for model, rounds in table.items():
        for n, values in enumerate(rounds, 1):
            for config, ms in zip(cupti_overhead.CONFIGS, values):
                if ms is not None:
                    rows.append({"model": model, "config": config, "round": n, "mean_step_ms": ms})
    return rows


class OverheadStatsTest(unittest.TestCase):
    def test_h200_rounds_median_and_spread(self):
        s = cupti_overhead.summarize(rows_of(H200))
        small = s["small"]["configs"]
        self.assertEqual(s["small"]["rounds"], 3)
        self.assertAlmostEqual(small["plain"]["median_ms"], 0.926)
        self.assertAlmostEqual(small["socket"]["min_ms"], 0.816)
        self.assertAlmostEqual(small["socket"]["max_ms"], 1.391)
        # Paired per round: 0.816/0.860-1 = -5.1%, 1.320/0.926-1 = +42.5%, 1.391/0.935-1 = +48.8%.
        self.assertAlmostEqual(small["socket"]["overhead_pct"], 100 * (1.320 / 0.926 - 1))
        self.assertAlmostEqual(small["socket"]["overhead_min_pct"], 100 * (0.816 / 0.860 - 1))
        t = s["transformer"]["configs"]
        self.assertNotIn("socket", t)
        # (24.656/24.481-1, 24.680/24.514-1) -> median of two: their mean, +0.70%.
        expected = statistics_median([100 * (24.656 / 24.481 - 1), 100 * (24.680 / 24.514 - 1)])
        self.assertAlmostEqual(t["direct"]["overhead_pct"], expected)
        self.assertLess(t["direct"]["overhead_pct"], t["profiler"]["overhead_pct"])

    def test_fewer_than_five_rounds_give_no_verdict(self):
        lines, missed = cupti_overhead.verdicts(cupti_overhead.summarize(rows_of(H200)))
        self.assertFalse(missed)
        self.assertTrue(all("no verdict" in line for line in lines), lines)

    def test_verdicts_against_the_goal(self):
        # Five rounds of a 20 ms step: direct +1%, socket +4% (over 3%), profiler +2%.
        rounds = [(20.0 + d, 20.8 + d, 20.2 + d, 20.4 + d) for d in (0, 0.1, -0.1, 0.05, 0.2)]
        lines, missed = cupti_overhead.verdicts(cupti_overhead.summarize(rows_of({"big": rounds})))
        self.assertTrue(missed)
        socket = next(line for line in lines if line.startswith("big socket"))
        direct = next(line for line in lines if line.startswith("big direct"))
        self.assertIn("> torch.profiler's", socket)
        self.assertIn("> 3% on a 20.1 ms step", socket)
        self.assertIn("<= torch.profiler's", direct)
        self.assertIn("<= 3% on a 20.1 ms step", direct)
        # A 1 ms step is held to torch.profiler's cost only.
        small = [(1.0, 1.01, 1.01, 1.2)] * 5
        lines, missed = cupti_overhead.verdicts(cupti_overhead.summarize(rows_of({"s": small})))
        self.assertFalse(missed, lines)
        self.assertNotIn("3%", " ".join(lines))

    def test_bad_lines_name_the_line(self):
        with self.assertRaisesRegex(ValueError, "line 2: config 'fast'"):
            cupti_overhead.read_rounds([
                '{"model": "m", "config": "plain", "round": 1, "mean_step_ms": 1}',
                '{"model": "m", "config": "fast", "round": 1, "mean_step_ms": 1}'])
        with self.assertRaisesRegex(ValueError, "line 1: .*mean_step_ms"):
            cupti_overhead.read_rounds(['{"model": "m", "config": "plain", "round": 1}'])
        with self.assertRaisesRegex(ValueError, "line 1: mean_step_ms -1.0 is not > 0"):
            cupti_overhead.read_rounds(
                ['{"model": "m", "config": "plain", "round": 1, "mean_step_ms": -1}'])

    def test_command_line(self):
        script = os.path.join(os.path.dirname(cupti_overhead.__file__), "cupti_overhead.py")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rounds.jsonl")
            with open(path, "w") as f:
                for row in rows_of({"big": [(20.0, 20.1, 20.1, 20.4)] * 5}):
                    f.write(json.dumps(row) + "\n")
            done = subprocess.run([sys.executable, script, path], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("big (5 interleaved rounds)", done.stdout)
            self.assertIn("big direct: +0.50%", done.stdout)
            with open(path, "a") as f:
                f.write("not json\n")
            done = subprocess.run([sys.executable, script, path], capture_output=True, text=True)
            self.assertEqual(done.returncode, 2)
            self.assertIn("line 21", done.stderr)


def statistics_median(values):
    import statistics
    return statistics.median(values)


if __name__ == "__main__":
    unittest.main()
