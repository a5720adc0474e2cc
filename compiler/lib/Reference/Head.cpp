//===- Head.cpp - Dense, Embed, LayerNorm, Activation, Dropout ------------===//

#include "Head.h"
#include "Cells.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace rnnc;
using namespace rnnc::reference;
using namespace rnnc::reference::detail;
using spec::Activation;
using Kind = spec::Layer::Kind;

void detail::applyActivation(Activation fn, std::vector<double> &data,
                             int64_t last) {
  if (fn != Activation::Softmax && fn != Activation::LogSoftmax) {
    for (double &v : data)
      v = activate(fn, v);
    return;
  }
  for (size_t start = 0; last > 0 && start < data.size(); start += last) {
    double *v = data.data() + start;
    double max = *std::max_element(v, v + last);
    double sum = 0.0;
    for (int64_t k = 0; k < last; ++k)
      sum += std::exp(v[k] - max);
    for (int64_t k = 0; k < last; ++k)
      v[k] = fn == Activation::Softmax ? std::exp(v[k] - max) / sum
                                       : (v[k] - max) - std::log(sum);
  }
}

/// Rejects weights \p layer does not have: cell weights always, the other
/// arrays unless \p allowed lists them.
static llvm::Error
checkNoOtherParams(const LayerParams &params,
                   std::initializer_list<const std::optional<Tensor> *> allowed,
                   const llvm::Twine &what) {
  if (params.backward || !params.forward.wi.shape.empty() ||
      !params.forward.wh.shape.empty() || params.forward.bi ||
      params.forward.bh)
    return makeError("unexpected cell weights for " + what);
  std::pair<const std::optional<Tensor> *, const char *> arrays[] = {
      {&params.kernel, "kernel"},
      {&params.bias, "bias"},
      {&params.scale, "scale"},
      {&params.embedding, "embedding"}};
  for (auto [array, name] : arrays)
    if (*array &&
        std::find(allowed.begin(), allowed.end(), array) == allowed.end())
      return makeError("unexpected '" + llvm::Twine(name) + "' for " + what);
  return llvm::Error::success();
}

llvm::Error detail::checkNoParams(const LayerParams &params,
                                  const llvm::Twine &what) {
  return checkNoOtherParams(params, {}, what);
}

/// Checks an optional weight that must be present iff \p wanted.
static llvm::Error checkOptional(const std::optional<Tensor> &tensor,
                                 bool wanted, llvm::ArrayRef<int64_t> shape,
                                 const llvm::Twine &what) {
  if (!wanted)
    return tensor ? makeError("unexpected " + what) : llvm::Error::success();
  if (!tensor)
    return makeError("missing " + what);
  return checkTensor(*tensor, shape, what);
}

llvm::Expected<std::vector<int64_t>>
detail::checkHeadLayer(const spec::Layer &layer, const LayerParams &params,
                       llvm::ArrayRef<int64_t> input, const llvm::Twine &what) {
  std::vector<int64_t> out(input.begin(), input.end());
  if (layer.kind == Kind::Embed) {
    if (!input.empty())
      return makeError("expected token ids (no per-step features) for Embed " +
                       what + ", found per-step shape " + shapeString(input));
    if (layer.numEmbeddings <= 0 || layer.features <= 0)
      return makeError("expected positive num_embeddings and features for " +
                       what);
    if (auto err = checkNoOtherParams(params, {&params.embedding}, what))
      return std::move(err);
    if (auto err = checkOptional(params.embedding, true,
                                 {layer.numEmbeddings, layer.features},
                                 "'embedding' of " + what))
      return std::move(err);
    return std::vector<int64_t>{layer.features};
  }
  if (input.empty())
    return makeError("expected per-step features for " + what +
                     ", found token ids: only an Embed reads them");
  const int64_t last = input.back();
  switch (layer.kind) {
  case Kind::Dense:
    if (layer.features <= 0)
      return makeError("expected positive features for " + what);
    if (auto err =
            checkNoOtherParams(params, {&params.kernel, &params.bias}, what))
      return std::move(err);
    if (auto err = checkOptional(params.kernel, true, {last, layer.features},
                                 "'kernel' of " + what))
      return std::move(err);
    if (auto err = checkOptional(params.bias, layer.useBias, {layer.features},
                                 "'bias' of " + what + " (use_bias: " +
                                     (layer.useBias ? "true" : "false") + ")"))
      return std::move(err);
    out.back() = layer.features;
    return out;
  case Kind::LayerNorm:
    if (!(layer.epsilon > 0.0))
      return makeError("expected a positive epsilon for " + what);
    if (auto err =
            checkNoOtherParams(params, {&params.scale, &params.bias}, what))
      return std::move(err);
    if (auto err = checkOptional(params.scale, layer.useScale, {last},
                                 "'scale' of " + what))
      return std::move(err);
    if (auto err = checkOptional(params.bias, layer.useBias, {last},
                                 "'bias' of " + what))
      return std::move(err);
    return out;
  case Kind::Activation:
    if (!layer.activation)
      return makeError("expected an activation fn for " + what);
    [[fallthrough]];
  case Kind::Dropout:
    if (auto err = checkNoOtherParams(params, {}, what))
      return std::move(err);
    return out;
  default:
    return makeError("expected a Dense, Embed, LayerNorm, Activation or "
                     "Dropout layer in " +
                     what + ", found " + spec::stringify(layer.kind));
  }
}

