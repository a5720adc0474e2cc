//===- BindingTest.cpp - bindParams and the shape helpers -----------------===//
//
// Every param of a hand-built tree holds tag * 1000 + element index, so each
// fused value shows which key and element it came from.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "rnn/Weights/Binding.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Weights/WeightsFile.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <cstring>

using namespace rnnc;
using namespace rnnc::spec;
using namespace rnnc::test;

namespace {

spec::Cell makeCell(CellKind kind, int64_t features) {
  spec::Cell cell;
  cell.kind = kind;
  cell.features = features;
  return cell;
}

spec::Layer rnnLayer(std::string name, spec::Cell cell) {
  spec::Layer layer;
  layer.name = std::move(name);
  layer.rnn.cell = std::move(cell);
  return layer;
}

spec::Layer biLayer(std::string name, spec::Cell forward, spec::Cell backward,
                    Merge merge = Merge::Concat) {
  spec::Layer layer;
  layer.kind = spec::Layer::Kind::Bidirectional;
  layer.name = std::move(name);
  layer.forward.cell = std::move(forward);
  layer.backward.cell = std::move(backward);
  layer.merge = merge;
  return layer;
}

spec::Model makeModel(std::vector<int64_t> features,
                      std::vector<spec::Layer> layers,
                      ParamsLayout layout = ParamsLayout::Linen) {
  spec::Model model;
  model.name = "m";
  model.time = 5;
  model.features = std::move(features);
  model.layers = std::move(layers);
  model.paramsLayout = layout;
  return model;
}

class BindingTest : public ::testing::Test {
protected:
  BindingTest()
      : handler(&ctx, [this](mlir::Diagnostic &diag) {
          std::string text = diag.str();
          if (auto loc =
                  llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
            locations.push_back((loc.getFilename().str() + ":" +
                                 llvm::Twine(loc.getLine()) + ":" +
                                 llvm::Twine(loc.getColumn()))
                                    .str());
          else
            locations.push_back("?");
          messages.push_back(text);
          for (const mlir::Diagnostic &note : diag.getNotes())
            messages.push_back("note: " + note.str());
          return mlir::success();
        }) {}

  /// Adds `key` with values tag * 1000 + index.
  void add(const std::string &key, std::vector<int64_t> shape, int tag) {
    Tensor t{std::move(shape), {}};
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.data.push_back(float(tag * 1000 + i));
    tree[key] = std::move(t);
  }

  std::optional<std::vector<LayerParams>> bind(const spec::Model &model) {
    messages.clear();
    locations.clear();
    return bindParams(model, tree, "w.npz", sourceMgr, ctx, options);
  }

  /// Checks that gate block `gate` (of `gates`) of `fused` holds param
  /// `key` of the tree, or zeros when `key` is empty.
  void expectBlock(const Tensor &fused, int gates, int gate,
                   const std::string &key) {
    SCOPED_TRACE("block " + std::to_string(gate) + " = '" + key + "'");
    int64_t width = fused.shape.back(), cols = width / gates;
    ASSERT_EQ(cols * gates, width);
    int64_t rows = fused.numElements() / width;
    const Tensor *src = key.empty() ? nullptr : &tree.at(key);
    if (src) {
      ASSERT_EQ(src->shape.back(), cols);
      ASSERT_EQ(src->numElements(), rows * cols);
    }
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        EXPECT_EQ(fused.data[r * width + gate * cols + c],
                  src ? src->data[r * cols + c] : 0.0f)
            << "row " << r << " col " << c;
  }

  void expectFused(const Tensor &fused, std::vector<int64_t> shape,
                   const std::vector<std::string> &keys) {
    ASSERT_EQ(fused.shape, shape);
    ASSERT_EQ(int64_t(fused.data.size()), fused.numElements());
    for (size_t g = 0; g < keys.size(); ++g)
      expectBlock(fused, int(keys.size()), int(g), keys[g]);
  }

  mlir::MLIRContext ctx;
  llvm::SourceMgr sourceMgr;
  mlir::ScopedDiagnosticHandler handler;
  std::vector<std::string> messages, locations;
  ParamTree tree;
  BindOptions options;
};

TEST_F(BindingTest, DefaultParamsPaths) {
  spec::Layer single = rnnLayer("enc", makeCell(CellKind::LSTM, 4));
  EXPECT_EQ(defaultParamsPath(single, Direction::Forward), "enc/cell");
  spec::Layer bi =
      biLayer("bi", makeCell(CellKind::GRU, 4), makeCell(CellKind::GRU, 4));
  EXPECT_EQ(defaultParamsPath(bi, Direction::Forward), "bi/forward_rnn/cell");
  EXPECT_EQ(defaultParamsPath(bi, Direction::Backward), "bi/backward_rnn/cell");
}

TEST_F(BindingTest, LayerInputFeatures) {
  spec::Model model = makeModel(
      {7},
      {rnnLayer("a", makeCell(CellKind::LSTM, 4)),
       biLayer("b", makeCell(CellKind::GRU, 3), makeCell(CellKind::GRU, 5)),
       biLayer("c", makeCell(CellKind::GRU, 6), makeCell(CellKind::GRU, 6),
               Merge::Mean),
       rnnLayer("d", makeCell(CellKind::Simple, 2))});
  // Binding reads the input size of each cell from the spec's shapes.
  EXPECT_EQ(spec::layerInputFeatures(model, 0), spec::Shape{7});
  EXPECT_EQ(spec::layerInputFeatures(model, 1), spec::Shape{4});
  EXPECT_EQ(spec::layerInputFeatures(model, 2), spec::Shape{8}); // 3 + 5
  EXPECT_EQ(spec::layerInputFeatures(model, 3), spec::Shape{6}); // mean
  EXPECT_EQ(spec::layerOutputFeatures(model, 3), spec::Shape{2});

  spec::Cell conv = makeCell(CellKind::ConvLSTM, 6);
  conv.kernelSize = {3, 3};
  spec::Model convModel =
      makeModel({8, 9, 2}, {rnnLayer("c1", conv), rnnLayer("c2", conv)});
  EXPECT_EQ(spec::layerInputFeatures(convModel, 0), (spec::Shape{8, 9, 2}));
  EXPECT_EQ(spec::layerInputFeatures(convModel, 1), (spec::Shape{8, 9, 6}));
}

TEST_F(BindingTest, LinenLSTMAndOptimizedLSTM) {
  const char *gates[] = {"i", "f", "g", "o"};
  int tag = 1;
  for (const char *g : gates) {
    add(std::string("enc/cell/i") + g + "/kernel", {3, 2}, tag++);
    add(std::string("enc/cell/h") + g + "/kernel", {2, 2}, tag++);
    add(std::string("enc/cell/h") + g + "/bias", {2}, tag++);
  }
  for (CellKind kind : {CellKind::LSTM, CellKind::OptimizedLSTM}) {
    auto params = bind(makeModel({3}, {rnnLayer("enc", makeCell(kind, 2))}));
    ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
    ASSERT_EQ(params->size(), 1u);
    const CellParams &cell = (*params)[0].forward;
    EXPECT_FALSE((*params)[0].backward);
    expectFused(cell.wi, {3, 8},
                {"enc/cell/ii/kernel", "enc/cell/if/kernel",
                 "enc/cell/ig/kernel", "enc/cell/io/kernel"});
    expectFused(cell.wh, {2, 8},
                {"enc/cell/hi/kernel", "enc/cell/hf/kernel",
                 "enc/cell/hg/kernel", "enc/cell/ho/kernel"});
    ASSERT_TRUE(cell.bh);
    expectFused(*cell.bh, {8},
                {"enc/cell/hi/bias", "enc/cell/hf/bias", "enc/cell/hg/bias",
                 "enc/cell/ho/bias"});
    EXPECT_FALSE(cell.bi);
    // Row 1 of wi: [ii(1,:) if(1,:) ig(1,:) io(1,:)], tags 1, 4, 7, 10.
    EXPECT_EQ(
        std::vector<float>(cell.wi.data.begin() + 8, cell.wi.data.begin() + 16),
        (std::vector<float>{1002, 1003, 4002, 4003, 7002, 7003, 10002, 10003}));
  }
}

TEST_F(BindingTest, NnxLSTMUsesIfUnderscore) {
  int tag = 1;
  for (const char *name : {"ii", "if_", "ig", "io"})
    add(std::string("enc/cell/") + name + "/kernel", {3, 2}, tag++);
  for (const char *name : {"hi", "hf", "hg", "ho"}) {
    add(std::string("enc/cell/") + name + "/kernel", {2, 2}, tag++);
    add(std::string("enc/cell/") + name + "/bias", {2}, tag++);
  }
  auto params = bind(makeModel(
      {3}, {rnnLayer("enc", makeCell(CellKind::LSTM, 2))}, ParamsLayout::NNX));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  expectFused((*params)[0].forward.wi, {3, 8},
              {"enc/cell/ii/kernel", "enc/cell/if_/kernel",
               "enc/cell/ig/kernel", "enc/cell/io/kernel"});
  // The same tree does not fit linen names.
  EXPECT_FALSE(
      bind(makeModel({3}, {rnnLayer("enc", makeCell(CellKind::LSTM, 2))})));
  EXPECT_EQ(messages[0], "missing param 'enc/cell/if/kernel' with shape [3, 2] "
                         "in 'w.npz'");
  EXPECT_EQ(messages[1], "unexpected param 'enc/cell/if_/kernel' in 'w.npz'");
  EXPECT_EQ(messages[2], "note: did you mean 'enc/cell/if/kernel'?");
  EXPECT_EQ(messages.size(), 3u);
}

TEST_F(BindingTest, NnxOptimizedLSTMIsFused) {
  add("enc/cell/dense_i/kernel", {3, 8}, 1);
  add("enc/cell/dense_h/kernel", {2, 8}, 2);
  add("enc/cell/dense_h/bias", {8}, 3);
  auto params = bind(
      makeModel({3}, {rnnLayer("enc", makeCell(CellKind::OptimizedLSTM, 2))},
                ParamsLayout::NNX));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  const CellParams &cell = (*params)[0].forward;
  expectFused(cell.wi, {3, 8}, {"enc/cell/dense_i/kernel"});
  expectFused(cell.wh, {2, 8}, {"enc/cell/dense_h/kernel"});
  ASSERT_TRUE(cell.bh);
  expectFused(*cell.bh, {8}, {"enc/cell/dense_h/bias"});
  EXPECT_FALSE(cell.bi);
}

TEST_F(BindingTest, LinenGRUHasZeroRZHiddenBias) {
  int tag = 1;
  for (const char *g : {"r", "z", "n"}) {
    add(std::string("g/cell/i") + g + "/kernel", {3, 2}, tag++);
    add(std::string("g/cell/i") + g + "/bias", {2}, tag++);
    add(std::string("g/cell/h") + g + "/kernel", {2, 2}, tag++);
  }
  add("g/cell/hn/bias", {2}, tag++);
  auto params =
      bind(makeModel({3}, {rnnLayer("g", makeCell(CellKind::GRU, 2))}));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  const CellParams &cell = (*params)[0].forward;
  expectFused(cell.wi, {3, 6},
              {"g/cell/ir/kernel", "g/cell/iz/kernel", "g/cell/in/kernel"});
  ASSERT_TRUE(cell.bi);
  expectFused(*cell.bi, {6},
              {"g/cell/ir/bias", "g/cell/iz/bias", "g/cell/in/bias"});
  expectFused(cell.wh, {2, 6},
              {"g/cell/hr/kernel", "g/cell/hz/kernel", "g/cell/hn/kernel"});
  ASSERT_TRUE(cell.bh);
  EXPECT_EQ(cell.bh->data, (std::vector<float>{0, 0, 0, 0, 10000, 10001}));
}

TEST_F(BindingTest, NnxGRUHasNoHiddenBias) {
  add("g/cell/dense_i/kernel", {3, 6}, 1);
  add("g/cell/dense_i/bias", {6}, 2);
  add("g/cell/dense_h/kernel", {2, 6}, 3);
  auto params = bind(makeModel({3}, {rnnLayer("g", makeCell(CellKind::GRU, 2))},
                               ParamsLayout::NNX));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  const CellParams &cell = (*params)[0].forward;
  expectFused(cell.wi, {3, 6}, {"g/cell/dense_i/kernel"});
  ASSERT_TRUE(cell.bi);
  expectFused(*cell.bi, {6}, {"g/cell/dense_i/bias"});
  expectFused(cell.wh, {2, 6}, {"g/cell/dense_h/kernel"});
  EXPECT_FALSE(cell.bh);
}

TEST_F(BindingTest, MGUWithAndWithoutResetGate) {
  add("m/cell/if/kernel", {3, 2}, 1);
  add("m/cell/if/bias", {2}, 2);
  add("m/cell/hf/kernel", {2, 2}, 3);
  add("m/cell/hn/kernel", {2, 2}, 4);
  add("m/cell/in/kernel", {3, 2}, 5);
  add("m/cell/in/bias", {2}, 6);
  add("m/cell/hn/bias", {2}, 7);
  spec::Cell mgu = makeCell(CellKind::MGU, 2);
  auto params = bind(makeModel({3}, {rnnLayer("m", mgu)}));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  const CellParams &cell = (*params)[0].forward;
  expectFused(cell.wi, {3, 4}, {"m/cell/if/kernel", "m/cell/in/kernel"});
  ASSERT_TRUE(cell.bi);
  expectFused(*cell.bi, {4}, {"m/cell/if/bias", "m/cell/in/bias"});
  expectFused(cell.wh, {2, 4}, {"m/cell/hf/kernel", "m/cell/hn/kernel"});
  ASSERT_TRUE(cell.bh);
  EXPECT_EQ(cell.bh->data, (std::vector<float>{0, 0, 7000, 7001}));

  // Without the reset gate hn has no bias: the tree's hn/bias is unexpected.
  mgu.resetGate = false;
  EXPECT_FALSE(bind(makeModel({3}, {rnnLayer("m", mgu)})));
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "unexpected param 'm/cell/hn/bias' in 'w.npz'",
                "note: layer 'm' does not read m/cell/hn/bias with the "
                "attributes the spec gives it; if the file holds more than "
                "the model, skip them with 'ignore_params: [m/cell/hn/bias]' "
                "in the spec or --ignore-params='m/cell/hn/bias'"}));
  tree.erase("m/cell/hn/bias");
  params = bind(makeModel({3}, {rnnLayer("m", mgu)}));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  EXPECT_FALSE((*params)[0].forward.bh);
  expectFused((*params)[0].forward.wh, {2, 4},
              {"m/cell/hf/kernel", "m/cell/hn/kernel"});
}

