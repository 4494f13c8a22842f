"""Reports and profiles as pandas DataFrames, column for column the CLI's CSV tables.

`profdiff diff --format csv` (client/diff_csv.cc) and `profdiff show --format csv`
(client/profile_csv.cc) define each table: its columns, their order, and which values are
missing (an empty cell there, NaN here). The frames follow them exactly, so a DataFrame and
`pd.read_csv` of the CLI's file hold the same table (tests/python checks every one):

- a value a side does not have (a GPU metric of a CPU run, a kernel's per-call mean on the side
  that never launched it, a collective's size its trace does not record) is NaN, never 0;
- a percentage of a baseline of 0 is NaN when the value appeared (no percentage exists), 0 when
  both are 0; non-finite numbers are NaN;
- numbers are float64, counts and ranks int64 (float64 where they can be missing), flags bool,
  names and enum words (the CLI's: "unchanged", "Average step time") str.
"""
import math

import pandas as pd

from ._proto import diff_pb2, enum_word, profile_pb2

_FLOAT, _INT, _BOOL, _TEXT = "float64", "int64", "bool", "object"


class _Columns:
    """Named columns, each a function of a row and a dtype; `frame(rows)` builds the table."""

    def __init__(self):
        self._columns = []

    def add(self, name, dtype, get):
        self._columns.append((name, dtype, get))

    def text(self, name, get):
        self.add(name, _TEXT, get)

    def integer(self, name, get):
        self.add(name, _INT, get)

    def number(self, name, get):
        """A float column; `get` returns None for a missing value."""
        self.add(name, _FLOAT, get)

    def flag(self, name, get):
        self.add(name, _BOOL, get)

    def frame(self, rows):
        data = {}
        for name, dtype, get in self._columns:
            values = [get(row) for row in rows]
            if dtype == _FLOAT:
                values = [_finite(v) for v in values]
            data[name] = pd.Series(values, dtype=dtype)
        return pd.DataFrame(data, columns=[name for name, _, _ in self._columns])


def _finite(value):
    # CsvNumber writes non-finite numbers as an empty cell.
    if value is None or not math.isfinite(value):
        return math.nan
    return float(value)


def _word(message, field):
    """The CSV's word for the enum `field` of `message`."""
    descriptor = message.DESCRIPTOR.fields_by_name[field].enum_type
    return enum_word(descriptor, getattr(message, field))


def _percent(baseline, experimental, pct):
    # client/diff_csv.cc PercentCell.
    if baseline == 0:
        return 0.0 if experimental == 0 else None
    return pct


def _add_compared(c, fields, baseline, experimental, delta, delta_pct=None, missing=None):
    """baseline_X and experimental_X of each field X, then delta_X, then delta_pct_X
    (client/diff_csv.cc AddCompared); `missing(row, field, side)` names what a side lacks."""
    def lacks(row, field, side):
        return missing is not None and missing(row, field, side)

    def either(row, field):
        return lacks(row, field, "baseline") or lacks(row, field, "experimental")

    for side, values in (("baseline", baseline), ("experimental", experimental)):
        for f in fields:
            c.number(f"{side}_{f}", lambda r, f=f, side=side, values=values:
                     None if lacks(r, f, side) else getattr(values(r), f))
    for f in fields:
        c.number(f"delta_{f}", lambda r, f=f: None if either(r, f) else getattr(delta(r), f))
    if delta_pct is None:
        return
    for f in fields:
        c.number(f"delta_pct_{f}", lambda r, f=f: None if either(r, f) else _percent(
            getattr(baseline(r), f), getattr(experimental(r), f), getattr(delta_pct(r), f)))


