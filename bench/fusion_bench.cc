// Fused elementwise regions, run through the VM, each as a ratio to a
// reference timed in the same run with the same thread count:
//
//   BM_Chain8VsTriad: a loop-carried chain of 8 cheap f32 ops over 16M
//     elements (multiply, add, subtract, maximum, minimum, negate, abs,
//     compare+select, scalars broadcast) as bandwidth (8 bytes an element:
//     read the state, write it) against a STREAM triad loop (12 bytes an
//     element). Fused, the chain moves its array once a trip; op by op
//     (BM_Chain8UnfusedVsTriad, for comparison) it moves it 8 times.
//   BM_GeluVsTanh: the GELU chain (tanh form: 9 ops around one tanh) against
//     the tanh alone, both loop-carried over 16M elements: ratio = time of
//     tanh / time of GELU. Beside it, the same chain written by hand as one
//     Highway loop (the same element functions in the same order, tanh the
//     VM's own, so the same bits, checked): `handwritten_ratio` is what a kernel with no
//     interpreter reaches against the tanh, `vs_handwritten` the fused
//     region's speed as a fraction of that kernel's. `l1_bound` is the
//     ratio of the two hand-written loops (tanh alone, GELU) over a block
//     that stays in L1: the most any GELU reaches against this tanh where
//     both are compute-bound, and `of_l1_bound` the fused region's ratio as a
//     fraction of it. (The tanh is XLA's rational function: 11 multiplies or
//     fused multiply-adds and a divide a vector; GELU adds 6 multiplies, so
//     on a core with two multiply pipes the bound is near 11/17.) The second
//     argument 1 runs everything on the AVX2 code path (skipped where the CPU
//     lacks it).
//
//   BM_LayerNormVsTriad: a loop-carried layer norm (scale and bias vectors)
//     of the 16M-element state seen as [16384, 1024] rows, as bandwidth
//     counting one read and one write of the state (8 bytes an element)
//     against a STREAM triad loop: a row-wise region moves the state once a
//     trip. BM_LayerNormUnfusedVsTriad runs it op by op, for comparison.
//   BM_TransposedInput: a loop-carried 4096x4096 f32 state transposed
//     (its innermost dimension moved) into a scale and a maximum, fused (the
//     region run in bands, the transpose gathered a block of columns at a
//     time) and op by op, against the
//     transpose alone (the op-by-op kernel, the same bytes moved as the
//     fused loop): speedup = time op by op / time fused, vs_transpose =
//     time of the transpose / time fused.
//
// A trip's time is (time of 1 + D trips - time of 1 trip) / D, so passing
// the argument and copying out the result do not count.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/fusion_bench.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "ops/elementwise/tanh_f32-inl.h"

// The hand-written GELU, compiled once per SIMD target.
HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace fusion_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// y := GELU(x) on elements [begin, end), in the HLO's order of operations:
// 0.5 * x * (1 + tanh(0.797884583 * (x + 0.044715 * x^3))).
template <class D>
HWY_INLINE void GeluVectors(D d, const float* x, float* y, int64_t begin, int64_t end) {
  const auto half = hn::Set(d, 0.5f);
  const auto one = hn::Set(d, 1.0f);
  const auto k = hn::Set(d, 0.044715f);
  const auto r = hn::Set(d, 0.797884583f);
  const int64_t n = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t i = begin; i < end; i += n) {
    const auto v = hn::LoadU(d, x + i);
    const auto x3 = hn::Mul(hn::Mul(v, v), v);
    const auto scaled = hn::Mul(r, hn::Add(v, hn::Mul(k, x3)));
    const auto onep = hn::Add(one, elementwise_internal::HWY_NAMESPACE::TanhF32Rational(d, scaled));
    hn::StoreU(hn::Mul(hn::Mul(half, v), onep), d, y + i);
  }
}

void GeluRange(const float* x, float* y, int64_t begin, int64_t end) {
  const hn::ScalableTag<float> d;
  const int64_t whole = begin + (end - begin) / hn::Lanes(d) * hn::Lanes(d);
  GeluVectors(d, x, y, begin, whole);
  GeluVectors(hn::CappedTag<float, 1>(), x, y, whole, end);
}

