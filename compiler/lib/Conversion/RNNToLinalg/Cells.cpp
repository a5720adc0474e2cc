//===- Cells.cpp - Every cell op to linalg --------------------------------===//
//
// One pattern for every CellOpInterface op: batch dims folded into one row
// dim (a unit row when there are none), the two products (matmuls, or
// convolutions for cells with spatial dims), then one element-wise
// linalg.generic with the biases and the cell's own gate maths
// (CellOpInterface::buildNewCarries), and the batch dims restored.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// The piece of an input projection computed beside `cell`'s recurrent
/// product (an rnn.project_piece whose `beside` is the cell), or null.
ProjectPieceOp pieceBeside(CellOpInterface cell) {
  for (Operation *user : cell->getUsers()) {
    auto piece = dyn_cast<ProjectPieceOp>(user);
    if (piece && piece.getBeside() &&
        piece.getBeside().getDefiningOp() == cell.getOperation())
      return piece;
  }
  return nullptr;
}

struct CellLowering : OpInterfaceRewritePattern<CellOpInterface> {
  CellLowering(MLIRContext *ctx, bool fuseProjections)
      : OpInterfaceRewritePattern(ctx), fuseProjections(fuseProjections) {}
  /// convert-rnn-to-linalg's `fuse-projections`, for the cells that allow it.
  bool fuseProjections;

  LogicalResult matchAndRewrite(CellOpInterface cell,
                                PatternRewriter &rewriter) const override {
    int64_t spatial = cell.getNumSpatialDims();
    if (spatial && !hasNamedConvolution(spatial))
      return rewriter.notifyMatchFailure(
          cell, "expected 1, 2 or 3 spatial dims (a named linalg convolution)");

    Location loc = cell.getLoc();
    auto carryType = cast<RankedTensorType>(cell.getCarries().back().getType());
    int64_t numBatchDims = carryType.getRank() - 1 - spatial;
    Value x = collapseBatchDims(rewriter, loc, cell.getInput(), numBatchDims);
    SmallVector<Value> carries;
    for (Value carry : cell.getCarries())
      carries.push_back(collapseBatchDims(rewriter, loc, carry, numBatchDims));
    // `h` is always the last carry (LSTM's carry is (c, h)).
    GateProducts products =
        spatial
            ? emitConvolutionProducts(rewriter, loc, cell, x, carries.back())
            : emitMatmulProducts(rewriter, loc, cell, x, carries.back(),
                                 fuseProjections && cell.fusesProjections(),
                                 pieceBeside(cell));

    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, products, carries, cell->getNumResults(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) {
          return cell.buildNewCarries(b, l, xi, xh, carry);
        });
    SmallVector<Value> restored;
    for (Value result : results)
      restored.push_back(
          restoreBatchDims(rewriter, loc, result, carryType, numBatchDims));
    rewriter.replaceOp(cell, restored);
    return success();
  }
};

} // namespace

void mlir::rnn::populateCellPatterns(RewritePatternSet &patterns,
                                     bool fuseProjections) {
  patterns.add<CellLowering>(patterns.getContext(), fuseProjections);
}
