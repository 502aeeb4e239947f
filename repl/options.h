// The command-line flags of `hlovm` in one list, the parser that reads them
// for one command, and the compile and execute options built from them.
//
// Every flag is a row of HLOVM_FLAG_LIST: its name, value type, default,
// group and help. The rows expand into the `Flags` struct (one member per
// flag), the `FlagId` enum and the table the parser and `--help` read. A
// command states the flags it takes as a FlagSet of groups and single flags
// (repl/command.h); any other flag on its command line is a usage error that
// names the command and the flag:
//
//   hlovm check: unknown flag --replicas (hlovm check takes: --split_input_file)
//
// Each numeric flag's row also gives the range of values it accepts;
// BuildOptions refuses a value outside it (NaN and infinities included) with
// a message that names the flag and the range:
//
//   hlovm conformance: --jobs=-1 is out of range (accepted: 0 to 4096)
//
// Syntax (Abseil's): `--flag=value`; `--flag value` for flags whose value is
// not a file; `--flag`, `--noflag` and `--flag=true|false` for booleans;
// a single dash works as well as two; dashes in a name are underscores
// (`--fail-fast` is `--fail_fast`); `--` ends the flags. A flag that takes a
// file or a directory takes it only as `--flag=FILE`, so that
// `--json --iterations=3` is an error rather than a file named
// `--iterations=3`. One shorthand: `--random=SEED` is `--random --seed=SEED`.
//
// Nothing here is thread-safe; main() parses once before a command runs.
#ifndef HLOVM_REPL_OPTIONS_H_
#define HLOVM_REPL_OPTIONS_H_

#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ops/fft/fft.h"
#include "vm/api.h"

