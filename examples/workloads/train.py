#!/usr/bin/python3
"""Real PyTorch DDP training runs for the comparisons profdiff is built for.

    train.py --scenario S --variant baseline|experimental --ranks N --steps K --out DIR

runs N processes (gloo, this machine), trains `--warmup` steps, profiles the next K steps on
each rank, and writes DIR/<run>/rank<R>.<ts>.pt.trace.json (run: --run, default
"<scenario>-<variant>").

Debian's torch 1.13 has no Kineto: its profiler writes the legacy Chrome trace (a bare array,
no module or step events). What Kineto would record is recorded the way the profiler's own
design intends: global nn.Module forward hooks open and close a record_function named
"nn.Module: <Class>_<n>", a record_function "ProfilerStep#<N>" wraps each step, and the trace
is written as an object with the events and `distributedInfo` (rank, world_size, backend), each
op carrying Kineto's "Sequence number" / "Fwd thread id" arguments and each gloo collective its
"Input Dims" / "Input type" (see trace_events).
"""

import argparse
import json
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd.profiler import record_function

SCENARIOS = ("linear-dim", "precision", "resnet-depth", "loss", "fused-op", "module-impl",
             "ddp-bucket", "straggler")
VARIANTS = ("baseline", "experimental")
# Scenarios profiled with profile_memory=True (a memory diff to check); the others skip the
# allocator hooks' overhead.
MEMORY = ("linear-dim", "precision")
UNPINNED = ("straggler",)  # scenarios whose ranks are not pinned to a core each (see run_rank)
STRAGGLE_ITERATIONS = 30  # 256x256 matmuls in the straggler's data step: ~180 ms on one core here,
# twice what a busy 2-core machine delays a balanced rank by in a step (CI saw 92 ms)


# ---------------------------------------------------------------- models and steps per scenario
class Mlp(nn.Module):
    def __init__(self, widths):
        super().__init__()
        layers = []
        for i, (a, b) in enumerate(zip(widths, widths[1:])):
            layers.append(nn.Linear(a, b))
            if i + 2 < len(widths):
                layers.append(nn.ReLU())
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class FlatMlp(nn.Module):
    """The same function as Mlp, written as one module with its own parameters."""

    def __init__(self, widths):
        super().__init__()
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for a, b in zip(widths, widths[1:]):
            reference = nn.Linear(a, b)
            self.weights.append(nn.Parameter(reference.weight.detach().clone()))
            self.biases.append(nn.Parameter(reference.bias.detach().clone()))

    def forward(self, x):
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = F.linear(x, w, b)
            if i < last:
                x = torch.relu(x)
        return x


def hand_written_gelu(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def hand_written_layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) * (x - mean)).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


class FeedForward(nn.Module):
    """LayerNorm -> Linear -> GELU -> Linear, with the norm and activation fused or not."""

    def __init__(self, width, fused):
        super().__init__()
        self.fused = fused
        self.norm_weight = nn.Parameter(torch.ones(width))
        self.norm_bias = nn.Parameter(torch.zeros(width))
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        if self.fused:
            h = F.layer_norm(x, (x.shape[-1],), self.norm_weight, self.norm_bias)
            return x + self.down(F.gelu(self.up(h), approximate="tanh"))
        h = hand_written_layer_norm(x, self.norm_weight, self.norm_bias)
        return x + self.down(hand_written_gelu(self.up(h)))


def hand_written_cross_entropy(logits, target):
    shifted = logits - logits.max(dim=1, keepdim=True).values
    exp = torch.exp(shifted)
    probs = exp / exp.sum(dim=1, keepdim=True)
    return -torch.log(probs.gather(1, target.unsqueeze(1))).mean()


class Loss(nn.Module):
    """Cross entropy as a module, so its forward and backward are nodes of the module tree: the
    hand-written softmax or the built-in loss (one class, so both variants align)."""

    def __init__(self, hand_written):
        super().__init__()
        self.hand_written = hand_written

    def forward(self, logits, target):
        if self.hand_written:
            return hand_written_cross_entropy(logits, target)
        return F.cross_entropy(logits, target)


def slow_data_step(iterations):
    """A data step that makes this rank slow: real CPU work outside any module, before the
    forward, so the other ranks wait for this one in the gradient all-reduce."""
    with record_function("data"):
        a = torch.randn(256, 256)
        for _ in range(iterations):
            a = torch.tanh(a @ a)


