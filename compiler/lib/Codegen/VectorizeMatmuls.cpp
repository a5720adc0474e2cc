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

/// Vectorizes `op` (a block of a matmul, or the fill of its accumulator).
LogicalResult vectorizeBlock(RewriterBase &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op, /*inputVectorSizes=*/{},
                        /*inputScalableVecDims=*/{},
                        /*vectorizeNDExtract=*/false,
                        /*flatten1DDepthwiseConv=*/false,
                        /*assumeDynamicDimsMatchVecSizes=*/false,
                        /*createNamedContraction=*/true);
  if (failed(vectorized))
    return op->emitOpError("could not be vectorized");
  rewriter.replaceOp(op, vectorized->replacements);
  return success();
}

/// Tiles `op` into m x n blocks, each a loop over k of one-step blocks, and
/// vectorizes the blocks.
LogicalResult vectorizeMatmul(RewriterBase &rewriter, linalg::MatmulOp op,
                              int64_t m, int64_t n) {
  rewriter.setInsertionPoint(op);
  // Blocks first, with k whole. A fill of the accumulator (a zero
  // accumulator) is fused into each block, so a block starts from a
  // constant instead of reading back a buffer filled beforehand.
  scf::SCFTilingOptions blocks;
  blocks.setTileSizes({rewriter.getIndexAttr(m), rewriter.getIndexAttr(n),
                       rewriter.getIndexAttr(0)});
  // Column blocks outermost: one block column of the right-hand side (the
  // weights) stays in cache while every row block passes over it, instead
  // of the whole matrix streaming through once per row block.
  blocks.setInterchange({1, 0, 2});
  scf::SCFTileAndFuseOptions fusion;
  fusion.setTilingOptions(blocks);
  fusion.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer,
         bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isa<linalg::FillOp>(producer.getOwner()))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  FailureOr<scf::SCFTileAndFuseResult> tiled =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), fusion);
  if (failed(tiled))
    return op.emitOpError("could not be tiled");
  for (OpResult result : op->getResults())
    rewriter.replaceAllUsesWith(result, tiled->replacements.lookup(result));
  rewriter.eraseOp(op);

  // Then each block steps through k one rank-1 update at a time.
  auto block = cast<TilingInterface>(tiled->tiledAndFusedOps.front());
  SmallVector<Operation *> fills(llvm::drop_begin(tiled->tiledAndFusedOps));
  rewriter.setInsertionPoint(block);
  scf::SCFTilingOptions steps;
  steps.setTileSizes({rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
                      rewriter.getIndexAttr(1)});
  FailureOr<scf::SCFTilingResult> stepped =
      scf::tileUsingSCF(rewriter, block, steps);
  if (failed(stepped))
    return block->emitOpError("could not be tiled");
  rewriter.replaceOp(block, stepped->replacements);

  for (Operation *step : stepped->tiledOps)
    if (failed(vectorizeBlock(rewriter, step)))
      return failure();
  for (Operation *fill : fills)
    if (isa<linalg::FillOp>(fill) && failed(vectorizeBlock(rewriter, fill)))
      return failure();
  return success();
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
      if (failed(vectorizeMatmul(rewriter, op, m, n)))
        return signalPassFailure();
    }
  }
};

} // namespace
