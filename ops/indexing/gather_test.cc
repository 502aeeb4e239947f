#include "ops/indexing/gather.h"

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

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

struct GatherCase {
  std::vector<int64_t> operand_dims, index_dims, slice_sizes, out_dims;
  GatherDimensionNumbers d;
};

// The semantics, one output element at a time.
std::vector<int32_t> ReferenceGather(const GatherCase& g, const std::vector<int32_t>& operand,
                                     const std::vector<int64_t>& indices) {
  const int64_t out_rank = g.out_dims.size();
  const int64_t idx_rank = g.index_dims.size();
  std::vector<int64_t> batch_out, batch_idx;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (!Has(g.d.offset_dims, d)) batch_out.push_back(d);
  }
  for (int64_t d = 0; d < idx_rank; ++d) {
    if (d != g.d.index_vector_dim) batch_idx.push_back(d);
  }
  std::vector<int64_t> window;
  for (int64_t d = 0; d < static_cast<int64_t>(g.operand_dims.size()); ++d) {
    if (!Has(g.d.collapsed_slice_dims, d) && !Has(g.d.operand_batching_dims, d)) window.push_back(d);
  }
  int64_t n = 1;
  for (int64_t s : g.out_dims) n *= s;
  std::vector<int32_t> out(n);
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<int64_t> o = Unravel(i, g.out_dims);
    std::vector<int64_t> icoord(idx_rank, 0);
    for (size_t k = 0; k < batch_out.size(); ++k) icoord[batch_idx[k]] = o[batch_out[k]];
    std::vector<int64_t> full(g.operand_dims.size(), 0);
    for (size_t k = 0; k < g.d.start_index_map.size(); ++k) {
      if (g.d.index_vector_dim < idx_rank) icoord[g.d.index_vector_dim] = k;
      const int64_t dim = g.d.start_index_map[k];
      const int64_t v = indices[Ravel(icoord, g.index_dims)];
      full[dim] = std::clamp<int64_t>(v, 0, g.operand_dims[dim] - g.slice_sizes[dim]);
    }
    for (size_t k = 0; k < g.d.operand_batching_dims.size(); ++k) {
      const int64_t idim = g.d.start_indices_batching_dims[k];
      const int64_t pos = std::find(batch_idx.begin(), batch_idx.end(), idim) - batch_idx.begin();
      full[g.d.operand_batching_dims[k]] = o[batch_out[pos]];
    }
    for (size_t k = 0; k < window.size(); ++k) full[window[k]] += o[g.d.offset_dims[k]];
    out[i] = operand[Ravel(full, g.operand_dims)];
  }
  return out;
}

