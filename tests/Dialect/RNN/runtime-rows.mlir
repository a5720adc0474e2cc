// RUN: rnn-opt %s --rnn-runtime-rows | FileCheck %s

/// The layers after a scan with `rows` (at most 6): each becomes one block
/// of rows per binary digit of r (4, 2, 1), a loop of zero or one iteration
/// from the end of the previous block, whose body runs a static clone of the
/// layer on its rows and stores them back; the next layer takes the rows on
/// (Dense, then Activation, then Pool over the time axis). The scan itself
/// is left to its lowering.

// CHECK-LABEL: func.func @layers_after_rows
// CHECK-SAME: %[[R:[^:]+]]: index
// CHECK: %[[Y:.*]] = rnn.scan %{{.*}} rows(%[[R]])
// CHECK: %[[E:.*]] = tensor.empty() : tensor<6x5x2xf32>
// CHECK: %[[R64:.*]] = arith.index_castui %[[R]] : index to i64
// CHECK: %[[D4:.*]] = arith.andi %[[R64]], %{{.*}} : i64
// CHECK: %[[I4:.*]] = arith.index_castui %[[D4]] : i64 to index
// CHECK: scf.for %[[ROW:[^ ]+]] = %{{[^ ]+}} to %{{[^ ]+}} step %{{[^ ]+}} iter_args(%[[ACC:[^ ]+]] = %[[E]])
// CHECK:   %[[S:.*]] = tensor.extract_slice %[[Y]][%[[ROW]], 0, 0] [4, 5, 4] [1, 1, 1] : tensor<6x5x4xf32> to tensor<4x5x4xf32>
// CHECK:   %[[D:.*]] = rnn.dense %[[S]], %{{.*}} : tensor<4x5x4xf32>, tensor<4x2xf32> -> tensor<4x5x2xf32>
// CHECK:   tensor.insert_slice %[[D]] into %[[ACC]][%[[ROW]], 0, 0] [4, 5, 2] [1, 1, 1] : tensor<4x5x2xf32> into tensor<6x5x2xf32>
// CHECK: scf.for
// CHECK:   rnn.dense {{.*}} -> tensor<2x5x2xf32>
// CHECK: %[[DENSE:.*]] = scf.for
// CHECK:   rnn.dense {{.*}} -> tensor<1x5x2xf32>
// CHECK-NOT: rnn.dense
// CHECK: scf.for
// CHECK:   tensor.extract_slice %[[DENSE]]
// CHECK:   rnn.activation <tanh> %{{.*}} : tensor<4x5x2xf32>
// CHECK: scf.for
// CHECK:   rnn.activation <tanh> %{{.*}} : tensor<2x5x2xf32>
// CHECK: %[[ACT:.*]] = scf.for
// CHECK:   rnn.activation <tanh> %{{.*}} : tensor<1x5x2xf32>
// CHECK: scf.for
// CHECK:   tensor.extract_slice %[[ACT]]
// CHECK:   rnn.pool <last> {{.*}} : tensor<4x5x2xf32> -> tensor<4x2xf32>
// CHECK: scf.for
// CHECK: %[[P:.*]] = scf.for
// CHECK:   rnn.pool <last> {{.*}} : tensor<1x5x2xf32> -> tensor<1x2xf32>
// CHECK: return %[[P]]
func.func @layers_after_rows(%x: tensor<6x5x3xf32>, %r: index, %wi: tensor<3x4xf32>,
    %wh: tensor<4x4xf32>, %k: tensor<4x2xf32>) -> tensor<6x2xf32> {
  %y = rnn.scan %x rows(%r) {num_batch_dims = 1 : i64} : tensor<6x5x3xf32> -> tensor<6x5x4xf32> {
  ^bb0(%c: tensor<6x4xf32>, %xt: tensor<6x3xf32>):
    %c1 = rnn.simple_cell(%xt, %c) kernels(%wi, %wh) : tensor<6x3xf32>, tensor<6x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%c1 : tensor<6x4xf32>) output(%c1 : tensor<6x4xf32>)
  }
  %d = rnn.dense %y, %k : tensor<6x5x4xf32>, tensor<4x2xf32> -> tensor<6x5x2xf32>
  %a = rnn.activation <tanh> %d : tensor<6x5x2xf32>
  %p = rnn.pool <last> %a {num_batch_dims = 1 : i64} : tensor<6x5x2xf32> -> tensor<6x2xf32>
  return %p : tensor<6x2xf32>
}

