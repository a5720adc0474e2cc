//===- DynamicInt8.cpp - Matmuls on activations quantized per row ---------===//
//
// `quantize: {weights: int8, activations: dynamic}` (docs/Semantics.md
// #dynamic-int8-activations): each row of the left operand gets its own
// symmetric scale at every step, and the matmul sums int8 products in int32.
// Written as plain linalg (a row reduction, a quantizing map, an i8 x i8 ->
// i32 linalg.matmul) so any path can run it; the LLVM path's
// rnn-int8-matmuls turns the matmul into vpdpbusd or vpmaddwd. A cell's
// products stop at the integer sums and their rows' scales: its gate generic
// converts each sum where it reads it, so no f32 copy of the sums is written
// and read again every step. rnn.project (whose result is f32) ends with a
// dequantizing map.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>

using namespace mlir;

namespace {

/// A new tensor of `element`s shaped as the [rows..., N] `matrices`, each
/// `body(values, scalars)` of the elements at its place in `matrices` and
/// its row's elements of the [rows...] tensors `perRow`. One loop per row
/// dim; the innermost reads each row's scalars once, as values the
/// element-wise loop over the row then uses. (As one generic over all dims,
/// they were loads in the loop over columns, beside the stores into the
/// same workspace, which kept LLVM from vectorizing that loop: it could not
/// rule out that a store changed them.) Rows of several dims are read where
/// they are: a slice of steps of a batch-major input is not contiguous, and
/// folding its dims first would copy it.
Value mapRows(OpBuilder &b, Location loc, ValueRange matrices,
              ValueRange perRow, Type element,
              function_ref<Value(OpBuilder &, Location, ValueRange,
                                 ValueRange)>
                  body) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(matrices.front().getType()).getShape();
  int64_t rowDims = shape.size() - 1, columns = shape.back();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // The row at `index` of `into`, mapped.
  auto mapRow = [&](OpBuilder &nb, Location l, ArrayRef<Value> index,
                    Value into) -> Value {
    SmallVector<OpFoldResult> offsets(index.begin(), index.end());
    offsets.push_back(nb.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes(rowDims, nb.getIndexAttr(1));
    sizes.push_back(nb.getIndexAttr(columns));
    SmallVector<OpFoldResult> strides(rowDims + 1, nb.getIndexAttr(1));
    auto rowOf = [&](Value matrix) -> Value {
      auto type = RankedTensorType::get(
          {columns}, getElementTypeOrSelf(matrix.getType()));
      return tensor::ExtractSliceOp::create(nb, l, type, matrix, offsets,
                                            sizes, strides);
    };
    SmallVector<Value> scalars, inputs;
    for (Value vector : perRow)
      scalars.push_back(tensor::ExtractOp::create(nb, l, vector, index));
    for (Value matrix : matrices)
      inputs.push_back(rowOf(matrix));
    Value out = rowOf(into);
    SmallVector<AffineMap> maps(inputs.size() + 1, identity);
    Value mapped =
        linalg::GenericOp::create(
            nb, l, TypeRange{out.getType()}, inputs, ValueRange{out}, maps,
            SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
            [&](OpBuilder &bb, Location bl, ValueRange args) {
              linalg::YieldOp::create(
                  bb, bl, body(bb, bl, args.drop_back(), scalars));
            })
            .getResult(0);
    return tensor::InsertSliceOp::create(nb, l, mapped, into, offsets, sizes,
                                         strides);
  };
  // The loops over the row dims from `index.size()` on, into `into`.
  SmallVector<Value> index;
  std::function<Value(OpBuilder &, Location, Value)> loops =
      [&](OpBuilder &ob, Location ol, Value into) -> Value {
    Value end = arith::ConstantIndexOp::create(ob, ol, shape[index.size()]);
    return scf::ForOp::create(
               ob, ol, zero, end, one, ValueRange{into},
               [&](OpBuilder &nb, Location l, Value i, ValueRange iterArgs) {
                 index.push_back(i);
                 Value result = int64_t(index.size()) < rowDims
                                    ? loops(nb, l, iterArgs.front())
                                    : mapRow(nb, l, index, iterArgs.front());
                 index.pop_back();
                 scf::YieldOp::create(nb, l, result);
               })
        .getResult(0);
  };
  return loops(b, loc, tensor::EmptyOp::create(b, loc, shape, element));
}

/// max_k |x_ik| per row of `lhs` ([rows..., K]). With `lanes` > 1 dividing
/// K: the maxima of the row's elements `lanes` apart first (an element-wise
/// loop over the lanes, which vectorizes), then the maximum of those; the
/// same value either way, maxima being exact and NaN-propagating.
Value emitRowMaxima(OpBuilder &b, Location loc, Value lhs, int64_t lanes) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  SmallVector<int64_t> rows(lhsType.getShape().drop_back());
  int64_t rowDims = rows.size(), depth = lhsType.getShape().back();
  Type f32 = b.getF32Type();
  MLIRContext *ctx = b.getContext();
  using utils::IteratorType;
  // The row dims, then `inner` more dims; the map to the row dims and the
  // inner dims in `kept`.
  auto map = [&](unsigned inner, ArrayRef<unsigned> kept) {
    SmallVector<AffineExpr> exprs;
    for (int64_t dim = 0; dim < rowDims; ++dim)
      exprs.push_back(getAffineDimExpr(dim, ctx));
    for (unsigned position : kept)
      exprs.push_back(getAffineDimExpr(rowDims + position, ctx));
    return AffineMap::get(rowDims + inner, 0, exprs, ctx);
  };
  auto iterators = [&](ArrayRef<IteratorType> inner) {
    SmallVector<IteratorType> all(rowDims, IteratorType::parallel);
    llvm::append_range(all, inner);
    return all;
  };
  auto shapeOf = [&](ArrayRef<int64_t> inner) {
    SmallVector<int64_t> shape(rows);
    llvm::append_range(shape, inner);
    return shape;
  };
  // The maximum over the last dim of a [rows..., X] tensor, of the
  // magnitudes (`absolute`) or of the values.
  auto maxBody = [](bool absolute) {
    return [absolute](OpBuilder &nb, Location l, ValueRange args) {
      Value value = absolute ? Value(math::AbsFOp::create(nb, l, args[0]))
                             : args[0];
      linalg::YieldOp::create(
          nb, l, Value(arith::MaximumFOp::create(nb, l, args[1], value)));
    };
  };
  auto rowMaxima = [&](Value input, bool absolute) -> Value {
    return linalg::GenericOp::create(
               b, loc, TypeRange{RankedTensorType::get(rows, f32)},
               ValueRange{input},
               ValueRange{rnn::zeroTensor(b, loc, rows, f32)},
               ArrayRef<AffineMap>{map(1, {0}), map(1, {})},
               iterators({IteratorType::reduction}), maxBody(absolute))
        .getResult(0);
  };
  if (lanes <= 1 || depth % lanes != 0 || depth == lanes)
    return rowMaxima(lhs, /*absolute=*/true);
  // [rows..., K / lanes, lanes] -> [rows..., lanes] -> [rows...].
  SmallVector<ReassociationIndices> groups;
  for (int64_t dim = 0; dim < rowDims; ++dim)
    groups.push_back({dim});
  groups.push_back({rowDims, rowDims + 1});
  Value grouped = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shapeOf({depth / lanes, lanes}), f32),
      lhs, groups);
  SmallVector<int64_t> partialShape = shapeOf({lanes});
  Value partial =
      linalg::GenericOp::create(
          b, loc, TypeRange{RankedTensorType::get(partialShape, f32)},
          ValueRange{grouped},
          ValueRange{rnn::zeroTensor(b, loc, partialShape, f32)},
          ArrayRef<AffineMap>{map(2, {0, 1}), map(2, {1})},
          iterators({IteratorType::reduction, IteratorType::parallel}),
          maxBody(/*absolute=*/true))
          .getResult(0);
  return rowMaxima(partial, /*absolute=*/false);
}

} // namespace

