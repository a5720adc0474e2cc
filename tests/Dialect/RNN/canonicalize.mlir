// RUN: rnn-opt %s --canonicalize --split-input-file | FileCheck %s

/// flip_sequences is an involution: flipping twice with the same lengths
/// and layout is the identity.

// CHECK-LABEL: func.func @flip_twice_folds
// CHECK-SAME: (%[[X:.*]]: tensor<4x6x3xf32>
// CHECK-NOT: rnn.flip_sequences
// CHECK: return %[[X]]
func.func @flip_twice_folds(%x: tensor<4x6x3xf32>, %len: tensor<4xi32>) -> tensor<4x6x3xf32> {
  %a = rnn.flip_sequences %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  %b = rnn.flip_sequences %a lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  return %b : tensor<4x6x3xf32>
}

// CHECK-LABEL: func.func @negative_flip_twice_different_lengths
// CHECK-COUNT-2: rnn.flip_sequences
func.func @negative_flip_twice_different_lengths(%x: tensor<4x6x3xf32>, %l1: tensor<4xi32>, %l2: tensor<4xi32>) -> tensor<4x6x3xf32> {
  %a = rnn.flip_sequences %x lengths(%l1 : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  %b = rnn.flip_sequences %a lengths(%l2 : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  return %b : tensor<4x6x3xf32>
}

// CHECK-LABEL: func.func @negative_flip_twice_different_layout
// CHECK-COUNT-2: rnn.flip_sequences
func.func @negative_flip_twice_different_layout(%x: tensor<4x4x3xf32>, %len: tensor<4xi32>) -> tensor<4x4x3xf32> {
  %a = rnn.flip_sequences %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x4x3xf32>
  %b = rnn.flip_sequences %a lengths(%len : tensor<4xi32>) time_major {num_batch_dims = 1 : i64} : tensor<4x4x3xf32>
  return %b : tensor<4x4x3xf32>
}

/// A single time step is its own reversal, whatever the lengths.

// CHECK-LABEL: func.func @flip_one_step_folds
// CHECK-NOT: rnn.flip_sequences
func.func @flip_one_step_folds(%x: tensor<4x1x3xf32>, %len: tensor<4xi32>) -> tensor<4x1x3xf32> {
  %a = rnn.flip_sequences %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x1x3xf32>
  return %a : tensor<4x1x3xf32>
}

// -----

/// A constant zero bias adds nothing and is dropped; a non-zero one stays.

// CHECK-LABEL: func.func @zero_biases_dropped
// CHECK: rnn.gru_cell(%{{.*}}, %{{.*}}) kernels(%{{.*}}, %{{.*}}) : tensor<4x5xf32>
// CHECK: rnn.lstm_cell(%{{.*}}, %{{.*}}, %{{.*}}) kernels(%{{.*}}, %{{.*}}) hidden_bias(%{{.*}} : tensor<24xf32>) :
func.func @zero_biases_dropped(%x: tensor<4x5xf32>, %h: tensor<4x6xf32>, %wi: tensor<5x18xf32>, %wh: tensor<6x18xf32>,
    %lwi: tensor<5x24xf32>, %lwh: tensor<6x24xf32>, %lbh: tensor<24xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %zero = arith.constant dense<0.0> : tensor<18xf32>
  %lzero = arith.constant dense<0.0> : tensor<24xf32>
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%zero : tensor<18xf32>) hidden_bias(%zero : tensor<18xf32>)
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x18xf32>, tensor<6x18xf32>
  %1:2 = rnn.lstm_cell(%x, %h, %h) kernels(%lwi, %lwh) input_bias(%lzero : tensor<24xf32>) hidden_bias(%lbh : tensor<24xf32>)
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x24xf32>, tensor<6x24xf32>
  return %0, %1#1 : tensor<4x6xf32>, tensor<4x6xf32>
}

/// The pattern is registered once for every cell op (CellOpInterface): the
/// MGU, Elman and ConvLSTM cells lose their zero biases too.

// CHECK-LABEL: func.func @zero_biases_dropped_every_cell
// CHECK: rnn.mgu_cell(%{{.*}}, %{{.*}}) kernels(%{{.*}}, %{{.*}}) : tensor<4x5xf32>
// CHECK: rnn.simple_cell(%{{.*}}, %{{.*}}) kernels(%{{.*}}, %{{.*}}) : tensor<4x5xf32>
// CHECK: rnn.conv_lstm_cell(%{{.*}}, %{{.*}}, %{{.*}}) kernels(%{{.*}}, %{{.*}}) : tensor<2x8x3xf32>
func.func @zero_biases_dropped_every_cell(%x: tensor<4x5xf32>, %h: tensor<4x6xf32>,
    %mwi: tensor<5x12xf32>, %mwh: tensor<6x12xf32>, %swi: tensor<5x6xf32>, %swh: tensor<6x6xf32>,
    %cx: tensor<2x8x3xf32>, %ch: tensor<2x8x6xf32>, %cwi: tensor<3x3x24xf32>, %cwh: tensor<3x6x24xf32>)
    -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x8x6xf32>) {
  %m0 = arith.constant dense<0.0> : tensor<12xf32>
  %s0 = arith.constant dense<0.0> : tensor<6xf32>
  %c0 = arith.constant dense<0.0> : tensor<24xf32>
  %0 = rnn.mgu_cell(%x, %h) kernels(%mwi, %mwh) input_bias(%m0 : tensor<12xf32>) hidden_bias(%m0 : tensor<12xf32>)
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x12xf32>, tensor<6x12xf32>
  %1 = rnn.simple_cell(%x, %h) kernels(%swi, %swh) input_bias(%s0 : tensor<6xf32>)
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x6xf32>, tensor<6x6xf32>
  %2:2 = rnn.conv_lstm_cell(%cx, %ch, %ch) kernels(%cwi, %cwh) input_bias(%c0 : tensor<24xf32>) hidden_bias(%c0 : tensor<24xf32>)
      : tensor<2x8x3xf32>, tensor<2x8x6xf32>, tensor<3x3x24xf32>, tensor<3x6x24xf32>
  return %0, %1, %2#1 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x8x6xf32>
}

