// The profiler behind `hlovm bench --profile` and `--trace`: the executor
// records one event per executed bytecode instruction (and one per while-loop
// iteration) while ExecuteOptions::profiler is set; without it the executor
// runs its plain loops and records nothing.
//
//   Profiler profiler;
//   ExecuteOptions options;
//   options.profiler = &profiler;
//   exe->Execute(args, options);
//   ProfileReport report = BuildProfileReport(profiler.TakeEvents(), roofline);
//
// Events are kept per thread (no lock on the hot path) and merged when taken.
// Times are wall-clock nanoseconds on a steady clock.
#ifndef HLOVM_VM_PROFILER_H_
#define HLOVM_VM_PROFILER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/hlo_ir.h"

namespace hlovm {

// The work of one bytecode instruction that stands for several HLO
// instructions (a fused region): counted as a whole, named "fusion".
struct FusedWork {
  double flops = 0;
  double bytes = 0;
  int64_t ops = 0;  // HLO instructions fused
};

struct ProfileEvent {
  enum class Kind : uint8_t { kInstruction, kIteration };
  Kind kind = Kind::kInstruction;
  const HloInstruction* hlo = nullptr;  // the instruction, or the while loop of an iteration
  const FusedWork* fused = nullptr;     // set for a fused region (hlo is its root)
  int32_t instance = 0;                 // replica * partitions + partition (trace process)
  const HloComputation* computation = nullptr;  // the function it ran in
  int64_t iteration = -1;                       // kIteration: 0-based trip number
  int64_t begin_ns = 0, end_ns = 0;
  int32_t thread = 0;  // small per-profiler thread number (trace track)
};

class Profiler {
 public:
  Profiler();
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  static int64_t NowNs();
  // What recording one event costs the instruction around it (measured once).
  static int64_t EventOverheadNs();

  // Appends an event to the calling thread's buffer (sets its `thread`).
  void Record(ProfileEvent event);
  // All events recorded so far, ordered by (thread, begin); clears them.
  std::vector<ProfileEvent> TakeEvents();

 private:
  struct ThreadBuffer;
  ThreadBuffer& Local();

  const uint64_t id_;  // distinguishes profilers in the thread-local cache
  absl::Mutex mu_;
  std::vector<std::unique_ptr<ThreadBuffer>> buffers_ ABSL_GUARDED_BY(mu_);
};

// What one HLO instruction computes and moves, for the roofline: floating-
// point (or integer) operations and bytes read plus written.
struct InstructionCost {
  double flops = 0;
  double bytes = 0;
};
InstructionCost EstimateCost(const HloInstruction& instr);

// The `metadata={op_name="..." source_file="..." source_line=N}` of an
// instruction, as far as it is given.
struct OpMetadata {
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  std::string SourceLocation() const;  // "file:line" or ""
};
OpMetadata GetOpMetadata(const HloInstruction& instr);

// This machine's limits, the roofline's two slopes.
struct Roofline {
  double peak_gflops = 0;  // f32 FMA, all threads used
  double peak_gbps = 0;    // memory bandwidth, bytes read + written
};

// One row of a profile table.
struct ProfileRow {
  std::string key;       // opcode, instruction name or op_name prefix
  std::string detail;    // shape / metadata shown beside the key
  int64_t calls = 0;
  int64_t self_ns = 0;   // time in this row's instructions minus nested ones
  double flops = 0, bytes = 0;
  double gflops() const { return self_ns > 0 ? flops / self_ns : 0; }
  double gbps() const { return self_ns > 0 ? bytes / self_ns : 0; }
  // The roofline's bound for this work over the time it took (0..1).
  double RooflineFraction(const Roofline& roofline) const;
};

enum class ProfileGrouping { kOpcode, kInstruction, kOpName };

// Aggregates events into rows, longest self time first. Control-flow
// instructions (while, conditional, call) count only their own overhead:
// the time of nested instructions goes to those instructions, and
// `overhead_ns` per nested event (Profiler::EventOverheadNs, the cost of
// recording it) is taken off too. With several threads, time a loop waits
// for its body's work on other threads counts as the loop's own.
std::vector<ProfileRow> AggregateProfile(const std::vector<ProfileEvent>& events,
                                         ProfileGrouping grouping, int op_name_depth = 2,
                                         int64_t overhead_ns = 0);

// Sum of self times (the busy time of all threads).
int64_t TotalSelfNs(const std::vector<ProfileEvent>& events, int64_t overhead_ns = 0);

// Chrome trace-event JSON (Perfetto, chrome://tracing): one track per thread,
// one complete event per instruction (name, shape, bytes, op_name), while
// iterations as enclosing slices. `process_name` labels the process track.
std::string ChromeTraceJson(const std::vector<ProfileEvent>& events,
                            const std::string& process_name);

}  // namespace hlovm

#endif  // HLOVM_VM_PROFILER_H_
