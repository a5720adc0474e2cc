//===- ScanLowering.h - How one rnn.scan becomes loops ----------*- C++ -*-===//
//
// The state of lowering one scan, shared by RNNScanToSCF.cpp (the pattern),
// ScanLowering.cpp (time loops) and LengthSortedBlocks.cpp (zero-padded
// outputs in blocks of rows sorted by length).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_CONVERSION_RNNSCANTOSCF_SCANLOWERING_H
#define RNN_CONVERSION_RNNSCANTOSCF_SCANLOWERING_H

#include "rnn/IR/RNNOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::rnn {

/// The most steps one iteration of a time loop runs. `unroll` is only a
/// code-generation hint (it never changes a result), and each unrolled step
/// is one more copy of the cell that every later pass, one-shot
/// bufferization above all, works through superlinearly: a larger `unroll`
/// is applied as this many, which keeps compile time and memory linear in
/// the model (docs/Reliability.md).
constexpr int64_t kMaxUnroll = 4;

/// Offsets, sizes and strides of `count` entries of `type` from `offset`
/// along `axis` (all of every other dim).
struct AxisSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};
AxisSlice axisSlice(OpBuilder &b, RankedTensorType type, int64_t axis,
                    OpFoldResult offset, int64_t count = 1);

/// Where `ScanLowering::runSteps` starts (a multiple of the iteration or
/// block size; null: step 0), its block size (0: `timeBlockSteps`'s), and
/// whether it runs the remainder steps beyond the unrolled loop.
struct StepRange {
  Value first;
  int64_t block = 0;
  bool remainder = true;
};

struct ScanLowering {
  ScanOp op;
  PatternRewriter &rewriter;
  Location loc;
  int64_t timeAxis;
  Value input;   ///< the input in processing order (flipped when reversed)
  Value lengths; ///< null without seq_lengths
  bool captureCarry;
  int64_t timeBlockBytes; ///< see ConvertRNNScanToSCFPass's options
  int64_t timeBlockRows;
  bool ramLean;
  /// Each row's final carry copied at its last valid step instead of an
  /// element-wise select every step (ConvertRNNScanToSCFPass's
  /// last-row-copies).
  bool lastRowCopies;

  /// Reverse without lengths: every row is reversed whole, so step t reads
  /// the input at T - 1 - t instead of a flipped copy of the input (and
  /// keep_order stores there).
  bool reversedIndex = false;

  /// Reverse with lengths in RAM-lean mode: step t of each row reads the
  /// input where rnn.flip_sequences would have put it (reversedRowStep),
  /// instead of a flipped copy of the whole input.
  bool reversedRows = false;

  /// Rows the steps run on: the batch, or one block of rows sorted by length
  /// (then the body's batch-sized types are narrowed to the block).
  int64_t rows = 0;

  /// The rows that choose the blocks of steps (timeBlockSteps): `rows`, or
  /// the whole batch's when the function runs a part of it
  /// (kTimeBlockBatchAttrName).
  int64_t planRows() const;

  /// What a scan returns: its outputs and its final carries (the carries
  /// captured at each row's last valid step when lengths are given).
  struct Finished {
    Value outputs;
    SmallVector<Value> finals;
  };

  /// The type of carry `i` (batch dims first).
  RankedTensorType carryType(unsigned i);

  /// Steps per iteration of the time loop: `unroll`, at most T and at most
  /// kMaxUnroll.
  int64_t unrollFactor();

  /// The steps the time loop runs (a multiple of unrollFactor()); the
  /// remainder runs after it.
  int64_t loopSteps();

  /// The slice at time `t` of `sequence`.
  AxisSlice timeSlice(OpBuilder &b, Value sequence, OpFoldResult t);

  /// Step `t` of `sequence` (the input, or a block of its steps), without
  /// its time axis.
  Value stepInput(OpBuilder &b, Value sequence, OpFoldResult t);

  /// Step `t` of the input with every row reversed within its length, as
  /// rnn.flip_sequences orders it: step t of a row of length L is the
  /// input at L - 1 - t, and at T - 1 + L - t once t >= L.
  Value reversedRowStep(OpBuilder &b, OpFoldResult t);

  /// `size - 1 - t`: step t counted from the end.
  OpFoldResult mirror(OpBuilder &b, OpFoldResult t, int64_t size);

  /// The input of steps [first, first + count) (in processing order).
  Value inputBlock(OpBuilder &b, OpFoldResult first, int64_t count);

  /// `outputs` with the step output `y` stored at time `t` (reversed back
  /// for keep_order when the input is read from its end).
  Value storeOutput(OpBuilder &b, OpFoldResult t, Value y, Value outputs);

