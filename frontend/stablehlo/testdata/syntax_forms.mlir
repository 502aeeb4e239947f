// Self-checking: location aliases and trailing loc(...), generic and pretty
// convolution (one result), #stablehlo.result_accuracy, tuples and
// get_tuple_element, optimization_barrier.
#loc1 = loc("model.py":1:2)
module @syntax_forms attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<1x3x3x1xf32>, tensor<f32>) {
    %arg0 = stablehlo.constant dense<[[[[1.0], [2.0], [3.0], [4.0]], [[5.0], [6.0], [7.0], [8.0]], [[9.0], [10.0], [11.0], [12.0]], [[13.0], [14.0], [15.0], [16.0]]]]> : tensor<1x4x4x1xf32> loc(#loc1)
    %arg1 = stablehlo.constant dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
    %0 = "stablehlo.convolution"(%arg0, %arg1) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>}> : (tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32> loc(#loc1)
    %3 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32>
    %e = stablehlo.constant dense<-5.0> : tensor<1x3x3x1xf32>
    stablehlo.custom_call @check.expect_eq(%0, %e) {has_side_effect = true} : (tensor<1x3x3x1xf32>, tensor<1x3x3x1xf32>) -> ()
    stablehlo.custom_call @check.expect_eq(%3, %e) {has_side_effect = true} : (tensor<1x3x3x1xf32>, tensor<1x3x3x1xf32>) -> ()
    %1 = stablehlo.negate %0 {result_accuracy = #stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<1x3x3x1xf32>
    %2 = "stablehlo.transpose"(%1) <{permutation = array<i64: 0, 2, 1, 3>}> : (tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %t = stablehlo.tuple %2, %c : tuple<tensor<1x3x3x1xf32>, tensor<f32>>
    %g = stablehlo.get_tuple_element %t[1] : (tuple<tensor<1x3x3x1xf32>, tensor<f32>>) -> tensor<f32>
    %o:2 = stablehlo.optimization_barrier %2, %g : tensor<1x3x3x1xf32>, tensor<f32>
    %five = stablehlo.constant dense<5.0> : tensor<1x3x3x1xf32>
    stablehlo.custom_call @check.expect_eq(%o#0, %five) {has_side_effect = true} : (tensor<1x3x3x1xf32>, tensor<1x3x3x1xf32>) -> ()
    stablehlo.custom_call @check.expect_eq(%o#1, %c) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    return %o#0, %o#1 : tensor<1x3x3x1xf32>, tensor<f32> loc(#loc1)
  } loc(#loc1)
} loc(#loc1)
