// RUN: rnn-opt %s --rnn-overlap-input-projection --canonicalize --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-overlap-input-projection="rows=2 min-rows=2" --canonicalize --split-input-file | FileCheck %s --check-prefix=ROWS2
// RUN: rnn-opt %s --rnn-overlap-input-projection="rows=2" --canonicalize --split-input-file | FileCheck %s --check-prefix=MIN4
// RUN: rnn-opt %s --rnn-overlap-input-projection="max-kernel-bytes=4095" --canonicalize --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: rnn-opt %s --rnn-overlap-input-projection="piece-lanes=8" --canonicalize --split-input-file | FileCheck %s --check-prefix=LANES8

/// Batch 1, 32 steps, the hoisted projection [32, 16] x [16, 64] read one
/// row per step. N = 64 makes pieces of 16 columns for 4 rows (8 rows
/// would leave 8 columns, less than a vector). A ring of 2 x 4 rows: the
/// first 4 rows are projected before the loop; steps [0, 28) read row
/// t % 8, copy it out, and compute piece t % 4 (columns 16 (t % 4)) of rows
/// 4 (t / 4 + 1) into the other half, paired with the recurrent matmul in
/// one rnn.shared_k_matmuls; steps [28, 32) only read the ring.

// CHECK-LABEL: func.func @batch1
// CHECK-SAME: (%[[X:[^:]+]]: tensor<32x16xf32>, %[[WI:[^:]+]]: tensor<16x64xf32>, %[[WH:[^:]+]]: tensor<16x64xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C28:.*]] = arith.constant 28 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[RING0:.*]] = tensor.empty() : tensor<8x64xf32>
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %[[X]][0, 0] [4, 16] [1, 1]
// CHECK: %[[FIRST_DEST:.*]] = tensor.extract_slice %[[RING0]][0, 0] [4, 64] [1, 1]
// CHECK: %[[FIRST_INIT:.*]] = linalg.fill {{.*}} outs(%[[FIRST_DEST]] : tensor<4x64xf32>)
// CHECK: %[[FIRST_ROWS:.*]] = linalg.matmul ins(%[[FIRST]], %[[WI]] : tensor<4x16xf32>, tensor<16x64xf32>) outs(%[[FIRST_INIT]]
// CHECK: %[[RING:.*]] = tensor.insert_slice %[[FIRST_ROWS]] into %[[RING0]][0, 0] [4, 64] [1, 1]
// CHECK: %[[MAIN:.*]]:2 = scf.for %[[T:.*]] = %[[C0]] to %[[C28]] step %[[C1]] iter_args(%[[H:.*]] = %{{.*}}, %[[R:.*]] = %[[RING]])
// CHECK:   %[[ROW_AT:.*]] = arith.remui %[[T]], %[[C8]] : index
// CHECK:   %[[ROW:.*]] = tensor.extract_slice %[[R]][%[[ROW_AT]], 0] [1, 64] [1, 1] : tensor<8x64xf32> to tensor<1x64xf32>
// CHECK:   %[[COPY:.*]] = linalg.copy ins(%[[ROW]] : tensor<1x64xf32>)
// CHECK:   %[[GROUP:.*]] = arith.divui %[[T]], %[[C4]] : index
// CHECK:   %[[NEXT:.*]] = arith.addi %[[GROUP]], %[[C1]] : index
// CHECK:   %[[FROM:.*]] = arith.muli %[[NEXT]], %[[C4]] : index
// CHECK:   %[[PARITY:.*]] = arith.remui %[[NEXT]], %[[C2]] : index
// CHECK:   %[[HALF:.*]] = arith.muli %[[PARITY]], %[[C4]] : index
// CHECK:   %[[PIECE:.*]] = arith.remui %[[T]], %[[C4]] : index
// CHECK:   %[[COLUMN:.*]] = arith.muli %[[PIECE]], %[[C16]] : index
// CHECK:   %[[INPUT:.*]] = tensor.extract_slice %[[X]][%[[FROM]], 0] [4, 16] [1, 1]
// CHECK:   %[[KERNEL:.*]] = tensor.extract_slice %[[WI]][0, %[[COLUMN]]] [16, 16] [1, 1] : tensor<16x64xf32> to tensor<16x16xf32>
// CHECK:   %[[DEST:.*]] = tensor.extract_slice %[[R]][%[[HALF]], %[[COLUMN]]] [4, 16] [1, 1] : tensor<8x64xf32> to tensor<4x16xf32>
// CHECK:   %[[INIT:.*]] = linalg.fill {{.*}} outs(%[[DEST]] : tensor<4x16xf32>)
// CHECK:   %[[PIECE_ROWS:[^,]*]], %[[GATES:[^ ]*]] = rnn.shared_k_matmuls ins(%[[INPUT]], %[[KERNEL]] : tensor<4x16xf32>, tensor<16x16xf32>) outs(%[[INIT]] : tensor<4x16xf32>), ins(%[[H]], %[[WH]] : tensor<1x16xf32>, tensor<16x64xf32>) outs(%{{.*}} : tensor<1x64xf32>)
// CHECK:   %[[UPDATED:.*]] = tensor.insert_slice %[[PIECE_ROWS]] into %[[R]][%[[HALF]], %[[COLUMN]]] [4, 16] [1, 1]
// CHECK:   linalg.add ins(%[[COPY]], %[[GATES]] : tensor<1x64xf32>, tensor<1x64xf32>)
// CHECK:   scf.yield %{{.*}}, %[[UPDATED]] : tensor<1x16xf32>, tensor<8x64xf32>
// CHECK: %[[LAST:.*]] = scf.for %[[U:.*]] = %[[C28]] to %[[C32]] step %[[C1]] iter_args(%{{.*}} = %[[MAIN]]#0)
// CHECK:   %[[LAST_AT:.*]] = arith.remui %[[U]], %[[C8]] : index
// CHECK:   %[[LAST_ROW:.*]] = tensor.extract_slice %[[MAIN]]#1[%[[LAST_AT]], 0] [1, 64] [1, 1]
// CHECK-NOT: rnn.shared_k_matmuls
// CHECK:   %[[LAST_GATES:.*]] = linalg.matmul ins(%{{.*}}, %[[WH]] : tensor<1x16xf32>, tensor<16x64xf32>)
// CHECK:   linalg.add ins(%[[LAST_ROW]], %[[LAST_GATES]] : tensor<1x64xf32>, tensor<1x64xf32>)
// CHECK: return %[[LAST]]
// CHECK-NOT: tensor<32x64xf32>

