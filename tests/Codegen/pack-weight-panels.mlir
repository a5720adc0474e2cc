// RUN: rnn-opt %s --rnn-pack-weight-panels --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-pack-weight-panels=pair-bf16-lanes=2 --split-input-file | FileCheck %s --check-prefix=PAIR

/// The rows of 2-wide panels of a 2x4 constant, read in a loop over
/// column blocks: the constant is stored panel after panel, [4/2, 2, 2],
/// and each read takes the same row of the same panel.

// CHECK-LABEL: func.func @panels
// CHECK-DAG: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00], [4.000000e+00, 5.000000e+00]], {{\[\[}}2.000000e+00, 3.000000e+00], [6.000000e+00, 7.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.for %[[J:[^ ]+]] = %{{.*}} to %{{.*}} step %[[C2]]
// CHECK:   scf.for %[[K:[^ ]+]] =
// CHECK:     %[[PANEL:.*]] = arith.divui %[[J]], %{{.*}} : index
// CHECK:     tensor.extract_slice %[[PACKED]][%[[PANEL]], %[[K]], 0] [1, 1, 2] [1, 1, 1] : tensor<2x2x2xf32> to tensor<1x2xf32>
// CHECK-NOT: tensor<2x4xf32>
func.func @panels(%out: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<2x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %j = %c0 to %c4 step %c2 iter_args(%a = %out) -> (tensor<1x2xf32>) {
    %s = scf.for %k = %c0 to %c2 step %c1 iter_args(%b = %a) -> (tensor<1x2xf32>) {
      %row = tensor.extract_slice %w[%k, %j] [1, 2] [1, 1] : tensor<2x4xf32> to tensor<1x2xf32>
      %sum = arith.addf %b, %row : tensor<1x2xf32>
      scf.yield %sum : tensor<1x2xf32>
    }
    scf.yield %s : tensor<1x2xf32>
  }
  return %r : tensor<1x2xf32>
}

// -----

/// A whole panel (a block's slice before its loop over k) maps to one panel
/// of the packed constant.

// CHECK-LABEL: func.func @whole_panel
// CHECK: %[[PACKED:.*]] = arith.constant dense<1.000000e+00> : tensor<2x8x4xf32>
// CHECK: tensor.extract_slice %[[PACKED]][1, 0, 0] [1, 8, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<8x4xf32>
func.func @whole_panel() -> tensor<8x4xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %panel = tensor.extract_slice %w[0, 4] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  return %panel : tensor<8x4xf32>
}

// -----

/// Constant column offsets give constant panel indices; a splat stays a
/// splat.

// CHECK-LABEL: func.func @static_offsets
// CHECK: %[[PACKED:.*]] = arith.constant dense<1.000000e+00> : tensor<4x8x2xf32>
// CHECK: tensor.extract_slice %[[PACKED]][3, 5, 0] [1, 1, 2] [1, 1, 1] : tensor<4x8x2xf32> to tensor<1x2xf32>
func.func @static_offsets() -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %row = tensor.extract_slice %w[5, 6] [1, 2] [1, 1] : tensor<8x8xf32> to tensor<1x2xf32>
  return %row : tensor<1x2xf32>
}

// -----

/// Column blocks visited backwards on odd steps (--rnn-vectorize-matmuls'
/// alternate sweeps): the mirrored offset, a difference and a choice of
/// multiples of the width, is still a panel boundary.

// CHECK-LABEL: func.func @mirrored_offsets
// CHECK-DAG: %[[PACKED:.*]] = arith.constant dense<1.000000e+00> : tensor<4x8x2xf32>
// CHECK: %[[MIRRORED:.*]] = arith.subi %{{.*}}, %[[J:[^ ]+]] : index
// CHECK: %[[VISITED:.*]] = arith.select %{{.*}}, %[[MIRRORED]], %[[J]] : index
// CHECK: %[[PANEL:.*]] = arith.divui %[[VISITED]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[PACKED]][%[[PANEL]], 0, 0] [1, 8, 2] [1, 1, 1] : tensor<4x8x2xf32> to tensor<8x2xf32>
func.func @mirrored_offsets(%backward: i1, %out: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %j = %c0 to %c8 step %c2 iter_args(%a = %out) -> (tensor<8x2xf32>) {
    %mirrored = arith.subi %c6, %j : index
    %visited = arith.select %backward, %mirrored, %j : index
    %panel = tensor.extract_slice %w[0, %visited] [8, 2] [1, 1] : tensor<8x8xf32> to tensor<8x2xf32>
    %sum = arith.addf %a, %panel : tensor<8x2xf32>
    scf.yield %sum : tensor<8x2xf32>
  }
  return %r : tensor<8x2xf32>
}

