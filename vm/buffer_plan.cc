#include "vm/buffer_plan.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace hlovm {
namespace vm {
namespace {

constexpr int64_t kAlignment = 64;

int64_t AlignUp(int64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

// The arena bytes a slot of `size` takes: whole lines, at least one.
int64_t SlotBytes(int64_t size) { return AlignUp(std::max<int64_t>(size, 1)); }

}  // namespace

namespace {

absl::Status ComputeLiveness(Function* fn) {
  const int32_t n = static_cast<int32_t>(fn->code.size());
  for (RegInfo& r : fn->regs) {
    r.def = -1;
    r.last_use = -1;
  }
  for (int32_t i = 0; i < n; ++i) {
    const InstrInfo& info = fn->info[i];
    for (uint32_t k = 0; k < fn->code[i].num_out; ++k) {
      const Reg r = fn->reg_pool[info.out_offset + k];
      if (fn->regs[r].def != -1) {
        return absl::InternalError(absl::StrCat("register r", r, " of %", fn->name,
                                                " is written twice"));
      }
      fn->regs[r].def = i;
      fn->regs[r].last_use = std::max(fn->regs[r].last_use, i);
    }
    for (uint32_t k = 0; k < fn->code[i].num_in; ++k) {
      const Reg r = fn->reg_pool[info.in_offset + k];
      fn->regs[r].last_use = std::max(fn->regs[r].last_use, i);
    }
  }
  for (RegInfo& r : fn->regs) {
    if (r.is_result) r.last_use = n;
  }
  return absl::OkStatus();
}

// While bodies: an instruction that may write in place into an operand
// (inplace_mask), reads a state leaf for the last time and computes that
// same leaf's next value, writes straight into the state buffer (a
// dynamic-update-slice of a scan's output then costs its update, not a copy
// of the whole array per trip). The loop hands the body state buffers of its
// own for such leaves (Function::param_mutated). Liveness must be current.
void WriteStateInPlace(Function* fn) {
  fn->param_mutated.assign(fn->param_regs.size(), false);
  absl::flat_hash_map<Reg, int> result_count;
  for (Reg r : fn->result_regs) ++result_count[r];
  for (size_t i = 0; i < fn->code.size(); ++i) {
    const InstrInfo& info = fn->info[i];
    if (info.inplace_mask == 0 || fn->code[i].num_out != 1) continue;
    const Reg out = fn->reg_pool[info.out_offset];
    const RegInfo& out_info = fn->regs[out];
    if (out_info.kind != RegKind::kOwned || result_count[out] != 1) continue;
    size_t leaf = 0;
    while (leaf < fn->result_regs.size() && fn->result_regs[leaf] != out) ++leaf;
    if (leaf >= fn->param_regs.size() || fn->param_mutated[leaf]) continue;
    const Reg param = fn->param_regs[leaf];
    const RegInfo& param_info = fn->regs[param];
    if (result_count[param] != 0 || param_info.last_use != static_cast<int32_t>(i) ||
        param_info.bytes != out_info.bytes || param_info.kind != RegKind::kParam) {
      continue;
    }
    int uses = 0;
    bool maskable = false;
    for (uint32_t k = 0; k < fn->code[i].num_in; ++k) {
      if (fn->reg_pool[info.in_offset + k] != param) continue;
      ++uses;
      maskable = (info.inplace_mask >> k & 1) != 0;
    }
    if (uses != 1 || !maskable) continue;
    // Every reference to `out` becomes the state register.
    for (Reg& r : fn->reg_pool) {
      if (r == out) r = param;
    }
    fn->result_regs[leaf] = param;
    for (auto& [hlo, regs] : fn->values) {
      for (Reg& r : regs) {
        if (r == out) r = param;
      }
    }
    RegInfo& dropped = fn->regs[out];
    dropped.kind = RegKind::kToken;  // holds nothing now
    dropped.bytes = 0;
    dropped.is_result = false;
    fn->param_mutated[leaf] = true;
    if (leaf < fn->result_passthrough.size()) fn->result_passthrough[leaf] = true;
  }
}

// Places slots in the arena: largest first, each into the tightest gap left
// by the slots already placed whose lifetimes overlap its own (inclusive
// instruction intervals), or above them all. Slots alive at different times
// share addresses freely, so the arena tracks the largest live set instead
// of the sum of the largest values ever to occupy each slot. Slots of size
// -1 are not placed. Returns the arena's size.
int64_t PackSlots(const std::vector<int64_t>& size, const std::vector<int32_t>& start,
                  const std::vector<int32_t>& end, std::vector<int64_t>* offset) {
  const int32_t count = static_cast<int32_t>(size.size());
  offset->assign(count, 0);
  std::vector<int32_t> order(count);
  for (int32_t s = 0; s < count; ++s) order[s] = s;
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (size[a] != size[b]) return size[a] > size[b];
    return start[a] < start[b];
  });
  // Placed slots by block of instructions they are live in, so a slot meets
  // only the slots near its lifetime.
  constexpr int32_t kBlock = 64;
  int32_t last = 0;
  for (int32_t s = 0; s < count; ++s) last = std::max(last, end[s]);
  std::vector<std::vector<int32_t>> blocks(last / kBlock + 1);
  std::vector<int32_t> seen(count, -1);
  std::vector<std::pair<int64_t, int64_t>> taken;  // [offset, offset + bytes)
  int64_t arena = 0;
  for (int32_t s : order) {
    if (size[s] < 0) continue;  // not in the arena
    const int64_t bytes = SlotBytes(size[s]);
    taken.clear();
    for (int32_t b = start[s] / kBlock; b <= end[s] / kBlock; ++b) {
      for (int32_t t : blocks[b]) {
        if (seen[t] == s || end[t] < start[s] || end[s] < start[t]) continue;
        seen[t] = s;
        taken.emplace_back((*offset)[t], (*offset)[t] + SlotBytes(size[t]));
      }
    }
    std::sort(taken.begin(), taken.end());
    int64_t best = -1, best_gap = INT64_MAX, top = 0;
    for (const auto& [lo, hi] : taken) {
      if (lo - top >= bytes && lo - top < best_gap) {
        best = top;
        best_gap = lo - top;
      }
      top = std::max(top, hi);
    }
    (*offset)[s] = best >= 0 ? best : top;
    arena = std::max(arena, (*offset)[s] + bytes);
    for (int32_t b = start[s] / kBlock; b <= end[s] / kBlock; ++b) blocks[b].push_back(s);
  }
  return arena;
}

}  // namespace

