//===- RNNToRuntime.h - Sequence ops bufferize to librnnrt calls -*- C++ -*-===//

#ifndef RNN_CONVERSION_RNNTORUNTIME_RNNTORUNTIME_H
#define RNN_CONVERSION_RNNTORUNTIME_RNNTORUNTIME_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::rnn {

/// Attaches the BufferizableOpInterface to `rnn.flip_sequences` and
/// `rnn.select_last_carry`: one-shot bufferization allocates their result
/// buffer (through its options, like any other) and replaces each with its
/// librnnrt call on the operands' buffers.
void registerRuntimeBufferizationModels(DialectRegistry &registry);

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNTORUNTIME_RNNTORUNTIME_H
