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

}  // namespace

absl::Status PlanFunction(Function* fn, const std::vector<std::pair<int32_t, int32_t>>& extra_edges,
                          bool while_body) {
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

  // Slots: best fit among free slots; in place where the instruction allows.
  std::vector<int64_t>& slot_size = fn->slot_size;
  slot_size.clear();
  std::multimap<int64_t, int32_t> free_slots;  // size -> slot
  std::vector<std::vector<Reg>> dying(n + 1);
  for (Reg r = 0; r < fn->regs.size(); ++r) {
    const RegInfo& info = fn->regs[r];
    if (info.kind == RegKind::kOwned && info.last_use >= 0 && info.last_use < n) {
      dying[info.last_use].push_back(r);
    }
  }
  auto take_slot = [&](int64_t bytes) -> int32_t {
    auto it = free_slots.lower_bound(bytes);
    if (it == free_slots.end() && !free_slots.empty()) it = std::prev(free_slots.end());
    if (it != free_slots.end()) {
      int32_t s = it->second;
      free_slots.erase(it);
      slot_size[s] = std::max(slot_size[s], bytes);
      return s;
    }
    slot_size.push_back(bytes);
    return static_cast<int32_t>(slot_size.size() - 1);
  };
  // Owned registers that no instruction writes (results that are never
  // computed cannot happen; be safe) get a slot up front.
  for (RegInfo& r : fn->regs) {
    if (r.kind == RegKind::kOwned && r.def == -1) r.slot = take_slot(r.bytes);
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
      bool placed = false;
      for (auto it = reusable.begin(); it != reusable.end(); ++it) {
        const int32_t s = *it;
        if (slot_size[s] >= out.bytes) {
          // Exactly the operand's buffer; kernels read and write element i
          // in the same step, so the alias is safe.
          bool same_size = false;
          for (Reg in : in_regs(i)) {
            if (fn->regs[in].slot == s && fn->regs[in].bytes == out.bytes) same_size = true;
          }
          if (!same_size) continue;
          out.slot = s;
          reusable.erase(it);
          placed = true;
          break;
        }
      }
      if (!placed) out.slot = take_slot(out.bytes);
    }
    // Free the slots of what dies here, unless a live result of this
    // instruction took the slot in place.
    std::vector<int32_t> to_free;
    for (Reg r : dying[i]) {
      if (fn->regs[r].slot >= 0) to_free.push_back(fn->regs[r].slot);
    }
    std::sort(to_free.begin(), to_free.end());
    to_free.erase(std::unique(to_free.begin(), to_free.end()), to_free.end());
    for (int32_t s : to_free) {
      bool kept = false;
      for (Reg o : out_regs(i)) {
        const RegInfo& out = fn->regs[o];
        kept |= out.kind == RegKind::kOwned && out.slot == s && out.last_use > i;
      }
      if (!kept) free_slots.emplace(slot_size[s], s);
    }
  }
  fn->slot_offset.assign(slot_size.size(), 0);
  int64_t offset = 0;
  for (size_t s = 0; s < slot_size.size(); ++s) {
    fn->slot_offset[s] = offset;
    offset += AlignUp(std::max<int64_t>(slot_size[s], 1));
  }
  fn->arena_bytes = offset;

  // Dependencies from buffer hazards, per buffer: a slot, or a state
  // parameter written in place (numbered after the slots).
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
  int64_t large = 0;
  for (const Instr& instr : fn->code) large += instr.cost >= kSpawnCost;
  fn->parallel = large >= 2 && fn->total_cost >= kParallelFunctionBytes;

  // Resolve the register lists now that the pool no longer grows.
  for (int32_t i = 0; i < n; ++i) {
    fn->code[i].in = fn->reg_pool.data() + fn->info[i].in_offset;
    fn->code[i].out = fn->reg_pool.data() + fn->info[i].out_offset;
  }
  return absl::OkStatus();
}

}  // namespace vm
}  // namespace hlovm
