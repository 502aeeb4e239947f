// End-to-end tests of reduce, reduce-window and select-and-scatter through
// the VM: kernel paths, compiled reducers, and results that are the same bits
// for any thread count.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::RunWith;
using vm_test::Values;

// A long f32 sum splits into fixed blocks combined in a fixed tree: the same
// bits with 1, 2 and 4 threads, and close to a double-precision sum.
TEST(LowerReduceTest, LongSumSameBitsAnyThreadCount) {
  const int64_t n = 3000007;
  auto exe = Build(R"(
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY e {
  p = f32[3000007] parameter(0)  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
})");
  ASSERT_NE(exe, nullptr);
  std::vector<float> x(n);
  double ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>((i * 7919) % 1013) * 1e-3f;
    ref += x[i];
  }
  Literal in = Array(ElementType::kF32, {n}, x);
  const float r1 = Values<float>(RunWith(*exe, {&in}, 1))[0];
  const float r2 = Values<float>(RunWith(*exe, {&in}, 2))[0];
  const float r4 = Values<float>(RunWith(*exe, {&in}, 4))[0];
  EXPECT_EQ(std::memcmp(&r1, &r2, 4), 0);
  EXPECT_EQ(std::memcmp(&r1, &r4, 4), 0);
  EXPECT_NEAR(r1, ref, 1e-5 * ref);
}

// Rows and columns of a large matrix: the per-element serial order for the
// kept-inner case, vectorised folds for the reduced-inner case.
TEST(LowerReduceTest, RowAndColumnSumsAnyThreadCount) {
  const int64_t r = 700, c = 900;
  auto exe = Build(R"(
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY e {
  p = f32[700,900] parameter(0)  z = f32[] constant(1)
  rows = f32[700] reduce(p, z), dimensions={1}, to_apply=add
  cols = f32[900] reduce(p, z), dimensions={0}, to_apply=add
  ROOT t = (f32[700], f32[900]) tuple(rows, cols)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<float> x(r * c);
  for (int64_t i = 0; i < r * c; ++i) x[i] = static_cast<float>(i % 17) - 8.0f;
  Literal in = Array(ElementType::kF32, {r, c}, x);
  Literal a = RunWith(*exe, {&in}, 1);
  Literal b = RunWith(*exe, {&in}, 2);
  const auto& parts_a = a.tuple_elements();
  const auto& parts_b = b.tuple_elements();
  ASSERT_EQ(parts_a.size(), 2u);
  std::vector<float> rows = Values<float>(parts_a[0]), cols = Values<float>(parts_a[1]);
  EXPECT_EQ(rows, Values<float>(parts_b[0]));
  EXPECT_EQ(cols, Values<float>(parts_b[1]));
  for (int64_t i = 0; i < r; ++i) {
    float s = 1;
    for (int64_t j = 0; j < c; ++j) s += x[i * c + j];
    EXPECT_EQ(rows[i], s) << i;  // small integers: exact in any order
  }
  for (int64_t j = 0; j < c; ++j) {
    float s = 1;
    for (int64_t i = 0; i < r; ++i) s += x[i * c + j];
    EXPECT_EQ(cols[j], s) << j;
  }
}

// Variadic argmax through a compiled reducer: first index of the maximum.
TEST(LowerReduceTest, VariadicArgmaxCompiledReducer) {
  auto exe = Build(R"(
HloModule m
argmax {
  av = f32[] parameter(0)  ai = s32[] parameter(1)  bv = f32[] parameter(2)  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, av, bv)
  i = s32[] select(keep, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  p = f32[2,5] parameter(0)
  io = s32[2,5] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)  zero = s32[] constant(0)
  ROOT r = (f32[2], s32[2]) reduce(p, io, ninf, zero), dimensions={1}, to_apply=argmax
})");
  ASSERT_NE(exe, nullptr);
  Literal in = Array<float>(ElementType::kF32, {2, 5}, {1, 9, 3, 9, 2, -1, -5, -0.5f, -7, -2});
  Literal res = RunWith(*exe, {&in}, 1);
  const auto& parts = res.tuple_elements();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(Values<float>(parts[0]), (std::vector<float>{9, -0.5f}));
  EXPECT_EQ(Values<int32_t>(parts[1]), (std::vector<int32_t>{1, 2}));
}

// The cumulative-sum pattern runs as a scan: out[j] = out[j-1] + x[j], which
// is exactly each window's serial fold.
TEST(LowerReduceTest, CumulativeSumPatternIsSerialPrefix) {
  const int64_t n = 1000;
  auto exe = Build(R"(
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY e {
  p = f32[3,1000] parameter(0)  z = f32[] constant(0)
  ROOT r = f32[3,1000] reduce-window(p, z), window={size=1x1000 pad=0_0x999_0}, to_apply=add
})");
  ASSERT_NE(exe, nullptr);
  std::vector<float> x(3 * n);
  for (int64_t i = 0; i < 3 * n; ++i) x[i] = std::sin(static_cast<float>(i)) * 100.0f;
  Literal in = Array(ElementType::kF32, {3, n}, x);
  std::vector<float> got = Values<float>(RunWith(*exe, {&in}, 2));
  for (int64_t o = 0; o < 3; ++o) {
    float acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      acc += x[o * n + j];
      ASSERT_EQ(got[o * n + j], acc) << o << "," << j;
    }
  }
}