def _add_noise(c, prefix, unit, noise):
    """client/diff_csv.cc AddNoise: bounds only with an interval, a side's standard deviation
    only with two samples or more."""
    c.flag(prefix + "significant", lambda r: noise(r).significant)
    c.number(prefix + "ci_low" + unit, lambda r: noise(r).ci_low if noise(r).has_interval else None)
    c.number(prefix + "ci_high" + unit,
             lambda r: noise(r).ci_high if noise(r).has_interval else None)
    c.integer(prefix + "baseline_samples", lambda r: noise(r).baseline_samples)
    c.integer(prefix + "experimental_samples", lambda r: noise(r).experimental_samples)
    c.number(prefix + "baseline_stddev" + unit,
             lambda r: noise(r).baseline_stddev if noise(r).baseline_samples >= 2 else None)
    c.number(prefix + "experimental_stddev" + unit,
             lambda r: noise(r).experimental_stddev if noise(r).experimental_samples >= 2
             else None)


# ------------------------------------------------------------------------------ DiffReport tables
def findings_frame(report):
    rows = list(enumerate(report.findings, start=1))
    c = _Columns()
    c.integer("finding", lambda r: r[0])
    c.text("kind", lambda r: _word(r[1], "kind"))
    c.flag("significant", lambda r: r[1].significant)
    c.number("delta_us", lambda r: r[1].delta_us)
    c.number("delta_bytes", lambda r: r[1].delta_bytes)
    c.number("share_of_step_change", lambda r: r[1].share_of_step_change)
    c.text("text", lambda r: r[1].text)
    return c.frame(rows)


def overview_frame(report):
    def text_row(r):  # the device's name: text, not numbers
        return r.unit == diff_pb2.VALUE_UNIT_UNSPECIFIED and r.baseline_text != ""

    def compared(r):
        return not text_row(r) and not r.baseline_missing and not r.experimental_missing

    c = _Columns()
    c.text("metric", lambda r: _word(r, "metric"))
    c.text("unit", lambda r: _word(r, "unit"))
    c.number("baseline", lambda r: None if r.baseline_missing or text_row(r) else r.baseline)
    c.number("experimental",
             lambda r: None if r.experimental_missing or text_row(r) else r.experimental)
    c.number("delta", lambda r: r.delta if compared(r) else None)
    c.number("delta_pct", lambda r: _percent(r.baseline, r.experimental, r.delta_pct)
             if compared(r) else None)
    c.text("baseline_text", lambda r: r.baseline_text)
    c.text("experimental_text", lambda r: r.experimental_text)
    _add_noise(c, "noise_", "", lambda r: r.noise)
    return c.frame(list(report.overview.rows))


def _flatten(node, depth, out):
    out.append((node, depth))
    for child in node.children:
        _flatten(child, depth + 1, out)


def modules_frame(report):
    """Every node of the aligned tree in tree order (the CSV's rows without --top, --filter or
    --depth); `depth` 0 is the root, or the --path node."""
    rows = []
    if report.HasField("modules"):
        _flatten(report.modules, 0, rows)
    c = _Columns()
    c.integer("depth", lambda r: r[1])
    c.text("index_path", lambda r: r[0].index_path)
    c.text("path", lambda r: r[0].path)
    c.text("name", lambda r: r[0].name)
    c.text("baseline_name", lambda r: r[0].baseline_name)
    c.text("experimental_name", lambda r: r[0].experimental_name)
    c.text("status", lambda r: _word(r[0], "status"))
    c.text("kind", lambda r: _word(r[0], "kind"))
    c.text("compared", lambda r: _word(r[0], "compared"))
    _add_compared(
        c, ["calls", "host_us", "device_us", "compare_us", "backward_us"],
        lambda r: r[0].baseline, lambda r: r[0].experimental, lambda r: r[0].delta,
        # Only a forward module has a backward node.
        missing=lambda r, f, side: (f == "backward_us"
                                    and r[0].kind != profile_pb2.MODULE_NODE_KIND_MODULE))
    c.number("delta_pct", lambda r: _percent(r[0].baseline.compare_us,
                                             r[0].experimental.compare_us, r[0].delta_pct))
    _add_noise(c, "noise_", "_us", lambda r: r[0].noise)
    return c.frame(rows)


