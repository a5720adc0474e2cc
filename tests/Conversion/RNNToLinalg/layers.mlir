// RUN: rnn-opt %s --convert-rnn-to-linalg --split-input-file | FileCheck %s

/// A per-step Dense is one matmul over every (batch, step) row, then one
/// element-wise generic for the bias and the activation.

// CHECK-LABEL: func.func @dense_per_step
// CHECK: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<4x6x3xf32> into tensor<24x3xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[X]], %{{.*}} : tensor<24x3xf32>, tensor<3x2xf32>)
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<24x2xf32>, tensor<2xf32>)
// CHECK:   math.expm1
// CHECK: tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [4, 6, 2]
func.func @dense_per_step(%x: tensor<4x6x3xf32>, %k: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<4x6x2xf32> {
  %y = rnn.dense %x, %k bias(%b : tensor<2xf32>) activation <elu> : tensor<4x6x3xf32>, tensor<3x2xf32> -> tensor<4x6x2xf32>
  return %y : tensor<4x6x2xf32>
}

// -----

/// Without a bias or an activation the matmul is the result.

// CHECK-LABEL: func.func @dense_plain
// CHECK: %[[P:.*]] = linalg.matmul
// CHECK-NOT: linalg.generic
// CHECK: return %[[P]]
func.func @dense_plain(%x: tensor<4x3xf32>, %k: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %y = rnn.dense %x, %k : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

/// softmax: a max and a sum of exponentials per row (reductions), then the
/// normalized values.

// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   arith.cmpf ogt
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}ins(%{{.*}}, %[[MAX]]
// CHECK:   math.exp
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %[[MAX]], %[[SUM]]
// CHECK:   math.exp
// CHECK:   arith.divf
func.func @softmax(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %y = rnn.activation <softmax> %x : tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func.func @log_softmax
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK:   math.log
// CHECK-NOT: arith.divf
func.func @log_softmax(%x: tensor<5xf32>) -> tensor<5xf32> {
  %y = rnn.activation <log_softmax> %x : tensor<5xf32>
  return %y : tensor<5xf32>
}

// -----

/// LayerNorm: sum(x) and sum(x*x) in one reduction, then the normalization.

// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[S:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %[[S]]#0, %[[S]]#1, %{{.*}}, %{{.*}} : tensor<24x3xf32>, tensor<24xf32>, tensor<24xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK:   math.sqrt
func.func @layer_norm(%x: tensor<4x6x3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<4x6x3xf32> {
  %y = rnn.layer_norm %x scale(%s : tensor<3xf32>) bias(%b : tensor<3xf32>) epsilon 1.0e-06 : tensor<4x6x3xf32>
  return %y : tensor<4x6x3xf32>
}

// -----

/// Pool(last) without lengths is a slice of the last step.

// CHECK-LABEL: func.func @pool_last
// CHECK: tensor.extract_slice %{{.*}}[0, 5, 0] [4, 1, 3] [1, 1, 1] : tensor<4x6x3xf32> to tensor<4x3xf32>
func.func @pool_last(%x: tensor<4x6x3xf32>) -> tensor<4x3xf32> {
  %p = rnn.pool <last> %x {num_batch_dims = 1 : i64} : tensor<4x6x3xf32> -> tensor<4x3xf32>
  return %p : tensor<4x3xf32>
}

// -----

/// Pool(mean) over valid steps: time is the reduction; steps at or past a
/// row's length are masked; then the sum is divided by the length (zeros
/// for a row of length 0).

// CHECK-LABEL: func.func @pool_mean_valid
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "parallel"]
// CHECK:   linalg.index 0
// CHECK:   arith.cmpi slt
// CHECK:   arith.select
// CHECK: linalg.generic
// CHECK:   arith.sitofp
// CHECK:   arith.divf
func.func @pool_mean_valid(%x: tensor<6x4x3xf32>, %len: tensor<4xi32>) -> tensor<4x3xf32> {
  %p = rnn.pool <mean> %x lengths(%len : tensor<4xi32>) time_major {num_batch_dims = 1 : i64} : tensor<6x4x3xf32> -> tensor<4x3xf32>
  return %p : tensor<4x3xf32>
}

// -----

/// Embed reads the table row each id names.

// CHECK-LABEL: func.func @embed
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : tensor<4x6xi32>)
// CHECK:   arith.index_cast
// CHECK:   linalg.index 2
// CHECK:   tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<10x3xf32>
func.func @embed(%ids: tensor<4x6xi32>, %t: tensor<10x3xf32>) -> tensor<4x6x3xf32> {
  %e = rnn.embed %ids, %t : tensor<4x6xi32>, tensor<10x3xf32> -> tensor<4x6x3xf32>
  return %e : tensor<4x6x3xf32>
}

// -----

/// An int8 Dense kernel (quantize: {weights: int8}): the matmul reads the
/// i8 storage, and one generic scales each column's sum, then adds the bias.

// CHECK-LABEL: func.func @dense_int8_kernel(
// CHECK: %[[SCALES:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3x2xi8>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM]], %{{.*}}, %[[SCALES]] : tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[Y:[^:]+]]: f32, %[[B:[^:]+]]: f32, %[[S:[^:]+]]: f32,
// CHECK-NEXT: %[[SCALED:.+]] = arith.mulf %[[Y]], %[[S]] : f32
// CHECK-NEXT: arith.addf %[[SCALED]], %[[B]] : f32
func.func @dense_int8_kernel(%x: tensor<4x3xf32>, %b: tensor<2xf32>) -> tensor<4x2xf32> {
  %q = arith.constant dense<[[1, -127], [127, 3], [0, 5]]> : tensor<3x2xi8>
  %k = quant.scast %q : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>>
  %d = rnn.dense %x, %k bias(%b : tensor<2xf32>) : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>> -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}

// -----

/// Without a bias, the scales alone still get their generic.

// CHECK-LABEL: func.func @dense_int8_no_bias(
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<4x2xf32>, tensor<2xf32>)
// CHECK: arith.mulf
func.func @dense_int8_no_bias(%x: tensor<4x3xf32>, %k: tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>>) -> tensor<4x2xf32> {
  %d = rnn.dense %x, %k : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>> -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}
