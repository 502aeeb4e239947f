// The bytecode hlovm executes: one Function per compiled computation, each a
// flat array of Instr over a register file, plus the Program that owns them.
//
// Registers and values. A register holds a pointer to one array buffer (or
// nothing, for tokens). An HLO value of tuple shape is a list of registers,
// one per leaf array, in flattening order; `tuple` and `get-tuple-element`
// therefore emit no code, they only regroup registers. Every array a
// register points to is row-major (layouts other than {n-1,...,0} are
// converted where values enter and leave the VM, and by relayout
// instructions for `bitcast`), so `reshape`, `copy` and most `bitcast`s are
// register aliases too.
//
// Register kinds (RegKind):
//   param  set by the caller before a function runs (never written)
//   const  points into the Program's constant pool (never written)
//   owned  a slice of the function's arena, at the offset of its slot
//   token  holds nothing
//
// Instruction encoding. Instructions are 48-byte records; the handler is
// resolved at compile time for the opcode, element types and shapes, so the
// dispatch loop is `for (pc...) if (!code[pc].handler(code[pc], regs, ctx))`
// with no switch and no lookups:
//
//   +-----------------+-----------------+-----------+-----------+---------+
//   | handler (fnptr) | plan (const*)   | in (Reg*) | out (Reg*)| n_in    |
//   |  8 bytes        |  8 bytes        |  8 bytes  |  8 bytes  | n_out   |
//   +-----------------+-----------------+-----------+-----------+---------+
//   | cost (bytes touched, int64; the scheduler's weight)                 |
//   +---------------------------------------------------------------------+
//
// `in`/`out` point into Function::reg_pool; `plan` is immutable data owned by
// the Program (dims, strides, kernel pointers, chunk sizes, callee
// functions). Each instruction's handler is of one kind (HandlerKind, listed
// with its effect in HLOVM_HANDLER_KIND_LIST below); the disassembler names
// an instruction by its kind.
#ifndef HLOVM_VM_BYTECODE_H_
#define HLOVM_VM_BYTECODE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "core/aligned_buffer.h"
#include "core/hlo_ir.h"
#include "core/literal.h"
#include "core/shape.h"
#include "vm/cancel_cause.h"

