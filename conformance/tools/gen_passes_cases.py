#!/usr/bin/env python3
"""Cases for the pass pipeline (family `passes`): loops with loop-invariant
work behind a call, and a loop that never runs. Expected values are
computed here in Python integers wrapped to int32 as HLO's s32 arithmetic
wraps."""

import os

OUT = os.path.join(os.path.dirname(__file__), '..', 'cases', 'passes')


def wrap32(x):
    """x modulo 2^32 as a signed 32-bit value."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= (1 << 31) else x


def invariant_reduce_case(n):
    """JAX's b/380442861 pattern: each iteration recomputes reduce(iota*iota)."""
    inner = wrap32(sum(i * i for i in range(n)))
    acc = 0
    for i in range(n):
        acc = wrap32(acc + wrap32(inner + i))
    return f"""// source: Python integers, conformance/tools/gen_passes_cases.py
// family: passes
HloModule licm_invariant_reduce_{n}, entry_computation_layout={{()->s32[]}}

region_add {{
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}}

callee {{
  acc = s32[] parameter(0)
  x = s32[] parameter(1)
  iota = s32[{n}] iota(), iota_dimension=0
  sq = s32[{n}] multiply(iota, iota)
  zero = s32[] constant(0)
  sum = s32[] reduce(sq, zero), dimensions={{0}}, to_apply=region_add
  t = s32[] add(sum, acc)
  ROOT r = s32[] add(x, t)
}}

body {{
  p = (s32[], s32[], s32[{n}]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  v = s32[{n}] get-tuple-element(p), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ds = s32[1] dynamic-slice(v, i), dynamic_slice_sizes={{1}}
  x = s32[] reshape(ds)
  acc1 = s32[] call(acc, x), to_apply=callee
  ROOT t = (s32[], s32[], s32[{n}]) tuple(i1, acc1, v)
}}

cond {{
  p = (s32[], s32[], s32[{n}]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  limit = s32[] constant({n})
  ROOT lt = pred[] compare(i, limit), direction=LT
}}

ENTRY main {{
  zero = s32[] constant(0)
  iota = s32[{n}] iota(), iota_dimension=0
  init = (s32[], s32[], s32[{n}]) tuple(zero, zero, iota)
  w = (s32[], s32[], s32[{n}]) while(init), condition=cond, body=body
  ROOT result = s32[] get-tuple-element(w), index=1
  expected = s32[] constant({int(acc)})
  check = () custom-call(result, expected), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
}}
"""


def zero_trip_case():
    """The condition fails on the first test: the result is the initial value."""
    return """// source: hand-computed, conformance/tools/gen_passes_cases.py
// family: passes
HloModule while_zero_trip, entry_computation_layout={()->(s32[], f32[3])}

body {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[3] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  e = f32[3] exponential(x)
  ROOT t = (s32[], f32[3]) tuple(i1, e)
}

cond {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  start = s32[] constant(9)
  x = f32[3] constant({-0, nan, 2.5})
  init = (s32[], f32[3]) tuple(start, x)
  ROOT w = (s32[], f32[3]) while(init), condition=cond, body=body
  i = s32[] get-tuple-element(w), index=0
  v = f32[3] get-tuple-element(w), index=1
  ei = s32[] constant(9)
  ev = f32[3] constant({-0, nan, 2.5})
  c0 = () custom-call(i, ei), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
  c1 = () custom-call(v, ev), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
}
"""


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = {
        'licm_invariant_reduce_1000.hlo': invariant_reduce_case(1000),
        'licm_invariant_reduce_20000.hlo': invariant_reduce_case(20000),
        'while_zero_trip.hlo': zero_trip_case(),
    }
    for name, text in cases.items():
        with open(os.path.join(OUT, name), 'w') as f:
            f.write(text)


if __name__ == '__main__':
    main()
