// Lowering of elementwise opcodes (every unary and binary one the kernels in
// ops/elementwise support, compare, select, clamp, convert, reduce-precision,
// stochastic-convert) to handlers that call the kernel selected at compile
// time, over chunks of the arrays when they are large.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/elementwise/elementwise.h"
#include "ops/elementwise/elementwise_lower.h"
#include "ops/elementwise/scalar_handlers.h"
#include "ops/elementwise/stochastic_convert.h"
#include "ops/lowerings.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

// Kernel: a function of one operand (UnaryKernel), or a reduce-precision
// kernel (which carries its bit counts); called the same way.
template <class Kernel>
struct UnaryPlan {
  Kernel kernel;
  int64_t n;
  int64_t chunk;  // elements per chunk
  int in_size, out_size;
};

template <class Kernel>
bool UnaryHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const UnaryPlan<Kernel>*>(instr.plan);
  const uint8_t* a = regs[instr.in[0]];
  uint8_t* o = regs[instr.out[0]];
  if (p.n <= p.chunk) {
    p.kernel(a, o, p.n);
    return true;
  }
  ForEachChunk(ctx, p.n, p.chunk, [&](int64_t b, int64_t e) {
    p.kernel(a + b * p.in_size, o + b * p.out_size, e - b);
  });
  return true;
}

struct BinaryPlan {
  BinaryKernel kernel;
  int64_t n;
  int64_t chunk;
  int in_size, out_size;
};

bool BinaryHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const BinaryPlan*>(instr.plan);
  const uint8_t* a = regs[instr.in[0]];
  const uint8_t* c = regs[instr.in[1]];
  uint8_t* o = regs[instr.out[0]];
  if (p.n <= p.chunk) {
    p.kernel(a, c, o, p.n);
    return true;
  }
  ForEachChunk(ctx, p.n, p.chunk, [&](int64_t b, int64_t e) {
    p.kernel(a + b * p.in_size, c + b * p.in_size, o + b * p.out_size, e - b);
  });
  return true;
}

struct TernaryPlan {
  TernaryKernel kernel;
  int64_t n;
  int64_t chunk;
  int sizes[3];
  int out_size;
  unsigned scalar_mask;
};

bool TernaryHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const TernaryPlan*>(instr.plan);
  const uint8_t* x = regs[instr.in[0]];
  const uint8_t* y = regs[instr.in[1]];
  const uint8_t* z = regs[instr.in[2]];
  uint8_t* o = regs[instr.out[0]];
  if (p.n <= p.chunk) {
    p.kernel(x, y, z, o, p.n, p.scalar_mask);
    return true;
  }
  auto at = [&](const uint8_t* base, int k, int64_t b) {
    return (p.scalar_mask >> k & 1) ? base : base + b * p.sizes[k];
  };
  ForEachChunk(ctx, p.n, p.chunk, [&](int64_t b, int64_t e) {
    p.kernel(at(x, 0, b), at(y, 1, b), at(z, 2, b), o + b * p.out_size, e - b, p.scalar_mask);
  });
  return true;
}

int64_t ChunkElements(int max_size) {
  return std::max<int64_t>(1024, kChunkBytes / std::max(1, max_size));
}

// Above kParallelKernelBytes a kernel is split; below it runs whole.
int64_t ChunkFor(int64_t n, int max_size) {
  return n * max_size < kParallelKernelBytes ? std::max<int64_t>(n, 1) : ChunkElements(max_size);
}

absl::Status CheckSameDims(const HloInstruction& instr) {
  for (const HloInstruction* op : instr.operands()) {
    if (!op->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat("operand %", op->name(), " is not an array"));
    }
    const bool scalar_ok = (instr.opcode() == HloOpcode::kSelect ||
                            instr.opcode() == HloOpcode::kClamp) &&
                           op->shape().rank() == 0;
    if (!scalar_ok && op->shape().dimensions() != instr.shape().dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat("operand %", op->name(), " has shape ",
                                                     op->shape().ToString(false),
                                                     ", the result ",
                                                     instr.shape().ToString(false)));
    }
  }
  return absl::OkStatus();
}

uint32_t InplaceMask(FunctionBuilder& b, const HloInstruction& instr,
                     absl::Span<const ValueDesc* const> ops) {
  uint32_t mask = 0;
  const int out_size = ByteWidth(instr.shape().element_type());
  for (size_t k = 0; k < ops.size(); ++k) {
    const Shape& s = instr.operand(k)->shape();
    if (ByteWidth(s.element_type()) == out_size &&
        s.element_count() == instr.shape().element_count()) {
      mask |= 1u << k;
    }
  }
  return mask;
}

