// Lowering of the indexing opcodes: gather, scatter (variadic, any update
// computation) and map (any computation over N operands). Plans and kernels
// live in ops/indexing/; update and map computations that are one known
// opcode run through the elementwise kernels, any other computation runs as
// compiled bytecode through ComputationCall.
#include <algorithm>
#include <atomic>
#include <optional>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/elementwise/elementwise.h"
#include "ops/indexing/gather.h"
#include "ops/indexing/scatter.h"
#include "ops/lowerings.h"
#include "vm/computation_call.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

std::string TypeName(const Shape& s) { return std::string(ElementTypeName(s.element_type())); }

// ---------------------------------------------------------------- gather

struct GatherVmPlan {
  GatherPlan gather;
  int64_t positions_per_chunk;
};

bool GatherHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const GatherVmPlan*>(instr.plan);
  const uint8_t* operand = regs[instr.in[0]];
  const uint8_t* indices = regs[instr.in[1]];
  uint8_t* out = regs[instr.out[0]];
  const int64_t n = p.gather.windows.batch_count;
  if (n <= p.positions_per_chunk) {
    RunGather(p.gather, operand, indices, out, 0, n);
    return true;
  }
  ForEachChunk(ctx, n, p.positions_per_chunk,
               [&](int64_t b, int64_t e) { RunGather(p.gather, operand, indices, out, b, e); });
  return true;
}

absl::Status LowerGather(FunctionBuilder& b, const HloInstruction& instr,
                         absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (!instr.attrs().gather_dimension_numbers.has_value() || instr.operand_count() != 2 ||
      ops[0]->size() != 1 || ops[1]->size() != 1) {
    return absl::InvalidArgumentError("gather needs two array operands and dimension numbers");
  }
  const Shape& operand = instr.operand(0)->shape();
  const Shape& indices = instr.operand(1)->shape();
  HLOVM_ASSIGN_OR_RETURN(GatherPlan plan,
                         MakeGatherPlan(operand, indices, *instr.attrs().gather_dimension_numbers,
                                        instr.attrs().gather_slice_sizes, instr.shape()));
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  const int64_t bytes = b.function().regs[out].bytes;
  const int64_t window_bytes = std::max<int64_t>(1, plan.windows.window_elems * plan.elem_size);
  const int64_t per_chunk = bytes < kParallelKernelBytes
                                ? std::max<int64_t>(1, plan.windows.batch_count)
                                : std::max<int64_t>(1, kChunkBytes / window_bytes);
  FunctionBuilder::EmitSpec spec;
  spec.handler = &GatherHandler;
  spec.in = {(*ops[0])[0], (*ops[1])[0]};
  spec.out = {out};
  spec.cost = 2 * bytes + b.function().regs[(*ops[1])[0]].bytes;
  spec.kind = HandlerKind::kGather;
  spec.variant = absl::StrCat(TypeName(operand), " positions=", plan.windows.batch_count,
                              " window=", plan.windows.window_elems, " run=", plan.windows.run,
                              " idx=", TypeName(indices));
  spec.plan = b.program().AddPlan(GatherVmPlan{std::move(plan), per_chunk});
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

// ---------------------------------------------------------------- scatter

enum class CombineKind { kAssign, kTyped, kBinary, kCall };

// A scatter with a compiled combiner splits the result's elements into this
// many parts; every part walks all positions in order and applies only the
// updates that land in it, so each element sees its updates in the serial
// order whatever the thread count.
constexpr int64_t kScatterCallParts = 8;
// Update elements below which a compiled-combiner scatter runs as one part.
constexpr int64_t kScatterCallParallelElements = 4096;

struct ScatterVmPlan {
  ScatterPlan scatter;
  int num;  // operands (= updates = results)
  std::vector<int> elem_size;
  std::vector<int64_t> bytes;  // of each operand
  CombineKind kind = CombineKind::kCall;
  ScatterTypedKernel typed = nullptr;
  BinaryKernel binary = nullptr;
  const Function* combiner = nullptr;
  int64_t result_elems = 0;
  int64_t parts = 1;  // kCall: parts of the result run independently
};

// Copies `n` bytes, in parallel chunks when large.
void CopyBytes(ExecContext& ctx, uint8_t* dst, const uint8_t* src, int64_t n) {
  if (dst == src || n == 0) return;
  if (n < kParallelKernelBytes) {
    std::memcpy(dst, src, n);
    return;
  }
  ForEachChunk(ctx, n, kChunkBytes,
               [&](int64_t b, int64_t e) { std::memcpy(dst + b, src + b, e - b); });
}

// Applies the updates that land in result elements [lo, hi).
bool RunScatterCallPart(const ScatterVmPlan& p, uint8_t* const* results, const uint8_t* indices,
                        const uint8_t* const* updates, int64_t lo, int64_t hi,
                        ExecContext& ctx) {
  auto call_or = ComputationCall::Create(*p.combiner);
  if (!call_or.ok()) return ctx.Fail(call_or.status());
  ComputationCall& call = *call_or;
  const IndexWindowPlan& w = p.scatter.windows;
  const int n = p.num;
  std::vector<const void*> args(2 * n);
  const int64_t rows = WindowRows(w);
  bool ok = true;
  ForEachIndexedWindow(w, indices, 0, w.batch_count, [&](int64_t dst, int64_t src) {
    if (!ok) return;
    ForEachWindowRun(w, dst, src, 0, rows, [&](int64_t r, int64_t u, int64_t len) {
      const int64_t e_begin = std::max<int64_t>(0, lo - r);
      const int64_t e_end = std::min<int64_t>(len, hi - r);
      for (int64_t e = e_begin; e < e_end && ok; ++e) {
        for (int i = 0; i < n; ++i) {
          const int64_t es = p.elem_size[i];
          args[i] = results[i] + (r + e) * es;
          args[n + i] = updates[i] + (u + e) * es;
        }
        if (!call.Run(args.data(), ctx)) {
          ok = false;
          return;
        }
        for (int i = 0; i < n; ++i) {
          const int64_t es = p.elem_size[i];
          std::memmove(results[i] + (r + e) * es, call.result(i), es);
        }
      }
    });
  });
  return ok;
}

bool RunScatterCall(const ScatterVmPlan& p, uint8_t* const* results, const uint8_t* indices,
                    const uint8_t* const* updates, ExecContext& ctx) {
  if (p.parts <= 1) {
    return RunScatterCallPart(p, results, indices, updates, 0, p.result_elems, ctx);
  }
  std::atomic<bool> ok{true};
  const int64_t per_part = (p.result_elems + p.parts - 1) / p.parts;
  ForEachChunk(ctx, p.parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t part = b; part < e && ok.load(std::memory_order_relaxed); ++part) {
      const int64_t lo = part * per_part;
      const int64_t hi = std::min(p.result_elems, lo + per_part);
      if (lo < hi && !RunScatterCallPart(p, results, indices, updates, lo, hi, ctx)) ok = false;
    }
  });
  return ok.load();
}

