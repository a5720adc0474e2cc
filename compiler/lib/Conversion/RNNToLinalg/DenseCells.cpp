//===- DenseCells.cpp - LSTM, GRU, MGU and Simple cells to linalg ---------===//
//
// Each cell: batch dims folded into one row dim (a unit row when there are
// none), `gi = x @ wi` and `gh = h @ wh` as linalg.matmul into zeros, then
// one linalg.generic with the biases and the cell's formula, exactly as the
// op documents it (RNNCells.td), and the batch dims restored. With
// `fuse-projections`, an LSTM cell (each of whose pre-activations is
// xi + xh) computes `[1, x, h] @ [b; wi; wh]` as one matmul instead.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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

/// `xi[k] + xh[k]`, or `xi[k]` alone when one matmul summed both.
static Value preActivation(OpBuilder &b, Location loc, ArrayRef<Value> xi,
                           ArrayRef<Value> xh, int k) {
  return xh.empty() ? xi[k] : add(b, loc, xi[k], xh[k]);
}

namespace {

/// Reduced-precision compute of a dense cell (`compute_type` bf16): where
/// each step rounds to bf16 is docs/Semantics.md#bfloat16-compute, and
/// `bf16Carries` (`carry_type` bf16) says whether the carries are bf16 values
/// (every op of the tail rounded) or f32 (XLA keeps the f32 value of a bf16
/// result converted to f32: the tail's gates and products unrounded).
struct BF16Compute {
  bool on = false;
  bool bf16Carries = false;

  explicit BF16Compute(Operation *op) {
    auto compute = op->getAttrOfType<TypeAttr>("compute_type");
    auto carry = op->getAttrOfType<TypeAttr>("carry_type");
    on = compute && compute.getValue().isBF16();
    bf16Carries = on && carry && carry.getValue().isBF16();
    dynamicInt8 = op->hasAttr("dynamic_int8");
  }
  /// Not bf16 but the other compute mode of the products: `dynamic_int8`,
  /// int8 activations quantized per row (the verifier excludes both).
  bool dynamicInt8 = false;
};

/// The scalar helpers of a bf16 body: `round` is B(v), `act` an activation
/// without its final rounding, `rounded` one with it.
struct BF16Scalars {
  OpBuilder &b;
  Location loc;
  Value round(Value v) const { return emitRoundToBF16(b, loc, v); }
  Value act(Activation fn, Value v) const {
    return emitActivationBF16Unrounded(b, loc, fn, v);
  }
  Value rounded(Activation fn, Value v) const { return round(act(fn, v)); }
  Value add(Value l, Value r) const { return ::add(b, loc, l, r); }
  Value mul(Value l, Value r) const { return ::mul(b, loc, l, r); }
  Value radd(Value l, Value r) const { return round(add(l, r)); }
  Value rmul(Value l, Value r) const { return round(mul(l, r)); }
  /// `(1 - z) * n + z * h` of GRU and MGU: `zu` is z unrounded (read only
  /// where the carries are f32), `z` rounded.
  Value interpolate(Value zu, Value z, Value n, Value h,
                    bool bf16Carries) const {
    Value keep = round(arith::SubFOp::create(
        b, loc, floatConstant(b, loc, z.getType(), 1.0), z));
    if (!bf16Carries)
      return add(mul(keep, n), mul(zu, h));
    return radd(rmul(keep, n), rmul(z, round(h)));
  }
};

/// The dense f32 values of `value` when it is an f32 constant.
static std::optional<SmallVector<float>> f32Constant(Value value) {
  auto constant = value ? value.getDefiningOp<arith::ConstantOp>() : nullptr;
  auto attr =
      constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
  if (!attr || !attr.getElementType().isF32())
    return std::nullopt;
  return SmallVector<float>(attr.getValues<float>());
}

/// `[1, x, h] @ [b; wi; wh]` (a column of ones and a row of the kernel per
/// present bias): the pre-activations summed in one matmul, so scalar
/// register blocks start from the bias and add both products in their
/// accumulators. Null unless every weight is an f32 constant and the
/// operands' row (I + H + biases) is no wider than the G*H columns of the
/// second product it replaces: the scratch memory does not grow.
static Value emitFusedProjections(PatternRewriter &rewriter, Location loc,
                                  Value x, Value h, Value wi, Value wh,
                                  Value bi, Value bh) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto hType = cast<RankedTensorType>(h.getType());
  auto whType = cast<RankedTensorType>(wh.getType());
  auto wiValues = f32Constant(wi), whValues = f32Constant(wh);
  if (!wiValues || !whValues || !xType.getElementType().isF32() ||
      !hType.getElementType().isF32() || !xType.hasStaticShape() ||
      !hType.hasStaticShape() || !whType.hasStaticShape())
    return {};
  SmallVector<SmallVector<float>> biases;
  for (Value bias : {bi, bh}) {
    if (!bias)
      continue;
    auto values = f32Constant(bias);
    if (!values)
      return {};
    biases.push_back(std::move(*values));
  }
  int64_t rows = xType.getDimSize(0), inputs = xType.getDimSize(1);
  int64_t features = hType.getDimSize(1), columns = whType.getDimSize(1);
  int64_t ones = biases.size(), depth = ones + inputs + features;
  if (depth > columns)
    return {};

