// The register-program interpreter of f32_program.h, compiled once per SIMD
// target by elementwise_hwy.cc next to the kernels whose element functions
// it shares (elementwise_hwy-inl.h, included first).

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(HLOVM_OPS_ELEMENTWISE_F32_PROGRAM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_ELEMENTWISE_F32_PROGRAM_INL_H_
#undef HLOVM_OPS_ELEMENTWISE_F32_PROGRAM_INL_H_
#else
#define HLOVM_OPS_ELEMENTWISE_F32_PROGRAM_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "ops/common/bf16_round.h"
#include "ops/elementwise/f32_program.h"
#include "ops/reduce/sum_classes.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace elementwise_internal {
namespace HWY_NAMESPACE {

// The compare kernel's C++ operators on f32: only != holds for NaN.
struct CmpEq { template <class V> HWY_INLINE auto operator()(V a, V b) const { return hn::Eq(a, b); } };
struct CmpNe { template <class V> HWY_INLINE auto operator()(V a, V b) const { return hn::Not(hn::Eq(a, b)); } };
struct CmpGe { template <class V> HWY_INLINE auto operator()(V a, V b) const { return hn::Ge(a, b); } };
struct CmpGt { template <class V> HWY_INLINE auto operator()(V a, V b) const { return hn::Gt(a, b); } };
struct CmpLe { template <class V> HWY_INLINE auto operator()(V a, V b) const { return hn::Le(a, b); } };
struct CmpLt { template <class V> HWY_INLINE auto operator()(V a, V b) const { return hn::Lt(a, b); } };

// An element function of two operands with its tag bound: f(a, b).
template <class Op, class D>
struct BoundOp {
  D d;
  template <class V>
  HWY_INLINE V operator()(V a, V b) const { return Op()(d, a, b); }
};
template <class Op, class D>
HWY_INLINE BoundOp<Op, D> Bound(D d) { return BoundOp<Op, D>{d}; }

// Rounds to bf16 in registers, bit for bit as F32ToBF16 then BF16ToF32
// (ops/common/bf16_round.h): the upper halves kept, the rest cleared.
template <class D, class V>
HWY_INLINE V RoundToBF16(D d, V v) {
  const hn::RebindToSigned<D> di;
  const auto high = hn::Set(di, static_cast<int32_t>(0xffff0000u));
  return hn::BitCast(d, hn::And(hlovm::HWY_NAMESPACE::BF16InUpperHalf(d, v), high));
}

// The threaded interpreter: the program is decoded once per call into
// steps, each the address of a handler specialised for its op and the kinds
// of its operands, and the operands' addresses. A handler applies its op to
// the U accumulator vectors of a block and jumps straight to the next
// step's handler, so the accumulator stays in registers from op to op and
// no operand kind is tested while the block runs.
//
// Operand kinds of a handler: F an f32 stream, H a bf16 stream, S a spill
// slot, B a splat (a scalar in every lane), and "self" the accumulator.
inline constexpr int kF32Kinds = 4;
enum HandlerBase : int {
  kBinaryBase = 0,                             // add ... min: F rF H rH S rS B rB self
  kCompareBase = kBinaryBase + 6 * 9,          // eq ... lt: F H S B self
  kSelectBase = kCompareBase + 6 * 5,          // select: a kind * 4 + b kind
  kLoadBase = kSelectBase + kF32Kinds * kF32Kinds,  // load: F H S B
  kStoreBase = kLoadBase + kF32Kinds,          // store F, store H, spill, stream F
  kUnaryBase = kStoreBase + 4,                 // abs ... tanh, round-bf16
  kSumRowBase = kUnaryBase + 11,               // sum-row into classes 0, 1
  kEndBase = kSumRowBase + kF32ProgramMaxSumRows,
};

// Kind number of an operand: 0 F, 1 H, 2 S, 3 B.
inline int KindOf(const F32Operand& o, const F32Stream* kinds) {
  if (o.kind == F32Operand::kSpill) return 2;
  if (kinds[o.index].splat) return 3;
  return kinds[o.index].half ? 1 : 0;
}

// The handler of `op`, or -1 for an op that does nothing (nop).
inline int HandlerOf(const F32ProgramOp& op, const F32Stream* kinds) {
  const F32Code c = op.code;
  if (c >= F32Code::kAdd && c <= F32Code::kMin) {
    const int j = static_cast<int>(c) - static_cast<int>(F32Code::kAdd);
    if (op.a.kind == F32Operand::kAcc) return kBinaryBase + j * 9 + 8;
    return kBinaryBase + j * 9 + KindOf(op.a, kinds) * 2 + (op.reversed ? 1 : 0);
  }
  if (c >= F32Code::kEq && c <= F32Code::kLt) {
    F32Code dir = c;
    if (op.reversed) {  // a DIR acc is acc (mirrored DIR) a, NaN included
      switch (c) {
        case F32Code::kGe: dir = F32Code::kLe; break;
        case F32Code::kGt: dir = F32Code::kLt; break;
        case F32Code::kLe: dir = F32Code::kGe; break;
        case F32Code::kLt: dir = F32Code::kGt; break;
        default: break;
      }
    }
    const int j = static_cast<int>(dir) - static_cast<int>(F32Code::kEq);
    if (op.a.kind == F32Operand::kAcc) return kCompareBase + j * 5 + 4;
    return kCompareBase + j * 5 + KindOf(op.a, kinds);
  }
  switch (c) {
    case F32Code::kSelect:
      return kSelectBase + KindOf(op.a, kinds) * kF32Kinds + KindOf(op.b, kinds);
    case F32Code::kLoad: return kLoadBase + KindOf(op.a, kinds);
    case F32Code::kStore: return kStoreBase + KindOf(op.a, kinds);
    case F32Code::kSpill: return kStoreBase + 2;
    case F32Code::kNop: return -1;
    case F32Code::kRoundBF16: return kUnaryBase + 10;
    case F32Code::kSumRow: return kSumRowBase;  // + the sum-row's number
    default: return kUnaryBase + static_cast<int>(c) - static_cast<int>(F32Code::kAbs);
  }
}

struct F32Step {
  const void* go;  // the handler
  const void* a;   // operand addresses: a stream's element 0, a slot, a splat's value
  const void* b;
};

// How far ahead of the block a far stream is prefetched: far enough to
// cover memory latency at this interpreter's pace (512 to 4096 elements
// measured alike on the chain benchmarks of fusion_bench; none, about 1.5x
// slower).
inline constexpr int64_t kPrefetchElements = 4096;

// A splat's scalar `index` as f32.
inline float SplatValue(const void* base, bool half, int64_t index) {
  if (!half) return static_cast<const float*>(base)[index];
  const uint32_t bits = uint32_t{static_cast<const uint16_t*>(base)[index]} << 16;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Whether blocks of `block` elements from `offset` on never straddle two
// scalars of a repeated splat.
inline bool RepeatsAlign(const F32Stream* kinds, int num_streams, int64_t offset, int64_t block) {
  for (int k = 0; k < num_streams; ++k) {
    if (kinds[k].repeat > 0 && (kinds[k].repeat % block != 0 || offset % kinds[k].repeat % block != 0)) {
      return false;
    }
  }
  return true;
}

// Runs the program over elements [begin, end) of the streams, U vectors a
// block; end - begin is a multiple of U vectors, and no block straddles two
// scalars of a repeated splat. The range starts at element `offset` of the
// region.
template <size_t U, class D>
HWY_NOINLINE void RunF32Steps(D d, const F32ProgramOp* code, int num_ops, void* const* streams,
                              const F32Stream* kinds, int num_streams, int64_t offset,
                              int64_t begin, int64_t end, float* spill) {
  using V = hn::Vec<D>;
  const hn::RebindToUnsigned<D> du32;
  const hn::RebindToSigned<D> di32;
  const hn::Rebind<uint16_t, D> du16;
  const int64_t n = static_cast<int64_t>(hn::Lanes(d));
#define HLOVM_F32P_BINARY_LABELS_(name)                                                     \
  &&name##_F, &&name##_rF, &&name##_H, &&name##_rH, &&name##_S, &&name##_rS, &&name##_B, \
      &&name##_rB, &&name##_self
#define HLOVM_F32P_COMPARE_LABELS_(name) \
  &&name##_F, &&name##_H, &&name##_S, &&name##_B, &&name##_self
#define HLOVM_F32P_SELECT_LABELS_(A) &&select_##A##F, &&select_##A##H, &&select_##A##S, &&select_##A##B
  static const void* const kHandlers[] = {
      HLOVM_F32P_BINARY_LABELS_(add), HLOVM_F32P_BINARY_LABELS_(sub),
      HLOVM_F32P_BINARY_LABELS_(mul), HLOVM_F32P_BINARY_LABELS_(div),
      HLOVM_F32P_BINARY_LABELS_(max), HLOVM_F32P_BINARY_LABELS_(min),
      HLOVM_F32P_COMPARE_LABELS_(eq), HLOVM_F32P_COMPARE_LABELS_(ne),
      HLOVM_F32P_COMPARE_LABELS_(ge), HLOVM_F32P_COMPARE_LABELS_(gt),
      HLOVM_F32P_COMPARE_LABELS_(le), HLOVM_F32P_COMPARE_LABELS_(lt),
      HLOVM_F32P_SELECT_LABELS_(F), HLOVM_F32P_SELECT_LABELS_(H),
      HLOVM_F32P_SELECT_LABELS_(S), HLOVM_F32P_SELECT_LABELS_(B),
      &&load_F, &&load_H, &&load_S, &&load_B,
      &&store_F, &&store_H, &&spill_S, &&stream_F,
      &&abs, &&neg, &&sqrt, &&rsqrt, &&floor, &&ceil, &&round_even, &&exp, &&logistic, &&tanh,
      &&round_bf16,
      &&sum_row_0, &&sum_row_1,
      &&end_block};
#undef HLOVM_F32P_BINARY_LABELS_
#undef HLOVM_F32P_COMPARE_LABELS_
#undef HLOVM_F32P_SELECT_LABELS_
  static_assert(sizeof(kHandlers) / sizeof(kHandlers[0]) == kEndBase + 1);
  static_assert(kF32ProgramMaxSumRows == 2);

  // Decode: per stream, a splat's value as f32 (a repeated one's position)
  // or a far stream's prefetch; then the steps.
  float splat[kF32ProgramMaxStreams];
  struct Repeated {
    int stream;
    int64_t index, left;  // the scalar now read; elements before the next
  };
  Repeated repeated[kF32ProgramMaxStreams];
  int num_repeated = 0;
  const uint8_t* far[kF32ProgramMaxStreams];
  int far_shift[kF32ProgramMaxStreams];
  int64_t far_ahead[kF32ProgramMaxStreams];
  int num_far = 0;
  for (int k = 0; k < num_streams; ++k) {
    const F32Stream& s = kinds[k];
    if (s.splat) {
      int64_t index = 0;
      if (s.repeat > 0) {
        const int64_t at = offset + begin;
        index = at / s.repeat % s.period;
        repeated[num_repeated++] = Repeated{k, index, s.repeat - at % s.repeat};
      }
      splat[k] = SplatValue(streams[k], s.half, index);
    } else if (s.far) {
      far[num_far] = static_cast<const uint8_t*>(streams[k]);
      far_ahead[num_far] = s.ahead;
      far_shift[num_far++] = s.half ? 1 : 2;
    }
  }
  auto address = [&](const F32Operand& o) -> const void* {
    switch (o.kind) {
      case F32Operand::kSpill: return spill + o.index * static_cast<int64_t>(U) * n;
      case F32Operand::kStream: return kinds[o.index].splat ? &splat[o.index] : streams[o.index];
      default: return nullptr;
    }
  };
  // Sum-rows: each row's classes of the reduce's order on this target
  // (sum_classes.h), in registers where every block starts a row's first
  // class (vector k of a block then holds the classes of vector k mod
  // kClassVecs), else in memory, element by element.
  constexpr int64_t kClasses = 4 * static_cast<int64_t>(hn::MaxLanes(hn::CappedTag<float, 4>()));
  static_assert(kClasses <= kSumClasses<float>);
  constexpr size_t kMaxLanes = hn::MaxLanes(d);
  constexpr bool kVectorClasses = !HWY_HAVE_SCALABLE && kMaxLanes <= kClasses &&
                                  kClasses % kMaxLanes == 0 && (U * kMaxLanes) % kClasses == 0;
  constexpr size_t kClassVecs = kVectorClasses ? kClasses / kMaxLanes : 1;
  struct SumRow {
    float* dst;  // the rows stream
    float init;
    int64_t index, left;  // the row now summed; its elements from this block on
    int64_t repeat, period;
  };
  SumRow sums[kF32ProgramMaxSumRows];
  int num_sums = 0;
  V cls0[kClassVecs], cls1[kClassVecs];  // one array each: GCC keeps them in registers
  for (size_t v = 0; v < kClassVecs; ++v) cls0[v] = cls1[v] = hn::Set(d, -0.0f);
  HWY_ALIGN float cls_mem[kF32ProgramMaxSumRows][kClasses];
  for (int j = 0; j < kF32ProgramMaxSumRows; ++j) {
    for (int64_t c = 0; c < kClasses; ++c) cls_mem[j][c] = -0.0f;
  }

  // Columns streams: a step reads element i of the range at its operand's
  // address + i, so that address is the stream less the elements of the
  // rows before the one read, moved on by a row at each row's end.
  struct Columns {
    int64_t left;   // elements of the row from this block on
    int64_t bytes;  // of a row
  };
  Columns columns[kF32ProgramMaxStreams];
  struct ColumnsRef {
    const void** address;
    int stream;
  };
  ColumnsRef columns_refs[2 * kF32ProgramMaxOps];
  int num_columns_refs = 0;
  bool any_columns = false;
  const int64_t at = offset + begin;
  for (int k = 0; k < num_streams; ++k) {
    if (!kinds[k].columns) continue;
    any_columns = true;
    columns[k] = Columns{kinds[k].repeat - at % kinds[k].repeat,
                         kinds[k].repeat * (kinds[k].half ? 2 : 4)};
  }

  F32Step steps[kF32ProgramMaxOps + 1];
  int num_steps = 0;
  bool streamed = false;  // non-temporal stores to fence at the end
  for (int pc = 0; pc < num_ops; ++pc) {
    int h = HandlerOf(code[pc], kinds);
    if (h == kSumRowBase) {
      const F32ProgramOp& op = code[pc];
      const F32Stream& s = kinds[op.a.index];
      sums[num_sums] = SumRow{static_cast<float*>(streams[op.a.index]),
                              *static_cast<const float*>(address(op.b)),
                              at / s.repeat % s.period, s.repeat - at % s.repeat, s.repeat,
                              s.period};
      h += num_sums++;
    }
    if constexpr (U > 1) {
      // A streaming f32 store whose vectors are aligned (then every block's
      // are: a block is whole vectors).
      const F32ProgramOp& op = code[pc];
      if (h == kStoreBase && kinds[op.a.index].streaming &&
          reinterpret_cast<uintptr_t>(static_cast<const float*>(streams[op.a.index]) + begin) %
                  (n * sizeof(float)) ==
              0) {
        h = kStoreBase + 3;
        streamed = true;
      }
    }
    if (h < 0) continue;
    F32Step& step = steps[num_steps++];
    step = F32Step{kHandlers[h], address(code[pc].a), address(code[pc].b)};
    for (const void** a : {&step.a, &step.b}) {
      const F32Operand& o = a == &step.a ? code[pc].a : code[pc].b;
      if (o.kind != F32Operand::kStream || !kinds[o.index].columns) continue;
      // Element i of the range reads the vector's element (offset + i) % repeat.
      const int64_t before = begin - at % kinds[o.index].repeat;
      *a = static_cast<const uint8_t*>(*a) - before * (kinds[o.index].half ? 2 : 4);
      columns_refs[num_columns_refs++] = ColumnsRef{a, o.index};
    }
  }
  steps[num_steps] = F32Step{kHandlers[kEndBase], nullptr, nullptr};
  if (begin >= end) return;

  // Rows end, columns wrap and repeated splats move on only at a
  // multiple of the block (RepeatsAlign); the next such position is
  // `event`, and blocks before it go straight from the end to the next.
  int64_t last = begin;  // where the counters below were last brought up to date
  auto next_event = [&] {
    int64_t e = end;
    for (int j = 0; j < num_sums; ++j) e = std::min(e, last + sums[j].left);
    for (int k = 0; k < num_streams; ++k) {
      if (kinds[k].columns) e = std::min(e, last + columns[k].left);
    }
    for (int r = 0; r < num_repeated; ++r) e = std::min(e, last + repeated[r].left);
    return e;
  };
  int64_t event = next_event();
  V acc[U];
  for (size_t k = 0; k < U; ++k) acc[k] = hn::Zero(d);
  int64_t i = begin;
  const F32Step* step = steps;
  const auto keep = [](V v) { return v; };
  const auto mask = [&](auto m) { return hn::VecFromMask(d, m); };
// The far streams' lines of the block kPrefetchElements on.
#define HLOVM_F32P_PREFETCH_FAR_                                               \
  for (int s = 0; s < num_far; ++s) {                                          \
    const int64_t bytes = (static_cast<int64_t>(U) * n) << far_shift[s];       \
    if (far_ahead[s] > 0) {                                                    \
      const uint8_t* p = far[s] + ((i + far_ahead[s]) << far_shift[s]);        \
      for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 0, 2); \
    } else {                                                                   \
      const uint8_t* p = far[s] + ((i + kPrefetchElements) << far_shift[s]);   \
      for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);       \
    }                                                                          \
  }
// Operand x's vector k of the block.
#define HLOVM_F32P_F_(x, k) hn::LoadU(d, static_cast<const float*>(x) + i + (k) * n)
#define HLOVM_F32P_H_(x, k) \
  hlovm::HWY_NAMESPACE::WidenBF16(d, hn::LoadU(du16, static_cast<const uint16_t*>(x) + i + (k)*n))
#define HLOVM_F32P_S_(x, k) hn::Load(d, static_cast<const float*>(x) + (k) * n)
#define HLOVM_F32P_B_(x, k) hn::Set(d, *static_cast<const float*>(x))
#define HLOVM_F32P_EACH_(body)                         \
  _Pragma("GCC unroll 16") for (size_t k = 0; k < U; ++k) { body; }
#define HLOVM_F32P_NEXT_ \
  ++step;                \
  goto* step->go
// name_K: acc := wrap(f(acc, operand of kind K)); name_self: f(acc, acc).
#define HLOVM_F32P_FORWARD_(name, f, wrap, K)                                                \
  name##_##K : HLOVM_F32P_EACH_(acc[k] = wrap(f(acc[k], HLOVM_F32P_##K##_(step->a, k))));   \
  HLOVM_F32P_NEXT_;
#define HLOVM_F32P_OPERAND_KINDS_(name, f, wrap)                                   \
  HLOVM_F32P_FORWARD_(name, f, wrap, F)                                            \
  HLOVM_F32P_FORWARD_(name, f, wrap, H)                                            \
  HLOVM_F32P_FORWARD_(name, f, wrap, S)                                            \
  HLOVM_F32P_FORWARD_(name, f, wrap, B)                                            \
  name##_self : HLOVM_F32P_EACH_(acc[k] = wrap(f(acc[k], acc[k])));                \
  HLOVM_F32P_NEXT_;
// name_rK: acc := f(operand of kind K, acc).
#define HLOVM_F32P_REVERSED_(name, f, K)                                               \
  name##_r##K : HLOVM_F32P_EACH_(acc[k] = f(HLOVM_F32P_##K##_(step->a, k), acc[k]));  \
  HLOVM_F32P_NEXT_;
#define HLOVM_F32P_BINARY_(name, f)          \
  HLOVM_F32P_OPERAND_KINDS_(name, f, keep)   \
  HLOVM_F32P_REVERSED_(name, f, F)           \
  HLOVM_F32P_REVERSED_(name, f, H)           \
  HLOVM_F32P_REVERSED_(name, f, S)           \
  HLOVM_F32P_REVERSED_(name, f, B)
// Compares come mirrored rather than reversed (HandlerOf).
#define HLOVM_F32P_COMPARE_(name, f) HLOVM_F32P_OPERAND_KINDS_(name, f, mask)
#define HLOVM_F32P_SELECT_(A, B)                                                           \
  select_##A##B : HLOVM_F32P_EACH_(acc[k] = hn::IfThenElse(hn::MaskFromVec(acc[k]),        \
                                                           HLOVM_F32P_##A##_(step->a, k),   \
                                                           HLOVM_F32P_##B##_(step->b, k))); \
  HLOVM_F32P_NEXT_;
#define HLOVM_F32P_SELECTS_(A) \
  HLOVM_F32P_SELECT_(A, F) HLOVM_F32P_SELECT_(A, H) HLOVM_F32P_SELECT_(A, S) HLOVM_F32P_SELECT_(A, B)
#define HLOVM_F32P_LOAD_(K)                                   \
  load_##K : HLOVM_F32P_EACH_(acc[k] = HLOVM_F32P_##K##_(step->a, k)); \
  HLOVM_F32P_NEXT_;
#define HLOVM_F32P_UNARY_(name, Op)                  \
  name : HLOVM_F32P_EACH_(acc[k] = Op()(d, acc[k])); \
  HLOVM_F32P_NEXT_;

  goto* step->go;
  HLOVM_F32P_BINARY_(add, Bound<AddOp>(d))
  HLOVM_F32P_BINARY_(sub, Bound<SubOp>(d))
  HLOVM_F32P_BINARY_(mul, Bound<MulOp>(d))
  HLOVM_F32P_BINARY_(div, Bound<DivOp>(d))
  HLOVM_F32P_BINARY_(max, Bound<MaxOp>(d))
  HLOVM_F32P_BINARY_(min, Bound<MinOp>(d))
  HLOVM_F32P_COMPARE_(eq, CmpEq())
  HLOVM_F32P_COMPARE_(ne, CmpNe())
  HLOVM_F32P_COMPARE_(ge, CmpGe())
  HLOVM_F32P_COMPARE_(gt, CmpGt())
  HLOVM_F32P_COMPARE_(le, CmpLe())
  HLOVM_F32P_COMPARE_(lt, CmpLt())
  HLOVM_F32P_SELECTS_(F)
  HLOVM_F32P_SELECTS_(H)
  HLOVM_F32P_SELECTS_(S)
  HLOVM_F32P_SELECTS_(B)
  HLOVM_F32P_LOAD_(F)
  HLOVM_F32P_LOAD_(H)
  HLOVM_F32P_LOAD_(S)
  HLOVM_F32P_LOAD_(B)
store_F:
  HLOVM_F32P_EACH_(hn::StoreU(acc[k], d, static_cast<float*>(const_cast<void*>(step->a)) + i +
                                             static_cast<int64_t>(k) * n));
  HLOVM_F32P_NEXT_;
store_H:
  // The top half of each lane: exact, every bf16 value here is rounded.
  HLOVM_F32P_EACH_(hn::StoreU(
      hn::DemoteTo(du16, hn::BitCast(di32, hn::ShiftRight<16>(hn::BitCast(du32, acc[k])))), du16,
      static_cast<uint16_t*>(const_cast<void*>(step->a)) + i + static_cast<int64_t>(k) * n));
  HLOVM_F32P_NEXT_;
spill_S:
  HLOVM_F32P_EACH_(hn::Store(acc[k], d,
                             static_cast<float*>(const_cast<void*>(step->a)) +
                                 static_cast<int64_t>(k) * n));
  HLOVM_F32P_NEXT_;
stream_F:
  HLOVM_F32P_EACH_(hn::Stream(acc[k], d, static_cast<float*>(const_cast<void*>(step->a)) + i +
                                             static_cast<int64_t>(k) * n));
  HLOVM_F32P_NEXT_;
  HLOVM_F32P_UNARY_(abs, AbsOp)
  HLOVM_F32P_UNARY_(neg, NegOp)
  HLOVM_F32P_UNARY_(sqrt, SqrtOp)
  HLOVM_F32P_UNARY_(rsqrt, RsqrtOp)
  HLOVM_F32P_UNARY_(floor, FloorOp)
  HLOVM_F32P_UNARY_(ceil, CeilOp)
  HLOVM_F32P_UNARY_(round_even, RoundEvenOp)
  HLOVM_F32P_UNARY_(exp, ExpF32Op)
  HLOVM_F32P_UNARY_(logistic, LogisticF32Op)
  HLOVM_F32P_UNARY_(tanh, TanhF32Op)
round_bf16:
  HLOVM_F32P_EACH_(acc[k] = RoundToBF16(d, acc[k]));
  HLOVM_F32P_NEXT_;
// The block's values into sum-row j's classes, in index order.
#define HLOVM_F32P_SUM_ROW_(j)                                                          \
  sum_row_##j : if constexpr (kVectorClasses) {                                         \
    HLOVM_F32P_EACH_(cls##j[k % kClassVecs] = hn::Add(cls##j[k % kClassVecs], acc[k])); \
  }                                                                                     \
  else {                                                                                \
    const int64_t pos = sums[j].repeat - sums[j].left + i - last;                       \
    HWY_ALIGN float lanes[kMaxLanes];                                                   \
    for (size_t k = 0; k < U; ++k) {                                                    \
      hn::Store(acc[k], d, lanes);                                                      \
      for (int64_t l = 0; l < n; ++l) {                                                 \
        float& c = cls_mem[j][(pos + static_cast<int64_t>(k) * n + l) % kClasses];      \
        c += lanes[l];                                                                  \
      }                                                                                 \
    }                                                                                   \
  }                                                                                     \
  HLOVM_F32P_NEXT_;
  HLOVM_F32P_SUM_ROW_(0)
  HLOVM_F32P_SUM_ROW_(1)
#undef HLOVM_F32P_SUM_ROW_
end_block:
  i += static_cast<int64_t>(U) * n;
  if (i < event) {
    HLOVM_F32P_PREFETCH_FAR_
    step = steps;
    goto * step->go;
  }
  const int64_t elapsed = i - last;
  last = i;
  // A sum-row whose row ends with this block: its scalar, and fresh
  // classes (sum-row j's classes named with a constant j, so that they stay
  // in registers).
#define HLOVM_F32P_FINISH_ROW_(j)                                                \
  if (sums[j].left -= elapsed; sums[j].left <= 0) {                              \
    HWY_ALIGN float c[kClasses];                                                 \
    if constexpr (kVectorClasses) {                                              \
      for (size_t v = 0; v < kClassVecs; ++v) {                                  \
        hn::Store(cls##j[v], d, c + v * kMaxLanes);                              \
        cls##j[v] = hn::Set(d, -0.0f);                                           \
      }                                                                          \
    } else {                                                                     \
      for (int64_t k = 0; k < kClasses; ++k) {                                   \
        c[k] = cls_mem[j][k];                                                    \
        cls_mem[j][k] = -0.0f;                                                   \
      }                                                                          \
    }                                                                            \
    sums[j].dst[sums[j].index] = sums[j].init + SumClassTree(c, kClasses);       \
    sums[j].left = sums[j].repeat;                                               \
    sums[j].index = sums[j].index + 1 == sums[j].period ? 0 : sums[j].index + 1; \
  }
  if (num_sums > 0) {
    HLOVM_F32P_FINISH_ROW_(0)
    if (num_sums > 1) HLOVM_F32P_FINISH_ROW_(1)
  }
#undef HLOVM_F32P_FINISH_ROW_
  if (i < end) {
    if (any_columns) {
      for (int k = 0; k < num_streams; ++k) {
        if (!kinds[k].columns) continue;
        columns[k].left -= elapsed;
        if (columns[k].left > 0) continue;
        columns[k].left = kinds[k].repeat;
        for (int r = 0; r < num_columns_refs; ++r) {
          if (columns_refs[r].stream != k) continue;
          *columns_refs[r].address =
              static_cast<const uint8_t*>(*columns_refs[r].address) - columns[k].bytes;
        }
      }
    }
    for (int r = 0; r < num_repeated; ++r) {
      Repeated& rep = repeated[r];
      rep.left -= elapsed;
      if (rep.left > 0) continue;
      const F32Stream& s = kinds[rep.stream];
      rep.left = s.repeat;
      rep.index = rep.index + 1 == s.period ? 0 : rep.index + 1;
      splat[rep.stream] = SplatValue(streams[rep.stream], s.half, rep.index);
    }
    event = next_event();
    HLOVM_F32P_PREFETCH_FAR_
    step = steps;
    goto* step->go;
  }
  // The non-temporal stores reach memory before anything after the program
  // reads them.
  if (streamed) hwy::FlushStream();
#undef HLOVM_F32P_F_
#undef HLOVM_F32P_H_
#undef HLOVM_F32P_S_
#undef HLOVM_F32P_B_
#undef HLOVM_F32P_EACH_
#undef HLOVM_F32P_NEXT_
#undef HLOVM_F32P_FORWARD_
#undef HLOVM_F32P_OPERAND_KINDS_
#undef HLOVM_F32P_REVERSED_
#undef HLOVM_F32P_BINARY_
#undef HLOVM_F32P_COMPARE_
#undef HLOVM_F32P_SELECT_
#undef HLOVM_F32P_SELECTS_
#undef HLOVM_F32P_LOAD_
#undef HLOVM_F32P_UNARY_
#undef HLOVM_F32P_PREFETCH_FAR_
}

// Whole blocks of U vectors, then the rest one element at a time (all of
// it one at a time where a repeated splat would straddle blocks).
template <size_t U>
HWY_INLINE void RunF32ProgramBlocks(const F32ProgramOp* code, int num_ops, void* const* streams,
                                    const F32Stream* kinds, int num_streams, int64_t offset,
                                    int64_t len) {
  const hn::ScalableTag<float> d;
  const int64_t block = static_cast<int64_t>(U * hn::Lanes(d));
  HWY_ALIGN float spill[kF32ProgramMaxSpills * U * (HWY_MAX_BYTES / sizeof(float))];
  const int64_t whole =
      RepeatsAlign(kinds, num_streams, offset, block) ? len / block * block : 0;
  RunF32Steps<U>(d, code, num_ops, streams, kinds, num_streams, offset, 0, whole, spill);
  if (whole < len) {
    RunF32Steps<1>(hn::CappedTag<float, 1>(), code, num_ops, streams, kinds, num_streams, offset,
                   whole, len, spill);
  }
}

// Four vectors a block: with eight, the compiler no longer keeps the
// accumulator of every handler in registers, and the chain benchmarks
// slow down.
void RunF32ProgramImpl(const F32ProgramOp* code, int num_ops, void* const* streams,
                       const F32Stream* kinds, int num_streams, int64_t offset, int64_t len) {
  RunF32ProgramBlocks<4>(code, num_ops, streams, kinds, num_streams, offset, len);
}

}  // namespace HWY_NAMESPACE
}  // namespace elementwise_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // include guard
