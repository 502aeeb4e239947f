#include "passes/cse.h"

#include <algorithm>
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

// Equality reads everything that decides an instruction's value: opcode,
// shape, operand identities, callees, every written attribute but metadata,
// the typed attributes of instructions built in code, and a constant's
// bytes. The hash reads only what sits in the instruction itself (not the
// attribute strings, each a cache miss on a large module): instructions
// that differ in their attributes alone then share a hash, and the table
// probes on (see RunCse).
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
  for (const HloComputation* c : i.called_computations()) h = Mix(h, reinterpret_cast<uintptr_t>(c));
  h = Mix(h, static_cast<uint64_t>(i.tuple_index));
  h = Mix(h, static_cast<uint64_t>(i.iota_dimension));
  h = Mix(h, static_cast<uint64_t>(i.comparison_direction) * 8 +
                 static_cast<uint64_t>(i.comparison_type));
  for (int64_t d : i.dimensions) h = Mix(h, static_cast<uint64_t>(d));
  if (i.slice.has_value()) {
    for (int64_t s : i.slice->starts) h = Mix(h, static_cast<uint64_t>(s));
  }
  if (i.opcode() == HloOpcode::kConstant && i.literal.has_value()) {
    std::hash<std::string_view> sh;
    h = Mix(h, sh(std::string_view(reinterpret_cast<const char*>(i.literal->untyped_data()),
                                   ConstantBytes(i))));
  }
  return h;
}

bool Same(const HloInstruction& a, const HloInstruction& b) {
  if (a.opcode() != b.opcode() || a.operands() != b.operands() || !(a.shape() == b.shape()) ||
      a.tuple_index != b.tuple_index || a.iota_dimension != b.iota_dimension ||
      a.comparison_direction != b.comparison_direction || a.comparison_type != b.comparison_type ||
      a.dimensions != b.dimensions || a.called_computations() != b.called_computations() ||
      !a.raw_attributes().SameIgnoringMetadata(b.raw_attributes())) {
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

absl::StatusOr<PassResult> RunCse(HloModule& module,
                                  const std::vector<const HloComputation*>* only) {
  EffectAnalysis effects;
  int64_t merged = 0;
  for (const auto& computation : module.computations()) {
    if (only != nullptr && std::find(only->begin(), only->end(), computation.get()) == only->end()) {
      continue;
    }
    Replacements replaced(*computation);
    absl::flat_hash_map<uint64_t, HloInstruction*> seen;
    seen.reserve(computation->instructions().size());
    ForEachInPostOrder</*kWhole=*/true>(*computation, [&](HloInstruction* i, bool on_control_edge) {
      ForwardReplacedOperands(i, replaced);
      if (NeverMerged(i->opcode()) || on_control_edge) return;
      if (i->opcode() == HloOpcode::kConstant &&
          (!i->shape().IsArray() || i->shape().element_count() > 4096 ||
           !i->literal.has_value() || i->literal->elided())) {
        return;
      }
      // Instructions sharing a hash but not equal take the next probe of
      // it; past 64 of them, an instruction is only not merged. Equal
      // instructions have the same effects (same opcode, callees and
      // attributes), so effects are looked at only where one would merge.
      uint64_t h = Hash(*i);
      for (int probe = 0; probe < 64; ++probe, h = Mix(h, 0x51ed27u)) {
        auto [it, inserted] = seen.try_emplace(h, i);
        if (inserted) break;
        if (Same(*it->second, *i)) {
          if (!effects.HasEffect(*i)) {
            replaced.Set(i, it->second);
            ++merged;
          }
          break;
        }
      }
    });
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