bool ScatterHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const ScatterVmPlan*>(instr.plan);
  const int n = p.num;
  uint8_t* results[64];
  const uint8_t* updates[64];
  for (int i = 0; i < n; ++i) {
    results[i] = regs[instr.out[i]];
    updates[i] = regs[instr.in[n + 1 + i]];
    CopyBytes(ctx, results[i], regs[instr.in[i]], p.bytes[i]);
  }
  const uint8_t* indices = regs[instr.in[n]];
  switch (p.kind) {
    case CombineKind::kAssign:
      RunScatterAssign(p.scatter, p.elem_size, results, indices, updates);
      return true;
    case CombineKind::kTyped:
      p.typed(p.scatter, results[0], indices, updates[0]);
      return true;
    case CombineKind::kBinary:
      RunScatterBinary(p.scatter, p.elem_size[0], p.binary, results[0], indices, updates[0]);
      return true;
    case CombineKind::kCall:
      return RunScatterCall(p, results, indices, updates, ctx);
  }
  return true;
}

// True when `computation` returns its parameters num..2*num-1 unchanged
// (the update replaces the operand).
bool IsAssignCombiner(const HloComputation& computation, int num) {
  const HloInstruction* root = computation.root();
  if (root == nullptr || computation.parameter_count() != 2 * num) return false;
  auto is_param = [](const HloInstruction* i, int64_t k) {
    return i->opcode() == HloOpcode::kParameter && i->parameter_number == k &&
           i->shape().IsArray() && i->shape().rank() == 0;
  };
  if (num == 1) return is_param(root, 1);
  if (root->opcode() != HloOpcode::kTuple || root->operand_count() != num) return false;
  for (int i = 0; i < num; ++i) {
    if (!is_param(root->operand(i), num + i)) return false;
  }
  return true;
}

