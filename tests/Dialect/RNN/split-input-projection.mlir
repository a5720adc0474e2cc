// RUN: rnn-opt %s --rnn-split-input-projection --split-input-file | FileCheck %s

/// The cell's input-side product becomes one rnn.project of the scan's
/// whole input before the scan, with the cell's kernel; the scan then
/// steps through the projection and the cell takes it as its input.

// CHECK-LABEL: func.func @lstm
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x16xf32>, %[[WI:[^:]+]]: tensor<16x64xf32>, %[[WH:[^:]+]]: tensor<16x64xf32>
// CHECK: %[[P:.*]] = rnn.project %[[X]] kernel(%[[WI]]) : tensor<2x3x16xf32>, tensor<16x64xf32> -> tensor<2x3x64xf32>
// CHECK: rnn.scan %[[P]] {num_batch_dims = 1 : i64} : tensor<2x3x64xf32> -> tensor<2x3x16xf32> {
// CHECK: ^bb0(%{{.*}}: tensor<2x16xf32>, %{{.*}}: tensor<2x16xf32>, %[[XT:.*]]: tensor<2x64xf32>):
// CHECK: rnn.lstm_cell(%[[XT]], %{{.*}}, %{{.*}}) kernels(%[[WI]], %[[WH]]) projected_input : tensor<2x64xf32>, tensor<2x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
func.func @lstm(%x: tensor<2x3x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>) -> tensor<2x3x16xf32> {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<2x3x16xf32> -> tensor<2x3x16xf32> {
  ^bb0(%c: tensor<2x16xf32>, %h: tensor<2x16xf32>, %xt: tensor<2x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) : tensor<2x16xf32>, tensor<2x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<2x16xf32>, tensor<2x16xf32>) output(%h1 : tensor<2x16xf32>)
  }
  return %y : tensor<2x3x16xf32>
}

// -----

/// Both directions of an expanded Bidirectional (the backward one reversed
/// with lengths: a row-wise product commutes with the flip) and a stacked
/// layer on their merge, time-major with two batch dims, unrolled.

// CHECK-LABEL: func.func @bidirectional_stack
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3x2x2x5xf32>, %[[LEN:[^:]+]]: tensor<2x2xi32>
// CHECK: %[[PF:.*]] = rnn.project %[[X]] kernel(%{{.*}}) : tensor<3x2x2x5xf32>, tensor<5x12xf32> -> tensor<3x2x2x12xf32>
// CHECK: %[[F:.*]] = rnn.scan %[[PF]] lengths(%[[LEN]] : tensor<2x2xi32>) time_major unroll 2
// CHECK: rnn.gru_cell({{.*}}) projected_input
// CHECK: %[[PB:.*]] = rnn.project %[[X]] kernel(%{{.*}}) : tensor<3x2x2x5xf32>, tensor<5x8xf32> -> tensor<3x2x2x8xf32>
// CHECK: %[[B:.*]] = rnn.scan %[[PB]] lengths(%[[LEN]] : tensor<2x2xi32>) time_major reverse keep_order
// CHECK: rnn.mgu_cell({{.*}}) projected_input
// CHECK: %[[M:.*]] = rnn.merge <concat> %[[F]], %[[B]]
// CHECK: %[[PS:.*]] = rnn.project %[[M]] kernel(%{{.*}}) : tensor<3x2x2x8xf32>, tensor<8x4xf32> -> tensor<3x2x2x4xf32>
// CHECK: rnn.scan %[[PS]]
// CHECK: rnn.simple_cell({{.*}}) projected_input
func.func @bidirectional_stack(%x: tensor<3x2x2x5xf32>, %len: tensor<2x2xi32>, %fwi: tensor<5x12xf32>, %fwh: tensor<4x12xf32>,
    %bwi: tensor<5x8xf32>, %bwh: tensor<4x8xf32>, %swi: tensor<8x4xf32>, %swh: tensor<4x4xf32>) -> tensor<3x2x2x4xf32> {
  %f = rnn.scan %x lengths(%len : tensor<2x2xi32>) time_major unroll 2 {num_batch_dims = 2 : i64} : tensor<3x2x2x5xf32> -> tensor<3x2x2x4xf32> {
  ^bb0(%h: tensor<2x2x4xf32>, %xt: tensor<2x2x5xf32>):
    %h1 = rnn.gru_cell(%xt, %h) kernels(%fwi, %fwh) : tensor<2x2x5xf32>, tensor<2x2x4xf32>, tensor<5x12xf32>, tensor<4x12xf32>
    rnn.yield carry(%h1 : tensor<2x2x4xf32>) output(%h1 : tensor<2x2x4xf32>)
  }
  %b = rnn.scan %x lengths(%len : tensor<2x2xi32>) time_major reverse keep_order {num_batch_dims = 2 : i64} : tensor<3x2x2x5xf32> -> tensor<3x2x2x4xf32> {
  ^bb0(%h: tensor<2x2x4xf32>, %xt: tensor<2x2x5xf32>):
    %h1 = rnn.mgu_cell(%xt, %h) kernels(%bwi, %bwh) : tensor<2x2x5xf32>, tensor<2x2x4xf32>, tensor<5x8xf32>, tensor<4x8xf32>
    rnn.yield carry(%h1 : tensor<2x2x4xf32>) output(%h1 : tensor<2x2x4xf32>)
  }
  %m = rnn.merge <concat> %f, %b : tensor<3x2x2x4xf32>, tensor<3x2x2x4xf32> -> tensor<3x2x2x8xf32>
  %s = rnn.scan %m time_major {num_batch_dims = 2 : i64} : tensor<3x2x2x8xf32> -> tensor<3x2x2x4xf32> {
  ^bb0(%h: tensor<2x2x4xf32>, %xt: tensor<2x2x8xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%swi, %swh) : tensor<2x2x8xf32>, tensor<2x2x4xf32>, tensor<8x4xf32>, tensor<4x4xf32>
    rnn.yield carry(%h1 : tensor<2x2x4xf32>) output(%h1 : tensor<2x2x4xf32>)
  }
  return %s : tensor<3x2x2x4xf32>
}

