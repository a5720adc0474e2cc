// RUN: rnn-opt %s --rnn-int8-matmuls --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-int8-matmuls=instruction=vpmaddwd --split-input-file | FileCheck %s --check-prefix=PAIRS
// RUN: rnn-opt %s --rnn-int8-matmuls=accumulators=8 --split-input-file | FileCheck %s --check-prefix=ACC8
// RUN: not rnn-opt %s --rnn-int8-matmuls=instruction=vpdpbssd --split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: error: rnn-int8-matmuls: unknown instruction 'vpdpbssd' (vpdpbusd or vpmaddwd)

/// i8 x i8 -> i32 by constant weights (dynamic int8 activations): the
/// weights packed as [N/16][K/4][16 x 4] (here 1 panel, 1 group: column j's
/// 4 weights w[0..3, j] = 1, 2, 3, 4 side by side), the compensation
/// 128 * sum_k w_kj = 1280 per column, one accumulator per row (2 rows x 1
/// panel) through the loop over the K/4 groups, the 4 activation bytes of a
/// row broadcast to the 16 lanes with their sign bits flipped (q + 128).
///
/// vpmaddwd: the weights packed as [N/8c][K/2][c x 8 x 2] (2 panels of 8
/// columns, 2 pairs of k: column j's pairs (1, 2) and (3, 4)), nothing to
/// compensate; the rows sign-extended to i16 once, before the loops, and a
/// row's pair of k then one i32 broadcast to the 8 lanes; each panel's 16 bytes sign-extended, the pair sums
/// added to the accumulators (2 rows x 2 panels).

// PAIRS-LABEL: func.func @one_panel
// PAIRS: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}1, 2, 1, 2, {{.*}}], [3, 4, 3, 4, {{.*}}]]]> : tensor<1x2x32xi8>
// PAIRS-NOT: arith.constant dense<{{.*}}> : tensor<16xi32>
// PAIRS: %[[ROWS:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4xi8>) outs(%{{.*}} : tensor<2x4xi16>)
// PAIRS:   arith.extsi {{.*}} : i8 to i16
// PAIRS: %[[K:.*]]:4 = scf.for {{.*}} -> (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>)
// PAIRS:   %[[A:.*]] = vector.transfer_read %[[ROWS]]{{.*}} : tensor<2x4xi16>, vector<2xi16>
// PAIRS:   vector.bitcast %[[A]] : vector<2xi16> to vector<1xi32>
// PAIRS:   vector.broadcast {{.*}} : i32 to vector<8xi32>
// PAIRS:   vector.bitcast {{.*}} : vector<8xi32> to vector<16xi16>
// PAIRS:   %[[W:.*]] = vector.transfer_read %[[PACKED]]{{.*}} : tensor<1x2x32xi8>, vector<16xi8>
// PAIRS:   %[[W16:.*]] = arith.extsi %[[W]] : vector<16xi8> to vector<16xi16>
// PAIRS:   %[[P:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"({{.*}}, %[[W16]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// PAIRS:   arith.addi {{.*}}, %[[P]] : vector<8xi32>
// PAIRS-COUNT-3: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// PAIRS:   scf.yield
// PAIRS-NOT: arith.subi
// PAIRS: vector.transfer_write %[[K]]#0
// PAIRS-NOT: linalg.matmul