def operators_frame(report):
    c = _Columns()
    c.text("name", lambda r: r.name)
    c.text("input_shapes", lambda r: r.input_shapes)
    c.text("change", lambda r: _word(r, "change"))
    c.text("compared", lambda r: _word(r, "compared"))
    _add_compared(c, ["calls", "host_self_us", "host_total_us", "device_self_us",
                      "device_total_us"],
                  lambda r: r.baseline, lambda r: r.experimental, lambda r: r.delta,
                  lambda r: r.delta_pct)
    _add_noise(c, "noise_", "_us", lambda r: r.noise)
    return c.frame(list(report.operators))


def kernels_frame(report):
    def missing(r, f, side):
        # A side that never launched it has no per-call mean, min or max.
        values = r.baseline if side == "baseline" else r.experimental
        return values.calls == 0 and f not in ("calls", "total_us")

    c = _Columns()
    c.text("name", lambda r: r.name)
    c.text("op_name", lambda r: r.op_name)
    c.text("change", lambda r: _word(r, "change"))
    _add_compared(c, ["calls", "total_us", "mean_us", "min_us", "max_us"],
                  lambda r: r.baseline, lambda r: r.experimental, lambda r: r.delta,
                  lambda r: r.delta_pct, missing)
    _add_noise(c, "noise_", "_us", lambda r: r.noise)
    return c.frame(list(report.kernels))


# client/profile_csv.cc MeanStepCsvFields: a step's time and its breakdown.
_STEP_FIELDS = ["duration_us", "kernel_us", "memcpy_us", "memset_us", "communication_us",
                "runtime_us", "dataloader_us", "cpu_exec_us", "other_us", "device_activity_count",
                "collective_us", "collective_exposed_us"]


def ranks_frame(report):
    c = _Columns()
    c.text("side", lambda r: _word(r, "side"))
    c.integer("rank", lambda r: r.rank)
    c.text("worker_name", lambda r: r.worker_name)
    c.integer("steps", lambda r: r.steps)
    c.flag("slowest_compute", lambda r: r.slowest_compute)
    c.number("compute_us", lambda r: r.compute_us)
    for f in _STEP_FIELDS:
        c.number("average_step_" + f, lambda r, f=f: getattr(r.average_step, f))
    return c.frame(list(report.ranks))


def _collectives_frame(rows, pooled):
    def size_missing(r, side):
        return r.baseline_size_missing if side == "baseline" else r.experimental_size_missing

    c = _Columns()
    c.text("collective", lambda r: r.collective)
    c.text("process_group", lambda r: r.process_group)
    # The row's message size: none when pooled, unknown when a side's trace lacks it.
    c.number("bytes_per_call", lambda r: None if pooled or size_missing(r, "baseline")
             or size_missing(r, "experimental") else r.bytes_per_call)
    c.text("dtype", lambda r: r.dtype)
    c.integer("group_size", lambda r: r.group_size)
    c.text("change", lambda r: _word(r, "change"))
    _add_compared(
        c, ["calls", "bytes", "time_us", "transfer_us", "wait_us", "algbw_gbps", "busbw_gbps",
            "bytes_per_call"],
        lambda r: r.baseline, lambda r: r.experimental, lambda r: r.delta, lambda r: r.delta_pct,
        # Sizes, and the bandwidths computed from them.
        lambda r, f, side: f != "calls" and not f.endswith("_us") and size_missing(r, side))
    _add_noise(c, "calls_noise_", "", lambda r: r.calls_noise)
    _add_noise(c, "bytes_noise_", "_bytes", lambda r: r.bytes_noise)
    _add_noise(c, "time_noise_", "_us", lambda r: r.time_noise)
    _add_noise(c, "transfer_noise_", "_us", lambda r: r.transfer_noise)
    _add_noise(c, "wait_noise_", "_us", lambda r: r.wait_noise)
    _add_noise(c, "bytes_per_call_noise_", "_bytes", lambda r: r.bytes_per_call_noise)
    return c.frame(list(rows))


def comm_by_collective_frame(report):
    return _collectives_frame(report.communication.by_collective, pooled=True)


def comm_collectives_frame(report):
    return _collectives_frame(report.communication.collectives, pooled=False)


