// Lowering of the reductions: reduce (variadic, any reducer, any
// dimensions), reduce-window (variadic, strides, padding, base and window
// dilation; the cumulative pattern as a prefix scan) and select-and-scatter.
// Single-op reducers run through the elementwise kernels and the vectorised
// folds of ops/reduce/; any other computation runs compiled through
// ComputationCall. Work is split at fixed points (never by thread count), so
// results are the same bits for any number of threads.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/elementwise/elementwise.h"
#include "ops/lowerings.h"
#include "ops/reduce/reduce.h"
#include "ops/reduce/reduce_lower.h"
#include "ops/reduce/reduce_window.h"
#include "vm/computation_call.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace {

std::string TypeName(const Shape& s) { return std::string(ElementTypeName(s.element_type())); }

// Largest operand count handled (stack arrays in the handlers).
constexpr int kMaxOperands = 32;

// The single-op reducer of `computation` when it applies to `type` (same
// type in and out), else nullopt.
std::optional<HloOpcode> SingleOpReducer(const HloComputation& computation, ElementType type) {
  std::optional<HloOpcode> op = MatchBinaryReducer(computation);
  if (!op.has_value()) return std::nullopt;
  const HloInstruction* root = computation.root();
  if (root->shape().element_type() != type || root->operand(0)->shape().element_type() != type) {
    return std::nullopt;
  }
  return op;
}

// ---------------------------------------------------------------- reduce

struct ReducePlan {
  ReduceGeometry g;
  int elem_size = 0;
  BinaryKernel op = nullptr;
  RunFoldKernel fold = nullptr;
  RowFold4Kernel fold4 = nullptr;
  // Rows: columns per block and blocks per task.
  int64_t col_block = 0, col_blocks = 0, units_per_task = 1;
  // Runs: outputs per task; split: one long run folded in fixed blocks.
  int64_t outs_per_task = 1;
  bool split = false;
  std::vector<uint8_t> identity;
  bool parallel = false;
};

bool ReduceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const ReducePlan*>(instr.plan);
  const uint8_t* in = regs[instr.in[0]];
  const uint8_t* init = regs[instr.in[1]];
  uint8_t* out = regs[instr.out[0]];
  const ReduceGeometry& g = p.g;
  if (!g.runs) {
    const int64_t units = g.outer * p.col_blocks;
    auto run_units = [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) {
        const int64_t row = u / p.col_blocks, cb = u % p.col_blocks;
        const int64_t c0 = cb * p.col_block, c1 = std::min(g.inner, c0 + p.col_block);
        ReduceRowsBlock(g, p.elem_size, p.op, in, init, out, row, row + 1, c0, c1, p.fold4);
      }
    };
    if (!p.parallel) {
      run_units(0, units);
    } else {
      ForEachChunk(ctx, units, p.units_per_task, run_units);
    }
    return true;
  }
  if (p.split) {
    const int64_t blocks = (g.inner + kReduceSplitBlock - 1) / kReduceSplitBlock;
    std::vector<uint8_t> partials(blocks * p.elem_size);
    auto run_blocks = [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        ReduceRunBlockPartial(p.elem_size, p.op, p.fold, p.identity.data(), in, g.inner, k,
                              partials.data());
      }
    };
    if (p.parallel) {
      ForEachChunk(ctx, blocks, 4, run_blocks);
    } else {
      run_blocks(0, blocks);
    }
    std::memcpy(out, init, p.elem_size);
    CombinePartials(p.elem_size, p.op, partials.data(), blocks, out);
    return true;
  }
  auto run_outs = [&](int64_t b, int64_t e) {
    ReduceRunsBlock(g, p.elem_size, p.op, p.fold, in, init, out, b, e);
  };
  if (p.parallel) {
    ForEachChunk(ctx, g.out_count, p.outs_per_task, run_outs);
  } else {
    run_outs(0, g.out_count);
  }
  return true;
}

