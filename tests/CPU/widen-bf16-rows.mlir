// RUN: rnn-opt %s --rnn-widen-bf16-rows --split-input-file | FileCheck %s --enable-var-scope

/// Rows narrowed to bf16 (bf16 compute): the narrowing becomes a round of
/// the f32 rows in its place (truncf, extf), the matmul multiplies the f32
/// rows by the bf16 weights into f32, and the narrowing is gone.

// CHECK-LABEL: func.func @narrowed_rows
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x6xf32>, %[[W:[^:]+]]: tensor<6x32xbf16>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x6xf32>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK-NEXT: ^bb0(%[[IN:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:   %[[T:.*]] = arith.truncf %[[IN]] : f32 to bf16
// CHECK-NEXT:   %[[E:.*]] = arith.extf %[[T]] : bf16 to f32
// CHECK-NEXT:   linalg.yield %[[E]] : f32
// CHECK: linalg.matmul ins(%[[R]], %[[W]] : tensor<4x6xf32>, tensor<6x32xbf16>) outs(%{{.*}} : tensor<4x32xf32>)
// CHECK-NOT: bf16>)
// CHECK: return
func.func @narrowed_rows(%x: tensor<4x6xf32>, %w: tensor<6x32xbf16>, %acc: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %ne = tensor.empty() : tensor<4x6xbf16>
  %x16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x6xf32>) outs(%ne : tensor<4x6xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x6xbf16>
  %r = linalg.matmul ins(%x16, %w : tensor<4x6xbf16>, tensor<6x32xbf16>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// -----

/// bf16 rows of another origin are widened (extf) before the matmul.

// CHECK-LABEL: func.func @bf16_argument_rows
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x6xbf16>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x6xbf16>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.matmul ins(%[[R]], %{{.*}} : tensor<4x6xf32>, tensor<6x32xbf16>)
func.func @bf16_argument_rows(%x: tensor<4x6xbf16>, %w: tensor<6x32xbf16>, %acc: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %r = linalg.matmul ins(%x, %w : tensor<4x6xbf16>, tensor<6x32xbf16>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// -----

/// Negative: f32 rows (bf16 weights only) and bf16 sums are left alone.

// CHECK-LABEL: func.func @negative_f32_rows
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x6xf32>, tensor<6x32xbf16>)
// CHECK-LABEL: func.func @negative_bf16_sums
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x6xbf16>, tensor<6x32xbf16>) outs(%{{.*}} : tensor<4x32xbf16>)
func.func @negative_f32_rows(%x: tensor<4x6xf32>, %w: tensor<6x32xbf16>, %acc: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %r = linalg.matmul ins(%x, %w : tensor<4x6xf32>, tensor<6x32xbf16>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}
func.func @negative_bf16_sums(%x: tensor<4x6xbf16>, %w: tensor<6x32xbf16>, %acc: tensor<4x32xbf16>) -> tensor<4x32xbf16> {
  %r = linalg.matmul ins(%x, %w : tensor<4x6xbf16>, tensor<6x32xbf16>) outs(%acc : tensor<4x32xbf16>) -> tensor<4x32xbf16>
  return %r : tensor<4x32xbf16>
}
