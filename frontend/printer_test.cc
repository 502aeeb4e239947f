// Printer tests on IR built in code. Expected texts are XLA's own output for
// the same modules (taken from XLA's parser round-trip tests). Last, the
// comments of parsed text printed where they were (SourceComments).
#include "frontend/printer.h"

#include <memory>
#include <string>
#include <utility>

#include "frontend/parser.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

Shape F32(std::vector<int64_t> dims) { return Shape(ElementType::kF32, std::move(dims)); }

HloInstruction* Add(HloComputation* c, HloOpcode op, std::string name, Shape shape,
                    std::vector<HloInstruction*> operands = {}) {
  auto instr = std::make_unique<HloInstruction>(op, std::move(name), std::move(shape));
  for (HloInstruction* o : operands) instr->AppendOperand(o);
  return c->AddInstruction(std::move(instr));
}

HloInstruction* Param(HloComputation* c, int64_t number, std::string name, Shape shape) {
  auto instr = std::make_unique<HloInstruction>(HloOpcode::kParameter, std::move(name),
                                                std::move(shape));
  instr->parameter_number = number;
  return c->AddInstruction(std::move(instr));
}

// XLA's AxpyParam test module, built in code.
std::unique_ptr<HloModule> AxpyModule() {
  auto module = std::make_unique<HloModule>("axpy_module");
  auto* c = module->AddComputation(std::make_unique<HloComputation>("axpy.v5"));
  c->set_is_entry(true);
  module->set_entry(c);
  auto* alpha = Param(c, 0, "alpha", F32({}));
  auto* broadcast = Add(c, HloOpcode::kBroadcast, "broadcast", F32({2, 4}), {alpha});
  auto* x = Param(c, 1, "x", F32({2, 4}));
  auto* multiply = Add(c, HloOpcode::kMultiply, "multiply", F32({2, 4}), {broadcast, x});
  auto* y = Param(c, 2, "y", F32({2, 4}));
  c->set_root(Add(c, HloOpcode::kAdd, "add", F32({2, 4}), {multiply, y}));
  return module;
}

TEST(PrinterTest, LongFormMatchesXla) {
  auto module = AxpyModule();
  EXPECT_EQ(PrintModule(*module, PrintOptions::Long()),
            "HloModule axpy_module, entry_computation_layout={(f32[], f32[2,4]{1,0}, "
            "f32[2,4]{1,0})->f32[2,4]{1,0}}\n\n"
            "ENTRY %axpy.v5 (alpha: f32[], x: f32[2,4], y: f32[2,4]) -> f32[2,4] {\n"
            "  %alpha = f32[] parameter(0)\n"
            "  %broadcast = f32[2,4]{1,0} broadcast(f32[] %alpha), dimensions={}\n"
            "  %x = f32[2,4]{1,0} parameter(1)\n"
            "  %multiply = f32[2,4]{1,0} multiply(f32[2,4]{1,0} %broadcast, f32[2,4]{1,0} %x)\n"
            "  %y = f32[2,4]{1,0} parameter(2)\n"
            "  ROOT %add = f32[2,4]{1,0} add(f32[2,4]{1,0} %multiply, f32[2,4]{1,0} %y)\n"
            "}\n\n");
}

TEST(PrinterTest, ShortParsableDropsPercentOperandShapesAndSignature) {
  auto module = AxpyModule();
  EXPECT_EQ(PrintModule(*module, PrintOptions::ShortParsable()),
            "HloModule axpy_module, entry_computation_layout={(f32[], f32[2,4]{1,0}, "
            "f32[2,4]{1,0})->f32[2,4]{1,0}}\n\n"
            "ENTRY axpy.v5 {\n"
            "  alpha = f32[] parameter(0)\n"
            "  broadcast = f32[2,4]{1,0} broadcast(alpha), dimensions={}\n"
            "  x = f32[2,4]{1,0} parameter(1)\n"
            "  multiply = f32[2,4]{1,0} multiply(broadcast, x)\n"
            "  y = f32[2,4]{1,0} parameter(2)\n"
            "  ROOT add = f32[2,4]{1,0} add(multiply, y)\n"
            "}\n\n");
}

