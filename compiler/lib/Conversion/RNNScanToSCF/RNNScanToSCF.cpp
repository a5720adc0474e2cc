//===- RNNScanToSCF.cpp - rnn.scan to an unrolled scf.for -----------------===//
//
// A scan becomes a loop over time on tensors. Each loop iteration runs
// `unroll` copies of the scan body; the `T mod unroll` steps left over run
// after the loop, fully unrolled, so every step's time index that the body
// sees is either the loop's or a constant.
//
//===----------------------------------------------------------------------===//

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
  Value zero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(type.getElementType()));
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
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
        Value picked = arith::SelectOp::create(nb, nloc, pred, args[1], args[2]);
        linalg::YieldOp::create(nb, nloc, picked);
      });
  return generic.getResult(0);
}

struct ScanLowering {
  ScanOp op;
  PatternRewriter &rewriter;
  Location loc;
  int64_t timeAxis;
  Value input;   ///< the input in processing order (flipped when reversed)
  Value lengths; ///< null without seq_lengths
  bool captureCarry;
  int64_t timeBlockBytes; ///< see ConvertRNNScanToSCFPass's option

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
    TimeSlice slice = timeSlice(b, sequence, t);
    auto stepType = cast<RankedTensorType>(op.getStepInputArg().getType());
    return tensor::ExtractSliceOp::create(b, loc, stepType, sequence,
                                          slice.offsets, slice.sizes,
                                          slice.strides);
  }

  /// Steps [first, first + count) of the input.
  Value inputBlock(OpBuilder &b, OpFoldResult first, int64_t count) {
    TimeSlice slice = timeSlice(b, input, first);
    slice.sizes[timeAxis] = b.getIndexAttr(count);
    return tensor::ExtractSliceOp::create(b, loc, input, slice.offsets,
                                          slice.sizes, slice.strides);
  }

  /// `outputs` with the step output `y` stored at time `t`.
  Value storeOutput(OpBuilder &b, OpFoldResult t, Value y, Value outputs) {
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
    for (Operation &nested : body.without_terminator())
      b.clone(nested, mapping);
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
      Value chosen =
          selectRows(b, loc, lengths, carry, kept,
                     [&](OpBuilder &nb, Location nloc, Value length) {
                       Value one = arith::ConstantOp::create(
                           nb, nloc, nb.getI32IntegerAttr(1));
                       Value last = arith::SubIOp::create(nb, nloc, length, one);
                       return arith::CmpIOp::create(
                           nb, nloc, arith::CmpIPredicate::eq, time, last);
                     });
      next.push_back(chosen);
    }
    return next;
  }

  /// Steps per block of the time loop: a multiple of `unroll` dividing the
  /// loop's steps whose outputs take at least `timeBlockBytes`, when the
  /// outputs of all steps take more than eight times that; otherwise the
  /// whole loop.
  int64_t timeBlockSteps(int64_t steps, int64_t unroll) {
    int64_t mainSteps = steps - steps % unroll;
    RankedTensorType outputs = op.getOutputs().getType();
    int64_t stepBytes = outputs.getNumElements() / steps *
                        outputs.getElementTypeBitWidth() / 8;
    if (timeBlockBytes <= 0 || stepBytes * steps <= 8 * timeBlockBytes)
      return mainSteps;
    for (int64_t block = unroll; block < mainSteps; block += unroll)
      if (mainSteps % block == 0 && block * stepBytes >= timeBlockBytes)
        return block;
    return mainSteps;
  }

  LogicalResult lower() {
    int64_t steps = op.getNumSteps();
    int64_t unroll = std::min<int64_t>(op.getUnroll(), steps);
    int64_t block = timeBlockSteps(steps, unroll);
    int64_t numBatchDims = op.getNumBatchDims();
    bool timeMajor = op.getTimeMajor();

    input = op.getInput();
    if (op.getReverse())
      input = FlipSequencesOp::create(rewriter, loc, input.getType(), input,
                                      lengths, numBatchDims, timeMajor);

    SmallVector<Value> state;
    for (auto [i, arg] : llvm::enumerate(op.getCarryArgs()))
      state.push_back(op.getInit().empty()
                          ? zeros(rewriter, loc,
                                  cast<RankedTensorType>(arg.getType()))
                          : op.getInit()[i]);
    size_t numCarries = state.size();
    RankedTensorType outputsType = op.getOutputs().getType();
    state.push_back(tensor::EmptyOp::create(rewriter, loc,
                                            outputsType.getShape(),
                                            outputsType.getElementType()));
    if (captureCarry) // a row of length 0 keeps its initial carry
      state.append(state.begin(), state.begin() + numCarries);

    // A loop of one iteration would only hide constant time indices.
    int64_t mainSteps = steps - steps % unroll;
    if (mainSteps == unroll)
      mainSteps = 0;
    if (mainSteps > 0) {
      // The unrolled steps from `first` on, with their inputs taken from
      // `sequence` from step `local` on.
      auto unrolled = [&](OpBuilder &b, Value first, Value sequence,
                          Value local, ValueRange iterArgs) {
        SmallVector<Value> current(iterArgs);
        for (int64_t k = 0; k < unroll; ++k) {
          OpFoldResult t = first, l = local;
          if (k > 0) {
            Value offset = arith::ConstantIndexOp::create(b, loc, k);
            t = arith::AddIOp::create(b, loc, first, offset).getResult();
            l = local == first
                    ? t
                    : arith::AddIOp::create(b, loc, local, offset).getResult();
          }
          current = step(b, t, sequence, l, current);
        }
        return current;
      };
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value ub = arith::ConstantIndexOp::create(rewriter, loc, mainSteps);
      Value stride = arith::ConstantIndexOp::create(rewriter, loc, unroll);
      scf::ForOp loop;
      if (block == mainSteps) {
        loop = scf::ForOp::create(
            rewriter, loc, zero, ub, stride, state,
            [&](OpBuilder &b, Location, Value iv, ValueRange iterArgs) {
              scf::YieldOp::create(b, loc,
                                   unrolled(b, iv, input, iv, iterArgs));
            });
      } else {
        // Blocks of steps, each with its own slice of the input, so that
        // work hoisted out of the step loop (the input projection) covers
        // one block and stays in cache until its steps read it.
        Value blockSize = arith::ConstantIndexOp::create(rewriter, loc, block);
        loop = scf::ForOp::create(
            rewriter, loc, zero, ub, blockSize, state,
            [&](OpBuilder &b, Location, Value first, ValueRange blockArgs) {
              Value sequence = inputBlock(b, first, block);
              Value inner = arith::ConstantIndexOp::create(b, loc, block);
              Value begin = arith::ConstantIndexOp::create(b, loc, 0);
              auto steps = scf::ForOp::create(
                  b, loc, begin, inner, stride, blockArgs,
                  [&](OpBuilder &nb, Location, Value iv, ValueRange iterArgs) {
                    Value t = arith::AddIOp::create(nb, loc, first, iv);
                    scf::YieldOp::create(
                        nb, loc, unrolled(nb, t, sequence, iv, iterArgs));
                  });
              scf::YieldOp::create(b, loc, steps.getResults());
            });
      }
      state.assign(loop.getResults().begin(), loop.getResults().end());
    }
    for (int64_t t = mainSteps; t < steps; ++t)
      state = step(rewriter, rewriter.getIndexAttr(t), input,
                   rewriter.getIndexAttr(t), state);

    Value outputs = state[numCarries];
    if (op.getReverse() && op.getKeepOrder())
      outputs = FlipSequencesOp::create(rewriter, loc, outputs.getType(),
                                        outputs, lengths, numBatchDims,
                                        timeMajor);
    SmallVector<Value> results{outputs};
    if (!op.getFinalCarry().empty()) {
      ValueRange finals = ValueRange(state).take_front(numCarries);
      if (captureCarry)
        finals = ValueRange(state).drop_front(numCarries + 1);
      llvm::append_range(results, finals);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct LowerScan : OpRewritePattern<ScanOp> {
  LowerScan(MLIRContext *ctx, int64_t timeBlockBytes)
      : OpRewritePattern(ctx), timeBlockBytes(timeBlockBytes) {}
  int64_t timeBlockBytes;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScanLowering lowering{op, rewriter, op.getLoc(), op.getTimeAxis(),
                          Value(), op.getSeqLengths(),
                          op.getSeqLengths() && !op.getFinalCarry().empty(),
                          timeBlockBytes};
    return lowering.lower();
  }
};

struct ConvertRNNScanToSCFPass
    : rnn::impl::ConvertRNNScanToSCFPassBase<ConvertRNNScanToSCFPass> {
  using ConvertRNNScanToSCFPassBase::ConvertRNNScanToSCFPassBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerScan>(&getContext(), timeBlockBytes);
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
