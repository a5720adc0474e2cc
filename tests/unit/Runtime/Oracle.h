//===- Oracle.h - Brute-force references for the runtime tests --*- C++ -*-===//
//
// Independent, unoptimised re-implementations of Flax's flip_sequences and
// _select_last_carry on N-dimensional arrays. They index the unflattened
// array directly (no batch/feature flattening, no closed form), taking the
// gather index straight from Flax's source: idx[t] = (T-1-t+L) mod T with a
// floor mod. The runtime is checked against them.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_TESTS_UNIT_RUNTIME_ORACLE_H
#define RNN_TESTS_UNIT_RUNTIME_ORACLE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rnnc::test {

using Shape = std::vector<int64_t>;

/// Number of elements of an array of shape `shape`.
inline int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Row-major offset of multi-index `idx` in an array of shape `shape`.
inline int64_t offsetOf(const Shape &shape, const Shape &idx) {
  int64_t off = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    off = off * shape[i] + idx[i];
  return off;
}

/// Advances `idx` to the next multi-index in row-major order; returns false
/// after the last one.
inline bool nextIndex(const Shape &shape, Shape &idx) {
  for (size_t i = shape.size(); i-- > 0;) {
    if (++idx[i] < shape[i])
      return true;
    idx[i] = 0;
  }
  return false;
}

/// Python's `%` on integers (the result has the divisor's sign).
inline int64_t floorMod(int64_t a, int64_t m) {
  int64_t r = a % m;
  return r < 0 ? r + m : r;
}

/// Flax's flip_sequences for `in` of shape `shape`: the time axis is 0 if
/// `timeMajor`, else `numBatchDims`; batch dims are the `numBatchDims` axes
/// next to it (after it if time-major, before it otherwise); `lengths` is
/// indexed row-major over the batch dims, or empty for a full reversal.
inline std::vector<float> flipOracle(const std::vector<float> &in,
                                     const Shape &shape, size_t numBatchDims,
                                     bool timeMajor,
                                     const std::vector<int32_t> &lengths) {
  std::vector<float> out(in.size());
  size_t timeAxis = timeMajor ? 0 : numBatchDims;
  size_t firstBatchAxis = timeMajor ? 1 : 0;
  int64_t T = shape[timeAxis];
  Shape batchShape(shape.begin() + firstBatchAxis,
                   shape.begin() + firstBatchAxis + numBatchDims);
  Shape idx(shape.size(), 0);
  if (numElements(shape) == 0)
    return out;
  do {
    Shape batchIdx(idx.begin() + firstBatchAxis,
                   idx.begin() + firstBatchAxis + numBatchDims);
    Shape src = idx;
    int64_t t = idx[timeAxis];
    if (lengths.empty()) {
      src[timeAxis] = T - 1 - t; // jnp.flip
    } else {
      int64_t L = lengths[offsetOf(batchShape, batchIdx)];
      src[timeAxis] = floorMod(T - 1 - t + L, T);
    }
    out[offsetOf(shape, idx)] = in[offsetOf(shape, src)];
  } while (nextIndex(shape, idx));
  return out;
}

/// _select_last_carry with our fix for L == 0: `carries` has shape
/// (T, *batchShape, *carryShape), `initial` (*batchShape, *carryShape);
/// row b gets carries[L_b - 1, b], or initial[b] when L_b == 0.
inline std::vector<float> selectOracle(const std::vector<float> &carries,
                                       const std::vector<float> &initial,
                                       const std::vector<int32_t> &lengths,
                                       const Shape &batchShape,
                                       const Shape &carryShape, int64_t T) {
  Shape outShape = batchShape;
  outShape.insert(outShape.end(), carryShape.begin(), carryShape.end());
  Shape stackedShape = outShape;
  stackedShape.insert(stackedShape.begin(), T);
  std::vector<float> out(initial.size());
  Shape idx(outShape.size(), 0);
  if (numElements(outShape) == 0)
    return out;
  do {
    Shape batchIdx(idx.begin(), idx.begin() + batchShape.size());
    int64_t L = lengths[offsetOf(batchShape, batchIdx)];
    float value;
    if (L == 0) {
      value = initial[offsetOf(outShape, idx)];
    } else {
      Shape src = idx;
      src.insert(src.begin(), L - 1);
      value = carries[offsetOf(stackedShape, src)];
    }
    out[offsetOf(outShape, idx)] = value;
  } while (nextIndex(outShape, idx));
  return out;
}

/// 0, 1, 2, ... as floats (like jnp.arange), so every element is distinct.
inline std::vector<float> iota(int64_t n, float start = 0.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = start + static_cast<float>(i);
  return v;
}

} // namespace rnnc::test

#endif // RNN_TESTS_UNIT_RUNTIME_ORACLE_H
