//===- FuseSiblingLoops.h - Two loops of one trip count as one --*- C++ -*-===//

#ifndef RNN_CPU_FUSESIBLINGLOOPS_H
#define RNN_CPU_FUSESIBLINGLOOPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::rnn {

/// Runs `first` and `second`, loops of the same block with the same
/// constant trip count and independent of each other, as one loop at
/// `first`'s place: each iteration runs `first`'s body then `second`'s,
/// each with its own induction variable. What `second` reads is moved
/// before `first` (it must be free of side effects). Unlike upstream's
/// `fuseIndependentSiblingForLoops`, the bounds and steps may differ.
FailureOr<scf::ForOp> fuseSiblingLoops(RewriterBase &rewriter, scf::ForOp first,
                                       scf::ForOp second);

} // namespace mlir::rnn

#endif // RNN_CPU_FUSESIBLINGLOOPS_H
