#include "ops/collective/collective_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(CollectiveShapeTest, GroupSize) {
  ReplicaGroups g;
  g.groups = {{0, 1}, {2, 3}};
  EXPECT_EQ(CollectiveGroupSize(g, false, true, false, 4, 1), 2);
  EXPECT_EQ(CollectiveGroupSize(std::nullopt, false, true, false, 4, 2), 4);
  EXPECT_EQ(CollectiveGroupSize(std::nullopt, true, true, true, 4, 2), 8);
  EXPECT_EQ(CollectiveGroupSize(g, true, true, false, 4, 2), 4);  // replicas x partitions
  EXPECT_EQ(CollectiveGroupSize(std::nullopt, true, false, false, 4, 2), 2);
  ReplicaGroups uneven;
  uneven.groups = {{0, 1}, {2}};
  EXPECT_EQ(CollectiveGroupSize(uneven, false, true, false, 3, 1), std::nullopt);
}

TEST(CollectiveShapeTest, ReplicaGroupsAndPairs) {
  ReplicaGroups g;
  g.groups = {{0, 1}, {2, 3}};
  EXPECT_TRUE(CheckReplicaGroups(g, 4, true, true).ok());
  EXPECT_TRUE(CheckReplicaGroups(g, 1, true, true).ok());  // replica count unknown
  HLOVM_EXPECT_ERROR(CheckReplicaGroups(g, 8, true, true),
                     "should contain 8 participants (replicas or partitions, by the op's "
                     "mode), but found 4.");
  ReplicaGroups repeated;
  repeated.groups = {{0, 1}, {1, 2}};
  HLOVM_EXPECT_ERROR(CheckReplicaGroups(repeated, 1, false, false),
                     "Replica 1 is repeated in replica_groups.");
  ReplicaGroups gap;
  gap.groups = {{0, 2}};
  EXPECT_TRUE(CheckReplicaGroups(gap, 1, false, false).ok());
  HLOVM_EXPECT_ERROR(CheckReplicaGroups(gap, 1, true, false), "Replica 1 is not named");
  ReplicaGroups uneven;
  uneven.groups = {{0, 1}, {2}};
  EXPECT_TRUE(CheckReplicaGroups(uneven, 3, true, false).ok());
  HLOVM_EXPECT_ERROR(CheckReplicaGroups(uneven, 3, true, true), "uniform size");
  ReplicaGroups empty_group;
  empty_group.groups = {{}};
  HLOVM_EXPECT_ERROR(CheckReplicaGroups(empty_group, 1, false, false), "empty replica group");
  EXPECT_TRUE(CheckSourceTargetPairs({{0, 1}, {1, 0}}).ok());
  HLOVM_EXPECT_ERROR(CheckSourceTargetPairs({{0, 1}, {0, 2}}),
                     "Source 0 appears more than once");
  HLOVM_EXPECT_ERROR(CheckSourceTargetPairs({{0, 1}, {2, 1}}),
                     "Target 1 appears more than once");
}

TEST(CollectiveShapeTest, Shapes) {
  const Shape a = S("f32[4,6]"), b = S("s32[8]");
  const Shape* one[] = {&a};
  const Shape* two[] = {&a, &b};
  ComputationSignature add{{S("f32[]"), S("f32[]")}, S("f32[]")};
  HLOVM_EXPECT_SHAPE(InferAllReduceShape(one, &add), "f32[4,6]");
  HLOVM_EXPECT_SHAPE(InferAllReduceShape(two, nullptr), "(f32[4,6], s32[8])");
  ComputationSignature pred{{S("f32[]"), S("f32[]")}, S("pred[]")};
  HLOVM_EXPECT_ERROR(InferAllReduceShape(one, &pred), "Reduction function");
  HLOVM_EXPECT_SHAPE(InferAllGatherShape(one, 1, 4), "f32[4,24]");
  HLOVM_EXPECT_SHAPE(InferAllGatherStartShape(one, 0, 2), "(f32[4,6], f32[8,6])");
  HLOVM_EXPECT_ERROR(InferAllGatherShape(one, 2, 4), "out of range");
  HLOVM_EXPECT_SHAPE(InferReduceScatterShape(one, 1, 3, &add), "f32[4,2]");
  HLOVM_EXPECT_ERROR(InferReduceScatterShape(one, 1, 4, &add), "must be dividable by shard_count 4");
  HLOVM_EXPECT_SHAPE(InferAllToAllShape(one, 0, 2), "f32[4,6]");
  HLOVM_EXPECT_ERROR(InferAllToAllShape(one, 0, 3), "dividable by split_count 3");
  HLOVM_EXPECT_SHAPE(InferCollectivePermuteShape(one), "f32[4,6]");
  HLOVM_EXPECT_SHAPE(InferCollectivePermuteStartShape(one, S("(f32[4,6], f32[4,6], u32[], u32[])")),
                     "(f32[4,6], f32[4,6], u32[], u32[])");
  HLOVM_EXPECT_SHAPE(InferCollectiveDoneShape(S("(f32[4,6], f32[4,6], u32[], u32[])")),
                     "f32[4,6]");
  const Shape in = S("f32[8]"), out = S("f32[16]"), off = S("s64[2]");
  const Shape* ragged[] = {&in, &out, &off, &off, &off, &off};
  HLOVM_EXPECT_SHAPE(InferRaggedAllToAllShape(ragged), "f32[16]");
  const Shape foff = S("f32[2]");
  const Shape* bad[] = {&in, &out, &foff, &off, &off, &off};
  HLOVM_EXPECT_ERROR(InferRaggedAllToAllShape(bad), "must be integral");
}

}  // namespace
}  // namespace hlovm
