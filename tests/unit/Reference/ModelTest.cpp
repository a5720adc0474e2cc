//===- ModelTest.cpp - Bidirectional, stacks, carries and validation ------===//

#include "Builders.h"

using namespace rnnc;
using namespace rnnc::test;
using spec::CellKind;
using spec::Merge;

namespace {

CellParams cumsum(float inScale = 1) { return scalarSimple(inScale, 1); }

/// Bidirectional identity-Simple layer over one row [1..5] with length 3:
/// forward h' = h + 2x, backward h' = h + x.
Outputs runBi(Merge merge, bool initialCarry = false) {
  spec::Layer layer = biLayer("bi", simpleCell(1), simpleCell(1), merge);
  // The directions' own reverse/keep_order are ignored by Bidirectional.
  layer.forward.reverse = true;
  layer.backward.reverse = false;
  if (initialCarry)
    layer.initialCarry = spec::InitialCarry::Input;
  spec::Model m = model({1}, 5, {1}, {layer}, /*seqLengths=*/true);
  Inputs in;
  in.x = array({1, 5, 1}, {1, 2, 3, 4, 5});
  in.seqLengths = std::vector<int64_t>{3};
  if (initialCarry) {
    in.initialCarry["initial_carry/bi/forward/h"] = array({1, 1}, {100});
    in.initialCarry["initial_carry/bi/backward/h"] = array({1, 1}, {1000});
  }
  return runOk(m, {pair(cumsum(2), cumsum())}, in);
}

} // namespace

TEST(ReferenceBidirectionalTest, Merges) {
  // forward: [2, 6, 12, 20, 30]; backward (keep_order): [6, 5, 3, 15, 11].
  expectArray(runBi(Merge::Concat).y, {1, 5, 2},
              {2, 6, 6, 5, 12, 3, 20, 15, 30, 11});
  expectArray(runBi(Merge::Add).y, {1, 5, 1}, {8, 11, 15, 35, 41});
  expectArray(runBi(Merge::Mul).y, {1, 5, 1}, {12, 30, 36, 300, 330});
  expectArray(runBi(Merge::Mean).y, {1, 5, 1}, {4, 5.5, 7.5, 17.5, 20.5});
}

TEST(ReferenceBidirectionalTest, CarriesPerDirection) {
  Outputs out = runBi(Merge::Concat);
  expectArray(carry(out, "carry/bi/forward/h"), {1, 1}, {12});
  expectArray(carry(out, "carry/bi/backward/h"), {1, 1}, {6});
  EXPECT_EQ(out.carries.size(), 2u);
}

TEST(ReferenceBidirectionalTest, InitialCarriesPerDirection) {
  Outputs out = runBi(Merge::Concat, /*initialCarry=*/true);
  expectArray(out.y, {1, 5, 2},
              {102, 1006, 106, 1005, 112, 1003, 120, 1015, 130, 1011});
  expectArray(carry(out, "carry/bi/forward/h"), {1, 1}, {112});
  expectArray(carry(out, "carry/bi/backward/h"), {1, 1}, {1006});
}

TEST(ReferenceModelTest, ThreeLayerStackByHand) {
  // a: h = [x, 2x + 1]; b: cumsum of (a0 + a1); c: relu(10 - b).
  spec::Model m =
      model({1}, 3, {1},
            {rnnLayer("a", simpleCell(2)), rnnLayer("b", simpleCell(1)),
             rnnLayer("c", simpleCell(1, spec::Activation::Relu))});
  std::vector<LayerParams> p = {
      single(dense(1, 2, {1, 2}, 2, {0, 0, 0, 0}, {0, 1})),
      single(dense(2, 1, {1, 1}, 1, {1})), single(scalarSimple(-1, 0, 10))};
  Inputs in;
  in.x = array({1, 3, 1}, {1, 2, 3});
  Outputs out = runOk(m, p, in);
  // a: [1,3], [2,5], [3,7]; b: 4, 11, 21; c: 6, 0, 0.
  expectArray(out.y, {1, 3, 1}, {6, 0, 0});
  expectArray(carry(out, "carry/a/h"), {1, 2}, {3, 7});
  expectArray(carry(out, "carry/b/h"), {1, 1}, {21});
  expectArray(carry(out, "carry/c/h"), {1, 1}, {0});
}