// A general window (stride, padding, base dilation) with a compiled reducer
// gives the same values as the single-op kernel path.
TEST(LowerReduceTest, WindowCompiledReducerMatchesKernel) {
  auto exe = Build(R"(
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
add2 { a = f32[] parameter(0)  b = f32[] parameter(1)  s = f32[] add(a, b)  ROOT r = f32[] add(s, s) }
ENTRY e {
  p = f32[4,5] parameter(0)  z = f32[] constant(0)
  k = f32[4,3] reduce-window(p, z), window={size=2x3 stride=2x2 pad=1_1x1_1 lhs_dilate=2x1}, to_apply=add
  c = f32[4,3] reduce-window(p, z), window={size=2x3 stride=2x2 pad=1_1x1_1 lhs_dilate=2x1}, to_apply=add2
  ROOT t = (f32[4,3], f32[4,3]) tuple(k, c)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<float> x(20);
  for (int i = 0; i < 20; ++i) x[i] = static_cast<float>(i + 1);
  Literal in = Array(ElementType::kF32, {4, 5}, x);
  Literal res = RunWith(*exe, {&in}, 1);
  const auto& parts = res.tuple_elements();
  ASSERT_EQ(parts.size(), 2u);
  std::vector<float> k = Values<float>(parts[0]), c = Values<float>(parts[1]);
  // Slow reference: dilated operand rows at 0, 2, 4, 6 (7 rows), padded by 1.
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      float s = 0;
      for (int64_t wi = 0; wi < 2; ++wi) {
        for (int64_t wj = 0; wj < 3; ++wj) {
          const int64_t pi = i * 2 + wi - 1, pj = j * 2 + wj - 1;
          if (pi < 0 || pi % 2 != 0 || pi / 2 >= 4 || pj < 0 || pj >= 5) continue;
          s += x[(pi / 2) * 5 + pj];
        }
      }
      EXPECT_EQ(k[i * 3 + j], s) << i << "," << j;
    }
  }
  // add2 doubles after every step: window (1, 1) covers operand row 1,
  // columns 1..3 (values 7, 8, 9) in order: ((0 + 7) * 2 + 8) * 2 + 9) * 2.
  EXPECT_EQ(c[4], ((7.0f * 2 + 8) * 2 + 9) * 2);
  EXPECT_EQ(k[4], 7.0f + 8 + 9);
}

