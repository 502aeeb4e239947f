#include "ops/dot/ragged_dot.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/dot/dot.h"

namespace hlovm {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t Product(const Shape& s, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= s.dimensions(d);
  return p;
}

// The dimensions of `s` in none of the lists, ascending.
std::vector<int64_t> FreeDims(const Shape& s, std::initializer_list<const std::vector<int64_t>*> used) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < s.rank(); ++d) {
    bool taken = false;
    for (const auto* list : used) taken |= Contains(*list, d);
    if (!taken) free.push_back(d);
  }
  return free;
}

// The operand in the canonical order and the compute type: in `src`
// itself, or in `moved` or `converted`.
const uint8_t* Prepare(const DotOperandPlan& p, const void* src, int compute_size,
                       std::vector<uint8_t>& moved, std::vector<uint8_t>& converted) {
  if (p.transpose.has_value()) moved.resize(p.element_count * p.elem_size);
  if (p.convert != nullptr) converted.resize(p.element_count * compute_size);
  return static_cast<const uint8_t*>(PrepareDotOperand(p, src, moved.data(), converted.data()));
}

std::vector<int64_t> ReadGroupSizes(ElementType type, const void* data, int64_t count) {
  std::vector<int64_t> v(count);
  for (int64_t i = 0; i < count; ++i) {
    switch (type) {
      case ElementType::kS8: v[i] = static_cast<const int8_t*>(data)[i]; break;
      case ElementType::kS16: v[i] = static_cast<const int16_t*>(data)[i]; break;
      case ElementType::kS32: v[i] = static_cast<const int32_t*>(data)[i]; break;
      case ElementType::kS64: v[i] = static_cast<const int64_t*>(data)[i]; break;
      case ElementType::kU8: v[i] = static_cast<const uint8_t*>(data)[i]; break;
      case ElementType::kU16: v[i] = static_cast<const uint16_t*>(data)[i]; break;
      case ElementType::kU32: v[i] = static_cast<const uint32_t*>(data)[i]; break;
      case ElementType::kU64: v[i] = static_cast<int64_t>(static_cast<const uint64_t*>(data)[i]); break;
      default: v[i] = 0;
    }
  }
  return v;
}

void Gemm(const GemmKernel& gemm, const void* a, const void* b, void* c, int64_t m, int64_t k,
          int64_t n) {
  GemmDims dims;
  dims.m = m;
  dims.k = k;
  dims.n = n;
  gemm.RunAll(a, b, c, dims);
}

}  // namespace

RaggedDotMode RaggedDotModeOf(const DotDimensionNumbers& dnums) {
  const int64_t r = dnums.lhs_ragged_dimensions.empty() ? -1 : dnums.lhs_ragged_dimensions[0];
  if (Contains(dnums.lhs_contracting_dimensions, r)) return RaggedDotMode::kContracting;
  if (Contains(dnums.lhs_batch_dimensions, r)) return RaggedDotMode::kBatch;
  return RaggedDotMode::kNonContracting;
}

