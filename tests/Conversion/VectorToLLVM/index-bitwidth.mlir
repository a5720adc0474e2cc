// A vector load and store lowered with the index width of a 32-bit target:
// their address arithmetic is i32, the width the memref, arith and func
// conversions give the descriptors, so every cast reconciles. Upstream's
// convert-vector-to-llvm makes it i64, which on such a target leaves
// unrealized casts between i32 and i64 descriptors (Cortex-M55's Helium
// code once failed to translate so).

// RUN: rnn-opt %s --rnn-convert-vector-to-llvm=index-bitwidth=32 \
// RUN:   --finalize-memref-to-llvm=index-bitwidth=32 \
// RUN:   --convert-arith-to-llvm=index-bitwidth=32 \
// RUN:   --convert-func-to-llvm="use-bare-ptr-memref-call-conv=1 index-bitwidth=32" \
// RUN:   --reconcile-unrealized-casts | FileCheck %s --check-prefix=I32
// RUN: rnn-opt %s --rnn-convert-vector-to-llvm \
// RUN:   --finalize-memref-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-func-to-llvm=use-bare-ptr-memref-call-conv=1 \
// RUN:   --reconcile-unrealized-casts | FileCheck %s --check-prefix=I64

// I32-LABEL: llvm.func @axpy
// I32: llvm.getelementptr {{.*}} : (!llvm.ptr, i32) -> !llvm.ptr, f32
// I32: llvm.intr.fmuladd
// I32-NOT: unrealized_conversion_cast
// I64-LABEL: llvm.func @axpy
// I64: llvm.getelementptr {{.*}} : (!llvm.ptr, i64) -> !llvm.ptr, f32
// I64-NOT: unrealized_conversion_cast
func.func @axpy(%x: memref<2x16xf32>, %y: memref<2x16xf32>, %a: f32) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %va = vector.broadcast %a : f32 to vector<4xf32>
  %vx = vector.load %x[%c1, %c4] : memref<2x16xf32>, vector<4xf32>
  %vy = vector.load %y[%c1, %c4] : memref<2x16xf32>, vector<4xf32>
  %r = vector.fma %va, %vx, %vy : vector<4xf32>
  vector.store %r, %y[%c1, %c4] : memref<2x16xf32>, vector<4xf32>
  return
}
