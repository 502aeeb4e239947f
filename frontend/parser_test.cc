#include "frontend/parser.h"

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

std::unique_ptr<HloModule> MustParse(std::string_view text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message() << "\nin:\n" << text;
  if (!module.ok()) return nullptr;
  return std::move(module).value();
}

const HloInstruction* Find(const HloModule& module, std::string_view name) {
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->name() == name) return i.get();
    }
  }
  return nullptr;
}

// A module whose entry holds `body` after two f32[4,4] parameters p and q and
// a scalar s32 parameter i, with an `add` reducer and a `cmp` comparator.
std::string Wrap(std::string_view body) {
  return std::string(R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

cmp {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT lt = pred[] compare(x, y), direction=LT
}

ENTRY main {
  p = f32[4,4] parameter(0)
  q = f32[4,4] parameter(1)
  i = s32[] parameter(2)
  )") + std::string(body) + "\n}\n";
}

struct AttrCase {
  std::string name;
  std::string body;  // instructions; the one named `t` is checked
  std::function<void(const HloInstruction&)> check;
};

class AttributeTest : public ::testing::TestWithParam<AttrCase> {};

TEST_P(AttributeTest, ParsesIntoTypedFields) {
  const AttrCase& c = GetParam();
  auto module = MustParse(Wrap(c.body));
  ASSERT_NE(module, nullptr);
  const HloInstruction* t = Find(*module, "t");
  ASSERT_NE(t, nullptr);
  c.check(*t);
}

using V = std::vector<int64_t>;

