//===- RNNOps.h - Ops of the rnn dialect ------------------------*- C++ -*-===//

#ifndef RNN_IR_RNNOPS_H
#define RNN_IR_RNNOPS_H

#include "rnn/IR/RNNDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "rnn/IR/RNNEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "rnn/IR/RNNAttrs.h.inc"

#define GET_OP_CLASSES
#include "rnn/IR/RNNOps.h.inc"

#endif // RNN_IR_RNNOPS_H
