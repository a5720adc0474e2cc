//===- Builders.h - Hand-built models for the reference tests ---*- C++ -*-===//
//
// Small helpers that build spec::Model and LayerParams directly (no YAML, no
// weights file) and run them through the reference implementation.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_TESTS_UNIT_REFERENCE_BUILDERS_H
#define RNN_TESTS_UNIT_REFERENCE_BUILDERS_H

#include "rnn/Reference/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace rnnc::test {

using reference::Array;
using reference::Inputs;
using reference::Outputs;

inline Tensor tensor(std::vector<int64_t> shape, std::vector<float> data) {
  return Tensor{std::move(shape), std::move(data)};
}

inline Array array(std::vector<int64_t> shape, std::vector<double> data) {
  return Array{std::move(shape), std::move(data)};
}

inline std::vector<int64_t> concatShape(std::vector<int64_t> a,
                                        const std::vector<int64_t> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline spec::Cell cell(spec::CellKind kind, int64_t features) {
  spec::Cell c;
  c.kind = kind;
  c.features = features;
  return c;
}

/// A SimpleCell with activation \p fn.
inline spec::Cell simpleCell(int64_t features,
                             spec::Activation fn = spec::Activation::Identity) {
  spec::Cell c = cell(spec::CellKind::Simple, features);
  c.activationFn = fn;
  return c;
}

inline spec::Layer
rnnLayer(std::string name, spec::Cell c, bool reverse = false,
         bool keepOrder = false, bool returnCarry = true,
         spec::InitialCarry init = spec::InitialCarry::Zeros) {
  spec::Layer layer;
  layer.kind = spec::Layer::Kind::RNN;
  layer.name = std::move(name);
  layer.rnn.cell = std::move(c);
  layer.rnn.reverse = reverse;
  layer.rnn.keepOrder = keepOrder;
  layer.returnCarry = returnCarry;
  layer.initialCarry = init;
  return layer;
}

inline spec::Layer biLayer(std::string name, spec::Cell fwd, spec::Cell bwd,
                           spec::Merge merge, bool returnCarry = true) {
  spec::Layer layer;
  layer.kind = spec::Layer::Kind::Bidirectional;
  layer.name = std::move(name);
  layer.forward.cell = std::move(fwd);
  layer.backward.cell = std::move(bwd);
  layer.merge = merge;
  layer.returnCarry = returnCarry;
  return layer;
}

inline spec::Model model(std::vector<int64_t> batch, int64_t time,
                         std::vector<int64_t> features,
                         std::vector<spec::Layer> layers,
                         bool seqLengths = false, bool timeMajor = false) {
  spec::Model m;
  m.name = "test";
  m.batch = std::move(batch);
  m.time = time;
  m.features = std::move(features);
  m.layers = std::move(layers);
  m.seqLengths = seqLengths;
  m.timeMajor = timeMajor;
  return m;
}

/// Weights of a dense cell: wi (I, G*H), wh (H, G*H), optional biases.
inline CellParams dense(int64_t in, int64_t cols, std::vector<float> wi,
                        int64_t hidden, std::vector<float> wh,
                        std::vector<float> bi = {},
                        std::vector<float> bh = {}) {
  CellParams p;
  p.wi = tensor({in, cols}, std::move(wi));
  p.wh = tensor({hidden, cols}, std::move(wh));
  if (!bi.empty())
    p.bi = tensor({cols}, std::move(bi));
  if (!bh.empty())
    p.bh = tensor({cols}, std::move(bh));
  return p;
}

/// SimpleCell weights for I = H = 1: h' = act(a*x + b*h + c).
inline CellParams scalarSimple(float a, float b, float c = 0.0f) {
  return dense(1, 1, {a}, 1, {b}, {c});
}

inline LayerParams single(CellParams p) {
  LayerParams params;
  params.forward = std::move(p);
  return params;
}

inline LayerParams pair(CellParams fwd, CellParams bwd) {
  LayerParams params;
  params.forward = std::move(fwd);
  params.backward = std::move(bwd);
  return params;
}

//===----------------------------------------------------------------------===//
// Non-recurrent layers and their Flax-layout weights.
//===----------------------------------------------------------------------===//

inline spec::Layer headLayer(spec::Layer::Kind kind, std::string name) {
  spec::Layer layer;
  layer.kind = kind;
  layer.name = std::move(name);
  return layer;
}

inline spec::Layer
denseLayer(std::string name, int64_t features, bool useBias = true,
           std::optional<spec::Activation> fn = std::nullopt) {
  spec::Layer layer = headLayer(spec::Layer::Kind::Dense, std::move(name));
  layer.features = features;
  layer.useBias = useBias;
  layer.activation = fn;
  return layer;
}

inline spec::Layer poolLayer(std::string name, spec::PoolFn fn,
                             bool validOnly = false) {
  spec::Layer layer = headLayer(spec::Layer::Kind::Pool, std::move(name));
  layer.poolFn = fn;
  layer.validOnly = validOnly;
  return layer;
}

inline spec::Layer embedLayer(std::string name, int64_t numEmbeddings,
                              int64_t features) {
  spec::Layer layer = headLayer(spec::Layer::Kind::Embed, std::move(name));
  layer.numEmbeddings = numEmbeddings;
  layer.features = features;
  return layer;
}

inline spec::Layer layerNormLayer(std::string name, double epsilon,
                                  bool useScale = true, bool useBias = true) {
  spec::Layer layer = headLayer(spec::Layer::Kind::LayerNorm, std::move(name));
  layer.epsilon = epsilon;
  layer.useScale = useScale;
  layer.useBias = useBias;
  return layer;
}

inline spec::Layer activationLayer(std::string name, spec::Activation fn) {
  spec::Layer layer = headLayer(spec::Layer::Kind::Activation, std::move(name));
  layer.activation = fn;
  return layer;
}

inline spec::Layer dropoutLayer(std::string name, double rate) {
  spec::Layer layer = headLayer(spec::Layer::Kind::Dropout, std::move(name));
  layer.rate = rate;
  return layer;
}

/// Dense weights: kernel (in, features) row-major, bias (features) if given.
inline LayerParams denseParams(int64_t in, int64_t features,
                               std::vector<float> kernel,
                               std::vector<float> bias = {}) {
  LayerParams params;
  params.kernel = tensor({in, features}, std::move(kernel));
  if (!bias.empty())
    params.bias = tensor({features}, std::move(bias));
  return params;
}

/// Embed weights: embedding (num_embeddings, features) row-major.
inline LayerParams embedParams(int64_t num, int64_t features,
                               std::vector<float> embedding) {
  LayerParams params;
  params.embedding = tensor({num, features}, std::move(embedding));
  return params;
}

/// LayerNorm weights: scale and bias (features), each if given.
inline LayerParams layerNormParams(std::vector<float> scale,
                                   std::vector<float> bias) {
  LayerParams params;
  if (!scale.empty())
    params.scale = tensor({int64_t(scale.size())}, std::move(scale));
  if (!bias.empty())
    params.bias = tensor({int64_t(bias.size())}, std::move(bias));
  return params;
}

/// The weights of a layer that has none (Pool, Activation, Dropout).
inline LayerParams noParams() { return LayerParams(); }

/// Runs the reference and fails the test on an error.
inline Outputs runOk(const spec::Model &m, const std::vector<LayerParams> &p,
                     const Inputs &in) {
  auto out = reference::run(m, p, in);
  if (!out) {
    ADD_FAILURE() << "reference::run failed: "
                  << llvm::toString(out.takeError());
    return Outputs();
  }
  return std::move(*out);
}

/// The error message of a run that must fail (empty if it succeeded).
inline std::string runError(const spec::Model &m,
                            const std::vector<LayerParams> &p,
                            const Inputs &in) {
  auto out = reference::run(m, p, in);
  if (out) {
    ADD_FAILURE() << "expected reference::run to fail";
    return "";
  }
  return llvm::toString(out.takeError());
}

/// Expects \p actual to have shape \p shape and values \p values (to 1e-12
/// relative to each value's magnitude).
inline void expectArray(const Array &actual, std::vector<int64_t> shape,
                        std::vector<double> values, double tol = 1e-12) {
  EXPECT_EQ(actual.shape, shape);
  ASSERT_EQ(actual.data.size(), values.size());
  for (size_t k = 0; k < values.size(); ++k)
    EXPECT_NEAR(actual.data[k], values[k], tol * (1.0 + std::abs(values[k])))
        << "at flat index " << k;
}

/// The carry array \p key of \p out (an empty array if it is missing).
inline Array carry(const Outputs &out, const std::string &key) {
  auto it = out.carries.find(key);
  if (it == out.carries.end()) {
    ADD_FAILURE() << "missing carry '" << key << "'";
    return Array();
  }
  return it->second;
}

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

} // namespace rnnc::test

#endif // RNN_TESTS_UNIT_REFERENCE_BUILDERS_H
