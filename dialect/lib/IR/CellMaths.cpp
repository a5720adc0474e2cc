//===- CellMaths.cpp - Each cell's gate maths on scalars ------------------===//
//
// CellOpInterface::buildNewCarries of every cell op: the formula its ODS
// description documents (RNNCells.td), on the elements of the gate blocks'
// pre-activations and of the old carries. In bf16 compute
// (`compute_type` bf16) each value is rounded where XLA's CPU backend rounds
// a bf16 Flax cell (docs/Semantics.md#bfloat16-compute); `carry_type` says
// whether the carries are bf16 values (every op of the tail rounded) or f32
// (XLA keeps the f32 value of a bf16 result converted to f32: the tail's
// gates and products unrounded).
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/IR/ScalarMaths.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// f32 scalar maths.
struct F32Scalars {
  OpBuilder &b;
  Location loc;
  Value add(Value l, Value r) const {
    return arith::AddFOp::create(b, loc, l, r);
  }
  Value mul(Value l, Value r) const {
    return arith::MulFOp::create(b, loc, l, r);
  }
  Value act(Activation fn, Value v) const {
    return emitActivation(b, loc, fn, v);
  }
  /// `xi[k] + xh[k]`, or `xi[k]` alone when one matmul summed both
  /// (CellOpInterface::fusesProjections).
  Value preActivation(ArrayRef<Value> xi, ArrayRef<Value> xh, int k) const {
    return xh.empty() ? xi[k] : add(xi[k], xh[k]);
  }
  /// `(1 - z) * n + z * h`, evaluated in exactly this form (as Flax does).
  Value interpolate(Value z, Value n, Value h) const {
    Value keep = arith::SubFOp::create(
        b, loc, floatConstant(b, loc, z.getType(), 1.0), z);
    return add(mul(keep, n), mul(z, h));
  }
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
  Value add(Value l, Value r) const {
    return arith::AddFOp::create(b, loc, l, r);
  }
  Value mul(Value l, Value r) const {
    return arith::MulFOp::create(b, loc, l, r);
  }
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

} // namespace

/// Gate order [i, f, g, o]:
///   new_c = f * c + i * g,  new_h = o * act(new_c).
SmallVector<Value> LSTMCellOp::buildNewCarries(OpBuilder &b, Location loc,
                                               ArrayRef<Value> xi,
                                               ArrayRef<Value> xh,
                                               ArrayRef<Value> carries) {
  Activation gateFn = getGateFn(), actFn = getActivationFn();
  CellPrecision precision = getPrecision();
  if (precision.bf16Compute) {
    BF16Scalars s{b, loc};
    auto y = [&](int k) { return s.radd(xi[k], xh[k]); };
    Value i = s.rounded(gateFn, y(0)), g = s.rounded(actFn, y(2));
    if (!precision.bf16Carries) {
      // f and o meet the f32 carry: XLA keeps them unrounded, and the tail
      // is f32.
      Value f = s.act(gateFn, y(1)), o = s.act(gateFn, y(3));
      Value newC = s.add(s.mul(f, carries[0]), s.mul(i, g));
      return {newC, s.mul(o, emitActivation(b, loc, actFn, newC))};
    }
    Value f = s.rounded(gateFn, y(1)), o = s.rounded(gateFn, y(3));
    Value newC = s.radd(s.rmul(f, s.round(carries[0])), s.rmul(i, g));
    return {newC, s.rmul(o, s.rounded(actFn, newC))};
  }
  F32Scalars s{b, loc};
  auto y = [&](int k) { return s.preActivation(xi, xh, k); };
  Value i = s.act(gateFn, y(0));
  Value f = s.act(gateFn, y(1));
  Value g = s.act(actFn, y(2));
  Value o = s.act(gateFn, y(3));
  Value newC = s.add(s.mul(f, carries[0]), s.mul(i, g));
  Value newH = s.mul(o, s.act(actFn, newC));
  return {newC, newH};
}

