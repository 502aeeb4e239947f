#include "passes/ir_util.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

namespace hlovm::passes {

namespace {

// Per opcode: 0 no effect, 1 an effect, 2 an effect where the custom call
// says so.
std::array<uint8_t, HloOpcodeCount()> EffectByOpcode() {
  std::array<uint8_t, HloOpcodeCount()> table{};
  for (int k = 0; k < HloOpcodeCount(); ++k) {
    const HloOpcode op = static_cast<HloOpcode>(k);
    bool effect = HloOpcodeHasSideEffect(op) || HloOpcodeFamily(op) == OpFamily::kCollective;
    switch (op) {
      case HloOpcode::kRng:
      case HloOpcode::kRngBitGenerator:
      case HloOpcode::kRngGetAndUpdateState:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kInfeed:
      case HloOpcode::kOutfeed:
      case HloOpcode::kSend:
      case HloOpcode::kSendDone:
      case HloOpcode::kRecv:
      case HloOpcode::kRecvDone:
      case HloOpcode::kAfterAll:
      case HloOpcode::kAddDependency:
        effect = true;
        break;
      default:
        break;
    }
    table[k] = effect ? 1 : op == HloOpcode::kCustomCall ? 2 : 0;
  }
  return table;
}

}  // namespace

bool IsDirectlyEffectful(const HloInstruction& instr) {
  static const std::array<uint8_t, HloOpcodeCount()> kEffect = EffectByOpcode();
  switch (kEffect[static_cast<int>(instr.opcode())]) {
    case 0:
      return false;
    case 1:
      return true;
    default:
      return instr.attrs().custom_call_has_side_effect ||
             instr.attrs().custom_call_target.rfind("check.", 0) == 0;
  }
}

bool EffectAnalysis::ComputationHasEffect(const HloComputation& computation) {
  auto it = memo_.find(&computation);
  if (it != memo_.end()) return it->second;
  memo_[&computation] = false;  // recursion guard (the IR has no recursion)
  bool effect = false;
  for (const auto& instr : computation.instructions()) {
    if (HasEffect(*instr)) {
      effect = true;
      break;
    }
  }
  memo_[&computation] = effect;
  return effect;
}

bool EffectAnalysis::HasEffect(const HloInstruction& instr) {
  if (IsDirectlyEffectful(instr)) return true;
  for (const HloComputation* c : instr.called_computations()) {
    if (c != nullptr && ComputationHasEffect(*c)) return true;
  }
  return false;
}

namespace {

// Whether `d` is no instruction of this computation (null, or another's:
// never in a verified module), or one the walk numbered before `position`.
// An instruction of this computation not numbered yet in this walk still
// holds a number from an earlier one, which is at least `position` or the
// position of another instruction.
bool NumberedBefore(const HloComputation& computation, const HloInstruction* d, uint32_t position) {
  return d == nullptr || d->parent() != &computation ||
         (d->scratch < position && computation.instructions()[d->scratch].get() == d);
}

}  // namespace

std::vector<HloInstruction*> PostOrder(const HloComputation& computation, bool* has_control) {
  const auto& list = computation.instructions();
  const uint32_t n_instr = static_cast<uint32_t>(list.size());
  // One sweep numbers each instruction with its position in `scratch` and
  // tests that every operand and control predecessor came before it.
  bool in_order = true;
  bool control = false;
  auto before = [&](const HloInstruction* d, uint32_t k) {
    return NumberedBefore(computation, d, k);
  };
  for (uint32_t k = 0; k < n_instr; ++k) {
    PrefetchAhead(list, k);
    const HloInstruction& i = *list[k];
    i.scratch = k;
    if (!in_order) continue;
    for (const HloInstruction* d : i.operands()) in_order &= before(d, k);
    if (!i.control_predecessors().empty()) {
      control = true;
      for (const HloInstruction* d : i.control_predecessors()) in_order &= before(d, k);
    }
  }
  if (!in_order) {
    for (const auto& i : list) control |= !i->control_predecessors().empty();
  }
  if (has_control != nullptr) *has_control = control;
  // A list whose operands all come first is its own post order (the walk
  // below would visit it in list order).
  if (in_order) {
    std::vector<HloInstruction*> order;
    order.reserve(n_instr);
    for (const auto& i : list) order.push_back(i.get());
    return order;
  }
  return PostOrderOfRest(computation, 0, n_instr);
}

bool OperandsBefore(const HloComputation& computation, const HloInstruction& instr,
                    uint32_t position) {
  for (const HloInstruction* d : instr.operands()) {
    if (!NumberedBefore(computation, d, position)) return false;
  }
  return true;
}

std::vector<HloInstruction*> PostOrderOfRest(const HloComputation& computation, uint32_t first,
                                             uint32_t end) {
  const auto& list = computation.instructions();
  for (uint32_t k = first; k < end; ++k) list[k]->scratch = k;
  auto local = [&](const HloInstruction* d) {
    return d != nullptr && d->parent() == &computation && d->scratch < end &&
           list[d->scratch].get() == d;
  };
  std::vector<HloInstruction*> order;
  order.reserve(end - first);
  std::vector<uint8_t> state(end, 0);  // 0 new, 1 on the stack, 2 done
  std::fill(state.begin(), state.begin() + first, 2);
  struct Item {
    HloInstruction* instr;
    uint32_t next;
  };
  std::vector<Item> stack;
  for (uint32_t s = first; s < end; ++s) {
    if (state[s] != 0) continue;
    stack.push_back({list[s].get(), 0});
    state[s] = 1;
    while (!stack.empty()) {
      Item& top = stack.back();
      HloInstruction* i = top.instr;
      const size_t n_ops = i->operands().size();
      const size_t n = n_ops + i->control_predecessors().size();
      if (top.next == n) {
        state[i->scratch] = 2;
        order.push_back(i);
        stack.pop_back();
        continue;
      }
      const size_t k = top.next++;
      HloInstruction* d = k < n_ops ? i->operand(k) : i->control_predecessors()[k - n_ops];
      if (!local(d) || state[d->scratch] != 0) continue;
      state[d->scratch] = 1;
      stack.push_back({d, 0});
    }
  }
  return order;
}

std::vector<bool> OnControlEdges(const HloComputation& computation, bool has_control) {
  const auto& list = computation.instructions();
  std::vector<bool> ends(list.size(), false);
  if (!has_control) return ends;
  for (const auto& i : list) {
    if (i->control_predecessors().empty()) continue;
    ends[i->scratch] = true;
    for (const HloInstruction* p : i->control_predecessors()) {
      if (p->parent() == &computation) ends[p->scratch] = true;
    }
  }
  return ends;
}

TupleReaders ReadersOf(const HloComputation& computation, const HloInstruction* tuple) {
  TupleReaders readers;
  readers.whole = computation.root() == tuple;
  for (const auto& u : computation.instructions()) {
    for (const HloInstruction* o : u->operands()) {
      if (o != tuple) continue;
      if (u->opcode() == HloOpcode::kGetTupleElement) {
        readers.elements.push_back(u.get());
      } else {
        readers.whole = true;
      }
      break;
    }
  }
  return readers;
}

void ReplaceAllUses(HloComputation& computation, HloInstruction* from, HloInstruction* to,
                    const absl::flat_hash_set<const HloInstruction*>& except) {
  for (const auto& instr : computation.instructions()) {
    if (except.contains(instr.get())) continue;
    for (int64_t k = 0; k < instr->operand_count(); ++k) {
      if (instr->operand(k) == from) instr->ReplaceOperand(k, to);
    }
  }
  if (computation.root() == from) computation.set_root(to);
}

PointerTable::PointerTable(size_t count) {
  size_t capacity = 16;
  int bits = 4;
  while (capacity < 4 * count) {
    capacity *= 2;
    ++bits;
  }
  keys_.assign(capacity, nullptr);
  values_.assign(capacity, nullptr);
  mask_ = capacity - 1;
  shift_ = 64 - bits;
}

void PointerTable::Insert(const HloInstruction* key, HloInstruction* value) {
  size_t s = Slot(key);
  while (keys_[s] != nullptr && keys_[s] != key) s = (s + 1) & mask_;
  keys_[s] = key;
  values_[s] = value;
}

namespace {

// Points the operand slots of `instr` that name a key of `to` at its value.
void ReplaceOperandsFrom(HloInstruction* instr, const PointerTable& to) {
  for (int64_t k = 0; k < instr->operand_count(); ++k) {
    if (HloInstruction* r = to.Find(instr->operand(k)); r != nullptr) instr->ReplaceOperand(k, r);
  }
}

PointerTable TableOf(const absl::flat_hash_map<const HloInstruction*, HloInstruction*>& map) {
  PointerTable to(map.size());
  for (const auto& [from, replacement] : map) to.Insert(from, replacement);
  return to;
}

}  // namespace

void ReplaceUses(HloComputation& computation,
                 const absl::flat_hash_map<const HloInstruction*, HloInstruction*>& map,
                 const absl::flat_hash_set<const HloInstruction*>& except) {
  if (map.empty()) return;
  const PointerTable to = TableOf(map);
  const auto& list = computation.instructions();
  for (size_t j = 0; j < list.size(); ++j) {
    PrefetchAhead(list, j);
    HloInstruction* instr = list[j].get();
    if (!except.empty() && except.contains(instr)) continue;
    ReplaceOperandsFrom(instr, to);
  }
  if (HloInstruction* r = to.Find(computation.root()); r != nullptr) computation.set_root(r);
}

void ReplaceUsesIn(HloComputation& computation, const std::vector<HloInstruction*>& readers,
                   const absl::flat_hash_map<const HloInstruction*, HloInstruction*>& map) {
  if (map.empty()) return;
  const PointerTable to = TableOf(map);
  for (HloInstruction* reader : readers) ReplaceOperandsFrom(reader, to);
  if (HloInstruction* r = to.Find(computation.root()); r != nullptr) computation.set_root(r);
}

void ForwardReplacedOperands(HloInstruction* instr, const Replacements& replaced) {
  if (replaced.empty()) return;
  for (int64_t k = 0; k < instr->operand_count(); ++k) {
    if (HloInstruction* to = replaced.Find(instr->operand(k)); to != nullptr) {
      instr->ReplaceOperand(k, to);
    }
  }
}

void RemoveReplaced(HloComputation& computation, const Replacements& replaced) {
  if (replaced.empty()) return;
  if (HloInstruction* to = replaced.Find(computation.root()); to != nullptr) {
    computation.set_root(to);
  }
  // The list has only grown since it was numbered: positions still hold.
  const auto& list = computation.instructions();
  std::vector<bool> dead(list.size(), false);
  for (size_t k = 0; k < list.size(); ++k) dead[k] = replaced.ReplacedAt(k);
  RemoveAt(computation, dead);
}

void RemoveAt(HloComputation& computation, const std::vector<bool>& dead) {
  auto& list =
      const_cast<std::vector<std::unique_ptr<HloInstruction>>&>(computation.instructions());
  size_t kept = 0;
  for (size_t k = 0; k < list.size(); ++k) {
    if (k < dead.size() && dead[k] && list[k]->opcode() != HloOpcode::kParameter) continue;
    if (kept != k) list[kept] = std::move(list[k]);
    ++kept;
  }
  list.resize(kept);
}

void RemoveInstructions(HloComputation& computation,
                        const absl::flat_hash_set<const HloInstruction*>& dead) {
  if (dead.empty()) return;
  PointerTable table(dead.size());
  for (const HloInstruction* i : dead) table.Insert(i, nullptr);
  auto& list =
      const_cast<std::vector<std::unique_ptr<HloInstruction>>&>(computation.instructions());
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const std::unique_ptr<HloInstruction>& i) {
                              return table.Contains(i.get()) &&
                                     i->opcode() != HloOpcode::kParameter;
                            }),
             list.end());
}

