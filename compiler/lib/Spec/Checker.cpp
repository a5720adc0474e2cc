//===- Checker.cpp - Checks that span several keys or layers --------------===//
//
// Runs after the schema pass, on whatever parts of the Model were read
// cleanly (ModelInfo says which), so one mistake is reported once.
//
//===----------------------------------------------------------------------===//

#include "SpecParser.h"

#include "rnn/Spec/ModelShapes.h"

#include "llvm/ADT/StringMap.h"

using namespace rnnc::spec;
using namespace rnnc::spec::detail;
using llvm::SMLoc;
using llvm::Twine;

namespace {

void checkUniqueNames(const Model &model, const ModelInfo &info,
                      SpecDiagnostics &diags, std::vector<bool> &duplicate) {
  llvm::StringMap<size_t> first;
  for (size_t k = 0; k < model.layers.size(); ++k) {
    auto [it, inserted] = first.try_emplace(model.layers[k].name, k);
    if (inserted)
      continue;
    duplicate[k] = duplicate[it->second] = true;
    diags.error(info.layers[k].nameLoc,
                "duplicate layer name '" + model.layers[k].name + "'",
                {Note{info.layers[it->second].nameLoc, "first defined here"}});
  }
}

void checkNNXCells(const Model &model, const ModelInfo &info,
                   SpecDiagnostics &diags) {
  if (model.paramsLayout != ParamsLayout::NNX)
    return;
  for (size_t k = 0; k < model.layers.size(); ++k) {
    auto dirs = layerDirections(model.layers[k]);
    for (size_t d = 0; d < dirs.size(); ++d) {
      const CellInfo &cell = info.layers[k].cells[d];
      CellKind kind = dirs[d]->cell.kind;
      if (!cell.valid || describe(kind).params(ParamsLayout::NNX))
        continue;
      diags.error(cell.typeLoc,
                  Twine(stringify(kind)) +
                      " is not available with params_layout nnx (flax.nnx "
                      "has " +
                      cellKindsIn(ParamsLayout::NNX) + ")");
    }
  }
}

/// Checks that `cell` can read features `input`, which come from `source`
/// ("'input.features'" or "layer 'enc'"); false if it cannot.
bool checkCellInput(const Cell &cell, const CellInfo &cellInfo,
                    const Shape &input, const std::string &source,
                    SpecDiagnostics &diags) {
  if (!describe(cell.kind).convolutional) {
    if (input.size() == 1)
      return true;
    diags.error(cellInfo.typeLoc, Twine(stringify(cell.kind)) +
                                      " needs scalar input features, found " +
                                      formatShape(input) + " from " + source);
    return false;
  }
  size_t rank = cell.kernelSize.size();
  if (input.size() == rank + 1)
    return true;
  diags.error(cellInfo.kernelSizeLoc,
              Twine(stringify(cell.kind)) + " with a kernel_size of rank " +
                  Twine(rank) + " needs input features of rank " +
                  Twine(rank + 1) + " ([spatial..., channels]), found " +
                  formatShape(input) + " from " + source);
  return false;
}

/// What determines the shapes of a cell's params: its kind and the arrays
/// Flax stores for it (named as in linen; nnx's differ in names only, or
/// lack the cell, which checkNNXCells reports).
struct ParamShape {
  CellKind kind;
  std::vector<std::pair<llvm::StringRef, Shape>> arrays;

