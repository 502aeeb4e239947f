// Executor tests: the parallel scheduler with a fake work unit (a custom-call
// that records a trace and can inject errors), cancellation, stepping, and
// bitwise-identical results for any thread count.
//
// Run under ThreadSanitizer:
//   cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHLOVM_SANITIZE=thread
//   cmake --build build-tsan --target executor_test && build-tsan/vm/executor_test
// Debian's oneTBB and Abseil are not instrumented, so TSan cannot see the
// happens-before edges of task spawning or of absl::Mutex and reports races
// inside them; a clean run needs TBB and Abseil built with -fsanitize=thread
// (or suppressions for their frames).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/float_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/custom_call.h"
#include "vm/test_util.h"

namespace hlovm {
namespace {

using ::testing::HasSubstr;
using testing_util::Lit;
using testing_util::RunHlo;
using testing_util::Values;
using ::testing::ElementsAre;

//===----------------------------------------------------------------------===//
// The fake work unit: custom_call_target="test.unit", backend_config="<id>"
// or "<id> fail". It records (id, event) in a global trace, checks that its
// operands were complete (every element equal to the producer's id + 1) and
// fills its result with id + 1.
//===----------------------------------------------------------------------===//

struct Trace {
  absl::Mutex mu;
  std::vector<std::string> events ABSL_GUARDED_BY(mu);
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};
};
Trace& GlobalTrace() {
  static Trace* t = new Trace();
  return *t;
}

class Unit : public PreparedCustomCall {
 public:
  Unit(std::string id, bool fail) : id_(std::move(id)), fail_(fail) {}
  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    Trace& t = GlobalTrace();
    const int now = ++t.running;
    int prev = t.max_running.load();
    while (now > prev && !t.max_running.compare_exchange_weak(prev, now)) {
    }
    {
      absl::MutexLock lock(&t.mu);
      t.events.push_back(absl::StrCat("start ", id_));
    }
    // Operands must be complete: written entirely by their producer.
    for (const ArrayView& op : operands) {
      const float* v = reinterpret_cast<const float*>(op.data);
      for (int64_t i = 1; i < op.shape->element_count(); ++i) {
        if (v[i] != v[0]) {
          --t.running;
          return absl::InternalError("operand not complete");
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (const MutableArrayView& r : results) {
      float* v = reinterpret_cast<float*>(r.data);
      for (int64_t i = 0; i < r.shape->element_count(); ++i) v[i] = static_cast<float>(id_.size());
    }
    {
      absl::MutexLock lock(&t.mu);
      t.events.push_back(absl::StrCat("end ", id_));
    }
    --t.running;
    if (fail_) return absl::InternalError(absl::StrCat("injected failure in ", id_));
    return absl::OkStatus();
  }

 private:
  std::string id_;
  bool fail_;
};

const bool unit_registered = [] {
  RegisterCustomCallTarget("test.unit", [](const HloInstruction& instr)
                                            -> absl::StatusOr<std::unique_ptr<PreparedCustomCall>> {
    const std::string& config = instr.attrs().backend_config;
    const bool fail = config.find("fail") != std::string::npos;
    return std::make_unique<Unit>(config.substr(0, config.find(' ')), fail);
  });
  return true;
}();

// Eight independent units over f32[65536] (large enough to be tasks), then
// one that consumes all of them.
std::string UnitModule(int fail_index) {
  std::string text = "HloModule units\nENTRY main {\n  p0 = f32[65536] parameter(0)\n";
  std::string all;
  for (int i = 0; i < 8; ++i) {
    absl::StrAppend(&text, "  u", i,
                    " = f32[65536] custom-call(p0), custom_call_target=\"test.unit\", "
                    "backend_config=\"u",
                    i, i == fail_index ? " fail" : "", "\"\n");
    absl::StrAppend(&all, i ? ", " : "", "u", i);
  }
  absl::StrAppend(&text, "  ROOT last = f32[65536] custom-call(", all,
                  "), custom_call_target=\"test.unit\", backend_config=\"last\"\n}\n");
  return text;
}

Literal Zeros65536() {
  auto lit = Literal::Create(Shape(ElementType::kF32, {65536}));
  return std::move(*lit);
}

TEST(ExecutorTest, FakeUnitsRespectDependencies) {
  for (int threads : {1, 2, 4}) {
    {
      absl::MutexLock lock(&GlobalTrace().mu);
      GlobalTrace().events.clear();
    }
    std::vector<Literal> args;
    args.push_back(Zeros65536());
    auto result = RunHlo(UnitModule(-1), args, threads);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(Values<float>(*result)[0], 4.0f);  // "last" has 4 characters
    absl::MutexLock lock(&GlobalTrace().mu);
    const auto& events = GlobalTrace().events;
    ASSERT_EQ(events.size(), 18u);
    // "last" starts only after every other unit ended.
    EXPECT_EQ(events[16], "start last");
    EXPECT_EQ(events[17], "end last");
  }
}

TEST(ExecutorTest, IndependentUnitsOverlapWithSeveralThreads) {
  GlobalTrace().max_running = 0;
  std::vector<Literal> args;
  args.push_back(Zeros65536());
  auto result = RunHlo(UnitModule(-1), args, 4);
  ASSERT_TRUE(result.ok()) << result.status();
  // With two cores shared with others this is likely, not certain; the
  // dependency test above is the strict one.
  EXPECT_GE(GlobalTrace().max_running.load(), 1);
}

TEST(ExecutorTest, InjectedErrorStopsTheRun) {
  for (int threads : {1, 2}) {
    std::vector<Literal> args;
    args.push_back(Zeros65536());
    auto result = RunHlo(UnitModule(3), args, threads);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
    EXPECT_THAT(result.status().message(), HasSubstr("injected failure in u3"));
    EXPECT_THAT(result.status().message(), HasSubstr("%u3"));
    absl::MutexLock lock(&GlobalTrace().mu);
  }
}

//===----------------------------------------------------------------------===//
// Determinism.
//===----------------------------------------------------------------------===//

constexpr const char* kLargeChains = R"hlo(HloModule chains
ENTRY main {
  i = f32[1048576] iota(), iota_dimension=0
  k = f32[] constant(0.001)
  kb = f32[1048576] broadcast(k), dimensions={}
  x = f32[1048576] multiply(i, kb)
  a1 = f32[1048576] sine(x)
  a2 = f32[1048576] multiply(a1, x)
  b1 = f32[1048576] exponential(kb)
  b2 = f32[1048576] add(b1, x)
  c1 = f32[1048576] tanh(x)
  c2 = f32[1048576] subtract(c1, a1)
  d1 = s32[1048576] convert(x)
  d2 = f32[1048576] convert(d1)
  cmp = pred[1048576] compare(a2, b2), direction=LT
  s = f32[1048576] select(cmp, c2, d2)
  ROOT t = (f32[1048576], f32[1048576], f32[1048576], f32[1048576]) tuple(a2, b2, s, d2)
})hlo";

TEST(ExecutorTest, ResultsAreBitwiseIdenticalForAnyThreadCount) {
  auto one = RunHlo(kLargeChains, {}, 1);
  ASSERT_TRUE(one.ok()) << one.status();
  for (int threads : {2, 3, 8}) {
    auto many = RunHlo(kLargeChains, {}, threads);
    ASSERT_TRUE(many.ok()) << many.status();
    EXPECT_TRUE(one->BitwiseEqual(*many)) << threads << " threads";
  }
  // And the values are right where they are easy to know.
  const auto& e = one->tuple_elements();
  EXPECT_EQ(Values<float>(e[3])[1500], 1.0f);  // convert(1.5) toward zero
  EXPECT_EQ(Values<float>(e[3])[999], 0.0f);
}

// An elided constant's values depend on its module alone: modules compiled
// on several threads at once each fill their constants from a fresh start of
// XLA's counters, as a fresh XLA process would.
TEST(ExecutorTest, ElidedConstantsDependOnTheModuleAlone) {
  constexpr char kElided[] = R"hlo(
HloModule elided
ENTRY main {
  a = s32[12] constant({...})
  b = s32[3] constant({...})
  ROOT t = (s32[12], s32[3]) tuple(a, b)
})hlo";
  std::vector<std::thread> threads;
  std::vector<absl::StatusOr<Literal>> results(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] { results[i] = RunHlo(kElided, {}, 1); });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.status();
    const auto& e = result->tuple_elements();
    EXPECT_THAT(Values<int32_t>(e[0]), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
    EXPECT_THAT(Values<int32_t>(e[1]), ElementsAre(12, 13, 14));
  }
}

