// RUN: rnn-opt %s --rnn-reorder-matmul-loops | FileCheck %s

/// A plain matmul becomes a generic iterating (i, k, j): the reduction in
/// the middle, so the innermost loop runs along rows of B and C.

// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @gates
// CHECK-SAME: (%[[H:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x256xf32>, %[[ACC:.*]]: tensor<8x256xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[H]], %[[W]] : tensor<8x64xf32>, tensor<64x256xf32>) outs(%[[ACC]] : tensor<8x256xf32>)
// CHECK:   %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:   %[[S:.*]] = arith.addf %{{.*}}, %[[P]] : f32
// CHECK:   linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @gates(%h: tensor<8x64xf32>, %w: tensor<64x256xf32>, %acc: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %0 = linalg.matmul ins(%h, %w : tensor<8x64xf32>, tensor<64x256xf32>) outs(%acc : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}

/// Left alone: matmuls on buffers, and on integers.

// CHECK-LABEL: func.func @negative_buffers
// CHECK: linalg.matmul
func.func @negative_buffers(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// CHECK-LABEL: func.func @negative_integers
// CHECK: linalg.matmul
func.func @negative_integers(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>, %c: tensor<2x4xi32>) -> tensor<2x4xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xi32>, tensor<3x4xi32>) outs(%c : tensor<2x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}
