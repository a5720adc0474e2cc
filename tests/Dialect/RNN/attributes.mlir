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
  // A run-time batch over two batch dims run as one, and a part of a static
  // batch that plans its time blocks for the whole.
  // CHECK: func.func @flat(%{{.*}}: tensor<2x3x4xf32> {rnn.batch_axis = 0 : i64, rnn.name = "x"}) -> (tensor<2x3x4xf32> {rnn.batch_axis = 0 : i64, rnn.name = "y"}) attributes {rnn.flat_batch = 2 : i64, rnn.num_steps = 1 : i64, rnn.time_block_batch = 8 : i64}
  func.func @flat(%x: tensor<2x3x4xf32> {rnn.batch_axis = 0 : i64, rnn.name = "x"}) -> (tensor<2x3x4xf32> {rnn.batch_axis = 0 : i64, rnn.name = "y"}) attributes {rnn.flat_batch = 2 : i64, rnn.num_steps = 1 : i64, rnn.time_block_batch = 8 : i64} {
    return %x : tensor<2x3x4xf32>
  }
  // The workspace once rnn-assign-workspace has sized it, and once the
  // lowering has made it a pointer.
  // CHECK: func.func private @sized_run(memref<192xi8> {rnn.workspace})
  func.func private @sized_run(memref<192xi8> {rnn.workspace})
  // CHECK: llvm.func @llvm_run(!llvm.ptr {rnn.name = "y", rnn.output}, !llvm.ptr {rnn.workspace})
  llvm.func @llvm_run(!llvm.ptr {rnn.name = "y", rnn.output}, !llvm.ptr {rnn.workspace})
  // CHECK: emitc.func private @c_run(!emitc.ptr<f32> {rnn.name = "y", rnn.output}, !emitc.ptr<!emitc.opaque<"void">> {rnn.workspace})
  emitc.func private @c_run(!emitc.ptr<f32> {rnn.name = "y", rnn.output}, !emitc.ptr<!emitc.opaque<"void">> {rnn.workspace}) attributes {specifiers = ["extern"]}
  func.func @ops(%f: f32) -> f32 {
    // CHECK: math.fma {{.*}} {rnn.exact_fma}
    %0 = math.fma %f, %f, %f {rnn.exact_fma} : f32
    return %0 : f32
  }
}
