// Loop fusion, register programs: runs of f32 (and bf16) micro-ops of a
// region become one program of ops/elementwise/f32_program.h that keeps its
// values in vector registers from op to op (see vm/fusion.h).
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_hwy.h"
#include "ops/elementwise/elementwise_internal.h"
#include "ops/elementwise/f32_program.h"
#include "vm/fusion_internal.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace fusion_internal {

std::string SrcText(const Src& s) {
  switch (s.kind) {
    case Src::kTile: return absl::StrCat("t", s.index);
    case Src::kInput: return absl::StrCat("in", s.index);
    case Src::kScalar: return absl::StrCat("s", s.index);
    case Src::kOutput: return absl::StrCat("out", s.index);
    case Src::kRows: return "rows";
  }
  return "?";
}

std::optional<ProgramCode> F32CodeOf(const HloInstruction& instr, const ElementwiseKernel& k) {
  namespace ei = elementwise_internal;
  using ET = ElementType;
  auto real_type = [](ElementType t) { return t == ET::kF32 || t == ET::kBF16; };
  if (k.kind == ElementwiseKernel::kUnary) {
    if (k.unary == &ei::HwyBF16ToF32) return ProgramCode{F32Code::kNop};
    if (k.unary == &ei::HwyF32ToBF16) return ProgramCode{F32Code::kRoundBF16};
    static const std::tuple<UnaryKernel, UnaryKernel, F32Code> kUnary[] = {
        {&ei::HwyAbsF32, &ei::WidenUnary<ET::kBF16, &ei::HwyAbsF32>, F32Code::kAbs},
        {&ei::HwyNegF32, &ei::WidenUnary<ET::kBF16, &ei::HwyNegF32>, F32Code::kNeg},
        {&ei::HwySqrtF32, &ei::WidenUnary<ET::kBF16, &ei::HwySqrtF32>, F32Code::kSqrt},
        {&ei::HwyRsqrtF32, &ei::WidenUnary<ET::kBF16, &ei::HwyRsqrtF32>, F32Code::kRsqrt},
        {&ei::HwyFloorF32, &ei::WidenUnary<ET::kBF16, &ei::HwyFloorF32>, F32Code::kFloor},
        {&ei::HwyCeilF32, &ei::WidenUnary<ET::kBF16, &ei::HwyCeilF32>, F32Code::kCeil},
        {&ei::HwyRoundEvenF32, &ei::WidenUnary<ET::kBF16, &ei::HwyRoundEvenF32>,
         F32Code::kRoundEven},
        {&ei::HwyExpF32K, &ei::WidenUnary<ET::kBF16, &ei::HwyExpF32K>, F32Code::kExp},
        {&ei::HwyLogisticF32, &ei::WidenUnary<ET::kBF16, &ei::HwyLogisticF32>,
         F32Code::kLogistic},
        {&ei::HwyTanhF32, &ei::WidenUnary<ET::kBF16, &ei::HwyTanhF32>, F32Code::kTanh}};
    for (const auto& [f32, bf16, code] : kUnary) {
      if (k.unary == f32) return ProgramCode{code};
      if (k.unary == bf16) return ProgramCode{code, true};
    }
    return std::nullopt;
  }
  if (k.kind == ElementwiseKernel::kBinary) {
    if (instr.opcode() == HloOpcode::kCompare) {
      if (!real_type(instr.operand(0)->shape().element_type()) ||
          instr.comparison_type == ComparisonType::kTotalOrder) {
        return std::nullopt;
      }
      switch (instr.comparison_direction) {
        case ComparisonDirection::kEq: return ProgramCode{F32Code::kEq};
        case ComparisonDirection::kNe: return ProgramCode{F32Code::kNe};
        case ComparisonDirection::kGe: return ProgramCode{F32Code::kGe};
        case ComparisonDirection::kGt: return ProgramCode{F32Code::kGt};
        case ComparisonDirection::kLe: return ProgramCode{F32Code::kLe};
        case ComparisonDirection::kLt: return ProgramCode{F32Code::kLt};
      }
      return std::nullopt;
    }
    static const std::tuple<BinaryKernel, BinaryKernel, F32Code> kBinary[] = {
        {&ei::HwyAddF32, &ei::WidenBinary<ET::kBF16, &ei::HwyAddF32>, F32Code::kAdd},
        {&ei::HwySubF32, &ei::WidenBinary<ET::kBF16, &ei::HwySubF32>, F32Code::kSub},
        {&ei::HwyMulF32, &ei::WidenBinary<ET::kBF16, &ei::HwyMulF32>, F32Code::kMul},
        {&ei::HwyDivF32, &ei::WidenBinary<ET::kBF16, &ei::HwyDivF32>, F32Code::kDiv},
        {&ei::HwyMaxF32, &ei::WidenBinary<ET::kBF16, &ei::HwyMaxF32>, F32Code::kMax},
        {&ei::HwyMinF32, &ei::WidenBinary<ET::kBF16, &ei::HwyMinF32>, F32Code::kMin}};
    for (const auto& [f32, bf16, code] : kBinary) {
      if (k.binary == f32) return ProgramCode{code};
      if (k.binary == bf16) return ProgramCode{code, true};
    }
    return std::nullopt;
  }
  if (k.kind == ElementwiseKernel::kTernary && instr.opcode() == HloOpcode::kSelect &&
      k.scalar_mask == 0 && real_type(instr.shape().element_type())) {
    return ProgramCode{F32Code::kSelect};
  }
  return std::nullopt;
}