INSTANTIATE_TEST_SUITE_P(
    Parser, AttributeTest,
    ::testing::Values(
        AttrCase{"Dot",
                 "ROOT t = f32[4,4] dot(p, q), lhs_batch_dims={}, lhs_contracting_dims={1}, "
                 "rhs_contracting_dims={0}, operand_precision={highest,default}, "
                 "algorithm=dot_bf16_bf16_f32",
                 [](const HloInstruction& t) {
                   ASSERT_TRUE(t.attrs().dot_dimension_numbers.has_value());
                   EXPECT_EQ(t.attrs().dot_dimension_numbers->lhs_contracting_dimensions, V{1});
                   EXPECT_EQ(t.attrs().dot_dimension_numbers->rhs_contracting_dimensions, V{0});
                   EXPECT_TRUE(t.attrs().dot_dimension_numbers->lhs_batch_dimensions.empty());
                   EXPECT_EQ(t.attrs().operand_precision,
                             (std::vector<std::string>{"highest", "default"}));
                   EXPECT_EQ(t.attrs().precision_algorithm, "dot_bf16_bf16_f32");
                 }},
        AttrCase{"Convolution",
                 "a = f32[1,8,8,3] broadcast(i), dimensions={}\n"
                 "  k = f32[3,3,3,16] broadcast(i), dimensions={}\n"
                 "  ROOT t = f32[1,4,4,16] convolution(a, k), window={size=3x3 stride=2x2 "
                 "pad=1_1x0_1 lhs_dilate=1x1 rhs_dilate=1x2 rhs_reversal=0x1}, "
                 "dim_labels=b01f_01io->b01f, feature_group_count=1, batch_group_count=1",
                 [](const HloInstruction& t) {
                   ASSERT_TRUE(t.attrs().window.has_value());
                   ASSERT_EQ(t.attrs().window->size(), 2u);
                   EXPECT_EQ((*t.attrs().window)[0].size, 3);
                   EXPECT_EQ((*t.attrs().window)[1].stride, 2);
                   EXPECT_EQ((*t.attrs().window)[1].padding_low, 0);
                   EXPECT_EQ((*t.attrs().window)[1].padding_high, 1);
                   EXPECT_EQ((*t.attrs().window)[1].window_dilation, 2);
                   EXPECT_TRUE((*t.attrs().window)[1].window_reversal);
                   EXPECT_FALSE((*t.attrs().window)[0].window_reversal);
                   const auto& d = *t.attrs().convolution_dimension_numbers;
                   EXPECT_EQ(d.input_batch_dimension, 0);
                   EXPECT_EQ(d.input_feature_dimension, 3);
                   EXPECT_EQ(d.input_spatial_dimensions, (V{1, 2}));
                   EXPECT_EQ(d.kernel_input_feature_dimension, 2);
                   EXPECT_EQ(d.kernel_output_feature_dimension, 3);
                   EXPECT_EQ(d.kernel_spatial_dimensions, (V{0, 1}));
                   EXPECT_EQ(d.output_feature_dimension, 3);
                 }},
        AttrCase{"Gather",
                 "idx = s32[2,1] broadcast(i), dimensions={}\n"
                 "  ROOT t = f32[2,4] gather(p, idx), offset_dims={1}, collapsed_slice_dims={0}, "
                 "start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}, "
                 "indices_are_sorted=true, operand_batching_dims={}, "
                 "start_indices_batching_dims={}",
                 [](const HloInstruction& t) {
                   const auto& g = *t.attrs().gather_dimension_numbers;
                   EXPECT_EQ(g.offset_dims, V{1});
                   EXPECT_EQ(g.collapsed_slice_dims, V{0});
                   EXPECT_EQ(g.start_index_map, V{0});
                   EXPECT_EQ(g.index_vector_dim, 1);
                   EXPECT_EQ(t.attrs().gather_slice_sizes, (V{1, 4}));
                   EXPECT_TRUE(t.attrs().indices_are_sorted);
                 }},
        AttrCase{"Scatter",
                 "idx = s32[2,1] broadcast(i), dimensions={}\n"
                 "  u = f32[2,4] broadcast(i), dimensions={}\n"
                 "  ROOT t = f32[4,4] scatter(p, idx, u), update_window_dims={1}, "
                 "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                 "index_vector_dim=1, to_apply=add, unique_indices=true",
                 [](const HloInstruction& t) {
                   const auto& s = *t.attrs().scatter_dimension_numbers;
                   EXPECT_EQ(s.update_window_dims, V{1});
                   EXPECT_EQ(s.inserted_window_dims, V{0});
                   EXPECT_EQ(s.scatter_dims_to_operand_dims, V{0});
                   EXPECT_EQ(s.index_vector_dim, 1);
                   EXPECT_TRUE(t.attrs().unique_indices);
                   ASSERT_EQ(t.called_computations().size(), 1u);
                   EXPECT_EQ(t.to_apply()->name(), "add");
                 }},
        AttrCase{"SliceAndPad",
                 "s = f32[2,2] slice(p), slice={[0:4:2], [1:3]}\n"
                 "  z = f32[] constant(0)\n"
                 "  ROOT t = f32[7,4] pad(s, z), padding=1_2_1x0_2",
                 [](const HloInstruction& t) {
                   const HloInstruction& s = *t.operand(0);
                   ASSERT_TRUE(s.slice.has_value());
                   EXPECT_EQ(s.slice->starts, (V{0, 1}));
                   EXPECT_EQ(s.slice->limits, (V{4, 3}));
                   EXPECT_EQ(s.slice->strides, (V{2, 1}));
                   ASSERT_EQ(t.attrs().padding->size(), 2u);
                   EXPECT_EQ((*t.attrs().padding)[0].low, 1);
                   EXPECT_EQ((*t.attrs().padding)[0].high, 2);
                   EXPECT_EQ((*t.attrs().padding)[0].interior, 1);
                   EXPECT_EQ((*t.attrs().padding)[1].interior, 0);
                 }},
        AttrCase{"Compare",
                 "ROOT t = pred[4,4] compare(p, q), direction=GE, type=TOTALORDER",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.comparison_direction, ComparisonDirection::kGe);
                   EXPECT_EQ(t.comparison_type, ComparisonType::kTotalOrder);
                 }},
        AttrCase{"ReplicaGroupsList",
                 "ROOT t = f32[4,4] all-reduce(p), replica_groups={{0,2},{1,3}}, "
                 "channel_id=7, use_global_device_ids=true, to_apply=add",
                 [](const HloInstruction& t) {
                   ASSERT_TRUE(t.attrs().replica_groups.has_value());
                   EXPECT_EQ(t.attrs().replica_groups->groups, (std::vector<V>{{0, 2}, {1, 3}}));
                   EXPECT_TRUE(t.attrs().replica_groups->iota_text.empty());
                   EXPECT_EQ(t.attrs().channel_id, 7);
                   EXPECT_TRUE(t.attrs().use_global_device_ids);
                 }},
        AttrCase{"ReplicaGroupsIota",
                 "ROOT t = f32[4,4] all-reduce(p), replica_groups=[2,2]<=[4], to_apply=add",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.attrs().replica_groups->groups, (std::vector<V>{{0, 1}, {2, 3}}));
                   EXPECT_EQ(t.attrs().replica_groups->iota_text, "[2,2]<=[4]");
                 }},
        AttrCase{"ReplicaGroupsIotaTransposed",
                 "ROOT t = f32[4,4] all-reduce(p), replica_groups=[4,2]<=[2,4]T(1,0), "
                 "to_apply=add",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.attrs().replica_groups->groups,
                             (std::vector<V>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
                 }},
        AttrCase{"AllToAllAndPermute",
                 "a = f32[4,4] all-to-all(p), dimensions={1}, replica_groups={{0,1}}\n"
                 "  ROOT t = f32[4,4] collective-permute(a), source_target_pairs={{0,1},{1,0}}",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.operand(0)->attrs().split_dimension, 1);
                   ASSERT_EQ(t.attrs().source_target_pairs.size(), 2u);
                   EXPECT_EQ(t.attrs().source_target_pairs[0], (std::pair<int64_t, int64_t>{0, 1}));
                 }},
        AttrCase{"CustomCall",
                 "ROOT t = (f32[4,4], f32[]) custom-call(p, q), custom_call_target=\"my\\\"fn\", "
                 "api_version=API_VERSION_TYPED_FFI, schedule=SCHEDULE_LATEST, "
                 "custom_call_has_side_effect=true, output_to_operand_aliasing={{0}: (1, {})}, "
                 "backend_config={\"k\": [1, 2]}",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.attrs().custom_call_target, "my\"fn");
                   EXPECT_EQ(t.attrs().custom_call_api_version, "API_VERSION_TYPED_FFI");
                   EXPECT_EQ(t.attrs().custom_call_schedule, "SCHEDULE_LATEST");
                   EXPECT_TRUE(t.attrs().custom_call_has_side_effect);
                   ASSERT_EQ(t.attrs().output_to_operand_aliasing.size(), 1u);
                   EXPECT_EQ(t.attrs().output_to_operand_aliasing[0].output_index, V{0});
                   EXPECT_EQ(t.attrs().output_to_operand_aliasing[0].operand, 1);
                   EXPECT_EQ(t.attrs().backend_config, "{\"k\": [1, 2]}");
                 }},
        AttrCase{"BackendConfigString",
                 "ROOT t = f32[4,4] copy(p), backend_config=\"a\\nb\"",
                 [](const HloInstruction& t) { EXPECT_EQ(t.attrs().backend_config, "a\nb"); }},
        AttrCase{"SortAndTopK",
                 "s = f32[4,4] sort(p), dimensions={1}, is_stable=true, to_apply=cmp\n"
                 "  ROOT t = (f32[4,2], s32[4,2]) topk(s), k=2, largest=false",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.attrs().k, 2);
                   EXPECT_FALSE(t.attrs().largest);
                   EXPECT_TRUE(t.operand(0)->attrs().is_stable);
                   EXPECT_EQ(t.operand(0)->dimensions, V{1});
                   EXPECT_EQ(t.operand(0)->to_apply()->name(), "cmp");
                 }},
        AttrCase{"Rng",
                 "z = f32[] constant(0)\n"
                 "  r = f32[4] rng(z, z), distribution=rng_normal\n"
                 "  k = u64[2] broadcast(i), dimensions={}\n"
                 "  ROOT t = (u64[2], u32[4]) rng-bit-generator(k), algorithm=rng_philox",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.attrs().rng_algorithm, RngAlgorithm::kPhilox);
                 }},
        AttrCase{"ReducePrecisionFftIota",
                 "r = f32[4,4] reduce-precision(p), exponent_bits=5, mantissa_bits=10\n"
                 "  c = c64[4,4] convert(r)\n"
                 "  f = c64[4,4] fft(c), fft_type=IFFT, fft_length={4}\n"
                 "  ROOT t = s32[4,4] iota(), iota_dimension=1",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.iota_dimension, 1);
                 }},
        AttrCase{"LinalgAndBatchNorm",
                 "tri = f32[4,4] triangular-solve(p, q), left_side=true, lower=true, "
                 "unit_diagonal=true, transpose_a=ADJOINT\n"
                 "  ch = f32[4,4] cholesky(tri), lower=true\n"
                 "  sc = f32[4] broadcast(i), dimensions={}\n"
                 "  ROOT t = (f32[4,4], f32[4], f32[4]) batch-norm-training(ch, sc, sc), "
                 "epsilon=0.001, feature_index=1",
                 [](const HloInstruction& t) {
                   EXPECT_FLOAT_EQ(t.attrs().epsilon, 0.001f);
                   EXPECT_EQ(t.attrs().feature_index, 1);
                   const HloInstruction& tri = *t.operand(0)->operand(0);
                   EXPECT_TRUE(tri.attrs().left_side);
                   EXPECT_TRUE(tri.attrs().lower);
                   EXPECT_TRUE(tri.attrs().unit_diagonal);
                   EXPECT_EQ(tri.attrs().transpose_a, TriangularSolveTranspose::kAdjoint);
                   EXPECT_TRUE(t.operand(0)->attrs().lower);
                 }},
        AttrCase{"ReduceAndBroadcast",
                 "z = f32[] constant(0)\n"
                 "  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add\n"
                 "  ROOT t = f32[4,4] broadcast(r), dimensions={0}",
                 [](const HloInstruction& t) {
                   EXPECT_EQ(t.dimensions, V{0});
                   EXPECT_EQ(t.operand(0)->dimensions, V{1});
                   EXPECT_EQ(t.operand(0)->to_apply()->name(), "add");
                 }},
        AttrCase{"RawAttributesInOrderVerbatim",
                 "ROOT t = f32[4,4] add(p, q), metadata={op_name=\"a,b\" source_line=3}, "
                 "sharding={devices=[2,1]0,1}, frontend_attributes={x=\"y\"}, "
                 "some_future_attribute={1, {2}}",
                 [](const HloInstruction& t) {
                   ASSERT_EQ(t.raw_attributes().size(), 4u);
                   EXPECT_EQ(t.raw_attributes()[0].first, "metadata");
                   EXPECT_EQ(t.raw_attributes()[0].second, "{op_name=\"a,b\" source_line=3}");
                   EXPECT_EQ(t.raw_attributes()[1].second, "{devices=[2,1]0,1}");
                   EXPECT_EQ(t.attrs().sharding, "{devices=[2,1]0,1}");
                   EXPECT_EQ(t.raw_attributes()[2].first, "frontend_attributes");
                   EXPECT_EQ(t.raw_attributes()[3].first, "some_future_attribute");
                   EXPECT_EQ(t.raw_attributes()[3].second, "{1, {2}}");
                 }},
        AttrCase{"ControlPredecessors",
                 "a = f32[4,4] copy(p)\n"
                 "  b = f32[4,4] copy(q)\n"
                 "  ROOT t = f32[4,4] add(a, b), control-predecessors={b, a}",
                 [](const HloInstruction& t) {
                   ASSERT_EQ(t.control_predecessors().size(), 2u);
                   EXPECT_EQ(t.control_predecessors()[0]->name(), "b");
                   EXPECT_EQ(t.control_predecessors()[1]->name(), "a");
                 }}),
    [](const ::testing::TestParamInfo<AttrCase>& info) { return info.param.name; });

