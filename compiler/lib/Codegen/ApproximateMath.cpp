//===- ApproximateMath.cpp - Vectorizable gate functions ------------------===//
//
// Gate maths is most of a step's work outside the matmuls (15-20 % at
// H=64), and its exponentials sit on each step's critical path at batch 1.
// The sigmoid and tanh of the gates get a short approximation of their own,
// built on one saturating 2^y: clamp, split y into n + f with a rounding
// constant, a degree-5 polynomial for 2^f and the exponent bits for 2^n.
// Other exp, expm1 and tanh use MLIR's polynomial approximations.
//
//===----------------------------------------------------------------------===//

#include "rnn/Codegen/Passes.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <cmath>

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNAPPROXIMATEMATHPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// f32 or a vector of f32.
bool isF32Like(Type type) { return getElementTypeOrSelf(type).isF32(); }

/// A constant of `type` (f32 or i32, or a vector of them) holding `value`.
Value splat(ImplicitLocOpBuilder &b, Type type, double value) {
  Type element = getElementTypeOrSelf(type);
  TypedAttr attr =
      element.isF32()
          ? TypedAttr(b.getF32FloatAttr(value))
          : TypedAttr(b.getIntegerAttr(element, static_cast<int64_t>(value)));
  if (auto vector = dyn_cast<VectorType>(type))
    attr = SplatElementsAttr::get(vector, attr);
  return arith::ConstantOp::create(b, attr);
}

/// The i32 type with the shape of `type`.
Type i32Like(ImplicitLocOpBuilder &b, Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(b.getI32Type());
  return b.getI32Type();
}

/// `value < bound ? value : bound` and the like, NaN-propagating: a NaN
/// compares unordered and is kept. As compare-and-select each bound is one
/// vminps/vmaxps; arith.minimumf would also order -0 and +0 and take
/// several instructions.
Value clampNaNPropagating(ImplicitLocOpBuilder &b, Value value, double low,
                          double high) {
  Type type = value.getType();
  Value hi = splat(b, type, high), lo = splat(b, type, low);
  Value below = arith::CmpFOp::create(b, arith::CmpFPredicate::ULT, value, hi);
  value = arith::SelectOp::create(b, below, value, hi);
  Value above = arith::CmpFOp::create(b, arith::CmpFPredicate::UGT, value, lo);
  return arith::SelectOp::create(b, above, value, lo);
}

/// 2^(scale * x), saturating: scale * x is clamped to [-127, 128], whose
/// ends give exactly 0 and infinity. Relative error below 3e-7 in between.
Value saturatingExp2(ImplicitLocOpBuilder &b, Value x, double scale) {
  Type type = x.getType();
  double low = -127.0 / scale, high = 128.0 / scale;
  x = clampNaNPropagating(b, x, std::min(low, high), std::max(low, high));
  Value factor = splat(b, type, scale);
  // Adding 1.5 * 2^23 rounds y = scale * x to an integer n, which then sits
  // in the low mantissa bits of t, biased by 127 so that shifting t left by
  // 23 makes the bits of the float 2^n (0 for n = -127, infinity for 128).
  // f = y - n is in [-0.5, 0.5].
  Value rounder = splat(b, type, 12582912.0 + 127.0);
  Value t = math::FmaOp::create(b, x, factor, rounder);
  Value n = arith::SubFOp::create(b, t, rounder);
  // f must be exact: x * factor rounded first would be off by up to
  // ulp(128) / 2 = 2^-17 (a relative error of 5e-6 in 2^f). The other fmas
  // here only need to be accurate, and may be a multiply and an add.
  auto exact = math::FmaOp::create(b, x, factor,
                                   arith::NegFOp::create(b, n).getResult());
  exact->setAttr(rnn::kExactFMAAttrName, b.getUnitAttr());
  Value f = exact;
  // Minimax fit of 2^f on [-0.5, 0.5] (relative error 2.3e-7 in f32).
  static constexpr double kCoefficients[] = {
      1.0000001192092896,  0.6931469440460205,   0.24022120237350464,
      0.05550718307495117, 0.009675527922809124, 0.001327483681961894};
  Value p = splat(b, type, kCoefficients[5]);
  for (int k = 4; k >= 0; --k)
    p = math::FmaOp::create(b, p, f, splat(b, type, kCoefficients[k]));
  Type intType = i32Like(b, type);
  Value bits = arith::ShLIOp::create(b, arith::BitcastOp::create(b, intType, t),
                                     splat(b, intType, 23));
  return arith::MulFOp::create(b, p, arith::BitcastOp::create(b, type, bits));
}

