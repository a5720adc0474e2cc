//===- WeightPanels.cpp - Constant weights stored as blocks read them -----===//

#include "WeightPanels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// The column of a panel row stored at `position` when each 2L-column group
/// is paired (`lanes` = L; 0: unpaired): positions 2c and 2c + 1 of a
/// group hold its columns c and c + L.
int64_t storedColumn(int64_t position, int64_t lanes) {
  if (!lanes)
    return position;
  int64_t group = position / (2 * lanes), within = position % (2 * lanes);
  return group * 2 * lanes + within / 2 + (within % 2) * lanes;
}

/// `value` [K, N] with its elements moved into `shape`: `gather` calls its
/// argument with each run (first element, count) of `value`'s elements in
/// their new order. Elements are whole bytes (f32, bf16 or i8 weights):
/// they move as raw bytes, which stays fast for the largest weights.
DenseElementsAttr
reorderElements(DenseElementsAttr value, ArrayRef<int64_t> shape,
                function_ref<void(function_ref<void(int64_t, int64_t)>)>
                    gather) {
  auto type = cast<RankedTensorType>(value.getType());
  auto packedType = RankedTensorType::get(shape, type.getElementType());
  if (value.isSplat())
    return value.resizeSplat(packedType);
  size_t bytes = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> raw = value.getRawData();
  SmallVector<char> packed;
  packed.reserve(raw.size());
  gather([&](int64_t first, int64_t count) {
    llvm::append_range(packed, raw.slice(first * bytes, count * bytes));
  });
  return DenseElementsAttr::getFromRawBuffer(packedType, packed);
}

/// `value` [K, N] reordered to [N / n, K, n], each row's columns paired
/// for `lanes` (see storedColumn).
DenseElementsAttr packPanels(DenseElementsAttr value, int64_t width,
                             int64_t lanes) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  return reorderElements(value, {cols / width, rows, width}, [&](auto run) {
    for (int64_t panel = 0; panel < cols / width; ++panel)
      for (int64_t row = 0; row < rows; ++row) {
        int64_t first = row * cols + panel * width;
        if (!lanes) {
          run(first, width);
          continue;
        }
        for (int64_t position = 0; position < width; ++position)
          run(first + storedColumn(position, lanes), 1);
      }
  });
}

/// `value` [K, N] (K even) reordered to [N / n, K / 2, 2n]: row k2 of a
/// panel holds rows 2 k2 and 2 k2 + 1 interleaved, w[2 k2 + r, j] at 2j + r.
DenseElementsAttr packKPairs(DenseElementsAttr value, int64_t width) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  return reorderElements(
      value, {cols / width, rows / 2, 2 * width}, [&](auto run) {
        for (int64_t panel = 0; panel < cols / width; ++panel)
          for (int64_t row = 0; row < rows; row += 2)
            for (int64_t j = 0; j < width; ++j)
              for (int64_t r = 0; r < 2; ++r)
                run((row + r) * cols + panel * width + j, 1);
      });
}

/// `offset / divisor`, for an offset that is a multiple of `divisor`.
OpFoldResult divide(OpBuilder &b, Location loc, OpFoldResult offset,
                    int64_t divisor) {
  if (std::optional<int64_t> constant = getConstantIntValue(offset))
    return b.getIndexAttr(*constant / divisor);
  return arith::DivUIOp::create(b, loc, cast<Value>(offset),
                                arith::ConstantIndexOp::create(b, loc, divisor))
      .getResult();
}

/// Rows [row, row + rows) of the block of `width` columns from `column` (a
/// multiple of `width`) of `packed` ([N / n, K, n]): `%packed[column / n,
/// row, 0] [1, rows, n]`, of type `type` ([rows, n]).
tensor::ExtractSliceOp readPanelRows(OpBuilder &b, Location loc, Value packed,
                                     OpFoldResult column, OpFoldResult row,
                                     int64_t width, RankedTensorType type) {
  SmallVector<OpFoldResult> offsets{divide(b, loc, column, width), row,
                                    b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                  b.getIndexAttr(type.getDimSize(0)),
                                  b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, type, packed, offsets, sizes,
                                        strides);
}

