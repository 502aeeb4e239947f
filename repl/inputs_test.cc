#include "repl/inputs.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/float_format.h"
#include "core/literal.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

// Random bf16 inputs take the bits of rounding each draw to bf16 (the draws
// are those an f64 array of the same seed holds), across the blocks that
// fill in parallel.
TEST(InputsTest, RandomBf16IsEachDrawRounded) {
  const int64_t n = (int64_t{1} << 17) + 77;
  auto bf16 = Literal::Create(Shape(ElementType::kBF16, {n}));
  auto f64 = Literal::Create(Shape(ElementType::kF64, {n}));
  ASSERT_TRUE(bf16.ok() && f64.ok());
  ASSERT_TRUE(FillRandom(&*bf16, 42).ok());
  ASSERT_TRUE(FillRandom(&*f64, 42).ok());
  const auto* h = reinterpret_cast<const uint16_t*>(bf16->untyped_data());
  const auto* d = reinterpret_cast<const double*>(f64->untyped_data());
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) mismatches += h[i] != EncodeNarrowFloat(ElementType::kBF16, d[i]);
  EXPECT_EQ(mismatches, 0);
  // The draws are spread over [-1, 1).
  double lo = 1, hi = -1;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, d[i]);
    hi = std::max(hi, d[i]);
  }
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
}

}  // namespace
}  // namespace hlovm
