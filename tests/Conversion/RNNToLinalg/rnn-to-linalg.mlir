// RUN: rnn-opt %s --convert-rnn-to-linalg --split-input-file | FileCheck %s --enable-var-scope

/// LSTM, one batch dim, hidden bias only (Flax LSTMCell), default sigmoid
/// gates and tanh: gate blocks [i, f, g, o] of 64 columns each; the bias
/// blocks are broadcast along the rows; y = gi + (gh + bh).

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL2:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @lstm_hidden_bias(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x40xf32>, %[[C:[^:]+]]: tensor<8x64xf32>, %[[H:[^:]+]]: tensor<8x64xf32>, %[[WI:[^:]+]]: tensor<40x256xf32>, %[[WH:[^:]+]]: tensor<64x256xf32>, %[[BH:[^:]+]]: tensor<256xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ACC0:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<8x256xf32>)
// CHECK-DAG: %[[GI:.+]] = linalg.matmul ins(%[[X]], %[[WI]] : tensor<8x40xf32>, tensor<40x256xf32>) outs(%[[ACC0]] : tensor<8x256xf32>)
// CHECK-DAG: %[[GH:.+]] = linalg.matmul ins(%[[H]], %[[WH]] : tensor<8x64xf32>, tensor<64x256xf32>) outs(%{{.+}} : tensor<8x256xf32>)
// CHECK-DAG: %[[GI_I:.+]] = tensor.extract_slice %[[GI]][0, 0] [8, 64] [1, 1] : tensor<8x256xf32> to tensor<8x64xf32>
// CHECK-DAG: %[[GI_F:.+]] = tensor.extract_slice %[[GI]][0, 64] [8, 64] [1, 1]
// CHECK-DAG: %[[GI_G:.+]] = tensor.extract_slice %[[GI]][0, 128] [8, 64] [1, 1]
// CHECK-DAG: %[[GI_O:.+]] = tensor.extract_slice %[[GI]][0, 192] [8, 64] [1, 1]
// CHECK-DAG: %[[GH_I:.+]] = tensor.extract_slice %[[GH]][0, 0] [8, 64] [1, 1]
// CHECK-DAG: %[[GH_F:.+]] = tensor.extract_slice %[[GH]][0, 64] [8, 64] [1, 1]
// CHECK-DAG: %[[GH_G:.+]] = tensor.extract_slice %[[GH]][0, 128] [8, 64] [1, 1]
// CHECK-DAG: %[[GH_O:.+]] = tensor.extract_slice %[[GH]][0, 192] [8, 64] [1, 1]
// CHECK-DAG: %[[BH_I:.+]] = tensor.extract_slice %[[BH]][0] [64] [1] : tensor<256xf32> to tensor<64xf32>
// CHECK-DAG: %[[BH_F:.+]] = tensor.extract_slice %[[BH]][64] [64] [1]
// CHECK-DAG: %[[BH_G:.+]] = tensor.extract_slice %[[BH]][128] [64] [1]
// CHECK-DAG: %[[BH_O:.+]] = tensor.extract_slice %[[BH]][192] [64] [1]
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$COL2]], #[[$COL2]], #[[$COL2]], #[[$COL2]], #[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[GI_I]], %[[GI_F]], %[[GI_G]], %[[GI_O]], %[[GH_I]], %[[GH_F]], %[[GH_G]], %[[GH_O]], %[[BH_I]], %[[BH_F]], %[[BH_G]], %[[BH_O]], %[[C]], %[[H]] :
// CHECK-SAME: outs(%[[C]], %[[H]] : tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){15}%[^:]+: f32}}):
// CHECK-DAG: math.exp
// CHECK-DAG: math.tanh
// CHECK: linalg.yield %{{[^,]+}}, %{{[^ ]+}} : f32, f32
// CHECK-NEXT: } -> (tensor<8x64xf32>, tensor<8x64xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1 : tensor<8x64xf32>, tensor<8x64xf32>
func.func @lstm_hidden_bias(%x: tensor<8x40xf32>, %c: tensor<8x64xf32>, %h: tensor<8x64xf32>,
    %wi: tensor<40x256xf32>, %wh: tensor<64x256xf32>, %bh: tensor<256xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) hidden_bias(%bh : tensor<256xf32>)
      : tensor<8x40xf32>, tensor<8x64xf32>, tensor<40x256xf32>, tensor<64x256xf32>
  return %c1, %h1 : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

/// Unbatched LSTM: the input and both carries get a unit row, restored with
/// collapse_shape. Both biases; relu gates and elu activation.

// CHECK-LABEL: func.func @lstm_unbatched_both_biases(
// CHECK-SAME: %[[X:[^:]+]]: tensor<3xf32>, %[[C:[^:]+]]: tensor<4xf32>, %[[H:[^:]+]]: tensor<4xf32>, %[[WI:[^:]+]]: tensor<3x16xf32>, %[[WH:[^:]+]]: tensor<4x16xf32>, %[[BI:[^:]+]]: tensor<16xf32>, %[[BH:[^:]+]]: tensor<16xf32>)
// CHECK-DAG: %[[X2:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK-DAG: %[[C2:.+]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK-DAG: %[[H2:.+]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK-DAG: %[[GI:.+]] = linalg.matmul ins(%[[X2]], %[[WI]] : tensor<1x3xf32>, tensor<3x16xf32>) outs(%{{.+}} : tensor<1x16xf32>)
// CHECK-DAG: %[[GH:.+]] = linalg.matmul ins(%[[H2]], %[[WH]] : tensor<1x4xf32>, tensor<4x16xf32>) outs(%{{.+}} : tensor<1x16xf32>)
// CHECK-DAG: tensor.extract_slice %[[GI]][0, 12] [1, 4] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GH]][0, 12] [1, 4] [1, 1]
// CHECK-DAG: %[[BI_I:.+]] = tensor.extract_slice %[[BI]][0] [4] [1]
// CHECK-DAG: tensor.extract_slice %[[BI]][12] [4] [1]
// CHECK-DAG: %[[BH_I:.+]] = tensor.extract_slice %[[BH]][0] [4] [1]
// CHECK-DAG: tensor.extract_slice %[[BH]][12] [4] [1]
// CHECK: %[[R:.+]]:2 = linalg.generic
// CHECK-SAME: ins({{(%[^,]+, ){8}%}}[[BI_I]], {{(%[^,]+, ){3}%}}[[BH_I]], {{(%[^,]+, ){3}%}}[[C2]], %[[H2]] :
// CHECK-SAME: outs(%[[C2]], %[[H2]] :
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){19}%[^:]+: f32}}):
// CHECK-DAG: arith.maximumf
// CHECK-DAG: math.expm1
// CHECK: linalg.yield %{{[^,]+}}, %{{[^ ]+}} : f32, f32
// CHECK-NEXT: } -> (tensor<1x4xf32>, tensor<1x4xf32>)
// CHECK-DAG: %[[RC:.+]] = tensor.collapse_shape %[[R]]#0 {{\[\[}}0, 1]] : tensor<1x4xf32> into tensor<4xf32>
// CHECK-DAG: %[[RH:.+]] = tensor.collapse_shape %[[R]]#1 {{\[\[}}0, 1]] : tensor<1x4xf32> into tensor<4xf32>
// CHECK: return %[[RC]], %[[RH]] : tensor<4xf32>, tensor<4xf32>
func.func @lstm_unbatched_both_biases(%x: tensor<3xf32>, %c: tensor<4xf32>, %h: tensor<4xf32>,
    %wi: tensor<3x16xf32>, %wh: tensor<4x16xf32>, %bi: tensor<16xf32>, %bh: tensor<16xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) input_bias(%bi : tensor<16xf32>) hidden_bias(%bh : tensor<16xf32>) gate_fn<relu> activation_fn<elu>
      : tensor<3xf32>, tensor<4xf32>, tensor<3x16xf32>, tensor<4x16xf32>
  return %c1, %h1 : tensor<4xf32>, tensor<4xf32>
}

