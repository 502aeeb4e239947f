#include "conformance/runner.h"

#include <signal.h>
#include <sys/stat.h>
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
  EXPECT_EQ(results[0].outcome, CaseOutcome::kErrored) << results[0].message;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Built with a sanitizer the runner cannot limit the address space (the
  // sanitizer's shadow needs terabytes of it); it kills the child when its
  // resident memory passes the limit.
  EXPECT_NE(results[0].message.find("MiB resident, over the limit of 64 MiB"), std::string::npos)
      << results[0].message;
#endif
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
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizer symbolizes the crash's stack, which takes over a second
  // on a loaded machine.
  options.timeout_seconds = 4;
#else
  options.timeout_seconds = 1;
#endif
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
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The fork is this test built with a sanitizer, whose handler catches the
  // SIGSEGV, reports it and exits: the runner gives the report's summary, or
  // its first line where the timeout cut the report short.
  EXPECT_TRUE(results[0].message.find("after a sanitizer report: SUMMARY: ") != std::string::npos ||
              results[0].message.find("while writing a sanitizer report: ERROR: ") !=
                  std::string::npos)
      << results[0].message;
  EXPECT_NE(results[0].message.find("Sanitizer: SEGV"), std::string::npos) << results[0].message;
#else
  EXPECT_NE(results[0].message.find("crashed (SIGSEGV)"), std::string::npos) << results[0].message;
#endif
  EXPECT_EQ(results[1].outcome, CaseOutcome::kErrored);
  EXPECT_NE(results[1].message.find("timed out"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[2].outcome, CaseOutcome::kPassed) << results[2].message;
}

//===--- Odd inputs: links, FIFOs, duplicates, empty selections, binary files ---===//

// Case names of a discovery.
std::vector<std::string> Names(const std::vector<CaseInfo>& cases) {
  std::vector<std::string> names;
  for (const CaseInfo& c : cases) names.push_back(c.name);
  return names;
}

// A child killed at the timeout while a sanitizer wrote its report: the
// message gives what the sanitizer found, not just the time.
TEST_F(RunnerTest, ATimeoutKeepsASanitizerReportsFirstLine) {
  Write("fam_a/slow_report.hlo", "fam",
        "echo '==42==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000' >&2; "
        "echo '==42==Hint: address points to the zero page.' >&2; sleep 30");
  Write("fam_a/plain_hang.hlo", "fam", "echo 'ERROR: not a sanitizer' >&2; sleep 30");
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  RunnerOptions options = ShellOptions();
  options.timeout_seconds = 1;
  options.jobs = 2;
  std::vector<CaseResult> results = RunCases(*found, options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].info.name, "fam_a/plain_hang");
  EXPECT_EQ(results[0].outcome, CaseOutcome::kErrored);
  EXPECT_EQ(results[0].message, "timed out after 1s (killed)");
  EXPECT_EQ(results[1].outcome, CaseOutcome::kErrored);
  EXPECT_EQ(results[1].message,
            "timed out after 1s (killed) while writing a sanitizer report: ERROR: "
            "AddressSanitizer: SEGV on unknown address 0x000000000000");
}

// A case that exits after a sanitizer's report: the message gives the
// report's last SUMMARY line that names a sanitizer, else the line of its
// first "runtime error:".
TEST_F(RunnerTest, ASanitizerReportGivesItsSummary) {
  Write(
      "fam_a/asan.hlo", "fam",
      "printf 'SUMMARY: not a report\\n==7==ERROR: AddressSanitizer: heap-use-after-free\\n"
      "SUMMARY: AddressSanitizer: heap-use-after-free a.cc:3 in f\\nSUMMARY: of something else\\n' "
      ">&2; exit 1");
  Write("fam_a/ubsan.hlo", "fam",
        "printf 'b.cc:5:3: runtime error: signed integer overflow\\nmore\\n' >&2; exit 1");
  auto found = DiscoverCases({dir_.string()});
  ASSERT_TRUE(found.ok());
  std::vector<CaseResult> results = RunCases(*found, ShellOptions());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].message,
            "exited with code 1 after a sanitizer report: SUMMARY: AddressSanitizer: "
            "heap-use-after-free a.cc:3 in f");
  EXPECT_EQ(results[1].message,
            "exited with code 1 after a sanitizer report: b.cc:5:3: runtime error: signed integer "
            "overflow");
}

