#include "ops/dot/conv.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hwy/aligned_allocator.h"
#include "hwy/targets.h"
#include "ops/dot/dot_conv_shape.h"
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

namespace hlovm {
namespace {

struct Conv2D {
  int64_t n = 1, h = 5, w = 5, c = 3, kh = 3, kw = 3, o = 4;
  int64_t stride = 1, pad_lo = 1, pad_hi = 1, lhs_dil = 1, rhs_dil = 1;
  bool reverse = false;
  int64_t fgc = 1, bgc = 1;
};

ConvolutionDimensionNumbers Nhwc() {
  ConvolutionDimensionNumbers d;  // b01f_01io->b01f
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 3;
  d.input_spatial_dimensions = {1, 2};
  d.kernel_input_feature_dimension = 2;
  d.kernel_output_feature_dimension = 3;
  d.kernel_spatial_dimensions = {0, 1};
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 3;
  d.output_spatial_dimensions = {1, 2};
  return d;
}

Window MakeWindow(const Conv2D& c) {
  Window win(2);
  for (int d = 0; d < 2; ++d) {
    win[d].size = d == 0 ? c.kh : c.kw;
    win[d].stride = c.stride;
    win[d].padding_low = c.pad_lo;
    win[d].padding_high = c.pad_hi;
    win[d].base_dilation = c.lhs_dil;
    win[d].window_dilation = c.rhs_dil;
    win[d].window_reversal = c.reverse;
  }
  return win;
}

// Obvious NHWC reference, written from the operation's definition.
template <typename T>
std::vector<T> Reference(const Conv2D& c, const std::vector<T>& in, const std::vector<T>& k,
                         const Shape& out) {
  const int64_t on = out.dimensions(0), oh = out.dimensions(1), ow = out.dimensions(2),
                of = out.dimensions(3);
  const int64_t cin_k = c.bgc > 1 ? c.c : c.c / c.fgc;
  const int64_t og = c.o / (c.fgc * c.bgc);
  std::vector<T> r(static_cast<size_t>(on * oh * ow * of), T(0));
  for (int64_t b = 0; b < on; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t f = 0; f < of; ++f) {
          const int64_t g = f / og;
          const int64_t ib = c.bgc > 1 ? g * on + b : b;
          const int64_t c0 = c.bgc > 1 ? 0 : g * cin_k;
          T acc = T(0);
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx) {
              const int64_t py = y * c.stride + ky * c.rhs_dil - c.pad_lo;
              const int64_t px = x * c.stride + kx * c.rhs_dil - c.pad_lo;
              if (py < 0 || px < 0 || py % c.lhs_dil || px % c.lhs_dil) continue;
              const int64_t iy = py / c.lhs_dil, ix = px / c.lhs_dil;
              if (iy >= c.h || ix >= c.w) continue;
              const int64_t uy = c.reverse ? c.kh - 1 - ky : ky;
              const int64_t ux = c.reverse ? c.kw - 1 - kx : kx;
              for (int64_t ci = 0; ci < cin_k; ++ci) {
                acc += in[((ib * c.h + iy) * c.w + ix) * c.c + c0 + ci] *
                       k[((uy * c.kw + ux) * cin_k + ci) * c.o + f];
              }
            }
          r[((b * oh + y) * ow + x) * of + f] = acc;
        }
  return r;
}

template <typename T>
void CheckConv(const Conv2D& c, ElementType type) {
  const int64_t cin_k = c.bgc > 1 ? c.c : c.c / c.fgc;
  const Shape lhs(type, {c.n, c.h, c.w, c.c});
  const Shape rhs(type, {c.kh, c.kw, cin_k, c.o});
  const Window win = MakeWindow(c);
  auto out = InferConvolutionShape(lhs, rhs, c.fgc, c.bgc, win, Nhwc());
  ASSERT_TRUE(out.ok()) << out.status();
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> dist(-4, 4);  // exact in every type
  std::vector<T> in(static_cast<size_t>(lhs.element_count())), k(static_cast<size_t>(rhs.element_count()));
  for (T& v : in) v = static_cast<T>(dist(gen));
  for (T& v : k) v = static_cast<T>(dist(gen));
  auto plan = MakeConvPlan(lhs, rhs, *out, win, Nhwc(), c.fgc, c.bgc);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<T> got(static_cast<size_t>(out->element_count()), T(-99));
  ASSERT_TRUE(RunConv(*plan, in.data(), k.data(), got.data()).ok());
  EXPECT_EQ(got, Reference(c, in, k, *out));

  // Any split of the units gives the same bits.
  std::vector<T> split(got.size(), T(-99));
  hwy::AlignedFreeUniquePtr<uint8_t[]> scratch =
      hwy::AllocateAligned<uint8_t>(static_cast<size_t>(std::max<int64_t>(plan->scratch_bytes, 1)));
  const ConvBuffers b = ConvPrepare(*plan, in.data(), k.data(), split.data(), scratch.get());
  for (int64_t u = plan->units; u > 0; --u) ConvUnits(*plan, b, u - 1, u);
  ConvFinish(*plan, b, split.data());
  EXPECT_EQ(0, std::memcmp(split.data(), got.data(), got.size() * sizeof(T)));
}

// The f32 plan of `c` over NHWC / HWIO (its result shape in *out).
ConvPlan PlanOf(const Conv2D& c, Shape* out = nullptr) {
  const int64_t cin_k = c.bgc > 1 ? c.c : c.c / c.fgc;
  const Shape lhs(ElementType::kF32, {c.n, c.h, c.w, c.c});
  const Shape rhs(ElementType::kF32, {c.kh, c.kw, cin_k, c.o});
  auto result = InferConvolutionShape(lhs, rhs, c.fgc, c.bgc, MakeWindow(c), Nhwc());
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return ConvPlan();
  if (out != nullptr) *out = *result;
  auto plan = MakeConvPlan(lhs, rhs, *result, MakeWindow(c), Nhwc(), c.fgc, c.bgc);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *std::move(plan) : ConvPlan();
}

TEST(ConvTest, PlainSamePadding) { CheckConv<float>(Conv2D{}, ElementType::kF32); }

// An HWIO kernel of one group is the GEMM's packed matrix already: no copy,
// no scratch for it (the direct f32 path reads it in place when its output
// features fill whole register tiles, 96 on every target, and keeps only a
// row of zeros for padding and two words a strip of tile columns, where the
// kernel is finite). Reversed windows and groups still pack.
TEST(ConvTest, HwioKernelIsReadWhereItIs) {
  Conv2D plain;
  plain.o = 96;
  EXPECT_TRUE(PlanOf(plain).direct);
  EXPECT_TRUE(PlanOf(plain).kernel_as_is);
  // c = 3 zeros, aligned; 16 bytes a strip (one block of terms), aligned.
  const int64_t states = 96 / PlanOf(plain).tile_cols * 16;
  EXPECT_EQ(PlanOf(plain).scratch_bytes, 64 + (states + 63) / 64 * 64);
  CheckConv<float>(plain, ElementType::kF32);
  const Shape lhs(ElementType::kF64, {1, 5, 5, 3}), rhs(ElementType::kF64, {3, 3, 3, 4});
  auto out = InferConvolutionShape(lhs, rhs, 1, 1, MakeWindow(Conv2D{}), Nhwc());
  ASSERT_TRUE(out.ok());
  auto gemm_plan = MakeConvPlan(lhs, rhs, *out, MakeWindow(Conv2D{}), Nhwc(), 1, 1);
  ASSERT_TRUE(gemm_plan.ok());
  EXPECT_FALSE(gemm_plan->direct);
  EXPECT_TRUE(gemm_plan->kernel_as_is);
  EXPECT_EQ(gemm_plan->scratch_bytes, 0);
  Conv2D reversed;
  reversed.reverse = true;
  EXPECT_FALSE(PlanOf(reversed).kernel_as_is);
  CheckConv<float>(reversed, ElementType::kF32);
  Conv2D grouped;
  grouped.c = 6, grouped.o = 9, grouped.fgc = 3;
  EXPECT_FALSE(PlanOf(grouped).kernel_as_is);
}

// The f32 NHWC result of `c` summed as the im2col GEMM sums it: one fused
// multiply-add per (window position, input feature) term from zero,
// padding's zeros included.
std::vector<float> FmaReference(const Conv2D& c, const std::vector<float>& in,
                                const std::vector<float>& k, const Shape& out) {
  const int64_t cin_k = c.c / c.fgc, og = c.o / c.fgc;
  const int64_t oh = out.dimensions(1), ow = out.dimensions(2);
  std::vector<float> want(static_cast<size_t>(out.element_count()));
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t f = 0; f < c.o; ++f) {
          const int64_t c0 = f / og * cin_k;
          float acc = 0.0f;
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx) {
              const int64_t py = y * c.stride + ky * c.rhs_dil - c.pad_lo;
              const int64_t px = x * c.stride + kx * c.rhs_dil - c.pad_lo;
              const bool pad = py < 0 || px < 0 || py % c.lhs_dil || px % c.lhs_dil ||
                               py / c.lhs_dil >= c.h || px / c.lhs_dil >= c.w;
              const int64_t uy = c.reverse ? c.kh - 1 - ky : ky;
              const int64_t ux = c.reverse ? c.kw - 1 - kx : kx;
              for (int64_t ci = 0; ci < cin_k; ++ci) {
                const float v =
                    pad ? 0.0f
                        : in[((b * c.h + py / c.lhs_dil) * c.w + px / c.lhs_dil) * c.c + c0 + ci];
                acc = std::fma(v, k[((uy * c.kw + ux) * cin_k + ci) * c.o + f], acc);
              }
            }
          want[((b * oh + y) * ow + x) * c.o + f] = acc;
        }
  return want;
}

