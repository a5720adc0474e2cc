//===- PackWeightPanels.cpp - Constant matrices stored panel by panel -----===//
//
// A register-blocked matmul reads its right-hand side one row of an n-wide
// column panel per step of k: n contiguous floats, then a jump of a whole
// row. With a large N each step touches a new page, and the panel's rows
// are scattered over the matrix. Weights are constants, so the compiler can
// store them in the order the kernel reads them.
//
//===----------------------------------------------------------------------===//

#include "MatmulMatchers.h"
#include "rnn/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNPACKWEIGHTPANELSPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// The panel width if every use of `constant` reads rows of an aligned
/// panel (`[k, j] [r, n] [1, 1]` with j a multiple of n dividing N; n may
/// be N).
std::optional<int64_t> panelWidth(arith::ConstantOp constant) {
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0 || constant->use_empty())
    return std::nullopt;
  std::optional<int64_t> width;
  for (Operation *user : constant->getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !slice.hasUnitStride() || slice.getType().getRank() != 2)
      return std::nullopt;
    ArrayRef<int64_t> sizes = slice.getStaticSizes();
    if (ShapedType::isDynamicShape(sizes))
      return std::nullopt;
    if (width && *width != sizes[1])
      return std::nullopt;
    width = sizes[1];
    if (type.getDimSize(1) % *width != 0 ||
        !rnn::isMultipleOf(slice.getMixedOffsets()[1], *width))
      return std::nullopt;
  }
  return width;
}

/// True if `user` (a user of `slice`) is a transfer of the whole slice (no
/// mask, no padding read).
bool isWholeRead(tensor::ExtractSliceOp slice, Operation *user) {
  auto read = dyn_cast<vector::TransferReadOp>(user);
  return read && !read.getMask() &&
         read.getVectorType().getShape() == slice.getType().getShape() &&
         read.getPermutationMap().isMinorIdentity() &&
         llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }) &&
         llvm::all_of(read.getIndices(), [](Value index) {
           return getConstantIntValue(index) == 0;
         });
}

/// True if every read of `slice` is a transfer of the whole slice whose
/// every use widens it to f32.
bool isOnlyWidenedWhole(tensor::ExtractSliceOp slice) {
  return llvm::all_of(slice->getUsers(), [&](Operation *user) {
    return isWholeRead(slice, user) &&
           llvm::all_of(user->getUsers(), [](Operation *widen) {
             auto extf = dyn_cast<arith::ExtFOp>(widen);
             return extf && getElementTypeOrSelf(extf.getType()).isF32();
           });
  });
}

/// True if `shuffle` interleaves the two halves of its operand (both
/// operands the same n + n values): (v[0], v[n], v[1], v[n + 1], ...).
bool isInterleave(vector::ShuffleOp shuffle, int64_t n) {
  ArrayRef<int64_t> mask = shuffle.getMask();
  if (shuffle.getV1() != shuffle.getV2() ||
      static_cast<int64_t>(mask.size()) != 2 * n)
    return false;
  for (int64_t j = 0; j < n; ++j)
    if (mask[2 * j] != j || mask[2 * j + 1] != n + j)
      return false;
  return true;
}

/// True if every read of `slice` (two rows of n columns at an even k) is
/// a transfer of the whole slice, flattened, whose every use interleaves
/// its two rows into (k, k + 1) pairs: rnn-vectorize-matmuls' bf16 dot
/// blocks.
bool isOnlyInterleavedWhole(tensor::ExtractSliceOp slice) {
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  if (sizes[0] != 2 || !rnn::isMultipleOf(slice.getMixedOffsets()[0], 2))
    return false;
  int64_t n = sizes[1];
  return llvm::all_of(slice->getUsers(), [&](Operation *user) {
    return isWholeRead(slice, user) &&
           llvm::all_of(user->getUsers(), [&](Operation *flat) {
             auto cast = dyn_cast<vector::ShapeCastOp>(flat);
             return cast && cast.getResultVectorType().getRank() == 1 &&
                    llvm::all_of(cast->getUsers(), [&](Operation *op) {
                      auto shuffle = dyn_cast<vector::ShuffleOp>(op);
                      return shuffle && isInterleave(shuffle, n);
                    });
           });
  });
}

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
/// their new order. Elements are whole bytes (f32 or bf16 weights): they
/// move as raw bytes, which stays fast for the largest weights.
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

