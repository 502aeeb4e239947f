// Lowering of rng-bit-generator, rng and rng-get-and-update-state (kernels
// in ops/rng/). rng-bit-generator fills its output in fixed chunks of
// generator blocks, so the bits never depend on the thread count;
// rng_default is Philox, as on XLA's CPU backend.
//
// rng and rng-get-and-update-state share one generator state per program,
// as XLA's CPU backend keeps one 128-bit global per compiled module: it
// starts at 0x7012395 and each call returns the old value and adds its
// delta (rng reserves elements x (bits / 32) units, f16/bf16 as f32). The
// Philox key of rng is 0: XLA xors a per-module and a process-wide value
// that both come from mt19937_64 seeded with 42, which are equal for the
// first module a process compiles when no seed is configured.
#include <cstring>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"
#include "ops/lowerings.h"
#include "ops/rng/rng_bits.h"
#include "ops/rng/rng_dist.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

bool RngBitGeneratorHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const RngBitsPlan*>(instr.plan);
  uint64_t state[3] = {0, 0, 0};
  std::memcpy(state, regs[instr.in[0]], sizeof(uint64_t) * p.state_size);
  uint8_t* bits = regs[instr.out[1]];
  ForEachChunk(ctx, p.blocks, p.blocks_per_chunk,
               [&](int64_t b, int64_t e) { RunRngBits(p, state, bits, b, e); });
  uint64_t next[3] = {0, 0, 0};
  RngBitsNextState(p, state, next);
  std::memcpy(regs[instr.out[0]], next, sizeof(uint64_t) * p.state_size);
  return true;
}

absl::Status LowerRngBitGenerator(FunctionBuilder& b, const HloInstruction& instr,
                                  absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& state = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!state.IsArray() || state.element_type() != ElementType::kU64 || state.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("rng-bit-generator needs a u64 vector state, got %s.", ShapeText(state)));
  }
  if (!out.IsTuple() || out.tuple_size() != 2 || !out.tuple_shape(1).IsArray() ||
      !out.tuple_shape(0).IsArray() || out.tuple_shape(0).dimensions() != state.dimensions()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rng-bit-generator returns (state, bits) with the state's shape, got %s.", ShapeText(out)));
  }
  const Shape& bits = out.tuple_shape(1);
  const ElementType et = bits.element_type();
  if (et == ElementType::kPred || IsComplex(et) || IsSubByte(et) || et == ElementType::kF6E2M3FN ||
      et == ElementType::kF6E3M2FN || et == ElementType::kF4E2M1FN) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rng-bit-generator produces elements of 8 to 64 bits, not %s (pred, complex and "
        "sub-byte types are not supported).",
        ElementTypeName(et)));
  }
  const RngBitsAlgorithm algorithm = instr.attrs().rng_algorithm == RngAlgorithm::kThreeFry
                                         ? RngBitsAlgorithm::kThreeFry
                                         : RngBitsAlgorithm::kPhilox;
  HLOVM_ASSIGN_OR_RETURN(RngBitsPlan plan,
                         MakeRngBitsPlan(algorithm, ByteWidth(et), bits.dimensions(),
                                         static_cast<int>(state.dimensions()[0])));
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(out));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &RngBitGeneratorHandler;
  spec.in = {(*ops[0])[0]};
  spec.out = outs;
  spec.cost = plan.blocks * (algorithm == RngBitsAlgorithm::kThreeFry ? 40 : 60);
  spec.kind = HandlerKind::kRngBitGenerator;
  spec.variant = absl::StrCat(algorithm == RngBitsAlgorithm::kThreeFry ? "three_fry " : "philox ",
                              std::string(ElementTypeName(et)), " blocks=", plan.blocks);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  *result = std::move(outs);
  return absl::OkStatus();
}

// The generator state of one program (a 128-bit counter).
struct RngProgramState {
  absl::Mutex mu;
  uint64_t lo ABSL_GUARDED_BY(mu) = 0x7012395;
  uint64_t hi ABSL_GUARDED_BY(mu) = 0;

  // Returns the state and adds `delta`.
  void GetAndAdd(uint64_t delta, uint64_t* lo_out, uint64_t* hi_out) {
    absl::MutexLock lock(&mu);
    *lo_out = lo;
    *hi_out = hi;
    const uint64_t old = lo;
    lo += delta;
    if (lo < old) ++hi;
  }
};

// One state per Program: the plans of its instructions hold it, so it lives
// as long as the program.
std::shared_ptr<RngProgramState> StateOf(const Program* program) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* states = new absl::flat_hash_map<const Program*, std::weak_ptr<RngProgramState>>();
  absl::MutexLock lock(&mu);
  std::weak_ptr<RngProgramState>& slot = (*states)[program];
  std::shared_ptr<RngProgramState> state = slot.lock();
  if (state == nullptr) {
    for (auto it = states->begin(); it != states->end();) {
      if (it->second.expired() && it->first != program) {
        states->erase(it++);
      } else {
        ++it;
      }
    }
    state = std::make_shared<RngProgramState>();
    (*states)[program] = state;
  }
  return state;
}

