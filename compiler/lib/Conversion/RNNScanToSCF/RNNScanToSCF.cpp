//===- RNNScanToSCF.cpp - rnn.scan to an unrolled scf.for -----------------===//
//
// The pass: every rnn.scan is lowered by a ScanLowering (ScanLowering.h).
//
//===----------------------------------------------------------------------===//

#include "ScanLowering.h"
#include "rnn/Conversion/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_CONVERTRNNSCANTOSCFPASS
#include "rnn/Conversion/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

struct LowerScan : OpRewritePattern<ScanOp> {
  LowerScan(MLIRContext *ctx, int64_t timeBlockBytes, int64_t timeBlockRows,
            bool ramLean, bool lastRowCopies)
      : OpRewritePattern(ctx), timeBlockBytes(timeBlockBytes),
        timeBlockRows(timeBlockRows), ramLean(ramLean),
        lastRowCopies(lastRowCopies) {}
  int64_t timeBlockBytes, timeBlockRows;
  bool ramLean, lastRowCopies;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScanLowering lowering{op,
                          rewriter,
                          op.getLoc(),
                          op.getTimeAxis(),
                          Value(),
                          op.getSeqLengths(),
                          op.getSeqLengths() && !op.getFinalCarry().empty(),
                          timeBlockBytes,
                          timeBlockRows,
                          ramLean,
                          lastRowCopies};
    return lowering.lower();
  }
};

struct ConvertRNNScanToSCFPass
    : rnn::impl::ConvertRNNScanToSCFPassBase<ConvertRNNScanToSCFPass> {
  using ConvertRNNScanToSCFPassBase::ConvertRNNScanToSCFPassBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerScan>(&getContext(), timeBlockBytes, timeBlockRows,
                           ramLean, lastRowCopies);
    // Scans nest only through other scans' bodies; the driver reaches both.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
    WalkResult left = getOperation()->walk([](BidirectionalOp bidi) {
      bidi.emitOpError("must be expanded (--rnn-expand-bidirectional) before "
                       "scans are lowered");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
