"""The PyTorch side of bench/peers: each workload as eager PyTorch code.

Run by run.py as a worker process whose thread pools were sized by its
environment (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS) and by
torch.set_num_threads. It reads one JSON command a line on stdin and answers
one JSON line on stdout:
  {"op": "run", "name": N, "inputs": [npy...], "out": DIR}  writes result*.npy
  {"op": "time", "name": N, "inputs": [npy...], "iterations": I, "warmup": W}
                                        answers {"median_ms", "min_ms", "max_ms"}
Every workload computes what the HLO module bench/peers/N.hlo computes.
"""
import json
import math
import os
import sys
import time

import numpy as np
import torch


def layer_norm(x, scale, bias):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), scale, bias, eps=1e-5)


def softmax(x):
    return torch.softmax(x, dim=-1)


def gelu(x):
    return torch.nn.functional.gelu(x, approximate="tanh")


def mlp_block(x, w1, b1, w2, b2):
    h = torch.nn.functional.gelu(torch.addmm(b1, x, w1), approximate="tanh")
    return torch.addmm(b2, h, w2)


def attention(q, k, v):
    s = torch.matmul(q, k.transpose(-1, -2)) * 0.125
    return torch.matmul(torch.softmax(s, dim=-1), v)


def tiny_chain(x):
    for i in range(200):
        r = i % 4
        if r == 0:
            x = x + 0.25
        elif r == 1:
            x = x * 0.5
        elif r == 2:
            x = torch.tanh(x)
        else:
            x = x - 0.125
    return x


class Conv3x3:
    """NHWC in and out as the HLO module has them; the convolution runs on
    the channels-last view (no copy), oneDNN's preferred layout."""

    def prepare(self, x, w, b):
        x_nchw = x.permute(0, 3, 1, 2)  # NHWC memory, channels-last strides
        w_oihw = w.permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)
        return (x_nchw, w_oihw, b)

    def __call__(self, x, w, b):
        y = torch.relu(torch.nn.functional.conv2d(x, w, b, padding=1))
        return y.permute(0, 2, 3, 1)


def mlp_train(w1, b1, w2, b2, w3, b3, x, y):
    h1p = torch.addmm(b1, x, w1)
    h1 = torch.relu(h1p)
    h2p = torch.addmm(b2, h1, w2)
    h2 = torch.relu(h2p)
    out = torch.addmm(b3, h2, w3)
    diff = out - y
    loss = (diff * diff).sum() * 0.03125
    dout = diff * 0.0625
    dw3 = h2.t().mm(dout)
    db3 = dout.sum(0)
    dh2 = dout.mm(w3.t()) * (h2p > 0)
    dw2 = h1.t().mm(dh2)
    db2 = dh2.sum(0)
    dh1 = dh2.mm(w2.t()) * (h1p > 0)
    dw1 = x.t().mm(dh1)
    db1 = dh1.sum(0)
    lr = 0.01
    return (loss, w1 - lr * dw1, b1 - lr * db1, w2 - lr * dw2, b2 - lr * db2,
            w3 - lr * dw3, b3 - lr * db3)


class ResNet50:
    """torchvision's ResNet-50 with random weights, NCHW, inference mode."""

    def __init__(self):
        import torchvision
        torch.manual_seed(0)
        self.model = torchvision.models.resnet50().eval()

    def prepare(self, x):
        return (x.permute(0, 3, 1, 2).contiguous(),)  # the module's NHWC input

    def __call__(self, x):
        return self.model(x)


WORKLOADS = {
    "layer_norm": layer_norm,
    "softmax": softmax,
    "gelu": gelu,
    "mlp_block": mlp_block,
    "attention": attention,
    "tiny_chain": tiny_chain,
    "conv3x3": Conv3x3,
    "mlp_train": mlp_train,
    "resnet50": ResNet50,
}

_instances = {}


def workload(name, paths):
    fn = WORKLOADS[name]
    if isinstance(fn, type):
        if name not in _instances:
            _instances[name] = fn()
        fn = _instances[name]
    args = tuple(torch.from_numpy(np.load(p)) for p in paths)
    if hasattr(fn, "prepare"):
        args = fn.prepare(*args)
    return fn, args


def main():
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    torch.set_grad_enabled(False)
    for line in sys.stdin:
        cmd = json.loads(line)
        fn, args = workload(cmd["name"], cmd["inputs"])
        if cmd["op"] == "run":
            result = fn(*args)
            results = result if isinstance(result, tuple) else (result,)
            os.makedirs(cmd["out"], exist_ok=True)
            for i, r in enumerate(results):
                np.save(os.path.join(cmd["out"], f"result_{i}.npy"), r.contiguous().numpy())
            reply = {"outputs": len(results), "threads": torch.get_num_threads()}
        else:
            for _ in range(cmd["warmup"]):
                fn(*args)
            times = []
            for _ in range(cmd["iterations"]):
                t0 = time.perf_counter()
                fn(*args)
                times.append((time.perf_counter() - t0) * 1e3)
            times.sort()
            reply = {"median_ms": times[len(times) // 2], "min_ms": times[0],
                     "max_ms": times[-1], "threads": torch.get_num_threads()}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
