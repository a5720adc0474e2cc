//===- Pool.cpp - Reductions over the time axis ---------------------------===//

#include "Pool.h"

#include <algorithm>
#include <cmath>

using namespace rnnc;
using namespace rnnc::reference;
using namespace rnnc::reference::detail;
using spec::PoolFn;

llvm::Error detail::checkPool(const spec::Layer &layer, const Sequences &x,
                              const Lengths &lengths,
                              const Sequences *finalCarry,
                              const llvm::Twine &what) {
  PoolFn fn = layer.poolFn;
  if ((fn == PoolFn::LastValid || layer.validOnly) && !lengths)
    return makeError(
        llvm::Twine("Pool ") +
        (fn == PoolFn::LastValid ? "fn 'last_valid'" : "'valid_only: true'") +
        " of " + what + " needs seq_lengths ('input.seq_lengths: true')");
  if (fn == PoolFn::FinalCarry && !finalCarry)
    return makeError("Pool fn 'final_carry' of " + what +
                     " needs a recurrent layer before it");
  bool fixedSteps = fn == PoolFn::Last || fn == PoolFn::First ||
                    fn == PoolFn::Mean || fn == PoolFn::Max;
  if (x.time == 0 && fixedSteps && !layer.validOnly)
    return makeError("Pool fn '" + llvm::Twine(spec::stringify(fn)) + "' of " +
                     what + " needs at least one time step, found T = 0");
  return llvm::Error::success();
}

Sequences detail::runPool(const spec::Layer &layer, const Sequences &x,
                          const Lengths &lengths, const Sequences *finalCarry) {
  if (layer.poolFn == PoolFn::FinalCarry)
    return *finalCarry;
  Sequences out(x.rows, 1, x.width);
  for (int64_t r = 0; r < x.rows; ++r) {
    double *dst = out.step(r, 0);
    // Steps [0, n) are the ones the reduction reads.
    const int64_t n = layer.validOnly ? (*lengths)[r] : x.time;
    auto copyStep = [&](int64_t t) {
      if (t >= 0 && t < x.time)
        std::copy_n(x.step(r, t), x.width, dst);
    };
    switch (layer.poolFn) {
    case PoolFn::Last:
      copyStep(n - 1);
      break;
    case PoolFn::LastValid:
      copyStep((*lengths)[r] - 1);
      break;
    case PoolFn::First:
      if (n > 0)
        copyStep(0);
      break;
    case PoolFn::Sum:
    case PoolFn::Mean:
      for (int64_t t = 0; t < n; ++t)
        for (int64_t k = 0; k < x.width; ++k)
          dst[k] += x.step(r, t)[k];
      if (layer.poolFn == PoolFn::Mean && n > 0)
        for (int64_t k = 0; k < x.width; ++k)
          dst[k] /= static_cast<double>(n);
      break;
    case PoolFn::Max:
      if (n > 0)
        copyStep(0);
      for (int64_t t = 1; t < n; ++t)
        for (int64_t k = 0; k < x.width; ++k) {
          double v = x.step(r, t)[k];
          if (std::isnan(v) || v > dst[k]) // NaN propagates, as jnp.max
            dst[k] = v;
        }
      break;
    case PoolFn::FinalCarry:
      break; // handled above
    }
  }
  return out;
}
