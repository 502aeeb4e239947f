#include "ops/dot/dot.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/float_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/dot/gemm.h"

namespace hlovm {
namespace {

DotDimensionNumbers Dnums(std::vector<int64_t> lb, std::vector<int64_t> lc, std::vector<int64_t> rb,
                          std::vector<int64_t> rc) {
  DotDimensionNumbers d;
  d.lhs_batch_dimensions = lb;
  d.lhs_contracting_dimensions = lc;
  d.rhs_batch_dimensions = rb;
  d.rhs_contracting_dimensions = rc;
  return d;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * dims[i + 1];
  return s;
}

// Obvious reference over the result index space: result dims are batch,
// lhs free, rhs free; each element sums over the contracting index space.
template <typename T, typename Acc>
std::vector<Acc> RefDot(const std::vector<T>& lhs, const std::vector<int64_t>& ld,
                        const std::vector<T>& rhs, const std::vector<int64_t>& rd,
                        const DotDimensionNumbers& dn, std::vector<int64_t>* out_dims) {
  auto free_dims = [](int64_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> f;
    for (int64_t i = 0; i < rank; ++i) {
      bool used = false;
      for (int64_t x : a) used |= x == i;
      for (int64_t x : b) used |= x == i;
      if (!used) f.push_back(i);
    }
    return f;
  };
  const auto lf = free_dims(ld.size(), dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const auto rf = free_dims(rd.size(), dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  out_dims->clear();
  for (int64_t d : dn.lhs_batch_dimensions) out_dims->push_back(ld[d]);
  for (int64_t d : lf) out_dims->push_back(ld[d]);
  for (int64_t d : rf) out_dims->push_back(rd[d]);
  std::vector<int64_t> cdims;
  for (int64_t d : dn.lhs_contracting_dimensions) cdims.push_back(ld[d]);
  int64_t out_n = 1, c_n = 1;
  for (int64_t d : *out_dims) out_n *= d;
  for (int64_t d : cdims) c_n *= d;
  const auto ls = Strides(ld), rs = Strides(rd), os = Strides(*out_dims), cs = Strides(cdims);
  std::vector<Acc> out(out_n);
  const size_t nb = dn.lhs_batch_dimensions.size();
  for (int64_t o = 0; o < out_n; ++o) {
    std::vector<int64_t> oi(out_dims->size());
    for (size_t i = 0; i < oi.size(); ++i) oi[i] = (o / os[i]) % (*out_dims)[i];
    Acc acc = Acc(0);
    for (int64_t c = 0; c < c_n; ++c) {
      int64_t li = 0, ri = 0;
      for (size_t i = 0; i < nb; ++i) {
        li += oi[i] * ls[dn.lhs_batch_dimensions[i]];
        ri += oi[i] * rs[dn.rhs_batch_dimensions[i]];
      }
      for (size_t i = 0; i < lf.size(); ++i) li += oi[nb + i] * ls[lf[i]];
      for (size_t i = 0; i < rf.size(); ++i) ri += oi[nb + lf.size() + i] * rs[rf[i]];
      for (size_t i = 0; i < cdims.size(); ++i) {
        const int64_t ci = (c / cs[i]) % cdims[i];
        li += ci * ls[dn.lhs_contracting_dimensions[i]];
        ri += ci * rs[dn.rhs_contracting_dimensions[i]];
      }
      acc = acc + static_cast<Acc>(lhs[li]) * static_cast<Acc>(rhs[ri]);
    }
    out[o] = acc;
  }
  return out;
}

template <typename T>
std::vector<T> Random(int64_t n, int seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

int64_t Count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

template <typename T>
std::vector<T> RunCase(ElementType et, ElementType out_t, const std::vector<int64_t>& ld,
                       const std::vector<T>& lhs, const std::vector<int64_t>& rd,
                       const std::vector<T>& rhs, const DotDimensionNumbers& dn,
                       const std::vector<int64_t>& out_dims, int64_t out_elem_size) {
  auto plan = MakeDotPlan(Shape(et, ld), Shape(et, rd), Shape(out_t, out_dims), dn);
  EXPECT_TRUE(plan.ok()) << plan.status();
  std::vector<uint8_t> out(Count(out_dims) * out_elem_size + 1);
  std::vector<uint8_t> scratch(plan->scratch_bytes + 64);
  RunDot(*plan, lhs.data(), rhs.data(), out.data(), scratch.data());
  std::vector<T> r(Count(out_dims));
  if (!r.empty()) std::memcpy(r.data(), out.data(), r.size() * sizeof(T));
  return r;
}

TEST(DotTest, F32GeneralDimensionNumbersMatchReference) {
  struct Case {
    std::vector<int64_t> ld, rd;
    DotDimensionNumbers dn;
  };
  const std::vector<Case> cases = {
      {{5, 7}, {7, 3}, Dnums({}, {1}, {}, {0})},
      {{7, 5}, {3, 7}, Dnums({}, {0}, {}, {1})},
      {{2, 3, 4, 5}, {5, 2, 4, 6}, Dnums({0}, {3, 2}, {1}, {0, 2})},
      {{3, 2, 4}, {4, 3, 2}, Dnums({1, 0}, {2}, {2, 1}, {0})},
      {{4}, {4}, Dnums({}, {0}, {}, {0})},
      {{3, 2}, {2, 4}, Dnums({}, {}, {}, {})},
      {{2, 0, 3}, {2, 3, 4}, Dnums({0}, {2}, {0}, {1})},
      {{2, 3, 0}, {2, 0, 4}, Dnums({0}, {2}, {0}, {1})},
      {{130, 300}, {300, 200}, Dnums({}, {1}, {}, {0})},
      {{3, 261, 17}, {3, 17, 203}, Dnums({0}, {2}, {0}, {1})},
      // Read through strides (no transpose): k-major lhs, batch in the
      // middle, rhs with k innermost; several k blocks and edge tiles.
      {{300, 3, 130}, {3, 200, 300}, Dnums({1}, {0}, {0}, {2})},
      {{2, 300, 7, 5}, {2, 300, 9}, Dnums({0}, {1}, {0}, {1})},
  };
  for (const Case& c : cases) {
    const auto lhs = Random<float>(Count(c.ld), 1, -8, 8);
    const auto rhs = Random<float>(Count(c.rd), 2, -8, 8);
    std::vector<int64_t> od;
    const auto want = RefDot<float, double>(lhs, c.ld, rhs, c.rd, c.dn, &od);
    const auto got =
        RunCase<float>(ElementType::kF32, ElementType::kF32, c.ld, lhs, c.rd, rhs, c.dn, od, 4);
    ASSERT_EQ(got.size(), want.size());
    // Small integers: every partial sum is exact in f32.
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<float>(want[i])) << i;
  }
}

TEST(DotTest, StridedOperandsSkipTheTranspose) {
  auto plan =
      MakeDotPlan(Shape(ElementType::kF32, {300, 3, 130}), Shape(ElementType::kF32, {3, 200, 300}),
                  Shape(ElementType::kF32, {3, 130, 200}), Dnums({1}, {0}, {0}, {2}));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->dims.use_strides);
  EXPECT_FALSE(plan->lhs.transpose.has_value());
  EXPECT_FALSE(plan->rhs.transpose.has_value());
  // Contracting dims {3, 2} of lhs are not contiguous in that order.
  plan = MakeDotPlan(Shape(ElementType::kF32, {2, 3, 4, 5}), Shape(ElementType::kF32, {5, 2, 4, 6}),
                     Shape(ElementType::kF32, {2, 3, 6}), Dnums({0}, {3, 2}, {1}, {0, 2}));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->dims.use_strides);
  EXPECT_TRUE(plan->lhs.transpose.has_value());
  // Integers always relayout to row-major.
  plan = MakeDotPlan(Shape(ElementType::kS32, {4, 3}), Shape(ElementType::kS32, {4, 5}),
                     Shape(ElementType::kS32, {3, 5}), Dnums({}, {0}, {}, {0}));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->lhs.transpose.has_value());
}

TEST(DotTest, F64AndF32LargeMatchReferenceClosely) {
  const int64_t m = 67, k = 513, n = 131;
  std::mt19937 rng(7);
  std::normal_distribution<double> dist;
  std::vector<double> a(m * k), b(k * n);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  std::vector<int64_t> od;
  const auto dn = Dnums({}, {1}, {}, {0});
  const auto want = RefDot<double, double>(a, {m, k}, b, {k, n}, dn, &od);
  const auto got =
      RunCase<double>(ElementType::kF64, ElementType::kF64, {m, k}, a, {k, n}, b, dn, od, 8);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-10) << i;
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  const auto gotf =
      RunCase<float>(ElementType::kF32, ElementType::kF32, {m, k}, af, {k, n}, bf, dn, od, 4);
  for (size_t i = 0; i < gotf.size(); ++i) ASSERT_NEAR(gotf[i], want[i], 1e-3) << i;
}

