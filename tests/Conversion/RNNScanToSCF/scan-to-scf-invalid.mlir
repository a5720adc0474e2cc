// RUN: rnn-opt %s --convert-rnn-scan-to-scf --verify-diagnostics

/// A bidirectional layer must be expanded first.

func.func @negative_bidirectional_left(%x: tensor<4x6x3xf32>, %wi: tensor<3x5xf32>, %wh: tensor<5x5xf32>) -> tensor<4x6x5xf32> {
  // expected-error @+1 {{'rnn.bidirectional' op must be expanded (--rnn-expand-bidirectional) before scans are lowered}}
  %y = rnn.bidirectional %x merge<add> {num_batch_dims = 1 : i64} : tensor<4x6x3xf32> -> tensor<4x6x5xf32>
  forward {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<4x3xf32>):
    rnn.yield carry(%h : tensor<4x5xf32>) output(%h : tensor<4x5xf32>)
  } backward {
  ^bb0(%h: tensor<4x5xf32>, %xt: tensor<4x3xf32>):
    rnn.yield carry(%h : tensor<4x5xf32>) output(%h : tensor<4x5xf32>)
  }
  return %y : tensor<4x6x5xf32>
}
