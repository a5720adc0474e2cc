//===- Merge.cpp - rnn.merge to tensor inserts or a linalg.generic --------===//
//
// `concat` writes both operands into one tensor.empty with two
// tensor.insert_slice ops. tensor.concat also bufferizes in MLIR 22 (to the
// same alloc plus two copies), but insert_slice is a subset insertion that
// `eliminate-empty-tensors` understands: once the merged tensor.empty is
// hoisted above the producers of `lhs` and `rhs`, they write straight into
// the merged buffer.
//
// `add`, `mul` and `mean` are one element-wise linalg.generic. `mean` is
// `(lhs + rhs) * 0.5`: `s * 0.5` and `s / 2` are the same real number
// rounded once, so they are bit-identical for every `s` (subnormals, inf and
// NaN included), and the multiplication is cheaper.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::rnn;

/// `lhs` then `rhs` on the last dim.
static Value emitConcat(OpBuilder &b, Location loc, Value lhs, Value rhs,
                        RankedTensorType resultType) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = resultType.getRank();
  Value result = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                         resultType.getElementType());
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  auto sizesOf = [&](RankedTensorType type) {
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : type.getShape())
      sizes.push_back(b.getIndexAttr(size));
    return sizes;
  };
  result = tensor::InsertSliceOp::create(b, loc, lhs, result, offsets,
                                         sizesOf(lhsType), strides);
  offsets.back() = b.getIndexAttr(lhsType.getShape().back());
  return tensor::InsertSliceOp::create(b, loc, rhs, result, offsets,
                                       sizesOf(rhsType), strides);
}

/// `kind` applied element-wise to `lhs` and `rhs` (of one type).
static Value emitElementwise(OpBuilder &b, Location loc, Merge kind, Value lhs,
                             Value rhs) {
  auto type = cast<RankedTensorType>(lhs.getType());
  int64_t rank = type.getRank();
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<AffineMap> maps(3, identity);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{lhs, rhs}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result;
        switch (kind) {
        case Merge::add:
          result = arith::AddFOp::create(nb, nloc, args[0], args[1]);
          break;
        case Merge::mul:
          result = arith::MulFOp::create(nb, nloc, args[0], args[1]);
          break;
        case Merge::mean: {
          Value sum = arith::AddFOp::create(nb, nloc, args[0], args[1]);
          Value half = floatConstant(nb, nloc, sum.getType(), 0.5);
          result = arith::MulFOp::create(nb, nloc, sum, half);
          break;
        }
        case Merge::concat:
          llvm_unreachable("concat is not element-wise");
        }
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

namespace {

struct MergeLowering : OpRewritePattern<MergeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MergeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value result = op.getKind() == Merge::concat
                       ? emitConcat(rewriter, loc, op.getLhs(), op.getRhs(),
                                    op.getResult().getType())
                       : emitElementwise(rewriter, loc, op.getKind(),
                                         op.getLhs(), op.getRhs());
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::rnn::populateMergePatterns(RewritePatternSet &patterns) {
  patterns.add<MergeLowering>(patterns.getContext());
}
