#include "core/raw_attributes.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

std::vector<std::pair<std::string, std::string>> Entries(const RawAttributes& raw) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : raw) out.emplace_back(name, value);
  return out;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(RawAttributesTest, KeepsEntriesInOrder) {
  RawAttributes raw;
  EXPECT_TRUE(raw.empty());
  EXPECT_EQ(raw.begin(), raw.end());
  raw.Append("dimensions", "{0,1}");
  raw.Append("metadata", "{op_name=\"a\"}");
  raw.Append("empty", "");
  EXPECT_EQ(raw.size(), 3u);
  EXPECT_EQ(Entries(raw),
            (Pairs{{"dimensions", "{0,1}"}, {"metadata", "{op_name=\"a\"}"}, {"empty", ""}}));
  EXPECT_EQ(raw[1].first, "metadata");
  EXPECT_EQ(raw[2].second, "");
  EXPECT_EQ(raw.Find("dimensions"), "{0,1}");
  EXPECT_EQ(raw.Find("empty"), "");
  EXPECT_FALSE(raw.Find("sharding").has_value());
}

TEST(RawAttributesTest, SetReplacesInPlaceOrAppends) {
  RawAttributes raw = {{"index", "1"}, {"metadata", "{}"}};
  raw.Set("index", "12");
  raw.Set("sharding", "{replicated}");
  EXPECT_EQ(Entries(raw),
            (Pairs{{"index", "12"}, {"metadata", "{}"}, {"sharding", "{replicated}"}}));
  // A value that is a view into the set's own text.
  raw.Set("sharding", raw.Find("index").value());
  EXPECT_EQ(raw.Find("sharding"), "12");
  raw.Clear();
  EXPECT_TRUE(raw.empty());
  EXPECT_EQ(raw.size(), 0u);
}

TEST(RawAttributesTest, CopiesAndMovesOwnTheirText) {
  RawAttributes a = {{"direction", "LT"}, {"metadata", "{op_name=\"x\"}"}};
  RawAttributes b = a;
  a.Set("direction", "GT");
  EXPECT_EQ(b.Find("direction"), "LT");
  RawAttributes c = std::move(a);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(c.Find("direction"), "GT");
  b = c;
  EXPECT_EQ(Entries(b), Entries(c));
  b = b;  // self-assignment keeps the entries
  EXPECT_EQ(b.Find("direction"), "GT");
  b = RawAttributes();
  EXPECT_TRUE(b.empty());
}

TEST(RawAttributesTest, LargeAttributesAreKeptWhole) {
  const std::string big(10000, 'x');
  RawAttributes raw = {{"backend_config", big}};
  RawAttributes copy = raw;
  raw.Append("metadata", "{}");  // the large set grows; its copy stays
  EXPECT_EQ(raw.Find("backend_config"), big);
  EXPECT_EQ(copy.size(), 1u);
  EXPECT_EQ(copy.Find("backend_config"), big);
  copy.Set("backend_config", "{}");  // from large to small
  EXPECT_EQ(copy.Find("backend_config"), "{}");
  copy = raw;  // and back
  EXPECT_TRUE(copy.SameIgnoringMetadata(raw));
  RawAttributes moved = std::move(copy);
  EXPECT_EQ(moved.Find("backend_config"), big);
}

TEST(RawAttributesTest, ComparesAllButMetadata) {
  const RawAttributes none;
  const RawAttributes only_metadata = {{"metadata", "{op_name=\"a\"}"}};
  const RawAttributes other_metadata = {{"metadata", "{op_name=\"b\" source_line=3}"}};
  EXPECT_TRUE(none.SameIgnoringMetadata(only_metadata));
  EXPECT_TRUE(only_metadata.SameIgnoringMetadata(other_metadata));

  const RawAttributes lt = {{"metadata", "{}"}, {"direction", "LT"}};
  const RawAttributes lt_first = {{"direction", "LT"}, {"metadata", "{op_name=\"c\"}"}};
  const RawAttributes gt = {{"direction", "GT"}, {"metadata", "{}"}};
  EXPECT_TRUE(lt.SameIgnoringMetadata(lt_first));
  EXPECT_FALSE(lt.SameIgnoringMetadata(gt));  // same sizes, other text
  EXPECT_FALSE(lt.SameIgnoringMetadata(only_metadata));
  EXPECT_FALSE(only_metadata.SameIgnoringMetadata(lt));

  // The same bytes split differently between name and value differ.
  const RawAttributes ab = {{"ab", "c"}};
  const RawAttributes a_bc = {{"a", "bc"}};
  EXPECT_FALSE(ab.SameIgnoringMetadata(a_bc));
  // Order counts.
  const RawAttributes xy = {{"x", "1"}, {"y", "2"}};
  const RawAttributes yx = {{"y", "2"}, {"x", "1"}};
  EXPECT_FALSE(xy.SameIgnoringMetadata(yx));
  EXPECT_TRUE(xy.SameIgnoringMetadata(RawAttributes(xy)));
}

}  // namespace
}  // namespace hlovm