// The direct f32 path sums each output in the order the im2col GEMM does:
// one fused multiply-add per (window position, input feature) term from
// zero, padding terms included. Non-integer values make the order visible;
// the shapes leave partial register tiles in rows and columns, read the
// kernel in place and packed, and cover strides, dilation, groups and a
// batch of two.
TEST(ConvTest, DirectPathSumsInWindowOrder) {
  std::vector<Conv2D> cases(6);
  cases[0].h = 11, cases[0].w = 13, cases[0].c = 17, cases[0].o = 40;
  cases[1].n = 2, cases[1].h = 9, cases[1].w = 7, cases[1].c = 8, cases[1].o = 96;
  cases[2].h = 12, cases[2].w = 12, cases[2].c = 5, cases[2].o = 7, cases[2].stride = 2;
  cases[3].h = 9, cases[3].w = 8, cases[3].c = 6, cases[3].o = 10, cases[3].fgc = 2;
  cases[4].h = 9, cases[4].w = 8, cases[4].c = 4, cases[4].o = 33, cases[4].lhs_dil = 2,
  cases[4].rhs_dil = 2, cases[4].reverse = true;
  cases[5].h = 7, cases[5].w = 7, cases[5].c = 64, cases[5].o = 64, cases[5].kh = 1,
  cases[5].kw = 1, cases[5].pad_lo = cases[5].pad_hi = 0;
  // Many term blocks and column blocks (a ResNet 7x7 layer's shape, fewer features).
  Conv2D deep;
  deep.h = 7, deep.w = 7, deep.c = 256, deep.o = 192;
  cases.push_back(deep);
  // Window rows of consecutive inputs (no padding along the width), as the
  // ResNet stem's 7x7 stride 2 over its padded input; padded rows above and
  // below.
  Conv2D stem;
  stem.h = 21, stem.w = 23, stem.c = 3, stem.o = 64, stem.kh = 7, stem.kw = 7, stem.stride = 2;
  stem.pad_lo = 0, stem.pad_hi = 0;
  cases.push_back(stem);
  EXPECT_EQ(PlanOf(stem).row_features, 21);
  EXPECT_EQ(PlanOf(stem).row_windows, 7);
  stem.pad_lo = 3, stem.pad_hi = 3, stem.w = 31;
  cases.push_back(stem);
  // A strided 1x1 window with more than 128 features (ResNet's 256 -> 512
  // shortcut, fewer features): its rows are read in place, not gathered
  // for the GEMM; with more than 512 features the GEMM takes it.
  Conv2D shortcut;
  shortcut.h = 11, shortcut.w = 9, shortcut.c = 24, shortcut.o = 160, shortcut.kh = 1,
  shortcut.kw = 1, shortcut.stride = 2, shortcut.pad_lo = shortcut.pad_hi = 0;
  cases.push_back(shortcut);
  // 256 features and more take the wide register tile (ResNet's 14x14
  // 3x3 layer, fewer positions): partial tiles in rows and columns, many
  // term blocks, a batch of two; and the strided shortcut to 512.
  Conv2D wide;
  wide.n = 2, wide.h = 5, wide.w = 7, wide.c = 64, wide.o = 300;
  cases.push_back(wide);
  EXPECT_EQ(PlanOf(wide).tile_shape, 1);
  shortcut.o = 512;
  cases.push_back(shortcut);
  EXPECT_EQ(PlanOf(shortcut).tile_shape, 1);
  shortcut.o = 544;
  EXPECT_FALSE(PlanOf(shortcut).direct);
  for (const Conv2D& c : cases) {
    Shape out;
    const ConvPlan plan = PlanOf(c, &out);
    ASSERT_TRUE(plan.direct);
    const int64_t cin_k = c.c / c.fgc;
    std::mt19937 gen(11);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> in(static_cast<size_t>(c.n * c.h * c.w * c.c)),
        k(static_cast<size_t>(c.kh * c.kw * cin_k * c.o));
    for (float& v : in) v = dist(gen);
    for (float& v : k) v = dist(gen);
    std::vector<float> got(static_cast<size_t>(out.element_count()), -99.0f);
    ASSERT_TRUE(RunConv(plan, in.data(), k.data(), got.data()).ok());
    const std::vector<float> want = FmaReference(c, in, k, out);
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)))
        << "h=" << c.h << " c=" << c.c << " o=" << c.o;
    CheckConv<float>(c, ElementType::kF32);
  }
}

