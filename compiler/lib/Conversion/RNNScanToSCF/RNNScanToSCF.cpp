//===- RNNScanToSCF.cpp - rnn.scan to an unrolled scf.for -----------------===//
//
// A scan becomes a loop over time on tensors. Each loop iteration runs
// `unroll` copies of the scan body; the `T mod unroll` steps left over run
// after the loop, fully unrolled, so every step's time index that the body
// sees is either the loop's or a constant. Long sequences loop over blocks
// of steps; zero-padded outputs with lengths run rows in length-sorted
// blocks (LengthSortedBlocks.h) that skip their padded steps.
//
//===----------------------------------------------------------------------===//

#include "LengthSortedBlocks.h"
#include "rnn/Conversion/Passes.h"
#include "rnn/IR/RNNOps.h"
#include "rnn/IR/RNNShapes.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_CONVERTRNNSCANTOSCFPASS
#include "rnn/Conversion/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// A tensor of `type` filled with zeros.
Value zeros(OpBuilder &b, Location loc, RankedTensorType type) {
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// Per-row choice between two tensors of one type, driven by each row's
/// sequence length: `result[b, ...] = pred(L_b) ? onTrue[b, ...] :
/// onFalse[b, ...]`, with `pred` built by `makePred(builder, loc, L_b)`.
Value selectRows(OpBuilder &b, Location loc, Value lengths, Value onTrue,
                 Value onFalse,
                 function_ref<Value(OpBuilder &, Location, Value)> makePred) {
  auto type = cast<RankedTensorType>(onTrue.getType());
  int64_t rank = type.getRank();
  int64_t numBatchDims = cast<RankedTensorType>(lengths.getType()).getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  // Lengths index the leading (batch) dims of the carry.
  AffineMap rows = AffineMap::get(
      rank, 0, identity.getResults().take_front(numBatchDims), ctx);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{lengths, onTrue}, ValueRange{onFalse},
      ArrayRef<AffineMap>{rows, identity, identity}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value pred = makePred(nb, nloc, args[0]);
        Value picked =
            arith::SelectOp::create(nb, nloc, pred, args[1], args[2]);
        linalg::YieldOp::create(nb, nloc, picked);
      });
  return generic.getResult(0);
}

/// Where `ScanLowering::runSteps` starts (a multiple of the iteration or
/// block size; null: step 0), its block size (0: `timeBlockSteps`'s), and
/// whether it runs the remainder steps beyond the unrolled loop.
struct StepRange {
  Value first;
  int64_t block = 0;
  bool remainder = true;
};

struct ScanLowering {
  ScanOp op;
  PatternRewriter &rewriter;
  Location loc;
  int64_t timeAxis;
  Value input;   ///< the input in processing order (flipped when reversed)
  Value lengths; ///< null without seq_lengths
  bool captureCarry;
  int64_t timeBlockBytes; ///< see ConvertRNNScanToSCFPass's options
  int64_t timeBlockRows;
  /// The type of carry `i` (batch dims first).
  RankedTensorType carryType(unsigned i) {
    return cast<RankedTensorType>(op.getCarryArgs()[i].getType());
  }

  /// Reverse without lengths: every row is reversed whole, so step t reads
  /// the input at T - 1 - t instead of a flipped copy of the input (and
  /// keep_order stores there).
  bool reversedIndex = false;

  /// Rows the steps run on: the batch, or one block of rows sorted by length
  /// (then the body's batch-sized types are narrowed to the block).
  int64_t rows = 0;

  /// Offsets, sizes and strides of the slice at time `t` of a sequence.
  struct TimeSlice {
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  TimeSlice timeSlice(OpBuilder &b, Value sequence, OpFoldResult t) {
    auto type = cast<RankedTensorType>(sequence.getType());
    TimeSlice slice;
    slice.offsets.assign(type.getRank(), b.getIndexAttr(0));
    slice.strides.assign(type.getRank(), b.getIndexAttr(1));
    for (int64_t dim : type.getShape())
      slice.sizes.push_back(b.getIndexAttr(dim));
    slice.offsets[timeAxis] = t;
    slice.sizes[timeAxis] = b.getIndexAttr(1);
    return slice;
  }

  /// Step `t` of `sequence` (the input, or a block of its steps), without
  /// its time axis.
  Value stepInput(OpBuilder &b, Value sequence, OpFoldResult t) {
    auto type = cast<RankedTensorType>(sequence.getType());
    if (reversedIndex)
      t = mirror(b, t, type.getDimSize(timeAxis));
    TimeSlice slice = timeSlice(b, sequence, t);
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + timeAxis);
    auto stepType = RankedTensorType::get(shape, type.getElementType());
    return tensor::ExtractSliceOp::create(
        b, loc, stepType, sequence, slice.offsets, slice.sizes, slice.strides);
  }

