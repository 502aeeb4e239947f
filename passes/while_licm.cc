#include "passes/while_licm.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

// Opcodes not worth a loop-carried buffer by themselves: moving them saves
// (almost) nothing.
bool IsCheap(HloOpcode op) {
  switch (op) {
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBitcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBroadcast:
      return true;
    default:
      return false;
  }
}

bool ShapeHasToken(const Shape& shape) {
  if (shape.IsToken() || shape.IsOpaque()) return true;
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      if (ShapeHasToken(s)) return true;
    }
  }
  return false;
}

// Hoists out of one while loop; returns how many instructions moved.
// `call_sites` counts the calls of the copies it makes too.
int64_t HoistOutOf(HloInstruction* loop, HloComputation* caller, EffectAnalysis& effects,
                   NameUniquer& names,
                   absl::flat_hash_map<const HloComputation*, int64_t>& call_sites) {
  const std::optional<TupleLoop> parts = AsTupleLoop(loop, call_sites);
  if (!parts.has_value()) return 0;
  HloComputation* cond = parts->cond;
  HloComputation* body = parts->body;
  HloInstruction* param = parts->param;
  HloInstruction* root = parts->root;
  const int64_t n = parts->n;

  // Tuple elements the body passes through unchanged.
  std::vector<bool> passthrough(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction* op = root->operand(i);
    passthrough[i] = op->opcode() == HloOpcode::kGetTupleElement && op->operand(0) == param &&
                     op->tuple_index == i;
  }

  // Sets of the body's instructions, by the positions PostOrder numbers
  // them with (HloInstruction::scratch).
  const std::vector<HloInstruction*> order = PostOrder(*body);
  const size_t size = body->instructions().size();
  std::vector<bool> invariant(size, false), in_frontier(size, false), needed(size, false);
  bool worth = false;
  for (HloInstruction* i : order) {
    if (i == param || i == root) continue;
    if (i->opcode() == HloOpcode::kGetTupleElement && i->operand(0) == param) {
      if (passthrough[i->tuple_index]) invariant[i->scratch] = true;
      continue;
    }
    if (i->opcode() == HloOpcode::kParameter || effects.HasEffect(*i) ||
        i->opcode() == HloOpcode::kCustomCall || ShapeHasToken(i->shape())) {
      continue;
    }
    bool all = true;
    for (const HloInstruction* o : i->operands()) all &= invariant[o->scratch];
    if (!all) continue;
    invariant[i->scratch] = true;
    if (!IsCheap(i->opcode())) worth = true;
  }
  if (!worth) return 0;

  // The invariant values some variant instruction (or the root) reads.
  std::vector<HloInstruction*> frontier;
  for (HloInstruction* i : order) {
    if (invariant[i->scratch]) continue;
    for (HloInstruction* o : i->operands()) {
      if (!invariant[o->scratch] || in_frontier[o->scratch]) continue;
      // Constants and pass-through elements are as cheap inside the loop.
      if (o->opcode() == HloOpcode::kConstant ||
          (o->opcode() == HloOpcode::kGetTupleElement && o->operand(0) == param)) {
        continue;
      }
      in_frontier[o->scratch] = true;
      frontier.push_back(o);
    }
  }
  if (frontier.empty()) return 0;
  bool frontier_worth = false;
  // Needed invariant instructions: everything the frontier reads.
  std::vector<const HloInstruction*> stack(frontier.begin(), frontier.end());
  for (const HloInstruction* f : frontier) needed[f->scratch] = true;
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    if (!IsCheap(i->opcode())) frontier_worth = true;
    for (const HloInstruction* o : i->operands()) {
      if (o == param || needed[o->scratch]) continue;
      needed[o->scratch] = true;
      stack.push_back(o);
    }
  }
  if (!frontier_worth) return 0;

  // The loop's initial elements, in the caller. What is added to the caller
  // goes before the loop (and what reads the loop, after it), so that the
  // caller's list keeps its operands first (MoveAppendedBefore).
  const size_t caller_size = caller->instructions().size();
  std::vector<int64_t> all(n);
  for (int64_t i = 0; i < n; ++i) all[i] = i;
  const std::vector<HloInstruction*> elements = ElementsOf(*caller, loop->operand(0), all, names);
  // Copies of the needed invariant instructions in the caller.
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  int64_t moved = 0;
  for (HloInstruction* i : order) {
    if (!needed[i->scratch]) continue;
    if (i->opcode() == HloOpcode::kGetTupleElement && i->operand(0) == param) {
      map[i] = elements[i->tuple_index];
      continue;
    }
    auto copy = CloneInstruction(*i, names.Get(i->name()));
    for (const HloComputation* c : copy->called_computations()) ++call_sites[c];
    for (int64_t k = 0; k < copy->operand_count(); ++k) {
      copy->ReplaceOperand(k, map.at(copy->operand(k)));
    }
    map[i] = caller->AddInstruction(std::move(copy));
    if (i->opcode() != HloOpcode::kConstant) ++moved;
  }

  // The loop carries the frontier values as new trailing elements.
  std::vector<HloInstruction*> new_elements = elements;
  for (HloInstruction* f : frontier) new_elements.push_back(map.at(f));
  HloInstruction* new_init =
      caller->AddInstruction(MakeTuple(new_elements, names.Get(loop->name() + ".init")));
  const Shape& new_shape = new_init->shape();
  std::vector<AppendedRange> caller_ranges = {{loop, caller_size, caller->instructions().size()}};

  // Users of the loop value itself (not through get-tuple-element) keep the
  // old shape through a tuple of its first n elements.
  const TupleReaders readers = ReadersOf(*caller, loop);
  loop->ReplaceOperand(0, new_init);
  *loop->mutable_shape() = new_shape;
  if (readers.whole) {
    const size_t begin = caller->instructions().size();
    std::vector<HloInstruction*> parts;
    absl::flat_hash_set<const HloInstruction*> except;
    for (int64_t i = 0; i < n; ++i) {
      parts.push_back(
          caller->AddInstruction(MakeGetTupleElement(loop, i, names.Get(loop->name() + ".elt"))));
      except.insert(parts.back());
    }
    HloInstruction* restore =
        caller->AddInstruction(MakeTuple(parts, names.Get(loop->name() + ".result")));
    except.insert(restore);
    for (const HloInstruction* u : readers.elements) except.insert(u);
    ReplaceAllUses(*caller, loop, restore, except);
    // Just after the loop: before the instruction that follows it, if any.
    const auto& list = caller->instructions();
    for (size_t k = 0; k + 1 < caller_size; ++k) {
      if (list[k].get() == loop) {
        caller_ranges.push_back({list[k + 1].get(), begin, list.size()});
        break;
      }
    }
  }
  MoveAppendedBefore(*caller, caller_size, caller_ranges);

  *body->parameter(0)->mutable_shape() = new_shape;
  *cond->parameter(0)->mutable_shape() = new_shape;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> carried;
  std::vector<HloInstruction*> gtes;
  const size_t body_size = body->instructions().size();
  for (size_t k = 0; k < frontier.size(); ++k) {
    HloInstruction* gte = body->AddInstruction(MakeGetTupleElement(
        param, n + static_cast<int64_t>(k), names.Get(frontier[k]->name() + ".hoisted")));
    carried[frontier[k]] = gte;
    gtes.push_back(gte);
  }
  // The new elements are read right after the parameter.
  for (size_t k = 0; k + 1 < body_size; ++k) {
    if (body->instructions()[k].get() == param) {
      MoveAppendedBefore(*body, body_size,
                         {{body->instructions()[k + 1].get(), body_size, body->instructions().size()}});
      break;
    }
  }
  ReplaceUses(*body, carried);
  for (HloInstruction* gte : gtes) root->AppendOperand(gte);
  *root->mutable_shape() = new_shape;
  return moved;
}

}  // namespace

absl::StatusOr<PassResult> RunWhileLicm(HloModule& module, NameUniquer* shared_names) {
  EffectAnalysis effects;
  std::optional<NameUniquer> own_names;
  NameUniquer& names = shared_names != nullptr ? *shared_names : own_names.emplace(module);
  int64_t moved = 0, loops = 0;
  PassResult result;
  absl::flat_hash_map<const HloComputation*, int64_t> call_sites;
  ForEachWhileLoop(module, call_sites, [&](HloComputation* caller, HloInstruction* loop) {
    const int64_t m = HoistOutOf(loop, caller, effects, names, call_sites);
    moved += m;
    loops += m > 0;
    if (m > 0 && (result.grown.empty() || result.grown.back() != caller)) {
      result.grown.push_back(caller);
    }
  });
  result.changes = moved;
  result.detail = absl::StrCat("hoisted ", moved, " instructions out of ", loops, " loops");
  return result;
}

}  // namespace hlovm::passes
