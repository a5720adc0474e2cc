//===- RNNTypes.td - What each tensor of the rnn ops holds -*- tablegen -*-===//
//
// Every operand and result of the rnn ops is one of these, named for what
// it holds, so that ODS rejects a wrong element type or a `?` at the
// operand; the verifiers keep only the rules between operands (one type for
// the activations, which params go with which activations).
//
// Static shapes only: every size is fixed at compile time (run-time sizes
// are scalar operands of the ops that take them), so a `?` is a verifier
// error here rather than invalid IR several passes later.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_IR_RNNTYPES_TD
#define RNN_IR_RNNTYPES_TD

include "mlir/IR/CommonTypeConstraints.td"

// Activations: a layer's input and output, the carries, the values between
// layers. f32, or bf16; the lowerings past the dialect handle f32
// (docs/Architecture.md, "An element type").
def RNN_ActivationTensor : RankedTensorOf<[F32, BF16], [HasStaticShapePred],
    "statically shaped activation tensor">;

// Float weights: biases, ConvLSTM's kernels, LayerNorm's scale and bias, an
// embedding table. f32, or bf16 (Flax's `param_dtype=bfloat16`: the lowering
// widens each where it reads it).
def RNN_WeightTensor : RankedTensorOf<[F32, BF16], [HasStaticShapePred],
    "statically shaped weight tensor">;

// int8 weights quantized per output channel (`quantize: {weights: int8}`,
// an rnnc extension): `!quant.uniform<i8<-127:127>:f32:1, {s_0, ...}>`,
// symmetric (zero points 0), one f32 scale per column. The scales travel in
// the type, so the ops keep their operands; the verifiers check the axis
// and the scale count against the shape.
def RNN_Int8PerChannel
    : Type<CPred<"::mlir::rnn::isInt8PerChannelType($_self)">,
           "int8 per-output-channel quantized type">;

// A matrix kernel (a dense cell's `wi` and `wh`, rnn.dense's, rnn.project's):
// float weights, or int8 per channel.
def RNN_KernelTensor
    : RankedTensorOf<[F32, BF16, RNN_Int8PerChannel], [HasStaticShapePred],
                     "statically shaped kernel tensor">;

// Sequence lengths and token ids: i32, as the C ABI passes them.
def RNN_LengthsTensor : StaticShapeTensorOf<[I32]>;
def RNN_TokenIdsTensor : StaticShapeTensorOf<[I32]>;

#endif // RNN_IR_RNNTYPES_TD
