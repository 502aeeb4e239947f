// Tests of the embedding API's argument views (Executable::ExecuteViews,
// ExecuteArrays and Literal::View arguments): the kernels read the caller's
// memory in place, and the results equal those of owned literals.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/custom_call.h"
#include "vm/test_util.h"

namespace hlovm {
namespace {

using testing_util::Values;

// custom_call_target="test.address_of": writes the address of its operand's
// elements into its u64[] result.
class AddressOf : public PreparedCustomCall {
 public:
  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const uint64_t address = reinterpret_cast<uintptr_t>(operands[0].data);
    std::memcpy(results[0].data, &address, sizeof(address));
    return absl::OkStatus();
  }
};

void RegisterAddressOf() {
  RegisterCustomCallTarget(
      "test.address_of",
      [](const HloInstruction&) -> absl::StatusOr<std::unique_ptr<PreparedCustomCall>> {
        return std::make_unique<AddressOf>();
      });
}

// A module that returns its f32[4] parameter.
constexpr char kIdentity4[] = R"(
HloModule m
ENTRY e {
  ROOT p = f32[4] parameter(0)
})";

TEST(ExecuteViewsTest, KernelsReadTheCallersMemoryInPlace) {
  RegisterAddressOf();
  constexpr char kText[] = R"(
HloModule m
ENTRY e {
  p = f32[1000] parameter(0)
  ROOT a = u64[] custom-call(p), custom_call_target="test.address_of"
})";
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::FromText(kText);
  ASSERT_TRUE(exe.ok()) << exe.status();
  // Aligned to 16 bytes only, as an array from malloc may be.
  std::vector<float> storage(1000 + 16);
  float* data = storage.data() + 4;
  absl::StatusOr<Literal> result =
      (*exe)->ExecuteViews({ArgumentView{Shape(ElementType::kF32, {1000}), data}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->data<uint64_t>()[0], reinterpret_cast<uintptr_t>(data));
}

TEST(ExecuteViewsTest, SameResultsAsOwnedLiteralsForAnyLayout) {
  constexpr char kText[] = R"(
HloModule m, entry_computation_layout={(f32[2,3]{0,1}, f32[2,3]{1,0})->f32[2,3]{1,0}}
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  ROOT s = f32[2,3] subtract(a, b)
})";
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::FromText(kText);
  ASSERT_TRUE(exe.ok()) << exe.status();
  // a in column-major order: a[i][j] = 10 * i + j.
  float a[6] = {0, 10, 1, 11, 2, 12};
  float b[6] = {1, 1, 1, 2, 2, 2};
  Shape a_shape(ElementType::kF32, {2, 3});
  a_shape.set_layout(Layout{.minor_to_major = {0, 1}});
  absl::StatusOr<Literal> viewed = (*exe)->ExecuteViews(
      {ArgumentView{a_shape, a}, ArgumentView{Shape(ElementType::kF32, {2, 3}), b}});
  ASSERT_TRUE(viewed.ok()) << viewed.status();
  EXPECT_EQ(Values<float>(*viewed), (std::vector<float>{-1, 0, 1, 8, 9, 10}));

  absl::StatusOr<Literal> a_owned = Literal::View(a_shape, a);
  ASSERT_TRUE(a_owned.ok());
  Literal a_copy = a_owned->Clone();
  Literal b_copy = Literal::CreateR2<float>({{1, 1, 1}, {2, 2, 2}});
  absl::StatusOr<Literal> owned = (*exe)->Execute({&a_copy, &b_copy});
  ASSERT_TRUE(owned.ok()) << owned.status();
  EXPECT_TRUE(owned->BitwiseEqual(*viewed));
  // The views were only read.
  EXPECT_EQ(a[1], 10.0f);
  EXPECT_EQ(b[5], 2.0f);
}

TEST(ExecuteViewsTest, RefusesWrongShapesAndMissingMemory) {
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::FromText(kIdentity4);
  ASSERT_TRUE(exe.ok()) << exe.status();
  float data[4] = {1, 2, 3, 4};
  EXPECT_FALSE((*exe)->ExecuteViews({ArgumentView{Shape(ElementType::kF32, {3}), data}}).ok());
  EXPECT_FALSE((*exe)->ExecuteViews({ArgumentView{Shape(ElementType::kF32, {4}), nullptr}}).ok());
  EXPECT_FALSE((*exe)->ExecuteViews({}).ok());
  // A parameter passed through comes back in storage of the result's own.
  absl::StatusOr<Literal> result =
      (*exe)->ExecuteViews({ArgumentView{Shape(ElementType::kF32, {4}), data}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->owns_data());
  EXPECT_NE(result->untyped_data(), reinterpret_cast<uint8_t*>(data));
  EXPECT_EQ(Values<float>(*result), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ExecuteArraysTest, ReadsBareDataInPlaceInEachParametersLayout) {
  RegisterAddressOf();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::FromText(R"(
HloModule m, entry_computation_layout={(f32[2,3]{0,1}, f32[2,3]{1,0})->(f32[2,3]{1,0}, u64[])}
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  s = f32[2,3] add(a, b)
  addr = u64[] custom-call(b), custom_call_target="test.address_of"
  ROOT t = (f32[2,3], u64[]) tuple(s, addr)
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  // a in its column-major layout: a[i][j] = 10 * i + j at j * 2 + i.
  const float a[6] = {0, 10, 1, 11, 2, 12};
  const float b[6] = {100, 100, 100, 200, 200, 200};
  const void* data[] = {a, b};
  absl::StatusOr<Literal> result = (*exe)->ExecuteArrays(data);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Values<float>(result->tuple_elements()[0]),
            (std::vector<float>{100, 101, 102, 210, 211, 212}));
  // The row-major parameter was read where it lies.
  EXPECT_EQ(result->tuple_elements()[1].data<uint64_t>()[0], reinterpret_cast<uintptr_t>(b));
  // The same values as Execute with owned literals.
  absl::StatusOr<Literal> owned_a = Literal::View((*exe)->parameter_shapes()[0], const_cast<float*>(a));
  absl::StatusOr<Literal> owned_b = Literal::View((*exe)->parameter_shapes()[1], const_cast<float*>(b));
  ASSERT_TRUE(owned_a.ok() && owned_b.ok());
  absl::StatusOr<Literal> expected = (*exe)->Execute({&*owned_a, &*owned_b});
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_EQ(Values<float>(expected->tuple_elements()[0]),
            Values<float>(result->tuple_elements()[0]));
}

TEST(ExecuteArraysTest, RefusesAWrongCountAndTupleParameters) {
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::FromText(kIdentity4);
  ASSERT_TRUE(exe.ok()) << exe.status();
  float x[4] = {1, 2, 3, 4};
  const void* two[] = {x, x};
  EXPECT_EQ((*exe)->ExecuteArrays(two).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::unique_ptr<Executable>> tuple = Executable::FromText(R"(
HloModule m
ENTRY e {
  p = (f32[4]) parameter(0)
  ROOT g = f32[4] get-tuple-element(p), index=0
})");
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  const void* one[] = {x};
  absl::StatusOr<Literal> refused = (*tuple)->ExecuteArrays(one);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("not an array"), std::string_view::npos)
      << refused.status();
}

}  // namespace
}  // namespace hlovm
