//===- Layer.cpp - Scans, flips, carry selection, Bidirectional -----------===//

#include "Layer.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace rnnc;
using namespace rnnc::reference;
using namespace rnnc::reference::detail;

int64_t reference::flipIndex(int64_t t, int64_t length, int64_t time) {
  if (time <= 0)
    return 0;
  // Python's floor-mod, as jnp's `%`: the result is in [0, T).
  int64_t idx = (time - 1 - t + length) % time;
  return idx < 0 ? idx + time : idx;
}

DirectionResult detail::runDirection(const spec::Cell &cell,
                                     const CellParams &params,
                                     llvm::ArrayRef<int64_t> input,
                                     const Sequences &x, const Lengths &lengths,
                                     bool reverse, bool keepOrder,
                                     std::vector<Carry> initial) {
  const int64_t time = x.time;
  const int64_t width =
      initial.empty() ? 0 : static_cast<int64_t>(initial[0].h.size());
  DirectionResult result{Sequences(x.rows, time, width), {}};
  for (int64_t r = 0; r < x.rows; ++r) {
    const int64_t length = lengths ? (*lengths)[r] : time;
    Carry carry = std::move(initial[r]);
    // A row without valid steps keeps its initial carry (Flax would return
    // the carry after step T-1 here: we are deliberately correct).
    Carry last = carry;
    for (int64_t s = 0; s < time; ++s) {
      int64_t src = reverse ? flipIndex(s, length, time) : s;
      stepCell(cell, params, input, x.step(r, src), carry);
      int64_t dst = reverse && keepOrder ? flipIndex(s, length, time) : s;
      std::copy(carry.h.begin(), carry.h.end(), result.y.step(r, dst));
      if (s == length - 1)
        last = carry;
    }
    result.carries.push_back(std::move(last));
  }
  return result;
}

/// The per-step output shape of one direction; fails like carryShape.
static llvm::Expected<std::vector<int64_t>>
checkDirection(const spec::Cell &cell, const CellParams &params,
               llvm::ArrayRef<int64_t> input, const llvm::Twine &what) {
  for (auto [fn, key] : {std::pair(cell.gateFn, "gate_fn"),
                         std::pair(cell.activationFn, "activation_fn")})
    if (!spec::isElementwise(fn))
      return makeError("'" + llvm::Twine(spec::stringify(fn)) +
                       "' normalizes over the last axis and cannot be the " +
                       key + " of " + what);
  auto shape = carryShape(cell, input, what);
  if (!shape)
    return shape.takeError();
  if (auto err = checkCellParams(cell, params, input, what))
    return std::move(err);
  return shape;
}

llvm::Expected<std::vector<int64_t>>
detail::checkLayer(const spec::Layer &layer, const LayerParams &params,
                   llvm::ArrayRef<int64_t> input, const llvm::Twine &what) {
  if (!layer.isBidirectional()) {
    if (params.backward)
      return makeError("expected no backward weights for RNN " + what);
    return checkDirection(layer.rnn.cell, params.forward, input,
                          "cell of " + what);
  }
  if (!params.backward)
    return makeError("expected backward weights for Bidirectional " + what +
                     ", found none");
  auto fwd = checkDirection(layer.forward.cell, params.forward, input,
                            "forward cell of " + what);
  if (!fwd)
    return fwd.takeError();
  auto bwd = checkDirection(layer.backward.cell, *params.backward, input,
                            "backward cell of " + what);
  if (!bwd)
    return bwd.takeError();
  if (layer.merge != spec::Merge::Concat) {
    if (*fwd != *bwd)
      return makeError("expected equal forward and backward output shapes "
                       "for an element-wise merge in " +
                       what + ", found " + shapeString(*fwd) + " and " +
                       shapeString(*bwd));
    return fwd;
  }
  if (!llvm::ArrayRef<int64_t>(*fwd).drop_back().equals(
          llvm::ArrayRef<int64_t>(*bwd).drop_back()))
    return makeError("expected forward and backward output shapes of " + what +
                     " to differ only in the last axis, found " +
                     shapeString(*fwd) + " and " + shapeString(*bwd));
  std::vector<int64_t> merged = *fwd;
  merged.back() += bwd->back();
  return merged;
}

Sequences detail::mergeDirections(spec::Merge kind, const Sequences &a,
                                  const Sequences &b, int64_t lastA,
                                  int64_t lastB) {
  if (kind != spec::Merge::Concat) {
    Sequences out = a;
    for (size_t k = 0; k < out.data.size(); ++k) {
      double u = a.data[k], v = b.data[k];
      switch (kind) {
      case spec::Merge::Add:
        out.data[k] = u + v;
        break;
      case spec::Merge::Mul:
        out.data[k] = u * v;
        break;
      case spec::Merge::Mean:
        out.data[k] = (u + v) / 2.0;
        break;
      case spec::Merge::Concat:
        llvm_unreachable("handled below");
      }
    }
    return out;
  }
  // Every step is `outer` runs of [a's lastA values | b's lastB values].
  const int64_t outer = lastA == 0 ? 0 : a.width / lastA;
  Sequences out(a.rows, a.time, a.width + b.width);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t t = 0; t < a.time; ++t) {
      double *dst = out.step(r, t);
      for (int64_t p = 0; p < outer; ++p) {
        dst = std::copy_n(a.step(r, t) + p * lastA, lastA, dst);
        dst = std::copy_n(b.step(r, t) + p * lastB, lastB, dst);
      }
    }
  return out;
}

LayerResult detail::runLayer(const spec::Layer &layer,
                             const LayerParams &params,
                             llvm::ArrayRef<int64_t> input, const Sequences &x,
                             const Lengths &lengths,
                             std::vector<Carry> initForward,
                             std::vector<Carry> initBackward, bool zeroPadded) {
  LayerResult result;
  if (!layer.isBidirectional()) {
    DirectionResult run = runDirection(
        layer.rnn.cell, params.forward, input, x, lengths, layer.rnn.reverse,
        layer.rnn.keepOrder, std::move(initForward));
    result.y = std::move(run.y);
    result.forward = std::move(run.carries);
  } else {
    // Bidirectional forces the directions: forward in order, backward
    // reversed with keep_order, both over the same inputs and lengths.
    DirectionResult fwd = runDirection(
        layer.forward.cell, params.forward, input, x, lengths,
        /*reverse=*/false, /*keepOrder=*/false, std::move(initForward));
    DirectionResult bwd = runDirection(
        layer.backward.cell, *params.backward, input, x, lengths,
        /*reverse=*/true, /*keepOrder=*/true, std::move(initBackward));
    result.y =
        mergeDirections(layer.merge, fwd.y, bwd.y, layer.forward.cell.features,
                        layer.backward.cell.features);
    result.forward = std::move(fwd.carries);
    result.backward = std::move(bwd.carries);
  }
  if (zeroPadded && lengths)
    for (int64_t r = 0; r < result.y.rows; ++r)
      for (int64_t t = (*lengths)[r]; t < result.y.time; ++t)
        std::fill_n(result.y.step(r, t), result.y.width, 0.0);
  return result;
}
