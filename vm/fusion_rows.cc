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
// it). Runs of f32 steps become register programs
// (ops/elementwise/f32_program.h, the same element functions as the
// kernels), which read a row value broadcast along the rows as a repeated
// scalar and a vector broadcast down the columns in place; an f32 sum of
// rows joins the program that computes what it sums (sum-row, in the
// reduce's order), and a one-op value of inputs and row broadcasts that a
// later program reads is computed again there rather than stored (layer
// norm: the centred rows). Values read outside the region are written to
// memory; the rest live in a per-thread scratch of a block (an L2-sized
// piece), reused once their last reader has run. The one output may take
// its input's buffer (a while loop's state stays in place).
#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "core/status_macros.h"
#include "core/thread_scratch.h"
#include "ops/elementwise/f32_program.h"
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
constexpr int64_t kRowBlockElements = 8192;
// Elements of a parallel task (whole blocks).
constexpr int64_t kRowTaskElements = 1 << 16;
// An f32 output of at least this many bytes is written with non-temporal
// stores (F32Stream::streaming): it does not stay in cache for its reader
// anyway, and its lines then go to memory without being read first.
constexpr int64_t kStreamingOutputBytes = 8 << 20;
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
    kCopy,         // dst = src (a filled broadcast read outside too)
    kProgram,      // a register program over the block (RowPlan::programs)
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
  int program = -1;  // kProgram
};

// A run of f32 steps as one register program (ops/elementwise/f32_program.h)
// over the block: stream k is `streams[k]` (a row value read with a repeat
// of `inner` is its broadcast along the rows); `stores` are the streams it
// writes.
struct RowProgram {
  std::vector<F32ProgramOp> code;
  std::vector<RowVal> streams;
  std::vector<F32Stream> kinds;
  // `kinds` without streaming stores, for a run whose output took an
  // input's buffer: its lines were just read, so plain stores hit cache.
  std::vector<F32Stream> kinds_in_place;
  std::vector<bool> stores;
};

struct RowPlan {
  int64_t rows = 0, inner = 0;
  int64_t block = 1;           // rows a block
  int64_t rows_per_task = 1;   // a multiple of block
  ReduceGeometry block_rows;   // a block's rows as a reduce's operand
  std::vector<RowStep> steps;  // the first `num_invariant` run once per task
  std::vector<RowProgram> programs;
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
  // Whether the output took an input's buffer (RowPlan's inplace_mask).
  bool in_place = false;
  for (uint32_t k = 0; k < instr.num_in; ++k) in_place |= regs[instr.in[k]] == regs[instr.out[0]];
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
        uint8_t* d = s.kind == RowStep::kProgram ? nullptr : at(s.dst, r0);
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
                            regs[instr.in[s.init_input]], d, 0, nb,
                            /*cached=*/s.src[0].kind == RowVal::kTemp);
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
          case RowStep::kProgram: {
            const RowProgram& prog = p.programs[s.program];
            void* streams[kF32ProgramMaxStreams];
            for (size_t k = 0; k < prog.streams.size(); ++k) streams[k] = at(prog.streams[k], r0);
            RunF32Program(prog.code.data(), static_cast<int>(prog.code.size()), streams,
                          (in_place ? prog.kinds_in_place : prog.kinds).data(),
                          static_cast<int>(prog.streams.size()), 0, nb * inner);
            break;
          }
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

// The values step `s` reads and writes (a program's streams).
void StepValues(RowStep& s, RowPlan* plan, std::vector<RowVal*>* reads,
                std::vector<RowVal*>* writes) {
  reads->clear();
  writes->clear();
  if (s.kind == RowStep::kProgram) {
    RowProgram& prog = plan->programs[s.program];
    for (size_t k = 0; k < prog.streams.size(); ++k) {
      (prog.stores[k] ? writes : reads)->push_back(&prog.streams[k]);
    }
    return;
  }
  for (int k = 0; k < s.arity; ++k) reads->push_back(&s.src[k]);
  writes->push_back(&s.dst);
}

