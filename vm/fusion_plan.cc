// Loop fusion, planning: which instructions of a computation form a region
// (see vm/fusion.h), which reduce or reduce-window of its root joins it, and
// which convolution it computes.
#include <algorithm>
#include <optional>
#include <queue>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ops/shape/iota.h"
#include "vm/fusion.h"
#include "vm/fusion_internal.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace fusion_internal {

//===----------------------------------------------------------------------===//
// Finding regions.
//===----------------------------------------------------------------------===//

int TransposeColumn(const HloInstruction& transpose) {
  const auto& dims = transpose.dimensions;
  return static_cast<int>(std::find(dims.begin(), dims.end(), static_cast<int64_t>(dims.size()) - 1) -
                          dims.begin());
}

int64_t TransposeLines(const HloInstruction& transpose) {
  int64_t lines = 1;
  const Shape& s = transpose.shape();
  for (int64_t d = TransposeColumn(transpose) + 1; d < s.rank(); ++d) lines *= s.dimensions(d);
  return lines;
}

bool MovesInnermost(const HloInstruction& transpose) {
  return TransposeColumn(transpose) != transpose.shape().rank() - 1;
}

bool BroadcastPattern(const HloInstruction& bcast, int64_t* repeat, int64_t* period) {
  const Shape& in = bcast.operand(0)->shape();
  const Shape& out = bcast.shape();
  if (bcast.dimensions.size() != static_cast<size_t>(in.rank())) return false;
  int64_t last = -1;
  for (int64_t i = 0; i < in.rank(); ++i) {
    const int64_t d = bcast.dimensions[i];
    if (d < 0 || d >= out.rank() || out.dimensions(d) != in.dimensions(i)) return false;
    if (in.dimensions(i) == 1) continue;
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

// Rows longer than this are reduced op by op (the fused form keeps a chunk
// of rows in a scratch buffer).
constexpr int64_t kMaxFusedRowBytes = 1 << 20;

// A column reduce joins a region when its rows have at least this many
// elements: the region then runs row segments of the columns at a time,
// and shorter ones would cost more in starts than the array in memory.
constexpr int64_t kMinFusedColumns = 128;

std::optional<RowReduce> FusibleReduce(const HloInstruction& reduce) {
  std::optional<RowReduce> r = SelectRowReduce(reduce);
  if (r.has_value()) {
    if (r->g.inner * r->elem_size > kMaxFusedRowBytes) return std::nullopt;
    return r;
  }
  r = SelectColumnReduce(reduce);
  if (r.has_value() && r->g.inner >= kMinFusedColumns) return r;
  return std::nullopt;
}

}  // namespace fusion_internal

namespace {

using fusion_internal::BroadcastPattern;
using fusion_internal::FusibleReduce;
using fusion_internal::kMaxTransposeRank;
using fusion_internal::kMinBandLines;
using fusion_internal::kMinTransposeRun;
using fusion_internal::MovesInnermost;
using fusion_internal::TransposeLines;

//===----------------------------------------------------------------------===//

enum class Role : uint8_t {
  kNone,       // not fusible
  kCompute,    // elementwise op: a micro-op
  kAlias,      // reshape (or a broadcast that only adds 1-sized dimensions)
  kBroadcast,  // broadcast read tile by tile from its operand
  kIota,       // iota computed tile by tile
  kTranspose,  // transpose gathered tile by tile from its operand
};

bool FusibleTranspose(const HloInstruction& instr) {
  const Shape& s = instr.shape();
  const int rank = static_cast<int>(s.rank());
  return instr.operand_count() == 1 && rank >= 2 && rank <= kMaxTransposeRank &&
         instr.dimensions.size() == static_cast<size_t>(rank) &&
         instr.operand(0)->shape().element_type() == s.element_type() &&
         s.dimensions(rank - 1) >= kMinTransposeRun &&
         (!MovesInnermost(instr) || TransposeLines(instr) >= kMinBandLines);
}

Role RoleOf(const HloInstruction& instr) {
  if (!instr.shape().IsArray() || !instr.control_predecessors().empty()) return Role::kNone;
  for (const HloInstruction* op : instr.operands()) {
    if (!op->shape().IsArray()) return Role::kNone;
  }
  const HloOpcode opcode = instr.opcode();
  if (opcode == HloOpcode::kReshape) return Role::kAlias;
  if (opcode == HloOpcode::kIota) {
    const Shape& s = instr.shape();
    return instr.iota_dimension >= 0 && instr.iota_dimension < s.rank() &&
                   SelectIotaKernel(s.element_type()).ok()
               ? Role::kIota
               : Role::kNone;
  }
  if (opcode == HloOpcode::kBroadcast) {
    if (instr.operand_count() != 1 ||
        instr.operand(0)->shape().element_type() != instr.shape().element_type()) {
      return Role::kNone;
    }
    int64_t repeat, period;
    if (!BroadcastPattern(instr, &repeat, &period)) return Role::kNone;
    // One that only adds 1-sized dimensions reads its operand as it is.
    return period == instr.shape().element_count() ? Role::kAlias : Role::kBroadcast;
  }
  if (opcode == HloOpcode::kTranspose) {
    return FusibleTranspose(instr) ? Role::kTranspose : Role::kNone;
  }
  const OpFamily family = HloOpcodeFamily(opcode);
  const bool elementwise = family == OpFamily::kUnary || family == OpFamily::kBinary ||
                           family == OpFamily::kTernary || opcode == HloOpcode::kConvert ||
                           opcode == HloOpcode::kReducePrecision;
  if (!elementwise) return Role::kNone;
  return SelectElementwiseKernel(instr).ok() ? Role::kCompute : Role::kNone;
}

// Below this many elements a region runs op by op: a fused region costs a
// little more to start than a few dispatches, and small arrays stay in
// cache between ops anyway (scalar loops of while bodies).
constexpr int64_t kMinFusedElements = 1024;

// A reduce-window of the root joins the region when it folds whole rows
// (SelectWindowRows) and computing, for each band of output rows (those
// differing in their last leading dimension only), every input row the band
// reads costs at most three times the operand: rows that two bands read are
// computed for each.
bool FusibleWindow(const HloInstruction& reduce_window) {
  const std::optional<WindowReduce> w = SelectWindowRows(reduce_window);
  if (!w.has_value() || w->rows.out_rows == 0) return false;
  const int64_t band = w->g.out_dims[w->rows.lead - 1];
  const int64_t bands = w->rows.out_rows / band;
  const int64_t in_rows = reduce_window.operand(0)->shape().element_count() / w->rows.row;
  int64_t widest = 0;
  for (int64_t b : {int64_t{0}, bands / 2, bands - 1}) {
    int64_t first, last;
    WindowRowSpan(w->g, w->rows, b * band, (b + 1) * band, &first, &last);
    widest = std::max(widest, last - first + 1);
  }
  return widest * bands <= 3 * in_rows;
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
  // Row-wise regions first: their members stay out of the others.
  for (std::vector<int64_t>& members : fusion_internal::PlanRowRegions(order, users, pinned)) {
    const int id = static_cast<int>(plan.regions.size());
    absl::flat_hash_set<int64_t> in_region(members.begin(), members.end());
    FusedRegion region;
    region.rows = true;
    region.root = order[members.back()];
    for (int64_t m : members) {
      region.members.push_back(order[m]);
      region_of[m] = id;
      plan.region_of[order[m]] = id;
      role[m] = Role::kNone;
      bool outside = m == members.back();
      for (int64_t u : users[m]) outside |= !in_region.contains(u);
      if (outside) region.outputs.push_back(order[m]);
    }
    plan.regions.push_back(std::move(region));
  }
  // Broadcasts and iotas that regions recompute while others read them
  // from memory: the regions that hold them.
  absl::flat_hash_map<int64_t, std::vector<int>> shared_in;
  for (int64_t r = count - 1; r >= 0; --r) {
    if (region_of[r] != -1 || role[r] != Role::kCompute) continue;
    const int64_t n = order[r]->shape().element_count();
    if (n < kMinFusedElements) continue;
    absl::flat_hash_set<int64_t> in_region{r}, decided{r}, shared_members;
    std::vector<int64_t> members{r};
    std::vector<int64_t> outputs;
    bool banded = false;  // the region runs in bands (a transpose's)
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
      bool output = false, fits = true, shared = false;
      for (int64_t u : users[i]) {
        if (in_region.contains(u)) continue;
        // Used outside: a computed value only after the ROOT (a further
        // output); a broadcast or iota is recomputed here and stays for
        // the others (shared).
        if (role[i] == Role::kCompute && u > r) {
          output = true;
        } else if (role[i] == Role::kBroadcast || role[i] == Role::kIota) {
          shared = true;
        } else {
          fits = false;
        }
      }
      if (!fits) continue;
      in_region.insert(i);
      members.push_back(i);
      if (shared) shared_members.insert(i);
      if (output) outputs.push_back(i);
      if (role[i] == Role::kCompute) ++computes;
      if (role[i] == Role::kTranspose) {
        // It gathers from its whole operand, which must then be in memory:
        // never a region value.
        if (auto it = pos.find(order[i]->operand(0)); it != pos.end()) decided.insert(it->second);
        banded |= MovesInnermost(*order[i]);
      }
      if (role[i] == Role::kBroadcast || role[i] == Role::kIota || role[i] == Role::kTranspose) {
        ++broadcasts;
      } else {
        push_operands(i);
      }
    }
    // A row or column reduce of the ROOT takes it as the region computes
    // it, when every other outside use comes after the reduce.
    int64_t reduce = -1;
    bool root_stored = false;
    for (int64_t u : users[r]) {
      if (banded || u >= count || pinned[u] || region_of[u] != -1 ||
          order[u]->operand_count() != 2 || order[u]->operand(0) != order[r]) {
        continue;
      }
      auto init = pos.find(order[u]->operand(1));
      if (FusibleReduce(*order[u]).has_value() &&
          (init == pos.end() || !in_region.contains(init->second))) {
        reduce = u;
        break;
      }
    }
    if (reduce >= 0) {
      // The region is emitted at the reduce: every other outside use of a
      // member must come after it.
      bool after = true;
      for (int64_t u : users[r]) {
        if (u == reduce) continue;
        root_stored = true;
        after &= u > reduce;
      }
      for (int64_t o : outputs) {
        for (int64_t u : users[o]) after &= in_region.contains(u) || u > reduce;
      }
      if (!after) reduce = -1;
    }
    // Else a reduce-window over whole rows, when it alone reads the root
    // and the root is the region's only value read outside (bands of rows
    // are computed more than once).
    if (reduce < 0 && !banded && outputs.empty() && users[r].size() == 1) {
      const int64_t u = users[r][0];
      if (u < count && !pinned[u] && region_of[u] == -1 &&
          order[u]->opcode() == HloOpcode::kReduceWindow && order[u]->operand_count() == 2 &&
          order[u]->operand(0) == order[r]) {
        auto init = pos.find(order[u]->operand(1));
        if ((init == pos.end() || !in_region.contains(init->second)) && FusibleWindow(*order[u])) {
          reduce = u;
        }
      }
    }
    if (reduce < 0 && computes < 2 && broadcasts == 0) continue;
    const int id = static_cast<int>(plan.regions.size());
    FusedRegion region;
    region.root = order[r];
    std::sort(members.begin(), members.end());
    std::sort(outputs.begin(), outputs.end());
    for (int64_t m : members) {
      region.members.push_back(order[m]);
      if (shared_members.contains(m)) {
        shared_in[m].push_back(id);
        continue;
      }
      region_of[m] = id;
      plan.region_of[order[m]] = id;
    }
    if (reduce < 0 || root_stored) region.outputs.push_back(order[r]);
    for (int64_t o : outputs) region.outputs.push_back(order[o]);
    if (reduce >= 0) {
      region.reduce = order[reduce];
      region_of[reduce] = id;
      plan.region_of[order[reduce]] = id;
    }
    plan.regions.push_back(std::move(region));
  }
  // A convolution that only elementwise members of a plain f32 region read
  // is computed by the region's instruction (FusedRegion::conv), which is
  // emitted at the region's root; of several, the last in the schedule (the
  // others are computed before it).
  for (size_t id = 0; id < plan.regions.size(); ++id) {
    FusedRegion& region = plan.regions[id];
    if (region.rows || region.reduce != nullptr || region.outputs.size() != 1 ||
        region.outputs[0] != region.root ||
        region.root->shape().element_type() != ElementType::kF32) {
      continue;
    }
    const int64_t n = region.root->shape().element_count();
    bool plain = true;
    for (const HloInstruction* m : region.members) {
      plain &= m->opcode() != HloOpcode::kTranspose || !MovesInnermost(*m);
    }
    if (!plain) continue;
    int64_t conv = -1;
    for (const HloInstruction* m : region.members) {
      for (const HloInstruction* op : m->operands()) {
        auto it = pos.find(op);
        if (op->opcode() != HloOpcode::kConvolution || it == pos.end()) continue;
        const int64_t c = it->second;
        if (c <= conv || pinned[c] || region_of[c] != -1 || !op->control_predecessors().empty() ||
            !op->shape().IsArray() || op->shape().element_type() != ElementType::kF32 ||
            op->shape().element_count() != n) {
          continue;
        }
        bool only_members = true;
        for (int64_t u : users[c]) {
          only_members &= u < count && region_of[u] == static_cast<int>(id) &&
                          role[u] == Role::kCompute;
        }
        if (only_members) conv = c;
      }
    }
    if (conv < 0) continue;
    region.conv = order[conv];
    region_of[conv] = static_cast<int>(id);
    plan.region_of[order[conv]] = static_cast<int>(id);
  }
  // A shared broadcast or iota that only members of regions holding it read
  // is not written to memory at all.
  for (const auto& [i, ids] : shared_in) {
    bool read_outside = false;
    for (int64_t u : users[i]) {
      read_outside |= u >= count || region_of[u] < 0 ||
                      std::find(ids.begin(), ids.end(), region_of[u]) == ids.end() ||
                      order[u] == plan.regions[region_of[u]].reduce;
    }
    if (!read_outside) plan.elided.insert(order[i]);
  }
  return plan;
}

}  // namespace vm
}  // namespace hlovm
