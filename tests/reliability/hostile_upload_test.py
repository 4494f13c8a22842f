#!/usr/bin/env python3
"""Uploads that used to lose acknowledged data or take a service down, with real processes
(profdiff-aggregator, profdiff-agent, profdiff on 127.0.0.1), one scenario per defect:

  same-name         two different files named trace.json.gz, same run and rank: both stored
  two-aggregators   a second aggregator on a data dir in use refuses to start, naming the pid
  damaged-byte      a byte flipped in a stored segment: the watch-mode agent re-sends the span
                    and the run holds every event again
  duplicate-rank    rank 0 given twice in place of rank 1: the run is not COMPLETE, and warns;
                    `profdiff diff` of the folder and the Differ service refuse it in the same words
  world-size        world_size 10^9 is refused, so is a world size other than the run's
  unprotected-differ a differ with the aggregator's token but none of its own refuses to start
  deep-and-wide     4,000 nested calls, and 60,000 distinct 1 KB names: stored, served, bounded
  hostile-clients   40 stalled exports and 20,000 idle upload streams: bounded memory, streams
                    ended

Each prints its figures as JSON, then PASS or FAIL lines.
  hostile_upload_test.py SCENARIO --bin-dir BUILD --idle-streams BIN --out DIR
Exit 77 = skipped (the real traces are missing).
"""
import argparse
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_test import free_port, wait_for_port  # noqa: E402

DLRM = "param/dlrm_kineto"
BIG = "tracelens/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz"
OTHER = "tracelens/inference/xdit_flux_aiter/profile_trace_rank_0.json.gz"


def rss_mib(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return 0.0


class Services:
    def __init__(self, bins, out, extra=()):
        self.bins, self.out, self.extra = bins, out, list(extra)
        self.data = os.path.join(out, "store")
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.proc, self.starts = None, 0

    def start(self):
        self.starts += 1
        log = open(os.path.join(self.out, f"aggregator.{self.starts}.log"), "wb")
        self.proc = subprocess.Popen([self.bins["aggregator"], f"--listen={self.address}",
                                      f"--data-dir={self.data}", "--partial-after=1h"] + self.extra,
                                     stdout=log, stderr=log)
        log.close()
        wait_for_port(self.port)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)

    def upload(self, path, run, agent_id="agent", extra=(), state=None):
        state = state or os.path.join(self.out, "agent-state", agent_id)
        out = subprocess.run([self.bins["agent"], "upload", f"--aggregator={self.address}", f"--run={run}",
                              f"--state-dir={state}", f"--agent-id={agent_id}", "--timeout=5m"] + list(extra)
                             + [path], capture_output=True, text=True, timeout=600)
        return out.returncode, out.stderr

    def profdiff(self, *args, timeout=300):
        return subprocess.run([self.bins["profdiff"]] + list(args), capture_output=True, text=True,
                              timeout=timeout)

    def runs(self):
        out = self.profdiff("runs", "--server", self.address, "--format", "json")
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        return {r["run"]: r for r in json.loads(out.stdout).get("runs", [])}


def events_of(log):
    found = re.findall(r"events=(\d+) .*result=OK", log)
    return int(found[-1]) if found else None


def same_name(s, traces, figures, problems):
    s.start()
    counts = []
    for node, trace in (("nodeA", BIG), ("nodeB", OTHER)):
        path = os.path.join(s.out, "logdir", "run", node, "trace.json.gz")
        os.makedirs(os.path.dirname(path))
        shutil.copy(os.path.join(traces, trace), path)
        code, log = s.upload(path, "same_name", agent_id=node)
        if code != 0:
            problems.append(f"{node}: upload exit {code}: {log[-500:]}")
        counts.append(events_of(log))
    run = s.runs().get("same_name", {})
    figures.update(file_events=counts, stored_events=int(run.get("event_count", 0)))
    if None in counts or int(run.get("event_count", 0)) != sum(counts):
        problems.append(f"stored {run.get('event_count')} events, the two files hold {counts}")


