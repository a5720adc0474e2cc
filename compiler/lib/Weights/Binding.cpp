//===- Binding.cpp - Checking weights against a model spec ----------------===//

#include "rnn/Weights/Binding.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Weights/Array.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <set>

using namespace rnnc;
using namespace rnnc::spec;
using llvm::StringRef;


std::string rnnc::defaultParamsPath(const Layer &layer, Direction direction) {
  if (!layer.isBidirectional())
    return layer.name + "/cell";
  return layer.name + (direction == Direction::Forward ? "/forward_rnn/cell"
                                                       : "/backward_rnn/cell");
}




namespace {
/// How to build one cell's CellParams: the params it expects (relative to
/// its path) and, for each fused array, the params concatenated along the
/// last axis in gate order. An empty part is a zero block; an empty list is
/// an absent array.
struct Recipe {
  std::vector<ParamSpec> params;
  std::vector<std::string> wi, bi, wh, bh;
};
} // namespace

static std::optional<Recipe> recipeFor(const Cell &cell, ParamsLayout layout,
                                       int64_t in) {
  const int64_t h = cell.features;
  const bool nnx = layout == ParamsLayout::NNX;
  Recipe r;
  auto param = [&](std::string name, std::vector<int64_t> shape) {
    r.params.push_back({name, std::move(shape)});
    return name;
  };
  switch (cell.kind) {
  case CellKind::LSTM:
  case CellKind::OptimizedLSTM:
    if (nnx && cell.kind == CellKind::OptimizedLSTM) {
      r.wi = {param("dense_i/kernel", {in, 4 * h})};
      r.wh = {param("dense_h/kernel", {h, 4 * h})};
      r.bh = {param("dense_h/bias", {4 * h})};
      return r;
    }
    for (StringRef gate : {"ii", nnx ? "if_" : "if", "ig", "io"})
      r.wi.push_back(param((gate + "/kernel").str(), {in, h}));
    for (StringRef gate : {"hi", "hf", "hg", "ho"}) {
      r.wh.push_back(param((gate + "/kernel").str(), {h, h}));
      r.bh.push_back(param((gate + "/bias").str(), {h}));
    }
    return r;
  case CellKind::GRU:
    if (nnx) {
      r.wi = {param("dense_i/kernel", {in, 3 * h})};
      r.bi = {param("dense_i/bias", {3 * h})};
      r.wh = {param("dense_h/kernel", {h, 3 * h})};
      return r;
    }
    for (StringRef gate : {"ir", "iz", "in"}) {
      r.wi.push_back(param((gate + "/kernel").str(), {in, h}));
      r.bi.push_back(param((gate + "/bias").str(), {h}));
    }
    for (StringRef gate : {"hr", "hz", "hn"})
      r.wh.push_back(param((gate + "/kernel").str(), {h, h}));
    r.bh = {"", "", param("hn/bias", {h})};
    return r;
  case CellKind::MGU: {
    if (nnx)
      return std::nullopt;
    std::string ifKernel = param("if/kernel", {in, h});
    std::string ifBias = param("if/bias", {h});
    std::string hfKernel = param("hf/kernel", {h, h});
    std::string hnKernel = param("hn/kernel", {h, h});
    if (cell.resetGate)
      r.bh = {"", param("hn/bias", {h})};
    r.wi = {ifKernel, param("in/kernel", {in, h})};
    r.bi = {ifBias, param("in/bias", {h})};
    r.wh = {hfKernel, hnKernel};
    return r;
  }
  case CellKind::Simple:
    r.wi = {param(nnx ? "dense_i/kernel" : "i/kernel", {in, h})};
    r.bi = {param(nnx ? "dense_i/bias" : "i/bias", {h})};
    r.wh = {param(nnx ? "dense_h/kernel" : "h/kernel", {h, h})};
    return r;
  case CellKind::ConvLSTM: {
    if (nnx)
      return std::nullopt;
    std::vector<int64_t> wiShape = cell.kernelSize, whShape = cell.kernelSize;
    wiShape.insert(wiShape.end(), {in, 4 * h});
    whShape.insert(whShape.end(), {h, 4 * h});
    r.wi = {param("ih/kernel", wiShape)};
    if (cell.useBias)
      r.bi = {param("ih/bias", {4 * h})};
    r.wh = {param("hh/kernel", whShape)};
    if (cell.useBias)
      r.bh = {param("hh/bias", {4 * h})};
    return r;
  }
  }
  return std::nullopt;
}

static std::string joinKey(StringRef prefix, StringRef name) {
  return prefix.empty() ? name.str() : (prefix + "/" + name).str();
}

