//===- Passes.td - Transforms of the rnn dialect -----------*- tablegen -*-===//

#ifndef RNN_TRANSFORMS_PASSES_TD
#define RNN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RNNExpandBidirectionalPass : Pass<"rnn-expand-bidirectional"> {
  let summary = "split rnn.bidirectional into two rnn.scan ops and an rnn.merge";
  let description = [{
    The forward body becomes a forward scan; the backward body a scan with
    `reverse` and `keep_order`, so both produce outputs in input order, and
    `rnn.merge` combines them. Initial carries, lengths, final carries and
    unroll factors go to the scan they belong to.
  }];
  let dependentDialects = [];
}

def RNNRuntimeRowsPass : Pass<"rnn-runtime-rows"> {
  let summary = "run the layers after a scan with `rows` on its actual rows";
  let description = [{
    The rows of an `rnn.scan` with `rows` beyond that count are undefined,
    so the layers that map each row alone (`rnn.dense`, `rnn.activation`,
    `rnn.layer_norm`, `rnn.merge`, `rnn.pool` without lengths) on its
    results need not compute them: each becomes one block of rows per set
    binary digit of the count (an `scf.for` of zero or one iteration), a
    static clone of the layer on a slice of its rows, and its result carries
    the rows on to the next layer.
  }];
  let dependentDialects = ["arith::ArithDialect", "scf::SCFDialect",
                           "tensor::TensorDialect"];
}

def RNNSplitInputProjectionPass : Pass<"rnn-split-input-projection"> {
  let summary = "compute the input side of a scan's cell before the scan";
  let description = [{
    A dense cell's input-side product `x_t @ wi` reads no carry, so all of
    a scan's steps' products are one `rnn.project` of the scan's input,
    which makes T small matmuls one large, efficient one and leaves the
    recurrence only `h @ wh`. On each `rnn.scan` whose body's cell reads the
    step input (and nothing else does), the pass puts that `rnn.project`
    (the cell's kernel and precision: f32 or bf16 params, int8 weights,
    dynamic int8 activations) before the scan, makes it the scan's input,
    and marks the cell `projected_input`. Every kind of scan qualifies:
    both directions of an expanded Bidirectional, stacked layers, reverse
    (`rnn.project` is row-wise, so it commutes with the flip), lengths,
    run-time rows and steps. Each element still sums the same products in
    the same order.

    Left alone: cells with `compute_type` (bf16 compute rounds the input
    before its product), convolutional cells, and unbatched scans (both
    keep the product in each step, as their code always has). `--convert-rnn-scan-to-scf`
    computes the projection per loop over steps, or per block of steps, on
    the slice of the input that loop reads. RAM-lean pipelines do not run
    this pass: their cells keep `x` and `wi`, so the product stays in each
    step (no buffer grows with T) and `fuse-projections` can share the
    accumulators of both products.
  }];
  let dependentDialects = [];
}

#endif // RNN_TRANSFORMS_PASSES_TD
