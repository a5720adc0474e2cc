//===- LayerTest.cpp - Scans, flips, lengths and layouts ------------------===//
//
// Most cases use identity SimpleCells with I = H = 1, whose outputs can be
// read off by hand:
//   echo   (h' = x):      y[s] is the input consumed at processing step s;
//   cumsum (h' = h + x):  y[s] is the sum of the inputs consumed so far.
//
//===----------------------------------------------------------------------===//

#include "Builders.h"

using namespace rnnc;
using namespace rnnc::test;
using reference::flipIndex;
using spec::CellKind;

namespace {

CellParams echo() { return scalarSimple(1, 0); }
CellParams cumsum() { return scalarSimple(1, 1); }

/// One identity-Simple layer over batch [2], T = 5, rows [1..5] and
/// [10..50], with lengths [3, 1].
Outputs runTwoRows(CellParams p, bool reverse, bool keepOrder,
                   std::vector<int64_t> lengths = {3, 1}) {
  spec::Model m =
      model({2}, 5, {1}, {rnnLayer("rnn", simpleCell(1), reverse, keepOrder)},
            /*seqLengths=*/true);
  Inputs in;
  in.x = array({2, 5, 1}, {1, 2, 3, 4, 5, 10, 20, 30, 40, 50});
  in.seqLengths = lengths;
  return runOk(m, {single(p)}, in);
}

/// Deterministic, non-symmetric weights for an LSTM with I inputs, H units.
CellParams lstmParams(int64_t in, int64_t hidden) {
  auto values = [](int64_t n, float scale, float phase) {
    std::vector<float> v(n);
    for (int64_t k = 0; k < n; ++k)
      v[k] = scale * static_cast<float>(std::sin(1.7 * k + phase));
    return v;
  };
  return dense(in, 4 * hidden, values(in * 4 * hidden, 0.6f, 0.3f), hidden,
               values(hidden * 4 * hidden, 0.5f, 1.1f), {},
               values(4 * hidden, 0.2f, 2.0f));
}

std::vector<double> ramp(int64_t n, double scale) {
  std::vector<double> v(n);
  for (int64_t k = 0; k < n; ++k)
    v[k] = scale * std::cos(0.9 * k + 0.2);
  return v;
}

} // namespace

TEST(ReferenceFlipTest, FlaxIndexFormula) {
  auto row = [](int64_t length) {
    std::vector<int64_t> idx;
    for (int64_t t = 0; t < 5; ++t)
      idx.push_back(flipIndex(t, length, 5));
    return idx;
  };
  EXPECT_EQ(row(3), (std::vector<int64_t>{2, 1, 0, 4, 3}));
  EXPECT_EQ(row(1), (std::vector<int64_t>{0, 4, 3, 2, 1}));
  EXPECT_EQ(row(0), (std::vector<int64_t>{4, 3, 2, 1, 0}));
  EXPECT_EQ(row(5), (std::vector<int64_t>{4, 3, 2, 1, 0}));
  for (int64_t length = 0; length <= 5; ++length)
    for (int64_t t = 0; t < 5; ++t)
      EXPECT_EQ(flipIndex(flipIndex(t, length, 5), length, 5), t);
}

TEST(ReferenceLayerTest, ReverseFlipsValidPrefixAndPaddingBlock) {
  Outputs out = runTwoRows(echo(), /*reverse=*/true, /*keepOrder=*/false);
  // Row 0 (L=3): [3,2,1 | 5,4]; row 1 (L=1): [10 | 50,40,30,20].
  expectArray(out.y, {2, 5, 1}, {3, 2, 1, 5, 4, 10, 50, 40, 30, 20});
  // The last valid step consumes the original x[0].
  expectArray(carry(out, "carry/rnn/h"), {2, 1}, {1, 10});
}

TEST(ReferenceLayerTest, ReverseWithoutKeepOrderIsInProcessingOrder) {
  Outputs out = runTwoRows(cumsum(), true, false);
  expectArray(out.y, {2, 5, 1}, {3, 5, 6, 11, 15, 10, 60, 100, 130, 150});
  expectArray(carry(out, "carry/rnn/h"), {2, 1}, {6, 10});
}

TEST(ReferenceLayerTest, ReverseKeepOrderFlipsOutputsBack) {
  Outputs out = runTwoRows(cumsum(), true, true);
  // Position t < L holds sum(x[t..L-1]); padded positions t >= L hold the
  // valid sum plus sum(x[t..T-1]) (the pad block was consumed reversed).
  expectArray(out.y, {2, 5, 1}, {6, 5, 3, 15, 11, 10, 150, 130, 100, 60});
  expectArray(carry(out, "carry/rnn/h"), {2, 1}, {6, 10});
}

