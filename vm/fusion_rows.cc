// Loop fusion, row-wise regions: a row reduce together with the elementwise
// work before and after it (layer norm, softmax, RMS norm, log-softmax,
// mean and variance), computed block of rows by block of rows while the
// rows are in cache, each input row read from memory once.
//
// Such a region lives on an array seen as [rows, inner]: its members are
// row reduces of the innermost `inner` elements (SelectRowReduce), the
// elementwise ops on values of rows * inner elements ("full" values) or of
// `rows` elements ("row" values), broadcasts of a row value along the rows,
// of a vector of `inner` elements down the columns or of a scalar, and
// reshapes between them (all row-major). A block of a few rows runs every
// member in schedule order: elementwise ops call the op-by-op kernels
// (SelectElementwiseKernel) on the block, the reduces call the op-by-op
// reduce's ReduceRunsBlock on the block's rows, so each value is the same
// bits as op by op (elementwise kernels give the same bits wherever a run
// starts; a row reduce folds each row the same way whatever rows surround
// it). Values read outside the region are written to memory; the rest live
// in a per-thread scratch of a block (an L1/L2-sized piece).
#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "core/thread_scratch.h"
#include "ops/elementwise/elementwise_lower.h"
#include "ops/reduce/reduce.h"
#include "ops/reduce/reduce_lower.h"
#include "vm/fusion.h"
#include "vm/fusion_internal.h"
#include "vm/lowering.h"
#include "vm/profiler.h"

