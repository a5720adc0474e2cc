//===- RNNShapes.h - Shape helpers shared by verifiers and passes -*- C++ -*-===//

#ifndef RNN_IR_RNNSHAPES_H
#define RNN_IR_RNNSHAPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::rnn {

/// Renders a shape as "8x100x40" (and "scalar" for rank 0) for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// `shape` with `axis` removed.
llvm::SmallVector<int64_t> dropAxis(llvm::ArrayRef<int64_t> shape,
                                    int64_t axis);

/// `shape` with `size` inserted before position `axis`.
llvm::SmallVector<int64_t> insertAxis(llvm::ArrayRef<int64_t> shape,
                                      int64_t axis, int64_t size);

/// The type of `steps` values of type `step` stacked along `axis`.
RankedTensorType stackSteps(Type step, int64_t axis, int64_t steps);

} // namespace mlir::rnn

#endif // RNN_IR_RNNSHAPES_H