  /// `size - 1 - t`: step t counted from the end.
  OpFoldResult mirror(OpBuilder &b, OpFoldResult t, int64_t size) {
    if (std::optional<int64_t> constant = getConstantIntValue(t))
      return b.getIndexAttr(size - 1 - *constant);
    Value last = arith::ConstantIndexOp::create(b, loc, size - 1);
    return arith::SubIOp::create(b, loc, last, cast<Value>(t)).getResult();
  }

  /// The input of steps [first, first + count) (in processing order).
  Value inputBlock(OpBuilder &b, OpFoldResult first, int64_t count) {
    if (reversedIndex) // steps counted from the end: [T - first - count, T -
                       // first)
      first = mirror(b, first, op.getNumSteps() - count + 1);
    TimeSlice slice = timeSlice(b, input, first);
    slice.sizes[timeAxis] = b.getIndexAttr(count);
    return tensor::ExtractSliceOp::create(b, loc, input, slice.offsets,
                                          slice.sizes, slice.strides);
  }

  /// `outputs` with the step output `y` stored at time `t` (reversed back
  /// for keep_order when the input is read from its end).
  Value storeOutput(OpBuilder &b, OpFoldResult t, Value y, Value outputs) {
    if (reversedIndex && op.getKeepOrder())
      t = mirror(b, t, op.getNumSteps());
    TimeSlice slice = timeSlice(b, outputs, t);
    auto &[offsets, sizes, strides] = slice;
    // Copy into the destination slice (a linalg.copy, which becomes loops)
    // so the insertion itself bufferizes in place, without a strided
    // memref.copy that would need a runtime helper.
    Value slot = tensor::ExtractSliceOp::create(
        b, loc, cast<RankedTensorType>(y.getType()), outputs, offsets, sizes,
        strides);
    Value copied =
        linalg::CopyOp::create(b, loc, ValueRange{y}, ValueRange{slot})
            .getResult(0);
    return tensor::InsertSliceOp::create(b, loc, copied, outputs, offsets,
                                         sizes, strides);
  }