// A random valid gather.
GatherCase RandomGather(std::mt19937& rng) {
  auto uni = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  GatherCase g;
  const int64_t rank = uni(1, 4);
  for (int64_t i = 0; i < rank; ++i) g.operand_dims.push_back(uni(1, 5));
  std::vector<int64_t> dims(rank);
  for (int64_t i = 0; i < rank; ++i) dims[i] = i;
  std::shuffle(dims.begin(), dims.end(), rng);
  const int64_t num_batching = rank > 1 ? uni(0, 1) : 0;
  std::vector<int64_t> rest(dims.begin() + num_batching, dims.end());
  std::vector<int64_t> batching(dims.begin(), dims.begin() + num_batching);
  std::sort(batching.begin(), batching.end());
  g.d.operand_batching_dims = batching;
  // start_index_map: a random ordered subset of the other dimensions.
  std::shuffle(rest.begin(), rest.end(), rng);
  const int64_t k = uni(1, rest.size());
  g.d.start_index_map.assign(rest.begin(), rest.begin() + k);
  g.slice_sizes.assign(rank, 1);
  for (int64_t dim : rest) {
    g.slice_sizes[dim] = uni(1, g.operand_dims[dim]);
    if (g.slice_sizes[dim] == 1 && uni(0, 1) == 1) g.d.collapsed_slice_dims.push_back(dim);
  }
  std::sort(g.d.collapsed_slice_dims.begin(), g.d.collapsed_slice_dims.end());
  // Indices: extra batch dims, the batching dims, and the index vector.
  std::vector<int64_t> batch_sizes;
  const int64_t extra = uni(0, 2);
  for (int64_t i = 0; i < extra; ++i) batch_sizes.push_back(uni(1, 3));
  std::vector<int64_t> batch_is_batching(batch_sizes.size(), -1);
  for (int64_t b : batching) {
    const int64_t pos = uni(0, batch_sizes.size());
    batch_sizes.insert(batch_sizes.begin() + pos, g.operand_dims[b]);
    batch_is_batching.insert(batch_is_batching.begin() + pos, b);
  }
  const bool implicit = k == 1 && uni(0, 1) == 1;
  const int64_t ivd = implicit ? batch_sizes.size() : uni(0, batch_sizes.size());
  g.d.index_vector_dim = ivd;
  for (size_t i = 0; i < batch_sizes.size(); ++i) {
    if (static_cast<int64_t>(i) == ivd && !implicit) g.index_dims.push_back(k);
    g.index_dims.push_back(batch_sizes[i]);
  }
  if (!implicit && ivd == static_cast<int64_t>(batch_sizes.size())) g.index_dims.push_back(k);
  for (size_t i = 0; i < batch_is_batching.size(); ++i) {
    if (batch_is_batching[i] < 0) continue;
    const int64_t idim = static_cast<int64_t>(i) + (!implicit && static_cast<int64_t>(i) >= ivd);
    g.d.start_indices_batching_dims.push_back(idim);
  }
  // start_indices_batching_dims pair with operand_batching_dims in order.
  // Output: batch dims and offset dims interleaved at random.
  std::vector<int64_t> window_sizes;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!Has(g.d.collapsed_slice_dims, dim) && !Has(batching, dim)) {
      window_sizes.push_back(g.slice_sizes[dim]);
    }
  }
  const int64_t out_rank = batch_sizes.size() + window_sizes.size();
  std::vector<int64_t> positions(out_rank);
  for (int64_t i = 0; i < out_rank; ++i) positions[i] = i;
  std::shuffle(positions.begin(), positions.end(), rng);
  g.d.offset_dims.assign(positions.begin(), positions.begin() + window_sizes.size());
  std::sort(g.d.offset_dims.begin(), g.d.offset_dims.end());
  g.out_dims.assign(out_rank, 0);
  size_t wi = 0, bi = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    g.out_dims[d] = Has(g.d.offset_dims, d) ? window_sizes[wi++] : batch_sizes[bi++];
  }
  return g;
}

TEST(GatherTest, RandomConfigurationsMatchReference) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 400; ++iter) {
    GatherCase g = RandomGather(rng);
    int64_t op_n = 1, idx_n = 1, out_n = 1;
    for (int64_t s : g.operand_dims) op_n *= s;
    for (int64_t s : g.index_dims) idx_n *= s;
    for (int64_t s : g.out_dims) out_n *= s;
    std::vector<int32_t> operand(op_n);
    for (int64_t i = 0; i < op_n; ++i) operand[i] = static_cast<int32_t>(i * 7 + 3);
    std::vector<int64_t> indices(idx_n);
    for (auto& v : indices) v = std::uniform_int_distribution<int64_t>(-3, 7)(rng);
    auto plan = MakeGatherPlan(ArrayShape(ElementType::kS32, g.operand_dims),
                               ArrayShape(ElementType::kS64, g.index_dims), g.d, g.slice_sizes,
                               ArrayShape(ElementType::kS32, g.out_dims));
    ASSERT_TRUE(plan.ok()) << plan.status() << " iteration " << iter;
    std::vector<int32_t> out(out_n, -1);
    // Two chunks, as the VM splits large gathers.
    const int64_t n = plan->windows.batch_count;
    RunGather(*plan, reinterpret_cast<const uint8_t*>(operand.data()),
              reinterpret_cast<const uint8_t*>(indices.data()),
              reinterpret_cast<uint8_t*>(out.data()), 0, n / 2);
    RunGather(*plan, reinterpret_cast<const uint8_t*>(operand.data()),
              reinterpret_cast<const uint8_t*>(indices.data()),
              reinterpret_cast<uint8_t*>(out.data()), n / 2, n);
    EXPECT_EQ(out, ReferenceGather(g, operand, indices)) << "iteration " << iter;
  }
}

