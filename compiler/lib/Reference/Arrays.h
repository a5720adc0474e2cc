//===- Arrays.h - Shapes and sequence layouts for the reference -*- C++ -*-===//
//
// Small helpers shared by the reference implementation: shape arithmetic and
// the conversion between the user's array layout ([B*, T, F...] or
// [T, B*, F...]) and the canonical rows x time x width form that the layer
// code works on (batch dims flattened row-major into rows, per-step feature
// dims flattened into width).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_REFERENCE_ARRAYS_H
#define RNN_LIB_REFERENCE_ARRAYS_H

#include "rnn/Reference/Reference.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rnnc::reference::detail {

/// The number of elements of \p shape (1 for a scalar shape []).
int64_t product(llvm::ArrayRef<int64_t> shape);

/// Renders \p shape as "[2, 3]".
std::string shapeString(llvm::ArrayRef<int64_t> shape);

/// Concatenates two shapes.
std::vector<int64_t> concat(llvm::ArrayRef<int64_t> a,
                            llvm::ArrayRef<int64_t> b);

/// An error with message \p msg.
llvm::Error makeError(const llvm::Twine &msg);

/// Checks that \p array has shape \p expected and as many values as that
/// shape needs; \p what names the array in the message.
llvm::Error checkArray(const Array &array, llvm::ArrayRef<int64_t> expected,
                       const llvm::Twine &what);

/// The same check for a weight \p tensor.
llvm::Error checkTensor(const Tensor &tensor, llvm::ArrayRef<int64_t> expected,
                        const llvm::Twine &what);

/// Sequences of every batch row: data[(row * time + t) * width + k].
struct Sequences {
  int64_t rows = 0;
  int64_t time = 0;
  int64_t width = 0;
  std::vector<double> data;

  Sequences() = default;
  Sequences(int64_t rows, int64_t time, int64_t width)
      : rows(rows), time(time), width(width),
        data(static_cast<size_t>(rows * time * width), 0.0) {}

  double *step(int64_t row, int64_t t) {
    return data.data() + (row * time + t) * width;
  }
  const double *step(int64_t row, int64_t t) const {
    return data.data() + (row * time + t) * width;
  }
};

/// Reads \p array (already shape-checked) in the user's layout.
Sequences toSequences(const Array &array, int64_t rows, int64_t time,
                      int64_t width, bool timeMajor);

/// Writes \p seq in the user's layout: [batch..., T, step...] or
/// [T, batch..., step...] if \p timeMajor.
Array fromSequences(const Sequences &seq, llvm::ArrayRef<int64_t> batch,
                    llvm::ArrayRef<int64_t> stepShape, bool timeMajor);

} // namespace rnnc::reference::detail

#endif // RNN_LIB_REFERENCE_ARRAYS_H