TEST(DotTest, F32SumsSequentiallyOverK) {
  // With K spanning several k blocks, each element is the plain left-to-right
  // fused sum; compare with a sequential fmaf loop.
  const int64_t m = 7, k = 3 * kGemmBlockK + 5, n = 19;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(m * k), b(k * n);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  const auto dn = Dnums({}, {1}, {}, {0});
  const auto got =
      RunCase<float>(ElementType::kF32, ElementType::kF32, {m, k}, a, {k, n}, b, dn, {m, n}, 4);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0, acc_mul_add = 0;
      for (int64_t p = 0; p < k; ++p) {
        acc = std::fma(a[i * k + p], b[p * n + j], acc);
        acc_mul_add = acc_mul_add + a[i * k + p] * b[p * n + j];
      }
      // The FMA targets match the fused sum exactly; targets without FMA
      // match the unfused one.
      ASSERT_TRUE(got[i * n + j] == acc || got[i * n + j] == acc_mul_add) << i << "," << j;
    }
  }
}

TEST(DotTest, IntegersWrapAround) {
  const std::vector<int64_t> ld = {3, 4}, rd = {4, 5};
  const auto dn = Dnums({}, {1}, {}, {0});
  const auto lhs = Random<int8_t>(12, 4, -128, 127);
  const auto rhs = Random<int8_t>(20, 5, -128, 127);
  std::vector<int64_t> od;
  const auto want = RefDot<int8_t, int64_t>(lhs, ld, rhs, rd, dn, &od);
  const auto got8 =
      RunCase<int8_t>(ElementType::kS8, ElementType::kS8, ld, lhs, rd, rhs, dn, od, 1);
  for (size_t i = 0; i < got8.size(); ++i) {
    ASSERT_EQ(got8[i], static_cast<int8_t>(static_cast<uint8_t>(want[i] & 0xff))) << i;
  }
  // s8 x s8 -> s32: no wrap.
  auto plan = MakeDotPlan(Shape(ElementType::kS8, ld), Shape(ElementType::kS8, rd),
                          Shape(ElementType::kS32, od), dn);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<int32_t> out(15);
  std::vector<uint8_t> scratch(plan->scratch_bytes + 64);
  RunDot(*plan, lhs.data(), rhs.data(), out.data(), scratch.data());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], want[i]) << i;
  // u64 wraps modulo 2^64.
  std::vector<uint64_t> a = {~uint64_t{0}, 3}, b = {~uint64_t{0}, 5};
  const auto got64 =
      RunCase<uint64_t>(ElementType::kU64, ElementType::kU64, {1, 2}, a, {2, 1}, b, dn, {1, 1}, 8);
  EXPECT_EQ(got64[0], uint64_t{1} + 15);
}

