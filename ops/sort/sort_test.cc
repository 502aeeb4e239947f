#include "ops/sort/sort.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "core/float_format.h"
#include "gtest/gtest.h"
#include "ops/sort/topk.h"

namespace hlovm {
namespace {

// Reference order of doubles under total order: -NaN, numbers (with
// -0 < +0), +NaN.
bool TotalLess(double a, double b) {
  auto cls = [](double x) { return std::isnan(x) ? (std::signbit(x) ? 0 : 2) : 1; };
  if (cls(a) != cls(b)) return cls(a) < cls(b);
  if (cls(a) != 1) return false;
  if (a == b) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

std::vector<float> TestFloats(int64_t count, uint32_t seed, bool specials) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, 9);
  std::vector<float> v(count);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float special[] = {0.f, -0.f, inf, -inf, nan, -nan, 1.f, -1.f};
  for (auto& x : v) {
    x = static_cast<float>(pick(rng) - 5);  // many ties
    if (specials && pick(rng) == 0) x = special[pick(rng) % 8];
  }
  return v;
}

// Runs the fast path over [outer, n, inner] f32 keys plus an s32 payload
// (the element's position) and checks against std::stable_sort.
void CheckF32(int64_t outer, int64_t n, int64_t inner, bool descending, bool float_compare,
              bool specials) {
  const int64_t total = outer * n * inner;
  std::vector<float> keys = TestFloats(total, 7 + n, specials);
  std::vector<int32_t> payload(total);
  std::iota(payload.begin(), payload.end(), 0);
  std::vector<float> out_keys(total);
  std::vector<int32_t> out_payload(total);
  FastSortPlan plan;
  plan.geometry = SortGeometry{outer, n, inner};
  plan.key_type = ElementType::kF32;
  plan.descending = descending;
  plan.float_compare = float_compare;
  for (int with_payload = 0; with_payload < 2; ++with_payload) {
    plan.elem_size = with_payload ? std::vector<int>{4, 4} : std::vector<int>{4};
    const uint8_t* in[] = {reinterpret_cast<uint8_t*>(keys.data()),
                           reinterpret_cast<uint8_t*>(payload.data())};
    uint8_t* out[] = {reinterpret_cast<uint8_t*>(out_keys.data()),
                      reinterpret_cast<uint8_t*>(out_payload.data())};
    SortScratch scratch;
    FastSortRows(plan, in, out, 0, plan.geometry.rows(), scratch);
    for (int64_t r = 0; r < plan.geometry.rows(); ++r) {
      const int64_t base = plan.geometry.RowBase(r);
      std::vector<int64_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0);
      auto less = [&](int64_t a, int64_t b) {
        const double x = keys[base + a * inner], y = keys[base + b * inner];
        if (float_compare) return descending ? x > y : x < y;
        return descending ? TotalLess(y, x) : TotalLess(x, y);
      };
      std::stable_sort(idx.begin(), idx.end(), less);
      for (int64_t j = 0; j < n; ++j) {
        const float want = keys[base + idx[j] * inner];
        const float got = out_keys[base + j * inner];
        ASSERT_EQ(std::memcmp(&want, &got, 4), 0)
            << "row " << r << " pos " << j << " want " << want << " got " << got;
        if (with_payload) {
          ASSERT_EQ(out_payload[base + j * inner], payload[base + idx[j] * inner]);
        }
      }
    }
  }
}

TEST(FastSort, F32FloatLtMinorDim) { CheckF32(3, 1000, 1, false, true, false); }
TEST(FastSort, F32FloatGtMinorDim) { CheckF32(3, 1000, 1, true, true, false); }
TEST(FastSort, F32SignedZerosStable) { CheckF32(2, 333, 1, false, true, true); }
TEST(FastSort, F32TotalOrderWithSpecials) {
  CheckF32(2, 500, 3, false, false, true);
  CheckF32(2, 500, 3, true, false, true);
}
TEST(FastSort, F32StridedRows) { CheckF32(4, 77, 5, false, true, false); }
TEST(FastSort, EmptyAndSingle) {
  CheckF32(3, 0, 2, false, true, false);
  CheckF32(3, 1, 2, false, true, true);
}

template <typename T>
void CheckInt(ElementType type, bool descending) {
  std::mt19937 rng(3);
  const int64_t n = 2000;
  std::vector<T> keys(n);
  for (auto& k : keys) k = static_cast<T>(rng());
  keys[0] = std::numeric_limits<T>::min();
  keys[1] = std::numeric_limits<T>::max();
  std::vector<uint16_t> payload(n);
  std::iota(payload.begin(), payload.end(), 0);
  std::vector<T> out(n);
  std::vector<uint16_t> out_payload(n);
  FastSortPlan plan;
  plan.geometry = SortGeometry{1, n, 1};
  plan.key_type = type;
  plan.descending = descending;
  plan.elem_size = {static_cast<int>(sizeof(T)), 2};
  const uint8_t* in[] = {reinterpret_cast<uint8_t*>(keys.data()),
                         reinterpret_cast<uint8_t*>(payload.data())};
  uint8_t* o[] = {reinterpret_cast<uint8_t*>(out.data()),
                  reinterpret_cast<uint8_t*>(out_payload.data())};
  SortScratch scratch;
  FastSortRows(plan, in, o, 0, 1, scratch);
  std::vector<uint16_t> idx(payload);
  std::stable_sort(idx.begin(), idx.end(), [&](uint16_t a, uint16_t b) {
    return descending ? keys[a] > keys[b] : keys[a] < keys[b];
  });
  for (int64_t j = 0; j < n; ++j) {
    ASSERT_EQ(out[j], keys[idx[j]]) << j;
    ASSERT_EQ(out_payload[j], idx[j]) << j;
  }
}

