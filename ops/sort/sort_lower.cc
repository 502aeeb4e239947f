// Lowering of sort, topk and scan. A sort whose comparator is one LT/GT
// compare of an operand pair runs the vectorised key sort of ops/sort/; any
// other comparator runs as compiled bytecode through ComputationCall inside
// a merge sort over indices. Rows along the sort dimension are independent
// and split into fixed chunks, so results never depend on the thread count.
// scan runs its body once per position along the scan dimension, in order
// (or in reverse order for is_reverse=true).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/lowerings.h"
#include "ops/sort/sort.h"
#include "ops/sort/topk.h"
#include "vm/computation_call.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

std::string TypeName(const Shape& s) { return std::string(ElementTypeName(s.element_type())); }

// Rows per chunk so that one chunk touches about kChunkBytes.
int64_t RowsPerChunk(int64_t rows, int64_t row_bytes, int64_t total_bytes) {
  if (total_bytes < kParallelKernelBytes) return std::max<int64_t>(1, rows);
  return std::max<int64_t>(1, kChunkBytes / std::max<int64_t>(1, row_bytes));
}

// ---------------------------------------------------------------- sort

// A scalar constant whose value is +0 (want_nan false) or a NaN with the sign
// bit clear (want_nan true).
bool IsScalarConstant(const HloInstruction* i, bool want_nan) {
  if (i->opcode() != HloOpcode::kConstant || !i->literal.has_value() ||
      !i->shape().IsArray() || i->shape().rank() != 0 || i->literal->elided()) {
    return false;
  }
  const ElementType t = i->shape().element_type();
  if (ElementTypeKind(t) != TypeKind::kFloat) return false;
  const uint64_t bits = LoadBits(t, i->literal->untyped_data(), 0);
  const uint64_t sign = uint64_t{1} << (ByteWidth(t) * 8 - 1);
  if (bits & sign) return false;
  return want_nan ? IsNaNBits(t, bits) : bits == 0;
}

// compare(x, x) NE, or compare(x, +0) EQ; returns x or nullptr.
const HloInstruction* MatchNanTest(const HloInstruction* c) {
  if (c->opcode() != HloOpcode::kCompare || c->comparison_direction != ComparisonDirection::kNe ||
      c->operand(0) != c->operand(1)) {
    return nullptr;
  }
  return c->operand(0);
}
const HloInstruction* MatchZeroTest(const HloInstruction* c) {
  if (c->opcode() != HloOpcode::kCompare || c->comparison_direction != ComparisonDirection::kEq) {
    return nullptr;
  }
  if (IsScalarConstant(c->operand(1), false)) return c->operand(0);
  if (IsScalarConstant(c->operand(0), false)) return c->operand(1);
  return nullptr;
}

// The canonicalisation JAX wraps around float sort keys: NaN -> +NaN and
// -0 -> +0, as nested selects in either order. Returns the parameter number
// it reads, or -1.
int64_t MatchCanonical(const HloInstruction* i) {
  const HloInstruction* x = nullptr;
  bool nan = false, zero = false;
  for (int depth = 0; depth < 2; ++depth) {
    if (i->opcode() != HloOpcode::kSelect) return -1;
    const HloInstruction* pred = i->operand(0);
    const HloInstruction* tested = nullptr;
    if (const HloInstruction* t = MatchNanTest(pred); t != nullptr && !nan &&
        IsScalarConstant(i->operand(1), true)) {
      tested = t;
      nan = true;
    } else if (const HloInstruction* z = MatchZeroTest(pred); z != nullptr && !zero &&
               IsScalarConstant(i->operand(1), false)) {
      tested = z;
      zero = true;
    } else {
      return -1;
    }
    if (x != nullptr && tested != x) return -1;
    x = tested;
    i = i->operand(2);
  }
  if (i != x || x->opcode() != HloOpcode::kParameter || !x->shape().IsArray() ||
      x->shape().rank() != 0) {
    return -1;
  }
  return x->parameter_number;
}