TEST(ReferenceModelTest, StackEqualsLayersRunOneByOne) {
  // LSTM -> Bidirectional(GRU, MGU) -> reversed Simple, with lengths: each
  // layer's outputs feed the next and the lengths apply to every layer.
  auto values = [](int64_t n, float phase) {
    std::vector<float> v(n);
    for (int64_t k = 0; k < n; ++k)
      v[k] = 0.4f * static_cast<float>(std::cos(2.3 * k + phase));
    return v;
  };
  spec::Layer l1 = rnnLayer("l1", cell(CellKind::LSTM, 3));
  spec::Layer l2 = biLayer("l2", cell(CellKind::GRU, 2), cell(CellKind::MGU, 2),
                           Merge::Concat);
  spec::Layer l3 = rnnLayer("l3", simpleCell(2, spec::Activation::Tanh), true);
  std::vector<LayerParams> p = {
      single(dense(2, 12, values(24, 0), 3, values(36, 1), {}, values(12, 2))),
      pair(dense(3, 6, values(18, 3), 2, values(12, 4), values(6, 5),
                 values(6, 6)),
           dense(3, 4, values(12, 7), 2, values(8, 8), values(4, 9),
                 values(4, 10))),
      single(dense(4, 2, values(8, 11), 2, values(4, 12), values(2, 13)))};
  Inputs in;
  in.x.shape = {3, 4, 2};
  for (int k = 0; k < 24; ++k)
    in.x.data.push_back(std::sin(0.7 * k));
  in.seqLengths = std::vector<int64_t>{4, 2, 0};
  Outputs all = runOk(model({3}, 4, {2}, {l1, l2, l3}, true), p, in);

  Inputs step = in;
  Outputs o1 = runOk(model({3}, 4, {2}, {l1}, true), {p[0]}, step);
  step.x = o1.y;
  Outputs o2 = runOk(model({3}, 4, {3}, {l2}, true), {p[1]}, step);
  step.x = o2.y;
  Outputs o3 = runOk(model({3}, 4, {4}, {l3}, true), {p[2]}, step);
  EXPECT_EQ(all.y.shape, (std::vector<int64_t>{3, 4, 2}));
  EXPECT_EQ(all.y.data, o3.y.data);
  EXPECT_EQ(carry(all, "carry/l1/c").data, carry(o1, "carry/l1/c").data);
  EXPECT_EQ(carry(all, "carry/l2/backward/h").data,
            carry(o2, "carry/l2/backward/h").data);
  EXPECT_EQ(all.carries.size(), 5u);
}

TEST(ReferenceModelTest, LSTMInitialCarryInput) {
  spec::Model m = model({2}, 1, {1},
                        {rnnLayer("rnn", cell(CellKind::LSTM, 1), false, false,
                                  true, spec::InitialCarry::Input)});
  // Zero kernels, biases [i, f, g, o] = [0, 0, 0, 0]: every gate is
  // s(0) = 0.5 and g = tanh(0) = 0, so c' = c/2 and h' = tanh(c/2)/2.
  CellParams p = dense(1, 4, {0, 0, 0, 0}, 1, {0, 0, 0, 0});
  Inputs in;
  in.x = array({2, 1, 1}, {5, -5});
  in.initialCarry["initial_carry/rnn/c"] = array({2, 1}, {2, -1});
  in.initialCarry["initial_carry/rnn/h"] = array({2, 1}, {9, 9});
  Outputs out = runOk(m, {single(p)}, in);
  expectArray(carry(out, "carry/rnn/c"), {2, 1}, {1, -0.5});
  expectArray(out.y, {2, 1, 1}, {std::tanh(1.0) / 2, std::tanh(-0.5) / 2});
}

TEST(ReferenceModelTest, NoCarriesWithoutReturnCarry) {
  spec::Model m = model({1}, 2, {1},
                        {rnnLayer("rnn", simpleCell(1), false, false,
                                  /*returnCarry=*/false)});
  Inputs in;
  in.x = array({1, 2, 1}, {1, 2});
  Outputs out = runOk(m, {single(cumsum())}, in);
  EXPECT_TRUE(out.carries.empty());
  expectArray(out.y, {1, 2, 1}, {1, 3});
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {

spec::Model lengthsModel() {
  return model({2, 3}, 5, {1},
               {rnnLayer("rnn", cell(CellKind::GRU, 1), false, false, true,
                         spec::InitialCarry::Input)},
               /*seqLengths=*/true);
}

CellParams gruParams() {
  return dense(1, 3, {1, 1, 1}, 1, {1, 1, 1}, {0, 0, 0}, {0, 0, 0});
}

Inputs lengthsInputs() {
  Inputs in;
  in.x = array({2, 3, 5, 1}, std::vector<double>(30, 0.5));
  in.seqLengths = std::vector<int64_t>{0, 1, 2, 3, 4, 5};
  in.initialCarry["initial_carry/rnn/h"] =
      array({2, 3, 1}, std::vector<double>(6, 0.0));
  return in;
}

} // namespace

TEST(ReferenceValidationTest, ValidInputsRun) {
  Outputs out = runOk(lengthsModel(), {single(gruParams())}, lengthsInputs());
  EXPECT_EQ(out.y.shape, (std::vector<int64_t>{2, 3, 5, 1}));
}

TEST(ReferenceValidationTest, LengthOutOfRangeNamesRowAndValue) {
  Inputs in = lengthsInputs();
  (*in.seqLengths)[5] = 6;
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "expected seq_lengths[1, 2] in [0, 5], found 6");
  (*in.seqLengths)[5] = 5;
  (*in.seqLengths)[1] = -1;
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "expected seq_lengths[0, 1] in [0, 5], found -1");
}

