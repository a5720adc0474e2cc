//===- ExpandBidirectional.cpp - rnn.bidirectional to two scans -----------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/IR/RNNShapes.h"
#include "rnn/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNEXPANDBIDIRECTIONALPASS
#include "rnn/Transforms/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

struct ExpandBidirectional : OpRewritePattern<BidirectionalOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BidirectionalOp op,
                                PatternRewriter &rewriter) const override {
    bool withCarry = !op.getForwardCarry().empty();
    int64_t timeAxis = op.getTimeAxis();
    int64_t steps = op.getInput().getType().getShape()[timeAxis];

    // One direction's scan, taking over that direction's body.
    auto makeScan = [&](Region &body, ValueRange init, bool backward,
                        int64_t unroll) {
      Block &block = body.front();
      auto yield = cast<YieldOp>(block.back());
      SmallVector<Type> types{
          stackSteps(yield.getOutput().getType(), timeAxis, steps)};
      if (withCarry)
        llvm::append_range(types, TypeRange(block.getArgumentTypes()).drop_back());
      UnitAttr flag = backward ? rewriter.getUnitAttr() : UnitAttr();
      auto scan = ScanOp::create(
          rewriter, op.getLoc(), types, op.getInput(), op.getSeqLengths(),
          init, /*steps=*/Value(), op.getRows(), op.getNumBatchDimsAttr(),
          op.getTimeMajorAttr(),
          /*reverse=*/flag, /*keep_order=*/flag, op.getZeroPaddedOutputsAttr(),
          rewriter.getI64IntegerAttr(unroll));
      rewriter.inlineRegionBefore(body, scan.getBody(), scan.getBody().end());
      return scan;
    };
    ScanOp forward = makeScan(op.getForward(), op.getForwardInit(),
                              /*backward=*/false, op.getForwardUnroll());
    ScanOp backward = makeScan(op.getBackward(), op.getBackwardInit(),
                               /*backward=*/true, op.getBackwardUnroll());
    auto merge = MergeOp::create(rewriter, op.getLoc(), op.getOutputs().getType(),
                                 op.getMergeAttr(), forward.getOutputs(),
                                 backward.getOutputs());

    SmallVector<Value> replacements{merge.getResult()};
    llvm::append_range(replacements, forward.getFinalCarry());
    llvm::append_range(replacements, backward.getFinalCarry());
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

struct RNNExpandBidirectionalPass
    : rnn::impl::RNNExpandBidirectionalPassBase<RNNExpandBidirectionalPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandBidirectional>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
