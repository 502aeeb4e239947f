#include "repl/options.h"

#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const FlagSet kRunLike = {FlagGroup::kCompile, FlagGroup::kExecute, FlagGroup::kInstances,
                          FlagGroup::kInputs, FlagId::kOutput};
const FlagSet kBenchLike = {FlagGroup::kInputs, FlagId::kIterations, FlagId::kJson};

absl::StatusOr<ParsedArgs> Parse(std::vector<std::string> args, const FlagSet& set,
                                 const char* command = "run") {
  return ParseArgs(args, set, command);
}

TEST(FlagTableTest, EveryFlagHasANameHelpAndAUniqueName) {
  std::set<std::string_view> names;
  for (const FlagInfo& info : AllFlags()) {
    EXPECT_FALSE(info.help.empty()) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << "twice: " << info.name;
    EXPECT_EQ(&GetFlagInfo(info.id), &info);
    EXPECT_EQ(FindFlag(info.name), &info);
    // Booleans have no placeholder; every other flag shows one in help.
    EXPECT_EQ(info.value.empty(), info.type == FlagType::kBool) << info.name;
  }
  EXPECT_EQ(AllFlags().size(), static_cast<size_t>(kFlagCount));
  EXPECT_EQ(FindFlag("frobnicate"), nullptr);
}

TEST(FlagTableTest, GroupsAndDefaults) {
  const FlagSet compile = {FlagGroup::kCompile};
  EXPECT_TRUE(compile.Contains(FlagId::kPasses));
  EXPECT_TRUE(compile.Contains(FlagId::kNoFusion));
  EXPECT_FALSE(compile.Contains(FlagId::kReplicas));
  const FlagSet mixed = {FlagGroup::kInstances, FlagId::kJson};
  EXPECT_THAT(mixed.Ids(), ElementsAre(FlagId::kReplicas, FlagId::kPartitions,
                                         FlagId::kCollectiveTimeout, FlagId::kJson));
  EXPECT_TRUE(FlagSet().empty());
  EXPECT_EQ(DefaultValueText(FlagId::kIterations), "10");
  EXPECT_EQ(DefaultValueText(FlagId::kPasses), "default");
  EXPECT_EQ(DefaultValueText(FlagId::kRandom), "false");
}

TEST(ParseArgsTest, FlagsAnywhereAmongPositionals) {
  auto parsed = Parse({"--threads=3", "x.hlo", "--random", "f32[2] {1, 2}", "--replicas", "4"},
                      kRunLike);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->positional, ElementsAre("x.hlo", "f32[2] {1, 2}"));
  EXPECT_EQ(parsed->flags.threads, 3);
  EXPECT_TRUE(parsed->flags.random);
  EXPECT_EQ(parsed->flags.replicas, 4);
  EXPECT_EQ(parsed->flags.passes, "default");  // not given: the default
}

TEST(ParseArgsTest, BooleanSpellings) {
  auto parsed = Parse({"--no-fusion", "--flush_denormals=false"}, kRunLike);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->flags.no_fusion);
  EXPECT_FALSE(parsed->flags.flush_denormals);
  parsed = Parse({"--flush-denormals", "--nono_fusion", "-random"}, kRunLike);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->flags.flush_denormals);
  EXPECT_FALSE(parsed->flags.no_fusion);
  EXPECT_TRUE(parsed->flags.random);
  parsed = Parse({"--flush_denormals=1", "--norandom"}, kRunLike);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->flags.flush_denormals);
  EXPECT_FALSE(parsed->flags.random);
  // A boolean never takes the next word: it stays positional.
  parsed = Parse({"--random", "false"}, kRunLike);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->flags.random);
  EXPECT_THAT(parsed->positional, ElementsAre("false"));
  EXPECT_THAT(Parse({"--random=maybe"}, kRunLike).status().message(),
              HasSubstr("--random: 'maybe' is not a boolean"));
  EXPECT_THAT(Parse({"--norandom=true"}, kRunLike).status().message(),
              HasSubstr("--norandom takes no value"));
}

TEST(ParseArgsTest, RandomWithASeed) {
  auto parsed = Parse({"--random=7"}, kRunLike);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->flags.random);
  EXPECT_EQ(parsed->flags.seed, 7u);
}

