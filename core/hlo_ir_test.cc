#include "core/hlo_ir.h"

#include <memory>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

std::unique_ptr<HloInstruction> MakeParameter(int64_t number, const char* name) {
  auto p = std::make_unique<HloInstruction>(HloOpcode::kParameter, name,
                                            Shape(ElementType::kF32, {2}));
  p->parameter_number = number;
  return p;
}

TEST(HloIrTest, ComputationIndexesParametersByNumber) {
  HloComputation c("c");
  HloInstruction* p1 = c.AddInstruction(MakeParameter(1, "b"));
  HloInstruction* p0 = c.AddInstruction(MakeParameter(0, "a"));
  ASSERT_EQ(c.parameter_count(), 2);
  EXPECT_EQ(c.parameter(0), p0);
  EXPECT_EQ(c.parameter(1), p1);
  EXPECT_EQ(p0->parent(), &c);
  EXPECT_EQ(c.instruction_count(), 2);
  EXPECT_EQ(c.instructions()[0].get(), p1);
}

TEST(HloIrTest, ParameterHoleStaysNull) {
  HloComputation c("c");
  c.AddInstruction(MakeParameter(2, "x"));
  ASSERT_EQ(c.parameter_count(), 3);
  EXPECT_EQ(c.parameter(0), nullptr);
  EXPECT_NE(c.parameter(2), nullptr);
}

TEST(HloIrTest, DuplicateParameterKeepsFirst) {
  HloComputation c("c");
  HloInstruction* first = c.AddInstruction(MakeParameter(0, "a"));
  c.AddInstruction(MakeParameter(0, "b"));
  EXPECT_EQ(c.parameter(0), first);
  EXPECT_EQ(c.instruction_count(), 2);
}

TEST(HloIrTest, OperandsAndRawAttributes) {
  HloComputation c("c");
  HloInstruction* a = c.AddInstruction(MakeParameter(0, "a"));
  auto add = std::make_unique<HloInstruction>(HloOpcode::kAdd, "sum", Shape(ElementType::kF32, {2}));
  add->AppendOperand(a);
  add->AppendOperand(a);
  add->raw_attributes().push_back({"metadata", "{op_name=\"x\"}"});
  add->raw_attributes().push_back({"sharding", "{replicated}"});
  HloInstruction* sum = c.AddInstruction(std::move(add));
  EXPECT_EQ(sum->operand_count(), 2);
  EXPECT_EQ(sum->operand(1), a);
  ASSERT_NE(sum->FindRawAttribute("sharding"), nullptr);
  EXPECT_EQ(*sum->FindRawAttribute("sharding"), "{replicated}");
  EXPECT_EQ(sum->FindRawAttribute("backend_config"), nullptr);
}

TEST(HloIrTest, ModuleFindsComputations) {
  HloModule m("m");
  HloComputation* body = m.AddComputation(std::make_unique<HloComputation>("body"));
  HloComputation* entry = m.AddComputation(std::make_unique<HloComputation>("main"));
  m.set_entry(entry);
  EXPECT_EQ(m.FindComputation("body"), body);
  EXPECT_EQ(m.FindComputation("main"), entry);
  EXPECT_EQ(m.FindComputation("nope"), nullptr);
  EXPECT_EQ(body->parent(), &m);
  EXPECT_EQ(m.entry(), entry);
}

}  // namespace
}  // namespace hlovm
