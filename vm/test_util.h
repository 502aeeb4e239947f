// Helpers shared by the vm/ tests: compile HLO text and run it.
#ifndef HLOVM_VM_TEST_UTIL_H_
#define HLOVM_VM_TEST_UTIL_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/literal.h"
#include "core/status_macros.h"
#include "vm/api.h"

namespace hlovm {
namespace testing_util {

inline absl::StatusOr<Literal> RunHlo(std::string_view text, const std::vector<Literal>& args = {},
                                      int threads = 1,
                                      const std::atomic<bool>* cancel = nullptr,
                                      StepObserver* observer = nullptr,
                                      const CompileOptions& compile_options = {}) {
  HLOVM_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe,
                         Executable::FromText(text, compile_options));
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  ExecuteOptions options;
  options.threads = threads;
  options.cancel = cancel;
  options.observer = observer;
  return exe->Execute(ptrs, options);
}

// The elements of an array literal, in its storage order.
template <typename T>
std::vector<T> Values(const Literal& literal) {
  auto span = literal.data<T>();
  return std::vector<T>(span.begin(), span.end());
}

inline Literal Lit(std::string_view text) {
  auto lit = ParseLiteral(text);
  return lit.ok() ? std::move(*lit) : Literal();
}

}  // namespace testing_util
}  // namespace hlovm

#endif  // HLOVM_VM_TEST_UTIL_H_
