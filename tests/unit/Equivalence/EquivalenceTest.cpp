//===- EquivalenceTest.cpp - Generated code against the reference --------===//
//
// Generated models over the feature matrix: every cell kind (and the nnx
// variants), time-major, reverse / keep_order, sequence lengths (1, T and 0
// included), return_carry, initial carries, Bidirectional with each merge
// and mixed cells, stacks of three layers, zero, one and two batch dims,
// unroll 1, 3 and T; and whole models: every Pool mode with and without
// valid_only, final_carry (Bidirectional included), Dense with every new
// activation, LayerNorm, Activation, Dropout and Embed. Each is compiled by rnnc through both code generators
// (LLVM and C through EmitC, the C built with strict C99 flags), many of
// them also RAM-lean (--optimize=ram, a sample: runsRamLean), run, and
// compared with the double-precision reference within
// 1e-5 + 1e-4 * |reference|. bf16 params (param_dtype: bfloat16) are
// compared with the reference on the rounded weights, bf16 compute (dtype:
// bfloat16) with the reference rounding at Flax's points; a few batch-1 cases
// force AVX-512's 4 x 64 register block (and its overlapped projection) so
// that code runs on AVX2 hosts too. Models are compiled in this one process
// to keep the suite fast.
//
//===----------------------------------------------------------------------===//

#include "rnn/Driver/Driver.h"
#include "rnn/Driver/ModelLibrary.h"
#include "rnn/Reference/Reference.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Spec/Parser.h"
#include "rnn/Weights/Binding.h"
#include "rnn/Weights/Npz.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

using namespace rnnc;

namespace {

struct LayerConfig {
  std::string cell = "LSTMCell";
  std::string backwardCell; ///< non-empty: a Bidirectional layer
  std::string cellExtra;    ///< more cell keys, e.g. "reset_gate: false"
  int features = 4;
  int backwardFeatures = 0; ///< 0: as `features`
  std::string merge = "concat";
  bool reverse = false, keepOrder = false, returnCarry = true,
       initInput = false;
  int unroll = 1;
  /// Non-empty: a non-recurrent layer, its keys as YAML flow entries
  /// ("type: Dense, features: 3, activation: elu"); the fields above are
  /// then unused.
  std::string head;
};

/// A non-recurrent layer with the keys `keys`.
LayerConfig head(std::string keys) {
  LayerConfig layer;
  layer.head = std::move(keys);
  return layer;
}

struct CaseConfig {
  std::string name;
  std::string layout = "linen";
  std::vector<int> batch{3};
  int time = 5;
  std::string features = "3"; ///< empty: no 'features' (an Embed first)
  bool timeMajor = false, lengths = true, zeroPadded = false;
  std::vector<LayerConfig> layers{LayerConfig()};
  /// Time loops in blocks of steps (tiny blocks, so small models take the
  /// path long sequences take); 0: the compiler's default.
  int64_t timeBlockBytes = 0;
  /// Non-zero: `time: {max: runtimeMax}`, and each call runs `time` steps.
  int runtimeMax = 0;
  bool stream = false; ///< `stream: true` (needs runtimeMax)
  /// Per batch dim, non-zero: `{max: batchMax[d]}`, and each call runs
  /// `batch[d]` rows.
  std::vector<int> batchMax;
  /// Non-empty: the model-wide `param_dtype` ("bfloat16").
  std::string paramDtype;
  /// `quantize: {weights: int8}`.
  bool int8Weights = false;
  /// `quantize: {weights: int8, activations: dynamic}`: the LLVM path only
  /// on x86 hosts with AVX-512 VNNI or AVX2 (elsewhere rnnc rejects it), C
  /// anywhere.
  bool int8Dynamic = false;
  /// Non-empty: the model-wide `dtype` ("bfloat16"): bf16 compute.
  std::string dtype;
  /// bf16 compute somewhere in the model. rnnc and the reference round at
  /// the same points and meet the suite's tolerance (worst 1.3e-7 here), but
  /// another target's exp and tanh may put a value on the other side of a
  /// bf16 rounding boundary: not exported for cross-target runs.
  bool bf16Compute = false;
  /// The LLVM path with AVX-512's 4 x 64 register block (and so the batch-1
  /// overlapped projection) whatever the host: its code is checked on AVX2
  /// hosts too.
  bool avx512Block = false;
};

std::string cellYaml(const std::string &type, const LayerConfig &layer,
                     bool backward = false) {
  int features = backward && layer.backwardFeatures ? layer.backwardFeatures
                                                    : layer.features;
  std::string yaml =
      "{type: " + type + ", features: " + std::to_string(features);
  if (!layer.cellExtra.empty())
    yaml += ", " + layer.cellExtra;
  return yaml + "}";
}

std::string toYaml(const CaseConfig &config) {
  std::ostringstream os;
  os << "rnnc: 1\nname: " << config.name << "\nparams_layout: " << config.layout
     << "\n";
  if (config.zeroPadded)
    os << "padded_outputs: zeros\n";
  if (!config.paramDtype.empty())
    os << "param_dtype: " << config.paramDtype << "\n";
  if (config.int8Dynamic)
    os << "quantize: {weights: int8, activations: dynamic}\n";
  else if (config.int8Weights)
    os << "quantize: {weights: int8}\n";
  if (!config.dtype.empty())
    os << "dtype: " << config.dtype << "\n";
  os << "input:\n  batch: [";
  for (size_t i = 0; i < config.batch.size(); ++i) {
    os << (i ? ", " : "");
    if (i < config.batchMax.size() && config.batchMax[i])
      os << "{max: " << config.batchMax[i] << "}";
    else
      os << config.batch[i];
  }
  os << "]\n  time: ";
  if (config.runtimeMax && !config.stream)
    os << "{max: " << config.runtimeMax << "}";
  else
    os << (config.stream ? config.runtimeMax : config.time);
  if (config.stream)
    os << "\n  stream: true";
  if (!config.features.empty())
    os << "\n  features: " << config.features;
  os << "\n  time_major: " << (config.timeMajor ? "true" : "false")
     << "\n  seq_lengths: " << (config.lengths ? "true" : "false")
     << "\nlayers:\n";
  for (size_t k = 0; k < config.layers.size(); ++k) {
    const LayerConfig &layer = config.layers[k];
    if (!layer.head.empty()) {
      os << "  - {name: l" << k << ", " << layer.head << "}\n";
      continue;
    }
    os << "  - name: l" << k << "\n";
    if (layer.backwardCell.empty()) {
      os << "    type: RNN\n    cell: " << cellYaml(layer.cell, layer)
         << "\n    reverse: " << (layer.reverse ? "true" : "false")
         << "\n    keep_order: " << (layer.keepOrder ? "true" : "false")
         << "\n    unroll: " << layer.unroll << "\n";
    } else {
      os << "    type: Bidirectional\n    forward_rnn: {cell: "
         << cellYaml(layer.cell, layer) << ", unroll: " << layer.unroll
         << "}\n    backward_rnn: {cell: "
         << cellYaml(layer.backwardCell, layer, /*backward=*/true)
         << "}\n    merge_fn: " << layer.merge << "\n";
    }
    os << "    return_carry: " << (layer.returnCarry ? "true" : "false")
       << "\n    initial_carry: " << (layer.initInput ? "input" : "zeros")
       << "\n";
  }
  return os.str();
}

/// Random weights with every key the spec expects: within +-0.5, and
/// +-1/sqrt(fan-in) for kernels with a larger fan-in (as Flax's
/// initializers scale), so that wider cells with unbounded activations stay
/// stable over the sequence.
ParamTree randomWeights(const spec::Model &model, std::mt19937 &rng) {
  ParamTree tree;
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const spec::Layer &layer = model.layers[k];
    spec::Shape input = spec::layerInputFeatures(model, k);
    int64_t inputFeatures = input.empty() ? 0 : input.back();
    std::vector<std::vector<ParamSpec>> groups;
    if (!layer.isRecurrent())
      groups.push_back(expectedLayerParams(
          layer, layer.params.empty() ? layer.name : layer.params,
          inputFeatures));
    for (const spec::RNN *rnn : spec::layerDirections(layer))
      if (auto specs = expectedCellParams(rnn->cell, model.paramsLayout,
                                          rnn->cell.params, inputFeatures))
        groups.push_back(std::move(*specs));
    for (const std::vector<ParamSpec> &specs : groups)
      for (const ParamSpec &param : specs) {
        Tensor tensor;
        tensor.shape = param.shape;
        tensor.data.resize(tensor.numElements());
        int64_t fanIn = 1;
        for (size_t d = 0; d + 1 < param.shape.size(); ++d)
          fanIn *= param.shape[d];
        float bound =
            std::min(0.5f, 1.0f / std::sqrt(static_cast<float>(fanIn)));
        std::uniform_real_distribution<float> dist(-bound, bound);
        for (float &v : tensor.data)
          v = dist(rng);
        tree[param.key] = std::move(tensor);
      }
  }
  return tree;
}

