//===- ScanLowering.cpp - rnn.scan to loops over time ---------------------===//
//
// A scan becomes a loop over time on tensors. Each loop iteration runs
// `unroll` copies of the scan body; the `T mod unroll` steps left over run
// after the loop, fully unrolled, so every step's time index that the body
// sees is either the loop's or a constant. Long sequences loop over blocks
// of steps. Which rows run is the caller's StepRows; the drivers that choose
// them are clients of this file, not the other way round.
//
//===----------------------------------------------------------------------===//

#include "ScanLowering.h"
#include "rnn/IR/RNNDialect.h"
#include "rnn/IR/RNNShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"

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
/// With `alsoInto`, the choice is written there too (one more init), and
/// that result is returned.
Value selectRows(OpBuilder &b, Location loc, Value lengths, Value onTrue,
                 Value onFalse,
                 function_ref<Value(OpBuilder &, Location, Value)> makePred,
                 Value alsoInto = {}) {
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
  SmallVector<Value> inits{onFalse};
  SmallVector<AffineMap> maps{rows, identity, identity};
  if (alsoInto) {
    inits.push_back(alsoInto);
    maps.push_back(identity);
  }
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(inits), ValueRange{lengths, onTrue}, inits, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value pred = makePred(nb, nloc, args[0]);
        Value picked =
            arith::SelectOp::create(nb, nloc, pred, args[1], args[2]);
        SmallVector<Value> yielded(inits.size(), picked);
        linalg::YieldOp::create(nb, nloc, yielded);
      });
  return generic.getResults().back();
}

/// Whether `next` is the cell's new carry `i` computed over `carry`: the
/// cell lowering (convert-rnn-to-linalg) writes each new carry into the
/// storage of the old one.
bool computedOver(Value next, unsigned i, Value carry) {
  auto cell = next.getDefiningOp<CellOpInterface>();
  return cell && cast<OpResult>(next).getResultNumber() == i &&
         cell.getCarries()[i] == carry;
}

/// `kept` with row `r` replaced by `carry`'s where `time == L_r - 1`: a
/// loop over rows whose body copies one row only at its last valid step
/// (last-row-copies). As selectRows' element-wise select, GCC spent a
/// load, a compare, a select and a store per element and step (kws on the
/// Cortex-M4, C: 8 instructions per carry element, 0.13 per MAC). LLVM
/// unswitches the select itself (the copies there gave 160 more bytes of
/// code and no fewer instructions), and vector code selects whole vectors.
Value keepRowsAtLastStep(OpBuilder &b, Location loc, Value lengths, Value time,
                         Value carry, Value kept) {
  auto type = cast<RankedTensorType>(carry.getType());
  int64_t rank = type.getRank();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value rows = arith::ConstantIndexOp::create(b, loc, type.getDimSize(0));
  auto loop = scf::ForOp::create(
      b, loc, zero, rows, one, ValueRange{kept},
      [&](OpBuilder &lb, Location lloc, Value r, ValueRange acc) {
        Value length = tensor::ExtractOp::create(lb, lloc, lengths, r);
        Value last = arith::SubIOp::create(
            lb, lloc, length,
            arith::ConstantOp::create(lb, lloc, lb.getI32IntegerAttr(1)));
        Value isLast = arith::CmpIOp::create(
            lb, lloc, arith::CmpIPredicate::eq, time, last);
        // The result types come from the yields.
        auto choice = scf::IfOp::create(
            lb, lloc, isLast,
            [&](OpBuilder &tb, Location tloc) {
              SmallVector<OpFoldResult> offsets(rank, tb.getIndexAttr(0));
              offsets.front() = r;
              SmallVector<OpFoldResult> sizes;
              sizes.push_back(tb.getIndexAttr(1));
              for (int64_t size : type.getShape().drop_front())
                sizes.push_back(tb.getIndexAttr(size));
              SmallVector<OpFoldResult> strides(rank, tb.getIndexAttr(1));
              SmallVector<int64_t> rowShape(type.getShape());
              rowShape.front() = 1;
              auto rowType =
                  RankedTensorType::get(rowShape, type.getElementType());
              Value row = tensor::ExtractSliceOp::create(
                  tb, tloc, rowType, carry, offsets, sizes, strides);
              // Copied into the destination row (loops), so the insertion
              // bufferizes in place, as storeOutput does.
              Value slot = tensor::ExtractSliceOp::create(
                  tb, tloc, rowType, acc[0], offsets, sizes, strides);
              Value copied = linalg::CopyOp::create(tb, tloc, ValueRange{row},
                                                    ValueRange{slot})
                                 .getResult(0);
              Value updated = tensor::InsertSliceOp::create(
                  tb, tloc, copied, acc[0], offsets, sizes, strides);
              scf::YieldOp::create(tb, tloc, updated);
            },
            [&](OpBuilder &eb, Location eloc) {
              scf::YieldOp::create(eb, eloc, acc[0]);
            });
        scf::YieldOp::create(lb, lloc, choice.getResult(0));
      });
  return loop.getResult(0);
}

} // namespace

