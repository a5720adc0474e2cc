//===- PoolTest.cpp - Every Pool mode, with and without valid_only --------===//

#include "Builders.h"

using namespace rnnc;
using namespace rnnc::test;
using spec::PoolFn;

namespace {

/// Three rows of T = 4 steps of 2 features, lengths [3, 2, 0]:
const std::vector<std::vector<double>> kRows = {
    {1, -1, 3, 5, 2, 0, -4, 2},  // L = 3
    {-2, 2, -1, 7, 9, -9, 6, 1}, // L = 2: all of its valid steps < 0 in
                                 // feature 0 (a max that starts at 0 fails)
    {5, 5, 1, 1, 2, 2, 3, 3},    // L = 0
};
const std::vector<int64_t> kLengths = {3, 2, 0};

/// x of the three rows in a layout: batch dims \p batch (3 rows in all),
/// time major or not.
Array rowsAsX(std::vector<int64_t> batch, bool timeMajor) {
  Array x;
  x.shape = timeMajor ? concatShape({4}, batch) : concatShape(batch, {4});
  x.shape.push_back(2);
  x.data.resize(24);
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t t = 0; t < 4; ++t)
      for (int64_t k = 0; k < 2; ++k) {
        int64_t step = timeMajor ? t * 3 + r : r * 4 + t;
        x.data[step * 2 + k] = kRows[r][t * 2 + k];
      }
  return x;
}

struct Layout {
  std::vector<int64_t> batch;
  bool timeMajor;
};
const Layout kLayouts[] = {
    {{3}, false}, {{3}, true}, {{1, 3}, false}, {{3, 1}, true}};

/// Pool(fn, valid_only) over the three rows in every layout: y must be
/// batch dims + [2] with \p expected (three rows of 2 values) in each.
void expectPool(PoolFn fn, bool validOnly,
                const std::vector<double> &expected) {
  for (const Layout &layout : kLayouts) {
    SCOPED_TRACE(testing::Message()
                 << spec::stringify(fn) << (validOnly ? " valid_only" : "")
                 << " batch " << layout.batch.size()
                 << (layout.timeMajor ? " time major" : ""));
    spec::Model m = model(layout.batch, 4, {2}, {poolLayer("p", fn, validOnly)},
                          /*seqLengths=*/true, layout.timeMajor);
    Inputs in;
    in.x = rowsAsX(layout.batch, layout.timeMajor);
    in.seqLengths = kLengths;
    expectArray(runOk(m, {noParams()}, in).y, concatShape(layout.batch, {2}),
                expected);
  }
}

} // namespace

TEST(ReferencePoolTest, OverAllSteps) {
  // Padding included, lengths ignored.
  expectPool(PoolFn::Last, false, {-4, 2, 6, 1, 3, 3});
  expectPool(PoolFn::First, false, {1, -1, -2, 2, 5, 5});
  expectPool(PoolFn::Sum, false, {2, 6, 12, 1, 11, 11});
  expectPool(PoolFn::Mean, false, {0.5, 1.5, 3, 0.25, 2.75, 2.75});
  expectPool(PoolFn::Max, false, {3, 5, 9, 7, 5, 5});
}

TEST(ReferencePoolTest, OverValidSteps) {
  // Steps [0, L); a row of length 0 gives zeros.
  expectPool(PoolFn::LastValid, false, {2, 0, -1, 7, 0, 0});
  expectPool(PoolFn::Last, true, {2, 0, -1, 7, 0, 0});
  expectPool(PoolFn::First, true, {1, -1, -2, 2, 0, 0});
  expectPool(PoolFn::Sum, true, {6, 4, -3, 9, 0, 0});
  expectPool(PoolFn::Mean, true, {2, 4.0 / 3, -1.5, 4.5, 0, 0});
  expectPool(PoolFn::Max, true, {3, 5, -1, 7, 0, 0});
  // valid_only does not change last_valid.
  expectPool(PoolFn::LastValid, true, {2, 0, -1, 7, 0, 0});
}

TEST(ReferencePoolTest, NoBatchDims) {
  // One row (kRows[1], L = 2): y is just the features.
  spec::Model m = model({}, 4, {2}, {poolLayer("p", PoolFn::Mean, true)}, true);
  Inputs in;
  in.x = array({4, 2}, kRows[1]);
  in.seqLengths = std::vector<int64_t>{2};
  expectArray(runOk(m, {noParams()}, in).y, {2}, {-1.5, 4.5});
  m.layers[0].validOnly = false;
  expectArray(runOk(m, {noParams()}, in).y, {2}, {3, 0.25});
}

