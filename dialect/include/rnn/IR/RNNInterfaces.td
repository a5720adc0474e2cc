//===- RNNInterfaces.td - What every cell op offers --------*- tablegen -*-===//
//
// Passes that need "a cell" (the scan lowering, the lowering to linalg,
// canonicalization) go through CellOpInterface, never through a list of
// cell ops: a new cell kind is its ODS definition and its gate maths.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_IR_RNNINTERFACES_TD
#define RNN_IR_RNNINTERFACES_TD

include "mlir/IR/OpBase.td"

def RNN_CellOpInterface : OpInterface<"CellOpInterface"> {
  let cppNamespace = "::mlir::rnn";
  let description = [{
    One time step of a recurrent cell: an input, the carries in Flax's order
    (`h` last), an input-side kernel `wi` and a hidden-side kernel `wh` whose
    columns are `getNumGates()` blocks of the carry's features, optional
    biases `bi` and `bh` of those columns, and the new carries as results,
    in the carries' order. Operands come in this order: input, carries,
    `wi`, `wh`, `bi`, `bh`.

    The gate maths is the cell's own (`buildNewCarries`); the products that
    feed it (matmuls, or convolutions for cells with spatial dims) are the
    lowering's. A dense cell may take its input-side product precomputed
    (`hasProjectedInput`): its input is then a step of an `rnn.project` of
    the scan's input by `wi`.
  }];

  let methods = [
    StaticInterfaceMethod<
      "The number of gate blocks side by side in the kernels' columns.",
      "int64_t", "getNumGates", (ins), [{ return ConcreteOp::kNumGates; }]>,
    InterfaceMethod<"The step's input, (*batch, *spatial, features).",
      "::mlir::Value", "getInput", (ins), [{ return $_op.getInput(); }]>,
    InterfaceMethod<"The carries, `h` last; as many as the op's results.",
      "::mlir::Operation::operand_range", "getCarries", (ins), [{
        return $_op->getOperands().slice(1, $_op->getNumResults());
      }]>,
    InterfaceMethod<"The input-side kernel.", "::mlir::Value",
      "getInputKernel", (ins), [{ return $_op.getWi(); }]>,
    InterfaceMethod<"The hidden-side kernel.", "::mlir::Value",
      "getHiddenKernel", (ins), [{ return $_op.getWh(); }]>,
    InterfaceMethod<"The input-side bias, or null.", "::mlir::Value",
      "getInputBias", (ins), [{ return $_op.getBi(); }]>,
    InterfaceMethod<"The hidden-side bias, or null.", "::mlir::Value",
      "getHiddenBias", (ins), [{ return $_op.getBh(); }]>,
    InterfaceMethod<"The input-side bias operand (empty or one).",
      "::mlir::MutableOperandRange", "getInputBiasMutable", (ins),
      [{ return $_op.getBiMutable(); }]>,
    InterfaceMethod<"The hidden-side bias operand (empty or one).",
      "::mlir::MutableOperandRange", "getHiddenBiasMutable", (ins),
      [{ return $_op.getBhMutable(); }]>,
    InterfaceMethod<[{
        Spatial dims between the batch dims and the features of the input
        and the carries (convolutional cells); 0 for cells whose kernels are
        matrices.
      }], "int64_t", "getNumSpatialDims", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<[{
        Whether the input is the step's input-side product already (`G*H`
        columns, `rnn.project` of the scan's input by `wi`, placed there by
        `--rnn-split-input-projection`) rather than the step's features: the
        lowering then computes only `h @ wh`, and `wi` is read only for
        what applies per column in the gate maths (int8 scales).
      }], "bool", "hasProjectedInput", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        How the products and the gate maths are computed: f32, bf16 compute
        (`compute_type`, `carry_type`) or dynamic int8 activations.
      }], "::mlir::rnn::CellPrecision", "getPrecision", (ins), [{}], [{
        return ::mlir::rnn::CellPrecision::of($_op);
      }]>,
    InterfaceMethod<[{
        Whether the lowering may compute both products and the biases as
        one matmul `[1, x, h] @ [b; wi; wh]` (convert-rnn-to-linalg's
        `fuse-projections`): every gate's pre-activation is `xi + xh`, and
        `buildNewCarries` then gets `xh` empty. LSTM (measured on the
        Cortex-M4); the Elman cell would qualify but is not measured.
      }], "bool", "fusesProjections", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        The gate maths on scalars, inside the lowering's element-wise body:
        per gate `k`, `xi[k]` is the input side's pre-activation (product
        plus `bi`) and `xh[k]` the hidden side's (product plus `bh`; empty
        when `fusesProjections` summed both into `xi`); `carries` are the
        old carries' elements. Returns the new carries' elements, exactly as
        the op documents its maths (and, in bf16 compute, with the rounding
        points of docs/Semantics.md).
      }], "::llvm::SmallVector<::mlir::Value>", "buildNewCarries",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::llvm::ArrayRef<::mlir::Value>":$xi,
           "::llvm::ArrayRef<::mlir::Value>":$xh,
           "::llvm::ArrayRef<::mlir::Value>":$carries)>,
  ];
}

#endif // RNN_IR_RNNINTERFACES_TD