TEST(ReferenceValidationTest, LengthsPresence) {
  Inputs in = lengthsInputs();
  in.seqLengths->pop_back();
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "expected 6 seq_lengths (batch dims [2, 3]), found 5");
  in.seqLengths.reset();
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "expected seq_lengths: the spec declares 'seq_lengths: true'");
  spec::Model m = lengthsModel();
  m.seqLengths = false;
  EXPECT_EQ(runError(m, {single(gruParams())}, lengthsInputs()),
            "unexpected seq_lengths: the spec declares 'seq_lengths: false'");
}

TEST(ReferenceValidationTest, InputShape) {
  Inputs in = lengthsInputs();
  in.x.shape = {2, 3, 1, 5};
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "expected 'x' of shape [2, 3, 5, 1], found [2, 3, 1, 5]");
  in.x.shape = {2, 3, 5, 1};
  in.x.data.pop_back();
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "expected 30 values in 'x' of shape [2, 3, 5, 1], found 29");
}

TEST(ReferenceValidationTest, InitialCarries) {
  Inputs in = lengthsInputs();
  in.initialCarry["initial_carry/rnn/h"].shape = {6, 1};
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "expected initial carry 'initial_carry/rnn/h' of shape "
            "[2, 3, 1], found [6, 1]");
  in.initialCarry.clear();
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "missing initial carry 'initial_carry/rnn/h' of layer 'rnn' "
            "('initial_carry: input')");
  in = lengthsInputs();
  in.initialCarry["initial_carry/rnn/c"] = array({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(runError(lengthsModel(), {single(gruParams())}, in),
            "unexpected initial carry 'initial_carry/rnn/c': only layers with "
            "'initial_carry: input' take one, with parts c and h (LSTM-like "
            "cells) or h");
  // A zeros layer takes none.
  spec::Model m = lengthsModel();
  m.layers[0].initialCarry = spec::InitialCarry::Zeros;
  EXPECT_NE(runError(m, {single(gruParams())}, lengthsInputs())
                .find("unexpected initial carry 'initial_carry/rnn/h'"),
            std::string::npos);
}

TEST(ReferenceValidationTest, Weights) {
  Inputs in = lengthsInputs();
  EXPECT_EQ(runError(lengthsModel(), {}, in),
            "expected weights for 1 layers, found 0");
  CellParams p = gruParams();
  p.wi.shape = {3, 1};
  EXPECT_EQ(runError(lengthsModel(), {single(p)}, in),
            "expected cell of layer 'rnn' input kernel 'wi' of shape [1, 3], "
            "found [3, 1]");
  p = gruParams();
  p.bh->data.pop_back();
  p.bh->shape = {2};
  EXPECT_EQ(runError(lengthsModel(), {single(p)}, in),
            "expected cell of layer 'rnn' hidden bias 'bh' of shape [3], "
            "found [2]");
  spec::Model bi = model(
      {1}, 2, {1}, {biLayer("bi", simpleCell(1), simpleCell(2), Merge::Add)});
  Inputs one;
  one.x = array({1, 2, 1}, {1, 2});
  EXPECT_EQ(runError(bi, {single(cumsum())}, one),
            "expected backward weights for Bidirectional layer 'bi', found "
            "none");
  EXPECT_EQ(
      runError(bi, {pair(cumsum(), dense(1, 2, {1, 1}, 2, {0, 0, 0, 0}))}, one),
      "expected equal forward and backward output shapes for an "
      "element-wise merge in layer 'bi', found [1] and [2]");
}

TEST(ReferenceValidationTest, CellInputRank) {
  spec::Cell conv = cell(CellKind::ConvLSTM, 2);
  conv.kernelSize = {3, 3};
  spec::Model m = model({1}, 2, {4, 1}, {rnnLayer("conv", conv)});
  Inputs in;
  in.x = array({1, 2, 4, 1}, std::vector<double>(8, 0.0));
  EXPECT_EQ(runError(m, {single(CellParams())}, in),
            "expected per-step inputs of rank 3 ([spatial..., channels]) for "
            "cell of layer 'conv' (kernel_size of rank 2), found shape [4, 1]");
  m.layers[0] = rnnLayer("rnn", cell(CellKind::LSTM, 2));
  EXPECT_EQ(runError(m, {single(CellParams())}, in),
            "expected per-step inputs of rank 1 for cell of layer 'rnn' "
            "(LSTMCell), found shape [4, 1]");
}
