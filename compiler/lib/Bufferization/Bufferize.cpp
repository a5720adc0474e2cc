//===- Bufferize.cpp - One-shot bufferization with rnnc's copies ----------===//

#include "rnn/Bufferization/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNBUFFERIZEPASS
#include "rnn/Bufferization/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::bufferization;

namespace {

bool isContiguous(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && type.getLayout().isIdentity();
}

struct RNNBufferizePass : rnn::impl::RNNBufferizePassBase<RNNBufferizePass> {
  void runOnOperation() override {
    // What `one-shot-bufferize` does without options ...
    OneShotBufferizationOptions options;
    options.setFunctionBoundaryTypeConversion(
        LayoutMapOption::InferLayoutMap);
    options.unknownTypeConverterFn = [](TensorType type, Attribute memorySpace,
                                        const BufferizationOptions &) {
      return getMemRefTypeWithFullyDynamicLayout(type, memorySpace);
    };
    // ... but with copies that lower to memcpy or to loops.
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      if (isContiguous(from) && isContiguous(to))
        memref::CopyOp::create(b, loc, from, to);
      else
        linalg::CopyOp::create(b, loc, from, to);
      return success();
    };
    BufferizationState state;
    if (failed(runOneShotBufferize(getOperation(), options, state)))
      signalPassFailure();
  }
};

} // namespace
