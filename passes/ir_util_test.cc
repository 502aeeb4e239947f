#include "passes/ir_util.h"

#include <memory>
#include <vector>

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

TEST(NameUniquerTest, ANameTwoComputationsShareIsNotUnique) {
  auto m = Parse(R"(HloModule m
f {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
ENTRY e {
  p = f32[] parameter(0)
  s = f32[] call(p), to_apply=f
  ROOT y = f32[] negate(s)
})");
  ASSERT_NE(m, nullptr);
  NameUniquer names(*m);
  EXPECT_FALSE(names.Unique("y"));
  EXPECT_TRUE(names.Unique("x"));
  EXPECT_NE(names.Get("y"), "y");
  ASSERT_NE(Find(*m->entry(), "y"), nullptr);
}

}  // namespace
}  // namespace hlovm::passes
