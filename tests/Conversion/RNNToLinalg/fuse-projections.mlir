// RUN: rnn-opt %s --convert-rnn-to-linalg=fuse-projections=true --split-input-file | FileCheck %s
// RUN: rnn-opt %s --convert-rnn-to-linalg --split-input-file | FileCheck %s --check-prefix=OFF

/// LSTM with constant kernels and both biases: one matmul of [x, h] by
/// [wi; wh] into rows of bi + bh (summed at compile time, as the
/// accumulator summed them); the gate generic reads one block per gate and
/// adds nothing before the activations. Without the option, two matmuls.

// CHECK-LABEL: func.func @lstm_constants(
// CHECK-SAME: %[[X:[^:]+]]: tensor<3xf32>, %[[C:[^:]+]]: tensor<4xf32>, %[[H:[^:]+]]: tensor<4xf32>)
// CHECK-DAG: %[[K:.+]] = arith.constant dense<{{.+}}> : tensor<7x16xf32>
// CHECK-DAG: %[[X2:.+]] = tensor.expand_shape %[[X]]
// CHECK-DAG: %[[H2:.+]] = tensor.expand_shape %[[H]]
// CHECK: %[[E:.+]] = tensor.empty() : tensor<1x7xf32>
// CHECK-NEXT: %[[A1:.+]] = tensor.insert_slice %[[X2]] into %[[E]][0, 0] [1, 3] [1, 1]
// CHECK-NEXT: %[[A2:.+]] = tensor.insert_slice %[[H2]] into %[[A1]][0, 3] [1, 4] [1, 1]
// CHECK: %[[B:.+]] = arith.constant dense<3.000000e+00> : tensor<16xf32>
// CHECK: %[[ROWS:.+]] = linalg.broadcast ins(%[[B]] : tensor<16xf32>) outs(%{{.+}} : tensor<1x16xf32>) dimensions = [0]
// CHECK: %[[G:.+]] = linalg.matmul ins(%[[A2]], %[[K]] : tensor<1x7xf32>, tensor<7x16xf32>) outs(%[[ROWS]] : tensor<1x16xf32>)
// CHECK-NOT: linalg.matmul
// CHECK-COUNT-4: tensor.extract_slice %[[G]]
// CHECK-NEXT: linalg.generic
// CHECK-SAME: ins({{(%[^,]+, ){5}%[^ ]+}} :
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){7}%[^:]+: f32}}):
// CHECK-NEXT: arith.constant 1.000000e+00
// CHECK-NEXT: arith.negf %in :
// OFF-LABEL: func.func @lstm_constants(
// OFF-COUNT-2: linalg.matmul
func.func @lstm_constants(%x: tensor<3xf32>, %c: tensor<4xf32>, %h: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %wi = arith.constant dense<0.5> : tensor<3x16xf32>
  %wh = arith.constant dense<0.25> : tensor<4x16xf32>
  %bi = arith.constant dense<1.0> : tensor<16xf32>
  %bh = arith.constant dense<2.0> : tensor<16xf32>
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) input_bias(%bi : tensor<16xf32>) hidden_bias(%bh : tensor<16xf32>)
      : tensor<3xf32>, tensor<4xf32>, tensor<3x16xf32>, tensor<4x16xf32>
  return %c1, %h1 : tensor<4xf32>, tensor<4xf32>
}

// -----

/// The stacked kernel's rows: wi's, then wh's; the bias is the rows' start
/// (batch 2).