// Places the scratch values of `plan`'s steps (numbered, `bytes` each) in
// one per-thread scratch: a value's place is reused once its last reader
// has run (never by that reader's own results, so no step's result overlaps
// its operands); the values the invariant steps fill keep theirs.
void AssignScratch(const std::vector<int64_t>& bytes, RowPlan* plan) {
  const int64_t count = static_cast<int64_t>(bytes.size());
  const int64_t steps = static_cast<int64_t>(plan->steps.size());
  std::vector<RowVal*> reads, writes;
  std::vector<int64_t> last(count, -1);
  for (int64_t i = 0; i < steps; ++i) {
    StepValues(plan->steps[i], plan, &reads, &writes);
    for (const RowVal* v : reads) {
      if (v->kind == RowVal::kTemp) last[v->index] = i;
    }
  }
  std::vector<int64_t> offset(count, -1);
  std::vector<bool> pinned(count, false);  // filled once per task
  for (int i = 0; i < plan->num_invariant; ++i) {
    if (plan->steps[i].dst.kind == RowVal::kTemp) pinned[plan->steps[i].dst.index] = true;
  }
  std::vector<std::pair<int64_t, int64_t>> free_blocks;  // (offset, bytes)
  int64_t top = 0;
  for (int64_t i = 0; i < steps; ++i) {
    StepValues(plan->steps[i], plan, &reads, &writes);
    for (const RowVal* v : writes) {
      if (v->kind != RowVal::kTemp || offset[v->index] >= 0) continue;
      const int64_t need = bytes[v->index];
      auto fit = free_blocks.end();
      if (i >= plan->num_invariant) {
        fit = std::find_if(free_blocks.begin(), free_blocks.end(),
                           [&](const auto& b) { return b.second >= need; });
      }
      if (fit != free_blocks.end()) {
        offset[v->index] = fit->first;
        free_blocks.erase(fit);
      } else {
        offset[v->index] = top;
        top += need;
      }
    }
    for (size_t k = 0; k < reads.size(); ++k) {
      const RowVal* v = reads[k];
      if (v->kind != RowVal::kTemp || last[v->index] != i || pinned[v->index]) continue;
      bool again = false;  // the same value twice in one step
      for (size_t j = 0; j < k; ++j) {
        again |= reads[j]->kind == RowVal::kTemp && reads[j]->index == v->index;
      }
      if (!again) {
        free_blocks.emplace_back(offset[v->index], bytes[v->index]);
        pinned[v->index] = true;  // freed once
      }
    }
  }
  for (RowStep& s : plan->steps) {
    StepValues(s, plan, &reads, &writes);
    for (RowVal* v : reads) {
      if (v->kind == RowVal::kTemp) v->index = static_cast<uint32_t>(offset[v->index]);
    }
    for (RowVal* v : writes) {
      if (v->kind == RowVal::kTemp) v->index = static_cast<uint32_t>(offset[v->index]);
    }
  }
  plan->scratch_bytes = top;
}

// A value's identity before scratch places are assigned.
uint64_t KeyOf(const RowVal& v) { return uint64_t{v.kind} << 32 | v.index; }

// Whether a program may read step `s`'s value as its row value repeated:
// an f32 broadcast along rows of a multiple of kF32ProgramRepeatQuantum.
bool RepeatedSplat(const RowStep& s, int64_t inner) {
  return inner % kF32ProgramRepeatQuantum == 0 && s.kind == RowStep::kSplatRow &&
         s.dst.size == 4 && s.src[0].size == 4;
}

