#include "ops/indexing/scatter.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

Shape ArrayShape(ElementType t, std::vector<int64_t> dims) { return Shape(t, std::move(dims)); }

std::vector<int64_t> Unravel(int64_t i, const std::vector<int64_t>& dims) {
  std::vector<int64_t> c(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    c[d] = i % dims[d];
    i /= dims[d];
  }
  return c;
}

int64_t Ravel(const std::vector<int64_t>& c, const std::vector<int64_t>& dims) {
  int64_t i = 0;
  for (size_t d = 0; d < dims.size(); ++d) i = i * dims[d] + c[d];
  return i;
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t s : dims) n *= s;
  return n;
}

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

struct ScatterCase {
  std::vector<int64_t> operand_dims, index_dims, update_dims;
  ScatterDimensionNumbers d;
};

// The semantics: scatter positions in row-major order, each whole window
// (skipped when it does not fit), combined with `f(current, update)`.
template <typename F>
std::vector<int32_t> ReferenceScatter(const ScatterCase& s, std::vector<int32_t> out,
                                      const std::vector<int64_t>& indices,
                                      const std::vector<int32_t>& updates, F f) {
  const int64_t upd_rank = s.update_dims.size();
  const int64_t idx_rank = s.index_dims.size();
  const int64_t op_rank = s.operand_dims.size();
  std::vector<int64_t> scatter_dims, window_upd_dims = s.d.update_window_dims, batch_idx;
  for (int64_t d = 0; d < upd_rank; ++d) {
    if (!Has(s.d.update_window_dims, d)) scatter_dims.push_back(d);
  }
  for (int64_t d = 0; d < idx_rank; ++d) {
    if (d != s.d.index_vector_dim) batch_idx.push_back(d);
  }
  std::vector<int64_t> window_op_dims;
  for (int64_t d = 0; d < op_rank; ++d) {
    if (!Has(s.d.inserted_window_dims, d) && !Has(s.d.input_batching_dims, d)) {
      window_op_dims.push_back(d);
    }
  }
  std::vector<int64_t> wsize(op_rank, 1);
  for (size_t k = 0; k < window_op_dims.size(); ++k) {
    wsize[window_op_dims[k]] = s.update_dims[window_upd_dims[k]];
  }
  std::vector<int64_t> scatter_sizes, window_sizes;
  for (int64_t d : scatter_dims) scatter_sizes.push_back(s.update_dims[d]);
  for (int64_t d : window_upd_dims) window_sizes.push_back(s.update_dims[d]);
  for (int64_t gi = 0; gi < Product(scatter_sizes); ++gi) {
    const std::vector<int64_t> g = Unravel(gi, scatter_sizes);
    std::vector<int64_t> icoord(idx_rank, 0);
    for (size_t k = 0; k < g.size(); ++k) icoord[batch_idx[k]] = g[k];
    std::vector<int64_t> start(op_rank, 0);
    for (size_t k = 0; k < s.d.scatter_dims_to_operand_dims.size(); ++k) {
      if (s.d.index_vector_dim < idx_rank) icoord[s.d.index_vector_dim] = k;
      start[s.d.scatter_dims_to_operand_dims[k]] = indices[Ravel(icoord, s.index_dims)];
    }
    for (size_t k = 0; k < s.d.input_batching_dims.size(); ++k) {
      const int64_t pos =
          std::find(batch_idx.begin(), batch_idx.end(), s.d.scatter_indices_batching_dims[k]) -
          batch_idx.begin();
      start[s.d.input_batching_dims[k]] = g[pos];
    }
    bool fits = true;
    for (int64_t d = 0; d < op_rank; ++d) {
      if (start[d] < 0 || start[d] + wsize[d] > s.operand_dims[d]) fits = false;
    }
    if (!fits) continue;
    for (int64_t wi = 0; wi < Product(window_sizes); ++wi) {
      const std::vector<int64_t> w = Unravel(wi, window_sizes);
      std::vector<int64_t> u(upd_rank, 0), full = start;
      for (size_t k = 0; k < g.size(); ++k) u[scatter_dims[k]] = g[k];
      for (size_t k = 0; k < w.size(); ++k) {
        u[window_upd_dims[k]] = w[k];
        full[window_op_dims[k]] += w[k];
      }
      int32_t& o = out[Ravel(full, s.operand_dims)];
      o = f(o, updates[Ravel(u, s.update_dims)]);
    }
  }
  return out;
}