TEST(ParseArgsTest, AFlagTheCommandDoesNotTakeIsAnError) {
  const FlagSet check = {FlagId::kSplitInputFile};
  absl::Status status = Parse({"--replicas=4", "x.hlo"}, check, "check").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "hlovm check: unknown flag --replicas (hlovm check takes: --split_input_file)");
  // Also a flag that no command has, and the --no form of a non-boolean.
  EXPECT_THAT(Parse({"--frobnicate"}, check, "check").status().message(),
              HasSubstr("unknown flag --frobnicate"));
  EXPECT_THAT(Parse({"--nothreads"}, kRunLike).status().message(),
              HasSubstr("unknown flag --nothreads"));
  EXPECT_THAT(Parse({"-x"}, FlagSet(), "dis").status().message(),
              HasSubstr("(hlovm dis takes no flags)"));
}

TEST(ParseArgsTest, AFileFlagTakesItsFileOnlyAfterAnEqualsSign) {
  absl::Status status = Parse({"--json", "--iterations=3", "x.hlo"}, kBenchLike, "bench").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("hlovm bench: --json takes its FILE only as --json=FILE"));
  EXPECT_THAT(Parse({"--json", "out.json"}, kBenchLike, "bench").status().message(),
              HasSubstr("--json=FILE"));
  auto parsed = Parse({"--json=out.json", "--iterations", "3", "x.hlo"}, kBenchLike, "bench");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flags.json, "out.json");
  EXPECT_EQ(parsed->flags.iterations, 3);
  EXPECT_THAT(parsed->positional, ElementsAre("x.hlo"));
}

TEST(ParseArgsTest, ValuesAreChecked) {
  EXPECT_THAT(Parse({"--threads=many"}, kRunLike).status().message(),
              HasSubstr("--threads: 'many' is not an integer"));
  EXPECT_THAT(Parse({"--collective_timeout=soon"}, kRunLike).status().message(),
              HasSubstr("is not a number"));
  EXPECT_THAT(Parse({"--threads"}, kRunLike).status().message(),
              HasSubstr("--threads needs a value"));
  auto parsed = Parse({"--collective-timeout=2.5", "--output=", "--passes=none"}, kRunLike);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flags.collective_timeout, 2.5);
  EXPECT_EQ(parsed->flags.output, "");
  EXPECT_EQ(parsed->flags.passes, "none");
}

TEST(ParseArgsTest, DoubleDashEndsTheFlags) {
  auto parsed = Parse({"--random", "--", "--threads=2", "-x"}, kRunLike);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->positional, ElementsAre("--threads=2", "-x"));
  EXPECT_EQ(parsed->flags.threads, 0);
}

TEST(FindFirstPositionalTest, SkipsFlagsAndTheirValues) {
  using Args = std::vector<std::string>;
  EXPECT_EQ(FindFirstPositional(Args{"run", "x.hlo"}), 0u);
  EXPECT_EQ(FindFirstPositional(Args{"--threads", "4", "run"}), 2u);
  EXPECT_EQ(FindFirstPositional(Args{"--threads=4", "--random", "run"}), 2u);
  EXPECT_EQ(FindFirstPositional(Args{"--echo"}), std::nullopt);
  EXPECT_EQ(FindFirstPositional(Args{}), std::nullopt);
  EXPECT_EQ(FindFirstPositional(Args{"--", "x.hlo"}), 1u);
  // A file flag never takes the next word.
  EXPECT_EQ(FindFirstPositional(Args{"--json", "bench"}), 1u);
}