struct ReduceCallPlan {
  ReduceGeometry g;
  int num = 1;
  std::vector<int> elem_size;
  const Function* fn = nullptr;
  int64_t outs_per_task = 1;
  bool parallel = false;
};

// Reduced element offsets of output q, in operand row-major order.
template <typename Fn>
void ForEachReducedOffset(const ReduceGeometry& g, int64_t q, Fn&& fn) {
  if (g.red_count == 0) return;
  if (!g.runs) {
    const int64_t row = q / g.inner, col = q % g.inner;
    const int64_t base = OffsetOf(g.kept_sizes, g.kept_strides, row) + col;
    for (int64_t r = 0; r < g.red_count; ++r) {
      if (!fn(base + OffsetOf(g.red_sizes, g.red_strides, r))) return;
    }
    return;
  }
  const int64_t base = OffsetOf(g.kept_sizes, g.kept_strides, q);
  for (int64_t r = 0; r < g.red_count; ++r) {
    const int64_t b = base + OffsetOf(g.red_sizes, g.red_strides, r);
    for (int64_t i = 0; i < g.inner; ++i) {
      if (!fn(b + i)) return;
    }
  }
}

bool ReduceCallHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const ReduceCallPlan*>(instr.plan);
  const int n = p.num;
  std::atomic<bool> ok{true};
  auto run = [&](int64_t b, int64_t e) {
    if (!ok.load(std::memory_order_relaxed)) return;
    auto call_or = ComputationCall::Create(*p.fn);
    if (!call_or.ok()) {
      ctx.Fail(call_or.status());
      ok = false;
      return;
    }
    ComputationCall& call = *call_or;
    const void* args[2 * kMaxOperands];
    for (int64_t q = b; q < e; ++q) {
      for (int i = 0; i < n; ++i) {
        uint8_t* acc = regs[instr.out[i]] + q * p.elem_size[i];
        std::memcpy(acc, regs[instr.in[n + i]], p.elem_size[i]);
        args[i] = acc;
      }
      bool good = true;
      ForEachReducedOffset(p.g, q, [&](int64_t off) {
        for (int i = 0; i < n; ++i) args[n + i] = regs[instr.in[i]] + off * p.elem_size[i];
        if (!call.Run(args, ctx)) {
          good = false;
          return false;
        }
        for (int i = 0; i < n; ++i) {
          std::memmove(regs[instr.out[i]] + q * p.elem_size[i], call.result(i), p.elem_size[i]);
        }
        return true;
      });
      if (!good) {
        ok = false;
        return;
      }
    }
  };
  if (p.parallel) {
    ForEachChunk(ctx, p.g.out_count, p.outs_per_task, run);
  } else {
    run(0, p.g.out_count);
  }
  return ok.load();
}

absl::Status CheckOperands(const HloInstruction& instr, absl::Span<const ValueDesc* const> ops,
                           int* num) {
  const int64_t count = instr.operand_count();
  if (count < 2 || count % 2 != 0 || instr.to_apply() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(HloOpcodeName(instr.opcode())),
                                                   " needs N operands, N inits and a computation"));
  }
  *num = static_cast<int>(count / 2);
  if (*num > kMaxOperands) {
    return absl::UnimplementedError(absl::StrCat(std::string(HloOpcodeName(instr.opcode())),
                                                 " with more than ", kMaxOperands, " operands"));
  }
  for (const ValueDesc* op : ops) {
    if (op->size() != 1) return absl::InvalidArgumentError("reduce operands must be arrays");
  }
  const Shape& first = instr.operand(0)->shape();
  for (int i = 0; i < *num; ++i) {
    const Shape& s = instr.operand(i)->shape();
    const Shape& init = instr.operand(*num + i)->shape();
    if (!s.IsArray() || s.dimensions() != first.dimensions() || !init.IsArray() ||
        init.rank() != 0 || init.element_type() != s.element_type() ||
        ByteWidth(s.element_type()) <= 0) {
      return absl::InvalidArgumentError("reduce operands must match and inits must be scalars");
    }
  }
  return absl::OkStatus();
}

