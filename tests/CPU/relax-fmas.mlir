// RUN: rnn-opt %s --rnn-relax-fmas | FileCheck %s

// An fma that need not be exact becomes a contractable llvm.intr.fmuladd
// (one instruction with FMA, a multiply and an add without); the exact one
// stays an fma and loses the attribute.

// CHECK-LABEL: llvm.func @fmas
llvm.func @fmas(%a: vector<8xf32>, %b: vector<8xf32>, %c: vector<8xf32>) -> vector<8xf32> {
  // CHECK: %[[R:.*]] = llvm.intr.fmuladd(%arg0, %arg1, %arg2) {fastmathFlags = #llvm.fastmath<contract>}
  %r = llvm.intr.fma(%a, %b, %c) {fastmathFlags = #llvm.fastmath<contract>} : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
  // CHECK: %[[E:.*]] = llvm.intr.fma(%[[R]], %arg1, %arg2) : (vector<8xf32>
  // CHECK-NOT: rnn.exact_fma
  %e = llvm.intr.fma(%r, %b, %c) {rnn.exact_fma} : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
  // CHECK: llvm.return %[[E]]
  llvm.return %e : vector<8xf32>
}
