#include "passes/cse.h"

#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

// Everything that decides an instruction's value: opcode, shape, operand
// identities, every written attribute but metadata, the typed attributes of
// instructions built in code, and a constant's bytes. Hash and equality
// read the same fields.
uint64_t Mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

size_t ConstantBytes(const HloInstruction& i) {
  return static_cast<size_t>(i.shape().element_count()) * ByteWidth(i.shape().element_type());
}

uint64_t Hash(const HloInstruction& i) {
  uint64_t h = static_cast<uint64_t>(i.opcode());
  const Shape& shape = i.shape();
  h = Mix(h, static_cast<uint64_t>(shape.element_type()));
  if (shape.IsArray()) {
    for (int64_t d = 0; d < shape.rank(); ++d) h = Mix(h, static_cast<uint64_t>(shape.dimensions(d)));
  } else if (shape.IsTuple()) {
    h = Mix(h, static_cast<uint64_t>(shape.tuple_size()));
  }
  for (const HloInstruction* o : i.operands()) h = Mix(h, reinterpret_cast<uintptr_t>(o));
  std::hash<std::string_view> sh;
  for (const auto& [name, value] : i.raw_attributes()) {
    if (name == "metadata") continue;
    h = Mix(h, sh(name));
    h = Mix(h, sh(value));
  }
  h = Mix(h, static_cast<uint64_t>(i.tuple_index));
  h = Mix(h, static_cast<uint64_t>(i.iota_dimension));
  h = Mix(h, static_cast<uint64_t>(i.comparison_direction) * 8 +
                 static_cast<uint64_t>(i.comparison_type));
  for (int64_t d : i.dimensions) h = Mix(h, static_cast<uint64_t>(d));
  if (i.opcode() == HloOpcode::kConstant && i.literal.has_value()) {
    h = Mix(h, sh(std::string_view(reinterpret_cast<const char*>(i.literal->untyped_data()),
                                   ConstantBytes(i))));
  }
  return h;
}

bool SameAttributes(const HloInstruction& a, const HloInstruction& b) {
  const auto& ra = a.raw_attributes();
  const auto& rb = b.raw_attributes();
  size_t x = 0, y = 0;
  while (true) {
    while (x < ra.size() && ra[x].first == "metadata") ++x;
    while (y < rb.size() && rb[y].first == "metadata") ++y;
    if (x == ra.size() || y == rb.size()) return x == ra.size() && y == rb.size();
    if (ra[x] != rb[y]) return false;
    ++x;
    ++y;
  }
}

bool Same(const HloInstruction& a, const HloInstruction& b) {
  if (a.opcode() != b.opcode() || a.operands() != b.operands() || !(a.shape() == b.shape()) ||
      a.tuple_index != b.tuple_index || a.iota_dimension != b.iota_dimension ||
      a.comparison_direction != b.comparison_direction ||
      a.comparison_type != b.comparison_type || a.dimensions != b.dimensions ||
      a.called_computations() != b.called_computations() || !SameAttributes(a, b)) {
    return false;
  }
  if (a.opcode() == HloOpcode::kConstant) {
    if (!a.literal.has_value() || !b.literal.has_value() ||
        !(a.literal->shape() == b.literal->shape())) {
      return false;
    }
    return std::memcmp(a.literal->untyped_data(), b.literal->untyped_data(), ConstantBytes(a)) == 0;
  }
  return true;
}

bool NeverMerged(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kCustomCall:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<PassResult> RunCse(HloModule& module) {
  EffectAnalysis effects;
  int64_t merged = 0;
  for (const auto& computation : module.computations()) {
    absl::flat_hash_set<const HloInstruction*> control;
    for (const auto& i : computation->instructions()) {
      if (!i->control_predecessors().empty()) control.insert(i.get());
      for (const HloInstruction* p : i->control_predecessors()) control.insert(p);
    }
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> replaced;
    absl::flat_hash_map<uint64_t, HloInstruction*> seen;
    seen.reserve(computation->instructions().size());
    for (HloInstruction* i : PostOrder(*computation)) {
      ForwardReplacedOperands(i, replaced);
      if (NeverMerged(i->opcode()) || control.contains(i) || effects.HasEffect(*i)) {
        continue;
      }
      if (i->opcode() == HloOpcode::kConstant &&
          (!i->shape().IsArray() || i->shape().element_count() > 4096 ||
           !i->literal.has_value() || i->literal->elided())) {
        continue;
      }
      // A hash shared by different instructions only costs a merge.
      auto [it, inserted] = seen.try_emplace(Hash(*i), i);
      if (!inserted && Same(*it->second, *i)) {
        replaced[i] = it->second;
        ++merged;
      }
    }
    // Every user now reads the replacement (users follow their operands in
    // post order), so the replaced instructions go.
    RemoveReplaced(*computation, replaced);
  }
  PassResult result;
  result.changes = merged;
  result.detail = absl::StrCat("merged ", merged, " instructions");
  return result;
}

}  // namespace hlovm::passes