/// Gate order [r, z, n]:
///   n = act(xi_n + r * xh_n),  new_h = (1 - z) * n + z * h.
SmallVector<Value> GRUCellOp::buildNewCarries(OpBuilder &b, Location loc,
                                              ArrayRef<Value> xi,
                                              ArrayRef<Value> xh,
                                              ArrayRef<Value> carries) {
  Activation gateFn = getGateFn(), actFn = getActivationFn();
  CellPrecision precision = getPrecision();
  if (precision.bf16Compute) {
    BF16Scalars s{b, loc};
    Value r = s.rounded(gateFn, s.radd(xi[0], xh[0]));
    Value zu = s.act(gateFn, s.radd(xi[1], xh[1]));
    Value n = s.rounded(actFn, s.radd(xi[2], s.rmul(r, xh[2])));
    return {s.interpolate(zu, s.round(zu), n, carries[0],
                          precision.bf16Carries)};
  }
  F32Scalars s{b, loc};
  Value r = s.act(gateFn, s.add(xi[0], xh[0]));
  Value z = s.act(gateFn, s.add(xi[1], xh[1]));
  Value n = s.act(actFn, s.add(xi[2], s.mul(r, xh[2])));
  return {s.interpolate(z, n, carries[0])};
}

/// Gate order [f, n]:
///   n = act(xi_n + (reset_gate ? f * xh_n : xh_n)),
///   new_h = (1 - f) * n + f * h.
SmallVector<Value> MGUCellOp::buildNewCarries(OpBuilder &b, Location loc,
                                              ArrayRef<Value> xi,
                                              ArrayRef<Value> xh,
                                              ArrayRef<Value> carries) {
  Activation gateFn = getGateFn(), actFn = getActivationFn();
  bool resetGate = getResetGate();
  CellPrecision precision = getPrecision();
  if (precision.bf16Compute) {
    BF16Scalars s{b, loc};
    Value fu = s.act(gateFn, s.radd(xi[0], xh[0]));
    Value f = s.round(fu);
    Value u = resetGate ? s.rmul(xh[1], f) : xh[1];
    Value n = s.rounded(actFn, s.radd(xi[1], u));
    return {s.interpolate(fu, f, n, carries[0], precision.bf16Carries)};
  }
  F32Scalars s{b, loc};
  Value f = s.act(gateFn, s.add(xi[0], xh[0]));
  Value u = resetGate ? s.mul(f, xh[1]) : xh[1];
  Value n = s.act(actFn, s.add(xi[1], u));
  return {s.interpolate(f, n, carries[0])};
}

/// One gate: new_h = act(residual ? (xi + xh) + h : xi + xh).
SmallVector<Value> SimpleCellOp::buildNewCarries(OpBuilder &b, Location loc,
                                                 ArrayRef<Value> xi,
                                                 ArrayRef<Value> xh,
                                                 ArrayRef<Value> carries) {
  Activation actFn = getActivationFn();
  bool residual = getResidual();
  CellPrecision precision = getPrecision();
  if (precision.bf16Compute) {
    BF16Scalars s{b, loc};
    // With f32 carries (the verifier asks for `residual`), the bf16 sum
    // meets the f32 h unrounded and the rest is f32.
    if (!precision.bf16Carries)
      return {emitActivation(b, loc, actFn,
                             s.add(s.add(xi[0], xh[0]), carries[0]))};
    Value sum = s.radd(xi[0], xh[0]);
    if (residual)
      sum = s.radd(sum, s.round(carries[0]));
    return {s.rounded(actFn, sum)};
  }
  F32Scalars s{b, loc};
  Value sum = s.add(xi[0], xh[0]);
  if (residual)
    sum = s.add(sum, carries[0]);
  return {s.act(actFn, sum)};
}

/// Flax's ConvLSTM, gate order [i, g, f, o]:
///   new_c = sigmoid(y_f + 1) * c + sigmoid(y_i) * tanh(y_g)
///   new_h = sigmoid(y_o) * tanh(new_c)
SmallVector<Value> ConvLSTMCellOp::buildNewCarries(OpBuilder &b, Location loc,
                                                   ArrayRef<Value> xi,
                                                   ArrayRef<Value> xh,
                                                   ArrayRef<Value> carries) {
  F32Scalars s{b, loc};
  auto y = [&](int k) { return s.add(xi[k], xh[k]); };
  Value i = emitSigmoid(b, loc, y(0));
  Value g = math::TanhOp::create(b, loc, y(1));
  Value one = floatConstant(b, loc, carries[0].getType(), 1.0);
  Value f = emitSigmoid(b, loc, s.add(y(2), one));
  Value o = emitSigmoid(b, loc, y(3));
  Value newC = s.add(s.mul(f, carries[0]), s.mul(i, g));
  Value newH = s.mul(o, math::TanhOp::create(b, loc, newC));
  return {newC, newH};
}
