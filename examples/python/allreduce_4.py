"""A 4-replica all-reduce from Python: each replica scales its own input by
its replica id, one all-reduce sums the shards, and every replica ends with
the same total (examples/allreduce_4.hlo).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/allreduce_4.py
"""
import pathlib

import numpy as np

import hlovm

HLO = pathlib.Path(__file__).resolve().parents[1] / "allreduce_4.hlo"


def main():
    module = hlovm.load(HLO)
    print(f"{module}, {module.instances} replicas")
    # One input per replica.
    inputs = [np.array([1, 2, 0.5], np.float32) * (r + 1) for r in range(module.instances)]
    results = module.run_replicated(inputs)
    expected = sum(r * x for r, x in enumerate(inputs))
    for replica, result in enumerate(results):
        np.testing.assert_array_equal(result, expected)
        print(f"replica {replica}: {result}")


if __name__ == "__main__":
    main()