void MoveAppendedBefore(HloComputation& computation, size_t original_size,
                        const std::vector<AppendedRange>& ranges) {
  if (ranges.empty()) return;
  auto& list =
      const_cast<std::vector<std::unique_ptr<HloInstruction>>&>(computation.instructions());
  // The anchors' positions: where a walk has just numbered the list (and
  // it has only grown since), each anchor still holds its own.
  bool numbered = true;
  for (const AppendedRange& r : ranges) {
    numbered &= r.anchor->scratch < original_size && list[r.anchor->scratch].get() == r.anchor;
  }
  if (!numbered) {
    for (size_t k = 0; k < original_size; ++k) list[k]->scratch = static_cast<uint32_t>(k);
  }
  // The ranges by anchor position (stable, so their given order holds).
  std::vector<size_t> by_anchor(ranges.size());
  for (size_t r = 0; r < ranges.size(); ++r) by_anchor[r] = r;
  std::stable_sort(by_anchor.begin(), by_anchor.end(), [&](size_t a, size_t b) {
    return ranges[a].anchor->scratch < ranges[b].anchor->scratch;
  });
  std::vector<std::unique_ptr<HloInstruction>> moved;
  moved.reserve(list.size());
  size_t next = 0;
  for (size_t k = 0; k < original_size; ++k) {
    for (; next < by_anchor.size() && ranges[by_anchor[next]].anchor->scratch == k; ++next) {
      const AppendedRange& r = ranges[by_anchor[next]];
      for (size_t j = r.begin; j < r.end; ++j) moved.push_back(std::move(list[j]));
    }
    moved.push_back(std::move(list[k]));
  }
  // Anything appended outside the ranges stays at the end.
  for (size_t j = original_size; j < list.size(); ++j) {
    if (list[j] != nullptr) moved.push_back(std::move(list[j]));
  }
  list = std::move(moved);
}

