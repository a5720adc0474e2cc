//===- CellTest.cpp - One cell at a time, checked by hand -----------------===//
//
// H = 1 (or 2) cases whose expected values are closed-form scalar formulas
// with a distinct weight per gate, so a swapped gate block, a transposed
// matrix or a misplaced bias changes the result.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"

#include <cmath>
#include <cstdint>
#include <cstring>

using namespace rnnc;
using namespace rnnc::test;
using spec::Activation;
using spec::CellKind;

namespace {

/// Runs a one-layer, batch-[1], I = 1 model over \p xs and returns y.
Outputs runScalar(spec::Cell c, CellParams p, std::vector<double> xs) {
  int64_t t = static_cast<int64_t>(xs.size());
  spec::Model m = model({1}, t, {1}, {rnnLayer("rnn", std::move(c))});
  Inputs in;
  in.x = array({1, t, 1}, std::move(xs));
  return runOk(m, {single(std::move(p))}, in);
}

// Per-gate scalars, deliberately all different. They are floats, as stored
// weights are, so the double formulas below see exactly the same values.
constexpr float ai = 0.5, af = -0.3, ag = 0.8, ao = 0.2;  // input kernels
constexpr float ui = 0.1, uf = 0.4, ug = -0.6, uo = 0.7;  // hidden kernels
constexpr float bi = 0.05, bf = 0.9, bg = -0.1, bo = 0.3; // hidden biases

CellParams lstmScalarParams() {
  return dense(1, 4, {ai, af, ag, ao}, 1, {ui, uf, ug, uo}, {},
               {bi, bf, bg, bo});
}

} // namespace

TEST(ReferenceCellTest, LSTMGateOrderIFGO) {
  std::vector<double> xs = {1.0, -2.0, 0.5};
  Outputs out = runScalar(cell(CellKind::LSTM, 1), lstmScalarParams(), xs);
  double c = 0, h = 0;
  std::vector<double> ys;
  for (double x : xs) {
    double i = sigmoid(ai * x + ui * h + bi);
    double f = sigmoid(af * x + uf * h + bf);
    double g = std::tanh(ag * x + ug * h + bg);
    double o = sigmoid(ao * x + uo * h + bo);
    c = f * c + i * g;
    h = o * std::tanh(c);
    ys.push_back(h);
  }
  expectArray(out.y, {1, 3, 1}, ys);
  expectArray(carry(out, "carry/rnn/c"), {1, 1}, {c});
  expectArray(carry(out, "carry/rnn/h"), {1, 1}, {h});
  // First step by hand: i = s(0.55), g = tanh(0.7), o = s(0.5), c = i*g.
  EXPECT_NEAR(out.y.data[0],
              sigmoid(0.5) * std::tanh(sigmoid(0.55) * std::tanh(0.7)), 1e-7);
}

TEST(ReferenceCellTest, OptimizedLSTMEqualsLSTM) {
  std::vector<double> xs = {0.3, -1.0, 2.0, 0.1};
  Outputs a = runScalar(cell(CellKind::LSTM, 1), lstmScalarParams(), xs);
  Outputs b =
      runScalar(cell(CellKind::OptimizedLSTM, 1), lstmScalarParams(), xs);
  EXPECT_EQ(a.y.data, b.y.data);
  EXPECT_EQ(carry(a, "carry/rnn/c").data, carry(b, "carry/rnn/c").data);
}

TEST(ReferenceCellTest, LSTMCustomGateAndActivation) {
  spec::Cell c = cell(CellKind::LSTM, 1);
  c.gateFn = Activation::HardSigmoid;
  c.activationFn = Activation::Relu;
  std::vector<double> xs = {1.0, -2.0, 3.0};
  Outputs out = runScalar(c, lstmScalarParams(), xs);
  auto hs = [](double v) { return std::min(std::max(v + 3, 0.0), 6.0) / 6; };
  auto relu = [](double v) { return std::max(v, 0.0); };
  double cs = 0, h = 0;
  std::vector<double> ys;
  for (double x : xs) {
    double i = hs(ai * x + ui * h + bi), f = hs(af * x + uf * h + bf);
    double g = relu(ag * x + ug * h + bg), o = hs(ao * x + uo * h + bo);
    cs = f * cs + i * g;
    h = o * relu(cs);
    ys.push_back(h);
  }
  expectArray(out.y, {1, 3, 1}, ys);
}

