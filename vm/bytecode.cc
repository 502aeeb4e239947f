// The handler kinds' names (vm/bytecode.h HLOVM_HANDLER_KIND_LIST).
#include "vm/bytecode.h"

#include <string>

#include "core/hlo_opcode.h"

namespace hlovm {
namespace vm {
namespace {

struct KindRow {
  std::string_view mnemonic;
  std::string_view effect;
};

constexpr KindRow kKindRows[] = {
#define HLOVM_HANDLER_KIND_ROW_(e, mnemonic, effect) {mnemonic, effect},
    HLOVM_HANDLER_KIND_LIST(HLOVM_HANDLER_KIND_ROW_)
#undef HLOVM_HANDLER_KIND_ROW_
};

}  // namespace

std::string_view HandlerKindMnemonic(HandlerKind kind) {
  return kKindRows[static_cast<int>(kind)].mnemonic;
}

std::string_view HandlerKindEffect(HandlerKind kind) {
  return kKindRows[static_cast<int>(kind)].effect;
}

std::string InstrMnemonic(const InstrInfo& info) {
  const std::string_view mnemonic = HandlerKindMnemonic(info.kind);
  if (!mnemonic.empty() || info.hlo == nullptr) return std::string(mnemonic);
  return std::string(HloOpcodeName(info.hlo->opcode()));
}

}  // namespace vm
}  // namespace hlovm
