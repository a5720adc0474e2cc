//===- RNNOps.h - Ops of the rnn dialect ------------------------*- C++ -*-===//

#ifndef RNN_IR_RNNOPS_H
#define RNN_IR_RNNOPS_H

#include "rnn/IR/RNNDialect.h"
#include "rnn/IR/RNNInterfaces.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::rnn {
/// True for the element type of int8 kernels (RNNTypes.td): quant's per-axis
/// uniform type with signed i8 storage in [-127, 127], f32 expressed type,
/// zero points 0 and the last dim as its axis (the scales' count and the
/// axis against the kernel's shape are the cell verifier's).
bool isInt8PerChannelType(Type type);

/// The bytes of `kernel` as code reads them: an int8 kernel's i8 storage,
/// a float kernel's values.
int64_t kernelStorageBytes(ShapedType kernel);

/// The first column of column block `block` of `width` columns (an
/// rnn.project_piece's, the first weights of an rnn.shared_k_matmuls):
/// `block x width`, an attribute when `block` is a constant.
OpFoldResult buildBlockColumn(OpBuilder &b, Location loc, Value block,
                              int64_t width);

/// Columns [column, column + width) of the [K, N] `kernel`, as a
/// tensor.extract_slice: the weights of a column block.
Value sliceColumns(OpBuilder &b, Location loc, Value kernel,
                   OpFoldResult column, int64_t width);

class CellOpInterface;
/// The verifier of a cell whose kernels are matrices (RNNCells.cpp): input
/// (*B, I), carries (*B, H), wi (I, G*H), wh (H, G*H), biases (G*H), the
/// element types, activations and precision attributes.
LogicalResult verifyDenseCell(CellOpInterface cell);
} // namespace mlir::rnn

#include "rnn/IR/RNNEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "rnn/IR/RNNAttrs.h.inc"

#define GET_OP_CLASSES
#include "rnn/IR/RNNOps.h.inc"

#endif // RNN_IR_RNNOPS_H
