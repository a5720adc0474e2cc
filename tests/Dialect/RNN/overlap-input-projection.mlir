// RUN: rnn-opt %s --rnn-split-input-projection --rnn-overlap-input-projection --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-split-input-projection --rnn-overlap-input-projection="rows=2 min-rows=2" --split-input-file | FileCheck %s --check-prefix=ROWS2
// RUN: rnn-opt %s --rnn-split-input-projection --rnn-overlap-input-projection="rows=2" --split-input-file | FileCheck %s --check-prefix=MIN4
// RUN: rnn-opt %s --rnn-split-input-projection --rnn-overlap-input-projection="max-kernel-bytes=4095" --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: rnn-opt %s --rnn-split-input-projection --rnn-overlap-input-projection="piece-lanes=8" --split-input-file | FileCheck %s --check-prefix=LANES8

/// Batch 1, 32 steps, input size = hidden size 16: the scan's input is its
/// LSTM cell's projection, [32, 16] x [16, 64]. N = 64 makes pieces of 16
/// columns for 4 rows (8 rows would leave 8 columns, less than a vector),
/// so the scan computes its projection 4 rows at a time beside the
/// recurrence.

// CHECK-LABEL: func.func @batch1
// CHECK: %[[P:.*]] = rnn.project %{{.*}} kernel(%{{.*}}) : tensor<1x32x16xf32>, tensor<16x64xf32> -> tensor<1x32x64xf32>
// CHECK: rnn.scan %[[P]] {num_batch_dims = 1 : i64, overlap_rows = 4 : i64}

/// With at most 2 rows: groups of 2.
// ROWS2-LABEL: func.func @batch1
// ROWS2: overlap_rows = 2 : i64

/// With pieces of at least 8 columns (a vector of 8 floats), 8 rows fit.
// LANES8-LABEL: func.func @batch1
// LANES8: overlap_rows = 8 : i64

/// Groups of 2 rows are fewer than min-rows (4 by default): left alone.
// MIN4-LABEL: func.func @batch1
// MIN4-NOT: overlap_rows

/// Kernels larger than max-kernel-bytes (4 KiB here) are left alone.
// SMALL-LABEL: func.func @batch1
// SMALL-NOT: overlap_rows
func.func @batch1(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

/// Left alone: steps read in reverse (the ring is filled in step order), a
/// recurrent product of another depth (input size 16, hidden size 32), T =
/// 3 (no group of 2 rows fits 4 times), unroll 2, two batch rows, a
/// kernel that another projection also reads (it would have to read it in
/// the pieces' narrow blocks), and @batch1 in a function built to be split
/// into column tasks (rnn.column_split: a piece's columns would cross the
/// tasks' shares).

// CHECK-LABEL: func.func @negative_reversed
// CHECK-NOT: overlap_rows
// CHECK-LABEL: func.func @negative_other_depth
// CHECK-NOT: overlap_rows
// CHECK-LABEL: func.func @negative_three_steps
// CHECK-NOT: overlap_rows
// CHECK-LABEL: func.func @negative_unroll
// CHECK-NOT: overlap_rows
// CHECK-LABEL: func.func @negative_two_rows
// CHECK-NOT: overlap_rows
// CHECK-LABEL: func.func @negative_shared_kernel
// CHECK-NOT: overlap_rows
func.func @negative_reversed(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> {
  %y = rnn.scan %x reverse {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}
func.func @negative_other_depth(%x: tensor<1x32x16xf32>, %wi: tensor<16x128xf32>, %wh: tensor<32x128xf32>) -> tensor<1x32x32xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x32xf32> {
  ^bb0(%c: tensor<1x32xf32>, %h: tensor<1x32xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x32xf32>, tensor<16x128xf32>, tensor<32x128xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x32xf32>, tensor<1x32xf32>) output(%h1 : tensor<1x32xf32>)
  }
  return %y : tensor<1x32x32xf32>
}
func.func @negative_three_steps(%x: tensor<1x3x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x3x16xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<1x3x16xf32> -> tensor<1x3x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x3x16xf32>
}
func.func @negative_unroll(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> {
  %y = rnn.scan %x unroll 2 {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}
func.func @negative_two_rows(%x: tensor<2x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<2x32x16xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<2x32x16xf32> -> tensor<2x32x16xf32> {
  ^bb0(%c: tensor<2x16xf32>, %h: tensor<2x16xf32>, %xt: tensor<2x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<2x16xf32>, tensor<2x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<2x16xf32>, tensor<2x16xf32>) output(%h1 : tensor<2x16xf32>)
  }
  return %y : tensor<2x32x16xf32>
}
func.func @negative_shared_kernel(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>, %x2: tensor<1x32x16xf32>) -> (tensor<1x32x16xf32>, tensor<1x32x16xf32>) {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  %y2 = rnn.scan %x2 {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y, %y2 : tensor<1x32x16xf32>, tensor<1x32x16xf32>
}
// CHECK-LABEL: func.func @negative_column_split
// CHECK: rnn.project
// CHECK-NOT: overlap_rows
func.func @negative_column_split(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> attributes {rnn.column_split = 8 : i64} {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

/// bf16 kernels (param_dtype: bfloat16) count 2 bytes a weight (2 KiB here,
/// so even max-kernel-bytes=4095 overlaps them). With lengths the steps are
/// in order even reversed (each row's steps are flipped first).

// CHECK-LABEL: func.func @batch1_bf16
// CHECK: rnn.scan %{{.*}} {num_batch_dims = 1 : i64, overlap_rows = 4 : i64}
// SMALL-LABEL: func.func @batch1_bf16
// SMALL: overlap_rows = 4 : i64
func.func @batch1_bf16(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xbf16>, %wh: tensor<16x64xbf16>) -> tensor<1x32x16xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xbf16>, tensor<16x64xbf16>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// CHECK-LABEL: func.func @reversed_lengths
// CHECK: rnn.scan %{{.*}} lengths(%{{.*}} : tensor<1xi32>) reverse {num_batch_dims = 1 : i64, overlap_rows = 4 : i64}
func.func @reversed_lengths(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>, %len: tensor<1xi32>) -> tensor<1x32x16xf32> {
  %y = rnn.scan %x lengths(%len : tensor<1xi32>) reverse {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

/// bf16 compute: split (a projection with compute_type bf16), never
/// overlapped: the ring would hold rounded sums, and a loop over k shared
/// with the piece has no bf16 dot block (vdpbf16ps) for the recurrence.

// CHECK-LABEL: func.func @negative_bf16_compute
// CHECK: rnn.project %{{.*}} kernel(%{{.*}}) {compute_type = bf16}
// CHECK-NOT: overlap_rows
// SMALL-LABEL: func.func @negative_bf16_compute
// SMALL-NOT: overlap_rows
func.func @negative_bf16_compute(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xbf16>, %wh: tensor<16x64xbf16>) -> tensor<1x32x16xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %xt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) {compute_type = bf16, carry_type = bf16} : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xbf16>, tensor<16x64xbf16>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}