TEST_F(BindingTest, SimpleCellBothLayouts) {
  add("s/cell/i/kernel", {3, 2}, 1);
  add("s/cell/i/bias", {2}, 2);
  add("s/cell/h/kernel", {2, 2}, 3);
  add("t/cell/dense_i/kernel", {3, 2}, 4);
  add("t/cell/dense_i/bias", {2}, 5);
  add("t/cell/dense_h/kernel", {2, 2}, 6);
  spec::Cell simple = makeCell(CellKind::Simple, 2);
  spec::Cell nnxSimple = simple;
  nnxSimple.params = "t/cell";
  for (ParamsLayout layout : {ParamsLayout::Linen, ParamsLayout::NNX}) {
    bool linen = layout == ParamsLayout::Linen;
    spec::Model model = makeModel({3}, {rnnLayer("s", simple)}, layout);
    model.layers[0].rnn.cell = linen ? simple : nnxSimple;
    // Keys of the other layout are unexpected: drop them from a copy.
    ParamTree full = tree;
    for (auto it = tree.begin(); it != tree.end();)
      it = llvm::StringRef(it->first).starts_with(linen ? "t/" : "s/")
               ? tree.erase(it)
               : std::next(it);
    auto params = bind(model);
    ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
    const CellParams &cell = (*params)[0].forward;
    std::string p = linen ? "s/cell/" : "t/cell/dense_";
    expectFused(cell.wi, {3, 2}, {p + "i/kernel"});
    ASSERT_TRUE(cell.bi);
    expectFused(*cell.bi, {2}, {p + "i/bias"});
    expectFused(cell.wh, {2, 2}, {p + "h/kernel"});
    EXPECT_FALSE(cell.bh);
    tree = full;
  }
}