// flush_denormals computes as XLA:CPU does: a subnormal product is written
// as zero and a subnormal operand read as zero, on the calling thread and on
// the workers that run independent instructions and chunks of large ones;
// the calling thread's mode is restored afterwards.
TEST(ExecutorTest, FlushDenormalsOnEveryThreadOfTheRun) {
  if (!CanFlushDenormals()) GTEST_SKIP() << "no flush-to-zero mode on this processor";
  constexpr int64_t kN = 1 << 20;  // large enough to be split across threads
  auto exe = Executable::FromText(absl::StrCat(R"hlo(HloModule m
ENTRY main {
  p = f32[)hlo",
                                               kN, R"hlo(] parameter(0)
  q = f32[)hlo",
                                               kN, R"hlo(] parameter(1)
  quarter = f32[] constant(0.25)
  zero = f32[] constant(0)
  qb = f32[)hlo",
                                               kN, R"hlo(] broadcast(quarter), dimensions={}
  zb = f32[)hlo",
                                               kN, R"hlo(] broadcast(zero), dimensions={}
  product = f32[)hlo",
                                               kN, R"hlo(] multiply(p, qb)
  sum = f32[)hlo",
                                               kN, R"hlo(] add(q, zb)
  ROOT t = (f32[)hlo",
                                               kN, "], f32[", kN, R"hlo(]) tuple(product, sum)
})hlo"));
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto p = Literal::Create(Shape(ElementType::kF32, {kN}));
  auto q = Literal::Create(Shape(ElementType::kF32, {kN}));
  ASSERT_TRUE(p.ok() && q.ok());
  for (int64_t i = 0; i < kN; ++i) {
    reinterpret_cast<float*>(p->untyped_data())[i] = std::numeric_limits<float>::min();
    reinterpret_cast<float*>(q->untyped_data())[i] = std::numeric_limits<float>::denorm_min();
  }
  // Flushed runs first: worker threads started during one must not keep
  // the mode for the runs after it.
  for (int threads : {2, 1, 2}) {
    SCOPED_TRACE(testing::Message() << threads << " threads");
    ExecuteOptions options;
    options.threads = threads;
    options.flush_denormals = true;
    auto flushed = (*exe)->Execute({&*p, &*q}, options);
    ASSERT_TRUE(flushed.ok()) << flushed.status();
    for (const Literal& e : flushed->tuple_elements()) {
      const std::vector<float> v = Values<float>(e);
      ASSERT_EQ(std::count(v.begin(), v.end(), 0.0f), kN);
    }
    options.flush_denormals = false;
    auto ieee = (*exe)->Execute({&*p, &*q}, options);
    ASSERT_TRUE(ieee.ok()) << ieee.status();
    const std::vector<float> product = Values<float>(ieee->tuple_elements()[0]);
    const std::vector<float> sum = Values<float>(ieee->tuple_elements()[1]);
    ASSERT_EQ(std::count(product.begin(), product.end(), std::numeric_limits<float>::min() / 4),
              kN);
    ASSERT_EQ(std::count(sum.begin(), sum.end(), std::numeric_limits<float>::denorm_min()), kN);
    // The caller computes with subnormals again.
    volatile float tiny = std::numeric_limits<float>::min();
    EXPECT_GT(tiny * 0.25f, 0.0f);
  }
}

// The largest live set: a and b (1 KiB each) are live together where c is
// computed, and c written in place into one of them counts once; d is
// computed after a and b are dead.
TEST(ExecutorTest, MemoryStatsLiveSet) {
  auto exe = Executable::FromText(R"hlo(HloModule m
ENTRY main {
  x = f32[256] parameter(0)
  a = f32[256] negate(x)
  b = f32[256] exponential(x)
  c = f32[256] add(a, b)
  ROOT d = f32[256] sine(c)
})hlo", CompileOptions{.fusion = false});
  ASSERT_TRUE(exe.ok()) << exe.status();
  const Executable::MemoryStats stats = (*exe)->memory_stats();
  EXPECT_EQ(stats.live_set_bytes, 2048);
  // a, c and d share one buffer, the result's own: only b is in the arena.
  EXPECT_EQ(stats.result_bytes, 1024);
  EXPECT_EQ(stats.entry_arena_bytes, 1024);
  EXPECT_EQ(stats.parameter_bytes, 1024);
}

// Buffers share arena addresses by lifetime, not by fixed slots: `c` (1 KiB)
// takes bytes `a` (4 KiB) held, and `f` (4 KiB) is born after `b` (1 KiB)
// dies while `c` still lives. Slots sized by their largest occupant would
// need two of 4 KiB; packing by lifetime stays near the largest live set
// (the four scalar results live in the result literals, not the arena).
TEST(ExecutorTest, ArenaPacksBuffersByLifetime) {
  auto exe = Executable::FromText(R"hlo(HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[1024] parameter(0)
  zero = f32[] constant(0)
  a = f32[1024] negate(p)
  b = f32[256] slice(p), slice={[0:256]}
  s = f32[] reduce(a, zero), dimensions={0}, to_apply=sum
  c = f32[256] slice(p), slice={[256:512]}
  e = f32[] reduce(b, zero), dimensions={0}, to_apply=sum
  f = f32[1024] exponential(p)
  sc = f32[] reduce(c, zero), dimensions={0}, to_apply=sum
  sf = f32[] reduce(f, zero), dimensions={0}, to_apply=sum
  ROOT t = (f32[], f32[], f32[], f32[]) tuple(s, e, sc, sf)
})hlo", CompileOptions{.passes = "none", .fusion = false});
  ASSERT_TRUE(exe.ok()) << exe.status();
  const Executable::MemoryStats stats = (*exe)->memory_stats();
  // Where sc is computed: c, f and the four results (buffers of their own
  // for the whole run).
  EXPECT_EQ(stats.live_set_bytes, 1024 + 4096 + 4 * 4);
  EXPECT_EQ(stats.result_bytes, 16);
  EXPECT_GE(stats.entry_arena_bytes + stats.result_bytes, stats.live_set_bytes);
  EXPECT_LT(stats.entry_arena_bytes, 2 * 4096);
}

// A donated argument the module returns unchanged becomes the result leaf
// (same storage, no copy); a relaid one is copied; ReturnDonated puts the
// taken leaf back so the arguments run again.
TEST(ExecutorTest, DonatedPassThroughIsHandedOverAndBack) {
  auto exe = Executable::FromText(R"hlo(HloModule m
ENTRY main {
  w = f32[4] parameter(0)
  v = f32[2,2]{1,0} parameter(1)
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  y = f32[4] add(w, ones)
  ROOT t = (f32[4], f32[4], f32[2,2]{1,0}) tuple(y, w, v)
})hlo");
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>({1, 2, 3, 4}));
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  auto v = Literal::CreateR2<float>({{1, 2}, {3, 4}}).Relayout(column_major);
  ASSERT_TRUE(v.ok()) << v.status();
  args.push_back(std::move(*v));
  const uint8_t* w_data = args[0].untyped_data();
  const uint8_t* v_data = args[1].untyped_data();
  for (int run = 0; run < 2; ++run) {
    auto result = (*exe)->ExecuteDonated(absl::MakeSpan(args));
    ASSERT_TRUE(result.ok()) << result.status();
    const auto& e = result->tuple_elements();
    EXPECT_THAT(Values<float>(e[0]), ElementsAre(2, 3, 4, 5));
    EXPECT_THAT(Values<float>(e[1]), ElementsAre(1, 2, 3, 4));
    EXPECT_EQ(e[1].untyped_data(), w_data);  // handed over
    EXPECT_TRUE(args[0].shape().IsTuple());
    // Column-major in, row-major out: copied, the argument stays.
    EXPECT_EQ(e[2].shape().ToString(), "f32[2,2]{1,0}");
    EXPECT_NE(e[2].untyped_data(), v_data);
    EXPECT_EQ(args[1].untyped_data(), v_data);
    (*exe)->ReturnDonated(*result, absl::MakeSpan(args));
    EXPECT_EQ(args[0].untyped_data(), w_data);
    EXPECT_THAT(Values<float>(args[0]), ElementsAre(1, 2, 3, 4));
    EXPECT_TRUE(result->tuple_elements()[1].shape().IsTuple());
  }
}

