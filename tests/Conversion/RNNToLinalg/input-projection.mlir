// RUN: rnn-opt %s --rnn-split-input-projection --convert-rnn-scan-to-scf --convert-rnn-to-linalg --canonicalize --cse --split-input-file | FileCheck %s

/// The input projection, from the split on rnn.scan to linalg: each step's
/// input-side matmul is a time slice of one matmul over the whole sequence,
/// computed once before the loop; the recurrent matmul (on the carry) stays
/// in the loop.

// CHECK-LABEL: func.func @lstm_steps
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x16xf32>, %[[WI:[a-z0-9]+]]: tensor<16x64xf32>, %[[WH:[a-z0-9]+]]: tensor<16x64xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x16xf32> into tensor<6x16xf32>
// CHECK: %[[ALL:.*]] = linalg.matmul ins(%[[FLAT]], %[[WI]] : tensor<6x16xf32>, tensor<16x64xf32>) outs(%{{.*}} : tensor<6x64xf32>)
// CHECK: %[[SEQ:.*]] = tensor.expand_shape %[[ALL]] {{\[}}[0, 1], [2]] output_shape [2, 3, 64] : tensor<6x64xf32> into tensor<2x3x64xf32>
// CHECK: scf.for %[[T:[a-z0-9]+]] =
// CHECK-NOT: linalg.matmul ins(%{{.*}}, %[[WI]]
// CHECK:   %[[GI:.*]] = tensor.extract_slice %[[SEQ]][0, %[[T]], 0] [2, 1, 64] [1, 1, 1] : tensor<2x3x64xf32> to tensor<2x64xf32>
// CHECK:   %[[GH:.*]] = linalg.matmul ins(%{{.*}}, %[[WH]]
// CHECK:   tensor.extract_slice %[[GI]][0, 0] [2, 16] [1, 1]
// CHECK:   tensor.extract_slice %[[GH]][0, 0] [2, 16] [1, 1]
func.func @lstm_steps(%x: tensor<2x3x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<2x3x16xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<2x3x16xf32> -> tensor<2x3x16xf32> {
  ^bb0(%c: tensor<2x16xf32>, %h: tensor<2x16xf32>, %xt: tensor<2x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<2x16xf32>, tensor<2x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<2x16xf32>, tensor<2x16xf32>) output(%h1 : tensor<2x16xf32>)
  }
  return %y : tensor<2x3x16xf32>
}

// -----

/// Time-major with two batch dims collapsed to one: each step's slice of
/// the projection is collapsed as the cell collapses its rows, and both
/// unrolled steps (T = 2, unroll 2: no loop) share one projection.

// CHECK-LABEL: func.func @time_major_two_batch_dims
// CHECK-COUNT-1: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<12x5xf32>, tensor<5x12xf32>)
// CHECK: %[[SEQ:.*]] = tensor.expand_shape {{.*}} output_shape [2, 2, 3, 12] : tensor<12x12xf32> into tensor<2x2x3x12xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[SEQ]][0, 0, 0, 0] [1, 2, 3, 12] [1, 1, 1, 1] : tensor<2x2x3x12xf32> to tensor<2x3x12xf32>
// CHECK: tensor.collapse_shape %[[S0]] {{\[}}[0, 1], [2]] : tensor<2x3x12xf32> into tensor<6x12xf32>
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[SEQ]][1, 0, 0, 0]
// CHECK-NOT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<{{.*}}x5xf32>
func.func @time_major_two_batch_dims(%x: tensor<2x2x3x5xf32>, %wi: tensor<5x12xf32>, %wh: tensor<4x12xf32>) -> tensor<2x2x3x4xf32> {
  %y = rnn.scan %x time_major unroll 2 {num_batch_dims = 2 : i64} : tensor<2x2x3x5xf32> -> tensor<2x2x3x4xf32> {
  ^bb0(%h: tensor<2x3x4xf32>, %xt: tensor<2x3x5xf32>):
    %h1 = rnn.gru_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x12xf32>, tensor<4x12xf32>
    rnn.yield carry(%h1 : tensor<2x3x4xf32>) output(%h1 : tensor<2x3x4xf32>)
  }
  return %y : tensor<2x2x3x4xf32>
}

// -----

/// Dynamic int8 activations (DynamicInt8.cpp): the input side is a chain,
/// row maxima -> scales -> quantized i8 -> i8 x i8 -> i32 matmul -> rows
/// times their scales. Every op works row by row, so the whole chain runs
/// once on the 2 x 3 rows of the sequence before the loop (quantized where
/// they are, folded to 6 rows after), and each step takes its slice of the
/// f32 product; the loop's only chain is the recurrent one, whose i32 sums
/// the gate generic reads with their rows' scales.

