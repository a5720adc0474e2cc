// RUN: rnn-opt %s --rnn-fuse-output-copies --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

/// A scan step: the cell's new h is copied over the old h (the tensor it was
/// computed in: dropped), then into the step's slot of the sequence (the
/// generic writes the slot too). The slot is taken after the cell, so its
/// extract_slice moves up.

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[H:[^:]+]]: tensor<4x8xf32>, %[[SEQ:[^:]+]]: tensor<4x3x8xf32>, %[[T:[^:]+]]: index)
// CHECK: %[[SLOT:.+]] = tensor.extract_slice %[[SEQ]][0, %[[T]], 0] [4, 1, 8] [1, 1, 1]
// CHECK: %[[NEW:.+]]:2 = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[H]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[H]], %[[SLOT]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK: %[[V:.+]] = math.tanh
// CHECK-NEXT: linalg.yield %[[V]], %[[V]] : f32, f32
// CHECK-NOT: linalg.copy
// CHECK: %[[INSERTED:.+]] = tensor.insert_slice %[[NEW]]#1 into %[[SEQ]][0, %[[T]], 0]
// CHECK: return %[[NEW]]#0, %[[INSERTED]]
func.func @step(%x: tensor<4x8xf32>, %h: tensor<4x8xf32>, %seq: tensor<4x3x8xf32>, %t: index)
    -> (tensor<4x8xf32>, tensor<4x3x8xf32>) {
  %new = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %h : tensor<4x8xf32>, tensor<4x8xf32>) outs(%h : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %v = math.tanh %s : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %carry = linalg.copy ins(%new : tensor<4x8xf32>) outs(%h : tensor<4x8xf32>) -> tensor<4x8xf32>
  %slot = tensor.extract_slice %seq[0, %t, 0] [4, 1, 8] [1, 1, 1] : tensor<4x3x8xf32> to tensor<4x8xf32>
  %copied = linalg.copy ins(%carry : tensor<4x8xf32>) outs(%slot : tensor<4x8xf32>) -> tensor<4x8xf32>
  %inserted = tensor.insert_slice %copied into %seq[0, %t, 0] [4, 1, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<4x3x8xf32>
  return %carry, %inserted : tensor<4x8xf32>, tensor<4x3x8xf32>
}

// -----

/// Of a generic with two results, the copied one is yielded again; a
/// transposing (but still one-to-one) result map is kept for the slot.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @second_result_transposed(
// CHECK-SAME: %[[SLOT:[^:]+]]: tensor<8x4xf32>)
// CHECK: %[[NEW:.+]]:3 = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #[[TR:.+]], #[[TR]]]
// CHECK-SAME: outs(%{{.+}}, %{{.+}}, %[[SLOT]] : tensor<4x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>)
// CHECK: linalg.yield %[[A:[^,]+]], %[[B:[^,]+]], %[[B]] : f32, f32, f32
// CHECK: return %[[NEW]]#0, %[[NEW]]#2
func.func @second_result_transposed(%x: tensor<4x8xf32>, %slot: tensor<8x4xf32>)
    -> (tensor<4x8xf32>, tensor<8x4xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #tr], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0, %e1 : tensor<4x8xf32>, tensor<8x4xf32>) {
  ^bb0(%a: f32, %o0: f32, %o1: f32):
    %n = arith.negf %a : f32
    linalg.yield %a, %n : f32, f32
  } -> (tensor<4x8xf32>, tensor<8x4xf32>)
  %copied = linalg.copy ins(%r#1 : tensor<8x4xf32>) outs(%slot : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r#0, %copied : tensor<4x8xf32>, tensor<8x4xf32>
}

// -----

/// A reduction yields each result element more than once (its map leaves
/// the reduction loop out): left alone.

// CHECK-LABEL: func.func @reduction(
// CHECK: linalg.generic
// CHECK: linalg.copy
func.func @reduction(%x: tensor<4x8xf32>, %acc: tensor<4xf32>, %slot: tensor<4xf32>) -> tensor<4xf32> {
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.addf %a, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %copied = linalg.copy ins(%sum : tensor<4xf32>) outs(%slot : tensor<4xf32>) -> tensor<4xf32>
  return %copied : tensor<4xf32>
}

// -----

/// A parallel loop that the result does not index writes each element
/// several times: left alone.

// CHECK-LABEL: func.func @not_one_to_one(
// CHECK: linalg.generic
// CHECK: linalg.copy
func.func @not_one_to_one(%x: tensor<4x8xf32>, %init: tensor<4xf32>, %slot: tensor<4xf32>) -> tensor<4xf32> {
  %last = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %copied = linalg.copy ins(%last : tensor<4xf32>) outs(%slot : tensor<4xf32>) -> tensor<4xf32>
  return %copied : tensor<4xf32>
}

// -----

/// A slot computed from the generic's own result cannot be its init.

// CHECK-LABEL: func.func @slot_needs_result(
// CHECK: %[[R:.+]] = linalg.generic
// CHECK: %[[SLOT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[R]]
// CHECK: linalg.copy ins(%[[R]] : tensor<4xf32>) outs(%[[SLOT]]
func.func @slot_needs_result(%x: tensor<4xf32>, %init: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %slot = linalg.fill ins(%zero : f32) outs(%r : tensor<4xf32>) -> tensor<4xf32>
  %copied = linalg.copy ins(%r : tensor<4xf32>) outs(%slot : tensor<4xf32>) -> tensor<4xf32>
  return %r, %copied : tensor<4xf32>, tensor<4xf32>
}

// -----

/// Copies of values no element-wise op computed, copies in another block
/// than their source's op, and copies between buffers (an op's result
/// among them) are left alone.

// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-4: linalg.copy
func.func @left_alone(%x: tensor<4xf32>, %slot: tensor<4xf32>, %c: i1,
                      %a: memref<4xf32>, %b: memref<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %argument = linalg.copy ins(%x : tensor<4xf32>) outs(%slot : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %nested = scf.if %c -> tensor<4xf32> {
    %copied = linalg.copy ins(%r : tensor<4xf32>) outs(%slot : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %copied : tensor<4xf32>
  } else {
    scf.yield %slot : tensor<4xf32>
  }
  linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  %buffer = memref.alloc() : memref<4xf32>
  linalg.copy ins(%buffer : memref<4xf32>) outs(%b : memref<4xf32>)
  return %argument, %nested : tensor<4xf32>, tensor<4xf32>
}
