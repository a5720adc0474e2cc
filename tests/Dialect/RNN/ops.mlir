// RUN: rnn-opt %s | rnn-opt | FileCheck %s
// RUN: rnn-opt %s --mlir-print-op-generic | rnn-opt | FileCheck %s

/// Every cell kind, with and without biases and non-default attributes.

// CHECK-LABEL: func.func @lstm_cell_hidden_bias
func.func @lstm_cell_hidden_bias(%x: tensor<8x40xf32>, %c: tensor<8x64xf32>, %h: tensor<8x64xf32>,
    %wi: tensor<40x256xf32>, %wh: tensor<64x256xf32>, %bh: tensor<256xf32>) -> tensor<8x64xf32> {
  // CHECK: %{{.*}}, %[[H:.*]] = rnn.lstm_cell(%{{.*}}, %{{.*}}, %{{.*}}) kernels(%{{.*}}, %{{.*}}) hidden_bias(%{{.*}} : tensor<256xf32>) : tensor<8x40xf32>, tensor<8x64xf32>, tensor<40x256xf32>, tensor<64x256xf32>
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) hidden_bias(%bh : tensor<256xf32>)
      : tensor<8x40xf32>, tensor<8x64xf32>, tensor<40x256xf32>, tensor<64x256xf32>
  return %h1 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @lstm_cell_unbatched_custom_activations
func.func @lstm_cell_unbatched_custom_activations(%x: tensor<3xf32>, %c: tensor<4xf32>, %h: tensor<4xf32>,
    %wi: tensor<3x16xf32>, %wh: tensor<4x16xf32>) -> tensor<4xf32> {
  // CHECK: rnn.lstm_cell{{.*}} gate_fn<relu> activation_fn<elu> : tensor<3xf32>, tensor<4xf32>
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) gate_fn<relu> activation_fn<elu>
      : tensor<3xf32>, tensor<4xf32>, tensor<3x16xf32>, tensor<4x16xf32>
  return %h1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @gru_cell_linen_and_nnx
func.func @gru_cell_linen_and_nnx(%x: tensor<2x3x5xf32>, %h: tensor<2x3x6xf32>,
    %wi: tensor<5x18xf32>, %wh: tensor<6x18xf32>, %bi: tensor<18xf32>, %bh: tensor<18xf32>) -> (tensor<2x3x6xf32>, tensor<2x3x6xf32>) {
  // CHECK: rnn.gru_cell({{.*}}) kernels({{.*}}) input_bias({{.*}} : tensor<18xf32>) hidden_bias({{.*}} : tensor<18xf32>) : tensor<2x3x5xf32>, tensor<2x3x6xf32>
  %linen = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<18xf32>) hidden_bias(%bh : tensor<18xf32>)
      : tensor<2x3x5xf32>, tensor<2x3x6xf32>, tensor<5x18xf32>, tensor<6x18xf32>
  // CHECK: rnn.gru_cell({{.*}}) kernels({{.*}}) input_bias({{.*}} : tensor<18xf32>) gate_fn<hard_sigmoid> activation_fn<hard_tanh> :
  %nnx = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<18xf32>) gate_fn<hard_sigmoid> activation_fn<hard_tanh>
      : tensor<2x3x5xf32>, tensor<2x3x6xf32>, tensor<5x18xf32>, tensor<6x18xf32>
  return %linen, %nnx : tensor<2x3x6xf32>, tensor<2x3x6xf32>
}

// CHECK-LABEL: func.func @mgu_cell_with_and_without_reset_gate
func.func @mgu_cell_with_and_without_reset_gate(%x: tensor<4x5xf32>, %h: tensor<4x6xf32>,
    %wi: tensor<5x12xf32>, %wh: tensor<6x12xf32>, %bi: tensor<12xf32>, %bh: tensor<12xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  // CHECK: rnn.mgu_cell({{.*}}) hidden_bias({{.*}}) activation_fn<silu> :
  %a = rnn.mgu_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<12xf32>) hidden_bias(%bh : tensor<12xf32>) activation_fn<silu>
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x12xf32>, tensor<6x12xf32>
  // CHECK: rnn.mgu_cell({{.*}}) {reset_gate = false} :
  %b = rnn.mgu_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<12xf32>) {reset_gate = false}
      : tensor<4x5xf32>, tensor<4x6xf32>, tensor<5x12xf32>, tensor<6x12xf32>
  return %a, %b : tensor<4x6xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: func.func @simple_cell_residual