namespace hlovm {

class StepObserver;
class Profiler;
struct FusedWork;  // vm/profiler.h
class CollectiveBus;
struct FeedQueues;
struct RunPosition;  // vm/api.h

namespace vm {

using Reg = uint32_t;

// The handler kinds: V(enumerator, mnemonic, effect), R[x] meaning the
// buffer of register x. The disassembler prints an instruction by its kind's
// mnemonic; an empty mnemonic stands for the name of the HLO opcode the
// instruction lowers (one kind that runs several opcodes, each printed as
// itself). A new kind is a new row; nothing else lists them.
#define HLOVM_HANDLER_KIND_LIST(V)                                                                 \
  /* elementwise (ops/elementwise/) */                                                             \
  V(kUnary, "", "R[out0] := k(R[in0])  elementwise, may be in place")                              \
  V(kBinary, "", "R[out0] := k(R[in0], R[in1])  elementwise, may be in place")                     \
  V(kTernary, "", "R[out0] := k(R[in0], R[in1], R[in2])  select, clamp")                           \
  V(kConvert, "", "R[out0] := convert(R[in0])")                                                    \
  V(kReducePrecision, "", "R[out0] := round(R[in0]) to fewer exponent and mantissa bits")          \
  V(kStochasticConvert, "stochastic-convert", "R[out0] := convert(R[in0]) rounded by bits R[in1]") \
  /* shape (ops/shape/) */                                                                         \
  V(kBcast, "bcast", "R[out0] := strided_copy(R[in0])  broadcast")                                 \
  V(kRelayout, "relayout", "R[out0] := strided_copy(R[in0])  bitcast between layouts")             \
  V(kIota, "iota", "R[out0] := iota")                                                              \
  V(kCopy, "copy", "R[out0] := R[in0]  (materialises a value)")                                    \
  V(kTranspose, "transpose", "R[out0] := transpose(R[in0])")                                       \
  V(kSlice, "slice", "R[out0] := strided_copy(R[in0]) from an offset")                             \
  V(kReverse, "reverse", "R[out0] := R[in0] reversed along some dimensions")                       \
  V(kConcatenate, "concatenate", "R[out0] := R[in0] ++ R[in1] ++ ...")                             \
  V(kPad, "pad", "R[out0] := pad(R[in0]) with the value R[in1]")                                   \
  V(kDynamicSlice, "dynamic-slice", "R[out0] := R[in0] at the offsets R[in1+]")                    \
  V(kDynamicUpdateSlice, "dus", "R[out0] := R[in0] with R[in1] written at R[in2+]")                \
  V(kDimSize, "dim-size", "R[out0] := the size of a dimension")                                    \
  V(kDynamicReshape, "dynamic-reshape", "R[out0] := reshape(R[in0]) to the sizes R[in1+]")         \
  V(kBitcastConvert, "bitcast-convert", "R[out0] := the bytes of R[in0] as another type")          \
  /* indexing (ops/indexing/) */                                                                   \
  V(kGather, "gather", "R[out0] := gather(R[in0]) at the indices R[in1]")                          \
  V(kScatter, "scatter", "R[out*] := scatter(R[in*]) of updates at indices")                       \
  V(kMap, "map", "R[out0] := f(R[in*]) element by element")                                        \
  /* reduce (ops/reduce/) */                                                                       \
  V(kReduce, "reduce", "R[out*] := reduce(R[in*]) from the inits")                                 \
  V(kReduceWindow, "reduce-window", "R[out*] := the fold of each window of R[in*]")                \
  V(kSelectAndScatter, "select-and-scatter", "R[out0] := init + source at selected elements")      \
  /* sort (ops/sort/) */                                                                           \
  V(kSort, "sort", "R[out*] := R[in*] sorted along a dimension")                                   \
  V(kTopK, "topk", "R[out0], R[out1] := the k largest of R[in0] and their indices")                \
  V(kScan, "scan", "R[out*] := prefix scan of R[in*]")                                             \
  /* dot (ops/dot/) */                                                                             \
  V(kDot, "", "R[out0] := dot(R[in0], R[in1])  dot, convolution as a dot")                         \
  V(kRaggedDot, "ragged-dot", "R[out0] := dot of R[in0] with R[in1] per group")                    \
  V(kScaledDot, "scaled-dot", "R[out0] := dot(R[in0] * scale, R[in1] * scale)")                    \
  V(kConvolution, "convolution", "R[out0] := conv(R[in0], R[in1])")                                \
  /* fft, linalg, norm */                                                                          \
  V(kFft, "fft", "R[out0] := fft(R[in0])")                                                         \
  V(kFftResize, "fft-resize", "R[out0] := R[in0] cut or zero-padded to fft_length")               \
  V(kCholesky, "cholesky", "R[out0] := cholesky(R[in0])")                                          \
  V(kTriangularSolve, "triangular-solve", "R[out0] := solve(R[in0], R[in1])")                      \
  V(kBatchNorm, "", "R[out*] := batch-norm-training / inference / grad of R[in*]")                 \
  /* rng (ops/rng/) */                                                                             \
  V(kRng, "rng", "R[out0] := random numbers from R[in*]")                                          \
  V(kRngBitGenerator, "rng-bit-generator", "R[out0], R[out1] := next state, bits of R[in0]")       \
  V(kRngGetAndUpdateState, "rng-get-and-update-state", "R[out0] := the program's rng state")       \
  /* collectives (ops/collective/, through the collective bus) */                                  \
  V(kAllReduce, "all-reduce", "R[out*] := reduce of R[in*] over the group")                        \
  V(kAllGather, "all-gather", "R[out*] := R[in*] of the group, concatenated")                      \
  V(kReduceScatter, "reduce-scatter", "R[out*] := this instance's part of the reduce")             \
  V(kAllToAll, "all-to-all", "R[out*] := part i of every peer's R[in*]")                           \
  V(kCollectivePermute, "collective-permute", "R[out*] := R[in*] of the source peer")              \
  V(kCollectiveBroadcast, "collective-broadcast", "R[out*] := R[in*] of the group's first")        \
  V(kRaggedAllToAll, "ragged-all-to-all", "R[out0] := ragged parts of every peer's R[in0]")        \
  V(kSend, "send", "channel := R[in0]")                                                            \
  V(kRecv, "recv", "R[out0] := channel")                                                           \
  V(kInfeed, "infeed", "R[out*] := the next infeed value")                                         \
  V(kOutfeed, "outfeed", "outfeed += R[in*]")                                                      \
  V(kSendToHost, "send-to-host", "outfeed += R[in*]")                                              \
  V(kRecvFromHost, "recv-from-host", "R[out*] := the next infeed value")                           \
  /* control (ops/control/, ops/custom/) and fusion (vm/fusion.h) */                               \
  V(kWhile, "while", "R[out*] := loop(cond, body, R[in*])  state kept by pointer")                 \
  V(kCond, "cond", "R[out*] := branch[R[in0]](R[in1+]...)  pred or index form")                    \
  V(kDeviceId, "", "R[out0] := replica-id / partition-id")                                         \
  V(kCopyStart, "copy-start", "R[out0] := 0  a copy-start's context; its arrays alias R[in0]")     \
  V(kCustomCall, "custom-call", "R[out*] := target(R[in*])  custom-call registry")                 \
  V(kFusion, "fusion", "R[out*] := a fused region's program over R[in*]")

enum class HandlerKind : uint8_t {
#define HLOVM_HANDLER_KIND_ENUM_(e, mnemonic, effect) e,
  HLOVM_HANDLER_KIND_LIST(HLOVM_HANDLER_KIND_ENUM_)
#undef HLOVM_HANDLER_KIND_ENUM_
};

// The kind's mnemonic (empty: the HLO opcode's name) and its effect.
std::string_view HandlerKindMnemonic(HandlerKind kind);
std::string_view HandlerKindEffect(HandlerKind kind);

struct Instr;
struct ExecContext;
struct FramePool;  // vm/executor.h

// Runs one instruction. Returns false after recording an error in `ctx`.
using Handler = bool (*)(const Instr& instr, uint8_t* const* regs, ExecContext& ctx);

struct Instr {
  Handler handler = nullptr;
  const void* plan = nullptr;
  const Reg* in = nullptr;
  const Reg* out = nullptr;
  uint32_t num_in = 0;
  uint32_t num_out = 0;
  int64_t cost = 0;
};
static_assert(sizeof(Instr) == 48, "keep Instr compact: see the diagram above");

// Compile-time facts about an instruction that the dispatch loop never reads.
struct InstrInfo {
  const HloInstruction* hlo = nullptr;  // where it came from
  HandlerKind kind = HandlerKind::kCopy;
  std::string variant;                  // kernel variant, e.g. "f32 chunks of 16384"
  uint32_t in_offset = 0, out_offset = 0;  // into Function::reg_pool
  // Operands whose buffer the result may share (elementwise in place).
  uint32_t inplace_mask = 0;
  bool side_effect = false;
  // Lines the disassembler prints below the instruction (a fused region's
  // micro-program); empty for most.
  std::string detail;
  // A fused region's work for the profiler (null otherwise; owned by the
  // Program's plans).
  const FusedWork* fused = nullptr;
};

enum class RegKind : uint8_t { kParam, kConst, kOwned, kToken };

struct RegInfo {
  RegKind kind = RegKind::kOwned;
  Shape shape;          // row-major array shape (or token)
  int64_t bytes = 0;
  // kOwned: holds the frames of the functions its instruction calls (a
  // loop's condition and body, a conditional's branches), not a value.
  bool frames = false;
  const uint8_t* const_data = nullptr;  // kConst
  int32_t slot = -1;                    // kOwned
  int32_t def = -1;                     // instruction that writes it (-1: none)
  int32_t last_use = -1;                // last instruction that reads it
  bool is_result = false;               // live until the function returns
};

struct Function {
  std::string name;
  const HloComputation* computation = nullptr;
  std::vector<Instr> code;
  std::vector<InstrInfo> info;  // parallel to code
  std::vector<Reg> reg_pool;
  std::vector<RegInfo> regs;

