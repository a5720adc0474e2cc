//===- ExactFMA.h - Which fused multiply-adds must stay fused ---*- C++ -*-===//

#ifndef RNN_CODEGEN_EXACTFMA_H
#define RNN_CODEGEN_EXACTFMA_H

#include "llvm/ADT/StringRef.h"

namespace mlir::rnn {

/// On a math.fma (and the llvm.intr.fma it becomes): the result must be the
/// exactly rounded a*b+c. Every other fma only needs to be accurate: the
/// native emitter makes it llvm.fmuladd, one instruction where the target
/// has FMA and a multiply and an add where it has not (not a call to fmaf).
constexpr llvm::StringLiteral kExactFMAAttrName = "rnn.exact_fma";

} // namespace mlir::rnn

#endif // RNN_CODEGEN_EXACTFMA_H