absl::Status LowerElementwise(FunctionBuilder& b, const HloInstruction& instr,
                              absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& shape = instr.shape();
  for (const ValueDesc* op : ops) {
    if (op->size() != 1) return absl::InvalidArgumentError("elementwise operand must be an array");
  }
  HLOVM_ASSIGN_OR_RETURN(ElementwiseKernel k, SelectElementwiseKernel(instr));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, shape));
  const int64_t n = shape.element_count();
  FunctionBuilder::EmitSpec spec;
  spec.out = {out};
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.inplace_mask = InplaceMask(b, instr, ops) & ~k.scalar_mask;
  spec.variant = k.variant;
  int max_size = k.out_size;
  int64_t bytes = n * k.out_size;
  for (int i = 0; i < k.arity; ++i) {
    max_size = std::max(max_size, k.in_size[i]);
    bytes += (k.scalar_mask >> i & 1 ? 1 : n) * k.in_size[i];
  }
  const int64_t chunk = ChunkFor(n, max_size);
  if (chunk < n) absl::StrAppend(&spec.variant, " chunks of ", chunk);
  switch (k.kind) {
    case ElementwiseKernel::kUnary:
      spec.kind =
          instr.opcode() == HloOpcode::kConvert ? HandlerKind::kConvert : HandlerKind::kUnary;
      spec.handler = &UnaryHandler<UnaryKernel>;
      spec.plan =
          b.program().AddPlan(UnaryPlan<UnaryKernel>{k.unary, n, chunk, k.in_size[0], k.out_size});
      break;
    case ElementwiseKernel::kReducePrecision:
      spec.kind = HandlerKind::kReducePrecision;
      spec.handler = &UnaryHandler<ReducePrecisionKernel>;
      spec.plan = b.program().AddPlan(
          UnaryPlan<ReducePrecisionKernel>{k.reduce_precision, n, chunk, k.out_size, k.out_size});
      break;
    case ElementwiseKernel::kBinary:
      spec.kind = HandlerKind::kBinary;
      if (Handler direct = chunk >= n ? DirectBinaryHandler(k.binary, n == 1) : nullptr) {
        // Runs whole on this thread: the kernel is the handler's own.
        spec.handler = direct;
        spec.plan = b.program().AddPlan(DirectElementwisePlan{n});
        break;
      }
      spec.handler = &BinaryHandler;
      spec.plan = b.program().AddPlan(BinaryPlan{k.binary, n, chunk, k.in_size[0], k.out_size});
      break;
    case ElementwiseKernel::kTernary:
      spec.kind = HandlerKind::kTernary;
      spec.handler = &TernaryHandler;
      spec.plan = b.program().AddPlan(TernaryPlan{k.ternary, n, chunk,
                                                  {k.in_size[0], k.in_size[1], k.in_size[2]},
                                                  k.out_size, k.scalar_mask});
      break;
  }
  spec.cost = bytes;
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// stochastic-convert.
//===----------------------------------------------------------------------===//

struct StochasticConvertOpPlan {
  StochasticConvertPlan c;
  int64_t n, chunk;
};

bool StochasticConvertHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const StochasticConvertOpPlan*>(instr.plan);
  const uint8_t* x = regs[instr.in[0]];
  const uint8_t* r = regs[instr.in[1]];
  uint8_t* dst = regs[instr.out[0]];
  ForEachChunk(ctx, p.n, p.chunk,
               [&](int64_t b, int64_t e) { RunStochasticConvert(p.c, x, r, dst, b, e); });
  return true;
}

