#include "ops/linalg/lapack.h"

#include <algorithm>
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

std::vector<std::string> LapackTargetNames() {
  std::vector<std::string> names;
  for (const TargetEntry& t : Targets()) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace hlovm
