//===- Layer.h - Scans, flips, carry selection, Bidirectional ---*- C++ -*-===//
//
// One RNN direction is a scan of a cell over all T steps of every row
// (flax-recurrent-semantics.md section 3.2); a layer is one direction or a
// Bidirectional pair merged on the last axis (section 6).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_REFERENCE_LAYER_H
#define RNN_LIB_REFERENCE_LAYER_H

#include "Arrays.h"
#include "Cells.h"

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Params.h"

#include <optional>
#include <vector>

namespace rnnc::reference::detail {

/// Per-row lengths (already validated to lie in [0, T]), if any.
using Lengths = std::optional<std::vector<int64_t>>;

/// The outputs and final carries (one per row) of one direction.
struct DirectionResult {
  Sequences y;
  std::vector<Carry> carries;
};

/// Scans \p cell over every row of \p x starting from \p initial (one carry
/// per row). With \p reverse the inputs are flipped per row (flipIndex with
/// the row's length, or T without lengths) and with \p keepOrder the outputs
/// are flipped back. The final carry is the one after step L-1 in processing
/// order (the initial carry if L == 0), where L is T without lengths.
DirectionResult runDirection(const spec::Cell &cell, const CellParams &params,
                             llvm::ArrayRef<int64_t> input, const Sequences &x,
                             const Lengths &lengths, bool reverse,
                             bool keepOrder, std::vector<Carry> initial);

/// Checks \p layer and its weights \p params for per-step inputs of shape
/// \p input and returns the per-step shape of the layer's outputs. \p what
/// names the layer in messages.
llvm::Expected<std::vector<int64_t>> checkLayer(const spec::Layer &layer,
                                                const LayerParams &params,
                                                llvm::ArrayRef<int64_t> input,
                                                const llvm::Twine &what);

/// merge(a, b) per flax Bidirectional: concat on the last axis, a+b, a*b or
/// (a+b)/2. \p lastA and \p lastB are the sizes of the operands' last axes.
Sequences mergeDirections(spec::Merge kind, const Sequences &a,
                          const Sequences &b, int64_t lastA, int64_t lastB);

/// The outputs and final carries of one layer; `backward` is empty unless
/// the layer is Bidirectional.
struct LayerResult {
  Sequences y;
  std::vector<Carry> forward;
  std::vector<Carry> backward;
};

/// Runs a layer accepted by checkLayer. \p initForward (and, for
/// Bidirectional, \p initBackward) hold one initial carry per row. With
/// \p zeroPadded and lengths, outputs at t >= L are set to zero.
LayerResult runLayer(const spec::Layer &layer, const LayerParams &params,
                     llvm::ArrayRef<int64_t> input, const Sequences &x,
                     const Lengths &lengths, std::vector<Carry> initForward,
                     std::vector<Carry> initBackward, bool zeroPadded);

} // namespace rnnc::reference::detail

#endif // RNN_LIB_REFERENCE_LAYER_H
