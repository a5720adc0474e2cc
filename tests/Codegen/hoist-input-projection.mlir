// RUN: rnn-opt %s --rnn-hoist-input-projection --split-input-file | FileCheck %s

/// The input-side matmul of each step becomes a time slice of one matmul
/// over the whole sequence, computed once before the loop; the recurrent
/// matmul (on the carry) stays in the loop.

// CHECK-LABEL: func.func @lstm_steps
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x16xf32>, %[[WI:[a-z0-9]+]]: tensor<16x64xf32>, %[[WH:[a-z0-9]+]]: tensor<16x64xf32>, %[[H:[a-z0-9]+]]: tensor<2x16xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x16xf32> into tensor<6x16xf32>
// CHECK: %[[ALL:.*]] = linalg.matmul ins(%[[FLAT]], %[[WI]] : tensor<6x16xf32>, tensor<16x64xf32>) outs(%{{.*}} : tensor<6x64xf32>)
// CHECK: %[[SEQ:.*]] = tensor.expand_shape %[[ALL]] {{\[}}[0, 1], [2]] output_shape [2, 3, 64] : tensor<6x64xf32> into tensor<2x3x64xf32>
// CHECK: scf.for %[[T:[a-z0-9]+]] =
// CHECK-NOT: linalg.matmul ins(%{{.*}}, %[[WI]]
// CHECK:   %[[GI:.*]] = tensor.extract_slice %[[SEQ]][0, %[[T]], 0] [2, 1, 64] [1, 1, 1] : tensor<2x3x64xf32> to tensor<2x64xf32>
// CHECK:   %[[GH:.*]] = linalg.matmul ins(%{{.*}}, %[[WH]]
// CHECK:   arith.addf %[[GI]], %[[GH]]
func.func @lstm_steps(%x: tensor<2x3x16xf32>, %wi: tensor<16x64xf32>, %wh: tensor<16x64xf32>, %h0: tensor<2x16xf32>) -> tensor<2x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<2x64xf32>) {
    %xt = tensor.extract_slice %x[0, %t, 0] [2, 1, 16] [1, 1, 1] : tensor<2x3x16xf32> to tensor<2x16xf32>
    %gi = linalg.matmul ins(%xt, %wi : tensor<2x16xf32>, tensor<16x64xf32>) outs(%init : tensor<2x64xf32>) -> tensor<2x64xf32>
    %gh = linalg.matmul ins(%h0, %wh : tensor<2x16xf32>, tensor<16x64xf32>) outs(%init : tensor<2x64xf32>) -> tensor<2x64xf32>
    %s = arith.addf %gi, %gh : tensor<2x64xf32>
    %n = arith.addf %acc, %s : tensor<2x64xf32>
    scf.yield %n : tensor<2x64xf32>
  }
  return %r : tensor<2x64xf32>
}

// -----

/// Time-major with two batch dims collapsed to one: the reshape is replayed
/// on the projection's slice; both unrolled steps share one projection.