ScatterCase RandomScatter(std::mt19937& rng) {
  auto uni = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  ScatterCase s;
  const int64_t rank = uni(1, 4);
  for (int64_t i = 0; i < rank; ++i) s.operand_dims.push_back(uni(1, 5));
  std::vector<int64_t> dims(rank);
  for (int64_t i = 0; i < rank; ++i) dims[i] = i;
  std::shuffle(dims.begin(), dims.end(), rng);
  const int64_t num_batching = rank > 1 ? uni(0, 1) : 0;
  std::vector<int64_t> batching(dims.begin(), dims.begin() + num_batching);
  std::vector<int64_t> rest(dims.begin() + num_batching, dims.end());
  s.d.input_batching_dims = batching;
  std::shuffle(rest.begin(), rest.end(), rng);
  const int64_t k = uni(1, rest.size());
  s.d.scatter_dims_to_operand_dims.assign(rest.begin(), rest.begin() + k);
  std::vector<int64_t> window_sizes;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (Has(batching, dim)) continue;
    if (uni(0, 2) == 0) {
      s.d.inserted_window_dims.push_back(dim);
    } else {
      window_sizes.push_back(uni(1, s.operand_dims[dim]));
    }
  }
  std::vector<int64_t> batch_sizes;
  const int64_t extra = uni(0, 2);
  for (int64_t i = 0; i < extra; ++i) batch_sizes.push_back(uni(1, 4));
  std::vector<int64_t> batch_is_batching(batch_sizes.size(), -1);
  for (int64_t b : batching) {
    const int64_t pos = uni(0, batch_sizes.size());
    batch_sizes.insert(batch_sizes.begin() + pos, s.operand_dims[b]);
    batch_is_batching.insert(batch_is_batching.begin() + pos, b);
  }
  const bool implicit = k == 1 && uni(0, 1) == 1;
  const int64_t ivd = implicit ? batch_sizes.size() : uni(0, batch_sizes.size());
  s.d.index_vector_dim = ivd;
  for (size_t i = 0; i < batch_sizes.size(); ++i) {
    if (static_cast<int64_t>(i) == ivd && !implicit) s.index_dims.push_back(k);
    s.index_dims.push_back(batch_sizes[i]);
  }
  if (!implicit && ivd == static_cast<int64_t>(batch_sizes.size())) s.index_dims.push_back(k);
  for (size_t i = 0; i < batch_is_batching.size(); ++i) {
    if (batch_is_batching[i] < 0) continue;
    s.d.scatter_indices_batching_dims.push_back(static_cast<int64_t>(i) +
                                                (!implicit && static_cast<int64_t>(i) >= ivd));
  }
  const int64_t upd_rank = batch_sizes.size() + window_sizes.size();
  std::vector<int64_t> positions(upd_rank);
  for (int64_t i = 0; i < upd_rank; ++i) positions[i] = i;
  std::shuffle(positions.begin(), positions.end(), rng);
  s.d.update_window_dims.assign(positions.begin(), positions.begin() + window_sizes.size());
  std::sort(s.d.update_window_dims.begin(), s.d.update_window_dims.end());
  size_t wi = 0, bi = 0;
  for (int64_t d = 0; d < upd_rank; ++d) {
    s.update_dims.push_back(Has(s.d.update_window_dims, d) ? window_sizes[wi++]
                                                           : batch_sizes[bi++]);
  }
  return s;
}

struct RandomData {
  ScatterCase s;
  std::vector<int32_t> operand, updates;
  std::vector<int64_t> indices;
};

RandomData MakeRandomData(std::mt19937& rng) {
  RandomData r;
  r.s = RandomScatter(rng);
  r.operand.resize(Product(r.s.operand_dims));
  for (size_t i = 0; i < r.operand.size(); ++i) r.operand[i] = static_cast<int32_t>(i % 11);
  r.updates.resize(Product(r.s.update_dims));
  for (auto& u : r.updates) u = std::uniform_int_distribution<int32_t>(-9, 9)(rng);
  r.indices.resize(Product(r.s.index_dims));
  for (auto& v : r.indices) v = std::uniform_int_distribution<int64_t>(-1, 4)(rng);
  return r;
}

absl::StatusOr<ScatterPlan> PlanFor(const ScatterCase& s) {
  return MakeScatterPlan(ArrayShape(ElementType::kS32, s.operand_dims),
                         ArrayShape(ElementType::kS64, s.index_dims),
                         ArrayShape(ElementType::kS32, s.update_dims), s.d);
}