TEST(ParserTest, WhileOrdersConditionBeforeBody) {
  auto module = MustParse(R"(HloModule m
cond { x = f32[] parameter(0)
  ROOT c = pred[] constant(true) }
body { ROOT y = f32[] parameter(0) }
ENTRY e {
  p = f32[] parameter(0)
  ROOT w = f32[] while(p), body=body, condition=cond
})");
  ASSERT_NE(module, nullptr);
  const HloInstruction* w = Find(*module, "w");
  ASSERT_EQ(w->called_computations().size(), 2u);
  EXPECT_EQ(w->called_computations()[0]->name(), "cond");
  EXPECT_EQ(w->called_computations()[1]->name(), "body");
  EXPECT_EQ(module->entry()->name(), "e");
  EXPECT_EQ(module->entry()->root(), w);

  auto cond = MustParse(R"(HloModule m
t { x = f32[] parameter(0)
  ROOT n = f32[] negate(x) }
f { ROOT y = f32[] parameter(0) }
ENTRY e {
  b = pred[] parameter(0)
  p = f32[] parameter(1)
  ROOT c = f32[] conditional(b, p, p), false_computation=f, true_computation=t
})");
  ASSERT_NE(cond, nullptr);
  const HloInstruction* c = Find(*cond, "c");
  ASSERT_EQ(c->called_computations().size(), 2u);
  EXPECT_EQ(c->called_computations()[0]->name(), "t");
  EXPECT_EQ(c->called_computations()[1]->name(), "f");
}

