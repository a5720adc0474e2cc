//===- Ours.cpp - rnnc's generated code and the reference -----------------===//

#include "Ours.h"
#include "Timing.h"

#include "rnn/Reference/Reference.h"
#include "rnn/Spec/Parser.h"
#include "rnn/Weights/Binding.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace rnnc;
using namespace rnnc::bench;

namespace {

constexpr const char *kModelName = "bench_model";

/// "carry/rnn/forward/h" -> "forward/h".
std::string carryKey(const std::string &name) {
  const std::string prefix = "carry/rnn/";
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

} // namespace

std::unique_ptr<RnncModel> RnncModel::compile(const Problem &problem,
                                              std::string &error) {
  double start = now();
  std::string yaml = specYaml(problem.config, kModelName);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(yaml, problem.config.id() + ".yaml"),
      llvm::SMLoc());
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
    error += diag.str() + "\n";
    return mlir::success();
  });

  std::unique_ptr<RnncModel> result(new RnncModel());
  std::optional<spec::Model> model = spec::parseModel(sourceMgr, 1, ctx);
  if (!model)
    return nullptr;
  auto params = bindParams(*model, problem.params, "random", sourceMgr, ctx);
  if (!params)
    return nullptr;
  result->model = LoadedModel{*model, *params};
  CompileOptions options;
  options.emit = Emit::Object;
  mlir::FailureOr<Compiled> compiled =
      compileModel(result->model, sourceMgr, options, ctx);
  if (mlir::failed(compiled))
    return nullptr;
  int threads = problem.config.threads;
  result->library = ModelLibrary::load(*compiled, options.emit, kModelName,
                                       mlir::UnknownLoc::get(&ctx), threads);
  if (!result->library)
    return nullptr;

  result->parameters = compiled->parameters;
  result->floats.resize(result->parameters.size());
  for (auto [i, param] : llvm::enumerate(result->parameters)) {
    int64_t size = 1;
    for (int64_t dim : param.shape)
      size *= dim;
    if (param.batchSizeOf) { // a run-time batch
      result->batchSizes.push_back(static_cast<int32_t>(problem.config.batch));
      result->pointers.push_back(&result->batchSizes.back());
      continue;
    }
    if (param.isLengths) {
      result->lengths = problem.lengths;
      if (static_cast<int64_t>(result->lengths.size()) != size) {
        error = "the model takes " + std::to_string(size) +
                " lengths, the problem has " +
                std::to_string(result->lengths.size());
        return nullptr;
      }
      result->pointers.push_back(result->lengths.data());
      continue;
    }
    std::vector<float> &buffer = result->floats[i];
    if (param.name == "x")
      buffer = problem.x;
    else
      buffer.assign(size, 0.0f);
    if (static_cast<int64_t>(buffer.size()) != size) {
      error = "parameter '" + param.name + "' has " + std::to_string(size) +
              " elements, the problem gives " + std::to_string(buffer.size());
      return nullptr;
    }
    result->pointers.push_back(buffer.data());
  }
  result->compileTime = now() - start;
  return result;
}

int32_t RnncModel::run() { return library->run(pointers); }

Outputs RnncModel::outputs() const {
  Outputs outputs;
  for (auto [i, param] : llvm::enumerate(parameters)) {
    if (!param.isOutput)
      continue;
    if (param.name == "y")
      outputs.y = floats[i];
    else
      outputs.carries[carryKey(param.name)] = floats[i];
  }
  return outputs;
}

bool rnnc::bench::runReference(const RnncModel &rnnc, const Problem &problem,
                               Outputs &outputs, std::string &error) {
  const Config &config = problem.config;
  reference::Inputs inputs;
  inputs.x.shape = {config.batch, config.time, config.hidden};
  inputs.x.data.assign(problem.x.begin(), problem.x.end());
  if (config.varlen)
    inputs.seqLengths.emplace(problem.lengths.begin(), problem.lengths.end());
  llvm::Expected<reference::Outputs> result =
      reference::run(rnnc.loaded().model, rnnc.loaded().params, inputs);
  if (!result) {
    error = llvm::toString(result.takeError());
    return false;
  }
  outputs.y.assign(result->y.data.begin(), result->y.data.end());
  outputs.carries.clear();
  for (const auto &[name, array] : result->carries)
    outputs.carries[carryKey(name)].assign(array.data.begin(),
                                           array.data.end());
  return true;
}
