//===- Quantize.cpp - int8 weights, symmetric per output column -----------===//

#include "rnn/Weights/Quantize.h"

#include <algorithm>
#include <cmath>

using namespace rnnc;

std::optional<Int8Kernel> rnnc::quantizeInt8PerColumn(const Tensor &kernel) {
  int64_t columns = kernel.shape.back();
  int64_t rows = columns ? int64_t(kernel.data.size()) / columns : 0;
  Int8Kernel result{kernel.shape, std::vector<int8_t>(kernel.data.size()),
                    std::vector<float>(columns, 1.0f)};
  for (int64_t j = 0; j < columns; ++j) {
    float max = 0.0f;
    for (int64_t i = 0; i < rows; ++i) {
      float w = kernel.data[i * columns + j];
      if (!std::isfinite(w))
        return std::nullopt;
      max = std::max(max, std::fabs(w));
    }
    float scale = max / 127.0f;
    if (scale == 0.0f)
      continue; // a zero column: scale 1, values 0 (exact)
    result.scales[j] = scale;
    for (int64_t i = 0; i < rows; ++i) {
      // nearbyint rounds in the default mode: to nearest, ties to even.
      float q = std::nearbyint(kernel.data[i * columns + j] / scale);
      result.values[i * columns + j] = int8_t(std::clamp(q, -127.0f, 127.0f));
    }
  }
  return result;
}

Tensor rnnc::dequantize(const Int8Kernel &kernel) {
  // The scales' type: what the weights are computed with.
  Tensor result{kernel.shape, std::vector<float>(kernel.values.size()),
                spec::ElementType::Float32};
  int64_t columns = kernel.shape.back();
  for (size_t k = 0; k < kernel.values.size(); ++k)
    result.data[k] = float(kernel.values[k]) * kernel.scales[k % columns];
  return result;
}

/// Quantizes `kernel` in place into `int8`.
static bool quantizeKernel(Tensor &kernel, std::optional<Int8Kernel> &int8) {
  int8 = quantizeInt8PerColumn(kernel);
  if (!int8)
    return false;
  kernel = dequantize(*int8);
  return true;
}

llvm::Error rnnc::quantizeWeights(const spec::Model &model,
                                  std::vector<LayerParams> &params) {
  for (size_t k = 0; k < model.layers.size() && k < params.size(); ++k) {
    const spec::Layer &layer = model.layers[k];
    LayerParams &p = params[k];
    bool ok = true;
    if (layer.kind == spec::Layer::Kind::Dense && model.int8Weights &&
        p.kernel)
      ok = quantizeKernel(*p.kernel, p.kernelInt8);
    auto cell = [&](const spec::RNN &rnn, CellParams &cellParams) {
      if (rnn.cell.int8Weights)
        ok = ok && quantizeKernel(cellParams.wi, cellParams.wiInt8) &&
             quantizeKernel(cellParams.wh, cellParams.whInt8);
    };
    if (layer.isBidirectional()) {
      cell(layer.forward, p.forward);
      if (p.backward)
        cell(layer.backward, *p.backward);
    } else if (layer.kind == spec::Layer::Kind::RNN) {
      cell(layer.rnn, p.forward);
    }
    if (!ok)
      return llvm::createStringError(
          "quantize: cannot quantize the kernels of layer '" + layer.name +
          "' to int8: they hold non-finite values");
  }
  return llvm::Error::success();
}
