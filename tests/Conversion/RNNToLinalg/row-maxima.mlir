// RUN: rnn-opt %s --convert-rnn-to-linalg=integer-row-maxima --split-input-file | FileCheck %s --check-prefix=BITS
// RUN: rnn-opt %s --convert-rnn-to-linalg --split-input-file | FileCheck %s --check-prefix=FLOAT

/// Dynamic int8 activations: each row's maximum magnitude, on the rows
/// where they are (2 x 3 of them): one loop per row dim, and over each row
/// a loop that carries the maximum as a value and inserts it once. With
/// integer-row-maxima the magnitudes are the i32 bits with the sign
/// cleared, compared as integers, and the scales read the maximum's bits
/// back as a float; without, floats.

!q = !quant.uniform<i8<-127:127>:f32:1, {0.5,0.25,1.0,2.0}>
// BITS-LABEL: func.func @row_maxima(
// BITS-SAME: %[[X:[^:]+]]: tensor<2x3x8xf32>
// BITS-DAG: %[[C2:.*]] = arith.constant 2 : index
// BITS: %[[MAXIMA:.*]] = scf.for %[[B:[^ ]+]] = %{{[^ ]+}} to %[[C2]] {{.*}} -> (tensor<2x3xi32>)
// BITS: scf.for %[[T:[^ ]+]] = {{.*}} -> (tensor<2x3xi32>)
// BITS: %[[ROW:.*]] = scf.for %[[K:[^ ]+]] = {{.*}} iter_args(%[[MAX:[^ ]+]] = %{{[^ ]+}}) -> (i32)
// BITS:   %[[E:.*]] = tensor.extract %[[X]][%[[B]], %[[T]], %[[K]]] : tensor<2x3x8xf32>
// BITS:   %[[BITS:.*]] = arith.bitcast %[[E]] : f32 to i32
// BITS:   %[[MAG:.*]] = arith.andi %[[BITS]], %{{.*}} : i32
// BITS:   %[[NEW:.*]] = arith.maxsi %[[MAX]], %[[MAG]] : i32
// BITS:   scf.yield %[[NEW]] : i32
// BITS: tensor.insert %[[ROW]] into %{{.*}}[%[[B]], %[[T]]] : tensor<2x3xi32>
// BITS: linalg.generic {{.*}} ins(%[[MAXIMA]] : tensor<2x3xi32>)
// BITS: arith.bitcast %{{.*}} : i32 to f32
// BITS: arith.divf
// FLOAT-LABEL: func.func @row_maxima(
// FLOAT-NOT: arith.bitcast
// FLOAT: scf.for {{.*}} iter_args(%[[MAX:[^ ]+]] = %{{[^ ]+}}) -> (f32)
// FLOAT:   %[[MAG:.*]] = math.absf
// FLOAT:   arith.maximumf %[[MAX]], %[[MAG]] : f32
// FLOAT: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x3xf32>)
// FLOAT-NOT: arith.bitcast
// FLOAT-LABEL: return
func.func @row_maxima(%x: tensor<2x3x8xf32>) -> tensor<2x3x4xf32> {
  %qw = arith.constant dense<[[1, -2, 3, 4], [0, 0, 127, 0], [-127, 2, 3, 4], [5, 6, 7, 8], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]> : tensor<8x4xi8>
  %w = quant.scast %qw : tensor<8x4xi8> to tensor<8x4x!q>
  %d = rnn.project %x kernel(%w) dynamic_int8 : tensor<2x3x8xf32>, tensor<8x4x!q> -> tensor<2x3x4xf32>
  return %d : tensor<2x3x4xf32>
}
