//===- EmitHeader.cpp - The C header of a model's entry point -------------===//

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/IR/RNNDialect.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace rnnc;
using rnn::abi::EntryPointABI;
using rnn::abi::parameterName;

namespace {

std::string upper(StringRef text) { return llvm::StringRef(text).upper(); }

std::string dims(ArrayRef<int64_t> shape) {
  std::string text;
  for (int64_t dim : shape)
    text += "[" + std::to_string(dim) + "]";
  return text.empty() ? "(scalar)" : text;
}

/// "RNN(LSTMCell)", "Dense(32, elu)", "Pool(last)", ...
std::string layerDescription(const spec::Layer &layer) {
  std::string kind = spec::stringify(layer.kind);
  switch (layer.kind) {
  case spec::Layer::Kind::RNN:
    return kind + "(" + spec::stringify(layer.rnn.cell.kind) + ")";
  case spec::Layer::Kind::Bidirectional:
    return kind + "(" + spec::stringify(layer.forward.cell.kind) + ", " +
           spec::stringify(layer.backward.cell.kind) + ")";
  case spec::Layer::Kind::Dense:
    return kind + "(" + std::to_string(layer.features) +
           (layer.activation
                ? std::string(", ") + spec::stringify(*layer.activation)
                : std::string()) +
           ")";
  case spec::Layer::Kind::Pool:
    return kind + "(" + spec::stringify(layer.poolFn) +
           (layer.validOnly ? ", valid_only" : "") + ")";
  case spec::Layer::Kind::Activation:
    return kind + "(" + spec::stringify(*layer.activation) + ")";
  case spec::Layer::Kind::Embed:
  case spec::Layer::Kind::LayerNorm:
  case spec::Layer::Kind::Dropout:
    return kind;
  }
  return kind;
}


/// The workspace's alignment macros and a declaration helper.
void emitWorkspaceMacros(llvm::raw_ostream &os, StringRef prefix,
                         int64_t alignment) {
  std::string align = (prefix + "WORKSPACE_ALIGNAS").str();
  StringRef array = rnn::abi::WorkspaceABI::cArrayType;
  os << "/* The least alignment the model checks the workspace for (the\n"
     << " * alignment of " << array << "; below it the model returns "
     << prefix << "ERROR_ARGUMENT).\n"
     << " * " << prefix << "WORKSPACE_ALIGNMENT is the one that is fastest. */\n"
     << "#define " << prefix << "WORKSPACE_MIN_ALIGNMENT "
     << rnn::abi::WorkspaceABI::minAlignment << "\n"
     << "/* Declares a workspace array `name` of at least " << prefix
     << "WORKSPACE_SIZE bytes,\n"
     << " * aligned to " << prefix
     << "WORKSPACE_ALIGNMENT where the compiler can say so (C11,\n"
     << " * C++11, GNU C) and to " << array << " otherwise:  static " << prefix
     << "WORKSPACE(workspace); */\n"
     << "#if defined(__cplusplus) && __cplusplus >= 201103L\n"
     << "#define " << align << " alignas(" << alignment << ")\n"
     << "#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n"
     << "#define " << align << " _Alignas(" << alignment << ")\n"
     << "#elif defined(__GNUC__)\n"
     << "#define " << align << " __attribute__((aligned(" << alignment
     << ")))\n"
     << "#else\n"
     << "#define " << align << "\n"
     << "#endif\n"
     << "#define " << prefix << "WORKSPACE(name) "
     << rnn::abi::WorkspaceABI::cArrayDeclaration(
            align, (prefix + "WORKSPACE_SIZE").str())
     << "\n\n";
}

/// " *   initial_carry_k and carry_k\n" for each initial carry whose final
/// carry exists: the parameters that may alias (see
/// --rnn-create-entry-point, which leaves them without noalias).
std::string inPlaceCarries(const EntryPointABI &entry) {
  std::string lines;
  for (const rnn::abi::Parameter &param : entry.parameters)
    if (param.role == rnn::abi::Role::InitialCarry && param.mayAlias)
      lines += " *   " + param.cName + " and " +
               entry.parameters[*param.mayAlias].cName + "\n";
  return lines;
}

} // namespace