// -----

/// GRU (linen: both biases) with two batch dims folded into 6 rows; gate
/// blocks [r, z, n]; n = tanh(xi_n + r * xh_n); new_h = (1 - z) * n + z * h.

// CHECK-LABEL: func.func @gru_linen_two_batch_dims(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x5xf32>, %[[H:[^:]+]]: tensor<2x3x6xf32>, %[[WI:[^:]+]]: tensor<5x18xf32>, %[[WH:[^:]+]]: tensor<6x18xf32>, %[[BI:[^:]+]]: tensor<18xf32>, %[[BH:[^:]+]]: tensor<18xf32>)
// CHECK-DAG: %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
// CHECK-DAG: %[[H2:.+]] = tensor.collapse_shape %[[H]] {{\[\[}}0, 1], [2]] : tensor<2x3x6xf32> into tensor<6x6xf32>
// CHECK-DAG: %[[GI:.+]] = linalg.matmul ins(%[[X2]], %[[WI]] : tensor<6x5xf32>, tensor<5x18xf32>) outs(%{{.+}} : tensor<6x18xf32>)
// CHECK-DAG: %[[GH:.+]] = linalg.matmul ins(%[[H2]], %[[WH]] : tensor<6x6xf32>, tensor<6x18xf32>) outs(%{{.+}} : tensor<6x18xf32>)
// CHECK-DAG: tensor.extract_slice %[[GI]][0, 0] [6, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GI]][0, 6] [6, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GI]][0, 12] [6, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GH]][0, 0] [6, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GH]][0, 6] [6, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GH]][0, 12] [6, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[BI]][0] [6] [1]
// CHECK-DAG: tensor.extract_slice %[[BI]][6] [6] [1]
// CHECK-DAG: tensor.extract_slice %[[BI]][12] [6] [1]
// CHECK-DAG: tensor.extract_slice %[[BH]][0] [6] [1]
// CHECK-DAG: tensor.extract_slice %[[BH]][6] [6] [1]
// CHECK-DAG: tensor.extract_slice %[[BH]][12] [6] [1]
// CHECK: %[[R:.+]] = linalg.generic
// CHECK-SAME: ins({{(%[^,]+, ){12}%}}[[H2]] :
// CHECK-SAME: outs(%[[H2]] : tensor<6x6xf32>)
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){13}%[^:]+: f32}}):
// CHECK-DAG: math.exp
// CHECK-DAG: math.tanh
// CHECK: linalg.yield %{{[^ ]+}} : f32
// CHECK-NEXT: } -> tensor<6x6xf32>
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 6] : tensor<6x6xf32> into tensor<2x3x6xf32>
// CHECK: return %[[OUT]] : tensor<2x3x6xf32>
func.func @gru_linen_two_batch_dims(%x: tensor<2x3x5xf32>, %h: tensor<2x3x6xf32>,
    %wi: tensor<5x18xf32>, %wh: tensor<6x18xf32>, %bi: tensor<18xf32>, %bh: tensor<18xf32>) -> tensor<2x3x6xf32> {
  %h1 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<18xf32>) hidden_bias(%bh : tensor<18xf32>)
      : tensor<2x3x5xf32>, tensor<2x3x6xf32>, tensor<5x18xf32>, tensor<6x18xf32>
  return %h1 : tensor<2x3x6xf32>
}

// -----

/// GRU (nnx: no hidden bias) with hard_sigmoid = relu6(x + 3) / 6 gates and
/// hard_tanh = clip(x, -1, 1).

// CHECK-LABEL: func.func @gru_nnx_hard(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x5xf32>, %[[H:[^:]+]]: tensor<4x6xf32>, %{{[^:]+}}: tensor<5x18xf32>, %{{[^:]+}}: tensor<6x18xf32>, %[[BI:[^:]+]]: tensor<18xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: tensor.extract_slice %[[BI]][12] [6] [1]
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.generic
// CHECK-SAME: ins({{(%[^,]+, ){9}%}}[[H]] :
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){10}%[^:]+: f32}}):
// CHECK-NOT: math.
// CHECK: arith.minimumf
// CHECK-NOT: math.
// CHECK: linalg.yield %{{[^ ]+}} : f32
// CHECK-NEXT: } -> tensor<4x6xf32>
func.func @gru_nnx_hard(%x: tensor<4x5xf32>, %h: tensor<4x6xf32>,
    %wi: tensor<5x18xf32>, %wh: tensor<6x18xf32>, %bi: tensor<18xf32>) -> tensor<4x6xf32> {
  %h1 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<18xf32>) gate_fn<hard_sigmoid> activation_fn<hard_tanh>
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x18xf32>, tensor<6x18xf32>
  return %h1 : tensor<4x6xf32>
}