/// Rows `row` and `row + 1` (`row` even) of the block of `width` columns
/// from `column` of `packed` stored as k pairs: one row of 2 x `width`
/// values, each column's two weights side by side.
tensor::ExtractSliceOp readKPairRow(OpBuilder &b, Location loc, Value packed,
                                    OpFoldResult column, OpFoldResult row,
                                    int64_t width) {
  Type element = cast<RankedTensorType>(packed.getType()).getElementType();
  auto rowType = RankedTensorType::get({1, 2 * width}, element);
  // Listed in order: the panel's index is built before the pair's.
  SmallVector<OpFoldResult> offsets{divide(b, loc, column, width),
                                    divide(b, loc, row, 2), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(1),
                                  b.getIndexAttr(2 * width)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, rowType, packed, offsets,
                                        sizes, strides);
}

/// `x + y`, folded when either is a constant.
OpFoldResult add(OpBuilder &b, Location loc, OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x);
  std::optional<int64_t> cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx + *cy);
  if (cx == 0)
    return y;
  if (cy == 0)
    return x;
  return arith::AddIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, x),
                               getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

} // namespace

DenseElementsAttr rnn::packWeights(DenseElementsAttr weights,
                                   const PanelLayout &layout) {
  if (layout.kPairs)
    return packKPairs(weights, layout.width);
  return packPanels(weights, layout.width, layout.pairedLanes);
}

/// Its 32-bit words shifted left by 16 are the f32 columns c of each group,
/// its words with the low half cleared the columns c + L; a shuffle puts
/// the halves in column order, which is free where each half of a group is
/// one vector register (L lanes).
Value rnn::widenPairedColumns(OpBuilder &b, Location loc, Value read,
                              int64_t lanes) {
  auto type = cast<VectorType>(read.getType());
  int64_t count = type.getNumElements();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto words = VectorType::get({count / 2}, i32);
  Value flat = vector::ShapeCastOp::create(
      b, loc, VectorType::get({count}, type.getElementType()), read);
  Value bits = vector::BitCastOp::create(b, loc, words, flat);
  auto splat = [&](uint32_t value) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(words, APInt(32, value)));
  };
  auto floats = words.clone(f32);
  Value low = arith::BitcastOp::create(
      b, loc, floats, arith::ShLIOp::create(b, loc, bits, splat(16)));
  Value high = arith::BitcastOp::create(
      b, loc, floats, arith::AndIOp::create(b, loc, bits, splat(0xFFFF0000u)));
  SmallVector<int64_t> order;
  for (int64_t column = 0; column < count; ++column) {
    int64_t group = column / (2 * lanes), within = column % (2 * lanes);
    order.push_back(within < lanes ? group * lanes + within
                                   : count / 2 + group * lanes + within - lanes);
  }
  Value columns = vector::ShuffleOp::create(b, loc, low, high, order);
  return vector::ShapeCastOp::create(b, loc, type.clone(f32), columns);
}


rnn::WeightsSource rnn::weightsSource(linalg::MatmulOp op) {
  Value weights = op.getInputs()[1];
  auto columnBlock = weights.getDefiningOp<tensor::ExtractSliceOp>();
  if (columnBlock)
    weights = columnBlock.getSource();
  return {weights.getDefiningOp<arith::ConstantOp>(), columnBlock};
}

