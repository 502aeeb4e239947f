// The HLO verifier: checks that a parsed module is well formed before it is
// compiled. Structural checks (one entry, unique names, dense parameter
// numbers, operand counts from the opcode table, called computations'
// signatures, no recursion, no cycles, entry_computation_layout, replica and
// partition counts within ValidateInstanceCounts) plus, for every
// instruction, that its shape passes ValidateShape (and has no `?` unless
// allowed) and that the declared shape agrees with the shape inferred
// by the op's shape rule (frontend/shape_inference.h, over ops/*_shape.h;
// layouts are ignored unless asked for, as XLA's verifier does by default).
//
// Errors are InvalidArgument statuses holding one located message per
// problem: `file:line:col: error: %name (opcode): message`, then the source
// line and a caret, for up to VerifyOptions::max_errors problems.
#ifndef HLOVM_FRONTEND_VERIFIER_H_
#define HLOVM_FRONTEND_VERIFIER_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/name_keys.h"
#include "frontend/shape_inference.h"  // InferInstructionShape, for callers of this header

namespace hlovm {

struct VerifyOptions {
  // Replica and partition counts the module will run with (collectives'
  // group sizes depend on them); default: the module's own.
  std::optional<int64_t> replica_count;
  std::optional<int64_t> num_partitions;
  // Compare layouts of declared and inferred shapes too.
  bool layout_sensitive = false;
  // Let floating point types of different precision meet where XLA's
  // verifier allows it (its default for test modules): operands of one
  // instruction of different float types, and a declared result type that
  // differs from the inferred one in precision only. hlovm's kernels compute
  // each instruction in one type and do not convert, so by default (as XLA's
  // verifier outside tests) such instructions are refused; convert first.
  bool allow_mixed_precision = false;
  // Accept unbounded dynamic dimensions (`?`) where the shape rules do, as
  // XLA's verifier does. hlovm cannot run them (it allocates every value at
  // its size or bound), so by default every instruction's shape that has one
  // is refused (CheckNoUnboundedDimension in core/shape.h).
  bool allow_unbounded_dynamic = false;
  // Report at most this many problems (at least one); the message ends with
  // the count of those left out.
  int max_errors = 20;
  // Where not null and the module is valid: receives the hashes of its
  // computations' and instructions' names (for the passes' name uniquer).
  ModuleNameKeys* name_keys = nullptr;
};

// Checks the whole module; OK or InvalidArgument listing every problem found.
absl::Status VerifyModule(const HloModule& module, const VerifyOptions& options = {});

}  // namespace hlovm

#endif  // HLOVM_FRONTEND_VERIFIER_H_
