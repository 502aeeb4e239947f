// End-to-end tests of the data-movement ops through the VM: results that do
// not depend on the thread count, layouts other than row-major at the entry,
// dynamic-update-slice in place inside a loop, dimension sizes, dynamic
// reshape and bitcast-convert across widths.
#include <cstdint>
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

TEST(LowerShapeOpsTest, LargeTransposeSameResultAnyThreadCount) {
  const int64_t r = 700, c = 900;
  auto exe = Build(R"(
HloModule m
ENTRY e {
  p = f32[700,900] parameter(0)
  ROOT t = f32[900,700] transpose(p), dimensions={1,0}
})");
  ASSERT_NE(exe, nullptr);
  std::vector<float> in(r * c);
  for (int64_t i = 0; i < r * c; ++i) in[i] = static_cast<float>(i);
  Literal arg = Array(ElementType::kF32, {r, c}, in);
  for (int threads : {1, 2}) {
    const std::vector<float> out = Values<float>(RunWith(*exe, {&arg}, threads));
    ASSERT_EQ(out.size(), in.size());
    bool ok = true;
    for (int64_t i = 0; i < c && ok; ++i) {
      for (int64_t j = 0; j < r && ok; ++j) ok = out[i * r + j] == in[j * c + i];
    }
    EXPECT_TRUE(ok) << "threads=" << threads;
  }
  EXPECT_THAT(exe->Disassemble(), HasSubstr("tiled"));
}

TEST(LowerShapeOpsTest, SliceReversePadConcatenateChain) {
  Literal arg = Array<int32_t>(ElementType::kS32, {6}, {10, 11, 12, 13, 14, 15});
  // slice {10,12,14}; reverse {14,12,10}; interior 1 -> {14,-1,12,-1,10};
  // low 1, high -1 -> {-1,14,-1,12,-1}.
  auto exe = Build(R"(
HloModule m
ENTRY e {
  p = s32[6] parameter(0)
  s = s32[3] slice(p), slice={[0:6:2]}
  r = s32[3] reverse(s), dimensions={0}
  z = s32[] constant(-1)
  d = s32[5] pad(r, z), padding=1_-1_1
  ROOT c = s32[8] concatenate(d, s), dimensions={0}
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(Values<int32_t>(RunWith(*exe, {&arg}, 1)),
            (std::vector<int32_t>{-1, 14, -1, 12, -1, 10, 12, 14}));
}

TEST(LowerShapeOpsTest, DynamicUpdateSliceInPlaceInLoop) {
  // Writes i at position i for i < 5, then clamps: start 5..7 -> 4.
  auto exe = Build(R"(
HloModule m
cond { s = (s32[], s32[5]) parameter(0)  i = s32[] get-tuple-element(s), index=0
       n = s32[] constant(8)  ROOT lt = pred[] compare(i, n), direction=LT }
body { s = (s32[], s32[5]) parameter(0)  i = s32[] get-tuple-element(s), index=0
       a = s32[5] get-tuple-element(s), index=1
       u = s32[1] broadcast(i), dimensions={}
       w = s32[5] dynamic-update-slice(a, u, i)
       one = s32[] constant(1)  j = s32[] add(i, one)
       ROOT t = (s32[], s32[5]) tuple(j, w) }
ENTRY e {
  z = s32[] constant(0)
  a = s32[5] constant({9, 9, 9, 9, 9})
  s = (s32[], s32[5]) tuple(z, a)
  w = (s32[], s32[5]) while(s), condition=cond, body=body
  ROOT r = s32[5] get-tuple-element(w), index=1
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(Values<int32_t>(RunWith(*exe, {}, 1)), (std::vector<int32_t>{0, 1, 2, 3, 7}));
}

TEST(LowerShapeOpsTest, DynamicSliceUnsignedAndVectorIndices) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  p = f32[4,3] parameter(0)
  i = u8[] constant(250)
  j = u8[] constant(1)
  a = f32[2,2] dynamic-slice(p, i, j), dynamic_slice_sizes={2,2}
  v = s64[2] constant({-4, 1})
  b = f32[2,2] dynamic-slice(p, v), dynamic_slice_sizes={2,2}
  ROOT t = (f32[2,2], f32[2,2]) tuple(a, b)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<float> in(12);
  for (int i = 0; i < 12; ++i) in[i] = static_cast<float>(i);
  Literal arg = Array(ElementType::kF32, {4, 3}, in);
  Literal out = RunWith(*exe, {&arg}, 1);
  ASSERT_EQ(out.tuple_elements().size(), 2u);
  EXPECT_EQ(Values<float>(out.tuple_elements()[0]), (std::vector<float>{7, 8, 10, 11}));
  EXPECT_EQ(Values<float>(out.tuple_elements()[1]), (std::vector<float>{1, 2, 4, 5}));
}

TEST(LowerShapeOpsTest, ColumnMajorEntryLayouts) {
  auto exe = Build(R"(
HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{0,1}}
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0}
})");
  ASSERT_NE(exe, nullptr);
  // Logical p = {{1,2,3},{4,5,6}} stored column-major: 1,4,2,5,3,6.
  Shape shape(ElementType::kF32, {2, 3});
  Layout layout;
  layout.minor_to_major = {0, 1};
  shape.set_layout(layout);
  auto lit = Literal::Create(shape);
  ASSERT_TRUE(lit.ok());
  const float stored[] = {1, 4, 2, 5, 3, 6};
  std::memcpy(lit->untyped_data(), stored, sizeof(stored));
  Literal out = RunWith(*exe, {&*lit}, 1);
  // Logical result {{1,4},{2,5},{3,6}} stored column-major: 1,2,3,4,5,6.
  EXPECT_EQ(Values<float>(out), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(LowerShapeOpsTest, DimensionSizes) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  p = f32[10] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=10] set-dimension-size(p, n), dimensions={0}
  g = f32[<=10] negate(d)
  a = s32[] get-dimension-size(g), dimensions={0}
  b = s32[] get-dimension-size(p), dimensions={0}
  ROOT t = (s32[], s32[]) tuple(a, b)
})");
  ASSERT_NE(exe, nullptr);
  Literal p = Array(ElementType::kF32, {10}, std::vector<float>(10, 1.0f));
  Literal n = Array<int32_t>(ElementType::kS32, {}, {6});
  Literal out = RunWith(*exe, {&p, &n}, 1);
  ASSERT_EQ(out.tuple_elements().size(), 2u);
  EXPECT_EQ(Values<int32_t>(out.tuple_elements()[0]), (std::vector<int32_t>{6}));
  EXPECT_EQ(Values<int32_t>(out.tuple_elements()[1]), (std::vector<int32_t>{10}));
}

