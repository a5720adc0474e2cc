// RUN: rnn-opt %s --rnn-block-matmuls="tile-m=2 accumulators=4" --canonicalize | FileCheck %s
// RUN: rnn-opt %s --rnn-block-matmuls="tile-m=2 accumulators=4 unroll-k=2" --canonicalize | FileCheck %s --check-prefix=UNROLL

// A matmul into a zero fill: 2 x 2 blocks, each one loop over k whose
// iter_args are the four accumulators, started from the fill's value; each
// step reads two rows of the left-hand side and two columns of the right
// once and does four multiply-adds. The fill is not run: the blocks write
// its destination.
// CHECK-LABEL: func.func @from_zero(
// CHECK-SAME:    %[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3x8xf32>)
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:   linalg.fill
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:       scf.for %[[I:.*]] = %[[C0]] to %{{.*}} step %[[C2]] iter_args(%{{.*}} = %[[E]])
// CHECK:         scf.for %[[J:.*]] = %[[C0]] to %{{.*}} step %[[C2]] iter_args(%[[OUT:.*]] = %{{.*}})
// CHECK:           %[[AS:.*]] = tensor.extract_slice %[[A]][%[[I]], 0] [2, 3] [1, 1]
// CHECK:           %[[BS:.*]] = tensor.extract_slice %[[B]][0, %[[J]]] [3, 2] [1, 1]
// CHECK:           %[[CS:.*]] = tensor.extract_slice %[[OUT]][%[[I]], %[[J]]] [2, 2] [1, 1]
// CHECK:           %[[SUMS:.*]]:4 = scf.for %[[K:.*]] = %[[C0]] to %[[C3]] step %[[C1]] iter_args(%[[S00:.*]] = %[[ZERO]], %[[S01:.*]] = %[[ZERO]], %[[S10:.*]] = %[[ZERO]], %[[S11:.*]] = %[[ZERO]]) -> (f32, f32, f32, f32) {
// CHECK-NEXT:        %[[A0:.*]] = tensor.extract %[[AS]][%[[C0]], %[[K]]]
// CHECK-NEXT:        %[[A1:.*]] = tensor.extract %[[AS]][%[[C1]], %[[K]]]
// CHECK-NEXT:        %[[B0:.*]] = tensor.extract %[[BS]][%[[K]], %[[C0]]]
// CHECK-NEXT:        %[[N00:.*]] = math.fma %[[A0]], %[[B0]], %[[S00]] : f32
// CHECK-NEXT:        %[[N10:.*]] = math.fma %[[A1]], %[[B0]], %[[S10]] : f32
// CHECK-NEXT:        %[[B1:.*]] = tensor.extract %[[BS]][%[[K]], %[[C1]]]
// CHECK-NEXT:        %[[N01:.*]] = math.fma %[[A0]], %[[B1]], %[[S01]] : f32
// CHECK-NEXT:        %[[N11:.*]] = math.fma %[[A1]], %[[B1]], %[[S11]] : f32
// CHECK-NEXT:        scf.yield %[[N00]], %[[N01]], %[[N10]], %[[N11]]
// CHECK:           %[[R0:.*]] = tensor.insert %[[SUMS]]#0 into %[[CS]][%[[C0]], %[[C0]]]
// CHECK-NEXT:      %[[R1:.*]] = tensor.insert %[[SUMS]]#1 into %[[R0]][%[[C0]], %[[C1]]]
// CHECK-NEXT:      %[[R2:.*]] = tensor.insert %[[SUMS]]#2 into %[[R1]][%[[C1]], %[[C0]]]
// CHECK-NEXT:      %[[R3:.*]] = tensor.insert %[[SUMS]]#3 into %[[R2]][%[[C1]], %[[C1]]]
// CHECK-NEXT:      tensor.insert_slice %[[R3]] into %[[OUT]][%[[I]], %[[J]]] [2, 2] [1, 1]
// CHECK-NOT:   linalg.matmul
func.func @from_zero(%a: tensor<4x3xf32>, %b: tensor<3x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// One row (batch 1): the block widens to the accumulators' budget, 1 x 3
// (the largest divisor of 6 within 4). A matmul that adds to its init
// starts each block from the init's elements.
// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME:    %[[A:.*]]: tensor<1x2xf32>, %[[B:.*]]: tensor<2x6xf32>, %[[C:.*]]: tensor<1x6xf32>)
// CHECK-DAG:   %[[C3:.*]] = arith.constant 3 : index
// CHECK:       scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C3]] iter_args(%[[OUT:.*]] = %[[C]])
// CHECK:         %[[CS:.*]] = tensor.extract_slice %[[OUT]][0, %[[J]]] [1, 3] [1, 1]
// CHECK:         %[[I0:.*]] = tensor.extract %[[CS]]
// CHECK:         %[[I1:.*]] = tensor.extract %[[CS]]
// CHECK:         %[[I2:.*]] = tensor.extract %[[CS]]
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %[[I0]], %{{.*}} = %[[I1]], %{{.*}} = %[[I2]]) -> (f32, f32, f32)
// CHECK-COUNT-3:   math.fma
// CHECK-NOT:   linalg.matmul
func.func @accumulate(%a: tensor<1x2xf32>, %b: tensor<2x6xf32>, %c: tensor<1x6xf32>) -> tensor<1x6xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<1x2xf32>, tensor<2x6xf32>) outs(%c : tensor<1x6xf32>) -> tensor<1x6xf32>
  return %r : tensor<1x6xf32>
}