// CHECK-LABEL: func.func @negative_partly_zero_bias_kept
// CHECK: hidden_bias(%{{.*}} : tensor<18xf32>)
func.func @negative_partly_zero_bias_kept(%x: tensor<4x5xf32>, %h: tensor<4x6xf32>, %wi: tensor<5x18xf32>, %wh: tensor<6x18xf32>) -> tensor<4x6xf32> {
  %bh = arith.constant dense<[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<18xf32>
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) hidden_bias(%bh : tensor<18xf32>)
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x18xf32>, tensor<6x18xf32>
  return %0 : tensor<4x6xf32>
}

// -----

/// Final carries nobody reads are dropped from the scan.

// CHECK-LABEL: func.func @unused_final_carry_dropped
// CHECK: %[[Y:.*]] = rnn.scan %{{.*}} {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32> {
// CHECK: return %[[Y]]
func.func @unused_final_carry_dropped(%x: tensor<4x6x5xf32>) -> tensor<4x6x5xf32> {
  %y, %h = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32>, tensor<4x5xf32> {
  ^bb0(%h0: tensor<4x5xf32>, %xt: tensor<4x5xf32>):
    %s = arith.addf %h0, %xt : tensor<4x5xf32>
    rnn.yield carry(%s : tensor<4x5xf32>) output(%s : tensor<4x5xf32>)
  }
  return %y : tensor<4x6x5xf32>
}

// CHECK-LABEL: func.func @negative_used_final_carry_kept
// CHECK: %{{.*}}, %[[H:.*]] = rnn.scan
// CHECK: return %[[H]]
func.func @negative_used_final_carry_kept(%x: tensor<4x6x5xf32>) -> tensor<4x5xf32> {
  %y, %h = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32>, tensor<4x5xf32> {
  ^bb0(%h0: tensor<4x5xf32>, %xt: tensor<4x5xf32>):
    %s = arith.addf %h0, %xt : tensor<4x5xf32>
    rnn.yield carry(%s : tensor<4x5xf32>) output(%s : tensor<4x5xf32>)
  }
  return %h : tensor<4x5xf32>
}

// -----

/// Pool(last) of a scan's outputs reads the scan's final h instead, so the
/// outputs need not be stored.

