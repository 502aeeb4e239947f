#include "ops/sort/topk.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/sort/sort.h"

namespace hlovm {

namespace {

uint64_t WidthMask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// Order-preserving unsigned image of one element. The wide types use the
// sort's keys; sub-byte integers and the 8-, 6- and 4-bit floats are ordered
// on their own bit width (sign-magnitude for floats, as XLA's total order
// reads them; f8e8m0fnu has no sign bit).
uint64_t TopKKey(ElementType type, uint64_t bits) {
  if (!IsSubByte(type) && !IsSmallFloat(type)) return TotalOrderKey(type, bits);
  const int width = BitWidth(type);
  const uint64_t mask = WidthMask(width);
  const uint64_t sign = uint64_t{1} << (width - 1);
  bits &= mask;
  if (type == ElementType::kF8E8M0FNU || IsUnsignedInteger(type)) return bits;
  if (IsSignedInteger(type)) return (bits ^ sign) & mask;
  return (bits & sign) ? (~bits & mask) : (bits | sign);
}

}  // namespace

bool TopKSupports(ElementType type) {
  return IsArrayType(type) && !IsComplex(type);
}

void TopKRows(const TopKPlan& p, const uint8_t* in, uint8_t* values, int32_t* indices,
              int64_t row_begin, int64_t row_end) {
  const int es = ByteWidth(p.type);
  const int bits = es * 8;
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const int64_t k = std::min(p.k, p.n);
  // (key, index) with the key complemented for `largest`, so that ascending
  // order of the pairs is the output order.
  std::vector<std::pair<uint64_t, uint32_t>> items(p.n);
  for (int64_t r = row_begin; r < row_end; ++r) {
    const uint8_t* row = in + r * p.n * es;
    for (int64_t j = 0; j < p.n; ++j) {
      uint64_t key = TopKKey(p.type, LoadBits(p.type, row, j));
      if (p.largest) key = ~key & mask;
      items[j] = {key, static_cast<uint32_t>(j)};
    }
    if (k < p.n) {
      if (k * 8 < p.n) {
        std::nth_element(items.begin(), items.begin() + k, items.end());
        std::sort(items.begin(), items.begin() + k);
      } else {
        std::partial_sort(items.begin(), items.begin() + k, items.end());
      }
    } else {
      std::sort(items.begin(), items.end());
    }
    uint8_t* vout = values + r * p.k * es;
    int32_t* iout = indices + r * p.k;
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(vout + j * es, row + items[j].second * static_cast<int64_t>(es), es);
      iout[j] = static_cast<int32_t>(items[j].second);
    }
  }
}

}  // namespace hlovm
