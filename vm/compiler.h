// The bytecode compiler: turns a (verified) HloModule into a Program.
//
// Per computation it schedules the instructions (data dependencies, control
// predecessors, side-effect order; code not reachable from ROOT is dropped
// unless it has side effects), lowers each instruction through the lowering
// table (call and fusion are inlined; while and conditional bodies become
// functions of their own), then plans buffers (vm/buffer_plan.h). Not
// thread-safe; the Program it returns is immutable and shareable.
//
// Fusion: unless turned off, regions of elementwise instructions (with the
// reshapes and broadcasts they read) compile to one `fusion` instruction each
// that runs them tile by tile with no intermediate array (vm/fusion.h).
#ifndef HLOVM_VM_COMPILER_H_
#define HLOVM_VM_COMPILER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "vm/bytecode.h"
#include "vm/compile_options.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {

class Compiler final : public LoweringContext {
 public:
  explicit Compiler(const HloModule& module, const CompilerOptions& options = {});

  // Compiles the entry computation and everything it calls.
  absl::StatusOr<std::unique_ptr<Program>> Compile();

  // For lowerings (see LoweringContext in vm/lowering.h).
  absl::StatusOr<const Function*> CompileFunction(const HloComputation& computation,
                                                  bool while_body) override;
  absl::Status LowerComputation(FunctionBuilder& b, const HloComputation& computation,
                                absl::Span<const ValueDesc> args, ValueDesc* result) override;
  const HloModule& module() const override { return module_; }
  int64_t NextCheckOrder() override { return next_check_order_++; }
  const CompilerOptions& options() const override { return options_; }

 private:
  const HloModule& module_;
  CompilerOptions options_;
  std::unique_ptr<Program> program_;
  absl::flat_hash_map<std::pair<const HloComputation*, bool>, const Function*> compiled_;
  int64_t next_check_order_ = 0;
  int inline_depth_ = 0;
};

// Compiles `module` (see Compiler).
absl::StatusOr<std::unique_ptr<Program>> CompileModule(const HloModule& module,
                                                       const CompilerOptions& options = {});

// The execution order of `computation`'s instructions: every instruction
// after its operands and control predecessors, side-effecting instructions
// in the order written, instructions that neither ROOT nor a side effect
// needs left out.
absl::StatusOr<std::vector<const HloInstruction*>> ScheduleComputation(
    const HloComputation& computation);

// The mnemonics of a function's instructions in order (compiler tests).
std::vector<std::string> Mnemonics(const Function& fn);

// Readable bytecode of every function (`hlovm dis`).
std::string DisassembleProgram(const Program& program);

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_COMPILER_H_
