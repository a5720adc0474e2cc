// RUN: rnn-opt %s --rnn-expand-bidirectional | FileCheck %s

/// Two scans over the same input (the backward one reversed with keep_order),
/// merged; lengths, initial carries, unroll and final carries go to their
/// own direction.

// CHECK-LABEL: func.func @lstm_gru_with_lengths_and_carries
// CHECK-SAME: (%[[X:.*]]: tensor<8x20x16xf32>, %[[LEN:.*]]: tensor<8xi32>, %[[H0:.*]]: tensor<8x32xf32>
// CHECK: %[[FY:.*]], %[[FC:.*]]:2 = rnn.scan %[[X]] lengths(%[[LEN]] : tensor<8xi32>) unroll 2 {num_batch_dims = 1 : i64} : tensor<8x20x16xf32> -> tensor<8x20x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> {
// CHECK: rnn.lstm_cell
// CHECK: %[[BY:.*]], %[[BC:.*]] = rnn.scan %[[X]] lengths(%[[LEN]] : tensor<8xi32>) init(%[[H0]] : tensor<8x32xf32>) reverse keep_order unroll 5 {num_batch_dims = 1 : i64} : tensor<8x20x16xf32> -> tensor<8x20x32xf32>, tensor<8x32xf32> {
// CHECK: rnn.gru_cell
// CHECK: %[[Y:.*]] = rnn.merge <concat> %[[FY]], %[[BY]] : tensor<8x20x32xf32>, tensor<8x20x32xf32> -> tensor<8x20x64xf32>
// CHECK: return %[[Y]], %[[FC]]#1, %[[BC]]
func.func @lstm_gru_with_lengths_and_carries(%x: tensor<8x20x16xf32>, %len: tensor<8xi32>, %h0: tensor<8x32xf32>,
    %wi: tensor<16x128xf32>, %wh: tensor<32x128xf32>, %gwi: tensor<16x96xf32>, %gwh: tensor<32x96xf32>)
    -> (tensor<8x20x64xf32>, tensor<8x32xf32>, tensor<8x32xf32>) {
  %y, %fc, %fh, %bh = rnn.bidirectional %x lengths(%len : tensor<8xi32>) backward_init(%h0 : tensor<8x32xf32>) merge<concat>
      {num_batch_dims = 1 : i64, forward_unroll = 2 : i64, backward_unroll = 5 : i64}
      : tensor<8x20x16xf32> -> tensor<8x20x64xf32> carries(tensor<8x32xf32>, tensor<8x32xf32>)(tensor<8x32xf32>)
  forward {
  ^bb0(%c: tensor<8x32xf32>, %h: tensor<8x32xf32>, %xt: tensor<8x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<8x16xf32>, tensor<8x32xf32>, tensor<16x128xf32>, tensor<32x128xf32>
    rnn.yield carry(%c1, %h1 : tensor<8x32xf32>, tensor<8x32xf32>) output(%h1 : tensor<8x32xf32>)
  } backward {
  ^bb0(%h: tensor<8x32xf32>, %xt: tensor<8x16xf32>):
    %h1 = rnn.gru_cell(%xt, %h) kernels(%gwi, %gwh) : tensor<8x16xf32>, tensor<8x32xf32>, tensor<16x96xf32>, tensor<32x96xf32>
    rnn.yield carry(%h1 : tensor<8x32xf32>) output(%h1 : tensor<8x32xf32>)
  }
  return %y, %fh, %bh : tensor<8x20x64xf32>, tensor<8x32xf32>, tensor<8x32xf32>
}

/// Without final carries, time-major with zero padded outputs and merge add.

// CHECK-LABEL: func.func @time_major_add_no_carries
// CHECK: %[[F:.*]] = rnn.scan %{{.*}} lengths(%{{.*}} : tensor<4xi32>) time_major zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<6x4x3xf32> -> tensor<6x4x5xf32> {
// CHECK: %[[B:.*]] = rnn.scan %{{.*}} lengths(%{{.*}} : tensor<4xi32>) time_major reverse keep_order zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<6x4x3xf32> -> tensor<6x4x5xf32> {
// CHECK: rnn.merge <add> %[[F]], %[[B]]
// CHECK-NOT: rnn.bidirectional
func.func @time_major_add_no_carries(%x: tensor<6x4x3xf32>, %len: tensor<4xi32>, %wi: tensor<3x5xf32>, %wh: tensor<5x5xf32>) -> tensor<6x4x5xf32> {
  %y = rnn.bidirectional %x lengths(%len : tensor<4xi32>) merge<add> time_major zero_padded_outputs {num_batch_dims = 1 : i64}
      : tensor<6x4x3xf32> -> tensor<6x4x5xf32>
  forward {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<4x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<4x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5x5xf32>
    rnn.yield carry(%h1 : tensor<4x5xf32>) output(%h1 : tensor<4x5xf32>)
  } backward {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<4x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<4x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5x5xf32>
    rnn.yield carry(%h1 : tensor<4x5xf32>) output(%h1 : tensor<4x5xf32>)
  }
  return %y : tensor<6x4x5xf32>
}

/// A run-time number of rows: both scans run the actual rows.

// CHECK-LABEL: func.func @runtime_rows
// CHECK-SAME: %[[R:[^:]+]]: index
// CHECK: %[[F:.*]] = rnn.scan %{{.*}} rows(%[[R]]) {num_batch_dims = 1 : i64}
// CHECK: %[[B:.*]] = rnn.scan %{{.*}} rows(%[[R]]) reverse keep_order {num_batch_dims = 1 : i64}
// CHECK: rnn.merge <concat> %[[F]], %[[B]]
func.func @runtime_rows(%x: tensor<4x6x3xf32>, %r: index, %wi: tensor<3x5xf32>, %wh: tensor<5x5xf32>) -> tensor<4x6x10xf32> {
  %y = rnn.bidirectional %x rows(%r) merge<concat> {num_batch_dims = 1 : i64}
      : tensor<4x6x3xf32> -> tensor<4x6x10xf32>
  forward {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<4x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<4x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5x5xf32>
    rnn.yield carry(%h1 : tensor<4x5xf32>) output(%h1 : tensor<4x5xf32>)
  } backward {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<4x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<4x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5x5xf32>
    rnn.yield carry(%h1 : tensor<4x5xf32>) output(%h1 : tensor<4x5xf32>)
  }
  return %y : tensor<4x6x10xf32>
}