/// With at most 2 rows: pieces of 32 columns for 2 rows, a ring of 4 rows,
/// a last loop of 2 steps.
// ROWS2-LABEL: func.func @batch1
// ROWS2: tensor.empty() : tensor<4x64xf32>
// ROWS2: rnn.shared_k_matmuls ins(%{{.*}}, %{{.*}} : tensor<2x16xf32>, tensor<16x32xf32>)
// ROWS2: scf.for %{{.*}} = %c30 to %c32

/// With pieces of at least 8 columns (a vector of 8 floats), 8 rows fit:
/// pieces of 8 columns for 8 rows, a ring of 16 rows, a last loop of 8
/// steps.
// LANES8-LABEL: func.func @batch1
// LANES8: tensor.empty() : tensor<16x64xf32>
// LANES8: rnn.shared_k_matmuls ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x8xf32>)
// LANES8: scf.for %{{.*}} = %c24 to %c32

/// Groups of 2 rows are fewer than min-rows (4 by default): one projection.
// MIN4-LABEL: func.func @batch1
// MIN4: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x64xf32>)
// MIN4-NOT: rnn.shared_k_matmuls

/// Kernels larger than max-kernel-bytes (4 KiB here) keep one projection.
// SMALL-LABEL: func.func @batch1
// SMALL: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x64xf32>)
// SMALL-NOT: rnn.shared_k_matmuls
func.func @batch1(%x: tensor<32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>, %h0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %p = linalg.matmul ins(%x, %wi : tensor<32x16xf32>, tensor<16x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %seq = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 32, 64] : tensor<32x64xf32> into tensor<1x32x64xf32>
  %r = scf.for %t = %c0 to %c32 step %c1 iter_args(%h = %h0) -> (tensor<1x16xf32>) {
    %row = tensor.extract_slice %seq[0, %t, 0] [1, 1, 64] [1, 1, 1] : tensor<1x32x64xf32> to tensor<1x64xf32>
    %e2 = tensor.empty() : tensor<1x64xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %g = linalg.matmul ins(%h, %wh : tensor<1x16xf32>, tensor<16x64xf32>) outs(%f2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %sum = linalg.add ins(%row, %g : tensor<1x64xf32>, tensor<1x64xf32>) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %next = tensor.extract_slice %sum[0, 0] [1, 16] [1, 1] : tensor<1x64xf32> to tensor<1x16xf32>
    scf.yield %next : tensor<1x16xf32>
  }
  return %r : tensor<1x16xf32>
}

// -----

/// Left alone: steps read in reverse (row 31 - t), a recurrent matmul of
/// another depth (input size 16, hidden size 8), T = 3 (no group of 2 rows
/// fits 4 times), and a kernel that another matmul also reads (as the
/// phases of zero-padded rows share theirs).

// CHECK-LABEL: func.func @negative_reversed
// CHECK-NOT: rnn.shared_k_matmuls
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x64xf32>)
func.func @negative_reversed(%x: tensor<32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>, %h0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %p = linalg.matmul ins(%x, %wi : tensor<32x16xf32>, tensor<16x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %seq = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 32, 64] : tensor<32x64xf32> into tensor<1x32x64xf32>
  %r = scf.for %t = %c0 to %c32 step %c1 iter_args(%h = %h0) -> (tensor<1x16xf32>) {
    %back = arith.subi %c31, %t : index
    %row = tensor.extract_slice %seq[0, %back, 0] [1, 1, 64] [1, 1, 1] : tensor<1x32x64xf32> to tensor<1x64xf32>
    %e2 = tensor.empty() : tensor<1x64xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %g = linalg.matmul ins(%h, %wh : tensor<1x16xf32>, tensor<16x64xf32>) outs(%f2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %sum = linalg.add ins(%row, %g : tensor<1x64xf32>, tensor<1x64xf32>) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %next = tensor.extract_slice %sum[0, 0] [1, 16] [1, 1] : tensor<1x64xf32> to tensor<1x16xf32>
    scf.yield %next : tensor<1x16xf32>
  }
  return %r : tensor<1x16xf32>
}

// CHECK-LABEL: func.func @negative_other_depth
// CHECK-NOT: rnn.shared_k_matmuls
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x64xf32>)
func.func @negative_other_depth(%x: tensor<32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<8x64xf32>, %h0: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %p = linalg.matmul ins(%x, %wi : tensor<32x16xf32>, tensor<16x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %seq = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 32, 64] : tensor<32x64xf32> into tensor<1x32x64xf32>
  %r = scf.for %t = %c0 to %c32 step %c1 iter_args(%h = %h0) -> (tensor<1x8xf32>) {
    %row = tensor.extract_slice %seq[0, %t, 0] [1, 1, 64] [1, 1, 1] : tensor<1x32x64xf32> to tensor<1x64xf32>
    %e2 = tensor.empty() : tensor<1x64xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %g = linalg.matmul ins(%h, %wh : tensor<1x8xf32>, tensor<8x64xf32>) outs(%f2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %sum = linalg.add ins(%row, %g : tensor<1x64xf32>, tensor<1x64xf32>) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %next = tensor.extract_slice %sum[0, 0] [1, 8] [1, 1] : tensor<1x64xf32> to tensor<1x8xf32>
    scf.yield %next : tensor<1x8xf32>
  }
  return %r : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @negative_three_steps
// CHECK-NOT: rnn.shared_k_matmuls
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x16xf32>, tensor<16x64xf32>)
func.func @negative_three_steps(%x: tensor<3x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>, %h0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<3x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x64xf32>) -> tensor<3x64xf32>
  %p = linalg.matmul ins(%x, %wi : tensor<3x16xf32>, tensor<16x64xf32>) outs(%f : tensor<3x64xf32>) -> tensor<3x64xf32>
  %seq = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 3, 64] : tensor<3x64xf32> into tensor<1x3x64xf32>
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0) -> (tensor<1x16xf32>) {
    %row = tensor.extract_slice %seq[0, %t, 0] [1, 1, 64] [1, 1, 1] : tensor<1x3x64xf32> to tensor<1x64xf32>
    %e2 = tensor.empty() : tensor<1x64xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %g = linalg.matmul ins(%h, %wh : tensor<1x16xf32>, tensor<16x64xf32>) outs(%f2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %sum = linalg.add ins(%row, %g : tensor<1x64xf32>, tensor<1x64xf32>) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %next = tensor.extract_slice %sum[0, 0] [1, 16] [1, 1] : tensor<1x64xf32> to tensor<1x16xf32>
    scf.yield %next : tensor<1x16xf32>
  }
  return %r : tensor<1x16xf32>
}

