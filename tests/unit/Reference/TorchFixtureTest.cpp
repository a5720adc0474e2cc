//===- TorchFixtureTest.cpp - The reference against PyTorch fixtures ------===//
//
// Every tests/fixtures/torch/<case>.yaml is parsed with the Spec library, its
// <case>.weights.npz read and bound with the Weights library, and the
// reference run on the inputs of <case>.io.npz. Outputs and final carries
// must match the values PyTorch computed (make_fixtures.py) within
// 1e-5 + 1e-5 * |expected|. An optional `mask/<key>` array (same shape as
// `<key>`) restricts the comparison to its nonzero positions.
//
// The cases in tests/fixtures/torch/layers/ (Dense, LayerNorm, activations,
// Embed, Pool, whole models) are checked the same way, with their models
// built in this file (see below).
//
//===----------------------------------------------------------------------===//

#include "Builders.h"

#include "rnn/Reference/Reference.h"
#include "rnn/Spec/Parser.h"
#include "rnn/Weights/Binding.h"
#include "rnn/Weights/Npz.h"
#include "rnn/Weights/WeightsFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

using namespace rnnc;

namespace {

constexpr double kAbsTol = 1e-5;
constexpr double kRelTol = 1e-5;

std::string fixtureDir() { return RNN_SRC_ROOT "/tests/fixtures/torch"; }

/// The case names: every <case>.yaml in the fixture directory, sorted.
std::vector<std::string> caseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(fixtureDir(), ec), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef file = llvm::sys::path::filename(it->path());
    if (file.consume_back(".yaml"))
      names.push_back(file.str());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// An array of the io file as doubles (float64 and integer arrays exactly).
std::vector<double> toDoubles(const weights::Array &array) {
  std::vector<double> values(array.numElements());
  if (array.dtype == weights::DType::F64 &&
      array.bytes.size() == values.size() * sizeof(double)) {
    std::memcpy(values.data(), array.bytes.data(), array.bytes.size());
    return values;
  }
  if (!weights::isFloatingPoint(array.dtype)) {
    auto ints = weights::toInt64(array);
    if (!ints) {
      ADD_FAILURE() << llvm::toString(ints.takeError());
      return {};
    }
    return std::vector<double>(ints->begin(), ints->end());
  }
  auto floats = weights::toFloat32(array);
  if (!floats) {
    ADD_FAILURE() << llvm::toString(floats.takeError());
    return {};
  }
  return std::vector<double>(floats->begin(), floats->end());
}

/// Compares `actual` with `expected` (and an optional mask); returns the
/// largest absolute error over the compared positions.
double compare(const std::string &what, const reference::Array &actual,
               const weights::Array &expected, const weights::Array *mask) {
  EXPECT_EQ(actual.shape, expected.shape) << what;
  std::vector<double> want = toDoubles(expected);
  if (actual.data.size() != want.size()) {
    ADD_FAILURE() << what << ": expected " << want.size() << " values, found "
                  << actual.data.size();
    return INFINITY;
  }
  std::vector<double> keep(want.size(), 1.0);
  if (mask) {
    keep = toDoubles(*mask);
    EXPECT_EQ(keep.size(), want.size()) << what << " mask";
    keep.resize(want.size(), 0.0);
  }
  double worst = 0.0;
  size_t failures = 0, compared = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    if (keep[k] == 0.0)
      continue;
    ++compared;
    double err = std::abs(actual.data[k] - want[k]);
    worst = std::max(worst, err);
    if (!(err <= kAbsTol + kRelTol * std::abs(want[k])) && ++failures <= 5)
      ADD_FAILURE() << what << " at flat index " << k << ": expected "
                    << want[k] << ", found " << actual.data[k];
  }
  EXPECT_GT(compared, 0u) << what << ": nothing compared";
  return worst;
}

double worstOverall = 0.0;
std::string worstCase;