TEST_F(BindingTest, ConvLSTMWithAndWithoutBias) {
  spec::Cell conv = makeCell(CellKind::ConvLSTM, 4);
  conv.kernelSize = {3, 2};
  add("c/cell/ih/kernel", {3, 2, 5, 16}, 1);
  add("c/cell/hh/kernel", {3, 2, 4, 16}, 2);
  add("c/cell/ih/bias", {16}, 3);
  add("c/cell/hh/bias", {16}, 4);
  auto params = bind(makeModel({6, 6, 5}, {rnnLayer("c", conv)}));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  const CellParams &cell = (*params)[0].forward;
  EXPECT_EQ(cell.wi.shape, tree["c/cell/ih/kernel"].shape);
  EXPECT_EQ(cell.wi.data, tree["c/cell/ih/kernel"].data);
  EXPECT_EQ(cell.wh.data, tree["c/cell/hh/kernel"].data);
  ASSERT_TRUE(cell.bi && cell.bh);
  EXPECT_EQ(cell.bi->data, tree["c/cell/ih/bias"].data);
  EXPECT_EQ(cell.bh->data, tree["c/cell/hh/bias"].data);

  conv.useBias = false;
  tree.erase("c/cell/ih/bias");
  tree.erase("c/cell/hh/bias");
  params = bind(makeModel({6, 6, 5}, {rnnLayer("c", conv)}));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  EXPECT_FALSE((*params)[0].forward.bi);
  EXPECT_FALSE((*params)[0].forward.bh);
  EXPECT_EQ((*params)[0].forward.wh.shape, (std::vector<int64_t>{3, 2, 4, 16}));
}

