//===- ShapesTest.cpp - ModelShapes helpers and the summary ---------------===//

#include "SpecTestUtils.h"

#include "rnn/Spec/ModelShapes.h"

#include "gtest/gtest.h"

using namespace rnnc::spec;
using namespace rnnc::spec::test;

namespace {

Model parseOrDie(llvm::StringRef text) {
  ParseResult r = parse(text);
  EXPECT_TRUE(r.model) << r.diagnostics;
  return r.model ? *r.model : Model();
}

TEST(ModelShapes, ExampleSpec) {
  Model m = parseOrDie(kExampleSpec);
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(layerInputFeatures(m, 0), Shape{40});
  EXPECT_EQ(layerOutputFeatures(m, 0), Shape{128}); // concat of 64 + 64
  EXPECT_EQ(layerInputFeatures(m, 1), Shape{128});
  EXPECT_EQ(layerOutputFeatures(m, 1), Shape{48});

  EXPECT_EQ(layerCarryShapes(m, 0, 0), (std::vector<Shape>{{8, 64}, {8, 64}}));
  EXPECT_EQ(layerCarryShapes(m, 0, 1), (std::vector<Shape>{{8, 64}}));
  EXPECT_EQ(layerCarryShapes(m, 1, 0), (std::vector<Shape>{{8, 48}}));
  EXPECT_TRUE(layerCarryShapes(m, 1, 1).empty());

  // LSTM I=40 H=64: 4*64*(40+64) kernels + 4*64 hidden biases.
  EXPECT_EQ(numCellParams(m.layers[0].forward.cell, {40}, m.paramsLayout),
            26880);
  // linen GRU I=40 H=64: 3*64*104 kernels + 3*64 input biases + 64 (hn).
  EXPECT_EQ(numCellParams(m.layers[0].backward.cell, {40}, m.paramsLayout),
            20224);
  EXPECT_EQ(numLayerParams(m, 0), 26880 + 20224);
  // GRU I=128 H=48: 3*48*176 + 4*48.
  EXPECT_EQ(numLayerParams(m, 1), 25536);
  EXPECT_EQ(numParams(m), 26880 + 20224 + 25536);

  // FLOPs per step: 2*B*G*H*(I+H) with B = 8.
  EXPECT_EQ(cellFlopsPerStep(m, m.layers[0].forward.cell, {40}),
            2 * 8 * 4 * 64 * 104);
  EXPECT_EQ(layerFlopsPerStep(m, 0),
            2 * 8 * 4 * 64 * 104 + 2 * 8 * 3 * 64 * 104);
  EXPECT_EQ(layerFlopsPerStep(m, 1), 2 * 8 * 3 * 48 * 176);
  EXPECT_EQ(flopsPerStep(m), 425984 + 319488 + 405504);
}

TEST(ModelShapes, CellParamCounts) {
  Cell cell;
  cell.features = 10;
  cell.kind = CellKind::GRU;
  EXPECT_EQ(numCellParams(cell, {5}, ParamsLayout::Linen), 3 * 10 * 15 + 40);
  EXPECT_EQ(numCellParams(cell, {5}, ParamsLayout::NNX), 3 * 10 * 15 + 30);
  cell.kind = CellKind::OptimizedLSTM;
  EXPECT_EQ(numCellParams(cell, {5}, ParamsLayout::NNX), 4 * 10 * 15 + 40);
  cell.kind = CellKind::MGU;
  EXPECT_EQ(numCellParams(cell, {5}, ParamsLayout::Linen), 2 * 10 * 15 + 30);
  cell.resetGate = false;
  EXPECT_EQ(numCellParams(cell, {5}, ParamsLayout::Linen), 2 * 10 * 15 + 20);
  cell.kind = CellKind::Simple;
  EXPECT_EQ(numCellParams(cell, {5}, ParamsLayout::Linen), 10 * 15 + 10);
  EXPECT_EQ(numGates(CellKind::Simple), 1);
  EXPECT_EQ(numGates(CellKind::MGU), 2);
  EXPECT_EQ(numGates(CellKind::GRU), 3);
  EXPECT_EQ(numGates(CellKind::ConvLSTM), 4);
}

TEST(ModelShapes, ConvLSTM) {
  Model m = parseOrDie(R"(rnnc: 1
name: video
input: {batch: [2], time: 10, features: [16, 16, 3]}
layers:
  - type: RNN
    name: conv
    cell: {type: ConvLSTMCell, features: 8, kernel_size: [3, 3]}
  - type: Bidirectional
    name: both
    forward_rnn: {cell: {type: ConvLSTMCell, features: 4, kernel_size: [1, 1],
                         use_bias: false}}
    backward_rnn: {cell: {type: ConvLSTMCell, features: 6, kernel_size: [3, 3]}}
)");
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(layerOutputFeatures(m, 0), (Shape{16, 16, 8}));
  EXPECT_EQ(layerOutputFeatures(m, 1), (Shape{16, 16, 10}));
  EXPECT_EQ(layerCarryShapes(m, 0, 0),
            (std::vector<Shape>{{2, 16, 16, 8}, {2, 16, 16, 8}}));
  EXPECT_EQ(layerCarryShapes(m, 1, 0),
            (std::vector<Shape>{{2, 16, 16, 4}, {2, 16, 16, 4}}));
  // K*(C+F)*4F + 8F biases: 9*(3+8)*32 + 64.
  EXPECT_EQ(numLayerParams(m, 0), 3232);
  // 1*(8+4)*16 (no bias) + 9*(8+6)*24 + 48.
  EXPECT_EQ(numLayerParams(m, 1), 192 + 3024 + 48);
  // 2*B*S*K*(C+F)*4F = 2*2*256*9*11*32.
  EXPECT_EQ(layerFlopsPerStep(m, 0), 3244032);
  EXPECT_EQ(layerFlopsPerStep(m, 1),
            2 * 2 * 256 * 1 * 12 * 16 + 2 * 2 * 256 * 9 * 14 * 24);
}

TEST(ModelShapes, MergeKeepsFeaturesAndSharedParamsCountOnce) {
  Model m = parseOrDie(R"(rnnc: 1
name: shared
input: {time: 4, features: 6}
layers:
  - type: Bidirectional
    merge_fn: add
    forward_rnn: {cell: {type: LSTMCell, features: 6, params: tied}}
    backward_rnn: {cell: {type: LSTMCell, features: 6, params: tied}}
)");
  EXPECT_EQ(layerOutputFeatures(m, 0), Shape{6});
  EXPECT_EQ(numLayerParams(m, 0), 2 * (4 * 6 * 12 + 24));
  EXPECT_EQ(numParams(m), 4 * 6 * 12 + 24);
  // Unbatched: B = 1.
  EXPECT_EQ(flopsPerStep(m), 2 * (2 * 4 * 6 * 12));
}

TEST(ModelShapes, CountsSaturate) {
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({3, 0, 5}), 0);
  EXPECT_EQ(numElements({kSaturated, 2}), kSaturated);
  EXPECT_EQ(numElements({int64_t(1) << 40, int64_t(1) << 40}), kSaturated);
  EXPECT_EQ(formatShape({8, 100, 40}), "[8, 100, 40]");
  EXPECT_EQ(formatShape({}), "[]");
}

TEST(ModelShapes, Summary) {
  Model m = parseOrDie(kExampleSpec);
  std::string text;
  llvm::raw_string_ostream os(text);
  printModelSummary(os, m);
  EXPECT_NE(text.find("model 'kws': float32, params_layout linen"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("input: [8, 100, 40]"), std::string::npos) << text;
  EXPECT_NE(text.find("output: [8, 100, 48]"), std::string::npos) << text;
  EXPECT_NE(text.find("total: 2 layers, 72640 params, 1150976 FLOPs per step"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("enc/backward_rnn/cell"), std::string::npos) << text;
}

} // namespace
