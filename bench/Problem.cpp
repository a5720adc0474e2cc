//===- Problem.cpp - One benchmark configuration and its data -------------===//

#include "Problem.h"

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Array.h"
#include "rnn/Weights/Binding.h"
#include "rnn/Weights/Npz.h"
#include "rnn/Weights/Quantize.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

using namespace rnnc;
using namespace rnnc::bench;

const char *bench::precisionName(Precision precision) {
  switch (precision) {
  case Precision::F32:
    return "f32";
  case Precision::BF16Params:
    return "bf16p";
  case Precision::BF16:
    return "bf16";
  case Precision::Int8Weights:
    return "int8w";
  case Precision::Int8Dynamic:
    return "int8d";
  }
  return "?";
}

bool bench::peersReduced(Precision precision) {
  return precision == Precision::BF16 || precision == Precision::Int8Weights ||
         precision == Precision::Int8Dynamic;
}

std::string Config::id() const {
  std::ostringstream os;
  os << (cell == CellType::LSTM ? "lstm" : "gru");
  if (precision != Precision::F32)
    os << "_" << precisionName(precision);
  if (threads != 1)
    os << "_" << threads << "t";
  if (bidirectional)
    os << "_bi";
  if (varlen)
    os << (zerosPadded ? "_varlen_zeros" : "_varlen");
  os << "_h" << hidden << "_b" << batch << "_t" << time;
  return os.str();
}

std::string Config::kind() const {
  std::string kind = cell == CellType::LSTM ? "lstm" : "gru";
  if (bidirectional)
    kind += " bi";
  if (varlen)
    kind += zerosPadded ? " varlen zeros" : " varlen";
  if (precision != Precision::F32)
    kind += std::string(" ") + precisionName(precision);
  if (threads != 1)
    kind += " " + std::to_string(threads) + "T";
  return kind;
}

Config Config::withTime(int64_t steps) const {
  Config copy = *this;
  copy.time = steps;
  return copy;
}

int64_t Problem::recurrentWeightBytes() const {
  int64_t bytes = 4;
  switch (config.precision) {
  case Precision::F32:
    break;
  case Precision::BF16Params:
  case Precision::BF16:
    bytes = 2;
    break;
  case Precision::Int8Weights:
  case Precision::Int8Dynamic:
    bytes = 1;
    break;
  }
  return config.gates() * config.hidden * config.hidden * bytes;
}

int64_t Problem::length(int64_t b) const {
  return lengths.empty() ? config.time : lengths[b];
}

double Problem::flops() const {
  double steps = 0;
  for (int64_t b = 0; b < config.batch; ++b)
    steps += static_cast<double>(length(b));
  double perStep =
      2.0 * config.gates() * config.hidden * (config.hidden + config.hidden);
  return perStep * steps * config.directions();
}

Problem Problem::truncated(int64_t steps) const {
  Problem cut;
  cut.config = config.withTime(steps);
  cut.params = params;
  int64_t h = config.hidden;
  cut.x.resize(config.batch * steps * h);
  for (int64_t b = 0; b < config.batch; ++b)
    std::copy_n(x.begin() + b * config.time * h, steps * h,
                cut.x.begin() + b * steps * h);
  for (int32_t length : lengths) {
    int64_t scaled =
        (static_cast<int64_t>(length) * steps + config.time / 2) / config.time;
    cut.lengths.push_back(
        static_cast<int32_t>(std::clamp<int64_t>(scaled, 1, steps)));
  }
  return cut;
}

std::string bench::cellPrefix(const Config &config, int direction) {
  if (!config.bidirectional)
    return "rnn/cell";
  return direction == 0 ? "rnn/forward_rnn/cell" : "rnn/backward_rnn/cell";
}

