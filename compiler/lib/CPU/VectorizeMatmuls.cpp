//===- VectorizeMatmuls.cpp - Register-blocked matmuls --------------------===//

#include "rnn/CPU/Passes.h"

#include "FuseSiblingLoops.h"
#include "MatmulMatchers.h"
#include "WeightPanels.h"
#include "WidenBF16Rows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "rnn/IR/RNNOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"


namespace mlir::rnn {
#define GEN_PASS_DEF_RNNVECTORIZEMATMULSPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// Widens the operands of `contract` narrower than its accumulator
/// (bf16 or int8 weights of an f32 matmul) with arith.extf, right where they are
/// read: the weights stay narrow in memory, the products are exact and the
/// sums are in the accumulator's type, as linalg.matmul defines them.
/// vector.contract requires one element type for both factors. Reads of
/// bf16 weights stored with their columns paired (`pairedRows`: the rows
/// read, and the lanes of their pairs) are widened as pairs.
void widenContractOperands(RewriterBase &rewriter,
                           vector::ContractionOp contract,
                           const llvm::DenseMap<Value, int64_t> &pairedRows) {
  auto accType = dyn_cast<VectorType>(contract.getAccType());
  if (!accType)
    return;
  Type acc = accType.getElementType();
  rewriter.setInsertionPoint(contract);
  for (OpOperand *operand :
       {&contract.getLhsMutable(), &contract.getRhsMutable()}) {
    auto type = cast<VectorType>(operand->get().getType());
    Type element = type.getElementType();
    if (element == acc)
      continue;
    // i8 x i8 -> i32 (dynamic int8 activations): signed, as linalg.matmul
    // casts them.
    if (isa<IntegerType>(acc) && isa<IntegerType>(element)) {
      Value wide = arith::ExtSIOp::create(rewriter, contract.getLoc(),
                                          type.clone(acc), operand->get());
      rewriter.modifyOpInPlace(contract, [&] { operand->set(wide); });
      continue;
    }
    if (!isa<FloatType>(acc) || !isa<FloatType, IntegerType>(element))
      continue;
    if (auto read = operand->get().getDefiningOp<vector::TransferReadOp>())
      if (auto paired = pairedRows.find(read.getBase());
          paired != pairedRows.end()) {
        Value wide = rnn::widenPairedColumns(rewriter, contract.getLoc(), read,
                                             paired->second);
        rewriter.modifyOpInPlace(contract, [&] { operand->set(wide); });
        continue;
      }
    // int8 weights (quantize: {weights: int8}) are signed, as linalg.matmul
    // casts them; their column scales are applied after the sum.
    Value wide =
        isa<IntegerType>(element)
            ? Value(arith::SIToFPOp::create(rewriter, contract.getLoc(),
                                            type.clone(acc), operand->get()))
            : Value(arith::ExtFOp::create(rewriter, contract.getLoc(),
                                          type.clone(acc), operand->get()));
    rewriter.modifyOpInPlace(contract, [&] { operand->set(wide); });
  }
}

/// `contract` (m x 2 x n, a bf16 row block times two rows of bf16 weights,
/// into f32) as AVX512_BF16 dot products: each row's pair of values is
/// broadcast as one 32-bit word, the two weight rows are interleaved into
/// (k, k + 1) pairs per column, and each `lanes` columns of a row of the
/// accumulator (one vector register of f32) take one `x86vector.avx512.dot`
/// (vdpbf16ps), which adds both products of a pair to the f32 lane. The
/// interleave is a shuffle of the two rows, unless `pairRow` (a read of
/// weights stored as k pairs, 1 x 2n) holds them interleaved already.
void rewriteAsBF16Dot(RewriterBase &rewriter, vector::ContractionOp contract,
                      int64_t lanes, Value pairRow = Value()) {
  Location loc = contract.getLoc();
  rewriter.setInsertionPoint(contract);
  auto lhsType = cast<VectorType>(contract.getLhsType());
  auto rhsType = cast<VectorType>(contract.getRhsType());
  auto accType = cast<VectorType>(contract.getAccType());
  int64_t m = lhsType.getDimSize(0), n = rhsType.getDimSize(1);
  Type i32 = rewriter.getI32Type();
  Type bf16 = rewriter.getBF16Type();
  // Each row's pair of bf16 values as one i32 word.
  Value words = vector::ShapeCastOp::create(
      rewriter, loc, VectorType::get({m}, i32),
      vector::BitCastOp::create(rewriter, loc, VectorType::get({m, 1}, i32),
                                contract.getLhs()));
  // The weights' rows interleaved: pair j is (w[k, j], w[k + 1, j]).
  auto flatType = VectorType::get({2 * n}, bf16);
  Value pairs;
  if (pairRow) {
    pairs = vector::ShapeCastOp::create(rewriter, loc, flatType, pairRow);
  } else {
    Value rhs = vector::ShapeCastOp::create(rewriter, loc, flatType,
                                            contract.getRhs());
    SmallVector<int64_t> interleave;
    for (int64_t j = 0; j < n; ++j)
      interleave.append({j, n + j});
    pairs = vector::ShuffleOp::create(rewriter, loc, rhs, rhs, interleave);
  }
  auto pairType = VectorType::get({2 * lanes}, bf16);
  auto sumType = VectorType::get({lanes}, accType.getElementType());
  Value result = contract.getAcc();
  for (int64_t i = 0; i < m; ++i) {
    Value word = vector::ExtractOp::create(rewriter, loc, words,
                                           ArrayRef<int64_t>{i});
    Value row = vector::BitCastOp::create(
        rewriter, loc, pairType,
        vector::BroadcastOp::create(rewriter, loc,
                                    VectorType::get({lanes}, i32), word));
    Value accRow = vector::ExtractOp::create(rewriter, loc, result,
                                             ArrayRef<int64_t>{i});
    for (int64_t c = 0; c < n / lanes; ++c) {
      Value weights = vector::ExtractStridedSliceOp::create(
          rewriter, loc, pairs, {2 * lanes * c}, {2 * lanes}, {1});
      Value sum = vector::ExtractStridedSliceOp::create(
          rewriter, loc, accRow, {lanes * c}, {lanes}, {1});
      Value dot = x86vector::DotBF16Op::create(rewriter, loc, sumType, sum,
                                               row, weights);
      accRow = vector::InsertStridedSliceOp::create(rewriter, loc, dot, accRow,
                                                    {lanes * c}, {1});
    }
    result = vector::InsertOp::create(rewriter, loc, accRow, result,
                                      ArrayRef<int64_t>{i});
  }
  rewriter.replaceOp(contract, result);
}

/// Whether `contract` is a k step of a bf16 dot block: m x 2 x n (n whole
/// vectors of `lanes`) with bf16 rows and weights, an f32 accumulator.
bool isBF16DotStep(vector::ContractionOp contract, int64_t lanes) {
  auto lhs = dyn_cast<VectorType>(contract.getLhsType());
  auto rhs = dyn_cast<VectorType>(contract.getRhsType());
  auto acc = dyn_cast<VectorType>(contract.getAccType());
  return lhs && rhs && acc && lhs.getRank() == 2 && rhs.getRank() == 2 &&
         lhs.getDimSize(1) == 2 && rhs.getDimSize(0) == 2 &&
         rhs.getDimSize(1) % lanes == 0 && lhs.getElementType().isBF16() &&
         rhs.getElementType().isBF16() && acc.getElementType().isF32() &&
         contract.getIndexingMapsArray() ==
             SmallVector<AffineMap>(
                 {AffineMap::getMultiDimMapWithTargets(3, {0, 2},
                                                       contract.getContext()),
                  AffineMap::getMultiDimMapWithTargets(3, {2, 1},
                                                       contract.getContext()),
                  AffineMap::getMultiDimMapWithTargets(3, {0, 1},
                                                       contract.getContext())});
}

/// `op`'s bf16 rows, when they are a narrowing used by `op` alone, narrowed
/// right before it into a tensor of their own, so that their buffer lives
/// only across this matmul: narrowed where convert-rnn-to-linalg put them,
/// the rows of a cell's two products were live at once (8 KiB more
/// workspace at B = 16, H = 256).
void narrowRowsAtMatmul(RewriterBase &rewriter, linalg::MatmulOp op) {
  auto narrow = op.getInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!narrow || !narrow->hasOneUse() || narrow.getNumDpsInits() != 1 ||
      narrow->getBlock() != op->getBlock())
    return;
  Value init = narrow.getDpsInits()[0];
  auto type = cast<RankedTensorType>(init.getType());
  rewriter.setInsertionPoint(op);
  IRMapping fresh;
  fresh.map(init, tensor::EmptyOp::create(rewriter, op.getLoc(),
                                          type.getShape(),
                                          type.getElementType())
                      .getResult());
  Operation *rows = rewriter.clone(*narrow, fresh);
  rewriter.modifyOpInPlace(
      op, [&] { op.getInputsMutable()[0].set(rows->getResult(0)); });
  rewriter.eraseOp(narrow);
  if (Operation *empty = init.getDefiningOp();
      empty && isa<tensor::EmptyOp>(empty) && empty->use_empty())
    rewriter.eraseOp(empty);
}