def comm_ranks_frame(report):
    c = _Columns()
    c.integer("rank", lambda r: r.rank)
    _add_compared(
        c, ["collective_us", "exposed_us", "overlap_ratio", "wait_us", "transfer_us", "time_us",
            "last_arrivals", "instances"],
        lambda r: r.baseline, lambda r: r.experimental, lambda r: r.delta,
        # The rank is not in that side.
        missing=lambda r, f, side: (r.baseline_missing if side == "baseline"
                                    else r.experimental_missing))
    _add_noise(c, "exposed_noise_", "_us", lambda r: r.exposed_noise)
    _add_noise(c, "wait_noise_", "_us", lambda r: r.wait_noise)
    return c.frame(list(report.communication.ranks))


def comm_stragglers_frame(report):
    comm = report.communication
    rows = []
    if report.HasField("communication"):
        rows = [("baseline", comm.baseline_instances, comm.baseline_verdict,
                 comm.baseline_straggler),
                ("experimental", comm.experimental_instances, comm.experimental_verdict,
                 comm.experimental_straggler)]
    c = _Columns()
    c.text("side", lambda r: r[0])
    c.integer("instances", lambda r: r[1])
    c.flag("straggler_found", lambda r: r[3].found)
    c.number("straggler_rank", lambda r: None if r[3].rank < 0 else r[3].rank)
    c.integer("straggler_last_arrivals", lambda r: r[3].last_arrivals)
    c.integer("straggler_instances", lambda r: r[3].instances)
    c.number("straggler_share", lambda r: r[3].share)
    c.text("straggler_collective", lambda r: r[3].collective)
    c.integer("straggler_matched", lambda r: r[3].matched)
    c.text("verdict", lambda r: r[2])
    return c.frame(rows)


def memory_devices_frame(report):
    def peak_delta_pct(r):
        a, b = r.baseline_peak_bytes, r.experimental_peak_bytes
        return _percent(a, b, 0 if a == 0 else (b - a) / a * 100)

    c = _Columns()
    c.text("device", lambda r: r.device)
    c.flag("allocated_from_bytes", lambda r: r.allocated_from_bytes)
    c.number("baseline_peak_bytes", lambda r: r.baseline_peak_bytes)
    c.number("experimental_peak_bytes", lambda r: r.experimental_peak_bytes)
    c.number("delta_peak_bytes", lambda r: r.experimental_peak_bytes - r.baseline_peak_bytes)
    c.number("delta_pct_peak_bytes", peak_delta_pct)
    c.number("baseline_average_bytes", lambda r: r.baseline_average_bytes)
    c.number("experimental_average_bytes", lambda r: r.experimental_average_bytes)
    c.number("baseline_peak_reserved_bytes", lambda r: r.baseline_peak_reserved_bytes)
    c.number("experimental_peak_reserved_bytes", lambda r: r.experimental_peak_reserved_bytes)
    for side in ("baseline", "experimental"):
        def place(r, side=side):
            return getattr(r, side + "_peak")
        prefix = side + "_peak_"
        c.integer(prefix + "rank", lambda r, place=place: place(r).rank)
        c.number(prefix + "step",
                 lambda r, place=place: place(r).step if place(r).HasField("step") else None)
        c.number(prefix + "step_index", lambda r, place=place:
                 None if place(r).step_index < 0 else place(r).step_index)
        c.integer(prefix + "offset_ns", lambda r, place=place: place(r).offset_ns)
        c.text(prefix + "operator_name", lambda r, place=place: place(r).operator_name)
        c.text(prefix + "module_path", lambda r, place=place: place(r).module_path)
    return c.frame(list(report.memory.devices))


def memory_holders_frame(report):
    rows = []
    for d in report.memory.devices:
        rows += [(d.device, "baseline", h) for h in d.baseline_peak.holders]
        rows += [(d.device, "experimental", h) for h in d.experimental_peak.holders]
    c = _Columns()
    c.text("device", lambda r: r[0])
    c.text("side", lambda r: r[1])
    c.text("operator_name", lambda r: r[2].operator_name)
    c.integer("bytes", lambda r: r[2].bytes)
    # 0 blocks: not counted (frees were not matched to allocations).
    c.number("blocks", lambda r: r[2].blocks if r[2].blocks > 0 else None)
    return c.frame(rows)