// -----

/// MGU with the reset gate (gate blocks [f, n]): n = silu(xi_n + f * xh_n),
/// silu(x) = x * sigmoid(x); new_h = (1 - f) * n + f * h.

// CHECK-LABEL: func.func @mgu_reset_gate_silu(
// CHECK-SAME: %[[H:[^:]+]]: tensor<4x6xf32>, %[[WI:[^:]+]]: tensor<5x12xf32>, %[[WH:[^:]+]]: tensor<6x12xf32>
// CHECK-DAG: %[[GI:.+]] = linalg.matmul ins(%{{.+}}, %[[WI]] : tensor<4x5xf32>, tensor<5x12xf32>) outs(%{{.+}} : tensor<4x12xf32>)
// CHECK-DAG: %[[GH:.+]] = linalg.matmul ins(%[[H]], %[[WH]] : tensor<4x6xf32>, tensor<6x12xf32>) outs(%{{.+}} : tensor<4x12xf32>)
// CHECK-DAG: tensor.extract_slice %[[GI]][0, 0] [4, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GI]][0, 6] [4, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GH]][0, 0] [4, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GH]][0, 6] [4, 6] [1, 1]
// CHECK: linalg.generic
// CHECK-SAME: ins({{(%[^,]+, ){8}%}}[[H]] :
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){9}%[^:]+: f32}}):
// CHECK-NOT: math.tanh
// CHECK: math.exp
// CHECK-NOT: math.tanh
// CHECK: linalg.yield %{{[^ ]+}} : f32
// CHECK-NEXT: } -> tensor<4x6xf32>
func.func @mgu_reset_gate_silu(%x: tensor<4x5xf32>, %h: tensor<4x6xf32>,
    %wi: tensor<5x12xf32>, %wh: tensor<6x12xf32>, %bi: tensor<12xf32>, %bh: tensor<12xf32>) -> tensor<4x6xf32> {
  %h1 = rnn.mgu_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<12xf32>) hidden_bias(%bh : tensor<12xf32>) activation_fn<silu>
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x12xf32>, tensor<6x12xf32>
  return %h1 : tensor<4x6xf32>
}

// -----

/// MGU without the reset gate: n = tanh(xi_n + gh_n), no f * gh_n.

// CHECK-LABEL: func.func @mgu_no_reset_gate(
// CHECK-DAG: %[[GI:.+]] = linalg.matmul {{.+}} -> tensor<4x12xf32>
// CHECK-DAG: %[[GH:.+]] = linalg.matmul {{.+}} -> tensor<4x12xf32>
// CHECK-DAG: tensor.extract_slice %[[GI]][0, 0] [4, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GI]][0, 6] [4, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GH]][0, 0] [4, 6] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[GH]][0, 6] [4, 6] [1, 1]
// CHECK: linalg.generic
// CHECK-SAME: ins({{(%[^,]+, ){6}%[^ ]+}} :
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){7}%[^:]+: f32}}):
// CHECK-DAG: math.exp
// CHECK-DAG: math.tanh
// CHECK: linalg.yield %{{[^ ]+}} : f32
// CHECK-NEXT: } -> tensor<4x6xf32>
func.func @mgu_no_reset_gate(%x: tensor<4x5xf32>, %h: tensor<4x6xf32>,
    %wi: tensor<5x12xf32>, %wh: tensor<6x12xf32>, %bi: tensor<12xf32>) -> tensor<4x6xf32> {
  %h1 = rnn.mgu_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<12xf32>) {reset_gate = false}
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x12xf32>, tensor<6x12xf32>
  return %h1 : tensor<4x6xf32>
}

// -----

/// Simple cell, residual, identity activation: new_h = ((gi + bi) + gh) + h.
/// A single gate needs no slices of the products or the bias.

// CHECK-LABEL: func.func @simple_residual_identity(
// CHECK-SAME: %[[H:[^:]+]]: tensor<4x6xf32>, %{{[^:]+}}: tensor<6x6xf32>, %{{[^:]+}}: tensor<6x6xf32>, %[[BI:[^:]+]]: tensor<6xf32>)
// CHECK-DAG: %[[GI:.+]] = linalg.matmul {{.+}} -> tensor<4x6xf32>
// CHECK-DAG: %[[GH:.+]] = linalg.matmul {{.+}} -> tensor<4x6xf32>
// CHECK: %[[R:.+]] = linalg.generic {{.+}} ins(%[[GI]], %[[GH]], %[[BI]], %[[H]] : tensor<4x6xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<4x6xf32>) outs(%[[H]] : tensor<4x6xf32>)
// CHECK-NEXT: ^bb0(%[[AI:[^:]+]]: f32, %[[AHH:[^:]+]]: f32, %[[AB:[^:]+]]: f32, %[[AH:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NOT: math.
// CHECK: %[[XI:.+]] = arith.addf %[[AI]], %[[AB]] : f32
// CHECK: %[[S:.+]] = arith.addf %[[XI]], %[[AHH]] : f32
// CHECK: %[[RES:.+]] = arith.addf %[[S]], %[[AH]] : f32
// CHECK: linalg.yield %[[RES]] : f32
// CHECK: return %[[R]]
func.func @simple_residual_identity(%x: tensor<4x6xf32>, %h: tensor<4x6xf32>,
    %wi: tensor<6x6xf32>, %wh: tensor<6x6xf32>, %bi: tensor<6xf32>) -> tensor<4x6xf32> {
  %h1 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<6xf32>) activation_fn<identity> residual
      : tensor<4x6xf32>, tensor<4x6xf32>, tensor<6x6xf32>, tensor<6x6xf32>
  return %h1 : tensor<4x6xf32>
}

// -----

/// Simple cell without biases or residual: new_h = tanh(gi + gh).