func.func @simple_cell_residual(%x: tensor<4x6xf32>, %h: tensor<4x6xf32>,
    %wi: tensor<6x6xf32>, %wh: tensor<6x6xf32>, %bi: tensor<6xf32>) -> tensor<4x6xf32> {
  // CHECK: rnn.simple_cell({{.*}}) input_bias({{.*}} : tensor<6xf32>) activation_fn<identity> residual :
  %h1 = rnn.simple_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<6xf32>) activation_fn<identity> residual
      : tensor<4x6xf32>, tensor<4x6xf32>, tensor<6x6xf32>, tensor<6x6xf32>
  return %h1 : tensor<4x6xf32>
}

/// bf16 params (param_dtype: bfloat16) with f32 activations.
// CHECK-LABEL: func.func @lstm_cell_bf16_params
func.func @lstm_cell_bf16_params(%x: tensor<8x40xf32>, %c: tensor<8x64xf32>, %h: tensor<8x64xf32>,
    %wi: tensor<40x256xbf16>, %wh: tensor<64x256xbf16>, %bh: tensor<256xbf16>) -> tensor<8x64xf32> {
  // CHECK: rnn.lstm_cell({{.*}}) kernels({{.*}}) hidden_bias({{.*}} : tensor<256xbf16>) : tensor<8x40xf32>, tensor<8x64xf32>, tensor<40x256xbf16>, tensor<64x256xbf16>
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) hidden_bias(%bh : tensor<256xbf16>)
      : tensor<8x40xf32>, tensor<8x64xf32>, tensor<40x256xbf16>, tensor<64x256xbf16>
  return %h1 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @gru_cell_bf16_params
func.func @gru_cell_bf16_params(%x: tensor<5xf32>, %h: tensor<6xf32>,
    %wi: tensor<5x18xbf16>, %wh: tensor<6x18xbf16>, %bi: tensor<18xbf16>) -> tensor<6xf32> {
  // CHECK: rnn.gru_cell({{.*}}) kernels({{.*}}) input_bias({{.*}} : tensor<18xbf16>) : tensor<5xf32>, tensor<6xf32>, tensor<5x18xbf16>, tensor<6x18xbf16>
  %h1 = rnn.gru_cell(%x, %h) kernels(%wi, %wh) input_bias(%bi : tensor<18xbf16>)
      : tensor<5xf32>, tensor<6xf32>, tensor<5x18xbf16>, tensor<6x18xbf16>
  return %h1 : tensor<6xf32>
}

/// int8 kernels (quantize: {weights: int8}): quant's per-axis type, one
/// scale per column, with f32 activations and biases.
// CHECK-LABEL: func.func @lstm_cell_int8_kernels
func.func @lstm_cell_int8_kernels(%x: tensor<3x2xf32>, %c: tensor<3x1xf32>, %h: tensor<3x1xf32>,
    %wi: tensor<2x4x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>>,
    %wh: tensor<1x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,0.125,3.0}>>, %bh: tensor<4xf32>) -> tensor<3x1xf32> {
  // CHECK: rnn.lstm_cell({{.*}}) kernels({{.*}}) hidden_bias({{.*}} : tensor<4xf32>) : tensor<3x2xf32>, tensor<3x1xf32>, tensor<2x4x!quant.uniform<i8<-127:127>:f32:1, {5.000000e-01,2.500000e-01,1.000000e+00,2.000000e+00}>>, tensor<1x4x!quant.uniform<i8<-127:127>:f32:1, {1.000000e+00,1.000000e+00,1.250000e-01,3.000000e+00}>>
  %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh) hidden_bias(%bh : tensor<4xf32>)
      : tensor<3x2xf32>, tensor<3x1xf32>, tensor<2x4x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>>, tensor<1x4x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,0.125,3.0}>>
  return %h1 : tensor<3x1xf32>
}

// CHECK-LABEL: func.func @dense_int8_kernel
func.func @dense_int8_kernel(%x: tensor<4x3xf32>, %k: tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>>, %b: tensor<2xf32>) -> tensor<4x2xf32> {
  // CHECK: rnn.dense %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<2xf32>) : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {5.000000e-01,2.500000e-01}>> -> tensor<4x2xf32>
  %d = rnn.dense %x, %k bias(%b : tensor<2xf32>) : tensor<4x3xf32>, tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25}>> -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @conv_lstm_cell_2d
