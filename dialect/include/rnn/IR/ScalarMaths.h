//===- ScalarMaths.h - Scalar maths of the rnn ops --------------*- C++ -*-===//
//
// The scalar arith/math ops that the rnn ops' semantics stand for: jax.nn's
// element-wise activations (RNNEnums.td) and the bf16 rounding point. The
// cells' gate maths (CellMaths.cpp) and the lowerings of the layers build
// their element-wise bodies from these.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_IR_SCALARMATHS_H
#define RNN_IR_SCALARMATHS_H

#include "rnn/IR/RNNOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::rnn {

/// The float constant `value` of type `type`.
Value floatConstant(OpBuilder &b, Location loc, Type type, double value);

/// `1 / (1 + exp(-x))`: exp overflows to inf for very negative `x`, which
/// gives exactly 0, so no clamping is needed.
Value emitSigmoid(OpBuilder &b, Location loc, Value x);

/// `x` rounded to bf16 (nearest, ties to even) and widened back: `arith.truncf`
/// then `arith.extf`, the one rounding point of bf16 compute
/// (docs/Semantics.md#bfloat16-compute).
Value emitRoundToBF16(OpBuilder &b, Location loc, Value x);

/// `act(x)` in bf16 compute: the activation of a bf16 `x` as XLA's CPU
/// backend computes it, in f32 with the bf16 rounding inside (sigmoid:
/// `1 / B(1 + B(exp(-x)))`), but without rounding the result: the caller
/// rounds it where Flax does. Only the activations the cell verifier allows
/// with `compute_type` bf16.
Value emitActivationBF16Unrounded(OpBuilder &b, Location loc, Activation act,
                                  Value x);

/// `act(x)` with jax.nn semantics (see RNNEnums.td), for the element-wise
/// activations (not softmax or log_softmax).
Value emitActivation(OpBuilder &b, Location loc, Activation act, Value x);

} // namespace mlir::rnn

#endif // RNN_IR_SCALARMATHS_H