llvm::MapVector<arith::ConstantOp, rnn::PanelLayout> rnn::decidePanelLayouts(
    const llvm::MapVector<linalg::MatmulOp, BlockPlan> &plans,
    const llvm::SmallPtrSetImpl<Operation *> &alignedBlocks,
    int64_t pairBF16Lanes) {
  // The constants planned blocks read, in the order of their readers.
  llvm::SetVector<Operation *> constants;
  for (const auto &entry : plans)
    if (entry.second.vectorized)
      if (arith::ConstantOp constant = weightsSource(entry.first).constant)
        constants.insert(constant);
  auto planOf = [&](OpOperand &use) -> std::optional<BlockPlan> {
    auto op = dyn_cast<linalg::MatmulOp>(use.getOwner());
    if (!op || use.getOperandNumber() != 1)
      return std::nullopt;
    auto it = plans.find(op);
    if (it == plans.end() || !it->second.vectorized)
      return std::nullopt;
    return it->second;
  };
  llvm::MapVector<arith::ConstantOp, PanelLayout> layouts;
  for (Operation *op : constants) {
    auto constant = cast<arith::ConstantOp>(op);
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    // A splat needs no order (and its slices fold to constants).
    if (!value || value.isSplat() || type.getRank() != 2 ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0)
      continue;
    // The blocks that read the constant, and the blocks of its columns
    // they read it through.
    SmallVector<BlockPlan> readers;
    SmallVector<tensor::ExtractSliceOp> columnBlocks;
    bool readable = true;
    for (OpOperand &use : constant->getUses()) {
      if (std::optional<BlockPlan> plan = planOf(use)) {
        readers.push_back(*plan);
        continue;
      }
      // A block of columns at an offset the IR says is aligned.
      auto block = dyn_cast<tensor::ExtractSliceOp>(use.getOwner());
      readable &= block && alignedBlocks.contains(block);
      if (!readable)
        break;
      columnBlocks.push_back(block);
      for (OpOperand &blockUse : block->getUses()) {
        std::optional<BlockPlan> plan = planOf(blockUse);
        readable &= plan.has_value();
        if (plan)
          readers.push_back(*plan);
      }
    }
    if (!readable || readers.empty())
      continue;
    int64_t width = readers.front().n;
    auto isDot = [](const BlockPlan &plan) { return plan.dotLanes != 0; };
    if (type.getDimSize(1) % width != 0 ||
        !llvm::all_of(readers,
                      [&](const BlockPlan &plan) { return plan.n == width; }) ||
        !llvm::all_of(columnBlocks, [&](tensor::ExtractSliceOp block) {
          return block.getType().getDimSize(1) % width == 0;
        }))
      continue;
    PanelLayout layout{width};
    layout.kPairs = columnBlocks.empty() && type.getDimSize(0) % 2 == 0 &&
                    llvm::all_of(readers, isDot);
    // A panel as wide as the matrix is the matrix.
    if (!layout.kPairs && width == type.getDimSize(1))
      continue;
    // Paired only where every step reads its rows straight from the packed
    // weights: a block of columns wider than one register block is read
    // through its panel and keeps its columns in order.
    bool widenedWhole =
        llvm::none_of(readers, isDot) &&
        llvm::all_of(columnBlocks, [&](tensor::ExtractSliceOp block) {
          return block.getType().getDimSize(1) == width;
        });
    if (!layout.kPairs && widenedWhole && pairBF16Lanes > 0 &&
        width % (2 * pairBF16Lanes) == 0 && type.getElementType().isBF16())
      layout.pairedLanes = pairBF16Lanes;
    layouts[constant] = layout;
  }
  return layouts;
}

/// The column of the weights `slice` (rows of `block`, itself a slice of the
/// matmul's weights) starts at, and its row.
static std::pair<OpFoldResult, OpFoldResult>
position(OpBuilder &b, const rnn::PackedWeights &weights,
         tensor::ExtractSliceOp block, tensor::ExtractSliceOp slice) {
  Location loc = slice.getLoc();
  OpFoldResult row =
      add(b, loc, block.getMixedOffsets()[0], slice.getMixedOffsets()[0]);
  // One panel of columns: the tiler's loop over them runs once, from 0.
  if (weights.layout.width && weights.layout.width == weights.columns)
    return {b.getIndexAttr(0), row};
  return {add(b, loc, block.getMixedOffsets()[1], slice.getMixedOffsets()[1]),
          row};
}

void rnn::PanelReads::readRows(RewriterBase &rewriter,
                               tensor::ExtractSliceOp block,
                               tensor::ExtractSliceOp slice) const {
  rewriter.setInsertionPoint(slice);
  auto [column, row] = position(rewriter, weights, block, slice);
  if (!weights.layout.width) {
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        slice, slice.getType(), weights.packed,
        ArrayRef<OpFoldResult>{row, column}, slice.getMixedSizes(),
        slice.getMixedStrides());
    return;
  }
  tensor::ExtractSliceOp rows =
      readPanelRows(rewriter, slice.getLoc(), weights.packed, column, row,
                    weights.layout.width, slice.getType());
  if (weights.layout.pairedLanes)
    pairedRows[rows.getResult()] = weights.layout.pairedLanes;
  rewriter.replaceOp(slice, rows.getResult());
}

Value rnn::PanelReads::readKPairs(RewriterBase &rewriter,
                                  tensor::ExtractSliceOp block,
                                  tensor::ExtractSliceOp slice,
                                  vector::TransferReadOp read) const {
  rewriter.setInsertionPoint(slice);
  auto [column, row] = position(rewriter, weights, block, slice);
  int64_t width = weights.layout.width;
  tensor::ExtractSliceOp pairs = readKPairRow(rewriter, slice.getLoc(),
                                              weights.packed, column, row,
                                              width);
  rewriter.setInsertionPoint(read);
  return vector::TransferReadOp::create(
      rewriter, read.getLoc(),
      VectorType::get({1, 2 * width}, read.getVectorType().getElementType()),
      pairs.getResult(), read.getIndices(), read.getPadding(),
      ArrayRef<bool>{true, true});
}