func.func @conv_lstm_cell_2d(%x: tensor<2x8x8x3xf32>, %c: tensor<2x8x8x6xf32>, %h: tensor<2x8x8x6xf32>,
    %wi: tensor<3x3x3x24xf32>, %wh: tensor<3x3x6x24xf32>, %bi: tensor<24xf32>, %bh: tensor<24xf32>) -> tensor<2x8x8x6xf32> {
  // CHECK: rnn.conv_lstm_cell({{.*}}) kernels({{.*}}) input_bias({{.*}}) hidden_bias({{.*}}) : tensor<2x8x8x3xf32>, tensor<2x8x8x6xf32>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf32>
  %c1, %h1 = rnn.conv_lstm_cell(%x, %c, %h) kernels(%wi, %wh) input_bias(%bi : tensor<24xf32>) hidden_bias(%bh : tensor<24xf32>)
      : tensor<2x8x8x3xf32>, tensor<2x8x8x6xf32>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf32>
  return %h1 : tensor<2x8x8x6xf32>
}

/// The stacked model of the foundation issue: a bidirectional LSTM/GRU
/// layer feeding a GRU layer with seq_lengths and return_carry.

// CHECK-LABEL: func.func @stacked_bidirectional_then_gru
func.func @stacked_bidirectional_then_gru(%x: tensor<8x20x16xf32>, %len: tensor<8xi32>,
    %wi: tensor<16x128xf32>, %wh: tensor<32x128xf32>, %bh: tensor<128xf32>,
    %gwi: tensor<16x96xf32>, %gbi: tensor<96xf32>, %gwh: tensor<32x96xf32>,
    %dwi: tensor<64x72xf32>, %dbi: tensor<72xf32>, %dwh: tensor<24x72xf32>, %dbh: tensor<72xf32>)
    -> (tensor<8x20x24xf32>, tensor<8x24xf32>, tensor<8x32xf32>) {
  // CHECK: %[[Y:.*]], %{{.*}}:2, %{{.*}} = rnn.bidirectional %{{.*}} lengths(%{{.*}} : tensor<8xi32>) merge<concat> {num_batch_dims = 1 : i64} : tensor<8x20x16xf32> -> tensor<8x20x64xf32> carries(tensor<8x32xf32>, tensor<8x32xf32>) (tensor<8x32xf32>) forward {
  // CHECK: rnn.lstm_cell
  // CHECK: rnn.yield carry(%{{.*}}, %{{.*}} : tensor<8x32xf32>, tensor<8x32xf32>) output(%{{.*}} : tensor<8x32xf32>)
  // CHECK: } backward {
  // CHECK: rnn.gru_cell
  %y, %fc, %fh, %bwd_h = rnn.bidirectional %x lengths(%len : tensor<8xi32>) merge<concat> {num_batch_dims = 1 : i64}
      : tensor<8x20x16xf32> -> tensor<8x20x64xf32> carries(tensor<8x32xf32>, tensor<8x32xf32>)(tensor<8x32xf32>)
  forward {
  ^bb0(%c: tensor<8x32xf32>, %h: tensor<8x32xf32>, %xt: tensor<8x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) hidden_bias(%bh : tensor<128xf32>)
        : tensor<8x16xf32>, tensor<8x32xf32>, tensor<16x128xf32>, tensor<32x128xf32>
    rnn.yield carry(%c1, %h1 : tensor<8x32xf32>, tensor<8x32xf32>) output(%h1 : tensor<8x32xf32>)
  } backward {
  ^bb0(%h: tensor<8x32xf32>, %xt: tensor<8x16xf32>):
    %h1 = rnn.gru_cell(%xt, %h) kernels(%gwi, %gwh) input_bias(%gbi : tensor<96xf32>)
        : tensor<8x16xf32>, tensor<8x32xf32>, tensor<16x96xf32>, tensor<32x96xf32>
    rnn.yield carry(%h1 : tensor<8x32xf32>) output(%h1 : tensor<8x32xf32>)
  }
  // CHECK: rnn.scan %[[Y]] lengths(%{{.*}} : tensor<8xi32>) unroll 4 {num_batch_dims = 1 : i64} : tensor<8x20x64xf32> -> tensor<8x20x24xf32>, tensor<8x24xf32> {
  %y2, %hT = rnn.scan %y lengths(%len : tensor<8xi32>) unroll 4 {num_batch_dims = 1 : i64}
      : tensor<8x20x64xf32> -> tensor<8x20x24xf32>, tensor<8x24xf32> {
  ^bb0(%h: tensor<8x24xf32>, %xt: tensor<8x64xf32>):
    %h1 = rnn.gru_cell(%xt, %h) kernels(%dwi, %dwh) input_bias(%dbi : tensor<72xf32>) hidden_bias(%dbh : tensor<72xf32>)
        : tensor<8x64xf32>, tensor<8x24xf32>, tensor<64x72xf32>, tensor<24x72xf32>
    rnn.yield carry(%h1 : tensor<8x24xf32>) output(%h1 : tensor<8x24xf32>)
  }
  return %y2, %hT, %bwd_h : tensor<8x20x24xf32>, tensor<8x24xf32>, tensor<8x32xf32>
}

