// The check.* custom-calls, as ../shared/conformance/FORMAT.md defines them:
// equality with NaN and signed zeros, ULP distances on each type's own bit
// patterns, absolute tolerances, complex values, and reporting.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/check_failure.h"
#include "vm/test_util.h"

namespace hlovm {
namespace {

using ::testing::HasSubstr;
using testing_util::RunHlo;

// A module comparing two constants of `type` with `target`.
std::string CheckModule(const std::string& type, const std::string& actual,
                        const std::string& expected, const std::string& target,
                        const std::string& config = "") {
  std::string text = absl::StrCat("HloModule check\nENTRY main {\n  a = ", type, " constant(",
                                  actual, ")\n  e = ", type, " constant(", expected, ")\n",
                                  "  ROOT r = ", type, " copy(a)\n",
                                  "  c = () custom-call(a, e), custom_call_target=\"", target,
                                  "\", custom_call_has_side_effect=true");
  if (!config.empty()) absl::StrAppend(&text, ", backend_config=\"", config, "\"");
  absl::StrAppend(&text, "\n}\n");
  return text;
}

std::string Ulp(int max, int min = 0) {
  return absl::StrCat("{\\\"max_ulp_difference\\\":", max, ",\\\"min_ulp_difference\\\":", min,
                      "}");
}
std::string Tol(const std::string& t) { return absl::StrCat("{\\\"tolerance\\\":", t, "}"); }

absl::Status Check(const std::string& text) { return RunHlo(text).status(); }

TEST(ChecksTest, ExpectEq) {
  EXPECT_TRUE(Check(CheckModule("s32[3]", "{1, 2, 3}", "{1, 2, 3}", "check.expect_eq")).ok());
  EXPECT_TRUE(Check(CheckModule("f32[3]", "{nan, -0.0, inf}", "{-nan, 0, inf}",
                                "check.expect_eq")).ok());
  EXPECT_TRUE(Check(CheckModule("pred[2]", "{true, false}", "{true, false}",
                                "check.expect_eq")).ok());
  EXPECT_TRUE(Check(CheckModule("c64[1]", "{(1, nan)}", "{(1, nan)}", "check.expect_eq")).ok());
  absl::Status s = Check(CheckModule("s32[2,2]", "{{1, 2}, {3, 4}}", "{{1, 2}, {5, 4}}",
                                     "check.expect_eq"));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(IsCheckFailure(s));
  EXPECT_EQ(ExitCodeForStatus(s), 1);
  auto f = GetCheckFailure(s);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->kind, "check.expect_eq");
  EXPECT_EQ(f->check, "c");
  EXPECT_EQ(f->index, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(f->actual, "3");
  EXPECT_EQ(f->expected, "5");
  EXPECT_EQ(f->mismatch_count, 1);
  EXPECT_EQ(f->element_count, 4);
  EXPECT_FALSE(Check(CheckModule("c64[1]", "{(1, 2)}", "{(1, 3)}", "check.expect_eq")).ok());
  EXPECT_FALSE(Check(CheckModule("f32[1]", "{nan}", "{1}", "check.expect_eq")).ok());
}

TEST(ChecksTest, ExpectCloseCountsUlpsOnTheTypesBits) {
  // 1.00000012 is the next f32 after 1.
  EXPECT_TRUE(Check(CheckModule("f32[1]", "{1.00000012}", "{1}", "check.expect_close", Ulp(1))).ok());
  EXPECT_FALSE(Check(CheckModule("f32[1]", "{1.00000012}", "{1}", "check.expect_close", Ulp(0))).ok());
  // min_ulp_difference: identical values fail when at least 1 is required.
  EXPECT_FALSE(Check(CheckModule("f32[1]", "{1}", "{1}", "check.expect_close", Ulp(3, 1))).ok());
  // +0 vs -0 is 0 ULPs; the smallest subnormals of either sign are 2 apart.
  EXPECT_TRUE(Check(CheckModule("f32[1]", "{-0.0}", "{0}", "check.expect_close", Ulp(0))).ok());
  EXPECT_TRUE(Check(CheckModule("f32[1]", "{1.40129846e-45}", "{-1.40129846e-45}",
                                "check.expect_close", Ulp(2))).ok());
  EXPECT_FALSE(Check(CheckModule("f32[1]", "{1.40129846e-45}", "{-1.40129846e-45}",
                                 "check.expect_close", Ulp(1))).ok());
  // f16 and bf16 count on their 16-bit patterns.
  EXPECT_TRUE(Check(CheckModule("f16[1]", "{1.0009765625}", "{1}", "check.expect_close", Ulp(1))).ok());
  EXPECT_FALSE(Check(CheckModule("f16[1]", "{1.0009765625}", "{1}", "check.expect_close", Ulp(0))).ok());
  EXPECT_TRUE(Check(CheckModule("bf16[1]", "{1.0078125}", "{1}", "check.expect_close", Ulp(1))).ok());
  // NaN vs NaN is 0; NaN or infinity against anything else fails.
  EXPECT_TRUE(Check(CheckModule("f32[1]", "{nan}", "{-nan}", "check.expect_close", Ulp(0))).ok());
  EXPECT_TRUE(Check(CheckModule("f32[1]", "{inf}", "{inf}", "check.expect_close", Ulp(0))).ok());
  absl::Status s = Check(CheckModule("f32[1]", "{inf}", "{3.40282347e+38}", "check.expect_close",
                                     Ulp(1000000)));
  ASSERT_FALSE(s.ok());
  auto f = GetCheckFailure(s);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->actual, "inf");
  EXPECT_TRUE(std::isinf(f->ulp_difference));
  // Complex: the larger distance of the two parts.
  EXPECT_TRUE(Check(CheckModule("c64[1]", "{(1.00000012, 1)}", "{(1, 1)}", "check.expect_close",
                                Ulp(1))).ok());
  EXPECT_FALSE(Check(CheckModule("c64[1]", "{(1, 1.00000024)}", "{(1, 1)}",
                                 "check.expect_close", Ulp(1))).ok());
  // 8-bit floats: f8e4m3fn 1.125 is one step above 1.
  EXPECT_TRUE(Check(CheckModule("f8e4m3fn[1]", "{1.125}", "{1}", "check.expect_close", Ulp(1))).ok());
  EXPECT_FALSE(Check(CheckModule("f8e4m3fn[1]", "{1.125}", "{1}", "check.expect_close", Ulp(0))).ok());
}

TEST(ChecksTest, ExpectAlmostEq) {
  EXPECT_TRUE(Check(CheckModule("f32[2]", "{1, 2}", "{1.0001, 2}", "check.expect_almost_eq",
                                Tol("0.001"))).ok());
  absl::Status s = Check(CheckModule("f32[2]", "{1, 2}", "{1, 2.5}", "check.expect_almost_eq",
                                     Tol("0.1")));
  ASSERT_FALSE(s.ok());
  auto f = GetCheckFailure(s);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->index, (std::vector<int64_t>{1}));
  EXPECT_DOUBLE_EQ(f->abs_difference, 0.5);
  EXPECT_TRUE(Check(CheckModule("f64[1]", "{nan}", "{nan}", "check.expect_almost_eq", Tol("0"))).ok());
  EXPECT_FALSE(Check(CheckModule("f64[1]", "{nan}", "{1}", "check.expect_almost_eq", Tol("1e9"))).ok());
  EXPECT_FALSE(Check(CheckModule("f64[1]", "{inf}", "{1e308}", "check.expect_almost_eq",
                                 Tol("1e309"))).ok());
  EXPECT_TRUE(Check(CheckModule("f64[1]", "{inf}", "{inf}", "check.expect_almost_eq", Tol("0"))).ok());
  EXPECT_TRUE(Check(CheckModule("c128[1]", "{(1, 2)}", "{(1.05, 1.95)}", "check.expect_almost_eq",
                                Tol("0.1"))).ok());
  EXPECT_FALSE(Check(CheckModule("c128[1]", "{(1, 2)}", "{(1.05, 2.5)}",
                                 "check.expect_almost_eq", Tol("0.1"))).ok());
}

TEST(ChecksTest, FirstFailedCheckIsReportedWhateverTheThreads) {
  constexpr const char* text = R"hlo(HloModule two
ENTRY main {
  a = s32[2] constant({1, 2})
  e = s32[2] constant({1, 3})
  f = s32[2] constant({0, 2})
  ROOT r = s32[2] copy(a)
  c1 = () custom-call(a, e), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
  c2 = () custom-call(a, f), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
  c3 = () custom-call(a, a), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
})hlo";
  for (int threads : {1, 2}) {
    absl::Status s = RunHlo(text, {}, threads).status();
    ASSERT_FALSE(s.ok());
    auto f = GetCheckFailure(s);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->check, "c1");
    EXPECT_THAT(s.message(), HasSubstr("1 more failed check"));
  }
}

TEST(ChecksTest, BadConfigIsInvalidArgument) {
  absl::Status s = Check(CheckModule("f32[1]", "{1}", "{1}", "check.expect_close", "{}"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ExitCodeForStatus(s), 2);
  EXPECT_FALSE(IsCheckFailure(s));
}

}  // namespace
}  // namespace hlovm
