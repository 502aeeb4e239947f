#!/usr/bin/env python3
"""Measures every model of the corpus with `hlovm bench` and writes the table.

    python3 bench/models.py [--hlovm build/repl/hlovm] [--models ../shared/corpus/models]
                            [--out bench/models.md] [--timeout 600] [--filter REGEX]

Each model runs once profiled (--random inputs); a model whose run takes under
two seconds is then timed again over five runs. The table lists parse+verify
and compile time, run time, the buffer plan and peak RSS, the three opcodes
with the largest share and the roofline fraction of the whole run. A model
that does not run is listed with the first line of its error.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def bench(hlovm, path, extra, timeout):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [hlovm, "bench", "--random", f"--json={out.name}", *extra, path]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"did not finish in {timeout} s"
        if done.returncode != 0:
            lines = [l for l in done.stderr.splitlines() if l.strip()]
            return None, (lines[0] if lines else f"exit {done.returncode}").replace("|", "/")
        with open(out.name) as f:
            return json.load(f), None


def fmt_ms(ms):
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.2f} ms" if ms >= 1 else f"{ms * 1000:.0f} us"


def fmt_bytes(b):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.2f} {unit}"
    return f"{b} B"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hlovm", default="build/repl/hlovm")
    p.add_argument("--models", default=os.path.join(HERE, "..", "..", "shared", "corpus", "models"))
    p.add_argument("--out", default=os.path.join(HERE, "models.md"))
    p.add_argument("--timeout", type=int, default=600)
    p.add_argument("--filter", default="")
    p.add_argument("--threads", type=int, default=0)
    args = p.parse_args()
    models = sorted(f for f in os.listdir(args.models)
                    if f.endswith(".hlo") and re.search(args.filter, f))
    threads = [f"--threads={args.threads}"] if args.threads else []
    rows = []
    for name in models:
        path = os.path.join(args.models, name)
        print(f"{name} ...", file=sys.stderr, flush=True)
        t0 = time.time()
        first, error = bench(args.hlovm, path, ["--iterations=1", "--warmup=0", "--profile",
                                                "--top=3", "--peak-gflops=0", *threads],
                             args.timeout)
        if first is None:
            rows.append(f"| {name} | | | | | | | {error} |")
            continue
        timed = first
        if first["run_ms"]["min"] < 2000:
            again, _ = bench(args.hlovm, path, ["--iterations=5", "--warmup=1", *threads],
                             args.timeout)
            if again is not None:
                timed = again
        # Memory from the unprofiled runs where there are some (the
        # profiler's records are not the module's).
        mem = timed["memory"]
        prof = first.get("profile", {})
        top = ", ".join(f'{r["key"]} {100 * r["share"]:.0f}%' for r in prof.get("by_opcode", []))
        run = timed["run_ms"]
        bound = mem.get("live_set", 0) + mem["constants"] + mem["parameters"]
        buffers = mem["entry_arena"] + mem["nested_arenas"] + mem.get("results", 0)
        planned = buffers + mem["constants"] + mem["parameters"]
        above = mem["peak_rss"] - mem.get("start_rss", 0)
        ratios = f"{planned / bound:.2f} / {above / bound:.2f}" if bound > 0 else ""
        rows.append(
            f'| {name} | {fmt_ms(first["parse_ms"] + first["verify_ms"])} / '
            f'{fmt_ms(first["compile_ms"])} | {fmt_ms(run["median"])} '
            f'({run["iterations"]}) | {fmt_bytes(buffers)} '
            f'(live {fmt_bytes(mem.get("live_set", 0))}) + '
            f'{fmt_bytes(mem["constants"] + mem["parameters"])} / {fmt_bytes(mem["peak_rss"])} | '
            f'{ratios} | {top} | {100 * prof.get("roofline", 0):.1f}% | measured in {time.time() - t0:.0f} s |')
    header = [
        "# The corpus models, measured",
        "",
        "Made by `python3 bench/models.py` (Release build, `hlovm bench --random`) on a "
        f"{os.cpu_count()}-CPU machine, {time.strftime('%Y-%m-%d')}.",
        "Columns: parse+verify / compile time; median run time (runs timed); buffer plan (the",
        "largest live set, with what the functions an instruction calls hold while it runs,",
        "which no plan of this order can go below) + constants and inputs / the process's",
        "peak RSS; the planned peak and the peak RSS above what the process held before",
        "reading the module (code, libraries, thread pools), each over the bound parameters +",
        "constants + largest live set; the three opcodes with the largest share of the",
        "profiled run; that run's work against the roofline (FLOP/s and bytes/s bound).",
        "",
        "| model | parse+verify / compile | run (runs) | buffers (live set) + constants,inputs / peak RSS "
        "| plan / RSS over bound | top ops | roofline | notes |",
        "| --- | --- | --- | --- | --- | --- | ---: | --- |",
    ]
    with open(args.out, "w") as f:
        f.write("\n".join(header + rows) + "\n")
    print("\n".join(rows))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