/// Scan options: time-major, two batch dims, an initial carry, reverse with
/// keep_order, zero padded outputs; and an unbatched scan.

// CHECK-LABEL: func.func @scan_time_major_two_batch_dims
func.func @scan_time_major_two_batch_dims(%x: tensor<7x2x3x5xf32>, %len: tensor<2x3xi32>, %h0: tensor<2x3x6xf32>,
    %wi: tensor<5x6xf32>, %wh: tensor<6x6xf32>) -> tensor<7x2x3x6xf32> {
  // CHECK: rnn.scan %{{.*}} lengths(%{{.*}} : tensor<2x3xi32>) init(%{{.*}} : tensor<2x3x6xf32>) time_major reverse keep_order zero_padded_outputs {num_batch_dims = 2 : i64} : tensor<7x2x3x5xf32> -> tensor<7x2x3x6xf32> {
  %y = rnn.scan %x lengths(%len : tensor<2x3xi32>) init(%h0 : tensor<2x3x6xf32>) time_major reverse keep_order zero_padded_outputs
      {num_batch_dims = 2 : i64} : tensor<7x2x3x5xf32> -> tensor<7x2x3x6xf32> {
  ^bb0(%h: tensor<2x3x6xf32>, %xt: tensor<2x3x5xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<2x3x5xf32>, tensor<2x3x6xf32>, tensor<5x6xf32>, tensor<6x6xf32>
    rnn.yield carry(%h1 : tensor<2x3x6xf32>) output(%h1 : tensor<2x3x6xf32>)
  }
  return %y : tensor<7x2x3x6xf32>
}

// CHECK-LABEL: func.func @scan_unbatched
func.func @scan_unbatched(%x: tensor<9x5xf32>, %wi: tensor<5x6xf32>, %wh: tensor<6x6xf32>) -> tensor<9x6xf32> {
  // CHECK: rnn.scan %{{.*}} unroll 9 {num_batch_dims = 0 : i64} : tensor<9x5xf32> -> tensor<9x6xf32>
  %y = rnn.scan %x unroll 9 {num_batch_dims = 0 : i64} : tensor<9x5xf32> -> tensor<9x6xf32> {
  ^bb0(%h: tensor<6xf32>, %xt: tensor<5xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<5xf32>, tensor<6xf32>, tensor<5x6xf32>, tensor<6x6xf32>
    rnn.yield carry(%h1 : tensor<6xf32>) output(%h1 : tensor<6xf32>)
  }
  return %y : tensor<9x6xf32>
}

// CHECK-LABEL: func.func @scan_conv_lstm_frames
func.func @scan_conv_lstm_frames(%x: tensor<2x5x8x8x3xf32>, %wi: tensor<3x3x3x24xf32>, %wh: tensor<3x3x6x24xf32>)
    -> tensor<2x5x8x8x6xf32> {
  // CHECK: rnn.scan %{{.*}} {num_batch_dims = 1 : i64} : tensor<2x5x8x8x3xf32> -> tensor<2x5x8x8x6xf32>
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<2x5x8x8x3xf32> -> tensor<2x5x8x8x6xf32> {
  ^bb0(%c: tensor<2x8x8x6xf32>, %h: tensor<2x8x8x6xf32>, %xt: tensor<2x8x8x3xf32>):
    %c1, %h1 = rnn.conv_lstm_cell(%xt, %c, %h) kernels(%wi, %wh)
        : tensor<2x8x8x3xf32>, tensor<2x8x8x6xf32>, tensor<3x3x3x24xf32>, tensor<3x3x6x24xf32>
    rnn.yield carry(%c1, %h1 : tensor<2x8x8x6xf32>, tensor<2x8x8x6xf32>) output(%h1 : tensor<2x8x8x6xf32>)
  }
  return %y : tensor<2x5x8x8x6xf32>
}

// CHECK-LABEL: func.func @bidirectional_mean_with_initial_carries
func.func @bidirectional_mean_with_initial_carries(%x: tensor<4x6x3xf32>, %h0: tensor<4x5xf32>, %g0: tensor<4x5xf32>,
    %wi: tensor<3x5xf32>, %wh: tensor<5x5xf32>) -> tensor<4x6x5xf32> {
  // CHECK: rnn.bidirectional %{{.*}} forward_init(%{{.*}} : tensor<4x5xf32>) backward_init(%{{.*}} : tensor<4x5xf32>) merge<mean> {backward_unroll = 3 : i64, num_batch_dims = 1 : i64} : tensor<4x6x3xf32> -> tensor<4x6x5xf32> forward
  %y = rnn.bidirectional %x forward_init(%h0 : tensor<4x5xf32>) backward_init(%g0 : tensor<4x5xf32>) merge<mean>
      {num_batch_dims = 1 : i64, backward_unroll = 3 : i64} : tensor<4x6x3xf32> -> tensor<4x6x5xf32>
  forward {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<4x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<4x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5x5xf32>
    rnn.yield carry(%h1 : tensor<4x5xf32>) output(%h1 : tensor<4x5xf32>)
  } backward {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<4x3xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%wi, %wh) : tensor<4x3xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<5x5xf32>
    rnn.yield carry(%h1 : tensor<4x5xf32>) output(%h1 : tensor<4x5xf32>)
  }
  return %y : tensor<4x6x5xf32>
}

/// Sequence utilities.

// CHECK-LABEL: func.func @sequence_utilities
func.func @sequence_utilities(%x: tensor<4x6x3xf32>, %t: tensor<6x4x3xf32>, %len: tensor<4xi32>,
    %stack: tensor<6x4x5xf32>, %init: tensor<4x5xf32>) -> (tensor<4x6x3xf32>, tensor<6x4x3xf32>, tensor<4x5xf32>, tensor<4x6x6xf32>, tensor<4x6x3xf32>) {
  // CHECK: rnn.flip_sequences %{{.*}} lengths(%{{.*}} : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  %a = rnn.flip_sequences %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  // CHECK: rnn.flip_sequences %{{.*}} time_major {num_batch_dims = 1 : i64} : tensor<6x4x3xf32>
  %b = rnn.flip_sequences %t time_major {num_batch_dims = 1 : i64} : tensor<6x4x3xf32>
  // CHECK: rnn.select_last_carry %{{.*}}, %{{.*}}, %{{.*}} : tensor<6x4x5xf32>, tensor<4xi32>, tensor<4x5xf32>
  %c = rnn.select_last_carry %stack, %len, %init : tensor<6x4x5xf32>, tensor<4xi32>, tensor<4x5xf32>
  // CHECK: rnn.merge <concat> %{{.*}}, %{{.*}} : tensor<4x6x3xf32>, tensor<4x6x3xf32> -> tensor<4x6x6xf32>
  %d = rnn.merge <concat> %x, %a : tensor<4x6x3xf32>, tensor<4x6x3xf32> -> tensor<4x6x6xf32>
  // CHECK: rnn.merge <mul> %{{.*}}, %{{.*}} : tensor<4x6x3xf32>, tensor<4x6x3xf32> -> tensor<4x6x3xf32>
  %e = rnn.merge <mul> %x, %a : tensor<4x6x3xf32>, tensor<4x6x3xf32> -> tensor<4x6x3xf32>
  return %a, %b, %c, %d, %e : tensor<4x6x3xf32>, tensor<6x4x3xf32>, tensor<4x5xf32>, tensor<4x6x6xf32>, tensor<4x6x3xf32>
}

/// The layers around the recurrence.

// CHECK-LABEL: func.func @layers
func.func @layers(%ids: tensor<4x6xi32>, %table: tensor<10x3xf32>, %len: tensor<4xi32>,
    %k: tensor<3x2xf32>, %b: tensor<2xf32>, %s: tensor<3xf32>) -> (tensor<4x2xf32>, tensor<4x6x3xf32>, tensor<4x3xf32>) {
  // CHECK: rnn.embed %{{.*}}, %{{.*}} : tensor<4x6xi32>, tensor<10x3xf32> -> tensor<4x6x3xf32>
  %e = rnn.embed %ids, %table : tensor<4x6xi32>, tensor<10x3xf32> -> tensor<4x6x3xf32>
  // CHECK: rnn.layer_norm %{{.*}} scale(%{{.*}} : tensor<3xf32>) bias(%{{.*}} : tensor<3xf32>) epsilon {{.*}} : tensor<4x6x3xf32>
  %n = rnn.layer_norm %e scale(%s : tensor<3xf32>) bias(%s : tensor<3xf32>) epsilon 1.0e-06 : tensor<4x6x3xf32>
  // CHECK: rnn.layer_norm %{{.*}} epsilon 1.000000e-03 : tensor<4x6x3xf32>
  %n2 = rnn.layer_norm %n epsilon 1.0e-03 : tensor<4x6x3xf32>
  // CHECK: rnn.activation <gelu_exact> %{{.*}} : tensor<4x6x3xf32>
  %a = rnn.activation <gelu_exact> %n2 : tensor<4x6x3xf32>
  // CHECK: rnn.pool <mean> %{{.*}} lengths(%{{.*}} : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32> -> tensor<4x3xf32>
  %p = rnn.pool <mean> %a lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32> -> tensor<4x3xf32>
  // CHECK: rnn.dense %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<2xf32>) activation <softmax> : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %d = rnn.dense %p, %k bias(%b : tensor<2xf32>) activation <softmax> : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  // CHECK: rnn.dense %{{.*}}, %{{.*}} : tensor<4x6x3xf32>, tensor<3x2xf32> -> tensor<4x6x2xf32>
  %d2 = rnn.dense %a, %k : tensor<4x6x3xf32>, tensor<3x2xf32> -> tensor<4x6x2xf32>
  return %d, %a, %p : tensor<4x2xf32>, tensor<4x6x3xf32>, tensor<4x3xf32>
}

// CHECK-LABEL: func.func @pool_time_major
func.func @pool_time_major(%y: tensor<6x2x4x5xf32>) -> tensor<2x4x5xf32> {
  // CHECK: rnn.pool <last> %{{.*}} time_major {num_batch_dims = 2 : i64} : tensor<6x2x4x5xf32> -> tensor<2x4x5xf32>
  %p = rnn.pool <last> %y time_major {num_batch_dims = 2 : i64} : tensor<6x2x4x5xf32> -> tensor<2x4x5xf32>
  return %p : tensor<2x4x5xf32>
}

/// A run-time number of steps (input.time: {max: N}).

// CHECK-LABEL: func.func @scan_runtime_steps
// CHECK: rnn.scan %{{.*}} init(%{{.*}} : tensor<2x4xf32>) steps(%{{.*}}) unroll 2 {num_batch_dims = 1 : i64} : tensor<2x9x3xf32> -> tensor<2x9x4xf32>, tensor<2x4xf32>
func.func @scan_runtime_steps(%x: tensor<2x9x3xf32>, %h0: tensor<2x4xf32>, %n: index,
    %wi: tensor<3x4xf32>, %wh: tensor<4x4xf32>) -> (tensor<2x9x4xf32>, tensor<2x4xf32>) {
  %y, %h = rnn.scan %x init(%h0 : tensor<2x4xf32>) steps(%n) unroll 2 {num_batch_dims = 1 : i64}
      : tensor<2x9x3xf32> -> tensor<2x9x4xf32>, tensor<2x4xf32> {
  ^bb0(%c: tensor<2x4xf32>, %xt: tensor<2x3xf32>):
    %c1 = rnn.simple_cell(%xt, %c) kernels(%wi, %wh) : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%c1 : tensor<2x4xf32>) output(%c1 : tensor<2x4xf32>)
  }
  return %y, %h : tensor<2x9x4xf32>, tensor<2x4xf32>
}