TEST(PrinterTest, CanonicalInstructionPrintsOperandShapesOnly) {
  auto module = AxpyModule();
  const HloInstruction* multiply = module->entry()->instructions()[3].get();
  // XLA's CanonicalOp test input.
  EXPECT_EQ(PrintInstruction(*multiply, PrintOptions::Canonical()),
            "f32[2,4]{1,0} multiply(f32[2,4]{1,0}, f32[2,4]{1,0})");
}

TEST(PrinterTest, CanonicalComputationRenamesInstructions) {
  auto module = AxpyModule();
  EXPECT_EQ(PrintComputation(*module->entry(), PrintOptions::Canonical()),
            "ENTRY axpy.v5 {\n"
            "  tmp_0 = f32[] parameter(0)\n"
            "  tmp_1 = f32[2,4]{1,0} broadcast(f32[] tmp_0), dimensions={}\n"
            "  tmp_2 = f32[2,4]{1,0} parameter(1)\n"
            "  tmp_3 = f32[2,4]{1,0} multiply(f32[2,4]{1,0} tmp_1, f32[2,4]{1,0} tmp_2)\n"
            "  tmp_4 = f32[2,4]{1,0} parameter(2)\n"
            "  ROOT tmp_5 = f32[2,4]{1,0} add(f32[2,4]{1,0} tmp_3, f32[2,4]{1,0} tmp_4)\n"
            "} // axpy.v5");
}

TEST(PrinterTest, OperandIndexAnnotationsAndTupleShapes) {
  // XLA's LargeTupleRoundTrip test module.
  HloModule module("LargeTupleRoundTrip_module");
  auto* c = module.AddComputation(std::make_unique<HloComputation>("TupleCreate.v4"));
  c->set_is_entry(true);
  module.set_entry(c);
  auto* v = Param(c, 0, "v", F32({}));
  std::vector<Shape> shapes(6, F32({}));
  c->set_root(Add(c, HloOpcode::kTuple, "tuple", Shape::Tuple(shapes), {v, v, v, v, v, v}));
  EXPECT_EQ(PrintModule(module, PrintOptions::Long()),
            "HloModule LargeTupleRoundTrip_module, entry_computation_layout={(f32[])->(f32[], "
            "f32[], f32[], f32[], f32[], /*index=5*/f32[])}\n\n"
            "ENTRY %TupleCreate.v4 (v: f32[]) -> (f32[], f32[], f32[], f32[], f32[], "
            "/*index=5*/f32[]) {\n"
            "  %v = f32[] parameter(0)\n"
            "  ROOT %tuple = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(f32[] "
            "%v, f32[] %v, f32[] %v, f32[] %v, f32[] %v, /*index=5*/f32[] %v)\n"
            "}\n\n");
}

TEST(PrinterTest, ConstantsSmallLargeAndElided) {
  HloComputation c("c");
  auto scalar = std::make_unique<HloInstruction>(HloOpcode::kConstant, "constant", F32({}));
  auto lit = Literal::Create(F32({}));
  ASSERT_TRUE(lit.ok());
  lit->data<float>()[0] = 42.0f;
  scalar->literal = std::move(*lit);
  EXPECT_EQ(PrintInstruction(*scalar, PrintOptions::Default()),
            "%constant = f32[] constant(42)");

  auto big = std::make_unique<HloInstruction>(HloOpcode::kConstant, "big", F32({11}));
  auto big_lit = Literal::Create(F32({11}));
  ASSERT_TRUE(big_lit.ok());
  big->literal = std::move(*big_lit);
  EXPECT_EQ(PrintInstruction(*big, PrintOptions::Default()), "%big = f32[11]{0} constant({...})");
  EXPECT_EQ(PrintInstruction(*big, PrintOptions::Long()),
            "%big = f32[11]{0} constant({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})");
  big->literal->set_elided(true);
  EXPECT_EQ(PrintInstruction(*big, PrintOptions::Long()), "%big = f32[11]{0} constant({...})");
}