// The seed's select-and-scatter example with overlapping windows.
// Pooling over NHWC (unit windows on the channels) folds whole rows of
// channels with the vectorized kernel: each output element still sees init
// and then its in-bounds window elements in row-major window order, so max
// keeps the first NaN and +0 over -0, and a sum of zeros keeps its sign, as
// one window at a time does. Padding and a dilated height are skipped.
TEST(LowerReduceTest, PoolingFoldsRowsOfChannelsInWindowOrder) {
  auto exe = Build(R"(
HloModule m
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] maximum(a, b) }
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY e {
  p = f32[2,7,6,9] parameter(0)  ninf = f32[] constant(-inf)  mz = f32[] constant(-0)
  m = f32[2,4,3,9] reduce-window(p, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
  s = f32[2,7,3,9] reduce-window(p, mz), window={size=1x2x3x1 stride=1x2x2x1 pad=0_0x1_0x1_1x0_0 lhs_dilate=1x2x1x1}, to_apply=add
  ROOT t = (f32[2,4,3,9], f32[2,7,3,9]) tuple(m, s)
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_NE(exe->Disassemble().find("rows of 9"), std::string::npos);
  const int64_t N = 2, H = 7, W = 6, C = 9;
  std::vector<float> x(N * H * W * C);
  for (size_t i = 0; i < x.size(); ++i) {
    const int r = static_cast<int>(i % 11);
    x[i] = r == 0 ? std::nanf("") : r == 1 ? -0.0f : r == 2 ? 0.0f : std::sin(float(i)) * 10;
  }
  x[5] = -std::nanf("");  // a second NaN in the same window as the first
  auto at = [&](int64_t n, int64_t h, int64_t w, int64_t c) { return x[((n * H + h) * W + w) * C + c]; };
  auto max = [](float a, float b) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
  };
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  Literal in = Array(ElementType::kF32, {N, H, W, C}, x);
  for (int threads : {1, 2}) {
    Literal res = RunWith(*exe, {&in}, threads);
    const std::vector<float> m = Values<float>(res.tuple_elements()[0]);
    const std::vector<float> s = Values<float>(res.tuple_elements()[1]);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t oh = 0; oh < 4; ++oh) {
          for (int64_t ow = 0; ow < 3; ++ow) {
            float acc = -INFINITY;
            for (int64_t kh = 0; kh < 3; ++kh) {
              for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t h = oh * 2 + kh - 1, w = ow * 2 + kw - 1;
                if (h >= 0 && h < H && w >= 0 && w < W) acc = max(acc, at(n, h, w, c));
              }
            }
            ASSERT_EQ(bits(m[((n * 4 + oh) * 3 + ow) * C + c]), bits(acc)) << n << oh << ow << c;
          }
        }
        for (int64_t oh = 0; oh < 7; ++oh) {
          for (int64_t ow = 0; ow < 3; ++ow) {
            float acc = -0.0f;
            for (int64_t kh = 0; kh < 2; ++kh) {
              for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t dh = oh * 2 + kh - 1, w = ow * 2 + kw - 1;
                if (dh < 0 || dh % 2 != 0 || dh / 2 >= H || w < 0 || w >= W) continue;
                acc += at(n, dh / 2, w, c);
              }
            }
            ASSERT_EQ(bits(s[((n * 7 + oh) * 3 + ow) * C + c]), bits(acc)) << n << oh << ow << c;
          }
        }
      }
    }
  }
}

TEST(LowerReduceTest, SelectAndScatterOverlappingWindows) {
  auto exe = Build(R"(
HloModule m
ge { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = pred[] compare(a, b), direction=GE }
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY e {
  o = f32[1,5] parameter(0)  s = f32[1,2] parameter(1)  z = f32[] constant(0)
  ROOT r = f32[1,5] select-and-scatter(o, s, z), window={size=1x3 stride=1x2}, select=ge, scatter=add
})");
  ASSERT_NE(exe, nullptr);
  Literal o = Array<float>(ElementType::kF32, {1, 5}, {1, 5, 7, 2, 3});
  Literal s = Array<float>(ElementType::kF32, {1, 2}, {10, 20});
  EXPECT_EQ(Values<float>(RunWith(*exe, {&o, &s}, 1)), (std::vector<float>{0, 0, 30, 0, 0}));
}

}  // namespace
}  // namespace hlovm
