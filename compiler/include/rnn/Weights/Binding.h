//===- Binding.h - Checking weights against a model spec --------*- C++ -*-===//
//
// Binding matches a ParamTree (WeightsFile.h) against the params every cell
// of a spec::Model expects, reports every missing, misshapen or unexpected
// key through MLIR's diagnostic engine, and rearranges each cell's weights
// into the fused layout of Params.h.
//
// Expected keys, relative to a cell's params path (Cell::params, or
// defaultParamsPath() when empty):
//   linen LSTMCell, OptimizedLSTMCell  {ii,if,ig,io}/kernel (I,H);
//                                      {hi,hf,hg,ho}/{kernel (H,H), bias (H)}
//   linen GRUCell   {ir,iz,in}/{kernel (I,H), bias (H)}; {hr,hz}/kernel (H,H);
//                   hn/{kernel (H,H), bias (H)}
//   linen MGUCell   if/{kernel, bias}; hf/kernel; hn/kernel (+ bias iff
//                   reset_gate); in/{kernel, bias}
//   linen SimpleCell  i/{kernel (I,H), bias (H)}; h/kernel (H,H)
//   linen ConvLSTMCell  ih/kernel (*k, I, 4F), hh/kernel (*k, F, 4F),
//                       {ih,hh}/bias (4F) iff use_bias
//   nnx LSTMCell    as linen with `if_` for `if`
//   nnx OptimizedLSTMCell  dense_i/kernel (I,4H); dense_h/{kernel (H,4H),
//                          bias (4H)}
//   nnx GRUCell     dense_i/{kernel (I,3H), bias (3H)}; dense_h/kernel (H,3H)
//   nnx SimpleCell  dense_i/{kernel (I,H), bias (H)}; dense_h/kernel (H,H)
//
//===----------------------------------------------------------------------===//

#ifndef RNN_WEIGHTS_BINDING_H
#define RNN_WEIGHTS_BINDING_H

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Params.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

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




/// One param a cell expects: its full '/'-joined key and shape.
struct ParamSpec {
  std::string key;
  std::vector<int64_t> shape;
};

/// The params `cell` expects under `prefix` when it reads `inputFeatures`
/// features, in Flax's creation order; std::nullopt when `layout` has no
/// such cell (nnx has no MGUCell or ConvLSTMCell).
std::optional<std::vector<ParamSpec>>
expectedCellParams(const spec::Cell &cell, spec::ParamsLayout layout,
                   llvm::StringRef prefix, int64_t inputFeatures);

/// Checks `tree` (read from `weightsPath`) against every cell of `model` and
/// returns the fused params of each layer, in layer order. Reports every
/// problem as an error at the cell's location in the spec (Cell::loc,
/// resolved through `sourceMgr`; keys under no cell go to the model's
/// location) and returns std::nullopt if there was any:
///   missing param 'enc/cell/hi/kernel' with shape [64, 64] in 'w.npz'
///   param 'enc/cell/hi/kernel' in 'w.npz' has shape [64, 32], expected
///     [64, 64]
///   unexpected param 'enc/cell/hx/kernel' in 'w.npz'
///     (+ a note "did you mean 'enc/cell/hi/kernel'?" when a missing key
///     is close)
/// A cell's params path may carry a leading `params/`; it is ignored, like
/// the one readWeights() strips from keys.
std::optional<std::vector<LayerParams>>
bindParams(const spec::Model &model, const ParamTree &tree,
           llvm::StringRef weightsPath, const llvm::SourceMgr &sourceMgr,
           mlir::MLIRContext &ctx);

} // namespace rnnc

#endif // RNN_WEIGHTS_BINDING_H
