#include "ops/fft/fft.h"

#include <fftw3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace hlovm {
namespace {

// Above this many bytes (input + output) a batch is split into chunks of
// about kFftChunkBytes each.
constexpr int64_t kFftParallelBytes = 256 * 1024;
constexpr int64_t kFftChunkBytes = 256 * 1024;
// Chunks hold a multiple of this many transforms, so that every chunk starts
// 16-byte aligned when the array does (the alignment the plans were made for).
constexpr int64_t kChunkQuantum = 4;

// One geometry dimension of a guru plan: length, input and output strides
// (in elements of the input and output types).
struct Dim {
  int64_t n, is, os;
};

enum class Kind : uint8_t { kC2C, kR2C, kC2R };

// Everything that determines a plan; also the cache key.
struct PlanKey {
  bool single;
  Kind kind;
  int sign;
  bool in_place;
  unsigned flags;
  std::vector<Dim> dims, howmany;

  std::string Text() const {
    std::string s = absl::StrCat(single ? "f" : "d", static_cast<int>(kind), "/", sign, "/",
                                 in_place ? "i" : "o", "/", flags, "/");
    for (const Dim& d : dims) absl::StrAppend(&s, d.n, ",", d.is, ",", d.os, ";");
    absl::StrAppend(&s, "/");
    for (const Dim& d : howmany) absl::StrAppend(&s, d.n, ",", d.is, ",", d.os, ";");
    return s;
  }
};

// FFTW's two precisions behind one interface.
template <bool kSingle>
struct Fftw;

template <>
struct Fftw<true> {
  using Real = float;
  using Complex = fftwf_complex;
  using Plan = fftwf_plan;
  using IoDim = fftwf_iodim64;
  static void* Malloc(size_t n) { return fftwf_malloc(n); }
  static void Free(void* p) { fftwf_free(p); }
  static Plan C2C(int r, const IoDim* d, int hr, const IoDim* h, void* in, void* out, int sign,
                  unsigned flags) {
    return fftwf_plan_guru64_dft(r, d, hr, h, static_cast<Complex*>(in), static_cast<Complex*>(out),
                                 sign, flags);
  }
  static Plan R2C(int r, const IoDim* d, int hr, const IoDim* h, void* in, void* out,
                  unsigned flags) {
    return fftwf_plan_guru64_dft_r2c(r, d, hr, h, static_cast<Real*>(in),
                                     static_cast<Complex*>(out), flags);
  }
  static Plan C2R(int r, const IoDim* d, int hr, const IoDim* h, void* in, void* out,
                  unsigned flags) {
    return fftwf_plan_guru64_dft_c2r(r, d, hr, h, static_cast<Complex*>(in),
                                     static_cast<Real*>(out), flags);
  }
  static void ExecC2C(void* p, const void* in, void* out) {
    fftwf_execute_dft(static_cast<Plan>(p), const_cast<Complex*>(static_cast<const Complex*>(in)),
                      static_cast<Complex*>(out));
  }
  static void ExecR2C(void* p, const void* in, void* out) {
    fftwf_execute_dft_r2c(static_cast<Plan>(p), const_cast<Real*>(static_cast<const Real*>(in)),
                          static_cast<Complex*>(out));
  }
  static void ExecC2R(void* p, void* in, void* out) {
    fftwf_execute_dft_c2r(static_cast<Plan>(p), static_cast<Complex*>(in),
                          static_cast<Real*>(out));
  }
  static void ImportWisdom(const char* path) { fftwf_import_wisdom_from_filename(path); }
  static bool ExportWisdom(const char* path) { return fftwf_export_wisdom_to_filename(path) != 0; }
};

template <>
struct Fftw<false> {
  using Real = double;
  using Complex = fftw_complex;
  using Plan = fftw_plan;
  using IoDim = fftw_iodim64;
  static void* Malloc(size_t n) { return fftw_malloc(n); }
  static void Free(void* p) { fftw_free(p); }
  static Plan C2C(int r, const IoDim* d, int hr, const IoDim* h, void* in, void* out, int sign,
                  unsigned flags) {
    return fftw_plan_guru64_dft(r, d, hr, h, static_cast<Complex*>(in), static_cast<Complex*>(out),
                                sign, flags);
  }
  static Plan R2C(int r, const IoDim* d, int hr, const IoDim* h, void* in, void* out,
                  unsigned flags) {
    return fftw_plan_guru64_dft_r2c(r, d, hr, h, static_cast<Real*>(in),
                                    static_cast<Complex*>(out), flags);
  }
  static Plan C2R(int r, const IoDim* d, int hr, const IoDim* h, void* in, void* out,
                  unsigned flags) {
    return fftw_plan_guru64_dft_c2r(r, d, hr, h, static_cast<Complex*>(in),
                                    static_cast<Real*>(out), flags);
  }
  static void ExecC2C(void* p, const void* in, void* out) {
    fftw_execute_dft(static_cast<Plan>(p), const_cast<Complex*>(static_cast<const Complex*>(in)),
                     static_cast<Complex*>(out));
  }
  static void ExecR2C(void* p, const void* in, void* out) {
    fftw_execute_dft_r2c(static_cast<Plan>(p), const_cast<Real*>(static_cast<const Real*>(in)),
                         static_cast<Complex*>(out));
  }
  static void ExecC2R(void* p, void* in, void* out) {
    fftw_execute_dft_c2r(static_cast<Plan>(p), static_cast<Complex*>(in), static_cast<Real*>(out));
  }
  static void ImportWisdom(const char* path) { fftw_import_wisdom_from_filename(path); }
  static bool ExportWisdom(const char* path) { return fftw_export_wisdom_to_filename(path) != 0; }
};

// The process-wide plan cache. FFTW's planner is not thread safe, so every
// planner call (and wisdom import/export) happens under this mutex; executing
// a plan with the new-array functions is thread safe and needs no lock.
struct PlanCache {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, void*> plans ABSL_GUARDED_BY(mu);
  bool wisdom_loaded[2] ABSL_GUARDED_BY(mu) = {false, false};
};

PlanCache& Cache() {
  static PlanCache* cache = new PlanCache;  // never destroyed: plans live as long as the process
  return *cache;
}

template <bool kSingle>
void SaveWisdom() {
  const std::string path = FftWisdomPath(kSingle);
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return;
  // Written beside the file and renamed, so a reader never sees half a file.
  const std::string tmp = absl::StrCat(path, ".tmp.", static_cast<long>(::getpid()));
  if (!Fftw<kSingle>::ExportWisdom(tmp.c_str())) return;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

template <bool kSingle>
absl::StatusOr<void*> GetPlan(const PlanKey& key, int64_t in_bytes, int64_t out_bytes) {
  using W = Fftw<kSingle>;
  PlanCache& cache = Cache();
  const std::string text = key.Text();
  absl::MutexLock lock(&cache.mu);
  if (auto it = cache.plans.find(text); it != cache.plans.end()) return it->second;
  const bool measure = (key.flags & FFTW_ESTIMATE) == 0;
  if (measure && !cache.wisdom_loaded[kSingle]) {
    cache.wisdom_loaded[kSingle] = true;
    const std::string path = FftWisdomPath(kSingle);
    std::error_code ec;
    if (!path.empty() && std::filesystem::exists(path, ec)) W::ImportWisdom(path.c_str());
  }
  std::vector<typename W::IoDim> dims, howmany;
  for (const Dim& d : key.dims) dims.push_back({d.n, d.is, d.os});
  for (const Dim& d : key.howmany) howmany.push_back({d.n, d.is, d.os});
  // Planning arrays: FFTW_MEASURE overwrites them; FFTW_ESTIMATE only looks
  // at their alignment (untouched pages cost nothing).
  void* in = W::Malloc(static_cast<size_t>(std::max<int64_t>(in_bytes, 16)));
  void* out = key.in_place ? in : W::Malloc(static_cast<size_t>(std::max<int64_t>(out_bytes, 16)));
  if (in == nullptr || out == nullptr) {
    if (in != nullptr) W::Free(in);
    if (out != nullptr && out != in) W::Free(out);
    return absl::ResourceExhaustedError(
        absl::StrCat("fft: cannot allocate ", in_bytes + out_bytes, " bytes to plan a transform"));
  }
  const int r = static_cast<int>(dims.size()), hr = static_cast<int>(howmany.size());
  typename W::Plan plan = nullptr;
  switch (key.kind) {
    case Kind::kC2C:
      plan = W::C2C(r, dims.data(), hr, howmany.data(), in, out, key.sign, key.flags);
      break;
    case Kind::kR2C:
      plan = W::R2C(r, dims.data(), hr, howmany.data(), in, out, key.flags);
      break;
    case Kind::kC2R:
      plan = W::C2R(r, dims.data(), hr, howmany.data(), in, out, key.flags);
      break;
  }
  W::Free(in);
  if (out != in) W::Free(out);
  if (plan == nullptr) {
    return absl::InternalError(absl::StrCat("fft: FFTW could not plan the transform ", text));
  }
  cache.plans.emplace(text, plan);
  if (measure) SaveWisdom<kSingle>();
  return static_cast<void*>(plan);
}

int64_t Product(const std::array<int64_t, 3>& a, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; ++i) p *= a[i];
  return p;
}

}  // namespace

