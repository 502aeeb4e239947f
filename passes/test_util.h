// Helpers for the passes' tests: parse and verify HLO text, find
// instructions, count opcodes.
#ifndef HLOVM_PASSES_TEST_UTIL_H_
#define HLOVM_PASSES_TEST_UTIL_H_

#include <memory>
#include <string>

#include "core/hlo_ir.h"
#include "frontend/parser.h"
#include "frontend/verifier.h"
#include "gtest/gtest.h"

namespace hlovm::passes::test {

inline std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text, {});
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  return std::move(*module);
}

inline int Count(const HloComputation& c, HloOpcode op) {
  int n = 0;
  for (const auto& i : c.instructions()) n += i->opcode() == op;
  return n;
}

inline int CountInModule(const HloModule& m, HloOpcode op) {
  int n = 0;
  for (const auto& c : m.computations()) n += Count(*c, op);
  return n;
}

inline const HloInstruction* Find(const HloComputation& c, const std::string& name) {
  for (const auto& i : c.instructions()) {
    if (i->name() == name) return i.get();
  }
  return nullptr;
}

}  // namespace hlovm::passes::test

#endif  // HLOVM_PASSES_TEST_UTIL_H_