/// With RNN_EQUIVALENCE_EXPORT=<dir> (tests/Embedded/equivalence-*.test),
/// each case that runs is also written to <dir>/<case>/: its spec
/// (<model>.yaml), its random weights (weights.npz) and main.c, a C99
/// program that calls <model>_run on the same inputs and compares its
/// outputs with this host's, within the suite's tolerance. Cross-compiled
/// with the model (tests/Embedded/run-cross.sh), it runs the suite's models
/// on other machines.
void exportCase(llvm::StringRef dir, const CaseConfig &config,
                const std::string &yaml, const spec::Model &model,
                const ParamTree &tree, const Compiled &compiled,
                const std::vector<std::vector<float>> &floats,
                const std::vector<int32_t> &lengths,
                const std::vector<int32_t> &tokens, int32_t steps) {
  llvm::SmallString<256> caseDir(dir);
  llvm::sys::path::append(caseDir, config.name);
  ASSERT_FALSE(llvm::sys::fs::create_directories(caseDir));
  auto file = [&](llvm::StringRef name) {
    llvm::SmallString<256> path(caseDir);
    llvm::sys::path::append(path, name);
    return std::string(path);
  };
  {
    std::error_code error;
    llvm::raw_fd_ostream os(file(model.name + ".yaml"), error);
    ASSERT_FALSE(error);
    os << yaml;
  }
  std::vector<weights::Array> arrays;
  for (const auto &[key, tensor] : tree) {
    weights::Array array;
    array.name = key;
    array.shape = tensor.shape;
    array.bytes.resize(tensor.data.size() * sizeof(float));
    std::memcpy(array.bytes.data(), tensor.data.data(), array.bytes.size());
    arrays.push_back(std::move(array));
  }
  ASSERT_FALSE(static_cast<bool>(weights::writeNpz(file("weights.npz"), arrays)));

  std::string prefix;
  for (char c : model.name)
    prefix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::error_code error;
  llvm::raw_fd_ostream c(file("main.c"), error);
  ASSERT_FALSE(error);
  c << "/* " << config.name << ": generated by EquivalenceTests; calls "
    << model.name << "_run on the suite's inputs and compares its outputs "
    << "with the host's. */\n#include \"" << model.name
    << ".h\"\n#include <stdint.h>\n#include <stdio.h>\n\n";
  auto values = [&](const auto &data) {
    std::string text;
    for (size_t e = 0; e < data.size(); ++e)
      text += llvm::formatv("{0}{1}", e ? ", " : "", data[e]).str();
    return text.empty() ? std::string("0") : text;
  };
  auto floatValues = [&](const std::vector<float> &data) {
    std::string text;
    for (size_t e = 0; e < data.size(); ++e) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%s%.9g", e ? ", " : "",
                    static_cast<double>(data[e]));
      text += buffer;
    }
    return text.empty() ? std::string("0") : text;
  };
  std::string args;
  for (auto [i, param] : llvm::enumerate(compiled.parameters)) {
    std::string name = "p" + std::to_string(i);
    args += name + ", ";
    if (param.isSteps)
      c << "static const int32_t " << name << "[1] = {" << steps << "};\n";
    else if (param.isLengths)
      c << "static const int32_t " << name << "[] = {" << values(lengths)
        << "};\n";
    else if (param.isTokens)
      c << "static const int32_t " << name << "[] = {" << values(tokens)
        << "};\n";
    else if (!param.isOutput)
      c << "static const float " << name << "[] = {" << floatValues(floats[i])
        << "};\n";
    else
      c << "static float " << name << "[" << std::max<size_t>(floats[i].size(), 1)
        << "];\nstatic const float host" << i << "[] = {"
        << floatValues(floats[i]) << "};\n";
  }
  c << "static unsigned char workspace[" << prefix << "_WORKSPACE_SIZE + "
    << prefix << "_WORKSPACE_ALIGNMENT];\n\n"
    << "/* Every element within 1e-5 + 1e-4 |host|; the largest difference "
       "goes to *worst. */\n"
    << "static int same(const char *name, const float *got, const float "
       "*want, int n, double *worst) {\n"
    << "  int e;\n  for (e = 0; e < n; ++e) {\n"
    << "    double d = (double)got[e] - (double)want[e];\n"
    << "    double w = want[e] < 0 ? -(double)want[e] : (double)want[e];\n"
    << "    d = d < 0 ? -d : d;\n"
    << "    if (!(d <= 1e-5 + 1e-4 * w)) {\n"
    << "      printf(\"" << config.name
    << ": %s[%d] = %.9g, the host's %.9g\\n\", name, e, (double)got[e], "
       "(double)want[e]);\n"
    << "      return 0;\n    }\n    if (d > *worst) *worst = d;\n  }\n"
    << "  return 1;\n}\n\n"
    << "int main(void) {\n"
    << "  uintptr_t at = (uintptr_t)workspace;\n"
    << "  void *ws = workspace + (" << prefix << "_WORKSPACE_ALIGNMENT - at % "
    << prefix << "_WORKSPACE_ALIGNMENT) % " << prefix
    << "_WORKSPACE_ALIGNMENT;\n"
    << "  double worst = 0;\n  int ok = 1, outputs = 0;\n"
    << "  int32_t status = " << model.name << "_run(" << args << "ws);\n"
    << "  if (status != 0) {\n    printf(\"" << config.name
    << ": status %d\\n\", (int)status);\n    return 1;\n  }\n";
  for (auto [i, param] : llvm::enumerate(compiled.parameters))
    if (param.isOutput)
      c << "  ok = ok && same(\"" << param.name << "\", p" << i << ", host"
        << i << ", " << floats[i].size() << ", &worst);\n  outputs += "
        << floats[i].size() << ";\n";
  c << "  if (ok)\n    printf(\"" << config.name
    << ": all %d outputs match the host's (max abs difference %.2g)\\n\", "
       "outputs, worst);\n"
    << "  return !ok;\n}\n";
}

