#include "ops/fft/fft.h"

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

using cld = std::complex<long double>;

// Reference: direct DFT over the `rank` innermost axes of one transform,
// in long double. `x` holds the full complex input (n0*n1*n2 values).
std::vector<cld> NaiveDft(const std::vector<cld>& x, const std::array<int64_t, 3>& n, int rank,
                          int sign) {
  std::array<int64_t, 3> len{1, 1, 1};
  for (int i = 0; i < rank; ++i) len[3 - rank + i] = n[i];
  std::vector<cld> cur = x;
  const long double pi = 3.141592653589793238462643383279502884L;
  // One axis at a time (the DFT is separable).
  for (int axis = 0; axis < 3; ++axis) {
    const int64_t m = len[axis];
    if (m == 1) continue;
    int64_t inner = 1;
    for (int a = axis + 1; a < 3; ++a) inner *= len[a];
    int64_t outer = 1;
    for (int a = 0; a < axis; ++a) outer *= len[a];
    std::vector<cld> next(cur.size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t k = 0; k < m; ++k) {
          cld s = 0;
          for (int64_t j = 0; j < m; ++j) {
            const long double ang = sign * 2 * pi * static_cast<long double>((j * k) % m) / m;
            s += cur[(o * m + j) * inner + i] * cld(std::cos(ang), std::sin(ang));
          }
          next[(o * m + k) * inner + i] = s;
        }
      }
    }
    cur.swap(next);
  }
  return cur;
}

template <typename R>
void CheckOne(FftType type, std::array<int64_t, 3> n, int rank, int64_t batch, double tol) {
  SCOPED_TRACE(::testing::Message() << "type " << static_cast<int>(type) << " rank " << rank
                                    << " n " << n[0] << "," << n[1] << "," << n[2] << " batch "
                                    << batch << " single " << (sizeof(R) == 4));
  FftKernelSpec spec;
  spec.type = type;
  spec.single = sizeof(R) == 4;
  spec.length = n;
  spec.rank = rank;
  spec.batch = batch;
  auto k_or = FftKernel::Create(spec);
  ASSERT_TRUE(k_or.ok()) << k_or.status();
  const FftKernel& k = **k_or;
  int64_t total = 1;
  for (int i = 0; i < rank; ++i) total *= n[i];
  const int64_t last = n[rank - 1], half = last / 2 + 1, lead = total / last;
  std::mt19937 gen(42);
  std::uniform_real_distribution<double> u(-1, 1);
  const bool real_in = type == FftType::kRfft, real_out = type == FftType::kIrfft;
  std::vector<R> in(batch * k.in_elems() * (real_in ? 1 : 2));
  for (R& v : in) v = static_cast<R>(u(gen));
  std::vector<R> out(batch * k.out_elems() * (real_out ? 1 : 2), R(-7));
  ASSERT_TRUE(k.Run(in.data(), out.data()));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<cld> x(total);
    if (type == FftType::kIrfft) {
      // Rebuild the full spectrum the way the transform reads it: the last
      // axis's DC and Nyquist bins only contribute their real parts after the
      // leading axes are transformed, so transform the leading axes first.
      std::vector<cld> half_in(lead * half);
      for (int64_t i = 0; i < lead * half; ++i) {
        half_in[i] = cld(in[2 * (b * lead * half + i)], in[2 * (b * lead * half + i) + 1]);
      }
      // Inverse DFT over the leading axes (the half axis as a batch), then
      // the Hermitian c2r sum over the last axis.
      std::array<int64_t, 3> lead_n{1, 1, 1};
      for (int i = 0; i + 1 < rank; ++i) lead_n[i] = n[i];
      std::vector<cld> rows(lead * half);
      if (rank == 1) {
        rows = half_in;
      } else {
        // Leading axes only: treat the half axis as a batch.
        for (int64_t j = 0; j < half; ++j) {
          std::vector<cld> col(lead);
          for (int64_t i = 0; i < lead; ++i) col[i] = half_in[i * half + j];
          std::vector<cld> tc = NaiveDft(col, lead_n, rank - 1, +1);
          for (int64_t i = 0; i < lead; ++i) rows[i * half + j] = tc[i];
        }
      }
      for (int64_t r = 0; r < lead; ++r) {
        for (int64_t j = 0; j < last; ++j) {
          long double s = 0;
          const long double pi = 3.141592653589793238462643383279502884L;
          for (int64_t f = 0; f < last; ++f) {
            cld c;
            if (f < half) {
              c = rows[r * half + f];
            } else {
              c = std::conj(rows[r * half + (last - f)]);
            }
            if (f == 0 || (last % 2 == 0 && f == last / 2)) c = cld(c.real(), 0);
            const long double ang = 2 * pi * static_cast<long double>((f * j) % last) / last;
            s += (c * cld(std::cos(ang), std::sin(ang))).real();
          }
          const double want = static_cast<double>(s / total);
          const double got = out[b * total + r * last + j];
          EXPECT_NEAR(got, want, tol) << "batch " << b << " row " << r << " at " << j;
        }
      }
      continue;
    }
    for (int64_t i = 0; i < total; ++i) {
      x[i] = real_in ? cld(in[b * total + i], 0) : cld(in[2 * (b * total + i)], in[2 * (b * total + i) + 1]);
    }
    const int sign = type == FftType::kIfft ? +1 : -1;
    std::vector<cld> y = NaiveDft(x, n, rank, sign);
    const int64_t oe = k.out_elems();
    for (int64_t i = 0; i < oe; ++i) {
      const int64_t src = real_in ? (i / half) * last + i % half : i;
      cld want = y[src];
      if (type == FftType::kIfft) want /= static_cast<long double>(total);
      EXPECT_NEAR(out[2 * (b * oe + i)], static_cast<double>(want.real()), tol) << "at " << i;
      EXPECT_NEAR(out[2 * (b * oe + i) + 1], static_cast<double>(want.imag()), tol) << "at " << i;
    }
  }
}