// compare(canon(p_2k), canon(p_2k+1)), LT or GT, TOTALORDER.
std::optional<SimpleComparator> MatchCanonicalComparator(const HloComputation& c) {
  const HloInstruction* root = c.root();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare ||
      root->comparison_type != ComparisonType::kTotalOrder) {
    return std::nullopt;
  }
  const int64_t pa = MatchCanonical(root->operand(0));
  const int64_t pb = MatchCanonical(root->operand(1));
  if (pa < 0 || pb < 0 || pa / 2 != pb / 2 || pa == pb) return std::nullopt;
  ComparisonDirection d = root->comparison_direction;
  if (pa % 2 == 1) {
    if (d == ComparisonDirection::kLt) d = ComparisonDirection::kGt;
    else if (d == ComparisonDirection::kGt) d = ComparisonDirection::kLt;
  }
  SimpleComparator out;
  out.operand = static_cast<int>(pa / 2);
  out.direction = d;
  out.type = ComparisonType::kTotalOrder;
  return out;
}

struct SortVmPlan {
  bool fast = false;
  FastSortPlan fast_plan;  // geometry and elem_size are used by both paths
  const Function* comparator = nullptr;
  int64_t rows_per_chunk = 1;
};

// Sorts rows [rb, re) with the compiled comparator.
bool CallSortRows(const SortVmPlan& p, uint8_t* const* in, uint8_t* const* out, int64_t rb,
                  int64_t re, ExecContext& ctx) {
  auto call_or = ComputationCall::Create(*p.comparator);
  if (!call_or.ok()) return ctx.Fail(call_or.status());
  ComputationCall& call = *call_or;
  const SortGeometry& g = p.fast_plan.geometry;
  const int num = static_cast<int>(p.fast_plan.elem_size.size());
  const std::vector<int>& es = p.fast_plan.elem_size;
  std::vector<std::vector<uint8_t>> rows(num);
  for (int op = 0; op < num; ++op) rows[op].resize(g.n * es[op]);
  std::vector<uint32_t> perm(g.n);
  std::vector<const void*> args(2 * num);
  bool ok = true;
  for (int64_t r = rb; r < re && ok; ++r) {
    const int64_t base = g.RowBase(r);
    for (int op = 0; op < num; ++op) {
      for (int64_t j = 0; j < g.n; ++j) {
        std::memcpy(rows[op].data() + j * es[op], in[op] + (base + j * g.inner) * es[op], es[op]);
      }
    }
    std::iota(perm.begin(), perm.end(), 0u);
    auto less = [&](uint32_t a, uint32_t b) {
      if (!ok) return false;
      for (int op = 0; op < num; ++op) {
        args[2 * op] = rows[op].data() + static_cast<int64_t>(a) * es[op];
        args[2 * op + 1] = rows[op].data() + static_cast<int64_t>(b) * es[op];
      }
      if (!call.Run(args.data(), ctx)) {
        ok = false;
        return false;
      }
      return call.result(0)[0] != 0;
    };
    // A merge sort: deterministic, and safe whatever the comparator returns.
    std::stable_sort(perm.begin(), perm.end(), less);
    if (!ok) break;
    for (int op = 0; op < num; ++op) {
      const uint8_t* src = rows[op].data();
      for (int64_t j = 0; j < g.n; ++j) {
        std::memcpy(out[op] + (base + j * g.inner) * es[op], src + perm[j] * es[op], es[op]);
      }
    }
  }
  return ok;
}

bool SortHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const SortVmPlan*>(instr.plan);
  const int num = static_cast<int>(instr.num_in);
  uint8_t* in[64];
  uint8_t* out[64];
  for (int i = 0; i < num; ++i) {
    in[i] = regs[instr.in[i]];
    out[i] = regs[instr.out[i]];
  }
  const int64_t rows = p.fast_plan.geometry.rows();
  if (p.fast) {
    ForEachChunk(ctx, rows, p.rows_per_chunk, [&](int64_t b, int64_t e) {
      SortScratch scratch;
      FastSortRows(p.fast_plan, in, out, b, e, scratch);
    });
    return true;
  }
  std::atomic<bool> ok{true};
  ForEachChunk(ctx, rows, p.rows_per_chunk, [&](int64_t b, int64_t e) {
    if (ok.load(std::memory_order_relaxed) && !CallSortRows(p, in, out, b, e, ctx)) ok = false;
  });
  return ok.load();
}

