//===- LengthSortedBlocks.cpp - Rows in blocks sorted by length -----------===//

#include "LengthSortedBlocks.h"
#include "ScanLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rnn;

int64_t mlir::rnn::lengthSortedBlockRows(ScanOp op) {
  if (!op.getZeroPaddedOutputs() || !op.getSeqLengths() ||
      op.getNumBatchDims() != 1)
    return 0;
  for (Operation &nested : op.getBody().front().without_terminator())
    if (!isa<CellOpInterface>(nested))
      return 0;
  int64_t batch =
      cast<RankedTensorType>(op.getCarryArgs()[0].getType()).getDimSize(0);
  if (batch < 4)
    return 0;
  // Blocks of 2 or 3 rows only in batches of at most 8 (where speed
  // hardly matters); larger batches want at least 4 rows per block, so a
  // batch with no such divisor (a prime) runs as one block.
  constexpr int64_t limit = 4;
  int64_t least = batch <= 8 ? 2 : 4;
  for (int64_t blockRows = std::min(limit, batch / 2); blockRows >= least;
       --blockRows)
    if (batch % blockRows == 0)
      return blockRows;
  for (int64_t blockRows = limit + 1; blockRows <= batch / 2; ++blockRows)
    if (batch % blockRows == 0)
      return blockRows;
  return 0;
}

Value mlir::rnn::sortRowsByLength(OpBuilder &b, Location loc,
                                  Value rowLengths) {
  int64_t batch = cast<RankedTensorType>(rowLengths.getType()).getDimSize(0);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value size = arith::ConstantIndexOp::create(b, loc, batch);
  Value empty = tensor::EmptyOp::create(b, loc, {batch}, i32);
  // One key per row, larger first: L * B + (B - 1 - row), in i64. A
  // single comparison orders two rows (and C needs no && / || mix).
  auto key = [&](OpBuilder &kb, Value row) {
    Value length = arith::ExtSIOp::create(
        kb, loc, i64, tensor::ExtractOp::create(kb, loc, rowLengths, row));
    Value index = arith::IndexCastOp::create(kb, loc, i64, row);
    Value last =
        arith::ConstantOp::create(kb, loc, kb.getI64IntegerAttr(batch - 1));
    Value scale =
        arith::ConstantOp::create(kb, loc, kb.getI64IntegerAttr(batch));
    Value scaled = arith::MulIOp::create(kb, loc, length, scale);
    Value tie = arith::SubIOp::create(kb, loc, last, index);
    return arith::AddIOp::create(kb, loc, scaled, tie).getResult();
  };
  // order[rank(r)] = r, where rank(r) counts the rows with a larger key.
  auto loop = scf::ForOp::create(
      b, loc, zero, size, one, ValueRange{empty},
      [&](OpBuilder &nb, Location, Value r, ValueRange orderArg) {
        Value mine = key(nb, r);
        auto count = scf::ForOp::create(
            nb, loc, zero, size, one, ValueRange{zero},
            [&](OpBuilder &cb, Location, Value s, ValueRange countArg) {
              Value before = arith::CmpIOp::create(
                  cb, loc, arith::CmpIPredicate::sgt, key(cb, s), mine);
              Value add = arith::SelectOp::create(cb, loc, before, one, zero);
              scf::YieldOp::create(
                  cb, loc,
                  ValueRange{arith::AddIOp::create(cb, loc, countArg[0], add)});
            });
        Value row = arith::IndexCastOp::create(nb, loc, i32, r);
        Value order = tensor::InsertOp::create(nb, loc, row, orderArg[0],
                                               ValueRange{count.getResult(0)});
        scf::YieldOp::create(nb, loc, order);
      });
  return loop.getResult(0);
}