std::optional<std::vector<ParamSpec>>
rnnc::expectedCellParams(const Cell &cell, ParamsLayout layout,
                         StringRef prefix, int64_t inputFeatures) {
  std::optional<Recipe> recipe = recipeFor(cell, layout, inputFeatures);
  if (!recipe)
    return std::nullopt;
  for (ParamSpec &param : recipe->params)
    param.key = joinKey(prefix, param.key);
  return recipe->params;
}

/// Concatenates `parts` (same shapes; nullptr = zeros) along the last axis.
static Tensor concatLast(llvm::ArrayRef<const Tensor *> parts) {
  const Tensor *like = *llvm::find_if(parts, [](const Tensor *t) { return t; });
  Tensor out;
  out.shape = like->shape;
  int64_t cols = out.shape.empty() ? 1 : out.shape.back();
  int64_t rows = cols ? like->numElements() / cols : 0;
  int64_t width = cols * int64_t(parts.size());
  if (out.shape.empty())
    out.shape.push_back(width);
  else
    out.shape.back() = width;
  out.data.assign(size_t(rows * width), 0.0f);
  for (size_t g = 0; g < parts.size(); ++g) {
    if (!parts[g])
      continue;
    for (int64_t row = 0; row < rows; ++row)
      std::copy_n(parts[g]->data.begin() + row * cols, cols,
                  out.data.begin() + row * width + int64_t(g) * cols);
  }
  return out;
}

namespace {
/// One bindParams() run: collects diagnostics and which keys were used.
class Binder {
public:
  Binder(const Model &model, const ParamTree &tree, StringRef weightsPath,
         const llvm::SourceMgr &sourceMgr, mlir::MLIRContext &ctx)
      : model(model), tree(tree), weightsPath(weightsPath),
        sourceMgr(sourceMgr), ctx(ctx),
        modelLoc(locOf(model.loc,
                       mlir::FileLineColLoc::get(&ctx, weightsPath, 0, 0))) {}

  std::optional<std::vector<LayerParams>> run();

private:
  mlir::Location locOf(llvm::SMLoc loc, mlir::Location fallback) const;
  mlir::InFlightDiagnostic error(mlir::Location loc) {
    failed = true;
    return mlir::emitError(loc);
  }
  std::optional<CellParams> bindCell(const Layer &layer, const RNN &rnn,
                                     Direction direction, int64_t in);
  void reportUnexpected();

  const Model &model;
  const ParamTree &tree;
  StringRef weightsPath;
  const llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext &ctx;
  mlir::Location modelLoc;
  bool failed = false;
  std::set<std::string> used;
  std::vector<std::string> missing;
  /// Each cell's params path and where to report keys under it.
  std::vector<std::pair<std::string, mlir::Location>> owners;
};
} // namespace

mlir::Location Binder::locOf(llvm::SMLoc loc, mlir::Location fallback) const {
  if (!loc.isValid())
    return fallback;
  unsigned id = sourceMgr.FindBufferContainingLoc(loc);
  if (!id)
    return fallback;
  auto [line, col] = sourceMgr.getLineAndColumn(loc, id);
  return mlir::FileLineColLoc::get(
      &ctx, sourceMgr.getMemoryBuffer(id)->getBufferIdentifier(), line, col);
}

