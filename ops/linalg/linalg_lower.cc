// Lowering of triangular-solve and cholesky (kernels in ops/linalg/linalg.h):
// one instruction each, its fixed work units (blocks of right-hand sides,
// batch matrices) spread over threads, so results never depend on the
// thread count.
#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/linalg/linalg.h"
#include "ops/lowerings.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

// Below this many flops the op runs on the calling thread.
constexpr int64_t kParallelLinalgFlops = 1 << 20;

int64_t UnitsPerChunk(int64_t flops, int64_t units) {
  return flops < kParallelLinalgFlops ? std::max<int64_t>(1, units) : 1;
}

bool TriangularSolveHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const TriangularSolvePlan*>(instr.plan);
  const uint8_t* a = regs[instr.in[0]];
  const uint8_t* b = regs[instr.in[1]];
  uint8_t* x = regs[instr.out[0]];
  ForEachChunk(ctx, p.units(), UnitsPerChunk(p.flops(), p.units()),
               [&](int64_t begin, int64_t end) { RunTriangularSolve(p, a, b, x, begin, end); });
  return true;
}

bool CholeskyHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const CholeskyPlan*>(instr.plan);
  const uint8_t* a = regs[instr.in[0]];
  uint8_t* l = regs[instr.out[0]];
  ForEachChunk(ctx, p.units(), UnitsPerChunk(p.flops(), p.units()),
               [&](int64_t begin, int64_t end) { RunCholesky(p, a, l, begin, end); });
  return true;
}

absl::Status LowerTriangularSolve(FunctionBuilder& b, const HloInstruction& instr,
                                  absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 2 || ops[0]->size() != 1 || ops[1]->size() != 1) {
    return absl::InvalidArgumentError("triangular-solve takes two array operands");
  }
  HLOVM_ASSIGN_OR_RETURN(
      TriangularSolvePlan plan,
      MakeTriangularSolvePlan(instr.operand(0)->shape(), instr.operand(1)->shape(),
                              instr.attrs().left_side, instr.attrs().lower,
                              instr.attrs().unit_diagonal, instr.attrs().transpose_a));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &TriangularSolveHandler;
  spec.in = {(*ops[0])[0], (*ops[1])[0]};
  spec.out = {out};
  spec.cost = std::max<int64_t>(plan.flops(), b.function().regs[out].bytes);
  spec.kind = HandlerKind::kTriangularSolve;
  static constexpr const char* kTranspose[] = {"", " transpose", " adjoint"};
  spec.variant = absl::StrCat(std::string(ElementTypeName(plan.types.type)), " batch=", plan.batch,
                              " m=", plan.m, " n=", plan.n, plan.left_side ? " left" : " right",
                              plan.lower ? " lower" : " upper", plan.unit_diagonal ? " unit" : "",
                              kTranspose[static_cast<int>(plan.transpose_a)]);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

absl::Status LowerCholesky(FunctionBuilder& b, const HloInstruction& instr,
                           absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 1 || ops[0]->size() != 1) {
    return absl::InvalidArgumentError("cholesky takes one array operand");
  }
  HLOVM_ASSIGN_OR_RETURN(CholeskyPlan plan,
                         MakeCholeskyPlan(instr.operand(0)->shape(), instr.attrs().lower));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &CholeskyHandler;
  spec.in = {(*ops[0])[0]};
  spec.out = {out};
  spec.cost = std::max<int64_t>(plan.flops(), b.function().regs[out].bytes);
  spec.kind = HandlerKind::kCholesky;
  spec.variant = absl::StrCat(std::string(ElementTypeName(plan.types.type)), " batch=", plan.batch,
                              " n=", plan.n, plan.lower ? " lower" : " upper");
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

}  // namespace

void RegisterLinalgLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kTriangularSolve)] = &LowerTriangularSolve;
  table[static_cast<int>(HloOpcode::kCholesky)] = &LowerCholesky;
}

}  // namespace vm
}  // namespace hlovm
