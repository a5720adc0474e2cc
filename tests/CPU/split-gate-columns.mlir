// RUN: rnn-opt %s --rnn-split-gate-columns=entry-point=m_run --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-split-gate-columns="entry-point=m_run from=m_cols_run" --split-input-file | FileCheck %s --check-prefix=FROM

/// A batch-1 recurrence of H = 128 units and 2 gate blocks, reduced to its
/// shape after bufferization: h zeroed, the input projection of all steps
/// ([3 x 256], blocks of 64 columns), then per step the recurrent products
/// (blocks of 64 columns over k) and the gate loop writing h and y.
/// <name>_run stays as it is; <name>_cols_step gets exchange, its own row
/// of h, task and step before the workspace; task 0 owns units [0, 64).

memref.global "private" constant @wh : memref<4x128x64xf32> = dense<1.0>

// CHECK-LABEL: func.func @m_run(
// CHECK-SAME:    %{{.*}}: memref<1x3x128xf32> {rnn.name = "y", rnn.output}, %{{.*}}: memref<8192xi8> {rnn.workspace}) -> i32
// CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK-NOT:     scf.if
// CHECK:         return

// CHECK-LABEL: func.func @m_cols_step(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<1x3x4xf32> {rnn.name = "x"}, %[[Y:[a-z0-9]+]]: memref<1x3x128xf32> {rnn.name = "y", rnn.output},
// CHECK-SAME:    %[[EX:[a-z0-9]+]]: memref<2x128xf32>, %[[OWN:[a-z0-9]+]]: memref<1x128xf32>, %[[TASK:[a-z0-9]+]]: i32, %[[STEP:[a-z0-9]+]]: i32,
// CHECK-SAME:    %[[WS:[a-z0-9]+]]: memref<8192xi8> {rnn.workspace}) -> i32
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[TASK]], %{{.*}} : i32
// CHECK:         %[[LO:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[C64:.*]] : index
// CHECK:         %[[HI:.*]] = arith.select %[[FIRST]], %[[C64]], %{{.*}} : index
// CHECK:         %[[OLO:.*]] = arith.select %[[FIRST]], %[[C64]], %{{.*}} : index
// CHECK:         %[[OHI:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[C64]] : index
// CHECK:         %[[T:.*]] = arith.index_castui %[[STEP]] : i32 to index
// CHECK:         scf.if
// CHECK:           %[[H:.*]] = memref.view %[[WS]]{{.*}} to memref<1x128xf32>
// CHECK:           %[[PRE:.*]] = memref.view %[[WS]]{{.*}} to memref<3x256xf32>
// CHECK:           %[[REC:.*]] = memref.view %[[WS]]{{.*}} to memref<1x256xf32>
/// Step 0: h zeroed, the task's columns of the input projection.
// CHECK:           %[[AT0:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK:           scf.if %[[AT0]] {
// CHECK:             scf.for
// CHECK:               memref.store %{{.*}}, %[[H]]
// CHECK:             scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               %[[BEYOND:.*]] = arith.cmpi uge, %[[COL]], %{{.*}} : index
// CHECK:               %[[BEFORE:.*]] = arith.select %[[BEYOND]], %{{.*}}, %{{.*}} : index
// CHECK:               %[[UNIT:.*]] = arith.subi %[[COL]], %{{.*}} : index
// CHECK:               %[[GE:.*]] = arith.cmpi uge, %[[UNIT]], %[[LO]] : index
// CHECK:               %[[LT:.*]] = arith.cmpi ult, %[[UNIT]], %[[HI]] : index
// CHECK:               %[[OWNS:.*]] = arith.select %[[GE]], %[[LT]], %false : i1
// CHECK:               scf.if %[[OWNS]] {
// CHECK:                 scf.for
// CHECK:                   vector.transfer_write
/// Later steps: the other task's units of h from the previous step's row.
// CHECK:           } else {
// CHECK:             %[[PREV:.*]] = arith.andi
// CHECK:             %[[PROW:.*]] = arith.index_castui %[[PREV]] : i32 to index
// CHECK:             scf.for %[[U:.*]] = %[[OLO]] to %[[OHI]]
// CHECK:               %[[V:.*]] = memref.load %[[EX]][%[[PROW]], %[[U]]]
// CHECK:               memref.store %[[V]], %[[H]][%{{.*}}, %[[U]]]
/// The step: the task's blocks of the recurrent products, its gate loop.
// CHECK:           scf.for %[[RCOL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             arith.select %{{.*}}, %[[RCOL]]
// CHECK:             scf.if %{{.*}} {
// CHECK:               scf.for {{.*}} iter_args
// CHECK:               vector.transfer_write {{.*}}, %{{.*}} : vector<1x64xf32>
// CHECK:           scf.for %[[GU:.*]] = %[[LO]] to %[[HI]] step
// CHECK:             memref.store %{{.*}}, %[[H]]
// CHECK:             memref.store %{{.*}}, %{{.*}} : memref<1x128xf32, strided
/// Its units of h out, to this step's row.
// CHECK:           %[[ROWI:.*]] = arith.andi %[[STEP]], %{{.*}} : i32
// CHECK:           %[[ROW:.*]] = arith.index_castui %[[ROWI]] : i32 to index
// CHECK:           scf.for %[[EU:.*]] = %[[LO]] to %[[HI]]
// CHECK:             %[[E:.*]] = memref.load %[[H]][%{{.*}}, %[[EU]]]
// CHECK:             memref.store %[[E]], %[[EX]][%[[ROW]], %[[EU]]]
// CHECK-NOT:       scf.for
// CHECK:         return
func.func @m_run(%x: memref<1x3x4xf32> {rnn.name = "x"},
                 %y: memref<1x3x128xf32> {rnn.name = "y", rnn.output},
                 %ws: memref<8192xi8> {rnn.workspace}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %c2048 = arith.constant 2048 : index
  %c4096 = arith.constant 4096 : index
  %c2 = arith.constant 2 : index
  %ok = arith.constant true
  %zero = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : vector<1x64xf32>
  %status = arith.constant 0 : i32
  %wh = memref.get_global @wh : memref<4x128x64xf32>
  scf.if %ok {
    %h = memref.view %ws[%c0][] : memref<8192xi8> to memref<1x128xf32>
    scf.for %u = %c0 to %c128 step %c1 {
      memref.store %zero, %h[%c0, %u] : memref<1x128xf32>
    }
    %pre = memref.view %ws[%c2048][] : memref<8192xi8> to memref<3x256xf32>
    scf.for %col = %c0 to %c256 step %c64 {
      scf.for %t = %c0 to %c3 step %c1 {
        %block = memref.subview %pre[%t, %col] [1, 64] [1, 1] : memref<3x256xf32> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        vector.transfer_write %zeros, %block[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      }
    }
    %rec = memref.view %ws[%c4096][] : memref<8192xi8> to memref<1x256xf32>
    scf.for %t = %c0 to %c3 step %c1 {
      %odd = arith.remui %t, %c2 : index
      %reversed = arith.cmpi ne, %odd, %c0 : index
      scf.for %p = %c0 to %c256 step %c64 {
        %back = arith.subi %c192, %p : index
        %col = arith.select %reversed, %back, %p : index
        %block = memref.subview %rec[0, %col] [1, 64] [1, 1] : memref<1x256xf32> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zeros) -> (vector<1x64xf32>) {
          %panel = arith.divui %col, %c64 : index
          %hk = memref.load %h[%c0, %k] : memref<1x128xf32>
          %w = vector.transfer_read %wh[%panel, %k, %c0], %zero {in_bounds = [true, true]} : memref<4x128x64xf32>, vector<1x64xf32>
          %hv = vector.broadcast %hk : f32 to vector<1x64xf32>
          %next = vector.fma %hv, %w, %acc : vector<1x64xf32>
          scf.yield %next : vector<1x64xf32>
        }
        vector.transfer_write %sum, %block[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      }
      %yt = memref.subview %y[0, %t, 0] [1, 1, 128] [1, 1, 1] : memref<1x3x128xf32> to memref<1x128xf32, strided<[384, 1], offset: ?>>
      scf.for %u = %c0 to %c128 step %c1 {
        %u2 = arith.addi %u, %c128 : index
        %a = memref.load %pre[%t, %u] : memref<3x256xf32>
        %b = memref.load %pre[%t, %u2] : memref<3x256xf32>
        %r = memref.load %rec[%c0, %u] : memref<1x256xf32>
        %s = memref.load %rec[%c0, %u2] : memref<1x256xf32>
        %hu = memref.load %h[%c0, %u] : memref<1x128xf32>
        %ar = arith.addf %a, %r : f32
        %bs = arith.addf %b, %s : f32
        %g = arith.mulf %ar, %bs : f32
        %new = arith.addf %g, %hu : f32
        memref.store %new, %h[%c0, %u] : memref<1x128xf32>
        memref.store %new, %yt[%c0, %u] : memref<1x128xf32, strided<[384, 1], offset: ?>>
      }
    }
  }
  return %status : i32
}

// -----

/// An output written outside the gate loop (here y zeroed first): not a
/// shape the split knows, so no step function.

// CHECK-LABEL: func.func @m_run(
// CHECK-NOT: @m_cols_step
func.func @m_run(%x: memref<1x3x4xf32> {rnn.name = "x"},
                 %y: memref<1x3x128xf32> {rnn.name = "y", rnn.output},
                 %ws: memref<8192xi8> {rnn.workspace}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %status = arith.constant 0 : i32
  %h = memref.view %ws[%c0][] : memref<8192xi8> to memref<1x128xf32>
  memref.store %zero, %y[%c0, %c0, %c0] : memref<1x3x128xf32>
  scf.for %t = %c0 to %c3 step %c1 {
    %yt = memref.subview %y[0, %t, 0] [1, 1, 128] [1, 1, 1] : memref<1x3x128xf32> to memref<1x128xf32, strided<[384, 1], offset: ?>>
    scf.for %u = %c0 to %c128 step %c1 {
      %hu = memref.load %h[%c0, %u] : memref<1x128xf32>
      memref.store %hu, %h[%c0, %u] : memref<1x128xf32>
      memref.store %hu, %yt[%c0, %u] : memref<1x128xf32, strided<[384, 1], offset: ?>>
    }
  }
  return %status : i32
}

// -----

/// With `from`: the step comes from @m_cols_run (built for the split, the
/// shape above), which is erased; @m_run (a shape the split does not know)
/// stays as it is. Without `from` (the first RUN), nothing is split.

memref.global "private" constant @wh : memref<4x128x64xf32> = dense<1.0>

// CHECK-LABEL: func.func @m_run(
// CHECK-NOT: @m_cols_step
// FROM-LABEL: func.func @m_run(
// FROM-NOT: rnn.column_split
// FROM-LABEL: func.func @m_cols_step(
// FROM-SAME:    %{{.*}}: memref<2x128xf32>, %{{.*}}: memref<1x128xf32>, %{{.*}}: i32, %{{.*}}: i32,
// FROM-NOT:     rnn.column_split
// FROM:         scf.if
// FROM-NOT: func.func @m_cols_run
func.func @m_run(%x: memref<1x3x4xf32> {rnn.name = "x"},
                 %y: memref<1x3x128xf32> {rnn.name = "y", rnn.output},
                 %ws: memref<8192xi8> {rnn.workspace}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %status = arith.constant 0 : i32
  %h = memref.view %ws[%c0][] : memref<8192xi8> to memref<1x128xf32>
  memref.store %zero, %y[%c0, %c0, %c0] : memref<1x3x128xf32>
  scf.for %t = %c0 to %c3 step %c1 {
    %yt = memref.subview %y[0, %t, 0] [1, 1, 128] [1, 1, 1] : memref<1x3x128xf32> to memref<1x128xf32, strided<[384, 1], offset: ?>>
    scf.for %u = %c0 to %c128 step %c1 {
      %hu = memref.load %h[%c0, %u] : memref<1x128xf32>
      memref.store %hu, %h[%c0, %u] : memref<1x128xf32>
      memref.store %hu, %yt[%c0, %u] : memref<1x128xf32, strided<[384, 1], offset: ?>>
    }
  }
  return %status : i32
}

func.func @m_cols_run(%x: memref<1x3x4xf32> {rnn.name = "x"},
                 %y: memref<1x3x128xf32> {rnn.name = "y", rnn.output},
                 %ws: memref<8192xi8> {rnn.workspace}) -> i32 attributes {rnn.column_split = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %c2048 = arith.constant 2048 : index
  %c4096 = arith.constant 4096 : index
  %c2 = arith.constant 2 : index
  %ok = arith.constant true
  %zero = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : vector<1x64xf32>
  %status = arith.constant 0 : i32
  %wh = memref.get_global @wh : memref<4x128x64xf32>
  scf.if %ok {
    %h = memref.view %ws[%c0][] : memref<8192xi8> to memref<1x128xf32>
    scf.for %u = %c0 to %c128 step %c1 {
      memref.store %zero, %h[%c0, %u] : memref<1x128xf32>
    }
    %pre = memref.view %ws[%c2048][] : memref<8192xi8> to memref<3x256xf32>
    scf.for %col = %c0 to %c256 step %c64 {
      scf.for %t = %c0 to %c3 step %c1 {
        %block = memref.subview %pre[%t, %col] [1, 64] [1, 1] : memref<3x256xf32> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        vector.transfer_write %zeros, %block[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      }
    }
    %rec = memref.view %ws[%c4096][] : memref<8192xi8> to memref<1x256xf32>
    scf.for %t = %c0 to %c3 step %c1 {
      %odd = arith.remui %t, %c2 : index
      %reversed = arith.cmpi ne, %odd, %c0 : index
      scf.for %p = %c0 to %c256 step %c64 {
        %back = arith.subi %c192, %p : index
        %col = arith.select %reversed, %back, %p : index
        %block = memref.subview %rec[0, %col] [1, 64] [1, 1] : memref<1x256xf32> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zeros) -> (vector<1x64xf32>) {
          %panel = arith.divui %col, %c64 : index
          %hk = memref.load %h[%c0, %k] : memref<1x128xf32>
          %w = vector.transfer_read %wh[%panel, %k, %c0], %zero {in_bounds = [true, true]} : memref<4x128x64xf32>, vector<1x64xf32>
          %hv = vector.broadcast %hk : f32 to vector<1x64xf32>
          %next = vector.fma %hv, %w, %acc : vector<1x64xf32>
          scf.yield %next : vector<1x64xf32>
        }
        vector.transfer_write %sum, %block[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      }
      %yt = memref.subview %y[0, %t, 0] [1, 1, 128] [1, 1, 1] : memref<1x3x128xf32> to memref<1x128xf32, strided<[384, 1], offset: ?>>
      scf.for %u = %c0 to %c128 step %c1 {
        %u2 = arith.addi %u, %c128 : index
        %a = memref.load %pre[%t, %u] : memref<3x256xf32>
        %b = memref.load %pre[%t, %u2] : memref<3x256xf32>
        %r = memref.load %rec[%c0, %u] : memref<1x256xf32>
        %s = memref.load %rec[%c0, %u2] : memref<1x256xf32>
        %hu = memref.load %h[%c0, %u] : memref<1x128xf32>
        %ar = arith.addf %a, %r : f32
        %bs = arith.addf %b, %s : f32
        %g = arith.mulf %ar, %bs : f32
        %new = arith.addf %g, %hu : f32
        memref.store %new, %h[%c0, %u] : memref<1x128xf32>
        memref.store %new, %yt[%c0, %u] : memref<1x128xf32, strided<[384, 1], offset: ?>>
      }
    }
  }
  return %status : i32
}

// -----

/// An intrinsic on values only (the int8 kernels' vpdpbusd) writes no
/// memory: the step is split as without it. One with a pointer operand
/// (here a prefetch) might write through it: no step function.

memref.global "private" constant @wh : memref<4x128x64xf32> = dense<1.0>
// CHECK-LABEL: func.func @m_run(
// CHECK-LABEL: func.func @m_cols_step(
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
func.func @m_run(%x: memref<1x3x4xf32> {rnn.name = "x"},
                 %y: memref<1x3x128xf32> {rnn.name = "y", rnn.output},
                 %ws: memref<8192xi8> {rnn.workspace}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %c2048 = arith.constant 2048 : index
  %c4096 = arith.constant 4096 : index
  %c2 = arith.constant 2 : index
  %ok = arith.constant true
  %zero = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : vector<1x64xf32>
  %status = arith.constant 0 : i32
  %acc32 = arith.constant dense<0> : vector<16xi32>
  %bytes = arith.constant dense<1> : vector<64xi8>
  %wh = memref.get_global @wh : memref<4x128x64xf32>
  scf.if %ok {
    %h = memref.view %ws[%c0][] : memref<8192xi8> to memref<1x128xf32>
    scf.for %u = %c0 to %c128 step %c1 {
      memref.store %zero, %h[%c0, %u] : memref<1x128xf32>
    }
    %pre = memref.view %ws[%c2048][] : memref<8192xi8> to memref<3x256xf32>
    scf.for %col = %c0 to %c256 step %c64 {
      scf.for %t = %c0 to %c3 step %c1 {
        %block = memref.subview %pre[%t, %col] [1, 64] [1, 1] : memref<3x256xf32> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        vector.transfer_write %zeros, %block[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      }
    }
    %rec = memref.view %ws[%c4096][] : memref<8192xi8> to memref<1x256xf32>
    scf.for %t = %c0 to %c3 step %c1 {
      %odd = arith.remui %t, %c2 : index
      %reversed = arith.cmpi ne, %odd, %c0 : index
      scf.for %p = %c0 to %c256 step %c64 {
        %back = arith.subi %c192, %p : index
        %col = arith.select %reversed, %back, %p : index
        %block = memref.subview %rec[0, %col] [1, 64] [1, 1] : memref<1x256xf32> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zeros) -> (vector<1x64xf32>) {
          %panel = arith.divui %col, %c64 : index
          %hk = memref.load %h[%c0, %k] : memref<1x128xf32>
          %w = vector.transfer_read %wh[%panel, %k, %c0], %zero {in_bounds = [true, true]} : memref<4x128x64xf32>, vector<1x64xf32>
          %hv = vector.broadcast %hk : f32 to vector<1x64xf32>
          %next = vector.fma %hv, %w, %acc : vector<1x64xf32>
          %dot = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%acc32, %bytes, %bytes) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
          scf.yield %next : vector<1x64xf32>
        }
        vector.transfer_write %sum, %block[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      }
      %yt = memref.subview %y[0, %t, 0] [1, 1, 128] [1, 1, 1] : memref<1x3x128xf32> to memref<1x128xf32, strided<[384, 1], offset: ?>>
      scf.for %u = %c0 to %c128 step %c1 {
        %u2 = arith.addi %u, %c128 : index
        %a = memref.load %pre[%t, %u] : memref<3x256xf32>
        %b = memref.load %pre[%t, %u2] : memref<3x256xf32>
        %r = memref.load %rec[%c0, %u] : memref<1x256xf32>
        %s = memref.load %rec[%c0, %u2] : memref<1x256xf32>
        %hu = memref.load %h[%c0, %u] : memref<1x128xf32>
        %ar = arith.addf %a, %r : f32
        %bs = arith.addf %b, %s : f32
        %g = arith.mulf %ar, %bs : f32
        %new = arith.addf %g, %hu : f32
        memref.store %new, %h[%c0, %u] : memref<1x128xf32>
        memref.store %new, %yt[%c0, %u] : memref<1x128xf32, strided<[384, 1], offset: ?>>
      }
    }
  }
  return %status : i32
}

// -----

memref.global "private" constant @wh : memref<4x128x64xf32> = dense<1.0>
// CHECK-LABEL: func.func @m_run(
// CHECK-NOT: @m_cols_step
func.func @m_run(%x: memref<1x3x4xf32> {rnn.name = "x"},
                 %y: memref<1x3x128xf32> {rnn.name = "y", rnn.output},
                 %ws: memref<8192xi8> {rnn.workspace}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %c2048 = arith.constant 2048 : index
  %c4096 = arith.constant 4096 : index
  %c2 = arith.constant 2 : index
  %ok = arith.constant true
  %zero = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : vector<1x64xf32>
  %status = arith.constant 0 : i32
  %null = llvm.mlir.zero : !llvm.ptr
  %c0i32 = arith.constant 0 : i32
  %c1i32 = arith.constant 1 : i32
  %c3i32 = arith.constant 3 : i32
  %wh = memref.get_global @wh : memref<4x128x64xf32>
  scf.if %ok {
    %h = memref.view %ws[%c0][] : memref<8192xi8> to memref<1x128xf32>
    scf.for %u = %c0 to %c128 step %c1 {
      memref.store %zero, %h[%c0, %u] : memref<1x128xf32>
    }
    %pre = memref.view %ws[%c2048][] : memref<8192xi8> to memref<3x256xf32>
    scf.for %col = %c0 to %c256 step %c64 {
      scf.for %t = %c0 to %c3 step %c1 {
        %block = memref.subview %pre[%t, %col] [1, 64] [1, 1] : memref<3x256xf32> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        vector.transfer_write %zeros, %block[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      }
    }
    %rec = memref.view %ws[%c4096][] : memref<8192xi8> to memref<1x256xf32>
    scf.for %t = %c0 to %c3 step %c1 {
      %odd = arith.remui %t, %c2 : index
      %reversed = arith.cmpi ne, %odd, %c0 : index
      scf.for %p = %c0 to %c256 step %c64 {
        %back = arith.subi %c192, %p : index
        %col = arith.select %reversed, %back, %p : index
        %block = memref.subview %rec[0, %col] [1, 64] [1, 1] : memref<1x256xf32> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zeros) -> (vector<1x64xf32>) {
          %panel = arith.divui %col, %c64 : index
          %hk = memref.load %h[%c0, %k] : memref<1x128xf32>
          %w = vector.transfer_read %wh[%panel, %k, %c0], %zero {in_bounds = [true, true]} : memref<4x128x64xf32>, vector<1x64xf32>
          %hv = vector.broadcast %hk : f32 to vector<1x64xf32>
          %next = vector.fma %hv, %w, %acc : vector<1x64xf32>
          llvm.call_intrinsic "llvm.prefetch.p0"(%null, %c0i32, %c3i32, %c1i32) : (!llvm.ptr, i32, i32, i32) -> ()
          scf.yield %next : vector<1x64xf32>
        }
        vector.transfer_write %sum, %block[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      }
      %yt = memref.subview %y[0, %t, 0] [1, 1, 128] [1, 1, 1] : memref<1x3x128xf32> to memref<1x128xf32, strided<[384, 1], offset: ?>>
      scf.for %u = %c0 to %c128 step %c1 {
        %u2 = arith.addi %u, %c128 : index
        %a = memref.load %pre[%t, %u] : memref<3x256xf32>
        %b = memref.load %pre[%t, %u2] : memref<3x256xf32>
        %r = memref.load %rec[%c0, %u] : memref<1x256xf32>
        %s = memref.load %rec[%c0, %u2] : memref<1x256xf32>
        %hu = memref.load %h[%c0, %u] : memref<1x128xf32>
        %ar = arith.addf %a, %r : f32
        %bs = arith.addf %b, %s : f32
        %g = arith.mulf %ar, %bs : f32
        %new = arith.addf %g, %hu : f32
        memref.store %new, %h[%c0, %u] : memref<1x128xf32>
        memref.store %new, %yt[%c0, %u] : memref<1x128xf32, strided<[384, 1], offset: ?>>
      }
    }
  }
  return %status : i32
}
