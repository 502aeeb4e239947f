// Tests of the StableHLO frontend: the IR each form becomes, dense literals,
// regions, errors with their locations, and prefixes of real programs
// (every prefix gives a module or a located error, never a crash).
//
// The prefix sweep reads ../shared/conformance/stablehlo-mlir (or
// $HLOVM_SHARED/conformance/stablehlo-mlir) when it exists: a sample of the
// programs by default, every program with HLOVM_STABLEHLO_SWEEP=1
// (scripts/stablehlo_prefix_sweep.sh): all prefixes of each program up to
// 32 KiB, about 4000 of each larger one.
#include "frontend/stablehlo/stablehlo_parser.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/parser.h"
#include "frontend/printer.h"
#include "frontend/verifier.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

namespace fs = std::filesystem;

std::string Message(const absl::Status& status) {
  return std::string(status.message().data(), status.message().size());
}

std::unique_ptr<HloModule> ParseOk(const std::string& text) {
  ParseOptions options;
  options.file_name = "t.mlir";
  auto module = ParseStableHloModule(text, options);
  EXPECT_TRUE(module.ok()) << Message(module.status());
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << Message(verified) << "\n" << PrintModule(**module);
  return *std::move(module);
}

std::string ParseError(const std::string& text) {
  ParseOptions options;
  options.file_name = "t.mlir";
  auto module = ParseStableHloModule(text, options);
  EXPECT_FALSE(module.ok());
  return module.ok() ? "" : Message(module.status());
}

// The entry's instructions of `opcode`.
std::vector<const HloInstruction*> Find(const HloModule& m, HloOpcode opcode) {
  std::vector<const HloInstruction*> out;
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode() == opcode) out.push_back(i.get());
    }
  }
  return out;
}

TEST(StableHloParser, PrettyAndGenericFormsAreOneIr) {
  auto pretty = ParseOk(R"(
module {
  func.func public @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2xf32>
    %1 = stablehlo.compare  LT, %0, %b,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %2 = stablehlo.select %1, %0, %b : tensor<2xi1>, tensor<2xf32>
    return %2 : tensor<2xf32>
  }
})");
  auto generic = ParseOk(R"(
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "stablehlo.compare"(%0, %b) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %2 = "stablehlo.select"(%1, %0, %b) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "func.return"(%2) : (tensor<2xf32>) -> ()
})");
  ASSERT_NE(pretty, nullptr);
  ASSERT_NE(generic, nullptr);
  EXPECT_EQ(PrintModule(*pretty, PrintOptions::Canonical()),
            PrintModule(*generic, PrintOptions::Canonical()));
  auto compares = Find(*pretty, HloOpcode::kCompare);
  ASSERT_EQ(compares.size(), 1u);
  EXPECT_EQ(compares[0]->comparison_direction, ComparisonDirection::kLt);
  EXPECT_EQ(compares[0]->comparison_type, ComparisonType::kFloat);
  EXPECT_EQ(pretty->entry()->parameter_count(), 2);
}

