"""profdiff.torch.trace_handler: torch.profiler's on_trace_ready, writing where an agent looks.

    from torch.profiler import profile, schedule
    import profdiff.torch
    with profile(schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=profdiff.torch.trace_handler("/tmp/logs", run="bf16")) as p:
        for batch in data:
            train_step(batch)
            p.step()

Each trace lands as <logdir>/<run>/<worker>.<ts>.pt.trace.json.gz (gzip), the layout
`profdiff-agent --logdir <logdir>` uploads as run <run> and `profdiff show <logdir>/<run>`
reads. torch is imported only when a trace is written.
"""
import gzip
import json
import os
import re
import shutil
import socket
import tempfile
import time

_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")  # base/id_rules.h: run ids and worker names
_HEAD_BYTES = 1 << 20  # how far into a Kineto trace its metadata (distributedInfo) is looked for


def _check_id(what, value):
    if not _ID.fullmatch(value) or value in (".", ".."):
        raise ValueError(f"{what} {value!r}: expected 1-128 characters of [A-Za-z0-9._-] "
                         "(profdiff's run id rules)")
    return value


def default_run():
    """$TORCHELASTIC_RUN_ID (torchrun's --rdzv-id; the agent's default too), else a timestamp.
    torchrun without --rdzv-id sets "none", which names no run."""
    run_id = os.environ.get("TORCHELASTIC_RUN_ID", "")
    if run_id and run_id != "none":
        return run_id
    return time.strftime("run-%Y%m%d-%H%M%S")


def default_worker():
    """<hostname>_<pid>, as torch.profiler.tensorboard_trace_handler names Kineto's files."""
    return f"{socket.gethostname()}_{os.getpid()}"


def _distributed_info():
    """rank, world size and backend when torch.distributed is initialised, else None."""
    try:
        import torch.distributed as dist  # lazily: importing profdiff must not import torch
    except ImportError:  # a profiler object of some other origin
        return None
    if not (dist.is_available() and dist.is_initialized()):
        return None
    return {"backend": str(dist.get_backend()), "rank": dist.get_rank(),
            "world_size": dist.get_world_size()}


def _has_distributed_info(path):
    # Kineto writes its metadata (distributedInfo among it) before "traceEvents".
    with open(path, "rb") as f:
        head = f.read(_HEAD_BYTES)
    events = head.find(b'"traceEvents"')
    return b'"distributedInfo"' in (head if events < 0 else head[:events])


def _write_gzip(source, target, info, trace_name):
    """Copies the exported trace `source` into gzip `target`, adding `info` as distributedInfo
    where the trace lacks it, without parsing the whole file (Kineto traces are large):
    torch without Kineto exports a bare event array, wrapped into the object Kineto writes;
    a Kineto object gets the key inserted after its opening brace."""
    with open(source, "rb") as f:
        start = f.read(4096).lstrip()[:1]
    prefix = b""
    if start == b"[":
        document = {"schemaVersion": 1, "traceName": trace_name}
        if info:
            document["distributedInfo"] = info
        prefix = json.dumps(document)[:-1].encode() + b', "traceEvents": '
    elif start == b"{" and info and not _has_distributed_info(source):
        prefix = b'{"distributedInfo": ' + json.dumps(info).encode() + b", "
    with open(source, "rb") as src, gzip.open(target, "wb", compresslevel=6) as out:
        if prefix and start == b"{":
            # Past the opening brace; the inserted key ends with its own ", ".
            while src.read(1) != b"{":
                pass
        out.write(prefix)
        shutil.copyfileobj(src, out, 1 << 20)
        if start == b"[":
            out.write(b"}")


def trace_handler(logdir, run=None, *, worker=None):
    """An on_trace_ready callable for torch.profiler.profile (and the autograd profiler):
    writes each trace gzipped as <logdir>/<run>/<worker>.<ts>.pt.trace.json.gz, ts in
    milliseconds, adding rank, world size and backend (distributedInfo) from torch.distributed
    when it is initialised. `run` defaults to default_run() (taken once, here: every trace of
    this handler is one run), `worker` to <hostname>_<pid>. In a job of several processes
    without torchrun's TORCHELASTIC_RUN_ID, pass the same `run` to every rank.

    Returns the handler; each call returns the path it wrote."""
    run = _check_id("run", run or default_run())
    if worker is not None:
        _check_id("worker", worker)
    folder = os.path.join(os.fspath(logdir), run)

    def handle(prof):
        name = _check_id("worker", worker or default_worker())
        os.makedirs(folder, exist_ok=True)
        ts = int(time.time() * 1000)
        path = os.path.join(folder, f"{name}.{ts}.pt.trace.json.gz")
        # Exported beside the target (same file system), gzipped under a name the agent does
        # not take for a trace, renamed last: a watching agent never reads half a file.
        fd, exported = tempfile.mkstemp(prefix=f".{name}.", suffix=".export.tmp", dir=folder)
        os.close(fd)
        partial = path + ".partial"
        try:
            prof.export_chrome_trace(exported)
            _write_gzip(exported, partial, _distributed_info(), os.path.basename(path))
            os.replace(partial, path)
        finally:
            for leftover in (exported, partial):
                if os.path.exists(leftover):
                    os.remove(leftover)
        return path

    return handle


__all__ = ["trace_handler", "default_run", "default_worker"]
