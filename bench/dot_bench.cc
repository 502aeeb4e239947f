// dot throughput through the ops/dot kernel entry (MakeDotPlan, DotPrepare,
// DotGemmUnits over fixed work units spread by tbb::parallel_for, DotFinish:
// what the VM's dot instruction runs), beside OpenBLAS as the reference when
// the benchmark is built with it (bench/CMakeLists.txt finds it optionally;
// the product never links it). Cases:
//   Square/<n>       f32 or f64 [n, n] x [n, n]
//   Batch64          256 dots of [64, 64] x [64, 64] (batch dimension)
//   Attention        [1, 12, 128, 64] x [1, 12, 128, 64] contracting the last
//                    dimensions (Q . K^T), batch dims {0, 1}
//   MatVec/<n>       f32 [1, 1152] x [n, 1152] contracting the last
//                    dimensions: a matrix-vector product with the matrix
//                    stored [n, k] (a decode step's logits)
//   Decode/<n>       f32 [11, 1152] x [n, 1152], the same layout with a few
//                    rows (a short prompt's projections)
//   MatVecNN/<n>     f32 [1, 2048] x [2048, n]: the matrix stored [k, n]
//                    (x @ W with W [in, out])
//   Batch32NN/<k>    f32 [32, k] x [k, 512]: an MLP layer's forward dot on
//                    a batch of 32 (one default work unit of C)
//   Batch32NT/<k>    f32 [32, 512] x [k, 512] contracting the last
//                    dimensions: its backward dot for the inputs (dh W^T)
//   Batch32TN/<m>    f32 [32, m] x [32, 512] contracting the first
//                    dimensions: its backward dot for the weights (x^T dh)
// Arguments: the case size and the thread count (the reference gets the same
// number of OpenBLAS threads; per-matrix cases call it once per matrix).
// Reports GFLOP/s (2*b*m*n*k per run). Compare Dot* with Blas* of the same
// arguments from the same run; the machine is noisy, so run with
// --benchmark_repetitions.
//
// With OPENBLAS_CORETYPE=Haswell in the environment, OpenBLAS runs its AVX2
// kernels and the benchmark restricts Highway to AVX2 as well, so both sides
// use the instruction set of the project's AVX2 machines.
#include <strings.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "hwy/targets.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/dot/dot.h"

#ifdef HLOVM_BENCH_OPENBLAS
extern "C" {
void openblas_set_num_threads(int);
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float* a,
                 int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double* a,
                 int lda, const double* b, int ldb, double beta, double* c, int ldc);
}
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
#endif

