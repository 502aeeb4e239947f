#include "vm/profiler.h"

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/parser.h"
#include "frontend/verifier.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::Values;

// Sums 1..n in a while loop (n trips), then scales a vector by the sum.
constexpr char kLoop[] = R"(
HloModule loop

cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one), metadata={op_name="jit(f)/while/body/add" source_file="f.py" source_line=12}
  sum = s32[] add(acc, next)
  ROOT t = (s32[], s32[]) tuple(next, sum)
}

ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  loop = (s32[], s32[]) while(init), condition=cond, body=body
  total = s32[] get-tuple-element(loop), index=1
  f = f32[] convert(total)
  fb = f32[4] broadcast(f), dimensions={}
  ROOT y = f32[4] multiply(x, fb), metadata={op_name="jit(f)/mul"}
}
)";

std::vector<ProfileEvent> Profile(const Executable& exe, const Literal& x, Literal* result,
                                  int threads = 1) {
  Profiler profiler;
  ExecuteOptions options;
  options.threads = threads;
  options.profiler = &profiler;
  auto r = exe.Execute({&x}, options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok()) *result = std::move(*r);
  return profiler.TakeEvents();
}

TEST(ProfilerTest, RecordsEveryInstructionAndIteration) {
  auto exe = Build(kLoop, CompileOptions{.fusion = false});
  ASSERT_NE(exe, nullptr);
  const Literal x = Array<float>(ElementType::kF32, {4}, {1, 2, 3, 4});
  Literal result;
  const std::vector<ProfileEvent> events = Profile(*exe, x, &result);

  int iterations = 0, body_adds = 0, compares = 0, loops = 0;
  for (const ProfileEvent& e : events) {
    ASSERT_NE(e.hlo, nullptr);
    EXPECT_LE(e.begin_ns, e.end_ns);
    if (e.kind == ProfileEvent::Kind::kIteration) {
      EXPECT_EQ(e.iteration, iterations);
      ++iterations;
      continue;
    }
    if (e.hlo->name() == "next" || e.hlo->name() == "sum") ++body_adds;
    if (e.hlo->name() == "lt") ++compares;
    if (e.hlo->name() == "loop") ++loops;
  }
  EXPECT_EQ(iterations, 5);
  EXPECT_EQ(body_adds, 10);
  EXPECT_EQ(compares, 6);  // five trips and the exit test
  EXPECT_EQ(loops, 1);
  // 1+2+3+4+5 = 15.
  EXPECT_EQ(Values<float>(result), (std::vector<float>{15, 30, 45, 60}));

  // On one thread, the loop's event encloses every body and condition event.
  const auto loop = std::find_if(events.begin(), events.end(), [](const ProfileEvent& e) {
    return e.kind == ProfileEvent::Kind::kInstruction && e.hlo->name() == "loop";
  });
  ASSERT_NE(loop, events.end());
  for (const ProfileEvent& e : events) {
    if (e.computation != nullptr && e.computation->name() != "main") {
      EXPECT_GE(e.begin_ns, loop->begin_ns);
      EXPECT_LE(e.end_ns, loop->end_ns);
    }
  }
}

TEST(ProfilerTest, ResultsDoNotChangeWhenProfiled) {
  auto exe = Build(kLoop, CompileOptions{.fusion = false});
  ASSERT_NE(exe, nullptr);
  const Literal x = Array<float>(ElementType::kF32, {4}, {0.5f, -2, 3e-3f, 7});
  Literal profiled;
  Profile(*exe, x, &profiled, 2);
  const Literal plain = vm_test::RunWith(*exe, {&x}, 2);
  EXPECT_EQ(Values<float>(profiled), Values<float>(plain));
}

TEST(ProfilerTest, SelfTimesAddUpToTheBusyTime) {
  auto exe = Build(kLoop, CompileOptions{.fusion = false});
  ASSERT_NE(exe, nullptr);
  const Literal x = Array<float>(ElementType::kF32, {4}, {1, 2, 3, 4});
  Literal result;
  const std::vector<ProfileEvent> events = Profile(*exe, x, &result);
  const std::vector<ProfileRow> by_opcode = AggregateProfile(events, ProfileGrouping::kOpcode);
  int64_t sum = 0, calls = 0;
  for (const ProfileRow& row : by_opcode) {
    sum += row.self_ns;
    calls += row.calls;
    EXPECT_GE(row.self_ns, 0);
  }
  EXPECT_EQ(sum, TotalSelfNs(events));
  // The top-level instructions' inclusive times bound the busy time.
  int64_t top_level = 0;
  for (const ProfileEvent& e : events) {
    if (e.kind == ProfileEvent::Kind::kInstruction && e.computation->name() == "main") {
      top_level += e.end_ns - e.begin_ns;
    }
  }
  EXPECT_EQ(sum, top_level);
  const auto add = std::find_if(by_opcode.begin(), by_opcode.end(),
                                [](const ProfileRow& r) { return r.key == "add"; });
  ASSERT_NE(add, by_opcode.end());
  EXPECT_EQ(add->calls, 10);
}