absl::Status LowerReduce(FunctionBuilder& b, const HloInstruction& instr,
                         absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  int n = 0;
  HLOVM_RETURN_IF_ERROR(CheckOperands(instr, ops, &n));
  const Shape& operand = instr.operand(0)->shape();
  const ElementType type = operand.element_type();
  HLOVM_ASSIGN_OR_RETURN(ReduceGeometry g,
                         MakeReduceGeometry(operand.dimensions(), instr.dimensions));
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(instr.shape()));
  if (static_cast<int>(outs.size()) != n) {
    return absl::InvalidArgumentError("reduce result must have one array per operand");
  }
  const HloComputation& computation = *instr.to_apply();
  int64_t in_bytes = 0;
  for (int i = 0; i < n; ++i) in_bytes += b.function().regs[(*ops[i])[0]].bytes;
  const bool parallel = in_bytes >= kParallelKernelBytes;
  FunctionBuilder::EmitSpec spec;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = outs;
  spec.cost = in_bytes;
  spec.kind = HandlerKind::kReduce;
  std::optional<HloOpcode> single;
  if (n == 1) single = SingleOpReducer(computation, type);
  BinaryKernel binary = nullptr;
  if (single.has_value()) {
    auto k = SelectBinaryKernel(*single, type, type);
    if (k.ok()) binary = *k;
  }
  const std::string dims_text = absl::StrCat(g.runs ? "runs" : "rows", " inner=", g.inner,
                                             " red=", g.red_count, " out=", g.out_count);
  if (binary != nullptr) {
    ReducePlan plan;
    plan.g = g;
    plan.elem_size = ByteWidth(type);
    plan.op = binary;
    plan.fold = SelectRunFoldKernel(*single, type);
    plan.fold4 = SelectRowFold4Kernel(*single, type);
    plan.parallel = parallel;
    const int64_t es = plan.elem_size;
    std::string how;
    if (!g.runs) {
      plan.col_block = std::max<int64_t>(1, std::min<int64_t>(g.inner, 4096 * 4 / es));
      plan.col_blocks = (g.inner + plan.col_block - 1) / plan.col_block;
      const int64_t unit_bytes =
          std::max<int64_t>(1, plan.col_block * es * std::max<int64_t>(1, g.red_count));
      plan.units_per_task = std::max<int64_t>(1, kChunkBytes / unit_bytes);
    } else {
      plan.identity.resize(es);
      if (single.has_value() && g.out_count == 1 && g.red_count == 1 &&
          g.inner >= 4 * kReduceSplitBlock &&
          ReduceIdentity(*single, type, plan.identity.data())) {
        plan.split = true;
        how = " split";
      }
      const int64_t per_out = std::max<int64_t>(1, g.inner * g.red_count * es);
      plan.outs_per_task = std::max<int64_t>(1, kChunkBytes / per_out);
    }
    spec.handler = &ReduceHandler;
    spec.variant = absl::StrCat(TypeName(operand), " ", std::string(HloOpcodeName(*single)), " ",
                                dims_text, how, plan.fold != nullptr ? " fold" : "",
                                !g.runs && plan.fold4 != nullptr ? " fold4" : "");
    spec.plan = b.program().AddPlan(std::move(plan));
  } else {
    ReduceCallPlan plan;
    plan.g = g;
    plan.num = n;
    for (int i = 0; i < n; ++i)
      plan.elem_size.push_back(ByteWidth(instr.operand(i)->shape().element_type()));
    HLOVM_ASSIGN_OR_RETURN(plan.fn, b.compiler().CompileFunction(computation, false));
    if (static_cast<int>(plan.fn->param_regs.size()) != 2 * n ||
        static_cast<int>(plan.fn->result_regs.size()) != n) {
      return absl::InvalidArgumentError("reduce computation must take 2N scalars and return N");
    }
    const int64_t per_out = std::max<int64_t>(1, g.red_count * (g.runs ? g.inner : 1));
    plan.outs_per_task = std::max<int64_t>(1, 4096 / per_out);
    plan.parallel = g.out_count * per_out >= 8192;
    spec.handler = &ReduceCallHandler;
    spec.variant = absl::StrCat(TypeName(operand), " x", n, " call ", computation.name(), " ",
                                dims_text);
    spec.plan = b.program().AddPlan(std::move(plan));
  }
  b.Emit(&instr, std::move(spec));
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

}  // namespace

