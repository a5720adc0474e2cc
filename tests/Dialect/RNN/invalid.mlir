// RUN: rnn-opt %s --split-input-file --verify-diagnostics

/// One case per verifier branch, cells first.

func.func @negative_cell_scalar_input(%x: tensor<f32>, %h: tensor<f32>, %wi: tensor<1x1xf32>, %wh: tensor<1x1xf32>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects an input of rank >= 1, got a scalar}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<f32>, tensor<f32>, tensor<1x1xf32>, tensor<1x1xf32>
  return
}

// -----

func.func @negative_cell_rank_mismatch(%x: tensor<8x4xf32>, %h: tensor<2x8x6xf32>, %wi: tensor<4x6xf32>, %wh: tensor<6x6xf32>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects input and carry of the same rank, got 2 and 3}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<8x4xf32>, tensor<2x8x6xf32>, tensor<4x6xf32>, tensor<6x6xf32>
  return
}

// -----

func.func @negative_cell_batch_mismatch(%x: tensor<8x4xf32>, %h: tensor<4x6xf32>, %wi: tensor<4x18xf32>, %wh: tensor<6x18xf32>) {
  // expected-error @+1 {{'rnn.gru_cell' op expects input and carry with the same batch dims, got 8 and 4}}
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) : tensor<8x4xf32>, tensor<4x6xf32>, tensor<4x18xf32>, tensor<6x18xf32>
  return
}

// -----

func.func @negative_lstm_wi_shape(%x: tensor<8x40xf32>, %c: tensor<8x64xf32>, %wi: tensor<40x128xf32>, %wh: tensor<64x256xf32>) {
  // expected-error @+1 {{'rnn.lstm_cell' op expects 'wi' of shape 40x256 (input features by 4 gates x 64 features), got 40x128}}
  %0:2 = rnn.lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<8x40xf32>, tensor<8x64xf32>, tensor<40x128xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @negative_mgu_wh_shape(%x: tensor<8x5xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x12xf32>, %wh: tensor<6x6xf32>) {
  // expected-error @+1 {{'rnn.mgu_cell' op expects 'wh' of shape 6x12 (features by 2 gates x 6 features), got 6x6}}
  %0 = rnn.mgu_cell(%x, %h) kernels(%wi, %wh) : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x12xf32>, tensor<6x6xf32>
  return
}

// -----

func.func @negative_gru_input_bias_shape(%x: tensor<8x5xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x18xf32>, %wh: tensor<6x18xf32>, %b: tensor<6xf32>) {
  // expected-error @+1 {{'rnn.gru_cell' op expects 'bi' of shape 18 (3 gates x 6 features), got 6}}
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%b : tensor<6xf32>) : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x18xf32>, tensor<6x18xf32>
  return
}

// -----

func.func @negative_lstm_hidden_bias_shape(%x: tensor<8x40xf32>, %c: tensor<8x64xf32>, %wi: tensor<40x256xf32>, %wh: tensor<64x256xf32>, %b: tensor<2x128xf32>) {
  // expected-error @+1 {{'rnn.lstm_cell' op expects 'bh' of shape 256 (4 gates x 64 features), got 2x128}}
  %0:2 = rnn.lstm_cell(%x, %c, %c) kernels(%wi, %wh) hidden_bias(%b : tensor<2x128xf32>) : tensor<8x40xf32>, tensor<8x64xf32>, tensor<40x256xf32>, tensor<64x256xf32>
  return
}

// -----

func.func @negative_cell_element_types(%x: tensor<8x5xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x6xf32>, %wh: tensor<6x6xf64>) {
  // expected-error @+1 {{'rnn.simple_cell' op operand #3 must be statically shaped kernel tensor of 32-bit float or bfloat16 type or int8 per-output-channel quantized type values, but got 'tensor<6x6xf64>'}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x6xf32>, tensor<6x6xf64>
  return
}

// -----

func.func @negative_lstm_carry_types_differ(%x: tensor<8x4xf32>, %c: tensor<8x6xf32>, %h: tensor<8x7xf32>, %wi: tensor<4x24xf32>, %wh: tensor<6x24xf32>) {
  // expected-error @+1 {{'rnn.lstm_cell' op failed to verify that all of {c, h, new_c, new_h} have same type}}
  %0:2 = "rnn.lstm_cell"(%x, %c, %h, %wi, %wh) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>}> : (tensor<8x4xf32>, tensor<8x6xf32>, tensor<8x7xf32>, tensor<4x24xf32>, tensor<6x24xf32>) -> (tensor<8x6xf32>, tensor<8x6xf32>)
  return
}

// -----

func.func @negative_conv_kernel_rank(%x: tensor<2x8x3xf32>, %c: tensor<2x8x6xf32>, %wi: tensor<3x24xf32>, %wh: tensor<6x24xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects 'wi' of rank >= 3 (kernel dims, input channels, 4 x features), got rank 2}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<2x8x3xf32>, tensor<2x8x6xf32>, tensor<3x24xf32>, tensor<6x24xf32>
  return
}

// -----

func.func @negative_conv_input_rank(%x: tensor<3xf32>, %c: tensor<6xf32>, %wi: tensor<3x3x3x24xf32>, %wh: tensor<3x3x6x24xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects an input of rank >= 3 (spatial dims, channels), got rank 1}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<3xf32>, tensor<6xf32>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf32>
  return
}

// -----

func.func @negative_conv_rank_mismatch(%x: tensor<2x8x8x3xf32>, %c: tensor<8x8x6xf32>, %wi: tensor<3x3x3x24xf32>, %wh: tensor<3x3x6x24xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects input and carry of the same rank, got 4 and 3}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<2x8x8x3xf32>, tensor<8x8x6xf32>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf32>
  return
}

// -----

func.func @negative_conv_spatial_mismatch(%x: tensor<2x8x8x3xf32>, %c: tensor<2x8x4x6xf32>, %wi: tensor<3x3x3x24xf32>, %wh: tensor<3x3x6x24xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects input and carry with the same batch and spatial dims, got 2x8x8 and 2x8x4}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<2x8x8x3xf32>, tensor<2x8x4x6xf32>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf32>
  return
}

// -----

func.func @negative_conv_wi_channels(%x: tensor<2x8x8x3xf32>, %c: tensor<2x8x8x6xf32>, %wi: tensor<3x3x4x24xf32>, %wh: tensor<3x3x6x24xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects 'wi' of shape 3x3x3x24 (kernel dims, input channels, 4 gates x 6 features), got 3x3x4x24}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<2x8x8x3xf32>, tensor<2x8x8x6xf32>, tensor<3x3x4x24xf32>, tensor<3x3x6x24xf32>
  return
}

// -----

func.func @negative_conv_wh_kernel(%x: tensor<2x8x8x3xf32>, %c: tensor<2x8x8x6xf32>, %wi: tensor<3x3x3x24xf32>, %wh: tensor<5x5x6x24xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects 'wh' of shape 3x3x6x24 (kernel dims of 'wi', features, 4 gates x 6 features), got 5x5x6x24}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<2x8x8x3xf32>, tensor<2x8x8x6xf32>, tensor<3x3x3x24xf32>, tensor<5x5x6x24xf32>
  return
}

// -----

func.func @negative_conv_input_bias(%x: tensor<2x8x8x3xf32>, %c: tensor<2x8x8x6xf32>, %wi: tensor<3x3x3x24xf32>, %wh: tensor<3x3x6x24xf32>, %b: tensor<6xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects 'bi' of shape 24 (4 gates x 6 features), got 6}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) input_bias(%b : tensor<6xf32>) : tensor<2x8x8x3xf32>, tensor<2x8x8x6xf32>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf32>
  return
}

// -----