!q = !quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.25,0.25,0.25,0.25}>
// CHECK-LABEL: func.func @dynamic_int8
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>
// CHECK-NOT: tensor.collapse_shape %[[X]]
// CHECK: %[[MAX:.*]] = scf.for {{.*}} -> (tensor<2x3xf32>)
// CHECK:   tensor.extract %[[X]]{{.*}} : tensor<2x3x4xf32>
// CHECK: %[[SCALES:.*]]:2 = linalg.generic {{.*}} ins(%[[MAX]] : tensor<2x3xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK: %[[Q:.*]] = scf.for {{.*}} -> (tensor<2x3x4xi8>)
// CHECK:   scf.for {{.*}} -> (tensor<2x3x4xi8>)
// CHECK:     tensor.extract %[[SCALES]]#1
// CHECK:     linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4xi8>)
// CHECK: %[[QFLAT:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2]] : tensor<2x3x4xi8> into tensor<6x4xi8>
// CHECK: %[[ROWSCALES:.*]] = tensor.collapse_shape %[[SCALES]]#0 {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[SUMS:.*]] = linalg.matmul ins(%[[QFLAT]], %{{.*}} : tensor<6x4xi8>, tensor<4x16xi8>) outs(%{{.*}} : tensor<6x16xi32>)
// CHECK: %[[ALL:.*]] = scf.for {{.*}} -> (tensor<6x16xf32>)
// CHECK:   tensor.extract %[[ROWSCALES]]
// CHECK:   tensor.extract_slice %[[SUMS]]
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<16xi32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK: %[[SEQ:.*]] = tensor.expand_shape %[[ALL]] {{\[}}[0, 1], [2]] output_shape [2, 3, 16] : tensor<6x16xf32> into tensor<2x3x16xf32>
// CHECK: scf.for %[[T:[a-z0-9]+]] =
// CHECK:   %[[GI:.*]] = tensor.extract_slice %[[SEQ]][0, %[[T]], 0] [2, 1, 16] [1, 1, 1] : tensor<2x3x16xf32> to tensor<2x16xf32>
// CHECK:   %[[HSCALES:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// CHECK:   %[[HSUMS:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x4xi8>, tensor<4x16xi8>) outs(%{{.*}} : tensor<2x16xi32>)
// CHECK-NOT: linalg.matmul
// CHECK:   tensor.extract_slice %[[GI]][0, 0] [2, 4] [1, 1]
// CHECK:   %[[GH:.*]] = tensor.extract_slice %[[HSUMS]][0, 0] [2, 4] [1, 1] : tensor<2x16xi32> to tensor<2x4xi32>
// CHECK:   linalg.generic {{.*}} ins({{.*}}, %[[GH]], {{.*}}, %[[HSCALES]]#0, {{.*}} : {{.*}}, tensor<2x4xi32>, {{.*}}, tensor<2xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
func.func @dynamic_int8(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %qi = arith.constant dense<1> : tensor<4x16xi8>
  %wi = quant.scast %qi : tensor<4x16xi8> to tensor<4x16x!q>
  %qh = arith.constant dense<2> : tensor<4x16xi8>
  %wh = quant.scast %qh : tensor<4x16xi8> to tensor<4x16x!q>
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x3x4xf32> {
  ^bb0(%c: tensor<2x4xf32>, %h: tensor<2x4xf32>, %xt: tensor<2x4xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) {dynamic_int8} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x16x!q>, tensor<4x16x!q>
    rnn.yield carry(%c1, %h1 : tensor<2x4xf32>, tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x3x4xf32>
}

// -----

/// bf16 compute: the input product of all steps is one matmul of the rows
/// narrowed to bf16 before the loop, its sums rounded to bf16 values in
/// place; the step's only matmul is the recurrent one, on bf16 rows.

// CHECK-LABEL: func.func @bf16_compute_projected
// CHECK: %[[SUMS:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<6x16xbf16>, tensor<16x64xbf16>) outs(%{{.*}} : tensor<6x64xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[SUMS]] : tensor<6x64xf32>)
// CHECK: arith.truncf
// CHECK: arith.extf
// CHECK: scf.for
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x16xbf16>, tensor<16x64xbf16>)
// CHECK-NOT: linalg.matmul
func.func @bf16_compute_projected(%x: tensor<2x3x16xf32>, %wi: tensor<16x64xbf16>, %wh: tensor<16x64xbf16>) -> tensor<2x3x16xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<2x3x16xf32> -> tensor<2x3x16xf32> {
  ^bb0(%c: tensor<2x16xf32>, %h: tensor<2x16xf32>, %xt: tensor<2x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) {compute_type = bf16, carry_type = f32} : tensor<2x16xf32>, tensor<2x16xf32>, tensor<16x64xbf16>, tensor<16x64xbf16>
    rnn.yield carry(%c1, %h1 : tensor<2x16xf32>, tensor<2x16xf32>) output(%h1 : tensor<2x16xf32>)
  }
  return %y : tensor<2x3x16xf32>
}