mlir::rnn::DynamicInt8Sums
mlir::rnn::emitDynamicInt8Sums(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, int64_t reductionLanes) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  SmallVector<int64_t> rowShape(lhsType.getShape().drop_back());
  int64_t rowDims = rowShape.size(), depth = lhsType.getShape().back();
  int64_t rows = ShapedType::getNumElements(rowShape);
  int64_t columns = cast<RankedTensorType>(rhs.getType()).getDimSize(1);
  Type f32 = b.getF32Type(), i8 = b.getI8Type(), i32 = b.getI32Type();
  AffineMap perRow = AffineMap::getMultiDimIdentityMap(rowDims, b.getContext());

  // max_k |x_ik| per row.
  Value maxima = emitRowMaxima(b, loc, lhs, reductionLanes);

  // Per row: the scale max / 127 and the factor 127 / max that quantizes
  // (0 for a zero row, whose values all quantize to 0).
  auto rowType = RankedTensorType::get(rowShape, f32);
  auto scales = linalg::GenericOp::create(
      b, loc, TypeRange{rowType, rowType}, ValueRange{maxima},
      ValueRange{tensor::EmptyOp::create(b, loc, rowShape, f32),
                 tensor::EmptyOp::create(b, loc, rowShape, f32)},
      ArrayRef<AffineMap>{perRow, perRow, perRow},
      SmallVector<utils::IteratorType>(rowDims, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value q = floatConstant(nb, l, f32, 127.0);
        Value zero = floatConstant(nb, l, f32, 0.0);
        Value scale = arith::DivFOp::create(nb, l, args[0], q);
        Value positive = arith::CmpFOp::create(
            nb, l, arith::CmpFPredicate::OGT, args[0], zero);
        Value factor = arith::SelectOp::create(
            nb, l, positive, arith::DivFOp::create(nb, l, q, args[0]), zero);
        linalg::YieldOp::create(nb, l, ValueRange{scale, factor});
      });
  Value rowScales = scales.getResult(0), factors = scales.getResult(1);

  // q_ik = clamp(rne(x_ik * factor_i), -127, 127), as i8.
  Value quantized = mapRows(
      b, loc, lhs, factors, i8,
      [&](OpBuilder &nb, Location l, ValueRange x, ValueRange factor) {
        Value scaled = math::RoundEvenOp::create(
            nb, l, arith::MulFOp::create(nb, l, x[0], factor[0]));
        Value clamped = arith::MinimumFOp::create(
            nb, l,
            arith::MaximumFOp::create(nb, l, scaled,
                                      floatConstant(nb, l, f32, -127.0)),
            floatConstant(nb, l, f32, 127.0));
        return Value(arith::FPToSIOp::create(nb, l, i8, clamped));
      });
  // The matmul's M rows: the row dims folded, free now that the quantized
  // rows are a new, contiguous tensor.
  if (rowDims > 1) {
    ReassociationIndices folded =
        llvm::to_vector(llvm::seq<int64_t>(0, rowDims));
    quantized = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({rows, depth}, i8), quantized,
        ArrayRef<ReassociationIndices>{folded, {rowDims}});
    rowScales = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({rows}, f32), rowScales,
        ArrayRef<ReassociationIndices>{folded});
  }

  // sum_k q_ik w_kj in int32 (exact: |sum| <= K * 127^2).
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value acc = linalg::FillOp::create(
                  b, loc, zero,
                  ValueRange{tensor::EmptyOp::create(b, loc, {rows, columns},
                                                     i32)})
                  .getResult(0);
  Value sums = linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                        ValueRange{quantized, rhs},
                                        ValueRange{acc})
                   .getResult(0);

  return {sums, rowScales};
}

