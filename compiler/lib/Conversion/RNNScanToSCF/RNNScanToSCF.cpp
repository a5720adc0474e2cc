//===- RNNScanToSCF.cpp - rnn.scan to an unrolled scf.for -----------------===//
//
// The pass: every rnn.scan becomes loops over time, built by one driver on
// ScanLowering's time loops (ScanLowering.h), chosen here: a run-time number
// of rows (RuntimeRows.h) or steps (RuntimeSteps.h), rows in blocks sorted
// by length (LengthSortedBlocks.h), or the whole batch's steps.
//
//===----------------------------------------------------------------------===//

#include "LengthSortedBlocks.h"
#include "RuntimeRows.h"
#include "RuntimeSteps.h"
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
  LowerScan(MLIRContext *ctx, const ScanLoweringOptions &options)
      : OpRewritePattern(ctx), options(options) {}
  ScanLoweringOptions options;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScanLowering scan(op, options);
    auto projection = op.getInput().getDefiningOp<ProjectOp>();
    StepRows batch = scan.wholeBatch(rewriter);
    auto initialState = [&] {
      return scan.initialState(rewriter, batch.count, op.getInit(),
                               op.getOutputs().getType(),
                               /*zeroOutputs=*/false);
    };
    ScanLowering::Finished finished;
    if (op.getRows())
      finished = runRuntimeRows(scan, rewriter, batch);
    else if (op.getSteps())
      finished =
          scan.finish(runRuntimeSteps(scan, rewriter, batch, initialState()));
    // Sorted blocks gather their rows' whole inputs: not in RAM-lean mode.
    else if (int64_t blockRows =
                 options.ramLean
                     ? 0
                     : lengthSortedBlockRows(op, options.lengthBlockRows))
      finished = runLengthSortedBlocks(scan, rewriter, batch, blockRows);
    else
      finished =
          scan.finish(scan.runSteps(rewriter, batch, initialState(), Value()));
    rewriter.replaceOp(op, scan.replacements(rewriter, finished));
    // The loops projected the slices they read; the whole is unused now.
    if (projection && projection->use_empty())
      rewriter.eraseOp(projection);
    return success();
  }
};

struct ConvertRNNScanToSCFPass
    : rnn::impl::ConvertRNNScanToSCFPassBase<ConvertRNNScanToSCFPass> {
  using ConvertRNNScanToSCFPassBase::ConvertRNNScanToSCFPassBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerScan>(&getContext(),
                            ScanLoweringOptions{timeBlockBytes, timeBlockRows,
                                                ramLean, lastRowCopies,
                                                runtimeStepBlock, skipBlockRows,
                                                lengthBlockRows,
                                                rowPhaseCacheBytes});
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
