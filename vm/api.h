// The embedding API of hlovm: load HLO text, compile it to bytecode, execute
// it with literals. The command line, the REPL and the conformance runner are
// all clients of this header.
//
//   HLOVM_ASSIGN_OR_RETURN(auto exe, Executable::FromText(text, {.file_name = "m.hlo"}));
//   HLOVM_ASSIGN_OR_RETURN(Literal result, exe->Execute({&arg0, &arg1}));
//
// An Executable is immutable after compilation; Execute may be called from
// several threads at once (each call has its own registers).
#ifndef HLOVM_VM_API_H_
#define HLOVM_VM_API_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/literal.h"

namespace hlovm {

// How `constant({...})` literals whose values the text leaves out are filled.
enum class ElidedFill {
  kXla,    // XLA's parser's deterministic counter pattern (bit-for-bit replays)
  kZeros,  // all zeros
  kError,  // refuse the module
};

struct CompileOptions {
  std::string file_name;  // for error messages
  ElidedFill elided = ElidedFill::kXla;
  bool verify = true;     // run the verifier before compiling
};

// Read by the executor between instructions and at loop back-edges; costs
// nothing when unset.
struct ExecuteOptions {
  int threads = 0;                         // 0: all cores
  const std::atomic<bool>* cancel = nullptr;  // set to true to stop; Execute returns Cancelled
  int64_t replica_id = 0;
  int64_t partition_id = 0;
};

class Executable {
 public:
  virtual ~Executable() = default;

  static absl::StatusOr<std::unique_ptr<Executable>> FromText(std::string_view text,
                                                              const CompileOptions& options = {});
  static absl::StatusOr<std::unique_ptr<Executable>> FromModule(std::unique_ptr<HloModule> module,
                                                                const CompileOptions& options = {});

  virtual const HloModule& module() const = 0;
  // Shapes (with layouts) of the entry parameters and result.
  virtual const std::vector<Shape>& parameter_shapes() const = 0;
  virtual const Shape& result_shape() const = 0;
  // How many elided constants were filled (the command line warns about them).
  virtual int64_t elided_constants_filled() const = 0;

  // Runs the entry computation. Arguments must match parameter_shapes()
  // (layouts may differ; values are relaid). A failed check custom-call
  // returns its message with code kFailedPrecondition... see vm/custom_call.h.
  virtual absl::StatusOr<Literal> Execute(absl::Span<const Literal* const> arguments,
                                          const ExecuteOptions& options = {}) const = 0;

  // Readable bytecode (`hlovm dis`).
  virtual std::string Disassemble() const = 0;
};

}  // namespace hlovm

#endif  // HLOVM_VM_API_H_
