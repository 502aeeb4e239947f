// Loop fusion, compiling a region: LowerFusedRegion turns a region into its
// micro-program (micro-ops, invariant ones first, register programs, tile
// registers, tile and chunk sizes, the fused reduce's blocking), writes the
// listing the disassembler prints, and emits one `fusion` instruction (a
// `convolution` instruction for a region with its convolution, whose
// region becomes epilogue steps where it is a chain of simple ops).
#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/dot/conv.h"
#include "ops/lowerings.h"
#include "ops/shape/iota.h"
#include "vm/fusion.h"
#include "vm/fusion_internal.h"
#include "vm/lowering.h"
#include "vm/profiler.h"

namespace hlovm {
namespace vm {

absl::StatusOr<uint32_t> fusion_internal::RegionInputs::SlotOf(const HloInstruction* op) {
  auto it = values_.find(op);
  if (it == values_.end() || it->second.size() != 1) {
    return absl::InternalError(
        absl::StrCat("fused region reads %", op->name(), ", which has no array register"));
  }
  const Reg r = it->second[0];
  auto [slot, added] = slot_of_.try_emplace(r, static_cast<uint32_t>(regs_.size()));
  if (added) regs_.push_back(r);
  return slot->second;
}

namespace {

using fusion_internal::BroadcastPattern;
using fusion_internal::ConvEpilogue;
using fusion_internal::ConvEpilogueHandler;
using fusion_internal::RegionInputs;
using fusion_internal::F32CodeOf;
using fusion_internal::FindSegments;
using fusion_internal::FusedColumnReduceHandler;
using fusion_internal::FusedHandler;
using fusion_internal::FusedPlan;
using fusion_internal::FusedReduceHandler;
using fusion_internal::FusedWindowHandler;
using fusion_internal::FusibleReduce;
using fusion_internal::kBandLines;
using fusion_internal::kCacheLine;
using fusion_internal::kMaxTransposeRank;
using fusion_internal::MicroKind;
using fusion_internal::MicroOp;
using fusion_internal::MovesInnermost;
using fusion_internal::ProgramCode;
using fusion_internal::ProgramOpText;
using fusion_internal::Segment;
using fusion_internal::Src;
using fusion_internal::SrcText;
using fusion_internal::TransposeColumn;
using fusion_internal::TransposeGather;
using fusion_internal::TransposeLines;

// Bytes of tile registers the live tiles of a region may take: small enough
// for L1 next to the tiles of the arrays the region streams.
constexpr int64_t kTileBudgetBytes = 24 * 1024;
constexpr int64_t kMinTile = 256, kMaxTile = 4096;

// The lowering of a convolution alone.
absl::Status LowerConvolutionAlone(FunctionBuilder& b, const HloInstruction& conv,
                                   absl::Span<const ValueDesc* const> operands,
                                   ValueDesc* result) {
  static const LowerFn lower = [] {
    auto table = std::make_unique<LoweringTable>();
    table->fill(nullptr);
    RegisterConvLowerings(*table);
    return (*table)[static_cast<int>(HloOpcode::kConvolution)];
  }();
  return lower(b, conv, operands, result);
}

// The plan of the region's convolution (FusedRegion::conv) when its units
// can run the region over their outputs (ConvHasUnitRuns); else none.
std::optional<ConvPlan> JoinedConvPlan(const HloInstruction& conv) {
  if (conv.operand_count() != 2 || ConvRunsAsDot(conv)) return std::nullopt;
  if (!conv.attrs().window.has_value() && conv.operand(0)->shape().rank() > 2) return std::nullopt;
  absl::StatusOr<ConvPlan> plan = MakeConvPlan(
      conv.operand(0)->shape(), conv.operand(1)->shape(), conv.shape(),
      conv.attrs().window.value_or(Window{}),
      conv.attrs().convolution_dimension_numbers.value_or(ConvolutionDimensionNumbers{}),
      conv.attrs().feature_group_count, conv.attrs().batch_group_count);
  if (!plan.ok() || !ConvHasUnitRuns(*plan)) return std::nullopt;
  return std::move(*plan);
}

// The region of `conv` as epilogue steps (ConvEpilogue::steps): its
// elementwise members form one chain from the convolution to the root of
// f32 add, subtract, multiply, maximum and minimum (the kernels the steps
// compute as), each reading the chain's value once and one other operand:
// a broadcast of a per-feature vector along the features, a broadcast
// scalar, or an array from outside. `input` gives the region input of a
// value from outside. Else none.
std::optional<std::vector<ConvEpilogue::Step>> EpilogueSteps(
    const FusedRegion& region, const ConvPlan& plan,
    const absl::FunctionRef<absl::StatusOr<uint32_t>(const HloInstruction*)>& input) {
  absl::flat_hash_set<const HloInstruction*> members(region.members.begin(),
                                                     region.members.end());
  std::vector<ConvEpilogue::Step> steps;
  const HloInstruction* chain = region.conv;
  const int64_t n = region.root->shape().element_count();
  for (const HloInstruction* m : region.members) {
    if (m->opcode() == HloOpcode::kBroadcast) continue;  // checked where read
    if (m->operand_count() != 2 || m->shape().element_type() != ElementType::kF32 ||
        steps.size() >= static_cast<size_t>(kMaxConvEpilogueSteps)) {
      return std::nullopt;
    }
    absl::StatusOr<ElementwiseKernel> k = SelectElementwiseKernel(*m);
    if (!k.ok()) return std::nullopt;
    const std::optional<ProgramCode> code = F32CodeOf(*m, *k);
    if (!code.has_value() || code->round_bf16) return std::nullopt;
    ConvEpilogue::Step step;
    switch (code->code) {
      case F32Code::kAdd: step.op = ConvEpilogueStep::kAdd; break;
      case F32Code::kSub: step.op = ConvEpilogueStep::kSub; break;
      case F32Code::kMul: step.op = ConvEpilogueStep::kMul; break;
      case F32Code::kMax: step.op = ConvEpilogueStep::kMax; break;
      case F32Code::kMin: step.op = ConvEpilogueStep::kMin; break;
      default: return std::nullopt;
    }
    if ((m->operand(0) == chain) == (m->operand(1) == chain)) return std::nullopt;
    step.reversed = m->operand(1) == chain;
    const HloInstruction* other = m->operand(step.reversed ? 0 : 1);
    if (other->shape().element_type() != ElementType::kF32) return std::nullopt;
    if (members.contains(other)) {
      int64_t repeat, period;
      if (other->opcode() != HloOpcode::kBroadcast || members.contains(other->operand(0)) ||
          other->operand(0)->shape().element_type() != ElementType::kF32 ||
          !BroadcastPattern(*other, &repeat, &period)) {
        return std::nullopt;
      }
      if (period == 1) {
        step.kind = ConvEpilogueStep::kScalar;
      } else if (repeat == 1 && period == plan.channels()) {
        step.kind = ConvEpilogueStep::kChannels;
      } else {
        return std::nullopt;
      }
      other = other->operand(0);
    } else {
      if (other->shape().element_count() != n) return std::nullopt;
      step.kind = ConvEpilogueStep::kArray;
    }
    absl::StatusOr<uint32_t> in = input(other);
    if (!in.ok()) return std::nullopt;
    step.input = *in;
    steps.push_back(step);
    chain = m;
  }
  if (chain != region.root || steps.empty()) return std::nullopt;
  return steps;
}

std::string StepText(const ConvEpilogue::Step& step) {
  static const char* const kOps[] = {"add", "subtract", "multiply", "maximum", "minimum"};
  const std::string operand = absl::StrCat(
      step.kind == ConvEpilogueStep::kScalar ? "s" : "in", step.input,
      step.kind == ConvEpilogueStep::kChannels ? " (per feature)" : "");
  return absl::StrCat(kOps[step.op], " ", step.reversed ? operand + ", acc" : "acc, " + operand);
}

}  // namespace

absl::Status LowerFusedRegion(FunctionBuilder& b, const FusedRegion& region,
                              absl::flat_hash_map<const HloInstruction*, ValueDesc>* values) {
  if (region.rows) return fusion_internal::LowerRowRegion(b, region, values);
  const int64_t n = region.root->shape().element_count();
  absl::flat_hash_set<const HloInstruction*> members(region.members.begin(),
                                                     region.members.end());
  absl::flat_hash_map<const HloInstruction*, int> output_of;
  for (size_t k = 0; k < region.outputs.size(); ++k) {
    output_of[region.outputs[k]] = static_cast<int>(k);
  }
  // The region's convolution: computed by the region's instruction, its
  // result the region's input that the root is written over; or, where
  // its plan does not allow that, emitted alone first.
  std::optional<ConvPlan> conv_plan;
  Reg conv_out = 0;
  if (region.conv != nullptr) {
    const HloInstruction& conv = *region.conv;
    conv_plan = JoinedConvPlan(conv);
    if (conv_plan.has_value()) {
      HLOVM_ASSIGN_OR_RETURN(conv_out, b.NewReg(RegKind::kOwned, region.root->shape()));
      (*values)[&conv] = ValueDesc{conv_out};
    } else {
      std::vector<const ValueDesc*> operands;
      for (const HloInstruction* o : conv.operands()) operands.push_back(&values->at(o));
      ValueDesc desc;
      HLOVM_RETURN_IF_ERROR(LowerConvolutionAlone(b, conv, operands, &desc));
      (*values)[&conv] = std::move(desc);
    }
  }
  RegionInputs region_inputs(*values);
  const std::vector<Reg>& in_regs = region_inputs.regs();
  auto input = [&](const HloInstruction* op) { return region_inputs.SlotOf(op); };

  FusedPlan plan;
  plan.n = n;
  std::vector<const HloInstruction*> origin;  // per micro-op, for the listing
  std::vector<std::string> names;             // per micro-op
  std::vector<std::optional<ProgramCode>> f32_code;  // per micro-op
  absl::flat_hash_map<const HloInstruction*, Src> src_of;
  uint32_t tile_values = 0;
  for (const HloInstruction* m : region.members) {
    const uint8_t width = static_cast<uint8_t>(ByteWidth(m->shape().element_type()));
    auto dst_for = [&]() {
      Src d;
      d.size = width;
      if (auto it = output_of.find(m); it != output_of.end()) {
        d.kind = Src::kOutput;
        d.index = static_cast<uint32_t>(it->second);
      } else if (m == region.root) {
        d.kind = Src::kRows;
      } else {
        d.kind = Src::kTile;
        d.index = tile_values++;
      }
      return d;
    };
    // Appends micro-op `op` computing member m.
    auto add = [&](MicroOp op, std::optional<ProgramCode> code, std::string name) {
      op.dst = dst_for();
      src_of[m] = op.dst;
      plan.ops.push_back(op);
      origin.push_back(m);
      f32_code.push_back(code);
      names.push_back(std::move(name));
    };
    auto operand_src = [&](int j, bool scalar) -> absl::StatusOr<Src> {
      const HloInstruction* op = m->operand(j);
      if (members.contains(op)) return src_of.at(op);
      Src s;
      s.kind = scalar ? Src::kScalar : Src::kInput;
      s.size = static_cast<uint8_t>(ByteWidth(op->shape().element_type()));
      HLOVM_ASSIGN_OR_RETURN(s.index, input(op));
      return s;
    };
    if (m->opcode() == HloOpcode::kIota) {
      MicroOp op;
      op.kind = MicroKind::kIota;
      HLOVM_ASSIGN_OR_RETURN(op.iota, SelectIotaKernel(m->shape().element_type()));
      op.period = m->shape().dimensions(m->iota_dimension);
      op.repeat = 1;
      for (int64_t g = m->iota_dimension + 1; g < m->shape().rank(); ++g) {
        op.repeat *= m->shape().dimensions(g);
      }
      op.repeat = std::max<int64_t>(op.repeat, 1);
      add(op, std::nullopt, absl::StrCat("iota (repeat ", op.repeat, ", period ", op.period, ")"));
      continue;
    }
    if (m->opcode() == HloOpcode::kTranspose) {
      const Shape& s = m->shape();
      const Shape& in = m->operand(0)->shape();
      TransposeGather t;
      t.rank = static_cast<int>(s.rank());
      int64_t in_strides[kMaxTransposeRank];
      int64_t stride = 1;
      for (int d = t.rank - 1; d >= 0; --d) {
        in_strides[d] = stride;
        stride *= in.dimensions(d);
      }
      for (int d = 0; d < t.rank; ++d) {
        t.dims[d] = s.dimensions(d);
        t.strides[d] = in_strides[m->dimensions[d]];
      }
      MicroOp op;
      op.kind = MicroKind::kTranspose;
      op.arity = 1;
      HLOVM_ASSIGN_OR_RETURN(op.src[0], operand_src(0, false));
      op.src[0].kind = Src::kScalar;  // the whole operand, not its tile
      op.transpose = static_cast<int>(plan.transposes.size());
      if (!plan.bands.has_value() && region.reduce == nullptr && MovesInnermost(*m)) {
        t.banded = true;
        const int column = TransposeColumn(*m);
        FusedPlan::Bands g;
        g.outer = 1;
        for (int d = 0; d < column; ++d) g.outer *= s.dimensions(d);
        g.columns = s.dimensions(column);
        g.lines = TransposeLines(*m);
        g.size = ByteWidth(s.element_type());
        g.width = std::max<int>(1, kCacheLine / g.size);
        plan.bands = g;
      }
      plan.transposes.push_back(t);
      add(op, std::nullopt, absl::StrCat("transpose dimensions={", absl::StrJoin(m->dimensions, ","), "}"));
      continue;
    }
    if (m->opcode() == HloOpcode::kReshape || m->opcode() == HloOpcode::kBroadcast) {
      if (m->operand(0)->shape().element_count() == n) {  // an alias
        HLOVM_ASSIGN_OR_RETURN(src_of[m], operand_src(0, false));
        continue;
      }
      MicroOp op;
      op.kind = MicroKind::kBroadcast;
      op.arity = 1;
      if (!BroadcastPattern(*m, &op.repeat, &op.period)) {
        return absl::InternalError("fused broadcast lost its pattern");
      }
      HLOVM_ASSIGN_OR_RETURN(op.src[0], operand_src(0, true));
      add(op, std::nullopt,
          op.period == 1 ? "broadcast (splat)"
                         : absl::StrCat("broadcast (repeat ", op.repeat, ", period ", op.period, ")"));
      continue;
    }
    HLOVM_ASSIGN_OR_RETURN(ElementwiseKernel k, SelectElementwiseKernel(*m));
    MicroOp op;
    op.arity = k.arity;
    op.scalar_mask = k.scalar_mask;
    switch (k.kind) {
      case ElementwiseKernel::kUnary: op.kind = MicroKind::kUnary; op.unary = k.unary; break;
      case ElementwiseKernel::kBinary: op.kind = MicroKind::kBinary; op.binary = k.binary; break;
      case ElementwiseKernel::kTernary: op.kind = MicroKind::kTernary; op.ternary = k.ternary; break;
      case ElementwiseKernel::kReducePrecision:
        op.kind = MicroKind::kReducePrecision;
        op.reduce_precision = k.reduce_precision;
        break;
    }
    for (int j = 0; j < k.arity; ++j) {
      HLOVM_ASSIGN_OR_RETURN(op.src[j], operand_src(j, (k.scalar_mask >> j & 1) != 0));
    }
    add(op, F32CodeOf(*m, k), absl::StrCat(std::string(HloOpcodeName(m->opcode())), " ", k.variant));
  }

  // Invariant micro-ops (same tile whatever the offset) move to the front.
  const size_t num_ops = plan.ops.size();
  std::vector<bool> invariant_value(tile_values, false);
  std::vector<bool> invariant(num_ops, false);
  for (size_t i = 0; i < num_ops; ++i) {
    const MicroOp& op = plan.ops[i];
    if (op.dst.kind != Src::kTile) continue;
    // An iota changes with the offset; a broadcast only when it has a period.
    bool inv = op.kind == MicroKind::kBroadcast
                   ? op.period == 1
                   : op.kind != MicroKind::kIota && op.kind != MicroKind::kTranspose;
    if (op.kind != MicroKind::kBroadcast) {
      for (int j = 0; j < op.arity; ++j) {
        const Src& s = op.src[j];
        inv &= s.kind == Src::kScalar || (s.kind == Src::kTile && invariant_value[s.index]);
      }
    }
    invariant[i] = inv;
    if (inv) invariant_value[op.dst.index] = true;
  }
  std::vector<size_t> sequence;
  for (size_t i = 0; i < num_ops; ++i) {
    if (invariant[i]) sequence.push_back(i);
  }
  plan.num_invariant = static_cast<int>(sequence.size());
  for (size_t i = 0; i < num_ops; ++i) {
    if (!invariant[i]) sequence.push_back(i);
  }

  // Runs of f32 micro-ops become register programs (f32_program.h).
  std::vector<Segment> segments =
      FindSegments(plan.ops, f32_code, origin, sequence, plan.num_invariant);

  // The steps of the tile loop: single micro-ops and register programs. Per
  // step, the tile values it reads and writes.
  struct Step {
    int op = -1;       // index into plan.ops, or
    int segment = -1;  // into segments
    std::vector<uint32_t> reads, writes;
    bool in_place_ok = false;  // a single op may overwrite a same-width operand
  };
  absl::flat_hash_map<int, int> segment_starting_at;  // first micro-op -> segment
  for (size_t g = 0; g < segments.size(); ++g) {
    segment_starting_at[segments[g].ops.front()] = static_cast<int>(g);
  }
  std::vector<Step> steps;
  for (size_t s = 0; s < sequence.size();) {
    const auto starts = segment_starting_at.find(static_cast<int>(sequence[s]));
    Step step;
    if (starts != segment_starting_at.end()) {
      const int seg = starts->second;
      step.segment = seg;
      step.reads = segments[seg].tile_reads;
      step.writes = segments[seg].tile_writes;
      s += segments[seg].ops.size();
    } else {
      const MicroOp& op = plan.ops[sequence[s]];
      step.op = static_cast<int>(sequence[s]);
      for (int j = 0; j < op.arity; ++j) {
        if (op.src[j].kind == Src::kTile) step.reads.push_back(op.src[j].index);
      }
      if (op.dst.kind == Src::kTile) step.writes.push_back(op.dst.index);
      step.in_place_ok = true;
      ++s;
    }
    steps.push_back(std::move(step));
  }

  // A micro-op whose tile nothing reads any more goes (a splat the register
  // programs read as scalars), and so may, in turn, its operands': one pass
  // from the last step back.
  {
    absl::flat_hash_set<uint32_t> needed;
    std::vector<Step> kept;
    for (size_t s = steps.size(); s-- > 0;) {
      Step& step = steps[s];
      if (step.op >= 0 && plan.ops[step.op].dst.kind == Src::kTile &&
          !needed.contains(step.writes[0])) {
        if (static_cast<int>(s) < plan.num_invariant) --plan.num_invariant;
        continue;
      }
      needed.insert(step.reads.begin(), step.reads.end());
      kept.push_back(std::move(step));
    }
    steps.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
  }

  // Tile registers: a value's slot is free after its last reader (invariant
  // values stay); a single micro-op may write the slot of a same-width
  // operand it reads last (the kernels allow in place).
  std::vector<int64_t> last_use(tile_values, -1);
  for (size_t s = 0; s < steps.size(); ++s) {
    for (uint32_t v : steps[s].reads) last_use[v] = static_cast<int64_t>(s);
  }
  std::vector<int> slot_of(tile_values, -1);
  std::vector<uint8_t> width_of(tile_values, 1);
  for (const MicroOp& op : plan.ops) {
    if (op.dst.kind == Src::kTile) width_of[op.dst.index] = op.dst.size;
  }
  // Slots never freed: invariant values' and the banded transpose's.
  int64_t banded_value = -1;
  for (const MicroOp& op : plan.ops) {
    if (op.kind == MicroKind::kTranspose && plan.transposes[op.transpose].banded) {
      banded_value = op.dst.index;
    }
  }
  std::vector<bool> kept = invariant_value;
  if (banded_value >= 0) kept[banded_value] = true;
  std::vector<int> free_slots;
  int max_width = 1;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& step = steps[s];
    auto release = [&](bool same_width_only) {
      for (uint32_t v : step.reads) {
        if (kept[v] || last_use[v] != static_cast<int64_t>(s) || slot_of[v] < 0) continue;
        if (same_width_only &&
            (!step.in_place_ok || step.writes.empty() || width_of[v] != width_of[step.writes[0]])) {
          continue;
        }
        free_slots.push_back(slot_of[v]);
        last_use[v] = -2;  // released
      }
    };
    release(true);
    for (uint32_t v : step.writes) {
      max_width = std::max<int>(max_width, width_of[v]);
      if (free_slots.empty()) {
        slot_of[v] = plan.num_slots++;
      } else {
        slot_of[v] = free_slots.back();
        free_slots.pop_back();
      }
    }
    release(false);
    // A value nobody reads (cannot happen for a needed member) frees at once.
    for (uint32_t v : step.writes) {
      if (last_use[v] == -1 && !kept[v]) free_slots.push_back(slot_of[v]);
    }
  }
  if (plan.bands.has_value()) plan.bands->slot = slot_of[banded_value];
  auto remap = [&](Src& src) {
    if (src.kind == Src::kTile) src.index = static_cast<uint32_t>(slot_of[src.index]);
  };
  for (MicroOp& op : plan.ops) {
    for (int j = 0; j < op.arity; ++j) remap(op.src[j]);
    remap(op.dst);
  }
  for (Segment& seg : segments) {
    for (Src& src : seg.program.streams) remap(src);
  }