Value mlir::rnn::moveRows(OpBuilder &b, Location loc, Value from, Value into,
                          Value order, Value first, int64_t blockRows,
                          int64_t axis, bool toBlock) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = arith::ConstantIndexOp::create(b, loc, blockRows);
  auto loop = scf::ForOp::create(
      b, loc, zero, count, one, ValueRange{into},
      [&](OpBuilder &nb, Location, Value i, ValueRange intoArg) {
        Value at = arith::AddIOp::create(nb, loc, first, i);
        Value row = arith::IndexCastOp::create(
            nb, loc, nb.getIndexType(),
            tensor::ExtractOp::create(nb, loc, order, at));
        Value src = toBlock ? row : i, dst = toBlock ? i : row;
        auto fromType = cast<RankedTensorType>(from.getType());
        auto intoType = cast<RankedTensorType>(intoArg[0].getType());
        AxisSlice read = axisSlice(nb, fromType, axis, src);
        Value slice = tensor::ExtractSliceOp::create(
            nb, loc, from, read.offsets, read.sizes, read.strides);
        AxisSlice write = axisSlice(nb, intoType, axis, dst);
        Value moved = tensor::InsertSliceOp::create(nb, loc, slice, intoArg[0],
                                                    write.offsets, write.sizes,
                                                    write.strides);
        scf::YieldOp::create(nb, loc, moved);
      });
  return loop.getResult(0);
}

RankedTensorType mlir::rnn::withRows(Type type, int64_t axis,
                                     int64_t blockRows) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(ranked.getShape());
  shape[axis] = blockRows;
  return RankedTensorType::get(shape, ranked.getElementType());
}

Value mlir::rnn::leadingRows(OpBuilder &b, Location loc, Value full,
                             int64_t axis, int64_t count) {
  AxisSlice slice = axisSlice(b, cast<RankedTensorType>(full.getType()), axis,
                              b.getIndexAttr(0), count);
  return tensor::ExtractSliceOp::create(b, loc, full, slice.offsets,
                                        slice.sizes, slice.strides);
}

Value mlir::rnn::setLeadingRows(OpBuilder &b, Location loc, Value part,
                                Value full) {
  auto type = cast<RankedTensorType>(part.getType());
  AxisSlice slice =
      axisSlice(b, type, /*axis=*/0, b.getIndexAttr(0), type.getDimSize(0));
  return tensor::InsertSliceOp::create(b, loc, part, full, slice.offsets,
                                       slice.sizes, slice.strides);
}

//===----------------------------------------------------------------------===//
// ScanLowering: zero-padded outputs in blocks of rows sorted by length
//===----------------------------------------------------------------------===//

ScanLowering::Finished ScanLowering::runLengthSortedBlocks(int64_t blockRows) {
  OpBuilder &b = rewriter;
  int64_t batch = rows;
  int64_t batchAxis = op.getTimeMajor() ? 1 : 0;
  Value batchInput = input, batchLengths = lengths;
  Value order = sortRowsByLength(b, loc, batchLengths);

  SmallVector<Value> init(op.getInit());
  RankedTensorType outputsType = op.getOutputs().getType();
  // Every row belongs to one block, so the batch-sized results start
  // empty and are written whole.
  SmallVector<Value> results;
  if (captureCarry)
    for (BlockArgument arg : op.getCarryArgs())
      results.push_back(tensor::EmptyOp::create(
          b, loc, cast<RankedTensorType>(arg.getType()).getShape(),
          cast<RankedTensorType>(arg.getType()).getElementType()));
  size_t numCarries = results.size();
  results.push_back(tensor::EmptyOp::create(b, loc, outputsType.getShape(),
                                            outputsType.getElementType()));

  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value size = arith::ConstantIndexOp::create(b, loc, batch);
  Value stride = arith::ConstantIndexOp::create(b, loc, blockRows);
  auto loop = scf::ForOp::create(
      b, loc, zero, size, stride, results,
      [&](OpBuilder &nb, Location, Value first, ValueRange batchArgs) {
        auto gather = [&](Value full, int64_t axis) {
          Value empty = tensor::EmptyOp::create(
              nb, loc, withRows(full.getType(), axis, blockRows).getShape(),
              cast<RankedTensorType>(full.getType()).getElementType());
          return moveRows(nb, loc, full, empty, order, first, blockRows, axis,
                          /*toBlock=*/true);
        };
        input = gather(batchInput, batchAxis);
        lengths = gather(batchLengths, 0);
        SmallVector<Value> blockInit;
        for (Value carry : init)
          blockInit.push_back(gather(carry, 0));
        rows = blockRows;
        SmallVector<Value> state = initialState(
            nb, blockInit, withRows(outputsType, batchAxis, blockRows),
            /*zeroOutputs=*/true);
        if (shrinkingRowsPay(batch)) {
          state = runShrinkingRows(nb, state);
        } else {
          // Sorted by decreasing length: the first row is the longest.
          Value longest = arith::IndexCastOp::create(
              nb, loc, nb.getIndexType(),
              tensor::ExtractOp::create(nb, loc, lengths, ValueRange{zero}));
          state = runSteps(nb, state, longest);
        }

        Finished block = finish(state);
        SmallVector<Value> next;
        for (size_t i = 0; i < numCarries; ++i)
          next.push_back(moveRows(nb, loc, block.finals[i], batchArgs[i], order,
                                  first, blockRows, 0,
                                  /*toBlock=*/false));
        next.push_back(moveRows(nb, loc, block.outputs, batchArgs[numCarries],
                                order, first, blockRows, batchAxis,
                                /*toBlock=*/false));
        scf::YieldOp::create(nb, loc, next);
      });
  input = batchInput;
  lengths = batchLengths;
  rows = batch;

  ValueRange values = loop.getResults();
  return {values.back(), SmallVector<Value>(values.drop_back())};
}

