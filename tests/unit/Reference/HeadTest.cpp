//===- HeadTest.cpp - Dense, Embed, LayerNorm, Activation, Dropout --------===//
//
// Hand-computed cases for the non-recurrent layers other than Pool
// (PoolTest.cpp). Activation values are those of the jax.nn formulas in
// whole-models-design.md, evaluated independently in Python's math module.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"

using namespace rnnc;
using namespace rnnc::test;
using spec::Activation;

namespace {

/// Runs one layer over x of batch dims \p batch, T = \p time and per-step
/// features \p features (batch major).
Outputs runOne(spec::Layer layer, LayerParams params,
               std::vector<int64_t> batch, int64_t time,
               std::vector<int64_t> features, Array x, bool timeMajor = false) {
  spec::Model m = model(std::move(batch), time, std::move(features),
                        {std::move(layer)}, false, timeMajor);
  Inputs in;
  in.x = std::move(x);
  return runOk(m, {std::move(params)}, in);
}

/// Applies activation \p fn (an Activation layer) to the values \p x, as
/// one row of one step.
std::vector<double> activated(Activation fn, std::vector<double> x) {
  int64_t n = static_cast<int64_t>(x.size());
  return runOne(activationLayer("act", fn), noParams(), {}, 1, {n},
                array({1, n}, std::move(x)))
      .y.data;
}

void expectValues(const std::vector<double> &actual,
                  const std::vector<double> &expected, double tol = 1e-12) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k)
    EXPECT_NEAR(actual[k], expected[k], tol * (1.0 + std::abs(expected[k])))
        << "at " << k;
}

} // namespace

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

TEST(ReferenceDenseTest, EveryStepWithBias) {
  // kernel (in 2, features 3) = [[1, 2, 3], [4, 5, 6]], bias [0.5, -1, 0]:
  // [a, b] -> [a + 4b + 0.5, 2a + 5b - 1, 3a + 6b].
  Outputs out = runOne(denseLayer("d", 3),
                       denseParams(2, 3, {1, 2, 3, 4, 5, 6}, {0.5, -1, 0}), {2},
                       2, {2}, array({2, 2, 2}, {1, 0, 0, 1, 2, 1, -1, 1}));
  expectArray(out.y, {2, 2, 3}, {1.5, 1, 3, 4.5, 4, 6, 6.5, 8, 12, 3.5, 2, 3});
  EXPECT_TRUE(out.carries.empty());
}

TEST(ReferenceDenseTest, NoBiasThenActivation) {
  // relu(a - b) and relu(b - a).
  Outputs out = runOne(denseLayer("d", 2, /*useBias=*/false, Activation::Relu),
                       denseParams(2, 2, {1, -1, -1, 1}), {3}, 1, {2},
                       array({3, 1, 2}, {3, 1, 1, 3, 2, 2}));
  expectArray(out.y, {3, 1, 2}, {2, 0, 0, 2, 0, 0});
}

TEST(ReferenceDenseTest, SoftmaxActivationNormalizesTheFeatures) {
  // Identity kernel: softmax over the features of each step.
  Outputs out =
      runOne(denseLayer("d", 3, /*useBias=*/false, Activation::Softmax),
             denseParams(3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}), {1}, 2, {3},
             array({1, 2, 3}, {1, 2, 3, 0, 0, 0}));
  expectArray(out.y, {1, 2, 3},
              {0.09003057317038046, 0.24472847105479764, 0.6652409557748218,
               1.0 / 3, 1.0 / 3, 1.0 / 3});
}

TEST(ReferenceDenseTest, LayoutsKeepTheirShape) {
  // y = [2x + 1, -x] per step.
  LayerParams p = denseParams(1, 2, {2, -1}, {1, 0});
  // Time major (T=3, batch 2): y is (T, batch, features), step by step.
  Outputs tm = runOne(denseLayer("d", 2), p, {2}, 3, {1},
                      array({3, 2, 1}, {1, 2, 3, 4, 5, 6}), /*timeMajor=*/true);
  expectArray(tm.y, {3, 2, 2}, {3, -1, 5, -2, 7, -3, 9, -4, 11, -5, 13, -6});
  // Two batch dims.
  Outputs two = runOne(denseLayer("d", 2), p, {2, 1}, 2, {1},
                       array({2, 1, 2, 1}, {1, 2, 3, 4}));
  expectArray(two.y, {2, 1, 2, 2}, {3, -1, 5, -2, 7, -3, 9, -4});
  // No batch dims.
  Outputs none =
      runOne(denseLayer("d", 2), p, {}, 2, {1}, array({2, 1}, {0, -1}));
  expectArray(none.y, {2, 2}, {1, 0, -1, 1});
}