  // Tile and chunk sizes.
  int64_t bytes_per_element = 0;  // streamed through memory
  for (Reg r : in_regs) {
    const RegInfo& info = b.function().regs[r];
    if (info.shape.element_count() == n) bytes_per_element += ByteWidth(info.shape.element_type());
  }
  for (const HloInstruction* o : region.outputs) bytes_per_element += ByteWidth(o->shape().element_type());
  const int64_t tile_row = std::max<int64_t>(1, plan.num_slots) * max_width;
  int64_t tile = kTileBudgetBytes / tile_row / 64 * 64;
  tile = std::clamp(tile, kMinTile, kMaxTile);
  plan.tile = std::max<int64_t>(1, std::min(tile, n));
  plan.slot_bytes = (plan.tile * max_width + 63) / 64 * 64;
  const int64_t stream = std::max<int64_t>(bytes_per_element, 1);
  if (n * stream < kParallelKernelBytes) {
    plan.chunk = std::max<int64_t>(n, 1);
  } else {
    const int64_t tiles = std::max<int64_t>(1, 4 * kChunkBytes / stream / plan.tile);
    plan.chunk = tiles * plan.tile;
  }
  if (plan.bands.has_value()) {
    FusedPlan::Bands& g = *plan.bands;
    g.band = std::min({kBandLines, plan.tile, g.lines});
    g.units_per_task = std::max<int64_t>(1, plan.chunk / (g.columns * g.band));
  }