// CHECK-LABEL: func.func @time_major_two_batch_dims
// CHECK-COUNT-1: linalg.matmul
// CHECK: %[[SEQ:.*]] = tensor.expand_shape {{.*}} output_shape [2, 2, 3, 12] : tensor<12x12xf32> into tensor<2x2x3x12xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[SEQ]][0, 0, 0, 0] [1, 2, 3, 12] [1, 1, 1, 1] : tensor<2x2x3x12xf32> to tensor<2x3x12xf32>
// CHECK: tensor.collapse_shape %[[S0]] {{\[}}[0, 1], [2]] : tensor<2x3x12xf32> into tensor<6x12xf32>
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[SEQ]][1, 0, 0, 0]
// CHECK-NOT: linalg.matmul
func.func @time_major_two_batch_dims(%x: tensor<2x2x3x5xf32>, %wi: tensor<5x12xf32>) -> (tensor<6x12xf32>, tensor<6x12xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x12xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<6x12xf32>) -> tensor<6x12xf32>
  %x0 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 3, 5] [1, 1, 1, 1] : tensor<2x2x3x5xf32> to tensor<2x3x5xf32>
  %c0 = tensor.collapse_shape %x0 [[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
  %g0 = linalg.matmul ins(%c0, %wi : tensor<6x5xf32>, tensor<5x12xf32>) outs(%init : tensor<6x12xf32>) -> tensor<6x12xf32>
  %x1 = tensor.extract_slice %x[1, 0, 0, 0] [1, 2, 3, 5] [1, 1, 1, 1] : tensor<2x2x3x5xf32> to tensor<2x3x5xf32>
  %c1 = tensor.collapse_shape %x1 [[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
  %g1 = linalg.matmul ins(%c1, %wi : tensor<6x5xf32>, tensor<5x12xf32>) outs(%init : tensor<6x12xf32>) -> tensor<6x12xf32>
  return %g0, %g1 : tensor<6x12xf32>, tensor<6x12xf32>
}

// -----

/// Left alone: an operand that is not a time slice, and a matmul that
/// accumulates into something other than zeros.

// CHECK-LABEL: func.func @negative_cases
// CHECK-COUNT-2: linalg.matmul
// CHECK-NOT: tensor.expand_shape
func.func @negative_cases(%a: tensor<2x16xf32>, %x: tensor<2x3x16xf32>, %w: tensor<16x64xf32>, %acc: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<2x16xf32>, tensor<16x64xf32>) outs(%init : tensor<2x64xf32>) -> tensor<2x64xf32>
  %xt = tensor.extract_slice %x[0, 1, 0] [2, 1, 16] [1, 1, 1] : tensor<2x3x16xf32> to tensor<2x16xf32>
  %1 = linalg.matmul ins(%xt, %w : tensor<2x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<2x64xf32>) -> tensor<2x64xf32>
  return %0, %1 : tensor<2x64xf32>, tensor<2x64xf32>
}

// -----

/// Dynamic int8 activations (DynamicInt8.cpp): the input side is a chain,
/// row maxima -> scales -> quantized i8 -> i8 x i8 -> i32 matmul -> rows
/// times their scales. Every op works row by row, so the whole chain runs
/// once on the 6 rows of the sequence before the loop, and each step takes
/// its slice of the f32 product; the loop keeps no input-side matmul.

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @dynamic_int8
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[FLAT]] : tensor<6x4xf32>) outs(%{{.*}} : tensor<6xf32>)
// CHECK: %[[SCALES:.*]]:2 = linalg.generic {{.*}} ins(%[[MAX]] : tensor<6xf32>) outs(%{{.*}}, %{{.*}} : tensor<6xf32>, tensor<6xf32>)
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[FLAT]], %[[SCALES]]#1 : tensor<6x4xf32>, tensor<6xf32>) outs(%{{.*}} : tensor<6x4xi8>)
// CHECK: %[[SUMS:.*]] = linalg.matmul ins(%[[Q]], %{{.*}} : tensor<6x4xi8>, tensor<4x16xi8>) outs(%{{.*}} : tensor<6x16xi32>)
// CHECK: %[[ALL:.*]] = linalg.generic {{.*}} ins(%[[SUMS]], %[[SCALES]]#0 : tensor<6x16xi32>, tensor<6xf32>) outs(%{{.*}} : tensor<6x16xf32>)
// CHECK: %[[SEQ:.*]] = tensor.expand_shape %[[ALL]] {{\[}}[0, 1], [2]] output_shape [2, 3, 16] : tensor<6x16xf32> into tensor<2x3x16xf32>
// CHECK: scf.for %[[T:[a-z0-9]+]] =
// CHECK-NOT: linalg
// CHECK:   %[[GI:.*]] = tensor.extract_slice %[[SEQ]][0, %[[T]], 0] [2, 1, 16] [1, 1, 1] : tensor<2x3x16xf32> to tensor<2x16xf32>
// CHECK-NOT: linalg
// CHECK:   arith.addf %{{.*}}, %[[GI]]
func.func @dynamic_int8(%x: tensor<2x3x4xf32>, %acc0: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %lo = arith.constant -1.270000e+02 : f32
  %hi = arith.constant 1.270000e+02 : f32
  %c0_i32 = arith.constant 0 : i32
  %w = arith.constant dense<1> : tensor<4x16xi8>
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %acc0) -> (tensor<2x16xf32>) {
    %xt = tensor.extract_slice %x[0, %t, 0] [2, 1, 4] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x4xf32>
    %e2 = tensor.empty() : tensor<2xf32>
    %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
    %max = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%xt : tensor<2x4xf32>) outs(%z2 : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = math.absf %in : f32
      %m = arith.maximumf %out, %a : f32
      linalg.yield %m : f32
    } -> tensor<2xf32>
    %s:2 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel"]} ins(%max : tensor<2xf32>) outs(%e2, %e2 : tensor<2xf32>, tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32, %out2: f32):
      %scale = arith.divf %in, %hi : f32
      %pos = arith.cmpf ogt, %in, %zero : f32
      %inv = arith.divf %hi, %in : f32
      %f = arith.select %pos, %inv, %zero : f32
      linalg.yield %scale, %f : f32, f32
    } -> (tensor<2xf32>, tensor<2xf32>)
    %eq = tensor.empty() : tensor<2x4xi8>
    %q = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%xt, %s#1 : tensor<2x4xf32>, tensor<2xf32>) outs(%eq : tensor<2x4xi8>) {
    ^bb0(%in: f32, %f: f32, %out: i8):
      %p = arith.mulf %in, %f : f32
      %r0 = math.roundeven %p : f32
      %r1 = arith.maximumf %r0, %lo : f32
      %r2 = arith.minimumf %r1, %hi : f32
      %i = arith.fptosi %r2 : f32 to i8
      linalg.yield %i : i8
    } -> tensor<2x4xi8>
    %ei = tensor.empty() : tensor<2x16xi32>
    %zi = linalg.fill ins(%c0_i32 : i32) outs(%ei : tensor<2x16xi32>) -> tensor<2x16xi32>
    %sums = linalg.matmul ins(%q, %w : tensor<2x4xi8>, tensor<4x16xi8>) outs(%zi : tensor<2x16xi32>) -> tensor<2x16xi32>
    %ef = tensor.empty() : tensor<2x16xf32>
    %gi = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%sums, %s#0 : tensor<2x16xi32>, tensor<2xf32>) outs(%ef : tensor<2x16xf32>) {
    ^bb0(%in: i32, %scale: f32, %out: f32):
      %v = arith.sitofp %in : i32 to f32
      %y = arith.mulf %v, %scale : f32
      linalg.yield %y : f32
    } -> tensor<2x16xf32>
    %n = arith.addf %acc, %gi : tensor<2x16xf32>
    scf.yield %n : tensor<2x16xf32>
  }
  return %r : tensor<2x16xf32>
}

