// Lowering of fft (FFT, IFFT, RFFT, IRFFT). The FFTW plans are made here, at
// compile time (ops/fft/fft.h); the handler only executes them. The batch is
// split into the kernel's fixed chunks, so results never depend on the thread
// count.
#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/fft/fft.h"
#include "vm/compiler.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

struct FftVmPlan {
  std::unique_ptr<FftKernel> kernel;
};

bool FftHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const FftKernel& k = *static_cast<const FftVmPlan*>(instr.plan)->kernel;
  const uint8_t* in = regs[instr.in[0]];
  uint8_t* out = regs[instr.out[0]];
  std::atomic<bool> ok{true};
  ForEachChunk(ctx, k.chunks(), 1, [&](int64_t b, int64_t e) {
    if (!k.RunChunks(in, out, b, e)) ok = false;
  });
  if (!ok.load()) return ctx.Fail(absl::ResourceExhaustedError("fft: out of memory for scratch"));
  return true;
}

absl::Status LowerFft(FunctionBuilder& b, const HloInstruction& instr,
                      absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 1 || ops[0]->size() != 1) {
    return absl::InvalidArgumentError("fft takes one array operand");
  }
  const Shape& in_shape = instr.operand(0)->shape();
  const Shape& out_shape = instr.shape();
  const int rank = static_cast<int>(instr.attrs().fft_length.size());
  if (rank < 1 || rank > 3 || in_shape.rank() < rank || !out_shape.IsArray()) {
    return absl::InvalidArgumentError("fft needs fft_length of 1-3 dimensions within the operand");
  }
  FftKernelSpec spec;
  spec.type = instr.attrs().fft_type;
  spec.rank = rank;
  spec.plan_mode = b.compiler().options().fft_plan;
  for (int i = 0; i < rank; ++i) spec.length[i] = instr.attrs().fft_length[i];
  const ElementType real_or_complex = spec.type == FftType::kRfft ? in_shape.element_type()
                                                                    : out_shape.element_type();
  const ElementType t = spec.type == FftType::kIrfft ? out_shape.element_type() : real_or_complex;
  switch (t) {
    case ElementType::kC64:
    case ElementType::kF32: spec.single = true; break;
    case ElementType::kC128:
    case ElementType::kF64: spec.single = false; break;
    default:
      return absl::UnimplementedError(absl::StrCat(
          "fft of ", std::string(ElementTypeName(in_shape.element_type())), " is not supported"));
  }
  spec.batch = 1;
  for (int64_t i = 0; i < in_shape.rank() - rank; ++i) spec.batch *= in_shape.dimensions()[i];
  HLOVM_ASSIGN_OR_RETURN(std::unique_ptr<FftKernel> kernel, FftKernel::Create(spec));
  const int64_t elems_in = in_shape.element_count(), elems_out = out_shape.element_count();
  if (kernel->chunks() > 0 && (elems_in != spec.batch * kernel->in_elems() ||
                               elems_out != spec.batch * kernel->out_elems())) {
    return absl::InvalidArgumentError("fft operand or result shape does not match fft_length");
  }
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(out_shape));
  FunctionBuilder::EmitSpec es;
  es.handler = &FftHandler;
  es.in = {(*ops[0])[0]};
  es.out = outs;
  es.cost = spec.batch * kernel->transform_bytes() * 4;
  es.mnemonic = "fft";
  es.variant = kernel->Describe();
  es.plan = b.program().AddPlan(FftVmPlan{std::move(kernel)});
  b.Emit(&instr, std::move(es));
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

}  // namespace

void RegisterFftLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kFft)] = &LowerFft;
}

}  // namespace vm
}  // namespace hlovm