/// A run-time number of rows of the first batch dim (input.batch: [{max: N}]),
/// with and without run-time steps.

// CHECK-LABEL: func.func @scan_runtime_rows
// CHECK: rnn.scan %{{.*}} steps(%{{.*}}) rows(%{{.*}}) {num_batch_dims = 1 : i64}
// CHECK: rnn.scan %{{.*}} rows(%{{.*}}) time_major {num_batch_dims = 2 : i64}
func.func @scan_runtime_rows(%x: tensor<8x4x5xf32>, %xt: tensor<4x8x2x5xf32>, %n: index, %r: index) {
  %0 = rnn.scan %x steps(%n) rows(%r) {num_batch_dims = 1 : i64} : tensor<8x4x5xf32> -> tensor<8x4x5xf32> {
  ^bb0(%h: tensor<8x5xf32>, %s: tensor<8x5xf32>):
    rnn.yield carry(%h : tensor<8x5xf32>) output(%h : tensor<8x5xf32>)
  }
  %1 = rnn.scan %xt rows(%r) time_major {num_batch_dims = 2 : i64} : tensor<4x8x2x5xf32> -> tensor<4x8x2x5xf32> {
  ^bb0(%h: tensor<8x2x5xf32>, %s: tensor<8x2x5xf32>):
    rnn.yield carry(%h : tensor<8x2x5xf32>) output(%h : tensor<8x2x5xf32>)
  }
  return
}

