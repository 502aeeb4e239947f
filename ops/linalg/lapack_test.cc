#include "ops/linalg/lapack.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <complex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/custom_call.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::RunWith;
using vm_test::Values;

// The compile error of `text`, or "" when it compiles.
std::string CompileError(const std::string& text) {
  auto exe = Executable::FromText(text);
  return exe.ok() ? std::string() : std::string(exe.status().message());
}

std::string GetrfModule(const std::string& type, const std::string& results,
                        const std::string& layout) {
  return "HloModule m\n"
         "ENTRY e {\n"
         "  a = " + type + "[2,3,3]" + layout + " parameter(0)\n"
         "  ROOT lu = " + results + " custom-call(a), custom_call_target=\"lapack_dgetrf_ffi\", "
         "api_version=API_VERSION_TYPED_FFI\n"
         "}\n";
}

// First in this file, so that every test after it calls LAPACK with
// OpenBLAS's pool ended (where the BLAS here is OpenBLAS).
TEST(Lapack, BlasRunsOnTheCallingThreadWhereItIsOpenBlas) {
  using GetThreads = int (*)();
  auto get_threads =
      reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  const bool done = RunBlasOnCallingThread();
  if (get_threads == nullptr) {
    EXPECT_FALSE(done);
    GTEST_SKIP() << "the BLAS here is not OpenBLAS";
  }
  if (std::getenv("OPENBLAS_NUM_THREADS") != nullptr) {
    EXPECT_FALSE(done);
    GTEST_SKIP() << "OPENBLAS_NUM_THREADS is set";
  }
  EXPECT_TRUE(done);
  EXPECT_EQ(get_threads(), 1);
}

TEST(Lapack, RegistersSixtyTargets) {
  std::vector<std::string> names = LapackTargetNames();
  EXPECT_EQ(names.size(), 60u);
  RegisterLapackTargets();
  for (const char* name :
       {"lapack_sgetrf_ffi", "lapack_dpotrf_ffi", "lapack_cgeqrf_ffi", "lapack_zungqr_ffi",
        "lapack_sorgqr_ffi", "lapack_dsyevd_ffi", "lapack_cheevd_ffi", "lapack_zgesdd_ffi",
        "lapack_strsm_ffi", "lapack_dgeev_ffi", "lapack_cgehrd_ffi", "lapack_zhetrd_ffi",
        "lapack_ssytrd_ffi"}) {
    EXPECT_NE(FindCustomCallTarget(name), nullptr) << name;
  }
}

// A batch of two 3x3 matrices: the second is singular (its last column is
// zero), so its info is 3; pivots are LAPACK's 1-based ones. Column-major
// and row-major layouts on the call give the same values.
TEST(Lapack, GetrfBatchPivotsAndInfo) {
  const std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8, 10,  // det -3
                                 1, 2, 0, 3, 4, 0, 5, 6, 0};
  for (const char* layout : {"{1,2,0}", "{2,1,0}"}) {
    auto exe = Build(GetrfModule(
        "f64",
        std::string("(f64[2,3,3]") + layout + ", s32[2,3]{1,0}, s32[2]{0})", "{2,1,0}"));
    ASSERT_NE(exe, nullptr);
    Literal in = Array(ElementType::kF64, {2, 3, 3}, a);
    Literal out = RunWith(*exe, {&in}, 1);
    ASSERT_EQ(out.tuple_elements().size(), 3u);
    EXPECT_EQ(Values<int32_t>(out.tuple_elements()[2]), (std::vector<int32_t>{0, 3}));
    EXPECT_EQ(Values<int32_t>(out.tuple_elements()[1]), (std::vector<int32_t>{3, 3, 3, 3, 3, 3}));
    const Literal& lu = out.tuple_elements()[0];
    // P·A = L·U for the first matrix: row 3 (7, 8, 10) is the first pivot.
    EXPECT_DOUBLE_EQ(lu.Get<double>({0, 0, 0}), 7);
    EXPECT_DOUBLE_EQ(lu.Get<double>({0, 0, 2}), 10);
    EXPECT_DOUBLE_EQ(lu.Get<double>({0, 1, 0}), 1.0 / 7);
    // The singular matrix's last pivot is exactly zero.
    EXPECT_EQ(lu.Get<double>({1, 2, 2}), 0);
  }
}

