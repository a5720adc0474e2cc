//===- RuntimeRows.h - A scan over a run-time number of rows ----*- C++ -*-===//
//
// The driver for a scan with `rows` (its tensors keep the maximum batch):
// blocks of rows with static types, each running ScanLowering's steps.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_CONVERSION_RNNSCANTOSCF_RUNTIMEROWS_H
#define RNN_CONVERSION_RNNSCANTOSCF_RUNTIMEROWS_H

#include "ScanLowering.h"

namespace mlir::rnn {

/// Runs `scan` on rows [0, op.getRows()) of `batch`: one block of rows per
/// set binary digit of `rows`, each running all the steps (a run-time
/// number of them too with `steps`) on static types. Returns the whole
/// batch's outputs and final carries (rows >= `rows` undefined).
ScanLowering::Finished runRuntimeRows(ScanLowering &scan, OpBuilder &b,
                                      const StepRows &batch);

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNSCANTOSCF_RUNTIMEROWS_H
