#include "ops/sort/sort.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>

#include "core/float_format.h"
#include "hwy/contrib/sort/vqsort.h"

namespace hlovm {

SortGeometry MakeSortGeometry(const Shape& shape, int64_t dimension) {
  SortGeometry g;
  const auto& dims = shape.dimensions();
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    if (i < dimension) g.outer *= dims[i];
    if (i == dimension) g.n = dims[i];
    if (i > dimension) g.inner *= dims[i];
  }
  return g;
}

namespace {

int KeyBits(ElementType type) { return ByteWidth(type) * 8; }

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// Element value as a double (fast-path float types only).
double FloatValue(ElementType type, uint64_t bits) {
  switch (type) {
    case ElementType::kF16:
      return HalfToFloat(static_cast<uint16_t>(bits));
    case ElementType::kBF16:
      return BFloat16ToFloat(static_cast<uint16_t>(bits));
    case ElementType::kF32: {
      float f;
      const uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b, 4);
      return f;
    }
    default: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
  }
}

// The key of element bits under the plan: total-order image, -0 folded onto
// +0 for FLOAT comparisons, complemented for descending order.
inline uint64_t PlanKey(const FastSortPlan& p, uint64_t bits, int width, uint64_t zero_key) {
  uint64_t k = TotalOrderKey(p.key_type, bits);
  if ((p.float_compare || p.canonical) && IsZeroBits(p.key_type, bits)) k = zero_key;
  if (p.canonical && IsNaNBits(p.key_type, bits)) k = Mask(width);
  if (p.descending) k = ~k & Mask(width);
  return k;
}

inline uint64_t InverseKey(ElementType type, uint64_t k, int width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  switch (ElementTypeKind(type)) {
    case TypeKind::kFloat:
      return (k & sign) ? (k ^ sign) : (~k & Mask(width));
    case TypeKind::kSigned:
      return k ^ sign;
    default:
      return k;
  }
}

inline void StoreBits(uint8_t* data, int64_t i, uint64_t bits, int size) {
  switch (size) {
    case 1: data[i] = static_cast<uint8_t>(bits); break;
    case 2: { const uint16_t v = static_cast<uint16_t>(bits); std::memcpy(data + 2 * i, &v, 2); break; }
    case 4: { const uint32_t v = static_cast<uint32_t>(bits); std::memcpy(data + 4 * i, &v, 4); break; }
    default: std::memcpy(data + 8 * i, &bits, 8); break;
  }
}

// Stable LSD radix sort of `keys` by bits [shift, shift + bits), 8 bits per
// pass; digit positions where every key agrees are skipped. `tmp` holds n.
template <typename U>
void RadixSort(U* keys, U* tmp, int64_t n, int shift, int bits) {
  const int passes = (bits + 7) / 8;
  std::vector<int64_t> hist(static_cast<size_t>(passes) * 256, 0);
  for (int64_t i = 0; i < n; ++i) {
    const U k = keys[i];
    for (int p = 0; p < passes; ++p) ++hist[p * 256 + ((k >> (shift + 8 * p)) & 0xff)];
  }
  U* src = keys;
  U* dst = tmp;
  for (int p = 0; p < passes; ++p) {
    int64_t* h = hist.data() + p * 256;
    const int s = shift + 8 * p;
    if (h[(src[0] >> s) & 0xff] == n) continue;
    int64_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      const int64_t c = h[d];
      h[d] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; ++i) {
      const U k = src[i];
      dst[h[(k >> s) & 0xff]++] = k;
    }
    std::swap(src, dst);
  }
  if (src != keys) std::memcpy(keys, src, n * sizeof(U));
}

// Rows below this many elements sort with std::sort (keys are unique or
// indistinguishable, so any correct sort gives the same result).
constexpr int64_t kRadixMinElements = 512;

template <typename U>
void SortKeys(U* keys, int64_t n, int shift, int bits, std::vector<uint8_t>& tmp) {
  if (n < kRadixMinElements) {
    std::sort(keys, keys + n);
    return;
  }
  tmp.resize(n * sizeof(U));
  RadixSort(keys, reinterpret_cast<U*>(tmp.data()), n, shift, bits);
}

// Sorts row r with the key's own native comparison (a < b, or a > b), as a
// stable merge sort over indices: the path for FLOAT rows holding NaN.
void NativeSortRow(const FastSortPlan& p, const uint8_t* key, int64_t base, uint32_t* perm) {
  const SortGeometry& g = p.geometry;
  std::vector<double> v(g.n);
  for (int64_t j = 0; j < g.n; ++j) {
    v[j] = FloatValue(p.key_type, LoadBits(p.key_type, key, base + j * g.inner));
  }
  std::iota(perm, perm + g.n, 0u);
  if (p.descending) {
    std::stable_sort(perm, perm + g.n, [&](uint32_t a, uint32_t b) { return v[a] > v[b]; });
  } else {
    std::stable_sort(perm, perm + g.n, [&](uint32_t a, uint32_t b) { return v[a] < v[b]; });
  }
}

