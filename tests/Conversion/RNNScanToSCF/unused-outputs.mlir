// RUN: rnn-opt %s --convert-rnn-scan-to-scf --canonicalize | FileCheck %s

/// Outputs nobody reads (a Pool(last) took the final carry) are never
/// stored: the loop carries only h, and no step writes a slot.

// CHECK-LABEL: func.func @unused_outputs_not_stored
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<2x4xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK: return
func.func @unused_outputs_not_stored(%x: tensor<2x5x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %y, %h = rnn.scan %x unroll 2 {num_batch_dims = 1 : i64} : tensor<2x5x3xf32> -> tensor<2x5x4xf32>, tensor<2x4xf32> {
  ^bb0(%h0: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h0) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %h : tensor<2x4xf32>
}