  bool operator==(const ParamShape &o) const {
    return kind == o.kind && arrays == o.arrays;
  }
};

ParamShape paramShape(const Cell &cell, const Shape &input) {
  ParamShape shape{cell.kind, {}};
  std::optional<std::vector<StoredParam>> stored =
      storedParams(cell, ParamsLayout::Linen, input.empty() ? 0 : input.back());
  for (const StoredParam &param : *stored)
    shape.arrays.push_back({param.param->name, param.shape});
  return shape;
}

/// `time: {max: N}` runs the recurrence for the actual steps only, and a
/// stream (`stream: true`) one chunk at a time, so both take the layers
/// that read each step once, in order: not the ones that need the whole
/// sequence (a reversed scan starts at its end, a Pool reduces all of it),
/// nor per-row lengths on top of the run-time length.
void checkRuntimeTime(const Model &model, const ModelInfo &info,
                      SpecDiagnostics &diags) {
  if (!model.runtimeTime)
    return;
  std::string cannot = model.stream
                           ? "cannot be streamed ('input.stream: true')"
                           : "cannot run with a run-time 'input.time' "
                             "({max: N})";
  if (model.seqLengths)
    diags.error(info.seqLengthsLoc,
                "'input.seq_lengths' " + cannot +
                    ": the 'steps' argument is every row's length");
  for (auto [layer, layerInfo] : llvm::zip(model.layers, info.layers)) {
    std::string self =
        "layer '" + layer.name + "' (" + stringify(layer.kind) + ")";
    if (layer.isBidirectional())
      diags.error(layerInfo.typeLoc,
                  self + " needs the whole sequence (its backward direction "
                         "starts at the last step), so it " + cannot);
    else if (layer.kind == Layer::Kind::RNN && layer.rnn.reverse)
      diags.error(layerInfo.typeLoc,
                  self + " has 'reverse: true', which needs the whole "
                         "sequence, so it " + cannot);
    else if (layer.kind == Layer::Kind::Pool)
      diags.error(layerInfo.typeLoc,
                  self + " reduces the whole sequence, so it " + cannot);
  }
}

/// A run-time batch (`input.batch` entries `{max: N}`) copies the caller's
/// dense buffers into maximum-shape ones; the inputs that are checked or
/// kept across calls in the caller's own layout are not supported with it.
void checkRuntimeBatch(const Model &model, const ModelInfo &info,
                       SpecDiagnostics &diags) {
  if (!model.hasRuntimeBatch())
    return;
  const char *self = "a run-time batch size ('{max: N}' in 'input.batch')";
  if (model.stream)
    diags.error(info.runtimeBatchLoc,
                std::string(self) + " cannot be streamed ('input.stream: "
                                    "true'): the state is laid out for one "
                                    "batch size");
  if (model.seqLengths)
    diags.error(info.seqLengthsLoc,
                std::string("'input.seq_lengths' is not supported with ") +
                    self);
  if (model.takesTokens())
    diags.error(info.runtimeBatchLoc,
                std::string(self) + " is not supported with token ids "
                                    "(a first 'Embed' layer)");
}

} // namespace

/// Whether a bf16-compute cell may use `fn`: rnnc knows the bf16 rounding
/// points of sigmoid and tanh, and relu, hard_tanh and identity are exact on
/// bf16 values; any other activation is a chain of ops each rounded in bf16.
static bool hasBF16Semantics(Activation fn) {
  return fn == Activation::Sigmoid || fn == Activation::Tanh ||
         fn == Activation::Relu || fn == Activation::HardTanh ||
         fn == Activation::Identity;
}