// y := tanh(x) on elements [begin, end): the VM's tanh, as one loop.
void TanhRange(const float* x, float* y, int64_t begin, int64_t end) {
  const hn::ScalableTag<float> d;
  const int64_t n = static_cast<int64_t>(hn::Lanes(d));
  const int64_t whole = begin + (end - begin) / n * n;
  for (int64_t i = begin; i < whole; i += n) {
    hn::StoreU(elementwise_internal::HWY_NAMESPACE::TanhF32Rational(d, hn::LoadU(d, x + i)), d,
               y + i);
  }
  const hn::CappedTag<float, 1> d1;
  for (int64_t i = whole; i < end; ++i) {
    hn::StoreU(elementwise_internal::HWY_NAMESPACE::TanhF32Rational(d1, hn::LoadU(d1, x + i)), d1,
               y + i);
  }
}

int64_t TargetOf() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace fusion_bench
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "hwy/targets.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_reduce.h"
#include "oneapi/tbb/partitioner.h"
#include "oneapi/tbb/task_arena.h"
#include "vm/api.h"

namespace hlovm {
namespace fusion_bench {
HWY_EXPORT(GeluRange);
HWY_EXPORT(TanhRange);
HWY_EXPORT(TargetOf);
}  // namespace fusion_bench

namespace {

constexpr int64_t kElements = int64_t{1} << 24;  // 16M
constexpr int kExtraTrips = 8;

// A loop of `trips` trips (its first parameter) whose f32[16M] state goes
// through BODY, which reads `x` and defines `y`.
std::string LoopModule(const std::string& body) {
  const std::string text = R"(HloModule loop
cond {
  s = (s32[], s32[], f32[N]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  t = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, t), direction=LT
}
body {
  s = (s32[], s32[], f32[N]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  t = s32[] get-tuple-element(s), index=1
  x = f32[N] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
BODY
  ROOT next = (s32[], s32[], f32[N]) tuple(i1, t, y)
}
ENTRY main {
  trips = s32[] parameter(0)
  x0 = f32[N] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], s32[], f32[N]) tuple(zero, trips, x0)
  loop = (s32[], s32[], f32[N]) while(init), condition=cond, body=body
  ROOT out = f32[N] get-tuple-element(loop), index=2
}
)";
  const std::string add = R"(HloModule loop
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";
  return absl::StrReplaceAll(absl::StrReplaceAll(text, {{"BODY", body}, {"HloModule loop\n", add}}),
                             {{"[N]", absl::StrCat("[", kElements, "]")}});
}

// A scalar constant broadcast to the state's shape, named `name`.
std::string Splat(const std::string& name, const std::string& value) {
  return absl::StrCat("  ", name, "_s = f32[] constant(", value, ")\n  ", name,
                      " = f32[N] broadcast(", name, "_s), dimensions={}\n");
}

std::string Chain8() {
  return Splat("c1", "1.0001") + Splat("c2", "0.5") + Splat("c3", "0.25") +
         Splat("c4", "-100") + Splat("c5", "100") + Splat("c6", "50") + R"(
  m = f32[N] multiply(x, c1)
  a = f32[N] add(m, c2)
  d = f32[N] subtract(a, c3)
  hi = f32[N] maximum(d, c4)
  lo = f32[N] minimum(hi, c5)
  n = f32[N] negate(lo)
  ab = f32[N] abs(n)
  big = pred[N] compare(ab, c6), direction=GT
  y = f32[N] select(big, n, ab)
)";
}

std::string Gelu() {
  return Splat("half", "0.5") + Splat("one_f", "1") + Splat("k", "0.044715") +
         Splat("r", "0.797884583") + R"(
  x2 = f32[N] multiply(x, x)
  x3 = f32[N] multiply(x2, x)
  kx3 = f32[N] multiply(k, x3)
  inner = f32[N] add(x, kx3)
  scaled = f32[N] multiply(r, inner)
  th = f32[N] tanh(scaled)
  onep = f32[N] add(one_f, th)
  hx = f32[N] multiply(half, x)
  y = f32[N] multiply(hx, onep)
)";
}

