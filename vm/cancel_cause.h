// Why the instances of a run were cancelled, kept for the errors of those
// cancelled: "execution cancelled: replica 2 failed".
#ifndef HLOVM_VM_CANCEL_CAUSE_H_
#define HLOVM_VM_CANCEL_CAUSE_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace hlovm {

// The cause in words ("replica 2 failed", "replica 2 on rank 1 failed",
// "the process of rank 1 (pid 4242) ended before the run did ..."): the
// first one given is kept. Empty while none is known (an interrupt). Given
// before the cancel flag is raised, so that whoever sees the flag finds it.
class CancelCause {
 public:
  void Set(std::string cause) {
    absl::MutexLock lock(&mu_);
    if (cause_.empty()) cause_ = std::move(cause);
  }
  std::string Get() const {
    absl::MutexLock lock(&mu_);
    return cause_;
  }

 private:
  mutable absl::Mutex mu_;
  std::string cause_ ABSL_GUARDED_BY(mu_);
};

// The Cancelled error of `what` ("execution", "%r (all-reduce)"): "<what>
// cancelled", then ": <cause>" where `cause` knows one.
inline absl::Status CancelledBy(absl::string_view what, const CancelCause* cause) {
  std::string why = cause != nullptr ? cause->Get() : std::string();
  return absl::CancelledError(why.empty() ? absl::StrCat(what, " cancelled")
                                          : absl::StrCat(what, " cancelled: ", why));
}

}  // namespace hlovm

#endif  // HLOVM_VM_CANCEL_CAUSE_H_