namespace {

// A reduce of one array with a single-op reducer whose geometry is runs
// (`runs`) or rows (otherwise).
std::optional<RowReduce> SelectSingleOpReduce(const HloInstruction& reduce, bool runs) {
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() != 2 ||
      reduce.to_apply() == nullptr || !reduce.shape().IsArray()) {
    return std::nullopt;
  }
  const Shape& operand = reduce.operand(0)->shape();
  const Shape& init = reduce.operand(1)->shape();
  if (!operand.IsArray() || !init.IsArray() || init.rank() != 0 ||
      init.element_type() != operand.element_type()) {
    return std::nullopt;
  }
  const ElementType type = operand.element_type();
  auto g = MakeReduceGeometry(operand.dimensions(), reduce.dimensions);
  if (!g.ok() || g->runs != runs || g->inner < 1) return std::nullopt;
  std::optional<HloOpcode> single = SingleOpReducer(*reduce.to_apply(), type);
  if (!single.has_value()) return std::nullopt;
  auto k = SelectBinaryKernel(*single, type, type);
  if (!k.ok()) return std::nullopt;
  RowReduce r;
  r.g = std::move(*g);
  r.elem_size = ByteWidth(type);
  r.op = *k;
  r.fold = SelectRunFoldKernel(*single, type);
  r.fold4 = SelectRowFold4Kernel(*single, type);
  r.opcode = *single;
  return r;
}

}  // namespace

std::optional<RowReduce> SelectRowReduce(const HloInstruction& reduce) {
  std::optional<RowReduce> r = SelectSingleOpReduce(reduce, /*runs=*/true);
  if (!r.has_value()) return std::nullopt;
  const ReduceGeometry& g = r->g;
  if (g.red_count != 1 || g.kept_sizes.size() > 1 ||
      (g.kept_sizes.size() == 1 && g.kept_strides[0] != g.inner)) {
    return std::nullopt;
  }
  // One long run is split into blocks by the op-by-op handler.
  std::vector<uint8_t> identity(r->elem_size);
  if (g.out_count == 1 && g.inner >= 4 * kReduceSplitBlock &&
      ReduceIdentity(r->opcode, reduce.operand(0)->shape().element_type(), identity.data())) {
    return std::nullopt;
  }
  return r;
}

std::optional<RowReduce> SelectColumnReduce(const HloInstruction& reduce) {
  return SelectSingleOpReduce(reduce, /*runs=*/false);
}

std::optional<WindowReduce> SelectWindowRows(const HloInstruction& reduce_window) {
  if (reduce_window.opcode() != HloOpcode::kReduceWindow || reduce_window.operand_count() != 2 ||
      !reduce_window.attrs().window.has_value() || !reduce_window.shape().IsArray() ||
      reduce_window.to_apply() == nullptr) {
    return std::nullopt;
  }
  const Shape& operand = reduce_window.operand(0)->shape();
  const ElementType type = operand.element_type();
  const std::optional<HloOpcode> single = SingleOpReducer(*reduce_window.to_apply(), type);
  if (!single.has_value()) return std::nullopt;
  auto op = SelectBinaryKernel(*single, type, type);
  auto g = MakeWindowGeometry(operand.dimensions(), reduce_window.shape().dimensions(),
                              *reduce_window.attrs().window);
  if (!op.ok() || !g.ok()) return std::nullopt;
  std::optional<WindowRowView> rows = MatchWindowRows(*g);
  if (!rows.has_value()) return std::nullopt;
  WindowReduce w;
  w.g = std::move(*g);
  w.rows = *rows;
  w.elem_size = ByteWidth(type);
  w.op = *op;
  w.opcode = *single;
  return w;
}

