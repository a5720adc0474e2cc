// RUN: rnn-opt %s --convert-rnn-scan-to-scf --split-input-file | FileCheck %s
// RUN: rnn-opt %s --convert-rnn-scan-to-scf="time-block-bytes=96 time-block-rows=1" --split-input-file | FileCheck %s --check-prefix=BLOCKS
// RUN: rnn-opt %s --convert-rnn-scan-to-scf=ram-lean=true --split-input-file | FileCheck %s --check-prefix=LEAN

/// A scan whose input is an rnn.project (the cell's input product, split
/// out by --rnn-split-input-projection) computes it on what its loops
/// read: the whole input right before the time loop, whose steps then
/// slice the projection; the remainder step (T = 25, unroll 2) reads the
/// same projection. In blocks of steps, each block projects its own slice
/// of the input before its loop of steps, and the remainder step after
/// the blocks projects the whole input once. RAM-lean code projects each
/// step's input in the step.

// CHECK-LABEL: func.func @projected
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x25x3xf32>, %[[WI:[^:]+]]: tensor<3x4xf32>
// CHECK-NOT: rnn.project
// CHECK: %[[P:.*]] = rnn.project %[[X]] kernel(%[[WI]]) : tensor<2x25x3xf32>, tensor<3x4xf32> -> tensor<2x25x4xf32>
// CHECK-NEXT: scf.for %[[T:[^ ]+]] =
// CHECK:   %[[GT:.*]] = tensor.extract_slice %[[P]][0, %[[T]], 0] [2, 1, 4] [1, 1, 1] : tensor<2x25x4xf32> to tensor<2x4xf32>
// CHECK:   rnn.simple_cell(%[[GT]], %{{.*}}) kernels(%[[WI]], %{{.*}}) projected_input
// CHECK: tensor.extract_slice %[[P]][0, 24, 0] [2, 1, 4]
// CHECK-NOT: rnn.project

// BLOCKS-LABEL: func.func @projected
// BLOCKS-SAME: (%[[X:[^:]+]]: tensor<2x25x3xf32>, %[[WI:[^:]+]]: tensor<3x4xf32>
// BLOCKS: scf.for %[[FIRST:[^ ]+]] =
// BLOCKS:   %[[BLOCK:.*]] = tensor.extract_slice %[[X]][0, %[[FIRST]], 0] [2, 4, 3] [1, 1, 1] : tensor<2x25x3xf32> to tensor<2x4x3xf32>
// BLOCKS:   %[[PB:.*]] = rnn.project %[[BLOCK]] kernel(%[[WI]]) : tensor<2x4x3xf32>, tensor<3x4xf32> -> tensor<2x4x4xf32>
// BLOCKS-NEXT: scf.for %[[I:[^ ]+]] =
// BLOCKS:     tensor.extract_slice %[[PB]][0, %[[I]], 0] [2, 1, 4] [1, 1, 1] : tensor<2x4x4xf32> to tensor<2x4xf32>
// BLOCKS: %[[P:.*]] = rnn.project %[[X]] kernel(%[[WI]]) : tensor<2x25x3xf32>, tensor<3x4xf32> -> tensor<2x25x4xf32>
// BLOCKS: tensor.extract_slice %[[P]][0, 24, 0] [2, 1, 4]

// LEAN-LABEL: func.func @projected
// LEAN-SAME: (%[[X:[^:]+]]: tensor<2x25x3xf32>, %[[WI:[^:]+]]: tensor<3x4xf32>
// LEAN: scf.for %[[T:[^ ]+]] =
// LEAN:   %[[XT:.*]] = tensor.extract_slice %[[X]][0, %[[T]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x25x3xf32> to tensor<2x3xf32>
// LEAN:   %[[GT:.*]] = rnn.project %[[XT]] kernel(%[[WI]]) : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// LEAN:   rnn.simple_cell(%[[GT]],
func.func @projected(%x: tensor<2x25x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x25x4xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<2x25x3xf32>, tensor<3x4xf32> -> tensor<2x25x4xf32>
  %y = rnn.scan %p unroll 2 {num_batch_dims = 1 : i64} : tensor<2x25x4xf32> -> tensor<2x25x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %gt: tensor<2x4xf32>):
    %h1 = rnn.simple_cell(%gt, %h) kernels(%wi, %wh) projected_input : tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x25x4xf32>
}

