// RUN: rnn-opt %s --convert-rnn-scan-to-scf | FileCheck %s

/// A run-time number of rows %r (at most B = 6): one block of rows per
/// binary digit of r (4, 2, 1), each a loop from the end of the previous
/// block to it plus `r & size` (zero or one iteration) whose body slices its
/// rows of the input and the initial carry at static sizes, runs every step
/// on them (the cells narrowed to the block) and stores its outputs and
/// final carry back at its rows.

// CHECK-LABEL: func.func @runtime_rows
// CHECK-SAME: (%[[X:[^:]+]]: tensor<6x5x3xf32>, %[[H0:[^:]+]]: tensor<6x4xf32>, %[[R:[^:]+]]: index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[M4:.*]] = arith.constant 4 : i64
// CHECK: %[[R64:.*]] = arith.index_castui %[[R]] : index to i64
// CHECK: %[[D4:.*]] = arith.andi %[[R64]], %[[M4]] : i64
// CHECK: %[[I4:.*]] = arith.index_castui %[[D4]] : i64 to index
// CHECK: scf.for %[[ROW:[^ ]+]] = %[[C0]] to %[[I4]] step %[[C4]]
// CHECK:   tensor.extract_slice %[[X]][%[[ROW]], 0, 0] [4, 5, 3] [1, 1, 1] : tensor<6x5x3xf32> to tensor<4x5x3xf32>
// CHECK:   tensor.extract_slice %[[H0]][%[[ROW]], 0] [4, 4] [1, 1] : tensor<6x4xf32> to tensor<4x4xf32>
// CHECK:   rnn.simple_cell({{.*}} : tensor<4x3xf32>, tensor<4x4xf32>,
// CHECK:   tensor.insert_slice %{{.*}}[%[[ROW]], 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<6x4xf32>
// CHECK:   tensor.insert_slice %{{.*}}[%[[ROW]], 0, 0] [4, 5, 4] [1, 1, 1] : tensor<4x5x4xf32> into tensor<6x5x4xf32>
// CHECK: %[[D2:.*]] = arith.andi %[[R64]], %{{.*}} : i64
// CHECK: %[[I2:.*]] = arith.index_castui %[[D2]] : i64 to index
// CHECK: %[[E2:.*]] = arith.addi %[[I4]], %[[I2]] : index
// CHECK: scf.for %{{.*}} = %[[I4]] to %[[E2]] step
// CHECK:   tensor<2x5x3xf32>
// CHECK:   rnn.simple_cell({{.*}} : tensor<2x3xf32>, tensor<2x4xf32>,
// CHECK: arith.andi %[[R64]], %{{.*}} : i64
// CHECK: scf.for
// CHECK:   tensor<1x5x3xf32>
// CHECK:   rnn.simple_cell({{.*}} : tensor<1x3xf32>, tensor<1x4xf32>,
// CHECK-NOT: rnn.simple_cell
// CHECK: return
func.func @runtime_rows(%x: tensor<6x5x3xf32>, %h0: tensor<6x4xf32>, %r: index,
    %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> (tensor<6x5x4xf32>, tensor<6x4xf32>) {
  %y, %h = rnn.scan %x init(%h0 : tensor<6x4xf32>) rows(%r) {num_batch_dims = 1 : i64}
      : tensor<6x5x3xf32> -> tensor<6x5x4xf32>, tensor<6x4xf32> {
  ^bb0(%c: tensor<6x4xf32>, %xt: tensor<6x3xf32>):
    %c1 = rnn.simple_cell(%xt, %c) kernels(%wi, %wh) : tensor<6x3xf32>, tensor<6x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%c1 : tensor<6x4xf32>) output(%c1 : tensor<6x4xf32>)
  }
  return %y, %h : tensor<6x5x4xf32>, tensor<6x4xf32>
}
