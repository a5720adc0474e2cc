// RUN: rnn-opt %s --rnn-convert-buffers-to-emitc --split-input-file | FileCheck %s

// Buffers are pointers to their first element: an access uses the strides
// of the memref type, the workspace views are byte offsets, subviews move
// the pointer, constants are flat static const arrays, librnnrt is called by
// name, math calls libm. rnn.* argument attributes stay.

// CHECK-LABEL: emitc.global static const @rnnc_constant_2x3xf32 : !emitc.array<6xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]>
// CHECK-NOT:   memref.global
// CHECK-LABEL: emitc.func @m_run(
// CHECK-SAME:    %[[X:.*]]: !emitc.ptr<f32> {rnn.name = "x"}, %[[L:.*]]: !emitc.ptr<i32> {rnn.name = "seq_lengths"},
// CHECK-SAME:    %[[Y:.*]]: !emitc.ptr<f32> {rnn.name = "y"}, %[[WS:.*]]: !emitc.ptr<i8> {rnn.workspace}) -> i32
// CHECK-NOT:   specifiers
memref.global "private" constant @__constant_2x3xf32 : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
func.func private @rnnrt_check_seq_lengths(memref<1xi32>, i64, i64) -> i32
func.func private @rnnrt_flip_sequences_f32(memref<1xf32>, memref<1xf32>, memref<1xi32>, i64, i64, i64, i32) -> i32
func.func @m_run(%x: memref<2x4x3xf32> {rnn.name = "x"}, %l: memref<2xi32> {rnn.name = "seq_lengths"},
                 %y: memref<2x4x3xf32> {rnn.name = "y"}, %ws: memref<256xi8> {rnn.workspace}) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %i2 = arith.constant 2 : i64
  %i3 = arith.constant 3 : i64
  %i4 = arith.constant 4 : i64
  %zero = arith.constant 0 : i32
  %false = arith.constant 0 : i32
  // The global's address as a pointer; const is cast away (it is only
  // read) through uintptr_t, which -Wcast-qual accepts.
  // CHECK:      %[[G:.*]] = literal "(uintptr_t) rnnc_constant_2x3xf32" : !emitc.opaque<"uintptr_t">
  // CHECK-NEXT: %[[GP:.*]] = cast %[[G]] : !emitc.opaque<"uintptr_t"> to !emitc.ptr<f32>
  %w = memref.get_global @__constant_2x3xf32 : memref<2x3xf32>
  // A buffer passed to librnnrt is the pointer itself.
  // CHECK:      %[[STATUS:.*]] = call_opaque "rnnrt_check_seq_lengths"(%[[L]], %{{.*}}, %{{.*}}) : (!emitc.ptr<i32>, i64, i64) -> i32
  %lp = memref.reinterpret_cast %l to offset: [0], sizes: [1], strides: [1] : memref<2xi32> to memref<1xi32>
  %status = func.call @rnnrt_check_seq_lengths(%lp, %i2, %i4) : (memref<1xi32>, i64, i64) -> i32
  // View at byte 0: a cast; at byte 128: the address of that byte. Both go
  // through void *, which -Wcast-align accepts (the workspace's offsets are
  // aligned).
  // CHECK:      %[[V0:.*]] = cast %[[WS]] : !emitc.ptr<i8> to !emitc.ptr<!emitc.opaque<"void">>
  // CHECK-NEXT: %[[T0:.*]] = cast %[[V0]] : !emitc.ptr<!emitc.opaque<"void">> to !emitc.ptr<f32>
  // CHECK-NEXT: %[[B128:.*]] = literal "128" : !emitc.size_t
  // CHECK-NEXT: %[[BYTE:.*]] = subscript %[[WS]][%[[B128]]] : (!emitc.ptr<i8>, !emitc.size_t) -> !emitc.lvalue<i8>
  // CHECK-NEXT: %[[ADDR:.*]] = address_of %[[BYTE]] : !emitc.lvalue<i8>
  // CHECK-NEXT: %[[V1:.*]] = cast %[[ADDR]] : !emitc.ptr<i8> to !emitc.ptr<!emitc.opaque<"void">>
  // CHECK-NEXT: %[[T1:.*]] = cast %[[V1]] : !emitc.ptr<!emitc.opaque<"void">> to !emitc.ptr<f32>
  %t0 = memref.view %ws[%c0][] : memref<256xi8> to memref<2x4x3xf32>
  %t1 = memref.view %ws[%c128][] : memref<256xi8> to memref<2x3xf32>
  // An unused status is not a C variable.
  // CHECK:      call_opaque "rnnrt_flip_sequences_f32"(%[[X]], %[[T0]], %[[L]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!emitc.ptr<f32>, !emitc.ptr<f32>, !emitc.ptr<i32>, i64, i64, i64, i32) -> ()
  %xp = memref.reinterpret_cast %x to offset: [0], sizes: [1], strides: [1] : memref<2x4x3xf32> to memref<1xf32>
  %t0p = memref.reinterpret_cast %t0 to offset: [0], sizes: [1], strides: [1] : memref<2x4x3xf32> to memref<1xf32>
  %unused = func.call @rnnrt_flip_sequences_f32(%xp, %t0p, %lp, %i2, %i4, %i3, %false) : (memref<1xf32>, memref<1xf32>, memref<1xi32>, i64, i64, i64, i32) -> i32
  %ok = arith.cmpi eq, %status, %zero : i32
  // CHECK:      if
  scf.if %ok {
    // CHECK:      for %[[T:.*]] = {{.*}} : !emitc.size_t {
    scf.for %t = %c0 to %c4 step %c1 {
      // The time step t of x: &x[t * 3], with x's strides [4 * 3, 3, 1].
      // CHECK:      %[[THREE:.*]] = literal "3" : !emitc.size_t
      // CHECK-NEXT: %[[OFF:.*]] = mul %[[T]], %[[THREE]] : (!emitc.size_t, !emitc.size_t) -> !emitc.size_t
      // CHECK-NEXT: %[[E:.*]] = subscript %[[T0]][%[[OFF]]] : (!emitc.ptr<f32>, !emitc.size_t) -> !emitc.lvalue<f32>
      // CHECK-NEXT: %[[STEP:.*]] = address_of %[[E]] : !emitc.lvalue<f32>
      %step = memref.subview %t0[0, %t, 0] [2, 1, 3] [1, 1, 1] : memref<2x4x3xf32> to memref<2x3xf32, strided<[12, 1], offset: ?>>
      // CHECK:      for %[[B:.*]] = {{.*}} {
      // CHECK-NEXT:   for %[[F:.*]] = {{.*}} {
      scf.for %b = %c0 to %c2 step %c1 {
        scf.for %f = %c0 to %c3 step %c1 {
          // step[b, f] is step[b * 12 + f]; w[b, f] is w[b * 3 + f].
          // CHECK:      %[[TWELVE:.*]] = literal "12" : !emitc.size_t
          // CHECK-NEXT: %[[BS:.*]] = mul %[[B]], %[[TWELVE]]
          // CHECK-NEXT: %[[I:.*]] = add %[[BS]], %[[F]]
          // CHECK-NEXT: %[[LV:.*]] = subscript %[[STEP]][%[[I]]] : (!emitc.ptr<f32>, !emitc.size_t) -> !emitc.lvalue<f32>
          // CHECK-NEXT: %[[V:.*]] = load %[[LV]] : <f32>
          // CHECK-NEXT: %[[BW:.*]] = mul %[[B]], %[[THREE]]
          // CHECK-NEXT: %[[WI:.*]] = add %[[BW]], %[[F]]
          // CHECK-NEXT: %[[WLV:.*]] = subscript %[[GP]][%[[WI]]]
          // CHECK-NEXT: %[[WV:.*]] = load %[[WLV]] : <f32>
          %v = memref.load %step[%b, %f] : memref<2x3xf32, strided<[12, 1], offset: ?>>
          %wv = memref.load %w[%b, %f] : memref<2x3xf32>
          // CHECK:      %[[E1:.*]] = call_opaque "expm1f"
          // CHECK:      %[[TH:.*]] = call_opaque "rnnrt_tanhf"(%[[E1]]) : (f32) -> f32
          %s = arith.addf %v, %wv : f32
          %e = math.expm1 %s : f32
          %th = math.tanh %e : f32
          // A constant index folds into the offset: t1[1, f] is t1[f + 3];
          // equal expressions are shared (the literal 3 of the loop).
          // CHECK:      %[[SI:.*]] = add %[[F]], %[[THREE]]
          // CHECK-NEXT: %[[SLV:.*]] = subscript %[[T1]][%[[SI]]]
          // CHECK-NEXT: assign %[[TH]] : f32 to %[[SLV]] : <f32>
          memref.store %th, %t1[%c1, %f] : memref<2x3xf32>
        }
      }
    }
    // A contiguous copy is a flat loop.
    // CHECK:      %[[LB:.*]] = literal "0" : !emitc.size_t
    // CHECK-NEXT: %[[UB:.*]] = literal "24" : !emitc.size_t
    // CHECK-NEXT: %[[ONE:.*]] = literal "1" : !emitc.size_t
    // CHECK-NEXT: for %[[K:.*]] = %[[LB]] to %[[UB]] step %[[ONE]] : !emitc.size_t {
    // CHECK-NEXT:   %[[FROM:.*]] = subscript %[[T0]][%[[K]]]
    // CHECK-NEXT:   %[[TO:.*]] = subscript %[[Y]][%[[K]]]
    // CHECK-NEXT:   %[[CV:.*]] = load %[[FROM]] : <f32>
    // CHECK-NEXT:   assign %[[CV]] : f32 to %[[TO]] : <f32>
    memref.copy %t0, %y : memref<2x4x3xf32> to memref<2x4x3xf32>
  }
  // CHECK:      return %[[STATUS]] : i32
  return %status : i32
}

