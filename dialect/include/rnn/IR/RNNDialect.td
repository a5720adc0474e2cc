//===- RNNDialect.td - The rnn dialect ---------------------*- tablegen -*-===//
//
// Recurrent layers in Flax's vocabulary: cells, scans over time, and the
// sequence utilities Flax's RNN layer is built from.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_IR_RNNDIALECT_TD
#define RNN_IR_RNNDIALECT_TD

include "mlir/IR/OpBase.td"

def RNN_Dialect : Dialect {
  let name = "rnn";
  let cppNamespace = "::mlir::rnn";
  let summary = "Recurrent neural network layers with Flax semantics";
  let description = [{
    The `rnn` dialect expresses the recurrent models users write with
    `flax.linen` / `flax.nnx`: one op per cell kind (a single time step on
    tensors), `rnn.scan` (Flax's `RNN` layer: a cell scanned over time),
    `rnn.bidirectional`, the sequence utilities `rnn.flip_sequences`,
    `rnn.select_last_carry` and `rnn.merge`, and the layers a whole model
    puts around its recurrence: `rnn.embed`, `rnn.dense`, `rnn.layer_norm`,
    `rnn.activation` and `rnn.pool` (a reduction over time).

    Weights are ordinary SSA tensor values (usually constants) in rnnc's
    fused layout: for a cell with `G` gates and `H` features,
    `gi = x @ wi (+ bi)` with `wi : I x G*H` and `gh = h @ wh (+ bh)` with
    `wh : H x G*H`; each op documents its gate order. Because weights are
    values, passes can fold, fuse and pre-pack them.
  }];
  // Int8 kernels are tensors of quant's per-axis type (RNNTypes.td).
  let dependentDialects = ["::mlir::quant::QuantDialect"];
  let useDefaultAttributePrinterParser = 1;
  // The rnn.* discardable attributes are contracts between stages; each is
  // checked where it may appear (RNNDialect.cpp).
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  // Patterns on interfaces (DropZeroBias on every cell), registered once.
  let hasCanonicalizer = 1;
}

class RNN_Op<string mnemonic, list<Trait> traits = []>
    : Op<RNN_Dialect, mnemonic, traits>;

#endif // RNN_IR_RNNDIALECT_TD
