//===- RNNToRuntime.cpp - Sequence ops bufferize to librnnrt calls --------===//
//
// flip_sequences and select_last_carry have no loop nest of their own: each
// is a librnnrt call on buffers. Their BufferizableOpInterface model makes
// that call while one-shot bufferization runs, so the result buffer is an
// ordinary allocation of the bufferization options (rnn-assign-workspace
// places it) and the operands' buffers are the ones the analysis chose.
// librnnrt takes pointers to flat row-major arrays and their sizes (see
// runtime/include/rnnrt/rnnrt.h); pointerBuffer says how buffers are passed.
//
//===----------------------------------------------------------------------===//

#include "rnn/Conversion/RNNToRuntime/RNNToRuntime.h"
#include "rnn/ABI/Runtime.h"
#include "rnn/Conversion/RNNToRuntime/RuntimeCalls.h"
#include "rnn/IR/RNNDialect.h"
#include "rnn/IR/RNNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/TypeUtilities.h"

#include <numeric>

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::rnn;

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

MemRefType contiguousType(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return MemRefType::get(type.getShape(), type.getElementType());
}

/// The buffer of a tensor operand, as a flat read-only pointer. The runtime
/// reads a dense row-major array, so a strided buffer is copied first.
FailureOr<Value> readBuffer(RewriterBase &rewriter, Location loc, Value tensor,
                            const BufferizationOptions &options,
                            const BufferizationState &state) {
  FailureOr<Value> buffer = getBuffer(rewriter, tensor, options, state);
  if (failed(buffer))
    return failure();
  MemRefType type = contiguousType(tensor);
  if (buffer->getType() != type) {
    buffer = castOrReallocMemRefValue(rewriter, *buffer, type, options);
    if (failed(buffer))
      return failure();
  }
  return pointerBuffer(rewriter, loc, *buffer);
}

/// The lengths to pass: the op's, or every row at full length (the runtime
/// then reverses whole rows, as a flip without lengths does), a constant
/// global as bufferization makes of any constant tensor.
FailureOr<Value> lengthsBuffer(RewriterBase &rewriter, Location loc,
                               Value lengths, ArrayRef<int64_t> batchShape,
                               int64_t steps,
                               const BufferizationOptions &options,
                               BufferizationState &state) {
  if (lengths)
    return readBuffer(rewriter, loc, lengths, options, state);
  auto type = RankedTensorType::get(batchShape, rewriter.getI32Type());
  auto full = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(type, rewriter.getI32IntegerAttr(steps)));
  FailureOr<memref::GlobalOp> global =
      getGlobalFor(full, state.getSymbolTables(), options.bufferAlignment);
  rewriter.eraseOp(full);
  if (failed(global))
    return failure();
  Value buffer = memref::GetGlobalOp::create(
      rewriter, loc, global->getType(), global->getName());
  return pointerBuffer(rewriter, loc, buffer);
}

Value i64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

/// What both ops share: every operand is only read, and the result is a new
/// contiguous buffer that the runtime fills.
template <typename Model, typename OpTy>
struct RuntimeCallModel
    : BufferizableOpInterface::ExternalModel<Model, OpTy> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  FailureOr<BufferLikeType>
  getBufferType(Operation *, Value value, const BufferizationOptions &,
                const BufferizationState &, SmallVector<Value> &) const {
    return cast<BufferLikeType>(contiguousType(value));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    Type elementType = getElementTypeOrSelf(op->getResult(0).getType());
    if (!elementType.isF32())
      return op->emitOpError("is only available in the runtime for f32, got ")
             << elementType;
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return op->emitOpError("must be inside a module to call the runtime");
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    FailureOr<Value> output = options.createAlloc(
        rewriter, loc, contiguousType(op->getResult(0)), ValueRange());
    if (failed(output))
      return failure();
    FailureOr<SmallVector<Value>> args = Model::callArguments(
        cast<OpTy>(op), rewriter, pointerBuffer(rewriter, loc, *output),
        options, state);
    if (failed(args))
      return failure();
    func::FuncOp callee = lookupOrDeclareRuntimeFunction(
        rewriter, module, Model::kFunction, ValueRange(*args).getTypes());
    func::CallOp::create(rewriter, loc, callee, *args);
    replaceOpWithBufferizedValues(rewriter, op, *output);
    return success();
  }
};

/// rnnrt_flip_sequences_f32(in, out, lengths, batch, time, feature,
/// time_major).
struct FlipSequencesModel
    : RuntimeCallModel<FlipSequencesModel, FlipSequencesOp> {
  static constexpr StringLiteral kFunction = abi::kFlipSequencesF32;

  static FailureOr<SmallVector<Value>>
  callArguments(FlipSequencesOp op, RewriterBase &rewriter, Value output,
                const BufferizationOptions &options,
                BufferizationState &state) {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getInput().getType().getShape();
    int64_t numBatchDims = op.getNumBatchDims();
    ArrayRef<int64_t> batchShape =
        shape.slice(op.getTimeMajor() ? 1 : 0, numBatchDims);
    int64_t steps = shape[op.getTimeAxis()];
    int64_t features = product(shape.drop_front(numBatchDims + 1));
    Value timeMajor = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(op.getTimeMajor()));
    FailureOr<Value> input =
        readBuffer(rewriter, loc, op.getInput(), options, state);
    if (failed(input))
      return failure();
    FailureOr<Value> lengths =
        lengthsBuffer(rewriter, loc, op.getSeqLengths(), batchShape, steps,
                      options, state);
    if (failed(lengths))
      return failure();
    return SmallVector<Value>{*input,
                              output,
                              *lengths,
                              i64(rewriter, loc, product(batchShape)),
                              i64(rewriter, loc, steps),
                              i64(rewriter, loc, features),
                              timeMajor};
  }
};

/// rnnrt_select_last_carry_f32(carries, initial, lengths, batch, time,
/// carry, out); an unbatched carry has batch 1.
struct SelectLastCarryModel
    : RuntimeCallModel<SelectLastCarryModel, SelectLastCarryOp> {
  static constexpr StringLiteral kFunction = abi::kSelectLastCarryF32;

  static FailureOr<SmallVector<Value>>
  callArguments(SelectLastCarryOp op, RewriterBase &rewriter, Value output,
                const BufferizationOptions &options,
                BufferizationState &state) {
    Location loc = op.getLoc();
    ArrayRef<int64_t> batchShape = op.getSeqLengths().getType().getShape();
    ArrayRef<int64_t> carryShape = op.getInitial().getType().getShape();
    int64_t steps = op.getCarries().getType().getShape().front();
    SmallVector<Value> args;
    for (Value tensor : {op.getCarries(), op.getInitial(), op.getSeqLengths()}) {
      FailureOr<Value> buffer = readBuffer(rewriter, loc, tensor, options, state);
      if (failed(buffer))
        return failure();
      args.push_back(*buffer);
    }
    args.append(
        {i64(rewriter, loc, product(batchShape)), i64(rewriter, loc, steps),
         i64(rewriter, loc, product(carryShape.drop_front(batchShape.size()))),
         output});
    return args;
  }
};

} // namespace

void mlir::rnn::registerRuntimeBufferizationModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, RNNDialect *) {
    FlipSequencesOp::attachInterface<FlipSequencesModel>(*context);
    SelectLastCarryOp::attachInterface<SelectLastCarryModel>(*context);
  });
}