TEST(ParserTest, ModuleHeaderAttributes) {
  auto module = MustParse(R"(HloModule m, is_scheduled=true, replica_count=4, num_partitions=2,
  input_output_alias={ {0}: (0, {}, must-alias), {1}: (1, {2}) },
  buffer_donor={ (0, {1}) }, alias_passthrough_params=true,
  entry_computation_layout={(f32[2]{0}, (f32[], f32[], f32[]))->(f32[2]{0}, f32[])},
  future_header_attribute={a=1}

ENTRY e {
  p = f32[2] parameter(0)
  t = (f32[], f32[], f32[]) parameter(1)
  g = f32[] get-tuple-element(t), index=2
  ROOT r = (f32[2], f32[]) tuple(p, g)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "m");
  EXPECT_TRUE(module->is_scheduled);
  EXPECT_TRUE(module->alias_passthrough_params);
  EXPECT_EQ(module->replica_count, 4);
  EXPECT_EQ(module->num_partitions, 2);
  ASSERT_EQ(module->input_output_alias.size(), 2u);
  EXPECT_EQ(module->input_output_alias[0].output_index, V{0});
  EXPECT_TRUE(module->input_output_alias[0].must_alias);
  EXPECT_EQ(module->input_output_alias[1].parameter_number, 1);
  EXPECT_EQ(module->input_output_alias[1].parameter_index, V{2});
  EXPECT_FALSE(module->input_output_alias[1].must_alias);
  ASSERT_EQ(module->buffer_donor.size(), 1u);
  EXPECT_EQ(module->buffer_donor[0].parameter_index, V{1});
  ASSERT_TRUE(module->entry_parameter_layouts.has_value());
  EXPECT_EQ(module->entry_parameter_layouts->size(), 2u);
  ASSERT_TRUE(module->entry_result_layout.has_value());
  EXPECT_TRUE(module->entry_result_layout->IsTuple());
  ASSERT_EQ(module->raw_attributes.size(), 8u);
  EXPECT_EQ(module->raw_attributes.back().first, "future_header_attribute");
  EXPECT_EQ(module->raw_attributes.back().second, "{a=1}");
  EXPECT_EQ(Find(*module, "g")->tuple_index, 2);
}

TEST(ParserTest, HeaderlessTakesEntryOrLastComputation) {
  auto last = MustParse("a { ROOT x = f32[] parameter(0) }\nb { ROOT y = s32[] parameter(0) }");
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->entry()->name(), "b");
  EXPECT_FALSE(last->has_header);
  auto entry =
      MustParse("ENTRY a { ROOT x = f32[] parameter(0) }\nb { ROOT y = s32[] parameter(0) }");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->entry()->name(), "a");
}

