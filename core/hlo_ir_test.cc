#include "core/hlo_ir.h"

#include <algorithm>
#include <memory>
#include <random>
#include <thread>
#include <vector>

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
  add->raw_attributes().Append("metadata", "{op_name=\"x\"}");
  add->raw_attributes().Append("sharding", "{replicated}");
  HloInstruction* sum = c.AddInstruction(std::move(add));
  EXPECT_EQ(sum->operand_count(), 2);
  EXPECT_EQ(sum->operand(1), a);
  EXPECT_EQ(sum->FindRawAttribute("sharding"), "{replicated}");
  EXPECT_FALSE(sum->FindRawAttribute("backend_config").has_value());
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
TEST(HloIrTest, InstructionsMadeAfterOthersAreFreedLieInOrder) {
  auto make = [] {
    return std::make_unique<HloInstruction>(HloOpcode::kConstant, "c",
                                            Shape(ElementType::kF32, {}));
  };
  // Many instructions, freed in a random order, some on another thread.
  std::vector<std::unique_ptr<HloInstruction>> first;
  for (int k = 0; k < 5000; ++k) first.push_back(make());
  std::shuffle(first.begin(), first.end(), std::mt19937(7));
  std::vector<std::unique_ptr<HloInstruction>> half;
  for (size_t k = 2500; k < first.size(); ++k) half.push_back(std::move(first[k]));
  first.resize(2500);
  std::thread other([&] { half.clear(); });
  first.clear();
  other.join();
  // The next ones are carved in address order within each slab: a walk
  // over them in creation order moves forward through memory.
  std::vector<std::unique_ptr<HloInstruction>> next;
  for (int k = 0; k < 5000; ++k) next.push_back(make());
  int64_t backwards = 0;
  for (size_t k = 1; k < next.size(); ++k) backwards += next[k].get() < next[k - 1].get();
  EXPECT_LT(backwards, 50);  // a step back only from one slab to the next
  // Distinct, usable blocks.
  for (size_t k = 0; k < next.size(); ++k) next[k]->scratch = static_cast<uint32_t>(k);
  for (size_t k = 0; k < next.size(); ++k) EXPECT_EQ(next[k]->scratch, k);
}

TEST(HloIrTest, AnInstructionsAttributesLieJustAfterIt) {
  std::vector<std::unique_ptr<HloInstruction>> list;
  for (int k = 0; k < 100; ++k) {
    list.push_back(std::make_unique<HloInstruction>(HloOpcode::kBroadcast, "b",
                                                    Shape(ElementType::kF32, {4})));
    list.back()->raw_attributes().Append("dimensions", "{}");
  }
  int64_t adjacent = 0;
  for (const auto& instr : list) {
    const char* at = reinterpret_cast<const char*>(instr.get()) + sizeof(HloInstruction);
    const char* text = (*instr->raw_attributes().begin()).first.data();
    adjacent += text > at && text < at + 64;
  }
  EXPECT_GT(adjacent, 95);  // all but where a slab ran out
}

}  // namespace hlovm