const uint8_t* Bytes(const void* p) { return static_cast<const uint8_t*>(p); }

TEST(ScatterTest, RandomAddMatchesReference) {
  std::mt19937 rng(99);
  auto add = SelectBinaryKernel(HloOpcode::kAdd, ElementType::kS32, ElementType::kS32);
  ASSERT_TRUE(add.ok());
  int64_t skipped_some = 0;
  for (int iter = 0; iter < 400; ++iter) {
    RandomData r = MakeRandomData(rng);
    auto plan = PlanFor(r.s);
    ASSERT_TRUE(plan.ok()) << plan.status() << " iteration " << iter;
    std::vector<int32_t> out = r.operand;
    RunScatterBinary(*plan, 4, *add, reinterpret_cast<uint8_t*>(out.data()),
                     Bytes(r.indices.data()), Bytes(r.updates.data()));
    const auto expected = ReferenceScatter(r.s, r.operand, r.indices, r.updates,
                                           [](int32_t a, int32_t b) { return a + b; });
    EXPECT_EQ(out, expected) << "iteration " << iter;
    std::vector<int32_t> typed_out = r.operand;
    SelectScatterTypedKernel(HloOpcode::kAdd, ElementType::kS32)(
        *plan, reinterpret_cast<uint8_t*>(typed_out.data()), Bytes(r.indices.data()),
        Bytes(r.updates.data()));
    EXPECT_EQ(typed_out, expected) << "iteration " << iter;
    for (int64_t v : r.indices) skipped_some += v < 0;
  }
  EXPECT_GT(skipped_some, 0);  // out-of-bounds windows were exercised
}

// A non-commutative, order-dependent combiner through the generic iteration:
// positions apply in row-major order, whole window by whole window.
TEST(ScatterTest, RandomOrderDependentCombiner) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 400; ++iter) {
    RandomData r = MakeRandomData(rng);
    auto plan = PlanFor(r.s);
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::vector<int32_t> out = r.operand;
    const IndexWindowPlan& w = plan->windows;
    if (w.window_elems > 0) {
      ForEachIndexedWindow(w, Bytes(r.indices.data()), 0, w.batch_count,
                           [&](int64_t dst, int64_t src) {
                             ForEachWindowRun(w, dst, src, 0, WindowRows(w),
                                              [&](int64_t o, int64_t u, int64_t n) {
                                                for (int64_t e = 0; e < n; ++e) {
                                                  out[o + e] = out[o + e] * 3 - r.updates[u + e];
                                                }
                                              });
                           });
    }
    const auto expected = ReferenceScatter(r.s, r.operand, r.indices, r.updates,
                                           [](int32_t a, int32_t b) { return a * 3 - b; });
    EXPECT_EQ(out, expected) << "iteration " << iter;
  }
}

// The typed kernels agree bit for bit with the elementwise kernels applied
// through RunScatterBinary, on random bits (NaN, infinities, overflow).
TEST(ScatterTest, TypedKernelsMatchElementwiseKernels) {
  std::mt19937 rng(5);
  const HloOpcode ops[] = {HloOpcode::kAdd, HloOpcode::kMultiply, HloOpcode::kMaximum,
                           HloOpcode::kMinimum, HloOpcode::kAnd, HloOpcode::kOr,
                           HloOpcode::kXor};
  const ElementType types[] = {ElementType::kS8,  ElementType::kS16, ElementType::kS32,
                               ElementType::kS64, ElementType::kU8,  ElementType::kU16,
                               ElementType::kU32, ElementType::kU64, ElementType::kF32,
                               ElementType::kF64};
  int tested = 0;
  for (HloOpcode op : ops) {
    for (ElementType t : types) {
      ScatterTypedKernel typed = SelectScatterTypedKernel(op, t);
      if (typed == nullptr) continue;
      auto kernel = SelectBinaryKernel(op, t, t);
      ASSERT_TRUE(kernel.ok()) << HloOpcodeName(op) << " " << ElementTypeName(t);
      ++tested;
      const int es = ByteWidth(t);
      // operand [16,3], 64 positions with repeats, windows of 3.
      ScatterDimensionNumbers d;
      d.update_window_dims = {1};
      d.inserted_window_dims = {0};
      d.scatter_dims_to_operand_dims = {0};
      d.index_vector_dim = 1;
      auto plan = MakeScatterPlan(ArrayShape(t, {16, 3}), ArrayShape(ElementType::kS32, {64, 1}),
                                  ArrayShape(t, {64, 3}), d);
      ASSERT_TRUE(plan.ok()) << plan.status();
      std::vector<uint8_t> operand(16 * 3 * es), updates(64 * 3 * es);
      for (auto& b : operand) b = static_cast<uint8_t>(rng());
      for (auto& b : updates) b = static_cast<uint8_t>(rng());
      std::vector<int32_t> indices(64);
      for (auto& i : indices) i = std::uniform_int_distribution<int32_t>(-1, 16)(rng);
      std::vector<uint8_t> a = operand, b = operand;
      typed(*plan, a.data(), Bytes(indices.data()), updates.data());
      RunScatterBinary(*plan, es, *kernel, b.data(), Bytes(indices.data()), updates.data());
      EXPECT_EQ(a, b) << HloOpcodeName(op) << " " << ElementTypeName(t);
    }
  }
  EXPECT_EQ(tested, 2 * 10 + 5 * 8);
  EXPECT_EQ(SelectScatterTypedKernel(HloOpcode::kMaximum, ElementType::kF32), nullptr);
  EXPECT_EQ(SelectScatterTypedKernel(HloOpcode::kSubtract, ElementType::kS32), nullptr);
}