TEST(Lapack, ShapeErrorsNameTheResultAndTheExpectedShape) {
  EXPECT_NE(CompileError(GetrfModule("f64", "(f64[2,3,3], s32[2,4], s32[2])", ""))
                .find("result 1 (ipiv) must be s32[2,3], but it is s32[2,4]"),
            std::string::npos);
  EXPECT_NE(CompileError(GetrfModule("f32", "(f32[2,3,3], s32[2,3], s32[2])", ""))
                .find("operand 0 must be f64[2,3,3], but it is f32[2,3,3]"),
            std::string::npos);
  EXPECT_NE(CompileError(GetrfModule("f64", "(f64[2,3,3], s32[2,3])", ""))
                .find("has 3 result(s) (a tuple), got 2"),
            std::string::npos);
}

std::string PotrfModule(const std::string& config, int n = 3) {
  const std::string s = std::to_string(n);
  return "HloModule m\n"
         "ENTRY e {\n"
         "  a = f32[2," + s + "," + s + "] parameter(0)\n"
         "  ROOT l = (f32[2," + s + "," + s + "]{1,2,0}, s32[2]{0}) custom-call(a), "
         "custom_call_target=\"lapack_spotrf_ffi\", operand_layout_constraints={f32[2," + s + "," +
         s + "]{1,2,0}}, api_version=API_VERSION_TYPED_FFI" + config + "\n"
         "}\n";
}

TEST(Lapack, AttributeErrors) {
  EXPECT_NE(CompileError(PotrfModule("")).find("missing attribute 'uplo'"), std::string::npos);
  EXPECT_NE(CompileError(PotrfModule(", backend_config={uplo = 88 : ui8}"))
                .find("uplo = 88 is not one of"),
            std::string::npos);
  EXPECT_EQ(CompileError(PotrfModule(", backend_config={uplo = 76 : ui8}")), "");
  EXPECT_EQ(CompileError(PotrfModule(", backend_config=\"{\\\"uplo\\\": 85}\"")), "");
  const std::string gesdd_o =
      "HloModule m\nENTRY e {\n  a = f32[3,3] parameter(0)\n"
      "  ROOT s = (f32[3,3], f32[3], f32[3,3], f32[3,3], s32[]) custom-call(a), "
      "custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 79 : ui8}\n}\n";
  EXPECT_NE(CompileError(gesdd_o).find("mode 'O'"), std::string::npos);
  const std::string orgqr_wide =
      "HloModule m\nENTRY e {\n  a = f64[2,3] parameter(0)\n  t = f64[2] parameter(1)\n"
      "  ROOT q = f64[2,3] custom-call(a, t), custom_call_target=\"lapack_dorgqr_ffi\"\n}\n";
  EXPECT_NE(CompileError(orgqr_wide).find("rows >= columns >= reflectors"), std::string::npos);
  auto gehrd = [](int high) {
    return "HloModule m\nENTRY e {\n  a = c64[4,4] parameter(0)\n"
           "  ROOT h = (c64[4,4], c64[3], s32[]) custom-call(a), "
           "custom_call_target=\"lapack_cgehrd_ffi\", backend_config={high = " +
           std::to_string(high) + " : i32, low = 1 : i32}\n}\n";
  };
  EXPECT_EQ(CompileError(gehrd(4)), "");
  EXPECT_NE(CompileError(gehrd(0)).find("needs 1 <= low <= high <= n"), std::string::npos);
  EXPECT_NE(CompileError(gehrd(5)).find("needs 1 <= low <= high <= n"), std::string::npos);
}

TEST(Lapack, UnknownLapackTargetsStillFailClearly) {
  // The targets of jaxlib before its typed FFI (no _ffi suffix, other
  // operands) are not these.
  const std::string old =
      "HloModule m\nENTRY e {\n  a = f32[3,3] parameter(0)\n"
      "  ROOT s = f32[3,3] custom-call(a), custom_call_target=\"lapack_sgetrf\"\n}\n";
  EXPECT_NE(CompileError(old).find("unknown custom-call target \"lapack_sgetrf\""),
            std::string::npos);
}