/// Vectorizes `op` (a block of a matmul, or the fill of its accumulator).
LogicalResult vectorizeBlock(RewriterBase &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op, /*inputVectorSizes=*/{},
                        /*inputScalableVecDims=*/{},
                        /*vectorizeNDExtract=*/false,
                        /*flatten1DDepthwiseConv=*/false,
                        /*assumeDynamicDimsMatchVecSizes=*/false,
                        /*createNamedContraction=*/true);
  if (failed(vectorized))
    return op->emitOpError("could not be vectorized");
  rewriter.replaceOp(op, vectorized->replacements);
  return success();
}

/// Where a matmul stands among the matmuls that read the same weights in
/// one loop body (or one block of straight-line code): the `index`-th of
/// `count` per iteration. Consecutive reads sweep the weights in opposite
/// directions, so each starts with what the previous one left in cache.
struct SweepOrder {
  int64_t index = 0;
  int64_t count = 1;
};

/// True if `value` is `root` or a slice of a slice ... of `root`.
bool isSliceOf(Value value, Value root) {
  while (value != root) {
    auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice)
      return false;
    value = slice.getSource();
  }
  return true;
}

/// The value `value` is a slice of a slice ... of.
Value sliceRoot(Value value) {
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    value = slice.getSource();
  return value;
}

