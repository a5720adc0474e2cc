//===- RNNDialect.h - The rnn dialect ---------------------------*- C++ -*-===//

#ifndef RNN_IR_RNNDIALECT_H
#define RNN_IR_RNNDIALECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"

#include "rnn/IR/RNNDialect.h.inc"

namespace mlir::rnn {

// The discardable attributes the stages of rnnc put on ops, arguments and
// results: contracts between passes, all checked by the dialect's verifier
// (RNNDialect.cpp, tests/Dialect/RNN/attributes-invalid.mlir) and listed
// with their producers and consumers in docs/Architecture.md ("Attributes
// between stages"). A new one needs its branch in the verifier.

/// On arguments and results: the input's or output's name, which is its key
/// in `rnnc run`'s npz files ("x", "seq_lengths", "carry/dec/h", ...).
constexpr llvm::StringLiteral kNameAttrName = "rnn.name";
/// On an entry point argument: the model writes it (`y`, the final carries).
constexpr llvm::StringLiteral kOutputAttrName = "rnn.output";
/// On a model function: its sequence length T (an i64).
constexpr llvm::StringLiteral kNumStepsAttrName = "rnn.num_steps";
/// On a model function's arguments and results with a time axis, when the
/// number of steps is a run-time argument (`steps`): that axis (an i64).
/// The caller's buffer is dense for the actual steps; the entry point maps
/// it to and from the maximum shape the model's tensors have.
constexpr llvm::StringLiteral kTimeAxisAttrName = "rnn.time_axis";
/// The name of the run-time number of steps argument (a tensor<i32>).
constexpr llvm::StringLiteral kStepsArgName = "steps";
/// The run-time size of batch dim d is the argument `batch_<d>` (a
/// tensor<i32>, `input.batch: [{max: N}]`); they come before `steps`.
constexpr llvm::StringLiteral kBatchArgPrefix = "batch_";
/// On a model function's arguments and results when a batch dim has a
/// run-time size: the axis of the first batch dim (an i64; the batch dims
/// are consecutive). The caller's buffer is dense for the actual sizes; the
/// entry point maps it to and from the maximum shape of the model's tensors.
constexpr llvm::StringLiteral kBatchAxisAttrName = "rnn.batch_axis";
/// On a model function with several batch dims, some of run-time size: the
/// number of batch dims (an i64) whose actual rows the model takes as one
/// row-major prefix of their maximum product (the layers run them as one
/// batch dim of rows), so the entry point copies each array's actual part
/// to and from the start of those dims, not to a box of the maxima.
constexpr llvm::StringLiteral kFlatBatchAttrName = "rnn.flat_batch";
/// On a model function (and its entry point): the rows its scans choose
/// their blocks of steps for (an i64), when it runs a part of a larger
/// static batch for <name>_run_parallel: the part's rows then sum in the
/// same order (time blocks, and so sweep directions) as in the whole's run.
constexpr llvm::StringLiteral kTimeBlockBatchAttrName = "rnn.time_block_batch";
/// On a model function (and its entry point): the function exists to be
/// split into <name>_run_parallel's batch-1 column tasks
/// (rnn-split-gate-columns), whose share of each gate's columns starts at a
/// multiple of this many (an i64). Its scans compute their input
/// projection before the recurrence, not beside it
/// (rnn-overlap-input-projection leaves them: the pieces' columns would
/// cross the tasks' shares), and its matmul blocks hold columns of one side
/// of such a multiple only (rnn-vectorize-matmuls).
constexpr llvm::StringLiteral kColumnSplitAttrName = "rnn.column_split";
/// On one entry point argument, a 1-D i8 memref (a pointer once lowered):
/// the workspace the caller provides and every allocation is carved from.
constexpr llvm::StringLiteral kWorkspaceAttrName = "rnn.workspace";
/// On the module: the workspace bytes its entry point needs (an i64).
constexpr llvm::StringLiteral kWorkspaceSizeAttrName = "rnn.workspace_size";
/// On the module: the alignment (bytes, an i64) of the buffers in the
/// workspace, the WORKSPACE_ALIGNMENT the header recommends.
constexpr llvm::StringLiteral kWorkspaceAlignmentAttrName =
    "rnn.workspace_alignment";

/// On the module: the SHA-256 (lower-case hex) of the spec and of the
/// weights file it was compiled from, for <name>_info().
constexpr llvm::StringLiteral kSpecHashAttrName = "rnn.spec_sha256";
constexpr llvm::StringLiteral kWeightsHashAttrName = "rnn.weights_sha256";
/// On a math.fma (and the llvm.intr.fma it becomes): the result must be the
/// exactly rounded a*b+c (set by --rnn-approximate-math). Every other fma
/// only needs to be accurate: the native emitter makes it llvm.fmuladd, one
/// instruction where the target has FMA and a multiply and an add where it
/// has not (not a call to fmaf).
constexpr llvm::StringLiteral kExactFMAAttrName = "rnn.exact_fma";

/// The module's rnn.workspace_alignment (64 before rnn-assign-workspace).
inline int64_t workspaceAlignment(ModuleOp module) {
  auto attr = module->getAttrOfType<IntegerAttr>(kWorkspaceAlignmentAttrName);
  return attr ? attr.getInt() : 64;
}

} // namespace mlir::rnn

#endif // RNN_IR_RNNDIALECT_H
