// RUN: rnn-opt %s --convert-rnn-scan-to-scf --split-input-file | FileCheck %s

/// Zero-padded outputs with lengths: the 8 rows are ranked by decreasing
/// length (key L * 8 + 7 - row, so ties keep row order), then run in two
/// blocks of 4 sorted rows. Each block gathers its rows (input, lengths),
/// starts from zero outputs and runs the steps only up to its first (so
/// longest) row's length; its outputs and final carries are scattered back
/// to the rows they came from.

// CHECK-LABEL: func.func @length_sorted_blocks
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x6x3xf32>, %[[LEN:[^:]+]]: tensor<8xi32>
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[ORDER:.*]] = scf.for %[[R:[^ ]+]] = %{{.*}} to %[[C8]]
// CHECK:   scf.for %{{.*}} to %[[C8]]
// CHECK:     arith.cmpi sgt, %{{.*}} : i64
// CHECK:   %[[RANKED:.*]] = arith.index_cast %[[R]] : index to i32
// CHECK:   tensor.insert %[[RANKED]]
// CHECK: %[[BLOCKS:.*]]:2 = scf.for %[[FIRST:[^ ]+]] = %{{.*}} to %[[C8]] step %[[C4]]
// CHECK:   %[[XB:.*]] = scf.for {{.*}} -> (tensor<4x6x3xf32>)
// CHECK:     tensor.extract %[[ORDER]]
// CHECK:     tensor.extract_slice %[[X]][%{{.*}}, 0, 0] [1, 6, 3]
// CHECK:   %[[LB:.*]] = scf.for {{.*}} -> (tensor<4xi32>)
// CHECK:   %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x6x4xf32>)
// CHECK:   %[[LONGEST:.*]] = tensor.extract %[[LB]][%{{.*}}] : tensor<4xi32>
// CHECK:   %[[L:.*]] = arith.index_cast %[[LONGEST]] : i32 to index
// CHECK:   %[[UB:.*]] = arith.minui %[[L]], %[[C6]] : index
// CHECK:   %[[STEPS:.*]]:3 = scf.for %[[T:[^ ]+]] = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%{{.*}}, %{{.*}} = %[[ZEROS]], %{{.*}}) -> (tensor<4x4xf32>, tensor<4x6x4xf32>, tensor<4x4xf32>)
// CHECK:     tensor.extract_slice %[[XB]][0, %[[T]], 0] [4, 1, 3]
// CHECK:     rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<4x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
// CHECK:   scf.for {{.*}} -> (tensor<8x4xf32>)
// CHECK:     tensor.extract_slice %[[STEPS]]#2[%{{.*}}, 0] [1, 4]
// CHECK:   scf.for {{.*}} -> (tensor<8x6x4xf32>)
// CHECK:     tensor.extract_slice %[[STEPS]]#1[%{{.*}}, 0, 0] [1, 6, 4]
// CHECK: return %[[BLOCKS]]#1, %[[BLOCKS]]#0
func.func @length_sorted_blocks(%x: tensor<8x6x3xf32>, %len: tensor<8xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> (tensor<8x6x4xf32>, tensor<8x4xf32>) {
  %y, %hT = rnn.scan %x lengths(%len : tensor<8xi32>) zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<8x6x3xf32> -> tensor<8x6x4xf32>, tensor<8x4xf32> {
  ^bb0(%h: tensor<8x4xf32>, %xt: tensor<8x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<8x3xf32>, tensor<8x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<8x4xf32>) output(%h1 : tensor<8x4xf32>)
  }
  return %y, %hT : tensor<8x6x4xf32>, tensor<8x4xf32>
}

// -----

/// Time-major, 64 steps: blocks of 8 steps (8 x 4 rows = 32 rows for the
/// hoisted projection), run while a block starts before the longest row's
/// length: the loop's bound is min(L, 64), its step 8.

// CHECK-LABEL: func.func @time_blocks_in_row_blocks
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (tensor<64x8x4xf32>)
// CHECK:   scf.for {{.*}} -> (tensor<64x4x3xf32>)
// CHECK:     tensor.extract_slice %{{.*}}[0, %{{.*}}, 0] [64, 1, 3]
// CHECK:   %[[LONGEST:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<4xi32>
// CHECK:   %[[L:.*]] = arith.index_cast %[[LONGEST]] : i32 to index
// CHECK:   %[[UB:.*]] = arith.minui %[[L]], %[[C64]] : index
// CHECK:   scf.for %[[FIRST:[^ ]+]] = %{{.*}} to %[[UB]] step %[[C8]]
// CHECK:     tensor.extract_slice %{{.*}}[%[[FIRST]], 0, 0] [8, 4, 3]
func.func @time_blocks_in_row_blocks(%x: tensor<64x8x3xf32>, %len: tensor<8xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<64x8x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<8xi32>) time_major zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<64x8x3xf32> -> tensor<64x8x4xf32> {
  ^bb0(%h: tensor<8x4xf32>, %xt: tensor<8x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<8x3xf32>, tensor<8x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<8x4xf32>) output(%h1 : tensor<8x4xf32>)
  }
  return %y : tensor<64x8x4xf32>
}