// CHECK-LABEL: func.func @simple_no_bias_tanh(
// CHECK-SAME: %{{[^:]+}}: tensor<4x3xf32>, %[[H:[^:]+]]: tensor<4x6xf32>,
// CHECK-DAG: %[[GI:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x3xf32>, tensor<3x6xf32>)
// CHECK-DAG: %[[GH:.+]] = linalg.matmul ins(%[[H]], %{{.+}} : tensor<4x6xf32>, tensor<6x6xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[GI]], %[[GH]], %[[H]] : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) outs(%[[H]] : tensor<4x6xf32>)
// CHECK-NEXT: ^bb0(%[[AI:[^:]+]]: f32, %[[AHH:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32):
// CHECK: %[[S:.+]] = arith.addf %[[AI]], %[[AHH]] : f32
// CHECK: %[[T:.+]] = math.tanh %[[S]] : f32
// CHECK: linalg.yield %[[T]] : f32
func.func @simple_no_bias_tanh(%x: tensor<4x3xf32>, %h: tensor<4x6xf32>,
    %wi: tensor<3x6xf32>, %wh: tensor<6x6xf32>) -> tensor<4x6xf32> {
  %h1 = rnn.simple_cell(%x, %h) kernels(%wi, %wh)
      : tensor<4x3xf32>, tensor<4x6xf32>, tensor<3x6xf32>, tensor<6x6xf32>
  return %h1 : tensor<4x6xf32>
}

// -----

/// 1-D ConvLSTM with an even kernel (k = 2: SAME pads 0 before, 1 after),
/// both biases; gate blocks [i, g, f, o] of 5 channels;
/// new_c = sigmoid(y_f + 1) * c + sigmoid(y_i) * tanh(y_g).

// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$CH3:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @conv_lstm_1d_even_kernel(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x7x3xf32>, %[[C:[^:]+]]: tensor<2x7x5xf32>, %[[H:[^:]+]]: tensor<2x7x5xf32>, %[[WI:[^:]+]]: tensor<2x3x20xf32>, %[[WH:[^:]+]]: tensor<2x5x20xf32>, %[[BI:[^:]+]]: tensor<20xf32>, %[[BH:[^:]+]]: tensor<20xf32>)
// CHECK: %[[PZ:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[XP:.+]] = tensor.pad %[[X]] low[0, 0, 0] high[0, 1, 0]
// CHECK: tensor.yield %[[PZ]] : f32
// CHECK: } : tensor<2x7x3xf32> to tensor<2x8x3xf32>
// CHECK: %[[ACC0:.+]] = linalg.fill {{.+}} -> tensor<2x7x20xf32>
// CHECK: %[[CI:.+]] = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(%[[XP]], %[[WI]] : tensor<2x8x3xf32>, tensor<2x3x20xf32>) outs(%[[ACC0]] : tensor<2x7x20xf32>)
// CHECK: %[[HP:.+]] = tensor.pad %[[H]] low[0, 0, 0] high[0, 1, 0]
// CHECK: } : tensor<2x7x5xf32> to tensor<2x8x5xf32>
// CHECK: %[[CH:.+]] = linalg.conv_1d_nwc_wcf {{.+}} ins(%[[HP]], %[[WH]] : tensor<2x8x5xf32>, tensor<2x5x20xf32>) outs(%{{.+}} : tensor<2x7x20xf32>)
// CHECK-DAG: tensor.extract_slice %[[CI]][0, 0, 0] [2, 7, 5] [1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CI]][0, 0, 5] [2, 7, 5] [1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CI]][0, 0, 10] [2, 7, 5] [1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CI]][0, 0, 15] [2, 7, 5] [1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CH]][0, 0, 0] [2, 7, 5] [1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CH]][0, 0, 15] [2, 7, 5] [1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[BI]][0] [5] [1]
// CHECK-DAG: tensor.extract_slice %[[BI]][15] [5] [1]
// CHECK-DAG: tensor.extract_slice %[[BH]][0] [5] [1]
// CHECK-DAG: tensor.extract_slice %[[BH]][15] [5] [1]
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$ID3]], #[[$ID3]], #[[$ID3]], #[[$ID3]], #[[$ID3]], #[[$ID3]], #[[$CH3]], #[[$CH3]], #[[$CH3]], #[[$CH3]], #[[$CH3]], #[[$CH3]], #[[$CH3]], #[[$CH3]], #[[$ID3]], #[[$ID3]], #[[$ID3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins({{(%[^,]+, ){16}%}}[[C]], %[[H]] :
// CHECK-SAME: outs(%[[C]], %[[H]] :
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){19}%[^:]+: f32}}):
// CHECK-DAG: math.exp
// CHECK-DAG: math.tanh
// CHECK: linalg.yield %{{[^,]+}}, %{{[^ ]+}} : f32, f32
// CHECK-NEXT: } -> (tensor<2x7x5xf32>, tensor<2x7x5xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @conv_lstm_1d_even_kernel(%x: tensor<2x7x3xf32>, %c: tensor<2x7x5xf32>, %h: tensor<2x7x5xf32>,
    %wi: tensor<2x3x20xf32>, %wh: tensor<2x5x20xf32>, %bi: tensor<20xf32>, %bh: tensor<20xf32>) -> (tensor<2x7x5xf32>, tensor<2x7x5xf32>) {
  %c1, %h1 = rnn.conv_lstm_cell(%x, %c, %h) kernels(%wi, %wh) input_bias(%bi : tensor<20xf32>) hidden_bias(%bh : tensor<20xf32>)
      : tensor<2x7x3xf32>, tensor<2x7x5xf32>, tensor<2x3x20xf32>, tensor<2x5x20xf32>
  return %c1, %h1 : tensor<2x7x5xf32>, tensor<2x7x5xf32>
}

// -----

/// 2-D ConvLSTM, two batch dims folded into one, a 3x2 kernel (pads (1, 1)
/// and (0, 1)), no biases.

