#include "core/float_env.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

// Arithmetic the compiler cannot fold: the operands pass through memory.
float Multiply(float a, float b) {
  volatile float x = a, y = b;
  return x * y;
}
float Add(float a, float b) {
  volatile float x = a, y = b;
  return x + y;
}

TEST(FloatEnvTest, FlushesSubnormalResultsAndOperandsWhileItLives) {
  if (!CanFlushDenormals()) GTEST_SKIP() << "no flush-to-zero mode on this processor";
  const float tiny = std::numeric_limits<float>::min();  // smallest normal
  const float sub = std::numeric_limits<float>::denorm_min();
  ASSERT_GT(Multiply(tiny, 0.25f), 0.0f);  // IEEE: a subnormal
  ASSERT_EQ(Add(sub, 0.0f), sub);
  {
    FlushDenormalsScope flush(true);
    EXPECT_EQ(Multiply(tiny, 0.25f), 0.0f);            // result flushed
    EXPECT_EQ(Add(sub, 0.0f), 0.0f);                   // operand read as zero
    EXPECT_TRUE(std::signbit(Multiply(-tiny, 0.25f)));  // the sign stays
    EXPECT_EQ(Multiply(tiny, 2.0f), 2 * tiny);          // normal results unchanged
    {
      FlushDenormalsScope nested(true);
      EXPECT_EQ(Multiply(tiny, 0.25f), 0.0f);
    }
    EXPECT_EQ(Multiply(tiny, 0.25f), 0.0f);  // the inner scope restored the outer mode
    {
      FlushDenormalsScope ieee(false);  // IEEE inside, whatever the caller runs with
      EXPECT_GT(Multiply(tiny, 0.25f), 0.0f);
      EXPECT_EQ(Add(sub, 0.0f), sub);
    }
    EXPECT_EQ(Multiply(tiny, 0.25f), 0.0f);
  }
  EXPECT_GT(Multiply(tiny, 0.25f), 0.0f);  // IEEE again
  {
    FlushDenormalsScope off(false);
    EXPECT_GT(Multiply(tiny, 0.25f), 0.0f);
  }
}

}  // namespace
}  // namespace hlovm
