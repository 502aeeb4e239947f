#include "conformance/runner.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

namespace fs = std::filesystem;

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("runner_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "fam_a");
    fs::create_directories(dir_ / "fam_b");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a case file whose body is a shell script: the tests run cases
  // with /bin/sh instead of hlovm, to exercise process handling alone.
  std::string Write(const std::string& rel, const std::string& family, const std::string& body,
                    const std::string& note = "") {
    const fs::path path = dir_ / rel;
    std::ofstream out(path);
    out << "// family: " << family << "\n";
    if (!note.empty()) out << "// note: " << note << "\n";
    out << body << "\n";
    return path.string();
  }

  static std::string PrintResult(const std::string& outcome, const std::string& message = "") {
    return "printf 'hlovm-case-result\\noutcome\\t" + outcome + "\\nmessage\\t" + message +
           "\\nseconds\\t0\\nend\\n'";
  }

  RunnerOptions ShellOptions() {
    RunnerOptions options;
    options.child_command = {"/bin/sh"};
    options.timeout_seconds = 20;
    return options;
  }

  fs::path dir_;
};

TEST_F(RunnerTest, DiscoversCasesWithTheirHeaders) {
  Write("fam_a/one.hlo", "add", "HloModule one");
  Write("fam_b/two.hlo", "sort", "HloModule two", "upstream marks this test RUN-DISABLED(inaccurate)");
  Write("fam_b/three.hlo", "sort", "HloModule three", "fragile: f32 sum order");
  std::ofstream(dir_ / "fam_b" / "ignored.txt") << "not a case";
  auto cases = DiscoverCases({dir_.string()});
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_EQ(cases->size(), 3u);
  EXPECT_EQ((*cases)[0].name, "fam_a/one");
  EXPECT_EQ((*cases)[0].family, "add");
  EXPECT_FALSE((*cases)[0].set_apart);
  EXPECT_EQ((*cases)[1].name, "fam_b/three");
  EXPECT_TRUE((*cases)[1].set_apart);
  EXPECT_EQ((*cases)[2].name, "fam_b/two");
  EXPECT_TRUE((*cases)[2].set_apart);
  EXPECT_NE((*cases)[2].note.find("RUN-DISABLED"), std::string::npos);

  auto single = DiscoverCases({(dir_ / "fam_a" / "one.hlo").string()});
  ASSERT_TRUE(single.ok());
  ASSERT_EQ(single->size(), 1u);
  EXPECT_EQ((*single)[0].name, "one");
  EXPECT_FALSE(DiscoverCases({(dir_ / "missing").string()}).ok());
}

TEST_F(RunnerTest, HeaderStopsAtTheFirstNonCommentLine) {
  CaseInfo info;
  ParseCaseHeader("// source: x.mlir\n\nHloModule m\n// family: late\n", &info);
  EXPECT_EQ(info.family, "unknown");
}

TEST_F(RunnerTest, ResultProtocolRoundTrips) {
  CaseResult result;
  result.info.name = "n";
  result.outcome = CaseOutcome::kFailed;
  result.message = "line one\nline\ttwo \\ three";
  result.seconds = 1.5;
  CheckFailure failure;
  failure.check = "check.4";
  failure.kind = "check.expect_close";
  failure.index = {2, 0};
  failure.actual = "1.5";
  failure.expected = "nan";
  failure.ulp_difference = 7;
  failure.allowed = "max_ulp_difference=3";
  failure.mismatch_count = 2;
  failure.element_count = 6;
  result.check = failure;
  result.root = "f32[2] {1, 2}";
  auto parsed = ParseCaseResult("noise before\n" + SerializeCaseResult(result), result.info);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->outcome, CaseOutcome::kFailed);
  EXPECT_EQ(parsed->message, result.message);
  ASSERT_TRUE(parsed->check.has_value());
  EXPECT_EQ(parsed->check->index, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(parsed->check->expected, "nan");
  EXPECT_EQ(parsed->check->ulp_difference, 7);
  EXPECT_EQ(parsed->root, result.root);
  EXPECT_FALSE(parsed->compare_mismatch);
  EXPECT_FALSE(ParseCaseResult("hlovm-case-result\noutcome\tpassed\n", result.info).ok());

  result.compare_mismatch = true;
  parsed = ParseCaseResult(SerializeCaseResult(result), result.info);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->compare_mismatch);
}

