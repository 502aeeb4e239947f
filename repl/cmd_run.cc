// `hlovm run FILE.hlo [INPUT...]` (also `hlovm FILE.hlo ...`): runs a module's
// entry computation on inputs given as HLO literals, .npy files or random
// values, and prints the results as HLO literals (or writes .npy files).
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
#include "core/shape.h"
#include "core/status_macros.h"
#include "repl/command.h"
#include "repl/inputs.h"
#include "repl/options.h"
#include "repl/run_monitor.h"
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

absl::Status WriteResults(const Literal& result, const std::string& dir, const std::string& stem,
                          std::vector<std::string>* written) {
  if (result.shape().IsTuple()) {
    const auto& elements = result.tuple_elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      HLOVM_RETURN_IF_ERROR(WriteResults(elements[i], dir, absl::StrCat(stem, "_", i), written));
    }
    return absl::OkStatus();
  }
  if (!result.shape().IsArray()) return absl::OkStatus();  // tokens
  const std::string path = (std::filesystem::path(dir) / (stem + ".npy")).string();
  HLOVM_RETURN_IF_ERROR(WriteNpy(result, path));
  std::string note;
  if (NpyStorageType(result.shape().element_type()) != result.shape().element_type()) {
    note = absl::StrCat(" (", Sv(ElementTypeName(result.shape().element_type())), " widened to ",
                        Sv(ElementTypeName(NpyStorageType(result.shape().element_type()))), ")");
  }
  written->push_back(path + note);
  return absl::OkStatus();
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
    auto value = ParseLiteral(arg);
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

// Checks the --output directory: an existing directory, or one whose
// parent exists (only the directory itself is ever created, never a chain
// of them from a mistyped path). With `create`, creates it when missing.
// InvalidArgument names the flag.
absl::Status PrepareOutputDir(const std::string& dir, bool create) {
  namespace fs = std::filesystem;
  const std::string flag = absl::StrCat("--output=", dir);
  fs::path path(dir);
  if (path.has_parent_path() && path.filename().empty()) path = path.parent_path();  // "out/"
  std::error_code ec;
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

// Writes `result` as .npy files named `stem`... into the --output
// directory, and lists them on stdout.
int WriteOutput(const std::string& dir, const std::vector<std::pair<std::string, const Literal*>>& results) {
  if (absl::Status status = PrepareOutputDir(dir, /*create=*/true); !status.ok()) {
    std::fprintf(stderr, "hlovm: %s\n", std::string(status.message()).c_str());
    return kExitBadInput;
  }
  std::vector<std::string> written;
  for (const auto& [stem, result] : results) {
    if (absl::Status status = WriteResults(*result, dir, stem, &written); !status.ok()) {
      PrintError(status);
      return kExitBadInput;
    }
  }
  for (const std::string& w : written) std::printf("wrote %s\n", w.c_str());
  return kExitOk;
}

// Names instance `id` of a run with `partitions` partitions.
std::string InstanceName(int64_t id, int64_t partitions) {
  if (partitions == 1) return absl::StrCat("replica ", id);
  return absl::StrCat("replica ", id / partitions, " partition ", id % partitions);
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
  if (MpiLauncherSize() > 1) {
    DistributedRun run = ExecuteOverMpi(exe, argument_sets, options);
    if (!run.error.ok()) {
      if (run.rank == 0) PrintError(run.error);
      return ExitCodeFor(run.error, /*during_execution=*/false);
    }
    results = std::move(run.results);
    outfeed = std::move(run.outfeed);
    reports = run.local;
    prints = run.rank == 0;
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
  if (!prints) return any_failed ? (code == kExitOk ? static_cast<int>(kExitFailed) : code) : kExitOk;
  if (any_failed) return code == kExitOk ? static_cast<int>(kExitFailed) : code;
  if (const std::string& output = run_options.flags.output; !output.empty()) {
    // One set of files per instance: replica0_result.npy, or
    // replica0_partition1_result.npy with partitions.
    std::vector<std::pair<std::string, const Literal*>> files;
    for (int64_t id = 0; id < instances; ++id) {
      const std::string who = partitions == 1
                                  ? absl::StrCat("replica", id)
                                  : absl::StrCat("replica", id / partitions, "_partition", id % partitions);
      files.emplace_back(who + "_result", &*results[id]);
    }
    return WriteOutput(output, files);
  }
  bool identical = true;
  for (int64_t id = 1; id < instances; ++id) {
    identical = identical && results[id]->BitwiseEqual(*results[0]);
  }
  if (identical) {
    std::printf("%s: %s\n", partitions == 1 ? absl::StrCat("replicas 0-", instances - 1).c_str()
                                            : absl::StrCat("all ", instances, " instances").c_str(),
                results[0]->ToString().c_str());
    return kExitOk;
  }
  for (int64_t id = 0; id < instances; ++id) {
    std::printf("%s: %s\n", InstanceName(id, partitions).c_str(), results[id]->ToString().c_str());
  }
  return kExitOk;
}

int Run(const std::vector<std::string>& args, const cli::Options& options) {
  const cli::Flags& flags = options.flags;
  if (args.empty()) {
    std::fprintf(stderr, "usage: hlovm run [FLAGS] FILE.hlo [INPUT...] (`hlovm run --help` lists "
                         "the flags)\n");
    return kExitBadInput;
  }
  const std::string& file = args[0];
  // A bad --output fails before the program runs.
  if (!flags.output.empty()) {
    if (absl::Status status = PrepareOutputDir(flags.output, /*create=*/false); !status.ok()) {
      std::fprintf(stderr, "hlovm: %s\n", std::string(status.message()).c_str());
      return kExitBadInput;
    }
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
  for (int64_t s = 0; s < sets; ++s) {
    parameters.insert(parameters.end(), exe.parameter_shapes().begin(),
                      exe.parameter_shapes().end());
  }
  auto arguments = MakeArguments(parameters, std::vector<std::string>(args.begin() + 1, args.end()),
                                 flags.random, flags.seed, file);
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

  if (const std::string& output = flags.output; !output.empty()) {
    return WriteOutput(output, {{"result", &*result}});
  }
  std::printf("%s\n", result->ToString().c_str());
  return kExitOk;
}

}  // namespace

HLOVM_REGISTER_COMMAND(run, "run",
                       "hlovm run [--random[=SEED]] [--output=DIR] [FLAGS] FILE.hlo [INPUT...]",
                       "run the entry computation; inputs are HLO literals ('f32[2] {1, 2}') or "
                       ".npy files; results print as HLO literals",
                       {cli::FlagGroup::kCompile, cli::FlagGroup::kExecute,
                        cli::FlagGroup::kInstances, cli::FlagGroup::kInputs,
                        cli::FlagId::kPerReplica, cli::FlagId::kInfeed, cli::FlagId::kOutput,
                        cli::FlagId::kDumpAfterPasses},
                       Run);

}  // namespace hlovm
