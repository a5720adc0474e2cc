//===- Lowering.h - Building blocks of the rnn-to-linalg patterns -*- C++
//-*-===//
//
// Private to the RNNToLinalg library: batch-dim reshapes, zero-filled
// products, the cells' products (matmuls or convolutions), and the one
// element-wise linalg.generic that every cell's gate maths lives in. The
// scalar maths is the dialect's (rnn/IR/ScalarMaths.h, CellMaths.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_CONVERSION_RNNTOLINALG_LOWERING_H
#define RNN_LIB_CONVERSION_RNNTOLINALG_LOWERING_H

#include "rnn/IR/RNNOps.h"
#include "rnn/IR/ScalarMaths.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::rnn {

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

/// `x` (an f32 tensor) narrowed to a bf16 tensor element-wise (a
/// linalg.generic of arith.truncf: round to nearest even).
Value emitNarrowTensorToBF16(OpBuilder &b, Location loc, Value x);

/// `x` (an f32 tensor) with every element rounded to a bf16 value, in f32
/// (a linalg.generic on `x` itself of emitRoundToBF16).
Value emitRoundTensorToBF16(OpBuilder &b, Location loc, Value x);

/// `value` (*batch, *rest) with its `numBatchDims` leading dims folded into
/// one: collapsed when there are several, a unit dim inserted when none.
Value collapseBatchDims(OpBuilder &b, Location loc, Value value,
                        int64_t numBatchDims);

/// The inverse of collapseBatchDims: `value` reshaped to `type`.
Value restoreBatchDims(OpBuilder &b, Location loc, Value value,
                       RankedTensorType type, int64_t numBatchDims);

/// A tensor of `shape` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type elementType, double value);

/// A zero-filled tensor of `shape` (float or integer elements).
Value zeroTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Type elementType);

/// `lhs @ rhs` (M x K times K x N) accumulated into zeros of `accumulator`
/// (default: `lhs`'s element type).
Value emitMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                 Type accumulator = {});

/// A product with dynamic int8 activations before its conversion to f32:
/// the exact i32 sums (M x N) and each row's f32 scale (M).
struct DynamicInt8Sums {
  Value sums, rowScales;
};

/// `lhs @ rhs` with dynamic int8 activations (DynamicInt8.cpp): `lhs` (f32,
/// [rows..., K], M rows in all) quantized per row to i8, times the i8
/// storage `rhs` (K x N) summed in i32, with each row's scale beside the
/// sums. Several row dims are read in place (a slice of a batch-major
/// input's steps need not be contiguous) and folded after quantizing. With
/// `integerRowMaxima`, the rows' maxima compare the magnitudes' bits as
/// integers (the same maxima, in a loop that vectorizes).
DynamicInt8Sums emitDynamicInt8Sums(OpBuilder &b, Location loc, Value lhs,
                                    Value rhs, bool integerRowMaxima);

/// emitDynamicInt8Sums's product in f32 (M x N): each sum converted and
/// times its row's scale. The columns' scales are the caller's, as with
/// weight-only int8. The conversion is a loop over the rows, each row's
/// scale read once; with `asGeneric`, one generic over rows and columns
/// whose indexing map broadcasts the row's scale (the form rnn-int8-matmuls
/// folds into its kernel's epilogue).
Value emitDynamicInt8Matmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                            bool integerRowMaxima, bool asGeneric = false);

/// One i32 `sum` of a dynamic int8 product in f32: `float(sum) * rowScale`.
Value emitDequantizedSum(OpBuilder &b, Location loc, Value sum, Value rowScale);

//===----------------------------------------------------------------------===//
// Gate maths
//===----------------------------------------------------------------------===//

/// The pre-activations of a cell: `gi` and `gh` have shape (N, *spatial,
/// G*F), the gate blocks side by side on the last dim; biases (G*F) are
/// optional. Without `gh`, `gi` is the whole pre-activation (both products
/// and the biases summed by one matmul: `fuse-projections`) and the body
/// gets no `xh`.
/// With int8 kernels, `si`/`sh` (G*F, f32) are the per-column scales of
/// `wi`/`wh`: `gi` and `gh` are then sums of int8 weights times f32
/// activations, and the scale of each column multiplies the sum (it factors
/// out of the sum over k) before the bias is added.
/// With dynamic int8 activations, `ri`/`rh` (N, f32), when present, are the
/// rows' scales of `gi`/`gh`, which are then i32 sums: each element is
/// `float(sum) * r_row` (emitDequantizedSum) before its column's scale.
struct GateProducts {
  Value gi, gh, bi, bh;
  int64_t numGates;
  Value si = {}, sh = {};
  /// bf16 compute: `xi = B(B(gi) + bi)`, `xh = B(B(gh) + bh)` (each Dense's
  /// bf16 output, its bias added in bf16).
  bool roundBF16 = false;
  /// `gi` holds bf16 values already (a bf16 rnn.project's): B(gi) is gi.
  bool giRounded = false;
  /// Dynamic int8: the rows' scales of the i32 sums `gi` and `gh` hold.
  Value ri = {}, rh = {};
};