  // Buffer plan: each owned register lives in a slot; slots are 64-byte
  // aligned slices of one arena per activation (arena_bytes and
  // result_region_bytes are whole 64-byte lines).
  std::vector<int64_t> slot_offset, slot_size;
  int64_t arena_bytes = 0;
  // Entry function and loop bodies: a slot that holds a result leaf is not
  // in the arena. In the entry it is the result literal's own storage, bound
  // at each run, so results are computed where the caller gets them; in a
  // loop body it lies in a region of result buffers apart from the arena
  // (slot_offset is its offset there), so that two frames of the body can
  // share one arena and alternate only their results (the next iteration
  // reads the last one's). slot_result[s] is that leaf (-1: in the arena).
  // Empty in other functions.
  std::vector<int32_t> slot_result;
  int64_t result_region_bytes = 0;
  // The result leaf slot `s` holds apart from the arena, or -1.
  int32_t ResultOfSlot(int32_t s) const { return slot_result.empty() ? -1 : slot_result[s]; }
  // The bytes of the slots apart from the arena (unaligned).
  int64_t ResultSlotBytes() const {
    int64_t bytes = 0;
    for (size_t s = 0; s < slot_result.size(); ++s) {
      if (slot_result[s] >= 0) bytes += slot_size[s];
    }
    return bytes;
  }

