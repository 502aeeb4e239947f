// Control flow and structure: while, conditional, call, fusion, tuples,
// tokens, and exact layouts for parameters, results, copy and bitcast.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/test_util.h"

namespace hlovm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_util::Lit;
using testing_util::RunHlo;
using testing_util::Values;

constexpr const char* kSumLoop = R"hlo(HloModule sum
cond {
  s = (s32[], s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  v = f32[3] get-tuple-element(s), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  acc2 = s32[] add(acc, j)
  ROOT t = (s32[], s32[], f32[3]) tuple(j, acc2, v)
}
ENTRY main {
  p = f32[3] parameter(0)
  z = s32[] constant(0)
  t = (s32[], s32[], f32[3]) tuple(z, z, p)
  ROOT w = (s32[], s32[], f32[3]) while(t), condition=cond, body=body
})hlo";

TEST(ControlFlowTest, WhileCountsAndCarriesState) {
  for (int threads : {1, 2}) {
    std::vector<Literal> args;
    args.push_back(Lit("f32[3] {7, 8, 9}"));
    auto r = RunHlo(kSumLoop, args, threads);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->tuple_elements().size(), 3u);
    EXPECT_EQ(Values<int32_t>(r->tuple_elements()[0])[0], 10);
    EXPECT_EQ(Values<int32_t>(r->tuple_elements()[1])[0], 55);
    EXPECT_THAT(Values<float>(r->tuple_elements()[2]), ElementsAre(7, 8, 9));
  }
}

TEST(ControlFlowTest, WhileThatNeverRunsReturnsItsInput) {
  std::string text = kSumLoop;
  text.replace(text.find("constant(10)"), 12, "constant(0)");
  std::vector<Literal> args;
  args.push_back(Lit("f32[3] {1, 2, 3}"));
  auto r = RunHlo(text, args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int32_t>(r->tuple_elements()[0])[0], 0);
  EXPECT_EQ(Values<int32_t>(r->tuple_elements()[1])[0], 0);
}

// A scan that writes one row per trip with dynamic-update-slice: the body
// writes into the loop's state buffer in place, the loop's operand (an
// entry parameter, also returned unchanged beside the loop) is never written,
// and a large reader of the state runs before the write that overwrites it
// (two threads, large arrays: the body runs on the parallel executor).
TEST(ControlFlowTest, ScanWritesStateInPlaceWithoutTouchingItsOperand) {
  constexpr const char* kScan = R"hlo(HloModule scan
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  s = (s32[], f32[64,8192], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(64)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[64,8192], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  rows = f32[64,8192] get-tuple-element(s), index=1
  total = f32[] get-tuple-element(s), index=2
  zero = f32[] constant(0)
  sum = f32[] reduce(rows, zero), dimensions={0,1}, to_apply=add
  total2 = f32[] add(total, sum)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  fj = f32[] convert(j)
  row = f32[1,8192] broadcast(fj), dimensions={}
  z = s32[] constant(0)
  rows2 = f32[64,8192] dynamic-update-slice(rows, row, i, z)
  ROOT t = (s32[], f32[64,8192], f32[]) tuple(j, rows2, total2)
}
ENTRY main {
  p = f32[64,8192] parameter(0)
  c = s32[] constant(0)
  f = f32[] constant(0)
  t = (s32[], f32[64,8192], f32[]) tuple(c, p, f)
  w = (s32[], f32[64,8192], f32[]) while(t), condition=cond, body=body
  rows = f32[64,8192] get-tuple-element(w), index=1
  total = f32[] get-tuple-element(w), index=2
  ROOT r = (f32[64,8192], f32[64,8192], f32[]) tuple(p, rows, total)
})hlo";
  for (int threads : {1, 2}) {
    auto input = Literal::Create(Shape(ElementType::kF32, {64, 8192}));
    ASSERT_TRUE(input.ok());
    float* in = input->data<float>().data();
    for (int64_t k = 0; k < 64 * 8192; ++k) in[k] = 0.5f;
    std::vector<Literal> args;
    args.push_back(std::move(*input));
    auto r = RunHlo(kScan, args, threads);
    ASSERT_TRUE(r.ok()) << r.status();
    const auto& out = r->tuple_elements();
    const std::vector<float> p = Values<float>(out[0]);
    const std::vector<float> rows = Values<float>(out[1]);
    for (int64_t k = 0; k < 64 * 8192; ++k) {
      ASSERT_EQ(p[k], 0.5f) << "operand written at " << k;
      ASSERT_EQ(rows[k], static_cast<float>(k / 8192 + 1)) << k;
    }
    // Trip i sums rows 0..i-1 (values 1..i, 8192 each) and the rest at 0.5:
    // every partial sum is exact in f32.
    double expected = 0;
    for (int i = 0; i < 64; ++i) expected += 8192.0 * (i * (i + 1) / 2.0 + 0.5 * (64 - i));
    EXPECT_EQ(Values<float>(out[2])[0], static_cast<float>(expected)) << threads;
  }
}