/// Whether `value` is the constant 1.0 (a scalar or a splat).
bool isOne(Value value) { return matchPattern(value, m_OneFloat()); }

/// sigmoid(x), written by the cell lowerings as 1 / (1 + exp(-x)):
/// 1 / (1 + 2^(-x log2 e)). Absolute error below 1e-7, relative error below
/// 4e-7 above -87; exactly 0 below -88.4, where the true value is no longer
/// a normal float.
struct SigmoidApproximation : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::DivFOp div,
                                PatternRewriter &rewriter) const override {
    if (!isF32Like(div.getType()) || !isOne(div.getLhs()))
      return failure();
    auto sum = div.getRhs().getDefiningOp<arith::AddFOp>();
    if (!sum)
      return failure();
    Value other = isOne(sum.getLhs())   ? sum.getRhs()
                  : isOne(sum.getRhs()) ? sum.getLhs()
                                        : Value();
    auto exp = other ? other.getDefiningOp<math::ExpOp>() : nullptr;
    auto neg = exp ? exp.getOperand().getDefiningOp<arith::NegFOp>() : nullptr;
    if (!neg)
      return failure();
    ImplicitLocOpBuilder b(div.getLoc(), rewriter);
    Value e = saturatingExp2(b, neg.getOperand(), -M_LOG2E);
    Value one = splat(b, div.getType(), 1.0);
    rewriter.replaceOpWithNewOp<arith::DivFOp>(
        div, one, arith::AddFOp::create(b, one, e).getResult());
    return success();
  }
};

/// tanh(x) = 1 - 2 / (1 + e^(2x)), and x (1 - x^2/3 + 2x^4/15) for
/// |x| < 1/16, where the first form loses relative accuracy. Absolute error
/// below 2e-7, relative error below 4e-6.
struct TanhApproximation : OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isF32Like(type))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value x = op.getOperand();
    Value e = saturatingExp2(b, x, 2.0 * M_LOG2E);
    Value one = splat(b, type, 1.0);
    Value large = arith::SubFOp::create(
        b, one,
        arith::DivFOp::create(b, splat(b, type, 2.0),
                              arith::AddFOp::create(b, one, e).getResult())
            .getResult());
    Value x2 = arith::MulFOp::create(b, x, x);
    Value s = math::FmaOp::create(b, x2, splat(b, type, 2.0 / 15.0),
                                  splat(b, type, -1.0 / 3.0));
    s = math::FmaOp::create(b, s, x2, one);
    Value small = arith::MulFOp::create(b, x, s);
    Value isSmall = arith::CmpFOp::create(b, arith::CmpFPredicate::OLT,
                                          math::AbsFOp::create(b, x),
                                          splat(b, type, 0.0625));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isSmall, small, large);
    return success();
  }
};

struct RNNApproximateMathPass
    : rnn::impl::RNNApproximateMathPassBase<RNNApproximateMathPass> {
  void runOnOperation() override {
    // The gate functions first: the sigmoid pattern needs its exp intact.
    RewritePatternSet gates(&getContext());
    gates.add<SigmoidApproximation, TanhApproximation>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(gates))))
      return signalPassFailure();
    RewritePatternSet rest(&getContext());
    populateMathPolynomialApproximationPatterns(rest, [](StringRef name) {
      name.consume_front("math.");
      return name == "exp" || name == "expm1" || name == "tanh";
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(rest))))
      signalPassFailure();
  }
};

} // namespace
