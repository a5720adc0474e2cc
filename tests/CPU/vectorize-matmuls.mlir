// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=8 tile-n=32" --canonicalize --loop-invariant-subset-hoisting --canonicalize --split-input-file | FileCheck %s
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=4 tile-n=16" --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=4 tile-n=32 bf16-dot=true" --split-input-file | FileCheck %s --check-prefix=DOT
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=4 tile-n=16 vector-lanes=4" --split-input-file | FileCheck %s --check-prefix=LANES4
// RUN: rnn-opt %s --rnn-vectorize-matmuls="tile-m=4 tile-n=16 min-block-columns=4" --split-input-file | FileCheck %s --check-prefix=MIN4

/// A 16x256 by 256x1024 matmul: 8x32 register blocks, column blocks
/// outermost, a loop over k with one rank-1 vector.contract per step, the
/// accumulator block carried as a vector across k.

// CHECK-LABEL: func.func @gates
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C32]]
// CHECK:   scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C8]]
// CHECK:     %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK:     scf.for %{{.*}} = %{{.*}} to %[[C256]] step %{{.*}} iter_args({{.*}}%[[ACC]]) -> ({{.*}}vector<8x32xf32>)
// CHECK:       vector.transfer_read {{.*}} : tensor<8x1xf32>, vector<8x1xf32>
// CHECK:       vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK:       vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK:     vector.transfer_write
// SMALL-LABEL: func.func @gates
// SMALL: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func @gates(%h: tensor<16x256xf32>, %w: tensor<256x1024xf32>, %acc: tensor<16x1024xf32>) -> tensor<16x1024xf32> {
  %0 = linalg.matmul ins(%h, %w : tensor<16x256xf32>, tensor<256x1024xf32>) outs(%acc : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  return %0 : tensor<16x1024xf32>
}

// -----

/// Sizes that do not divide: the largest divisors that fit (5 rows, 24 of
/// 48 columns).

// CHECK-LABEL: func.func @odd_sizes
// CHECK: vector.contract {{.*}} : vector<5x1xf32>, vector<1x24xf32> into vector<5x24xf32>
func.func @odd_sizes(%h: tensor<5x7xf32>, %w: tensor<7x48xf32>, %acc: tensor<5x48xf32>) -> tensor<5x48xf32> {
  %0 = linalg.matmul ins(%h, %w : tensor<5x7xf32>, tensor<7x48xf32>) outs(%acc : tensor<5x48xf32>) -> tensor<5x48xf32>
  return %0 : tensor<5x48xf32>
}

// -----

/// One row (batch 1): the block widens to 8 x 32 = 256 columns, keeping as
/// many accumulators as an 8x32 block.