TEST(ExecutorTest, ManySmallIndependentOps) {
  std::string text = "HloModule small\nENTRY main {\n  p0 = f32[4] parameter(0)\n";
  std::string all;
  for (int i = 0; i < 500; ++i) {
    absl::StrAppend(&text, "  c", i, " = f32[] constant(", i, ")\n  b", i,
                    " = f32[4] broadcast(c", i, "), dimensions={}\n  a", i,
                    " = f32[4] add(p0, b", i, ")\n");
    absl::StrAppend(&all, i ? ", " : "", "a", i);
  }
  absl::StrAppend(&text, "  ROOT t = (", [] {
    std::string s;
    for (int i = 0; i < 500; ++i) absl::StrAppend(&s, i ? ", " : "", "f32[4]");
    return s;
  }(), ") tuple(", all, ")\n}\n");
  std::vector<Literal> args;
  args.push_back(Lit("f32[4] {1, 2, 3, 4}"));
  auto one = RunHlo(text, args, 1);
  auto two = RunHlo(text, args, 2);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_TRUE(one->BitwiseEqual(*two));
  EXPECT_EQ(Values<float>(one->tuple_elements()[499])[3], 503.0f);
}

//===----------------------------------------------------------------------===//
// Cancellation and stepping.
//===----------------------------------------------------------------------===//