// A threshold admits failed checks, never a result that changes with the
// thread count or the pass pipeline.
TEST_F(RunnerTest, CompareMismatchFailsTheRunWhateverTheThreshold) {
  std::vector<CaseResult> results(4);
  for (CaseResult& r : results) r.outcome = CaseOutcome::kPassed;
  results[0].outcome = CaseOutcome::kFailed;  // a failed check
  EXPECT_FALSE(RunSucceeded(results, -1));
  EXPECT_TRUE(RunSucceeded(results, 0.75));
  EXPECT_FALSE(RunSucceeded(results, 0.8));
  EXPECT_EQ(CompareMismatches(results), 0);

  results[1].outcome = CaseOutcome::kFailed;
  results[1].compare_mismatch = true;
  EXPECT_EQ(CompareMismatches(results), 1);
  EXPECT_FALSE(RunSucceeded(results, 0.5));
  EXPECT_FALSE(RunSucceeded(results, 0));
  EXPECT_FALSE(RunSucceeded(results, -1));

  // Set apart, it counts as little as its failed checks would.
  results[1].info.set_apart = true;
  EXPECT_EQ(CompareMismatches(results), 0);
  EXPECT_TRUE(RunSucceeded(results, 0.5));
}

TEST_F(RunnerTest, CrashesHangsAndGarbageAreErrored) {
  std::vector<CaseInfo> cases;
  for (auto [name, body] : std::vector<std::pair<std::string, std::string>>{
           {"fam_a/pass.hlo", PrintResult("passed")},
           {"fam_a/fail.hlo", PrintResult("failed", "check.expect_eq check.3 failed")},
           {"fam_a/segv.hlo", "kill -SEGV $$"},
           {"fam_a/hang.hlo", "sleep 30"},
           {"fam_a/garbage.hlo", "echo hello; exit 3"},
           {"fam_a/skip.hlo", PrintResult("skipped", "Unimplemented: fft")},
       }) {
    Write(name, "fam", body);
  }
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  RunnerOptions options = ShellOptions();
  options.timeout_seconds = 1;
  options.jobs = 3;
  int callbacks = 0;
  options.on_result = [&](const CaseResult&, int done, int total) {
    ++callbacks;
    EXPECT_LE(done, total);
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<CaseResult> results = RunCases(*found, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 15);
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(callbacks, 6);
  // Sorted by name: fail, garbage, hang, pass, segv, skip.
  EXPECT_EQ(results[0].outcome, CaseOutcome::kFailed);
  EXPECT_EQ(results[0].message, "check.expect_eq check.3 failed");
  EXPECT_EQ(results[1].outcome, CaseOutcome::kErrored);
  EXPECT_NE(results[1].message.find("code 3"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[2].outcome, CaseOutcome::kErrored);
  EXPECT_NE(results[2].message.find("timed out"), std::string::npos) << results[2].message;
  EXPECT_EQ(results[3].outcome, CaseOutcome::kPassed);
  EXPECT_EQ(results[4].outcome, CaseOutcome::kErrored);
  EXPECT_NE(results[4].message.find("SIGSEGV"), std::string::npos) << results[4].message;
  EXPECT_EQ(results[5].outcome, CaseOutcome::kSkipped);
  EXPECT_FALSE(AllPassed(results));
  EXPECT_NEAR(PassRate(results), 1.0 / 6, 1e-9);

  const std::string table = SummaryTable(results);
  EXPECT_NE(table.find("fam"), std::string::npos);
  EXPECT_NE(table.find("passed 1 of 6"), std::string::npos) << table;
  const std::string junit = JunitXml(results);
  EXPECT_NE(junit.find("tests=\"6\" failures=\"1\" errors=\"3\" skipped=\"1\""), std::string::npos)
      << junit;
  const std::string json = ResultsJson(results);
  EXPECT_NE(json.find("\"outcome\": \"errored\""), std::string::npos);
}

TEST_F(RunnerTest, MemoryLimitStopsAGreedyCase) {
  // The shell builds a 300 MB string; the 64 MB address-space limit stops it.
  Write("fam_a/greedy.hlo", "fam",
        "x=$(head -c 300000000 /dev/zero | tr '\\0' a); " + PrintResult("passed"));
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  RunnerOptions options = ShellOptions();
  options.memory_limit_mb = 64;
  std::vector<CaseResult> results = RunCases(*found, options);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].outcome, CaseOutcome::kPassed) << results[0].message;
}