  std::vector<Reg> param_regs;          // leaves of every parameter, in order
  std::vector<uint32_t> param_begin;    // first leaf of parameter i (size params+1)
  std::vector<Reg> result_regs;         // leaves of the root
  // While bodies: result leaf i is parameter leaf i, unchanged.
  std::vector<bool> result_passthrough;
  // While bodies: parameter leaf i is written in place (its next value
  // computed into its own buffer), so the loop must hand the body a buffer
  // that belongs to the loop alone.
  std::vector<bool> param_mutated;

  // Scheduling: dependency counts and successors (CSR) from buffer hazards,
  // control predecessors and side-effect order; used when `parallel`.
  bool parallel = false;
  int64_t total_cost = 0;
  std::vector<int32_t> dep_count;
  std::vector<int32_t> succ_begin;  // size code.size()+1
  std::vector<int32_t> succ;

  // Activations kept for reuse (loop bodies and branches run many times);
  // see AcquireFrame in vm/executor.h.
  std::shared_ptr<FramePool> frame_pool;

  // The registers of every HLO instruction lowered into this function (for
  // stepping and the disassembler).
  absl::flat_hash_map<const HloInstruction*, std::vector<Reg>> values;
};

struct Program {
  std::vector<std::unique_ptr<Function>> functions;
  const Function* entry = nullptr;
  // Immutable plans referenced by Instr::plan.
  std::vector<std::shared_ptr<const void>> plans;
  // Constants not laid out row-major in the module, relaid once per
  // program; row-major ones are read from the module's literals, so the
  // module must outlive the program (an Executable owns both).
  std::vector<AlignedBuffer> constants;
  int64_t constant_bytes = 0;

  template <typename T>
  const T* AddPlan(T plan) {
    auto p = std::make_shared<const T>(std::move(plan));
    const T* raw = p.get();
    plans.push_back(std::move(p));
    return raw;
  }
};

// The state one Execute call shares across its instructions and threads.
struct ExecContext {
  int threads = 1;
  const std::atomic<bool>* cancel = nullptr;
  const CancelCause* cancel_cause = nullptr;  // why `cancel` was set
  StepObserver* observer = nullptr;
  Profiler* profiler = nullptr;  // records per-instruction times (vm/profiler.h)
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  int32_t instance = 0;  // ProfileEvent::instance
  // Where collectives meet their peers (null: this instance runs alone).
  CollectiveBus* bus = nullptr;
  FeedQueues* feeds = nullptr;
  // Run every function in program order on the calling thread (an
  // instance that may wait at a collective never waits inside a shared
  // work-stealing task); kernels still split their work across threads.
  bool sequential = false;
  // Set once anything failed; running work stops at the next instruction.
  std::atomic<bool> failed{false};

  // Records `status` (the first error wins) and returns false.
  bool Fail(absl::Status status);
  // Records a failed check; execution goes on so that the reported failure
  // (the earliest check in schedule order) does not depend on timing.
  void FailCheck(int64_t order, absl::Status status);
  // Prefixes the recorded error with the instruction that failed.
  void Annotate(const HloInstruction* hlo);
  // The error to return: the first error, else the first failed check.
  absl::Status Result();

  // Where the run is, for another thread (see RunPosition in vm/api.h).
  RunPosition* position = nullptr;

  bool hooked() const { return cancel != nullptr || observer != nullptr || profiler != nullptr; }
  bool cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
  // The error of a cancelled run, with its cause where known.
  absl::Status CancelledError() const { return CancelledBy("execution", cancel_cause); }

  absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
  int64_t check_order ABSL_GUARDED_BY(mu) = INT64_MAX;
  absl::Status check_status ABSL_GUARDED_BY(mu);
  int64_t checks_failed ABSL_GUARDED_BY(mu) = 0;
  int depth = 0;  // nesting of while/conditional bodies (stepping)
};

// How the disassembler names the instruction: its kind's mnemonic, or the
// name of its HLO opcode ("add", "bcast", "while", ...).
std::string InstrMnemonic(const InstrInfo& info);

// Locates `status` at the instruction it came from, as the parser and the
// verifier locate theirs ("m.hlo:7:3: error: %add.3 (add): ...", then the
// source line and a caret where the module kept its text; "%add.3 (add): ..."
// for an instruction not from text), keeping its code and payloads. A status
// located once (kLocatedPayload) is returned as it is: an error inside a
// called computation names the instruction there, not every caller.
absl::Status AnnotateStatus(const absl::Status& status, const HloInstruction* hlo);
// The same at a computation's header, and for the module as a whole (its
// file name only: "m.hlo: error: ...").
absl::Status AnnotateStatus(const absl::Status& status, const HloComputation* computation);
absl::Status AnnotateStatus(const absl::Status& status, const HloModule& module);
inline constexpr char kLocatedPayload[] = "hlovm.located";

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_BYTECODE_H_
