// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=1 tile-n=2 vector-lanes=2 min-block-columns=2" --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=1 tile-n=2 vector-lanes=2 min-block-columns=2 alternate-sweeps=true" --split-input-file | FileCheck %s --check-prefix=SWEEP
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=2 tile-n=2 vector-lanes=2 min-block-columns=2" --split-input-file | FileCheck %s --check-prefix=ROWS2
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=1 tile-n=8 vector-lanes=2 min-block-columns=2" --split-input-file | FileCheck %s --check-prefix=BF16
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=1 tile-n=8 vector-lanes=2 min-block-columns=2 pair-bf16-lanes=2" --split-input-file | FileCheck %s --check-prefix=PAIR
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=1 tile-n=4 vector-lanes=4 min-block-columns=4 bf16-dot=true pair-bf16-lanes=1" --split-input-file | FileCheck %s --check-prefix=DOT

///--- Constant weights are stored as the register blocks read them: the
///--- tiler decides the column width n of the blocks, packs the constant
///--- [K, N] as [N/n, K, n] and reads each step's rows from the panel of
///--- the column block its loop visits.

/// A 2x4 constant read in blocks of 2 columns: stored panel after panel,
/// [4/2, 2, 2], each step's row the same row of the same panel.

// CHECK-LABEL: func.func @panels
// CHECK: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00], [4.000000e+00, 5.000000e+00]], {{\[\[}}2.000000e+00, 3.000000e+00], [6.000000e+00, 7.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK: scf.for %[[J:[^ ]+]] =
// CHECK:   scf.for
// CHECK:     scf.for %[[K:[^ ]+]] =
// CHECK:     %[[PANEL:.*]] = arith.divui %[[J]], %{{.*}} : index
// CHECK:     tensor.extract_slice %[[PACKED]][%[[PANEL]], %[[K]], 0] [1, 1, 2] [1, 1, 1] : tensor<2x2x2xf32> to tensor<1x2xf32>
// CHECK:     vector.contract
// CHECK-NOT: tensor<2x4xf32>
func.func @panels(%x: tensor<1x2xf32>, %acc: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<2x4xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

/// Two matmuls of the same weights (steps of an unrolled loop): one packed
/// constant for both. With alternate sweeps the second visits the column
/// blocks backwards; the mirrored block start is still a block's, so it
/// names the panel.

// SWEEP-LABEL: func.func @shared_mirrored
// SWEEP: %[[PACKED:.*]] = arith.constant dense<{{.*}}> : tensor<2x2x2xf32>
// SWEEP-NOT: arith.constant dense<{{.*}}> : tensor<2x2x2xf32>
// SWEEP: tensor.extract_slice %[[PACKED]]
// SWEEP: %[[MIRRORED:.*]] = arith.subi %{{.*}}, %[[J:[^ ]+]] : index
// SWEEP: %[[VISITED:.*]] = arith.select %{{.*}}, %[[MIRRORED]], %[[J]] : index
// SWEEP: %[[PANEL:.*]] = arith.divui %[[VISITED]], %{{.*}} : index
// SWEEP: tensor.extract_slice %[[PACKED]][%[[PANEL]], %{{.*}}, 0] [1, 1, 2] [1, 1, 1] : tensor<2x2x2xf32> to tensor<1x2xf32>
// SWEEP-NOT: tensor<2x4xf32>
func.func @shared_mirrored(%x: tensor<1x2xf32>, %acc: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<2x4xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  %1 = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0, %1 : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

/// The first product of an rnn.shared_k_matmuls (a piece of an overlapped
/// projection) reads column block %piece of 4 columns: aligned by
/// construction, so read in blocks of 2 (dividing 4), each block's rows
/// are read as one panel of the packed constant, at the piece's first
/// column (%piece x 4) plus the block's, before the loop over k.

// CHECK-LABEL: func.func @column_block
// SWEEP-LABEL: func.func @column_block
// CHECK-DAG: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00], [8.000000e+00, 9.000000e+00]], {{\[\[}}2.000000e+00, 3.000000e+00], [1.000000e+01, 1.100000e+01]], {{\[\[}}4.000000e+00, 5.000000e+00], [1.200000e+01, 1.300000e+01]], {{\[\[}}6.000000e+00, 7.000000e+00], [1.400000e+01, 1.500000e+01]]]> : tensor<4x2x2xf32>
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.muli %[[PIECE:[^,]*]], %[[C4]] : index
// CHECK: scf.for %[[J:[^ ]+]] =
// CHECK:   %[[COLUMN:.*]] = arith.addi %[[BLOCK]], %[[J]] : index
// CHECK:   %[[PANEL:.*]] = arith.divui %[[COLUMN]], %{{.*}} : index
// CHECK:   tensor.extract_slice %[[PACKED]][%[[PANEL]], 0, 0] [1, 2, 2] [1, 1, 1] : tensor<4x2x2xf32> to tensor<2x2xf32>
// CHECK-NOT: tensor<2x8xf32>
func.func @column_block(%piece: index, %x: tensor<1x2xf32>, %acc: tensor<1x4xf32>, %h: tensor<1x2xf32>, %wh: tensor<2x2xf32>, %g: tensor<1x2xf32>) -> (tensor<1x4xf32>, tensor<1x2xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<2x8xf32>
  %0:2 = rnn.shared_k_matmuls ins(%x, %w[%piece] : tensor<1x2xf32>, tensor<2x8xf32>) outs(%acc : tensor<1x4xf32>), ins(%h, %wh : tensor<1x2xf32>, tensor<2x2xf32>) outs(%g : tensor<1x2xf32>)
  return %0#0, %0#1 : tensor<1x4xf32>, tensor<1x2xf32>
}

// -----

/// Left alone: a block of columns at an offset the IR does not give as a
/// block index, whether or not it is a multiple of the width (4 i, 3 i).

// CHECK-LABEL: func.func @negative_column_block_not_indexed
// CHECK: arith.constant dense<{{.*}}> : tensor<2x8xf32>
// CHECK-NOT: tensor<4x2x2xf32>
func.func @negative_column_block_not_indexed(%i: index, %x: tensor<1x2xf32>, %acc: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<2x8xf32>
  %c4 = arith.constant 4 : index
  %column = arith.muli %i, %c4 : index
  %block = tensor.extract_slice %w[0, %column] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
  %0 = linalg.matmul ins(%x, %block : tensor<1x2xf32>, tensor<2x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_column_block_misaligned
// CHECK: arith.constant dense<{{.*}}> : tensor<2x8xf32>
// CHECK-NOT: tensor<4x2x2xf32>
func.func @negative_column_block_misaligned(%i: index, %x: tensor<1x2xf32>, %acc: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<2x8xf32>
  %c3 = arith.constant 3 : index
  %column = arith.muli %i, %c3 : index
  %block = tensor.extract_slice %w[0, %column] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
  %0 = linalg.matmul ins(%x, %block : tensor<1x2xf32>, tensor<2x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

/// Left alone: weights also used whole by another op.

// CHECK-LABEL: func.func @negative_whole_use
// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<2x4xf32>
// CHECK-NOT: tensor<2x2x2xf32>
// CHECK: return %{{.*}}, %[[W]]
func.func @negative_whole_use(%x: tensor<1x2xf32>, %acc: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<2x4xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<2x4xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x4xf32>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0, %w : tensor<1x4xf32>, tensor<2x4xf32>
}

// -----

/// Left alone: a block as wide as the matrix reads contiguous rows already.

// CHECK-LABEL: func.func @negative_full_width
// CHECK: arith.constant dense<{{.*}}> : tensor<2x2xf32>
// CHECK-NOT: tensor<1x2x2xf32>
func.func @negative_full_width(%x: tensor<1x2xf32>, %acc: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = arith.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x2xf32>) outs(%acc : tensor<1x2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

/// Left alone: readers in blocks of two widths (2 rows: 2 columns; 1 row:
/// 4), which no one layout serves.

// ROWS2-LABEL: func.func @negative_two_widths
// ROWS2: arith.constant dense<{{.*}}> : tensor<2x8xf32>
// ROWS2-NOT: arith.constant dense<{{.*}}> : tensor<{{.*}}x2x{{.*}}xf32>
func.func @negative_two_widths(%x1: tensor<1x2xf32>, %x2: tensor<2x2xf32>, %acc1: tensor<1x8xf32>, %acc2: tensor<2x8xf32>) -> (tensor<1x8xf32>, tensor<2x8xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<2x8xf32>
  %0 = linalg.matmul ins(%x1, %w : tensor<1x2xf32>, tensor<2x8xf32>) outs(%acc1 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %1 = linalg.matmul ins(%x2, %w : tensor<2x2xf32>, tensor<2x8xf32>) outs(%acc2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<1x8xf32>, tensor<2x8xf32>
}

// -----

/// bf16 weights (param_dtype: bfloat16) are packed alike, two bytes an
/// element, and widened where they are read. With pair-bf16-lanes=2 each
/// 4-column group of a row is paired, columns (0, 2) then (1, 3), and each
/// widening is a shift (columns 0, 1 of each group) and a mask (2, 3) of
/// the 32-bit words, put back in column order: the same widened vector.

// BF16-LABEL: func.func @bf16_panels
// BF16: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [1.600000e+01, {{.*}}]]> : tensor<2x2x8xbf16>
// BF16: %[[ROW:.*]] = tensor.extract_slice %[[PACKED]][%{{.*}}, %{{.*}}, 0] [1, 1, 8] [1, 1, 1] : tensor<2x2x8xbf16> to tensor<1x8xbf16>
// BF16: %[[READ:.*]] = vector.transfer_read %[[ROW]]
// BF16: arith.extf %[[READ]] : vector<1x8xbf16> to vector<1x8xf32>
// BF16-NOT: tensor<2x16xbf16>
// PAIR-LABEL: func.func @bf16_panels
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
// PAIR: vector.contract {{.*}} %{{.*}}, %[[WIDE]], %{{.*}}
// PAIR-NOT: arith.extf
func.func @bf16_panels(%x: tensor<1x2xf32>, %acc: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]> : tensor<2x16xbf16>
  %0 = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x16xbf16>) outs(%acc : tensor<1x16xf32>) -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

/// bf16 dot blocks take k in pairs: weights all their readers take so are
/// stored as k pairs, [N / n, K / 2, 2n] with w[2 k2 + r, j] at
/// [j / n, k2, 2 (j % n) + r], and each step reads one row of it, with no
/// shuffle.

// DOT-LABEL: func.func @bf16_k_pairs
// PAIR-LABEL: func.func @bf16_k_pairs
// DOT: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 8.000000e+00, 1.000000e+00, 9.000000e+00, 2.000000e+00, 1.000000e+01, 3.000000e+00, 1.100000e+01], [1.600000e+01, 2.400000e+01, 1.700000e+01, 2.500000e+01, 1.800000e+01, 2.600000e+01, 1.900000e+01, 2.700000e+01]], {{\[\[}}4.000000e+00, 1.200000e+01, 5.000000e+00, 1.300000e+01, 6.000000e+00, 1.400000e+01, 7.000000e+00, 1.500000e+01], [2.000000e+01, 2.800000e+01, 2.100000e+01, 2.900000e+01, 2.200000e+01, 3.000000e+01, 2.300000e+01, 3.100000e+01]]]> : tensor<2x2x8xbf16>
// DOT: scf.for %[[J:[^ ]*]] =
// DOT: scf.for
// DOT: scf.for %[[K:[^ ]*]] =
// DOT-DAG: %[[PANEL:.*]] = arith.divui %[[J]], %{{.*}} : index
// DOT-DAG: %[[K2:.*]] = arith.divui %[[K]], %{{.*}} : index
// DOT: %[[ROW:.*]] = tensor.extract_slice %[[PACKED]][%[[PANEL]], %[[K2]], 0] [1, 1, 8] [1, 1, 1] : tensor<2x2x8xbf16> to tensor<1x8xbf16>
// DOT: %[[READ:.*]] = vector.transfer_read %[[ROW]]{{.*}} : tensor<1x8xbf16>, vector<1x8xbf16>
// DOT: %[[PAIRS:.*]] = vector.shape_cast %[[READ]] : vector<1x8xbf16> to vector<8xbf16>
// DOT: x86vector.avx512.dot
// DOT-NOT: vector.shuffle
func.func @bf16_k_pairs(%x: tensor<1x4xbf16>, %acc: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]]> : tensor<4x8xbf16>
  %0 = linalg.matmul ins(%x, %w : tensor<1x4xbf16>, tensor<4x8xbf16>) outs(%acc : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

/// A single panel (n = N) is stored as k pairs too.

// DOT-LABEL: func.func @bf16_k_pairs_one_panel
// DOT: arith.constant dense<{{\[\[\[}}0.000000e+00, 4.000000e+00, 1.000000e+00, 5.000000e+00, 2.000000e+00, 6.000000e+00, 3.000000e+00, 7.000000e+00]]]> : tensor<1x1x8xbf16>
// DOT-NOT: vector.shuffle
func.func @bf16_k_pairs_one_panel(%x: tensor<1x2xbf16>, %acc: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<2x4xbf16>
  %0 = linalg.matmul ins(%x, %w : tensor<1x2xbf16>, tensor<2x4xbf16>) outs(%acc : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

/// Weights read by a dot block and by a block that widens them (f32 rows):
/// panels in column order, neither k pairs nor paired columns; the dot
/// block interleaves its two rows with a shuffle.

// DOT-LABEL: func.func @bf16_mixed_readers
// DOT: arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00], [8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01]], {{\[\[}}4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01]]]> : tensor<2x2x4xbf16>
// DOT: vector.shuffle %{{.*}} [0, 4, 1, 5, 2, 6, 3, 7]
// DOT: arith.extf
func.func @bf16_mixed_readers(%x: tensor<1x2xbf16>, %y: tensor<1x2xf32>, %acc: tensor<1x8xf32>) -> (tensor<1x8xf32>, tensor<1x8xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<2x8xbf16>
  %0 = linalg.matmul ins(%x, %w : tensor<1x2xbf16>, tensor<2x8xbf16>) outs(%acc : tensor<1x8xf32>) -> tensor<1x8xf32>
  %1 = linalg.matmul ins(%y, %w : tensor<1x2xf32>, tensor<2x8xbf16>) outs(%acc : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0, %1 : tensor<1x8xf32>, tensor<1x8xf32>
}
