//===- RNNEnums.td - Enumerations of the rnn dialect -------*- tablegen -*-===//

#ifndef RNN_IR_RNNENUMS_TD
#define RNN_IR_RNNENUMS_TD

include "rnn/IR/RNNDialect.td"
include "mlir/IR/EnumAttr.td"

// All but softmax and log_softmax (which normalize over the last axis) are
// element-wise; only element-wise ones can be a cell's gate or activation.
def RNN_Activation : I32EnumAttr<"Activation",
    "activation function with jax.nn semantics", [
      I32EnumAttrCase<"sigmoid", 0>,
      I32EnumAttrCase<"hard_sigmoid", 1>,
      I32EnumAttrCase<"tanh", 2>,
      I32EnumAttrCase<"hard_tanh", 3>,
      I32EnumAttrCase<"relu", 4>,
      I32EnumAttrCase<"elu", 5>,
      I32EnumAttrCase<"silu", 6>,
      I32EnumAttrCase<"identity", 7>,
      I32EnumAttrCase<"gelu", 8>,        // jax.nn.gelu(approximate=True)
      I32EnumAttrCase<"gelu_exact", 9>,  // jax.nn.gelu(approximate=False)
      I32EnumAttrCase<"softmax", 10>,    // over the last axis
      I32EnumAttrCase<"log_softmax", 11>,// over the last axis
      I32EnumAttrCase<"softplus", 12>,
      I32EnumAttrCase<"leaky_relu", 13>]> { // slope 0.01
  let cppNamespace = "::mlir::rnn";
  let genSpecializedAttr = 0;
}
def RNN_ActivationAttr : EnumAttr<RNN_Dialect, RNN_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def RNN_Merge : I32EnumAttr<"Merge",
    "how a bidirectional layer combines its two directions' outputs", [
      I32EnumAttrCase<"concat", 0>,
      I32EnumAttrCase<"add", 1>,
      I32EnumAttrCase<"mul", 2>,
      I32EnumAttrCase<"mean", 3>]> {
  let cppNamespace = "::mlir::rnn";
  let genSpecializedAttr = 0;
}
def RNN_MergeAttr : EnumAttr<RNN_Dialect, RNN_Merge, "merge"> {
  let assemblyFormat = "`<` $value `>`";
}

def RNN_PoolKind : I32EnumAttr<"PoolKind",
    "how rnn.pool reduces the time axis", [
      I32EnumAttrCase<"last", 0>,
      I32EnumAttrCase<"first", 1>,
      I32EnumAttrCase<"mean", 2>,
      I32EnumAttrCase<"max", 3>,
      I32EnumAttrCase<"sum", 4>]> {
  let cppNamespace = "::mlir::rnn";
  let genSpecializedAttr = 0;
}
def RNN_PoolKindAttr : EnumAttr<RNN_Dialect, RNN_PoolKind, "pool_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // RNN_IR_RNNENUMS_TD