TEST(PrinterTest, TypedAttributesInXlaOrder) {
  HloComputation c("c");
  auto* p = Param(&c, 0, "p", F32({4, 8}));
  auto* q = Param(&c, 1, "q", F32({8, 16}));

  auto* dot = Add(&c, HloOpcode::kDot, "dot", F32({4, 16}), {p, q});
  dot->mutable_attrs().dot_dimension_numbers = DotDimensionNumbers{};
  dot->mutable_attrs().dot_dimension_numbers->lhs_contracting_dimensions = {1};
  dot->mutable_attrs().dot_dimension_numbers->rhs_contracting_dimensions = {0};
  dot->mutable_attrs().operand_precision = {"high", "default"};
  EXPECT_EQ(PrintInstruction(*dot, PrintOptions::ShortParsable()),
            "dot = f32[4,16]{1,0} dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
            "operand_precision={high,default}");

  auto* slice = Add(&c, HloOpcode::kSlice, "slice", F32({2, 4}), {p});
  slice->slice = SliceAttr{{0, 0}, {4, 8}, {2, 2}};
  slice->slice->strides = {2, 2};
  slice->slice->starts = {0, 0};
  slice->slice->limits = {4, 8};
  EXPECT_EQ(PrintInstruction(*slice, PrintOptions::ShortParsable()),
            "slice = f32[2,4]{1,0} slice(p), slice={[0:4:2], [0:8:2]}");

  auto* compare =
      Add(&c, HloOpcode::kCompare, "compare", Shape(ElementType::kPred, {4, 8}), {p, p});
  compare->comparison_direction = ComparisonDirection::kLt;
  compare->comparison_type = ComparisonType::kTotalOrder;
  EXPECT_EQ(PrintInstruction(*compare, PrintOptions::ShortParsable()),
            "compare = pred[4,8]{1,0} compare(p, p), direction=LT, type=TOTALORDER");

  auto* pad = Add(&c, HloOpcode::kPad, "pad", F32({6, 17}), {p, p});
  pad->mutable_attrs().padding = PaddingConfig{{1, 1, 0}, {0, 2, 1}};
  EXPECT_EQ(PrintInstruction(*pad, PrintOptions::ShortParsable()),
            "pad = f32[6,17]{1,0} pad(p, p), padding=1_1_0x0_2_1");
}

TEST(PrinterTest, ConvolutionWindowAndDimLabels) {
  HloComputation c("c");
  Shape in = F32({1, 2, 2, 1});
  auto* input = Param(&c, 0, "input", in);
  auto* filter = Param(&c, 1, "filter", F32({1, 1, 1, 1}));
  auto* conv = Add(&c, HloOpcode::kConvolution, "convolution", in, {input, filter});
  conv->mutable_attrs().window = Window(2);
  (*conv->mutable_attrs().window)[0].padding_low = 1;
  (*conv->mutable_attrs().window)[1].stride = 2;
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 3;
  d.input_spatial_dimensions = {1, 2};
  d.kernel_spatial_dimensions = {0, 1};
  d.kernel_input_feature_dimension = 2;
  d.kernel_output_feature_dimension = 3;
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 3;
  d.output_spatial_dimensions = {1, 2};
  conv->mutable_attrs().convolution_dimension_numbers = d;
  conv->mutable_attrs().feature_group_count = 2;
  EXPECT_EQ(PrintInstruction(*conv, PrintOptions::ShortParsable()),
            "convolution = f32[1,2,2,1]{3,2,1,0} convolution(input, filter), "
            "window={size=1x1 stride=1x2 pad=1_0x0_0}, dim_labels=b01f_01io->b01f, "
            "feature_group_count=2");
}