// ---------------------------------------------------------------- reduce-window
namespace {


struct WindowPlan {
  WindowGeometry g;
  std::optional<ScanGeometry> scan;
  int num = 1;
  std::vector<int> elem_size;
  BinaryKernel op = nullptr;       // single-op reducer
  WindowFoldKernel typed = nullptr;  // single-op reducer on a common type
  const Function* fn = nullptr;    // otherwise
  int64_t outs_per_task = 1;
  bool parallel = false;
  // Rows path (single-op reducer, trailing dimensions with unit windows):
  // see WindowRowView.
  std::optional<WindowRowView> rows;
};

bool WindowHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const WindowPlan*>(instr.plan);
  const int n = p.num;
  std::atomic<bool> ok{true};
  if (p.rows.has_value()) {
    auto run = [&](int64_t b, int64_t e) {
      FoldWindowRows(p.g, *p.rows, p.elem_size[0], p.op, regs[instr.in[0]], 0, regs[instr.in[1]],
                     regs[instr.out[0]], b, e);
    };
    const int64_t rows = p.rows->out_rows;
    if (p.parallel) {
      ForEachChunk(ctx, rows, p.outs_per_task, run);
    } else {
      run(0, rows);
    }
    return true;
  }
  if (!p.scan.has_value() && p.typed != nullptr) {
    auto run = [&](int64_t b, int64_t e) {
      p.typed(p.g, regs[instr.in[0]], regs[instr.in[1]], regs[instr.out[0]], b, e);
    };
    if (p.parallel) {
      ForEachChunk(ctx, p.g.out_count, p.outs_per_task, run);
    } else {
      run(0, p.g.out_count);
    }
    return true;
  }
  if (p.scan.has_value() && p.op != nullptr) {
    auto run = [&](int64_t b, int64_t e) {
      ScanRows(*p.scan, p.elem_size[0], p.op, regs[instr.in[0]], regs[instr.in[1]],
               regs[instr.out[0]], b, e);
    };
    if (p.parallel) {
      ForEachChunk(ctx, p.scan->outer, p.outs_per_task, run);
    } else {
      run(0, p.scan->outer);
    }
    return true;
  }
  auto run = [&](int64_t b, int64_t e) {
    if (!ok.load(std::memory_order_relaxed)) return;
    std::optional<ComputationCall> call;
    if (p.fn != nullptr) {
      auto call_or = ComputationCall::Create(*p.fn);
      if (!call_or.ok()) {
        ctx.Fail(call_or.status());
        ok = false;
        return;
      }
      call.emplace(std::move(*call_or));
    }
    const void* args[2 * kMaxOperands];
    // Folds element `off` into the accumulators at output position q.
    auto fold = [&](int64_t q, int64_t off) -> bool {
      if (p.op != nullptr) {
        uint8_t* acc = regs[instr.out[0]] + q * p.elem_size[0];
        p.op(acc, regs[instr.in[0]] + off * p.elem_size[0], acc, 1);
        return true;
      }
      for (int i = 0; i < n; ++i) {
        args[i] = regs[instr.out[i]] + q * p.elem_size[i];
        args[n + i] = regs[instr.in[i]] + off * p.elem_size[i];
      }
      if (!call->Run(args, ctx)) return false;
      for (int i = 0; i < n; ++i) {
        std::memmove(regs[instr.out[i]] + q * p.elem_size[i], call->result(i), p.elem_size[i]);
      }
      return true;
    };
    if (p.scan.has_value()) {
      // Compiled reducer over the cumulative pattern: out[j] = f(out[j-1], x[j]).
      const ScanGeometry& s = *p.scan;
      for (int64_t line = b; line < e; ++line) {
        const int64_t o = line / s.inner, c = line % s.inner;
        for (int64_t j = 0; j < s.n; ++j) {
          const int64_t q = (o * s.n + j) * s.inner + c;
          const int64_t prev = j == 0 ? -1 : q - s.inner;
          for (int i = 0; i < n; ++i) {
            const uint8_t* src =
                prev < 0 ? regs[instr.in[n + i]] : regs[instr.out[i]] + prev * p.elem_size[i];
            std::memcpy(regs[instr.out[i]] + q * p.elem_size[i], src, p.elem_size[i]);
          }
          if (!fold(q, q)) {
            ok = false;
            return;
          }
        }
      }
      return;
    }
    WindowScratch scratch;
    std::vector<int64_t> offsets;
    for (int64_t q = b; q < e; ++q) {
      for (int i = 0; i < n; ++i) {
        std::memcpy(regs[instr.out[i]] + q * p.elem_size[i], regs[instr.in[n + i]], p.elem_size[i]);
      }
      WindowOffsets(p.g, q, &scratch, &offsets);
      for (int64_t off : offsets) {
        if (!fold(q, off)) {
          ok = false;
          return;
        }
      }
    }
  };
  const int64_t units = p.scan.has_value() ? p.scan->outer * p.scan->inner : p.g.out_count;
  if (p.parallel) {
    ForEachChunk(ctx, units, p.outs_per_task, run);
  } else {
    run(0, units);
  }
  return ok.load();
}

