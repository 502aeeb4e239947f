// The one list of HLO opcodes. Everything that needs to know the opcodes (the
// parser, printer, verifier, bytecode compiler, disassembler and the REPL's
// completion) expands HLOVM_OPCODE_LIST instead of restating it.
#ifndef HLOVM_CORE_HLO_OPCODE_H_
#define HLOVM_CORE_HLO_OPCODE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace hlovm {

// Arity value for opcodes that take any number of operands.
inline constexpr int kVariadic = -1;

// The op family each opcode belongs to; it names the folder under ops/ that
// implements it.
enum class OpFamily : uint8_t {
  kUnary,        // elementwise, one operand
  kBinary,       // elementwise, two operands
  kTernary,      // select, clamp
  kType,         // convert, bitcast-convert, reduce-precision, ...
  kShape,        // broadcast, reshape, transpose, slice, pad, ...
  kIndexing,     // gather, scatter, map
  kReduce,       // reduce, reduce-window, select-and-scatter
  kSort,         // sort, topk, scan
  kDot,          // dot, convolution, ragged-dot, scaled-dot
  kFft,
  kLinalg,       // cholesky, triangular-solve
  kNorm,         // batch-norm-*
  kRng,
  kCollective,
  kControl,      // parameter, constant, tuple, call, while, conditional, ...
  kCustom,       // custom-call
};

