// Multi-instance runs on the in-memory collective bus: results, per-instance
// arguments, group forms, and the faults (a skipped collective, a shape
// mismatch, a late peer) that must fail every instance without a hang.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::RunAll;
using vm_test::Values;


constexpr char kAllReduceF32[] = R"(
HloModule ar, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[5000] parameter(0)
  ROOT r = f32[5000] all-reduce(p), replica_groups={}, to_apply=add
})";

// Compiles kAllReduceF32 with `replicas` and `partitions` in place of the
// header's counts (0: the header's); returns the error message ("" if OK).
std::string CompileWithCounts(std::string_view header, int64_t replicas, int64_t partitions) {
  std::string text(kAllReduceF32);
  text.replace(text.find("HloModule ar, replica_count=4"), 29, header);
  CompileOptions options;
  options.replica_count = replicas;
  options.num_partitions = partitions;
  auto exe = Executable::FromText(text, options);
  return exe.ok() ? "" : std::string(exe.status().message());
}

TEST(ReplicasTest, InstanceCountsAreBounded) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // The header: zero, negative and huge counts are parse errors at the value.
  std::string zero = CompileWithCounts("HloModule ar, replica_count=0", 0, 0);
  EXPECT_TRUE(absl::StrContains(zero, "2:29: error: replica_count must be at least 1, not 0"))
      << zero;
  std::string negative = CompileWithCounts("HloModule ar, replica_count=-3", 0, 0);
  EXPECT_TRUE(absl::StrContains(negative, "2:29: error: replica_count must be at least 1, not -3"))
      << negative;
  std::string partitions = CompileWithCounts("HloModule ar, num_partitions=-1", 0, 0);
  EXPECT_TRUE(absl::StrContains(partitions, "num_partitions must be at least 1, not -1"))
      << partitions;
  std::string huge = CompileWithCounts("HloModule ar, replica_count=9223372036854775807", 0, 0);
  EXPECT_TRUE(absl::StrContains(huge, "2:29: error: 9223372036854775807 replicas x 1 partitions "
                                      "are more than the 1024 instances"))
      << huge;
  // R x P overflows int64: refused where the second count is read.
  std::string product = CompileWithCounts(
      "HloModule ar, replica_count=4, num_partitions=4611686018427387904", 0, 0);
  EXPECT_TRUE(absl::StrContains(product, "2:47: error: 4 replicas x 4611686018427387904 "
                                         "partitions are more than the 1024 instances"))
      << product;
  // Counts given to the library (the command line's --replicas and
  // --partitions) are checked as the header's are.
  EXPECT_TRUE(absl::StrContains(CompileWithCounts("HloModule ar", kMax, 0),
                                "9223372036854775807 replicas x 1 partitions are more than"));
  EXPECT_TRUE(absl::StrContains(CompileWithCounts("HloModule ar", 100000, 0),
                                "100000 replicas x 1 partitions are more than the 1024"));
  EXPECT_TRUE(absl::StrContains(CompileWithCounts("HloModule ar", 4, 4611686018427387904),
                                "4 replicas x 4611686018427387904 partitions"));
  EXPECT_TRUE(absl::StrContains(CompileWithCounts("HloModule ar", -3, 0), "not -3"));
  EXPECT_EQ(CompileWithCounts("HloModule ar", 32, 32), "");
  EXPECT_TRUE(absl::StrContains(CompileWithCounts("HloModule ar", 32, 33), "more than the 1024"));
}

TEST(ReplicasTest, AllReduceOfPerInstanceArgumentsIsIdenticalEverywhere) {
  auto exe = Build(kAllReduceF32);
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> inputs;
  for (int r = 0; r < 4; ++r) {
    std::vector<float> v(5000);
    for (int i = 0; i < 5000; ++i) v[i] = 0.1f * static_cast<float>(i % 17) + 1.0f / (r + 1);
    inputs.push_back(Array<float>(ElementType::kF32, {5000}, v));
  }
  std::vector<std::vector<const Literal*>> args;
  for (auto& l : inputs) args.push_back({&l});
  for (int threads : {1, 2}) {
    auto results = RunAll(*exe, args, 10, threads);
    ASSERT_EQ(results.size(), 4u);
    for (auto& r : results) ASSERT_TRUE(r.ok()) << r.status();
    // Summed in replica order, as the bus does.
    std::vector<float> expect(5000);
    for (int i = 0; i < 5000; ++i) {
      float s = inputs[0].data<float>()[i];
      for (int r = 1; r < 4; ++r) s += inputs[r].data<float>()[i];
      expect[i] = s;
    }
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(Values<float>(*results[r]), expect) << "replica " << r;
      EXPECT_TRUE(results[r]->BitwiseEqual(*results[0]));
    }
  }
}