absl::StatusOr<FftPlanMode> ParseFftPlanMode(const std::string& text) {
  if (text == "estimate") return FftPlanMode::kEstimate;
  if (text == "measure") return FftPlanMode::kMeasure;
  return absl::InvalidArgumentError(
      absl::StrCat("--fft-plan must be 'estimate' or 'measure', not '", text, "'"));
}

std::string FftWisdomPath(bool single) {
  std::filesystem::path dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    dir = std::filesystem::path(xdg) / "hlovm";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    dir = std::filesystem::path(home) / ".cache" / "hlovm";
  } else {
    return "";
  }
  return (dir / (single ? "fftwf_wisdom" : "fftw_wisdom")).string();
}

FftKernel::~FftKernel() = default;  // plans stay in the process-wide cache

int64_t FftKernel::transform_bytes() const {
  const int64_t complex_bytes = spec_.single ? 8 : 16;
  const int64_t real_bytes = complex_bytes / 2;
  switch (spec_.type) {
    case FftType::kFft:
    case FftType::kIfft: return (in_elems_ + out_elems_) * complex_bytes;
    case FftType::kRfft: return in_elems_ * real_bytes + out_elems_ * complex_bytes;
    case FftType::kIrfft: return in_elems_ * complex_bytes + out_elems_ * real_bytes;
  }
  return 0;
}

