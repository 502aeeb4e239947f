#!/usr/bin/python3
"""Mutation sweep: runs hlovm on damaged copies of HLO files.

Makes --count mutants of the corpus models (../shared/corpus/models/*.hlo)
and the conformance cases (conformance/cases, ../shared/conformance/stablehlo),
each from one source file by one edit: delete a line, duplicate a line, swap
two lines, change a number, change a dimension, change an element type, or
truncate the text. Mutant number I of seed S is the same on every machine
and in every run (its own random.Random seeded with "S:I"), so one failure
can be made again alone (--only I --write FILE).

Each mutant is given to `hlovm check`, then (when the check accepts it) to
`hlovm run --random`, each with a time limit and a memory limit. A run
fails when:
  * stderr holds a sanitizer report (AddressSanitizer, LeakSanitizer,
    UndefinedBehaviorSanitizer, ThreadSanitizer) or a "runtime error:";
  * the process ends on a signal (a crash, an abort);
  * it exits with a code other than 0, 1 or 2 (success, a failed program or
    check, bad input).
Hitting the time limit or the memory limit is counted apart (a mutant may
legitimately ask for a huge shape or a long loop): not a failure.

The memory limit: RLIMIT_AS for a plain build. A sanitizer build reserves
terabytes of address space, so there ASAN_OPTIONS=malloc_limit_mb bounds
what the allocator hands out (with allocator_may_return_null, as a plain
build's new throws bad_alloc), and the resident memory is watched: a process
over the limit is killed.

The last line printed is "N passed, M failed"; the exit code is 1 when any
mutant failed. Standard library only.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ELEMENT_TYPES = [
    "pred", "s2", "s4", "s8", "s16", "s32", "s64", "u2", "u4", "u8", "u16",
    "u32", "u64", "f16", "bf16", "f32", "f64", "c64", "c128", "f8e5m2",
    "f8e4m3fn", "f8e4m3fnuz", "f8e5m2fnuz", "f4e2m1fn", "token",
]
SHAPE_RE = re.compile(
    r"\b(" + "|".join(sorted(ELEMENT_TYPES, key=len, reverse=True)) + r")\[([0-9?<=, ]*)\]")
NUMBER_RE = re.compile(r"-?\b\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b")
# Dimensions that stress size arithmetic: zero, one, large, past int32,
# overflow in a product.
ODD_DIMENSIONS = [0, 1, 2, 7, 1024, 65537, 2147483648, 100000000000, 4611686018427387904]
ODD_NUMBERS = ["0", "1", "-1", "2", "-2", "3", "255", "65536", "2147483647", "2147483648",
               "-2147483649", "9223372036854775807", "18446744073709551616", "1e309",
               "-0.0", "0.5", "100000000000"]

SANITIZER_PATTERNS = [
    "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer",
    "ERROR: ThreadSanitizer", "UndefinedBehaviorSanitizer", "runtime error:",
    "SUMMARY: AddressSanitizer", "SUMMARY: ThreadSanitizer",
]

SANITIZER_ENV = {
    # Leaks on; errors exit with codes no hlovm result uses; a huge request
    # returns null (new throws bad_alloc) rather than a report, as without
    # a sanitizer.
    "ASAN_OPTIONS": "detect_leaks=1:exitcode=86:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:exitcode=87:halt_on_error=1",
    "LSAN_OPTIONS": "exitcode=88",
}


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source_files(paths):
    files = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
            continue
        for folder, dirs, names in os.walk(path):
            dirs.sort()
            for name in sorted(names):
                if name.endswith(".hlo"):
                    files.append(os.path.join(folder, name))
    # Sorted, de-duplicated: the mutant numbering depends on this list only.
    seen = set()
    unique = []
    for f in sorted(files):
        real = os.path.realpath(f)
        if real not in seen:
            seen.add(real)
            unique.append(f)
    return unique


# ---- Mutations: each takes (text, rng) and returns (new text, description) or None.

def _lines(text):
    return text.split("\n")


def delete_line(text, rng):
    lines = _lines(text)
    if len(lines) < 2:
        return None
    i = rng.randrange(len(lines))
    return "\n".join(lines[:i] + lines[i + 1:]), f"delete line {i + 1}"


def duplicate_line(text, rng):
    lines = _lines(text)
    i = rng.randrange(len(lines))
    return "\n".join(lines[:i + 1] + [lines[i]] + lines[i + 1:]), f"duplicate line {i + 1}"


def swap_lines(text, rng):
    lines = _lines(text)
    if len(lines) < 3:
        return None
    i, j = sorted(rng.sample(range(len(lines)), 2))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines), f"swap lines {i + 1} and {j + 1}"


def _line_starts(text):
    start = 0
    for line in text.split("\n"):
        yield start, line
        start += len(line) + 1


def _pick(regex, text, rng):
    matches = list(regex.finditer(text))
    return rng.choice(matches) if matches else None


def change_number(text, rng):
    # Mostly a number outside constant literals (an attribute, an index, a
    # parameter number), where a change reaches more than a value.
    m = None
    if rng.random() < 0.7:
        lines = [(start, line) for start, line in _line_starts(text) if "constant(" not in line]
        if lines:
            start, line = rng.choice(lines)
            found = list(NUMBER_RE.finditer(line))
            if found:
                hit = rng.choice(found)
                m = NUMBER_RE.match(text, start + hit.start(), start + hit.end())
    if m is None:
        m = _pick(NUMBER_RE, text, rng)
    if m is None:
        return None
    old = m.group(0)
    if rng.random() < 0.5:
        new = rng.choice(ODD_NUMBERS)
    else:
        try:
            value = int(old)
            new = str(value + rng.choice([-1, 1, -2, 2]))
        except ValueError:
            new = repr(float(old) * rng.choice([-1.0, 2.0, 0.5, 1e30]))
    line = text.count("\n", 0, m.start()) + 1
    return text[:m.start()] + new + text[m.end():], f"number {old} -> {new} on line {line}"


def change_dimension(text, rng):
    m = _pick(SHAPE_RE, text, rng)
    if m is None:
        return None
    dims = [d.strip() for d in m.group(2).split(",")] if m.group(2).strip() else []
    choice = rng.random()
    if dims and choice < 0.6:
        k = rng.randrange(len(dims))
        dims[k] = str(rng.choice(ODD_DIMENSIONS))
        what = f"dimension {k}"
    elif dims and choice < 0.8:
        k = rng.randrange(len(dims))
        del dims[k]
        what = f"dimension {k} removed"
    else:
        k = rng.randrange(len(dims) + 1)
        dims.insert(k, str(rng.choice(ODD_DIMENSIONS[:5])))
        what = f"dimension added at {k}"
    new = f"{m.group(1)}[{','.join(dims)}]"
    line = text.count("\n", 0, m.start()) + 1
    return (text[:m.start()] + new + text[m.end():],
            f"shape {m.group(0)} -> {new} ({what}) on line {line}")


def change_element_type(text, rng):
    m = _pick(SHAPE_RE, text, rng)
    if m is None:
        return None
    new_type = rng.choice([t for t in ELEMENT_TYPES if t != m.group(1)])
    line = text.count("\n", 0, m.start()) + 1
    return (text[:m.start(1)] + new_type + text[m.end(1):],
            f"type {m.group(1)} -> {new_type} on line {line}")


def truncate(text, rng):
    if len(text) < 2:
        return None
    at = rng.randrange(1, len(text))
    return text[:at], f"truncate at byte {at} of {len(text)}"


MUTATIONS = [delete_line, duplicate_line, swap_lines, change_number, change_dimension,
             change_element_type, truncate]


def make_mutant(sources, seed, index, cache):
    """Mutant `index` of `seed`: (source path, text, description)."""
    rng = random.Random(f"{seed}:{index}")
    source = sources[rng.randrange(len(sources))]
    text = cache.get(source)
    if text is None:
        with open(source, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        cache[source] = text
    for _ in range(8):
        mutation = rng.choice(MUTATIONS)
        made = mutation(text, rng)
        if made is not None and made[0] != text:
            return source, made[0], f"{mutation.__name__}: {made[1]}"
    return source, text[: len(text) // 2], "truncate: half (no other mutation applied)"


# ---- Running.

class Outcome:
    PASSED, FAILED, TIMED_OUT, MEMORY = "passed", "failed", "timed out", "memory limit"


def resident_mib(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20
    except (OSError, IndexError, ValueError):
        return 0


def sanitizer_lines(stderr):
    found = []
    for line in stderr.splitlines():
        if any(p in line for p in SANITIZER_PATTERNS):
            found.append(line.strip())
    return found


def run_one(command, timeout, memory_mib, sanitized, env):
    """Runs `command`; returns (outcome, reason, exit code, stderr)."""
    # The limits are set by a shell that then becomes hlovm (exec), in a
    # session of its own so that a kill reaches anything it started.
    limits = "ulimit -c 0"
    if memory_mib > 0 and not sanitized:
        limits += f" && ulimit -v {memory_mib << 10}"
    wrapped = ["/bin/sh", "-c", limits + ' && exec "$@"', "sh", *command]
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(wrapped, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, start_new_session=True, env=env)
        killed = None
        peak = 0
        while True:
            try:
                code = proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() - start > timeout:
                killed = Outcome.TIMED_OUT
            elif memory_mib > 0:
                peak = max(peak, resident_mib(proc.pid))
                if peak > memory_mib:
                    killed = Outcome.MEMORY
            if killed:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                code = proc.wait()
                break
        err.seek(0)
        stderr = err.read(1 << 20).decode("utf-8", errors="replace")
    seconds = time.monotonic() - start
    reports = sanitizer_lines(stderr)
    if reports:
        summary = next((r for r in reports if r.startswith("SUMMARY:")), reports[0])
        return Outcome.FAILED, f"sanitizer: {summary}", code, stderr
    if killed == Outcome.TIMED_OUT:
        return killed, f"killed after {timeout:g}s", code, stderr
    if killed == Outcome.MEMORY:
        return killed, f"killed at {peak} MiB resident (limit {memory_mib} MiB)", code, stderr
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return Outcome.FAILED, f"crashed ({name}) after {seconds:.1f}s", code, stderr
    if code not in (0, 1, 2):
        return Outcome.FAILED, f"exit code {code}", code, stderr
    return Outcome.PASSED, "", code, stderr


def is_sanitized(binary):
    """True when `binary` was built with AddressSanitizer or ThreadSanitizer."""
    needles = (b"__asan_init", b"__tsan_init")
    try:
        with open(binary, "rb") as f:
            tail = b""
            while True:
                chunk = f.read(1 << 22)
                if not chunk:
                    return False
                block = tail + chunk
                if any(n in block for n in needles):
                    return True
                tail = block[-16:]
    except OSError:
        return False


def main():
    root = repo_root()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hlovm", default=os.path.join(root, "build-asan", "repl", "hlovm"),
                        help="the hlovm binary (default: build-asan/repl/hlovm)")
    parser.add_argument("--count", type=int, default=2000, help="mutants to make (default 2000)")
    parser.add_argument("--seconds", type=float, default=0,
                        help="time budget of the whole sweep: no mutant starts after it "
                             "(0: none); mutants left are reported as not run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="mutants run in parallel (default: one per core)")
    parser.add_argument("--seed", type=int, default=1, help="the sweep's seed (default 1)")
    parser.add_argument("--timeout", type=float, default=20,
                        help="seconds each hlovm command may run (default 20)")
    parser.add_argument("--memory-mb", type=int, default=2048,
                        help="memory limit of each hlovm command in MiB (default 2048)")
    parser.add_argument("--keep", default="",
                        help="folder to copy failing mutants into (made if missing)")
    parser.add_argument("--only", type=int, default=None, help="make and run mutant I alone")
    parser.add_argument("--write", default="",
                        help="with --only: write the mutant to this file and run nothing")
    parser.add_argument("--verbose", action="store_true", help="a line for every mutant")
    parser.add_argument("paths", nargs="*", help="sources (default: the corpus models and "
                        "both conformance suites)")
    args = parser.parse_args()

    paths = args.paths or [os.path.join(root, "..", "shared", "corpus", "models"),
                           os.path.join(root, "conformance", "cases"),
                           os.path.join(root, "..", "shared", "conformance", "stablehlo")]
    paths = [p for p in paths if os.path.exists(p)]
    sources = source_files(paths)
    if not sources:
        print("mutation_sweep: no .hlo sources found", file=sys.stderr)
        return 2
    cache = {}
    lock = threading.Lock()

    if args.only is not None and args.write:
        source, text, what = make_mutant(sources, args.seed, args.only, cache)
        with open(args.write, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        print(f"mutant {args.only} (seed {args.seed}): {os.path.relpath(source, root)}: {what}")
        return 0

    if not os.access(args.hlovm, os.X_OK):
        print(f"mutation_sweep: {args.hlovm} is not an executable", file=sys.stderr)
        return 2
    sanitized = is_sanitized(args.hlovm)
    env = dict(os.environ)
    if sanitized:
        for key, value in SANITIZER_ENV.items():
            extra = value
            if key == "ASAN_OPTIONS" and args.memory_mb > 0:
                extra += f":malloc_limit_mb={args.memory_mb}"
            # Options already set by the caller come last and win.
            env[key] = extra + (":" + os.environ[key] if os.environ.get(key) else "")
    run_flags = ["--random", "--threads=1"]

    # The sweep means nothing if the unmutated commands do not work.
    example = os.path.join(root, "examples", "newton_loop.hlo")
    for command in ([args.hlovm, "check", example], [args.hlovm, "run", *run_flags, example]):
        outcome, reason, code, stderr = run_one(command, max(args.timeout, 60), 0, sanitized, env)
        if outcome != Outcome.PASSED or code != 0:
            print(f"mutation_sweep: `{' '.join(command)}` does not succeed ({reason or code}):\n"
                  f"{stderr[-2000:]}", file=sys.stderr)
            return 2

    work = tempfile.mkdtemp(prefix="hlovm_mutants_")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    indices = [args.only] if args.only is not None else list(range(args.count))
    deadline = time.monotonic() + args.seconds if args.seconds > 0 else None
    counts = {Outcome.PASSED: 0, Outcome.FAILED: 0, Outcome.TIMED_OUT: 0, Outcome.MEMORY: 0}
    not_run = [0]
    accepted = [0]  # mutants `hlovm check` accepted (and `hlovm run` then ran)
    failures = []
    start = time.monotonic()

    def one(index):
        if deadline is not None and time.monotonic() > deadline:
            with lock:
                not_run[0] += 1
            return
        with lock:
            source, text, what = make_mutant(sources, args.seed, index, cache)
        path = os.path.join(work, f"mutant_{index}.hlo")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        results = []
        outcome, reason, code, stderr = run_one([args.hlovm, "check", path], args.timeout,
                                                args.memory_mb, sanitized, env)
        results.append(("check", outcome, reason, stderr))
        if outcome == Outcome.PASSED and code == 0:
            with lock:
                accepted[0] += 1
            outcome, reason, code, stderr = run_one([args.hlovm, "run", *run_flags, path],
                                                    args.timeout, args.memory_mb, sanitized, env)
            results.append(("run", outcome, reason, stderr))
        # The worst of the commands decides.
        order = [Outcome.FAILED, Outcome.MEMORY, Outcome.TIMED_OUT, Outcome.PASSED]
        command, outcome, reason, stderr = min(results, key=lambda r: order.index(r[1]))
        rel = os.path.relpath(source, root)
        with lock:
            counts[outcome] += 1
            if outcome == Outcome.FAILED:
                kept = ""
                if args.keep:
                    kept = os.path.join(args.keep, f"mutant_{args.seed}_{index}.hlo")
                    shutil.copyfile(path, kept)
                failures.append(index)
                print(f"FAILED mutant {index} ({rel}: {what}): hlovm {command}: {reason}"
                      + (f" [kept as {kept}]" if kept else ""))
                tail = "\n".join(stderr.strip().splitlines()[-12:])
                if tail:
                    print("  " + tail.replace("\n", "\n  "))
            elif outcome != Outcome.PASSED or args.verbose:
                print(f"{outcome.upper()} mutant {index} ({rel}: {what}): hlovm {command}"
                      + (f": {reason}" if reason else ""))
            sys.stdout.flush()
        os.remove(path)

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for future in [pool.submit(one, i) for i in indices]:
                future.result()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    seconds = time.monotonic() - start
    ran = sum(counts.values())
    print(f"\nmutation sweep: seed {args.seed}, {ran} mutants of {len(sources)} sources run in "
          f"{seconds:.0f}s with --jobs={args.jobs}"
          + f" ({'sanitizer build' if sanitized else 'plain build'}); "
          f"{accepted[0]} passed `hlovm check` and were run")
    print(f"timed out: {counts[Outcome.TIMED_OUT]} (limit {args.timeout:g}s), over the memory "
          f"limit: {counts[Outcome.MEMORY]} (limit {args.memory_mb} MiB), not run (time budget): "
          f"{not_run[0]}; neither is a failure")
    if failures:
        print(f"reproduce one: {os.path.relpath(__file__, os.getcwd())} --seed={args.seed} "
              f"--only={failures[0]} --write=mutant.hlo")
    print(f"{counts[Outcome.PASSED]} passed, {counts[Outcome.FAILED]} failed")
    return 1 if counts[Outcome.FAILED] else 0


if __name__ == "__main__":
    sys.exit(main())
