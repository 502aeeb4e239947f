// `hlovm run FILE.hlo [INPUT...]` (also `hlovm FILE.hlo ...`): runs a module's
// entry computation on inputs given as HLO literals, .npy/.npz files or random
// values, and prints the results as HLO literals (summarized as NumPy
// summarizes large arrays; --print) or writes them (--output: .npy files, an
// .npz, JSON).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/printer.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/element_type.h"
#include "core/float_format.h"
#include "core/literal.h"
#include "core/npy.h"
#include "core/npz.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "repl/command.h"
#include "repl/inputs.h"
#include "repl/options.h"
#include "repl/run_monitor.h"
#include "repl/result_output.h"
#include "repl/source_file.h"
#include "vm/api.h"
#include "vm/check_failure.h"
#include "vm/mpi_run.h"

namespace hlovm {
namespace {

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Bad input (a malformed module or arguments, an unsupported op or type, a
// shape too large to allocate) exits 2; a failure of the program itself
// (a failed check, OutOfRange, Cancelled, Internal) exits 1.
int ExitCodeFor(const absl::Status& status, bool during_execution) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kNotFound:
      return kExitBadInput;
    default:
      return during_execution ? kExitFailed : kExitBadInput;
  }
}

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "hlovm: %s\n", std::string(status.message()).c_str());
}

// The --infeed values.
absl::StatusOr<std::vector<Literal>> ReadInfeed(const std::string& flag) {
  std::vector<Literal> values;
  if (flag.empty()) return values;
  std::vector<std::string> args = absl::StrSplit(flag, ';');
  if (args.size() == 1) {
    std::vector<std::string> files = absl::StrSplit(flag, ',');
    bool all_npy = true;
    for (const std::string& f : files) all_npy = all_npy && absl::EndsWith(f, ".npy");
    if (all_npy) args = files;
  }
  for (const std::string& arg : args) {
    if (absl::EndsWith(arg, ".npy")) {
      HLOVM_ASSIGN_OR_RETURN(Literal value, ReadNpy(arg));
      values.push_back(std::move(value));
      continue;
    }
    auto value = ParseLiteral(arg, LiteralSyntax{/*every_element=*/true});  // nothing padded
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--infeed value '", arg, "': ", value.status().message()));
    }
    values.push_back(std::move(*value));
  }
  return values;
}

void PrintOutfeed(const std::string& who, const std::vector<std::string>& values) {
  for (const std::string& v : values) {
    std::printf("outfeed%s%s: %s\n", who.empty() ? "" : " ", who.c_str(), v.c_str());
  }
}

// What --output names: a directory, or one file whose form its extension
// gives.
enum class OutputForm { kDirectory, kNpz, kNpy, kJson };

OutputForm OutputFormOf(const std::string& output) {
  if (absl::EndsWith(output, ".npz")) return OutputForm::kNpz;
  if (absl::EndsWith(output, ".npy")) return OutputForm::kNpy;
  if (absl::EndsWith(output, ".json")) return OutputForm::kJson;
  return OutputForm::kDirectory;
}

// Checks the --output directory: an existing directory, or one whose
// parent exists (only the directory itself is ever created, never a chain
// of them from a mistyped path). With `create`, creates it when missing.
// For a file (.npz, .npy, .json), its directory must exist. InvalidArgument
// names the flag.
absl::Status PrepareOutput(const std::string& output, bool create) {
  namespace fs = std::filesystem;
  const std::string flag = absl::StrCat("--output=", output);
  std::error_code ec;
  if (OutputFormOf(output) != OutputForm::kDirectory) {
    const fs::path parent = fs::path(output).has_parent_path() ? fs::path(output).parent_path()
                                                              : fs::path(".");
    if (!fs::is_directory(parent, ec)) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": ", parent.string(), " is not an existing directory"));
    }
    if (fs::is_directory(output, ec)) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": is a directory"));
    }
    return absl::OkStatus();
  }
  fs::path path(output);
  if (path.has_parent_path() && path.filename().empty()) path = path.parent_path();  // "out/"
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) return absl::OkStatus();
  if (fs::exists(status)) return absl::InvalidArgumentError(absl::StrCat(flag, ": not a directory"));
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", parent.string(),
                                                   " is not an existing directory (--output creates "
                                                   "only its last directory)"));
  }
  if (create && !fs::create_directory(path, ec) && ec) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", ec.message()));
  }
  return absl::OkStatus();
}

