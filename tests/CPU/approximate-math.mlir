// RUN: rnn-opt %s --rnn-approximate-math | FileCheck %s
// RUN: rnn-opt %s --rnn-approximate-math --convert-scf-to-cf --convert-vector-to-llvm --convert-math-to-llvm --convert-math-to-libm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s --check-prefix=OUT

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

/// The cells' sigmoid, 1 / (1 + exp(-x)), becomes 1 / (1 + 2^(-x log2 e)):
/// x clamped so that its scaled value lies in [-127, 128], rounded with
/// 1.5 * 2^23 + 127 (12583039), a degree-5 polynomial in the remainder and
/// the exponent bits of 2^n.

// CHECK-LABEL: func.func @sigmoid
// CHECK-SAME: (%[[X:.+]]: f32)
// CHECK-DAG: %[[LOG2E:.+]] = arith.constant -1.44269502 : f32
// CHECK-DAG: %[[ROUND:.+]] = arith.constant 0x4B40007F : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[LT:.+]] = arith.cmpf ult, %[[X]], %{{.+}} : f32
// CHECK: %[[HI:.+]] = arith.select %[[LT]], %[[X]], %{{.+}} : f32
// CHECK: %[[GT:.+]] = arith.cmpf ugt, %[[HI]], %{{.+}} : f32
// CHECK: %[[XC:.+]] = arith.select %[[GT]], %[[HI]], %{{.+}} : f32
// CHECK: %[[T:.+]] = math.fma %[[XC]], %[[LOG2E]], %[[ROUND]] : f32
// CHECK: %[[N:.+]] = arith.subf %[[T]], %[[ROUND]] : f32
// CHECK: %[[NEGN:.+]] = arith.negf %[[N]] : f32
// Only the reduction f = x*log2e - n must stay fused (rnn.exact_fma); the
// native emitter makes the others llvm.fmuladd.
// CHECK: %[[F:.+]] = math.fma %[[XC]], %[[LOG2E]], %[[NEGN]] {rnn.exact_fma} : f32
// CHECK-COUNT-5: math.fma %{{.+}}, %[[F]], %{{.+}} : f32
// CHECK: %[[TI:.+]] = arith.bitcast %[[T]] : f32 to i32
// CHECK: %[[BITS:.+]] = arith.shli %[[TI]], %{{.+}} : i32
// CHECK: %[[POW:.+]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK: %[[E:.+]] = arith.mulf %{{.+}}, %[[POW]] : f32
// CHECK: %[[DEN:.+]] = arith.addf %[[E]], %[[ONE]] : f32
// CHECK: %[[S:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK: return %[[S]]
func.func @sigmoid(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %neg = arith.negf %x : f32
  %exp = math.exp %neg : f32
  %den = arith.addf %one, %exp : f32
  %s = arith.divf %one, %den : f32
  return %s : f32
}

/// tanh on vectors: x P(x^2) / Q(x^2) on x clamped to [-10, 10], the
/// result clamped to [-1, 1], NaN kept.

// CHECK-LABEL: func.func @tanh_vector
// CHECK-SAME: (%[[X:.+]]: vector<16xf32>)
// CHECK: %[[LT:.+]] = arith.cmpf ult, %[[X]], %{{.+}} : vector<16xf32>
// CHECK: %[[HI:.+]] = arith.select %[[LT]], %[[X]], %{{.+}}
// CHECK: %[[GT:.+]] = arith.cmpf ugt, %[[HI]], %{{.+}} : vector<16xf32>
// CHECK: %[[XC:.+]] = arith.select %[[GT]], %[[HI]], %{{.+}}
// CHECK: %[[S:.+]] = arith.mulf %[[XC]], %[[XC]] : vector<16xf32>
// CHECK-COUNT-8: math.fma %{{.+}}, %[[S]], %{{.+}} : vector<16xf32>
// CHECK: %[[NUM:.+]] = arith.mulf %[[XC]], %{{.+}} : vector<16xf32>
// CHECK: %[[T:.+]] = arith.divf %[[NUM]], %{{.+}} : vector<16xf32>
// CHECK: %[[TLT:.+]] = arith.cmpf ult, %[[T]], %{{.+}} : vector<16xf32>
// CHECK: %[[THI:.+]] = arith.select %[[TLT]], %[[T]], %{{.+}}
// CHECK: %[[TGT:.+]] = arith.cmpf ugt, %[[THI]], %{{.+}} : vector<16xf32>
// CHECK: %[[R:.+]] = arith.select %[[TGT]], %[[THI]], %{{.+}}
// CHECK-NOT: math.exp
// CHECK: return %[[R]]
func.func @tanh_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %t = math.tanh %x : vector<16xf32>
  return %t : vector<16xf32>
}

/// Other shapes of division are left alone, and f64 keeps libm.

// CHECK-LABEL: func.func @not_gates
// CHECK: %[[E:.+]] = math.exp %{{.+}} : f64
// CHECK: math.tanh %{{.+}} : f64
// CHECK: arith.divf %{{.+}}, %{{.+}} : f32
func.func @not_gates(%x: f64, %y: f32) -> (f64, f64, f32) {
  %e = math.exp %x : f64
  %t = math.tanh %x : f64
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %den = arith.addf %one, %y : f32
  %q = arith.divf %two, %den : f32
  return %e, %t, %q : f64, f64, f32
}