// A register tile within the first or last output row of an image leaves
// out the window row that lies in the padding, and a whole wide tile the
// one row at an image's left or right edge that reads padding: with a finite
// kernel those terms add exactly nothing, so the bits are the im2col
// order's. An infinity or NaN in the kernel's first or last window row, or
// column, makes 0 * inf a NaN at the edge rows, as in the im2col order:
// then those terms are kept, in the strip of columns they reach (other
// strips still leave them out). Both register tiles (tall; wide from 256
// features); image rows of whole tiles, and rows whose edges fall inside
// tiles.
TEST(ConvTest, PaddingTermsAreLeftOutOnlyWhereTheyAddNothing) {
  for (int shape : {0, 1}) {
    for (int64_t extra : {0, 3}) {
      SCOPED_TRACE(shape == 0 ? "tall tile" : "wide tile");
      SCOPED_TRACE(extra);
      Conv2D c;
      c.n = 2, c.h = 5, c.w = (2 - extra / 3) * conv_internal::HwyDirectTileRows(shape) + extra;
      c.c = 5;
      c.o = shape == 0 ? 3 * conv_internal::HwyDirectTileCols(0)
                       : 256 + conv_internal::HwyDirectTileCols(1);
      Shape out;
      const ConvPlan plan = PlanOf(c, &out);
      ASSERT_TRUE(plan.direct);
      ASSERT_EQ(plan.tile_shape, shape);
      std::mt19937 gen(5);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      std::vector<float> in(static_cast<size_t>(c.n * c.h * c.w * c.c)),
          k(static_cast<size_t>(c.kh * c.kw * c.c * c.o));
      for (float& v : in) v = dist(gen);
      for (float& v : k) v = dist(gen);
      const auto kat = [&](int64_t ky, int64_t kx, int64_t ci, int64_t f) -> float& {
        return k[static_cast<size_t>(((ky * c.kw + kx) * c.c + ci) * c.o + f)];
      };
      const auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
        for (size_t i = 0; i < a.size(); ++i) {
          if (std::isnan(a[i]) != std::isnan(b[i])) return false;
          if (!std::isnan(a[i]) && std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return false;
        }
        return true;
      };
      const int64_t tc = plan.tile_cols;
      for (int variant = 0; variant < 4; ++variant) {
        if (variant == 1) kat(0, 1, 2, 3) = std::numeric_limits<float>::infinity();
        if (variant == 2) kat(2, 0, 4, tc + 1) = std::numeric_limits<float>::quiet_NaN();
        if (variant == 3) kat(1, 2, 1, 5) = -std::numeric_limits<float>::infinity();
        std::vector<float> got(static_cast<size_t>(out.element_count()), -99.0f);
        ASSERT_TRUE(RunConv(plan, in.data(), k.data(), got.data()).ok());
        const std::vector<float> want = FmaReference(c, in, k, out);
        EXPECT_TRUE(same(got, want)) << "variant " << variant;
        // The infinity makes NaNs of feature 3 in the first output row of each
        // image (0 * inf), the NaN all of feature tc + 1, the second infinity
        // (the window's last column) feature 5 in the last output column.
        int64_t nans = 0;
        for (float v : got) nans += std::isnan(v);
        EXPECT_EQ(nans, (variant >= 1 ? c.n * c.w : 0) + (variant >= 2 ? c.n * c.h * c.w : 0) +
                            (variant == 3 ? c.n * c.h : 0))
            << "variant " << variant;
      }
    }
  }
}

