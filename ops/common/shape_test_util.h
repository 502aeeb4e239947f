// Test helpers for the shape-rule tests under ops/: shapes from XLA text and
// short assertions on statuses.
#ifndef HLOVM_OPS_COMMON_SHAPE_TEST_UTIL_H_
#define HLOVM_OPS_COMMON_SHAPE_TEST_UTIL_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/shape.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/common/common_shape.h"

namespace hlovm::testing {

// Parses `text` ("f32[2,3]", "(s32[], pred[])"); fails the test on error.
inline Shape S(std::string_view text) {
  absl::StatusOr<Shape> s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.ok() ? *s : Shape();
}

// Asserts that `result` holds a shape compatible with `expected` (text).
#define HLOVM_EXPECT_SHAPE(result, expected)                                        \
  do {                                                                              \
    auto hlovm_r_ = (result);                                                       \
    ASSERT_TRUE(hlovm_r_.ok()) << hlovm_r_.status();                                \
    EXPECT_TRUE(::hlovm::ShapesCompatible(*hlovm_r_, ::hlovm::testing::S(expected))) \
        << "got " << hlovm_r_->ToString(false) << ", want " << (expected);          \
  } while (0)

// The status of a Status or StatusOr.
inline absl::Status StatusOf(const absl::Status& s) { return s; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}

// Asserts that `result` (Status or StatusOr) failed with InvalidArgument containing `substr`.
#define HLOVM_EXPECT_ERROR(result, substr)                                      \
  do {                                                                          \
    absl::Status hlovm_r_ = ::hlovm::testing::StatusOf(result);                 \
    ASSERT_FALSE(hlovm_r_.ok()) << "unexpected success";                        \
    EXPECT_EQ(hlovm_r_.code(), absl::StatusCode::kInvalidArgument);             \
    EXPECT_THAT(std::string(hlovm_r_.message()), ::testing::HasSubstr(substr)); \
  } while (0)

}  // namespace hlovm::testing

#endif  // HLOVM_OPS_COMMON_SHAPE_TEST_UTIL_H_
