//===- Passes.h - The C entry point and its workspace -----------*- C++ -*-===//

#ifndef RNN_ABI_PASSES_H
#define RNN_ABI_PASSES_H

#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rnn {

#define GEN_PASS_DECL
#include "rnn/ABI/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rnn/ABI/Passes.h.inc"

} // namespace mlir::rnn

#endif // RNN_ABI_PASSES_H