func.func @negative_conv_hidden_bias(%x: tensor<2x8x8x3xf32>, %c: tensor<2x8x8x6xf32>, %wi: tensor<3x3x3x24xf32>, %wh: tensor<3x3x6x24xf32>, %b: tensor<12xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects 'bh' of shape 24 (4 gates x 6 features), got 12}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) hidden_bias(%b : tensor<12xf32>) : tensor<2x8x8x3xf32>, tensor<2x8x8x6xf32>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf32>
  return
}

// -----

/// Params may be bf16 with f32 activations (param_dtype: bfloat16), but only
/// all of them, and only with f32 activations.
func.func @negative_cell_mixed_param_types(%x: tensor<8x5xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x6xbf16>, %wh: tensor<6x6xbf16>, %b: tensor<6xf32>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects every param to have the element type of 'wi', 'bf16', got 'f32' for operand #4}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) input_bias(%b : tensor<6xf32>) : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x6xbf16>, tensor<6x6xbf16>
  return
}

// -----

func.func @negative_cell_bf16_params_f64_activations(%x: tensor<8x5xf64>, %h: tensor<8x6xf64>, %wi: tensor<5x24xbf16>, %wh: tensor<6x24xbf16>) {
  // expected-error @+1 {{'rnn.lstm_cell' op operand #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<8x5xf64>'}}
  %0:2 = rnn.lstm_cell(%x, %h, %h) kernels(%wi, %wh) : tensor<8x5xf64>, tensor<8x6xf64>, tensor<5x24xbf16>, tensor<6x24xbf16>
  return
}

// -----

func.func @negative_cell_f16_params(%x: tensor<8x5xf32>, %h: tensor<8x18xf32>, %wi: tensor<5x54xf16>, %wh: tensor<18x54xf16>) {
  // expected-error @+1 {{'rnn.gru_cell' op operand #2 must be statically shaped kernel tensor of 32-bit float or bfloat16 type or int8 per-output-channel quantized type values, but got 'tensor<5x54xf16>'}}
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) : tensor<8x5xf32>, tensor<8x18xf32>, tensor<5x54xf16>, tensor<18x54xf16>
  return
}

// -----

func.func @negative_cell_bf16_activations(%x: tensor<8x5xf32>, %h: tensor<8x6xbf16>, %wi: tensor<5x6xbf16>, %wh: tensor<6x6xbf16>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects every activation (input, carries) to have the input's element type 'f32', got 'bf16' for operand #1}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<8x5xf32>, tensor<8x6xbf16>, tensor<5x6xbf16>, tensor<6x6xbf16>
  return
}

// -----

/// bf16 params go with f32 activations, not f32 params with bf16 ones.
func.func @negative_cell_f32_params_bf16_activations(%x: tensor<8x5xbf16>, %h: tensor<8x6xbf16>, %wi: tensor<5x6xf32>, %wh: tensor<6x6xf32>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects params of the activations' element type 'bf16' (or bf16 with f32 activations), got 'f32'}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<8x5xbf16>, tensor<8x6xbf16>, tensor<5x6xf32>, tensor<6x6xf32>
  return
}

// -----

/// ConvLSTM keeps one element type: its lowering reads f32 kernels only.
func.func @negative_conv_bf16_params(%x: tensor<2x8x8x3xf32>, %c: tensor<2x8x8x6xf32>, %wi: tensor<3x3x3x24xbf16>, %wh: tensor<3x3x6x24xbf16>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op expects every operand to have element type 'f32', got 'bf16' for operand #3}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<2x8x8x3xf32>, tensor<2x8x8x6xf32>, tensor<3x3x3x24xbf16>, tensor<3x3x6x24xbf16>
  return
}

// -----

/// int8 kernels (quantize: {weights: int8}): both kernels, quantized per
/// column of the last dim (symmetric i8 in [-127, 127], f32 scales), with
/// f32 activations and biases.
func.func @negative_int8_one_kernel(%x: tensor<3x2xf32>, %h: tensor<3x1xf32>, %wi: tensor<2x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>, %wh: tensor<1x1xf32>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects both kernels int8 when one is, got 'f32' for 'wh'}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<3x2xf32>, tensor<3x1xf32>, tensor<2x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>, tensor<1x1xf32>
  return
}

// -----

func.func @negative_int8_axis(%x: tensor<3x2xf32>, %h: tensor<3x2xf32>, %wi: tensor<2x2x!quant.uniform<i8<-127:127>:f32:0, {0.5,1.0}>>, %wh: tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,1.0}>>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects 'wi' quantized along its last dim with one scale per column (2), got axis 0 with 2 scales}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2x!quant.uniform<i8<-127:127>:f32:0, {0.5,1.0}>>, tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,1.0}>>
  return
}

// -----

func.func @negative_int8_bias(%x: tensor<3x2xf32>, %h: tensor<3x1xf32>, %wi: tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.5,1.0,1.0}>>, %wh: tensor<1x3x!quant.uniform<i8<-127:127>:f32:1, {0.5,1.0,1.0}>>, %b: tensor<3xbf16>) {
  // expected-error @+1 {{'rnn.gru_cell' op expects f32 activations and biases with int8 kernels, got 'bf16' for operand #4}}
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%b : tensor<3xbf16>) : tensor<3x2xf32>, tensor<3x1xf32>, tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.5,1.0,1.0}>>, tensor<1x3x!quant.uniform<i8<-127:127>:f32:1, {0.5,1.0,1.0}>>
  return
}

// -----

/// Asymmetric (a zero point) or full-range i8 is not rnnc's int8 type: the
/// operand constraint rejects it.
func.func @negative_int8_zero_point(%x: tensor<3x2xf32>, %h: tensor<3x1xf32>, %wi: tensor<2x1x!quant.uniform<i8<-127:127>:f32:1, {0.5:3}>>, %wh: tensor<1x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>) {
  // expected-error @+1 {{'rnn.simple_cell' op operand #2 must be statically shaped kernel tensor of 32-bit float or bfloat16 type or int8 per-output-channel quantized type values}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<3x2xf32>, tensor<3x1xf32>, tensor<2x1x!quant.uniform<i8<-127:127>:f32:1, {0.5:3}>>, tensor<1x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>
  return
}

// -----

func.func @negative_int8_full_range(%x: tensor<3x2xf32>, %h: tensor<3x1xf32>, %wi: tensor<2x1x!quant.uniform<i8:f32:1, {0.5}>>, %wh: tensor<1x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>) {
  // expected-error @+1 {{'rnn.simple_cell' op operand #2 must be statically shaped kernel tensor of 32-bit float or bfloat16 type or int8 per-output-channel quantized type values}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<3x2xf32>, tensor<3x1xf32>, tensor<2x1x!quant.uniform<i8:f32:1, {0.5}>>, tensor<1x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>
  return
}

// -----

/// ConvLSTM keeps float kernels.
func.func @negative_conv_int8(%x: tensor<2x8x3xf32>, %c: tensor<2x8x6xf32>, %wi: tensor<3x3x24x!quant.uniform<i8<-127:127>:f32:2, {1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0}>>, %wh: tensor<3x6x24xf32>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op operand #3 must be statically shaped weight tensor of 32-bit float or bfloat16 type values}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<2x8x3xf32>, tensor<2x8x6xf32>, tensor<3x3x24x!quant.uniform<i8<-127:127>:f32:2, {1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0}>>, tensor<3x6x24xf32>
  return
}

// -----

func.func @negative_dense_int8_scales(%x: tensor<4x3xf32>, %k: tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0}>>) {
  // expected-error @+1 {{'rnn.dense' op expects the kernel quantized along dim 1 with one scale per column (2), got axis 1 with 3 scales}}
  %d = rnn.dense %x, %k : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0}>> -> tensor<4x2xf32>
  return
}

