//===- RNNCanonicalize.cpp - Canonicalization patterns --------------------===//

#include "rnn/IR/RNNOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// A bias that is a constant zero adds nothing: drop it, so lowering emits
/// no add and no zero constant (nnx-style and Flax's zero-initialised biases).
struct DropZeroBias : OpInterfaceRewritePattern<CellOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(CellOpInterface op,
                                PatternRewriter &rewriter) const override {
    // Each range is taken fresh: clearing one shifts the other's operands.
    auto dropIfZero = [&](MutableOperandRange bias) {
      if (bias.empty() || !matchPattern(bias[0].get(), m_AnyZeroFloat()))
        return false;
      rewriter.modifyOpInPlace(op, [&] { bias.clear(); });
      return true;
    };
    bool changed = dropIfZero(op.getHiddenBiasMutable());
    changed |= dropIfZero(op.getInputBiasMutable());
    return success(changed);
  }
};

/// Final carries nobody reads need not be selected: rebuild the scan
/// without them (they are all present or all absent).
struct DropUnusedFinalCarry : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getFinalCarry().empty() ||
        llvm::any_of(op.getFinalCarry(), [](Value v) { return !v.use_empty(); }))
      return rewriter.notifyMatchFailure(op, "final carry in use or absent");
    auto scan = ScanOp::create(
        rewriter, op.getLoc(), TypeRange{op.getOutputs().getType()},
        op.getInput(), op.getSeqLengths(), op.getInit(), op.getSteps(), op.getRows(),
        op.getNumBatchDimsAttr(), op.getTimeMajorAttr(), op.getReverseAttr(),
        op.getKeepOrderAttr(), op.getZeroPaddedOutputsAttr(),
        op.getUnrollAttr(), op.getOverlapRowsAttr());
    rewriter.inlineRegionBefore(op.getBody(), scan.getBody(),
                                scan.getBody().end());
    rewriter.replaceAllUsesWith(op.getOutputs(), scan.getOutputs());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

// Cell patterns apply to every cell op: registered once, for the dialect.
void RNNDialect::getCanonicalizationPatterns(RewritePatternSet &patterns) const {
  patterns.add<DropZeroBias>(getContext());
}

void ScanOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *context) {
  patterns.add<DropUnusedFinalCarry>(context);
}
