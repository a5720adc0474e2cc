// RUN: rnn-opt %s --convert-rnn-scan-to-scf --split-input-file | FileCheck %s
// RUN: rnn-opt %s --convert-rnn-scan-to-scf="time-block-bytes=256 time-block-rows=16" --split-input-file | FileCheck %s --check-prefix=BLOCKS
// RUN: rnn-opt %s --convert-rnn-scan-to-scf=ram-lean=true --split-input-file | FileCheck %s --check-prefix=LEAN
// RUN: rnn-opt %s --convert-rnn-scan-to-scf --convert-rnn-to-linalg --canonicalize --split-input-file | FileCheck %s --check-prefix=LINALG

/// A batch-1 scan with overlap_rows = 4 (--rnn-overlap-input-projection),
/// T = 32, its LSTM's projection [32, 16] x [16, 64]. Projected rows live
/// in a ring of 2 x 4 rows: the first 4 rows are projected before the loop
/// (a piece of the whole width); steps [0, 28) copy row t % 8 out of the
/// ring and compute piece t % 4 (column block t % 4 of width 16) of rows
/// 4 (t / 4 + 1) into the other half, beside the step's cell; steps [28, 32) only read
/// the ring. The whole projection is never computed.

// CHECK-LABEL: func.func @overlapped
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x32x16xf32>, %[[WI:[^:]+]]: tensor<16x64xf32>
// CHECK-NOT: rnn.project %
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<1x32x16xf32> into tensor<32x16xf32>
// CHECK: %[[RING0:.*]] = tensor.empty() : tensor<8x64xf32>
// CHECK: %[[RING:.*]] = rnn.project_piece %[[ROWS]][%{{.*}}] kernel(%[[WI]]) [%{{.*}}] into %[[RING0]][%{{.*}}] rows 4 width 64 :
// CHECK: %[[MAIN:.*]]:4 = scf.for %[[T:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}, %[[R:[^ ]*]] = %[[RING]])
// CHECK:   %[[ROW:.*]] = tensor.extract_slice %[[R]][%{{.*}}, 0] [1, 64] [1, 1] : tensor<8x64xf32> to tensor<1x64xf32>
// CHECK:   %[[COPY:.*]] = linalg.copy ins(%[[ROW]] : tensor<1x64xf32>)
// CHECK:   %[[FROM:.*]] = arith.muli
// CHECK:   %[[HALF:.*]] = arith.muli
// CHECK:   %[[PIECE:.*]] = arith.remui %[[T]]
// CHECK:   %{{.*}}, %[[H1:.*]] = rnn.lstm_cell(%[[COPY]], %{{.*}}, %{{.*}}) kernels(%[[WI]], %{{.*}}) projected_input
// CHECK:   %[[NEXT:.*]] = rnn.project_piece %[[ROWS]][%[[FROM]]] kernel(%[[WI]]) [%[[PIECE]]] into %[[R]][%[[HALF]]] rows 4 width 16 beside(%[[H1]] : tensor<1x16xf32>)
// CHECK:   scf.yield {{.*}}, %[[NEXT]] :
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:   tensor.extract_slice %[[MAIN]]#3[%{{.*}}, 0] [1, 64] [1, 1] : tensor<8x64xf32> to tensor<1x64xf32>
// CHECK-NOT: rnn.project_piece
// CHECK:   rnn.lstm_cell

/// In blocks of 16 steps, each block overlaps its own projection: a ring
/// per block, loops of 12 and 4 steps.
// BLOCKS-LABEL: func.func @overlapped
// BLOCKS: scf.for %[[FIRST:[^ ]*]] =
// BLOCKS:   %[[BLOCK:.*]] = tensor.extract_slice %{{.*}}[0, %[[FIRST]], 0] [1, 16, 16] [1, 1, 1]
// BLOCKS:   %[[ROWS:.*]] = tensor.collapse_shape %[[BLOCK]] {{\[}}[0, 1], [2]] : tensor<1x16x16xf32> into tensor<16x16xf32>
// BLOCKS:   rnn.project_piece %[[ROWS]]{{.*}} rows 4 width 64
// BLOCKS:   scf.for %{{.*}} = %c0 to %c12
// BLOCKS:     rnn.project_piece %[[ROWS]]{{.*}} rows 4 width 16 beside
// BLOCKS:   scf.for %{{.*}} = %c12 to %c16