absl::Status LowerScatter(FunctionBuilder& b, const HloInstruction& instr,
                          absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const int64_t count = instr.operand_count();
  if (!instr.attrs().scatter_dimension_numbers.has_value() || count < 3 || count % 2 == 0 ||
      instr.to_apply() == nullptr) {
    return absl::InvalidArgumentError(
        "scatter needs operands, indices, updates, dimension numbers and a computation");
  }
  const int n = static_cast<int>((count - 1) / 2);
  if (n > 64) return absl::UnimplementedError("scatter with more than 64 operands");
  for (const ValueDesc* op : ops) {
    if (op->size() != 1) return absl::InvalidArgumentError("scatter operands must be arrays");
  }
  const Shape& operand = instr.operand(0)->shape();
  const Shape& indices = instr.operand(n)->shape();
  const Shape& updates = instr.operand(n + 1)->shape();
  HLOVM_ASSIGN_OR_RETURN(
      ScatterPlan scatter,
      MakeScatterPlan(operand, indices, updates, *instr.attrs().scatter_dimension_numbers));
  ScatterVmPlan plan;
  plan.scatter = std::move(scatter);
  plan.num = n;
  plan.result_elems = operand.element_count();
  for (int i = 0; i < n; ++i) {
    const Shape& s = instr.operand(i)->shape();
    const Shape& u = instr.operand(n + 1 + i)->shape();
    if (!s.IsArray() || !u.IsArray() || s.dimensions() != operand.dimensions() ||
        u.dimensions() != updates.dimensions() || s.element_type() != u.element_type()) {
      return absl::InvalidArgumentError("scatter operands and updates must match");
    }
    plan.elem_size.push_back(ByteWidth(s.element_type()));
    plan.bytes.push_back(s.element_count() * ByteWidth(s.element_type()));
  }
  const HloComputation& computation = *instr.to_apply();
  std::string combine;
  if (IsAssignCombiner(computation, n)) {
    plan.kind = CombineKind::kAssign;
    combine = "assign";
  } else if (auto op = n == 1 ? MatchBinaryReducer(computation) : std::nullopt;
             op.has_value() &&
             computation.root()->shape().element_type() == operand.element_type() &&
             computation.root()->operand(0)->shape().element_type() == operand.element_type()) {
    plan.typed = SelectScatterTypedKernel(*op, operand.element_type());
    if (plan.typed != nullptr) {
      plan.kind = CombineKind::kTyped;
    } else {
      HLOVM_ASSIGN_OR_RETURN(plan.binary, SelectBinaryKernel(*op, operand.element_type(),
                                                             operand.element_type()));
      plan.kind = CombineKind::kBinary;
    }
    combine = std::string(HloOpcodeName(*op));
  } else {
    HLOVM_ASSIGN_OR_RETURN(plan.combiner, b.compiler().CompileFunction(computation, false));
    if (static_cast<int>(plan.combiner->param_regs.size()) != 2 * n ||
        static_cast<int>(plan.combiner->result_regs.size()) != n) {
      return absl::InvalidArgumentError(
          "scatter update computation must take 2N scalars and return N");
    }
    plan.kind = CombineKind::kCall;
    combine = absl::StrCat("call ", computation.name());
    const int64_t update_elems = plan.scatter.windows.batch_count *
                                 plan.scatter.windows.window_elems;
    if (update_elems >= kScatterCallParallelElements) {
      plan.parts =
          std::min<int64_t>(kScatterCallParts, std::max<int64_t>(1, operand.element_count()));
      absl::StrAppend(&combine, " parts=", plan.parts);
    }
  }
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(instr.shape()));
  if (static_cast<int>(outs.size()) != n) {
    return absl::InvalidArgumentError("scatter result must have one array per operand");
  }
  FunctionBuilder::EmitSpec spec;
  spec.handler = &ScatterHandler;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = outs;
  int64_t cost = 0;
  for (int i = 0; i < n; ++i) {
    cost += 2 * plan.bytes[i] + b.function().regs[(*ops[n + 1 + i])[0]].bytes;
  }
  spec.cost = cost + b.function().regs[(*ops[n])[0]].bytes;
  spec.kind = HandlerKind::kScatter;
  // The single result may take over its operand's buffer when that dies here.
  if (n == 1) spec.inplace_mask = 1;
  spec.variant = absl::StrCat(TypeName(operand), " x", n, " ", combine,
                              " positions=", plan.scatter.windows.batch_count,
                              " window=", plan.scatter.windows.window_elems,
                              " run=", plan.scatter.windows.run, " idx=", TypeName(indices));
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

// ---------------------------------------------------------------- map

struct MapPlan {
  int num;  // operands
  int64_t n;
  int64_t chunk;
  std::vector<int> in_size;
  int out_size;
  BinaryKernel binary = nullptr;
  UnaryKernel unary = nullptr;
  const Function* fn = nullptr;
};

