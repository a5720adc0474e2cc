// RUN: rnn-opt %s --rnn-approximate-math | FileCheck %s
// RUN: rnn-opt %s --rnn-approximate-math --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s --check-prefix=OUT

/// exp, expm1 and tanh become plain arithmetic; other math ops stay.

// CHECK-LABEL: func.func @gate_functions
// CHECK-NOT: math.exp
// CHECK-NOT: math.expm1
// CHECK-NOT: math.tanh
// CHECK: math.sqrt
func.func @gate_functions(%x: f32) -> (f32, f32, f32, f32) {
  %a = math.exp %x : f32
  %b = math.expm1 %x : f32
  %c = math.tanh %x : f32
  %d = math.sqrt %x : f32
  return %a, %b, %c, %d : f32, f32, f32, f32
}

/// The approximations are accurate: exp(1), expm1(1e-4), tanh(0.5), tanh(-8).
// OUT-LABEL: approximations
// OUT-NEXT: 2.71828
// OUT-NEXT: 0.000100005
// OUT-NEXT: 0.462117
// OUT-NEXT: -1
func.func private @printF32(f32)
func.func private @printNewline()
func.func private @printString(!llvm.ptr)
func.func @show(%v: f32) {
  call @printF32(%v) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}
func.func @main() {
  %one = arith.constant 1.0 : f32
  %small = arith.constant 1.0e-4 : f32
  %half = arith.constant 0.5 : f32
  %big = arith.constant -8.0 : f32
  %e = math.exp %one : f32
  %m = math.expm1 %small : f32
  %t = math.tanh %half : f32
  %s = math.tanh %big : f32
  %label = llvm.mlir.addressof @label : !llvm.ptr
  call @printString(%label) : (!llvm.ptr) -> ()
  call @printNewline() : () -> ()
  call @show(%e) : (f32) -> ()
  call @show(%m) : (f32) -> ()
  call @show(%t) : (f32) -> ()
  call @show(%s) : (f32) -> ()
  return
}
llvm.mlir.global internal constant @label("approximations\00") {addr_space = 0 : i32}
