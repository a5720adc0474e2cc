//===- RNNDialect.h - The rnn dialect ---------------------------*- C++ -*-===//

#ifndef RNN_IR_RNNDIALECT_H
#define RNN_IR_RNNDIALECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"

#include "rnn/IR/RNNDialect.h.inc"

namespace mlir::rnn {

// Discardable attributes rnnc puts on a model function and its entry point.

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
/// On an entry point argument: the workspace.
constexpr llvm::StringLiteral kWorkspaceAttrName = "rnn.workspace";
/// On the module: the workspace bytes its entry point needs (an i64).
constexpr llvm::StringLiteral kWorkspaceSizeAttrName = "rnn.workspace_size";
/// On the module: the alignment (bytes, an i64) of the buffers in the
/// workspace, the WORKSPACE_ALIGNMENT the header recommends.
constexpr llvm::StringLiteral kWorkspaceAlignmentAttrName =
    "rnn.workspace_alignment";

/// The entry point's status when a buffer it needs is NULL or the workspace
/// is misaligned (<NAME>_ERROR_ARGUMENT in the header, RNNRT_ERROR_ARGUMENT).
constexpr int32_t kStatusArgument = 2;
/// The alignment (bytes) the entry point checks the workspace for: that of
/// the float and int32 buffers carved out of it, which every load and store
/// the generated code makes assumes and no more (vector accesses are
/// unaligned). WORKSPACE_ALIGNMENT (64, a cache line) is faster.
constexpr int64_t kMinWorkspaceAlignment = 4;

/// The module's rnn.workspace_alignment (64 before rnn-assign-workspace).
inline int64_t workspaceAlignment(ModuleOp module) {
  auto attr = module->getAttrOfType<IntegerAttr>(kWorkspaceAlignmentAttrName);
  return attr ? attr.getInt() : 64;
}

} // namespace mlir::rnn

#endif // RNN_IR_RNNDIALECT_H
