// RUN: rnn-opt %s --rnn-assign-workspace --split-input-file | FileCheck %s

/// Every allocation becomes a view of the workspace at a 64-byte aligned
/// offset; deallocations go; the workspace gets its static size, which the
/// module records.

// CHECK: module attributes {rnn.workspace_size = 192 : i64}
// CHECK-LABEL: func.func @model_run
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<192xi8> {rnn.workspace}
// CHECK: %[[OFF0:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[WS]][%[[OFF0]]][] : memref<192xi8> to memref<2x3xf32>
// CHECK: %[[OFF64:.*]] = arith.constant 64 : index
// CHECK: memref.view %[[WS]][%[[OFF64]]][] : memref<192xi8> to memref<16xi32>
// CHECK: %[[OFF128:.*]] = arith.constant 128 : index
// CHECK: memref.view %[[WS]][%[[OFF128]]][] : memref<192xi8> to memref<1xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: memref.copy %[[A]], %{{.*}}
func.func @model_run(%out: memref<2x3xf32>, %ws: memref<?xi8> {rnn.workspace}) -> i32 {
  %a = memref.alloc() : memref<2x3xf32>
  %b = memref.alloc() : memref<16xi32>
  %c = memref.alloc() : memref<1xf32>
  memref.copy %a, %out : memref<2x3xf32> to memref<2x3xf32>
  memref.dealloc %b : memref<16xi32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}

// -----

/// No allocations: a zero-size workspace.

// CHECK: module attributes {rnn.workspace_size = 0 : i64}
// CHECK: %{{.*}}: memref<0xi8> {rnn.workspace}
func.func @empty_run(%ws: memref<?xi8> {rnn.workspace}) {
  return
}

// -----

/// Functions without a workspace argument are left alone.

// CHECK-LABEL: func.func @other
// CHECK: memref.alloc
func.func @other() {
  %a = memref.alloc() : memref<4xf32>
  return
}