TEST(DotTest, PredIsOrOfAnds) {
  const std::vector<uint8_t> a = {1, 0, 0, 0, 1, 1}, b = {0, 1, 1, 1, 0, 0};
  const auto dn = Dnums({}, {1}, {}, {0});
  // a: [[1,0,0],[0,1,1]], b: [[0,1],[1,1],[0,0]].
  const auto got =
      RunCase<uint8_t>(ElementType::kPred, ElementType::kPred, {2, 3}, a, {3, 2}, b, dn, {2, 2}, 1);
  EXPECT_EQ(got, (std::vector<uint8_t>{0, 1, 1, 1}));
}

TEST(DotTest, Bf16AccumulatesInF32AndRounds) {
  // 256 + 1 + 1 ... in bf16 would stay 256; in f32 it reaches 256 + 8.
  const int64_t k = 9;
  std::vector<uint16_t> a(k), b(k);
  for (int64_t i = 0; i < k; ++i) {
    a[i] = FloatToBFloat16(i == 0 ? 256.0f : 1.0f);
    b[i] = FloatToBFloat16(1.0f);
  }
  const auto dn = Dnums({}, {0}, {}, {0});
  const auto got =
      RunCase<uint16_t>(ElementType::kBF16, ElementType::kBF16, {k}, a, {k}, b, dn, {}, 2);
  EXPECT_EQ(BFloat16ToFloat(got[0]), 264.0f);
  auto plan = MakeDotPlan(Shape(ElementType::kBF16, {k}), Shape(ElementType::kBF16, {k}),
                          Shape(ElementType::kF32, {}), dn);
  ASSERT_TRUE(plan.ok()) << plan.status();
  float f = 0;
  std::vector<uint8_t> scratch(plan->scratch_bytes + 64);
  RunDot(*plan, a.data(), b.data(), &f, scratch.data());
  EXPECT_EQ(f, 264.0f);
}

TEST(DotTest, Complex64) {
  using C = std::complex<float>;
  const std::vector<C> a = {{1, 2}, {3, -1}}, b = {{0, 1}, {2, 2}};
  const auto dn = Dnums({}, {0}, {}, {0});
  const auto got = RunCase<C>(ElementType::kC64, ElementType::kC64, {2}, a, {2}, b, dn, {}, 8);
  EXPECT_EQ(got[0], C(1, 2) * C(0, 1) + C(3, -1) * C(2, 2));
}

TEST(DotTest, UnitsSplitDoesNotChangeResult) {
  const int64_t m = 500, k = 300, n = 1000;
  const auto a = Random<float>(m * k, 9, -3, 3);
  const auto b = Random<float>(k * n, 10, -3, 3);
  auto plan = MakeDotPlan(Shape(ElementType::kF32, {m, k}), Shape(ElementType::kF32, {k, n}),
                          Shape(ElementType::kF32, {m, n}), Dnums({}, {1}, {}, {0}));
  ASSERT_TRUE(plan.ok());
  ASSERT_GT(plan->units, 2);
  std::vector<float> one(m * n), split(m * n);
  RunDot(*plan, a.data(), b.data(), one.data(), nullptr);
  const DotBuffers bufs = DotPrepare(*plan, a.data(), b.data(), split.data(), nullptr);
  for (int64_t u = plan->units - 1; u >= 0; --u) DotGemmUnits(*plan, bufs, u, u + 1);
  EXPECT_EQ(0, std::memcmp(one.data(), split.data(), one.size() * 4));
}

