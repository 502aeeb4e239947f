// How one HLO instruction is lowered to bytecode: the interface between the
// compiler (vm/compiler.h) and the op families. Each family lowers its ops
// in ops/<family>/*_lower.cc and registers them in the LoweringTable
// (ops/lowerings.h); vm/compiler.cc owns the one table. The builder
// (lowering.cc) and this interface belong to the hlovm_bytecode library with
// the bytecode and the executor, below hlovm_ops, which the compiler links.
#ifndef HLOVM_VM_LOWERING_H_
#define HLOVM_VM_LOWERING_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "vm/bytecode.h"
#include "vm/compile_options.h"

namespace hlovm {
namespace vm {

// Where an HLO value lives: one register per leaf array (Lua's `expdesc`).
using ValueDesc = std::vector<Reg>;

// Appends the leaf array shapes of `shape` in flattening order (a token is a
// leaf; an empty tuple has none).
void FlattenShape(const Shape& shape, std::vector<const Shape*>* leaves);
int64_t LeafCount(const Shape& shape);
// `shape` with its layout replaced by the row-major one (arrays only).
Shape RowMajorShape(const Shape& shape);
// True when data stored with `shape`'s layout is already in row-major order
// (dimensions of size 1 do not count).
bool IsEffectivelyRowMajor(const Shape& shape);

class FunctionBuilder;

// What a lowering may ask of the compiler driving it (vm/compiler.h
// implements it): lowerings live with their op families in ops/ and link
// only this interface library, not the compiler.
class LoweringContext {
 public:
  virtual ~LoweringContext() = default;
  // Compiles `computation` as a function of its own (cached); `while_body`
  // makes every changed result leaf an owned register of the function so
  // that a loop can carry it by pointer.
  virtual absl::StatusOr<const Function*> CompileFunction(const HloComputation& computation,
                                                          bool while_body) = 0;
  // Lowers `computation` into the function being built, its parameters bound
  // to `args` (call and fusion inline their callee this way).
  virtual absl::Status LowerComputation(FunctionBuilder& b, const HloComputation& computation,
                                        absl::Span<const ValueDesc> args, ValueDesc* result) = 0;
  virtual const HloModule& module() const = 0;
  // Order of check custom-calls in the program (failures report the first).
  virtual int64_t NextCheckOrder() = 0;
  // The options the module is compiled with.
  virtual const CompilerOptions& options() const = 0;
};

// Three quarters of physical memory: the most the buffers of one module may
// take. Beyond it a run would end in the kernel's out-of-memory killer
// rather than in an error.
int64_t MemoryLimitBytes();

// Lowers `instr`; `operands` are the descriptors of its operands. Sets
// `*result` to where its value lives (new registers, or existing ones for
// aliases such as tuple and reshape).
using LowerFn = absl::Status (*)(FunctionBuilder& b, const HloInstruction& instr,
                                 absl::Span<const ValueDesc* const> operands, ValueDesc* result);
using LoweringTable = std::array<LowerFn, HloOpcodeCount()>;

// Emitting code into one Function.
class FunctionBuilder {
 public:
  FunctionBuilder(LoweringContext* compiler, Program* program, Function* fn)
      : compiler_(compiler), program_(program), fn_(fn) {}

  Program& program() { return *program_; }
  Function& function() { return *fn_; }
  LoweringContext& compiler() { return *compiler_; }

  // A new register for a leaf array (or token) of `shape`. Fails cleanly when
  // the array is too large to allocate.
  absl::StatusOr<Reg> NewReg(RegKind kind, const Shape& shape);
  // New owned registers for every leaf of `shape`.
  absl::StatusOr<ValueDesc> NewOwnedValue(const Shape& shape);

  struct EmitSpec {
    Handler handler = nullptr;
    HandlerKind kind = HandlerKind::kCopy;  // what the handler does (vm/bytecode.h)
    const void* plan = nullptr;
    std::vector<Reg> in, out;
    int64_t cost = 0;
    std::string variant;
    uint32_t inplace_mask = 0;
    bool side_effect = false;
    std::string detail;  // extra disassembly lines (a fused region's program)
    const FusedWork* fused = nullptr;  // a fused region's work (profiler)
  };
  // Appends an instruction for `hlo`; returns its index.
  int32_t Emit(const HloInstruction* hlo, EmitSpec spec);

  // Orders instruction `before` of this function ahead of `after` although
  // no register connects them (an HLO control-predecessor edge); the buffer
  // plan and the scheduler keep the order.
  void AddControlEdge(int32_t before, int32_t after) { control_edges_.emplace_back(before, after); }
  const std::vector<std::pair<int32_t, int32_t>>& control_edges() const { return control_edges_; }

 private:
  LoweringContext* compiler_;
  Program* program_;
  Function* fn_;
  std::vector<std::pair<int32_t, int32_t>> control_edges_;
};

// Emits `to := from` (a buffer copy; loop state, materialised aliases):
// the `copy` instruction.
void EmitCopy(FunctionBuilder& b, const HloInstruction* hlo, Reg from, Reg to,
              std::string variant);

// Splits [0, n) into chunks of `chunk` and runs fn(begin, end) for each, in
// parallel when the context has several threads and there is more than one
// chunk. The split never depends on the thread count.
template <typename Fn>
void ForEachChunk(const ExecContext& ctx, int64_t n, int64_t chunk, Fn&& fn);

// Bytes above which a kernel splits its work across threads, and the bytes
// per chunk.
inline constexpr int64_t kParallelKernelBytes = 256 * 1024;
inline constexpr int64_t kChunkBytes = 64 * 1024;

}  // namespace vm
}  // namespace hlovm

#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/partitioner.h"

namespace hlovm {
namespace vm {

template <typename Fn>
void ForEachChunk(const ExecContext& ctx, int64_t n, int64_t chunk, Fn&& fn) {
  if (chunk <= 0) chunk = 1;
  const int64_t chunks = (n + chunk - 1) / chunk;
  if (ctx.threads <= 1 || chunks <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  tbb::parallel_for(
      tbb::blocked_range<int64_t>(0, chunks, 1),
      [&](const tbb::blocked_range<int64_t>& r) {
        for (int64_t c = r.begin(); c < r.end(); ++c) {
          fn(c * chunk, std::min(n, (c + 1) * chunk));
        }
      },
      tbb::simple_partitioner());
}

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_LOWERING_H_
