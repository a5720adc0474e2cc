//===- RowBlocks.h - Work on a run-time number of rows ----------*- C++ -*-===//
//
// A run-time batch (`rows` of rnn.scan) keeps tensors at the maximum rows;
// the work on them runs one block of rows per set binary digit of the
// actual count, largest first (a loop of zero or one iteration each), so
// every block has static types and the work follows the actual rows.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_TRANSFORMS_ROWBLOCKS_H
#define RNN_TRANSFORMS_ROWBLOCKS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::rnn {

/// One block's work: its first row, its static row count and the loop's
/// carried values; returns their next values.
using RowBlockBody = llvm::function_ref<SmallVector<Value>(
    OpBuilder &, Value first, int64_t size, ValueRange carried)>;

/// Runs `body` on rows [0, rows) of at most `maxRows`, carrying `init`;
/// returns the carried values after the last block.
SmallVector<Value> buildRowBlocks(OpBuilder &b, Location loc, Value rows,
                                  int64_t maxRows, ValueRange init,
                                  RowBlockBody body);

/// `count` entries of `full` from `first` along `axis`.
Value extractRows(OpBuilder &b, Location loc, Value full, int64_t axis,
                  Value first, int64_t count);

/// `full` with `part` stored from `first` along `axis`.
Value insertRows(OpBuilder &b, Location loc, Value part, Value full,
                 int64_t axis, Value first);

} // namespace mlir::rnn

#endif // RNN_TRANSFORMS_ROWBLOCKS_H
