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
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

mlir::rnn::DynamicInt8Sums mlir::rnn::emitDynamicInt8Sums(OpBuilder &b, Location loc,
                                               Value lhs, Value rhs) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t rows = lhsType.getDimSize(0), depth = lhsType.getDimSize(1);
  int64_t columns = cast<RankedTensorType>(rhs.getType()).getDimSize(1);
  Type f32 = b.getF32Type(), i8 = b.getI8Type(), i32 = b.getI32Type();
  MLIRContext *ctx = b.getContext();
  AffineMap matrix = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap perRow = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
  AffineMap vector = AffineMap::getMultiDimIdentityMap(1, ctx);
  auto parallel = [](unsigned n) {
    return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
  };

  // max_k |x_ik| per row.
  Value maxima = linalg::GenericOp::create(
                     b, loc, TypeRange{RankedTensorType::get({rows}, f32)},
                     ValueRange{lhs},
                     ValueRange{zeroTensor(b, loc, {rows}, f32)},
                     ArrayRef<AffineMap>{matrix, perRow},
                     ArrayRef<utils::IteratorType>{
                         utils::IteratorType::parallel,
                         utils::IteratorType::reduction},
                     [](OpBuilder &nb, Location l, ValueRange args) {
                       Value magnitude = math::AbsFOp::create(nb, l, args[0]);
                       linalg::YieldOp::create(
                           nb, l,
                           Value(arith::MaximumFOp::create(nb, l, args[1],
                                                           magnitude)));
                     })
                     .getResult(0);

  // Per row: the scale max / 127 and the factor 127 / max that quantizes
  // (0 for a zero row, whose values all quantize to 0).
  auto rowType = RankedTensorType::get({rows}, f32);
  auto scales = linalg::GenericOp::create(
      b, loc, TypeRange{rowType, rowType}, ValueRange{maxima},
      ValueRange{tensor::EmptyOp::create(b, loc, {rows}, f32),
                 tensor::EmptyOp::create(b, loc, {rows}, f32)},
      ArrayRef<AffineMap>{vector, vector, vector}, parallel(1),
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
  Value quantized =
      linalg::GenericOp::create(
          b, loc, TypeRange{RankedTensorType::get({rows, depth}, i8)},
          ValueRange{lhs, factors},
          ValueRange{tensor::EmptyOp::create(b, loc, {rows, depth}, i8)},
          ArrayRef<AffineMap>{matrix, perRow, matrix}, parallel(2),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value scaled = math::RoundEvenOp::create(
                nb, l, arith::MulFOp::create(nb, l, args[0], args[1]));
            Value clamped = arith::MinimumFOp::create(
                nb, l,
                arith::MaximumFOp::create(nb, l, scaled,
                                          floatConstant(nb, l, f32, -127.0)),
                floatConstant(nb, l, f32, 127.0));
            linalg::YieldOp::create(
                nb, l, Value(arith::FPToSIOp::create(nb, l, i8, clamped)));
          })
          .getResult(0);

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
                                       Value rhs) {
  auto [sums, rowScales] = emitDynamicInt8Sums(b, loc, lhs, rhs);
  auto sumsType = cast<RankedTensorType>(sums.getType());
  MLIRContext *ctx = b.getContext();
  AffineMap matrix = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap perRow = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
  // float(sum_ij) * scale_i (emitDequantizedSum); the gate maths then
  // multiplies by the column's scale, as for weight-only int8.
  return linalg::GenericOp::create(
             b, loc, TypeRange{sumsType.clone(b.getF32Type())},
             ValueRange{sums, rowScales},
             ValueRange{tensor::EmptyOp::create(b, loc, sumsType.getShape(),
                                                b.getF32Type())},
             ArrayRef<AffineMap>{matrix, perRow, matrix},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange args) {
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
