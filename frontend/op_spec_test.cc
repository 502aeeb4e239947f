#include "frontend/op_spec.h"

#include <set>
#include <string>
#include <utility>

#include "core/hlo_opcode.h"
#include "frontend/attribute_table.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

std::string RowName(const OpSpec& row) {
  return std::string(HloOpcodeName(row.opcode)) + " form " +
         std::to_string(static_cast<int>(row.form));
}

TEST(OpSpec, OneRowPerOpcodeAndForm) {
  std::set<std::pair<HloOpcode, OpForm>> seen;
  for (const OpSpec& row : OpSpecRows()) {
    SCOPED_TRACE(RowName(row));
    EXPECT_TRUE(seen.insert({row.opcode, row.form}).second);
  }
  // A row for a special form has a default row beside it.
  for (const OpSpec& row : OpSpecRows()) {
    SCOPED_TRACE(RowName(row));
    if (row.form != OpForm::kDefault) {
      EXPECT_TRUE(seen.contains({row.opcode, OpForm::kDefault}));
    }
  }
}

TEST(OpSpec, CellsHoldTheRightKindOfAttribute) {
  for (const OpSpec& row : OpSpecRows()) {
    SCOPED_TRACE(RowName(row));
    for (AttrId a : row.computations) EXPECT_TRUE(IsComputationAttribute(a)) << AttributeName(a);
    for (AttrId a : row.allowed) {
      EXPECT_TRUE(IsRestrictedAttribute(a)) << AttributeName(a);
      EXPECT_FALSE(IsComputationAttribute(a)) << AttributeName(a);
    }
    for (AttrId a : row.required) {
      EXPECT_NE(a, AttrId::kUnknown);
      // A required attribute is one the opcode may carry.
      EXPECT_TRUE(row.Allows(a)) << AttributeName(a);
    }
    if (row.one_dimension) {
      EXPECT_TRUE(row.required.contains(AttrId::kDimensions));
    }
  }
}

TEST(OpSpec, LookUpFallsBackToTheDefaultRowThenToAnEmptyOne) {
  const OpSpec& pred = GetOpSpec(HloOpcode::kConditional, OpForm::kPredicate);
  EXPECT_TRUE(pred.required.contains(AttrId::kTrueComputation));
  const OpSpec& index = GetOpSpec(HloOpcode::kConditional);
  EXPECT_TRUE(index.required.contains(AttrId::kBranchComputations));
  EXPECT_FALSE(index.Allows(AttrId::kTrueComputation));
  // Sort has no special form: its default row answers.
  EXPECT_EQ(&GetOpSpec(HloOpcode::kSort, OpForm::kPredicate), &GetOpSpec(HloOpcode::kSort));
  // add takes no required or restricted attribute, but any other.
  const OpSpec& add = GetOpSpec(HloOpcode::kAdd);
  EXPECT_EQ(add.opcode, HloOpcode::kAdd);
  EXPECT_TRUE(add.required.empty());
  EXPECT_FALSE(add.Allows(AttrId::kToApply));
  EXPECT_FALSE(add.Allows(AttrId::kResultAccuracy));
  EXPECT_TRUE(add.Allows(AttrId::kMetadata));
  EXPECT_TRUE(GetOpSpec(HloOpcode::kExp).Allows(AttrId::kResultAccuracy));
}

TEST(AttributeTable, NamesAreUniqueAndLookUpRoundTrips) {
  std::set<std::string_view> names;
  for (int i = 0; i < AttributeCount(); ++i) {
    const AttrId id = AttributeAt(i);
    SCOPED_TRACE(AttributeName(id));
    EXPECT_FALSE(AttributeName(id).empty());
    EXPECT_FALSE(AttributeStorage(id).empty());
    EXPECT_TRUE(names.insert(AttributeName(id)).second);
    EXPECT_EQ(AttributeFromName(AttributeName(id)), id);
  }
  EXPECT_EQ(AttributeFromName("frobnicate"), AttrId::kUnknown);
  EXPECT_EQ(AttributeName(AttrId::kControlPredecessors), "control-predecessors");
  EXPECT_EQ(AttributeStorage(AttrId::kWindow), "attrs().window");
  EXPECT_EQ(AttributeKind(AttrId::kBranchComputations), AttrKind::kComputationList);
}

// Each written value name reads back as its enumerator.
template <typename Enum>
void ExpectValueNamesRoundTrip() {
  const auto& names = AttributeValueNames<Enum>::kNames;
  for (size_t i = 0; i < std::size(names); ++i) {
    const Enum value = static_cast<Enum>(i);
    Enum back{};
    if (AttributeValueName(value).empty()) {
      EXPECT_FALSE(AttributeValueFromName("", &back));
      continue;
    }
    ASSERT_TRUE(AttributeValueFromName(AttributeValueName(value), &back)) << names[i];
    EXPECT_EQ(back, value) << names[i];
  }
}

TEST(AttributeTable, ValueNamesRoundTrip) {
  ExpectValueNamesRoundTrip<ComparisonDirection>();
  ExpectValueNamesRoundTrip<ComparisonType>();
  ExpectValueNamesRoundTrip<RandomDistribution>();
  ExpectValueNamesRoundTrip<RngAlgorithm>();
  ExpectValueNamesRoundTrip<FftType>();
  ExpectValueNamesRoundTrip<TriangularSolveTranspose>();
  EXPECT_EQ(AttributeValueName(ComparisonDirection::kLt), "LT");
  EXPECT_EQ(AttributeValueName(ComparisonType::kDefault), "");
  ComparisonDirection d;
  EXPECT_FALSE(AttributeValueFromName("lt", &d));
}

}  // namespace
}  // namespace hlovm