// A layer of few output positions and many features (ResNet's 7x7x2048
// 1x1 layers) splits each tile's features into parts, a unit each, so that
// threads share it; the GEMM reads the kernel's columns in place. The last
// part is narrower (1000 = 334 + 334 + 332).
TEST(ConvTest, FewRowsManyFeaturesSplitTheFeatures) {
  const Conv2D c{.n = 1, .h = 3, .w = 3, .c = 16, .kh = 1, .kw = 1, .o = 1000, .pad_lo = 0,
                 .pad_hi = 0};
  const ConvPlan plan = PlanOf(c);
  EXPECT_FALSE(plan.direct);
  EXPECT_EQ(plan.tiles, 1);
  EXPECT_EQ(plan.col_parts, 3);
  EXPECT_EQ(plan.units, 3);
  CheckConv<float>(c, ElementType::kF32);
  CheckConv<double>(c, ElementType::kF64);
  // f64 with a 3x3 window and strides (rows gathered; f32 takes the direct
  // path there).
  CheckConv<double>(Conv2D{.n = 1, .h = 5, .w = 5, .c = 8, .o = 600, .stride = 2},
                    ElementType::kF64);
}

// A 1x1 layer of many rows (ResNet's 56x56 64 -> 256) is tiled evenly, in
// enough tiles for two threads, reading its input rows and writing its
// result rows where they are.
TEST(ConvTest, OneByOneRowsTileEvenlyInPlace) {
  const Conv2D c{.n = 1, .h = 56, .w = 56, .c = 64, .kh = 1, .kw = 1, .o = 256, .pad_lo = 0,
                 .pad_hi = 0};
  const ConvPlan plan = PlanOf(c);
  EXPECT_FALSE(plan.direct);
  EXPECT_EQ(plan.tiles, 8);
  EXPECT_EQ(plan.rows_per_tile, 392);
  EXPECT_TRUE(plan.rows_in_place);
  EXPECT_TRUE(plan.tiles_in_place);
  CheckConv<float>(Conv2D{.n = 2, .h = 24, .w = 20, .c = 16, .kh = 1, .kw = 1, .o = 160,
                          .pad_lo = 0, .pad_hi = 0},
                   ElementType::kF32);
  // Padding or a stride: rows gathered.
  EXPECT_FALSE(PlanOf(Conv2D{.n = 1, .h = 8, .w = 8, .c = 8, .kh = 1, .kw = 1, .o = 256}).rows_in_place);
  EXPECT_FALSE(PlanOf(Conv2D{.n = 1, .h = 8, .w = 8, .c = 8, .kh = 1, .kw = 1, .o = 256, .stride = 2,
                             .pad_lo = 0, .pad_hi = 0})
                   .rows_in_place);
}

TEST(ConvTest, ManyTilesOfOutputPositions) {
  Conv2D c;
  c.n = 2, c.h = 40, c.w = 37, c.c = 64, c.o = 16;  // several im2col tiles
  CheckConv<float>(c, ElementType::kF32);
}

TEST(ConvTest, StrideDilationReversal) {
  Conv2D c;
  c.h = 9, c.w = 8, c.stride = 2, c.pad_lo = 2, c.pad_hi = -1, c.lhs_dil = 2, c.rhs_dil = 2;
  c.reverse = true;
  CheckConv<double>(c, ElementType::kF64);
}

TEST(ConvTest, FeatureGroupsAndDepthwise) {
  Conv2D g;
  g.c = 6, g.o = 9, g.fgc = 3;
  CheckConv<float>(g, ElementType::kF32);
  Conv2D d;
  d.c = 8, d.o = 16, d.fgc = 8;
  CheckConv<int32_t>(d, ElementType::kS32);
}

TEST(ConvTest, DepthwiseDirectKernel) {
  for (int64_t channels : {1, 7, 37, 64}) {
    Conv2D c;
    c.n = 2, c.h = 9, c.w = 11, c.c = channels, c.o = channels, c.fgc = channels;
    c.stride = 2, c.pad_lo = 1, c.pad_hi = 2;
    CheckConv<float>(c, ElementType::kF32);
  }
}

// Depthwise over NHWC by channel columns (ConvPlan::depthwise_columns):
// each output sums its window positions in window order from zero, one
// fused multiply-add each, as the im2col order does with one input feature
// a group. Channels past whole blocks of lanes, output rows past whole
// blocks of eight positions, the 3x3 kernel and any other window (strides,
// dilation, reversal, 5x5), on every target with fused multiply-add; bf16
// in and out give the f32 bits of the widened input, rounded. Input
// dilation and negative padding keep the position-tile kernel.
TEST(ConvTest, DepthwiseColumnsSumInWindowOrder) {
  std::vector<Conv2D> cases(5);
  for (Conv2D& c : cases) c.n = 2, c.h = 9, c.w = 37, c.c = 37, c.o = 37, c.fgc = 37;
  cases[1].stride = 2, cases[1].pad_lo = 1, cases[1].pad_hi = 2;
  cases[2].rhs_dil = 2, cases[2].pad_lo = 2, cases[2].pad_hi = 1, cases[2].reverse = true;
  cases[3].kh = 5, cases[3].kw = 5, cases[3].pad_lo = 2, cases[3].pad_hi = 2, cases[3].w = 12;
  cases[4].h = 6, cases[4].w = 16, cases[4].c = cases[4].o = cases[4].fgc = 64;
  Conv2D dilated = cases[0];
  dilated.lhs_dil = 2;
  EXPECT_FALSE(PlanOf(dilated).depthwise_columns);
  Conv2D cropped = cases[0];
  cropped.pad_lo = -1;
  EXPECT_FALSE(PlanOf(cropped).depthwise_columns);
  struct ResetTargets {
    ~ResetTargets() { hwy::SetSupportedTargetsForTest(0); }
  } reset;
  const auto bf16 = [](float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof(x));
    const bool nan = (x & 0x7f800000) == 0x7f800000 && (x & 0x007fffff) != 0;
    return static_cast<uint16_t>(nan ? (x >> 16) | 0x40 : (x + 0x7fff + ((x >> 16) & 1)) >> 16);
  };
  const auto wide = [](uint16_t b) {
    const uint32_t x = uint32_t{b} << 16;
    float f;
    std::memcpy(&f, &x, sizeof(f));
    return f;
  };
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
#if HWY_ARCH_X86
    if (target > HWY_AVX2) continue;  // no fused multiply-add (see above)
