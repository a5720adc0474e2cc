//===- ReorderMatmulLoops.cpp - Matmuls whose inner loop vectorizes -------===//

#include "rnn/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNREORDERMATMULLOOPSPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

struct ReorderMatmul : OpRewritePattern<linalg::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    // Only the plain form: no transposed or broadcast operands, no casts.
    if (!op.hasPureTensorSemantics() || op.getInputs().size() != 2 ||
        !llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isProjectedPermutation(); }))
      return rewriter.notifyMatchFailure(op, "not a plain matmul on tensors");
    Type element = getElementTypeOrSelf(op.getOutputs()[0].getType());
    if (!isa<FloatType>(element) ||
        getElementTypeOrSelf(op.getInputs()[0].getType()) != element ||
        getElementTypeOrSelf(op.getInputs()[1].getType()) != element)
      return rewriter.notifyMatchFailure(op, "mixed or integer types");
    if (op.getIndexingMapsArray() != op.getDefaultIndexingMaps(getContext()))
      return rewriter.notifyMatchFailure(op, "non-default indexing maps");

    MLIRContext *ctx = getContext();
    AffineExpr i, k, j;
    bindDims(ctx, i, k, j);
    auto map = [&](ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(3, 0, exprs, ctx);
    };
    SmallVector<utils::IteratorType> iterators{
        utils::IteratorType::parallel, utils::IteratorType::reduction,
        utils::IteratorType::parallel};
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, op.getResultTypes(), op.getInputs(), op.getOutputs(),
        ArrayRef<AffineMap>{map({i, k}), map({k, j}), map({i, j})}, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          Value product = arith::MulFOp::create(b, loc, args[0], args[1]);
          Value sum = arith::AddFOp::create(b, loc, args[2], product);
          linalg::YieldOp::create(b, loc, sum);
        });
    return success();
  }
};

struct RNNReorderMatmulLoopsPass
    : rnn::impl::RNNReorderMatmulLoopsPassBase<RNNReorderMatmulLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReorderMatmul>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