// -----

func.func @negative_dense_int8_f64(%x: tensor<4x3xf64>, %k: tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>>) {
  // expected-error @+1 {{'rnn.dense' op operand #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<4x3xf64>'}}
  %d = rnn.dense %x, %k : tensor<4x3xf64>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>> -> tensor<4x2xf64>
  return
}

// -----

func.func @negative_dense_int8_bf16(%x: tensor<4x3xbf16>, %k: tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>>) {
  // expected-error @+1 {{'rnn.dense' op expects f32 activations with an int8 kernel, got 'bf16'}}
  %d = rnn.dense %x, %k : tensor<4x3xbf16>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>> -> tensor<4x2xbf16>
  return
}

// -----

func.func @negative_conv_element_types(%x: tensor<2x8x8x3xf16>, %c: tensor<2x8x8x6xf16>, %wi: tensor<3x3x3x24xf32>, %wh: tensor<3x3x6x24xf16>) {
  // expected-error @+1 {{'rnn.conv_lstm_cell' op operand #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<2x8x8x3xf16>'}}
  %0:2 = rnn.conv_lstm_cell(%x, %c, %c) kernels(%wi, %wh) : tensor<2x8x8x3xf16>, tensor<2x8x8x6xf16>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf16>
  return
}

// -----

/// Layers.

func.func @negative_scan_negative_batch_dims(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects 'num_batch_dims' to be non-negative, got -1}}
  %0 = rnn.scan %x {num_batch_dims = -1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_input_rank(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects an input of rank >= 3 (1 batch dims, time, features), got rank 2}}
  %0 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4xf32> -> tensor<8x4xf32> {
  ^bb0(%h: tensor<8xf32>, %xt: tensor<8xf32>):
    rnn.yield carry(%h : tensor<8xf32>) output(%h : tensor<8xf32>)
  }
  return
}

// -----

func.func @negative_scan_lengths_shape(%x: tensor<8x4x5xf32>, %len: tensor<4xi32>) {
  // expected-error @+1 {{'rnn.scan' op expects 'seq_lengths' of shape 8 (the batch dims), got 4}}
  %0 = rnn.scan %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_zero_padding_without_lengths(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects 'seq_lengths' with 'zero_padded_outputs'}}
  %0 = rnn.scan %x zero_padded_outputs {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_unroll_zero(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects 'unroll' to be positive, got 0}}
  %0 = rnn.scan %x unroll 0 {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_keep_order_without_reverse(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects 'keep_order' only together with 'reverse'}}
  %0 = rnn.scan %x keep_order {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_body_arguments(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects the body region to take the carry and the step input, got 1 argument(s)}}
  %0 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%xt: tensor<8x5xf32>):
    rnn.yield carry(%xt : tensor<8x5xf32>) output(%xt : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_step_input_type(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects the last argument of the body region to be the input at one step, 'tensor<8x5xf32>', got 'tensor<4x5xf32>'}}
  %0 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<4x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_carry_batch_dims(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects carry #0 of the body region to be a tensor with the batch dims 8 and features, got 'tensor<4x5xf32>'}}
  %0 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<4x5xf32>) output(%xt : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_initial_carry_count(%x: tensor<8x4x5xf32>, %h0: tensor<8x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects 0 or 2 initial carries (one per carry), got 1}}
  %0 = rnn.scan %x init(%h0 : tensor<8x5xf32>) {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%c: tensor<8x5xf32>, %h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%c, %h : tensor<8x5xf32>, tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_final_carry_type(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects final carries #0 of type 'tensor<8x5xf32>', got 'tensor<8x6xf32>'}}
  %0, %1 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32>, tensor<8x6xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_yielded_carry_type(%x: tensor<8x4x5xf32>, %other: tensor<8x7xf32>) {
  %0 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    // expected-error @+1 {{'rnn.yield' op expects yielded carries #0 of type 'tensor<8x5xf32>', got 'tensor<8x7xf32>'}}
    rnn.yield carry(%other : tensor<8x7xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_yields_no_carry(%x: tensor<8x4x5xf32>) {
  %0 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    // expected-error @+1 {{'rnn.yield' op expects 1 yielded carries, got 0}}
    "rnn.yield"(%h) : (tensor<8x5xf32>) -> ()
  }
  return
}

// -----

func.func @negative_scan_body_terminator(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects the body region to end with 'rnn.yield'}}
  %0 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    llvm.unreachable
  }
  return
}

// -----

func.func @negative_scan_outputs_type(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.scan' op expects outputs of type 'tensor<8x4x5xf32>' (the yielded output stacked on axis 1), got 'tensor<4x8x5xf32>'}}
  %0 = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<4x8x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_bidirectional_unroll(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.bidirectional' op expects 'forward_unroll' to be positive, got -2}}
  %0 = rnn.bidirectional %x merge<add> {num_batch_dims = 1 : i64, forward_unroll = -2 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32>
  forward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  } backward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_bidirectional_one_sided_carries(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.bidirectional' op expects final carries for both directions or for neither, got 1 forward and 0 backward}}
  %0:2 = "rnn.bidirectional"(%x) <{merge = #rnn.merge<add>, num_batch_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0>}> ({
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }, {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }) : (tensor<8x4x5xf32>) -> (tensor<8x4x5xf32>, tensor<8x5xf32>)
  return
}

// -----

func.func @negative_bidirectional_concat_shapes(%x: tensor<8x4x5xf32>, %o: tensor<4x5xf32>) {
  // expected-error @+1 {{'rnn.bidirectional' op expects both directions to yield outputs that differ at most in the last dim, got 'tensor<8x4x5xf32>' and 'tensor<4x4x5xf32>'}}
  %0 = rnn.bidirectional %x merge<concat> {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x10xf32>
  forward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  } backward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%o : tensor<4x5xf32>)
  }
  return
}

// -----

func.func @negative_bidirectional_add_shapes(%x: tensor<8x4x5xf32>, %o: tensor<8x6xf32>) {
  // expected-error @+1 {{'rnn.bidirectional' op expects both directions to yield outputs of the same type with merge 'add', got 'tensor<8x4x5xf32>' and 'tensor<8x4x6xf32>'}}
  %0 = rnn.bidirectional %x merge<add> {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32>
  forward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  } backward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%o : tensor<8x6xf32>)
  }
  return
}

// -----

func.func @negative_bidirectional_outputs_type(%x: tensor<8x4x5xf32>) {
  // expected-error @+1 {{'rnn.bidirectional' op expects outputs of type 'tensor<8x4x10xf32>' (both directions merged with 'concat'), got 'tensor<8x4x5xf32>'}}
  %0 = rnn.bidirectional %x merge<concat> {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32>
  forward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  } backward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

/// Sequence utilities.

func.func @negative_merge_concat_shapes(%a: tensor<4x6x3xf32>, %b: tensor<4x5x3xf32>) {
  // expected-error @+1 {{'rnn.merge' op expects operands that differ at most in the last dim for 'concat', got 'tensor<4x6x3xf32>' and 'tensor<4x5x3xf32>'}}
  %0 = rnn.merge <concat> %a, %b : tensor<4x6x3xf32>, tensor<4x5x3xf32> -> tensor<4x6x6xf32>
  return
}

// -----

func.func @negative_merge_mean_shapes(%a: tensor<4x6x3xf32>, %b: tensor<4x6x4xf32>) {
  // expected-error @+1 {{'rnn.merge' op expects operands of the same type for 'mean', got 'tensor<4x6x3xf32>' and 'tensor<4x6x4xf32>'}}
  %0 = rnn.merge <mean> %a, %b : tensor<4x6x3xf32>, tensor<4x6x4xf32> -> tensor<4x6x3xf32>
  return
}

// -----

func.func @negative_merge_result_type(%a: tensor<4x6x3xf32>, %b: tensor<4x6x2xf32>) {
  // expected-error @+1 {{'rnn.merge' op expects a result of type 'tensor<4x6x5xf32>', got 'tensor<4x6x3xf32>'}}
  %0 = rnn.merge <concat> %a, %b : tensor<4x6x3xf32>, tensor<4x6x2xf32> -> tensor<4x6x3xf32>
  return
}

// -----

func.func @negative_flip_negative_batch_dims(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'rnn.flip_sequences' op expects 'num_batch_dims' to be non-negative, got -1}}
  %0 = rnn.flip_sequences %x {num_batch_dims = -1 : i64} : tensor<4x6xf32>
  return
}

