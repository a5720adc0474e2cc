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

/// `into` ([rows..., ...]) with `row(index, into)` applied for the index of
/// each row in turn: one scf.for per row dim, threading `into`.
Value forEachRow(OpBuilder &b, Location loc, ArrayRef<int64_t> rowShape,
                 Value into,
                 function_ref<Value(OpBuilder &, Location, ArrayRef<Value>,
                                    Value)>
                     row) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // The loops over the row dims from `index.size()` on.
  SmallVector<Value> index;
  std::function<Value(OpBuilder &, Location, Value)> loops =
      [&](OpBuilder &ob, Location ol, Value into) -> Value {
    Value end = arith::ConstantIndexOp::create(ob, ol, rowShape[index.size()]);
    return scf::ForOp::create(
               ob, ol, zero, end, one, ValueRange{into},
               [&](OpBuilder &nb, Location l, Value i, ValueRange iterArgs) {
                 index.push_back(i);
                 Value result = index.size() < rowShape.size()
                                    ? loops(nb, l, iterArgs.front())
                                    : row(nb, l, index, iterArgs.front());
                 index.pop_back();
                 scf::YieldOp::create(nb, l, result);
               })
        .getResult(0);
  };
  return loops(b, loc, into);
}

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
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, b.getContext());
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
  return forEachRow(b, loc, shape.drop_back(),
                    tensor::EmptyOp::create(b, loc, shape, element), mapRow);
}

/// max_k |x_ik| per row of `lhs` ([rows..., K]), each row's in a loop that
/// keeps the maximum in a register: as a reduction into memory (a linalg
/// reduction's loops), LLVM could not keep it in one when the rows and the
/// maxima are in the same workspace, and wrote every step. With `bits`, the
/// magnitudes are compared as the integers of their bits and the result is
/// those bits (i32): a float's magnitude orders as its bits do, NaNs above
/// infinity, so the maximum is the same, and the integer loop vectorizes
/// (vpandd, vpmaxud) where a NaN-propagating float maximum is a compare and
/// a blend on one chain that LLVM leaves scalar. Without: floats, which
/// C compilers and scalar FPUs take as they are.
Value emitRowMaxima(OpBuilder &b, Location loc, Value lhs, bool bits) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  ArrayRef<int64_t> rows = lhsType.getShape().drop_back();
  int64_t depth = lhsType.getShape().back();
  Type element = bits ? Type(b.getI32Type()) : Type(b.getF32Type());
  Value empty = tensor::EmptyOp::create(b, loc, rows, element);
  auto maximumOfRow = [&](OpBuilder &nb, Location l, ArrayRef<Value> index,
                          Value into) -> Value {
    Value initial = arith::ConstantOp::create(
        nb, l, cast<TypedAttr>(nb.getZeroAttr(element)));
    Value begin = arith::ConstantIndexOp::create(nb, l, 0);
    Value end = arith::ConstantIndexOp::create(nb, l, depth);
    Value step = arith::ConstantIndexOp::create(nb, l, 1);
    auto loop = scf::ForOp::create(
        nb, l, begin, end, step, ValueRange{initial},
        [&](OpBuilder &kb, Location kl, Value k, ValueRange iterArgs) {
          SmallVector<Value> at(index.begin(), index.end());
          at.push_back(k);
          Value x = tensor::ExtractOp::create(kb, kl, lhs, at);
          Value max;
          if (bits) {
            Value magnitude = arith::AndIOp::create(
                kb, kl, arith::BitcastOp::create(kb, kl, element, x),
                arith::ConstantOp::create(kb, kl,
                                          kb.getI32IntegerAttr(0x7fffffff)));
            max = arith::MaxSIOp::create(kb, kl, iterArgs[0], magnitude);
          } else {
            max = arith::MaximumFOp::create(kb, kl, iterArgs[0],
                                            math::AbsFOp::create(kb, kl, x));
          }
          scf::YieldOp::create(kb, kl, max);
        });
    return tensor::InsertOp::create(nb, l, loop.getResult(0), into, index);
  };
  return forEachRow(b, loc, rows, empty, maximumOfRow);
}

} // namespace

mlir::rnn::DynamicInt8Sums
mlir::rnn::emitDynamicInt8Sums(OpBuilder &b, Location loc, Value lhs,
                               Value rhs, bool integerRowMaxima) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  SmallVector<int64_t> rowShape(lhsType.getShape().drop_back());
  int64_t rowDims = rowShape.size(), depth = lhsType.getShape().back();
  int64_t rows = ShapedType::getNumElements(rowShape);
  int64_t columns = cast<RankedTensorType>(rhs.getType()).getDimSize(1);
  Type f32 = b.getF32Type(), i8 = b.getI8Type(), i32 = b.getI32Type();
  AffineMap perRow = AffineMap::getMultiDimIdentityMap(rowDims, b.getContext());

  // max_k |x_ik| per row (or its bits).
  Value maxima = emitRowMaxima(b, loc, lhs, integerRowMaxima);

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
        Value max = args[0];
        if (max.getType() != f32)
          max = arith::BitcastOp::create(nb, l, f32, max);
        Value q = floatConstant(nb, l, f32, 127.0);
        Value zero = floatConstant(nb, l, f32, 0.0);
        Value scale = arith::DivFOp::create(nb, l, max, q);
        Value positive = arith::CmpFOp::create(
            nb, l, arith::CmpFPredicate::OGT, max, zero);
        Value factor = arith::SelectOp::create(
            nb, l, positive, arith::DivFOp::create(nb, l, q, max), zero);
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
  Value acc = rnn::zeroTensor(b, loc, {rows, columns}, i32);
  Value sums = linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                        ValueRange{quantized, rhs},
                                        ValueRange{acc})
                   .getResult(0);

  return {sums, rowScales};
}

Value mlir::rnn::emitDynamicInt8Matmul(OpBuilder &b, Location loc, Value lhs,
                                       Value rhs, bool integerRowMaxima,
                                       bool asGeneric) {
  auto [sums, rowScales] =
      emitDynamicInt8Sums(b, loc, lhs, rhs, integerRowMaxima);
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
