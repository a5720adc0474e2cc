// RUN: rnn-opt %s --convert-rnn-to-runtime --split-input-file | FileCheck %s

/// flip_sequences calls rnnrt_flip_sequences_f32(in, out, lengths, batch,
/// time, feature, time_major); buffers are passed as memref<1xT> at the
/// same address (a pointer under the bare-pointer convention), so one
/// declaration serves every shape.

// CHECK: func.func private @rnnrt_flip_sequences_f32(memref<1xf32>, memref<1xf32>, memref<1xi32>, i64, i64, i64, i32) -> i32
// CHECK-LABEL: func.func @flip_batch_major_and_time_major
// CHECK-SAME: (%[[X:.*]]: tensor<4x6x3xf32>, %[[T:.*]]: tensor<6x4x2x3xf32>, %[[LEN:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[B:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[STEPS:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[F3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[B8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[FULL:.*]] = arith.constant dense<6> : tensor<4x2xi32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<4x6x3xf32>
// CHECK: %[[OUTP:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [1], strides: [1] : memref<4x6x3xf32> to memref<1xf32>
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<4x6x3xf32> to memref<4x6x3xf32>
// CHECK: %[[INP:.*]] = memref.reinterpret_cast %[[IN]]
// CHECK: %[[LB:.*]] = bufferization.to_buffer %[[LEN]] read_only : tensor<4xi32> to memref<4xi32>
// CHECK: %[[LP:.*]] = memref.reinterpret_cast %[[LB]] to offset: [0], sizes: [1], strides: [1] : memref<4xi32> to memref<1xi32>
// CHECK: call @rnnrt_flip_sequences_f32(%[[INP]], %[[OUTP]], %[[LP]], %[[B]], %[[STEPS]], %[[F3]], %[[C0]])
// CHECK: %[[R1:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4x6x3xf32> to tensor<4x6x3xf32>
/// Time-major, and no lengths: every row at full length T = 6.
// CHECK: bufferization.to_buffer %[[FULL]] read_only : tensor<4x2xi32> to memref<4x2xi32>
// CHECK: call @rnnrt_flip_sequences_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[B8]], %[[STEPS]], %[[F3]], %[[C1]])
// CHECK: return %[[R1]]
func.func @flip_batch_major_and_time_major(%x: tensor<4x6x3xf32>, %t: tensor<6x4x2x3xf32>, %len: tensor<4xi32>) -> (tensor<4x6x3xf32>, tensor<6x4x2x3xf32>) {
  %a = rnn.flip_sequences %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  %b = rnn.flip_sequences %t time_major {num_batch_dims = 2 : i64} : tensor<6x4x2x3xf32>
  return %a, %b : tensor<4x6x3xf32>, tensor<6x4x2x3xf32>
}

// -----

/// select_last_carry calls rnnrt_select_last_carry_f32(carries, initial,
/// lengths, batch, time, carry, out); an unbatched carry has batch 1.

// CHECK: func.func private @rnnrt_select_last_carry_f32(memref<1xf32>, memref<1xf32>, memref<1xi32>, i64, i64, i64, memref<1xf32>) -> i32
// CHECK-LABEL: func.func @select_two_batch_dims_and_unbatched
// CHECK: memref.alloc() : memref<2x3x5xf32>
// CHECK: call @rnnrt_select_last_carry_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<1xf32>, memref<1xf32>, memref<1xi32>, i64, i64, i64, memref<1xf32>) -> i32
// CHECK: %[[L0:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<i32> to memref<i32>
// CHECK: memref.reinterpret_cast %[[L0]] to offset: [0], sizes: [1], strides: [1] : memref<i32> to memref<1xi32>
// CHECK: call @rnnrt_select_last_carry_f32
func.func @select_two_batch_dims_and_unbatched(%s: tensor<7x2x3x5xf32>, %len: tensor<2x3xi32>, %init: tensor<2x3x5xf32>,
    %s0: tensor<7x5xf32>, %len0: tensor<i32>, %init0: tensor<5xf32>) -> (tensor<2x3x5xf32>, tensor<5xf32>) {
  %a = rnn.select_last_carry %s, %len, %init : tensor<7x2x3x5xf32>, tensor<2x3xi32>, tensor<2x3x5xf32>
  %b = rnn.select_last_carry %s0, %len0, %init0 : tensor<7x5xf32>, tensor<i32>, tensor<5xf32>
  return %a, %b : tensor<2x3x5xf32>, tensor<5xf32>
}
