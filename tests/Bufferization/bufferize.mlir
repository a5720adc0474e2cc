// RUN: rnn-opt %s --rnn-bufferize | FileCheck %s

// One-shot bufferization's copies: into or out of a strided view, a
// linalg.copy (loops, no runtime helper); between contiguous buffers, a
// memref.copy (memcpy).

// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[SRC:.*]]: memref<4x5xf32>, %[[DST:.*]]: memref<4x6x5xf32>, %[[T:.*]]: index)
// CHECK: %[[NEW:.*]] = memref.alloc() {{.*}}: memref<4x6x5xf32>
// CHECK: memref.copy %[[DST]], %[[NEW]] : memref<4x6x5xf32> to memref<4x6x5xf32>
// CHECK: %[[VIEW:.*]] = memref.subview %[[NEW]][0, %[[T]], 0] [4, 1, 5] [1, 1, 1]
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x5xf32>) outs(%[[VIEW]] : memref<4x5xf32, strided<[30, 1], offset: ?>>)
// CHECK-NOT: memref.copy
func.func @copies(%src: memref<4x5xf32>, %dst: memref<4x6x5xf32>, %t: index) -> (tensor<4x6x5xf32>, tensor<4x6x5xf32>) {
  %s = bufferization.to_tensor %src restrict : memref<4x5xf32> to tensor<4x5xf32>
  %d = bufferization.to_tensor %dst restrict : memref<4x6x5xf32> to tensor<4x6x5xf32>
  %0 = tensor.insert_slice %s into %d[0, %t, 0] [4, 1, 5] [1, 1, 1] : tensor<4x5xf32> into tensor<4x6x5xf32>
  return %0, %d : tensor<4x6x5xf32>, tensor<4x6x5xf32>
}