/// Gives every cell without its own `param_dtype` or `dtype` the model's,
/// and rejects what rnnc does not store or compute, at the key that asked
/// (the cell's, or the model's, then naming the cell's key to set).
void rnnc::spec::detail::applyParamDtypes(Model &model, const ModelInfo &info,
                                          SpecDiagnostics &diags) {
  for (size_t k = 0; k < model.layers.size() && k < info.layers.size(); ++k) {
    Layer &layer = model.layers[k];
    llvm::SmallVector<RNN *, 2> dirs;
    if (layer.isBidirectional())
      dirs = {&layer.forward, &layer.backward};
    else if (layer.kind == Layer::Kind::RNN)
      dirs = {&layer.rnn};
    for (size_t d = 0; d < dirs.size(); ++d) {
      const CellInfo &cellInfo = info.layers[k].cells[d];
      Cell &cell = dirs[d]->cell;
      if (!cellInfo.paramDtypeExplicit)
        cell.paramDtype = model.paramDtype;
      if (!cellInfo.dtypeExplicit)
        cell.dtype = model.dtype;
      if (!cellInfo.valid)
        continue;
      auto at = [&](bool explicitKey, llvm::SMLoc cellLoc, llvm::SMLoc modelLoc,
                    const std::string &message, const char *fix) {
        diags.error(explicitKey ? cellLoc : modelLoc,
                    message + (explicitKey ? std::string()
                                           : std::string(" on its cell ('") +
                                                 fix + "')"));
      };
      std::string where = " (layer '" + layer.name + "')";
      const CellKindInfo &kind = describe(cell.kind);
      if (cell.paramDtype == ElementType::BFloat16 && !kind.lowPrecision)
        at(cellInfo.paramDtypeExplicit, cellInfo.paramDtypeLoc,
           info.paramDtypeLoc,
           "param_dtype 'bfloat16' is not supported yet for " +
               kind.name.str() + where + "; use float32",
           "param_dtype: float32");
      if (cell.dtype != ElementType::BFloat16)
        continue;
      auto dtypeError = [&](const std::string &message) {
        at(cellInfo.dtypeExplicit, cellInfo.dtypeLoc, info.dtypeLoc,
           message, "dtype: float32");
      };
      if (!kind.lowPrecision) {
        dtypeError("dtype 'bfloat16' is not supported yet for " +
                   kind.name.str() + where + "; use float32");
        continue;
      }
      for (auto [key, fn] :
           {std::pair{"gate_fn", cell.gateFn},
            std::pair{"activation_fn", cell.activationFn}}) {
        if (!kind.takes(key))
          continue;
        if (!hasBF16Semantics(fn))
          dtypeError(std::string("dtype 'bfloat16' needs ") +
                     (std::string(key) == "gate_fn" ? "a " : "an ") + key +
                     " of sigmoid, tanh, relu, hard_tanh or identity, but "
                     "the cell" + where + " has '" + stringify(fn) +
                     "'; use float32");
      }
      // Without the carry added back, h' is all bf16 products.
      if (kind.takes("residual") && !cell.residual &&
          cell.paramDtype == ElementType::Float32)
        dtypeError("dtype 'bfloat16' with param_dtype 'float32' on a " +
                   kind.name.str() + where +
                   " gives a bfloat16 h' for a float32 carry, which Flax's "
                   "own scan rejects; use param_dtype 'bfloat16', "
                   "'residual: true' or dtype float32");
    }
  }
}