TEST(FftKernelTest, AllTypesRanksPrecisions) {
  const FftType types[] = {FftType::kFft, FftType::kIfft, FftType::kRfft, FftType::kIrfft};
  for (FftType t : types) {
    CheckOne<double>(t, {8, 1, 1}, 1, 3, 1e-12);
    CheckOne<double>(t, {7, 1, 1}, 1, 2, 1e-12);
    CheckOne<double>(t, {4, 6, 1}, 2, 2, 1e-12);
    CheckOne<double>(t, {3, 5, 6}, 3, 2, 1e-12);
    CheckOne<float>(t, {16, 1, 1}, 1, 3, 2e-5);
    CheckOne<float>(t, {5, 4, 1}, 2, 2, 2e-5);
    CheckOne<float>(t, {2, 3, 5}, 3, 1, 2e-5);
  }
}

// IRFFT reads only the real parts of the DC and Nyquist bins of the last axis.
TEST(FftKernelTest, IrfftIgnoresImaginaryDcAndNyquist) {
  FftKernelSpec spec;
  spec.type = FftType::kIrfft;
  spec.single = false;
  spec.length = {4, 1, 1};
  spec.rank = 1;
  auto k = FftKernel::Create(spec);
  ASSERT_TRUE(k.ok());
  // bins 0, 1, 2 = (1+5i), (2+3i), (3+7i): imaginary parts of 0 and 2 ignored.
  std::vector<double> in = {1, 5, 2, 3, 3, 7}, out(4);
  ASSERT_TRUE((*k)->Run(in.data(), out.data()));
  // x[j] = (1 + 2*Re((2+3i) e^{i pi j/2}) + 3 (-1)^j) / 4
  EXPECT_DOUBLE_EQ(out[0], (1 + 4 + 3) / 4.0);
  EXPECT_DOUBLE_EQ(out[1], (1 - 6 - 3) / 4.0);
  EXPECT_DOUBLE_EQ(out[2], (1 - 4 + 3) / 4.0);
  EXPECT_DOUBLE_EQ(out[3], (1 + 6 - 3) / 4.0);
}