// CHECK-LABEL: func.func @conv_lstm_2d_two_batch_dims(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x8x8x3xf32>, %[[C:[^:]+]]: tensor<2x3x8x8x6xf32>, %[[H:[^:]+]]: tensor<2x3x8x8x6xf32>, %[[WI:[^:]+]]: tensor<3x2x3x24xf32>, %[[WH:[^:]+]]: tensor<3x2x6x24xf32>)
// CHECK-DAG: %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<2x3x8x8x3xf32> into tensor<6x8x8x3xf32>
// CHECK-DAG: %[[C2:.+]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<2x3x8x8x6xf32> into tensor<6x8x8x6xf32>
// CHECK-DAG: %[[H2:.+]] = tensor.collapse_shape %[[H]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<2x3x8x8x6xf32> into tensor<6x8x8x6xf32>
// CHECK: %[[XP:.+]] = tensor.pad %[[X2]] low[0, 1, 0, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<6x8x8x3xf32> to tensor<6x10x9x3xf32>
// CHECK: %[[CI:.+]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[XP]], %[[WI]] : tensor<6x10x9x3xf32>, tensor<3x2x3x24xf32>) outs(%{{.+}} : tensor<6x8x8x24xf32>)
// CHECK: %[[HP:.+]] = tensor.pad %[[H2]] low[0, 1, 0, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<6x8x8x6xf32> to tensor<6x10x9x6xf32>
// CHECK: %[[CH:.+]] = linalg.conv_2d_nhwc_hwcf {{.+}} ins(%[[HP]], %[[WH]] : tensor<6x10x9x6xf32>, tensor<3x2x6x24xf32>) outs(%{{.+}} : tensor<6x8x8x24xf32>)
// CHECK-DAG: %[[CI_I:.+]] = tensor.extract_slice %[[CI]][0, 0, 0, 0] [6, 8, 8, 6] [1, 1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CI]][0, 0, 0, 6] [6, 8, 8, 6] [1, 1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CI]][0, 0, 0, 12] [6, 8, 8, 6] [1, 1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CI]][0, 0, 0, 18] [6, 8, 8, 6] [1, 1, 1, 1]
// CHECK-DAG: %[[CH_I:.+]] = tensor.extract_slice %[[CH]][0, 0, 0, 0] [6, 8, 8, 6] [1, 1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[CH]][0, 0, 0, 18] [6, 8, 8, 6] [1, 1, 1, 1]
// CHECK: %[[R:.+]]:2 = linalg.generic
// CHECK-SAME: ins(%[[CI_I]], {{(%[^,]+, ){3}%}}[[CH_I]], {{(%[^,]+, ){3}%}}[[C2]], %[[H2]] :
// CHECK-NEXT: ^bb0(%[[AI_I:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[AH_I:[^:]+]]: f32,
// CHECK: arith.addf %[[AI_I]], %[[AH_I]] : f32
// CHECK: linalg.yield
// CHECK-NEXT: } -> (tensor<6x8x8x6xf32>, tensor<6x8x8x6xf32>)
// CHECK-DAG: %[[RC:.+]] = tensor.expand_shape %[[R]]#0 {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 8, 8, 6] : tensor<6x8x8x6xf32> into tensor<2x3x8x8x6xf32>
// CHECK-DAG: %[[RH:.+]] = tensor.expand_shape %[[R]]#1 {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 8, 8, 6]
// CHECK: return %[[RC]], %[[RH]]
func.func @conv_lstm_2d_two_batch_dims(%x: tensor<2x3x8x8x3xf32>, %c: tensor<2x3x8x8x6xf32>, %h: tensor<2x3x8x8x6xf32>,
    %wi: tensor<3x2x3x24xf32>, %wh: tensor<3x2x6x24xf32>) -> (tensor<2x3x8x8x6xf32>, tensor<2x3x8x8x6xf32>) {
  %c1, %h1 = rnn.conv_lstm_cell(%x, %c, %h) kernels(%wi, %wh)
      : tensor<2x3x8x8x3xf32>, tensor<2x3x8x8x6xf32>, tensor<3x2x3x24xf32>, tensor<3x2x6x24xf32>
  return %c1, %h1 : tensor<2x3x8x8x6xf32>, tensor<2x3x8x8x6xf32>
}

// -----

/// 3-D ConvLSTM without batch dims: a unit batch dim is inserted.

// CHECK-LABEL: func.func @conv_lstm_3d_unbatched(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x4x4x2xf32>
// CHECK: %[[X2:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [1, 4, 4, 4, 2] : tensor<4x4x4x2xf32> into tensor<1x4x4x4x2xf32>
// CHECK: %[[XP:.+]] = tensor.pad %[[X2]] low[0, 1, 1, 1, 0] high[0, 1, 1, 1, 0]
// CHECK: linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%[[XP]], %{{.+}} : tensor<1x6x6x6x2xf32>, tensor<3x3x3x2x12xf32>) outs(%{{.+}} : tensor<1x4x4x4x12xf32>)
// CHECK: linalg.conv_3d_ndhwc_dhwcf
// CHECK: %[[R:.+]]:2 = linalg.generic
// CHECK-DAG: tensor.collapse_shape %[[R]]#0 {{\[\[}}0, 1], [2], [3], [4]] : tensor<1x4x4x4x3xf32> into tensor<4x4x4x3xf32>
// CHECK-DAG: %[[RH:.+]] = tensor.collapse_shape %[[R]]#1
// CHECK: return %[[RH]] : tensor<4x4x4x3xf32>
func.func @conv_lstm_3d_unbatched(%x: tensor<4x4x4x2xf32>, %c: tensor<4x4x4x3xf32>, %h: tensor<4x4x4x3xf32>,
    %wi: tensor<3x3x3x2x12xf32>, %wh: tensor<3x3x3x3x12xf32>) -> tensor<4x4x4x3xf32> {
  %c1, %h1 = rnn.conv_lstm_cell(%x, %c, %h) kernels(%wi, %wh)
      : tensor<4x4x4x2xf32>, tensor<4x4x4x3xf32>, tensor<3x3x3x2x12xf32>, tensor<3x3x3x3x12xf32>
  return %h1 : tensor<4x4x4x3xf32>
}

// -----

/// Cells inside a scan body are lowered; the scan itself is left alone.

// CHECK-LABEL: func.func @cells_in_scan_body(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x20x16xf32>, %[[WI:[^:]+]]: tensor<16x96xf32>, %[[WH:[^:]+]]: tensor<32x96xf32>)
// CHECK: %[[Y:.+]] = rnn.scan %[[X]] {num_batch_dims = 1 : i64} : tensor<8x20x16xf32> -> tensor<8x20x32xf32> {
// CHECK-NEXT: ^bb0(%[[H:[^:]+]]: tensor<8x32xf32>, %[[XT:[^:]+]]: tensor<8x16xf32>):
// CHECK-NOT: rnn.gru_cell
// CHECK-DAG: linalg.matmul ins(%[[XT]], %[[WI]] : tensor<8x16xf32>, tensor<16x96xf32>)
// CHECK-DAG: linalg.matmul ins(%[[H]], %[[WH]] : tensor<8x32xf32>, tensor<32x96xf32>)
// CHECK: %[[NEW:.+]] = linalg.generic
// CHECK-NOT: rnn.gru_cell
// CHECK: rnn.yield carry(%[[NEW]] : tensor<8x32xf32>) output(%[[NEW]] : tensor<8x32xf32>)
// CHECK: return %[[Y]]
func.func @cells_in_scan_body(%x: tensor<8x20x16xf32>, %wi: tensor<16x96xf32>, %wh: tensor<32x96xf32>) -> tensor<8x20x32xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x20x16xf32> -> tensor<8x20x32xf32> {
  ^bb0(%h: tensor<8x32xf32>, %xt: tensor<8x16xf32>):
    %h1 = rnn.gru_cell(%xt, %h) kernels(%wi, %wh) : tensor<8x16xf32>, tensor<8x32xf32>, tensor<16x96xf32>, tensor<32x96xf32>
    rnn.yield carry(%h1 : tensor<8x32xf32>) output(%h1 : tensor<8x32xf32>)
  }
  return %y : tensor<8x20x32xf32>
}