absl::Status LowerSort(FunctionBuilder& b, const HloInstruction& instr,
                       absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const int num = static_cast<int>(instr.operand_count());
  if (num < 1 || instr.to_apply() == nullptr || instr.dimensions.size() != 1) {
    return absl::InvalidArgumentError("sort needs operands, one dimension and a comparator");
  }
  if (num > 64) return absl::UnimplementedError("sort with more than 64 operands");
  for (const ValueDesc* op : ops) {
    if (op->size() != 1) return absl::InvalidArgumentError("sort operands must be arrays");
  }
  const Shape& shape = instr.operand(0)->shape();
  const int64_t dim = instr.dimensions[0];
  SortVmPlan plan;
  plan.fast_plan.geometry = MakeSortGeometry(shape, dim);
  plan.fast_plan.is_stable = instr.attrs().is_stable;
  int64_t row_bytes = 0;
  for (int i = 0; i < num; ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray() || s.dimensions() != shape.dimensions()) {
      return absl::InvalidArgumentError("sort operands must have the same dimensions");
    }
    plan.fast_plan.elem_size.push_back(ByteWidth(s.element_type()));
    row_bytes += plan.fast_plan.geometry.n * ByteWidth(s.element_type());
  }
  const HloComputation& comparator = *instr.to_apply();
  std::string variant;
  std::optional<SimpleComparator> canonical = MatchCanonicalComparator(comparator);
  if (auto m = canonical.has_value() ? canonical : MatchComparator(comparator);
      m.has_value() && m->operand < num &&
      (m->direction == ComparisonDirection::kLt || m->direction == ComparisonDirection::kGt) &&
      FastSortSupports(instr.operand(m->operand)->shape().element_type(), m->type) &&
      plan.fast_plan.geometry.n < (int64_t{1} << 32)) {
    plan.fast = true;
    FastSortPlan& f = plan.fast_plan;
    f.key_operand = m->operand;
    f.descending = m->direction == ComparisonDirection::kGt;
    f.key_type = instr.operand(m->operand)->shape().element_type();
    f.float_compare = ElementTypeKind(f.key_type) == TypeKind::kFloat &&
                      m->type != ComparisonType::kTotalOrder;
    f.canonical = canonical.has_value();
    variant = absl::StrCat("keys ", std::string(ElementTypeName(f.key_type)),
                           f.descending ? " GT" : " LT",
                           f.canonical       ? " canonical"
                           : f.float_compare ? ""
                                             : " total",
                           " key=", f.key_operand);
  } else {
    HLOVM_ASSIGN_OR_RETURN(plan.comparator, b.compiler().CompileFunction(comparator, false));
    if (static_cast<int>(plan.comparator->param_regs.size()) != 2 * num ||
        plan.comparator->result_regs.size() != 1) {
      return absl::InvalidArgumentError("sort comparator must take 2N scalars and return pred");
    }
    variant = absl::StrCat("call ", comparator.name(), instr.attrs().is_stable ? " stable" : "");
  }
  const int64_t rows = plan.fast_plan.geometry.rows();
  plan.rows_per_chunk = RowsPerChunk(rows, row_bytes, rows * row_bytes);
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(instr.shape()));
  if (static_cast<int>(outs.size()) != num) {
    return absl::InvalidArgumentError("sort result must have one array per operand");
  }
  FunctionBuilder::EmitSpec spec;
  spec.handler = &SortHandler;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = outs;
  spec.cost = 3 * rows * row_bytes;
  spec.kind = HandlerKind::kSort;
  if (num == 1) spec.inplace_mask = 1;
  spec.variant = absl::StrCat(TypeName(shape), " x", num, " rows=", rows,
                              " n=", plan.fast_plan.geometry.n, " ", variant);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

// ---------------------------------------------------------------- topk

struct TopKVmPlan {
  TopKPlan topk;
  int64_t rows_per_chunk = 1;
};

bool TopKHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const TopKVmPlan*>(instr.plan);
  const uint8_t* in = regs[instr.in[0]];
  uint8_t* values = regs[instr.out[0]];
  int32_t* indices = reinterpret_cast<int32_t*>(regs[instr.out[1]]);
  ForEachChunk(ctx, p.topk.rows, p.rows_per_chunk,
               [&](int64_t b, int64_t e) { TopKRows(p.topk, in, values, indices, b, e); });
  return true;
}

