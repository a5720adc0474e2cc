//===- Summary.cpp - The model summary `rnnc check` prints ----------------===//

#include "rnn/Spec/ModelShapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace rnnc::spec;

namespace {

/// A boolean cell option as spec text when it differs from Flax's default
/// (a default-constructed Cell's): "residual", "reset_gate=false".
void addFlag(std::vector<std::string> &options, llvm::StringRef key,
             bool Cell::*field, const Cell &cell) {
  if (cell.*field == Cell().*field)
    return;
  options.push_back(cell.*field ? key.str() : key.str() + "=false");
}

/// Non-default cell attributes, as spec text, in the order of the kind's
/// keys.
std::vector<std::string> cellOptions(const Cell &cell) {
  std::vector<std::string> options;
  for (llvm::StringRef key : describe(cell.kind).keys) {
    if (key == "gate_fn" && cell.gateFn != Activation::Sigmoid)
      options.push_back(std::string("gate_fn=") + stringify(cell.gateFn));
    else if (key == "activation_fn" && cell.activationFn != Activation::Tanh)
      options.push_back(std::string("activation_fn=") +
                        stringify(cell.activationFn));
    else if (key == "kernel_size")
      options.push_back("kernel_size=" + formatShape(cell.kernelSize));
    else if (key == "reset_gate")
      addFlag(options, key, &Cell::resetGate, cell);
    else if (key == "residual")
      addFlag(options, key, &Cell::residual, cell);
    else if (key == "use_bias")
      addFlag(options, key, &Cell::useBias, cell);
  }
  if (cell.paramDtype != ElementType::Float32)
    options.push_back(std::string("param_dtype=") +
                      stringify(cell.paramDtype));
  if (cell.dtype != ElementType::Float32)
    options.push_back(std::string("dtype=") + stringify(cell.dtype));
  if (cell.int8Weights)
    options.push_back("weights=int8");
  if (cell.int8Activations)
    options.push_back("activations=dynamic");
  return options;
}

/// "c,h [8, 64]": the carry's parts and their (common) shape.
std::string carryText(const Cell &cell, const std::vector<Shape> &carry) {
  if (carry.empty())
    return "";
  return llvm::join(describe(cell.kind).carries, ",") + " " +
         formatShape(carry.front());
}

/// Prints rows as left-aligned columns (right-aligned where `numeric`),
/// separated by two spaces, without trailing blanks.
void printTable(llvm::raw_ostream &os,
                const std::vector<std::vector<std::string>> &rows,
                const std::vector<bool> &numeric) {
  std::vector<size_t> width(numeric.size(), 0);
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  for (const auto &row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string pad(width[c] - row[c].size(), ' ');
      line += c ? "  " : "";
      line += numeric[c] ? pad + row[c] : row[c] + pad;
    }
    os << llvm::StringRef(line).rtrim() << "\n";
  }
}

/// The spec options of a non-recurrent layer, as spec text.
std::vector<std::string> layerOptions(const Layer &layer) {
  std::vector<std::string> options;
  auto number = [](double v) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::format("%g", v);
    return text;
  };
  switch (layer.kind) {
  case Layer::Kind::Dense:
    options.push_back("features=" + std::to_string(layer.features));
    if (layer.activation)
      options.push_back(std::string("activation=") +
                        stringify(*layer.activation));
    if (!layer.useBias)
      options.push_back("use_bias=false");
    break;
  case Layer::Kind::Pool:
    options.push_back(std::string("fn=") + stringify(layer.poolFn));
    if (layer.validOnly)
      options.push_back("valid_only");
    break;
  case Layer::Kind::Embed:
    options.push_back("num_embeddings=" + std::to_string(layer.numEmbeddings));
    options.push_back("features=" + std::to_string(layer.features));
    break;
  case Layer::Kind::LayerNorm:
    options.push_back("epsilon=" + number(layer.epsilon));
    if (!layer.useScale)
      options.push_back("use_scale=false");
    if (!layer.useBias)
      options.push_back("use_bias=false");
    break;
  case Layer::Kind::Activation:
    if (layer.activation)
      options.push_back(std::string("fn=") + stringify(*layer.activation));
    break;
  case Layer::Kind::Dropout:
    options.push_back("rate=" + number(layer.rate) + " (identity)");
    break;
  default:
    break;
  }
  return options;
}

} // namespace