  /// The time index as an i32 value, to compare with lengths.
  Value timeAsI32(OpBuilder &b, OpFoldResult t);

  /// One time step: state = (carry..., outputs, selected carry...). Its
  /// input is step `local` of `sequence`.
  SmallVector<Value> step(OpBuilder &b, OpFoldResult t, Value sequence,
                          OpFoldResult local, ValueRange state);

  /// Steps per block of the time loop: a multiple of `unroll` dividing the
  /// loop's steps whose outputs take at least `timeBlockBytes` and that
  /// hold at least `timeBlockRows` rows, when the outputs of all steps take
  /// at least eight times `timeBlockBytes`; otherwise the whole loop.
  /// When padded steps are skipped (`skipping`), blocks are also the
  /// granularity of the skipping: as short as keeps 32 rows (rows x steps)
  /// per block for the hoisted projection (measured: 16-32 best, 64 5 %
  /// slower at B = 16, 256 15 %).
  int64_t timeBlockSteps(bool skipping);

  /// Runs the scan's steps on `state` = (carry..., outputs, selected
  /// carry...): a loop over the steps that `unroll` divides, in blocks of
  /// steps for long sequences, then the remaining steps. With
  /// `activeSteps`, the loop stops at the first whole block (or unrolled
  /// iteration) at or after that step: later steps are padding.
  SmallVector<Value> runSteps(OpBuilder &b, SmallVector<Value> state,
                              Value activeSteps, StepRange range = {});

  /// A run-time number of steps (`op.getSteps()`, RuntimeSteps.cpp): blocks
  /// of kRuntimeStepBlock steps, then one block for each binary digit of
  /// the remainder that is set, so exactly `steps` steps run and every
  /// block has a static size (its input projection is hoisted out of it).
  SmallVector<Value> runRuntimeSteps(OpBuilder &b, SmallVector<Value> state);
  /// A run-time number of rows (`op.getRows()`, RuntimeRows.cpp): one block
  /// of rows per set binary digit of `rows`, each running all the steps
  /// (a run-time number of them too with `steps`) on static types. Returns
  /// the whole batch's outputs and final carries (rows >= `rows`
  /// undefined).
  Finished runRuntimeRows();
  /// Steps [lb, ub) of `state` in blocks of `block` steps (ub - lb a
  /// multiple of `block`).
  SmallVector<Value> runStepBlocks(OpBuilder &b, SmallVector<Value> state,
                                   Value lb, Value ub, int64_t block);

  /// The scan's initial state for `rows` rows: carries (zeros or `init`),
  /// outputs (zeros when padded outputs are zeros and steps may be
  /// skipped), and the selected carries when they are captured.
  SmallVector<Value> initialState(OpBuilder &b, ValueRange init,
                                  RankedTensorType outputsType,
                                  bool zeroOutputs);

  /// The results in `state` = (carry..., outputs, selected carry...).
  Finished finish(ValueRange state);

  /// Replaces the scan with its loops.
  LogicalResult lower();

  //===--------------------------------------------------------------------===//
  // Zero-padded outputs: rows in blocks sorted by length
  // (LengthSortedBlocks.cpp)
  //===--------------------------------------------------------------------===//

  /// Zero-padded outputs with lengths: the rows run in blocks of rows sorted
  /// by decreasing length, each block only up to its longest row, so the
  /// work follows the sum of the lengths rather than B x T. Every block
  /// starts from zero outputs, which its padded steps keep. Returns the
  /// whole batch's outputs and (when captured) final carries.
  Finished runLengthSortedBlocks(int64_t blockRows);

  /// The iterations or blocks of steps in which a block of `rows` sorted
  /// rows runs (see timeBlockSteps).
  int64_t stepGrain();

  /// Whether a block of `rows` sorted rows out of `batch` should shrink as
  /// its rows end: lengths spread over the sequence put a block's rows up
  /// to T x rows / batch steps apart, and phases pay when that spans at
  /// least two of the steps' blocks (B=16, T=256: 4 % faster; at B=128
  /// the rows of a block end within one block of steps, and the phases
  /// only cost, 1.6 %).
  bool shrinkingRowsPay(int64_t batch);

  /// Runs a block of rows sorted by decreasing length in phases of fewer
  /// and fewer rows: rows [0, r) run until row r - 1, the shortest of them,
  /// ends (rounded up to whole iterations or blocks of steps), and the next
  /// phase goes on from there with r - 1 rows, so a row that has ended
  /// stops costing work. All phases use the block size of the whole block;
  /// the remainder steps (beyond the unrolled loop) run once, on all rows.
  SmallVector<Value> runShrinkingRows(OpBuilder &b, SmallVector<Value> state);
};

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNSCANTOSCF_SCANLOWERING_H
