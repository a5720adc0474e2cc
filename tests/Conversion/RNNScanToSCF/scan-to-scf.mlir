// RUN: rnn-opt %s --convert-rnn-scan-to-scf --split-input-file | FileCheck %s

/// T = 5 with unroll 2: a loop over the first 4 steps, two body copies per
/// iteration, then one remainder step at the constant index 4. Each new
/// carry is the cell's result, which convert-rnn-to-linalg computes over
/// the old carry, and each output is inserted into its slot of the outputs,
/// which the cell's lowering computes it in: no copies, and everything
/// bufferizes in place.

// CHECK-LABEL: func.func @unroll_2_of_5_with_remainder
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x3xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x5x4xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[T:.*]] = %[[C0]] to %[[C4]] step %[[C2]] iter_args(%[[H:.*]] = %[[ZERO]], %[[Y:.*]] = %[[EMPTY]])
// CHECK-NOT: linalg.copy
// CHECK:   %[[X0:.*]] = tensor.extract_slice %[[X]][0, %[[T]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<2x3xf32>
// CHECK:   %[[H1:.*]] = rnn.simple_cell(%[[X0]], %[[H]])
// CHECK:   %[[Y1:.*]] = tensor.insert_slice %[[H1]] into %[[Y]][0, %[[T]], 0] [2, 1, 4]
// CHECK:   %[[T1:.*]] = arith.addi %[[T]]
// CHECK:   %[[X1:.*]] = tensor.extract_slice %[[X]][0, %[[T1]], 0]
// CHECK:   %[[H2:.*]] = rnn.simple_cell(%[[X1]], %[[H1]])
// CHECK:   %[[Y2:.*]] = tensor.insert_slice %[[H2]] into %[[Y1]][0, %[[T1]], 0]
// CHECK:   scf.yield %[[H2]], %[[Y2]]
// CHECK: %[[XR:.*]] = tensor.extract_slice %[[X]][0, 4, 0] [2, 1, 3]
// CHECK: %[[HR:.*]] = rnn.simple_cell(%[[XR]], %[[LOOP]]#0)
// CHECK: %[[YR:.*]] = tensor.insert_slice %[[HR]] into %[[LOOP]]#1[0, 4, 0]
// CHECK-NOT: linalg.copy
// CHECK: return %[[YR]], %[[HR]]
func.func @unroll_2_of_5_with_remainder(%x: tensor<2x5x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> (tensor<2x5x4xf32>, tensor<2x4xf32>) {
  %y, %hT = rnn.scan %x unroll 2 {num_batch_dims = 1 : i64} : tensor<2x5x3xf32> -> tensor<2x5x4xf32>, tensor<2x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y, %hT : tensor<2x5x4xf32>, tensor<2x4xf32>
}

// -----

/// unroll = T: no loop, every step at a constant index.

// CHECK-LABEL: func.func @fully_unrolled_time_major
// CHECK-NOT: scf.for
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<3x2x3xf32> to tensor<2x3xf32>
// CHECK: tensor.extract_slice %{{.*}}[1, 0, 0] [1, 2, 3]
// CHECK: tensor.extract_slice %{{.*}}[2, 0, 0] [1, 2, 3]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[2, 0, 0] [1, 2, 4]
func.func @fully_unrolled_time_major(%x: tensor<3x2x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<3x2x4xf32> {
  %y = rnn.scan %x time_major unroll 3 {num_batch_dims = 1 : i64} : tensor<3x2x3xf32> -> tensor<3x2x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<3x2x4xf32>
}

// -----

/// Reverse with keep_order flips the input and the outputs; with lengths and
/// a final carry, each row keeps the carry of the step t == L - 1, starting
/// from the initial carry (a row of length 0 returns it).

// CHECK-LABEL: func.func @reverse_keep_order_lengths_initial_carry
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x3xf32>, %[[LEN:.*]]: tensor<2xi32>, %[[H0:.*]]: tensor<2x4xf32>
// CHECK: %[[FX:.*]] = rnn.flip_sequences %[[X]] lengths(%[[LEN]] : tensor<2xi32>) {num_batch_dims = 1 : i64} : tensor<2x3x3xf32>
// CHECK: tensor.extract_slice %[[FX]][0, 0, 0]
// CHECK: %[[S0:.*]] = linalg.generic {{.*}} ins(%[[LEN]], %{{.*}} : tensor<2xi32>, tensor<2x4xf32>) outs(%[[H0]] : tensor<2x4xf32>)
// CHECK:   arith.subi
// CHECK:   arith.cmpi eq
// CHECK:   arith.select
// CHECK: %[[S1:.*]] = linalg.generic {{.*}} outs(%[[S0]] : tensor<2x4xf32>)
// CHECK: %[[S2:.*]] = linalg.generic {{.*}} outs(%[[S1]] : tensor<2x4xf32>)
// CHECK: %[[Y:.*]] = rnn.flip_sequences %{{.*}} lengths(%[[LEN]] : tensor<2xi32>) {num_batch_dims = 1 : i64} : tensor<2x3x4xf32>
// CHECK: return %[[Y]], %[[S2]]
func.func @reverse_keep_order_lengths_initial_carry(%x: tensor<2x3x3xf32>, %len: tensor<2xi32>, %h0: tensor<2x4xf32>,
    %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x4xf32>) {
  %y, %hT = rnn.scan %x lengths(%len : tensor<2xi32>) init(%h0 : tensor<2x4xf32>) reverse keep_order unroll 3
      {num_batch_dims = 1 : i64} : tensor<2x3x3xf32> -> tensor<2x3x4xf32>, tensor<2x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y, %hT : tensor<2x3x4xf32>, tensor<2x4xf32>
}

// -----

/// Reverse without keep_order: outputs stay in processing order. Without a
/// final carry the lengths select nothing.

// CHECK-LABEL: func.func @reverse_only
// CHECK: rnn.flip_sequences
// CHECK-NOT: linalg.generic
// CHECK-NOT: rnn.flip_sequences
// CHECK: return
func.func @reverse_only(%x: tensor<2x2x3xf32>, %len: tensor<2xi32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x2x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<2xi32>) reverse {num_batch_dims = 1 : i64} : tensor<2x2x3xf32> -> tensor<2x2x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x2x4xf32>
}

// -----

/// Zero padded outputs: each step's output is selected against zeros by
/// t < L, into the step's slot of the outputs as well (one more init, no
/// copy); two batch dims index the lengths with the two leading dims.

// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @zero_padded_two_batch_dims
// CHECK: %[[Y:.+]] = tensor.empty() : tensor<2x3x1x4xf32>
// CHECK: %[[H:.+]] = rnn.simple_cell
// CHECK: %[[ZEROS:.+]] = linalg.fill
// CHECK: %[[SLOT:.+]] = tensor.extract_slice %[[Y]][0, 0, 0, 0] [2, 3, 1, 4]
// CHECK: %[[SEL:.+]]:2 = linalg.generic {indexing_maps = [#[[$ROWS]], #[[$ALL]], #[[$ALL]], #[[$ALL]]]
// CHECK-SAME: ins(%{{.+}}, %[[H]] : tensor<2x3xi32>, tensor<2x3x4xf32>) outs(%[[ZEROS]], %[[SLOT]] : tensor<2x3x4xf32>, tensor<2x3x4xf32>)
// CHECK:   arith.cmpi {{slt|sgt}}
// CHECK:   %[[V:.+]] = arith.select
// CHECK:   linalg.yield %[[V]], %[[V]] : f32, f32
// CHECK-NOT: linalg.copy
// CHECK: tensor.insert_slice %[[SEL]]#1 into %[[Y]][0, 0, 0, 0] [2, 3, 1, 4]
func.func @zero_padded_two_batch_dims(%x: tensor<2x3x1x5xf32>, %len: tensor<2x3xi32>, %wi: tensor<5x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x3x1x4xf32> {
  %y = rnn.scan %x lengths(%len : tensor<2x3xi32>) zero_padded_outputs {num_batch_dims = 2 : i64} : tensor<2x3x1x5xf32> -> tensor<2x3x1x4xf32> {
  ^bb0(%h: tensor<2x3x4xf32>, %xt: tensor<2x3x5xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x3x4xf32>) output(%h1 : tensor<2x3x4xf32>)
  }
  return %y : tensor<2x3x1x4xf32>
}

// -----

/// reverse without lengths: every row reverses whole, so step t reads the
/// input at T - 1 - t directly (no rnn.flip_sequences copy) and, with
/// keep_order, stores its output there too.

// CHECK-LABEL: func.func @reverse_without_lengths
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x5x3xf32>
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NOT: rnn.flip_sequences
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[T:[^ ]+]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%{{.*}}, %[[Y:[^ ]+]] = %{{.*}})
// CHECK:   %[[IN:.*]] = arith.subi %[[C4]], %[[T]] : index
// CHECK:   tensor.extract_slice %[[X]][0, %[[IN]], 0] [2, 1, 3]
// CHECK:   %[[OUT:.*]] = arith.subi %[[C4]], %[[T]] : index
// CHECK:   tensor.insert_slice %{{.*}} into %[[Y]][0, %[[OUT]], 0] [2, 1, 4]
// CHECK: tensor.extract_slice %[[X]][0, 0, 0] [2, 1, 3]
// CHECK: tensor.insert_slice %{{.*}} into %[[LOOP]]#1[0, 0, 0] [2, 1, 4]
// CHECK-NOT: rnn.flip_sequences
func.func @reverse_without_lengths(%x: tensor<2x5x3xf32>, %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> tensor<2x5x4xf32> {
  %y = rnn.scan %x reverse keep_order unroll 2 {num_batch_dims = 1 : i64} : tensor<2x5x3xf32> -> tensor<2x5x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x5x4xf32>
}
