//===- Model.cpp - Reference run of a whole model -------------------------===//
//
// Validates the inputs against the spec, then runs the layer stack: each
// layer's outputs are the next layer's inputs and the model's seq_lengths
// apply to every layer.
//
//===----------------------------------------------------------------------===//

#include "rnn/Reference/Reference.h"

#include "Arrays.h"
#include "Cells.h"
#include "Head.h"
#include "Layer.h"
#include "Pool.h"

#include "rnn/Spec/ModelShapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace rnnc;
using namespace rnnc::reference;
using namespace rnnc::reference::detail;

/// "seq_lengths[1, 2]" for flat row 5 of batch dims [2, 3] ("seq_lengths"
/// when there are no batch dims).
static std::string lengthName(int64_t row, llvm::ArrayRef<int64_t> batch) {
  if (batch.empty())
    return "seq_lengths";
  std::vector<int64_t> index(batch.size());
  for (size_t d = batch.size(); d-- > 0;) {
    index[d] = row % batch[d];
    row /= batch[d];
  }
  std::string text = shapeString(index);
  return "seq_lengths" + text;
}

static llvm::Expected<Lengths> checkLengths(const spec::Model &model,
                                            const Inputs &inputs) {
  if (!model.seqLengths) {
    if (inputs.seqLengths)
      return makeError("unexpected seq_lengths: the spec declares "
                       "'seq_lengths: false'");
    return Lengths();
  }
  if (!inputs.seqLengths)
    return makeError("expected seq_lengths: the spec declares "
                     "'seq_lengths: true'");
  const std::vector<int64_t> &lengths = *inputs.seqLengths;
  int64_t rows = product(model.batch);
  if (static_cast<int64_t>(lengths.size()) != rows)
    return makeError("expected " + llvm::Twine(rows) +
                     " seq_lengths (batch dims " + shapeString(model.batch) +
                     "), found " + llvm::Twine(lengths.size()));
  for (int64_t r = 0; r < rows; ++r)
    if (lengths[r] < 0 || lengths[r] > model.time)
      return makeError("expected " + lengthName(r, model.batch) + " in [0, " +
                       llvm::Twine(model.time) + "], found " +
                       llvm::Twine(lengths[r]));
  return Lengths(lengths);
}

/// The carry parts of a cell, in Flax's order.
static std::vector<std::string> carryParts(const spec::Cell &cell) {
  std::vector<std::string> parts;
  for (llvm::StringRef part : spec::describe(cell.kind).carries)
    parts.push_back(part.str());
  return parts;
}

/// "" for an RNN layer's only direction, "forward/" or "backward/" otherwise.
static std::string directionPrefix(const spec::Layer &layer, bool backward) {
  if (!layer.isBidirectional())
    return "";
  return backward ? "backward/" : "forward/";
}

/// The cell of one direction of \p layer.
static const spec::Cell &directionCell(const spec::Layer &layer,
                                       bool backward) {
  if (!layer.isBidirectional())
    return layer.rnn.cell;
  return backward ? layer.backward.cell : layer.forward.cell;
}

/// Rejects initial carries that no `initial_carry: input` layer reads.
static llvm::Error checkCarryKeys(const spec::Model &model,
                                  const Inputs &inputs) {
  llvm::StringSet<> expected;
  for (const spec::Layer &layer : model.layers) {
    if (layer.initialCarry != spec::InitialCarry::Input)
      continue;
    for (bool backward : {false, true}) {
      if (backward && !layer.isBidirectional())
        continue;
      for (const std::string &part : carryParts(directionCell(layer, backward)))
        expected.insert("initial_carry/" + layer.name + "/" +
                        directionPrefix(layer, backward) + part);
    }
  }
  for (const auto &[key, array] : inputs.initialCarry)
    if (!expected.contains(key))
      return makeError("unexpected initial carry '" + key +
                       "': only layers with 'initial_carry: input' take one, "
                       "with parts c and h (LSTM-like cells) or h");
  return llvm::Error::success();
}

/// One zero-initialised or user-provided carry per row for one direction.
static llvm::Expected<std::vector<Carry>>
initialCarries(const spec::Model &model, const spec::Layer &layer,
               const spec::Cell &cell, bool backward,
               llvm::ArrayRef<int64_t> shape, const Inputs &inputs) {
  const int64_t rows = product(model.batch), width = product(shape);
  Carry zero;
  if (cell.hasCellState())
    zero.c.assign(width, 0.0);
  zero.h.assign(width, 0.0);
  std::vector<Carry> carries(rows, zero);
  if (layer.initialCarry == spec::InitialCarry::Zeros)
    return carries;
  for (const std::string &part : carryParts(cell)) {
    std::string key = "initial_carry/" + layer.name + "/" +
                      directionPrefix(layer, backward) + part;
    auto it = inputs.initialCarry.find(key);
    if (it == inputs.initialCarry.end())
      return makeError("missing initial carry '" + key + "' of layer '" +
                       layer.name + "' ('initial_carry: input')");
    if (auto err = checkArray(it->second, concat(model.batch, shape),
                              "initial carry '" + key + "'"))
      return std::move(err);
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> &dst = part[0] == 'c' ? carries[r].c : carries[r].h;
      std::copy_n(it->second.data.begin() + r * width, width, dst.begin());
    }
  }
  return carries;
}

