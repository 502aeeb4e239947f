// The pass pipeline between the verifier and the compiler.
//
//   --passes=none      nothing runs
//   --passes=default   inline, algsimp, fold, cse, zerotrip, unroll, licm,
//                      whiledce, dce (cse again, on the loops' callers, after
//                      licm when licm moved something)
//   --passes=a,b,...   those passes once each, in that order
//
// Every pass keeps the module's results bit-identical to the op-by-op run.
#ifndef HLOVM_PASSES_PIPELINE_H_
#define HLOVM_PASSES_PIPELINE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/name_keys.h"
#include "passes/constant_folding.h"

namespace hlovm::passes {

// What ran: one entry per pass run, in order.
struct PipelineReport {
  struct Entry {
    std::string pass;
    int64_t changes = 0;
    std::string detail;
    double seconds = 0;  // CPU time of the thread
  };
  std::vector<Entry> entries;
  double seconds = 0;

  // One line per pass name (runs summed), for the disassembly header:
  // "// pass dce: removed 12 instructions, 0 computations (2 runs, 0.1 ms)".
  std::string ToString() const;
};

// The names `--passes=` accepts besides none and default.
std::vector<std::string> PassNames();

// Checks a --passes= value without running anything.
absl::Status ValidatePassSpec(std::string_view spec);

struct PipelineOptions {
  // Evaluates one instruction with constant operands (for `fold`); without
  // one, fold changes nothing.
  ConstantEvaluator evaluate;
  // The module's names as the verifier found them (VerifyOptions::name_keys;
  // moved from), so that the passes need not collect them again; only valid
  // for the module as verified.
  ModuleNameKeys* name_keys = nullptr;
};

absl::StatusOr<PipelineReport> RunPipeline(HloModule& module, std::string_view spec,
                                           const PipelineOptions& options = {});

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_PIPELINE_H_