TEST_F(RunnerTest, LinkLoopsAreWalkedOnce) {
  Write("fam_a/one.hlo", "add", "HloModule one");
  Write("fam_b/two.hlo", "add", "HloModule two");
  fs::create_directory_symlink(".", dir_ / "loop");                  // back to the root
  fs::create_directory_symlink("..", dir_ / "fam_a" / "up");         // back up from below
  fs::create_directory_symlink("../fam_b", dir_ / "fam_a" / "alias");  // a folder walked anyway
  fs::create_directory(dir_ / "more");
  Write("more/three.hlo", "add", "HloModule three");
  fs::create_directory_symlink(dir_ / "more", dir_ / "fam_a" / "linked");  // a real folder too
  auto cases = DiscoverCases({dir_.string()});
  ASSERT_TRUE(cases.ok()) << cases.status();
  // Each file once, by its real path.
  EXPECT_EQ(Names(*cases), (std::vector<std::string>{"fam_a/one", "fam_b/two", "more/three"}));

  // A folder reached only through links is walked once, under the first
  // link's name.
  const fs::path outside = dir_.string() + "_outside";
  fs::remove_all(outside);
  fs::create_directories(outside);
  std::ofstream(outside / "four.hlo") << "// family: add\nHloModule four\n";
  fs::create_directory_symlink(outside, dir_ / "fam_b" / "out");
  fs::create_directory_symlink(outside, dir_ / "fam_b" / "out_again");
  fs::create_directory_symlink(dir_, outside / "back");  // from there back into the tree
  cases = DiscoverCases({dir_.string()});
  fs::remove_all(outside);
  ASSERT_TRUE(cases.ok()) << cases.status();
  EXPECT_EQ(Names(*cases),
            (std::vector<std::string>{"fam_a/one", "fam_b/out/four", "fam_b/two", "more/three"}));
}