/// Runs the reference on the inputs of \p ioPath and compares y and the
/// final carries with the expected arrays there (and records the error).
void runAndCompare(const std::string &caseName, const std::string &ioPath,
                   const spec::Model &model,
                   const std::vector<LayerParams> &params) {
  auto io = weights::readNpz(ioPath);
  ASSERT_TRUE(bool(io)) << llvm::toString(io.takeError());
  std::map<std::string, const weights::Array *> arrays;
  for (const weights::Array &array : *io)
    arrays[array.name] = &array;

  reference::Inputs inputs;
  std::map<std::string, const weights::Array *> expected;
  for (const auto &[name, array] : arrays) {
    llvm::StringRef key(name);
    if (key == "x") {
      inputs.x = {array->shape, toDoubles(*array)};
    } else if (key == "seq_lengths") {
      auto lengths = weights::toInt64(*array);
      ASSERT_TRUE(bool(lengths)) << llvm::toString(lengths.takeError());
      inputs.seqLengths = std::move(*lengths);
    } else if (key.starts_with("initial_carry/")) {
      inputs.initialCarry[name] = {array->shape, toDoubles(*array)};
    } else if (key == "y" || key.starts_with("carry/")) {
      expected[name] = array;
    } else {
      ASSERT_TRUE(key.starts_with("mask/")) << "unknown io key " << name;
    }
  }
  ASSERT_TRUE(expected.count("y")) << "no expected 'y' in " << ioPath;

  auto outputs = reference::run(model, params, inputs);
  ASSERT_TRUE(bool(outputs)) << llvm::toString(outputs.takeError());

  auto maskOf = [&](const std::string &name) -> const weights::Array * {
    auto it = arrays.find("mask/" + name);
    return it == arrays.end() ? nullptr : it->second;
  };
  double worst = compare("y", outputs->y, *expected["y"], maskOf("y"));
  size_t carries = 0;
  for (const auto &[name, array] : expected) {
    if (name == "y")
      continue;
    ++carries;
    auto it = outputs->carries.find(name);
    if (it == outputs->carries.end()) {
      ADD_FAILURE() << "reference returned no '" << name << "'";
      continue;
    }
    worst = std::max(worst, compare(name, it->second, *array, maskOf(name)));
  }
  EXPECT_EQ(outputs->carries.size(), carries)
      << "reference returned carries the fixture does not expect";
  std::cout << "[fixture] " << caseName << ": max abs error " << worst << "\n";
  if (worst >= worstOverall) {
    worstOverall = worst;
    worstCase = caseName;
  }
}

class TorchFixtureTest : public testing::TestWithParam<std::string> {};

} // namespace

TEST(TorchFixtureListTest, AllCasesPresent) {
  // make_fixtures.py writes 18 cases; fewer means files went missing.
  EXPECT_GE(caseNames().size(), 18u) << "in " << fixtureDir();
}

TEST_P(TorchFixtureTest, MatchesTorch) {
  const std::string base = fixtureDir() + "/" + GetParam();
  const std::string specPath = base + ".yaml";
  const std::string weightsPath = base + ".weights.npz";
  const std::string ioPath = base + ".io.npz";

  mlir::MLIRContext ctx;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return mlir::success();
  });
  llvm::SourceMgr sourceMgr;
  auto buffer = llvm::MemoryBuffer::getFile(specPath);
  ASSERT_TRUE(bool(buffer)) << "cannot read " << specPath;
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  std::optional<spec::Model> model = spec::parseModel(sourceMgr, bufferId, ctx);
  ASSERT_TRUE(model.has_value()) << diagnostics;

  std::vector<std::string> warnings;
  auto tree = readWeights(weightsPath, warnings);
  ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
  EXPECT_TRUE(warnings.empty());
  auto params = bindParams(*model, *tree, weightsPath, sourceMgr, ctx);
  ASSERT_TRUE(params.has_value()) << diagnostics;

  runAndCompare(GetParam(), ioPath, *model, *params);
}

