//===- Layers.cpp - The non-recurrent layers to linalg --------------------===//
//
// Dense, activations and LayerNorm act on the last axis: the leading dims are
// folded into one, so a per-step Dense after a recurrent layer is a single
// (B*T) x I by I x N matmul, followed by one element-wise generic for the
// bias and the activation. softmax, log_softmax and LayerNorm reduce the last
// axis first (a generic with a reduction iterator), then map it.
//
// rnn.pool is one generic with the time axis as its reduction iterator;
// with lengths, steps past a row's length are masked out by comparing
// linalg.index with the row's length, so no gather is needed. `last` and
// `first` without lengths are a slice. rnn.embed is a generic whose body
// reads the table at the row its id names (tensor.extract).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

#include <limits>

using namespace mlir;
using namespace mlir::rnn;

namespace {

using IteratorTypes = SmallVector<utils::IteratorType>;

bool normalizes(Activation fn) {
  return fn == Activation::softmax || fn == Activation::log_softmax;
}

/// `value` (*lead, N) as a matrix (M, N), M the product of the leading
/// dims: the leading dims folded as batch dims are.
Value asMatrix(OpBuilder &b, Location loc, Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  return collapseBatchDims(b, loc, value, rank - 1);
}

/// The inverse of asMatrix: `matrix` reshaped to `type`.
Value fromMatrix(OpBuilder &b, Location loc, Value matrix,
                 RankedTensorType type) {
  return restoreBatchDims(b, loc, matrix, type, type.getRank() - 1);
}

/// max(a, b), NaN if either is (jnp.max), as compares and selects: a
/// maximumf becomes a call of fmaximumf on FPUs without a max instruction
/// (Cortex-M), which C libraries such as newlib lack.
Value emitMax(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  Value greater =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, lhs, rhs);
  Value max = arith::SelectOp::create(b, loc, greater, lhs, rhs);
  Value lhsIsNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, lhs, lhs);
  return arith::SelectOp::create(b, loc, lhsIsNaN, lhs, max);
}

/// Maps of a matrix (M, N) and of its rows' vector (M).
struct MatrixMaps {
  AffineMap matrix, rows, columns;
  explicit MatrixMaps(MLIRContext *ctx) {
    matrix = AffineMap::getMultiDimIdentityMap(2, ctx);
    rows = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
    columns = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
  }
};

/// One reduction of each row of `matrix` (M, N) into a vector (M) that
/// starts at `init`; `combine(acc, x)` is the body.
Value reduceRows(OpBuilder &b, Location loc, Value matrix, ValueRange extra,
                 double init,
                 function_ref<Value(OpBuilder &, Location, Value acc, Value x,
                                    ValueRange extra)>
                     combine) {
  auto type = cast<RankedTensorType>(matrix.getType());
  MatrixMaps maps(b.getContext());
  SmallVector<Value> inputs{matrix};
  SmallVector<AffineMap> indexing{maps.matrix};
  for (Value value : extra) {
    inputs.push_back(value);
    indexing.push_back(maps.rows);
  }
  indexing.push_back(maps.rows);
  Value acc = filledTensor(b, loc, {type.getDimSize(0)}, type.getElementType(),
                           init);
  IteratorTypes iterators{utils::IteratorType::parallel,
                          utils::IteratorType::reduction};
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, inputs, ValueRange{acc},
             indexing, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value result = combine(nb, nloc, args.back(), args.front(),
                                      args.slice(1, extra.size()));
               linalg::YieldOp::create(nb, nloc, result);
             })
      .getResult(0);
}

/// softmax or log_softmax of each row of `matrix` (M, N), as jax.nn computes
/// them: shifted = x - max(x); softmax = exp(shifted) / sum(exp(shifted)),
/// log_softmax = shifted - log(sum(exp(shifted))).
Value emitNormalizingActivation(OpBuilder &b, Location loc, Activation fn,
                                Value matrix) {
  auto type = cast<RankedTensorType>(matrix.getType());
  Value max = reduceRows(b, loc, matrix, {},
                         -std::numeric_limits<double>::infinity(),
                         [](OpBuilder &nb, Location nloc, Value acc, Value x,
                            ValueRange) -> Value {
                           return emitMax(nb, nloc, acc, x);
                         });
  Value sum = reduceRows(
      b, loc, matrix, {max}, 0.0,
      [](OpBuilder &nb, Location nloc, Value acc, Value x,
         ValueRange extra) -> Value {
        Value shifted = arith::SubFOp::create(nb, nloc, x, extra[0]);
        Value exp = math::ExpOp::create(nb, nloc, shifted);
        return arith::AddFOp::create(nb, nloc, acc, exp);
      });
  MatrixMaps maps(b.getContext());
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  IteratorTypes iterators(2, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{matrix, max, sum},
             ValueRange{init},
             ArrayRef<AffineMap>{maps.matrix, maps.rows, maps.rows,
                                 maps.matrix},
             iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value shifted = arith::SubFOp::create(nb, nloc, args[0], args[1]);
               Value result;
               if (fn == Activation::softmax)
                 result = arith::DivFOp::create(
                     nb, nloc, math::ExpOp::create(nb, nloc, shifted), args[2]);
               else
                 result = arith::SubFOp::create(
                     nb, nloc, shifted, math::LogOp::create(nb, nloc, args[2]));
               linalg::YieldOp::create(nb, nloc, result);
             })
      .getResult(0);
}

