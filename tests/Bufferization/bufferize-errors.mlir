// RUN: rnn-opt %s --rnn-bufferize --verify-diagnostics

/// An rnn.shared_k_matmuls is rnn-vectorize-matmuls' to consume: a
/// pipeline that skipped it fails here instead of silently running the two
/// products apart.
func.func @shared_k_matmuls_left(%x: tensor<4x16xf32>, %wi: tensor<16x4xf32>, %h: tensor<1x16xf32>, %wh: tensor<16x16xf32>, %p: tensor<4x4xf32>, %g: tensor<1x16xf32>, %b: index) -> (tensor<4x4xf32>, tensor<1x16xf32>) {
  // expected-error @+1 {{op was not bufferized}}
  %0:2 = rnn.shared_k_matmuls ins(%x, %wi[%b] : tensor<4x16xf32>, tensor<16x4xf32>) outs(%p : tensor<4x4xf32>), ins(%h, %wh : tensor<1x16xf32>, tensor<16x16xf32>) outs(%g : tensor<1x16xf32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<1x16xf32>
}
