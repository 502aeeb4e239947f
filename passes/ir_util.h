// Editing helpers the passes share: side-effect analysis, users, replacing
// uses, removing instructions and computations, cloning, fresh names.
//
// The IR (core/hlo_ir.h) exposes instruction and computation lists read-only;
// removal here edits those lists in place (the objects themselves are not
// const), keeping the invariants the IR documents: parameters are never
// removed and nothing left refers to a removed instruction or computation.
#ifndef HLOVM_PASSES_IR_UTIL_H_
#define HLOVM_PASSES_IR_UTIL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "core/hlo_ir.h"
#include "core/name_keys.h"

namespace hlovm::passes {

// Whether an instruction must run even when nothing uses its value, or must
// not be merged with an identical one: side-effecting opcodes (outfeed,
// send/recv, collectives, ...), custom-calls with side effects and check.*
// calls, rng ops, and any instruction whose called computations contain one.
class EffectAnalysis {
 public:
  bool HasEffect(const HloInstruction& instr);
  bool ComputationHasEffect(const HloComputation& computation);

 private:
  absl::flat_hash_map<const HloComputation*, bool> memo_;
};

// True for the opcodes that are effects by themselves (no callee lookup).
bool IsDirectlyEffectful(const HloInstruction& instr);

// Starts loading what a walk reads of `instr` (its first lines: opcode,
// operands, the common typed attributes, name and shape) before the walk
// gets there. A large module's instructions are not in the cache, and a
// walk that waits for each one in turn spends most of its time waiting;
// walks call it for the instruction kPrefetchAhead places on.
inline constexpr size_t kPrefetchAhead = 8;
inline void Prefetch(const HloInstruction* instr) {
  const char* p = reinterpret_cast<const char*>(instr);
  for (size_t line = 0; line < 4; ++line) __builtin_prefetch(p + 64 * line);
}
// Prefetch(v[k + kPrefetchAhead]) where there is one.
template <class List>
inline void PrefetchAhead(const List& v, size_t k) {
  if (k + kPrefetchAhead < v.size()) Prefetch(&*v[k + kPrefetchAhead]);
}
// The whole of v[k + kPrefetchAhead] and the start of the attributes that
// mostly follow it, for a walk that compares instructions whole (cse: their
// layouts and attributes too).
template <class List>
inline void PrefetchWholeAhead(const List& v, size_t k) {
  if (k + kPrefetchAhead >= v.size()) return;
  const char* p = reinterpret_cast<const char*>(&*v[k + kPrefetchAhead]);
  for (size_t line = 0; line < sizeof(HloInstruction) / 64 + 2; ++line) {
    __builtin_prefetch(p + 64 * line);
  }
}

// Operands before users (every instruction, dead ones included); numbers
// each instruction with its position in the list (scratch). Where
// `has_control` is given, it tells whether any instruction has a control
// predecessor.
std::vector<HloInstruction*> PostOrder(const HloComputation& computation,
                                       bool* has_control = nullptr);

// The instructions on either end of a control edge of `computation`, by the
// positions PostOrder numbered: those that have control predecessors and
// those of the computation named as one. All false, without a sweep, where
// PostOrder found no control edge (`has_control`).
std::vector<bool> OnControlEdges(const HloComputation& computation, bool has_control);

// Whether every operand of `instr` of this computation was numbered (scratch)
// in this walk before `position`.
bool OperandsBefore(const HloComputation& computation, const HloInstruction& instr,
                    uint32_t position);

// A post order of the instructions at positions [first, end) of the list,
// where those before `first` are done (they hold all their operands): the
// rest is numbered with its positions, then walked depth first.
std::vector<HloInstruction*> PostOrderOfRest(const HloComputation& computation, uint32_t first,
                                             uint32_t end);

// Calls f(instr, on_control_edge) once for every instruction of the list of
// `computation` in a post order (operands first), each numbered with its
// position (scratch) before f is given it. Where the computation has no
// control edges and its list is its own post order (the usual case), one
// sweep numbers, checks and visits: f gets an instruction just after its
// operands were checked, while it is still in the cache, instead of a
// second sweep after PostOrder's. f may point the operands of the
// instruction it is given at instructions it was given before, or at ones
// it appends (which are not visited), but must not change an instruction
// before it is given it. kWhole prefetches instructions whole
// (PrefetchWholeAhead) rather than their first lines.
template <bool kWhole = false, class F>
void ForEachInPostOrder(const HloComputation& computation, F&& f) {
  auto prefetch = [](const auto& v, size_t k) {
    if constexpr (kWhole) {
      PrefetchWholeAhead(v, k);
    } else {
      PrefetchAhead(v, k);
    }
  };
  const auto& list = computation.instructions();
  if (computation.may_have_control_edges()) {
    bool has_control = false;
    const std::vector<HloInstruction*> order = PostOrder(computation, &has_control);
    const std::vector<bool> control = OnControlEdges(computation, has_control);
    for (size_t k = 0; k < order.size(); ++k) {
      prefetch(order, k);
      f(order[k], static_cast<bool>(control[order[k]->scratch]));
    }
    return;
  }
  const uint32_t end = static_cast<uint32_t>(list.size());
  for (uint32_t k = 0; k < end; ++k) {
    prefetch(list, k);
    HloInstruction* i = list[k].get();
    i->scratch = k;
    if (!OperandsBefore(computation, *i, k)) {
      // Out of order from here: what was visited holds its operands, so a
      // post order of the rest follows it.
      for (HloInstruction* r : PostOrderOfRest(computation, k, end)) f(r, false);
      return;
    }
    f(i, false);
  }
}

// How `tuple` is read in `computation`: the get-tuple-element users, and
// whether anything reads it whole (another user, or the root being it). One
// sweep over the operands: a users map of a large computation costs more.
struct TupleReaders {
  std::vector<HloInstruction*> elements;
  bool whole = false;
};
TupleReaders ReadersOf(const HloComputation& computation, const HloInstruction* tuple);

// A fixed set of instructions (with a value each) looked up in a walk over
// a large computation: open addressing on the pointer's bits, which costs a
// multiply and, nearly always, one probe of a table kept at most a quarter
// full (a hash map's lookup costs several times that, per operand slot).
class PointerTable {
 public:
  // Room for `count` keys (never null).
  explicit PointerTable(size_t count);
  void Insert(const HloInstruction* key, HloInstruction* value);
  // The value of `key`, or null where it is not in the table.
  HloInstruction* Find(const HloInstruction* key) const {
    for (size_t s = Slot(key);; s = (s + 1) & mask_) {
      if (keys_[s] == nullptr) return nullptr;
      if (keys_[s] == key) return values_[s];
    }
  }
  bool Contains(const HloInstruction* key) const {
    for (size_t s = Slot(key);; s = (s + 1) & mask_) {
      if (keys_[s] == nullptr) return false;
      if (keys_[s] == key) return true;
    }
  }