TEST_F(BindingTest, BidirectionalDefaultPathsFeedConcatToNextLayer) {
  int tag = 1;
  for (const char *dir : {"forward_rnn", "backward_rnn"})
    for (const char *g : {"r", "z", "n"}) {
      std::string p = std::string("bi/") + dir + "/cell/";
      add(p + "i" + g + "/kernel", {3, 2}, tag++);
      add(p + "i" + g + "/bias", {2}, tag++);
      add(p + "h" + g + "/kernel", {2, 2}, tag++);
      if (*g == 'n')
        add(p + "hn/bias", {2}, tag++);
    }
  add("out/cell/i/kernel", {4, 5}, 90);
  add("out/cell/i/bias", {5}, 91);
  add("out/cell/h/kernel", {5, 5}, 92);
  spec::Model model = makeModel(
      {3},
      {biLayer("bi", makeCell(CellKind::GRU, 2), makeCell(CellKind::GRU, 2)),
       rnnLayer("out", makeCell(CellKind::Simple, 5))});
  auto params = bind(model);
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  ASSERT_EQ(params->size(), 2u);
  ASSERT_TRUE((*params)[0].backward);
  expectFused((*params)[0].forward.wh, {2, 6},
              {"bi/forward_rnn/cell/hr/kernel", "bi/forward_rnn/cell/hz/kernel",
               "bi/forward_rnn/cell/hn/kernel"});
  expectFused((*params)[0].backward->wi, {3, 6},
              {"bi/backward_rnn/cell/ir/kernel",
               "bi/backward_rnn/cell/iz/kernel",
               "bi/backward_rnn/cell/in/kernel"});
  expectFused((*params)[1].forward.wi, {4, 5}, {"out/cell/i/kernel"});
}

TEST_F(BindingTest, CustomParamsPathsAndParamsPrefix) {
  add("encoder/lstm/i/kernel", {3, 2}, 1);
  add("encoder/lstm/i/bias", {2}, 2);
  add("encoder/lstm/h/kernel", {2, 2}, 3);
  spec::Cell cell = makeCell(CellKind::Simple, 2);
  for (const char *path : {"encoder/lstm", "params/encoder/lstm/"}) {
    cell.params = path;
    auto params = bind(makeModel({3}, {rnnLayer("enc", cell)}));
    ASSERT_TRUE(params) << path << ": "
                        << (messages.empty() ? "" : messages[0]);
    expectFused((*params)[0].forward.wi, {3, 2}, {"encoder/lstm/i/kernel"});
  }
}

TEST_F(BindingTest, ReadsParamsPrefixedFileEndToEnd) {
  std::vector<std::string> warnings;
  llvm::Expected<ParamTree> read =
      readWeights(inputPath("bilstm.npz"), warnings);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_TRUE(warnings.empty());
  tree = std::move(*read);
  auto params = bind(makeModel({3}, {biLayer("enc", makeCell(CellKind::LSTM, 2),
                                             makeCell(CellKind::LSTM, 2))}));
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  const std::string b = "enc/backward_rnn/cell/";
  ASSERT_TRUE((*params)[0].backward);
  const CellParams &bwd = *(*params)[0].backward;
  expectFused(
      bwd.wi, {3, 8},
      {b + "ii/kernel", b + "if/kernel", b + "ig/kernel", b + "io/kernel"});
  ASSERT_TRUE(bwd.bh);
  expectFused(*bwd.bh, {8},
              {b + "hi/bias", b + "hf/bias", b + "hg/bias", b + "ho/bias"});
  // make_weights.py numbers keys in sorted (name, direction) order:
  // ('hf/bias', 'backward_rnn') is key 0, so bh's f block starts at 0.
  EXPECT_EQ(bwd.bh->data[2], 0.0f);
  EXPECT_EQ(bwd.bh->data[3], 1.0f);
}

TEST_F(BindingTest, ReportsAllProblemsInOneRun) {
  add("enc/cell/i/kernel", {3, 2}, 1);
  add("enc/cell/i/bias", {4}, 2);       // wrong shape
  add("enc/cell/hh/kernel", {2, 2}, 3); // typo of h/kernel
  add("stray/w", {1}, 4);               // under no cell
  auto params =
      bind(makeModel({3}, {rnnLayer("enc", makeCell(CellKind::Simple, 2))}));
  EXPECT_FALSE(params);
  EXPECT_EQ(
      messages,
      (std::vector<std::string>{
          "param 'enc/cell/i/bias' in 'w.npz' has shape [4], expected [2]",
          "missing param 'enc/cell/h/kernel' with shape [2, 2] in 'w.npz'",
          "unexpected param 'enc/cell/hh/kernel' in 'w.npz'",
          "note: did you mean 'enc/cell/h/kernel'?",
          "unexpected param 'stray/w' in 'w.npz'",
          "note: no layer reads stray/w; if the file holds more than the "
          "model, skip them with 'ignore_params: [stray/*]' in the spec or "
          "--ignore-params='stray/*'"}));
  // No SMLocs in a hand-built model: everything points at the weights file.
  EXPECT_EQ(locations[0], "w.npz:0:0");
}