TEST(ReferenceLayerTest, ForwardPaddedStepsContinueTheRecurrence) {
  Outputs out = runTwoRows(cumsum(), false, false);
  expectArray(out.y, {2, 5, 1}, {1, 3, 6, 10, 15, 10, 30, 60, 100, 150});
  expectArray(carry(out, "carry/rnn/h"), {2, 1}, {6, 10});
}

TEST(ReferenceLayerTest, FullLengthsEqualNoLengths) {
  for (bool reverse : {false, true}) {
    Outputs with = runTwoRows(cumsum(), reverse, reverse, {5, 5});
    spec::Model m =
        model({2}, 5, {1}, {rnnLayer("rnn", simpleCell(1), reverse, reverse)});
    Inputs in;
    in.x = array({2, 5, 1}, {1, 2, 3, 4, 5, 10, 20, 30, 40, 50});
    Outputs without = runOk(m, {single(cumsum())}, in);
    EXPECT_EQ(with.y.data, without.y.data);
    EXPECT_EQ(carry(with, "carry/rnn/h").data,
              carry(without, "carry/rnn/h").data);
  }
  // And without lengths the final carry is the one after step T-1.
  Outputs full = runTwoRows(cumsum(), false, false, {5, 5});
  expectArray(carry(full, "carry/rnn/h"), {2, 1}, {15, 150});
}

TEST(ReferenceLayerTest, ZeroLengthReturnsInitialCarry) {
  for (bool reverse : {false, true}) {
    spec::Model m = model({2}, 3, {1},
                          {rnnLayer("rnn", cell(CellKind::LSTM, 1), reverse,
                                    false, true, spec::InitialCarry::Input)},
                          /*seqLengths=*/true);
    Inputs in;
    in.x = array({2, 3, 1}, {1, 2, 3, 4, 5, 6});
    in.seqLengths = std::vector<int64_t>{0, 3};
    in.initialCarry["initial_carry/rnn/c"] = array({2, 1}, {0.25, -0.5});
    in.initialCarry["initial_carry/rnn/h"] = array({2, 1}, {0.75, 0.125});
    Outputs out = runOk(m, {single(lstmParams(1, 1))}, in);
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    EXPECT_EQ(carry(out, "carry/rnn/c").data[0], 0.25);
    EXPECT_EQ(carry(out, "carry/rnn/h").data[0], 0.75);
    EXPECT_NE(carry(out, "carry/rnn/h").data[1], 0.125);
    // The zero-length row's steps are still computed.
    EXPECT_NE(out.y.data[0], 0.0);
  }
}

TEST(ReferenceLayerTest, CarryIsTheStateAfterTheLastValidStep) {
  // As Flax's test_numerical_equivalence_with_mask: with lengths, outputs
  // equal the unmasked run at every step, and row b's carry equals the
  // final carry of a run over its first L_b steps alone.
  const int64_t rows = 3, time = 5, in = 3, hidden = 2;
  const std::vector<int64_t> lengths = {2, 5, 4};
  std::vector<double> x = ramp(rows * time * in, 1.3);
  auto lstm = [&](int64_t t, bool withLengths) {
    return model({rows}, t, {in}, {rnnLayer("rnn", cell(CellKind::LSTM, 2))},
                 withLengths);
  };
  Inputs masked;
  masked.x = array({rows, time, in}, x);
  masked.seqLengths = lengths;
  Outputs out =
      runOk(lstm(time, true), {single(lstmParams(in, hidden))}, masked);
  Inputs plain;
  plain.x = masked.x;
  Outputs unmasked =
      runOk(lstm(time, false), {single(lstmParams(in, hidden))}, plain);
  EXPECT_EQ(out.y.data, unmasked.y.data);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len = lengths[r];
    spec::Model one = lstm(len, false);
    one.batch = {1};
    Inputs prefix;
    prefix.x.shape = {1, len, in};
    prefix.x.data.assign(x.begin() + r * time * in,
                         x.begin() + (r * time + len) * in);
    Outputs ref = runOk(one, {single(lstmParams(in, hidden))}, prefix);
    for (const char *part : {"carry/rnn/c", "carry/rnn/h"})
      for (int64_t j = 0; j < hidden; ++j)
        EXPECT_EQ(carry(out, part).data[r * hidden + j],
                  carry(ref, part).data[j])
            << part << " row " << r;
  }
}