TEST(StableHloParser, DenseLiterals) {
  auto m = ParseOk(R"(
func.func @main() -> () {
  %0 = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %1 = stablehlo.constant dense<7> : tensor<3xui8>
  %2 = stablehlo.constant dense<"0x003C0040"> : tensor<2xf16>
  %3 = stablehlo.constant dense<"0x0000803F"> : tensor<4xf32>
  %4 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %5 = stablehlo.constant dense<[(1.5,-2.0), (0x7F800000,0.0)]> : tensor<2xcomplex<f32>>
  %6 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %7 = stablehlo.constant dense<"0x010001"> : tensor<3xi1>
  %8 = stablehlo.constant dense<[1.000000e+00, 0xFFC00000, -0.000000e+00]> : tensor<3xf32>
  %9 = stablehlo.constant dense<> : tensor<0xf32>
  %10 = stablehlo.constant dense<-128> : tensor<i8>
  return
})");
  ASSERT_NE(m, nullptr);
  auto constants = Find(*m, HloOpcode::kConstant);
  ASSERT_EQ(constants.size(), 11u);
  auto lit = [&](int i) -> const Literal& { return *constants[i]->literal; };
  EXPECT_EQ(lit(0).data<int32_t>()[1], -2);
  EXPECT_EQ(lit(0).data<int32_t>()[3], 4);
  EXPECT_EQ(lit(1).GetAsDouble(2), 7);
  EXPECT_EQ(lit(2).GetAsDouble(0), 1.0);
  EXPECT_EQ(lit(2).GetAsDouble(1), 2.0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(lit(3).data<float>()[i], 1.0f);
  EXPECT_EQ(lit(4).GetAsDouble(1), 0);
  EXPECT_EQ(lit(4).GetAsDouble(2), 1);
  EXPECT_EQ(lit(5).data<std::complex<float>>()[0], std::complex<float>(1.5f, -2.0f));
  EXPECT_TRUE(std::isinf(lit(5).data<std::complex<float>>()[1].real()));
  EXPECT_EQ(lit(6).data<uint64_t>()[0], UINT64_MAX);
  EXPECT_EQ(lit(7).GetAsDouble(1), 0);
  EXPECT_EQ(lit(7).GetAsDouble(2), 1);
  uint32_t bits = 0;
  std::memcpy(&bits, &lit(8).data<float>()[1], 4);
  EXPECT_EQ(bits, 0xFFC00000u);
  std::memcpy(&bits, &lit(8).data<float>()[2], 4);
  EXPECT_EQ(bits, 0x80000000u);
  EXPECT_EQ(lit(9).shape().element_count(), 0);
  EXPECT_EQ(lit(10).data<int8_t>()[0], -128);
}

TEST(StableHloParser, BadDenseLiterals) {
  EXPECT_NE(ParseError("func.func @main() -> () {\n  %0 = stablehlo.constant dense<256> : "
                       "tensor<ui8>\n  return\n}")
                .find("out of range"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @main() -> () {\n  %0 = stablehlo.constant dense<[1, 2]> : "
                       "tensor<3xi32>\n  return\n}")
                .find("does not match"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @main() -> () {\n  %0 = stablehlo.constant dense<\"0x0001\"> : "
                       "tensor<3xi8>\n  return\n}")
                .find("bytes"),
            std::string::npos);
  EXPECT_NE(ParseError("func.func @main() -> () {\n  %0 = stablehlo.constant dense<1.5> : "
                       "tensor<i32>\n  return\n}")
                .find("floating-point value for an integer"),
            std::string::npos);
}

TEST(StableHloParser, RegionsAndMultipleResults) {
  auto m = ParseOk(R"(
module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4x3xf32>, %i: tensor<4x3xi32>) -> (tensor<3xf32>, tensor<3xi32>, tensor<4xf32>, tensor<i64>) {
    %cst = stablehlo.constant dense<0.0> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.reduce(%x init: %cst), (%i init: %c) across dimensions = [0] : (tensor<4x3xf32>, tensor<4x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%p: tensor<i32>, %q: tensor<i32>)  {
      %s = stablehlo.add %a, %b : tensor<f32>
      %t = stablehlo.add %p, %q : tensor<i32>
      stablehlo.return %s, %t : tensor<f32>, tensor<i32>
    }
    %1 = stablehlo.reduce(%x init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %five = stablehlo.constant dense<5> : tensor<i64>
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %limit = stablehlo.add %five, %zero : tensor<i64>
    %2 = stablehlo.while(%it = %zero) : tensor<i64>
     cond {
      %lt = stablehlo.compare  LT, %it, %limit,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i64>
      %next = stablehlo.add %it, %one : tensor<i64>
      stablehlo.return %next : tensor<i64>
    }
    return %0#0, %0#1, %1, %2 : tensor<3xf32>, tensor<3xi32>, tensor<4xf32>, tensor<i64>
  }
})");
  ASSERT_NE(m, nullptr);
  auto reduces = Find(*m, HloOpcode::kReduce);
  ASSERT_EQ(reduces.size(), 2u);
  EXPECT_TRUE(reduces[0]->shape().IsTuple());
  EXPECT_EQ(reduces[0]->to_apply()->parameter_count(), 4);
  EXPECT_EQ(reduces[1]->dimensions, std::vector<int64_t>({1}));
  auto loops = Find(*m, HloOpcode::kWhile);
  ASSERT_EQ(loops.size(), 1u);
  // %limit is read from outside the loop: it is carried as a second element.
  EXPECT_EQ(loops[0]->shape().tuple_size(), 2);
  EXPECT_TRUE(m->entry()->root()->shape().IsTuple());
}

TEST(StableHloParser, CallsAndChecks) {
  auto m = ParseOk(R"(
module @jit_main {
  func.func public @main() -> (tensor<2xf32> {jax.result_info = ""}) {
    %0:2 = call @inputs() : () -> (tensor<2xf32>, tensor<2xf32>)
    %1 = chlo.tan %0#0 : tensor<2xf32> -> tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%1, %0#1) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    stablehlo.custom_call @check.expect_almost_eq(%1, %0#1) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %1 : tensor<2xf32>
  }
  func.func private @inputs() -> (tensor<2xf32>, tensor<2xf32>) {
    %cst = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    return %cst, %cst : tensor<2xf32>, tensor<2xf32>
  }
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "jit_main");
  EXPECT_EQ(m->entry()->name(), "main");
  auto calls = Find(*m, HloOpcode::kCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->to_apply()->name(), "inputs");
  EXPECT_EQ(Find(*m, HloOpcode::kTan).size(), 1u);
  auto checks = Find(*m, HloOpcode::kCustomCall);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0]->attrs().custom_call_target, "check.expect_close");
  EXPECT_TRUE(checks[0]->attrs().custom_call_has_side_effect);
  EXPECT_EQ(checks[0]->attrs().backend_config, "{\"max_ulp_difference\":3,\"min_ulp_difference\":0}");
  EXPECT_EQ(checks[1]->attrs().backend_config, "{\"tolerance\":0.001}");
  // The HLO text printed from it parses and verifies.
  std::string hlo = PrintModule(*m);
  auto again = ParseHloModule(hlo);
  ASSERT_TRUE(again.ok()) << Message(again.status()) << "\n" << hlo;
  EXPECT_TRUE(VerifyModule(**again).ok());
}

TEST(StableHloParser, CompositeCallsItsDecomposition) {
  auto m = ParseOk(R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.composite "my.double" %x {composite_attributes = {factor = 2 : i64}, decomposition = @double, version = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "stablehlo.composite"(%0) <{name = "my.double", decomposition = @double}> : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @double(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
})");
  ASSERT_NE(m, nullptr);
  auto calls = Find(*m, HloOpcode::kCall);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1]->to_apply()->name(), "double");
}

