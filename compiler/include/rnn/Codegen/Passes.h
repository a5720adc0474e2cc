//===- Passes.h - From a model function to a C entry point ------*- C++ -*-===//

#ifndef RNN_CODEGEN_PASSES_H
#define RNN_CODEGEN_PASSES_H

#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rnn {

#define GEN_PASS_DECL
#include "rnn/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rnn/Codegen/Passes.h.inc"

} // namespace mlir::rnn

#endif // RNN_CODEGEN_PASSES_H
