//===- DenseCells.cpp - LSTM, GRU, MGU and Simple cells to linalg ---------===//
//
// Each cell: batch dims folded into one row dim (a unit row when there are
// none), `gi = x @ wi` and `gh = h @ wh` as linalg.matmul into zeros, then
// one linalg.generic with the biases and the cell's formula, exactly as the
// op documents it (RNNCells.td), and the batch dims restored.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::rnn;

static Value add(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::AddFOp::create(b, loc, lhs, rhs);
}
static Value mul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::MulFOp::create(b, loc, lhs, rhs);
}

/// `(1 - z) * n + z * h`, evaluated in exactly this form (as Flax does).
static Value interpolate(OpBuilder &b, Location loc, Value z, Value n,
                         Value h) {
  Value one = floatConstant(b, loc, z.getType(), 1.0);
  Value keep = arith::SubFOp::create(b, loc, one, z);
  return add(b, loc, mul(b, loc, keep, n), mul(b, loc, z, h));
}

namespace {

/// The shared front half of a dense cell: the operands in matrix form and
/// the two products.
struct DenseCell {
  GateProducts products;
  SmallVector<Value> carries; ///< collapsed to (N, H)
  RankedTensorType carryType; ///< the op's carry type, to restore
  int64_t numBatchDims;

  DenseCell(PatternRewriter &rewriter, Location loc, int64_t numGates,
            Value input, ValueRange carryValues, Value wi, Value wh, Value bi,
            Value bh) {
    carryType = cast<RankedTensorType>(carryValues.back().getType());
    numBatchDims = carryType.getRank() - 1;
    Value x = collapseBatchDims(rewriter, loc, input, numBatchDims);
    for (Value carry : carryValues)
      carries.push_back(collapseBatchDims(rewriter, loc, carry, numBatchDims));
    // `h` is always the last carry (LSTM's carry is (c, h)).
    // Int8 kernels: f32 activations times i8 weights, summed in f32
    // (linalg.matmul widens its operands to the accumulator's type).
    auto [wiStorage, si] = splitInt8Kernel(rewriter, loc, wi);
    auto [whStorage, sh] = splitInt8Kernel(rewriter, loc, wh);
    products = {emitMatmul(rewriter, loc, x, wiStorage),
                emitMatmul(rewriter, loc, carries.back(), whStorage),
                bi,
                bh,
                numGates,
                si,
                sh};
  }

  /// The generic's results reshaped back to the op's carry type.
  SmallVector<Value> restore(PatternRewriter &rewriter, Location loc,
                             ValueRange results) const {
    SmallVector<Value> restored;
    for (Value result : results)
      restored.push_back(
          restoreBatchDims(rewriter, loc, result, carryType, numBatchDims));
    return restored;
  }
};

/// Gate order [i, f, g, o]:
///   new_c = f * c + i * g,  new_h = o * act(new_c).
struct LSTMCellLowering : OpRewritePattern<LSTMCellOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LSTMCellOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DenseCell cell(rewriter, loc, LSTMCellOp::kNumGates, op.getInput(),
                   {op.getC(), op.getH()}, op.getWi(), op.getWh(), op.getBi(),
                   op.getBh());
    Activation gateFn = op.getGateFn(), actFn = op.getActivationFn();
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, cell.products, cell.carries, /*numResults=*/2,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          auto y = [&](int k) { return add(b, l, xi[k], xh[k]); };
          Value i = emitActivation(b, l, gateFn, y(0));
          Value f = emitActivation(b, l, gateFn, y(1));
          Value g = emitActivation(b, l, actFn, y(2));
          Value o = emitActivation(b, l, gateFn, y(3));
          Value newC = add(b, l, mul(b, l, f, carry[0]), mul(b, l, i, g));
          Value newH = mul(b, l, o, emitActivation(b, l, actFn, newC));
          return {newC, newH};
        });
    rewriter.replaceOp(op, cell.restore(rewriter, loc, results));
    return success();
  }
};

/// Gate order [r, z, n]:
///   n = act(xi_n + r * xh_n),  new_h = (1 - z) * n + z * h.
struct GRUCellLowering : OpRewritePattern<GRUCellOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GRUCellOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DenseCell cell(rewriter, loc, GRUCellOp::kNumGates, op.getInput(),
                   {op.getH()}, op.getWi(), op.getWh(), op.getBi(), op.getBh());
    Activation gateFn = op.getGateFn(), actFn = op.getActivationFn();
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, cell.products, cell.carries, /*numResults=*/1,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          Value r = emitActivation(b, l, gateFn, add(b, l, xi[0], xh[0]));
          Value z = emitActivation(b, l, gateFn, add(b, l, xi[1], xh[1]));
          Value n = emitActivation(b, l, actFn,
                                   add(b, l, xi[2], mul(b, l, r, xh[2])));
          return {interpolate(b, l, z, n, carry[0])};
        });
    rewriter.replaceOp(op, cell.restore(rewriter, loc, results));
    return success();
  }
};

/// Gate order [f, n]:
///   n = act(xi_n + (reset_gate ? f * xh_n : xh_n)),
///   new_h = (1 - f) * n + f * h.
struct MGUCellLowering : OpRewritePattern<MGUCellOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MGUCellOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DenseCell cell(rewriter, loc, MGUCellOp::kNumGates, op.getInput(),
                   {op.getH()}, op.getWi(), op.getWh(), op.getBi(), op.getBh());
    Activation gateFn = op.getGateFn(), actFn = op.getActivationFn();
    bool resetGate = op.getResetGate();
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, cell.products, cell.carries, /*numResults=*/1,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          Value f = emitActivation(b, l, gateFn, add(b, l, xi[0], xh[0]));
          Value u = resetGate ? mul(b, l, f, xh[1]) : xh[1];
          Value n = emitActivation(b, l, actFn, add(b, l, xi[1], u));
          return {interpolate(b, l, f, n, carry[0])};
        });
    rewriter.replaceOp(op, cell.restore(rewriter, loc, results));
    return success();
  }
};

/// One gate: new_h = act(residual ? (xi + xh) + h : xi + xh).
struct SimpleCellLowering : OpRewritePattern<SimpleCellOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SimpleCellOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DenseCell cell(rewriter, loc, SimpleCellOp::kNumGates, op.getInput(),
                   {op.getH()}, op.getWi(), op.getWh(), op.getBi(), op.getBh());
    Activation actFn = op.getActivationFn();
    bool residual = op.getResidual();
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, cell.products, cell.carries, /*numResults=*/1,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          Value s = add(b, l, xi[0], xh[0]);
          if (residual)
            s = add(b, l, s, carry[0]);
          return {emitActivation(b, l, actFn, s)};
        });
    rewriter.replaceOp(op, cell.restore(rewriter, loc, results));
    return success();
  }
};

} // namespace

void mlir::rnn::populateDenseCellPatterns(RewritePatternSet &patterns) {
  patterns.add<LSTMCellLowering, GRUCellLowering, MGUCellLowering,
               SimpleCellLowering>(patterns.getContext());
}