// -----

/// Reverse with lengths: the input is flipped first, and the flipped input
/// projected (the product is row-wise, so it commutes with the flip).

// CHECK-LABEL: func.func @reversed_with_lengths
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x6x3xf32>, %[[LEN:[^:]+]]: tensor<2xi32>
// CHECK: %[[FLIP:.*]] = rnn.flip_sequences %[[X]] lengths(%[[LEN]] : tensor<2xi32>) {num_batch_dims = 1 : i64} : tensor<2x6x3xf32>
// CHECK: %[[P:.*]] = rnn.project %[[FLIP]] kernel(%{{.*}}) dynamic_int8 : tensor<2x6x3xf32>
// CHECK-NEXT: scf.for
// CHECK:   tensor.extract_slice %[[P]]
func.func @reversed_with_lengths(%x: tensor<2x6x3xf32>, %len: tensor<2xi32>,
    %wi: tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>>,
    %wh: tensor<4x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>>) -> tensor<2x6x4xf32> {
  %p = rnn.project %x kernel(%wi) dynamic_int8 : tensor<2x6x3xf32>, tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>> -> tensor<2x6x4xf32>
  %y = rnn.scan %p lengths(%len : tensor<2xi32>) reverse keep_order {num_batch_dims = 1 : i64} : tensor<2x6x4xf32> -> tensor<2x6x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %gt: tensor<2x4xf32>):
    %h1 = rnn.simple_cell(%gt, %h) kernels(%wi, %wh) projected_input {dynamic_int8} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>>, tensor<4x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,0.5}>>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x6x4xf32>
}

// -----

/// A run-time number of steps (T = 19, unroll 2): blocks of 16 steps, each
/// projecting its slice of the input before its loop (so do those of 8 and
/// 4); the blocks of 2 and 1 steps (one iteration, no loop over steps)
/// project each step's input.

// CHECK-LABEL: func.func @runtime_steps
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x19x3xf32>
// CHECK: scf.for
// CHECK:   %[[B16:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}, 0] [2, 16, 3]
// CHECK:   rnn.project %[[B16]] kernel(%{{.*}}) : tensor<2x16x3xf32>, tensor<3x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: scf.for
// CHECK:   rnn.project %{{.*}} : tensor<2x8x3xf32>
// CHECK:   rnn.project %{{.*}} : tensor<2x4x3xf32>
// CHECK: scf.for
// CHECK:   %[[B2:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}, 0] [2, 2, 3]
// CHECK-NEXT: %[[XT:.*]] = tensor.extract_slice %[[B2]][0, %{{.*}}, 0] [2, 1, 3] [1, 1, 1] : tensor<2x2x3xf32> to tensor<2x3xf32>
// CHECK-NEXT: rnn.project %[[XT]] kernel(%{{.*}}) : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
func.func @runtime_steps(%x: tensor<2x19x3xf32>, %n: index, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x19x4xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<2x19x3xf32>, tensor<3x4xf32> -> tensor<2x19x4xf32>
  %y = rnn.scan %p steps(%n) unroll 2 {num_batch_dims = 1 : i64} : tensor<2x19x4xf32> -> tensor<2x19x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %gt: tensor<2x4xf32>):
    %h1 = rnn.simple_cell(%gt, %h) kernels(%wi, %wh) projected_input : tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x19x4xf32>
}

// -----

/// Run-time rows (a batch of at most 4): each block of rows projects its
/// rows' input before its time loop, and the remainder step (T = 25,
/// unroll 2) reads that projection. In blocks of steps, each block of
/// steps projects its slice; the remainder step after them projects its
/// own input (projecting all the rows' steps for it would be done again
/// for every block of rows).

