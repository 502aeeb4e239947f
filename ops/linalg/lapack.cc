#include "ops/linalg/lapack.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "ops/linalg/lapack_internal.h"
#include "vm/custom_call.h"

namespace hlovm {
namespace {

using lapack_internal::TargetEntry;

const std::vector<TargetEntry>& Targets() {
  static const std::vector<TargetEntry>* targets = [] {
    auto* t = new std::vector<TargetEntry>();
    lapack_internal::AddFactorizationTargets(*t);
    lapack_internal::AddSpectralTargets(*t);
    return t;
  }();
  return *targets;
}

}  // namespace

void RegisterLapackTargets() {
  for (const TargetEntry& t : Targets()) RegisterCustomCallTarget(t.name, t.factory);
}

bool RunBlasOnCallingThread() {
  if (std::getenv("OPENBLAS_NUM_THREADS") != nullptr) return false;
  // Looked up, not linked: present only where OpenBLAS is loaded.
  using SetThreads = void (*)(int);
  using Shutdown = int (*)();
  auto set_threads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  auto shutdown = reinterpret_cast<Shutdown>(dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"));
  if (set_threads == nullptr || shutdown == nullptr) return false;
  set_threads(1);
  shutdown();
  return true;
}

std::vector<std::string> LapackTargetNames() {
  std::vector<std::string> names;
  for (const TargetEntry& t : Targets()) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace hlovm
