// Self-checking: an all-reduce over two replicas (module attributes,
// replica groups, channel handle, a reduction region).
module @all_reduce attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main() -> tensor<2xf32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %g = stablehlo.add %f, %one : tensor<f32>
    %b = stablehlo.broadcast_in_dim %g, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %r = "stablehlo.all_reduce"(%b) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    %e = stablehlo.constant dense<3.000000e+00> : tensor<2xf32>
    stablehlo.custom_call @check.expect_eq(%r, %e) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %r : tensor<2xf32>
  }
}