TEST_F(BindingTest, CheckParamShapesGivesBindingsDiagnosticsFromShapes) {
  // The same problems as above, from the keys and shapes alone.
  ParamShapes shapes{{"enc/cell/i/kernel", {3, 2}},
                     {"enc/cell/i/bias", {4}},
                     {"enc/cell/hh/kernel", {2, 2}},
                     {"stray/w", {1}}};
  spec::Model model =
      makeModel({3}, {rnnLayer("enc", makeCell(CellKind::Simple, 2))});
  EXPECT_TRUE(mlir::failed(
      checkParamShapes(model, shapes, "w.npz", sourceMgr, ctx, options)));
  std::vector<std::string> fromShapes = messages;
  for (const auto &[key, shape] : shapes)
    add(key, shape, 1);
  EXPECT_FALSE(bind(model));
  EXPECT_EQ(fromShapes, messages);
  ASSERT_FALSE(fromShapes.empty());
  EXPECT_EQ(fromShapes[0],
            "param 'enc/cell/i/bias' in 'w.npz' has shape [4], expected [2]");

  // Shapes that fit pass without any data; non-float keys are still errors.
  messages.clear();
  ParamShapes fit{{"enc/cell/i/kernel", {3, 2}},
                  {"enc/cell/i/bias", {2}},
                  {"enc/cell/h/kernel", {2, 2}}};
  EXPECT_TRUE(mlir::succeeded(
      checkParamShapes(model, fit, "w.npz", sourceMgr, ctx, options)));
  EXPECT_TRUE(messages.empty());
  fit.erase("enc/cell/i/bias");
  options.nonFloatKeys["enc/cell/i/bias"] = "int32";
  EXPECT_TRUE(mlir::failed(
      checkParamShapes(model, fit, "w.npz", sourceMgr, ctx, options)));
  EXPECT_EQ(messages, std::vector<std::string>{
                          "param 'enc/cell/i/bias' in 'w.npz' has dtype int32, "
                          "expected a floating-point dtype"});
}

TEST_F(BindingTest, DiagnosticsPointIntoTheSpec) {
  const char *text = "model: m\nlayers:\n  - name: enc\n    cell: simple\n";
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, "spec.yaml"), llvm::SMLoc());
  const char *start = sourceMgr.getMemoryBuffer(1)->getBufferStart();
  spec::Model model =
      makeModel({3}, {rnnLayer("enc", makeCell(CellKind::Simple, 2))});
  model.loc = llvm::SMLoc::getFromPointer(start);
  model.layers[0].rnn.cell.loc =
      llvm::SMLoc::getFromPointer(std::strstr(start, "simple"));
  add("enc/cell/i/kernel", {3, 2}, 1);
  add("extra", {1}, 1);
  EXPECT_FALSE(bind(model));
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0],
            "missing param 'enc/cell/i/bias' with shape [2] in 'w.npz'");
  EXPECT_EQ(locations[0], "spec.yaml:4:11");
  // Nothing in the spec fits 'extra': the model's location.
  EXPECT_EQ(messages[2], "unexpected param 'extra' in 'w.npz'");
  EXPECT_EQ(locations[2], "spec.yaml:1:1");
}

/// A spec buffer for location tests: every line of `text` is one layer.
static std::vector<llvm::SMLoc> addLines(llvm::SourceMgr &sourceMgr,
                                         const char *text) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, "spec.yaml"), llvm::SMLoc());
  std::vector<llvm::SMLoc> lines;
  for (const char *p = sourceMgr.getMemoryBuffer(1)->getBufferStart(); *p;) {
    lines.push_back(llvm::SMLoc::getFromPointer(p));
    p = std::strchr(p, '\n');
    if (!p)
      break;
    ++p;
  }
  return lines;
}

static spec::Layer denseLayer(std::string name, int64_t features,
                              std::string params = "", bool useBias = true) {
  spec::Layer layer;
  layer.kind = spec::Layer::Kind::Dense;
  layer.name = std::move(name);
  layer.features = features;
  layer.useBias = useBias;
  layer.params = std::move(params);
  return layer;
}

