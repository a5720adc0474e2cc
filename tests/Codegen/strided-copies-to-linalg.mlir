// RUN: rnn-opt %s --rnn-strided-copies-to-linalg | FileCheck %s

/// A copy into or out of a strided view becomes a linalg.copy (loops, no
/// runtime helper); a copy between contiguous buffers stays a memref.copy.

// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[SRC:.*]]: memref<4x5xf32>, %[[DST:.*]]: memref<4x6x5xf32>, %[[OTHER:.*]]: memref<4x5xf32>, %[[T:.*]]: index)
// CHECK: %[[VIEW:.*]] = memref.subview %[[DST]]
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x5xf32>) outs(%[[VIEW]] : memref<4x5xf32, strided<[30, 1], offset: ?>>)
// CHECK: linalg.copy ins(%[[VIEW]] : {{.*}}) outs(%[[OTHER]] : memref<4x5xf32>)
// CHECK: memref.copy %[[SRC]], %[[OTHER]] : memref<4x5xf32> to memref<4x5xf32>
// CHECK-NOT: memref.copy
func.func @copies(%src: memref<4x5xf32>, %dst: memref<4x6x5xf32>, %other: memref<4x5xf32>, %t: index) {
  %view = memref.subview %dst[0, %t, 0] [4, 1, 5] [1, 1, 1] : memref<4x6x5xf32> to memref<4x5xf32, strided<[30, 1], offset: ?>>
  memref.copy %src, %view : memref<4x5xf32> to memref<4x5xf32, strided<[30, 1], offset: ?>>
  memref.copy %view, %other : memref<4x5xf32, strided<[30, 1], offset: ?>> to memref<4x5xf32>
  memref.copy %src, %other : memref<4x5xf32> to memref<4x5xf32>
  return
}