int64_t ScanLowering::stepGrain() {
  int64_t block = timeBlockSteps(/*skipping=*/true);
  return block == loopSteps() ? unrollFactor() : block;
}

bool ScanLowering::shrinkingRowsPay(int64_t batch) {
  return op.getNumSteps() * rows / batch >= 2 * stepGrain();
}

SmallVector<Value> ScanLowering::runShrinkingRows(OpBuilder &b,
                                                  SmallVector<Value> state) {
  int64_t steps = op.getNumSteps();
  int64_t mainSteps = loopSteps();
  int64_t block = timeBlockSteps(/*skipping=*/true);
  int64_t grain = stepGrain();
  int64_t blockRows = rows;
  int64_t batchAxis = op.getTimeMajor() ? 1 : 0;
  size_t numCarries = op.getCarryArgs().size();
  Value blockInput = input, blockLengths = lengths;
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value start = constant(0);
  for (int64_t r = blockRows; r >= 1; --r) {
    Value end = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        tensor::ExtractOp::create(b, loc, blockLengths,
                                  ValueRange{constant(r - 1)}));
    rows = r;
    input = leadingRows(b, loc, blockInput, batchAxis, r);
    lengths = leadingRows(b, loc, blockLengths, 0, r);
    SmallVector<Value> phase;
    for (auto [i, value] : llvm::enumerate(state))
      phase.push_back(
          leadingRows(b, loc, value, i == numCarries ? batchAxis : 0, r));
    phase = runSteps(b, phase, end, {start, block, /*remainder=*/false});
    for (auto [i, value] : llvm::enumerate(phase))
      state[i] = setLeadingRows(b, loc, value, state[i]);
    // Where this phase stopped: the first whole iteration or block at or
    // after its end, within the loop.
    // (Signed ops, all operands >= 0: the C path has no unsigned index
    // division.)
    Value reached = arith::MinSIOp::create(b, loc, end, constant(mainSteps));
    Value blocks = arith::DivSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, reached, constant(grain - 1)),
        constant(grain));
    start = arith::MaxSIOp::create(
        b, loc, start, arith::MulIOp::create(b, loc, blocks, constant(grain)));
  }
  rows = blockRows;
  input = blockInput;
  lengths = blockLengths;
  for (int64_t t = mainSteps; t < steps; ++t)
    state = step(b, b.getIndexAttr(t), input, b.getIndexAttr(t), state);
  return state;
}