TEST_F(BindingTest, DenseEmbedAndLayerNorm) {
  spec::Layer embed;
  embed.kind = spec::Layer::Kind::Embed;
  embed.name = "emb";
  embed.numEmbeddings = 7;
  embed.features = 3;
  spec::Layer norm;
  norm.kind = spec::Layer::Kind::LayerNorm;
  norm.name = "ln";
  norm.params = "params/LayerNorm_0";
  spec::Layer noScale = norm;
  noScale.name = "ln2";
  noScale.params = "";
  noScale.useScale = false;
  spec::Layer pool;
  pool.kind = spec::Layer::Kind::Pool;
  spec::Model model =
      makeModel({}, {embed, denseLayer("d", 4, "Dense_0"), norm, noScale,
                     pool, denseLayer("out", 2, "", /*useBias=*/false)});
  add("emb/embedding", {7, 3}, 1);
  add("Dense_0/kernel", {3, 4}, 2);
  add("Dense_0/bias", {4}, 3);
  add("LayerNorm_0/scale", {4}, 4);
  add("LayerNorm_0/bias", {4}, 5);
  add("ln2/bias", {4}, 6);
  add("out/kernel", {4, 2}, 7);
  auto params = bind(model);
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  ASSERT_EQ(params->size(), 6u);
  const LayerParams &e = (*params)[0];
  ASSERT_TRUE(e.embedding);
  EXPECT_EQ(e.embedding->shape, (std::vector<int64_t>{7, 3}));
  EXPECT_EQ(e.embedding->data[5], 1005.0f);
  EXPECT_FALSE(e.kernel || e.bias || e.scale);
  const LayerParams &d = (*params)[1];
  ASSERT_TRUE(d.kernel && d.bias);
  EXPECT_EQ(d.kernel->shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(d.kernel->data[11], 2011.0f);
  EXPECT_EQ(d.bias->data[3], 3003.0f);
  const LayerParams &ln = (*params)[2];
  ASSERT_TRUE(ln.scale && ln.bias);
  EXPECT_EQ(ln.scale->data[0], 4000.0f);
  EXPECT_EQ(ln.bias->data[0], 5000.0f);
  EXPECT_FALSE((*params)[3].scale);
  ASSERT_TRUE((*params)[3].bias);
  EXPECT_EQ((*params)[3].bias->data[1], 6001.0f);
  EXPECT_FALSE((*params)[4].kernel || (*params)[4].bias); // Pool: no params
  ASSERT_TRUE((*params)[5].kernel);
  EXPECT_FALSE((*params)[5].bias);

  // nnx.Linear, nnx.Embed and nnx.LayerNorm use the same names.
  model.paramsLayout = ParamsLayout::NNX;
  EXPECT_TRUE(bind(model)) << (messages.empty() ? "" : messages[0]);

  // Misshapen Dense params keep their message.
  tree["Dense_0/kernel"] = Tensor{{4, 3}, std::vector<float>(12)};
  EXPECT_FALSE(bind(model));
  EXPECT_EQ(messages, std::vector<std::string>{
                          "param 'Dense_0/kernel' in 'w.npz' has shape [4, 3], "
                          "expected [3, 4]"});
}

/// Every bound param carries the element type the model stores it in: a
/// cell's its param_dtype (bfloat16: rounded to it), the other layers'
/// float32 even when the file holds bfloat16.
TEST_F(BindingTest, ParamsCarryTheElementTypeTheModelStores) {
  add("s/cell/i/kernel", {3, 2}, 1);
  add("s/cell/i/bias", {2}, 2);
  add("s/cell/h/kernel", {2, 2}, 3);
  add("t/cell/i/kernel", {2, 2}, 4);
  add("t/cell/i/bias", {2}, 5);
  add("t/cell/h/kernel", {2, 2}, 6);
  add("d/kernel", {2, 4}, 7);
  add("d/bias", {4}, 8);
  // A bfloat16 array, as readWeights() gives one: exact values, its type.
  for (float &v : tree["d/kernel"].data)
    v = weights::roundToBFloat16(v);
  tree["d/kernel"].elementType = ElementType::BFloat16;

  spec::Cell bf16 = makeCell(CellKind::Simple, 2);
  bf16.paramDtype = ElementType::BFloat16;
  spec::Model model = makeModel(
      {3}, {rnnLayer("s", bf16), rnnLayer("t", makeCell(CellKind::Simple, 2)),
            denseLayer("d", 4)});
  auto params = bind(model);
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  ASSERT_EQ(params->size(), 3u);

  const CellParams &s = (*params)[0].forward;
  ASSERT_TRUE(s.bi);
  for (const Tensor *tensor : {&s.wi, &s.wh, &*s.bi})
    EXPECT_EQ(tensor->elementType, ElementType::BFloat16);
  // 1001 is no bfloat16 (8 significant bits): rounded to 1000.
  std::vector<float> rounded;
  for (float v : tree.at("s/cell/i/kernel").data)
    rounded.push_back(weights::roundToBFloat16(v));
  EXPECT_EQ(s.wi.data, rounded);
  EXPECT_EQ(s.wi.data[1], 1000.0f);
  // The note on s's rounding, then the warning that the float32 layer d
  // widens its bfloat16 kernel (8 values).
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].rfind("param_dtype bfloat16: rounded ", 0), 0u)
      << messages[0];
  EXPECT_EQ(messages[1].rfind("widened 8 bfloat16 params of layer 'd' in ",
                              0),
            0u)
      << messages[1];

  const CellParams &t = (*params)[1].forward;
  ASSERT_TRUE(t.bi);
  for (const Tensor *tensor : {&t.wi, &t.wh, &*t.bi})
    EXPECT_EQ(tensor->elementType, ElementType::Float32);
  EXPECT_EQ(t.wi.data[1], 4001.0f);

  const LayerParams &d = (*params)[2];
  ASSERT_TRUE(d.kernel && d.bias);
  EXPECT_EQ(d.kernel->elementType, ElementType::Float32);
  EXPECT_EQ(d.kernel->data, tree.at("d/kernel").data);
  EXPECT_EQ(d.bias->elementType, ElementType::Float32);

  // bf16 compute stores its params as bf16 too (promote_dtype).
  spec::Cell compute = makeCell(CellKind::Simple, 2);
  compute.dtype = ElementType::BFloat16;
  model.layers[1].rnn.cell = compute;
  params = bind(model);
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  EXPECT_EQ((*params)[1].forward.wh.elementType, ElementType::BFloat16);
}

TEST_F(BindingTest, RNNLayerParamsFallBackToTheBareCell) {
  spec::Layer layer = rnnLayer("lstm0", makeCell(CellKind::Simple, 2));
  layer.params = "lstm_cell_0";
  layer.rnn.cell.params = "lstm_cell_0/cell"; // as the parser fills it
  spec::Model model = makeModel({3}, {layer});
  add("lstm_cell_0/i/kernel", {3, 2}, 1);
  add("lstm_cell_0/i/bias", {2}, 2);
  add("lstm_cell_0/h/kernel", {2, 2}, 3);
  auto params = bind(model);
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  expectFused((*params)[0].forward.wi, {3, 2}, {"lstm_cell_0/i/kernel"});
  EXPECT_EQ(cellParamsPath(model.layers[0], Direction::Forward, tree),
            "lstm_cell_0");
  resolveParamsPaths(model, tree);
  EXPECT_EQ(model.layers[0].rnn.cell.params, "lstm_cell_0");

  // With an nn.RNN module's `cell` level in the file, that one is read.
  tree.clear();
  add("lstm_cell_0/cell/i/kernel", {3, 2}, 4);
  add("lstm_cell_0/cell/i/bias", {2}, 5);
  add("lstm_cell_0/cell/h/kernel", {2, 2}, 6);
  model.layers[0].rnn.cell.params = "lstm_cell_0/cell";
  params = bind(model);
  ASSERT_TRUE(params) << (messages.empty() ? "" : messages[0]);
  expectFused((*params)[0].forward.wi, {3, 2}, {"lstm_cell_0/cell/i/kernel"});

  // An explicit cell path never falls back.
  spec::Layer explicitCell = rnnLayer("r", makeCell(CellKind::Simple, 2));
  explicitCell.rnn.cell.params = "lstm_cell_0/cell";
  tree.clear();
  add("lstm_cell_0/i/kernel", {3, 2}, 1);
  EXPECT_EQ(cellParamsPath(explicitCell, Direction::Forward, tree),
            "lstm_cell_0/cell");
}