/// The first product reads column block %b (16 columns) of its weights.
// CHECK-LABEL: func.func @shared_k_matmuls
// CHECK-SAME: %[[B:[a-z0-9]+]]: index
// CHECK: %{{.*}}, %{{.*}} = rnn.shared_k_matmuls ins(%{{.*}}, %{{.*}}[%[[B]]] : tensor<4x16xf32>, tensor<16x64xbf16>) outs(%{{.*}} : tensor<4x16xf32>), ins(%{{.*}}, %{{.*}} : tensor<1x16xf32>, tensor<16x64xbf16>) outs(%{{.*}} : tensor<1x64xf32>)
func.func @shared_k_matmuls(%x: tensor<4x16xf32>, %wi: tensor<16x64xbf16>, %p: tensor<4x16xf32>, %h: tensor<1x16xf32>, %wh: tensor<16x64xbf16>, %g: tensor<1x64xf32>, %b: index) -> (tensor<4x16xf32>, tensor<1x64xf32>) {
  %0:2 = rnn.shared_k_matmuls ins(%x, %wi[%b] : tensor<4x16xf32>, tensor<16x64xbf16>) outs(%p : tensor<4x16xf32>), ins(%h, %wh : tensor<1x16xf32>, tensor<16x64xbf16>) outs(%g : tensor<1x64xf32>)
  return %0#0, %0#1 : tensor<4x16xf32>, tensor<1x64xf32>
}