TEST(BuildOptionsTest, CompileAndExecuteOptionsFromTheFlags) {
  Flags flags;
  flags.passes = "none";
  flags.no_fusion = true;
  flags.elided = "zeros";
  flags.replicas = 4;
  flags.partitions = 2;
  flags.threads = 3;
  flags.flush_denormals = true;
  flags.collective_timeout = 1.5;
  flags.fft_plan = "measure";
  absl::StatusOr<Options> options = BuildOptions(flags);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->compile.passes, "none");
  EXPECT_FALSE(options->compile.fusion);
  EXPECT_EQ(options->compile.elided, ElidedFill::kZeros);
  EXPECT_EQ(options->compile.replica_count, 4);
  EXPECT_EQ(options->compile.num_partitions, 2);
  EXPECT_EQ(options->execute.threads, 3);
  EXPECT_TRUE(options->execute.flush_denormals);
  EXPECT_EQ(options->replicated.threads, 3);
  EXPECT_TRUE(options->replicated.flush_denormals);
  EXPECT_EQ(options->replicated.collective_timeout_seconds, 1.5);
  EXPECT_EQ(options->compile.fft_plan, FftPlanMode::kMeasure);

  absl::StatusOr<Options> defaults = BuildOptions(Flags());
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->compile.elided, ElidedFill::kXla);
  EXPECT_TRUE(defaults->compile.fusion);
  EXPECT_EQ(defaults->compile.passes, "default");
  EXPECT_EQ(defaults->compile.fft_plan, FftPlanMode::kEstimate);
}

TEST(BuildOptionsTest, BadChoicesNameTheFlag) {
  Flags flags;
  flags.elided = "maybe";
  EXPECT_THAT(BuildOptions(flags).status().message(), HasSubstr("--elided must be"));
  flags = Flags();
  flags.passes = "nonsense";
  EXPECT_THAT(BuildOptions(flags).status().message(), HasSubstr("--passes"));
  flags = Flags();
  flags.fft_plan = "guess";
  EXPECT_THAT(BuildOptions(flags).status().message(), HasSubstr("--fft-plan"));
  flags = Flags();
  flags.by = "opcode";
  EXPECT_THAT(BuildOptions(flags).status().message(),
              HasSubstr("--by must be instruction or op_name, not 'opcode'"));
}

// Every numeric flag's row gives a range, its default lies inside it, and
// an integer flag's bounds fit its type.
TEST(FlagTableTest, EveryNumericFlagHasARangeHoldingItsDefault) {
  for (const FlagInfo& info : AllFlags()) {
    const bool numeric = info.type == FlagType::kInt || info.type == FlagType::kInt64 ||
                         info.type == FlagType::kDouble;
    // --seed (uint64) takes every value of its type; the parser refuses the rest.
    EXPECT_EQ(info.range.checked, numeric) << info.name;
    if (!info.range.checked) continue;
    EXPECT_LE(info.range.min, info.range.max) << info.name;
    if (info.type == FlagType::kInt) {
      EXPECT_GE(info.range.min, std::numeric_limits<int>::min()) << info.name;
      if (info.range.max != kNoMax) {
        EXPECT_LE(info.range.max, std::numeric_limits<int>::max()) << info.name;
      }
    }
    EXPECT_FALSE(RangeText(info.range, info.type).empty()) << info.name;
  }
  EXPECT_TRUE(CheckFlagRanges(Flags()).ok()) << CheckFlagRanges(Flags());
}