void rnnc::spec::detail::checkModel(const Model &model, const ModelInfo &info,
                                    SpecDiagnostics &diags) {
  std::vector<bool> duplicate(model.layers.size(), false);
  checkUniqueNames(model, info, diags, duplicate);
  checkNNXCells(model, info, diags);
  checkRuntimeTime(model, info, diags);
  checkRuntimeBatch(model, info, diags);

  bool tokens = model.takesTokens() && !info.layers.empty() &&
                info.layers.front().typed;
  if (info.inputSeen && !info.featuresSeen && !tokens)
    diags.error(info.inputLoc, "missing key 'features' in 'input'");
  if (info.featuresSeen && tokens)
    diags.error(info.featuresLoc,
                "'input.features' must be omitted when the first layer is an "
                "Embed: x is then int32 token ids of shape (*batch, T)");

  bool inputOk = tokens ? !info.featuresSeen : info.featuresValid;
  if (inputOk && info.batchValid && info.timeValid &&
      numElements({numElements(model.batch), model.time,
                   numElements(model.features)}) == kSaturated)
    diags.error(info.featuresLoc, "the input is too large: its element count "
                                  "overflows 64-bit integers");

  std::optional<Shape> input;
  if (inputOk)
    input = model.features;
  std::string source = "'input.features'";
  struct Use {
    ParamShape shape;
    std::string description; ///< "LSTMCell(8) reading [3]"
    SMLoc loc;
  };
  llvm::StringMap<Use> paramUses;

  std::optional<size_t> pool, recurrent; // the last Pool and recurrent layer
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const Layer &layer = model.layers[k];
    const LayerInfo &layerInfo = info.layers[k];
    // Checks of the layer order, which need only the types.
    bool orderOk = true;
    if (layerInfo.typed) {
      std::string self = "layer '" + layer.name + "' (" +
                         stringify(layer.kind) + ")";
      if (layer.kind == Layer::Kind::Embed && k != 0) {
        diags.error(layerInfo.typeLoc,
                    "Embed layer '" + layer.name +
                        "' must be the first layer: it reads the model's "
                        "int32 token ids");
        orderOk = false;
      }
      if ((layer.isRecurrent() || layer.kind == Layer::Kind::Pool) && pool) {
        const Layer &p = model.layers[*pool];
        diags.error(layerInfo.typeLoc,
                    self + " needs a time axis, but Pool layer '" + p.name +
                        "' (line " +
                        Twine(diags.lineOf(info.layers[*pool].typeLoc)) +
                        ") removed it");
        orderOk = false;
      }
      if (layer.kind == Layer::Kind::Pool && layerInfo.valid) {
        bool needsLengths = layer.validOnly || layer.poolFn == PoolFn::LastValid;
        if (layer.validOnly && !model.seqLengths)
          diags.error(layerInfo.validOnlyLoc,
                      "'valid_only: true' needs 'input.seq_lengths: true' "
                      "(it pools each row's valid steps)");
        if (layer.poolFn == PoolFn::LastValid && !model.seqLengths)
          diags.error(layerInfo.fnLoc,
                      "Pool fn 'last_valid' needs 'input.seq_lengths: true' "
                      "(it picks step L-1 of each row)");
        if (needsLengths && !model.seqLengths)
          orderOk = false;
        if (layer.validOnly && (layer.poolFn == PoolFn::LastValid ||
                                layer.poolFn == PoolFn::FinalCarry))
          diags.warning(layerInfo.validOnlyLoc,
                        Twine("'valid_only' has no effect with fn '") +
                            stringify(layer.poolFn) + "'");
        if (layer.poolFn == PoolFn::FinalCarry && !recurrent) {
          diags.error(layerInfo.fnLoc,
                      "Pool fn 'final_carry' needs a recurrent layer (RNN or "
                      "Bidirectional) before it, found none");
          orderOk = false;
        }
      }
      if (layer.kind == Layer::Kind::Pool && !pool)
        pool = k;
      if (layer.isRecurrent())
        recurrent = k;
    }
    if (!layerInfo.valid || !input || !orderOk) {
      input.reset(); // unknown from here on
      continue;
    }
    auto dirs = layerDirections(layer);
    bool ok = true;
    for (size_t d = 0; d < dirs.size(); ++d)
      ok &= checkCellInput(dirs[d]->cell, layerInfo.cells[d], *input, source,
                           diags);
    if (!ok) {
      input.reset();
      continue;
    }

    // Cells that share a params path must agree on every param shape.
    for (size_t d = 0; d < dirs.size(); ++d) {
      const CellInfo &cellInfo = layerInfo.cells[d];
      const Cell &cell = dirs[d]->cell;
      if (duplicate[k] && !cellInfo.paramsExplicit)
        continue; // the duplicate name is the real mistake
      ParamShape shape = paramShape(cell, *input);
      std::string description = std::string(stringify(cell.kind)) + "(" +
                                std::to_string(cell.features) + ") reading " +
                                formatShape(*input);
      auto [it, inserted] = paramUses.try_emplace(
          cell.params, Use{shape, description, cellInfo.paramsLoc});
      if (!inserted && !(it->second.shape == shape))
        diags.error(cellInfo.paramsLoc,
                    "cells sharing params '" + cell.params +
                        "' must have the same type and sizes, found " +
                        description + " and " + it->second.description +
                        " (line " + Twine(diags.lineOf(it->second.loc)) + ")");
    }

    Shape output = layerOutputFeatures(model, k);
    if (layer.isBidirectional() && layer.merge != Merge::Concat) {
      Shape forward = cellOutputFeatures(layer.forward.cell, *input);
      Shape backward = cellOutputFeatures(layer.backward.cell, *input);
      if (forward != backward)
        diags.error(layerInfo.mergeLoc,
                    Twine("merge_fn '") + stringify(layer.merge) +
                        "' needs equal features in both directions, found " +
                        formatShape(forward) + " and " + formatShape(backward));
    }

    // Every count the later stages compute must fit in 64 bits.
    bool tooLarge = numLayerParams(model, k) == kSaturated ||
                    layerFlopsPerStep(model, k) == kSaturated ||
                    layerFlops(model, k) == kSaturated ||
                    numElements({numElements(model.batch), model.time,
                                 numElements(output)}) == kSaturated;
    for (size_t d = 0; d < dirs.size(); ++d)
      for (const Shape &carry : layerCarryShapes(model, k, d))
        tooLarge |= numElements(carry) == kSaturated;
    if (tooLarge)
      diags.error(layer.loc, "layer '" + layer.name +
                                 "' is too large: its sizes overflow 64-bit "
                                 "integers");

    input = output;
    source = "layer '" + layer.name + "'";
  }
}