TEST(ReplicasTest, IotaGroupsAndCustomReducer) {
  // [2,2]<=[2,2]T(1,0): groups {0,2},{1,3}; the reducer is not a single op.
  auto exe = Build(R"(
HloModule g, replica_count=4
f {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  m = s32[] multiply(a, b)
  ROOT s = s32[] add(m, a)
}
ENTRY e {
  id = u32[] replica-id()
  c = s32[] convert(id)
  one = s32[] constant(1)
  x = s32[] add(c, one)
  ROOT r = s32[] all-reduce(x), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=f
})");
  ASSERT_NE(exe, nullptr);
  auto results = RunAll(*exe, {{}});
  // f(a, b) = a*b + a in rank order: {0,2}: x=1,3 -> 1*3+1 = 4; {1,3}: 2,4 -> 10.
  const std::vector<int32_t> expect = {4, 10, 4, 10};
  for (int r = 0; r < 4; ++r) {
    ASSERT_TRUE(results[r].ok()) << results[r].status();
    EXPECT_EQ(Values<int32_t>(*results[r]), std::vector<int32_t>{expect[r]}) << r;
  }
}

TEST(ReplicasTest, WrongArgumentCountIsRefused) {
  auto exe = Build(kAllReduceF32);
  ASSERT_NE(exe, nullptr);
  auto results = RunAll(*exe, {{}, {}});
  for (auto& r : results) EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ReplicasTest, SkippedCollectiveFailsAtOnceWhenThePeerHasExited) {
  auto exe = Build(vm_test::kSkippedAllReduce);
  ASSERT_NE(exe, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto results = RunAll(*exe, {{}}, /*timeout=*/30);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0);  // well inside the 30 s timeout
  ASSERT_FALSE(results[0].ok());
  const std::string message(results[0].status().message());
  EXPECT_TRUE(absl::StrContains(message, "%r")) << message;
  EXPECT_TRUE(absl::StrContains(message, "group {0,1}")) << message;
  EXPECT_TRUE(absl::StrContains(message, "replica 1 has already finished")) << message;
  EXPECT_EQ(ExitCodeForStatus(results[0].status()), 1);
}

// Two replicas; replica 1 counts to 200,000,000 before the entry's last
// lines `tail` (a collective of the count %i), so the other waits for it.
std::string LateModule(const std::string& tail) {
  return absl::StrCat(R"(
HloModule late, replica_count=2
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(j, n)
}
ENTRY e {
  id = u32[] replica-id()
  c = s32[] convert(id)
  big = s32[] constant(200000000)
  n = s32[] multiply(c, big)
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, n)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  i = s32[] get-tuple-element(w), index=0
)", tail, "\n}");
}