absl::Status LowerReduceWindow(FunctionBuilder& b, const HloInstruction& instr,
                               absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  int n = 0;
  HLOVM_RETURN_IF_ERROR(CheckOperands(instr, ops, &n));
  // Without window= the window has no dimensions (XLA's parser), which
  // only a rank-0 operand admits.
  const Window window = instr.attrs().window.value_or(Window{});
  const Shape& operand = instr.operand(0)->shape();
  const ElementType type = operand.element_type();
  std::vector<const Shape*> leaves;
  FlattenShape(instr.shape(), &leaves);
  if (static_cast<int>(leaves.size()) != n) {
    return absl::InvalidArgumentError("reduce-window result must have one array per operand");
  }
  WindowPlan plan;
  HLOVM_ASSIGN_OR_RETURN(plan.g, MakeWindowGeometry(operand.dimensions(), leaves[0]->dimensions(),
                                                    window));
  plan.num = n;
  for (int i = 0; i < n; ++i)
    plan.elem_size.push_back(ByteWidth(instr.operand(i)->shape().element_type()));
  if (leaves[0]->dimensions() == operand.dimensions()) {
    plan.scan = MatchCumulativeWindow(operand.dimensions(), window);
  }
  const HloComputation& computation = *instr.to_apply();
  std::optional<HloOpcode> single = n == 1 ? SingleOpReducer(computation, type) : std::nullopt;
  if (single.has_value()) {
    auto k = SelectBinaryKernel(*single, type, type);
    if (k.ok()) plan.op = *k;
    plan.typed = SelectWindowFoldKernel(*single, type);
  }
  std::string how;
  if (plan.op == nullptr) {
    HLOVM_ASSIGN_OR_RETURN(plan.fn, b.compiler().CompileFunction(computation, false));
    if (static_cast<int>(plan.fn->param_regs.size()) != 2 * n ||
        static_cast<int>(plan.fn->result_regs.size()) != n) {
      return absl::InvalidArgumentError(
          "reduce-window computation must take 2N scalars and return N");
    }
    how = absl::StrCat("call ", computation.name());
  } else {
    how = std::string(HloOpcodeName(*single));
    if (plan.typed != nullptr && !plan.scan.has_value()) how += " typed";
  }
  int64_t work;
  if (plan.scan.has_value()) {
    const ScanGeometry& s = *plan.scan;
    work = s.outer * s.n * s.inner;
    if (plan.op != nullptr) {
      plan.outs_per_task = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, s.n * s.inner));
      plan.parallel = s.outer > 1 && work >= 65536;
    } else {
      plan.outs_per_task = std::max<int64_t>(1, 4096 / s.n);
      plan.parallel = work >= 8192;
    }
    how += absl::StrCat(" scan n=", s.n);
  } else {
    work = plan.g.out_count * std::max<int64_t>(1, plan.g.window_count);
    plan.outs_per_task = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, plan.g.window_count));
    plan.parallel = work >= 8192;
    if (plan.op != nullptr) {
      plan.rows = MatchWindowRows(plan.g);
      if (plan.rows.has_value()) {
        plan.outs_per_task = std::max<int64_t>(
            1, 16384 / std::max<int64_t>(
                           1, plan.rows->row * std::max<int64_t>(1, plan.g.window_count)));
        how += absl::StrCat(" rows of ", plan.rows->row);
      }
    }
  }
  HLOVM_ASSIGN_OR_RETURN(ValueDesc outs, b.NewOwnedValue(instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &WindowHandler;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = outs;
  spec.cost = work * plan.elem_size[0] * n;
  spec.kind = HandlerKind::kReduceWindow;
  spec.variant = absl::StrCat(TypeName(operand), " x", n, " ", how, " window=",
                              plan.g.window_count, " out=", plan.g.out_count);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  for (Reg r : outs) result->push_back(r);
  return absl::OkStatus();
}

// ---------------------------------------------------------------- select-and-scatter

struct SelectScatterPlan {
  WindowGeometry g;  // operand -> source windows
  int elem_size = 0, source_size = 0;
  int64_t out_count = 0;
  const Function* select = nullptr;
  const Function* scatter = nullptr;
  BinaryKernel scatter_op = nullptr;  // single-op scatter
  // select = compare(a, b) with this direction and scatter = add on a common
  // type: the whole operation runs typed.
  SelectAndScatterAddKernel typed = nullptr;
  ComparisonDirection direction = ComparisonDirection::kGe;
};

bool SelectScatterHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const SelectScatterPlan*>(instr.plan);
  const uint8_t* operand = regs[instr.in[0]];
  const uint8_t* source = regs[instr.in[1]];
  const uint8_t* init = regs[instr.in[2]];
  uint8_t* out = regs[instr.out[0]];
  const int64_t es = p.elem_size;
  for (int64_t i = 0; i < p.out_count; ++i) std::memcpy(out + i * es, init, es);
  if (p.typed != nullptr) {
    p.typed(p.g, p.direction, operand, source, out);
    return true;
  }
  auto select_or = ComputationCall::Create(*p.select);
  if (!select_or.ok()) return ctx.Fail(select_or.status());
  std::optional<ComputationCall> scatter;
  if (p.scatter_op == nullptr) {
    auto scatter_or = ComputationCall::Create(*p.scatter);
    if (!scatter_or.ok()) return ctx.Fail(scatter_or.status());
    scatter.emplace(std::move(*scatter_or));
  }
  ComputationCall& select = *select_or;
  WindowScratch scratch;
  std::vector<int64_t> offsets;
  const void* args[2];
  // Windows run serially in source order: overlapping windows scatter into
  // the same elements in XLA's order.
  for (int64_t q = 0; q < p.g.out_count; ++q) {
    WindowOffsets(p.g, q, &scratch, &offsets);
    if (offsets.empty()) continue;
    int64_t sel = offsets[0];
    for (size_t k = 1; k < offsets.size(); ++k) {
      args[0] = operand + sel * es;
      args[1] = operand + offsets[k] * es;
      if (!select.Run(args, ctx)) return false;
      if (*select.result(0) == 0) sel = offsets[k];
    }
    uint8_t* dst = out + sel * es;
    const uint8_t* src = source + q * p.source_size;
    if (p.scatter_op != nullptr) {
      p.scatter_op(dst, src, dst, 1);
    } else {
      args[0] = dst;
      args[1] = src;
      if (!scatter->Run(args, ctx)) return false;
      std::memmove(dst, scatter->result(0), es);
    }
  }
  return true;
}

