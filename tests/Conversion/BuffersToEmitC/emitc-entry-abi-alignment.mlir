// RUN: rnn-opt %s --rnn-emitc-entry-abi | mlir-translate --mlir-to-cpp | FileCheck %s

// The constants' alignment macro follows the module's buffer alignment
// (8 on a microcontroller, whose flash pays for padding).

// CHECK: #define RNNC_ALIGNED _Alignas(8)
// CHECK: #define RNNC_ALIGNED __attribute__((aligned(8)))
// CHECK: {{^}}RNNC_ALIGNED{{$}}
// CHECK-NEXT: static const float w[2] = {
module attributes {rnn.workspace_alignment = 8 : i64} {
  emitc.global static const @w : !emitc.array<2xf32> = dense<[1.0, 2.0]>
}