TEST(ControlFlowTest, NestedWhileAndSwappedState) {
  auto r = RunHlo(R"hlo(HloModule nested
icond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ibody {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  b = s32[] add(a, one)
  ROOT t = (s32[], s32[]) tuple(j, b)
}
ocond {
  s = (s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
obody {
  s = (s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = s32[] get-tuple-element(s), index=1
  y = s32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  z = s32[] constant(0)
  it = (s32[], s32[]) tuple(z, x)
  iw = (s32[], s32[]) while(it), condition=icond, body=ibody
  x3 = s32[] get-tuple-element(iw), index=1
  ROOT t = (s32[], s32[], s32[]) tuple(j, y, x3)
}
ENTRY main {
  z = s32[] constant(0)
  a = s32[] constant(100)
  t = (s32[], s32[], s32[]) tuple(z, z, a)
  ROOT w = (s32[], s32[], s32[]) while(t), condition=ocond, body=obody
})hlo");
  ASSERT_TRUE(r.ok()) << r.status();
  // Each outer step: (x, y) := (y, x + 3). Four steps from (0, 100):
  // (100, 3) (3, 103) (103, 6) (6, 106).
  EXPECT_EQ(Values<int32_t>(r->tuple_elements()[0])[0], 4);
  EXPECT_EQ(Values<int32_t>(r->tuple_elements()[1])[0], 6);
  EXPECT_EQ(Values<int32_t>(r->tuple_elements()[2])[0], 106);
}

// A loop's condition and body run in a buffer of the caller's arena: one
// arena the two take turns in and two regions of results the iterations
// alternate (one frame's results are the next one's state). Nothing is
// allocated apart, and the plan stays at the live set: the caller's values,
// the body's temporaries and the state it reads.
TEST(ControlFlowTest, LoopFramesLiveInTheCallersArena) {
  auto exe = Executable::FromText(R"hlo(HloModule frames
cond {
  s = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[1024] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  half = f32[] constant(0.5)
  halves = f32[1024] broadcast(half), dimensions={}
  h = f32[1024] multiply(v, halves)
  w = f32[1024] add(h, h)
  ROOT t = (s32[], f32[1024]) tuple(j, w)
}
ENTRY main {
  p = f32[1024] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[1024]) tuple(z, p)
  ROOT l = (s32[], f32[1024]) while(t), condition=cond, body=body
})hlo", CompileOptions{.passes = "none", .fusion = false});
  ASSERT_TRUE(exe.ok()) << exe.status();
  const Executable::MemoryStats stats = (*exe)->memory_stats();
  EXPECT_EQ(stats.nested_arena_bytes, 0);
  const int64_t planned = stats.entry_arena_bytes + stats.result_bytes;
  EXPECT_GE(planned, stats.live_set_bytes);
  EXPECT_LE(planned, stats.live_set_bytes + 512) << "live set " << stats.live_set_bytes;
  std::vector<float> in(1024);
  for (int i = 0; i < 1024; ++i) in[i] = static_cast<float>(i) - 512.5f;
  Literal arg = Literal::CreateR1<float>(in);
  for (int run = 0; run < 2; ++run) {
    auto r = (*exe)->Execute({&arg});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Values<int32_t>(r->tuple_elements()[0])[0], 5);
    EXPECT_EQ(Values<float>(r->tuple_elements()[1]), in);
  }
}

constexpr const char* kIndexConditional = R"hlo(HloModule cond
b0 {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
b1 {
  x = f32[2] parameter(0)
  ROOT a = f32[2] add(x, x)
}
b2 {
  x = f32[2] parameter(0)
  ROOT m = f32[2] multiply(x, x)
}
ENTRY main {
  i = s32[] parameter(0)
  p = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, p, p, p), branch_computations={b0, b1, b2}
})hlo";

TEST(ControlFlowTest, IndexConditionalOutOfRangeTakesLastBranch) {
  struct Case {
    const char* index;
    std::vector<float> expected;
  };
  for (const Case& c : {Case{"s32[] 0", {-3, -4}}, Case{"s32[] 1", {6, 8}},
                        Case{"s32[] 2", {9, 16}}, Case{"s32[] 7", {9, 16}},
                        Case{"s32[] -1", {9, 16}}}) {
    std::vector<Literal> args;
    args.push_back(Lit(c.index));
    args.push_back(Lit("f32[2] {3, 4}"));
    auto r = RunHlo(kIndexConditional, args);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Values<float>(*r), c.expected) << c.index;
  }
}

