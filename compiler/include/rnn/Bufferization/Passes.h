//===- Passes.h - Tensors to buffers ----------------------------*- C++ -*-===//

#ifndef RNN_BUFFERIZATION_PASSES_H
#define RNN_BUFFERIZATION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rnn {

#define GEN_PASS_DECL
#include "rnn/Bufferization/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rnn/Bufferization/Passes.h.inc"

} // namespace mlir::rnn

#endif // RNN_BUFFERIZATION_PASSES_H