std::string FftKernel::Describe() const {
  static constexpr const char* kNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  return absl::StrCat(kNames[static_cast<int>(spec_.type)], spec_.single ? " f32" : " f64", " [",
                      absl::StrJoin(absl::MakeConstSpan(spec_.length.data(), spec_.rank), "x"),
                      "] batch=", spec_.batch, " chunk=", chunk_,
                      spec_.plan_mode == FftPlanMode::kMeasure ? " measure" : " estimate");
}

absl::StatusOr<std::unique_ptr<FftKernel>> FftKernel::Create(const FftKernelSpec& spec) {
  if (spec.rank < 1 || spec.rank > 3) {
    return absl::InvalidArgumentError(absl::StrCat("fft: rank must be 1-3, not ", spec.rank));
  }
  if (spec.batch < 0) return absl::InvalidArgumentError("fft: negative batch");
  std::unique_ptr<FftKernel> k(new FftKernel(spec));
  for (int i = 0; i < spec.rank; ++i) {
    if (spec.length[i] < 0) return absl::InvalidArgumentError("fft: negative fft_length");
    k->n_total_ *= spec.length[i];
  }
  const int64_t last = spec.length[spec.rank - 1];
  const int64_t half = last == 0 ? 0 : last / 2 + 1;
  const int64_t lead = Product(spec.length, 0, spec.rank - 1);
  switch (spec.type) {
    case FftType::kFft:
    case FftType::kIfft: k->in_elems_ = k->out_elems_ = k->n_total_; break;
    case FftType::kRfft: k->in_elems_ = k->n_total_; k->out_elems_ = lead * half; break;
    case FftType::kIrfft: k->in_elems_ = lead * half; k->out_elems_ = k->n_total_; break;
  }
  if (spec.type == FftType::kIfft || spec.type == FftType::kIrfft) {
    k->scale_ = k->n_total_ == 0 ? 1.0 : 1.0 / static_cast<double>(k->n_total_);
  }
  if (spec.batch == 0 || k->n_total_ == 0) return k;  // nothing to compute
  const int64_t t = k->transform_bytes();
  if (spec.batch == 1 || spec.batch * t < kFftParallelBytes) {
    k->chunk_ = spec.batch;
  } else {
    int64_t c = std::max<int64_t>(1, kFftChunkBytes / t);
    c = (c + kChunkQuantum - 1) / kChunkQuantum * kChunkQuantum;
    k->chunk_ = std::min(c, spec.batch);
  }
  absl::Status st = k->MakePlans();
  if (!st.ok()) return st;
  return k;
}

