#include "ops/reduce/reduce.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ops/elementwise/elementwise.h"
#include "ops/reduce/reduce_hwy.h"
#include "ops/reduce/reduce_window.h"

namespace hlovm {
namespace {

// Slow reference: output element of kept multi-index = sum over every
// operand element whose kept coordinates match.
std::vector<int32_t> SlowSum(const std::vector<int64_t>& dims, const std::vector<int64_t>& red,
                             const std::vector<int32_t>& x, int32_t init) {
  const int rank = static_cast<int>(dims.size());
  std::vector<bool> is_red(rank, false);
  for (int64_t d : red) is_red[d] = true;
  int64_t out_n = 1;
  for (int d = 0; d < rank; ++d) {
    if (!is_red[d]) out_n *= dims[d];
  }
  std::vector<int32_t> out(out_n, init);
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    int64_t idx = i, o = 0, mul = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = idx % dims[d];
      idx /= dims[d];
      if (!is_red[d]) {
        o += c * mul;
        mul *= dims[d];
      }
    }
    out[o] += x[i];
  }
  return out;
}

std::vector<int32_t> FastSum(const std::vector<int64_t>& dims, const std::vector<int64_t>& red,
                             const std::vector<int32_t>& x, int32_t init) {
  auto g = MakeReduceGeometry(dims, red);
  EXPECT_TRUE(g.ok());
  auto add = SelectBinaryKernel(HloOpcode::kAdd, ElementType::kS32, ElementType::kS32);
  EXPECT_TRUE(add.ok());
  std::vector<int32_t> out(std::max<int64_t>(g->out_count, 1), -7);
  const auto* in = reinterpret_cast<const uint8_t*>(x.data());
  const auto* ini = reinterpret_cast<const uint8_t*>(&init);
  auto* o = reinterpret_cast<uint8_t*>(out.data());
  if (g->runs) {
    ReduceRunsBlock(*g, 4, *add, SelectRunFoldKernel(HloOpcode::kAdd, ElementType::kS32), in, ini,
                    o, 0, g->out_count);
  } else {
    ReduceRowsBlock(*g, 4, *add, in, ini, o, 0, g->outer, 0, g->inner,
                    SelectRowFold4Kernel(HloOpcode::kAdd, ElementType::kS32));
  }
  out.resize(g->out_count);
  return out;
}

TEST(ReduceTest, MatchesSlowReferenceForEveryDimensionSubset) {
  std::mt19937 rng(7);
  const std::vector<std::vector<int64_t>> shapes = {
      {5}, {3, 4}, {2, 3, 4}, {4, 1, 3, 5}, {2, 3, 1, 2, 3}, {1, 7, 1}, {9, 5, 6}};
  for (const auto& dims : shapes) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<int32_t> x(n);
    for (auto& v : x) v = static_cast<int32_t>(rng() % 1000) - 500;
    const int rank = static_cast<int>(dims.size());
    for (int mask = 0; mask < (1 << rank); ++mask) {
      std::vector<int64_t> red;
      for (int d = 0; d < rank; ++d) {
        if (mask & (1 << d)) red.push_back(d);
      }
      EXPECT_EQ(FastSum(dims, red, x, 3), SlowSum(dims, red, x, 3))
          << "rank " << rank << " mask " << mask;
    }
  }
}

TEST(ReduceTest, EmptyOperandGivesInit) {
  EXPECT_EQ(FastSum({3, 0}, {1}, {}, 9), (std::vector<int32_t>{9, 9, 9}));
}

TEST(ReduceTest, RejectsBadDimensions) {
  EXPECT_FALSE(MakeReduceGeometry({2, 3}, {2}).ok());
  EXPECT_FALSE(MakeReduceGeometry({2, 3}, {1, 1}).ok());
}

TEST(ReduceTest, FloatSumFoldIsCloseToDoubleSum) {
  std::vector<float> x(100003);
  double ref = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>((i * 37) % 101) * 0.25f;
    ref += x[i];
  }
  float acc = 1.0f;
  SelectRunFoldKernel(HloOpcode::kAdd, ElementType::kF32)(&acc, x.data(), x.size());
  EXPECT_NEAR(acc, ref + 1.0, 1e-5 * ref);
}

