// Self-checking: chlo ops that map onto one HLO op: top_k in its generic and
// pretty forms, mulhi (the high half of the 64-bit product).
module @m {
  func.func public @main() {
    %x = stablehlo.constant dense<[[0.5, -0.25, 3.0], [1.0, 2.0, 0.0]]> : tensor<2x3xf32>
    %v, %i = "chlo.top_k"(%x) <{k = 2 : i64}> : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
    %v2, %i2 = chlo.top_k(%x, k = 2) : tensor<2x3xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
    %e = stablehlo.constant dense<[[3.0, 0.5], [2.0, 1.0]]> : tensor<2x2xf32>
    %ei = stablehlo.constant dense<[[2, 0], [1, 0]]> : tensor<2x2xi32>
    stablehlo.custom_call @check.expect_eq(%v, %e) {has_side_effect = true} : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    stablehlo.custom_call @check.expect_eq(%i, %ei) {has_side_effect = true} : (tensor<2x2xi32>, tensor<2x2xi32>) -> ()
    stablehlo.custom_call @check.expect_eq(%v2, %e) {has_side_effect = true} : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    %a = stablehlo.constant dense<[-7, 100000]> : tensor<2xi32>
    %b = stablehlo.constant dense<[1000000000, 100000]> : tensor<2xi32>
    %m = chlo.mulhi %a, %b : tensor<2xi32>
    %em = stablehlo.constant dense<[-2, 2]> : tensor<2xi32>
    stablehlo.custom_call @check.expect_eq(%m, %em) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
    return
  }
}