TEST(StableHloParser, AttributesOfShapeOps) {
  auto m = ParseOk(R"(
func.func @main(%x: tensor<2x3xf32>, %i: tensor<1xi32>) -> () {
  %0 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.slice %x [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %3 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %4 = stablehlo.pad %x, %cst, low = [1, 0], high = [0, 1], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  %5 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %6 = stablehlo.dot_general %x, %1, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %7 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, slice_sizes = array<i64: 2, 1>, indices_are_sorted = true}> : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<2xf32>
  %8 = stablehlo.reduce_precision %x, format = e5m10 : tensor<2x3xf32>
  %9 = stablehlo.broadcast_in_dim %i, dims = [1] : (tensor<1xi32>) -> tensor<2x3xi32>
  return
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, HloOpcode::kTranspose)[0]->dimensions, std::vector<int64_t>({1, 0}));
  const HloInstruction* slice = Find(*m, HloOpcode::kSlice)[0];
  EXPECT_EQ(slice->slice->strides, std::vector<int64_t>({1, 2}));
  EXPECT_EQ(Find(*m, HloOpcode::kIota)[0]->iota_dimension, 1);
  EXPECT_EQ((*Find(*m, HloOpcode::kPad)[0]->attrs().padding)[0].interior, 1);
  const HloInstruction* dot = Find(*m, HloOpcode::kDot)[0];
  EXPECT_EQ(dot->attrs().dot_dimension_numbers->lhs_contracting_dimensions, std::vector<int64_t>({1}));
  EXPECT_EQ(dot->attrs().operand_precision, std::vector<std::string>({"default", "highest"}));
  const HloInstruction* gather = Find(*m, HloOpcode::kGather)[0];
  EXPECT_TRUE(gather->attrs().indices_are_sorted);
  EXPECT_EQ(gather->attrs().gather_slice_sizes, std::vector<int64_t>({2, 1}));
  EXPECT_EQ(Find(*m, HloOpcode::kReducePrecision)[0]->attrs().mantissa_bits, 10);
  // A size-1 dimension stretched by broadcast_in_dim is reshaped away first.
  EXPECT_EQ(Find(*m, HloOpcode::kReshape).size(), 1u);
}