/// An int8 kernel's i8 storage (`!quant.uniform` per-axis elements); a
/// float kernel as is.
Value kernelStorage(OpBuilder &b, Location loc, Value kernel);

/// An int8 kernel (`!quant.uniform` per-axis elements) split into its i8
/// storage and its per-column scales as an f32 constant; a float kernel is
/// returned as is, with no scales.
std::pair<Value, Value> splitInt8Kernel(OpBuilder &b, Location loc,
                                        Value kernel);

/// Builds the scalar new carry from, per gate `k`, `xi[k] = gi_k (+ bi_k)`
/// and `xh[k] = gh_k (+ bh_k)` (`xh` empty without `gh`), and the scalar
/// old `carries`.
using GateBodyBuilder = llvm::function_ref<SmallVector<Value>(
    OpBuilder &b, Location loc, ArrayRef<Value> xi, ArrayRef<Value> xh,
    ArrayRef<Value> carries)>;

/// Emits one element-wise linalg.generic over the carries' shape whose
/// inputs are the gate blocks of `products` (tensor.extract_slice of F
/// columns each), the bias and column-scale blocks (broadcast over all but
/// the last dim), the row scales (broadcast over all but the first) and
/// `carries`; `body` computes its `numResults` results (each shaped like the
/// carries), each written over the carry it replaces. `slots`, built just
/// before the generic, gives per result a further tensor (null: none) it is
/// also written into, as one more init (a scan step's slot of its output
/// sequence). Returns the generic's results: the `numResults`, then one per
/// slot given.
using ResultSlotsBuilder = llvm::function_ref<SmallVector<Value>(OpBuilder &b)>;
SmallVector<Value> emitGateGeneric(OpBuilder &b, Location loc,
                                   const GateProducts &products,
                                   ValueRange carries, unsigned numResults,
                                   GateBodyBuilder body,
                                   ResultSlotsBuilder slots = nullptr);

/// The products of a cell whose kernels are matrices (MatmulProducts.cpp):
/// `x @ wi` (or `x` itself when the cell's input is projected) and `h @ wh`
/// (x and h with their batch dims folded into one),
/// on int8 storage with the kernels' scales, with dynamic int8 activations
/// or on bf16 rows and weights into f32 as the cell's precision asks; with
/// `fuse` (the pass's fuse-projections, for a cell that allows it), both
/// products and the biases as one matmul when its weights are f32 constants.
/// With `piece` (an rnn.project_piece `beside` the cell), `h @ wh` and the
/// piece are one rnn.shared_k_matmuls, and `piece` is replaced by its ring.
/// `integerRowMaxima`: emitDynamicInt8Sums'.
GateProducts emitMatmulProducts(PatternRewriter &rewriter, Location loc,
                                CellOpInterface cell, Value x, Value h,
                                bool fuse, bool integerRowMaxima,
                                ProjectPieceOp piece = nullptr);

/// The products of a convolutional cell (ConvolutionProducts.cpp): SAME,
/// stride-1 cross-correlations of `x` with `wi` and of `h` with `wh`.
GateProducts emitConvolutionProducts(OpBuilder &b, Location loc,
                                     CellOpInterface cell, Value x, Value h);

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Every cell op (Cells.cpp).
void populateCellPatterns(RewritePatternSet &patterns, bool fuseProjections,
                          bool integerRowMaxima);
void populateMergePatterns(RewritePatternSet &patterns);
/// rnn.project, as the cells' input products (MatmulProducts.cpp).
void populateProjectPatterns(RewritePatternSet &patterns,
                             bool integerRowMaxima, bool dequantizeGeneric);
/// Dense, activations, LayerNorm, Pool and Embed (Layers.cpp).
void populateLayerPatterns(RewritePatternSet &patterns);

/// Whether linalg has a named channels-last convolution for `spatialDims`
/// spatial dims (conv_1d_nwc_wcf, conv_2d_nhwc_hwcf, conv_3d_ndhwc_dhwcf).
inline bool hasNamedConvolution(int64_t spatialDims) {
  return spatialDims >= 1 && spatialDims <= 3;
}

} // namespace mlir::rnn

#endif // RNN_LIB_CONVERSION_RNNTOLINALG_LOWERING_H
