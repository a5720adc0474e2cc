//===- Lowering.cpp - Building blocks of the rnn-to-linalg patterns -------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::rnn;

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Value mlir::rnn::emitRoundTensorToBF16(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  // In place: the rounded values replace the sums they come from.
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{}, ValueRange{x},
             ArrayRef<AffineMap>{identity}, iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       emitRoundToBF16(nb, nloc, args[0]));
             })
      .getResult(0);
}

Value mlir::rnn::emitNarrowTensorToBF16(OpBuilder &b, Location loc,
                                        Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), b.getBF16Type());
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{x},
             ValueRange{init}, ArrayRef<AffineMap>{identity, identity},
             iterators,
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc,
                   arith::TruncFOp::create(nb, nloc, nb.getBF16Type(),
                                           args[0])
                       .getResult());
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

/// The reassociation that folds dims [0, numFolded) of a tensor of
/// `expandedRank` dims into one and keeps every other dim.
static SmallVector<ReassociationIndices> foldLeading(int64_t numFolded,
                                                     int64_t expandedRank) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices first;
  for (int64_t i = 0; i < numFolded; ++i)
    first.push_back(i);
  groups.push_back(first);
  for (int64_t i = numFolded; i < expandedRank; ++i)
    groups.push_back({i});
  return groups;
}

Value mlir::rnn::collapseBatchDims(OpBuilder &b, Location loc, Value value,
                                   int64_t numBatchDims) {
  auto type = cast<RankedTensorType>(value.getType());
  if (numBatchDims == 1)
    return value;
  if (numBatchDims == 0) {
    // (*rest) -> (1, *rest): the unit dim and the first dim form one group.
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, type.getShape());
    auto expanded = RankedTensorType::get(shape, type.getElementType());
    return tensor::ExpandShapeOp::create(b, loc, expanded, value,
                                         foldLeading(2, expanded.getRank()));
  }
  return tensor::CollapseShapeOp::create(
      b, loc, value, foldLeading(numBatchDims, type.getRank()));
}

Value mlir::rnn::restoreBatchDims(OpBuilder &b, Location loc, Value value,
                                  RankedTensorType type, int64_t numBatchDims) {
  if (numBatchDims == 1)
    return value;
  if (numBatchDims == 0) {
    auto collapsed = cast<RankedTensorType>(value.getType());
    return tensor::CollapseShapeOp::create(b, loc, type, value,
                                           foldLeading(2, collapsed.getRank()));
  }
  return tensor::ExpandShapeOp::create(
      b, loc, type, value, foldLeading(numBatchDims, type.getRank()));
}

Value mlir::rnn::filledTensor(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> shape, Type elementType,
                              double value) {
  Value fill = floatConstant(b, loc, elementType, value);
  Value empty = tensor::EmptyOp::create(b, loc, shape, elementType);
  return linalg::FillOp::create(b, loc, fill, empty).getResult(0);
}

Value mlir::rnn::zeroTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                            Type elementType) {
  Value zero = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(elementType)));
  Value empty = tensor::EmptyOp::create(b, loc, shape, elementType);
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

Value mlir::rnn::emitMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                            Type accumulator) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Value acc = zeroTensor(b, loc, {lhsType.getDimSize(0), rhsType.getDimSize(1)},
                         accumulator ? accumulator : lhsType.getElementType());
  return linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{acc})
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Gate maths
//===----------------------------------------------------------------------===//

Value mlir::rnn::kernelStorage(OpBuilder &b, Location loc, Value kernel) {
  auto type = cast<RankedTensorType>(kernel.getType());
  auto quant =
      dyn_cast<quant::UniformQuantizedPerAxisType>(type.getElementType());
  if (!quant)
    return kernel;
  auto storageType = type.clone(quant.getStorageType());
  // MLIRGen's form: an i8 constant cast to the quantized type.
  if (auto cast = kernel.getDefiningOp<quant::StorageCastOp>();
      cast && cast.getInput().getType() == storageType)
    return cast.getInput();
  return quant::StorageCastOp::create(b, loc, storageType, kernel);
}

std::pair<Value, Value> mlir::rnn::splitInt8Kernel(OpBuilder &b, Location loc,
                                                   Value kernel) {
  auto type = cast<RankedTensorType>(kernel.getType());
  auto quant =
      dyn_cast<quant::UniformQuantizedPerAxisType>(type.getElementType());
  if (!quant)
    return {kernel, Value()};
  Value storage = kernelStorage(b, loc, kernel);
  SmallVector<float> scales(quant.getScales().begin(),
                            quant.getScales().end());
  auto scalesType = RankedTensorType::get({int64_t(scales.size())},
                                          b.getF32Type());
  Value scaleConstant = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scalesType, ArrayRef<float>(scales)));
  return {storage, scaleConstant};
}

/// Gate block `gate` (of `features` entries) of `value`'s last dim.
static Value gateBlock(OpBuilder &b, Location loc, Value value, int64_t gate,
                       int64_t features) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape().back() == features)
    return value; // a single gate: the block is the whole tensor
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape().drop_back())
    sizes.push_back(b.getIndexAttr(size));
  sizes.push_back(b.getIndexAttr(features));
  offsets.back() = b.getIndexAttr(gate * features);
  return tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes, strides);
}