TEST_F(RunnerTest, AFifoIsAnErrorNamingIt) {
  Write("fam_a/one.hlo", "add", "HloModule one");
  const fs::path fifo = dir_ / "fam_a" / "pipe.hlo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto cases = DiscoverCases({dir_.string()});  // must not block opening it
  ASSERT_FALSE(cases.ok());
  EXPECT_EQ(cases.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(cases.status().message().find(fifo.string() + ": a FIFO"), std::string::npos)
      << cases.status();
  // Named on the command line too.
  cases = DiscoverCases({fifo.string()});
  ASSERT_FALSE(cases.ok());
  EXPECT_NE(cases.status().message().find(fifo.string() + ": a FIFO"), std::string::npos)
      << cases.status();
  // A FIFO that is not named like a case is ignored, as other files are.
  fs::remove(fifo);
  ASSERT_EQ(mkfifo((dir_ / "fam_a" / "pipe").c_str(), 0600), 0);
  cases = DiscoverCases({dir_.string()});
  ASSERT_TRUE(cases.ok()) << cases.status();
  EXPECT_EQ(cases->size(), 1u);
}

TEST_F(RunnerTest, ADanglingLinkIsAnErrorNamingIt) {
  Write("fam_a/one.hlo", "add", "HloModule one");
  for (const std::string name : {"gone.hlo", "gone_folder"}) {
    const fs::path link = dir_ / "fam_a" / name;
    fs::create_symlink(dir_ / "nowhere", link);
    auto cases = DiscoverCases({dir_.string()});
    ASSERT_FALSE(cases.ok()) << name;
    EXPECT_NE(cases.status().message().find(link.string() + ": a dangling symbolic link"),
              std::string::npos)
        << cases.status();
    cases = DiscoverCases({link.string()});
    ASSERT_FALSE(cases.ok()) << name;
    EXPECT_NE(cases.status().message().find("a dangling symbolic link"), std::string::npos)
        << cases.status();
    fs::remove(link);
  }
  // A link that points at itself.
  fs::create_symlink("self.hlo", dir_ / "fam_a" / "self.hlo");
  auto cases = DiscoverCases({dir_.string()});
  ASSERT_FALSE(cases.ok());
  EXPECT_NE(cases.status().message().find("self.hlo: a loop of symbolic links"), std::string::npos)
      << cases.status();
}

TEST_F(RunnerTest, AFileReachedTwiceIsOneCase) {
  const std::string one = Write("fam_a/one.hlo", "add", "HloModule one");
  Write("fam_b/two.hlo", "add", "HloModule two");
  fs::create_symlink("../fam_a/one.hlo", dir_ / "fam_b" / "link_to_one.hlo");
  fs::create_hard_link(one, dir_ / "fam_b" / "hard_link_to_one.hlo");
  auto cases = DiscoverCases({dir_.string()});
  ASSERT_TRUE(cases.ok()) << cases.status();
  // The hard link is as real as the file: the first name keeps it.
  EXPECT_EQ(Names(*cases), (std::vector<std::string>{"fam_a/one", "fam_b/two"}));
  // The same folder twice, a file inside a folder given too, a folder
  // inside another, the same file by two spellings.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {dir_.string(), dir_.string()},
           {dir_.string(), one},
           {dir_.string(), (dir_ / "fam_a").string()},
           {dir_.string() + "/", dir_.string() + "/./fam_b/../"}}) {
    cases = DiscoverCases(args);
    ASSERT_TRUE(cases.ok()) << cases.status();
    EXPECT_EQ(cases->size(), 2u) << args[0] << " " << args[1];
  }
  // The file given first keeps its own name.
  cases = DiscoverCases({one, dir_.string()});
  ASSERT_TRUE(cases.ok()) << cases.status();
  EXPECT_EQ(Names(*cases), (std::vector<std::string>{"one", "fam_b/two"}));
}

TEST_F(RunnerTest, AnEmptySelectionIsAnError) {
  // Folders without cases (fam_a, fam_b are empty; a file that is not a case).
  std::ofstream(dir_ / "fam_b" / "notes.txt") << "not a case";
  auto cases = DiscoverCases({dir_.string()});
  ASSERT_FALSE(cases.ok());
  EXPECT_NE(cases.status().message().find("no .hlo case files"), std::string::npos)
      << cases.status();
  EXPECT_FALSE(DiscoverCases({}).ok());
  // One empty folder among others is an error as well (a mistyped path).
  Write("fam_a/one.hlo", "add", "HloModule one");
  EXPECT_FALSE(DiscoverCases({(dir_ / "fam_a").string(), (dir_ / "fam_b").string()}).ok());
  // No results never reads as success.
  const std::vector<CaseResult> none;
  EXPECT_FALSE(AllPassed(none));
  EXPECT_EQ(PassRate(none), 0.0);
  const std::string table = SummaryTable(none);
  EXPECT_NE(table.find("no cases ran"), std::string::npos) << table;
  EXPECT_EQ(table.find("100"), std::string::npos) << table;
}

// A module with one check when `with_check`, none otherwise.
std::string CaseText(bool with_check) {
  std::string text =
      "// family: add\n"
      "HloModule m, entry_computation_layout={()->f32[2]{0}}\n"
      "ENTRY %main () -> f32[2] {\n"
      "  %a = f32[2]{0} constant({1, 2})\n"
      "  %b = f32[2]{0} constant({1, 2})\n"
      "  ROOT %r = f32[2]{0} add(f32[2]{0} %a, f32[2]{0} %b)\n";
  if (with_check) {
    text +=
        "  %check = () custom-call(f32[2]{0} %a, f32[2]{0} %b), "
        "custom_call_target=\"check.expect_eq\", custom_call_has_side_effect=true\n";
  }
  return text + "}\n";
}