// V(enumerator, text name, arity, family, has side effects)
#define HLOVM_OPCODE_LIST(V)                                                   \
  V(kAbs, "abs", 1, kUnary, false)                                             \
  V(kAcos, "acos", 1, kUnary, false)                                           \
  V(kAcosh, "acosh", 1, kUnary, false)                                         \
  V(kAdd, "add", 2, kBinary, false)                                            \
  V(kAddDependency, "add-dependency", 2, kControl, false)                      \
  V(kAfterAll, "after-all", kVariadic, kControl, false)                        \
  V(kAllGather, "all-gather", kVariadic, kCollective, true)                    \
  V(kAllGatherDone, "all-gather-done", 1, kCollective, true)                   \
  V(kAllGatherStart, "all-gather-start", kVariadic, kCollective, true)         \
  V(kAllReduce, "all-reduce", kVariadic, kCollective, true)                    \
  V(kAllReduceDone, "all-reduce-done", 1, kCollective, true)                   \
  V(kAllReduceStart, "all-reduce-start", kVariadic, kCollective, true)         \
  V(kAllToAll, "all-to-all", kVariadic, kCollective, true)                     \
  V(kAnd, "and", 2, kBinary, false)                                            \
  V(kAsin, "asin", 1, kUnary, false)                                           \
  V(kAsinh, "asinh", 1, kUnary, false)                                         \
  V(kAsyncDone, "async-done", 1, kControl, false)                              \
  V(kAsyncStart, "async-start", kVariadic, kControl, false)                    \
  V(kAsyncUpdate, "async-update", kVariadic, kControl, false)                  \
  V(kAtan, "atan", 1, kUnary, false)                                           \
  V(kAtan2, "atan2", 2, kBinary, false)                                        \
  V(kAtanh, "atanh", 1, kUnary, false)                                         \
  V(kBatchNormGrad, "batch-norm-grad", 5, kNorm, false)                        \
  V(kBatchNormInference, "batch-norm-inference", 5, kNorm, false)              \
  V(kBatchNormTraining, "batch-norm-training", 3, kNorm, false)                \
  V(kBitcast, "bitcast", 1, kShape, false)                                     \
  V(kBitcastConvert, "bitcast-convert", 1, kType, false)                       \
  V(kBroadcast, "broadcast", 1, kShape, false)                                 \
  V(kCall, "call", kVariadic, kControl, false)                                 \
  V(kCbrt, "cbrt", 1, kUnary, false)                                           \
  V(kCeil, "ceil", 1, kUnary, false)                                           \
  V(kCholesky, "cholesky", 1, kLinalg, false)                                  \
  V(kClamp, "clamp", 3, kTernary, false)                                       \
  V(kClz, "count-leading-zeros", 1, kUnary, false)                             \
  V(kCollectiveBroadcast, "collective-broadcast", kVariadic, kCollective, true) \
  V(kCollectivePermute, "collective-permute", kVariadic, kCollective, true)    \
  V(kCollectivePermuteDone, "collective-permute-done", 1, kCollective, true)   \
  V(kCollectivePermuteStart, "collective-permute-start", kVariadic, kCollective, true) \
  V(kCollectiveReduce, "collective-reduce", kVariadic, kCollective, true)      \
  V(kCompare, "compare", 2, kBinary, false)                                    \
  V(kComplex, "complex", 2, kBinary, false)                                    \
  V(kConcatenate, "concatenate", kVariadic, kShape, false)                     \
  V(kConditional, "conditional", kVariadic, kControl, false)                   \
  V(kConstant, "constant", 0, kControl, false)                                 \
  V(kConvert, "convert", 1, kType, false)                                      \
  V(kConvolution, "convolution", kVariadic, kDot, false)                       \
  V(kCopy, "copy", 1, kShape, false)                                           \
  V(kCopyDone, "copy-done", 1, kShape, false)                                  \
  V(kCopyStart, "copy-start", 1, kShape, false)                                \
  V(kCos, "cosine", 1, kUnary, false)                                          \
  V(kCosh, "cosh", 1, kUnary, false)                                           \
  V(kCustomCall, "custom-call", kVariadic, kCustom, false)                     \
  V(kDivide, "divide", 2, kBinary, false)                                      \
  V(kDomain, "domain", 1, kControl, false)                                     \
  V(kDot, "dot", 2, kDot, false)                                               \
  V(kDynamicReshape, "dynamic-reshape", kVariadic, kShape, false)              \
  V(kDynamicSlice, "dynamic-slice", kVariadic, kShape, false)                  \
  V(kDynamicUpdateSlice, "dynamic-update-slice", kVariadic, kShape, false)     \
  V(kErf, "erf", 1, kUnary, false)                                             \
  V(kExp, "exponential", 1, kUnary, false)                                     \
  V(kExpm1, "exponential-minus-one", 1, kUnary, false)                         \
  V(kFft, "fft", 1, kFft, false)                                               \
  V(kFloor, "floor", 1, kUnary, false)                                         \
  V(kFusion, "fusion", kVariadic, kControl, false)                             \
  V(kGather, "gather", 2, kIndexing, false)                                    \
  V(kGetDimensionSize, "get-dimension-size", 1, kShape, false)                 \
  V(kGetTupleElement, "get-tuple-element", 1, kControl, false)                 \
  V(kImag, "imag", 1, kUnary, false)                                           \
  V(kInfeed, "infeed", 1, kControl, true)                                      \
  V(kIota, "iota", 0, kShape, false)                                           \
  V(kIsFinite, "is-finite", 1, kUnary, false)                                  \
  V(kLog, "log", 1, kUnary, false)                                             \
  V(kLog1p, "log-plus-one", 1, kUnary, false)                                  \
  V(kLogistic, "logistic", 1, kUnary, false)                                   \
  V(kMap, "map", kVariadic, kIndexing, false)                                  \
  V(kMaximum, "maximum", 2, kBinary, false)                                    \
  V(kMinimum, "minimum", 2, kBinary, false)                                    \
  V(kMulhi, "mulhi", 2, kBinary, false)                                        \
  V(kMultiply, "multiply", 2, kBinary, false)                                  \
  V(kNegate, "negate", 1, kUnary, false)                                       \
  V(kNot, "not", 1, kUnary, false)                                             \
  V(kOptimizationBarrier, "opt-barrier", 1, kControl, false)                   \
  V(kOr, "or", 2, kBinary, false)                                              \
  V(kOutfeed, "outfeed", 2, kControl, true)                                    \
  V(kPad, "pad", 2, kShape, false)                                             \
  V(kParameter, "parameter", 0, kControl, false)                               \
  V(kPartitionId, "partition-id", 0, kControl, false)                          \
  V(kPopulationCount, "popcnt", 1, kUnary, false)                              \
  V(kPower, "power", 2, kBinary, false)                                        \
  V(kRaggedAllToAll, "ragged-all-to-all", 6, kCollective, true)                \
  V(kRaggedDot, "ragged-dot", 3, kDot, false)                                  \
  V(kReal, "real", 1, kUnary, false)                                           \
  V(kRecv, "recv", 1, kCollective, true)                                       \
  V(kRecvDone, "recv-done", 1, kCollective, true)                              \
  V(kReduce, "reduce", kVariadic, kReduce, false)                              \
  V(kReducePrecision, "reduce-precision", 1, kType, false)                     \
  V(kReduceScatter, "reduce-scatter", kVariadic, kCollective, true)            \
  V(kReduceWindow, "reduce-window", kVariadic, kReduce, false)                 \
  V(kRemainder, "remainder", 2, kBinary, false)                                \
  V(kReplicaId, "replica-id", 0, kControl, false)                              \
  V(kReshape, "reshape", 1, kShape, false)                                     \
  V(kReverse, "reverse", 1, kShape, false)                                     \
  V(kRng, "rng", kVariadic, kRng, true)                                        \
  V(kRngBitGenerator, "rng-bit-generator", 1, kRng, false)                     \
  V(kRngGetAndUpdateState, "rng-get-and-update-state", 0, kRng, true)          \
  V(kRoundNearestAfz, "round-nearest-afz", 1, kUnary, false)                   \
  V(kRoundNearestEven, "round-nearest-even", 1, kUnary, false)                 \
  V(kRsqrt, "rsqrt", 1, kUnary, false)                                         \
  V(kScaledDot, "scaled-dot", 4, kDot, false)                                  \
  V(kScan, "scan", kVariadic, kSort, false)                                    \
  V(kScatter, "scatter", kVariadic, kIndexing, false)                          \
  V(kSelect, "select", 3, kTernary, false)                                     \
  V(kSelectAndScatter, "select-and-scatter", 3, kReduce, false)                \
  V(kSend, "send", 2, kCollective, true)                                       \
  V(kSendDone, "send-done", 1, kCollective, true)                              \
  V(kSetDimensionSize, "set-dimension-size", 2, kShape, false)                 \
  V(kShiftLeft, "shift-left", 2, kBinary, false)                               \
  V(kShiftRightArithmetic, "shift-right-arithmetic", 2, kBinary, false)        \
  V(kShiftRightLogical, "shift-right-logical", 2, kBinary, false)              \
  V(kShuffle, "shuffle", 1, kShape, false)                                     \
  V(kSign, "sign", 1, kUnary, false)                                           \
  V(kSin, "sine", 1, kUnary, false)                                            \
  V(kSinh, "sinh", 1, kUnary, false)                                           \
  V(kSlice, "slice", 1, kShape, false)                                         \
  V(kSort, "sort", kVariadic, kSort, false)                                    \
  V(kSqrt, "sqrt", 1, kUnary, false)                                           \
  V(kStochasticConvert, "stochastic-convert", 2, kType, false)                 \
  V(kSubtract, "subtract", 2, kBinary, false)                                  \
  V(kTan, "tan", 1, kUnary, false)                                             \
  V(kTanh, "tanh", 1, kUnary, false)                                           \
  V(kTopK, "topk", 1, kSort, false)                                            \
  V(kTranspose, "transpose", 1, kShape, false)                                 \
  V(kTriangularSolve, "triangular-solve", 2, kLinalg, false)                   \
  V(kTuple, "tuple", kVariadic, kControl, false)                               \
  V(kWhile, "while", 1, kControl, false)                                       \
  V(kXor, "xor", 2, kBinary, false)

enum class HloOpcode : uint8_t {
#define HLOVM_DECLARE_OPCODE_(e, ...) e,
  HLOVM_OPCODE_LIST(HLOVM_DECLARE_OPCODE_)
#undef HLOVM_DECLARE_OPCODE_
};

inline constexpr int HloOpcodeCount() {
#define HLOVM_COUNT_OPCODE_(...) +1
  return 0 HLOVM_OPCODE_LIST(HLOVM_COUNT_OPCODE_);
#undef HLOVM_COUNT_OPCODE_
}
static_assert(HloOpcodeCount() < 256, "HloOpcode is stored in a uint8_t");

// Returns the text name of `opcode` ("add", "get-tuple-element", ...).
std::string_view HloOpcodeName(HloOpcode opcode);
// Looks an opcode up by its text name.
std::optional<HloOpcode> HloOpcodeFromName(std::string_view name);
// Returns the operand count, or kVariadic.
int HloOpcodeArity(HloOpcode opcode);
OpFamily HloOpcodeFamily(HloOpcode opcode);
// True for opcodes whose instructions must run even when nothing uses them.
bool HloOpcodeHasSideEffect(HloOpcode opcode);

}  // namespace hlovm

#endif  // HLOVM_CORE_HLO_OPCODE_H_