// CHECK-LABEL: func.func @pool_last_reads_final_carry
// CHECK: %{{.*}}, %[[H:.*]] = rnn.scan %{{.*}} reverse {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32>, tensor<4x5xf32>
// CHECK-NOT: rnn.pool
// CHECK: return %[[H]]
func.func @pool_last_reads_final_carry(%x: tensor<4x6x5xf32>) -> tensor<4x5xf32> {
  %y = rnn.scan %x reverse {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32> {
  ^bb0(%h0: tensor<4x5xf32>, %xt: tensor<4x5xf32>):
    %s = arith.addf %h0, %xt : tensor<4x5xf32>
    rnn.yield carry(%s : tensor<4x5xf32>) output(%s : tensor<4x5xf32>)
  }
  %p = rnn.pool <last> %y {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}

// -----

/// With the scan's own lengths, the last valid step is the final carry too.

// CHECK-LABEL: func.func @pool_last_valid_reads_final_carry
// CHECK: %{{.*}}, %[[H:.*]] = rnn.scan %{{.*}} lengths
// CHECK-NOT: rnn.pool
// CHECK: return %[[H]]
func.func @pool_last_valid_reads_final_carry(%x: tensor<4x6x5xf32>, %len: tensor<4xi32>) -> tensor<4x5xf32> {
  %y = rnn.scan %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32> {
  ^bb0(%h0: tensor<4x5xf32>, %xt: tensor<4x5xf32>):
    %s = arith.addf %h0, %xt : tensor<4x5xf32>
    rnn.yield carry(%s : tensor<4x5xf32>) output(%s : tensor<4x5xf32>)
  }
  %p = rnn.pool <last> %y lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}

// -----

/// Outputs flipped back by keep_order: their last step is the first one
/// processed, not the final carry.

// CHECK-LABEL: func.func @negative_pool_last_keep_order
// CHECK: rnn.pool <last>
func.func @negative_pool_last_keep_order(%x: tensor<4x6x5xf32>) -> tensor<4x5xf32> {
  %y = rnn.scan %x reverse keep_order {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32> {
  ^bb0(%h0: tensor<4x5xf32>, %xt: tensor<4x5xf32>):
    %s = arith.addf %h0, %xt : tensor<4x5xf32>
    rnn.yield carry(%s : tensor<4x5xf32>) output(%s : tensor<4x5xf32>)
  }
  %p = rnn.pool <last> %y {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}

// -----

/// The scan selects each row's carry by its lengths, the pool takes step
/// T-1 of every row: not the same step.

// CHECK-LABEL: func.func @negative_pool_last_lengths_differ
// CHECK: rnn.pool <last>
func.func @negative_pool_last_lengths_differ(%x: tensor<4x6x5xf32>, %len: tensor<4xi32>) -> tensor<4x5xf32> {
  %y = rnn.scan %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32> {
  ^bb0(%h0: tensor<4x5xf32>, %xt: tensor<4x5xf32>):
    %s = arith.addf %h0, %xt : tensor<4x5xf32>
    rnn.yield carry(%s : tensor<4x5xf32>) output(%s : tensor<4x5xf32>)
  }
  %p = rnn.pool <last> %y {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}

// -----

/// A row of length 0 pools to zeros but keeps a given initial carry.

// CHECK-LABEL: func.func @negative_pool_last_valid_with_init
// CHECK: rnn.pool <last>
func.func @negative_pool_last_valid_with_init(%x: tensor<4x6x5xf32>, %len: tensor<4xi32>, %h: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %y = rnn.scan %x lengths(%len : tensor<4xi32>) init(%h : tensor<4x5xf32>) {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32> {
  ^bb0(%h0: tensor<4x5xf32>, %xt: tensor<4x5xf32>):
    %s = arith.addf %h0, %xt : tensor<4x5xf32>
    rnn.yield carry(%s : tensor<4x5xf32>) output(%s : tensor<4x5xf32>)
  }
  %p = rnn.pool <last> %y lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}

// -----

/// Pool(mean) needs every step.

// CHECK-LABEL: func.func @negative_pool_mean
// CHECK: rnn.pool <mean>
func.func @negative_pool_mean(%x: tensor<4x6x5xf32>) -> tensor<4x5xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x6x5xf32> {
  ^bb0(%h0: tensor<4x5xf32>, %xt: tensor<4x5xf32>):
    %s = arith.addf %h0, %xt : tensor<4x5xf32>
    rnn.yield carry(%s : tensor<4x5xf32>) output(%s : tensor<4x5xf32>)
  }
  %p = rnn.pool <mean> %y {num_batch_dims = 1 : i64} : tensor<4x6x5xf32> -> tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}
