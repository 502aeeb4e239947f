// `hlovm bench FILE.hlo [INPUT...]`: times a module. Parse, verify and
// compile times; run time over iterations (min, median, max); memory (the
// buffer plan, constants, inputs, the process's peak RSS); with --profile a
// table per opcode and per instruction (or per op_name prefix) with achieved
// GFLOP/s and GB/s against this machine's roofline; with --trace a Chrome
// trace-event file of one run.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "frontend/parser.h"
#include "frontend/verifier.h"
#include "repl/command.h"
#include "repl/inputs.h"
#include "repl/options.h"
#include "repl/run_monitor.h"
#include "repl/source_file.h"
#include "vm/api.h"
#include "vm/check_failure.h"
#include "vm/mpi_run.h"
#include "vm/profiler.h"
#include "vm/roofline.h"

namespace hlovm {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::string Bytes(double bytes) {
  if (bytes >= 1e9) return absl::StrFormat("%.2f GB", bytes * 1e-9);
  if (bytes >= 1e6) return absl::StrFormat("%.2f MB", bytes * 1e-6);
  if (bytes >= 1e3) return absl::StrFormat("%.1f kB", bytes * 1e-3);
  return absl::StrFormat("%.0f B", bytes);
}

std::string Duration(double ms) {
  if (ms >= 1000) return absl::StrFormat("%.3f s", ms * 1e-3);
  if (ms >= 1) return absl::StrFormat("%.3f ms", ms);
  return absl::StrFormat("%.1f us", ms * 1e3);
}

int64_t PeakRssBytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux: kilobytes
}

// The resident set now (0 where /proc is not there).
int64_t CurrentRssBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long long pages = 0, resident = 0;
  const int got = std::fscanf(f, "%lld %lld", &pages, &resident);
  std::fclose(f);
  return got == 2 ? resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

int Fail(const absl::Status& status, bool during_execution) {
  if (auto failure = GetCheckFailure(status)) {
    std::fprintf(stderr, "hlovm: %s\n", FormatCheckFailure(*failure).c_str());
    return kExitFailed;
  }
  std::fprintf(stderr, "hlovm: %s\n", std::string(status.message()).c_str());
  const int code = ExitCodeForStatus(status);
  return during_execution || code != kExitFailed ? code : kExitBadInput;
}

void PrintTable(const char* title, const std::vector<ProfileRow>& rows, int64_t total_ns,
                const Roofline& roofline, int top, bool details) {
  std::printf("\n%s (self time; top %d of %zu)\n", title, std::min<int>(top, rows.size()),
              rows.size());
  std::printf("  %-28s %8s %11s %10s %7s %9s %9s %9s\n", "", "calls", "total", "mean", "share",
              "GFLOP/s", "GB/s", "roofline");
  for (int i = 0; i < static_cast<int>(rows.size()) && i < top; ++i) {
    const ProfileRow& r = rows[i];
    std::string key = r.key;
    if (key.size() > 28) key = "..." + key.substr(key.size() - 25);
    const double total_ms = static_cast<double>(r.self_ns) * 1e-6;
    std::printf("  %-28s %8lld %11s %10s %6.1f%% %9.2f %9.2f %8.1f%%\n", key.c_str(),
                static_cast<long long>(r.calls), Duration(total_ms).c_str(),
                Duration(total_ms / std::max<int64_t>(r.calls, 1)).c_str(),
                total_ns > 0 ? 100.0 * static_cast<double>(r.self_ns) / static_cast<double>(total_ns)
                             : 0.0,
                r.gflops(), r.gbps(), 100.0 * r.RooflineFraction(roofline));
    if (details && !r.detail.empty()) std::printf("      %s\n", r.detail.c_str());
  }
}

std::string JsonRows(const std::vector<ProfileRow>& rows, int64_t total_ns, const Roofline& roofline,
                     int top) {
  std::string out = "[";
  for (int i = 0; i < static_cast<int>(rows.size()) && i < top; ++i) {
    const ProfileRow& r = rows[i];
    std::string key;
    for (char c : r.key) {
      if (c == '"' || c == '\\') key.push_back('\\');
      key.push_back(c);
    }
    absl::StrAppend(&out, i ? ",\n    " : "\n    ", "{\"key\": \"", key, "\", \"calls\": ", r.calls,
                    absl::StrFormat(", \"self_ms\": %.6f, \"share\": %.4f, \"gflops\": %.3f, "
                                    "\"gbps\": %.3f, \"roofline\": %.4f}",
                                    static_cast<double>(r.self_ns) * 1e-6,
                                    total_ns > 0 ? static_cast<double>(r.self_ns) / total_ns : 0.0,
                                    r.gflops(), r.gbps(), r.RooflineFraction(roofline)));
  }
  out.append("]");
  return out;
}

