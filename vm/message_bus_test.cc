// The message bus (the transport of MPI runs, here with every instance in
// this process) gives the in-memory bus's results bit for bit on every
// multi-instance conformance case, and fails a skipped collective, a shape
// mismatch and a late peer as the in-memory bus does.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::RunAll;

TEST(MessageBusTest, EveryMultiInstanceCaseGivesTheInMemoryBusBits) {
  int compared = 0;
  for (const char* dir : {"conformance/cases/collectives", "../shared/conformance/stablehlo"}) {
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".hlo") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      if (!absl::StrContains(text.str(), "replica_count=") &&
          !absl::StrContains(text.str(), "num_partitions=")) {
        continue;
      }
      auto exe = Executable::FromText(text.str());
      if (!exe.ok()) continue;
      const HloModule& m = (*exe)->module();
      if (std::max<int64_t>(1, m.replica_count) * std::max<int64_t>(1, m.num_partitions) == 1) {
        continue;
      }
      auto memory = RunAll(**exe);
      auto messages = RunAll(**exe, {{}}, 10, 1, /*message_bus=*/true);
      ASSERT_EQ(memory.size(), messages.size()) << entry.path();
      for (size_t i = 0; i < memory.size(); ++i) {
        ASSERT_EQ(memory[i].ok(), messages[i].ok())
            << entry.path() << " instance " << i << ": " << memory[i].status() << " / "
            << messages[i].status();
        if (memory[i].ok()) {
          EXPECT_TRUE(memory[i]->BitwiseEqual(*messages[i])) << entry.path() << " instance " << i;
        }
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 40);
}

constexpr char kLargeAllReduce[] = R"(
HloModule ar, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[10000] parameter(0)
  ROOT r = f32[10000] all-reduce(p), replica_groups={}, to_apply=add
})";

// Runs `exe` on both buses with `args`: every instance succeeds with the
// same bits.
void ExpectTheInMemoryBits(const Executable& exe,
                           const std::vector<std::vector<const Literal*>>& args) {
  auto memory = RunAll(exe, args);
  auto messages = RunAll(exe, args, 10, 1, /*message_bus=*/true);
  ASSERT_EQ(memory.size(), messages.size());
  for (size_t r = 0; r < memory.size(); ++r) {
    ASSERT_TRUE(memory[r].ok() && messages[r].ok()) << memory[r].status() << messages[r].status();
    EXPECT_TRUE(memory[r]->BitwiseEqual(*messages[r])) << r;
  }
}

class LargeAllReduce : public testing::TestWithParam<int> {};

// 10000 floats: every member gets every input; 40000: a reduce-scatter and
// an all-gather of messages. Either way the in-memory bus's bits.
TEST_P(LargeAllReduce, HasTheInMemoryBits) {
  const int n = GetParam();
  std::string text = kLargeAllReduce;
  for (size_t at = 0; (at = text.find("10000", at)) != std::string::npos;) {
    text.replace(at, 5, std::to_string(n));
    at += std::to_string(n).size();
  }
  // Values whose sum depends on the order of the additions.
  auto exe = Build(text);
  std::vector<Literal> inputs;
  for (int r = 0; r < 4; ++r) {
    std::vector<float> v(n);
    for (int i = 0; i < n; ++i) v[i] = (r % 2 ? 1e8f : 1.0f) * (1 + (i * 7 + r * 13) % 17) / 3;
    inputs.push_back(Array<float>(ElementType::kF32, {n}, v));
  }
  std::vector<std::vector<const Literal*>> args;
  for (const Literal& l : inputs) args.push_back({&l});
  ExpectTheInMemoryBits(*exe, args);
}
// 1100000: slices of more than one chunk (AllReduceByMessages).
INSTANTIATE_TEST_SUITE_P(Sizes, LargeAllReduce, testing::Values(10000, 40000, 1100000));

// Three arrays over three members: each slice (of 700001, 5 and 300000
// floats, not divisible by 3) travels in chunks that end inside one array
// and go on in the next; the in-memory bus's bits all the same.
TEST(MessageBusTest, ChunksAcrossTupleArraysHaveTheInMemoryBits) {
  auto exe = Build(R"(
HloModule ar, replica_count=3
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[700001] parameter(0)
  q = f32[5] parameter(1)
  s = f32[300000] parameter(2)
  ROOT r = (f32[700001], f32[5], f32[300000]) all-reduce(p, q, s), replica_groups={}, to_apply=add
})");
  const int sizes[] = {700001, 5, 300000};
  std::vector<Literal> inputs;
  for (int r = 0; r < 3; ++r) {
    for (int a = 0; a < 3; ++a) {
      std::vector<float> v(sizes[a]);
      for (int i = 0; i < sizes[a]; ++i) {
        v[i] = (r % 2 ? 1e8f : 1.0f) * (1 + (i * 7 + r * 13 + a) % 17) / 3;
      }
      inputs.push_back(Array<float>(ElementType::kF32, {sizes[a]}, v));
    }
  }
  std::vector<std::vector<const Literal*>> args(3);
  for (int r = 0; r < 3; ++r) {
    for (int a = 0; a < 3; ++a) args[r].push_back(&inputs[3 * r + a]);
  }
  ExpectTheInMemoryBits(*exe, args);
}

TEST(MessageBusTest, SkippedCollectiveFailsAtOnce) {
  auto exe = Build(vm_test::kSkippedAllReduce);
  ASSERT_NE(exe, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto results = RunAll(*exe, {{}}, 30, 1, /*message_bus=*/true);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  ASSERT_FALSE(results[0].ok());
  const std::string message(results[0].status().message());
  EXPECT_TRUE(absl::StrContains(message, "%r")) << message;
  EXPECT_TRUE(absl::StrContains(message, "group {0,1}")) << message;
  EXPECT_TRUE(absl::StrContains(message, "replica 1 has already finished")) << message;
  EXPECT_EQ(ExitCodeForStatus(results[0].status()), 1);
}

TEST(MessageBusTest, ShapeMismatchFailsEveryInstanceAtOnce) {
  auto exe = Build(vm_test::kMismatchedAllReduce);
  ASSERT_NE(exe, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto results = RunAll(*exe, {{}}, 30, 1, /*message_bus=*/true);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  for (int r = 0; r < 2; ++r) {
    ASSERT_FALSE(results[r].ok()) << r;
    const std::string message(results[r].status().message());
    EXPECT_TRUE(absl::StrContains(message, "does not match")) << message;
    EXPECT_TRUE(absl::StrContains(message, "group {0,1}")) << message;
    EXPECT_TRUE(absl::StrContains(message, "f32[2]")) << message;
  }
}

}  // namespace
}  // namespace hlovm