namespace hlovm {
namespace cli {

// How a flag's value is written; kPath is a string naming a file or a
// directory, which only `--flag=VALUE` sets.
enum class FlagType : uint8_t { kBool, kInt, kInt64, kUint64, kDouble, kString, kPath };

// Flags that commands take together. kCommand: a flag of one or two
// commands, which they name one by one.
enum class FlagGroup : uint8_t {
  kCompile,    // how a module is compiled: passes, fusion, elided constants, FFT plans
  kExecute,    // how it runs: threads, subnormals
  kInstances,  // replicated and partitioned runs
  kInputs,     // generated inputs
  kCommand,
};

// The values a numeric flag accepts: from `min` to `max`, `min` itself
// excluded when `min_open`. NaN is never inside a range, and an infinity
// only when a bound is one (none is). `checked` is false for flags whose
// every value is valid (booleans, strings, --seed).
struct FlagRange {
  double min = 0;
  double max = 0;
  bool min_open = false;
  bool checked = false;
};
// The largest finite double: "no upper bound" besides the type's own.
inline constexpr double kNoMax = 1.7976931348623157e308;
inline constexpr FlagRange kAnyValue{};
// [min, max], and [min, kNoMax] (every finite value from min on).
constexpr FlagRange Between(double min, double max) { return {min, max, false, true}; }
constexpr FlagRange AtLeast(double min) { return {min, kNoMax, false, true}; }
// (min, max]: e.g. a time limit, which must be positive.
constexpr FlagRange Above(double min, double max) { return {min, max, true, true}; }

// Upper bounds where a larger value would overflow a conversion or start an
// absurd number of threads or processes. --replicas and --partitions have
// none here: the library bounds their product (kMaxInstances, core/hlo_ir.h)
// and its error says why.
inline constexpr double kMaxThreads = 4096;    // --threads, --jobs
inline constexpr double kMaxSeconds = 1e6;     // time limits (about 11.6 days)
inline constexpr double kMaxMemoryMb = 1 << 30;  // 1 PiB, in MiB

// V(enumerator, name, type, default, accepted range, group, value placeholder, help)
#define HLOVM_FLAG_LIST(V)                                                                       \
  V(kPasses, passes, kString, "default", kAnyValue, kCompile, "none|default|LIST",               \
    "the passes between verifier and compiler: none, default or a list of "                      \
    "inline,algsimp,fold,cse,zerotrip,unroll,licm,whiledce,dce")                                 \
  V(kNoFusion, no_fusion, kBool, false, kAnyValue, kCompile, "",                                 \
    "compile elementwise regions op by op instead of fusing them")                               \
  V(kElided, elided, kString, "xla", kAnyValue, kCompile, "xla|zeros|error",                     \
    "how to fill elided constant({...}) literals: xla (XLA's parser's counter pattern), zeros, " \
    "or error")                                                                                  \
  V(kFftPlan, fft_plan, kString, "estimate", kAnyValue, kCompile, "estimate|measure",            \
    "how FFT plans are made: estimate (instant) or measure (FFTW measures the fastest "          \
    "algorithm once; the result is kept in ~/.cache/hlovm/ or $XDG_CACHE_HOME/hlovm/)")          \
  V(kThreads, threads, kInt, 0, Between(0, kMaxThreads), kExecute, "N",                          \
    "executor threads (0: all cores)")                                                           \
  V(kFlushDenormals, flush_denormals, kBool, false, kAnyValue, kExecute, "",                     \
    "compute as XLA's CPU backend does, reading subnormal operands and writing subnormal "       \
    "results as zero")                                                                           \
  V(kReplicas, replicas, kInt64, 0, AtLeast(0), kInstances, "N",                                  \
    "run with this many replicas (0: the module's replica_count)")                               \
  V(kPartitions, partitions, kInt64, 0, AtLeast(0), kInstances, "N",                              \
    "partition count (0: the module's num_partitions)")                                          \
  V(kCollectiveTimeout, collective_timeout, kDouble, 10, Above(0, kMaxSeconds), kInstances,      \
    "SECONDS", "seconds a collective waits for late peers")                                      \
  V(kRandom, random, kBool, false, kAnyValue, kInputs, "",                                       \
    "fill every entry parameter with deterministic random values; --random=SEED is "             \
    "--random --seed=SEED")                                                                      \
  V(kSeed, seed, kUint64, 0, kAnyValue, kInputs, "N",                                           \
    "seed of --random (printed on stderr, so that a run can be repeated)")                       \
  V(kConvertInputs, convert_inputs, kBool, false, kAnyValue, kInputs, "",                        \
    "convert an input whose element type differs from its parameter's (e.g. NumPy's default "   \
    "float64/int64 for an f32/s32 parameter, f32 for bf16): floats round to nearest even, "      \
    "integers must fit; without it such an input is an error")                                   \
  V(kSaveInputs, save_inputs, kPath, "", kAnyValue, kInputs, "DIR|FILE.npz",                     \
    "also write the inputs (random ones too) as .npy files NN_NAME.npy into DIR, or as one "     \
    ".npz with an array per parameter name; `hlovm run FILE.hlo FILE.npz` reads them back")     \
  V(kPerReplica, per_replica, kBool, false, kAnyValue, kCommand, "",                             \
    "inputs are given per instance (instance 0's, then instance 1's, ...)")                      \
  V(kInfeed, infeed, kPath, "", kAnyValue, kCommand, "VALUES",                                   \
    "values the infeed instructions read, in order: .npy files or HLO literals, separated by "   \
    "';' (or by ',' between .npy files); every instance gets the same queue")                    \
  V(kOutput, output, kPath, "", kAnyValue, kCommand, "DIR|FILE.npz|FILE.npy|FILE.json",          \
    "write the results instead of printing them: as .npy files into a directory (result.npy, "   \
    "result_I.npy for tuple elements; replicaR_... per instance of a replicated module), one "   \
    ".npz, one .npy (a single array result), or JSON (as --print=json)")                         \
  V(kPrint, print, kString, "summary", kAnyValue, kCommand, "summary|full|none|json",            \
    "how results print: summary (as NumPy: an array of more than 1000 elements shows its first " \
    "and last 3 per dimension around '...'), full (every element), none, or json (one JSON "    \
    "object: shapes, types and every element)")                                                  \
  V(kDumpAfterPasses, dump_after_passes, kBool, false, kAnyValue, kCommand, "",                  \
    "print the module after the passes (to stderr for run)")                                     \
  V(kIterations, iterations, kInt, 10, AtLeast(1), kCommand, "N", "timed runs")                  \
  V(kWarmup, warmup, kInt, 1, AtLeast(0), kCommand, "N", "untimed runs before the timed ones")   \
  V(kProfile, profile, kBool, false, kAnyValue, kCommand, "",                                    \
    "per-opcode and per-instruction time tables")                                                \
  V(kTrace, trace, kPath, "", kAnyValue, kCommand, "FILE.json",                                  \
    "write a Chrome trace-event JSON of one run to this file")                                   \
  V(kO, o, kString, "", kAnyValue, kCommand, "FILE",                                             \
    "write the picture to this file: .dot, .svg or .png (svg and png through Graphviz's dot)")   \
  V(kExpand, expand, kBool, false, kAnyValue, kCommand, "",                                      \
    "draw the bodies of loops, calls and fusions even in large modules")                         \
  V(kTop, top, kInt, 20, AtLeast(1), kCommand, "N", "rows of each --profile table")              \
  V(kBy, by, kString, "instruction", kAnyValue, kCommand, "instruction|op_name",                 \
    "the second --profile table groups by instruction or op_name (metadata prefix)")             \
  V(kOpNameDepth, op_name_depth, kInt, 3, AtLeast(1), kCommand, "N",                             \
    "path components of op_name kept by --by=op_name")                                           \
  V(kPeakGflops, peak_gflops, kDouble, 0, AtLeast(0), kCommand, "X",                             \
    "the roofline's peak GFLOP/s (0: measured and cached)")                                      \
  V(kPeakGbps, peak_gbps, kDouble, 0, AtLeast(0), kCommand, "X",                                 \
    "the roofline's memory GB/s (0: measured and cached)")                                       \
  V(kJson, json, kPath, "", kAnyValue, kCommand, "FILE", "write a JSON report to this file")     \
  V(kFilter, filter, kString, "", kAnyValue, kCommand, "REGEX",                                  \
    "run only cases whose name matches this RE2 regex")                                          \
  V(kJobs, jobs, kInt, 0, Between(0, kMaxThreads), kCommand, "N",                                \
    "cases run in parallel (0: one per core)")                                                   \
  V(kTimeout, timeout, kDouble, 120, Above(0, kMaxSeconds), kCommand, "SECONDS",                 \
    "seconds a case may run before it is killed (errored)")                                      \
  V(kMemoryLimitMb, memory_limit_mb, kInt64, 8192, Between(0, kMaxMemoryMb), kCommand, "MIB",    \
    "address-space limit of each case's process in MiB (0: none)")                               \
  V(kJunit, junit, kPath, "", kAnyValue, kCommand, "FILE",                                       \
    "write a JUnit XML report to this file")                                                     \
  V(kList, list, kBool, false, kAnyValue, kCommand, "",                                          \
    "list the cases (after --filter) instead of running them")                                   \
  V(kFailFast, fail_fast, kBool, false, kAnyValue, kCommand, "",                                 \
    "stop at the first failure (a failed or errored case; a failed input of a script)")          \
  V(kMinPassRate, min_pass_rate, kDouble, -1, Between(-1, 1), kCommand, "FRACTION",              \
    "when >= 0, succeed when at least this fraction of the cases passed (instead of requiring "  \
    "every case to pass); for CI thresholds. A case whose results change under "                 \
    "--compare_threads or --compare_passes fails the run all the same")                          \
  V(kVerbose, verbose, kBool, false, kAnyValue, kCommand, "",                                    \
    "also print a line for every passing case")                                                  \
  V(kCompareThreads, compare_threads, kBool, false, kAnyValue, kCommand, "",                     \
    "also run each passing case with 1 and 2 threads and fail it unless the results are "        \
    "bitwise identical")                                                                         \
  V(kComparePasses, compare_passes, kBool, false, kAnyValue, kCommand, "",                       \
    "also run each passing case compiled with --passes=none and fail it unless the results "     \
    "are bitwise identical")                                                                     \
  V(kMpi, mpi, kBool, false, kAnyValue, kCommand, "",                                           \
    "run each multi-instance case under mpirun, one process per instance (--mpi=N: N instances " \
    "per process), and fail it unless stdout and exit code are those of the one-process run")   \
  V(kMpiInstances, mpi_instances, kInt64, 1, AtLeast(1), kCommand, "N",                          \
    "instances per process of --mpi (--mpi=N sets it)")                                          \
  V(kMpirunArgs, mpirun_args, kString, "", kAnyValue, kCommand, "ARGS",                          \
    "more arguments for mpirun under --mpi, e.g. '--mca btl self,tcp'")                          \
  V(kExecChildren, exec_children, kBool, false, kAnyValue, kCommand, "",                         \
    "run each case by executing hlovm anew instead of in a fork")                                \
  V(kConformanceChild, conformance_child, kBool, false, kAnyValue, kCommand, "",                 \
    "(internal) run the one case given and print its result")                                    \
  V(kSplitInputFile, split_input_file, kBool, false, kAnyValue, kCommand, "",                    \
    "treat each part of a file between `// -----` lines as its own module")                      \
  V(kInPlace, i, kBool, false, kAnyValue, kCommand, "",                                          \
    "rewrite the files in place instead of printing them")                                       \
  V(kTo, to, kString, "hlo", kAnyValue, kCommand, "hlo",                                         \
    "the text fmt prints: hlo (HLO text, also for StableHLO .mlir input)")                       \
  V(kEcho, echo, kBool, false, kAnyValue, kCommand, "",                                          \
    "in a script, print each input after a prompt, as a terminal would show it")

enum class FlagId : uint8_t {
#define HLOVM_FLAG_ENUM(id, ...) id,
  HLOVM_FLAG_LIST(HLOVM_FLAG_ENUM)
#undef HLOVM_FLAG_ENUM
};
#define HLOVM_FLAG_COUNT(...) +1
inline constexpr int kFlagCount = 0 HLOVM_FLAG_LIST(HLOVM_FLAG_COUNT);
#undef HLOVM_FLAG_COUNT

// The C++ type of a flag's value.
template <FlagType type> struct FlagValue;
template <> struct FlagValue<FlagType::kBool> { using Type = bool; };
template <> struct FlagValue<FlagType::kInt> { using Type = int; };
template <> struct FlagValue<FlagType::kInt64> { using Type = int64_t; };
template <> struct FlagValue<FlagType::kUint64> { using Type = uint64_t; };
template <> struct FlagValue<FlagType::kDouble> { using Type = double; };
template <> struct FlagValue<FlagType::kString> { using Type = std::string; };
template <> struct FlagValue<FlagType::kPath> { using Type = std::string; };

// Every flag's value; a flag not given (or not taken by the command) keeps
// its default.
struct Flags {
#define HLOVM_FLAG_MEMBER(id, name, type, default_value, ...) \
  FlagValue<FlagType::type>::Type name = default_value;
  HLOVM_FLAG_LIST(HLOVM_FLAG_MEMBER)
#undef HLOVM_FLAG_MEMBER
};

struct FlagInfo {
  FlagId id;
  std::string_view name;  // as written after `--`
  FlagType type;
  FlagRange range;  // the values a numeric flag accepts
  FlagGroup group;
  std::string_view value;  // placeholder in help, e.g. "N"; empty for booleans
  std::string_view help;
};

// Every flag, in HLOVM_FLAG_LIST order (which is FlagId order).
absl::Span<const FlagInfo> AllFlags();
const FlagInfo& GetFlagInfo(FlagId id);
// The flag called `name` (underscores, without dashes in front), if any.
const FlagInfo* FindFlag(std::string_view name);
// A flag's default value as text, e.g. "10", "false", "default".
std::string DefaultValueText(FlagId id);
// A range as help and errors write it: "0 to 4096", "1 or more", "more than
// 0, at most 1000000" (doubles also say "finite" where no bound excludes
// infinities).
std::string RangeText(const FlagRange& range, FlagType type);
// The group's title in help, e.g. "compile".
std::string_view FlagGroupName(FlagGroup group);

// The flags one command takes: whole groups and single flags.
class FlagSet {
 public:
  // One element of the braced list a command gives: a group or a flag.
  struct Item {
    Item(FlagGroup g) : is_group(true), group(g) {}  // NOLINT: implicit by design
    Item(FlagId f) : flag(f) {}                      // NOLINT: implicit by design
    bool is_group = false;
    FlagGroup group = FlagGroup::kCommand;
    FlagId flag = FlagId{};
  };
  FlagSet() = default;
  FlagSet(std::initializer_list<Item> items);

