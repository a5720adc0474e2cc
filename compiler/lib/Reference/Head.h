//===- Head.h - Dense, Embed, LayerNorm, Activation, Dropout ----*- C++ -*-===//
//
// The non-recurrent layers that act on every step (or, after a Pool, on the
// one remaining vector of each row) on their own: all but Pool (Pool.h).
// Each works on the last axis of the per-step features, so a ConvLSTM
// output [spatial..., C] is mapped at every spatial position. Weights are
// Flax's own arrays (Params.h): Dense kernel (in, features) and bias
// (features), Embed embedding (num_embeddings, features), LayerNorm scale
// and bias (features).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_REFERENCE_HEAD_H
#define RNN_LIB_REFERENCE_HEAD_H

#include "Arrays.h"

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Params.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace rnnc::reference::detail {

/// Applies \p fn to \p data, a run of vectors of \p last values each:
/// element-wise for all but softmax and log_softmax, which normalize each
/// vector (jax.nn.softmax / log_softmax over the last axis, max-shifted).
void applyActivation(spec::Activation fn, std::vector<double> &data,
                     int64_t last);

/// Checks a Dense, Embed, LayerNorm, Activation or Dropout \p layer and its
/// weights \p params for per-step inputs of shape \p input (for an Embed:
/// []) and returns the per-step output shape. \p what names the layer.
llvm::Expected<std::vector<int64_t>>
checkHeadLayer(const spec::Layer &layer, const LayerParams &params,
               llvm::ArrayRef<int64_t> input, const llvm::Twine &what);

/// Rejects any weights for \p what, a layer that has none (Pool).
llvm::Error checkNoParams(const LayerParams &params, const llvm::Twine &what);

/// Checks that every value of \p x is an integral token id in
/// [0, numEmbeddings); the error names the first bad id and its position
/// in x ("x[1, 4]").
llvm::Error checkTokenIds(const Array &x, int64_t numEmbeddings);

/// Runs a layer accepted by checkHeadLayer on \p x, whose steps have shape
/// \p input (an Embed's steps are one token id each).
Sequences runHeadLayer(const spec::Layer &layer, const LayerParams &params,
                       llvm::ArrayRef<int64_t> input, const Sequences &x);

} // namespace rnnc::reference::detail

#endif // RNN_LIB_REFERENCE_HEAD_H
