//===- ConvLSTMTest.cpp - ConvLSTM against a brute-force convolution ------===//
//
// The oracle here pads each state into a larger zero array (SAME padding:
// low (k-1)/2, high k/2) and runs a VALID 2-D cross-correlation over it,
// whereas the library bounds-checks an N-D index. A 1-D case is the 2-D
// oracle with a second spatial dim of size 1 and kernel size 1 there (the
// weights have the same row-major data).
//
//===----------------------------------------------------------------------===//

#include "Builders.h"

#include <random>

using namespace rnnc;
using namespace rnnc::test;
using spec::CellKind;

namespace {

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-0.6f, 0.6f);
  std::vector<float> v(n);
  for (float &f : v)
    f = dist(gen);
  return v;
}

/// A [s0 + k0 - 1][s1 + k1 - 1][ch] zero-padded copy of `state` ([s0][s1][ch]).
std::vector<std::vector<std::vector<double>>> padSame(const double *state,
                                                      int64_t s0, int64_t s1,
                                                      int64_t ch, int64_t k0,
                                                      int64_t k1) {
  std::vector<std::vector<std::vector<double>>> padded(
      s0 + k0 - 1, std::vector<std::vector<double>>(
                       s1 + k1 - 1, std::vector<double>(ch, 0.0)));
  for (int64_t a = 0; a < s0; ++a)
    for (int64_t b = 0; b < s1; ++b)
      for (int64_t c = 0; c < ch; ++c)
        padded[a + (k0 - 1) / 2][b + (k1 - 1) / 2][c] =
            state[(a * s1 + b) * ch + c];
  return padded;
}

struct Oracle {
  int64_t s0, s1, channels, features, k0, k1;
  std::vector<float> wi, wh, bi, bh; // empty biases: none

  /// One ConvLSTM step on one row; c and h are [s0][s1][features].
  void step(const double *x, std::vector<double> &c,
            std::vector<double> &h) const {
    auto xp = padSame(x, s0, s1, channels, k0, k1);
    auto hp = padSame(h.data(), s0, s1, features, k0, k1);
    const int64_t g4 = 4 * features;
    for (int64_t p0 = 0; p0 < s0; ++p0)
      for (int64_t p1 = 0; p1 < s1; ++p1) {
        std::vector<double> gates(g4, 0.0);
        for (int64_t o = 0; o < g4; ++o) {
          if (!bi.empty())
            gates[o] += bi[o] + bh[o];
          for (int64_t a = 0; a < k0; ++a)
            for (int64_t b = 0; b < k1; ++b) {
              for (int64_t ci = 0; ci < channels; ++ci)
                gates[o] += xp[p0 + a][p1 + b][ci] *
                            wi[((a * k1 + b) * channels + ci) * g4 + o];
              for (int64_t fi = 0; fi < features; ++fi)
                gates[o] += hp[p0 + a][p1 + b][fi] *
                            wh[((a * k1 + b) * features + fi) * g4 + o];
            }
        }
        for (int64_t j = 0; j < features; ++j) {
          int64_t at = (p0 * s1 + p1) * features + j;
          double i = sigmoid(gates[j]);
          double g = std::tanh(gates[features + j]);
          double f = sigmoid(gates[2 * features + j] + 1.0);
          double o = sigmoid(gates[3 * features + j]);
          c[at] = f * c[at] + i * g;
          h[at] = o * std::tanh(c[at]);
        }
      }
  }
};

