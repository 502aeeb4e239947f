"""An MLP forward pass from Python: relu(x @ w1 + b1) @ w2 + b2 compiled from
HLO text, run on NumPy arrays, and checked against NumPy.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/mlp_forward.py
"""
import numpy as np

import hlovm

BATCH, IN, HIDDEN, OUT = 32, 64, 128, 10

MLP = f"""
HloModule mlp_forward

ENTRY main {{
  x = f32[{BATCH},{IN}] parameter(0)
  w1 = f32[{IN},{HIDDEN}] parameter(1)
  b1 = f32[{HIDDEN}] parameter(2)
  w2 = f32[{HIDDEN},{OUT}] parameter(3)
  b2 = f32[{OUT}] parameter(4)
  h = f32[{BATCH},{HIDDEN}] dot(x, w1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  b1b = f32[{BATCH},{HIDDEN}] broadcast(b1), dimensions={{1}}
  hb = f32[{BATCH},{HIDDEN}] add(h, b1b)
  zero = f32[] constant(0)
  zeros = f32[{BATCH},{HIDDEN}] broadcast(zero), dimensions={{}}
  relu = f32[{BATCH},{HIDDEN}] maximum(hb, zeros)
  y = f32[{BATCH},{OUT}] dot(relu, w2), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  b2b = f32[{BATCH},{OUT}] broadcast(b2), dimensions={{1}}
  ROOT out = f32[{BATCH},{OUT}] add(y, b2b)
}}
"""


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, IN), np.float32)
    w1 = rng.standard_normal((IN, HIDDEN), np.float32) / np.sqrt(IN)
    b1 = rng.standard_normal(HIDDEN, np.float32) * 0.1
    w2 = rng.standard_normal((HIDDEN, OUT), np.float32) / np.sqrt(HIDDEN)
    b2 = rng.standard_normal(OUT, np.float32) * 0.1

    model = hlovm.compile(MLP)
    y = model(x, w1, b1, w2, b2)

    expected = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    print(f"{model}")
    print(f"y: {y.dtype}{list(y.shape)}, max |y - numpy| = {np.abs(y - expected).max():.2e}")
    print("predicted classes of the first 8 rows:", y.argmax(axis=1)[:8])


if __name__ == "__main__":
    main()
