// Helpers for the passes' tests: parse and verify HLO text, compare runs
// with and without passes, find instructions, count opcodes.
#ifndef HLOVM_PASSES_TEST_UTIL_H_
#define HLOVM_PASSES_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "core/hlo_ir.h"
#include "frontend/parser.h"
#include "frontend/printer.h"
#include "frontend/verifier.h"
#include "gtest/gtest.h"
#include "vm/api.h"

namespace hlovm::passes::test {

inline std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text, {});
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << verified;
  return std::move(*module);
}

// An f32 array of `shape` holding (i % 97) * step - 11 at element i: values
// of both signs whose products do not sum exactly, so that a change of
// summation order would show.
inline Literal Iota(const Shape& shape, float step) {
  auto lit = Literal::Create(shape);
  EXPECT_TRUE(lit.ok()) << lit.status();
  if (!lit.ok()) return Literal();
  float* p = reinterpret_cast<float*>(lit->untyped_data());
  for (int64_t i = 0; i < shape.element_count(); ++i) {
    p[i] = static_cast<float>(i % 97) * step - 11.0f;
  }
  return std::move(*lit);
}

// Compiles `text` with the passes `spec` and with none, runs both on
// `args` and expects the same bits, and an optimized module whose text
// parses and verifies again. Returns the executable with passes, or null
// where something failed.
inline std::unique_ptr<Executable> ExpectSameBits(const std::string& text,
                                                  const std::vector<const Literal*>& args,
                                                  const std::string& spec = "default") {
  CompileOptions on, off;
  on.passes = spec;
  off.passes = "none";
  auto a = Executable::FromText(text, on);
  auto b = Executable::FromText(text, off);
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(b.ok()) << b.status();
  if (!a.ok() || !b.ok()) return nullptr;
  auto ra = (*a)->Execute(args);
  auto rb = (*b)->Execute(args);
  EXPECT_TRUE(ra.ok()) << ra.status();
  EXPECT_TRUE(rb.ok()) << rb.status();
  if (!ra.ok() || !rb.ok()) return nullptr;
  EXPECT_TRUE(ra->BitwiseEqual(*rb)) << ra->ToString() << " vs " << rb->ToString();
  const std::string printed = PrintModule((*a)->module());
  auto again = ParseHloModule(printed, {});
  EXPECT_TRUE(again.ok()) << again.status() << "\n" << printed;
  if (!again.ok()) return nullptr;
  EXPECT_TRUE(VerifyModule(**again).ok()) << printed;
  return std::move(*a);
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
