// RUN: rnn-opt %s --convert-rnn-scan-to-scf="time-block-bytes=96 time-block-rows=1" | FileCheck %s
// RUN: rnn-opt %s --convert-rnn-scan-to-scf="time-block-bytes=100 time-block-rows=1" | FileCheck %s
// RUN: rnn-opt %s --convert-rnn-scan-to-scf="time-block-bytes=96 time-block-rows=16" | FileCheck %s --check-prefix=ROWS
// RUN: rnn-opt %s --convert-rnn-scan-to-scf=time-block-bytes=0 | FileCheck %s --check-prefix=NOBLOCK
// RUN: rnn-opt %s --convert-rnn-scan-to-scf="time-block-bytes=101 time-block-rows=1" | FileCheck %s --check-prefix=NOBLOCK

/// T = 25, unroll 2, 32 bytes of outputs per step (2 x 4 floats). With
/// 96-byte blocks (the 800 bytes of outputs exceed 8 x 96): blocks of 4
/// steps (2 would hold only 64 bytes) over the first 24, each with its own
/// slice of the input, which its steps index from 0, in a loop of two
/// unrolled steps; outputs are stored at the global step. The remainder
/// step reads the whole input. 100-byte blocks are the same (800 is just 8
/// x 100); with 101-byte blocks the outputs are not large enough, and 0
/// turns blocks off. With at least 16 rows per block, blocks hold 8 steps
/// (2 rows each).

// CHECK-LABEL: func.func @blocks_of_four
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x25x3xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C24:.*]] = arith.constant 24 : index
// CHECK: scf.for %[[FIRST:[^ ]+]] = %[[C0]] to %[[C24]] step %[[C4]]
// CHECK:   %[[BLOCK:.*]] = tensor.extract_slice %[[X]][0, %[[FIRST]], 0] [2, 4, 3] [1, 1, 1] : tensor<2x25x3xf32> to tensor<2x4x3xf32>
// CHECK:   scf.for %[[I:[^ ]+]] = %{{.*}} to %{{.*}} step %[[C2]] iter_args
// CHECK:     %[[T:.*]] = arith.addi %[[FIRST]], %[[I]] : index
// CHECK:     %[[X0:.*]] = tensor.extract_slice %[[BLOCK]][0, %[[I]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x4x3xf32> to tensor<2x3xf32>
// CHECK:     rnn.simple_cell(%[[X0]],
// CHECK:     tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[T]], 0] [2, 1, 4]
// CHECK:     %[[T1:.*]] = arith.addi %[[T]], %{{.*}} : index
// CHECK:     %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:     tensor.extract_slice %[[BLOCK]][0, %[[I1]], 0] [2, 1, 3]
// CHECK:     tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[T1]], 0] [2, 1, 4]
// CHECK: tensor.extract_slice %[[X]][0, 24, 0] [2, 1, 3]

// ROWS-LABEL: func.func @blocks_of_four
// ROWS-DAG: %[[C8:.*]] = arith.constant 8 : index
// ROWS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C8]]
// ROWS:   tensor.extract_slice %{{.*}} [2, 8, 3] [1, 1, 1] : tensor<2x25x3xf32> to tensor<2x8x3xf32>

// NOBLOCK-LABEL: func.func @blocks_of_four
// NOBLOCK: scf.for
// NOBLOCK-NOT: scf.for
// NOBLOCK-NOT: tensor<2x4x3xf32>
func.func @blocks_of_four(%x: tensor<2x25x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x25x4xf32> {
  %y = rnn.scan %x unroll 2 {num_batch_dims = 1 : i64} : tensor<2x25x3xf32> -> tensor<2x25x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x25x4xf32>
}

// -----

/// Reverse without lengths in blocks: processing steps [first, first + 4)
/// read the input block at T - first - 4 = 21 - first (T = 25 here, but
/// the loop covers the first 24 steps), steps within it from its end.

// CHECK-LABEL: func.func @reversed_blocks
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C21:.*]] = arith.constant 21 : index
// CHECK: scf.for %[[FIRST:[^ ]+]] =
// CHECK:   %[[START:.*]] = arith.subi %[[C21]], %[[FIRST]] : index
// CHECK:   %[[BLOCK:.*]] = tensor.extract_slice %{{.*}}[0, %[[START]], 0] [2, 4, 3]
// CHECK:   scf.for %[[I:[^ ]+]] =
// CHECK:     %[[LOCAL:.*]] = arith.subi %[[C3]], %[[I]] : index
// CHECK:     tensor.extract_slice %[[BLOCK]][0, %[[LOCAL]], 0] [2, 1, 3]
// ROWS-LABEL: func.func @reversed_blocks
// NOBLOCK-LABEL: func.func @reversed_blocks
func.func @reversed_blocks(%x: tensor<2x25x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x25x4xf32> {
  %y = rnn.scan %x reverse unroll 2 {num_batch_dims = 1 : i64} : tensor<2x25x3xf32> -> tensor<2x25x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x25x4xf32>
}

// -----

/// A part of a static batch (rnn.time_block_batch, <name>_run_parallel's
/// tasks): 1 of the 2 rows above takes the blocks of steps of the whole
/// (4 steps; 8 with 16 rows per block), so its sweeps run as in the
/// whole's call. Alone, its 400 bytes of outputs take no blocks.

// CHECK-LABEL: func.func @part_of_two
// CHECK: tensor.extract_slice %{{.*}} [1, 4, 3] [1, 1, 1] : tensor<1x25x3xf32> to tensor<1x4x3xf32>
// CHECK-LABEL: func.func @one_row
// CHECK-NOT: tensor<1x4x3xf32>
// CHECK: return
// ROWS-LABEL: func.func @part_of_two
// ROWS: tensor.extract_slice %{{.*}} [1, 8, 3] [1, 1, 1] : tensor<1x25x3xf32> to tensor<1x8x3xf32>
// NOBLOCK-LABEL: func.func @part_of_two
// NOBLOCK-NOT: tensor<1x4x3xf32>
// NOBLOCK: return
func.func @part_of_two(%x: tensor<1x25x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<1x25x4xf32> attributes {rnn.time_block_batch = 2 : i64} {
  %y = rnn.scan %x unroll 2 {num_batch_dims = 1 : i64} : tensor<1x25x3xf32> -> tensor<1x25x4xf32> {
  ^bb0(%h: tensor<1x4xf32>, %xt: tensor<1x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<1x3xf32>, tensor<1x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<1x4xf32>) output(%h1 : tensor<1x4xf32>)
  }
  return %y : tensor<1x25x4xf32>
}
func.func @one_row(%x: tensor<1x25x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<1x25x4xf32> {
  %y = rnn.scan %x unroll 2 {num_batch_dims = 1 : i64} : tensor<1x25x3xf32> -> tensor<1x25x4xf32> {
  ^bb0(%h: tensor<1x4xf32>, %xt: tensor<1x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<1x3xf32>, tensor<1x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<1x4xf32>) output(%h1 : tensor<1x4xf32>)
  }
  return %y : tensor<1x25x4xf32>
}