/// Stores the final carries of one direction as "carry/<layer>/<dir>c" ...
static void storeCarries(const spec::Model &model, const spec::Layer &layer,
                         bool backward, llvm::ArrayRef<int64_t> shape,
                         const std::vector<Carry> &carries, Outputs &out) {
  const int64_t width = product(shape);
  for (const std::string &part : carryParts(directionCell(layer, backward))) {
    Array array;
    array.shape = concat(model.batch, shape);
    array.data.reserve(carries.size() * width);
    for (const Carry &carry : carries) {
      const std::vector<double> &src = part[0] == 'c' ? carry.c : carry.h;
      array.data.insert(array.data.end(), src.begin(), src.end());
    }
    out.carries["carry/" + layer.name + "/" + directionPrefix(layer, backward) +
                part] = std::move(array);
  }
}

/// The final h of every row of a recurrent layer's run, as one step per row;
/// a Bidirectional layer's directions merged like its outputs.
static Sequences finalHidden(const spec::Layer &layer,
                             const LayerResult &result) {
  auto gather = [](const std::vector<Carry> &carries) {
    const int64_t width = carries.empty() ? 0 : carries[0].h.size();
    Sequences h(static_cast<int64_t>(carries.size()), 1, width);
    for (size_t r = 0; r < carries.size(); ++r)
      std::copy(carries[r].h.begin(), carries[r].h.end(), h.step(r, 0));
    return h;
  };
  if (!layer.isBidirectional())
    return gather(result.forward);
  return mergeDirections(layer.merge, gather(result.forward),
                         gather(result.backward), layer.forward.cell.features,
                         layer.backward.cell.features);
}

namespace {
/// The carry shape and initial carries (one per row) of one direction.
struct Direction {
  std::vector<int64_t> shape;
  std::vector<Carry> initial;
};
} // namespace

static llvm::Expected<Direction>
prepareDirection(const spec::Model &model, const spec::Layer &layer,
                 bool backward, llvm::ArrayRef<int64_t> stepShape,
                 const Inputs &inputs, const llvm::Twine &what) {
  const spec::Cell &cell = directionCell(layer, backward);
  auto shape = carryShape(cell, stepShape, what);
  if (!shape)
    return shape.takeError();
  auto initial = initialCarries(model, layer, cell, backward, *shape, inputs);
  if (!initial)
    return initial.takeError();
  return Direction{std::move(*shape), std::move(*initial)};
}

