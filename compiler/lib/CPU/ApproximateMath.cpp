//===- ApproximateMath.cpp - Vectorizable gate functions ------------------===//
//
// Gate maths is most of a step's work outside the matmuls (15-20 % at
// H=64), and its exponentials sit on each step's critical path at batch 1.
// The sigmoid and tanh of the gates get short approximations of their own.
// sigmoid is built on one saturating 2^y: clamp, split y into n + f with a
// rounding constant, a degree-5 polynomial for 2^f and the exponent bits
// for 2^n. tanh is rational, x P(x^2) / Q(x^2) on a clamped x: fewer
// operations than through 2^y (which also needs a second form near 0,
// where 1 - 2 / (1 + e^(2x)) cancels), and accurate relative to tanh near
// 0 as well. Other exp and expm1 use MLIR's polynomial approximations.
//
// On a scalar FPU (rational-gates) the sigmoid is rational too, and both
// test x^2 with a branch instead of clamping: 2^y's exponent bits cost
// moves between the float and the integer registers there, and each clamp
// a compare-and-move.
//
//===----------------------------------------------------------------------===//

#include "rnn/CPU/Passes.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <cmath>

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNAPPROXIMATEMATHPASS
#include "rnn/CPU/Passes.h.inc"
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

/// Horner's scheme: coefficients[0] + s (coefficients[1] + s (...)).
Value polynomial(ImplicitLocOpBuilder &b, Value s,
                 ArrayRef<double> coefficients) {
  Type type = s.getType();
  Value p = splat(b, type, coefficients.back());
  for (double c : llvm::reverse(coefficients.drop_back()))
    p = math::FmaOp::create(b, p, s, splat(b, type, c));
  return p;
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
  Value p = polynomial(b, f, kCoefficients);
  Type intType = i32Like(b, type);
  Value bits = arith::ShLIOp::create(b, arith::BitcastOp::create(b, intType, t),
                                     splat(b, intType, 23));
  return arith::MulFOp::create(b, p, arith::BitcastOp::create(b, type, bits));
}

/// Whether `value` is the constant 1.0 (a scalar or a splat).
bool isOne(Value value) { return matchPattern(value, m_OneFloat()); }

/// `x` of sigmoid(x) as the cell lowerings write it, 1 / (1 + exp(-x)), or
/// null.
Value sigmoidOperand(arith::DivFOp div) {
  if (!isF32Like(div.getType()) || !isOne(div.getLhs()))
    return {};
  auto sum = div.getRhs().getDefiningOp<arith::AddFOp>();
  if (!sum)
    return {};
  Value other = isOne(sum.getLhs())   ? sum.getRhs()
                : isOne(sum.getRhs()) ? sum.getLhs()
                                      : Value();
  auto exp = other ? other.getDefiningOp<math::ExpOp>() : nullptr;
  auto neg = exp ? exp.getOperand().getDefiningOp<arith::NegFOp>() : nullptr;
  return neg ? neg.getOperand() : Value();
}

/// tanh(x) ~ x P(x^2) / Q(x^2): a minimax fit of relative error 2.7e-8 on
/// |x| < 9 (4e-7 in f32 arithmetic, fused or not), beyond which tanh
/// rounds to +-1. sigmoid(x) = 1/2 + tanh(x / 2) / 2 uses the same
/// coefficients scaled by powers of 1/4 (and 1/4 for P).
constexpr double kTanhP[] = {0.99999998047014693, 0.13376267527395672,
                             0.0034900397994860402, 2.0522492514873084e-05,
                             1.3244218996487943e-08};
constexpr double kTanhQ[] = {1.0, 0.46709580852959182, 0.025855598585381404,
                             0.00032767587431430995, 7.7293100251813488e-07};

/// A scalar gate function by a rational fit on |x| < `bound`: `inside(x,
/// x^2)` there, and beyond (or for NaN, which compares false) `low` for
/// negative x, `high` for positive, and x itself (NaN).
template <typename Inside>
Value rationalWithRange(ImplicitLocOpBuilder &b, Value x, double bound,
                        double low, double high, Inside inside) {
  Type type = x.getType();
  Value s = arith::MulFOp::create(b, x, x);
  Value inRange = arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, s,
                                        splat(b, type, bound * bound));
  auto branch = scf::IfOp::create(b, TypeRange{type}, inRange,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, inside(x, s));
    b.setInsertionPointToStart(branch.elseBlock());
    Value positive = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, x,
                                           splat(b, type, 0.0));
    Value negative = arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x,
                                           splat(b, type, 0.0));
    Value saturated = arith::SelectOp::create(
        b, positive, splat(b, type, high),
        arith::SelectOp::create(b, negative, splat(b, type, low), x));
    scf::YieldOp::create(b, saturated);
  }
  return branch.getResult(0);
}

