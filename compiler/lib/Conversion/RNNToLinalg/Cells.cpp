//===- Cells.cpp - Every cell op to linalg --------------------------------===//
//
// One pattern for every CellOpInterface op: batch dims folded into one row
// dim (a unit row when there are none), the two products (matmuls, or
// convolutions for cells with spatial dims), then one element-wise
// linalg.generic with the biases and the cell's own gate maths
// (CellOpInterface::buildNewCarries), and the batch dims restored. The
// generic computes each new carry over the old one and a result that is
// inserted into a slice (a scan step's output) in that slice too, so the
// scan lowering leaves no copies for later passes to remove.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// The tensor.insert_slice that inserts `result` into a tensor defined
/// before `cell` (a scan step's output into its slot of the sequence), or
/// null.
tensor::InsertSliceOp insertionOf(Value result, Operation *cell,
                                  DominanceInfo &dominance) {
  for (OpOperand &use : result.getUses()) {
    auto insert = dyn_cast<tensor::InsertSliceOp>(use.getOwner());
    if (insert && &use == &insert.getSourceMutable() &&
        dominance.properlyDominates(insert.getDest(), cell))
      return insert;
  }
  return nullptr;
}

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
  CellLowering(MLIRContext *ctx, bool fuseProjections, bool integerRowMaxima)
      : OpInterfaceRewritePattern(ctx), fuseProjections(fuseProjections),
        integerRowMaxima(integerRowMaxima) {}
  /// convert-rnn-to-linalg's `fuse-projections`, for the cells that allow it.
  bool fuseProjections;
  /// convert-rnn-to-linalg's `integer-row-maxima`.
  bool integerRowMaxima;

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
                                 integerRowMaxima, pieceBeside(cell));

    // A result inserted into a slice (a scan step's output into its slot)
    // is written there by the gate generic itself, beside its carry: no
    // loop of its own reads it back to copy it.
    unsigned numResults = cell->getNumResults();
    DominanceInfo dominance;
    SmallVector<tensor::InsertSliceOp> inserts =
        llvm::map_to_vector(cell->getResults(), [&](Value result) {
          return insertionOf(result, cell, dominance);
        });
    SmallVector<Value> slots;
    auto buildSlots = [&](OpBuilder &b) {
      for (tensor::InsertSliceOp insert : inserts) {
        // The slot's offsets may be computed after the cell (a time counted
        // from the end). One that cannot come first leaves the result to
        // be copied into its slot when bufferized.
        if (!insert ||
            failed(moveValueDefinitions(rewriter, insert.getOffsets(), cell))) {
          slots.push_back(Value());
          continue;
        }
        Value slot = tensor::ExtractSliceOp::create(
            b, insert.getLoc(), insert.getSourceType(), insert.getDest(),
            insert.getMixedOffsets(), insert.getMixedSizes(),
            insert.getMixedStrides());
        slots.push_back(collapseBatchDims(b, loc, slot, numBatchDims));
      }
      return slots;
    };
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, products, carries, numResults,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) {
          return cell.buildNewCarries(b, l, xi, xh, carry);
        },
        buildSlots);
    SmallVector<Value> restored;
    for (Value result : results)
      restored.push_back(
          restoreBatchDims(rewriter, loc, result, carryType, numBatchDims));
    ArrayRef<Value> written = ArrayRef(restored).drop_front(numResults);
    for (auto [insertOp, slot] : llvm::zip(inserts, slots)) {
      if (!slot)
        continue;
      auto insert = insertOp; // captured below: not a structured binding
      Value slotResult = written.front();
      written = written.drop_front();
      rewriter.modifyOpInPlace(
          insert, [&] { insert.getSourceMutable().assign(slotResult); });
    }
    rewriter.replaceOp(cell, ArrayRef(restored).take_front(numResults));
    return success();
  }
};

} // namespace

void mlir::rnn::populateCellPatterns(RewritePatternSet &patterns,
                                     bool fuseProjections,
                                     bool integerRowMaxima) {
  patterns.add<CellLowering>(patterns.getContext(), fuseProjections,
                             integerRowMaxima);
}
