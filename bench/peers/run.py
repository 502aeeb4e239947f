#!/usr/bin/python3
"""hlovm against PyTorch eager on the workloads of bench/peers.

For each workload: writes its inputs as .npy files (fixed seed), runs the
HLO module with `hlovm run` and the PyTorch program (torch_peers.py) on
them and checks the results equal within a tolerance for float
reassociation; then times both alternately at each thread count, round by
round (hlovm with `hlovm bench --threads=T`, PyTorch in a worker process
whose OpenMP/OpenBLAS pools and torch.set_num_threads are sized to T), and
prints the ratio PyTorch time / hlovm time (above 1: hlovm is faster), its
median over the rounds and its spread (min-max), with the machine's load
average before and after.

PyTorch and torchvision are a benchmark-only dependency
(bench/peers/setup.sh); hlovm does not link them.

  /usr/bin/python3 bench/peers/run.py [--hlovm build/repl/hlovm] [--rounds 5]
      [--threads 1,2] [--only layer_norm,softmax] [--hlovm_flags=--no_fusion]
      [--json out.json]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "..", "shared", "corpus", "models")


def uniform(rng, shape, scale=1.0):
    return (rng.uniform(-1.0, 1.0, size=shape) * scale).astype(np.float32)


def inputs_layer_norm(rng):
    return [uniform(rng, (4096, 768), 3.0) + 0.5, 1.0 + uniform(rng, (768,), 0.2),
            uniform(rng, (768,), 0.2)]


def inputs_softmax(rng):
    return [uniform(rng, (1024, 4096), 8.0)]


def inputs_gelu(rng):
    return [uniform(rng, (16777216,), 4.0)]


def inputs_mlp_block(rng):
    return [uniform(rng, (128, 768)), uniform(rng, (768, 3072), 768 ** -0.5),
            uniform(rng, (3072,), 0.1), uniform(rng, (3072, 768), 3072 ** -0.5),
            uniform(rng, (768,), 0.1)]


def inputs_attention(rng):
    return [uniform(rng, (1, 12, 128, 64)) for _ in range(3)]


def inputs_tiny_chain(rng):
    return [uniform(rng, (8,))]


def inputs_conv3x3(rng):
    return [uniform(rng, (1, 56, 56, 64)), uniform(rng, (3, 3, 64, 64), 576 ** -0.5),
            uniform(rng, (64,), 0.1)]


def inputs_mlp_train(rng):
    return [uniform(rng, (784, 512), 784 ** -0.5), uniform(rng, (512,), 0.1),
            uniform(rng, (512, 512), 512 ** -0.5), uniform(rng, (512,), 0.1),
            uniform(rng, (512, 10), 512 ** -0.5), uniform(rng, (10,), 0.1),
            uniform(rng, (32, 784)), uniform(rng, (32, 10))]


def resnet50_parameters():
    """The entry parameters of the ResNet-50 module: (name, dims) in order."""
    with open(hlo_path("resnet50", CORPUS)) as f:
        entry = next(line for line in f if line.startswith("ENTRY"))
    signature = entry[entry.index("(") + 1:entry.index(") ->")]
    return [(name, tuple(int(d) for d in dims.split(",") if d))
            for name, dims in re.findall(r"(\S+): f32\[([\d,]*)\]", signature)]


def inputs_resnet50(rng):
    # Keras's weights in its own order and layout: kernels scaled by their
    # fan-in, the batch norms' vectors (scale, offset, mean, variance) in
    # [0.5, 1.5) so that every variance is positive; the image last.
    arrays = []
    for name, dims in resnet50_parameters():
        if len(dims) == 4 and name != "data.1":
            arrays.append(uniform(rng, dims, (dims[0] * dims[1] * dims[2]) ** -0.5))
        elif len(dims) == 2:
            arrays.append(uniform(rng, dims, dims[0] ** -0.5))
        elif name == "data.1":
            arrays.append(uniform(rng, dims))
        else:
            arrays.append(1.0 + uniform(rng, dims, 0.5))
    return arrays


# name -> (inputs, iterations per timing, relative and absolute tolerance;
# None: no equality check).
WORKLOADS = {
    "layer_norm": (inputs_layer_norm, 30, (1e-4, 1e-4)),
    "softmax": (inputs_softmax, 30, (1e-4, 1e-7)),
    "gelu": (inputs_gelu, 10, (1e-5, 1e-5)),
    "mlp_block": (inputs_mlp_block, 20, (1e-4, 1e-4)),
    "attention": (inputs_attention, 50, (1e-4, 1e-5)),
    "tiny_chain": (inputs_tiny_chain, 200, (1e-5, 1e-6)),
    "conv3x3": (inputs_conv3x3, 30, (1e-4, 1e-5)),
    "mlp_train": (inputs_mlp_train, 50, (1e-4, 1e-5)),
    # The module's 320 weights are parameters in Keras's order and layout;
    # torchvision's are its own: both run with random weights of sane scale,
    # unchecked (the weights are not mapped from one to the other).
    "resnet50": (inputs_resnet50, 5, None),
}


def hlo_path(name, corpus):
    if name == "resnet50":
        return os.path.join(corpus, "resnet50_keras_jax_f32.hlo")
    return os.path.join(HERE, name + ".hlo")


class TorchWorker:
    def __init__(self, threads):
        env = dict(os.environ)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(threads)
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "torch_peers.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     text=True)

    def ask(self, cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the PyTorch worker died")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def results_in(d):
    names = sorted(f for f in os.listdir(d) if f.endswith(".npy"))
    if names == ["result.npy"]:
        return [np.load(os.path.join(d, "result.npy"))]
    return [np.load(os.path.join(d, f"result_{i}.npy")) for i in range(len(names))]


def check(name, args, workdir, inputs, worker):
    out_h = os.path.join(workdir, name, "hlovm")
    out_t = os.path.join(workdir, name, "torch")
    subprocess.run([args.hlovm, "run", f"--output={out_h}", hlo_path(name, args.corpus)] + inputs,
                   check=True, stdout=subprocess.DEVNULL)
    worker.ask({"op": "run", "name": name, "inputs": inputs, "out": out_t})
    rtol, atol = WORKLOADS[name][2]
    worst = 0.0
    for a, b in zip(results_in(out_h), results_in(out_t)):
        b = b.reshape(a.shape)
        if not np.allclose(a, b, rtol=rtol, atol=atol):
            bad = np.abs(a - b) - (atol + rtol * np.abs(b))
            i = np.unravel_index(np.argmax(bad), a.shape)
            return f"DIFFERENT at {i}: hlovm {a[i]} torch {b[i]}"
        worst = max(worst, float(np.max(np.abs(a - b))) if a.size else 0.0)
    return f"equal (max abs diff {worst:.2e}, rtol {rtol:g} atol {atol:g})"


def time_hlovm(name, args, workdir, inputs, threads, iterations):
    js = os.path.join(workdir, name, f"bench_{threads}.json")
    cmd = [args.hlovm, "bench", f"--threads={threads}", f"--iterations={iterations}",
           f"--warmup={max(1, iterations // 10)}", f"--json={js}", hlo_path(name, args.corpus)]
    cmd[2:2] = args.hlovm_flags.split()
    cmd += inputs
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(js) as f:
        return json.load(f)["run_ms"]["median"]


def main():
    global CORPUS
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hlovm", default=os.path.join(HERE, "..", "..", "build", "repl", "hlovm"))
    p.add_argument("--corpus", default=CORPUS)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--only", default="")
    p.add_argument("--iterations_scale", type=float, default=1.0)
    p.add_argument("--workdir", default="")
    p.add_argument("--hlovm_flags", default="",
                   help="extra flags of `hlovm bench`, e.g. --no_fusion for a baseline")
    p.add_argument("--json", default="")
    args = p.parse_args()
    CORPUS = args.corpus
    names = [n for n in WORKLOADS if not args.only or n in args.only.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    workdir = args.workdir or tempfile.mkdtemp(prefix="hlovm_peers_")

    load_before = os.getloadavg()
    rng = np.random.default_rng(20261127)
    inputs = {}
    for name in names:
        os.makedirs(os.path.join(workdir, name), exist_ok=True)
        paths = []
        for i, a in enumerate(WORKLOADS[name][0](rng)):
            paths.append(os.path.join(workdir, name, f"input_{i}.npy"))
            np.save(paths[-1], a)
        inputs[name] = paths

    def torch_inputs(name):
        # torchvision's ResNet-50 has weights of its own: the image alone.
        return inputs[name][-1:] if name == "resnet50" else inputs[name]

    workers = {t: TorchWorker(t) for t in threads}
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}"
          f" ({os.cpu_count()} CPUs)")
    checks = {}
    for name in names:
        checks[name] = check(name, args, workdir, inputs[name], workers[threads[0]]) \
            if WORKLOADS[name][2] else "not checked (random weights in each)"
        print(f"  {name:11s} {checks[name]}", flush=True)

    times = {(n, t): ([], []) for n in names for t in threads}  # (hlovm, torch) per round
    for r in range(args.rounds):
        for t in threads:
            for name in names:
                it = max(3, int(WORKLOADS[name][1] * args.iterations_scale))
                h = time_hlovm(name, args, workdir, inputs[name], t, it)
                pt = workers[t].ask({"op": "time", "name": name, "inputs": torch_inputs(name),
                                     "iterations": it, "warmup": max(1, it // 10)})["median_ms"]
                times[(name, t)][0].append(h)
                times[(name, t)][1].append(pt)
        print(f"  round {r + 1}/{args.rounds} done (load {os.getloadavg()[0]:.2f})", flush=True)
    for w in workers.values():
        w.close()
    load_after = os.getloadavg()

    print(f"\nratio = PyTorch time / hlovm time (median of {args.rounds} rounds, [min-max]);"
          " times are medians in ms")
    header = f"{'workload':11s}" + "".join(
        f" | {'hlovm ' + str(t) + 't':>10s} {'torch ' + str(t) + 't':>10s} {'ratio ' + str(t) + 't':>21s}"
        for t in threads)
    print(header)
    print("-" * len(header))
    report = {"load_before": load_before, "load_after": load_after, "rows": {}}
    for name in names:
        line = f"{name:11s}"
        for t in threads:
            h, pt = times[(name, t)]
            ratios = [b / a for a, b in zip(h, pt)]
            med = statistics.median(ratios)
            line += (f" | {statistics.median(h):10.3f} {statistics.median(pt):10.3f} "
                     f"{med:6.2f} [{min(ratios):.2f}-{max(ratios):.2f}]")
            report["rows"][f"{name}/{t}"] = {"hlovm_ms": h, "torch_ms": pt, "ratios": ratios}
        print(line)
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    for name in names:
        report["rows"].setdefault(name, {})["check"] = checks[name]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
