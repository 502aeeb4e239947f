#include "vm/roofline.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hlovm {
namespace {

// Runs fn(t) on `threads` threads at once (t = 0 on the calling thread).
template <typename Fn>
void OnThreads(int threads, Fn&& fn) {
  std::vector<std::thread> others;
  for (int t = 1; t < threads; ++t) others.emplace_back([&fn, t] { fn(t); });
  fn(0);
  for (std::thread& th : others) th.join();
}

double PeakGflops(int threads) {
  std::vector<double> per_thread(threads, 0);
  OnThreads(threads, [&](int t) { per_thread[t] = roofline_internal::FmaGflopsOneThread(60); });
  double total = 0;
  for (double g : per_thread) total += g;
  return total;
}

// STREAM triad a = b + s*c over arrays far larger than the caches, split in
// equal parts across the threads; bytes counted as read plus written. Best of
// several passes.
double PeakGbps(int threads) {
  const int64_t n = int64_t{16} << 20;  // 64 MiB per array
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  OnThreads(threads, [&](int t) {
    const int64_t begin = n * t / threads, end = n * (t + 1) / threads;
    for (int64_t i = begin; i < end; ++i) {
      a[i] = 0.0f;
      b[i] = 1.0f;
      c[i] = 2.0f;
    }
  });
  double best = 0;
  for (int pass = 0; pass < 4; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
    OnThreads(threads, [&](int t) {
      const int64_t begin = n * t / threads, end = n * (t + 1) / threads;
      float* __restrict pa = a.get();
      const float* __restrict pb = b.get();
      const float* __restrict pc = c.get();
      for (int64_t i = begin; i < end; ++i) pa[i] = pb[i] + 3.0f * pc[i];
    });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0) best = std::max(best, 3.0 * 4.0 * static_cast<double>(n) / s * 1e-9);
  }
  volatile float sink = a[n / 2];
  (void)sink;
  return best;
}

std::string CpuName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "model name")) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
      }
    }
  }
  return "unknown cpu";
}

std::filesystem::path CacheFile() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::filesystem::path(xdg) / "hlovm" / "roofline";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    return std::filesystem::path(home) / ".cache" / "hlovm" / "roofline";
  }
  return {};
}

}  // namespace

Roofline MeasureRoofline(int threads) {
  threads = std::max(threads, 1);
  Roofline r;
  r.peak_gflops = PeakGflops(threads);
  r.peak_gbps = PeakGbps(threads);
  return r;
}

// The cache file holds one line per (cpu, threads):
//   <threads>\t<gflops>\t<gbps>\t<cpu name>
Roofline CachedRoofline(int threads, std::string* source) {
  threads = std::max(threads, 1);
  const std::string cpu = CpuName();
  const std::filesystem::path path = CacheFile();
  std::vector<std::string> kept;
  if (!path.empty()) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> f = absl::StrSplit(line, '\t');
      if (f.size() != 4) continue;
      if (f[0] == std::to_string(threads) && f[3] == cpu) {
        Roofline r;
        r.peak_gflops = std::strtod(f[1].c_str(), nullptr);
        r.peak_gbps = std::strtod(f[2].c_str(), nullptr);
        if (r.peak_gflops > 0 && r.peak_gbps > 0) {
          if (source != nullptr) *source = absl::StrCat("cached in ", path.string());
          return r;
        }
      }
      kept.push_back(line);
    }
  }
  const Roofline r = MeasureRoofline(threads);
  bool saved = false;
  if (!path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::trunc);
    if (out) {
      for (const std::string& line : kept) out << line << "\n";
      out << threads << "\t" << r.peak_gflops << "\t" << r.peak_gbps << "\t" << cpu << "\n";
      saved = static_cast<bool>(out);
    }
  }
  if (source != nullptr) {
    *source = saved ? absl::StrCat("measured now, cached in ", path.string()) : "measured now";
  }
  return r;
}

}  // namespace hlovm