TEST(FastSort, Integers) {
  CheckInt<int8_t>(ElementType::kS8, false);
  CheckInt<int16_t>(ElementType::kS16, true);
  CheckInt<int32_t>(ElementType::kS32, false);
  CheckInt<int64_t>(ElementType::kS64, true);
  CheckInt<int64_t>(ElementType::kS64, false);
  CheckInt<uint8_t>(ElementType::kU8, true);
  CheckInt<uint32_t>(ElementType::kU32, false);
  CheckInt<uint64_t>(ElementType::kU64, false);
}

TEST(FastSort, InPlaceMatchesOutOfPlace) {
  std::vector<float> keys = TestFloats(4096, 5, true);
  std::vector<float> a(keys), b(keys.size());
  FastSortPlan plan;
  plan.geometry = SortGeometry{4, 1024, 1};
  plan.key_type = ElementType::kF32;
  plan.float_compare = false;
  plan.elem_size = {4};
  SortScratch scratch;
  const uint8_t* in[] = {reinterpret_cast<uint8_t*>(a.data())};
  uint8_t* o[] = {reinterpret_cast<uint8_t*>(b.data())};
  FastSortRows(plan, in, o, 0, 4, scratch);
  uint8_t* io[] = {reinterpret_cast<uint8_t*>(a.data())};
  FastSortRows(plan, io, io, 0, 4, scratch);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0);
}

TEST(TopK, F32LargestAndSmallestMatchReference) {
  const int64_t rows = 3, n = 300, k = 17;
  std::vector<float> in = TestFloats(rows * n, 11, true);
  for (bool largest : {true, false}) {
    std::vector<float> values(rows * k);
    std::vector<int32_t> indices(rows * k);
    TopKPlan plan{ElementType::kF32, rows, n, k, largest};
    TopKRows(plan, reinterpret_cast<uint8_t*>(in.data()), reinterpret_cast<uint8_t*>(values.data()),
             indices.data(), 0, rows);
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<int32_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0);
      const float* row = in.data() + r * n;
      std::stable_sort(idx.begin(), idx.end(), [&](int32_t a, int32_t b) {
        return largest ? TotalLess(row[b], row[a]) : TotalLess(row[a], row[b]);
      });
      for (int64_t j = 0; j < k; ++j) {
        ASSERT_EQ(indices[r * k + j], idx[j]) << r << " " << j;
        ASSERT_EQ(std::memcmp(&values[r * k + j], &row[idx[j]], 4), 0);
      }
    }
  }
}

// Every non-NaN value of each sub-byte integer and narrow float type, in a
// shuffled row with repeats: topk must order them by value (-0 below +0,
// ties lowest index first) on the type's own bit width.
TEST(TopK, NarrowTypesMatchReference) {
  const ElementType types[] = {
      ElementType::kS2,         ElementType::kS4,          ElementType::kU2,
      ElementType::kU4,         ElementType::kF8E5M2,      ElementType::kF8E4M3,
      ElementType::kF8E4M3FN,   ElementType::kF8E4M3FNUZ,  ElementType::kF8E4M3B11FNUZ,
      ElementType::kF8E5M2FNUZ, ElementType::kF8E3M4,      ElementType::kF8E8M0FNU,
      ElementType::kF6E2M3FN,   ElementType::kF6E3M2FN,    ElementType::kF4E2M1FN};
  std::mt19937 rng(5);
  for (ElementType type : types) {
    SCOPED_TRACE(std::string(ElementTypeName(type)));
    ASSERT_TRUE(TopKSupports(type));
    const int width = BitWidth(type);
    auto value = [&](uint8_t stored) -> double {
      if (IsSignedInteger(type)) return static_cast<int8_t>(stored);
      if (IsUnsignedInteger(type)) return stored;
      return DecodeNarrowFloat(type, stored);
    };
    std::vector<uint8_t> row;
    for (int bits = 0; bits < (1 << width); ++bits) {
      uint8_t stored = static_cast<uint8_t>(bits);
      // s2/s4 are stored sign-extended to the whole byte.
      if (IsSignedInteger(type) && (bits >> (width - 1)) != 0) {
        stored = static_cast<uint8_t>(bits | (0xff << width));
      }
      if (!IsInteger(type) && std::isnan(value(stored))) continue;
      row.push_back(stored);
      row.push_back(stored);  // repeats: ties come out lowest index first
    }
    std::shuffle(row.begin(), row.end(), rng);
    const int64_t n = static_cast<int64_t>(row.size());
    for (bool largest : {true, false}) {
      for (int64_t k : {int64_t{1}, int64_t{5}, n}) {
        std::vector<uint8_t> values(k);
        std::vector<int32_t> indices(k);
        TopKPlan plan{type, 1, n, k, largest};
        TopKRows(plan, row.data(), values.data(), indices.data(), 0, 1);
        std::vector<int32_t> idx(n);
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int32_t a, int32_t b) {
          const double va = value(row[a]), vb = value(row[b]);
          return largest ? TotalLess(vb, va) : TotalLess(va, vb);
        });
        for (int64_t j = 0; j < k; ++j) {
          ASSERT_EQ(indices[j], idx[j]) << "k=" << k << " j=" << j;
          ASSERT_EQ(values[j], row[idx[j]]);
        }
      }
    }
  }
}

}  // namespace
}  // namespace hlovm