// A dot of few rows (an MLP layer on a batch of 32: forward, and backward
// for the inputs and the weights) was one default unit of C, or a few;
// above kParallelDotFlops its plan splits it into several, whose results
// are the same bits as the default blocks', run on one thread or spread
// over four.
TEST(DotTest, FewRowsDotSplitsIntoUnitsWithTheSameBits) {
  struct Case {
    std::vector<int64_t> ld, rd, od;
    int64_t lc, rc;
    int64_t default_units;
  };
  const std::vector<Case> cases = {
      {{32, 784}, {784, 512}, {32, 512}, 1, 0, 1},  // x W
      {{32, 512}, {512, 512}, {32, 512}, 1, 1, 1},  // dh W^T
      {{32, 512}, {32, 512}, {512, 512}, 0, 0, 2},  // x^T dh
      {{32, 784}, {32, 512}, {784, 512}, 0, 0, 4},
  };
  tbb::task_arena arena(4);
  int seed = 50;
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << "lhs " << c.ld[0] << "x" << c.ld[1] << " rhs " << c.rd[0] << "x" << c.rd[1]);
    auto plan = MakeDotPlan(Shape(ElementType::kF32, c.ld), Shape(ElementType::kF32, c.rd),
                            Shape(ElementType::kF32, c.od), Dnums({}, {c.lc}, {}, {c.rc}));
    ASSERT_TRUE(plan.ok());
    ASSERT_GE(plan->flops(), kParallelDotFlops);
    DotPlan whole = *plan;  // the default blocks
    whole.dims.block_m = whole.dims.block_n = 0;
    whole.units = whole.gemm.Units(whole.dims);
    ASSERT_EQ(whole.units, c.default_units);
    EXPECT_GE(plan->units, 4);
    EXPECT_GT(plan->units, whole.units);
    const auto a = Random<float>(Count(c.ld), ++seed, -3, 3);
    const auto b = Random<float>(Count(c.rd), ++seed, -3, 3);
    const int64_t out = Count(c.od);
    std::vector<float> want(out), one_thread(out), threads(out, 7.0f);
    RunDot(whole, a.data(), b.data(), want.data(), nullptr);
    RunDot(*plan, a.data(), b.data(), one_thread.data(), nullptr);
    std::vector<uint8_t> scratch(static_cast<size_t>(plan->scratch_bytes) + 64);
    const DotBuffers bufs = DotPrepare(*plan, a.data(), b.data(), threads.data(), scratch.data());
    arena.execute([&] {
      tbb::parallel_for(int64_t{0}, plan->units,
                        [&](int64_t u) { DotGemmUnits(*plan, bufs, u, u + 1); });
    });
    DotFinish(*plan, bufs, threads.data());
    EXPECT_EQ(0, std::memcmp(want.data(), one_thread.data(), out * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(want.data(), threads.data(), out * sizeof(float)));
  }
  // Below kParallelDotFlops a dot keeps its default units.
  auto small = MakeDotPlan(Shape(ElementType::kF32, {32, 64}), Shape(ElementType::kF32, {64, 512}),
                           Shape(ElementType::kF32, {32, 512}), Dnums({}, {1}, {}, {0}));
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->units, 1);
}

// Element (i, j) of batch bi, summed over k in sequential order with one
// fused multiply-add per term (and the unfused sum, for targets without
// FMA), reading A and B through the element strides of `d`.
template <typename T>
void SequentialSums(const std::vector<T>& a, const std::vector<T>& b, const GemmDims& d, int64_t bi,
                    int64_t i, int64_t j, T* fused, T* unfused) {
  T f = 0, u = 0;
  for (int64_t p = 0; p < d.k; ++p) {
    const T x = a[bi * d.a_sb + i * d.a_sm + p * d.a_sk];
    const T y = b[bi * d.b_sb + p * d.b_sk + j * d.b_sn];
    f = std::fma(x, y, f);
    u = u + x * y;
  }
  *fused = f, *unfused = u;
}

