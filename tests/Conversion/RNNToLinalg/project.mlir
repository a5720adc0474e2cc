// RUN: rnn-opt %s --convert-rnn-to-linalg --split-input-file | FileCheck %s --enable-var-scope
// RUN: rnn-opt %s --convert-rnn-to-linalg=dequantize-generic=true --split-input-file | FileCheck %s --check-prefix=GENERIC

/// rnn.project: the rows (every dim but the last folded into one) times the
/// kernel, from zeros, reshaped back: the matmul a cell's input product is,
/// on the rows of all its steps.

// CHECK-LABEL: func.func @project_sequence(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x16xf32>, %[[W:[^:]+]]: tensor<16x64xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x16xf32> into tensor<6x16xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x64xf32>)
// CHECK: %[[ALL:.*]] = linalg.matmul ins(%[[FLAT]], %[[W]] : tensor<6x16xf32>, tensor<16x64xf32>) outs(%[[ZERO]] : tensor<6x64xf32>)
// CHECK: %[[SEQ:.*]] = tensor.expand_shape %[[ALL]] {{\[}}[0, 1], [2]] output_shape [2, 3, 64] : tensor<6x64xf32> into tensor<2x3x64xf32>
// CHECK: return %[[SEQ]]
func.func @project_sequence(%x: tensor<2x3x16xf32>, %w: tensor<16x64xf32>) -> tensor<2x3x64xf32> {
  %p = rnn.project %x kernel(%w) : tensor<2x3x16xf32>, tensor<16x64xf32> -> tensor<2x3x64xf32>
  return %p : tensor<2x3x64xf32>
}

// -----

/// One unbatched step (a vector) is one row; bf16 params are widened by the
/// matmul.

// CHECK-LABEL: func.func @project_row_bf16(
// CHECK: %[[ROW:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 5] : tensor<5xf32> into tensor<1x5xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[ROW]], %{{.*}} : tensor<1x5xf32>, tensor<5x8xbf16>) outs(%{{.*}} : tensor<1x8xf32>)
// CHECK: tensor.collapse_shape %[[P]] {{\[}}[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
func.func @project_row_bf16(%x: tensor<5xf32>, %w: tensor<5x8xbf16>) -> tensor<8xf32> {
  %p = rnn.project %x kernel(%w) : tensor<5xf32>, tensor<5x8xbf16> -> tensor<8xf32>
  return %p : tensor<8xf32>
}

// -----

/// bf16 compute (compute_type): the rows narrowed to bf16, times the bf16
/// weights summed in f32 (the product a bf16 cell's step computed), and
/// each sum rounded to a bf16 value in place: the input Dense's output
/// before its bias.

// CHECK-LABEL: func.func @project_bf16_compute(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x16xf32>, %[[W:[^:]+]]: tensor<16x64xbf16>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x16xf32> into tensor<6x16xf32>
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} ins(%[[FLAT]] : tensor<6x16xf32>) outs(%{{.*}} : tensor<6x16xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x64xf32>)
// CHECK: %[[SUMS:.*]] = linalg.matmul ins(%[[ROWS]], %[[W]] : tensor<6x16xbf16>, tensor<16x64xbf16>) outs(%[[ZERO]] : tensor<6x64xf32>)
// CHECK: %[[ROUNDED:.*]] = linalg.generic {{.*}} outs(%[[SUMS]] : tensor<6x64xf32>)
// CHECK: ^bb0(%[[SUM:[^:]+]]: f32):
// CHECK: %[[NARROW:.*]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK: %[[WIDE:.*]] = arith.extf %[[NARROW]] : bf16 to f32
// CHECK: linalg.yield %[[WIDE]] : f32
// CHECK: %[[SEQ:.*]] = tensor.expand_shape %[[ROUNDED]] {{\[}}[0, 1], [2]] output_shape [2, 3, 64] : tensor<6x64xf32> into tensor<2x3x64xf32>
// CHECK: return %[[SEQ]]
func.func @project_bf16_compute(%x: tensor<2x3x16xf32>, %w: tensor<16x64xbf16>) -> tensor<2x3x64xf32> {
  %p = rnn.project %x kernel(%w) {compute_type = bf16} : tensor<2x3x16xf32>, tensor<16x64xbf16> -> tensor<2x3x64xf32>
  return %p : tensor<2x3x64xf32>
}

// -----

/// int8 kernels: the i8 storage times the rows, without the columns' scales
/// (no scale constant is made: the cell that holds the kernel applies
/// them). With dynamic int8 activations, the rows quantized per row: the
/// chain of DynamicInt8.cpp on the 2 x 3 rows of the sequence, read where
/// they are (a loop's slice of a batch-major input's steps is strided, and
/// folding it first would copy it) and folded to 6 rows once quantized. Its
/// per-row maps (quantizing, converting the sums) run in loops over the
/// rows that read each row's factor or scale once.

