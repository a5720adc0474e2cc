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
#include "rnn/Target/TargetInfo.h"
#include "rnn/Weights/Array.h"
#include "rnn/Weights/Npz.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <climits>

using namespace mlir;
using namespace rnnc;
using weights::Array;
using weights::DType;

namespace {

/// One array `rnnc run` reads from --inputs.
struct ModelInput {
  enum Kind { Float, Tokens, Lengths };
  std::string name;
  std::vector<int64_t> shape;
  Kind kind = Float;
};

/// Every array the model takes, as MLIRGen declares its entry point: x,
/// seq_lengths, then each initial carry.
std::vector<ModelInput> modelInputs(const spec::Model &model) {
  std::vector<ModelInput> inputs;
  ModelInput x{"x", model.batch, model.takesTokens() ? ModelInput::Tokens
                                                      : ModelInput::Float};
  x.shape.insert(model.timeMajor ? x.shape.begin() : x.shape.end(),
                 model.time);
  x.shape.insert(x.shape.end(), model.features.begin(), model.features.end());
  inputs.push_back(x);
  if (model.seqLengths)
    inputs.push_back({"seq_lengths", model.batch, ModelInput::Lengths});
  for (auto [k, layer] : llvm::enumerate(model.layers)) {
    if (!layer.isRecurrent() || layer.initialCarry != spec::InitialCarry::Input)
      continue;
    for (auto [dir, rnn] : llvm::enumerate(spec::layerDirections(layer))) {
      std::string base = "initial_carry/" + layer.name;
      if (layer.isBidirectional())
        base += dir == 0 ? "/forward" : "/backward";
      std::vector<spec::Shape> shapes = spec::layerCarryShapes(model, k, dir);
      for (auto [shape, name] :
           llvm::zip(shapes, spec::describe(rnn->cell.kind).carries))
        inputs.push_back({base + "/" + name.str(), shape, ModelInput::Float});
    }
  }
  return inputs;
}

/// Why the model does not take the array `name`, and which spec key would
/// make it.
std::string unexpectedInputHint(const spec::Model &model, StringRef name,
                                ArrayRef<ModelInput> expected) {
  if (name == "seq_lengths")
    return "the model takes no sequence lengths; set 'input.seq_lengths: "
           "true' in the spec to pass them";
  if (name == "y" || name.starts_with("carry/"))
    return "'" + name.str() +
           "' is an output of the model (rnnc run writes it to --output)";
  if (name.consume_front("initial_carry/")) {
    StringRef layerName = name.split('/').first;
    for (const spec::Layer &layer : model.layers) {
      if (layer.name != layerName)
        continue;
      if (!layer.isRecurrent())
        return "layer '" + layer.name + "' (" + spec::stringify(layer.kind) +
               ") has no carry";
      if (layer.initialCarry != spec::InitialCarry::Input)
        return "layer '" + layer.name +
               "' starts from zeros; set 'initial_carry: input' on layer '" +
               layer.name + "' to pass its initial carry";
    }
    bool known = llvm::any_of(model.layers, [&](const spec::Layer &layer) {
      return layer.name == layerName;
    });
    if (!known)
      return "the model has no layer '" + layerName.str() + "'";
  }
  std::string list;
  for (const ModelInput &input : expected)
    list += (list.empty() ? "" : ", ") + input.name;
  return "the model takes " + list;
}

/// The time axis of x and y.
int64_t timeAxis(const spec::Model &model) {
  return model.timeMajor ? 0 : int64_t(model.batch.size());
}

/// The axis of x's first batch dim.
int64_t batchAxis(const spec::Model &model) { return model.timeMajor ? 1 : 0; }

/// The sizes one call runs with: x's, within the maxima of the run-time
/// dims (`{max: N}`), the spec's for the static ones.
struct CallSizes {
  int64_t steps = 0;
  std::vector<int64_t> batch;
};

/// Whether x of shape `actual` fits the model whose x has shape `expected`
/// (the maxima): equal but for run-time dims, which may be smaller (time:
/// 0..N, batch: 1..N).
bool withinMaxima(const spec::Model &model, ArrayRef<int64_t> actual,
                  ArrayRef<int64_t> expected) {
  if (actual.size() != expected.size())
    return false;
  for (auto [d, pair] : llvm::enumerate(llvm::zip(actual, expected))) {
    auto [a, e] = pair;
    int64_t batchDim = int64_t(d) - batchAxis(model);
    bool runtimeBatch = batchDim >= 0 && model.isRuntimeBatch(batchDim);
    if (model.runtimeTime && int64_t(d) == timeAxis(model)) {
      if (a > e)
        return false;
    } else if (runtimeBatch ? a < 1 || a > e : a != e) {
      return false;
    }
  }
  return true;
}

/// The sizes of a call on x of shape `x` (which withinMaxima accepted).
CallSizes callSizes(const spec::Model &model, ArrayRef<int64_t> x) {
  CallSizes sizes;
  sizes.steps = x[timeAxis(model)];
  for (size_t d = 0; d < model.batch.size(); ++d)
    sizes.batch.push_back(x[batchAxis(model) + d]);
  return sizes;
}

/// `shape` (the maxima) with the run-time dims of a model array at their
/// actual `sizes`: the time dim at `time`, the batch dims from `batch`.
std::vector<int64_t> actualShape(const spec::Model &model,
                                 std::vector<int64_t> shape,
                                 std::optional<int64_t> time,
                                 std::optional<int64_t> batch,
                                 const CallSizes &sizes) {
  if (time && model.runtimeTime)
    shape[*time] = sizes.steps;
  if (batch)
    for (size_t d = 0; d < model.batch.size(); ++d)
      if (model.isRuntimeBatch(d))
        shape[*batch + d] = sizes.batch[d];
  return shape;
}

/// The shape of `param` for a call with `sizes`.
std::vector<int64_t> callShape(const spec::Model &model,
                               const EntryParameter &param,
                               const CallSizes &sizes) {
  return actualShape(model, param.shape, param.timeAxis, param.batchAxis,
                     sizes);
}

/// Describes the run-time dims of x (for errors and --list-arrays).
std::string runtimeDims(const spec::Model &model) {
  std::vector<std::string> parts;
  if (model.runtimeTime)
    parts.push_back("at most " + std::to_string(model.time) +
                    " steps on axis " + std::to_string(timeAxis(model)) +
                    " ('input.time: {max: " + std::to_string(model.time) +
                    "}')");
  for (size_t d = 0; d < model.batch.size(); ++d)
    if (model.isRuntimeBatch(d))
      parts.push_back("1.." + std::to_string(model.batch[d]) + " rows on axis " +
                      std::to_string(batchAxis(model) + d) +
                      " ('input.batch' entry {max: " +
                      std::to_string(model.batch[d]) + "})");
  std::string result;
  for (auto [i, part] : llvm::enumerate(parts))
    result += (i ? ", " : "") + part;
  return result;
}

/// Checks that `arrays` holds exactly the arrays the model takes, each with
/// its dtype and shape; reports every problem at `loc`.
LogicalResult checkInputs(const spec::Model &model, ArrayRef<Array> arrays,
                          Location loc) {
  std::vector<ModelInput> expected = modelInputs(model);
  bool ok = true;
  // With run-time sizes, x gives them (when it fits the maxima).
  bool runtime = model.runtimeTime || model.hasRuntimeBatch();
  std::optional<CallSizes> sizes;
  for (const Array &array : arrays)
    if (array.name == "x" && !expected.empty() &&
        withinMaxima(model, array.shape, expected.front().shape))
      sizes = callSizes(model, array.shape);
  for (const Array &array : arrays) {
    const ModelInput *input = nullptr;
    for (const ModelInput &candidate : expected)
      if (candidate.name == array.name)
        input = &candidate;
    if (!input) {
      emitError(loc) << "unexpected input '" << array.name
                     << "': " << unexpectedInputHint(model, array.name,
                                                     expected);
      ok = false;
      continue;
    }
    bool dtypeOk = false;
    // The host buffers hold float32 activations, what the entry point takes.
    const char *wanted = spec::stringify(model.activationType());
    switch (input->kind) {
    case ModelInput::Float:
      dtypeOk = array.dtype == DType::F32;
      break;
    case ModelInput::Tokens:
      dtypeOk = array.dtype == DType::I32;
      wanted = "int32 token ids";
      break;
    case ModelInput::Lengths:
      dtypeOk = array.dtype == DType::I32 || array.dtype == DType::I64 ||
                array.dtype == DType::U8;
      wanted = "an integer dtype (int32 or int64)";
      break;
    }
    if (!dtypeOk) {
      emitError(loc) << "input '" << array.name << "' has dtype "
                     << weights::dtypeName(array.dtype) << ", expected "
                     << wanted
                     << (input->kind == ModelInput::Float &&
                                 weights::isFloatingPoint(array.dtype)
                             ? std::string(" (convert it with .astype(np.") +
                                   wanted + "))"
                             : std::string());
      ok = false;
    } else if (runtime && input->name == "x" &&
               withinMaxima(model, array.shape, input->shape)) {
      // Any sizes up to the maxima.
    } else if (runtime && input->name == "x") {
      emitError(loc) << "input 'x' has shape "
                     << spec::formatShape(array.shape) << ", expected "
                     << spec::formatShape(input->shape) << " with "
                     << runtimeDims(model);
      ok = false;
    } else if (runtime && sizes && input->name != "x") {
      std::vector<int64_t> shape = actualShape(
          model, input->shape, std::nullopt, int64_t(0), *sizes);
      if (array.shape != shape) {
        emitError(loc) << "input '" << array.name << "' has shape "
                       << spec::formatShape(array.shape) << ", expected "
                       << spec::formatShape(shape) << " (x's batch)";
        ok = false;
      }
    } else if (array.shape != input->shape) {
      emitError(loc) << "input '" << array.name << "' has shape "
                     << spec::formatShape(array.shape) << ", expected "
                     << spec::formatShape(input->shape);
      ok = false;
    }
  }
  for (const ModelInput &input : expected)
    if (llvm::none_of(arrays,
                      [&](const Array &a) { return a.name == input.name; })) {
      emitError(loc) << "the inputs have no array '" << input.name
                     << "' (expected shape " << spec::formatShape(input.shape)
                     << ")";
      ok = false;
    }
  return success(ok);
}

/// Host-side buffers for every entry point parameter, filled from `inputs`.
struct Buffers {
  std::vector<std::vector<float>> floats;
  std::vector<std::vector<int32_t>> ints;
  std::vector<void *> pointers;
};

LogicalResult fillBuffers(const spec::Model &model,
                          ArrayRef<EntryParameter> parameters,
                          const llvm::StringMap<const Array *> &inputs,
                          const CallSizes &sizes, Location loc,
                          Buffers &buffers) {
  buffers.floats.resize(parameters.size());
  buffers.ints.resize(parameters.size());
  for (auto [i, param] : llvm::enumerate(parameters)) {
    std::vector<int64_t> shape = callShape(model, param, sizes);
    int64_t size = 1;
    for (int64_t dim : shape)
      size *= dim;
    if (param.batchSizeOf) {
      buffers.ints[i].assign(1, static_cast<int32_t>(
                                    sizes.batch[*param.batchSizeOf]));
      buffers.pointers.push_back(buffers.ints[i].data());
      continue;
    }
    if (param.isSteps) {
      buffers.ints[i].assign(1, static_cast<int32_t>(sizes.steps));
      buffers.pointers.push_back(buffers.ints[i].data());
      continue;
    }
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
    if (array->shape != shape)
      return emitError(loc) << "input '" << param.name << "' has shape "
                            << spec::formatShape(array->shape) << ", expected "
                            << spec::formatShape(shape);
    // seq_lengths and, after an Embed, the token ids x are int32.
    if (param.isLengths || (param.name == "x" && model.takesTokens())) {
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

void rnnc::printModelArrays(llvm::raw_ostream &os,
                            const spec::Model &model) {
  struct Row {
    std::string name;
    StringRef dtype;
    spec::Shape shape;
  };
  std::vector<Row> inputs, outputs;
  StringRef activations = spec::stringify(model.activationType());
  for (const ModelInput &input : modelInputs(model))
    inputs.push_back({input.name,
                      input.kind == ModelInput::Float ? activations : "int32",
                      input.shape});
  // As MLIRGen names the results: y, then the final carries of every layer
  // with return_carry, in layer and direction order.
  outputs.push_back({"y", activations, spec::modelOutputShape(model)});
  for (auto [k, layer] : llvm::enumerate(model.layers)) {
    if (!layer.returnCarry)
      continue;
    for (auto [dir, rnn] : llvm::enumerate(spec::layerDirections(layer))) {
      std::string base = "carry/" + layer.name;
      if (layer.isBidirectional())
        base += dir == 0 ? "/forward" : "/backward";
      std::vector<spec::Shape> shapes = spec::layerCarryShapes(model, k, dir);
      for (auto [shape, name] :
           llvm::zip(shapes, spec::describe(rnn->cell.kind).carries))
        outputs.push_back({base + "/" + name.str(), activations, shape});
    }
  }
  size_t width = 0;
  for (const Row &row : llvm::concat<const Row>(inputs, outputs))
    width = std::max(width, row.name.size());
  auto print = [&](StringRef title, ArrayRef<Row> rows) {
    os << title << "\n";
    for (const Row &row : rows)
      os << "  " << llvm::left_justify(row.name, width) << "  "
         << llvm::left_justify(row.dtype, 7) << "  "
         << spec::formatShape(row.shape) << "\n";
  };
  os << "model '" << model.name << "':\n";
  print("inputs (arrays of --inputs):", inputs);
  print("outputs (arrays of --output):", outputs);
  if (model.runtimeTime)
    os << "x and y may have any number of steps up to " << model.time
       << " on axis " << timeAxis(model) << " (input.time: {max: "
       << model.time << "}); y has x's\n";
  for (size_t d = 0; d < model.batch.size(); ++d)
    if (model.isRuntimeBatch(d))
      os << "batch dim " << d << " may have 1.." << model.batch[d]
         << " rows (input.batch entry {max: " << model.batch[d]
         << "}): x's sets it for every other array\n";
}

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
  // Every array must be one the model takes: a forgotten spec flag must
  // not silently drop an input.
  if (failed(checkInputs(model, *inputs, loc)))
    return failure();

  CompileOptions compileOptions;
  compileOptions.emit =
      options.path == CodegenPath::C ? Emit::C : Emit::Object;
  compileOptions.target.cpu = options.cpu;
  // Code for a CPU this machine lacks features of would stop at an illegal
  // instruction.
  if (llvm::Error error = checkHostRuns(compileOptions.target))
    return emitError(FileLineColLoc::get(&ctx, "--cpu", 0, 0))
           << llvm::toString(std::move(error));
  FailureOr<Compiled> compiled =
      compileModel(loaded, sourceMgr, compileOptions, ctx);
  if (failed(compiled))
    return failure();
  // With run-time sizes (`{max: N}`), x says which sizes this call runs.
  CallSizes sizes = callSizes(model, byName.lookup("x")->shape);
  Buffers buffers;
  if (failed(fillBuffers(model, compiled->parameters, byName, sizes, loc,
                         buffers)))
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
    bool explained = false;
    for (auto [i, param] : llvm::enumerate(compiled->parameters)) {
      if (explained)
        break;
      if (param.name == "seq_lengths") {
        for (auto [b, value] : llvm::enumerate(buffers.ints[i]))
          if (value < 0 || value > model.time) {
            diag << ": seq_lengths[" << b << "] = " << value
                 << " is outside [0, " << model.time << "]";
            explained = true;
            break;
          }
      } else if (param.name == "x" && model.takesTokens()) {
        int64_t vocabulary = model.layers.front().numEmbeddings;
        for (auto [j, value] : llvm::enumerate(buffers.ints[i]))
          if (value < 0 || value >= vocabulary) {
            diag << ": x holds token id " << value << " (flat index " << j
                 << "), outside [0, " << vocabulary << ")";
            explained = true;
            break;
          }
      }
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
    outputs.push_back(weights::makeArray(
        param.name, callShape(model, param, sizes), buffers.floats[i]));
  }
  if (llvm::Error error = weights::writeNpz(options.outputPath, outputs))
    return emitError(loc) << llvm::toString(std::move(error));
  return success();
}