// Values of one f32 op over the region's inputs and broadcasts of row
// values (x - mean in a layer norm) that a later run of program steps
// reads are computed again in that run rather than stored by theirs and
// read back: the op's operands are in cache (the block's input rows) or
// registers, and the store and the scratch they cost are saved. Same op,
// same operands: the same bits. `new_temp` makes a full f32 scratch value.
void RecomputeCheapValues(int64_t inner, std::vector<RowStep>* body,
                          std::vector<std::optional<F32Code>>* code,
                          const std::function<RowVal()>& new_temp) {
  const int64_t n = static_cast<int64_t>(body->size());
  auto in_runs = [&](int64_t i) { return (*code)[i].has_value() || RepeatedSplat((*body)[i], inner); };
  absl::flat_hash_map<uint64_t, int64_t> producer;
  for (int64_t i = 0; i < n; ++i) producer[KeyOf((*body)[i].dst)] = i;
  // Steps whose value may be computed again.
  absl::flat_hash_set<uint64_t> cheap;
  for (int64_t i = 0; i < n; ++i) {
    const RowStep& s = (*body)[i];
    if (!(*code)[i].has_value() || *(*code)[i] == F32Code::kSumRow || s.dst.kind != RowVal::kTemp ||
        (s.kind != RowStep::kUnary && s.kind != RowStep::kBinary)) {
      continue;
    }
    bool ok = true;
    for (int k = 0; k < s.arity; ++k) {
      const RowVal& v = s.src[k];
      auto p = producer.find(KeyOf(v));
      ok &= v.kind == RowVal::kFullIn ||
            (v.kind == RowVal::kTemp && p != producer.end() && RepeatedSplat((*body)[p->second], inner));
    }
    if (ok) cheap.insert(KeyOf(s.dst));
  }
  if (cheap.empty()) return;
  std::vector<RowStep> out;
  std::vector<std::optional<F32Code>> out_code;
  // In the current run: value -> its copy computed in this run.
  absl::flat_hash_map<uint64_t, RowVal> copies;
  absl::flat_hash_set<uint64_t> computed;  // in the current run
  for (int64_t i = 0; i < n; ++i) {
    if (!in_runs(i)) {
      copies.clear();
      computed.clear();
      out.push_back((*body)[i]);
      out_code.push_back((*code)[i]);
      continue;
    }
    RowStep s = (*body)[i];
    if ((*code)[i].has_value()) {
      for (int k = 0; k < s.arity; ++k) {
        const uint64_t key = KeyOf(s.src[k]);
        if (!cheap.contains(key) || computed.contains(key)) continue;
        auto it = copies.find(key);
        if (it == copies.end()) {
          const int64_t p = producer.at(key);
          RowStep copy = (*body)[p];
          for (int m = 0; m < copy.arity; ++m) {
            if (copy.src[m].kind != RowVal::kTemp) continue;
            RowStep splat = (*body)[producer.at(KeyOf(copy.src[m]))];
            splat.dst = new_temp();
            copy.src[m] = splat.dst;
            out.push_back(splat);
            out_code.push_back(std::nullopt);
          }
          copy.dst = new_temp();
          out.push_back(copy);
          out_code.push_back((*code)[p]);
          it = copies.emplace(key, copy.dst).first;
        }
        s.src[k] = it->second;
      }
    }
    computed.insert(KeyOf(s.dst));
    out.push_back(s);
    out_code.push_back((*code)[i]);
  }
  *body = std::move(out);
  *code = std::move(out_code);
}

