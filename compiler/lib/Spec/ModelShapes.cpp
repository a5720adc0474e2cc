//===- ModelShapes.cpp - Shapes, sizes and costs of a Model ---------------===//

#include "rnn/Spec/ModelShapes.h"

#include "llvm/ADT/StringSet.h"

using namespace rnnc::spec;
using llvm::ArrayRef;

namespace {

int64_t nonNegative(int64_t v) { return v < 0 ? 0 : v; }

int64_t mul(int64_t a, int64_t b) {
  a = nonNegative(a);
  b = nonNegative(b);
  if (a == 0 || b == 0)
    return 0;
  return a > kSaturated / b ? kSaturated : a * b;
}

int64_t add(int64_t a, int64_t b) {
  a = nonNegative(a);
  b = nonNegative(b);
  return a > kSaturated - b ? kSaturated : a + b;
}

int64_t mul(std::initializer_list<int64_t> factors) {
  int64_t n = 1;
  for (int64_t f : factors)
    n = mul(n, f);
  return n;
}

/// Output features of recurrent `layer` when it reads `input`.
Shape recurrentOutput(const Layer &layer, ArrayRef<int64_t> input) {
  if (!layer.isBidirectional())
    return cellOutputFeatures(layer.rnn.cell, input);
  Shape forward = cellOutputFeatures(layer.forward.cell, input);
  if (layer.merge == Merge::Concat) {
    Shape backward = cellOutputFeatures(layer.backward.cell, input);
    forward.back() = add(forward.back(), backward.back());
  }
  return forward;
}

/// Output features of `layer` when it reads `input`; `lastRecurrent` is the
/// output of the closest recurrent layer before it (what final_carry pools).
Shape layerOutput(const Layer &layer, ArrayRef<int64_t> input,
                  ArrayRef<int64_t> lastRecurrent) {
  switch (layer.kind) {
  case Layer::Kind::RNN:
  case Layer::Kind::Bidirectional:
    return recurrentOutput(layer, input);
  case Layer::Kind::Dense: {
    Shape out(input.begin(), input.end());
    if (out.empty())
      out.push_back(layer.features);
    else
      out.back() = layer.features;
    return out;
  }
  case Layer::Kind::Embed:
    return {layer.features};
  case Layer::Kind::Pool:
    if (layer.poolFn == PoolFn::FinalCarry)
      return Shape(lastRecurrent.begin(), lastRecurrent.end());
    return Shape(input.begin(), input.end());
  case Layer::Kind::LayerNorm:
  case Layer::Kind::Activation:
  case Layer::Kind::Dropout:
    return Shape(input.begin(), input.end());
  }
  return Shape(input.begin(), input.end());
}

/// Input features of layer `k` (k == layers.size(): the model's output) and
/// the output of the closest recurrent layer before it.
std::pair<Shape, Shape> walkFeatures(const Model &model, size_t k) {
  Shape input = model.features, lastRecurrent;
  for (size_t i = 0; i < k && i < model.layers.size(); ++i) {
    Shape output = layerOutput(model.layers[i], input, lastRecurrent);
    if (model.layers[i].isRecurrent())
      lastRecurrent = output;
    input = std::move(output);
  }
  return {input, lastRecurrent};
}

} // namespace

int64_t rnnc::spec::numElements(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n = mul(n, d);
  return n;
}

llvm::SmallVector<const RNN *, 2> rnnc::spec::layerDirections(const Layer &l) {
  if (l.isBidirectional())
    return {&l.forward, &l.backward};
  if (l.kind == Layer::Kind::RNN)
    return {&l.rnn};
  return {};
}

Shape rnnc::spec::cellOutputFeatures(const Cell &cell,
                                     ArrayRef<int64_t> input) {
  if (!describe(cell.kind).convolutional || input.empty())
    return {cell.features};
  Shape out(input.begin(), input.end() - 1);
  out.push_back(cell.features);
  return out;
}

std::vector<Shape> rnnc::spec::carryShapes(const Model &model, const Cell &cell,
                                           ArrayRef<int64_t> input) {
  Shape shape = model.batch;
  Shape features = cellOutputFeatures(cell, input);
  shape.insert(shape.end(), features.begin(), features.end());
  return std::vector<Shape>(describe(cell.kind).carries.size(), shape);
}

Shape rnnc::spec::layerInputFeatures(const Model &model, size_t k) {
  return walkFeatures(model, k).first;
}

Shape rnnc::spec::layerOutputFeatures(const Model &model, size_t k) {
  if (k >= model.layers.size())
    return {};
  auto [input, lastRecurrent] = walkFeatures(model, k);
  return layerOutput(model.layers[k], input, lastRecurrent);
}

bool rnnc::spec::layerKeepsTime(const Model &model, size_t k) {
  for (size_t i = 0; i <= k && i < model.layers.size(); ++i)
    if (model.layers[i].kind == Layer::Kind::Pool)
      return false;
  return true;
}

Shape rnnc::spec::layerOutputShape(const Model &model, size_t k) {
  Shape shape = model.batch;
  if (layerKeepsTime(model, k))
    shape.insert(shape.begin() + (model.timeMajor ? 0 : shape.size()),
                 model.time);
  Shape features = layerOutputFeatures(model, k);
  shape.insert(shape.end(), features.begin(), features.end());
  return shape;
}

Shape rnnc::spec::modelOutputShape(const Model &model) {
  return model.layers.empty() ? Shape{}
                              : layerOutputShape(model, model.layers.size() - 1);
}