// CHECK-LABEL: func.func @one_panel
// CHECK-DAG: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}1, 2, 3, 4, 1, 2, 3, 4, {{.*}}, 1, 2, 3, 4]]]> : tensor<1x1x64xi8>
// CHECK-DAG: %[[COMP:.*]] = arith.constant dense<1280> : tensor<16xi32>
// CHECK-DAG: %[[SIGNS:.*]] = arith.constant dense<-2139062144> : vector<16xi32>
// CHECK: scf.for {{.*}} iter_args(%[[OUT:.*]] = {{.*}}) -> (tensor<2x16xi32>)
// CHECK:   scf.for %[[I:[^ ]*]] = {{.*}} to %c2{{.*}} step %c2{{.*}} iter_args(%[[OUT2:.*]] = %[[OUT]])
// CHECK:     %[[K:.*]]:2 = scf.for %[[G:[^ ]*]] = %c0{{.*}} to %c1{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>)
// CHECK:       %[[A:.*]] = vector.transfer_read %{{.*}} : tensor<2x4xi8>, vector<4xi8>
// CHECK:       vector.bitcast %[[A]] : vector<4xi8> to vector<1xi32>
// CHECK:       vector.broadcast {{.*}} : i32 to vector<16xi32>
// CHECK:       arith.xori {{.*}}, %[[SIGNS]] : vector<16xi32>
// CHECK:       vector.bitcast {{.*}} : vector<16xi32> to vector<64xi8>
// CHECK:       vector.transfer_read %[[PACKED]]{{.*}} : tensor<1x1x64xi8>, vector<64xi8>
// CHECK:       llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK:       llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:       scf.yield
// CHECK:     vector.transfer_read %[[COMP]]
// CHECK:     arith.subi %[[K]]#0
// CHECK:     vector.transfer_write
// CHECK:     arith.subi %[[K]]#1
// CHECK:     vector.transfer_write
// CHECK-NOT: linalg.matmul
func.func @one_panel(%q: tensor<2x4xi8>) -> tensor<2x16xi32> {
  %w = arith.constant dense<[[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
                             [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
                             [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
                             [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]]> : tensor<4x16xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x16xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%e : tensor<2x16xi32>) -> tensor<2x16xi32>
  %0 = linalg.matmul ins(%q, %w : tensor<2x4xi8>, tensor<4x16xi8>) outs(%acc : tensor<2x16xi32>) -> tensor<2x16xi32>
  return %0 : tensor<2x16xi32>
}

// -----

/// Blocks: 4 rows x 4 panels (16 accumulators) over 8 rows and 8 panels:
/// two column blocks of 64 (the weights packed block by block, [2][4][4 x
/// 64]), two row blocks of 4, K/4 = 4 groups.

// With 8 accumulators: 4 rows x 2 panels, column blocks of 32.
// ACC8-LABEL: func.func @blocks
// ACC8: arith.constant dense<-1> : tensor<4x4x128xi8>
// ACC8: scf.for {{.*}} = %c0{{.*}} to %c128{{.*}} step %c32
// ACC8:   scf.for {{.*}} = %c0{{.*}} to %c8{{.*}} step %c4
// ACC8-COUNT-8: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// ACC8-NOT: llvm.call_intrinsic
// ACC8: scf.yield

// CHECK-LABEL: func.func @blocks
// CHECK: arith.constant dense<-1> : tensor<2x4x256xi8>
// CHECK: arith.constant dense<-2048> : tensor<128xi32>
// CHECK: scf.for {{.*}} = %c0{{.*}} to %c128{{.*}} step %c64
// CHECK:   scf.for {{.*}} = %c0{{.*}} to %c8{{.*}} step %c4
// CHECK:     scf.for {{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: llvm.call_intrinsic
// CHECK: scf.yield
func.func @blocks(%q: tensor<8x16xi8>) -> tensor<8x128xi32> {
  %w = arith.constant dense<-1> : tensor<16x128xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8x128xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%e : tensor<8x128xi32>) -> tensor<8x128xi32>
  %0 = linalg.matmul ins(%q, %w : tensor<8x16xi8>, tensor<16x128xi8>) outs(%acc : tensor<8x128xi32>) -> tensor<8x128xi32>
  return %0 : tensor<8x128xi32>
}

// -----

/// In a function built for a column split (rnn.column_split = 32: each
/// task's share of a gate starts at a multiple of 32), blocks divide the
/// shares: one row, 2 panels (32 columns) a block instead of 8.

// CHECK-LABEL: func.func @column_split
// CHECK: arith.constant dense<-1> : tensor<4x4x128xi8>
// CHECK: scf.for {{.*}} = %c0{{.*}} to %c128{{.*}} step %c32
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: llvm.call_intrinsic
// CHECK: scf.yield
// CHECK-LABEL: func.func @no_column_split
// CHECK: scf.for {{.*}} = %c0{{.*}} to %c128{{.*}} step %c128
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
func.func @column_split(%q: tensor<1x16xi8>) -> tensor<1x128xi32> attributes {rnn.column_split = 32 : i64} {
  %w = arith.constant dense<-1> : tensor<16x128xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x128xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x128xi32>) -> tensor<1x128xi32>
  %0 = linalg.matmul ins(%q, %w : tensor<1x16xi8>, tensor<16x128xi8>) outs(%acc : tensor<1x128xi32>) -> tensor<1x128xi32>
  return %0 : tensor<1x128xi32>
}
func.func @no_column_split(%q: tensor<1x16xi8>) -> tensor<1x128xi32> {
  %w = arith.constant dense<-1> : tensor<16x128xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x128xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x128xi32>) -> tensor<1x128xi32>
  %0 = linalg.matmul ins(%q, %w : tensor<1x16xi8>, tensor<16x128xi8>) outs(%acc : tensor<1x128xi32>) -> tensor<1x128xi32>
  return %0 : tensor<1x128xi32>
}

// -----