/// The worst error over every model this process ran, and how close it came
/// to the tolerance, printed at the end of the run.
struct WorstError : testing::Environment {
  static inline double abs = 0, ratio = 0;
  static inline int models = 0;
  void TearDown() override {
    std::printf("equivalence: %d models; worst abs error %.3g; worst "
                "error / tolerance %.3g\n",
                models, abs, ratio);
  }
};
testing::Environment *const worstError =
    testing::AddGlobalTestEnvironment(new WorstError);

/// A model and the code generator it goes through (an object file through
/// LLVM, or C through EmitC).
/// A case, the code generator, and what the code is lean in (Default is
/// speed on the host; Ram is --optimize=ram).
using EquivalenceParam = std::tuple<CaseConfig, Emit, Optimize>;

class EquivalenceTest : public testing::TestWithParam<EquivalenceParam> {};

/// Whether this host runs dynamic int8 activations on the LLVM path
/// (rnnc's own test).
bool hostHasInt8Dot() {
  llvm::Expected<CodegenOptions> options =
      selectCodegenOptions({}, CodegenPath::LLVM, Optimize::Default);
  if (!options) {
    llvm::consumeError(options.takeError());
    return false;
  }
  return !options->int8Dot.empty();
}

TEST_P(EquivalenceTest, MatchesReference) {
  const CaseConfig &config = std::get<0>(GetParam());
  Emit emit = std::get<1>(GetParam());
  std::string yaml = toYaml(config);
  SCOPED_TRACE(yaml);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(yaml, config.name + ".yaml"),
      llvm::SMLoc());
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return mlir::success();
  });

  std::optional<spec::Model> model = spec::parseModel(sourceMgr, 1, ctx);
  ASSERT_TRUE(model) << diagnostics;
  if (config.int8Dynamic && emit != Emit::C && !hostHasInt8Dot())
    GTEST_SKIP() << "dynamic int8 activations need an x86 int8 dot product";
  std::mt19937 rng(std::hash<std::string>()(config.name) & 0xffffffff);
  ParamTree tree = randomWeights(*model, rng);
  auto params = bindParams(*model, tree, "random", sourceMgr, ctx);
  ASSERT_TRUE(params) << diagnostics;
  LoadedModel loaded{*model, *params};

  CompileOptions options;
  options.emit = emit;
  options.optimize = std::get<2>(GetParam());
  if (config.avx512Block) {
    options.blockRows = 4;
    options.blockColumns = 64;
  }
  // Tiny blocks of steps, whatever their rows, so that small models take
  // the blocked time loops.
  if (config.timeBlockBytes) {
    options.timeBlockBytes = config.timeBlockBytes;
    options.timeBlockRows = 1;
  }
  mlir::FailureOr<Compiled> compiled =
      compileModel(loaded, sourceMgr, options, ctx);
  ASSERT_TRUE(mlir::succeeded(compiled)) << diagnostics;
  auto library = ModelLibrary::load(*compiled, options.emit, model->name,
                                    mlir::UnknownLoc::get(&ctx));
  ASSERT_TRUE(library) << diagnostics;

  // Inputs, in the entry point's order, and the reference's view of them.
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  reference::Inputs refInputs;
  std::vector<std::vector<float>> floats(compiled->parameters.size());
  std::vector<int32_t> lengths, tokens;
  std::vector<void *> pointers;
  int64_t rows = 1;
  for (int b : config.batch)
    rows *= b;
  // With a run-time number of steps, x and y are dense for `time` steps.
  int32_t steps = config.time;
  // With run-time batch sizes, every array is dense for `batch` rows.
  std::vector<int32_t> batchSizes(config.batch.begin(), config.batch.end());
  auto callShape = [&](const EntryParameter &param) {
    std::vector<int64_t> shape = param.shape;
    if (param.timeAxis)
      shape[*param.timeAxis] = steps;
    if (param.batchAxis)
      for (size_t d = 0; d < config.batch.size(); ++d)
        shape[*param.batchAxis + d] = config.batch[d];
    return shape;
  };
  for (auto [i, param] : llvm::enumerate(compiled->parameters)) {
    std::vector<int64_t> shape = callShape(param);
    int64_t size = spec::numElements(shape);
    if (param.isSteps) {
      pointers.push_back(&steps);
      continue;
    }
    if (param.batchSizeOf) {
      pointers.push_back(&batchSizes[*param.batchSizeOf]);
      continue;
    }
    if (param.isLengths) {
      // The first rows exercise T, 1 and 0; the rest are random.
      std::uniform_int_distribution<int32_t> length(1, config.time);
      for (int64_t b = 0; b < rows; ++b)
        lengths.push_back(b == 0   ? config.time
                          : b == 1 ? 1
                          : b == 2 ? 0
                                   : length(rng));
      refInputs.seqLengths.emplace(lengths.begin(), lengths.end());
      pointers.push_back(lengths.data());
      continue;
    }
    if (param.isTokens) {
      // Every id of the table, the first and last rows included.
      std::uniform_int_distribution<int32_t> id(
          0, int32_t(model->layers.front().numEmbeddings) - 1);
      for (int64_t e = 0; e < size; ++e)
        tokens.push_back(e == 0   ? 0
                         : e == 1 ? int32_t(model->layers.front().numEmbeddings) - 1
                                  : id(rng));
      refInputs.x = {shape, {tokens.begin(), tokens.end()}};
      pointers.push_back(tokens.data());
      continue;
    }
    floats[i].resize(size);
    if (!param.isOutput)
      for (float &v : floats[i])
        v = dist(rng);
    pointers.push_back(floats[i].data());
    if (param.isOutput)
      continue;
    reference::Array array{shape, {floats[i].begin(), floats[i].end()}};
    if (param.name == "x")
      refInputs.x = std::move(array);
    else
      refInputs.initialCarry[param.name] = std::move(array);
  }
  ASSERT_EQ(library->run(pointers), 0);

  llvm::Expected<reference::Outputs> expected =
      reference::run(*model, *params, refInputs);
  ASSERT_TRUE(bool(expected)) << llvm::toString(expected.takeError());
  size_t compared = 0;
  for (auto [i, param] : llvm::enumerate(compiled->parameters)) {
    if (!param.isOutput)
      continue;
    const reference::Array &want =
        param.name == "y" ? expected->y : expected->carries.at(param.name);
    ASSERT_EQ(want.shape, callShape(param)) << param.name;
    double worst = 0;
    for (size_t e = 0; e < want.data.size(); ++e) {
      double error = std::abs(floats[i][e] - want.data[e]);
      double tolerance = 1e-5 + 1e-4 * std::abs(want.data[e]);
      worst = std::max(worst, error);
      WorstError::abs = std::max(WorstError::abs, error);
      WorstError::ratio = std::max(WorstError::ratio, error / tolerance);
      ASSERT_LE(error, tolerance)
          << param.name << "[" << e << "]: got " << floats[i][e]
          << ", expected " << want.data[e];
    }
    RecordProperty(param.name, std::to_string(worst));
    ++compared;
  }
  EXPECT_EQ(compared, 1 + expected->carries.size());
  ++WorstError::models;
  // bf16 compute is not exported (see CaseConfig::bf16Compute).
  if (const char *dir = std::getenv("RNN_EQUIVALENCE_EXPORT");
      dir && !config.bf16Compute)
    exportCase(dir, config, yaml, *model, tree, *compiled, floats, lengths,
               tokens, steps);
}