absl::StatusOr<RaggedDotPlan> MakeRaggedDotPlan(const Shape& lhs, const Shape& rhs,
                                                const Shape& group_sizes, const Shape& result,
                                                const DotDimensionNumbers& dn) {
  if (!lhs.IsArray() || !rhs.IsArray() || !group_sizes.IsArray() || !result.IsArray() ||
      dn.lhs_ragged_dimensions.size() != 1 || group_sizes.rank() < 1) {
    return absl::InvalidArgumentError("ragged-dot needs arrays and one lhs ragged dimension");
  }
  RaggedDotPlan p;
  p.mode = RaggedDotModeOf(dn);
  if (p.mode == RaggedDotMode::kBatch) {
    return absl::InvalidArgumentError("ragged-dot with a ragged batch dimension is a plain dot");
  }
  p.result_type = result.element_type();
  p.compute_type = DotComputeType(p.result_type);
  p.compute_size = ByteWidth(p.compute_type);
  p.group_type = group_sizes.element_type();
  p.result_elements = result.element_count();
  const int64_t r = dn.lhs_ragged_dimensions[0];
  std::vector<int64_t> lc = dn.lhs_contracting_dimensions, rc = dn.rhs_contracting_dimensions;
  const std::vector<int64_t>& lb = dn.lhs_batch_dimensions;
  const std::vector<int64_t>& rb = dn.rhs_batch_dimensions;
  const std::vector<int64_t>& rg = dn.rhs_group_dimensions;
  const std::vector<int64_t> lfree = FreeDims(lhs, {&lb, &lc});
  const std::vector<int64_t> rfree = FreeDims(rhs, {&rb, &rc, &rg});
  p.batch = Product(lhs, lb);
  p.m = Product(lhs, lfree);
  p.k = Product(lhs, lc);
  p.n = Product(rhs, rfree);
  p.groups = group_sizes.dimensions(group_sizes.rank() - 1);
  p.ragged_size = lhs.dimensions(r);
  std::vector<int64_t> lorder(lb), rorder;
  if (p.mode == RaggedDotMode::kNonContracting) {
    if (rg.size() != 1 || rhs.dimensions(rg[0]) != p.groups) {
      return absl::InvalidArgumentError("ragged-dot: the rhs group dimension must hold one entry per group");
    }
    const size_t pos = std::find(lfree.begin(), lfree.end(), r) - lfree.begin();
    for (size_t i = pos + 1; i < lfree.size(); ++i) p.ragged_inner *= lhs.dimensions(lfree[i]);
    lorder.insert(lorder.end(), lfree.begin(), lfree.end());
    lorder.insert(lorder.end(), lc.begin(), lc.end());
    rorder.push_back(rg[0]);
  } else {
    // The ragged contracting dimension (and its rhs partner) first.
    const size_t pos = std::find(lc.begin(), lc.end(), r) - lc.begin();
    std::rotate(lc.begin(), lc.begin() + pos, lc.begin() + pos + 1);
    std::rotate(rc.begin(), rc.begin() + pos, rc.begin() + pos + 1);
    p.ragged_inner = p.ragged_size == 0 ? 1 : p.k / p.ragged_size;
    lorder.insert(lorder.end(), lfree.begin(), lfree.end());
    lorder.insert(lorder.end(), lc.begin(), lc.end());
  }
  rorder.insert(rorder.end(), rb.begin(), rb.end());
  rorder.insert(rorder.end(), rc.begin(), rc.end());
  rorder.insert(rorder.end(), rfree.begin(), rfree.end());
  const int64_t want = (p.mode == RaggedDotMode::kContracting ? p.groups : 1) * p.batch * p.m * p.n;
  if (want != p.result_elements) {
    return absl::InvalidArgumentError("ragged-dot: operand and result sizes disagree");
  }
  // Sets of groups: group_sizes' leading dimensions index lhs dimensions
  // 0..nd-1 (batch or free ones for a ragged non-contracting dimension,
  // batch ones for a ragged contracting one).
  const int64_t nd = group_sizes.rank() - 1;
  for (int64_t i = 0; i < nd; ++i) {
    if (i >= lhs.rank() || group_sizes.dimensions(i) != lhs.dimensions(i) || Contains(lc, i) ||
        (p.mode == RaggedDotMode::kContracting && !Contains(lb, i))) {
      return absl::UnimplementedError(absl::StrCat(
          "ragged-dot: group_sizes dimension ", i, " must match a leading lhs ",
          p.mode == RaggedDotMode::kContracting ? "batch" : "batch or non-contracting",
          " dimension of the same size"));
    }
    p.group_sets *= group_sizes.dimensions(i);
  }
  if (nd > 0) {
    const int64_t rows = p.mode == RaggedDotMode::kContracting ? p.batch : p.batch * p.m;
    p.row_set.resize(rows);
    std::vector<int64_t> coord(lhs.rank());
    for (int64_t row = 0; row < rows; ++row) {
      int64_t b = p.mode == RaggedDotMode::kContracting ? row : row / std::max<int64_t>(1, p.m);
      int64_t mi = p.mode == RaggedDotMode::kContracting ? 0 : row % std::max<int64_t>(1, p.m);
      for (size_t i = lb.size(); i-- > 0;) {
        coord[lb[i]] = b % lhs.dimensions(lb[i]);
        b /= lhs.dimensions(lb[i]);
      }
      for (size_t i = lfree.size(); i-- > 0;) {
        coord[lfree[i]] = mi % lhs.dimensions(lfree[i]);
        mi /= lhs.dimensions(lfree[i]);
      }
      int64_t set = 0;
      for (int64_t i = 0; i < nd; ++i) set = set * lhs.dimensions(i) + coord[i];
      p.row_set[row] = static_cast<int32_t>(set);
    }
  }
  HLOVM_ASSIGN_OR_RETURN(p.lhs, MakeDotOperandPlan(lhs, lorder, p.compute_type, /*strided=*/false,
                                                   /*always_convert=*/true));
  HLOVM_ASSIGN_OR_RETURN(p.rhs, MakeDotOperandPlan(rhs, rorder, p.compute_type, /*strided=*/false,
                                                   /*always_convert=*/true));
  if (p.compute_type != p.result_type) {
    HLOVM_ASSIGN_OR_RETURN(p.result_convert, SelectConvertKernel(p.compute_type, p.result_type));
  }
  HLOVM_ASSIGN_OR_RETURN(p.gemm, SelectGemmKernel(p.compute_type));
  return p;
}