// -----

/// Left alone: a mirrored offset that is off the panel grid (7 - j).

// CHECK-LABEL: func.func @negative_mirrored_misaligned
// CHECK: tensor.extract_slice %{{.*}} : tensor<8x8xf32> to tensor<8x2xf32>
func.func @negative_mirrored_misaligned(%backward: i1, %out: tensor<8x2xf32>) -> tensor<8x2xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %r = scf.for %j = %c0 to %c6 step %c2 iter_args(%a = %out) -> (tensor<8x2xf32>) {
    %mirrored = arith.subi %c5, %j : index
    %visited = arith.select %backward, %mirrored, %j : index
    %panel = tensor.extract_slice %w[0, %visited] [8, 2] [1, 1] : tensor<8x8xf32> to tensor<8x2xf32>
    %sum = arith.addf %a, %panel : tensor<8x2xf32>
    scf.yield %sum : tensor<8x2xf32>
  }
  return %r : tensor<8x2xf32>
}

// -----

/// Left alone: a column offset that is not a multiple of the panel width.

// CHECK-LABEL: func.func @negative_misaligned
// CHECK: tensor.extract_slice %{{.*}}[5, 1] [1, 2] [1, 1] : tensor<8x8xf32>
func.func @negative_misaligned() -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %row = tensor.extract_slice %w[5, 1] [1, 2] [1, 1] : tensor<8x8xf32> to tensor<1x2xf32>
  return %row : tensor<1x2xf32>
}

// -----

/// Left alone: a loop whose step is not a multiple of the width.

// CHECK-LABEL: func.func @negative_loop_step
// CHECK: tensor.extract_slice %{{.*}}[0, %{{.*}}] [1, 2] [1, 1] : tensor<8x8xf32>
func.func @negative_loop_step(%out: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %r = scf.for %j = %c0 to %c6 step %c1 iter_args(%a = %out) -> (tensor<1x2xf32>) {
    %row = tensor.extract_slice %w[0, %j] [1, 2] [1, 1] : tensor<8x8xf32> to tensor<1x2xf32>
    scf.yield %row : tensor<1x2xf32>
  }
  return %r : tensor<1x2xf32>
}

// -----

/// Left alone: reads of two widths, and a use that is not a panel row.

// CHECK-LABEL: func.func @negative_mixed_uses
// CHECK: tensor.extract_slice %[[W:.*]][0, 0] [1, 2] [1, 1] : tensor<8x8xf32>
// CHECK: tensor.extract_slice %[[W]][0, 0] [1, 4] [1, 1] : tensor<8x8xf32>
// CHECK-LABEL: func.func @negative_whole_use
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [1, 2] [1, 1] : tensor<8x8xf32>
func.func @negative_mixed_uses() -> (tensor<1x2xf32>, tensor<1x4xf32>) {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %a = tensor.extract_slice %w[0, 0] [1, 2] [1, 1] : tensor<8x8xf32> to tensor<1x2xf32>
  %b = tensor.extract_slice %w[0, 0] [1, 4] [1, 1] : tensor<8x8xf32> to tensor<1x4xf32>
  return %a, %b : tensor<1x2xf32>, tensor<1x4xf32>
}
func.func @negative_whole_use() -> (tensor<1x2xf32>, tensor<8x8xf32>) {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %a = tensor.extract_slice %w[0, 0] [1, 2] [1, 1] : tensor<8x8xf32> to tensor<1x2xf32>
  return %a, %w : tensor<1x2xf32>, tensor<8x8xf32>
}

// -----

/// Left alone: a panel as wide as the matrix is already contiguous.

// CHECK-LABEL: func.func @negative_full_width
// CHECK: tensor.extract_slice %{{.*}}[3, 0] [1, 8] [1, 1] : tensor<8x8xf32>
func.func @negative_full_width() -> tensor<1x8xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %row = tensor.extract_slice %w[3, 0] [1, 8] [1, 1] : tensor<8x8xf32> to tensor<1x8xf32>
  return %row : tensor<1x8xf32>
}

// -----

/// A block of columns at a dynamic offset, read panel by panel (a piece of
/// the projection, then its register blocks): the panels are read straight
/// from the packed constant, at the block's offset plus the panel's. The
/// block's offset is a product of a multiple of the panel width.