/// rnn.project: a cell's input-side product on every row of a sequence
/// (f32, bf16 params, int8 kernels with dynamic int8 activations, bf16
/// compute), and a scan whose cell takes steps of it as its input
/// (projected_input).

// CHECK-LABEL: func.func @project
// CHECK: rnn.project %{{.*}} kernel(%{{.*}}) : tensor<2x9x3xf32>, tensor<3x12xf32> -> tensor<2x9x12xf32>
// CHECK: rnn.project %{{.*}} kernel(%{{.*}}) : tensor<3xf32>, tensor<3x12xbf16> -> tensor<12xf32>
// CHECK: rnn.project %{{.*}} kernel(%{{.*}}) {compute_type = bf16} : tensor<3xf32>, tensor<3x12xbf16> -> tensor<12xf32>
// CHECK: rnn.project %{{.*}} kernel(%{{.*}}) dynamic_int8 : tensor<9x2x2xf32>, tensor<2x4x!quant.uniform<i8<-127:127>:f32:1, {5.000000e-01,2.500000e-01,1.000000e+00,2.000000e+00}>> -> tensor<9x2x4xf32>
// CHECK: rnn.scan %{{.*}} : tensor<2x9x12xf32> -> tensor<2x9x4xf32> {
// CHECK: rnn.gru_cell(%{{.*}}, %{{.*}}) kernels(%{{.*}}, %{{.*}}) projected_input : tensor<2x12xf32>, tensor<2x4xf32>, tensor<3x12xf32>, tensor<4x12xf32>
func.func @project(%x: tensor<2x9x3xf32>, %wi: tensor<3x12xf32>, %wh: tensor<4x12xf32>, %row: tensor<3xf32>, %wb: tensor<3x12xbf16>,
    %xq: tensor<9x2x2xf32>, %wq: tensor<2x4x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>>) -> tensor<2x9x4xf32> {
  %gx = rnn.project %x kernel(%wi) : tensor<2x9x3xf32>, tensor<3x12xf32> -> tensor<2x9x12xf32>
  %g1 = rnn.project %row kernel(%wb) : tensor<3xf32>, tensor<3x12xbf16> -> tensor<12xf32>
  %gc = rnn.project %row kernel(%wb) {compute_type = bf16} : tensor<3xf32>, tensor<3x12xbf16> -> tensor<12xf32>
  %gq = rnn.project %xq kernel(%wq) dynamic_int8 : tensor<9x2x2xf32>, tensor<2x4x!quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>> -> tensor<9x2x4xf32>
  %y = rnn.scan %gx {num_batch_dims = 1 : i64} : tensor<2x9x12xf32> -> tensor<2x9x4xf32> {
  ^bb0(%h: tensor<2x4xf32>, %gt: tensor<2x12xf32>):
    %h1 = rnn.gru_cell(%gt, %h) kernels(%wi, %wh) projected_input : tensor<2x12xf32>, tensor<2x4xf32>, tensor<3x12xf32>, tensor<4x12xf32>
    rnn.yield carry(%h1 : tensor<2x4xf32>) output(%h1 : tensor<2x4xf32>)
  }
  return %y : tensor<2x9x4xf32>
}

