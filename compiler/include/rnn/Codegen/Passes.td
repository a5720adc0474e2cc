//===- Passes.td - From a model function to a C entry point -*- tablegen -*-===//

#ifndef RNN_CODEGEN_PASSES_TD
#define RNN_CODEGEN_PASSES_TD

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
    `memref.view` of the workspace at a 64-byte aligned offset (deallocs
    are dropped). The bytes needed are recorded as `rnn.workspace_size` on
    the module.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def RNNStridedCopiesToLinalgPass : Pass<"rnn-strided-copies-to-linalg"> {
  let summary = "turn memref.copy between non-contiguous buffers into linalg.copy";
  let description = [{
    Lowering a `memref.copy` whose source or target is strided (a slice of
    a sequence, a block of a merged output) calls the `memrefCopy` helper of
    MLIR's runner utilities, which generated code must not depend on. As a
    `linalg.copy` it becomes plain loops. Copies between contiguous buffers
    stay, and lower to `memcpy`.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

#endif // RNN_CODEGEN_PASSES_TD
