// The attribute name lookup over HLOVM_ATTRIBUTE_LIST (attribute_table.h),
// and the compile-time check that each row's storage column names a member
// of HloInstruction.
#include "frontend/attribute_table.h"

#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "core/hlo_ir.h"

namespace hlovm {
namespace {

// The types of the holders of the storage columns.
using Holder_instr = HloInstruction;
using Holder_attrs = OpAttributes;
using Holder_dot = DotDimensionNumbers;
using Holder_gather = GatherDimensionNumbers;
using Holder_scatter = ScatterDimensionNumbers;

// Each storage column must name a field of its holder: a row that names a
// field removed or renamed does not compile.
#define HLOVM_CHECK_ATTR_STORAGE_(id, name, kind, holder, member)                    \
  static_assert(sizeof(decltype(std::declval<const Holder_##holder&>().member)) > 0, \
                "storage of " name);
HLOVM_ATTRIBUTE_LIST(HLOVM_CHECK_ATTR_STORAGE_)
#undef HLOVM_CHECK_ATTR_STORAGE_

// Hashes std::string_view keys with Abseil's hash (Debian's Abseil has its
// own string_view type).
struct ViewHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>()(absl::string_view(s.data(), s.size()));
  }
};

}  // namespace

AttrId AttributeFromName(std::string_view name) {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string_view, AttrId, ViewHash>();
    for (int i = 0; i < AttributeCount(); ++i)
      t->emplace(AttributeName(AttributeAt(i)), AttributeAt(i));
    return t;
  }();
  auto it = table->find(name);
  return it == table->end() ? AttrId::kUnknown : it->second;
}

}  // namespace hlovm
