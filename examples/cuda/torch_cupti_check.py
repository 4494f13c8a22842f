#!/usr/bin/env python3
"""A small PyTorch training loop on a GPU for checking libprofdiff_cupti.so (docs/cupti.md).

--mode plain      trains and prints the mean step time (run it with and without the injection
                  library to measure its overhead);
--mode profiler   trains under torch.profiler and writes a Kineto trace to --out, whose kernel
                  counts per name the injection's capture of the same steps must match; it
                  prints the mean step time under the profiler too (the export is not timed).
--model small     a 2-layer MLP, a ~1 ms launch-bound step; --model transformer: 4 encoder
                  layers of d_model 512, a ~20-25 ms step on an H100/H200 (--batch scales it).
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
    parser.add_argument("--model", choices=["small", "transformer"], default="small")
    parser.add_argument("--batch", type=int, default=0,
                        help="batch size (default: 256 small, 32 transformer)")
    args = parser.parse_args()

    torch.manual_seed(0)
    device = torch.device("cuda")
    if args.model == "small":
        batch = args.batch or 256
        model = torch.nn.Sequential(
            torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024))
        data = torch.randn(batch, 1024, device=device)
        target = torch.randn(batch, 1024, device=device)
    else:
        batch = args.batch or 32
        layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                                 batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=4)
        data = torch.randn(batch, 512, 512, device=device)
        target = torch.randn(batch, 512, 512, device=device)
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

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
            start = time.perf_counter()
            for n in range(args.warmup, args.warmup + args.steps):
                step(n)
            torch.cuda.synchronize()
            elapsed = time.perf_counter() - start
        if args.out:
            prof.export_chrome_trace(args.out)
        print(json.dumps({"steps": args.steps, "mean_step_ms": 1000 * elapsed / args.steps}))
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