TEST(ReplicasTest, LatePeerTimesOut) {
  // Replica 1 runs a long loop before the all-reduce; the timeout is short.
  auto exe = Build(LateModule("  ROOT r = s32[] all-reduce(i), replica_groups={}, to_apply=add"));
  ASSERT_NE(exe, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto results = RunAll(*exe, {{}}, /*timeout=*/0.2);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(results[0].ok());
  const std::string message(results[0].status().message());
  EXPECT_TRUE(absl::StrContains(message, "timed out")) << message;
  EXPECT_TRUE(absl::StrContains(message, "replica 1 did not arrive")) << message;
  // Replica 1 is cancelled rather than left running its loop, and says why.
  ASSERT_FALSE(results[1].ok());
  EXPECT_TRUE(absl::IsCancelled(results[1].status())) << results[1].status();
  EXPECT_TRUE(absl::StrContains(results[1].status().message(), "cancelled: replica 0 failed"))
      << results[1].status();
  EXPECT_LT(seconds, 10.0);
}

// Replica 1 reads an infeed that holds nothing; the others count for
// minutes unless cancelled. On either bus, the cancelled ones name the
// instance that failed; cancelled by the caller (an interrupt), no instance
// is named.
constexpr char kOneFails[] = R"(
HloModule one_fails, replica_count=3
count_cond {
  i = s32[] parameter(0)
  n = s32[] constant(2000000000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
count_body {
  i = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(i, one)
}
count {
  p = s32[] parameter(0)
  ROOT counted = s32[] while(p), condition=count_cond, body=count_body
}
read {
  p = s32[] parameter(0)
  token = token[] after-all()
  in = (s32[], token[]) infeed(token)
  ROOT v = s32[] get-tuple-element(in), index=0
}
ENTRY e {
  id = u32[] replica-id()
  one = u32[] constant(1)
  ne = pred[] compare(id, one), direction=NE
  zero = s32[] constant(0)
  ROOT c = s32[] conditional(ne, zero, zero), true_computation=count, false_computation=read
}
)";

TEST(ReplicasTest, CancelledInstancesNameTheOneThatFailed) {
  auto exe = Build(kOneFails);
  ASSERT_NE(exe, nullptr);
  for (bool message_bus : {false, true}) {
    SCOPED_TRACE(message_bus ? "message bus" : "in-memory bus");
    auto results = RunAll(*exe, {{}}, /*timeout=*/30, /*threads=*/1, message_bus);
    ASSERT_EQ(results.size(), 3u);
    ASSERT_FALSE(results[1].ok());
    EXPECT_TRUE(absl::StrContains(results[1].status().message(), "infeed queue is empty"))
        << results[1].status();
    for (int r : {0, 2}) {
      ASSERT_FALSE(results[r].ok());
      EXPECT_TRUE(absl::IsCancelled(results[r].status())) << results[r].status();
      EXPECT_TRUE(
          absl::StrContains(results[r].status().message(), "execution cancelled: replica 1 failed"))
          << results[r].status();
    }
  }
}

TEST(ReplicasTest, AnInterruptNamesNoInstance) {
  auto exe = Build(LateModule("  ROOT r = s32[] copy(i)"));
  ASSERT_NE(exe, nullptr);
  std::atomic<bool> interrupt{false};
  ReplicatedOptions options;
  options.threads = 1;
  options.interrupt = &interrupt;
  std::thread stop([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    interrupt.store(true);
  });
  auto results = ExecuteReplicated(*exe, {{}}, options);
  stop.join();
  // Replica 1 counts to 2e8: the interrupt stops it.
  ASSERT_FALSE(results[1].ok());
  EXPECT_TRUE(absl::IsCancelled(results[1].status())) << results[1].status();
  EXPECT_TRUE(absl::StrContains(results[1].status().message(), "execution cancelled"))
      << results[1].status();
  EXPECT_FALSE(absl::StrContains(results[1].status().message(), "failed")) << results[1].status();
}

TEST(ReplicasTest, ShapeMismatchFailsEveryInstanceAtOnce) {
  // Replica 1 reduces a different array than replica 0 (different ops of
  // different shapes in the two branches).
  auto exe = Build(vm_test::kMismatchedAllReduce);
  ASSERT_NE(exe, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto results = RunAll(*exe, {{}}, /*timeout=*/30);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0);
  for (int r = 0; r < 2; ++r) {
    ASSERT_FALSE(results[r].ok());
    const std::string message(results[r].status().message());
    EXPECT_TRUE(absl::StrContains(message, "does not match")) << message;
    EXPECT_TRUE(absl::StrContains(message, "group {0,1}")) << message;
  }
}

TEST(ReplicasTest, CrossedCollectivesFailAtOnce) {
  // Replica 0 waits at an all-reduce over {0,1}, replica 1 at one over
  // {1,0}: each waits for the other, so both fail without the timeout.
  auto exe = Build(R"(
HloModule crossed, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
first {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), replica_groups={{0,1}}, to_apply=add
}
second {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), replica_groups={{1,0}}, to_apply=add
}
ENTRY e {
  id = u32[] replica-id()
  zero = u32[] constant(0)
  is0 = pred[] compare(id, zero), direction=EQ
  x = f32[4] constant({1, 2, 3, 4})
  ROOT c = f32[4] conditional(is0, x, x), true_computation=first, false_computation=second
})");
  ASSERT_NE(exe, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto results = RunAll(*exe, {{}}, /*timeout=*/30);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  ASSERT_FALSE(results[0].ok());
  ASSERT_FALSE(results[1].ok());
  const std::string both =
      std::string(results[0].status().message()) + " | " + std::string(results[1].status().message());
  EXPECT_TRUE(absl::StrContains(both, "waits for this instance at another collective")) << both;
}

TEST(ReplicasTest, ManyRoundsOfSmallAndLargeCollectives) {
  // 8 replicas, 300 loop iterations, each a staged scalar all-reduce (min)
  // and a large one (max, split across the instances): v += 7, s -= 7.
  auto exe = Build(R"(
HloModule rounds, replica_count=8
mx {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
mn {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] minimum(a, b)
}
cond {
  st = (s32[], s32[], s32[5000]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(300)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], s32[], s32[5000]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  s = s32[] get-tuple-element(st), index=1
  v = s32[5000] get-tuple-element(st), index=2
  id = u32[] replica-id()
  c = s32[] convert(id)
  sd = s32[] subtract(s, c)
  s2 = s32[] all-reduce(sd), replica_groups={}, to_apply=mn
  cb = s32[5000] broadcast(c), dimensions={}
  va = s32[5000] add(v, cb)
  v2 = s32[5000] all-reduce(va), replica_groups={}, to_apply=mx
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], s32[], s32[5000]) tuple(j, s2, v2)
}
ENTRY e {
  z = s32[] constant(0)
  zv = s32[5000] broadcast(z), dimensions={}
  init = (s32[], s32[], s32[5000]) tuple(z, z, zv)
  w = (s32[], s32[], s32[5000]) while(init), condition=cond, body=body
  s = s32[] get-tuple-element(w), index=1
  v = s32[5000] get-tuple-element(w), index=2
  ROOT out = (s32[], s32[5000]) tuple(s, v)
})");
  ASSERT_NE(exe, nullptr);
  auto results = RunAll(*exe, {{}}, 10, /*threads=*/2);
  for (int r = 0; r < 8; ++r) {
    ASSERT_TRUE(results[r].ok()) << results[r].status();
    const auto& parts = results[r]->tuple_elements();
    EXPECT_EQ(Values<int32_t>(parts[0]), std::vector<int32_t>{-2100}) << r;
    EXPECT_EQ(Values<int32_t>(parts[1]), std::vector<int32_t>(5000, 2100)) << r;
  }
}

