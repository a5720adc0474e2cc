// RUN: rnn-opt %s --rnn-create-entry-point --split-input-file | FileCheck %s

/// The model function becomes <name>_run on buffers: inputs, outputs, the
/// workspace. Every pointer is checked first (NULL, or a workspace not
/// aligned to 4 bytes, gives status 2), then the lengths (a NULL
/// seq_lengths never reaches rnnrt_check_seq_lengths, for which NULL means
/// "all T"), and the results are written into the output buffers only when
/// both checks passed. The buffers never overlap, which LLVM is told
/// (llvm.noalias).

// CHECK: func.func private @rnnrt_check_seq_lengths(memref<1xi32>, i64, i64) -> i32
// CHECK-LABEL: func.func @tiny_run
// CHECK-SAME: (%[[X:.*]]: memref<2x5x3xf32> {llvm.noalias, rnn.name = "x"}, %[[LEN:.*]]: memref<2xi32> {llvm.noalias, rnn.name = "seq_lengths"}, %[[Y:.*]]: memref<2x5x3xf32> {llvm.noalias, rnn.name = "y", rnn.output}, %[[H:.*]]: memref<2x3xf32> {llvm.noalias, rnn.name = "carry/l/h", rnn.output}, %[[WS:.*]]: memref<?xi8> {llvm.noalias, rnn.workspace}) -> i32
// CHECK-DAG: %[[NULL:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[OK0:.*]] = arith.constant 0 : i32
// CHECK: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[XBAD:.*]] = arith.cmpi eq, %[[XP]], %[[NULL]] : index
// CHECK: %[[S0:.*]] = arith.select %[[XBAD]], %[[TWO]], %[[OK0]] : i32
// CHECK: %[[LENP:.*]] = memref.extract_aligned_pointer_as_index %[[LEN]]
// CHECK: %[[LENBAD:.*]] = arith.cmpi eq, %[[LENP]], %[[NULL]] : index
// CHECK: %[[S1:.*]] = arith.select %[[LENBAD]], %[[TWO]], %[[S0]] : i32
// CHECK: %[[YP:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: arith.cmpi eq, %[[YP]], %[[NULL]] : index
// CHECK: %[[HP:.*]] = memref.extract_aligned_pointer_as_index %[[H]]
// CHECK: arith.cmpi eq, %[[HP]], %[[NULL]] : index
// CHECK: %[[WSP:.*]] = memref.extract_aligned_pointer_as_index %[[WS]]
// CHECK: arith.cmpi eq, %[[WSP]], %[[NULL]] : index
// CHECK: %[[WSI:.*]] = arith.index_castui %[[WSP]] : index to i64
// CHECK: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK: %[[LOW:.*]] = arith.andi %[[WSI]], %[[THREE]] : i64
// CHECK: %[[MISALIGNED:.*]] = arith.cmpi ne, %[[LOW]], %{{.*}} : i64
// CHECK: %[[ARGS:.*]] = arith.select %[[MISALIGNED]], %[[TWO]], %{{.*}} : i32
// CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[ARGS]], %{{.*}} : i32
// CHECK: %[[STATUS:.*]] = scf.if %[[BAD]] -> (i32) {
// CHECK:   scf.yield %[[ARGS]] : i32
// CHECK: } else {
// CHECK:   %[[LP:.*]] = memref.reinterpret_cast %[[LEN]] to offset: [0], sizes: [1], strides: [1] : memref<2xi32> to memref<1xi32>
// CHECK-DAG:   %[[B:.*]] = arith.constant 2 : i64
// CHECK-DAG:   %[[T:.*]] = arith.constant 5 : i64
// CHECK:   %[[LSTATUS:.*]] = func.call @rnnrt_check_seq_lengths(%[[LP]], %[[B]], %[[T]])
// CHECK:   scf.yield %[[LSTATUS]] : i32
// CHECK: }
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[STATUS]], %{{.*}} : i32
// CHECK: scf.if %[[OK]] {
// CHECK:   %[[XT:.*]] = bufferization.to_tensor %[[X]] restrict : memref<2x5x3xf32> to tensor<2x5x3xf32>
// CHECK:   %[[LT:.*]] = bufferization.to_tensor %[[LEN]] restrict : memref<2xi32> to tensor<2xi32>
// CHECK:   %[[F:.*]] = rnn.flip_sequences %[[XT]] lengths(%[[LT]] : tensor<2xi32>)
// CHECK:   bufferization.materialize_in_destination %[[F]] in restrict writable %[[Y]]
// CHECK:   bufferization.materialize_in_destination %{{.*}} in restrict writable %[[H]]
// CHECK: }
// CHECK: return %[[STATUS]] : i32
// CHECK-NOT: func.func @tiny(
func.func @tiny(%x: tensor<2x5x3xf32> {rnn.name = "x"}, %len: tensor<2xi32> {rnn.name = "seq_lengths"})
    -> (tensor<2x5x3xf32> {rnn.name = "y"}, tensor<2x3xf32> {rnn.name = "carry/l/h"}) attributes {rnn.num_steps = 5 : i64} {
  %y = rnn.flip_sequences %x lengths(%len : tensor<2xi32>) {num_batch_dims = 1 : i64} : tensor<2x5x3xf32>
  %h = tensor.extract_slice %x[0, 4, 0] [2, 1, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<2x3xf32>
  return %y, %h : tensor<2x5x3xf32>, tensor<2x3xf32>
}

// -----

/// Without lengths only the pointers are checked: the status is 2 or 0.
/// An array of 0 elements is never accessed and may be NULL: it is not
/// checked.

// CHECK-LABEL: func.func @no_lengths_run
// CHECK-SAME: (%[[X:.*]]: memref<4x3xf32> {{.*}}, %[[E:.*]]: memref<0x3xf32> {{.*}}, %[[Y:.*]]: memref<4x3xf32> {{.*}}, %[[WS:.*]]: memref<?xi8> {{.*}})
// CHECK-NOT: rnnrt_check_seq_lengths
// CHECK: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NOT: memref.extract_aligned_pointer_as_index %[[E]]
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: memref.extract_aligned_pointer_as_index %[[WS]]
// CHECK: %[[STATUS:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK:   scf.yield %{{.*}} : i32
// CHECK: } else {
// CHECK:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:   scf.yield %[[ZERO]] : i32
// CHECK: }
// CHECK: scf.if
// CHECK: return %[[STATUS]] : i32
func.func @no_lengths(%x: tensor<4x3xf32> {rnn.name = "x"}, %e: tensor<0x3xf32> {rnn.name = "e"}) -> (tensor<4x3xf32> {rnn.name = "y"}) attributes {rnn.num_steps = 4 : i64} {
  return %x : tensor<4x3xf32>
}

// -----

/// Private functions and functions that are not models are left alone.

// CHECK-LABEL: func.func private @helper
// CHECK-NOT: _run
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

/// An initial carry and the final carry of the same key may be one buffer
/// (an in-place state update): neither is noalias. Every other argument,
/// including an initial carry without a matching final carry and a final
/// carry without an initial one, still is.

// CHECK-LABEL: func.func @inplace_run
// CHECK-SAME: (%{{.*}}: memref<2x5x3xf32> {llvm.noalias, rnn.name = "x"},
// CHECK-SAME: %{{.*}}: memref<2x3xf32> {rnn.name = "initial_carry/l/h"},
// CHECK-SAME: %{{.*}}: memref<2x3xf32> {llvm.noalias, rnn.name = "initial_carry/m/h"},
// CHECK-SAME: %{{.*}}: memref<2x5x3xf32> {llvm.noalias, rnn.name = "y", rnn.output},
// CHECK-SAME: %{{.*}}: memref<2x3xf32> {rnn.name = "carry/l/h", rnn.output},
// CHECK-SAME: %{{.*}}: memref<2x3xf32> {llvm.noalias, rnn.name = "carry/n/h", rnn.output},
// CHECK-SAME: %{{.*}}: memref<?xi8> {llvm.noalias, rnn.workspace}) -> i32
func.func @inplace(%x: tensor<2x5x3xf32> {rnn.name = "x"}, %l: tensor<2x3xf32> {rnn.name = "initial_carry/l/h"}, %m: tensor<2x3xf32> {rnn.name = "initial_carry/m/h"})
    -> (tensor<2x5x3xf32> {rnn.name = "y"}, tensor<2x3xf32> {rnn.name = "carry/l/h"}, tensor<2x3xf32> {rnn.name = "carry/n/h"}) attributes {rnn.num_steps = 5 : i64} {
  return %x, %l, %m : tensor<2x5x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// rnn.flat_batch: the model takes the actual rows of its 2 batch dims as
/// the leading rows of their product, so each array is copied as one level
/// of b x 2 x 4 elements (of 24 in the maximum shape), not a box of b x 2
/// rows; the result is written through a view of the buffer in the model's
/// layout, not by copying the expanded tensor.

// CHECK-LABEL: func.func @flat_run
// CHECK-SAME: %[[B:[^:]+]]: memref<i32> {llvm.noalias, rnn.name = "batch_0"}
// CHECK: %[[N:.*]] = memref.load %[[B]][] : memref<i32>
// CHECK: %[[FULL:.*]] = memref.alloc() : memref<3x2x4xf32>
// CHECK: %[[ROWS:.*]] = arith.muli %[[N]], %{{.*}} : i32
// CHECK: %[[DIMS:.*]] = memref.alloc() : memref<3xi64>
// CHECK-DAG: %[[MAX:.*]] = arith.constant 24 : i64
// CHECK: %[[R64:.*]] = arith.extsi %[[ROWS]] : i32 to i64
// CHECK: %[[COUNT:.*]] = arith.muli %[[R64]], %{{.*}} : i64
// CHECK: memref.store %[[COUNT]], %[[DIMS]][%{{.*}}] : memref<3xi64>
// CHECK: memref.store %[[MAX]], %[[DIMS]][%{{.*}}] : memref<3xi64>
// CHECK: memref.store %[[COUNT]], %[[DIMS]][%{{.*}}] : memref<3xi64>
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: call @rnnrt_copy_box_f32(%{{.*}}, %{{.*}}, %[[ONE]], %{{.*}})
// CHECK: %[[COLLAPSED:.*]] = tensor.collapse_shape
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<3x2x4xf32>
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]] : memref<3x2x4xf32> into memref<6x4xf32>
// CHECK: bufferization.materialize_in_destination %[[COLLAPSED]] in restrict writable %[[VIEW]]
func.func @flat(%x: tensor<3x2x4xf32> {rnn.name = "x", rnn.batch_axis = 0 : i64}, %b: tensor<i32> {rnn.name = "batch_0"})
    -> (tensor<3x2x4xf32> {rnn.name = "y", rnn.batch_axis = 0 : i64}) attributes {rnn.num_steps = 2 : i64, rnn.flat_batch = 2 : i64} {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<3x2x4xf32> into tensor<6x4xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [3, 2, 4] : tensor<6x4xf32> into tensor<3x2x4xf32>
  return %e : tensor<3x2x4xf32>
}

// -----

/// A part of a static batch for <name>_run_parallel's tasks: the entry
/// point keeps the whole batch's rows that its scans plan their blocks of
/// steps for (rnn.time_block_batch, read by --convert-rnn-scan-to-scf).

// CHECK-LABEL: func.func @part_rows4_run
// CHECK-SAME: attributes {rnn.time_block_batch = 8 : i64}
func.func @part_rows4(%x: tensor<4x3xf32> {rnn.name = "x"}) -> (tensor<4x3xf32> {rnn.name = "y"}) attributes {rnn.num_steps = 1 : i64, rnn.time_block_batch = 8 : i64} {
  return %x : tensor<4x3xf32>
}