absl::Status FftKernel::MakePlans() {
  const int r = spec_.rank;
  const auto& L = spec_.length;
  const int64_t last = L[r - 1];
  const int64_t half = last / 2 + 1;
  const unsigned flags =
      spec_.plan_mode == FftPlanMode::kMeasure ? FFTW_MEASURE : FFTW_ESTIMATE;
  const int64_t cb = spec_.single ? 8 : 16, rb = cb / 2;
  auto make = [&](const PlanKey& key, int64_t in_bytes, int64_t out_bytes) -> absl::StatusOr<void*> {
    return spec_.single ? GetPlan<true>(key, in_bytes, out_bytes)
                        : GetPlan<false>(key, in_bytes, out_bytes);
  };
  auto plans_for = [&](int64_t count, void** p) -> absl::Status {
    if (count == 0) return absl::OkStatus();
    PlanKey key{spec_.single, Kind::kC2C, FFTW_FORWARD, false, flags, {}, {}};
    switch (spec_.type) {
      case FftType::kFft:
      case FftType::kIfft: {
        key.sign = spec_.type == FftType::kFft ? FFTW_FORWARD : FFTW_BACKWARD;
        for (int i = 0; i < r; ++i) {
          const int64_t s = Product(L, i + 1, r);
          key.dims.push_back({L[i], s, s});
        }
        key.howmany.push_back({count, n_total_, n_total_});
        auto plan = make(key, count * in_elems_ * cb, count * out_elems_ * cb);
        if (!plan.ok()) return plan.status();
        p[0] = *plan;
        return absl::OkStatus();
      }
      case FftType::kRfft: {
        key.kind = Kind::kR2C;
        for (int i = 0; i < r; ++i) {
          const int64_t os = i == r - 1 ? 1 : Product(L, i + 1, r - 1) * half;
          key.dims.push_back({L[i], Product(L, i + 1, r), os});
        }
        key.howmany.push_back({count, in_elems_, out_elems_});
        auto plan = make(key, count * in_elems_ * rb, count * out_elems_ * cb);
        if (!plan.ok()) return plan.status();
        p[0] = *plan;
        return absl::OkStatus();
      }
      case FftType::kIrfft: {
        if (r > 1) {  // inverse c2c over the leading dimensions, in place
          PlanKey lead{spec_.single, Kind::kC2C, FFTW_BACKWARD, true, flags, {}, {}};
          for (int i = 0; i < r - 1; ++i) {
            const int64_t s = Product(L, i + 1, r - 1) * half;
            lead.dims.push_back({L[i], s, s});
          }
          lead.howmany.push_back({count, in_elems_, in_elems_});
          lead.howmany.push_back({half, 1, 1});
          auto plan = make(lead, count * in_elems_ * cb, count * in_elems_ * cb);
          if (!plan.ok()) return plan.status();
          p[0] = *plan;
        }
        PlanKey c2r{spec_.single, Kind::kC2R, FFTW_BACKWARD, false, flags, {}, {}};
        c2r.dims.push_back({last, 1, 1});
        c2r.howmany.push_back({count * (n_total_ / last), half, last});
        auto plan = make(c2r, count * in_elems_ * cb, count * out_elems_ * rb);
        if (!plan.ok()) return plan.status();
        p[1] = *plan;
        return absl::OkStatus();
      }
    }
    return absl::InvalidArgumentError("fft: unknown type");
  };
  absl::Status st = plans_for(chunk_, chunk_plan_);
  if (!st.ok()) return st;
  return plans_for(spec_.batch % chunk_, tail_plan_);
}