 private:
  size_t Slot(const HloInstruction* key) const {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(key) * 0x9e3779b97f4a7c15ull) >>
                               shift_);
  }
  std::vector<const HloInstruction*> keys_;
  std::vector<HloInstruction*> values_;
  size_t mask_;
  int shift_;
};

// Points every operand slot and the root that name `from` at `to`, except in
// the instructions of `except`.
void ReplaceAllUses(HloComputation& computation, HloInstruction* from, HloInstruction* to,
                    const absl::flat_hash_set<const HloInstruction*>& except = {});

// ReplaceAllUses for many instructions at once, in one sweep: every operand
// slot and the root that name a key of `map` then name its value (values are
// not looked up again).
void ReplaceUses(HloComputation& computation,
                 const absl::flat_hash_map<const HloInstruction*, HloInstruction*>& map,
                 const absl::flat_hash_set<const HloInstruction*>& except = {});
// The same where every instruction that reads a key is among `readers`:
// only those and the root are looked at.
void ReplaceUsesIn(HloComputation& computation, const std::vector<HloInstruction*>& readers,
                   const absl::flat_hash_map<const HloInstruction*, HloInstruction*>& map);

// The instructions of one computation that a walk in PostOrder replaces
// by others: a table indexed by the positions PostOrder numbers them with
// (HloInstruction::scratch), so that forwarding every operand costs no
// hashing. Valid until the computation's list changes other than by
// appending.
class Replacements {
 public:
  explicit Replacements(const HloComputation& computation)
      : computation_(&computation), to_(computation.instructions().size(), nullptr) {}
  // `from` is an instruction of the computation numbered by PostOrder.
  void Set(const HloInstruction* from, HloInstruction* to) {
    to_[from->scratch] = to;
    ++count_;
  }
  // The replacement of `i`, or null (instructions added since, and those of
  // other computations, have none).
  HloInstruction* Find(const HloInstruction* i) const {
    return i != nullptr && i->parent() == computation_ && i->scratch < to_.size() &&
                   computation_->instructions()[i->scratch].get() == i
               ? to_[i->scratch]
               : nullptr;
  }
  bool empty() const { return count_ == 0; }
  // Whether the instruction at `position` (as numbered) is replaced.
  bool ReplacedAt(size_t position) const {
    return position < to_.size() && to_[position] != nullptr;
  }

