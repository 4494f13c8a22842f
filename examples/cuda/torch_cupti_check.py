#!/usr/bin/env python3
"""A small PyTorch training loop on a GPU for checking libprofdiff_cupti.so (docs/cupti.md).

--mode plain      trains and prints the mean step time (run it with and without the injection
                  library to measure its overhead);
--mode profiler   trains under torch.profiler and writes a Kineto trace to --out, whose kernel
                  counts per name the injection's capture of the same steps must match.
Every step is an NVTX range "ProfilerStep#<n>", so PROFDIFF_CAPTURE=steps:A-B selects steps.
--seconds S (plain mode) trains for S seconds instead of --steps, so `profdiff capture` can reach
the process while it runs (PROFDIFF_CAPTURE=on-demand).
"""
import argparse
import json
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["plain", "profiler"], default="plain")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--out", default="torch_trace.json")
    parser.add_argument("--seconds", type=float, default=0,
                        help="plain mode: train this long instead of --steps")
    args = parser.parse_args()

    torch.manual_seed(0)
    device = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(256, 1024, device=device)
    target = torch.randn(256, 1024, device=device)

    def step(n):
        torch.cuda.nvtx.range_push(f"ProfilerStep#{n}")
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(data), target)
        loss.backward()
        optimizer.step()
        torch.cuda.nvtx.range_pop()

    for n in range(args.warmup):
        step(n)
    torch.cuda.synchronize()
    if args.mode == "profiler":
        with torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU,
                            torch.profiler.ProfilerActivity.CUDA]) as prof:
            for n in range(args.warmup, args.warmup + args.steps):
                step(n)
            torch.cuda.synchronize()
        prof.export_chrome_trace(args.out)
        return
    start = time.perf_counter()
    n = args.warmup
    while (n < args.warmup + args.steps if args.seconds <= 0
           else time.perf_counter() - start < args.seconds):
        step(n)
        n += 1
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    steps = n - args.warmup
    print(json.dumps({"steps": steps, "mean_step_ms": 1000 * elapsed / steps}))


if __name__ == "__main__":
    main()