SmallVector<Value> mlir::rnn::emitGateGeneric(OpBuilder &b, Location loc,
                                              const GateProducts &products,
                                              ValueRange carries,
                                              unsigned numResults,
                                              GateBodyBuilder body,
                                              ResultSlotsBuilder slots) {
  auto carryType = cast<RankedTensorType>(carries.front().getType());
  int64_t rank = carryType.getRank();
  int64_t features = carryType.getShape().back();
  int64_t gates = products.numGates;
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap lastDim = AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1));
  AffineMap firstDim = AffineMap::get(rank, 0, b.getAffineDimExpr(0));

  // Inputs: gi blocks, gh blocks, bi blocks, bh blocks, si blocks, sh
  // blocks, ri, rh, carries.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  auto addBlocks = [&](Value value, AffineMap map) {
    if (!value)
      return;
    for (int64_t k = 0; k < gates; ++k) {
      inputs.push_back(gateBlock(b, loc, value, k, features));
      maps.push_back(map);
    }
  };
  addBlocks(products.gi, identity);
  addBlocks(products.gh, identity);
  addBlocks(products.bi, lastDim);
  addBlocks(products.bh, lastDim);
  addBlocks(products.si, lastDim);
  addBlocks(products.sh, lastDim);
  for (Value rowScales : {products.ri, products.rh}) {
    if (!rowScales)
      continue;
    inputs.push_back(rowScales);
    maps.push_back(firstDim);
  }
  for (Value carry : carries) {
    inputs.push_back(carry);
    maps.push_back(identity);
  }

  // Each result is written over the carry it replaces: the access is
  // element-wise, so bufferization updates the carry in place instead of
  // writing a new buffer and copying it back at the end of the step.
  SmallVector<Value> outputs;
  for (unsigned i = 0; i < numResults; ++i) {
    outputs.push_back(
        i < carries.size() && carries[i].getType() == carryType
            ? carries[i]
            : tensor::EmptyOp::create(b, loc, carryType.getShape(),
                                      carryType.getElementType()));
    maps.push_back(identity);
  }
  // Results also written into a slot, in the order of their inits.
  SmallVector<unsigned> slotted;
  if (slots) {
    for (auto [i, slot] : llvm::enumerate(slots(b))) {
      if (!slot)
        continue;
      outputs.push_back(slot);
      maps.push_back(identity);
      slotted.push_back(i);
    }
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  SmallVector<Type> resultTypes(numResults + slotted.size(), carryType);

  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, outputs, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        ValueRange gi = args.take_front(gates), gh;
        unsigned next = gates;
        if (products.gh) {
          gh = args.slice(next, gates);
          next += gates;
        }
        ValueRange bi, bh;
        if (products.bi) {
          bi = args.slice(next, gates);
          next += gates;
        }
        if (products.bh) {
          bh = args.slice(next, gates);
          next += gates;
        }
        ValueRange si, sh;
        if (products.si) {
          si = args.slice(next, gates);
          next += gates;
        }
        if (products.sh) {
          sh = args.slice(next, gates);
          next += gates;
        }
        Value ri = products.ri ? args[next++] : Value();
        Value rh = products.rh ? args[next++] : Value();
        ValueRange carryArgs = args.slice(next, carries.size());
        SmallVector<Value> xi, xh;
        // Biases of a narrower param type (bf16 params with f32 maths) are
        // widened exactly where they are read.
        auto round = [&](Value v) {
          return products.roundBF16 ? emitRoundToBF16(nb, nloc, v) : v;
        };
        auto addBias = [&](Value product, Value bias) -> Value {
          if (bias.getType() != product.getType())
            bias = arith::ExtFOp::create(nb, nloc, product.getType(), bias);
          return round(arith::AddFOp::create(nb, nloc, product, bias));
        };
        // Int8 kernels: each column's sum (an i32 sum times its row's scale
        // with dynamic int8 activations) times its scale, then the bias.
        auto scaled = [&](Value product, Value rowScale, ValueRange scales,
                          int64_t k) {
          if (rowScale)
            product = emitDequantizedSum(nb, nloc, product, rowScale);
          return scales.empty() ? product
                                : Value(arith::MulFOp::create(
                                      nb, nloc, product, scales[k]));
        };
        for (int64_t k = 0; k < gates; ++k) {
          // Scales (int8) then rounding (bf16 compute): never both.
          Value gik = products.giRounded ? gi[k]
                                         : round(scaled(gi[k], ri, si, k));
          Value ghk =
              products.gh ? round(scaled(gh[k], rh, sh, k)) : Value();
          xi.push_back(products.bi ? addBias(gik, bi[k]) : gik);
          if (ghk)
            xh.push_back(products.bh ? addBias(ghk, bh[k]) : ghk);
        }
        SmallVector<Value> carryValues(carryArgs.begin(), carryArgs.end());
        SmallVector<Value> results = body(nb, nloc, xi, xh, carryValues);
        for (unsigned i : slotted) {
          Value again = results[i];
          results.push_back(again);
        }
        linalg::YieldOp::create(nb, nloc, results);
      });
  return SmallVector<Value>(generic->getResults());
}