// The chlo ops without an HLO opcode become XLA's elementwise
// decompositions: no chlo op survives, f16 is computed in f32.
TEST(StableHloParser, ChloOpsBecomeElementwiseDecompositions) {
  auto m = ParseOk(
      "func.func @main(%x: tensor<3xf16>, %y: tensor<3xf32>) -> (tensor<3xf16>, tensor<3xf32>) {\n"
      "  %0 = chlo.lgamma %x : tensor<3xf16> -> tensor<3xf16>\n"
      "  %1 = chlo.next_after %y, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n"
      "  return %0, %1 : tensor<3xf16>, tensor<3xf32>\n}");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, HloOpcode::kConvert).size(), 2u);  // f16 -> f32 -> f16
  EXPECT_FALSE(Find(*m, HloOpcode::kLog1p).empty());
  EXPECT_EQ(Find(*m, HloOpcode::kBitcastConvert).size(), 4u);  // x, y, nan, result
  EXPECT_EQ(Find(*m, HloOpcode::kCustomCall).size(), 0u);

  std::string message = ParseError(
      "func.func @main(%x: tensor<3xi32>) -> () {\n"
      "  %0 = chlo.erfc %x : tensor<3xi32> -> tensor<3xi32>\n  return\n}");
  EXPECT_NE(message.find("t.mlir:2:8: error: 'chlo.erfc' does not take s32 operands"),
            std::string::npos)
      << message;
  message = ParseError(
      "func.func @main(%x: tensor<3xf32>) -> () {\n"
      "  %0 = chlo.zeta %x : tensor<3xf32> -> tensor<3xf32>\n  return\n}");
  EXPECT_NE(message.find("'chlo.zeta' takes 2 operand(s), has 1"), std::string::npos) << message;
  message = ParseError(
      "func.func @main(%x: tensor<3xf32>) -> () {\n"
      "  %0 = chlo.digamma %x : tensor<3xf32> -> tensor<2xf32>\n  return\n}");
  EXPECT_NE(message.find("result type differs"), std::string::npos) << message;
}

TEST(StableHloParser, ErrorsNameFileLineAndColumn) {
  std::string message = ParseError("module {\n  func.func @main() -> () {\n    %0 = stablehlo.frobnicate %x : tensor<f32>\n    return\n  }\n}");
  EXPECT_NE(message.find("t.mlir:3:10: error: unsupported operation 'stablehlo.frobnicate'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("\n    %0 = stablehlo.frobnicate"), std::string::npos) << message;
  EXPECT_NE(message.find("\n         ^"), std::string::npos) << message;

  message = ParseError("func.func @main() -> () {\n  %0 = \"stablehlo.frobnicate\"() : () -> tensor<f32>\n  return\n}");
  EXPECT_NE(message.find("unsupported operation 'stablehlo.frobnicate'"), std::string::npos) << message;
  message = ParseError("func.func @main() -> () {\n  %0 = arith.constant 1 : i32\n  return\n}");
  EXPECT_NE(message.find("unknown dialect 'arith'"), std::string::npos) << message;
  message = ParseError("func.func @main(%a: tensor<?xf32>) -> () {\n  return\n}");
  EXPECT_NE(message.find("dynamic dimensions"), std::string::npos) << message;
  message = ParseError(
      "func.func @main(%a: tensor<2x!quant.uniform<i8:f32, 1.0>>) -> () {\n  return\n}");
  EXPECT_NE(message.find("quantized"), std::string::npos) << message;
  message = ParseError("func.func @main() -> tensor<f32> {\n  return %nope : tensor<f32>\n}");
  EXPECT_NE(message.find("t.mlir:2:10: error: use of undefined value %nope"), std::string::npos)
      << message;
  message = ParseError("func.func @main() -> () {\n  %0 = call @missing() : () -> tensor<f32>\n  return\n}");
  EXPECT_NE(message.find("undefined function @missing"), std::string::npos) << message;
}

TEST(StableHloParser, Detection) {
  EXPECT_TRUE(LooksLikeStableHlo("HloModule m", "x.mlir"));
  EXPECT_TRUE(LooksLikeStableHlo("// c\nmodule @jit_f attributes {} {}"));
  EXPECT_TRUE(LooksLikeStableHlo("module {\n}"));
  EXPECT_TRUE(LooksLikeStableHlo("  func.func @main() {}"));
  EXPECT_TRUE(LooksLikeStableHlo("#loc = loc(unknown)\nmodule {}"));
  EXPECT_FALSE(LooksLikeStableHlo("HloModule m\nENTRY e {}"));
  EXPECT_FALSE(LooksLikeStableHlo("module (p: f32[]) -> f32[] { ROOT p = f32[] parameter(0) }"));
  EXPECT_FALSE(LooksLikeStableHlo("modules"));
  // ParseHloModule hands StableHLO text to this frontend.
  auto module = ParseHloModule("func.func @main() -> tensor<i32> {\n  %c = stablehlo.constant dense<1> : tensor<i32>\n  return %c : tensor<i32>\n}");
  ASSERT_TRUE(module.ok()) << Message(module.status());
  EXPECT_EQ((*module)->entry()->root()->opcode(), HloOpcode::kConstant);
}

//===----------------------------------------------------------------------===//
// Prefixes: every prefix gives a module or a located error.
//===----------------------------------------------------------------------===//

const char* kSample = R"(// RUN: x
module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<3xf32> {jax.result_info = ""}) {
    %0:2 = call @inputs() : () -> (tensor<3xf32>, tensor<1x1xi32>)
    %c = stablehlo.constant dense<[[0], [1]]> : tensor<2x1xi32>
    %1 = "stablehlo.scatter"(%0#0, %0#1, %0#0) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
      %3 = stablehlo.add %arg0, %arg1 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<3xf32>, tensor<1x1xi32>, tensor<3xf32>) -> tensor<3xf32>
    %2 = "stablehlo.sort"(%1) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %4 = stablehlo.compare  LT, %a, %b,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    }) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.custom_call @check.expect_eq(%2, %0#0) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %2 : tensor<3xf32>
  }
  func.func private @inputs() -> (tensor<3xf32> {mhlo.layout_mode = "default"}, tensor<1x1xi32>) {
    %cst = stablehlo.constant dense<[1.000000e+00, 0x7FC00000, -2.5]> : tensor<3xf32>
    %c = stablehlo.constant dense<"0x01000000"> : tensor<1x1xi32>
    return %cst, %c : tensor<3xf32>, tensor<1x1xi32>
  }
}
)";

