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

#endif // RNN_TRANSFORMS_PASSES_TD
