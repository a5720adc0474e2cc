//===- ScalarMaths.cpp - Scalar maths of the rnn ops ----------------------===//

#include "rnn/IR/ScalarMaths.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::rnn;

Value mlir::rnn::floatConstant(OpBuilder &b, Location loc, Type type,
                               double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// In this form --rnn-approximate-math recognizes it as a sigmoid.
Value mlir::rnn::emitSigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = floatConstant(b, loc, x.getType(), 1.0);
  Value neg = arith::NegFOp::create(b, loc, x);
  Value exp = math::ExpOp::create(b, loc, neg);
  Value den = arith::AddFOp::create(b, loc, one, exp);
  return arith::DivFOp::create(b, loc, one, den);
}

Value mlir::rnn::emitRoundToBF16(OpBuilder &b, Location loc, Value x) {
  Value narrow = arith::TruncFOp::create(b, loc, b.getBF16Type(), x);
  return arith::ExtFOp::create(b, loc, x.getType(), narrow);
}

Value mlir::rnn::emitActivationBF16Unrounded(OpBuilder &b, Location loc,
                                             Activation act, Value x) {
  if (act != Activation::sigmoid)
    return emitActivation(b, loc, act, x); // tanh is one op; others exact
  // XLA's bf16 logistic: each op rounded but the last (bit-exact with XLA
  // over every finite bf16 value in (-30, 30)).
  Value one = floatConstant(b, loc, x.getType(), 1.0);
  Value exp = emitRoundToBF16(
      b, loc, math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x)));
  Value den = emitRoundToBF16(b, loc, arith::AddFOp::create(b, loc, one, exp));
  return arith::DivFOp::create(b, loc, one, den);
}

/// `min(max(x, lo), hi)`, NaN-propagating like jnp.minimum / jnp.maximum.
static Value clamp(OpBuilder &b, Location loc, Value x, double lo, double hi) {
  Type type = x.getType();
  Value low =
      arith::MaximumFOp::create(b, loc, x, floatConstant(b, loc, type, lo));
  return arith::MinimumFOp::create(b, loc, low,
                                   floatConstant(b, loc, type, hi));
}

Value mlir::rnn::emitActivation(OpBuilder &b, Location loc, Activation act,
                                Value x) {
  Type type = x.getType();
  switch (act) {
  case Activation::sigmoid:
    return emitSigmoid(b, loc, x);
  case Activation::hard_sigmoid: {
    // jax.nn.hard_sigmoid: relu6(x + 3) / 6.
    Value shifted =
        arith::AddFOp::create(b, loc, x, floatConstant(b, loc, type, 3.0));
    Value relu6 = clamp(b, loc, shifted, 0.0, 6.0);
    return arith::DivFOp::create(b, loc, relu6,
                                 floatConstant(b, loc, type, 6.0));
  }
  case Activation::tanh:
    return math::TanhOp::create(b, loc, x);
  case Activation::hard_tanh:
    return clamp(b, loc, x, -1.0, 1.0);
  case Activation::relu:
    return arith::MaximumFOp::create(b, loc, x,
                                     floatConstant(b, loc, type, 0.0));
  case Activation::elu: {
    // jax.nn.elu with alpha 1: x > 0 ? x : expm1(x).
    Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                           floatConstant(b, loc, type, 0.0));
    Value expm1 = math::ExpM1Op::create(b, loc, x);
    return arith::SelectOp::create(b, loc, positive, x, expm1);
  }
  case Activation::silu:
    return arith::MulFOp::create(b, loc, x, emitSigmoid(b, loc, x));
  case Activation::identity:
    return x;
  case Activation::gelu: {
    // jax.nn.gelu(approximate=True):
    // x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
    Value cube = arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value inner = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, floatConstant(b, loc, type, 0.044715),
                              cube));
    Value scaled = arith::MulFOp::create(
        b, loc, floatConstant(b, loc, type, 0.7978845608028654), inner);
    Value cdf = arith::MulFOp::create(
        b, loc, floatConstant(b, loc, type, 0.5),
        arith::AddFOp::create(b, loc, floatConstant(b, loc, type, 1.0),
                              math::TanhOp::create(b, loc, scaled)));
    return arith::MulFOp::create(b, loc, x, cdf);
  }
  case Activation::gelu_exact: {
    // jax.nn.gelu(approximate=False): x * (erf(x / sqrt(2)) + 1) / 2.
    Value erf = math::ErfOp::create(
        b, loc,
        arith::DivFOp::create(b, loc, x,
                              floatConstant(b, loc, type, 1.4142135623730951)));
    Value sum =
        arith::AddFOp::create(b, loc, erf, floatConstant(b, loc, type, 1.0));
    return arith::DivFOp::create(b, loc, arith::MulFOp::create(b, loc, x, sum),
                                 floatConstant(b, loc, type, 2.0));
  }
  case Activation::softplus: {
    // jax.nn.softplus = logaddexp(x, 0): max(x, 0) + log1p(exp(-|x|)).
    Value zero = floatConstant(b, loc, type, 0.0);
    Value max = arith::MaximumFOp::create(b, loc, x, zero);
    Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
    Value log1p =
        math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
    return arith::AddFOp::create(b, loc, max, log1p);
  }
  case Activation::leaky_relu: {
    // jax.nn.leaky_relu with slope 0.01: x >= 0 ? x : 0.01 * x.
    Value nonNegative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                              floatConstant(b, loc, type, 0.0));
    Value scaled =
        arith::MulFOp::create(b, loc, floatConstant(b, loc, type, 0.01), x);
    return arith::SelectOp::create(b, loc, nonNegative, x, scaled);
  }
  case Activation::softmax:
  case Activation::log_softmax:
    llvm_unreachable("softmax and log_softmax are not element-wise");
  }
  llvm_unreachable("unknown activation");
}