// -----

/// Run-time rows and steps keep their operands; dynamic int8 activations
/// go to the projection, the int8 kernel (and its scales) stays with the
/// cell as well.

// CHECK-LABEL: func.func @runtime_rows_steps_dynamic_int8
// CHECK: %[[P:.*]] = rnn.project %{{.*}} kernel(%{{.*}}) dynamic_int8 : tensor<4x6x3xf32>, tensor<3x8x!quant.uniform
// CHECK: rnn.scan %[[P]] steps(%{{.*}}) rows(%{{.*}}) {num_batch_dims = 1 : i64} : tensor<4x6x8xf32>
// CHECK: rnn.mgu_cell({{.*}}) projected_input {dynamic_int8} : tensor<4x8xf32>
func.func @runtime_rows_steps_dynamic_int8(%x: tensor<4x6x3xf32>, %n: index, %r: index,
    %wi: tensor<3x8x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,0.5,0.5,0.5,0.5}>>,
    %wh: tensor<4x8x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,0.5,0.5,0.5,0.5}>>) -> tensor<4x6x4xf32> {
  %y = rnn.scan %x steps(%n) rows(%r) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32> -> tensor<4x6x4xf32> {
  ^bb0(%h: tensor<4x4xf32>, %xt: tensor<4x3xf32>):
    %h1 = rnn.mgu_cell(%xt, %h) kernels(%wi, %wh) {dynamic_int8} : tensor<4x3xf32>, tensor<4x4xf32>, tensor<3x8x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,0.5,0.5,0.5,0.5}>>, tensor<4x8x!quant.uniform<i8<-127:127>:f32:1, {1.0,1.0,1.0,1.0,0.5,0.5,0.5,0.5}>>
    rnn.yield carry(%h1 : tensor<4x4xf32>) output(%h1 : tensor<4x4xf32>)
  }
  return %y : tensor<4x6x4xf32>
}

// -----

/// bf16 compute: the projection has the cell's compute_type (rows and
/// sums rounded to bf16, the Dense output before its bias); the cell keeps
/// its biases and its precision, and reads the projection's rows.

// CHECK-LABEL: func.func @gru_bf16_compute
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x16xf32>, %[[WI:[^:]+]]: tensor<16x48xbf16>, %[[WH:[^:]+]]: tensor<16x48xbf16>, %[[BI:[^:]+]]: tensor<48xbf16>
// CHECK: %[[P:.*]] = rnn.project %[[X]] kernel(%[[WI]]) {compute_type = bf16} : tensor<2x3x16xf32>, tensor<16x48xbf16> -> tensor<2x3x48xf32>
// CHECK: rnn.scan %[[P]] reverse {num_batch_dims = 1 : i64} : tensor<2x3x48xf32> -> tensor<2x3x16xf32> {
// CHECK: ^bb0(%{{.*}}: tensor<2x16xf32>, %[[XT:.*]]: tensor<2x48xf32>):
// CHECK: rnn.gru_cell(%[[XT]], %{{.*}}) kernels(%[[WI]], %[[WH]]) projected_input input_bias(%[[BI]] : tensor<48xbf16>) hidden_bias(%{{.*}} : tensor<48xbf16>) {carry_type = bf16, compute_type = bf16} : tensor<2x48xf32>
func.func @gru_bf16_compute(%x: tensor<2x3x16xf32>, %wi: tensor<16x48xbf16>, %wh: tensor<16x48xbf16>, %bi: tensor<48xbf16>, %bh: tensor<48xbf16>) -> tensor<2x3x16xf32> {
  %y = rnn.scan %x reverse {num_batch_dims = 1 : i64} : tensor<2x3x16xf32> -> tensor<2x3x16xf32> {
  ^bb0(%h: tensor<2x16xf32>, %xt: tensor<2x16xf32>):
    %h1 = rnn.gru_cell(%xt, %h) kernels(%wi, %wh) input_bias(%bi : tensor<48xbf16>) hidden_bias(%bh : tensor<48xbf16>) {compute_type = bf16, carry_type = bf16} : tensor<2x16xf32>, tensor<2x16xf32>, tensor<16x48xbf16>, tensor<16x48xbf16>
    rnn.yield carry(%h1 : tensor<2x16xf32>) output(%h1 : tensor<2x16xf32>)
  }
  return %y : tensor<2x3x16xf32>
}