/// What vpdpbusd cannot take is left alone: K not a multiple of 4, weights
/// that are not constants, f32 matmuls; vpmaddwd leaves them too (K = 3 is
/// odd).

// PAIRS-LABEL: func.func @left_alone
// PAIRS-NOT: llvm.call_intrinsic
// PAIRS-COUNT-3: linalg.matmul

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: llvm.call_intrinsic
// CHECK-COUNT-3: linalg.matmul
func.func @left_alone(%q: tensor<2x3xi8>, %v: tensor<4x16xi8>, %q4: tensor<2x4xi8>,
                      %x: tensor<2x4xf32>, %f: tensor<4x16xf32>) -> (tensor<2x16xi32>, tensor<2x16xi32>, tensor<2x16xf32>) {
  %w = arith.constant dense<1> : tensor<3x16xi8>
  %c0 = arith.constant 0 : i32
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%e : tensor<2x16xi32>) -> tensor<2x16xi32>
  %ef = tensor.empty() : tensor<2x16xf32>
  %accf = linalg.fill ins(%z : f32) outs(%ef : tensor<2x16xf32>) -> tensor<2x16xf32>
  %0 = linalg.matmul ins(%q, %w : tensor<2x3xi8>, tensor<3x16xi8>) outs(%acc : tensor<2x16xi32>) -> tensor<2x16xi32>
  %1 = linalg.matmul ins(%q4, %v : tensor<2x4xi8>, tensor<4x16xi8>) outs(%acc : tensor<2x16xi32>) -> tensor<2x16xi32>
  %2 = linalg.matmul ins(%x, %f : tensor<2x4xf32>, tensor<4x16xf32>) outs(%accf : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %0, %1, %2 : tensor<2x16xi32>, tensor<2x16xi32>, tensor<2x16xf32>
}

// -----

/// K = 6, N = 8: pairs of k and 8 lanes for vpmaddwd, not groups of 4 and
/// 16 lanes for vpdpbusd.

// CHECK-LABEL: func.func @even_depth
// CHECK-NOT: llvm.call_intrinsic
// CHECK: linalg.matmul

// PAIRS-LABEL: func.func @even_depth
// PAIRS: scf.for {{.*}} -> (vector<8xi32>)
// PAIRS: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// PAIRS-NOT: linalg.matmul
func.func @even_depth(%q: tensor<1x6xi8>) -> tensor<1x8xi32> {
  %w = arith.constant dense<3> : tensor<6x8xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x8xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x8xi32>) -> tensor<1x8xi32>
  %0 = linalg.matmul ins(%q, %w : tensor<1x6xi8>, tensor<6x8xi8>) outs(%acc : tensor<1x8xi32>) -> tensor<1x8xi32>
  return %0 : tensor<1x8xi32>
}

// -----

/// A matmul whose sums only a dequantizing generic reads (float(sum) times
/// the row's scale, convert-rnn-to-linalg's `dequantize-generic`): the
/// kernel converts each finished sum in registers, with its row's scale
/// broadcast once per row block, and writes f32; the generic is gone. Both
/// instructions.

#identity = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @dequantizing_epilogue(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4xi8>, %[[S:[^:]+]]: tensor<2xf32>
// CHECK: scf.for {{.*}} -> (tensor<2x16xf32>)
// CHECK:   scf.for %[[I:[^ ]*]] = {{.*}} -> (tensor<2x16xf32>)
// CHECK:     %[[K:.*]]:2 = scf.for
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:     %[[I0:.*]] = arith.addi %[[I]], %c0
// CHECK:     %[[S0:.*]] = tensor.extract %[[S]][%[[I0]]] : tensor<2xf32>
// CHECK:     %[[B0:.*]] = vector.broadcast %[[S0]] : f32 to vector<16xf32>
// CHECK:     %[[I1:.*]] = arith.addi %[[I]], %c1
// CHECK:     %[[S1:.*]] = tensor.extract %[[S]][%[[I1]]] : tensor<2xf32>
// CHECK:     %[[B1:.*]] = vector.broadcast %[[S1]] : f32 to vector<16xf32>
// CHECK:     %[[D0:.*]] = arith.subi %[[K]]#0
// CHECK:     %[[F0:.*]] = arith.sitofp %[[D0]] : vector<16xi32> to vector<16xf32>
// CHECK:     %[[P0:.*]] = arith.mulf %[[F0]], %[[B0]] : vector<16xf32>
// CHECK:     vector.transfer_write %[[P0]], {{.*}} : vector<16xf32>, tensor<2x16xf32>
// CHECK:     %[[D1:.*]] = arith.subi %[[K]]#1
// CHECK:     %[[F1:.*]] = arith.sitofp %[[D1]]
// CHECK:     arith.mulf %[[F1]], %[[B1]] : vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.matmul
// PAIRS-LABEL: func.func @dequantizing_epilogue(
// PAIRS: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// PAIRS: arith.sitofp {{.*}} : vector<8xi32> to vector<8xf32>
// PAIRS: vector.transfer_write {{.*}} : vector<8xf32>, tensor<2x16xf32>
// PAIRS-NOT: linalg.generic
func.func @dequantizing_epilogue(%q: tensor<2x4xi8>, %s: tensor<2xf32>) -> tensor<2x16xf32> {
  %w = arith.constant dense<1> : tensor<4x16xi8>
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x16xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%e : tensor<2x16xi32>) -> tensor<2x16xi32>
  %sums = linalg.matmul ins(%q, %w : tensor<2x4xi8>, tensor<4x16xi8>) outs(%acc : tensor<2x16xi32>) -> tensor<2x16xi32>
  %ef = tensor.empty() : tensor<2x16xf32>
  %0 = linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel"]} ins(%sums, %s : tensor<2x16xi32>, tensor<2xf32>) outs(%ef : tensor<2x16xf32>) {
  ^bb0(%sum: i32, %scale: f32, %out: f32):
    %f = arith.sitofp %sum : i32 to f32
    %p = arith.mulf %f, %scale : f32
    linalg.yield %p : f32
  } -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

