//===- Arrays.cpp - Shapes and sequence layouts for the reference ---------===//

#include "Arrays.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace rnnc::reference;
using namespace rnnc::reference::detail;

int64_t detail::product(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string detail::shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return text;
}

std::vector<int64_t> detail::concat(llvm::ArrayRef<int64_t> a,
                                    llvm::ArrayRef<int64_t> b) {
  std::vector<int64_t> result(a.begin(), a.end());
  result.insert(result.end(), b.begin(), b.end());
  return result;
}

llvm::Error detail::makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error detail::checkArray(const Array &array,
                               llvm::ArrayRef<int64_t> expected,
                               const llvm::Twine &what) {
  if (llvm::ArrayRef<int64_t>(array.shape) != expected)
    return makeError("expected " + what + " of shape " + shapeString(expected) +
                     ", found " + shapeString(array.shape));
  if (static_cast<int64_t>(array.data.size()) != product(expected))
    return makeError("expected " + llvm::Twine(product(expected)) +
                     " values in " + what + " of shape " +
                     shapeString(expected) + ", found " +
                     llvm::Twine(array.data.size()));
  return llvm::Error::success();
}

llvm::Error detail::checkTensor(const Tensor &tensor,
                                llvm::ArrayRef<int64_t> expected,
                                const llvm::Twine &what) {
  if (llvm::ArrayRef<int64_t>(tensor.shape) != expected)
    return makeError("expected " + what + " of shape " + shapeString(expected) +
                     ", found " + shapeString(tensor.shape));
  if (static_cast<int64_t>(tensor.data.size()) != product(expected))
    return makeError("expected " + llvm::Twine(product(expected)) +
                     " values in " + what + ", found " +
                     llvm::Twine(tensor.data.size()));
  return llvm::Error::success();
}

Sequences detail::toSequences(const Array &array, int64_t rows, int64_t time,
                              int64_t width, bool timeMajor) {
  Sequences seq(rows, time, width);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t t = 0; t < time; ++t) {
      int64_t src = timeMajor ? t * rows + r : r * time + t;
      std::copy_n(array.data.begin() + src * width, width, seq.step(r, t));
    }
  return seq;
}

Array detail::fromSequences(const Sequences &seq, llvm::ArrayRef<int64_t> batch,
                            llvm::ArrayRef<int64_t> stepShape, bool timeMajor) {
  Array array;
  std::vector<int64_t> time = {seq.time};
  array.shape = timeMajor ? concat(concat(time, batch), stepShape)
                          : concat(concat(batch, time), stepShape);
  array.data.assign(seq.data.size(), 0.0);
  for (int64_t r = 0; r < seq.rows; ++r)
    for (int64_t t = 0; t < seq.time; ++t) {
      int64_t dst = timeMajor ? t * seq.rows + r : r * seq.time + t;
      std::copy_n(seq.step(r, t), seq.width,
                  array.data.begin() + dst * seq.width);
    }
  return array;
}