// -----

/// Left alone: bf16 compute with f32 weights (its projection multiplies
/// bf16 values: the front end always gives such a cell bf16 weights), a
/// convolutional cell, and a body that reads the step input elsewhere too.

// CHECK-LABEL: func.func @negative_cases
// CHECK-NOT: rnn.project
// CHECK-NOT: projected_input
func.func @negative_cases(%x: tensor<2x3x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>,
    %v: tensor<2x3x4x3xf32>, %cwi: tensor<3x3x8xf32>, %cwh: tensor<3x2x8xf32>,
    %swi: tensor<16x16xf32>, %swh: tensor<16x16xf32>) -> (tensor<2x3x16xf32>, tensor<2x3x4x2xf32>, tensor<2x3x16xf32>) {
  %y = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<2x3x16xf32> -> tensor<2x3x16xf32> {
  ^bb0(%c: tensor<2x16xf32>, %h: tensor<2x16xf32>, %xt: tensor<2x16xf32>):
    %c1, %h1 = rnn.lstm_cell(%xt, %c, %h) kernels(%wi, %wh) {compute_type = bf16, carry_type = f32} : tensor<2x16xf32>, tensor<2x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>
    rnn.yield carry(%c1, %h1 : tensor<2x16xf32>, tensor<2x16xf32>) output(%h1 : tensor<2x16xf32>)
  }
  %z = rnn.scan %v {num_batch_dims = 1 : i64} : tensor<2x3x4x3xf32> -> tensor<2x3x4x2xf32> {
  ^bb0(%c: tensor<2x4x2xf32>, %h: tensor<2x4x2xf32>, %vt: tensor<2x4x3xf32>):
    %c1, %h1 = rnn.conv_lstm_cell(%vt, %c, %h) kernels(%cwi, %cwh) : tensor<2x4x3xf32>, tensor<2x4x2xf32>, tensor<3x3x8xf32>, tensor<3x2x8xf32>
    rnn.yield carry(%c1, %h1 : tensor<2x4x2xf32>, tensor<2x4x2xf32>) output(%h1 : tensor<2x4x2xf32>)
  }
  %r = rnn.scan %x {num_batch_dims = 1 : i64} : tensor<2x3x16xf32> -> tensor<2x3x16xf32> {
  ^bb0(%h: tensor<2x16xf32>, %xt: tensor<2x16xf32>):
    %h1 = rnn.simple_cell(%xt, %h) kernels(%swi, %swh) : tensor<2x16xf32>, tensor<2x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
    rnn.yield carry(%h1 : tensor<2x16xf32>) output(%xt : tensor<2x16xf32>)
  }
  return %y, %z, %r : tensor<2x3x16xf32>, tensor<2x3x4x2xf32>, tensor<2x3x16xf32>
}

// -----

/// An unbatched scan keeps its cell's input product too.

// CHECK-LABEL: func.func @negative_unbatched
// CHECK-NOT: rnn.project
func.func @negative_unbatched(%x: tensor<6x3xf32>, %wi: tensor<3x12xf32>, %wh: tensor<4x12xf32>) -> tensor<6x4xf32> {
  %y = rnn.scan %x {num_batch_dims = 0 : i64} : tensor<6x3xf32> -> tensor<6x4xf32> {
  ^bb0(%h: tensor<4xf32>, %xt: tensor<3xf32>):
    %h1 = rnn.gru_cell(%xt, %h) kernels(%wi, %wh) : tensor<3xf32>, tensor<4xf32>, tensor<3x12xf32>, tensor<4x12xf32>
    rnn.yield carry(%h1 : tensor<4xf32>) output(%h1 : tensor<4xf32>)
  }
  return %y : tensor<6x4xf32>
}