TEST(ProfilerTest, GroupsByInstructionAndOpName) {
  auto exe = Build(kLoop, CompileOptions{.fusion = false});
  ASSERT_NE(exe, nullptr);
  const Literal x = Array<float>(ElementType::kF32, {4}, {1, 2, 3, 4});
  Literal result;
  const std::vector<ProfileEvent> events = Profile(*exe, x, &result);
  const std::vector<ProfileRow> rows = AggregateProfile(events, ProfileGrouping::kInstruction);
  const auto next = std::find_if(rows.begin(), rows.end(),
                                 [](const ProfileRow& r) { return r.key == "next"; });
  ASSERT_NE(next, rows.end());
  EXPECT_EQ(next->calls, 5);
  EXPECT_NE(next->detail.find("jit(f)/while/body/add"), std::string::npos);
  EXPECT_NE(next->detail.find("f.py:12"), std::string::npos);

  const std::vector<ProfileRow> by_name = AggregateProfile(events, ProfileGrouping::kOpName, 2);
  std::vector<std::string> keys;
  for (const ProfileRow& r : by_name) keys.push_back(r.key);
  EXPECT_NE(std::find(keys.begin(), keys.end(), "jit(f)/while"), keys.end());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "jit(f)/mul"), keys.end());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "(no op_name)"), keys.end());
}

TEST(ProfilerTest, CostsOfDotConvolutionAndInPlaceUpdates) {
  auto module = ParseHloModule(R"(
HloModule costs
ENTRY main {
  a = f32[8,16] parameter(0)
  b = f32[16,4] parameter(1)
  d = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  img = f32[1,10,10,3] parameter(2)
  k = f32[3,3,3,6] parameter(3)
  c = f32[1,8,8,6] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  big = f32[100,10] parameter(4)
  u = f32[1,10] parameter(5)
  i = s32[] parameter(6)
  z = s32[] constant(0)
  dus = f32[100,10] dynamic-update-slice(big, u, i, z)
  ROOT t = (f32[8,4], f32[1,8,8,6], f32[100,10]) tuple(d, c, dus)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  const HloComputation& entry = *(*module)->entry();
  auto find = [&](const std::string& name) -> const HloInstruction& {
    for (const auto& i : entry.instructions()) {
      if (i->name() == name) return *i;
    }
    ADD_FAILURE() << name;
    return *entry.root();
  };
  EXPECT_EQ(EstimateCost(find("d")).flops, 2.0 * 8 * 4 * 16);
  EXPECT_EQ(EstimateCost(find("d")).bytes, 4.0 * (8 * 16 + 16 * 4 + 8 * 4));
  EXPECT_EQ(EstimateCost(find("c")).flops, 2.0 * (8 * 8 * 6) * (3 * 3 * 3));
  // In place: the update is read and written, the indices read.
  EXPECT_EQ(EstimateCost(find("dus")).bytes, 4.0 * (2 * 10 + 2));
  EXPECT_EQ(EstimateCost(find("t")).bytes, 0);
}

TEST(ProfilerTest, ChromeTraceHasOneSlicePerEvent) {
  auto exe = Build(kLoop, CompileOptions{.fusion = false});
  ASSERT_NE(exe, nullptr);
  const Literal x = Array<float>(ElementType::kF32, {4}, {1, 2, 3, 4});
  Literal result;
  const std::vector<ProfileEvent> events = Profile(*exe, x, &result);
  const std::string json = ChromeTraceJson(events, "a \"quoted\" name");
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  size_t slices = 0;
  for (size_t at = 0; (at = json.find("\"ph\":\"X\"", at)) != std::string::npos; ++at) ++slices;
  EXPECT_EQ(slices, events.size());
  EXPECT_NE(json.find("a \\\"quoted\\\" name"), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"loop iteration 4\""), std::string::npos);
  EXPECT_NE(json.find("\"op_name\":\"jit(f)/mul\""), std::string::npos);
}

// A replicated run records every instance's instructions; the trace has a
// process per instance.
TEST(ProfilerTest, ReplicatedRunsTraceOneProcessPerInstance) {
  auto exe = Build(R"(HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  r = f32[4] all-reduce(x), replica_groups={}, to_apply=add
  ROOT n = f32[4] negate(r)
})");
  ASSERT_NE(exe, nullptr);
  const Literal x = Array<float>(ElementType::kF32, {4}, {1, 2, 3, 4});
  const std::vector<const Literal*> args = {&x};
  Profiler profiler;
  ReplicatedOptions options;
  options.profiler = &profiler;
  for (const auto& r : ExecuteReplicated(*exe, absl::MakeConstSpan(&args, 1), options)) {
    ASSERT_TRUE(r.ok()) << r.status();
  }
  const std::vector<ProfileEvent> events = profiler.TakeEvents();
  int per_instance[2] = {0, 0};
  for (const ProfileEvent& e : events) {
    ASSERT_GE(e.instance, 0);
    ASSERT_LT(e.instance, 2);
    ++per_instance[e.instance];
  }
  EXPECT_EQ(per_instance[0], 2);  // all-reduce, negate
  EXPECT_EQ(per_instance[1], 2);
  const std::string json = ChromeTraceJson(events, "m");
  EXPECT_NE(json.find("\"name\":\"m instance 1\""), std::string::npos);
  EXPECT_NE(json.find("\"ph\":\"X\",\"pid\":1,"), std::string::npos);
}

TEST(ProfilerTest, ReadsMetadataFields) {
  HloInstruction instr(HloOpcode::kAdd, "a", Shape(ElementType::kF32, {}));
  instr.raw_attributes().Append(
      "metadata", R"({op_type="add" op_name="jit(g)/a\"b" source_file="x/y.py" source_line=7})");
  const OpMetadata m = GetOpMetadata(instr);
  EXPECT_EQ(m.op_name, "jit(g)/a\"b");
  EXPECT_EQ(m.source_file, "x/y.py");
  EXPECT_EQ(m.source_line, 7);
  EXPECT_EQ(m.SourceLocation(), "x/y.py:7");
}

}  // namespace
}  // namespace hlovm