void rnnc::addFootprintToHeader(std::string &header, const spec::Model &model,
                                const Footprint &footprint) {
  std::string prefix = rnn::abi::macroPrefix(model.name);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Footprint besides the workspace and the caller's buffers: the\n"
     << " * stack of " << model.name << "_run's own frame (librnnrt's and "
     << "libm's frames\n * below it not counted), and flash (code + weights). */\n";
  auto define = [&](StringRef name, int64_t bytes, StringRef unknown) {
    if (bytes >= 0)
      os << "#define " << prefix << name << " " << bytes << "\n";
    else
      os << "/* " << prefix << name << ": " << unknown << " */\n";
  };
  // The C, LLVM IR or assembly: the compiler that builds it decides.
  StringRef byCompiler =
      "decided by the compiler that builds the code (-fstack-usage, size)";
  define("STACK_SIZE", footprint.stackBytes, byCompiler);
  define("CODE_SIZE", footprint.codeBytes, byCompiler);
  define("WEIGHTS_SIZE", footprint.weightsBytes, "");
  if (footprint.codeBytes >= 0)
    os << "#define " << prefix << "FLASH_SIZE (" << prefix << "CODE_SIZE + "
       << prefix << "WEIGHTS_SIZE)\n";
  // After the line of WORKSPACE_ALIGNMENT, which every header has.
  std::string anchor = "#define " + prefix + "WORKSPACE_ALIGNMENT ";
  size_t at = header.find(anchor);
  assert(at != std::string::npos && "not a header of emitHeader");
  header.insert(header.find('\n', at) + 1, text);
}

/// What WORKSPACE_SIZE is sized for with run-time sizes: the maxima.
static std::string workspaceRemark(const spec::Model &model,
                                   const std::string &prefix) {
  if (!model.hasRuntimeBatch())
    return model.runtimeTime
               ? " /* for " + prefix + "TIME steps, enough for any count */"
               : "";
  std::string maxima;
  for (size_t d = 0; d < model.batch.size(); ++d)
    if (model.isRuntimeBatch(d))
      maxima += (maxima.empty() ? "" : ", ") + prefix + "BATCH_DIM_" +
                std::to_string(d) + " rows";
  if (model.runtimeTime)
    maxima += ", " + prefix + "TIME steps";
  return " /* for the maxima (" + maxima + "), enough for any actual sizes */";
}