// CHECK-LABEL: func.func @slice_of_slice
// CHECK-DAG: %[[PACKED:.*]] = arith.constant dense<1.000000e+00> : tensor<4x8x2xf32>
// CHECK: %[[BLOCK:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: scf.for %[[J:[^ ]+]] =
// CHECK:   %[[COLUMN:.*]] = arith.addi %[[BLOCK]], %[[J]] : index
// CHECK:   %[[PANEL:.*]] = arith.divui %[[COLUMN]], %{{.*}} : index
// CHECK:   tensor.extract_slice %[[PACKED]][%[[PANEL]], 3, 0] [1, 1, 2] [1, 1, 1] : tensor<4x8x2xf32> to tensor<1x2xf32>
// CHECK-NOT: tensor<8x8xf32>
// CHECK-NOT: tensor<8x4xf32>
func.func @slice_of_slice(%piece: index, %out: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %column = arith.muli %piece, %c4 : index
  %block = tensor.extract_slice %w[0, %column] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  %r = scf.for %j = %c0 to %c4 step %c2 iter_args(%a = %out) -> (tensor<1x2xf32>) {
    %row = tensor.extract_slice %block[3, %j] [1, 2] [1, 1] : tensor<8x4xf32> to tensor<1x2xf32>
    %sum = arith.addf %a, %row : tensor<1x2xf32>
    scf.yield %sum : tensor<1x2xf32>
  }
  return %r : tensor<1x2xf32>
}

// -----

/// A product with an index that is not a multiple of the width is not
/// aligned (3 * 1 columns): the constant stays as it is.

// CHECK-LABEL: func.func @negative_product_misaligned
// CHECK: arith.constant dense<1.000000e+00> : tensor<8x8xf32>
func.func @negative_product_misaligned(%i: index) -> tensor<1x2xf32> {
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  %c3 = arith.constant 3 : index
  %column = arith.muli %i, %c3 : index
  %row = tensor.extract_slice %w[0, %column] [1, 2] [1, 1] : tensor<8x8xf32> to tensor<1x2xf32>
  return %row : tensor<1x2xf32>
}

// -----

/// bf16 weights (param_dtype: bfloat16) are packed alike: the bytes of each
/// element move, two at a time, and the packed constant stays bf16.

// CHECK-LABEL: func.func @bf16_panels
// CHECK-DAG: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00], [4.000000e+00, 5.000000e+00]], {{\[\[}}2.000000e+00, 3.000000e+00], [6.000000e+00, 7.000000e+00]]]> : tensor<2x2x2xbf16>
// CHECK: tensor.extract_slice %[[PACKED]][%{{.*}}, %{{.*}}, 0] [1, 1, 2] [1, 1, 1] : tensor<2x2x2xbf16> to tensor<1x2xbf16>
// CHECK-NOT: tensor<2x4xbf16>
func.func @bf16_panels(%out: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<2x4xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %j = %c0 to %c4 step %c2 iter_args(%a = %out) -> (tensor<1x2xf32>) {
    %s = scf.for %k = %c0 to %c2 step %c1 iter_args(%b = %a) -> (tensor<1x2xf32>) {
      %row = tensor.extract_slice %w[%k, %j] [1, 2] [1, 1] : tensor<2x4xbf16> to tensor<1x2xbf16>
      %wide = arith.extf %row : tensor<1x2xbf16> to tensor<1x2xf32>
      %sum = arith.addf %b, %wide : tensor<1x2xf32>
      scf.yield %sum : tensor<1x2xf32>
    }
    scf.yield %s : tensor<1x2xf32>
  }
  return %r : tensor<1x2xf32>
}

// -----

/// pair-bf16-lanes=2: bf16 rows read whole and widened right away are
/// stored with each 4-column group paired, columns (0, 2) then (1, 3) of
/// the group, and each widening is a shift (columns 0, 1 of each group)
/// and a mask (2, 3) of the 32-bit words, put back in column order. The
/// widened vector is the same; without the option nothing is paired.

