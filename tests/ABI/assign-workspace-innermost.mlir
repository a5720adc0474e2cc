// RUN: rnn-opt %s --rnn-assign-workspace="alignment=8 innermost-first=true" | FileCheck %s
// RUN: rnn-opt %s --rnn-assign-workspace=alignment=8 | FileCheck %s --check-prefix=ORDER

/// innermost-first: the buffer read in a loop (through a view) goes to
/// offset 0, within reach of a short load offset, and the one used outside
/// loops after it; in program order the loop's buffer would sit 1 KiB in.

// CHECK-LABEL: func.func @model_run
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<1040xi8> {rnn.workspace}
// CHECK: arith.constant 4 : index
// CHECK-NEXT: %[[OFF16:.*]] = arith.constant 16 : index
// CHECK-NEXT: memref.view %[[WS]][%[[OFF16]]][] : memref<1040xi8> to memref<256xf32>
// CHECK-NEXT: %[[OFF0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %[[WS]][%[[OFF0]]][] : memref<1040xi8> to memref<4xf32>

// ORDER-LABEL: func.func @model_run
// ORDER: arith.constant 4 : index
// ORDER-NEXT: %[[OFF0:.*]] = arith.constant 0 : index
// ORDER-NEXT: memref.view %{{.*}}[%[[OFF0]]][] : memref<1040xi8> to memref<256xf32>
// ORDER-NEXT: %[[OFF1024:.*]] = arith.constant 1024 : index
// ORDER-NEXT: memref.view %{{.*}}[%[[OFF1024]]][] : memref<1040xi8> to memref<4xf32>
func.func @model_run(%in: memref<4xf32>, %out: memref<256xf32>, %ws: memref<?xi8> {rnn.workspace}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %big = memref.alloc() : memref<256xf32>
  %row = memref.alloc() : memref<4xf32>
  memref.copy %in, %row : memref<4xf32> to memref<4xf32>
  %half = memref.subview %row[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  scf.for %i = %c0 to %c2 step %c1 {
    %v = memref.load %half[%i] : memref<2xf32, strided<[1]>>
    memref.store %v, %out[%i] : memref<256xf32>
  }
  memref.copy %out, %big : memref<256xf32> to memref<256xf32>
  memref.copy %big, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %row : memref<4xf32>
  memref.dealloc %big : memref<256xf32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}