void RemoveComputations(HloModule& module,
                        const absl::flat_hash_set<const HloComputation*>& dead) {
  if (dead.empty()) return;
  auto& list =
      const_cast<std::vector<std::unique_ptr<HloComputation>>&>(module.computations());
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const std::unique_ptr<HloComputation>& c) {
                              return c.get() != module.entry() && dead.contains(c.get());
                            }),
             list.end());
}

std::unique_ptr<HloInstruction> CloneInstruction(const HloInstruction& instr, std::string name) {
  // Literals are move-only, so the instruction is copied field by field
  // (every field of HloInstruction; a new field needs a line here), its
  // OpAttributes as a whole.
  auto copy = std::make_unique<HloInstruction>(instr.opcode(), std::move(name), instr.shape());
  for (HloInstruction* o : instr.operands()) copy->AppendOperand(o);
  for (HloComputation* c : instr.called_computations()) copy->AppendCalledComputation(c);
  for (HloInstruction* p : instr.control_predecessors()) copy->AddControlPredecessor(p);
  copy->set_location(instr.location());
  copy->raw_attributes() = instr.raw_attributes();
  copy->parameter_number = instr.parameter_number;
  copy->tuple_index = instr.tuple_index;
  copy->dimensions = instr.dimensions;
  copy->iota_dimension = instr.iota_dimension;
  copy->slice = instr.slice;
  if (instr.has_attrs()) copy->set_attrs(instr.attrs());
  copy->comparison_direction = instr.comparison_direction;
  copy->comparison_type = instr.comparison_type;
  if (instr.literal.has_value()) copy->literal = instr.literal->Clone();
  if (instr.custom_call_literal.has_value()) {
    copy->custom_call_literal = instr.custom_call_literal->Clone();
  }
  return copy;
}