TEST(LowerShapeOpsTest, DynamicReshapeFullAndErrors) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  p = s32[6] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT r = s32[<=2,<=3] dynamic-reshape(p, a, b)
})");
  ASSERT_NE(exe, nullptr);
  Literal p = Array<int32_t>(ElementType::kS32, {6}, {1, 2, 3, 4, 5, 6});
  Literal two = Array<int32_t>(ElementType::kS32, {}, {2});
  Literal three = Array<int32_t>(ElementType::kS32, {}, {3});
  Literal one = Array<int32_t>(ElementType::kS32, {}, {1});
  EXPECT_EQ(Values<int32_t>(RunWith(*exe, {&p, &two, &three}, 1)),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  auto bad = exe->Execute({&p, &one, &three}, ExecuteOptions());
  EXPECT_FALSE(bad.ok());
}

TEST(LowerShapeOpsTest, BitcastConvertAcrossWidths) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  p = u32[2] parameter(0)
  b = u8[2,4] bitcast-convert(p)
  n = s4[2,4,2] bitcast-convert(b)
  ROOT t = (u8[2,4], s4[2,4,2]) tuple(b, n)
})");
  ASSERT_NE(exe, nullptr);
  Literal p = Array<uint32_t>(ElementType::kU32, {2}, {0x04030201u, 0xF0E0D0C0u});
  Literal out = RunWith(*exe, {&p}, 1);
  ASSERT_EQ(out.tuple_elements().size(), 2u);
  EXPECT_EQ(Values<uint8_t>(out.tuple_elements()[0]),
            (std::vector<uint8_t>{1, 2, 3, 4, 0xC0, 0xD0, 0xE0, 0xF0}));
  const Literal& n = out.tuple_elements()[1];
  auto s4 = n.data<uint8_t>();
  // 0x01 -> {1, 0}; 0xC0 -> {0, -4}.
  EXPECT_EQ(s4[0] & 0xF, 1);
  EXPECT_EQ(s4[1] & 0xF, 0);
  EXPECT_EQ(s4[8] & 0xF, 0);
  EXPECT_EQ(s4[9] & 0xF, 0xC);
}

TEST(LowerShapeOpsTest, StochasticConvert) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  r = u32[4] parameter(1)
  ROOT s = s8[4] stochastic-convert(x, r)
})");
  ASSERT_NE(exe, nullptr);
  Literal x = Array<float>(ElementType::kF32, {4}, {1.5f, 1.5f, -1.5f, 1000.0f});
  Literal r = Array<uint32_t>(ElementType::kU32, {4}, {0x7FFFFFFFu, 0x80000000u, 0u, 0u});
  EXPECT_EQ(Values<int8_t>(RunWith(*exe, {&x, &r}, 1)), (std::vector<int8_t>{2, 1, -2, 127}));
}

}  // namespace
}  // namespace hlovm
