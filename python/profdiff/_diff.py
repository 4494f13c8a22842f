"""profdiff.diff: two runs compared, offline through the CLI or by the Differ service."""
import html
import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import List

from . import _cli, _service, _tables
from ._errors import ProfdiffError
from ._proto import diff_pb2, differ_pb2, enum_word, parse_json, profile_pb2

# --view names (client/diff_command.cc ParseView); "comm" and "communication" are one view.
_VIEWS = {
    "overview": diff_pb2.DIFF_VIEW_OVERVIEW,
    "modules": diff_pb2.DIFF_VIEW_MODULES,
    "operators": diff_pb2.DIFF_VIEW_OPERATORS,
    "kernels": diff_pb2.DIFF_VIEW_KERNELS,
    "ranks": diff_pb2.DIFF_VIEW_RANKS,
    "findings": diff_pb2.DIFF_VIEW_FINDINGS,
    "comm": diff_pb2.DIFF_VIEW_COMMUNICATION,
    "communication": diff_pb2.DIFF_VIEW_COMMUNICATION,
    "memory": diff_pb2.DIFF_VIEW_MEMORY,
}
_VIEW_FLAG = {diff_pb2.DIFF_VIEW_COMMUNICATION: "comm"}

# Keyword options of diff(): each a `profdiff diff` flag (underscores for dashes).
OPTIONS = ("top", "min_change", "min_change_us", "normalize", "ranks", "per_rank", "group_by",
           "kernels_by", "path", "sort", "filter", "compare", "steps", "device", "short_names",
           "timeout")
DEFAULT_TIMEOUT_S = 300.0  # the CLI's --timeout default (5m)