Value rationalTanh(ImplicitLocOpBuilder &b, Value x) {
  return rationalWithRange(b, x, 9.0, -1.0, 1.0, [&](Value x, Value s) {
    Value p = polynomial(b, s, kTanhP), q = polynomial(b, s, kTanhQ);
    return arith::DivFOp::create(b, arith::MulFOp::create(b, x, p), q)
        .getResult();
  });
}

/// rationalTanh with clamps instead of a branch, which cannot select lanes:
/// x to [-10, 10], beyond which tanh rounds to +-1, and the result to
/// [-1, 1], which the fit exceeds by up to 2e-6 past 9; NaN is kept. So it
/// saturates to exactly +-1, and is within 3e-7 of tanh, absolute and
/// relative, in between.
Value clampedRationalTanh(ImplicitLocOpBuilder &b, Value x) {
  x = clampNaNPropagating(b, x, -10.0, 10.0);
  Value s = arith::MulFOp::create(b, x, x);
  Value p = polynomial(b, s, kTanhP), q = polynomial(b, s, kTanhQ);
  Value t = arith::DivFOp::create(b, arith::MulFOp::create(b, x, p), q);
  return clampNaNPropagating(b, t, -1.0, 1.0);
}

Value rationalSigmoid(ImplicitLocOpBuilder &b, Value x) {
  SmallVector<double, 5> scaledP, scaledQ;
  for (auto [k, c] : llvm::enumerate(kTanhP))
    scaledP.push_back(c * std::pow(0.25, k + 1));
  for (auto [k, c] : llvm::enumerate(kTanhQ))
    scaledQ.push_back(c * std::pow(0.25, k));
  return rationalWithRange(b, x, 18.0, 0.0, 1.0, [&](Value x, Value s) {
    Value p = polynomial(b, s, scaledP), q = polynomial(b, s, scaledQ);
    return math::FmaOp::create(b, x, arith::DivFOp::create(b, p, q),
                               splat(b, x.getType(), 0.5))
        .getResult();
  });
}

/// sigmoid(x), written by the cell lowerings as 1 / (1 + exp(-x)):
/// 1 / (1 + 2^(-x log2 e)). Absolute error below 1e-7, relative error below
/// 4e-7 above -87; exactly 0 below -88.4, where the true value is no longer
/// a normal float. With `rational`, a scalar's is rationalSigmoid.
struct SigmoidApproximation : OpRewritePattern<arith::DivFOp> {
  SigmoidApproximation(MLIRContext *ctx, bool rational)
      : OpRewritePattern(ctx), rational(rational) {}

  LogicalResult matchAndRewrite(arith::DivFOp div,
                                PatternRewriter &rewriter) const override {
    Value x = sigmoidOperand(div);
    if (!x)
      return failure();
    ImplicitLocOpBuilder b(div.getLoc(), rewriter);
    if (rational && div.getType().isF32()) {
      rewriter.replaceOp(div, rationalSigmoid(b, x));
      return success();
    }
    Value e = saturatingExp2(b, x, -M_LOG2E);
    Value one = splat(b, div.getType(), 1.0);
    rewriter.replaceOpWithNewOp<arith::DivFOp>(
        div, one, arith::AddFOp::create(b, one, e).getResult());
    return success();
  }

  bool rational;
};

/// tanh(x) by the rational fit: with `rational` a scalar's behind a branch
/// (rationalTanh), else clamped (clampedRationalTanh).
struct TanhApproximation : OpRewritePattern<math::TanhOp> {
  TanhApproximation(MLIRContext *ctx, bool rational)
      : OpRewritePattern(ctx), rational(rational) {}

  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isF32Like(type))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value x = op.getOperand();
    rewriter.replaceOp(op, rational && type.isF32()
                               ? rationalTanh(b, x)
                               : clampedRationalTanh(b, x));
    return success();
  }

  bool rational;
};

struct RNNApproximateMathPass
    : rnn::impl::RNNApproximateMathPassBase<RNNApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    // The gate functions first: the sigmoid pattern needs its exp intact.
    RewritePatternSet gates(&getContext());
    gates.add<SigmoidApproximation, TanhApproximation>(&getContext(),
                                                        rationalGates);
    if (failed(applyPatternsGreedily(getOperation(), std::move(gates))))
      return signalPassFailure();
    if (!approximateOther)
      return;
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
