//===- VectorizeMatmuls.cpp - Register-blocked matmuls --------------------===//

#include "rnn/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNVECTORIZEMATMULSPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// The largest divisor of `size` that is at most `limit`.
int64_t largestDivisor(int64_t size, int64_t limit) {
  for (int64_t d = std::min(size, limit); d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}

struct RNNVectorizeMatmulsPass
    : rnn::impl::RNNVectorizeMatmulsPassBase<RNNVectorizeMatmulsPass> {
  using RNNVectorizeMatmulsPassBase::RNNVectorizeMatmulsPassBase;

  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) {
      auto result = dyn_cast<RankedTensorType>(op.getResultTypes().front());
      if (result && result.hasStaticShape() &&
          op.getIndexingMapsArray() == op.getDefaultIndexingMaps(&getContext()))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : matmuls) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t m = largestDivisor(ranges[0], tileM);
      // Fewer rows than a block holds (small batches): widen the block so
      // it keeps as many independent accumulators.
      int64_t n = largestDivisor(ranges[1], tileN);
      int64_t wide =
          largestDivisor(ranges[1], tileN * std::max<int64_t>(1, tileM / m));
      // Only whole power-of-two blocks: odd widths (GRU's 3 x 64 columns)
      // measured several times slower.
      if (wide > n && llvm::isPowerOf2_64(wide))
        n = wide;
      // Narrow blocks would waste most of each vector register.
      if (n < 8)
        continue;
      rewriter.setInsertionPoint(op);
      scf::SCFTilingOptions options;
      options.setTileSizes(
          {rewriter.getIndexAttr(m), rewriter.getIndexAttr(n),
           rewriter.getIndexAttr(1)});
      // Column blocks outermost: one block column of the right-hand side
      // (the weights) stays in cache while every row block passes over it,
      // instead of the whole matrix streaming through once per row block.
      options.setInterchange({1, 0, 2});
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled)) {
        op.emitOpError("could not be tiled");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, tiled->replacements);
      for (Operation *block : tiled->tiledOps) {
        rewriter.setInsertionPoint(block);
        FailureOr<linalg::VectorizationResult> vectorized =
            linalg::vectorize(rewriter, block, /*inputVectorSizes=*/{},
                              /*inputScalableVecDims=*/{},
                              /*vectorizeNDExtract=*/false,
                              /*flatten1DDepthwiseConv=*/false,
                              /*assumeDynamicDimsMatchVecSizes=*/false,
                              /*createNamedContraction=*/true);
        if (failed(vectorized)) {
          block->emitOpError("could not be vectorized");
          return signalPassFailure();
        }
        rewriter.replaceOp(block, vectorized->replacements);
      }
    }
  }
};

} // namespace
