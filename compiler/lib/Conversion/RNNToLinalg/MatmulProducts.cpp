//===- MatmulProducts.cpp - The products of cells with matrix kernels -----===//
//
// `gi = x @ wi` and `gh = h @ wh` as linalg.matmul into zeros (batch dims
// folded into one row dim by the caller), on int8 kernels' storage with
// their per-column scales, with dynamic int8 activations, or in bf16
// compute on rows narrowed to bf16 into f32 (the product a bf16 dot
// computes; rnn-widen-bf16-rows makes it the f32 emulation elsewhere). A
// cell with a projected input takes `gi` as its input; `rnn.project` builds
// that product for the rows of all its steps with the same builders. With
// `fuse-projections`, a cell whose every pre-activation is `xi + xh`
// computes `[x, h] @ [wi; wh]` into rows of the bias as one matmul instead.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::rnn;

/// The dense f32 values of `value` when it is an f32 constant.
static std::optional<SmallVector<float>> f32Constant(Value value) {
  auto constant = value ? value.getDefiningOp<arith::ConstantOp>() : nullptr;
  auto attr =
      constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
  if (!attr || !attr.getElementType().isF32())
    return std::nullopt;
  return SmallVector<float>(attr.getValues<float>());
}

/// `[x, h] @ [wi; wh]` into rows of the bias (the sum of the present
/// biases): the pre-activations summed in one matmul, so scalar register
/// blocks start from the bias and add both products in their accumulators
/// (rnn-block-matmuls reads the broadcast bias once per column). Summing
/// the biases at compile time rounds as the accumulator did when they were
/// rows of the kernel times a column of ones. Null unless every weight is an
/// f32 constant and the operands' row (I + H, and a column per bias when it
/// was one) is no wider than the G*H columns of the second product it
/// replaces: the scratch memory does not grow.
static Value emitFusedProjections(PatternRewriter &rewriter, Location loc,
                                  Value x, Value h, Value wi, Value wh,
                                  Value bi, Value bh) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto hType = cast<RankedTensorType>(h.getType());
  auto whType = cast<RankedTensorType>(wh.getType());
  auto wiValues = f32Constant(wi), whValues = f32Constant(wh);
  if (!wiValues || !whValues || !xType.getElementType().isF32() ||
      !hType.getElementType().isF32() || !xType.hasStaticShape() ||
      !hType.hasStaticShape() || !whType.hasStaticShape())
    return {};
  int64_t rows = xType.getDimSize(0), inputs = xType.getDimSize(1);
  int64_t features = hType.getDimSize(1), columns = whType.getDimSize(1);
  SmallVector<float> bias;
  int64_t biasCount = 0;
  for (Value b : {bi, bh}) {
    if (!b)
      continue;
    auto values = f32Constant(b);
    if (!values || static_cast<int64_t>(values->size()) != columns)
      return {};
    if (bias.empty())
      bias = std::move(*values);
    else
      for (auto [sum, value] : llvm::zip_equal(bias, *values))
        sum += value;
    ++biasCount;
  }
  int64_t depth = inputs + features;
  if (biasCount + depth > columns)
    return {};

  SmallVector<float> kernel;
  kernel.reserve(depth * columns);
  llvm::append_range(kernel, *wiValues);
  llvm::append_range(kernel, *whValues);
  Type f32 = rewriter.getF32Type();
  Value stacked = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(RankedTensorType::get({depth, columns}, f32),
                             ArrayRef<float>(kernel)));

  Value operands =
      tensor::EmptyOp::create(rewriter, loc, {rows, depth}, f32);
  auto insert = [&](Value part, int64_t column, int64_t width) {
    SmallVector<OpFoldResult> offsets{rewriter.getIndexAttr(0),
                                      rewriter.getIndexAttr(column)};
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(rows),
                                    rewriter.getIndexAttr(width)};
    SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
    operands = tensor::InsertSliceOp::create(rewriter, loc, part, operands,
                                             offsets, sizes, strides);
  };
  insert(x, 0, inputs);
  insert(h, inputs, features);
  if (bias.empty())
    return emitMatmul(rewriter, loc, operands, stacked);
  Value biasRow = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(RankedTensorType::get({columns}, f32),
                             ArrayRef<float>(bias)));
  Value empty = tensor::EmptyOp::create(rewriter, loc, {rows, columns}, f32);
  Value init = linalg::BroadcastOp::create(rewriter, loc, biasRow, empty,
                                           ArrayRef<int64_t>{0})
                   ->getResult(0);
  return linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                  ValueRange{operands, stacked},
                                  ValueRange{init})
      .getResult(0);
}

