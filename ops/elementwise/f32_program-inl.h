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

#include <cstdint>

#include "hwy/highway.h"
#include "ops/elementwise/f32_program.h"

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

// One block of U vectors at element i: the accumulator stays in registers
// from op to op; only spills and streams touch memory.
// An operand's address, resolved once per call: element i of a block is at
// base + (i & mask) elements (streams advance with i, spill slots do not);
// `half`: a bf16 stream.
struct F32Address {
  void* base;
  int64_t mask;
  bool half;
};

// Rounds to bf16 in registers, bit for bit as F32ToBF16 then BF16ToF32.
template <class D, class V>
HWY_INLINE V RoundToBF16(D d, V v) {
  const hn::RebindToSigned<D> di;
  const auto bits = hn::BitCast(di, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(di, 1));
  const auto rounded = hn::Add(bits, hn::Add(lsb, hn::Set(di, 0x7fff)));
  const auto high = hn::Set(di, static_cast<int32_t>(0xffff0000u));
  const auto nan = hn::Or(hn::And(bits, high), hn::Set(di, 0x00400000));
  return hn::BitCast(d, hn::IfThenElse(hn::RebindMask(di, hn::IsNaN(v)), nan,
                                       hn::And(rounded, high)));
}

template <size_t U, bool kMayHalf, class D>
HWY_INLINE void F32ProgramBlock(D d, const F32ProgramOp* code, int num_ops,
                                const F32Address* a_at, const F32Address* b_at, int64_t i) {
  using V = hn::Vec<D>;
  const size_t n = hn::Lanes(d);
  V acc[U];
  for (size_t k = 0; k < U; ++k) acc[k] = hn::Zero(d);
  const hn::RebindToUnsigned<D> du32;
  const hn::RebindToSigned<D> di32;
  const hn::Rebind<uint16_t, D> du16;
  // Vector k of operand x in this block.
  auto load = [&](const F32Address& x, size_t k) -> V {
    const int64_t at = (i & x.mask) + static_cast<int64_t>(k * n);
    if (kMayHalf && x.half) {
      const auto wide =
          hn::PromoteTo(du32, hn::LoadU(du16, static_cast<const uint16_t*>(x.base) + at));
      return hn::BitCast(d, hn::ShiftLeft<16>(wide));
    }
    return hn::LoadU(d, static_cast<const float*>(x.base) + at);
  };
  auto store = [&](const F32Address& x, size_t k, V v) {
    const int64_t at = (i & x.mask) + static_cast<int64_t>(k * n);
    if (kMayHalf && x.half) {
      const auto top = hn::BitCast(di32, hn::ShiftRight<16>(hn::BitCast(du32, v)));
      hn::StoreU(hn::DemoteTo(du16, top), du16, static_cast<uint16_t*>(x.base) + at);
      return;
    }
    hn::StoreU(v, d, static_cast<float*>(x.base) + at);
  };
#define HLOVM_F32P_UNARY_(code_name, Op)                              \
  case F32Code::code_name:                                           \
    for (size_t k = 0; k < U; ++k) acc[k] = Op()(d, acc[k]);         \
    break;
// f(acc, a), f(a, acc) or f(acc, acc).
#define HLOVM_F32P_BINARY_(code_name, Op, Wrap)                                             \
  case F32Code::code_name: {                                                               \
    const auto f = Op;                                                                     \
    if (op.a.kind == F32Operand::kAcc) {                                                   \
      for (size_t k = 0; k < U; ++k) acc[k] = Wrap(f(acc[k], acc[k]));                     \
    } else if (op.reversed) {                                                              \
      for (size_t k = 0; k < U; ++k) acc[k] = Wrap(f(load(a_at[pc], k), acc[k]));         \
    } else {                                                                               \
      for (size_t k = 0; k < U; ++k) acc[k] = Wrap(f(acc[k], load(a_at[pc], k)));         \
    }                                                                                      \
    break;                                                                                 \
  }
  auto keep = [](V v) { return v; };
  auto mask = [&](auto m) { return hn::VecFromMask(d, m); };
  for (int pc = 0; pc < num_ops; ++pc) {
    const F32ProgramOp& op = code[pc];
    switch (op.code) {
      case F32Code::kLoad:
        for (size_t k = 0; k < U; ++k) acc[k] = load(a_at[pc], k);
        break;
      case F32Code::kStore:
      case F32Code::kSpill:
        for (size_t k = 0; k < U; ++k) store(a_at[pc], k, acc[k]);
        break;
      case F32Code::kRoundBF16:
        for (size_t k = 0; k < U; ++k) acc[k] = RoundToBF16(d, acc[k]);
        break;
      case F32Code::kNop:
        break;
      HLOVM_F32P_UNARY_(kAbs, AbsOp)
      HLOVM_F32P_UNARY_(kNeg, NegOp)
      HLOVM_F32P_UNARY_(kSqrt, SqrtOp)
      HLOVM_F32P_UNARY_(kRsqrt, RsqrtOp)
      HLOVM_F32P_UNARY_(kFloor, FloorOp)
      HLOVM_F32P_UNARY_(kCeil, CeilOp)
      HLOVM_F32P_UNARY_(kRoundEven, RoundEvenOp)
      HLOVM_F32P_UNARY_(kExp, ExpF32Op)
      HLOVM_F32P_UNARY_(kLogistic, LogisticF32Op)
      HLOVM_F32P_UNARY_(kTanh, TanhF32Op)
      HLOVM_F32P_BINARY_(kAdd, Bound<AddOp>(d), keep)
      HLOVM_F32P_BINARY_(kSub, Bound<SubOp>(d), keep)
      HLOVM_F32P_BINARY_(kMul, Bound<MulOp>(d), keep)
      HLOVM_F32P_BINARY_(kDiv, Bound<DivOp>(d), keep)
      HLOVM_F32P_BINARY_(kMax, Bound<MaxOp>(d), keep)
      HLOVM_F32P_BINARY_(kMin, Bound<MinOp>(d), keep)
      HLOVM_F32P_BINARY_(kEq, CmpEq(), mask)
      HLOVM_F32P_BINARY_(kNe, CmpNe(), mask)
      HLOVM_F32P_BINARY_(kGe, CmpGe(), mask)
      HLOVM_F32P_BINARY_(kGt, CmpGt(), mask)
      HLOVM_F32P_BINARY_(kLe, CmpLe(), mask)
      HLOVM_F32P_BINARY_(kLt, CmpLt(), mask)
      case F32Code::kSelect:
        for (size_t k = 0; k < U; ++k) {
          acc[k] = hn::IfThenElse(hn::MaskFromVec(acc[k]), load(a_at[pc], k), load(b_at[pc], k));
        }
        break;
      default:
        __builtin_unreachable();
    }
  }
#undef HLOVM_F32P_UNARY_
#undef HLOVM_F32P_BINARY_
}