// -----

// Reshapes keep the pointer; a reinterpret_cast at an offset moves it.
// Private functions are static; calls between functions are emitc.call.
// CHECK-LABEL: emitc.func @helper(
// CHECK-SAME:    %[[P:.*]]: !emitc.ptr<f32>) -> f32 attributes {specifiers = ["static"]}
// CHECK:       %[[SIX:.*]] = literal "6" : !emitc.size_t
// CHECK-NEXT:  %[[E:.*]] = subscript %[[P]][%[[SIX]]]
// CHECK-NEXT:  %[[ADDR:.*]] = address_of %[[E]]
// CHECK:       %[[LV:.*]] = subscript %[[ADDR]][%{{.*}}]
// CHECK-NEXT:  load %[[LV]]
func.func private @helper(%m: memref<2x6xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %flat = memref.collapse_shape %m [[0, 1]] : memref<2x6xf32> into memref<12xf32>
  %back = memref.expand_shape %flat [[0, 1]] output_shape [3, 4] : memref<12xf32> into memref<3x4xf32>
  %second = memref.reinterpret_cast %back to offset: [6], sizes: [6], strides: [1] : memref<3x4xf32> to memref<6xf32, strided<[1], offset: 6>>
  %v = memref.load %second[%c1] : memref<6xf32, strided<[1], offset: 6>>
  return %v : f32
}
// CHECK-LABEL: emitc.func @caller(
// CHECK:       call @helper(%{{.*}}) : (!emitc.ptr<f32>) -> f32
func.func @caller(%m: memref<2x6xf32>) -> f32 {
  %v = func.call @helper(%m) : (memref<2x6xf32>) -> f32
  return %v : f32
}

