// Runs the Highway loops of conv_hwy.cc on every SIMD target compiled in and
// supported here (Highway's per-target test suite, hwy_gtest.h) and compares
// them bit for bit with plain scalar loops that sum each output's terms in
// the order conv.h documents: one fused multiply-add per term on targets
// with FMA, a multiply then an add on those without (Highway's MulAdd there).
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "ops/dot/conv.h"
#include "ops/elementwise/elementwise_hwy.h"

namespace hlovm {
namespace conv_internal {
namespace {

HWY_BEFORE_TEST(ConvHwyTest);

// The x86 targets with fused multiply-add; Highway's other targets here
// (the portable baseline) multiply, round, then add.
bool HasFma(int64_t target) {
  return (target & (HWY_AVX2 | HWY_AVX3 | HWY_AVX3_DL)) != 0;
}

// One term: acc + a * b, as the target under test computes it.
float Term(float a, float b, float acc, bool fma) {
  if (fma) return std::fma(a, b, acc);
  const volatile float product = a * b;  // rounded on its own
  return product + acc;
}

std::vector<float> Values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

// Every bf16 bit pattern (NaNs and subnormals included) widens to the f32
// with those bits on top, in rows of every tail length, strided on both
// sides, writing nothing between rows.
TEST_P(ConvHwyTest, WidenBF16RowsMovesTheBitsUp) {
  std::mt19937 gen(31);
  for (int64_t cols : {1, 7, 16, 31, 56, 70}) {
    const int64_t rows = 5, src_stride = cols + 3, dst_stride = cols + 9;
    std::vector<uint16_t> src(static_cast<size_t>(rows * src_stride));
    for (uint16_t& v : src) v = static_cast<uint16_t>(gen());
    std::vector<float> dst(static_cast<size_t>(rows * dst_stride), -7.0f);
    HwyWidenBF16Rows(src.data(), src_stride, dst.data(), dst_stride, rows, cols);
    for (int64_t y = 0; y < rows; ++y) {
      for (int64_t x = 0; x < dst_stride; ++x) {
        uint32_t got;
        std::memcpy(&got, &dst[y * dst_stride + x], sizeof(got));
        const float sentinel = -7.0f;
        uint32_t want;
        if (x < cols) {
          want = uint32_t{src[y * src_stride + x]} << 16;
        } else {
          std::memcpy(&want, &sentinel, sizeof(want));
        }
        ASSERT_EQ(got, want) << "cols " << cols << " row " << y << " column " << x;
      }
    }
  }
}

TEST_P(ConvHwyTest, FmaRowMatchesScalarTerms) {
  const bool fma = HasFma(GetParam());
  for (int64_t n = 0; n <= 70; ++n) {
    const std::vector<float> in = Values(n, 1);
    std::vector<float> acc = Values(n, 2);
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = Term(in[i], 0.3f, acc[i], fma);
    HwyFmaRowF32(in.data(), 0.3f, acc.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(SameBits(acc[i], want[i])) << "n=" << n << " i=" << i;
    }
  }
}

// outs[p][c] = sum over w in window order of rows[p * ksp + w][c] *
// kernel[w * channels + c], from 0.
TEST_P(ConvHwyTest, DepthwiseMatchesScalarWindowOrder) {
  const bool fma = HasFma(GetParam());
  for (int64_t ksp : {1, 3, 9}) {
    for (int64_t channels : {1, 5, 8, 16, 17, 33, 64, 70}) {
      for (int64_t npos : {1, 3, 4, 5, 9}) {
        // Input rows: each position's window reads rows of a shared pool.
        const int64_t pool = ksp + npos;
        const std::vector<float> data = Values(pool * channels, 3);
        const std::vector<float> kernel = Values(ksp * channels, 4);
        std::vector<const float*> rows(npos * ksp);
        for (int64_t p = 0; p < npos; ++p) {
          for (int64_t w = 0; w < ksp; ++w) rows[p * ksp + w] = data.data() + (p + w) * channels;
        }
        std::vector<float> out(npos * channels, -1.0f);
        std::vector<float*> outs(npos);
        for (int64_t p = 0; p < npos; ++p) outs[p] = out.data() + p * channels;
        HwyDepthwiseF32(rows.data(), kernel.data(), ksp, channels, npos, outs.data());
        for (int64_t p = 0; p < npos; ++p) {
          for (int64_t c = 0; c < channels; ++c) {
            float want = 0.0f;
            for (int64_t w = 0; w < ksp; ++w) {
              want = Term(rows[p * ksp + w][c], kernel[w * channels + c], want, fma);
            }
            ASSERT_TRUE(SameBits(outs[p][c], want))
                << "ksp=" << ksp << " channels=" << channels << " npos=" << npos << " p=" << p
                << " c=" << c << ": " << outs[p][c] << " vs " << want;
          }
        }
      }
    }
  }
}

// acc[o][i] = fma(rows[y][(col[k * ow + x] * cg + c) * 16 + i],
//                 kernel[(k * cg + c) * 16 + i], acc[o][i])
// for k, then c, then o = y * ow + x; a null row or a column of -1 is a zero
// term.
TEST_P(ConvHwyTest, BatchGroupRowMatchesScalarOrder) {
  const bool fma = HasFma(GetParam());
  constexpr int64_t kLanes = 16;
  for (int64_t oh : {1, 2, 4}) {
    for (int64_t ow : {1, 3, 4}) {
      for (int64_t kw : {1, 3}) {
        for (int64_t cg : {1, 2}) {
          const int64_t width = ow + kw;
          const std::vector<float> data = Values(oh * width * cg * kLanes, 5);
          const std::vector<float> kernel = Values(kw * cg * kLanes, 6);
          std::vector<const float*> rows(oh);
          for (int64_t y = 0; y < oh; ++y) {
            // The second row is padding when there are several.
            rows[y] = y == 1 ? nullptr : data.data() + y * width * cg * kLanes;
          }
          std::vector<int32_t> col(kw * ow);
          for (int64_t k = 0; k < kw; ++k) {
            for (int64_t x = 0; x < ow; ++x) {
              // The first column of the first window position is padding.
              col[k * ow + x] = k == 0 && x == 0 ? -1 : static_cast<int32_t>(x + k);
            }
          }
          const int64_t nout = oh * ow;
          std::vector<float> acc = Values(nout * kLanes, 7);
          std::vector<float> want = acc;
          for (int64_t k = 0; k < kw; ++k) {
            for (int64_t c = 0; c < cg; ++c) {
              for (int64_t y = 0; y < oh; ++y) {
                for (int64_t x = 0; x < ow; ++x) {
                  const int64_t o = y * ow + x;
                  const int32_t column = col[k * ow + x];
                  for (int64_t i = 0; i < kLanes; ++i) {
                    const float in = rows[y] == nullptr || column < 0
                                         ? 0.0f
                                         : rows[y][(column * cg + c) * kLanes + i];
                    want[o * kLanes + i] =
                        Term(in, kernel[(k * cg + c) * kLanes + i], want[o * kLanes + i], fma);
                  }
                }
              }
            }
          }
          HwyBatchGroupRowF32(rows.data(), kernel.data(), col.data(), oh, ow, kw, cg, acc.data());
          for (int64_t j = 0; j < nout * kLanes; ++j) {
            ASSERT_TRUE(SameBits(acc[j], want[j]))
                << "oh=" << oh << " ow=" << ow << " kw=" << kw << " cg=" << cg << " j=" << j;
          }
        }
      }
    }
  }
}

// Values with the special cases of the epilogue's ops mixed in: NaNs of
// both signs, a signalling NaN, zeros of both signs, infinities.
std::vector<float> SpecialValues(int64_t n, uint32_t seed) {
  std::vector<float> v = Values(n, seed);
  const uint32_t special[] = {0x7fc00000u, 0xffc00000u, 0x7fa00000u, 0x00000000u,
                              0x80000000u, 0x7f800000u, 0xff800000u};
  std::mt19937 rng(seed + 100);
  for (float& x : v) {
    if (rng() % 3 == 0) std::memcpy(&x, &special[rng() % std::size(special)], sizeof(float));
  }
  return v;
}

using Kernel = void (*)(const void*, const void*, void*, int64_t);

// The elementwise kernel of each epilogue op.
Kernel KernelOf(ConvEpilogueStep::Op op) {
  namespace ei = elementwise_internal;
  switch (op) {
    case ConvEpilogueStep::kAdd: return &ei::HwyAddF32;
    case ConvEpilogueStep::kSub: return &ei::HwySubF32;
    case ConvEpilogueStep::kMul: return &ei::HwyMulF32;
    case ConvEpilogueStep::kMax: return &ei::HwyMaxF32;
    case ConvEpilogueStep::kMin: return &ei::HwyMinF32;
  }
  return nullptr;
}

// The operand of result elements [index0, index0 + n) as an array.
std::vector<float> OperandArray(const ConvEpilogueStep& s, int64_t index0, int64_t n,
                                int64_t channels) {
  std::vector<float> y(n);
  for (int64_t j = 0; j < n; ++j) {
    y[j] = s.kind == ConvEpilogueStep::kScalar     ? s.data[0]
           : s.kind == ConvEpilogueStep::kChannels ? s.data[(index0 + j) % channels]
                                                   : s.data[index0 + j];
  }
  return y;
}

// Every step (op, operand kind, operand order) of the epilogue, over runs
// that start and end inside rows of features, and in the direct path's
// register tile, gives the bits of the elementwise kernel applied to the
// materialised operand, NaNs included.
TEST_P(ConvHwyTest, EpilogueStepsMatchElementwiseKernels) {
  const int64_t channels = 20, index0 = 13, n = 3 * channels + 7;
  const std::vector<float> sums = SpecialValues(n, 8);
  const std::vector<float> vec = SpecialValues(channels, 9);
  const std::vector<float> array = SpecialValues(1024, 10);  // also the tile's rows
  const float scalars[] = {0.0f, -0.0f, std::nanf(""), 1.5f};
  const ConvEpilogueStep::Op ops[] = {ConvEpilogueStep::kAdd, ConvEpilogueStep::kSub,
                                      ConvEpilogueStep::kMul, ConvEpilogueStep::kMax,
                                      ConvEpilogueStep::kMin};
  const ConvEpilogueStep::Kind kinds[] = {ConvEpilogueStep::kChannels, ConvEpilogueStep::kArray,
                                          ConvEpilogueStep::kScalar};
  for (ConvEpilogueStep::Op op : ops) {
    for (ConvEpilogueStep::Kind kind : kinds) {
      for (bool reversed : {false, true}) {
        for (const float& scalar : scalars) {
          if (kind != ConvEpilogueStep::kScalar && &scalar != scalars) continue;
          ConvEpilogueStep step;
          step.op = op;
          step.kind = kind;
          step.reversed = reversed;
          step.data = kind == ConvEpilogueStep::kChannels ? vec.data()
                      : kind == ConvEpilogueStep::kArray  ? array.data()
                                                          : &scalar;
          const std::vector<float> y = OperandArray(step, index0, n, channels);
          std::vector<float> want(n), got(n, -7.0f);
          KernelOf(op)(reversed ? y.data() : sums.data(), reversed ? sums.data() : y.data(),
                       want.data(), n);
          HwyConvEpilogueF32(&step, 1, sums.data(), got.data(), index0, n, channels);
          for (int64_t j = 0; j < n; ++j) {
            ASSERT_TRUE(SameBits(got[j], want[j]))
                << "op " << op << " kind " << kind << " reversed " << reversed << " j " << j;
          }
          // In place, after a second step (a relu).
          const float zero = 0.0f;
          const ConvEpilogueStep steps[2] = {step, {ConvEpilogueStep::kMax,
                                                    ConvEpilogueStep::kScalar, false, &zero}};
          std::vector<float> relu(n, 0.0f);
          elementwise_internal::HwyMaxF32(want.data(), relu.data(), want.data(), n);
          got = sums;
          HwyConvEpilogueF32(steps, 2, got.data(), got.data(), index0, n, channels);
          for (int64_t j = 0; j < n; ++j) ASSERT_TRUE(SameBits(got[j], want[j])) << "j " << j;

          // The register tile: sums of one term (input x kernel, from
          // zero), then the step, for a whole tile starting at feature 3 of
          // rows of tc + 5 features; both tile shapes.
          for (int shape : {0, 1}) {
            const int64_t tr = HwyDirectTileRows(shape), tc = HwyDirectTileCols(shape);
            const int64_t ldo = tc + 5, tile0 = 2 * ldo + 3;
            ConvEpilogueStep tile_step = step;
            if (kind == ConvEpilogueStep::kChannels) tile_step.data = array.data();  // >= ldo
            const std::vector<float> in = SpecialValues(tr, 11);
            const std::vector<float> kernel = Values(tc, 12);
            std::vector<const float*> rows(tr);
            for (int64_t r = 0; r < tr; ++r) rows[r] = &in[r];
            std::vector<float> plain((tr + 3) * ldo, 0.0f), fused((tr + 3) * ldo, 0.0f);
            HwyDirectConvTileF32(shape, rows.data(), tr, 1, 0, 1, kernel.data(), tc, true,
                                 plain.data() + tile0, ldo);
            HwyDirectConvTilesF32(shape, rows.data(), 1, tr, 1, 0, 1, kernel.data(), tc, true,
                                  fused.data() + tile0, ldo, nullptr, nullptr, &tile_step, 1,
                                  tile0);
            for (int64_t r = 0; r < tr; ++r) {
              const int64_t at = tile0 + r * ldo;
              const std::vector<float> yr = OperandArray(tile_step, at, tc, ldo);
              std::vector<float> row(tc);
              KernelOf(op)(reversed ? yr.data() : plain.data() + at,
                           reversed ? plain.data() + at : yr.data(), row.data(), tc);
              for (int64_t j = 0; j < tc; ++j) {
                ASSERT_TRUE(SameBits(fused[at + j], row[j]))
                    << "tile " << shape << ": op " << op << " kind " << kind << " reversed "
                    << reversed << " r " << r << " j " << j;
              }
            }
          }
        }
      }
    }
  }
}

// A tile's input rows from the offset table: base + offset, the zeros row
// where the offset is negative, vectors and a tail (n = 8 and 5 rows of a
// tile of 8, which leaves the other rows as they were); the windows at
// which some row reads input come back as bits, and those at which some
// row reads padding are added to the bits given.
TEST_P(ConvHwyTest, DirectTileInputsLocateRowsAndPadding) {
  const float base[64] = {};
  const float zeros[4] = {};
  const int64_t windows = 3, stride = 10;
  std::vector<int32_t> offs(windows * stride);
  for (int64_t r = 0; r < stride; ++r) {
    offs[0 * stride + r] = -1;                       // window 0: all padding
    offs[1 * stride + r] = r % 3 == 0 ? -1 : 2 * r;  // window 1: mixed
    offs[2 * stride + r] = r == 4 ? 40 : -1;         // window 2: one row in the tail
  }
  const int64_t ld = 8;
  for (int64_t n : {8, 5}) {
    std::vector<const float*> rows(windows * ld, nullptr);
    uint64_t pads = 0;
    const uint64_t reads =
        HwyDirectTileInputs(offs.data(), stride, windows, n, ld, base, zeros, rows.data(), &pads);
    EXPECT_EQ(reads, uint64_t{0b110}) << "n " << n;
    EXPECT_EQ(pads, uint64_t{0b111}) << "n " << n;
    for (int64_t w = 0; w < windows; ++w) {
      for (int64_t r = 0; r < ld; ++r) {
        const int32_t off = offs[w * stride + r];
        const float* want = r >= n ? nullptr : off >= 0 ? base + off : zeros;
        EXPECT_EQ(rows[w * ld + r], want) << "n " << n << " w " << w << " r " << r;
      }
    }
  }
}

}  // namespace
}  // namespace conv_internal
}  // namespace hlovm
