#include "vm/fusion.h"

#include <algorithm>
#include <cstring>
#include <queue>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace hlovm {
namespace vm {
namespace {

//===----------------------------------------------------------------------===//
// Finding regions.
//===----------------------------------------------------------------------===//

enum class Role : uint8_t {
  kNone,       // not fusible
  kCompute,    // elementwise op: a micro-op
  kAlias,      // reshape (or a broadcast that only adds 1-sized dimensions)
  kBroadcast,  // broadcast read tile by tile from its operand
};

// For a broadcast whose operand dimensions of size > 1 land on a run of
// result dimensions with nothing but 1-sized ones between them: result
// element f reads operand element (f / repeat) % period. False otherwise.
bool BroadcastPattern(const HloInstruction& bcast, int64_t* repeat, int64_t* period) {
  const Shape& in = bcast.operand(0)->shape();
  const Shape& out = bcast.shape();
  if (bcast.dimensions.size() != static_cast<size_t>(in.rank())) return false;
  int64_t last = -1;
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (in.dimensions(i) == 1) continue;
    const int64_t d = bcast.dimensions[i];
    if (d < 0 || d >= out.rank() || out.dimensions(d) != in.dimensions(i)) return false;
    if (last >= 0) {
      if (d <= last) return false;
      for (int64_t g = last + 1; g < d; ++g) {
        if (out.dimensions(g) != 1) return false;
      }
    }
    last = d;
  }
  *period = in.element_count();
  *repeat = 1;
  if (last >= 0) {
    for (int64_t g = last + 1; g < out.rank(); ++g) *repeat *= out.dimensions(g);
  }
  return true;
}

Role RoleOf(const HloInstruction& instr) {
  if (!instr.shape().IsArray() || !instr.control_predecessors().empty()) return Role::kNone;
  for (const HloInstruction* op : instr.operands()) {
    if (!op->shape().IsArray()) return Role::kNone;
  }
  const HloOpcode opcode = instr.opcode();
  if (opcode == HloOpcode::kReshape) return Role::kAlias;
  if (opcode == HloOpcode::kBroadcast) {
    if (instr.operand_count() != 1 ||
        instr.operand(0)->shape().element_type() != instr.shape().element_type()) {
      return Role::kNone;
    }
    if (instr.operand(0)->shape().element_count() == instr.shape().element_count()) {
      int64_t repeat, period;
      return BroadcastPattern(instr, &repeat, &period) ? Role::kAlias : Role::kNone;
    }
    int64_t repeat, period;
    return BroadcastPattern(instr, &repeat, &period) ? Role::kBroadcast : Role::kNone;
  }
  const OpFamily family = HloOpcodeFamily(opcode);
  const bool elementwise = family == OpFamily::kUnary || family == OpFamily::kBinary ||
                           family == OpFamily::kTernary || opcode == HloOpcode::kConvert ||
                           opcode == HloOpcode::kReducePrecision;
  if (!elementwise) return Role::kNone;
  return SelectElementwiseKernel(instr).ok() ? Role::kCompute : Role::kNone;
}

}  // namespace