TEST_F(BindingTest, UnexpectedKeysAreOneErrorAtThePlausibleLayer) {
  std::vector<llvm::SMLoc> lines =
      addLines(sourceMgr, "rnnc: 1\n- d0\n- d1\n- d2\n");
  spec::Model model = makeModel(
      {3}, {denseLayer("a", 2, "Dense_0"), denseLayer("b", 2, "Dense_1"),
            denseLayer("c", 1, "Dense_2")});
  model.loc = lines[0];
  for (size_t k = 0; k < 3; ++k)
    model.layers[k].loc = lines[k + 1];
  add("Dense_0/kernel", {3, 2}, 1);
  add("Dense_0/bias", {2}, 2);
  add("Dense_1/kernel", {2, 2}, 3);
  add("Dense_1/bias", {2}, 4);
  add("Dense_2/kernel", {2, 1}, 5);
  add("Dense_2/bias", {1}, 6);
  add("Dense_3/kernel", {1, 1}, 7);
  add("Dense_3/bias", {1}, 8);
  add("opt/mu/Dense_0/kernel", {3, 2}, 9);
  add("opt/nu/Dense_0/kernel", {3, 2}, 10);
  EXPECT_FALSE(bind(model));
  // One error (not one per key), at the layer the extras are closest to.
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], "4 unexpected params in 'w.npz'");
  EXPECT_EQ(locations[0], "spec.yaml:4:1");
  EXPECT_EQ(messages[1],
            "note: no layer reads Dense_3/{bias, kernel}, opt/ (2 arrays); "
            "if the file holds more than the model, skip them with "
            "'ignore_params: [Dense_3/*, opt/*]' in the spec or "
            "--ignore-params='Dense_3/*'");

  // The spec's ignore_params and the CLI's globs skip them; a glob matches
  // a parent path too.
  model.ignoreParams = {"Dense_3/*"};
  options.ignoreParams = {"opt"};
  EXPECT_TRUE(bind(model)) << (messages.empty() ? "" : messages[0]);
  EXPECT_TRUE(isIgnoredParam("opt/mu/x", {"opt"}));
  EXPECT_TRUE(isIgnoredParam("opt/mu/x", {"opt/*/x"}));
  EXPECT_FALSE(isIgnoredParam("optimizer/x", {"opt"}));
  EXPECT_FALSE(isIgnoredParam("a", {"[a"})); // invalid: matches nothing
}

TEST_F(BindingTest, ALayerWithNoParamsInTheFileGetsOneError) {
  std::vector<llvm::SMLoc> lines = addLines(sourceMgr, "rnnc: 1\n- r\n- d\n");
  spec::Layer rnn = rnnLayer("lstm0", makeCell(CellKind::Simple, 2));
  spec::Model model = makeModel({3}, {rnn, denseLayer("head", 1)});
  model.loc = lines[0];
  model.layers[0].loc = model.layers[0].rnn.cell.loc = lines[1];
  model.layers[1].loc = lines[2];
  add("lstm_cell_0/i/kernel", {3, 2}, 1);
  add("lstm_cell_0/i/bias", {2}, 2);
  add("lstm_cell_0/h/kernel", {2, 2}, 3);
  add("Dense_0/kernel", {2, 1}, 4);
  add("Dense_0/bias", {1}, 5);
  add("step", {}, 6);
  options.nonFloatKeys["count"] = "int32";
  options.ignoreParams = {"step", "count"};
  EXPECT_FALSE(bind(model));
  EXPECT_EQ(
      messages,
      (std::vector<std::string>{
          "no params of layer 'lstm0' in 'w.npz' (expected 'lstm0/cell/i/"
          "kernel' and 2 more); the file holds Dense_0/, count, "
          "lstm_cell_0/, step",
          "note: its params fit 'lstm_cell_0/...'; set 'params: "
          "lstm_cell_0' on layer 'lstm0'",
          "no params of layer 'head' in 'w.npz' (expected 'head/kernel' and "
          "1 more); the file holds Dense_0/, count, lstm_cell_0/, step",
          "note: its params fit 'Dense_0/...'; set 'params: Dense_0' on "
          "layer 'head'"}));
  // (Notes are messages of their own, not locations.)
  ASSERT_EQ(locations.size(), 2u);
  EXPECT_EQ(locations[0], "spec.yaml:2:1");
  EXPECT_EQ(locations[1], "spec.yaml:3:1");

  // Nothing fits: the error alone.
  tree.erase("Dense_0/bias");
  options.ignoreParams.push_back("Dense_0/*");
  options.ignoreParams.push_back("lstm_cell_0/*");
  EXPECT_FALSE(bind(model));
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[2], "no params of layer 'head' in 'w.npz' (expected "
                         "'head/kernel' and 1 more); the file holds Dense_0/, "
                         "count, lstm_cell_0/, step");
}

TEST_F(BindingTest, NoParamsOfABidirectionalSuggestsTheModulePath) {
  for (const char *dir : {"forward_rnn", "backward_rnn"}) {
    std::string p = std::string("encoder/") + dir + "/cell/";
    add(p + "i/kernel", {3, 2}, 1);
    add(p + "i/bias", {2}, 2);
    add(p + "h/kernel", {2, 2}, 3);
  }
  spec::Layer layer = biLayer("b", makeCell(CellKind::Simple, 2),
                              makeCell(CellKind::Simple, 2));
  EXPECT_FALSE(bind(makeModel({3}, {layer})));
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0], "no params of the forward cell of layer 'b' in "
                         "'w.npz' (expected 'b/forward_rnn/cell/i/kernel' and "
                         "2 more); the file holds encoder/");
  EXPECT_EQ(messages[1], "note: its params fit 'encoder/forward_rnn/cell/...'; "
                         "set 'params: encoder' on layer 'b' (also fit: "
                         "'encoder/backward_rnn/cell')");
  EXPECT_EQ(messages[3], "note: its params fit "
                         "'encoder/backward_rnn/cell/...'; set 'params: "
                         "encoder' on layer 'b' (also fit: "
                         "'encoder/forward_rnn/cell')");
  // Once pointed there (as the parser does for `params: encoder`), it binds.
  layer.forward.cell.params = "encoder/forward_rnn/cell";
  layer.backward.cell.params = "encoder/backward_rnn/cell";
  EXPECT_TRUE(bind(makeModel({3}, {layer})))
      << (messages.empty() ? "" : messages[0]);
}