def _choice(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{name}={value!r}: expected one of {', '.join(map(repr, allowed))}")
    return value


def _non_negative(name, value, kind):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (
            kind is int and not float(value).is_integer()):
        raise ValueError(f"{name}={value!r}: expected a number >= 0")
    return kind(value)


def _number_list(name, value):
    """`ranks`/`steps`: an int, ints, or the CLI's text ("0,2-3"); returns the ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if isinstance(value, str):
        numbers = []
        for part in filter(None, value.split(",")):
            match = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
            if not match:
                raise ValueError(f"{name}={value!r}: expected numbers and ranges such as 0,2-3")
            low, high = int(match.group(1)), int(match.group(2) or match.group(1))
            if high < low:
                raise ValueError(f"{name}={value!r}: {part} is not a range low-high")
            numbers += range(low, high + 1)
        value = numbers
    try:
        numbers = [int(v) for v in value]
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r}: expected 'all', an int, ints, or '0,2-3'") from None
    if not numbers or any(n < 0 for n in numbers):
        raise ValueError(f"{name}={value!r}: expected ints >= 0")
    return numbers


class DiffArgs:
    """diff()'s views and options, checked once, as CLI flags or as a DiffRequest, so the two
    ways to a report ask the same."""

    def __init__(self, views, options):
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise TypeError(f"profdiff.diff: unknown option(s) {', '.join(unknown)}; "
                            f"expected {', '.join(OPTIONS)}")
        if views is None or views == "all":
            views = []
        elif isinstance(views, str):
            views = [v.strip() for v in views.split(",") if v.strip()]
        self.views = []
        for v in views:
            view = _VIEWS.get(v)
            if view is None:
                raise ValueError(f"views: {v!r} is not one of all, {', '.join(_VIEWS)}")
            if view not in self.views:
                self.views.append(view)
        o = dict(options)
        self.top = _non_negative("top", o.get("top", 0), int)  # JSON's default: every row
        self.min_change = (None if o.get("min_change") is None
                           else _non_negative("min_change", o["min_change"], float))
        self.min_change_us = (None if o.get("min_change_us") is None
                              else _non_negative("min_change_us", o["min_change_us"], float))
        self.normalize = _choice("normalize", o.get("normalize", "per-step").replace("_", "-"),
                                 ("per-step", "total"))
        ranks = o.get("ranks")
        self.all_ranks = ranks == "all"
        self.ranks = [] if ranks is None or self.all_ranks else _number_list("ranks", ranks)
        # As the CLI's CSV of every view: with all views, each rank's row too (d.ranks).
        self.per_rank = bool(o.get("per_rank", not self.views))
        self.group_by = _choice("group_by", o.get("group_by", "name"), ("name", "shape"))
        self.kernels_by = _choice("kernels_by", o.get("kernels_by", "name"), ("name", "op"))
        self.path = str(o.get("path") or "")
        self.sort = str(o.get("sort") or "")
        self.filter = str(o.get("filter") or "")
        self.compare = _choice("compare", o.get("compare", "profdiff"), ("profdiff", "hta"))
        steps = o.get("steps")
        self.all_steps = steps == "all"
        self.steps = [] if steps is None or self.all_steps else _number_list("steps", steps)
        self.device = o.get("device")
        if self.device is not None:
            _choice("device", self.device, ("cpu", "gpu", "all"))
        self.short_names = bool(o.get("short_names", False))
        if self.compare != "hta" and (steps is not None or self.device is not None
                                      or self.short_names):
            raise ValueError("steps, device and short_names apply to compare='hta'")
        self.timeout = _non_negative("timeout", o.get("timeout", DEFAULT_TIMEOUT_S), float)

    def flags(self, *, html_report=False):
        """The `profdiff diff` flags (json unless `html_report`)."""
        flags = ["--timeout", f"{self.timeout:g}s"]
        if not html_report:
            flags += ["--format", "json", "--top", str(self.top)]
            if self.views:
                flags += ["--view", ",".join(_VIEW_FLAG.get(v, diff_pb2.DiffView.Name(v)[10:]
                                                           .lower()) for v in self.views)]
            if self.sort:
                flags += ["--sort", self.sort]
            if self.filter:
                flags += ["--filter", self.filter]
        # The HTML page shows every view and sorts and filters its tables itself.
        if self.min_change is not None:
            flags += ["--min-change", repr(self.min_change)]
        if self.min_change_us is not None:
            flags += ["--min-change-us", repr(self.min_change_us)]
        flags += ["--normalize", self.normalize, "--group-by", self.group_by,
                  "--kernels-by", self.kernels_by]
        if self.all_ranks or self.ranks:
            flags += ["--ranks", "all" if self.all_ranks else ",".join(map(str, self.ranks))]
        if self.per_rank:
            flags.append("--per-rank")
        if self.path:
            flags += ["--path", self.path]
        if self.compare == "hta":
            flags += ["--compare", "hta"]
            if self.all_steps or self.steps:
                flags += ["--steps", "all" if self.all_steps else ",".join(map(str, self.steps))]
            if self.device:
                flags += ["--device", self.device]
            if self.short_names:
                flags.append("--short-names")
        return flags

    def request(self, baseline, experimental):
        """The DiffRequest `profdiff diff RUN RUN --format json` sends
        (client/diff_command.cc RunDiffCommand)."""
        options = diff_pb2.DiffOptions(
            views=self.views, path=self.path, per_rank=self.per_rank, sort=self.sort,
            filter=self.filter, top=self.top, ranks=self.ranks, hta_all_ranks=self.all_ranks,
            hta_steps=self.steps, hta_all_steps=self.all_steps,
            hta_short_names=self.short_names,
            normalize=(diff_pb2.NORMALIZATION_TOTAL if self.normalize == "total"
                       else diff_pb2.NORMALIZATION_PER_STEP),
            hta_device={"cpu": diff_pb2.HTA_DEVICE_CPU, "gpu": diff_pb2.HTA_DEVICE_GPU}.get(
                self.device, diff_pb2.HTA_DEVICE_ALL))
        if self.compare == "hta":
            options.compare = diff_pb2.COMPARE_MODE_HTA
        if self.min_change is not None:
            options.min_change_pct = self.min_change
        if self.min_change_us is not None:
            options.min_change_us = self.min_change_us
        return differ_pb2.DiffRequest(
            baseline_run=baseline, experimental_run=experimental, options=options,
            operator_grouping=(profile_pb2.GROUPING_NAME_AND_SHAPE if self.group_by == "shape"
                               else profile_pb2.GROUPING_NAME),
            kernel_grouping=(profile_pb2.GROUPING_NAME_AND_OP if self.kernels_by == "op"
                             else profile_pb2.GROUPING_NAME))


_TRACE_NAME = re.compile(r"\.json(\.gz)?$")
_RUN_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")


def is_run_id(argument):
    """As the CLI decides (client/run_source.cc IsRunIdArgument): no such file or folder, not
    a trace file's name, and a valid run id."""
    text = os.fspath(argument)
    return (not os.path.exists(text) and not _TRACE_NAME.search(text)
            and _RUN_ID.fullmatch(text) is not None and text not in (".", ".."))


@dataclass
class Evidence:
    """A report row a finding's numbers come from (diff.proto FindingEvidence)."""
    table: str            # "overview", "modules", "operators", "kernels", "ranks", ...
    name: str
    path: str
    index_path: str
    input_shapes: str
    unit: str             # "us", "bytes", "calls", "fraction", "%"
    baseline: float
    experimental: float
    delta: float
    baseline_calls: float
    experimental_calls: float
    significant: bool
    status: str           # modules: "matched", "added", ...
    change: str           # operators and kernels: "increased", ...


@dataclass
class Finding:
    """One sentence of "What changed" with the rows it was built from."""
    text: str
    kind: str             # "step_time", "bottleneck", "module", ...
    significant: bool
    delta_us: float
    delta_bytes: float
    share_of_step_change: float
    evidence: List[Evidence] = field(default_factory=list)

    def __str__(self):
        return self.text


def _findings(report):
    def word(message, name):
        return enum_word(message.DESCRIPTOR.fields_by_name[name].enum_type,
                         getattr(message, name))

    out = []
    for f in report.findings:
        evidence = [Evidence(
            table=word(e, "table"), name=e.name, path=e.path, index_path=e.index_path,
            input_shapes=e.input_shapes, unit=word(e, "unit"), baseline=e.baseline,
            experimental=e.experimental, delta=e.delta, baseline_calls=e.baseline_calls,
            experimental_calls=e.experimental_calls, significant=e.significant,
            status=word(e, "status"), change=word(e, "change")) for e in f.evidence]
        out.append(Finding(text=f.text, kind=word(f, "kind"), significant=f.significant,
                           delta_us=f.delta_us, delta_bytes=f.delta_bytes,
                           share_of_step_change=f.share_of_step_change, evidence=evidence))
    return out


class Diff:
    """A diff of two runs: the DiffReport proto (`report`), its findings, and every table as a
    DataFrame with the columns of the CLI's CSV (`table(name)`; see docs/python.md)."""

    def __init__(self, report, *, baseline, experimental, server, args):
        self.report = report
        self.baseline = baseline          # as given to diff(): a path or a run id
        self.experimental = experimental
        self.server = server              # the differ's address, None offline
        self._args = args
        self._tables = {}
        self._html = None

    # -- tables
    def table(self, name):
        """The table `name` of `profdiff diff --format csv` (findings, overview, modules,
        operators, kernels, ranks, comm_by_collective, comm_collectives, comm_ranks,
        comm_stragglers, memory_devices, memory_holders, memory_operators, memory_modules,
        hta) as a DataFrame; a fresh copy each call."""
        if name not in _tables.DIFF_TABLES:
            raise KeyError(f"no table {name!r}; expected one of {', '.join(_tables.DIFF_TABLES)}")
        if name not in self._tables:
            self._tables[name] = _tables.DIFF_TABLES[name](self.report)
        return self._tables[name].copy()

    tables = tuple(_tables.DIFF_TABLES)

    @property
    def findings(self):
        """"What changed": Finding objects, most important first."""
        return _findings(self.report)

    @property
    def overview(self):
        return self.table("overview")

    @property
    def modules(self):
        """The aligned module tree, flattened in tree order (depth, index_path, path)."""
        return self.table("modules")

    @property
    def operators(self):
        return self.table("operators")

    @property
    def kernels(self):
        return self.table("kernels")

    @property
    def memory(self):
        """Memory by operator (memory_operators); table('memory_devices'), 'memory_modules'
        and 'memory_holders' have the rest."""
        return self.table("memory_operators")

    @property
    def communication(self):
        """Collectives per message size (comm_collectives); table('comm_by_collective'),
        'comm_ranks' and 'comm_stragglers' have the rest."""
        return self.table("comm_collectives")

    @property
    def ranks(self):
        """Each rank's mean step and breakdown (needs per_rank=True or views 'ranks')."""
        return self.table("ranks")

    # -- HTML
    def html(self):
        """The self-contained HTML report (`profdiff diff ... --format html`), made once."""
        if self._html is None:
            with tempfile.TemporaryDirectory(prefix="profdiff-") as folder:
                path = os.path.join(folder, "report.html")
                self._write_html(path)
                with open(path, encoding="utf-8") as f:
                    self._html = f.read()
        return self._html

    def to_html(self, path):
        """Writes the HTML report to `path`."""
        if self._html is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(self._html)
        else:
            self._write_html(os.fspath(path))

    def _write_html(self, path):
        args = ["diff", os.fspath(self.baseline), os.fspath(self.experimental), "--format",
                "html", "-o", path, *self._args.flags(html_report=True)]
        if self.server:
            args += ["--server", self.server]
        _cli.run(args)

    def _repr_html_(self):
        # Jupyter: the report in an iframe of its own, so its styles and scripts neither
        # reach nor feel the notebook's page.
        return (f'<iframe srcdoc="{html.escape(self.html(), quote=True)}" '
                'style="width: 100%; height: 800px; border: 0"></iframe>')

    def __repr__(self):
        where = f" on {self.server}" if self.server else ""
        headline = self.report.findings[0].text if self.report.findings else "no findings"
        return (f"<profdiff.Diff {self.report.baseline.run} -> "
                f"{self.report.experimental.run}{where}: {headline}>")

    def __eq__(self, other):
        return isinstance(other, Diff) and self.report == other.report

    __hash__ = None


def diff(baseline, experimental, *, server=None, views=None, **options):
    """Compares two runs and returns a Diff.

    `baseline` and `experimental` are trace files or run folders, read offline by the
    `profdiff` binary ($PROFDIFF_BIN, else PATH), or run ids stored on the server: two run ids
    are diffed by the Differ service at `server` (else $PROFDIFF_SERVER) over gRPC; a run id
    beside a path goes through the CLI with --server. Both ways give the same report.

    `views`: None (all), a name or names among findings, overview, modules, operators,
    kernels, comm, memory, ranks. `options`: top, min_change, min_change_us, normalize
    ("per-step" | "total"), ranks ("all", ints, "0,2-3"), per_rank, group_by ("name" |
    "shape"), kernels_by ("name" | "op"), path, sort, filter, compare ("profdiff" | "hta"),
    steps, device, short_names (HTA), timeout (seconds, server calls).
    """
    args = DiffArgs(views, options)
    server = _service.server_address(server)
    stored = [is_run_id(side) for side in (baseline, experimental)]
    if any(stored) and not server:
        names = [os.fspath(s) for s, is_run in zip((baseline, experimental), stored) if is_run]
        raise ProfdiffError(f"{', '.join(names)}: no such file or folder, and no server to look "
                            "it up as a run (server= or PROFDIFF_SERVER)")
    if all(stored):
        with _service.Service(server, args.timeout) as service:
            report = service.call(service.differ.Diff,
                                  args.request(os.fspath(baseline), os.fspath(experimental)),
                                  f"diff {baseline} {experimental}")
    else:
        command = ["diff", os.fspath(baseline), os.fspath(experimental), *args.flags()]
        if any(stored):
            command += ["--server", server]
        report = _parse_report(_cli.run(command), f"profdiff diff {baseline} {experimental}")
        if not any(stored):
            server = None
    return Diff(report, baseline=baseline, experimental=experimental, server=server, args=args)


def _parse_report(text, what):
    return parse_json(text, diff_pb2.DiffReport, what)


__all__ = ["Diff", "Finding", "Evidence", "diff", "is_run_id"]
