// This machine's roofline for `hlovm bench --profile`: peak f32 FMA
// throughput and memory bandwidth, measured once per machine and thread
// count (about a quarter of a second) and kept in the user's cache directory
// ($XDG_CACHE_HOME/hlovm/roofline, else ~/.cache/hlovm/roofline).
#ifndef HLOVM_VM_ROOFLINE_H_
#define HLOVM_VM_ROOFLINE_H_

#include <string>

#include "vm/profiler.h"

namespace hlovm {

// Measures now, with `threads` threads (at least 1).
Roofline MeasureRoofline(int threads);

// The cached figures for this CPU and thread count, measured and cached on
// first use. `*source` says where they came from ("cached in PATH",
// "measured now, cached in PATH", or "measured now").
Roofline CachedRoofline(int threads, std::string* source);

namespace roofline_internal {
// GFLOP/s of one thread running independent f32 FMA chains for ~`ms`.
double FmaGflopsOneThread(double ms);
const char* FmaTarget();
}  // namespace roofline_internal

}  // namespace hlovm

#endif  // HLOVM_VM_ROOFLINE_H_