// Runs the f32/f64 GEMM kernel on `d` with the units split one by one in
// reverse order and all at once; both must give the same bits and match the
// sequential sums exactly.
template <typename T>
void CheckGemm(ElementType type, GemmDims d, int seed) {
  SCOPED_TRACE(testing::Message() << "b=" << d.batch << " m=" << d.m << " k=" << d.k << " n=" << d.n
                                  << " strided=" << d.use_strides);
  if (!d.use_strides) {
    d.a_sb = d.m * d.k, d.a_sm = d.k, d.a_sk = 1;
    d.b_sb = d.k * d.n, d.b_sk = d.n, d.b_sn = 1;
  }
  int64_t a_size = 1, b_size = 1;
  for (int64_t bi = 0; bi < d.batch; ++bi) {
    for (int64_t i = 0; i < d.m; ++i) {
      for (int64_t p = 0; p < d.k; ++p) {
        a_size = std::max(a_size, bi * d.a_sb + i * d.a_sm + p * d.a_sk + 1);
      }
    }
    for (int64_t p = 0; p < d.k; ++p) {
      for (int64_t j = 0; j < d.n; ++j) {
        b_size = std::max(b_size, bi * d.b_sb + p * d.b_sk + j * d.b_sn + 1);
      }
    }
  }
  std::mt19937 rng(seed);
  std::uniform_real_distribution<T> dist(-1, 1);
  std::vector<T> a(a_size), b(b_size);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  auto kernel = SelectGemmKernel(type);
  ASSERT_TRUE(kernel.ok());
  const int64_t units = kernel->Units(d);
  const int64_t c_size = d.batch * d.m * d.n;
  std::vector<T> whole(c_size, T(7)), split(c_size, T(7));  // stale values to overwrite
  kernel->fn(a.data(), b.data(), whole.data(), d, 0, units);
  for (int64_t u = units - 1; u >= 0; --u)
    kernel->fn(a.data(), b.data(), split.data(), d, u, u + 1);
  ASSERT_EQ(0, std::memcmp(whole.data(), split.data(), c_size * sizeof(T)));
  for (int64_t bi = 0; bi < d.batch; ++bi) {
    for (int64_t i = 0; i < d.m; ++i) {
      for (int64_t j = 0; j < d.n; ++j) {
        T fused, unfused;
        SequentialSums(a, b, d, bi, i, j, &fused, &unfused);
        const T got = whole[(bi * d.m + i) * d.n + j];
        ASSERT_TRUE(got == fused || got == unfused)
            << bi << "," << i << "," << j << ": " << got << " vs " << fused;
      }
    }
  }
}

// Runs `body` once per SIMD target this machine supports and the GEMM was
// compiled for (each has its own register tile).
template <typename Fn>
void ForEachTarget(Fn body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(GemmTest, EdgeSizesSumSequentially) {
  ForEachTarget([] {
    // Both operands beyond a work unit and several k blocks.
    GemmDims d;
    d.m = kGemmBlockM + 3, d.k = kGemmBlockK + 3, d.n = kGemmBlockN + 5;
    CheckGemm<float>(ElementType::kF32, d, 1);
    CheckGemm<double>(ElementType::kF64, d, 2);
  });
  // Sizes around the register tiles (6 or 8 rows, 16 to 48 columns; strips
  // of 1 to 4 rows run kernels of 1 or 4 rows), the work units and the k
  // blocks; small sizes read operands in place, large ones pack them.
  ForEachTarget([] {
    const std::vector<int64_t> ms = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 25, kGemmBlockM + 3};
    const std::vector<int64_t> ns = {1, 3, 8, 15, 16, 17, 31, 48, 49, kGemmBlockN + 5};
    const std::vector<int64_t> ks = {0, 1, 2, 7, 64, kGemmBlockK / 2 + 1, kGemmBlockK + 3};
    int seed = 0;
    for (int64_t m : ms) {
      for (int64_t n : ns) {
        for (int64_t k : ks) {
          if (m * n * k > 300000 && !(m == 7 || n == 17)) continue;  // keep the test quick
          GemmDims d;
          d.batch = 2, d.m = m, d.k = k, d.n = n;
          CheckGemm<float>(ElementType::kF32, d, ++seed);
          CheckGemm<double>(ElementType::kF64, d, ++seed);
        }
      }
    }
  });
}

TEST(GemmTest, EmptyShapesWriteNothingOrZeros) {
  auto kernel = SelectGemmKernel(ElementType::kF32);
  ASSERT_TRUE(kernel.ok());
  GemmDims d;
  d.batch = 3, d.m = 0, d.k = 5, d.n = 4;
  EXPECT_EQ(kernel->Units(d), 0);
  d.m = 4, d.n = 0;
  EXPECT_EQ(kernel->Units(d), 0);
  d.batch = 0, d.n = 4;
  EXPECT_EQ(kernel->Units(d), 0);
  // k = 0: every element is the empty sum.
  d.batch = 2, d.m = 9, d.k = 0, d.n = 20;
  std::vector<float> c(2 * 9 * 20, 5.0f);
  kernel->fn(nullptr, nullptr, c.data(), d, 0, kernel->Units(d));
  for (float x : c) ASSERT_EQ(x, 0.0f);
}