#endif
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const Conv2D& c : cases) {
      SCOPED_TRACE(
          absl::StrCat("h=", c.h, " w=", c.w, " c=", c.c, " k=", c.kh, " stride=", c.stride));
      Shape out;
      const ConvPlan plan = PlanOf(c, &out);
      ASSERT_TRUE(plan.depthwise_columns);
      std::mt19937 gen(7);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      std::vector<float> in(static_cast<size_t>(c.n * c.h * c.w * c.c)),
          k(static_cast<size_t>(c.kh * c.kw * c.o));
      // Values bf16 holds exactly, so that the bf16 run reads the same.
      for (float& v : in) v = wide(bf16(dist(gen)));
      for (float& v : k) v = wide(bf16(dist(gen)));
      std::vector<float> got(static_cast<size_t>(out.element_count()), -99.0f);
      ASSERT_TRUE(RunConv(plan, in.data(), k.data(), got.data()).ok());
      const std::vector<float> want = FmaReference(c, in, k, out);
      ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)));

      const Shape lhs16(ElementType::kBF16, {c.n, c.h, c.w, c.c});
      const Shape rhs16(ElementType::kBF16, {c.kh, c.kw, 1, c.o});
      const Shape out16(ElementType::kBF16, {c.n, out.dimensions(1), out.dimensions(2), c.o});
      auto plan16 = MakeConvPlan(lhs16, rhs16, out16, MakeWindow(c), Nhwc(), c.fgc, 1);
      ASSERT_TRUE(plan16.ok()) << plan16.status();
      ASSERT_TRUE(plan16->depthwise_columns);
      std::vector<uint16_t> in16(in.size()), k16(k.size()), got16(got.size(), 0xffff);
      for (size_t i = 0; i < in.size(); ++i) in16[i] = bf16(in[i]);
      for (size_t i = 0; i < k.size(); ++i) k16[i] = bf16(k[i]);
      ASSERT_TRUE(RunConv(*plan16, in16.data(), k16.data(), got16.data()).ok());
      for (size_t i = 0; i < got16.size(); ++i) {
        ASSERT_EQ(got16[i], bf16(want[i])) << "at " << i;
      }
    }
  }
}

// Runs the depthwise case `c` with NCHW input and OIHW kernel
// (bf01_oi01->bf01), the values of the NHWC `in` and HWIO `k`, into `got`
// (NCHW, oh x ow); its plan must take the planar path `path`.
void RunDepthwiseAsNchw(const Conv2D& c, const std::vector<float>& in, const std::vector<float>& k,
                        int64_t oh, int64_t ow, bool ConvPlan::*path, std::vector<float>* got) {
  std::vector<float> in_nchw(in.size()), k_oihw(k.size());
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t y = 0; y < c.h; ++y)
      for (int64_t x = 0; x < c.w; ++x)
        for (int64_t f = 0; f < c.c; ++f)
          in_nchw[((b * c.c + f) * c.h + y) * c.w + x] = in[((b * c.h + y) * c.w + x) * c.c + f];
  for (int64_t y = 0; y < c.kh; ++y)
    for (int64_t x = 0; x < c.kw; ++x)
      for (int64_t o = 0; o < c.o; ++o) k_oihw[(o * c.kh + y) * c.kw + x] = k[(y * c.kw + x) * c.o + o];
  ConvolutionDimensionNumbers dn;
  dn.input_batch_dimension = 0;
  dn.input_feature_dimension = 1;
  dn.input_spatial_dimensions = {2, 3};
  dn.kernel_output_feature_dimension = 0;
  dn.kernel_input_feature_dimension = 1;
  dn.kernel_spatial_dimensions = {2, 3};
  dn.output_batch_dimension = 0;
  dn.output_feature_dimension = 1;
  dn.output_spatial_dimensions = {2, 3};
  const Shape lhs(ElementType::kF32, {c.n, c.c, c.h, c.w});
  const Shape rhs(ElementType::kF32, {c.o, 1, c.kh, c.kw});
  const Shape out(ElementType::kF32, {c.n, c.o, oh, ow});
  auto plan = MakeConvPlan(lhs, rhs, out, MakeWindow(c), dn, c.fgc, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_TRUE((*plan).*path);
  got->assign(static_cast<size_t>(out.element_count()), -99.0f);
  ASSERT_TRUE(RunConv(*plan, in_nchw.data(), k_oihw.data(), got->data()).ok());
}

// Depthwise over NCHW (features outside the spatial dimensions): the
// planar path, against the NHWC reference transposed.
void CheckPlanar(const Conv2D& c) {
  const Shape nhwc_in(ElementType::kF32, {c.n, c.h, c.w, c.c});
  const Shape hwio(ElementType::kF32, {c.kh, c.kw, 1, c.o});
  const Window win = MakeWindow(c);
  auto nhwc_out = InferConvolutionShape(nhwc_in, hwio, c.fgc, 1, win, Nhwc());
  ASSERT_TRUE(nhwc_out.ok()) << nhwc_out.status();
  const int64_t oh = nhwc_out->dimensions(1), ow = nhwc_out->dimensions(2);
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<float> in(static_cast<size_t>(nhwc_in.element_count())),
      k(static_cast<size_t>(hwio.element_count()));
  for (float& v : in) v = static_cast<float>(dist(gen));
  for (float& v : k) v = static_cast<float>(dist(gen));
  const std::vector<float> want = Reference(c, in, k, *nhwc_out);
  // The same values as NCHW input, OIHW kernel (bf01_oi01->bf01).
  std::vector<float> got;
  ASSERT_NO_FATAL_FAILURE(RunDepthwiseAsNchw(c, in, k, oh, ow, &ConvPlan::planar, &got));
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t f = 0; f < c.o; ++f) {
          ASSERT_EQ(got[((b * c.o + f) * oh + y) * ow + x], want[((b * oh + y) * ow + x) * c.o + f])
              << "at " << b << "," << f << "," << y << "," << x;
        }
}