FusionPlan PlanFusion(absl::Span<const HloInstruction* const> order,
                      const HloComputation& computation) {
  FusionPlan plan;
  const int64_t count = static_cast<int64_t>(order.size());
  absl::flat_hash_map<const HloInstruction*, int64_t> pos;
  for (int64_t i = 0; i < count; ++i) pos[order[i]] = i;
  // Positions of each instruction's users; the computation's ROOT counts as
  // used after everything.
  std::vector<std::vector<int64_t>> users(count);
  std::vector<bool> pinned(count, false);
  for (int64_t i = 0; i < count; ++i) {
    for (const HloInstruction* op : order[i]->operands()) {
      if (auto it = pos.find(op); it != pos.end()) users[it->second].push_back(i);
    }
    for (const HloInstruction* p : order[i]->control_predecessors()) {
      if (auto it = pos.find(p); it != pos.end()) pinned[it->second] = true;
    }
  }
  if (auto it = pos.find(computation.root()); it != pos.end()) users[it->second].push_back(count);
  std::vector<Role> role(count);
  for (int64_t i = 0; i < count; ++i) role[i] = pinned[i] ? Role::kNone : RoleOf(*order[i]);

  std::vector<int> region_of(count, -1);
  for (int64_t r = count - 1; r >= 0; --r) {
    if (region_of[r] != -1 || role[r] != Role::kCompute) continue;
    const int64_t n = order[r]->shape().element_count();
    absl::flat_hash_set<int64_t> in_region{r}, decided{r};
    std::vector<int64_t> members{r};
    std::vector<int64_t> outputs;
    std::priority_queue<int64_t> frontier;  // latest first: users decide before producers
    auto push_operands = [&](int64_t i) {
      for (const HloInstruction* op : order[i]->operands()) {
        if (auto it = pos.find(op); it != pos.end()) frontier.push(it->second);
      }
    };
    push_operands(r);
    int computes = 1, broadcasts = 0;
    while (!frontier.empty()) {
      const int64_t i = frontier.top();
      frontier.pop();
      if (!decided.insert(i).second || region_of[i] != -1) continue;
      if (role[i] == Role::kNone || order[i]->shape().element_count() != n) continue;
      bool output = false, fits = true;
      for (int64_t u : users[i]) {
        if (in_region.contains(u)) continue;
        // Used outside: only a computed value, and only after the ROOT.
        if (role[i] == Role::kCompute && u > r) {
          output = true;
        } else {
          fits = false;
        }
      }
      if (!fits) continue;
      in_region.insert(i);
      members.push_back(i);
      if (output) outputs.push_back(i);
      if (role[i] == Role::kCompute) ++computes;
      if (role[i] == Role::kBroadcast) {
        ++broadcasts;
      } else {
        push_operands(i);
      }
    }
    if (computes < 2 && broadcasts == 0) continue;
    const int id = static_cast<int>(plan.regions.size());
    FusedRegion region;
    region.root = order[r];
    std::sort(members.begin(), members.end());
    std::sort(outputs.begin(), outputs.end());
    for (int64_t m : members) {
      region_of[m] = id;
      region.members.push_back(order[m]);
      plan.region_of[order[m]] = id;
    }
    region.outputs.push_back(order[r]);
    for (int64_t o : outputs) region.outputs.push_back(order[o]);
    plan.regions.push_back(std::move(region));
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// The micro-program.
//===----------------------------------------------------------------------===//

namespace {

struct Src {
  enum Kind : uint8_t { kTile, kInput, kScalar, kOutput };
  Kind kind = kTile;
  uint8_t size = 0;     // element width in bytes
  uint32_t index = 0;   // tile value (then slot), input or output number
};

enum class MicroKind : uint8_t { kUnary, kBinary, kTernary, kReducePrecision, kBroadcast };

struct MicroOp {
  MicroKind kind = MicroKind::kUnary;
  UnaryKernel unary = nullptr;
  BinaryKernel binary = nullptr;
  TernaryKernel ternary = nullptr;
  ReducePrecisionKernel reduce_precision;
  unsigned scalar_mask = 0;
  int arity = 0;
  Src src[3];
  Src dst;
  int64_t repeat = 1, period = 1;  // broadcast: element f reads (f / repeat) % period
};

struct FusedPlan {
  std::vector<MicroOp> ops;  // the first `num_invariant` run once per chunk
  int num_invariant = 0;
  int64_t n = 0;
  int64_t tile = 0;   // elements per tile
  int64_t chunk = 0;  // elements per parallel chunk (a multiple of tile)
  int64_t slot_bytes = 0;
  int num_slots = 0;
};

template <typename T>
void BroadcastRange(const T* in, T* out, int64_t begin, int64_t len, int64_t repeat,
                    int64_t period) {
  if (period == 1) {
    std::fill_n(out, len, in[0]);
    return;
  }
  int64_t f = begin;
  int64_t done = 0;
  if (repeat == 1) {
    while (done < len) {
      const int64_t j = f % period;
      const int64_t run = std::min(period - j, len - done);
      std::memcpy(out + done, in + j, run * sizeof(T));
      done += run;
      f += run;
    }
    return;
  }
  while (done < len) {
    const int64_t j = (f / repeat) % period;
    const int64_t run = std::min(repeat - f % repeat, len - done);
    std::fill_n(out + done, run, in[j]);
    done += run;
    f += run;
  }
}

struct Bytes16 {
  uint64_t lo, hi;
};

void Broadcast(int size, const uint8_t* in, uint8_t* out, int64_t begin, int64_t len,
               int64_t repeat, int64_t period) {
  switch (size) {
    case 1:
      BroadcastRange(in, out, begin, len, repeat, period);
      break;
    case 2:
      BroadcastRange(reinterpret_cast<const uint16_t*>(in), reinterpret_cast<uint16_t*>(out),
                     begin, len, repeat, period);
      break;
    case 4:
      BroadcastRange(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out),
                     begin, len, repeat, period);
      break;
    case 8:
      BroadcastRange(reinterpret_cast<const uint64_t*>(in), reinterpret_cast<uint64_t*>(out),
                     begin, len, repeat, period);
      break;
    default:
      BroadcastRange(reinterpret_cast<const Bytes16*>(in), reinterpret_cast<Bytes16*>(out),
                     begin, len, repeat, period);
      break;
  }
}

// Per-thread scratch for tile registers (a region never runs nested inside
// another on one thread: kernels do not spawn work).
uint8_t* TileScratch(int64_t bytes) {
  struct Scratch {
    uint8_t* data = nullptr;
    int64_t size = 0;
    ~Scratch() { std::free(data); }
  };
  thread_local Scratch scratch;
  if (scratch.size < bytes) {
    std::free(scratch.data);
    const int64_t rounded = (bytes + 63) / 64 * 64;
    scratch.data = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
    scratch.size = scratch.data == nullptr ? 0 : rounded;
  }
  return scratch.data;
}

void RunTiles(const FusedPlan& p, const Instr& instr, uint8_t* const* regs, int64_t begin,
              int64_t end) {
  uint8_t* scratch = TileScratch(p.num_slots * p.slot_bytes);
  auto at = [&](const Src& s, int64_t offset) -> uint8_t* {
    switch (s.kind) {
      case Src::kTile: return scratch + s.index * p.slot_bytes;
      case Src::kInput: return regs[instr.in[s.index]] + offset * s.size;
      case Src::kScalar: return regs[instr.in[s.index]];
      case Src::kOutput: return regs[instr.out[s.index]] + offset * s.size;
    }
    return nullptr;
  };
  auto apply = [&](const MicroOp& op, int64_t offset, int64_t len) {
    uint8_t* d = at(op.dst, offset);
    switch (op.kind) {
      case MicroKind::kUnary:
        op.unary(at(op.src[0], offset), d, len);
        break;
      case MicroKind::kBinary:
        op.binary(at(op.src[0], offset), at(op.src[1], offset), d, len);
        break;
      case MicroKind::kTernary:
        op.ternary(at(op.src[0], offset), at(op.src[1], offset), at(op.src[2], offset), d, len,
                   op.scalar_mask);
        break;
      case MicroKind::kReducePrecision:
        op.reduce_precision(at(op.src[0], offset), d, len);
        break;
      case MicroKind::kBroadcast:
        Broadcast(op.dst.size, at(op.src[0], offset), d, offset, len, op.repeat, op.period);
        break;
    }
  };
  const int64_t first = std::min(p.tile, end - begin);
  for (int i = 0; i < p.num_invariant; ++i) apply(p.ops[i], begin, first);
  const size_t num_ops = p.ops.size();
  for (int64_t t = begin; t < end; t += p.tile) {
    const int64_t len = std::min(p.tile, end - t);
    for (size_t i = p.num_invariant; i < num_ops; ++i) apply(p.ops[i], t, len);
  }
}

bool FusedHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx) {
  const auto& p = *static_cast<const FusedPlan*>(instr.plan);
  ForEachChunk(ctx, p.n, p.chunk,
               [&](int64_t b, int64_t e) { RunTiles(p, instr, regs, b, e); });
  return true;
}

// Bytes of tile registers the live tiles of a region may take: small enough
// for L1 next to the tiles of the arrays the region streams.
constexpr int64_t kTileBudgetBytes = 24 * 1024;
constexpr int64_t kMinTile = 256, kMaxTile = 4096;

std::string SrcText(const Src& s) {
  switch (s.kind) {
    case Src::kTile: return absl::StrCat("t", s.index);
    case Src::kInput: return absl::StrCat("in", s.index);
    case Src::kScalar: return absl::StrCat("s", s.index);
    case Src::kOutput: return absl::StrCat("out", s.index);
  }
  return "?";
}

}  // namespace

