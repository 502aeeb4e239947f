// Self-checking: if, case and while regions that read values from outside
// them (captures), in pretty and generic forms.
module @control_flow {
  func.func public @main() -> tensor<f32> {
    %p = stablehlo.constant dense<true> : tensor<i1>
    %a = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %x = stablehlo.add %a, %a : tensor<f32>
    %r = "stablehlo.if"(%p) ({
      %y = stablehlo.multiply %x, %a : tensor<f32>
      stablehlo.return %y : tensor<f32>
    }, {
      stablehlo.return %a : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    %e8 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    stablehlo.custom_call @check.expect_eq(%r, %e8) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    %i = stablehlo.constant dense<1> : tensor<i32>
    %c:2 = "stablehlo.case"(%i) ({
      stablehlo.return %a, %a : tensor<f32>, tensor<f32>
    }, {
      %z = stablehlo.subtract %x, %a : tensor<f32>
      stablehlo.return %x, %z : tensor<f32>, tensor<f32>
    }) : (tensor<i32>) -> (tensor<f32>, tensor<f32>)
    %e4 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    stablehlo.custom_call @check.expect_eq(%c#0, %e4) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    stablehlo.custom_call @check.expect_eq(%c#1, %a) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    // Sum x over 5 iterations, the bound computed outside the loop.
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %five = stablehlo.constant dense<5> : tensor<i64>
    %bound = stablehlo.add %five, %zero : tensor<i64>
    %fz = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %w:2 = stablehlo.while(%it = %zero, %acc = %fz) : tensor<i64>, tensor<f32>
     cond {
      %lt = stablehlo.compare  LT, %it, %bound,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i64>
      %next = stablehlo.add %it, %one : tensor<i64>
      %sum = stablehlo.add %acc, %x : tensor<f32>
      stablehlo.return %next, %sum : tensor<i64>, tensor<f32>
    }
    %e20 = stablehlo.constant dense<2.000000e+01> : tensor<f32>
    stablehlo.custom_call @check.expect_eq(%w#1, %e20) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
    %g = "stablehlo.while"(%zero) ({
    ^bb0(%j: tensor<i64>):
      %lt = "stablehlo.compare"(%j, %bound) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%lt) : (tensor<i1>) -> ()
    }, {
    ^bb0(%j: tensor<i64>):
      %two = stablehlo.constant dense<2> : tensor<i64>
      %n = stablehlo.add %j, %two : tensor<i64>
      "stablehlo.return"(%n) : (tensor<i64>) -> ()
    }) : (tensor<i64>) -> tensor<i64>
    %e6 = stablehlo.constant dense<6> : tensor<i64>
    stablehlo.custom_call @check.expect_eq(%g, %e6) {has_side_effect = true} : (tensor<i64>, tensor<i64>) -> ()
    return %r : tensor<f32>
  }
}
