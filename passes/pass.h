// What every pass returns: how many rewrites it made and a short account for
// the disassembly header ("removed 12 instructions, 1 computation").
#ifndef HLOVM_PASSES_PASS_H_
#define HLOVM_PASSES_PASS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/hlo_ir.h"

namespace hlovm::passes {

struct PassResult {
  int64_t changes = 0;
  std::string detail;
  // The computations the pass added instructions to, where it keeps track
  // (while-loop code motion: the loops' callers).
  std::vector<const HloComputation*> grown;
};

class NameUniquer;  // passes/ir_util.h: the passes that create instructions name them with one

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_PASS_H_