HloInstruction* CopyComputationInto(
    const HloComputation& callee, HloComputation& caller, NameUniquer& names,
    absl::flat_hash_map<const HloInstruction*, HloInstruction*>& map) {
  for (HloInstruction* i : PostOrder(callee)) {
    if (map.contains(i)) continue;
    auto copy = CloneInstruction(*i, names.Get(i->name()));
    for (int64_t k = 0; k < copy->operand_count(); ++k) {
      copy->ReplaceOperand(k, map.at(copy->operand(k)));
    }
    map[i] = caller.AddInstruction(std::move(copy));
  }
  return map.at(callee.root());
}

void SetTupleIndex(HloInstruction* gte, int64_t index) {
  gte->tuple_index = index;
  SetRawAttribute(gte, "index", absl::StrCat(index));
}

void SetRawAttribute(HloInstruction* instr, std::string_view name, std::string value) {
  RawAttributes& raw = instr->raw_attributes();
  if (!raw.empty()) raw.Set(name, value);
}

std::unique_ptr<HloInstruction> MakeGetTupleElement(HloInstruction* tuple, int64_t index,
                                                    std::string name) {
  auto gte = std::make_unique<HloInstruction>(HloOpcode::kGetTupleElement, std::move(name),
                                              tuple->shape().tuple_shapes()[index]);
  gte->AppendOperand(tuple);
  gte->tuple_index = index;
  return gte;
}

std::unique_ptr<HloInstruction> MakeTuple(const std::vector<HloInstruction*>& elements,
                                          std::string name) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const HloInstruction* e : elements) shapes.push_back(e->shape());
  auto tuple =
      std::make_unique<HloInstruction>(HloOpcode::kTuple, std::move(name), Shape::Tuple(shapes));
  for (HloInstruction* e : elements) tuple->AppendOperand(e);
  return tuple;
}

std::vector<HloInstruction*> ElementsOf(HloComputation& computation, HloInstruction* tuple,
                                        const std::vector<int64_t>& indices, NameUniquer& names) {
  std::vector<HloInstruction*> elements;
  for (int64_t k : indices) {
    elements.push_back(tuple->opcode() == HloOpcode::kTuple
                           ? tuple->operand(k)
                           : computation.AddInstruction(MakeGetTupleElement(
                                 tuple, k, names.Get(tuple->name() + ".elt"))));
  }
  return elements;
}

NameUniquer::NameUniquer(const HloModule& module, ModuleNameKeys* collected) : module_(&module) {
  if (collected != nullptr) {
    keys_ = std::move(*collected);
    filled_ = true;
  }
}