absl::Status LowerFusedRegion(FunctionBuilder& b, const FusedRegion& region,
                              absl::flat_hash_map<const HloInstruction*, ValueDesc>* values) {
  const int64_t n = region.root->shape().element_count();
  absl::flat_hash_set<const HloInstruction*> members(region.members.begin(),
                                                     region.members.end());
  absl::flat_hash_map<const HloInstruction*, int> output_of;
  for (size_t k = 0; k < region.outputs.size(); ++k) {
    output_of[region.outputs[k]] = static_cast<int>(k);
  }
  std::vector<Reg> in_regs;
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

  FusedPlan plan;
  plan.n = n;
  std::vector<const HloInstruction*> origin;  // per micro-op, for the listing
  std::vector<std::string> names;             // per micro-op
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
      } else {
        d.kind = Src::kTile;
        d.index = tile_values++;
      }
      return d;
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
      op.dst = dst_for();
      src_of[m] = op.dst;
      plan.ops.push_back(op);
      origin.push_back(m);
      names.push_back(op.period == 1 ? "broadcast (splat)"
                                     : absl::StrCat("broadcast (repeat ", op.repeat, ", period ",
                                                    op.period, ")"));
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
    op.dst = dst_for();
    src_of[m] = op.dst;
    plan.ops.push_back(op);
    origin.push_back(m);
    names.push_back(absl::StrCat(std::string(HloOpcodeName(m->opcode())), " ", k.variant));
  }

  // Invariant micro-ops (same tile whatever the offset) move to the front.
  const size_t num_ops = plan.ops.size();
  std::vector<bool> invariant_value(tile_values, false);
  std::vector<bool> invariant(num_ops, false);
  for (size_t i = 0; i < num_ops; ++i) {
    const MicroOp& op = plan.ops[i];
    if (op.dst.kind != Src::kTile) continue;
    bool inv = op.kind == MicroKind::kBroadcast ? op.period == 1 : true;
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

  // Tile registers: a value's slot is free after its last reader (invariant
  // values stay); a micro-op may write the slot of a same-width operand it
  // reads last (the kernels allow in place).
  std::vector<int64_t> last_use(tile_values, -1);
  for (size_t s = 0; s < num_ops; ++s) {
    const MicroOp& op = plan.ops[sequence[s]];
    for (int j = 0; j < op.arity; ++j) {
      if (op.src[j].kind == Src::kTile) last_use[op.src[j].index] = static_cast<int64_t>(s);
    }
  }
  std::vector<int> slot_of(tile_values, -1);
  std::vector<int> free_slots;
  int max_width = 1;
  for (size_t s = 0; s < num_ops; ++s) {
    MicroOp& op = plan.ops[sequence[s]];
    auto release = [&](bool same_width_only) {
      for (int j = 0; j < op.arity; ++j) {
        const Src& src = op.src[j];
        if (src.kind != Src::kTile || invariant_value[src.index] ||
            last_use[src.index] != static_cast<int64_t>(s) || slot_of[src.index] < 0) {
          continue;
        }
        if (same_width_only && src.size != op.dst.size) continue;
        free_slots.push_back(slot_of[src.index]);
        last_use[src.index] = -2;  // released
      }
    };
    release(true);
    if (op.dst.kind == Src::kTile) {
      max_width = std::max<int>(max_width, op.dst.size);
      if (free_slots.empty()) {
        slot_of[op.dst.index] = plan.num_slots++;
      } else {
        slot_of[op.dst.index] = free_slots.back();
        free_slots.pop_back();
      }
      // A value nobody reads (cannot happen for a needed member) frees at once.
      if (last_use[op.dst.index] == -1 && !invariant_value[op.dst.index]) {
        free_slots.push_back(slot_of[op.dst.index]);
      }
    }
    release(false);
  }
  for (MicroOp& op : plan.ops) {
    for (int j = 0; j < op.arity; ++j) {
      if (op.src[j].kind == Src::kTile) op.src[j].index = slot_of[op.src[j].index];
    }
  }
  for (size_t i = 0; i < num_ops; ++i) {
    MicroOp& op = plan.ops[i];
    if (op.dst.kind == Src::kTile) op.dst.index = slot_of[op.dst.index];
  }

  // Tile and chunk sizes.
  int64_t bytes_per_element = 0;  // streamed through memory
  for (size_t i = 0; i < num_ops; ++i) {
    const MicroOp& op = plan.ops[i];
    for (int j = 0; j < op.arity; ++j) {
      if (op.src[j].kind == Src::kInput) bytes_per_element += op.src[j].size;
    }
    if (op.dst.kind == Src::kOutput) bytes_per_element += op.dst.size;
  }
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

  std::vector<MicroOp> ordered;
  std::string detail;
  for (size_t s = 0; s < num_ops; ++s) {
    const size_t i = sequence[s];
    const MicroOp& op = plan.ops[i];
    ordered.push_back(op);
    std::string args;
    for (int j = 0; j < op.arity; ++j) absl::StrAppend(&args, j ? ", " : "", SrcText(op.src[j]));
    std::string line = absl::StrCat(SrcText(op.dst), " = ", names[i], " ", args,
                                    static_cast<int>(s) < plan.num_invariant ? "  (once per chunk)"
                                                                             : "");
    absl::StrAppend(&detail, absl::StrFormat("          %-62s ; %%%s\n", line, origin[i]->name()));
  }
  plan.ops = std::move(ordered);

  // Outputs.
  FunctionBuilder::EmitSpec spec;
  std::vector<Reg> outs;
  int64_t out_bytes = 0;
  for (const HloInstruction* o : region.outputs) {
    HLOVM_ASSIGN_OR_RETURN(Reg r, b.NewReg(RegKind::kOwned, o->shape()));
    outs.push_back(r);
    out_bytes += b.function().regs[r].bytes;
  }
  int64_t in_bytes = 0;
  for (Reg r : in_regs) in_bytes += b.function().regs[r].bytes;
  // One output may take the buffer of an input it streams through: every
  // tile reads its inputs before the last micro-op writes that output's
  // tile. With several outputs, written at different micro-ops, none may.
  if (outs.size() == 1) {
    const int out_width = ByteWidth(region.root->shape().element_type());
    std::vector<bool> streamed(in_regs.size(), false), other_use(in_regs.size(), false);
    for (const MicroOp& op : plan.ops) {
      for (int j = 0; j < op.arity; ++j) {
        const Src& s = op.src[j];
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
  }
  spec.handler = &FusedHandler;
  spec.in = in_regs;
  spec.out = outs;
  spec.mnemonic = "fusion";
  spec.variant = absl::StrCat(num_ops, " ops, tile ", plan.tile);
  if (plan.chunk < n) absl::StrAppend(&spec.variant, ", chunks of ", plan.chunk);
  spec.detail = std::move(detail);
  spec.cost = in_bytes + out_bytes;
  spec.plan = b.program().AddPlan(std::move(plan));
  b.Emit(region.root, std::move(spec));
  for (size_t k = 0; k < region.outputs.size(); ++k) {
    (*values)[region.outputs[k]] = ValueDesc{outs[k]};
  }
  return absl::OkStatus();
}

}  // namespace vm
}  // namespace hlovm