// -----

/// bf16 weights: the hoisted matmul reads them as each step's did.

// CHECK-LABEL: func.func @bf16_weights
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<6x16xf32>, tensor<16x64xbf16>)
func.func @bf16_weights(%x: tensor<2x3x16xf32>, %wi: tensor<16x64xbf16>) -> tensor<2x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<2x64xf32>) {
    %xt = tensor.extract_slice %x[0, %t, 0] [2, 1, 16] [1, 1, 1] : tensor<2x3x16xf32> to tensor<2x16xf32>
    %gi = linalg.matmul ins(%xt, %wi : tensor<2x16xf32>, tensor<16x64xbf16>) outs(%init : tensor<2x64xf32>) -> tensor<2x64xf32>
    %n = arith.addf %acc, %gi : tensor<2x64xf32>
    scf.yield %n : tensor<2x64xf32>
  }
  return %r : tensor<2x64xf32>
}

// -----

/// Negative: bf16 rows summed in f32 (bf16 compute's product) stay in the
/// loop: the projection would be a sequence of another element type.

// CHECK-LABEL: func.func @negative_bf16_rows
// CHECK: scf.for
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x16xbf16>, tensor<16x64xbf16>) outs(%{{.*}} : tensor<2x64xf32>)
func.func @negative_bf16_rows(%x: tensor<2x3x16xbf16>, %wi: tensor<16x64xbf16>) -> tensor<2x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64xf32>) -> tensor<2x64xf32>
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<2x64xf32>) {
    %xt = tensor.extract_slice %x[0, %t, 0] [2, 1, 16] [1, 1, 1] : tensor<2x3x16xbf16> to tensor<2x16xbf16>
    %gi = linalg.matmul ins(%xt, %wi : tensor<2x16xbf16>, tensor<16x64xbf16>) outs(%init : tensor<2x64xf32>) -> tensor<2x64xf32>
    %n = arith.addf %acc, %gi : tensor<2x64xf32>
    scf.yield %n : tensor<2x64xf32>
  }
  return %r : tensor<2x64xf32>
}
