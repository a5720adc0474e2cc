// RUN: rnn-opt %s --convert-rnn-to-linalg=reduction-lanes=4 --split-input-file | FileCheck %s --check-prefix=LANES
// RUN: rnn-opt %s --convert-rnn-to-linalg --split-input-file | FileCheck %s --check-prefix=ONE

/// Dynamic int8 activations: each row's maximum magnitude, on the rows
/// where they are (2 x 3 of them). With reduction-lanes L dividing the row
/// (K = 8, L = 4): the maxima of the elements L apart ([2, 3, 2, 4] ->
/// [2, 3, 4], the reduction in the middle, so the loop over the lanes is
/// element-wise), then the maximum of those. Without the option: one
/// reduction over each row.

!q = !quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>
// LANES-LABEL: func.func @row_maxima(
// LANES-SAME: %[[X:[^:]+]]: tensor<2x3x8xf32>
// LANES: %[[GROUPS:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 4] : tensor<2x3x8xf32> into tensor<2x3x2x4xf32>
// LANES: %[[PARTIAL:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[GROUPS]] : tensor<2x3x2x4xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
// LANES:   math.absf
// LANES:   arith.maximumf
// LANES: %[[MAX:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[PARTIAL]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// LANES-NOT: math.absf
// LANES:   arith.maximumf
// LANES: linalg.generic {{.*}} ins(%[[MAX]] : tensor<2x3xf32>)
// ONE-LABEL: func.func @row_maxima(
// ONE-NOT: tensor.expand_shape {{.*}} into tensor<2x3x{{[0-9]+}}x{{[0-9]+}}xf32>
// ONE: linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x8xf32>) outs(%{{.*}} : tensor<2x3xf32>)
func.func @row_maxima(%x: tensor<2x3x8xf32>) -> tensor<2x3x4xf32> {
  %qw = arith.constant dense<[[1, -2, 3, 4], [0, 0, 127, 0], [-127, 2, 3, 4], [5, 6, 7, 8], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]> : tensor<8x4xi8>
  %w = quant.scast %qw : tensor<8x4xi8> to tensor<8x4x!q>
  %d = rnn.project %x kernel(%w) dynamic_int8 : tensor<2x3x8xf32>, tensor<8x4x!q> -> tensor<2x3x4xf32>
  return %d : tensor<2x3x4xf32>
}

// -----

/// Rows that L does not divide (K = 6), or as long as L (K = 4): one
/// reduction.

!q = !quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>
// LANES-LABEL: func.func @rows_not_split(
// LANES-NOT: tensor.expand_shape {{.*}} into tensor<2x3x{{[0-9]+}}x{{[0-9]+}}xf32>
// LANES: linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x6xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// LANES-NOT: tensor.expand_shape {{.*}} into tensor<2x3x{{[0-9]+}}x{{[0-9]+}}xf32>
// LANES: linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x3xf32>)
func.func @rows_not_split(%x: tensor<2x3x6xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %qw = arith.constant dense<1> : tensor<6x4xi8>
  %w = quant.scast %qw : tensor<6x4xi8> to tensor<6x4x!q>
  %d = rnn.project %x kernel(%w) dynamic_int8 : tensor<2x3x6xf32>, tensor<6x4x!q> -> tensor<2x3x4xf32>
  %qv = arith.constant dense<2> : tensor<4x4xi8>
  %v = quant.scast %qv : tensor<4x4xi8> to tensor<4x4x!q>
  %e = rnn.project %y kernel(%v) dynamic_int8 : tensor<2x3x4xf32>, tensor<4x4x!q> -> tensor<2x3x4xf32>
  return %d, %e : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
