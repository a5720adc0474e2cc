// RUN: rnn-opt %s --convert-rnn-scan-to-scf --split-input-file | FileCheck %s

/// Zero-padded outputs with lengths: the 8 rows are ranked by decreasing
/// length (key L * 8 + 7 - row, so ties keep row order), then run in two
/// blocks of 4 sorted rows. Each block gathers its rows (input, lengths)
/// and starts from zero outputs; its rows then run in phases of 4, 3, 2
/// and 1 rows: the first 4 rows until the 4th (the shortest) ends, then
/// the first 3, from where the last phase stopped, until the 3rd ends, and
/// so on (T x 4 rows / 8 rows = 3 steps apart at most, at least two of the
/// loop's single-step iterations). Its outputs and final carries are then
/// scattered back to the rows they came from.

// CHECK-LABEL: func.func @length_sorted_blocks
// CHECK-SAME: (%[[X:[^:]+]]: tensor<8x6x3xf32>, %[[LEN:[^:]+]]: tensor<8xi32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
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
// CHECK:   %[[SHORTEST:.*]] = tensor.extract %[[LB]][%[[C3]]] : tensor<4xi32>
// CHECK:   %[[L3:.*]] = arith.index_cast %[[SHORTEST]] : i32 to index
// CHECK:   %[[UB4:.*]] = arith.minui %[[L3]], %[[C6]] : index
// CHECK:   %[[P4:.*]]:3 = scf.for %[[T:[^ ]+]] = %[[C0]] to %[[UB4]] step %{{.*}} iter_args(%{{.*}}, %{{.*}} = %[[ZEROS]], %{{.*}}) -> (tensor<4x4xf32>, tensor<4x6x4xf32>, tensor<4x4xf32>)
// CHECK:     tensor.extract_slice %[[XB]][0, %[[T]], 0] [4, 1, 3]
// CHECK:     rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<4x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
// CHECK:   %[[REACHED:.*]] = arith.minsi %[[L3]], %[[C6]] : index
// CHECK:   %[[START3:.*]] = arith.maxsi %[[REACHED]], %[[C0]] : index
// CHECK:   tensor.extract %[[LB]][%{{.*}}] : tensor<4xi32>
// CHECK:   tensor.extract_slice %[[XB]][0, 0, 0] [3, 6, 3]
// CHECK:   tensor.extract_slice %[[P4]]#1[0, 0, 0] [3, 6, 4]
// CHECK:   %[[P3:.*]]:3 = scf.for %{{.*}} = %[[START3]] to %{{.*}} iter_args({{.*}}) -> (tensor<3x4xf32>, tensor<3x6x4xf32>, tensor<3x4xf32>)
// CHECK:     rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<3x3xf32>, tensor<3x4xf32>
// CHECK:   tensor.insert_slice %[[P3]]#1 into %[[P4]]#1[0, 0, 0] [3, 6, 4]
// CHECK:   scf.for {{.*}} -> (tensor<2x4xf32>, tensor<2x6x4xf32>, tensor<2x4xf32>)
// CHECK:     rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<2x3xf32>, tensor<2x4xf32>
// CHECK:   scf.for {{.*}} -> (tensor<1x4xf32>, tensor<1x6x4xf32>, tensor<1x4xf32>)
// CHECK:     rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<1x3xf32>, tensor<1x4xf32>
// CHECK:   %[[FINALS:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<4x4xf32>
// CHECK:   scf.for {{.*}} -> (tensor<8x4xf32>)
// CHECK:     tensor.extract_slice %[[FINALS]][%{{.*}}, 0] [1, 4]
// CHECK:   scf.for {{.*}} -> (tensor<8x6x4xf32>)
// CHECK:     tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [1, 6, 4]
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
/// hoisted projection). The phase of 4 rows runs while a block starts
/// before the shortest row's length (bound min(L3, 64), step 8); the phase
/// of 3 rows starts at the first multiple of 8 at or after where the first
/// stopped, with blocks of 3 rows of the input.

// CHECK-LABEL: func.func @time_blocks_in_row_blocks
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (tensor<64x8x4xf32>)
// CHECK:   scf.for {{.*}} -> (tensor<64x4x3xf32>)
// CHECK:     tensor.extract_slice %{{.*}}[0, %{{.*}}, 0] [64, 1, 3]
// CHECK:   %[[SHORTEST:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<4xi32>
// CHECK:   %[[L:.*]] = arith.index_cast %[[SHORTEST]] : i32 to index
// CHECK:   %[[UB:.*]] = arith.minui %[[L]], %[[C64]] : index
// CHECK:   scf.for %[[FIRST:[^ ]+]] = %{{.*}} to %[[UB]] step %[[C8]]
// CHECK:     tensor.extract_slice %{{.*}}[%[[FIRST]], 0, 0] [8, 4, 3]
// CHECK:   %[[REACHED:.*]] = arith.minsi %[[L]], %[[C64]] : index
// CHECK:   %[[UP:.*]] = arith.addi %[[REACHED]], %[[C7]] : index
// CHECK:   %[[BLOCKS:.*]] = arith.divsi %[[UP]], %[[C8]] : index
// CHECK:   %[[STOP:.*]] = arith.muli %[[BLOCKS]], %[[C8]] : index
// CHECK:   %[[START:.*]] = arith.maxsi %[[STOP]], %{{.*}} : index
// CHECK:   scf.for %[[FIRST3:[^ ]+]] = %[[START]] to %{{.*}} step %[[C8]]
// CHECK:     tensor.extract_slice %{{.*}}[%[[FIRST3]], 0, 0] [8, 3, 3]
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
/// 3-5 % slower at B = 128). Its rows are at most 6 x 4 / 64 = 0 steps
/// apart, so a block runs whole, without phases of fewer rows.

// CHECK-LABEL: func.func @large_batch
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{[^ ]+}} iter_args
// CHECK:   rnn.simple_cell({{.*}}) kernels({{.*}}) : tensor<4x3xf32>
// CHECK-NOT: tensor<8x3xf32>
// CHECK-NOT: tensor<3x3xf32>
// CHECK: return
func.func @large_batch(%x: tensor<64x6x3xf32>, %len: tensor<64xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<64x6x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<64xi32>) zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<64x6x3xf32> -> tensor<64x6x4xf32> {
  ^bb0(%h: tensor<64x4xf32>, %xt: tensor<64x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<64x3xf32>, tensor<64x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<64x4xf32>) output(%h1 : tensor<64x4xf32>)
  }
  return %y : tensor<64x6x4xf32>
}
