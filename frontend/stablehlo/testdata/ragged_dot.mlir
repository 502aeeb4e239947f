// Self-checking: chlo.ragged_dot in JAX's generic form becomes HLO's
// ragged-dot (rows 0..0 of the lhs use group 0 of the rhs, rows 1..3 group 1).
module @ragged_dot {
  func.func public @main() {
    %l = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
    %r = stablehlo.constant dense<[[[1.0, 0.0, 2.0], [0.0, 1.0, 3.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]]> : tensor<2x2x3xf32>
    %g = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
    %0 = "chlo.ragged_dot"(%l, %r, %g) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<4x2xf32>, tensor<2x2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
    %e = stablehlo.constant dense<[[1.0, 2.0, 8.0], [10.0, -1.0, 4.0], [16.0, -1.0, 6.0], [22.0, -1.0, 8.0]]> : tensor<4x3xf32>
    stablehlo.custom_call @check.expect_eq(%0, %e) {has_side_effect = true} : (tensor<4x3xf32>, tensor<4x3xf32>) -> ()
    return
  }
}
