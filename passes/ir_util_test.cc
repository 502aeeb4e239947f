#include "passes/ir_util.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/verifier.h"
#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hlovm::passes {
namespace {

using test::Find;
using test::Parse;

TEST(PointerTableTest, FindsWhatWasInsertedAndNothingElse) {
  // Instructions allocated one after another: pointers that differ in their
  // low bits alone, the case a weak slot function would pile up.
  std::vector<std::unique_ptr<HloInstruction>> keys;
  for (int k = 0; k < 1000; ++k) {
    keys.push_back(std::make_unique<HloInstruction>(HloOpcode::kConstant, "c",
                                                    Shape(ElementType::kF32, {})));
  }
  PointerTable table(500);
  for (int k = 0; k < 1000; k += 2) table.Insert(keys[k].get(), keys[k + 1].get());
  for (int k = 0; k < 1000; ++k) {
    if (k % 2 == 0) {
      EXPECT_TRUE(table.Contains(keys[k].get()));
      EXPECT_EQ(table.Find(keys[k].get()), keys[k + 1].get());
    } else {
      EXPECT_FALSE(table.Contains(keys[k].get()));
      EXPECT_EQ(table.Find(keys[k].get()), nullptr);
    }
  }
  // A key inserted again takes the new value; null is never a key.
  table.Insert(keys[0].get(), keys[3].get());
  EXPECT_EQ(table.Find(keys[0].get()), keys[3].get());
  EXPECT_FALSE(table.Contains(nullptr));
  EXPECT_EQ(table.Find(nullptr), nullptr);
  PointerTable empty(0);
  EXPECT_FALSE(empty.Contains(keys[0].get()));
}

constexpr char kTwoComputations[] = R"(HloModule m
f {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
ENTRY e {
  p = f32[] parameter(0)
  %s = f32[] call(p), to_apply=f
  ROOT y.1 = f32[] negate(s)
})";

TEST(NameUniquerTest, DistinctNamesAreUniqueAndNewOnesNeverRepeat) {
  auto m = Parse(kTwoComputations);
  ASSERT_NE(m, nullptr);
  NameUniquer names(*m);
  EXPECT_TRUE(names.Unique("y"));
  EXPECT_TRUE(names.Unique("p"));
  const std::string a = names.Get("y");
  const std::string b = names.Get("y");
  EXPECT_NE(a, "y");
  EXPECT_NE(a, "y.1");  // taken in the entry
  EXPECT_NE(a, b);
  EXPECT_NE(names.Get("fresh"), names.Get("fresh"));
}

// Both computations name an instruction `y`.
constexpr const char* kSharedName = R"(HloModule m
f {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
ENTRY e {
  p = f32[] parameter(0)
  s = f32[] call(p), to_apply=f
  ROOT y = f32[] negate(s)
})";

TEST(NameUniquerTest, ANameTwoComputationsShareIsNotUnique) {
  auto m = Parse(kSharedName);
  ASSERT_NE(m, nullptr);
  NameUniquer names(*m);
  EXPECT_FALSE(names.Unique("y"));
  EXPECT_TRUE(names.Unique("x"));
  EXPECT_NE(names.Get("y"), "y");
  ASSERT_NE(Find(*m->entry(), "y"), nullptr);
}

TEST(NameUniquerTest, TheVerifiersKeysServeAsTheCollection) {
  auto m = Parse(kSharedName);
  ASSERT_NE(m, nullptr);
  ModuleNameKeys keys;
  VerifyOptions options;
  options.name_keys = &keys;
  ASSERT_TRUE(VerifyModule(*m, options).ok());
  NameUniquer names(*m, &keys);
  EXPECT_TRUE(names.collected());
  EXPECT_FALSE(names.Unique("y"));
  EXPECT_TRUE(names.Unique("x"));
  for (std::string_view taken : {"y", "x", "p", "s", "f", "e"}) {
    EXPECT_NE(names.Get(taken), taken);
  }
  EXPECT_EQ(names.Get("fresh"), "fresh");
}

constexpr const char* kFiveInstructions = R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  x = f32[] constant(1)
  b = f32[] exponential(a)
  ROOT c = f32[] add(a, b)
})";