TEST(ScatterTest, AssignVariadicDifferentWidths) {
  // operand s32[4] and u8[4]; updates at 2, 0, 2 (the later wins), 7 (skipped).
  ScatterDimensionNumbers d;
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 1;
  auto plan = MakeScatterPlan(ArrayShape(ElementType::kS32, {4}),
                              ArrayShape(ElementType::kS32, {4, 1}),
                              ArrayShape(ElementType::kS32, {4}), d);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<int32_t> a = {1, 2, 3, 4};
  std::vector<uint8_t> b = {10, 20, 30, 40};
  const std::vector<int32_t> indices = {2, 0, 2, 7};
  const std::vector<int32_t> ua = {100, 200, 300, 400};
  const std::vector<uint8_t> ub = {5, 6, 7, 8};
  uint8_t* results[] = {reinterpret_cast<uint8_t*>(a.data()), b.data()};
  const uint8_t* updates[] = {Bytes(ua.data()), ub.data()};
  const int sizes[] = {4, 1};
  RunScatterAssign(*plan, sizes, results, Bytes(indices.data()), updates);
  EXPECT_EQ(a, (std::vector<int32_t>{200, 2, 300, 4}));
  EXPECT_EQ(b, (std::vector<uint8_t>{6, 20, 7, 40}));
}

TEST(ScatterTest, WindowMustFitWhole) {
  // operand s32[5], windows of 3: starts 0..2 apply, 3 and -1 are skipped.
  ScatterDimensionNumbers d;
  d.update_window_dims = {1};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 1;
  auto plan = MakeScatterPlan(ArrayShape(ElementType::kS32, {5}),
                              ArrayShape(ElementType::kS32, {4, 1}),
                              ArrayShape(ElementType::kS32, {4, 3}), d);
  ASSERT_TRUE(plan.ok()) << plan.status();
  auto add = SelectBinaryKernel(HloOpcode::kAdd, ElementType::kS32, ElementType::kS32);
  ASSERT_TRUE(add.ok());
  std::vector<int32_t> out = {0, 0, 0, 0, 0};
  const std::vector<int32_t> indices = {2, 3, -1, 0};
  const std::vector<int32_t> updates = {1, 2, 3, 10, 20, 30, 100, 200, 300, 1000, 2000, 3000};
  RunScatterBinary(*plan, 4, *add, reinterpret_cast<uint8_t*>(out.data()), Bytes(indices.data()),
                   Bytes(updates.data()));
  EXPECT_EQ(out, (std::vector<int32_t>{1000, 2000, 3001, 2, 3}));
}

TEST(ScatterTest, RejectsMismatchedShapes) {
  ScatterDimensionNumbers d;
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 1;
  // Updates' scatter dimension (3) does not match the indices (4).
  EXPECT_FALSE(MakeScatterPlan(ArrayShape(ElementType::kS32, {4}),
                               ArrayShape(ElementType::kS32, {4, 1}),
                               ArrayShape(ElementType::kS32, {3}), d)
                   .ok());
  EXPECT_FALSE(MakeScatterPlan(ArrayShape(ElementType::kS32, {4}),
                               ArrayShape(ElementType::kPred, {4, 1}),
                               ArrayShape(ElementType::kS32, {4}), d)
                   .ok());
}

}  // namespace
}  // namespace hlovm