namespace hlovm {
namespace {

enum class Case {
  kSquare,
  kBatch64,
  kAttention,
  kMatVec,
  kDecode,
  kMatVecNN,
  kBatch32NN,
  kBatch32NT,
  kBatch32TN
};

struct Problem {
  std::vector<int64_t> ld, rd, od;
  DotDimensionNumbers dn;
  int64_t batch = 1, m = 0, k = 0, n = 0;
  bool rhs_transposed = false;  // rhs stored [n, k] per matrix
};

Problem MakeProblem(Case c, int64_t size) {
  Problem p;
  switch (c) {
    case Case::kSquare:
      p.ld = {size, size}, p.rd = {size, size}, p.od = {size, size};
      p.dn.lhs_contracting_dimensions = {1};
      p.dn.rhs_contracting_dimensions = {0};
      p.m = p.k = p.n = size;
      break;
    case Case::kBatch64:
      p.ld = {256, 64, 64}, p.rd = {256, 64, 64}, p.od = {256, 64, 64};
      p.dn.lhs_batch_dimensions = {0}, p.dn.rhs_batch_dimensions = {0};
      p.dn.lhs_contracting_dimensions = {2};
      p.dn.rhs_contracting_dimensions = {1};
      p.batch = 256, p.m = p.k = p.n = 64;
      break;
    case Case::kAttention:
      p.ld = {1, 12, 128, 64}, p.rd = {1, 12, 128, 64}, p.od = {1, 12, 128, 128};
      p.dn.lhs_batch_dimensions = {0, 1}, p.dn.rhs_batch_dimensions = {0, 1};
      p.dn.lhs_contracting_dimensions = {3};
      p.dn.rhs_contracting_dimensions = {3};
      p.batch = 12, p.m = 128, p.k = 64, p.n = 128;
      p.rhs_transposed = true;
      break;
    case Case::kMatVec:
    case Case::kDecode:
      p.m = c == Case::kMatVec ? 1 : 11, p.k = 1152, p.n = size;
      p.ld = {p.m, p.k}, p.rd = {p.n, p.k}, p.od = {p.m, p.n};
      p.dn.lhs_contracting_dimensions = {1};
      p.dn.rhs_contracting_dimensions = {1};
      p.rhs_transposed = true;
      break;
    case Case::kMatVecNN:
      p.m = 1, p.k = 2048, p.n = size;
      p.ld = {p.m, p.k}, p.rd = {p.k, p.n}, p.od = {p.m, p.n};
      p.dn.lhs_contracting_dimensions = {1};
      p.dn.rhs_contracting_dimensions = {0};
      break;
    case Case::kBatch32NN:
      p.m = 32, p.k = size, p.n = 512;
      p.ld = {p.m, p.k}, p.rd = {p.k, p.n}, p.od = {p.m, p.n};
      p.dn.lhs_contracting_dimensions = {1};
      p.dn.rhs_contracting_dimensions = {0};
      break;
    case Case::kBatch32NT:
      p.m = 32, p.k = 512, p.n = size;
      p.ld = {p.m, p.k}, p.rd = {p.n, p.k}, p.od = {p.m, p.n};
      p.dn.lhs_contracting_dimensions = {1};
      p.dn.rhs_contracting_dimensions = {1};
      p.rhs_transposed = true;
      break;
    case Case::kBatch32TN:
      p.m = size, p.k = 32, p.n = 512;
      p.ld = {p.k, p.m}, p.rd = {p.k, p.n}, p.od = {p.m, p.n};
      p.dn.lhs_contracting_dimensions = {0};
      p.dn.rhs_contracting_dimensions = {0};
      break;
  }
  return p;
}

double Flops(const Problem& p) { return 2.0 * p.batch * p.m * p.n * p.k; }

template <typename T>
void BM_Dot(benchmark::State& state, ElementType type, Case c) {
  const Problem p = MakeProblem(c, state.range(0));
  const int threads = static_cast<int>(state.range(1));
  auto plan = MakeDotPlan(Shape(type, p.ld), Shape(type, p.rd), Shape(type, p.od), p.dn);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  const auto a = bench::RandomUniform<T>(p.batch * p.m * p.k, 1);
  const auto b = bench::RandomUniform<T>(p.batch * p.k * p.n, 2);
  std::vector<T> c_out(p.batch * p.m * p.n);
  std::vector<uint8_t> scratch(static_cast<size_t>(plan->scratch_bytes) + 64);
  tbb::task_arena arena(threads);
  for (auto _ : state) {
    const DotBuffers bufs = DotPrepare(*plan, a.data(), b.data(), c_out.data(), scratch.data());
    if (threads <= 1 || plan->flops() < kParallelDotFlops) {
      DotGemmUnits(*plan, bufs, 0, plan->units);
    } else {
      bench::ParallelUnits(arena, plan->units,
                           [&](int64_t u0, int64_t u1) { DotGemmUnits(*plan, bufs, u0, u1); });
    }
    DotFinish(*plan, bufs, c_out.data());
    benchmark::DoNotOptimize(c_out.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(Flops(p) * state.iterations(), benchmark::Counter::kIsRate);
  state.SetLabel(gemm_internal::HwyGemmTarget());
}

#ifdef HLOVM_BENCH_OPENBLAS
template <typename T>
void Gemm(int ta, int tb, int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c,
          int ldc) {
  if constexpr (sizeof(T) == 4) {
    cblas_sgemm(kRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  } else {
    cblas_dgemm(kRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
  }
}

template <typename T>
void BM_Blas(benchmark::State& state, Case c) {
  const Problem p = MakeProblem(c, state.range(0));
  openblas_set_num_threads(static_cast<int>(state.range(1)));
  const auto a = bench::RandomUniform<T>(p.batch * p.m * p.k, 1);
  const auto b = bench::RandomUniform<T>(p.batch * p.k * p.n, 2);
  std::vector<T> c_out(p.batch * p.m * p.n);
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  for (auto _ : state) {
    for (int64_t i = 0; i < p.batch; ++i) {
      const T* ai = a.data() + i * p.m * p.k;
      const T* bi = b.data() + i * p.k * p.n;
      T* ci = c_out.data() + i * p.m * p.n;
      if (p.rhs_transposed) {
        Gemm<T>(kNoTrans, kTrans, m, n, k, ai, k, bi, k, ci, n);
      } else {
        Gemm<T>(kNoTrans, kNoTrans, m, n, k, ai, k, bi, n, ci, n);
      }
    }
    benchmark::DoNotOptimize(c_out.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(Flops(p) * state.iterations(), benchmark::Counter::kIsRate);
}
#endif

void BM_DotF32Square(benchmark::State& s) { BM_Dot<float>(s, ElementType::kF32, Case::kSquare); }
void BM_DotF64Square(benchmark::State& s) { BM_Dot<double>(s, ElementType::kF64, Case::kSquare); }
void BM_DotF32Batch64(benchmark::State& s) { BM_Dot<float>(s, ElementType::kF32, Case::kBatch64); }
void BM_DotF32Attention(benchmark::State& s) {
  BM_Dot<float>(s, ElementType::kF32, Case::kAttention);
}
void BM_DotF32MatVec(benchmark::State& s) { BM_Dot<float>(s, ElementType::kF32, Case::kMatVec); }
void BM_DotF32Decode(benchmark::State& s) { BM_Dot<float>(s, ElementType::kF32, Case::kDecode); }
void BM_DotF32MatVecNN(benchmark::State& s) {
  BM_Dot<float>(s, ElementType::kF32, Case::kMatVecNN);
}
void BM_DotF32Batch32NN(benchmark::State& s) {
  BM_Dot<float>(s, ElementType::kF32, Case::kBatch32NN);
}
void BM_DotF32Batch32NT(benchmark::State& s) {
  BM_Dot<float>(s, ElementType::kF32, Case::kBatch32NT);
}
void BM_DotF32Batch32TN(benchmark::State& s) {
  BM_Dot<float>(s, ElementType::kF32, Case::kBatch32TN);
}
#ifdef HLOVM_BENCH_OPENBLAS
void BM_BlasF32MatVec(benchmark::State& s) { BM_Blas<float>(s, Case::kMatVec); }
void BM_BlasF32Decode(benchmark::State& s) { BM_Blas<float>(s, Case::kDecode); }
void BM_BlasF32MatVecNN(benchmark::State& s) { BM_Blas<float>(s, Case::kMatVecNN); }
void BM_BlasF32Square(benchmark::State& s) { BM_Blas<float>(s, Case::kSquare); }
void BM_BlasF64Square(benchmark::State& s) { BM_Blas<double>(s, Case::kSquare); }
void BM_BlasF32Batch64(benchmark::State& s) { BM_Blas<float>(s, Case::kBatch64); }
void BM_BlasF32Attention(benchmark::State& s) { BM_Blas<float>(s, Case::kAttention); }
#endif

// Each case with 1 and 2 threads, the reference right after ours so that
// the two run close together in time.
#define HLOVM_DOT_BENCH_ONE(name, size, threads) \
  BENCHMARK(name)->Args({size, threads})->UseRealTime()->Unit(benchmark::kMillisecond)
#ifdef HLOVM_BENCH_OPENBLAS
#define HLOVM_DOT_BENCH_PAIR(dot, blas, size, threads) \
  HLOVM_DOT_BENCH_ONE(dot, size, threads);             \
  HLOVM_DOT_BENCH_ONE(blas, size, threads)
#else
#define HLOVM_DOT_BENCH_PAIR(dot, blas, size, threads) HLOVM_DOT_BENCH_ONE(dot, size, threads)
#endif
#define HLOVM_DOT_BENCH_CASE(dot, blas, size) \
  HLOVM_DOT_BENCH_PAIR(dot, blas, size, 1);   \
  HLOVM_DOT_BENCH_PAIR(dot, blas, size, 2)

HLOVM_DOT_BENCH_CASE(BM_DotF32Square, BM_BlasF32Square, 1024);
HLOVM_DOT_BENCH_CASE(BM_DotF64Square, BM_BlasF64Square, 1024);
HLOVM_DOT_BENCH_CASE(BM_DotF32Batch64, BM_BlasF32Batch64, 0);
HLOVM_DOT_BENCH_CASE(BM_DotF32Attention, BM_BlasF32Attention, 0);
HLOVM_DOT_BENCH_PAIR(BM_DotF32Square, BM_BlasF32Square, 256, 1);
HLOVM_DOT_BENCH_CASE(BM_DotF32MatVec, BM_BlasF32MatVec, 16384);
HLOVM_DOT_BENCH_CASE(BM_DotF32Decode, BM_BlasF32Decode, 13824);
HLOVM_DOT_BENCH_CASE(BM_DotF32MatVecNN, BM_BlasF32MatVecNN, 16384);
// The MLP training step's dots (bench/peers/mlp_train.hlo); the reference
// has no transposed-lhs case, so these run alone.
#define HLOVM_DOT_BENCH_ALONE(dot, size) \
  HLOVM_DOT_BENCH_ONE(dot, size, 1);     \
  HLOVM_DOT_BENCH_ONE(dot, size, 2)
HLOVM_DOT_BENCH_ALONE(BM_DotF32Batch32NN, 784);
HLOVM_DOT_BENCH_ALONE(BM_DotF32Batch32NN, 512);
HLOVM_DOT_BENCH_ALONE(BM_DotF32Batch32NT, 512);
HLOVM_DOT_BENCH_ALONE(BM_DotF32Batch32TN, 784);
HLOVM_DOT_BENCH_ALONE(BM_DotF32Batch32TN, 512);

}  // namespace
}  // namespace hlovm

int main(int argc, char** argv) {
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  if (core != nullptr && (strcasecmp(core, "Haswell") == 0 || strcasecmp(core, "Zen") == 0)) {
    hwy::SetSupportedTargetsForTest(HWY_AVX2);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
