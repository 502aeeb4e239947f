// End-to-end tests of gather, scatter and map through the VM: kernel paths
// chosen at compile time, results independent of the thread count, buffers
// shared in place, compiled update and map computations.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using ::testing::HasSubstr;

using vm_test::Array;
using vm_test::Build;
using vm_test::RunWith;
using vm_test::Values;

// f32 scatter-add with many repeated indices: float addition is not
// associative, so only the serial order of the positions gives these bits,
// with one thread or several.
TEST(LowerIndexingTest, ScatterAddSerialOrderAnyThreadCount) {
  const int64_t n = 1000, m = 200000;
  auto exe = Build(R"(
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY e {
  o = f32[1000] parameter(0)
  i = s32[200000,1] parameter(1)
  u = f32[200000] parameter(2)
  ROOT s = f32[1000] scatter(o, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_THAT(exe->Disassemble(), HasSubstr("f32 x1 add"));
  std::vector<float> operand(n), updates(m), expected;
  std::vector<int32_t> indices(m);
  for (int64_t i = 0; i < n; ++i) operand[i] = 0.1f * i;
  for (int64_t k = 0; k < m; ++k) {
    indices[k] = static_cast<int32_t>((k * 7919) % (n + 5)) - 2;  // some out of range
    updates[k] = 1.0f / (1 + k % 97) + 1e-3f * (k % 13);
  }
  expected = operand;
  for (int64_t k = 0; k < m; ++k) {
    if (indices[k] >= 0 && indices[k] < n) expected[indices[k]] += updates[k];
  }
  Literal o = Array(ElementType::kF32, {n}, operand);
  Literal i = Array(ElementType::kS32, {m, 1}, indices);
  Literal u = Array(ElementType::kF32, {m}, updates);
  for (int threads : {1, 2, 4}) {
    Literal r = RunWith(*exe, {&o, &i, &u}, threads);
    EXPECT_EQ(Values<float>(r), expected) << threads << " threads";
  }
}

// A compiled combiner (not a single opcode) on a large scatter.
TEST(LowerIndexingTest, ScatterCompiledCombiner) {
  const int64_t n = 64, m = 5000;
  auto exe = Build(R"(
HloModule m
comb {
  a = s32[] parameter(0)  b = s32[] parameter(1)
  c3 = s32[] constant(3)  m = s32[] multiply(a, c3)
  ROOT r = s32[] subtract(m, b)
}
ENTRY e {
  o = s32[64,2] parameter(0)
  i = s32[5000] parameter(1)
  u = s32[5000,2] parameter(2)
  ROOT s = s32[64,2] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=comb
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_THAT(exe->Disassemble(), HasSubstr("call comb"));
  std::vector<int32_t> operand(n * 2), indices(m), updates(m * 2);
  for (int64_t k = 0; k < n * 2; ++k) operand[k] = static_cast<int32_t>(k);
  for (int64_t k = 0; k < m; ++k) {
    indices[k] = static_cast<int32_t>((k * 31) % (n + 3));
    updates[k * 2] = static_cast<int32_t>(k % 5);
    updates[k * 2 + 1] = static_cast<int32_t>(k % 7);
  }
  std::vector<int32_t> expected = operand;
  for (int64_t k = 0; k < m; ++k) {
    if (indices[k] >= n) continue;
    for (int w = 0; w < 2; ++w) {
      int32_t& x = expected[indices[k] * 2 + w];
      x = static_cast<int32_t>(static_cast<uint32_t>(x) * 3u -
                               static_cast<uint32_t>(updates[k * 2 + w]));
    }
  }
  Literal o = Array(ElementType::kS32, {n, 2}, operand);
  Literal i = Array(ElementType::kS32, {m}, indices);
  Literal u = Array(ElementType::kS32, {m, 2}, updates);
  for (int threads : {1, 2}) {
    EXPECT_EQ(Values<int32_t>(RunWith(*exe, {&o, &i, &u}, threads)), expected);
  }
}

// The scatter's operand is an intermediate that dies at the scatter (its
// buffer may be reused) while another scatter reads a live operand (which
// must stay unchanged).
TEST(LowerIndexingTest, ScatterInPlaceAndLiveOperand) {
  auto exe = Build(R"(
HloModule m
assign { a = s32[] parameter(0)  ROOT b = s32[] parameter(1) }
ENTRY e {
  p = s32[4] parameter(0)
  i = s32[2,1] parameter(1)
  u = s32[2] parameter(2)
  d = s32[4] add(p, p)
  s1 = s32[4] scatter(d, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
  s2 = s32[4] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
  ROOT t = (s32[4], s32[4], s32[4]) tuple(s1, s2, p)
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_THAT(exe->Disassemble(), HasSubstr("assign"));
  Literal p = Array(ElementType::kS32, {4}, std::vector<int32_t>{1, 2, 3, 4});
  Literal i = Array(ElementType::kS32, {2, 1}, std::vector<int32_t>{3, 0});
  Literal u = Array(ElementType::kS32, {2}, std::vector<int32_t>{-1, -2});
  Literal r = RunWith(*exe, {&p, &i, &u}, 1);
  ASSERT_EQ(r.tuple_elements().size(), 3u);
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[0]), (std::vector<int32_t>{-2, 4, 6, -1}));
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[1]), (std::vector<int32_t>{-2, 2, 3, -1}));
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[2]), (std::vector<int32_t>{1, 2, 3, 4}));
}

// A gather large enough to run in parallel chunks: rows of a table.
TEST(LowerIndexingTest, GatherRowsAnyThreadCount) {
  const int64_t rows = 512, cols = 64, m = 4096;
  auto exe = Build(R"(
HloModule m
ENTRY e {
  t = f32[512,64] parameter(0)
  i = s64[4096] parameter(1)
  ROOT g = f32[4096,64] gather(t, i), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}
})");
  ASSERT_NE(exe, nullptr);
  std::vector<float> table(rows * cols);
  for (size_t k = 0; k < table.size(); ++k) table[k] = static_cast<float>(k) * 0.5f;
  std::vector<int64_t> indices(m);
  for (int64_t k = 0; k < m; ++k) indices[k] = (k * 37) % (rows + 20) - 10;
  std::vector<float> expected(m * cols);
  for (int64_t k = 0; k < m; ++k) {
    const int64_t row = std::min<int64_t>(std::max<int64_t>(indices[k], 0), rows - 1);
    for (int64_t c = 0; c < cols; ++c) expected[k * cols + c] = table[row * cols + c];
  }
  Literal t = Array(ElementType::kF32, {rows, cols}, table);
  Literal i = Array(ElementType::kS64, {m}, indices);
  for (int threads : {1, 2}) {
    EXPECT_EQ(Values<float>(RunWith(*exe, {&t, &i}, threads)), expected) << threads;
  }
}

// map with a compiled computation over a large array, in parallel chunks.
TEST(LowerIndexingTest, MapCompiledComputation) {
  const int64_t n = 300000;
  auto exe = Build(R"(
HloModule m
f {
  a = f32[] parameter(0)  b = s32[] parameter(1)
  cb = f32[] convert(b)  m = f32[] multiply(a, cb)
  ROOT r = f32[] add(m, a)
}
ENTRY e {
  a = f32[300000] parameter(0)
  b = s32[300000] parameter(1)
  ROOT m = f32[300000] map(a, b), dimensions={0}, to_apply=f
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_THAT(exe->Disassemble(), HasSubstr("call f"));
  std::vector<float> a(n), expected(n);
  std::vector<int32_t> b(n);
  for (int64_t k = 0; k < n; ++k) {
    a[k] = 0.25f * (k % 1000);
    b[k] = static_cast<int32_t>(k % 17) - 8;
    expected[k] = a[k] * static_cast<float>(b[k]) + a[k];
  }
  Literal la = Array(ElementType::kF32, {n}, a);
  Literal lb = Array(ElementType::kS32, {n}, b);
  for (int threads : {1, 2}) {
    EXPECT_EQ(Values<float>(RunWith(*exe, {&la, &lb}, threads)), expected) << threads;
  }
}

// A map whose computation is one opcode takes the elementwise kernel.
TEST(LowerIndexingTest, MapSingleOpcodeUsesKernel) {
  auto exe = Build(R"(
HloModule m
mx { a = s32[] parameter(0)  b = s32[] parameter(1)  ROOT r = s32[] maximum(a, b) }
ENTRY e {
  a = s32[3] parameter(0)  b = s32[3] parameter(1)
  ROOT m = s32[3] map(a, b), dimensions={0}, to_apply=mx
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_THAT(exe->Disassemble(), HasSubstr("s32 maximum"));
  Literal a = Array(ElementType::kS32, {3}, std::vector<int32_t>{1, -5, 7});
  Literal b = Array(ElementType::kS32, {3}, std::vector<int32_t>{0, 3, 9});
  EXPECT_EQ(Values<int32_t>(RunWith(*exe, {&a, &b}, 1)), (std::vector<int32_t>{1, 3, 9}));
}

}  // namespace
}  // namespace hlovm