TEST(ReferenceDenseTest, MapsTheLastAxisOfMultiDimFeatures) {
  // Per-step features [3, 2] (as after a ConvLSTM): the kernel maps the 2
  // channels of each of the 3 positions: [a, b] -> [a - b].
  Outputs out = runOne(denseLayer("d", 1, false), denseParams(2, 1, {1, -1}),
                       {1}, 1, {3, 2}, array({1, 1, 3, 2}, {5, 1, 2, 7, 0, 0}));
  expectArray(out.y, {1, 1, 3, 1}, {4, -5, 0});
}

TEST(ReferenceDenseTest, WeightErrors) {
  spec::Model m = model({1}, 1, {2}, {denseLayer("d", 3)});
  Inputs in;
  in.x = array({1, 1, 2}, {1, 2});
  // Flax's kernel is (in, features): a torch-style (features, in) is wrong.
  LayerParams transposed;
  transposed.kernel = tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  transposed.bias = tensor({3}, {0, 0, 0});
  EXPECT_EQ(runError(m, {transposed}, in),
            "expected 'kernel' of layer 'd' of shape [2, 3], found [3, 2]");
  EXPECT_EQ(runError(m, {denseParams(2, 3, {1, 2, 3, 4, 5, 6})}, in),
            "missing 'bias' of layer 'd' (use_bias: true)");
  spec::Model noBias = model({1}, 1, {2}, {denseLayer("d", 3, false)});
  EXPECT_EQ(
      runError(noBias, {denseParams(2, 3, {1, 2, 3, 4, 5, 6}, {1, 1, 1})}, in),
      "unexpected 'bias' of layer 'd' (use_bias: false)");
  EXPECT_EQ(runError(m, {single(scalarSimple(1, 1))}, in),
            "unexpected cell weights for layer 'd'");
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

TEST(ReferenceActivationTest, NewElementwiseFunctions) {
  std::vector<double> x = {-2, -0.5, 0, 1, 3};
  expectValues(activated(Activation::Gelu, x),
               {-0.04540230591222494, -0.15428599017485606, 0.0,
                0.8411919906082768, 2.996362607918227});
  expectValues(activated(Activation::GeluExact, x),
               {-0.04550026389635842, -0.15426876936299344, 0.0,
                0.8413447460685429, 2.99595030590511});
  expectValues(activated(Activation::Softplus, x),
               {0.1269280110429725, 0.4740769841801067, 0.6931471805599453,
                1.3132616875182228, 3.048587351573742});
  expectValues(activated(Activation::LeakyRelu, x), {-0.02, -0.005, 0, 1, 3});
  expectValues(activated(Activation::Elu, x),
               {-0.8646647167633873, -0.3934693402873666, 0, 1, 3});
}

TEST(ReferenceActivationTest, SoftplusIsStableForLargeInputs) {
  // log(1 + exp(1000)) overflows when computed naively.
  expectValues(activated(Activation::Softplus, {1000, -1000, -30}),
               {1000, 0, 9.357622968839737e-14});
}

TEST(ReferenceActivationTest, SoftmaxOverTheLastAxisOnly) {
  // Two steps of 3 features each: every step is normalized on its own, and
  // the max shift keeps exp(1000) finite.
  Outputs out = runOne(activationLayer("s", Activation::Softmax), noParams(),
                       {1}, 2, {2}, array({1, 2, 2}, {1000, 1001, 0, 0}));
  expectArray(out.y, {1, 2, 2},
              {0.2689414213699951, 0.7310585786300049, 0.5, 0.5});
  Outputs log =
      runOne(activationLayer("s", Activation::LogSoftmax), noParams(), {2}, 1,
             {3}, array({2, 1, 3}, {1, 2, 3, 1001, 1002, 1003}));
  expectArray(log.y, {2, 1, 3},
              {-2.40760596444438, -1.4076059644443804, -0.40760596444438046,
               -2.40760596444438, -1.4076059644443804, -0.40760596444438046});
}

TEST(ReferenceActivationTest, SoftmaxOfMultiDimFeaturesPerPosition) {
  // Per-step features [2, 2]: each position's 2 channels are normalized on
  // their own ([0, 0] -> 1/2 each; [1000, 1000 + ln 3] -> [1/4, 3/4]).
  Outputs out =
      runOne(activationLayer("s", Activation::Softmax), noParams(), {1}, 1,
             {2, 2}, array({1, 1, 2, 2}, {0, 0, 1000, 1000 + std::log(3.0)}));
  expectArray(out.y, {1, 1, 2, 2}, {0.5, 0.5, 0.25, 0.75});
}

TEST(ReferenceActivationTest, NewFunctionsAsCellActivations) {
  // SimpleCell h' = act(x): leaky_relu and softplus as activation_fn.
  for (auto [fn, want] :
       {std::pair(Activation::LeakyRelu, std::vector<double>{-0.02, 3}),
        std::pair(
            Activation::Softplus,
            std::vector<double>{0.1269280110429725, 3.048587351573742})}) {
    spec::Model m = model({1}, 2, {1}, {rnnLayer("r", simpleCell(1, fn))});
    Inputs in;
    in.x = array({1, 2, 1}, {-2, 3});
    expectArray(runOk(m, {single(scalarSimple(1, 0))}, in).y, {1, 2, 1}, want);
  }
  // gelu as an LSTM gate_fn: with zero weights every gate is gelu(0) = 0,
  // so c and h stay 0; with bias 1 on the gates, i = f = o = gelu(1).
  spec::Cell lstm = cell(spec::CellKind::LSTM, 1);
  lstm.gateFn = Activation::Gelu;
  spec::Model m = model({1}, 1, {1}, {rnnLayer("r", lstm)});
  Inputs in;
  in.x = array({1, 1, 1}, {0});
  // Blocks [i, f, g, o], bias [1, 1, 1, 1]: c = i * tanh(1), h = o tanh(c).
  Outputs out = runOk(
      m, {single(dense(1, 4, {0, 0, 0, 0}, 1, {0, 0, 0, 0}, {}, {1, 1, 1, 1}))},
      in);
  double g = 0.8411919906082768, c = g * std::tanh(1.0);
  expectArray(carry(out, "carry/r/c"), {1, 1}, {c});
  expectArray(out.y, {1, 1, 1}, {g * std::tanh(c)});
}

TEST(ReferenceActivationTest, SoftmaxIsNoCellActivation) {
  spec::Cell c = simpleCell(1, Activation::Softmax);
  spec::Model m = model({1}, 1, {1}, {rnnLayer("r", c)});
  Inputs in;
  in.x = array({1, 1, 1}, {1});
  EXPECT_EQ(runError(m, {single(scalarSimple(1, 0))}, in),
            "'softmax' normalizes over the last axis and cannot be the "
            "activation_fn of cell of layer 'r'");
}

//===----------------------------------------------------------------------===//
// LayerNorm, Dropout
//===----------------------------------------------------------------------===//

TEST(ReferenceLayerNormTest, ScaleBiasAndEpsilon) {
  // [1, 2, 3, 6]: mean 3, var 12.5 - 9 = 3.5, rsqrt(3.5 + 0.5) = 0.5.
  Array x = array({1, 1, 4}, {1, 2, 3, 6});
  expectArray(runOne(layerNormLayer("n", 0.5),
                     layerNormParams({1, 2, 3, 4}, {0, 0, 0, 1}), {1}, 1, {4},
                     x)
                  .y,
              {1, 1, 4}, {-1, -1, 0, 7});
  expectArray(
      runOne(layerNormLayer("n", 0.5, false, false), noParams(), {1}, 1, {4}, x)
          .y,
      {1, 1, 4}, {-1, -0.5, 0, 1.5});
  expectArray(runOne(layerNormLayer("n", 0.5, false, true),
                     layerNormParams({}, {1, 1, 1, 1}), {1}, 1, {4}, x)
                  .y,
              {1, 1, 4}, {0, 0.5, 1, 2.5});
}

TEST(ReferenceLayerNormTest, PerStepOverTheLastAxis) {
  // Two steps normalized separately: [0, 2] -> [-1, 1]; [5, 5] -> [0, 0]
  // (epsilon 1e-30 is negligible next to var = 1).
  Outputs out = runOne(layerNormLayer("n", 1e-30, false, false), noParams(),
                       {1}, 2, {2}, array({1, 2, 2}, {0, 2, 5, 5}));
  expectArray(out.y, {1, 2, 2}, {-1, 1, 0, 0});
}

TEST(ReferenceLayerNormTest, FastVarianceIsClampedAtZero) {
  // For [0.1, 0.1, 0.1], mean(x^2) - mean^2 is -1.7e-18 in double: Flax
  // clamps it to 0, so with a tiny epsilon y is ~bias, not NaN.
  Outputs out = runOne(layerNormLayer("n", 1e-20, false, true),
                       layerNormParams({}, {2, 3, 4}), {1}, 1, {3},
                       array({1, 1, 3}, {0.1, 0.1, 0.1}));
  expectArray(out.y, {1, 1, 3}, {2, 3, 4}, 1e-6);
}

TEST(ReferenceLayerNormTest, MissingScale) {
  spec::Model m = model({1}, 1, {2}, {layerNormLayer("n", 1e-6)});
  Inputs in;
  in.x = array({1, 1, 2}, {1, 2});
  EXPECT_EQ(runError(m, {layerNormParams({}, {0, 0})}, in),
            "missing 'scale' of layer 'n'");
  EXPECT_EQ(runError(m, {layerNormParams({1, 1, 1}, {0, 0})}, in),
            "expected 'scale' of layer 'n' of shape [2], found [3]");
}

TEST(ReferenceDropoutTest, IsTheIdentity) {
  Outputs out = runOne(dropoutLayer("drop", 0.5), noParams(), {2}, 1, {2},
                       array({2, 1, 2}, {1, -2, 3, 0.25}));
  expectArray(out.y, {2, 1, 2}, {1, -2, 3, 0.25}, 0.0);
}

//===----------------------------------------------------------------------===//
// Embed
//===----------------------------------------------------------------------===//

namespace {
/// Embed(3, 2) with rows [0, 1], [10, 11], [20, 21].
LayerParams table() { return embedParams(3, 2, {0, 1, 10, 11, 20, 21}); }
} // namespace

TEST(ReferenceEmbedTest, LooksUpEveryToken) {
  Outputs out = runOne(embedLayer("e", 3, 2), table(), {2}, 3, {},
                       array({2, 3}, {0, 2, 1, 1, 1, 0}));
  expectArray(out.y, {2, 3, 2}, {0, 1, 20, 21, 10, 11, 10, 11, 10, 11, 0, 1});
}

TEST(ReferenceEmbedTest, Layouts) {
  // Time major: x is (T, batch).
  Outputs tm = runOne(embedLayer("e", 3, 2), table(), {2}, 2, {},
                      array({2, 2}, {2, 0, 1, 2}), /*timeMajor=*/true);
  expectArray(tm.y, {2, 2, 2}, {20, 21, 0, 1, 10, 11, 20, 21});
  // No batch dims: x is (T).
  Outputs none =
      runOne(embedLayer("e", 3, 2), table(), {}, 2, {}, array({2}, {1, 2}));
  expectArray(none.y, {2, 2}, {10, 11, 20, 21});
  // Two batch dims.
  Outputs two = runOne(embedLayer("e", 3, 2), table(), {1, 2}, 1, {},
                       array({1, 2, 1}, {2, 1}));
  expectArray(two.y, {1, 2, 1, 2}, {20, 21, 10, 11});
}

TEST(ReferenceEmbedTest, FeedsARecurrentLayer) {
  // Embed(4, 1) = id + 1, then a running sum.
  spec::Model m =
      model({1}, 3, {}, {embedLayer("e", 4, 1), rnnLayer("r", simpleCell(1))});
  Inputs in;
  in.x = array({1, 3}, {3, 0, 2});
  Outputs out = runOk(
      m, {embedParams(4, 1, {1, 2, 3, 4}), single(scalarSimple(1, 1))}, in);
  expectArray(out.y, {1, 3, 1}, {4, 5, 8});
  expectArray(carry(out, "carry/r/h"), {1, 1}, {8});
}

TEST(ReferenceEmbedTest, BadTokenIdsNameIdAndPosition) {
  spec::Model m = model({2}, 3, {}, {embedLayer("e", 3, 2)});
  Inputs in;
  in.x = array({2, 3}, {0, 1, 2, 1, 2, 3});
  EXPECT_EQ(runError(m, {table()}, in),
            "expected integral token ids in [0, 3) in 'x', found 3 at x[1, 2]");
  in.x = array({2, 3}, {0, -1, 2, 1, 2, 0});
  EXPECT_EQ(
      runError(m, {table()}, in),
      "expected integral token ids in [0, 3) in 'x', found -1 at x[0, 1]");
  in.x = array({2, 3}, {0, 1, 2, 1.5, 2, 0});
  EXPECT_EQ(
      runError(m, {table()}, in),
      "expected integral token ids in [0, 3) in 'x', found 1.5 at x[1, 0]");
  // Positions are in the user's layout: time major x is (T, batch).
  spec::Model tm = model({2}, 3, {}, {embedLayer("e", 3, 2)}, false, true);
  in.x = array({3, 2}, {0, 1, 2, 7, 2, 0});
  EXPECT_EQ(runError(tm, {table()}, in),
            "expected integral token ids in [0, 3) in 'x', found 7 at x[1, 1]");
}

TEST(ReferenceEmbedTest, OnlyFirstAndWithoutFeatures) {
  Inputs in;
  in.x = array({1, 1, 1}, {1});
  spec::Model second =
      model({1}, 1, {1}, {dropoutLayer("d", 0), embedLayer("e", 3, 2)});
  EXPECT_EQ(runError(second, {noParams(), table()}, in),
            "Embed layer 'e' must be the first layer");
  spec::Model withFeatures = model({1}, 1, {1}, {embedLayer("e", 3, 2)});
  EXPECT_EQ(runError(withFeatures, {table()}, in),
            "expected token ids (no per-step features) for Embed layer 'e', "
            "found per-step shape [1]");
}