AxisSlice mlir::rnn::axisSlice(OpBuilder &b, RankedTensorType type,
                               int64_t axis, OpFoldResult offset,
                               int64_t count) {
  AxisSlice slice;
  slice.offsets.assign(type.getRank(), b.getIndexAttr(0));
  slice.strides.assign(type.getRank(), b.getIndexAttr(1));
  for (int64_t dim : type.getShape())
    slice.sizes.push_back(b.getIndexAttr(dim));
  slice.offsets[axis] = offset;
  slice.sizes[axis] = b.getIndexAttr(count);
  return slice;
}

RankedTensorType mlir::rnn::withRows(Type type, int64_t axis, int64_t rows) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(ranked.getShape());
  shape[axis] = rows;
  return RankedTensorType::get(shape, ranked.getElementType());
}

ScanLowering::ScanLowering(ScanOp op, const ScanLoweringOptions &options)
    : op(op), projection(op.getInput().getDefiningOp<ProjectOp>()),
      overlapRows(projection && !options.ramLean
                      ? int64_t(op.getOverlapRows().value_or(0))
                      : 0),
      loc(op.getLoc()), timeAxis(op.getTimeAxis()), options(options),
      captureCarry(op.getSeqLengths() && !op.getFinalCarry().empty()),
      reversedIndex(op.getReverse() && !op.getSeqLengths()),
      reversedRows(op.getReverse() && op.getSeqLengths() && options.ramLean) {}

StepSequence ScanLowering::forSteps(OpBuilder &b, Value sequence) {
  if (!projection || options.ramLean)
    return {sequence};
  return {project(b, sequence), /*projected=*/true};
}

Value ScanLowering::project(OpBuilder &b, Value rows) {
  auto type = cast<RankedTensorType>(rows.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = cast<RankedTensorType>(projection.getResult().getType())
                     .getShape()
                     .back();
  return ProjectOp::create(b, projection.getLoc(),
                           RankedTensorType::get(shape, type.getElementType()),
                           rows, projection.getKernel(),
                           projection.getDynamicInt8Attr(),
                           projection.getComputeTypeAttr());
}

StepRows ScanLowering::wholeBatch(OpBuilder &b) {
  // The input before its projection: flipped (a row-wise op commutes with
  // the flip) and sliced by the loops, which project what they read.
  Value input = projection ? projection.getInput() : op.getInput();
  Value lengths = op.getSeqLengths();
  if (op.getReverse() && lengths && !options.ramLean)
    input = FlipSequencesOp::create(b, loc, input.getType(), input, lengths,
                                    op.getNumBatchDims(), op.getTimeMajor());
  return {input, lengths, carryType(0).getDimSize(0)};
}

SmallVector<Value> ScanLowering::replacements(OpBuilder &b,
                                              const Finished &finished) {
  Value outputs = finished.outputs;
  if (op.getReverse() && op.getKeepOrder() && !reversedIndex)
    outputs = FlipSequencesOp::create(b, loc, outputs.getType(), outputs,
                                      op.getSeqLengths(), op.getNumBatchDims(),
                                      op.getTimeMajor());
  SmallVector<Value> results{outputs};
  if (!op.getFinalCarry().empty())
    llvm::append_range(results, finished.finals);
  return results;
}

RankedTensorType ScanLowering::carryType(unsigned i) {
  return cast<RankedTensorType>(op.getCarryArgs()[i].getType());
}

int64_t ScanLowering::unrollFactor() {
  return std::min<int64_t>(
      {int64_t(op.getUnroll()), int64_t(op.getNumSteps()), kMaxUnroll});
}

int64_t ScanLowering::loopSteps() {
  int64_t steps = op.getNumSteps();
  return steps - steps % unrollFactor();
}

AxisSlice ScanLowering::timeSlice(OpBuilder &b, Value sequence,
                                  OpFoldResult t) {
  return axisSlice(b, cast<RankedTensorType>(sequence.getType()), timeAxis, t);
}

Value ScanLowering::stepInput(OpBuilder &b, const StepRows &rows,
                              Value sequence, OpFoldResult t) {
  if (reversedRows) {
    assert(sequence == rows.input && "RAM-lean time loops have no blocks");
    return reversedRowStep(b, rows, t);
  }
  auto type = cast<RankedTensorType>(sequence.getType());
  if (reversedIndex)
    t = mirror(b, t, type.getDimSize(timeAxis));
  AxisSlice slice = timeSlice(b, sequence, t);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + timeAxis);
  auto stepType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(
      b, loc, stepType, sequence, slice.offsets, slice.sizes, slice.strides);
}