// Asynchronous collectives: each -start begins its exchange and the
// instance goes on computing until the -done. The same module with the
// synchronous forms gives the same bits, on the in-memory bus and on the
// message bus (the transport of MPI runs), also with a synchronous
// collective between a start and its done and over many loop trips.
constexpr char kAsyncRounds[] = R"(
HloModule rounds, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  st = (s32[], f32[30000], f32[64]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(40)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], f32[30000], f32[64]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[30000] get-tuple-element(st), index=1
  g = f32[64] get-tuple-element(st), index=2
  id = u32[] replica-id()
  fid = f32[] convert(id)
  fb = f32[30000] broadcast(fid), dimensions={}
  x = f32[30000] add(v, fb)
  ar = f32[30000] all-reduce-start(x), replica_groups={}, to_apply=add
  gs = f32[16] slice(g), slice={[0:16]}
  ag = (f32[16], f32[64]) all-gather-start(gs), dimensions={0}, replica_groups={}
  cp = (f32[64], f32[64], u32[], u32[]) collective-permute-start(g), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  y = f32[30000] sine(v)
  small = f32[64] all-reduce(g), replica_groups={}, to_apply=add
  y2 = f32[30000] multiply(y, y)
  y3 = f32[30000] exponential(y2)
  ard = f32[30000] all-reduce-done(ar)
  agd = f32[64] all-gather-done(ag)
  cpd = f32[64] collective-permute-done(cp)
  quarter = f32[] constant(0.25)
  qb = f32[30000] broadcast(quarter), dimensions={}
  scaled = f32[30000] multiply(ard, qb)
  v2 = f32[30000] add(scaled, y3)
  g1 = f32[64] add(agd, cpd)
  g2 = f32[64] add(g1, small)
  qg = f32[64] broadcast(quarter), dimensions={}
  g3 = f32[64] multiply(g2, qg)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[30000], f32[64]) tuple(j, v2, g3)
}
ENTRY e {
  z = s32[] constant(0)
  io = f32[30000] iota(), iota_dimension=0
  gi = f32[64] iota(), iota_dimension=0
  init = (s32[], f32[30000], f32[64]) tuple(z, io, gi)
  ROOT w = (s32[], f32[30000], f32[64]) while(init), condition=cond, body=body
})";

