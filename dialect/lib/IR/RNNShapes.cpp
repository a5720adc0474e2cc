//===- RNNShapes.cpp - Shape helpers --------------------------------------===//

#include "rnn/IR/RNNShapes.h"

using namespace mlir;

std::string mlir::rnn::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    if (i)
      text += 'x';
    text += ShapedType::isDynamic(dim) ? std::string("?")
                                       : std::to_string(dim);
  }
  return text;
}

SmallVector<int64_t> mlir::rnn::dropAxis(ArrayRef<int64_t> shape,
                                         int64_t axis) {
  SmallVector<int64_t> result(shape);
  result.erase(result.begin() + axis);
  return result;
}

SmallVector<int64_t> mlir::rnn::insertAxis(ArrayRef<int64_t> shape,
                                           int64_t axis, int64_t size) {
  SmallVector<int64_t> result(shape);
  result.insert(result.begin() + axis, size);
  return result;
}

RankedTensorType mlir::rnn::stackSteps(Type step, int64_t axis,
                                        int64_t steps) {
  auto stepType = cast<RankedTensorType>(step);
  return RankedTensorType::get(insertAxis(stepType.getShape(), axis, steps),
                               stepType.getElementType());
}
