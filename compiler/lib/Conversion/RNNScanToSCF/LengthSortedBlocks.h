//===- LengthSortedBlocks.h - Rows in blocks sorted by length ---*- C++ -*-===//
//
// With zero-padded outputs and lengths a scan need not run its padded
// steps: its rows run in blocks sorted by decreasing length, each up to its
// longest row. These are the pieces the scan lowering builds that with: the
// block size, the ranking of rows, and moving rows into and out of blocks.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_CONVERSION_RNNSCANTOSCF_LENGTHSORTEDBLOCKS_H
#define RNN_CONVERSION_RNNSCANTOSCF_LENGTHSORTEDBLOCKS_H

#include "rnn/IR/RNNOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::rnn {

/// Rows per block when the scan's work can follow its lengths: padded
/// outputs are zeros (so padded steps need not run), one batch dim, and a
/// body of cells (row by row). Each block sweeps the weights every step,
/// so blocks must not be too small; the rows of a block run until its
/// longest row ends, so they must not be too many either: the largest
/// divisor of the batch up to 4 rows, a register block's height (measured
/// best at B = 16 and 128: at B = 128, 16-row blocks were 3-5 % slower),
/// else the next larger divisor, and always at least two blocks; 0 when
/// the batch cannot be split so.
int64_t lengthSortedBlockRows(ScanOp op);

/// The rows ordered by decreasing length (ties by index), as i32.
Value sortRowsByLength(OpBuilder &b, Location loc, Value rowLengths);

/// Moves rows between a batch-sized tensor and a block of `blockRows`:
/// row i of the block is row order[first + i] of the batch. Gathers into
/// `into` (block-sized) when `toBlock`, else scatters into `into`
/// (batch-sized).
Value moveRows(OpBuilder &b, Location loc, Value from, Value into, Value order,
               Value first, int64_t blockRows, int64_t axis, bool toBlock);

/// A tensor like `type` with `blockRows` rows along `axis`.
RankedTensorType withRows(Type type, int64_t axis, int64_t blockRows);

/// The first `count` rows (along `axis`) of `full`, and `part` written back
/// over them.
Value leadingRows(OpBuilder &b, Location loc, Value full, int64_t axis,
                  int64_t count);
Value setLeadingRows(OpBuilder &b, Location loc, Value part, Value full);

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNSCANTOSCF_LENGTHSORTEDBLOCKS_H
