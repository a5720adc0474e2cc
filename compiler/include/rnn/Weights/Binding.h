//===- Binding.h - Checking weights against a model spec --------*- C++ -*-===//
//
// Binding matches a ParamTree (WeightsFile.h) against the params every cell
// of a spec::Model expects, reports every missing, misshapen or unexpected
// key through MLIR's diagnostic engine, and rearranges each cell's weights
// into the fused layout of Params.h.
//
// Expected keys, relative to a cell's params path (Cell::params, or
// defaultParamsPath() when empty), and the gate block each holds: the
// kind's row in CellKinds.cpp (CellKindInfo::linen, ::nnx), e.g. linen
// LSTMCell's {ii,if,ig,io}/kernel (I,H) and {hi,hf,hg,ho}/{kernel (H,H),
// bias (H)}.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_WEIGHTS_BINDING_H
#define RNN_WEIGHTS_BINDING_H

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Params.h"
#include "rnn/Weights/WeightsFile.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace rnnc {

/// Which cell of a layer: an RNN layer has only the forward one.
enum class Direction { Forward, Backward };

/// The params path Flax gives a cell of `layer` built in a parent's `setup`:
/// `<layer>/cell` for an RNN layer, `<layer>/forward_rnn/cell` and
/// `<layer>/backward_rnn/cell` for a Bidirectional one.
std::string defaultParamsPath(const spec::Layer &layer, Direction direction);

/// The params path binding reads direction `direction` of recurrent `layer`
/// from: the cell's `params` without a leading `params/` or trailing `/`, or
/// defaultParamsPath(). An RNN layer with a layer-level `params: P` (and no
/// cell `params`) reads `P/cell` when `tree` has keys under it, else `P`
/// itself (nn.scan over a bare cell saves its params there).
std::string cellParamsPath(const spec::Layer &layer, Direction direction,
                           const ParamTree &tree);

/// Rewrites every cell's `params` to cellParamsPath(), so that summaries of
/// a model bound to `tree` show where its params were read.
void resolveParamsPaths(spec::Model &model, const ParamTree &tree);

/// True when `key` or one of its parent paths matches one of `globs`
/// (llvm::GlobPattern syntax; `*` also matches '/'). Invalid globs match
/// nothing.
bool isIgnoredParam(llvm::StringRef key, llvm::ArrayRef<std::string> globs);

/// What bindParams needs beyond the model and the tree.
struct BindOptions {
  /// Globs of keys that may be in the file without being used (the CLI's
  /// --ignore-params; the spec's `ignore_params` apply as well).
  std::vector<std::string> ignoreParams;
  /// Arrays readWeights() left out of the tree because they are not
  /// floating point (key -> dtype name, e.g. a step counter "int32"): an
  /// error if a layer expects them, unexpected keys otherwise.
  std::map<std::string, std::string> nonFloatKeys;
};

/// One param a cell expects: its full '/'-joined key and shape.
struct ParamSpec {
  std::string key;
  std::vector<int64_t> shape;
};

/// The params `cell` expects under `prefix` when it reads `inputFeatures`
/// features, in Flax's creation order; std::nullopt when `layout` has no
/// such cell (CellKindInfo::params).
std::optional<std::vector<ParamSpec>>
expectedCellParams(const spec::Cell &cell, spec::ParamsLayout layout,
                   llvm::StringRef prefix, int64_t inputFeatures);

/// The params a non-recurrent layer expects under its `params` path (Dense:
/// kernel (in, features), bias (features) iff use_bias; Embed: embedding
/// (num_embeddings, features); LayerNorm: scale, bias (in) per use_scale and
/// use_bias; the others none). Linen and nnx use the same names.
std::vector<ParamSpec> expectedLayerParams(const spec::Layer &layer,
                                           llvm::StringRef prefix,
                                           int64_t inputFeatures);

/// Checks `tree` (read from `weightsPath`) against every layer of `model`
/// and returns the params of each layer, in layer order (an empty
/// LayerParams for layers without params). Reports every problem as an
/// error at the cell's or layer's location in the spec (resolved through
/// `sourceMgr`) and returns std::nullopt if there was any:
///   missing param 'enc/cell/hi/kernel' with shape [64, 64] in 'w.npz'
///   param 'enc/cell/hi/kernel' in 'w.npz' has shape [64, 32], expected
///     [64, 64]
///   no params of layer 'enc' in 'w.npz' (expected 'enc/cell/ii/kernel' and
///     11 more); the file holds lstm_cell_0/, Dense_0/
///     (+ a note suggesting the `params:` value whose arrays fit)
///   unexpected param 'enc/cell/hx/kernel' in 'w.npz'
///     (+ a note "did you mean 'enc/cell/hi/kernel'?" when a missing key
///     is close)
///   3 unexpected params in 'w.npz'
///     (+ a note listing them as subtrees, "Dense_3/{bias, kernel}, step",
///     and how to skip them with ignore_params / --ignore-params)
/// Unexpected keys are one error per layer that most plausibly wanted them
/// (the one whose path contains them or shares the longest prefix or the
/// closest name), or at the model when no layer fits. Keys matching the
/// spec's `ignore_params` or `options.ignoreParams` are not unexpected.
/// A params path may carry a leading `params/`; it is ignored, like the one
/// readWeights() strips from keys. With `quantize: {weights: int8}` the
/// kernels are quantized (quantizeWeights, Quantize.h).
std::optional<std::vector<LayerParams>>
bindParams(const spec::Model &model, const ParamTree &tree,
           llvm::StringRef weightsPath, const llvm::SourceMgr &sourceMgr,
           mlir::MLIRContext &ctx, const BindOptions &options = {});

/// bindParams' checks on the keys and shapes alone (readWeightShapes): the
/// same diagnostics for every missing, misshapen, non-float or unexpected
/// key, without any array data. Binding a file runs this on its headers
/// first, so a file that does not fit the model is rejected before any
/// array is read or inflated.
mlir::LogicalResult checkParamShapes(const spec::Model &model,
                                     const ParamShapes &shapes,
                                     llvm::StringRef weightsPath,
                                     const llvm::SourceMgr &sourceMgr,
                                     mlir::MLIRContext &ctx,
                                     const BindOptions &options = {});

} // namespace rnnc

#endif // RNN_WEIGHTS_BINDING_H