std::string bench::specYaml(const Config &config, const std::string &name) {
  std::string cell = std::string("{type: ") +
                     (config.cell == CellType::LSTM ? "LSTMCell" : "GRUCell") +
                     ", features: " + std::to_string(config.hidden) + "}";
  std::ostringstream os;
  os << "rnnc: 1\nname: " << name << "\n";
  if (config.zerosPadded)
    os << "padded_outputs: zeros\n";
  switch (config.precision) {
  case Precision::F32:
    break;
  case Precision::BF16Params:
    os << "param_dtype: bfloat16\n";
    break;
  case Precision::BF16:
    os << "param_dtype: bfloat16\ndtype: bfloat16\n";
    break;
  case Precision::Int8Weights:
    os << "quantize: {weights: int8}\n";
    break;
  case Precision::Int8Dynamic:
    os << "quantize: {weights: int8, activations: dynamic}\n";
    break;
  }
  // Two cores: _run_parallel splits the rows of a static batch (each task
  // an entry point for its part) and, at batch 1, the gate columns (a hook
  // call a step), so 2T runs the 1T build.
  os << "input:\n  batch: [" << config.batch << "]\n  time: " << config.time
     << "\n  features: " << config.hidden
     << "\n  seq_lengths: " << (config.varlen ? "true" : "false")
     << "\nlayers:\n  - name: rnn\n";
  if (config.bidirectional)
    os << "    type: Bidirectional\n    forward_rnn: {cell: " << cell
       << "}\n    backward_rnn: {cell: " << cell << "}\n    merge_fn: concat\n";
  else
    os << "    type: RNN\n    cell: " << cell << "\n";
  os << "    return_carry: true\n";
  return os.str();
}

std::vector<weights::Array> bench::inputArrays(const Problem &problem) {
  const Config &config = problem.config;
  std::vector<weights::Array> arrays;
  arrays.push_back(weights::makeArray(
      "x", {config.batch, config.time, config.hidden}, problem.x));
  if (config.varlen)
    arrays.push_back(
        weights::makeArray("seq_lengths", {config.batch}, problem.lengths));
  return arrays;
}