TEST(ConvTest, PlanarDepthwiseOverNchw) {
  Conv2D c;
  c.n = 2, c.h = 9, c.w = 37, c.c = 5, c.o = 5, c.fgc = 5;  // stride 1: contiguous rows
  CheckPlanar(c);
  c.stride = 2, c.pad_lo = 1, c.pad_hi = 2;  // strided rows, gathered
  CheckPlanar(c);
  c.stride = 1, c.lhs_dil = 2, c.pad_lo = 1, c.pad_hi = 2;  // a backward input: holes
  CheckPlanar(c);
  c.lhs_dil = 1, c.rhs_dil = 2, c.pad_lo = 2, c.pad_hi = -1, c.reverse = true;
  CheckPlanar(c);
  // Output rows wholly in the padding, and a window wider than the row.
  c.rhs_dil = 1, c.reverse = false, c.w = 3, c.kw = 5, c.kh = 1, c.pad_lo = 2, c.pad_hi = 2;
  CheckPlanar(c);
}

// The planar path over a zero-padded plane (ConvPlan::planar_padded) gives
// the bits of the NHWC depthwise kernel on non-integer values: each output
// one fused multiply-add per window position, in window order, from zero.
// The 3x3 windows at stride 1 (cases 0, 4 and 5) take the kernel for that
// window (blocks of four rows, then single rows; rows of whole vectors and
// rows ending in a partial one), on every target.
TEST(ConvTest, PlanarPaddedPlaneMatchesDepthwiseBits) {
  std::vector<Conv2D> cases(6);
  for (Conv2D& c : cases) c.n = 2, c.h = 9, c.w = 37, c.c = 5, c.o = 5, c.fgc = 5;
  cases[1].stride = 2, cases[1].pad_lo = 1, cases[1].pad_hi = 2;
  cases[2].rhs_dil = 2, cases[2].pad_lo = 2, cases[2].pad_hi = -1, cases[2].reverse = true;
  cases[3].w = 3, cases[3].kw = 5, cases[3].kh = 1, cases[3].pad_lo = 2, cases[3].pad_hi = 2;
  cases[4].h = 8, cases[4].w = 64;
  cases[5].h = 6, cases[5].w = 7, cases[5].pad_lo = 0, cases[5].pad_hi = 2;
  struct ResetTargets {
    ~ResetTargets() { hwy::SetSupportedTargetsForTest(0); }
  } reset;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
#if HWY_ARCH_X86
    // Targets before AVX2 have no fused multiply-add: there the two kernels
    // round their products apart, and their bits may differ.
    if (target > HWY_AVX2) continue;
#endif
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (const Conv2D& c : cases) {
      Shape nhwc_out;
      const ConvPlan dw = PlanOf(c, &nhwc_out);
      ASSERT_TRUE(dw.depthwise);
      const int64_t oh = nhwc_out.dimensions(1), ow = nhwc_out.dimensions(2);
      std::mt19937 gen(5);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      std::vector<float> in(static_cast<size_t>(c.n * c.h * c.w * c.c)),
          k(static_cast<size_t>(c.kh * c.kw * c.o));
      for (float& v : in) v = dist(gen);
      for (float& v : k) v = dist(gen);
      std::vector<float> want(static_cast<size_t>(nhwc_out.element_count()));
      ASSERT_TRUE(RunConv(dw, in.data(), k.data(), want.data()).ok());
      std::vector<float> got;
      ASSERT_NO_FATAL_FAILURE(RunDepthwiseAsNchw(c, in, k, oh, ow, &ConvPlan::planar_padded, &got));
      for (int64_t b = 0; b < c.n; ++b)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x)
            for (int64_t f = 0; f < c.o; ++f) {
              const float g = got[((b * c.o + f) * oh + y) * ow + x];
              const float w = want[((b * oh + y) * ow + x) * c.o + f];
              ASSERT_EQ(0, std::memcmp(&g, &w, sizeof(float)))
                  << b << " " << y << " " << x << " " << f;
            }
    }
  }
}