// -----

// The gates' maths on f32 is librnnrt's inline, errno-free rnnrt_expf and
// rnnrt_tanhf, a contractable fma its RNNRT_MULADDF (rnnrt/rnnrt_math.h);
// an fma that must be exact, and f64, stay libm's.
// CHECK-LABEL: emitc.func @gate_maths(
// CHECK-SAME:    %[[X:.*]]: f32, %[[D:.*]]: f64)
// CHECK-NEXT:  %[[E:.*]] = call_opaque "rnnrt_expf"(%[[X]]) : (f32) -> f32
// CHECK-NEXT:  %[[T:.*]] = call_opaque "rnnrt_tanhf"(%[[E]]) : (f32) -> f32
// CHECK-NEXT:  %[[M:.*]] = call_opaque "RNNRT_MULADDF"(%[[T]], %[[X]], %[[E]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:  %[[F:.*]] = call_opaque "fmaf"(%[[M]], %[[X]], %[[E]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:  %[[DT:.*]] = call_opaque "tanh"(%[[D]]) : (f64) -> f64
// Dynamic int8 activations round half to even: C99's nearbyintf in the
// default rounding mode (C has no roundevenf before C23).
// CHECK:       call_opaque "nearbyintf"(%{{.*}}) : (f32) -> f32
func.func @gate_maths(%x: f32, %d: f64) -> f32 {
  %e = math.exp %x : f32
  %t = math.tanh %e : f32
  %m = math.fma %t, %x, %e : f32
  %f = math.fma %m, %x, %e {rnn.exact_fma} : f32
  %dt = math.tanh %d : f64
  %r = arith.truncf %dt : f64 to f32
  %s = arith.addf %f, %r : f32
  %q = math.roundeven %s : f32
  return %q : f32
}

// -----

// An ordered float compare is C's own operator, which is already false
// with a NaN operand (no `x == x` tests); an unordered one keeps upstream's
// lowering, which tests for NaN.
// CHECK-LABEL: emitc.func @compares(
// CHECK-SAME: %[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32)
// CHECK: cmp lt, %[[X]], %[[Y]] : (f32, f32) -> i1
// CHECK-NEXT: cmp ge, %[[X]], %[[Y]] : (f32, f32) -> i1
// CHECK-NEXT: cmp eq, %[[X]], %[[Y]] : (f32, f32) -> i1
// CHECK-NEXT: cmp ne, %[[X]], %[[X]] : (f32, f32) -> i1
func.func @compares(%x: f32, %y: f32) -> i1 {
  %lt = arith.cmpf olt, %x, %y : f32
  %ge = arith.cmpf oge, %x, %y : f32
  %eq = arith.cmpf oeq, %x, %y : f32
  %ult = arith.cmpf ult, %x, %y : f32
  %a = arith.andi %lt, %ge : i1
  %b = arith.andi %a, %eq : i1
  %c = arith.andi %b, %ult : i1
  return %c : i1
}