constexpr const char* kEndless = R"hlo(HloModule endless
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY main {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
})hlo";

TEST(ExecutorTest, CancelStopsAnEndlessLoop) {
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  auto result = RunHlo(kEndless, {}, 1, &cancel);
  canceller.join();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

class Recorder : public StepObserver {
 public:
  bool OnStep(const Step& step) override {
    steps.push_back(absl::StrCat(step.after ? "after " : "before ", step.instruction->name()));
    if (step.after && step.instruction->name() == "m") {
      // Reading a value live at this point.
      auto a = step.read_value(step.instruction->operand(0));
      if (a.ok()) read_a = Values<float>(*a);
      auto self = step.read_value(step.instruction);
      if (self.ok()) read_m = Values<float>(*self);
    }
    return !(stop_at_b && step.instruction->name() == "b");
  }
  std::vector<std::string> steps;
  std::vector<float> read_a, read_m;
  bool stop_at_b = false;
};

constexpr const char* kSteps = R"hlo(HloModule steps
ENTRY main {
  p0 = f32[2] parameter(0)
  a = f32[2] add(p0, p0)
  m = f32[2] multiply(a, p0)
  b = f32[2] negate(m)
  ROOT r = f32[2] add(b, a)
})hlo";

TEST(ExecutorTest, SteppingSeesEveryInstructionAndLiveValues) {
  Recorder rec;
  std::vector<Literal> args;
  args.push_back(Lit("f32[2] {1, 2}"));
  // Compiled op by op (a fused region steps as one instruction).
  auto result = RunHlo(kSteps, args, 2, nullptr, &rec, CompileOptions{.fusion = false});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(rec.steps, ::testing::ElementsAre("before a", "after a", "before m", "after m",
                                                "before b", "after b", "before r", "after r"));
  EXPECT_THAT(rec.read_a, ::testing::ElementsAre(2.0f, 4.0f));
  EXPECT_THAT(rec.read_m, ::testing::ElementsAre(2.0f, 8.0f));
  EXPECT_THAT(Values<float>(*result), ::testing::ElementsAre(0.0f, -4.0f));
}