absl::Status LowerTopK(FunctionBuilder& b, const HloInstruction& instr,
                       absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 1 || ops[0]->size() != 1) {
    return absl::InvalidArgumentError("topk takes one array operand");
  }
  const Shape& shape = instr.operand(0)->shape();
  if (shape.rank() < 1) return absl::InvalidArgumentError("topk operand must have rank >= 1");
  if (!TopKSupports(shape.element_type())) {
    return absl::UnimplementedError(
        absl::StrCat("topk of ", TypeName(shape), " elements is not supported"));
  }
  TopKVmPlan plan;
  plan.topk.type = shape.element_type();
  plan.topk.n = shape.dimensions().back();
  plan.topk.rows = plan.topk.n == 0 ? 0 : shape.element_count() / plan.topk.n;
  if (plan.topk.n == 0) {
    plan.topk.rows = 1;
    for (size_t i = 0; i + 1 < shape.dimensions().size(); ++i)
      plan.topk.rows *= shape.dimensions()[i];
  }
  plan.topk.k = instr.attrs().k;
  plan.topk.largest = instr.attrs().largest;
  if (instr.attrs().k < 0 || instr.attrs().k > plan.topk.n) {
    return absl::InvalidArgumentError("topk k must lie in [0, size of the last dimension]");
  }
  const int64_t row_bytes = plan.topk.n * ByteWidth(shape.element_type()) * 4;
  plan.rows_per_chunk = RowsPerChunk(plan.topk.rows, row_bytes, plan.topk.rows * row_bytes);
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(instr.shape()));
  if (outs.size() != 2) return absl::InvalidArgumentError("topk returns (values, indices)");
  FunctionBuilder::EmitSpec spec;
  spec.handler = &TopKHandler;
  spec.in = {(*ops[0])[0]};
  spec.out = outs;
  spec.cost = plan.topk.rows * row_bytes;
  spec.kind = HandlerKind::kTopK;
  spec.variant = absl::StrCat(TypeName(shape), " rows=", plan.topk.rows, " n=", plan.topk.n,
                              " k=", plan.topk.k, plan.topk.largest ? " largest" : " smallest");
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

// ---------------------------------------------------------------- scan

// An array seen as [outer, length, inner] around the scan dimension.
struct ScanArray {
  int64_t outer = 1, inner = 1;  // elements
  int elem_size = 1;
};

struct ScanVmPlan {
  const Function* body = nullptr;
  int num_inputs = 0, num_outputs = 0, num_carries = 0;
  int64_t length = 0;
  bool reverse = false;
  std::vector<ScanArray> inputs, outputs;
  std::vector<int64_t> carry_bytes;
};

// Copies slice i of `a` (of length `len`) to / from a contiguous buffer.
void CopySliceOut(const ScanArray& a, int64_t len, const uint8_t* src, int64_t i, uint8_t* dst) {
  const int64_t run = a.inner * a.elem_size;
  for (int64_t o = 0; o < a.outer; ++o) {
    std::memcpy(dst + o * run, src + (o * len + i) * run, run);
  }
}
void CopySliceIn(const ScanArray& a, int64_t len, const uint8_t* src, int64_t i, uint8_t* dst) {
  const int64_t run = a.inner * a.elem_size;
  for (int64_t o = 0; o < a.outer; ++o) {
    std::memmove(dst + (o * len + i) * run, src + o * run, run);
  }
}

bool ScanHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const ScanVmPlan*>(instr.plan);
  const int ni = p.num_inputs, no = p.num_outputs, nc = p.num_carries;
  // Carries live in the result registers; they start as the inits.
  for (int c = 0; c < nc; ++c) {
    std::memmove(regs[instr.out[no + c]], regs[instr.in[ni + c]], p.carry_bytes[c]);
  }
  if (p.length == 0) return true;
  auto call_or = ComputationCall::Create(*p.body);
  if (!call_or.ok()) return ctx.Fail(call_or.status());
  ComputationCall& call = *call_or;
  std::vector<std::vector<uint8_t>> slices(ni), next(nc);
  for (int k = 0; k < ni; ++k) {
    slices[k].resize(std::max<int64_t>(1, p.inputs[k].outer * p.inputs[k].inner *
                                              p.inputs[k].elem_size));
  }
  for (int c = 0; c < nc; ++c) next[c].resize(std::max<int64_t>(1, p.carry_bytes[c]));
  std::vector<const void*> args(ni + nc);
  for (int64_t step = 0; step < p.length; ++step) {
    const int64_t i = p.reverse ? p.length - 1 - step : step;
    for (int k = 0; k < ni; ++k) {
      CopySliceOut(p.inputs[k], p.length, regs[instr.in[k]], i, slices[k].data());
      args[k] = slices[k].data();
    }
    for (int c = 0; c < nc; ++c) args[ni + c] = regs[instr.out[no + c]];
    if (!call.Run(args.data(), ctx)) return false;
    for (int k = 0; k < no; ++k) {
      CopySliceIn(p.outputs[k], p.length, call.result(k), i, regs[instr.out[k]]);
    }
    for (int c = 0; c < nc; ++c)
      std::memmove(next[c].data(), call.result(no + c), p.carry_bytes[c]);
    for (int c = 0; c < nc; ++c) {
      std::memcpy(regs[instr.out[no + c]], next[c].data(), p.carry_bytes[c]);
    }
  }
  return true;
}