def two_aggregators(s, traces, figures, problems):
    s.start()
    second = subprocess.run([s.bins["aggregator"], f"--listen=127.0.0.1:{free_port()}", f"--data-dir={s.data}"],
                            capture_output=True, text=True, timeout=30)
    figures.update(second_exit=second.returncode, second_error=second.stderr.strip()[-300:])
    if second.returncode == 0 or f"pid {s.proc.pid}" not in second.stderr:
        problems.append(f"second aggregator: exit {second.returncode}, stderr {second.stderr[-300:]!r}")
    if s.proc.poll() is not None:
        problems.append("the first aggregator died")


def unprotected_differ(s, traces, figures, problems):
    token = os.path.join(s.out, "token")
    with open(token, "w") as f:
        f.write("secret-token\n")
    common = [s.bins["differ"], "--store-auth-token-file", token, "--store-tls", f"--listen=127.0.0.1:{free_port()}"]
    refused = subprocess.run(common, capture_output=True, text=True, timeout=30)
    figures.update(exit=refused.returncode, error=refused.stderr.strip()[-200:])
    if refused.returncode != 2 or "--allow-unauthenticated-clients" not in refused.stderr:
        problems.append(f"a differ without its own token started: exit {refused.returncode} {refused.stderr[-300:]}")
    allowed = subprocess.Popen(common + ["--allow-unauthenticated-clients"], stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    allowed.terminate()
    log = allowed.communicate(timeout=30)[1]
    if "serving without client authentication" not in log:
        problems.append(f"--allow-unauthenticated-clients is not logged: {log[-300:]}")


def damaged_byte(s, traces, figures, problems):
    s.start()
    logdir = os.path.join(s.out, "logdir")
    os.makedirs(os.path.join(logdir, "damaged"))
    shutil.copy(os.path.join(traces, BIG), os.path.join(logdir, "damaged", "rank0.pt.trace.json.gz"))
    agent_log = open(os.path.join(s.out, "agent.log"), "wb")
    agent = subprocess.Popen([s.bins["agent"], f"--aggregator={s.address}", f"--logdir={logdir}",
                              f"--state-dir={os.path.join(s.out, 'agent-state')}", "--agent-id=watcher",
                              "--settle=200ms", "--rescan-interval=1s", "--chunk-events=2000",
                              "--backoff-initial=50ms", "--backoff-max=500ms"], stdout=agent_log, stderr=agent_log)
    try:
        def stored():
            run = s.runs().get("damaged", {})
            return run.get("state") == "RUN_STATE_COMPLETE", int(run.get("event_count", 0))
        deadline = time.time() + 300
        while not stored()[0] and time.time() < deadline:
            time.sleep(0.5)
        complete, events = stored()
        if not complete:
            problems.append("the first upload did not complete")
            return
        s.stop()
        segments = [os.path.join(d, f) for d, _, files in os.walk(os.path.join(s.data, "runs", "damaged"))
                    for f in files if f.startswith("seg-")]
        segment = sorted(segments)[0]
        with open(segment, "r+b") as f:
            f.seek(os.path.getsize(segment) // 2)
            byte = f.read(1)
            f.seek(-1, 1)
            f.write(bytes([byte[0] ^ 0xFF]))
        s.start()
        after_restart = s.runs().get("damaged", {})
        started = time.time()
        while time.time() < started + 120:
            complete_again, events_again = stored()
            if complete_again and events_again == events:
                break
            time.sleep(0.5)
        figures.update(events=events, state_after_damage=after_restart.get("state"),
                       events_after_damage=int(after_restart.get("eventCount", 0)),
                       events_after_resend=events_again, resend_s=round(time.time() - started, 1))
        quarantine = [d for d, _, _ in os.walk(os.path.join(s.data, "runs", "damaged")) if d.endswith("quarantine")]
        if not quarantine:
            problems.append("no quarantine/ folder holds the damaged bytes")
        if after_restart.get("state") == "RUN_STATE_COMPLETE":
            problems.append("the damaged run was COMPLETE before the span was sent again")
        if not (complete_again and events_again == events):
            problems.append(f"after the re-send: complete={complete_again} events={events_again}, expected {events}")
    finally:
        agent.terminate()
        agent.wait(timeout=30)
        agent_log.close()


def duplicate_rank(s, traces, figures, problems):
    s.start()
    files = sorted(os.listdir(os.path.join(traces, DLRM)))
    folder = os.path.join(s.out, "files")
    os.makedirs(folder)
    for name in files:
        if name.startswith("worker1_"):
            continue
        shutil.copy(os.path.join(traces, DLRM, name), os.path.join(folder, name))
    rank0 = [n for n in files if n.startswith("worker0_")][0]
    shutil.copy(os.path.join(traces, DLRM, rank0), os.path.join(folder, "copyof" + rank0))
    for name in sorted(os.listdir(folder)):
        code, log = s.upload(os.path.join(folder, name), "dup")
        if code != 0:
            problems.append(f"{name}: exit {code}: {log[-300:]}")
    run = s.runs()["dup"]
    table = s.profdiff("runs", "--server", s.address).stdout
    figures.update(state=run.get("state"), workers=run.get("worker_count"), closed_ranks=run.get("closed_worker_count"),
                   warnings=run.get("warnings", []))
    if run.get("state") == "RUN_STATE_COMPLETE":
        problems.append("a run missing rank 1 is COMPLETE")
    if not any("rank 0 is stored by 2 workers" in w for w in run.get("warnings", [])):
        problems.append(f"no duplicate-rank warning: {run.get('warnings')}")
    if "warning: run dup: rank 0 is stored by 2 workers" not in table:
        problems.append("`profdiff runs` shows no warning")
    # One answer for the folder and the stored run (issue 42): both diffs refuse it, naming the rank
    # and its two workers in the same words.
    offline = s.profdiff("diff", folder, folder)
    differ_port = free_port()
    differ = subprocess.Popen([s.bins["differ"], f"--listen=127.0.0.1:{differ_port}", f"--store={s.address}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(differ_port)
        stored = s.profdiff("diff", "dup", "dup", "--server", f"127.0.0.1:{differ_port}")
    finally:
        differ.terminate()
        differ.wait(timeout=30)
    refusal = re.compile(r"these traces are not one run \((rank 0 2 times: [^)]*\([^)]*\)[^)]*\([^)]*\))\)")
    found = {name: refusal.search(out.stderr) for name, out in (("offline", offline), ("service", stored))}
    figures.update(offline_exit=offline.returncode, service_exit=stored.returncode,
                   offline_error=offline.stderr.strip()[-300:], service_error=stored.stderr.strip()[-300:])
    for name, out in (("offline", offline), ("service", stored)):
        if out.returncode == 0 or not found[name]:
            problems.append(f"the {name} diff did not refuse a rank given twice: exit {out.returncode} "
                            f"{out.stderr[-300:]}")
    if found["offline"] and found["service"] and found["offline"].group(1) != found["service"].group(1):
        problems.append(f"offline and service refusals differ: {found['offline'].group(1)!r} vs "
                        f"{found['service'].group(1)!r}")


def tiny_trace(path, rank, world_size):
    with open(path, "w") as f:
        json.dump({"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world_size},
                   "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                                    "ts": 10, "dur": 5}]}, f)


def world_size(s, traces, figures, problems):
    s.start()
    folder = os.path.join(s.out, "files")
    os.makedirs(folder)
    for rank in range(2):
        tiny_trace(os.path.join(folder, f"w{rank}.pt.trace.json"), rank, 2)
        code, log = s.upload(os.path.join(folder, f"w{rank}.pt.trace.json"), "world")
        if code != 0:
            problems.append(f"rank {rank}: exit {code}: {log[-300:]}")
    tiny_trace(os.path.join(folder, "huge.pt.trace.json"), 0, 10**9)
    code, huge_log = s.upload(os.path.join(folder, "huge.pt.trace.json"), "world")
    tiny_trace(os.path.join(folder, "other.pt.trace.json"), 1, 4)
    code2, other_log = s.upload(os.path.join(folder, "other.pt.trace.json"), "world")
    run = s.runs()["world"]
    differ_port = free_port()
    differ = subprocess.Popen([s.bins["differ"], f"--listen=127.0.0.1:{differ_port}", f"--store={s.address}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(differ_port)
        diff = s.profdiff("diff", "world", "world", "--server", f"127.0.0.1:{differ_port}")
    finally:
        differ.terminate()
        differ.wait(timeout=30)
    figures.update(huge_exit=code, other_exit=code2, state=run.get("state"), world=run.get("world_size"),
                   diff_exit=diff.returncode)
    if code == 0 or "1048576" not in huge_log:
        problems.append(f"world_size 10^9 was not refused naming the limit: {huge_log[-300:]}")
    if code2 == 0 or "world_size 4" not in other_log:
        problems.append(f"world_size 4 in a world-2 run was not refused: {other_log[-300:]}")
    if run.get("state") != "RUN_STATE_COMPLETE" or run.get("world_size") != 2:
        problems.append(f"the run changed: {run}")
    if diff.returncode != 0:
        problems.append(f"diff failed: {diff.stderr[-300:]}")


def deep_and_wide(s, traces, figures, problems):
    s.start()
    folder = os.path.join(s.out, "files")
    os.makedirs(folder)
    deep = [{"ph": "X", "cat": "cpu_op", "name": f"op_{i}", "pid": 1, "tid": 1, "ts": i, "dur": 2 * (4000 - i)}
            for i in range(4000)]
    with open(os.path.join(folder, "deep.pt.trace.json"), "w") as f:
        json.dump({"traceEvents": deep}, f)
    wide = [{"ph": "X", "cat": "cpu_op", "name": f"{i:06d}" + "n" * 1018, "pid": 1, "tid": 1, "ts": 10 * i, "dur": 5}
            for i in range(60000)]
    with open(os.path.join(folder, "wide.pt.trace.json"), "w") as f:
        json.dump({"traceEvents": wide}, f)
    for name in ("deep", "wide"):
        started = time.time()
        code, log = s.upload(os.path.join(folder, f"{name}.pt.trace.json"), name)
        upload_s = time.time() - started
        started = time.time()
        show = s.profdiff("show", name, "--server", s.address, "--view", "modules", timeout=600)
        figures[name] = {"upload_exit": code, "upload_s": round(upload_s, 1), "show_exit": show.returncode,
                         "show_s": round(time.time() - started, 1),
                         "aggregator_peak_rss_mib": round(rss_mib(s.proc.pid, "VmHWM"))}
        if code != 0 or show.returncode != 0:
            problems.append(f"{name}: upload exit {code}, show exit {show.returncode}: {show.stderr[-300:]}")
        if "warning:" not in show.stdout:
            problems.append(f"{name}: show prints no folding warning")
    def profile_files():
        return sorted(os.path.relpath(os.path.join(d, f), s.data) for d, _, files in os.walk(s.data)
                      for f in files if f.startswith("profile-"))
    stored_profiles = profile_files()
    s.stop()
    started = time.time()
    s.start()
    runs = s.runs()
    figures["restart_s"] = round(time.time() - started, 1)
    # A rebuild stores the next generation (profile-<N+1>.pb) and deletes the old file.
    if len(stored_profiles) != 2 or profile_files() != stored_profiles:
        problems.append(f"stored profiles {stored_profiles} became {profile_files()} at the restart")
    if set(runs) != {"deep", "wide"}:
        problems.append(f"runs after restart: {sorted(runs)}")
    if figures["deep"]["aggregator_peak_rss_mib"] > 1024 or figures["wide"]["aggregator_peak_rss_mib"] > 1536:
        problems.append(f"aggregator RSS not bounded: {figures}")


def hostile_clients(s, traces, figures, problems, idle_streams):
    s.extra += ["--stream-idle-timeout=5s"]
    s.start()
    code, log = s.upload(os.path.join(traces, BIG), "big")
    if code != 0:
        problems.append(f"upload: {log[-300:]}")
        return
    probe = s.profdiff("export", "big", "--worker", "0", "--server", s.address, "-o", os.path.join(s.out, "big.json"))
    json_mib = os.path.getsize(os.path.join(s.out, "big.json")) / 2**20 if probe.returncode == 0 else 0
    baseline = rss_mib(s.proc.pid)
    exports = []
    for i in range(40):
        exports.append(subprocess.Popen([s.bins["profdiff"], "export", "big", "--worker", "0", "--server", s.address,
                                         "-o", os.path.join(s.out, f"export{i}.json")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(1.0)
    for p in exports:
        p.send_signal(signal.SIGSTOP)  # stalled: reads nothing more
    time.sleep(5.0)
    stalled = rss_mib(s.proc.pid)
    for p in exports:
        p.send_signal(signal.SIGKILL)
        p.wait()
    out = subprocess.run([idle_streams, s.address, "20000", "20"], capture_output=True, text=True, timeout=120)
    during = rss_mib(s.proc.pid, "VmHWM")
    figures.update(export_json_mib=round(json_mib, 1), rss_before_mib=round(baseline), rss_40_stalled_exports_mib=round(stalled),
                   idle_streams=out.stdout.strip(), peak_rss_mib=round(during))
    refused = sum(1 for p in exports if p.returncode not in (-signal.SIGKILL,))
    figures["exports_refused"] = refused
    if stalled - baseline > 40 * json_mib / 4:
        problems.append(f"40 stalled exports took {stalled - baseline:.0f} MiB ({json_mib:.0f} MiB each export)")
    m = re.search(r"ended_by_server=(\d+)", out.stdout)
    if not m or int(m.group(1)) != 20000:
        problems.append(f"not every idle stream was ended by the server: {out.stdout} {out.stderr[-300:]}")
    if s.proc.poll() is not None:
        problems.append("the aggregator died")
    s.runs()  # still serves


def main():
    scenarios = {"same-name": same_name, "two-aggregators": two_aggregators, "damaged-byte": damaged_byte,
                 "duplicate-rank": duplicate_rank, "unprotected-differ": unprotected_differ, "world-size": world_size, "deep-and-wide": deep_and_wide,
                 "hostile-clients": hostile_clients}
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=sorted(scenarios))
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--idle-streams", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    traces = os.environ.get("PROFDIFF_TRACES", "../shared/traces")
    for needed in (DLRM, BIG, OTHER):
        if not os.path.exists(os.path.join(traces, needed)):
            print(f"SKIPPED: needs {needed} under {traces} (set PROFDIFF_TRACES)")
            return 77
    bins = {"aggregator": os.path.join(args.bin_dir, "aggregator/profdiff-aggregator"),
            "agent": os.path.join(args.bin_dir, "agent/profdiff-agent"),
            "profdiff": os.path.join(args.bin_dir, "client/profdiff"),
            "differ": os.path.join(args.bin_dir, "differ/profdiff-differ")}
    out = os.path.join(args.out, args.scenario)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    services = Services(bins, out)
    figures, problems = {}, []
    try:
        if args.scenario == "hostile-clients":
            hostile_clients(services, traces, figures, problems, args.idle_streams)
        else:
            scenarios[args.scenario](services, traces, figures, problems)
    finally:
        services.stop()
    print(json.dumps(figures))
    for problem in problems:
        print("FAIL:", problem)
    if problems:
        return 1
    shutil.rmtree(out, ignore_errors=True)
    print(f"PASS {args.scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