// potrf on a batch whose second matrix is not positive definite at its
// second leading minor; the batch runs the same with 1 and 4 threads.
TEST(Lapack, PotrfInfoAndThreadCountIndependence) {
  auto exe = Build(PotrfModule(", backend_config={uplo = 76 : ui8}"));
  ASSERT_NE(exe, nullptr);
  const std::vector<float> a = {4, 0, 0, 2, 5, 0, 2, 1, 6,  //
                                1, 0, 0, 2, 1, 0, 0, 0, 1};
  Literal in = Array(ElementType::kF32, {2, 3, 3}, a);
  Literal one = RunWith(*exe, {&in}, 1);
  Literal four = RunWith(*exe, {&in}, 4);
  EXPECT_EQ(Values<int32_t>(one.tuple_elements()[1]), (std::vector<int32_t>{0, 2}));
  const Literal& l = one.tuple_elements()[0];
  EXPECT_FLOAT_EQ(l.Get<float>({0, 0, 0}), 2);
  EXPECT_FLOAT_EQ(l.Get<float>({0, 1, 0}), 1);
  EXPECT_FLOAT_EQ(l.Get<float>({0, 1, 1}), 2);
  // The upper triangle is not touched.
  EXPECT_FLOAT_EQ(l.Get<float>({0, 0, 1}), 0);
  EXPECT_EQ(one.ToStringWithLayout(), four.ToStringWithLayout());
}

// A real matrix with a complex conjugate pair: the eigenvectors come out
// unpacked (conjugate columns); a matrix holding inf gives info -4.
TEST(Lapack, GeevUnpacksConjugatePairs) {
  const std::string text =
      "HloModule m\nENTRY e {\n  a = f64[2,2,2] parameter(0)\n"
      "  ROOT r = (f64[2,2], f64[2,2], c128[2,2,2]{1,2,0}, c128[2,2,2]{1,2,0}, s32[2]) "
      "custom-call(a), custom_call_target=\"lapack_dgeev_ffi\", "
      "api_version=API_VERSION_TYPED_FFI, "
      "backend_config={compute_left = 78 : ui8, compute_right = 86 : ui8}\n}\n";
  auto exe = Build(text);
  ASSERT_NE(exe, nullptr);
  const std::vector<double> a = {0, -1, 1, 0, 1, INFINITY, 0, 1};  // rotation; then inf
  Literal in = Array(ElementType::kF64, {2, 2, 2}, a);
  Literal out = RunWith(*exe, {&in}, 1);
  const auto& r = out.tuple_elements();
  EXPECT_EQ(Values<int32_t>(r[4]), (std::vector<int32_t>{0, -4}));
  EXPECT_DOUBLE_EQ(r[1].Get<double>({0, 0}), 1);   // eigenvalues ±i
  EXPECT_DOUBLE_EQ(r[1].Get<double>({0, 1}), -1);
  using C = std::complex<double>;
  const C v00 = r[3].Get<C>({0, 0, 0}), v10 = r[3].Get<C>({0, 1, 0});
  const C v01 = r[3].Get<C>({0, 0, 1}), v11 = r[3].Get<C>({0, 1, 1});
  EXPECT_EQ(v01, std::conj(v00));
  EXPECT_EQ(v11, std::conj(v10));
  // A·v = i·v for the first column.
  EXPECT_NEAR(std::abs(-v10 - C(0, 1) * v00), 0, 1e-15);
  EXPECT_NEAR(std::abs(v00 - C(0, 1) * v10), 0, 1e-15);
  // Left vectors were not asked for: zero.
  EXPECT_EQ(r[2].Get<C>({0, 0, 0}), C(0, 0));
}

// LAPACK's SVD can loop forever on an infinity: a non-finite matrix gets
// info -4 and NaN values without a LAPACK call, the rest of the batch is
// factored.
TEST(Lapack, SvdOfNonFiniteMatrixReportsInfoMinusFour) {
  for (const char* target : {"lapack_sgesdd_ffi", "lapack_sgesvd_ffi"}) {
    const std::string text =
        std::string("HloModule m\nENTRY e {\n  a = f32[2,2,2] parameter(0)\n"
                    "  ROOT r = (f32[2,2,2], f32[2,2], f32[2,2,2], f32[2,2,2], s32[2]) "
                    "custom-call(a), custom_call_target=\"") +
        target + "\", backend_config={mode = 65 : ui8}\n}\n";
    auto exe = Build(text);
    ASSERT_NE(exe, nullptr);
    const std::vector<float> a = {1, INFINITY, 0, 1, 3, 0, 0, 2};
    Literal in = Array(ElementType::kF32, {2, 2, 2}, a);
    Literal out = RunWith(*exe, {&in}, 1);
    const auto& r = out.tuple_elements();
    EXPECT_EQ(Values<int32_t>(r[4]), (std::vector<int32_t>{-4, 0})) << target;
    EXPECT_TRUE(std::isnan(r[1].Get<float>({0, 0})));
    EXPECT_FLOAT_EQ(r[1].Get<float>({1, 0}), 3);
    EXPECT_FLOAT_EQ(r[1].Get<float>({1, 1}), 2);
  }
}

}  // namespace
}  // namespace hlovm
