"""profdiff.show and profdiff.runs: one run's profile, and the runs a server stores."""
import os

import pandas as pd

from . import _cli, _service, _tables
from ._diff import DEFAULT_TIMEOUT_S, _choice, is_run_id
from ._errors import ProfdiffError
from ._proto import enum_word, parse_json, profile_pb2, run_store_pb2


class Profile:
    """One run: the RunProfile proto (`profile`) and its workers' tables as DataFrames with the
    columns of `profdiff show --format csv` (a worker_name and rank column first); per-step
    values (per_step_*) are the row's step samples over the kept steps, as `diff` takes them."""

    tables = tuple(_tables.SHOW_TABLES)

    def __init__(self, profile, *, source, server):
        self.profile = profile
        self.source = source      # as given to show(): paths or a run id
        self.server = server
        self._tables = {}

    @property
    def run(self):
        return self.profile.run

    def table(self, name):
        """overview (one row per worker), steps, operators, kernels, modules or memory."""
        if name not in _tables.SHOW_TABLES:
            raise KeyError(f"no table {name!r}; expected one of {', '.join(_tables.SHOW_TABLES)}")
        if name not in self._tables:
            self._tables[name] = _tables.SHOW_TABLES[name](self.profile)
        return self._tables[name].copy()

    @property
    def overview(self):
        return self.table("overview")

    @property
    def steps(self):
        return self.table("steps")

    @property
    def operators(self):
        return self.table("operators")

    @property
    def kernels(self):
        return self.table("kernels")

    @property
    def modules(self):
        return self.table("modules")

    @property
    def memory(self):
        return self.table("memory")

    @property
    def warnings(self):
        """The run's warnings, then each worker's ("worker W: ...")."""
        return list(self.profile.warnings) + [
            f"worker {w.worker.worker_name}: {text}"
            for w in self.profile.workers for text in w.warnings]

    def __repr__(self):
        where = f" on {self.server}" if self.server else ""
        return f"<profdiff.Profile {self.run}{where}: {len(self.profile.workers)} worker(s)>"

    def __eq__(self, other):
        return isinstance(other, Profile) and self.profile == other.profile

    __hash__ = None


def show(path_or_run, server=None, *, group_by="name", kernels_by="name",
         timeout=DEFAULT_TIMEOUT_S):
    """One run as a Profile: a trace file, a run folder or a list of trace files of one run
    read offline by the `profdiff` binary, or a run id stored on `server` (else
    $PROFDIFF_SERVER), read over gRPC (RunStore.GetProfile)."""
    _choice("group_by", group_by, ("name", "shape"))
    _choice("kernels_by", kernels_by, ("name", "op"))
    paths = ([os.fspath(path_or_run)] if isinstance(path_or_run, (str, os.PathLike))
             else [os.fspath(p) for p in path_or_run])
    if not paths:
        raise ValueError("show: no path or run given")
    server = _service.server_address(server)
    if len(paths) == 1 and is_run_id(paths[0]):
        if not server:
            raise ProfdiffError(f"{paths[0]}: no such file or folder, and no server to look it "
                                "up as a run (server= or PROFDIFF_SERVER)")
        request = run_store_pb2.GetProfileRequest(
            run=paths[0],
            operator_grouping=(profile_pb2.GROUPING_NAME_AND_SHAPE if group_by == "shape"
                               else profile_pb2.GROUPING_NAME),
            kernel_grouping=(profile_pb2.GROUPING_NAME_AND_OP if kernels_by == "op"
                             else profile_pb2.GROUPING_NAME))
        with _service.Service(server, timeout) as service:
            profile = service.call(service.store.GetProfile, request, f"show {paths[0]}")
        # The stored profile has no per-step values: `profdiff show` adds them.
        _tables.add_per_step_values(profile)
        return Profile(profile, source=path_or_run, server=server)
    text = _cli.run(["show", *paths, "--format", "json", "--view", "all", "--top", "0",
                     "--group-by", group_by, "--kernels-by", kernels_by])
    profile = parse_json(text, profile_pb2.RunProfile, f"profdiff show {' '.join(paths)}")
    return Profile(profile, source=path_or_run, server=None)


def runs(server=None, *, filter="", timeout=DEFAULT_TIMEOUT_S):
    """The runs stored on `server` (else $PROFDIFF_SERVER) as a DataFrame, one row per run by
    run id: run, state ("open", "complete", "partial"), world_size, worker_count,
    closed_worker_count, event_count, created and updated (UTC timestamps), warnings."""
    server = _service.server_address(server)
    if not server:
        raise ProfdiffError("runs: no server given (server= or PROFDIFF_SERVER)")
    stored = []
    with _service.Service(server, timeout) as service:
        token = ""
        while True:
            page = service.call(service.store.ListRuns,
                                run_store_pb2.ListRunsRequest(filter=filter, page_size=1000,
                                                              page_token=token), "runs")
            stored += page.runs
            token = page.next_page_token
            if not token:
                break
    state = run_store_pb2.RunState.DESCRIPTOR
    frame = pd.DataFrame({
        "run": pd.Series([r.run for r in stored], dtype="object"),
        "state": pd.Series([enum_word(state, r.state) for r in stored], dtype="object"),
        "world_size": pd.Series([r.world_size for r in stored], dtype="int64"),
        "worker_count": pd.Series([r.worker_count for r in stored], dtype="int64"),
        "closed_worker_count": pd.Series([r.closed_worker_count for r in stored], dtype="int64"),
        "event_count": pd.Series([r.event_count for r in stored], dtype="int64"),
        "created": pd.to_datetime(pd.Series([r.created_unix_ms for r in stored], dtype="int64"),
                                  unit="ms", utc=True),
        "updated": pd.to_datetime(pd.Series([r.updated_unix_ms for r in stored], dtype="int64"),
                                  unit="ms", utc=True),
        "warnings": pd.Series(["; ".join(r.warnings) for r in stored], dtype="object"),
    })
    return frame


__all__ = ["Profile", "show", "runs"]