// -----

func.func @negative_flip_rank(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'rnn.flip_sequences' op expects an input of rank >= 3 (2 batch dims and time), got rank 2}}
  %0 = rnn.flip_sequences %x {num_batch_dims = 2 : i64} : tensor<4x6xf32>
  return
}

// -----

func.func @negative_flip_lengths_shape(%x: tensor<6x4x3xf32>, %len: tensor<6xi32>) {
  // expected-error @+1 {{'rnn.flip_sequences' op expects 'seq_lengths' of shape 4 (the batch dims), got 6}}
  %0 = rnn.flip_sequences %x lengths(%len : tensor<6xi32>) time_major {num_batch_dims = 1 : i64} : tensor<6x4x3xf32>
  return
}

// -----

func.func @negative_select_stack_shape(%s: tensor<6x4x6xf32>, %len: tensor<4xi32>, %init: tensor<4x5xf32>) {
  // expected-error @+1 {{'rnn.select_last_carry' op expects 'carries' to stack carries of type 'tensor<4x5xf32>' on axis 0, got 'tensor<6x4x6xf32>'}}
  %0 = rnn.select_last_carry %s, %len, %init : tensor<6x4x6xf32>, tensor<4xi32>, tensor<4x5xf32>
  return
}

// -----

func.func @negative_select_batch_dims(%s: tensor<6x4x5xf32>, %len: tensor<5xi32>, %init: tensor<4x5xf32>) {
  // expected-error @+1 {{'rnn.select_last_carry' op expects the carry to start with the batch dims of 'seq_lengths' (5) and have features, got 'tensor<4x5xf32>'}}
  %0 = rnn.select_last_carry %s, %len, %init : tensor<6x4x5xf32>, tensor<5xi32>, tensor<4x5xf32>
  return
}

// -----

/// The layers around the recurrence.

func.func @negative_dense_scalar(%x: tensor<f32>, %k: tensor<1x2xf32>) {
  // expected-error @+1 {{'rnn.dense' op expects an input of rank >= 1, got a scalar}}
  %0 = rnn.dense %x, %k : tensor<f32>, tensor<1x2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @negative_dense_kernel(%x: tensor<4x3xf32>, %k: tensor<2x2xf32>) {
  // expected-error @+1 {{'rnn.dense' op expects a kernel of shape 3xN (input features x output features), got 2x2}}
  %0 = rnn.dense %x, %k : tensor<4x3xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @negative_dense_kernel_type(%x: tensor<4x3xf32>, %k: tensor<3x2xf16>) {
  // expected-error @+1 {{'rnn.dense' op operand #1 must be statically shaped kernel tensor of 32-bit float or bfloat16 type or int8 per-output-channel quantized type values, but got 'tensor<3x2xf16>'}}
  %0 = rnn.dense %x, %k : tensor<4x3xf32>, tensor<3x2xf16> -> tensor<4x2xf32>
  return
}

// -----

/// A Dense layer's params have the activations' type (bf16 params are a
/// cell's).
func.func @negative_dense_bf16_kernel(%x: tensor<4x3xf32>, %k: tensor<3x2xbf16>) {
  // expected-error @+1 {{'rnn.dense' op expects a kernel of element type 'f32', got 'bf16'}}
  %0 = rnn.dense %x, %k : tensor<4x3xf32>, tensor<3x2xbf16> -> tensor<4x2xf32>
  return
}

// -----

func.func @negative_dense_bias(%x: tensor<4x3xf32>, %k: tensor<3x2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'rnn.dense' op expects 'bias' of shape 2 (the last dim of the input), got 3}}
  %0 = rnn.dense %x, %k bias(%b : tensor<3xf32>) : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @negative_dense_bias_type(%x: tensor<4x3xf32>, %k: tensor<3x2xf32>, %b: tensor<2xf16>) {
  // expected-error @+1 {{'rnn.dense' op operand #2 must be statically shaped weight tensor of 32-bit float or bfloat16 type values, but got 'tensor<2xf16>'}}
  %0 = rnn.dense %x, %k bias(%b : tensor<2xf16>) : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @negative_dense_bf16_bias(%x: tensor<4x3xf32>, %k: tensor<3x2xf32>, %b: tensor<2xbf16>) {
  // expected-error @+1 {{'rnn.dense' op expects 'bias' of element type 'f32', got 'bf16'}}
  %0 = rnn.dense %x, %k bias(%b : tensor<2xbf16>) : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @negative_dense_result(%x: tensor<4x3xf32>, %k: tensor<3x2xf32>) {
  // expected-error @+1 {{'rnn.dense' op expects a result of type 'tensor<4x2xf32>', got 'tensor<4x3xf32>'}}
  %0 = rnn.dense %x, %k : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @negative_softmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'rnn.activation' op expects an input of rank >= 1, got a scalar}}
  %0 = rnn.activation <softmax> %x : tensor<f32>
  return
}

// -----

func.func @negative_cell_softmax(%x: tensor<8x4xf32>, %h: tensor<8x6xf32>, %wi: tensor<4x6xf32>, %wh: tensor<6x6xf32>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects an element-wise 'activation_fn', got softmax}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) activation_fn<softmax> : tensor<8x4xf32>, tensor<8x6xf32>, tensor<4x6xf32>, tensor<6x6xf32>
  return
}

// -----

func.func @negative_layer_norm_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'rnn.layer_norm' op expects an input of rank >= 1, got a scalar}}
  %0 = rnn.layer_norm %x epsilon 1.0e-06 : tensor<f32>
  return
}

// -----

func.func @negative_layer_norm_epsilon(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rnn.layer_norm' op expects a positive 'epsilon', got 0}}
  %0 = rnn.layer_norm %x epsilon 0.0 : tensor<4x3xf32>
  return
}

// -----

func.func @negative_layer_norm_scale(%x: tensor<4x3xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'rnn.layer_norm' op expects 'scale' of shape 3 (the last dim of the input), got 4}}
  %0 = rnn.layer_norm %x scale(%s : tensor<4xf32>) epsilon 1.0e-06 : tensor<4x3xf32>
  return
}

// -----

func.func @negative_layer_norm_bias(%x: tensor<4x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'rnn.layer_norm' op expects 'bias' of shape 3 (the last dim of the input), got 2}}
  %0 = rnn.layer_norm %x bias(%b : tensor<2xf32>) epsilon 1.0e-06 : tensor<4x3xf32>
  return
}

// -----

func.func @negative_pool_batch_dims(%x: tensor<4x6x3xf32>) {
  // expected-error @+1 {{'rnn.pool' op expects 'num_batch_dims' to be non-negative, got -1}}
  %0 = rnn.pool <sum> %x {num_batch_dims = -1 : i64} : tensor<4x6x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @negative_pool_rank(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'rnn.pool' op expects an input of rank >= 3 (1 batch dims, time, features), got rank 2}}
  %0 = rnn.pool <sum> %x {num_batch_dims = 1 : i64} : tensor<4x6xf32> -> tensor<4xf32>
  return
}

// -----