// Layer norm of the state as [16384, 1024] rows, in the order JAX writes
// it; the scale and bias vectors depend on the trip (kept in the loop, as
// weights read from memory would be).
std::string LayerNorm() {
  return R"(
  xr = f32[16384,1024] reshape(x)
  zf = f32[] constant(0)
  rs = f32[16384] reduce(xr, zf), dimensions={1}, to_apply=add
  len = f32[] constant(1024)
  lenb = f32[16384] broadcast(len), dimensions={}
  mean = f32[16384] divide(rs, lenb)
  meanb = f32[16384,1024] broadcast(mean), dimensions={0}
  xc = f32[16384,1024] subtract(xr, meanb)
  sq = f32[16384,1024] multiply(xc, xc)
  v = f32[16384] reduce(sq, zf), dimensions={1}, to_apply=add
  var = f32[16384] divide(v, lenb)
  eps = f32[] constant(1e-05)
  epsb = f32[16384] broadcast(eps), dimensions={}
  ve = f32[16384] add(var, epsb)
  inv = f32[16384] rsqrt(ve)
  invb = f32[16384,1024] broadcast(inv), dimensions={0}
  xn = f32[16384,1024] multiply(xc, invb)
  io = f32[1024] iota(), iota_dimension=0
  fi = f32[] convert(i)
  k = f32[] constant(0.001)
  ki = f32[] multiply(fi, k)
  kb = f32[1024] broadcast(ki), dimensions={}
  scale = f32[1024] multiply(io, kb)
  scaleb = f32[16384,1024] broadcast(scale), dimensions={1}
  xs = f32[16384,1024] multiply(xn, scaleb)
  biasb = f32[16384,1024] broadcast(kb), dimensions={1}
  yr = f32[16384,1024] add(xs, biasb)
  y = f32[N] reshape(yr)
)";
}

std::string TanhOnly() { return "  y = f32[N] tanh(x)\n"; }

class Loop {
 public:
  Loop(const std::string& body, bool fusion, int threads) : threads_(threads) {
    CompileOptions options;
    options.fusion = fusion;
    auto exe = Executable::FromText(LoopModule(body), options);
    if (exe.ok()) {
      exe_ = std::move(*exe);
    } else {
      error_ = std::string(exe.status().message());
    }
    auto x = Literal::Create(Shape(ElementType::kF32, {kElements}));
    if (x.ok()) {
      float* p = reinterpret_cast<float*>(x->untyped_data());
      for (int64_t i = 0; i < kElements; ++i) p[i] = static_cast<float>(i % 2001 - 1000) / 400.0f;
      x_ = std::move(*x);
    }
  }
  bool ok() const { return exe_ != nullptr; }
  const std::string& error() const { return error_; }
  const Literal& x() const { return x_; }
  absl::StatusOr<Literal> Run(int trips) const {
    const Literal t = Literal::CreateR0<int32_t>(trips);
    ExecuteOptions options;
    options.threads = threads_;
    return exe_->Execute({&t, &x_}, options);
  }
  double Seconds(int trips) const {
    absl::StatusOr<Literal> r;
    const double s = bench::WallSeconds([&] { r = Run(trips); });
    benchmark::DoNotOptimize(r);
    return s;
  }
  // Seconds of one trip.
  double Trip() const {
    return std::max(1e-9, (Seconds(1 + kExtraTrips) - Seconds(1)) / kExtraTrips);
  }

 private:
  int threads_;
  std::unique_ptr<Executable> exe_;
  std::string error_;
  Literal x_;
};

// bench::TimeBeside in mean milliseconds, `timed`'s first.
std::vector<double> TimeBesideMs(benchmark::State& state, const std::function<double()>& timed,
                                 const std::vector<std::function<double()>>& beside) {
  std::vector<double> ms = bench::TimeBeside(state, timed, beside);
  for (double& m : ms) m *= 1e3;
  return ms;
}

// Seconds of one pass of fn(begin, end) over the 16M elements on `arena`,
// in chunks of 64K elements.
double ChunkedPassSeconds(tbb::task_arena& arena,
                          const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t chunk = 1 << 16;
  return bench::WallSeconds([&] {
    bench::ParallelUnits(arena, kElements / chunk,
                         [&](int64_t begin, int64_t end) { fn(begin * chunk, end * chunk); });
  });
}