TEST(ControlFlowTest, PredConditional) {
  constexpr const char* text = R"hlo(HloModule pc
t {
  x = (f32[], s32[]) parameter(0)
  ROOT g = f32[] get-tuple-element(x), index=0
}
f {
  x = s32[] parameter(0)
  ROOT c = f32[] convert(x)
}
ENTRY main {
  p = pred[] parameter(0)
  a = f32[] constant(1.5)
  b = s32[] constant(7)
  tt = (f32[], s32[]) tuple(a, b)
  ROOT c = f32[] conditional(p, tt, b), true_computation=t, false_computation=f
})hlo";
  std::vector<Literal> args;
  args.push_back(Lit("pred[] true"));
  auto r = RunHlo(text, args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r)[0], 1.5f);
  args.clear();
  args.push_back(Lit("pred[] false"));
  r = RunHlo(text, args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r)[0], 7.0f);
}

TEST(ControlFlowTest, CallFusionTuplesAndTokens) {
  auto r = RunHlo(R"hlo(HloModule misc
sq {
  x = f32[3] parameter(0)
  ROOT m = f32[3] multiply(x, x)
}
fused {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT s = f32[3] subtract(a, b)
}
ENTRY main {
  p = f32[3] parameter(0)
  c = f32[3] call(p), to_apply=sq
  f = f32[3] fusion(c, p), kind=kLoop, calls=fused
  tok = token[] after-all()
  d = f32[3] add-dependency(f, tok)
  pair = (f32[3], f32[3]) tuple(d, p)
  ob = (f32[3], f32[3]) opt-barrier(pair)
  g = f32[3] get-tuple-element(ob), index=0
  ROOT t = (f32[3], token[]) tuple(g, tok)
})hlo", [] {
    std::vector<Literal> a;
    a.push_back(Lit("f32[3] {1, 2, 3}"));
    return a;
  }());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values<float>(r->tuple_elements()[0]), ElementsAre(0, 2, 6));
}

TEST(ControlFlowTest, CopyAndBitcastBetweenLayoutsFollowXla) {
  // copy keeps the logical values; bitcast reinterprets the physical order:
  // f32[2,3]{0,1} holds {{1,2,3},{4,5,6}} as 1 4 2 5 3 6, which read as
  // f32[3,2]{1,0} is {{1,4},{2,5},{3,6}}.
  auto r = RunHlo(R"hlo(HloModule layouts
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  c = f32[2,3]{0,1} copy(p)
  b = f32[3,2]{1,0} bitcast(c)
  ROOT t = (f32[2,3]{0,1}, f32[3,2]{1,0}) tuple(c, b)
})hlo", [] {
    std::vector<Literal> a;
    a.push_back(Lit("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"));
    return a;
  }());
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& c = r->tuple_elements()[0];
  EXPECT_EQ(c.shape().layout().minor_to_major, (absl::InlinedVector<int64_t, 6>{0, 1}));
  EXPECT_THAT(Values<float>(c), ElementsAre(1, 4, 2, 5, 3, 6));  // physical order
  EXPECT_THAT(Values<float>(r->tuple_elements()[1]), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(ControlFlowTest, ParameterWithNonDefaultLayout) {
  Literal arg = Lit("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  auto r = RunHlo(R"hlo(HloModule layouts, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{1,0}}
ENTRY main {
  p = f32[2,3]{0,1} parameter(0)
  ROOT b = f32[3,2]{1,0} bitcast(p)
})hlo", [&] {
    std::vector<Literal> a;
    a.push_back(arg.Clone());
    return a;
  }());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values<float>(*r), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(ControlFlowTest, ElementwiseBasics) {
  auto r = RunHlo(R"hlo(HloModule basics
ENTRY main {
  i = s32[2,3] iota(), iota_dimension=1
  f = f32[2,3] convert(i)
  c = f32[3] constant({10, 20, 30})
  b = f32[2,3] broadcast(c), dimensions={1}
  a = f32[2,3] add(f, b)
  m = f32[2,3] multiply(a, f)
  two = f32[] constant(2)
  tb = f32[2,3] broadcast(two), dimensions={}
  gt = pred[2,3] compare(f, tb), direction=LT
  s = f32[2,3] select(gt, m, b)
  r = f32[6] reshape(s)
  z = s32[2,3] constant({{0, 0, 0}, {0, 0, 0}})
  d = s32[2,3] divide(i, z)
  ROOT t = (f32[6], s32[2,3]) tuple(r, d)
})hlo");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values<float>(r->tuple_elements()[0]), ElementsAre(0, 21, 30, 0, 21, 30));
  // Integer division by zero does not trap (XLA gives -1).
  EXPECT_THAT(Values<int32_t>(r->tuple_elements()[1]), ElementsAre(-1, -1, -1, -1, -1, -1));
}

TEST(ControlFlowTest, EmptyArraysRunWithoutTrapping) {
  auto r = RunHlo(R"hlo(HloModule empty
ENTRY main {
  i = s32[0,3] iota(), iota_dimension=0
  z = s32[] constant(0)
  b = s32[0,3] broadcast(z), dimensions={}
  d = s32[0,3] divide(i, b)
  ROOT c = f32[0,3] convert(d)
})hlo");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->shape().element_count(), 0);
}

}  // namespace
}  // namespace hlovm
