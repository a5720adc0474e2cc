// RUN: rnn-opt %s --rnn-emitc-entry-abi | FileCheck %s
// RUN: rnn-opt %s --rnn-emitc-entry-abi | mlir-translate --mlir-to-cpp | FileCheck %s --check-prefix=C
// RUN: rnn-opt %s --rnn-emitc-entry-abi | mlir-translate --mlir-to-cpp > %t.c
// RUN: %cc_strict -fsyntax-only -I%rnn_src_root/runtime/include %t.c

// Inputs become `const T *` and the workspace `void *`, as the header
// declares them; the body casts them back (inputs through uintptr_t, which
// -Wcast-qual accepts: the code never writes them). Outputs stay `T *`. Unused
// parameters are voided. The module gets its includes, and each constant
// global the alignment macro, 64 bytes without an rnn.workspace_alignment.

// CHECK:      emitc.include <"math.h">
// CHECK-NEXT: emitc.include <"stdbool.h">
// CHECK-NEXT: emitc.include <"stddef.h">
// CHECK-NEXT: emitc.include <"stdint.h">
// CHECK-NEXT: emitc.include "rnnrt/rnnrt.h"
// CHECK-NEXT: emitc.include "rnnrt/rnnrt_math.h"
// CHECK-NEXT: emitc.verbatim "#ifndef RNNC_ALIGNED
// CHECK:      emitc.verbatim "RNNC_ALIGNED"
// CHECK-NEXT: emitc.global static const @w
// CHECK-LABEL: emitc.func @m_run(
// CHECK-SAME:    %[[X:.*]]: !emitc.ptr<!emitc.opaque<"const float">> {rnn.name = "x"},
// CHECK-SAME:    %[[L:.*]]: !emitc.ptr<!emitc.opaque<"const int32_t">> {rnn.name = "seq_lengths"},
// CHECK-SAME:    %[[H0:.*]]: !emitc.ptr<!emitc.opaque<"const float">> {rnn.name = "initial_carry/l0/h"},
// CHECK-SAME:    %[[Y:.*]]: !emitc.ptr<f32> {rnn.name = "y", rnn.output},
// CHECK-SAME:    %[[H:.*]]: !emitc.ptr<f32> {rnn.name = "carry/l0/h", rnn.output},
// CHECK-SAME:    %[[WS:.*]]: !emitc.ptr<!emitc.opaque<"void">> {rnn.workspace}) -> i32
// CHECK-NEXT:  %[[XU:.*]] = cast %[[X]] : !emitc.ptr<!emitc.opaque<"const float">> to !emitc.opaque<"uintptr_t">
// CHECK-NEXT:  %[[XF:.*]] = cast %[[XU]] : !emitc.opaque<"uintptr_t"> to !emitc.ptr<f32>
// CHECK-NEXT:  %[[LU:.*]] = cast %[[L]] : !emitc.ptr<!emitc.opaque<"const int32_t">> to !emitc.opaque<"uintptr_t">
// CHECK-NEXT:  %[[LI:.*]] = cast %[[LU]] : !emitc.opaque<"uintptr_t"> to !emitc.ptr<i32>
// CHECK-NEXT:  verbatim "(void){};" args %[[H0]] : !emitc.ptr<!emitc.opaque<"const float">>
// CHECK-NEXT:  verbatim "(void){};" args %[[H]] : !emitc.ptr<f32>
// CHECK-NEXT:  %[[W8:.*]] = cast %[[WS]] : !emitc.ptr<!emitc.opaque<"void">> to !emitc.ptr<i8>
// CHECK:       call_opaque "rnnrt_check_seq_lengths"(%[[LI]],
// CHECK:       cast %[[W8]] : !emitc.ptr<i8> to !emitc.ptr<f32>

// C:      #include <math.h>
// C:      #define RNNC_ALIGNED _Alignas(64)
// C:      {{^}}RNNC_ALIGNED{{$}}
// C-NEXT: static const float w[2] = {
// C:      int32_t m_run(const float* [[X:v[0-9]+]], const int32_t* [[L:v[0-9]+]], const float* [[H0:v[0-9]+]], float* [[Y:v[0-9]+]], float* [[H:v[0-9]+]], void* [[WS:v[0-9]+]]) {
// C-NEXT:   uintptr_t [[XU:v[0-9]+]] = (uintptr_t) [[X]];
// C-NEXT:   float* {{v[0-9]+}} = (float*) [[XU]];
// C-NEXT:   uintptr_t [[LU:v[0-9]+]] = (uintptr_t) [[L]];
// C-NEXT:   int32_t* {{v[0-9]+}} = (int32_t*) [[LU]];
// C-NEXT:   (void)[[H0]];
// C-NEXT:   (void)[[H]];
// C-NEXT:   int8_t* {{v[0-9]+}} = (int8_t*) [[WS]];

emitc.global static const @w : !emitc.array<2xf32> = dense<[1.0, 2.0]>
emitc.func @m_run(%x: !emitc.ptr<f32> {rnn.name = "x"}, %l: !emitc.ptr<i32> {rnn.name = "seq_lengths"},
                  %h0: !emitc.ptr<f32> {rnn.name = "initial_carry/l0/h"},
                  %y: !emitc.ptr<f32> {rnn.name = "y", rnn.output}, %h: !emitc.ptr<f32> {rnn.name = "carry/l0/h", rnn.output},
                  %ws: !emitc.ptr<i8> {rnn.workspace}) -> i32 {
  %b = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  %status = call_opaque "rnnrt_check_seq_lengths"(%l, %b, %b) : (!emitc.ptr<i32>, i64, i64) -> i32
  %t = cast %ws : !emitc.ptr<i8> to !emitc.ptr<f32>
  %i = literal "0" : !emitc.size_t
  %g = get_global @w : !emitc.array<2xf32>
  %gp = cast %g : !emitc.array<2xf32> to !emitc.ptr<f32>
  %wl = subscript %gp[%i] : (!emitc.ptr<f32>, !emitc.size_t) -> !emitc.lvalue<f32>
  %wv = load %wl : <f32>
  %xl = subscript %x[%i] : (!emitc.ptr<f32>, !emitc.size_t) -> !emitc.lvalue<f32>
  %xv = load %xl : <f32>
  %s = add %xv, %wv : (f32, f32) -> f32
  %tl = subscript %t[%i] : (!emitc.ptr<f32>, !emitc.size_t) -> !emitc.lvalue<f32>
  assign %s : f32 to %tl : <f32>
  %tv = load %tl : <f32>
  %yl = subscript %y[%i] : (!emitc.ptr<f32>, !emitc.size_t) -> !emitc.lvalue<f32>
  assign %tv : f32 to %yl : <f32>
  return %status : i32
}