// One triad pass over 16M floats on `arena`; seconds.
double TriadSeconds(tbb::task_arena& arena, std::vector<float>& a, const std::vector<float>& b,
                    const std::vector<float>& c) {
  const double s = ChunkedPassSeconds(arena, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) a[i] = b[i] + 3.0f * c[i];
  });
  benchmark::DoNotOptimize(a.data());
  return s;
}

void ChainVsTriad(benchmark::State& state, bool fusion) {
  const int threads = static_cast<int>(state.range(0));
  Loop loop(Chain8(), fusion, threads);
  if (!loop.ok()) {
    state.SkipWithError(loop.error().c_str());
    return;
  }
  tbb::task_arena arena(threads);
  std::vector<float> a(kElements), b(kElements, 1.5f), c(kElements, 2.5f);
  TriadSeconds(arena, a, b, c);
  loop.Seconds(1);
  const std::vector<double> ms =
      TimeBesideMs(state, [&] { return loop.Trip(); }, {[&] { return TriadSeconds(arena, a, b, c); }});
  const double chain_gbps = 8.0 * kElements / ms[0] / 1e6;
  const double triad_gbps = 12.0 * kElements / ms[1] / 1e6;
  state.counters["chain_GBps"] = chain_gbps;
  state.counters["triad_GBps"] = triad_gbps;
  state.counters["ratio"] = chain_gbps / triad_gbps;
}

void BM_Chain8VsTriad(benchmark::State& state) { ChainVsTriad(state, true); }

void LayerNormVsTriad(benchmark::State& state, bool fusion) {
  const int threads = static_cast<int>(state.range(0));
  Loop loop(LayerNorm(), fusion, threads);
  if (!loop.ok()) {
    state.SkipWithError(loop.error().c_str());
    return;
  }
  tbb::task_arena arena(threads);
  std::vector<float> a(kElements), b(kElements, 1.5f), c(kElements, 2.5f);
  TriadSeconds(arena, a, b, c);
  loop.Seconds(1);
  const std::vector<double> ms =
      TimeBesideMs(state, [&] { return loop.Trip(); }, {[&] { return TriadSeconds(arena, a, b, c); }});
  const double ln_gbps = 8.0 * kElements / ms[0] / 1e6;
  const double triad_gbps = 12.0 * kElements / ms[1] / 1e6;
  state.counters["layer_norm_GBps"] = ln_gbps;
  state.counters["triad_GBps"] = triad_gbps;
  state.counters["ratio"] = ln_gbps / triad_gbps;
}

void BM_LayerNormVsTriad(benchmark::State& state) { LayerNormVsTriad(state, true); }
void BM_LayerNormUnfusedVsTriad(benchmark::State& state) { LayerNormVsTriad(state, false); }
void BM_Chain8UnfusedVsTriad(benchmark::State& state) { ChainVsTriad(state, false); }

// One pass of the hand-written GELU over the 16M elements of `x` on
// `arena`; seconds.
double HandWrittenGeluSeconds(tbb::task_arena& arena, const float* x, float* y) {
  const double s = ChunkedPassSeconds(arena, [&](int64_t begin, int64_t end) {
    HWY_DYNAMIC_DISPATCH(fusion_bench::GeluRange)(x, y, begin, end);
  });
  benchmark::DoNotOptimize(y);
  return s;
}

// Seconds per element of fn(x, y, 0, n) over a block that stays in L1
// (the best of many passes, on this thread): the kernel's compute alone.
template <class Fn>
double InL1SecondsPerElement(Fn&& fn) {
  constexpr int64_t kBlock = 2048;  // 8 KiB in, 8 KiB out
  std::vector<float> x(kBlock), y(kBlock);
  for (int64_t i = 0; i < kBlock; ++i) x[i] = static_cast<float>(i % 2001 - 1000) / 400.0f;
  double best = 1e9;
  for (int round = 0; round < 50; ++round) {
    constexpr int kPasses = 100;
    const double s = bench::WallSeconds([&] {
      for (int pass = 0; pass < kPasses; ++pass) {
        fn(x.data(), y.data(), 0, kBlock);
        benchmark::ClobberMemory();
      }
    });
    best = std::min(best, s / (kPasses * kBlock));
  }
  benchmark::DoNotOptimize(y.data());
  return best;
}