/// True if `loop`'s induction variable positions a slice of `weights`.
bool indexesWeights(scf::ForOp loop, Value weights) {
  return llvm::any_of(loop.getInductionVar().getUsers(), [&](Operation *user) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    return slice && isSliceOf(slice.getSource(), weights);
  });
}

/// An i1 that is true when this matmul sweeps its weights backwards: every
/// other read in program order, counting `order.count` reads per iteration
/// of the enclosing loop (none: one pass over straight-line code).
Value backwardSweep(OpBuilder &b, Location loc, Operation *op,
                    SweepOrder order) {
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  if (!loop || order.count % 2 == 0)
    return arith::ConstantIntOp::create(b, loc, order.index % 2, 1);
  Value iteration = arith::DivUIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, loop.getInductionVar(),
                            loop.getLowerBound()),
      loop.getStep());
  Value read = arith::AddIOp::create(
      b, loc, iteration, arith::ConstantIndexOp::create(b, loc, order.index));
  Value parity = arith::RemUIOp::create(
      b, loc, read, arith::ConstantIndexOp::create(b, loc, 2));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, parity,
                               arith::ConstantIndexOp::create(b, loc, 0));
}

/// Makes `loop` (static bounds) visit its iterations last to first when
/// `backward` holds.
void reverseWhen(RewriterBase &rewriter, scf::ForOp loop, Value backward) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *upper - *lower <= *step)
    return;
  int64_t last = *lower + (*upper - *lower - 1) / *step * *step;
  Value iv = loop.getInductionVar();
  Location loc = loop.getLoc();
  rewriter.setInsertionPointToStart(loop.getBody());
  auto mirrored = arith::SubIOp::create(
      rewriter, loc,
      arith::ConstantIndexOp::create(rewriter, loc, *lower + last), iv);
  auto visited = arith::SelectOp::create(rewriter, loc, backward, mirrored, iv);
  SmallPtrSet<Operation *, 2> keep{mirrored, visited};
  rewriter.replaceAllUsesExcept(iv, visited, keep);
}

