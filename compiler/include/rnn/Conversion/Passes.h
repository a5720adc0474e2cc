//===- Passes.h - Conversions, one folder each ------------------*- C++ -*-===//

#ifndef RNN_CONVERSION_PASSES_H
#define RNN_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rnn {

#define GEN_PASS_DECL
#include "rnn/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rnn/Conversion/Passes.h.inc"

} // namespace mlir::rnn

#endif // RNN_CONVERSION_PASSES_H