bool MapHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const MapPlan*>(instr.plan);
  uint8_t* o = regs[instr.out[0]];
  if (p.binary != nullptr || p.unary != nullptr) {
    const uint8_t* a = regs[instr.in[0]];
    const uint8_t* c = p.binary != nullptr ? regs[instr.in[1]] : nullptr;
    ForEachChunk(ctx, p.n, p.chunk, [&](int64_t b, int64_t e) {
      if (p.binary != nullptr) {
        p.binary(a + b * p.in_size[0], c + b * p.in_size[1], o + b * p.out_size, e - b);
      } else {
        p.unary(a + b * p.in_size[0], o + b * p.out_size, e - b);
      }
    });
    return true;
  }
  std::atomic<bool> ok{true};
  ForEachChunk(ctx, p.n, p.chunk, [&](int64_t b, int64_t e) {
    if (!ok.load(std::memory_order_relaxed)) return;
    auto call_or = ComputationCall::Create(*p.fn);
    if (!call_or.ok()) {
      ctx.Fail(call_or.status());
      ok = false;
      return;
    }
    ComputationCall& call = *call_or;
    std::vector<const void*> args(p.num);
    for (int64_t i = b; i < e; ++i) {
      for (int k = 0; k < p.num; ++k) args[k] = regs[instr.in[k]] + i * p.in_size[k];
      if (!call.Run(args.data(), ctx)) {
        ok = false;
        return;
      }
      std::memcpy(o + i * p.out_size, call.result(0), p.out_size);
    }
  });
  return ok.load();
}

// A map computation that is one elementwise opcode over its parameters in
// order: ROOT op(p0) or ROOT op(p0, p1).
std::optional<HloOpcode> MatchMapOpcode(const HloComputation& computation) {
  const HloInstruction* root = computation.root();
  if (root == nullptr) return std::nullopt;
  const OpFamily family = HloOpcodeFamily(root->opcode());
  if (family != OpFamily::kUnary && family != OpFamily::kBinary) return std::nullopt;
  if (root->opcode() == HloOpcode::kCompare || root->opcode() == HloOpcode::kConvert) {
    return std::nullopt;
  }
  if (root->operand_count() != computation.parameter_count()) return std::nullopt;
  for (int64_t k = 0; k < root->operand_count(); ++k) {
    const HloInstruction* op = root->operand(k);
    if (op->opcode() != HloOpcode::kParameter || op->parameter_number != k) return std::nullopt;
  }
  return root->opcode();
}

absl::Status LowerMap(FunctionBuilder& b, const HloInstruction& instr,
                      absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray() || instr.to_apply() == nullptr) {
    return absl::InvalidArgumentError("map needs an array result and a computation");
  }
  const HloComputation& computation = *instr.to_apply();
  MapPlan plan;
  plan.num = static_cast<int>(instr.operand_count());
  plan.n = shape.element_count();
  plan.out_size = ByteWidth(shape.element_type());
  int max_size = plan.out_size;
  for (int k = 0; k < plan.num; ++k) {
    const Shape& s = instr.operand(k)->shape();
    if (ops[k]->size() != 1 || !s.IsArray() || s.dimensions() != shape.dimensions()) {
      return absl::InvalidArgumentError("map operands must be arrays of the result's dimensions");
    }
    plan.in_size.push_back(ByteWidth(s.element_type()));
    max_size = std::max(max_size, plan.in_size.back());
  }
  std::string variant;
  std::optional<HloOpcode> op = MatchMapOpcode(computation);
  const ElementType in_type =
      plan.num > 0 ? instr.operand(0)->shape().element_type() : shape.element_type();
  if (op.has_value() && plan.num == 2 &&
      instr.operand(1)->shape().element_type() == in_type) {
    auto k = SelectBinaryKernel(*op, in_type, shape.element_type());
    if (k.ok()) plan.binary = *k;
  } else if (op.has_value() && plan.num == 1) {
    auto k = SelectUnaryKernel(*op, in_type, shape.element_type());
    if (k.ok()) plan.unary = *k;
  }
  if (plan.binary != nullptr || plan.unary != nullptr) {
    plan.chunk = plan.n * max_size < kParallelKernelBytes ? std::max<int64_t>(plan.n, 1)
                                                          : kChunkBytes / max_size;
    variant = std::string(HloOpcodeName(*op));
  } else {
    HLOVM_ASSIGN_OR_RETURN(plan.fn, b.compiler().CompileFunction(computation, false));
    if (static_cast<int>(plan.fn->param_regs.size()) != plan.num ||
        plan.fn->result_regs.size() != 1) {
      return absl::InvalidArgumentError("map computation must take N scalars and return one");
    }
    plan.chunk = 4096;
    variant = absl::StrCat("call ", computation.name());
  }
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, shape));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &MapHandler;
  int64_t cost = plan.n * plan.out_size;
  for (int k = 0; k < plan.num; ++k) {
    spec.in.push_back((*ops[k])[0]);
    cost += plan.n * plan.in_size[k];
  }
  spec.out = {out};
  spec.cost = cost;
  spec.kind = HandlerKind::kMap;
  spec.variant = absl::StrCat(TypeName(shape), " ", variant);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

}  // namespace

void RegisterIndexingLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kGather)] = &LowerGather;
  table[static_cast<int>(HloOpcode::kScatter)] = &LowerScatter;
  table[static_cast<int>(HloOpcode::kMap)] = &LowerMap;
}

}  // namespace vm
}  // namespace hlovm
