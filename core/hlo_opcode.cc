#include "core/hlo_opcode.h"

#include <array>

#include "absl/container/flat_hash_map.h"

namespace hlovm {
namespace {

struct OpcodeInfo {
  std::string_view name;
  int arity;
  OpFamily family;
  bool side_effect;
};

constexpr std::array<OpcodeInfo, HloOpcodeCount()> kOpcodeInfo = {{
#define HLOVM_OPCODE_INFO_(e, name, arity, family, side_effect) \
  {name, arity, OpFamily::family, side_effect},
    HLOVM_OPCODE_LIST(HLOVM_OPCODE_INFO_)
#undef HLOVM_OPCODE_INFO_
}};

}  // namespace

std::string_view HloOpcodeName(HloOpcode opcode) {
  return kOpcodeInfo[static_cast<int>(opcode)].name;
}

std::optional<HloOpcode> HloOpcodeFromName(std::string_view name) {
  static const auto* by_name = [] {
    auto* map = new absl::flat_hash_map<std::string_view, HloOpcode>();
    for (int i = 0; i < HloOpcodeCount(); ++i) {
      map->emplace(kOpcodeInfo[i].name, static_cast<HloOpcode>(i));
    }
    return map;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) return std::nullopt;
  return it->second;
}

int HloOpcodeArity(HloOpcode opcode) { return kOpcodeInfo[static_cast<int>(opcode)].arity; }

OpFamily HloOpcodeFamily(HloOpcode opcode) {
  return kOpcodeInfo[static_cast<int>(opcode)].family;
}

bool HloOpcodeHasSideEffect(HloOpcode opcode) {
  return kOpcodeInfo[static_cast<int>(opcode)].side_effect;
}

}  // namespace hlovm
