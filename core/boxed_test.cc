#include "core/boxed.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "core/literal.h"

namespace hlovm {
namespace {

TEST(BoxedTest, BehavesAsAnOptional) {
  Boxed<std::vector<int>> a;
  EXPECT_FALSE(a.has_value());
  EXPECT_FALSE(static_cast<bool>(a));
  a = std::vector<int>{1, 2};
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[1], 2);
  a.emplace(3, 7);
  EXPECT_EQ(a.value(), (std::vector<int>{7, 7, 7}));
  a.reset();
  EXPECT_FALSE(a.has_value());
  a = std::nullopt;
  EXPECT_EQ(a.value_or(std::vector<int>{9}), std::vector<int>{9});
  Boxed<std::vector<int>> from_optional(std::optional<std::vector<int>>(std::vector<int>{4}));
  EXPECT_EQ(*from_optional, std::vector<int>{4});
}

TEST(BoxedTest, CopiesDeepAndComparesValues) {
  Boxed<std::string> a(std::string("x"));
  Boxed<std::string> b = a;
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(&*a, &*b);
  EXPECT_TRUE(a == b);
  *b = "y";
  EXPECT_EQ(*a, "x");
  EXPECT_FALSE(a == b);
  Boxed<std::string> none;
  EXPECT_FALSE(a == none);
  EXPECT_TRUE(none == Boxed<std::string>());
  Boxed<std::string> moved = std::move(b);
  EXPECT_EQ(*moved, "y");
}

TEST(BoxedTest, HoldsMoveOnlyValues) {
  Boxed<Literal> lit;
  lit = Literal::CreateR0<float>(2.5f);
  ASSERT_TRUE(lit.has_value());
  EXPECT_EQ(lit->Get<float>({}), 2.5f);
  Boxed<Literal> moved = std::move(lit);
  EXPECT_TRUE(moved.has_value());
}

TEST(BoxedTest, IsOnePointerWide) { EXPECT_EQ(sizeof(Boxed<Literal>), sizeof(void*)); }

}  // namespace
}  // namespace hlovm