struct RngStatePlan {
  std::shared_ptr<RngProgramState> state;
  uint64_t delta = 0;
};

bool RngGetAndUpdateStateHandler(const Instr& instr, uint8_t* const* regs, ExecContext&) {
  const auto& p = *static_cast<const RngStatePlan*>(instr.plan);
  uint64_t s[2];
  p.state->GetAndAdd(p.delta, &s[0], &s[1]);
  std::memcpy(regs[instr.out[0]], s, sizeof(s));
  return true;
}

absl::Status LowerRngGetAndUpdateState(FunctionBuilder& b, const HloInstruction& instr,
                                       absl::Span<const ValueDesc* const>, ValueDesc* result) {
  const Shape& out = instr.shape();
  if (!out.IsArray() || out.element_type() != ElementType::kU64 || out.rank() != 1 ||
      out.dimensions()[0] != 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("rng-get-and-update-state returns u64[2], got %s.", ShapeText(out)));
  }
  if (instr.attrs().rng_delta < 0) {
    return absl::InvalidArgumentError("rng-get-and-update-state needs delta >= 0.");
  }
  HLOVM_ASSIGN_OR_RETURN(Reg reg, b.NewReg(RegKind::kOwned, out));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &RngGetAndUpdateStateHandler;
  spec.out = {reg};
  spec.cost = 1;
  spec.kind = HandlerKind::kRngGetAndUpdateState;
  spec.variant = absl::StrCat("delta=", instr.attrs().rng_delta);
  spec.side_effect = true;
  spec.plan = b.program().AddPlan(
      RngStatePlan{StateOf(&b.program()), static_cast<uint64_t>(instr.attrs().rng_delta)});
  b.Emit(&instr, std::move(spec));
  result->push_back(reg);
  return absl::OkStatus();
}

struct RngOpPlan {
  RngDistPlan dist;
  std::shared_ptr<RngProgramState> state;
};

constexpr int64_t kRngUniformChunk = 16384;  // a multiple of kRngDistAlign

bool RngHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const RngOpPlan*>(instr.plan);
  uint64_t lo, hi;
  p.state->GetAndAdd(p.dist.delta, &lo, &hi);
  const uint8_t* a = regs[instr.in[0]];
  const uint8_t* b = regs[instr.in[1]];
  uint8_t* out = regs[instr.out[0]];
  if (p.dist.distribution == RandomDistribution::kNormal) {
    RunRngDist(p.dist, /*key=*/0, lo, hi, a, b, out, 0, p.dist.elements);
  } else {
    // Fixed chunks of whole Philox blocks: the same bits for any thread count.
    ForEachChunk(ctx, p.dist.elements, kRngUniformChunk, [&](int64_t begin, int64_t end) {
      RunRngDist(p.dist, /*key=*/0, lo, hi, a, b, out, begin, end);
    });
  }
  return true;
}

absl::Status LowerRng(FunctionBuilder& b, const HloInstruction& instr,
                      absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 2) {
    return absl::InvalidArgumentError("rng takes two scalar parameters.");
  }
  const Shape& out = instr.shape();
  for (int i = 0; i < 2; ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray() || s.rank() != 0 || s.element_type() != out.element_type()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "rng's parameters must be scalars of the result's element type, got %s.", ShapeText(s)));
    }
  }
  HLOVM_ASSIGN_OR_RETURN(RngDistPlan dist, MakeRngDistPlan(instr.attrs().distribution,
                                                           out.element_type(), out.dimensions()));
  HLOVM_ASSIGN_OR_RETURN(Reg reg, b.NewReg(RegKind::kOwned, out));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &RngHandler;
  spec.in = {(*ops[0])[0], (*ops[1])[0]};
  spec.out = {reg};
  spec.cost = dist.elements * 20;
  spec.kind = HandlerKind::kRng;
  spec.variant = absl::StrCat(
      instr.attrs().distribution == RandomDistribution::kNormal ? "normal " : "uniform ",
      std::string(ElementTypeName(out.element_type())));
  spec.side_effect = true;
  spec.plan = b.program().AddPlan(RngOpPlan{dist, StateOf(&b.program())});
  b.Emit(&instr, std::move(spec));
  result->push_back(reg);
  return absl::OkStatus();
}

}  // namespace

void RegisterRngLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kRngBitGenerator)] = &LowerRngBitGenerator;
  table[static_cast<int>(HloOpcode::kRng)] = &LowerRng;
  table[static_cast<int>(HloOpcode::kRngGetAndUpdateState)] = &LowerRngGetAndUpdateState;
}

}  // namespace vm
}  // namespace hlovm