/// Generics that are not that conversion stay, after a kernel that writes
/// the i32 sums: another body (plus one), the sums read again elsewhere,
/// the scale indexed by the column.

#identity = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#column = affine_map<(i, j) -> (j)>
// PAIRS-LABEL: func.func @other_epilogues_stay(
// PAIRS-COUNT-3: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x16xf32>)
// CHECK-LABEL: func.func @other_epilogues_stay(
// CHECK: vector.transfer_write {{.*}} : vector<16xi32>, tensor<2x16xi32>
// CHECK: linalg.generic
// CHECK:   arith.addf
// CHECK: vector.transfer_write {{.*}} : vector<16xi32>, tensor<2x16xi32>
// CHECK: linalg.generic
// CHECK: vector.transfer_write {{.*}} : vector<16xi32>, tensor<2x16xi32>
// CHECK: linalg.generic
func.func @other_epilogues_stay(%q: tensor<2x4xi8>, %s: tensor<2xf32>, %c: tensor<16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xi32>, tensor<2x16xf32>) {
  %w = arith.constant dense<1> : tensor<4x16xi8>
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x16xi32>
  %acc = linalg.fill ins(%c0 : i32) outs(%e : tensor<2x16xi32>) -> tensor<2x16xi32>
  %ef = tensor.empty() : tensor<2x16xf32>
  %sums0 = linalg.matmul ins(%q, %w : tensor<2x4xi8>, tensor<4x16xi8>) outs(%acc : tensor<2x16xi32>) -> tensor<2x16xi32>
  %0 = linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel"]} ins(%sums0, %s : tensor<2x16xi32>, tensor<2xf32>) outs(%ef : tensor<2x16xf32>) {
  ^bb0(%sum: i32, %scale: f32, %out: f32):
    %f = arith.sitofp %sum : i32 to f32
    %p = arith.mulf %f, %scale : f32
    %r = arith.addf %p, %one : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %sums1 = linalg.matmul ins(%q, %w : tensor<2x4xi8>, tensor<4x16xi8>) outs(%acc : tensor<2x16xi32>) -> tensor<2x16xi32>
  %1 = linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel"]} ins(%sums1, %s : tensor<2x16xi32>, tensor<2xf32>) outs(%ef : tensor<2x16xf32>) {
  ^bb0(%sum: i32, %scale: f32, %out: f32):
    %f = arith.sitofp %sum : i32 to f32
    %p = arith.mulf %f, %scale : f32
    linalg.yield %p : f32
  } -> tensor<2x16xf32>
  %sums2 = linalg.matmul ins(%q, %w : tensor<2x4xi8>, tensor<4x16xi8>) outs(%acc : tensor<2x16xi32>) -> tensor<2x16xi32>
  %2 = linalg.generic {indexing_maps = [#identity, #column, #identity], iterator_types = ["parallel", "parallel"]} ins(%sums2, %c : tensor<2x16xi32>, tensor<16xf32>) outs(%ef : tensor<2x16xf32>) {
  ^bb0(%sum: i32, %scale: f32, %out: f32):
    %f = arith.sitofp %sum : i32 to f32
    %p = arith.mulf %f, %scale : f32
    linalg.yield %p : f32
  } -> tensor<2x16xf32>
  return %0, %1, %sums1, %2 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xi32>, tensor<2x16xf32>
}
