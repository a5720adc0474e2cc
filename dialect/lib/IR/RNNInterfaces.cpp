//===- RNNInterfaces.cpp - Interfaces of the rnn dialect ------------------===//

#include "rnn/IR/RNNInterfaces.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::rnn;

#include "rnn/IR/RNNInterfaces.cpp.inc"

CellPrecision CellPrecision::of(Operation *op) {
  auto compute = op->getAttrOfType<TypeAttr>("compute_type");
  auto carry = op->getAttrOfType<TypeAttr>("carry_type");
  CellPrecision precision;
  precision.bf16Compute = compute && compute.getValue().isBF16();
  precision.bf16Carries =
      precision.bf16Compute && carry && carry.getValue().isBF16();
  precision.dynamicInt8 = op->hasAttr("dynamic_int8");
  return precision;
}
