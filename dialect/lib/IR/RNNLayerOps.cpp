//===- RNNLayerOps.cpp - Verifiers and folds of the non-recurrent layers --===//
//
// As for the cells, a verifier failure on IR built from a spec is an rnnc
// bug (the spec checker rejects user mistakes first); the messages say what
// was expected and what was found.
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/IR/RNNShapes.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::rnn;

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Checks that `value` (when present) is a vector of `size` elements of the
/// input's element type.
static LogicalResult verifyVector(Operation *op, StringRef name, Value value,
                                  int64_t size, Type elementType) {
  if (!value)
    return success();
  if (shapeOf(value) != ArrayRef<int64_t>{size})
    return op->emitOpError("expects '")
           << name << "' of shape " << formatShape({size})
           << " (the last dim of the input), got "
           << formatShape(shapeOf(value));
  if (getElementTypeOrSelf(value.getType()) != elementType)
    return op->emitOpError("expects '")
           << name << "' of element type " << elementType << ", got "
           << getElementTypeOrSelf(value.getType());
  return success();
}

static LogicalResult verifyNonScalar(Operation *op, Value input) {
  if (shapeOf(input).empty())
    return op->emitOpError("expects an input of rank >= 1, got a scalar");
  return success();
}

//===----------------------------------------------------------------------===//
// DenseOp
//===----------------------------------------------------------------------===//

