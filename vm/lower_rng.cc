// Lowering of rng-bit-generator (kernels in ops/rng/rng_bits.*). The output
// is filled in fixed chunks of generator blocks, so the bits never depend on
// the thread count. rng_default is Philox, as on XLA's CPU backend.
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"
#include "ops/rng/rng_bits.h"
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
    return absl::InvalidArgumentError(absl::StrFormat(
        "rng-bit-generator needs a u64 vector state, got %s.", ShapeText(state)));
  }
  if (!out.IsTuple() || out.tuple_size() != 2 || !out.tuple_shape(1).IsArray() ||
      !out.tuple_shape(0).IsArray() ||
      out.tuple_shape(0).dimensions() != state.dimensions()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rng-bit-generator returns (state, bits) with the state's shape, got %s.",
        ShapeText(out)));
  }
  const Shape& bits = out.tuple_shape(1);
  const ElementType et = bits.element_type();
  if (et == ElementType::kPred || IsComplex(et)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rng-bit-generator cannot produce %s elements.", ElementTypeName(et)));
  }
  const RngBitsAlgorithm algorithm = instr.rng_algorithm == RngAlgorithm::kThreeFry
                                         ? RngBitsAlgorithm::kThreeFry
                                         : RngBitsAlgorithm::kPhilox;
  HLOVM_ASSIGN_OR_RETURN(
      RngBitsPlan plan,
      MakeRngBitsPlan(algorithm, ByteWidth(et), bits.dimensions(),
                      static_cast<int>(state.dimensions()[0])));
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(out));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &RngBitGeneratorHandler;
  spec.in = {(*ops[0])[0]};
  spec.out = outs;
  spec.cost = plan.blocks * (algorithm == RngBitsAlgorithm::kThreeFry ? 40 : 60);
  spec.mnemonic = "rng-bit-generator";
  spec.variant = absl::StrCat(
      algorithm == RngBitsAlgorithm::kThreeFry ? "three_fry " : "philox ",
      std::string(ElementTypeName(et)), " blocks=", plan.blocks);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  *result = std::move(outs);
  return absl::OkStatus();
}

}  // namespace

void RegisterRngLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kRngBitGenerator)] = &LowerRngBitGenerator;
}

}  // namespace vm
}  // namespace hlovm