/// A batch-1 scan that computes its input projection beside the recurrence
/// in groups of 4 rows (overlap_rows), and the pieces its lowering makes:
/// the first group on its own, then a piece beside a step's cell.

// CHECK-LABEL: func.func @overlap
// CHECK: rnn.scan %{{.*}} {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x64xf32> -> tensor<1x32x16xf32>
// CHECK: %[[RING:.*]] = rnn.project_piece %{{.*}}[%{{.*}}] kernel(%{{.*}}) [%{{.*}}] into %{{.*}}[%{{.*}}] rows 4 width 64 : tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>
// CHECK: %{{.*}}, %[[H1:.*]] = rnn.lstm_cell
// CHECK: rnn.project_piece %{{.*}}[%{{.*}}] kernel(%{{.*}}) [%{{.*}}] into %[[RING]][%{{.*}}] rows 4 width 16 beside(%[[H1]] : tensor<1x16xf32>) : tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>
func.func @overlap(%x: tensor<1x32x16xf32>, %rows: tensor<32x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>, %ring: tensor<8x64xf32>,
    %g: tensor<1x64xf32>, %c: tensor<1x16xf32>, %h: tensor<1x16xf32>, %i: index) -> tensor<1x32x16xf32> {
  %p = rnn.project %x kernel(%wi) : tensor<1x32x16xf32>, tensor<16x64xf32> -> tensor<1x32x64xf32>
  %y = rnn.scan %p {num_batch_dims = 1 : i64, overlap_rows = 4 : i64} : tensor<1x32x64xf32> -> tensor<1x32x16xf32> {
  ^bb0(%c0: tensor<1x16xf32>, %h0: tensor<1x16xf32>, %gt: tensor<1x64xf32>):
    %c1, %h1 = rnn.lstm_cell(%gt, %c0, %h0) kernels(%wi, %wh) projected_input : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<1x16xf32>, tensor<1x16xf32>) output(%h1 : tensor<1x16xf32>)
  }
  %first = rnn.project_piece %rows[%i] kernel(%wi)[%i] into %ring[%i] rows 4 width 64 : tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>
  %c1, %h1 = rnn.lstm_cell(%g, %c, %h) kernels(%wi, %wh) projected_input : tensor<1x64xf32>, tensor<1x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
  %next = rnn.project_piece %rows[%i] kernel(%wi)[%i] into %first[%i] rows 4 width 16 beside(%h1 : tensor<1x16xf32>) : tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>
  return %y : tensor<1x32x16xf32>
}