// kAsyncRounds with every asynchronous pair replaced by its synchronous form.
std::string SynchronousRounds() {
  std::string text(kAsyncRounds);
  auto replace = [&](std::string_view from, std::string_view to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  };
  replace("ar = f32[30000] all-reduce-start(x)", "ard = f32[30000] all-reduce(x)");
  replace("ag = (f32[16], f32[64]) all-gather-start(gs)", "agd = f32[64] all-gather(gs)");
  replace("cp = (f32[64], f32[64], u32[], u32[]) collective-permute-start(g)",
          "cpd = f32[64] collective-permute(g)");
  replace("  ard = f32[30000] all-reduce-done(ar)\n", "");
  replace("  agd = f32[64] all-gather-done(ag)\n", "");
  replace("  cpd = f32[64] collective-permute-done(cp)\n", "");
  return text;
}

TEST(ReplicasTest, AsyncCollectivesGiveTheSynchronousBitsOnBothBuses) {
  auto async = Build(kAsyncRounds);
  auto sync = Build(SynchronousRounds());
  ASSERT_NE(async, nullptr);
  ASSERT_NE(sync, nullptr);
  for (bool messages : {false, true}) {
    auto want = RunAll(*sync, {{}}, 10, 1, messages);
    auto got = RunAll(*async, {{}}, 10, 1, messages);
    ASSERT_EQ(want.size(), 4u);
    ASSERT_EQ(got.size(), 4u);
    for (int r = 0; r < 4; ++r) {
      ASSERT_TRUE(want[r].ok()) << want[r].status();
      ASSERT_TRUE(got[r].ok()) << got[r].status();
      EXPECT_TRUE(got[r]->BitwiseEqual(*want[r])) << "replica " << r << " messages " << messages;
      EXPECT_EQ(Values<int32_t>(got[r]->tuple_elements()[0]), std::vector<int32_t>{40});
    }
    // Every replica ends with the same all-reduced state.
    for (int r = 1; r < 4; ++r) {
      EXPECT_TRUE(got[r]->tuple_elements()[1].BitwiseEqual(got[0]->tuple_elements()[1])) << r;
    }
  }
}

TEST(ReplicasTest, AsyncCollectiveFailsAtItsStartsName) {
  // Replica 1 is late (a long loop) and the timeout short: the waiting
  // replica's -done reports the exchange its -start began, naming the start.
  auto exe = Build(LateModule(
      "  started = s32[] all-reduce-start(i), replica_groups={}, to_apply=add\n"
      "  ROOT r = s32[] all-reduce-done(started)"));
  ASSERT_NE(exe, nullptr);
  for (bool messages : {false, true}) {
    auto results = RunAll(*exe, {{}}, /*timeout=*/0.2, 1, messages);
    ASSERT_FALSE(results[0].ok());
    const std::string message(results[0].status().message());
    EXPECT_TRUE(absl::StrContains(message, "%started (all-reduce-start)")) << message;
    EXPECT_TRUE(absl::StrContains(message, "timed out")) << message;
    EXPECT_TRUE(absl::StrContains(message, "replica 1 did not arrive")) << message;
    EXPECT_FALSE(results[1].ok());
  }
}

