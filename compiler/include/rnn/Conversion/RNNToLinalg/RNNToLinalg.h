//===- RNNToLinalg.h - rnn cells and rnn.merge to linalg --------*- C++ -*-===//
//
// Patterns that lower every cell op (any op with CellOpInterface) and
// `rnn.merge` to linalg, tensor, arith and math on tensors. Cells become two matmuls (or
// two SAME-padded convolutions) into zero-filled tensors and one element-wise
// `linalg.generic` with the gate maths. The patterns are plain
// `RewritePattern`s: they work under a dialect conversion (as in
// `--convert-rnn-to-linalg`) and under the greedy driver. They need static
// shapes and, for ConvLSTM, 1 to 3 spatial dims; other ops fail to match.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_CONVERSION_RNNTOLINALG_RNNTOLINALG_H
#define RNN_CONVERSION_RNNTOLINALG_RNNTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::rnn {

/// Adds the patterns lowering the cell ops and `rnn.merge` to `patterns`.
/// With `fuseProjections`, LSTM cells with constant f32 weights sum both
/// products and the biases in one matmul (`fuse-projections`); dynamic int8
/// activations take their rows' maxima on the magnitudes' bits with
/// `integerRowMaxima` (`integer-row-maxima`), and with `dequantizeGeneric`
/// convert a projection's sums in one generic (`dequantize-generic`).
void populateRNNToLinalgConversionPatterns(RewritePatternSet &patterns,
                                           bool fuseProjections = false,
                                           bool integerRowMaxima = false,
                                           bool dequantizeGeneric = false);

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNTOLINALG_RNNTOLINALG_H