absl::Status PlanFunction(Function* fn, const std::vector<std::pair<int32_t, int32_t>>& extra_edges,
                          bool while_body, bool results_outside) {
  const int32_t n = static_cast<int32_t>(fn->code.size());
  auto in_regs = [&](int32_t i) {
    const InstrInfo& info = fn->info[i];
    return absl::MakeConstSpan(fn->reg_pool.data() + info.in_offset, fn->code[i].num_in);
  };
  auto out_regs = [&](int32_t i) {
    const InstrInfo& info = fn->info[i];
    return absl::MakeConstSpan(fn->reg_pool.data() + info.out_offset, fn->code[i].num_out);
  };

  HLOVM_RETURN_IF_ERROR(ComputeLiveness(fn));
  if (while_body) {
    WriteStateInPlace(fn);
    HLOVM_RETURN_IF_ERROR(ComputeLiveness(fn));
  }

  // Slots: one per value, except that an instruction allowed to work in
  // place writes its result into the buffer of an operand of the same size
  // that dies there, and the two share a slot. A slot is live from its first
  // value's definition to its last value's last use (a chain of in-place
  // values is contiguous in time).
  std::vector<int64_t>& slot_size = fn->slot_size;
  slot_size.clear();
  std::vector<int32_t> slot_start, slot_end;
  auto new_slot = [&](int64_t bytes, int32_t start) {
    slot_size.push_back(bytes);
    slot_start.push_back(start);
    slot_end.push_back(start);
    return static_cast<int32_t>(slot_size.size() - 1);
  };
  // Owned registers that no instruction writes (results that are never
  // computed cannot happen; be safe) get a slot for the whole function.
  for (RegInfo& r : fn->regs) {
    if (r.kind == RegKind::kOwned && r.def == -1) r.slot = new_slot(r.bytes, 0);
  }
  for (int32_t i = 0; i < n; ++i) {
    const InstrInfo& info = fn->info[i];
    std::vector<int32_t> reusable;  // slots of operands dying here, in-place legal
    if (info.inplace_mask != 0) {
      auto ins = in_regs(i);
      for (size_t k = 0; k < ins.size(); ++k) {
        const RegInfo& op = fn->regs[ins[k]];
        if ((info.inplace_mask >> k & 1) && op.kind == RegKind::kOwned && op.last_use == i &&
            !op.is_result && op.slot >= 0) {
          reusable.push_back(op.slot);
        }
      }
    }
    for (Reg r : out_regs(i)) {
      RegInfo& out = fn->regs[r];
      if (out.kind != RegKind::kOwned) continue;
      out.slot = -1;
      for (auto it = reusable.begin(); it != reusable.end(); ++it) {
        // Exactly the operand's buffer; kernels read and write element i in
        // the same step, so the alias is safe.
        if (slot_size[*it] == out.bytes) {
          out.slot = *it;
          reusable.erase(it);
          break;
        }
      }
      if (out.slot < 0) out.slot = new_slot(out.bytes, i);
    }
  }
  for (const RegInfo& r : fn->regs) {
    if (r.kind != RegKind::kOwned || r.slot < 0) continue;
    const int32_t end = r.is_result || r.def < 0 ? n : std::max(r.def, r.last_use);
    slot_end[r.slot] = std::max(slot_end[r.slot], end);
  }
  fn->slot_result.clear();
  std::vector<int64_t> arena_size = slot_size;
  if (results_outside) {
    fn->slot_result.assign(slot_size.size(), -1);
    for (size_t k = 0; k < fn->result_regs.size(); ++k) {
      const RegInfo& r = fn->regs[fn->result_regs[k]];
      if (r.kind != RegKind::kOwned || r.slot < 0 || r.bytes == 0) continue;
      if (fn->slot_result[r.slot] < 0) {
        fn->slot_result[r.slot] = static_cast<int32_t>(k);
        arena_size[r.slot] = -1;
      }
    }
  }
  fn->arena_bytes = PackSlots(arena_size, slot_start, slot_end, &fn->slot_offset);
  fn->result_region_bytes = 0;
  for (size_t slot = 0; slot < fn->slot_result.size(); ++slot) {
    if (fn->slot_result[slot] < 0) continue;
    fn->slot_offset[slot] = fn->result_region_bytes;
    fn->result_region_bytes += SlotBytes(slot_size[slot]);
  }

  // Dependencies from buffer hazards, per buffer: a slot, or a state
  // parameter written in place (numbered after the slots). A slot's first
  // write also waits for every earlier slot whose bytes it takes over: their
  // last writers and readers (`owner` maps arena ranges to the slot holding
  // them, in program order).
  const size_t slots = slot_size.size();
  auto buffer_of = [&](Reg r) -> int64_t {
    const RegInfo& info = fn->regs[r];
    if (info.kind == RegKind::kOwned) return info.slot;
    if (info.kind == RegKind::kParam && info.def >= 0) return static_cast<int64_t>(slots + r);
    return -1;
  };
  std::vector<std::vector<int32_t>> preds(n);
  std::vector<int32_t> last_writer(slots + fn->regs.size(), -1);
  std::vector<std::vector<int32_t>> readers(slots + fn->regs.size());
  std::vector<bool> opened(slots, false);
  std::map<int64_t, int32_t> owner{{0, -1}};  // range start -> slot (-1: never used)
  auto take_over = [&](int32_t i, int32_t slot) {
    const int64_t lo = fn->slot_offset[slot];
    const int64_t hi = lo + SlotBytes(slot_size[slot]);
    auto split = [&](int64_t at) {
      auto it = std::prev(owner.upper_bound(at));
      if (it->first != at) owner.emplace_hint(std::next(it), at, it->second);
    };
    split(lo);
    split(hi);
    auto first = owner.find(lo), stop = owner.find(hi);
    for (auto it = first; it != stop; ++it) {
      const int32_t before = it->second;
      if (before < 0 || before == slot) continue;
      if (last_writer[before] >= 0) preds[i].push_back(last_writer[before]);
      preds[i].insert(preds[i].end(), readers[before].begin(), readers[before].end());
    }
    owner.erase(std::next(first), stop);
    first->second = slot;
  };
  int32_t last_effect = -1;
  for (int32_t i = 0; i < n; ++i) {
    for (Reg r : in_regs(i)) {
      const int64_t buffer = buffer_of(r);
      if (buffer < 0) continue;
      if (last_writer[buffer] >= 0) preds[i].push_back(last_writer[buffer]);
      readers[buffer].push_back(i);
    }
    for (Reg r : out_regs(i)) {
      const int64_t buffer = buffer_of(r);
      if (buffer < 0) continue;
      if (buffer < static_cast<int64_t>(slots) && !opened[buffer] &&
          fn->ResultOfSlot(static_cast<int32_t>(buffer)) < 0) {
        opened[buffer] = true;
        take_over(i, static_cast<int32_t>(buffer));
      }
      if (last_writer[buffer] >= 0) preds[i].push_back(last_writer[buffer]);
      for (int32_t reader : readers[buffer]) preds[i].push_back(reader);
      readers[buffer].clear();
      last_writer[buffer] = i;
    }
    if (fn->info[i].side_effect) {
      if (last_effect >= 0) preds[i].push_back(last_effect);
      last_effect = i;
    }
  }
  for (auto [a, b] : extra_edges) {
    if (a < b && b < n) preds[b].push_back(a);
  }
  std::vector<std::vector<int32_t>> succs(n);
  fn->dep_count.assign(n, 0);
  fn->total_cost = 0;
  for (int32_t i = 0; i < n; ++i) {
    auto& p = preds[i];
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    for (int32_t a : p) {
      if (a == i) continue;
      succs[a].push_back(i);
      ++fn->dep_count[i];
    }
    // Saturating: control flow costs "very large" (INT64_MAX / 4).
    fn->total_cost = std::min(fn->total_cost + std::min(fn->code[i].cost, INT64_MAX / 4),
                              INT64_MAX / 2);
  }
  fn->succ_begin.assign(n + 1, 0);
  fn->succ.clear();
  for (int32_t i = 0; i < n; ++i) {
    fn->succ_begin[i] = static_cast<int32_t>(fn->succ.size());
    fn->succ.insert(fn->succ.end(), succs[i].begin(), succs[i].end());
  }
  fn->succ_begin[n] = static_cast<int32_t>(fn->succ.size());
  // Loops and conditionals (cost "very large": their trip counts are
  // unknown) do not count: a loop body holding two short inner loops would
  // otherwise pay the parallel executor's bookkeeping on every trip, which
  // in scalar-heavy models cost more than the loops themselves.
  int64_t large = 0;
  for (const Instr& instr : fn->code) {
    large += instr.cost >= kSpawnCost && instr.cost < INT64_MAX / 4;
  }
  fn->parallel = large >= 2 && fn->total_cost >= kParallelFunctionBytes;

  // Resolve the register lists now that the pool no longer grows.
  for (int32_t i = 0; i < n; ++i) {
    fn->code[i].in = fn->reg_pool.data() + fn->info[i].in_offset;
    fn->code[i].out = fn->reg_pool.data() + fn->info[i].out_offset;
  }
  return absl::OkStatus();
}

absl::flat_hash_set<const Function*> FunctionsInCallerArenas(const Program& program) {
  absl::flat_hash_map<const HloComputation*, std::vector<const Function*>> of;
  for (const auto& fn : program.functions) {
    if (fn->computation != nullptr) of[fn->computation].push_back(fn.get());
  }
  absl::flat_hash_set<const Function*> out;
  for (const auto& fn : program.functions) {
    for (size_t i = 0; i < fn->code.size(); ++i) {
      const Instr& instr = fn->code[i];
      bool frames = false;
      for (uint32_t k = 0; k < instr.num_out; ++k) frames |= fn->regs[instr.out[k]].frames;
      if (!frames || fn->info[i].hlo == nullptr) continue;
      for (const HloComputation* c : fn->info[i].hlo->called_computations()) {
        if (auto it = of.find(c); it != of.end()) out.insert(it->second.begin(), it->second.end());
      }
    }
  }
  return out;
}

}  // namespace vm
}  // namespace hlovm