// A head: the bias add and the activation after the matmul wrote into the
// fill's destination; each now writes into the result it reads (the same
// values: neither reads its init), so one buffer is updated in place.
// CHECK-LABEL: func.func @head(
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK:       %[[M:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E]])
// CHECK:       %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<4x2xf32>, tensor<2xf32>) outs(%[[M]] : tensor<4x2xf32>)
// CHECK:       linalg.generic {{.*}} ins(%[[ADD]] : tensor<4x2xf32>) outs(%[[ADD]] : tensor<4x2xf32>)
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @head(%a: tensor<4x3xf32>, %b: tensor<3x2xf32>, %bias: tensor<2xf32>) -> tensor<4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x2xf32>) outs(%f : tensor<4x2xf32>) -> tensor<4x2xf32>
  %add = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<4x2xf32>, tensor<2xf32>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x2xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%add : tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<4x2xf32>
  return %act : tensor<4x2xf32>
}

// Other element types and transposed forms are left alone.
// CHECK-LABEL: func.func @not_f32(
// CHECK:       linalg.matmul
func.func @not_f32(%a: tensor<2x2xf64>, %b: tensor<2x2xf64>, %c: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %r = linalg.matmul ins(%a, %b : tensor<2x2xf64>, tensor<2x2xf64>) outs(%c : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %r : tensor<2x2xf64>
}

// int8 weights (quantize: {weights: int8}): the same blocks, each column
// of the right-hand side widened (signed) once per step, where it is read,
// before its multiply-adds.
// CHECK-LABEL: func.func @int8_weights(
// CHECK:           scf.for %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK-NEXT:        %[[A0:.*]] = tensor.extract %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT:        %[[A1:.*]] = tensor.extract %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT:        %[[Q0:.*]] = tensor.extract %{{.*}} : tensor<3x2xi8>
// CHECK-NEXT:        %[[B0:.*]] = arith.sitofp %[[Q0]] : i8 to f32
// CHECK-NEXT:        math.fma %[[A0]], %[[B0]], %{{.*}} : f32
// CHECK-NEXT:        math.fma %[[A1]], %[[B0]], %{{.*}} : f32
// CHECK-NOT:   linalg.matmul
func.func @int8_weights(%a: tensor<4x3xf32>, %b: tensor<3x8xi8>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x8xi8>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Dynamic int8 activations: i8 x i8 into an i32 zero fill. The same blocks
// of int32 accumulators started from the fill's 0, both factors widened
// (signed), exact integer multiply-adds.
// CHECK-LABEL: func.func @int8_dot(
// CHECK:           scf.for %{{.*}} iter_args({{.*}}) -> (i32, i32, i32, i32) {
// CHECK-NEXT:        %[[A0:.*]] = tensor.extract %{{.*}} : tensor<2x3xi8>
// CHECK-NEXT:        %[[W0:.*]] = arith.extsi %[[A0]] : i8 to i32
// CHECK-NEXT:        %[[A1:.*]] = tensor.extract %{{.*}} : tensor<2x3xi8>
// CHECK-NEXT:        %[[W1:.*]] = arith.extsi %[[A1]] : i8 to i32
// CHECK-NEXT:        %[[Q0:.*]] = tensor.extract %{{.*}} : tensor<3x2xi8>
// CHECK-NEXT:        %[[B0:.*]] = arith.extsi %[[Q0]] : i8 to i32
// CHECK-NEXT:        %[[P0:.*]] = arith.muli %[[W0]], %[[B0]] : i32
// CHECK-NEXT:        arith.addi %{{.*}}, %[[P0]] : i32
// CHECK-NOT:   linalg.matmul
func.func @int8_dot(%a: tensor<4x3xi8>, %b: tensor<3x8xi8>) -> tensor<4x8xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x8xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%e : tensor<4x8xi32>) -> tensor<4x8xi32>
  %r = linalg.matmul ins(%a, %b : tensor<4x3xi8>, tensor<3x8xi8>) outs(%acc : tensor<4x8xi32>) -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// A matmul into rows of a bias (a cell's fused projections): each block
// starts its accumulators from its columns of the row, read once for all
// its rows; the broadcast is not run.
// CHECK-LABEL: func.func @from_bias(
// CHECK-SAME:    %{{.*}}: tensor<4x3xf32>, %{{.*}}: tensor<3x8xf32>, %[[BIAS:.*]]: tensor<8xf32>)
// CHECK-NOT:   linalg.broadcast
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK:         %[[B0:.*]] = tensor.extract %[[BIAS]][%[[J]]]
// CHECK-NEXT:    %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK-NEXT:    %[[B1:.*]] = tensor.extract %[[BIAS]][%[[J1]]]
// CHECK-NEXT:    scf.for %{{.*}} iter_args(%{{.*}} = %[[B0]], %{{.*}} = %[[B1]], %{{.*}} = %[[B0]], %{{.*}} = %[[B1]]) -> (f32, f32, f32, f32)
// CHECK-COUNT-4:   math.fma
// CHECK-NOT:   linalg.matmul
func.func @from_bias(%a: tensor<4x3xf32>, %b: tensor<3x8xf32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %rows = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %r = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x8xf32>) outs(%rows : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// unroll-k: two steps over k per iteration (k = 0, 2), then the remaining
// step (k = 4) after the loop, which the block's results come from; each
// accumulator still sums over k in order.
// UNROLL-LABEL: func.func @unrolled(
// UNROLL-DAG:   %[[C0:.*]] = arith.constant 0 : index
// UNROLL-DAG:   %[[C2:.*]] = arith.constant 2 : index
// UNROLL-DAG:   %[[C4:.*]] = arith.constant 4 : index
// UNROLL:       %[[SUMS:.*]]:4 = scf.for %{{.*}} = %[[C0]] to %[[C4]] step %[[C2]] iter_args(
// UNROLL-COUNT-8: math.fma
// UNROLL:       scf.yield
// UNROLL:       %[[LAST:.*]] = math.fma %{{.*}}, %{{.*}}, %[[SUMS]]#0 : f32
// UNROLL-COUNT-3: math.fma
// UNROLL:       tensor.insert %[[LAST]]
func.func @unrolled(%a: tensor<2x5xf32>, %b: tensor<5x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x5xf32>, tensor<5x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