// One operand, keys only: sorts the keys themselves (no index payload) and
// maps them back. For FLOAT comparisons -0 and +0 are equal keys; their run
// is refilled with the zeros in input order, which is what a stable sort
// gives.
template <typename U>
void SortKeysOnlyRow(const FastSortPlan& p, const uint8_t* in, uint8_t* out, int64_t base,
                     SortScratch& s, uint64_t zero_key) {
  const SortGeometry& g = p.geometry;
  const int width = KeyBits(p.key_type);
  const int size = ByteWidth(p.key_type);
  s.bytes.resize(g.n * sizeof(U));
  U* keys = reinterpret_cast<U*>(s.bytes.data());
  std::vector<uint64_t>& zeros = s.keys_hi;
  zeros.clear();
  std::vector<uint64_t>& nans = s.keys;
  nans.clear();
  int64_t below_zero = 0, below_nan = 0;
  const uint64_t zk = p.descending ? (~zero_key & Mask(width)) : zero_key;
  const uint64_t nk = p.descending ? 0 : Mask(width);
  const bool fold = p.float_compare || p.canonical;
  for (int64_t j = 0; j < g.n; ++j) {
    const uint64_t bits = LoadBits(p.key_type, in, base + j * g.inner);
    const uint64_t k = PlanKey(p, bits, width, zero_key);
    if (fold) {
      if (k == zk) zeros.push_back(bits);
      below_zero += k < zk;
    }
    if (p.canonical) {
      if (k == nk) nans.push_back(bits);
      below_nan += k < nk;
    }
    keys[j] = static_cast<U>(k);
  }
  SortKeys(keys, g.n, 0, width, s.tmp);
  for (int64_t j = 0; j < g.n; ++j) {
    uint64_t k = keys[j];
    if (p.descending) k = ~k & Mask(width);
    StoreBits(out, base + j * g.inner, InverseKey(p.key_type, k, width), size);
  }
  for (size_t z = 0; z < zeros.size(); ++z) {
    StoreBits(out, base + (below_zero + static_cast<int64_t>(z)) * g.inner, zeros[z], size);
  }
  for (size_t z = 0; z < nans.size(); ++z) {
    StoreBits(out, base + (below_nan + static_cast<int64_t>(z)) * g.inner, nans[z], size);
  }
}

}  // namespace

