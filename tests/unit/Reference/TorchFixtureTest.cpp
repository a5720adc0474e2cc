//===- TorchFixtureTest.cpp - The reference against PyTorch fixtures ------===//
//
// Every tests/fixtures/torch/<case>.yaml is parsed with the Spec library, its
// <case>.weights.npz read and bound with the Weights library, and the
// reference run on the inputs of <case>.io.npz. Outputs and final carries
// must match the values PyTorch computed (make_fixtures.py) within
// 1e-5 + 1e-5 * |expected|. An optional `mask/<key>` array (same shape as
// `<key>`) restricts the comparison to its nonzero positions.
//
//===----------------------------------------------------------------------===//

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

/// A float array of the io file as doubles (float64 arrays exactly).
std::vector<double> toDoubles(const weights::Array &array) {
  std::vector<double> values(array.numElements());
  if (array.dtype == weights::DType::F64 &&
      array.bytes.size() == values.size() * sizeof(double)) {
    std::memcpy(values.data(), array.bytes.data(), array.bytes.size());
    return values;
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

  auto outputs = reference::run(*model, *params, inputs);
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
  std::cout << "[fixture] " << GetParam() << ": max abs error " << worst
            << "\n";
  if (worst >= worstOverall) {
    worstOverall = worst;
    worstCase = GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Torch, TorchFixtureTest,
                         testing::ValuesIn(caseNames()),
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
