//===- RNNToRuntime.cpp - Sequence ops to librnnrt calls ------------------===//
//
// librnnrt takes pointers to flat row-major arrays and their sizes (see
// runtime/include/rnnrt/rnnrt.h); pointerBuffer says how buffers are passed.
//
//===----------------------------------------------------------------------===//

#include "rnn/ABI/Runtime.h"
#include "rnn/Conversion/Passes.h"
#include "rnn/Conversion/RNNToRuntime/RuntimeCalls.h"
#include "rnn/IR/RNNOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

namespace mlir::rnn {
#define GEN_PASS_DEF_CONVERTRNNTORUNTIMEPASS
#include "rnn/Conversion/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

/// The buffer of a tensor operand, as a flat read-only memref.
Value readBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      /*read_only=*/true);
  return pointerBuffer(b, loc, buffer);
}

/// The lengths to pass: the op's, or every row at full length (the runtime
/// then reverses whole rows, as a flip without lengths does).
Value lengthsBuffer(OpBuilder &b, Location loc, Value lengths,
                    ArrayRef<int64_t> batchShape, int64_t steps) {
  if (!lengths) {
    auto type = RankedTensorType::get(batchShape, b.getI32Type());
    lengths = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(steps)));
  }
  return readBuffer(b, loc, lengths);
}

/// Calls the runtime to fill a fresh buffer for `result`, and replaces `op`
/// with that buffer as a tensor. `makeArgs` receives the flat output buffer.
LogicalResult
replaceWithCall(Operation *op, PatternRewriter &rewriter, StringRef name,
                function_ref<SmallVector<Value>(Value output)> makeArgs) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return rewriter.notifyMatchFailure(op, "not inside a module");
  Value output = memref::AllocOp::create(
      rewriter, loc,
      MemRefType::get(resultType.getShape(), resultType.getElementType()));
  SmallVector<Value> args = makeArgs(pointerBuffer(rewriter, loc, output));
  func::FuncOp callee =
      lookupOrDeclareRuntimeFunction(rewriter, module, name,
                                     ValueRange(args).getTypes());
  func::CallOp::create(rewriter, loc, callee, args);
  rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
      op, resultType, output, /*restrict=*/true, /*writable=*/true);
  return success();
}

Value i64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

struct LowerFlipSequences : OpRewritePattern<FlipSequencesOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FlipSequencesOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getInput().getType().getShape();
    int64_t numBatchDims = op.getNumBatchDims();
    int64_t timeAxis = op.getTimeAxis();
    ArrayRef<int64_t> batchShape =
        shape.slice(op.getTimeMajor() ? 1 : 0, numBatchDims);
    int64_t steps = shape[timeAxis];
    int64_t features = product(shape.drop_front(numBatchDims + 1));
    return replaceWithCall(op, rewriter, abi::kFlipSequencesF32,
                           [&](Value output) {
      Value timeMajor = arith::ConstantOp::create(
          rewriter, loc, rewriter.getI32IntegerAttr(op.getTimeMajor()));
      return SmallVector<Value>{
          readBuffer(rewriter, loc, op.getInput()), output,
          lengthsBuffer(rewriter, loc, op.getSeqLengths(), batchShape, steps),
          i64(rewriter, loc, product(batchShape)), i64(rewriter, loc, steps),
          i64(rewriter, loc, features), timeMajor};
    });
  }
};

struct LowerSelectLastCarry : OpRewritePattern<SelectLastCarryOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SelectLastCarryOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> batchShape = op.getSeqLengths().getType().getShape();
    ArrayRef<int64_t> carryShape = op.getInitial().getType().getShape();
    int64_t steps = op.getCarries().getType().getShape().front();
    return replaceWithCall(op, rewriter, abi::kSelectLastCarryF32,
                           [&](Value output) {
      return SmallVector<Value>{
          readBuffer(rewriter, loc, op.getCarries()),
          readBuffer(rewriter, loc, op.getInitial()),
          readBuffer(rewriter, loc, op.getSeqLengths()),
          i64(rewriter, loc, product(batchShape)), i64(rewriter, loc, steps),
          i64(rewriter, loc, product(carryShape.drop_front(batchShape.size()))),
          output};
    });
  }
};

struct ConvertRNNToRuntimePass
    : rnn::impl::ConvertRNNToRuntimePassBase<ConvertRNNToRuntimePass> {
  void runOnOperation() override {
    WalkResult unsupported = getOperation()->walk([](Operation *op) {
      if (!isa<FlipSequencesOp, SelectLastCarryOp>(op) ||
          getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        return WalkResult::advance();
      op->emitOpError("is only available in the runtime for f32, got ")
          << getElementTypeOrSelf(op->getResult(0).getType());
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerFlipSequences, LowerSelectLastCarry>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
