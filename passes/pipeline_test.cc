// The pipeline end to end: option parsing, the report, and results that are
// bitwise those of the run without passes.
#include "passes/pipeline.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "frontend/printer.h"
#include "gtest/gtest.h"
#include "passes/test_util.h"
#include "vm/api.h"

namespace hlovm::passes {
namespace {

TEST(PipelineTest, Specs) {
  EXPECT_TRUE(ValidatePassSpec("none").ok());
  EXPECT_TRUE(ValidatePassSpec("default").ok());
  EXPECT_TRUE(ValidatePassSpec("dce,cse,inline,licm,algsimp").ok());
  absl::Status bad = ValidatePassSpec("dce,nosuch");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.message()).find("nosuch"), std::string::npos);
}

TEST(PipelineTest, ReportNamesEveryPass) {
  auto m = test::Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] exponential(p)
  b = f32[4] exponential(p)
  ROOT r = f32[4] add(a, b)
})");
  ASSERT_NE(m, nullptr);
  auto report = RunPipeline(*m, "default");
  ASSERT_TRUE(report.ok());
  const std::string text = report->ToString();
  for (const std::string& name : PassNames()) {
    EXPECT_NE(text.find(name), std::string::npos) << text;
  }
  EXPECT_NE(text.find("merged 1 instructions"), std::string::npos) << text;
  EXPECT_NE(text.find("removed 0 instructions"), std::string::npos) << text;  // cse removed it
}

Literal F32(std::vector<float> values) {
  auto lit = Literal::Create(Shape(ElementType::kF32, {static_cast<int64_t>(values.size())}));
  std::memcpy(lit->untyped_data(), values.data(), values.size() * sizeof(float));
  return std::move(*lit);
}

TEST(PipelineTest, SignedZerosAndNaNsKeepTheirBits) {
  const std::string text = R"(HloModule m
f {
  a = f32[6] parameter(0)
  b = f32[6] parameter(1)
  ROOT m = f32[6] multiply(a, b)
}
ENTRY e {
  p = f32[6] parameter(0)
  q = f32[6] parameter(1)
  c1 = f32[6] call(p, q), to_apply=f
  c2 = f32[6] call(p, q), to_apply=f
  t = pred[] constant(false)
  s = f32[6] select(t, c1, c2)
  r = f32[6] reshape(s)
  ROOT o = f32[6] subtract(r, c1)
})";
  const float nan_payload = std::bit_cast<float>(0x7fc01234u);
  Literal p = F32({-0.0f, 0.0f, nan_payload, 1e30f, -1e-30f, std::numeric_limits<float>::infinity()});
  Literal q = F32({1.0f, -0.0f, 2.0f, 1e30f, 1e-30f, -0.0f});
  test::ExpectSameBits(text, {&p, &q});
}

TEST(PipelineTest, LoopWithInvariantWorkGivesSameBits) {
  const std::string text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
inner {
  x = f32[6] parameter(0)
  e = f32[6] exponential(x)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(e, z), dimensions={0}, to_apply=add
}
body {
  p = (s32[], f32[], f32[6]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[] get-tuple-element(p), index=1
  v = f32[6] get-tuple-element(p), index=2
  sum = f32[] call(v), to_apply=inner
  acc1 = f32[] multiply(acc, sum)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[], f32[6]) tuple(i1, acc1, v)
}
cond {
  p = (s32[], f32[], f32[6]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  v = f32[6] parameter(0)
  z = s32[] constant(0)
  o = f32[] constant(1)
  init = (s32[], f32[], f32[6]) tuple(z, o, v)
  ROOT w = (s32[], f32[], f32[6]) while(init), condition=cond, body=body
})";
  Literal v = F32({0.1f, -0.25f, 0.5f, -0.0f, 0.3f, 0.7f});
  test::ExpectSameBits(text, {&v});
  auto exe = Executable::FromText(text);
  ASSERT_TRUE(exe.ok());
  EXPECT_NE((*exe)->PassReport().find("hoisted 2 instructions out of 1 loops"), std::string::npos)
      << (*exe)->PassReport();
}

}  // namespace
}  // namespace hlovm::passes