std::string bench::writeProblem(const Problem &problem,
                                const std::string &dir) {
  const Config &config = problem.config;
  std::string id = config.id();
  auto path = [&](llvm::StringRef suffix) {
    llvm::SmallString<128> file(dir);
    llvm::sys::path::append(file, id + suffix.str());
    return file.str().str();
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return "cannot create '" + dir + "': " + ec.message();
  std::error_code ec;
  llvm::raw_fd_ostream yaml(path(".yaml"), ec);
  if (ec)
    return "cannot write '" + path(".yaml") + "': " + ec.message();
  yaml << specYaml(config, id);
  std::vector<weights::Array> params;
  for (const auto &[key, tensor] : problem.params)
    params.push_back(weights::makeArray(key, tensor.shape, tensor.data));
  std::vector<weights::Array> inputs = inputArrays(problem);
  for (auto [suffix, arrays] :
       {std::pair{".npz", &params}, std::pair{"_in.npz", &inputs}})
    if (llvm::Error err = weights::writeNpz(path(suffix), *arrays))
      return llvm::toString(std::move(err));
  return "";
}

Problem bench::makeProblem(const Config &config, uint32_t seed) {
  Problem problem;
  problem.config = config;
  std::mt19937 rng(seed);
  float scale = 1.0f / std::sqrt(static_cast<float>(config.hidden));
  std::uniform_real_distribution<float> weight(-scale, scale);
  spec::Cell cell;
  cell.kind = config.cell == CellType::LSTM ? spec::CellKind::LSTM
                                            : spec::CellKind::GRU;
  cell.features = config.hidden;
  for (int d = 0; d < config.directions(); ++d) {
    auto specs = expectedCellParams(cell, spec::ParamsLayout::Linen,
                                    cellPrefix(config, d), config.hidden);
    for (const ParamSpec &param : *specs) {
      Tensor tensor;
      tensor.shape = param.shape;
      tensor.data.resize(tensor.numElements());
      for (float &v : tensor.data)
        v = weight(rng);
      // What a bf16 checkpoint holds: rnnc then stores these exactly, and
      // the peers compute with the same values in f32.
      bool bf16 = config.precision == Precision::BF16Params ||
                  config.precision == Precision::BF16;
      bool int8 = config.precision == Precision::Int8Weights ||
                  config.precision == Precision::Int8Dynamic;
      if (bf16)
        for (float &v : tensor.data)
          v = weights::roundToBFloat16(v);
      // int8 weights: every implementation computes with the kernels rnnc
      // stores, dequantized (rnnc quantizes them again, to the same int8
      // values, and its scales move by an ulp at most).
      if (int8 && tensor.shape.size() == 2)
        tensor = dequantize(*quantizeInt8PerColumn(tensor));
      problem.params[param.key] = std::move(tensor);
    }
  }
  std::uniform_real_distribution<float> input(-1.0f, 1.0f);
  problem.x.resize(config.batch * config.time * config.hidden);
  for (float &v : problem.x)
    v = input(rng);
  if (config.varlen) {
    std::uniform_int_distribution<int32_t> length(
        static_cast<int32_t>(config.time / 2),
        static_cast<int32_t>(config.time));
    for (int64_t b = 0; b < config.batch; ++b)
      problem.lengths.push_back(b == 0 ? static_cast<int32_t>(config.time)
                                       : length(rng));
  }
  return problem;
}

Check bench::checkOutputs(const Problem &problem, const Outputs &want,
                          const Outputs &got, Positions positions, double atol,
                          double rtol, double maxFirstStepDiffering) {
  Check check;
  check.ran = true;
  check.ok = true;
  check.maxFirstStepDiffering = maxFirstStepDiffering;
  // `describe` names the element; it is only called for the first mismatch.
  auto compare = [&](float g, float w, auto describe) {
    double error = std::abs(static_cast<double>(g) - w);
    check.maxAbs = std::max(check.maxAbs, error);
    ++check.compared;
    check.differing += g != w;
    if ((error <= atol + rtol * std::abs(w)) || !check.ok)
      return;
    check.ok = false;
    std::ostringstream os;
    os << describe() << ": got " << g << ", expected " << w;
    check.detail = os.str();
  };
  const Config &config = problem.config;
  if (got.y.size() != want.y.size()) {
    check.ok = false;
    check.detail = "y has " + std::to_string(got.y.size()) +
                   " elements, expected " + std::to_string(want.y.size());
    return check;
  }
  int64_t width = config.directions() * config.hidden;
  std::vector<int64_t> differingAt(config.time, 0), comparedAt(config.time, 0);
  for (int64_t b = 0; b < config.batch; ++b) {
    int64_t valid =
        positions == Positions::Valid ? problem.length(b) : config.time;
    for (int64_t t = 0; t < valid; ++t)
      for (int64_t k = 0; k < width; ++k) {
        int64_t at = (b * config.time + t) * width + k;
        compare(got.y[at], want.y[at], [&] {
          return "y[" + std::to_string(b) + ", " + std::to_string(t) + ", " +
                 std::to_string(k) + "]";
        });
        differingAt[t] += got.y[at] != want.y[at];
        ++comparedAt[t];
      }
  }
  auto first = llvm::find_if(differingAt, [](int64_t n) { return n > 0; });
  if (first != differingAt.end()) {
    check.firstStep = first - differingAt.begin();
    check.firstStepDiffering = *first;
    // One value may always differ: a dot rounded the other way moves one.
    double allowed = std::max(
        1.0, maxFirstStepDiffering * comparedAt[check.firstStep]);
    if (check.ok && *first > allowed) {
      check.ok = false;
      std::ostringstream os;
      os << "step " << check.firstStep << ", the first that differs: "
         << *first << " of " << comparedAt[check.firstStep]
         << " values, more than " << maxFirstStepDiffering * 100 << "%";
      check.detail = os.str();
    }
  }
  std::vector<std::string> missing;
  for (const auto &[name, values] : want.carries) {
    auto it = got.carries.find(name);
    if (it == got.carries.end()) {
      missing.push_back(name);
      continue;
    }
    if (it->second.size() != values.size()) {
      check.ok = false;
      check.detail = "carry " + name + " has " +
                     std::to_string(it->second.size()) +
                     " elements, expected " + std::to_string(values.size());
      return check;
    }
    for (size_t e = 0; e < values.size(); ++e)
      compare(it->second[e], values[e], [&, &name = name] {
        return "carry " + name + "[" + std::to_string(e) + "]";
      });
  }
  if (check.ok && !missing.empty()) {
    check.detail = "not compared:";
    for (const std::string &name : missing)
      check.detail += " " + name;
  }
  return check;
}
