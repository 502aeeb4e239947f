#!/usr/bin/env python3
"""Runs every benchmark binary of a Release build and writes the suite report.

    python3 bench/report.py [--build build] [--out build/bench-report] [--filter REGEX]

Each bench/*_bench binary runs once with JSON output; every figure that a
goal in bench/goals.txt names is listed with its goal, in a markdown table
(OUT.md) and as JSON (OUT.json); all other counters go to the JSON too.
Exit status 0 whether goals hold or not (benchmarks are measurements, not
tests); 2 when a binary is missing or fails.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_goals(path):
    goals = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("pair "):
                # pair A-REGEX B-REGEX COUNTER >=|<= VALUE what: counter(A) / counter(B)
                fields = line.split(None, 6)
                if len(fields) < 6 or fields[4] not in (">=", "<="):
                    sys.exit(f"report.py: bad goal line: {line}")
                goals.append({"pair": (re.compile(fields[1]), re.compile(fields[2])),
                              "counter": fields[3], "op": fields[4], "value": float(fields[5]),
                              "what": fields[6] if len(fields) > 6 else ""})
                continue
            fields = line.split(None, 4)
            if len(fields) < 4 or fields[2] not in (">=", "<="):
                sys.exit(f"report.py: bad goal line: {line}")
            counter, _, scale = fields[1].partition("*")
            goals.append({"pattern": re.compile(fields[0]), "counter": counter,
                          "scale": float(scale or 1), "op": fields[2],
                          "value": float(fields[3]), "what": fields[4] if len(fields) > 4 else ""})
    return goals


def run_binary(path, bench_filter):
    cmd = [path, "--benchmark_format=json"]
    if bench_filter:
        cmd.append(f"--benchmark_filter={bench_filter}")
    done = subprocess.run(cmd, capture_output=True, text=True)
    if bench_filter and not done.stdout.strip():
        return {"benchmarks": []}  # the filter matched nothing in this binary
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise RuntimeError(f"{os.path.basename(path)} exited {done.returncode}")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default=None, help="output stem (default BUILD/bench-report)")
    parser.add_argument("--filter", default="", help="--benchmark_filter for every binary")
    args = parser.parse_args()
    out = args.out or os.path.join(args.build, "bench-report")
    bench_dir = os.path.join(args.build, "bench")
    if not os.path.isdir(bench_dir):
        sys.exit(f"report.py: no {bench_dir}: build the Release configuration first")
    goals = read_goals(os.path.join(HERE, "goals.txt"))
    binaries = sorted(f for f in os.listdir(bench_dir) if f.endswith("_bench"))
    rows, everything, context, results = [], [], None, {}
    for name in binaries:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        try:
            result = run_binary(os.path.join(bench_dir, name), args.filter)
        except (RuntimeError, json.JSONDecodeError) as e:
            print(f"report.py: {e}", file=sys.stderr)
            return 2
        context = context or result.get("context")
        for b in result.get("benchmarks", []):
            if b.get("error_occurred"):
                continue
            counters = {k: v for k, v in b.items() if isinstance(v, (int, float)) and k not in (
                "iterations", "real_time", "cpu_time", "repetitions", "repetition_index",
                "threads", "family_index", "per_family_instance_index")}
            everything.append({"binary": name, "benchmark": b["name"], "label": b.get("label", ""),
                               "real_time": b.get("real_time"), "time_unit": b.get("time_unit"),
                               "counters": counters})
            counters["real_time"] = b.get("real_time")
            results[b["name"]] = counters
            for g in goals:
                if "pair" in g:
                    continue
                if g["pattern"].search(b["name"]) and g["counter"] in counters:
                    v = counters[g["counter"]] * g["scale"]
                    met = v >= g["value"] if g["op"] == ">=" else v <= g["value"]
                    rows.append({"benchmark": b["name"], "counter": g["counter"], "value": v,
                                 "goal": f'{g["op"]} {g["value"]:g}', "met": met, "what": g["what"]})
    for g in goals:
        if "pair" not in g:
            continue
        a = [n for n in results if g["pair"][0].search(n)]
        b = [n for n in results if g["pair"][1].search(n)]
        if len(a) != 1 or len(b) != 1 or g["counter"] not in results[a[0]] or \
                g["counter"] not in results[b[0]] or not results[b[0]][g["counter"]]:
            continue
        v = results[a[0]][g["counter"]] / results[b[0]][g["counter"]]
        met = v >= g["value"] if g["op"] == ">=" else v <= g["value"]
        rows.append({"benchmark": f"{a[0]} / {b[0]}", "counter": g["counter"], "value": v,
                     "goal": f'{g["op"]} {g["value"]:g}', "met": met, "what": g["what"]})
    with open(out + ".json", "w") as f:
        json.dump({"context": context, "goals": rows, "benchmarks": everything}, f, indent=1)
    lines = ["| benchmark | figure | value | goal | met | measured against |",
             "| --- | --- | ---: | --- | --- | --- |"]
    for r in rows:
        lines.append(f'| {r["benchmark"]} | {r["counter"]} | {r["value"]:.3g} | {r["goal"]} | '
                     f'{"yes" if r["met"] else "**no**"} | {r["what"]} |')
    met = sum(r["met"] for r in rows)
    lines.append("")
    lines.append(f"{met} of {len(rows)} goals met.")
    if context:
        lines.append(f'Host: {context.get("host_name", "?")}, {context.get("num_cpus", "?")} CPUs, '
                     f'{context.get("date", "")}.')
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {out}.md and {out}.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
