//===- ConvolutionProducts.cpp - The products of convolutional cells ------===//
//
// Per kernel a SAME-padded (low (k-1)/2, high k/2), stride-1 channels-last
// cross-correlation into zeros (linalg.conv_{1d_nwc_wcf,2d_nhwc_hwcf,
// 3d_ndhwc_dhwcf}) of the input or h, batch dims folded into one by the
// caller.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

GateProducts mlir::rnn::emitConvolutionProducts(OpBuilder &b, Location loc,
                                                CellOpInterface cell, Value x,
                                                Value h) {
  return {emitSameConv(b, loc, x, cell.getInputKernel()),
          emitSameConv(b, loc, h, cell.getHiddenKernel()), cell.getInputBias(),
          cell.getHiddenBias(), cell.getNumGates()};
}