// CHECK-LABEL: func.func @matrix_vector
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<1x256xf32> into vector<1x256xf32>
func.func @matrix_vector(%h: tensor<1x256xf32>, %w: tensor<256x1024xf32>, %acc: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %0 = linalg.matmul ins(%h, %w : tensor<1x256xf32>, tensor<256x1024xf32>) outs(%acc : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}

// -----

/// In a function to be split into column tasks whose shares start at
/// multiples of 128 columns (rnn.column_split), no wider than 128: no
/// block holds columns of both tasks.

// CHECK-LABEL: func.func @matrix_vector_column_split
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<1x128xf32> into vector<1x128xf32>
func.func @matrix_vector_column_split(%h: tensor<1x256xf32>, %w: tensor<256x1024xf32>, %acc: tensor<1x1024xf32>) -> tensor<1x1024xf32> attributes {rnn.column_split = 128 : i64} {
  %0 = linalg.matmul ins(%h, %w : tensor<1x256xf32>, tensor<256x1024xf32>) outs(%acc : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}

// -----

/// Left for the scalar path: fewer than min-block-columns (8) columns per
/// block; with 4 (a target of narrower vectors), a block of 6.

// CHECK-LABEL: func.func @negative_narrow
// CHECK: linalg.matmul
// CHECK-NOT: vector.contract
// MIN4-LABEL: func.func @negative_narrow
// MIN4-NOT: linalg.matmul
// MIN4: vector.contract {{.*}} into vector<4x6xf32>
func.func @negative_narrow(%h: tensor<4x6xf32>, %w: tensor<6x6xf32>, %acc: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = linalg.matmul ins(%h, %w : tensor<4x6xf32>, tensor<6x6xf32>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

/// A zero accumulator (a fill): the fill is fused into each block, so after
/// hoisting a block starts from a zero vector; nothing fills or reads back
/// a buffer of zeros.

// CHECK-LABEL: func.func @zero_accumulator
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.for
// CHECK:   scf.for
// CHECK-NOT: vector.transfer_read {{.*}} : tensor<8x32xf32>
// CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x32xf32>)
// CHECK:     vector.transfer_write
func.func @zero_accumulator(%h: tensor<16x64xf32>, %w: tensor<64x128xf32>) -> tensor<16x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x128xf32>) -> tensor<16x128xf32>
  %0 = linalg.matmul ins(%h, %w : tensor<16x64xf32>, tensor<64x128xf32>) outs(%acc : tensor<16x128xf32>) -> tensor<16x128xf32>
  return %0 : tensor<16x128xf32>
}

// -----

/// An `rnn.shared_k_matmuls` (a piece of the input projection and the
/// recurrent matrix-vector product of one step) shares its loops: each
/// gets half of a block's accumulators and the same number of column
/// blocks (2: 4 x 32 and 1 x 128 here; 8 of 4 x 8 and 1 x 32 with the
/// small blocks, where 16 lanes would not divide 8 columns), and one loop
/// over k runs both contractions. Another matmul reading the same weights
/// (the first rows of the projection) uses the pair's column width, so the
/// weights are packed once for both.

// CHECK-LABEL: func.func @shared_k_loop
// CHECK: scf.for %[[J:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:   %[[BLOCK:.*]] = arith.divui %[[J]]
// CHECK:   arith.muli %[[BLOCK]]
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<4x32xf32>, vector<1x128xf32>)
// CHECK:     vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
// CHECK:     vector.contract {{.*}} : vector<1x1xf32>, vector<1x128xf32> into vector<1x128xf32>
// CHECK-NEXT: scf.yield
// CHECK: vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
// SMALL-LABEL: func.func @shared_k_loop
// SMALL: vector.contract {{.*}} : vector<4x1xf32>, vector<1x8xf32> into vector<4x8xf32>
// SMALL-NOT: scf.yield
// SMALL: vector.contract {{.*}} : vector<1x1xf32>, vector<1x32xf32> into vector<1x32xf32>
func.func @shared_k_loop(%x: tensor<4x16xf32>, %wi: tensor<16x256xf32>, %piece: index, %h: tensor<1x16xf32>, %wh: tensor<16x256xf32>, %p: tensor<4x64xf32>, %g: tensor<1x256xf32>, %first: tensor<4x256xf32>) -> (tensor<4x64xf32>, tensor<1x256xf32>, tensor<4x256xf32>) {
  %0:2 = rnn.shared_k_matmuls ins(%x, %wi[%piece] : tensor<4x16xf32>, tensor<16x256xf32>) outs(%p : tensor<4x64xf32>), ins(%h, %wh : tensor<1x16xf32>, tensor<16x256xf32>) outs(%g : tensor<1x256xf32>)
  %2 = linalg.matmul ins(%x, %wi : tensor<4x16xf32>, tensor<16x256xf32>) outs(%first : tensor<4x256xf32>) -> tensor<4x256xf32>
  return %0#0, %0#1, %2 : tensor<4x64xf32>, tensor<1x256xf32>, tensor<4x256xf32>
}

// -----

/// A pair whose columns do not split into whole vectors (here 4 columns
/// beside 16, with vectors of 16 floats, or half vectors of 8) is
/// vectorized as two matmuls, the piece too narrow for a block of its own;
/// with vectors of 4 floats (vector-lanes=4) it shares one loop over k.

// SMALL-LABEL: func.func @shared_k_loop_narrow
// SMALL: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x4xf32>)
// SMALL: vector.contract {{.*}} : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
// SMALL-NOT: rnn.shared_k_matmuls
// LANES4-LABEL: func.func @shared_k_loop_narrow
// LANES4: scf.for
// LANES4:   vector.contract {{.*}} : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
// LANES4-NOT: scf.for
// LANES4:   vector.contract {{.*}} : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
// LANES4-NOT: linalg.matmul
func.func @shared_k_loop_narrow(%x: tensor<4x16xf32>, %wi: tensor<16x4xf32>, %h: tensor<1x16xf32>, %wh: tensor<16x16xf32>, %p: tensor<4x4xf32>, %g: tensor<1x16xf32>) -> (tensor<4x4xf32>, tensor<1x16xf32>) {
  %c0 = arith.constant 0 : index
  %0:2 = rnn.shared_k_matmuls ins(%x, %wi[%c0] : tensor<4x16xf32>, tensor<16x4xf32>) outs(%p : tensor<4x4xf32>), ins(%h, %wh : tensor<1x16xf32>, tensor<16x16xf32>) outs(%g : tensor<1x16xf32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<1x16xf32>
}

// -----

/// bf16 weights of an f32 matmul (param_dtype: bfloat16): each step reads
/// the weights' row as bf16 and widens it right before the contraction, so
/// the weights stay bf16 in memory and the sums are f32.

// CHECK-LABEL: func.func @bf16_weights
// CHECK: scf.for {{.*}} -> (vector<4x64xf32>)
// CHECK:   %[[W:.*]] = vector.transfer_read {{.*}} : tensor<1x64xbf16>, vector<1x64xbf16>
// CHECK:   %[[WIDE:.*]] = arith.extf %[[W]] : vector<1x64xbf16> to vector<1x64xf32>
// CHECK:   vector.contract {{.*}}, %[[WIDE]], {{.*}} : vector<4x1xf32>, vector<1x64xf32> into vector<4x64xf32>
// SMALL-LABEL: func.func @bf16_weights
// SMALL: arith.extf {{.*}} : vector<1x16xbf16> to vector<1x16xf32>
// SMALL: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func @bf16_weights(%x: tensor<4x256xf32>, %w: tensor<256x64xbf16>) -> tensor<4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x256xf32>, tensor<256x64xbf16>) outs(%acc : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

/// int8 weights of an f32 matmul (quantize: {weights: int8}): each step
/// reads the weights' row as i8 and widens it (signed) right before the
/// contraction, so the weights stay one byte each in memory and the sums
/// are f32; the column scales come later, in the gate maths.

// CHECK-LABEL: func.func @int8_weights
// CHECK: scf.for {{.*}} -> (vector<4x64xf32>)
// CHECK:   %[[W:.*]] = vector.transfer_read {{.*}} : tensor<1x64xi8>, vector<1x64xi8>
// CHECK:   %[[WIDE:.*]] = arith.sitofp %[[W]] : vector<1x64xi8> to vector<1x64xf32>
// CHECK:   vector.contract {{.*}}, %[[WIDE]], {{.*}} : vector<4x1xf32>, vector<1x64xf32> into vector<4x64xf32>
// SMALL-LABEL: func.func @int8_weights
// SMALL: arith.sitofp {{.*}} : vector<1x16xi8> to vector<1x16xf32>
// SMALL: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func @int8_weights(%x: tensor<4x256xf32>, %w: tensor<256x64xi8>) -> tensor<4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x256xf32>, tensor<256x64xi8>) outs(%acc : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

/// i8 x i8 -> i32 (dynamic int8 activations where rnn-int8-matmuls does not
/// apply: K not a multiple of 4, or no VNNI): both factors widened (signed)
/// to i32 where they are read, exact int32 sums.

// CHECK-LABEL: func.func @int8_dot
// CHECK: scf.for {{.*}} -> (vector<4x64xi32>)
// CHECK-DAG: %[[A:.*]] = arith.extsi %{{.*}} : vector<4x1xi8> to vector<4x1xi32>
// CHECK-DAG: %[[B:.*]] = arith.extsi %{{.*}} : vector<1x64xi8> to vector<1x64xi32>
// CHECK:   vector.contract {{.*}} : vector<4x1xi32>, vector<1x64xi32> into vector<4x64xi32>
// SMALL-LABEL: func.func @int8_dot
// SMALL: vector.contract {{.*}} : vector<4x1xi32>, vector<1x16xi32> into vector<4x16xi32>
func.func @int8_dot(%q: tensor<4x3xi8>, %w: tensor<3x64xi8>) -> tensor<4x64xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x64xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%e : tensor<4x64xi32>) -> tensor<4x64xi32>
  %r = linalg.matmul ins(%q, %w : tensor<4x3xi8>, tensor<3x64xi8>) outs(%acc : tensor<4x64xi32>) -> tensor<4x64xi32>
  return %r : tensor<4x64xi32>
}