/// The f32 widening of `read`, a read of paired bf16 rows (`lanes` = L):
/// its 32-bit words shifted left by 16 are the f32 columns c of each group,
/// its words with the low half cleared the columns c + L; a shuffle puts
/// the halves in column order, which is free where each half of a group is
/// one vector register (L lanes).
Value widenPairs(OpBuilder &b, Location loc, Value read, int64_t lanes) {
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

/// Reads through a slice of `constant` that is only sliced further (a
/// block of columns of the weights, then its panels) become slices of
/// `constant` itself, so that their panels are seen.
void readThroughSlices(arith::ConstantOp constant) {
  for (Operation *user : llvm::make_early_inc_range(constant->getUsers())) {
    auto outer = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!outer || !outer.hasUnitStride() ||
        outer.getType().getRank() != outer.getSourceType().getRank() ||
        !llvm::all_of(outer->getUsers(), [](Operation *op) {
          auto inner = dyn_cast<tensor::ExtractSliceOp>(op);
          return inner && inner.hasUnitStride();
        }))
      continue;
    for (Operation *op : llvm::make_early_inc_range(outer->getUsers())) {
      auto inner = cast<tensor::ExtractSliceOp>(op);
      OpBuilder b(inner);
      SmallVector<OpFoldResult> offsets;
      for (auto [x, y] :
           llvm::zip(outer.getMixedOffsets(), inner.getMixedOffsets()))
        offsets.push_back(add(b, inner.getLoc(), x, y));
      auto direct = tensor::ExtractSliceOp::create(
          b, inner.getLoc(), inner.getType(), constant.getResult(), offsets,
          inner.getMixedSizes(), inner.getMixedStrides());
      inner.replaceAllUsesWith(direct.getResult());
      inner.erase();
    }
    outer.erase();
  }
}