// CHECK-LABEL: func.func @negative_shared_kernel
// CHECK-NOT: rnn.shared_k_matmuls
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x16xf32>, tensor<16x64xf32>)
func.func @negative_shared_kernel(%x: tensor<32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>, %h0: tensor<1x16xf32>, %other: tensor<4x16xf32>, %acc: tensor<4x64xf32>) -> (tensor<1x16xf32>, tensor<4x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %p = linalg.matmul ins(%x, %wi : tensor<32x16xf32>, tensor<16x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %seq = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 32, 64] : tensor<32x64xf32> into tensor<1x32x64xf32>
  %r = scf.for %t = %c0 to %c32 step %c1 iter_args(%h = %h0) -> (tensor<1x16xf32>) {
    %row = tensor.extract_slice %seq[0, %t, 0] [1, 1, 64] [1, 1, 1] : tensor<1x32x64xf32> to tensor<1x64xf32>
    %e2 = tensor.empty() : tensor<1x64xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %g = linalg.matmul ins(%h, %wh : tensor<1x16xf32>, tensor<16x64xf32>) outs(%f2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %sum = linalg.add ins(%row, %g : tensor<1x64xf32>, tensor<1x64xf32>) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %next = tensor.extract_slice %sum[0, 0] [1, 16] [1, 1] : tensor<1x64xf32> to tensor<1x16xf32>
    scf.yield %next : tensor<1x16xf32>
  }
  %o = linalg.matmul ins(%other, %wi : tensor<4x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %r, %o : tensor<1x16xf32>, tensor<4x64xf32>
}

// -----

/// bf16 kernels (param_dtype: bfloat16) are overlapped alike: the pieces
/// slice the bf16 kernel, and its bytes count at 2 each (2 KiB here, so
/// even max-kernel-bytes=4095 overlaps it).

// CHECK-LABEL: func.func @batch1_bf16
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x64xbf16>) outs(%{{.*}} : tensor<4x64xf32>)
// CHECK: scf.for
// CHECK:   %[[KERNEL:.*]] = tensor.extract_slice %{{.*}}[0, %{{.*}}] [16, 16] [1, 1] : tensor<16x64xbf16> to tensor<16x16xbf16>
// CHECK:   rnn.shared_k_matmuls ins(%{{.*}}, %[[KERNEL]] : tensor<4x16xf32>, tensor<16x16xbf16>) outs(%{{.*}} : tensor<4x16xf32>), ins(%{{.*}}, %{{.*}} : tensor<1x16xf32>, tensor<16x64xbf16>)
// SMALL-LABEL: func.func @batch1_bf16
// SMALL: rnn.shared_k_matmuls
func.func @batch1_bf16(%x: tensor<32x16xf32>, %wi: tensor<16x64xbf16>, %wh: tensor<16x64xbf16>, %h0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %p = linalg.matmul ins(%x, %wi : tensor<32x16xf32>, tensor<16x64xbf16>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %seq = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 32, 64] : tensor<32x64xf32> into tensor<1x32x64xf32>
  %r = scf.for %t = %c0 to %c32 step %c1 iter_args(%h = %h0) -> (tensor<1x16xf32>) {
    %row = tensor.extract_slice %seq[0, %t, 0] [1, 1, 64] [1, 1, 1] : tensor<1x32x64xf32> to tensor<1x64xf32>
    %e2 = tensor.empty() : tensor<1x64xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %g = linalg.matmul ins(%h, %wh : tensor<1x16xf32>, tensor<16x64xbf16>) outs(%f2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %sum = linalg.add ins(%row, %g : tensor<1x64xf32>, tensor<1x64xf32>) outs(%e2 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %next = tensor.extract_slice %sum[0, 0] [1, 16] [1, 1] : tensor<1x64xf32> to tensor<1x16xf32>
    scf.yield %next : tensor<1x16xf32>
  }
  return %r : tensor<1x16xf32>
}
