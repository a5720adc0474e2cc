//===- RNNInterfaces.h - Interfaces of the rnn dialect ----------*- C++ -*-===//

#ifndef RNN_IR_RNNINTERFACES_H
#define RNN_IR_RNNINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::rnn {

/// How a cell computes (RNNCells.td): f32 maths on its element types, bf16
/// compute with the carries held as bf16 or f32 values, or dynamic int8
/// activations against int8 kernels. The verifiers exclude the mixtures.
struct CellPrecision {
  /// `compute_type` bf16: bf16 rounding points (docs/Semantics.md).
  bool bf16Compute = false;
  /// `carry_type` bf16 (with bf16Compute): every op of the tail rounded.
  bool bf16Carries = false;
  /// `dynamic_int8`: each product's left operand quantized per row.
  bool dynamicInt8 = false;

  /// Read from the cell's `compute_type`, `carry_type` and `dynamic_int8`
  /// attributes (absent on cells that are f32 only).
  static CellPrecision of(Operation *op);
};

} // namespace mlir::rnn

#include "rnn/IR/RNNInterfaces.h.inc"

#endif // RNN_IR_RNNINTERFACES_H
