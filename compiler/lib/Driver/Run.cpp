//===- Run.cpp - Compile, load and run a model on npz inputs --------------===//
//
// `rnnc run` goes through exactly the code a user ships: the object file
// from the same pipeline as `rnnc compile`, linked with librnnrt into a
// shared library and called through `<name>_run`.
//
//===----------------------------------------------------------------------===//

#include "rnn/Driver/Driver.h"
#include "rnn/Driver/ModelLibrary.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Weights/Npz.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

using namespace mlir;
using namespace rnnc;
using weights::Array;
using weights::DType;

namespace {


/// Host-side buffers for every entry point parameter, filled from `inputs`.
struct Buffers {
  std::vector<std::vector<float>> floats;
  std::vector<std::vector<int32_t>> ints;
  std::vector<void *> pointers;
};

LogicalResult fillBuffers(ArrayRef<EntryParameter> parameters,
                          const llvm::StringMap<const Array *> &inputs,
                          Location loc, Buffers &buffers) {
  buffers.floats.resize(parameters.size());
  buffers.ints.resize(parameters.size());
  for (auto [i, param] : llvm::enumerate(parameters)) {
    int64_t size = 1;
    for (int64_t dim : param.shape)
      size *= dim;
    if (param.isOutput) {
      buffers.floats[i].assign(size, 0.0f);
      buffers.pointers.push_back(buffers.floats[i].data());
      continue;
    }
    const Array *array = inputs.lookup(param.name);
    if (!array)
      return emitError(loc) << "the inputs have no array '" << param.name
                            << "' (expected shape " << spec::formatShape(param.shape)
                            << ")";
    if (array->shape != param.shape)
      return emitError(loc) << "input '" << param.name << "' has shape "
                            << spec::formatShape(array->shape) << ", expected "
                            << spec::formatShape(param.shape);
    if (param.isLengths) {
      auto values = weights::toInt64(*array);
      if (!values)
        return emitError(loc) << "input '" << param.name << "': "
                              << llvm::toString(values.takeError());
      // Range checks are the generated code's job; only keep the values
      // representable (anything clamped is out of range all the same).
      for (int64_t value : *values)
        buffers.ints[i].push_back(static_cast<int32_t>(
            std::clamp<int64_t>(value, INT32_MIN, INT32_MAX)));
      buffers.pointers.push_back(buffers.ints[i].data());
      continue;
    }
    auto values = weights::toFloat32(*array);
    if (!values)
      return emitError(loc) << "input '" << param.name << "': "
                            << llvm::toString(values.takeError());
    buffers.floats[i] = std::move(*values);
    buffers.pointers.push_back(buffers.floats[i].data());
  }
  return success();
}

} // namespace

LogicalResult rnnc::runModel(const LoadedModel &loaded,
                             const llvm::SourceMgr &sourceMgr,
                             const RunOptions &options, MLIRContext &ctx) {
  Location loc = FileLineColLoc::get(&ctx, options.inputsPath, 0, 0);
  const spec::Model &model = loaded.model;
  auto inputs = weights::readNpz(options.inputsPath);
  if (!inputs)
    return emitError(loc) << llvm::toString(inputs.takeError());
  llvm::StringMap<const Array *> byName;
  for (const Array &array : *inputs)
    byName[array.name] = &array;

  CompileOptions compileOptions;
  compileOptions.emit =
      options.path == CodegenPath::C ? Emit::C : Emit::Object;
  FailureOr<Compiled> compiled =
      compileModel(loaded, sourceMgr, compileOptions, ctx);
  if (failed(compiled))
    return failure();
  Buffers buffers;
  if (failed(fillBuffers(compiled->parameters, byName, loc, buffers)))
    return failure();
  std::unique_ptr<ModelLibrary> library =
      ModelLibrary::load(*compiled, compileOptions.emit, model.name, loc);
  if (!library)
    return failure();
  int32_t status = library->run(buffers.pointers);
  if (status != 0) {
    InFlightDiagnostic diag = emitError(loc)
                              << model.name << "_run rejected its inputs "
                              << "(status " << status << ")";
    for (auto [i, param] : llvm::enumerate(compiled->parameters))
      if (param.isLengths)
        for (auto [b, value] : llvm::enumerate(buffers.ints[i]))
          if (value < 0 || value > model.time) {
            diag << ": seq_lengths[" << b << "] = " << value
                 << " is outside [0, " << model.time << "]";
            break;
          }
    return diag;
  }

  if (options.repeat > 0) {
    std::vector<double> times;
    for (unsigned i = 0; i < options.repeat; ++i) {
      auto start = std::chrono::steady_clock::now();
      (void)library->run(buffers.pointers);
      auto end = std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double, std::milli>(end - start)
                          .count());
    }
    std::sort(times.begin(), times.end());
    llvm::outs() << llvm::format("%s: median %.4f ms per run over %u runs "
                                 "(min %.4f, max %.4f)\n",
                                 model.name.c_str(), times[times.size() / 2],
                                 options.repeat, times.front(), times.back());
  }

  std::vector<Array> outputs;
  for (auto [i, param] : llvm::enumerate(compiled->parameters)) {
    if (!param.isOutput)
      continue;
    Array array;
    array.name = param.name;
    array.dtype = DType::F32;
    array.shape = param.shape;
    const std::vector<float> &values = buffers.floats[i];
    array.bytes.resize(values.size() * sizeof(float));
    std::memcpy(array.bytes.data(), values.data(), array.bytes.size());
    outputs.push_back(std::move(array));
  }
  if (llvm::Error error = weights::writeNpz(options.outputPath, outputs))
    return emitError(loc) << llvm::toString(std::move(error));
  return success();
}