func.func @negative_pool_lengths(%x: tensor<4x6x3xf32>, %len: tensor<6xi32>) {
  // expected-error @+1 {{'rnn.pool' op expects 'seq_lengths' of shape 4 (the batch dims), got 6}}
  %0 = rnn.pool <sum> %x lengths(%len : tensor<6xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @negative_pool_result(%x: tensor<4x6x3xf32>) {
  // expected-error @+1 {{'rnn.pool' op expects a result of type 'tensor<4x3xf32>' (the input without its time axis), got 'tensor<6x3xf32>'}}
  %0 = rnn.pool <max> %x {num_batch_dims = 1 : i64} : tensor<4x6x3xf32> -> tensor<6x3xf32>
  return
}

// -----

func.func @negative_embed_table(%ids: tensor<4x6xi32>, %t: tensor<10xf32>) {
  // expected-error @+1 {{'rnn.embed' op expects an embedding table of rank 2 (num_embeddings x features), got rank 1}}
  %0 = rnn.embed %ids, %t : tensor<4x6xi32>, tensor<10xf32> -> tensor<4x6x1xf32>
  return
}

// -----

func.func @negative_embed_result(%ids: tensor<4x6xi32>, %t: tensor<10x3xf32>) {
  // expected-error @+1 {{'rnn.embed' op expects a result of type 'tensor<4x6x3xf32>' (the ids' shape, then features), got 'tensor<4x3xf32>'}}
  %0 = rnn.embed %ids, %t : tensor<4x6xi32>, tensor<10x3xf32> -> tensor<4x3xf32>
  return
}

// -----

/// Static shapes only: a `?` is rejected where it appears, on every kind of
/// operand (the type constraint, before any op-specific verifier).

func.func @negative_dynamic_cell_input(%x: tensor<?x4xf32>, %h: tensor<8x6xf32>, %wi: tensor<4x6xf32>, %wh: tensor<6x6xf32>) {
  // expected-error @+1 {{'rnn.simple_cell' op operand #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<?x4xf32>'}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) : tensor<?x4xf32>, tensor<8x6xf32>, tensor<4x6xf32>, tensor<6x6xf32>
  return
}

// -----

func.func @negative_dynamic_scan_time(%x: tensor<8x?x64xf32>, %wi: tensor<64x24xf32>, %wh: tensor<24x24xf32>) {
  // expected-error @+1 {{'rnn.scan' op operand #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<8x?x64xf32>'}}
  %y, %hT = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<8x?x64xf32> -> tensor<8x?x24xf32>, tensor<8x24xf32> {
  ^bb0(%h: tensor<8x24xf32>, %xt: tensor<8x64xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<8x64xf32>, tensor<8x24xf32>, tensor<64x24xf32>, tensor<24x24xf32>
    rnn.yield carry(%h1 : tensor<8x24xf32>) output(%h1 : tensor<8x24xf32>)
  }
  return
}

// -----

func.func @negative_scan_steps_with_reverse(%x: tensor<8x4x5xf32>, %n: index) {
  // expected-error @+1 {{'rnn.scan' op expects no 'reverse' or 'lengths' with 'steps' (they need the whole sequence)}}
  %0 = rnn.scan %x steps(%n) reverse {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_dynamic_lengths(%x: tensor<8x20x64xf32>, %len: tensor<?xi32>, %wi: tensor<64x24xf32>, %wh: tensor<24x24xf32>) {
  // expected-error @+1 {{'rnn.scan' op operand #1 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<?xi32>'}}
  %y, %hT = rnn.scan %x lengths(%len : tensor<?xi32>) {num_batch_dims = 1 : i64} : tensor<8x20x64xf32> -> tensor<8x20x24xf32>, tensor<8x24xf32> {
  ^bb0(%h: tensor<8x24xf32>, %xt: tensor<8x64xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<8x64xf32>, tensor<8x24xf32>, tensor<64x24xf32>, tensor<24x24xf32>
    rnn.yield carry(%h1 : tensor<8x24xf32>) output(%h1 : tensor<8x24xf32>)
  }
  return
}

// -----

func.func @negative_dynamic_token_ids(%ids: tensor<4x?xi32>, %table: tensor<10x3xf32>) {
  // expected-error @+1 {{'rnn.embed' op operand #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<4x?xi32>'}}
  %e = rnn.embed %ids, %table : tensor<4x?xi32>, tensor<10x3xf32> -> tensor<4x6x3xf32>
  return
}

// -----

func.func @negative_dynamic_merge(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) {
  // expected-error @+1 {{'rnn.merge' op operand #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<?x3xf32>'}}
  %m = rnn.merge <add> %a, %b : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @negative_scan_steps_with_lengths(%x: tensor<8x4x5xf32>, %len: tensor<8xi32>, %n: index) {
  // expected-error @+1 {{'rnn.scan' op expects no 'reverse' or 'lengths' with 'steps' (they need the whole sequence)}}
  %0 = rnn.scan %x lengths(%len : tensor<8xi32>) steps(%n) {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_scan_rows_unbatched(%x: tensor<4x5xf32>, %r: index) {
  // expected-error @+1 {{'rnn.scan' op expects 'rows' only with a batch dim and without 'lengths'}}
  %0 = rnn.scan %x rows(%r) {num_batch_dims = 0 : i64} : tensor<4x5xf32> -> tensor<4x5xf32> {
  ^bb0(%h: tensor<5xf32>, %xt: tensor<5xf32>):
    rnn.yield carry(%h : tensor<5xf32>) output(%h : tensor<5xf32>)
  }
  return
}

// -----

func.func @negative_bidirectional_rows_with_lengths(%x: tensor<8x4x5xf32>, %len: tensor<8xi32>, %r: index) {
  // expected-error @+1 {{'rnn.bidirectional' op expects 'rows' only with a batch dim and without 'lengths'}}
  %0 = rnn.bidirectional %x lengths(%len : tensor<8xi32>) rows(%r) merge<add> {num_batch_dims = 1 : i64}
      : tensor<8x4x5xf32> -> tensor<8x4x5xf32>
  forward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  } backward {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

/// bf16 compute (dtype: bfloat16): compute_type bf16 with a carry_type of
/// bf16 or f32, f32 activations, and activations whose bf16 rounding is known.
func.func @negative_carry_type_without_compute_type(%x: tensor<8x5xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x18xbf16>, %wh: tensor<6x18xbf16>) {
  // expected-error @+1 {{'rnn.gru_cell' op expects 'carry_type' only with 'compute_type'}}
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) {carry_type = bf16} : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x18xbf16>, tensor<6x18xbf16>
  return
}

// -----

func.func @negative_scan_rows_with_lengths(%x: tensor<8x4x5xf32>, %len: tensor<8xi32>, %r: index) {
  // expected-error @+1 {{'rnn.scan' op expects 'rows' only with a batch dim and without 'lengths'}}
  %0 = rnn.scan %x lengths(%len : tensor<8xi32>) rows(%r) {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %xt: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  return
}

// -----

func.func @negative_compute_type_f16(%x: tensor<8x5xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x18xbf16>, %wh: tensor<6x18xbf16>) {
  // expected-error @+1 {{'rnn.gru_cell' op expects 'compute_type' bf16, got 'f16'}}
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) {compute_type = f16, carry_type = f32} : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x18xbf16>, tensor<6x18xbf16>
  return
}

// -----

func.func @negative_compute_type_without_carry_type(%x: tensor<8x5xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x12xbf16>, %wh: tensor<6x12xbf16>) {
  // expected-error @+1 {{'rnn.mgu_cell' op expects 'carry_type' bf16 or f32 with 'compute_type' bf16}}
  %0 = rnn.mgu_cell(%x, %h) kernels(%wi, %wh) {compute_type = bf16} : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x12xbf16>, tensor<6x12xbf16>
  return
}

// -----

func.func @negative_bf16_compute_activation(%x: tensor<8x5xf32>, %c: tensor<8x6xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x24xbf16>, %wh: tensor<6x24xbf16>) {
  // expected-error @+1 {{'rnn.lstm_cell' op expects a 'gate_fn' of sigmoid, tanh, relu, hard_tanh or identity with 'compute_type' bf16, got hard_sigmoid}}
  %0, %1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) gate_fn<hard_sigmoid> {compute_type = bf16, carry_type = bf16} : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x24xbf16>, tensor<6x24xbf16>
  return
}

// -----

func.func @negative_bf16_compute_simple_f32_carry(%x: tensor<8x5xf32>, %h: tensor<8x6xf32>, %wi: tensor<5x6xbf16>, %wh: tensor<6x6xbf16>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects 'residual' with 'compute_type' bf16 and 'carry_type' f32 (the step's h' is bf16 otherwise)}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) {compute_type = bf16, carry_type = f32} : tensor<8x5xf32>, tensor<8x6xf32>, tensor<5x6xbf16>, tensor<6x6xbf16>
  return
}

// -----

/// `dynamic_int8` (activations: dynamic) quantizes f32 activations against
/// int8 kernels: not with float kernels, nor with bf16 compute.
func.func @negative_dynamic_int8_float_kernels(%x: tensor<3x2xf32>, %h: tensor<3x1xf32>, %wi: tensor<2x1xf32>, %wh: tensor<1x1xf32>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects int8 kernels and f32 compute with 'dynamic_int8'}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) {dynamic_int8} : tensor<3x2xf32>, tensor<3x1xf32>, tensor<2x1xf32>, tensor<1x1xf32>
  return
}

// -----

func.func @negative_dynamic_int8_bf16_compute(%x: tensor<3x2xf32>, %h: tensor<3x1xf32>, %wi: tensor<2x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>, %wh: tensor<1x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>) {
  // expected-error @+1 {{'rnn.simple_cell' op expects int8 kernels and f32 compute with 'dynamic_int8'}}
  %0 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) residual {compute_type = bf16, carry_type = bf16, dynamic_int8} : tensor<3x2xf32>, tensor<3x1xf32>, tensor<2x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>, tensor<1x1x!quant.uniform<i8<-127:127>:f32:1, {0.5}>>
  return
}

// -----

/// rnn.shared_k_matmuls: two matrix products of one depth.
func.func @negative_shared_k_matmuls_rank(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %c: tensor<32xf32>, %h: tensor<1x16xf32>, %w: tensor<16x64xf32>, %g: tensor<1x64xf32>, %i: index) {
  // expected-error @+1 {{'rnn.shared_k_matmuls' op expects the first product on matrices, got 'tensor<4x16xf32>' x 'tensor<16x8xf32>' into 'tensor<32xf32>'}}
  %0:2 = rnn.shared_k_matmuls ins(%a, %b[%i] : tensor<4x16xf32>, tensor<16x8xf32>) outs(%c : tensor<32xf32>), ins(%h, %w : tensor<1x16xf32>, tensor<16x64xf32>) outs(%g : tensor<1x64xf32>)
  return
}

// -----

func.func @negative_shared_k_matmuls_shapes(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %c: tensor<4x8xf32>, %h: tensor<1x16xf32>, %w: tensor<16x64xf32>, %g: tensor<1x32xf32>, %i: index) {
  // expected-error @+1 {{'rnn.shared_k_matmuls' op expects the second product [m, k] x [k, n] into [m, n], got 1x16 x 16x64 into 1x32}}
  %0:2 = rnn.shared_k_matmuls ins(%a, %b[%i] : tensor<4x16xf32>, tensor<16x8xf32>) outs(%c : tensor<4x8xf32>), ins(%h, %w : tensor<1x16xf32>, tensor<16x64xf32>) outs(%g : tensor<1x32xf32>)
  return
}

// -----

/// The first product's columns are a block of its weights': n divides N.
func.func @negative_shared_k_matmuls_block(%a: tensor<4x16xf32>, %b: tensor<16x64xf32>, %c: tensor<4x24xf32>, %h: tensor<1x16xf32>, %w: tensor<16x64xf32>, %g: tensor<1x64xf32>, %i: index) {
  // expected-error @+1 {{'rnn.shared_k_matmuls' op expects the first product [m, k] x a block of n columns of [k, N] (n dividing N) into [m, n], got 4x16 x 16x64 into 4x24}}
  %0:2 = rnn.shared_k_matmuls ins(%a, %b[%i] : tensor<4x16xf32>, tensor<16x64xf32>) outs(%c : tensor<4x24xf32>), ins(%h, %w : tensor<1x16xf32>, tensor<16x64xf32>) outs(%g : tensor<1x64xf32>)
  return
}

// -----

func.func @negative_shared_k_matmuls_depth(%a: tensor<4x8xf32>, %b: tensor<8x64xf32>, %c: tensor<4x64xf32>, %h: tensor<1x16xf32>, %w: tensor<16x256xf32>, %g: tensor<1x256xf32>, %i: index) {
  // expected-error @+1 {{'rnn.shared_k_matmuls' op expects both products of one depth k, got 8 and 16}}
  %0:2 = rnn.shared_k_matmuls ins(%a, %b[%i] : tensor<4x8xf32>, tensor<8x64xf32>) outs(%c : tensor<4x64xf32>), ins(%h, %w : tensor<1x16xf32>, tensor<16x256xf32>) outs(%g : tensor<1x256xf32>)
  return
}

// -----

func.func @negative_shared_k_matmuls_dynamic(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>, %c: tensor<4x8xf32>, %h: tensor<1x16xf32>, %w: tensor<16x64xf32>, %g: tensor<1x64xf32>, %i: index) {
  // expected-error @+1 {{'rnn.shared_k_matmuls' op operand #0 must be statically shaped tensor of any type values}}
  %0:2 = rnn.shared_k_matmuls ins(%a, %b[%i] : tensor<?x16xf32>, tensor<16x8xf32>) outs(%c : tensor<4x8xf32>), ins(%h, %w : tensor<1x16xf32>, tensor<16x64xf32>) outs(%g : tensor<1x64xf32>)
  return
}

// -----

/// A projected input (projected_input) is the step's product by `wi`: G*H
/// features.
func.func @negative_projected_input_features(%x: tensor<2x5xf32>, %h: tensor<2x4xf32>, %wi: tensor<5x12xf32>, %wh: tensor<4x12xf32>) {
  // expected-error @+1 {{'rnn.gru_cell' op expects a projected input of 12 features (3 gates x 4 features), got 5}}
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) projected_input : tensor<2x5xf32>, tensor<2x4xf32>, tensor<5x12xf32>, tensor<4x12xf32>
  return
}

// -----

/// A projected bf16-compute cell reads the rounded Dense output: the
/// scan's rnn.project has its compute_type (and an f32 cell's has none).
func.func @negative_projected_bf16_compute_from_f32_project(%x: tensor<2x3x5xf32>, %wi: tensor<5x12xbf16>, %wh: tensor<4x12xbf16>) -> tensor<2x3x4xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<2x3x5xf32>, tensor<5x12xbf16> -> tensor<2x3x12xf32>
  // expected-error @+1 {{'rnn.scan' op expects the input's 'rnn.project' to have a 'compute_type' exactly when its projected cell has}}
  %y = rnn.scan %p {num_batch_dims = 1 : i64} : tensor<2x3x12xf32> -> tensor<2x3x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %gt: tensor<2x12xf32>):
    %h1 = rnn.gru_cell(%gt, %h) kernels(%wi, %wh) projected_input {compute_type = bf16, carry_type = bf16} : tensor<2x12xf32>, tensor<2x4xf32>, tensor<5x12xbf16>, tensor<4x12xbf16>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x3x4xf32>
}