namespace {

bool IsCompare(F32Code c) { return c >= F32Code::kEq && c <= F32Code::kLt; }

// One key per value a micro-op reads or writes.
int64_t KeyOf(const Src& s) {
  return (static_cast<int64_t>(s.kind) << 32) | s.index;
}

// Translates the micro-ops of `seg` to accumulator code. `needed_outside`:
// values some micro-op outside the segment reads. False when the program
// needs more spill slots or streams than the machine has.
bool TranslateSegment(const std::vector<MicroOp>& ops, const std::vector<std::optional<ProgramCode>>& codes,
                      const std::vector<const HloInstruction*>& origin,
                      const absl::flat_hash_set<int64_t>& needed_outside, Segment* seg) {
  RegisterProgram& rp = seg->program;
  rp = RegisterProgram();
  seg->tile_reads.clear();
  seg->tile_writes.clear();
  absl::flat_hash_set<int64_t> produced;
  absl::flat_hash_map<int64_t, int> remaining;
  for (int i : seg->ops) {
    for (int j = 0; j < ops[i].arity; ++j) ++remaining[KeyOf(ops[i].src[j])];
    produced.insert(KeyOf(ops[i].dst));
  }
  absl::flat_hash_map<int64_t, F32Operand> home;
  absl::flat_hash_map<int64_t, int> stream_of;
  std::vector<int> free_spills;
  for (int j = kF32ProgramMaxSpills - 1; j >= 0; --j) free_spills.push_back(j);
  bool ok = true;
  // Tiles that broadcast a scalar, or scalars each repeated along a run of
  // whole blocks (a row's value): the program reads the scalars instead.
  absl::flat_hash_map<int64_t, const MicroOp*> splat_of;
  for (const MicroOp& op : ops) {
    if (op.kind == MicroKind::kBroadcast && op.src[0].kind == Src::kScalar &&
        op.dst.kind == Src::kTile && (op.dst.size == 4 || op.dst.size == 2) &&
        (op.period == 1 || op.repeat % kF32ProgramRepeatQuantum == 0)) {
      splat_of[KeyOf(op.dst)] = &op;
    }
  }
  auto stream = [&](const Src& value) -> F32Operand {
    Src src = value;
    F32Stream kind{.half = src.size == 2, .far = src.kind == Src::kInput};
    if (auto it = splat_of.find(KeyOf(value)); it != splat_of.end()) {
      const MicroOp& b = *it->second;
      src = b.src[0];
      kind = F32Stream{.half = src.size == 2, .splat = true, .far = false,
                       .repeat = b.period == 1 ? 0 : b.repeat, .period = b.period};
    }
    auto [it, added] = stream_of.try_emplace(KeyOf(value), static_cast<int>(rp.streams.size()));
    if (added) {
      if (rp.streams.size() < static_cast<size_t>(kF32ProgramMaxStreams)) {
        rp.kinds[rp.streams.size()] = kind;
      }
      rp.streams.push_back(src);
      if (rp.streams.size() > static_cast<size_t>(kF32ProgramMaxStreams)) ok = false;
      if (src.kind == Src::kTile && !produced.contains(KeyOf(src))) seg->tile_reads.push_back(src.index);
    }
    return F32Operand{F32Operand::kStream, static_cast<uint8_t>(it->second)};
  };
  int64_t acc = -1;
  auto operand = [&](const Src& src) -> F32Operand {
    const int64_t key = KeyOf(src);
    if (key == acc) return F32Operand{F32Operand::kAcc, 0};
    if (!produced.contains(key)) return stream(src);
    auto it = home.find(key);
    if (it == home.end()) {
      ok = false;  // a value produced here but neither in a register nor stored
      return F32Operand{};
    }
    return it->second;
  };
  auto emit = [&](F32ProgramOp op, const HloInstruction* hlo) {
    rp.code.push_back(op);
    rp.origin.push_back(hlo);
  };
  for (int i : seg->ops) {
    const MicroOp& mop = ops[i];
    const F32Code code = codes[i]->code;
    const HloInstruction* hlo = origin[i];
    int p = 0;  // the operand the accumulator holds
    if (mop.arity == 2 && KeyOf(mop.src[0]) != acc && KeyOf(mop.src[1]) == acc) p = 1;
    if (acc != -1) {
      int uses_here = 0;
      for (int j = 0; j < mop.arity; ++j) uses_here += KeyOf(mop.src[j]) == acc;
      if (remaining[acc] - uses_here > 0 && !home.contains(acc)) {
        if (free_spills.empty()) return false;
        const int slot = free_spills.back();
        free_spills.pop_back();
        emit(F32ProgramOp{F32Code::kSpill, false, {F32Operand::kSpill, static_cast<uint8_t>(slot)}, {}},
             hlo);
        home[acc] = F32Operand{F32Operand::kSpill, static_cast<uint8_t>(slot)};
      }
    }
    if (KeyOf(mop.src[p]) != acc) {
      const F32Operand a = operand(mop.src[p]);
      emit(F32ProgramOp{F32Code::kLoad, false, a, {}}, hlo);
      acc = KeyOf(mop.src[p]);
    }
    F32ProgramOp op{code, p == 1, {}, {}};
    if (code == F32Code::kSelect) {
      op.a = operand(mop.src[1]);
      op.b = operand(mop.src[2]);
    } else if (mop.arity == 2) {
      op.a = operand(mop.src[1 - p]);
    }
    emit(op, hlo);
    if (codes[i]->round_bf16) emit(F32ProgramOp{F32Code::kRoundBF16, false, {}, {}}, hlo);
    for (int j = 0; j < mop.arity; ++j) {
      const int64_t key = KeyOf(mop.src[j]);
      if (--remaining[key] == 0) {
        auto it = home.find(key);
        if (it != home.end() && it->second.kind == F32Operand::kSpill) {
          free_spills.push_back(it->second.index);
        }
      }
    }
    acc = KeyOf(mop.dst);
    if (mop.dst.kind == Src::kOutput || mop.dst.kind == Src::kRows ||
        needed_outside.contains(acc)) {
      const F32Operand s = stream(mop.dst);
      emit(F32ProgramOp{F32Code::kStore, false, s, {}}, hlo);
      home[acc] = s;
      if (mop.dst.kind == Src::kTile) seg->tile_writes.push_back(mop.dst.index);
    }
    if (!ok) return false;
  }
  return ok && rp.code.size() <= static_cast<size_t>(kF32ProgramMaxOps);
}

// Whether a program of one micro-op beats its kernel: it reads a broadcast
// as scalars instead of a tile, or computes a bf16 op without widening
// whole tiles through memory.
bool WorthAlone(const RegisterProgram& rp) {
  bool half = false;
  for (size_t k = 0; k < rp.streams.size(); ++k) {
    if (rp.kinds[k].splat) return true;
    half |= rp.kinds[k].half;
  }
  for (const F32ProgramOp& op : rp.code) {
    const bool moves = op.code == F32Code::kLoad || op.code == F32Code::kStore ||
                       op.code == F32Code::kSpill || op.code == F32Code::kNop ||
                       op.code == F32Code::kRoundBF16;
    if (half && !moves) return true;
  }
  return false;
}

}  // namespace