absl::Status LowerSelectAndScatter(FunctionBuilder& b, const HloInstruction& instr,
                                   absl::Span<const ValueDesc* const> ops, ValueDesc* result) {
  if (instr.operand_count() != 3 || instr.called_computations().size() != 2) {
    return absl::InvalidArgumentError(
        "select-and-scatter needs operand, source, init and two computations");
  }
  for (const ValueDesc* op : ops) {
    if (op->size() != 1)
      return absl::InvalidArgumentError("select-and-scatter operands must be arrays");
  }
  const Shape& operand = instr.operand(0)->shape();
  const Shape& source = instr.operand(1)->shape();
  const ElementType type = operand.element_type();
  SelectScatterPlan plan;
  // No window= means a window without dimensions (rank-0 operands).
  HLOVM_ASSIGN_OR_RETURN(plan.g, MakeWindowGeometry(operand.dimensions(), source.dimensions(),
                                                    instr.attrs().window.value_or(Window{})));
  plan.elem_size = ByteWidth(type);
  plan.source_size = ByteWidth(source.element_type());
  plan.out_count = operand.element_count();
  if (source.element_type() != type || instr.operand(2)->shape().element_type() != type) {
    return absl::InvalidArgumentError("select-and-scatter types must match");
  }
  const HloComputation& select = *instr.called_computations()[0];
  const HloComputation& scatter = *instr.called_computations()[1];
  HLOVM_ASSIGN_OR_RETURN(plan.select, b.compiler().CompileFunction(select, false));
  if (plan.select->param_regs.size() != 2 || plan.select->result_regs.size() != 1) {
    return absl::InvalidArgumentError("select must take two scalars and return a pred");
  }
  std::string how;
  if (auto op = SingleOpReducer(scatter, type); op.has_value()) {
    auto k = SelectBinaryKernel(*op, type, type);
    if (k.ok()) plan.scatter_op = *k;
    how = std::string(HloOpcodeName(*op));
  }
  if (plan.scatter_op == nullptr) {
    HLOVM_ASSIGN_OR_RETURN(plan.scatter, b.compiler().CompileFunction(scatter, false));
    if (plan.scatter->param_regs.size() != 2 || plan.scatter->result_regs.size() != 1) {
      return absl::InvalidArgumentError("scatter must take two scalars and return one");
    }
    how = absl::StrCat("call ", scatter.name());
  }
  if (auto cmp = MatchComparator(select);
      cmp.has_value() && cmp->operand == 0 && plan.scatter_op != nullptr &&
      how == "add" && select.root()->operand(0)->shape().element_type() == type &&
      (cmp->type == ComparisonType::kDefault ||
       (cmp->type == ComparisonType::kFloat && IsFloatingPoint(type)) ||
       (cmp->type == ComparisonType::kSigned && IsSignedInteger(type)))) {
    plan.direction = cmp->direction;
    plan.typed = SelectSelectAndScatterAddKernel(type);
    if (plan.typed != nullptr) how += " typed";
  }
  HLOVM_ASSIGN_OR_RETURN(Reg out, b.NewReg(RegKind::kOwned, instr.shape()));
  FunctionBuilder::EmitSpec spec;
  spec.handler = &SelectScatterHandler;
  for (const ValueDesc* op : ops) spec.in.push_back((*op)[0]);
  spec.out = {out};
  spec.cost = plan.g.out_count * std::max<int64_t>(1, plan.g.window_count) * plan.elem_size;
  spec.kind = HandlerKind::kSelectAndScatter;
  spec.variant = absl::StrCat(TypeName(operand), " select ", select.name(), " scatter ", how,
                              " window=", plan.g.window_count);
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(&instr, std::move(spec));
  result->push_back(out);
  return absl::OkStatus();
}

}  // namespace

void RegisterReduceLowerings(LoweringTable& table) {
  table[static_cast<int>(HloOpcode::kReduce)] = &LowerReduce;
  table[static_cast<int>(HloOpcode::kReduceWindow)] = &LowerReduceWindow;
  table[static_cast<int>(HloOpcode::kSelectAndScatter)] = &LowerSelectAndScatter;
}

}  // namespace vm
}  // namespace hlovm