// -----

func.func @negative_projected_f32_from_bf16_project(%x: tensor<2x3x5xf32>, %wi: tensor<5x12xbf16>, %wh: tensor<4x12xbf16>) -> tensor<2x3x4xf32> {
  %p = rnn.project %x kernel(%wi) {compute_type = bf16} : tensor<2x3x5xf32>, tensor<5x12xbf16> -> tensor<2x3x12xf32>
  // expected-error @+1 {{'rnn.scan' op expects the input's 'rnn.project' to have a 'compute_type' exactly when its projected cell has}}
  %y = rnn.scan %p {num_batch_dims = 1 : i64} : tensor<2x3x12xf32> -> tensor<2x3x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %gt: tensor<2x12xf32>):
    %h1 = rnn.gru_cell(%gt, %h) kernels(%wi, %wh) projected_input : tensor<2x12xf32>, tensor<2x4xf32>, tensor<5x12xbf16>, tensor<4x12xbf16>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x3x4xf32>
}

// -----

/// A projected input still checks `wi`'s columns.
func.func @negative_projected_input_kernel_columns(%x: tensor<2x12xf32>, %h: tensor<2x4xf32>, %wi: tensor<5x8xf32>, %wh: tensor<4x12xf32>) {
  // expected-error @+1 {{'rnn.gru_cell' op expects 'wi' of shape 5x12 (input features by 3 gates x 4 features), got 5x8}}
  %0 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) projected_input : tensor<2x12xf32>, tensor<2x4xf32>, tensor<5x8xf32>, tensor<4x12xf32>
  return
}