TEST(ReplicasTest, RunFailingBetweenStartAndDoneEndsTheExchangeFirst) {
  // Every replica begins a large all-reduce and then fails (an infeed with
  // nothing queued) before its -done: the run still ends its exchange
  // (its peers read its buffers meanwhile) before it returns the error.
  auto exe = Build(R"(
HloModule fails, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[40000] iota(), iota_dimension=0
  s = f32[40000] all-reduce-start(x), replica_groups={}, to_apply=add
  tok = token[] after-all()
  in = (f32[], token[]) infeed(tok)
  v = f32[] get-tuple-element(in), index=0
  d = f32[40000] all-reduce-done(s)
  vb = f32[40000] broadcast(v), dimensions={}
  ROOT r = f32[40000] add(d, vb)
})");
  ASSERT_NE(exe, nullptr);
  for (bool messages : {false, true}) {
    auto results = RunAll(*exe, {{}}, 10, 1, messages);
    ASSERT_EQ(results.size(), 4u);
    for (int r = 0; r < 4; ++r) {
      ASSERT_FALSE(results[r].ok()) << r;
      const std::string message(results[r].status().message());
      EXPECT_TRUE(absl::StrContains(message, "infeed")) << message;
    }
  }
}

TEST(ReplicasTest, StartWhoseDoneIsInAnotherComputationRunsItsExchangeWhole) {
  // The start's value is carried around the loop to a done after it: the
  // exchange runs whole at each start (three all-reduces of the state).
  auto exe = Build(R"(
HloModule pipelined, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  st = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[4] get-tuple-element(st), index=1
  s = f32[4] all-reduce-start(v), replica_groups={}, to_apply=add
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(j, s)
}
ENTRY e {
  z = s32[] constant(0)
  v = f32[4] iota(), iota_dimension=0
  init = (s32[], f32[4]) tuple(z, v)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  g = f32[4] get-tuple-element(w), index=1
  ROOT d = f32[4] all-reduce-done(g)
})");
  ASSERT_NE(exe, nullptr);
  for (bool messages : {false, true}) {
    auto results = RunAll(*exe, {{}}, 10, 1, messages);
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(results[r].ok()) << results[r].status();
      EXPECT_EQ(Values<float>(*results[r]), (std::vector<float>{0, 8, 16, 24})) << r;
    }
  }
}

TEST(ReplicasTest, CollectiveWithoutBusNeedsReplicas) {
  auto exe = Build(kAllReduceF32);
  ASSERT_NE(exe, nullptr);
  Literal x = Array<float>(ElementType::kF32, {5000}, std::vector<float>(5000, 1.0f));
  auto result = exe->Execute({&x});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StrContains(result.status().message(), "collective bus"));
}

// The in-place collective-permute: replica r sends row r of its input to
// replica r+1, which writes it at row (r+1) of its output; replica 0
// receives nothing and keeps its output.
constexpr char kInPlacePermute[] = R"(
HloModule cp, replica_count=3
ENTRY e {
  rid = u32[] replica-id()
  id = s32[] convert(rid)
  f = f32[] convert(id)
  x = f32[3,2] broadcast(f), dimensions={}
  y = f32[3,2] constant({{-1,-1},{-1,-1},{-1,-1}})
  zero = s32[] constant(0)
  in = (s32[], s32[]) tuple(id, zero)
  one = s32[] constant(1)
  to = s32[] add(id, one)
  out = (s32[], s32[]) tuple(to, zero)
  ROOT r = f32[3,2] collective-permute(x, y, in, out), source_target_pairs={{0,1},{1,2}}, slice_sizes={{1,2}}
})";

