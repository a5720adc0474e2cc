//===- Reference.h - Plain reference implementation of a model --*- C++ -*-===//
//
// A deliberately simple, double-precision implementation of a whole spec
// model: every cell, RNN and Bidirectional option, layer stacks, any number
// of batch dims and ConvLSTM, and the non-recurrent layers of whole models
// (Dense, Pool, Embed, LayerNorm, Activation, Dropout). It is the oracle
// that everything the compiler generates is tested against, so it favours
// obviousness over speed and follows the team's flax-recurrent-semantics.md
// reference step by step:
//
//  * the LSTM-like carry is (c, h); the layer output is h;
//  * padded steps are computed: outputs there are the continued recurrence
//    (unless the model asks for PaddedOutputs::Zeros);
//  * reverse flips each row's valid prefix with Flax's index formula
//    (t -> (T-1-t+L) mod T, which also reverses the padding block in place)
//    and keep_order flips the outputs back;
//  * with seq_lengths the final carry is the one after each row's last valid
//    step (in processing order), otherwise the one after step T-1.
//
// The other layers follow whole-models-design.md (jax semantics):
//
//  * Dense (kernel (in, features), optional bias, then its activation),
//    LayerNorm (Flax's fast variance: max(0, mean(x^2) - mean(x)^2)) and
//    softmax / log_softmax act on the last axis of every step (every
//    spatial position of a ConvLSTM output); the other activations are
//    element-wise; Dropout is the identity;
//  * Embed, only as the first layer, reads token ids: x is (*batch, T) or
//    (T, *batch), ids held as doubles, each an integer in
//    [0, num_embeddings) (anything else is an error naming id and position);
//  * Pool removes the time axis: last, first, mean, max, sum over all T
//    steps (padding included), last_valid (step L-1), final_carry (the
//    closest recurrent layer's final h, a Bidirectional one's two merged
//    by its merge_fn); valid_only reduces over each row's L valid steps;
//    a row of length 0 gives zeros (final_carry: its initial carry).
//
// Where Flax is buggy this implementation is correct instead: a length of 0
// returns the initial carry, several batch dims select the carry per row, and
// lengths < 0 or > T are an error.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_REFERENCE_REFERENCE_H
#define RNN_REFERENCE_REFERENCE_H

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Params.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rnnc::reference {

/// A dense double array in row-major order.
struct Array {
  std::vector<int64_t> shape;
  std::vector<double> data;
};

/// The run-time inputs of a model. Key names are the `rnnc run` npz contract.
struct Inputs {
  /// [B*, T, features...] or, if the spec is time major, [T, B*, features...].
  /// When the first layer is an Embed: token ids [B*, T] (or [T, B*]).
  Array x;
  /// One length per batch row, flattened row-major; required iff the spec
  /// declares seq_lengths.
  std::optional<std::vector<int64_t>> seqLengths;
  /// "initial_carry/<layer>/c", "initial_carry/<layer>/h" and, for
  /// Bidirectional layers, "initial_carry/<layer>/forward/h",
  /// "initial_carry/<layer>/backward/c", ... Exactly the layers with
  /// `initial_carry: input` must have entries, each of shape B* + carry shape.
  std::map<std::string, Array> initialCarry;
};

/// The results of a model run.
struct Outputs {
  /// The last layer's outputs, of shape spec::modelOutputShape(model): in the
  /// inputs' layout while the time axis is kept, [B*, features...] after a
  /// Pool.
  Array y;
  /// Final carries of the layers with return_carry: "carry/<layer>/<part>"
  /// for each part of the cell kind's carry ("c" and "h", or "h";
  /// CellKindInfo::carries); Bidirectional layers insert "forward/" or
  /// "backward/" before the carry part.
  std::map<std::string, Array> carries;
};

/// Runs \p model with weights \p params (one entry per layer, in the fused
/// layout of Params.h for cells, Flax's own arrays for Dense, Embed and
/// LayerNorm) on \p inputs. Inconsistent inputs or weights (shapes, missing
/// or unexpected carries or weights, lengths outside [0, T], bad token ids,
/// a Pool without the lengths or recurrent layer it needs) give an error.
llvm::Expected<Outputs> run(const spec::Model &model,
                            llvm::ArrayRef<LayerParams> params,
                            const Inputs &inputs);

/// Flax's flip_sequences index for one row: the position of the input that
/// lands at \p t when a sequence of \p time steps with \p length valid steps
/// is flipped, i.e. (T-1-t+L) mod T (floor-mod; 0 if T <= 0). An involution
/// for every 0 <= L <= T.
int64_t flipIndex(int64_t t, int64_t length, int64_t time);

} // namespace rnnc::reference

#endif // RNN_REFERENCE_REFERENCE_H
