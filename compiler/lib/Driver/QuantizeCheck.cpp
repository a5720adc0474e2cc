//===- QuantizeCheck.cpp - rnnc check --quantize --------------------------===//
//
// How far int8 weights move a model's outputs: the float model and its
// `quantize: {weights: int8}` version are both compiled and run (the code
// a user ships, as `rnnc run` does) on the same sample, and every output's
// deviation is printed.
//
//===----------------------------------------------------------------------===//

#include "rnn/Driver/Driver.h"
#include "rnn/Pipelines/Pipelines.h"
#include "rnn/Weights/Array.h"
#include "rnn/Weights/Npz.h"
#include "rnn/Weights/Quantize.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace rnnc;

/// Runs `loaded` on `inputsPath` through `path`; its outputs, read back.
static FailureOr<std::vector<weights::Array>>
runToArrays(const LoadedModel &loaded, const llvm::SourceMgr &sourceMgr,
            StringRef inputsPath, StringRef outputPath, CodegenPath path,
            MLIRContext &ctx) {
  RunOptions options;
  options.path = path;
  options.inputsPath = inputsPath.str();
  options.outputPath = outputPath.str();
  if (failed(runModel(loaded, sourceMgr, options, ctx)))
    return failure();
  auto arrays = weights::readNpz(outputPath);
  if (!arrays)
    return emitError(UnknownLoc::get(&ctx))
           << llvm::toString(arrays.takeError());
  return std::move(*arrays);
}

LogicalResult rnnc::printQuantizationDeviation(const LoadedModel &loaded,
                                               const llvm::SourceMgr &sourceMgr,
                                               StringRef inputsPath,
                                               bool dynamic,
                                               llvm::raw_ostream &os,
                                               MLIRContext &ctx) {
  Location loc = FileLineColLoc::get(&ctx, inputsPath, 0, 0);
  if (loaded.model.int8Weights)
    return emitError(loc) << "--quantize compares the float model with its "
                             "int8 version; remove 'quantize' from the spec";
  LoadedModel quantized = loaded;
  if (std::optional<std::string> layer =
          spec::applyInt8Weights(quantized.model))
    return emitError(loc) << "--quantize int8: layer '" << *layer
                          << "' has bfloat16 params";
  if (dynamic)
    spec::applyInt8Activations(quantized.model);
  if (llvm::Error error = quantizeWeights(quantized.model, quantized.params))
    return emitError(loc) << llvm::toString(std::move(error));

  llvm::SmallString<128> dir;
  if (std::error_code code =
          llvm::sys::fs::createUniqueDirectory("rnnc-quantize", dir))
    return emitError(loc) << "cannot create a temporary directory: "
                          << code.message();
  llvm::SmallString<128> floatPath(dir), int8Path(dir);
  llvm::sys::path::append(floatPath, "float.npz");
  llvm::sys::path::append(int8Path, "int8.npz");
  // Dynamic int8 activations need an x86 int8 dot product on the LLVM
  // path; a host without one runs the C path's portable int32 loops, the
  // same quantized maths.
  CodegenPath int8Run = CodegenPath::LLVM;
  if (dynamic) {
    llvm::Expected<CodegenOptions> host =
        selectCodegenOptions({}, CodegenPath::LLVM, Optimize::Default);
    if (!host || host->int8Dot.empty())
      int8Run = CodegenPath::C;
    if (!host)
      llvm::consumeError(host.takeError());
  }
  auto floatOut = runToArrays(loaded, sourceMgr, inputsPath, floatPath,
                              CodegenPath::LLVM, ctx);
  auto int8Out = succeeded(floatOut)
                     ? runToArrays(quantized, sourceMgr, inputsPath, int8Path,
                                   int8Run, ctx)
                     : FailureOr<std::vector<weights::Array>>();
  llvm::sys::fs::remove(floatPath);
  llvm::sys::fs::remove(int8Path);
  llvm::sys::fs::remove(dir);
  if (failed(floatOut) || failed(int8Out))
    return failure();

  os << (dynamic ? "int8 weights (per output channel) and dynamic int8 "
                   "activations (per row)"
                 : "int8 weights (per output channel)")
     << " against float32, on '" << inputsPath << "':\n";
  size_t width = 6;
  for (const weights::Array &array : *floatOut)
    width = std::max(width, array.name.size());
  os << "  " << llvm::left_justify("output", width)
     << "  max |deviation|  mean |deviation|  max |float|\n";
  for (const weights::Array &reference : *floatOut) {
    auto match = llvm::find_if(*int8Out, [&](const weights::Array &array) {
      return array.name == reference.name;
    });
    auto want = weights::toFloat32(reference);
    auto got = match != int8Out->end() ? weights::toFloat32(*match)
                                       : llvm::Expected<std::vector<float>>(
                                             llvm::createStringError(
                                                 "missing"));
    if (!want || !got || want->size() != got->size()) {
      llvm::consumeError(want.takeError());
      llvm::consumeError(got.takeError());
      return emitError(loc) << "output '" << reference.name
                            << "' differs in shape between the two models";
    }
    double max = 0, sum = 0, scale = 0;
    for (size_t i = 0; i < want->size(); ++i) {
      double deviation = std::fabs(double((*got)[i]) - double((*want)[i]));
      max = std::max(max, deviation);
      sum += deviation;
      scale = std::max(scale, std::fabs(double((*want)[i])));
    }
    double mean = want->empty() ? 0 : sum / double(want->size());
    os << "  " << llvm::left_justify(reference.name, width) << "  "
       << llvm::format("%15.3e  %16.3e  %11.3e", max, mean, scale) << "\n";
  }
  return success();
}