class Scenario:
    """A model, a batch and a loss for one variant; `autocast` for the precision scenario,
    `bucket_cap_mb` for DDP (None: DDP's default, 25), `straggle` (matmul iterations in the last
    rank's data step, 0: none)."""

    def __init__(self, name, variant, seed):
        torch.manual_seed(seed)
        experimental = variant == "experimental"
        self.autocast = False
        self.loss = F.cross_entropy
        self.bucket_cap_mb = None
        self.straggle = 0
        if name == "linear-dim":
            width = 4096 if experimental else 100
            self.model = Mlp([128, width, 10])
            self.batch = (torch.randn(256, 128), torch.randint(0, 10, (256,)))
        elif name == "precision":
            self.model = Mlp([256, 512, 512, 10])
            self.batch = (torch.randn(256, 256), torch.randint(0, 10, (256,)))
            self.autocast = experimental
        elif name == "resnet-depth":
            import torchvision

            build = torchvision.models.resnet152 if experimental else torchvision.models.resnet50
            self.model = build(num_classes=10)
            self.batch = (torch.randn(2, 3, 64, 64), torch.randint(0, 10, (2,)))
        elif name == "loss":
            self.model = Mlp([256, 512, 1000])
            self.batch = (torch.randn(128, 256), torch.randint(0, 1000, (128,)))
            self.loss = Loss(hand_written=not experimental)
        elif name == "fused-op":
            self.model = nn.Sequential(FeedForward(256, fused=experimental), nn.Linear(256, 10))
            self.batch = (torch.randn(256, 256), torch.randint(0, 10, (256,)))
        elif name == "module-impl":
            widths = [256, 512, 512, 10]
            self.model = FlatMlp(widths) if experimental else Mlp(widths)
            self.batch = (torch.randn(256, 256), torch.randint(0, 10, (256,)))
        elif name == "ddp-bucket":
            # ~3.16M fp32 parameters (12.6 MB) in twelve 512x512 layers of ~1 MB: DDP's default
            # (a 1 MB first bucket, then 25 MB) all-reduces them in 2 buckets, 1 MB buckets in 12
            # (a bucket closes once it reaches the cap, and a tensor is never split).
            self.model = Mlp([512] * 13 + [10])
            self.batch = (torch.randn(64, 512), torch.randint(0, 10, (64,)))
            self.bucket_cap_mb = 1 if experimental else None
        elif name == "straggler":
            self.model = Mlp([512, 1024, 1024, 10])
            self.batch = (torch.randn(64, 512), torch.randint(0, 10, (64,)))
            self.bucket_cap_mb = 1
            self.straggle = STRAGGLE_ITERATIONS if experimental else 0
        else:
            raise ValueError(f"unknown scenario {name}")


# ------------------------------------------------------------ what Kineto would have recorded
class ModuleRanges:
    """Global forward hooks: each module's forward runs inside "nn.Module: <Class>_<n>", n
    counting the instances of a class in the order they first run (as Kineto names them)."""

    def __init__(self):
        self.ids = {}
        self.per_class = {}
        self.open = []
        self.handles = []

    def name(self, module):
        key = id(module)
        if key not in self.ids:
            cls = type(module).__name__
            self.ids[key] = f"nn.Module: {cls}_{self.per_class.get(cls, 0)}"
            self.per_class[cls] = self.per_class.get(cls, 0) + 1
        return self.ids[key]

    def pre(self, module, inputs):
        rf = record_function(self.name(module))
        rf.__enter__()
        self.open.append(rf)

    def post(self, module, inputs, output):
        self.open.pop().__exit__(None, None, None)

    def __enter__(self):
        hooks = torch.nn.modules.module
        self.handles = [hooks.register_module_forward_pre_hook(self.pre),
                        hooks.register_module_forward_hook(self.post)]
        return self

    def __exit__(self, *exc):
        for handle in self.handles:
            handle.remove()


# How Kineto spells an input's dtype (c10's demangled C++ type name, as gcc writes it).
KINETO_TYPE = {torch.float32: "float", torch.float64: "double", torch.float16: "c10::Half",
               torch.bfloat16: "c10::BFloat16", torch.int64: "long int", torch.int32: "int",
               torch.int16: "short int", torch.int8: "signed char", torch.uint8: "unsigned char",
               torch.bool: "bool"}