// -----

/// Merges: concat is two inserts into one empty tensor (lhs first on the last
/// axis); add, mul and mean ((lhs + rhs) * 0.5) are element-wise generics.

// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @merges(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x6x3xf32>, %[[B:[^:]+]]: tensor<4x6x3xf32>, %[[D:[^:]+]]: tensor<4x6x5xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x6x8xf32>
// CHECK: %[[CAT0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0] [4, 6, 3] [1, 1, 1] : tensor<4x6x3xf32> into tensor<4x6x8xf32>
// CHECK: %[[CAT:.+]] = tensor.insert_slice %[[D]] into %[[CAT0]][0, 0, 3] [4, 6, 5] [1, 1, 1] : tensor<4x6x5xf32> into tensor<4x6x8xf32>
// CHECK: %[[ADD:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x6x3xf32>, tensor<4x6x3xf32>) outs(%{{.+}} : tensor<4x6x3xf32>)
// CHECK-NEXT: ^bb0(%[[L:[^:]+]]: f32, %[[R:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: %[[MUL:.+]] = linalg.generic {{.+}} ins(%[[A]], %[[B]] :
// CHECK-NEXT: ^bb0(%[[L:[^:]+]]: f32, %[[R:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[PROD:.+]] = arith.mulf %[[L]], %[[R]] : f32
// CHECK-NEXT: linalg.yield %[[PROD]] : f32
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} ins(%[[A]], %[[B]] :
// CHECK-NEXT: ^bb0(%[[L:[^:]+]]: f32, %[[R:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-DAG: %[[SUM:.+]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[AVG:.+]] = arith.mulf %[[SUM]], %[[HALF]] : f32
// CHECK-NEXT: linalg.yield %[[AVG]] : f32
// CHECK: return %[[CAT]], %[[ADD]], %[[MUL]], %[[MEAN]]
func.func @merges(%a: tensor<4x6x3xf32>, %b: tensor<4x6x3xf32>, %d: tensor<4x6x5xf32>) -> (tensor<4x6x8xf32>, tensor<4x6x3xf32>, tensor<4x6x3xf32>, tensor<4x6x3xf32>) {
  %concat = rnn.merge <concat> %a, %d : tensor<4x6x3xf32>, tensor<4x6x5xf32> -> tensor<4x6x8xf32>
  %add = rnn.merge <add> %a, %b : tensor<4x6x3xf32>, tensor<4x6x3xf32> -> tensor<4x6x3xf32>
  %mul = rnn.merge <mul> %a, %b : tensor<4x6x3xf32>, tensor<4x6x3xf32> -> tensor<4x6x3xf32>
  %mean = rnn.merge <mean> %a, %b : tensor<4x6x3xf32>, tensor<4x6x3xf32> -> tensor<4x6x3xf32>
  return %concat, %add, %mul, %mean : tensor<4x6x8xf32>, tensor<4x6x3xf32>, tensor<4x6x3xf32>, tensor<4x6x3xf32>
}

// -----

/// A cell consuming another cell's result (the first is replaced before the
/// second is lowered), and the other sequence ops left alone.

// CHECK-LABEL: func.func @chained_cells_and_untouched_ops(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x4x3xf32>, %[[LEN:[^:]+]]: tensor<2xi32>
// CHECK: %[[FLIP:.+]] = rnn.flip_sequences %[[X]] lengths(%[[LEN]] : tensor<2xi32>)
// CHECK-NEXT: %[[XT:.+]] = tensor.extract_slice %[[FLIP]]
// CHECK: %[[H1:.+]] = linalg.generic
// CHECK: linalg.matmul ins(%[[H1]], %{{.+}} : tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK: %[[H2:.+]] = linalg.generic
// CHECK-NOT: rnn.simple_cell
// CHECK: return %[[H2]]
func.func @chained_cells_and_untouched_ops(%x: tensor<2x4x3xf32>, %len: tensor<2xi32>, %h: tensor<2x2xf32>,
    %wi: tensor<3x2xf32>, %wh: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %f = rnn.flip_sequences %x lengths(%len : tensor<2xi32>) {num_batch_dims = 1 : i64} : tensor<2x4x3xf32>
  %xt = tensor.extract_slice %f[0, 0, 0] [2, 1, 3] [1, 1, 1] : tensor<2x4x3xf32> to tensor<2x3xf32>
  %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>
  %h2 = rnn.simple_cell(%xt, %h1) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>
  return %h2 : tensor<2x2xf32>
}

// -----

/// bf16 params with f32 activations (param_dtype: bfloat16): the matmuls
/// read bf16 kernels into f32 accumulators (linalg.matmul widens its
/// operands to the output's type), and each bias block is widened where
/// the gate maths reads it.

// CHECK-LABEL: func.func @gru_bf16_params(
// CHECK-DAG: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x5xf32>, tensor<5x48xbf16>) outs(%{{.*}} : tensor<4x48xf32>)
// CHECK-DAG: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x48xbf16>) outs(%{{.*}} : tensor<4x48xf32>)
// CHECK-DAG: tensor.extract_slice %{{.*}}[0] [16] [1] : tensor<48xbf16> to tensor<16xbf16>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[GI:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[BI:[^:]+]]: bf16,
// CHECK: %[[WIDE:.+]] = arith.extf %[[BI]] : bf16 to f32
// CHECK: arith.addf %[[GI]], %[[WIDE]] : f32
func.func @gru_bf16_params(%x: tensor<4x5xf32>, %h: tensor<4x16xf32>, %wi: tensor<5x48xbf16>, %wh: tensor<16x48xbf16>, %bi: tensor<48xbf16>) -> tensor<4x16xf32> {
  %h1 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<48xbf16>) : tensor<4x5xf32>, tensor<4x16xf32>, tensor<5x48xbf16>, tensor<16x48xbf16>
  return %h1 : tensor<4x16xf32>
}

