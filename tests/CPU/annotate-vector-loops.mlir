// RUN: rnn-opt %s --rnn-annotate-vector-loops | FileCheck %s
// RUN: rnn-opt %s --rnn-annotate-vector-loops=count=2 | FileCheck %s --check-prefix=TWO
// RUN: rnn-opt %s --rnn-annotate-vector-loops=bf16-lanes=16 | FileCheck %s --check-prefix=BF16
// RUN: rnn-opt %s --rnn-annotate-vector-loops --convert-scf-to-cf --finalize-memref-to-llvm --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

/// The innermost loop of gate maths asks LLVM to interleave 4 vectors (or
/// `count`); its outer loop and loops without math functions are left
/// alone. The annotation reaches the LLVM IR as the loop's metadata. With
/// bf16-lanes, innermost loops that convert between f32 and bf16 also ask
/// for vectors of that many lanes (gate maths: both requests); without it
/// they are left to LLVM's cost model.

// CHECK-DAG: #[[$IL:.+]] = #llvm.loop_interleave<count = 4 : i32>
// CHECK-DAG: #[[$ANN:.+]] = #llvm.loop_annotation<interleave = #[[$IL]]>
// CHECK-LABEL: func.func @gates
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.tanh
// CHECK: } {loop_annotation = #[[$ANN]]}
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// CHECK-NOT: loop_annotation
// CHECK: return
// CHECK-LABEL: func.func @bf16_gates
// CHECK: } {loop_annotation = #[[$ANN]]}
// CHECK-LABEL: func.func @bf16_rows
// CHECK-NOT: loop_annotation
// CHECK: return

// TWO: #llvm.loop_interleave<count = 2 : i32>

// BF16-DAG: #[[$IL:.+]] = #llvm.loop_interleave<count = 4 : i32>
// BF16-DAG: #[[$VEC:.+]] = #llvm.loop_vectorize<disable = false, width = 16 : i32>
// BF16-DAG: #[[$MATH:.+]] = #llvm.loop_annotation<interleave = #[[$IL]]>
// BF16-DAG: #[[$BOTH:.+]] = #llvm.loop_annotation<vectorize = #[[$VEC]], interleave = #[[$IL]]>
// BF16-DAG: #[[$ROWS:.+]] = #llvm.loop_annotation<vectorize = #[[$VEC]]>
// BF16-LABEL: func.func @gates
// BF16: } {loop_annotation = #[[$MATH]]}
// BF16-LABEL: func.func @bf16_gates
// BF16: math.exp
// BF16: } {loop_annotation = #[[$BOTH]]}
// BF16-LABEL: func.func @bf16_rows
// BF16: arith.truncf
// BF16: } {loop_annotation = #[[$ROWS]]}
// BF16-NEXT: }
// BF16-NEXT: return

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

/// bf16 compute's gate maths: rounded to bf16 at Flax's points.
func.func @bf16_gates(%x: memref<64xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %v = memref.load %x[%j] : memref<64xf32>
    %e = math.exp %v : f32
    %r = arith.truncf %e : f32 to bf16
    %w = arith.extf %r : bf16 to f32
    memref.store %w, %y[%j] : memref<64xf32>
  }
  return
}

/// A row packed in bf16 for a bf16 dot: no math, a conversion.
func.func @bf16_rows(%x: memref<4x64xf32>, %y: memref<4x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %j] : memref<4x64xf32>
      %r = arith.truncf %v : f32 to bf16
      memref.store %r, %y[%i, %j] : memref<4x64xbf16>
    }
  }
  return
}
