//===- Pool.h - Reductions over the time axis -------------------*- C++ -*-===//
//
// A Pool layer turns every row's T steps into one vector
// (whole-models-design.md):
//   last, first        step T-1, step 0 (x[:, -1], x[:, 0]);
//   mean, max, sum     over all T steps, padding included (jnp.mean/max/sum
//                      over the time axis);
//   last_valid         step L-1 of each row (zeros when L = 0);
//   final_carry        the closest recurrent layer's final h, Bidirectional
//                      ones merged by their merge_fn (with seq_lengths: the
//                      carry after the row's last valid step; the initial
//                      carry when L = 0);
// and with valid_only over each row's L valid steps instead: last is
// last_valid, first is step 0, mean/max/sum cover steps [0, L) (mean
// divides by L), all zeros for a row of length 0; valid_only does not
// change last_valid or final_carry.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_REFERENCE_POOL_H
#define RNN_LIB_REFERENCE_POOL_H

#include "Arrays.h"
#include "Layer.h"

#include "rnn/Spec/Model.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace rnnc::reference::detail {

/// Checks a Pool \p layer reading \p x (T steps per row): lengths where it
/// needs them, a final carry (\p finalCarry non-null) for final_carry, and
/// at least one step for the modes that read a fixed step or divide by T.
llvm::Error checkPool(const spec::Layer &layer, const Sequences &x,
                      const Lengths &lengths, const Sequences *finalCarry,
                      const llvm::Twine &what);

/// Runs a Pool accepted by checkPool; the result has one step per row.
/// \p finalCarry (one step per row) is what final_carry returns.
Sequences runPool(const spec::Layer &layer, const Sequences &x,
                  const Lengths &lengths, const Sequences *finalCarry);

} // namespace rnnc::reference::detail

#endif // RNN_LIB_REFERENCE_POOL_H