 private:
  const HloComputation* computation_;
  std::vector<HloInstruction*> to_;
  int64_t count_ = 0;
};

// For passes that replace instructions while walking in post order: points
// the operands of `instr` that have a replacement at it.
void ForwardReplacedOperands(HloInstruction* instr, const Replacements& replaced);

// After such a walk, when every user has been forwarded: the root follows
// its replacement and the replaced instructions are removed.
void RemoveReplaced(HloComputation& computation, const Replacements& replaced);

// Removes the instructions (never parameters) whose position in the list
// is marked in `dead` (one entry per instruction).
void RemoveAt(HloComputation& computation, const std::vector<bool>& dead);

// Removes the instructions of `dead` (never parameters) from the computation.
void RemoveInstructions(HloComputation& computation,
                        const absl::flat_hash_set<const HloInstruction*>& dead);

// Moves instructions appended to the computation into place: each range
// [begin, end) of positions (appended since the list had its original
// length) goes just before its anchor, an instruction of the original list,
// ranges before the same anchor in the order given. A list whose operands
// came first stays so when every range is the copy of what its anchor
// computes (inlining a call, hoisting out of a loop), and the next
// PostOrder of it needs no graph walk.
struct AppendedRange {
  const HloInstruction* anchor;
  size_t begin, end;
};
void MoveAppendedBefore(HloComputation& computation, size_t original_size,
                        const std::vector<AppendedRange>& ranges);

// Removes computations from the module.
void RemoveComputations(HloModule& module,
                        const absl::flat_hash_set<const HloComputation*>& dead);

// A copy of `instr` (attributes, operands, callees) without a parent; the
// caller remaps operands. Control predecessors are copied too, so callers
// clone only instructions without them.
std::unique_ptr<HloInstruction> CloneInstruction(const HloInstruction& instr, std::string name);

class NameUniquer;

// Appends copies of `callee`'s instructions (in post order, named by
// `names`) to `caller`, their operands read through `map`, which holds what
// the callee's parameters become and receives every copy. Returns the copy
// of the callee's root.
HloInstruction* CopyComputationInto(
    const HloComputation& callee, HloComputation& caller, NameUniquer& names,
    absl::flat_hash_map<const HloInstruction*, HloInstruction*>& map);

// Renumbers a get-tuple-element: its typed index and the `index=` it was
// written with (which the printer prints).
void SetTupleIndex(HloInstruction* gte, int64_t index);