INSTANTIATE_TEST_SUITE_P(Torch, TorchFixtureTest,
                         testing::ValuesIn(caseNames()),
                         [](const testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

//===----------------------------------------------------------------------===//
// Whole-model layers: tests/fixtures/torch/layers/
//===----------------------------------------------------------------------===//
//
// The spec parser does not read the new layer types on this branch yet, so
// each case's model is built here exactly as its <case>.yaml describes. The
// Dense, Embed and LayerNorm weights are Flax's own arrays, taken from the
// weights file by their layer's params path; the leading recurrent layers
// are bound by bindParams like the cases above.

namespace {

std::string layerFixtureDir() { return fixtureDir() + "/layers"; }

/// Every <case>.io.npz of the layers directory, sorted.
std::vector<std::string> layerCaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(layerFixtureDir(), ec), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef file = llvm::sys::path::filename(it->path());
    if (file.consume_back(".io.npz"))
      names.push_back(file.str());
  }
  std::sort(names.begin(), names.end());
  return names;
}

using spec::Activation;
using test::activationLayer;
using test::denseLayer;
using test::embedLayer;
using test::layerNormLayer;
using test::poolLayer;

spec::Layer lstmLayer(std::string name, int64_t features, std::string params) {
  spec::Layer layer = test::rnnLayer(
      std::move(name), test::cell(spec::CellKind::LSTM, features));
  layer.rnn.cell.params = std::move(params);
  return layer;
}

/// The model of every case make_fixtures.py's layer_cases() writes.
std::map<std::string, spec::Model> layerCaseModels() {
  using test::model;
  std::map<std::string, spec::Model> m;
  auto one = [&](spec::Layer layer, std::vector<int64_t> batch, int64_t time,
                 std::vector<int64_t> features, bool timeMajor = false) {
    return model(std::move(batch), time, std::move(features),
                 {std::move(layer)}, false, timeMajor);
  };
  m["dense_bias"] = one(denseLayer("dense", 5), {2}, 3, {4});
  m["dense_nobias_leaky_relu_time_major"] = one(
      denseLayer("dense", 6, false, Activation::LeakyRelu), {3}, 4, {3}, true);
  m["dense_softmax"] =
      one(denseLayer("dense", 3, true, Activation::Softmax), {2}, 3, {4});
  m["layernorm"] = one(layerNormLayer("norm", 1e-6), {3}, 4, {6});
  m["layernorm_bias_only"] =
      one(layerNormLayer("norm", 1e-2, false, true), {2}, 3, {5});
  for (auto [name, fn] : {std::pair("gelu", Activation::Gelu),
                          std::pair("gelu_exact", Activation::GeluExact),
                          std::pair("softmax", Activation::Softmax),
                          std::pair("log_softmax", Activation::LogSoftmax),
                          std::pair("softplus", Activation::Softplus),
                          std::pair("leaky_relu", Activation::LeakyRelu),
                          std::pair("elu", Activation::Elu)})
    m[std::string("act_") + name] =
        one(activationLayer("act", fn), {2}, 4, {5});
  m["embed"] = one(embedLayer("embed", 7, 4), {3}, 5, {});
  m["embed_time_major"] = one(embedLayer("embed", 5, 3), {2}, 4, {}, true);

  spec::Layer l0 = lstmLayer("lstm_cell_0", 12, "lstm_cell_0");
  spec::Layer l1 = lstmLayer("lstm_cell_1", 12, "lstm_cell_1");
  m["seed_lstm_dense_head"] =
      model({5}, 7, {1},
            {l0, l1, poolLayer("last", spec::PoolFn::Last),
             denseLayer("Dense_0", 8, true, Activation::Elu),
             denseLayer("Dense_1", 4, true, Activation::Elu),
             denseLayer("Dense_2", 1)});
  m["lstm_final_carry_softmax"] = model(
      {4}, 6, {3},
      {lstmLayer("enc", 5, ""), poolLayer("pool", spec::PoolFn::FinalCarry),
       denseLayer("head", 3, true, Activation::Softmax)},
      /*seqLengths=*/true);
  for (auto [name, fn] : {std::pair("mean", spec::PoolFn::Mean),
                          std::pair("max", spec::PoolFn::Max)}) {
    spec::Layer enc =
        test::biLayer("enc", test::cell(spec::CellKind::LSTM, 4),
                      test::cell(spec::CellKind::LSTM, 4), spec::Merge::Concat,
                      /*returnCarry=*/false);
    m[std::string("bilstm_") + name + "_valid_layernorm"] =
        model({3}, 5, {2},
              {enc, poolLayer("pool", fn, /*validOnly=*/true),
               layerNormLayer("norm", 1e-6)},
              true);
  }
  return m;
}

/// The weights of every layer of \p model from \p tree: recurrent layers
/// (all before the first other one) through bindParams, the others' Flax
/// arrays by their params path (default: the layer's name).
std::optional<std::vector<LayerParams>>
bindLayerCase(const spec::Model &model, const ParamTree &tree,
              const std::string &weightsPath, std::string &diagnostics) {
  spec::Model recurrent = model;
  recurrent.layers.clear();
  for (const spec::Layer &layer : model.layers) {
    if (!layer.isRecurrent())
      break;
    recurrent.layers.push_back(layer);
  }
  ParamTree cellTree = tree, used;
  std::vector<LayerParams> params;
  for (size_t k = recurrent.layers.size(); k < model.layers.size(); ++k) {
    const spec::Layer &layer = model.layers[k];
    EXPECT_FALSE(layer.isRecurrent()) << "unsupported case layout";
    std::string prefix = layer.params.empty() ? layer.name : layer.params;
    LayerParams p;
    for (auto [name, slot] :
         {std::pair("kernel", &p.kernel), std::pair("bias", &p.bias),
          std::pair("scale", &p.scale), std::pair("embedding", &p.embedding)}) {
      auto it = cellTree.find(prefix + "/" + name);
      if (it == cellTree.end())
        continue;
      *slot = it->second;
      cellTree.erase(it);
    }
    params.push_back(std::move(p));
  }
  std::vector<LayerParams> all;
  if (!recurrent.layers.empty()) {
    mlir::MLIRContext ctx;
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
      diagnostics += diag.str() + "\n";
      return mlir::success();
    });
    llvm::SourceMgr sourceMgr;
    auto cells = bindParams(recurrent, cellTree, weightsPath, sourceMgr, ctx);
    if (!cells)
      return std::nullopt;
    all = std::move(*cells);
  } else if (!cellTree.empty()) {
    diagnostics += "unused weight '" + cellTree.begin()->first + "'\n";
    return std::nullopt;
  }
  all.insert(all.end(), params.begin(), params.end());
  return all;
}