TEST(ParserTest, LoneInstructionMakesParameters) {
  auto module = MustParse("%m = f32[2,4]{1,0} multiply(f32[2,4]{1,0} %x, f32[2,4]{1,0} %y)");
  ASSERT_NE(module, nullptr);
  const HloComputation* c = module->entry();
  ASSERT_EQ(c->parameter_count(), 2);
  EXPECT_EQ(c->parameter(0)->name(), "x");
  EXPECT_EQ(c->parameter(1)->name(), "y");
  EXPECT_EQ(c->root()->name(), "m");
  EXPECT_EQ(c->root()->opcode(), HloOpcode::kMultiply);

  auto unnamed = MustParse("f32[2] add(f32[2], f32[2])");
  ASSERT_NE(unnamed, nullptr);
  EXPECT_EQ(unnamed->entry()->parameter_count(), 2);
  EXPECT_EQ(unnamed->entry()->root()->opcode(), HloOpcode::kAdd);
}

TEST(ParserTest, NestedInstructionsAndShapeInference) {
  auto module = MustParse(R"(HloModule m
ENTRY e {
  ROOT root = add(f32[10] parameter(0), multiply(f32[10] parameter(1), f32[10] parameter(2)))
})");
  ASSERT_NE(module, nullptr);
  const HloComputation* c = module->entry();
  EXPECT_EQ(c->instruction_count(), 5);
  EXPECT_EQ(c->root()->shape().ToString(false), "f32[10]");
  EXPECT_EQ(c->root()->operand(1)->opcode(), HloOpcode::kMultiply);
  EXPECT_EQ(c->root()->operand(1)->name(), "multiply.anon");
  EXPECT_EQ(c->parameter(1)->name(), "parameter.anon.1");
}