// The arrays of `result` named `stem`, `stem`_0, `stem`_1_2, ... (tuple
// elements), in order; tokens are left out.
void FlattenResult(const Literal& result, const std::string& stem,
                   std::vector<std::pair<std::string, const Literal*>>* arrays) {
  if (result.shape().IsTuple()) {
    const auto& elements = result.tuple_elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      FlattenResult(elements[i], absl::StrCat(stem, "_", i), arrays);
    }
    return;
  }
  if (result.shape().IsArray()) arrays->emplace_back(stem, &result);
}

// The stem of instance `r`'s files: "result", or replicaR_result /
// replicaR_partitionP_result.
std::string ResultStem(const RunResult& r) {
  if (r.replica < 0) return "result";
  if (r.partition < 0) return absl::StrCat("replica", r.replica, "_result");
  return absl::StrCat("replica", r.replica, "_partition", r.partition, "_result");
}

// Writes the results where --output says and lists the files on stdout.
int WriteOutput(const std::string& output, const std::vector<RunResult>& results) {
  if (absl::Status status = PrepareOutput(output, /*create=*/true); !status.ok()) {
    PrintError(status);
    return kExitBadInput;
  }
  std::vector<std::pair<std::string, const Literal*>> arrays;
  for (const RunResult& r : results) FlattenResult(*r.value, ResultStem(r), &arrays);
  std::vector<std::string> written;
  absl::Status status;
  switch (OutputFormOf(output)) {
    case OutputForm::kDirectory:
      for (const auto& [stem, literal] : arrays) {
        const std::string path = (std::filesystem::path(output) / (stem + ".npy")).string();
        status = WriteNpy(*literal, path);
        if (!status.ok()) break;
        const ElementType type = literal->shape().element_type();
        std::string note;
        if (NpyStorageType(type) != type) {
          note = absl::StrCat(" (", Sv(ElementTypeName(type)), " widened to ",
                              Sv(ElementTypeName(NpyStorageType(type))), ")");
        }
        written.push_back(path + note);
      }
      break;
    case OutputForm::kNpz:
      status = WriteNpz(arrays, output);
      written.push_back(output);
      break;
    case OutputForm::kNpy:
      if (arrays.size() != 1) {
        status = absl::InvalidArgumentError(absl::StrCat(
            "--output=", output, ": the run has ", arrays.size(),
            " result arrays, and a .npy file holds one; name an .npz file or a directory"));
        break;
      }
      status = WriteNpy(*arrays[0].second, output);
      written.push_back(output);
      break;
    case OutputForm::kJson: {
      std::ofstream file(output, std::ios::trunc);
      file << ResultsJson(results);
      file.close();
      if (!file) status = absl::InvalidArgumentError(absl::StrCat(output, ": cannot write the file"));
      written.push_back(output);
      break;
    }
  }
  if (!status.ok()) {
    PrintError(status);
    return kExitBadInput;
  }
  for (const std::string& w : written) std::printf("wrote %s\n", w.c_str());
  return kExitOk;
}