Value mlir::rnn::emitDynamicInt8Matmul(OpBuilder &b, Location loc, Value lhs,
                                       Value rhs, int64_t reductionLanes,
                                       bool asGeneric) {
  auto [sums, rowScales] = emitDynamicInt8Sums(b, loc, lhs, rhs, reductionLanes);
  // float(sum_ij) * scale_i (emitDequantizedSum); the gate maths then
  // multiplies by the column's scale, as for weight-only int8.
  if (!asGeneric)
    return mapRows(b, loc, sums, rowScales, b.getF32Type(),
                   [](OpBuilder &nb, Location l, ValueRange sum,
                      ValueRange scale) {
                     return emitDequantizedSum(nb, l, sum[0], scale[0]);
                   });
  auto sumsType = cast<RankedTensorType>(sums.getType());
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap row = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
  return linalg::GenericOp::create(
             b, loc, TypeRange{sumsType.clone(b.getF32Type())},
             ValueRange{sums, rowScales},
             ValueRange{tensor::EmptyOp::create(b, loc, sumsType.getShape(),
                                                b.getF32Type())},
             ArrayRef<AffineMap>{identity, row, identity},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, emitDequantizedSum(nb, l, args[0], args[1]));
             })
      .getResult(0);
}

Value mlir::rnn::emitDequantizedSum(OpBuilder &b, Location loc, Value sum,
                                    Value rowScale) {
  Value converted = arith::SIToFPOp::create(b, loc, rowScale.getType(), sum);
  return arith::MulFOp::create(b, loc, converted, rowScale);
}
