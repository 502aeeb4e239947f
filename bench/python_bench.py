"""Costs of calling hlovm from Python, as ratios measured in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--quick]

1. A one-add module on two 8-element float32 arrays against np.add on the
   same arrays, timed in turn round by round (goal: at most 3x).
2. A module that reads one element of its input, called with 4 KiB and with
   64 MiB inputs: with no copy the call takes the same time at both sizes
   (goal: ratio within noise, about 1). The same 64 MiB input misaligned by
   one byte, which must be copied, shows what a copy would cost.
"""
import statistics
import sys
import timeit

import numpy as np

import hlovm


def per_call_ns(fn, number, repeat=7):
    """The median over `repeat` runs of `number` calls, in ns per call."""
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e9


def paired_ratios(fn, reference, number, rounds=9):
    """fn against reference, timed in turn round by round (so that a change
    in the machine's speed meets both): the per-call times' medians and the
    per-round ratios' median, min and max."""
    ours, theirs, ratios = [], [], []
    for _ in range(rounds):
        a = timeit.timeit(fn, number=number) / number * 1e9
        b = timeit.timeit(reference, number=number) / number * 1e9
        ours.append(a)
        theirs.append(b)
        ratios.append(a / b)
    return (statistics.median(ours), statistics.median(theirs), statistics.median(ratios),
            min(ratios), max(ratios))


def first_element_module(n):
    return hlovm.compile(f"""
HloModule first
ENTRY e {{
  x = f32[{n}] parameter(0)
  ROOT s = f32[1] slice(x), slice={{[0:1]}}
}}""")


def main():
    quick = "--quick" in sys.argv
    number = 20000 if not quick else 2000

    add = hlovm.compile("""
HloModule add
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  ROOT s = f32[8] add(x, y)
}""")
    a = np.arange(8, dtype=np.float32)
    b = np.ones(8, np.float32)
    assert (add(a, b) == np.add(a, b)).all()
    t_add, t_np, ratio, low, high = paired_ratios(lambda: add(a, b), lambda: np.add(a, b), number)
    t_add1, _, ratio1, low1, high1 = paired_ratios(lambda: add(a, b, threads=1),
                                                    lambda: np.add(a, b), number)
    print(f"one add, f32[8]:   hlovm {t_add:8.0f} ns   (threads=1: {t_add1:.0f} ns)   "
          f"np.add {t_np:6.0f} ns   ratio {ratio:5.2f} [{low:.2f}-{high:.2f}] "
          f"(threads=1: {ratio1:.2f} [{low1:.2f}-{high1:.2f}]; goal <= 3)")

    small_n, large_n = 1024, 16 << 20  # 4 KiB and 64 MiB of float32
    small_m, large_m = first_element_module(small_n), first_element_module(large_n)
    small = np.ones(small_n, np.float32)
    large = np.ones(large_n, np.float32)
    misaligned = np.ones(4 * large_n + 1, np.uint8)[1:].view(np.float32)
    calls = number // 4
    t_small = per_call_ns(lambda: small_m(small, threads=1), calls)
    t_large = per_call_ns(lambda: large_m(large, threads=1), calls)
    t_copy = per_call_ns(lambda: large_m(misaligned, threads=1), 5, repeat=5)
    print(f"read one element:  4 KiB input {t_small:8.0f} ns   64 MiB input {t_large:8.0f} ns   "
          f"ratio {t_large / t_small:5.2f} (goal: ~1, no copy)")
    print(f"                   64 MiB misaligned (copied) {t_copy / 1e3:8.0f} us   "
          f"= {t_copy / t_large:.0f}x the in-place call")


if __name__ == "__main__":
    main()