TEST(ParserTest, CompactTupleIndexForm) {
  auto module = MustParse(R"(HloModule m
ENTRY e {
  p = (f32[10], (f32[20], f32[30])) parameter(0)
  a = f32[20] negate(f32[20] %p#1#0)
  ROOT r = f32[20] add(a, p#1#0)
})");
  ASSERT_NE(module, nullptr);
  const HloInstruction* r = Find(*module, "r");
  const HloInstruction* gte = r->operand(1);
  EXPECT_EQ(gte->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(gte->tuple_index, 0);
  EXPECT_EQ(gte->name(), "p_1_0");
  EXPECT_EQ(gte, Find(*module, "a")->operand(0));  // made once, used twice
  EXPECT_EQ(gte->operand(0)->name(), "p_1");
}

TEST(ParserTest, AsyncShorthandBuildsWrappedComputation) {
  auto module = MustParse(R"(HloModule m
ENTRY e {
  p = f32[10] parameter(0)
  s = ((f32[10]), f32[20], s32[]) custom-call-start(p), custom_call_target="foo"
  u = ((f32[10]), f32[20], s32[]) custom-call-update(s)
  ROOT d = f32[20] custom-call-done(u)
})");
  ASSERT_NE(module, nullptr);
  const HloInstruction* s = Find(*module, "s");
  EXPECT_EQ(s->opcode(), HloOpcode::kAsyncStart);
  EXPECT_EQ(s->attrs().async_wrapped_opcode, HloOpcode::kCustomCall);
  ASSERT_EQ(s->called_computations().size(), 1u);
  const HloComputation* wrapped = s->called_computations()[0];
  EXPECT_TRUE(wrapped->is_async_wrapped);
  EXPECT_EQ(wrapped->root()->opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(wrapped->root()->attrs().custom_call_target, "foo");
  EXPECT_EQ(wrapped->parameter_count(), 1);
  const HloInstruction* d = Find(*module, "d");
  EXPECT_EQ(d->opcode(), HloOpcode::kAsyncDone);
  ASSERT_EQ(d->called_computations().size(), 1u);
  EXPECT_EQ(d->called_computations()[0], wrapped);
  EXPECT_EQ(module->entry()->name(), "e");
}

TEST(ParserTest, InlineComputations) {
  auto module = MustParse(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply={
    x = f32[] parameter(0)
    ROOT n = f32[] negate(x)
  }
})");
  ASSERT_NE(module, nullptr);
  const HloInstruction* c = Find(*module, "c");
  ASSERT_EQ(c->called_computations().size(), 1u);
  EXPECT_TRUE(c->to_apply()->is_inline);
  EXPECT_EQ(c->to_apply()->root()->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(module->entry()->name(), "e");
}

TEST(ParserTest, CommentsAndSourceLocations) {
  auto module = MustParse(
      "// leading comment\nHloModule m /* block */\n\nENTRY e {\n"
      "  p = f32[2] parameter(0) // trailing\n"
      "  ROOT t = (f32[2], f32[2]) tuple(p, /*index=1*/p)\n}\n");
  ASSERT_NE(module, nullptr);
  const HloInstruction* t = Find(*module, "t");
  EXPECT_EQ(t->location().line, 6);
  EXPECT_EQ(t->location().column, 8);
  EXPECT_EQ(Find(*module, "p")->location().line, 5);
  EXPECT_EQ(module->entry()->location().line, 4);
}

TEST(ParserTest, ConstantsIncludingElided) {
  auto module = MustParse(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({{1, 2}, {3, 4}})
  b = f32[100] constant({...})
  ROOT t = (f32[2,2], f32[100]) tuple(a, b)
})");
  ASSERT_NE(module, nullptr);
  const HloInstruction* a = Find(*module, "a");
  ASSERT_TRUE(a->literal.has_value());
  EXPECT_EQ(a->literal->data<float>()[3], 4.0f);
  EXPECT_TRUE(Find(*module, "b")->literal->elided());
}

TEST(ParserTest, SplitInputFileKeepsLineNumbers) {
  std::string text = "HloModule a\nENTRY e { ROOT p = f32[] parameter(0) }\n// -----\n"
                     "HloModule b\nENTRY e {\n  ROOT p = f32[] bogus(0)\n}\n";
  std::vector<TextChunk> chunks = SplitInputFile(text);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].first_line, 1);
  EXPECT_EQ(chunks[1].first_line, 4);
  EXPECT_TRUE(ParseHloModule(chunks[0].text).ok());
  ParseOptions options;
  options.file_name = "x.hlo";
  options.first_line = chunks[1].first_line;
  auto bad = ParseHloModule(chunks[1].text, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()).rfind("x.hlo:6:18: error: ", 0), 0u)
      << bad.status().message();
  EXPECT_TRUE(IsBlankText("  // CHECK: foo\n/* x */\n"));
  EXPECT_FALSE(IsBlankText("// x\nHloModule m"));
}

struct ErrorCase {
  std::string name;
  std::string text;
  std::string message;  // substring
  int line, column;
};

class ErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorTest, ReportsLocatedError) {
  const ErrorCase& c = GetParam();
  ParseOptions options;
  options.file_name = "in.hlo";
  auto module = ParseHloModule(c.text, options);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  std::string message(module.status().message());
  std::string where =
      "in.hlo:" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": error: ";
  EXPECT_EQ(message.rfind(where, 0), 0u) << message;
  EXPECT_NE(message.find(c.message), std::string::npos) << message;
  // The source line and a caret under the column follow.
  size_t nl = message.find('\n');
  ASSERT_NE(nl, std::string::npos);
  size_t nl2 = message.find('\n', nl + 1);
  ASSERT_NE(nl2, std::string::npos);
  size_t nl3 = message.find('\n', nl2 + 1);
  EXPECT_EQ(message.substr(nl2 + 1, nl3 == std::string::npos ? nl3 : nl3 - nl2 - 1),
            std::string(c.column - 1, ' ') + "^")
      << message;
}

INSTANTIATE_TEST_SUITE_P(
    Parser, ErrorTest,
    ::testing::Values(
        ErrorCase{"Empty", "", "expects HloModule", 1, 1},
        ErrorCase{"UnknownOpcode", "HloModule m\nENTRY e {\n  ROOT x = f32[] frob(1)\n}",
                  "Unknown opcode: frob", 3, 18},
        ErrorCase{"UndefinedOperand",
                  "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT x = f32[] add(p, q)\n}",
                  "instruction does not exist: q", 4, 25},
        ErrorCase{"OperandCount",
                  "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT x = f32[] add(p)\n}",
                  "expects 2 operands, but has 1 operands", 4, 21},
        ErrorCase{"MissingAttribute",
                  "HloModule m\nENTRY e {\n  p = (f32[]) parameter(0)\n"
                  "  ROOT x = f32[] get-tuple-element(p)\n}",
                  "attribute index is expected but not seen", 4, 38},
        ErrorCase{"MissingParenBeforeAttribute",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT x = f32[2] reverse(p, dimensions={0}\n}",
                  "expects ')' at the end of operands, before attribute dimensions", 4, 30},
        ErrorCase{"UnknownOpcodeSuggestion",
                  "HloModule m\nENTRY e {\n  ROOT x = f32[] constnt(1)\n}",
                  "Unknown opcode: constnt (did you mean constant?)", 3, 18},
        ErrorCase{"UnknownAttributeSuggestion",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT x = f32[2] reverse(p), dimension={0}\n}",
                  "unknown attribute dimension (did you mean dimensions?)", 4, 31},
        ErrorCase{"UnexpectedCalledComputation",
                  "HloModule m\nc { ROOT a = f32[] parameter(0) }\nENTRY e {\n"
                  "  ROOT x = f32[] negate(f32[] parameter(0)), to_apply=c\n}",
                  "unexpected attribute \"to_apply\"", 4, 46},
        ErrorCase{"UnknownComputation",
                  "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n"
                  "  ROOT x = f32[] call(p), to_apply=nope\n}",
                  "computation does not exist: nope", 4, 36},
        ErrorCase{"DuplicateInstruction",
                  "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] parameter(1)\n}",
                  "instruction already exists: p", 4, 3},
        ErrorCase{"TwoRoots",
                  "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n"
                  "  ROOT q = f32[] parameter(1)\n}",
                  "only one ROOT", 4, 3},
        ErrorCase{"BadShape", "HloModule m\nENTRY e {\n  ROOT p = g32[] parameter(0)\n}",
                  "", 3, 12},
        ErrorCase{"OperandShapeMismatch",
                  "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                  "  ROOT x = f32[2] negate(f32[3] p)\n}",
                  "is not compatible with the shape of the operand instruction", 4, 33},
        ErrorCase{"UnterminatedComment", "HloModule m\n/* never closed\nENTRY e {}",
                  "unterminated", 2, 1},
        ErrorCase{"Truncated", "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)",
                  "expects '}' at the end of instruction list.", 3, 30},
        ErrorCase{"BadWindow",
                  "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
                  "  ROOT x = f32[4] reduce-window(p, p), window={size=2 pad=1}, to_apply=e\n}",
                  "expects padding_low and padding_high separated by '_'", 4, 59},
        ErrorCase{"UnknownDotAlgorithm",
                  "HloModule m\nENTRY e {\n  p = f32[2,2] parameter(0)\n"
                  "  ROOT d = f32[2,2] dot(p, p), lhs_contracting_dims={1}, "
                  "rhs_contracting_dims={0}, algorithm=dot_bf16_\n}",
                  "Unknown algorithm: dot_bf16_", 4, 94}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

