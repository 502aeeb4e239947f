// Runs the Highway generators of rng_hwy.cc on every SIMD target compiled in
// and supported here (Highway's per-target test suite, hwy_gtest.h) and
// compares them bit for bit with the scalar blocks of rng_bits.h (which the
// known-answer tests of rng_bits_test.cc pin down), for counts that end in
// a partial vector on every target.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "ops/rng/rng_bits.h"
#include "ops/rng/rng_hwy.h"

namespace hlovm {
namespace rng_internal {
namespace {

HWY_BEFORE_TEST(RngHwyTest);

// Random counters and keys, plus the all-zero and all-ones words.
std::vector<uint32_t> Words(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> w(n);
  for (uint32_t& x : w) x = static_cast<uint32_t>(rng());
  if (n > 0) w[0] = 0;
  if (n > 1) w[n - 1] = 0xFFFFFFFFu;
  return w;
}

std::vector<int64_t> Counts() {
  std::vector<int64_t> counts;
  for (int64_t n = 0; n <= 40; ++n) counts.push_back(n);
  for (int64_t n : {63, 64, 65, 1000}) counts.push_back(n);
  return counts;
}

TEST_P(RngHwyTest, RunsOnTheTargetUnderTest) {
  EXPECT_EQ(std::string(HwyRngTarget()), hwy::TargetName(GetParam()));
}

TEST_P(RngHwyTest, ThreeFryMatchesScalarBlocks) {
  for (const std::array<uint32_t, 2>& key :
       {std::array<uint32_t, 2>{0, 0}, std::array<uint32_t, 2>{0xFFFFFFFFu, 0xFFFFFFFFu},
        std::array<uint32_t, 2>{0x13198a2eu, 0x03707344u}}) {
    for (int64_t n : Counts()) {
      const std::vector<uint32_t> a = Words(n, 1), b = Words(n, 2);
      std::vector<uint32_t> x0 = a, x1 = b;
      HwyThreeFry2x32(key[0], key[1], x0.data(), x1.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const std::array<uint32_t, 2> want = ThreeFry2x32Block(key, {a[i], b[i]});
        ASSERT_EQ(x0[i], want[0]) << "n=" << n << " i=" << i;
        ASSERT_EQ(x1[i], want[1]) << "n=" << n << " i=" << i;
      }
    }
  }
}

TEST_P(RngHwyTest, PhiloxMatchesScalarBlocks) {
  for (const std::array<uint32_t, 2>& key :
       {std::array<uint32_t, 2>{0, 0}, std::array<uint32_t, 2>{0xFFFFFFFFu, 0xFFFFFFFFu},
        std::array<uint32_t, 2>{0xa4093822u, 0x299f31d0u}}) {
    for (int64_t n : Counts()) {
      const std::vector<uint32_t> a = Words(n, 3), b = Words(n, 4), c = Words(n, 5),
                                  d = Words(n, 6);
      std::vector<uint32_t> x0 = a, x1 = b, x2 = c, x3 = d;
      HwyPhilox4x32(key[0], key[1], x0.data(), x1.data(), x2.data(), x3.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const std::array<uint32_t, 4> want = Philox4x32Block(key, {a[i], b[i], c[i], d[i]});
        ASSERT_EQ((std::array<uint32_t, 4>{x0[i], x1[i], x2[i], x3[i]}), want)
            << "n=" << n << " i=" << i;
      }
    }
  }
}

// The Random123 known answers through the vector path itself (a full
// vector of the same counter on every target).
TEST_P(RngHwyTest, KnownAnswersInEveryLane) {
  constexpr int64_t kN = 32;
  std::vector<uint32_t> x0(kN, 0x243f6a88u), x1(kN, 0x85a308d3u);
  HwyThreeFry2x32(0x13198a2eu, 0x03707344u, x0.data(), x1.data(), kN);
  for (int64_t i = 0; i < kN; ++i) {
    EXPECT_EQ(x0[i], 0xc4923a9cu);
    EXPECT_EQ(x1[i], 0x483df7a0u);
  }
  std::vector<uint32_t> p0(kN, 0x243f6a88u), p1(kN, 0x85a308d3u), p2(kN, 0x13198a2eu),
      p3(kN, 0x03707344u);
  HwyPhilox4x32(0xa4093822u, 0x299f31d0u, p0.data(), p1.data(), p2.data(), p3.data(), kN);
  for (int64_t i = 0; i < kN; ++i) {
    EXPECT_EQ((std::array<uint32_t, 4>{p0[i], p1[i], p2[i], p3[i]}),
              (std::array<uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
  }
}

}  // namespace
}  // namespace rng_internal
}  // namespace hlovm
