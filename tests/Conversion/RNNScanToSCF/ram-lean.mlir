// RUN: rnn-opt %s --convert-rnn-scan-to-scf="ram-lean=true last-row-copies=true time-block-bytes=96 time-block-rows=1" --split-input-file | FileCheck %s
// RUN: rnn-opt %s --convert-rnn-scan-to-scf="time-block-bytes=96 time-block-rows=1" --split-input-file | FileCheck %s --check-prefix=SPEED

/// RAM-lean scans keep nothing that grows with T but the caller's input and
/// outputs. Reverse with lengths reads step t of row b in place, at
/// L_b - 1 - t (t < L_b) or T - 1 + L_b - t (the padded steps, reversed as
/// rnn.flip_sequences reverses them), gathered by a linalg.generic over the
/// step: no flipped copy of the input. Speed mode flips the input.

// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ALL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @reverse_lengths
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x5x3xf32>, %[[LEN:[^:]+]]: tensor<2xi32>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NOT: rnn.flip_sequences
// CHECK: scf.for %[[T:[^ ]+]] =
// CHECK:   %[[STEP:.*]] = linalg.generic {indexing_maps = [#[[$ROWS]], #[[$ALL]]], iterator_types = ["parallel", "parallel"]} ins(%[[LEN]] : tensor<2xi32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:   ^bb0(%[[L32:.*]]: i32, %{{.*}}: f32):
// CHECK:       %[[L:.*]] = arith.index_cast %[[L32]] : i32 to index
// CHECK:       %[[LM1:.*]] = arith.subi %[[L]], %[[C1]] : index
// CHECK:       %[[VALID:.*]] = arith.subi %[[LM1]], %[[T]] : index
// CHECK:       %[[END:.*]] = arith.addi %[[L]], %[[C4]] : index
// CHECK:       %[[PADDED:.*]] = arith.subi %[[END]], %[[T]] : index
// CHECK:       %[[IN:.*]] = arith.cmpi slt, %[[T]], %[[L]] : index
// CHECK:       %[[SRC:.*]] = arith.select %[[IN]], %[[VALID]], %[[PADDED]] : index
// CHECK:       %[[B:.*]] = linalg.index 0 : index
// CHECK:       %[[F:.*]] = linalg.index 1 : index
// CHECK:       %[[E:.*]] = tensor.extract %[[X]][%[[B]], %[[SRC]], %[[F]]] : tensor<2x5x3xf32>
// CHECK:       linalg.yield %[[E]] : f32
// CHECK:   rnn.simple_cell(%[[STEP]],
// CHECK-NOT: rnn.flip_sequences
// CHECK: return

// SPEED-LABEL: func.func @reverse_lengths
// SPEED: rnn.flip_sequences
func.func @reverse_lengths(%x: tensor<2x5x3xf32>, %len: tensor<2xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x5x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<2xi32>) reverse {num_batch_dims = 1 : i64} : tensor<2x5x3xf32> -> tensor<2x5x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x5x4xf32>
}

// -----

/// Long sequences run as one loop over steps (no blocks of steps, which
/// exist only for work hoisted out of the recurrence), and zero-padded
/// outputs with lengths keep every row in that loop (length-sorted blocks
/// would gather whole rows of the input), zeroing padded steps by t < L.

// CHECK-LABEL: func.func @long_padded
// CHECK-NOT: tensor<2x4x3xf32>
// CHECK-NOT: tensor.extract_slice %{{.*}} [1, 25, 3]
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK:   arith.cmpi slt
// CHECK: return

// SPEED-LABEL: func.func @long_padded
// SPEED: tensor<1x25x3xf32>
func.func @long_padded(%x: tensor<4x25x3xf32>, %len: tensor<4xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<4x25x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<4xi32>) zero_padded_outputs unroll 2 {num_batch_dims = 1 : i64} : tensor<4x25x3xf32> -> tensor<4x25x4xf32> {
  ^bb0(%h: tensor<4x4xf32>, %xt: tensor<4x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<4x3xf32>, tensor<4x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<4x4xf32>) output(%h1 : tensor<4x4xf32>)
  }
  return %y : tensor<4x25x4xf32>
}

// -----

/// The final carry with lengths: with last-row-copies (RAM-lean C) row b of
/// the new carry is copied into the kept one only at its last valid step
/// (t == L_b - 1), in a loop over rows; otherwise it is selected element
/// by element every step.

// CHECK-LABEL: func.func @final_carry_lengths
// CHECK-SAME: %[[LEN:[^:]+]]: tensor<3xi32>
// CHECK: scf.for %[[T:[^ ]+]] = {{.*}} iter_args(
// CHECK:   %[[H:.*]] = rnn.simple_cell
// CHECK:   %[[T32:.*]] = arith.index_cast %[[T]] : index to i32
// CHECK:   scf.for %[[R:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ]+]] = %{{[^ ]+}}) -> (tensor<3x4xf32>)
// CHECK:     %[[L:.*]] = tensor.extract %[[LEN]][%[[R]]] : tensor<3xi32>
// CHECK:     %[[LM1:.*]] = arith.subi %[[L]], %{{.*}} : i32
// CHECK:     %[[LAST:.*]] = arith.cmpi eq, %[[T32]], %[[LM1]] : i32
// CHECK:     scf.if %[[LAST]] -> (tensor<3x4xf32>)
// CHECK:       %[[ROW:.*]] = tensor.extract_slice %[[H]][%[[R]], 0] [1, 4] [1, 1]
// CHECK:       %[[SLOT:.*]] = tensor.extract_slice %[[ACC]][%[[R]], 0] [1, 4] [1, 1]
// CHECK:       %[[COPY:.*]] = linalg.copy ins(%[[ROW]] : tensor<1x4xf32>) outs(%[[SLOT]] : tensor<1x4xf32>)
// CHECK:       %[[NEW:.*]] = tensor.insert_slice %[[COPY]] into %[[ACC]][%[[R]], 0] [1, 4] [1, 1]
// CHECK:       scf.yield %[[NEW]]
// CHECK:     } else {
// CHECK:       scf.yield %[[ACC]]
// CHECK-NOT: arith.select
// CHECK: return

// SPEED-LABEL: func.func @final_carry_lengths
// SPEED: arith.select
func.func @final_carry_lengths(%x: tensor<3x5x2xf32>, %len: tensor<3xi32>, %wi: tensor<2x4xf32>, %wh: tensor<4x4xf32>) -> tensor<3x4xf32> {
  %y, %hT = rnn.scan %x lengths(%len : tensor<3xi32>) {num_batch_dims = 1 : i64} : tensor<3x5x2xf32> -> tensor<3x5x4xf32>, tensor<3x4xf32> {
  ^bb0(%h: tensor<3x4xf32>, %xt: tensor<3x2xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<3x2xf32>, tensor<3x4xf32>, tensor<2x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<3x4xf32>) output(%h1 : tensor<3x4xf32>)
  }
  return %hT : tensor<3x4xf32>
}