std::vector<Segment> FindSegments(const std::vector<MicroOp>& ops,
                                  const std::vector<std::optional<ProgramCode>>& codes,
                                  const std::vector<const HloInstruction*>& origin,
                                  const std::vector<size_t>& sequence, int num_invariant) {
  const size_t num_ops = ops.size();
  std::vector<bool> eligible(num_ops, false);
  absl::flat_hash_map<int64_t, std::vector<int>> readers;
  absl::flat_hash_map<int64_t, int> producer;  // each value has one
  for (size_t i = 0; i < num_ops; ++i) {
    for (int j = 0; j < ops[i].arity; ++j) readers[KeyOf(ops[i].src[j])].push_back(static_cast<int>(i));
    producer[KeyOf(ops[i].dst)] = static_cast<int>(i);
  }
  // The segment of the micro-op producing `key`, or -1.
  auto producer_segment = [&](const std::vector<int>& segment_of, int64_t key) {
    auto it = producer.find(key);
    return it == producer.end() ? -1 : segment_of[it->second];
  };
  for (size_t s = num_invariant; s < sequence.size(); ++s) {
    const size_t i = sequence[s];
    const MicroOp& op = ops[i];
    if (!codes[i].has_value()) continue;
    bool ok = true;
    for (int j = 0; j < op.arity; ++j) {
      const bool mask = codes[i]->code == F32Code::kSelect && j == 0;
      if (op.src[j].kind == Src::kScalar) ok = false;
      // f32, or bf16 (the code was chosen for a bf16 kernel or type).
      if (!mask && op.src[j].size != 4 && op.src[j].size != 2) ok = false;
      if (mask && op.src[j].kind != Src::kTile) ok = false;
    }
    if (IsCompare(codes[i]->code)) {
      // Its mask lives in registers only: every reader a select's predicate.
      if (op.dst.kind != Src::kTile) ok = false;
      for (int r : readers[KeyOf(op.dst)]) {
        if (!codes[r].has_value() || codes[r]->code != F32Code::kSelect ||
            KeyOf(ops[r].src[0]) != KeyOf(op.dst) || KeyOf(ops[r].src[1]) == KeyOf(op.dst) ||
            KeyOf(ops[r].src[2]) == KeyOf(op.dst)) {
          ok = false;
        }
      }
    }
    eligible[i] = ok;
  }
  std::vector<bool> break_before(num_ops, false);  // a segment starts here
  std::vector<Segment> segments;
  for (int round = 0; round < 64; ++round) {
    segments.clear();
    std::vector<int> segment_of(num_ops, -1);
    for (size_t s = num_invariant; s < sequence.size(); ++s) {
      const int i = static_cast<int>(sequence[s]);
      if (!eligible[i]) continue;
      const bool continues = s > static_cast<size_t>(num_invariant) &&
                             eligible[sequence[s - 1]] && !break_before[i];
      if (!continues) segments.emplace_back();
      segments.back().ops.push_back(i);
      segment_of[i] = static_cast<int>(segments.size() - 1);
    }
    bool changed = false;
    // A select whose mask comes from elsewhere, or a compare read across
    // segments, leaves the programs.
    for (size_t i = 0; i < num_ops; ++i) {
      if (!eligible[i] || !codes[i].has_value()) continue;
      if (codes[i]->code == F32Code::kSelect) {
        if (producer_segment(segment_of, KeyOf(ops[i].src[0])) != segment_of[i]) {
          eligible[i] = false;
          changed = true;
        }
      } else if (IsCompare(codes[i]->code)) {
        for (int r : readers[KeyOf(ops[i].dst)]) {
          if (!eligible[r] || segment_of[r] != segment_of[i]) {
            eligible[i] = false;
            changed = true;
          }
        }
      }
    }
    if (changed) continue;
    // Values read outside their segment are stored.
    absl::flat_hash_set<int64_t> needed_outside;
    for (size_t i = 0; i < num_ops; ++i) {
      for (int j = 0; j < ops[i].arity; ++j) {
        const int64_t key = KeyOf(ops[i].src[j]);
        if (producer.contains(key) && producer_segment(segment_of, key) != segment_of[i]) {
          needed_outside.insert(key);
        }
      }
    }
    for (Segment& seg : segments) {
      if (TranslateSegment(ops, codes, origin, needed_outside, &seg) &&
          (seg.ops.size() >= 2 || WorthAlone(seg.program))) {
        continue;
      }
      // Too many live values for the spill slots: split the run in two.
      if (seg.ops.size() >= 4) {
        break_before[seg.ops[seg.ops.size() / 2]] = true;
      } else {
        for (int i : seg.ops) eligible[i] = false;
      }
      changed = true;
    }
    if (!changed) return segments;
  }
  return {};
}