namespace hlovm {
namespace vm {
namespace fusion_internal {
namespace {

// Elements of a full value a block holds: the block's live values stay in
// L1/L2 between the steps that read them.
constexpr int64_t kRowBlockElements = 2048;
// Elements of a parallel task (whole blocks).
constexpr int64_t kRowTaskElements = 1 << 16;
// Below this many elements a region is left to the other forms.
constexpr int64_t kMinRowRegionElements = 4096;
constexpr int64_t kMinRowInner = 16;

// Where a value of a row-wise region is, for a block starting at row r0.
struct RowVal {
  enum Kind : uint8_t {
    kFullIn,    // region input, rows * inner elements: at r0 * inner
    kRowIn,     // region input, rows elements: at r0
    kWholeIn,   // region input read whole (a scalar, a vector down the columns)
    kFullOut,   // region output, at r0 * inner
    kRowOut,    // region output, at r0
    kTemp,      // per-thread scratch at byte `index`
  };
  Kind kind = kTemp;
  uint8_t size = 0;
  uint32_t index = 0;
};

struct RowStep {
  enum Kind : uint8_t {
    kUnary, kBinary, kTernary,
    kReduce,       // dst[q] = fold of src's row q (ReduceRunsBlock)
    kSplatRow,     // dst's row q = src[q] repeated (a broadcast of a row value)
    kCopy,         // dst = src (an alias written to an output of its own)
    // Invariant: run once per task, before the blocks.
    kFillScalar,   // dst = the scalar src, block * inner (full) or block (row) times
    kFillColumns,  // dst's every row = the inner-element vector src
  };
  Kind kind = kUnary;
  bool full = true;  // the step's elements: block * inner, else block
  UnaryKernel unary = nullptr;
  BinaryKernel binary = nullptr;
  TernaryKernel ternary = nullptr;
  unsigned scalar_mask = 0;
  BinaryKernel reduce_op = nullptr;
  RunFoldKernel fold = nullptr;
  uint32_t init_input = 0;
  int arity = 0;
  RowVal src[3];
  RowVal dst;
};

struct RowPlan {
  int64_t rows = 0, inner = 0;
  int64_t block = 1;           // rows a block
  int64_t rows_per_task = 1;   // a multiple of block
  ReduceGeometry block_rows;   // a block's rows as a reduce's operand
  std::vector<RowStep> steps;  // the first `num_invariant` run once per task
  int num_invariant = 0;
  int64_t scratch_bytes = 0;
};

// dst[0..n) = the element at x, of `w` bytes.
template <class T>
void SplatAs(const uint8_t* x, uint8_t* dst, int64_t n) {
  T v;
  std::memcpy(&v, x, sizeof(T));
  T* d = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = v;
}
void Splat(const uint8_t* x, uint8_t* dst, int64_t n, int w) {
  switch (w) {
    case 1: return SplatAs<uint8_t>(x, dst, n);
    case 2: return SplatAs<uint16_t>(x, dst, n);
    case 4: return SplatAs<uint32_t>(x, dst, n);
    case 8: return SplatAs<uint64_t>(x, dst, n);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * w, x, w);
  }
}

bool RowRegionHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const RowPlan*>(instr.plan);
  const int64_t inner = p.inner;
  ForEachChunk(ctx, p.rows, p.rows_per_task, [&](int64_t begin, int64_t end) {
    struct RowScratch;
    uint8_t* scratch = ThreadScratch<RowScratch>(p.scratch_bytes);
    auto at = [&](const RowVal& v, int64_t r0) -> uint8_t* {
      switch (v.kind) {
        case RowVal::kFullIn: return regs[instr.in[v.index]] + r0 * inner * v.size;
        case RowVal::kRowIn: return regs[instr.in[v.index]] + r0 * v.size;
        case RowVal::kWholeIn: return regs[instr.in[v.index]];
        case RowVal::kFullOut: return regs[instr.out[v.index]] + r0 * inner * v.size;
        case RowVal::kRowOut: return regs[instr.out[v.index]] + r0 * v.size;
        case RowVal::kTemp: break;
      }
      return scratch + v.index;
    };
    for (int i = 0; i < p.num_invariant; ++i) {
      const RowStep& s = p.steps[i];
      uint8_t* d = at(s.dst, 0);
      const uint8_t* x = at(s.src[0], 0);
      const int w = s.dst.size;
      if (s.kind == RowStep::kFillColumns) {
        for (int64_t q = 0; q < p.block; ++q) std::memcpy(d + q * inner * w, x, inner * w);
      } else {
        Splat(x, d, s.full ? p.block * inner : p.block, w);
      }
    }
    for (int64_t r0 = begin; r0 < end; r0 += p.block) {
      const int64_t nb = std::min(p.block, end - r0);
      for (size_t i = p.num_invariant; i < p.steps.size(); ++i) {
        const RowStep& s = p.steps[i];
        const int64_t n = s.full ? nb * inner : nb;
        uint8_t* d = at(s.dst, r0);
        switch (s.kind) {
          case RowStep::kUnary:
            s.unary(at(s.src[0], r0), d, n);
            break;
          case RowStep::kBinary:
            s.binary(at(s.src[0], r0), at(s.src[1], r0), d, n);
            break;
          case RowStep::kTernary:
            s.ternary(at(s.src[0], r0), at(s.src[1], r0), at(s.src[2], r0), d, n, s.scalar_mask);
            break;
          case RowStep::kReduce:
            ReduceRunsBlock(p.block_rows, s.dst.size, s.reduce_op, s.fold, at(s.src[0], r0),
                            regs[instr.in[s.init_input]], d, 0, nb);
            break;
          case RowStep::kSplatRow: {
            const uint8_t* x = at(s.src[0], r0);
            const int w = s.dst.size;
            for (int64_t q = 0; q < nb; ++q) Splat(x + q * w, d + q * inner * w, inner, w);
            break;
          }
          case RowStep::kCopy:
            std::memcpy(d, at(s.src[0], r0), n * s.dst.size);
            break;
          default:
            break;
        }
      }
    }
  });
  return true;
}

// The value kinds of a region on [rows, inner].
enum class Span : uint8_t { kNone, kFull, kRow };

struct Domain {
  int64_t rows = 0, inner = 0;
  Span SpanOf(const Shape& s) const {
    if (!s.IsArray() || !IsEffectivelyRowMajor(s)) return Span::kNone;
    const int64_t n = s.element_count();
    if (n == rows * inner) return Span::kFull;
    if (n == rows) return Span::kRow;
    return Span::kNone;
  }
};

// How a member of a region computes its value.
enum class Form : uint8_t {
  kNone,
  kElementwise,
  kReduce,
  kAlias,        // reshape, or broadcast adding 1-sized dimensions: same bytes
  kSplatRow,     // broadcast of a row value along the rows
  kSplatColumn,  // broadcast of an inner-element vector from outside
  kSplatScalar,  // broadcast of a scalar from outside
};

// The form of `instr` as a member of a region on `d`, given which of its
// operands are members (`member`).
Form FormOf(const HloInstruction& instr, const Domain& d,
            const absl::flat_hash_set<const HloInstruction*>& member) {
  if (!instr.control_predecessors().empty()) return Form::kNone;
  const Span span = d.SpanOf(instr.shape());
  if (span == Span::kNone) return Form::kNone;
  for (const HloInstruction* op : instr.operands()) {
    if (!op->shape().IsArray()) return Form::kNone;
  }
  const HloOpcode opcode = instr.opcode();
  if (opcode == HloOpcode::kReduce) {
    if (span != Span::kRow || instr.operand_count() != 2) return Form::kNone;
    const std::optional<RowReduce> r = SelectRowReduce(instr);
    if (!r.has_value() || r->g.inner != d.inner || r->g.out_count != d.rows ||
        d.SpanOf(instr.operand(0)->shape()) != Span::kFull || member.contains(instr.operand(1))) {
      return Form::kNone;
    }
    return Form::kReduce;
  }
  if (opcode == HloOpcode::kReshape) {
    return instr.operand_count() == 1 && d.SpanOf(instr.operand(0)->shape()) == span
               ? Form::kAlias
               : Form::kNone;
  }
  if (opcode == HloOpcode::kBroadcast) {
    if (instr.operand_count() != 1 ||
        instr.operand(0)->shape().element_type() != instr.shape().element_type()) {
      return Form::kNone;
    }
    int64_t repeat, period;
    if (!BroadcastPattern(instr, &repeat, &period)) return Form::kNone;
    const HloInstruction* op = instr.operand(0);
    const int64_t n = instr.shape().element_count();
    if (period == n) return d.SpanOf(op->shape()) == span ? Form::kAlias : Form::kNone;
    if (member.contains(op)) {
      return span == Span::kFull && repeat == d.inner && period == d.rows ? Form::kSplatRow
                                                                           : Form::kNone;
    }
    if (period == 1) return Form::kSplatScalar;
    if (span == Span::kFull && repeat == 1 && period == d.inner) return Form::kSplatColumn;
    if (span == Span::kFull && repeat == d.inner && period == d.rows &&
        d.SpanOf(op->shape()) == Span::kRow) {
      return Form::kSplatRow;
    }
    return Form::kNone;
  }
  const OpFamily family = HloOpcodeFamily(opcode);
  const bool elementwise = family == OpFamily::kUnary || family == OpFamily::kBinary ||
                           family == OpFamily::kTernary || opcode == HloOpcode::kConvert;
  if (!elementwise) return Form::kNone;
  absl::StatusOr<ElementwiseKernel> k = SelectElementwiseKernel(instr);
  if (!k.ok() || k->kind == ElementwiseKernel::kReducePrecision) return Form::kNone;
  for (int i = 0; i < instr.operand_count(); ++i) {
    const HloInstruction* op = instr.operand(i);
    if (k->kind == ElementwiseKernel::kTernary && (k->scalar_mask >> i & 1) != 0) {
      if (member.contains(op) || op->shape().element_count() != 1) return Form::kNone;
    } else if (d.SpanOf(op->shape()) != span) {
      return Form::kNone;
    }
  }
  return Form::kElementwise;
}

}  // namespace

std::vector<std::vector<int64_t>> PlanRowRegions(absl::Span<const HloInstruction* const> order,
                                                 const std::vector<std::vector<int64_t>>& users,
                                                 const std::vector<bool>& pinned) {
  const int64_t count = static_cast<int64_t>(order.size());
  absl::flat_hash_map<const HloInstruction*, int64_t> pos;
  for (int64_t i = 0; i < count; ++i) pos[order[i]] = i;
  std::vector<bool> taken(count, false);
  std::vector<std::vector<int64_t>> regions;
  for (int64_t start = 0; start < count; ++start) {
    const HloInstruction& seed = *order[start];
    if (taken[start] || pinned[start] || seed.opcode() != HloOpcode::kReduce) continue;
    const std::optional<RowReduce> r = SelectRowReduce(seed);
    if (!r.has_value() || r->g.out_count < 2 || r->g.inner < kMinRowInner ||
        r->g.out_count * r->g.inner < kMinRowRegionElements) {
      continue;
    }
    const Domain d{r->g.out_count, r->g.inner};
    absl::flat_hash_set<const HloInstruction*> member;
    if (FormOf(seed, d, member) != Form::kReduce) continue;
    // Grow through operands and users, earliest first, so that a member's
    // operands are decided before it.
    std::vector<int64_t> members{start};
    member.insert(&seed);
    std::deque<int64_t> frontier;
    absl::flat_hash_set<int64_t> seen{start};
    auto push = [&](int64_t i) {
      for (const HloInstruction* op : order[i]->operands()) {
        if (auto it = pos.find(op); it != pos.end() && seen.insert(it->second).second) {
          frontier.push_back(it->second);
        }
      }
      for (int64_t u : users[i]) {
        if (u < count && seen.insert(u).second) frontier.push_back(u);
      }
    };
    push(start);
    // Candidates rejected because an operand was not yet a member are
    // tried again when the region grows.
    bool grew = true;
    std::vector<int64_t> retry;
    while (grew) {
      grew = false;
      while (!frontier.empty()) {
        const int64_t i = frontier.front();
        frontier.pop_front();
        if (taken[i] || pinned[i] || FormOf(*order[i], d, member) == Form::kNone) {
          retry.push_back(i);
          continue;
        }
        members.push_back(i);
        member.insert(order[i]);
        grew = true;
        push(i);
      }
      if (grew) {
        for (int64_t i : retry) {
          if (!member.contains(order[i])) frontier.push_back(i);
        }
        retry.clear();
      }
    }
    std::sort(members.begin(), members.end());
    // A member read outside before the region's last member would be read
    // before the region runs: the region ends before that reader.
    // Members are kept only when their operands are members or come from
    // outside the region (never from a member dropped here).
    for (;;) {
      const int64_t last = members.back();
      int64_t cut = count;
      for (int64_t m : members) {
        for (int64_t u : users[m]) {
          if (u < last && !member.contains(order[u])) cut = std::min(cut, u);
        }
      }
      if (cut == count) break;
      while (!members.empty() && members.back() > cut) {
        member.erase(order[members.back()]);
        members.pop_back();
      }
      if (members.empty()) break;
    }
    if (members.empty()) continue;
    // A member whose form depended on an operand being a member is checked
    // again (a dropped operand changes a splat of a row into another form).
    bool consistent = true;
    for (int64_t m : members) consistent &= FormOf(*order[m], d, member) != Form::kNone;
    if (!consistent) continue;
    // Worth it: two reduces (one pass for both), or a reduce whose row
    // value is broadcast back along its rows (the work after it).
    int reduces = 0, splats = 0;
    for (int64_t m : members) {
      const Form f = FormOf(*order[m], d, member);
      reduces += f == Form::kReduce;
      splats += f == Form::kSplatRow && member.contains(order[m]->operand(0));
    }
    if (reduces == 0 || (reduces < 2 && splats == 0)) continue;
    for (int64_t m : members) taken[m] = true;
    regions.push_back(std::move(members));
  }
  return regions;
}

absl::Status LowerRowRegion(FunctionBuilder& b, const FusedRegion& region,
                            absl::flat_hash_map<const HloInstruction*, ValueDesc>* values) {
  // The domain, from the first reduce.
  const HloInstruction* first_reduce = nullptr;
  for (const HloInstruction* m : region.members) {
    if (m->opcode() == HloOpcode::kReduce) {
      first_reduce = m;
      break;
    }
  }
  if (first_reduce == nullptr) return absl::InternalError("row-wise region without a reduce");
  const std::optional<RowReduce> red = SelectRowReduce(*first_reduce);
  if (!red.has_value()) return absl::InternalError("row-wise region lost its reduce");
  const Domain d{red->g.out_count, red->g.inner};
  absl::flat_hash_set<const HloInstruction*> member(region.members.begin(),
                                                    region.members.end());
  absl::flat_hash_set<const HloInstruction*> is_output(region.outputs.begin(),
                                                       region.outputs.end());

  RowPlan plan;
  plan.rows = d.rows;
  plan.inner = d.inner;
  plan.block = std::max<int64_t>(1, kRowBlockElements / d.inner);
  plan.rows_per_task = std::max<int64_t>(1, kRowTaskElements / (plan.block * d.inner)) * plan.block;
  HLOVM_ASSIGN_OR_RETURN(plan.block_rows,
                         MakeReduceGeometry({plan.block, d.inner}, std::vector<int64_t>{1}));

  std::vector<Reg> in_regs, outs;
  absl::flat_hash_map<Reg, uint32_t> input_of;
  auto input = [&](const HloInstruction* op) -> absl::StatusOr<uint32_t> {
    auto it = values->find(op);
    if (it == values->end() || it->second.size() != 1) {
      return absl::InternalError(absl::StrCat("fused region reads %", op->name(),
                                              ", which has no array register"));
    }
    const Reg r = it->second[0];
    auto [slot, added] = input_of.try_emplace(r, static_cast<uint32_t>(in_regs.size()));
    if (added) in_regs.push_back(r);
    return slot->second;
  };
  int64_t in_bytes = 0, out_bytes = 0;
  auto temp = [&](Span span, int size) {
    RowVal v;
    v.kind = RowVal::kTemp;
    v.size = static_cast<uint8_t>(size);
    v.index = static_cast<uint32_t>(plan.scratch_bytes);
    const int64_t bytes = (span == Span::kFull ? plan.block * d.inner : plan.block) * size;
    plan.scratch_bytes += (bytes + 63) / 64 * 64;
    return v;
  };
  absl::flat_hash_map<const HloInstruction*, RowVal> val;
  // Where member `m`'s value goes: an output of its own, or scratch.
  auto place = [&](const HloInstruction* m, Span span) -> absl::StatusOr<RowVal> {
    const int size = ByteWidth(m->shape().element_type());
    if (!is_output.contains(m)) return temp(span, size);
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, m->shape()));
    RowVal v;
    v.kind = span == Span::kFull ? RowVal::kFullOut : RowVal::kRowOut;
    v.size = static_cast<uint8_t>(size);
    v.index = static_cast<uint32_t>(outs.size());
    outs.push_back(r);
    out_bytes += b.function().regs[r].bytes;
    (*values)[m] = ValueDesc{r};
    return v;
  };
  // A value the region reads: a member's, or an input's.
  auto read = [&](const HloInstruction* op) -> absl::StatusOr<RowVal> {
    if (auto it = val.find(op); it != val.end()) return it->second;
    HLOVM_ASSIGN_OR_RETURN(uint32_t k, input(op));
    RowVal v;
    v.size = static_cast<uint8_t>(ByteWidth(op->shape().element_type()));
    v.index = k;
    const Span span = d.SpanOf(op->shape());
    v.kind = span == Span::kFull  ? RowVal::kFullIn
             : span == Span::kRow ? RowVal::kRowIn
                                  : RowVal::kWholeIn;
    in_bytes += op->shape().element_count() * v.size;
    val[op] = v;
    return v;
  };

  std::vector<RowStep> invariant, body;
  std::string detail;
  auto text = [&](const RowVal& v) -> std::string {
    switch (v.kind) {
      case RowVal::kFullIn: return absl::StrCat("in", v.index);
      case RowVal::kRowIn: return absl::StrCat("in", v.index, "[row]");
      case RowVal::kWholeIn: return absl::StrCat("in", v.index, " (whole)");
      case RowVal::kFullOut: return absl::StrCat("out", v.index);
      case RowVal::kRowOut: return absl::StrCat("out", v.index, "[row]");
      case RowVal::kTemp: break;
    }
    return absl::StrCat("t@", v.index);
  };
  int num_ops = 0;
  for (const HloInstruction* m : region.members) {
    const Form form = FormOf(*m, d, member);
    const Span span = d.SpanOf(m->shape());
    RowStep s;
    s.full = span == Span::kFull;
    std::string what;
    switch (form) {
      case Form::kNone:
        return absl::InternalError(absl::StrCat("row-wise region member %", m->name(),
                                                " lost its form"));
      case Form::kAlias: {
        HLOVM_ASSIGN_OR_RETURN(RowVal v, read(m->operand(0)));
        if (!is_output.contains(m)) {
          val[m] = v;
          continue;
        }
        s.kind = RowStep::kCopy;
        s.src[0] = v;
        s.arity = 1;
        what = "copy";
        break;
      }
      case Form::kElementwise: {
        HLOVM_ASSIGN_OR_RETURN(ElementwiseKernel k, SelectElementwiseKernel(*m));
        s.arity = k.arity;
        for (int i = 0; i < m->operand_count(); ++i) {
          HLOVM_ASSIGN_OR_RETURN(s.src[i], read(m->operand(i)));
        }
        s.kind = k.kind == ElementwiseKernel::kUnary    ? RowStep::kUnary
                 : k.kind == ElementwiseKernel::kBinary ? RowStep::kBinary
                                                        : RowStep::kTernary;
        s.unary = k.unary;
        s.binary = k.binary;
        s.ternary = k.ternary;
        s.scalar_mask = k.scalar_mask;
        what = absl::StrCat(std::string(HloOpcodeName(m->opcode())), " ", k.variant);
        ++num_ops;
        break;
      }
      case Form::kReduce: {
        const std::optional<RowReduce> r = SelectRowReduce(*m);
        if (!r.has_value()) return absl::InternalError("row-wise reduce lost its form");
        HLOVM_ASSIGN_OR_RETURN(s.src[0], read(m->operand(0)));
        s.arity = 1;
        HLOVM_ASSIGN_OR_RETURN(s.init_input, input(m->operand(1)));
        s.kind = RowStep::kReduce;
        s.full = false;
        s.reduce_op = r->op;
        s.fold = r->fold;
        what = absl::StrCat("reduce ", std::string(HloOpcodeName(r->opcode)), " over rows of ",
                            d.inner);
        ++num_ops;
        break;
      }
      case Form::kSplatRow: {
        HLOVM_ASSIGN_OR_RETURN(s.src[0], read(m->operand(0)));
        s.arity = 1;
        s.kind = RowStep::kSplatRow;
        what = "broadcast along rows";
        break;
      }
      case Form::kSplatColumn:
      case Form::kSplatScalar: {
        HLOVM_ASSIGN_OR_RETURN(s.src[0], read(m->operand(0)));
        s.arity = 1;
        s.kind = form == Form::kSplatColumn ? RowStep::kFillColumns : RowStep::kFillScalar;
        what = form == Form::kSplatColumn ? "broadcast down columns" : "broadcast scalar";
        if (!is_output.contains(m)) {
          s.dst = temp(span, ByteWidth(m->shape().element_type()));
          val[m] = s.dst;
          absl::StrAppendFormat(&detail, "          %s = %s %s (once per task)%*s; %%%s\n",
                                text(s.dst), what, text(s.src[0]), 10, "", m->name());
          invariant.push_back(s);
          continue;
        }
        // Read outside too: filled once per task, copied out block by block.
        if (form == Form::kSplatColumn) {
          RowStep fill = s;
          fill.kind = RowStep::kFillColumns;
          fill.dst = temp(span, ByteWidth(m->shape().element_type()));
          invariant.push_back(fill);
          s.kind = RowStep::kCopy;
          s.src[0] = fill.dst;
        } else {
          RowStep fill = s;
          fill.kind = RowStep::kFillScalar;
          fill.dst = temp(span, ByteWidth(m->shape().element_type()));
          invariant.push_back(fill);
          s.kind = RowStep::kCopy;
          s.src[0] = fill.dst;
        }
        break;
      }
    }
    HLOVM_ASSIGN_OR_RETURN(s.dst, place(m, span));
    val[m] = s.dst;
    std::string srcs;
    for (int i = 0; i < s.arity; ++i) absl::StrAppend(&srcs, i ? ", " : "", text(s.src[i]));
    absl::StrAppendFormat(&detail, "          %s = %s %s%s ; %%%s\n", text(s.dst), what, srcs,
                          s.kind == RowStep::kReduce ? absl::StrCat(" from s", s.init_input) : "",
                          m->name());
    body.push_back(s);
  }
  // Outputs the compiler asks for that are aliases of inputs or other
  // values: the register of what they alias.
  for (const HloInstruction* o : region.outputs) {
    if (values->contains(o)) continue;
    return absl::InternalError(absl::StrCat("row-wise region output %", o->name(),
                                            " has no register"));
  }
  plan.num_invariant = static_cast<int>(invariant.size());
  plan.steps = std::move(invariant);
  plan.steps.insert(plan.steps.end(), body.begin(), body.end());

  FunctionBuilder::EmitSpec spec;
  spec.handler = &RowRegionHandler;
  spec.kind = HandlerKind::kFusion;
  spec.in = in_regs;
  spec.out = outs;
  spec.variant = absl::StrCat(num_ops, " ops, row-wise over ", d.rows, " rows of ", d.inner,
                              ", blocks of ", plan.block, " rows");
  spec.detail = absl::StrCat("          per block of rows:\n", detail);
  FusedWork work;
  work.bytes = static_cast<double>(in_bytes + out_bytes);
  work.ops = num_ops;
  work.flops = static_cast<double>(num_ops) * static_cast<double>(d.rows * d.inner);
  spec.fused = b.program().AddPlan(work);
  spec.cost = in_bytes + out_bytes;
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(region.root, std::move(spec));
  return absl::OkStatus();
}

}  // namespace fusion_internal
}  // namespace vm
}  // namespace hlovm
