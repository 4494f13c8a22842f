#!/usr/bin/env python3
"""Faults with real processes: profdiff-aggregator and 20 concurrent `profdiff-agent upload`
processes on 127.0.0.1 uploading real traces, while one fault is applied:

  kills       the aggregator is SIGKILLed at random points (>= --kills times) and restarted on
              the same data dir and port each time
  agent-storm the agents are SIGKILLed at random points (>= --kills times in all) and restarted
              with the same state dir each time
  proxy-cut   the agents reach the aggregator through a TCP proxy that cuts every connection at
              random points (>= --kills times)
  proxy-slow  ... through a proxy that throttles each connection to --throttle-kbps

A full disk is tested in-process, on the fault-injecting Env (tests/aggregator/local/local_store_test.cc,
LocalStoreFaultTest.AFullDisk*), with no LD_PRELOAD shim.

After each: every agent exits 0 (its spans acknowledged), and every run holds exactly the events
of its file (not one lost, not one twice) and exports the same trace as a fault-free upload of the
same file (so no run is corrupted), and the aggregator still serves. Prints the figures.

  fault_test.py SCENARIO --bin-dir BUILD --out DIR [--kills 50] [--agents 20]
Exit 77 = skipped (the real traces are missing).
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

TRACES = [
    "tracelens/inference/xdit_flux_aiter/profile_trace_rank_0.json.gz",
    "tracelens/inference/xdit_flux_aiter_sage/profile_trace_rank_0.json.gz",
    "tracelens/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz",
    "tracelens/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz",
]
CHUNK_EVENTS = "2000"  # ~115 chunks a span: faults land mid-upload
DEADLINE_S = 900


def free_port():
    """A free port below the ephemeral range: the aggregator restarts on it 50 times, and a port the
    kernel also hands out to outgoing connections could be taken in between."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
    rng = random.Random()
    for _ in range(1000):
        port = rng.randrange(max(1024, low - 20000), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port below the ephemeral range")


def wait_for_port(port, timeout_s=30):
    end = time.time() + timeout_s
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout_s}s")


class Aggregator:
    """profdiff-aggregator on a fixed port and data dir, restartable."""

    def __init__(self, binary, data_dir, port, log_dir, name="aggregator"):
        self.binary, self.data_dir, self.port, self.log_dir = binary, data_dir, port, log_dir
        self.name = name
        self.proc = None
        self.starts = 0

    def start(self):
        self.starts += 1
        log = open(os.path.join(self.log_dir, f"{self.name}.{self.starts}.log"), "wb")
        self.proc = subprocess.Popen(
            [self.binary, f"--listen=127.0.0.1:{self.port}", f"--data-dir={self.data_dir}",
             "--partial-after=1h"], stdout=log, stderr=log)
        log.close()
        wait_for_port(self.port)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


class Agent:
    """One `profdiff-agent upload` of one file into run `run`, restartable with its state dir."""

    def __init__(self, binary, address, run, path, out):
        self.binary, self.address, self.run, self.path = binary, address, run, path
        self.state_dir = os.path.join(out, "agents", run)
        self.log_dir = os.path.join(out, "logs")
        self.proc, self.starts = None, 0

    def start(self):
        self.starts += 1
        log = open(os.path.join(self.log_dir, f"agent.{self.run}.{self.starts}.log"), "wb")
        self.proc = subprocess.Popen(
            [self.binary, "upload", f"--aggregator={self.address}", f"--run={self.run}",
             f"--state-dir={self.state_dir}", f"--agent-id={self.run}", f"--chunk-events={CHUNK_EVENTS}",
             "--timeout=10m", "--rpc-timeout=1m", "--backoff-initial=50ms", "--backoff-max=500ms", self.path],
            stdout=log, stderr=log)
        log.close()

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        if self.running():
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


class Proxy:
    """A TCP proxy 127.0.0.1:port -> 127.0.0.1:target that can cut every connection, or throttle."""

    def __init__(self, target_port, throttle_kbps=0):
        self.target, self.throttle = target_port, throttle_kbps
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(128)
        self.port = self.server.getsockname()[1]
        self.lock = threading.Lock()
        self.live = set()  # (client, upstream) pairs whose pumps still run
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            pair = (client, upstream)
            with self.lock:
                self.live.add(pair)
                self.connections += 1
            done = threading.Barrier(2, action=lambda pair=pair: self._close(pair))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b, done), daemon=True).start()

    def _close(self, pair):
        """Both directions ended: the pair is closed and no longer live."""
        with self.lock:
            self.live.discard(pair)
        for s in pair:
            s.close()

    def _pump(self, source, sink, done):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if self.throttle:
                    time.sleep(len(data) / (self.throttle * 1024.0))
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        done.wait()

    def cut_all(self):
        """Cuts every live connection; returns how many there were."""
        with self.lock:
            live = list(self.live)
        for pair in live:
            for s in pair:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        return len(live)