LogicalResult DenseOp::verify() {
  if (failed(verifyNonScalar(*this, getInput())))
    return failure();
  ArrayRef<int64_t> input = shapeOf(getInput()), kernel = shapeOf(getKernel());
  if (kernel.size() != 2 || kernel[0] != input.back())
    return emitOpError("expects a kernel of shape ")
           << input.back() << "xN (input features x output features), got "
           << formatShape(kernel);
  Type elementType = getElementTypeOrSelf(getInput().getType());
  Type kernelType = getElementTypeOrSelf(getKernel().getType());
  if (isInt8PerChannelType(kernelType)) {
    // int8 weights (quantize: {weights: int8}): one scale per column.
    auto quant = cast<quant::UniformQuantizedPerAxisType>(kernelType);
    if (!elementType.isF32())
      return emitOpError("expects f32 activations with an int8 kernel, got ")
             << elementType;
    if (quant.getQuantizedDimension() != 1 ||
        int64_t(quant.getScales().size()) != kernel[1])
      return emitOpError("expects the kernel quantized along dim 1 with one "
                         "scale per column (")
             << kernel[1] << "), got axis " << quant.getQuantizedDimension()
             << " with " << quant.getScales().size() << " scales";
  } else if (kernelType != elementType)
    return emitOpError("expects a kernel of element type ")
           << elementType << ", got "
           << getElementTypeOrSelf(getKernel().getType());
  if (failed(verifyVector(*this, "bias", getBias(), kernel[1], elementType)))
    return failure();
  SmallVector<int64_t> expected(input);
  expected.back() = kernel[1];
  auto expectedType = RankedTensorType::get(expected, elementType);
  if (getResult().getType() != expectedType)
    return emitOpError("expects a result of type ")
           << expectedType << ", got " << getResult().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// ActivationOp
//===----------------------------------------------------------------------===//

LogicalResult ActivationOp::verify() {
  bool normalizes = getFn() == Activation::softmax ||
                    getFn() == Activation::log_softmax;
  if (normalizes)
    return verifyNonScalar(*this, getInput());
  return success();
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  if (failed(verifyNonScalar(*this, getInput())))
    return failure();
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("expects a positive 'epsilon', got ")
           << getEpsilon().convertToDouble();
  int64_t features = shapeOf(getInput()).back();
  Type elementType = getElementTypeOrSelf(getInput().getType());
  if (failed(verifyVector(*this, "scale", getScale(), features, elementType)) ||
      failed(verifyVector(*this, "bias", getBias(), features, elementType)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// PoolOp
//===----------------------------------------------------------------------===//

LogicalResult PoolOp::verify() {
  int64_t numBatchDims = getNumBatchDims();
  RankedTensorType type = getInput().getType();
  if (numBatchDims < 0)
    return emitOpError("expects 'num_batch_dims' to be non-negative, got ")
           << numBatchDims;
  if (type.getRank() < numBatchDims + 2)
    return emitOpError("expects an input of rank >= ")
           << numBatchDims + 2 << " (" << numBatchDims
           << " batch dims, time, features), got rank " << type.getRank();
  int64_t timeAxis = getTimeAxis();
  if (Value lengths = getSeqLengths()) {
    ArrayRef<int64_t> batch =
        type.getShape().slice(getTimeMajor() ? 1 : 0, numBatchDims);
    if (shapeOf(lengths) != batch)
      return emitOpError("expects 'seq_lengths' of shape ")
             << formatShape(batch) << " (the batch dims), got "
             << formatShape(shapeOf(lengths));
  }
  auto expected = RankedTensorType::get(dropAxis(type.getShape(), timeAxis),
                                        type.getElementType());
  if (getResult().getType() != expected)
    return emitOpError("expects a result of type ")
           << expected << " (the input without its time axis), got "
           << getResult().getType();
  return success();
}

namespace {

/// The last step of a scan's outputs is its final `h` when the scan ends on
/// that step: no lengths on either (or both the same, with zeros as the
/// initial carry, so that a row of length 0 gives zeros either way), and
/// outputs in processing order (not reversed back by keep_order). Reading
/// the final carry instead lets the scan skip storing its outputs when
/// nothing else reads them (Pool(last) after the last recurrent layer).
struct PoolLastOfScan : OpRewritePattern<PoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PoolOp pool,
                                PatternRewriter &rewriter) const override {
    auto scan = pool.getInput().getDefiningOp<ScanOp>();
    if (pool.getKind() != PoolKind::last || !scan ||
        pool.getInput() != scan.getOutputs())
      return rewriter.notifyMatchFailure(pool, "not the last step of a scan");
    if (scan.getReverse() && scan.getKeepOrder())
      return rewriter.notifyMatchFailure(pool, "outputs back in input order");
    if (pool.getSeqLengths() != scan.getSeqLengths())
      return rewriter.notifyMatchFailure(pool, "lengths differ");
    if (pool.getSeqLengths() && !scan.getInit().empty())
      return rewriter.notifyMatchFailure(pool, "length 0 keeps the init");
    if (scan.getTimeMajor() != pool.getTimeMajor() ||
        scan.getNumBatchDims() != pool.getNumBatchDims())
      return rewriter.notifyMatchFailure(pool, "layouts differ");

    ScanOp withCarry = scan;
    if (scan.getFinalCarry().empty()) {
      SmallVector<Type> types{scan.getOutputs().getType()};
      for (BlockArgument carry : scan.getCarryArgs())
        types.push_back(carry.getType());
      withCarry = ScanOp::create(
          rewriter, scan.getLoc(), types, scan.getInput(),
          scan.getSeqLengths(), scan.getInit(), scan.getSteps(), scan.getRows(),
          scan.getNumBatchDimsAttr(),
          scan.getTimeMajorAttr(), scan.getReverseAttr(),
          scan.getKeepOrderAttr(), scan.getZeroPaddedOutputsAttr(),
          scan.getUnrollAttr(), scan.getOverlapRowsAttr());
      rewriter.inlineRegionBefore(scan.getBody(), withCarry.getBody(),
                                  withCarry.getBody().end());
      rewriter.replaceAllUsesWith(scan.getOutputs(), withCarry.getOutputs());
      rewriter.eraseOp(scan);
    }
    Value h = withCarry.getFinalCarry().back();
    if (h.getType() != pool.getResult().getType())
      return rewriter.notifyMatchFailure(pool, "carry is not the output");
    rewriter.replaceOp(pool, h);
    return success();
  }
};

} // namespace

void PoolOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *context) {
  patterns.add<PoolLastOfScan>(context);
}

//===----------------------------------------------------------------------===//
// EmbedOp
//===----------------------------------------------------------------------===//

LogicalResult EmbedOp::verify() {
  ArrayRef<int64_t> table = shapeOf(getEmbedding());
  if (table.size() != 2)
    return emitOpError("expects an embedding table of rank 2 "
                       "(num_embeddings x features), got rank ")
           << table.size();
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(table[1]);
  auto expectedType = RankedTensorType::get(
      expected, getElementTypeOrSelf(getEmbedding().getType()));
  if (getResult().getType() != expectedType)
    return emitOpError("expects a result of type ")
           << expectedType << " (the ids' shape, then features), got "
           << getResult().getType();
  return success();
}