TEST_F(RunnerTest, ACaseWithoutChecksIsErrored) {
  std::ofstream(dir_ / "fam_a" / "checked.hlo") << CaseText(true);
  std::ofstream(dir_ / "fam_a" / "unchecked.hlo") << CaseText(false);
  auto cases = DiscoverCases({dir_.string()});
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_EQ(cases->size(), 2u);
  const CaseResult checked = RunCaseInProcess((*cases)[0], SingleCaseOptions());
  EXPECT_EQ(checked.outcome, CaseOutcome::kPassed) << checked.message;
  const CaseResult unchecked = RunCaseInProcess((*cases)[1], SingleCaseOptions());
  EXPECT_EQ(unchecked.outcome, CaseOutcome::kErrored);
  EXPECT_NE(unchecked.message.find("has no checks"), std::string::npos) << unchecked.message;
  const std::vector<CaseResult> results = {checked, unchecked};
  EXPECT_FALSE(AllPassed(results));
  EXPECT_NE(SummaryTable(results).find("passed 1 of 2"), std::string::npos);
}

// True when `text` is printable ASCII or well-formed UTF-8 without control
// characters.
bool Printable(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) return false;
    if (c < 0x80) continue;
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (n == 0 || c > 0xf4 || i + n > text.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += n - 1;
  }
  return true;
}

TEST_F(RunnerTest, BinaryInputIsNeverPrintedRaw) {
  std::string bytes;
  for (int i = 0; i < 4096; ++i) bytes += static_cast<char>((i * 73 + 11) & 0xff);
  std::ofstream(dir_ / "fam_a" / "binary.hlo", std::ios::binary) << bytes;
  std::ofstream(dir_ / "fam_a" / "prefix.hlo", std::ios::binary)
      << "HloModule m\nENTRY e {\n  ROOT x = f32[] constant(1\x01\x80\xff\xfe\x1b[31m)\n}\n";
  auto cases = DiscoverCases({dir_.string()});
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_EQ(cases->size(), 2u);
  // In this process: a fork after the VM has run here could inherit its
  // thread pool's locks.
  std::vector<CaseResult> results;
  for (const CaseInfo& info : *cases) results.push_back(RunCaseInProcess(info, SingleCaseOptions()));
  for (const CaseResult& r : results) {
    EXPECT_EQ(r.outcome, CaseOutcome::kErrored) << r.info.name;
    const std::string line = FailureLine(r);
    EXPECT_TRUE(Printable(line)) << line;
    EXPECT_LT(line.size(), 600u) << line;
  }
  // Made up: a message of binary bytes with text and UTF-8 among them.
  CaseResult made_up;
  made_up.info.name = "fam_a/odd\x1b[2Jname";
  made_up.outcome = CaseOutcome::kErrored;
  made_up.message = "parse error: \x01\x02 caf\xc3\xa9 \xc3(\x80\xed\xa0\x80 end";
  const std::string line = FailureLine(made_up);
  EXPECT_TRUE(Printable(line)) << line;
  EXPECT_EQ(line,
            "ERRORED fam_a/odd\\x1b[2Jname: parse error: \\x01\\x02 caf\xc3\xa9 \\xc3(\\x80\\xed\\xa0\\x80 end");
  made_up.message = bytes;
  const std::string summary = FailureLine(made_up);
  EXPECT_TRUE(Printable(summary)) << summary;
  EXPECT_NE(summary.find("binary data; "), std::string::npos) << summary;
  // The reports stay valid UTF-8 as well.
  std::vector<CaseResult> reports = results;
  reports.push_back(made_up);
  for (const std::string& report : {ResultsJson(reports), JunitXml(reports)}) {
    std::string flat = report;
    for (char& c : flat) {
      if (c == '\n' || c == '\t') c = ' ';
    }
    EXPECT_TRUE(Printable(flat)) << flat;
  }
}

}  // namespace
}  // namespace hlovm