TEST(PrinterTest, CalledComputationsAndControlPredecessors) {
  HloModule module("m");
  auto* add = module.AddComputation(std::make_unique<HloComputation>("add"));
  {
    auto* a = Param(add, 0, "a", F32({}));
    auto* b = Param(add, 1, "b", F32({}));
    add->set_root(Add(add, HloOpcode::kAdd, "sum", F32({}), {a, b}));
  }
  auto* entry = module.AddComputation(std::make_unique<HloComputation>("main"));
  entry->set_is_entry(true);
  module.set_entry(entry);
  auto* p = Param(entry, 0, "p", F32({8}));
  auto* zero = Add(entry, HloOpcode::kConstant, "zero", F32({}));
  zero->literal = std::move(*Literal::Create(F32({})));
  auto* reduce = Add(entry, HloOpcode::kReduce, "reduce", F32({}), {p, zero});
  reduce->dimensions = {0};
  reduce->AppendCalledComputation(add);
  reduce->AddControlPredecessor(zero);
  entry->set_root(reduce);
  EXPECT_EQ(PrintInstruction(*reduce, PrintOptions::Default()),
            "%reduce = f32[] reduce(f32[8]{0} %p, f32[] %zero), dimensions={0}, to_apply=%add, "
            "control-predecessors={%zero}");
  EXPECT_EQ(PrintInstruction(*reduce, PrintOptions::ShortParsable()),
            "reduce = f32[] reduce(p, zero), dimensions={0}, to_apply=add");
}

TEST(PrinterTest, RawAttributesKeepWrittenOrder) {
  HloModule module("m");
  auto* callee = module.AddComputation(std::make_unique<HloComputation>("callee"));
  Param(callee, 0, "x", F32({}));
  callee->set_root(callee->instructions()[0].get());
  HloComputation c("c");
  auto* p = Param(&c, 0, "p", F32({}));
  auto* call = Add(&c, HloOpcode::kCall, "call", F32({}), {p});
  call->AppendCalledComputation(callee);
  call->set_location(SourceLocation{10, 2, 3});
  call->raw_attributes() = {{"metadata", "{op_name=\"x\"}"},
                            {"to_apply", "%callee"},
                            {"frontend_attributes", "{a=\"b\",\n   c=\"d\"}"}};
  EXPECT_EQ(PrintInstruction(*call, PrintOptions::Default()),
            "%call = f32[] call(f32[] %p), metadata={op_name=\"x\"}, to_apply=%callee, "
            "frontend_attributes={a=\"b\", c=\"d\"}");
  EXPECT_EQ(PrintInstruction(*call, PrintOptions::ShortParsable()),
            "call = f32[] call(p), to_apply=callee, frontend_attributes={a=\"b\", c=\"d\"}");
}

TEST(PrinterTest, AttributesXlaAlwaysPrintsAreAddedInItsOrder) {
  HloComputation c("c");
  auto* a = Param(&c, 0, "a", F32({4}));
  auto* gather = Add(&c, HloOpcode::kAllGather, "b", F32({32}), {a});
  gather->set_location(SourceLocation{0, 2, 3});
  gather->dimensions = {0};
  gather->raw_attributes() = {{"dimensions", "{0}"}};
  EXPECT_EQ(PrintInstruction(*gather, PrintOptions::ShortParsable()),
            "b = f32[32]{0} all-gather(a), replica_groups={}, dimensions={0}");

  auto* scalar = Param(&c, 1, "s", F32({}));
  auto* broadcast = Add(&c, HloOpcode::kBroadcast, "broadcast.anon", F32({10, 10}), {scalar});
  broadcast->set_location(SourceLocation{0, 3, 3});
  // XLA's BroadcastOfScalarDoesntNeedDimensionsAttr expectation.
  EXPECT_EQ(PrintInstruction(*broadcast, PrintOptions::ShortParsable()),
            "broadcast.anon = f32[10,10]{1,0} broadcast(s), dimensions={}");
}

