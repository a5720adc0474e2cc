//===- Passes.td - The C entry point and its workspace -----*- tablegen -*-===//

#ifndef RNN_ABI_PASSES_TD
#define RNN_ABI_PASSES_TD

include "mlir/Pass/PassBase.td"

def RNNCreateEntryPointPass : Pass<"rnn-create-entry-point", "mlir::ModuleOp"> {
  let summary = "wrap the model function into its C entry point <name>_run";
  let description = [{
    The model function (the public function whose arguments carry
    `rnn.name`) takes and returns tensors. This pass replaces it with
    `<name>_run`, which takes one buffer per input, then one per output,
    then the workspace (`memref<?xi8>`, attribute `rnn.workspace`), and
    returns an i32 status. When the model has `seq_lengths`, the lengths
    are checked first (`rnnrt_check_seq_lengths`); on a bad length the
    status is returned and nothing is written. Otherwise the model's body
    runs on the input buffers and its results are materialized in the
    output buffers.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def RNNAssignWorkspacePass : Pass<"rnn-assign-workspace", "mlir::ModuleOp"> {
  let summary = "carve every buffer the entry point allocates out of its workspace";
  let description = [{
    Generated code never allocates: after bufferization, each static
    `memref.alloc` in a function with a workspace argument becomes a
    `memref.view` of the workspace at an `alignment`-byte aligned offset
    (deallocs are dropped). Buffers whose lifetimes do not overlap share
    space: a buffer lives from its allocation to the last use of anything
    that may alias it, and through every loop that uses it. The bytes
    needed are recorded as `rnn.workspace_size` on the module (the largest
    of its functions' but those built for a column split,
    `rnn.column_split`, whose step's workspace type states its own), the
    alignment as `rnn.workspace_alignment`.

    Buffers are placed first fit, in program order, or with
    `innermost-first` those used in the deepest loops first. On 32-bit Arm
    a load's immediate offset reaches 1020 bytes (vldr): with a step's
    matmul operand at a low offset every row of it is one base register
    plus an immediate, where at 1280 bytes (kws) LLVM added each row's
    address in every unrolled step of the loop over k (kws on the
    Cortex-M4, LLVM path: 8 % fewer instructions).
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "64",
           "bytes each buffer is aligned to (64, a cache line, for vector "
           "code; 8 on a microcontroller, which has no cache)">,
    Option<"innermostFirst", "innermost-first", "bool", "false",
           "place the buffers used in the deepest loops first, at the "
           "lowest offsets (32-bit Arm: within reach of vldr's 1020-byte "
           "immediate from the workspace pointer)">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

#endif // RNN_ABI_PASSES_TD