// CHECK-LABEL: func.func @bf16_pairs
// CHECK: arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00
// CHECK: arith.extf
// PAIR-LABEL: func.func @bf16_pairs
// PAIR: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 2.000000e+00, 1.000000e+00, 3.000000e+00, 4.000000e+00, 6.000000e+00, 5.000000e+00, 7.000000e+00], [1.600000e+01, 1.800000e+01, 1.700000e+01, 1.900000e+01, 2.000000e+01, 2.200000e+01, 2.100000e+01, 2.300000e+01]], {{\[\[}}8.000000e+00, 1.000000e+01, 9.000000e+00, 1.100000e+01, 1.200000e+01, 1.400000e+01, 1.300000e+01, 1.500000e+01], [2.400000e+01, 2.600000e+01, 2.500000e+01, 2.700000e+01, 2.800000e+01, 3.000000e+01, 2.900000e+01, 3.100000e+01]]]> : tensor<2x2x8xbf16>
// PAIR: %[[ROW:.*]] = tensor.extract_slice %[[PACKED]]
// PAIR: %[[READ:.*]] = vector.transfer_read %[[ROW]]
// PAIR: %[[FLAT:.*]] = vector.shape_cast %[[READ]] : vector<1x8xbf16> to vector<8xbf16>
// PAIR: %[[WORDS:.*]] = vector.bitcast %[[FLAT]] : vector<8xbf16> to vector<4xi32>
// PAIR: %[[SIXTEEN:.*]] = arith.constant dense<16> : vector<4xi32>
// PAIR: %[[SHL:.*]] = arith.shli %[[WORDS]], %[[SIXTEEN]] : vector<4xi32>
// PAIR: %[[LOW:.*]] = arith.bitcast %[[SHL]] : vector<4xi32> to vector<4xf32>
// PAIR: %[[HIGH:.*]] = arith.constant dense<-65536> : vector<4xi32>
// PAIR: %[[AND:.*]] = arith.andi %[[WORDS]], %[[HIGH]] : vector<4xi32>
// PAIR: %[[UP:.*]] = arith.bitcast %[[AND]] : vector<4xi32> to vector<4xf32>
// PAIR: %[[COLS:.*]] = vector.shuffle %[[LOW]], %[[UP]] [0, 1, 4, 5, 2, 3, 6, 7] : vector<4xf32>, vector<4xf32>
// PAIR: %[[WIDE:.*]] = vector.shape_cast %[[COLS]] : vector<8xf32> to vector<1x8xf32>
// PAIR: arith.addf %{{.*}}, %[[WIDE]] : vector<1x8xf32>
// PAIR-NOT: arith.extf
func.func @bf16_pairs(%out: vector<1x8xf32>) -> vector<1x8xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]> : tensor<2x16xbf16>
  %pad = arith.constant 0.0 : bf16
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %j = %c0 to %c16 step %c8 iter_args(%a = %out) -> (vector<1x8xf32>) {
    %s = scf.for %k = %c0 to %c2 step %c1 iter_args(%b = %a) -> (vector<1x8xf32>) {
      %row = tensor.extract_slice %w[%k, %j] [1, 8] [1, 1] : tensor<2x16xbf16> to tensor<1x8xbf16>
      %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<1x8xbf16>, vector<1x8xbf16>
      %wide = arith.extf %v : vector<1x8xbf16> to vector<1x8xf32>
      %sum = arith.addf %b, %wide : vector<1x8xf32>
      scf.yield %sum : vector<1x8xf32>
    }
    scf.yield %s : vector<1x8xf32>
  }
  return %r : vector<1x8xf32>
}

// -----

/// A read used other than by a widening keeps the columns in order.

// PAIR-LABEL: func.func @bf16_pairs_unwidened
// PAIR: arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]
// PAIR-NOT: arith.shli
func.func @bf16_pairs_unwidened(%j: index) -> vector<1x4xbf16> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]]> : tensor<1x8xbf16>
  %pad = arith.constant 0.0 : bf16
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %col = arith.muli %j, %c4 : index
  %row = tensor.extract_slice %w[0, %col] [1, 4] [1, 1] : tensor<1x8xbf16> to tensor<1x4xbf16>
  %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<1x4xbf16>, vector<1x4xbf16>
  return %v : vector<1x4xbf16>
}

// -----

/// Rows read two at a time (an even k) and interleaved into (k, k + 1)
/// pairs, as rnn-vectorize-matmuls' bf16 dot blocks read them: the
/// constant is stored as k pairs, [N / n, K / 2, 2n] with w[2 k2 + r, j]
/// at [j / n, k2, 2 (j % n) + r], and each read is one row of it, with no
/// shuffle.

