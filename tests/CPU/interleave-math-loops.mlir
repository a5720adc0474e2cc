// RUN: rnn-opt %s --rnn-interleave-math-loops | FileCheck %s
// RUN: rnn-opt %s --rnn-interleave-math-loops=count=2 | FileCheck %s --check-prefix=TWO
// RUN: rnn-opt %s --rnn-interleave-math-loops --convert-scf-to-cf --finalize-memref-to-llvm --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

/// The innermost loop of gate maths asks LLVM to interleave 4 vectors (or
/// `count`); its outer loop and loops without math functions are left
/// alone. The annotation reaches the LLVM IR as the loop's metadata.

// CHECK: #[[$IL:.+]] = #llvm.loop_interleave<count = 4 : i32>
// CHECK: #[[$ANN:.+]] = #llvm.loop_annotation<interleave = #[[$IL]]>
// CHECK-LABEL: func.func @gates
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.tanh
// CHECK: } {loop_annotation = #[[$ANN]]}
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// CHECK-NOT: loop_annotation
// CHECK: return

// TWO: #llvm.loop_interleave<count = 2 : i32>

// LLVM-LABEL: define void @gates
// LLVM: br label %{{.+}}, !llvm.loop ![[LOOP:[0-9]+]]
// LLVM: ![[LOOP]] = distinct !{![[LOOP]], ![[COUNT:[0-9]+]]}
// LLVM: ![[COUNT]] = !{!"llvm.loop.interleave.count", i32 4}
func.func @gates(%c: memref<8x64xf32>, %h: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %c[%i, %j] : memref<8x64xf32>
      %t = math.tanh %v : f32
      memref.store %t, %h[%i, %j] : memref<8x64xf32>
    }
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %v = memref.load %c[%c0, %j] : memref<8x64xf32>
    memref.store %v, %h[%c0, %j] : memref<8x64xf32>
  }
  return
}
