// End-to-end tests of rng-bit-generator, rng and rng-get-and-update-state.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "ops/rng/rng_bits.h"
#include "ops/rng/rng_dist.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Build;
using vm_test::RunWith;
using vm_test::Values;

// A large output (several chunks) is the same with 1 and 2 threads and
// matches the kernel run over all blocks at once.
TEST(LowerRng, BitGeneratorSameForAnyThreadCount) {
  for (const char* alg : {"rng_three_fry", "rng_philox", "rng_default"}) {
    const std::string hlo = std::string(R"(
HloModule m
ENTRY e {
  s = u64[2] constant({12345, 678})
  ROOT r = (u64[2], u32[301,1001]) rng-bit-generator(s), algorithm=)") +
                            alg + "\n}\n";
    auto exe = Build(hlo);
    ASSERT_NE(exe, nullptr);
    Literal one = RunWith(*exe, {}, 1);
    Literal two = RunWith(*exe, {}, 2);
    ASSERT_EQ(one.tuple_elements().size(), 2u);
    const auto bits1 = Values<uint32_t>(one.tuple_elements()[1]);
    EXPECT_EQ(bits1, Values<uint32_t>(two.tuple_elements()[1])) << alg;
    const bool threefry = std::string(alg) == "rng_three_fry";
    auto plan = MakeRngBitsPlan(threefry ? RngBitsAlgorithm::kThreeFry : RngBitsAlgorithm::kPhilox,
                                4, {301, 1001}, 2);
    ASSERT_TRUE(plan.ok());
    std::vector<uint32_t> want(301 * 1001);
    const uint64_t state[2] = {12345, 678};
    RunRngBits(*plan, state, reinterpret_cast<uint8_t*>(want.data()), 0, plan->blocks);
    EXPECT_EQ(bits1, want) << alg;
    const auto next = Values<uint64_t>(one.tuple_elements()[0]);
    EXPECT_EQ(next[0], 12345u);
    EXPECT_EQ(next[1], 678u + static_cast<uint64_t>(plan->blocks));
  }
}

// The generator state persists across runs of one executable and starts
// afresh in another: rng-get-and-update-state returns the old value.
TEST(LowerRng, StatePersistsAcrossRuns) {
  const char* hlo = R"(
HloModule m
ENTRY e {
  ROOT s = u64[2] rng-get-and-update-state(), delta=10
}
)";
  auto exe = Build(hlo);
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(Values<uint64_t>(RunWith(*exe, {}, 1)), (std::vector<uint64_t>{0x7012395, 0}));
  EXPECT_EQ(Values<uint64_t>(RunWith(*exe, {}, 2)), (std::vector<uint64_t>{0x7012395 + 10, 0}));
  auto other = Build(hlo);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(Values<uint64_t>(RunWith(*other, {}, 1)), (std::vector<uint64_t>{0x7012395, 0}));
}

// Uniform floats lie in [a, b); integers in [a, b).
TEST(LowerRng, UniformRanges) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  a = f32[] constant(-2)
  b = f32[] constant(3)
  ia = s32[] constant(-7)
  ib = s32[] constant(9)
  u = f32[1000] rng(a, b), distribution=rng_uniform
  i = s32[1000] rng(ia, ib), distribution=rng_uniform
  ROOT t = (f32[1000], s32[1000]) tuple(u, i)
}
)");
  ASSERT_NE(exe, nullptr);
  Literal r = RunWith(*exe, {}, 1);
  for (float v : Values<float>(r.tuple_elements()[0])) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LT(v, 3.0f);
  }
  for (int32_t v : Values<int32_t>(r.tuple_elements()[1])) {
    EXPECT_GE(v, -7);
    EXPECT_LT(v, 9);
  }
}

// Uniform values over many chunks: the same with 1 and 2 threads, and equal
// to the kernel run over the whole output at once from the initial state.
TEST(LowerRng, UniformChunksMatchWholeRun) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  a = f32[] constant(-2)
  b = f32[] constant(3)
  ia = s64[] constant(-7)
  ib = s64[] constant(900)
  u = f32[100003] rng(a, b), distribution=rng_uniform
  i = s64[50001] rng(ia, ib), distribution=rng_uniform
  ROOT t = (f32[100003], s64[50001]) tuple(u, i)
}
)");
  ASSERT_NE(exe, nullptr);
  Literal one = RunWith(*exe, {}, 1);
  auto again = Build(R"(
HloModule m
ENTRY e {
  a = f32[] constant(-2)
  b = f32[] constant(3)
  ia = s64[] constant(-7)
  ib = s64[] constant(900)
  u = f32[100003] rng(a, b), distribution=rng_uniform
  i = s64[50001] rng(ia, ib), distribution=rng_uniform
  ROOT t = (f32[100003], s64[50001]) tuple(u, i)
}
)");
  ASSERT_NE(again, nullptr);
  Literal two = RunWith(*again, {}, 2);
  const auto f1 = Values<float>(one.tuple_elements()[0]);
  const auto i1 = Values<int64_t>(one.tuple_elements()[1]);
  EXPECT_EQ(f1, Values<float>(two.tuple_elements()[0]));
  EXPECT_EQ(i1, Values<int64_t>(two.tuple_elements()[1]));

  auto fplan = MakeRngDistPlan(RandomDistribution::kUniform, ElementType::kF32, {100003});
  ASSERT_TRUE(fplan.ok());
  std::vector<float> want(100003);
  const float fa = -2, fb = 3;
  RunRngDist(*fplan, 0, 0x7012395, 0, reinterpret_cast<const uint8_t*>(&fa),
             reinterpret_cast<const uint8_t*>(&fb), reinterpret_cast<uint8_t*>(want.data()), 0,
             100003);
  EXPECT_EQ(f1, want);
  auto iplan = MakeRngDistPlan(RandomDistribution::kUniform, ElementType::kS64, {50001});
  ASSERT_TRUE(iplan.ok());
  std::vector<int64_t> iwant(50001);
  const int64_t ia = -7, ib = 900;
  RunRngDist(*iplan, 0, 0x7012395 + 100003, 0, reinterpret_cast<const uint8_t*>(&ia),
             reinterpret_cast<const uint8_t*>(&ib), reinterpret_cast<uint8_t*>(iwant.data()), 0,
             50001);
  EXPECT_EQ(i1, iwant);
}

TEST(LowerRng, RejectsBadInput) {
  EXPECT_FALSE(Executable::FromText(R"(
HloModule m
ENTRY e {
  s = u64[3] constant({1, 2, 3})
  ROOT r = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry
}
)")
                   .ok());
  EXPECT_FALSE(Executable::FromText(R"(
HloModule m
ENTRY e {
  s = u64[2] constant({1, 2})
  ROOT r = (u64[2], u4[4]) rng-bit-generator(s), algorithm=rng_philox
}
)")
                   .ok());
  EXPECT_FALSE(Executable::FromText(R"(
HloModule m
ENTRY e {
  a = s8[] constant(1)
  b = s8[] constant(5)
  ROOT r = s8[4] rng(a, b), distribution=rng_uniform
}
)")
                   .ok());
}

}  // namespace
}  // namespace hlovm
