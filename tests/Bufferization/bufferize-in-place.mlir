// RUN: rnn-opt %s --rnn-lower-to-buffers | FileCheck %s

/// After bufferization each step updates the carries in place (the gate
/// loop stores c and h into the buffers the step read them from, with no
/// copy back) and the same loop stores h into the step's slot of the
/// caller's `y`: no loop copying h out, no workspace sequence copied out at
/// the end.

// CHECK-LABEL: func.func @lstm_run(
// CHECK-SAME: %[[Y:[^:]+]]: memref<4x16x8xf32> {llvm.noalias, rnn.name = "y", rnn.output}
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK: scf.for %[[T:[^ ]+]] = %{{.+}} to %[[C16]] step
// CHECK: memref.subview %[[H:[a-z0-9_]+]][0, %{{.+}}] [4, 1] [1, 1] : memref<4x8xf32> to memref<4x1xf32
// CHECK: %[[YT:.+]] = memref.subview %[[Y]][0, %[[T]], 0] [4, 1, 8] [1, 1, 1]
// CHECK: memref.load %[[C:[a-z0-9_]+]][%{{.+}}, %{{.+}}] : memref<4x8xf32>
// CHECK: memref.store %{{.+}}, %[[C]][%{{.+}}, %{{.+}}] : memref<4x8xf32>
// CHECK-NEXT: memref.store %[[HT:[^,]+]], %[[H]][%{{.+}}, %{{.+}}] : memref<4x8xf32>
// CHECK-NEXT: memref.store %[[HT]], %[[YT]][%{{.+}}, %{{.+}}]
// CHECK-NOT: memref.copy
// CHECK-NOT: scf.for
// CHECK: return
func.func @lstm(%x: tensor<4x16x8xf32> {rnn.name = "x"}, %wi: tensor<8x32xf32>, %wh: tensor<8x32xf32>, %bh: tensor<32xf32>)
    -> (tensor<4x16x8xf32> {rnn.name = "y"}) attributes {rnn.num_steps = 16 : i64} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = rnn.scan %x init(%c0, %c0 : tensor<4x8xf32>, tensor<4x8xf32>) {num_batch_dims = 1 : i64} : tensor<4x16x8xf32> -> tensor<4x16x8xf32> {
  ^bb0(%c: tensor<4x8xf32>, %h: tensor<4x8xf32>, %xt: tensor<4x8xf32>):
    %r:2 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) hidden_bias(%bh : tensor<32xf32>) : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x32xf32>, tensor<8x32xf32>
    rnn.yield carry(%r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>) output(%r#1 : tensor<4x8xf32>)
  }
  return %y : tensor<4x16x8xf32>
}