absl::Status LowerStochasticConvert(FunctionBuilder& b, const HloInstruction& instr,
                                    absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 2) {
    return absl::InvalidArgumentError("stochastic-convert takes an operand and random bits");
  }
  const Shape& x = instr.operand(0)->shape();
  const Shape& r = instr.operand(1)->shape();
  const Shape& out = instr.shape();
  for (const auto& [s, what] : {std::pair<const Shape*, const char*>{&x, "operand"},
                                 {&r, "random operand"},
                                 {&out, "result"}}) {
    if (!s->IsArray()) {
      return absl::InvalidArgumentError(
          absl::StrCat("stochastic-convert ", what, " must be an array, is ", s->ToString()));
    }
  }
  if (r.dimensions() != x.dimensions() || out.dimensions() != x.dimensions()) {
    return absl::InvalidArgumentError("stochastic-convert operands and result differ in shape");
  }
  HLOVM_ASSIGN_OR_RETURN(StochasticConvertPlan c,
                         MakeStochasticConvertPlan(x.element_type(), r.element_type(),
                                                   out.element_type()));
  HLOVM_ASSIGN_OR_RETURN(Reg reg, b.NewReg(RegKind::kOwned, out));
  const int64_t n = out.element_count();
  const int64_t bytes = n * (std::max(1, ByteWidth(x.element_type())) * 2 +
                           std::max(1, ByteWidth(out.element_type())));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &StochasticConvertHandler;
  spec.in = {(*ops[0])[0], (*ops[1])[0]};
  spec.out = {reg};
  spec.cost = bytes;
  spec.kind = HandlerKind::kStochasticConvert;
  spec.variant = absl::StrCat(std::string(ElementTypeName(x.element_type())), " -> ",
                              std::string(ElementTypeName(out.element_type())));
  const int64_t chunk = bytes < kParallelKernelBytes ? std::max<int64_t>(1, n)
                                                     : std::max<int64_t>(1, kChunkBytes / 8);
  spec.plan = b.program().AddPlan(StochasticConvertOpPlan{c, n, chunk});
  b.Emit(&instr, std::move(spec));
  result->push_back(reg);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ElementwiseKernel> SelectElementwiseKernel(const HloInstruction& instr) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray()) return absl::InvalidArgumentError("elementwise result must be an array");
  HLOVM_RETURN_IF_ERROR(CheckSameDims(instr));
  ElementwiseKernel k;
  const ElementType rt = shape.element_type();
  k.out_size = ByteWidth(rt);
  k.arity = static_cast<int>(instr.operand_count());
  for (int i = 0; i < k.arity && i < 3; ++i) {
    k.in_size[i] = ByteWidth(instr.operand(i)->shape().element_type());
  }
  const HloOpcode opcode = instr.opcode();
  const OpFamily family = HloOpcodeFamily(opcode);
  const ElementType from = instr.operand(0)->shape().element_type();
  if (opcode == HloOpcode::kConvert) {
    k.kind = ElementwiseKernel::kUnary;
    HLOVM_ASSIGN_OR_RETURN(k.unary, SelectConvertKernel(from, rt));
    k.variant =
        absl::StrCat(std::string(ElementTypeName(from)), "->", std::string(ElementTypeName(rt)));
  } else if (opcode == HloOpcode::kReducePrecision) {
    k.kind = ElementwiseKernel::kReducePrecision;
    HLOVM_ASSIGN_OR_RETURN(
        k.reduce_precision,
        SelectReducePrecisionKernel(rt, static_cast<int>(instr.attrs().exponent_bits),
                                    static_cast<int>(instr.attrs().mantissa_bits)));
    k.variant = absl::StrCat(std::string(ElementTypeName(rt)), " e", instr.attrs().exponent_bits,
                             "m", instr.attrs().mantissa_bits);
  } else if (family == OpFamily::kUnary) {
    k.kind = ElementwiseKernel::kUnary;
    HLOVM_ASSIGN_OR_RETURN(k.unary, SelectUnaryKernel(opcode, from, rt));
    k.variant = std::string(ElementTypeName(from));
  } else if (family == OpFamily::kBinary) {
    if (instr.operand(1)->shape().element_type() != from) {
      return absl::InvalidArgumentError("binary operands must have the same element type");
    }
    k.kind = ElementwiseKernel::kBinary;
    HLOVM_ASSIGN_OR_RETURN(k.binary, SelectBinaryKernel(opcode, from, rt,
                                                        instr.comparison_direction,
                                                        instr.comparison_type));
    k.variant = std::string(ElementTypeName(from));
    if (opcode == HloOpcode::kCompare) {
      static constexpr const char* kDir[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
      absl::StrAppend(&k.variant, " ", kDir[static_cast<int>(instr.comparison_direction)]);
    }
  } else if (family == OpFamily::kTernary) {
    // select(pred, a, b): the type is that of a; clamp(min, x, max): of x.
    const ElementType type = instr.operand(1)->shape().element_type();
    k.kind = ElementwiseKernel::kTernary;
    HLOVM_ASSIGN_OR_RETURN(k.ternary, SelectTernaryKernel(opcode, type));
    for (int i = 0; i < 3; ++i) {
      if (instr.operand(i)->shape().rank() == 0 && shape.rank() != 0) k.scalar_mask |= 1u << i;
    }
    k.variant = std::string(ElementTypeName(type));
  } else {
    return absl::InternalError("not an elementwise opcode");
  }
  return k;
}

void RegisterElementwiseLowerings(LoweringTable& table) {
#define HLOVM_ELEMENTWISE_(e, name, arity, family, effect)                  \
  if (OpFamily::family == OpFamily::kUnary || OpFamily::family == OpFamily::kBinary || \
      OpFamily::family == OpFamily::kTernary) {                             \
    table[static_cast<int>(HloOpcode::e)] = &LowerElementwise;              \
  }
  HLOVM_OPCODE_LIST(HLOVM_ELEMENTWISE_)
#undef HLOVM_ELEMENTWISE_
  table[static_cast<int>(HloOpcode::kConvert)] = &LowerElementwise;
  table[static_cast<int>(HloOpcode::kReducePrecision)] = &LowerElementwise;
  table[static_cast<int>(HloOpcode::kStochasticConvert)] = &LowerStochasticConvert;
}

}  // namespace vm
}  // namespace hlovm