namespace {

template <typename Real>
void Scale(void* data, int64_t n, double scale) {
  Real* p = static_cast<Real*>(data);
  const Real s = static_cast<Real>(scale);
  for (int64_t i = 0; i < n; ++i) p[i] *= s;
}

template <bool kSingle>
bool RunTyped(FftType type, void* const* plans, const void* in, void* out, int64_t count,
              int64_t in_elems, int64_t out_elems, double scale) {
  using W = Fftw<kSingle>;
  using Real = typename W::Real;
  switch (type) {
    case FftType::kFft:
      W::ExecC2C(plans[0], in, out);
      return true;
    case FftType::kIfft:
      W::ExecC2C(plans[0], in, out);
      Scale<Real>(out, 2 * count * out_elems, scale);
      return true;
    case FftType::kRfft:
      W::ExecR2C(plans[0], in, out);
      return true;
    case FftType::kIrfft: {
      // c2r destroys its input: work on an aligned copy.
      const size_t bytes = static_cast<size_t>(count * in_elems) * sizeof(typename W::Complex);
      void* scratch = W::Malloc(bytes);
      if (scratch == nullptr) return false;
      std::memcpy(scratch, in, bytes);
      if (plans[0] != nullptr) W::ExecC2C(plans[0], scratch, scratch);
      W::ExecC2R(plans[1], scratch, out);
      W::Free(scratch);
      Scale<Real>(out, count * out_elems, scale);
      return true;
    }
  }
  return false;
}

bool Aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

}  // namespace

bool FftKernel::RunAligned(const void* in, void* out, int64_t count) const {
  void* const* plans = count == chunk_ ? chunk_plan_ : tail_plan_;
  return spec_.single
             ? RunTyped<true>(spec_.type, plans, in, out, count, in_elems_, out_elems_, scale_)
             : RunTyped<false>(spec_.type, plans, in, out, count, in_elems_, out_elems_, scale_);
}

bool FftKernel::RunChunks(const void* in, void* out, int64_t first, int64_t last) const {
  if (chunk_ == 0) return true;
  const int64_t cb = spec_.single ? 8 : 16, rb = cb / 2;
  const bool real_in = spec_.type == FftType::kRfft, real_out = spec_.type == FftType::kIrfft;
  const int64_t in_t = in_elems_ * (real_in ? rb : cb), out_t = out_elems_ * (real_out ? rb : cb);
  for (int64_t c = first; c < last; ++c) {
    const int64_t begin = c * chunk_;
    const int64_t count = std::min(chunk_, spec_.batch - begin);
    const uint8_t* src = static_cast<const uint8_t*>(in) + begin * in_t;
    uint8_t* dst = static_cast<uint8_t*>(out) + begin * out_t;
    if (Aligned16(src) && Aligned16(dst)) {
      if (!RunAligned(src, dst, count)) return false;
      continue;
    }
    // Stage through aligned buffers so that the same plan runs.
    void* a = fftw_malloc(static_cast<size_t>(count * in_t));
    void* b = fftw_malloc(static_cast<size_t>(count * out_t));
    bool ok = a != nullptr && b != nullptr;
    if (ok) {
      std::memcpy(a, src, static_cast<size_t>(count * in_t));
      ok = RunAligned(a, b, count);
      if (ok) std::memcpy(dst, b, static_cast<size_t>(count * out_t));
    }
    if (a != nullptr) fftw_free(a);
    if (b != nullptr) fftw_free(b);
    if (!ok) return false;
  }
  return true;
}

}  // namespace hlovm
