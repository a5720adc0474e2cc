// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=4 tile-n=64 alternate-sweeps=true" --canonicalize --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=4 tile-n=64" --canonicalize --split-input-file | FileCheck %s --check-prefix=OFF

/// The recurrent matmul of a time loop reads the same weights every step:
/// odd steps walk the column blocks and k backwards (mirrored indices), so
/// each step starts on what the previous one read last. The row-block loop
/// (it does not index the weights) keeps its order.

// CHECK-LABEL: func.func @time_loop
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C63:.*]] = arith.constant 63 : index
// CHECK-DAG: %[[C192:.*]] = arith.constant 192 : index
// CHECK: scf.for %[[T:[^ ]+]] =
// CHECK:   %[[PARITY:.*]] = arith.remui %[[T]], %[[C2]]
// CHECK:   %[[BACKWARD:.*]] = arith.cmpi ne, %[[PARITY]], %{{.*}}
// CHECK:   scf.for %[[J:[^ ]+]] = {{.*}} step %c64
// CHECK:     %[[MJ:.*]] = arith.subi %[[C192]], %[[J]]
// CHECK:     %[[VJ:.*]] = arith.select %[[BACKWARD]], %[[MJ]], %[[J]]
// CHECK:     scf.for %[[I:[^ ]+]] = {{.*}} step %c4
// CHECK-NOT:   arith.select
// CHECK:       tensor.extract_slice %{{.*}}[%[[I]], 0] [4, 64]
// CHECK:       tensor.extract_slice %{{.*}}[0, %[[VJ]]] [64, 64]
// CHECK:       scf.for %[[K:[^ ]+]] =
// CHECK:         %[[MK:.*]] = arith.subi %[[C63]], %[[K]]
// CHECK:         %[[VK:.*]] = arith.select %[[BACKWARD]], %[[MK]], %[[K]]
// CHECK:         tensor.extract_slice %{{.*}}[0, %[[VK]]] [4, 1]
// CHECK:         tensor.extract_slice %{{.*}}[%[[VK]], 0] [1, 64]
// OFF-LABEL: func.func @time_loop
// OFF-NOT: arith.select
// OFF-NOT: arith.subi
// OFF: return
func.func @time_loop(%h0: tensor<8x64xf32>, %w: tensor<64x256xf32>) -> tensor<8x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c8 step %c1 iter_args(%h = %h0) -> tensor<8x64xf32> {
    %e = tensor.empty() : tensor<8x256xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
    %g = linalg.matmul ins(%h, %w : tensor<8x64xf32>, tensor<64x256xf32>) outs(%acc : tensor<8x256xf32>) -> tensor<8x256xf32>
    %n = tensor.extract_slice %g[0, 0] [8, 64] [1, 1] : tensor<8x256xf32> to tensor<8x64xf32>
    scf.yield %n : tensor<8x64xf32>
  }
  return %r : tensor<8x64xf32>
}

// -----

/// Two reads per iteration (a loop unrolled twice): the parity is static,
/// the second read of each iteration runs backwards, the first forwards.

// CHECK-LABEL: func.func @two_per_step
// CHECK: scf.for
// CHECK-NOT: arith.remui
// CHECK:   scf.for %[[J1:[^ ]+]] = {{.*}} step %c64
// CHECK-NOT: arith.subi
// CHECK:     tensor.extract_slice %{{.*}}[0, %[[J1]]] [64, 64]
// CHECK:   scf.for %[[J2:[^ ]+]] = {{.*}} step %c64
// CHECK:     %[[M2:.*]] = arith.subi %{{.*}}, %[[J2]]
// CHECK-NOT: arith.select
// CHECK:     tensor.extract_slice %{{.*}}[0, %[[M2]]] [64, 64]
func.func @two_per_step(%h0: tensor<4x64xf32>, %w: tensor<64x256xf32>, %acc: tensor<4x256xf32>) -> tensor<4x64xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %t = %c0 to %c8 step %c2 iter_args(%h = %h0) -> tensor<4x64xf32> {
    %g = linalg.matmul ins(%h, %w : tensor<4x64xf32>, tensor<64x256xf32>) outs(%acc : tensor<4x256xf32>) -> tensor<4x256xf32>
    %n = tensor.extract_slice %g[0, 0] [4, 64] [1, 1] : tensor<4x256xf32> to tensor<4x64xf32>
    %g2 = linalg.matmul ins(%n, %w : tensor<4x64xf32>, tensor<64x256xf32>) outs(%acc : tensor<4x256xf32>) -> tensor<4x256xf32>
    %n2 = tensor.extract_slice %g2[0, 0] [4, 64] [1, 1] : tensor<4x256xf32> to tensor<4x64xf32>
    scf.yield %n2 : tensor<4x64xf32>
  }
  return %r : tensor<4x64xf32>
}

// -----

/// Weights read once (straight-line code, one matmul), or produced inside
/// the loop (a new matrix every iteration): nothing is reread, nothing
/// reversed.

// CHECK-LABEL: func.func @negative_read_once
// CHECK-NOT: arith.select
// CHECK-NOT: arith.subi
// CHECK: return
func.func @negative_read_once(%h: tensor<4x64xf32>, %w: tensor<64x256xf32>, %acc: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %0 = linalg.matmul ins(%h, %w : tensor<4x64xf32>, tensor<64x256xf32>) outs(%acc : tensor<4x256xf32>) -> tensor<4x256xf32>
  return %0 : tensor<4x256xf32>
}

// CHECK-LABEL: func.func @negative_weights_per_iteration
// CHECK-NOT: arith.select
// CHECK-NOT: arith.subi
// CHECK: return
func.func @negative_weights_per_iteration(%h: tensor<4x64xf32>, %ws: tensor<8x64x256xf32>, %acc: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %t = %c0 to %c8 step %c1 iter_args(%a = %acc) -> tensor<4x256xf32> {
    %w = tensor.extract_slice %ws[%t, 0, 0] [1, 64, 256] [1, 1, 1] : tensor<8x64x256xf32> to tensor<64x256xf32>
    %g = linalg.matmul ins(%h, %w : tensor<4x64xf32>, tensor<64x256xf32>) outs(%a : tensor<4x256xf32>) -> tensor<4x256xf32>
    scf.yield %g : tensor<4x256xf32>
  }
  return %r : tensor<4x256xf32>
}
