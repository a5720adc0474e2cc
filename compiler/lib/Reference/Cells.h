//===- Cells.h - One step of every cell, for one batch row ------*- C++ -*-===//
//
// The cell equations of flax-recurrent-semantics.md sections 1-2, written
// against the fused weight layout of Params.h, for a single batch row and a
// single time step, in double precision.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_REFERENCE_CELLS_H
#define RNN_LIB_REFERENCE_CELLS_H

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Params.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace rnnc::reference::detail {

/// The state one batch row carries between steps. `c` is empty for cells
/// whose carry is `h` alone (CellKindInfo::carries). The step's output is `h`.
struct Carry {
  std::vector<double> c;
  std::vector<double> h;
};

/// \p fn applied to \p x with jax.nn semantics, for the element-wise
/// activations (spec::isElementwise); softmax and log_softmax give NaN here
/// (applyActivation in Head.h normalizes them over the last axis).
double activate(spec::Activation fn, double x);

/// The per-step shape of the carry (and output) of \p cell for per-step
/// inputs of shape \p input: [H] for dense cells, [spatial..., F] for
/// ConvLSTM. Fails if \p input does not suit the cell; \p what names the
/// cell in the message.
llvm::Expected<std::vector<int64_t>> carryShape(const spec::Cell &cell,
                                                llvm::ArrayRef<int64_t> input,
                                                const llvm::Twine &what);

/// Checks the shapes of \p params against \p cell with per-step inputs of
/// shape \p input (already accepted by carryShape). Biases are optional: a
/// present bias is added, an absent one counts as zero.
llvm::Error checkCellParams(const spec::Cell &cell, const CellParams &params,
                            llvm::ArrayRef<int64_t> input,
                            const llvm::Twine &what);

/// Advances \p carry by one step of \p cell on the input \p x (one batch row,
/// shape \p input, row-major).
void stepCell(const spec::Cell &cell, const CellParams &params,
              llvm::ArrayRef<int64_t> input, const double *x, Carry &carry);

} // namespace rnnc::reference::detail

#endif // RNN_LIB_REFERENCE_CELLS_H