// Large batches split into fixed chunks: any grouping of chunks, and a
// misaligned buffer, give bitwise the same result as one pass.
TEST(FftKernelTest, ChunksAndAlignmentDoNotChangeBits) {
  for (FftType t : {FftType::kFft, FftType::kIrfft, FftType::kRfft}) {
    FftKernelSpec spec;
    spec.type = t;
    spec.single = true;
    spec.length = {30, 1, 1};
    spec.rank = 1;
    spec.batch = 3001;
    auto k_or = FftKernel::Create(spec);
    ASSERT_TRUE(k_or.ok());
    const FftKernel& k = **k_or;
    ASSERT_GT(k.chunks(), 2);
    const int64_t in_f = spec.batch * k.in_elems() * (t == FftType::kRfft ? 1 : 2);
    const int64_t out_f = spec.batch * k.out_elems() * (t == FftType::kIrfft ? 1 : 2);
    std::vector<float> in(in_f + 1), a(out_f), b(out_f + 1);
    std::mt19937 gen(7);
    std::normal_distribution<float> nd;
    for (float& v : in) v = nd(gen);
    ASSERT_TRUE(k.Run(in.data(), a.data()));
    for (int64_t c = k.chunks(); c-- > 0;) ASSERT_TRUE(k.RunChunks(in.data(), b.data(), c, c + 1));
    EXPECT_EQ(std::memcmp(a.data(), b.data(), out_f * sizeof(float)), 0);
    // Shift input and output by 4 bytes (not 16-byte aligned).
    std::vector<float> in2(in_f + 1);
    std::memcpy(in2.data() + 1, in.data(), in_f * sizeof(float));
    ASSERT_TRUE(k.Run(in2.data() + 1, b.data() + 1));
    EXPECT_EQ(std::memcmp(a.data(), b.data() + 1, out_f * sizeof(float)), 0);
  }
}

TEST(FftKernelTest, EmptyAndErrors) {
  FftKernelSpec spec;
  spec.type = FftType::kFft;
  spec.batch = 0;
  spec.length = {8, 1, 1};
  auto k = FftKernel::Create(spec);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ((*k)->chunks(), 0);
  EXPECT_TRUE((*k)->Run(nullptr, nullptr));
  spec.rank = 4;
  EXPECT_FALSE(FftKernel::Create(spec).ok());
  spec.rank = 1;
  spec.length = {-1, 1, 1};
  EXPECT_FALSE(FftKernel::Create(spec).ok());
  EXPECT_FALSE(ParseFftPlanMode("fast").ok());
  EXPECT_TRUE(ParseFftPlanMode("measure").ok());
}

}  // namespace
}  // namespace hlovm

namespace hlovm {
namespace {

// --fft-plan=measure keeps FFTW wisdom in the per-user cache directory, and
// measured plans compute the same transform.
TEST(FftKernelTest, MeasureModeWritesWisdom) {
  const std::string dir = ::testing::TempDir() + "/fft_wisdom_test";
  ASSERT_EQ(::setenv("XDG_CACHE_HOME", dir.c_str(), 1), 0);
  EXPECT_EQ(FftWisdomPath(false), dir + "/hlovm/fftw_wisdom");
  std::remove(FftWisdomPath(false).c_str());
  FftKernelSpec spec;
  spec.type = FftType::kFft;
  spec.single = false;
  spec.length = {12, 1, 1};
  spec.batch = 2;
  spec.plan_mode = FftPlanMode::kMeasure;
  auto k = FftKernel::Create(spec);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_NE((*k)->Describe().find(" measure"), std::string::npos) << (*k)->Describe();
  std::ifstream wisdom(FftWisdomPath(false));
  EXPECT_TRUE(wisdom.good());
  std::vector<double> in(48), out(48);
  in[2] = 1;  // x[1] = 1: X[k] = exp(-2 pi i k / 12)
  ASSERT_TRUE((*k)->Run(in.data(), out.data()));
  for (int j = 0; j < 12; ++j) {
    EXPECT_NEAR(out[2 * j], std::cos(2 * M_PI * j / 12), 1e-14);
    EXPECT_NEAR(out[2 * j + 1], -std::sin(2 * M_PI * j / 12), 1e-14);
  }
}

}  // namespace
}  // namespace hlovm