TEST(PostOrderTest, ListsOutOfOrderAreWalkedWhateverTheirOldNumbers) {
  auto m = Parse(kFiveInstructions);
  ASSERT_NE(m, nullptr);
  HloComputation& entry = *m->entry();
  bool has_control = true;
  std::vector<HloInstruction*> order = PostOrder(entry, &has_control);
  EXPECT_FALSE(has_control);
  ASSERT_EQ(order.size(), 5u);
  EXPECT_EQ(order[1]->name(), "a");  // the list itself: it is in order
  // Move `a` to the end: it keeps its old number (1), which is below the
  // new position of b (2), so its number alone would not show that b now
  // comes before its operand.
  auto& list = const_cast<std::vector<std::unique_ptr<HloInstruction>>&>(entry.instructions());
  std::rotate(list.begin() + 1, list.begin() + 2, list.end());
  const_cast<HloInstruction*>(Find(entry, "c"))
      ->AddControlPredecessor(const_cast<HloInstruction*>(Find(entry, "p")));
  order = PostOrder(entry, &has_control);
  EXPECT_TRUE(has_control);
  ASSERT_EQ(order.size(), 5u);
  auto position = [&](const char* name) {
    return std::find(order.begin(), order.end(), Find(entry, name)) - order.begin();
  };
  EXPECT_LT(position("p"), position("a"));
  EXPECT_LT(position("a"), position("b"));
  EXPECT_LT(position("b"), position("c"));
  // Numbered by list position.
  for (size_t k = 0; k < list.size(); ++k) EXPECT_EQ(list[k]->scratch, k);
}

// The names f is given, in order, with what each was numbered when given.
struct Visit {
  std::vector<std::string> names;
  std::vector<bool> numbered;
  std::vector<bool> control;
};

Visit Walk(HloComputation& computation) {
  Visit v;
  const auto& list = computation.instructions();
  ForEachInPostOrder(computation, [&](HloInstruction* i, bool on_control_edge) {
    v.names.push_back(i->name());
    v.numbered.push_back(i->scratch < list.size() && list[i->scratch].get() == i);
    v.control.push_back(on_control_edge);
  });
  return v;
}

TEST(ForEachInPostOrderTest, AListInOrderIsVisitedAsItStands) {
  auto m = Parse(kFiveInstructions);
  ASSERT_NE(m, nullptr);
  HloComputation& entry = *m->entry();
  EXPECT_FALSE(entry.may_have_control_edges());
  const Visit v = Walk(entry);
  EXPECT_EQ(v.names, (std::vector<std::string>{"p", "a", "x", "b", "c"}));
  EXPECT_EQ(v.numbered, std::vector<bool>(5, true));
  EXPECT_EQ(v.control, std::vector<bool>(5, false));
}

TEST(ForEachInPostOrderTest, TheRestOfAListOutOfOrderFollowsInPostOrder) {
  auto m = Parse(kFiveInstructions);
  ASSERT_NE(m, nullptr);
  HloComputation& entry = *m->entry();
  Walk(entry);  // numbers every instruction with its position
  // p x b c a: b comes before its operand a, whose old number (1) is below
  // b's position.
  auto& list = const_cast<std::vector<std::unique_ptr<HloInstruction>>&>(entry.instructions());
  std::rotate(list.begin() + 1, list.begin() + 2, list.end());
  // What the visitor appends is not visited.
  std::vector<std::string> names;
  ForEachInPostOrder(entry, [&](HloInstruction* i, bool) {
    names.push_back(i->name());
    entry.AddInstruction(std::make_unique<HloInstruction>(HloOpcode::kConstant, "added",
                                                          Shape(ElementType::kF32, {})));
  });
  EXPECT_EQ(names, (std::vector<std::string>{"p", "x", "a", "b", "c"}));
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(list[k]->scratch, k);
  EXPECT_EQ(list.size(), 10u);
}

TEST(ForEachInPostOrderTest, ControlEdgesOrderTheWalkAndAreTold) {
  auto m = Parse(kFiveInstructions);
  ASSERT_NE(m, nullptr);
  HloComputation& entry = *m->entry();
  // x must come after b now, and both are on a control edge.
  auto* x = const_cast<HloInstruction*>(Find(entry, "x"));
  x->AddControlPredecessor(const_cast<HloInstruction*>(Find(entry, "b")));
  EXPECT_TRUE(entry.may_have_control_edges());
  const Visit v = Walk(entry);
  ASSERT_EQ(v.names.size(), 5u);
  auto at = [&](const std::string& name) {
    return std::find(v.names.begin(), v.names.end(), name) - v.names.begin();
  };
  EXPECT_LT(at("b"), at("x"));
  EXPECT_LT(at("a"), at("b"));
  EXPECT_LT(at("b"), at("c"));
  EXPECT_EQ(v.numbered, std::vector<bool>(5, true));
  for (const char* name : {"p", "a", "c"}) EXPECT_FALSE(v.control[at(name)]) << name;
  EXPECT_TRUE(v.control[at("x")]);
  EXPECT_TRUE(v.control[at("b")]);
}

}  // namespace
}  // namespace hlovm::passes
