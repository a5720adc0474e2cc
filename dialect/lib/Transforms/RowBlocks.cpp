//===- RowBlocks.cpp - Work on a run-time number of rows ------------------===//

#include "rnn/Transforms/RowBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

SmallVector<Value> mlir::rnn::buildRowBlocks(OpBuilder &b, Location loc,
                                             Value rows, int64_t maxRows,
                                             ValueRange init,
                                             RowBlockBody body) {
  int64_t largest = 1;
  while (largest * 2 <= maxRows)
    largest *= 2;
  // The digits are taken on i64: EmitC has no bitwise ops on index.
  Type i64 = b.getI64Type();
  Value actual = arith::IndexCastUIOp::create(b, loc, i64, rows);
  Value first = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> carried(init);
  for (int64_t size = largest; size >= 1; size /= 2) {
    // `rows & size` is `size` when that digit is set, else 0.
    Value digit = arith::IndexCastUIOp::create(
        b, loc, b.getIndexType(),
        arith::AndIOp::create(
            b, loc, actual,
            arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(size))));
    Value last = arith::AddIOp::create(b, loc, first, digit);
    Value stride = arith::ConstantIndexOp::create(b, loc, size);
    auto loop = scf::ForOp::create(
        b, loc, first, last, stride, carried,
        [&](OpBuilder &nb, Location, Value row, ValueRange args) {
          scf::YieldOp::create(nb, loc, body(nb, row, size, args));
        });
    carried.assign(loop.getResults().begin(), loop.getResults().end());
    first = last;
  }
  return carried;
}

namespace {
struct Slice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

Slice axisSlice(OpBuilder &b, RankedTensorType type, int64_t axis, Value first,
                int64_t count) {
  Slice s;
  for (auto [d, size] : llvm::enumerate(type.getShape())) {
    bool along = int64_t(d) == axis;
    s.offsets.push_back(along ? OpFoldResult(first) : b.getIndexAttr(0));
    s.sizes.push_back(b.getIndexAttr(along ? count : size));
    s.strides.push_back(b.getIndexAttr(1));
  }
  return s;
}
} // namespace

Value mlir::rnn::extractRows(OpBuilder &b, Location loc, Value full,
                             int64_t axis, Value first, int64_t count) {
  Slice s = axisSlice(b, cast<RankedTensorType>(full.getType()), axis, first,
                      count);
  return tensor::ExtractSliceOp::create(b, loc, full, s.offsets, s.sizes,
                                        s.strides);
}

Value mlir::rnn::insertRows(OpBuilder &b, Location loc, Value part, Value full,
                            int64_t axis, Value first) {
  auto type = cast<RankedTensorType>(part.getType());
  Slice s = axisSlice(b, type, axis, first, type.getDimSize(axis));
  return tensor::InsertSliceOp::create(b, loc, part, full, s.offsets, s.sizes,
                                       s.strides);
}
