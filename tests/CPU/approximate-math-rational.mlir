// RUN: rnn-opt %s --rnn-approximate-math=rational-gates=true | FileCheck %s
// RUN: rnn-opt %s --rnn-approximate-math="rational-gates=true approximate-other=false" | FileCheck %s --check-prefix=GATES
// RUN: rnn-opt %s --rnn-approximate-math=rational-gates=true --convert-scf-to-cf --convert-vector-to-llvm --convert-math-to-llvm --convert-math-to-libm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s --check-prefix=OUT

/// rational-gates (scalar FPUs): a scalar sigmoid, 1 / (1 + exp(-x)), is
/// 1/2 + x P(x^2) / Q(x^2) for x^2 < 18^2, and beyond (or NaN) a branch to
/// 0, 1 or x; no exp, no bit casts.

// CHECK-LABEL: func.func @sigmoid
// CHECK-SAME: (%[[X:.+]]: f32)
// CHECK-NOT: math.exp
// CHECK-NOT: arith.bitcast
// CHECK: %[[S:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[IN:.+]] = arith.cmpf olt, %[[S]], %{{.+}} : f32
// CHECK: %[[R:.+]] = scf.if %[[IN]] -> (f32) {
// CHECK-COUNT-8: math.fma %{{.+}}, %[[S]], %{{.+}} : f32
// CHECK: %[[Q:.+]] = arith.divf
// CHECK: %[[V:.+]] = math.fma %[[X]], %[[Q]], %{{.+}} : f32
// CHECK: scf.yield %[[V]] : f32
// CHECK: } else {
// CHECK: arith.cmpf ogt, %[[X]]
// CHECK: arith.cmpf olt, %[[X]]
// CHECK: arith.select
// CHECK: %[[SAT:.+]] = arith.select
// CHECK: scf.yield %[[SAT]] : f32
// CHECK: return %[[R]]
func.func @sigmoid(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %neg = arith.negf %x : f32
  %exp = math.exp %neg : f32
  %den = arith.addf %one, %exp : f32
  %s = arith.divf %one, %den : f32
  return %s : f32
}

/// A scalar tanh: x P(x^2) / Q(x^2) for x^2 < 81, with a branch. Vectors
/// clamp x to [-9, 9] instead (a branch cannot select lanes).

// CHECK-LABEL: func.func @tanh_f32
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
// CHECK: arith.cmpf olt
// CHECK: scf.if
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK-LABEL: func.func @tanh_vector
// CHECK-NOT: scf.if
// CHECK: arith.cmpf ult
// CHECK: arith.divf
// CHECK-NOT: math.tanh
// CHECK-LABEL: func.func @other_exp
func.func @tanh_f32(%x: f32) -> f32 {
  %t = math.tanh %x : f32
  return %t : f32
}
func.func @tanh_vector(%x: vector<4xf32>) -> vector<4xf32> {
  %t = math.tanh %x : vector<4xf32>
  return %t : vector<4xf32>
}

/// approximate-other=false (the C path): the gates only; another exp (a
/// softmax's) stays for librnnrt.

// GATES-LABEL: func.func @other_exp
// GATES: math.exp
// GATES-NOT: arith.bitcast
func.func @other_exp(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}

/// The approximations saturate exactly and keep NaN: sigmoid(-inf),
/// sigmoid(inf), sigmoid(-100), sigmoid(NaN), tanh(30), tanh(-inf),
/// tanh(NaN), and tanh(0.5).
// OUT-LABEL: approximations
// OUT-NEXT: 0
// OUT-NEXT: 1
// OUT-NEXT: 0
// OUT-NEXT: nan
// OUT-NEXT: 1
// OUT-NEXT: -1
// OUT-NEXT: nan
// OUT-NEXT: 0.462117

/// Over a sweep (every 1/1024 on [-20, 20], every 2^-16 on [-1/8, 1/8])
/// against double-precision libm: sigmoid within 2.5e-7 absolute (and 3e-4
/// relative above 1e-3), tanh within 4e-7 absolute and relative.
// OUT-LABEL: sweep
// OUT-NEXT: 1
// OUT-NEXT: 1
// OUT-NEXT: 1
// OUT-NEXT: 1
func.func private @printF32(f32)
func.func private @printI64(i64)
func.func private @printNewline()
func.func private @printString(!llvm.ptr)
func.func @show(%v: f32) {
  call @printF32(%v) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}
func.func @showBelow(%error: f64, %bound: f64) {
  %ok = arith.cmpf olt, %error, %bound : f64
  %flag = arith.extui %ok : i1 to i64
  call @printI64(%flag) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}

