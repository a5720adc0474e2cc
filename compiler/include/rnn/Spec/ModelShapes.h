//===- ModelShapes.h - Shapes, sizes and costs of a Model -------*- C++ -*-===//
//
// Derived facts about a checked Model: the feature shape each layer reads and
// writes, carry shapes, parameter counts and FLOPs per time step, and the
// human-readable summary `rnnc check` prints.
//
// "Features" shapes exclude the batch and time axes: [I] for dense cells,
// [spatial..., C] for convolutional cells (ConvLSTMCell). All counts saturate
// at kSaturated (INT64_MAX) instead of overflowing; parseModel rejects specs
// that reach it, so for a Model it returned every count is exact.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_SPEC_MODELSHAPES_H
#define RNN_SPEC_MODELSHAPES_H

#include "rnn/Spec/Model.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace rnnc::spec {

using Shape = std::vector<int64_t>;

/// The value every count saturates at.
constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

/// Saturating product of `dims` (1 for an empty shape; negatives count as 0).
int64_t numElements(llvm::ArrayRef<int64_t> dims);

/// The RNNs of a layer in execution order: {&rnn} for an RNN layer,
/// {&forward, &backward} for a Bidirectional one, {} for the others.
llvm::SmallVector<const RNN *, 2> layerDirections(const Layer &layer);

/// What `cell` outputs per step for inputs of feature shape `input`: [H], or
/// [spatial..., F] for convolutional cells.
Shape cellOutputFeatures(const Cell &cell, llvm::ArrayRef<int64_t> input);

/// The carry of `cell` reading features `input`, in Flax's order: {c, h} for
/// cells with a cell state, {h} otherwise. Each shape is the model's batch
/// dims followed by cellOutputFeatures.
std::vector<Shape> carryShapes(const Model &model, const Cell &cell,
                               llvm::ArrayRef<int64_t> input);

/// Feature shape layer `k` reads: the model's `features` for k = 0, else the
/// output of layer k - 1.
Shape layerInputFeatures(const Model &model, size_t k);

/// Feature shape of layer `k`'s output (after merging, for Bidirectional:
/// concat adds the last dims, add/mul/mean keep them; Dense replaces the
/// last dim; Embed gives [features]; Pool keeps the features, except
/// final_carry, which gives the closest recurrent layer's output features).
Shape layerOutputFeatures(const Model &model, size_t k);

/// True when layer `k`'s output still has the time axis (no Pool at or
/// before k).
bool layerKeepsTime(const Model &model, size_t k);

/// The whole shape of layer `k`'s output: batch dims, time (where it is
/// kept, first when time major) and features.
Shape layerOutputShape(const Model &model, size_t k);

/// The shape of the model's `y`: the last layer's output shape.
Shape modelOutputShape(const Model &model);

/// Carry shapes of direction `dir` of layer `k` (0: the RNN or forward_rnn,
/// 1: backward_rnn).
std::vector<Shape> layerCarryShapes(const Model &model, size_t k, unsigned dir);

/// One array Flax stores for a cell, with its shape.
struct StoredParam {
  const FlaxParam *param;
  Shape shape;
};

/// The arrays Flax stores for `cell` in `layout` when it reads
/// `inputFeatures` features (the input's last dim), in Flax's creation
/// order, those of options the cell turns off left out (CellKinds.h);
/// std::nullopt when `layout` has no such cell.
std::optional<std::vector<StoredParam>>
storedParams(const Cell &cell, ParamsLayout layout, int64_t inputFeatures);

/// Number of scalar parameters of `cell` reading features `input`, as stored
/// by Flax in `layout` (storedParams; linen's when `layout` has no such
/// cell, which the spec rejects).
int64_t numCellParams(const Cell &cell, llvm::ArrayRef<int64_t> input,
                      ParamsLayout layout);
int64_t numLayerParams(const Model &model, size_t k);
int64_t numParams(const Model &model);

/// FLOPs of one time step of `cell` over the whole batch, counting the
/// matmuls or convolutions only (2 FLOPs per multiply-add), with B the product
/// of the batch dims:
///   dense cells: 2·B·G·H·(I+H)
///   convolutional cells: 2·B·S·K·(C+F)·G·F, S = prod(spatial),
///   K = prod(kernel_size)
int64_t cellFlopsPerStep(const Model &model, const Cell &cell,
                         llvm::ArrayRef<int64_t> input);
int64_t layerFlopsPerStep(const Model &model, size_t k);
int64_t flopsPerStep(const Model &model);

/// FLOPs of layer `k` over one whole call (all T steps): the recurrent
/// layers' per-step FLOPs times T, and 2·rows·in·features for a Dense
/// (rows: every batch row, step and spatial position it maps). Other layers
/// count 0.
int64_t layerFlops(const Model &model, size_t k);
int64_t modelFlops(const Model &model);

/// "[8, 100, 40]"-style rendering of a shape.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Prints the model, its input and one aligned table row per layer direction
/// (cell, input and output features, carry shapes, params, FLOPs per step)
/// plus totals. Used by `rnnc check`.
void printModelSummary(llvm::raw_ostream &os, const Model &model);

} // namespace rnnc::spec

#endif // RNN_SPEC_MODELSHAPES_H