/// The matrix, as a list of small models.
std::vector<CaseConfig> cases() {
  std::vector<CaseConfig> all;
  struct Cell {
    std::string name, type, layout, extra;
  };
  std::vector<Cell> cells = {
      {"lstm", "LSTMCell", "linen", ""},
      {"optimized_lstm", "OptimizedLSTMCell", "linen", ""},
      {"gru", "GRUCell", "linen", ""},
      {"mgu", "MGUCell", "linen", ""},
      {"mgu_no_reset", "MGUCell", "linen", "reset_gate: false"},
      {"simple", "SimpleCell", "linen", ""},
      {"simple_residual", "SimpleCell", "linen", "residual: true"},
      {"nnx_lstm", "LSTMCell", "nnx", ""},
      {"nnx_optimized_lstm", "OptimizedLSTMCell", "nnx", ""},
      {"nnx_gru", "GRUCell", "nnx", ""},
      {"nnx_simple", "SimpleCell", "nnx", ""},
      {"lstm_hard_gates", "LSTMCell", "linen",
       "gate_fn: hard_sigmoid, activation_fn: hard_tanh"},
      {"gru_relu_elu", "GRUCell", "linen", "gate_fn: silu, activation_fn: elu"},
      {"mgu_relu", "MGUCell", "linen", "activation_fn: relu"},
      {"simple_identity", "SimpleCell", "linen", "activation_fn: identity"},
  };
  for (const Cell &cell : cells) {
    int features = cell.extra.find("residual") != std::string::npos ? 3 : 4;
    auto base = [&](const std::string &suffix) {
      CaseConfig config;
      config.name = cell.name + "_" + suffix;
      config.layout = cell.layout;
      config.layers[0].cell = cell.type;
      config.layers[0].cellExtra = cell.extra;
      config.layers[0].features = features;
      return config;
    };
    // Lengths, reverse with keep_order, final carry, unroll 1.
    CaseConfig a = base("lengths_reverse_keep_order");
    a.layers[0].reverse = a.layers[0].keepOrder = true;
    all.push_back(a);
    // Unbatched, time-major, no lengths, unroll 3 of T = 4 (a remainder).
    CaseConfig b = base("unbatched_time_major_unroll3");
    b.batch = {};
    b.time = 4;
    b.timeMajor = true;
    b.lengths = false;
    b.layers[0].unroll = 3;
    all.push_back(b);
    // Two batch dims, reverse only, initial carry, unroll = T.
    CaseConfig c = base("two_batch_dims_reverse_init_unroll_t");
    c.batch = {2, 2};
    c.time = 6;
    c.layers[0].reverse = true;
    c.layers[0].initInput = true;
    c.layers[0].unroll = 6;
    all.push_back(c);
    // Time-major with lengths, zero padded outputs, no final carry.
    CaseConfig d = base("time_major_zero_padded");
    d.timeMajor = true;
    d.zeroPadded = true;
    d.batch = {4};
    d.layers[0].returnCarry = false;
    all.push_back(d);
    // The time loop in blocks of 2 steps (a block's outputs must exceed one
    // step's), with lengths, reverse and carries captured inside blocks;
    // and blocks of unrolled steps with a remainder (T = 7, unroll 2: three
    // blocks of 2 steps, then the last step).
    CaseConfig e = base("time_blocks_reverse_lengths");
    e.time = 12;
    e.batch = {4};
    e.layers[0].reverse = true;
    e.timeBlockBytes = 4 * features * 4 + 1;
    all.push_back(e);
    CaseConfig f = base("time_blocks_unroll2_time_major_zero_padded");
    f.time = 7;
    f.batch = {2, 2};
    f.timeMajor = true;
    f.zeroPadded = true;
    f.layers[0].unroll = 2;
    f.timeBlockBytes = 1;
    all.push_back(f);
    // Reverse without lengths reads the input from its end (no flipped
    // copy), also in blocks of steps, unrolled with a remainder, and with
    // keep_order stores outputs from the end.
    CaseConfig r = base("reverse_no_lengths_time_blocks_unroll2");
    r.time = 9;
    r.batch = {2};
    r.lengths = false;
    r.layers[0].reverse = r.layers[0].keepOrder = true;
    r.layers[0].unroll = 2;
    r.timeBlockBytes = 1;
    all.push_back(r);
    CaseConfig rm = r;
    rm.name = cell.name + "_reverse_no_lengths_time_major_outputs_reversed";
    rm.timeMajor = true;
    rm.layers[0].keepOrder = false;
    rm.timeBlockBytes = 0;
    all.push_back(rm);
    // Zero padding with rows in length-sorted blocks (8 rows: two blocks of
    // 4), with final and initial carries, reverse with keep_order, unroll 2
    // and blocks of 8 steps (T = 41: a remainder step).
    CaseConfig g = base("zero_padded_sorted_blocks_reverse_init");
    g.batch = {8};
    g.time = 41;
    g.zeroPadded = true;
    g.layers[0].reverse = g.layers[0].keepOrder = true;
    g.layers[0].initInput = true;
    g.layers[0].unroll = 2;
    all.push_back(g);
    // Batch 1 with input size = hidden size and T a multiple of 8: the
    // projection is computed piece by piece inside the time loop
    // (--rnn-overlap-input-projection, with the AVX-512 kernel), then a
    // loop of the last group of steps.
    CaseConfig o = base("batch1_overlapped_projection");
    o.batch = {1};
    o.time = 24;
    o.features = "32";
    o.layers[0].features = 32;
    o.layers[0].initInput = true;
    all.push_back(o);
  }

  // ConvLSTM over 2-D and 1-D frames.
  for (bool twoD : {true, false}) {
    CaseConfig conv;
    conv.name = twoD ? "conv_lstm_2d_lengths_reverse" : "conv_lstm_1d_init";
    conv.batch = {2};
    conv.time = 4;
    conv.features = twoD ? "[5, 4, 2]" : "[6, 3]";
    conv.layers[0].cell = "ConvLSTMCell";
    conv.layers[0].features = 3;
    conv.layers[0].cellExtra =
        twoD ? "kernel_size: [3, 3]" : "kernel_size: [2]";
    conv.layers[0].reverse = conv.layers[0].keepOrder = twoD;
    conv.layers[0].initInput = !twoD;
    conv.layers[0].unroll = 3;
    all.push_back(conv);
  }

  // Bidirectional: every merge, mixed cells, carries and initial carries.
  for (std::string merge : {"concat", "add", "mul", "mean"}) {
    CaseConfig bidi;
    bidi.name = "bidirectional_" + merge;
    bidi.batch = {2, 3};
    bidi.layers[0].cell = "LSTMCell";
    bidi.layers[0].backwardCell = merge == "concat" ? "GRUCell" : "MGUCell";
    bidi.layers[0].merge = merge;
    bidi.layers[0].initInput = merge == "add";
    bidi.layers[0].unroll = 2;
    all.push_back(bidi);
  }
  // Zero padding in length-sorted row blocks through a Bidirectional layer
  // (both directions, carries, initial carries) and a stack on top of it,
  // and through a ConvLSTM.
  CaseConfig bidiZeros;
  bidiZeros.name = "bidirectional_zero_padded_sorted_blocks_stack";
  bidiZeros.batch = {8};
  bidiZeros.time = 7;
  bidiZeros.zeroPadded = true;
  bidiZeros.layers.resize(2);
  bidiZeros.layers[0].backwardCell = "GRUCell";
  bidiZeros.layers[0].initInput = true;
  bidiZeros.layers[1].cell = "MGUCell";
  bidiZeros.layers[1].reverse = true;
  all.push_back(bidiZeros);
  CaseConfig convZeros;
  convZeros.name = "conv_lstm_1d_zero_padded_sorted_blocks";
  convZeros.batch = {8};
  convZeros.time = 4;
  convZeros.features = "[6, 3]";
  convZeros.zeroPadded = true;
  convZeros.layers[0].cell = "ConvLSTMCell";
  convZeros.layers[0].features = 3;
  convZeros.layers[0].cellExtra = "kernel_size: [2]";
  convZeros.layers[0].reverse = convZeros.layers[0].keepOrder = true;
  all.push_back(convZeros);
  CaseConfig bidiTimeMajor;
  bidiTimeMajor.name = "bidirectional_time_major_no_lengths";
  bidiTimeMajor.timeMajor = true;
  bidiTimeMajor.lengths = false;
  bidiTimeMajor.layers[0].cell = "SimpleCell";
  bidiTimeMajor.layers[0].backwardCell = "SimpleCell";
  all.push_back(bidiTimeMajor);

  // Sizes that take the register-blocked matmul path (>= 8 columns per
  // block), including blocks that do not divide evenly into vector lanes.
  CaseConfig wideLstm;
  wideLstm.name = "wide_lstm_vectorized";
  wideLstm.batch = {5};
  wideLstm.features = "20";
  wideLstm.layers[0].features = 32;
  wideLstm.layers[0].unroll = 2;
  all.push_back(wideLstm);
  CaseConfig wideGru;
  wideGru.name = "wide_gru_time_major_two_batch_dims";
  wideGru.batch = {2, 3};
  wideGru.timeMajor = true;
  wideGru.features = "12";
  wideGru.layers[0].cell = "GRUCell";
  wideGru.layers[0].features = 24;
  wideGru.layers[0].reverse = wideGru.layers[0].keepOrder = true;
  all.push_back(wideGru);
  CaseConfig wideBidi;
  wideBidi.name = "wide_bidirectional_mgu_simple";
  wideBidi.batch = {9};
  wideBidi.features = "16";
  wideBidi.layers[0].cell = "MGUCell";
  wideBidi.layers[0].backwardCell = "SimpleCell";
  wideBidi.layers[0].features = 40;
  all.push_back(wideBidi);

  // Edge sizes: one step, one feature, a batch of one, unroll beyond T,
  // directions of different sizes, a 3-D ConvLSTM, ConvLSTM on ConvLSTM.
  CaseConfig oneStep;
  oneStep.name = "edge_one_step_reverse";
  oneStep.time = 1;
  oneStep.layers[0].reverse = oneStep.layers[0].keepOrder = true;
  oneStep.layers[0].unroll = 4;
  all.push_back(oneStep);
  CaseConfig oneFeature;
  oneFeature.name = "edge_one_feature_batch_of_one";
  oneFeature.batch = {1};
  oneFeature.features = "1";
  oneFeature.layers[0].cell = "GRUCell";
  oneFeature.layers[0].features = 1;
  all.push_back(oneFeature);
  CaseConfig uneven;
  uneven.name = "edge_bidirectional_concat_uneven_sizes";
  uneven.layers[0].cell = "SimpleCell";
  uneven.layers[0].backwardCell = "LSTMCell";
  uneven.layers[0].features = 3;
  uneven.layers[0].backwardFeatures = 6;
  uneven.layers[0].unroll = 5;
  all.push_back(uneven);
  CaseConfig conv3d;
  conv3d.name = "edge_conv_lstm_3d";
  conv3d.batch = {1};
  conv3d.time = 3;
  conv3d.features = "[3, 4, 2, 2]";
  conv3d.layers[0].cell = "ConvLSTMCell";
  conv3d.layers[0].features = 2;
  conv3d.layers[0].cellExtra = "kernel_size: [2, 3, 1]";
  all.push_back(conv3d);
  CaseConfig convStack;
  convStack.name = "edge_conv_lstm_stack_unbatched";
  convStack.batch = {};
  convStack.lengths = false;
  convStack.time = 3;
  convStack.features = "[5, 2]";
  convStack.layers.resize(2);
  for (LayerConfig &layer : convStack.layers) {
    layer.cell = "ConvLSTMCell";
    layer.features = 3;
    layer.cellExtra = "kernel_size: [3], use_bias: false";
  }
  all.push_back(convStack);

  // Stacks of three layers.
  CaseConfig stack;
  stack.name = "stack_lstm_bidi_mgu";
  stack.layers.resize(3);
  stack.layers[0].cell = "LSTMCell";
  stack.layers[1].cell = "GRUCell";
  stack.layers[1].backwardCell = "SimpleCell";
  stack.layers[1].unroll = 5;
  stack.layers[2].cell = "MGUCell";
  stack.layers[2].reverse = stack.layers[2].keepOrder = true;
  stack.layers[2].initInput = true;
  stack.layers[2].unroll = 3;
  all.push_back(stack);
  CaseConfig stack3 = stack;
  stack3.name = "stack_three_lstm_time_major_unbatched";
  stack3.batch = {};
  stack3.lengths = false;
  stack3.timeMajor = true;
  for (LayerConfig &layer : stack3.layers) {
    layer = LayerConfig();
    layer.features = 5;
  }
  stack3.layers[1].returnCarry = false;
  all.push_back(stack3);

  // Whole models: the layers around the recurrence.
  auto whole = [&](const std::string &name, std::vector<LayerConfig> layers) {
    CaseConfig config;
    config.name = name;
    config.batch = {4};
    config.time = 6;
    config.layers = std::move(layers);
    return config;
  };
  LayerConfig lstm, gru;
  gru.cell = "GRUCell";
  lstm.returnCarry = gru.returnCarry = false;
  // The seed model's shape: two LSTMs, the last step, a Dense head (no
  // lengths, as the seed); Pool(last) reads the top scan's final carry.
  CaseConfig seed = whole("model_seed_pool_last_dense_head",
                          {lstm, lstm, head("type: Pool, fn: last"),
                           head("type: Dense, features: 5, activation: elu"),
                           head("type: Dense, features: 3, activation: elu"),
                           head("type: Dense, features: 1")});
  seed.lengths = false;
  all.push_back(seed);
  // Every Pool over all steps and over valid steps only, after a GRU with
  // lengths (0, 1 and T among them), then a Dense without a bias.
  for (std::string fn : {"last", "first", "mean", "max", "sum"})
    for (bool valid : {false, true})
      all.push_back(whole(
          "model_pool_" + fn + (valid ? "_valid" : ""),
          {gru,
           head("type: Pool, fn: " + fn +
                (valid ? ", valid_only: true" : "")),
           head("type: Dense, features: 2, use_bias: false")}));
  all.push_back(whole("model_pool_last_valid_softmax",
                      {lstm, head("type: Pool, fn: last_valid"),
                       head("type: Dense, features: 3, activation: softmax")}));
  // Pool(last) after reversed scans: outputs in processing order (the
  // final carry), and flipped back by keep_order (not the final carry).
  LayerConfig reversed = lstm;
  reversed.reverse = true;
  CaseConfig poolReverse = whole("model_pool_last_after_reverse",
                                 {reversed, head("type: Pool, fn: last")});
  poolReverse.lengths = false;
  all.push_back(poolReverse);
  LayerConfig keepOrder = reversed;
  keepOrder.keepOrder = true;
  CaseConfig poolKeepOrder = whole("model_pool_last_after_keep_order",
                                   {keepOrder, head("type: Pool, fn: last")});
  poolKeepOrder.lengths = false;
  all.push_back(poolKeepOrder);
  // final_carry: of an LSTM with an initial carry (a row of length 0 keeps
  // it), of a Bidirectional layer (both merges that change the shape or
  // not), and past a per-step Dense.
  LayerConfig lstmInit = lstm;
  lstmInit.initInput = true;
  all.push_back(whole("model_final_carry_init_log_softmax",
                      {lstmInit, head("type: Pool, fn: final_carry"),
                       head("type: Dense, features: 4, activation: log_softmax")}));
  for (std::string merge : {"concat", "mean"}) {
    LayerConfig bidi;
    bidi.backwardCell = "GRUCell";
    bidi.merge = merge;
    bidi.returnCarry = merge == "mean";
    all.push_back(whole("model_bidirectional_" + merge + "_final_carry",
                        {bidi, head("type: Pool, fn: final_carry"),
                         head("type: Dense, features: 3, activation: softmax")}));
  }
  all.push_back(whole("model_final_carry_past_dense",
                      {gru, head("type: Dense, features: 3"),
                       head("type: Pool, fn: final_carry")}));
  // Per-step layers: Dense with each new activation, LayerNorm variants,
  // Activation layers, Dropout, over two batch dims and time-major.
  CaseConfig perStep = whole(
      "model_per_step_layers_two_batch_dims",
      {lstm, head("type: Dense, features: 5, activation: gelu"),
       head("type: LayerNorm"),
       head("type: Activation, fn: gelu_exact"),
       head("type: Dropout, rate: 0.5"),
       head("type: Dense, features: 4, activation: softplus"),
       head("type: LayerNorm, use_scale: false, epsilon: 0.01"),
       head("type: Activation, fn: leaky_relu"),
       head("type: Activation, fn: softmax")});
  perStep.batch = {2, 3};
  all.push_back(perStep);
  CaseConfig perStepTimeMajor = whole(
      "model_per_step_time_major_unbatched",
      {gru, head("type: Dense, features: 3, activation: log_softmax"),
       head("type: LayerNorm, use_bias: false")});
  perStepTimeMajor.batch = {};
  perStepTimeMajor.lengths = false;
  perStepTimeMajor.timeMajor = true;
  all.push_back(perStepTimeMajor);
  // Embed first: token ids into a stack, then per-step log-probabilities.
  CaseConfig embed = whole(
      "model_embed_lstm_dense_log_softmax",
      {head("type: Embed, num_embeddings: 7, features: 3"), lstm,
       head("type: Dense, features: 7, activation: log_softmax")});
  embed.features = "";
  all.push_back(embed);
  CaseConfig embedTimeMajor = whole(
      "model_embed_time_major_pool_mean_valid",
      {head("type: Embed, num_embeddings: 5, features: 4"), gru,
       head("type: Pool, fn: mean, valid_only: true")});
  embedTimeMajor.features = "";
  embedTimeMajor.timeMajor = true;
  all.push_back(embedTimeMajor);
  // Zero padded outputs pooled over valid steps; a Dense on a ConvLSTM's
  // per-position outputs, pooled.
  CaseConfig zeroPool = whole("model_zero_padded_pool_max_valid",
                              {gru, head("type: Pool, fn: max, valid_only: true")});
  zeroPool.zeroPadded = true;
  all.push_back(zeroPool);
  LayerConfig conv;
  conv.cell = "ConvLSTMCell";
  conv.cellExtra = "kernel_size: [3]";
  conv.features = 3;
  conv.returnCarry = false;
  CaseConfig convHead = whole("model_conv_lstm_dense_pool_sum",
                              {conv, head("type: Dense, features: 2, activation: relu"),
                               head("type: Pool, fn: sum")});
  convHead.features = "[5, 2]";
  all.push_back(convHead);

  // A run-time number of steps (input.time: {max: N}): fewer steps than the
  // maximum, odd counts (the remainder's blocks), time-major, a Dense head,
  // initial carries in; and streams, whose entry point takes and returns
  // every carry.
  LayerConfig lstmIn = lstm, gruOut = gru;
  lstmIn.initInput = true;
  lstmIn.unroll = 2;
  gruOut.returnCarry = true;
  auto runtime = [&](const std::string &name, std::vector<LayerConfig> layers,
                     int time, int max) {
    CaseConfig config = whole(name, std::move(layers));
    config.lengths = false;
    config.time = time;
    config.runtimeMax = max;
    return config;
  };
  all.push_back(runtime("runtime_time_lstm_gru_dense",
                        {lstmIn, gruOut, head("type: Dense, features: 3")},
                        11, 40));
  CaseConfig runtimeTimeMajor = runtime("runtime_time_gru_time_major",
                                        {gruOut}, 7, 7);
  runtimeTimeMajor.timeMajor = true;
  runtimeTimeMajor.batch = {2, 3};
  all.push_back(runtimeTimeMajor);
  all.push_back(runtime("runtime_time_one_step", {lstm, gruOut}, 1, 33));
  CaseConfig streamed = runtime("stream_lstm_dense",
                                {lstm, head("type: Dense, features: 2")}, 5, 9);
  streamed.stream = true;
  all.push_back(streamed);

  // Run-time batch sizes (input.batch entries {max: N}): fewer rows than
  // the maximum (one block of rows per binary digit: 5 = 4 + 1), a single
  // row, the maximum, a static dim between run-time ones, time-major, with
  // a run-time time too, initial carries in and a Dense head.
  auto runtimeRows = [&](const std::string &name,
                         std::vector<LayerConfig> layers,
                         std::vector<int> batch, std::vector<int> max) {
    CaseConfig config = whole(name, std::move(layers));
    config.lengths = false;
    config.batch = std::move(batch);
    config.batchMax = std::move(max);
    return config;
  };
  all.push_back(runtimeRows("runtime_batch_lstm_dense",
                            {lstmIn, head("type: Dense, features: 3")}, {5},
                            {7}));
  all.push_back(runtimeRows("runtime_batch_one_row", {gruOut}, {1}, {32}));
  all.push_back(runtimeRows("runtime_batch_full", {gruOut, lstm}, {6}, {6}));
  CaseConfig rowsTimeMajor = runtimeRows(
      "runtime_batch_time_major_dims", {lstmIn, gruOut}, {3, 2, 2},
      {4, 0, 3});
  rowsTimeMajor.timeMajor = true;
  all.push_back(rowsTimeMajor);
  CaseConfig rowsAndSteps =
      runtimeRows("runtime_batch_and_time", {lstmIn, gruOut}, {3}, {9});
  rowsAndSteps.time = 6;
  rowsAndSteps.runtimeMax = 21;
  all.push_back(rowsAndSteps);

  // bfloat16 params (param_dtype: bfloat16), f32 maths: binding rounds the
  // random f32 weights, the reference runs on the rounded ones, and the
  // code stores them as bf16 and widens them where it reads them. Every
  // dense cell per cell, with lengths and reverse; a model-wide
  // param_dtype over a stack with a Dense head (which keeps f32 params);
  // batch 1 with the AVX-512 block (packed panels, the overlapped
  // projection); a Bidirectional layer with one cell of each type; time
  // blocks and an unrolled time-major case.
  std::vector<std::pair<std::string, std::string>> bf16Cells = {
      {"lstm", "LSTMCell"},      {"optimized_lstm", "OptimizedLSTMCell"},
      {"gru", "GRUCell"},        {"mgu", "MGUCell"},
      {"simple", "SimpleCell"}};
  for (const auto &[name, type] : bf16Cells) {
    CaseConfig config;
    config.name = "bf16_params_" + name + "_lengths_reverse";
    config.layers[0].cell = type;
    config.layers[0].cellExtra = "param_dtype: bfloat16";
    config.layers[0].reverse = true;
    all.push_back(config);
  }
  CaseConfig bf16Nnx;
  bf16Nnx.name = "bf16_params_nnx_gru_time_major_unroll3";
  bf16Nnx.layout = "nnx";
  bf16Nnx.timeMajor = true;
  bf16Nnx.layers[0].cell = "GRUCell";
  bf16Nnx.layers[0].cellExtra = "param_dtype: bfloat16";
  bf16Nnx.layers[0].unroll = 3;
  all.push_back(bf16Nnx);
  CaseConfig bf16Stack = whole(
      "bf16_params_model_wide_lstm_gru_dense",
      {lstm, gru, head("type: Dense, features: 3, activation: tanh")});
  bf16Stack.paramDtype = "bfloat16";
  all.push_back(bf16Stack);
  // Model-wide bfloat16 with one cell kept at float32.
  LayerConfig f32Gru = gru;
  f32Gru.cellExtra = "param_dtype: float32";
  CaseConfig bf16Mixed =
      whole("bf16_params_model_wide_one_cell_float32", {lstm, f32Gru});
  bf16Mixed.paramDtype = "bfloat16";
  all.push_back(bf16Mixed);
  for (int features : {32, 64}) {
    CaseConfig wide;
    wide.name = "bf16_params_batch1_lstm_h" + std::to_string(features);
    wide.paramDtype = "bfloat16";
    wide.batch = {1};
    wide.time = 24;
    wide.features = std::to_string(features);
    wide.layers[0].features = features;
    wide.layers[0].initInput = true;
    all.push_back(wide);
    CaseConfig block = wide;
    block.name += "_block4x64";
    block.avx512Block = true;
    all.push_back(block);
    // The same with f32 params: the AVX-512 block's overlap, on any host.
    CaseConfig f32Block = block;
    f32Block.name = "batch1_lstm_h" + std::to_string(features) + "_block4x64";
    f32Block.paramDtype.clear();
    all.push_back(f32Block);
  }
  CaseConfig bf16Batch;
  bf16Batch.name = "bf16_params_gru_batch8_h64_time_blocks";
  bf16Batch.batch = {8};
  bf16Batch.time = 9;
  bf16Batch.features = "16";
  bf16Batch.layers[0].cell = "GRUCell";
  bf16Batch.layers[0].cellExtra = "param_dtype: bfloat16";
  bf16Batch.layers[0].features = 64;
  bf16Batch.timeBlockBytes = 1;
  all.push_back(bf16Batch);
  CaseConfig bf16Bidi;
  bf16Bidi.name = "bf16_params_bidirectional_lstm_gru_add";
  bf16Bidi.layers[0].backwardCell = "GRUCell";
  bf16Bidi.layers[0].cellExtra = "param_dtype: bfloat16";
  bf16Bidi.layers[0].merge = "add";
  all.push_back(bf16Bidi);

  // int8 weights (quantize: {weights: int8}), f32 maths: binding quantizes
  // the random f32 kernels per column, the reference runs on the
  // dequantized ones, and the code stores int8 and scales each column's
  // sum. Every dense cell with lengths and reverse; a stack with a Dense
  // head (its kernel is int8 too);
  // batch 1 with the AVX-512 block (packed panels, the overlapped
  // projection); GRU in time blocks; a Bidirectional pair.
  for (const auto &[name, type] : bf16Cells) {
    CaseConfig config;
    config.name = "int8_weights_" + name + "_lengths_reverse";
    config.int8Weights = true;
    config.layers[0].cell = type;
    config.layers[0].reverse = true;
    all.push_back(config);
  }
  // A stack with a Dense head, weight-only and with dynamic activations.
  for (bool dynamic : {false, true}) {
    CaseConfig stack = whole(
        dynamic ? "int8_dynamic_lstm_gru_dense" : "int8_weights_lstm_gru_dense",
        {lstm, gru, head("type: Dense, features: 3, activation: tanh")});
    (dynamic ? stack.int8Dynamic : stack.int8Weights) = true;
    all.push_back(stack);
  }
  for (int features : {32, 64}) {
    CaseConfig wide;
    wide.name = "int8_weights_batch1_lstm_h" + std::to_string(features);
    wide.int8Weights = true;
    wide.batch = {1};
    wide.time = 24;
    wide.features = std::to_string(features);
    wide.layers[0].features = features;
    wide.layers[0].initInput = true;
    all.push_back(wide);
  }
  CaseConfig int8Batch;
  int8Batch.name = "int8_weights_gru_batch8_h64_time_blocks";
  int8Batch.int8Weights = true;
  int8Batch.batch = {8};
  int8Batch.time = 9;
  int8Batch.features = "16";
  int8Batch.layers[0].cell = "GRUCell";
  int8Batch.layers[0].features = 64;
  int8Batch.timeBlockBytes = 1;
  all.push_back(int8Batch);
  // Zero-padded outputs: length-sorted blocks, whose phases of fewer rows
  // depend on the int8 kernel's storage bytes.
  CaseConfig int8Sorted = int8Batch;
  int8Sorted.name = "int8_weights_gru_batch8_h64_zero_padded";
  int8Sorted.zeroPadded = true;
  all.push_back(int8Sorted);
  // Dynamic int8 activations: the reference quantizes each row of x and h
  // as rnnc does (float32 maths) and sums the int8 products exactly. Sizes
  // where vpdpbusd runs (K % 4 == 0, N % 16 == 0): batch 1 at H=16 (one
  // block of 1 row x 4 panels), batch 4 at H=32 (2 blocks of 4 rows x 4
  // panels, weights packed block by block) with lengths and reverse; and
  // where it does not (I = 3, GRU's 3 x 8 columns: the generic int32
  // vector code).
  for (auto [batch, features] : {std::pair{1, 16}, std::pair{4, 32}}) {
    CaseConfig dyn;
    dyn.name = "int8_dynamic_lstm_b" + std::to_string(batch) + "_h" +
               std::to_string(features);
    dyn.int8Dynamic = true;
    dyn.batch = {batch};
    dyn.time = 7;
    dyn.features = "8";
    dyn.layers[0].features = features;
    dyn.layers[0].reverse = batch == 4;
    all.push_back(dyn);
  }
  // In time blocks: each block's projection quantizes the rows of its
  // steps where they are in the batch-major input (a strided slice).
  CaseConfig dynBlocks = int8Batch;
  dynBlocks.name = "int8_dynamic_gru_batch8_h64_time_blocks";
  dynBlocks.int8Weights = false;
  dynBlocks.int8Dynamic = true;
  all.push_back(dynBlocks);
  CaseConfig int8Bidi;
  int8Bidi.name = "int8_weights_bidirectional_lstm_gru_add";
  int8Bidi.int8Weights = true;
  int8Bidi.layers[0].backwardCell = "GRUCell";
  int8Bidi.layers[0].merge = "add";
  all.push_back(int8Bidi);
  // bf16 compute (dtype: bfloat16), against the reference rounding at
  // Flax's points: every dense cell with bf16 carries (param_dtype too) and
  // with f32 carries, with lengths and reverse; initial carries (rounded
  // where Flax rounds them); a model-wide stack with a Dense head (f32) and
  // one cell kept at float32; batch 1 at H=64 (the packed panels and the
  // AVX-512 block); a Bidirectional pair; nnx time-major unrolled; GRU in
  // time blocks (a projection per block).
  for (const auto &[name, type] : bf16Cells)
    for (bool bf16Carries : {true, false}) {
      if (type == "SimpleCell" && !bf16Carries)
        continue; // needs residual (below)
      CaseConfig config;
      config.name = "bf16_dtype_" + name +
                    (bf16Carries ? "_bf16_carries" : "_f32_carries") +
                    "_lengths_reverse_initial_carry";
      config.layers[0].cell = type;
      config.layers[0].cellExtra =
          bf16Carries ? "dtype: bfloat16, param_dtype: bfloat16"
                      : "dtype: bfloat16";
      config.layers[0].reverse = true;
      config.layers[0].initInput = true;
      config.bf16Compute = true;
      all.push_back(config);
    }
  CaseConfig bf16Residual;
  bf16Residual.name = "bf16_dtype_simple_residual_f32_carries";
  bf16Residual.layers[0].cell = "SimpleCell";
  bf16Residual.layers[0].cellExtra = "dtype: bfloat16, residual: true";
  bf16Residual.bf16Compute = true;
  all.push_back(bf16Residual);
  CaseConfig bf16NoReset;
  bf16NoReset.name = "bf16_dtype_mgu_no_reset_gate";
  bf16NoReset.layers[0].cell = "MGUCell";
  bf16NoReset.layers[0].cellExtra =
      "dtype: bfloat16, param_dtype: bfloat16, reset_gate: false";
  bf16NoReset.bf16Compute = true;
  all.push_back(bf16NoReset);
  LayerConfig f32ComputeGru = gru;
  f32ComputeGru.cellExtra = "dtype: float32";
  CaseConfig bf16DtypeStack = whole(
      "bf16_dtype_model_wide_lstm_gru_f32_dense",
      {lstm, f32ComputeGru, head("type: Dense, features: 3, activation: tanh")});
  bf16DtypeStack.dtype = "bfloat16";
  bf16DtypeStack.paramDtype = "bfloat16";
  bf16DtypeStack.bf16Compute = true;
  all.push_back(bf16DtypeStack);
  CaseConfig bf16DtypeWide;
  bf16DtypeWide.name = "bf16_dtype_batch1_lstm_h64";
  bf16DtypeWide.dtype = "bfloat16";
  bf16DtypeWide.paramDtype = "bfloat16";
  bf16DtypeWide.batch = {1};
  bf16DtypeWide.time = 24;
  bf16DtypeWide.features = "64";
  bf16DtypeWide.layers[0].features = 64;
  bf16DtypeWide.bf16Compute = true;
  all.push_back(bf16DtypeWide);
  CaseConfig bf16DtypeBidi;
  bf16DtypeBidi.name = "bf16_dtype_bidirectional_lstm_gru_concat";
  bf16DtypeBidi.layers[0].backwardCell = "GRUCell";
  bf16DtypeBidi.layers[0].cellExtra = "dtype: bfloat16";
  bf16DtypeBidi.bf16Compute = true;
  all.push_back(bf16DtypeBidi);
  CaseConfig bf16DtypeNnx;
  bf16DtypeNnx.name = "bf16_dtype_nnx_gru_time_major_unroll3";
  bf16DtypeNnx.layout = "nnx";
  bf16DtypeNnx.timeMajor = true;
  bf16DtypeNnx.layers[0].cell = "GRUCell";
  bf16DtypeNnx.layers[0].cellExtra = "dtype: bfloat16, param_dtype: bfloat16";
  bf16DtypeNnx.layers[0].unroll = 3;
  bf16DtypeNnx.bf16Compute = true;
  all.push_back(bf16DtypeNnx);
  // The bf16-params GRU in blocks of steps, computing in bf16: its
  // projection per block of steps.
  CaseConfig bf16DtypeBlocks = bf16Batch;
  bf16DtypeBlocks.name = "bf16_dtype_gru_batch8_h64_time_blocks";
  bf16DtypeBlocks.layers[0].cellExtra = "dtype: bfloat16";
  bf16DtypeBlocks.bf16Compute = true;
  all.push_back(bf16DtypeBlocks);
  return all;
}

