// RUN: rnn-opt %s --rnn-bufferize --verify-diagnostics

/// The runtime has f32 kernels only: bufferizing another activation type
/// (bf16) fails.

func.func @negative_bf16_flip(%xm: memref<4x6x3xbf16>) -> memref<4x6x3xbf16> {
  %x = bufferization.to_tensor %xm restrict : memref<4x6x3xbf16> to tensor<4x6x3xbf16>
  // expected-error @+2 {{'rnn.flip_sequences' op is only available in the runtime for f32, got 'bf16'}}
  // expected-error @+1 {{failed to bufferize op}}
  %a = rnn.flip_sequences %x {num_batch_dims = 1 : i64} : tensor<4x6x3xbf16>
  %am = bufferization.to_buffer %a : tensor<4x6x3xbf16> to memref<4x6x3xbf16>
  return %am : memref<4x6x3xbf16>
}