  SmallVector<float> kernel;
  kernel.reserve(depth * columns);
  for (const SmallVector<float> &bias : biases)
    llvm::append_range(kernel, bias);
  llvm::append_range(kernel, *wiValues);
  llvm::append_range(kernel, *whValues);
  auto kernelType = RankedTensorType::get({depth, columns},
                                          rewriter.getF32Type());
  Value stacked = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(kernelType, ArrayRef<float>(kernel)));

  Value operands = tensor::EmptyOp::create(rewriter, loc, {rows, depth},
                                           rewriter.getF32Type());
  auto insert = [&](Value part, int64_t column, int64_t width) {
    SmallVector<OpFoldResult> offsets{rewriter.getIndexAttr(0),
                                      rewriter.getIndexAttr(column)};
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(rows),
                                    rewriter.getIndexAttr(width)};
    SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
    operands = tensor::InsertSliceOp::create(rewriter, loc, part, operands,
                                             offsets, sizes, strides);
  };
  if (ones)
    insert(filledTensor(rewriter, loc, {rows, ones}, rewriter.getF32Type(),
                        1.0),
           0, ones);
  insert(x, ones, inputs);
  insert(h, ones + inputs, features);
  return emitMatmul(rewriter, loc, operands, stacked);
}

/// The shared front half of a dense cell: the operands in matrix form and
/// the two products (or, with `fuse`, when emitFusedProjections applies,
/// their sum with the biases as `gi` alone).
struct DenseCell {
  GateProducts products;
  SmallVector<Value> carries; ///< collapsed to (N, H)
  RankedTensorType carryType; ///< the op's carry type, to restore
  int64_t numBatchDims;

