//===- RuntimeRows.cpp - A scan over a run-time number of rows ------------===//
//
// With `rows`, the scan's tensors keep the maximum batch B but only rows
// [0, rows) of the first batch dim run. As for `steps`, the loops have
// run-time bounds and their blocks static sizes: one block of rows per set
// binary digit of `rows` (a loop of zero or one iteration each), so every
// block's body has static types (the hoisted input projection and the
// matmuls of the cells keep their static codegen) and the work follows the
// actual rows (RowBlocks.h, shared with rnn-runtime-rows, which does the
// same for the layers after). The rows beyond `rows` are left undefined.
//
//===----------------------------------------------------------------------===//

#include "LengthSortedBlocks.h"
#include "ScanLowering.h"

#include "rnn/Transforms/RowBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rnn;

ScanLowering::Finished ScanLowering::runRuntimeRows() {
  OpBuilder &b = rewriter;
  int64_t batch = rows;
  int64_t batchAxis = op.getTimeMajor() ? 1 : 0;
  Value batchInput = input;
  SmallVector<Value> init(op.getInit());
  RankedTensorType outputsType = op.getOutputs().getType();

  // The batch-sized results: the final carries, then the outputs.
  SmallVector<Value> results;
  for (BlockArgument arg : op.getCarryArgs()) {
    auto type = cast<RankedTensorType>(arg.getType());
    results.push_back(tensor::EmptyOp::create(b, loc, type.getShape(),
                                              type.getElementType()));
  }
  size_t numCarries = results.size();
  results.push_back(tensor::EmptyOp::create(b, loc, outputsType.getShape(),
                                            outputsType.getElementType()));

  results = buildRowBlocks(
      b, loc, op.getRows(), batch, results,
      [&](OpBuilder &nb, Value row, int64_t size, ValueRange batchArgs) {
        input = extractRows(nb, loc, batchInput, batchAxis, row, size);
        SmallVector<Value> blockInit;
        for (Value carry : init)
          blockInit.push_back(extractRows(nb, loc, carry, 0, row, size));
        rows = size;
        SmallVector<Value> state = initialState(
            nb, blockInit, withRows(outputsType, batchAxis, size),
            /*zeroOutputs=*/false);
        // The block's outputs are its rows of the batch's (stored back
        // below): bufferization then writes them in place instead of
        // copying the whole batch's outputs at every block.
        state[numCarries] = extractRows(nb, loc, batchArgs[numCarries],
                                        batchAxis, row, size);
        state = op.getSteps() ? runRuntimeSteps(nb, state)
                              : runSteps(nb, state, Value());
        Finished block = finish(state);
        SmallVector<Value> next;
        for (size_t i = 0; i < numCarries; ++i)
          next.push_back(
              insertRows(nb, loc, block.finals[i], batchArgs[i], 0, row));
        next.push_back(insertRows(nb, loc, block.outputs,
                                  batchArgs[numCarries], batchAxis, row));
        return next;
      });
  input = batchInput;
  rows = batch;
  return {results.back(), SmallVector<Value>(ArrayRef(results).drop_back())};
}