void RunRaggedDot(const RaggedDotPlan& p, const void* lhs, const void* rhs, const void* group_sizes,
                  void* out) {
  const int cs = p.compute_size;
  std::vector<uint8_t> a_moved, a_converted, b_moved, b_converted;
  const uint8_t* a = Prepare(p.lhs, lhs, cs, a_moved, a_converted);
  const uint8_t* b = Prepare(p.rhs, rhs, cs, b_moved, b_converted);
  const std::vector<int64_t> sizes = ReadGroupSizes(p.group_type, group_sizes, p.group_sets * p.groups);
  // Group g of set s covers ragged indices [start(s, g), end(s, g)).
  std::vector<int64_t> ends(sizes.size());
  for (int64_t s = 0; s < p.group_sets; ++s) {
    int64_t sum = 0;
    for (int64_t g = 0; g < p.groups; ++g) ends[s * p.groups + g] = sum += sizes[s * p.groups + g];
  }
  auto start = [&](int64_t s, int64_t g) { return g == 0 ? 0 : ends[s * p.groups + g - 1]; };
  std::vector<uint8_t> c(p.result_elements * cs, 0);
  if (p.mode == RaggedDotMode::kNonContracting) {
    const BinaryKernel add =
        SelectBinaryKernel(p.compute_type == ElementType::kPred ? HloOpcode::kOr : HloOpcode::kAdd,
                           p.compute_type, p.compute_type)
            .value_or(nullptr);
    std::vector<int64_t> rows;
    std::vector<uint8_t> a_rows, c_rows;
    for (int64_t bi = 0; bi < p.batch; ++bi) {
      for (int64_t g = 0; g < p.groups; ++g) {
        rows.clear();
        for (int64_t mi = 0; mi < p.m; ++mi) {
          const int64_t s = p.row_set.empty() ? 0 : p.row_set[bi * p.m + mi];
          const int64_t idx = (mi / p.ragged_inner) % p.ragged_size;
          if (idx >= start(s, g) && idx < ends[s * p.groups + g]) rows.push_back(mi);
        }
        if (rows.empty()) continue;
        const int64_t nr = static_cast<int64_t>(rows.size());
        a_rows.resize(nr * p.k * cs);
        c_rows.resize(nr * p.n * cs);
        for (int64_t i = 0; i < nr; ++i) {
          std::memcpy(a_rows.data() + i * p.k * cs, a + (bi * p.m + rows[i]) * p.k * cs, p.k * cs);
        }
        Gemm(p.gemm, a_rows.data(), b + (g * p.batch + bi) * p.k * p.n * cs, c_rows.data(), nr,
             p.k, p.n);
        for (int64_t i = 0; i < nr; ++i) {
          uint8_t* dst = c.data() + (bi * p.m + rows[i]) * p.n * cs;
          add(dst, c_rows.data() + i * p.n * cs, dst, p.n);
        }
      }
    }
  } else {
    std::vector<uint8_t> a_cols;
    for (int64_t g = 0; g < p.groups; ++g) {
      for (int64_t bi = 0; bi < p.batch; ++bi) {
        const int64_t s = p.row_set.empty() ? 0 : p.row_set[bi];
        const int64_t k0 = std::clamp<int64_t>(start(s, g) * p.ragged_inner, 0, p.k);
        const int64_t k1 = std::clamp<int64_t>(ends[s * p.groups + g] * p.ragged_inner, 0, p.k);
        if (k1 <= k0) continue;  // zeros
        const int64_t kk = k1 - k0;
        a_cols.resize(p.m * kk * cs);
        for (int64_t mi = 0; mi < p.m; ++mi) {
          std::memcpy(a_cols.data() + mi * kk * cs, a + ((bi * p.m + mi) * p.k + k0) * cs, kk * cs);
        }
        Gemm(p.gemm, a_cols.data(), b + (bi * p.k + k0) * p.n * cs,
             c.data() + (g * p.batch + bi) * p.m * p.n * cs, p.m, kk, p.n);
      }
    }
  }
  if (p.result_convert != nullptr) {
    p.result_convert(c.data(), out, p.result_elements);
  } else if (p.result_elements > 0) {
    std::memcpy(out, c.data(), c.size());
  }
}

}  // namespace hlovm
