#!/usr/bin/python3
"""Convolution throughput of hlovm (bench/conv_bench, BM_Conv/<shape>) beside
torch.nn.functional.conv2d (oneDNN) on the same shapes and thread counts.

Usage: /usr/bin/python3 bench/conv_vs_torch.py [CONV_BENCH ...] [--rounds=N]

With several conv_bench binaries (an older build first), each gets a
column. Rounds alternate the binaries and PyTorch so that all see the same
machine load; the table prints the best GFLOP/s of each over the rounds and
the ratio of the last binary to PyTorch. PyTorch is a benchmark-only
dependency.

--cpu (one thread only): rates from CPU time rather than wall time (the
process's for PyTorch, the benchmark thread's for hlovm), steadier than
wall time while other work shares the machine.
"""
import json
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

# name: (h, c_in, c_out, k, stride, pad, groups, nchw, dtype) as in conv_bench.cc.
SHAPES = {
    "r56_3x3_64_64": (56, 64, 64, 3, 1, 1, 1, False, torch.float32),
    "r56_1x1_64_256": (56, 64, 256, 1, 1, 0, 1, False, torch.float32),
    "r56_1x1_256_64": (56, 256, 64, 1, 1, 0, 1, False, torch.float32),
    "r56_1x1_64_64": (56, 64, 64, 1, 1, 0, 1, False, torch.float32),
    "r28_3x3_128_128": (28, 128, 128, 3, 1, 1, 1, False, torch.float32),
    "r14_3x3_256_256": (14, 256, 256, 3, 1, 1, 1, False, torch.float32),
    "r7_3x3_512_512": (7, 512, 512, 3, 1, 1, 1, False, torch.float32),
    "r56_1x1s2_256_128": (56, 256, 128, 1, 2, 0, 1, False, torch.float32),
    "r56_1x1s2_256_512": (56, 256, 512, 1, 2, 0, 1, False, torch.float32),
    "r28_1x1s2_512_1024": (28, 512, 1024, 1, 2, 0, 1, False, torch.float32),
    "r230_7x7s2_3_64": (230, 3, 64, 7, 2, 0, 1, False, torch.float32),
    "r28_1x1s2_512_256": (28, 512, 256, 1, 2, 0, 1, False, torch.float32),
    "r14_1x1s2_1024_512": (14, 1024, 512, 1, 2, 0, 1, False, torch.float32),
    "r14_1x1s2_1024_2048": (14, 1024, 2048, 1, 2, 0, 1, False, torch.float32),
    "dw56_3x3_256_nchw_bf16": (56, 256, 256, 3, 1, 1, 256, True, torch.bfloat16),
}


def flops(shape):
    h, cin, cout, k, s, pad, g, _, _ = shape
    o = (h + 2 * pad - k) // s + 1
    return 2.0 * o * o * cout * (cin // g) * k * k


CPU = False


def torch_gflops(shape, threads, seconds=0.5):
    torch.set_num_threads(threads)
    h, cin, cout, k, s, pad, g, nchw, dtype = shape
    x = torch.rand(1, cin, h, h, dtype=torch.float32).to(dtype)
    w = torch.rand(cout, cin // g, k, k, dtype=torch.float32).to(dtype)
    if not nchw:
        x = x.contiguous(memory_format=torch.channels_last)
        w = w.contiguous(memory_format=torch.channels_last)
    with torch.no_grad():
        for _ in range(3):
            F.conv2d(x, w, stride=s, padding=pad, groups=g)
        clock = time.process_time if CPU else time.perf_counter
        n, t0 = 0, clock()
        while clock() - t0 < seconds:
            F.conv2d(x, w, stride=s, padding=pad, groups=g)
            n += 1
        dt = (clock() - t0) / n
    return flops(shape) / dt / 1e9


def hlovm_gflops(binary, threads):
    out = subprocess.run(
        [binary, f"--benchmark_filter=BM_Conv/.*/{threads}/real_time$", "--benchmark_format=json",
         "--benchmark_min_time=0.3"], check=True, capture_output=True, text=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        name = b["name"].split("/")[1]
        g = b["GFLOP/s"] / 1e9 if b["GFLOP/s"] > 1e6 else b["GFLOP/s"]
        if CPU:
            g *= b["real_time"] / b["cpu_time"]
        res[name] = g
    return res


def main():
    global CPU
    binaries = []
    rounds = 2
    for a in sys.argv[1:]:
        if a == "--cpu":
            CPU = True
        elif a.startswith("--rounds="):
            rounds = int(a.split("=")[1])
        else:
            binaries.append(a)
    binaries = binaries or ["build/bench/conv_bench"]
    best = {}
    for _ in range(rounds):
        for threads in (1,) if CPU else (1, 2):
            for i, binary in enumerate(binaries):
                for name, g in hlovm_gflops(binary, threads).items():
                    key = (name, threads, i)
                    best[key] = max(best.get(key, 0.0), g)
            for name, shape in SHAPES.items():
                key = (name, threads, "torch")
                best[key] = max(best.get(key, 0.0), torch_gflops(shape, threads))
    heads = "".join(f" {'hlovm' + (str(i) if len(binaries) > 1 else ''):>8s}" for i in range(len(binaries)))
    print(f"{'shape':26s} {'thr':>3s}{heads} {'torch':>8s} {'ratio':>6s}  (GFLOP/s)")
    for threads in (1,) if CPU else (1, 2):
        for name in SHAPES:
            cols = [best.get((name, threads, i), 0.0) for i in range(len(binaries))]
            t = best[(name, threads, "torch")]
            line = "".join(f" {c:8.1f}" for c in cols)
            print(f"{name:26s} {threads:3d}{line} {t:8.1f} {cols[-1] / t:6.2f}")


if __name__ == "__main__":
    main()