// The vector sum uses aligned loads, but each element's place in the sum is
// fixed by its index: the same bits wherever the run starts in memory.
TEST(ReduceTest, FloatSumSameBitsAtEveryAlignment) {
  for (int64_t n : {0, 1, 7, 63, 64, 65, 1000, 4099}) {
    std::vector<float> base(n + 64);
    for (int64_t i = 0; i < n + 64; ++i) base[i] = std::sin(static_cast<float>(i)) * 1e3f;
    std::vector<float> bits;
    for (int off = 0; off < 16; ++off) {
      std::vector<float> buf(n + 32);
      float* x = buf.data() + off;
      std::memcpy(x, base.data(), n * sizeof(float));
      const float s = reduce_internal::HwySumF32(x, n);
      bits.push_back(s);
      EXPECT_EQ(std::memcmp(&bits[0], &s, 4), 0) << "n " << n << " offset " << off;
    }
    double ref = 0;
    for (int64_t i = 0; i < n; ++i) ref += base[i];
    EXPECT_NEAR(bits[0], ref, 1e-3 + 1e-5 * std::abs(ref)) << n;
  }
}

TEST(ReduceTest, FloatMaxMinFoldPropagateNaN) {
  std::vector<float> x(100, 1.0f);
  x[37] = 5.0f;
  x[80] = -3.0f;
  float acc = -1e30f;
  SelectRunFoldKernel(HloOpcode::kMaximum, ElementType::kF32)(&acc, x.data(), x.size());
  EXPECT_EQ(acc, 5.0f);
  acc = 1e30f;
  SelectRunFoldKernel(HloOpcode::kMinimum, ElementType::kF32)(&acc, x.data(), x.size());
  EXPECT_EQ(acc, -3.0f);
  x[50] = std::nanf("");
  acc = 0.0f;
  SelectRunFoldKernel(HloOpcode::kMaximum, ElementType::kF32)(&acc, x.data(), x.size());
  EXPECT_TRUE(std::isnan(acc));
}

// bf16/f16 max and min folds agree with folding element by element through
// the elementwise kernel (XLA's semantics: NaN wins, +0 above -0), over
// lengths that cross the folds' internal blocks.
TEST(ReduceTest, NarrowFloatMaxMinFoldsMatchElementwiseFolding) {
  std::mt19937 rng(7);
  for (ElementType type : {ElementType::kBF16, ElementType::kF16}) {
    for (HloOpcode op : {HloOpcode::kMaximum, HloOpcode::kMinimum}) {
      const RunFoldKernel fold = SelectRunFoldKernel(op, type);
      ASSERT_NE(fold, nullptr);
      auto binary = SelectBinaryKernel(op, type, type);
      ASSERT_TRUE(binary.ok());
      for (int64_t n : {1, 7, 511, 512, 513, 1500}) {
        for (int variant = 0; variant < 3; ++variant) {
          std::vector<uint16_t> x(n);
          for (auto& v : x) {
            // Finite values of either sign (exponent field below the top).
            v = static_cast<uint16_t>(rng() & (type == ElementType::kBF16 ? 0xbf7f : 0xbbff));
          }
          if (variant == 1) {  // signed zeros only
            for (int64_t i = 0; i < n; ++i) x[i] = (i % 2) ? 0x8000 : 0x0000;
          }
          const uint16_t nan = type == ElementType::kBF16 ? 0x7fc0 : 0x7e00;
          if (variant == 2) x[n / 2] = nan;
          uint16_t expected = x[0], got = x[0];
          for (int64_t i = 1; i < n; ++i) (*binary)(&expected, &x[i], &expected, 1);
          fold(&got, x.data() + 1, n - 1);
          EXPECT_EQ(got, expected) << ElementTypeName(type) << " " << HloOpcodeName(op)
                                   << " n=" << n << " variant " << variant;
        }
      }
    }
  }
}