// Runs everything on the AVX2 code path while it lives.
class Avx2Only {
 public:
  Avx2Only() { hwy::DisableTargets(HWY_AVX2 - 1); }  // every target better than AVX2
  ~Avx2Only() { hwy::DisableTargets(0); }
};

void BM_GeluVsTanh(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::unique_ptr<Avx2Only> avx2;
  if (state.range(1) == 1) {
    if ((hwy::SupportedTargets() & HWY_AVX2) == 0) {
      state.SkipWithError("this CPU has no AVX2");
      return;
    }
    avx2 = std::make_unique<Avx2Only>();
  }
  Loop gelu(Gelu(), true, threads);
  Loop tanh(TanhOnly(), true, threads);
  if (!gelu.ok() || !tanh.ok()) {
    state.SkipWithError((gelu.error() + tanh.error()).c_str());
    return;
  }
  tbb::task_arena arena(threads);
  const float* x = reinterpret_cast<const float*>(gelu.x().untyped_data());
  std::vector<float> y(kElements);
  HandWrittenGeluSeconds(arena, x, y.data());
  auto fused = gelu.Run(1);
  if (!fused.ok() || std::memcmp(fused->untyped_data(), y.data(), kElements * sizeof(float)) != 0) {
    state.SkipWithError("the fused GELU and the hand-written one differ");
    return;
  }
  tanh.Seconds(1);
  const std::vector<double> ms =
      TimeBesideMs(state, [&] { return gelu.Trip(); },
                 {[&] { return tanh.Trip(); }, [&] { return HandWrittenGeluSeconds(arena, x, y.data()); }});
  state.counters["gelu_ms"] = ms[0];
  state.counters["tanh_ms"] = ms[1];
  state.counters["handwritten_ms"] = ms[2];
  state.counters["ratio"] = ms[1] / ms[0];
  state.counters["handwritten_ratio"] = ms[1] / ms[2];
  state.counters["vs_handwritten"] = ms[2] / ms[0];
  // The most any GELU kernel can reach against this tanh where both are
  // compute-bound: the two hand-written loops in L1.
  const double bound = InL1SecondsPerElement(HWY_DYNAMIC_DISPATCH(fusion_bench::TanhRange)) /
                       InL1SecondsPerElement(HWY_DYNAMIC_DISPATCH(fusion_bench::GeluRange));
  state.counters["l1_bound"] = bound;
  state.counters["of_l1_bound"] = ms[1] / ms[0] / bound;
  state.SetLabel(hwy::TargetName(HWY_DYNAMIC_DISPATCH(fusion_bench::TargetOf)()));
}

// The state seen as a square matrix, transposed; then a scale and a
// maximum with the transpose.
constexpr int64_t kSide = 4096;
static_assert(kSide * kSide == kElements);

std::string Transposed(bool alone) {
  std::string body = R"(
  xr = f32[S,S] reshape(x)
  tr = f32[S,S] transpose(xr), dimensions={1,0}
)";
  body += alone ? "  y = f32[N] reshape(tr)\n" : R"(
  c = f32[] constant(0.5)
  cb = f32[S,S] broadcast(c), dimensions={}
  m = f32[S,S] multiply(tr, cb)
  g = f32[S,S] maximum(m, tr)
  y = f32[N] reshape(g)
)";
  return absl::StrReplaceAll(body, {{"[S,S]", absl::StrCat("[", kSide, ",", kSide, "]")}});
}