TEST(ReferenceLayerTest, TimeMajorEqualsBatchMajorTransposed) {
  const int64_t b0 = 2, b1 = 3, time = 4, in = 2, hidden = 2;
  std::vector<int64_t> lengths = {4, 0, 1, 2, 3, 4};
  for (bool reverse : {false, true}) {
    auto make = [&](bool timeMajor) {
      return model(
          {b0, b1}, time, {in},
          {rnnLayer("rnn", cell(CellKind::LSTM, hidden), reverse, reverse)},
          true, timeMajor);
    };
    Inputs bm;
    bm.x = array({b0, b1, time, in}, ramp(b0 * b1 * time * in, 1.0));
    bm.seqLengths = lengths;
    Inputs tm = bm;
    tm.x.shape = {time, b0, b1, in};
    const int64_t rows = b0 * b1;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t t = 0; t < time; ++t)
        for (int64_t k = 0; k < in; ++k)
          tm.x.data[(t * rows + r) * in + k] =
              bm.x.data[(r * time + t) * in + k];
    Outputs a = runOk(make(false), {single(lstmParams(in, hidden))}, bm);
    Outputs b = runOk(make(true), {single(lstmParams(in, hidden))}, tm);
    ASSERT_EQ(b.y.shape, (std::vector<int64_t>{time, b0, b1, hidden}));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t t = 0; t < time; ++t)
        for (int64_t j = 0; j < hidden; ++j)
          EXPECT_EQ(b.y.data[(t * rows + r) * hidden + j],
                    a.y.data[(r * time + t) * hidden + j]);
    EXPECT_EQ(carry(a, "carry/rnn/c").data, carry(b, "carry/rnn/c").data);
    EXPECT_EQ(carry(a, "carry/rnn/c").shape,
              (std::vector<int64_t>{b0, b1, hidden}));
  }
}

TEST(ReferenceLayerTest, UnbatchedModelHasOneRow) {
  spec::Model m = model({}, 4, {1}, {rnnLayer("rnn", simpleCell(1), true)},
                        /*seqLengths=*/true);
  Inputs in;
  in.x = array({4, 1}, {1, 2, 3, 4});
  in.seqLengths = std::vector<int64_t>{3};
  Outputs out = runOk(m, {single(cumsum())}, in);
  // Processing order [3, 2, 1 | 4].
  expectArray(out.y, {4, 1}, {3, 5, 6, 10});
  expectArray(carry(out, "carry/rnn/h"), {1}, {6});
}

TEST(ReferenceLayerTest, MultipleBatchDimsSelectCarryPerRow) {
  // Row (i, j) holds x[t] = 10 * (3i + j) + t + 1 and has length 3i + j.
  spec::Model m = model({2, 3}, 5, {1}, {rnnLayer("rnn", simpleCell(1))},
                        /*seqLengths=*/true);
  Inputs in;
  in.x.shape = {2, 3, 5, 1};
  std::vector<double> expected;
  for (int64_t r = 0; r < 6; ++r) {
    double sum = 0;
    for (int64_t t = 0; t < 5; ++t) {
      in.x.data.push_back(10.0 * r + t + 1);
      if (t < r)
        sum += 10.0 * r + t + 1;
    }
    expected.push_back(sum);
  }
  in.seqLengths = std::vector<int64_t>{0, 1, 2, 3, 4, 5};
  Outputs out = runOk(m, {single(cumsum())}, in);
  // Lengths 0..5: 0, 11, 21+22, 31+32+33, 41+..+44, 51+..+55.
  EXPECT_EQ(expected, (std::vector<double>{0, 11, 43, 96, 170, 265}));
  expectArray(carry(out, "carry/rnn/h"), {2, 3, 1}, expected);
  EXPECT_EQ(out.y.shape, (std::vector<int64_t>{2, 3, 5, 1}));
}

TEST(ReferenceLayerTest, PaddedOutputsZeros) {
  spec::Model m =
      model({2}, 5, {1},
            {rnnLayer("a", simpleCell(1)),
             biLayer("b", simpleCell(1), simpleCell(1), spec::Merge::Concat)},
            /*seqLengths=*/true);
  Inputs in;
  in.x = array({2, 5, 1}, {1, 2, 3, 4, 5, 10, 20, 30, 40, 50});
  in.seqLengths = std::vector<int64_t>{3, 1};
  std::vector<LayerParams> p = {single(cumsum()), pair(cumsum(), cumsum())};
  Outputs computed = runOk(m, p, in);
  m.paddedOutputs = spec::PaddedOutputs::Zeros;
  Outputs zeros = runOk(m, p, in);
  // Layer a gives [1, 3, 6, 0, 0] and [10, 0, 0, 0, 0]; layer b's forward
  // half is its cumsum, its backward half the suffix sums of the prefix.
  expectArray(zeros.y, {2, 5, 2}, {1,  10, 4, 9, 10, 6, 0, 0, 0, 0, //
                                   10, 10, 0, 0, 0,  0, 0, 0, 0, 0});
  const int64_t length[2] = {3, 1};
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t k = 0; k < 2 * length[r]; ++k)
      EXPECT_EQ(zeros.y.data[r * 10 + k], computed.y.data[r * 10 + k]);
  EXPECT_EQ(carry(zeros, "carry/a/h").data, carry(computed, "carry/a/h").data);
  EXPECT_EQ(carry(zeros, "carry/b/backward/h").data,
            carry(computed, "carry/b/backward/h").data);
  expectArray(carry(zeros, "carry/b/forward/h"), {2, 1}, {10, 10});
}