// CHECK-LABEL: func.func @runtime_rows
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x25x3xf32>
// CHECK: scf.for
// CHECK:   %[[ROWS:.*]] = tensor.extract_slice %[[X]][%{{.*}}, 0, 0] [4, 25, 3]
// CHECK:   %[[P:.*]] = rnn.project %[[ROWS]] kernel(%{{.*}}) : tensor<4x25x3xf32>, tensor<3x4xf32> -> tensor<4x25x4xf32>
// CHECK-NEXT: scf.for
// CHECK:     tensor.extract_slice %[[P]]
// CHECK:   tensor.extract_slice %[[P]][0, 24, 0] [4, 1, 4]

// BLOCKS-LABEL: func.func @runtime_rows
// BLOCKS-SAME: (%[[X:[^:]+]]: tensor<4x25x3xf32>
// BLOCKS: scf.for
// BLOCKS:   %[[ROWS:.*]] = tensor.extract_slice %[[X]][%{{.*}}, 0, 0] [4, 25, 3]
// BLOCKS:   scf.for
// BLOCKS:     %[[BLOCK:.*]] = tensor.extract_slice %[[ROWS]][0, %{{.*}}, 0] [4, 2, 3]
// BLOCKS:     rnn.project %[[BLOCK]] kernel(%{{.*}}) : tensor<4x2x3xf32>, tensor<3x4xf32> -> tensor<4x2x4xf32>
// BLOCKS:   %[[XT:.*]] = tensor.extract_slice %[[ROWS]][0, 24, 0] [4, 1, 3]
// BLOCKS-NEXT: rnn.project %[[XT]] kernel(%{{.*}}) : tensor<4x3xf32>, tensor<3x4xf32> -> tensor<4x4xf32>
func.func @runtime_rows(%x: tensor<4x25x3xf32>, %r: index, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<4x25x4xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<4x25x3xf32>, tensor<3x4xf32> -> tensor<4x25x4xf32>
  %y = rnn.scan %p rows(%r) unroll 2 {num_batch_dims = 1 : i64} : tensor<4x25x4xf32> -> tensor<4x25x4xf32> {
  ^bb0(%h: tensor<4x4xf32>, %gt: tensor<4x4xf32>):
    %h1 = rnn.simple_cell(%gt, %h) kernels(%wi, %wh) projected_input : tensor<4x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<4x4xf32>) output(%h1 : tensor<4x4xf32>)
  }
  return %y : tensor<4x25x4xf32>
}

// -----

/// bf16 compute: the projections the loops compute on their slices keep
/// the compute_type (rows and sums rounded to bf16).

// CHECK-LABEL: func.func @projected_bf16_compute
// CHECK: %[[P:.*]] = rnn.project %{{.*}} kernel(%{{.*}}) {compute_type = bf16} : tensor<2x24x3xf32>, tensor<3x4xbf16> -> tensor<2x24x4xf32>
// CHECK-NEXT: scf.for
// CHECK:   tensor.extract_slice %[[P]]

// BLOCKS-LABEL: func.func @projected_bf16_compute
// BLOCKS: scf.for
// BLOCKS:   rnn.project %{{.*}} kernel(%{{.*}}) {compute_type = bf16} : tensor<2x{{[0-9]+}}x3xf32>, tensor<3x4xbf16> -> tensor<2x{{[0-9]+}}x4xf32>
func.func @projected_bf16_compute(%x: tensor<2x24x3xf32>, %wi: tensor<3x4xbf16>, %wh: tensor<4x4xbf16>) -> tensor<2x24x4xf32> {
  %p = rnn.project %x kernel(%wi) {compute_type = bf16} : tensor<2x24x3xf32>, tensor<3x4xbf16> -> tensor<2x24x4xf32>
  %y = rnn.scan %p {num_batch_dims = 1 : i64} : tensor<2x24x4xf32> -> tensor<2x24x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %gt: tensor<2x4xf32>):
    %h1 = rnn.simple_cell(%gt, %h) kernels(%wi, %wh) projected_input {compute_type = bf16, carry_type = bf16} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<3x4xbf16>, tensor<4x4xbf16>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x24x4xf32>
}
