// RUN: rnn-opt %s --convert-rnn-to-linalg --split-input-file --verify-diagnostics

/// linalg has named channels-last convolutions for 1 to 3 spatial dims only.

func.func @conv_lstm_4d(%x: tensor<1x2x2x2x2x3xf32>, %c: tensor<1x2x2x2x2x2xf32>, %h: tensor<1x2x2x2x2x2xf32>,
    %wi: tensor<1x1x1x1x3x8xf32>, %wh: tensor<1x1x1x1x2x8xf32>) -> tensor<1x2x2x2x2x2xf32> {
  // expected-error @+1 {{expected 1, 2 or 3 spatial dims (linalg has no named convolution for more), found 4}}
  %c1, %h1 = rnn.conv_lstm_cell(%x, %c, %h) kernels(%wi, %wh)
      : tensor<1x2x2x2x2x3xf32>, tensor<1x2x2x2x2x2xf32>, tensor<1x1x1x1x3x8xf32>, tensor<1x1x1x1x2x8xf32>
  return %h1 : tensor<1x2x2x2x2x2xf32>
}