namespace {

/// The matmul of an rnn.project_piece: its rows of the input, the kernel's
/// storage (read in its block of columns from `column`), and the
/// zero-filled block of the ring it is computed in (so that the ring is
/// updated in place).
struct PieceOperands {
  Value rows, kernel, init;
  OpFoldResult column;
};

PieceOperands emitPieceOperands(OpBuilder &b, ProjectPieceOp piece) {
  Location loc = piece.getLoc();
  auto inputType = cast<RankedTensorType>(piece.getInput().getType());
  Value kernel = kernelStorage(b, loc, piece.getKernel());
  int64_t rows = piece.getRows(), width = piece.getWidth();
  int64_t depth = inputType.getDimSize(1);
  Type element = inputType.getElementType();
  OpFoldResult column = buildBlockColumn(b, loc, piece.getBlock(), width);
  SmallVector<OpFoldResult> unit(2, b.getIndexAttr(1));
  Value inputRows = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({rows, depth}, element), piece.getInput(),
      ArrayRef<OpFoldResult>{getAsOpFoldResult(piece.getFirst()),
                             b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(depth)},
      unit);
  Value target = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({rows, width}, element), piece.getRing(),
      ArrayRef<OpFoldResult>{getAsOpFoldResult(piece.getRingRow()), column},
      ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(width)},
      unit);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  Value init = linalg::FillOp::create(b, loc, zero, target).getResult(0);
  return {inputRows, kernel, init, column};
}

/// The ring of `piece` with its block `product` written in.
Value emitPieceInsert(OpBuilder &b, ProjectPieceOp piece,
                      const PieceOperands &operands, Value product) {
  SmallVector<OpFoldResult> unit(2, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(
      b, piece.getLoc(), product, piece.getRing(),
      ArrayRef<OpFoldResult>{getAsOpFoldResult(piece.getRingRow()),
                             operands.column},
      ArrayRef<OpFoldResult>{b.getIndexAttr(piece.getRows()),
                             b.getIndexAttr(piece.getWidth())},
      unit);
}

/// `h @ wh` into zeros and `piece` in one rnn.shared_k_matmuls (they have
/// one depth: the piece's verifier), the piece's weights as its block of
/// the kernel; `piece` is replaced by its ring.
Value emitBesidePiece(PatternRewriter &rewriter, Location loc,
                      ProjectPieceOp piece, Value h, Value wh) {
  auto hType = cast<RankedTensorType>(h.getType());
  auto whType = cast<RankedTensorType>(wh.getType());
  Value acc =
      zeroTensor(rewriter, loc, {hType.getDimSize(0), whType.getDimSize(1)},
                 hType.getElementType());
  PieceOperands operands = emitPieceOperands(rewriter, piece);
  auto pair =
      SharedKMatmulsOp::create(rewriter, loc, operands.rows, operands.kernel,
                               piece.getBlock(), operands.init, h, wh, acc);
  rewriter.replaceOp(
      piece, emitPieceInsert(rewriter, piece, operands, pair.getFirst()));
  return pair.getSecond();
}

} // namespace

GateProducts mlir::rnn::emitMatmulProducts(PatternRewriter &rewriter,
                                           Location loc, CellOpInterface cell,
                                           Value x, Value h, bool fuse,
                                           bool integerRowMaxima,
                                           ProjectPieceOp piece) {
  CellPrecision precision = cell.getPrecision();
  bool projected = cell.hasProjectedInput();
  Value wi = cell.getInputKernel(), wh = cell.getHiddenKernel();
  Value bi = cell.getInputBias(), bh = cell.getHiddenBias();
  int64_t numGates = cell.getNumGates();
  if (precision.bf16Compute) {
    // promote_dtype: both Dense inputs rounded to bf16 (a projected input
    // is its Dense's rounded output already).
    if (!projected)
      x = emitNarrowTensorToBF16(rewriter, loc, x);
    h = emitNarrowTensorToBF16(rewriter, loc, h);
  }
  if (fuse && !projected && !precision.bf16Compute && !precision.dynamicInt8) {
    if (Value sum = emitFusedProjections(rewriter, loc, x, h, wi, wh, bi, bh))
      return {sum, Value(), Value(), Value(), numGates};
  }
  // Int8 kernels: f32 activations times i8 weights, summed in f32
  // (linalg.matmul widens its operands to the accumulator's type).
  auto [wiStorage, si] = splitInt8Kernel(rewriter, loc, wi);
  auto [whStorage, sh] = splitInt8Kernel(rewriter, loc, wh);
  Type sums = precision.bf16Compute ? rewriter.getF32Type() : Type();
  // Dynamic int8: the i32 sums, converted by the gate generic with their
  // rows' scales (`rowScales`).
  auto matmul = [&](Value lhs, Value rhs, Value &rowScales) {
    if (!precision.dynamicInt8)
      return emitMatmul(rewriter, loc, lhs, rhs, sums);
    DynamicInt8Sums product =
        emitDynamicInt8Sums(rewriter, loc, lhs, rhs, integerRowMaxima);
    rowScales = product.rowScales;
    return product.sums;
  };
  // A projected input is `x @ wi` already (f32, rnn.project's), before any
  // column scales.
  Value ri, rh;
  Value xi = projected ? x : matmul(x, wiStorage, ri);
  Value xh = piece ? emitBesidePiece(rewriter, loc, piece, h, whStorage)
                   : matmul(h, whStorage, rh);
  return {xi,
          xh,
          bi,
          bh,
          numGates,
          si,
          sh,
          precision.bf16Compute,
          projected && precision.bf16Compute,
          ri,
          rh};
}

