// Register programs over f32 vectors: a chain of elementwise f32 ops run
// vector by vector with the intermediate values in registers, for fused
// regions (vm/fusion.h). Every op is the same Highway element function the
// op-by-op kernel of that op runs (elementwise_hwy-inl.h), so a program gives
// the bits of running its ops one kernel at a time.
//
// The machine has one accumulator (a few vectors, unrolled), numbered spill
// slots and streams: arrays that the caller points at element `begin` of
// the range (a program runs over elements [0, len) of each stream).
//
//   load a            acc := a
//   store k           stream k := acc
//   spill j           spill j := acc
//   <unary>           acc := f(acc)                    abs ... tanh
//   <binary> a        acc := f(acc, a)  or f(a, acc)   (reversed)
//   <compare> a       acc := mask of (acc DIR a)        or (a DIR acc)
//   select a, b       acc := mask acc ? a : b
//   round-bf16        acc := acc rounded to bf16 (as f32_to_bf16 then back)
//   nop               acc unchanged (a bf16 -> f32 convert)
//   sum-row a, b      acc unchanged; at the end of each row, stream a's
//                     scalar of that row := b + the row's values of acc
//                     summed in the f32 reduce's order (sum_classes.h)
//
// Operands a, b are a stream, a spill slot or the accumulator itself. A
// stream is f32, or bf16 (`half`): loads widen it exactly, stores keep the
// top 16 bits, which is exact because every bf16 value in a program comes
// from a load or a round-bf16. A `splat` stream is one scalar (f32, or bf16
// where `half`) read as a vector of copies of itself; with a `repeat`, it is
// an array of `period` scalars, each repeated `repeat` times, so that
// element e of the program's range reads scalar ((offset + e) / repeat) %
// period (a per-row value broadcast along its row). Streams marked `far` are
// read from memory rather than from a cache-resident tile: the interpreter
// prefetches them ahead of the block it computes. A `streaming` stream that
// the program stores to is written with non-temporal stores where its
// vectors are aligned (an output too large to stay in cache: its lines then
// go to memory without being read first); the values are the same.
//
// A `columns` stream is an array of `repeat` elements read again for each
// row of `repeat` elements: element e of the range reads element
// (offset + e) % repeat (a vector broadcast down the columns).
//
// A `rows` stream (f32) has one scalar per row of `repeat` elements (with
// `period` as for a repeated splat): sum-row writes the scalar of each row
// it has summed whole, so a program with sum-rows runs over whole rows. At
// most kF32ProgramMaxSumRows sum-rows are in one program.
#ifndef HLOVM_OPS_ELEMENTWISE_F32_PROGRAM_H_
#define HLOVM_OPS_ELEMENTWISE_F32_PROGRAM_H_

#include <cstdint>

namespace hlovm {

enum class F32Code : uint8_t {
  kLoad, kStore, kSpill,
  kAbs, kNeg, kSqrt, kRsqrt, kFloor, kCeil, kRoundEven, kExp, kLogistic, kTanh,
  kAdd, kSub, kMul, kDiv, kMax, kMin,
  kEq, kNe, kGe, kGt, kLe, kLt,
  kSelect,
  kRoundBF16, kNop,
  kSumRow,
};

struct F32Operand {
  enum Kind : uint8_t { kNone, kStream, kSpill, kAcc };
  Kind kind = kNone;
  uint8_t index = 0;
};

struct F32ProgramOp {
  F32Code code = F32Code::kLoad;
  bool reversed = false;  // binary and compare: the operand comes first
  F32Operand a, b;        // store: a.index is the stream; spill: a.index the slot
};

struct F32Stream {
  bool half = false;
  bool splat = false;
  bool far = false;
  bool streaming = false;
  bool rows = false;     // one scalar a row, written by sum-row
  bool columns = false;  // one row, read for every row
  // A repeated splat, rows or columns: > 0, a multiple of kF32ProgramRepeatQuantum.
  int64_t repeat = 0;
  int64_t period = 1;
  // A far stream: prefetched this many elements ahead into the L2 cache
  // (the next block of rows of a row-wise region), or, where 0,
  // kPrefetchElements ahead into L1.
  int64_t ahead = 0;
};

// A repeated splat's repeat is a multiple of this, so that a block of
// vectors never straddles two of its scalars.
inline constexpr int64_t kF32ProgramRepeatQuantum = 64;

inline constexpr int kF32ProgramMaxSpills = 8;
inline constexpr int kF32ProgramMaxStreams = 32;
inline constexpr int kF32ProgramMaxOps = 256;
inline constexpr int kF32ProgramMaxSumRows = 2;

// Runs `code` over elements [0, len) of the `num_streams` `streams`,
// described by `kinds`; the range starts at element `offset` of the region
// (for repeated splats).
void RunF32Program(const F32ProgramOp* code, int num_ops, void* const* streams,
                   const F32Stream* kinds, int num_streams, int64_t offset, int64_t len);

}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_F32_PROGRAM_H_
