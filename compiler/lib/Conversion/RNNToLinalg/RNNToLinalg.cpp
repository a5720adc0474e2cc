//===- RNNToLinalg.cpp - The --convert-rnn-to-linalg pass -----------------===//
//
// A partial conversion: the cell ops, rnn.project, rnn.merge and the
// non-recurrent layers are illegal, everything
// else (rnn.scan and the other sequence ops included) is left alone. The
// conversion walks into regions, so cells in scan bodies are lowered too.
// Unsupported cases (dynamic shapes, ConvLSTM with more than 3 spatial dims)
// are diagnosed before converting anything.
//
//===----------------------------------------------------------------------===//

#include "rnn/Conversion/RNNToLinalg/RNNToLinalg.h"
#include "Lowering.h"
#include "rnn/Conversion/Passes.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_CONVERTRNNTOLINALGPASS
#include "rnn/Conversion/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

void mlir::rnn::populateRNNToLinalgConversionPatterns(
    RewritePatternSet &patterns, bool fuseProjections,
    bool integerRowMaxima, bool dequantizeGeneric) {
  populateCellPatterns(patterns, fuseProjections, integerRowMaxima);
  populateProjectPatterns(patterns, integerRowMaxima, dequantizeGeneric);
  populateMergePatterns(patterns);
  populateLayerPatterns(patterns);
}

/// The ops this pass lowers.
static bool isLowered(Operation *op) {
  return isa<CellOpInterface, ProjectOp, ProjectPieceOp, MergeOp, DenseOp,
             ActivationOp, LayerNormOp, PoolOp, EmbedOp>(op);
}

/// Emits an error on `op` when the patterns cannot lower it.
static LogicalResult checkSupported(Operation *op) {
  if (auto cell = dyn_cast<CellOpInterface>(op)) {
    int64_t spatial = cell.getNumSpatialDims();
    if (spatial && !hasNamedConvolution(spatial))
      return op->emitError("expected 1, 2 or 3 spatial dims (linalg has no "
                           "named convolution for more), found ")
             << spatial;
  }
  return success();
}

namespace {

struct ConvertRNNToLinalgPass
    : rnn::impl::ConvertRNNToLinalgPassBase<ConvertRNNToLinalgPass> {
  using ConvertRNNToLinalgPassBase::ConvertRNNToLinalgPassBase;

  void runOnOperation() override {
    bool supported = true;
    getOperation()->walk([&](Operation *op) {
      if (isLowered(op) && failed(checkSupported(op)))
        supported = false;
    });
    if (!supported)
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect,
                           quant::QuantDialect>();
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !isLowered(op); });
    RewritePatternSet patterns(ctx);
    populateRNNToLinalgConversionPatterns(patterns, fuseProjections,
                                          integerRowMaxima, dequantizeGeneric);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
