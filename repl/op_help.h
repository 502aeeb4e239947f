// `:help OPCODE`: for every opcode of core/hlo_opcode.h, its operands, the
// syntax of its attributes, what it computes and an example the REPL runs
// (op_help_test.cc runs them all).
#ifndef HLOVM_REPL_OP_HELP_H_
#define HLOVM_REPL_OP_HELP_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/hlo_opcode.h"

namespace hlovm {
namespace repl {

struct OpHelp {
  HloOpcode opcode;
  absl::string_view operands;    // "x, y"
  absl::string_view attributes;  // their syntax: "dimensions={D,...}, to_apply=COMPUTATION"
  absl::string_view meaning;
  // REPL inputs, one per line (a computation spans lines until it closes),
  // that end by running the op.
  absl::string_view example;
  // False for the few opcodes hlovm parses and verifies but cannot run yet:
  // their example then fails with "not implemented".
  bool implemented = true;
};

// One entry per opcode, in the order of the opcode list.
absl::Span<const OpHelp> OpHelpEntries();
// The entry of `opcode` (every opcode has one).
const OpHelp& FindOpHelp(HloOpcode opcode);

}  // namespace repl
}  // namespace hlovm

#endif  // HLOVM_REPL_OP_HELP_H_