void BM_TransposedInput(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  Loop fused(Transposed(false), true, threads);
  Loop plain(Transposed(false), false, threads);
  Loop alone(Transposed(true), true, threads);
  if (!fused.ok() || !plain.ok() || !alone.ok()) {
    state.SkipWithError((fused.error() + plain.error() + alone.error()).c_str());
    return;
  }
  fused.Seconds(1);
  plain.Seconds(1);
  alone.Seconds(1);
  const std::vector<double> ms = TimeBesideMs(
      state, [&] { return fused.Trip(); }, {[&] { return plain.Trip(); }, [&] { return alone.Trip(); }});
  state.counters["fused_ms"] = ms[0];
  state.counters["unfused_ms"] = ms[1];
  state.counters["transpose_ms"] = ms[2];
  state.counters["speedup"] = ms[1] / ms[0];
  state.counters["vs_transpose"] = ms[2] / ms[0];
}

// A bias gradient: the sum over 8192 rows of max(x * y + x, y) for 1024
// columns, fused (the chain computed row segment by row segment into the
// column sums) and op by op, against a parallel loop that only reads x and
// y (64 MiB): ratio = time of the read / time of the fused reduce.
constexpr char kColumnSum[] = R"(HloModule colsum
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[8192,1024] parameter(0)
  y = f32[8192,1024] parameter(1)
  zero = f32[] constant(0)
  d = f32[8192,1024] multiply(x, y)
  e = f32[8192,1024] add(d, x)
  g = f32[8192,1024] maximum(e, y)
  ROOT bias = f32[1024] reduce(g, zero), dimensions={0}, to_apply=add_f32
})";

double ReadSeconds(tbb::task_arena& arena, const float* x, const float* y, int64_t n) {
  const int64_t chunk = 1 << 16;
  float total = 0;
  const double s = bench::WallSeconds([&] {
    arena.execute([&] {
      total = tbb::parallel_reduce(
          tbb::blocked_range<int64_t>(0, n / chunk, 1), 0.0f,
          [&](const tbb::blocked_range<int64_t>& r, float acc) {
            float a[8] = {};
            for (int64_t i = r.begin() * chunk; i < r.end() * chunk; i += 8) {
              for (int k = 0; k < 8; ++k) a[k] += x[i + k] + y[i + k];
            }
            for (float v : a) acc += v;
            return acc;
          },
          [](float a, float b) { return a + b; }, tbb::simple_partitioner());
    });
  });
  benchmark::DoNotOptimize(total);
  return s;
}

void BM_ColumnSumVsRead(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  CompileOptions fused_options, plain_options;
  plain_options.fusion = false;
  auto fused = Executable::FromText(kColumnSum, fused_options);
  auto plain = Executable::FromText(kColumnSum, plain_options);
  auto x = Literal::Create(Shape(ElementType::kF32, {8192, 1024}));
  auto y = Literal::Create(Shape(ElementType::kF32, {8192, 1024}));
  if (!fused.ok() || !plain.ok() || !x.ok() || !y.ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  const int64_t n = x->shape().element_count();
  float* px = reinterpret_cast<float*>(x->untyped_data());
  float* py = reinterpret_cast<float*>(y->untyped_data());
  for (int64_t i = 0; i < n; ++i) {
    px[i] = static_cast<float>(i % 1001 - 500) / 100.0f;
    py[i] = static_cast<float>(i % 997 - 498) / 50.0f;
  }
  ExecuteOptions options;
  options.threads = threads;
  tbb::task_arena arena(threads);
  auto run = [&](const Executable& exe) {
    return bench::WallSeconds([&] { benchmark::DoNotOptimize(exe.Execute({&*x, &*y}, options)); });
  };
  run(**fused);
  run(**plain);
  ReadSeconds(arena, px, py, n);
  const std::vector<double> ms =
      TimeBesideMs(state, [&] { return run(**fused); },
                 {[&] { return run(**plain); }, [&] { return ReadSeconds(arena, px, py, n); }});
  state.counters["fused_ms"] = ms[0];
  state.counters["unfused_ms"] = ms[1];
  state.counters["read_ms"] = ms[2];
  state.counters["ratio"] = ms[2] / ms[0];
}

BENCHMARK(BM_Chain8VsTriad)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Chain8UnfusedVsTriad)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNormVsTriad)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNormUnfusedVsTriad)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeluVsTanh)->Args({1, 0})->Args({2, 0})->Args({1, 1})->Args({2, 1})->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposedInput)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ColumnSumVsRead)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
#endif  // HWY_ONCE
