//===- InitAll.h - Register everything rnnc defines -------------*- C++ -*-===//

#ifndef RNN_INITALL_H
#define RNN_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace rnnc {

/// Adds the rnn dialect to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers rnnc's passes, conversions and pipelines with the global
/// pass registry (for rnn-opt and textual pipelines).
void registerAllPasses();

} // namespace rnnc

#endif // RNN_INITALL_H
