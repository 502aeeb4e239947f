// Internal to vm/: how the compiler lowers one HLO instruction to bytecode.
// Each op family provides its lowering functions in its own vm/lower_*.cc
// file and registers them in a LoweringTable; compiler.cc owns the table.
// The builder (lowering.cc) and this interface form the hlovm_bytecode
// library with the bytecode and the executor, below the compiler.
#ifndef HLOVM_VM_LOWERING_H_
#define HLOVM_VM_LOWERING_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "ops/elementwise/elementwise.h"
#include "ops/reduce/reduce.h"
#include "ops/reduce/reduce_window.h"
#include "vm/bytecode.h"

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
    const void* plan = nullptr;
    std::vector<Reg> in, out;
    int64_t cost = 0;
    std::string mnemonic;
    std::string variant;
    uint32_t inplace_mask = 0;
    bool side_effect = false;
    std::string detail;  // extra disassembly lines (a fused region's program)
    const FusedWork* fused = nullptr;  // a fused region's work (profiler)
  };
  // Appends an instruction for `hlo`; returns its index.
  int32_t Emit(const HloInstruction* hlo, EmitSpec spec);

 private:
  LoweringContext* compiler_;
  Program* program_;
  Function* fn_;
};

// Emits `to := from` (a buffer copy; loop state, materialised aliases).
void EmitCopy(FunctionBuilder& b, const HloInstruction* hlo, Reg from, Reg to,
              std::string variant);

// The kernel of one elementwise instruction (unary, binary, compare, select,
// clamp, convert, reduce-precision), chosen for its element types. Both the
// op-by-op handlers and fused regions (vm/fusion.h) call it, so a fused
// region computes the same bits.
struct ElementwiseKernel {
  enum Kind : uint8_t { kUnary, kBinary, kTernary, kReducePrecision };
  Kind kind = kUnary;
  UnaryKernel unary = nullptr;  // also convert
  BinaryKernel binary = nullptr;
  TernaryKernel ternary = nullptr;
  ReducePrecisionKernel reduce_precision;
  int arity = 0;
  int in_size[3] = {0, 0, 0};  // operand element widths in bytes
  int out_size = 0;
  unsigned scalar_mask = 0;  // ternary operands that are one element
  std::string variant;       // for the disassembly, e.g. "f32 GT"
};
// Fails for an instruction that is not elementwise, whose operands do not
// match its shape, or whose types have no kernel.
absl::StatusOr<ElementwiseKernel> SelectElementwiseKernel(const HloInstruction& instr);

// A single-operand reduce whose reducer is one elementwise op and whose
// reduced dimensions are the innermost ones (each output folds one
// contiguous run of `g.inner` elements with `fold`/`op`, exactly as the
// op-by-op reduce does): fused regions may feed it rows they compute
// (vm/fusion.h). Nullopt for every other reduce.
struct RowReduce {
  ReduceGeometry g;
  int elem_size = 0;
  BinaryKernel op = nullptr;
  RunFoldKernel fold = nullptr;
  RowFold4Kernel fold4 = nullptr;  // column reduces: four rows a pass, or null
  HloOpcode opcode = HloOpcode::kAdd;
};
std::optional<RowReduce> SelectRowReduce(const HloInstruction& reduce);
// The same for a reduce whose innermost dimension is kept (a column reduce,
// `g.runs` false): each output column folds its reduced elements in order,
// row after row, as the op-by-op reduce does.
std::optional<RowReduce> SelectColumnReduce(const HloInstruction& reduce);

// A reduce-window that folds whole rows (ops/reduce/reduce_window.h
// WindowRowView): one operand and a one-op reducer with a vectorized kernel.
struct WindowReduce {
  WindowGeometry g;
  WindowRowView rows;
  int elem_size = 0;
  BinaryKernel op = nullptr;
  HloOpcode opcode = HloOpcode::kAdd;
};
std::optional<WindowReduce> SelectWindowRows(const HloInstruction& reduce_window);

// Registration of each op family's lowerings (one per vm/lower_*.cc file).
void RegisterControlLowerings(LoweringTable& table);
void RegisterElementwiseLowerings(LoweringTable& table);
void RegisterShapeLowerings(LoweringTable& table);
void RegisterShapeOpLowerings(LoweringTable& table);
void RegisterIndexingLowerings(LoweringTable& table);
void RegisterSortLowerings(LoweringTable& table);
void RegisterReduceLowerings(LoweringTable& table);
void RegisterDotLowerings(LoweringTable& table);
// Emits `instr` (whose result shape has the bytes of `dot_shape`) as the dot
// of `lhs` and `rhs` with `dnums`.
absl::Status EmitDotAs(FunctionBuilder& b, const HloInstruction& instr, Reg lhs, Reg rhs,
                       const Shape& lhs_shape, const Shape& rhs_shape, const Shape& dot_shape,
                       const DotDimensionNumbers& dnums, ValueDesc* result);
void RegisterConvLowerings(LoweringTable& table);
void RegisterCustomCallLowering(LoweringTable& table);
void RegisterFftLowerings(LoweringTable& table);
void RegisterNormLowerings(LoweringTable& table);
void RegisterCollectiveLowerings(LoweringTable& table);
void RegisterRngLowerings(LoweringTable& table);
void RegisterLinalgLowerings(LoweringTable& table);

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
