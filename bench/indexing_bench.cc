// Gather and scatter through the VM, each as a ratio to a plain C++ loop
// doing the same work, timed in the same run with the same thread count:
//   gather of 1M scalars (s32 indices) from a 1M-element f32 table,
//   gather of 64K rows of 64 f32 from a 4096-row table,
//   scatter-add of 1M f32 scalars into 64K elements (single-op kernel path),
//   scatter of 1M f32 scalars with a compiled combiner (a*0.5 + b).
// ratio = reference time / VM time (>= 1: the VM is faster).
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "vm/api.h"

namespace hlovm {
namespace {

template <typename T>
Literal Array(ElementType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  Literal lit = std::move(Literal::Create(Shape(type, std::move(dims))).value());
  std::memcpy(lit.untyped_data(), values.data(), values.size() * sizeof(T));
  return lit;
}

void Compare(benchmark::State& state, const std::string& hlo, std::vector<Literal> args,
             const std::function<void()>& reference) {
  std::unique_ptr<Executable> exe = bench::CompileOrSkip(state, hlo);
  if (exe == nullptr) return;
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  ExecuteOptions options;
  options.threads = static_cast<int>(state.range(0));
  auto run = [&] { benchmark::DoNotOptimize(exe->Execute(ptrs, options)); };
  run();
  reference();
  const bench::KernelAndReference t = bench::TimeAgainstReference(state, run, reference);
  state.counters["ratio"] = t.reference / t.kernel;
}

constexpr int64_t kN = 1 << 20;

std::vector<int32_t> RandomIndices(int64_t n, int64_t range) {
  std::vector<int32_t> v(n);
  uint64_t x = 88172645463325252ull;
  for (auto& e : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    e = static_cast<int32_t>(x % range);
  }
  return v;
}

void BM_GatherScalars(benchmark::State& state) {
  std::vector<float> table(kN);
  for (int64_t i = 0; i < kN; ++i) table[i] = static_cast<float>(i);
  const std::vector<int32_t> idx = RandomIndices(kN, kN);
  std::vector<float> out(kN);
  Compare(state, R"(
HloModule m
ENTRY e {
  t = f32[1048576] parameter(0)
  i = s32[1048576,1] parameter(1)
  ROOT g = f32[1048576] gather(t, i), offset_dims={}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1}
})",
          [&] {
            std::vector<Literal> a;
            a.push_back(Array(ElementType::kF32, {kN}, table));
            a.push_back(Array(ElementType::kS32, {kN, 1}, idx));
            return a;
          }(),
          [&] {
            for (int64_t k = 0; k < kN; ++k) {
              const int64_t j = std::min<int64_t>(std::max<int64_t>(idx[k], 0), kN - 1);
              out[k] = table[j];
            }
            benchmark::DoNotOptimize(out.data());
          });
}

void BM_GatherRows(benchmark::State& state) {
  const int64_t rows = 4096, cols = 64, m = 65536;
  std::vector<float> table(rows * cols, 1.5f);
  const std::vector<int32_t> idx = RandomIndices(m, rows);
  std::vector<float> out(m * cols);
  Compare(state, R"(
HloModule m
ENTRY e {
  t = f32[4096,64] parameter(0)
  i = s32[65536] parameter(1)
  ROOT g = f32[65536,64] gather(t, i), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}
})",
          [&] {
            std::vector<Literal> a;
            a.push_back(Array(ElementType::kF32, {rows, cols}, table));
            a.push_back(Array(ElementType::kS32, {m}, idx));
            return a;
          }(),
          [&] {
            for (int64_t k = 0; k < m; ++k) {
              const int64_t j = std::min<int64_t>(std::max<int64_t>(idx[k], 0), rows - 1);
              std::memcpy(&out[k * cols], &table[j * cols], cols * sizeof(float));
            }
            benchmark::DoNotOptimize(out.data());
          });
}

// The scatters' arguments: operand f32[65536], indices s32[1048576, 1] and
// updates f32[1048576].
std::vector<Literal> ScatterArguments(const std::vector<float>& operand,
                                      const std::vector<int32_t>& idx,
                                      const std::vector<float>& upd) {
  std::vector<Literal> a;
  a.push_back(Array(ElementType::kF32, {static_cast<int64_t>(operand.size())}, operand));
  a.push_back(Array(ElementType::kS32, {kN, 1}, idx));
  a.push_back(Array(ElementType::kF32, {kN}, upd));
  return a;
}

void BM_ScatterAdd(benchmark::State& state) {
  const int64_t n = 65536;
  std::vector<float> operand(n, 0.0f), upd(kN, 0.25f), out(n);
  const std::vector<int32_t> idx = RandomIndices(kN, n);
  Compare(state, R"(
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }
ENTRY e {
  o = f32[65536] parameter(0)
  i = s32[1048576,1] parameter(1)
  u = f32[1048576] parameter(2)
  ROOT s = f32[65536] scatter(o, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})",
          ScatterArguments(operand, idx, upd),
          [&] {
            std::memcpy(out.data(), operand.data(), n * sizeof(float));
            for (int64_t k = 0; k < kN; ++k) {
              if (idx[k] >= 0 && idx[k] < n) out[idx[k]] += upd[k];
            }
            benchmark::DoNotOptimize(out.data());
          });
}

void BM_ScatterCompiled(benchmark::State& state) {
  const int64_t n = 65536;
  std::vector<float> operand(n, 0.0f), upd(kN, 0.25f), out(n);
  const std::vector<int32_t> idx = RandomIndices(kN, n);
  Compare(state, R"(
HloModule m
comb {
  a = f32[] parameter(0)  b = f32[] parameter(1)
  h = f32[] constant(0.5)  m = f32[] multiply(a, h)
  ROOT r = f32[] add(m, b)
}
ENTRY e {
  o = f32[65536] parameter(0)
  i = s32[1048576,1] parameter(1)
  u = f32[1048576] parameter(2)
  ROOT s = f32[65536] scatter(o, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=comb
})",
          ScatterArguments(operand, idx, upd),
          [&] {
            std::memcpy(out.data(), operand.data(), n * sizeof(float));
            for (int64_t k = 0; k < kN; ++k) {
              if (idx[k] >= 0 && idx[k] < n) out[idx[k]] = out[idx[k]] * 0.5f + upd[k];
            }
            benchmark::DoNotOptimize(out.data());
          });
}

BENCHMARK(BM_GatherScalars)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GatherRows)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScatterAdd)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScatterCompiled)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