llvm::Error detail::checkTokenIds(const Array &x, int64_t numEmbeddings) {
  for (size_t k = 0; k < x.data.size(); ++k) {
    double id = x.data[k];
    if (std::trunc(id) == id && id >= 0.0 &&
        id < static_cast<double>(numEmbeddings))
      continue;
    std::vector<int64_t> index(x.shape.size());
    int64_t flat = static_cast<int64_t>(k);
    for (size_t d = x.shape.size(); d-- > 0;) {
      index[d] = flat % x.shape[d];
      flat /= x.shape[d];
    }
    std::string value;
    llvm::raw_string_ostream(value) << llvm::format("%.17g", id);
    return makeError("expected integral token ids in [0, " +
                     llvm::Twine(numEmbeddings) + ") in 'x', found " + value +
                     " at x" + shapeString(index));
  }
  return llvm::Error::success();
}

/// y = x @ kernel (+ bias) over every vector of `in` values of \p x.
static std::vector<double> dense(const std::vector<double> &x, int64_t in,
                                 const Tensor &kernel,
                                 const std::optional<Tensor> &bias) {
  const int64_t features = kernel.shape[1];
  const size_t vectors = x.size() / static_cast<size_t>(in);
  std::vector<double> y(vectors * features, 0.0);
  for (size_t v = 0; v < vectors; ++v) {
    double *dst = y.data() + v * features;
    for (int64_t k = 0; k < in; ++k) {
      double xk = x[v * in + k];
      for (int64_t j = 0; j < features; ++j)
        dst[j] += xk * static_cast<double>(kernel.data[k * features + j]);
    }
    if (bias)
      for (int64_t j = 0; j < features; ++j)
        dst[j] += static_cast<double>(bias->data[j]);
  }
  return y;
}

/// flax.linen.LayerNorm (use_fast_variance) over every vector of n values.
static void layerNorm(const spec::Layer &layer, const LayerParams &params,
                      std::vector<double> &data, int64_t n) {
  for (size_t start = 0; start < data.size(); start += n) {
    double *v = data.data() + start;
    double mean = 0.0, meanSq = 0.0;
    for (int64_t k = 0; k < n; ++k) {
      mean += v[k];
      meanSq += v[k] * v[k];
    }
    mean /= static_cast<double>(n);
    meanSq /= static_cast<double>(n);
    double var = std::max(0.0, meanSq - mean * mean);
    double mul = 1.0 / std::sqrt(var + layer.epsilon);
    for (int64_t k = 0; k < n; ++k) {
      double y = (v[k] - mean) * mul;
      if (params.scale)
        y *= static_cast<double>(params.scale->data[k]);
      if (params.bias)
        y += static_cast<double>(params.bias->data[k]);
      v[k] = y;
    }
  }
}

Sequences detail::runHeadLayer(const spec::Layer &layer,
                               const LayerParams &params,
                               llvm::ArrayRef<int64_t> input,
                               const Sequences &x) {
  Sequences out = x;
  switch (layer.kind) {
  case Kind::Embed: {
    // Each step holds one token id, already checked by checkTokenIds.
    const int64_t features = layer.features;
    out = Sequences(x.rows, x.time, features);
    for (size_t k = 0; k < x.data.size(); ++k) {
      int64_t id = static_cast<int64_t>(x.data[k]);
      for (int64_t j = 0; j < features; ++j)
        out.data[k * features + j] =
            static_cast<double>(params.embedding->data[id * features + j]);
    }
    break;
  }
  case Kind::Dense:
    out.width = x.width / input.back() * layer.features;
    out.data = dense(x.data, input.back(), *params.kernel, params.bias);
    if (layer.activation)
      applyActivation(*layer.activation, out.data, layer.features);
    break;
  case Kind::LayerNorm:
    layerNorm(layer, params, out.data, input.back());
    break;
  case Kind::Activation:
    applyActivation(*layer.activation, out.data, input.back());
    break;
  default: // Dropout: the identity at inference.
    break;
  }
  return out;
}
