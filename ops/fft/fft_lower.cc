// Lowering of fft (FFT, IFFT, RFFT, IRFFT). The FFTW plans are made here, at
// compile time (ops/fft/fft.h); the handler only executes them. The batch is
// split into the kernel's fixed chunks, so results never depend on the thread
// count.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/fft/fft.h"
#include "ops/lowerings.h"
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

// FFT and IFFT whose fft_length differs from the operand's innermost
// dimensions run as XLA's evaluator computes them: each transform reads its
// input truncated, or padded with zeros, to fft_length, and its result is
// truncated, or padded with zeros, back to the operand's dimensions (all
// zeros when an fft_length is 0). ResizeHandler does both copies.
struct ResizePlan {
  int64_t batch = 1;
  std::array<int64_t, 3> from{1, 1, 1}, to{1, 1, 1};  // the fft dimensions, padded with 1s
  int64_t elem = 8;                                   // bytes per element
};

bool ResizeHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const ResizePlan*>(instr.plan);
  const uint8_t* src = regs[instr.in[0]];
  uint8_t* dst = regs[instr.out[0]];
  const int64_t from_size = p.from[0] * p.from[1] * p.from[2];
  const int64_t to_size = p.to[0] * p.to[1] * p.to[2];
  const int64_t keep = std::min(p.from[2], p.to[2]);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t i = 0; i < p.to[0]; ++i) {
      for (int64_t j = 0; j < p.to[1]; ++j) {
        uint8_t* row = dst + ((b * to_size) + (i * p.to[1] + j) * p.to[2]) * p.elem;
        int64_t copied = 0;
        if (i < p.from[0] && j < p.from[1]) {
          copied = keep;
          std::memcpy(row, src + ((b * from_size) + (i * p.from[1] + j) * p.from[2]) * p.elem,
                      keep * p.elem);
        }
        std::memset(row + copied * p.elem, 0, (p.to[2] - copied) * p.elem);
      }
    }
  }
  return true;
}

void EmitResize(FunctionBuilder& b, const HloInstruction& instr, Reg from, Reg to,
                ResizePlan plan) {
  FunctionBuilder::EmitSpec es;
  es.handler = &ResizeHandler;
  es.in = {from};
  es.out = {to};
  es.cost = b.function().regs[from].bytes + b.function().regs[to].bytes;
  es.kind = HandlerKind::kFftResize;
  es.variant = absl::StrCat(absl::StrJoin(plan.from, "x"), " -> ", absl::StrJoin(plan.to, "x"),
                            " batch=", plan.batch);
  es.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(es));
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
  // The complex transforms accept any fft_length (XLA checks the operand's
  // dimensions only for RFFT and IRFFT).
  const bool complex_transform = spec.type == FftType::kFft || spec.type == FftType::kIfft;
  ResizePlan resize;
  resize.batch = spec.batch;
  resize.elem = ByteWidth(in_shape.element_type());
  bool resized = false;
  for (int i = 0; i < rank; ++i) {
    resize.from[3 - rank + i] = in_shape.dimensions(in_shape.rank() - rank + i);
    resize.to[3 - rank + i] = spec.length[i];
    resized |= resize.from[3 - rank + i] != spec.length[i];
  }
  resized &= complex_transform;
  Shape staged = in_shape;
  if (resized) {
    std::vector<int64_t> dims(in_shape.dimensions().begin(), in_shape.dimensions().end());
    for (int i = 0; i < rank; ++i) dims[dims.size() - rank + i] = spec.length[i];
    staged = Shape(in_shape.element_type(), dims);
  }
  HLOVM_ASSIGN_OR_RETURN(std::unique_ptr<FftKernel> kernel, FftKernel::Create(spec));
  const int64_t elems_in = staged.element_count();
  const int64_t elems_out = resized ? elems_in : out_shape.element_count();
  if (kernel->chunks() > 0 && (elems_in != spec.batch * kernel->in_elems() ||
                               elems_out != spec.batch * kernel->out_elems())) {
    return absl::InvalidArgumentError("fft operand or result shape does not match fft_length");
  }
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(out_shape));
  if (resized && kernel->chunks() == 0) {
    // An fft_length of 0: every element of the result is zero.
    ResizePlan zeros = resize;
    std::swap(zeros.from, zeros.to);
    EmitResize(b, instr, (*ops[0])[0], outs[0], zeros);
    for (Reg r : outs) result->push_back(r);
    return absl::OkStatus();
  }
  Reg fft_in = (*ops[0])[0];
  Reg fft_out = outs[0];
  if (resized) {
    HLOVM_ASSIGN_OR_RETURN(fft_in, b.NewReg(RegKind::kOwned, staged));
    HLOVM_ASSIGN_OR_RETURN(fft_out, b.NewReg(RegKind::kOwned, staged));
    EmitResize(b, instr, (*ops[0])[0], fft_in, resize);
  }
  FunctionBuilder::EmitSpec es;
  es.handler = &FftHandler;
  es.in = {fft_in};
  es.out = {fft_out};
  es.cost = spec.batch * kernel->transform_bytes() * 4;
  es.kind = HandlerKind::kFft;
  es.variant = kernel->Describe();
  es.plan = b.program().AddPlan(FftVmPlan{std::move(kernel)});
  b.Emit(&instr, std::move(es));
  if (resized) {
    std::swap(resize.from, resize.to);
    EmitResize(b, instr, fft_out, outs[0], resize);
  }
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

}  // namespace

void RegisterFftLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kFft)] = &LowerFft;
}

}  // namespace vm
}  // namespace hlovm