std::optional<CellParams> Binder::bindCell(const Layer &layer, const RNN &rnn,
                                           Direction direction, int64_t in) {
  const Cell &cell = rnn.cell;
  mlir::Location loc =
      locOf(cell.loc, locOf(rnn.loc, locOf(layer.loc, modelLoc)));
  StringRef path = cell.params;
  path.consume_front("params/");
  while (path.consume_back("/"))
    ;
  std::string prefix =
      cell.params.empty() ? defaultParamsPath(layer, direction) : path.str();
  owners.emplace_back(prefix, loc);

  std::optional<Recipe> recipe;
  if (cell.features <= 0)
    error(loc) << stringify(cell.kind) << " of layer '" << layer.name
               << "' has features " << cell.features
               << ", expected a positive number";
  else if (in <= 0)
    error(loc) << "layer '" << layer.name << "' reads " << in
               << " input features, expected a positive number";
  else if (cell.kind == CellKind::ConvLSTM &&
           (cell.kernelSize.empty() ||
            llvm::any_of(cell.kernelSize, [](int64_t k) { return k <= 0; })))
    error(loc) << "ConvLSTMCell of layer '" << layer.name
               << "' has kernel_size " << spec::formatShape(cell.kernelSize)
               << ", expected positive sizes";
  else if (!(recipe = recipeFor(cell, model.paramsLayout, in)))
    error(loc) << stringify(cell.kind)
               << " has no params in the nnx layout (nnx provides LSTMCell, "
                  "OptimizedLSTMCell, GRUCell and SimpleCell)";
  if (!recipe) {
    // Keys under this cell are not "unexpected": the cell itself is wrong.
    for (const auto &entry : tree)
      if (prefix.empty() || StringRef(entry.first).starts_with(prefix + "/"))
        used.insert(entry.first);
    return std::nullopt;
  }

  bool ok = true;
  std::map<std::string, const Tensor *> found;
  for (const ParamSpec &param : recipe->params) {
    std::string key = joinKey(prefix, param.key);
    auto it = tree.find(key);
    if (it == tree.end()) {
      error(loc) << "missing param '" << key << "' with shape "
                 << spec::formatShape(param.shape) << " in '" << weightsPath << "'";
      missing.push_back(key);
      ok = false;
      continue;
    }
    used.insert(key);
    const Tensor &tensor = it->second;
    if (tensor.shape != param.shape) {
      error(loc) << "param '" << key << "' in '" << weightsPath
                 << "' has shape " << spec::formatShape(tensor.shape) << ", expected "
                 << spec::formatShape(param.shape);
      ok = false;
    } else if (int64_t(tensor.data.size()) != tensor.numElements()) {
      error(loc) << "param '" << key << "' in '" << weightsPath << "' has "
                 << tensor.data.size() << " values, expected "
                 << tensor.numElements() << " for shape "
                 << spec::formatShape(tensor.shape);
      ok = false;
    }
    found[param.key] = &tensor;
  }
  if (!ok)
    return std::nullopt;

  auto fuse = [&](const std::vector<std::string> &parts) {
    std::vector<const Tensor *> tensors;
    for (const std::string &part : parts)
      tensors.push_back(part.empty() ? nullptr : found.at(part));
    return concatLast(tensors);
  };
  CellParams params;
  params.wi = fuse(recipe->wi);
  params.wh = fuse(recipe->wh);
  if (!recipe->bi.empty())
    params.bi = fuse(recipe->bi);
  if (!recipe->bh.empty())
    params.bh = fuse(recipe->bh);
  return params;
}

void Binder::reportUnexpected() {
  for (const auto &entry : tree) {
    const std::string &key = entry.first;
    if (used.count(key))
      continue;
    // The cell with the longest path that contains the key owns it.
    mlir::Location loc = modelLoc;
    size_t best = 0;
    for (const auto &[prefix, cellLoc] : owners) {
      if ((prefix.empty() || StringRef(key).starts_with(prefix + "/")) &&
          prefix.size() + 1 > best) {
        best = prefix.size() + 1;
        loc = cellLoc;
      }
    }
    mlir::InFlightDiagnostic diag = error(loc);
    diag << "unexpected param '" << key << "' in '" << weightsPath << "'";
    const std::string *closest = nullptr;
    unsigned closestDistance = 0;
    for (const std::string &candidate : missing) {
      unsigned limit = std::max<unsigned>(2, candidate.size() / 3);
      unsigned distance = StringRef(key).edit_distance(candidate, true, limit);
      if (distance <= limit && (!closest || distance < closestDistance)) {
        closest = &candidate;
        closestDistance = distance;
      }
    }
    if (closest)
      diag.attachNote(loc) << "did you mean '" << *closest << "'?";
  }
}

std::optional<std::vector<LayerParams>> Binder::run() {
  std::vector<LayerParams> result;
  for (size_t i = 0; i < model.layers.size(); ++i) {
    const Layer &layer = model.layers[i];
    spec::Shape inShape = spec::layerInputFeatures(model, i);
    int64_t in = inShape.empty() ? 0 : inShape.back();
    if (!layer.isBidirectional()) {
      if (std::optional<CellParams> cell =
              bindCell(layer, layer.rnn, Direction::Forward, in))
        result.push_back(LayerParams{std::move(*cell), std::nullopt});
      continue;
    }
    int64_t forward = layer.forward.cell.features,
            backward = layer.backward.cell.features;
    if (layer.merge != Merge::Concat && forward != backward)
      error(locOf(layer.loc, modelLoc))
          << "merge '" << stringify(layer.merge) << "' of layer '" << layer.name
          << "' needs equal forward and backward features, found " << forward
          << " and " << backward;
    std::optional<CellParams> fwd =
        bindCell(layer, layer.forward, Direction::Forward, in);
    std::optional<CellParams> bwd =
        bindCell(layer, layer.backward, Direction::Backward, in);
    if (fwd && bwd)
      result.push_back(LayerParams{std::move(*fwd), std::move(*bwd)});
  }
  reportUnexpected();
  if (failed)
    return std::nullopt;
  return result;
}

std::optional<std::vector<LayerParams>>
rnnc::bindParams(const Model &model, const ParamTree &tree,
                 StringRef weightsPath, const llvm::SourceMgr &sourceMgr,
                 mlir::MLIRContext &ctx) {
  return Binder(model, tree, weightsPath, sourceMgr, ctx).run();
}