// -----

/// rnn.project: rows of the input times a kernel.
func.func @negative_project_scalar(%x: tensor<f32>, %w: tensor<1x4xf32>) {
  // expected-error @+1 {{'rnn.project' op expects an input of rank >= 1, got a scalar}}
  %0 = rnn.project %x kernel(%w) : tensor<f32>, tensor<1x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @negative_project_kernel_rank(%x: tensor<2x3xf32>, %w: tensor<3x4x1xf32>) {
  // expected-error @+1 {{'rnn.project' op expects a kernel of rank 2 (input features by columns), got rank 3}}
  %0 = rnn.project %x kernel(%w) : tensor<2x3xf32>, tensor<3x4x1xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @negative_project_kernel_rows(%x: tensor<2x3xf32>, %w: tensor<5x4xf32>) {
  // expected-error @+1 {{'rnn.project' op expects a kernel of 3 rows (the input's features), got 5}}
  %0 = rnn.project %x kernel(%w) : tensor<2x3xf32>, tensor<5x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @negative_project_result_shape(%x: tensor<2x7x3xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'rnn.project' op expects a result of shape 2x7x4 (the input's rows by the kernel's columns), got 14x4}}
  %0 = rnn.project %x kernel(%w) : tensor<2x7x3xf32>, tensor<3x4xf32> -> tensor<14x4xf32>
  return
}

// -----

func.func @negative_project_result_type(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'rnn.project' op result #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<2x4xf16>'}}
  %0 = rnn.project %x kernel(%w) : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf16>
  return
}

// -----

func.func @negative_project_bf16_result(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'rnn.project' op expects a result of the input's element type 'f32', got 'bf16'}}
  %0 = rnn.project %x kernel(%w) : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xbf16>
  return
}

// -----

/// bf16 compute's projection (compute_type): bf16 only, f32 rows by bf16
/// weights, without dynamic int8.
func.func @negative_project_compute_type_f16(%x: tensor<2x3xf32>, %w: tensor<3x4xbf16>) {
  // expected-error @+1 {{'rnn.project' op expects 'compute_type' bf16, got 'f16'}}
  %0 = rnn.project %x kernel(%w) {compute_type = f16} : tensor<2x3xf32>, tensor<3x4xbf16> -> tensor<2x4xf32>
  return
}

// -----

func.func @negative_project_compute_type_f32_kernel(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'rnn.project' op expects an f32 input and a bf16 kernel with 'compute_type' bf16 (and no 'dynamic_int8'), got 'f32' and 'f32'}}
  %0 = rnn.project %x kernel(%w) {compute_type = bf16} : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @negative_project_compute_type_dynamic_int8(%x: tensor<2x3xf32>, %w: tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>>) {
  // expected-error @+1 {{'rnn.project' op expects an f32 input and a bf16 kernel with 'compute_type' bf16 (and no 'dynamic_int8'), got 'f32' and '!quant.uniform<i8<-127:127>:f32:1, {5.000000e-01,2.500000e-01,1.000000e+00,2.000000e+00}>'}}
  %0 = rnn.project %x kernel(%w) dynamic_int8 {compute_type = bf16} : tensor<2x3xf32>, tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>> -> tensor<2x4xf32>
  return
}

// -----

func.func @negative_project_dynamic_int8_float_kernel(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'rnn.project' op expects an int8 kernel with 'dynamic_int8', got 'f32'}}
  %0 = rnn.project %x kernel(%w) dynamic_int8 : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @negative_project_int8_axis(%x: tensor<2x3xf32>, %w: tensor<3x2x!quant.uniform<i8<-127:127>:f32:0, {0.5,0.25,1.0}>>) {
  // expected-error @+1 {{'rnn.project' op expects an int8 kernel quantized along its last dim with one scale per column (2), got axis 0 with 3 scales}}
  %0 = rnn.project %x kernel(%w) : tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:0, {0.5,0.25,1.0}>> -> tensor<2x2xf32>
  return
}

// -----

func.func @negative_project_kernel_type(%x: tensor<2x3xf16>, %w: tensor<3x4xbf16>) {
  // expected-error @+1 {{'rnn.project' op operand #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<2x3xf16>'}}
  %0 = rnn.project %x kernel(%w) : tensor<2x3xf16>, tensor<3x4xbf16> -> tensor<2x4xf16>
  return
}

// -----

func.func @negative_project_f32_kernel_bf16_input(%x: tensor<2x3xbf16>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'rnn.project' op expects a kernel of the input's element type 'bf16' (or, with f32 input, bf16 or int8), got 'f32'}}
  %0 = rnn.project %x kernel(%w) : tensor<2x3xbf16>, tensor<3x4xf32> -> tensor<2x4xbf16>
  return
}

// -----

/// overlap_rows (a batch-1 scan computing its input projection beside the
/// recurrence): what its lowering relies on.
func.func @negative_overlap_rows_power_of_two(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x32x16xf32>, tensor<16x64xf32> -> tensor<1x32x64xf32>
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' to be a power of two of at least 2, got 3}}
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 3 : i64} : tensor<1x32x64xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %gt: tensor<1x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

func.func @negative_overlap_rows_batch(%x: tensor<2x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<2x32x16xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<2x32x16xf32>, tensor<16x64xf32> -> tensor<2x32x64xf32>
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' only on one batch dim of one row}}
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<2x32x64xf32> -> tensor<2x32x16xf32> {
  ^bb0(%c: tensor<2x16xf32>, %h: tensor<2x16xf32>, %gt: tensor<2x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input : tensor<2x64xf32>, tensor<2x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<2x16xf32>, tensor<2x16xf32>) output(%h1 : tensor<2x16xf32>)
  }
  return %y : tensor<2x32x16xf32>
}

// -----