TEST(ReferencePoolTest, MultiDimFeatures) {
  // Per-step features [2, 2] (as a ConvLSTM's [spatial, channels]): every
  // element is pooled on its own and y keeps the feature shape.
  spec::Model m = model({1}, 3, {2, 2}, {poolLayer("p", PoolFn::Max)});
  Inputs in;
  in.x = array({1, 3, 2, 2}, {1, 8, -3, 0, 4, 2, -5, 1, 0, 9, -4, -1});
  expectArray(runOk(m, {noParams()}, in).y, {1, 2, 2}, {4, 9, -3, 1});
  m.layers[0].poolFn = PoolFn::Sum;
  expectArray(runOk(m, {noParams()}, in).y, {1, 2, 2}, {5, 19, -12, 0});
}

TEST(ReferencePoolTest, ThenDense) {
  // Pool(last) removes the time axis; a Dense then maps the one vector.
  spec::Model m =
      model({3}, 4, {2}, {poolLayer("p", PoolFn::Last), denseLayer("d", 1)});
  Inputs in;
  in.x = rowsAsX({3}, false);
  Outputs out = runOk(m, {noParams(), denseParams(2, 1, {1, 10}, {0.5})}, in);
  expectArray(out.y, {3, 1}, {16.5, 16.5, 33.5});
}

//===----------------------------------------------------------------------===//
// final_carry
//===----------------------------------------------------------------------===//

namespace {
/// A running sum over x of three rows [1, 2, 3, 4], [5, 6, 7, 8],
/// [1, 1, 1, 1] with lengths [3, 2, 0] (if \p lengths), then more layers.
Outputs runCumsum(std::vector<spec::Layer> after,
                  std::vector<LayerParams> afterParams, bool lengths = true,
                  bool initialCarry = false) {
  spec::Layer rnn = rnnLayer("r", simpleCell(1));
  if (initialCarry)
    rnn.initialCarry = spec::InitialCarry::Input;
  std::vector<spec::Layer> layers = {rnn};
  layers.insert(layers.end(), after.begin(), after.end());
  std::vector<LayerParams> params = {single(scalarSimple(1, 1))};
  params.insert(params.end(), afterParams.begin(), afterParams.end());
  Inputs in;
  in.x = array({3, 4, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 1, 1});
  if (lengths)
    in.seqLengths = kLengths;
  if (initialCarry)
    in.initialCarry["initial_carry/r/h"] = array({3, 1}, {100, 200, 300});
  return runOk(model({3}, 4, {1}, layers, lengths), params, in);
}
} // namespace

TEST(ReferencePoolTest, FinalCarryIsTheCarryAfterTheLastValidStep) {
  Outputs out = runCumsum({poolLayer("p", PoolFn::FinalCarry)}, {noParams()});
  expectArray(out.y, {3, 1}, {6, 11, 0});
  // The carries themselves are unchanged.
  expectArray(carry(out, "carry/r/h"), {3, 1}, {6, 11, 0});
  // Without lengths: after step T-1.
  expectArray(runCumsum({poolLayer("p", PoolFn::FinalCarry)}, {noParams()},
                        /*lengths=*/false)
                  .y,
              {3, 1}, {10, 26, 4});
  // A row of length 0 returns its initial carry.
  expectArray(runCumsum({poolLayer("p", PoolFn::FinalCarry)}, {noParams()},
                        true, /*initialCarry=*/true)
                  .y,
              {3, 1}, {106, 211, 300});
  // valid_only changes nothing.
  expectArray(
      runCumsum({poolLayer("p", PoolFn::FinalCarry, true)}, {noParams()}).y,
      {3, 1}, {6, 11, 0});
}

TEST(ReferencePoolTest, FinalCarrySkipsTheLayersAfterTheRecurrentOne) {
  // A per-step Dense(2) between the RNN and the Pool does not change what
  // final_carry reads: the RNN's final h, of the RNN's features.
  Outputs out =
      runCumsum({denseLayer("d", 2), poolLayer("p", PoolFn::FinalCarry)},
                {denseParams(1, 2, {7, 8}, {1, 1}), noParams()});
  expectArray(out.y, {3, 1}, {6, 11, 0});
  // ... while Pool(last_valid) reads the Dense's outputs: 7 * 6 + 1, ...
  Outputs valid =
      runCumsum({denseLayer("d", 2), poolLayer("p", PoolFn::LastValid)},
                {denseParams(1, 2, {7, 8}, {1, 1}), noParams()});
  expectArray(valid.y, {3, 2}, {43, 49, 78, 89, 0, 0});
}

