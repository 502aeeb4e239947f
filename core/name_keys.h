// The names of a module's computations and instructions as 64-bit hashes:
// which are taken, and which more than one computation or instruction has
// (names repeat across computations, never within one). The verifier makes
// it while it checks that names are unique where they must be; the passes'
// name uniquer goes on from it instead of collecting the names again.
#ifndef HLOVM_CORE_NAME_KEYS_H_
#define HLOVM_CORE_NAME_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "core/hlo_ir.h"

namespace hlovm {

struct ModuleNameKeys {
  // Room for every name of `module`, and for the names the passes add
  // later, so that the set seldom rehashes.
  void ReserveFor(const HloModule& module) {
    size_t n = 0;
    for (const auto& c : module.computations()) n += 1 + c->instructions().size();
    seen.reserve(n + n / 4);
  }
  static uint64_t Key(std::string_view name) {
    return absl::HashOf(absl::string_view(name.data(), name.size()));
  }
  // Adds a name's key; returns false where the key was there already (the
  // same name, or rarely another name with the same hash).
  bool Add(uint64_t key) {
    if (seen.insert(key).second) return true;
    repeated.insert(key);
    return false;
  }

  absl::flat_hash_set<uint64_t> seen;
  absl::flat_hash_set<uint64_t> repeated;
};

}  // namespace hlovm

#endif  // HLOVM_CORE_NAME_KEYS_H_