  bool Contains(FlagId id) const { return bits_.test(static_cast<size_t>(id)); }
  bool empty() const { return bits_.none(); }
  // The flags in list order.
  std::vector<FlagId> Ids() const;

 private:
  std::bitset<kFlagCount> bits_;
};

// A command line after parsing.
struct ParsedArgs {
  Flags flags;
  std::vector<std::string> positional;  // in order, flags removed
};

// Parses `args` (the words after `hlovm`, without the command name) for
// command `command`, which takes `accepted`. InvalidArgument, with a
// message that starts with "hlovm COMMAND: ", for an unknown flag or one
// the command does not take, a file flag without `=`, a missing value or
// one that does not parse.
absl::StatusOr<ParsedArgs> ParseArgs(absl::Span<const std::string> args, const FlagSet& accepted,
                                     std::string_view command);

// The index in `args` of the first word that is neither a flag nor the
// value of one (`--threads 4`): the command name; nullopt when there is
// none. Every flag of any command counts here, as the command is not known
// yet.
std::optional<size_t> FindFirstPositional(absl::Span<const std::string> args);

// The help for the flags of `set`, one block per group:
//   Compile flags:
//     --passes=none|default|LIST
//         the passes between ... (default: default)
std::string FlagsHelp(const FlagSet& set);
// "--a, --b, --c": the flags of `set`, for error messages.
std::string FlagNames(const FlagSet& set);

// InvalidArgument for the first numeric flag whose value lies outside its
// row's range, e.g. "--jobs=-1 is out of range (accepted: 0 to 4096)".
absl::Status CheckFlagRanges(const Flags& flags);

// The options the flags describe, built once per command line.
struct Options {
  Flags flags;
  // passes, fusion, elided, fft_plan, replica_count and num_partitions
  // from the flags; file_name is left to the command.
  CompileOptions compile;
  ExecuteOptions execute;        // threads, flush_denormals
  ReplicatedOptions replicated;  // threads, flush_denormals, collective timeout
};

// Checks every numeric flag against its range (CheckFlagRanges) and the
// values that have a fixed set of choices (--elided, --passes, --fft_plan),
// and builds the options. InvalidArgument names the flag.
absl::StatusOr<Options> BuildOptions(const Flags& flags);

}  // namespace cli
}  // namespace hlovm

#endif  // HLOVM_REPL_OPTIONS_H_