TEST(ReplicasTest, InPlacePermuteWritesSlicesAtEachReceiversOffsets) {
  auto exe = Build(kInPlacePermute);
  ASSERT_NE(exe, nullptr);
  auto results = RunAll(*exe, {{}});
  ASSERT_EQ(results.size(), 3u);
  for (auto& r : results) ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*results[0]), std::vector<float>(6, -1.0f));
  // Replica 1 receives replica 0's row 0 at row 2 (1 + 1).
  EXPECT_EQ(Values<float>(*results[1]), (std::vector<float>{-1, -1, -1, -1, 0, 0}));
  // Replica 2 receives replica 1's row 1 at row 3, clamped to row 2.
  EXPECT_EQ(Values<float>(*results[2]), (std::vector<float>{-1, -1, -1, -1, 1, 1}));
}

TEST(ReplicasTest, InPlacePermuteWithSlicesTooLargeIsRefused) {
  std::string text = kInPlacePermute;
  text.replace(text.find("slice_sizes={{1,2}}"), 19, "slice_sizes={{4,2}}");
  auto exe = Executable::FromText(text);
  ASSERT_FALSE(exe.ok());
  EXPECT_TRUE(absl::StrContains(exe.status().message(), "slice sizes {4,2} do not fit"))
      << exe.status();
}

// A pair or group naming an instance that does not exist is refused at
// compile time, in the right number.
TEST(ReplicasTest, IdsBeyondTheInstancesAreRefusedInTheRightNumber) {
  CompileOptions options;
  options.verify = false;  // the lowering's own check
  for (const auto& [count, words] :
       std::vector<std::pair<int, std::string>>{{1, "there is only 1 replica"},
                                                {2, "there are only 2 replicas"}}) {
    const std::string text = absl::StrCat(
        "HloModule cp, replica_count=", count,
        "\nENTRY e {\n  x = f32[2] parameter(0)\n"
        "  ROOT r = f32[2] collective-permute(x), source_target_pairs={{0,2}}\n}\n");
    auto exe = Executable::FromText(text, options);
    ASSERT_FALSE(exe.ok()) << count;
    EXPECT_TRUE(absl::StrContains(exe.status().message(), absl::StrCat("{0,2} but ", words)))
        << exe.status();
    const std::string groups = absl::StrCat(
        "HloModule ag, replica_count=", count,
        "\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
        "ENTRY e {\n  x = f32[2] parameter(0)\n"
        "  ROOT r = f32[2] all-reduce(x), replica_groups={{0,2}}, to_apply=add\n}\n");
    exe = Executable::FromText(groups, options);
    ASSERT_FALSE(exe.ok()) << count;
    EXPECT_TRUE(absl::StrContains(exe.status().message(), absl::StrCat("id 2 but ", words)))
        << exe.status();
  }
}

constexpr char kSendRecv[] = R"(
HloModule sr, replica_count=3
ENTRY e {
  id = u32[] replica-id()
  x = u32[3] broadcast(id), dimensions={}
  t = token[] after-all()
  r = (u32[3], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,0}}"}
  s = (u32[3], u32[], token[]) send(x, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,0}}"}
  rd = (u32[3], token[]) recv-done(r), channel_id=1
  sd = token[] send-done(s), channel_id=1
  ROOT v = u32[3] get-tuple-element(rd), index=0
})";

TEST(ReplicasTest, SendRecvRing) {
  auto exe = Build(kSendRecv);
  ASSERT_NE(exe, nullptr);
  auto results = RunAll(*exe, {{}});
  for (uint32_t r = 0; r < 3; ++r) {
    ASSERT_TRUE(results[r].ok()) << results[r].status();
    const uint32_t from = (r + 2) % 3;
    EXPECT_EQ(Values<uint32_t>(*results[r]), (std::vector<uint32_t>{from, from, from})) << r;
  }
}