  DenseCell(PatternRewriter &rewriter, Location loc, int64_t numGates,
            Value input, ValueRange carryValues, Value wi, Value wh, Value bi,
            Value bh, const BF16Compute &bf16, bool fuse = false) {
    carryType = cast<RankedTensorType>(carryValues.back().getType());
    numBatchDims = carryType.getRank() - 1;
    Value x = collapseBatchDims(rewriter, loc, input, numBatchDims);
    for (Value carry : carryValues)
      carries.push_back(collapseBatchDims(rewriter, loc, carry, numBatchDims));
    // `h` is always the last carry (LSTM's carry is (c, h)).
    Value h = carries.back();
    if (bf16.on) {
      // promote_dtype: both Dense inputs rounded to bf16.
      x = emitRoundTensorToBF16(rewriter, loc, x);
      h = emitRoundTensorToBF16(rewriter, loc, h);
    }
    if (fuse && !bf16.on && !bf16.dynamicInt8) {
      if (Value sum = emitFusedProjections(rewriter, loc, x, h, wi, wh, bi,
                                           bh)) {
        products = {sum, Value(), Value(), Value(), numGates};
        return;
      }
    }
    // Int8 kernels: f32 activations times i8 weights, summed in f32
    // (linalg.matmul widens its operands to the accumulator's type).
    auto [wiStorage, si] = splitInt8Kernel(rewriter, loc, wi);
    auto [whStorage, sh] = splitInt8Kernel(rewriter, loc, wh);
    auto matmul = [&](Value lhs, Value rhs) {
      return bf16.dynamicInt8 ? emitDynamicInt8Matmul(rewriter, loc, lhs, rhs)
                              : emitMatmul(rewriter, loc, lhs, rhs);
    };
    Value xi = matmul(x, wiStorage);
    Value xh = matmul(h, whStorage);
    if (bf16.on)
      for (Value product : {xi, xh})
        product.getDefiningOp()->setAttr(kBF16OperandsAttrName,
                                         rewriter.getUnitAttr());
    products = {xi,
                xh,
                bi,
                bh,
                numGates,
                si,
                sh,
                bf16.on};
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
  LSTMCellLowering(MLIRContext *ctx, bool fuseProjections)
      : OpRewritePattern(ctx), fuseProjections(fuseProjections) {}
  bool fuseProjections;

  LogicalResult matchAndRewrite(LSTMCellOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BF16Compute bf16(op);
    DenseCell cell(rewriter, loc, LSTMCellOp::kNumGates, op.getInput(),
                   {op.getC(), op.getH()}, op.getWi(), op.getWh(), op.getBi(),
                   op.getBh(), bf16, fuseProjections);
    Activation gateFn = op.getGateFn(), actFn = op.getActivationFn();
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, cell.products, cell.carries, /*numResults=*/2,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          if (bf16.on) {
            BF16Scalars s{b, l};
            auto y = [&](int k) { return s.radd(xi[k], xh[k]); };
            Value i = s.rounded(gateFn, y(0)), g = s.rounded(actFn, y(2));
            if (!bf16.bf16Carries) {
              // f and o meet the f32 carry: XLA keeps them unrounded, and
              // the tail is f32.
              Value f = s.act(gateFn, y(1)), o = s.act(gateFn, y(3));
              Value newC = s.add(s.mul(f, carry[0]), s.mul(i, g));
              return {newC, s.mul(o, emitActivation(b, l, actFn, newC))};
            }
            Value f = s.rounded(gateFn, y(1)), o = s.rounded(gateFn, y(3));
            Value newC =
                s.radd(s.rmul(f, s.round(carry[0])), s.rmul(i, g));
            return {newC, s.rmul(o, s.rounded(actFn, newC))};
          }
          auto y = [&](int k) { return preActivation(b, l, xi, xh, k); };
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
    BF16Compute bf16(op);
    DenseCell cell(rewriter, loc, GRUCellOp::kNumGates, op.getInput(),
                   {op.getH()}, op.getWi(), op.getWh(), op.getBi(), op.getBh(),
                   bf16);
    Activation gateFn = op.getGateFn(), actFn = op.getActivationFn();
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, cell.products, cell.carries, /*numResults=*/1,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          if (bf16.on) {
            BF16Scalars s{b, l};
            Value r = s.rounded(gateFn, s.radd(xi[0], xh[0]));
            Value zu = s.act(gateFn, s.radd(xi[1], xh[1]));
            Value n =
                s.rounded(actFn, s.radd(xi[2], s.rmul(r, xh[2])));
            return {s.interpolate(zu, s.round(zu), n, carry[0],
                                  bf16.bf16Carries)};
          }
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
    BF16Compute bf16(op);
    DenseCell cell(rewriter, loc, MGUCellOp::kNumGates, op.getInput(),
                   {op.getH()}, op.getWi(), op.getWh(), op.getBi(), op.getBh(),
                   bf16);
    Activation gateFn = op.getGateFn(), actFn = op.getActivationFn();
    bool resetGate = op.getResetGate();
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, cell.products, cell.carries, /*numResults=*/1,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          if (bf16.on) {
            BF16Scalars s{b, l};
            Value fu = s.act(gateFn, s.radd(xi[0], xh[0]));
            Value f = s.round(fu);
            Value u = resetGate ? s.rmul(xh[1], f) : xh[1];
            Value n = s.rounded(actFn, s.radd(xi[1], u));
            return {s.interpolate(fu, f, n, carry[0], bf16.bf16Carries)};
          }
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
    BF16Compute bf16(op);
    DenseCell cell(rewriter, loc, SimpleCellOp::kNumGates, op.getInput(),
                   {op.getH()}, op.getWi(), op.getWh(), op.getBi(), op.getBh(),
                   bf16);
    Activation actFn = op.getActivationFn();
    bool residual = op.getResidual();
    SmallVector<Value> results = emitGateGeneric(
        rewriter, loc, cell.products, cell.carries, /*numResults=*/1,
        [&](OpBuilder &b, Location l, ArrayRef<Value> xi, ArrayRef<Value> xh,
            ArrayRef<Value> carry) -> SmallVector<Value> {
          if (bf16.on) {
            BF16Scalars s{b, l};
            // With f32 carries (the verifier asks for `residual`), the
            // bf16 sum meets the f32 h unrounded and the rest is f32.
            if (!bf16.bf16Carries)
              return {emitActivation(b, l, actFn,
                                     s.add(s.add(xi[0], xh[0]), carry[0]))};
            Value sum = s.radd(xi[0], xh[0]);
            if (residual)
              sum = s.radd(sum, s.round(carry[0]));
            return {s.rounded(actFn, sum)};
          }
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

void mlir::rnn::populateDenseCellPatterns(RewritePatternSet &patterns,
                                          bool fuseProjections) {
  patterns.add<GRUCellLowering, MGUCellLowering, SimpleCellLowering>(
      patterns.getContext());
  patterns.add<LSTMCellLowering>(patterns.getContext(), fuseProjections);
}