// CHECK-LABEL: func.func @lstm_rows(
// CHECK-DAG: %[[K:.+]] = arith.constant dense<{{\[\[}}5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01], [1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01]]> : tensor<3x4xf32>
// CHECK: tensor.insert_slice
// CHECK: %[[B:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK: %[[ROWS:.+]] = linalg.broadcast ins(%[[B]] : tensor<4xf32>) outs(%{{.+}} : tensor<2x4xf32>) dimensions = [0]
// CHECK: linalg.matmul ins(%{{.+}}, %[[K]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[ROWS]] : tensor<2x4xf32>)
// CHECK-NOT: linalg.matmul
func.func @lstm_rows(%x: tensor<2x2xf32>, %c: tensor<2x1xf32>, %h: tensor<2x1xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %wi = arith.constant dense<[[5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<2x4xf32>
  %wh = arith.constant dense<[[13.0, 14.0, 15.0, 16.0]]> : tensor<1x4xf32>
  %bh = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) hidden_bias(%bh : tensor<4xf32>)
      : tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x4xf32>, tensor<1x4xf32>
  return %c1, %h1 : tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

/// Not fused: kernels that are not constants; a row [x, h] and a column per
/// bias wider than the G*H columns; a Simple cell (G = 1: the
/// row is always wider); GRU, whose n gate multiplies the recurrent product
/// by r.

// CHECK-LABEL: func.func @not_fused(
// CHECK-COUNT-8: linalg.matmul
// CHECK-NOT: linalg.matmul
func.func @not_fused(%x: tensor<4x3xf32>, %c: tensor<4x4xf32>, %h: tensor<4x4xf32>,
    %wi: tensor<3x16xf32>, %wh: tensor<4x16xf32>, %hs: tensor<4x2xf32>, %hg: tensor<4x4xf32>,
    %cw: tensor<4x1xf32>, %hw: tensor<4x1xf32>) -> (tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x1xf32>) {
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh)
      : tensor<4x3xf32>, tensor<4x4xf32>, tensor<3x16xf32>, tensor<4x16xf32>
  %wiw = arith.constant dense<0.5> : tensor<3x4xf32>
  %whw = arith.constant dense<0.5> : tensor<1x4xf32>
  %bw = arith.constant dense<0.5> : tensor<4xf32>
  %cw1, %hw1 = rnn.lstm_cell(%x, %cw, %hw) kernels(%wiw, %whw) input_bias(%bw : tensor<4xf32>)
      : tensor<4x3xf32>, tensor<4x1xf32>, tensor<3x4xf32>, tensor<1x4xf32>
  %wis = arith.constant dense<0.5> : tensor<3x2xf32>
  %whs = arith.constant dense<0.5> : tensor<2x2xf32>
  %hs1 = rnn.simple_cell(%x, %hs) kernels(%wis, %whs)
      : tensor<4x3xf32>, tensor<4x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>
  %wig = arith.constant dense<0.5> : tensor<3x12xf32>
  %whg = arith.constant dense<0.5> : tensor<4x12xf32>
  %hg1 = rnn.gru_cell(%x, %hg) kernels(%wig, %whg)
      : tensor<4x3xf32>, tensor<4x4xf32>, tensor<3x12xf32>, tensor<4x12xf32>
  return %h1, %hs1, %hg1, %hw1 : tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x1xf32>
}

// -----

/// Not fused either: an LSTM whose input is projected already
/// (projected_input): only its recurrent product is in the step.

// CHECK-LABEL: func.func @projected_input(
// CHECK-SAME: %[[GX:[^:]+]]: tensor<2x8xf32>, %{{[^:]+}}: tensor<2x2xf32>, %[[H:[^:]+]]: tensor<2x2xf32>
// CHECK: linalg.matmul ins(%[[H]], %{{.*}} : tensor<2x2xf32>, tensor<2x8xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: tensor.extract_slice %[[GX]][0, 0] [2, 2] [1, 1]
func.func @projected_input(%gx: tensor<2x8xf32>, %c: tensor<2x2xf32>, %h: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %wi = arith.constant dense<0.5> : tensor<3x8xf32>
  %wh = arith.constant dense<0.25> : tensor<2x8xf32>
  %c1, %h1 = rnn.lstm_cell(%gx, %c, %h) kernels(%wi, %wh) projected_input : tensor<2x8xf32>, tensor<2x2xf32>, tensor<3x8xf32>, tensor<2x8xf32>
  return %h1 : tensor<2x2xf32>
}