// A bf16 planar depthwise convolution converts its input rows and output
// planes inside the units: the bits of the f32 convolution of the widened
// input, rounded to bf16 by the same conversion.
TEST(ConvTest, PlanarBf16ConvertsInUnits) {
  ConvolutionDimensionNumbers dn;
  dn.input_batch_dimension = 0;
  dn.input_feature_dimension = 1;
  dn.input_spatial_dimensions = {2, 3};
  dn.kernel_output_feature_dimension = 0;
  dn.kernel_input_feature_dimension = 1;
  dn.kernel_spatial_dimensions = {2, 3};
  dn.output_batch_dimension = 0;
  dn.output_feature_dimension = 1;
  dn.output_spatial_dimensions = {2, 3};
  Conv2D c;
  c.n = 2, c.h = 11, c.w = 19, c.c = 6, c.o = 6, c.fgc = 6;
  const Window win = MakeWindow(c);
  const Shape lhs16(ElementType::kBF16, {c.n, c.c, c.h, c.w}), rhs16(ElementType::kBF16, {c.o, 1, 3, 3});
  const Shape lhs32(ElementType::kF32, {c.n, c.c, c.h, c.w}), rhs32(ElementType::kF32, {c.o, 1, 3, 3});
  auto out16 = InferConvolutionShape(lhs16, rhs16, c.fgc, 1, win, dn);
  auto out32 = InferConvolutionShape(lhs32, rhs32, c.fgc, 1, win, dn);
  ASSERT_TRUE(out16.ok() && out32.ok());
  auto p16 = MakeConvPlan(lhs16, rhs16, *out16, win, dn, c.fgc, 1);
  auto p32 = MakeConvPlan(lhs32, rhs32, *out32, win, dn, c.fgc, 1);
  ASSERT_TRUE(p16.ok() && p32.ok());
  ASSERT_TRUE(p16->convert_in_units);
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  auto bf16 = [&](int64_t n, std::vector<float>* wide) {
    std::vector<uint16_t> v(static_cast<size_t>(n));
    wide->resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const float f = dist(gen);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      v[i] = static_cast<uint16_t>(bits >> 16);
      bits = static_cast<uint32_t>(v[i]) << 16;
      std::memcpy(&(*wide)[i], &bits, 4);
    }
    return v;
  };
  std::vector<float> in32, k32;
  const std::vector<uint16_t> in16 = bf16(lhs16.element_count(), &in32);
  const std::vector<uint16_t> k16 = bf16(rhs16.element_count(), &k32);
  std::vector<uint16_t> got(static_cast<size_t>(out16->element_count()));
  std::vector<float> wide(got.size());
  ASSERT_TRUE(RunConv(*p16, in16.data(), k16.data(), got.data()).ok());
  ASSERT_TRUE(RunConv(*p32, in32.data(), k32.data(), wide.data()).ok());
  auto round = SelectConvertKernel(ElementType::kF32, ElementType::kBF16);
  ASSERT_TRUE(round.ok());
  std::vector<uint16_t> want(got.size());
  (*round)(wide.data(), want.data(), static_cast<int64_t>(want.size()));
  EXPECT_EQ(got, want);
}

// No spatial dimensions (bf_io->bf): the direct path as a plain product.
TEST(ConvTest, DirectPathWithoutSpatialDimensions) {
  ConvolutionDimensionNumbers dn;
  dn.input_batch_dimension = 0;
  dn.input_feature_dimension = 1;
  dn.kernel_input_feature_dimension = 0;
  dn.kernel_output_feature_dimension = 1;
  dn.output_batch_dimension = 0;
  dn.output_feature_dimension = 1;
  const Shape lhs(ElementType::kF32, {2, 3}), rhs(ElementType::kF32, {3, 4}), out(ElementType::kF32, {2, 4});
  auto plan = MakeConvPlan(lhs, rhs, out, Window(), dn, 1, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->direct);
  const std::vector<float> a = {3, -3, -6.5, 9, 1, -10};
  const std::vector<float> k = {-5.25, -5.5, 5.5, 2, 3.25, -3.75, -1.5, -3.5, -4, -4.5, 3.25, -5.75};
  std::vector<float> got(8);
  ASSERT_TRUE(RunConv(*plan, a.data(), k.data(), got.data()).ok());
  EXPECT_EQ(got, (std::vector<float>{0.5, 24, -0.125, 53.875, -4, -8.25, 15.5, 72}));
}

TEST(ConvTest, BatchGroups) {
  Conv2D c;
  c.n = 4, c.o = 6, c.bgc = 2;
  CheckConv<int64_t>(c, ElementType::kS64);
}

// A depthwise layer's kernel gradient (batch groups of one image and one
// output feature) runs 16 groups side by side in vector lanes. Its values
// (20 groups: a full block and a partial one; padding; window dilation and
// stride) and its rounding: each output is summed over window positions
// then input features, one fused multiply-add per term from zero, padding
// included as zero terms, exactly as the GEMM path sums.
TEST(ConvTest, BatchGroupWeightGradientInLanes) {
  Conv2D c;
  c.n = 20, c.h = 7, c.w = 7, c.c = 5, c.kh = 7, c.kw = 7, c.o = 20, c.bgc = 20;
  EXPECT_TRUE(PlanOf(c).group_lanes);
  CheckConv<float>(c, ElementType::kF32);  // exact small integers

  for (int64_t dil : {1, 2}) {
    Conv2D g = c;
    g.h = 7, g.w = 6, g.kh = 3, g.kw = 3, g.rhs_dil = dil, g.stride = 2, g.pad_lo = 2, g.pad_hi = 1;
    Shape go;
    const ConvPlan gp = PlanOf(g, &go);
    ASSERT_TRUE(gp.group_lanes);
    std::mt19937 gen(11);
    std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
    std::vector<float> in(static_cast<size_t>(g.n * g.h * g.w * g.c));
    std::vector<float> k(static_cast<size_t>(g.kh * g.kw * g.c * g.o));
    for (float& v : in) v = dist(gen);
    for (float& v : k) v = dist(gen);
    std::vector<float> got(static_cast<size_t>(go.element_count()));
    ASSERT_TRUE(RunConv(gp, in.data(), k.data(), got.data()).ok());
    const int64_t oh = go.dimensions(1), ow = go.dimensions(2);
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) {
        for (int64_t f = 0; f < g.o; ++f) {
          float acc = 0.0f;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const int64_t iy = y * g.stride + ky * dil - g.pad_lo;
              const int64_t ix = x * g.stride + kx * dil - g.pad_lo;
              const bool inside = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
              for (int64_t ci = 0; ci < g.c; ++ci) {
                const float a = inside ? in[((f * g.h + iy) * g.w + ix) * g.c + ci] : 0.0f;
                acc = std::fma(a, k[((ky * g.kw + kx) * g.c + ci) * g.o + f], acc);
              }
            }
          }
          float have = got[(y * ow + x) * g.o + f];
          ASSERT_EQ(0, std::memcmp(&have, &acc, 4)) << dil << ": " << y << "," << x << "," << f;
        }
      }
    }
  }
}