// -----

/// bf16-dot: a matmul of bf16 rows and bf16 weights into f32 (even K)
/// steps through k in pairs. Each row's two values are one broadcast 32-bit
/// word, the two weight rows are interleaved into pairs, and each 16
/// columns of a row take one x86vector.avx512.dot.

// DOT-LABEL: func.func @bf16_dot
// DOT: %[[ROWS16:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x6xf32>) outs(%{{.*}} : tensor<4x6xbf16>)
// DOT:   arith.truncf %{{.*}} : f32 to bf16
// DOT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C2:.*]] iter_args
// DOT: %[[XS:.*]] = tensor.extract_slice %[[ROWS16]]
// DOT: %[[X:.*]] = vector.transfer_read %[[XS]]{{.*}} : tensor<4x2xbf16>, vector<4x2xbf16>
// DOT: %[[W:.*]] = vector.transfer_read {{.*}} : tensor<2x32xbf16>, vector<2x32xbf16>
// DOT: %[[BITS:.*]] = vector.bitcast %[[X]] : vector<4x2xbf16> to vector<4x1xi32>
// DOT: %[[WORDS:.*]] = vector.shape_cast %[[BITS]] : vector<4x1xi32> to vector<4xi32>
// DOT: %[[ROWS:.*]] = vector.shape_cast %[[W]] : vector<2x32xbf16> to vector<64xbf16>
// DOT: %[[PAIRS:.*]] = vector.shuffle %[[ROWS]], %[[ROWS]] [0, 32, 1, 33, 2, 34,
// DOT: %[[WORD:.*]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// DOT: %[[SPLAT:.*]] = vector.broadcast %[[WORD]] : i32 to vector<16xi32>
// DOT: %[[ROW:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// DOT: %[[P0:.*]] = vector.extract_strided_slice %[[PAIRS]] {offsets = [0], sizes = [32], strides = [1]}
// DOT: x86vector.avx512.dot %{{.*}}, %[[ROW]], %[[P0]] : vector<32xbf16> -> vector<16xf32>
// DOT-COUNT-7: x86vector.avx512.dot
// DOT-NOT: vector.contract
// DOT-NOT: x86vector.avx512.dot
// DOT: return
func.func @bf16_dot(%x: tensor<4x6xf32>, %w: tensor<6x32xbf16>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %ne = tensor.empty() : tensor<4x6xbf16>
  %x16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x6xf32>) outs(%ne : tensor<4x6xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x6xbf16>
  %r = linalg.matmul ins(%x16, %w : tensor<4x6xbf16>, tensor<6x32xbf16>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// -----

/// An odd K (or no bf16-dot: the CHECK run) computes bf16 rows in f32: the
/// narrowing becomes a round of the f32 rows (truncf, extf), the rank-1
/// steps widen the weights (the f32 emulation). f32 rows by bf16 weights
/// are never a dot.

// CHECK-LABEL: func.func @bf16_dot_odd_k
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x5xf32>) outs(%{{.*}} : tensor<4x5xf32>)
// CHECK: vector.contract
// DOT-LABEL: func.func @bf16_dot_odd_k
// DOT: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x5xf32>) outs(%{{.*}} : tensor<4x5xf32>)
// DOT-NEXT: ^bb0(%[[IN:[^:]+]]: f32, %{{[^:]+}}: f32):
// DOT-NEXT:   %[[T:.*]] = arith.truncf %[[IN]] : f32 to bf16
// DOT-NEXT:   %[[E:.*]] = arith.extf %[[T]] : bf16 to f32
// DOT-NEXT:   linalg.yield %[[E]] : f32
// DOT-NOT: tensor<4x5xbf16>
// DOT: arith.extf %{{.*}} : vector<1x32xbf16> to vector<1x32xf32>
// DOT: vector.contract
// DOT-NOT: x86vector
// DOT-LABEL: func.func @bf16_f32_rows
// DOT: arith.extf %{{.*}} : vector<1x32xbf16> to vector<1x32xf32>
// DOT-NOT: x86vector
func.func @bf16_dot_odd_k(%x: tensor<4x5xf32>, %w: tensor<5x32xbf16>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %ne = tensor.empty() : tensor<4x5xbf16>
  %x16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x5xf32>) outs(%ne : tensor<4x5xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x5xbf16>
  %r = linalg.matmul ins(%x16, %w : tensor<4x5xbf16>, tensor<5x32xbf16>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}
func.func @bf16_f32_rows(%x: tensor<4x6xf32>, %w: tensor<6x32xbf16>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x6xf32>, tensor<6x32xbf16>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}
func.func @bf16_unmarked(%x: tensor<4x6xf32>, %w: tensor<6x32xbf16>) -> tensor<4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x6xf32>, tensor<6x32xbf16>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}
