// End-to-end tests of fft through the VM: results against a direct DFT, and
// bitwise the same with 1 and 2 threads for a batch split into chunks.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::RunWith;
using vm_test::Values;

TEST(LowerFft, Rfft1dMatchesDirectDftAndThreadCounts) {
  const int rows = 2000, n = 40, half = n / 2 + 1;
  auto exe = Build(absl::StrCat("HloModule m\nENTRY e {\n  x = f64[", rows, ",", n,
                                "] parameter(0)\n  ROOT f = c128[", rows, ",", half,
                                "] fft(x), fft_type=RFFT, fft_length={", n, "}\n}\n"));
  ASSERT_NE(exe, nullptr);
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(rows * n);
  for (double& v : x) v = u(gen);
  Literal in = Array(ElementType::kF64, {rows, n}, x);
  Literal one = RunWith(*exe, {&in}, 1);
  Literal two = RunWith(*exe, {&in}, 2);
  const auto a = Values<std::complex<double>>(one);
  const auto b = Values<std::complex<double>>(two);
  ASSERT_EQ(a.size(), static_cast<size_t>(rows * half));
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])), 0);
  for (int r : {0, 777, rows - 1}) {
    for (int k = 0; k < half; ++k) {
      std::complex<double> s = 0;
      for (int j = 0; j < n; ++j) s += x[r * n + j] * std::polar(1.0, -2 * M_PI * j * k / n);
      EXPECT_NEAR(a[r * half + k].real(), s.real(), 1e-12);
      EXPECT_NEAR(a[r * half + k].imag(), s.imag(), 1e-12);
    }
  }
}

// IFFT(FFT(x)) == x over two axes, c64.
TEST(LowerFft, IfftInvertsFft2d) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  x = c64[3,8,6] parameter(0)
  f = c64[3,8,6] fft(x), fft_type=FFT, fft_length={8,6}
  ROOT i = c64[3,8,6] fft(f), fft_type=IFFT, fft_length={8,6}
})");
  ASSERT_NE(exe, nullptr);
  std::vector<std::complex<float>> x(3 * 8 * 6);
  for (size_t i = 0; i < x.size(); ++i) x[i] = {static_cast<float>(i % 7) - 3.f, static_cast<float>(i % 5)};
  Literal in = Array(ElementType::kC64, {3, 8, 6}, x);
  const auto y = Values<std::complex<float>>(RunWith(*exe, {&in}, 1));
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(y[i].real(), x[i].real(), 1e-5);
    EXPECT_NEAR(y[i].imag(), x[i].imag(), 1e-5);
  }
}

// IRFFT(RFFT(x)) == x over three axes, odd last length.
TEST(LowerFft, IrfftInvertsRfft3d) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  x = f32[2,3,4,5] parameter(0)
  f = c64[2,3,4,3] fft(x), fft_type=RFFT, fft_length={3,4,5}
  ROOT i = f32[2,3,4,5] fft(f), fft_type=IRFFT, fft_length={3,4,5}
})");
  ASSERT_NE(exe, nullptr);
  std::vector<float> x(2 * 3 * 4 * 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11) - 5.f;
  Literal in = Array(ElementType::kF32, {2, 3, 4, 5}, x);
  const auto y = Values<float>(RunWith(*exe, {&in}, 2));
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], x[i], 1e-5);
}

// FFT with fft_length other than the operand's dimension (XLA's evaluator):
// the input is padded with zeros or truncated to fft_length, and the result is
// truncated or padded with zeros back to the operand's dimension.
TEST(LowerFft, ComplexFftPadsAndTruncatesToFftLength) {
  for (const int length : {2, 5, 0}) {
    auto exe = Build(absl::StrCat("HloModule m\nENTRY e {\n  x = c128[2,3] parameter(0)\n"
                                  "  ROOT f = c128[2,3] fft(x), fft_type=FFT, fft_length={",
                                  length, "}\n}\n"));
    ASSERT_NE(exe, nullptr);
    std::vector<std::complex<double>> x = {{1, 2}, {-3, 0.5}, {4, -1}, {0, 1}, {2, 2}, {-1, 0}};
    Literal in = Array(ElementType::kC128, {2, 3}, x);
    const auto y = Values<std::complex<double>>(RunWith(*exe, {&in}, 1));
    ASSERT_EQ(y.size(), x.size());
    for (int r = 0; r < 2; ++r) {
      for (int k = 0; k < 3; ++k) {
        std::complex<double> s = 0;
        if (k < length) {
          for (int j = 0; j < std::min(length, 3); ++j) {
            s += x[r * 3 + j] * std::polar(1.0, -2 * M_PI * j * k / length);
          }
        }
        EXPECT_NEAR(y[r * 3 + k].real(), s.real(), 1e-12) << length << " " << r << " " << k;
        EXPECT_NEAR(y[r * 3 + k].imag(), s.imag(), 1e-12) << length << " " << r << " " << k;
      }
    }
  }
}

// The plan mode travels in each module's compile options: modules compiled
// in one process with different modes each plan with their own, in any
// order (the disassembly names the mode of every fft), and compute the
// same transform.
TEST(LowerFft, EachModulePlansWithItsOwnMode) {
  // Measured plans keep FFTW wisdom in the cache directory: a private one.
  const std::string cache = ::testing::TempDir() + "/lower_fft_plan_mode";
  ASSERT_EQ(::setenv("XDG_CACHE_HOME", cache.c_str(), 1), 0);
  const std::string text = R"(
HloModule m
ENTRY e {
  x = c128[4,24] parameter(0)
  ROOT f = c128[4,24] fft(x), fft_type=FFT, fft_length={24}
})";
  CompileOptions measure, estimate;
  measure.fft_plan = FftPlanMode::kMeasure;
  estimate.fft_plan = FftPlanMode::kEstimate;
  auto a = Build(text, measure);
  auto b = Build(text, estimate);
  auto c = Build(text, measure);
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  for (const Executable* exe : {a.get(), c.get()}) {
    const std::string dis = exe->Disassemble();
    EXPECT_NE(dis.find(" measure"), std::string::npos) << dis;
    EXPECT_EQ(dis.find(" estimate"), std::string::npos) << dis;
  }
  const std::string dis = b->Disassemble();
  EXPECT_NE(dis.find(" estimate"), std::string::npos) << dis;
  EXPECT_EQ(dis.find(" measure"), std::string::npos) << dis;
  // The default is estimate.
  EXPECT_NE(Build(text)->Disassemble().find(" estimate"), std::string::npos);

  std::vector<std::complex<double>> x(4 * 24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = {std::sin(0.3 * i), std::cos(0.7 * i)};
  Literal in = Array(ElementType::kC128, {4, 24}, x);
  const auto ya = Values<std::complex<double>>(RunWith(*a, {&in}, 1));
  const auto yb = Values<std::complex<double>>(RunWith(*b, {&in}, 1));
  ASSERT_EQ(ya.size(), x.size());
  ASSERT_EQ(yb.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(ya[i].real(), yb[i].real(), 1e-12);
    EXPECT_NEAR(ya[i].imag(), yb[i].imag(), 1e-12);
  }
}

}  // namespace
}  // namespace hlovm