class CollectiveTypes:
    """The dtype of each gloo collective's input, from what this rank knows of its model.

    torch 1.13's FunctionEvent records input shapes but no dtypes, so they are derived from the
    tensors DDP hands to gloo: an all_reduce is a gradient bucket, which holds parameters of one
    dtype (all our models are fp32: "float"; autocast does not change the gradients' dtype). A
    broadcast is DDP's per-forward buffer sync (one flat tensor per buffer dtype, told apart by
    element count), or the one-time bucket rebuild in the second step's forward, which broadcasts
    its at::kInt bucket indices (trainable parameters + 1 elements) and then its bucket sizes.
    Call `args` in start order (as prof.function_events lists them)."""

    def __init__(self, model):
        params = [p for p in model.parameters() if p.requires_grad]
        self.param_dtypes = {p.dtype for p in params}
        self.rebuild_indices = len(params) + 1
        self.buffer_numel = {}
        for b in model.buffers():
            self.buffer_numel[b.dtype] = self.buffer_numel.get(b.dtype, 0) + b.numel()
        self.sizes_next = False

    def dtype(self, name, shape):
        numel = 1
        for d in shape:
            numel *= d
        if name == "gloo:all_reduce" and len(self.param_dtypes) == 1:
            return next(iter(self.param_dtypes))
        if name == "gloo:broadcast":
            if self.sizes_next or numel == self.rebuild_indices:
                self.sizes_next = not self.sizes_next
                return torch.int32
            matches = [t for t, n in self.buffer_numel.items() if n == numel]
            return matches[0] if len(matches) == 1 else None
        return None

    def args(self, evt):
        """Kineto's "Input Dims" and "Input type" for a gloo collective ({} if it has no input;
        no "Input type" if a dtype is not known)."""
        shapes = [list(s) for s in evt.input_shapes or []]
        if not shapes:
            return {}
        types = [self.dtype(evt.trace_name, s) for s in shapes]
        if any(t is None for t in types):
            return {"Input Dims": shapes}
        return {"Input Dims": shapes, "Input type": [KINETO_TYPE.get(t, str(t)) for t in types]}


def memory_events(prof):
    """Kineto's "[memory]" instant events, from the allocations torch 1.13 records with
    profile_memory=True (its exporter drops them): one per allocation (Bytes > 0) or free
    (Bytes < 0) on the thread that made it, with the block's Addr and the allocator's Total
    Allocated / Total Reserved after it. Device Type 0 is the CPU (Device Id -1), 1 CUDA. ts is on
    the ops' clock (microseconds since the trace start), kept to the nanosecond."""
    start_us = prof.kineto_results.trace_start_us()
    events = []
    pending = list(prof.kineto_results.experimental_event_tree())
    while pending:
        node = pending.pop()
        pending.extend(node.children)
        if node.name != "[memory]":
            continue
        fields = node.extra_fields
        cuda = fields.device.type == "cuda"
        events.append({"ph": "i", "s": "t", "name": "[memory]", "pid": "CPU functions",
                       "tid": node.start_tid, "ts": round(node.start_time_ns / 1000 - start_us, 3),
                       "cat": "cpu_instant_event",
                       "args": {"Device Type": 1 if cuda else 0,
                                "Device Id": fields.device.index if cuda else -1,
                                "Addr": fields.ptr, "Bytes": fields.alloc_size,
                                "Total Allocated": fields.total_allocated,
                                "Total Reserved": fields.total_reserved}})
    events.sort(key=lambda e: e["ts"])
    return events


