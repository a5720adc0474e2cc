//===- BlockMatmuls.cpp - Register-blocked scalar matmuls -----------------===//
//
// Without a vector unit (Cortex-M, and C, where the compiler decides), a
// matmul lowered as loops loads and stores its accumulator for every
// multiply-add. Here each block of rows x columns keeps its accumulators
// as the iter_args of its loop over k: a step loads rows + columns values
// and does rows x columns multiply-adds (4 x 4: 8 loads for 16 MACs).
//
//===----------------------------------------------------------------------===//

#include "rnn/CPU/Passes.h"

#include "MatmulMatchers.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNBLOCKMATMULSPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// Whether `op` multiplies signed i8 by signed i8 into i32 (dynamic int8
/// activations): summed as int32 multiply-adds.
bool isInt8Dot(linalg::MatmulOp op) {
  auto element = [&](Value v) {
    return getElementTypeOrSelf(v.getType());
  };
  return element(op.getInputs()[0]).isSignlessInteger(8) &&
         element(op.getInputs()[1]).isSignlessInteger(8) &&
         element(op.getOutputs()[0]).isSignlessInteger(32) &&
         op.getCast() == linalg::TypeFn::cast_signed;
}

/// Whether `op` is a plain f32 matmul on static tensors; its weights (the
/// right-hand side) may also be int8 (quantize: {weights: int8}), widened
/// as linalg.matmul casts them (signed).
bool isBlockable(linalg::MatmulOp op) {
  if (!op.hasPureTensorSemantics() || !rnn::isPlainMatmul(op) ||
      op.getInputs().size() != 2)
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type || !type.hasStaticShape() || type.getRank() != 2)
      return false;
    Type element = type.getElementType();
    bool int8Weights = operand.getOperandNumber() == 1 &&
                       element.isSignlessInteger(8) &&
                       op.getCast() == linalg::TypeFn::cast_signed;
    if (!element.isF32() && !int8Weights && !isInt8Dot(op))
      return false;
  }
  return true;
}

/// Where a matmul's accumulators start: a scalar (a filled init), a row
/// vector of the columns (an init broadcast along the rows: a cell's
/// bias), or, with neither, the init's elements.
struct Start {
  Value scalar, row;
};

/// The column offset of `block`, a tile of a matmul: its init's slice.
Value blockColumnOffset(RewriterBase &rewriter, linalg::MatmulOp block) {
  auto slice = block.getOutputs()[0].getDefiningOp<tensor::ExtractSliceOp>();
  OpFoldResult offset = slice ? slice.getMixedOffsets()[1]
                              : OpFoldResult(rewriter.getIndexAttr(0));
  return getValueOrCreateConstantIndexOp(rewriter, block.getLoc(), offset);
}

/// `block` (a rows x columns x K matmul on tensor slices) as one loop over
/// k with the accumulators as iter_args, starting from `start`.
void rewriteBlock(RewriterBase &rewriter, linalg::MatmulOp block,
                  Start start, int64_t unrollK) {
  Location loc = block.getLoc();
  Value lhs = block.getInputs()[0], rhs = block.getInputs()[1];
  Value init = block.getOutputs()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t rows = initType.getDimSize(0), columns = initType.getDimSize(1);
  int64_t depth = cast<RankedTensorType>(lhs.getType()).getDimSize(1);
  rewriter.setInsertionPoint(block);
  SmallVector<Value> index;
  auto constant = [&](int64_t i) -> Value {
    while (static_cast<int64_t>(index.size()) <= i)
      index.push_back(arith::ConstantIndexOp::create(
          rewriter, loc, static_cast<int64_t>(index.size())));
    return index[i];
  };
  constant(std::max(rows, columns) - 1);

  // A row start: each column's value read once for all rows.
  SmallVector<Value> rowStart;
  if (start.row) {
    Value first = blockColumnOffset(rewriter, block);
    for (int64_t j = 0; j < columns; ++j)
      rowStart.push_back(tensor::ExtractOp::create(
          rewriter, loc, start.row,
          ValueRange{arith::AddIOp::create(rewriter, loc, first, constant(j))
                         .getResult()}));
  }
  SmallVector<Value> accumulators;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < columns; ++j)
      accumulators.push_back(
          start.scalar ? start.scalar
          : start.row  ? rowStart[j]
                       : tensor::ExtractOp::create(
                             rewriter, loc, init,
                             ValueRange{constant(i), constant(j)})
                             .getResult());
  Value upper = arith::ConstantIndexOp::create(rewriter, loc, depth);
  auto loop = scf::ForOp::create(
      rewriter, loc, constant(0), upper, constant(1), accumulators,
      [&](OpBuilder &b, Location loc, Value k, ValueRange sums) {
        // i8 x i8 -> i32: both widened (signed), exact int32 sums.
        Type acc = initType.getElementType();
        bool integer = isa<IntegerType>(acc);
        SmallVector<Value> a;
        for (int64_t i = 0; i < rows; ++i) {
          Value ai = tensor::ExtractOp::create(b, loc, lhs,
                                               ValueRange{index[i], k});
          if (integer)
            ai = arith::ExtSIOp::create(b, loc, acc, ai);
          a.push_back(ai);
        }
        SmallVector<Value> next(sums.begin(), sums.end());
        for (int64_t j = 0; j < columns; ++j) {
          Value bj =
              tensor::ExtractOp::create(b, loc, rhs, ValueRange{k, index[j]});
          if (integer)
            bj = arith::ExtSIOp::create(b, loc, acc, bj);
          else if (isa<IntegerType>(bj.getType()))
            bj = arith::SIToFPOp::create(b, loc, a[0].getType(), bj);
          for (int64_t i = 0; i < rows; ++i)
            next[i * columns + j] =
                integer ? Value(arith::AddIOp::create(
                              b, loc, sums[i * columns + j],
                              arith::MulIOp::create(b, loc, a[i], bj)))
                        : Value(math::FmaOp::create(b, loc, a[i], bj,
                                                    sums[i * columns + j]));
        }
        scf::YieldOp::create(b, loc, next);
      });
  Value result = init;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < columns; ++j)
      result = tensor::InsertOp::create(rewriter, loc,
                                        loop.getResult(i * columns + j),
                                        result,
                                        ValueRange{constant(i), constant(j)});
  rewriter.replaceOp(block, result);
  // After the loop's results have their uses: a remainder loop takes them
  // over.
  if (unrollK > 1 && depth > unrollK)
    (void)loopUnrollByFactor(loop, unrollK);
}

