// RUN: rnn-opt %s --rnn-bufferize --verify-diagnostics

/// The runtime has f32 kernels only: bufferizing another type fails.

func.func @negative_f64_flip(%xm: memref<4x6x3xf64>) -> memref<4x6x3xf64> {
  %x = bufferization.to_tensor %xm restrict : memref<4x6x3xf64> to tensor<4x6x3xf64>
  // expected-error @+2 {{'rnn.flip_sequences' op is only available in the runtime for f32, got 'f64'}}
  // expected-error @+1 {{failed to bufferize op}}
  %a = rnn.flip_sequences %x {num_batch_dims = 1 : i64} : tensor<4x6x3xf64>
  %am = bufferization.to_buffer %a : tensor<4x6x3xf64> to memref<4x6x3xf64>
  return %am : memref<4x6x3xf64>
}