  /// The time index as an i32 value, to compare with lengths.
  Value timeAsI32(OpBuilder &b, OpFoldResult t) {
    if (auto value = dyn_cast<Value>(t))
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), value);
    int64_t constant = cast<IntegerAttr>(cast<Attribute>(t)).getInt();
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(constant));
  }

  /// One time step: state = (carry..., outputs, selected carry...). Its
  /// input is step `local` of `sequence`.
  SmallVector<Value> step(OpBuilder &b, OpFoldResult t, Value sequence,
                          OpFoldResult local, ValueRange state) {
    size_t numCarries = op.getCarryArgs().size();
    ValueRange carries = state.take_front(numCarries);
    Value outputs = state[numCarries];
    ValueRange selected = state.drop_front(numCarries + 1);

    IRMapping mapping;
    mapping.map(op.getCarryArgs(), carries);
    mapping.map(op.getStepInputArg(), stepInput(b, sequence, local));
    Block &body = op.getBody().front();
    int64_t batch = carryType(0).getDimSize(0);
    for (Operation &nested : body.without_terminator()) {
      Operation *clone = b.clone(nested, mapping);
      if (rows == batch)
        continue;
      // A block of rows: the body's ops are cells, which work row by row.
      for (OpResult result : clone->getResults()) {
        auto type = cast<RankedTensorType>(result.getType());
        SmallVector<int64_t> shape(type.getShape());
        shape.front() = rows;
        result.setType(RankedTensorType::get(shape, type.getElementType()));
      }
    }
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> next = llvm::map_to_vector(
        yield.getCarry(), [&](Value v) { return mapping.lookupOrDefault(v); });
    Value y = mapping.lookupOrDefault(yield.getOutput());
    // The new carry goes into the old carry's storage, so a loop's carry
    // stays in one buffer (bufferization needs the yielded carry to be
    // equivalent to the loop's iteration argument).
    for (auto [i, carry] : llvm::enumerate(carries)) {
      Value copied =
          linalg::CopyOp::create(b, loc, ValueRange{next[i]}, ValueRange{carry})
              .getResult(0);
      if (y == next[i])
        y = copied;
      next[i] = copied;
    }

    Value time = lengths ? timeAsI32(b, t) : Value();
    if (op.getZeroPaddedOutputs()) {
      // Padded steps (t >= L) output zeros.
      auto yType = cast<RankedTensorType>(y.getType());
      y = selectRows(b, loc, lengths, y, zeros(b, loc, yType),
                     [&](OpBuilder &nb, Location nloc, Value length) {
                       return arith::CmpIOp::create(
                           nb, nloc, arith::CmpIPredicate::slt, time, length);
                     });
    }
    SmallVector<Value> newCarries(next);
    next.push_back(storeOutput(b, t, y, outputs));
    // Each row keeps the carry after its last valid step (t == L - 1).
    for (auto [carry, kept] : llvm::zip(newCarries, selected)) {
      Value chosen = selectRows(
          b, loc, lengths, carry, kept,
          [&](OpBuilder &nb, Location nloc, Value length) {
            Value one =
                arith::ConstantOp::create(nb, nloc, nb.getI32IntegerAttr(1));
            Value last = arith::SubIOp::create(nb, nloc, length, one);
            return arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq,
                                         time, last);
          });
      next.push_back(chosen);
    }
    return next;
  }

  /// Steps per block of the time loop: a multiple of `unroll` dividing the
  /// loop's steps whose outputs take at least `timeBlockBytes` and that
  /// hold at least `timeBlockRows` rows, when the outputs of all steps take
  /// at least eight times `timeBlockBytes`; otherwise the whole loop.
  /// When padded steps are skipped (`skipping`), blocks are also the
  /// granularity of the skipping: as short as keeps 32 rows (rows x steps)
  /// per block for the hoisted projection (measured: 16-32 best, 64 5 %
  /// slower at B = 16, 256 15 %).
  int64_t timeBlockSteps(int64_t steps, int64_t unroll, bool skipping) {
    int64_t mainSteps = steps - steps % unroll;
    RankedTensorType outputs = op.getOutputs().getType();
    int64_t batch = carryType(0).getDimSize(0);
    int64_t stepBytes = outputs.getNumElements() / steps / batch * rows *
                        outputs.getElementTypeBitWidth() / 8;
    auto smallest = [&](function_ref<bool(int64_t)> enough) {
      for (int64_t block = unroll; block < mainSteps; block += unroll)
        if (mainSteps % block == 0 && enough(block))
          return block;
      return mainSteps;
    };
    if (skipping)
      return smallest([&](int64_t block) { return block * rows >= 32; });
    if (timeBlockBytes <= 0 || stepBytes * steps < 8 * timeBlockBytes)
      return mainSteps;
    return smallest([&](int64_t block) {
      return block * stepBytes >= timeBlockBytes &&
             block * rows >= timeBlockRows;
    });
  }

  /// Runs the scan's steps on `state` = (carry..., outputs, selected
  /// carry...): a loop over the steps that `unroll` divides, in blocks of
  /// steps for long sequences, then the remaining steps. With
  /// `activeSteps`, the loop stops at the first whole block (or unrolled
  /// iteration) at or after that step: later steps are padding.
  SmallVector<Value> runSteps(OpBuilder &b, SmallVector<Value> state,
                              Value activeSteps, StepRange range = {}) {
    int64_t steps = op.getNumSteps();
    int64_t unroll = std::min<int64_t>(op.getUnroll(), steps);
    int64_t block = range.block
                        ? range.block
                        : timeBlockSteps(steps, unroll, activeSteps != nullptr);
    // A loop of one iteration would only hide constant time indices.
    int64_t mainSteps = steps - steps % unroll;
    if (mainSteps == unroll && !activeSteps)
      mainSteps = 0;
    if (mainSteps > 0) {
      // The unrolled steps from `first` on, with their inputs taken from
      // `sequence` from step `local` on.
      auto unrolled = [&](OpBuilder &nb, Value first, Value sequence,
                          Value local, ValueRange iterArgs) {
        SmallVector<Value> current(iterArgs);
        for (int64_t k = 0; k < unroll; ++k) {
          OpFoldResult t = first, l = local;
          if (k > 0) {
            Value offset = arith::ConstantIndexOp::create(nb, loc, k);
            t = arith::AddIOp::create(nb, loc, first, offset).getResult();
            l = local == first
                    ? t
                    : arith::AddIOp::create(nb, loc, local, offset).getResult();
          }
          current = step(nb, t, sequence, l, current);
        }
        return current;
      };
      Value zero =
          range.first ? range.first : arith::ConstantIndexOp::create(b, loc, 0);
      Value ub = arith::ConstantIndexOp::create(b, loc, mainSteps);
      Value stride = arith::ConstantIndexOp::create(b, loc, unroll);
      // Up to the last active step: an iteration (or block) that starts
      // before it runs whole, and ends within the loop since its size
      // divides the loop's steps.
      if (activeSteps)
        ub = arith::MinUIOp::create(b, loc, activeSteps, ub);
      scf::ForOp loop;
      if (block == mainSteps) {
        loop = scf::ForOp::create(
            b, loc, zero, ub, stride, state,
            [&](OpBuilder &nb, Location, Value iv, ValueRange iterArgs) {
              scf::YieldOp::create(nb, loc,
                                   unrolled(nb, iv, input, iv, iterArgs));
            });
      } else {
        // Blocks of steps, each with its own slice of the input, so that
        // work hoisted out of the step loop (the input projection) covers
        // one block and stays in cache until its steps read it.
        Value blockSize = arith::ConstantIndexOp::create(b, loc, block);
        loop = scf::ForOp::create(
            b, loc, zero, ub, blockSize, state,
            [&](OpBuilder &nb, Location, Value first, ValueRange blockArgs) {
              Value sequence = inputBlock(nb, first, block);
              Value inner = arith::ConstantIndexOp::create(nb, loc, block);
              Value begin = arith::ConstantIndexOp::create(nb, loc, 0);
              auto stepLoop = scf::ForOp::create(
                  nb, loc, begin, inner, stride, blockArgs,
                  [&](OpBuilder &sb, Location, Value iv, ValueRange iterArgs) {
                    Value t = arith::AddIOp::create(sb, loc, first, iv);
                    scf::YieldOp::create(
                        sb, loc, unrolled(sb, t, sequence, iv, iterArgs));
                  });
              scf::YieldOp::create(nb, loc, stepLoop.getResults());
            });
      }
      state.assign(loop.getResults().begin(), loop.getResults().end());
    }
    if (range.remainder)
      for (int64_t t = mainSteps; t < steps; ++t)
        state = step(b, b.getIndexAttr(t), input, b.getIndexAttr(t), state);
    return state;
  }

  /// The iterations or blocks of steps in which a block of `rows` sorted
  /// rows runs (see timeBlockSteps).
  int64_t stepGrain() {
    int64_t steps = op.getNumSteps();
    int64_t unroll = std::min<int64_t>(op.getUnroll(), steps);
    int64_t mainSteps = steps - steps % unroll;
    int64_t block = timeBlockSteps(steps, unroll, /*skipping=*/true);
    return block == mainSteps ? unroll : block;
  }

  /// Whether a block of `rows` sorted rows out of `batch` should shrink as
  /// its rows end: lengths spread over the sequence put a block's rows up
  /// to T x rows / batch steps apart, and phases pay when that spans at
  /// least two of the steps' blocks (B=16, T=256: 4 % faster; at B=128
  /// the rows of a block end within one block of steps, and the phases
  /// only cost, 1.6 %).
  bool shrinkingRowsPay(int64_t batch) {
    return op.getNumSteps() * rows / batch >= 2 * stepGrain();
  }

  /// Runs a block of rows sorted by decreasing length in phases of fewer
  /// and fewer rows: rows [0, r) run until row r - 1, the shortest of them,
  /// ends (rounded up to whole iterations or blocks of steps), and the next
  /// phase goes on from there with r - 1 rows, so a row that has ended
  /// stops costing work. All phases use the block size of the whole block;
  /// the remainder steps (beyond the unrolled loop) run once, on all rows.
  SmallVector<Value> runShrinkingRows(OpBuilder &b, SmallVector<Value> state) {
    int64_t steps = op.getNumSteps();
    int64_t unroll = std::min<int64_t>(op.getUnroll(), steps);
    int64_t mainSteps = steps - steps % unroll;
    int64_t block = timeBlockSteps(steps, unroll, /*skipping=*/true);
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
          b, loc, start,
          arith::MulIOp::create(b, loc, blocks, constant(grain)));
    }
    rows = blockRows;
    input = blockInput;
    lengths = blockLengths;
    for (int64_t t = mainSteps; t < steps; ++t)
      state = step(b, b.getIndexAttr(t), input, b.getIndexAttr(t), state);
    return state;
  }

  /// The scan's initial state for `rows` rows: carries (zeros or `init`),
  /// outputs (zeros when padded outputs are zeros and steps may be
  /// skipped), and the selected carries when they are captured.
  SmallVector<Value> initialState(OpBuilder &b, ValueRange init,
                                  RankedTensorType outputsType,
                                  bool zeroOutputs) {
    SmallVector<Value> state;
    for (auto [i, arg] : llvm::enumerate(op.getCarryArgs())) {
      auto type = cast<RankedTensorType>(arg.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.front() = rows;
      auto rowsType = RankedTensorType::get(shape, type.getElementType());
      state.push_back(init.empty() ? zeros(b, loc, rowsType) : init[i]);
    }
    size_t numCarries = state.size();
    state.push_back(
        zeroOutputs ? zeros(b, loc, outputsType)
                    : tensor::EmptyOp::create(b, loc, outputsType.getShape(),
                                              outputsType.getElementType())
                          .getResult());
    if (captureCarry) // a row of length 0 keeps its initial carry
      state.append(state.begin(), state.begin() + numCarries);
    return state;
  }

  /// What a scan returns: its outputs and its final carries (the carries
  /// captured at each row's last valid step when lengths are given).
  struct Finished {
    Value outputs;
    SmallVector<Value> finals;
  };

  /// The results in `state` = (carry..., outputs, selected carry...).
  Finished finish(ValueRange state) {
    size_t numCarries = op.getCarryArgs().size();
    ValueRange finals = captureCarry ? state.drop_front(numCarries + 1)
                                     : state.take_front(numCarries);
    return {state[numCarries], SmallVector<Value>(finals)};
  }

  LogicalResult lower() {
    int64_t numBatchDims = op.getNumBatchDims();
    bool timeMajor = op.getTimeMajor();
    rows = carryType(0).getDimSize(0);

    input = op.getInput();
    reversedIndex = op.getReverse() && !lengths;
    if (op.getReverse() && lengths)
      input = FlipSequencesOp::create(rewriter, loc, input.getType(), input,
                                      lengths, numBatchDims, timeMajor);

    Finished finished;
    if (int64_t blockRows = lengthSortedBlockRows(op))
      finished = runLengthSortedBlocks(blockRows);
    else
      finished = finish(runSteps(rewriter,
                                 initialState(rewriter, op.getInit(),
                                              op.getOutputs().getType(), false),
                                 Value()));

    Value outputs = finished.outputs;
    if (op.getReverse() && op.getKeepOrder() && !reversedIndex)
      outputs =
          FlipSequencesOp::create(rewriter, loc, outputs.getType(), outputs,
                                  lengths, numBatchDims, timeMajor);
    SmallVector<Value> results{outputs};
    if (!op.getFinalCarry().empty())
      llvm::append_range(results, finished.finals);
    rewriter.replaceOp(op, results);
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Zero-padded outputs: rows in blocks sorted by length
  //===--------------------------------------------------------------------===//

  /// Zero-padded outputs with lengths: the rows run in blocks of rows sorted
  /// by decreasing length, each block only up to its longest row, so the
  /// work follows the sum of the lengths rather than B x T. Every block
  /// starts from zero outputs, which its padded steps keep. Returns the
  /// whole batch's outputs and (when captured) final carries.
  Finished runLengthSortedBlocks(int64_t blockRows) {
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
            next.push_back(moveRows(nb, loc, block.finals[i], batchArgs[i],
                                    order, first, blockRows, 0,
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
};

struct LowerScan : OpRewritePattern<ScanOp> {
  LowerScan(MLIRContext *ctx, int64_t timeBlockBytes, int64_t timeBlockRows)
      : OpRewritePattern(ctx), timeBlockBytes(timeBlockBytes),
        timeBlockRows(timeBlockRows) {}
  int64_t timeBlockBytes, timeBlockRows;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScanLowering lowering{op,
                          rewriter,
                          op.getLoc(),
                          op.getTimeAxis(),
                          Value(),
                          op.getSeqLengths(),
                          op.getSeqLengths() && !op.getFinalCarry().empty(),
                          timeBlockBytes,
                          timeBlockRows};
    return lowering.lower();
  }
};

struct ConvertRNNScanToSCFPass
    : rnn::impl::ConvertRNNScanToSCFPassBase<ConvertRNNScanToSCFPass> {
  using ConvertRNNScanToSCFPassBase::ConvertRNNScanToSCFPassBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerScan>(&getContext(), timeBlockBytes, timeBlockRows);
    // Scans nest only through other scans' bodies; the driver reaches both.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
    WalkResult left = getOperation()->walk([](BidirectionalOp bidi) {
      bidi.emitOpError("must be expanded (--rnn-expand-bidirectional) before "
                       "scans are lowered");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