TEST(GemmTest, StridedOperands) {
  ForEachTarget([] {
    // A stored k-major ([k, m] per batch), B stored [n, k] (Q . K^T), batch
    // strides with gaps, and both at once, in sizes that read in place and
    // sizes that pack.
    for (int64_t scale : {1, 9}) {
      const int64_t m = 13 * scale, k = 11 * scale, n = 21 * scale, batch = 3;
      GemmDims d;
      d.batch = batch, d.m = m, d.k = k, d.n = n, d.use_strides = true;
      // A transposed, B row-major, gaps between batches.
      d.a_sb = m * k + 5, d.a_sm = 1, d.a_sk = m;
      d.b_sb = k * n + 3, d.b_sk = n, d.b_sn = 1;
      CheckGemm<float>(ElementType::kF32, d, 1);
      CheckGemm<double>(ElementType::kF64, d, 2);
      // A row-major, B transposed (attention's Q . K^T).
      d.a_sb = m * k, d.a_sm = k, d.a_sk = 1;
      d.b_sb = k * n, d.b_sk = 1, d.b_sn = k;
      CheckGemm<float>(ElementType::kF32, d, 3);
      CheckGemm<double>(ElementType::kF64, d, 4);
      // Both transposed; rows of A further apart than needed.
      d.a_sb = (m + 2) * k, d.a_sm = 1, d.a_sk = m + 2;
      d.b_sb = k * (n + 1), d.b_sk = 1, d.b_sn = k;
      CheckGemm<float>(ElementType::kF32, d, 5);
      // Row-major with padded rows (row stride larger than the row).
      d.a_sb = m * (k + 4), d.a_sm = k + 4, d.a_sk = 1;
      d.b_sb = k * (n + 7), d.b_sk = n + 7, d.b_sn = 1;
      CheckGemm<float>(ElementType::kF32, d, 6);
      CheckGemm<double>(ElementType::kF64, d, 7);
    }
  });
}

TEST(GemmTest, FewRowsAgainstColumnsAlongK) {
  // B stored [n, k] (a transposed weight matrix) against 1 to 2 vectors'
  // worth of rows of A: A is transposed instead of B. Row counts around
  // one and two vectors of every target, partial column groups, several k
  // blocks, batches with gaps, and A stored k-major as well.
  ForEachTarget([] {
    int seed = 100;
    for (int64_t m : {1, 3, 4, 5, 8, 9, 11, 16, 17, 32, 33}) {
      for (int64_t n : {1, 5, 16, 17, 530}) {
        for (int64_t k : {1, 7, 256, 259, 600}) {
          if (m * n * k > 100000 && m != 1 && m != 11 && m != 17) continue;  // keep the test quick
          GemmDims d;
          d.batch = 2, d.m = m, d.k = k, d.n = n, d.use_strides = true;
          d.a_sb = m * k + 3, d.a_sm = k, d.a_sk = 1;
          d.b_sb = (k + 2) * n, d.b_sk = 1, d.b_sn = k + 2;
          CheckGemm<float>(ElementType::kF32, d, ++seed);
          CheckGemm<double>(ElementType::kF64, d, ++seed);
          d.a_sm = 1, d.a_sk = m;
          CheckGemm<float>(ElementType::kF32, d, ++seed);
        }
      }
    }
  });
}

TEST(GemmTest, FewRowsAgainstRowsOfB) {
  // Up to 4 rows of A against a large row-major B (x @ W): B is read a row
  // at a time into sums kept in L1. Several work units, a partial last
  // vector of columns, padded rows of B, batches, and A stored k-major.
  ForEachTarget([] {
    int seed = 300;
    for (int64_t m : {1, 2, 3, 4}) {
      for (int64_t n : {517, 1100}) {
        const int64_t k = n == 517 ? 130 : 61;  // B of 256 KiB or more
        GemmDims d;
        d.batch = 2, d.m = m, d.k = k, d.n = n, d.use_strides = true;
        d.a_sb = m * k, d.a_sm = k, d.a_sk = 1;
        d.b_sb = k * (n + 3) + 5, d.b_sk = n + 3, d.b_sn = 1;
        CheckGemm<float>(ElementType::kF32, d, ++seed);
        CheckGemm<double>(ElementType::kF64, d, ++seed);
        d.use_strides = false;
        CheckGemm<float>(ElementType::kF32, d, ++seed);
        d.use_strides = true;
        d.a_sm = 1, d.a_sk = m;
        CheckGemm<float>(ElementType::kF32, d, ++seed);
      }
    }
  });
}

TEST(GemmTest, PerCallBlocksOfAnySize) {
  // Every kernel (blocked, transposed-b / narrow-rows, along-rows) with
  // smaller row and column blocks than its default, of sizes that split
  // register tiles and column groups: the same sequential sums, unit by
  // unit or all at once.
  ForEachTarget([] {
    int seed = 400;
    for (const auto& [bm, bn] :
         {std::pair<int64_t, int64_t>{64, 64}, {13, 37}, {5, 100}, {300, 1}}) {
      GemmDims d;
      d.block_m = bm, d.block_n = bn;
      d.batch = 2, d.m = 150, d.k = 70, d.n = 130;  // blocked, B packed and in place
      CheckGemm<float>(ElementType::kF32, d, ++seed);
      CheckGemm<double>(ElementType::kF64, d, ++seed);
      for (int64_t m : {1, 3, 11, 32}) {  // B stored [n, k]
        d.m = m, d.k = 300, d.n = 200, d.use_strides = true;
        d.a_sb = m * d.k, d.a_sm = d.k, d.a_sk = 1;
        d.b_sb = d.n * d.k, d.b_sk = 1, d.b_sn = d.k;
        CheckGemm<float>(ElementType::kF32, d, ++seed);
        CheckGemm<double>(ElementType::kF64, d, ++seed);
      }
      d.m = 3, d.k = 130, d.n = 517, d.use_strides = false;  // along rows of B
      CheckGemm<float>(ElementType::kF32, d, ++seed);
      CheckGemm<double>(ElementType::kF64, d, ++seed);
    }
  });
}

