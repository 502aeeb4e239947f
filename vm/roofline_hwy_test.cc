// Runs the FMA-throughput probe of roofline_hwy.cc on every SIMD target
// compiled in and supported here (Highway's per-target test suite,
// hwy_gtest.h). The probe measures time rather than computing values, so
// each target is checked to run its own code and give a usable figure.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "vm/roofline.h"

namespace hlovm {
namespace roofline_internal {
namespace {

HWY_BEFORE_TEST(RooflineHwyTest);

TEST_P(RooflineHwyTest, ProbeRunsOnTheTargetUnderTest) {
  EXPECT_EQ(std::string(FmaTarget()), hwy::TargetName(GetParam()));
  const double gflops = FmaGflopsOneThread(2.0);
  EXPECT_TRUE(std::isfinite(gflops)) << gflops;
  EXPECT_GT(gflops, 0.0);
}

}  // namespace
}  // namespace roofline_internal
}  // namespace hlovm