// Prints the results as --print says (or writes them, with --output).
int EmitResults(const std::vector<RunResult>& results, const cli::Flags& flags) {
  if (!flags.output.empty()) return WriteOutput(flags.output, results);
  const PrintMode mode = *ParsePrintMode(flags.print);  // checked before the run
  if (mode == PrintMode::kNone) return kExitOk;
  if (mode == PrintMode::kJson) {
    const std::string json = ResultsJson(results);
    std::fwrite(json.data(), 1, json.size(), stdout);
    return kExitOk;
  }
  bool summarized = false;
  auto text = [&](const Literal& value) {
    if (mode == PrintMode::kSummary) {
      summarized = summarized || IsSummarized(value, kSummaryThreshold, kSummaryEdgeItems);
    }
    return FormatResult(value, mode);
  };
  if (results.size() == 1 && results[0].replica < 0) {
    std::printf("%s\n", text(*results[0].value).c_str());
  } else {
    // One line for all instances when their results are bitwise identical.
    bool identical = true;
    for (const RunResult& r : results) identical = identical && r.value->BitwiseEqual(*results[0].value);
    const bool partitioned = results[0].partition >= 0;
    if (identical) {
      std::printf("%s: %s\n",
                  partitioned ? absl::StrCat("all ", results.size(), " instances").c_str()
                              : absl::StrCat("replicas 0-", results.size() - 1).c_str(),
                  text(*results[0].value).c_str());
    } else {
      for (const RunResult& r : results) {
        const std::string who = partitioned ? absl::StrCat("replica ", r.replica, " partition ", r.partition)
                                            : absl::StrCat("replica ", r.replica);
        std::printf("%s: %s\n", who.c_str(), text(*r.value).c_str());
      }
    }
  }
  if (summarized) {
    std::fflush(stdout);
    std::fprintf(stderr, "hlovm: arrays of more than %lld elements are summarized; --print=full "
                         "prints every element, --output=FILE.npz|FILE.npy|FILE.json|DIR writes them\n",
                 static_cast<long long>(kSummaryThreshold));
  }
  return kExitOk;
}

// Runs every instance on the collective bus; prints one line per instance,
// or one line for all when their results are bitwise identical.
int RunInstances(const Executable& exe, const std::vector<Literal>& arguments, int64_t sets,
                 int64_t replicas, int64_t partitions, const cli::Options& run_options) {
  const int64_t instances = replicas * partitions;
  const size_t per_set = arguments.size() / sets;
  std::vector<std::vector<const Literal*>> argument_sets(sets);
  for (int64_t s = 0; s < sets; ++s) {
    for (size_t i = 0; i < per_set; ++i) argument_sets[s].push_back(&arguments[s * per_set + i]);
  }
  ReplicatedOptions options = run_options.replicated;
  auto infeed = ReadInfeed(run_options.flags.infeed);
  if (!infeed.ok()) {
    PrintError(infeed.status());
    return kExitBadInput;
  }
  for (const Literal& v : *infeed) options.infeed.push_back(&v);
  std::vector<absl::StatusOr<Literal>> results;
  std::vector<std::vector<std::string>> outfeed;
  // Under mpirun (vm/mpi_run.h) the instances run in several processes:
  // each reports its own instances' failures, rank 0 prints the rest.
  std::vector<char> reports(instances, 1);
  bool prints = true;
  bool abandoned = false;  // the MPI job broke (DistributedRun::abandoned)
  if (MpiLauncherSize() > 1) {
    DistributedRun run = ExecuteOverMpi(exe, argument_sets, options);
    if (!run.error.ok()) {
      // (A broken job's every process says why it ends: rank 0 may be gone.)
      if (run.rank == 0 || run.abandoned) PrintError(run.error);
      const int code = ExitCodeFor(run.error, /*during_execution=*/run.abandoned);
      if (run.abandoned) EndAbandonedProcess(code);
      return code;
    }
    results = std::move(run.results);
    outfeed = std::move(run.outfeed);
    reports = run.local;
    prints = run.rank == 0;
    abandoned = run.abandoned;
  } else {
    std::vector<std::vector<Literal>> values;
    options.outfeed = &values;
    repl::RunMonitor monitor(&exe);  // Ctrl-C says where the run was; progress on a terminal
    options.position = monitor.position();
    results = ExecuteReplicated(exe, argument_sets, options);
    monitor.Stop();
    for (const auto& instance : values) {
      outfeed.emplace_back();
      for (const Literal& v : instance) outfeed.back().push_back(v.ToString());
    }
  }
  for (int64_t id = 0; prints && id < instances && id < static_cast<int64_t>(outfeed.size());
       ++id) {
    PrintOutfeed(InstanceName(id, partitions), outfeed[id]);
  }
  // The instance that failed first decides the exit code; instances
  // cancelled because of it only say so.
  int code = kExitOk;
  bool any_failed = false;
  for (int64_t id = 0; id < instances; ++id) {
    const absl::Status& status = results[id].status();
    if (status.ok()) continue;
    if (!reports[id] && !prints) continue;  // another process's instance
    any_failed = true;
    const std::string who = InstanceName(id, partitions);
    if (auto failure = GetCheckFailure(status)) {
      std::fprintf(stderr, "hlovm: %s: %s\n", who.c_str(), FormatCheckFailure(*failure).c_str());
      code = std::max(code, static_cast<int>(kExitFailed));
      continue;
    }
    if (reports[id]) {
      std::fprintf(stderr, "hlovm: %s: %s\n", who.c_str(), std::string(status.message()).c_str());
    }
    code = std::max(code, ExitCodeFor(status, /*during_execution=*/true));
  }
  if (any_failed && code == kExitOk) code = kExitFailed;
  if (abandoned) EndAbandonedProcess(any_failed ? code : static_cast<int>(kExitFailed));
  if (!prints || any_failed) return code;
  std::vector<RunResult> run_results;
  for (int64_t id = 0; id < instances; ++id) {
    run_results.push_back(
        {id / partitions, partitions == 1 ? -1 : id % partitions, &*results[id]});
  }
  return EmitResults(run_results, run_options.flags);
}