std::vector<Shape> rnnc::spec::layerCarryShapes(const Model &model, size_t k,
                                                unsigned dir) {
  if (k >= model.layers.size())
    return {};
  auto dirs = layerDirections(model.layers[k]);
  if (dir >= dirs.size())
    return {};
  return carryShapes(model, dirs[dir]->cell, layerInputFeatures(model, k));
}

std::optional<std::vector<StoredParam>>
rnnc::spec::storedParams(const Cell &cell, ParamsLayout layout,
                         int64_t inputFeatures) {
  const CellKindInfo &kind = describe(cell.kind);
  std::optional<ArrayRef<FlaxParam>> params = kind.params(layout);
  if (!params)
    return std::nullopt;
  const int64_t h = cell.features;
  std::vector<StoredParam> stored;
  for (const FlaxParam &param : *params) {
    if (param.presentIf && !(cell.*param.presentIf))
      continue;
    int64_t width = mul(param.gate.empty() ? kind.numGates() : 1, h);
    Shape shape;
    if (param.array == FusedArray::Wi || param.array == FusedArray::Wh) {
      if (kind.convolutional)
        shape = cell.kernelSize;
      shape.push_back(param.array == FusedArray::Wi ? inputFeatures : h);
    }
    shape.push_back(width);
    stored.push_back({&param, std::move(shape)});
  }
  return stored;
}

int64_t rnnc::spec::numCellParams(const Cell &cell, ArrayRef<int64_t> input,
                                  ParamsLayout layout) {
  int64_t in = input.empty() ? 0 : input.back();
  std::optional<std::vector<StoredParam>> stored =
      storedParams(cell, layout, in);
  if (!stored)
    stored = storedParams(cell, ParamsLayout::Linen, in);
  int64_t n = 0;
  for (const StoredParam &param : *stored)
    n = add(n, numElements(param.shape));
  return n;
}

int64_t rnnc::spec::numLayerParams(const Model &model, size_t k) {
  if (k >= model.layers.size())
    return 0;
  const Layer &layer = model.layers[k];
  Shape input = layerInputFeatures(model, k);
  int64_t in = input.empty() ? 0 : input.back();
  switch (layer.kind) {
  case Layer::Kind::Dense:
    return add(mul(in, layer.features), layer.useBias ? layer.features : 0);
  case Layer::Kind::Embed:
    return mul(layer.numEmbeddings, layer.features);
  case Layer::Kind::LayerNorm:
    return mul(in, int64_t(layer.useScale) + int64_t(layer.useBias));
  default:
    break;
  }
  int64_t n = 0;
  for (const RNN *rnn : layerDirections(layer))
    n = add(n, numCellParams(rnn->cell, input, model.paramsLayout));
  return n;
}

int64_t rnnc::spec::numParams(const Model &model) {
  // Cells that share a params path share their weights: count them once.
  llvm::StringSet<> seen;
  int64_t n = 0;
  for (size_t k = 0; k < model.layers.size(); ++k) {
    const Layer &layer = model.layers[k];
    if (!layer.isRecurrent()) {
      n = add(n, numLayerParams(model, k));
      continue;
    }
    Shape input = layerInputFeatures(model, k);
    for (const RNN *rnn : layerDirections(layer))
      if (seen.insert(rnn->cell.params).second)
        n = add(n, numCellParams(rnn->cell, input, model.paramsLayout));
  }
  return n;
}

int64_t rnnc::spec::cellFlopsPerStep(const Model &model, const Cell &cell,
                                     ArrayRef<int64_t> input) {
  int64_t batch = numElements(model.batch);
  int64_t in = input.empty() ? 0 : input.back();
  int64_t h = cell.features;
  const CellKindInfo &kind = describe(cell.kind);
  if (kind.convolutional) {
    int64_t spatial = numElements(input.drop_back(input.empty() ? 0 : 1));
    return mul({2, batch, spatial, numElements(cell.kernelSize), add(in, h),
                kind.numGates(), h});
  }
  return mul({2, batch, kind.numGates(), h, add(in, h)});
}

int64_t rnnc::spec::layerFlopsPerStep(const Model &model, size_t k) {
  if (k >= model.layers.size())
    return 0;
  Shape input = layerInputFeatures(model, k);
  int64_t n = 0;
  for (const RNN *rnn : layerDirections(model.layers[k]))
    n = add(n, cellFlopsPerStep(model, rnn->cell, input));
  return n;
}

int64_t rnnc::spec::flopsPerStep(const Model &model) {
  int64_t n = 0;
  for (size_t k = 0; k < model.layers.size(); ++k)
    n = add(n, layerFlopsPerStep(model, k));
  return n;
}

int64_t rnnc::spec::layerFlops(const Model &model, size_t k) {
  if (k >= model.layers.size())
    return 0;
  const Layer &layer = model.layers[k];
  if (layer.isRecurrent())
    return mul(layerFlopsPerStep(model, k), model.time);
  if (layer.kind != Layer::Kind::Dense)
    return 0;
  // One multiply-add per kernel entry for every row the Dense maps.
  Shape input = layerInputFeatures(model, k);
  int64_t in = input.empty() ? 0 : input.back();
  int64_t rows = mul(numElements(model.batch),
                     numElements(ArrayRef<int64_t>(input).drop_back(
                         input.empty() ? 0 : 1)));
  if (layerKeepsTime(model, k))
    rows = mul(rows, model.time);
  return mul({2, rows, in, layer.features});
}

int64_t rnnc::spec::modelFlops(const Model &model) {
  int64_t n = 0;
  for (size_t k = 0; k < model.layers.size(); ++k)
    n = add(n, layerFlops(model, k));
  return n;
}

std::string rnnc::spec::formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