bool IsNaNBits(ElementType type, uint64_t bits) {
  switch (type) {
    case ElementType::kF16: return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0;
    case ElementType::kBF16: return (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
    case ElementType::kF32: return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0;
    case ElementType::kF64:
      return (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
             (bits & 0xfffffffffffffull) != 0;
    default: return false;
  }
}

bool IsZeroBits(ElementType type, uint64_t bits) {
  if (ElementTypeKind(type) != TypeKind::kFloat) return false;
  const int width = KeyBits(type);
  return (bits & (Mask(width) >> 1)) == 0;
}

uint64_t TotalOrderKey(ElementType type, uint64_t bits) {
  const int width = KeyBits(type);
  const uint64_t sign = uint64_t{1} << (width - 1);
  switch (ElementTypeKind(type)) {
    case TypeKind::kFloat:
      return (bits & sign) ? (~bits & Mask(width)) : (bits | sign);
    case TypeKind::kSigned:
      return (bits ^ sign) & Mask(width);
    default:
      return bits;
  }
}

uint64_t LoadBits(ElementType type, const uint8_t* data, int64_t i) {
  switch (ByteWidth(type)) {
    case 1: return data[i];
    case 2: { uint16_t v; std::memcpy(&v, data + 2 * i, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, data + 4 * i, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, data + 8 * i, 8); return v; }
  }
}

bool FastSortSupports(ElementType type, ComparisonType cmp) {
  switch (type) {
    case ElementType::kF16: case ElementType::kBF16: case ElementType::kF32:
    case ElementType::kF64:
      return cmp == ComparisonType::kDefault || cmp == ComparisonType::kFloat ||
             cmp == ComparisonType::kTotalOrder;
    case ElementType::kS8: case ElementType::kS16: case ElementType::kS32:
    case ElementType::kS64:
      return cmp == ComparisonType::kDefault || cmp == ComparisonType::kSigned;
    case ElementType::kPred: case ElementType::kU8: case ElementType::kU16:
    case ElementType::kU32: case ElementType::kU64:
      return cmp == ComparisonType::kDefault || cmp == ComparisonType::kUnsigned;
    default:
      return false;
  }
}

void GatherRow(const SortGeometry& g, const std::vector<int>& elem_size, const uint8_t* const* in,
               uint8_t* const* out, int64_t r, const uint32_t* perm, int num_operands) {
  const int64_t base = g.RowBase(r);
  for (int op = 0; op < num_operands; ++op) {
    const int es = elem_size[op];
    const uint8_t* src = in[op];
    uint8_t* dst = out[op];
    for (int64_t j = 0; j < g.n; ++j) {
      std::memcpy(dst + (base + j * g.inner) * es, src + (base + perm[j] * g.inner) * es, es);
    }
  }
}

void FastSortRows(const FastSortPlan& p, const uint8_t* const* in, uint8_t* const* out,
                  int64_t row_begin, int64_t row_end, SortScratch& s) {
  const SortGeometry& g = p.geometry;
  const int num = static_cast<int>(p.elem_size.size());
  if (g.n == 0) return;
  std::unique_ptr<hwy::Sorter> sorter;  // made on first use
  const int width = KeyBits(p.key_type);
  const uint64_t zero_key = TotalOrderKey(p.key_type, 0);
  const uint8_t* key_in = in[p.key_operand];
  // Row copies when sorting in place.
  std::vector<std::vector<uint8_t>> copies;
  std::vector<const uint8_t*> src(num);
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t base = g.RowBase(r);
    bool has_nan = false;
    if (p.float_compare) {
      for (int64_t j = 0; j < g.n && !has_nan; ++j) {
        has_nan = IsNaNBits(p.key_type, LoadBits(p.key_type, key_in, base + j * g.inner));
      }
    }
    if (num == 1 && !has_nan) {
      if (width <= 16) {
        SortKeysOnlyRow<uint16_t>(p, in[0], out[0], base, s, zero_key);
      } else if (width == 32) {
        SortKeysOnlyRow<uint32_t>(p, in[0], out[0], base, s, zero_key);
      } else {
        SortKeysOnlyRow<uint64_t>(p, in[0], out[0], base, s, zero_key);
      }
      continue;
    }
    s.perm.resize(g.n);
    if (has_nan) {
      NativeSortRow(p, key_in, base, s.perm.data());
    } else if (width <= 32 && g.n <= (int64_t{1} << 32)) {
      s.keys.resize(g.n);
      for (int64_t j = 0; j < g.n; ++j) {
        const uint64_t bits = LoadBits(p.key_type, key_in, base + j * g.inner);
        s.keys[j] = (PlanKey(p, bits, width, zero_key) << 32) | static_cast<uint64_t>(j);
      }
      // The index in the low half makes the keys unique; radix passes over
      // the key half alone keep index order, which is the same order.
      if (g.n < kRadixMinElements) {
        std::sort(s.keys.begin(), s.keys.begin() + g.n);
      } else {
        s.tmp.resize(g.n * 8);
        RadixSort(s.keys.data(), reinterpret_cast<uint64_t*>(s.tmp.data()), g.n, 32, width);
      }
      for (int64_t j = 0; j < g.n; ++j) s.perm[j] = static_cast<uint32_t>(s.keys[j]);
    } else {
      s.keys_hi.resize(2 * g.n);
      hwy::uint128_t* pairs = reinterpret_cast<hwy::uint128_t*>(s.keys_hi.data());
      for (int64_t j = 0; j < g.n; ++j) {
        const uint64_t bits = LoadBits(p.key_type, key_in, base + j * g.inner);
        pairs[j].lo = static_cast<uint64_t>(j);
        pairs[j].hi = PlanKey(p, bits, width, zero_key);
      }
      if (sorter == nullptr) sorter = std::make_unique<hwy::Sorter>();
      (*sorter)(pairs, static_cast<size_t>(g.n), hwy::SortAscending());
      for (int64_t j = 0; j < g.n; ++j) s.perm[j] = static_cast<uint32_t>(pairs[j].lo);
    }
    // Gather; operands sorted in place are copied out of the way first.
    copies.resize(num);
    for (int op = 0; op < num; ++op) {
      if (in[op] != out[op]) {
        src[op] = in[op];
        continue;
      }
      const int es = p.elem_size[op];
      copies[op].resize(g.n * es);
      for (int64_t j = 0; j < g.n; ++j) {
        std::memcpy(copies[op].data() + j * es, in[op] + (base + j * g.inner) * es, es);
      }
      src[op] = nullptr;
    }
    for (int op = 0; op < num; ++op) {
      const int es = p.elem_size[op];
      uint8_t* dst = out[op];
      if (src[op] != nullptr) {
        for (int64_t j = 0; j < g.n; ++j) {
          std::memcpy(dst + (base + j * g.inner) * es,
                      src[op] + (base + s.perm[j] * g.inner) * es, es);
        }
      } else {
        const uint8_t* c = copies[op].data();
        for (int64_t j = 0; j < g.n; ++j) {
          std::memcpy(dst + (base + j * g.inner) * es, c + s.perm[j] * es, es);
        }
      }
    }
  }
}

}  // namespace hlovm