// Each index type, including sign extension of the 2- and 4-bit ones and
// u64 values above the int64 range (clamped high, not wrapped negative).
TEST(GatherTest, IndexTypes) {
  const std::vector<int32_t> operand = {10, 11, 12, 13, 14, 15, 16, 17};
  GatherDimensionNumbers d;
  d.collapsed_slice_dims = {0};
  d.start_index_map = {0};
  d.index_vector_dim = 1;
  struct Case {
    ElementType type;
    std::vector<uint8_t> bytes;  // one index
    int32_t expected;
  };
  auto le = [](uint64_t v, int n) {
    std::vector<uint8_t> b(n);
    std::memcpy(b.data(), &v, n);
    return b;
  };
  const std::vector<Case> cases = {
      {ElementType::kS8, le(static_cast<uint8_t>(-2), 1), 10},
      {ElementType::kU8, le(250, 1), 17},
      {ElementType::kS16, le(3, 2), 13},
      {ElementType::kU16, le(65535, 2), 17},
      {ElementType::kS32, le(static_cast<uint32_t>(-1), 4), 10},
      {ElementType::kU32, le(5, 4), 15},
      {ElementType::kS64, le(static_cast<uint64_t>(int64_t{-1} << 62), 8), 10},
      {ElementType::kU64, le(~uint64_t{0}, 8), 17},
      {ElementType::kU64, le(uint64_t{1} << 63, 8), 17},
      {ElementType::kS4, {0x0F}, 10},  // -1
      {ElementType::kS4, {0x07}, 17},
      {ElementType::kU4, {0x0F}, 17},
      {ElementType::kS2, {0x01}, 11},
      {ElementType::kS2, {0x02}, 10},  // -2
      {ElementType::kU2, {0x03}, 13},
  };
  for (const Case& c : cases) {
    auto plan = MakeGatherPlan(ArrayShape(ElementType::kS32, {8}), ArrayShape(c.type, {1, 1}), d,
                               {1}, ArrayShape(ElementType::kS32, {1}));
    ASSERT_TRUE(plan.ok()) << plan.status();
    int32_t out = 0;
    RunGather(*plan, reinterpret_cast<const uint8_t*>(operand.data()), c.bytes.data(),
              reinterpret_cast<uint8_t*>(&out), 0, 1);
    EXPECT_EQ(out, c.expected) << ElementTypeName(c.type);
  }
}

// Element widths 1, 2, 8 and 16 bytes copy whole elements.
TEST(GatherTest, ElementWidths) {
  GatherDimensionNumbers d;
  d.offset_dims = {1};
  d.collapsed_slice_dims = {0};
  d.start_index_map = {0};
  d.index_vector_dim = 1;
  const std::vector<int32_t> indices = {2, 0, 1};
  for (ElementType t : {ElementType::kU8, ElementType::kF16, ElementType::kF64,
                        ElementType::kC128}) {
    const int es = ByteWidth(t);
    std::vector<uint8_t> operand(3 * 2 * es);
    for (size_t i = 0; i < operand.size(); ++i) operand[i] = static_cast<uint8_t>(i * 13 + 1);
    auto plan = MakeGatherPlan(ArrayShape(t, {3, 2}), ArrayShape(ElementType::kS32, {3, 1}), d,
                               {1, 2}, ArrayShape(t, {3, 2}));
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::vector<uint8_t> out(operand.size());
    RunGather(*plan, operand.data(), reinterpret_cast<const uint8_t*>(indices.data()), out.data(),
              0, 3);
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(0, std::memcmp(out.data() + r * 2 * es, operand.data() + indices[r] * 2 * es,
                               2 * es))
          << ElementTypeName(t) << " row " << r;
    }
  }
}

TEST(GatherTest, RejectsBadNumbers) {
  GatherDimensionNumbers d;
  d.offset_dims = {1};
  d.start_index_map = {5};
  d.index_vector_dim = 1;
  EXPECT_FALSE(MakeGatherPlan(ArrayShape(ElementType::kS32, {3}),
                              ArrayShape(ElementType::kS32, {2, 1}), d, {1},
                              ArrayShape(ElementType::kS32, {2, 1}))
                   .ok());
  d.start_index_map = {0};
  EXPECT_FALSE(MakeGatherPlan(ArrayShape(ElementType::kS32, {3}),
                              ArrayShape(ElementType::kF32, {2, 1}), d, {1},
                              ArrayShape(ElementType::kS32, {2, 1}))
                   .ok());
}

}  // namespace
}  // namespace hlovm