llvm::Expected<Outputs> reference::run(const spec::Model &model,
                                       llvm::ArrayRef<LayerParams> params,
                                       const Inputs &inputs) {
  if (model.runtimeTime) {
    // `input.time: {max: N}`: the model of x's number of steps.
    size_t axis = model.timeMajor ? 0 : model.batch.size();
    if (axis >= inputs.x.shape.size() || inputs.x.shape[axis] < 0 ||
        inputs.x.shape[axis] > model.time)
      return makeError("expected x with at most " + llvm::Twine(model.time) +
                       " steps (input.time: {max: " + llvm::Twine(model.time) +
                       "})");
    spec::Model actual = model;
    actual.runtimeTime = false;
    actual.time = inputs.x.shape[axis];
    return run(actual, params, inputs);
  }
  if (model.hasRuntimeBatch()) {
    // `input.batch` entries `{max: N}`: the model of x's batch sizes.
    size_t axis = model.timeMajor ? 1 : 0;
    spec::Model actual = model;
    actual.runtimeBatch.clear();
    for (size_t d = 0; d < model.batch.size(); ++d) {
      if (!model.isRuntimeBatch(d))
        continue;
      int64_t rows = axis + d < inputs.x.shape.size()
                         ? inputs.x.shape[axis + d]
                         : 0;
      if (rows < 1 || rows > model.batch[d])
        return makeError("expected x with 1.." + llvm::Twine(model.batch[d]) +
                         " rows on axis " + llvm::Twine(axis + d) +
                         " (input.batch entry {max: " +
                         llvm::Twine(model.batch[d]) + "})");
      actual.batch[d] = rows;
    }
    return run(actual, params, inputs);
  }
  if (model.layers.empty())
    return makeError("expected at least one layer, found none");
  if (params.size() != model.layers.size())
    return makeError("expected weights for " +
                     llvm::Twine(model.layers.size()) + " layers, found " +
                     llvm::Twine(params.size()));
  llvm::StringSet<> names;
  for (const spec::Layer &layer : model.layers)
    if (!names.insert(layer.name).second)
      return makeError("expected unique layer names, found '" + layer.name +
                       "' twice");
  if (model.time < 0 ||
      llvm::any_of(model.batch, [](int64_t d) { return d < 0; }) ||
      llvm::any_of(model.features, [](int64_t d) { return d <= 0; }))
    return makeError("expected non-negative batch and time sizes and "
                     "positive feature sizes");

  std::vector<int64_t> time = {model.time};
  std::vector<int64_t> xShape =
      model.timeMajor ? concat(concat(time, model.batch), model.features)
                      : concat(concat(model.batch, time), model.features);
  if (auto err = checkArray(inputs.x, xShape, "'x'"))
    return std::move(err);
  auto lengths = checkLengths(model, inputs);
  if (!lengths)
    return lengths.takeError();
  if (auto err = checkCarryKeys(model, inputs))
    return std::move(err);

  const int64_t rows = product(model.batch);
  Sequences seq = toSequences(inputs.x, rows, model.time,
                              product(model.features), model.timeMajor);
  std::vector<int64_t> stepShape = model.features;
  // Set once a Pool removed the time axis: seq then has one step per row.
  const spec::Layer *pool = nullptr;
  // The closest recurrent layer's final h (one step per row, merged for
  // Bidirectional) and its per-step shape: what Pool(final_carry) returns.
  std::optional<Sequences> finalH;
  std::vector<int64_t> finalShape;
  Outputs out;
  for (auto [k, layer, layerParams] : llvm::enumerate(model.layers, params)) {
    std::string what = "layer '" + layer.name + "'";
    if (pool && (layer.isRecurrent() || layer.kind == spec::Layer::Kind::Pool))
      return makeError(what + " (" + spec::stringify(layer.kind) +
                       ") needs a time axis, but Pool layer '" + pool->name +
                       "' removed it");
    if (layer.kind == spec::Layer::Kind::Pool) {
      if (auto err = checkNoParams(layerParams, what))
        return std::move(err);
      if (auto err = checkPool(layer, seq, *lengths,
                               finalH ? &*finalH : nullptr, what))
        return std::move(err);
      seq = runPool(layer, seq, *lengths, finalH ? &*finalH : nullptr);
      if (layer.poolFn == spec::PoolFn::FinalCarry)
        stepShape = finalShape;
      pool = &layer;
      continue;
    }
    if (!layer.isRecurrent()) {
      if (layer.kind == spec::Layer::Kind::Embed && k != 0)
        return makeError("Embed " + what + " must be the first layer");
      auto outShape = checkHeadLayer(layer, layerParams, stepShape, what);
      if (!outShape)
        return outShape.takeError();
      if (layer.kind == spec::Layer::Kind::Embed)
        if (auto err = checkTokenIds(inputs.x, layer.numEmbeddings))
          return std::move(err);
      seq = runHeadLayer(layer, layerParams, stepShape, seq);
      stepShape = std::move(*outShape);
      continue;
    }

    auto outShape = checkLayer(layer, layerParams, stepShape, what);
    if (!outShape)
      return outShape.takeError();

    auto fwd = prepareDirection(model, layer, /*backward=*/false, stepShape,
                                inputs, what);
    if (!fwd)
      return fwd.takeError();
    Direction bwd;
    if (layer.isBidirectional()) {
      auto prepared = prepareDirection(model, layer, /*backward=*/true,
                                       stepShape, inputs, what);
      if (!prepared)
        return prepared.takeError();
      bwd = std::move(*prepared);
    }

    LayerResult result =
        runLayer(layer, layerParams, stepShape, seq, *lengths,
                 std::move(fwd->initial), std::move(bwd.initial),
                 model.paddedOutputs == spec::PaddedOutputs::Zeros);
    if (layer.returnCarry) {
      storeCarries(model, layer, /*backward=*/false, fwd->shape, result.forward,
                   out);
      if (layer.isBidirectional())
        storeCarries(model, layer, /*backward=*/true, bwd.shape,
                     result.backward, out);
    }
    finalH = finalHidden(layer, result);
    finalShape = *outShape;
    seq = std::move(result.y);
    stepShape = std::move(*outShape);
  }
  if (!pool) {
    out.y = fromSequences(seq, model.batch, stepShape, model.timeMajor);
  } else {
    out.y.shape = concat(model.batch, stepShape);
    out.y.data = std::move(seq.data);
  }
  // Cross-checks the layer code against the shapes the rest of rnnc uses.
  if (out.y.shape != spec::modelOutputShape(model))
    return makeError("internal error: computed y of shape " +
                     shapeString(out.y.shape) +
                     ", but the model's output "
                     "shape is " +
                     shapeString(spec::modelOutputShape(model)));
  return out;
}