// Sets the attribute `name` as it is printed (raw_attributes), appending it
// when the instruction was written without it. Rewrites of typed attributes
// of instructions read from text use it so that the module prints as it
// now computes.
void SetRawAttribute(HloInstruction* instr, std::string_view name, std::string value);

// Fresh instructions built in code.
std::unique_ptr<HloInstruction> MakeGetTupleElement(HloInstruction* tuple, int64_t index,
                                                    std::string name);
std::unique_ptr<HloInstruction> MakeTuple(const std::vector<HloInstruction*>& elements,
                                          std::string name);

// Elements `indices` of `tuple` (an instruction of `computation`): the
// tuple's operands where it is a tuple instruction, else get-tuple-elements
// appended to the computation.
std::vector<HloInstruction*> ElementsOf(HloComputation& computation, HloInstruction* tuple,
                                        const std::vector<int64_t>& indices, NameUniquer& names);

// Names unique across the module (instructions and computations). One
// uniquer may serve several passes in turn: it keeps hashes of the names it
// has seen rather than views of them, so names removed in between never
// dangle (a removed name merely stays taken, as does the rare name whose
// hash another shares: the uniquer then picks the next suffix).
class NameUniquer {
 public:
  // The module's names are collected on the first Get or Unique, unless a
  // pass that sweeps the whole module anyway collects them first, or they
  // are given: `collected`, where not null, holds them already (the
  // verifier's, moved from).
  explicit NameUniquer(const HloModule& module, ModuleNameKeys* collected = nullptr);
  std::string Get(std::string_view base);
  // Whether no other instruction or computation of the module has (or had
  // since the collection) the name `name`, which one instruction has.
  bool Unique(std::string_view name);

  // Collection by such a pass: BeginCollecting, every computation's and
  // instruction's name to Collect, then FinishCollecting.
  bool collected() const { return filled_; }
  void BeginCollecting();
  void Collect(std::string_view name) { Add(Key(name)); }
  void FinishCollecting() { filled_ = true; }

 private:
  void Fill();
  void Add(uint64_t key) { keys_.Add(key); }
  static uint64_t Key(std::string_view name) { return ModuleNameKeys::Key(name); }

  const HloModule* module_;
  bool filled_ = false;
  // The hashes of the names seen, and those seen more than once: a set of
  // keys alone stays small enough for the cache while the module's names
  // are collected, which a table of counts did not. Only the collection
  // can repeat a name (Get gives distinct ones), so where the module's
  // names were all distinct, `keys_.repeated` stays empty.
  ModuleNameKeys keys_;
  // The next suffix to try per base name, by its hash (a computation
  // inlined a hundred times would otherwise probe .1, .2, ... for every
  // copied name; bases sharing a hash merely share where they start).
  absl::flat_hash_map<uint64_t, int64_t> next_suffix_;
};

// A while loop in the form the loop passes rewrite: one operand, a tuple
// state, a condition and a body that only this loop calls, each with one
// parameter read only through get-tuple-element, a body whose root is a
// tuple of the state's n elements, and no control dependencies.
struct TupleLoop {
  HloComputation* cond;
  HloComputation* body;
  HloInstruction* param;  // the body's
  HloInstruction* root;   // the body's
  int64_t n;
};
std::optional<TupleLoop> AsTupleLoop(
    HloInstruction* loop, const absl::flat_hash_map<const HloComputation*, int64_t>& call_sites);

// Calls `f(caller, loop)` for each while loop of the module, computation by
// computation; the module's loops are listed before the first call, so `f`
// may add and remove instructions. The same sweep counts into `call_sites`
// how many instructions call each computation, before the first call.
void ForEachWhileLoop(HloModule& module,
                      absl::flat_hash_map<const HloComputation*, int64_t>& call_sites,
                      absl::FunctionRef<void(HloComputation* caller, HloInstruction* loop)> f);

bool HasControlDependencies(const HloComputation& computation);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_IR_UTIL_H_