/// `fn` applied to `value` of any shape: element-wise, or per row of the
/// last axis for softmax and log_softmax.
Value emitActivationOn(OpBuilder &b, Location loc, Activation fn, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (normalizes(fn))
    return fromMatrix(
        b, loc, emitNormalizingActivation(b, loc, fn, asMatrix(b, loc, value)),
        type);
  if (fn == Activation::identity)
    return value;
  int64_t rank = type.getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  IteratorTypes iterators(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{value}, ValueRange{init},
             ArrayRef<AffineMap>{identity, identity}, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc, emitActivation(nb, nloc, fn, args[0]));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct LowerDense : OpRewritePattern<DenseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DenseOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    // An int8 kernel: i8 weights summed in f32, each column's sum then
    // times its scale (it factors out of the sum).
    // Not a structured binding: the body builder below captures `scales`.
    std::pair<Value, Value> split =
        splitInt8Kernel(rewriter, loc, op.getKernel());
    Value kernel = split.first, scales = split.second;
    Value product = emitMatmul(
        rewriter, loc, asMatrix(rewriter, loc, op.getInput()), kernel);
    std::optional<Activation> fn = op.getActivation();
    bool elementwiseFn = fn && !normalizes(*fn) && *fn != Activation::identity;
    if (op.getBias() || elementwiseFn || scales) {
      // The scales, the bias and an element-wise activation share one
      // generic.
      auto type = cast<RankedTensorType>(product.getType());
      MatrixMaps maps(rewriter.getContext());
      SmallVector<Value> inputs{product};
      SmallVector<AffineMap> indexing{maps.matrix};
      if (op.getBias()) {
        inputs.push_back(op.getBias());
        indexing.push_back(maps.columns);
      }
      if (scales) {
        inputs.push_back(scales);
        indexing.push_back(maps.columns);
      }
      indexing.push_back(maps.matrix);
      Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType());
      product =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{type}, inputs, ValueRange{init},
              indexing, IteratorTypes(2, utils::IteratorType::parallel),
              [&](OpBuilder &nb, Location nloc, ValueRange args) {
                Value y = args[0];
                if (scales)
                  y = arith::MulFOp::create(nb, nloc, y,
                                            args[op.getBias() ? 2 : 1]);
                if (op.getBias())
                  y = arith::AddFOp::create(nb, nloc, y, args[1]);
                if (elementwiseFn)
                  y = emitActivation(nb, nloc, *fn, y);
                linalg::YieldOp::create(nb, nloc, y);
              })
              .getResult(0);
    }
    if (fn && normalizes(*fn))
      product = emitNormalizingActivation(rewriter, loc, *fn, product);
    rewriter.replaceOp(op, fromMatrix(rewriter, loc, product, resultType));
    return success();
  }
};

struct LowerActivation : OpRewritePattern<ActivationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ActivationOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, emitActivationOn(rewriter, op.getLoc(), op.getFn(),
                                            op.getInput()));
    return success();
  }
};