class TorchLayerFixtureTest : public testing::TestWithParam<std::string> {};

} // namespace

TEST(TorchLayerFixtureListTest, EveryCaseHasAModel) {
  // make_fixtures.py's layer_cases() writes 18 cases; each must have its
  // model here and each model its files.
  std::vector<std::string> names = layerCaseNames();
  EXPECT_EQ(names.size(), 18u) << "in " << layerFixtureDir();
  std::map<std::string, spec::Model> models = layerCaseModels();
  for (const std::string &name : names)
    EXPECT_TRUE(models.count(name)) << "no model for case " << name;
  EXPECT_EQ(models.size(), names.size());
}

TEST_P(TorchLayerFixtureTest, MatchesTorch) {
  const std::string base = layerFixtureDir() + "/" + GetParam();
  std::map<std::string, spec::Model> models = layerCaseModels();
  auto it = models.find(GetParam());
  ASSERT_NE(it, models.end()) << "no model for case " << GetParam();
  const spec::Model &model = it->second;

  ParamTree tree;
  const std::string weightsPath = base + ".weights.npz";
  if (llvm::sys::fs::exists(weightsPath)) {
    std::vector<std::string> warnings;
    auto read = readWeights(weightsPath, warnings);
    ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
    EXPECT_TRUE(warnings.empty());
    tree = std::move(*read);
  }
  std::string diagnostics;
  auto params = bindLayerCase(model, tree, weightsPath, diagnostics);
  ASSERT_TRUE(params.has_value()) << diagnostics;
  runAndCompare("layers/" + GetParam(), base + ".io.npz", model, *params);
}

INSTANTIATE_TEST_SUITE_P(TorchLayers, TorchLayerFixtureTest,
                         testing::ValuesIn(layerCaseNames()),
                         [](const testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

namespace {
/// Prints the worst error of all fixtures at the end of the run.
class WorstErrorReporter : public testing::EmptyTestEventListener {
  void OnTestProgramEnd(const testing::UnitTest &) override {
    if (!worstCase.empty())
      std::cout << "[fixture] worst: " << worstCase << " max abs error "
                << worstOverall << "\n";
  }
};
const bool registered = [] {
  testing::UnitTest::GetInstance()->listeners().Append(new WorstErrorReporter);
  return true;
}();
} // namespace