struct RNNPackWeightPanelsPass
    : rnn::impl::RNNPackWeightPanelsPassBase<RNNPackWeightPanelsPass> {
  using RNNPackWeightPanelsPassBase::RNNPackWeightPanelsPassBase;

  void runOnOperation() override {
    // Collected first: reading through slices erases ops the walk has not
    // visited yet.
    SmallVector<arith::ConstantOp> constants;
    getOperation()->walk([&](arith::ConstantOp constant) {
      if (isa<DenseElementsAttr>(constant.getValue()))
        constants.push_back(constant);
    });
    SmallVector<std::pair<arith::ConstantOp, int64_t>> candidates;
    for (arith::ConstantOp constant : constants) {
      readThroughSlices(constant);
      if (std::optional<int64_t> width = panelWidth(constant))
        candidates.emplace_back(constant, *width);
    }
    for (auto [constant, width] : candidates) {
      // Rows read as interleaved k pairs are stored so, even in a single
      // panel: the reads then need no shuffle.
      auto type = cast<RankedTensorType>(constant.getType());
      if (type.getDimSize(0) % 2 == 0 &&
          llvm::all_of(constant->getUsers(), [](Operation *user) {
            return isOnlyInterleavedWhole(cast<tensor::ExtractSliceOp>(user));
          })) {
        packAsKPairs(constant, width);
        continue;
      }
      // A panel as wide as the matrix is the matrix.
      if (width == type.getDimSize(1))
        continue;
      int64_t lanes = pairedLanes(constant, width);
      OpBuilder b(constant);
      auto packed = arith::ConstantOp::create(
          b, constant.getLoc(),
          packPanels(cast<DenseElementsAttr>(constant.getValue()), width,
                     lanes));
      for (Operation *user : llvm::make_early_inc_range(constant->getUsers())) {
        tensor::ExtractSliceOp row =
            rewriteSlice(cast<tensor::ExtractSliceOp>(user), packed, width);
        if (lanes)
          widenReads(row, lanes);
      }
      constant.erase();
    }
  }

  /// The lanes to pair `constant`'s panels of `width` columns for (0: not
  /// paired): bf16 only, whole groups, every read widened whole.
  int64_t pairedLanes(arith::ConstantOp constant, int64_t width) {
    if (pairBF16Lanes <= 0 || width % (2 * pairBF16Lanes) != 0 ||
        !cast<RankedTensorType>(constant.getType()).getElementType().isBF16())
      return 0;
    bool widened = llvm::all_of(constant->getUsers(), [](Operation *user) {
      return isOnlyWidenedWhole(cast<tensor::ExtractSliceOp>(user));
    });
    return widened ? pairBF16Lanes : 0;
  }

  /// Stores `constant` as k pairs (packKPairs) and reads each pair of its
  /// rows as one row of 2n: `%w[k, j] [2, n]` -> `%packed[j / n, k / 2, 0]
  /// [1, 1, 2n]`, whose flattened read is the interleave of the two rows.
  static void packAsKPairs(arith::ConstantOp constant, int64_t width) {
    OpBuilder b(constant);
    auto packed = arith::ConstantOp::create(
        b, constant.getLoc(),
        packKPairs(cast<DenseElementsAttr>(constant.getValue()), width));
    Type element = cast<RankedTensorType>(constant.getType()).getElementType();
    for (Operation *user : llvm::make_early_inc_range(constant->getUsers())) {
      auto slice = cast<tensor::ExtractSliceOp>(user);
      b.setInsertionPoint(slice);
      Location loc = slice.getLoc();
      SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
      auto half = [&](OpFoldResult offset, int64_t divisor) -> OpFoldResult {
        if (std::optional<int64_t> constant = getConstantIntValue(offset))
          return b.getIndexAttr(*constant / divisor);
        return arith::DivUIOp::create(
                   b, loc, cast<Value>(offset),
                   arith::ConstantIndexOp::create(b, loc, divisor))
            .getResult();
      };
      auto rowType = RankedTensorType::get({1, 2 * width}, element);
      SmallVector<OpFoldResult> packedOffsets{half(offsets[1], width),
                                              half(offsets[0], 2),
                                              b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(1),
                                      b.getIndexAttr(2 * width)};
      SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
      auto row = tensor::ExtractSliceOp::create(b, loc, rowType, packed,
                                                packedOffsets, sizes, strides);
      for (Operation *readOp : llvm::make_early_inc_range(slice->getUsers())) {
        auto read = cast<vector::TransferReadOp>(readOp);
        b.setInsertionPoint(read);
        auto pairRead = vector::TransferReadOp::create(
            b, read.getLoc(), VectorType::get({1, 2 * width}, element), row,
            read.getIndices(), read.getPadding(),
            ArrayRef<bool>{true, true});
        for (Operation *flatOp : llvm::make_early_inc_range(read->getUsers())) {
          auto flat = cast<vector::ShapeCastOp>(flatOp);
          b.setInsertionPoint(flat);
          Value pairs = vector::ShapeCastOp::create(
              b, flat.getLoc(), flat.getResultVectorType(), pairRead);
          // Each shuffle uses the flat rows twice: visit it once.
          llvm::SetVector<Operation *> shuffles(flat->user_begin(),
                                                flat->user_end());
          for (Operation *shuffle : shuffles) {
            shuffle->replaceAllUsesWith(ValueRange{pairs});
            shuffle->erase();
          }
          flat.erase();
        }
        read.erase();
      }
      slice.erase();
    }
    constant.erase();
  }

  /// Replaces each widening of a read of `row` (paired) by widenPairs.
  static void widenReads(tensor::ExtractSliceOp row, int64_t lanes) {
    for (Operation *user : row->getUsers())
      for (Operation *widen : llvm::make_early_inc_range(user->getUsers())) {
        OpBuilder b(widen);
        widen->replaceAllUsesWith(ValueRange{
            widenPairs(b, widen->getLoc(), user->getResult(0), lanes)});
        widen->erase();
      }
  }

  /// `%w[k, j] [r, n]` -> `%packed[j / n, k, 0] [1, r, n]`, the same rows
  /// of the same panel.
  static tensor::ExtractSliceOp
  rewriteSlice(tensor::ExtractSliceOp slice, Value packed, int64_t width) {
    OpBuilder b(slice);
    Location loc = slice.getLoc();
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    OpFoldResult panel;
    if (std::optional<int64_t> col = getConstantIntValue(offsets[1])) {
      panel = b.getIndexAttr(*col / width);
    } else {
      Value divisor = arith::ConstantIndexOp::create(b, loc, width);
      panel = arith::DivUIOp::create(b, loc, cast<Value>(offsets[1]), divisor)
                  .getResult();
    }
    SmallVector<OpFoldResult> packedOffsets{panel, offsets[0],
                                            b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                    b.getIndexAttr(slice.getStaticSizes()[0]),
                                    b.getIndexAttr(width)};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    auto row = tensor::ExtractSliceOp::create(b, loc, slice.getType(), packed,
                                              packedOffsets, sizes, strides);
    slice.replaceAllUsesWith(row.getResult());
    slice.erase();
    return row;
  }
};

} // namespace