def _memory_rows_frame(rows, modules):
    c = _Columns()
    if modules:
        c.text("path", lambda r: r.detail)
        c.text("name", lambda r: r.name)
        c.text("kind", lambda r: _word(r, "kind"))
    else:
        c.text("name", lambda r: r.name)
        c.text("input_shapes", lambda r: r.detail)
    c.text("device", lambda r: r.device)
    c.text("change", lambda r: _word(r, "change"))
    c.text("compared", lambda r: _word(r, "compared"))
    fields = ["calls", "allocation_count", "allocation_bytes", "self_increase_bytes"]
    fields += ["peak_allocated_bytes"] if modules else ["total_allocation_bytes",
                                                        "increase_bytes"]
    _add_compared(c, fields, lambda r: r.baseline, lambda r: r.experimental,
                  lambda r: r.delta, lambda r: r.delta_pct)
    _add_noise(c, "allocation_noise_", "_bytes", lambda r: r.allocation_noise)
    _add_noise(c, "increase_noise_", "_bytes", lambda r: r.increase_noise)
    return c.frame(list(rows))


def memory_operators_frame(report):
    return _memory_rows_frame(report.memory.operators, modules=False)


def memory_modules_frame(report):
    return _memory_rows_frame(report.memory.modules, modules=True)


def hta_frame(report):
    """`--compare hta`: HTA's TraceDiff.compare_traces columns (Control = baseline)."""
    c = _Columns()
    c.text("short_name" if report.options.hta_short_names else "name", lambda r: r.name)
    c.integer("Control_counts", lambda r: r.baseline_counts)
    c.number("Control_total_duration", lambda r: r.baseline_total_duration_us)
    c.integer("Test_counts", lambda r: r.experimental_counts)
    c.number("Test_total_duration", lambda r: r.experimental_total_duration_us)
    c.integer("diff_counts", lambda r: r.diff_counts)
    c.number("diff_duration", lambda r: r.diff_duration_us)
    c.text("counts_change_categories", lambda r: _word(r, "change"))
    return c.frame(list(report.hta_rows))


# The CSV's table names (`profdiff diff --format csv -o DIR/` writes DIR/<name>.csv).
DIFF_TABLES = {
    "findings": findings_frame,
    "overview": overview_frame,
    "modules": modules_frame,
    "operators": operators_frame,
    "kernels": kernels_frame,
    "ranks": ranks_frame,
    "comm_by_collective": comm_by_collective_frame,
    "comm_collectives": comm_collectives_frame,
    "comm_ranks": comm_ranks_frame,
    "comm_stragglers": comm_stragglers_frame,
    "memory_devices": memory_devices_frame,
    "memory_holders": memory_holders_frame,
    "memory_operators": memory_operators_frame,
    "memory_modules": memory_modules_frame,
    "hta": hta_frame,
}


# ------------------------------------------------------------------------------ RunProfile tables
def add_per_step_values(run):
    """Fills the `per_step` messages as `profdiff show` does (client/profile_renderer.cc
    AddPerStepValues): a row's step samples over the kept steps, divided by them; without kept
    steps, its totals. RunStore.GetProfile sends profiles without them ("never stored")."""
    def operators(rows, kept):
        slots = max(kept, 1)
        for r in rows:
            s = r.per_step
            s.Clear()
            if kept == 0:
                for f in ("calls", "host_self_us", "host_total_us", "device_self_us",
                          "device_total_us"):
                    setattr(s, f, getattr(r, f))
                continue
            for x in r.step_samples:
                if 0 <= x.step_index < kept:
                    for f in ("calls", "host_self_us", "host_total_us", "device_self_us",
                              "device_total_us"):
                        setattr(s, f, getattr(s, f) + getattr(x, f) / slots)

    def kernels(rows, kept):
        slots = max(kept, 1)
        for r in rows:
            s = r.per_step
            s.Clear()
            if kept == 0:
                s.calls, s.total_us = r.calls, r.total_us
                continue
            for x in r.step_samples:
                if 0 <= x.step_index < kept:
                    s.calls += x.calls / slots
                    s.total_us += x.total_us / slots

    def modules(node, kept):
        slots = max(kept, 1)
        s = node.per_step
        s.Clear()
        # Self times have no step samples: their totals per kept step.
        s.host_self_us = node.host_self_us / slots
        s.device_self_us = node.device_self_us / slots
        fields = ("calls", "host_us", "device_us", "backward_host_us", "backward_device_us")
        if kept == 0:
            for f in fields:
                setattr(s, f, getattr(node, f))
        else:
            for x in node.step_samples:
                if 0 <= x.step_index < kept:
                    for f in fields:
                        setattr(s, f, getattr(s, f) + getattr(x, f) / slots)
        s.compare_us = s.device_us if s.device_us > 0 else s.host_us
        operators(node.operators, kept)
        kernels(node.kernels, kept)
        for child in node.children:
            modules(child, kept)

    for w in run.workers:
        operators(w.operators, len(w.steps))
        kernels(w.kernels, len(w.steps))
        if w.HasField("modules"):
            modules(w.modules, len(w.steps))


