#include "ops/shape/dynamic_slice.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "ops/shape/slice.h"

namespace hlovm {
namespace {

template <typename T>
int64_t ReadIndex(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
    if (v > static_cast<T>(std::numeric_limits<int64_t>::max())) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return static_cast<int64_t>(v);
}

template <int kBits>
int64_t ReadSubByteSigned(const uint8_t* p) {
  return static_cast<int8_t>(static_cast<uint8_t>(p[0] << (8 - kBits))) >> (8 - kBits);
}

template <int kBits>
int64_t ReadSubByteUnsigned(const uint8_t* p) {
  return p[0] & ((1 << kBits) - 1);
}

}  // namespace

absl::StatusOr<IndexReader> SelectIndexReader(ElementType type) {
  switch (type) {
    // Sub-byte integers are held one per byte, in the low bits.
    case ElementType::kS2: return &ReadSubByteSigned<2>;
    case ElementType::kS4: return &ReadSubByteSigned<4>;
    case ElementType::kU2: return &ReadSubByteUnsigned<2>;
    case ElementType::kU4: return &ReadSubByteUnsigned<4>;
    case ElementType::kS8: return &ReadIndex<int8_t>;
    case ElementType::kU8: return &ReadIndex<uint8_t>;
    case ElementType::kS16: return &ReadIndex<int16_t>;
    case ElementType::kU16: return &ReadIndex<uint16_t>;
    case ElementType::kS32: return &ReadIndex<int32_t>;
    case ElementType::kU32: return &ReadIndex<uint32_t>;
    case ElementType::kS64: return &ReadIndex<int64_t>;
    case ElementType::kU64: return &ReadIndex<uint64_t>;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "start indices must be integers, not ", std::string(ElementTypeName(type))));
  }
}

absl::StatusOr<DynamicSlicePlan> MakeDynamicSlicePlan(int elem_size,
                                                      absl::Span<const int64_t> operand_dims,
                                                      absl::Span<const int64_t> sizes,
                                                      ElementType index_type, bool update) {
  if (sizes.size() != operand_dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat("dynamic slice of rank ", sizes.size(),
                                                   " from an operand of rank ",
                                                   operand_dims.size()));
  }
  DynamicSlicePlan plan;
  plan.elem_size = elem_size;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || sizes[d] > operand_dims[d]) {
      return absl::InvalidArgumentError(absl::StrCat("dynamic slice size ", sizes[d],
                                                     " does not fit dimension ", d, " of size ",
                                                     operand_dims[d]));
    }
  }
  auto reader = SelectIndexReader(index_type);
  if (!reader.ok()) return reader.status();
  plan.read_index = *reader;
  plan.index_bytes = ByteWidth(index_type);
  plan.operand_dims.assign(operand_dims.begin(), operand_dims.end());
  plan.sizes.assign(sizes.begin(), sizes.end());
  plan.operand_strides = RowMajorStrides(operand_dims);
  plan.copy = update ? MakeStridedStorePlan(elem_size, sizes, plan.operand_strides)
                     : MakeStridedCopyPlan(elem_size, sizes, plan.operand_strides);
  plan.operand_bytes = elem_size;
  for (int64_t d : operand_dims) plan.operand_bytes *= d;
  return plan;
}

int64_t DynamicSliceBase(const DynamicSlicePlan& plan, const uint8_t* const* starts,
                         bool per_dim) {
  int64_t base = 0;
  for (size_t d = 0; d < plan.sizes.size(); ++d) {
    const uint8_t* p = per_dim ? starts[d] : starts[0] + d * plan.index_bytes;
    const int64_t start =
        std::clamp<int64_t>(plan.read_index(p), 0, plan.operand_dims[d] - plan.sizes[d]);
    base += start * plan.operand_strides[d];
  }
  return base;
}

void RunDynamicSlice(const DynamicSlicePlan& plan, const uint8_t* operand, int64_t base,
                     uint8_t* dst, int64_t row_begin, int64_t row_end) {
  if (plan.copy.element_count == 0) return;
  RunStridedCopy(plan.copy, operand + base * plan.elem_size, dst, row_begin, row_end);
}

void RunDynamicUpdateSlice(const DynamicSlicePlan& plan, const uint8_t* update, int64_t base,
                           uint8_t* dst, int64_t row_begin, int64_t row_end) {
  if (plan.copy.element_count == 0) return;
  RunStridedStore(plan.copy, update, dst + base * plan.elem_size, row_begin, row_end);
}

}  // namespace hlovm
