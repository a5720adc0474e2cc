//===- Quantize.h - int8 weights, symmetric per output column ---*- C++ -*-===//
//
// `quantize: {weights: int8}` (an rnnc extension): rnnc quantizes a float
// kernel (rows x columns, the columns being output channels) at compile time:
//
//   scale_j = max_i |w_ij| / 127            (float32)
//   q_ij    = clamp(rne(w_ij / scale_j), -127, 127)
//
// rne rounds to nearest, ties to even. A column whose max is 0 (or so small
// that max / 127 underflows to 0) gets scale 1 and all-zero values: exact
// for a zero column. The model then computes with q_ij * scale_j.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_WEIGHTS_QUANTIZE_H
#define RNN_WEIGHTS_QUANTIZE_H

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Params.h"

#include "llvm/Support/Error.h"

namespace rnnc {

/// `kernel` (rank 2) quantized per column. Non-finite weights have no int8
/// value: std::nullopt.
std::optional<Int8Kernel> quantizeInt8PerColumn(const Tensor &kernel);

/// The float weights `kernel` stands for (q * scale, exact in float32).
Tensor dequantize(const Int8Kernel &kernel);

/// Applies `quantize: {weights: int8}` to bound params: the kernels of
/// every cell with `int8Weights` and, when the model has int8 weights, of
/// every Dense layer get their int8 form, and the float kernels become the
/// dequantized ones (what the model computes with). Biases, Embed,
/// LayerNorm and ConvLSTM params stay float32. Non-finite kernel values
/// are an error naming the layer.
llvm::Error quantizeWeights(const spec::Model &model,
                            std::vector<LayerParams> &params);

} // namespace rnnc

#endif // RNN_WEIGHTS_QUANTIZE_H
