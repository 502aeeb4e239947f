#include "core/hlo_opcode.h"

#include "gtest/gtest.h"

namespace hlovm {
namespace {

TEST(HloOpcodeTest, NamesRoundTrip) {
  for (int i = 0; i < HloOpcodeCount(); ++i) {
    HloOpcode opcode = static_cast<HloOpcode>(i);
    std::optional<HloOpcode> back = HloOpcodeFromName(HloOpcodeName(opcode));
    ASSERT_TRUE(back.has_value()) << HloOpcodeName(opcode);
    EXPECT_EQ(*back, opcode);
  }
}

TEST(HloOpcodeTest, KnownEntries) {
  EXPECT_EQ(HloOpcodeName(HloOpcode::kGetTupleElement), "get-tuple-element");
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kAdd), 2);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kTuple), kVariadic);
  EXPECT_EQ(HloOpcodeFamily(HloOpcode::kExp), OpFamily::kUnary);
  EXPECT_TRUE(HloOpcodeHasSideEffect(HloOpcode::kAllReduce));
  EXPECT_FALSE(HloOpcodeHasSideEffect(HloOpcode::kAdd));
  EXPECT_FALSE(HloOpcodeFromName("no-such-op").has_value());
  EXPECT_EQ(HloOpcodeFromName("opt-barrier"), HloOpcode::kOptimizationBarrier);
}

}  // namespace
}  // namespace hlovm