/// Tiles `op` into m x n blocks, each a loop over k of one-step blocks, and
/// vectorizes the blocks. With `bf16DotLanes` (bf16 rows and weights, n a
/// multiple of it), the blocks step k in pairs on dot products of that
/// many f32 lanes. With `panels`, the blocks read the weights from their
/// packed form. Returns the loops, outermost first: column blocks, row
/// blocks, k.
FailureOr<SmallVector<scf::ForOp>>
vectorizeMatmul(RewriterBase &rewriter, linalg::MatmulOp op, int64_t m,
                int64_t n, std::optional<SweepOrder> sweep,
                int64_t bf16DotLanes = 0,
                std::optional<rnn::PanelReads> panels = std::nullopt) {
  rewriter.setInsertionPoint(op);
  Value weights = op.getInputs()[1];
  Value backward =
      sweep ? backwardSweep(rewriter, op.getLoc(), op, *sweep) : Value();
  // Blocks first, with k whole. A fill of the accumulator (a zero
  // accumulator) is fused into each block, so a block starts from a
  // constant instead of reading back a buffer filled beforehand.
  scf::SCFTilingOptions blocks;
  blocks.setTileSizes({rewriter.getIndexAttr(m), rewriter.getIndexAttr(n),
                       rewriter.getIndexAttr(0)});
  // Column blocks outermost: one block column of the right-hand side (the
  // weights) stays in cache while every row block passes over it, instead
  // of the whole matrix streaming through once per row block.
  blocks.setInterchange({1, 0, 2});
  scf::SCFTileAndFuseOptions fusion;
  fusion.setTilingOptions(blocks);
  fusion.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer,
         bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isa<linalg::FillOp>(producer.getOwner()))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  FailureOr<scf::SCFTileAndFuseResult> tiled =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), fusion);
  if (failed(tiled))
    return op.emitOpError("could not be tiled");
  for (OpResult result : op->getResults())
    rewriter.replaceAllUsesWith(result, tiled->replacements.lookup(result));
  rewriter.eraseOp(op);

  // Then each block steps through k one rank-1 update at a time.
  auto block = cast<TilingInterface>(tiled->tiledAndFusedOps.front());
  auto blockWeights =
      block->getOperand(1).getDefiningOp<tensor::ExtractSliceOp>();
  if (panels && !blockWeights)
    return block->emitOpError("expected its weights as a slice");
  bool onePanelBlock = panels && panels->columnBlock &&
                       panels->columnBlock.getType().getDimSize(1) == n;
  SmallVector<Operation *> fills(llvm::drop_begin(tiled->tiledAndFusedOps));
  rewriter.setInsertionPoint(block);
  scf::SCFTilingOptions steps;
  // A bf16 dot block takes k in pairs (one vdpbf16ps adds both products).
  steps.setTileSizes({rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
                      rewriter.getIndexAttr(bf16DotLanes ? 2 : 1)});
  FailureOr<scf::SCFTilingResult> stepped =
      scf::tileUsingSCF(rewriter, block, steps);
  if (failed(stepped))
    return block->emitOpError("could not be tiled");
  rewriter.replaceOp(block, stepped->replacements);

  // Alternate the direction of the loops that walk the weights (column
  // blocks, then k): when the weights exceed a cache level, reads in one
  // direction would evict each line just before it is needed again.
  if (backward)
    for (LoopLikeOpInterface loop :
         llvm::concat<LoopLikeOpInterface>(tiled->loops, stepped->loops))
      if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
        if (indexesWeights(forOp, weights))
          reverseWhen(rewriter, forOp, backward);

  for (Operation *step : stepped->tiledOps) {
    Block *body = step->getBlock();
    auto stepWeights =
        step->getOperand(1).getDefiningOp<tensor::ExtractSliceOp>();
    if (panels && !stepWeights)
      return step->emitOpError("expected its weights as a slice");
    if (failed(vectorizeBlock(rewriter, step)))
      return failure();
    bool kPairs = panels && panels->weights.layout.kPairs;
    bool pairsRead = false;
    if (bf16DotLanes)
      for (auto contract :
           llvm::make_early_inc_range(body->getOps<vector::ContractionOp>())) {
        if (!isBF16DotStep(contract, bf16DotLanes))
          continue;
        if (!kPairs) {
          rewriteAsBF16Dot(rewriter, contract, bf16DotLanes);
          continue;
        }
        auto read = contract.getRhs().getDefiningOp<vector::TransferReadOp>();
        if (!read || read.getBase() != stepWeights.getResult())
          return contract.emitOpError("expected a read of its k pair");
        Value pairRow =
            panels->readKPairs(rewriter, blockWeights, stepWeights, read);
        rewriteAsBF16Dot(rewriter, contract, bf16DotLanes, pairRow);
        rewriter.eraseOp(read);
        rewriter.eraseOp(stepWeights);
        pairsRead = true;
      }
    // Weights stored as k pairs are readable by bf16 dot blocks only.
    if (kPairs && !pairsRead)
      return step->emitOpError("expected a bf16 dot block for k pairs");
    // Each step's rows come from the block's panel; in a block of the
    // weights' columns as wide as one block, the block starts at its
    // start.
    if (panels && !kPairs && (!panels->columnBlock || onePanelBlock))
      panels->readRows(rewriter,
                       onePanelBlock ? panels->columnBlock : blockWeights,
                       stepWeights);
    // Paired columns are widened now, while the rows read are the ones
    // built here (fusing shared loops clones them).
    // The map is emptied once they are: it is keyed by the reads' values,
    // and a value erased later (fusing shared loops does) may share its
    // address with a read of other weights, whose columns are in order.
    if (panels && panels->weights.layout.pairedLanes) {
      for (auto contract :
           llvm::make_early_inc_range(body->getOps<vector::ContractionOp>()))
        widenContractOperands(rewriter, contract, panels->pairedRows);
      panels->pairedRows.clear();
    }
  }
  if (panels) {
    // A wider block of the weights' columns is read as a panel per block
    // before its loop over k, the steps' rows as rows of it.
    if (panels->columnBlock && !onePanelBlock)
      panels->readRows(rewriter, panels->columnBlock, blockWeights);
    else if (blockWeights->use_empty())
      rewriter.eraseOp(blockWeights);
  }
  for (Operation *fill : fills)
    if (isa<linalg::FillOp>(fill) && failed(vectorizeBlock(rewriter, fill)))
      return failure();
  SmallVector<scf::ForOp> loops;
  for (LoopLikeOpInterface loop :
       llvm::concat<LoopLikeOpInterface>(tiled->loops, stepped->loops))
    if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
      loops.push_back(forOp);
  return loops;
}

