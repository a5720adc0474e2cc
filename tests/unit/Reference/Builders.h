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
  return LayerParams{std::move(p), {}};
}

inline LayerParams pair(CellParams fwd, CellParams bwd) {
  return LayerParams{std::move(fwd), std::move(bwd)};
}

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