Value ScanLowering::reversedRowStep(OpBuilder &b, const StepRows &rows,
                                    OpFoldResult t) {
  auto type = cast<RankedTensorType>(rows.input.getType());
  int64_t steps = type.getDimSize(timeAxis);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + timeAxis);
  int64_t rank = shape.size();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  // Lengths index the leading (batch) dims of a step.
  AffineMap rowsMap =
      AffineMap::get(rank, 0,
                     identity.getResults().take_front(op.getNumBatchDims()),
                     b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value time = getValueOrCreateConstantIndexOp(b, loc, t);
  Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, empty.getType(), ValueRange{rows.lengths}, ValueRange{empty},
      ArrayRef<AffineMap>{rowsMap, identity}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value length = arith::IndexCastOp::create(nb, nloc, nb.getIndexType(),
                                                  args[0]);
        Value one = arith::ConstantIndexOp::create(nb, nloc, 1);
        Value valid = arith::SubIOp::create(
            nb, nloc, arith::SubIOp::create(nb, nloc, length, one), time);
        Value padEnd = arith::ConstantIndexOp::create(nb, nloc, steps - 1);
        Value padded = arith::SubIOp::create(
            nb, nloc, arith::AddIOp::create(nb, nloc, padEnd, length), time);
        Value inside = arith::CmpIOp::create(
            nb, nloc, arith::CmpIPredicate::slt, time, length);
        Value source =
            arith::SelectOp::create(nb, nloc, inside, valid, padded);
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d)
          indices.push_back(linalg::IndexOp::create(nb, nloc, d));
        indices.insert(indices.begin() + timeAxis, source);
        Value element =
            tensor::ExtractOp::create(nb, nloc, rows.input, indices);
        linalg::YieldOp::create(nb, nloc, element);
      });
  return generic.getResult(0);
}

OpFoldResult ScanLowering::mirror(OpBuilder &b, OpFoldResult t, int64_t size) {
  if (std::optional<int64_t> constant = getConstantIntValue(t))
    return b.getIndexAttr(size - 1 - *constant);
  Value last = arith::ConstantIndexOp::create(b, loc, size - 1);
  return arith::SubIOp::create(b, loc, last, cast<Value>(t)).getResult();
}

Value ScanLowering::inputBlock(OpBuilder &b, const StepRows &rows,
                               OpFoldResult first, int64_t count) {
  // Steps counted from the end: [T - first - count, T - first).
  if (reversedIndex)
    first = mirror(b, first, op.getNumSteps() - count + 1);
  AxisSlice slice = axisSlice(b, cast<RankedTensorType>(rows.input.getType()),
                              timeAxis, first, count);
  return tensor::ExtractSliceOp::create(b, loc, rows.input, slice.offsets,
                                        slice.sizes, slice.strides);
}

AxisSlice ScanLowering::outputSlice(OpBuilder &b, OpFoldResult t,
                                    Value outputs) {
  if (reversedIndex && op.getKeepOrder())
    t = mirror(b, t, op.getNumSteps());
  return timeSlice(b, outputs, t);
}

