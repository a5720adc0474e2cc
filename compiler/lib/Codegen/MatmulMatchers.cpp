//===- MatmulMatchers.cpp - Which matmuls the codegen passes handle -------===//

#include "MatmulMatchers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

bool rnn::isPlainMatmul(linalg::MatmulOp op) {
  return op.getIndexingMapsArray() ==
         op.getDefaultIndexingMaps(op.getContext());
}

bool rnn::isPlainMatmulFromZero(linalg::MatmulOp op) {
  if (!op.hasPureTensorSemantics() || !isPlainMatmul(op))
    return false;
  auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}
