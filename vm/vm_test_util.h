// Helpers shared by the VM's end-to-end tests: compile HLO text, run it with
// a given thread count, build array literals from vectors and read them back.
// Failures are reported through gtest's EXPECT macros.
#ifndef HLOVM_VM_VM_TEST_UTIL_H_
#define HLOVM_VM_VM_TEST_UTIL_H_

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "vm/api.h"

namespace hlovm {
namespace vm_test {

// Compiles `text`; nullptr (after a test failure) when it does not compile.
inline std::unique_ptr<Executable> Build(const std::string& text,
                                         const CompileOptions& options = {}) {
  auto exe = Executable::FromText(text, options);
  EXPECT_TRUE(exe.ok()) << exe.status();
  return exe.ok() ? std::move(*exe) : nullptr;
}

// Runs `exe` on `args` with `threads` threads.
inline Literal RunWith(const Executable& exe, std::vector<const Literal*> args, int threads) {
  ExecuteOptions options;
  options.threads = threads;
  auto result = exe.Execute(args, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? std::move(*result) : Literal();
}

// Runs every instance of `exe` (ExecuteReplicated) on `args`, each on
// `threads` threads, collectives waiting `timeout` seconds at most, over
// the message bus (the transport of MPI runs) where `message_bus`, else the
// in-memory bus.
inline std::vector<absl::StatusOr<Literal>> RunAll(
    const Executable& exe, std::vector<std::vector<const Literal*>> args = {{}},
    double timeout = 10, int threads = 1, bool message_bus = false) {
  ReplicatedOptions options;
  options.threads = threads;
  options.collective_timeout_seconds = timeout;
  options.message_bus = message_bus;
  return ExecuteReplicated(exe, args, options);
}

// A row-major array literal of `type` holding `values` (their bytes).
template <typename T>
Literal Array(ElementType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  auto lit = Literal::Create(Shape(type, std::move(dims)));
  EXPECT_TRUE(lit.ok());
  std::memcpy(lit->untyped_data(), values.data(), values.size() * sizeof(T));
  return std::move(*lit);
}

// The elements of an array literal.
template <typename T>
std::vector<T> Values(const Literal& lit) {
  auto span = lit.data<T>();
  return std::vector<T>(span.begin(), span.end());
}

// A two-replica module whose replica 1 takes the other branch of a
// conditional and never joins the all-reduce (for the fault tests of the
// in-memory and message buses).
inline constexpr char kSkippedAllReduce[] = R"(
HloModule skip, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
reduce_it {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), replica_groups={{0,1}}, to_apply=add
}
keep {
  ROOT p = f32[4] parameter(0)
}
ENTRY e {
  id = u32[] replica-id()
  zero = u32[] constant(0)
  is0 = pred[] compare(id, zero), direction=EQ
  x = f32[4] constant({1, 2, 3, 4})
  ROOT c = f32[4] conditional(is0, x, x), true_computation=reduce_it, false_computation=keep
})";

// A two-replica module whose replicas all-reduce arrays of different shapes
// (f32[4] and f32[2], in the two branches of a conditional).
inline constexpr char kMismatchedAllReduce[] = R"(
HloModule mismatch, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
four {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), replica_groups={{0,1}}, to_apply=add
}
two {
  p = f32[4] parameter(0)
  s = f32[2] slice(p), slice={[0:2]}
  r = f32[2] all-reduce(s), replica_groups={{0,1}}, to_apply=add
  ROOT o = f32[4] pad(r, f32[] constant(0)), padding=0_2
}
ENTRY e {
  id = u32[] replica-id()
  zero = u32[] constant(0)
  is0 = pred[] compare(id, zero), direction=EQ
  x = f32[4] constant({1, 2, 3, 4})
  ROOT c = f32[4] conditional(is0, x, x), true_computation=four, false_computation=two
})";

}  // namespace vm_test
}  // namespace hlovm

#endif  // HLOVM_VM_VM_TEST_UTIL_H_