TEST(ExecutorTest, ObserverCanStop) {
  Recorder rec;
  rec.stop_at_b = true;
  std::vector<Literal> args;
  args.push_back(Lit("f32[2] {1, 2}"));
  auto result = RunHlo(kSteps, args, 1, nullptr, &rec, CompileOptions{.fusion = false});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
}

// A loop with a scalar compare for its condition (evaluated in place by the
// loop when nothing observes the run), a leaf passed through unchanged and
// values the body computes in one-element handlers.
constexpr const char* kScalarLoop = R"hlo(HloModule scalar_loop
cond {
  s = (s32[], f32[], u32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[], u32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[] get-tuple-element(s), index=1
  h = u32[] get-tuple-element(s), index=2
  v = f32[2] get-tuple-element(s), index=3
  one = s32[] constant(1)
  j = s32[] add(i, one)
  c = f32[] constant(1.001)
  y = f32[] multiply(x, c)
  k = u32[] constant(2654435761)
  g = u32[] multiply(h, k)
  r = u32[] constant(13)
  g2 = u32[] shift-right-logical(g, r)
  h2 = u32[] xor(g, g2)
  ROOT t = (s32[], f32[], u32[], f32[2]) tuple(j, y, h2, v)
}
ENTRY main {
  z = s32[] constant(0)
  x0 = f32[] constant(1)
  h0 = u32[] constant(7)
  v0 = f32[2] constant({3, 4})
  t = (s32[], f32[], u32[], f32[2]) tuple(z, x0, h0, v0)
  ROOT w = (s32[], f32[], u32[], f32[2]) while(t), condition=cond, body=body
})hlo";