// -----

/// int8 kernels (quantize: {weights: int8}): the matmuls read the i8
/// storage into f32 accumulators (linalg.matmul casts with sitofp), the
/// scales become f32 constants, and the gate generic multiplies each
/// column's sum by its scale before adding the bias.

// CHECK-LABEL: func.func @gru_int8_kernels(
// CHECK-DAG: %[[SH:.*]] = arith.constant dense<[1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 3.000000e+00]> : tensor<6xf32>
// CHECK-DAG: %[[SI:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00, 2.000000e+00, 1.250000e-01, 4.000000e+00]> : tensor<6xf32>
// CHECK-DAG: %[[QI:.*]] = arith.constant dense<{{.*}}> : tensor<5x6xi8>
// CHECK-DAG: linalg.matmul ins(%{{.*}}, %[[QI]] : tensor<4x5xf32>, tensor<5x6xi8>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK-DAG: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x2xf32>, tensor<2x6xi8>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK-DAG: tensor.extract_slice %[[SI]][0] [2] [1] : tensor<6xf32> to tensor<2xf32>
// CHECK-DAG: tensor.extract_slice %[[SH]][0] [2] [1] : tensor<6xf32> to tensor<2xf32>
// CHECK-NOT: quant.
// CHECK: linalg.generic
// CHECK: ^bb0(%[[GI:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[BI:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[S:[^:]+]]: f32,
// CHECK: %[[SCALED:.+]] = arith.mulf %[[GI]], %[[S]] : f32
// CHECK: arith.addf %[[SCALED]], %[[BI]] : f32
func.func @gru_int8_kernels(%x: tensor<4x5xf32>, %h: tensor<4x2xf32>, %bi: tensor<6xf32>) -> tensor<4x2xf32> {
  %qi = arith.constant dense<[[1, -2, 3, 4, 5, 127], [0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], [-127, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]]> : tensor<5x6xi8>
  %wi = quant.scast %qi : tensor<5x6xi8> to tensor<5x6x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0,0.125,4.0}>>
  %qh = arith.constant dense<1> : tensor<2x6xi8>
  %wh = quant.scast %qh : tensor<2x6xi8> to tensor<2x6x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,1.0,3.0}>>
  %h1 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<6xf32>) : tensor<4x5xf32>, tensor<4x2xf32>, tensor<5x6x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0,0.125,4.0}>>, tensor<2x6x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,1.0,3.0}>>
  return %h1 : tensor<4x2xf32>
}

// -----

/// Dynamic int8 activations (quantize: {weights: int8, activations:
/// dynamic}): each product stops at its i32 sums (the matmul of the rows
/// quantized to i8) and its rows' scales; no generic converts the sums into
/// an f32 tensor. The gate generic reads the i32 gate blocks and the rows'
/// scales and computes float(sum) * row scale * column scale + bias, the
/// order of the f32 maths the reference has.

// CHECK-LABEL: func.func @gru_dynamic_int8(
// CHECK: %[[XSCALES:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[XSUMS:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x5xi8>, tensor<5x6xi8>) outs(%{{.*}} : tensor<4x6xi32>)
// CHECK: %[[HSCALES:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[HSUMS:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x2xi8>, tensor<2x6xi8>) outs(%{{.*}} : tensor<4x6xi32>)
// CHECK-NOT: tensor<4x6xf32>
// CHECK: %[[GI:.*]] = tensor.extract_slice %[[XSUMS]][0, 0] [4, 2] [1, 1] : tensor<4x6xi32> to tensor<4x2xi32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[GI]], {{.*}}, %[[XSCALES]]#0, %[[HSCALES]]#0, %{{.*}} : tensor<4x2xi32>, {{.*}}, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>)
// CHECK-NEXT: ^bb0(%[[SUM:[^:]+]]: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %[[BI:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[S:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[R:[^:]+]]: f32,
// CHECK: %[[F:.+]] = arith.sitofp %[[SUM]] : i32 to f32
// CHECK: %[[D:.+]] = arith.mulf %[[F]], %[[R]] : f32
// CHECK: %[[SCALED:.+]] = arith.mulf %[[D]], %[[S]] : f32
// CHECK: arith.addf %[[SCALED]], %[[BI]] : f32
func.func @gru_dynamic_int8(%x: tensor<4x5xf32>, %h: tensor<4x2xf32>, %bi: tensor<6xf32>) -> tensor<4x2xf32> {
  %qi = arith.constant dense<[[1, -2, 3, 4, 5, 127], [0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], [-127, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]]> : tensor<5x6xi8>
  %wi = quant.scast %qi : tensor<5x6xi8> to tensor<5x6x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0,0.125,4.0}>>
  %qh = arith.constant dense<1> : tensor<2x6xi8>
  %wh = quant.scast %qh : tensor<2x6xi8> to tensor<2x6x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,1.0,3.0}>>
  %h1 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<6xf32>) {dynamic_int8} : tensor<4x5xf32>, tensor<4x2xf32>, tensor<5x6x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0,0.125,4.0}>>, tensor<2x6x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,1.0,3.0}>>
  return %h1 : tensor<4x2xf32>
}

// -----

/// bf16 compute (dtype: bfloat16, docs/Semantics.md#bfloat16-compute): both
/// matmul operands rounded to bf16 first (promote_dtype), then in the gate
/// generic each product and bias sum rounded (a truncf to bf16 and an extf
/// back); with bf16 carries every op of the tail rounds too. The matmuls
/// multiply the rows narrowed to bf16 into f32 (the product a bf16 dot
/// computes; --rnn-widen-bf16-rows makes it f32 arithmetic elsewhere).

