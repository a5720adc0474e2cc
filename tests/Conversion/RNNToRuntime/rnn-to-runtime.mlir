// RUN: rnn-opt %s --rnn-bufferize --split-input-file | FileCheck %s

/// While they are bufferized, flip_sequences calls
/// rnnrt_flip_sequences_f32(in, out, lengths, batch, time, feature,
/// time_major) on a result buffer allocated like any other; buffers are
/// passed as memref<1xT> at the same address (a pointer under the
/// bare-pointer convention), so one declaration serves every shape.

// CHECK: memref.global "private" constant @[[$FULL_LENGTHS:.*]] : memref<4x2xi32> = dense<6>
// CHECK: func.func private @rnnrt_flip_sequences_f32(memref<1xf32>, memref<1xf32>, memref<1xi32>, i64, i64, i64, i32) -> i32
// CHECK-LABEL: func.func @flip_batch_major_and_time_major
// CHECK-SAME: (%[[X:.*]]: memref<4x6x3xf32>, %[[T:.*]]: memref<6x4x2x3xf32>, %[[LEN:.*]]: memref<4xi32>)
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<4x6x3xf32>
// CHECK: %[[OUTP:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [1], strides: [1] : memref<4x6x3xf32> to memref<1xf32>
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[INP:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [1], strides: [1] : memref<4x6x3xf32> to memref<1xf32>
// CHECK: %[[LP:.*]] = memref.reinterpret_cast %[[LEN]] to offset: [0], sizes: [1], strides: [1] : memref<4xi32> to memref<1xi32>
// CHECK: %[[B:.*]] = arith.constant 4 : i64
// CHECK: %[[STEPS:.*]] = arith.constant 6 : i64
// CHECK: %[[F3:.*]] = arith.constant 3 : i64
// CHECK: call @rnnrt_flip_sequences_f32(%[[INP]], %[[OUTP]], %[[LP]], %[[B]], %[[STEPS]], %[[F3]], %[[C0]])
/// Time-major, and no lengths: every row at full length T = 6, a constant
/// global.
// CHECK: %[[OUT2:.*]] = memref.alloc() {{.*}}: memref<6x4x2x3xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[FULL:.*]] = memref.get_global @[[$FULL_LENGTHS]] : memref<4x2xi32>
// CHECK: memref.reinterpret_cast %[[FULL]] to offset: [0], sizes: [1], strides: [1] : memref<4x2xi32> to memref<1xi32>
// CHECK: %[[B8:.*]] = arith.constant 8 : i64
// CHECK: call @rnnrt_flip_sequences_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[B8]], %{{.*}}, %{{.*}}, %[[C1]])
// CHECK: return %[[OUT]], %[[OUT2]]
func.func @flip_batch_major_and_time_major(%xm: memref<4x6x3xf32>, %tm: memref<6x4x2x3xf32>, %lenm: memref<4xi32>) -> (memref<4x6x3xf32>, memref<6x4x2x3xf32>) {
  %x = bufferization.to_tensor %xm restrict : memref<4x6x3xf32> to tensor<4x6x3xf32>
  %t = bufferization.to_tensor %tm restrict : memref<6x4x2x3xf32> to tensor<6x4x2x3xf32>
  %len = bufferization.to_tensor %lenm restrict : memref<4xi32> to tensor<4xi32>
  %a = rnn.flip_sequences %x lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  %b = rnn.flip_sequences %t time_major {num_batch_dims = 2 : i64} : tensor<6x4x2x3xf32>
  %am = bufferization.to_buffer %a : tensor<4x6x3xf32> to memref<4x6x3xf32>
  %bm = bufferization.to_buffer %b : tensor<6x4x2x3xf32> to memref<6x4x2x3xf32>
  return %am, %bm : memref<4x6x3xf32>, memref<6x4x2x3xf32>
}

// -----

/// The runtime reads dense row-major arrays: an operand that is a strided
/// view (here every other step) is copied to a contiguous buffer first.

// CHECK-LABEL: func.func @flip_strided_input
// CHECK-SAME: (%[[X:.*]]: memref<4x12x3xf32>, %[[LEN:.*]]: memref<4xi32>)
// CHECK: %[[VIEW:.*]] = memref.subview %[[X]][0, 0, 0] [4, 6, 3] [1, 2, 1]
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<4x6x3xf32>
// CHECK: %[[DENSE:.*]] = memref.alloc() {{.*}}: memref<4x6x3xf32>
// CHECK: linalg.copy ins(%[[VIEW]] : {{.*}}) outs(%[[DENSE]] : memref<4x6x3xf32>)
// CHECK: %[[INP:.*]] = memref.reinterpret_cast %[[DENSE]]
// CHECK: call @rnnrt_flip_sequences_f32(%[[INP]],
func.func @flip_strided_input(%xm: memref<4x12x3xf32>, %lenm: memref<4xi32>) -> memref<4x6x3xf32> {
  %x = bufferization.to_tensor %xm restrict : memref<4x12x3xf32> to tensor<4x12x3xf32>
  %len = bufferization.to_tensor %lenm restrict : memref<4xi32> to tensor<4xi32>
  %s = tensor.extract_slice %x[0, 0, 0] [4, 6, 3] [1, 2, 1] : tensor<4x12x3xf32> to tensor<4x6x3xf32>
  %a = rnn.flip_sequences %s lengths(%len : tensor<4xi32>) {num_batch_dims = 1 : i64} : tensor<4x6x3xf32>
  %am = bufferization.to_buffer %a : tensor<4x6x3xf32> to memref<4x6x3xf32>
  return %am : memref<4x6x3xf32>
}

// -----

/// select_last_carry calls rnnrt_select_last_carry_f32(carries, initial,
/// lengths, batch, time, carry, out); an unbatched carry has batch 1.

// CHECK: func.func private @rnnrt_select_last_carry_f32(memref<1xf32>, memref<1xf32>, memref<1xi32>, i64, i64, i64, memref<1xf32>) -> i32
// CHECK-LABEL: func.func @select_two_batch_dims_and_unbatched
// CHECK-SAME: (%[[S:.*]]: memref<7x2x3x5xf32>, %[[LEN:.*]]: memref<2x3xi32>, %[[INIT:.*]]: memref<2x3x5xf32>,
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<2x3x5xf32>
// CHECK: %[[OUTP:.*]] = memref.reinterpret_cast %[[OUT]]
// CHECK: %[[SP:.*]] = memref.reinterpret_cast %[[S]]
// CHECK: %[[IP:.*]] = memref.reinterpret_cast %[[INIT]]
// CHECK: %[[LP:.*]] = memref.reinterpret_cast %[[LEN]]
// CHECK-DAG: %[[B6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[T7:.*]] = arith.constant 7 : i64
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK: call @rnnrt_select_last_carry_f32(%[[SP]], %[[IP]], %[[LP]], %[[B6]], %[[T7]], %[[C5]], %[[OUTP]]) : (memref<1xf32>, memref<1xf32>, memref<1xi32>, i64, i64, i64, memref<1xf32>) -> i32
// CHECK: memref.alloc() {{.*}}: memref<5xf32>
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1], strides: [1] : memref<i32> to memref<1xi32>
// CHECK: %[[B1:.*]] = arith.constant 1 : i64
// CHECK: call @rnnrt_select_last_carry_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[B1]],
func.func @select_two_batch_dims_and_unbatched(%sm: memref<7x2x3x5xf32>, %lenm: memref<2x3xi32>, %initm: memref<2x3x5xf32>,
    %s0m: memref<7x5xf32>, %len0m: memref<i32>, %init0m: memref<5xf32>) -> (memref<2x3x5xf32>, memref<5xf32>) {
  %s = bufferization.to_tensor %sm restrict : memref<7x2x3x5xf32> to tensor<7x2x3x5xf32>
  %len = bufferization.to_tensor %lenm restrict : memref<2x3xi32> to tensor<2x3xi32>
  %init = bufferization.to_tensor %initm restrict : memref<2x3x5xf32> to tensor<2x3x5xf32>
  %s0 = bufferization.to_tensor %s0m restrict : memref<7x5xf32> to tensor<7x5xf32>
  %len0 = bufferization.to_tensor %len0m restrict : memref<i32> to tensor<i32>
  %init0 = bufferization.to_tensor %init0m restrict : memref<5xf32> to tensor<5xf32>
  %a = rnn.select_last_carry %s, %len, %init : tensor<7x2x3x5xf32>, tensor<2x3xi32>, tensor<2x3x5xf32>
  %b = rnn.select_last_carry %s0, %len0, %init0 : tensor<7x5xf32>, tensor<i32>, tensor<5xf32>
  %am = bufferization.to_buffer %a : tensor<2x3x5xf32> to memref<2x3x5xf32>
  %bm = bufferization.to_buffer %b : tensor<5xf32> to memref<5xf32>
  return %am, %bm : memref<2x3x5xf32>, memref<5xf32>
}