Value ScanLowering::outputSlot(OpBuilder &b, const AxisSlice &slice, Type type,
                               Value outputs) {
  return tensor::ExtractSliceOp::create(b, loc, cast<RankedTensorType>(type),
                                        outputs, slice.offsets, slice.sizes,
                                        slice.strides);
}

Value ScanLowering::storeOutput(OpBuilder &b, const AxisSlice &slice, Value y,
                                Value outputs, bool computedInSlot) {
  // Otherwise copied into the slot first (a linalg.copy, which becomes
  // loops), so that the insertion bufferizes in place, without a strided
  // memref.copy that would need a runtime helper.
  if (!computedInSlot)
    y = linalg::CopyOp::create(b, loc, ValueRange{y},
                               ValueRange{outputSlot(b, slice, y.getType(),
                                                     outputs)})
            .getResult(0);
  return tensor::InsertSliceOp::create(b, loc, y, outputs, slice.offsets,
                                       slice.sizes, slice.strides);
}

Value ScanLowering::timeAsI32(OpBuilder &b, OpFoldResult t) {
  if (auto value = dyn_cast<Value>(t))
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), value);
  int64_t constant = cast<IntegerAttr>(cast<Attribute>(t)).getInt();
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(constant));
}

SmallVector<Value> ScanLowering::step(OpBuilder &b, const StepRows &rows,
                                      OpFoldResult t, StepSequence sequence,
                                      OpFoldResult local, ValueRange state) {
  Value input = stepInput(b, rows, sequence.values, local);
  if (projection && !sequence.projected)
    input = project(b, input);
  return stepOn(b, rows, t, input, state);
}

SmallVector<Value>
ScanLowering::stepOn(OpBuilder &b, const StepRows &rows, OpFoldResult t,
                     Value input, ValueRange state,
                     function_ref<void(CellOpInterface)> besideCell) {
  size_t numCarries = op.getCarryArgs().size();
  ValueRange carries = state.take_front(numCarries);
  Value outputs = state[numCarries];
  ValueRange selected = state.drop_front(numCarries + 1);

  IRMapping mapping;
  mapping.map(op.getCarryArgs(), carries);
  mapping.map(op.getStepInputArg(), input);
  Block &body = op.getBody().front();
  int64_t batch = carryType(0).getDimSize(0);
  for (Operation &nested : body.without_terminator()) {
    Operation *clone = b.clone(nested, mapping);
    if (auto cell = dyn_cast<CellOpInterface>(clone); cell && besideCell)
      besideCell(cell);
    if (rows.count == batch)
      continue;
    // A block of rows: the body's ops are cells, which work row by row.
    for (OpResult result : clone->getResults())
      result.setType(withRows(result.getType(), 0, rows.count));
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Value> next = llvm::map_to_vector(
      yield.getCarry(), [&](Value v) { return mapping.lookupOrDefault(v); });
  Value y = mapping.lookupOrDefault(yield.getOutput());
  // The new carry goes into the old carry's storage, so a loop's carry
  // stays in one buffer (bufferization needs the yielded carry to be
  // equivalent to the loop's iteration argument). A cell's lowering puts
  // it there; anything else is copied there.
  for (auto [i, carry] : llvm::enumerate(carries)) {
    if (computedOver(next[i], i, carry))
      continue;
    Value copied =
        linalg::CopyOp::create(b, loc, ValueRange{next[i]}, ValueRange{carry})
            .getResult(0);
    if (y == next[i])
      y = copied;
    next[i] = copied;
  }

  Value lengths = rows.lengths;
  Value time = lengths ? timeAsI32(b, t) : Value();
  // Outputs nobody reads (a Pool(last) took the final carry instead) are
  // not stored; the untouched tensor folds away.
  bool stored = !op.getOutputs().use_empty();
  // A cell's result inserted into the step's slot is computed there by the
  // cell's lowering (its gate generic gets the slot as one more init).
  bool computedInSlot = bool(y.getDefiningOp<CellOpInterface>());
  std::optional<AxisSlice> slice;
  if (op.getZeroPaddedOutputs()) {
    // Padded steps (t >= L) output zeros, chosen into the slot.
    auto yType = cast<RankedTensorType>(y.getType());
    Value padding = zeros(b, loc, yType);
    Value slot;
    if (stored) {
      slice = outputSlice(b, t, outputs);
      slot = outputSlot(b, *slice, yType, outputs);
    }
    y = selectRows(
        b, loc, lengths, y, padding,
        [&](OpBuilder &nb, Location nloc, Value length) {
          return arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt,
                                       time, length);
        },
        slot);
    computedInSlot = stored;
  }
  SmallVector<Value> newCarries(next);
  if (stored && !slice)
    slice = outputSlice(b, t, outputs);
  next.push_back(stored ? storeOutput(b, *slice, y, outputs, computedInSlot)
                        : outputs);
  // Each row keeps the carry after its last valid step (t == L - 1).
  auto lengthsType =
      lengths ? cast<RankedTensorType>(lengths.getType()) : RankedTensorType();
  bool rowCopies =
      options.lastRowCopies && lengthsType && lengthsType.getRank() == 1;
  for (auto [carry, kept] : llvm::zip(newCarries, selected)) {
    auto type = cast<RankedTensorType>(carry.getType());
    if (rowCopies && type.hasStaticShape() &&
        lengthsType.getDimSize(0) == type.getDimSize(0)) {
      next.push_back(keepRowsAtLastStep(b, loc, lengths, time, carry, kept));
      continue;
    }
    Value chosen = selectRows(
        b, loc, lengths, carry, kept,
        [&](OpBuilder &nb, Location nloc, Value length) {
          Value one =
              arith::ConstantOp::create(nb, nloc, nb.getI32IntegerAttr(1));
          Value last = arith::SubIOp::create(nb, nloc, length, one);
          return arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::eq, time,
                                       last);
        });
    next.push_back(chosen);
  }
  return next;
}