llvm::Error rnnc::emitHeader(ModuleOp module, const spec::Model &model,
                             llvm::raw_ostream &os, int64_t blockRows) {
  std::string entryName = rnn::abi::entryPointName(model.name);
  auto entryFunc = module.lookupSymbol<func::FuncOp>(entryName);
  if (!entryFunc)
    return llvm::createStringError("no entry point '" + entryName + "'");
  FailureOr<EntryPointABI> entry = rnn::abi::describeEntryPoint(entryFunc);
  if (failed(entry))
    return llvm::createStringError("no C ABI for '" + entryName + "'");
  std::optional<int64_t> workspaceSize = entry->workspace.size;
  if (!workspaceSize)
    return llvm::createStringError("no workspace size on the module");

  // The prose names y's element type, which the float arrays share; the
  // parameter list below names each array's ("unless noted").
  const rnn::abi::Parameter *output = entry->find(rnn::abi::kOutputKey);
  std::optional<StringRef> arrayType =
      output ? rnn::abi::elementTypeName(output->elementType) : std::nullopt;
  if (!arrayType)
    return llvm::createStringError(llvm::Twine("no element type name for '") +
                                   rnn::abi::kOutputKey + "'");

  std::string prefix = rnn::abi::macroPrefix(model.name);
  std::string guard = prefix + "H";
  os << "/* " << model.name << ".h: generated by rnnc; do not edit.\n"
     << " *\n"
     << " * Link the object file:  cc app.c " << model.name
     << ".o -Lbuild/lib -lrnnrt -lm\n"
     << " * or the C output:       cc -std=c99 app.c " << model.name
     << ".c -Iruntime/include -Lbuild/lib -lrnnrt -lm\n"
     << " *                        (or compile the .c files of runtime/src)\n"
     << " * Arrays are dense, row-major, " << *arrayType
     << " unless noted. The model\n"
     << " * keeps no state between calls and never allocates: pass a\n"
     << " * workspace of " << prefix << "WORKSPACE_SIZE bytes aligned to "
     << prefix << "WORKSPACE_ALIGNMENT\n"
     << " * (" << prefix << "WORKSPACE declares one).\n"
     << " * The buffers of a call must not overlap, except that each\n"
     << " * initial_carry_<key> may be the very buffer of carry_<key> (the\n"
     << " * state updated in place; listed at " << entryName << "). Calls\n"
     << " * on different buffers may run concurrently. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  os << "/* Sizes. */\n";
  os << "#define " << prefix << "NUM_BATCH_DIMS " << model.batch.size() << "\n";
  for (auto [i, dim] : llvm::enumerate(model.batch))
    os << "#define " << prefix << "BATCH_DIM_" << i << " " << dim
       << (model.isRuntimeBatch(i) ? " /* the most rows; the actual count is "
                                     "the batch_" + std::to_string(i) +
                                         " argument */"
                                   : std::string())
       << "\n";
  for (size_t i = 0; i < model.batch.size(); ++i)
    os << "#define " << prefix << "RUNTIME_BATCH_DIM_" << i << " "
       << (model.isRuntimeBatch(i) ? 1 : 0) << "\n";
  os << "#define " << prefix << "TIME " << model.time
     << (model.runtimeTime ? " /* the most steps; the actual count is the "
                             "steps argument */"
                           : "")
     << "\n";
  os << "#define " << prefix << "RUNTIME_TIME " << (model.runtimeTime ? 1 : 0)
     << "\n";
  os << "#define " << prefix << "TIME_MAJOR " << (model.timeMajor ? 1 : 0)
     << "\n";
  spec::Shape inputFeatures = spec::layerInputFeatures(model, 0);
  os << "#define " << prefix << "INPUT_FEATURES "
     << spec::numElements(inputFeatures) << "\n";
  // ConvLSTM inputs have spatial dims before their channels.
  if (inputFeatures.size() > 1)
    for (auto [i, dim] : llvm::enumerate(inputFeatures))
      os << "#define " << prefix << "INPUT_FEATURE_DIM_" << i << " " << dim
         << "\n";
  os << "#define " << prefix << "OUTPUT_FEATURES "
     << spec::numElements(
            spec::layerOutputFeatures(model, model.layers.size() - 1))
     << "\n";
  spec::Shape outputShape = spec::modelOutputShape(model);
  os << "#define " << prefix << "OUTPUT_SIZE " << spec::numElements(outputShape)
     << " /* y" << dims(outputShape) << " */\n";
  os << "#define " << prefix << "WORKSPACE_SIZE " << *workspaceSize
     << workspaceRemark(model, prefix)
     << "\n";
  int64_t alignment = entry->workspace.alignment;
  os << "#define " << prefix << "WORKSPACE_ALIGNMENT " << alignment << "\n";
  emitWorkspaceMacros(os, prefix, alignment);

  os << "/* Layers: output shape, params, FLOPs per call.\n";
  for (auto [k, layer] : llvm::enumerate(model.layers))
    os << " *   " << layer.name << ": " << layerDescription(layer) << " -> "
       << spec::formatShape(spec::layerOutputShape(model, k)) << ", "
       << spec::numLayerParams(model, k) << " params, "
       << spec::layerFlops(model, k) << " FLOPs\n";
  os << " */\n\n";

  os << "/* Carry shapes of every layer (batch dims first), in Flax's order\n"
     << " * (c, h) or (h). */\n";
  for (auto [k, layer] : llvm::enumerate(model.layers)) {
    for (auto [dir, rnn] : llvm::enumerate(spec::layerDirections(layer))) {
      std::string key = parameterName(layer.name);
      if (layer.isBidirectional())
        key += dir == 0 ? "_FORWARD" : "_BACKWARD";
      std::vector<spec::Shape> shapes = spec::layerCarryShapes(model, k, dir);
      StringRef names[] = {"C", "H"};
      for (auto [i, shape] : llvm::enumerate(shapes)) {
        StringRef part = shapes.size() == 2 ? names[i] : "H";
        os << "#define " << prefix << "CARRY_" << upper(key) << "_" << part
           << "_SIZE " << spec::numElements(shape) << " /* " << dims(shape)
           << " */\n";
      }
    }
  }

  os << "\n/* Status codes of " << entryName << ". */\n"
     << "#define " << prefix << "OK " << rnn::abi::kStatusOK << "\n";
  // Only a model with sequence lengths checks their values.
  if (model.seqLengths)
    os << "#define " << prefix << "ERROR_SEQ_LENGTH "
       << rnn::abi::kStatusSeqLength << " /* a sequence length < 0 or > "
       << prefix << "TIME */\n";
  os << "#define " << prefix << "ERROR_ARGUMENT " << rnn::abi::kStatusArgument
     << " /* a pointer below is NULL (one to 0 elements may be), or the "
        "workspace is not aligned to "
     << prefix << "WORKSPACE_MIN_ALIGNMENT"
     << (model.runtimeTime ? ", or *steps < 0 or > " + prefix + "TIME"
                           : std::string())
     << (model.hasRuntimeBatch()
             ? ", or a *batch_<d> < 1 or > " + prefix + "BATCH_DIM_<d>"
             : std::string())
     << " */\n";
  if (model.takesTokens())
    os << "#define " << prefix << "ERROR_TOKEN " << rnn::abi::kStatusToken
       << " /* a token id in x < 0 or >= " << model.layers.front().numEmbeddings
       << " */\n";
  os << "\n";

  if (llvm::Error error = emitInfoDeclarations(module, model, os))
    return error;
  if (llvm::Error error = emitStreamDeclarations(*entry, model, os))
    return error;

  os << "/* Runs the model. Inputs, then outputs, then the workspace:\n";
  SmallVector<std::string> params;
  for (const rnn::abi::Parameter &param : entry->parameters) {
    if (param.isWorkspace()) {
      params.push_back(*param.cPointerType() + param.cName);
      continue;
    }
    if (!param.isNamed())
      return llvm::createStringError("entry point argument without a name");
    std::optional<StringRef> element =
        rnn::abi::cElementTypeName(param.elementType);
    if (!element)
      return llvm::createStringError("no C type for '" + param.key + "'");
    std::string shape = dims(param.shape);
    if (param.timeAxis || param.batchAxis) {
      // Dense for the actual sizes: a run-time dim is *steps or *batch_<d>.
      SmallVector<std::string> parts;
      for (auto [d, dim] : llvm::enumerate(param.shape)) {
        std::string part = "[" + std::to_string(dim) + "]";
        int64_t batchDim = param.batchAxis ? int64_t(d) - *param.batchAxis : -1;
        if (param.timeAxis && int64_t(d) == *param.timeAxis)
          part = "[*steps]";
        else if (batchDim >= 0 && model.isRuntimeBatch(batchDim))
          part = "[*" + std::string(rnn::kBatchArgPrefix) +
                 std::to_string(batchDim) + "]";
        parts.push_back(part);
      }
      shape = llvm::join(parts, "");
    }
    if (param.batchSizeOf) {
      int64_t d = *param.batchSizeOf;
      shape += " (the rows of batch dim " + std::to_string(d) + " to run, 1.." +
               std::to_string(model.batch[d]) + ")";
    }
    if (param.role == rnn::abi::Role::Steps)
      shape += " (the number of steps to run, 0.." +
               std::to_string(model.time) + ")";
    os << " *   " << param.cName << " " << *element << shape
       << (param.isOutput() ? " (written)" : "") << "\n";
    params.push_back(*param.cPointerType() + param.cName);
  }
  if (model.runtimeTime)
    os << " * The arrays with a [*steps] dim are dense for that many steps\n"
       << " * (allocated for this call's count, not for " << prefix
       << "TIME); only\n"
       << " * steps 0..*steps-1 run, so the work follows the count.\n";
  if (model.hasRuntimeBatch())
    os << " * The arrays with a [*batch_<d>] dim are dense for that many\n"
       << " * rows (allocated for this call, not for " << prefix
       << "BATCH_DIM_<d>); only\n"
       << " * those rows run, so the work follows the batch.\n";
  if (std::string pairs = inPlaceCarries(*entry); !pairs.empty())
    os << " * May be the same buffer (in-place state update; any other\n"
       << " * overlap is undefined):\n" << pairs;
  os << " * Returns " << prefix << "OK, or an error status without writing "
     << "anything. */\n";
  os << "int32_t " << entryName << "(";
  for (auto [i, param] : llvm::enumerate(params))
    os << (i ? ",\n    " : "") << param;
  os << ");\n\n";
  if (llvm::Error error =
          emitParallelDeclarations(module, *entry, model, blockRows, os))
    return error;
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return llvm::Error::success();
}