  // The final micro-op list, with the listing.
  std::vector<MicroOp> ordered;
  std::string detail;
  auto list = [&](const std::string& line, const HloInstruction* hlo) {
    absl::StrAppend(&detail, absl::StrFormat("          %-62s ; %%%s\n", line, hlo->name()));
  };
  int listed = 0;
  for (const Step& step : steps) {
    if (step.op >= 0) {
      const MicroOp& op = plan.ops[step.op];
      ordered.push_back(op);
      std::string args;
      for (int j = 0; j < op.arity; ++j) absl::StrAppend(&args, j ? ", " : "", SrcText(op.src[j]));
      list(absl::StrCat(SrcText(op.dst), " = ", names[step.op], " ", args,
                        listed < plan.num_invariant ? "  (once per chunk)" : ""),
           origin[step.op]);
      ++listed;
      continue;
    }
    Segment& seg = segments[step.segment];
    MicroOp op;
    op.kind = MicroKind::kProgram;
    op.program = static_cast<int>(plan.programs.size());
    ordered.push_back(op);
    std::vector<std::string> streams;
    for (size_t k = 0; k < seg.program.streams.size(); ++k) {
      const F32Stream& kind = seg.program.kinds[k];
      streams.push_back(kind.repeat > 0 ? absl::StrCat(SrcText(seg.program.streams[k]), " (repeat ",
                                                       kind.repeat, ", period ", kind.period, ")")
                                        : SrcText(seg.program.streams[k]));
    }
    absl::StrAppend(&detail, "          f32 register program over ", absl::StrJoin(streams, ", "),
                    ":\n");
    for (size_t pc = 0; pc < seg.program.code.size(); ++pc) {
      absl::StrAppend(&detail,
                      absl::StrFormat("            %-60s ; %%%s\n",
                                      ProgramOpText(seg.program.code[pc], seg.program.streams),
                                      seg.program.origin[pc]->name()));
    }
    plan.programs.push_back(std::move(seg.program));
    listed += static_cast<int>(seg.ops.size());
  }
  plan.ops = std::move(ordered);