TEST(ReferenceCellTest, GRUResetInsideHiddenBias) {
  constexpr float ar = 0.7, az = -0.4, an = 1.1; // input kernels
  constexpr float cr = 0.2, cz = 0.1, cn = -0.3; // input biases
  constexpr float ur = -0.5, uz = 0.6, un = 0.9; // hidden kernels
  constexpr float bn = 0.8f;                     // hidden n bias
  CellParams p =
      dense(1, 3, {ar, az, an}, 1, {ur, uz, un}, {cr, cz, cn}, {0, 0, bn});
  std::vector<double> xs = {1.0, -0.5, 2.0};
  Outputs out = runScalar(cell(CellKind::GRU, 1), p, xs);
  double h = 0;
  std::vector<double> ys;
  for (double x : xs) {
    double r = sigmoid(ar * x + cr + ur * h);
    double z = sigmoid(az * x + cz + uz * h);
    double n = std::tanh(an * x + cn + r * (un * h + bn));
    h = (1.0 - z) * n + z * h;
    ys.push_back(h);
  }
  expectArray(out.y, {1, 3, 1}, ys);
  expectArray(carry(out, "carry/rnn/h"), {1, 1}, {h});
  EXPECT_EQ(out.carries.count("carry/rnn/c"), 0u);
  // Step 1 by hand (h = 0): r = s(0.9), z = s(-0.3), n = tanh(0.8 + r*0.8).
  double r1 = sigmoid(0.9), z1 = sigmoid(-0.3);
  EXPECT_NEAR(out.y.data[0], (1 - z1) * std::tanh(0.8 + r1 * 0.8), 1e-7);
}

TEST(ReferenceCellTest, MGUWithAndWithoutResetGate) {
  constexpr float af = 0.6, an = -0.9, cf = 1.0, cn = 0.2;
  constexpr float uf = 0.3, un = 0.7, bn = -0.4;
  std::vector<double> xs = {0.5, 1.5, -1.0};
  for (bool reset : {true, false}) {
    spec::Cell c = cell(CellKind::MGU, 1);
    c.resetGate = reset;
    CellParams p = dense(1, 2, {af, an}, 1, {uf, un}, {cf, cn});
    if (reset)
      p.bh = tensor({2}, {0.0f, bn});
    Outputs out = runScalar(c, p, xs);
    double h = 0;
    std::vector<double> ys;
    for (double x : xs) {
      double f = sigmoid(af * x + cf + uf * h);
      double u = reset ? f * (un * h + bn) : un * h;
      double n = std::tanh(an * x + cn + u);
      h = (1.0 - f) * n + f * h;
      ys.push_back(h);
    }
    SCOPED_TRACE(reset ? "reset_gate" : "no reset_gate");
    expectArray(out.y, {1, 3, 1}, ys);
  }
}

TEST(ReferenceCellTest, SimpleResidual) {
  spec::Cell c = simpleCell(1, Activation::Tanh);
  c.residual = true;
  std::vector<double> xs = {1.0, 2.0, -3.0};
  Outputs out = runScalar(c, scalarSimple(0.5f, 0.25f, 0.125f), xs);
  double h = 0;
  std::vector<double> ys;
  for (double x : xs) {
    h = std::tanh(0.5 * x + 0.25 * h + 0.125 + h);
    ys.push_back(h);
  }
  expectArray(out.y, {1, 3, 1}, ys);
}