void NameUniquer::BeginCollecting() { keys_.ReserveFor(*module_); }

void NameUniquer::Fill() {
  filled_ = true;
  BeginCollecting();
  // Each name costs two cache misses (the instruction, then the text of a
  // long name): the instructions are touched ahead of the names read.
  constexpr size_t kAhead = 8;
  for (const auto& c : module_->computations()) {
    Add(Key(c->name()));
    const auto& list = c->instructions();
    for (size_t k = 0; k < list.size(); ++k) {
      if (k + 2 * kAhead < list.size()) __builtin_prefetch(&list[k + 2 * kAhead]->name());
      if (k + kAhead < list.size()) __builtin_prefetch(list[k + kAhead]->name().data());
      Add(Key(list[k]->name()));
    }
  }
}

bool NameUniquer::Unique(std::string_view name) {
  if (!filled_) Fill();
  return keys_.repeated.empty() || !keys_.repeated.contains(Key(name));
}

std::string NameUniquer::Get(std::string_view base) {
  if (!filled_) Fill();
  // Each name is hashed once.
  const uint64_t base_key = Key(base);
  if (!keys_.seen.contains(base_key)) {
    Add(base_key);
    return std::string(base);
  }
  const absl::string_view view(base.data(), base.size());
  int64_t& n = next_suffix_[base_key];
  std::string name;
  uint64_t key;
  do {
    name = absl::StrCat(view, ".", ++n);
    key = Key(name);
  } while (keys_.seen.contains(key));
  Add(key);
  return name;
}

void ForEachWhileLoop(HloModule& module,
                      absl::flat_hash_map<const HloComputation*, int64_t>& call_sites,
                      absl::FunctionRef<void(HloComputation* caller, HloInstruction* loop)> f) {
  call_sites.clear();
  std::vector<std::pair<HloComputation*, HloInstruction*>> loops;
  for (const auto& c : module.computations()) {
    const auto& list = c->instructions();
    for (size_t k = 0; k < list.size(); ++k) {
      PrefetchAhead(list, k);
      HloInstruction* i = list[k].get();
      if (i->opcode() == HloOpcode::kWhile) loops.emplace_back(c.get(), i);
      for (const HloComputation* callee : i->called_computations()) ++call_sites[callee];
    }
  }
  for (const auto& [caller, loop] : loops) f(caller, loop);
}

namespace {

bool OnlyReadByGetTupleElement(const HloComputation& computation, const HloInstruction* param) {
  for (const auto& u : computation.instructions()) {
    if (u->opcode() == HloOpcode::kGetTupleElement) continue;
    for (const HloInstruction* o : u->operands()) {
      if (o == param) return false;
    }
  }
  return computation.root() != param;
}

}  // namespace

std::optional<TupleLoop> AsTupleLoop(
    HloInstruction* loop, const absl::flat_hash_map<const HloComputation*, int64_t>& call_sites) {
  if (loop->opcode() != HloOpcode::kWhile || loop->called_computations().size() != 2 ||
      loop->operand_count() != 1 || !loop->shape().IsTuple() ||
      !loop->control_predecessors().empty()) {
    return std::nullopt;
  }
  TupleLoop l;
  l.cond = loop->called_computations()[0];
  l.body = loop->called_computations()[1];
  if (l.cond == nullptr || l.body == nullptr || l.cond == l.body) return std::nullopt;
  auto count = [&](const HloComputation* c) {
    auto it = call_sites.find(c);
    return it == call_sites.end() ? 0 : it->second;
  };
  if (count(l.cond) != 1 || count(l.body) != 1) return std::nullopt;
  if (l.body->parameter_count() != 1 || l.cond->parameter_count() != 1) return std::nullopt;
  l.root = l.body->root();
  l.param = l.body->parameter(0);
  l.n = loop->shape().tuple_size();
  if (l.root == nullptr || l.root->opcode() != HloOpcode::kTuple ||
      l.root->operand_count() != l.n || HasControlDependencies(*l.body) ||
      HasControlDependencies(*l.cond) || !OnlyReadByGetTupleElement(*l.body, l.param) ||
      !OnlyReadByGetTupleElement(*l.cond, l.cond->parameter(0))) {
    return std::nullopt;
  }
  return l;
}

bool HasControlDependencies(const HloComputation& computation) {
  for (const auto& i : computation.instructions()) {
    if (!i->control_predecessors().empty()) return true;
  }
  return false;
}

}  // namespace hlovm::passes
