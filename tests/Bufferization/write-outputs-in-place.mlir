// RUN: rnn-opt %s --rnn-write-outputs-in-place --split-input-file | FileCheck %s

/// A sequence built step by step in a loop from an empty tensor starts from
/// the output buffer instead.

// CHECK-LABEL: func.func @sequence_in_loop(
// CHECK-SAME: %[[STEP:[^:]+]]: tensor<2x4xf32>, %[[Y:[^:]+]]: memref<2x3x4xf32>)
// CHECK-NOT: tensor.empty
// CHECK: %[[OUT:.+]] = bufferization.to_tensor %[[Y]] restrict writable : memref<2x3x4xf32> to tensor<2x3x4xf32>
// CHECK: %[[SEQ:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %[[OUT]])
// CHECK: bufferization.materialize_in_destination %[[SEQ]] in restrict writable %[[Y]]
func.func @sequence_in_loop(%step: tensor<2x4xf32>, %y: memref<2x3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %empty = tensor.empty() : tensor<2x3x4xf32>
  %seq = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %empty) -> (tensor<2x3x4xf32>) {
    %next = tensor.insert_slice %step into %acc[0, %t, 0] [2, 1, 4] [1, 1, 1] : tensor<2x4xf32> into tensor<2x3x4xf32>
    scf.yield %next : tensor<2x3x4xf32>
  }
  bufferization.materialize_in_destination %seq in restrict writable %y : (tensor<2x3x4xf32>, memref<2x3x4xf32>) -> ()
  return
}

// -----

/// Destination-style ops and insert_slice update their destination: the
/// chain reaches the empty tensor through both.

// CHECK-LABEL: func.func @fill_then_insert(
// CHECK-SAME: %[[Y:[^:]+]]: memref<4x8xf32>
// CHECK-NOT: tensor.empty
// CHECK: %[[OUT:.+]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[OUT]] : tensor<4x8xf32>)
func.func @fill_then_insert(%y: memref<4x8xf32>, %block: tensor<2x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %result = tensor.insert_slice %block into %filled[2, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x8xf32>
  bufferization.materialize_in_destination %result in restrict writable %y : (tensor<4x8xf32>, memref<4x8xf32>) -> ()
  return
}

// -----

/// An empty tensor that also seeds another value is left alone: writing both
/// into the output buffer would make them share it.

// CHECK-LABEL: func.func @shared_seed(
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NOT: bufferization.to_tensor
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<4xf32>)
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<4xf32>)
func.func @shared_seed(%y: memref<4xf32>, %z: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %a = linalg.fill ins(%one : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.fill ins(%two : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  bufferization.materialize_in_destination %a in restrict writable %y : (tensor<4xf32>, memref<4xf32>) -> ()
  bufferization.materialize_in_destination %b in restrict writable %z : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

/// So is a chain with a value used elsewhere (here the initial carry, which
/// is also read after the output is complete).

// CHECK-LABEL: func.func @shared_link(
// CHECK: tensor.empty
// CHECK-NOT: bufferization.to_tensor
func.func @shared_link(%y: memref<4xf32>, %block: tensor<2xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %result = tensor.insert_slice %block into %filled[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
  bufferization.materialize_in_destination %result in restrict writable %y : (tensor<4xf32>, memref<4xf32>) -> ()
  return %filled : tensor<4xf32>
}

// -----

/// A result that does not come from an empty tensor (here a function
/// argument) is copied as before.

// CHECK-LABEL: func.func @not_from_empty(
// CHECK-NOT: bufferization.to_tensor
// CHECK: bufferization.materialize_in_destination %{{.+}} in restrict writable
func.func @not_from_empty(%t: tensor<4xf32>, %block: tensor<2xf32>, %y: memref<4xf32>) {
  %result = tensor.insert_slice %block into %t[0] [2] [1] : tensor<2xf32> into tensor<4xf32>
  bufferization.materialize_in_destination %result in restrict writable %y : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

/// A maximum-shape output buffer allocated after the body (run-time sizes)
/// is allocated before the chain instead, and the chain starts from it.

// CHECK-LABEL: func.func @later_alloc(
// CHECK-NOT: tensor.empty
// CHECK: %[[Y:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: %[[OUT:.+]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[OUT]] : tensor<4xf32>)
func.func @later_alloc(%block: tensor<2xf32>) -> memref<4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %y = memref.alloc() : memref<4xf32>
  bufferization.materialize_in_destination %filled in restrict writable %y : (tensor<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

/// A flattened batch (rnn.flat_batch) writes through a collapsed view of the
/// maximum-shape buffer: both move before the chain, which starts from the
/// view.

// CHECK-LABEL: func.func @later_alloc_view(
// CHECK-NOT: tensor.empty
// CHECK: %[[Y:.+]] = memref.alloc() : memref<2x3x4xf32>
// CHECK-NEXT: %[[V:.+]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]]
// CHECK-NEXT: %[[OUT:.+]] = bufferization.to_tensor %[[V]] restrict writable
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[OUT]] : tensor<6x4xf32>)
func.func @later_alloc_view() -> memref<2x3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<6x4xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<6x4xf32>) -> tensor<6x4xf32>
  %y = memref.alloc() : memref<2x3x4xf32>
  %v = memref.collapse_shape %y [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  bufferization.materialize_in_destination %filled in restrict writable %v : (tensor<6x4xf32>, memref<6x4xf32>) -> ()
  return %y : memref<2x3x4xf32>
}

// -----

/// A destination buffer that does not exist yet where the chain starts, and
/// cannot be made earlier (its size is computed after the chain starts), is
/// left alone.

// CHECK-LABEL: func.func @later_buffer(
// CHECK: tensor.empty
// CHECK-NOT: bufferization.to_tensor
func.func @later_buffer(%block: tensor<2xf32>, %n: index) -> memref<?xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%n) : tensor<?xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %m = arith.addi %n, %n : index
  %y = memref.alloc(%m) : memref<?xf32>
  bufferization.materialize_in_destination %filled in restrict writable %y : (tensor<?xf32>, memref<?xf32>) -> ()
  return %y : memref<?xf32>
}