/// The approximations are accurate: exp(1), expm1(1e-4), tanh(0.5), tanh(-8);
/// the gate functions saturate exactly and keep NaN: sigmoid(-inf),
/// sigmoid(inf), sigmoid(-100) (0: the true 3.7e-44 is not a normal float),
/// tanh(inf), tanh(-inf), tanh(NaN); on a vector, tanh(inf) - 1 and
/// tanh(-inf) + 1 (exactly 0: printed as 1 and -1, 1 - 6e-8 would not
/// show).
// OUT-LABEL: approximations
// OUT-NEXT: 2.71828
// OUT-NEXT: 0.000100005
// OUT-NEXT: 0.462117
// OUT-NEXT: -1
// OUT-NEXT: 0
// OUT-NEXT: 1
// OUT-NEXT: 0
// OUT-NEXT: 1
// OUT-NEXT: -1
// OUT-NEXT: nan
// OUT-NEXT: 0
// OUT-NEXT: 0

/// Over a sweep (every 1/1024 on [-20, 20], every 2^-16 on [-1/8, 1/8])
/// against double-precision libm: sigmoid within 1e-7 absolute and 4e-7
/// relative, tanh (a scalar's and a vector's) within 3e-7 absolute and
/// relative.
// OUT-LABEL: sweep
// OUT-NEXT: 1
// OUT-NEXT: 1
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

/// The largest absolute and relative errors of sigmoid (or tanh, %isTanh,
/// on a vector<1xf32> with %vector) at x = first + i * step, i in
/// [0, count).
func.func @errors(%first: f64, %step: f64, %count: index, %isTanh: i1, %vector: i1) -> (f64, f64) {
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
      %t = scf.if %vector -> f32 {
        %xv = vector.broadcast %x : f32 to vector<1xf32>
        %tv = math.tanh %xv : vector<1xf32>
        %t1 = vector.extract %tv[0] : f32 from vector<1xf32>
        scf.yield %t1 : f32
      } else {
        %t1 = math.tanh %x : f32
        scf.yield %t1 : f32
      }
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
    %relerr = arith.divf %err, %mag : f64
    %abs1 = arith.maximumf %abs, %err : f64
    %rel1 = arith.maxnumf %rel, %relerr : f64
    scf.yield %abs1, %rel1 : f64, f64
  }
  return %r#0, %r#1 : f64, f64
}

func.func @main() {
  %one = arith.constant 1.0 : f32
  %small = arith.constant 1.0e-4 : f32
  %half = arith.constant 0.5 : f32
  %big = arith.constant -8.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %m100 = arith.constant -100.0 : f32
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
  %gates = arith.constant dense<[0xFF800000, 0x7F800000, -100.0]> : vector<3xf32>
  %vone = arith.constant dense<1.0> : vector<3xf32>
  %vneg = arith.negf %gates : vector<3xf32>
  %vexp = math.exp %vneg : vector<3xf32>
  %vden = arith.addf %vone, %vexp : vector<3xf32>
  %sig = arith.divf %vone, %vden : vector<3xf32>
  %s0 = vector.extract %sig[0] : f32 from vector<3xf32>
  %s1 = vector.extract %sig[1] : f32 from vector<3xf32>
  %s2 = vector.extract %sig[2] : f32 from vector<3xf32>
  call @show(%s0) : (f32) -> ()
  call @show(%s1) : (f32) -> ()
  call @show(%s2) : (f32) -> ()
  %tinf = math.tanh %inf : f32
  %tninf = math.tanh %ninf : f32
  %tnan = math.tanh %nan : f32
  call @show(%tinf) : (f32) -> ()
  call @show(%tninf) : (f32) -> ()
  call @show(%tnan) : (f32) -> ()
  %vinf = arith.constant dense<[0x7F800000, 0xFF800000]> : vector<2xf32>
  %vt = math.tanh %vinf : vector<2xf32>
  %vtinf = vector.extract %vt[0] : f32 from vector<2xf32>
  %vtninf = vector.extract %vt[1] : f32 from vector<2xf32>
  %tinfOff = arith.subf %vtinf, %one : f32
  %tninfOff = arith.addf %vtninf, %one : f32
  call @show(%tinfOff) : (f32) -> ()
  call @show(%tninfOff) : (f32) -> ()

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
  %sa, %sr = call @errors(%wide0, %wideStep, %wideCount, %false, %false) : (f64, f64, index, i1, i1) -> (f64, f64)
  %ta, %tr = call @errors(%wide0, %wideStep, %wideCount, %true, %true) : (f64, f64, index, i1, i1) -> (f64, f64)
  %na, %nr = call @errors(%narrow0, %narrowStep, %narrowCount, %true, %true) : (f64, f64, index, i1, i1) -> (f64, f64)
  %tabs = arith.maximumf %ta, %na : f64
  %trel = arith.maximumf %tr, %nr : f64
  %ua, %ur = call @errors(%wide0, %wideStep, %wideCount, %true, %false) : (f64, f64, index, i1, i1) -> (f64, f64)
  %ma, %mr = call @errors(%narrow0, %narrowStep, %narrowCount, %true, %false) : (f64, f64, index, i1, i1) -> (f64, f64)
  %uabs = arith.maximumf %ua, %ma : f64
  %urel = arith.maximumf %ur, %mr : f64
  %b1 = arith.constant 1.0e-7 : f64
  %b4 = arith.constant 4.0e-7 : f64
  %b3 = arith.constant 3.0e-7 : f64
  call @showBelow(%sa, %b1) : (f64, f64) -> ()
  call @showBelow(%sr, %b4) : (f64, f64) -> ()
  call @showBelow(%tabs, %b3) : (f64, f64) -> ()
  call @showBelow(%trel, %b3) : (f64, f64) -> ()
  call @showBelow(%uabs, %b3) : (f64, f64) -> ()
  call @showBelow(%urel, %b3) : (f64, f64) -> ()
  return
}
llvm.mlir.global internal constant @label("approximations\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @sweepLabel("sweep\00") {addr_space = 0 : i32}
