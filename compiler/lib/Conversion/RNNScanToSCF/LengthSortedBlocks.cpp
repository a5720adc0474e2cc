//===- LengthSortedBlocks.cpp - Rows in blocks sorted by length -----------===//

#include "LengthSortedBlocks.h"
#include "ScanLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rnn;

int64_t mlir::rnn::lengthSortedBlockRows(ScanOp op, int64_t limit) {
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
  // hardly matters); larger batches want at least `limit` rows per block,
  // so a batch with no such divisor (a prime) runs as one block.
  int64_t least = batch <= 8 ? 2 : limit;
  for (int64_t blockRows = std::min(limit, batch / 2); blockRows >= least;
       --blockRows)
    if (batch % blockRows == 0)
      return blockRows;
  for (int64_t blockRows = limit + 1; blockRows <= batch / 2; ++blockRows)
    if (batch % blockRows == 0)
      return blockRows;
  return 0;
}

namespace {

/// The rows ordered by decreasing length (ties by index), as i32.
Value sortRowsByLength(OpBuilder &b, Location loc, Value rowLengths) {
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

/// Moves rows between a batch-sized tensor and a block of `blockRows`:
/// row i of the block is row order[first + i] of the batch. Gathers into
/// `into` (block-sized) when `toBlock`, else scatters into `into`
/// (batch-sized).
Value moveRows(OpBuilder &b, Location loc, Value from, Value into, Value order,
               Value first, int64_t blockRows, int64_t axis, bool toBlock) {
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

/// The first `count` rows (along `axis`) of `full`.
Value leadingRows(OpBuilder &b, Location loc, Value full, int64_t axis,
                  int64_t count) {
  AxisSlice slice = axisSlice(b, cast<RankedTensorType>(full.getType()), axis,
                              b.getIndexAttr(0), count);
  return tensor::ExtractSliceOp::create(b, loc, full, slice.offsets,
                                        slice.sizes, slice.strides);
}

/// `full` with `part` written over its first rows.
Value setLeadingRows(OpBuilder &b, Location loc, Value part, Value full) {
  auto type = cast<RankedTensorType>(part.getType());
  AxisSlice slice =
      axisSlice(b, type, /*axis=*/0, b.getIndexAttr(0), type.getDimSize(0));
  return tensor::InsertSliceOp::create(b, loc, part, full, slice.offsets,
                                       slice.sizes, slice.strides);
}

/// The iterations or blocks of steps in which a block of `rows` sorted rows
/// runs (see ScanLowering::timeBlockSteps).
int64_t stepGrain(ScanLowering &scan, int64_t rows) {
  int64_t block = scan.timeBlockSteps(rows, /*skipping=*/true);
  return block == scan.loopSteps() ? scan.unrollFactor() : block;
}

/// The bytes of the recurrent weights each step of `scan` sweeps.
int64_t recurrentWeightBytes(ScanOp scan) {
  CellOpInterface cell = scan.getCell();
  return cell ? kernelStorageBytes(
                    cast<ShapedType>(cell.getHiddenKernel().getType()))
              : 0;
}

/// Whether a block of `rows` sorted rows out of `batch` should shrink as
/// its rows end: lengths spread over the sequence put a block's rows up
/// to T x rows / batch steps apart, and phases pay when that spans at
/// least two of the steps' blocks (B=16, T=256: 4 % faster; at B=128
/// the rows of a block end within one block of steps, and the phases
/// only cost, 1.6 %), and when a sweep of the recurrent weights stays in
/// the core's cache: a phase of one to three rows sweeps them for little
/// arithmetic (LSTM H=256, 1 MiB of weights, B=16 on a 512 KiB L2: 31 %
/// slower with the phases).
bool shrinkingRowsPay(ScanLowering &scan, int64_t rows, int64_t batch) {
  int64_t cache = scan.getOptions().rowPhaseCacheBytes;
  if (cache > 0 && recurrentWeightBytes(scan.getOp()) > cache)
    return false;
  return scan.getOp().getNumSteps() * rows / batch >= 2 * stepGrain(scan, rows);
}

/// Runs `block`, rows sorted by decreasing length, in phases of fewer and
/// fewer rows: rows [0, r) run until row r - 1, the shortest of them, ends
/// (rounded up to whole iterations or blocks of steps), and the next phase
/// goes on from there with r - 1 rows, so a row that has ended stops
/// costing work. All phases use the block size of the whole block; the
/// remainder steps (beyond the unrolled loop) run once, on all rows.
SmallVector<Value> runShrinkingRows(ScanLowering &scan, OpBuilder &b,
                                    const StepRows &block,
                                    SmallVector<Value> state) {
  ScanOp op = scan.getOp();
  Location loc = scan.getLoc();
  int64_t steps = op.getNumSteps();
  int64_t mainSteps = scan.loopSteps();
  int64_t stepBlock = scan.timeBlockSteps(block.count, /*skipping=*/true);
  int64_t grain = stepGrain(scan, block.count);
  int64_t batchAxis = op.getTimeMajor() ? 1 : 0;
  size_t numCarries = op.getCarryArgs().size();
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value start = constant(0);
  for (int64_t r = block.count; r >= 1; --r) {
    Value end = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        tensor::ExtractOp::create(b, loc, block.lengths,
                                  ValueRange{constant(r - 1)}));
    Value phaseInput = leadingRows(b, loc, block.input, batchAxis, r);
    StepRows phaseRows{phaseInput, leadingRows(b, loc, block.lengths, 0, r), r,
                       /*inRowLoop=*/true};
    SmallVector<Value> phase;
    for (auto [i, value] : llvm::enumerate(state))
      phase.push_back(
          leadingRows(b, loc, value, i == numCarries ? batchAxis : 0, r));
    phase = scan.runSteps(b, phaseRows, phase, end,
                          {start, stepBlock, /*remainder=*/false});
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
  // (Each of them projects its own input: the block is a loop's.)
  for (int64_t t = mainSteps; t < steps; ++t)
    state = scan.step(b, block, b.getIndexAttr(t), StepSequence{block.input},
                      b.getIndexAttr(t), state);
  return state;
}

} // namespace

ScanLowering::Finished mlir::rnn::runLengthSortedBlocks(ScanLowering &scan,
                                                        OpBuilder &b,
                                                        const StepRows &batch,
                                                        int64_t blockRows) {
  ScanOp op = scan.getOp();
  Location loc = scan.getLoc();
  int64_t batchAxis = op.getTimeMajor() ? 1 : 0;
  Value order = sortRowsByLength(b, loc, batch.lengths);

  SmallVector<Value> init(op.getInit());
  RankedTensorType outputsType = op.getOutputs().getType();
  // Every row belongs to one block, so the batch-sized results start
  // empty and are written whole.
  SmallVector<Value> results;
  if (scan.capturesCarry())
    for (BlockArgument arg : op.getCarryArgs())
      results.push_back(tensor::EmptyOp::create(
          b, loc, cast<RankedTensorType>(arg.getType()).getShape(),
          cast<RankedTensorType>(arg.getType()).getElementType()));
  size_t numCarries = results.size();
  results.push_back(tensor::EmptyOp::create(b, loc, outputsType.getShape(),
                                            outputsType.getElementType()));

  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value size = arith::ConstantIndexOp::create(b, loc, batch.count);
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
        Value blockInput = gather(batch.input, batchAxis);
        StepRows block{blockInput, gather(batch.lengths, 0), blockRows,
                       /*inRowLoop=*/true};
        SmallVector<Value> blockInit;
        for (Value carry : init)
          blockInit.push_back(gather(carry, 0));
        SmallVector<Value> state =
            scan.initialState(nb, blockRows, blockInit,
                              withRows(outputsType, batchAxis, blockRows),
                              /*zeroOutputs=*/true);
        if (shrinkingRowsPay(scan, blockRows, batch.count)) {
          state = runShrinkingRows(scan, nb, block, state);
        } else {
          // Sorted by decreasing length: the first row is the longest.
          Value longest = arith::IndexCastOp::create(
              nb, loc, nb.getIndexType(),
              tensor::ExtractOp::create(nb, loc, block.lengths,
                                        ValueRange{zero}));
          state = scan.runSteps(nb, block, state, longest);
        }

        ScanLowering::Finished finished = scan.finish(state);
        SmallVector<Value> next;
        for (size_t i = 0; i < numCarries; ++i)
          next.push_back(moveRows(nb, loc, finished.finals[i], batchArgs[i],
                                  order, first, blockRows, 0,
                                  /*toBlock=*/false));
        next.push_back(moveRows(nb, loc, finished.outputs,
                                batchArgs[numCarries], order, first, blockRows,
                                batchAxis, /*toBlock=*/false));
        scf::YieldOp::create(nb, loc, next);
      });

  ValueRange values = loop.getResults();
  return {values.back(), SmallVector<Value>(values.drop_back())};
}
