//===- RuntimeRows.cpp - A scan over a run-time number of rows ------------===//
//
// With `rows`, the scan's tensors keep the maximum batch B but only rows
// [0, rows) of the first batch dim run. As for `steps`, the loops have
// run-time bounds and their blocks static sizes: one block of rows per set
// binary digit of `rows` (a loop of zero or one iteration each), so every
// block's body has static types (the hoisted input projection and the
// matmuls of the cells keep their static codegen) and the work follows the
// actual rows. The rows beyond `rows` are left undefined.
//
//===----------------------------------------------------------------------===//

#include "LengthSortedBlocks.h"
#include "ScanLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// `count` entries of `full` from `first` along `axis`.
Value rowBlock(OpBuilder &b, Location loc, Value full, int64_t axis,
               Value first, int64_t count) {
  AxisSlice slice = axisSlice(b, cast<RankedTensorType>(full.getType()), axis,
                              first, count);
  return tensor::ExtractSliceOp::create(b, loc, full, slice.offsets,
                                        slice.sizes, slice.strides);
}

/// `full` with `part` stored from `first` along `axis`.
Value setRowBlock(OpBuilder &b, Location loc, Value part, Value full,
                  int64_t axis, Value first) {
  auto type = cast<RankedTensorType>(part.getType());
  AxisSlice slice = axisSlice(b, type, axis, first, type.getDimSize(axis));
  return tensor::InsertSliceOp::create(b, loc, part, full, slice.offsets,
                                       slice.sizes, slice.strides);
}

} // namespace

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

  int64_t largest = 1;
  while (largest * 2 <= batch)
    largest *= 2;
  // The digits are taken on i64: EmitC has no bitwise ops on index.
  Type i64 = b.getI64Type();
  Value actual = arith::IndexCastUIOp::create(b, loc, i64, op.getRows());
  Value first = arith::ConstantIndexOp::create(b, loc, 0);
  for (int64_t size = largest; size >= 1; size /= 2) {
    // `rows & size` is `size` when that digit is set, else 0.
    Value digit = arith::IndexCastUIOp::create(
        b, loc, b.getIndexType(),
        arith::AndIOp::create(
            b, loc, actual,
            arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(size))));
    Value last = arith::AddIOp::create(b, loc, first, digit);
    Value stride = arith::ConstantIndexOp::create(b, loc, size);
    auto loop = scf::ForOp::create(
        b, loc, first, last, stride, results,
        [&](OpBuilder &nb, Location, Value row, ValueRange batchArgs) {
          input = rowBlock(nb, loc, batchInput, batchAxis, row, size);
          SmallVector<Value> blockInit;
          for (Value carry : init)
            blockInit.push_back(rowBlock(nb, loc, carry, 0, row, size));
          rows = size;
          SmallVector<Value> state = initialState(
              nb, blockInit, withRows(outputsType, batchAxis, size),
              /*zeroOutputs=*/false);
          // The block's outputs are its rows of the batch's (stored back
          // below): bufferization then writes them in place instead of
          // copying the whole batch's outputs at every block.
          state[numCarries] = rowBlock(nb, loc, batchArgs[numCarries],
                                       batchAxis, row, size);
          state = op.getSteps() ? runRuntimeSteps(nb, state)
                                : runSteps(nb, state, Value());
          Finished block = finish(state);
          SmallVector<Value> next;
          for (size_t i = 0; i < numCarries; ++i)
            next.push_back(
                setRowBlock(nb, loc, block.finals[i], batchArgs[i], 0, row));
          next.push_back(setRowBlock(nb, loc, block.outputs,
                                     batchArgs[numCarries], batchAxis, row));
          scf::YieldOp::create(nb, loc, next);
        });
    results.assign(loop.getResults().begin(), loop.getResults().end());
    first = last;
  }
  input = batchInput;
  rows = batch;
  return {results.back(), SmallVector<Value>(ArrayRef(results).drop_back())};
}
