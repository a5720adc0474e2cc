// RUN: rnn-opt %s | rnn-opt | FileCheck %s

/// Every rnn.* discardable attribute where the stages put it round-trips.

// CHECK: module attributes {rnn.spec_sha256 = "[[HASH:[0-9a-f]+]]", rnn.weights_sha256 = "[[HASH]]", rnn.workspace_alignment = 64 : i64, rnn.workspace_size = 4096 : i64}
module attributes {rnn.spec_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", rnn.weights_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", rnn.workspace_alignment = 64 : i64, rnn.workspace_size = 4096 : i64} {
  // CHECK: func.func @model(%{{.*}}: tensor<2x5x3xf32> {rnn.name = "x", rnn.time_axis = 1 : i64}) -> (tensor<2x5x4xf32> {rnn.name = "y", rnn.time_axis = 1 : i64}) attributes {rnn.num_steps = 5 : i64}
  func.func @model(%x: tensor<2x5x3xf32> {rnn.name = "x", rnn.time_axis = 1 : i64}) -> (tensor<2x5x4xf32> {rnn.name = "y", rnn.time_axis = 1 : i64}) attributes {rnn.num_steps = 5 : i64} {
    %0 = tensor.empty() : tensor<2x5x4xf32>
    return %0 : tensor<2x5x4xf32>
  }
  // CHECK: func.func @model_run(%{{.*}}: memref<2x3xf32> {rnn.name = "y", rnn.output}, %{{.*}}: memref<?xi8> {rnn.workspace})
  func.func @model_run(%y: memref<2x3xf32> {rnn.name = "y", rnn.output}, %ws: memref<?xi8> {rnn.workspace}) {
    return
  }
  func.func @ops(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>, %f: f32) -> (tensor<2x4xf32>, f32) {
    // CHECK: linalg.matmul {rnn.bf16_operands}
    %0 = linalg.matmul {rnn.bf16_operands} ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
    // CHECK: math.fma {{.*}} {rnn.exact_fma}
    %1 = math.fma %f, %f, %f {rnn.exact_fma} : f32
    return %0, %1 : tensor<2x4xf32>, f32
  }
}