  // Outputs.
  FunctionBuilder::EmitSpec spec;
  std::vector<Reg> outs;
  int64_t out_bytes = 0;
  for (const HloInstruction* o : region.outputs) {
    Reg r = conv_out;
    if (!conv_plan.has_value()) {
      HLOVM_ASSIGN_OR_RETURN(r, b.NewReg(RegKind::kOwned, o->shape()));
    }
    outs.push_back(r);
    out_bytes += b.function().regs[r].bytes;
  }
  const bool window = region.reduce != nullptr &&
                      region.reduce->opcode() == HloOpcode::kReduceWindow;
  if (region.reduce != nullptr) {
    HLOVM_ASSIGN_OR_RETURN(plan.init_input, input(region.reduce->operand(1)));
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, region.reduce->shape()));
    plan.reduce_output = static_cast<uint32_t>(outs.size());
    outs.push_back(r);
    out_bytes += b.function().regs[r].bytes;
    plan.root_size = ByteWidth(region.root->shape().element_type());
  }
  if (window) {
    plan.window = SelectWindowRows(*region.reduce);
    if (!plan.window.has_value()) return absl::InternalError("fused reduce-window lost its form");
    const WindowReduce& w = *plan.window;
    plan.unit_rows = w.g.out_dims[w.rows.lead - 1];
    const int64_t band_bytes =
        std::max<int64_t>(1, plan.unit_rows * w.rows.row * w.elem_size * std::max<int64_t>(1, w.g.window_count));
    plan.units_per_task = std::max<int64_t>(1, kChunkBytes / band_bytes);
    absl::StrAppend(&detail, "          rows -> reduce-window ", std::string(HloOpcodeName(w.opcode)),
                    " over rows of ", w.rows.row, ", bands of ", plan.unit_rows,
                    " output rows -> out", plan.reduce_output, "\n");
  } else if (region.reduce != nullptr) {
    plan.reduce = FusibleReduce(*region.reduce);
    if (!plan.reduce.has_value()) return absl::InternalError("fused reduce lost its form");
    if (auto it = output_of.find(region.root); it != output_of.end()) plan.rows_output = it->second;
  }
  // A reduce keeping the innermost dimension folds columns.
  const bool columns = plan.reduce.has_value() && !plan.reduce->g.runs;
  if (columns) {
    const ReduceGeometry& g = plan.reduce->g;
    // Blocks of columns whose four segments stay in L1 next to the tiles,
    // and enough of them (8 where the rows are long enough) that the
    // threads share an output row: a column's fold order is fixed, so only
    // columns can be split.
    const int64_t eighth = (g.inner / 8 + 63) / 64 * 64;
    plan.col_block = std::min<int64_t>(g.inner, std::clamp<int64_t>(eighth, 512, 1024));
    plan.col_blocks = (g.inner + plan.col_block - 1) / plan.col_block;
    const int64_t unit_bytes =
        std::max<int64_t>(1, plan.col_block * stream * std::max<int64_t>(1, g.red_count));
    plan.units_per_task = std::max<int64_t>(1, kChunkBytes / unit_bytes);
    absl::StrAppend(&detail, "          ",
                    plan.rows_output >= 0 ? absl::StrCat("out", plan.rows_output) : "rows",
                    " -> reduce ", std::string(HloOpcodeName(plan.reduce->opcode)), " over ",
                    g.red_count, " rows of ", g.inner, " columns, blocks of ", plan.col_block,
                    " -> out", plan.reduce_output, "\n");
  } else if (region.reduce != nullptr && !window) {
    const int64_t rows = plan.reduce->g.out_count;
    const int64_t row_bytes = std::max<int64_t>(1, plan.reduce->g.inner * stream);
    plan.rows_per_chunk = rows * row_bytes < kParallelKernelBytes
                              ? std::max<int64_t>(rows, 1)
                              : std::max<int64_t>(1, 4 * kChunkBytes / row_bytes);
    plan.chunk_rows = plan.reduce->g;
    if (!plan.chunk_rows.kept_sizes.empty()) plan.chunk_rows.kept_sizes[0] = plan.rows_per_chunk;
    plan.chunk_rows.outer = plan.chunk_rows.out_count = plan.rows_per_chunk;
    absl::StrAppend(&detail, "          ",
                    plan.rows_output >= 0 ? absl::StrCat("out", plan.rows_output) : "rows",
                    " -> reduce ", std::string(HloOpcodeName(plan.reduce->opcode)), " over runs of ",
                    plan.reduce->g.inner, " -> out", plan.reduce_output, "\n");
  }
  int64_t in_bytes = 0;
  for (Reg r : in_regs) in_bytes += b.function().regs[r].bytes;
  // One output may take the buffer of an input it streams through: every
  // tile reads its inputs before the last micro-op writes that output's
  // tile. With several outputs, written at different micro-ops, none may.
  if (outs.size() == 1 && region.reduce == nullptr) {
    const int out_width = ByteWidth(region.root->shape().element_type());
    std::vector<bool> streamed(in_regs.size(), false), other_use(in_regs.size(), false);
    for (const MicroOp& op : plan.ops) {
      std::vector<Src> reads(op.src, op.src + op.arity);
      if (op.kind == MicroKind::kProgram) reads = plan.programs[op.program].streams;
      for (const Src& s : reads) {
        if (s.kind == Src::kInput && s.size == out_width) {
          streamed[s.index] = true;
        } else if (s.kind == Src::kInput || s.kind == Src::kScalar) {
          other_use[s.index] = true;
        }
      }
    }
    for (size_t k = 0; k < in_regs.size() && k < 32; ++k) {
      if (streamed[k] && !other_use[k]) spec.inplace_mask |= 1u << k;
    }
    if (conv_plan.has_value()) {
      // The root is written over the convolution's result, which the
      // region reads as it is: it must be an input streamed in place.
      const uint32_t k = region_inputs.SlotOfRegister(conv_out);
      if (!streamed[k] || other_use[k]) {
        return absl::InternalError("a convolution's region reads its result other than in place");
      }
    }
  }
  if (conv_plan.has_value()) {
    if (region.outputs.size() != 1 || region.reduce != nullptr || plan.bands.has_value()) {
      return absl::InternalError("a convolution joined a region that is not plain");
    }
    const HloInstruction& conv = *region.conv;
    const uint32_t conv_input = region_inputs.SlotOfRegister(conv_out);
    // Every operand of the steps is an input of the region already.
    const size_t inputs = in_regs.size();
    std::optional<std::vector<ConvEpilogue::Step>> steps =
        EpilogueSteps(region, *conv_plan, input);
    if (in_regs.size() != inputs) {
      return absl::InternalError("a convolution's epilogue reads what its region does not");
    }
    FunctionBuilder::EmitSpec cspec;
    cspec.handler = &ConvEpilogueHandler;
    cspec.kind = HandlerKind::kConvolution;
    cspec.in = {values->at(conv.operand(0))[0], values->at(conv.operand(1))[0]};
    for (size_t k = 0; k < in_regs.size(); ++k) {
      if (k != conv_input) cspec.in.push_back(in_regs[k]);
    }
    cspec.out = outs;
    cspec.cost = std::max<int64_t>(conv_plan->flops(), out_bytes);
    cspec.variant = absl::StrCat(
        ConvPlanText(*conv_plan, conv.operand(0)->shape().element_type(),
                     conv.operand(1)->shape().element_type()),
        ", epilogue of ", num_ops, " ops, tile ", plan.tile, " over");
    for (size_t k = 0; k < in_regs.size(); ++k) {
      absl::StrAppend(&cspec.variant, " in", k, "=",
                      k == conv_input ? "conv" : absl::StrCat("r", in_regs[k]));
    }
    cspec.detail = std::move(detail);
    ConvEpilogue epilogue;
    if (steps.has_value()) {
      epilogue.steps = std::move(*steps);
      absl::StrAppend(&cspec.variant, conv_plan->direct ? ", as steps in the register tile"
                                                        : ", as steps as each tile is written");
      std::string text;
      for (const ConvEpilogue::Step& step : epilogue.steps) {
        absl::StrAppend(&text, text.empty() ? "" : "; ", StepText(step));
      }
      cspec.detail = absl::StrCat("          steps: ", text, "\n", cspec.detail);
    }
    epilogue.conv = std::move(*conv_plan);
    epilogue.conv_input = conv_input;
    epilogue.region = b.program().AddPlan(std::move(plan));
    cspec.plan = b.program().AddPlan(std::move(epilogue));
    b.Emit(&conv, std::move(cspec));
    (*values)[region.root] = ValueDesc{outs[0]};
    values->erase(&conv);
    return absl::OkStatus();
  }
  spec.handler = window                     ? &FusedWindowHandler
                 : columns                  ? &FusedColumnReduceHandler
                 : region.reduce != nullptr ? &FusedReduceHandler
                                            : &FusedHandler;
  FusedWork work;
  work.bytes = static_cast<double>(in_bytes + out_bytes);
  work.ops = static_cast<int64_t>(num_ops) + (region.reduce != nullptr ? 1 : 0);
  for (const HloInstruction* m : region.members) {
    const HloOpcode op = m->opcode();
    if (op != HloOpcode::kReshape && op != HloOpcode::kBroadcast && op != HloOpcode::kIota &&
        op != HloOpcode::kTranspose) {
      work.flops += static_cast<double>(n);
    }
  }
  if (window) {
    work.flops += static_cast<double>(plan.window->g.out_count * plan.window->g.window_count);
  } else if (region.reduce != nullptr) {
    work.flops += static_cast<double>(n);
  }
  spec.fused = b.program().AddPlan(work);
  spec.in = in_regs;
  spec.out = outs;
  spec.kind = HandlerKind::kFusion;
  spec.variant = absl::StrCat(num_ops, " ops, tile ", plan.tile);
  if (window) {
    absl::StrAppend(&spec.variant, ", reduce-window");
  } else if (columns) {
    absl::StrAppend(&spec.variant, ", column reduce");
  } else if (plan.reduce.has_value()) {
    absl::StrAppend(&spec.variant, ", reduce");
    if (plan.rows_per_chunk < plan.reduce->g.out_count) {
      absl::StrAppend(&spec.variant, ", chunks of ", plan.rows_per_chunk, " rows");
    }
  } else if (plan.bands.has_value()) {
    const FusedPlan::Bands& g = *plan.bands;
    absl::StrAppend(&spec.variant, ", bands of ", g.band, " of ", g.lines, " lines, ", g.width,
                    " columns a block");
  } else if (plan.chunk < n) {
    absl::StrAppend(&spec.variant, ", chunks of ", plan.chunk);
  }
  spec.detail = std::move(detail);
  spec.cost = in_bytes + out_bytes;
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(region.root, std::move(spec));
  for (size_t k = 0; k < region.outputs.size(); ++k) {
    (*values)[region.outputs[k]] = ValueDesc{outs[k]};
  }
  if (region.reduce != nullptr) (*values)[region.reduce] = ValueDesc{outs.back()};
  return absl::OkStatus();
}

}  // namespace vm
}  // namespace hlovm
