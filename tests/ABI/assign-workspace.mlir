// RUN: rnn-opt %s --rnn-assign-workspace --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-assign-workspace=alignment=8 --split-input-file | FileCheck %s --check-prefix=ALIGN8
// RUN: not rnn-opt %s --rnn-assign-workspace=alignment=12 --split-input-file 2>&1 | FileCheck %s --check-prefix=BADALIGN

/// Every allocation becomes a view of the workspace at a 64-byte aligned
/// offset; deallocations go; the workspace gets its static size, which the
/// module records.

// CHECK: module attributes {rnn.workspace_alignment = 64 : i64, rnn.workspace_size = 192 : i64}
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

/// With 8-byte alignment (a microcontroller's RAM-lean code) the buffers
/// pack: 24 bytes, 64 bytes, then 4 rounded up to 8.
// ALIGN8: module attributes {rnn.workspace_alignment = 8 : i64, rnn.workspace_size = 96 : i64}
// ALIGN8-LABEL: func.func @model_run
// ALIGN8: arith.constant 0 : index
// ALIGN8: memref.view {{.*}} to memref<2x3xf32>
// ALIGN8: arith.constant 24 : index
// ALIGN8: memref.view {{.*}} to memref<16xi32>
// ALIGN8: arith.constant 88 : index
// ALIGN8: memref.view {{.*}} to memref<1xf32>

// BADALIGN: error: rnn-assign-workspace: alignment must be a power of two of at least 4, got 12
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

// CHECK: module attributes {rnn.workspace_alignment = 64 : i64, rnn.workspace_size = 0 : i64}
// CHECK: %{{.*}}: memref<0xi8> {rnn.workspace}
func.func @empty_run(%ws: memref<?xi8> {rnn.workspace}) {
  return
}

// -----

/// A zero-size workspace is never accessed, so the entry point's check of
/// its address (--rnn-create-entry-point: NULL or misaligned is an argument
/// error) is given an address that passes: it may be NULL. A workspace with
/// bytes keeps its check.

// CHECK-LABEL: func.func @unused_workspace_run
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: return %[[FOUR]] : index
func.func @unused_workspace_run(%ws: memref<?xi8> {rnn.workspace}) -> index {
  %p = memref.extract_aligned_pointer_as_index %ws : memref<?xi8> -> index
  return %p : index
}

// -----

// CHECK-LABEL: func.func @used_workspace_run
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<64xi8> {rnn.workspace}
// CHECK: memref.extract_aligned_pointer_as_index %[[WS]] : memref<64xi8> -> index
func.func @used_workspace_run(%ws: memref<?xi8> {rnn.workspace}) -> index {
  %p = memref.extract_aligned_pointer_as_index %ws : memref<?xi8> -> index
  %a = memref.alloc() : memref<4xf32>
  return %p : index
}

// -----

/// Functions without a workspace argument are left alone.

// CHECK-LABEL: func.func @other
// CHECK: memref.alloc
func.func @other() {
  %a = memref.alloc() : memref<4xf32>
  return
}

// -----

/// Buffers whose lifetimes do not overlap share space: %b is allocated after
/// the last use of %a (through a view of it), so it gets offset 0 too. %c
/// is used in a loop that starts before %b's last use, so it stays clear.

// CHECK: module attributes {rnn.workspace_alignment = 64 : i64, rnn.workspace_size = 128 : i64}
// CHECK-LABEL: func.func @reuse_run
/// (Index constants print as %c<value>.)
// CHECK: memref.view %{{.*}}[%c0{{(_[0-9]+)?}}][] : memref<128xi8> to memref<4x4xf32>
// CHECK: memref.view %{{.*}}[%c0{{(_[0-9]+)?}}][] : memref<128xi8> to memref<16xf32>
// CHECK: memref.view %{{.*}}[%c64{{(_[0-9]+)?}}][] : memref<128xi8> to memref<8xf32>
func.func @reuse_run(%out: memref<16xf32>, %ws: memref<?xi8> {rnn.workspace}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = memref.alloc() : memref<4x4xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  memref.copy %flat, %out : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  %c = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    memref.copy %b, %out : memref<16xf32> to memref<16xf32>
    %v = memref.load %c[%i] : memref<8xf32>
    memref.store %v, %out[%i] : memref<16xf32>
  }
  return
}

// -----

/// A function built for a column split (rnn.column_split, the source of
/// <name>_cols_step) gets its workspace, whose static size states it, but
/// the module's size is the other entry points' largest: <name>_run's
/// callers need not hold it.

// CHECK: module attributes {rnn.workspace_alignment = 64 : i64, rnn.workspace_size = 64 : i64}
// CHECK-LABEL: func.func @split_run
// CHECK-SAME: memref<64xi8> {rnn.workspace}
// CHECK-LABEL: func.func @split_cols_run
// CHECK-SAME: memref<192xi8> {rnn.workspace}
func.func @split_run(%out: memref<4xf32>, %ws: memref<?xi8> {rnn.workspace}) -> i32 {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}
func.func @split_cols_run(%out: memref<4xf32>, %ws: memref<?xi8> {rnn.workspace}) -> i32 attributes {rnn.column_split = 2 : i64} {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %c : memref<4xf32> to memref<4xf32>
  memref.copy %c, %out : memref<4xf32> to memref<4xf32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}
