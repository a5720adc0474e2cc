//===- Passes.h - Transforms of the rnn dialect -----------------*- C++ -*-===//

#ifndef RNN_TRANSFORMS_PASSES_H
#define RNN_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::rnn {

#define GEN_PASS_DECL
#include "rnn/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rnn/Transforms/Passes.h.inc"

} // namespace mlir::rnn

#endif // RNN_TRANSFORMS_PASSES_H
