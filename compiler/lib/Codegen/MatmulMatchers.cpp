//===- MatmulMatchers.cpp - Which matmuls the codegen passes handle -------===//

#include "MatmulMatchers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

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

linalg::MatmulOp rnn::createMatmulFromZero(OpBuilder &b, Location loc,
                                           Value lhs, Value rhs, Value dest) {
  Value zero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(getElementTypeOrSelf(dest.getType())));
  Value init = linalg::FillOp::create(b, loc, zero, dest).getResult(0);
  return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{init});
}

int64_t mlir::rnn::largestDivisorAtMost(int64_t size, int64_t limit) {
  for (int64_t d = std::min(size, limit); d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}