void rnnc::spec::printModelSummary(llvm::raw_ostream &os, const Model &model) {
  os << "model '" << model.name << "': " << stringify(model.activationType())
     << ", params_layout " << stringify(model.paramsLayout)
     << ", padded_outputs " << stringify(model.paddedOutputs) << "\n";

  Shape inputShape = model.batch;
  inputShape.insert(model.timeMajor ? inputShape.begin() : inputShape.end(),
                    model.time);
  inputShape.insert(inputShape.end(), model.features.begin(),
                    model.features.end());
  os << "input: " << formatShape(inputShape);
  if (model.takesTokens())
    os << " int32 token ids";
  os << " (" << (model.timeMajor ? "time-major" : "batch-major") << ", batch "
     << formatShape(model.batch) << ", time " << model.time;
  if (!model.takesTokens())
    os << ", features " << formatShape(model.features);
  os << ")";
  if (model.seqLengths)
    os << ", seq_lengths " << formatShape(model.batch) << " int32";
  os << "\n";
  if (!model.layers.empty())
    os << "output: " << formatShape(modelOutputShape(model)) << "\n";
  os << "\n";

  std::vector<std::vector<std::string>> rows = {
      {"#", "layer", "type", "direction", "cell", "input", "output", "carry",
       "params", "FLOPs", "params path", "options"}};
  std::vector<bool> numeric = {true,  false, false, false, false, false,
                               false, false, true,  true,  false, false};
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const Layer &layer = model.layers[k];
    Shape input = layerInputFeatures(model, k);
    std::string inputText =
        formatShape(k == 0 ? inputShape : layerOutputShape(model, k - 1));
    std::string outputText = formatShape(layerOutputShape(model, k));
    std::string type = stringify(layer.kind);
    if (!layer.isRecurrent()) {
      rows.push_back({std::to_string(k), layer.name, type, "", "", inputText,
                      outputText, "",
                      std::to_string(numLayerParams(model, k)),
                      std::to_string(layerFlops(model, k)),
                      layer.hasParams() ? layer.params : "",
                      llvm::join(layerOptions(layer), ", ")});
      continue;
    }
    auto dirs = layerDirections(layer);
    for (size_t d = 0; d < dirs.size(); ++d) {
      const RNN &rnn = *dirs[d];
      std::string direction = layer.isBidirectional()
                                  ? (d ? "backward" : "forward")
                              : !rnn.reverse  ? "forward"
                              : rnn.keepOrder ? "reverse, keep_order"
                                              : "reverse";
      std::vector<std::string> options;
      if (rnn.unroll != 1)
        options.push_back("unroll=" + std::to_string(rnn.unroll));
      if (d == 0 && layer.returnCarry)
        options.push_back("return_carry");
      if (d == 0 && layer.initialCarry == InitialCarry::Input)
        options.push_back("initial_carry=input");
      llvm::append_range(options, cellOptions(rnn.cell));

      if (layer.isBidirectional())
        type = std::string(stringify(layer.kind)) + "(" +
               stringify(layer.merge) + ")";
      bool first = d == 0;
      int64_t flops = numElements(
          {cellFlopsPerStep(model, rnn.cell, input), model.time});
      rows.push_back(
          {first ? std::to_string(k) : "", first ? layer.name : "",
           first ? type : "", direction,
           std::string(stringify(rnn.cell.kind)) + "(" +
               std::to_string(rnn.cell.features) + ")",
           first ? inputText : "", first ? outputText : "",
           carryText(rnn.cell, carryShapes(model, rnn.cell, input)),
           std::to_string(numCellParams(rnn.cell, input, model.paramsLayout)),
           std::to_string(flops), rnn.cell.params, llvm::join(options, ", ")});
    }
  }
  printTable(os, rows, numeric);

  os << "\ntotal: " << model.layers.size()
     << (model.layers.size() == 1 ? " layer, " : " layers, ")
     << numParams(model) << " params, " << flopsPerStep(model)
     << " FLOPs per step, " << modelFlops(model)
     << " FLOPs per sequence\n";
}
