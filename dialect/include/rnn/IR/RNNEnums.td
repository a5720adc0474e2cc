//===- RNNEnums.td - Enumerations of the rnn dialect -------*- tablegen -*-===//

#ifndef RNN_IR_RNNENUMS_TD
#define RNN_IR_RNNENUMS_TD

include "rnn/IR/RNNDialect.td"
include "mlir/IR/EnumAttr.td"

def RNN_Activation : I32EnumAttr<"Activation",
    "element-wise function with jax.nn semantics", [
      I32EnumAttrCase<"sigmoid", 0>,
      I32EnumAttrCase<"hard_sigmoid", 1>,
      I32EnumAttrCase<"tanh", 2>,
      I32EnumAttrCase<"hard_tanh", 3>,
      I32EnumAttrCase<"relu", 4>,
      I32EnumAttrCase<"elu", 5>,
      I32EnumAttrCase<"silu", 6>,
      I32EnumAttrCase<"identity", 7>]> {
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

#endif // RNN_IR_RNNENUMS_TD
