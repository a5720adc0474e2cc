//===- SplitInputProjection.cpp - A scan's input product before it --------===//
//
// The input side of a dense cell's step, `x_t @ wi`, reads no carry. Taken
// out of the body as one rnn.project of the scan's whole input, it is a
// matmul over the rows of many steps instead of one small matmul per step;
// convert-rnn-scan-to-scf computes it per loop over steps (or block of
// steps) on the slice of the input that loop reads, and the cell computes
// only the recurrent product.
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNSPLITINPUTPROJECTIONPASS
#include "rnn/Transforms/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// `type` with `size` entries in its last dim.
RankedTensorType withFeatures(Type type, int64_t size) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(ranked.getShape());
  shape.back() = size;
  return RankedTensorType::get(shape, ranked.getElementType());
}

struct SplitInputProjection : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp scan,
                                PatternRewriter &rewriter) const override {
    // Unbatched scans keep the product in each step, as their code always
    // has (splitting them would change it).
    if (scan.getNumBatchDims() == 0)
      return rewriter.notifyMatchFailure(scan, "expected batch dims");
    BlockArgument step = scan.getStepInputArg();
    if (!step.hasOneUse())
      return rewriter.notifyMatchFailure(
          scan, "expected the step input read by one op only");
    auto cell = dyn_cast<CellOpInterface>(*step.getUsers().begin());
    if (!cell || cell.getInput() != step)
      return rewriter.notifyMatchFailure(
          scan, "expected the step input to be a cell's input");
    if (cell.getNumSpatialDims() != 0)
      return rewriter.notifyMatchFailure(
          cell, "expected a dense cell (a convolution is not row-wise)");
    if (cell.hasProjectedInput())
      return rewriter.notifyMatchFailure(cell, "input already projected");
    CellPrecision precision = cell.getPrecision();
    Value kernel = cell.getInputKernel();
    if (scan.getBody().isAncestor(kernel.getParentRegion()))
      return rewriter.notifyMatchFailure(
          cell, "expected an input kernel defined outside the scan");
    // bf16 compute's projection multiplies bf16 values exactly in f32: its
    // weights must be bf16 already (the front end stores them so).
    auto kernelType = cast<RankedTensorType>(kernel.getType());
    if (precision.bf16Compute && !kernelType.getElementType().isBF16())
      return rewriter.notifyMatchFailure(
          cell, "expected bf16 weights with bf16 compute");

    int64_t columns = kernelType.getDimSize(1);
    rewriter.setInsertionPoint(scan);
    auto project = ProjectOp::create(
        rewriter, cell.getLoc(), withFeatures(scan.getInput().getType(), columns),
        scan.getInput(), kernel,
        precision.dynamicInt8 ? rewriter.getUnitAttr() : UnitAttr(),
        precision.bf16Compute ? TypeAttr::get(rewriter.getBF16Type())
                              : TypeAttr());
    rewriter.modifyOpInPlace(scan, [&] {
      scan.getInputMutable().assign(project);
      step.setType(withFeatures(step.getType(), columns));
    });
    rewriter.modifyOpInPlace(cell, [&] {
      cell->setAttr("projected_input", rewriter.getUnitAttr());
    });
    return success();
  }
};

struct RNNSplitInputProjectionPass
    : rnn::impl::RNNSplitInputProjectionPassBase<RNNSplitInputProjectionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitInputProjection>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