TEST(PrinterTest, IncompleteInstructionsDoNotCrash) {
  HloComputation c("c");
  auto* add = Add(&c, HloOpcode::kAdd, "add", F32({}));
  add->AppendOperand(nullptr);
  add->AppendCalledComputation(nullptr);
  add->AddControlPredecessor(nullptr);
  // A missing operand prints as XLA prints one, and nothing else breaks.
  EXPECT_EQ(
      PrintInstruction(*add, PrintOptions::ShortParsable()).rfind("add = f32[] add(null )", 0), 0u);
  auto* start = Add(&c, HloOpcode::kAsyncStart, "start", Shape::Tuple({}), {nullptr});
  start->AppendCalledComputation(nullptr);
  EXPECT_EQ(PrintInstruction(*start, PrintOptions::ShortParsable())
                .rfind("start = () async-start(null )", 0),
            0u);
}

TEST(PrinterTest, NormalizeAttributeValueKeepsStrings) {
  EXPECT_EQ(NormalizeAttributeValue("  {a=\"x  y\"\n\t b=1}  "), "{a=\"x  y\" b=1}");
  EXPECT_EQ(NormalizeAttributeValue("\"esc \\\" q  \""), "\"esc \\\" q  \"");
}

TEST(PrinterTest, ShapesWithoutLayoutGetTheDefault) {
  Shape s = Shape::Tuple({F32({2, 3}), Shape(ElementType::kS32, {})});
  EXPECT_EQ(PrintShape(s), "(f32[2,3]{1,0}, s32[])");
  EXPECT_EQ(PrintShape(s, /*with_layout=*/false), "(f32[2,3], s32[])");
}

TEST(PrinterTest, StackFrameIndexFollowsTheHeader) {
  // XLA's StackFrameIndex test module.
  HloModule module("m");
  auto* c = module.AddComputation(std::make_unique<HloComputation>("constant_pred"));
  c->set_is_entry(true);
  module.set_entry(c);
  auto* k = Add(c, HloOpcode::kConstant, "constant", Shape(ElementType::kPred, {}));
  auto lit = Literal::Create(Shape(ElementType::kPred, {}));
  ASSERT_TRUE(lit.ok());
  lit->data<uint8_t>()[0] = 1;
  k->literal = std::move(*lit);
  c->set_root(k);
  StackFrameIndex index;
  index.file_names = {"<embedded module>", "yet/another/test.py"};
  index.function_names = {"main", "method"};
  index.file_locations = {{1, 1, 153, 153, 2, 31}, {2, 2, 35, 35, 2, 24}};
  index.stack_frames = {{1, 1}, {2, 2}};
  module.stack_frame_index = index;
  const std::string header =
      "HloModule m, entry_computation_layout={()->pred[]}\n\n"
      "FileNames\n1 \"<embedded module>\"\n2 \"yet/another/test.py\"\n\n"
      "FunctionNames\n1 \"main\"\n2 \"method\"\n\n"
      "FileLocations\n"
      "1 {file_name_id=1 function_name_id=1 line=153 end_line=153 column=2 end_column=31}\n"
      "2 {file_name_id=2 function_name_id=2 line=35 end_line=35 column=2 end_column=24}\n\n"
      "StackFrames\n1 {file_location_id=1 parent_frame_id=1}\n"
      "2 {file_location_id=2 parent_frame_id=2}\n\n\n";
  EXPECT_EQ(PrintModule(module, PrintOptions::Long()),
            header + "ENTRY %constant_pred () -> pred[] {\n"
                     "  ROOT %constant = pred[] constant(true)\n}\n\n");
  // Without metadata the index is left out.
  PrintOptions no_metadata = PrintOptions::Long();
  no_metadata.print_metadata = false;
  EXPECT_EQ(PrintModule(module, no_metadata).find("FileNames"), std::string::npos);
}