// ConvUnitRuns names each result element in exactly one unit's runs, and
// the unit's runs hold their final values as soon as the unit has run
// (units run last to first here); ConvUnitsTo hands each element's sum to
// its sink once: the direct path over whole rows, over
// blocks of columns and with feature groups, and the GEMM path. Paths that
// convert or scatter their results have no runs.
TEST(ConvTest, UnitRunsNameEachResultElementOnce) {
  std::vector<Conv2D> cases;
  cases.push_back(Conv2D{.n = 2, .h = 9, .w = 7, .c = 8, .o = 16});
  cases.push_back(Conv2D{.n = 1, .h = 16, .w = 16, .c = 8, .o = 192});
  cases.push_back(Conv2D{.n = 1, .h = 12, .w = 12, .c = 8, .o = 64, .fgc = 2});
  cases.push_back(Conv2D{.n = 2, .h = 6, .w = 6, .c = 8, .kh = 1, .kw = 1, .o = 256,
                         .pad_lo = 0, .pad_hi = 0});
  cases.push_back(Conv2D{.n = 1, .h = 8, .w = 8, .c = 6, .o = 6, .stride = 2, .fgc = 3});
  cases.push_back(Conv2D{.n = 1, .h = 3, .w = 3, .c = 16, .kh = 1, .kw = 1, .o = 1000,
                         .pad_lo = 0, .pad_hi = 0});
  bool saw_direct = false, saw_gemm = false, saw_columns = false, saw_parts = false;
  for (const Conv2D& c : cases) {
    Shape out_shape;
    const ConvPlan plan = PlanOf(c, &out_shape);
    ASSERT_TRUE(ConvHasUnitRuns(plan));
    saw_direct |= plan.direct;
    saw_gemm |= !plan.direct;
    saw_columns |= plan.direct && plan.col_blocks > 1;
    saw_parts |= !plan.direct && plan.col_parts > 1;
    const int64_t cin_k = c.c / c.fgc;
    std::mt19937 gen(11);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<float> in(static_cast<size_t>(c.n * c.h * c.w * c.c));
    std::vector<float> k(static_cast<size_t>(c.kh * c.kw * cin_k * c.o));
    for (float& v : in) v = dist(gen);
    for (float& v : k) v = dist(gen);
    const int64_t count = out_shape.element_count();
    std::vector<float> want(static_cast<size_t>(count));
    ASSERT_TRUE(RunConv(plan, in.data(), k.data(), want.data()).ok());
    std::vector<float> got(static_cast<size_t>(count), std::nanf(""));
    std::vector<int> named(static_cast<size_t>(count), 0);
    hwy::AlignedFreeUniquePtr<uint8_t[]> scratch =
        hwy::AllocateAligned<uint8_t>(static_cast<size_t>(std::max<int64_t>(plan.scratch_bytes, 1)));
    const ConvBuffers b = ConvPrepare(plan, in.data(), k.data(), got.data(), scratch.get());
    for (int64_t u = plan.units - 1; u >= 0; --u) {
      ConvUnits(plan, b, u, u + 1);
      int64_t last = -1;
      ConvUnitRuns(plan, u, [&](int64_t begin, int64_t end) {
        EXPECT_LT(last, begin);
        EXPECT_LT(begin, end);
        EXPECT_LE(end, count);
        last = end - 1;
        for (int64_t i = begin; i < end; ++i) {
          ++named[i];
          EXPECT_EQ(0, std::memcmp(&got[i], &want[i], sizeof(float))) << "unit " << u << " element " << i;
        }
      });
    }
    for (int64_t i = 0; i < count; ++i) ASSERT_EQ(named[i], 1) << "element " << i;

    // ConvUnitsTo hands every element's final sum to the sink once, which
    // leaves it in the result (here: copies it where it is elsewhere).
    std::vector<float> sunk(static_cast<size_t>(count), std::nanf(""));
    std::fill(named.begin(), named.end(), 0);
    const ConvBuffers b2 = ConvPrepare(plan, in.data(), k.data(), sunk.data(), scratch.get());
    for (int64_t u = plan.units - 1; u >= 0; --u) {
      ConvUnitsTo(plan, b2, u, u + 1, [&](const float* sums, int64_t begin, int64_t end) {
        ASSERT_LE(end, count);
        for (int64_t i = begin; i < end; ++i) {
          ++named[i];
          EXPECT_EQ(0, std::memcmp(&sums[i - begin], &want[i], sizeof(float))) << "element " << i;
          if (sums != sunk.data() + begin) sunk[i] = sums[i - begin];
        }
      });
    }
    for (int64_t i = 0; i < count; ++i) ASSERT_EQ(named[i], 1) << "element " << i;
    EXPECT_EQ(0, std::memcmp(sunk.data(), want.data(), want.size() * sizeof(float)));
  }
  EXPECT_TRUE(saw_direct);
  EXPECT_TRUE(saw_gemm);
  EXPECT_TRUE(saw_columns);
  EXPECT_TRUE(saw_parts);
  // Depthwise, and a result converted from f32 sums.
  EXPECT_FALSE(ConvHasUnitRuns(PlanOf(Conv2D{.c = 4, .o = 4, .fgc = 4})));
  const Shape lhs(ElementType::kBF16, {1, 5, 5, 3});
  const Shape rhs(ElementType::kBF16, {3, 3, 3, 4});
  const Shape out(ElementType::kBF16, {1, 5, 5, 4});
  auto bf16 = MakeConvPlan(lhs, rhs, out, MakeWindow(Conv2D{}), Nhwc(), 1, 1);
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_FALSE(ConvHasUnitRuns(*bf16));
}

TEST(ConvTest, RejectsMismatchedGroups) {
  const Shape lhs(ElementType::kF32, {1, 4, 4, 3});
  const Shape rhs(ElementType::kF32, {3, 3, 3, 4});
  const Shape out(ElementType::kF32, {1, 2, 2, 4});
  Conv2D c;
  c.pad_lo = c.pad_hi = 0;
  EXPECT_FALSE(MakeConvPlan(lhs, rhs, out, MakeWindow(c), Nhwc(), 2, 1).ok());
  EXPECT_FALSE(MakeConvPlan(lhs, rhs, out, MakeWindow(c), Nhwc(), 2, 2).ok());
}

}  // namespace
}  // namespace hlovm