// -----

/// Padded outputs computed (Flax's default): every row runs every step, in
/// one batch.

// CHECK-LABEL: func.func @computed_padding
// CHECK-NOT: arith.minui
// CHECK: scf.for {{.*}} -> (tensor<8x4xf32>, tensor<8x6x4xf32>)
// CHECK:   rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<8x3xf32>
func.func @computed_padding(%x: tensor<8x6x3xf32>, %len: tensor<8xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<8x6x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<8xi32>) {num_batch_dims = 1 : i64} : tensor<8x6x3xf32> -> tensor<8x6x4xf32> {
  ^bb0(%h: tensor<8x4xf32>, %xt: tensor<8x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<8x3xf32>, tensor<8x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<8x4xf32>) output(%h1 : tensor<8x4xf32>)
  }
  return %y : tensor<8x6x4xf32>
}

// -----

/// A batch of 7 (prime) has no blocks of at least 4 rows: one batch, every
/// step.

// CHECK-LABEL: func.func @prime_batch
// CHECK-NOT: arith.minui
// CHECK: scf.for {{.*}} -> (tensor<7x4xf32>, tensor<7x6x4xf32>)
// CHECK:   rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<7x3xf32>
func.func @prime_batch(%x: tensor<7x6x3xf32>, %len: tensor<7xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<7x6x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<7xi32>) zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<7x6x3xf32> -> tensor<7x6x4xf32> {
  ^bb0(%h: tensor<7x4xf32>, %xt: tensor<7x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<7x3xf32>, tensor<7x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<7x4xf32>) output(%h1 : tensor<7x4xf32>)
  }
  return %y : tensor<7x6x4xf32>
}

// -----

/// A batch of 18: no divisor in [4, 4], so the next larger one, 6 (three
/// blocks).

// CHECK-LABEL: func.func @blocks_of_six
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C6:[^ ]+]] iter_args
// CHECK:   rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<6x3xf32>
func.func @blocks_of_six(%x: tensor<18x6x3xf32>, %len: tensor<18xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<18x6x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<18xi32>) zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<18x6x3xf32> -> tensor<18x6x4xf32> {
  ^bb0(%h: tensor<18x4xf32>, %xt: tensor<18x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<18x3xf32>, tensor<18x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<18x4xf32>) output(%h1 : tensor<18x4xf32>)
  }
  return %y : tensor<18x6x4xf32>
}

// -----

/// A large batch (64) still runs in blocks of 4 rows, a register block's
/// height: rows in a block run until its longest ends, so fewer rows per
/// block waste less (blocks of an eighth of the batch, 8 rows here, were
/// 3-5 % slower at B = 128).

// CHECK-LABEL: func.func @large_batch
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{[^ ]+}} iter_args
// CHECK:   rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<4x3xf32>
// CHECK-NOT: tensor<8x3xf32>
func.func @large_batch(%x: tensor<64x6x3xf32>, %len: tensor<64xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<64x6x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<64xi32>) zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<64x6x3xf32> -> tensor<64x6x4xf32> {
  ^bb0(%h: tensor<64x4xf32>, %xt: tensor<64x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<64x3xf32>, tensor<64x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<64x4xf32>) output(%h1 : tensor<64x4xf32>)
  }
  return %y : tensor<64x6x4xf32>
}
