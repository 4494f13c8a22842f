"""profdiff.torch.trace_handler: in a CPU training loop with Debian's torch, its files are what
`profdiff show` and a `profdiff-agent --logdir` read as the run."""
import gzip
import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

import profdiff
import profdiff.torch
from conftest import binary, first_difference, run_cli, wait_for_runs

NAME = re.compile(r"^(?P<worker>.+)\.(?P<ts>\d{13})\.pt\.trace\.json\.gz$")


class FakeProfiler:
    """What on_trace_ready is handed: an object with export_chrome_trace(path)."""

    def __init__(self, document):
        self.document = document

    def export_chrome_trace(self, path):
        with open(path, "w") as f:
            json.dump(self.document, f)


def read(path):
    with open(path, "rb") as f:
        assert f.read(2) == b"\x1f\x8b", f"{path} is not gzip"
    with gzip.open(path, "rt") as f:
        return json.load(f)


def test_names_and_layout_without_torch(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "elastic-7")
    events = [{"name": "ProfilerStep#1", "ph": "X", "ts": 1, "dur": 5, "tid": 1, "pid": 1}]
    handler = profdiff.torch.trace_handler(tmp_path)
    path = handler(FakeProfiler(events))
    folder, name = os.path.split(path)
    assert folder == str(tmp_path / "elastic-7")
    match = NAME.match(name)
    assert match and match["worker"] == f"{os.uname().nodename}_{os.getpid()}"
    assert abs(int(match["ts"]) - time.time() * 1000) < 60_000
    document = read(path)
    assert document["traceEvents"] == events and document["schemaVersion"] == 1
    assert os.listdir(folder) == [name]  # nothing half-written left behind
    # torchrun's placeholder names no run: a timestamp does.
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "none")
    assert re.fullmatch(r"run-\d{8}-\d{6}", profdiff.torch.default_run())
    with pytest.raises(ValueError, match="run 'a/b'"):
        profdiff.torch.trace_handler(tmp_path, run="a/b")


TRAINING = textwrap.dedent("""
    import json, sys
    import torch, torch.distributed as dist
    from torch.profiler import profile, schedule, ProfilerActivity
    import profdiff.torch

    logdir, store = sys.argv[1], sys.argv[2]
    dist.init_process_group("gloo", init_method="file://" + store, rank=0, world_size=1)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    handler = profdiff.torch.trace_handler(logdir, run="torch-cpu", worker="trainer0")
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=handler) as prof:
        for _ in range(6):
            optimizer.zero_grad()
            model(torch.randn(32, 64)).sum().backward()
            optimizer.step()
            prof.step()

    class Kineto:  # a Kineto-style object trace without distributedInfo
        def export_chrome_trace(self, path):
            with open(path, "w") as f:
                json.dump({"schemaVersion": 1, "traceEvents": []}, f)
    print(profdiff.torch.trace_handler(logdir, run="kineto-like", worker="k0")(Kineto()))
    dist.destroy_process_group()
""")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    try:
        import torch  # noqa: F401  (Debian's python3-torch, seen through the venv)
    except ImportError:
        pytest.skip("needs torch (python3-torch) for /usr/bin/python3")
    root = tmp_path_factory.mktemp("torch")
    logdir = root / "logs"
    done = subprocess.run([sys.executable, "-c", TRAINING, str(logdir), str(root / "store")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return logdir, done.stdout.strip()


@pytest.mark.e2e
def test_training_loop_writes_a_gzip_trace_with_rank_and_world_size(trained, cli):
    logdir, kineto_like = trained
    files = sorted(os.listdir(logdir / "torch-cpu"))
    assert len(files) == 1 and NAME.match(files[0])["worker"] == "trainer0", files
    document = read(logdir / "torch-cpu" / files[0])
    assert document["distributedInfo"] == {"backend": "gloo", "rank": 0, "world_size": 1}
    assert any(e["name"].startswith("ProfilerStep#") for e in document["traceEvents"])
    # A Kineto object gets distributedInfo inserted, the rest unchanged.
    assert read(kineto_like) == {"distributedInfo": {"backend": "gloo", "rank": 0,
                                                     "world_size": 1},
                                 "schemaVersion": 1, "traceEvents": []}
    # The CLI reads the folder as the run.
    shown = json.loads(run_cli(cli, "show", logdir / "torch-cpu", "--format", "json").stdout)
    worker = shown["workers"][0]["worker"]
    assert shown["run"] == "torch-cpu"
    assert (worker["rank"], worker["world_size"], worker["worker_name"]) == (0, 1, "trainer0")
    profile = profdiff.show(logdir / "torch-cpu")
    assert len(profile.steps) == 3 and (profile.operators["calls"] > 0).any()


@pytest.mark.e2e
def test_an_agent_watching_the_logdir_uploads_it_as_the_run(trained, servers, cli, tmp_path):
    logdir, _ = trained
    agent = subprocess.Popen(
        [str(binary("agent/profdiff-agent")), "--aggregator", servers.aggregator, "--logdir",
         str(logdir), "--state-dir", str(tmp_path / "agent-state"), "--settle", "200ms"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_runs(cli, servers.differ, {"torch-cpu"})
    finally:
        agent.terminate()
        _, stderr = agent.communicate(timeout=30)
    assert agent.returncode == 0, stderr
    stored = profdiff.show("torch-cpu", server=servers.differ)
    offline = profdiff.show(logdir / "torch-cpu")
    assert [w.worker.rank for w in stored.profile.workers] == [0]
    for worker in stored.profile.workers:
        worker.worker.ClearField("hostname")
    assert stored.profile == offline.profile, first_difference(stored.profile, offline.profile)