// Parses every prefix of `text` at `step` (1: all); returns how many parsed.
int64_t SweepPrefixes(const std::string& text, const std::string& name, size_t step) {
  int64_t parsed = 0;
  ParseOptions options;
  options.file_name = name;
  for (size_t cut = 0; cut <= text.size(); cut += step) {
    std::string_view prefix(text.data(), cut);
    auto module = ParseStableHloModule(prefix, options);
    if (module.ok()) {
      ++parsed;
      absl::Status verified = VerifyModule(**module);  // may fail; must not crash
      (void)verified;
      continue;
    }
    const std::string message = Message(module.status());
    EXPECT_EQ(message.rfind(name + ":", 0), 0u) << name << " cut at " << cut << ": " << message;
    EXPECT_NE(message.find(": error: "), std::string::npos) << name << " cut at " << cut;
  }
  return parsed;
}

TEST(StableHloParser, EveryPrefixOfASampleFailsCleanly) {
  const std::string text = kSample;
  // Only the whole text (and the text missing its last newline) is a module.
  EXPECT_EQ(SweepPrefixes(text, "sample.mlir", 1), 2);
}

TEST(StableHloParser, PrefixesOfTheConformancePrograms) {
  const char* shared = std::getenv("HLOVM_SHARED");
  fs::path dir = fs::path(shared != nullptr ? shared : "../shared") / "conformance/stablehlo-mlir";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " not found";
  const bool full = std::getenv("HLOVM_STABLEHLO_SWEEP") != nullptr;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".mlir") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  int64_t programs = 0;
  for (size_t i = 0; i < files.size(); i += full ? 1 : 97) {
    std::ifstream in(files[i], std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    // Every prefix of programs up to 32 KiB in the full sweep (all but 22 of
    // them); of larger ones, and in the sample, about 4000 spread out.
    const size_t step =
        full && text.size() <= 32768 ? 1 : std::max<size_t>(1, text.size() / 4000);
    SweepPrefixes(text, files[i].filename().string(), step);
    ++programs;
  }
  std::printf("prefix sweep: %lld programs\n", static_cast<long long>(programs));
}

}  // namespace
}  // namespace hlovm