TEST(ReferencePoolTest, FinalCarryOfTheClosestRecurrentLayer) {
  // r (running sum), then s (h' = 2x): final_carry is s's, 2 * r's output
  // at the last valid step.
  spec::Model m =
      model({3}, 4, {1},
            {rnnLayer("r", simpleCell(1)), rnnLayer("s", simpleCell(1)),
             poolLayer("p", PoolFn::FinalCarry)},
            true);
  Inputs in;
  in.x = array({3, 4, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 1, 1});
  in.seqLengths = kLengths;
  Outputs out = runOk(
      m, {single(scalarSimple(1, 1)), single(scalarSimple(2, 0)), noParams()},
      in);
  expectArray(out.y, {3, 1}, {12, 22, 0});
}

TEST(ReferencePoolTest, FinalCarryOfBidirectionalIsMerged) {
  // Over [1..5] with L = 3: forward h' = h + 2x ends at 12, backward
  // h' = h + x (reversed) ends at 6 (see ModelTest's runBi).
  auto run = [](spec::Merge merge) {
    spec::Model m = model({1}, 5, {1},
                          {biLayer("bi", simpleCell(1), simpleCell(1), merge),
                           poolLayer("p", PoolFn::FinalCarry)},
                          true);
    Inputs in;
    in.x = array({1, 5, 1}, {1, 2, 3, 4, 5});
    in.seqLengths = std::vector<int64_t>{3};
    return runOk(m, {pair(scalarSimple(2, 1), scalarSimple(1, 1)), noParams()},
                 in)
        .y;
  };
  expectArray(run(spec::Merge::Concat), {1, 2}, {12, 6});
  expectArray(run(spec::Merge::Add), {1, 1}, {18});
  expectArray(run(spec::Merge::Mul), {1, 1}, {72});
  expectArray(run(spec::Merge::Mean), {1, 1}, {9});
}

TEST(ReferencePoolTest, FinalCarryOfAnLSTMIsItsH) {
  spec::Model m = model({1}, 2, {1},
                        {rnnLayer("l", cell(spec::CellKind::LSTM, 2)),
                         poolLayer("p", PoolFn::FinalCarry)});
  Inputs in;
  in.x = array({1, 2, 1}, {0.5, -1});
  std::vector<float> wi = {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.7f, -0.8f},
                     wh(16, 0.25f);
  Outputs out =
      runOk(m,
            {single(dense(1, 8, wi, 2, wh, {}, std::vector<float>(8, 0.5f))),
             noParams()},
            in);
  Array h = carry(out, "carry/l/h"), c = carry(out, "carry/l/c");
  expectArray(out.y, {1, 2}, h.data);
  EXPECT_NE(h.data, c.data);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(ReferencePoolTest, Errors) {
  Inputs in;
  in.x = rowsAsX({3}, false);
  auto error = [&](std::vector<spec::Layer> layers, bool lengths) {
    std::vector<LayerParams> params(layers.size(), noParams());
    Inputs run = in;
    if (lengths)
      run.seqLengths = kLengths;
    return runError(model({3}, 4, {2}, std::move(layers), lengths), params,
                    run);
  };
  EXPECT_EQ(error({poolLayer("p", PoolFn::Mean, true)}, false),
            "Pool 'valid_only: true' of layer 'p' needs seq_lengths "
            "('input.seq_lengths: true')");
  EXPECT_EQ(error({poolLayer("p", PoolFn::LastValid)}, false),
            "Pool fn 'last_valid' of layer 'p' needs seq_lengths "
            "('input.seq_lengths: true')");
  EXPECT_EQ(error({poolLayer("p", PoolFn::FinalCarry)}, false),
            "Pool fn 'final_carry' of layer 'p' needs a recurrent layer "
            "before it");
  EXPECT_EQ(
      error({poolLayer("p", PoolFn::Last), poolLayer("q", PoolFn::Last)},
            false),
      "layer 'q' (Pool) needs a time axis, but Pool layer 'p' removed it");
  spec::Model m = model(
      {3}, 4, {2}, {poolLayer("p", PoolFn::Sum), rnnLayer("r", simpleCell(1))});
  EXPECT_EQ(runError(m, {noParams(), single(dense(2, 1, {1, 1}, 1, {1}))}, in),
            "layer 'r' (RNN) needs a time axis, but Pool layer 'p' removed it");
  spec::Model weighted = model({3}, 4, {2}, {poolLayer("p", PoolFn::Sum)});
  EXPECT_EQ(runError(weighted, {denseParams(2, 1, {1, 1})}, in),
            "unexpected 'kernel' for layer 'p'");
}