TEST(BuildOptionsTest, NumericFlagsOutOfRangeNameTheFlagAndTheRange) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  struct Case {
    std::function<void(Flags&)> set;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](Flags& f) { f.replicas = -1; }, "--replicas=-1 is out of range (accepted: 0 or more)"},
      {[](Flags& f) { f.partitions = -2; }, "--partitions=-2 is out of range (accepted: 0 or more)"},
      {[](Flags& f) { f.threads = -1; }, "--threads=-1 is out of range (accepted: 0 to 4096)"},
      {[](Flags& f) { f.collective_timeout = -1; },
       "--collective_timeout=-1 is out of range (accepted: more than 0, at most 1000000)"},
      {[](Flags& f) { f.collective_timeout = 0; }, "--collective_timeout=0 is out of range"},
      {[&](Flags& f) { f.collective_timeout = nan; }, "--collective_timeout=nan is out of range"},
      {[&](Flags& f) { f.collective_timeout = inf; }, "--collective_timeout=inf is out of range"},
      {[](Flags& f) { f.jobs = -1; }, "--jobs=-1 is out of range (accepted: 0 to 4096)"},
      {[](Flags& f) { f.timeout = 0; },
       "--timeout=0 is out of range (accepted: more than 0, at most 1000000)"},
      {[](Flags& f) { f.timeout = -1; }, "--timeout=-1 is out of range"},
      {[&](Flags& f) { f.timeout = nan; }, "--timeout=nan is out of range"},
      {[&](Flags& f) { f.timeout = -inf; }, "--timeout=-inf is out of range"},
      {[](Flags& f) { f.memory_limit_mb = -1; },
       "--memory_limit_mb=-1 is out of range (accepted: 0 to 1073741824)"},
      {[](Flags& f) { f.iterations = 0; }, "--iterations=0 is out of range (accepted: 1 or more)"},
      {[](Flags& f) { f.warmup = -1; }, "--warmup=-1 is out of range (accepted: 0 or more)"},
      {[](Flags& f) { f.top = 0; }, "--top=0 is out of range (accepted: 1 or more)"},
      {[](Flags& f) { f.op_name_depth = 0; },
       "--op_name_depth=0 is out of range (accepted: 1 or more)"},
      {[](Flags& f) { f.peak_gflops = -1; },
       "--peak_gflops=-1 is out of range (accepted: 0 or more, finite)"},
      {[&](Flags& f) { f.peak_gbps = inf; },
       "--peak_gbps=inf is out of range (accepted: 0 or more, finite)"},
      {[](Flags& f) { f.min_pass_rate = 1.5; },
       "--min_pass_rate=1.5 is out of range (accepted: -1 to 1)"},
      {[&](Flags& f) { f.min_pass_rate = nan; }, "--min_pass_rate=nan is out of range"},
  };
  for (const Case& c : cases) {
    Flags flags;
    c.set(flags);
    absl::StatusOr<Options> options = BuildOptions(flags);
    ASSERT_FALSE(options.ok()) << c.message;
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(options.status().message(), HasSubstr(c.message));
  }
  // The bounds themselves are accepted.
  Flags edges;
  edges.replicas = 0;
  edges.threads = 0;
  edges.collective_timeout = 1e6;
  edges.timeout = 0.001;
  edges.memory_limit_mb = 0;
  edges.iterations = 1;
  edges.warmup = 0;
  edges.top = 1;
  edges.min_pass_rate = 1;
  edges.peak_gflops = 0;
  EXPECT_TRUE(BuildOptions(edges).ok()) << BuildOptions(edges).status();
}

// From the command line: the value as parsed, checked by BuildOptions.
TEST(BuildOptionsTest, ParsedNanAndNegativeValuesAreRefused) {
  const FlagSet conformance_like = {FlagId::kJobs, FlagId::kTimeout, FlagId::kMemoryLimitMb};
  for (const auto& [arg, message] : std::vector<std::pair<std::string, std::string>>{
           {"--timeout=nan", "--timeout=nan is out of range"},
           {"--timeout=-1", "--timeout=-1 is out of range"},
           {"--jobs=-3", "--jobs=-3 is out of range"},
           {"--memory_limit_mb=-1", "--memory_limit_mb=-1 is out of range"}}) {
    auto parsed = Parse({arg}, conformance_like, "conformance");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_THAT(BuildOptions(parsed->flags).status().message(), HasSubstr(message)) << arg;
  }
}

TEST(BuildOptionsTest, PrintTakesItsChoices) {
  Flags flags;
  for (const char* mode : {"summary", "full", "none", "json"}) {
    flags.print = mode;
    EXPECT_TRUE(BuildOptions(flags).ok()) << mode;
  }
  flags.print = "fancy";
  absl::StatusOr<Options> options = BuildOptions(flags);
  ASSERT_FALSE(options.ok());
  EXPECT_THAT(std::string(options.status().message()),
              HasSubstr("--print must be summary, full, none or json, not 'fancy'"));
}

TEST(FlagsHelpTest, ListsTheFlagsOfTheSetByGroup) {
  const std::string help = FlagsHelp(kBenchLike);
  EXPECT_THAT(help, HasSubstr("Command flags:\n  --iterations=N\n      timed runs (default: 10; "
                              "accepted: 1 or more)"));
  EXPECT_THAT(help, HasSubstr("Input flags:\n  --random\n"));
  EXPECT_THAT(help, HasSubstr("--json=FILE"));
  EXPECT_THAT(help, Not(HasSubstr("--replicas")));
  EXPECT_EQ(FlagNames(kBenchLike),
            "--random, --seed, --convert_inputs, --save_inputs, --iterations, --json");
}

}  // namespace
}  // namespace cli
}  // namespace hlovm