template <size_t U, bool kMayHalf, class D>
HWY_INLINE void RunF32Blocks(D d, const F32ProgramOp* code, int num_ops, void* const* streams,
                             const bool* half, int64_t begin, int64_t end, float* spill) {
  const size_t n = hn::Lanes(d);
  F32Address a_at[kF32ProgramMaxOps], b_at[kF32ProgramMaxOps];
  auto resolve = [&](const F32Operand& o) -> F32Address {
    if (o.kind == F32Operand::kStream) {
      return F32Address{streams[o.index], ~int64_t{0}, half[o.index]};
    }
    return F32Address{spill + o.index * U * n, 0, false};
  };
  for (int pc = 0; pc < num_ops; ++pc) {
    a_at[pc] = resolve(code[pc].a);
    b_at[pc] = resolve(code[pc].b);
  }
  const int64_t block = static_cast<int64_t>(U * n);
  for (int64_t i = begin; i + block <= end; i += block) {
    F32ProgramBlock<U, kMayHalf>(d, code, num_ops, a_at, b_at, i);
  }
}

template <size_t U, bool kMayHalf>
HWY_INLINE void RunF32Program(const F32ProgramOp* code, int num_ops, void* const* streams,
                              const bool* half, int64_t len) {
  const hn::ScalableTag<float> d;
  const int64_t block = static_cast<int64_t>(U * hn::Lanes(d));
  HWY_ALIGN float spill[kF32ProgramMaxSpills * U * (HWY_MAX_BYTES / sizeof(float))];
  const int64_t whole = len / block * block;
  RunF32Blocks<U, kMayHalf>(d, code, num_ops, streams, half, 0, whole, spill);
  const hn::CappedTag<float, 1> d1;
  for (int64_t i = whole; i < len; ++i) {
    RunF32Blocks<1, kMayHalf>(d1, code, num_ops, streams, half, i, i + 1, spill);
  }
}

// Four vectors a block: with more, the compiler no longer keeps the
// accumulator in registers across the ops.
void RunF32ProgramImpl(const F32ProgramOp* code, int num_ops, void* const* streams,
                       const bool* half, int64_t len) {
  // Programs over f32 streams only do without the bf16 tests.
  bool any_half = false;
  for (int pc = 0; pc < num_ops; ++pc) {
    for (const F32Operand& o : {code[pc].a, code[pc].b}) {
      any_half |= o.kind == F32Operand::kStream && half[o.index];
    }
  }
  if (any_half) {
    RunF32Program<4, true>(code, num_ops, streams, half, len);
  } else {
    RunF32Program<4, false>(code, num_ops, streams, half, len);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace elementwise_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // include guard