TEST(ReduceTest, SplitPartialsCombineToTheSameBitsInAnyBlockOrder) {
  const int64_t n = 5 * kReduceSplitBlock + 123;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 997) * 1e-3f;
  auto add = *SelectBinaryKernel(HloOpcode::kAdd, ElementType::kF32, ElementType::kF32);
  auto fold = SelectRunFoldKernel(HloOpcode::kAdd, ElementType::kF32);
  float id;
  ASSERT_TRUE(ReduceIdentity(HloOpcode::kAdd, ElementType::kF32, &id));
  const int64_t blocks = (n + kReduceSplitBlock - 1) / kReduceSplitBlock;
  std::vector<float> p1(blocks), p2(blocks);
  for (int64_t b = 0; b < blocks; ++b) {
    ReduceRunBlockPartial(4, add, fold, reinterpret_cast<uint8_t*>(&id),
                          reinterpret_cast<uint8_t*>(x.data()), n, b,
                          reinterpret_cast<uint8_t*>(p1.data()));
  }
  for (int64_t b = blocks - 1; b >= 0; --b) {
    ReduceRunBlockPartial(4, add, fold, reinterpret_cast<uint8_t*>(&id),
                          reinterpret_cast<uint8_t*>(x.data()), n, b,
                          reinterpret_cast<uint8_t*>(p2.data()));
  }
  float a1 = 0, a2 = 0;
  CombinePartials(4, add, reinterpret_cast<uint8_t*>(p1.data()), blocks,
                  reinterpret_cast<uint8_t*>(&a1));
  CombinePartials(4, add, reinterpret_cast<uint8_t*>(p2.data()), blocks,
                  reinterpret_cast<uint8_t*>(&a2));
  EXPECT_EQ(std::memcmp(&a1, &a2, 4), 0);
  double ref = 0;
  for (float v : x) ref += v;
  EXPECT_NEAR(a1, ref, 1e-5 * ref);
}

TEST(ReduceWindowTest, OffsetsMatchDilatedPaddedReference) {
  // 1-D operand of 5, base dilation 2 (9 positions), padding 1/1, window 3,
  // stride 2.
  Window w(1);
  w[0].size = 3;
  w[0].stride = 2;
  w[0].padding_low = 1;
  w[0].padding_high = 1;
  w[0].base_dilation = 2;
  // Padded dilated length 11; windows span 3; outputs (11 - 3) / 2 + 1 = 5.
  auto g = MakeWindowGeometry({5}, {5}, w);
  ASSERT_TRUE(g.ok());
  WindowScratch s;
  std::vector<int64_t> off;
  std::vector<std::vector<int64_t>> got;
  for (int64_t q = 0; q < 5; ++q) {
    WindowOffsets(*g, q, &s, &off);
    got.push_back(off);
  }
  // Window q covers dilated positions 2q-1, 2q, 2q+1 (even ones are operand
  // elements, odd ones holes, -1 and 9 padding).
  for (int64_t q = 0; q < 5; ++q) {
    std::vector<int64_t> want;
    for (int64_t k = 0; k < 3; ++k) {
      const int64_t p = 2 * q + k - 1;
      if (p >= 0 && p % 2 == 0 && p / 2 < 5) want.push_back(p / 2);
    }
    EXPECT_EQ(got[q], want);
  }
}

TEST(ReduceWindowTest, TwoDimensionalOffsetsInRowMajorWindowOrder) {
  Window w(2);
  w[0].size = 2;
  w[1].size = 2;
  w[1].padding_low = 1;
  auto g = MakeWindowGeometry({2, 3}, {1, 3}, w);
  ASSERT_TRUE(g.ok());
  WindowScratch s;
  std::vector<int64_t> off;
  WindowOffsets(*g, 0, &s, &off);
  EXPECT_EQ(off, (std::vector<int64_t>{0, 3}));
  WindowOffsets(*g, 1, &s, &off);
  EXPECT_EQ(off, (std::vector<int64_t>{0, 1, 3, 4}));
}

TEST(ReduceWindowTest, RecognisesForwardCumulativeWindowOnly) {
  Window w(2);
  w[1].size = 6;
  w[1].padding_low = 5;
  auto s = MatchCumulativeWindow({4, 6}, w);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->outer, 4);
  EXPECT_EQ(s->n, 6);
  EXPECT_EQ(s->inner, 1);
  w[1].padding_low = 0;
  w[1].padding_high = 5;
  EXPECT_FALSE(MatchCumulativeWindow({4, 6}, w).has_value());
  w[1].padding_low = 5;
  w[1].padding_high = 0;
  w[1].stride = 2;
  EXPECT_FALSE(MatchCumulativeWindow({4, 6}, w).has_value());
}

TEST(ReduceTest, ReportsSimdTarget) {
  ASSERT_NE(reduce_internal::ReduceSimdTarget(), nullptr);
  std::printf("reduce folds run on %s\n", reduce_internal::ReduceSimdTarget());
}

}  // namespace
}  // namespace hlovm
