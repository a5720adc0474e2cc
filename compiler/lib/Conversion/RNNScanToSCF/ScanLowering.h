//===- ScanLowering.h - The time loops of one rnn.scan ----------*- C++ -*-===//
//
// What every way of running a scan's steps is built from: one step on a set
// of rows, the loop over (blocks of) steps, and the scan's initial state and
// results. Which rows and steps run is chosen by its clients, each a driver
// on top of this API: the pattern in RNNScanToSCF.cpp (the whole batch, all
// steps), a run-time number of steps (RuntimeSteps.h) or rows
// (RuntimeRows.h), and rows in blocks sorted by length
// (LengthSortedBlocks.h). The rows a step runs on are an explicit StepRows,
// so a driver that runs blocks of rows makes one per block; a ScanLowering
// itself never changes after construction.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_CONVERSION_RNNSCANTOSCF_SCANLOWERING_H
#define RNN_CONVERSION_RNNSCANTOSCF_SCANLOWERING_H

#include "rnn/IR/RNNOps.h"

#include "mlir/IR/Builders.h"

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

/// A tensor like `type` with `rows` entries along `axis`.
RankedTensorType withRows(Type type, int64_t axis, int64_t rows);

/// ConvertRNNScanToSCFPass's options (Passes.td).
struct ScanLoweringOptions {
  int64_t timeBlockBytes;
  int64_t timeBlockRows;
  bool ramLean;
  /// Each row's final carry copied at its last valid step instead of an
  /// element-wise select every step.
  bool lastRowCopies;
  /// Steps per full block of a run-time number of steps (RuntimeSteps.h).
  int64_t runtimeStepBlock;
  /// Rows (rows x steps) a block of steps keeps when padded steps are
  /// skipped (timeBlockSteps).
  int64_t skipBlockRows;
  /// The most rows of a length-sorted block (lengthSortedBlockRows).
  int64_t lengthBlockRows;
  /// The cache a length-sorted block's recurrent weights must fit for its
  /// phases of fewer rows to pay (0: no figure).
  int64_t rowPhaseCacheBytes;
};

/// The rows a run of steps works on: the whole batch, or a block of its
/// rows (then the body's batch-sized types are narrowed to `count`).
struct StepRows {
  Value input;   ///< these rows' input, in processing order (not projected)
  Value lengths; ///< their sequence lengths; null without seq_lengths
  int64_t count; ///< how many rows (the leading dim of the carries)
  /// The rows are one block of a loop over blocks of rows: steps outside
  /// a time loop then project their own inputs, since projecting all the
  /// rows' steps for them would be done again for every block.
  bool inRowLoop = false;
};

/// Where steps take their inputs from: a sequence (the rows' input, or a
/// block of its steps), either projected already (the scan's rnn.project
/// computed on it once, for all its steps) or not (each step then projects
/// its own input when the scan's input is an rnn.project).
struct StepSequence {
  Value values;
  bool projected = false;
};

/// Where `ScanLowering::runSteps` starts (a multiple of the iteration or
/// block size; null: step 0), its block size (0: `timeBlockSteps`'s), and
/// whether it runs the remainder steps beyond the unrolled loop.
struct StepRange {
  Value first;
  int64_t block = 0;
  bool remainder = true;
};

/// The time-loop API for one scan. State threaded through steps and loops
/// is (carry..., outputs, selected carry...): the carries, the outputs of
/// the steps so far, and (when captured) each row's carry after its last
/// valid step.
class ScanLowering {
public:
  ScanLowering(ScanOp op, const ScanLoweringOptions &options);

  ScanOp getOp() const { return op; }
  Location getLoc() const { return loc; }
  const ScanLoweringOptions &getOptions() const { return options; }
  /// Whether the final carries are each row's carry after its last valid
  /// step (lengths given), kept in the state beside the running carries.
  bool capturesCarry() const { return captureCarry; }

  /// What a scan returns: its outputs and its final carries (the carries
  /// captured at each row's last valid step when lengths are given).
  struct Finished {
    Value outputs;
    SmallVector<Value> finals;
  };

  /// The sequence the steps of a time loop take their inputs from:
  /// `sequence` projected here, before the loop, when the scan's input is
  /// an rnn.project (a row-wise op, so the projection of a block of steps
  /// is that block of the projection), except in RAM-lean code, where each
  /// step projects its own input; otherwise `sequence` as is.
  StepSequence forSteps(OpBuilder &b, Value sequence);

  /// The whole batch, its input in processing order: reversed with lengths,
  /// an rnn.flip_sequences of the input (except RAM-lean, where each step
  /// reads its rows in place); reversed without lengths, the input itself,
  /// read from its end.
  StepRows wholeBatch(OpBuilder &b);

  /// The values that replace the scan: the outputs (flipped back to time
  /// order for keep_order where the input was flipped) and, if the scan
  /// returns them, the final carries.
  SmallVector<Value> replacements(OpBuilder &b, const Finished &finished);

  /// The scan's initial state for `rows` rows: carries (zeros or `init`),
  /// outputs (zeros when padded outputs are zeros and steps may be
  /// skipped), and the selected carries when they are captured.
  SmallVector<Value> initialState(OpBuilder &b, int64_t rows, ValueRange init,
                                  RankedTensorType outputsType,
                                  bool zeroOutputs);

  /// The results in `state`.
  Finished finish(ValueRange state);

  /// Steps per iteration of the time loop: `unroll`, at most T and at most
  /// kMaxUnroll.
  int64_t unrollFactor();

  /// The steps the time loop runs (a multiple of unrollFactor()); the
  /// remainder runs after it.
  int64_t loopSteps();