/// Whether every use of `value` but `user`'s is before `user` in its block.
bool onlyReadBefore(Value value, Operation *user) {
  return llvm::all_of(value.getUses(), [&](OpOperand &use) {
    Operation *other = use.getOwner();
    return other == user || (other->getBlock() == user->getBlock() &&
                             other->isBeforeInBlock(user));
  });
}

/// The element-wise generics after the blocks that write into the blocks'
/// init `dest` (a Dense head's bias add, then its log_softmax), each
/// reading the previous result, write into that result instead: their
/// payload never reads the init, so on tensors any init of the type gives
/// the same values. Bufferization then updates the blocks' buffer in place,
/// as it did a matmul written as loops; through the blocks' scf.for it
/// would give each generic a buffer of its own (char_lm: 7,424 bytes).
void chainElementwiseUsers(RewriterBase &rewriter, Value result, Value dest) {
  Value last = result;
  Operation *from = result.getDefiningOp();
  for (Operation *op = from->getNextNode(); op; op = op->getNextNode()) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || generic.getNumDpsInits() != 1 ||
        generic.getNumParallelLoops() != generic.getNumLoops())
      continue;
    OpOperand *init = generic.getDpsInitOperand(0);
    if (init->get() != dest || generic.payloadUsesValueFromOperand(init) ||
        !generic.getMatchingIndexingMap(init).isIdentity())
      continue;
    OpOperand *input = nullptr;
    for (OpOperand *operand : generic.getDpsInputOperands())
      if (operand->get() == last &&
          generic.getMatchingIndexingMap(operand).isIdentity())
        input = operand;
    if (!input || !onlyReadBefore(last, generic))
      continue;
    rewriter.modifyOpInPlace(generic, [&] { init->set(last); });
    last = generic.getResult(0);
  }
}

LogicalResult blockMatmul(RewriterBase &rewriter, linalg::MatmulOp op,
                          int64_t maxRows, int64_t maxAccumulators,
                          int64_t unrollK) {
  auto resultType = cast<RankedTensorType>(op.getResultTypes()[0]);
  int64_t rows = rnn::largestDivisorAtMost(resultType.getDimSize(0),
                                           std::max<int64_t>(maxRows, 1));
  int64_t columns = rnn::largestDivisorAtMost(
      resultType.getDimSize(1), std::max<int64_t>(maxAccumulators / rows, 1));

  // A filled accumulator: every element is written by a block, so the
  // blocks start from the fill's value and write the fill's destination;
  // the fill is not run. (Two matmuls sharing a fill, as CSE leaves a
  // cell's input and recurrent projections, then share a destination that
  // bufferization splits.)
  // A broadcast init (a cell's bias along the rows, from
  // convert-rnn-to-linalg's fused projections) likewise: each block starts
  // from its columns of the row.
  Start start;
  Value startDest;
  if (auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>()) {
    start.scalar = fill.getInputs()[0];
    startDest = fill.getOutputs()[0];
  } else if (auto broadcast =
                 op.getOutputs()[0].getDefiningOp<linalg::BroadcastOp>();
             broadcast && broadcast.getDimensions() == ArrayRef<int64_t>{0} &&
             cast<ShapedType>(broadcast.getInput().getType()).getRank() == 1) {
    start.row = broadcast.getInput();
    startDest = broadcast.getInit();
  }
  if (startDest)
    rewriter.modifyOpInPlace(
        op, [&] { op.getOutputsMutable()[0].set(startDest); });

  scf::SCFTilingOptions blocks;
  blocks.setTileSizes({rewriter.getIndexAttr(rows),
                       rewriter.getIndexAttr(columns),
                       rewriter.getIndexAttr(0)});
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), blocks);
  if (failed(tiled))
    return op.emitOpError("could not be tiled");
  Value dest = op.getOutputs()[0];
  rewriter.replaceOp(op, tiled->replacements);
  chainElementwiseUsers(rewriter, tiled->replacements[0], dest);
  rewriteBlock(rewriter, cast<linalg::MatmulOp>(tiled->tiledOps.back()),
               start, unrollK);
  return success();
}

struct RNNBlockMatmulsPass
    : rnn::impl::RNNBlockMatmulsPassBase<RNNBlockMatmulsPass> {
  using RNNBlockMatmulsPassBase::RNNBlockMatmulsPassBase;

  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) {
      if (isBlockable(op))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : matmuls) {
      // A fill or broadcast whose only use was this matmul is left dead.
      Operation *init = op.getOutputs()[0].getDefiningOp();
      if (failed(blockMatmul(rewriter, op, tileM, accumulators, unrollK)))
        return signalPassFailure();
      if (isa_and_nonnull<linalg::FillOp, linalg::BroadcastOp>(init) &&
          init->use_empty())
        rewriter.eraseOp(init);
    }
  }
};

} // namespace
