//===- RuntimeRows.cpp - A scan over a run-time number of rows ------------===//
//
// With `rows`, the scan's tensors keep the maximum batch B but only rows
// [0, rows) of the first batch dim run. As for `steps`, the loops have
// run-time bounds and their blocks static sizes: one block of rows per set
// binary digit of `rows` (a loop of zero or one iteration each), so every
// block's body has static types (a projected input and the
// matmuls of the cells keep their static codegen) and the work follows the
// actual rows (RowBlocks.h, shared with rnn-runtime-rows, which does the
// same for the layers after). The rows beyond `rows` are left undefined.
//
//===----------------------------------------------------------------------===//

#include "RuntimeRows.h"
#include "RuntimeSteps.h"

#include "rnn/Transforms/RowBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rnn;

ScanLowering::Finished mlir::rnn::runRuntimeRows(ScanLowering &scan,
                                                 OpBuilder &b,
                                                 const StepRows &batch) {
  ScanOp op = scan.getOp();
  Location loc = scan.getLoc();
  // The verifier takes `rows` only without lengths.
  assert(!batch.lengths && "run-time rows have no lengths");
  int64_t batchAxis = op.getTimeMajor() ? 1 : 0;
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
      b, loc, op.getRows(), batch.count, results,
      [&](OpBuilder &nb, Value row, int64_t size, ValueRange batchArgs) {
        StepRows block{extractRows(nb, loc, batch.input, batchAxis, row, size),
                       Value(), size, /*inRowLoop=*/true};
        SmallVector<Value> blockInit;
        for (Value carry : init)
          blockInit.push_back(extractRows(nb, loc, carry, 0, row, size));
        SmallVector<Value> state = scan.initialState(
            nb, size, blockInit, withRows(outputsType, batchAxis, size),
            /*zeroOutputs=*/false);
        // The block's outputs are its rows of the batch's (stored back
        // below): bufferization then writes them in place instead of
        // copying the whole batch's outputs at every block.
        state[numCarries] =
            extractRows(nb, loc, batchArgs[numCarries], batchAxis, row, size);
        state = op.getSteps() ? runRuntimeSteps(scan, nb, block, state)
                              : scan.runSteps(nb, block, state, Value());
        ScanLowering::Finished finished = scan.finish(state);
        SmallVector<Value> next;
        for (size_t i = 0; i < numCarries; ++i)
          next.push_back(
              insertRows(nb, loc, finished.finals[i], batchArgs[i], 0, row));
        next.push_back(insertRows(nb, loc, finished.outputs,
                                  batchArgs[numCarries], batchAxis, row));
        return next;
      });
  return {results.back(), SmallVector<Value>(ArrayRef(results).drop_back())};
}