// CHECK-LABEL: func.func @bf16_k_pairs
// CHECK: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 4.000000e+00, 1.000000e+00, 5.000000e+00], [8.000000e+00, 1.200000e+01, 9.000000e+00, 1.300000e+01]], {{\[\[}}2.000000e+00, 6.000000e+00, 3.000000e+00, 7.000000e+00], [1.000000e+01, 1.400000e+01, 1.100000e+01, 1.500000e+01]]]> : tensor<2x2x4xbf16>
// CHECK: scf.for %[[J:[^ ]*]] =
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK-DAG: %[[PANEL:.*]] = arith.divui %[[J]], %{{.*}} : index
// CHECK-DAG: %[[K2:.*]] = arith.divui %[[K]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[PACKED]][%[[PANEL]], %[[K2]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x2x4xbf16> to tensor<1x4xbf16>
// CHECK: %[[READ:.*]] = vector.transfer_read %[[ROW]]{{.*}} : tensor<1x4xbf16>, vector<1x4xbf16>
// CHECK: %[[FLAT:.*]] = vector.shape_cast %[[READ]] : vector<1x4xbf16> to vector<4xbf16>
// CHECK: vector.bitcast %[[FLAT]] : vector<4xbf16> to vector<2xi32>
// CHECK-NOT: vector.shuffle
func.func @bf16_k_pairs(%out: vector<2xi32>) -> vector<2xi32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]> : tensor<4x4xbf16>
  %pad = arith.constant 0.0 : bf16
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %j = %c0 to %c4 step %c2 iter_args(%a = %out) -> (vector<2xi32>) {
    %s = scf.for %k = %c0 to %c4 step %c2 iter_args(%b = %a) -> (vector<2xi32>) {
      %rows = tensor.extract_slice %w[%k, %j] [2, 2] [1, 1] : tensor<4x4xbf16> to tensor<2x2xbf16>
      %v = vector.transfer_read %rows[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<2x2xbf16>, vector<2x2xbf16>
      %flat = vector.shape_cast %v : vector<2x2xbf16> to vector<4xbf16>
      %pairs = vector.shuffle %flat, %flat [0, 2, 1, 3] : vector<4xbf16>, vector<4xbf16>
      %words = vector.bitcast %pairs : vector<4xbf16> to vector<2xi32>
      %sum = arith.addi %b, %words : vector<2xi32>
      scf.yield %sum : vector<2xi32>
    }
    scf.yield %s : vector<2xi32>
  }
  return %r : vector<2xi32>
}

// -----

/// A single panel (n = N) is stored as k pairs too; a shuffle that is not
/// the interleave leaves the constant as it is.

// CHECK-LABEL: func.func @bf16_k_pairs_one_panel
// CHECK: arith.constant dense<{{\[\[\[}}0.000000e+00, 2.000000e+00, 1.000000e+00, 3.000000e+00]]]> : tensor<1x1x4xbf16>
// CHECK-NOT: vector.shuffle
// CHECK-LABEL: func.func @bf16_not_interleaved
// CHECK: arith.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00]]> : tensor<2x2xbf16>
// CHECK: vector.shuffle %{{.*}} [0, 1, 2, 3]
func.func @bf16_k_pairs_one_panel() -> vector<4xbf16> {
  %w = arith.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xbf16>
  %pad = arith.constant 0.0 : bf16
  %c0 = arith.constant 0 : index
  %rows = tensor.extract_slice %w[0, 0] [2, 2] [1, 1] : tensor<2x2xbf16> to tensor<2x2xbf16>
  %v = vector.transfer_read %rows[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<2x2xbf16>, vector<2x2xbf16>
  %flat = vector.shape_cast %v : vector<2x2xbf16> to vector<4xbf16>
  %pairs = vector.shuffle %flat, %flat [0, 2, 1, 3] : vector<4xbf16>, vector<4xbf16>
  return %pairs : vector<4xbf16>
}
func.func @bf16_not_interleaved() -> vector<4xbf16> {
  %w = arith.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xbf16>
  %pad = arith.constant 0.0 : bf16
  %c0 = arith.constant 0 : index
  %rows = tensor.extract_slice %w[0, 0] [2, 2] [1, 1] : tensor<2x2xbf16> to tensor<2x2xbf16>
  %v = vector.transfer_read %rows[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<2x2xbf16>, vector<2x2xbf16>
  %flat = vector.shape_cast %v : vector<2x2xbf16> to vector<4xbf16>
  %pairs = vector.shuffle %flat, %flat [0, 1, 2, 3] : vector<4xbf16>, vector<4xbf16>
  return %pairs : vector<4xbf16>
}