int64_t ScanLowering::timeBlockSteps(int64_t rows, bool skipping) {
  int64_t steps = op.getNumSteps();
  int64_t unroll = unrollFactor();
  int64_t mainSteps = loopSteps();
  RankedTensorType outputs = op.getOutputs().getType();
  int64_t batch = carryType(0).getDimSize(0);
  int64_t planned = planRows(rows);
  int64_t stepBytes = outputs.getNumElements() / steps / batch * planned *
                      outputs.getElementTypeBitWidth() / 8;
  auto smallest = [&](function_ref<bool(int64_t)> enough) {
    for (int64_t block = unroll; block < mainSteps; block += unroll)
      if (mainSteps % block == 0 && enough(block))
        return block;
    return mainSteps;
  };
  if (skipping)
    return smallest(
        [&](int64_t block) { return block * rows >= options.skipBlockRows; });
  if (options.ramLean || options.timeBlockBytes <= 0 ||
      stepBytes * steps < 8 * options.timeBlockBytes)
    return mainSteps;
  return smallest([&](int64_t block) {
    return block * stepBytes >= options.timeBlockBytes &&
           block * planned >= options.timeBlockRows;
  });
}

int64_t ScanLowering::planRows(int64_t rows) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto whole = func ? func->getAttrOfType<IntegerAttr>(kTimeBlockBatchAttrName)
                    : IntegerAttr();
  return whole ? whole.getInt() : rows;
}