TEST(ParserTest, ReportsSeveralErrorsAndSkipsTheirUses) {
  const char* text = R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  a = f32[2] frob(p)
  b = f32[2] add(a, p)
  c = f32[2] add(p, q)
  ROOT r = f32[2] add(p, p)
})";
  ParseOptions options;
  options.file_name = "f.hlo";
  auto module = ParseHloModule(text, options);
  ASSERT_FALSE(module.ok());
  std::string message(module.status().message());
  EXPECT_EQ(message.rfind("f.hlo:4:14: error: expects opcode but sees: frob", 0), 0u) << message;
  EXPECT_NE(message.find("f.hlo:6:21: error: instruction does not exist: q"), std::string::npos)
      << message;
  EXPECT_EQ(message.find("f.hlo:5:"), std::string::npos) << message;  // uses `a`: not reported

  options.max_errors = 1;
  auto first_only = ParseHloModule(text, options);
  ASSERT_FALSE(first_only.ok());
  EXPECT_EQ(std::string(first_only.status().message()).find("does not exist"), std::string::npos);
}

// One mistake, one error: no "expects '}'" after an unclosed operand list,
// nothing about a signature whose root failed to parse, nothing about the
// callers of a computation that failed.
TEST(ParserTest, NoFollowOnErrors) {
  auto errors = [](std::string_view text) {
    auto module = ParseHloModule(text);
    EXPECT_FALSE(module.ok());
    std::string message(module.status().message());
    int n = 0;
    for (size_t at = message.find(": error: "); at != std::string::npos;
         at = message.find(": error: ", at + 1)) {
      ++n;
    }
    return std::make_pair(n, message);
  };
  auto [n1, m1] = errors("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                         "  ROOT x = f32[2] add(p, p\n}\n");
  EXPECT_EQ(n1, 1) << m1;
  EXPECT_THAT(m1, ::testing::HasSubstr("expects ',' or ')' after operand"));
  auto [n2, m2] = errors("HloModule m\nc (a: f32[]) -> pred[] {\n  a = f32[] parameter(0)\n"
                         "  ROOT r = pred[] compar(a, a), direction=LT\n}\n"
                         "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = pred[] call(p), to_apply=c\n}\n");
  EXPECT_EQ(n2, 1) << m2;
  EXPECT_THAT(m2, ::testing::HasSubstr("(did you mean compare?)"));
  // A missing '}': the next computation is read as one, not as instructions.
  auto [n4, m4] = errors("HloModule m\nc (a: f32[]) -> f32[] {\n  ROOT a = f32[] parameter(0)\n"
                         "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=c\n}\n");
  EXPECT_EQ(n4, 1) << m4;
  EXPECT_THAT(m4, ::testing::HasSubstr("4:1: error: expects '}' to end computation c before the "
                                       "next computation"));
  // A second definition: one error, and a note where the first one is.
  auto [n5, m5] = errors("HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n"
                         "  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n");
  EXPECT_EQ(n5, 1) << m5;
  EXPECT_THAT(m5, ::testing::HasSubstr("3:3: note: instruction previously defined here"));
  // Two independent mistakes: both.
  auto [n3, m3] = errors("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                         "  a = f32[2] negat(p)\n  ROOT x = f32[2] reverse(p), dimension={0}\n}\n");
  EXPECT_EQ(n3, 2) << m3;
}

TEST(ParserTest, NearestNames) {
  EXPECT_EQ(NearestOpcodeName("compar"), "compare");
  EXPECT_EQ(NearestOpcodeName("get_tuple_element"), "get-tuple-element");
  EXPECT_EQ(NearestOpcodeName("frob"), std::nullopt);
  EXPECT_EQ(NearestAttributeName("dynamic_slice_size"), "dynamic_slice_sizes");
  EXPECT_EQ(NearestAttributeName("x"), std::nullopt);  // too short to guess
  EXPECT_EQ(NearestAttributeName("my_own_attribute"), std::nullopt);
}

TEST(ParserTest, DeepInputIsAnErrorNotACrash) {
  std::string text = "x = f32[] negate(";
  for (int i = 0; i < 100000; ++i) text += "negate(";
  auto module = ParseHloModule(text);
  ASSERT_FALSE(module.ok());
  EXPECT_NE(std::string(module.status().message()).find("maximum recursion depth exceeded"),
            std::string::npos);
}

}  // namespace
}  // namespace hlovm