struct LowerLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    Type elementType = type.getElementType();
    Value matrix = asMatrix(rewriter, loc, op.getInput());
    auto matrixType = cast<RankedTensorType>(matrix.getType());
    int64_t rows = matrixType.getDimSize(0);
    double features = double(matrixType.getDimSize(1));

    // Sums of x and of x * x in one pass over each row.
    MatrixMaps maps(rewriter.getContext());
    Value zeros = filledTensor(rewriter, loc, {rows}, elementType, 0.0);
    auto sums = linalg::GenericOp::create(
        rewriter, loc, TypeRange{zeros.getType(), zeros.getType()},
        ValueRange{matrix}, ValueRange{zeros, zeros},
        ArrayRef<AffineMap>{maps.matrix, maps.rows, maps.rows},
        IteratorTypes{utils::IteratorType::parallel,
                      utils::IteratorType::reduction},
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value square = arith::MulFOp::create(nb, nloc, args[0], args[0]);
          linalg::YieldOp::create(
              nb, nloc,
              ValueRange{arith::AddFOp::create(nb, nloc, args[1], args[0]),
                         arith::AddFOp::create(nb, nloc, args[2], square)});
        });

    SmallVector<Value> inputs{matrix, sums.getResult(0), sums.getResult(1)};
    SmallVector<AffineMap> indexing{maps.matrix, maps.rows, maps.rows};
    for (Value vector : {op.getScale(), op.getBias()})
      if (vector) {
        inputs.push_back(vector);
        indexing.push_back(maps.columns);
      }
    indexing.push_back(maps.matrix);
    Value init = tensor::EmptyOp::create(rewriter, loc, matrixType.getShape(),
                                         elementType);
    double epsilon = op.getEpsilon().convertToDouble();
    bool hasScale = bool(op.getScale()), hasBias = bool(op.getBias());
    Value normalized =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{matrixType}, inputs, ValueRange{init},
            indexing, IteratorTypes(2, utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value n = floatConstant(nb, nloc, elementType, features);
              Value mean = arith::DivFOp::create(nb, nloc, args[1], n);
              Value meanOfSquares = arith::DivFOp::create(nb, nloc, args[2], n);
              Value var = arith::SubFOp::create(
                  nb, nloc, meanOfSquares,
                  arith::MulFOp::create(nb, nloc, mean, mean));
              var = emitMax(nb, nloc, var,
                            floatConstant(nb, nloc, elementType, 0.0));
              Value shifted = arith::AddFOp::create(
                  nb, nloc, var, floatConstant(nb, nloc, elementType, epsilon));
              Value mul = arith::DivFOp::create(
                  nb, nloc, floatConstant(nb, nloc, elementType, 1.0),
                  math::SqrtOp::create(nb, nloc, shifted));
              unsigned next = 3;
              if (hasScale)
                mul = arith::MulFOp::create(nb, nloc, mul, args[next++]);
              Value y = arith::MulFOp::create(
                  nb, nloc, arith::SubFOp::create(nb, nloc, args[0], mean),
                  mul);
              if (hasBias)
                y = arith::AddFOp::create(nb, nloc, y, args[next]);
              linalg::YieldOp::create(nb, nloc, y);
            })
            .getResult(0);
    rewriter.replaceOp(op, fromMatrix(rewriter, loc, normalized, type));
    return success();
  }
};