namespace {

std::string OperandText(const F32Operand& o, const std::vector<Src>& streams) {
  switch (o.kind) {
    case F32Operand::kStream: return SrcText(streams[o.index]);
    case F32Operand::kSpill: return absl::StrCat("spill", static_cast<int>(o.index));
    case F32Operand::kAcc: return "acc";
    case F32Operand::kNone: break;
  }
  return "?";
}

}  // namespace

std::string ProgramOpText(const F32ProgramOp& op, const std::vector<Src>& streams) {
  static constexpr const char* kNames[] = {
      "load", "store", "spill", "abs", "negate", "sqrt", "rsqrt", "floor", "ceil",
      "round-nearest-even", "exponential", "logistic", "tanh", "add", "subtract", "multiply",
      "divide", "maximum", "minimum", "compare EQ", "compare NE", "compare GE", "compare GT",
      "compare LE", "compare LT", "select", "round-bf16", "nop", "sum-row"};
  const std::string name = kNames[static_cast<int>(op.code)];
  switch (op.code) {
    case F32Code::kLoad: return absl::StrCat("acc = ", OperandText(op.a, streams));
    case F32Code::kStore: return absl::StrCat(SrcText(streams[op.a.index]), " = acc");
    case F32Code::kSpill: return absl::StrCat("spill", static_cast<int>(op.a.index), " = acc");
    case F32Code::kSelect:
      return absl::StrCat("acc = select acc, ", OperandText(op.a, streams), ", ",
                          OperandText(op.b, streams));
    case F32Code::kSumRow:
      return absl::StrCat(SrcText(streams[op.a.index]), "[row] = ", OperandText(op.b, streams),
                          " + sum of the row of acc");
    default:
      break;
  }
  if (op.a.kind == F32Operand::kNone) return absl::StrCat("acc = ", name, " acc");
  return op.reversed ? absl::StrCat("acc = ", name, " ", OperandText(op.a, streams), ", acc")
                     : absl::StrCat("acc = ", name, " acc, ", OperandText(op.a, streams));
}

}  // namespace fusion_internal
}  // namespace vm
}  // namespace hlovm