TEST(ReplicasTest, RecvFromAFinishedPeerFailsAtOnce) {
  // Replica 1 receives from replica 0, which never sends.
  auto exe = Build(R"(
HloModule r, replica_count=2
ENTRY e {
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=3, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  rd = (f32[2], token[]) recv-done(r), channel_id=3
  ROOT v = f32[2] get-tuple-element(rd), index=0
})");
  ASSERT_NE(exe, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto results = RunAll(*exe, {{}}, /*timeout=*/30);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  ASSERT_FALSE(results[1].ok());
  EXPECT_TRUE(absl::StrContains(results[1].status().message(), "replica 0 has already finished"))
      << results[1].status();
}

TEST(ReplicasTest, InfeedAndOutfeed) {
  auto exe = Build(R"(
HloModule feed, replica_count=2
ENTRY e {
  t = token[] after-all()
  in = (s32[2], token[]) infeed(t)
  v = s32[2] get-tuple-element(in), index=0
  id = u32[] replica-id()
  c = s32[] convert(id)
  b = s32[2] broadcast(c), dimensions={}
  s = s32[2] add(v, b)
  o = token[] outfeed(s, t), outfeed_shape=s32[2]{0}
  ROOT r = s32[2] multiply(s, s)
})");
  ASSERT_NE(exe, nullptr);
  Literal fed = Array<int32_t>(ElementType::kS32, {2}, std::vector<int32_t>{3, 4});
  ReplicatedOptions options;
  options.infeed = {&fed};
  std::vector<std::vector<Literal>> outfeed;
  options.outfeed = &outfeed;
  auto results = ExecuteReplicated(*exe, {std::vector<const Literal*>{}}, options);
  ASSERT_EQ(outfeed.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(results[r].ok()) << results[r].status();
    ASSERT_EQ(outfeed[r].size(), 1u);
    EXPECT_EQ(Values<int32_t>(outfeed[r][0]), (std::vector<int32_t>{3 + r, 4 + r}));
    EXPECT_EQ(Values<int32_t>(*results[r]), (std::vector<int32_t>{(3 + r) * (3 + r), (4 + r) * (4 + r)}));
  }
  // An empty queue is an error naming the instruction.
  auto empty = ExecuteReplicated(*exe, {std::vector<const Literal*>{}}, {});
  // (The other instance may be cancelled first.)
  ASSERT_FALSE(empty[0].ok());
  ASSERT_FALSE(empty[1].ok());
  EXPECT_TRUE(absl::StrContains(empty[0].status().message(), "infeed queue is empty") ||
              absl::StrContains(empty[1].status().message(), "infeed queue is empty"));
}

TEST(ReplicasTest, RaggedAllToAll) {
  auto exe = Build(R"(
HloModule ragged, replica_count=2
ENTRY e {
  in = s32[4] parameter(0)
  io = s32[2] parameter(1)
  ss = s32[2] parameter(2)
  oo = s32[2] parameter(3)
  rs = s32[2] parameter(4)
  out = s32[4] constant({-1, -1, -1, -1})
  ROOT r = s32[4] ragged-all-to-all(in, out, io, ss, oo, rs), replica_groups={{0,1}}
})");
  ASSERT_NE(exe, nullptr);
  auto v = [](std::vector<int32_t> x) {
    return Array<int32_t>(ElementType::kS32, {static_cast<int64_t>(x.size())}, x);
  };
  // Replica 0 sends row 0 to itself (at 0) and rows 1..3 to replica 1 (at
  // 0); replica 1 sends rows 0..1 to replica 0 (at 1) and row 2 to itself (at 3).
  std::vector<Literal> a, b;
  for (auto x : {std::vector<int32_t>{0, 1, 2, 3}, {0, 1}, {1, 3}, {0, 0}, {1, 3}}) a.push_back(v(x));
  for (auto x : {std::vector<int32_t>{10, 11, 12, 13}, {0, 2}, {2, 1}, {1, 3}, {3, 1}}) {
    b.push_back(v(x));
  }
  std::vector<const Literal*> pa, pb;
  for (auto& l : a) pa.push_back(&l);
  for (auto& l : b) pb.push_back(&l);
  auto results = RunAll(*exe, {pa, pb});
  ASSERT_TRUE(results[0].ok()) << results[0].status();
  ASSERT_TRUE(results[1].ok()) << results[1].status();
  EXPECT_EQ(Values<int32_t>(*results[0]), (std::vector<int32_t>{0, 10, 11, -1}));
  EXPECT_EQ(Values<int32_t>(*results[1]), (std::vector<int32_t>{1, 2, 3, 12}));
}

}  // namespace
}  // namespace hlovm