def trace_events(prof, collectives, memory):
    """The events torch 1.13's export_chrome_trace writes (same fields, same order), plus what
    that exporter drops and Kineto writes: each op's "Sequence number" (ops that record autograd
    history, and the backward ops they produce) and "Fwd thread id" (on backward ops, the thread
    of their forward op), which link a backward root to its forward op; on the gloo worker
    thread's collectives ("gloo:all_reduce", ...), "Input Dims" (the flat bucket, e.g. [[N]]) and
    "Input type" (see CollectiveTypes). With `memory`: the [memory] events (memory_events), and
    on each op the legacy profiler's own figure, "Self CPU Memory Usage" (bytes allocated minus
    freed by the op itself on the CPU; what profdiff reads when a trace has no [memory] events)."""
    events = []
    for evt in prof.function_events:
        if evt.trace_name is None:
            continue
        args = {}
        if evt.sequence_nr >= 0:
            args["Sequence number"] = evt.sequence_nr
        if evt.fwd_thread:
            args["Fwd thread id"] = evt.fwd_thread
        if evt.trace_name.startswith("gloo:"):
            args.update(collectives.args(evt))
        if memory and evt.self_cpu_memory_usage:
            args["Self CPU Memory Usage"] = evt.self_cpu_memory_usage
        events.append({"name": evt.trace_name, "ph": "X", "ts": evt.time_range.start,
                       "dur": evt.time_range.elapsed_us(), "tid": evt.thread,
                       "pid": "CPU functions", "args": args})
    return events + memory_events(prof) if memory else events


def write_trace(prof, collectives, memory, path, rank, world_size):
    document = {
        "schemaVersion": 1,
        "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world_size},
        "traceName": os.path.basename(path),
        "traceEvents": trace_events(prof, collectives, memory),
    }
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(document, f)
    os.rename(tmp, path)  # the agent never sees a half-written trace under the final name


# ----------------------------------------------------------------------------------- one rank
def run_rank(rank, args, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(args.threads)
    # One core per rank (round robin): no migrations, and two runs started side by side share
    # each core evenly, so neither sees a busier machine than the other. Not for the straggler
    # scenario: there the ranks must be equal but for the slowed one, and on a shared machine
    # one core can run a third slower than the other for a whole run, which makes its rank a
    # straggler of its own; unpinned, the ranks share both cores' speed.
    if args.scenario not in UNPINNED:
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[rank % len(cores)]})
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    scenario = Scenario(args.scenario, args.variant, seed=args.seed + rank)
    ddp_options = {} if scenario.bucket_cap_mb is None else {"bucket_cap_mb": scenario.bucket_cap_mb}
    model = nn.parallel.DistributedDataParallel(scenario.model, **ddp_options)
    collectives = CollectiveTypes(scenario.model)
    straggle = scenario.straggle if rank == args.ranks - 1 else 0  # the last rank straggles
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs, target = scenario.batch

    def step():
        optimizer.zero_grad(set_to_none=True)
        if straggle:
            slow_data_step(straggle)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=scenario.autocast):
            output = model(inputs)
        loss = scenario.loss(output.float(), target)
        loss.backward()
        optimizer.step()

    for _ in range(args.warmup):
        step()
    dist.barrier()
    memory = args.scenario in MEMORY
    with ModuleRanges(), torch.autograd.profiler.profile(record_shapes=True, profile_memory=memory) as prof:
        for n in range(args.warmup, args.warmup + args.steps):
            with record_function(f"ProfilerStep#{n}"):
                step()
        # A gloo worker thread closes its collective's range only after completing the work's
        # future, which is what DDP waits on: without a pause the last step's last all_reduce can
        # end after the profiler has stopped, and its event is lost.
        time.sleep(0.05)
    run_dir = os.path.join(args.out, args.run)
    os.makedirs(run_dir, exist_ok=True)
    path = os.path.join(run_dir, f"rank{rank}.{int(time.time() * 1000)}.pt.trace.json")
    write_trace(prof, collectives, memory, path, rank, args.ranks)
    dist.barrier()
    dist.destroy_process_group()
    if rank == 0:
        print(f"train.py: {args.run}: {args.ranks} ranks x {args.steps} steps -> {run_dir}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", required=True, choices=SCENARIOS)
    parser.add_argument("--variant", required=True, choices=VARIANTS)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5, help="profiled steps per rank")
    parser.add_argument("--warmup", type=int, default=2, help="steps before profiling")
    parser.add_argument("--out", required=True, help="log dir; the run is a folder in it")
    parser.add_argument("--run", help='run name (default "<scenario>-<variant>")')
    parser.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.ranks < 1 or args.steps < 1 or args.warmup < 0:
        parser.error("--ranks and --steps must be >= 1, --warmup >= 0")
    args.run = args.run or f"{args.scenario}-{args.variant}"
    mp.spawn(run_rank, args=(args, free_port()), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    sys.exit(main())