!q = !quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>
// CHECK-LABEL: func.func @project_int8(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x3xf32>
// CHECK-NOT: dense<[5.000000e-01
// CHECK: %[[Q:.*]] = arith.constant dense<{{.*}}> : tensor<3x4xi8>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x3xf32> into tensor<6x3xf32>
// CHECK: linalg.matmul ins(%[[FLAT]], %[[Q]] : tensor<6x3xf32>, tensor<3x4xi8>) outs(%{{.*}} : tensor<6x4xf32>)
// CHECK-NOT: tensor.collapse_shape %[[X]]
// CHECK: %[[MAX:.*]] = scf.for {{.*}} -> (tensor<2x3xf32>)
// CHECK:   tensor.extract %[[X]]{{.*}} : tensor<2x3x3xf32>
// CHECK: %[[SCALES:.*]]:2 = linalg.generic {{.*}} ins(%[[MAX]] : tensor<2x3xf32>)
// CHECK: %[[QX:.*]] = scf.for %[[B:[a-z0-9]+]] = {{.*}} -> (tensor<2x3x3xi8>)
// CHECK:   scf.for %[[T:[a-z0-9]+]] = {{.*}} iter_args(%[[QI:[a-z0-9]+]] = %{{.*}}) -> (tensor<2x3x3xi8>)
// CHECK:     %[[F:.*]] = tensor.extract %[[SCALES]]#1[%[[B]], %[[T]]] : tensor<2x3xf32>
// CHECK:     %[[XR:.*]] = tensor.extract_slice %[[X]][%[[B]], %[[T]], 0] [1, 1, 3] [1, 1, 1] : tensor<2x3x3xf32> to tensor<3xf32>
// CHECK:     %[[QR:.*]] = linalg.generic {{.*}} ins(%[[XR]] : tensor<3xf32>) outs(%{{.*}} : tensor<3xi8>)
// CHECK:       arith.mulf %{{.*}}, %[[F]] : f32
// CHECK:     tensor.insert_slice %[[QR]] into %[[QI]][%[[B]], %[[T]], 0] [1, 1, 3] [1, 1, 1]
// CHECK: %[[QFLAT:.*]] = tensor.collapse_shape %[[QX]] {{\[}}[0, 1], [2]] : tensor<2x3x3xi8> into tensor<6x3xi8>
// CHECK: %[[ROWSCALES:.*]] = tensor.collapse_shape %[[SCALES]]#0 {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[SUMS:.*]] = linalg.matmul ins(%[[QFLAT]], %[[Q]] : tensor<6x3xi8>, tensor<3x4xi8>) outs(%{{.*}} : tensor<6x4xi32>)
// CHECK: scf.for %[[R2:[a-z0-9]+]] = {{.*}} -> (tensor<6x4xf32>)
// CHECK:   %[[S:.*]] = tensor.extract %[[ROWSCALES]][%[[R2]]] : tensor<6xf32>
// CHECK:   %[[SR:.*]] = tensor.extract_slice %[[SUMS]][%[[R2]], 0] [1, 4] [1, 1] : tensor<6x4xi32> to tensor<4xi32>
// CHECK:   linalg.generic {{.*}} ins(%[[SR]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:     %[[SUM:.*]] = arith.sitofp
// CHECK:     arith.mulf %[[SUM]], %[[S]] : f32
// With dequantize-generic, the sums are converted by one generic over rows
// and columns, each row's scale broadcast by its indexing map (for
// rnn-int8-matmuls to fold into its kernel).
// GENERIC-LABEL: func.func @project_int8(
// GENERIC: %[[SCALES:.*]]:2 = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x3xf32>)
// GENERIC: %[[ROWSCALES:.*]] = tensor.collapse_shape %[[SCALES]]#0
// GENERIC: %[[SUMS:.*]] = linalg.matmul {{.*}} outs(%{{.*}} : tensor<6x4xi32>)
// GENERIC-NOT: scf.for
// GENERIC: linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[SUMS]], %[[ROWSCALES]] : tensor<6x4xi32>, tensor<6xf32>) outs(%{{.*}} : tensor<6x4xf32>)
// GENERIC:   %[[F:.*]] = arith.sitofp %{{.*}} : i32 to f32
// GENERIC:   arith.mulf %[[F]], %{{.*}} : f32
func.func @project_int8(%x: tensor<2x3x3xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %qw = arith.constant dense<[[1, -2, 3, 4], [0, 0, 127, 0], [-127, 2, 3, 4]]> : tensor<3x4xi8>
  %w = quant.scast %qw : tensor<3x4xi8> to tensor<3x4x!q>
  %p = rnn.project %x kernel(%w) : tensor<2x3x3xf32>, tensor<3x4x!q> -> tensor<2x3x4xf32>
  %d = rnn.project %x kernel(%w) dynamic_int8 : tensor<2x3x3xf32>, tensor<3x4x!q> -> tensor<2x3x4xf32>
  return %p, %d : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

/// A cell with a projected input computes only the recurrent product; its
/// input gates are the input's blocks. An int8 `wi` still gives the input
/// side's column scales to the gate maths.

// CHECK-LABEL: func.func @gru_projected_int8(
// CHECK-SAME: %[[GX:[^:]+]]: tensor<4x6xf32>
// CHECK-DAG: %[[SI:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00, 2.000000e+00, 1.250000e-01, 4.000000e+00]> : tensor<6xf32>
// CHECK-COUNT-1: linalg.matmul
// CHECK-NOT: linalg.matmul
// CHECK-DAG: tensor.extract_slice %[[GX]][0, 0] [4, 2] [1, 1] : tensor<4x6xf32> to tensor<4x2xf32>
// CHECK-DAG: tensor.extract_slice %[[SI]][0] [2] [1] : tensor<6xf32> to tensor<2xf32>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[GI:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[BI:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[S:[^:]+]]: f32,
// CHECK: %[[SCALED:.+]] = arith.mulf %[[GI]], %[[S]] : f32
// CHECK: arith.addf %[[SCALED]], %[[BI]] : f32
func.func @gru_projected_int8(%gx: tensor<4x6xf32>, %h: tensor<4x2xf32>, %bi: tensor<6xf32>) -> tensor<4x2xf32> {
  %qi = arith.constant dense<1> : tensor<5x6xi8>
  %wi = quant.scast %qi : tensor<5x6xi8> to tensor<5x6x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0,0.125,4.0}>>
  %qh = arith.constant dense<1> : tensor<2x6xi8>
  %wh = quant.scast %qh : tensor<2x6xi8> to tensor<2x6x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,1.0,3.0}>>
  %h1 = rnn.gru_cell(%gx, %h) kernels(%wi, %wh) projected_input input_bias(%bi : tensor<6xf32>) : tensor<4x6xf32>, tensor<4x2xf32>, tensor<5x6x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0,0.125,4.0}>>, tensor<2x6x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,1.0,3.0}>>
  return %h1 : tensor<4x2xf32>
}