/// B(v): \p v rounded to bfloat16 (nearest even), by way of float32.
static double roundedToBF16(double v) {
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(ReferenceCellTest, SimpleBF16ComputeRoundsAtFlaxsPoints) {
  // dtype and param_dtype bfloat16 (docs/Semantics.md#bfloat16-compute):
  // x and h rounded, each Dense's product and bias sum rounded, the gate
  // sum and the tanh rounded. The weights are bf16 values already (binding
  // rounds them); the inputs are not.
  spec::Cell c = simpleCell(1, Activation::Tanh);
  c.dtype = spec::ElementType::BFloat16;
  c.paramDtype = spec::ElementType::BFloat16;
  std::vector<double> xs = {0.3f, -1.7f, 2.9f};
  Outputs out = runScalar(c, scalarSimple(0.5f, 0.75f, 0.125f), xs);
  auto B = roundedToBF16;
  double h = 0;
  std::vector<double> ys;
  for (double x : xs) {
    double xi = B(B(B(x) * 0.5) + 0.125), xh = B(B(h) * 0.75);
    h = B(std::tanh(B(xi + xh)));
    ys.push_back(h);
  }
  ASSERT_EQ(out.y.data.size(), ys.size());
  for (size_t t = 0; t < ys.size(); ++t) {
    EXPECT_EQ(out.y.data[t], ys[t]) << "step " << t;
    EXPECT_EQ(out.y.data[t], B(out.y.data[t])) << "a bf16 value";
  }
  // The unrounded recurrence differs beyond float32 rounding.
  double f = 0;
  for (double x : xs)
    f = std::tanh(0.5 * x + 0.75 * f + 0.125);
  EXPECT_GT(std::abs(out.y.data.back() - f), 1e-4);
}

TEST(ReferenceCellTest, KernelsContractTheirFirstAxis) {
  // Identity SimpleCell, I = H = 2: h' = x @ Wi + h @ Wh with
  // Wi = [[1, 2], [3, 4]] (rows are inputs) and Wh = [[0, 1], [0, 0]]
  // (h[0] feeds h'[1]).
  spec::Model m = model({1}, 2, {2}, {rnnLayer("rnn", simpleCell(2))});
  Inputs in;
  in.x = array({1, 2, 2}, {1, 0, /*t=1*/ 0, 1});
  Outputs out =
      runOk(m, {single(dense(2, 2, {1, 2, 3, 4}, 2, {0, 1, 0, 0}))}, in);
  // Step 0: [1, 2]. Step 1: [3, 4] + [0, h0 = 1] = [3, 5].
  expectArray(out.y, {1, 2, 2}, {1, 2, 3, 5});
}

TEST(ReferenceCellTest, EveryActivationHasJaxSemantics) {
  const std::vector<double> xs = {-4, -1, -0.5, 0, 0.5, 2, 5};
  auto expectAct = [&](Activation fn, std::vector<double> expected) {
    Outputs out = runScalar(simpleCell(1, fn), scalarSimple(1, 0, 0), xs);
    SCOPED_TRACE(testing::Message() << "activation " << static_cast<int>(fn));
    expectArray(out.y, {1, 7, 1}, expected, 1e-15);
  };
  std::vector<double> sig, silu, tanhs, elu;
  for (double x : xs) {
    sig.push_back(1 / (1 + std::exp(-x)));
    silu.push_back(x / (1 + std::exp(-x)));
    tanhs.push_back(std::tanh(x));
    elu.push_back(x > 0 ? x : std::exp(x) - 1);
  }
  EXPECT_EQ(sig[3], 0.5);
  expectAct(Activation::Sigmoid, sig);
  expectAct(Activation::HardSigmoid,
            {0, 2.0 / 6, 2.5 / 6, 0.5, 3.5 / 6, 5.0 / 6, 1});
  expectAct(Activation::Tanh, tanhs);
  expectAct(Activation::HardTanh, {-1, -1, -0.5, 0, 0.5, 1, 1});
  expectAct(Activation::Relu, {0, 0, 0, 0, 0.5, 2, 5});
  expectAct(Activation::Elu, elu);
  expectAct(Activation::Silu, silu);
  expectAct(Activation::Identity, xs);
}
