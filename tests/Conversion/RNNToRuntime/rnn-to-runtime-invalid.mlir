// RUN: rnn-opt %s --convert-rnn-to-runtime --verify-diagnostics

/// The runtime has f32 kernels only.

func.func @negative_f64_flip(%x: tensor<4x6x3xf64>) -> tensor<4x6x3xf64> {
  // expected-error @+1 {{'rnn.flip_sequences' op is only available in the runtime for f32, got 'f64'}}
  %a = rnn.flip_sequences %x {num_batch_dims = 1 : i64} : tensor<4x6x3xf64>
  return %a : tensor<4x6x3xf64>
}