namespace {

/// rnn.project: its rows (every dim but the last folded into one) times the
/// kernel, built as a cell's own input product is, so the IR is the same
/// whether a step's product was computed in the step or with its
/// sequence's. bf16 compute's rows are narrowed to bf16 and its sums
/// rounded where the gate maths rounded them in the step.
struct ProjectLowering : OpRewritePattern<ProjectOp> {
  ProjectLowering(MLIRContext *ctx, bool integerRowMaxima,
                  bool dequantizeGeneric)
      : OpRewritePattern(ctx), integerRowMaxima(integerRowMaxima),
        dequantizeGeneric(dequantizeGeneric) {}
  /// convert-rnn-to-linalg's `integer-row-maxima` and `dequantize-generic`.
  bool integerRowMaxima;
  bool dequantizeGeneric;

  LogicalResult matchAndRewrite(ProjectOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult().getType());
    int64_t rowDims = type.getRank() - 1;
    // Dynamic int8 quantizes the rows where they are, and folds them after:
    // the steps a loop projects may be a strided slice of the input, which
    // folding first would copy. (bf16 compute narrows the folded rows: the
    // C path fuses that into the matmul, and has no bf16 buffer to write.)
    Value kernel = kernelStorage(rewriter, loc, op.getKernel());
    Value product;
    if (op.getDynamicInt8()) {
      product = emitDynamicInt8Matmul(rewriter, loc, op.getInput(), kernel,
                                      integerRowMaxima, dequantizeGeneric);
    } else {
      Value rows = collapseBatchDims(rewriter, loc, op.getInput(), rowDims);
      product =
          op.getComputeType()
              ? emitRoundTensorToBF16(
                    rewriter, loc,
                    emitMatmul(rewriter, loc,
                               emitNarrowTensorToBF16(rewriter, loc, rows),
                               kernel, rewriter.getF32Type()))
              : emitMatmul(rewriter, loc, rows, kernel);
    }
    rewriter.replaceOp(op,
                       restoreBatchDims(rewriter, loc, product, type, rowDims));
    return success();
  }
};

/// rnn.project_piece on its own (the first group of an overlapped scan):
/// its matmul into its block of the ring. A piece `beside` a cell is
/// lowered with the cell's recurrent product (emitMatmulProducts).
struct ProjectPieceLowering : OpRewritePattern<ProjectPieceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ProjectPieceOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getBeside())
      return rewriter.notifyMatchFailure(
          op, "expected no 'beside' (lowered with its cell)");
    Location loc = op.getLoc();
    PieceOperands operands = emitPieceOperands(rewriter, op);
    Value weights = operands.kernel;
    int64_t width = op.getWidth();
    if (width != cast<RankedTensorType>(weights.getType()).getDimSize(1))
      weights = sliceColumns(rewriter, loc, weights, operands.column, width);
    Value product = linalg::MatmulOp::create(rewriter, loc,
                                             TypeRange{operands.init.getType()},
                                             ValueRange{operands.rows, weights},
                                             ValueRange{operands.init})
                        .getResult(0);
    rewriter.replaceOp(op, emitPieceInsert(rewriter, op, operands, product));
    return success();
  }
};

} // namespace

void mlir::rnn::populateProjectPatterns(RewritePatternSet &patterns,
                                        bool integerRowMaxima,
                                        bool dequantizeGeneric) {
  patterns.add<ProjectLowering>(patterns.getContext(), integerRowMaxima,
                                dequantizeGeneric);
  patterns.add<ProjectPieceLowering>(patterns.getContext());
}
