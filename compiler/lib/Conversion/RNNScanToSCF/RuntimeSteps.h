//===- RuntimeSteps.h - A scan over a run-time number of steps --*- C++ -*-===//
//
// The time loops of a scan with `steps` (its tensors keep the maximum T):
// built on ScanLowering's steps, with run-time loop bounds and static
// blocks.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_CONVERSION_RNNSCANTOSCF_RUNTIMESTEPS_H
#define RNN_CONVERSION_RNNSCANTOSCF_RUNTIMESTEPS_H

#include "ScanLowering.h"

namespace mlir::rnn {

/// Runs `op.getSteps()` steps of `scan` for `rows` on `state`: blocks of
/// `runtime-step-block` steps, then one block for each binary digit of the
/// remainder that is set, so exactly `steps` steps run and every block has
/// a static size (its input projection is hoisted out of it).
SmallVector<Value> runRuntimeSteps(ScanLowering &scan, OpBuilder &b,
                                   const StepRows &rows,
                                   SmallVector<Value> state);

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNSCANTOSCF_RUNTIMESTEPS_H