TEST(GemmTest, SplitUnitsKeepsWholeTilesAndEnoughWork) {
  ForEachTarget([] {
    auto kernel = SelectGemmKernel(ElementType::kF32);
    ASSERT_TRUE(kernel.ok());
    GemmDims d;
    d.m = 32, d.k = 784, d.n = 512;  // one default unit
    ASSERT_EQ(kernel->Units(d), 1);
    kernel->SplitUnits(&d, 8, 1 << 20);
    EXPECT_EQ(kernel->Units(d), 8);  // columns split: A is read in place
    EXPECT_EQ(d.BlockM(), kGemmBlockM);
    EXPECT_LT(d.BlockN(), 512 / 4);
    // Units of at least this many flops: fewer of them.
    GemmDims e;
    e.m = 32, e.k = 784, e.n = 512;
    kernel->SplitUnits(&e, 8, 2 * 32 * 784 * 200);
    EXPECT_EQ(kernel->Units(e), 2);
    // A packed (stored k-major) against a small B read in place: rows split.
    GemmDims t;
    t.m = 512, t.k = 32, t.n = 512, t.use_strides = true;
    t.a_sb = t.m * t.k, t.a_sm = 1, t.a_sk = t.m;
    t.b_sb = t.k * t.n, t.b_sk = t.n, t.b_sn = 1;
    kernel->SplitUnits(&t, 8, 1 << 20);
    EXPECT_EQ(kernel->Units(t), 8);
    EXPECT_EQ(t.BlockN(), kGemmBlockN);
    EXPECT_LT(t.BlockM(), kGemmBlockM / 2);
    EXPECT_GE(t.BlockM(), kGemmMinSplitRows);
    // Both operands packed: a split would repack one of them, in blocks
    // this small.
    GemmDims sq;
    sq.m = sq.k = sq.n = 256;
    kernel->SplitUnits(&sq, 8, 1 << 20);
    EXPECT_EQ(kernel->Units(sq), 1);
    // Nothing to split (rows only into blocks of kGemmMinSplitRows or
    // more), and the generic kernels keep their units.
    GemmDims one;
    one.m = kGemmMinSplitRows, one.k = 8, one.n = 1;
    kernel->SplitUnits(&one, 8, 1);
    EXPECT_EQ(kernel->Units(one), 1);
    auto generic = SelectGemmKernel(ElementType::kS32);
    ASSERT_TRUE(generic.ok());
    GemmDims g;
    g.m = 32, g.k = 784, g.n = 512;
    generic->SplitUnits(&g, 8, 1);
    EXPECT_EQ(g.block_m, 0);
    EXPECT_EQ(g.block_n, 0);
  });
}

TEST(GemmTest, ManySmallBatches) {
  GemmDims d;
  d.batch = 37, d.m = 10, d.k = 9, d.n = 19;
  CheckGemm<float>(ElementType::kF32, d, 11);
  d.batch = 12, d.m = 128, d.k = 64, d.n = 128;  // attention-sized
  CheckGemm<float>(ElementType::kF32, d, 12);
}

TEST(GemmTest, NamesTheKernelThatServesEachShape) {
  GemmDims d;
  d.m = 1, d.k = 2048, d.n = 16384;  // x @ W, W large and row-major
  EXPECT_STREQ(gemm_internal::HwyGemmPath(false, d), "along-rows");
  EXPECT_STREQ(gemm_internal::HwyGemmPath(true, d), "along-rows");
  d.m = 41;
  EXPECT_STREQ(gemm_internal::HwyGemmPath(false, d), "blocked");
  d.m = 1, d.k = 64, d.n = 100;  // small: read in place by the blocked kernel
  EXPECT_STREQ(gemm_internal::HwyGemmPath(false, d), "blocked");
  // B stored [n, k]: registers transpose it where there are 8-lane f32
  // vectors, else each element is broadcast against the rows.
  d.m = 1, d.k = 1152, d.n = 4096, d.use_strides = true;
  d.a_sb = d.k, d.a_sm = d.k, d.a_sk = 1;
  d.b_sb = d.n * d.k, d.b_sk = 1, d.b_sn = d.k;
  EXPECT_THAT(gemm_internal::HwyGemmPath(false, d),
              testing::AnyOf(testing::StrEq("transposed-b"), testing::StrEq("narrow-rows")));
  EXPECT_STREQ(gemm_internal::HwyGemmPath(true, d), "narrow-rows");
}

TEST(GemmTest, RunsADispatchedTarget) {
  // The f32/f64 kernels run one of Highway's compiled targets, named here.
  const std::string target = gemm_internal::HwyGemmTarget();
  EXPECT_FALSE(target.empty());
  std::printf("GEMM target: %s\n", target.c_str());
}