/// Columns per block for matmuls that share their loops: every matmul gets
/// the same number of column blocks, as few as keep its accumulators
/// (rows x columns) within its share of a block's, in whole vectors of
/// `vectorLanes`, else in half vectors.
std::optional<SmallVector<int64_t>>
sharedColumnBlocks(ArrayRef<linalg::MatmulOp> group, int64_t accumulators,
                   int64_t vectorLanes) {
  int64_t share = accumulators / static_cast<int64_t>(group.size());
  for (int64_t lanes : {vectorLanes, vectorLanes / 2}) {
    if (lanes < 1)
      continue;
    for (int64_t blocks = 1;; ++blocks) {
      SmallVector<int64_t> widths;
      bool fits = true, possible = false;
      for (linalg::MatmulOp op : group) {
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        int64_t width = ranges[1] / blocks;
        possible |= width >= lanes;
        fits &= ranges[1] % blocks == 0 && width % lanes == 0 &&
                ranges[0] * width <= share;
        widths.push_back(width);
      }
      if (fits)
        return widths;
      if (!possible)
        break;
    }
  }
  return std::nullopt;
}

/// Replaces `pair` by its two products as `linalg.matmul`s, in its place,
/// the first on its block of columns of its weights (a slice at `block x
/// n`, or the weights when they are the block). Adds that slice to
/// `columnBlocks`: it starts at a multiple of its width by construction.
std::array<linalg::MatmulOp, 2>
expandPair(RewriterBase &rewriter, rnn::SharedKMatmulsOp pair,
           llvm::SmallPtrSetImpl<Operation *> &columnBlocks) {
  rewriter.setInsertionPoint(pair);
  Location loc = pair.getLoc();
  auto product = [&](Value lhs, Value rhs, Value acc) {
    return linalg::MatmulOp::create(rewriter, loc, TypeRange{acc.getType()},
                                    ValueRange{lhs, rhs}, ValueRange{acc});
  };
  Value weights = pair.getFirstRhs();
  int64_t width =
      cast<RankedTensorType>(pair.getFirstAcc().getType()).getDimSize(1);
  if (width != cast<RankedTensorType>(weights.getType()).getDimSize(1)) {
    weights = rnn::sliceColumns(
        rewriter, loc, weights,
        rnn::buildBlockColumn(rewriter, loc, pair.getFirstBlock(), width),
        width);
    columnBlocks.insert(weights.getDefiningOp());
  }
  std::array<linalg::MatmulOp, 2> matmuls{
      product(pair.getFirstLhs(), weights, pair.getFirstAcc()),
      product(pair.getSecondLhs(), pair.getSecondRhs(), pair.getSecondAcc())};
  rewriter.replaceOp(pair, {matmuls[0].getResult(0), matmuls[1].getResult(0)});
  return matmuls;
}