TEST_F(BindingTest, OtherKeysAtTheLayersOwnPathAreReportedKeyByKey) {
  // A GRU spec against an LSTM's weights: the keys are at the layer's path,
  // so each missing key is named (the cell type is the likely mistake).
  for (const char *g : {"ii", "if", "ig", "io"})
    add(std::string("rnn/cell/") + g + "/kernel", {3, 2}, 1);
  spec::Model model =
      makeModel({3}, {rnnLayer("rnn", makeCell(CellKind::Simple, 2))});
  EXPECT_FALSE(bind(model));
  ASSERT_GE(messages.size(), 3u);
  EXPECT_EQ(messages[0],
            "missing param 'rnn/cell/i/kernel' with shape [3, 2] in 'w.npz'");
  EXPECT_EQ(messages[1],
            "missing param 'rnn/cell/i/bias' with shape [2] in 'w.npz'");
  EXPECT_EQ(messages[2],
            "missing param 'rnn/cell/h/kernel' with shape [2, 2] in 'w.npz'");
  // One of them reads as a misspelling of the closest missing key; each
  // missing key explains one unexpected key at most.
  ASSERT_EQ(messages.size(), 7u);
  EXPECT_EQ(messages[3], "unexpected param 'rnn/cell/if/kernel' in 'w.npz'");
  EXPECT_EQ(messages[4], "note: did you mean 'rnn/cell/i/kernel'?");
  EXPECT_EQ(messages[5], "3 unexpected params in 'w.npz'");
  EXPECT_EQ(messages[6],
            "note: layer 'rnn' does not read rnn/cell/ig/kernel, "
            "rnn/cell/ii/kernel, rnn/cell/io/kernel with the attributes the "
            "spec gives it; if the file holds more than the model, skip them "
            "with 'ignore_params: [rnn/cell/ig/kernel, rnn/cell/ii/kernel, "
            "rnn/cell/io/kernel]' in the spec or "
            "--ignore-params='rnn/cell/ig/kernel'");
}

TEST_F(BindingTest, NonFloatArrays) {
  spec::Model model = makeModel({3}, {denseLayer("d", 2)});
  add("d/kernel", {3, 2}, 1);
  options.nonFloatKeys["d/bias"] = "int32";
  options.nonFloatKeys["step"] = "int64";
  EXPECT_FALSE(bind(model));
  ASSERT_GE(messages.size(), 2u);
  EXPECT_EQ(messages[0], "param 'd/bias' in 'w.npz' has dtype int32, "
                         "expected a floating-point dtype");
  EXPECT_EQ(messages[1], "unexpected param 'step' in 'w.npz'");
}

TEST_F(BindingTest, RejectsCellsTheLayoutLacksWithoutCrashing) {
  add("m/cell/if/kernel", {3, 2}, 1);
  spec::Cell conv = makeCell(CellKind::ConvLSTM, 2);
  conv.kernelSize = {3};
  spec::Model model = makeModel(
      {4, 3}, {rnnLayer("m", makeCell(CellKind::MGU, 2)), rnnLayer("c", conv)},
      ParamsLayout::NNX);
  EXPECT_FALSE(bind(model));
  // The MGU's keys are not reported again as unexpected.
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "MGUCell has no params in the nnx layout (nnx provides "
                "LSTMCell, OptimizedLSTMCell, GRUCell and SimpleCell)",
                "ConvLSTMCell has no params in the nnx layout (nnx provides "
                "LSTMCell, OptimizedLSTMCell, GRUCell and SimpleCell)"}));
}

TEST_F(BindingTest, RejectsInvalidHandBuiltModels) {
  spec::Model model =
      makeModel({3}, {rnnLayer("a", makeCell(CellKind::LSTM, 0)),
                      biLayer("b", makeCell(CellKind::GRU, 2),
                              makeCell(CellKind::GRU, 3), Merge::Add)});
  EXPECT_FALSE(bind(model));
  ASSERT_GE(messages.size(), 2u);
  EXPECT_EQ(messages[0],
            "LSTMCell of layer 'a' has features 0, expected a positive number");
  EXPECT_EQ(messages[1], "merge 'add' of layer 'b' needs equal forward and "
                         "backward features, found 2 and 3");
  spec::Cell conv = makeCell(CellKind::ConvLSTM, 2);
  EXPECT_FALSE(bind(makeModel({4, 3}, {rnnLayer("c", conv)})));
  EXPECT_EQ(messages, std::vector<std::string>{
                          "ConvLSTMCell of layer 'c' has kernel_size [], "
                          "expected positive sizes"});
  EXPECT_FALSE(
      bind(makeModel({}, {rnnLayer("d", makeCell(CellKind::GRU, 2))})));
  EXPECT_EQ(messages, std::vector<std::string>{
                          "layer 'd' reads 0 input features, expected a "
                          "positive number"});
}

TEST_F(BindingTest, RejectsTensorsWhoseDataDoesNotMatchTheShape) {
  add("s/cell/i/kernel", {3, 2}, 1);
  add("s/cell/i/bias", {2}, 2);
  add("s/cell/h/kernel", {2, 2}, 3);
  tree["s/cell/h/kernel"].data.pop_back();
  EXPECT_FALSE(
      bind(makeModel({3}, {rnnLayer("s", makeCell(CellKind::Simple, 2))})));
  EXPECT_EQ(messages, std::vector<std::string>{
                          "param 's/cell/h/kernel' in 'w.npz' has 3 values, "
                          "expected 4 for shape [2, 2]"});
}

TEST_F(BindingTest, ExpectedCellParamsListsKeysAndShapes) {
  spec::Cell gru = makeCell(CellKind::GRU, 4);
  auto params = expectedCellParams(gru, ParamsLayout::NNX, "x/cell", 3);
  ASSERT_TRUE(params);
  ASSERT_EQ(params->size(), 3u);
  EXPECT_EQ((*params)[0].key, "x/cell/dense_i/kernel");
  EXPECT_EQ((*params)[0].shape, (std::vector<int64_t>{3, 12}));
  EXPECT_EQ((*params)[2].key, "x/cell/dense_h/kernel");
  EXPECT_FALSE(expectedCellParams(makeCell(CellKind::MGU, 2), ParamsLayout::NNX,
                                  "m", 3));
}

} // namespace
