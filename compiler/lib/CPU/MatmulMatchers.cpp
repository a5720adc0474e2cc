//===- MatmulMatchers.cpp - Which matmuls the codegen passes handle -------===//

#include "MatmulMatchers.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <algorithm>
#include <numeric>

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

Value rnn::mapElementwise(
    OpBuilder &b, Location loc, Value source, Type element,
    function_ref<Value(OpBuilder &, Location, Value)> body) {
  auto type = cast<RankedTensorType>(source.getType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), element);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{source},
             ValueRange{init}, ArrayRef<AffineMap>{identity, identity},
             parallel,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, body(nb, nloc, args[0]));
             })
      .getResult(0);
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

int64_t mlir::rnn::columnsWithinTasks(linalg::MatmulOp op, int64_t columns) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  auto split = func ? func->getAttrOfType<IntegerAttr>(kColumnSplitAttrName)
                    : IntegerAttr();
  return split ? std::gcd(columns, split.getInt()) : columns;
}

bool rnn::isMultipleOf(OpFoldResult offset, int64_t width) {
  if (std::optional<int64_t> constant = getConstantIntValue(offset))
    return *constant % width == 0;
  Value value = cast<Value>(offset);
  if (auto iv = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp());
    if (!loop || loop.getInductionVar() != iv)
      return false;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    return lower && step && *lower % width == 0 && *step % width == 0;
  }
  Operation *def = value.getDefiningOp();
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return isMultipleOf(def->getOperand(0), width) &&
           isMultipleOf(def->getOperand(1), width);
  if (isa<arith::MulIOp>(def))
    return isMultipleOf(def->getOperand(0), width) ||
           isMultipleOf(def->getOperand(1), width);
  if (auto select = dyn_cast<arith::SelectOp>(def))
    return isMultipleOf(select.getTrueValue(), width) &&
           isMultipleOf(select.getFalseValue(), width);
  return false;
}