/// The sweep order of each matmul that reads weights read again: by another
/// matmul in the same block, or in the next iteration of the loop around it
/// (weights defined outside that loop).
llvm::DenseMap<linalg::MatmulOp, SweepOrder>
sweepOrders(ArrayRef<linalg::MatmulOp> matmuls) {
  llvm::MapVector<std::pair<Block *, Value>, SmallVector<linalg::MatmulOp>>
      groups;
  for (linalg::MatmulOp op : matmuls)
    groups[{op->getBlock(), op.getInputs()[1]}].push_back(op);
  llvm::DenseMap<linalg::MatmulOp, SweepOrder> orders;
  for (auto &[key, group] : groups) {
    auto loop = dyn_cast<scf::ForOp>(key.first->getParentOp());
    bool rereadByLoop =
        loop && !loop->isAncestor(key.second.getParentRegion()->getParentOp());
    if (group.size() < 2 && !rereadByLoop)
      continue;
    llvm::sort(group, [](linalg::MatmulOp a, linalg::MatmulOp b) {
      return a->isBeforeInBlock(b);
    });
    for (auto [index, op] : llvm::enumerate(group))
      orders[op] = {static_cast<int64_t>(index),
                    static_cast<int64_t>(group.size())};
  }
  return orders;
}

struct RNNVectorizeMatmulsPass
    : rnn::impl::RNNVectorizeMatmulsPassBase<RNNVectorizeMatmulsPass> {
  using RNNVectorizeMatmulsPassBase::RNNVectorizeMatmulsPassBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Pairs that share their loop over k become two matmuls, which are
    // tiled alike and then fused loop by loop (column blocks, row blocks,
    // k).
    SmallVector<std::array<linalg::MatmulOp, 2>> pairs;
    llvm::SmallPtrSet<Operation *, 8> alignedBlocks;
    getOperation()->walk([&](rnn::SharedKMatmulsOp pair) {
      pairs.push_back(expandPair(rewriter, pair, alignedBlocks));
    });
    // Shared loops have no bf16 dot block.
    for (std::array<linalg::MatmulOp, 2> &group : pairs)
      for (linalg::MatmulOp &op : group)
        if (rnn::hasBF16Rows(op))
          op = rnn::widenBF16Rows(rewriter, op);
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) {
      auto result = dyn_cast<RankedTensorType>(op.getResultTypes().front());
      if (result && result.hasStaticShape() && rnn::isPlainMatmul(op))
        matmuls.push_back(op);
    });
    llvm::DenseMap<linalg::MatmulOp, SweepOrder> sweeps;
    if (alternateSweeps)
      sweeps = sweepOrders(matmuls);
    auto sweepOf = [&](linalg::MatmulOp op) -> std::optional<SweepOrder> {
      if (auto it = sweeps.find(op); it != sweeps.end())
        return it->second;
      return std::nullopt;
    };
    // Every block is planned before any is built: how the weights are
    // stored follows from the blocks of all their readers.
    llvm::MapVector<linalg::MatmulOp, rnn::BlockPlan> plans;
    SmallVector<std::array<linalg::MatmulOp, 2>> sharedLoops;
    llvm::SmallPtrSet<Operation *, 8> inSharedLoops;
    // Column widths of the weights read by shared loops: other matmuls
    // reading the same weights use them too, so the weights are packed
    // once, for all their readers.
    llvm::DenseMap<Value, int64_t> weightWidths;
    for (std::array<linalg::MatmulOp, 2> &group : pairs) {
      std::optional<SmallVector<int64_t>> widths =
          sharedColumnBlocks(group, tileM * tileN, vectorLanes);
      if (!widths)
        continue;
      sharedLoops.push_back(group);
      for (auto [op, width] : llvm::zip(group, *widths)) {
        inSharedLoops.insert(op);
        weightWidths[sliceRoot(op.getInputs()[1])] = width;
        plans[op] = {op.getStaticLoopRanges()[0], width};
      }
    }
    for (linalg::MatmulOp op : matmuls)
      if (!plans.contains(op))
        plans[op] = planBlocks(op, weightWidths);
    llvm::MapVector<arith::ConstantOp, rnn::PackedWeights> packed;
    for (auto [constant, layout] :
         rnn::decidePanelLayouts(plans, alignedBlocks, pairBF16Lanes)) {
      OpBuilder b(constant);
      auto value = cast<DenseElementsAttr>(constant.getValue());
      packed[constant] = {
          arith::ConstantOp::create(b, constant.getLoc(),
                                    rnn::packWeights(value, layout)),
          layout, value.getType().getDimSize(1)};
    }
    llvm::DenseMap<Value, int64_t> pairedRows;
    llvm::SetVector<Operation *> columnBlocks;
    // Blocks read other constant weights' rows as slices of the constant
    // too, not as slices of a slice.
    llvm::MapVector<arith::ConstantOp, rnn::PackedWeights> unpacked;
    auto readsOnlyByBlocks = [&](Value weights) {
      return llvm::all_of(weights.getUses(), [&](OpOperand &use) {
        auto reader = dyn_cast<linalg::MatmulOp>(use.getOwner());
        return reader && use.getOperandNumber() == 1 &&
               plans.contains(reader) && plans.lookup(reader).vectorized;
      });
    };
    auto panelsOf = [&](linalg::MatmulOp op) -> std::optional<rnn::PanelReads> {
      auto [constant, columnBlock] = rnn::weightsSource(op);
      if (!constant || !isa<DenseElementsAttr>(constant.getValue()))
        return std::nullopt;
      auto it = packed.find(constant);
      if (it == packed.end()) {
        if (columnBlock && !readsOnlyByBlocks(columnBlock.getResult()))
          return std::nullopt;
        it = unpacked.insert({constant, {constant.getResult(), {}, 0}}).first;
      }
      if (columnBlock)
        columnBlocks.insert(columnBlock);
      return rnn::PanelReads{it->second, columnBlock, pairedRows};
    };

    for (std::array<linalg::MatmulOp, 2> &group : sharedLoops) {
      SmallVector<SmallVector<scf::ForOp>> nests;
      for (linalg::MatmulOp op : group) {
        rnn::BlockPlan plan = plans.lookup(op);
        FailureOr<SmallVector<scf::ForOp>> loops =
            vectorizeMatmul(rewriter, op, plan.m, plan.n, sweepOf(op),
                            /*bf16DotLanes=*/0, panelsOf(op));
        if (failed(loops))
          return signalPassFailure();
        nests.push_back(*loops);
      }
      fuseNests(rewriter, nests[0], nests[1]);
    }
    for (linalg::MatmulOp op : matmuls) {
      rnn::BlockPlan plan = plans.lookup(op);
      if (inSharedLoops.contains(op))
        continue;
      std::optional<SweepOrder> sweep = sweepOf(op);
      if (plan.dotLanes)
        narrowRowsAtMatmul(rewriter, op);
      else if (rnn::hasBF16Rows(op))
        op = rnn::widenBF16Rows(rewriter, op);
      if (!plan.vectorized)
        continue;
      if (failed(vectorizeMatmul(rewriter, op, plan.m, plan.n, sweep,
                                 plan.dotLanes, panelsOf(op))))
        return signalPassFailure();
    }
    // What the blocks read the packed weights through is left unread.
    for (Operation *columnBlock : columnBlocks)
      if (columnBlock->use_empty())
        rewriter.eraseOp(columnBlock);
    for (auto &entry : packed)
      if (entry.first->use_empty())
        rewriter.eraseOp(entry.first);
    // Mixed-precision blocks (bf16 weights) come out of the vectorizer as
    // contractions of two element types; widen their narrow factor. Paired
    // columns were widened where their rows were read.
    const llvm::DenseMap<Value, int64_t> noPairs;
    getOperation()->walk([&](vector::ContractionOp contract) {
      widenContractOperands(rewriter, contract, noPairs);
    });
  }

  /// The blocks of `op`, outside shared loops: as many rows as fit, and
  /// columns to keep a block's accumulators, or the width its weights are
  /// read in by shared loops (`weightWidths`).
  rnn::BlockPlan planBlocks(linalg::MatmulOp op,
                       const llvm::DenseMap<Value, int64_t> &weightWidths) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t m = rnn::largestDivisorAtMost(ranges[0], tileM);
    // In a function split into column tasks, blocks divide the tasks'
    // shares, which start at multiples of rnn.column_split.
    int64_t columns = rnn::columnsWithinTasks(op, ranges[1]);
    // Fewer rows than a block holds (small batches): widen the block so
    // it keeps as many independent accumulators.
    int64_t n = rnn::largestDivisorAtMost(columns, tileN);
    int64_t wide = rnn::largestDivisorAtMost(
        columns, tileN * std::max<int64_t>(1, tileM / m));
    // Only whole power-of-two blocks: odd widths (GRU's 3 x 64 columns)
    // measured several times slower.
    if (wide > n && llvm::isPowerOf2_64(wide))
      n = wide;
    if (auto it = weightWidths.find(sliceRoot(op.getInputs()[1]));
        it != weightWidths.end() && ranges[1] % it->second == 0)
      n = it->second;
    // bf16 compute's matmuls on a target with vdpbf16ps: k in pairs, in
    // whole vector registers (vector-lanes f32 columns each). Others
    // compute in f32 (the emulation).
    bool dot = bf16Dot && rnn::hasBF16Rows(op) &&
               getElementTypeOrSelf(op.getInputs()[1].getType()).isBF16() &&
               ranges[2] % 2 == 0 && n % vectorLanes == 0;
    // Narrow blocks would waste most of each vector register.
    return {m, n, dot ? int64_t(vectorLanes) : 0, n >= minBlockColumns};
  }

  /// Fuses two loop nests of the same shape level by level: the outermost
  /// loops, then the two loops each fused body holds, and so on. Stops at
  /// the first level that cannot be fused: the loops stay correct apart.
  static void fuseNests(RewriterBase &rewriter, ArrayRef<scf::ForOp> a,
                        ArrayRef<scf::ForOp> b) {
    if (a.empty() || a.size() != b.size())
      return;
    bool aFirst = a.front()->isBeforeInBlock(b.front());
    FailureOr<scf::ForOp> fused =
        aFirst ? rnn::fuseSiblingLoops(rewriter, a.front(), b.front())
               : rnn::fuseSiblingLoops(rewriter, b.front(), a.front());
    for (size_t depth = 1; succeeded(fused) && depth < a.size(); ++depth) {
      auto inner = llvm::to_vector(fused->getBody()->getOps<scf::ForOp>());
      if (inner.size() != 2)
        return;
      fused = rnn::fuseSiblingLoops(rewriter, inner[0], inner[1]);
    }
  }
};

} // namespace