// -----

/// A bf16-compute cell with a projected input reads the projection's bf16
/// values as they are (B(gi) is gi: no rounding of its input blocks),
/// adds the bf16 bias and rounds as unsplit; only h is narrowed to bf16,
/// for the one (recurrent) matmul.

// CHECK-LABEL: func.func @gru_projected_bf16_compute(
// CHECK-SAME: %[[GX:[^:]+]]: tensor<4x6xf32>, %[[H:[^:]+]]: tensor<4x2xf32>
// CHECK: %[[HB:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2xbf16>)
// CHECK-NOT: tensor<4x5xbf16>
// CHECK: linalg.matmul ins(%[[HB]], %{{.*}} : tensor<4x2xbf16>, tensor<2x6xbf16>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic
// CHECK: ^bb0(%[[GI:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[GH:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[BI:[^:]+]]: bf16,
// CHECK-NOT: arith.truncf %[[GI]]
// CHECK: %[[GHR:.*]] = arith.truncf %[[GH]] : f32 to bf16
// CHECK: %[[B:.*]] = arith.extf %[[BI]] : bf16 to f32
// CHECK: %[[XI:.*]] = arith.addf %[[GI]], %[[B]] : f32
// CHECK: arith.truncf %[[XI]] : f32 to bf16
func.func @gru_projected_bf16_compute(%gx: tensor<4x6xf32>, %h: tensor<4x2xf32>, %wi: tensor<5x6xbf16>, %wh: tensor<2x6xbf16>, %bi: tensor<6xbf16>) -> tensor<4x2xf32> {
  %h1 = rnn.gru_cell(%gx, %h) kernels(%wi, %wh) projected_input input_bias(%bi : tensor<6xbf16>) {compute_type = bf16, carry_type = bf16} : tensor<4x6xf32>, tensor<4x2xf32>, tensor<5x6xbf16>, tensor<2x6xbf16>
  return %h1 : tensor<4x2xf32>
}