int Bench(const std::vector<std::string>& args, const cli::Options& options) {
  const cli::Flags& flags = options.flags;
  if (args.empty()) {
    std::fprintf(stderr,
                 "usage: hlovm bench [--random[=SEED]] [--iterations=N] [--warmup=N] [--profile] "
                 "[--trace=FILE.json] [FLAGS] FILE.hlo [INPUT...]\n");
    return kExitBadInput;
  }
  const std::string& file = args[0];
  const int iterations = flags.iterations;
  const int warmup = flags.warmup;
  const std::string by = flags.by;  // --by, like the counts, was checked by BuildOptions
  // What the process holds before the module (code, libraries, thread
  // pools): the peak RSS above it is what this module costs.
  const int64_t start_rss = CurrentRssBytes();
  auto text = ReadSourceFile(file);
  if (!text.ok()) return Fail(text.status(), false);

  // Parse, verify and compile, each timed.
  const Clock::time_point t0 = Clock::now();
  ParseOptions parse_options;
  parse_options.file_name = file;
  auto module = ParseHloModule(*text, parse_options);
  if (!module.ok()) return Fail(module.status(), false);
  const Clock::time_point t1 = Clock::now();
  if (absl::Status s = VerifyModule(**module); !s.ok()) return Fail(s, false);
  const Clock::time_point t2 = Clock::now();
  CompileOptions compile_options = options.compile;
  compile_options.file_name = file;
  compile_options.verify = false;  // just done
  auto executable = Executable::FromModule(std::move(*module), compile_options);
  if (!executable.ok()) return Fail(executable.status(), false);
  const Clock::time_point t3 = Clock::now();
  const Executable& exe = **executable;

  std::vector<std::string> names;
  for (const HloInstruction* p : exe.module().entry()->parameters()) names.push_back(p->name());
  auto arguments = PrepareArguments(exe.parameter_shapes(), names,
                                    std::vector<std::string>(args.begin() + 1, args.end()),
                                    InputOptions{.random = flags.random,
                                                 .seed = flags.seed,
                                                 .convert = flags.convert_inputs,
                                                 .announce = MpiSpeaksForJob()},
                                    flags.save_inputs, file);
  if (!arguments.ok()) return Fail(arguments.status(), false);
  std::vector<const Literal*> argument_ptrs;
  for (const Literal& a : *arguments) argument_ptrs.push_back(&a);

  // A replicated module runs every instance on the collective bus, all of
  // them with the same inputs; a run lasts until the last one ends. Under
  // mpirun the instances spread over the job's processes (vm/mpi_run.h):
  // a run is one ExecuteOverMpi in every process and lasts as long as the
  // slowest process's (each process keeps its instances' results, as one
  // process would: none are sent to rank 0); rank 0 reports (the others'
  // stdout is discarded and they write no files).
  std::optional<MpiSession> mpi;
  if (MpiLauncherSize() > 1) mpi.emplace();
  const bool reports = MpiSpeaksForJob();
  if (!reports && std::freopen("/dev/null", "w", stdout) == nullptr) return kExitFailed;
  const int64_t instances = std::max<int64_t>(1, exe.module().replica_count) *
                            std::max<int64_t>(1, exe.module().num_partitions);
  // Ctrl-C says where the run was; progress on a terminal (stopped while
  // the report prints).
  std::optional<repl::RunMonitor> monitor(std::in_place, &exe);
  auto run_once = [&](Profiler* profiler) -> absl::Status {
    if (mpi.has_value()) {
      ReplicatedOptions replicated = options.replicated;
      replicated.profiler = profiler;
      DistributedRun run = ExecuteOverMpi(exe, absl::MakeConstSpan(&argument_ptrs, 1), replicated,
                                          /*gather=*/false);
      absl::Status status = run.error;
      for (int64_t i = 0; status.ok() && i < static_cast<int64_t>(run.local.size()); ++i) {
        if (run.local[i]) status = run.results[i].status();
      }
      if (run.abandoned) {
        // The job broke: report and end, as `hlovm run` does.
        std::fprintf(stderr, "hlovm: %s\n", std::string(status.message()).c_str());
        EndAbandonedProcess(kExitFailed);
      }
      return status;
    }
    if (instances == 1) {
      ExecuteOptions execute = options.execute;
      execute.profiler = profiler;
      execute.position = monitor.has_value() ? monitor->position() : nullptr;
      // Parameters the module returns unchanged are handed to the result
      // and back, as a caller that donates its weights would run it.
      auto result = exe.ExecuteDonated(absl::MakeSpan(*arguments), execute);
      if (!result.ok()) return result.status();
      exe.ReturnDonated(*result, absl::MakeSpan(*arguments));
      return absl::OkStatus();
    }
    ReplicatedOptions replicated = options.replicated;
    replicated.profiler = profiler;
    replicated.position = monitor.has_value() ? monitor->position() : nullptr;
    for (const absl::StatusOr<Literal>& r :
         ExecuteReplicated(exe, absl::MakeConstSpan(&argument_ptrs, 1), replicated)) {
      if (!r.ok()) return r.status();
    }
    return absl::OkStatus();
  };
  for (int i = 0; i < warmup; ++i) {
    if (absl::Status s = run_once(nullptr); !s.ok()) {
      monitor.reset();  // clears the progress line first
      return Fail(s, true);
    }
  }
  std::vector<double> times;
  for (int i = 0; i < iterations; ++i) {
    const Clock::time_point begin = Clock::now();
    absl::Status s = run_once(nullptr);
    const double ms = Ms(Clock::now() - begin);
    times.push_back(mpi.has_value() && s.ok() ? mpi->Slowest(ms) : ms);
    if (!s.ok()) {
      monitor.reset();
      return Fail(s, true);
    }
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.size() % 2 == 1
                            ? sorted[sorted.size() / 2]
                            : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;

  const Executable::MemoryStats memory = exe.memory_stats();
  monitor.reset();
  std::printf("%s\n", file.c_str());
  std::printf("  parse     %s (%s/s)\n", Duration(Ms(t1 - t0)).c_str(),
              Bytes(static_cast<double>(text->size()) / std::max(1e-9, Ms(t1 - t0) * 1e-3)).c_str());
  std::printf("  verify    %s\n", Duration(Ms(t2 - t1)).c_str());
  std::printf("  compile   %s (passes %s CPU)\n", Duration(Ms(t3 - t2)).c_str(),
              Duration(exe.pass_seconds() * 1e3).c_str());
  std::printf("  run       min %s  median %s  max %s  (%d iteration%s, %d warm-up%s%s)\n",
              Duration(sorted.front()).c_str(), Duration(median).c_str(),
              Duration(sorted.back()).c_str(), iterations, iterations == 1 ? "" : "s", warmup,
              instances > 1 ? absl::StrCat(", ", instances, " instances").c_str() : "",
              mpi.has_value() ? absl::StrCat(" over ", MpiLauncherSize(), " processes").c_str()
                              : "");
  std::printf("  memory    buffers %s (entry %s + nested %s + results %s, against a largest live "
              "set of %s; %s if nothing were reused), constants %s, inputs %s\n",
              Bytes(static_cast<double>(memory.entry_arena_bytes + memory.nested_arena_bytes +
                                        memory.result_bytes)).c_str(),
              Bytes(static_cast<double>(memory.entry_arena_bytes)).c_str(),
              Bytes(static_cast<double>(memory.nested_arena_bytes)).c_str(),
              Bytes(static_cast<double>(memory.result_bytes)).c_str(),
              Bytes(static_cast<double>(memory.live_set_bytes)).c_str(),
              Bytes(static_cast<double>(memory.value_bytes)).c_str(),
              Bytes(static_cast<double>(memory.constant_bytes)).c_str(),
              Bytes(static_cast<double>(memory.parameter_bytes)).c_str());
  const int64_t peak_rss = PeakRssBytes();
  std::printf("  peak RSS  %s (%s above the %s held before reading the module)\n",
              Bytes(static_cast<double>(peak_rss)).c_str(),
              Bytes(static_cast<double>(peak_rss - start_rss)).c_str(),
              Bytes(static_cast<double>(start_rss)).c_str());

  std::string json = absl::StrFormat(
      "{\n  \"file\": \"%s\",\n  \"parse_ms\": %.3f, \"verify_ms\": %.3f, \"compile_ms\": %.3f, \"passes_ms\": %.3f,\n"
      "  \"run_ms\": {\"min\": %.3f, \"median\": %.3f, \"max\": %.3f, \"iterations\": %d},\n"
      "  \"memory\": {\"entry_arena\": %d, \"nested_arenas\": %d, \"results\": %d, \"constants\": %d, "
      "\"values_without_reuse\": %d, \"live_set\": %d, \"parameters\": %d, \"peak_rss\": %d, "
      "\"start_rss\": %d}",
      absl::CEscape(file), Ms(t1 - t0), Ms(t2 - t1), Ms(t3 - t2), exe.pass_seconds() * 1e3, sorted.front(), median,
      sorted.back(), iterations, memory.entry_arena_bytes, memory.nested_arena_bytes, memory.result_bytes,
      memory.constant_bytes, memory.value_bytes, memory.live_set_bytes, memory.parameter_bytes,
      peak_rss, start_rss);
  const std::string json_path = flags.json;
  auto write_json = [&]() {
    if (json_path.empty() || !reports) return kExitOk;
    std::ofstream out(json_path, std::ios::trunc);
    out << json << "\n}\n";
    if (!out) {
      std::fprintf(stderr, "hlovm: cannot write %s\n", json_path.c_str());
      return kExitBadInput;
    }
    return kExitOk;
  };

  const std::string trace = flags.trace;
  if (!flags.profile && trace.empty()) return write_json();

  // One more run, profiled.
  Profiler profiler;
  monitor.emplace(&exe);
  const Clock::time_point begin = Clock::now();
  if (absl::Status s = run_once(&profiler); !s.ok()) {
    monitor.reset();
    return Fail(s, true);
  }
  const double profiled_ms = Ms(Clock::now() - begin);
  monitor.reset();
  std::vector<ProfileEvent> events = profiler.TakeEvents();

  if (!trace.empty() && reports) {
    std::ofstream out(trace, std::ios::trunc);
    out << ChromeTraceJson(events, file);
    if (!out) {
      std::fprintf(stderr, "hlovm: cannot write the trace to %s\n", trace.c_str());
      return kExitBadInput;
    }
    std::printf("  trace     %s (%zu events)\n", trace.c_str(), events.size());
  }
  if (!flags.profile) return write_json();

  Roofline roofline{flags.peak_gflops, flags.peak_gbps};
  std::string roofline_source = "given";
  if (roofline.peak_gflops <= 0 || roofline.peak_gbps <= 0) {
    int threads = flags.threads;
    if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
    const Roofline measured = CachedRoofline(threads, &roofline_source);
    if (roofline.peak_gflops <= 0) roofline.peak_gflops = measured.peak_gflops;
    if (roofline.peak_gbps <= 0) roofline.peak_gbps = measured.peak_gbps;
  }
  const int64_t overhead_ns = Profiler::EventOverheadNs();
  const int64_t total_ns = TotalSelfNs(events, overhead_ns);
  std::printf("\nprofile   one run %s profiled (%zu events, %lld ns each taken off), %s in "
              "instructions; roofline %.1f GFLOP/s, %.1f GB/s (%s)\n",
              Duration(profiled_ms).c_str(), events.size(), static_cast<long long>(overhead_ns),
              Duration(static_cast<double>(total_ns) * 1e-6).c_str(),
              roofline.peak_gflops, roofline.peak_gbps, roofline_source.c_str());
  const int top = flags.top;  // at least 1 (its range)
  const std::vector<ProfileRow> by_opcode =
      AggregateProfile(events, ProfileGrouping::kOpcode, 0, overhead_ns);
  PrintTable("by opcode", by_opcode, total_ns, roofline, top, false);
  const std::vector<ProfileRow> second =
      by == "op_name" ? AggregateProfile(events, ProfileGrouping::kOpName,
                                         flags.op_name_depth, overhead_ns)
                      : AggregateProfile(events, ProfileGrouping::kInstruction, 0, overhead_ns);
  PrintTable(by == "op_name" ? "by op_name" : "by instruction", second, total_ns, roofline, top,
             by != "op_name");
  // The whole run against the roofline: all work over the busy time.
  ProfileRow all;
  for (const ProfileRow& r : by_opcode) {
    all.flops += r.flops;
    all.bytes += r.bytes;
  }
  all.self_ns = total_ns;
  absl::StrAppend(&json,
                  absl::StrFormat(",\n  \"profile\": {\"run_ms\": %.3f, \"busy_ms\": %.3f, "
                                  "\"peak_gflops\": %.2f, \"peak_gbps\": %.2f, \"roofline\": %.4f,\n"
                                  "   \"by_opcode\": ",
                                  profiled_ms, static_cast<double>(total_ns) * 1e-6,
                                  roofline.peak_gflops, roofline.peak_gbps,
                                  all.RooflineFraction(roofline)),
                  JsonRows(by_opcode, total_ns, roofline, top), ",\n   \"",
                  by == "op_name" ? "by_op_name" : "by_instruction", "\": ",
                  JsonRows(second, total_ns, roofline, top), "}");
  return write_json();
}

}  // namespace

HLOVM_REGISTER_COMMAND(bench, "bench",
                       "hlovm bench [--random] [--iterations=N] [--profile] [--trace=FILE.json] "
                       "[FLAGS] FILE.hlo [INPUT...]",
                       "time a module: parse/verify/compile, runs (min/median/max), memory; "
                       "--profile: per-op times against the roofline",
                       {cli::FlagGroup::kCompile, cli::FlagGroup::kExecute,
                        cli::FlagGroup::kInstances, cli::FlagGroup::kInputs,
                        cli::FlagId::kIterations, cli::FlagId::kWarmup, cli::FlagId::kProfile,
                        cli::FlagId::kTrace, cli::FlagId::kTop, cli::FlagId::kBy,
                        cli::FlagId::kOpNameDepth, cli::FlagId::kPeakGflops,
                        cli::FlagId::kPeakGbps, cli::FlagId::kJson},
                       Bench);

}  // namespace hlovm