TEST_F(RunnerTest, FailFastStopsAfterTheFirstFailure) {
  Write("fam_a/a.hlo", "fam", PrintResult("failed", "bad"));
  Write("fam_a/b.hlo", "fam", PrintResult("passed"));
  Write("fam_a/c.hlo", "fam", PrintResult("passed"));
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  RunnerOptions options = ShellOptions();
  options.fail_fast = true;
  std::vector<CaseResult> results = RunCases(*found, options);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, CaseOutcome::kFailed);
}

TEST_F(RunnerTest, SetApartFailuresDoNotCount) {
  Write("fam_a/a.hlo", "fam", PrintResult("failed", "bad"), "fragile: order of sums");
  Write("fam_a/b.hlo", "fam", PrintResult("passed"));
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  std::vector<CaseResult> results = RunCases(*found, ShellOptions());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(AllPassed(results));
  EXPECT_NE(SummaryTable(results).find("set apart"), std::string::npos);
  EXPECT_NE(JunitXml(results).find("<skipped"), std::string::npos);
}

// The child's report of a compare mismatch reaches the parent, and fails
// the run however low the threshold.
TEST_F(RunnerTest, CompareMismatchCrossesTheProtocol) {
  Write("fam_a/a.hlo", "fam",
        "printf 'hlovm-case-result\\noutcome\\tfailed\\nmessage\\tROOT differs\\n"
        "compare_mismatch\\t1\\nend\\n'");
  Write("fam_a/b.hlo", "fam", PrintResult("passed"));
  Write("fam_a/c.hlo", "fam", PrintResult("passed"));
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  std::vector<CaseResult> results = RunCases(*found, ShellOptions());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].compare_mismatch);
  EXPECT_FALSE(results[1].compare_mismatch);
  EXPECT_EQ(CompareMismatches(results), 1);
  EXPECT_FALSE(RunSucceeded(results, 0.5));
}

TEST_F(RunnerTest, JobsRunInParallel) {
  Write("fam_a/a.hlo", "fam", "sleep 1; " + PrintResult("passed"));
  Write("fam_a/b.hlo", "fam", "sleep 1; " + PrintResult("passed"));
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  RunnerOptions options = ShellOptions();
  options.jobs = 2;
  const auto start = std::chrono::steady_clock::now();
  std::vector<CaseResult> results = RunCases(*found, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, CaseOutcome::kPassed);
  EXPECT_EQ(results[1].outcome, CaseOutcome::kPassed);
  EXPECT_LT(seconds, 1.9);
}

TEST_F(RunnerTest, ForkedCasesAreIsolatedToo) {
  Write("fam_a/crash.hlo", "fam", "");
  Write("fam_a/hang.hlo", "fam", "");
  Write("fam_a/pass.hlo", "fam", "");
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  RunnerOptions options;
  options.timeout_seconds = 1;
  options.jobs = 2;
  options.fork_function = [](const CaseInfo& info) {
    if (info.name == "fam_a/crash") raise(SIGSEGV);
    if (info.name == "fam_a/hang") sleep(30);
    CaseResult result;
    result.info = info;
    result.outcome = CaseOutcome::kPassed;
    return result;
  };
  std::vector<CaseResult> results = RunCases(*found, options);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].outcome, CaseOutcome::kErrored);
  EXPECT_NE(results[0].message.find("SIGSEGV"), std::string::npos) << results[0].message;
  EXPECT_EQ(results[1].outcome, CaseOutcome::kErrored);
  EXPECT_NE(results[1].message.find("timed out"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[2].outcome, CaseOutcome::kPassed) << results[2].message;
}

}  // namespace
}  // namespace hlovm