def _add_worker(c):
    # The worker a row belongs to: its name and rank lead every row.
    c.text("worker_name", lambda r: r[0].worker.worker_name)
    c.integer("rank", lambda r: r[0].worker.rank)


def _device_name(w):
    """The device the worker's kernels ran on, else the first listed ("" without any)."""
    if not w.worker.devices:
        return ""
    used = w.worker.devices[0].id if not w.devices else w.devices[0].device
    for d in w.worker.devices:
        if d.id == used:
            return d.name
    return w.worker.devices[0].name


def show_overview_frame(run):
    c = _Columns()
    _add_worker(c)
    c.integer("world_size", lambda r: r[0].worker.world_size)
    c.text("backend", lambda r: r[0].worker.backend)
    c.text("device_name", lambda r: _device_name(r[0]))
    c.integer("steps", lambda r: len(r[0].steps))
    c.integer("steps_dropped", lambda r: r[0].steps_dropped)
    for f in _STEP_FIELDS:
        c.number("average_step_" + f, lambda r, f=f: getattr(r[0].average_step, f))
    # Where the trace does not record a GPU metric it is missing, never 0.
    c.number("gpu_utilization", lambda r: r[0].gpu_utilization
             if r[0].devices or r[0].worker.devices else None)
    c.number("sm_efficiency", lambda r: r[0].sm_efficiency
             if any(d.has_sm_efficiency for d in r[0].devices) else None)
    c.number("achieved_occupancy_pct", lambda r: r[0].achieved_occupancy_pct
             if any(d.has_occupancy for d in r[0].devices) else None)
    c.integer("span_count", lambda r: r[0].span_count)
    c.integer("event_count", lambda r: r[0].event_count)
    c.integer("unknown_category_count", lambda r: r[0].worker.unknown_category_count)
    c.integer("dropped_event_count", lambda r: r[0].worker.dropped_event_count)
    return c.frame([(w,) for w in run.workers])


def _items(run, field):
    return [(w, item) for w in run.workers for item in getattr(w, field)]


def show_steps_frame(run):
    c = _Columns()
    _add_worker(c)
    c.integer("step", lambda r: r[1].step)
    c.number("start_us", lambda r: r[1].start_us)
    for f in _STEP_FIELDS + ["host_start_us", "host_duration_us"]:
        c.number(f, lambda r, f=f: getattr(r[1], f))
    return c.frame(_items(run, "steps"))


def show_operators_frame(run):
    fields = ["calls", "host_self_us", "host_total_us", "device_self_us", "device_total_us"]
    c = _Columns()
    _add_worker(c)
    c.text("name", lambda r: r[1].name)
    c.text("input_shapes", lambda r: r[1].input_shapes)
    c.integer("calls", lambda r: r[1].calls)
    for f in fields[1:]:
        c.number(f, lambda r, f=f: getattr(r[1], f))
    for f in fields:
        c.number("per_step_" + f, lambda r, f=f: getattr(r[1].per_step, f))
    return c.frame(_items(run, "operators"))


