"""Fixtures of the profdiff package's tests: the built binaries, the H200 trace pair, and a
real aggregator + differ on 127.0.0.1 holding that pair as two runs.

Environment (tests/python/run_pytest.sh sets it): PROFDIFF_BIN (the CLI), PROFDIFF_BUILD_DIR
(the build tree: agent, aggregator, differ), PROFDIFF_TRACES (default ../shared/traces).
"""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PROFDIFF_BUILD_DIR") or REPO / "build")
# Resolved: the agent stores a file's absolute path (source_path), the CLI the path as given.
TRACES = Path(os.environ.get("PROFDIFF_TRACES") or REPO.parent / "shared" / "traces").resolve()
H200 = TRACES / "profdiff_h200"
FP32 = H200 / "transformer-fp32.pt.trace.json.gz"
BF16 = H200 / "transformer-bf16.pt.trace.json.gz"


def binary(relative):
    path = BUILD / relative
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"not built: {path}")
    return path


@pytest.fixture(scope="session")
def cli():
    path = Path(os.environ.get("PROFDIFF_BIN") or BUILD / "client" / "profdiff")
    if not path.is_file():
        pytest.skip(f"not built: {path}")
    os.environ["PROFDIFF_BIN"] = str(path)  # what the package runs
    return path


@pytest.fixture(scope="session")
def h200_pair():
    if not (FP32.is_file() and BF16.is_file()):
        pytest.skip(f"needs the H200 pair under {H200}")
    return FP32, BF16


def run_cli(cli, *args, check=True):
    done = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"profdiff {' '.join(map(str, args))} exited {done.returncode}: "
                             f"{done.stderr}")
    return done


def wait_for_runs(cli, server, wanted, timeout_s=60):
    """Polls `profdiff runs --format json` until every run in `wanted` is COMPLETE."""
    deadline = time.monotonic() + timeout_s
    while True:
        listing = json.loads(run_cli(cli, "runs", "--format", "json", "--server", server).stdout)
        states = {r["run"]: r["state"] for r in listing.get("runs", [])}
        if all(states.get(run) == "RUN_STATE_COMPLETE" for run in wanted):
            return states
        if time.monotonic() > deadline:
            raise AssertionError(f"runs {sorted(wanted)} not complete after {timeout_s} s: {states}")
        time.sleep(0.2)


class LocalServers:
    """deploy/local/profdiff-local: aggregator and differ on free ports in `data`."""

    def __init__(self, data):
        self.data = data
        self.launcher = REPO / "deploy" / "local" / "profdiff-local"
        done = subprocess.run([str(self.launcher), "start", "--data-dir", str(data),
                               "--aggregator-port", "0", "--differ-port", "0",
                               "--bin-dir", str(BUILD)], capture_output=True, text=True,
                              timeout=60)
        if done.returncode != 0:
            raise AssertionError(f"profdiff-local start exited {done.returncode}: {done.stderr}")
        env = {}
        for line in (data / "profdiff-local.env").read_text().splitlines():
            if line.startswith("export "):
                key, _, value = line[len("export "):].partition("=")
                env[key] = value
        self.differ = env["PROFDIFF_SERVER"]
        self.aggregator = env["PROFDIFF_AGGREGATOR"]

    def upload(self, run, *files):
        agent = binary("agent/profdiff-agent")
        done = subprocess.run([str(agent), "upload", "--aggregator", self.aggregator, "--run", run,
                               "--state-dir", str(self.data / "agent-state"), "--timeout", "60s",
                               *map(str, files)], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"upload of {run} exited {done.returncode}: {done.stderr}")

    def stop(self):
        subprocess.run([str(self.launcher), "stop", "--data-dir", str(self.data)],
                       capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="session")
def servers(tmp_path_factory, cli):
    for component in ("aggregator/profdiff-aggregator", "differ/profdiff-differ",
                      "agent/profdiff-agent"):
        binary(component)
    local = LocalServers(tmp_path_factory.mktemp("profdiff-local"))
    try:
        yield local
    finally:
        local.stop()


@pytest.fixture(scope="session")
def h200_runs(servers, cli, h200_pair):
    """The H200 pair stored as runs named as the files are (transformer-fp32, -bf16), so the
    offline report names its sides alike."""
    fp32, bf16 = h200_pair
    servers.upload("transformer-fp32", fp32)
    servers.upload("transformer-bf16", bf16)
    wait_for_runs(cli, servers.differ, {"transformer-fp32", "transformer-bf16"})
    return "transformer-fp32", "transformer-bf16"


def first_difference(a, b, path=""):
    """Where two messages first differ ("" when equal), for an assertion's message."""
    if a == b:
        return ""
    for field in a.DESCRIPTOR.fields:
        x, y = getattr(a, field.name), getattr(b, field.name)
        if x == y:
            continue
        where = f"{path}.{field.name}"
        if field.message_type is None:
            return f"{where}: {x!r:.200} != {y!r:.200}"
        if field.label != field.LABEL_REPEATED:
            return first_difference(x, y, where)
        if len(x) != len(y):
            return f"{where}: {len(x)} != {len(y)} items"
        for i, (p, q) in enumerate(zip(x, y)):
            if p != q:
                return first_difference(p, q, f"{where}[{i}]")
    return f"{path}: differ (unknown fields?)"