ScanArray MakeScanArray(const Shape& s, int64_t dim) {
  ScanArray a;
  a.elem_size = ByteWidth(s.element_type());
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (d < dim) a.outer *= s.dimensions()[d];
    if (d > dim) a.inner *= s.dimensions()[d];
  }
  return a;
}

absl::Status LowerScan(FunctionBuilder& b, const HloInstruction& instr,
                       absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  const int64_t count = instr.operand_count();
  const int64_t nc = instr.attrs().num_carries;
  if (instr.to_apply() == nullptr || instr.dimensions.size() != 1 || nc < 0 || nc > count) {
    return absl::InvalidArgumentError("scan needs a body, one dimension and num_carries");
  }
  for (const ValueDesc* op : ops) {
    if (op->size() != 1) return absl::InvalidArgumentError("scan operands must be arrays");
  }
  ScanVmPlan plan;
  plan.num_carries = static_cast<int>(nc);
  plan.num_inputs = static_cast<int>(count - nc);
  plan.reverse = instr.attrs().is_reverse;
  const int64_t dim = instr.dimensions[0];
  std::vector<const Shape*> leaves;
  FlattenShape(instr.shape(), &leaves);
  plan.num_outputs = static_cast<int>(leaves.size()) - plan.num_carries;
  if (plan.num_outputs < 0) return absl::InvalidArgumentError("scan result lacks its carries");
  bool have_length = false;
  auto take_length = [&](const Shape& s) -> absl::Status {
    if (!s.IsArray() || dim < 0 || dim >= s.rank()) {
      return absl::InvalidArgumentError("scan dimension out of range of an input or output");
    }
    if (have_length && s.dimensions()[dim] != plan.length) {
      return absl::InvalidArgumentError("scan inputs and outputs disagree on the scan length");
    }
    plan.length = s.dimensions()[dim];
    have_length = true;
    return absl::OkStatus();
  };
  for (int k = 0; k < plan.num_inputs; ++k) {
    const Shape& s = instr.operand(k)->shape();
    HLOVM_RETURN_IF_ERROR(take_length(s));
    plan.inputs.push_back(MakeScanArray(s, dim));
  }
  for (int k = 0; k < plan.num_outputs; ++k) {
    HLOVM_RETURN_IF_ERROR(take_length(*leaves[k]));
    plan.outputs.push_back(MakeScanArray(*leaves[k], dim));
  }
  for (int c = 0; c < plan.num_carries; ++c) {
    const Shape& init = instr.operand(plan.num_inputs + c)->shape();
    const Shape& carry = *leaves[plan.num_outputs + c];
    if (!init.IsArray() || init.dimensions() != carry.dimensions() ||
        init.element_type() != carry.element_type()) {
      return absl::InvalidArgumentError("scan carry results must match their inits");
    }
    plan.carry_bytes.push_back(init.element_count() * ByteWidth(init.element_type()));
  }
  HLOVM_ASSIGN_OR_RETURN(plan.body, b.compiler().CompileFunction(*instr.to_apply(), false));
  if (static_cast<int64_t>(plan.body->param_regs.size()) != count ||
      static_cast<int64_t>(plan.body->result_regs.size()) != static_cast<int64_t>(leaves.size())) {
    return absl::InvalidArgumentError(
        "scan body must take the input slices and carries and return outputs and carries");
  }
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &ScanHandler;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = outs;
  int64_t cost = 0;
  for (Reg r : spec.in) cost += b.function().regs[r].bytes;
  for (Reg r : outs) cost += b.function().regs[r].bytes;
  spec.cost = cost * 16;
  spec.kind = HandlerKind::kScan;
  spec.variant = absl::StrCat("length=", plan.length, " inputs=", plan.num_inputs,
                              " carries=", plan.num_carries, plan.reverse ? " reverse" : "",
                              " call ", instr.to_apply()->name());
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

}  // namespace

void RegisterSortLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kSort)] = &LowerSort;
  table[static_cast<int>(HloOpcode::kTopK)] = &LowerTopK;
  table[static_cast<int>(HloOpcode::kScan)] = &LowerScan;
}

}  // namespace vm
}  // namespace hlovm
