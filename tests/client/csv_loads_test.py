#!/usr/bin/env python3
"""CSV that loads (issue 45, item 4), checked with the standard library alone.

Runs `profdiff diff A B --format csv --view V` for every view and table on the H200 pair
(fp32 against bf16 autocast) and on the 8-rank DLRM run (against itself), `--compare hta`,
`profdiff show --format csv --view V` for every view, and `-o DIR/`; loads each table with
csv.DictReader and checks that every column is named once in snake_case, that every number
column holds plain numbers (float() reads them: no '+', '%', unit or word) or nothing (a value
the trace does not have), and that every boolean column holds true or false.

  csv_loads_test.py PROFDIFF_BIN TRACES_DIR
Exits 77 (skipped) when neither trace set is there.
"""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

DIFF_TABLES = [
    "findings", "overview", "modules", "operators", "kernels", "ranks",
    "comm_by_collective", "comm_collectives", "comm_ranks", "comm_stragglers",
    "memory_devices", "memory_holders", "memory_operators", "memory_modules",
]
SHOW_TABLES = ["overview", "steps", "operators", "kernels", "modules", "memory"]

# Columns of text: names, paths, shapes, the words of enums.
TEXT = {
    "name", "input_shapes", "op_name", "change", "compared", "path", "index_path",
    "baseline_name", "experimental_name", "status", "kind", "metric", "unit",
    "baseline_text", "experimental_text", "text", "side", "worker_name", "collective",
    "process_group", "dtype", "device", "operator_name", "verdict", "straggler_collective",
    "backend", "device_name", "peak_operator", "peak_module", "baseline_peak_operator_name",
    "baseline_peak_module_path", "experimental_peak_operator_name",
    "experimental_peak_module_path",
}
BOOLEAN = re.compile(r"(^|_)significant$|^slowest_compute$|^straggler_found$|"
                     r"^allocated_from_bytes$")
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
PLAIN_NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$")
# HTA's TraceDiff.compare_traces on two trace folders, written with to_csv().
HTA_COLUMNS = ["name", "Control_counts", "Control_total_duration", "Test_counts",
               "Test_total_duration", "diff_counts", "diff_duration",
               "counts_change_categories"]

failures = []


def fail(message):
    failures.append(message)
    print("FAIL " + message)


def profdiff(binary, *args):
    done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        fail(f"profdiff {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
        return None
    return done.stdout


def check_table(label, text, numeric_columns_seen):
    """Loads `text` with csv.DictReader and checks its columns; returns its rows."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    if not header:
        fail(f"{label}: no header row")
        return []
    if len(set(header)) != len(header):
        fail(f"{label}: a column named twice: {header}")
    for column in header:
        if not SNAKE.match(column):
            fail(f"{label}: column {column!r} is not snake_case")
    rows = list(reader)
    for number, row in enumerate(rows, start=2):
        if None in row or None in row.values():
            fail(f"{label}: line {number} has {len(row)} cells for {len(header)} columns")
            continue
        for column, cell in row.items():
            if column in TEXT:
                continue
            if BOOLEAN.search(column):
                if cell not in ("true", "false", ""):
                    fail(f"{label}: line {number}: {column}={cell!r}, expected true/false")
                continue
            numeric_columns_seen.add(column)
            if cell == "":
                continue  # a value that side or trace does not have
            if not PLAIN_NUMBER.match(cell):
                fail(f"{label}: line {number}: {column}={cell!r} is not a plain number")
                continue
            float(cell)
    return rows


def check_diff(binary, label, baseline, experimental):
    numeric = set()
    counts = {}
    for table in DIFF_TABLES:
        text = profdiff(binary, "diff", baseline, experimental, "--format", "csv",
                        "--view", table)
        if text is None:
            continue
        rows = check_table(f"{label} {table}", text, numeric)
        counts[table] = len(rows)
    with tempfile.TemporaryDirectory() as folder:
        printed = profdiff(binary, "diff", baseline, experimental, "-o", folder + "/")
        if printed is not None:
            written = sorted(os.listdir(folder))
            if written != sorted(t + ".csv" for t in DIFF_TABLES):
                fail(f"{label} -o DIR/: wrote {written}")
            for table in DIFF_TABLES:
                path = os.path.join(folder, table + ".csv")
                if not os.path.exists(path):
                    continue
                with open(path, newline="") as f:
                    rows = check_table(f"{label} -o DIR/ {table}", f.read(), numeric)
                # The folder has every row the one view printed.
                if len(rows) != counts.get(table, len(rows)):
                    fail(f"{label} {table}: {len(rows)} rows in the folder, "
                         f"{counts[table]} printed")
    hta = profdiff(binary, "diff", baseline, experimental, "--compare", "hta", "--format", "csv")
    if hta is not None:
        reader = csv.DictReader(io.StringIO(hta, newline=""))
        if reader.fieldnames != HTA_COLUMNS:
            fail(f"{label} hta: columns {reader.fieldnames}, expected {HTA_COLUMNS}")
        for row in reader:
            for column in HTA_COLUMNS[1:-1]:
                float(row[column])
            if row["counts_change_categories"] not in ("+", "-", "="):
                fail(f"{label} hta: counts_change_categories={row['counts_change_categories']!r}")
    print(f"ok   {label}: {len(DIFF_TABLES)} tables ("
          + ", ".join(f"{t} {n}" for t, n in counts.items())
          + f" rows), {len(numeric)} number columns")
    return counts


def check_show(binary, label, path):
    numeric = set()
    counts = {}
    for table in SHOW_TABLES:
        text = profdiff(binary, "show", path, "--format", "csv", "--view", table)
        if text is not None:
            counts[table] = len(check_table(f"{label} show {table}", text, numeric))
    print(f"ok   {label} show: " + ", ".join(f"{t} {n}" for t, n in counts.items()) + " rows")
    return counts


def main():
    binary, traces = sys.argv[1], sys.argv[2]
    h200 = os.path.join(traces, "profdiff_h200")
    fp32 = os.path.join(h200, "transformer-fp32.pt.trace.json.gz")
    bf16 = os.path.join(h200, "transformer-bf16.pt.trace.json.gz")
    dlrm = os.path.join(traces, "param", "dlrm_kineto")
    ran = False
    if os.path.exists(fp32) and os.path.exists(bf16):
        ran = True
        counts = check_diff(binary, "H200 fp32 vs bf16", fp32, bf16)
        for table in ("findings", "overview", "modules", "operators", "kernels",
                      "memory_devices", "memory_operators"):
            if counts.get(table, 0) == 0:
                fail(f"H200 {table}: no rows")
        check_show(binary, "H200 fp32", fp32)
    else:
        print(f"skip H200 pair: {fp32} or {bf16} missing")
    if os.path.isdir(dlrm):
        ran = True
        counts = check_diff(binary, "DLRM 8 ranks", dlrm, dlrm)
        if counts.get("comm_ranks") != 8:
            fail(f"DLRM comm_ranks: {counts.get('comm_ranks')} rows, expected 8")
        for table in ("comm_by_collective", "comm_collectives", "comm_stragglers"):
            if counts.get(table, 0) == 0:
                fail(f"DLRM {table}: no rows")
        shown = check_show(binary, "DLRM 8 ranks", dlrm)
        if shown.get("overview") != 8:
            fail(f"DLRM show overview: {shown.get('overview')} rows, expected one per rank")
    else:
        print(f"skip DLRM: {dlrm} missing")
    if not ran:
        return 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