SmallVector<Value> ScanLowering::runSteps(OpBuilder &b, const StepRows &rows,
                                          SmallVector<Value> state,
                                          Value activeSteps, StepRange range) {
  int64_t steps = op.getNumSteps();
  int64_t unroll = unrollFactor();
  int64_t block = range.block
                      ? range.block
                      : timeBlockSteps(rows.count, activeSteps != nullptr);
  // A loop of one iteration would only hide constant time indices.
  int64_t mainSteps = loopSteps();
  if (mainSteps == unroll && !activeSteps)
    mainSteps = 0;
  // The projection of the rows' whole input, when the loop made one.
  StepSequence whole;
  if (mainSteps > 0) {
    // The unrolled steps from `first` on, with their inputs taken from
    // `sequence` from step `local` on.
    auto unrolled = [&](OpBuilder &nb, Value first, StepSequence sequence,
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
        current = step(nb, rows, t, sequence, l, current);
      }
      return current;
    };
    Value start =
        range.first ? range.first : arith::ConstantIndexOp::create(b, loc, 0);
    Value ub = arith::ConstantIndexOp::create(b, loc, mainSteps);
    Value stride = arith::ConstantIndexOp::create(b, loc, unroll);
    // Up to the last active step: an iteration (or block) that starts
    // before it runs whole, and ends within the loop since its size
    // divides the loop's steps.
    if (activeSteps)
      ub = arith::MinUIOp::create(b, loc, activeSteps, ub);
    if (block == mainSteps && overlapsSteps(block, activeSteps, range)) {
      state = runOverlappedSteps(b, rows, rows.input, Value(), block, state);
    } else if (block == mainSteps) {
      whole = forSteps(b, rows.input);
      auto loop = scf::ForOp::create(
          b, loc, start, ub, stride, state,
          [&](OpBuilder &nb, Location, Value iv, ValueRange iterArgs) {
            scf::YieldOp::create(nb, loc,
                                 unrolled(nb, iv, whole, iv, iterArgs));
          });
      state.assign(loop.getResults().begin(), loop.getResults().end());
    } else {
      // Blocks of steps, each with its own slice of the input, so that
      // work done once for the steps of a block (the input projection)
      // covers one block and stays in cache until its steps read it.
      bool overlapped = overlapsSteps(block, activeSteps, range);
      Value blockSize = arith::ConstantIndexOp::create(b, loc, block);
      auto loop = scf::ForOp::create(
          b, loc, start, ub, blockSize, state,
          [&](OpBuilder &nb, Location, Value first, ValueRange blockArgs) {
            Value input = inputBlock(nb, rows, first, block);
            if (overlapped) {
              scf::YieldOp::create(
                  nb, loc,
                  runOverlappedSteps(nb, rows, input, first, block, blockArgs));
              return;
            }
            Value inner = arith::ConstantIndexOp::create(nb, loc, block);
            Value begin = arith::ConstantIndexOp::create(nb, loc, 0);
            StepSequence sequence = forSteps(nb, input);
            auto stepLoop = scf::ForOp::create(
                nb, loc, begin, inner, stride, blockArgs,
                [&](OpBuilder &sb, Location, Value iv, ValueRange iterArgs) {
                  Value t = arith::AddIOp::create(sb, loc, first, iv);
                  scf::YieldOp::create(sb, loc,
                                       unrolled(sb, t, sequence, iv, iterArgs));
                });
            scf::YieldOp::create(nb, loc, stepLoop.getResults());
          });
      state.assign(loop.getResults().begin(), loop.getResults().end());
    }
  }
  if (range.remainder && mainSteps < steps) {
    // The steps after the loop read the loop's projection of the whole
    // input, or one of their own (each step's in a block of rows).
    StepSequence rest = whole.values ? whole
                        : rows.inRowLoop ? StepSequence{rows.input}
                                         : forSteps(b, rows.input);
    for (int64_t t = mainSteps; t < steps; ++t)
      state = step(b, rows, b.getIndexAttr(t), rest, b.getIndexAttr(t), state);
  }
  return state;
}

SmallVector<Value> ScanLowering::initialState(OpBuilder &b, int64_t rows,
                                              ValueRange init,
                                              RankedTensorType outputsType,
                                              bool zeroOutputs) {
  SmallVector<Value> state;
  for (auto [i, arg] : llvm::enumerate(op.getCarryArgs())) {
    RankedTensorType rowsType = withRows(arg.getType(), 0, rows);
    state.push_back(init.empty() ? zeros(b, loc, rowsType) : init[i]);
  }
  size_t numCarries = state.size();
  state.push_back(zeroOutputs
                      ? zeros(b, loc, outputsType)
                      : tensor::EmptyOp::create(b, loc, outputsType.getShape(),
                                                outputsType.getElementType())
                            .getResult());
  if (captureCarry) // a row of length 0 keeps its initial carry
    state.append(state.begin(), state.begin() + numCarries);
  return state;
}

ScanLowering::Finished ScanLowering::finish(ValueRange state) {
  size_t numCarries = op.getCarryArgs().size();
  ValueRange finals = captureCarry ? state.drop_front(numCarries + 1)
                                   : state.take_front(numCarries);
  return {state[numCarries], SmallVector<Value>(finals)};
}