/// RAM-lean steps project their own inputs: no ring.
// LEAN-LABEL: func.func @overlapped
// LEAN-NOT: rnn.project_piece
// LEAN: rnn.project %{{.*}} kernel(%{{.*}}) : tensor<1x16xf32>, tensor<16x64xf32> -> tensor<1x64xf32>
// LEAN-NOT: rnn.project_piece

/// Lowered to linalg, the piece and the step's recurrent product are one
/// rnn.shared_k_matmuls (one depth, 16) whose first product reads column
/// block t % 4 of the kernel, the piece written in place into the ring; the last steps' recurrent product is a matmul of its own.
// LINALG-LABEL: func.func @overlapped
// LINALG-SAME: (%[[X:[^:]+]]: tensor<1x32x16xf32>, %[[WI:[^:]+]]: tensor<16x64xf32>, %[[WH:[^:]+]]: tensor<16x64xf32>
// LINALG-DAG: %[[C0:.*]] = arith.constant 0 : index
// LINALG-DAG: %[[C1:.*]] = arith.constant 1 : index
// LINALG-DAG: %[[C2:.*]] = arith.constant 2 : index
// LINALG-DAG: %[[C4:.*]] = arith.constant 4 : index
// LINALG-DAG: %[[C8:.*]] = arith.constant 8 : index
// LINALG-DAG: %[[C16:.*]] = arith.constant 16 : index
// LINALG-DAG: %[[C28:.*]] = arith.constant 28 : index
// LINALG-DAG: %[[C32:.*]] = arith.constant 32 : index
// LINALG: %[[ROWS:.*]] = tensor.collapse_shape %[[X]]
// LINALG: %[[RING0:.*]] = tensor.empty() : tensor<8x64xf32>
// LINALG: %[[FIRST:.*]] = tensor.extract_slice %[[ROWS]][0, 0] [4, 16] [1, 1]
// LINALG: %[[FIRST_DEST:.*]] = tensor.extract_slice %[[RING0]][0, 0] [4, 64] [1, 1]
// LINALG: %[[FIRST_INIT:.*]] = linalg.fill {{.*}} outs(%[[FIRST_DEST]] : tensor<4x64xf32>)
// LINALG: %[[FIRST_ROWS:.*]] = linalg.matmul ins(%[[FIRST]], %[[WI]] : tensor<4x16xf32>, tensor<16x64xf32>) outs(%[[FIRST_INIT]]
// LINALG: %[[RING:.*]] = tensor.insert_slice %[[FIRST_ROWS]] into %[[RING0]][0, 0] [4, 64] [1, 1]
// LINALG: %[[MAIN:.*]]:4 = scf.for %[[T:[^ ]*]] = %[[C0]] to %[[C28]] step %[[C1]] iter_args(%{{.*}} = %{{.*}}, %[[H:[^ ]*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[R:[^ ]*]] = %[[RING]])
// LINALG:   %[[ROW_AT:.*]] = arith.remui %[[T]], %[[C8]] : index
// LINALG:   %[[ROW:.*]] = tensor.extract_slice %[[R]][%[[ROW_AT]], 0] [1, 64] [1, 1] : tensor<8x64xf32> to tensor<1x64xf32>
// LINALG:   %[[COPY:.*]] = linalg.copy ins(%[[ROW]] : tensor<1x64xf32>)
// LINALG:   %[[GROUP:.*]] = arith.divui %[[T]], %[[C4]] : index
// LINALG:   %[[NEXT:.*]] = arith.addi %[[GROUP]], %[[C1]] : index
// LINALG:   %[[FROM:.*]] = arith.muli %[[NEXT]], %[[C4]] : index
// LINALG:   %[[PARITY:.*]] = arith.remui %[[NEXT]], %[[C2]] : index
// LINALG:   %[[HALF:.*]] = arith.muli %[[PARITY]], %[[C4]] : index
// LINALG:   %[[PIECE:.*]] = arith.remui %[[T]], %[[C4]] : index
// LINALG:   %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<1x64xf32>
// LINALG:   %[[COLUMN:.*]] = arith.muli %[[PIECE]], %[[C16]] : index
// LINALG:   %[[INPUT:.*]] = tensor.extract_slice %[[ROWS]][%[[FROM]], 0] [4, 16] [1, 1]
// LINALG-NOT: tensor.extract_slice %[[WI]]
// LINALG:   %[[DEST:.*]] = tensor.extract_slice %[[R]][%[[HALF]], %[[COLUMN]]] [4, 16] [1, 1] : tensor<8x64xf32> to tensor<4x16xf32>
// LINALG:   %[[INIT:.*]] = linalg.fill {{.*}} outs(%[[DEST]] : tensor<4x16xf32>)
// LINALG:   %[[PIECE_ROWS:[^,]*]], %[[GATES:[^ ]*]] = rnn.shared_k_matmuls ins(%[[INPUT]], %[[WI]][%[[PIECE]]] : tensor<4x16xf32>, tensor<16x64xf32>) outs(%[[INIT]] : tensor<4x16xf32>), ins(%[[H]], %[[WH]] : tensor<1x16xf32>, tensor<16x64xf32>) outs(%[[ACC]] : tensor<1x64xf32>)
// LINALG:   %[[UPDATED:.*]] = tensor.insert_slice %[[PIECE_ROWS]] into %[[R]][%[[HALF]], %[[COLUMN]]] [4, 16] [1, 1]
// LINALG:   tensor.extract_slice %[[COPY]][0, 0] [1, 16] [1, 1]
// LINALG:   tensor.extract_slice %[[GATES]][0, 0] [1, 16] [1, 1]
// LINALG:   scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[UPDATED]] :
// LINALG: %[[LAST:.*]]:3 = scf.for %[[U:[^ ]*]] = %[[C28]] to %[[C32]] step %[[C1]] iter_args(%{{.*}} = %[[MAIN]]#0, %{{.*}} = %[[MAIN]]#1, %{{.*}} = %[[MAIN]]#2)
// LINALG:   %[[LAST_AT:.*]] = arith.remui %[[U]], %[[C8]] : index
// LINALG:   %[[LAST_ROW:.*]] = tensor.extract_slice %[[MAIN]]#3[%[[LAST_AT]], 0] [1, 64] [1, 1]
// LINALG-NOT: rnn.shared_k_matmuls
// LINALG:   %[[LAST_GATES:.*]] = linalg.matmul ins(%{{.*}}, %[[WH]] : tensor<1x16xf32>, tensor<16x64xf32>)
// LINALG:   tensor.extract_slice %[[LAST_ROW]][0, 0] [1, 16] [1, 1]
// LINALG: return %[[LAST]]#2
// LINALG-NOT: tensor<32x64xf32>
func.func @overlapped(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x32x16xf32>, tensor<16x64xf32> -> tensor<1x32x64xf32>
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x64xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %gt: tensor<1x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

/// bf16 kernels (param_dtype: bfloat16) are overlapped alike: the pieces
/// read blocks of the bf16 kernel, the recurrent product reads the bf16 one.

// LINALG-LABEL: func.func @overlapped_bf16
// LINALG: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x64xbf16>) outs(%{{.*}} : tensor<4x64xf32>)
// LINALG: scf.for
// LINALG:   rnn.shared_k_matmuls ins(%{{.*}}, %{{.*}}[%{{.*}}] : tensor<4x16xf32>, tensor<16x64xbf16>) outs(%{{.*}} : tensor<4x16xf32>), ins(%{{.*}}, %{{.*}} : tensor<1x16xf32>, tensor<16x64xbf16>)
func.func @overlapped_bf16(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xbf16>, %wh: tensor<16x64xbf16>) -> tensor<1x32x16xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x32x16xf32>, tensor<16x64xbf16> -> tensor<1x32x64xf32>
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x64xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %gt: tensor<1x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xbf16>, tensor<16x64xbf16>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}