def run_json(profdiff, args):
    out = subprocess.run([profdiff] + args, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(f"profdiff {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def stored_runs(profdiff, address, prefix):
    runs = run_json(profdiff, ["runs", "--server", address, "--filter", prefix, "--format", "json"])
    return {r["run"]: r for r in runs.get("runs", [])}


def export_digest(profdiff, address, run, out):
    path = os.path.join(out, f"export.{run}.json")
    subprocess.run([profdiff, "export", run, "--worker", "0", "--server", address, "-o", path],
                   check=True, capture_output=True, timeout=300)
    with open(path, "rb") as f:
        data = f.read().replace(run.encode(), b"RUN")
    os.remove(path)
    return hashlib.sha256(data).hexdigest()


def reference(bins, traces, out):
    """Each file uploaded once without faults: its event count and export digest."""
    data = os.path.join(out, "reference-store")
    port = free_port()
    aggregator = Aggregator(bins["aggregator"], data, port, os.path.join(out, "logs"), name="reference-aggregator")
    aggregator.start()
    address = f"127.0.0.1:{port}"
    agents = []
    try:
        agents = [Agent(bins["agent"], address, f"ref-{i}", path, out) for i, path in enumerate(traces)]
        for agent in agents:
            agent.start()
        for agent in agents:
            if agent.proc.wait(timeout=DEADLINE_S) != 0:
                raise RuntimeError(f"reference upload of {agent.path} failed")
        runs = stored_runs(bins["profdiff"], address, "ref-")
        return {agent.path: (int(runs[agent.run]["event_count"]),
                             export_digest(bins["profdiff"], address, agent.run, out)) for agent in agents}
    finally:
        for agent in agents:
            agent.kill()
        aggregator.stop()


def check(bins, address, prefix, agents, expected, out):
    """Every agent exited 0 and every run holds exactly its file's events, as the reference."""
    problems = []
    for agent in agents:
        if agent.proc.returncode != 0:
            problems.append(f"agent of run {agent.run} exited {agent.proc.returncode} (logs: {agent.log_dir})")
    runs = stored_runs(bins["profdiff"], address, prefix)
    events = 0
    for agent in agents:
        want_events, want_digest = expected[agent.path]
        run = runs.get(agent.run)
        if run is None:
            problems.append(f"run {agent.run}: not stored")
            continue
        got = int(run["event_count"])
        events += got
        if got != want_events:
            problems.append(f"run {agent.run}: {got} events stored, the file has {want_events}")
        if run.get("state") != "RUN_STATE_COMPLETE":
            problems.append(f"run {agent.run}: state {run.get('state')}, expected RUN_STATE_COMPLETE")
        if export_digest(bins["profdiff"], address, agent.run, out) != want_digest:
            problems.append(f"run {agent.run}: its export differs from the fault-free upload's")
    return problems, events


def scenario(name, bins, traces, expected, args, out):
    data = os.path.join(out, "store")
    port = free_port()
    aggregator = Aggregator(bins["aggregator"], data, port, os.path.join(out, "logs"))
    aggregator.start()
    proxy = None
    if name.startswith("proxy"):
        proxy = Proxy(port, args.throttle_kbps if name == "proxy-slow" else 0)
    address = f"127.0.0.1:{proxy.port if proxy else port}"
    direct = f"127.0.0.1:{port}"
    rng = random.Random(7)
    faults, batch, agents_all = 0, 0, []
    figures = {}
    start = time.time()
    try:
        while True:
            agents = [Agent(bins["agent"], address, f"{name}-b{batch}-{i}", traces[i % len(traces)], out)
                      for i in range(args.agents)]
            agents_all += agents
            for agent in agents:
                agent.start()
            while any(a.running() for a in agents):
                if time.time() - start > DEADLINE_S:
                    raise RuntimeError(f"uploads still running after {DEADLINE_S}s")
                time.sleep(rng.uniform(0.2, 1.2))
                if faults >= args.kills or name == "proxy-slow":
                    continue
                if name == "kills":
                    aggregator.kill()
                    aggregator.start()
                    faults += 1
                elif name == "agent-storm":
                    running = [a for a in agents if a.running()]
                    for agent in rng.sample(running, min(len(running), 3)):
                        agent.proc.send_signal(signal.SIGKILL)
                        agent.proc.wait()
                        agent.start()
                        faults += 1
                elif name == "proxy-cut":
                    if proxy.cut_all() > 0:
                        faults += 1
            for agent in agents:
                agent.proc.wait()
            batch += 1
            if faults >= args.kills or name == "proxy-slow":
                break
        elapsed = time.time() - start
        problems, events = check(bins, direct, name + "-", agents_all, expected, out)
        figures.update(scenario=name, uploads=len(agents_all), faults=faults, seconds=round(elapsed, 1),
                       events_stored=events, aggregator_starts=aggregator.starts,
                       agent_starts=sum(a.starts for a in agents_all), events_lost_or_duplicated=0 if not problems else "see problems")
        if proxy:
            figures["proxy_connections"] = proxy.connections
        return problems, figures
    finally:
        for agent in agents_all:
            agent.kill()
        aggregator.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["kills", "agent-storm", "proxy-cut", "proxy-slow"])
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--throttle-kbps", type=int, default=512)
    args = parser.parse_args()
    traces_dir = os.environ.get("PROFDIFF_TRACES", "../shared/traces")
    traces = [os.path.join(traces_dir, t) for t in TRACES]
    missing = [t for t in traces if not os.path.exists(t)]
    if missing:
        print(f"SKIPPED: needs {missing[0]} (set PROFDIFF_TRACES)")
        return 77
    bins = {"aggregator": os.path.join(args.bin_dir, "aggregator/profdiff-aggregator"),
            "agent": os.path.join(args.bin_dir, "agent/profdiff-agent"),
            "profdiff": os.path.join(args.bin_dir, "client/profdiff")}
    out = os.path.join(args.out, args.scenario)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "logs"))
    expected = reference(bins, traces, out)
    problems, figures = scenario(args.scenario, bins, traces, expected, args, out)
    print(json.dumps(figures))
    for problem in problems:
        print("FAIL:", problem)
    if problems:
        return 1
    shutil.rmtree(os.path.join(out, "store"), ignore_errors=True)
    shutil.rmtree(os.path.join(out, "reference-store"), ignore_errors=True)
    print(f"PASS {args.scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
