// RUN: rnn-opt %s --rnn-create-entry-point --split-input-file --verify-diagnostics

// expected-error @+1 {{'func.func' op expects a model function on ranked tensors}}
func.func @buffers(%x: memref<4x3xf32> {rnn.name = "x"}) attributes {rnn.num_steps = 4 : i64} {
  return
}

// -----

// expected-error @+1 {{'func.func' op expects 'rnn.num_steps' on a model with sequence lengths}}
func.func @no_steps(%x: tensor<4x3x2xf32> {rnn.name = "x"}, %len: tensor<4xi32> {rnn.name = "seq_lengths"}) -> (tensor<4x3x2xf32> {rnn.name = "y"}) {
  return %x : tensor<4x3x2xf32>
}