func.func @negative_overlap_rows_unroll(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x32x16xf32>, tensor<16x64xf32> -> tensor<1x32x64xf32>
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' only with static steps and 'unroll' 1, got unroll 2}}
  %y = rnn.scan %p unroll 2 {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x64xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %gt: tensor<1x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

func.func @negative_overlap_rows_reversed(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x32x16xf32>, tensor<16x64xf32> -> tensor<1x32x64xf32>
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' with steps in order, not 'reverse' without 'lengths'}}
  %y = rnn.scan %p reverse {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x64xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %gt: tensor<1x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

/// No overlap of a bf16 projection: its ring would be rounded, and the
/// recurrent product, in a loop over k shared with the piece, would lose
/// the bf16 dot (vdpbf16ps).
func.func @negative_overlap_rows_bf16_compute(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xbf16>, %wh: tensor<16x64xbf16>) -> tensor<1x32x16xf32> {
  %p = rnn.project %x kernel(%wi) {compute_type = bf16} : tensor<1x32x16xf32>, tensor<16x64xbf16> -> tensor<1x32x64xf32>
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' only on the steps of an 'rnn.project' without 'compute_type' (a bf16 ring would round, and shared loops over k have no bf16 dot)}}
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x64xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %gt: tensor<1x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input {compute_type = bf16, carry_type = f32} : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xbf16>, tensor<16x64xbf16>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

func.func @negative_overlap_rows_not_projected(%x: tensor<1x32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x32x16xf32> {
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' only on the steps of an 'rnn.project' without 'dynamic_int8'}}
  %y = rnn.scan %x {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x16xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %gt: tensor<1x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) : tensor<1x16xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x32x16xf32>
}

// -----

func.func @negative_overlap_rows_groups(%x: tensor<1x12x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<1x12x16xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x12x16xf32>, tensor<16x64xf32> -> tensor<1x12x64xf32>
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' to divide the 12 steps into at least 4 groups, got 4}}
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x12x64xf32> -> tensor<1x12x16xf32> {
  ^bb0(%c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %gt: tensor<1x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  return %y : tensor<1x12x16xf32>
}

// -----

func.func @negative_overlap_rows_depth(%x: tensor<1x32x16xf32>, %wi: tensor<16x128xf32>, %wh: tensor<32x128xf32>) -> tensor<1x32x32xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x32x16xf32>, tensor<16x128xf32> -> tensor<1x32x128xf32>
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' with a cell whose input is projected and whose recurrent product has the projection's depth 16}}
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x128xf32> -> tensor<1x32x32xf32> {
  ^bb0(%c: tensor<1x32xf32>, %h: tensor<1x32xf32>, %gt: tensor<1x128xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x128xf32>, tensor<1x32xf32>, tensor<16x128xf32>, tensor<32x128xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x32xf32>, tensor<1x32xf32>) output(%h1 : tensor<1x32xf32>)
  }
  return %y : tensor<1x32x32xf32>
}

// -----

func.func @negative_overlap_rows_columns(%x: tensor<1x32x6xf32>, %wi: tensor<6x6xf32>, %wh: tensor<6x6xf32>) -> tensor<1x32x6xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x32x6xf32>, tensor<6x6xf32> -> tensor<1x32x6xf32>
  // expected-error @+1 {{'rnn.scan' op expects 'overlap_rows' to divide the projection's 6 columns, got 4}}
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x6xf32> -> tensor<1x32x6xf32> {
  ^bb0(%h: tensor<1x6xf32>, %gt: tensor<1x6xf32>):
    %h1 = rnn.simple_cell(%gt, %h) kernels(%wi, %wh) projected_input : tensor<1x6xf32>, tensor<1x6xf32>, tensor<6x6xf32>, tensor<6x6xf32>
    rnn.yield carry(%h1 : tensor<1x6xf32>) output(%h1 : tensor<1x6xf32>)
  }
  return %y : tensor<1x32x6xf32>
}

// -----

/// rnn.project_piece: a block of a projection written into a ring of rows.
func.func @negative_project_piece_rank(%x: tensor<1x32x16xf32>, %w: tensor<16x64xf32>, %ring: tensor<8x64xf32>, %i: index) {
  // expected-error @+1 {{'rnn.project_piece' op expects a matrix input, kernel and ring, got ranks 3, 2 and 2}}
  %0 = rnn.project_piece %x[%i] kernel(%w)[%i] into %ring[%i] rows 4 width 16 : tensor<1x32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @negative_project_piece_depth(%x: tensor<32x8xf32>, %w: tensor<16x64xf32>, %ring: tensor<8x64xf32>, %i: index) {
  // expected-error @+1 {{'rnn.project_piece' op expects a kernel of 8 rows (the input's features), got 16}}
  %0 = rnn.project_piece %x[%i] kernel(%w)[%i] into %ring[%i] rows 4 width 16 : tensor<32x8xf32>, tensor<16x64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @negative_project_piece_ring(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %ring: tensor<8x32xf32>, %i: index) {
  // expected-error @+1 {{'rnn.project_piece' op expects a ring of the kernel's 64 columns of the input's element type 'f32', got 'tensor<8x32xf32>'}}
  %0 = rnn.project_piece %x[%i] kernel(%w)[%i] into %ring[%i] rows 4 width 16 : tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x32xf32>
  return
}

// -----

func.func @negative_project_piece_block(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %ring: tensor<8x64xf32>, %i: index) {
  // expected-error @+1 {{'rnn.project_piece' op expects a block of at most the input's and the ring's rows and of a width dividing the 64 columns, got 4 x 24}}
  %0 = rnn.project_piece %x[%i] kernel(%w)[%i] into %ring[%i] rows 4 width 24 : tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @negative_project_piece_kernel_type(%x: tensor<32x16xf16>, %w: tensor<16x64xbf16>, %ring: tensor<8x64xf16>, %i: index) {
  // expected-error @+1 {{'rnn.project_piece' op operand #0 must be statically shaped activation tensor of 32-bit float or bfloat16 type values, but got 'tensor<32x16xf16>'}}
  %0 = rnn.project_piece %x[%i] kernel(%w)[%i] into %ring[%i] rows 4 width 16 : tensor<32x16xf16>, tensor<16x64xbf16>, tensor<8x64xf16>
  return
}

// -----

func.func @negative_project_piece_f32_kernel_bf16_input(%x: tensor<32x16xbf16>, %w: tensor<16x64xf32>, %ring: tensor<8x64xbf16>, %i: index) {
  // expected-error @+1 {{'rnn.project_piece' op expects a kernel of the input's element type 'bf16' (or, with f32 input, bf16 or int8), got 'f32'}}
  %0 = rnn.project_piece %x[%i] kernel(%w)[%i] into %ring[%i] rows 4 width 16 : tensor<32x16xbf16>, tensor<16x64xf32>, tensor<8x64xbf16>
  return
}

// -----

func.func @negative_project_piece_beside_not_cell(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %ring: tensor<8x64xf32>, %i: index, %h: tensor<1x16xf32>) {
  // expected-error @+1 {{'rnn.project_piece' op expects 'beside' to be a result of a cell with a projected input and without 'dynamic_int8'}}
  %0 = rnn.project_piece %x[%i] kernel(%w)[%i] into %ring[%i] rows 4 width 16 beside(%h : tensor<1x16xf32>) : tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @negative_project_piece_beside_depth(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %ring: tensor<8x64xf32>, %i: index, %g: tensor<1x32xf32>, %c: tensor<1x8xf32>, %h: tensor<1x8xf32>, %wh: tensor<8x32xf32>, %wi: tensor<16x32xf32>) {
  %c1, %h1 = rnn.lstm_cell(%g, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x32xf32>, tensor<1x8xf32>, tensor<16x32xf32>, tensor<8x32xf32>
  // expected-error @+1 {{'rnn.project_piece' op expects 'beside' of a cell whose recurrent product has the piece's depth 16, got 8}}
  %0 = rnn.project_piece %x[%i] kernel(%w)[%i] into %ring[%i] rows 4 width 16 beside(%h1 : tensor<1x8xf32>) : tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>
  return
}
