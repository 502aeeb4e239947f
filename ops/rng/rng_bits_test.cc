#include "ops/rng/rng_bits.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

constexpr uint32_t kM = 0xFFFFFFFFu;

// Known-answer vectors of Random123 (threefry2x32_20, philox4x32_10).
TEST(RngBitsTest, ThreeFryKnownAnswers) {
  EXPECT_EQ(ThreeFry2x32Block({0, 0}, {0, 0}), (std::array<uint32_t, 2>{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(ThreeFry2x32Block({kM, kM}, {kM, kM}),
            (std::array<uint32_t, 2>{0x1cb996fc, 0xbb002be7}));
  EXPECT_EQ(ThreeFry2x32Block({0x13198a2e, 0x03707344}, {0x243f6a88, 0x85a308d3}),
            (std::array<uint32_t, 2>{0xc4923a9c, 0x483df7a0}));
}

TEST(RngBitsTest, PhiloxKnownAnswers) {
  EXPECT_EQ(Philox4x32Block({0, 0}, {0, 0, 0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32Block({kM, kM}, {kM, kM, kM, kM}),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      Philox4x32Block({0xa4093822, 0x299f31d0}, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}),
      (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// The batched kernels agree with single blocks for lengths around the
// vector widths.
TEST(RngBitsTest, BatchesMatchBlocks) {
  for (int64_t n : {1, 3, 7, 8, 9, 17, 33, 100}) {
    std::vector<uint32_t> a(n), b(n), c(n), d(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = static_cast<uint32_t>(i * 2654435761u);
      b[i] = static_cast<uint32_t>(i + 7);
      c[i] = static_cast<uint32_t>(~i);
      d[i] = static_cast<uint32_t>(i << 20);
    }
    std::vector<uint32_t> ta = a, tb = b;
    ThreeFry2x32Batch(5, 9, ta.data(), tb.data(), n);
    std::vector<uint32_t> pa = a, pb = b, pc = c, pd = d;
    Philox4x32Batch(5, 9, pa.data(), pb.data(), pc.data(), pd.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(ThreeFry2x32Block({5, 9}, {a[i], b[i]}), (std::array<uint32_t, 2>{ta[i], tb[i]}));
      EXPECT_EQ(Philox4x32Block({5, 9}, {a[i], b[i], c[i], d[i]}),
                (std::array<uint32_t, 4>{pa[i], pb[i], pc[i], pd[i]}));
    }
  }
}

// ThreeFry u32[3]: one dimension, odd: blocks base and base+1 give elements
// (0, 1) and (2); the state advances by the two blocks.
TEST(RngBitsTest, ThreeFryPairsNeighbours) {
  const uint64_t state[2] = {0x0000000200000001ull, 0xFFFFFFFFFFFFFFFFull};
  auto plan = MakeRngBitsPlan(RngBitsAlgorithm::kThreeFry, 4, {3}, 2);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->blocks, 2);
  uint32_t out[3];
  RunRngBits(*plan, state, reinterpret_cast<uint8_t*>(out), 0, plan->blocks);
  const auto b0 = ThreeFry2x32Block({1, 2}, {kM, kM});
  const auto b1 = ThreeFry2x32Block({1, 2}, {0, 0});  // the counter wraps
  EXPECT_EQ(out[0], b0[0]);
  EXPECT_EQ(out[1], b0[1]);
  EXPECT_EQ(out[2], b1[0]);
  uint64_t next[2];
  RngBitsNextState(*plan, state, next);
  EXPECT_EQ(next[0], state[0]);
  EXPECT_EQ(next[1], 1u);
}

// Philox u64[3] with a 3-word state: the 128-bit counter carries into the
// high word.
TEST(RngBitsTest, PhiloxWideAndCarry) {
  const uint64_t state[3] = {0x0000000400000003ull, 0xFFFFFFFFFFFFFFFFull, 5};
  auto plan = MakeRngBitsPlan(RngBitsAlgorithm::kPhilox, 8, {3}, 3);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->blocks, 2);
  uint64_t out[3];
  RunRngBits(*plan, state, reinterpret_cast<uint8_t*>(out), 0, plan->blocks);
  const auto b0 = Philox4x32Block({3, 4}, {kM, kM, 5, 0});
  const auto b1 = Philox4x32Block({3, 4}, {0, 0, 6, 0});
  EXPECT_EQ(out[0], b0[0] | (uint64_t{b0[1]} << 32));
  EXPECT_EQ(out[1], b0[2] | (uint64_t{b0[3]} << 32));
  EXPECT_EQ(out[2], b1[0] | (uint64_t{b1[1]} << 32));
  uint64_t next[3];
  RngBitsNextState(*plan, state, next);
  EXPECT_EQ(next[1], 1u);
  EXPECT_EQ(next[2], 6u);
}

TEST(RngBitsTest, RejectsBadWidthsAndStates) {
  EXPECT_FALSE(MakeRngBitsPlan(RngBitsAlgorithm::kThreeFry, 16, {4}, 2).ok());
  EXPECT_FALSE(MakeRngBitsPlan(RngBitsAlgorithm::kThreeFry, 4, {4}, 3).ok());
  EXPECT_FALSE(MakeRngBitsPlan(RngBitsAlgorithm::kPhilox, 4, {4}, 4).ok());
}

// Any split of the blocks into ranges gives the same bits.
TEST(RngBitsTest, RangesAreIndependent) {
  const uint64_t state[3] = {0x1234, 0x5678, 0x9abc};
  for (auto alg : {RngBitsAlgorithm::kThreeFry, RngBitsAlgorithm::kPhilox}) {
    for (int bytes : {1, 2, 4, 8}) {
      for (const std::vector<int64_t>& dims :
           {std::vector<int64_t>{7, 301, 3}, std::vector<int64_t>{5, 3, 402}}) {
        auto plan = MakeRngBitsPlan(alg, bytes, dims, alg == RngBitsAlgorithm::kPhilox ? 3 : 2);
        ASSERT_TRUE(plan.ok());
        std::vector<uint8_t> whole(plan->elements * bytes), parts(plan->elements * bytes);
        RunRngBits(*plan, state, whole.data(), 0, plan->blocks);
        for (int64_t b = 0; b < plan->blocks; b += 97) {
          RunRngBits(*plan, state, parts.data(), b, std::min<int64_t>(plan->blocks, b + 97));
        }
        EXPECT_EQ(whole, parts);
      }
    }
  }
}

}  // namespace
}  // namespace hlovm