def show_kernels_frame(run):
    c = _Columns()
    _add_worker(c)
    c.text("name", lambda r: r[1].name)
    c.text("op_name", lambda r: r[1].op_name)
    c.integer("calls", lambda r: r[1].calls)
    for f in ("total_us", "mean_us", "max_us", "min_us"):
        c.number(f, lambda r, f=f: getattr(r[1], f))
    # No launch recorded them (ROCm traces): unknown, not 0.
    c.number("blocks_per_sm",
             lambda r: None if r[1].blocks_per_sm_missing else r[1].blocks_per_sm)
    c.number("achieved_occupancy_pct",
             lambda r: None if r[1].occupancy_missing else r[1].achieved_occupancy_pct)
    c.number("per_step_calls", lambda r: r[1].per_step.calls)
    c.number("per_step_total_us", lambda r: r[1].per_step.total_us)
    return c.frame(_items(run, "kernels"))


def show_modules_frame(run):
    rows = []

    def flatten(w, node, depth, index_path):
        rows.append((w, node, depth, index_path))
        for i, child in enumerate(node.children):
            flatten(w, child, depth + 1, f"{index_path}/{i}" if index_path else str(i))

    for w in run.workers:
        if w.HasField("modules"):
            flatten(w, w.modules, 0, "")

    def backward(r, us):  # only a forward module has a backward node
        return us if r[1].kind == profile_pb2.MODULE_NODE_KIND_MODULE else None

    c = _Columns()
    _add_worker(c)
    c.integer("depth", lambda r: r[2])
    c.text("index_path", lambda r: r[3])
    c.text("path", lambda r: r[1].path)
    c.text("name", lambda r: r[1].name)
    c.text("kind", lambda r: _word(r[1], "kind"))
    c.integer("calls", lambda r: r[1].calls)
    for f in ("host_us", "host_self_us", "device_us", "device_self_us", "device_union_us",
              "compare_us"):
        c.number(f, lambda r, f=f: getattr(r[1], f))
    for f in ("calls", "host_us", "host_self_us", "device_us", "device_self_us", "compare_us"):
        c.number("per_step_" + f, lambda r, f=f: getattr(r[1].per_step, f))
    c.number("backward_host_us", lambda r: backward(r, r[1].backward_host_us))
    c.number("backward_device_us", lambda r: backward(r, r[1].backward_device_us))
    c.number("per_step_backward_host_us",
             lambda r: backward(r, r[1].per_step.backward_host_us))
    c.number("per_step_backward_device_us",
             lambda r: backward(r, r[1].per_step.backward_device_us))
    return c.frame(rows)


def show_memory_frame(run):
    c = _Columns()
    _add_worker(c)
    c.text("device", lambda r: r[1].device)
    c.integer("peak_allocated_bytes", lambda r: r[1].peak_allocated_bytes)
    c.number("average_allocated_bytes", lambda r: r[1].average_allocated_bytes)
    c.integer("peak_reserved_bytes", lambda r: r[1].peak_reserved_bytes)
    c.integer("event_count", lambda r: r[1].event_count)
    c.flag("allocated_from_bytes", lambda r: r[1].allocated_from_bytes)
    c.number("peak_step", lambda r: r[1].peak_step if r[1].HasField("peak_step") else None)
    c.number("peak_step_index",
             lambda r: None if r[1].peak_step_index < 0 else r[1].peak_step_index)
    c.integer("peak_offset_ns", lambda r: r[1].peak_offset_ns)
    c.text("peak_operator", lambda r: r[1].peak_operator)
    c.text("peak_module", lambda r: r[1].peak_module)
    return c.frame(_items(run, "memory"))


SHOW_TABLES = {
    "overview": show_overview_frame,
    "steps": show_steps_frame,
    "operators": show_operators_frame,
    "kernels": show_kernels_frame,
    "modules": show_modules_frame,
    "memory": show_memory_frame,
}

__all__ = ["DIFF_TABLES", "SHOW_TABLES", "add_per_step_values", "diff_pb2"]
