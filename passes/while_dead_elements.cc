#include "passes/while_dead_elements.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

// Which state elements each instruction of the body depends on, as bit
// sets over the n elements, indexed by list position (scratch).
class ElementDependence {
 public:
  ElementDependence(const HloComputation& body, const HloInstruction* param, int64_t n)
      : words_((n + 63) / 64) {
    const std::vector<HloInstruction*> order = PostOrder(body);  // numbers the list
    bits_.assign(body.instructions().size() * words_, 0);
    for (const HloInstruction* i : order) {
      uint64_t* row = Row(i);
      if (i->opcode() == HloOpcode::kGetTupleElement && i->operand(0) == param) {
        row[i->tuple_index / 64] |= uint64_t{1} << (i->tuple_index % 64);
        continue;
      }
      for (const HloInstruction* o : i->operands()) {
        const uint64_t* from = Row(o);
        for (size_t w = 0; w < words_; ++w) row[w] |= from[w];
      }
    }
  }
  size_t words() const { return words_; }
  // The elements `i` depends on, words() words of bits.
  const uint64_t* Row(const HloInstruction* i) const { return bits_.data() + i->scratch * words_; }
  // Whether `i` depends on any element of `elements` (words() words).
  bool DependsOnAny(const HloInstruction* i, const std::vector<uint64_t>& elements) const {
    const uint64_t* row = Row(i);
    for (size_t w = 0; w < words_; ++w) {
      if ((row[w] & elements[w]) != 0) return true;
    }
    return false;
  }

 private:
  uint64_t* Row(const HloInstruction* i) { return bits_.data() + i->scratch * words_; }

  size_t words_;
  std::vector<uint64_t> bits_;
};

// Removes the dead elements of one loop; returns how many.
int64_t Shrink(HloInstruction* loop, HloComputation* caller, EffectAnalysis& effects,
               NameUniquer& names,
               const absl::flat_hash_map<const HloComputation*, int64_t>& call_sites) {
  const std::optional<TupleLoop> parts = AsTupleLoop(loop, call_sites);
  if (!parts.has_value()) return 0;
  const int64_t n = parts->n;
  HloComputation* body = parts->body;
  HloComputation* cond = parts->cond;

  // Candidates: not read after the loop, not read by the condition.
  const TupleReaders readers = ReadersOf(*caller, loop);
  if (readers.whole) return 0;
  std::vector<bool> dead(n, true);
  for (const HloInstruction* u : readers.elements) dead[u->tuple_index] = false;
  for (const auto& u : cond->instructions()) {
    if (u->opcode() == HloOpcode::kGetTupleElement && u->operand(0) == cond->parameter(0)) {
      dead[u->tuple_index] = false;
    }
  }
  if (std::find(dead.begin(), dead.end(), true) == dead.end()) return 0;
  // A candidate stays dead while no live element and no side effect of the
  // body depends on it.
  const ElementDependence depends(*body, parts->param, n);
  std::vector<const HloInstruction*> effectful;
  for (const auto& i : body->instructions()) {
    if (effects.HasEffect(*i)) effectful.push_back(i.get());
  }
  // The candidates as bits; an element found live goes on the worklist,
  // whose elements keep alive what their next values depend on.
  std::vector<uint64_t> dead_bits(depends.words(), 0);
  std::vector<int64_t> work;
  for (int64_t e = 0; e < n; ++e) {
    if (dead[e]) {
      dead_bits[e / 64] |= uint64_t{1} << (e % 64);
    } else {
      work.push_back(e);
    }
  }
  auto keep_what_feeds = [&](const HloInstruction* i) {
    const uint64_t* row = depends.Row(i);
    for (size_t w = 0; w < dead_bits.size(); ++w) {
      uint64_t now_live = dead_bits[w] & row[w];
      dead_bits[w] &= ~now_live;
      for (; now_live != 0; now_live &= now_live - 1) {
        work.push_back(static_cast<int64_t>(w * 64 + __builtin_ctzll(now_live)));
      }
    }
  };
  for (const HloInstruction* i : effectful) keep_what_feeds(i);
  while (!work.empty()) {
    const int64_t e = work.back();
    work.pop_back();
    keep_what_feeds(parts->root->operand(e));
  }
  for (int64_t e = 0; e < n; ++e) dead[e] = (dead_bits[e / 64] >> (e % 64) & 1) != 0;
  std::vector<int64_t> new_index(n, -1);
  std::vector<int64_t> kept;
  for (int64_t e = 0; e < n; ++e) {
    if (dead[e]) continue;
    new_index[e] = static_cast<int64_t>(kept.size());
    kept.push_back(e);
  }
  const int64_t removed = n - static_cast<int64_t>(kept.size());
  // (A loop left with no state at all is left as it is.)
  if (removed == 0 || kept.empty()) return 0;

  // The body: what depends on a dead element goes (it feeds dead elements
  // only); the rest reads the renumbered state.
  std::vector<bool> gone(body->instructions().size(), false);
  for (const auto& i : body->instructions()) {
    if (i.get() != parts->root && depends.DependsOnAny(i.get(), dead_bits)) gone[i->scratch] = true;
  }
  std::vector<HloInstruction*> root_elements;
  for (int64_t e : kept) root_elements.push_back(parts->root->operand(e));
  const size_t caller_size = caller->instructions().size();
  const std::vector<HloInstruction*> init_elements =
      ElementsOf(*caller, loop->operand(0), kept, names);
  HloInstruction* new_init =
      caller->AddInstruction(MakeTuple(init_elements, names.Get(loop->name() + ".init")));
  MoveAppendedBefore(*caller, caller_size, {{loop, caller_size, caller->instructions().size()}});
  const Shape& shape = new_init->shape();

  gone[parts->root->scratch] = true;
  body->set_root(
      body->AddInstruction(MakeTuple(root_elements, names.Get(parts->root->name()))));
  RemoveAt(*body, gone);
  for (HloComputation* c : {body, cond}) {
    *c->parameter(0)->mutable_shape() = shape;
    for (const auto& i : c->instructions()) {
      if (i->opcode() == HloOpcode::kGetTupleElement && i->operand(0) == c->parameter(0)) {
        SetTupleIndex(i.get(), new_index[i->tuple_index]);
      }
    }
  }
  loop->ReplaceOperand(0, new_init);
  *loop->mutable_shape() = shape;
  for (HloInstruction* u : readers.elements) SetTupleIndex(u, new_index[u->tuple_index]);
  return removed;
}

}  // namespace

absl::StatusOr<PassResult> RunWhileDeadElements(HloModule& module, NameUniquer* shared_names) {
  EffectAnalysis effects;
  std::optional<NameUniquer> own_names;
  NameUniquer& names = shared_names != nullptr ? *shared_names : own_names.emplace(module);
  int64_t removed = 0, loops = 0;
  absl::flat_hash_map<const HloComputation*, int64_t> call_sites;
  ForEachWhileLoop(module, call_sites, [&](HloComputation* caller, HloInstruction* loop) {
    const int64_t r = Shrink(loop, caller, effects, names, call_sites);
    removed += r;
    loops += r > 0;
  });
  PassResult result;
  result.changes = removed;
  result.detail = absl::StrCat("removed ", removed, " dead elements of ", loops, " loops");
  return result;
}

}  // namespace hlovm::passes