// Turns runs of consecutive f32 steps over the block into register
// programs: a step's value stays in the accumulator for the next step, in
// a spill slot for later ones in the run, and is stored only where a step
// outside the run reads it or it is an output; a broadcast along the rows
// read only inside the run is read as its row value repeated (rows of a
// multiple of kF32ProgramRepeatQuantum). `code[i]` is body step i's program
// op where it has one. Appends the programs' listings to `detail`.
void MakePrograms(const std::vector<std::optional<F32Code>>& code, int64_t inner,
                  const absl::flat_hash_map<uint64_t, RowVal>& columns,
                  std::vector<RowStep>* body, RowPlan* plan, std::string* detail,
                  const std::function<std::string(const RowVal&)>& text) {
  const int64_t n = static_cast<int64_t>(body->size());
  absl::flat_hash_map<uint64_t, std::vector<int64_t>> readers;
  for (int64_t i = 0; i < n; ++i) {
    const RowStep& s = (*body)[i];
    for (int k = 0; k < s.arity; ++k) readers[KeyOf(s.src[k])].push_back(i);
  }
  const bool repeats = inner % kF32ProgramRepeatQuantum == 0;
  auto splat = [&](int64_t i) { return RepeatedSplat((*body)[i], inner); };
  std::vector<RowStep> out;
  int64_t i = 0;
  while (i < n) {
    if (!code[i].has_value() && !splat(i)) {
      out.push_back((*body)[i++]);
      continue;
    }
    // A run ends before a splat of a row value it sums (sum-row writes a
    // row's scalar only once the row is done).
    int64_t j = i;
    absl::flat_hash_set<uint64_t> summed;
    while (j < n && (code[j].has_value() || splat(j))) {
      if (splat(j) && summed.contains(KeyOf((*body)[j].src[0]))) break;
      if (code[j] == F32Code::kSumRow) summed.insert(KeyOf((*body)[j].dst));
      ++j;
    }
    // Splats read outside the run stay steps (ahead of the program: their
    // row values come from before the run).
    absl::flat_hash_map<uint64_t, RowVal> repeated;  // splat value -> its row value
    std::vector<RowStep> hoisted;
    std::vector<int64_t> ops;
    for (int64_t k = i; k < j; ++k) {
      if (!splat(k)) {
        ops.push_back(k);
        continue;
      }
      bool inside = (*body)[k].dst.kind == RowVal::kTemp;
      for (int64_t r : readers[KeyOf((*body)[k].dst)]) inside &= r >= i && r < j;
      if (inside) {
        repeated[KeyOf((*body)[k].dst)] = (*body)[k].src[0];
      } else {
        hoisted.push_back((*body)[k]);
      }
    }
    RowProgram prog;
    absl::flat_hash_map<uint64_t, int> stream_of, spill_of;
    // `rows`: the row sums of a reduce.
    auto stream = [&](const RowVal& v, bool store, bool rows = false) -> F32Operand {
      const uint64_t key = KeyOf(v);
      auto [it, added] = stream_of.try_emplace(key, static_cast<int>(prog.streams.size()));
      if (added) {
        F32Stream kind;
        if (auto r = repeated.find(key); r != repeated.end()) {
          prog.streams.push_back(r->second);
          kind.splat = true;
          kind.repeat = inner;
          kind.period = plan->block;
        } else if (auto c = columns.find(key); repeats && c != columns.end()) {
          prog.streams.push_back(c->second);  // the vector, not its fill
          kind.columns = true;
          kind.repeat = inner;
        } else if (v.kind == RowVal::kWholeIn) {  // a reduce's initial value
          prog.streams.push_back(v);
          kind.splat = true;
        } else if (rows) {
          prog.streams.push_back(v);
          kind.rows = true;
          kind.repeat = inner;
          kind.period = plan->block;
        } else {
          prog.streams.push_back(v);
          // An input's block of rows is prefetched by its first reader
          // where that is a program. Where a step before the run read the
          // block first (layer norm's mean), the rows are in cache already,
          // and the input's last reader prefetches the next block into L2
          // instead, for that step to find. On layer norm of 16M floats,
          // one thread: 8.3 ms with every reader prefetching ahead into L1,
          // 6.2 with none after the first, 5.5 so.
          if (v.kind == RowVal::kFullIn) {  // read by this run, so readers[key] holds it
            const bool first = readers[key].front() >= i;
            kind.far = first || readers[key].back() < j;
            if (kind.far && !first) kind.ahead = plan->block * inner;
          }
          kind.streaming = store && v.kind == RowVal::kFullOut &&
                           plan->rows * inner * int64_t{sizeof(float)} >= kStreamingOutputBytes;
        }
        prog.kinds.push_back(kind);
        kind.streaming = false;
        prog.kinds_in_place.push_back(kind);
        prog.stores.push_back(store);
      }
      return F32Operand{F32Operand::kStream, static_cast<uint8_t>(it->second)};
    };
    uint64_t acc = ~uint64_t{0};
    bool ok = true;
    int sum_rows = 0;
    for (size_t q = 0; q < ops.size() && ok; ++q) {
      const RowStep& s = (*body)[ops[q]];
      auto operand = [&](const RowVal& v) -> F32Operand {
        const uint64_t key = KeyOf(v);
        if (key == acc) return F32Operand{F32Operand::kAcc, 0};
        if (auto it = spill_of.find(key); it != spill_of.end()) {
          return F32Operand{F32Operand::kSpill, static_cast<uint8_t>(it->second)};
        }
        return stream(v, false);
      };
      F32ProgramOp op;
      op.code = *code[ops[q]];
      if (op.code == F32Code::kSumRow) {
        // The accumulator keeps the value summed.
        const F32Operand a = operand(s.src[0]);
        if (a.kind != F32Operand::kAcc) prog.code.push_back({F32Code::kLoad, false, a, {}});
        RowVal init;
        init.kind = RowVal::kWholeIn;
        init.size = 4;
        init.index = s.init_input;
        op.a = stream(s.dst, true, /*rows=*/true);
        op.b = stream(init, false);
        if (++sum_rows > kF32ProgramMaxSumRows) {
          ok = false;
          break;
        }
        prog.code.push_back(op);
        acc = KeyOf(s.src[0]);
        continue;
      }
      if (s.arity == 1) {
        const F32Operand a = operand(s.src[0]);
        if (a.kind != F32Operand::kAcc) prog.code.push_back({F32Code::kLoad, false, a, {}});
      } else {
        const F32Operand a = operand(s.src[0]), b = operand(s.src[1]);
        if (a.kind == F32Operand::kAcc) {
          op.a = b;
        } else if (b.kind == F32Operand::kAcc) {
          op.reversed = true;
          op.a = a;
        } else {
          prog.code.push_back({F32Code::kLoad, false, a, {}});
          op.a = b;
        }
      }
      prog.code.push_back(op);
      acc = KeyOf(s.dst);
      // The ops that read the value from the accumulator: the sum-rows of
      // it right after it, and the op after those.
      size_t next = q + 1;
      while (next < ops.size() && code[ops[next]] == F32Code::kSumRow &&
             KeyOf((*body)[ops[next]].src[0]) == acc) {
        ++next;
      }
      bool later = false, outside = s.dst.kind != RowVal::kTemp;
      for (int64_t r : readers[acc]) {
        const auto at = std::find(ops.begin(), ops.end(), r);
        const bool in_run = at != ops.end();
        if (!in_run) outside = true;
        if (in_run && static_cast<size_t>(at - ops.begin()) > next) later = true;
      }
      if (later) {
        const int slot = static_cast<int>(spill_of.size());
        if (slot >= kF32ProgramMaxSpills) {
          ok = false;
          break;
        }
        spill_of[acc] = slot;
        prog.code.push_back(
            {F32Code::kSpill, false, {F32Operand::kSpill, static_cast<uint8_t>(slot)}, {}});
      }
      if (outside) {
        prog.code.push_back({F32Code::kStore, false, stream(s.dst, true), {}});
      }
    }
    // Sums alone stay reduce steps: the reduce's own loop (four 128-bit
    // chains) reads rows from memory as fast (layer norm's first sum,
    // measured both ways).
    bool only_sums = true;
    for (int64_t k : ops) only_sums &= code[k] == F32Code::kSumRow;
    ok = ok && !ops.empty() && !only_sums && prog.streams.size() <= kF32ProgramMaxStreams &&
         prog.code.size() <= kF32ProgramMaxOps;
    if (!ok) {
      for (int64_t k = i; k < j; ++k) out.push_back((*body)[k]);
      i = j;
      continue;
    }
    for (RowStep& h : hoisted) out.push_back(h);
    RowStep step;
    step.kind = RowStep::kProgram;
    step.full = true;
    step.program = static_cast<int>(plan->programs.size());
    std::string streams;
    for (size_t k = 0; k < prog.streams.size(); ++k) {
      absl::StrAppend(&streams, k ? ", " : "", text(prog.streams[k]),
                      prog.kinds[k].splat && prog.kinds[k].repeat > 0
                          ? absl::StrCat(" (repeat ", inner, ")")
                          : "",
                      prog.kinds[k].columns ? " (every row)" : "",
                      prog.kinds[k].ahead > 0 ? " (next block prefetched)" : "",
                      prog.kinds[k].rows ? " (row sums)"
                      : prog.stores[k]   ? " (stored)"
                                         : "");
    }
    absl::StrAppend(detail, "          program ", step.program, ": ", prog.code.size(),
                    " ops over ", streams, "\n");
    plan->programs.push_back(std::move(prog));
    out.push_back(step);
    i = j;
  }
  *body = std::move(out);
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
  // An output that is an alias (a reshape) of another member is that
  // member's register viewed in its shape, as a reshape op by op is: the
  // member it aliases is written to memory instead.
  for (const HloInstruction* o : region.outputs) {
    const HloInstruction* m = o;
    while (member.contains(m) && FormOf(*m, d, member) == Form::kAlias) m = m->operand(0);
    if (m != o && member.contains(m)) is_output.insert(m);
  }

  RowPlan plan;
  plan.rows = d.rows;
  plan.inner = d.inner;
  plan.block = std::max<int64_t>(1, kRowBlockElements / d.inner);
  plan.rows_per_task = std::max<int64_t>(1, kRowTaskElements / (plan.block * d.inner)) * plan.block;
  HLOVM_ASSIGN_OR_RETURN(plan.block_rows,
                         MakeReduceGeometry({plan.block, d.inner}, std::vector<int64_t>{1}));

  std::vector<Reg> outs;
  RegionInputs region_inputs(*values);
  const std::vector<Reg>& in_regs = region_inputs.regs();
  auto input = [&](const HloInstruction* op) { return region_inputs.SlotOf(op); };
  int64_t in_bytes = 0, out_bytes = 0;
  // Scratch values by number; their places are assigned at the end.
  std::vector<int64_t> temp_bytes;
  auto temp = [&](Span span, int size) {
    RowVal v;
    v.kind = RowVal::kTemp;
    v.size = static_cast<uint8_t>(size);
    v.index = static_cast<uint32_t>(temp_bytes.size());
    const int64_t bytes = (span == Span::kFull ? plan.block * d.inner : plan.block) * size;
    temp_bytes.push_back((bytes + 63) / 64 * 64);
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
  // The fills of vectors broadcast down the columns: value -> the vector.
  absl::flat_hash_map<uint64_t, RowVal> columns;
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
    return absl::StrCat("t", v.index);
  };
  int num_ops = 0;
  std::vector<std::optional<F32Code>> codes;  // per body step
  for (const HloInstruction* m : region.members) {
    const Form form = FormOf(*m, d, member);
    const Span span = d.SpanOf(m->shape());
    std::optional<F32Code> code;
    RowStep s;
    s.full = span == Span::kFull;
    std::string what;
    switch (form) {
      case Form::kNone:
        return absl::InternalError(absl::StrCat("row-wise region member %", m->name(),
                                                " lost its form"));
      case Form::kAlias: {
        HLOVM_ASSIGN_OR_RETURN(val[m], read(m->operand(0)));
        if (is_output.contains(m)) {
          // Its operand is an output too, or an input.
          auto it = values->find(m->operand(0));
          if (it == values->end()) {
            return absl::InternalError(absl::StrCat("row-wise region output %", m->name(),
                                                    " aliases a value with no register"));
          }
          (*values)[m] = it->second;
        }
        continue;
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
        bool f32 = m->shape().element_type() == ElementType::kF32 && s.full &&
                   (k.kind == ElementwiseKernel::kUnary || k.kind == ElementwiseKernel::kBinary);
        for (const HloInstruction* op : m->operands()) {
          f32 &= op->shape().element_type() == ElementType::kF32;
        }
        if (f32 && m->opcode() != HloOpcode::kCompare) {
          const std::optional<ProgramCode> pc = F32CodeOf(*m, k);
          if (pc.has_value() && !pc->round_bf16 && pc->code != F32Code::kNop &&
              pc->code != F32Code::kRoundBF16) {
            code = pc->code;
          }
        }
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
        // An f32 sum of rows of whole program blocks joins a register
        // program (sum-row, the same order as the reduce's).
        if (r->fold == SelectRunFoldKernel(HloOpcode::kAdd, ElementType::kF32) &&
            d.inner % kF32ProgramRepeatQuantum == 0) {
          code = F32Code::kSumRow;
        }
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
          if (form == Form::kSplatColumn) {
            // Read whole: an input of `inner` elements is a row value too
            // where rows == inner, and a row value's stream starts at the
            // block's first row.
            RowVal vector = s.src[0];
            vector.kind = RowVal::kWholeIn;
            columns[KeyOf(s.dst)] = vector;
          }
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
    codes.push_back(code);
  }
  // Outputs the compiler asks for that are aliases of inputs or other
  // values: the register of what they alias.
  for (const HloInstruction* o : region.outputs) {
    if (values->contains(o)) continue;
    return absl::InternalError(absl::StrCat("row-wise region output %", o->name(),
                                            " has no register"));
  }
  RecomputeCheapValues(d.inner, &body, &codes, [&] { return temp(Span::kFull, 4); });
  MakePrograms(codes, d.inner, columns, &body, &plan, &detail, text);
  // Fills that only programs read, which now read their vectors.
  {
    absl::flat_hash_set<uint64_t> read;
    std::vector<RowVal*> reads, writes;
    for (RowStep& st : body) {
      StepValues(st, &plan, &reads, &writes);
      for (const RowVal* v : reads) read.insert(KeyOf(*v));
    }
    std::erase_if(invariant, [&](const RowStep& st) {
      if (read.contains(KeyOf(st.dst))) return false;
      const std::string fill = absl::StrCat(text(st.dst), " = broadcast down columns ",
                                            text(st.src[0]), " (");
      detail = absl::StrReplaceAll(detail, {{absl::StrCat(fill, "once per task)"),
                                            absl::StrCat(fill, "read in place)")}});
      return true;
    });
  }
  plan.num_invariant = static_cast<int>(invariant.size());
  plan.steps = std::move(invariant);
  plan.steps.insert(plan.steps.end(), body.begin(), body.end());
  AssignScratch(temp_bytes, &plan);

  FunctionBuilder::EmitSpec spec;
  // The one output may take the buffer of an input of its size read only
  // row by row where the last step writes it: every step before has read
  // the block's rows of it, and the last step reads and writes element by
  // element (a while loop's state then stays in place).
  std::vector<RowVal*> reads, writes;
  if (!plan.steps.empty()) StepValues(plan.steps.back(), &plan, &reads, &writes);
  const bool last_writes_out = plan.steps.size() > static_cast<size_t>(plan.num_invariant) &&
                               writes.size() == 1 && writes[0]->kind == RowVal::kFullOut &&
                               (plan.steps.back().kind <= RowStep::kTernary ||
                                plan.steps.back().kind == RowStep::kProgram);
  if (outs.size() == 1 && last_writes_out) {
    const int out_size = writes[0]->size;
    std::vector<bool> ok(in_regs.size(), true);
    for (RowStep& st : plan.steps) {
      StepValues(st, &plan, &reads, &writes);
      for (const RowVal* v : reads) {
        if (v->kind == RowVal::kFullIn || v->kind == RowVal::kRowIn ||
            v->kind == RowVal::kWholeIn) {
          ok[v->index] = ok[v->index] && v->kind == RowVal::kFullIn && v->size == out_size;
        }
      }
      if (st.kind == RowStep::kReduce) ok[st.init_input] = false;
    }
    for (size_t k = 0; k < in_regs.size() && k < 32; ++k) {
      if (ok[k]) spec.inplace_mask |= 1u << k;
    }
  }
  spec.handler = &RowRegionHandler;
  spec.kind = HandlerKind::kFusion;
  spec.in = in_regs;
  spec.out = outs;
  spec.variant = absl::StrCat(num_ops, " ops, row-wise over ", d.rows, " rows of ", d.inner,
                              ", blocks of ", plan.block, " rows");
  if (!plan.programs.empty()) absl::StrAppend(&spec.variant, ", ", plan.programs.size(), " programs");
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
