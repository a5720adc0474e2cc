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

#endif // RNN_TRANSFORMS_PASSES_TD