// CHECK-LABEL: func.func @gru_bf16_compute(
// CHECK: %[[X:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x5xf32>) outs(%{{.*}} : tensor<4x5xbf16>)
// CHECK-NEXT: ^bb0(%[[XIN:[^:]+]]: f32, %{{[^:]+}}: bf16):
// CHECK-NEXT: %[[XT:.*]] = arith.truncf %[[XIN]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[XT]] : bf16
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x16xf32>) outs(%{{.*}} : tensor<4x16xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-DAG: linalg.matmul ins(%[[X]], %{{.*}} : tensor<4x5xbf16>, tensor<5x48xbf16>) outs(%{{.*}} : tensor<4x48xf32>)
// CHECK-DAG: linalg.matmul ins(%[[H]], %{{.*}} : tensor<4x16xbf16>, tensor<16x48xbf16>) outs(%{{.*}} : tensor<4x48xf32>)
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[GI:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[GH:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[BI:[^:]+]]: bf16,
// gi_r and gh_r rounded, the bias added to gi_r, the sum rounded:
// CHECK-DAG: %[[T0:.*]] = arith.truncf %[[GI]] : f32 to bf16
// CHECK-DAG: %[[E0:.*]] = arith.extf %[[T0]] : bf16 to f32
// CHECK-DAG: %[[T1:.*]] = arith.truncf %[[GH]] : f32 to bf16
// CHECK-DAG: arith.extf %[[T1]] : bf16 to f32
// CHECK-DAG: %[[B0:.*]] = arith.extf %[[BI]] : bf16 to f32
// CHECK-DAG: %[[S0:.*]] = arith.addf %[[E0]], %[[B0]] : f32
// CHECK-DAG: arith.truncf %[[S0]] : f32 to bf16
// The tail, with bf16 carries: 1 - z, (1 - z) * n, z * h and the final sum
// rounded.
// CHECK: %[[OMZ:.*]] = arith.subf
// CHECK: %[[TOMZ:.*]] = arith.truncf %[[OMZ]] : f32 to bf16
// CHECK: %[[EOMZ:.*]] = arith.extf %[[TOMZ]] : bf16 to f32
// CHECK: %[[OMZN:.*]] = arith.mulf %[[EOMZ]], %{{.*}} : f32
// CHECK: %[[TOMZN:.*]] = arith.truncf %[[OMZN]] : f32 to bf16
// CHECK: %[[EOMZN:.*]] = arith.extf %[[TOMZN]] : bf16 to f32
// CHECK: %[[ZH:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: %[[TZH:.*]] = arith.truncf %[[ZH]] : f32 to bf16
// CHECK: %[[EZH:.*]] = arith.extf %[[TZH]] : bf16 to f32
// CHECK: %[[NEWH:.*]] = arith.addf %[[EOMZN]], %[[EZH]] : f32
// CHECK: %[[TH:.*]] = arith.truncf %[[NEWH]] : f32 to bf16
// CHECK: %[[EH:.*]] = arith.extf %[[TH]] : bf16 to f32
// CHECK: linalg.yield %[[EH]] : f32
func.func @gru_bf16_compute(%x: tensor<4x5xf32>, %h: tensor<4x16xf32>, %wi: tensor<5x48xbf16>, %wh: tensor<16x48xbf16>, %bi: tensor<48xbf16>) -> tensor<4x16xf32> {
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<48xbf16>) {carry_type = bf16, compute_type = bf16} : tensor<4x5xf32>, tensor<4x16xf32>, tensor<5x48xbf16>, tensor<16x48xbf16>
  return %0 : tensor<4x16xf32>
}

// -----

/// An int8 kernel that is not a cast of i8 constants (an argument here):
/// the lowering casts it back to its storage.

// CHECK-LABEL: func.func @simple_int8_argument(
// CHECK-SAME: %[[WI:[^:]+]]: tensor<3x2x!quant.uniform
// CHECK: %[[STORAGE:.*]] = quant.scast %[[WI]] : tensor<3x2x!quant.uniform<{{.*}}>> to tensor<3x2xi8>
// CHECK: linalg.matmul ins(%{{.*}}, %[[STORAGE]] : tensor<1x3xf32>, tensor<3x2xi8>)
func.func @simple_int8_argument(%x: tensor<3xf32>, %h: tensor<2xf32>, %wi: tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>>, %wh: tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {1.0,2.0}>>) -> tensor<2xf32> {
  %h1 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<3xf32>, tensor<2xf32>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>>, tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {1.0,2.0}>>
  return %h1 : tensor<2xf32>
}

// -----

/// With f32 carries (param_dtype float32) the LSTM's f and o meet the f32
/// c: XLA keeps them unrounded (the sigmoid's divide is not rounded) and the
/// tail is f32: no rounding after the last tanh.

// CHECK-LABEL: func.func @lstm_bf16_compute_f32_carry(
// CHECK: linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0({{(%[^:]+: f32, ){8}%}}[[C:[^:]+]]: f32,
// CHECK: %[[I:.*]] = arith.divf
// CHECK: %[[TI:.*]] = arith.truncf %[[I]] : f32 to bf16
// CHECK: %[[EI:.*]] = arith.extf %[[TI]] : bf16 to f32
// CHECK: %[[G:.*]] = math.tanh
// CHECK: %[[TG:.*]] = arith.truncf %[[G]] : f32 to bf16
// CHECK: %[[EG:.*]] = arith.extf %[[TG]] : bf16 to f32
// CHECK: %[[F:.*]] = arith.divf
// CHECK-NOT: arith.truncf %[[F]]
// CHECK: %[[O:.*]] = arith.divf
// CHECK-NOT: arith.truncf
// CHECK: %[[FC:.*]] = arith.mulf %[[F]], %[[C]] : f32
// CHECK: %[[IG:.*]] = arith.mulf %[[EI]], %[[EG]] : f32
// CHECK: %[[NEWC:.*]] = arith.addf %[[FC]], %[[IG]] : f32
// CHECK: %[[T:.*]] = math.tanh %[[NEWC]] : f32
// CHECK: %[[NEWH:.*]] = arith.mulf %[[O]], %[[T]] : f32
// CHECK: linalg.yield %[[NEWC]], %[[NEWH]] : f32, f32
func.func @lstm_bf16_compute_f32_carry(%x: tensor<4x5xf32>, %c: tensor<4x8xf32>, %h: tensor<4x8xf32>, %wi: tensor<5x32xbf16>, %wh: tensor<8x32xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0, %1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) {carry_type = f32, compute_type = bf16} : tensor<4x5xf32>, tensor<4x8xf32>, tensor<5x32xbf16>, tensor<8x32xbf16>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