/// The largest absolute and relative errors of sigmoid (or tanh, %isTanh)
/// at x = first + i * step, i in [0, count); sigmoid's relative error only
/// where it is above 1e-3 (the rational form keeps an absolute bound).
func.func @errors(%first: f64, %step: f64, %count: index, %isTanh: i1) -> (f64, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %one32 = arith.constant 1.0 : f32
  %r:2 = scf.for %i = %c0 to %count step %c1 iter_args(%abs = %zero, %rel = %zero) -> (f64, f64) {
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %x64 = math.fma %fi, %step, %first : f64
    %x = arith.truncf %x64 : f64 to f32
    %xe = arith.extf %x : f32 to f64
    %got, %want = scf.if %isTanh -> (f32, f64) {
      %t = math.tanh %x : f32
      %w = math.tanh %xe : f64
      scf.yield %t, %w : f32, f64
    } else {
      %neg = arith.negf %x : f32
      %exp = math.exp %neg : f32
      %den = arith.addf %one32, %exp : f32
      %s = arith.divf %one32, %den : f32
      %negx = arith.negf %xe : f64
      %exp64 = math.exp %negx : f64
      %den64 = arith.addf %one, %exp64 : f64
      %w = arith.divf %one, %den64 : f64
      scf.yield %s, %w : f32, f64
    }
    %got64 = arith.extf %got : f32 to f64
    %diff = arith.subf %got64, %want : f64
    %err = math.absf %diff : f64
    %mag = math.absf %want : f64
    // 0 / 0 at x = 0, which maxnumf skips.
    %relerr0 = arith.divf %err, %mag : f64
    %thousandth = arith.constant 1.0e-3 : f64
    %counts = arith.cmpf ogt, %mag, %thousandth : f64
    %useRel = arith.ori %counts, %isTanh : i1
    %relerr = arith.select %useRel, %relerr0, %zero : f64
    %abs1 = arith.maximumf %abs, %err : f64
    %rel1 = arith.maxnumf %rel, %relerr : f64
    scf.yield %abs1, %rel1 : f64, f64
  }
  return %r#0, %r#1 : f64, f64
}

func.func @sigmoidOf(%x: f32) -> f32 {
  %s = call @sigmoid(%x) : (f32) -> f32
  return %s : f32
}

func.func @main() {
  %label = llvm.mlir.addressof @label : !llvm.ptr
  call @printString(%label) : (!llvm.ptr) -> ()
  call @printNewline() : () -> ()
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %m100 = arith.constant -100.0 : f32
  %thirty = arith.constant 30.0 : f32
  %half = arith.constant 0.5 : f32
  %s0 = call @sigmoidOf(%ninf) : (f32) -> f32
  %s1 = call @sigmoidOf(%inf) : (f32) -> f32
  %s2 = call @sigmoidOf(%m100) : (f32) -> f32
  %s3 = call @sigmoidOf(%nan) : (f32) -> f32
  %t0 = call @tanh_f32(%thirty) : (f32) -> f32
  %t1 = call @tanh_f32(%ninf) : (f32) -> f32
  %t2 = call @tanh_f32(%nan) : (f32) -> f32
  %t3 = call @tanh_f32(%half) : (f32) -> f32
  call @show(%s0) : (f32) -> ()
  call @show(%s1) : (f32) -> ()
  call @show(%s2) : (f32) -> ()
  call @show(%s3) : (f32) -> ()
  call @show(%t0) : (f32) -> ()
  call @show(%t1) : (f32) -> ()
  call @show(%t2) : (f32) -> ()
  call @show(%t3) : (f32) -> ()

  %sweep = llvm.mlir.addressof @sweepLabel : !llvm.ptr
  call @printString(%sweep) : (!llvm.ptr) -> ()
  call @printNewline() : () -> ()
  %wide0 = arith.constant -20.0 : f64
  %wideStep = arith.constant 0.0009765625 : f64
  %wideCount = arith.constant 40961 : index
  %narrow0 = arith.constant -0.125 : f64
  %narrowStep = arith.constant 1.52587890625e-05 : f64
  %narrowCount = arith.constant 16385 : index
  %false = arith.constant false
  %true = arith.constant true
  %sa, %sr = call @errors(%wide0, %wideStep, %wideCount, %false) : (f64, f64, index, i1) -> (f64, f64)
  %ta, %tr = call @errors(%wide0, %wideStep, %wideCount, %true) : (f64, f64, index, i1) -> (f64, f64)
  %na, %nr = call @errors(%narrow0, %narrowStep, %narrowCount, %true) : (f64, f64, index, i1) -> (f64, f64)
  %tabs = arith.maximumf %ta, %na : f64
  %trel = arith.maximumf %tr, %nr : f64
  %b25 = arith.constant 2.5e-7 : f64
  %b3 = arith.constant 3.0e-4 : f64
  %b4 = arith.constant 4.0e-7 : f64
  call @showBelow(%sa, %b25) : (f64, f64) -> ()
  call @showBelow(%sr, %b3) : (f64, f64) -> ()
  call @showBelow(%tabs, %b4) : (f64, f64) -> ()
  call @showBelow(%trel, %b4) : (f64, f64) -> ()
  return
}
llvm.mlir.global internal constant @label("approximations\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @sweepLabel("sweep\00") {addr_space = 0 : i32}