int Run(const std::vector<std::string>& args, const cli::Options& options) {
  const cli::Flags& flags = options.flags;
  if (args.empty()) {
    std::fprintf(stderr, "usage: hlovm run [FLAGS] FILE.hlo [INPUT...] (`hlovm run --help` lists "
                         "the flags)\n");
    return kExitBadInput;
  }
  const std::string& file = args[0];
  // A bad --output or --print fails before the program runs.
  if (!flags.output.empty()) {
    if (absl::Status status = PrepareOutput(flags.output, /*create=*/false); !status.ok()) {
      PrintError(status);
      return kExitBadInput;
    }
  }
  if (auto mode = ParsePrintMode(flags.print); !mode.ok()) {
    PrintError(mode.status());
    return kExitBadInput;
  }
  auto text = ReadSourceFile(file);
  if (!text.ok()) {
    PrintError(text.status());
    return kExitBadInput;
  }

  CompileOptions compile_options = options.compile;
  compile_options.file_name = file;
  auto executable = Executable::FromText(*text, compile_options);
  if (!executable.ok()) {
    PrintError(executable.status());
    return ExitCodeFor(executable.status(), /*during_execution=*/false);
  }
  const Executable& exe = **executable;
  if (flags.dump_after_passes) {
    const std::string dump = exe.PassReport() + PrintModule(exe.module(), PrintOptions::Default());
    std::fwrite(dump.data(), 1, dump.size(), stderr);
  }
  if (const int64_t filled = exe.elided_constants_filled(); filled > 0) {
    std::fprintf(stderr,
                 "hlovm: warning: %s: %lld elided constant%s ({...}) filled with %s; results "
                 "depend on these placeholder values\n",
                 file.c_str(), static_cast<long long>(filled), filled == 1 ? "" : "s",
                 compile_options.elided == ElidedFill::kXla ? "XLA's counter pattern" : "zeros");
  }

  const int64_t replicas = std::max<int64_t>(1, exe.module().replica_count);
  const int64_t partitions = std::max<int64_t>(1, exe.module().num_partitions);
  const int64_t instances = replicas * partitions;
  const bool per_replica = flags.per_replica;
  const int64_t sets = per_replica ? instances : 1;
  std::vector<Shape> parameters;
  std::vector<std::string> names;
  for (int64_t s = 0; s < sets; ++s) {
    parameters.insert(parameters.end(), exe.parameter_shapes().begin(),
                      exe.parameter_shapes().end());
    for (const HloInstruction* p : exe.module().entry()->parameters()) {
      names.push_back(per_replica ? absl::StrCat("instance", s, "_", p->name()) : p->name());
    }
  }
  auto arguments = PrepareArguments(
      parameters, names, std::vector<std::string>(args.begin() + 1, args.end()),
      InputOptions{.random = flags.random,
                   .seed = flags.seed,
                   .convert = flags.convert_inputs,
                   .announce = MpiSpeaksForJob()},
      flags.save_inputs, file);
  if (!arguments.ok()) {
    PrintError(arguments.status());
    return kExitBadInput;
  }

  // Under mpirun every run goes through RunInstances, which spreads the
  // instances over the processes (or says why it cannot).
  if (instances > 1 || MpiLauncherSize() > 1) {
    return RunInstances(exe, *arguments, sets, replicas, partitions, options);
  }
  ExecuteOptions execute_options = options.execute;
  FeedQueues feeds;
  {
    auto infeed = ReadInfeed(flags.infeed);
    if (!infeed.ok()) {
      PrintError(infeed.status());
      return kExitBadInput;
    }
    absl::MutexLock lock(&feeds.mu);
    for (Literal& v : *infeed) feeds.infeed.push_back(std::move(v));
  }
  execute_options.feeds = &feeds;
  // The inputs are not needed afterwards: weights a step returns unchanged
  // are handed over instead of copied.
  repl::RunMonitor monitor(&exe);  // Ctrl-C says where the run was; progress on a terminal
  execute_options.position = monitor.position();
  auto result = exe.ExecuteDonated(absl::MakeSpan(*arguments), execute_options);
  monitor.Stop();
  {
    absl::MutexLock lock(&feeds.mu);
    std::vector<std::string> printed;
    for (const Literal& v : feeds.outfeed) printed.push_back(v.ToString());
    PrintOutfeed("", printed);
  }
  if (!result.ok()) {
    if (auto failure = GetCheckFailure(result.status())) {
      std::fprintf(stderr, "hlovm: %s\n", FormatCheckFailure(*failure).c_str());
      return kExitFailed;
    }
    PrintError(result.status());
    return ExitCodeFor(result.status(), /*during_execution=*/true);
  }

  return EmitResults({RunResult{-1, -1, &*result}}, flags);
}

}  // namespace

HLOVM_REGISTER_COMMAND(run, "run",
                       "hlovm run [--random[=SEED]] [--print=MODE] [--output=DIR|FILE.npz|FILE.npy|"
                       "FILE.json] [FLAGS] FILE.hlo [INPUT...]",
                       "run the entry computation; inputs are HLO literals ('f32[2] {1, 2}', "
                       "every element written; fill(VALUE) repeats one), .npy files or an .npz "
                       "(matched by order, or by parameter name); an input of another element type "
                       "needs --convert-inputs; results print as HLO literals, arrays of more than "
                       "1000 elements summarized",
                       {cli::FlagGroup::kCompile, cli::FlagGroup::kExecute,
                        cli::FlagGroup::kInstances, cli::FlagGroup::kInputs,
                        cli::FlagId::kPerReplica, cli::FlagId::kInfeed, cli::FlagId::kOutput,
                        cli::FlagId::kPrint, cli::FlagId::kDumpAfterPasses},
                       Run);

}  // namespace hlovm