class CountSteps : public StepObserver {
 public:
  bool OnStep(const Step& step) override {
    ++steps;
    return true;
  }
  int64_t steps = 0;
};

TEST(ExecutorTest, ScalarLoopSameWithAndWithoutHooks) {
  auto exe = Executable::FromText(kScalarLoop);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT((*exe)->Disassemble(), HasSubstr("cond-inline"));
  // The reference: the same arithmetic in C++.
  float x = 1.0f;
  uint32_t h = 7;
  for (int i = 0; i < 1000; ++i) {
    x = x * 1.001f;
    const uint32_t g = h * 2654435761u;
    h = g ^ (g >> 13);
  }
  auto check = [&](const absl::StatusOr<Literal>& result) {
    ASSERT_TRUE(result.ok()) << result.status();
    const auto& e = result->tuple_elements();
    EXPECT_THAT(Values<int32_t>(e[0]), ElementsAre(1000));
    EXPECT_THAT(Values<float>(e[1]), ElementsAre(x));
    EXPECT_THAT(Values<uint32_t>(e[2]), ElementsAre(h));
    EXPECT_THAT(Values<float>(e[3]), ElementsAre(3.0f, 4.0f));
  };
  check(RunHlo(kScalarLoop));
  std::atomic<bool> cancel{false};
  check(RunHlo(kScalarLoop, {}, 1, &cancel));
  CountSteps steps;
  check(RunHlo(kScalarLoop, {}, 1, nullptr, &steps));
  EXPECT_GT(steps.steps, 2 * 1000);  // the condition's compare steps too
  RunPosition position;
  ExecuteOptions options;
  options.threads = 1;
  options.position = &position;
  check((*exe)->Execute({}, options));
}

TEST(ExecutorTest, WrongArgumentsAreInvalid) {
  auto none = RunHlo(kSteps, {}, 1);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<Literal> args;
  args.push_back(Lit("f32[3] {1, 2, 3}"));
  auto wrong = RunHlo(kSteps, args, 1);
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.status().message(), HasSubstr("f32[2]"));
}

}  // namespace
}  // namespace hlovm
