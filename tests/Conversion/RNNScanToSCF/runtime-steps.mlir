// RUN: rnn-opt %s --convert-rnn-scan-to-scf | FileCheck %s
// RUN: rnn-opt %s --convert-rnn-scan-to-scf="runtime-step-block=8" | FileCheck %s --check-prefix=BLOCK8

/// A run-time number of steps %n (at most T = 37): blocks of 16 steps up to
/// n - n mod 16, each with its static 16-step slice of the input (which the
/// input projection is hoisted over) in a loop of two unrolled steps; then
/// at most one block each of 8, 4, 2 and 1 steps, as loops from the end of
/// the previous part to it plus `n & size` (zero or one iteration). The
/// blocks of 1 and 2 steps are one unrolled iteration (no inner loop).

// With runtime-step-block=8, full blocks of 8 steps, then 4, 2 and 1.
// BLOCK8-LABEL: func.func @runtime_steps
// BLOCK8-DAG: %[[C8:.*]] = arith.constant 8 : index
// BLOCK8-DAG: %[[M8:.*]] = arith.constant -8 : i64
// BLOCK8: arith.andi %{{.*}}, %[[M8]] : i64
// BLOCK8: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C8]]
// BLOCK8:   tensor<2x8x3xf32>
// BLOCK8-NOT: tensor<2x16x3xf32>
// BLOCK8: tensor<2x4x3xf32>

// CHECK-LABEL: func.func @runtime_steps
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x37x3xf32>, %{{[^:]+}}: tensor<2x4xf32>, %[[N:[^:]+]]: index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[M16:.*]] = arith.constant -16 : i64
// CHECK-DAG: %[[M8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[M1:.*]] = arith.constant 1 : i64
// CHECK: %[[N64:.*]] = arith.index_castui %[[N]] : index to i64
// CHECK: %[[AND:.*]] = arith.andi %[[N64]], %[[M16]] : i64
// CHECK: %[[FULL:.*]] = arith.index_castui %[[AND]] : i64 to index
// CHECK: scf.for %[[FIRST:[^ ]+]] = %[[C0]] to %[[FULL]] step %[[C16]]
// CHECK:   tensor.extract_slice %[[X]][0, %[[FIRST]], 0] [2, 16, 3] [1, 1, 1] : tensor<2x37x3xf32> to tensor<2x16x3xf32>
// CHECK:   scf.for
// CHECK:     rnn.simple_cell
// CHECK:     rnn.simple_cell
// CHECK: %[[D8:.*]] = arith.andi %[[N64]], %[[M8]] : i64
// CHECK: %[[I8:.*]] = arith.index_castui %[[D8]] : i64 to index
// CHECK: %[[E8:.*]] = arith.addi %[[FULL]], %[[I8]] : index
// CHECK: scf.for %{{.*}} = %[[FULL]] to %[[E8]] step %[[C8]]
// CHECK:   tensor<2x8x3xf32>
// CHECK: arith.andi %[[N64]], %{{.*}} : i64
// CHECK: scf.for
// CHECK:   tensor<2x4x3xf32>
// CHECK: arith.andi %[[N64]], %{{.*}} : i64
// CHECK: scf.for
// CHECK:   tensor<2x2x3xf32>
// CHECK-NOT: scf.for
// CHECK: arith.andi %[[N64]], %[[M1]] : i64
// CHECK: scf.for
// CHECK:   tensor<2x1x3xf32>
// CHECK-NOT: scf.for
// CHECK: return
func.func @runtime_steps(%x: tensor<2x37x3xf32>, %h0: tensor<2x4xf32>, %n: index,
    %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> (tensor<2x37x4xf32>, tensor<2x4xf32>) {
  %y, %h = rnn.scan %x init(%h0 : tensor<2x4xf32>) steps(%n) unroll 2 {num_batch_dims = 1 : i64}
      : tensor<2x37x3xf32> -> tensor<2x37x4xf32>, tensor<2x4xf32> {
  ^bb0(%c: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %c1 = rnn.simple_cell(%xt, %c) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%c1 : tensor<2x4xf32>) output(%c1 : tensor<2x4xf32>)
  }
  return %y, %h : tensor<2x37x4xf32>, tensor<2x4xf32>
}
