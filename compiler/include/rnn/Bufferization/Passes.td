//===- Passes.td - Tensors to buffers ----------------------*- tablegen -*-===//

#ifndef RNN_BUFFERIZATION_PASSES_TD
#define RNN_BUFFERIZATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def RNNWriteOutputsInPlacePass : Pass<"rnn-write-outputs-in-place"> {
  let summary = "build each output in the caller's buffer instead of copying it there";
  let description = [{
    The entry point hands each result to its output buffer with
    `bufferization.materialize_in_destination`. When the result is built up
    from a `tensor.empty` through a chain of ops that each only update their
    destination (`scf.for` iteration arguments, `tensor.insert_slice`,
    destination-style ops), this pass starts the chain from the output
    buffer itself (`bufferization.to_tensor restrict writable`), so
    bufferization writes the sequence where the caller wants it rather than
    into the workspace followed by a copy. An output buffer allocated after
    the chain starts (with run-time sizes, the maximum-shape buffer the
    entry point copies to the caller's afterwards) is allocated before it
    when it has no size operands.

    Only chains whose every link has a single use are rewritten: upstream's
    `eliminate-empty-tensors` also follows shared values (after CSE, one
    `tensor.empty` can seed the initial carries and several results), and
    then made two results share one output buffer.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

def RNNBufferizePass : Pass<"rnn-bufferize", "mlir::ModuleOp"> {
  let summary = "one-shot bufferization with copies that need no runtime helper";
  let description = [{
    Upstream's `one-shot-bufferize` with its default options, configured
    from C++ where the textual pass cannot be: a copy between contiguous
    buffers is a `memref.copy` (which lowers to `memcpy`), any other copy
    (a slice of a sequence, a block of a merged output) a `linalg.copy`,
    which becomes plain loops. Lowering a strided `memref.copy` would call
    the `memrefCopy` helper of MLIR's runner utilities, which generated code
    must not depend on. `rnn.flip_sequences` and `rnn.select_last_carry`
    bufferize to their librnnrt calls (their external models are in
    `RNNToRuntime`) on a result buffer allocated like any other.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // RNN_BUFFERIZATION_PASSES_TD
