//===- LengthSortedBlocks.h - Rows in blocks sorted by length ---*- C++ -*-===//
//
// With zero-padded outputs and lengths a scan need not run its padded
// steps: its rows run in blocks sorted by decreasing length, each up to its
// longest row. A driver on top of ScanLowering's time loops: it makes the
// StepRows of each block (and of each phase of a block) and runs the
// scan's steps on them.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_CONVERSION_RNNSCANTOSCF_LENGTHSORTEDBLOCKS_H
#define RNN_CONVERSION_RNNSCANTOSCF_LENGTHSORTEDBLOCKS_H

#include "ScanLowering.h"

namespace mlir::rnn {

/// Rows per block when the scan's work can follow its lengths: padded
/// outputs are zeros (so padded steps need not run), one batch dim, and a
/// body of cells (row by row). Each block sweeps the weights every step,
/// so blocks must not be too small; the rows of a block run until its
/// longest row ends, so they must not be too many either: the largest
/// divisor of the batch up to `limit` rows (`length-block-rows`), else the
/// next larger divisor, and always at least two blocks; 0 when the batch
/// cannot be split so.
int64_t lengthSortedBlockRows(ScanOp op, int64_t limit);

/// Runs `scan` on `batch` in blocks of `blockRows` rows sorted by
/// decreasing length, each block only up to its longest row, so the work
/// follows the sum of the lengths rather than B x T. Every block gathers
/// its rows, starts from zero outputs, which its padded steps keep, and
/// scatters its outputs and final carries back; a block whose rows can end
/// far apart runs in phases of fewer and fewer rows. Returns the whole
/// batch's outputs and (when captured) final carries.
ScanLowering::Finished runLengthSortedBlocks(ScanLowering &scan, OpBuilder &b,
                                             const StepRows &batch,
                                             int64_t blockRows);

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNSCANTOSCF_LENGTHSORTEDBLOCKS_H