struct LowerPool : OpRewritePattern<PoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType();
    RankedTensorType resultType = op.getResult().getType();
    Type elementType = resultType.getElementType();
    int64_t rank = inputType.getRank(), timeAxis = op.getTimeAxis();
    int64_t steps = inputType.getDimSize(timeAxis);
    PoolKind kind = op.getKind();
    Value lengths = op.getSeqLengths();

    if (!lengths && (kind == PoolKind::last || kind == PoolKind::first)) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes;
      for (int64_t size : inputType.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      sizes[timeAxis] = rewriter.getIndexAttr(1);
      offsets[timeAxis] =
          rewriter.getIndexAttr(kind == PoolKind::last ? steps - 1 : 0);
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, resultType, op.getInput(), offsets, sizes, strides);
      return success();
    }

    // Dims of the iteration: the input's; time is the reduction.
    MLIRContext *ctx = rewriter.getContext();
    int64_t numBatchDims = op.getNumBatchDims();
    int64_t firstBatch = op.getTimeMajor() ? 1 : 0;
    SmallVector<AffineExpr> outputExprs, batchExprs;
    for (int64_t d = 0; d < rank; ++d)
      if (d != timeAxis)
        outputExprs.push_back(getAffineDimExpr(d, ctx));
    for (int64_t d = firstBatch; d < firstBatch + numBatchDims; ++d)
      batchExprs.push_back(getAffineDimExpr(d, ctx));
    AffineMap outputMap = AffineMap::get(rank, 0, outputExprs, ctx);
    AffineMap lengthsMap = AffineMap::get(rank, 0, batchExprs, ctx);
    SmallVector<Value> inputs{op.getInput()};
    SmallVector<AffineMap> indexing{
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    if (lengths) {
      inputs.push_back(lengths);
      indexing.push_back(lengthsMap);
    }
    indexing.push_back(outputMap);
    IteratorTypes iterators(rank, utils::IteratorType::parallel);
    iterators[timeAxis] = utils::IteratorType::reduction;

    double start = kind == PoolKind::max
                       ? -std::numeric_limits<double>::infinity()
                       : 0.0;
    Value acc = filledTensor(rewriter, loc, resultType.getShape(), elementType,
                             start);
    Value reduced =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, inputs, ValueRange{acc},
            indexing, iterators,
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value x = args[0], accValue = args.back();
              Value combined;
              switch (kind) {
              case PoolKind::mean:
              case PoolKind::sum:
                combined = arith::AddFOp::create(nb, nloc, accValue, x);
                break;
              case PoolKind::max:
                combined = emitMax(nb, nloc, accValue, x);
                break;
              case PoolKind::last:
              case PoolKind::first:
                combined = x; // picked at one step, below
                break;
              }
              if (!lengths) {
                linalg::YieldOp::create(nb, nloc, combined);
                return;
              }
              Value t = arith::IndexCastOp::create(
                  nb, nloc, nb.getI32Type(),
                  linalg::IndexOp::create(nb, nloc, timeAxis));
              Value length = args[1];
              Value take;
              if (kind == PoolKind::last) {
                Value one = arith::ConstantOp::create(nb, nloc,
                                                      nb.getI32IntegerAttr(1));
                take = arith::CmpIOp::create(
                    nb, nloc, arith::CmpIPredicate::eq, t,
                    arith::SubIOp::create(nb, nloc, length, one));
              } else if (kind == PoolKind::first) {
                // t == 0 and L > 0, as one comparison: t < min(L, 1). (An
                // `and` of two comparisons prints as C that -Wparentheses
                // rejects.)
                Value one = arith::ConstantOp::create(nb, nloc,
                                                      nb.getI32IntegerAttr(1));
                take = arith::CmpIOp::create(
                    nb, nloc, arith::CmpIPredicate::slt, t,
                    arith::MinSIOp::create(nb, nloc, length, one));
              } else {
                take = arith::CmpIOp::create(
                    nb, nloc, arith::CmpIPredicate::slt, t, length);
              }
              linalg::YieldOp::create(
                  nb, nloc,
                  Value(arith::SelectOp::create(nb, nloc, take, combined,
                                                accValue)));
            })
            .getResult(0);

    bool needsFinish = kind == PoolKind::mean ||
                       (lengths && kind == PoolKind::max);
    if (!needsFinish) {
      rewriter.replaceOp(op, reduced);
      return success();
    }
    // mean divides by the number of steps; with lengths a row of length 0
    // gives zeros (not 0/0, not -inf).
    int64_t outRank = resultType.getRank();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(outRank, ctx);
    SmallVector<AffineExpr> outBatch;
    for (int64_t d = 0; d < numBatchDims; ++d)
      outBatch.push_back(getAffineDimExpr(d, ctx));
    SmallVector<Value> finishInputs{reduced};
    SmallVector<AffineMap> finishMaps{identity};
    if (lengths) {
      finishInputs.push_back(lengths);
      finishMaps.push_back(AffineMap::get(outRank, 0, outBatch, ctx));
    }
    finishMaps.push_back(identity);
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         elementType);
    Value finished =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, finishInputs,
            ValueRange{init}, finishMaps,
            IteratorTypes(outRank, utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value value = args[0];
              if (!lengths) {
                linalg::YieldOp::create(
                    nb, nloc,
                    Value(arith::DivFOp::create(
                        nb, nloc, value,
                        floatConstant(nb, nloc, elementType, double(steps)))));
                return;
              }
              Value length = args[1];
              if (kind == PoolKind::mean)
                value = arith::DivFOp::create(
                    nb, nloc, value,
                    arith::SIToFPOp::create(nb, nloc, elementType, length));
              Value empty = arith::CmpIOp::create(
                  nb, nloc, arith::CmpIPredicate::sle, length,
                  arith::ConstantOp::create(nb, nloc, nb.getI32IntegerAttr(0)));
              linalg::YieldOp::create(
                  nb, nloc,
                  Value(arith::SelectOp::create(
                      nb, nloc, empty,
                      floatConstant(nb, nloc, elementType, 0.0), value)));
            })
            .getResult(0);
    rewriter.replaceOp(op, finished);
    return success();
  }
};

struct LowerEmbed : OpRewritePattern<EmbedOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(EmbedOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> idExprs;
    for (int64_t d = 0; d + 1 < rank; ++d)
      idExprs.push_back(getAffineDimExpr(d, ctx));
    AffineMap idsMap = AffineMap::get(rank, 0, idExprs, ctx);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType());
    Value table = op.getEmbedding();
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, TypeRange{resultType}, ValueRange{op.getIds()}, ValueRange{init},
        ArrayRef<AffineMap>{idsMap, identity},
        IteratorTypes(rank, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value row = arith::IndexCastOp::create(nb, nloc, nb.getIndexType(),
                                                 args[0]);
          Value column = linalg::IndexOp::create(nb, nloc, rank - 1);
          linalg::YieldOp::create(
              nb, nloc,
              Value(tensor::ExtractOp::create(nb, nloc, table,
                                              ValueRange{row, column})));
        });
    return success();
  }
};

} // namespace

void mlir::rnn::populateLayerPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerDense, LowerActivation, LowerLayerNorm, LowerPool,
               LowerEmbed>(patterns.getContext());
}