/// Time-major: the rows are axis 1 of the sequences, axis 0 once Pool drops
/// the time axis. Merge takes the rows of both scans (Bidirectional), the
/// final carry's rows are axis 0.

// CHECK-LABEL: func.func @time_major_merge
// CHECK: rnn.merge <add> {{.*}} : tensor<5x4x4xf32>, tensor<5x4x4xf32> -> tensor<5x4x4xf32>
// CHECK: rnn.merge <add> {{.*}} : tensor<5x2x4xf32>, tensor<5x2x4xf32> -> tensor<5x2x4xf32>
// CHECK: rnn.merge <add> {{.*}} : tensor<5x1x4xf32>, tensor<5x1x4xf32> -> tensor<5x1x4xf32>
// CHECK: rnn.pool <mean> {{.*}} time_major {{.*}} : tensor<5x4x4xf32> -> tensor<4x4xf32>
// CHECK: rnn.layer_norm {{.*}} : tensor<4x4xf32>
// CHECK: rnn.dense {{.*}} : tensor<4x4xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
func.func @time_major_merge(%x: tensor<5x6x3xf32>, %r: index, %wi: tensor<3x4xf32>,
    %wh: tensor<4x4xf32>, %k: tensor<4x2xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x2xf32>) {
  %f, %fh = rnn.scan %x rows(%r) time_major {num_batch_dims = 1 : i64} : tensor<5x6x3xf32> -> tensor<5x6x4xf32>, tensor<6x4xf32> {
  ^bb0(%c: tensor<6x4xf32>, %xt: tensor<6x3xf32>):
    %c1 = rnn.simple_cell(%xt, %c) kernels(%wi, %wh) : tensor<6x3xf32>, tensor<6x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%c1 : tensor<6x4xf32>) output(%c1 : tensor<6x4xf32>)
  }
  %b = rnn.scan %x rows(%r) time_major reverse keep_order {num_batch_dims = 1 : i64} : tensor<5x6x3xf32> -> tensor<5x6x4xf32> {
  ^bb0(%c: tensor<6x4xf32>, %xt: tensor<6x3xf32>):
    %c1 = rnn.simple_cell(%xt, %c) kernels(%wi, %wh) : tensor<6x3xf32>, tensor<6x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%c1 : tensor<6x4xf32>) output(%c1 : tensor<6x4xf32>)
  }
  %m = rnn.merge <add> %f, %b : tensor<5x6x4xf32>, tensor<5x6x4xf32> -> tensor<5x6x4xf32>
  %p = rnn.pool <mean> %m time_major {num_batch_dims = 1 : i64} : tensor<5x6x4xf32> -> tensor<6x4xf32>
  %n = rnn.layer_norm %p epsilon 1.0e-06 : tensor<6x4xf32>
  %d = rnn.dense %fh, %k : tensor<6x4xf32>, tensor<4x2xf32> -> tensor<6x2xf32>
  return %n, %fh, %d : tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x2xf32>
}

/// Without `rows` the layers stay whole.

// CHECK-LABEL: func.func @static_rows
// CHECK-NOT: scf.for
// CHECK: rnn.dense {{.*}} : tensor<6x5x4xf32>, tensor<4x2xf32> -> tensor<6x5x2xf32>
func.func @static_rows(%x: tensor<6x5x3xf32>, %wi: tensor<3x4xf32>,
    %wh: tensor<4x4xf32>, %k: tensor<4x2xf32>) -> tensor<6x5x2xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<6x5x3xf32> -> tensor<6x5x4xf32> {
  ^bb0(%c: tensor<6x4xf32>, %xt: tensor<6x3xf32>):
    %c1 = rnn.simple_cell(%xt, %c) kernels(%wi, %wh) : tensor<6x3xf32>, tensor<6x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%c1 : tensor<6x4xf32>) output(%c1 : tensor<6x4xf32>)
  }
  %d = rnn.dense %y, %k : tensor<6x5x4xf32>, tensor<4x2xf32> -> tensor<6x5x2xf32>
  return %d : tensor<6x5x2xf32>
}