/// Whether case `index` also runs RAM-lean (--optimize=ram), which reads
/// reversed inputs in place, runs no blocks of steps or length-sorted
/// blocks of rows, and keeps the input projection in each step: every case
/// with a reversed layer, a Bidirectional layer, zero padding, blocks of
/// steps or a head, and one in three of the others (all pass; the sample
/// keeps the suite's time).
bool runsRamLean(const CaseConfig &config, size_t index) {
  bool touched = config.zeroPadded || config.timeBlockBytes != 0;
  for (const LayerConfig &layer : config.layers)
    touched |= layer.reverse || !layer.backwardCell.empty() ||
               !layer.head.empty();
  return touched || index % 3 == 0;
}

std::vector<EquivalenceParam> params() {
  std::vector<EquivalenceParam> all;
  std::vector<CaseConfig> configs = cases();
  for (auto [i, config] : llvm::enumerate(configs))
    for (Emit emit : {Emit::Object, Emit::C}) {
      all.emplace_back(config, emit, Optimize::Default);
      if (runsRamLean(config, i))
        all.emplace_back(config, emit, Optimize::Ram);
    }
  return all;
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, EquivalenceTest, testing::ValuesIn(params()),
    [](const testing::TestParamInfo<EquivalenceParam> &info) {
      return std::get<0>(info.param).name +
             (std::get<1>(info.param) == Emit::C ? "_c" : "_llvm") +
             (std::get<2>(info.param) == Optimize::Ram ? "_ram" : "");
    });

} // namespace
