//===- ConvLSTMCell.cpp - rnn.conv_lstm_cell to linalg convolutions -------===//
//
// Batch dims folded into one, then per kernel a SAME-padded (low (k-1)/2,
// high k/2), stride-1 channels-last cross-correlation into zeros
// (linalg.conv_{1d_nwc_wcf,2d_nhwc_hwcf,3d_ndhwc_dhwcf}), then one
// linalg.generic with Flax's ConvLSTM maths on the gate blocks [i, g, f, o]:
//
//   new_c = sigmoid(y_f + 1) * c + sigmoid(y_i) * tanh(y_g)
//   new_h = sigmoid(y_o) * tanh(new_c)
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rnn;

/// SAME, stride-1 cross-correlation of `value` (N, *spatial, C) with
/// `kernel` (*k, C, F') into zeros (N, *spatial, F').
static Value emitSameConv(OpBuilder &b, Location loc, Value value,
                          Value kernel) {
  auto type = cast<RankedTensorType>(value.getType());
  auto kernelType = cast<RankedTensorType>(kernel.getType());
  int64_t spatial = kernelType.getRank() - 2;
  Type elementType = type.getElementType();

  SmallVector<OpFoldResult> low{b.getIndexAttr(0)}, high{b.getIndexAttr(0)};
  SmallVector<int64_t> paddedShape{type.getDimSize(0)};
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t k = kernelType.getDimSize(d);
    low.push_back(b.getIndexAttr((k - 1) / 2));
    high.push_back(b.getIndexAttr(k / 2));
    paddedShape.push_back(type.getDimSize(1 + d) + k - 1);
  }
  low.push_back(b.getIndexAttr(0));
  high.push_back(b.getIndexAttr(0));
  paddedShape.push_back(type.getShape().back());
  Value padded = tensor::PadOp::create(
      b, loc, RankedTensorType::get(paddedShape, elementType), value, low, high,
      floatConstant(b, loc, elementType, 0.0));

  SmallVector<int64_t> resultShape(type.getShape().drop_back());
  resultShape.push_back(kernelType.getShape().back());
  Value acc = zeroTensor(b, loc, resultShape, elementType);
  auto ones = DenseIntElementsAttr::get(
      RankedTensorType::get({spatial}, b.getI64Type()), int64_t{1});
  SmallVector<Type> resultTypes{acc.getType()};
  SmallVector<Value> inputs{padded, kernel}, outputs{acc};
  switch (spatial) {
  case 1:
    return linalg::Conv1DNwcWcfOp::create(b, loc, resultTypes, inputs, outputs,
                                          /*strides=*/ones, /*dilations=*/ones)
        .getResult(0);
  case 2:
    return linalg::Conv2DNhwcHwcfOp::create(b, loc, resultTypes, inputs,
                                            outputs, ones, ones)
        .getResult(0);
  case 3:
    return linalg::Conv3DNdhwcDhwcfOp::create(b, loc, resultTypes, inputs,
                                              outputs, ones, ones)
        .getResult(0);
  }
  llvm_unreachable("checked by hasNamedConvolution");
}

namespace {

struct ConvLSTMCellLowering : OpRewritePattern<ConvLSTMCellOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvLSTMCellOp op,
                                PatternRewriter &rewriter) const override {
    int64_t spatial = op.getNumSpatialDims();
    if (!hasNamedConvolution(spatial))
      return rewriter.notifyMatchFailure(
          op, "expected 1, 2 or 3 spatial dims (a named linalg convolution)");

    Location loc = op.getLoc();
    auto carryType = cast<RankedTensorType>(op.getH().getType());
    int64_t numBatchDims = carryType.getRank() - 1 - spatial;
    Value x = collapseBatchDims(rewriter, loc, op.getInput(), numBatchDims);
    Value c = collapseBatchDims(rewriter, loc, op.getC(), numBatchDims);
    Value h = collapseBatchDims(rewriter, loc, op.getH(), numBatchDims);
    GateProducts products{emitSameConv(rewriter, loc, x, op.getWi()),
                          emitSameConv(rewriter, loc, h, op.getWh()),
                          op.getBi(), op.getBh(), ConvLSTMCellOp::kNumGates};

    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, products, {c, h}, /*numResults=*/2,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          auto y = [&](int k) -> Value {
            return arith::AddFOp::create(b, l, xi[k], xh[k]);
          };
          Value i = emitSigmoid(b, l, y(0));
          Value g = math::TanhOp::create(b, l, y(1));
          Value one = floatConstant(b, l, carry[0].getType(), 1.0);
          Value f = emitSigmoid(b, l, arith::AddFOp::create(b, l, y(2), one));
          Value o = emitSigmoid(b, l, y(3));
          Value newC = arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, f, carry[0]),
              arith::MulFOp::create(b, l, i, g));
          Value newH =
              arith::MulFOp::create(b, l, o, math::TanhOp::create(b, l, newC));
          return {newC, newH};
        });

    SmallVector<Value> restored;
    for (Value result : results)
      restored.push_back(
          restoreBatchDims(rewriter, loc, result, carryType, numBatchDims));
    rewriter.replaceOp(op, restored);
    return success();
  }
};

} // namespace

void mlir::rnn::populateConvLSTMCellPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvLSTMCellLowering>(patterns.getContext());
}