TEST(PrinterTest, PostOrderPutsOperandsFirstAndKeepsWrittenOrderWhenScheduled) {
  HloModule module("m");
  auto* c = module.AddComputation(std::make_unique<HloComputation>("main"));
  c->set_is_entry(true);
  module.set_entry(c);
  // Written with the use before the definition of its second operand.
  auto* p = Param(c, 0, "p", F32({}));
  auto* neg = std::make_unique<HloInstruction>(HloOpcode::kNegate, "neg", F32({})).release();
  auto* add = Add(c, HloOpcode::kAdd, "add", F32({}), {p});
  add->AppendOperand(neg);
  neg->AppendOperand(p);
  c->AddInstruction(std::unique_ptr<HloInstruction>(neg));
  c->set_root(add);
  PrintOptions options = PrintOptions::ShortParsable();
  EXPECT_EQ(PrintComputation(*c, options),
            "ENTRY main {\n  p = f32[] parameter(0)\n  neg = f32[] negate(p)\n"
            "  ROOT add = f32[] add(p, neg)\n}");
  module.is_scheduled = true;
  EXPECT_EQ(PrintComputation(*c, options),
            "ENTRY main {\n  p = f32[] parameter(0)\n  ROOT add = f32[] add(p, neg)\n"
            "  neg = f32[] negate(p)\n}");
}

TEST(PrinterTest, CompactGteNamesTupleElementsInPlace) {
  HloComputation c("c");
  Shape tuple = Shape::Tuple({F32({10}), Shape::Tuple({F32({20}), F32({30})})});
  auto* p0 = Param(&c, 0, "p0", tuple);
  auto* g1 = Add(&c, HloOpcode::kGetTupleElement, "p0_1", tuple.tuple_shape(1), {p0});
  g1->tuple_index = 1;
  auto* g10 = Add(&c, HloOpcode::kGetTupleElement, "p0_1_0", F32({20}), {g1});
  g10->tuple_index = 0;
  c.set_root(Add(&c, HloOpcode::kAdd, "root", F32({20}), {g10, g10}));
  PrintOptions options = PrintOptions::ShortParsable();
  options.compact_gte = true;
  options.print_operand_shape = true;
  options.print_percent = true;
  // XLA's NestedCompactGte round-trip text.
  EXPECT_EQ(PrintComputation(c, options),
            "%c {\n  %p0 = (f32[10]{0}, (f32[20]{0}, f32[30]{0})) parameter(0)\n"
            "  ROOT %root = f32[20]{0} add(f32[20]{0} %p0#1#0, f32[20]{0} %p0#1#0)\n}");
}

TEST(SourceCommentsTest, CommentsStayWithWhatTheyPrecedeOrEnd) {
  const std::string text = R"(// Header, line one.
// Header, line two.

HloModule m

/* Sums. */
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)  // the sum
}

ENTRY %main {
  %p = f32[2] parameter(0)
  // zero

  // still zero
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add
}
// The end.
)";
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  SourceComments comments(text, **module);
  EXPECT_EQ(comments.count(), 7);
  PrintOptions options = PrintOptions::ShortParsable();
  options.comments = &comments;
  const std::string printed = PrintModule(**module, options);
  EXPECT_EQ(comments.placed(), 7);
  EXPECT_EQ(printed, R"(// Header, line one.
// Header, line two.

HloModule m, entry_computation_layout={(f32[2]{0})->f32[]}

/* Sums. */
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) // the sum
}

ENTRY main {
  p = f32[2]{0} parameter(0)
  // zero

  // still zero
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}

// The end.
)");
  // The printed text keeps them all again, at the same places.
  auto again = ParseHloModule(printed);
  ASSERT_TRUE(again.ok()) << again.status();
  SourceComments kept(printed, **again);
  options.comments = &kept;
  EXPECT_EQ(PrintModule(**again, options), printed);
}

TEST(SourceCommentsTest, PrinterAnnotationsAreNotComments) {
  const std::string text =
      "HloModule m\nENTRY e {\n  ROOT c = f32[2,2] constant({ { /*i0=0*/ 1, 2 }, { /*i0=1*/ 3, 4 } "
      "})\n}\n";
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(SourceComments(text, **module).count(), 0);
}

}  // namespace
}  // namespace hlovm