/// Runs `spatial` ([s0] or [s0, s1]) with kernel `kernel` through both the
/// library and the oracle and compares outputs and carries.
void checkConv(std::vector<int64_t> spatial, std::vector<int64_t> kernel,
               bool useBias, unsigned seed) {
  const int64_t batch = 2, time = 3, channels = 2, features = 3;
  const int64_t s0 = spatial[0], s1 = spatial.size() > 1 ? spatial[1] : 1;
  const int64_t k0 = kernel[0], k1 = kernel.size() > 1 ? kernel[1] : 1;
  const int64_t positions = s0 * s1, taps = k0 * k1;

  spec::Cell c = cell(CellKind::ConvLSTM, features);
  c.kernelSize = kernel;
  c.useBias = useBias;
  std::vector<int64_t> stepShape = spatial;
  stepShape.push_back(channels);
  spec::Model m = model({batch}, time, stepShape, {rnnLayer("conv", c)});

  Oracle oracle{s0,
                s1,
                channels,
                features,
                k0,
                k1,
                randomFloats(taps * channels * 4 * features, seed),
                randomFloats(taps * features * 4 * features, seed + 1),
                {},
                {}};
  CellParams p;
  p.wi = tensor(kernel, oracle.wi);
  p.wi.shape.insert(p.wi.shape.end(), {channels, 4 * features});
  p.wh = tensor(kernel, oracle.wh);
  p.wh.shape.insert(p.wh.shape.end(), {features, 4 * features});
  if (useBias) {
    oracle.bi = randomFloats(4 * features, seed + 2);
    oracle.bh = randomFloats(4 * features, seed + 3);
    p.bi = tensor({4 * features}, oracle.bi);
    p.bh = tensor({4 * features}, oracle.bh);
  }

  std::vector<float> xf =
      randomFloats(batch * time * positions * channels, seed + 4);
  Inputs in;
  in.x.shape = {batch, time};
  in.x.shape.insert(in.x.shape.end(), stepShape.begin(), stepShape.end());
  in.x.data.assign(xf.begin(), xf.end());
  Outputs out = runOk(m, {single(p)}, in);

  std::vector<double> ys, cs, hs;
  for (int64_t r = 0; r < batch; ++r) {
    std::vector<double> cState(positions * features, 0.0), hState = cState;
    for (int64_t t = 0; t < time; ++t) {
      oracle.step(in.x.data.data() + (r * time + t) * positions * channels,
                  cState, hState);
      ys.insert(ys.end(), hState.begin(), hState.end());
    }
    cs.insert(cs.end(), cState.begin(), cState.end());
    hs.insert(hs.end(), hState.begin(), hState.end());
  }
  std::vector<int64_t> carryShape = {batch};
  carryShape.insert(carryShape.end(), spatial.begin(), spatial.end());
  carryShape.push_back(features);
  std::vector<int64_t> yShape = {batch, time};
  yShape.insert(yShape.end(), spatial.begin(), spatial.end());
  yShape.push_back(features);
  expectArray(out.y, yShape, ys, 1e-12);
  expectArray(carry(out, "carry/conv/c"), carryShape, cs, 1e-12);
  expectArray(carry(out, "carry/conv/h"), carryShape, hs, 1e-12);
}

} // namespace

TEST(ReferenceConvLSTMTest, OneDimOddKernel) { checkConv({5}, {3}, true, 10); }

TEST(ReferenceConvLSTMTest, OneDimEvenKernelPadsHighSide) {
  // k = 2 pads (0, 1): position p sees p and p + 1.
  checkConv({5}, {2}, true, 20);
}

TEST(ReferenceConvLSTMTest, TwoDim) { checkConv({4, 3}, {3, 2}, true, 30); }

TEST(ReferenceConvLSTMTest, TwoDimWithoutBias) {
  checkConv({3, 4}, {2, 3}, false, 40);
}

TEST(ReferenceConvLSTMTest, BidirectionalConcatsChannelsPerPosition) {
  // Forward half == RNN forward, backward half == RNN reverse + keep_order,
  // interleaved per spatial position on the last axis.
  const int64_t features = 2, channels = 1, s = 3, time = 4;
  spec::Cell c = cell(CellKind::ConvLSTM, features);
  c.kernelSize = {3};
  CellParams p;
  p.wi = tensor({3, channels, 4 * features}, randomFloats(24, 50));
  p.wh = tensor({3, features, 4 * features}, randomFloats(48, 51));
  p.bi = tensor({4 * features}, randomFloats(8, 52));
  Inputs in;
  std::vector<float> xf = randomFloats(time * s * channels, 53);
  in.x = array({1, time, s, channels}, {xf.begin(), xf.end()});
  Outputs bi = runOk(model({1}, time, {s, channels},
                           {biLayer("bi", c, c, spec::Merge::Concat)}),
                     {pair(p, p)}, in);
  Outputs fwd = runOk(model({1}, time, {s, channels}, {rnnLayer("f", c)}),
                      {single(p)}, in);
  Outputs bwd = runOk(model({1}, time, {s, channels},
                            {rnnLayer("b", c, /*reverse=*/true,
                                      /*keepOrder=*/true)}),
                      {single(p)}, in);
  ASSERT_EQ(bi.y.shape, (std::vector<int64_t>{1, time, s, 2 * features}));
  for (int64_t k = 0; k < time * s; ++k)
    for (int64_t j = 0; j < features; ++j) {
      EXPECT_EQ(bi.y.data[k * 2 * features + j], fwd.y.data[k * features + j]);
      EXPECT_EQ(bi.y.data[k * 2 * features + features + j],
                bwd.y.data[k * features + j]);
    }
  EXPECT_EQ(carry(bi, "carry/bi/backward/h").data,
            carry(bwd, "carry/b/h").data);
}