  /// Steps per block of the time loop for `rows` rows: a multiple of
  /// `unroll` dividing the loop's steps whose outputs take at least
  /// `timeBlockBytes` and that hold at least `timeBlockRows` rows, when the
  /// outputs of all steps take at least eight times `timeBlockBytes`;
  /// otherwise the whole loop. When padded steps are skipped (`skipping`),
  /// blocks are also the granularity of the skipping: as short as keeps
  /// `skipBlockRows` rows (rows x steps) per block for the hoisted
  /// projection.
  int64_t timeBlockSteps(int64_t rows, bool skipping);

  /// The input of `rows` for steps [first, first + count) (in processing
  /// order).
  Value inputBlock(OpBuilder &b, const StepRows &rows, OpFoldResult first,
                   int64_t count);

  /// One time step of `rows` at time `t`, its input step `local` of
  /// `sequence` (their input, or a block of its steps).
  SmallVector<Value> step(OpBuilder &b, const StepRows &rows, OpFoldResult t,
                          StepSequence sequence, OpFoldResult local,
                          ValueRange state);

  /// One time step of `rows` at time `t` on its (projected) `input`. With
  /// `besideCell`, that is called with the step's cell as soon as it is
  /// built, before the output is stored.
  SmallVector<Value>
  stepOn(OpBuilder &b, const StepRows &rows, OpFoldResult t, Value input,
         ValueRange state,
         function_ref<void(CellOpInterface)> besideCell = nullptr);

  /// Runs the scan's steps for `rows` on `state`: a loop over the steps that
  /// `unroll` divides, in blocks of steps for long sequences, then the
  /// remaining steps. With `activeSteps`, the loop stops at the first whole
  /// block (or unrolled iteration) at or after that step: later steps are
  /// padding.
  SmallVector<Value> runSteps(OpBuilder &b, const StepRows &rows,
                              SmallVector<Value> state, Value activeSteps,
                              StepRange range = {});

private:
  /// Whether a loop over `count` steps (all steps, or a block of them)
  /// computes their projection beside the recurrence (`overlap_rows`).
  bool overlapsSteps(int64_t count, Value activeSteps, const StepRange &range);

  /// Steps [first, first + count) of `rows` (`first` null: from step 0)
  /// with their projection computed beside the recurrence
  /// (OverlappedSteps.cpp), `sequence` their input, not projected.
  SmallVector<Value> runOverlappedSteps(OpBuilder &b, const StepRows &rows,
                                        Value sequence, Value first,
                                        int64_t count, ValueRange state);

  /// The type of carry `i` (batch dims first).
  RankedTensorType carryType(unsigned i);

  /// The rows that choose the blocks of steps (timeBlockSteps): `rows`, or
  /// the whole batch's when the function runs a part of it
  /// (kTimeBlockBatchAttrName).
  int64_t planRows(int64_t rows);

  /// The slice at time `t` of `sequence`.
  AxisSlice timeSlice(OpBuilder &b, Value sequence, OpFoldResult t);

  /// Step `t` of `sequence` (the input of `rows`, or a block of its steps),
  /// without its time axis.
  Value stepInput(OpBuilder &b, const StepRows &rows, Value sequence,
                  OpFoldResult t);

  /// Step `t` of the input of `rows` with every row reversed within its
  /// length, as rnn.flip_sequences orders it: step t of a row of length L
  /// is the input at L - 1 - t, and at T - 1 + L - t once t >= L.
  Value reversedRowStep(OpBuilder &b, const StepRows &rows, OpFoldResult t);

  /// The scan's projection (`projection`) of `rows`, any slice of its
  /// input's rows.
  Value project(OpBuilder &b, Value rows);

  /// `size - 1 - t`: step t counted from the end.
  OpFoldResult mirror(OpBuilder &b, OpFoldResult t, int64_t size);

  /// The slice of `outputs` that step `t`'s output goes into (reversed back
  /// for keep_order when the input is read from its end).
  AxisSlice outputSlice(OpBuilder &b, OpFoldResult t, Value outputs);

  /// `slice` of `outputs` as a tensor of `type` (a step's output).
  Value outputSlot(OpBuilder &b, const AxisSlice &slice, Type type,
                   Value outputs);

  /// `outputs` with the step output `y` inserted at `slice`; copied into the
  /// slot first unless `computedInSlot` (its producer writes the slot).
  Value storeOutput(OpBuilder &b, const AxisSlice &slice, Value y,
                    Value outputs, bool computedInSlot);

  /// The time index as an i32 value, to compare with lengths.
  Value timeAsI32(OpBuilder &b, OpFoldResult t);

  ScanOp op;
  /// The producer of the scan's input when it is the input-side product of
  /// the body's cell (--rnn-split-input-projection): the loops compute it
  /// on the slices of its input they read, never whole; null otherwise.
  ProjectOp projection;
  /// The rows the steps project together beside the recurrence
  /// (`overlap_rows`); 0 when they do not, and in RAM-lean code, where
  /// each step projects its own input.
  int64_t overlapRows;
  Location loc;
  int64_t timeAxis;
  ScanLoweringOptions options;
  bool captureCarry;

  /// Reverse without lengths: every row is reversed whole, so step t reads
  /// the input at T - 1 - t instead of a flipped copy of the input (and
  /// keep_order stores there).
  bool reversedIndex;

  /// Reverse with lengths in RAM-lean mode: step t of each row reads the
  /// input where rnn.flip_sequences would have put it (reversedRowStep),
  /// instead of a flipped copy of the whole input.
  bool reversedRows;
};

} // namespace mlir::rnn

#endif // RNN_CONVERSION_RNNSCANTOSCF_SCANLOWERING_H
