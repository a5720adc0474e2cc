// RUN: rnn-opt %s --convert-rnn-scan-to-scf --convert-rnn-to-linalg --split-input-file | FileCheck %s

/// Each step's results are computed in their destinations: the cell's gate
/// generic writes each new carry over the old one and, as one more init, the
/// step's output into its slot of the sequence. No loop of its own reads
/// the output back to copy it (bufferized, that copy was 4 % of the time at
/// LSTM/GRU H=64 B=128 T=256), and no carry is copied onto itself.

/// An LSTM read from its end with keep_order: h is both the second carry
/// and the output, and the slot's time (T - 1 - t) is computed before the
/// generic that writes it.

// CHECK-LABEL: func.func @lstm_reverse_keep_order(
// CHECK: scf.for %[[T:[^ ]+]] = {{.*}} iter_args(%[[C:[^ ]+]] = %{{[^,]+}}, %[[H:[^ ]+]] = %{{[^,]+}}, %[[Y:[^ ]+]] = %{{[^)]+}})
// CHECK-NOT: linalg.copy
// CHECK:   linalg.matmul
// CHECK:   linalg.matmul
// CHECK-NOT: linalg.generic
// CHECK:   %[[TIME:.+]] = arith.subi %{{.+}}, %[[T]] : index
// CHECK:   %[[SLOT:.+]] = tensor.extract_slice %[[Y]][0, %[[TIME]], 0] [4, 1, 8] [1, 1, 1] : tensor<4x5x8xf32> to tensor<4x8xf32>
// CHECK:   %[[NEW:.+]]:3 = linalg.generic
// CHECK-SAME: outs(%[[C]], %[[H]], %[[SLOT]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:     linalg.yield %{{.+}}, %[[NEWH:[^,]+]], %[[NEWH]] : f32, f32, f32
// CHECK-NOT: linalg.copy
// CHECK:   %[[STORED:.+]] = tensor.insert_slice %[[NEW]]#2 into %[[Y]][0, %[[TIME]], 0] [4, 1, 8]
// CHECK:   scf.yield %[[NEW]]#0, %[[NEW]]#1, %[[STORED]]
func.func @lstm_reverse_keep_order(%x: tensor<4x5x2xf32>, %wi: tensor<2x32xf32>, %wh: tensor<8x32xf32>)
    -> (tensor<4x5x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %y, %c, %h = rnn.scan %x reverse keep_order {num_batch_dims = 1 : i64} : tensor<4x5x2xf32> -> tensor<4x5x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> {
  ^bb0(%c0: tensor<4x8xf32>, %h0: tensor<4x8xf32>, %xt: tensor<4x2xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c0, %h0) kernels(%wi, %wh) : tensor<4x2xf32>, tensor<4x8xf32>, tensor<2x32xf32>, tensor<8x32xf32>
    rnn.yield carry(%c1, %h1 : tensor<4x8xf32>, tensor<4x8xf32>) output(%h1 : tensor<4x8xf32>)
  }
  return %y, %c, %h : tensor<4x5x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

/// Two batch dims: the generic runs on the rows folded into one, so the
/// slot is folded the same way, and the result unfolded for its insertion.

// CHECK-LABEL: func.func @two_batch_dims(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x1x5xf32>
// CHECK: %[[Y:.+]] = tensor.empty() : tensor<2x3x1x4xf32>
// CHECK: %[[SLOT:.+]] = tensor.extract_slice %[[Y]][0, 0, 0, 0] [2, 3, 1, 4] [1, 1, 1, 1] : tensor<2x3x1x4xf32> to tensor<2x3x4xf32>
// CHECK: %[[FOLDED:.+]] = tensor.collapse_shape %[[SLOT]] {{\[}}[0, 1], [2]]
// CHECK: %[[NEW:.+]]:2 = linalg.generic
// CHECK-SAME: outs(%{{.+}}, %[[FOLDED]] : tensor<6x4xf32>, tensor<6x4xf32>)
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[NEW]]#1 {{\[}}[0, 1], [2]]
// CHECK-NOT: linalg.copy
// CHECK: tensor.insert_slice %[[OUT]] into %[[Y]][0, 0, 0, 0] [2, 3, 1, 4]
func.func @two_batch_dims(%x: tensor<2x3x1x5xf32>, %wi: tensor<5x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x3x1x4xf32> {
  %y = rnn.scan %x {num_batch_dims = 2 : i64} : tensor<2x3x1x5xf32> -> tensor<2x3x1x4xf32> {
  ^bb0(%h: tensor<2x3x4xf32>, %xt: tensor<2x3x5xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x3x4xf32>) output(%h1 : tensor<2x3x4xf32>)
  }
  return %y : tensor<2x3x1x4xf32>
}

// -----

/// Outputs nobody reads get no slot: the generic writes only the carry.

// CHECK-LABEL: func.func @final_carry_only(
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{[^,]+}} : tensor<4x8xf32>)
// CHECK-NOT: linalg.copy
// CHECK-NOT: tensor.insert_slice
// CHECK: return
func.func @final_carry_only(%x: tensor<4x3x2xf32>, %wi: tensor<2x8xf32>, %wh: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %y, %hT = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<4x3x2xf32> -> tensor<4x3x8xf32>, tensor<4x8xf32> {
  ^bb0(%h: tensor<4x8xf32>, %xt: tensor<4x2xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<4x2xf32>, tensor<4x8xf32>, tensor<2x8xf32>, tensor<8x8xf32>
    rnn.yield carry(%h1 : tensor<4x8xf32>) output(%h1 : tensor<4x8xf32>)
  }
  return %hT : tensor<4x8xf32>
}