TEST(DotTest, AttentionShapedBatchedDotMatchesReference) {
  // [1, 4, 20, 8] x [1, 4, 18, 8] contracting the last dims (Q . K^T): read
  // through strides, no transpose pass.
  const std::vector<int64_t> ld = {1, 4, 20, 8}, rd = {1, 4, 18, 8};
  const auto dn = Dnums({0, 1}, {3}, {0, 1}, {3});
  auto plan = MakeDotPlan(Shape(ElementType::kF32, ld), Shape(ElementType::kF32, rd),
                          Shape(ElementType::kF32, {1, 4, 20, 18}), dn);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->dims.use_strides);
  EXPECT_FALSE(plan->rhs.transpose.has_value());
  const auto lhs = Random<float>(Count(ld), 21, -8, 8);
  const auto rhs = Random<float>(Count(rd), 22, -8, 8);
  std::vector<int64_t> od;
  const auto want = RefDot<float, double>(lhs, ld, rhs, rd, dn, &od);
  const auto got =
      RunCase<float>(ElementType::kF32, ElementType::kF32, ld, lhs, rd, rhs, dn, od, 4);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<float>(want[i])) << i;
}

TEST(DotTest, Bf16AndF16OperandsConvertWhilePacking) {
  // bf16 / f16 operands of an f32-computed dot reach the GEMM unconverted
  // (no conversion scratch) and give the same bits as f32 operands holding
  // the same values; sizes cover packed and partial strips, a transposed
  // rhs and mixed operand types.
  struct Case {
    std::vector<int64_t> ld, rd, od;
    DotDimensionNumbers dn;
  };
  const std::vector<Case> cases = {
      {{37, 300}, {300, 53}, {37, 53}, Dnums({}, {1}, {}, {0})},
      {{2, 70, 33}, {2, 45, 33}, {2, 70, 45}, Dnums({0}, {2}, {0}, {2})},
      {{300, 9}, {300, 250}, {9, 250}, Dnums({}, {0}, {}, {0})},
      // A few rows against a transposed rhs ([n, k]): a matrix-vector
      // product and a decode step's projection.
      {{1, 300}, {700, 300}, {1, 700}, Dnums({}, {1}, {}, {1})},
      {{11, 530}, {2, 45, 530}, {11, 2, 45}, Dnums({}, {1}, {}, {2})},
      // A few rows against a row-major rhs, read in place and converted as
      // loaded.
      {{1, 700}, {700, 530}, {1, 530}, Dnums({}, {1}, {}, {0})},
      {{3, 300}, {300, 250}, {3, 250}, Dnums({}, {1}, {}, {0})},
  };
  ForEachTarget([&] {
    for (ElementType narrow : {ElementType::kBF16, ElementType::kF16}) {
      for (const Case& c : cases) {
        for (int mixed = 0; mixed < 2; ++mixed) {
          const ElementType rt = mixed ? ElementType::kF32 : narrow;
          SCOPED_TRACE(testing::Message() << ElementTypeName(narrow) << " mixed=" << mixed);
          auto plan = MakeDotPlan(Shape(narrow, c.ld), Shape(rt, c.rd),
                                  Shape(ElementType::kF32, c.od), c.dn);
          ASSERT_TRUE(plan.ok()) << plan.status();
          EXPECT_EQ(plan->lhs.convert, nullptr);
          EXPECT_EQ(plan->rhs.convert, nullptr);
          // Values exact in both narrow formats.
          const auto lf = Random<float>(Count(c.ld), 31, -20, 20);
          const auto rf = Random<float>(Count(c.rd), 32, -20, 20);
          auto narrow_bits = [&](const std::vector<float>& v) {
            std::vector<uint16_t> r(v.size());
            for (size_t i = 0; i < v.size(); ++i) {
              r[i] =
                  narrow == ElementType::kBF16 ? FloatToBFloat16(v[i] / 8) : FloatToHalf(v[i] / 8);
            }
            return r;
          };
          std::vector<float> lq(lf.size()), rq(rf.size());
          for (size_t i = 0; i < lf.size(); ++i) lq[i] = lf[i] / 8;
          for (size_t i = 0; i < rf.size(); ++i) rq[i] = rf[i] / 8;
          const auto lb = narrow_bits(lf), rb = narrow_bits(rf);
          std::vector<float> got(Count(c.od)), want(Count(c.od));
          std::vector<uint8_t> scratch(plan->scratch_bytes + 64);
          RunDot(*plan, lb.data(), mixed ? static_cast<const void*>(rq.data()) : rb.data(),
                 got.data(), scratch.data());
          auto ref = MakeDotPlan(Shape(ElementType::kF32, c.ld), Shape(ElementType::kF32, c.rd),
                                 Shape(ElementType::kF32, c.od), c.dn);
          ASSERT_TRUE(ref.ok());
          std::vector<uint8_t> ref_scratch(ref->scratch_bytes + 64);
          RunDot(*ref, lq.data(), rq.data(), want.data(), ref_scratch.data());
          ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * 4));
        }
      }
    }
  });
}

}  // namespace
}  // namespace hlovm
